/*
 * tensor.c — float formats and bit patterns of tensors, opening a tensor
 * file of any container, and the atomic writers' frame (temp file,
 * rename, the model sidecar).  The dtype table, errors, shapes and byte
 * sources every container shares are in tensor_base.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tensor_impl.h"

void tensor_shape_str(const tensor *t, char *buf, size_t len)
{
    fl_tensor_shape_text(t->shape, t->ndim, buf, len);
}

void tensor_free(tensor *t)
{
    if (!t)
        return;
    free(t->data);
    free(t->source);
    memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------
 * Formats and bit patterns.
 * ------------------------------------------------------------------- */

static const fl_format *native_format(tensor_dtype d)
{
    switch (d) {
    case TENSOR_F16: return &fl_binary16;
    case TENSOR_BF16: return &fl_bfloat16;
    case TENSOR_F32: return &fl_binary32;
    case TENSOR_F64: return &fl_binary64;
    case TENSOR_F8_E4M3: return &fl_fp8_e4m3;
    case TENSOR_F8_E5M2: return &fl_fp8_e5m2;
    default: return NULL;
    }
}

static int is_unsigned(tensor_dtype d)
{
    return d == TENSOR_U8 || d == TENSOR_U16 || d == TENSOR_U32 ||
           d == TENSOR_U64;
}

/* Same encoding: the bits mean the same values (saturation is a property
 * of arithmetic, not of the encoding). */
static int same_encoding(const fl_format *a, const fl_format *b)
{
    return a->ebits == b->ebits && a->prec == b->prec &&
           a->nan_style == b->nan_style && a->subnormals == b->subnormals;
}

size_t tensor_format_storage(const fl_format *f)
{
    return f->width <= 8 ? 1 : f->width <= 16 ? 2 : f->width <= 32 ? 4 : 8;
}

static tensor_dtype uint_of_size(size_t s)
{
    return s == 1 ? TENSOR_U8 : s == 2 ? TENSOR_U16 : s == 4 ? TENSOR_U32
                                                             : TENSOR_U64;
}

tensor_dtype tensor_dtype_for_format(const fl_format *f)
{
    static const tensor_dtype natives[] = {TENSOR_F16, TENSOR_BF16, TENSOR_F32,
                                           TENSOR_F64, TENSOR_F8_E4M3,
                                           TENSOR_F8_E5M2};
    for (size_t i = 0; i < sizeof natives / sizeof natives[0]; i++)
        if (same_encoding(native_format(natives[i]), f) &&
            native_format(natives[i])->width == f->width)
            return natives[i];
    return uint_of_size(tensor_format_storage(f));
}

uint64_t tensor_get_bits(const tensor *t, size_t i)
{
    const unsigned char *p = t->data;
    switch (tensor_dtype_size(t->dtype)) {
    case 1: return p[i];
    case 2: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    default: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

void tensor_to_bits(const tensor *t, uint64_t *out)
{
    for (size_t i = 0; i < t->n; i++)
        out[i] = tensor_get_bits(t, i);
}

/* "[1, 2]" of a C-order flat index. */
static void index_str(const size_t *shape, int ndim, size_t flat, char *buf,
                      size_t len)
{
    size_t idx[TENSOR_MAXDIM];
    for (int d = ndim; d-- > 0;) {
        idx[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    size_t o = 0;
    buf[0] = 0;
    for (int d = 0; d < ndim && o < len; d++) {
        int k = snprintf(buf + o, len - o, "%s%zu", d ? ", " : "[", idx[d]);
        if (k > 0)
            o += (size_t)k;
    }
    if (o < len)
        snprintf(buf + o, len - o, ndim ? "]" : "[]");
}

int tensor_format(const tensor *t, const char *fmt_spec, const char *what,
                  fl_format *f, char *err, size_t errlen)
{
    const char *src = t->source ? t->source : "tensor";
    const fl_format *native = native_format(t->dtype);
    const char *dn = tensor_dtype_name(t->dtype);
    if (!what)
        what = "--in-format";
    if (!fmt_spec) {
        if (native) {
            *f = *native;
            return 0;
        }
        if (is_unsigned(t->dtype))
            return terr(err, errlen, "%s holds %s bit patterns: say which "
                        "format with %s", src, dn, what);
        return terr(err, errlen, "%s holds %s values, not floats: fplab "
                    "compares float tensors, or unsigned-integer bit patterns "
                    "of a format named with %s", src, dn, what);
    }
    fl_format g;
    char e2[256] = "";
    if (fl_format_parse(&g, fmt_spec, e2, sizeof e2))
        return terr(err, errlen, "%s: %s", what, e2);
    if (native) {
        if (!same_encoding(native, &g) || native->width != g.width)
            return terr(err, errlen, "%s is %s (%s) but %s says %s",
                        src, dn, native->name, what, fmt_spec);
        *f = g;
        return 0;
    }
    size_t st = tensor_format_storage(&g);
    if (!is_unsigned(t->dtype))
        return terr(err, errlen, "%s holds %s values; %s %s needs unsigned "
                    "bit patterns (%s)", src, dn, what, fmt_spec,
                    tensor_dtype_name(uint_of_size(st)));
    if (tensor_dtype_size(t->dtype) != st)
        return terr(err, errlen, "%s holds %s, but %s %s (%d bits) is "
                    "stored as %s", src, dn, what, fmt_spec, g.width,
                    tensor_dtype_name(uint_of_size(st)));
    if (g.width < 64) {
        uint64_t high = ~(uint64_t)0 << g.width;
        for (size_t i = 0; i < t->n; i++) {
            uint64_t v = tensor_get_bits(t, i);
            if (v & high) {
                char ix[256];
                index_str(t->shape, t->ndim, i, ix, sizeof ix);
                return terr(err, errlen, "%s: element %s (flat index %zu) is "
                            "0x%llx, which has bits above %s's %d-bit width "
                            "(%s)", src, ix, i, (unsigned long long)v,
                            fmt_spec, g.width, what);
            }
        }
    }
    *f = g;
    return 0;
}

int tensor_from_bits(tensor *t, const fl_format *f, int ndim,
                     const size_t *shape, const uint64_t *bits)
{
    memset(t, 0, sizeof *t);
    if (ndim < 0 || ndim > TENSOR_MAXDIM)
        return -1;
    t->dtype = tensor_dtype_for_format(f);
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->shape[i] = shape[i];
    size_t w = tensor_dtype_size(t->dtype), bytes;
    if (tshape_count(t->shape, ndim, w, &t->n, &bytes))
        return -1;
    t->data = calloc(bytes ? bytes : 1, 1);
    if (!t->data)
        return -1;
    if (bits) {
        for (size_t i = 0; i < t->n; i++) {
            uint64_t v = bits[i];
            switch (w) {
            case 1: t->data[i] = (unsigned char)v; break;
            case 2: { uint16_t x = (uint16_t)v; memcpy(t->data + 2 * i, &x, 2); break; }
            case 4: { uint32_t x = (uint32_t)v; memcpy(t->data + 4 * i, &x, 4); break; }
            default: memcpy(t->data + 8 * i, &v, 8); break;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------
 * Opening.
 * ------------------------------------------------------------------- */

int tsniff(const unsigned char *head, size_t k)
{
    if (k >= 6 && !memcmp(head, "\x93NUMPY", 6))
        return TENSOR_NPY;
    /* before the lone 0x93: a safetensors header of 0x93 + 256 j bytes
     * starts the file with that byte.  Neither a .npy (byte 8 is the low
     * byte of a header length of 64 j - 10 or 64 j - 12) nor a zip (byte 8
     * is a compression method) has '{' there. */
    if (k >= 9 && head[8] == '{')
        return TENSOR_SAFETENSORS;
    if (k >= 4 && head[0] == 'P' && head[1] == 'K' &&
        ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)))
        return TENSOR_NPZ;
    if (k >= 1 && head[0] == 0x93)
        return TENSOR_NPY;   /* a damaged magic: the .npy parser says so */
    return -1;
}

/* The member table and metadata of a handle. */
static void members_free(tensor_file *tf)
{
    for (size_t i = 0; i < tf->count; i++) {
        free(tf->m[i].key);
        free(tf->m[i].zname);
        free(tf->m[i].st_dname);
    }
    free(tf->m);
    for (size_t i = 0; i < tf->nmeta; i++) {
        free(tf->meta_k[i]);
        free(tf->meta_v[i]);
    }
    free(tf->meta_k);
    free(tf->meta_v);
    tf->m = NULL;
    tf->count = 0;
    tf->meta_k = tf->meta_v = NULL;
    tf->nmeta = 0;
}

int tpickle(const unsigned char *head, size_t k)
{
    /* PROTO opcode 0x80, then the protocol number */
    return k >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}

const char *timage_kind(const unsigned char *buf, size_t len)
{
    /* A signature alone could be chance in raw data: the whole image must
     * parse as that container (a .npy's header and exact data length, a
     * zip's end record and central directory, a safetensors header whose
     * offsets cover the data). */
    const size_t k = len < 9 ? len : 9;
    const int kind = tsniff(buf, k);
    if (kind < 0)
        return NULL;
    tensor_file tf;
    memset(&tf, 0, sizeof tf);
    tf.name = (char *)"image";
    tf.src.mem = buf;
    tf.src.size = len;
    char err[256];
    const char *what = NULL;
    if (kind == TENSOR_NPY) {
        tensor_npy_info h;
        if (tnpy_info(&tf.src, tf.name, &h, err, sizeof err) == 0)
            what = "a .npy file";
    } else if (kind == TENSOR_NPZ) {
        tf.kind = TENSOR_NPZ;
        if (tzip_open(&tf, err, sizeof err) == 0)
            what = tzip_pytorch(&tf) ? "a PyTorch file (torch.save)"
                                     : "an .npz file";
    } else {
        tf.kind = TENSOR_SAFETENSORS;
        if (tst_open(&tf, err, sizeof err) == 0)
            what = "a safetensors file";
    }
    tf.name = NULL;            /* not ours to free */
    members_free(&tf);
    return what;
}

static int file_open_common(tensor_file *tf, char *err, size_t errlen)
{
    unsigned char head[9];
    uint64_t size = tf->src.size;
    if (size == 0)
        return terr(err, errlen, "%s: empty file (not a .npy, .npz or "
                    "safetensors file)", tf->name);
    size_t k = size < 9 ? (size_t)size : 9;
    int io;
    if (tsrc_read(&tf->src, 0, head, k, &io))
        return terr(err, errlen, "%s: read error: %s", tf->name,
                    strerror(errno));
    switch (tsniff(head, k)) {
    case TENSOR_NPY:
        tf->kind = TENSOR_NPY;
        tf->m = calloc(1, sizeof *tf->m);
        if (!tf->m || !(tf->m[0].key = strdup("")))
            return terr(err, errlen, "%s: out of memory", tf->name);
        tf->count = 1;
        return 0;
    case TENSOR_NPZ: {
        tf->kind = TENSOR_NPZ;
        if (tzip_open(tf, err, errlen))
            return -1;
        const char *pkl = tzip_pytorch(tf);
        if (pkl != NULL)
            return terr(err, errlen, "%s: a PyTorch file (torch.save's zip "
                        "archive, member '%s'), not an .npz: fplab reads "
                        ".npy, .npz and safetensors files (numpy.save, "
                        "numpy.savez or safetensors.torch.save_file write "
                        "them)", tf->name, pkl);
        return 0;
    }
    case TENSOR_SAFETENSORS:
        tf->kind = TENSOR_SAFETENSORS;
        return tst_open(tf, err, errlen);
    default:
        break;
    }
    if (tpickle(head, k))
        return terr(err, errlen, "%s: a Python pickle (PyTorch's legacy "
                    "torch.save format?), not a tensor file: fplab reads "
                    ".npy, .npz and safetensors files (numpy.save, "
                    "numpy.savez or safetensors.torch.save_file write them)",
                    tf->name);
    if (size < 9 && head[0] != '{' && size >= 1) {
        /* too short for any container but maybe a cut safetensors file */
        return terr(err, errlen, "%s: not a tensor file: %llu bytes, too "
                    "short for a .npy (\\x93NUMPY...), .npz (zip) or "
                    "safetensors (8-byte length, JSON header) file",
                    tf->name, (unsigned long long)size);
    }
    return terr(err, errlen, "%s: not a tensor file: neither .npy (magic "
                "\\x93NUMPY), .npz (zip signature PK\\3\\4) nor safetensors "
                "(8-byte header length, then a JSON header starting with "
                "'{' at offset 8)", tf->name);
}

/* The container read (file_open_common): *out = tf, or tf closed and
 * -1. */
static int open_finish(tensor_file *tf, tensor_file **out, char *err,
                       size_t errlen)
{
    if (file_open_common(tf, err, errlen)) {
        tensor_file_close(tf);
        return -1;
    }
    *out = tf;
    return 0;
}

int tensor_file_open_mem(tensor_file **out, const void *buf, size_t len,
                         const char *name, char *err, size_t errlen)
{
    *out = NULL;
    tensor_file *tf = calloc(1, sizeof *tf);
    if (!tf || !(tf->name = strdup(name ? name : "tensor"))) {
        free(tf);
        return terr(err, errlen, "%s: out of memory", name ? name : "tensor");
    }
    tf->src.mem = buf;
    tf->src.size = len;
    return open_finish(tf, out, err, errlen);
}

int tensor_file_open(tensor_file **out, const char *path, char *err,
                     size_t errlen)
{
    *out = NULL;
    uint64_t size;
    FILE *fp = topen(path, &size, err, errlen);
    if (!fp)
        return -1;
    tensor_file *tf = calloc(1, sizeof *tf);
    if (!tf || !(tf->name = strdup(path))) {
        free(tf);
        fclose(fp);
        return terr(err, errlen, "%s: out of memory", path);
    }
    tf->fp = fp;
    tf->src.fp = fp;
    tf->src.size = size;
    return open_finish(tf, out, err, errlen);
}

void tensor_file_close(tensor_file *tf)
{
    if (!tf)
        return;
    members_free(tf);
    if (tf->fp)
        fclose(tf->fp);
    free(tf->name);
    free(tf);
}

tensor_container tensor_file_container(const tensor_file *tf)
{
    return tf->kind;
}

size_t tensor_file_count(const tensor_file *tf)
{
    return tf->count;
}

const char *tensor_file_key(const tensor_file *tf, size_t i)
{
    return i < tf->count ? tf->m[i].key : NULL;
}

void tensor_file_keys_str(const tensor_file *tf, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    buf[0] = 0;
    for (size_t i = 0; i < tf->count; i++) {
        const char *k = tf->m[i].key;
        size_t need = strlen(k) + (i ? 2 : 0);
        if (o + need + 4 >= len) {
            snprintf(buf + o, len - o, "%s...", i ? ", " : "");
            return;
        }
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", k);
    }
}

size_t tensor_file_meta_count(const tensor_file *tf)
{
    return tf->nmeta;
}

const char *tensor_file_meta_key(const tensor_file *tf, size_t i)
{
    return i < tf->nmeta ? tf->meta_k[i] : NULL;
}

const char *tensor_file_meta_value(const tensor_file *tf, size_t i)
{
    return i < tf->nmeta ? tf->meta_v[i] : NULL;
}

const char *tensor_file_meta(const tensor_file *tf, const char *key)
{
    for (size_t i = 0; i < tf->nmeta; i++)
        if (!strcmp(tf->meta_k[i], key))
            return tf->meta_v[i];
    return NULL;
}

/* The member a key names (an .npz key with or without ".npy"). */
static const tmember *find_member(const tensor_file *tf, const char *key)
{
    for (size_t i = 0; i < tf->count; i++)
        if (!strcmp(tf->m[i].key, key))
            return &tf->m[i];
    if (tf->kind == TENSOR_NPZ)
        for (size_t i = 0; i < tf->count; i++)
            if (tf->m[i].zname && !strcmp(tf->m[i].zname, key))
                return &tf->m[i];
    return NULL;
}

int tensor_file_get(const tensor_file *tf, const char *key, tensor *t,
                    char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const tmember *m = NULL;
    char keys[512];
    if (tf->kind == TENSOR_NPY) {
        if (key && *key)
            return terr(err, errlen, "%s: a .npy file holds one array and "
                        "has no member '%s'", tf->name, key);
        m = &tf->m[0];
    } else if (!key) {
        if (tf->count == 1) {
            m = &tf->m[0];
        } else {
            tensor_file_keys_str(tf, keys, sizeof keys);
            if (tf->count == 0)
                return terr(err, errlen, "%s: the %s file holds no tensors",
                            tf->name, tensor_container_name(tf->kind));
            return terr(err, errlen, "%s holds %zu tensors (%s): name one as "
                        "%s:KEY", tf->name, tf->count, keys, tf->name);
        }
    } else {
        m = find_member(tf, key);
        if (!m) {
            tensor_file_keys_str(tf, keys, sizeof keys);
            return terr(err, errlen, "%s: no tensor '%s' (the file holds %zu: "
                        "%s)", tf->name, key, tf->count,
                        tf->count ? keys : "none");
        }
    }
    int r;
    if (tf->kind == TENSOR_NPY) {
        tsrc s = tf->src;
        tensor_npy_info h;
        r = tnpy_info(&s, tf->name, &h, err, errlen);
        if (!r)
            r = tnpy_load(&s, tf->name, &h, t, err, errlen);
        if (!r && !(t->source = strdup(tf->name)))
            r = terr(err, errlen, "%s: out of memory", tf->name);
    } else if (tf->kind == TENSOR_NPZ) {
        r = tzip_get(tf, m, t, err, errlen);
    } else {
        r = tst_get(tf, m, t, err, errlen);
    }
    if (r)
        tensor_free(t);
    else
        t->container = tf->kind;
    return r;
}

static int path_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int tensor_spec_split(const char *spec, char **path, char **key)
{
    *path = *key = NULL;
    if (path_exists(spec) || !strchr(spec, ':')) {
        *path = strdup(spec);
        return *path ? 0 : -1;
    }
    for (const char *c = strchr(spec, ':'); c; c = strchr(c + 1, ':')) {
        char *p = strndup(spec, (size_t)(c - spec));
        if (!p)
            return -1;
        if (*p && path_exists(p)) {
            *path = p;
            *key = strdup(c + 1);
            if (!*key) {
                free(p);
                *path = NULL;
                return -1;
            }
            return 0;
        }
        free(p);
    }
    *path = strdup(spec);
    return *path ? 0 : -1;
}

int tensor_read(tensor *t, const char *spec, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    char *path, *key;
    if (tensor_spec_split(spec, &path, &key))
        return terr(err, errlen, "%s: out of memory", spec);
    tensor_file *tf;
    int r = tensor_file_open(&tf, path, err, errlen);
    if (!r) {
        r = tensor_file_get(tf, key, t, err, errlen);
        tensor_file_close(tf);
    }
    free(path);
    free(key);
    return r;
}

/* ---------------------------------------------------------------------
 * Writing: checks, temp file, rename, sidecar.
 * ------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcasecmp(s + a - b, suf);
}

static int check_tensor(const tensor *t, const char *path, const char *key,
                        char *err, size_t errlen)
{
    size_t n;
    if (!t || (unsigned)t->dtype >= TENSOR_DTYPE_COUNT || t->ndim < 0 ||
        t->ndim > TENSOR_MAXDIM)
        return terr(err, errlen, "%s: tensor '%s' has no valid dtype or ndim",
                    path, key ? key : "");
    if (tshape_count(t->shape, t->ndim, tensor_dtype_size(t->dtype), &n, NULL) ||
        n != t->n)
        return terr(err, errlen, "%s: tensor '%s': shape and element count "
                    "%zu disagree", path, key ? key : "", t->n);
    if (n && !t->data)
        return terr(err, errlen, "%s: tensor '%s' has no data", path,
                    key ? key : "");
    return 0;
}

/* Write a whole file through a temp name; fill is called with the open
 * temp file.  On failure the temp file is removed. */
typedef int (*fill_fn)(FILE *fp, void *ctx, char *err, size_t errlen);

static char *tmp_name(const char *path)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

/* Create the temp file of path and fill it; *tmp_out gets its name (the
 * caller renames it).  0 or -1 (nothing left behind). */
static int write_tmp(const char *path, fill_fn fill, void *ctx,
                     char **tmp_out, char *err, size_t errlen)
{
    *tmp_out = NULL;
    char *tmp = tmp_name(path);
    if (!tmp)
        return terr(err, errlen, "%s: out of memory", path);
    FILE *fp = fopen(tmp, "wb");
    if (!fp) {
        int e = errno;
        terr(err, errlen, "%s: cannot create '%s': %s", path, tmp, strerror(e));
        free(tmp);
        return -1;
    }
    int r = fill(fp, ctx, err, errlen);
    if (!r && (ferror(fp) || fflush(fp) != 0))
        r = terr(err, errlen, "%s: write error on '%s': %s", path, tmp,
                 strerror(errno ? errno : EIO));
    if (!r && fsync(fileno(fp)) != 0 && errno != EINVAL)
        r = terr(err, errlen, "%s: fsync failed on '%s': %s", path, tmp,
                 strerror(errno));
    if (fclose(fp) != 0 && !r)
        r = terr(err, errlen, "%s: close failed on '%s': %s", path, tmp,
                 strerror(errno));
    if (r) {
        unlink(tmp);
        free(tmp);
        return -1;
    }
    *tmp_out = tmp;
    return 0;
}

struct wctx {
    const char *path;
    const tensor *const *ts;
    const char *const *keys;
    size_t count;
    int flags;
    const tensor_meta *meta;
    size_t nmeta;
    tensor_container kind;
    const char *line;
};

static int fill_main(FILE *fp, void *vc, char *err, size_t errlen)
{
    struct wctx *c = vc;
    switch (c->kind) {
    case TENSOR_NPY:
        return tnpy_write(fp, c->ts[0], c->path, err, errlen);
    case TENSOR_NPZ:
        return tzip_write(fp, c->ts, c->keys, c->count, c->flags, c->path, err,
                          errlen);
    default:
        return tst_write(fp, c->ts, c->keys, c->count, c->meta, c->nmeta,
                         c->path, err, errlen);
    }
}

static int fill_line(FILE *fp, void *vc, char *err, size_t errlen)
{
    struct wctx *c = vc;
    if (fprintf(fp, "%s\n", c->line) < 0)
        return terr(err, errlen, "%s.model: write error", c->path);
    return 0;
}

/* The checks of a write (container by name, tensors, keys, metadata);
 * fills c's kind and model line.  0 or -1 with err. */
static int prepare(struct wctx *c, char *err, size_t errlen)
{
    const char *path = c->path;
    const tensor *const *ts = c->ts;
    const char *const *keys = c->keys;
    const size_t count = c->count, nmeta = c->nmeta;
    const tensor_meta *meta = c->meta;
    if (!path || !*path)
        return terr(err, errlen, "output: empty file name");
    if (ends_with(path, ".npy"))
        c->kind = TENSOR_NPY;
    else if (ends_with(path, ".npz"))
        c->kind = TENSOR_NPZ;
    else if (ends_with(path, ".safetensors"))
        c->kind = TENSOR_SAFETENSORS;
    else if (c->flags & TENSOR_WRITE_NPY_ANY)
        c->kind = TENSOR_NPY;
    else
        return terr(err, errlen, "%s: unknown container: name the output "
                    ".npy, .npz or .safetensors", path);
    if (c->kind == TENSOR_NPY && count != 1)
        return terr(err, errlen, "%s: a .npy file holds exactly one tensor, "
                    "not %zu (write an .npz or .safetensors)", path, count);
    for (size_t i = 0; i < count; i++) {
        const char *k = keys ? keys[i] : NULL;
        if (check_tensor(ts[i], path, k, err, errlen))
            return -1;
        if (c->kind == TENSOR_NPY)
            continue;
        if (!k || !*k)
            return terr(err, errlen, "%s: tensor %zu has no key", path, i);
        if (c->kind == TENSOR_SAFETENSORS && !strcmp(k, "__metadata__"))
            return terr(err, errlen, "%s: '__metadata__' is reserved in "
                        "safetensors and cannot name a tensor", path);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(keys[j], k))
                return terr(err, errlen, "%s: two tensors named '%s'", path, k);
    }
    for (size_t i = 0; i < nmeta; i++) {
        if (!meta[i].key || !meta[i].value)
            return terr(err, errlen, "%s: metadata entry %zu is incomplete",
                        path, i);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(meta[j].key, meta[i].key))
                return terr(err, errlen, "%s: metadata key '%s' given twice",
                            path, meta[i].key);
        if (c->kind == TENSOR_SAFETENSORS)
            continue;
        if (strcmp(meta[i].key, TENSOR_MODEL_KEY))
            return terr(err, errlen, "%s: .%s files have no metadata: only "
                        "the model line (%s) can go with them, in %s.model; "
                        "write .safetensors to keep '%s'", path,
                        tensor_container_name(c->kind), TENSOR_MODEL_KEY, path,
                        meta[i].key);
        if (strchr(meta[i].value, '\n') || strchr(meta[i].value, '\r'))
            return terr(err, errlen, "%s: the model line must be one line",
                        path);
        c->line = meta[i].value;
    }
    return 0;
}

int tensor_write_meta(const char *path, const tensor *const *ts,
                      const char *const *keys, size_t count, int flags,
                      const tensor_meta *meta, size_t nmeta, char *err,
                      size_t errlen)
{
    struct wctx c = {path, ts, keys, count, flags, meta, nmeta, TENSOR_NPY,
                     NULL};
    if (prepare(&c, err, errlen))
        return -1;
    char *tmp = NULL, *stmp = NULL, *side = NULL;
    if (c.kind != TENSOR_SAFETENSORS) {
        size_t sl = strlen(path) + 8;
        side = malloc(sl);
        if (!side)
            return terr(err, errlen, "%s: out of memory", path);
        snprintf(side, sl, "%s.model", path);
    }
    if (write_tmp(path, fill_main, &c, &tmp, err, errlen)) {
        free(side);
        return -1;
    }
    int r = 0;
    if (c.line)
        r = write_tmp(side, fill_line, &c, &stmp, err, errlen);
    if (!r && stmp && rename(stmp, side) != 0)
        r = terr(err, errlen, "cannot rename '%s' to '%s': %s", stmp, side,
                 strerror(errno));
    if (!r && side && !c.line && unlink(side) != 0 && errno != ENOENT)
        r = terr(err, errlen, "%s: cannot remove the stale sidecar '%s': %s",
                 path, side, strerror(errno));
    if (!r && rename(tmp, path) != 0)
        r = terr(err, errlen, "cannot rename '%s' to '%s': %s", tmp, path,
                 strerror(errno));
    if (r) {
        unlink(tmp);
        if (stmp)
            unlink(stmp);
    }
    free(tmp);
    free(stmp);
    free(side);
    return r;
}

int tensor_write_fp(FILE *fp, const char *path, const tensor *const *ts,
                    const char *const *keys, size_t count, int flags,
                    char *err, size_t errlen)
{
    struct wctx c = {path, ts, keys, count, flags, NULL, 0, TENSOR_NPY, NULL};
    if (prepare(&c, err, errlen))
        return -1;
    if (fill_main(fp, &c, err, errlen))
        return -1;
    if (ferror(fp) || fflush(fp) != 0)
        return terr(err, errlen, "%s: write error: %s", path,
                    strerror(errno ? errno : EIO));
    return 0;
}

int tensor_write(const char *path, const tensor *const *ts,
                 const char *const *keys, size_t count, int compress,
                 char *err, size_t errlen)
{
    return tensor_write_meta(path, ts, keys, count,
                             compress ? TENSOR_WRITE_DEFLATE : 0, NULL, 0, err,
                             errlen);
}

int tensor_read_model(const char *spec, char **line, char *err, size_t errlen)
{
    *line = NULL;
    char *path, *key;
    if (tensor_spec_split(spec, &path, &key))
        return terr(err, errlen, "%s: out of memory", spec);
    free(key);
    tensor_file *tf;
    int r = tensor_file_open(&tf, path, err, errlen);
    if (r) {
        free(path);
        return -1;
    }
    if (tf->kind == TENSOR_SAFETENSORS) {
        const char *v = tensor_file_meta(tf, TENSOR_MODEL_KEY);
        if (v && !(*line = strdup(v)))
            r = terr(err, errlen, "%s: out of memory", path);
        tensor_file_close(tf);
        free(path);
        return r;
    }
    tensor_file_close(tf);
    size_t sl = strlen(path) + 8;
    char *side = malloc(sl);
    if (!side) {
        free(path);
        return terr(err, errlen, "%s: out of memory", spec);
    }
    snprintf(side, sl, "%s.model", path);
    FILE *fp = fopen(side, "r");
    if (!fp) {
        r = errno == ENOENT ? 0 : terr(err, errlen, "%s: cannot open: %s",
                                       side, strerror(errno));
    } else {
        char *buf = NULL;
        size_t cap = 0;
        ssize_t got = getline(&buf, &cap, fp);
        if (got < 0) {
            free(buf);
            if (ferror(fp))
                r = terr(err, errlen, "%s: read error", side);
        } else {
            while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
                buf[--got] = 0;
            if (memchr(buf, 0, (size_t)got)) {
                free(buf);
                r = terr(err, errlen, "%s: NUL byte in the model line", side);
            } else {
                *line = buf;
            }
        }
        fclose(fp);
    }
    free(side);
    free(path);
    return r;
}
