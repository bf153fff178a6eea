/*
 * oracle_cuda_host.h — C view of the C++ shim over NVIDIA's cuda_fp16.h /
 * cuda_bf16.h host-side code (oracle_cuda_host.cpp).  Built only when the
 * CUDA toolkit headers are present (FPLAB_HAVE_CUDA_HOST); no GPU needed.
 */
#ifndef FPLAB_ORACLE_CUDA_HOST_H
#define FPLAB_ORACLE_CUDA_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result types. */
enum { FL_CUDA_HALF = 0, FL_CUDA_BF16 = 1, FL_CUDA_FLOAT = 2 };
/* Operations: binary ops on half/bf16 (host paths of __hadd, __hsub,
 * __hmul, __hdiv), conversions from float (__float2half_rn/_rz/_rd/_ru,
 * __float2bfloat16_rn/_rz/_rd/_ru), from double (__double2half,
 * __double2bfloat16, nearest only) and to float (__half2float,
 * __bfloat162float). */
enum { FL_CUDA_ADD = 0, FL_CUDA_SUB, FL_CUDA_MUL, FL_CUDA_DIV,
       FL_CUDA_FROM_FLOAT, FL_CUDA_FROM_DOUBLE, FL_CUDA_TO_FLOAT };
/* Rounding for FL_CUDA_FROM_FLOAT: 0 rn, 1 rz, 2 rd, 3 ru. */

/* r[i] = op(a[i], b[i]); returns 0, or -1 for an unsupported combination
 * (then r is untouched). */
int fl_cuda_host_batch(int type, int op, int rnd, size_t n,
                       const uint64_t *a, const uint64_t *b, uint64_t *r);

/* CUDA toolkit version the shim was compiled against (CUDART_VERSION). */
int fl_cuda_host_version(void);

#ifdef __cplusplus
}
#endif
#endif
