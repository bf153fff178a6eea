/*
 * tensor_tool.c — fplab_tensor from the command line, for the interop
 * test with numpy (tests/tensor_interop.py).
 *
 *   tensor_tool pack OUT [--deflate] [--zip64] [--meta KEY=VALUE]... KEY=SPEC...
 *       read every SPEC (path or path:key) and write them to OUT (.npy:
 *       exactly one; .npz; .safetensors) under the KEYs
 *   tensor_tool info SPEC...
 *       one line per tensor: dtype, shape, element count, source
 *   tensor_tool meta FILE
 *       the container, the keys, the metadata (KEY=VALUE lines) and the
 *       model line (safetensors metadata or the .model sidecar)
 *
 * Exit status 0, or 2 with the library's message on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

static int fail(const char *msg)
{
    fprintf(stderr, "tensor_tool: %s\n", msg);
    return 2;
}

static int pack(int argc, char **argv)
{
    if (argc < 3)
        return fail("pack OUT KEY=SPEC...");
    const char *out = argv[2];
    int flags = 0;
    static tensor ts[64];
    static const tensor *tp[64];
    static const char *keys[64];
    static tensor_meta meta[16];
    size_t n = 0, nm = 0;
    char err[1024];
    int rc = 0;
    for (int i = 3; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--deflate")) {
            flags |= TENSOR_WRITE_DEFLATE;
        } else if (!strcmp(argv[i], "--zip64")) {
            flags |= TENSOR_WRITE_ZIP64;
        } else if (!strcmp(argv[i], "--meta") && i + 1 < argc && nm < 16) {
            char *eq = strchr(argv[++i], '=');
            if (!eq)
                return fail("--meta KEY=VALUE");
            *eq = 0;
            meta[nm].key = argv[i];
            meta[nm++].value = eq + 1;
        } else {
            char *eq = strchr(argv[i], '=');
            if (!eq || n == 64) {
                rc = fail("pack: want KEY=SPEC");
                break;
            }
            *eq = 0;
            keys[n] = argv[i];
            if (tensor_read(&ts[n], eq + 1, err, sizeof err)) {
                rc = fail(err);
                break;
            }
            tp[n] = &ts[n];
            n++;
        }
    }
    if (!rc && tensor_write_meta(out, tp, keys, n, flags, meta, nm, err,
                                 sizeof err))
        rc = fail(err);
    for (size_t i = 0; i < n; i++)
        tensor_free(&ts[i]);
    return rc;
}

static int info(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        tensor t;
        char err[1024], shp[512];
        if (tensor_read(&t, argv[i], err, sizeof err))
            return fail(err);
        tensor_shape_str(&t, shp, sizeof shp);
        printf("%s dtype=%s shape=%s n=%zu source=%s\n", argv[i],
               tensor_dtype_name(t.dtype), shp, t.n, t.source);
        tensor_free(&t);
    }
    return 0;
}

static int meta(int argc, char **argv)
{
    if (argc != 3)
        return fail("meta FILE");
    tensor_file *tf;
    char err[1024], *line;
    if (tensor_file_open(&tf, argv[2], err, sizeof err))
        return fail(err);
    printf("container=%s\n", tensor_container_name(tensor_file_container(tf)));
    for (size_t i = 0; i < tensor_file_count(tf); i++)
        printf("key=%s\n", tensor_file_key(tf, i));
    for (size_t i = 0; i < tensor_file_meta_count(tf); i++)
        printf("meta %s=%s\n", tensor_file_meta_key(tf, i),
               tensor_file_meta_value(tf, i));
    tensor_file_close(tf);
    if (tensor_read_model(argv[2], &line, err, sizeof err))
        return fail(err);
    printf("model=%s\n", line ? line : "(none)");
    free(line);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "pack"))
        return pack(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "info"))
        return info(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "meta"))
        return meta(argc, argv);
    return fail("usage: tensor_tool pack|info|meta ...");
}
