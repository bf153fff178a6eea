/*
 * test_npy.c — the readers behind fplab hist and fplab quantize: .npy
 * fixtures written by numpy through tensor_read (C order, little-endian
 * whatever the file held), raw values (tensor_read_raw), numbers as text
 * (tensor_read_text) and the choice between a tensor file and text
 * (tensor_read_any).
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

#include "tensor.h"
#include "test_common.h"

static char path_buf[4096];
static const char *join(const char *dir, const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
    return path_buf;
}

/* Element i of a float tensor as a double (exact for every float dtype). */
static double value_at(const tensor *t, size_t i)
{
    switch (t->dtype) {
    case TENSOR_F16: return fl_to_double(&fl_binary16, tensor_get_bits(t, i));
    case TENSOR_F32: return fl_to_double(&fl_binary32, tensor_get_bits(t, i));
    case TENSOR_F64: return fl_to_double(&fl_binary64, tensor_get_bits(t, i));
    default: return NAN;
    }
}

/* The .npy header of a file (version, order, byte order). */
static int npy_info(const char *p, tensor_npy_info *h)
{
    FILE *fp = fopen(p, "rb");
    if (!fp)
        return -1;
    static unsigned char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    char err[256];
    return tensor_npy_info_parse(h, buf, len, p, err, sizeof err);
}

struct valid_case {
    const char *file;
    tensor_dtype dtype;
    int big, fortran, vmajor, ndim;
    size_t shape[3];
};

static const struct valid_case valid[] = {
    {"c_f2_1d.npy", TENSOR_F16, 0, 0, 1, 1, {7}},
    {"c_f4_2d.npy", TENSOR_F32, 0, 0, 1, 2, {3, 4}},
    {"c_f8_3d.npy", TENSOR_F64, 0, 0, 1, 3, {2, 3, 4}},
    {"f_f4_2d.npy", TENSOR_F32, 0, 1, 1, 2, {3, 5}},
    {"f_f8_3d.npy", TENSOR_F64, 0, 1, 1, 3, {2, 3, 4}},
    {"f_f2_2d.npy", TENSOR_F16, 0, 1, 1, 2, {4, 3}},
    {"be_f2_2d.npy", TENSOR_F16, 1, 0, 1, 2, {2, 5}},
    {"be_f4_1d.npy", TENSOR_F32, 1, 0, 1, 1, {6}},
    {"be_f8_f_2d.npy", TENSOR_F64, 1, 1, 1, 2, {4, 3}},
    {"scalar_f4.npy", TENSOR_F32, 0, 0, 1, 0, {0}},
    {"empty_f4.npy", TENSOR_F32, 0, 0, 1, 1, {0}},
    {"empty_f8_2d.npy", TENSOR_F64, 0, 0, 1, 2, {3, 0}},
    {"v2_f4.npy", TENSOR_F32, 0, 0, 2, 2, {2, 2}},
    {"v3_f2.npy", TENSOR_F16, 0, 0, 3, 1, {3}},
};

/* 10 checks a file, plus one per dimension; and the count. */
static void test_valid(const char *dir)
{
    int ran = 0;
    for (size_t k = 0; k < sizeof valid / sizeof valid[0]; k++) {
        const struct valid_case *v = &valid[k];
        tensor t;
        char err[512] = "";
        const char *p = join(dir, v->file);
        int r = tensor_read_any(&t, p, err, sizeof err);
        CHECK(r == 0, "%s: read failed: %s", v->file, err);
        if (r)
            continue;
        size_t n = 1;
        for (int d = 0; d < v->ndim; d++)
            n *= v->shape[d];
        CHECK(t.ndim == v->ndim, "%s: ndim %d, want %d", v->file, t.ndim, v->ndim);
        for (int d = 0; d < v->ndim; d++)
            CHECK(d < t.ndim && t.shape[d] == v->shape[d], "%s: shape[%d] %zu "
                  "want %zu", v->file, d, t.shape[d], v->shape[d]);
        CHECK(t.n == n, "%s: n %zu want %zu", v->file, t.n, n);
        CHECK(t.dtype == v->dtype, "%s: dtype %s", v->file,
              tensor_dtype_name(t.dtype));
        CHECK(t.container == TENSOR_NPY, "%s: container %s", v->file,
              tensor_container_name(t.container));
        CHECK((t.descr[0] == '>') == v->big, "%s: descr '%s'", v->file, t.descr);
        CHECK(t.source && !strcmp(t.source, p), "%s: source %s", v->file,
              t.source ? t.source : "(null)");
        tensor_npy_info h;
        r = npy_info(p, &h);
        CHECK(r == 0 && h.fortran_order == v->fortran, "%s: fortran_order",
              v->file);
        CHECK(r == 0 && h.version_major == v->vmajor, "%s: version %d", v->file,
              h.version_major);
        /* the data come back in C order whatever the file's order */
        size_t bad = 0;
        for (size_t j = 0; j < t.n; j++) {
            double want = ((double)j - 5) * 0.375;
            if (value_at(&t, j) != want && bad++ == 0)
                fprintf(stderr, "  %s[%zu] = %a, want %a\n", v->file, j,
                        value_at(&t, j), want);
        }
        CHECK(bad == 0, "%s: %zu wrong values", v->file, bad);
        tensor_free(&t);
        ran++;
    }
    CHECK(ran == 14, "ran %d valid files, want 14", ran);
}

static void test_special(const char *dir)
{
    tensor t;
    char err[512] = "";
    int r = tensor_read(&t, join(dir, "special_f2.npy"), err, sizeof err);
    CHECK(r == 0 && t.n == 7 && t.dtype == TENSOR_F16, "special_f2: %s", err);
    if (r || t.n != 7 || t.dtype != TENSOR_F16)
        return;
    double a[7];
    for (int i = 0; i < 7; i++)
        a[i] = value_at(&t, (size_t)i);
    CHECK(a[0] == 0 && !signbit(a[0]), "+0");
    CHECK(a[1] == 0 && signbit(a[1]), "-0");
    CHECK(a[2] == 0x1p-24, "min subnormal %a", a[2]);
    CHECK(a[3] == 65504.0, "max %a", a[3]);
    CHECK(isinf(a[4]) && a[4] > 0, "+inf");
    CHECK(isinf(a[5]) && a[5] < 0, "-inf");
    CHECK(isnan(a[6]), "nan");
    tensor_free(&t);
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
    {"bad_dtype_c8.npy", "unsupported dtype '<c8'"},
    {"bad_dtype_struct.npy", "structured"},
    {"overflow_shape.npy", "shape product overflows"},
    {"bad_key.npy", "unexpected key 'x'"},
    {"missing_key.npy", "exactly once"},
    {"oversized_header.npy", "oversized header"},
    {"does_not_exist.npy", "cannot open"},
};

/* 4 checks a file, and the count; then int32 data, which are no defect of
 * the file (the commands refuse them by dtype). */
static void test_corrupt(const char *dir)
{
    int ran = 0;
    for (size_t k = 0; k < sizeof corrupt / sizeof corrupt[0]; k++) {
        tensor t;
        char err[512] = "";
        const char *p = join(dir, corrupt[k].file);
        int r = tensor_read_any(&t, p, err, sizeof err);
        CHECK(r == -1, "%s: accepted a corrupt file", corrupt[k].file);
        CHECK(strstr(err, corrupt[k].expect) != NULL,
              "%s: message '%s' lacks '%s'", corrupt[k].file, err, corrupt[k].expect);
        CHECK(strstr(err, corrupt[k].file) != NULL, "%s: message '%s' does not "
              "name the file", corrupt[k].file, err);
        CHECK(t.data == NULL && t.n == 0 && t.source == NULL, "%s: data left "
              "behind", corrupt[k].file);
        ran++;
    }
    CHECK(ran == 14, "ran %d corrupt files, want 14", ran);
    tensor t;
    char err[512] = "";
    int r = tensor_read(&t, join(dir, "bad_dtype_i4.npy"), err, sizeof err);
    CHECK(r == 0 && t.dtype == TENSOR_I32 && t.n == 6 && !strcmp(t.descr, "<i4") &&
          tensor_get_bits(&t, 5) == 5, "int32 fixture: %s", err);
    tensor_free(&t);
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

/* 7 checks. */
static void test_raw(const char *scratch)
{
    /* Little-endian bytes of 1.5, -0x1p-24 (f16); 0.1f and -inf (f32). */
    static const unsigned char h[] = {0x00, 0x3E, 0x01, 0x80};
    static const unsigned char f[] = {0xCD, 0xCC, 0xCC, 0x3D, 0x00, 0x00, 0x80, 0xFF};
    static const unsigned char d[] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
    tensor t;
    char err[512] = "";
    CHECK(tensor_read_raw(&t, write_file(scratch, "h.raw", h, 4), TENSOR_F16, NULL,
                          err, sizeof err) == 0 && t.n == 2, "raw f16: %s", err);
    CHECK(t.n == 2 && t.ndim == 1 && t.shape[0] == 2 && t.container == TENSOR_RAW &&
          value_at(&t, 0) == 1.5 && value_at(&t, 1) == -0x1p-24, "raw f16 values");
    tensor_free(&t);
    CHECK(tensor_read_raw(&t, write_file(scratch, "f.raw", f, 8), TENSOR_F32, NULL,
                          err, sizeof err) == 0 && t.n == 2, "raw f32: %s", err);
    CHECK(t.n == 2 && value_at(&t, 0) == (double)0.1f && isinf(value_at(&t, 1)) &&
          value_at(&t, 1) < 0, "raw f32 values");
    tensor_free(&t);
    CHECK(tensor_read_raw(&t, write_file(scratch, "d.raw", d, 8), TENSOR_F64, NULL,
                          err, sizeof err) == 0 && t.n == 1 && value_at(&t, 0) == 1.0,
          "raw f64: %s", err);
    tensor_free(&t);
    /* 8 bytes are a whole number of float32; 7 are not.  dname names the
     * dtype as the user spelled it. */
    CHECK(tensor_read_raw(&t, write_file(scratch, "odd.raw", d, 7), TENSOR_F32,
                          "f32", err, sizeof err) == -1 &&
          strstr(err, "odd.raw: 7 bytes is not a whole number of f32 values"),
          "raw odd size: %s", err);
    CHECK(t.data == NULL && t.source == NULL, "raw odd size: data left behind");
}

/* 10 + 4 + 1 + 9 checks. */
static void test_text(const char *scratch)
{
    static const char good[] =
        "# gradients\n"
        "1.5, -2e-8 ,0x1p-30\n"
        "\n"
        "  3 4\t5;6\r\n"
        "inf,-nan\n";
    tensor t;
    char err[512] = "";
    int r = tensor_read_text(&t, write_file(scratch, "g.csv", good, strlen(good)), err,
                             sizeof err);
    CHECK(r == 0 && t.n == 9 && t.dtype == TENSOR_F64 && t.container == TENSOR_TEXT,
          "text: r=%d n=%zu %s", r, t.n, err);
    if (!r && t.n == 9) {
        static const double want[7] = {1.5, -2e-8, 0x1p-30, 3, 4, 5, 6};
        for (int i = 0; i < 7; i++)
            CHECK(value_at(&t, (size_t)i) == want[i], "text[%d] = %a", i,
                  value_at(&t, (size_t)i));
        CHECK(isinf(value_at(&t, 7)) && isnan(value_at(&t, 8)), "text inf/nan");
        CHECK(t.ndim == 1 && t.shape[0] == 9, "text shape");
    }
    tensor_free(&t);

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
        r = tensor_read_text(&t, write_file(scratch, name, bad[k].text,
                                            strlen(bad[k].text)), err, sizeof err);
        CHECK(r == -1 && strstr(err, bad[k].expect), "%s: got '%s', want '%s'",
              name, err, bad[k].expect);
        ran++;
    }
    CHECK(ran == 4, "text error cases %d", ran);

    /* tensor_read_any: the content decides, not the name */
    r = tensor_read_any(&t, join(scratch, "g.csv"), err, sizeof err);
    CHECK(r == 0 && t.container == TENSOR_TEXT && t.n == 9, "any: text");
    tensor_free(&t);
    write_file(scratch, "empty.npy", "", 0);
    r = tensor_read_any(&t, join(scratch, "empty.npy"), err, sizeof err);
    CHECK(r == -1 && strstr(err, "empty.npy: empty file"), "any: empty: %s", err);
    r = tensor_read_any(&t, join(scratch, "nowhere.npy"), err, sizeof err);
    CHECK(r == -1 && strstr(err, "nowhere.npy: cannot open"), "any: missing: %s",
          err);
    /* a member of an .npz and of a .safetensors file */
    const size_t shape[2] = {2, 3};
    const uint64_t bits[6] = {0x3F80, 0x4000, 0xBF80, 0x0001, 0x7F80, 0x0000};
    tensor bf;
    CHECK(tensor_from_bits(&bf, &fl_bfloat16, 2, shape, bits) == 0, "bf16 tensor");
    const tensor *ts[1] = {&bf};
    const char *keys[1] = {"g"};
    static const char *const names[2] = {"m.npz", "m.safetensors"};
    static const tensor_container kinds[2] = {TENSOR_NPZ, TENSOR_SAFETENSORS};
    /* numpy has no bfloat16: .npz members hold its bits as uint16 */
    static const tensor_dtype dts[2] = {TENSOR_U16, TENSOR_BF16};
    for (int k = 0; k < 2; k++) {
        char spec[4200];
        snprintf(spec, sizeof spec, "%s:g", join(scratch, names[k]));
        r = tensor_write(join(scratch, names[k]), ts, keys, 1, 0, err, sizeof err);
        r = r ? r : tensor_read_any(&t, spec, err, sizeof err);
        CHECK(r == 0 && t.container == kinds[k] && t.dtype == dts[k] && t.n == 6 &&
              t.ndim == 2 && tensor_get_bits(&t, 3) == 1, "any: %s: %s", spec, err);
        tensor_free(&t);
    }
    tensor_free(&bf);
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
    /* Fixed by the tables: valid 14 files * 10 checks + 24 dimensions + 1;
     * special 8; corrupt 14 * 4 + 2; raw 7; text 10 + 5 + 6. */
    printf("test_npy: fixtures %s\n", argv[1]);
    return tc_finish("test_npy", 14 * 10 + 24 + 1 + 8 + 14 * 4 + 2 + 7 + 10 + 5 + 6);
}
