/*
 * kernel_lib.c — a kernel library for `fplab reveal --kernel-lib
 * LIB.so:reveal_kernel --kernel-arg MODE` (the tests build it as a shared
 * module that does not link fplab: it states its output format through
 * call->set_out_format).  Binary32 arithmetic of the C compiler, built
 * with -ffp-contract=off, so every + and * rounds once to nearest even.
 *
 * MODE:
 *   sum        sum: 4 lanes (lane j: t_j, t_{j+4}, ... from its first
 *              term), combined (l0 + l1) + (l2 + l3): order=lanes:4:pairwise
 *   gemm       gemm: C = 0, then C += a*b for k in order (2-D or 3-D):
 *              order=sequential products=rounded epilogue=init
 *   gemm2d     the same, but a 3-D call is refused (no batch axis)
 *   gemmflip   the same 2-D; a 3-D call sums k in reverse (batched calls
 *              sum otherwise: reveal must notice and go 2-D)
 *   fail       returns -1 with a message
 *   hang       never returns
 *   crash      dies of SIGSEGV
 *   badfmt     does not state its output format
 *   badbits    writes bits above the 32 of binary32
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fplab/reveal.h"

static float f32(uint64_t b)
{
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float lanes4(const uint64_t *x, size_t n)
{
    float l[4];
    size_t w = n < 4 ? n : 4;
    for (size_t j = 0; j < w; j++) {
        l[j] = f32(x[j]);
        for (size_t i = j + 4; i < n; i += 4)
            l[j] = l[j] + f32(x[i]);
    }
    if (w == 1)
        return l[0];
    if (w == 2)
        return l[0] + l[1];
    if (w == 3)          /* pairwise over 3: (l0 + l1) + l2 */
        return (l[0] + l[1]) + l[2];
    return (l[0] + l[1]) + (l[2] + l[3]);
}

static void gemm(const fl_reveal_call *c, int reverse)
{
    size_t B = c->batch ? c->batch : 1, M = c->rows, N = c->n, K = c->k;
    for (size_t b = 0; b < B; b++)
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < N; j++) {
                const uint64_t *a = c->a + b * M * K + i * K;
                const uint64_t *bm = c->b + b * K * N + j;
                float s = 0.0f;
                for (size_t q = 0; q < K; q++) {
                    size_t k = reverse ? K - 1 - q : q;
                    float p = f32(a[k]) * f32(bm[k * N]);
                    s = s + p;
                }
                c->out[b * M * N + i * N + j] = bits(s);
            }
}

int reveal_kernel(void *user, fl_reveal_call *c, char *err, size_t errlen);

int reveal_kernel(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    const char *mode = user ? (const char *)user : "sum";
    if (c->in->width != 32) {
        snprintf(err, errlen, "kernel_lib: binary32 inputs only");
        return -1;
    }
    if (!strcmp(mode, "fail")) {
        snprintf(err, errlen, "kernel_lib: this kernel fails on purpose");
        return -1;
    }
    if (!strcmp(mode, "hang"))
        for (;;)
            pause();
    if (!strcmp(mode, "crash")) {
        fprintf(stderr, "kernel_lib: about to crash\n");
        fflush(stderr);
        raise(SIGSEGV);
        return -1;
    }
    if (!strncmp(mode, "gemm", 4)) {
        if (c->op != FL_REF_OP_GEMM) {
            snprintf(err, errlen, "kernel_lib: mode %s is a gemm", mode);
            return -1;
        }
        if (c->batch && !strcmp(mode, "gemm2d")) {
            snprintf(err, errlen, "kernel_lib: 2-D matrices only");
            return -1;
        }
        gemm(c, c->batch && !strcmp(mode, "gemmflip"));
    } else {
        size_t rows = (c->batch ? c->batch : 1) * c->rows;
        if (c->op != FL_REF_OP_SUM) {
            snprintf(err, errlen, "kernel_lib: mode %s is a sum", mode);
            return -1;
        }
        for (size_t r = 0; r < rows; r++)
            c->out[r] = bits(lanes4(c->a + r * c->n, c->n));
        if (!strcmp(mode, "badbits"))
            c->out[0] |= (uint64_t)1 << 40;
    }
    if (strcmp(mode, "badfmt") != 0 && c->set_out_format(c, "binary32") != 0) {
        snprintf(err, errlen, "kernel_lib: set_out_format failed");
        return -1;
    }
    return 0;
}
