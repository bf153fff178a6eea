/*
 * tensor_base.c — what every container reader and writer of fplab_tensor
 * calls and which calls none of them: the dtype table, error messages,
 * shapes, byte sources and opening a file to read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "tensor_impl.h"

static const struct {
    size_t size;
    const char *name, *st;
} dtypes[TENSOR_DTYPE_COUNT] = {
    [TENSOR_BOOL] = {1, "bool", "BOOL"},
    [TENSOR_I8] = {1, "int8", "I8"},
    [TENSOR_U8] = {1, "uint8", "U8"},
    [TENSOR_I16] = {2, "int16", "I16"},
    [TENSOR_U16] = {2, "uint16", "U16"},
    [TENSOR_I32] = {4, "int32", "I32"},
    [TENSOR_U32] = {4, "uint32", "U32"},
    [TENSOR_I64] = {8, "int64", "I64"},
    [TENSOR_U64] = {8, "uint64", "U64"},
    [TENSOR_F16] = {2, "float16", "F16"},
    [TENSOR_BF16] = {2, "bfloat16", "BF16"},
    [TENSOR_F32] = {4, "float32", "F32"},
    [TENSOR_F64] = {8, "float64", "F64"},
    [TENSOR_F8_E4M3] = {1, "float8_e4m3fn", "F8_E4M3"},
    [TENSOR_F8_E5M2] = {1, "float8_e5m2", "F8_E5M2"},
};

size_t tensor_dtype_size(tensor_dtype d)
{
    return (unsigned)d < TENSOR_DTYPE_COUNT ? dtypes[d].size : 0;
}

const char *tensor_dtype_name(tensor_dtype d)
{
    return (unsigned)d < TENSOR_DTYPE_COUNT ? dtypes[d].name : "?";
}

const char *tensor_dtype_st_name(tensor_dtype d)
{
    return (unsigned)d < TENSOR_DTYPE_COUNT ? dtypes[d].st : "?";
}

const char *tensor_container_name(tensor_container c)
{
    switch (c) {
    case TENSOR_NPY: return "npy";
    case TENSOR_NPZ: return "npz";
    case TENSOR_SAFETENSORS: return "safetensors";
    case TENSOR_RAW: return "raw";
    case TENSOR_TEXT: return "text";
    }
    return "?";
}

int terr(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

char *tstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

int tshape_count(const size_t *shape, int ndim, size_t esize, size_t *n,
                 size_t *bytes)
{
    size_t k = 1, b;
    for (int i = 0; i < ndim; i++)
        if (__builtin_mul_overflow(k, shape[i], &k))
            return -1;
    if (__builtin_mul_overflow(k, esize, &b))
        return -1;
    *n = k;
    if (bytes)
        *bytes = b;
    return 0;
}

void fl_tensor_shape_text(const size_t *shape, int ndim, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    buf[0] = 0;
#define PUT(...) do { int k_ = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__); \
        if (k_ > 0) o += (size_t)k_; } while (0)
    PUT("(");
    for (int i = 0; i < ndim; i++)
        PUT(i ? ", %zu" : "%zu", shape[i]);
    PUT(ndim == 1 ? ",)" : ")");
#undef PUT
}

int fl_tensor_shape_same(const size_t *a, int na, const size_t *b, int nb)
{
    if (na != nb)
        return 0;
    for (int d = 0; d < na; d++)
        if (a[d] != b[d])
            return 0;
    return 1;
}

/* ---------------------------------------------------------------------
 * Byte sources.
 * ------------------------------------------------------------------- */

int tsrc_read(tsrc *s, uint64_t off, void *dst, size_t n, int *ioerr)
{
    if (ioerr)
        *ioerr = 0;
    if (off > s->size || n > s->size - off)
        return -1;
    if (n == 0)
        return 0;
    if (s->mem) {
        memcpy(dst, s->mem + s->base + off, n);
    } else {
        if (fseeko(s->fp, (off_t)(s->base + off), SEEK_SET) != 0 ||
            fread(dst, 1, n, s->fp) != n) {
            if (ioerr)
                *ioerr = 1;
            if (!errno)
                errno = EIO;
            return -1;
        }
    }
    if (s->crc_on) {
        if (off != s->crc_pos) {
            s->crc_broken = 1;
        } else {
            /* zlib's crc32 takes an unsigned length: feed in pieces */
            const unsigned char *p = dst;
            size_t left = n;
            unsigned long c = s->crc;
            while (left) {
                unsigned int k = left > (1u << 30) ? (1u << 30) : (unsigned)left;
                c = crc32(c, p, k);
                p += k;
                left -= k;
            }
            s->crc = (uint32_t)c;
            s->crc_pos += n;
        }
    }
    return 0;
}

FILE *topen(const char *path, uint64_t *size, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        terr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
        fclose(fp);
        terr(err, errlen, "%s: not a regular file", path);
        return NULL;
    }
    *size = (uint64_t)st.st_size;
    return fp;
}
