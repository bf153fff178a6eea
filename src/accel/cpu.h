/*
 * cpu.h — what the host CPU runs, asked once (host only, not installed).
 *
 * Every accelerated path of libfplab (the core's fast paths, ref's native
 * and tensor-core kernels, scale's MX and bulk kernels, the hardware
 * oracle) chooses by the one level below; nothing else reads cpuid.
 *
 * The level is the CPU's, capped by the environment variable FPLAB_CPU
 * (generic, scalar, avx2, avx512, avx512fp16), read at the first call and
 * cached for the process: tests and benches run every path the CPU has on
 * one machine, and FPLAB_CPU=generic runs the generic code alone.  A test
 * may cap the level of its own thread further (fl__accel_cap): that is how
 * tests/test_fastpath.c compares a kernel with the generic code in one
 * process, the generic side running with the cap at FL__CPU_GENERIC.
 */
#ifndef FPLAB_ACCEL_CPU_H
#define FPLAB_ACCEL_CPU_H

#include <stddef.h>

/* Levels, each including the ones below. */
enum fl__cpu_level {
    FL__CPU_GENERIC = 0,   /* the generic code only: no fast path at all */
    FL__CPU_SCALAR = 1,    /* scalar fast paths on the host's binary64 (and
                              SSE2 on x86-64) */
    FL__CPU_AVX2 = 2,      /* AVX2, F16C and FMA3, the OS saving YMM */
    FL__CPU_AVX512 = 3,    /* AVX-512 F, BW, VL, DQ and CD, the OS saving
                              ZMM and the mask registers */
    FL__CPU_AVX512FP16 = 4 /* AVX512-FP16 besides */
};
#define FL__CPU_LEVELS 5

/* Features beyond the level's requirements (a level's own features are
 * implied by it).  Cleared when FPLAB_CPU caps the level below avx512. */
#define FL__CPU_BF16 0x01u /* AVX512-BF16 */

/* The process's level (CPU capped by FPLAB_CPU), probed at the first call
 * by any thread; later calls are one relaxed load. */
int fl__cpu_level(void);
/* Features (FL__CPU_*) the process may use. */
unsigned fl__cpu_features(void);
/* The CPU's brand string (cpuid leaves 0x80000002-4), trimmed, or a
 * description of the host ("unknown x86", "non-x86 host"). */
void fl__cpu_model(char *buf, size_t len);
/* The name of a level: "generic", "scalar", "avx2", "avx512",
 * "avx512fp16". */
const char *fl__cpu_level_name(int level);

/* The calling thread's cap (FL__CPU_LEVELS: none); returns the previous
 * one.  Tests only. */
int fl__accel_cap(int level);

/* The level the calling thread runs: the process's, capped by the thread's
 * cap.  The hooks of the operations ask this on every call, so it is kept
 * per thread, one byte: fl__accel_tlev is that level plus one, 0 until the
 * thread's first call learns it (fl__accel_cap sets it at once) and while
 * the process's level is not probed (a constructor probes it at load
 * time, cpu.c; until then the level reads -1, below every level, and the
 * generic code runs, which is always correct). */
extern __thread unsigned char fl__accel_tcap
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern __thread unsigned char fl__accel_tlev
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* Learns the calling thread's level (fl__accel_tlev), returns it. */
int fl__accel_tinit(void) __attribute__((visibility("hidden")));

static inline __attribute__((always_inline)) int fl__accel_level(void)
{
    const int t = fl__accel_tlev;
    if (__builtin_expect(t != 0, 1))
        return t - 1;
    return fl__accel_tinit();
}

/* The calling thread's level is known and at least `level`: one
 * comparison of the byte, for the hottest routes (the scalar binary16 and
 * binary32 ones of hooks.h).  False until the thread's level is known:
 * such a route then declines, and the routes after it, which ask
 * fl__accel_level(), learn the level on the thread's first call. */
static inline __attribute__((always_inline)) int fl__accel_at(int level)
{
    return fl__accel_tlev > level;
}
/* The same for exactly `level`: the level of the most likely route
 * tested first, in one comparison. */
static inline __attribute__((always_inline)) int fl__accel_is(int level)
{
    return fl__accel_tlev == level + 1;
}

#endif /* FPLAB_ACCEL_CPU_H */
