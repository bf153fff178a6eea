/*
 * ops_internal.h — what the ops part shares with the project's own code
 * (the fplab command); not installed, and the shared library exports none
 * of it (cmake/fplab.map keeps the fl__ names internal).
 */
#ifndef FPLAB_OPS_INTERNAL_H
#define FPLAB_OPS_INTERNAL_H

#include <stdint.h>

/* Unsigned decimal or 0x-hex integer, the whole string, below 2^64: *v
 * and 0; -1 with *v untouched for NULL, an empty string, a stray
 * character or a value of 2^64 or more. */
int fl__parse_u64(const char *s, uint64_t *v);

#endif /* FPLAB_OPS_INTERNAL_H */
