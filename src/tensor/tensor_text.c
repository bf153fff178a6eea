/*
 * tensor_text.c — the headerless inputs: raw little-endian elements, and
 * numbers as text (float64), and the reader that takes a tensor file or
 * text by what the file holds (tensor_read_any).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_impl.h"

/* A 1-D tensor of n elements of dtype over data (taken over); the source
 * is path. */
static int set_vector(tensor *t, tensor_dtype dtype, tensor_container c,
                      unsigned char *data, size_t n, const char *path,
                      char *err, size_t errlen)
{
    t->dtype = dtype;
    t->ndim = 1;
    t->shape[0] = n;
    t->n = n;
    t->data = data;
    t->container = c;
    if (!(t->source = strdup(path))) {
        tensor_free(t);
        return terr(err, errlen, "%s: out of memory", path);
    }
    return 0;
}

int tensor_read_raw(tensor *t, const char *path, tensor_dtype dtype,
                    const char *dname, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    size_t w = tensor_dtype_size(dtype);
    if (!w)
        return terr(err, errlen, "%s: raw read needs a dtype", path);
    if (!dname)
        dname = tensor_dtype_name(dtype);
    uint64_t size;
    FILE *fp = topen(path, &size, err, errlen);
    if (!fp)
        return -1;
    size_t len = (size_t)size;
    unsigned char *d = malloc(len ? len : 1);
    if (!d) {
        fclose(fp);
        return terr(err, errlen, "%s: out of memory for %zu bytes", path, len);
    }
    size_t got = fread(d, 1, len, fp);
    int bad = ferror(fp) || got != len;
    fclose(fp);
    if (bad) {
        free(d);
        return terr(err, errlen, "%s: read error", path);
    }
    /* a tensor file read as raw values would take its header (or zip
     * directory, or JSON) for data */
    const char *kind = timage_kind(d, len);
    if (kind != NULL) {
        free(d);
        return terr(err, errlen, "%s is %s, not raw %s values (its header "
                    "would be read as data): %s", path, kind, dname,
                    strstr(kind, "PyTorch")
                        ? "fplab reads .npy, .npz and safetensors files"
                        : "read it as a tensor file, without a raw dtype");
    }
    if (len % w) {
        free(d);
        return terr(err, errlen, "%s: %zu bytes is not a whole number of %s "
                    "values (%zu bytes each)", path, len, dname, w);
    }
    return set_vector(t, dtype, TENSOR_RAW, d, len / w, path, err, errlen);
}

static int is_sep(char c)
{
    return c == ',' || c == ';' || c == ' ' || c == '\t';
}

int tensor_read_text(tensor *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return terr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
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
            rc = terr(err, errlen, "%s:%zu: NUL byte in a text file (is it "
                      "binary? use --dtype for raw data)", path, lineno);
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
                rc = terr(err, errlen, "%s:%zu:%d: empty field", path, lineno,
                          field);
                goto out;
            }
            char *endp;
            errno = 0;
            double v = strtod(start, &endp);
            if (endp == start || *endp) {
                rc = terr(err, errlen, "%s:%zu:%d: '%.40s' is not a number",
                          path, lineno, field, start);
                goto out;
            }
            /* ERANGE is fine: overflow gives inf, underflow a tiny value,
             * both are what the text says in binary64. */
            if (n == dcap) {
                size_t nc = dcap ? dcap * 2 : 1024;
                double *nd = realloc(data, nc * sizeof *nd);
                if (!nd) {
                    rc = terr(err, errlen, "%s:%zu: out of memory", path,
                              lineno);
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
                    rc = terr(err, errlen, "%s:%zu:%d: empty field after a "
                              "trailing separator", path, lineno, field + 1);
                    goto out;
                }
            }
        }
    }
    if (!rc && ferror(fp))
        rc = terr(err, errlen, "%s: read error", path);
    if (!rc && n == 0)
        rc = terr(err, errlen, "%s: no numbers in the file", path);
out:
    free(line);
    fclose(fp);
    if (rc) {
        free(data);
        return -1;
    }
    /* the host's double is binary64, little-endian: the bytes as they are */
    return set_vector(t, TENSOR_F64, TENSOR_TEXT, (unsigned char *)data, n,
                      path, err, errlen);
}

int tensor_read_any(tensor *t, const char *spec, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    char *path, *key;
    if (tensor_spec_split(spec, &path, &key))
        return terr(err, errlen, "%s: out of memory", spec);
    int r;
    if (key) {
        r = tensor_read(t, spec, err, errlen);   /* a member: a container */
        goto done;
    }
    uint64_t size;
    FILE *fp = topen(path, &size, err, errlen);
    if (!fp) {
        r = -1;
        goto done;
    }
    unsigned char head[9];
    size_t k = fread(head, 1, sizeof head, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad)
        r = terr(err, errlen, "%s: read error", path);
    else if (k == 0)
        r = terr(err, errlen, "%s: empty file (no numbers, and not a .npy, "
                 ".npz or safetensors file)", path);
    else if (tsniff(head, k) >= 0 || tpickle(head, k))
        r = tensor_read(t, path, err, errlen);   /* a container, or refused */
    else
        r = tensor_read_text(t, path, err, errlen);
done:
    free(path);
    free(key);
    return r;
}
