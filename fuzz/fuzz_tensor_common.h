/*
 * fuzz_tensor_common.h — the property every tensor-file harness checks:
 * open the image with fplab_tensor and read every member.
 *
 * No crash, no sanitizer report, no leak; every error message starts with
 * the image's name; a member read successfully has a valid dtype, a shape
 * that multiplies out to n, n elements of data (every byte is read, so
 * ASan sees the whole buffer) and a source naming the file.
 */
#ifndef FPLAB_FUZZ_TENSOR_COMMON_H
#define FPLAB_FUZZ_TENSOR_COMMON_H

#include "fuzz_common.h"
#include "tensor.h"

static inline void fz_tensor_check(const uint8_t *data, size_t size,
                                   const char *name)
{
    tensor_file *tf;
    char err[1024] = "";
    size_t nl = strlen(name);
    if (tensor_file_open_mem(&tf, data, size, name, err, sizeof err) != 0) {
        if (strncmp(err, name, nl) != 0)
            FZ_FAIL("%s: open error does not name the file: '%s'", name, err);
        return;
    }
    char keys[64];
    tensor_file_keys_str(tf, keys, sizeof keys);   /* truncation is safe */
    for (size_t i = 0; i < tensor_file_meta_count(tf); i++)
        if (!tensor_file_meta_key(tf, i) || !tensor_file_meta_value(tf, i))
            FZ_FAIL("%s: metadata %zu missing", name, i);
    size_t count = tensor_file_count(tf);
    for (size_t m = 0; m <= count; m++) {
        /* every member, then the no-key and a missing-key reads */
        const char *key = m < count ? tensor_file_key(tf, m) : NULL;
        for (int pass = 0; pass < (m < count ? 1 : 2); pass++) {
            tensor t;
            err[0] = 0;
            const char *k = pass ? "no such key" : key;
            if (tensor_file_get(tf, k, &t, err, sizeof err) != 0) {
                if (strncmp(err, name, nl) != 0)
                    FZ_FAIL("%s: read error does not name the file: '%s'", name,
                            err);
                if (t.data != NULL || t.n != 0 || t.source != NULL)
                    FZ_FAIL("%s: failed read left data behind", name);
                continue;
            }
            if ((unsigned)t.dtype >= TENSOR_DTYPE_COUNT || t.ndim < 0 ||
                t.ndim > TENSOR_MAXDIM)
                FZ_FAIL("%s: dtype %d ndim %d", name, (int)t.dtype, t.ndim);
            size_t n = 1;
            for (int d = 0; d < t.ndim; d++)
                n *= t.shape[d];
            if (n != t.n)
                FZ_FAIL("%s: shape multiplies to %zu, n = %zu", name, n, t.n);
            if (!t.source || strncmp(t.source, name, nl) != 0)
                FZ_FAIL("%s: source '%s'", name, t.source ? t.source : "(null)");
            size_t bytes = t.n * tensor_dtype_size(t.dtype);
            unsigned sum = 0;
            for (size_t b = 0; b < bytes; b++)
                sum += t.data[b];
            (void)sum;
            char shp[16];
            tensor_shape_str(&t, shp, sizeof shp);
            fl_format f;
            (void)tensor_format(&t, NULL, "--in-format", &f, err, sizeof err);
            (void)tensor_format(&t, "bf16", "--in-format", &f, err, sizeof err);
            tensor_free(&t);
        }
    }
    tensor_file_close(tf);
}

#endif
