/*
 * values.c — a tensor's values in binary32 for fplab hist and fplab
 * quantize (values.h): every input goes through fplab_tensor, and every
 * element through the format it holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "values.h"

int cli_values_dtype(const char *s)
{
    static const struct { const char *name; tensor_dtype dt; } names[] = {
        {"f16", TENSOR_F16}, {"float16", TENSOR_F16}, {"half", TENSOR_F16},
        {"fp16", TENSOR_F16},
        {"f32", TENSOR_F32}, {"float32", TENSOR_F32}, {"float", TENSOR_F32},
        {"fp32", TENSOR_F32},
        {"f64", TENSOR_F64}, {"float64", TENSOR_F64}, {"double", TENSOR_F64},
        {"fp64", TENSOR_F64},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name))
            return (int)names[i].dt;
    return -1;
}

static int is_integer(tensor_dtype d)
{
    return d == TENSOR_BOOL || d == TENSOR_I8 || d == TENSOR_I16 ||
           d == TENSOR_I32 || d == TENSOR_I64;
}

/* The dtype's word in the summaries: f16 f32 f64 as they always were,
 * the ML formats by name, bit patterns with their storage. */
static void dtype_word(const cli_values *v, char *buf, size_t len)
{
    switch (v->t.dtype) {
    case TENSOR_F16: snprintf(buf, len, "f16"); return;
    case TENSOR_F32: snprintf(buf, len, "f32"); return;
    case TENSOR_F64:
        snprintf(buf, len, v->t.container == TENSOR_TEXT ? "text" : "f64");
        return;
    case TENSOR_BF16: snprintf(buf, len, "bf16"); return;
    case TENSOR_F8_E4M3: case TENSOR_F8_E5M2:
        snprintf(buf, len, "%s", v->f.name);
        return;
    default:
        snprintf(buf, len, "%s bits of %s", tensor_dtype_name(v->t.dtype),
                 v->f.name);
        return;
    }
}

/* Round every element to binary32.  float32 and float64 elements are
 * converted by the host (as C's casts do: float64 rounds to nearest even);
 * every other format goes through binary64, which holds each of its values
 * exactly (fl_to_double), so the one rounding is the cast to float. */
static void to_binary32(cli_values *v)
{
    const tensor *t = &v->t;
    for (size_t i = 0; i < t->n; i++) {
        double d;
        int zero, finite;
        if (t->dtype == TENSOR_F32 || t->dtype == TENSOR_F64) {
            if (t->dtype == TENSOR_F32) {
                float f;
                memcpy(&f, t->data + 4 * i, 4);
                d = f;
            } else {
                memcpy(&d, t->data + 8 * i, 8);
            }
            zero = d == 0;
            finite = isfinite(d);
        } else {
            const uint64_t b = tensor_get_bits(t, i);
            d = fl_to_double(&v->f, b);
            /* by the source's class: d is +-inf for the top binade of an
             * 11-exponent-bit format without infinities */
            zero = fl_is_zero(&v->f, b);
            finite = !fl_is_inf(&v->f, b) && !fl_is_nan(&v->f, b);
        }
        v->x[i] = (float)d;
        if (!zero && finite && v->x[i] == 0)
            v->to_zero++;
        if (finite && isinf(v->x[i]))
            v->to_inf++;
    }
}

int cli_values_read(cli_values *v, const char *cmd, const char *spec,
                    const char *dtype, const char *in_format)
{
    char err[1024];
    memset(v, 0, sizeof *v);
    int r;
    if (dtype) {
        if (in_format)
            return cli_error("%s: --in-format applies to tensor files (.npy, "
                             ".npz, .safetensors), not to raw values (--dtype)",
                             cmd);
        const int dt = cli_values_dtype(dtype);
        if (dt < 0)
            return cli_error("%s: --dtype: '%s' is not f16, f32 or f64", cmd,
                             dtype);
        /* the short name in messages, as the summaries spell it */
        const char *dn = dt == TENSOR_F16 ? "f16" : dt == TENSOR_F32 ? "f32"
                                                                     : "f64";
        r = tensor_read_raw(&v->t, spec, (tensor_dtype)dt, dn, err, sizeof err);
    } else {
        r = tensor_read_any(&v->t, spec, err, sizeof err);
    }
    if (r)
        return cli_error("%s: %s", cmd, err);
    if (v->t.container == TENSOR_TEXT && in_format) {
        cli_values_free(v);
        return cli_error("%s: --in-format: %s is text (numbers, not bit "
                         "patterns); --in-format applies to .npy, .npz and "
                         ".safetensors inputs", cmd, spec);
    }
    if (is_integer(v->t.dtype)) {
        cli_error("%s: %s: unsupported dtype '%s' (%s): %s reads float tensors "
                  "(float16, float32, float64, bfloat16, float8_e4m3fn, "
                  "float8_e5m2) or unsigned-integer bit patterns of a format "
                  "named with --in-format", cmd, v->t.source, v->t.descr,
                  tensor_dtype_name(v->t.dtype), cmd);
        cli_values_free(v);
        return CLI_USAGE;
    }
    if (v->t.n == 0) {
        /* statistics of nothing (every scale ties): refused, as an error */
        char sh[256];
        tensor_shape_str(&v->t, sh, sizeof sh);
        cli_error("%s: %s (shape %s) holds no values", cmd, v->t.source, sh);
        cli_values_free(v);
        return CLI_USAGE;
    }
    if (tensor_format(&v->t, in_format, "--in-format", &v->f, err, sizeof err)) {
        cli_values_free(v);
        return cli_error("%s: %s", cmd, err);
    }
    v->x = malloc((v->t.n ? v->t.n : 1) * sizeof *v->x);
    if (!v->x) {
        cli_values_free(v);
        return cli_error("%s: %s: out of memory", cmd, spec);
    }
    to_binary32(v);
    v->kind = tensor_container_name(v->t.container);
    v->big_endian = v->t.descr[0] == '>';
    dtype_word(v, v->dtype, sizeof v->dtype);
    return 0;
}

void cli_values_free(cli_values *v)
{
    tensor_free(&v->t);
    free(v->x);
    memset(v, 0, sizeof *v);
}
