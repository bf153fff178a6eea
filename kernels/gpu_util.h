/* gpu_util.h — error checking shared by the kernel sources. */
#ifndef FPLAB_KERNELS_GPU_UTIL_H
#define FPLAB_KERNELS_GPU_UTIL_H

#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>

/* The file's own name, without its directory. */
static inline const char *fk_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Every CUDA call is checked; the error names file:line and the error. */
#define FK_TRY(call, why, whylen)                                           \
    do {                                                                    \
        cudaError_t fk_e_ = (call);                                         \
        if (fk_e_ != cudaSuccess) {                                         \
            snprintf((why), (whylen), "%s:%d: %s: %s", fk_base(__FILE__),   \
                     __LINE__, cudaGetErrorName(fk_e_),                     \
                     cudaGetErrorString(fk_e_));                            \
            return -1;                                                      \
        }                                                                   \
    } while (0)

/* Copies of the host presets binary16, bfloat16, binary32, binary64 into
 * four fl_format-sized buffers (defined in device.cu). */
extern "C" void fk_host_formats(void *h, void *b, void *f, void *d);

#endif
