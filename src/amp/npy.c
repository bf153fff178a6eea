/*
 * npy.c — NumPy .npy, raw binary and text readers (see npy.h).
 *
 * .npy headers are parsed and checked by fplab_tensor (tensor_npy_info_parse,
 * src/tensor/tensor_npy.c describes the layout); this file converts the
 * float data to doubles for the histogram and training code.
 */
#include "amp_err.h"
#include "npy.h"
#include "tensor.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


int amp_dtype_parse(const char *s)
{
    static const struct { const char *name; int dt; } names[] = {
        {"f16", AMP_DT_F16}, {"float16", AMP_DT_F16}, {"half", AMP_DT_F16},
        {"fp16", AMP_DT_F16},
        {"f32", AMP_DT_F32}, {"float32", AMP_DT_F32}, {"float", AMP_DT_F32},
        {"fp32", AMP_DT_F32},
        {"f64", AMP_DT_F64}, {"float64", AMP_DT_F64}, {"double", AMP_DT_F64},
        {"fp64", AMP_DT_F64},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name))
            return names[i].dt;
    return -1;
}

const char *amp_dtype_name(int dtype)
{
    switch (dtype) {
    case AMP_DT_F16: return "f16";
    case AMP_DT_F32: return "f32";
    case AMP_DT_F64: return "f64";
    case AMP_DT_TEXT: return "text";
    default: return "?";
    }
}

size_t amp_dtype_size(int dtype)
{
    switch (dtype) {
    case AMP_DT_F16: return 2;
    case AMP_DT_F32: return 4;
    case AMP_DT_F64: return 8;
    default: return 0;
    }
}

double amp_half_to_double(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 0x1F)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24);            /* subnormal: m * 2^-24 */
    else
        v = ldexp((double)(m | 0x400), e - 25); /* (1024+m) * 2^(e-15-10) */
    return sign ? -v : v;
}

/* Decode n elements of dtype from little- or big-endian bytes. */
static void decode(double *dst, const unsigned char *src, size_t n, int dtype,
                   int big)
{
    size_t w = amp_dtype_size(dtype);
    for (size_t i = 0; i < n; i++, src += w) {
        uint64_t u = 0;
        for (size_t k = 0; k < w; k++) {
            unsigned b = big ? src[k] : src[w - 1 - k];
            u = u << 8 | b;
        }
        if (dtype == AMP_DT_F16) {
            dst[i] = amp_half_to_double((uint16_t)u);
        } else if (dtype == AMP_DT_F32) {
            uint32_t u32 = (uint32_t)u;
            float f;
            memcpy(&f, &u32, 4);
            dst[i] = f;
        } else {
            double d;
            memcpy(&d, &u, 8);
            dst[i] = d;
        }
    }
}

static void array_reset(amp_array *a)
{
    memset(a, 0, sizeof *a);
}

void amp_array_free(amp_array *a)
{
    if (!a)
        return;
    free(a->data);
    array_reset(a);
}

void amp_array_shape_str(const amp_array *a, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    buf[0] = 0;
#define PUT(...) do { int k_ = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__); \
        if (k_ > 0) o += (size_t)k_; } while (0)
    PUT("(");
    for (int i = 0; i < a->ndim; i++)
        PUT(i ? ", %zu" : "%zu", a->shape[i]);
    PUT(a->ndim == 1 ? ",)" : ")");
#undef PUT
}

float *amp_array_to_float(const amp_array *a)
{
    if (!a->n)
        return NULL;
    float *f = malloc(a->n * sizeof *f);
    if (!f)
        return NULL;
    for (size_t i = 0; i < a->n; i++)
        f[i] = (float)a->data[i];
    return f;
}

/* ---------------------------------------------------------------------
 * .npy images: the header is checked by fplab_tensor's parser (the one
 * .npy parser in fplab); this reader keeps only the float dtypes and its
 * own conversion to double, in storage order.
 * ------------------------------------------------------------------- */
int amp_npy_parse(amp_array *a, const unsigned char *buf, size_t len,
                  const char *name, char *err, size_t errlen)
{
    tensor_npy_info h;
    array_reset(a);
    if (tensor_npy_info_parse(&h, buf, len, name, err, errlen))
        return -1;
    switch (h.dtype) {
    case TENSOR_F16: a->dtype = AMP_DT_F16; break;
    case TENSOR_F32: a->dtype = AMP_DT_F32; break;
    case TENSOR_F64: a->dtype = AMP_DT_F64; break;
    default:
        return amp_errorf(err, errlen, "%s: unsupported dtype '%s' (%s): this "
                          "reader takes float arrays, <f2 <f4 <f8 and big-endian "
                          ">f2 >f4 >f8", name, h.descr,
                          tensor_dtype_name(h.dtype));
    }
    a->ndim = h.ndim;
    for (int i = 0; i < h.ndim; i++)
        a->shape[i] = h.shape[i];
    a->fortran_order = h.fortran_order;
    a->big_endian = h.big_endian;
    a->version_major = h.version_major;
    a->version_minor = h.version_minor;
    if (h.n) {
        a->data = malloc(h.n * sizeof *a->data);
        if (!a->data) {
            array_reset(a);
            return amp_errorf(err, errlen, "%s: out of memory for %zu values",
                              name, h.n);
        }
        decode(a->data, buf + h.data_offset, h.n, a->dtype, a->big_endian);
    }
    a->n = h.n;
    return 0;
}

/* Read a whole file; refuses directories and unreadable files. */
static int slurp(const char *path, unsigned char **buf, size_t *len, char *err,
                 size_t errlen)
{
    *buf = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return amp_errorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) || !S_ISREG(st.st_mode)) {
        fclose(fp);
        return amp_errorf(err, errlen, "%s: not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    unsigned char *b = malloc(size ? size : 1);
    if (!b) {
        fclose(fp);
        return amp_errorf(err, errlen, "%s: out of memory for %zu bytes", path, size);
    }
    size_t got = fread(b, 1, size, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || got != size) {
        free(b);
        return amp_errorf(err, errlen, "%s: read error", path);
    }
    *buf = b;
    *len = size;
    return 0;
}

int amp_npy_read(amp_array *a, const char *path, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t len;
    array_reset(a);
    if (slurp(path, &buf, &len, err, errlen))
        return -1;
    int r = amp_npy_parse(a, buf, len, path, err, errlen);
    free(buf);
    return r;
}

int amp_raw_read(amp_array *a, const char *path, int dtype, char *err,
                 size_t errlen)
{
    array_reset(a);
    size_t w = amp_dtype_size(dtype);
    if (!w)
        return amp_errorf(err, errlen, "%s: raw read needs a dtype f16, f32 or f64", path);
    unsigned char *buf;
    size_t len;
    if (slurp(path, &buf, &len, err, errlen))
        return -1;
    if (len % w) {
        free(buf);
        return amp_errorf(err, errlen, "%s: %zu bytes is not a whole number of %s "
                    "values (%zu bytes each)", path, len, amp_dtype_name(dtype), w);
    }
    a->n = len / w;
    a->ndim = 1;
    a->shape[0] = a->n;
    a->dtype = dtype;
    if (a->n) {
        a->data = malloc(a->n * sizeof *a->data);
        if (!a->data) {
            free(buf);
            a->n = 0;
            return amp_errorf(err, errlen, "%s: out of memory", path);
        }
        decode(a->data, buf, a->n, dtype, 0);
    }
    free(buf);
    return 0;
}

static int is_sep(char c)
{
    return c == ',' || c == ';' || c == ' ' || c == '\t';
}

int amp_text_read(amp_array *a, const char *path, char *err, size_t errlen)
{
    array_reset(a);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return amp_errorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, n = 0, dcap = 0, lineno = 0;
    double *data = NULL;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = 0;
        if (memchr(line, 0, (size_t)got)) {
            rc = amp_errorf(err, errlen, "%s:%zu: NUL byte in a text file (is it binary? "
                      "use --dtype for raw data)", path, lineno);
            break;
        }
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        /* Fields: runs of blanks separate; a comma or semicolon (with blanks
         * around it) separates exactly once, so ",," is an empty field. */
        int field = 0;
        for (;;) {
            field++;
            while (*s == ' ' || *s == '\t')
                s++;
            char *start = s;
            while (*s && !is_sep(*s))
                s++;
            char save = *s;
            *s = 0;
            if (!*start) {
                rc = amp_errorf(err, errlen, "%s:%zu:%d: empty field", path, lineno, field);
                goto out;
            }
            char *endp;
            errno = 0;
            double v = strtod(start, &endp);
            if (endp == start || *endp) {
                rc = amp_errorf(err, errlen, "%s:%zu:%d: '%.40s' is not a number", path,
                          lineno, field, start);
                goto out;
            }
            /* ERANGE is fine: overflow gives inf, underflow a tiny value,
             * both are what the text says in binary64. */
            if (n == dcap) {
                size_t nc = dcap ? dcap * 2 : 1024;
                double *nd = realloc(data, nc * sizeof *nd);
                if (!nd) {
                    rc = amp_errorf(err, errlen, "%s:%zu: out of memory", path, lineno);
                    goto out;
                }
                data = nd;
                dcap = nc;
            }
            data[n++] = v;
            *s = save;
            while (*s == ' ' || *s == '\t')
                s++;
            if (!*s)
                break;
            if (*s == ',' || *s == ';') {
                s++;
                while (*s == ' ' || *s == '\t')
                    s++;
                if (!*s) {
                    rc = amp_errorf(err, errlen, "%s:%zu:%d: empty field after a trailing "
                              "separator", path, lineno, field + 1);
                    goto out;
                }
            }
        }
    }
    if (!rc && ferror(fp))
        rc = amp_errorf(err, errlen, "%s: read error", path);
    if (!rc && n == 0)
        rc = amp_errorf(err, errlen, "%s: no numbers in the file", path);
out:
    free(line);
    fclose(fp);
    if (rc) {
        free(data);
        return -1;
    }
    a->data = data;
    a->n = n;
    a->ndim = 1;
    a->shape[0] = n;
    a->dtype = AMP_DT_TEXT;
    return 0;
}

int amp_array_read(amp_array *a, const char *path, int dtype, char *err,
                   size_t errlen)
{
    if (dtype >= 0 && dtype != AMP_DT_TEXT)
        return amp_raw_read(a, path, dtype, err, errlen);
    unsigned char head[6] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        array_reset(a);
        return amp_errorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    }
    size_t got = fread(head, 1, 6, fp);
    fclose(fp);
    if (got == 0) {
        array_reset(a);
        return amp_errorf(err, errlen, "%s: empty file", path);
    }
    if (head[0] == 0x93)
        return amp_npy_read(a, path, err, errlen);   /* magic checked there */
    return amp_text_read(a, path, err, errlen);
}
