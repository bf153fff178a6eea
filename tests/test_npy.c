/*
 * test_npy.c — the .npy, raw and text readers.
 *
 * usage: test_npy FIXTURE_DIR SCRATCH_DIR
 * FIXTURE_DIR holds the files written by tests/data/gen_npy.py (committed
 * copies in tests/data/npy, fresh ones when numpy is present at test time).
 * Valid fixtures hold (i - 5) * 0.375 at C-order flat index i.  Every case
 * is counted and the count asserted, so a table that stops running fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static int failures, cases;

#define CHECK(cond, ...) do { cases++; if (!(cond)) { failures++; \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static char path_buf[4096];
static const char *join(const char *dir, const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
    return path_buf;
}

struct valid_case {
    const char *file;
    int dtype, big, fortran, vmajor, ndim;
    size_t shape[3];
};

static const struct valid_case valid[] = {
    {"c_f2_1d.npy", AMP_DT_F16, 0, 0, 1, 1, {7}},
    {"c_f4_2d.npy", AMP_DT_F32, 0, 0, 1, 2, {3, 4}},
    {"c_f8_3d.npy", AMP_DT_F64, 0, 0, 1, 3, {2, 3, 4}},
    {"f_f4_2d.npy", AMP_DT_F32, 0, 1, 1, 2, {3, 5}},
    {"f_f8_3d.npy", AMP_DT_F64, 0, 1, 1, 3, {2, 3, 4}},
    {"f_f2_2d.npy", AMP_DT_F16, 0, 1, 1, 2, {4, 3}},
    {"be_f2_2d.npy", AMP_DT_F16, 1, 0, 1, 2, {2, 5}},
    {"be_f4_1d.npy", AMP_DT_F32, 1, 0, 1, 1, {6}},
    {"be_f8_f_2d.npy", AMP_DT_F64, 1, 1, 1, 2, {4, 3}},
    {"scalar_f4.npy", AMP_DT_F32, 0, 0, 1, 0, {0}},
    {"empty_f4.npy", AMP_DT_F32, 0, 0, 1, 1, {0}},
    {"empty_f8_2d.npy", AMP_DT_F64, 0, 0, 1, 2, {3, 0}},
    {"v2_f4.npy", AMP_DT_F32, 0, 0, 2, 2, {2, 2}},
    {"v3_f2.npy", AMP_DT_F16, 0, 0, 3, 1, {3}},
};

/* C-order flat index of the element stored at position j. */
static size_t c_index(const struct valid_case *v, size_t j)
{
    if (!v->fortran)
        return j;
    size_t idx[3] = {0}, rest = j;
    for (int d = 0; d < v->ndim; d++) {   /* first axis fastest */
        idx[d] = rest % v->shape[d];
        rest /= v->shape[d];
    }
    size_t c = 0;
    for (int d = 0; d < v->ndim; d++)
        c = c * v->shape[d] + idx[d];
    return c;
}

static void test_valid(const char *dir)
{
    int ran = 0;
    for (size_t k = 0; k < sizeof valid / sizeof valid[0]; k++) {
        const struct valid_case *v = &valid[k];
        amp_array a;
        char err[512] = "";
        int r = amp_npy_read(&a, join(dir, v->file), err, sizeof err);
        CHECK(r == 0, "%s: read failed: %s", v->file, err);
        if (r)
            continue;
        size_t n = 1;
        for (int d = 0; d < v->ndim; d++)
            n *= v->shape[d];
        CHECK(a.ndim == v->ndim, "%s: ndim %d, want %d", v->file, a.ndim, v->ndim);
        for (int d = 0; d < v->ndim && d < a.ndim; d++)
            CHECK(a.shape[d] == v->shape[d], "%s: shape[%d] %zu want %zu", v->file,
                  d, a.shape[d], v->shape[d]);
        CHECK(a.n == n, "%s: n %zu want %zu", v->file, a.n, n);
        CHECK(a.dtype == v->dtype, "%s: dtype %d want %d", v->file, a.dtype, v->dtype);
        CHECK(a.big_endian == v->big, "%s: big_endian %d", v->file, a.big_endian);
        CHECK(a.fortran_order == v->fortran, "%s: fortran %d", v->file,
              a.fortran_order);
        CHECK(a.version_major == v->vmajor, "%s: version %d", v->file,
              a.version_major);
        size_t bad = 0;
        for (size_t j = 0; j < a.n; j++) {
            double want = ((double)c_index(v, j) - 5) * 0.375;
            if (a.data[j] != want && bad++ == 0)
                fprintf(stderr, "  %s[%zu] = %a, want %a\n", v->file, j,
                        a.data[j], want);
        }
        CHECK(bad == 0, "%s: %zu wrong values", v->file, bad);
        amp_array_free(&a);
        ran++;
    }
    CHECK(ran == 14, "ran %d valid files, want 14", ran);
}

static void test_special(const char *dir)
{
    amp_array a;
    char err[512] = "";
    int r = amp_npy_read(&a, join(dir, "special_f2.npy"), err, sizeof err);
    CHECK(r == 0 && a.n == 7, "special_f2: %s", err);
    if (r || a.n != 7)
        return;
    CHECK(a.data[0] == 0 && !signbit(a.data[0]), "+0");
    CHECK(a.data[1] == 0 && signbit(a.data[1]), "-0");
    CHECK(a.data[2] == 0x1p-24, "min subnormal %a", a.data[2]);
    CHECK(a.data[3] == 65504.0, "max %a", a.data[3]);
    CHECK(isinf(a.data[4]) && a.data[4] > 0, "+inf");
    CHECK(isinf(a.data[5]) && a.data[5] < 0, "-inf");
    CHECK(isnan(a.data[6]), "nan");
    amp_array_free(&a);
}

struct bad_case { const char *file, *expect; };
static const struct bad_case corrupt[] = {
    {"bad_magic.npy", "bad magic"},
    {"truncated_header.npy", "truncated header"},
    {"truncated_len.npy", "truncated"},
    {"truncated_data.npy", "data shorter than the header claims"},
    {"lying_shape.npy", "data shorter than the header claims"},
    {"trailing.npy", "unexpected bytes after the data"},
    {"bad_version.npy", "unsupported .npy format version 4.0"},
    {"bad_dtype_i4.npy", "unsupported dtype '<i4'"},
    {"bad_dtype_c8.npy", "unsupported dtype '<c8'"},
    {"bad_dtype_struct.npy", "structured"},
    {"overflow_shape.npy", "shape product overflows"},
    {"bad_key.npy", "unexpected key 'x'"},
    {"missing_key.npy", "exactly once"},
    {"oversized_header.npy", "oversized header"},
    {"does_not_exist.npy", "cannot open"},
};

static void test_corrupt(const char *dir)
{
    int ran = 0;
    for (size_t k = 0; k < sizeof corrupt / sizeof corrupt[0]; k++) {
        amp_array a;
        char err[512] = "";
        const char *p = join(dir, corrupt[k].file);
        int r = amp_npy_read(&a, p, err, sizeof err);
        CHECK(r == -1, "%s: accepted a corrupt file", corrupt[k].file);
        CHECK(strstr(err, corrupt[k].expect) != NULL,
              "%s: message '%s' lacks '%s'", corrupt[k].file, err, corrupt[k].expect);
        CHECK(strstr(err, corrupt[k].file) != NULL, "%s: message '%s' does not "
              "name the file", corrupt[k].file, err);
        CHECK(a.data == NULL && a.n == 0, "%s: data left behind", corrupt[k].file);
        ran++;
    }
    CHECK(ran == 15, "ran %d corrupt files, want 15", ran);
}

static const char *write_file(const char *dir, const char *name, const void *d,
                              size_t len)
{
    const char *p = join(dir, name);
    FILE *fp = fopen(p, "wb");
    if (!fp || fwrite(d, 1, len, fp) != len) {
        fprintf(stderr, "cannot write %s\n", p);
        exit(2);
    }
    fclose(fp);
    return p;
}

static void test_raw(const char *scratch)
{
    /* Little-endian bytes of 1.5, -0x1p-24 (f16); 0.1f and -inf (f32). */
    static const unsigned char h[] = {0x00, 0x3E, 0x01, 0x80};
    static const unsigned char f[] = {0xCD, 0xCC, 0xCC, 0x3D, 0x00, 0x00, 0x80, 0xFF};
    static const unsigned char d[] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
    amp_array a;
    char err[512];
    CHECK(amp_raw_read(&a, write_file(scratch, "h.raw", h, 4), AMP_DT_F16, err,
                       sizeof err) == 0 && a.n == 2, "raw f16: %s", err);
    CHECK(a.n == 2 && a.data[0] == 1.5 && a.data[1] == -0x1p-24, "raw f16 values");
    amp_array_free(&a);
    CHECK(amp_raw_read(&a, write_file(scratch, "f.raw", f, 8), AMP_DT_F32, err,
                       sizeof err) == 0 && a.n == 2, "raw f32: %s", err);
    CHECK(a.n == 2 && a.data[0] == (double)0.1f && isinf(a.data[1]) &&
          a.data[1] < 0, "raw f32 values");
    amp_array_free(&a);
    CHECK(amp_raw_read(&a, write_file(scratch, "d.raw", d, 8), AMP_DT_F64, err,
                       sizeof err) == 0 && a.n == 1 && a.data[0] == 1.0,
          "raw f64: %s", err);
    amp_array_free(&a);
    /* 8 bytes are not a whole number of... they are; 7 are not. */
    CHECK(amp_raw_read(&a, write_file(scratch, "odd.raw", d, 7), AMP_DT_F32, err,
                       sizeof err) == -1 && strstr(err, "not a whole number"),
          "raw odd size: %s", err);
    CHECK(amp_dtype_parse("f16") == AMP_DT_F16 && amp_dtype_parse("float64") ==
          AMP_DT_F64 && amp_dtype_parse("int8") == -1, "dtype names");
}

static void test_text(const char *scratch)
{
    static const char good[] =
        "# gradients\n"
        "1.5, -2e-8 ,0x1p-30\n"
        "\n"
        "  3 4\t5;6\r\n"
        "inf,-nan\n";
    amp_array a;
    char err[512] = "";
    int r = amp_text_read(&a, write_file(scratch, "g.csv", good, strlen(good)), err,
                          sizeof err);
    CHECK(r == 0 && a.n == 9, "text: r=%d n=%zu %s", r, a.n, err);
    if (!r && a.n == 9) {
        static const double want[7] = {1.5, -2e-8, 0x1p-30, 3, 4, 5, 6};
        for (int i = 0; i < 7; i++)
            CHECK(a.data[i] == want[i], "text[%d] = %a", i, a.data[i]);
        CHECK(isinf(a.data[7]) && isnan(a.data[8]), "text inf/nan");
    }
    amp_array_free(&a);

    static const struct { const char *text, *expect; } bad[] = {
        {"1,2\n3,x4,5\n", "bad1.csv:2:2: 'x4' is not a number"},
        {"1,,2\n", "bad2.csv:1:2: empty field"},
        {"1\n2\n3,\n", "bad3.csv:3:2: empty field"},
        {"1.5e\n", "bad4.csv:1:1: '1.5e' is not a number"},
    };
    int ran = 0;
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "bad%d.csv", k + 1);
        err[0] = 0;
        r = amp_text_read(&a, write_file(scratch, name, bad[k].text,
                                         strlen(bad[k].text)), err, sizeof err);
        CHECK(r == -1 && strstr(err, bad[k].expect), "%s: got '%s', want '%s'",
              name, err, bad[k].expect);
        ran++;
    }
    CHECK(ran == 4, "text error cases %d", ran);
    /* Auto-detection: the .npy magic wins over the extension. */
    r = amp_array_read(&a, join(scratch, "g.csv"), -1, err, sizeof err);
    CHECK(r == 0 && a.dtype == AMP_DT_TEXT && a.n == 9, "auto text");
    amp_array_free(&a);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_npy FIXTURE_DIR SCRATCH_DIR\n");
        return 2;
    }
    test_valid(argv[1]);
    test_special(argv[1]);
    test_corrupt(argv[1]);
    test_raw(argv[2]);
    test_text(argv[2]);
    /* Fixed by the tables: a change to them must update this count. */
    const int expected = 228;
    printf("test_npy: %d checks, %d failures (fixtures %s)\n", cases, failures,
           argv[1]);
    if (cases != expected) {
        fprintf(stderr, "FAIL: ran %d checks, expected %d\n", cases, expected);
        return 1;
    }
    return failures ? 1 : 0;
}
