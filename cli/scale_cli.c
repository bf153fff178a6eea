/*
 * scale_cli.c — pieces shared by the commands that quantize with
 * fplab/scale.h schemes (fplab quantize, fplab hist --scaling).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "npy.h"

/* Fortran-order data (first axis fastest) into C order: blocks run along
 * the last axis, so their elements must be adjacent.  -1: out of memory. */
int cli_array_c_order(amp_array *a)
{
    if (!a->fortran_order || a->ndim < 2 || a->n < 2)
        return 0;
    double *c = malloc(a->n * sizeof *c);
    if (!c)
        return -1;
    size_t idx[AMP_NPY_MAXDIM] = {0};
    for (size_t i = 0; i < a->n; i++) {
        /* idx: the multi-index of C position i; F offset from it */
        size_t off = 0, st = 1;
        for (int d = 0; d < a->ndim; d++) {
            off += idx[d] * st;
            st *= a->shape[d];
        }
        c[i] = a->data[off];
        for (int d = a->ndim - 1; d >= 0; d--) {
            if (++idx[d] < a->shape[d])
                break;
            idx[d] = 0;
        }
    }
    free(a->data);
    a->data = c;
    a->fortran_order = 0;
    return 0;
}

