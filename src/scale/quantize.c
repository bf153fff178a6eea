/*
 * quantize.c — fl_scale_quantize (argument checks, dispatch to MX, NVFP4
 * and per-tensor) and fl_scale_dequantize (codes and scales from elsewhere
 * decoded exactly as the quantizer's dequant output).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale_internal.h"

int fl__scale_quantize_mx(const fl_scale_scheme *s, const float *x, size_t n,
                          fl_scale_out *o, char *err, size_t errlen);
int fl__scale_quantize_nvfp4(const fl_scale_scheme *s, const float *x, size_t n,
                             fl_scale_out *o, char *err, size_t errlen);
int fl__scale_quantize_tensor(const fl_scale_scheme *s, const float *x, size_t n,
                              fl_scale_out *o, char *err, size_t errlen);
const fl_format *fl__sc_e4m3(void);

static int check_shape(const fl_scale_scheme *s, size_t n, size_t last, char *err,
                       size_t errlen)
{
    if (!s) {
        if (err && errlen)
            snprintf(err, errlen, "no scheme");
        return -1;
    }
    if (s->kind != FL_SCALE_MX && s->kind != FL_SCALE_NVFP4 &&
        s->kind != FL_SCALE_TENSOR) {
        if (err && errlen)
            snprintf(err, errlen, "scheme '%s': unknown kind %d", s->name, s->kind);
        return -1;
    }
    if (s->kind == FL_SCALE_TENSOR)
        return 0;
    if (s->block == 0) {
        if (err && errlen)
            snprintf(err, errlen, "scheme '%s': block size 0", s->name);
        return -1;
    }
    if (n && last == 0) {
        if (err && errlen)
            snprintf(err, errlen, "the last axis has length 0 but the tensor has "
                     "%zu values", n);
        return -1;
    }
    if (last % s->block) {
        if (err && errlen)
            snprintf(err, errlen, "the last axis has length %zu, which is not a "
                     "multiple of the block size %u of %s (blocks run along the "
                     "last axis and never cross a row)", last, (unsigned)s->block,
                     s->name);
        return -1;
    }
    if (last && n % last) {
        if (err && errlen)
            snprintf(err, errlen, "%zu values do not make whole rows of %zu", n, last);
        return -1;
    }
    return 0;
}

int fl_scale_quantize(const fl_scale_scheme *s, const float *x, size_t n,
                      size_t last, fl_scale_out *o, char *err, size_t errlen)
{
    if (check_shape(s, n, last, err, errlen))
        return -1;
    if (fl__sc_check_input(s, x, n, err, errlen))
        return -1;
    memset(&o->stats, 0, sizeof o->stats);
    memset(&o->tensor, 0, sizeof o->tensor);
    switch (s->kind) {
    case FL_SCALE_MX:
        return fl__scale_quantize_mx(s, x, n, o, err, errlen);
    case FL_SCALE_NVFP4:
        return fl__scale_quantize_nvfp4(s, x, n, o, err, errlen);
    default:
        return fl__scale_quantize_tensor(s, x, n, o, err, errlen);
    }
}

int fl_scale_dequantize(const fl_scale_scheme *s, const uint8_t *codes,
                        const uint8_t *scales, const fl_scale_tensor *t,
                        size_t n, size_t last, float *out, char *err,
                        size_t errlen)
{
    if (check_shape(s, n, last, err, errlen))
        return -1;
    const int width = s->elem ? s->elem->width : 8;
    const unsigned cmask = width >= 8 ? 0xFFu : (1u << width) - 1;
    const float qnan = fl__u2f(0x7FC00000u);
    if ((s->kind != FL_SCALE_TENSOR && n && !scales) ||
        (s->kind != FL_SCALE_MX && !t) || (n && (!codes || !out))) {
        if (err && errlen)
            snprintf(err, errlen, "dequantize %s: needs codes, %s and an output",
                     s->name, s->kind == FL_SCALE_MX ? "block scales" :
                     s->kind == FL_SCALE_NVFP4 ? "block scales and the tensor scale" :
                     "the tensor scale");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (codes[i] & ~cmask) {
            if (err && errlen)
                snprintf(err, errlen, "element %zu: code 0x%02x has bits above the "
                         "%d-bit element of %s", i, codes[i], width, s->name);
            return -1;
        }
    if (s->kind == FL_SCALE_TENSOR) {
        for (size_t i = 0; i < n; i++)
            out[i] = fl__f32_mul(fl_to_float(s->elem, codes[i]), t->scale_inv);
        return 0;
    }
    const size_t k = s->block;
    for (size_t b = 0; b < n / k; b++) {
        const uint8_t sc = scales[b];
        double sv;
        if (s->kind == FL_SCALE_MX) {
            sv = sc == FL__E8M0_NAN ? NAN : ldexp(1.0, (int)sc - 127);
        } else {
            sv = fl_to_double(fl__sc_e4m3(), sc);
            if (sv < 0) {
                if (err && errlen)
                    snprintf(err, errlen, "block %zu: E4M3 scale 0x%02x is negative",
                             b, sc);
                return -1;
            }
        }
        for (size_t i = 0; i < k; i++) {
            const uint8_t c = codes[b * k + i];
            if (isnan(sv)) {
                out[b * k + i] = qnan;
                continue;
            }
            /* element value times the scale(s): exact in binary64 (at most
             * 8 + 4 + 24 significant bits, exponents within range), then
             * one rounding to binary32 */
            double v = fl_scale_elem_value(s, c) * sv;
            if (s->kind == FL_SCALE_NVFP4)
                v *= (double)t->scale_inv;
            out[b * k + i] = fl__f32_of(v);
        }
    }
    return 0;
}
