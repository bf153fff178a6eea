/*
 * op_text.c — operands from text and the evaluation `fplab calc` prints
 * (fplab/ops.h: fl_op_read, fl_op_calc).
 *
 * Reading a number into a format is itself a rounding: to nearest even,
 * under the caller's NaN preset, with the flags of that rounding handed
 * back so that the caller can say when an operand was not exact.  Only
 * `round` reads its number in the caller's mode: there the reading is the
 * operation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fplab/ops.h"
#include "ops_internal.h"

/* ops_internal.h; the operands' integers and the command's options. */
int fl__parse_u64(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    unsigned base = 10;
    const char *p = s;
    if (s == NULL || *p == '\0')
        return -1;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        if (*p == '\0')
            return -1;
    }
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return -1;
        /* x * base + d must stay below 2^64 */
        if (x > (UINT64_MAX - d) / base)
            return -1;
        x = x * base + d;
    }
    *v = x;
    return 0;
}

/* Raw bits after "bits:": 0x-hex, 0b-binary (at most 64 digits) or
 * decimal; 0 or -1. */
static int read_bits(const char *s, uint64_t *v)
{
    if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        uint64_t x = 0;
        const char *p = s + 2;
        if (*p == '\0' || strlen(p) > 64)
            return -1;
        for (; *p; p++) {
            if (*p != '0' && *p != '1')
                return -1;
            x = (x << 1) | (uint64_t)(*p - '0');
        }
        *v = x;
        return 0;
    }
    return fl__parse_u64(s, v);
}

/* The message into err; returns -1. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* An integer operand: optional '-', then decimal or 0x-hex, in range. */
static int read_int(fl_op_type t, int k, const char *s, uint64_t *out,
                    char *err, size_t errlen)
{
    static const char *const tn[] = {"int32", "uint32", "int64", "uint64"};
    const int neg = s[0] == '-';
    uint64_t mag;
    int ok;
    if (fl__parse_u64(s + neg, &mag) != 0)
        return fail(err, errlen, "operand %d '%s' is not an integer "
                    "(decimal or 0x-hex, optional '-')", k, s);
    switch (t) {
    case FL_OPT_I32: ok = neg ? mag <= 0x80000000u : mag <= 0x7FFFFFFFu; break;
    case FL_OPT_U32: ok = mag <= 0xFFFFFFFFu && (!neg || mag == 0); break;
    case FL_OPT_I64:
        ok = neg ? mag <= UINT64_C(0x8000000000000000)
                 : mag <= UINT64_C(0x7FFFFFFFFFFFFFFF);
        break;
    default: ok = !neg || mag == 0; break;
    }
    if (!ok)
        return fail(err, errlen, "operand %d '%s' is out of range for %s",
                    k, s, tn[t - FL_OPT_I32]);
    /* two's complement of the type's width, zero-extended */
    const uint64_t v = neg ? (uint64_t)0 - mag : mag;
    *out = (t == FL_OPT_I32 || t == FL_OPT_U32) ? (uint32_t)v : v;
    return 0;
}

int fl_op_read(const fl_op *op, int k, const char *text, const fl_format *f,
               const fl_format *src, const fl_ctx *c, uint64_t *out,
               unsigned *read_flags, char *err, size_t errlen)
{
    const int pos = k + 1;
    *read_flags = 0;
    if (op->in >= FL_OPT_I32 && op->in <= FL_OPT_U64)
        return read_int(op->in, pos, text, out, err, errlen);
    const fl_format *of = op->in == FL_OPT_SOURCE ? src : f;
    if (of == NULL)
        return fail(err, errlen, "operand %d '%s': %s needs the operand's "
                    "format", pos, text, op->name);
    if (!strncmp(text, "bits:", 5)) {
        uint64_t v;
        if (read_bits(text + 5, &v) != 0)
            return fail(err, errlen, "operand %d '%s': not a bit pattern "
                        "(bits:0xHEX, bits:0bBINARY or bits:DECIMAL)", pos,
                        text);
        if (of->width < 64 && (v >> of->width) != 0)
            return fail(err, errlen, "operand %d '%s' does not fit in %s "
                        "(%d bits)", pos, text, of->name, of->width);
        *out = v;
        return 0;
    }
    fl_ctx pc = FL_CTX_INIT;
    pc.nan = c->nan;
    if (fl_parse(of, text, &pc, read_flags, out) != 0)
        return fail(err, errlen, "operand %d '%s' is not a number (decimal, "
                    "hex-float like -0x1.8p-14, inf, nan, snan, or "
                    "bits:0xHEX)", pos, text);
    return 0;
}

int fl_op_calc(const fl_op *op, const char *const *text, const fl_format *f,
               const fl_format *src, int exact, const fl_ctx *c,
               fl_op_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (op->in == FL_OPT_SOURCE && src == NULL)
        return fail(err, errlen, "%s needs the operand's format (a source "
                    "format)", op->name);
    if ((op->props & FL_OPF_NUMBER) && strncmp(text[0], "bits:", 5) != 0) {
        /* the reading is the operation: in c's mode, with its flags */
        if (fl_parse(f, text[0], c, &r->flags, &r->value) != 0)
            return fail(err, errlen, "operand 1 '%s' is not a number "
                        "(decimal, hex-float, inf, nan, snan, or "
                        "bits:0xHEX)", text[0]);
        r->nread = 1;
        r->in[0] = r->value;
        return 0;
    }
    for (int k = 0; k < op->nin; k++) {
        if (fl_op_read(op, k, text[k], f, src, c, &r->in[k],
                       &r->read_flags[k], err, errlen) != 0)
            return -1;
        r->nread = k + 1;
    }
    r->value = fl_op_eval(op->code, f, src, r->in, exact, c, &r->flags);
    return 0;
}
