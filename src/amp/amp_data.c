/*
 * amp_data.c — CSV (optionally gzip-compressed) feature tables.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FPLAB_HAVE_ZLIB
#include <zlib.h>
#endif
#include "amp_err.h"
#include "amp_data.h"


void amp_dataset_free(amp_dataset *d)
{
    free(d->x);
    free(d->y);
    memset(d, 0, sizeof *d);
}

/* Split one line into fields at commas; returns the field count and the
 * start/end of each (trimmed of blanks), at most cap. */
static size_t split_fields(const char *s, const char *end, const char **fs,
                           const char **fe, size_t cap)
{
    size_t nf = 0;
    const char *p = s;
    for (;;) {
        const char *q = p;
        while (q < end && *q != ',')
            q++;
        const char *a = p, *b = q;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
            b--;
        if (nf < cap) {
            fs[nf] = a;
            fe[nf] = b;
        }
        nf++;
        if (q >= end)
            break;
        p = q + 1;
    }
    return nf;
}

/* Parse a whole field as a finite double; -1 if it is not one, -2 if it
 * is beyond binary32's range. */
static int field_number(const char *a, const char *b, double *v)
{
    char buf[64];
    size_t len = (size_t)(b - a);
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, a, len);
    buf[len] = 0;
    char *endp;
    errno = 0;
    double x = strtod(buf, &endp);
    if (*endp || !isfinite(x))
        return -1;
    /* features are held in binary32: a value beyond its range would become
     * an infinity and poison training silently */
    if (fabs(x) > FLT_MAX)
        return -2;
    *v = x;
    return 0;
}

#define AMP_MAX_FIELDS 100000

int amp_dataset_parse_csv(amp_dataset *d, const char *name, const char *text,
                          size_t len, int label_pos, double feature_scale,
                          char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (label_pos != AMP_LABEL_LAST && label_pos != AMP_LABEL_FIRST)
        return amp_errorf(err, errlen, "%s: bad label position", name);
    if (!(feature_scale >= 0) || !isfinite(feature_scale))
        return amp_errorf(err, errlen, "%s: bad feature scale", name);
    const char **fs = malloc(AMP_MAX_FIELDS * sizeof *fs);
    const char **fe = malloc(AMP_MAX_FIELDS * sizeof *fe);
    size_t cap_rows = 0, nf_expected = 0;
    int rc = -1;
    if (!fs || !fe) {
        amp_errorf(err, errlen, "%s: out of memory", name);
        goto out;
    }
    const char *p = text, *end = text + len;
    size_t line = 0;
    int maxlabel = -1;
    while (p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (!q)
            q = end;
        line++;
        const char *ls = p;
        p = q + 1;
        /* blank lines (only whitespace) are skipped */
        const char *t = ls;
        while (t < q && (*t == ' ' || *t == '\t' || *t == '\r'))
            t++;
        if (t == q)
            continue;
        if (memchr(ls, 0, (size_t)(q - ls))) {
            amp_errorf(err, errlen, "%s:%zu: NUL byte (binary data?)", name, line);
            goto out;
        }
        size_t nf = split_fields(ls, q, fs, fe, AMP_MAX_FIELDS);
        if (nf > AMP_MAX_FIELDS) {
            amp_errorf(err, errlen, "%s:%zu: %zu fields, more than %d", name, line,
                 nf, AMP_MAX_FIELDS);
            goto out;
        }
        if (nf < 2) {
            amp_errorf(err, errlen, "%s:%zu: 1 field; need features and a label",
                 name, line);
            goto out;
        }
        /* A first line with a non-numeric field is a header (MNIST CSVs
         * often start with "label,pixel0,..."). */
        if (d->n == 0 && nf_expected == 0) {
            double v;
            int numeric = 1;
            for (size_t i = 0; i < nf && numeric; i++)
                numeric = field_number(fs[i], fe[i], &v) != -1;  /* -2: a number, out of range */
            if (!numeric && line == 1)
                continue;
        }
        if (nf_expected == 0)
            nf_expected = nf;
        else if (nf != nf_expected) {
            amp_errorf(err, errlen, "%s:%zu: %zu fields, expected %zu as on the "
                 "first data line", name, line, nf, nf_expected);
            goto out;
        }
        if (d->n == cap_rows) {
            size_t nc = cap_rows ? 2 * cap_rows : 1024;
            float *nx = realloc(d->x, nc * (nf - 1) * sizeof *nx);
            if (nx)
                d->x = nx;
            int *ny = realloc(d->y, nc * sizeof *ny);
            if (ny)
                d->y = ny;
            if (!nx || !ny) {
                amp_errorf(err, errlen, "%s:%zu: out of memory", name, line);
                goto out;
            }
            cap_rows = nc;
        }
        size_t li = label_pos == AMP_LABEL_FIRST ? 0 : nf - 1;
        float *row = d->x + d->n * (nf - 1);
        size_t j = 0;
        for (size_t i = 0; i < nf; i++) {
            double v;
            int bad = field_number(fs[i], fe[i], &v);
            if (bad) {
                int fl = (int)(fe[i] - fs[i]);
                amp_errorf(err, errlen, "%s:%zu: field %zu: '%.*s' %s", name, line,
                     i + 1, fl > 40 ? 40 : fl, fs[i],
                     bad == -2 ? "is beyond binary32's range"
                               : "is not a number");
                goto out;
            }
            if (i == li) {
                if (v != floor(v) || v < 0 || v > 1023) {
                    amp_errorf(err, errlen, "%s:%zu: field %zu: label %g is not "
                         "an integer in 0..1023", name, line, i + 1, v);
                    goto out;
                }
                d->y[d->n] = (int)v;
                if ((int)v > maxlabel)
                    maxlabel = (int)v;
            } else {
                row[j++] = (float)v;
            }
        }
        d->n++;
    }
    if (d->n == 0) {
        amp_errorf(err, errlen, "%s: no data rows", name);
        goto out;
    }
    d->dim = nf_expected - 1;
    d->classes = maxlabel + 1;
    if (d->classes < 2) {
        amp_errorf(err, errlen, "%s: only one class (label %d) in the data", name,
             maxlabel);
        goto out;
    }
    double sc = feature_scale;
    if (sc == 0) {
        for (size_t i = 0; i < d->n * d->dim; i++)
            if (fabs(d->x[i]) > sc)
                sc = fabs(d->x[i]);
        if (sc == 0)
            sc = 1;
    }
    for (size_t i = 0; i < d->n * d->dim; i++)
        d->x[i] = (float)(d->x[i] / sc);
    rc = 0;
out:
    free(fs);
    free(fe);
    if (rc)
        amp_dataset_free(d);
    return rc;
}

/* slurp's input: through zlib when built with it (gzread passes plain
 * files through unchanged), else stdio. */
#ifdef FPLAB_HAVE_ZLIB
typedef gzFile in_file;
#define in_open(path) gzopen(path, "rb")
#define in_close(f) gzclose(f)
#else
typedef FILE *in_file;
#define in_open(path) fopen(path, "rb")
#define in_close(f) fclose(f)
#endif

/* At most 2^30 bytes of f into p: how many, 0 at the end of the data, or
 * -1 with the message in err. */
static long in_read(in_file f, char *p, size_t n, const char *path,
                    char *err, size_t errlen)
{
    const size_t want = n > (1u << 30) ? (1u << 30) : n;
#ifdef FPLAB_HAVE_ZLIB
    int got = gzread(f, p, (unsigned)want);
    int zerr = Z_OK;
    const char *msg;
    if (got > 0)
        return got;
    msg = gzerror(f, &zerr);
    if (got < 0) {
        if (zerr == Z_ERRNO)
            amp_errorf(err, errlen, "%s: read error: %s", path,
                       strerror(errno));
        else
            amp_errorf(err, errlen, "%s: corrupt gzip data: %s", path, msg);
        return -1;
    }
    /* end of data: a truncated or corrupt gzip stream says so here */
    if (zerr != Z_OK && zerr != Z_STREAM_END) {
        amp_errorf(err, errlen, "%s: corrupt gzip data: %s", path, msg);
        return -1;
    }
    return 0;
#else
    size_t got = fread(p, 1, want, f);
    if (got == 0 && ferror(f)) {
        amp_errorf(err, errlen, "%s: read error", path);
        return -1;
    }
    return (long)got;
#endif
}

/* Read a whole file (see in_file). */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    in_file f;
    long got;
    if (!buf) {
        amp_errorf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    f = in_open(path);
    if (!f) {
        amp_errorf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        free(buf);
        return NULL;
    }
    do {
        if (n == cap) {
            char *nb = cap > (SIZE_MAX / 2) ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                amp_errorf(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
            cap *= 2;
        }
        got = in_read(f, buf + n, cap - n, path, err, errlen);
        if (got < 0)
            goto fail;
        n += (size_t)got;
    } while (got > 0);
    in_close(f);
#ifndef FPLAB_HAVE_ZLIB
    if (n >= 2 && (unsigned char)buf[0] == 0x1f &&
        (unsigned char)buf[1] == 0x8b) {
        amp_errorf(err, errlen, "%s: gzip-compressed, and this build has no zlib: "
             "gunzip it first", path);
        free(buf);
        return NULL;
    }
#endif
    *len = n;
    return buf;
fail:
    in_close(f);
    free(buf);
    return NULL;
}

int amp_dataset_read_csv(amp_dataset *d, const char *path, int label_pos,
                         double feature_scale, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    size_t len = 0;
    char *text = slurp(path, &len, err, errlen);
    if (!text)
        return -1;
    int rc = amp_dataset_parse_csv(d, path, text, len, label_pos,
                                   feature_scale, err, errlen);
    free(text);
    return rc;
}

uint64_t amp_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void amp_permutation(size_t *perm, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        /* unbiased enough for n << 2^64: multiply-shift range reduction */
        size_t j = (size_t)(((unsigned __int128)amp_splitmix64(&s) * i) >> 64);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

int amp_dataset_parse_text(amp_dataset *d, const char *name,
                           const char *text, size_t len, int context,
                           char **vocab, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (vocab)
        *vocab = NULL;
    if (context < 1 || context > 64) {
        amp_errorf(err, errlen, "%s: context must be 1..64 characters, not %d",
                   name, context);
        return -1;
    }
    /* normalise: lower-case ASCII letters, whitespace runs to one space */
    unsigned char *t = malloc(len ? len : 1);
    if (!t) {
        amp_errorf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v') {
            if (n && t[n - 1] != ' ')
                t[n++] = ' ';
            continue;
        }
        t[n++] = c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
    }
    int cls[256], V = 0;
    for (int c = 0; c < 256; c++)
        cls[c] = -1;
    for (size_t i = 0; i < n; i++)
        cls[t[i]] = 0;
    for (int c = 0; c < 256; c++)
        if (cls[c] == 0)
            cls[c] = V++;
    if (n <= (size_t)context + 1 || V < 2) {
        amp_errorf(err, errlen, "%s: %zu characters and %d distinct after "
                   "normalising: too short for a context of %d", name, n, V,
                   context);
        free(t);
        return -1;
    }
    d->n = n - (size_t)context;
    d->dim = (size_t)context * (size_t)V;
    d->classes = V;
    d->x = calloc(d->n * d->dim, sizeof *d->x);
    d->y = malloc(d->n * sizeof *d->y);
    char *vs = vocab ? malloc((size_t)V + 1) : NULL;
    if (!d->x || !d->y || (vocab && !vs)) {
        amp_errorf(err, errlen, "%s: out of memory for %zu rows of %zu "
                   "features", name, d->n, d->dim);
        free(vs);
        free(t);
        amp_dataset_free(d);
        return -1;
    }
    for (size_t r = 0; r < d->n; r++) {
        float *x = d->x + r * d->dim;
        for (int j = 0; j < context; j++)
            x[(size_t)j * (size_t)V + (size_t)cls[t[r + (size_t)j]]] = 1.0f;
        d->y[r] = cls[t[r + (size_t)context]];
    }
    if (vs) {
        for (int c = 0; c < 256; c++)
            if (cls[c] >= 0)
                vs[cls[c]] = (char)c;
        vs[V] = '\0';
        *vocab = vs;
    }
    free(t);
    return 0;
}

int amp_dataset_from_text(amp_dataset *d, const char *path, int context,
                          char **vocab, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    if (vocab)
        *vocab = NULL;
    size_t len = 0;
    char *text = slurp(path, &len, err, errlen);
    if (!text)
        return -1;
    int rc = amp_dataset_parse_text(d, path, text, len, context, vocab, err,
                                    errlen);
    free(text);
    return rc;
}
