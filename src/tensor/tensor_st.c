/*
 * tensor_st.c — safetensors files (huggingface/safetensors, "Format"):
 *
 *   8 bytes      N, the header length, unsigned little-endian
 *   N bytes      a UTF-8 JSON object: for each tensor name
 *                {"dtype": "F16", "shape": [2, 3], "data_offsets": [b, e]}
 *                and optionally "__metadata__": {string: string}; the
 *                header begins with '{' and may be padded with spaces
 *   the rest     the data area; tensor bytes [b, e) of it, C order,
 *                little-endian.  The tensors cover the area exactly: no
 *                overlap, no hole, nothing after the last one.
 *
 * The JSON is parsed by jansson (duplicate keys rejected); errors give the
 * byte position, line and column jansson reports.  Every tensor's
 * byte count (shape product times dtype size, overflow checked) must equal
 * its data_offsets span.  Tensors of a dtype fplab does not know (F8_E8M0,
 * C64, ...) are listed and their offsets checked; reading one is an error.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_impl.h"

/* The reference implementation refuses headers over 100 MB. */
#define ST_MAX_HEADER (100u << 20)

static int st_dtype(const char *s)
{
    for (int d = 0; d < TENSOR_DTYPE_COUNT; d++)
        if (!strcmp(s, tensor_dtype_st_name((tensor_dtype)d)))
            return d;
    return -1;
}

static const char *jtype(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* A non-negative JSON integer. */
static int juint(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int parse_member(tensor_file *tf, const char *key, json_t *v,
                        tmember *m, char *err, size_t errlen)
{
    const char *nm = tf->name;
    if (!json_is_object(v))
        return terr(err, errlen, "%s: tensor '%s' is %s in the header, not an "
                    "object with dtype, shape, data_offsets", nm, key,
                    jtype(v));
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x) {
        if (strcmp(k, "dtype") && strcmp(k, "shape") && strcmp(k, "data_offsets"))
            return terr(err, errlen, "%s: tensor '%s' has an unknown field "
                        "'%s' (a safetensors tensor has dtype, shape, "
                        "data_offsets)", nm, key, k);
    }
    json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"),
           *of = json_object_get(v, "data_offsets");
    if (!dt || !sh || !of)
        return terr(err, errlen, "%s: tensor '%s' lacks '%s'", nm, key,
                    !dt ? "dtype" : !sh ? "shape" : "data_offsets");
    if (!json_is_string(dt))
        return terr(err, errlen, "%s: tensor '%s': dtype is %s, not a string",
                    nm, key, jtype(dt));
    if (!(m->st_dname = strdup(json_string_value(dt))) ||
        !(m->key = strdup(key)))
        return terr(err, errlen, "%s: out of memory", nm);
    m->st_dtype = st_dtype(m->st_dname);
    if (!json_is_array(sh))
        return terr(err, errlen, "%s: tensor '%s': shape is %s, not an array",
                    nm, key, jtype(sh));
    if (json_array_size(sh) > TENSOR_MAXDIM)
        return terr(err, errlen, "%s: tensor '%s': %zu dimensions (fplab reads "
                    "at most %d)", nm, key, json_array_size(sh), TENSOR_MAXDIM);
    m->ndim = (int)json_array_size(sh);
    for (int i = 0; i < m->ndim; i++) {
        uint64_t d;
        if (juint(json_array_get(sh, (size_t)i), &d) || d > SIZE_MAX)
            return terr(err, errlen, "%s: tensor '%s': shape[%d] is not a "
                        "non-negative integer", nm, key, i);
        m->shape[i] = (size_t)d;
    }
    if (!json_is_array(of) || json_array_size(of) != 2 ||
        juint(json_array_get(of, 0), &m->begin) ||
        juint(json_array_get(of, 1), &m->end))
        return terr(err, errlen, "%s: tensor '%s': data_offsets must be [begin, "
                    "end], two non-negative integers", nm, key);
    if (m->begin > m->end)
        return terr(err, errlen, "%s: tensor '%s': data_offsets [%llu, %llu] "
                    "end before they begin", nm, key,
                    (unsigned long long)m->begin, (unsigned long long)m->end);
    char shp[256];
    fl_tensor_shape_text(m->shape, m->ndim, shp, sizeof shp);
    size_t n, bytes;
    if (m->st_dtype >= 0) {
        if (tshape_count(m->shape, m->ndim,
                         tensor_dtype_size((tensor_dtype)m->st_dtype), &n,
                         &bytes))
            return terr(err, errlen, "%s: tensor '%s': shape product overflows "
                        "(shape %s)", nm, key, shp);
        if (m->end - m->begin != bytes)
            return terr(err, errlen, "%s: tensor '%s': shape %s of %s is %zu "
                        "bytes but data_offsets [%llu, %llu] span %llu", nm,
                        key, shp, m->st_dname, bytes,
                        (unsigned long long)m->begin,
                        (unsigned long long)m->end,
                        (unsigned long long)(m->end - m->begin));
    }
    return 0;
}

static int cmp_begin(const void *a, const void *b)
{
    const tmember *x = *(tmember *const *)a, *y = *(tmember *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The header's __metadata__ v, an object of strings, into tf->meta_k and
 * tf->meta_v (tf->nmeta pairs).  0, or -1 with the message; what was
 * allocated is in tf either way. */
static int read_metadata(tensor_file *tf, json_t *v, char *err,
                         size_t errlen)
{
    const char *nm = tf->name, *mk;
    json_t *mv;
    size_t n;
    if (!json_is_object(v))
        return terr(err, errlen, "%s: __metadata__ is %s, not an object of "
                    "strings", nm, jtype(v));
    n = json_object_size(v);
    tf->meta_k = calloc(n ? n : 1, sizeof *tf->meta_k);
    tf->meta_v = calloc(n ? n : 1, sizeof *tf->meta_v);
    if (!tf->meta_k || !tf->meta_v)
        return terr(err, errlen, "%s: out of memory", nm);
    json_object_foreach(v, mk, mv) {
        if (!json_is_string(mv))
            return terr(err, errlen, "%s: __metadata__ '%s' is %s, not a "
                        "string", nm, mk, jtype(mv));
        tf->meta_k[tf->nmeta] = strdup(mk);
        tf->meta_v[tf->nmeta] = strdup(json_string_value(mv));
        tf->nmeta++;
        if (!tf->meta_k[tf->nmeta - 1] || !tf->meta_v[tf->nmeta - 1])
            return terr(err, errlen, "%s: out of memory", nm);
    }
    return 0;
}

int tst_open(tensor_file *tf, char *err, size_t errlen)
{
    const char *nm = tf->name;
    uint64_t size = tf->src.size;
    unsigned char lb[8];
    if (size < 8 || tsrc_read(&tf->src, 0, lb, 8, NULL))
        return terr(err, errlen, "%s: truncated safetensors file: ends inside "
                    "the 8-byte header length", nm);
    uint64_t hl = rd64(lb);
    if (hl > size - 8)
        return terr(err, errlen, "%s: truncated safetensors file: the header "
                    "length says %llu bytes but only %llu follow", nm,
                    (unsigned long long)hl, (unsigned long long)(size - 8));
    if (hl > ST_MAX_HEADER)
        return terr(err, errlen, "%s: oversized safetensors header: %llu bytes "
                    "(at most %u accepted)", nm, (unsigned long long)hl,
                    ST_MAX_HEADER);
    char *hb = malloc(hl ? (size_t)hl : 1);
    if (!hb)
        return terr(err, errlen, "%s: out of memory", nm);
    if (tsrc_read(&tf->src, 8, hb, (size_t)hl, NULL)) {
        free(hb);
        return terr(err, errlen, "%s: read error: %s", nm, strerror(errno));
    }
    json_error_t je;
    json_t *root = json_loadb(hb, (size_t)hl, JSON_REJECT_DUPLICATES, &je);
    free(hb);
    if (!root)
        return terr(err, errlen, "%s: bad JSON in the safetensors header at "
                    "byte %d of the header (file offset %d, line %d, column "
                    "%d): %s", nm, je.position, je.position + 8, je.line,
                    je.column, je.text);
    int r = 0;
    tmember **order = NULL;
    if (!json_is_object(root)) {
        r = terr(err, errlen, "%s: the safetensors header is %s, not an "
                 "object", nm, jtype(root));
        goto out;
    }
    size_t nk = json_object_size(root);
    tf->m = calloc(nk ? nk : 1, sizeof *tf->m);
    order = calloc(nk ? nk : 1, sizeof *order);
    if (!tf->m || !order) {
        r = terr(err, errlen, "%s: out of memory", nm);
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (!strcmp(key, "__metadata__")) {
            if (read_metadata(tf, v, err, errlen)) {
                r = -1;
                goto out;
            }
            continue;
        }
        tmember *m = &tf->m[tf->count++];
        if (parse_member(tf, key, v, m, err, errlen)) {
            r = -1;
            goto out;
        }
    }
    /* the tensors tile the data area exactly */
    uint64_t area = size - 8 - hl;
    tf->st_data = 8 + hl;
    for (size_t i = 0; i < tf->count; i++) {
        order[i] = &tf->m[i];
        if (tf->m[i].end > area) {
            r = terr(err, errlen, "%s: tensor '%s': data_offsets [%llu, %llu] "
                     "run past the %llu-byte data area (truncated file?)", nm,
                     tf->m[i].key, (unsigned long long)tf->m[i].begin,
                     (unsigned long long)tf->m[i].end,
                     (unsigned long long)area);
            goto out;
        }
    }
    qsort(order, tf->count, sizeof *order, cmp_begin);
    uint64_t at = 0;
    const tmember *prev = NULL;
    for (size_t i = 0; i < tf->count; i++) {
        const tmember *m = order[i];
        if (m->begin < at) {
            r = terr(err, errlen, "%s: tensors '%s' and '%s' overlap: bytes "
                     "[%llu, %llu) and [%llu, %llu) of the data area", nm,
                     prev->key, m->key, (unsigned long long)prev->begin,
                     (unsigned long long)prev->end,
                     (unsigned long long)m->begin, (unsigned long long)m->end);
            goto out;
        }
        if (m->begin > at) {
            r = terr(err, errlen, "%s: a hole in the data area: bytes [%llu, "
                     "%llu) belong to no tensor (before '%s')", nm,
                     (unsigned long long)at, (unsigned long long)m->begin,
                     m->key);
            goto out;
        }
        at = m->end;
        if (m->end > m->begin)
            prev = m;
        else if (!prev)
            prev = m;
    }
    if (at != area) {
        r = terr(err, errlen, "%s: %llu bytes after the last tensor's data "
                 "(the data area is %llu bytes, the tensors cover %llu)", nm,
                 (unsigned long long)(area - at), (unsigned long long)area,
                 (unsigned long long)at);
        goto out;
    }
out:
    free(order);
    json_decref(root);
    return r;
}

int tst_get(const tensor_file *tfc, const tmember *m, tensor *t, char *err,
            size_t errlen)
{
    tensor_file *tf = (tensor_file *)tfc;
    size_t nl = strlen(tf->name) + strlen(m->key) + 2;
    char *name = malloc(nl);
    if (!name)
        return terr(err, errlen, "%s: out of memory", tf->name);
    snprintf(name, nl, "%s:%s", tf->name, m->key);
    if (m->st_dtype < 0) {
        terr(err, errlen, "%s: unknown dtype '%s' (fplab reads BOOL U8 I8 U16 "
             "I16 U32 I32 U64 I64 F16 BF16 F32 F64 F8_E4M3 F8_E5M2)", name,
             m->st_dname);
        free(name);
        return -1;
    }
    size_t bytes = (size_t)(m->end - m->begin);
    unsigned char *d = malloc(bytes ? bytes : 1);
    if (!d) {
        terr(err, errlen, "%s: out of memory for %zu bytes", name, bytes);
        free(name);
        return -1;
    }
    int io;
    if (tsrc_read(&tf->src, tf->st_data + m->begin, d, bytes, &io)) {
        terr(err, errlen, "%s: read error: %s", name,
             io ? strerror(errno) : "range outside the file");
        free(d);
        free(name);
        return -1;
    }
    t->dtype = (tensor_dtype)m->st_dtype;
    t->ndim = m->ndim;
    memcpy(t->shape, m->shape, sizeof t->shape);
    /* the shape's product was checked against the span at open */
    (void)tshape_count(t->shape, t->ndim, 1, &t->n, NULL);
    t->data = d;
    t->source = name;
    snprintf(t->descr, sizeof t->descr, "%s", tensor_dtype_st_name(t->dtype));
    return 0;
}

/* ---------------------------------------------------------------------
 * Writing.
 * ------------------------------------------------------------------- */

int tst_write(FILE *fp, const tensor *const *ts, const char *const *keys,
              size_t count, const tensor_meta *meta, size_t nmeta,
              const char *path, char *err, size_t errlen)
{
    int r = 0;
    json_t *root = json_object();
    size_t *order = malloc((count ? count : 1) * sizeof *order);
    uint64_t *off = malloc((count ? count : 1) * sizeof *off);
    char *js = NULL;
    if (!root || !order || !off) {
        r = terr(err, errlen, "%s: out of memory", path);
        goto out;
    }
    if (nmeta) {
        json_t *md = json_object();
        if (!md || json_object_set_new(root, "__metadata__", md)) {
            r = terr(err, errlen, "%s: out of memory", path);
            goto out;
        }
        for (size_t i = 0; i < nmeta; i++)
            if (json_object_set_new(md, meta[i].key,
                                    json_string(meta[i].value))) {
                r = terr(err, errlen, "%s: metadata '%s' is not valid UTF-8",
                         path, meta[i].key);
                goto out;
            }
    }
    /* data in order of decreasing element size (stable), so every tensor
     * starts at a multiple of its element size (the header is padded to 8) */
    size_t k = 0;
    for (size_t w = 8; w >= 1; w /= 2)
        for (size_t i = 0; i < count; i++)
            if (tensor_dtype_size(ts[i]->dtype) == w)
                order[k++] = i;
    uint64_t at = 0;
    for (size_t j = 0; j < count; j++) {
        size_t i = order[j];
        off[i] = at;
        at += (uint64_t)ts[i]->n * tensor_dtype_size(ts[i]->dtype);
    }
    for (size_t i = 0; i < count; i++) {
        json_t *o = json_object(), *sh = json_array(), *of = json_array();
        if (!o || !sh || !of) {
            json_decref(o);
            json_decref(sh);
            json_decref(of);
            r = terr(err, errlen, "%s: out of memory", path);
            goto out;
        }
        for (int d = 0; d < ts[i]->ndim; d++)
            json_array_append_new(sh, json_integer((json_int_t)ts[i]->shape[d]));
        uint64_t e = off[i] + (uint64_t)ts[i]->n * tensor_dtype_size(ts[i]->dtype);
        json_array_append_new(of, json_integer((json_int_t)off[i]));
        json_array_append_new(of, json_integer((json_int_t)e));
        json_object_set_new(o, "dtype",
                            json_string(tensor_dtype_st_name(ts[i]->dtype)));
        json_object_set_new(o, "shape", sh);
        json_object_set_new(o, "data_offsets", of);
        if (json_object_set_new(root, keys[i], o)) {
            r = terr(err, errlen, "%s: key '%s' is not valid UTF-8", path,
                     keys[i]);
            goto out;
        }
    }
    js = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!js) {
        r = terr(err, errlen, "%s: out of memory", path);
        goto out;
    }
    size_t jl = strlen(js), pad = (8 - jl % 8) % 8;
    unsigned char lb[8];
    wr64(lb, jl + pad);
    static const char spaces[8] = "        ";
    if (fwrite(lb, 1, 8, fp) != 8 || fwrite(js, 1, jl, fp) != jl ||
        (pad && fwrite(spaces, 1, pad, fp) != pad)) {
        r = terr(err, errlen, "%s: write error: %s", path,
                 strerror(errno ? errno : EIO));
        goto out;
    }
    for (size_t j = 0; j < count; j++) {
        const tensor *t = ts[order[j]];
        size_t b = t->n * tensor_dtype_size(t->dtype);
        if (b && fwrite(t->data, 1, b, fp) != b) {
            r = terr(err, errlen, "%s: write error: %s", path,
                     strerror(errno ? errno : EIO));
            goto out;
        }
    }
out:
    free(js);
    free(order);
    free(off);
    json_decref(root);
    return r;
}
