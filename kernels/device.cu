/* device.cu — device discovery and a measured copy bandwidth. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "fplab/fplab.h"
#include "gpu.h"
#include "gpu_util.h"

static int measure_copy(double *gbs, char *why, size_t whylen)
{
    const size_t bytes = (size_t)1 << 30;
    void *a = NULL, *b = NULL;
    cudaEvent_t t0, t1;
    float ms = 0;
    FK_TRY(cudaMalloc(&a, bytes), why, whylen);
    FK_TRY(cudaMalloc(&b, bytes), why, whylen);
    FK_TRY(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), why, whylen);
    FK_TRY(cudaEventCreate(&t0), why, whylen);
    FK_TRY(cudaEventCreate(&t1), why, whylen);
    FK_TRY(cudaEventRecord(t0), why, whylen);
    for (int i = 0; i < 10; i++)
        FK_TRY(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), why, whylen);
    FK_TRY(cudaEventRecord(t1), why, whylen);
    FK_TRY(cudaEventSynchronize(t1), why, whylen);
    FK_TRY(cudaEventElapsedTime(&ms, t0, t1), why, whylen);
    /* a copy reads and writes every byte */
    *gbs = 2.0 * 10 * (double)bytes / (ms / 1000.0) / 1e9;
    cudaFree(a);
    cudaFree(b);
    return 0;
}

extern "C" int fk_query(fk_device *d, char *why, size_t whylen)
{
    int n = 0;
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceCount(&n);
    memset(d, 0, sizeof *d);
    if (e != cudaSuccess || n == 0) {
        snprintf(why, whylen, "no CUDA device (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 0;
    }
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        snprintf(why, whylen, "no CUDA device (properties unavailable)");
        return 0;
    }
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->mem_gb = (double)p.totalGlobalMem / (1024.0 * 1024 * 1024);
    cudaDriverGetVersion(&d->driver_version);
    cudaRuntimeGetVersion(&d->runtime_version);
    if (measure_copy(&d->copy_gbs, why, whylen) != 0)
        d->copy_gbs = 0;
    return n;
}

extern "C" void fk_host_formats(void *h, void *b, void *f, void *d)
{
    memcpy(h, &fl_binary16, sizeof(fl_format));
    memcpy(b, &fl_bfloat16, sizeof(fl_format));
    memcpy(f, &fl_binary32, sizeof(fl_format));
    memcpy(d, &fl_binary64, sizeof(fl_format));
}
