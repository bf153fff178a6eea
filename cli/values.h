/*
 * values.h — the input of the commands that take a tensor's values and
 * work in binary32 (fplab hist, fplab quantize): a tensor file or member
 * read by fplab_tensor, raw little-endian values, or numbers as text.
 */
#ifndef FPLAB_CLI_VALUES_H
#define FPLAB_CLI_VALUES_H

#include <stddef.h>

#include "fplab/fplab.h"
#include "tensor.h"

typedef struct cli_values {
    tensor t;           /* as read: C order; text is float64 */
    fl_format f;        /* the format t's elements hold */
    float *x;           /* the t.n values rounded to binary32 (nearest even) */
    size_t to_zero;     /* nonzero finite values that became 0 in binary32 */
    size_t to_inf;      /* finite values that became infinite in binary32 */
    const char *kind;   /* "npy", "npz", "safetensors", "raw", "text" */
    char dtype[64];     /* "f16" "f32" "f64" (as ever), "bf16", "fp8-e4m3",
                           "uint16 bits of bfloat16"; "text" for text */
    int big_endian;     /* the file held big-endian elements ('>' descr) */
} cli_values;

/* Read spec (FILE, or FILE:KEY for a member of an .npz or .safetensors
 * file).  dtype (--dtype: f16, f32, f64 and their other spellings) reads
 * FILE as raw little-endian values; otherwise a tensor file is recognised
 * by content and anything else is read as text.  A tensor file holds
 * floats (float16/32/64, bfloat16, fp8) or, with in_format (--in-format),
 * unsigned-integer bit patterns of that format (tensor_format's rules).
 * cmd starts the messages ("hist").  0, or CLI_USAGE with a message
 * printed and nothing to free. */
int cli_values_read(cli_values *v, const char *cmd, const char *spec,
                    const char *dtype, const char *in_format);
void cli_values_free(cli_values *v);

/* --dtype's names: f16/float16/half/fp16, f32/float32/float/fp32,
 * f64/float64/double/fp64; -1 for any other. */
int cli_values_dtype(const char *s);

#endif
