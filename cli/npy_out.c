/*
 * npy_out.c — a small NumPy .npy writer for commands that produce tensors
 * (fplab quantize): format version 1.0, little-endian, C order, the header
 * padded with spaces to a multiple of 64 bytes and ended by '\n' as
 * numpy/lib/format.py writes it.  cli_npy_emit writes into an open output
 * (the caller commits several outputs together); cli_npy_write is the
 * one-file form, atomic through cli_out.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_npy_emit(FILE *fp, const char *path, const char *descr, size_t elsize,
                 const void *data, const size_t *shape, int ndim)
{
    char hdr[1024];
    size_t n = 1;
    int len = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, "
                       "'shape': (", descr);
    if (ndim < 0 || ndim > 32)
        return cli_error("%s: %d dimensions (at most 32)", path, ndim), -1;
    for (int i = 0; i < ndim; i++) {
        n *= shape[i];
        len += snprintf(hdr + len, sizeof hdr - (size_t)len, "%s%zu",
                        i ? ", " : "", shape[i]);
    }
    len += snprintf(hdr + len, sizeof hdr - (size_t)len, "%s), }",
                    ndim == 1 ? "," : "");
    /* magic (6) + version (2) + length (2) + header + '\n', padded to 64 */
    const size_t total = 10 + (size_t)len + 1;
    const size_t pad = (64 - total % 64) % 64;
    memset(hdr + len, ' ', pad);
    len += (int)pad;
    hdr[len++] = '\n';
    const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                   (unsigned char)(len & 0xFF),
                                   (unsigned char)(len >> 8)};
    fwrite(pre, 1, sizeof pre, fp);
    fwrite(hdr, 1, (size_t)len, fp);
    /* the host is little-endian (x86-64, AArch64): the bytes go as they are */
    if (n && elsize && fwrite(data, elsize, n, fp) != n)
        return cli_error("%s: write failed", path), -1;
    return ferror(fp) ? (cli_error("%s: write failed", path), -1) : 0;
}

int cli_npy_write(const char *path, const char *descr, size_t elsize,
                  const void *data, const size_t *shape, int ndim)
{
    cli_out o;
    if (cli_out_open(&o, path))
        return -1;
    if (cli_npy_emit(o.fp, path, descr, elsize, data, shape, ndim)) {
        cli_out_abort(&o);
        return -1;
    }
    return cli_out_commit(&o);
}
