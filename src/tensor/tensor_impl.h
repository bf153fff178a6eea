/*
 * tensor_impl.h — what the container readers and writers of fplab_tensor
 * share: a byte source over a file or a memory image, little-endian field
 * access, error messages, and the per-container entry points.
 */
#ifndef FPLAB_TENSOR_IMPL_H
#define FPLAB_TENSOR_IMPL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>

#include "tensor.h"

/* The element bytes are kept little-endian and copied as host words by the
 * callers (tensor_get_bits, the comparison): a big-endian host would need
 * swaps in every reader.  fplab runs on little-endian hosts only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fplab_tensor assumes a little-endian host"
#endif

/* A byte source: the bytes [base, base + size) of a memory image or of an
 * open file.  Reads outside the range fail.  A running CRC-32 over
 * consecutive reads lets a zip member be checked while it is parsed,
 * without a second pass or a copy. */
typedef struct tsrc {
    const unsigned char *mem;   /* memory image, or NULL */
    FILE *fp;                   /* file, when mem is NULL */
    uint64_t base, size;
    int crc_on;                 /* accumulate crc over reads at crc_pos */
    int crc_broken;             /* a read was not at crc_pos */
    uint32_t crc;
    uint64_t crc_pos;
} tsrc;

/* 0, or -1: the range is not inside the source (the caller says why), or
 * an I/O error (errno set, *ioerr = 1 when ioerr given). */
int tsrc_read(tsrc *s, uint64_t off, void *dst, size_t n, int *ioerr);

/* snprintf into err and return -1. */
int terr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static inline void wr16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static inline void wr32(unsigned char *p, uint32_t v)
{
    wr16(p, v & 0xFFFF);
    wr16(p + 2, v >> 16);
}
static inline void wr64(unsigned char *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

/* Product of a shape; -1 when it overflows size_t (or n * esize does). */
int tshape_count(const size_t *shape, int ndim, size_t esize, size_t *n,
                 size_t *bytes);
/* Open a regular file for reading, its size in *size; NULL with err
 * ("cannot open: ...", "not a regular file"). */
FILE *topen(const char *path, uint64_t *size, char *err, size_t errlen);
/* strdup that tolerates NULL (gives NULL). */
char *tstrdup(const char *s);

/* .npy: check the image held by src (the whole source is the file or
 * member) and fill info; name in messages. */
int tnpy_info(tsrc *src, const char *name, tensor_npy_info *h, char *err,
              size_t errlen);
/* .npy: read the data described by h into t (C order, little-endian).
 * t->source is set by the caller. */
int tnpy_load(tsrc *src, const char *name, const tensor_npy_info *h,
              tensor *t, char *err, size_t errlen);
/* .npy: the header text numpy would write for t (version 1.0, or 2.0 when
 * the dict needs more than 65535 bytes), padded to 64 bytes. */
int tnpy_header(const tensor *t, unsigned char **out, size_t *len);
/* The dtype a .npy/.npz carries for t's dtype (bf16, fp8 -> uint). */
tensor_dtype tnpy_dtype(tensor_dtype d);

/* The container whose signature starts head (k bytes: the first 9 of the
 * file, or all of a shorter one), or -1: "\x93NUMPY" .npy, '{' at offset
 * 8 safetensors, "PK\3\4" or "PK\5\6" .npz, else a first byte 0x93 a
 * .npy whose magic is damaged. */
int tsniff(const unsigned char *head, size_t k);
/* 1 when head (k bytes) starts a Python pickle (protocol 2..5: what
 * torch.save's legacy format writes). */
int tpickle(const unsigned char *head, size_t k);
/* What the image buf[0 .. len) is when it is a whole tensor file: "a .npy
 * file", "an .npz file", "a safetensors file", "a PyTorch file"; NULL
 * when it is none (raw values, text, a damaged container). */
const char *timage_kind(const unsigned char *buf, size_t len);

/* A file handle's member table: one entry per tensor. */
typedef struct tmember {
    char *key;            /* member name as the user gives it */
    char *zname;          /* .npz: the zip entry name ("a.npy") */
    /* .npz */
    uint64_t local_off;   /* local header offset */
    uint64_t csize, usize;
    uint32_t crc;
    int method;           /* 0 stored, 8 deflate */
    /* safetensors */
    int st_dtype;         /* tensor_dtype, or -1 unknown (name in st_dname) */
    char *st_dname;
    int ndim;
    size_t shape[TENSOR_MAXDIM];
    uint64_t begin, end;  /* data_offsets, relative to the data area */
} tmember;

struct fl_tensor_file {
    tensor_container kind;
    char *name;           /* path or image name, for messages */
    tsrc src;             /* the whole file */
    FILE *fp;             /* owned when opened from a path */
    tmember *m;
    size_t count;
    char **meta_k, **meta_v;
    size_t nmeta;
    uint64_t st_data;     /* safetensors: offset of the data area */
};

int tzip_open(struct fl_tensor_file *tf, char *err, size_t errlen);
/* The member that makes an opened zip a PyTorch file (torch.save's
 * ARCHIVE/data.pkl), or NULL: an .npz. */
const char *tzip_pytorch(const struct fl_tensor_file *tf);
int tzip_get(const struct fl_tensor_file *tf, const tmember *m, tensor *t,
             char *err, size_t errlen);
int tst_open(struct fl_tensor_file *tf, char *err, size_t errlen);
int tst_get(const struct fl_tensor_file *tf, const tmember *m, tensor *t,
            char *err, size_t errlen);

/* Writers: fp is the open temp file; 0 or -1 with err. */
int tnpy_write(FILE *fp, const tensor *t, const char *path, char *err,
               size_t errlen);
int tzip_write(FILE *fp, const tensor *const *ts, const char *const *keys,
               size_t count, int flags, const char *path, char *err,
               size_t errlen);
int tst_write(FILE *fp, const tensor *const *ts, const char *const *keys,
              size_t count, const tensor_meta *meta, size_t nmeta,
              const char *path, char *err, size_t errlen);

#endif
