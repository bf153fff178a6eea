/*
 * npy.h — readers for gradients dumped by other programs: NumPy .npy files,
 * raw little-endian binary, and text/CSV numbers.
 *
 * Every reader fills an amp_array whose values are held as doubles in the
 * file's storage order (C or Fortran order alike: a histogram does not care
 * about the order, and the shape is reported as the file states it).  Every
 * source dtype (binary16, binary32, binary64) converts to double exactly.
 *
 * Errors: the readers return -1 and write a message into err that names the
 * file and what is wrong ("g.npy: header says shape (1000,) of <f4 = 4000
 * data bytes but the file holds 12"), or "file:line:field: ..." for text.
 */
#ifndef FPLAB_AMP_NPY_H
#define FPLAB_AMP_NPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types the readers understand. */
typedef enum amp_dtype {
    AMP_DT_F16 = 0,   /* IEEE binary16 */
    AMP_DT_F32 = 1,   /* IEEE binary32 */
    AMP_DT_F64 = 2,   /* IEEE binary64 */
    AMP_DT_TEXT = 3   /* decimal text (only as the source of a text read) */
} amp_dtype;

/* NumPy allows 32 dimensions (64 since NumPy 2). */
#define AMP_NPY_MAXDIM 64
/* A header longer than this is refused as corrupt (NumPy's own safety
 * limit for untrusted files is 10000 bytes; real headers are < 200).
 * The limit is enforced by fplab_tensor's .npy parser. */
#define AMP_NPY_MAX_HEADER (1u << 20)

typedef struct amp_array {
    double *data;           /* n values, storage order; NULL when n == 0 */
    size_t n;
    int ndim;               /* 0 for a NumPy scalar array, 1 for raw/text */
    size_t shape[AMP_NPY_MAXDIM];
    int fortran_order;      /* 1 if the .npy header said fortran_order True */
    int dtype;              /* amp_dtype of the source */
    int big_endian;         /* 1 if the source bytes were big-endian */
    int version_major;      /* .npy format version (0 for raw/text) */
    int version_minor;
} amp_array;

/* "f16"/"float16"/"half", "f32"/"float32"/"float", "f64"/"float64"/"double";
 * -1 if unknown. */
int amp_dtype_parse(const char *s);
const char *amp_dtype_name(int dtype);   /* "f16", "f32", "f64", "text" */
size_t amp_dtype_size(int dtype);        /* 2, 4, 8; 0 for text */

/* Parse a complete .npy image held in memory; name is used in messages.
 * Versions 1.0, 2.0 and 3.0; descr <f2 <f4 <f8 >f2 >f4 >f8 (and = for
 * native order); up to 32 dimensions; C or Fortran order.  The header is
 * checked by fplab_tensor's .npy parser (tensor_npy_info_parse). */
int amp_npy_parse(amp_array *a, const unsigned char *buf, size_t len,
                  const char *name, char *err, size_t errlen);
/* Read a .npy file. */
int amp_npy_read(amp_array *a, const char *path, char *err, size_t errlen);
/* Read raw little-endian values of one dtype (the file size must be a
 * multiple of the element size). */
int amp_raw_read(amp_array *a, const char *path, int dtype, char *err,
                 size_t errlen);
/* Read text: numbers separated by commas, semicolons, spaces or tabs, one
 * or many per line; blank lines and lines starting with '#' are skipped.
 * Accepts what strtod accepts (decimal, hex-float, inf, nan). */
int amp_text_read(amp_array *a, const char *path, char *err, size_t errlen);
/* Pick the reader: raw when dtype >= 0, .npy when the file starts with the
 * NumPy magic, text otherwise. */
int amp_array_read(amp_array *a, const char *path, int dtype, char *err,
                   size_t errlen);

/* The values as floats (C cast: round to nearest even; values beyond
 * binary32's range become infinities or zeros).  Caller frees.  NULL with
 * n == 0 is not an error; NULL otherwise means out of memory. */
float *amp_array_to_float(const amp_array *a);
/* "(3, 4)" / "(5,)" / "()" into buf. */
void amp_array_shape_str(const amp_array *a, char *buf, size_t len);
void amp_array_free(amp_array *a);

/* Exact value of a binary16 bit pattern (independent of the core). */
double amp_half_to_double(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif
