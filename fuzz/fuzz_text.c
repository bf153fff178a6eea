/*
 * fuzz_text.c — the file readers of `fplab hist`: text/CSV numbers, raw
 * binary and the magic-sniffing amp_array_read, through a real path (an
 * anonymous memory file, /proc/self/fd/N).
 *
 * Input: byte 0 picks the reader (text, raw f16/f32/f64, auto); the rest
 * is the file.  Properties: no crash, no sanitizer report, no leak; on
 * success n values are there, ndim is 1 (or as the .npy header says);
 * on failure the message names the file.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "npy.h"

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
    amp_array a;
    char err[512] = "";
    int rc;
    switch (sel) {
    case 0: rc = amp_text_read(&a, path, err, sizeof err); break;
    case 1: rc = amp_raw_read(&a, path, AMP_DT_F16, err, sizeof err); break;
    case 2: rc = amp_raw_read(&a, path, AMP_DT_F32, err, sizeof err); break;
    case 3: rc = amp_raw_read(&a, path, AMP_DT_F64, err, sizeof err); break;
    default: rc = amp_array_read(&a, path, -1, err, sizeof err); break;
    }
    close(fd);
    if (rc != 0) {
        if (strncmp(err, path, strlen(path)) != 0)
            FZ_FAIL("reader %u: message does not name the file: '%s'", sel,
                    err);
        amp_array_free(&a);
        return 0;
    }
    if (a.n > 0 && a.data == NULL)
        FZ_FAIL("reader %u: %zu values but no data", sel, a.n);
    if (sel < 4 && (a.ndim != 1 || a.shape[0] != a.n))
        FZ_FAIL("reader %u: ndim %d shape[0] %zu n %zu", sel, a.ndim,
                a.shape[0], a.n);
    double sum = 0;
    for (size_t i = 0; i < a.n; i++)
        sum += a.data[i];
    (void)sum;
    amp_array_free(&a);
    return 0;
}
