/*
 * fuzz_npy.c — the .npy reader (amp_npy_parse on an in-memory image),
 * and the same image through fplab_tensor (whose header parser amp uses,
 * plus its byte swapping and Fortran-order transpose).
 *
 * Properties: no crash, no sanitizer report, no leak; on success the shape
 * multiplies out to n, n values are there, the dtype is one of f16/f32/f64
 * and the version one the reader claims to know; on failure the message
 * names the file and the array is empty.
 */
#include "fuzz_tensor_common.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    amp_array a;
    char err[512] = "";
    char shape[256];
    fz_tensor_check(data, size, "fuzz.npy");
    if (amp_npy_parse(&a, data, size, "fuzz.npy", err, sizeof err) != 0) {
        if (strncmp(err, "fuzz.npy", 8) != 0)
            FZ_FAIL("npy error message does not name the file: '%s'", err);
        if (a.data != NULL || a.n != 0)
            FZ_FAIL("npy: failed parse left %zu values behind", a.n);
        amp_array_free(&a);
        return 0;
    }
    size_t n = 1;
    if (a.ndim < 0 || a.ndim > AMP_NPY_MAXDIM)
        FZ_FAIL("npy: ndim %d", a.ndim);
    for (int i = 0; i < a.ndim; i++)
        n *= a.shape[i];
    if (n != a.n)
        FZ_FAIL("npy: shape multiplies to %zu, n = %zu", n, a.n);
    if (a.dtype != AMP_DT_F16 && a.dtype != AMP_DT_F32 &&
        a.dtype != AMP_DT_F64)
        FZ_FAIL("npy: dtype %d", a.dtype);
    if (a.version_minor != 0 || a.version_major < 1 || a.version_major > 3)
        FZ_FAIL("npy: version %d.%d", a.version_major, a.version_minor);
    if (a.n > 0 && a.data == NULL)
        FZ_FAIL("npy: %zu values but no data", a.n);
    double sum = 0;
    for (size_t i = 0; i < a.n; i++)
        sum += a.data[i];   /* every value is read (ASan checks the reads) */
    (void)sum;
    float *fv = amp_array_to_float(&a);
    if (fv == NULL && a.n != 0)
        abort();
    free(fv);
    amp_array_shape_str(&a, shape, sizeof shape);
    amp_array_shape_str(&a, shape, 4);   /* truncation must be safe */
    amp_array_free(&a);
    return 0;
}
