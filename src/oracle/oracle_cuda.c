/*
 * oracle_cuda.c — the "cuda-host" oracle module: NVIDIA's cuda_fp16.h /
 * cuda_bf16.h host code through the C++ shim (oracle_cuda_host.cpp), for
 * the core's CUDA NaN preset.  Values only: the host code raises no flags.
 *
 * Covers, for binary16 and bfloat16:
 *   add, sub, mul, div       nearest-even (host paths in float, then _rn);
 *   cvt from binary32        rne, rtz, rdn, rup (_rn/_rz/_rd/_ru);
 *   cvt from binary64        rne (__double2half, __double2bfloat16);
 * and cvt to binary32 from binary16/bfloat16 (exact; NaN -> 0x7FFFFFFF).
 */
#include "oracle.h"

#include <stdio.h>

/* The host's CUDA conversions and arithmetic give values only: no
 * flags. */
static unsigned cuda_flags_reported(const fl_orc_job *j)
{
    (void)j;
    return 0;
}

#ifdef FPLAB_HAVE_CUDA_HOST
#include "oracle_cuda_host.h"

static int same_fmt(const fl_format *f, const fl_format *p)
{
    return f->width == p->width && f->ebits == p->ebits &&
           f->prec == p->prec && f->has_inf == p->has_inf &&
           f->subnormals == p->subnormals && !f->saturate &&
           f->nan_style == p->nan_style && f->bias == p->bias &&
           f->is_signed == p->is_signed && f->has_zero == p->has_zero &&
           f->min_gap_up == p->min_gap_up;
}

/* Map a job to the shim's (type, op, rnd); -1 if not covered. */
static int cuda_map(const fl_orc_job *j, int *type, int *op, int *rnd)
{
    const fl_format *f = j->fmt;
    int t, rm = j->ctx.rm;
    *rnd = 0;
    if (same_fmt(f, &fl_binary32) && j->op == FL_ORC_CVT) {
        if (same_fmt(j->src, &fl_binary16)) t = FL_CUDA_HALF;
        else if (same_fmt(j->src, &fl_bfloat16)) t = FL_CUDA_BF16;
        else return -1;
        *type = t;
        *op = FL_CUDA_TO_FLOAT;
        return 0;        /* exact: any mode */
    }
    if (same_fmt(f, &fl_binary16)) t = FL_CUDA_HALF;
    else if (same_fmt(f, &fl_bfloat16)) t = FL_CUDA_BF16;
    else return -1;
    *type = t;
    switch (j->op) {
    case FL_ORC_ADD: *op = FL_CUDA_ADD; break;
    case FL_ORC_SUB: *op = FL_CUDA_SUB; break;
    case FL_ORC_MUL: *op = FL_CUDA_MUL; break;
    case FL_ORC_DIV: *op = FL_CUDA_DIV; break;
    case FL_ORC_CVT:
        if (same_fmt(j->src, &fl_binary32)) {
            *op = FL_CUDA_FROM_FLOAT;
            switch (rm) {
            case FL_RNE: *rnd = 0; return 0;
            case FL_RTZ: *rnd = 1; return 0;
            case FL_RDN: *rnd = 2; return 0;
            case FL_RUP: *rnd = 3; return 0;
            default: return -1;
            }
        }
        if (same_fmt(j->src, &fl_binary64)) {
            *op = FL_CUDA_FROM_DOUBLE;
            break;
        }
        return -1;
    default: return -1;
    }
    return rm == FL_RNE ? 0 : -1;
}

static int cuda_can_run(char *why, size_t len)
{
    snprintf(why, len, "NVIDIA cuda_fp16.h/cuda_bf16.h host code, CUDA %d.%d",
             fl_cuda_host_version() / 1000, fl_cuda_host_version() % 1000 / 10);
    return 1;
}

static int cuda_supports(const fl_orc_job *j, char *why, size_t len)
{
    int t, o, r;
    const fl_ctx *c = &j->ctx;
    if (c->nan != FL_NANP_CUDA || c->ftz || c->daz || c->saturate) {
        snprintf(why, len, "cuda-host models the CUDA preset, no ftz/daz/saturate");
        return 0;
    }
    if (cuda_map(j, &t, &o, &r) < 0) {
        snprintf(why, len, "cuda-host covers binary16/bfloat16 add, sub, mul, "
                 "div (rne), cvt from binary32 (rne rtz rdn rup), from "
                 "binary64 (rne), and to binary32");
        return 0;
    }
    return 1;
}

static void cuda_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                         const uint64_t *b, const uint64_t *c, uint64_t *r,
                         unsigned *flags)
{
    int t, o, rnd;
    size_t i;
    (void)c;
    if (cuda_map(j, &t, &o, &rnd) < 0 ||
        fl_cuda_host_batch(t, o, rnd, n, a, b, r) < 0) {
        for (i = 0; i < n; i++) {
            r[i] = ~(uint64_t)0;
            if (flags) flags[i] = FL_ORC_ERROR;
        }
        return;
    }
    if (flags)
        for (i = 0; i < n; i++)
            flags[i] = 0;
}

#else

static int cuda_can_run(char *why, size_t len)
{
    snprintf(why, len, "built without the CUDA toolkit headers");
    return 0;
}
static int cuda_supports(const fl_orc_job *j, char *why, size_t len)
{
    (void)j;
    snprintf(why, len, "built without the CUDA toolkit headers");
    return 0;
}
static void cuda_compute(const fl_orc_job *j, size_t n, const uint64_t *a,
                         const uint64_t *b, const uint64_t *c, uint64_t *r,
                         unsigned *flags)
{
    (void)j; (void)n; (void)a; (void)b; (void)c; (void)r; (void)flags;
}
#endif

const fl_oracle fl_oracle_cuda_host = {
    "cuda-host",
    "NVIDIA cuda_fp16.h / cuda_bf16.h host-side code (CUDA NaN preset)",
    FL_NANP_CUDA,
    cuda_can_run,
    cuda_supports,
    cuda_flags_reported,
    cuda_compute,
};
