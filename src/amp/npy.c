/*
 * npy.c — NumPy .npy, raw binary and text readers (see npy.h).
 *
 * The .npy layout (numpy/lib/format.py, "NPY format"):
 *   bytes 0..5   magic "\x93NUMPY"
 *   byte  6, 7   major, minor version (1.0, 2.0 or 3.0)
 *   then         header length: uint16 LE (1.0) or uint32 LE (2.0, 3.0)
 *   then         the header: an ASCII (3.0: UTF-8) Python dict literal with
 *                exactly the keys 'descr', 'fortran_order', 'shape',
 *                padded with spaces and ended by '\n'
 *   then         the data, prod(shape) elements of descr, nothing after.
 */
#include "amp_err.h"
#include "npy.h"

#include <errno.h>
#include <limits.h>
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
 * The header dict.  A tiny parser for the Python literal subset NumPy
 * writes: strings in ' or ", True/False, tuples of non-negative integers
 * (a trailing comma allowed, Python 2's 'L' suffix tolerated).
 * ------------------------------------------------------------------- */
typedef struct hparse {
    const char *s, *end;
    const char *name;
    char *err;
    size_t errlen;
} hparse;

static void skip_ws(hparse *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' ||
                             *p->s == '\r'))
        p->s++;
}

static int expect(hparse *p, char c, const char *what)
{
    skip_ws(p);
    if (p->s >= p->end)
        return amp_errorf(p->err, p->errlen, "%s: header ends where %s ('%c') was expected",
                    p->name, what, c);
    if (*p->s != c)
        return amp_errorf(p->err, p->errlen, "%s: header has '%c' where %s ('%c') was expected",
                    p->name, *p->s, what, c);
    p->s++;
    return 0;
}

static int parse_str(hparse *p, char *out, size_t outlen)
{
    skip_ws(p);
    if (p->s >= p->end || (*p->s != '\'' && *p->s != '"'))
        return amp_errorf(p->err, p->errlen, "%s: header: expected a quoted string", p->name);
    char q = *p->s++;
    size_t k = 0;
    while (p->s < p->end && *p->s != q) {
        if (*p->s == '\\' || k + 1 >= outlen)
            return amp_errorf(p->err, p->errlen, "%s: header: string too long or escaped "
                        "(not a plain dtype)", p->name);
        out[k++] = *p->s++;
    }
    if (p->s >= p->end)
        return amp_errorf(p->err, p->errlen, "%s: header: unterminated string", p->name);
    p->s++;
    out[k] = 0;
    return 0;
}

static int parse_bool(hparse *p, int *v)
{
    skip_ws(p);
    if ((size_t)(p->end - p->s) >= 4 && !memcmp(p->s, "True", 4)) {
        p->s += 4;
        *v = 1;
        return 0;
    }
    if ((size_t)(p->end - p->s) >= 5 && !memcmp(p->s, "False", 5)) {
        p->s += 5;
        *v = 0;
        return 0;
    }
    return amp_errorf(p->err, p->errlen, "%s: header: 'fortran_order' must be True or False",
                p->name);
}

static int parse_shape(hparse *p, amp_array *a)
{
    if (expect(p, '(', "the shape tuple"))
        return -1;
    a->ndim = 0;
    for (;;) {
        skip_ws(p);
        if (p->s < p->end && *p->s == ')') {
            p->s++;
            break;
        }
        if (p->s >= p->end || *p->s < '0' || *p->s > '9')
            return amp_errorf(p->err, p->errlen, "%s: header: shape must be a tuple of "
                        "non-negative integers", p->name);
        uint64_t v = 0;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
            unsigned d = (unsigned)(*p->s++ - '0');
            if (v > (UINT64_MAX - d) / 10 || v * 10 + d > SIZE_MAX)
                return amp_errorf(p->err, p->errlen, "%s: header: shape dimension %d "
                            "does not fit in %zu bits", p->name, a->ndim,
                            sizeof(size_t) * CHAR_BIT);
            v = v * 10 + d;
        }
        if (p->s < p->end && (*p->s == 'L' || *p->s == 'l'))
            p->s++;
        if (a->ndim >= AMP_NPY_MAXDIM)
            return amp_errorf(p->err, p->errlen, "%s: header: more than %d dimensions",
                        p->name, AMP_NPY_MAXDIM);
        a->shape[a->ndim++] = (size_t)v;
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == ')') {
            p->s++;
            break;
        }
        return amp_errorf(p->err, p->errlen, "%s: header: malformed shape tuple", p->name);
    }
    return 0;
}

/* descr -> dtype and byte order; -1 with a message if unsupported. */
static int parse_descr(hparse *p, const char *d, amp_array *a)
{
    int big;
    switch (d[0]) {
    case '<': case '=': case '|': big = 0; break;   /* '=' native: this reader
                                                       assumes a little-endian host */
    case '>': big = 1; break;
    default: goto bad;
    }
    if (d[1] != 'f' || !d[2] || d[3])
        goto bad;
    switch (d[2]) {
    case '2': a->dtype = AMP_DT_F16; break;
    case '4': a->dtype = AMP_DT_F32; break;
    case '8': a->dtype = AMP_DT_F64; break;
    default: goto bad;
    }
    if (d[0] == '|')   /* NumPy never writes '|' for multi-byte floats */
        goto bad;
    a->big_endian = big;
    return 0;
bad:
    return amp_errorf(p->err, p->errlen, "%s: unsupported dtype '%s' (fplab reads "
                "<f2 <f4 <f8 and big-endian >f2 >f4 >f8)", p->name, d);
}

static int parse_header(hparse *p, amp_array *a)
{
    int have_descr = 0, have_order = 0, have_shape = 0;
    char key[32], descr[64];
    skip_ws(p);
    if (p->s < p->end && *p->s == '[')
        return amp_errorf(p->err, p->errlen, "%s: header is not a dict", p->name);
    if (expect(p, '{', "the header dict"))
        return -1;
    for (;;) {
        skip_ws(p);
        if (p->s < p->end && *p->s == '}') {
            p->s++;
            break;
        }
        if (parse_str(p, key, sizeof key))
            return -1;
        if (expect(p, ':', "a colon after the key"))
            return -1;
        if (!strcmp(key, "descr")) {
            skip_ws(p);
            if (p->s < p->end && *p->s == '[')
                return amp_errorf(p->err, p->errlen, "%s: unsupported dtype: a structured "
                            "(record) array; fplab reads plain float arrays", p->name);
            if (parse_str(p, descr, sizeof descr) || parse_descr(p, descr, a))
                return -1;
            have_descr++;
        } else if (!strcmp(key, "fortran_order")) {
            if (parse_bool(p, &a->fortran_order))
                return -1;
            have_order++;
        } else if (!strcmp(key, "shape")) {
            if (parse_shape(p, a))
                return -1;
            have_shape++;
        } else {
            return amp_errorf(p->err, p->errlen, "%s: header has an unexpected key '%s'",
                        p->name, key);
        }
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (expect(p, '}', "the end of the header dict"))
            return -1;
        break;
    }
    skip_ws(p);
    if (p->s != p->end)
        return amp_errorf(p->err, p->errlen, "%s: header has text after the dict", p->name);
    if (have_descr != 1 || have_order != 1 || have_shape != 1)
        return amp_errorf(p->err, p->errlen, "%s: header must have each of 'descr', "
                    "'fortran_order', 'shape' exactly once", p->name);
    return 0;
}

int amp_npy_parse(amp_array *a, const unsigned char *buf, size_t len,
                  const char *name, char *err, size_t errlen)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    array_reset(a);
    if (len < 6 || memcmp(buf, magic, 6))
        return amp_errorf(err, errlen, "%s: bad magic: not a .npy file (expected "
                    "\\x93NUMPY at offset 0)", name);
    if (len < 8)
        return amp_errorf(err, errlen, "%s: truncated: file ends inside the version "
                    "bytes (%zu bytes)", name, len);
    int major = buf[6], minor = buf[7];
    size_t lenbytes;
    if (major == 1 && minor == 0)
        lenbytes = 2;
    else if ((major == 2 || major == 3) && minor == 0)
        lenbytes = 4;
    else
        return amp_errorf(err, errlen, "%s: unsupported .npy format version %d.%d "
                    "(fplab reads 1.0, 2.0, 3.0)", name, major, minor);
    if (len < 8 + lenbytes)
        return amp_errorf(err, errlen, "%s: truncated: file ends inside the header "
                    "length (%zu bytes)", name, len);
    size_t hlen = 0;
    for (size_t k = lenbytes; k-- > 0;)
        hlen = hlen << 8 | buf[8 + k];
    if (hlen > AMP_NPY_MAX_HEADER)
        return amp_errorf(err, errlen, "%s: oversized header: %zu bytes (at most %u "
                    "accepted; real headers are a few hundred)", name, hlen,
                    AMP_NPY_MAX_HEADER);
    size_t off = 8 + lenbytes + hlen;
    if (len < off)
        return amp_errorf(err, errlen, "%s: truncated header: header length says %zu "
                    "bytes but only %zu follow", name, hlen, len - 8 - lenbytes);
    hparse p = {(const char *)buf + 8 + lenbytes, (const char *)buf + off, name,
                err, errlen};
    for (size_t k = 0; k < hlen; k++)
        if (p.s[k] == 0)
            return amp_errorf(err, errlen, "%s: header contains a NUL byte at offset %zu",
                        name, 8 + lenbytes + k);
    if (parse_header(&p, a)) {
        a->ndim = 0;
        return -1;
    }
    a->version_major = major;
    a->version_minor = minor;

    size_t n = 1, w = amp_dtype_size(a->dtype), bytes;
    for (int i = 0; i < a->ndim; i++)
        if (__builtin_mul_overflow(n, a->shape[i], &n))
            goto overflow;
    if (__builtin_mul_overflow(n, w, &bytes))
        goto overflow;
    char shp[256];
    amp_array_shape_str(a, shp, sizeof shp);
    if (len - off < bytes)
        return amp_errorf(err, errlen, "%s: data shorter than the header claims: shape "
                    "%s of %s needs %zu bytes, the file holds %zu", name, shp,
                    amp_dtype_name(a->dtype), bytes, len - off);
    if (len - off > bytes)
        return amp_errorf(err, errlen, "%s: %zu unexpected bytes after the data (shape "
                    "%s of %s is %zu bytes)", name, len - off - bytes, shp,
                    amp_dtype_name(a->dtype), bytes);
    a->n = n;
    if (n) {
        a->data = malloc(n * sizeof *a->data);
        if (!a->data) {
            a->n = 0;
            return amp_errorf(err, errlen, "%s: out of memory for %zu values", name, n);
        }
        decode(a->data, buf + off, n, a->dtype, a->big_endian);
    }
    return 0;
overflow:
    a->ndim = 0;
    return amp_errorf(err, errlen, "%s: shape product overflows: the header's shape "
                "is larger than any file can hold", name);
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
