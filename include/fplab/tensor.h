/*
 * fplab/tensor.h — tensor files as raw bit patterns: NumPy .npy and .npz,
 * and safetensors.  Part of libfplab (the reading of tensors behind every
 * fplab command that takes a file); JSON headers through jansson, zip
 * members through zlib.
 *
 * A tensor is n elements of one dtype in C order, little-endian, with its
 * shape.  Readers recognise the container by content (the .npy magic, a
 * zip signature, a safetensors header), never by extension, and turn
 * Fortran-order and big-endian .npy data into C order, little-endian.
 *
 * Every defect of a file is an error, never a crash: the readers return -1
 * with a message that names the file (and the member key) and what is
 * wrong ("w.npz:b: CRC mismatch: stored 0x1c291ca3, computed 0x9b0e29ec").
 * Sizes claimed by a file are checked against the bytes really there
 * before anything is allocated for them.
 *
 * Headerless inputs are tensors too: raw little-endian elements of a
 * dtype the caller names (fl_tensor_read_raw) and numbers as text
 * (fl_tensor_read_text, float64); fl_tensor_read_any takes a tensor file
 * or, when the content is no tensor container, text.
 *
 * Writers are atomic: they write "<path>.tmp.<pid>" and rename it over the
 * path, so a failed write leaves nothing behind and never a half file.  A
 * command that commits several files together writes each into its own
 * temp stream with fl_tensor_write_fp.
 */
#ifndef FPLAB_TENSOR_H
#define FPLAB_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fplab/fplab.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_tensor_dtype {
    FL_TENSOR_BOOL, FL_TENSOR_I8, FL_TENSOR_U8, FL_TENSOR_I16, FL_TENSOR_U16,
    FL_TENSOR_I32, FL_TENSOR_U32, FL_TENSOR_I64, FL_TENSOR_U64,
    FL_TENSOR_F16, FL_TENSOR_BF16, FL_TENSOR_F32, FL_TENSOR_F64,
    FL_TENSOR_F8_E4M3, FL_TENSOR_F8_E5M2,   /* safetensors' F8_E4M3 (OCP
                                               E4M3FN) / F8_E5M2 */
    FL_TENSOR_DTYPE_COUNT
} fl_tensor_dtype;

/* NumPy 1.x allows 32 dimensions. */
#define FL_TENSOR_MAXDIM 32

typedef enum fl_tensor_container {
    FL_TENSOR_NPY, FL_TENSOR_NPZ, FL_TENSOR_SAFETENSORS,
    FL_TENSOR_RAW, FL_TENSOR_TEXT   /* headerless: fl_tensor_read_raw, _text */
} fl_tensor_container;
/* "npy", "npz", "safetensors", "raw", "text" */
const char *fl_tensor_container_name(fl_tensor_container c);

typedef struct fl_tensor {
    fl_tensor_dtype dtype;
    int ndim;                     /* 0 = scalar */
    size_t shape[FL_TENSOR_MAXDIM];
    size_t n;                     /* product of shape (1 for a scalar) */
    unsigned char *data;          /* n elements, C order, little-endian,
                                     fl_tensor_dtype_size(dtype) bytes each */
    char *source;                 /* "x.npz:key" or "x.npy", for messages */
    /* Set by the readers, for messages and summaries: the container the
     * tensor came from and its dtype as that file spells it ("<f4" or
     * ">f2" in .npy/.npz, "BF16" in safetensors; "" for raw and text). */
    fl_tensor_container container;
    char descr[16];
} fl_tensor;

size_t fl_tensor_dtype_size(fl_tensor_dtype d);
/* numpy spelling: "float16", "uint16", "bfloat16", "float8_e4m3fn",
 * "float8_e5m2" (ml_dtypes' names for the types numpy lacks). */
const char *fl_tensor_dtype_name(fl_tensor_dtype d);
/* safetensors spelling: "F16", "BF16", "F8_E4M3", ... */
const char *fl_tensor_dtype_st_name(fl_tensor_dtype d);
/* "(3, 4)", "(7,)" (one axis), "()" (a scalar), cut to len */
void fl_tensor_shape_str(const fl_tensor *t, char *buf, size_t len);
/* The same for a shape given as ndim extents, of any array. */
void fl_tensor_shape_text(const size_t *shape, int ndim, char *buf, size_t len);
/* 1 when two shapes given that way (na extents at a, nb at b) are the same
 * shape, else 0. */
int fl_tensor_shape_same(const size_t *a, int na, const size_t *b, int nb);
void fl_tensor_free(fl_tensor *t);

/* ------------------------------------------------------------------------
 * Reading.
 * ---------------------------------------------------------------------- */

/* Read one tensor.  spec is a path, or "path:key" naming a member of an
 * .npz or .safetensors file (a path that exists as given wins over the
 * split).  The container is recognised by content (npy magic, zip magic,
 * safetensors header), not by extension.  Fortran-order and big-endian
 * .npy data come back in C order, little-endian.  An .npz/.safetensors
 * with exactly one member needs no key; otherwise the error lists the keys.
 * Returns 0, or -1 with a message in err naming the file and what is wrong. */
int fl_tensor_read(fl_tensor *t, const char *spec, char *err, size_t errlen);

/* Split a spec into a path and a key (key NULL when none): the spec itself
 * when a file of that name exists, else the first "prefix:rest" whose
 * prefix is an existing file, else the whole spec (for the error).  Both
 * strings malloc'd; -1 on out of memory. */
int fl_tensor_spec_split(const char *spec, char **path, char **key);

/* Raw little-endian elements of dtype, the whole file: a 1-D tensor.  A
 * size that is not a whole number of elements is an error, and so is a
 * file that is a whole tensor file (.npy, .npz, safetensors or a PyTorch
 * zip: its header would be read as data); dname names the dtype in those
 * messages as the user spelled it ("f16"; NULL: the numpy name). */
int fl_tensor_read_raw(fl_tensor *t, const char *path, fl_tensor_dtype dtype,
                       const char *dname, char *err, size_t errlen);

/* Numbers as text: a 1-D float64 tensor.  Numbers are separated by commas,
 * semicolons, spaces or tabs, one or many per line; blank lines and lines
 * starting with '#' are skipped; each is what strtod reads (decimal,
 * hex-float, inf, nan), rounded to binary64.  Errors name the place
 * ("g.csv:3:2: 'x' is not a number", "g.csv:1:2: empty field"). */
int fl_tensor_read_text(fl_tensor *t, const char *path, char *err,
                        size_t errlen);

/* A tensor file as fl_tensor_read reads it when spec names a member or the
 * file's content is a tensor container (by its first bytes, as
 * fl_tensor_file_open decides); otherwise numbers as text
 * (fl_tensor_read_text).
 * t->container says which. */
int fl_tensor_read_any(fl_tensor *t, const char *spec, char *err,
                       size_t errlen);

/* An opened, validated tensor file: its members and metadata.  Opening
 * reads and checks the directory (zip central directory, safetensors
 * header: offsets in range, no overlap, no hole); members are read on
 * demand.  Not thread-safe (one file position).  PyTorch files are
 * refused with a message that says so: torch.save's zip archive (a member
 * ARCHIVE/data.pkl) is no .npz, and its legacy format is a Python
 * pickle. */
typedef struct fl_tensor_file fl_tensor_file;

int fl_tensor_file_open(fl_tensor_file **tf, const char *path, char *err,
                        size_t errlen);
/* The same over an image in memory (buf must outlive the handle); name is
 * used in messages.  For fuzzing and for callers holding the bytes. */
int fl_tensor_file_open_mem(fl_tensor_file **tf, const void *buf, size_t len,
                            const char *name, char *err, size_t errlen);
void fl_tensor_file_close(fl_tensor_file *tf);
fl_tensor_container fl_tensor_file_container(const fl_tensor_file *tf);
/* Members: a .npy has one, with the key "" (empty). */
size_t fl_tensor_file_count(const fl_tensor_file *tf);
const char *fl_tensor_file_key(const fl_tensor_file *tf, size_t i);
/* "a, b, c" (at most len bytes, "..." when cut) for messages. */
void fl_tensor_file_keys_str(const fl_tensor_file *tf, char *buf, size_t len);
/* Read a member (key NULL: the only member; an .npz key may be given with
 * or without its ".npy").  0 or -1 with err. */
int fl_tensor_file_get(const fl_tensor_file *tf, const char *key, fl_tensor *t,
                       char *err, size_t errlen);
/* safetensors __metadata__ (string to string); none for .npy/.npz. */
size_t fl_tensor_file_meta_count(const fl_tensor_file *tf);
const char *fl_tensor_file_meta_key(const fl_tensor_file *tf, size_t i);
const char *fl_tensor_file_meta_value(const fl_tensor_file *tf, size_t i);
/* NULL if absent */
const char *fl_tensor_file_meta(const fl_tensor_file *tf, const char *key);

/* ------------------------------------------------------------------------
 * Writing.
 * ---------------------------------------------------------------------- */

/* Write tensors atomically (temp file + rename; nothing left on failure).
 * Container by extension: .npy (exactly one tensor), .npz (np.savez layout;
 * compress != 0 gives np.savez_compressed's deflate), .safetensors.
 * keys[i] names tensor i (ignored for .npy).  bf16 and fp8 tensors go to
 * .npy/.npz as uint16/uint8 bit patterns (numpy has no such dtype); to
 * safetensors as BF16/F8_E4M3/F8_E5M2.  Returns 0 or -1 with err. */
int fl_tensor_write(const char *path, const fl_tensor *const *ts,
                    const char *const *keys, size_t count, int compress,
                    char *err, size_t errlen);

/* Metadata written with tensors: safetensors keeps every pair in its
 * __metadata__; .npy/.npz have no place for metadata, so only the model
 * line (key FL_TENSOR_MODEL_KEY) is accepted there and goes to the text
 * sidecar "<path>.model" (one line, written atomically before the file
 * itself).  Writing a .npy/.npz without a model line removes a sidecar
 * left by an earlier file of that name: it described other data. */
typedef struct fl_tensor_meta {
    const char *key, *value;
} fl_tensor_meta;

#define FL_TENSOR_MODEL_KEY "fplab-model"
/* flags of fl_tensor_write_meta */
enum {
    FL_TENSOR_WRITE_DEFLATE = 1,  /* .npz members deflated
                                     (np.savez_compressed) */
    FL_TENSOR_WRITE_ZIP64 = 2,    /* .npz: ZIP64 records even for small
                                     members (the layout numpy uses for
                                     members of 4 GiB and more; for tests) */
    FL_TENSOR_WRITE_NPY_ANY = 4   /* a path not named .npz or .safetensors
                                     is written as .npy (without the flag
                                     only a .npy name is) */
};
int fl_tensor_write_meta(const char *path, const fl_tensor *const *ts,
                         const char *const *keys, size_t count, int flags,
                         const fl_tensor_meta *meta, size_t nmeta, char *err,
                         size_t errlen);

/* Write tensors into fp, an open stream that the caller commits: the
 * temp file of a command that writes several outputs and renames them
 * all into place only when every one is complete (cli_out).  path names
 * the output (its container by name and flags, as fl_tensor_write_meta) and
 * appears in messages; no metadata, no sidecar.  0 or -1 with err. */
int fl_tensor_write_fp(FILE *fp, const char *path, const fl_tensor *const *ts,
                       const char *const *keys, size_t count, int flags,
                       char *err, size_t errlen);

/* The model line stored with a tensor file (spec as for fl_tensor_read):
 * safetensors metadata key "fplab-model", else the sidecar "<path>.model".
 * *line is malloc'd, or NULL when there is none (not an error).  0, or -1
 * with err when the file or sidecar cannot be read. */
int fl_tensor_read_model(const char *spec, char **line, char *err,
                         size_t errlen);

/* ------------------------------------------------------------------------
 * Float formats.
 * ---------------------------------------------------------------------- */

/* The float format a tensor's elements hold.  fmt_spec NULL: from the dtype
 * (float16 -> binary16, float32 -> binary32, float64 -> binary64, BF16 ->
 * bfloat16, F8_E4M3 -> fp8-e4m3, F8_E5M2 -> fp8-e5m2; integer dtypes are
 * an error "x.npy holds uint16 bit patterns: say which format with
 * --in-format").  fmt_spec given (a format name, fl_format_parse): an
 * unsigned integer dtype of exactly the format's storage width
 * (ceil(width/8) bytes: uint8/uint16/uint32/uint64) is read as bit
 * patterns (bits above the format's width must be zero, else an error
 * naming the first offending index); a float dtype must agree with it
 * (else an error naming both sides).  `what` names the option or
 * operand in messages ("--in-format", "operand 2").  0 or -1 with err. */
int fl_tensor_format(const fl_tensor *t, const char *fmt_spec,
                     const char *what, fl_format *f, char *err, size_t errlen);

/* Storage bytes of a format's bit pattern: 1, 2, 4 or 8. */
size_t fl_tensor_format_storage(const fl_format *f);

/* Element i as a bit pattern of the format (dtype of storage width). */
uint64_t fl_tensor_get_bits(const fl_tensor *t, size_t i);
/* All elements as bit patterns into a caller's array of t->n. */
void fl_tensor_to_bits(const fl_tensor *t, uint64_t *out);

/* A new tensor holding bit patterns of format f: dtype is the native float
 * dtype where one exists (binary16/32/64 -> float16/32/64, bfloat16 ->
 * BF16, fp8 -> F8_*) and otherwise the unsigned integer of f's storage
 * width.  Copies shape; bits may be NULL (zero-filled).  0 or -1 (OOM). */
int fl_tensor_from_bits(fl_tensor *t, const fl_format *f, int ndim,
                        const size_t *shape, const uint64_t *bits);
/* The dtype fl_tensor_from_bits uses for f. */
fl_tensor_dtype fl_tensor_dtype_for_format(const fl_format *f);

/* ------------------------------------------------------------------------
 * The .npy header of an image in memory (format version and layout, which
 * a tensor read does not keep).
 * ---------------------------------------------------------------------- */
typedef struct fl_tensor_npy_info {
    int version_major, version_minor;
    int fortran_order;
    int big_endian;              /* data bytes are big-endian ('>' descr) */
    fl_tensor_dtype dtype;
    char descr[16];              /* as the header spells it: "<f4" */
    int ndim;
    size_t shape[FL_TENSOR_MAXDIM];
    size_t n;                    /* elements */
    size_t data_offset;          /* where the data starts in the image */
    size_t data_bytes;           /* n * dtype size: exactly what follows */
} fl_tensor_npy_info;

/* Check a complete .npy image in memory (magic, version, header dict,
 * dtype, shape, data length exactly n * size) without copying the data.
 * name is used in messages.  0 or -1 with err. */
int fl_tensor_npy_info_parse(fl_tensor_npy_info *h, const unsigned char *buf,
                             size_t len, const char *name, char *err,
                             size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_TENSOR_H */
