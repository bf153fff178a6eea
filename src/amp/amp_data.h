/*
 * amp_data.h — labelled feature tables for the training lab.
 *
 * Reads CSV rows "f0,f1,...,f{d-1},label" (or label first): the UCI optical
 * digits (1797 rows of 64 pixels 0..16 + label) and the same shape at any
 * width (e.g. MNIST as CSV, 784 pixels + label).  Files ending in ".gz" are
 * read through zlib when the build has it.  Every row must have the same
 * number of fields; errors name the file, line and field.
 */
#ifndef FPLAB_AMP_DATA_H
#define FPLAB_AMP_DATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { AMP_LABEL_LAST = 0, AMP_LABEL_FIRST = 1 };

typedef struct amp_dataset {
    size_t n;        /* rows */
    size_t dim;      /* features per row */
    int classes;     /* max label + 1 */
    float *x;        /* n * dim features, scaled by 1/feature_scale */
    int *y;          /* n labels, 0 <= y < classes */
} amp_dataset;

/* label_pos: AMP_LABEL_LAST or AMP_LABEL_FIRST.  feature_scale > 0 divides
 * every feature (16 for the digits, 255 for MNIST); 0 = divide by the
 * largest |feature| in the file (1 if all are 0).  Labels must be integers
 * in 0..1023.  Returns 0, or -1 with "FILE:LINE: field F: ..." in err. */
int amp_dataset_read_csv(amp_dataset *d, const char *path, int label_pos,
                         double feature_scale, char *err, size_t errlen);
/* Same, from a memory buffer (name is used in messages). */
int amp_dataset_parse_csv(amp_dataset *d, const char *name, const char *text,
                          size_t len, int label_pos, double feature_scale,
                          char *err, size_t errlen);
void amp_dataset_free(amp_dataset *d);

/* A next-character task from a text (plain, or gzip when built with
 * zlib): the text is normalised (ASCII letters to lower case, every run of
 * whitespace to one space), its distinct bytes in increasing order are the
 * classes, and every position i >= context is a row: the one-hot codes of
 * the `context` bytes before it (context * classes features, 0 or 1) and
 * the class of byte i.  A linear layer on these rows is an embedding of
 * each context position.  context 1..64; the normalised text must have
 * more than context + 1 bytes and 2..256 classes.  *vocab (may be NULL)
 * receives the classes as a NUL-terminated string (caller frees).
 * Returns 0, or -1 with err filled. */
int amp_dataset_from_text(amp_dataset *d, const char *path, int context,
                          char **vocab, char *err, size_t errlen);
/* The same from a buffer (name is used in messages). */
int amp_dataset_parse_text(amp_dataset *d, const char *name,
                           const char *text, size_t len, int context,
                           char **vocab, char *err, size_t errlen);

/* The next value of the splitmix64 stream in *s (the simulator's one
 * generator: shuffles here, initial weights in amp_train.c). */
uint64_t amp_splitmix64(uint64_t *s);

/* Deterministic shuffle of 0..n-1 from seed (Fisher-Yates on a
 * splitmix64 stream); perm has n entries. */
void amp_permutation(size_t *perm, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif /* FPLAB_AMP_DATA_H */
