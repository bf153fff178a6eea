/*
 * cpu.c — the one CPU probe of libfplab (cpu.h).
 *
 * cpuid traps to the hypervisor in a virtual machine (microseconds), so
 * the answer is cached.  A constructor probes at load time; a call before
 * that (another library's constructor) probes itself.  The probe is a pure
 * function of the CPU and the environment: callers that race on it compute
 * the same word and store it atomically, which makes the race harmless
 * without a lock.
 */
#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define FL__CPU_X86 1
#include <cpuid.h>
#endif

__thread unsigned char fl__accel_tcap
    __attribute__((tls_model("initial-exec"), visibility("hidden"))) =
        FL__CPU_LEVELS;
__thread unsigned char fl__accel_tlev
    __attribute__((tls_model("initial-exec"), visibility("hidden"))) = 0;
/* -1: not probed yet; else the level */
__attribute__((visibility("hidden"))) int fl__cpu_level_cache = -1;
/* bit 31: probed; the FL__CPU_* feature bits below */
static unsigned fl__cpu_feat_cache;

static const char *const fl__cpu_names[FL__CPU_LEVELS] = {
    "generic", "scalar", "avx2", "avx512", "avx512fp16" };

const char *fl__cpu_level_name(int level)
{
    return level >= 0 && level < FL__CPU_LEVELS ? fl__cpu_names[level] : "?";
}

#ifdef FL__CPU_X86
static unsigned long long fl__xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

/* The CPU's own level and features. */
static int fl__cpu_detect(unsigned *feat)
{
    int level = FL__CPU_SCALAR;
    *feat = 0;
#ifdef FL__CPU_X86
    unsigned a, b, c, d;
    int ymm = 0, zmm = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return level;
    /* leaf 1 ECX: 27 OSXSAVE, 28 AVX; XCR0 bits 1-2 XMM/YMM, 5-7 the mask
     * registers and ZMM */
    if ((c & (1u << 27)) && (c & (1u << 28))) {
        const unsigned long long x = fl__xgetbv0();
        ymm = (x & 0x6) == 0x6;
        zmm = ymm && (x & 0xE0) == 0xE0;
    }
    {
        const int f16c = (c >> 29) & 1, fma = (c >> 12) & 1;
        unsigned b7 = 0, d7 = 0, a71 = 0;
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
            b7 = b;
            d7 = d;
            if (a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
                a71 = a;
        }
        /* leaf 7 EBX: 5 AVX2, 16 F, 17 DQ, 28 CD, 30 BW, 31 VL;
         * EDX 23 AVX512-FP16; leaf 7.1 EAX 5 AVX512-BF16 */
        if (ymm && f16c && fma && ((b7 >> 5) & 1))
            level = FL__CPU_AVX2;
        if (level == FL__CPU_AVX2 && zmm &&
            (b7 & 0xD0030000u) == 0xD0030000u)
            level = FL__CPU_AVX512;
        if (level == FL__CPU_AVX512 && ((d7 >> 23) & 1))
            level = FL__CPU_AVX512FP16;
        if (level >= FL__CPU_AVX512 && ((a71 >> 5) & 1))
            *feat |= FL__CPU_BF16;
    }
#endif
    return level;
}

static int fl__cpu_probe(void)
{
    unsigned feat;
    int level = fl__cpu_detect(&feat), cap = FL__CPU_LEVELS - 1, i;
    const char *e = getenv("FPLAB_CPU");
    if (e && *e) {
        for (i = 0; i < FL__CPU_LEVELS; i++)
            if (!strcmp(e, fl__cpu_names[i]))
                break;
        if (i < FL__CPU_LEVELS)
            cap = i;
        else if (__atomic_load_n(&fl__cpu_level_cache, __ATOMIC_RELAXED) < 0)
            fprintf(stderr,
                    "fplab: FPLAB_CPU='%s' is not one of generic, scalar, "
                    "avx2, avx512, avx512fp16; using the CPU's level\n", e);
    }
    if (level > cap)
        level = cap;
    if (level < FL__CPU_AVX512)
        feat = 0;
    __atomic_store_n(&fl__cpu_feat_cache, feat | 0x80000000u, __ATOMIC_RELAXED);
    __atomic_store_n(&fl__cpu_level_cache, level, __ATOMIC_RELEASE);
    return level;
}

/* At load time, before any thread of the process can ask. */
__attribute__((constructor)) static void fl__cpu_init(void)
{
    if (__atomic_load_n(&fl__cpu_level_cache, __ATOMIC_RELAXED) < 0)
        fl__cpu_probe();
}

int fl__cpu_level(void)
{
    int l = __atomic_load_n(&fl__cpu_level_cache, __ATOMIC_RELAXED);
    return l < 0 ? fl__cpu_probe() : l;
}

unsigned fl__cpu_features(void)
{
    if (__atomic_load_n(&fl__cpu_level_cache, __ATOMIC_ACQUIRE) < 0)
        fl__cpu_probe();
    return __atomic_load_n(&fl__cpu_feat_cache, __ATOMIC_RELAXED) &
           ~0x80000000u;
}

int fl__accel_tinit(void)
{
    const int l = __atomic_load_n(&fl__cpu_level_cache, __ATOMIC_ACQUIRE);
    int t;
    if (l < 0)
        return -1;                          /* not probed: nothing kept */
    t = l < fl__accel_tcap ? l : fl__accel_tcap;
    fl__accel_tlev = (unsigned char)(t + 1);
    return t;
}

int fl__accel_cap(int level)
{
    const int old = fl__accel_tcap;
    fl__accel_tcap = (unsigned char)(level < 0 ? 0
                                     : level > FL__CPU_LEVELS ? FL__CPU_LEVELS
                                                              : level);
    /* the thread's level at once (0 if the process's is not probed yet):
     * a route that asks fl__accel_at() right after the cap changed must
     * see the new level, not decline (test_fastpath alternates the
     * generic side and the route call by call) */
    fl__accel_tlev = 0;
    (void)fl__accel_tinit();
    return old;
}

void fl__cpu_model(char *buf, size_t len)
{
    if (!len)
        return;
#ifdef FL__CPU_X86
    {
        unsigned r[12], a, b, c, d;
        char s[49];
        size_t i = 0, n;
        if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u) {
            for (n = 0; n < 3; n++)
                __get_cpuid(0x80000002u + (unsigned)n, &r[4 * n],
                            &r[4 * n + 1], &r[4 * n + 2], &r[4 * n + 3]);
            memcpy(s, r, 48);
            s[48] = 0;
            n = strlen(s);
            while (n && s[n - 1] == ' ')
                s[--n] = 0;
            while (s[i] == ' ')
                i++;
            snprintf(buf, len, "%s", s + i);
            return;
        }
        snprintf(buf, len, "unknown x86");
    }
#else
    snprintf(buf, len, "non-x86 host");
#endif
}
