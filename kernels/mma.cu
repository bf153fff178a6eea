/*
 * mma.cu — tensor cores (WMMA m16n16k16) and cuBLAS, compared with the
 * core's tensor-core model on the host, and half-precision reductions
 * compared with the core's sequential sums.
 */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FPLAB_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#include "fplab/fplab.h"
#include "fplab/tensorcore.h"
#include "gpu.h"
#include "gpu_util.h"

using namespace nvcuda;

/* One warp per 16x16x16 tile: D = A*B + C, A row-major, B column-major. */
template <typename T, typename Acc>
__global__ void fk_mma_kernel(const T *A, const T *B, const Acc *C, Acc *D,
                              uint64_t tiles)
{
    uint64_t w = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
    if (w >= tiles)
        return;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> c;
    wmma::load_matrix_sync(a, A + w * 256, 16);
    wmma::load_matrix_sync(b, B + w * 256, 16);
    wmma::load_matrix_sync(c, C + w * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D + w * 256, c, 16, wmma::mem_row_major);
#endif
}

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    return fl_sr_bits(*s, 0x7C0FFEEull);
}

/* A random input value of format f with exponent in [-6, 6] (products and
 * sums stay far from overflow), random sign and fraction. */
static uint64_t rand_in(const fl_format *f, uint64_t *s)
{
    uint64_t r = rng_next(s);
    int e = (int)(r % 13) - 6;
    uint64_t frac = (r >> 8) & f->frac_mask;
    uint64_t sign = (r >> 63) ? f->sign_mask : 0;
    if ((r & 0xF0) == 0)
        return sign;                          /* some zeros */
    return sign | ((uint64_t)(e + f->bias) << (f->prec - 1)) | frac;
}

static uint64_t make(const fl_format *f, int sign, int e, uint64_t frac)
{
    return (sign ? f->sign_mask : 0) |
           ((uint64_t)(e + f->bias) << (f->prec - 1)) | frac;
}

static uint64_t val(const fl_format *f, double x)
{
    fl_ctx c = FL_CTX_INIT;
    unsigned fl = 0;
    return fl_from_double(f, x, &c, &fl);
}

/* Adversarial tiles.  Every B column is 2^-12 (an exact power of two), so
 * row i of A alone fixes the products of output row i:
 *  0: c = 1 plus sixteen products 2^-24 (width of the alignment window:
 *     lost entirely without extra bits, kept with 2);
 *  1: c = 1 plus one product 0.75 ulp(1) (toward-zero vs nearest output);
 *  2: products +-2^-8 cancelling, beside two products 1.25*2^-32 (bits
 *     truncated relative to the largest exponent although the exact
 *     result is tiny: no guard bits);
 *  3: c = 1 minus sixteen small products (truncation toward zero in
 *     sign-magnitude, not toward -inf);
 *  4: subnormal inputs (products far below binary16's range);
 *  5..15: one of the above with a random sign flip per product. */
static void adversarial(const fl_format *in, const fl_format *acc,
                        uint64_t *A, uint64_t *B, uint64_t *C, uint64_t *s)
{
    const double tiny = in == &fl_bfloat16 ? 0x1p-130 : 0x1p-24;
    for (int i = 0; i < 16; i++) {
        int pat = i < 5 ? i : (int)(rng_next(s) % 5);
        for (int k = 0; k < 16; k++) {
            double a;
            switch (pat) {
            case 0: a = 0x1p-12; break;
            case 1: a = k == 0 ? 0x1.8p-12 : 0.0; break;
            case 2: a = k < 14 ? ((k & 1) ? -0x1p4 : 0x1p4) : 0x1.4p-20; break;
            case 3: a = -(1.0 + k / 16.0) * 0x1p-13; break;
            default: a = tiny * (k + 1); break;
            }
            if (i >= 5 && (rng_next(s) & 1))
                a = -a;
            A[i * 16 + k] = val(in, a);
        }
        for (int j = 0; j < 16; j++)
            C[i * 16 + j] = val(acc, pat == 0 || pat == 1 || pat == 3 ? 1.0 : 0.0);
    }
    for (int j = 0; j < 16; j++)
        for (int k = 0; k < 16; k++)
            B[j * 16 + k] = val(in, 0x1p-12);
}

/* Model of one output: c + sum_k a[k]*b[k] chained through the model's
 * blocks; fp16 accumulation uses the fp16-output block. */
static uint64_t model_out(const fl_tc_model *m, int acc16, const uint64_t *a,
                          const uint64_t *b, uint64_t c)
{
    unsigned fl = 0;
    if (!acc16)
        return fl_tc_dot(m, a, 1, b, 1, 16, c, &fl);
    for (int k = 0; k < 16; k += m->block) {
        int n = 16 - k < m->block ? 16 - k : m->block;
        c = fl_tc_block_fma_f16(m, a + k, b + k, n, c, &fl);
    }
    return c;
}

extern "C" int fk_check_mma(int type, int acc16, const char *model,
                            uint64_t tiles, uint64_t seed, int adv,
                            fk_result *r, char *why, size_t whylen)
{
    const fl_tc_model *m = fl_tc_model_by_name(model);
    const fl_format *in = type == FK_BF16 ? &fl_bfloat16 : &fl_binary16;
    const fl_format *acc = acc16 ? &fl_binary16 : &fl_binary32;
    size_t accsz = acc16 ? 2 : 4;
    uint64_t ntiles = tiles + (adv ? 1 : 0), s = seed;
    uint16_t *hA, *hB;
    unsigned char *hC, *hD;
    void *dA, *dB, *dC, *dD;
    uint64_t *A64 = (uint64_t *)malloc(256 * 8), *B64 = (uint64_t *)malloc(256 * 8),
             *C64 = (uint64_t *)malloc(256 * 8);
    cudaEvent_t t0, t1;
    float ms = 0;

    memset(r, 0, sizeof *r);
    if (!m || m->in != in) {
        snprintf(why, whylen, "model '%s' does not take this input type", model);
        free(A64); free(B64); free(C64);
        return -1;
    }
    if (type == FK_BF16 && acc16) {
        snprintf(why, whylen, "bf16 inputs have no half accumulator in WMMA");
        free(A64); free(B64); free(C64);
        return -1;
    }
    hA = (uint16_t *)malloc(ntiles * 512);
    hB = (uint16_t *)malloc(ntiles * 512);
    hC = (unsigned char *)malloc(ntiles * 256 * accsz);
    hD = (unsigned char *)malloc(ntiles * 256 * accsz);
    for (uint64_t t = 0; t < ntiles; t++) {
        if (adv && t == tiles) {
            adversarial(in, acc, A64, B64, C64, &s);
        } else {
            for (int i = 0; i < 256; i++) {
                A64[i] = rand_in(in, &s);
                B64[i] = rand_in(in, &s);
                C64[i] = rand_in(acc, &s);
            }
        }
        for (int i = 0; i < 256; i++) {
            hA[t * 256 + i] = (uint16_t)A64[i];
            hB[t * 256 + i] = (uint16_t)B64[i];
            if (acc16)
                ((uint16_t *)hC)[t * 256 + i] = (uint16_t)C64[i];
            else
                ((uint32_t *)hC)[t * 256 + i] = (uint32_t)C64[i];
        }
    }
    FK_TRY(cudaMalloc(&dA, ntiles * 512), why, whylen);
    FK_TRY(cudaMalloc(&dB, ntiles * 512), why, whylen);
    FK_TRY(cudaMalloc(&dC, ntiles * 256 * accsz), why, whylen);
    FK_TRY(cudaMalloc(&dD, ntiles * 256 * accsz), why, whylen);
    FK_TRY(cudaMemcpy(dA, hA, ntiles * 512, cudaMemcpyHostToDevice), why, whylen);
    FK_TRY(cudaMemcpy(dB, hB, ntiles * 512, cudaMemcpyHostToDevice), why, whylen);
    FK_TRY(cudaMemcpy(dC, hC, ntiles * 256 * accsz, cudaMemcpyHostToDevice), why, whylen);
    FK_TRY(cudaEventCreate(&t0), why, whylen);
    FK_TRY(cudaEventCreate(&t1), why, whylen);
    FK_TRY(cudaEventRecord(t0), why, whylen);
    {
        unsigned blocks = (unsigned)((ntiles * 32 + 255) / 256);
        if (type == FK_BF16)
            fk_mma_kernel<__nv_bfloat16, float><<<blocks, 256>>>(
                (const __nv_bfloat16 *)dA, (const __nv_bfloat16 *)dB,
                (const float *)dC, (float *)dD, ntiles);
        else if (acc16)
            fk_mma_kernel<__half, __half><<<blocks, 256>>>(
                (const __half *)dA, (const __half *)dB, (const __half *)dC,
                (__half *)dD, ntiles);
        else
            fk_mma_kernel<__half, float><<<blocks, 256>>>(
                (const __half *)dA, (const __half *)dB, (const float *)dC,
                (float *)dD, ntiles);
    }
    FK_TRY(cudaGetLastError(), why, whylen);
    FK_TRY(cudaEventRecord(t1), why, whylen);
    FK_TRY(cudaEventSynchronize(t1), why, whylen);
    FK_TRY(cudaEventElapsedTime(&ms, t0, t1), why, whylen);
    FK_TRY(cudaMemcpy(hD, dD, ntiles * 256 * accsz, cudaMemcpyDeviceToHost), why, whylen);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);

    for (uint64_t t = 0; t < ntiles; t++) {
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                uint64_t a[16], b[16], c, got, want;
                for (int k = 0; k < 16; k++) {
                    a[k] = hA[t * 256 + i * 16 + k];
                    b[k] = hB[t * 256 + j * 16 + k];
                }
                c = acc16 ? ((uint16_t *)hC)[t * 256 + i * 16 + j]
                          : ((uint32_t *)hC)[t * 256 + i * 16 + j];
                got = acc16 ? ((uint16_t *)hD)[t * 256 + i * 16 + j]
                            : ((uint32_t *)hD)[t * 256 + i * 16 + j];
                want = model_out(m, acc16, a, b, c);
                r->cases++;
                if (got != want) {
                    if (r->nrec < FK_MAX_RECORD) {
                        r->in[r->nrec][0] = t;
                        r->in[r->nrec][1] = (uint64_t)(i * 16 + j);
                        r->in[r->nrec][2] = c;
                        r->got[r->nrec] = got;
                        r->want[r->nrec] = want;
                        r->nrec++;
                    }
                    r->mismatches++;
                }
            }
    }
    r->seconds = ms / 1000.0;
    free(hA); free(hB); free(hC); free(hD);
    free(A64); free(B64); free(C64);
    return 0;
}

/* --- reductions ----------------------------------------------------------- */

__global__ void fk_reduce_kernel(const __half *x, int n, int count, int acc16,
                                 uint32_t *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count)
        return;
    if (acc16) {
        __half acc = __ushort_as_half(0);
        for (int i = 0; i < n; i++)
            acc = __hadd_rn(acc, x[(size_t)t * n + i]);
        out[t] = __half_as_ushort(acc);
    } else {
        float acc = 0.0f;
        for (int i = 0; i < n; i++)
            acc = __fadd_rn(acc, __half2float(x[(size_t)t * n + i]));
        out[t] = __float_as_uint(acc);
    }
}

extern "C" int fk_check_reduce(int acc16, int n, int count, uint64_t seed,
                               fk_result *r, char *why, size_t whylen)
{
    uint16_t *hx = (uint16_t *)malloc((size_t)n * count * 2);
    uint32_t *hout = (uint32_t *)malloc((size_t)count * 4);
    __half *dx;
    uint32_t *dout;
    fl_ctx ctx = FL_CTX_INIT;
    uint64_t s = seed;
    cudaEvent_t t0, t1;
    float ms = 0;

    memset(r, 0, sizeof *r);
    ctx.nan = FL_NANP_CUDA;
    /* values in [0, 1): the sum grows until half accumulation stagnates */
    for (size_t i = 0; i < (size_t)n * count; i++)
        hx[i] = (uint16_t)make(&fl_binary16, 0, -1 - (int)(rng_next(&s) % 4),
                               rng_next(&s) & fl_binary16.frac_mask);
    FK_TRY(cudaMalloc(&dx, (size_t)n * count * 2), why, whylen);
    FK_TRY(cudaMalloc(&dout, (size_t)count * 4), why, whylen);
    FK_TRY(cudaMemcpy(dx, hx, (size_t)n * count * 2, cudaMemcpyHostToDevice), why, whylen);
    FK_TRY(cudaEventCreate(&t0), why, whylen);
    FK_TRY(cudaEventCreate(&t1), why, whylen);
    FK_TRY(cudaEventRecord(t0), why, whylen);
    fk_reduce_kernel<<<(count + 127) / 128, 128>>>(dx, n, count, acc16, dout);
    FK_TRY(cudaGetLastError(), why, whylen);
    FK_TRY(cudaEventRecord(t1), why, whylen);
    FK_TRY(cudaEventSynchronize(t1), why, whylen);
    FK_TRY(cudaEventElapsedTime(&ms, t0, t1), why, whylen);
    FK_TRY(cudaMemcpy(hout, dout, (size_t)count * 4, cudaMemcpyDeviceToHost), why, whylen);
    cudaFree(dx);
    cudaFree(dout);
    for (int t = 0; t < count; t++) {
        unsigned fl = 0;
        uint64_t acc = 0;
        for (int i = 0; i < n; i++) {
            uint64_t v = hx[(size_t)t * n + i];
            if (acc16)
                acc = fl_add(&fl_binary16, acc, v, &ctx, &fl);
            else
                acc = fl_add(&fl_binary32, acc,
                             fl_convert(&fl_binary32, &fl_binary16, v, &ctx, &fl),
                             &ctx, &fl);
        }
        r->cases++;
        if (acc != hout[t]) {
            if (r->nrec < FK_MAX_RECORD) {
                r->in[r->nrec][0] = (uint64_t)t;
                r->got[r->nrec] = hout[t];
                r->want[r->nrec] = acc;
                r->nrec++;
            }
            r->mismatches++;
        }
    }
    r->seconds = ms / 1000.0;
    free(hx);
    free(hout);
    return 0;
}

/* --- cuBLAS ------------------------------------------------------------- */

extern "C" int fk_check_cublas(const char *model, int dim, uint64_t seed,
                               fk_result *r, char *why, size_t whylen)
{
#ifdef FPLAB_HAVE_CUBLAS
    const fl_tc_model *m = fl_tc_model_by_name(model);
    size_t nn = (size_t)dim * dim;
    uint16_t *hA = (uint16_t *)malloc(nn * 2), *hB = (uint16_t *)malloc(nn * 2);
    uint32_t *hD = (uint32_t *)malloc(nn * 4);
    uint64_t *a = (uint64_t *)malloc((size_t)dim * 8), *b = (uint64_t *)malloc((size_t)dim * 8);
    void *dA, *dB, *dD;
    float alpha = 1.0f, beta = 0.0f;
    uint64_t s = seed;
    cublasHandle_t h;
    cudaEvent_t t0, t1;
    float ms = 0;

    memset(r, 0, sizeof *r);
    if (!m || m->in != &fl_binary16) {
        snprintf(why, whylen, "model '%s' does not take fp16 inputs", model);
        return -1;
    }
    for (size_t i = 0; i < nn; i++) {
        hA[i] = (uint16_t)rand_in(&fl_binary16, &s);
        hB[i] = (uint16_t)rand_in(&fl_binary16, &s);
    }
    FK_TRY(cudaMalloc(&dA, nn * 2), why, whylen);
    FK_TRY(cudaMalloc(&dB, nn * 2), why, whylen);
    FK_TRY(cudaMalloc(&dD, nn * 4), why, whylen);
    FK_TRY(cudaMemcpy(dA, hA, nn * 2, cudaMemcpyHostToDevice), why, whylen);
    FK_TRY(cudaMemcpy(dB, hB, nn * 2, cudaMemcpyHostToDevice), why, whylen);
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, whylen, "cublasCreate failed");
        return -1;
    }
    FK_TRY(cudaEventCreate(&t0), why, whylen);
    FK_TRY(cudaEventCreate(&t1), why, whylen);
    FK_TRY(cudaEventRecord(t0), why, whylen);
    /* column-major: D[i + j*dim] = sum_k A[i + k*dim] * B[k + j*dim] */
    if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &alpha, dA,
                     CUDA_R_16F, dim, dB, CUDA_R_16F, dim, &beta, dD,
                     CUDA_R_32F, dim, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, whylen, "cublasGemmEx failed");
        cublasDestroy(h);
        return -1;
    }
    FK_TRY(cudaEventRecord(t1), why, whylen);
    FK_TRY(cudaEventSynchronize(t1), why, whylen);
    FK_TRY(cudaEventElapsedTime(&ms, t0, t1), why, whylen);
    FK_TRY(cudaMemcpy(hD, dD, nn * 4, cudaMemcpyDeviceToHost), why, whylen);
    cublasDestroy(h);
    cudaFree(dA); cudaFree(dB); cudaFree(dD);
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++) {
            unsigned fl = 0;
            uint64_t want;
            for (int k = 0; k < dim; k++) {
                a[k] = hA[i + (size_t)k * dim];
                b[k] = hB[k + (size_t)j * dim];
            }
            want = fl_tc_dot(m, a, 1, b, 1, (size_t)dim, 0, &fl);
            r->cases++;
            if (want != hD[i + (size_t)j * dim]) {
                if (r->nrec < FK_MAX_RECORD) {
                    r->in[r->nrec][0] = (uint64_t)i;
                    r->in[r->nrec][1] = (uint64_t)j;
                    r->got[r->nrec] = hD[i + (size_t)j * dim];
                    r->want[r->nrec] = want;
                    r->nrec++;
                }
                r->mismatches++;
            }
        }
    r->seconds = ms / 1000.0;
    free(hA); free(hB); free(hD); free(a); free(b);
    return 0;
#else
    (void)model; (void)dim; (void)seed;
    memset(r, 0, sizeof *r);
    snprintf(why, whylen, "built without cuBLAS");
    return -1;
#endif
}

extern "C" int fk_cublas_gemm_f16(int m, int n, int k, const uint16_t *a,
                                  const uint16_t *b, uint32_t *d,
                                  double *seconds, char *why, size_t whylen)
{
#ifdef FPLAB_HAVE_CUBLAS
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nd = (size_t)m * n;
    void *dA = NULL, *dB = NULL, *dD = NULL;
    float alpha = 1.0f, beta = 0.0f, ms = 0;
    cublasHandle_t h;
    cublasStatus_t st;
    cudaEvent_t t0, t1;

    FK_TRY(cudaMalloc(&dA, na * 2), why, whylen);
    FK_TRY(cudaMalloc(&dB, nb * 2), why, whylen);
    FK_TRY(cudaMalloc(&dD, nd * 4), why, whylen);
    FK_TRY(cudaMemcpy(dA, a, na * 2, cudaMemcpyHostToDevice), why, whylen);
    FK_TRY(cudaMemcpy(dB, b, nb * 2, cudaMemcpyHostToDevice), why, whylen);
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, whylen, "mma.cu: cublasCreate failed");
        return -1;
    }
    FK_TRY(cudaEventCreate(&t0), why, whylen);
    FK_TRY(cudaEventCreate(&t1), why, whylen);
    FK_TRY(cudaEventRecord(t0), why, whylen);
    /* cuBLAS is column-major: a row-major (m x n) D is a column-major
     * (n x m) D^T = B^T A^T, where the row-major B and A are already the
     * column-major B^T (n x k, ld n) and A^T (k x m, ld k). */
    st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, dB,
                      CUDA_R_16F, n, dA, CUDA_R_16F, k, &beta, dD, CUDA_R_32F,
                      n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, whylen, "mma.cu: cublasGemmEx failed (status %d)",
                 (int)st);
        cublasDestroy(h);
        return -1;
    }
    FK_TRY(cudaEventRecord(t1), why, whylen);
    FK_TRY(cudaEventSynchronize(t1), why, whylen);
    FK_TRY(cudaEventElapsedTime(&ms, t0, t1), why, whylen);
    FK_TRY(cudaMemcpy(d, dD, nd * 4, cudaMemcpyDeviceToHost), why, whylen);
    cublasDestroy(h);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dD);
    *seconds = ms / 1000.0;
    return 0;
#else
    (void)m; (void)n; (void)k; (void)a; (void)b; (void)d; (void)seconds;
    snprintf(why, whylen, "this build has no cuBLAS");
    return -1;
#endif
}
