/*
 * gpu.h — host interface of fplab's CUDA kernels (C linkage).
 *
 * Every check runs an NVIDIA intrinsic on the device and compares it, bit
 * for bit, with the fplab core: either the core compiled as device code and
 * run next to the intrinsic (elementwise checks), or the core on the host
 * (reductions, tensor-core tiles, cuBLAS).  Never GPU against GPU.
 */
#ifndef FPLAB_KERNELS_GPU_H
#define FPLAB_KERNELS_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fk_device {
    char name[256];
    int cc_major, cc_minor;
    int driver_version, runtime_version;
    double mem_gb;
    double copy_gbs;    /* measured device-to-device copy bandwidth */
} fk_device;

/* Number of CUDA devices (0 when none or no driver); fills *d for device 0
 * when there is one; *why gets the reason when there is none. */
int fk_query(fk_device *d, char *why, size_t whylen);

enum fk_type { FK_HALF = 0, FK_BF16 = 1, FK_F32 = 2 };

enum fk_op {
    /* binary, all 2^32 pairs of 16-bit patterns */
    FK_ADD, FK_SUB, FK_MUL, FK_DIV, FK_ADD_RN, FK_SUB_RN, FK_MUL_RN,
    FK_ADD_SAT, FK_SUB_SAT, FK_MUL_SAT,
    FK_EQ, FK_NE, FK_LT, FK_LE, FK_GT, FK_GE,
    /* unary, all 2^16 patterns */
    FK_SQRT, FK_RCP, FK_TO_F32,
    /* ternary, seeded random triples */
    FK_FMA, FK_FMA_SAT,
    /* conversions from binary32, all 2^32 patterns */
    FK_FROM_F32_RN, FK_FROM_F32_RZ, FK_FROM_F32_RD, FK_FROM_F32_RU,
    /* conversion from binary64, seeded random */
    FK_FROM_F64,
    /* binary32 arithmetic, seeded random, with and without .ftz */
    FK_F32_ADD, FK_F32_MUL, FK_F32_FMA, FK_F32_ADD_FTZ, FK_F32_MUL_FTZ,
    FK_F32_FMA_FTZ,
    FK_OP_COUNT
};

#define FK_MAX_RECORD 8

typedef struct fk_result {
    uint64_t cases;
    uint64_t mismatches;
    uint64_t max_ulp;          /* largest distance in ulps among mismatches */
    uint64_t nan_bits;         /* a NaN the device produced (0 if none seen) */
    int nrec;
    uint64_t in[FK_MAX_RECORD][3], got[FK_MAX_RECORD], want[FK_MAX_RECORD];
    double seconds;
} fk_result;

const char *fk_op_name(int type, int op);   /* e.g. "__hadd" */
int fk_op_supported(int type, int op);      /* 0: not for this type */

/* Run one elementwise check.  Exhaustive ops ignore n and seed; random ops
 * run n cases from seed.  Returns 0, or -1 with *why set on a CUDA error. */
int fk_check_elementwise(int type, int op, uint64_t n, uint64_t seed,
                         fk_result *r, char *why, size_t whylen);

/* Sums of n half values, `count` independent sums, accumulating in half
 * (acc16 = 1) or in float; compared with the core's sequential sums. */
int fk_check_reduce(int acc16, int n, int count, uint64_t seed,
                    fk_result *r, char *why, size_t whylen);

/* Tensor-core tiles (WMMA m16n16k16): type FK_HALF or FK_BF16 inputs,
 * acc16 = 1 for a half accumulator.  Compared with the tensor-core model
 * named by model (see fplab/tensorcore.h); tiles random from seed plus the
 * adversarial set when adversarial != 0. */
int fk_check_mma(int type, int acc16, const char *model, uint64_t tiles,
                 uint64_t seed, int adversarial, fk_result *r, char *why,
                 size_t whylen);

/* cuBLAS cublasGemmEx, fp16 inputs, fp32 compute and output, m = n = k =
 * dim, against the tensor-core model (blocks chained along k). */
int fk_check_cublas(const char *model, int dim, uint64_t seed, fk_result *r,
                    char *why, size_t whylen);

/* One cublasGemmEx for a user's own check: D = A*B with A (m x k) and B
 * (k x n) binary16 bit patterns in row-major order, fp32 compute
 * (CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), D (m x n) binary32 row-major.
 * `fplab gpu-check --gemm-dump` writes the three as .npy files, for `fplab
 * ref` and `fplab compare` to judge.  0, or -1 with *why set. */
int fk_cublas_gemm_f16(int m, int n, int k, const uint16_t *a,
                       const uint16_t *b, uint32_t *d, double *seconds,
                       char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
