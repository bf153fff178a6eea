/*
 * fuzz_npz.c — .npz images (zip: stored and deflated members, ZIP64
 * records, CRC-32) through fplab_tensor; see fuzz_tensor_common.h for the
 * properties checked.
 */
#include "fuzz_tensor_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_tensor_check(data, size, "fuzz.npz");
    return 0;
}
