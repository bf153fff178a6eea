/*
 * tensor_npy.c — the NumPy .npy format: the one parser of .npy headers in
 * fplab, the data loader, the writer.
 *
 * Layout (numpy/lib/format.py, "NPY format"):
 *   bytes 0..5   magic "\x93NUMPY"
 *   byte  6, 7   major, minor version (1.0, 2.0 or 3.0)
 *   then         header length: uint16 LE (1.0) or uint32 LE (2.0, 3.0)
 *   then         the header: an ASCII (3.0: UTF-8) Python dict literal with
 *                exactly the keys 'descr', 'fortran_order', 'shape',
 *                padded with spaces and ended by '\n'; numpy pads the
 *                whole preamble to a multiple of 64 bytes (ARRAY_ALIGN)
 *   then         the data, prod(shape) elements of descr, nothing after.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_impl.h"

/* A header longer than this is refused as corrupt (NumPy's own safety
 * limit for untrusted files is 10000 bytes; real headers are < 200). */
#define NPY_MAX_HEADER (1u << 20)

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
        return terr(p->err, p->errlen, "%s: header ends where %s ('%c') was "
                    "expected", p->name, what, c);
    if (*p->s != c)
        return terr(p->err, p->errlen, "%s: header has '%c' where %s ('%c') "
                    "was expected", p->name, *p->s, what, c);
    p->s++;
    return 0;
}

static int parse_str(hparse *p, char *out, size_t outlen)
{
    skip_ws(p);
    if (p->s >= p->end || (*p->s != '\'' && *p->s != '"'))
        return terr(p->err, p->errlen, "%s: header: expected a quoted string",
                    p->name);
    char q = *p->s++;
    size_t k = 0;
    while (p->s < p->end && *p->s != q) {
        if (*p->s == '\\' || k + 1 >= outlen)
            return terr(p->err, p->errlen, "%s: header: string too long or "
                        "escaped (not a plain dtype)", p->name);
        out[k++] = *p->s++;
    }
    if (p->s >= p->end)
        return terr(p->err, p->errlen, "%s: header: unterminated string",
                    p->name);
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
    return terr(p->err, p->errlen, "%s: header: 'fortran_order' must be True "
                "or False", p->name);
}

static int parse_shape(hparse *p, tensor_npy_info *h)
{
    if (expect(p, '(', "the shape tuple"))
        return -1;
    h->ndim = 0;
    for (;;) {
        skip_ws(p);
        if (p->s < p->end && *p->s == ')') {
            p->s++;
            break;
        }
        if (p->s >= p->end || *p->s < '0' || *p->s > '9')
            return terr(p->err, p->errlen, "%s: header: shape must be a tuple "
                        "of non-negative integers", p->name);
        uint64_t v = 0;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
            unsigned d = (unsigned)(*p->s++ - '0');
            if (v > (UINT64_MAX - d) / 10 || v * 10 + d > SIZE_MAX)
                return terr(p->err, p->errlen, "%s: header: shape dimension %d "
                            "does not fit in %zu bits", p->name, h->ndim,
                            sizeof(size_t) * CHAR_BIT);
            v = v * 10 + d;
        }
        if (p->s < p->end && (*p->s == 'L' || *p->s == 'l'))
            p->s++;   /* Python 2's long suffix */
        if (h->ndim >= TENSOR_MAXDIM)
            return terr(p->err, p->errlen, "%s: header: more than %d "
                        "dimensions", p->name, TENSOR_MAXDIM);
        h->shape[h->ndim++] = (size_t)v;
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == ')') {
            p->s++;
            break;
        }
        return terr(p->err, p->errlen, "%s: header: malformed shape tuple",
                    p->name);
    }
    return 0;
}

/* descr -> dtype and byte order. */
static int parse_descr(hparse *p, const char *d, tensor_npy_info *h)
{
    char order = d[0];
    if (order != '<' && order != '>' && order != '=' && order != '|')
        goto bad;
    char kind = d[1];
    if (!kind || !d[2] || d[3])
        goto bad;
    int size = d[2] - '0';
    static const struct { char kind; int size; tensor_dtype dt; } map[] = {
        {'b', 1, TENSOR_BOOL}, {'i', 1, TENSOR_I8}, {'u', 1, TENSOR_U8},
        {'i', 2, TENSOR_I16}, {'u', 2, TENSOR_U16}, {'i', 4, TENSOR_I32},
        {'u', 4, TENSOR_U32}, {'i', 8, TENSOR_I64}, {'u', 8, TENSOR_U64},
        {'f', 2, TENSOR_F16}, {'f', 4, TENSOR_F32}, {'f', 8, TENSOR_F64},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (map[i].kind != kind || map[i].size != size)
            continue;
        /* numpy writes '|' only where byte order does not apply */
        if (order == '|' && size > 1)
            goto bad;
        h->dtype = map[i].dt;
        /* '=' is native order: this reader runs on little-endian hosts */
        h->big_endian = order == '>' && size > 1;
        memcpy(h->descr, d, 4);   /* three characters and the NUL */
        return 0;
    }
bad:
    return terr(p->err, p->errlen, "%s: unsupported dtype '%s' (fplab reads "
                "bool, int8..int64, uint8..uint64, float16, float32, float64: "
                "|b1 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 <f2 <f4 <f8, or '>' "
                "big-endian)", p->name, d);
}

static int parse_header(hparse *p, tensor_npy_info *h)
{
    int have_descr = 0, have_order = 0, have_shape = 0;
    char key[32], descr[64];
    skip_ws(p);
    if (p->s < p->end && *p->s == '[')
        return terr(p->err, p->errlen, "%s: header is not a dict", p->name);
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
            if (p->s < p->end && (*p->s == '[' || *p->s == '('))
                return terr(p->err, p->errlen, "%s: unsupported dtype: a "
                            "structured (record) array; fplab reads plain "
                            "numeric arrays", p->name);
            if (parse_str(p, descr, sizeof descr) || parse_descr(p, descr, h))
                return -1;
            have_descr++;
        } else if (!strcmp(key, "fortran_order")) {
            if (parse_bool(p, &h->fortran_order))
                return -1;
            have_order++;
        } else if (!strcmp(key, "shape")) {
            if (parse_shape(p, h))
                return -1;
            have_shape++;
        } else {
            return terr(p->err, p->errlen, "%s: header has an unexpected key "
                        "'%s'", p->name, key);
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
        return terr(p->err, p->errlen, "%s: header has text after the dict",
                    p->name);
    if (have_descr != 1 || have_order != 1 || have_shape != 1)
        return terr(p->err, p->errlen, "%s: header must have each of 'descr', "
                    "'fortran_order', 'shape' exactly once", p->name);
    return 0;
}

static int rd_fail(const char *name, char *err, size_t errlen)
{
    return terr(err, errlen, "%s: read error: %s", name, strerror(errno));
}

int tnpy_info(tsrc *src, const char *name, tensor_npy_info *h, char *err,
              size_t errlen)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    unsigned char pre[8];
    int io;
    memset(h, 0, sizeof *h);
    uint64_t len = src->size;
    /* Reads are consecutive from offset 0 (a zip member's CRC runs over
     * them): magic, version, header length, header, data. */
    if (len < 6 || tsrc_read(src, 0, pre, 6, &io) || memcmp(pre, magic, 6)) {
        if (len >= 6 && io)
            return rd_fail(name, err, errlen);
        return terr(err, errlen, "%s: bad magic: not a .npy file (expected "
                    "\\x93NUMPY at offset 0)", name);
    }
    if (len < 8)
        return terr(err, errlen, "%s: truncated: file ends inside the version "
                    "bytes (%llu bytes)", name, (unsigned long long)len);
    if (tsrc_read(src, 6, pre + 6, 2, &io))
        return rd_fail(name, err, errlen);
    int major = pre[6], minor = pre[7];
    size_t lenbytes;
    if (major == 1 && minor == 0)
        lenbytes = 2;
    else if ((major == 2 || major == 3) && minor == 0)
        lenbytes = 4;
    else
        return terr(err, errlen, "%s: unsupported .npy format version %d.%d "
                    "(fplab reads 1.0, 2.0, 3.0)", name, major, minor);
    if (len < 8 + lenbytes)
        return terr(err, errlen, "%s: truncated: file ends inside the header "
                    "length (%llu bytes)", name, (unsigned long long)len);
    unsigned char lb[4];
    if (tsrc_read(src, 8, lb, lenbytes, &io))
        return rd_fail(name, err, errlen);
    size_t hlen = lenbytes == 2 ? rd16(lb) : rd32(lb);
    if (hlen > NPY_MAX_HEADER)
        return terr(err, errlen, "%s: oversized header: %zu bytes (at most %u "
                    "accepted; real headers are a few hundred)", name, hlen,
                    NPY_MAX_HEADER);
    size_t off = 8 + lenbytes + hlen;
    if (len < off)
        return terr(err, errlen, "%s: truncated header: header length says %zu "
                    "bytes but only %llu follow", name, hlen,
                    (unsigned long long)(len - 8 - lenbytes));
    char *hb = malloc(hlen ? hlen : 1);
    if (!hb)
        return terr(err, errlen, "%s: out of memory", name);
    if (tsrc_read(src, 8 + lenbytes, hb, hlen, &io)) {
        free(hb);
        return rd_fail(name, err, errlen);
    }
    for (size_t k = 0; k < hlen; k++)
        if (hb[k] == 0) {
            free(hb);
            return terr(err, errlen, "%s: header contains a NUL byte at offset "
                        "%zu", name, 8 + lenbytes + k);
        }
    hparse p = {hb, hb + hlen, name, err, errlen};
    int r = parse_header(&p, h);
    free(hb);
    if (r) {
        h->ndim = 0;
        return -1;
    }
    h->version_major = major;
    h->version_minor = minor;
    h->data_offset = off;

    size_t n, bytes;
    if (tshape_count(h->shape, h->ndim, tensor_dtype_size(h->dtype), &n,
                     &bytes)) {
        h->ndim = 0;
        return terr(err, errlen, "%s: shape product overflows: the header's "
                    "shape is larger than any file can hold", name);
    }
    char shp[256];
    fl_tensor_shape_text(h->shape, h->ndim, shp, sizeof shp);
    if (len - off < bytes)
        return terr(err, errlen, "%s: data shorter than the header claims: "
                    "shape %s of %s needs %zu bytes, the file holds %llu",
                    name, shp, tensor_dtype_name(h->dtype), bytes,
                    (unsigned long long)(len - off));
    if (len - off > bytes)
        return terr(err, errlen, "%s: %llu unexpected bytes after the data "
                    "(shape %s of %s is %zu bytes)", name,
                    (unsigned long long)(len - off - bytes), shp,
                    tensor_dtype_name(h->dtype), bytes);
    h->n = n;
    h->data_bytes = bytes;
    return 0;
}

int tensor_npy_info_parse(tensor_npy_info *h, const unsigned char *buf,
                          size_t len, const char *name, char *err,
                          size_t errlen)
{
    tsrc s = {0};
    s.mem = buf;
    s.size = len;
    return tnpy_info(&s, name, h, err, errlen);
}

static void byteswap(unsigned char *d, size_t n, size_t w)
{
    for (size_t i = 0; i < n; i++, d += w)
        for (size_t a = 0, b = w - 1; a < b; a++, b--) {
            unsigned char t = d[a];
            d[a] = d[b];
            d[b] = t;
        }
}

/* Fortran order (first axis fastest) to C order (last axis fastest).
 * Walks the source in storage order with an odometer over the index and
 * keeps the C offset of that index up to date. */
static void fortran_to_c(unsigned char *dst, const unsigned char *src,
                         const size_t *shape, int ndim, size_t n, size_t w)
{
    size_t idx[TENSOR_MAXDIM] = {0}, cstride[TENSOR_MAXDIM];
    size_t s = 1;
    for (int d = ndim; d-- > 0;) {
        cstride[d] = s;
        s *= shape[d];
    }
    size_t c = 0;
    for (size_t j = 0; j < n; j++, src += w) {
        memcpy(dst + c * w, src, w);
        for (int d = 0; d < ndim; d++) {   /* first axis fastest */
            c += cstride[d];
            if (++idx[d] < shape[d])
                break;
            c -= cstride[d] * shape[d];
            idx[d] = 0;
        }
    }
}

int tnpy_load(tsrc *src, const char *name, const tensor_npy_info *h,
              tensor *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t w = tensor_dtype_size(h->dtype);
    unsigned char *d = malloc(h->data_bytes ? h->data_bytes : 1);
    if (!d)
        return terr(err, errlen, "%s: out of memory for %zu bytes of data",
                    name, h->data_bytes);
    int io;
    if (tsrc_read(src, h->data_offset, d, h->data_bytes, &io)) {
        free(d);
        return rd_fail(name, err, errlen);
    }
    if (h->big_endian)
        byteswap(d, h->n, w);
    int multi = 0;
    for (int i = 0, big = 0; i < h->ndim; i++)
        if (h->shape[i] > 1 && ++big > 1)
            multi = 1;
    if (h->fortran_order && multi && h->n) {
        unsigned char *c = malloc(h->data_bytes);
        if (!c) {
            free(d);
            return terr(err, errlen, "%s: out of memory for the Fortran-order "
                        "transpose (%zu bytes)", name, h->data_bytes);
        }
        fortran_to_c(c, d, h->shape, h->ndim, h->n, w);
        free(d);
        d = c;
    }
    t->dtype = h->dtype;
    t->ndim = h->ndim;
    memcpy(t->shape, h->shape, sizeof t->shape);
    t->n = h->n;
    t->data = d;
    _Static_assert(sizeof t->descr == sizeof h->descr, "descr sizes");
    memcpy(t->descr, h->descr, sizeof t->descr);
    return 0;
}

/* ---------------------------------------------------------------------
 * Writing.
 * ------------------------------------------------------------------- */

tensor_dtype tnpy_dtype(tensor_dtype d)
{
    switch (d) {
    case TENSOR_BF16: return TENSOR_U16;
    case TENSOR_F8_E4M3: case TENSOR_F8_E5M2: return TENSOR_U8;
    default: return d;
    }
}

static const char *npy_descr(tensor_dtype d)
{
    switch (tnpy_dtype(d)) {
    case TENSOR_BOOL: return "|b1";
    case TENSOR_I8: return "|i1";
    case TENSOR_U8: return "|u1";
    case TENSOR_I16: return "<i2";
    case TENSOR_U16: return "<u2";
    case TENSOR_I32: return "<i4";
    case TENSOR_U32: return "<u4";
    case TENSOR_I64: return "<i8";
    case TENSOR_U64: return "<u8";
    case TENSOR_F16: return "<f2";
    case TENSOR_F32: return "<f4";
    default: return "<f8";
    }
}

int tnpy_header(const tensor *t, unsigned char **out, size_t *len)
{
    /* shape: "(3, 4)", "(5,)", "()": at most 32 numbers of 20 digits */
    char shp[TENSOR_MAXDIM * 24 + 8], dict[TENSOR_MAXDIM * 24 + 128];
    fl_tensor_shape_text(t->shape, t->ndim, shp, sizeof shp);
    int dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
                      "False, 'shape': %s, }", npy_descr(t->dtype), shp);
    if (dl < 0 || (size_t)dl >= sizeof dict)
        return -1;
    /* numpy: version 1.0 when the padded header fits 16 bits, else 2.0;
     * the preamble (magic, version, length, dict, padding, '\n') is a
     * multiple of 64 bytes */
    size_t lenbytes = 2, pre = 10;
    size_t total = (pre + (size_t)dl + 1 + 63) / 64 * 64;
    if (total - pre > 65535) {
        lenbytes = 4;
        pre = 12;
        total = (pre + (size_t)dl + 1 + 63) / 64 * 64;
    }
    unsigned char *b = malloc(total);
    if (!b)
        return -1;
    memcpy(b, "\x93NUMPY", 6);
    b[6] = lenbytes == 2 ? 1 : 2;
    b[7] = 0;
    size_t hlen = total - pre;
    if (lenbytes == 2)
        wr16(b + 8, (uint32_t)hlen);
    else
        wr32(b + 8, (uint32_t)hlen);
    memcpy(b + pre, dict, (size_t)dl);
    memset(b + pre + dl, ' ', total - pre - (size_t)dl - 1);
    b[total - 1] = '\n';
    *out = b;
    *len = total;
    return 0;
}

int tnpy_write(FILE *fp, const tensor *t, const char *path, char *err,
               size_t errlen)
{
    unsigned char *h;
    size_t hl;
    if (tnpy_header(t, &h, &hl))
        return terr(err, errlen, "%s: out of memory", path);
    size_t bytes = t->n * tensor_dtype_size(t->dtype);
    int bad = fwrite(h, 1, hl, fp) != hl ||
              (bytes && fwrite(t->data, 1, bytes, fp) != bytes);
    free(h);
    if (bad)
        return terr(err, errlen, "%s: write error: %s", path,
                    strerror(errno ? errno : EIO));
    return 0;
}
