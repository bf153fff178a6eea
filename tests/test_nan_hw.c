/*
 * test_nan_hw.c — the x86 NaN preset against this machine's FMA3, and the
 * SoftFloat preset's one departure from it.
 *
 * fma(0, inf, NaN) is where IEEE 754-2019 (7.2) lets implementations
 * differ: x86 FMA3 returns the NaN addend (quieted) and raises invalid only
 * when that addend is signaling; Berkeley SoftFloat 3e's 8086-SSE
 * specialisation (whose results TestFloat expects) raises invalid and
 * returns its default NaN.  For every case below the core's x86 preset must
 * give the hardware's bits and flags (vfmadd on binary32 and binary64,
 * flags from MXCSR), and the SoftFloat preset must give the default NaN
 * with invalid exactly where the product is 0 * inf.
 *
 * Exit 0 when all cases agree, 1 on a mismatch (inputs, expected and got
 * in hex), 77 when the CPU is not x86-64 with FMA3.
 */
#include <fenv.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "fplab/fplab.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

static unsigned hw_flags(void)
{
    unsigned f = 0;
    if (fetestexcept(FE_INVALID)) f |= FL_INVALID;
    if (fetestexcept(FE_INEXACT)) f |= FL_INEXACT;
    if (fetestexcept(FE_OVERFLOW)) f |= FL_OVERFLOW;
    if (fetestexcept(FE_UNDERFLOW)) f |= FL_UNDERFLOW;
    if (fetestexcept(FE_DIVBYZERO)) f |= FL_DIVBYZERO;
    return f;
}

__attribute__((target("fma"))) static uint64_t
hw_fma32(uint64_t a, uint64_t b, uint64_t c, unsigned *fl)
{
    volatile uint32_t va = (uint32_t)a, vb = (uint32_t)b, vc = (uint32_t)c;
    uint32_t ua = va, ub = vb, uc = vc, ur;
    float x, y, z;
    memcpy(&x, &ua, 4);
    memcpy(&y, &ub, 4);
    memcpy(&z, &uc, 4);
    feclearexcept(FE_ALL_EXCEPT);
    __m128 r = _mm_fmadd_ss(_mm_set_ss(x), _mm_set_ss(y), _mm_set_ss(z));
    *fl = hw_flags();
    float f = _mm_cvtss_f32(r);
    memcpy(&ur, &f, 4);
    return ur;
}

__attribute__((target("fma"))) static uint64_t
hw_fma64(uint64_t a, uint64_t b, uint64_t c, unsigned *fl)
{
    volatile uint64_t va = a, vb = b, vc = c;
    uint64_t ua = va, ub = vb, uc = vc, ur;
    double x, y, z;
    memcpy(&x, &ua, 8);
    memcpy(&y, &ub, 8);
    memcpy(&z, &uc, 8);
    feclearexcept(FE_ALL_EXCEPT);
    __m128d r = _mm_fmadd_sd(_mm_set_sd(x), _mm_set_sd(y), _mm_set_sd(z));
    *fl = hw_flags();
    double d = _mm_cvtsd_f64(r);
    memcpy(&ur, &d, 8);
    return ur;
}

int main(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("fma")) {
        printf("SKIP: this CPU has no FMA3\n");
        return 77;
    }
    /* operand kinds: 0 +0, 1 -0, 2 +inf, 3 -inf, 4 qNaN, 5 -qNaN with
     * payload, 6 sNaN with payload, 7 one */
    static const uint64_t k32[8] = {0, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                    0x7FC00000u, 0xFFC00123u, 0x7F800456u,
                                    0x3F800000u};
    static const uint64_t k64[8] = {
        0, UINT64_C(0x8000000000000000), UINT64_C(0x7FF0000000000000),
        UINT64_C(0xFFF0000000000000), UINT64_C(0x7FF8000000000000),
        UINT64_C(0xFFF8000000000123), UINT64_C(0x7FF0000000000456),
        UINT64_C(0x3FF0000000000000)};
    const fl_format *fmts[2] = {&fl_binary32, &fl_binary64};
    long cases = 0, bad = 0, disagree = 0;
    for (int w = 0; w < 2; w++) {
        const uint64_t *k = w ? k64 : k32;
        const fl_format *f = fmts[w];
        /* every triple of kinds with at least one NaN or a 0 * inf product */
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                for (int l = 0; l < 8; l++) {
                    const int nan = (i >= 4 && i <= 6) ||
                                    (j >= 4 && j <= 6) || (l >= 4 && l <= 6);
                    const int zinf = (i < 2 && j >= 2 && j <= 3) ||
                                     (j < 2 && i >= 2 && i <= 3);
                    if (!nan && !zinf)
                        continue;
                    unsigned hf, cf = 0, sf = 0;
                    uint64_t h = w ? hw_fma64(k[i], k[j], k[l], &hf)
                                   : hw_fma32(k[i], k[j], k[l], &hf);
                    fl_ctx c = fl_ctx_make(FL_RNE);
                    c.nan = FL_NANP_X86;
                    uint64_t x = fl_fma(f, k[i], k[j], k[l], &c, &cf);
                    c.nan = FL_NANP_SOFTFLOAT;
                    uint64_t s = fl_fma(f, k[i], k[j], k[l], &c, &sf);
                    cf &= FL_IEEE_FLAGS;
                    sf &= FL_IEEE_FLAGS;
                    cases++;
                    if (x != h || cf != hf) {
                        bad++;
                        printf("MISMATCH %s fma(%#" PRIx64 ", %#" PRIx64
                               ", %#" PRIx64 "): hardware %#" PRIx64
                               " flags %02x, core x86 preset %#" PRIx64
                               " flags %02x\n", f->name, k[i], k[j], k[l], h,
                               hf, x, cf);
                    }
                    /* SoftFloat: x86's answer except for 0 * inf (+ any
                     * addend, NaN included): default NaN, invalid */
                    const int own = zinf && !(i >= 4 && i <= 6) &&
                                    !(j >= 4 && j <= 6);
                    uint64_t sw = own ? fl_default_nan(f, FL_NANP_SOFTFLOAT)
                                      : h;
                    unsigned swf = own ? hf | FL_INVALID : hf;
                    if (s != sw || sf != swf) {
                        bad++;
                        printf("MISMATCH %s fma(%#" PRIx64 ", %#" PRIx64
                               ", %#" PRIx64 "): softfloat preset %#" PRIx64
                               " flags %02x, want %#" PRIx64 " flags %02x\n",
                               f->name, k[i], k[j], k[l], s, sf, sw, swf);
                    }
                    disagree += s != h || sf != hf;
                }
    }
    /* per width: 8^3 triples less those with neither a NaN nor 0 * inf
     * (kinds 0-3 and 7 only: 5^3 = 125, of which 8 * 5 = 40 have a 0 * inf
     * product), i.e. 512 - 85 = 427; the presets disagree on 0 * inf with
     * a NaN addend: 8 products * 3 NaN kinds = 24 */
    printf("%ld cases (binary32 and binary64), %ld mismatches; the SoftFloat "
           "preset departs from the hardware in %ld\n", cases, bad, disagree);
    if (cases != 2 * 427 || disagree != 2 * 24) {
        printf("FAIL: expected %d cases and %d departures\n", 2 * 427, 2 * 24);
        return 1;
    }
    return bad ? 1 : 0;
}
#else
int main(void)
{
    printf("SKIP: not x86-64 (FMA3 is what this test measures)\n");
    return 77;
}
#endif
