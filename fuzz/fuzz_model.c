/*
 * fuzz_model.c — the model parser of `fplab ref` (src/ref/model.c,
 * src/ref/tree.c): model files, the one-line form and summation trees.
 *
 * Input: byte 0 picks the use (bit 0: parse as a file through a real path,
 * else as one line; bits 1..2: the operation sum/dot/gemm for the check;
 * the next byte: the term count n for it), the rest is the text.
 * The model file lies in an empty directory of its own, so a relative
 * `tree:@PATH` finds nothing; inputs that could name another tree file
 * (an absolute path, or any `@` in the one-line form, which reads from
 * the working directory) are skipped: they could name a pipe of the test
 * runner and wait forever.
 * Properties: no crash, no sanitizer report, no leak; a file error names
 * "PATH:LINE:"; a model that parses prints a canonical line that parses
 * back to the same line; a model that passes fl_ref_model_check for a
 * small n computes a sum / dot / gemm of that n without failing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fplab/ref.h"

/* The model file's place: an empty directory of its own, removed at
 * exit. */
static char model_dir[32], model_file[64];
static int model_fd = -1;

static void remove_dir(void)
{
    unlink(model_file);
    rmdir(model_dir);
}

static const char *model_path(void)
{
    if (model_dir[0] == '\0') {
        snprintf(model_dir, sizeof model_dir, "/tmp/fuzz_model_XXXXXX");
        if (mkdtemp(model_dir) == NULL)
            abort();
        snprintf(model_file, sizeof model_file, "%s/model.txt", model_dir);
        model_fd = open(model_file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (model_fd < 0)
            abort();
        atexit(remove_dir);
    }
    return model_file;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    unsigned sel = fz_u8(&in), n = fz_u8(&in) % 40;
    fl_ref_model m;
    char err[1024] = "";
    int rc;
    /* tree files: relative to the model file only (the one-line form
     * would read them from the working directory) */
    for (size_t i = 0; i < in.n; i++)
        if (in.p[i] == '@' && (!(sel & 1) || (i + 1 < in.n && in.p[i + 1] != '@' &&
                                             (in.p[i + 1] == '/' || in.p[i + 1] == ' '))))
            return 0;
    fl_ref_model_init(&m);
    if (sel & 1) {
        const char *path = model_path();
        if (ftruncate(model_fd, 0) != 0 ||
            pwrite(model_fd, in.p, in.n, 0) != (ssize_t)in.n)
            abort();
        rc = fl_ref_model_parse_file(&m, path, err, sizeof err);
        if (rc != 0 && strncmp(err, path, strlen(path)) != 0)
            FZ_FAIL("file error does not name the file: '%s'", err);
    } else {
        char *text = malloc(in.n + 1);
        if (text == NULL)
            abort();
        memcpy(text, in.p, in.n);
        text[in.n] = '\0';
        rc = fl_ref_model_parse(&m, text, err, sizeof err);
        free(text);
    }
    if (rc == 0) {
        char *l1 = fl_ref_model_string(&m), *l2;
        fl_ref_model m2;
        fl_ref_op op = (fl_ref_op)((sel >> 1) % 3);
        if (l1 == NULL)
            abort();
        fl_ref_model_init(&m2);
        if (fl_ref_model_parse(&m2, l1, err, sizeof err) != 0)
            FZ_FAIL("canonical line does not parse: '%s': %s", l1, err);
        l2 = fl_ref_model_string(&m2);
        if (l2 == NULL || strcmp(l1, l2) != 0)
            FZ_FAIL("round trip: '%s' -> '%s'", l1, l2 ? l2 : "(null)");
        if (fl_ref_model_check(&m, op, n, err, sizeof err) == 0) {
            uint64_t a[40 * 2], b[40 * 2], out[4], one;
            unsigned fl = 0;
            fl_ctx c = fl_ctx_make(FL_RNE);
            fl_ref_gemm_shape s;
            for (unsigned i = 0; i < 2 * n; i++) {
                a[i] = (uint64_t)(i * 0x9E3779B97F4A7C15ull) & (m.in.sign_mask * 2 - 1);
                b[i] = (uint64_t)(i * 0xC2B2AE3D27D4EB4Full) & (m.in.sign_mask * 2 - 1);
            }
            one = fl_from_i32(&m.acc, 1, &c, &fl);
            if (op == FL_REF_OP_SUM)
                rc = fl_ref_sum(&m, a, 2, n, out, 1, &fl, err, sizeof err);
            else if (op == FL_REF_OP_DOT)
                rc = fl_ref_dot(&m, a, b, 2, n, out, 1, &fl, err, sizeof err);
            else {
                fl_ref_gemm_shape_init(&s, sel >> 3 & 1, sel >> 4 & 1, 1, 2, 2, n);
                rc = fl_ref_gemm(&m, &s, one, a, b, 0, NULL, out, 1, &fl, err,
                                 sizeof err);
            }
            if (rc != 0)
                FZ_FAIL("checked model failed to compute: %s (%s)", err, l1);
        }
        free(l1);
        free(l2);
        fl_ref_model_free(&m2);
    }
    fl_ref_model_free(&m);
    return 0;
}
