/*
 * fuzz_npy.c — .npy images: the header parser (tensor_npy_info_parse) and
 * the whole read through fplab_tensor (its byte swapping and
 * Fortran-order transpose).
 *
 * Properties: no crash, no sanitizer report, no leak; a header accepted
 * describes exactly the image (shape multiplies out to n, n elements of
 * its dtype fill the image after the header, version 1.0, 2.0 or 3.0); on
 * failure the message names the file; then fz_tensor_check's properties.
 */
#include "fuzz_tensor_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tensor_npy_info h;
    char err[512] = "";
    if (tensor_npy_info_parse(&h, data, size, "fuzz.npy", err, sizeof err) != 0) {
        if (strncmp(err, "fuzz.npy", 8) != 0)
            FZ_FAIL("npy error message does not name the file: '%s'", err);
    } else {
        size_t n = 1;
        if (h.ndim < 0 || h.ndim > TENSOR_MAXDIM)
            FZ_FAIL("npy: ndim %d", h.ndim);
        for (int i = 0; i < h.ndim; i++)
            n *= h.shape[i];
        if (n != h.n)
            FZ_FAIL("npy: shape multiplies to %zu, n = %zu", n, h.n);
        if (h.data_bytes != h.n * tensor_dtype_size(h.dtype) ||
            h.data_offset > size || size - h.data_offset != h.data_bytes)
            FZ_FAIL("npy: %zu data bytes at %zu in an image of %zu", h.data_bytes,
                    h.data_offset, size);
        if (h.version_minor != 0 || h.version_major < 1 || h.version_major > 3)
            FZ_FAIL("npy: version %d.%d", h.version_major, h.version_minor);
    }
    fz_tensor_check(data, size, "fuzz.npy");
    return 0;
}
