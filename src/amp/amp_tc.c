/* amp_tc.c — the tensor-core model behind the amp_accum seam. */
#include <stdlib.h>

#include "amp_tc.h"

float amp_tc_block_dot(void *model, const fl_format *in, const float *a,
                       size_t sa, const float *b, size_t sb, size_t n,
                       float c, unsigned *flags)
{
    const fl_tc_model *m = (const fl_tc_model *)model;
    fl_ctx ctx = FL_CTX_INIT;
    uint64_t abuf[64], bbuf[64];
    unsigned fl = 0;    /* flags may be NULL: collect locally */
    uint64_t acc = fl_from_float(&fl_binary32, c, &ctx, &fl);
    size_t i = 0;
    (void)in;
    /* chain whole blocks through the binary32 accumulator */
    while (i < n) {
        int k = 0;
        for (; k < m->block && k < 64 && i < n; k++, i++) {
            abuf[k] = fl_from_float(m->in, a[i * sa], &ctx, &fl);
            bbuf[k] = fl_from_float(m->in, b[i * sb], &ctx, &fl);
        }
        acc = fl_tc_block_fma(m, abuf, bbuf, k, acc, &fl);
    }
    if (flags)
        *flags |= fl;
    return fl_to_float(&fl_binary32, acc);
}

float amp_tc_block_dot16(void *model, const fl_format *in, const float *a,
                         size_t sa, const float *b, size_t sb, size_t n,
                         float c, unsigned *flags)
{
    const fl_tc_model *m = (const fl_tc_model *)model;
    fl_ctx ctx = FL_CTX_INIT;
    uint64_t abuf[64], bbuf[64];
    unsigned fl = 0;
    uint64_t acc = fl_from_float(&fl_binary16, c, &ctx, &fl);
    size_t i = 0;
    (void)in;
    /* every block's result is rounded into the binary16 accumulator that
     * the next block starts from */
    while (i < n) {
        int k = 0;
        for (; k < m->block && k < 64 && i < n; k++, i++) {
            abuf[k] = fl_from_float(m->in, a[i * sa], &ctx, &fl);
            bbuf[k] = fl_from_float(m->in, b[i * sb], &ctx, &fl);
        }
        acc = fl_tc_block_fma_f16(m, abuf, bbuf, k, acc, &fl);
    }
    if (flags)
        *flags |= fl;
    return fl_to_float(&fl_binary16, acc);
}

static int set_tc(amp_accum *acc, const char *model_name, int acc16)
{
    const fl_tc_model *m = fl_tc_model_by_name(model_name);
    if (!m)
        return -1;
    acc->kind = AMP_ACC_BLOCK;
    acc->block_dot = acc16 ? amp_tc_block_dot16 : amp_tc_block_dot;
    acc->block_model = (void *)m;
    acc->block_acc16 = acc16;
    return 0;
}

int amp_accum_set_tc(amp_accum *acc, const char *model_name)
{
    return set_tc(acc, model_name, 0);
}

int amp_accum_set_tc16(amp_accum *acc, const char *model_name)
{
    return set_tc(acc, model_name, 1);
}
