/*
 * oracle_cuda_host.cpp — NVIDIA's own host-side half and bfloat16 code as an
 * oracle.  Compiled as ordinary C++ against the toolkit's cuda_fp16.h and
 * cuda_bf16.h (host paths: no nvcc, no GPU).  The arithmetic host paths
 * widen to float, compute in float (round to nearest even, SSE on x86-64,
 * no excess precision) and round back with __float2half / __float2bfloat16;
 * every NaN becomes 0x7FFF (the core's CUDA NaN preset).
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <cstring>

#include "oracle_cuda_host.h"

namespace {

inline __half h_of(uint64_t v)
{
    __half_raw r;
    r.x = static_cast<unsigned short>(v);
    return __half(r);
}
inline uint64_t bits_of(__half h)
{
    __half_raw r = static_cast<__half_raw>(h);
    return r.x;
}
inline __nv_bfloat16 b_of(uint64_t v)
{
    __nv_bfloat16_raw r;
    r.x = static_cast<unsigned short>(v);
    return __nv_bfloat16(r);
}
inline uint64_t bits_of(__nv_bfloat16 h)
{
    __nv_bfloat16_raw r = static_cast<__nv_bfloat16_raw>(h);
    return r.x;
}
inline float f_of(uint64_t v)
{
    uint32_t u = static_cast<uint32_t>(v);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline double d_of(uint64_t v)
{
    double d;
    std::memcpy(&d, &v, 8);
    return d;
}
inline uint64_t bits_of(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

__half half_from_float(float x, int rnd)
{
    switch (rnd) {
    case 0: return __float2half_rn(x);
    case 1: return __float2half_rz(x);
    case 2: return __float2half_rd(x);
    default: return __float2half_ru(x);
    }
}
__nv_bfloat16 bf16_from_float(float x, int rnd)
{
    switch (rnd) {
    case 0: return __float2bfloat16_rn(x);
    case 1: return __float2bfloat16_rz(x);
    case 2: return __float2bfloat16_rd(x);
    default: return __float2bfloat16_ru(x);
    }
}

uint64_t half_op(int op, int rnd, uint64_t a, uint64_t b)
{
    switch (op) {
    case FL_CUDA_ADD: return bits_of(__hadd_rn(h_of(a), h_of(b)));
    case FL_CUDA_SUB: return bits_of(__hsub_rn(h_of(a), h_of(b)));
    case FL_CUDA_MUL: return bits_of(__hmul_rn(h_of(a), h_of(b)));
    case FL_CUDA_DIV: return bits_of(__hdiv(h_of(a), h_of(b)));
    case FL_CUDA_FROM_FLOAT: return bits_of(half_from_float(f_of(a), rnd));
    case FL_CUDA_FROM_DOUBLE: return bits_of(__double2half(d_of(a)));
    default: return bits_of(__half2float(h_of(a)));
    }
}
uint64_t bf16_op(int op, int rnd, uint64_t a, uint64_t b)
{
    switch (op) {
    case FL_CUDA_ADD: return bits_of(__hadd_rn(b_of(a), b_of(b)));
    case FL_CUDA_SUB: return bits_of(__hsub_rn(b_of(a), b_of(b)));
    case FL_CUDA_MUL: return bits_of(__hmul_rn(b_of(a), b_of(b)));
    case FL_CUDA_DIV: return bits_of(__hdiv(b_of(a), b_of(b)));
    case FL_CUDA_FROM_FLOAT: return bits_of(bf16_from_float(f_of(a), rnd));
    case FL_CUDA_FROM_DOUBLE: return bits_of(__double2bfloat16(d_of(a)));
    default: return bits_of(__bfloat162float(b_of(a)));
    }
}

} // namespace

extern "C" int fl_cuda_host_batch(int type, int op, int rnd, size_t n,
                                  const uint64_t *a, const uint64_t *b,
                                  uint64_t *r)
{
    if (type != FL_CUDA_HALF && type != FL_CUDA_BF16)
        return -1;
    if (op < FL_CUDA_ADD || op > FL_CUDA_TO_FLOAT || rnd < 0 || rnd > 3)
        return -1;
    if (op != FL_CUDA_FROM_FLOAT && rnd != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = a[i], y = b ? b[i] : 0;
        r[i] = type == FL_CUDA_HALF ? half_op(op, rnd, x, y)
                                    : bf16_op(op, rnd, x, y);
    }
    return 0;
}

extern "C" int fl_cuda_host_version(void)
{
    return CUDART_VERSION;
}
