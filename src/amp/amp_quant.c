/*
 * amp_quant.c — quantize-dequantize of a matrix for the fp8 and mx
 * policies (see amp_quant.h): per-tensor schemes in one call, block schemes
 * along either axis, lines padded with zeros to whole blocks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp_quant.h"

/* max |x| over the non-NaN values (CUDA's fmaxf reductions ignore NaN) */
static float amax_of(const float *x, size_t n)
{
    float a = 0.0f;
    for (size_t i = 0; i < n; i++) {
        const float v = fabsf(x[i]);
        if (v > a)
            a = v;
    }
    return a;
}

int amp_quantize_matrix(const fl_scale_scheme *s, const float *x, size_t rows,
                        size_t cols, int axis, float scale, float *deq,
                        fl_scale_stats *st, float *amax, char *err,
                        size_t errlen)
{
    const size_t n = rows * cols;
    fl_scale_out o;
    memset(&o, 0, sizeof o);
    o.skip_stats = st == NULL;
    if (s->kind == FL_SCALE_TENSOR) {
        o.dequant = deq;
        int rc = scale > 0.0f
                     ? fl_scale_quantize_with_scale(s, x, n, scale, &o, err, errlen)
                     : fl_scale_quantize(s, x, n, n, &o, err, errlen);
        if (rc)
            return -1;
        if (st)
            fl_scale_stats_merge(st, &o.stats);
        if (amax)
            *amax = o.tensor.amax;
        return 0;
    }
    if (s->block == 0) {
        snprintf(err, errlen, "scheme '%s': block size 0", s->name);
        return -1;
    }
    const size_t k = s->block;
    const size_t lines = axis ? rows : cols, len = axis ? cols : rows;
    const size_t plen = (len + k - 1) / k * k;
    if (amax)
        *amax = amax_of(x, n);
    if (axis && plen == len) {
        /* rows are whole blocks already: quantize in place */
        o.dequant = deq;
        if (fl_scale_quantize(s, x, n, len, &o, err, errlen))
            return -1;
    } else {
        /* gather each line into a zero-padded row, quantize, scatter back */
        const size_t pn = lines * plen;
        float *in = calloc(pn ? 2 * pn : 1, sizeof *in);
        if (!in) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        float *out = in + pn;
        for (size_t i = 0; i < lines; i++)
            for (size_t j = 0; j < len; j++)
                in[i * plen + j] = axis ? x[i * cols + j] : x[j * cols + i];
        o.dequant = out;
        int rc = fl_scale_quantize(s, in, pn, plen, &o, err, errlen);
        if (!rc)
            for (size_t i = 0; i < lines; i++)
                for (size_t j = 0; j < len; j++) {
                    const float v = out[i * plen + j];
                    if (axis)
                        deq[i * cols + j] = v;
                    else
                        deq[j * cols + i] = v;
                }
        free(in);
        if (rc)
            return -1;
    }
    if (st) {
        /* padding zeros count as zeros of the tensor: take them out */
        o.stats.n -= lines * plen - n;
        o.stats.zero -= lines * plen - n;
        fl_scale_stats_merge(st, &o.stats);
    }
    return 0;
}
