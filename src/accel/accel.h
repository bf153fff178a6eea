/*
 * accel.h — the seam between libfplab's generic code and its hardware
 * acceleration (host only, not installed).
 *
 * The rule for contributors
 * -------------------------
 * Edit the generic code.  The operation files (src/softfloat/add.c,
 * mul.c, fma.c, ...) hold the algorithm in the style of SoftFloat and
 * are the one source of truth; each has ONE hook, FL__ACCEL_HOOK, where
 * the seam may take the case.  Everything here is an accelerated copy of
 * some generic routine and must give the same value and the same flag
 * word (IEEE flags and the ternary bits) for every input it accepts;
 * whatever it does not accept it declines, and the generic code runs.
 * tests/test_fastpath.c proves every kernel equal to the generic code at
 * every level the CPU has (CTest runs it once per FPLAB_CPU level), under
 * every NaN preset, on the specials; a kernel that is not proven there
 * does not go in.  hooks.h lists the routes each hook tries.
 *
 * The CI's valgrind pass runs the avx2 routes under valgrind's emulation,
 * which differs from the hardware in places: FMA3's NaN choice, and
 * vcmpneq_oqss evaluated as unordered (valgrind 3.19).  A route whose
 * result depends on such an instruction uses another (two legacy
 * comparisons, the NaN chosen in integers).
 *
 * Levels (cpu.h): the one CPU probe.  A kernel set is chosen by
 * fl__accel_level() (the process's level, capped by FPLAB_CPU and by the
 * calling thread's test cap) at the call, so a test can compare a kernel
 * with the generic code in one process.
 */
#ifndef FPLAB_ACCEL_H
#define FPLAB_ACCEL_H

#include "cpu.h"

/* The vector kernel set the calling thread runs (the array kernels,
 * fast_simd.c, fast_narrow.c, fast_simd_binop.c, and scale's MX kernels,
 * are built for these two widths; the binary16 kernels of fast_h16.c
 * follow the same sets): 2 AVX-512, 1 AVX2, 0 none.  Kernels that take a
 * `level` argument read it as such a set, -1 meaning this one. */
static inline int fl__accel_simd(void)
{
    const int level = fl__accel_level();
#if defined(__x86_64__) && defined(__GNUC__)
#ifdef FPLAB_AVX512
    if (level >= FL__CPU_AVX512)
        return 2;
#endif
    if (level >= FL__CPU_AVX2)
        return 1;
#endif
    (void)level;
    return 0;
}

/* Call the kernel of a family for a vector kernel set (fl__accel_simd):
 * the one level-to-kernel ladder of the array kernels. */
#ifdef FPLAB_AVX512
#define FL__ACCEL_SIMD_CALL(set, k512, k256) ((set) >= 2 ? (k512) : (k256))
#else
#define FL__ACCEL_SIMD_CALL(set, k512, k256) (k256)
#endif

/* The body of a kernel family's entry point: the vector set (level < 0:
 * the calling thread's), the call's parameters by init (0: no kernel
 * serves them), then the set's kernel; returns 0 where none applies. */
#define FL__ACCEL_SIMD_RUN(level, init, k512, k256)                          \
    do {                                                                     \
        const int fl__set = (level) < 0 ? fl__accel_simd() : (level);        \
        if (fl__set == 0 || !(init))                                         \
            return 0;                                                        \
        return FL__ACCEL_SIMD_CALL(fl__set, k512, k256);                     \
    } while (0)

/* A software prefetch of the input this far ahead of the element being
 * read, in the bulk kernels' loops.  Their stochastic-rounding bodies
 * run long chains of 64-bit multiplies (15 cycles each on Intel's
 * AVX-512 cores): the scheduler fills with them and the loads of later
 * iterations issue too late for the hardware prefetcher, so an array
 * streamed from memory ran at half the in-cache rate (docs/speed.md).
 * sr: the loop rounds stochastically; its prefetches (and those of the
 * random-bit filler, simd_srfill.h) go to the second-level cache only,
 * which on the Intel machine of docs/speed.md was 5-8% faster for SR from
 * memory (fewer first-level fill buffers held while the streaming stores
 * need them) and 4% slower for binary16 nearest even, hence the split. */
#define FL__ACCEL_PREFETCH_BYTES 4096
#define FL__ACCEL_PREFETCH_L2 2   /* __builtin_prefetch locality: prefetcht1 */
#define FL__ACCEL_PREFETCH(p, sr)                                            \
    do {                                                                     \
        const char *fl__pf = (const char *)(p) + FL__ACCEL_PREFETCH_BYTES;   \
        if (sr)                                                              \
            __builtin_prefetch(fl__pf, 0, FL__ACCEL_PREFETCH_L2);            \
        else                                                                 \
            __builtin_prefetch(fl__pf, 0, 3);                                \
    } while (0)

#endif /* FPLAB_ACCEL_H */
