/*
 * fuzz_common.h — shared pieces of the libFuzzer harnesses: a byte reader
 * over the fuzz input, the choice of a format and a context from it, and
 * quieting of the command-line code's stdout/stderr.
 *
 * Every harness defines LLVMFuzzerTestOneInput.  Built with clang and
 * -fsanitize=fuzzer it is a fuzzer; built with fuzz/driver.c it replays
 * files (seed corpora, regression inputs) in an ordinary test.
 */
#ifndef FPLAB_FUZZ_COMMON_H
#define FPLAB_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fplab/fplab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A cursor over the input; reads past the end give zeros, so every input,
 * however short, decodes to something. */
typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static inline unsigned fz_u8(fz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint64_t fz_u64(fz_in *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)fz_u8(in) << (8 * i);
    return v;
}

/* A format: one of the presets, or a made-up one of any NaN style (IEEE,
 * FN, FINITE, FNUZ, P3109) with 1..11 exponent bits (IEEE 2..11),
 * precision 1..53 (IEEE 2..53), signed or not (FNUZ and P3109 signed),
 * without zero sometimes (unsigned FN / FINITE without subnormals), the
 * IEEE bias or one a little off it (ebits <= 10), with or without
 * subnormals and saturation; or a member of the P3109 family (any
 * signedness and domain).  Consumes 1 byte (preset), 3 (P3109) or 6
 * bytes.  The name is static. */
static inline void fz_format(fz_in *in, fl_format *f)
{
    unsigned sel = fz_u8(in);
    size_t np = fl_format_preset_count();
    char err[256];
    fl_format_params p;
    if (sel >= 96 && sel < 128) {
        /* the IEEE P3109 family: K 3..10, P, signedness, domain */
        const unsigned kb = fz_u8(in), pb = fz_u8(in);
        const int k = 3 + (int)(kb % 8), sg = (kb >> 3) & 1;
        const int pp = 1 + (int)(pb % (unsigned)(k - sg));
        if (fl_format_p3109(f, k, pp, sg, (kb >> 4) & 1, err,
                            sizeof err) == 0)
            return;
        /* outside fplab's range (never for K <= 10): a preset */
    }
    if (sel < 128) {
        *f = *fl_format_preset(sel % np);
        return;
    }
    unsigned eb = fz_u8(in), pb = fz_u8(in), opt = fz_u8(in);
    unsigned st = fz_u8(in), bb = fz_u8(in);
    p.nan_style = (int)(st % FL_NANSTYLE_COUNT);
    if (p.nan_style == FL_NANSTYLE_IEEE) {
        p.ebits = 2 + (int)(eb % 10);
        p.prec = 2 + (int)(pb % 52);
    } else {
        p.ebits = 1 + (int)(eb % 11);
        p.prec = 1 + (int)(pb % 53);
    }
    p.is_signed = p.nan_style == FL_NANSTYLE_FNUZ ||
                  p.nan_style == FL_NANSTYLE_P3109 || (opt & 48) != 48;
    p.subnormals = (opt & 6) != 6;      /* 3 of 4 with subnormals */
    p.saturate = (opt & 8) != 0;
    p.has_zero = 1;
    p.min_gap_up = 0;
    if (!p.is_signed && (opt & 64) && (p.nan_style == FL_NANSTYLE_FN ||
                                       p.nan_style == FL_NANSTYLE_FINITE)) {
        p.has_zero = 0;                 /* E8M0-like */
        p.subnormals = 0;
        p.min_gap_up = (opt & 128) != 0;   /* ml_dtypes' E8M0 rounding */
    }
    if (p.is_signed + p.ebits + p.prec - 1 < 2)
        p.prec = 2;                     /* at least 2 bits */
    if (p.ebits == 1 && p.prec == 1 && (p.nan_style == FL_NANSTYLE_FN ||
                                        p.nan_style == FL_NANSTYLE_P3109))
        p.prec = 2;                     /* else no normal number is left */
    p.bias = FL_BIAS_IEEE;
    if ((bb & 3) == 3 && p.ebits <= 10)
        p.bias = (1 << (p.ebits - 1)) - 1 + (int)((bb >> 2) % 8) - 3;
    if (fl_format_define(f, "fuzz", &p, err, sizeof err) != 0) {
        /* every parameter above is in range: a refusal is a core bug */
        fprintf(stderr, "fl_format_define(e%d p%d bias %d style %d signed %d "
                "zero %d sub %d sat %d gap %d): %s\n", p.ebits, p.prec,
                p.bias, p.nan_style, p.is_signed, p.has_zero, p.subnormals,
                p.saturate, p.min_gap_up, err);
        abort();
    }
}

/* A context with a deterministic mode (never stochastic), tininess, FTZ,
 * DAZ, saturation and NaN preset from one or two bytes. */
static inline fl_ctx fz_ctx(fz_in *in)
{
    unsigned a = fz_u8(in), b = fz_u8(in);
    fl_ctx c = fl_ctx_make((int)(a % 6));
    c.tininess = (a >> 3) & 1;
    c.ftz = (b & 3) == 3;           /* rarely: FTZ hides most of the range */
    c.daz = (b & 12) == 12;
    c.saturate = (b >> 4) & 1;
    c.nan = (uint8_t)((b >> 5) % FL_NANP_COUNT);
    return c;
}

/* The input as a NUL-terminated string (malloc'd; at most max bytes, an
 * embedded NUL ends it early, as it would in argv). */
static inline char *fz_str(const uint8_t *p, size_t n, size_t max)
{
    if (n > max)
        n = max;
    char *s = malloc(n + 1);
    if (s == NULL)
        abort();
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* The command-line code prints results and messages through stdout and
 * stderr; a fuzzer wants neither.  Only the FILE pointers are replaced:
 * file descriptors 1 and 2 stay open for the sanitizers' reports.  Set
 * FPLAB_FUZZ_VERBOSE=1 to keep the output. */
static inline void fz_quiet(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    const char *v = getenv("FPLAB_FUZZ_VERBOSE");
    if (v != NULL && *v == '1')
        return;
    FILE *null = fopen("/dev/null", "w");
    if (null == NULL)
        return;
    stdout = null;
    stderr = null;
}

/* A failed property: print what was found to file descriptor 2 (stderr
 * may be quieted) and abort, so the fuzzer saves the input. */
#define FZ_FAIL(...)                                                        \
    do {                                                                    \
        char fz_msg_[1024];                                                 \
        int fz_len_ = snprintf(fz_msg_, sizeof fz_msg_, __VA_ARGS__);       \
        if (fz_len_ > 0) {                                                  \
            size_t fz_n_ = (size_t)fz_len_ < sizeof fz_msg_ - 1            \
                               ? (size_t)fz_len_ : sizeof fz_msg_ - 1;      \
            fz_msg_[fz_n_] = '\n';                                          \
            fwrite(fz_msg_, 1, fz_n_ + 1, fz_stderr());                     \
        }                                                                   \
        abort();                                                            \
    } while (0)

/* An unbuffered stream on descriptor 2, independent of stderr. */
static inline FILE *fz_stderr(void)
{
    static FILE *fp;
    if (fp == NULL) {
        fp = fdopen(2, "w");
        if (fp == NULL)
            abort();
        setvbuf(fp, NULL, _IONBF, 0);
    }
    return fp;
}

#endif
