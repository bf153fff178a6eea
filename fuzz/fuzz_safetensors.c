/*
 * fuzz_safetensors.c — safetensors images (8-byte length, JSON header by
 * jansson, data offsets) through fplab_tensor; see fuzz_tensor_common.h
 * for the properties checked.
 */
#include "fuzz_tensor_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_tensor_check(data, size, "fuzz.safetensors");
    return 0;
}
