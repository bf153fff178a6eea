/*
 * elementwise.cu — NVIDIA half/bfloat16/float intrinsics checked bit for bit
 * against the fplab core running on the device beside them.
 *
 * The core's sources are compiled here as device-only code
 * (FPLAB_DEVICE_ONLY), so the reference is the same C source that the
 * tests verify against MPFR on the CPU, and independent of the hardware it
 * judges.  The reference uses the CUDA NaN preset, round to nearest even
 * unless the intrinsic names another mode, and tininess after rounding.
 */
#define FPLAB_DEVICE_ONLY 1
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdio.h>
#include <string.h>

/* The core, as device code, in a namespace of its own (its host-side
 * shadows must not collide with the host library's C symbols). */
#include <stddef.h>
#include <stdint.h>
namespace fkdev {
#include "../src/softfloat/round.c"
#include "../src/softfloat/nan.c"
#include "../src/softfloat/add.c"
#include "../src/softfloat/sub.c"
#include "../src/softfloat/mul.c"
#include "../src/softfloat/div.c"
#include "../src/softfloat/sqrt.c"
#include "../src/softfloat/fma.c"
#include "../src/softfloat/convert.c"
#include "../src/softfloat/compare.c"
#include "../src/softfloat/classify.c"
} /* namespace fkdev */
using namespace fkdev;

#include "gpu.h"
#include "gpu_util.h"

/* Device-side copies of the formats (host presets are host data). */
struct fk_formats {
    fl_format h, b, f, d;
};

struct fk_rec {
    unsigned long long count, max_ulp, nan_bits;
    unsigned long long in[FK_MAX_RECORD][3], got[FK_MAX_RECORD],
        want[FK_MAX_RECORD];
};

/* Counter-based input generator for the random checks (same mixing as the
 * core's stochastic-rounding stream, a different seed domain). */
__device__ static uint64_t fk_rand(uint64_t seed, uint64_t i, int lane)
{
    return fl_sr_bits(seed ^ 0x5DEECE66Dull * (uint64_t)(lane + 1), i);
}

/* Biased random pattern of `bits` width: half uniform, half near the hard
 * places (tiny exponents, the top of the range, ties in the low bits). */
__device__ static uint64_t fk_pattern(uint64_t r, int bits, int ebits)
{
    uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    uint64_t v = r & mask;
    int frac = bits - 1 - ebits;
    switch ((r >> 60) & 3) {
    case 0: /* small exponents: subnormal and lowest normals */
        v &= ~(((1ull << ebits) - 1) << frac) | (3ull << frac);
        break;
    case 1: /* top of the range */
        v |= ((1ull << ebits) - 2) << frac;
        v &= ~(1ull << frac) | (v & mask);
        break;
    default:
        break;
    }
    return v & mask;
}

__device__ static uint64_t ordinal(const fl_format *f, uint64_t x)
{
    /* monotone map of bit patterns to integers for ulp distances */
    uint64_t mag = x & ~f->sign_mask;
    return (x & f->sign_mask) ? (uint64_t)(-(int64_t)mag) : mag;
}

__device__ static void record(fk_rec *rec, const fl_format *f, uint64_t a,
                              uint64_t b, uint64_t c, uint64_t got,
                              uint64_t want, int is_bool)
{
    unsigned long long k = atomicAdd(&rec->count, 1ull);
    if (!is_bool) {
        uint64_t d = ordinal(f, got) - ordinal(f, want);
        if ((int64_t)d < 0)
            d = -d;
        atomicMax(&rec->max_ulp, (unsigned long long)d);
    }
    if (k < FK_MAX_RECORD) {
        rec->in[k][0] = a;
        rec->in[k][1] = b;
        rec->in[k][2] = c;
        rec->got[k] = got;
        rec->want[k] = want;
    }
}

/* --- the intrinsics under test ----------------------------------------- */

/* Raw bits in and out of the two 16-bit types (overloads, so one template
 * serves both: the intrinsics themselves are overloaded for both types). */
__device__ static uint16_t tobits(__half x) { return __half_as_ushort(x); }
__device__ static uint16_t tobits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }
__device__ static void frombits(__half *x, uint16_t b) { *x = __ushort_as_half(b); }
__device__ static void frombits(__nv_bfloat16 *x, uint16_t b) { *x = __ushort_as_bfloat16(b); }

template <typename T>
__device__ static uint64_t gpu_16(int op, uint16_t a, uint16_t b, uint16_t c)
{
    T x, y, z;
    frombits(&x, a);
    frombits(&y, b);
    frombits(&z, c);
    switch (op) {
    case FK_ADD: return tobits(__hadd(x, y));
    case FK_SUB: return tobits(__hsub(x, y));
    case FK_MUL: return tobits(__hmul(x, y));
    case FK_DIV: return tobits(__hdiv(x, y));
    case FK_ADD_RN: return tobits(__hadd_rn(x, y));
    case FK_SUB_RN: return tobits(__hsub_rn(x, y));
    case FK_MUL_RN: return tobits(__hmul_rn(x, y));
    case FK_ADD_SAT: return tobits(__hadd_sat(x, y));
    case FK_SUB_SAT: return tobits(__hsub_sat(x, y));
    case FK_MUL_SAT: return tobits(__hmul_sat(x, y));
    case FK_EQ: return __heq(x, y);
    case FK_NE: return __hne(x, y);
    case FK_LT: return __hlt(x, y);
    case FK_LE: return __hle(x, y);
    case FK_GT: return __hgt(x, y);
    case FK_GE: return __hge(x, y);
    case FK_SQRT: return tobits(hsqrt(x));
    case FK_RCP: return tobits(hrcp(x));
    case FK_TO_F32: return __float_as_uint(static_cast<float>(x));
    case FK_FMA: return tobits(__hfma(x, y, z));
    case FK_FMA_SAT: return tobits(__hfma_sat(x, y, z));
    default: return 0;
    }
}

__device__ static uint64_t gpu_half(int op, uint16_t a, uint16_t b, uint16_t c)
{
    return gpu_16<__half>(op, a, b, c);
}

/* bfloat16 arithmetic needs sm_80; older targets compile a stub. */
__device__ static uint64_t gpu_bf16(int op, uint16_t a, uint16_t b, uint16_t c)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    return gpu_16<__nv_bfloat16>(op, a, b, c);
#else
    return 0;
#endif
}

__device__ static uint64_t gpu_from_f32(int type, int op, uint32_t u)
{
    float x = __uint_as_float(u);
    if (type == FK_HALF) {
        switch (op) {
        case FK_FROM_F32_RN: return __half_as_ushort(__float2half_rn(x));
        case FK_FROM_F32_RZ: return __half_as_ushort(__float2half_rz(x));
        case FK_FROM_F32_RD: return __half_as_ushort(__float2half_rd(x));
        default: return __half_as_ushort(__float2half_ru(x));
        }
    }
    switch (op) {
    case FK_FROM_F32_RN: return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    case FK_FROM_F32_RZ: return __bfloat16_as_ushort(__float2bfloat16_rz(x));
    case FK_FROM_F32_RD: return __bfloat16_as_ushort(__float2bfloat16_rd(x));
    default: return __bfloat16_as_ushort(__float2bfloat16_ru(x));
    }
}

__device__ static uint64_t gpu_f32(int op, uint32_t a, uint32_t b, uint32_t c)
{
    float x = __uint_as_float(a), y = __uint_as_float(b), z = __uint_as_float(c), r;
    switch (op) {
    case FK_F32_ADD: asm("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    case FK_F32_MUL: asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    case FK_F32_FMA: asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); break;
    case FK_F32_ADD_FTZ: asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    case FK_F32_MUL_FTZ: asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    default: asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); break;
    }
    return __float_as_uint(r);
}

/* --- the reference ------------------------------------------------------ */

/* Saturation of the _sat intrinsics: clamp to [+0, 1], NaN to +0. */
__device__ static uint64_t sat01(const fl_format *f, uint64_t r)
{
    fl_unp u = fl__unpack(f, r, 0);
    uint64_t one = (uint64_t)f->bias << (f->prec - 1);
    if (fl__is_nan_cls(u.cls) || u.sign || u.cls == FL_U_ZERO)
        return 0;
    if (u.cls == FL_U_INF || u.exp >= 0)
        return one;
    return r;
}

__device__ static uint64_t ref_16(int op, const fl_format *f,
                                  const fl_format *f32, uint16_t a,
                                  uint16_t b, uint16_t c)
{
    fl_ctx ctx;
    unsigned fl = 0;
    uint64_t one = (uint64_t)f->bias << (f->prec - 1);
    memset(&ctx, 0, sizeof ctx);
    ctx.rm = FL_RNE;
    ctx.nan = FL_NANP_CUDA;
    switch (op) {
    case FK_ADD: case FK_ADD_RN: return fl_add(f, a, b, &ctx, &fl);
    case FK_SUB: case FK_SUB_RN: return fl_sub(f, a, b, &ctx, &fl);
    case FK_MUL: case FK_MUL_RN: return fl_mul(f, a, b, &ctx, &fl);
    case FK_DIV: return fl_div(f, a, b, &ctx, &fl);
    case FK_ADD_SAT: return sat01(f, fl_add(f, a, b, &ctx, &fl));
    case FK_SUB_SAT: return sat01(f, fl_sub(f, a, b, &ctx, &fl));
    case FK_MUL_SAT: return sat01(f, fl_mul(f, a, b, &ctx, &fl));
    case FK_EQ: return fl_compare(f, a, b, 0, &ctx, &fl) == FL_CMP_EQ;
    case FK_NE: return fl_compare(f, a, b, 0, &ctx, &fl) == FL_CMP_LT ||
                       fl_compare(f, a, b, 0, &ctx, &fl) == FL_CMP_GT;
    case FK_LT: return fl_compare(f, a, b, 0, &ctx, &fl) == FL_CMP_LT;
    case FK_LE: { int k = fl_compare(f, a, b, 0, &ctx, &fl);
                  return k == FL_CMP_LT || k == FL_CMP_EQ; }
    case FK_GT: return fl_compare(f, a, b, 0, &ctx, &fl) == FL_CMP_GT;
    case FK_GE: { int k = fl_compare(f, a, b, 0, &ctx, &fl);
                  return k == FL_CMP_GT || k == FL_CMP_EQ; }
    case FK_SQRT: return fl_sqrt(f, a, &ctx, &fl);
    case FK_RCP: return fl_div(f, one, a, &ctx, &fl);
    case FK_TO_F32: return fl_convert(f32, f, a, &ctx, &fl);
    case FK_FMA: return fl_fma(f, a, b, c, &ctx, &fl);
    case FK_FMA_SAT: return sat01(f, fl_fma(f, a, b, c, &ctx, &fl));
    default: return 0;
    }
}

static __host__ __device__ int op_is_bool(int op)
{
    return op >= FK_EQ && op <= FK_GE;
}

static __host__ __device__ int op_arity(int op)
{
    if (op <= FK_GE) return 2;
    if (op <= FK_TO_F32) return 1;
    if (op <= FK_FMA_SAT) return 3;
    return 0;
}

/* One kernel for every check: `kind` says how the inputs are produced. */
__global__ void fk_elementwise_kernel(int type, int op, uint64_t begin,
                                      uint64_t end, uint64_t seed,
                                      fk_formats fmts, fk_rec *rec)
{
    const fl_format *f = type == FK_BF16 ? &fmts.b : &fmts.h;
    uint64_t stride = (uint64_t)blockDim.x * gridDim.x;
    for (uint64_t i = begin + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
         i < end; i += stride) {
        uint64_t a = 0, b = 0, c = 0, got, want;
        const fl_format *rf = f;
        if (op <= FK_GE) {                       /* exhaustive pairs */
            a = i >> 16;
            b = i & 0xFFFF;
        } else if (op <= FK_TO_F32) {            /* exhaustive unary */
            a = i;
        } else if (op <= FK_FMA_SAT) {           /* random triples */
            a = fk_pattern(fk_rand(seed, i, 0), 16, f->ebits);
            b = fk_pattern(fk_rand(seed, i, 1), 16, f->ebits);
            c = fk_pattern(fk_rand(seed, i, 2), 16, f->ebits);
        } else if (op <= FK_FROM_F32_RU) {       /* exhaustive binary32 */
            a = i;
        } else if (op == FK_FROM_F64) {
            a = fk_pattern(fk_rand(seed, i, 0), 64, 11);
        } else {                                 /* random binary32 */
            a = fk_pattern(fk_rand(seed, i, 0), 32, 8);
            b = fk_pattern(fk_rand(seed, i, 1), 32, 8);
            c = fk_pattern(fk_rand(seed, i, 2), 32, 8);
        }

        if (op <= FK_FMA_SAT) {
            got = type == FK_BF16 ? gpu_bf16(op, (uint16_t)a, (uint16_t)b, (uint16_t)c)
                                  : gpu_half(op, (uint16_t)a, (uint16_t)b, (uint16_t)c);
            want = ref_16(op, f, &fmts.f, (uint16_t)a, (uint16_t)b, (uint16_t)c);
            if (op == FK_TO_F32)
                rf = &fmts.f;
        } else if (op <= FK_FROM_F32_RU) {
            fl_ctx ctx;
            unsigned fl = 0;
            memset(&ctx, 0, sizeof ctx);
            ctx.nan = FL_NANP_CUDA;
            ctx.rm = op == FK_FROM_F32_RN ? FL_RNE : op == FK_FROM_F32_RZ ? FL_RTZ
                   : op == FK_FROM_F32_RD ? FL_RDN : FL_RUP;
            got = gpu_from_f32(type, op, (uint32_t)a);
            want = fl_convert(f, &fmts.f, a, &ctx, &fl);
        } else if (op == FK_FROM_F64) {
            fl_ctx ctx;
            unsigned fl = 0;
            memset(&ctx, 0, sizeof ctx);
            ctx.nan = FL_NANP_CUDA;
            got = __half_as_ushort(__double2half(__longlong_as_double((long long)a)));
            want = fl_convert(&fmts.h, &fmts.d, a, &ctx, &fl);
            rf = &fmts.h;
        } else {
            fl_ctx ctx;
            unsigned fl = 0;
            memset(&ctx, 0, sizeof ctx);
            ctx.nan = FL_NANP_CUDA;
            ctx.ftz = ctx.daz = op >= FK_F32_ADD_FTZ;
            rf = &fmts.f;
            got = gpu_f32(op, (uint32_t)a, (uint32_t)b, (uint32_t)c);
            if (op == FK_F32_ADD || op == FK_F32_ADD_FTZ)
                want = fl_add(rf, a, b, &ctx, &fl);
            else if (op == FK_F32_MUL || op == FK_F32_MUL_FTZ)
                want = fl_mul(rf, a, b, &ctx, &fl);
            else
                want = fl_fma(rf, a, b, c, &ctx, &fl);
        }
        if (!op_is_bool(op) && fl_is_nan(rf, got))
            rec->nan_bits = got;   /* racy by design: any NaN seen will do */
        if (got != want)
            record(rec, rf, a, b, c, got, want, op_is_bool(op));
    }
}

/* --- host side ------------------------------------------------------------ */

static const char *const half_names[FK_OP_COUNT] = {
    "__hadd", "__hsub", "__hmul", "__hdiv", "__hadd_rn", "__hsub_rn",
    "__hmul_rn", "__hadd_sat", "__hsub_sat", "__hmul_sat", "__heq", "__hne",
    "__hlt", "__hle", "__hgt", "__hge", "hsqrt", "hrcp", "__half2float",
    "__hfma", "__hfma_sat", "__float2half_rn", "__float2half_rz",
    "__float2half_rd", "__float2half_ru", "__double2half",
    "add.rn.f32", "mul.rn.f32", "fma.rn.f32", "add.rn.ftz.f32",
    "mul.rn.ftz.f32", "fma.rn.ftz.f32"};

static const char *const bf16_names[FK_OP_COUNT] = {
    "__hadd(bf16)", "__hsub(bf16)", "__hmul(bf16)", "__hdiv(bf16)",
    "__hadd_rn(bf16)", "__hsub_rn(bf16)", "__hmul_rn(bf16)",
    "__hadd_sat(bf16)", "__hsub_sat(bf16)", "__hmul_sat(bf16)",
    "__heq(bf16)", "__hne(bf16)", "__hlt(bf16)", "__hle(bf16)",
    "__hgt(bf16)", "__hge(bf16)", "hsqrt(bf16)", "hrcp(bf16)",
    "__bfloat162float", "__hfma(bf16)", "__hfma_sat(bf16)",
    "__float2bfloat16_rn", "__float2bfloat16_rz", "__float2bfloat16_rd",
    "__float2bfloat16_ru", "-", "-", "-", "-", "-", "-", "-"};

extern "C" const char *fk_op_name(int type, int op)
{
    if (op < 0 || op >= FK_OP_COUNT)
        return "?";
    return type == FK_BF16 ? bf16_names[op] : half_names[op];
}

extern "C" int fk_op_supported(int type, int op)
{
    if (type == FK_BF16)
        return op < FK_FROM_F64;
    return op >= 0 && op < FK_OP_COUNT;
}

extern "C" int fk_check_elementwise(int type, int op, uint64_t n,
                                    uint64_t seed, fk_result *r, char *why,
                                    size_t whylen)
{
    fk_formats fm;
    fk_rec *d_rec = NULL, h_rec;
    uint64_t total;
    cudaEvent_t t0, t1;
    float ms = 0;

    memset(r, 0, sizeof *r);
    if (!fk_op_supported(type, op)) {
        snprintf(why, whylen, "%s is not defined for this type",
                 fk_op_name(type, op));
        return -1;
    }
    /* host presets, copied by a host translation unit, passed by value */
    fk_host_formats(&fm.h, &fm.b, &fm.f, &fm.d);
    if (op <= FK_GE)
        total = 1ull << 32;
    else if (op <= FK_TO_F32)
        total = 1ull << 16;
    else if (op >= FK_FROM_F32_RN && op <= FK_FROM_F32_RU)
        total = 1ull << 32;
    else
        total = n;

    FK_TRY(cudaMalloc(&d_rec, sizeof *d_rec), why, whylen);
    FK_TRY(cudaMemset(d_rec, 0, sizeof *d_rec), why, whylen);
    FK_TRY(cudaEventCreate(&t0), why, whylen);
    FK_TRY(cudaEventCreate(&t1), why, whylen);
    FK_TRY(cudaEventRecord(t0), why, whylen);
    fk_elementwise_kernel<<<4096, 256>>>(type, op, 0, total, seed, fm, d_rec);
    FK_TRY(cudaGetLastError(), why, whylen);
    FK_TRY(cudaEventRecord(t1), why, whylen);
    FK_TRY(cudaEventSynchronize(t1), why, whylen);
    FK_TRY(cudaEventElapsedTime(&ms, t0, t1), why, whylen);
    FK_TRY(cudaMemcpy(&h_rec, d_rec, sizeof h_rec, cudaMemcpyDeviceToHost),
           why, whylen);
    cudaFree(d_rec);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);

    r->cases = total;
    r->mismatches = h_rec.count;
    r->max_ulp = h_rec.max_ulp;
    r->nan_bits = h_rec.nan_bits;
    r->nrec = h_rec.count < FK_MAX_RECORD ? (int)h_rec.count : FK_MAX_RECORD;
    for (int k = 0; k < r->nrec; k++) {
        for (int j = 0; j < 3; j++)
            r->in[k][j] = h_rec.in[k][j];
        r->got[k] = h_rec.got[k];
        r->want[k] = h_rec.want[k];
    }
    r->seconds = ms / 1000.0;
    (void)op_arity;
    return 0;
}
