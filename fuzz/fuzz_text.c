/*
 * fuzz_text.c — the headerless readers of `fplab hist` and `fplab
 * quantize`: numbers as text, raw values, and tensor_read_any (a tensor
 * file by content, else text), through a real path (an anonymous memory
 * file, /proc/self/fd/N).
 *
 * Input: byte 0 picks the reader (text, raw float16/32/64, any); the rest
 * is the file.  Properties: no crash, no sanitizer report, no leak; on
 * success n elements are there, 1-D for text and raw, with a source; on
 * failure the message names the file and nothing is left behind.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    unsigned sel = fz_u8(&in) % 5;
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        abort();
    size_t off = 0;
    while (off < in.n) {
        ssize_t w = write(fd, in.p + off, in.n - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    tensor t;
    char err[512] = "";
    int rc;
    switch (sel) {
    case 0: rc = tensor_read_text(&t, path, err, sizeof err); break;
    case 1: rc = tensor_read_raw(&t, path, TENSOR_F16, "f16", err, sizeof err); break;
    case 2: rc = tensor_read_raw(&t, path, TENSOR_F32, NULL, err, sizeof err); break;
    case 3: rc = tensor_read_raw(&t, path, TENSOR_F64, NULL, err, sizeof err); break;
    default: rc = tensor_read_any(&t, path, err, sizeof err); break;
    }
    close(fd);
    if (rc != 0) {
        if (strncmp(err, path, strlen(path)) != 0)
            FZ_FAIL("reader %u: message does not name the file: '%s'", sel,
                    err);
        if (t.data != NULL || t.n != 0 || t.source != NULL)
            FZ_FAIL("reader %u: a failed read left data behind", sel);
        return 0;
    }
    if (t.n > 0 && t.data == NULL)
        FZ_FAIL("reader %u: %zu values but no data", sel, t.n);
    if (!t.source || strncmp(t.source, path, strlen(path)) != 0)
        FZ_FAIL("reader %u: source '%s'", sel, t.source ? t.source : "(null)");
    if ((sel < 4 || t.container == TENSOR_TEXT) &&
        (t.ndim != 1 || t.shape[0] != t.n))
        FZ_FAIL("reader %u: ndim %d shape[0] %zu n %zu", sel, t.ndim,
                t.shape[0], t.n);
    size_t bytes = t.n * tensor_dtype_size(t.dtype);
    unsigned sum = 0;
    for (size_t b = 0; b < bytes; b++)
        sum += t.data[b];   /* every byte is read (ASan checks the reads) */
    (void)sum;
    tensor_free(&t);
    return 0;
}
