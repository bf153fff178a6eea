/*
 * test_tensor.c — fplab_tensor: round trips of every dtype through every
 * container, members and keys, metadata and the model sidecar, float
 * formats of tensors, and defects: every truncation of a small file of
 * each container, every single-byte corruption of .npz files (an error or
 * the same data, never different data), and one crafted file per defect
 * with the words its message must contain.
 *
 * usage: test_tensor SCRATCH_DIR
 * Random data come from a fixed seed (FPLAB_TEST_SEED overrides it; the
 * seed is printed).  Every case is counted and the count asserted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "tensor.h"
#include "test_common.h"

static const char *scratch;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    return tc_splitmix(&rng_state);
}

static char pbuf[8][4096];
static int pnext;
static const char *path(const char *name)
{
    char *p = pbuf[pnext++ % 8];
    snprintf(p, sizeof pbuf[0], "%s/%s", scratch, name);
    return p;
}

static void make(tensor *t, tensor_dtype d, int ndim, const size_t *shape)
{
    memset(t, 0, sizeof *t);
    t->dtype = d;
    t->ndim = ndim;
    t->n = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->n *= shape[i];
    }
    size_t b = t->n * tensor_dtype_size(d);
    t->data = malloc(b ? b : 1);
    for (size_t i = 0; i < b; i++)
        t->data[i] = (unsigned char)rnd();
    if (d == TENSOR_BOOL)
        for (size_t i = 0; i < b; i++)
            t->data[i] &= 1;
}

static int same(const tensor *a, const tensor *b, tensor_dtype want_dtype)
{
    if (b->dtype != want_dtype || a->ndim != b->ndim || a->n != b->n)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    size_t bytes = a->n * tensor_dtype_size(a->dtype);
    return bytes == 0 || !memcmp(a->data, b->data, bytes);
}

static unsigned char *slurp(const char *p, size_t *len)
{
    FILE *fp = fopen(p, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, fp) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return b;
}

static void spit(const char *p, const void *b, size_t n)
{
    FILE *fp = fopen(p, "wb");
    if (!fp || fwrite(b, 1, n, fp) != n) {
        fprintf(stderr, "cannot write %s\n", p);
        exit(2);
    }
    fclose(fp);
}

/* ---------------------------------------------------------------------- */

static void test_dtypes(void)
{
    static const size_t sizes[TENSOR_DTYPE_COUNT] = {1, 1, 1, 2, 2, 4, 4, 8, 8,
                                                     2, 2, 4, 8, 1, 1};
    for (int d = 0; d < TENSOR_DTYPE_COUNT; d++)
        CHECK(tensor_dtype_size((tensor_dtype)d) == sizes[d], "size of %s",
              tensor_dtype_name((tensor_dtype)d));
    CHECK(!strcmp(tensor_dtype_name(TENSOR_BF16), "bfloat16") &&
          !strcmp(tensor_dtype_name(TENSOR_F16), "float16") &&
          !strcmp(tensor_dtype_st_name(TENSOR_F8_E4M3), "F8_E4M3"),
          "dtype names");
    tensor t = {0};
    t.ndim = 2;
    t.shape[0] = 3;
    t.shape[1] = 4;
    char s[32];
    tensor_shape_str(&t, s, sizeof s);
    CHECK(!strcmp(s, "(3, 4)"), "shape str %s", s);
    t.ndim = 1;
    tensor_shape_str(&t, s, sizeof s);
    CHECK(!strcmp(s, "(3,)"), "shape str %s", s);
    t.ndim = 0;
    tensor_shape_str(&t, s, sizeof s);
    CHECK(!strcmp(s, "()"), "shape str %s", s);
}

/* Every dtype through every container and flag, five shapes each. */
static void test_round_trips(void)
{
    static const struct { const char *ext; int flags; } cont[] = {
        {"npy", 0}, {"npz", 0}, {"npz", TENSOR_WRITE_DEFLATE},
        {"npz", TENSOR_WRITE_ZIP64}, {"npz", TENSOR_WRITE_ZIP64 | TENSOR_WRITE_DEFLATE},
        {"safetensors", 0},
    };
    static const struct { int ndim; size_t shape[3]; } shapes[] = {
        {0, {0}}, {1, {0}}, {3, {2, 0, 3}}, {2, {3, 5}}, {3, {2, 3, 4}},
    };
    int ran = 0;
    for (size_t c = 0; c < sizeof cont / sizeof cont[0]; c++)
        for (int d = 0; d < TENSOR_DTYPE_COUNT; d++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                tensor a, b;
                char name[64], err[512] = "";
                make(&a, (tensor_dtype)d, shapes[s].ndim, shapes[s].shape);
                snprintf(name, sizeof name, "rt_%zu_%d_%zu.%s", c, d, s, cont[c].ext);
                const tensor *ts[1] = {&a};
                const char *keys[1] = {"x"};
                int r = tensor_write_meta(path(name), ts, keys, 1, cont[c].flags,
                                          NULL, 0, err, sizeof err);
                CHECK(r == 0, "write %s: %s", name, err);
                r = tensor_read(&b, path(name), err, sizeof err);
                CHECK(r == 0, "read %s: %s", name, err);
                tensor_dtype want = (tensor_dtype)d;
                if (strcmp(cont[c].ext, "safetensors")) {
                    if (d == TENSOR_BF16)
                        want = TENSOR_U16;
                    else if (d == TENSOR_F8_E4M3 || d == TENSOR_F8_E5M2)
                        want = TENSOR_U8;
                }
                CHECK(r == 0 && same(&a, &b, want), "%s: round trip of %s differs "
                      "(dtype %s)", name, tensor_dtype_name(a.dtype),
                      tensor_dtype_name(b.dtype));
                tensor_free(&a);
                tensor_free(&b);
                ran++;
            }
    CHECK(ran == 6 * 15 * 5, "round trips ran %d", ran);
}

static void write_three(const char *file, int flags, tensor *t)
{
    static const size_t s1[1] = {4}, s2[2] = {2, 3}, s3[1] = {5};
    make(&t[0], TENSOR_F32, 1, s1);
    make(&t[1], TENSOR_F16, 2, s2);
    make(&t[2], TENSOR_U8, 1, s3);
    const tensor *ts[3] = {&t[0], &t[1], &t[2]};
    const char *keys[3] = {"a", "b", "c"};
    char err[512];
    if (tensor_write_meta(path(file), ts, keys, 3, flags, NULL, 0, err, sizeof err)) {
        fprintf(stderr, "write %s: %s\n", file, err);
        exit(2);
    }
}

static void test_members(void)
{
    static const char *files[] = {"m3.npz", "m3c.npz", "m3.safetensors"};
    for (int f = 0; f < 3; f++) {
        tensor t[3], b;
        char spec[4200], err[512] = "";
        write_three(files[f], f == 1 ? TENSOR_WRITE_DEFLATE : 0, t);
        const char *p = path(files[f]);
        static const char *keys[3] = {"a", "b", "c"};
        for (int k = 0; k < 3; k++) {
            snprintf(spec, sizeof spec, "%s:%s", p, keys[k]);
            int r = tensor_read(&b, spec, err, sizeof err);
            CHECK(r == 0 && same(&t[k], &b, t[k].dtype), "%s: %s", spec, err);
            if (!r) {
                char want[4200];
                snprintf(want, sizeof want, "%s:%s", p, keys[k]);
                CHECK(!strcmp(b.source, want), "source '%s'", b.source);
            }
            tensor_free(&b);
        }
        if (f < 2) {   /* the zip member name works as a key too */
            snprintf(spec, sizeof spec, "%s:b.npy", p);
            int r = tensor_read(&b, spec, err, sizeof err);
            CHECK(r == 0 && same(&t[1], &b, TENSOR_F16), "%s: %s", spec, err);
            tensor_free(&b);
        }
        int r = tensor_read(&b, p, err, sizeof err);
        CHECK(r == -1 && strstr(err, "holds 3 tensors (a, b, c)") &&
              strstr(err, ":KEY"), "no key: '%s'", err);
        snprintf(spec, sizeof spec, "%s:zz", p);
        r = tensor_read(&b, spec, err, sizeof err);
        CHECK(r == -1 && strstr(err, "no tensor 'zz'") && strstr(err, "a, b, c"),
              "missing key: '%s'", err);
        tensor_file *tf;
        r = tensor_file_open(&tf, p, err, sizeof err);
        CHECK(r == 0 && tensor_file_count(tf) == 3 &&
              !strcmp(tensor_file_key(tf, 2), "c"), "open %s: %s", p, err);
        if (!r)
            tensor_file_close(tf);
        for (int k = 0; k < 3; k++)
            tensor_free(&t[k]);
    }
    /* a .npy has no members */
    tensor a, b;
    static const size_t s[1] = {3};
    char err[512] = "", spec[4200];
    make(&a, TENSOR_F64, 1, s);
    const tensor *ts[1] = {&a};
    CHECK(tensor_write(path("one.npy"), ts, NULL, 1, 0, err, sizeof err) == 0,
          "one.npy: %s", err);
    snprintf(spec, sizeof spec, "%s:x", path("one.npy"));
    CHECK(tensor_read(&b, spec, err, sizeof err) == -1 &&
          strstr(err, "has no member 'x'"), "npy key: '%s'", err);
    /* a path containing ':' that exists wins over the split */
    CHECK(tensor_write(path("we:ird.npy"), ts, NULL, 1, 0, err, sizeof err) == 0,
          "we:ird.npy: %s", err);
    CHECK(tensor_read(&b, path("we:ird.npy"), err, sizeof err) == 0 &&
          same(&a, &b, TENSOR_F64), "colon path: %s", err);
    tensor_free(&b);
    /* writer refusals */
    const tensor *two[2] = {&a, &a};
    const char *dup[2] = {"k", "k"};
    CHECK(tensor_write(path("two.npy"), two, dup, 2, 0, err, sizeof err) == -1 &&
          strstr(err, "exactly one tensor"), "two in npy: %s", err);
    CHECK(tensor_write(path("two.npz"), two, dup, 2, 0, err, sizeof err) == -1 &&
          strstr(err, "two tensors named 'k'"), "dup keys: %s", err);
    CHECK(tensor_write(path("x.bin"), ts, dup, 1, 0, err, sizeof err) == -1 &&
          strstr(err, "unknown container"), "extension: %s", err);
    struct stat st;
    CHECK(stat(path("two.npz"), &st) != 0 && stat(path("x.bin"), &st) != 0,
          "a refused write left a file");
    tensor_free(&a);
}

static void test_meta(void)
{
    tensor a;
    static const size_t s[2] = {2, 2};
    char err[512] = "", *line = NULL;
    make(&a, TENSOR_BF16, 2, s);
    const tensor *ts[1] = {&a};
    const char *keys[1] = {"out"};
    tensor_meta meta[2] = {{TENSOR_MODEL_KEY, "gemm acc=binary32 order=sequential"},
                           {"note", "\xc3\xa9t\xc3\xa9"}};
    int r = tensor_write_meta(path("m.safetensors"), ts, keys, 1, 0, meta, 2, err,
                              sizeof err);
    CHECK(r == 0, "meta write: %s", err);
    tensor_file *tf;
    r = tensor_file_open(&tf, path("m.safetensors"), err, sizeof err);
    CHECK(r == 0 && tensor_file_meta_count(tf) == 2 &&
          !strcmp(tensor_file_meta(tf, "note"), "\xc3\xa9t\xc3\xa9") &&
          !strcmp(tensor_file_meta_key(tf, 0), TENSOR_MODEL_KEY),
          "meta read: %s", err);
    if (!r)
        tensor_file_close(tf);
    r = tensor_read_model(path("m.safetensors"), &line, err, sizeof err);
    CHECK(r == 0 && line && !strcmp(line, meta[0].value), "model line: %s",
          line ? line : err);
    free(line);
    /* .npy/.npz: the sidecar */
    r = tensor_write_meta(path("m.npy"), ts, keys, 1, 0, meta, 1, err, sizeof err);
    CHECK(r == 0, "npy meta: %s", err);
    r = tensor_read_model(path("m.npy"), &line, err, sizeof err);
    CHECK(r == 0 && line && !strcmp(line, meta[0].value), "npy model: %s", err);
    free(line);
    r = tensor_write_meta(path("m.npy"), ts, keys, 1, 0, NULL, 0, err, sizeof err);
    struct stat st;
    CHECK(r == 0 && stat(path("m.npy.model"), &st) != 0 && errno == ENOENT,
          "stale sidecar kept");
    r = tensor_read_model(path("m.npy"), &line, err, sizeof err);
    CHECK(r == 0 && line == NULL, "no model expected");
    r = tensor_write_meta(path("m.npz"), ts, keys, 1, 0, meta + 1, 1, err, sizeof err);
    CHECK(r == -1 && strstr(err, "only the model line") && strstr(err, "'note'"),
          "npz other meta: %s", err);
    tensor_meta nl = {TENSOR_MODEL_KEY, "two\nlines"};
    r = tensor_write_meta(path("m.npz"), ts, keys, 1, 0, &nl, 1, err, sizeof err);
    CHECK(r == -1 && strstr(err, "one line"), "multi-line model: %s", err);
    tensor_free(&a);
}

/* tensor_write_fp writes the bytes tensor_write does, into the caller's
 * stream; TENSOR_WRITE_NPY_ANY makes any other name a .npy.  5 checks. */
static void test_write_fp(void)
{
    tensor a;
    static const size_t s[2] = {3, 5};
    char err[512] = "";
    make(&a, TENSOR_BF16, 2, s);
    const tensor *ts[1] = {&a};
    const char *keys[1] = {"w"};
    static const char *const names[4] = {"fp.npy", "fp.npz", "fp.safetensors",
                                         "fp.bits"};
    for (int k = 0; k < 4; k++) {
        const char *want_name = k < 3 ? names[k] : "fp.npy";
        int r = tensor_write(path(want_name), ts, keys, 1, 0, err, sizeof err);
        FILE *fp = fopen(path("fp.out"), "wb");
        r = r ? r : tensor_write_fp(fp, names[k], ts, keys, 1,
                                    TENSOR_WRITE_NPY_ANY, err, sizeof err);
        fclose(fp);
        size_t l1 = 0, l2 = 0;
        unsigned char *b1 = slurp(path(want_name), &l1), *b2 = slurp(path("fp.out"), &l2);
        CHECK(r == 0 && b1 && b2 && l1 == l2 && !memcmp(b1, b2, l1),
              "tensor_write_fp %s: %s", names[k], err);
        free(b1);
        free(b2);
    }
    FILE *fp = fopen(path("fp.out"), "wb");
    int r = tensor_write_fp(fp, "fp.bits", ts, keys, 1, 0, err, sizeof err);
    fclose(fp);
    CHECK(r == -1 && strstr(err, "fp.bits: unknown container"), "no flag: %s", err);
    tensor_free(&a);
}

static void test_formats(void)
{
    tensor t;
    fl_format f;
    char err[512] = "";
    static const size_t s[1] = {4};
    make(&t, TENSOR_F16, 1, s);
    t.source = strdup("h.npy");
    CHECK(tensor_format(&t, NULL, "--out-format", &f, err, sizeof err) == 0 &&
          f.width == 16 && f.prec == 11, "float16 -> binary16");
    CHECK(tensor_format(&t, "ieee:5:10", "--out-format", &f, err, sizeof err) == 0,
          "float16 is ieee:5:10: %s", err);
    CHECK(tensor_format(&t, "bf16", "--out-format", &f, err, sizeof err) == -1 &&
          strstr(err, "h.npy is float16 (binary16) but --out-format says bf16"),
          "float16 vs bf16: %s", err);
    CHECK(tensor_format(&t, "nosuch", "--out-format", &f, err, sizeof err) == -1 &&
          strstr(err, "--out-format") && strstr(err, "nosuch"), "bad name: %s", err);
    tensor_free(&t);
    make(&t, TENSOR_U16, 1, s);
    t.source = strdup("b.npy");
    CHECK(tensor_format(&t, NULL, "--in-format", &f, err, sizeof err) == -1 &&
          strstr(err, "b.npy holds uint16 bit patterns: say which format with "
                 "--in-format"), "uint16 no format: %s", err);
    CHECK(tensor_format(&t, "bfloat16", "--in-format", &f, err, sizeof err) == 0 &&
          f.prec == 8, "uint16 as bf16: %s", err);
    CHECK(tensor_format(&t, "fp8-e4m3", "--in-format", &f, err, sizeof err) == -1 &&
          strstr(err, "stored as uint8"), "uint16 as fp8: %s", err);
    tensor_free(&t);
    make(&t, TENSOR_U8, 1, s);
    t.source = strdup("e.npy");
    memcpy(t.data, "\x01\x3f\x40\x02", 4);
    CHECK(tensor_format(&t, "ieee:3:2", "--in-format", &f, err, sizeof err) == -1 &&
          strstr(err, "element [2] (flat index 2) is 0x40") &&
          strstr(err, "6-bit width"), "high bits: %s", err);
    t.data[2] = 0x20;
    CHECK(tensor_format(&t, "ieee:3:2", "--in-format", &f, err, sizeof err) == 0,
          "6-bit format: %s", err);
    tensor_free(&t);
    make(&t, TENSOR_I16, 1, s);
    t.source = strdup("i.npy");
    CHECK(tensor_format(&t, "bf16", "--in-format", &f, err, sizeof err) == -1 &&
          strstr(err, "needs unsigned bit patterns (uint16)"), "int16: %s", err);
    CHECK(tensor_format(&t, NULL, "--in-format", &f, err, sizeof err) == -1 &&
          strstr(err, "int16 values, not floats"), "int16 none: %s", err);
    tensor_free(&t);
    /* dtype for formats */
    fl_format g;
    static const struct { const char *spec; tensor_dtype d; } df[] = {
        {"binary16", TENSOR_F16}, {"ieee:5:10", TENSOR_F16}, {"bf16", TENSOR_BF16},
        {"fp32", TENSOR_F32}, {"fp64", TENSOR_F64}, {"fp8-e4m3", TENSOR_F8_E4M3},
        {"fp8-e5m2", TENSOR_F8_E5M2}, {"ieee:4:3", TENSOR_U8}, {"tf32", TENSOR_U32},
        {"ieee:11:40", TENSOR_U64}, {"ieee:6:7", TENSOR_U16},
    };
    for (size_t i = 0; i < sizeof df / sizeof df[0]; i++) {
        fl_format_parse(&g, df[i].spec, err, sizeof err);
        CHECK(tensor_dtype_for_format(&g) == df[i].d, "dtype for %s: %s", df[i].spec,
              tensor_dtype_name(tensor_dtype_for_format(&g)));
    }
    uint64_t bits[3] = {0x3c00, 0x8000, 0x7e00};
    size_t sh[1] = {3};
    CHECK(tensor_from_bits(&t, &fl_binary16, 1, sh, bits) == 0 &&
          t.dtype == TENSOR_F16 && tensor_get_bits(&t, 2) == 0x7e00 &&
          tensor_get_bits(&t, 1) == 0x8000, "from_bits");
    uint64_t back[3];
    tensor_to_bits(&t, back);
    CHECK(!memcmp(back, bits, sizeof bits), "to_bits");
    tensor_free(&t);
}

/* Every proper prefix of a valid file fails with the file named. */
static void truncations(const char *file, int *ran)
{
    size_t len;
    unsigned char *b = slurp(path(file), &len);
    if (!b) {
        CHECK(0, "cannot read back %s", file);
        return;
    }
    int bad = 0;
    for (size_t l = 0; l < len; l++) {
        tensor_file *tf;
        char err[512] = "";
        int r = tensor_file_open_mem(&tf, b, l, "cut.bin", err, sizeof err);
        if (r == 0) {
            /* the directory may survive a cut that only the data feel */
            int failed = 0;
            for (size_t i = 0; i < tensor_file_count(tf); i++) {
                tensor t;
                if (tensor_file_get(tf, tensor_file_key(tf, i), &t, err,
                                    sizeof err) == 0)
                    tensor_free(&t);
                else
                    failed = 1;
            }
            tensor_file_close(tf);
            r = failed ? -1 : 0;
        }
        if (r == 0 || strncmp(err, "cut.bin", 7)) {
            if (bad++ < 3)
                fprintf(stderr, "  %s cut to %zu of %zu bytes: r=%d '%s'\n", file,
                        l, len, r, err);
        }
        (*ran)++;
    }
    CHECK(bad == 0, "%s: %d truncations accepted or unnamed", file, bad);
    free(b);
}

/* Every single-byte change of an .npz: an error naming the file, or the
 * very same tensors (bytes no reader looks at: times, attributes). */
static void corruptions(const char *file, tensor *orig, int count, int *ran)
{
    size_t len;
    unsigned char *b = slurp(path(file), &len);
    if (!b) {
        CHECK(0, "cannot read back %s", file);
        return;
    }
    int silent = 0;
    for (size_t pos = 0; pos < len; pos++) {
        b[pos] ^= 0x5A;
        tensor_file *tf;
        char err[512] = "";
        int r = tensor_file_open_mem(&tf, b, len, "flip.npz", err, sizeof err);
        int wrong = 0;
        if (r == 0) {
            for (int i = 0; i < count && !wrong; i++) {
                tensor t;
                const char *k = i < (int)tensor_file_count(tf)
                                    ? tensor_file_key(tf, (size_t)i) : "?";
                if (tensor_file_get(tf, k, &t, err, sizeof err) == 0) {
                    if (!same(&orig[i], &t, orig[i].dtype) || strcmp(k, i == 0 ? "a" : i == 1 ? "b" : "c"))
                        wrong = 1;
                    tensor_free(&t);
                } else if (strncmp(err, "flip.npz", 8)) {
                    wrong = 1;
                }
            }
            tensor_file_close(tf);
        } else if (strncmp(err, "flip.npz", 8)) {
            wrong = 1;
        }
        if (wrong && silent++ < 3)
            fprintf(stderr, "  %s: byte %zu changed: different data or an "
                    "unnamed error ('%s')\n", file, pos, err);
        b[pos] ^= 0x5A;
        (*ran)++;
    }
    CHECK(silent == 0, "%s: %d corruptions gave different data", file, silent);
    free(b);
}

static void test_defect_sweeps(void)
{
    tensor t[3];
    int ran = 0;
    size_t expect = 0, len;
    write_three("sw.npz", 0, t);
    corruptions("sw.npz", t, 3, &ran);
    truncations("sw.npz", &ran);
    for (int k = 0; k < 3; k++)
        tensor_free(&t[k]);
    write_three("swc.npz", TENSOR_WRITE_DEFLATE, t);
    corruptions("swc.npz", t, 3, &ran);
    truncations("swc.npz", &ran);
    for (int k = 0; k < 3; k++)
        tensor_free(&t[k]);
    write_three("sw64.npz", TENSOR_WRITE_ZIP64, t);
    corruptions("sw64.npz", t, 3, &ran);
    truncations("sw64.npz", &ran);
    for (int k = 0; k < 3; k++)
        tensor_free(&t[k]);
    write_three("sw.safetensors", 0, t);
    truncations("sw.safetensors", &ran);
    for (int k = 0; k < 3; k++)
        tensor_free(&t[k]);
    tensor a;
    static const size_t s[2] = {3, 4};
    make(&a, TENSOR_F32, 2, s);
    const tensor *ts[1] = {&a};
    char err[256];
    tensor_write(path("sw.npy"), ts, NULL, 1, 0, err, sizeof err);
    truncations("sw.npy", &ran);
    tensor_free(&a);
    /* the sweeps cover each file's every byte (twice for the .npz files) */
    static const char *files[] = {"sw.npz", "swc.npz", "sw64.npz"};
    for (int i = 0; i < 3; i++) {
        unsigned char *b = slurp(path(files[i]), &len);
        free(b);
        expect += 2 * len;
    }
    free(slurp(path("sw.safetensors"), &len));
    expect += len;
    free(slurp(path("sw.npy"), &len));
    expect += len;
    CHECK((size_t)ran == expect && ran > 1500, "defect sweeps ran %d of %zu", ran,
          expect);
    printf("defect sweeps: %d truncated or corrupted images\n", ran);
}

/* ---------------------------------------------------------------------
 * Crafted defects.
 * ------------------------------------------------------------------- */

static void st_file(const char *name, const char *json, size_t data_len)
{
    size_t jl = strlen(json);
    unsigned char *b = malloc(8 + jl + data_len + 1);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)jl >> (8 * i));
    memcpy(b + 8, json, jl);
    for (size_t i = 0; i < data_len; i++)
        b[8 + jl + i] = (unsigned char)i;
    spit(path(name), b, 8 + jl + data_len);
    free(b);
}

struct defect { const char *file, *key, *frag1, *frag2; };

/* A safetensors file whose header length's low byte is 0x93 starts like
 * a .npy: the full magic decides, not the first byte.  (fplab pads its
 * headers to 8 bytes; other writers need not.)  2 checks. */
static void test_sniff_0x93(void)
{
    static const char head[] = "{\"x\":{\"dtype\":\"U8\",\"shape\":[3],"
                               "\"data_offsets\":[0,3]},\"__metadata__\":"
                               "{\"pad\":\"";
    char json[0x93 + 1];
    const size_t pad = 0x93 - (sizeof head - 1) - 3;   /* 3: the closing "}} */
    snprintf(json, sizeof json, "%s%*s\"}}", head, (int)pad, "");
    CHECK(strlen(json) == 0x93, "header of %zu bytes", strlen(json));
    st_file("h93.safetensors", json, 3);
    tensor t;
    char err[512] = "";
    int r = tensor_read(&t, path("h93.safetensors:x"), err, sizeof err);
    CHECK(r == 0 && t.container == TENSOR_SAFETENSORS && t.dtype == TENSOR_U8 &&
          t.n == 3 && t.data[2] == 2, "header length 0x93: %s", err);
    tensor_free(&t);
}

static void expect_error(const struct defect *d)
{
    tensor t;
    char spec[4200], err[1024] = "";
    if (d->key)
        snprintf(spec, sizeof spec, "%s:%s", path(d->file), d->key);
    else
        snprintf(spec, sizeof spec, "%s", path(d->file));
    int r = tensor_read(&t, spec, err, sizeof err);
    CHECK(r == -1 && strstr(err, d->file) && strstr(err, d->frag1) &&
          (!d->frag2 || strstr(err, d->frag2)),
          "%s: r=%d, message '%s' lacks '%s'/'%s'", d->file, r, err, d->frag1,
          d->frag2 ? d->frag2 : "");
    CHECK(t.data == NULL && t.n == 0, "%s: data left behind", d->file);
    if (!r)
        tensor_free(&t);
}

static void test_safetensors_defects(void)
{
    st_file("ok.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
            "\"data_offsets\":[0,8]},\"__metadata__\":{\"k\":\"v\"}}", 8);
    tensor t;
    char err[512] = "";
    CHECK(tensor_read(&t, path("ok.safetensors"), err, sizeof err) == 0 &&
          t.n == 2 && t.dtype == TENSOR_F32 && t.data[5] == 5,
          "hand-made safetensors: %s", err);
    tensor_free(&t);
    st_file("json.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],,}}", 8);
    st_file("dup.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
            "\"data_offsets\":[0,4]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
            "\"data_offsets\":[4,8]}}", 8);
    st_file("overlap.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
            "\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],"
            "\"data_offsets\":[4,8]}}", 8);
    st_file("hole.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
            "\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],"
            "\"data_offsets\":[8,12]}}", 12);
    st_file("tail.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],"
            "\"data_offsets\":[0,4]}}", 10);
    st_file("range.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],"
            "\"data_offsets\":[0,16]}}", 8);
    st_file("span.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],"
            "\"data_offsets\":[0,8]}}", 8);
    st_file("huge.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":"
            "[4611686018427387904,4611686018427387904],\"data_offsets\":[0,8]}}", 8);
    st_file("dtype.safetensors", "{\"a\":{\"dtype\":\"F8_E8M0\",\"shape\":[8],"
            "\"data_offsets\":[0,8]}}", 8);
    st_file("meta.safetensors", "{\"__metadata__\":{\"k\":1},\"a\":{\"dtype\":"
            "\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1);
    st_file("field.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],"
            "\"data_offsets\":[0,1],\"extra\":0}}", 1);
    st_file("neg.safetensors", "{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],"
            "\"data_offsets\":[0,1]}}", 1);
    st_file("array.safetensors", "[1, 2]", 0);
    unsigned char big[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    spit(path("len.safetensors"), big, 10);
    static const struct defect defects[] = {
        {"json.safetensors", NULL, "bad JSON", "column"},
        {"dup.safetensors", NULL, "bad JSON", "duplicate"},
        {"overlap.safetensors", NULL, "tensors 'a' and 'b' overlap", "[4, 8)"},
        {"hole.safetensors", NULL, "hole in the data area: bytes [4, 8)", NULL},
        {"tail.safetensors", NULL, "6 bytes after the last tensor's data", NULL},
        {"range.safetensors", NULL, "tensor 'a': data_offsets [0, 16] run past "
         "the 8-byte data area", NULL},
        {"span.safetensors", NULL, "shape (3,) of F32 is 12 bytes but "
         "data_offsets [0, 8] span 8", NULL},
        {"huge.safetensors", NULL, "shape product overflows", NULL},
        {"dtype.safetensors", NULL, "unknown dtype 'F8_E8M0'", "dtype.safetensors:a"},
        {"meta.safetensors", NULL, "__metadata__ 'k' is an integer", NULL},
        {"field.safetensors", NULL, "unknown field 'extra'", NULL},
        {"neg.safetensors", NULL, "shape[0] is not a non-negative integer", NULL},
        {"array.safetensors", NULL, "not a tensor file", NULL},
        {"len.safetensors", NULL, "header length says 65535 bytes but only 2 "
         "follow", NULL},
    };
    for (size_t i = 0; i < sizeof defects / sizeof defects[0]; i++)
        expect_error(&defects[i]);
}

/* A tiny stored zip of one member, built by hand, to damage. */
static size_t zip_one(unsigned char *b, const unsigned char *mem, size_t ml,
                      uint32_t crc, int method, int flags)
{
    size_t o = 0;
    const char *nm = "x.npy";
#define W16(v) do { b[o++] = (unsigned char)(v); b[o++] = (unsigned char)((v) >> 8); } while (0)
#define W32(v) do { W16((v) & 0xFFFF); W16((uint32_t)(v) >> 16); } while (0)
    W32(0x04034b50u); W16(20); W16(flags); W16(method); W16(0); W16(0x21);
    W32(crc); W32(ml); W32(ml); W16(5); W16(0);
    memcpy(b + o, nm, 5); o += 5;
    memcpy(b + o, mem, ml); o += ml;
    size_t cd = o;
    W32(0x02014b50u); W16(20); W16(20); W16(flags); W16(method); W16(0); W16(0x21);
    W32(crc); W32(ml); W32(ml); W16(5); W16(0); W16(0); W16(0); W16(0); W32(0);
    W32(0);
    memcpy(b + o, nm, 5); o += 5;
    size_t cdl = o - cd;
    W32(0x06054b50u); W16(0); W16(0); W16(1); W16(1); W32(cdl); W32(cd); W16(0);
#undef W16
#undef W32
    return o;
}

static void test_npz_defects(void)
{
    /* a valid .npy image to wrap */
    tensor a;
    static const size_t s[1] = {4};
    make(&a, TENSOR_F32, 1, s);
    const tensor *ts[1] = {&a};
    char err[512];
    tensor_write(path("inner.npy"), ts, NULL, 1, 0, err, sizeof err);
    size_t ml;
    unsigned char *mem = slurp(path("inner.npy"), &ml);
    unsigned char *b = malloc(ml + 512);
    uint32_t crc = (uint32_t)crc32(0, mem, (unsigned)ml);
    size_t n = zip_one(b, mem, ml, crc, 0, 0);
    spit(path("z_ok.npz"), b, n);
    tensor t;
    CHECK(tensor_read(&t, path("z_ok.npz"), err, sizeof err) == 0 &&
          same(&a, &t, TENSOR_F32), "hand-made zip: %s", err);
    tensor_free(&t);
    n = zip_one(b, mem, ml, crc ^ 1, 0, 0);
    spit(path("z_crc.npz"), b, n);
    n = zip_one(b, mem, ml, crc, 12, 0);
    spit(path("z_method.npz"), b, n);
    n = zip_one(b, mem, ml, crc, 0, 1);
    spit(path("z_enc.npz"), b, n);
    n = zip_one(b, mem, ml, crc, 0, 0);
    spit(path("z_cut.npz"), b, n - 10);
    /* member data damaged inside the .npy header: CRC named first */
    n = zip_one(b, mem, ml, crc, 0, 0);
    b[30 + 5 + 20] ^= 0x20;
    spit(path("z_hdr.npz"), b, n);
    /* end record pointing past the file */
    n = zip_one(b, mem, ml, crc, 0, 0);
    b[n - 22 + 16] = 0xF0;
    spit(path("z_cdoff.npz"), b, n);
    /* ZIP64 sentinel without a locator */
    n = zip_one(b, mem, ml, crc, 0, 0);
    memset(b + n - 22 + 12, 0xFF, 4);
    spit(path("z_sentinel.npz"), b, n);
    /* a deflated member claiming far more than deflate can give */
    n = zip_one(b, mem, ml, crc, 8, 0);
    size_t cdo = n - 22 - 51;
    memset(b + cdo + 24, 0x7F, 4);   /* uncompressed size 0x7f7f7f7f */
    spit(path("z_bomb.npz"), b, n);
    static const struct defect defects[] = {
        {"z_crc.npz", NULL, "z_crc.npz:x: CRC mismatch", "the member is corrupt"},
        {"z_method.npz", NULL, "compression method 12 is not supported", NULL},
        {"z_enc.npz", NULL, "member 'x' is encrypted", NULL},
        {"z_cut.npz", NULL, "no end-of-central-directory record", NULL},
        {"z_hdr.npz", NULL, "CRC mismatch", "and:"},
        {"z_cdoff.npz", NULL, "central directory", "runs past"},
        {"z_sentinel.npz", NULL, "says ZIP64", "no ZIP64 locator"},
        {"z_bomb.npz", NULL, "more than deflate can expand to", NULL},
    };
    for (size_t i = 0; i < sizeof defects / sizeof defects[0]; i++)
        expect_error(&defects[i]);
    free(b);
    free(mem);
    tensor_free(&a);
}

static void npy_file(const char *name, const char *dict, const void *data,
                     size_t dl)
{
    unsigned char b[512];
    size_t hl = strlen(dict);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)hl;
    b[9] = 0;
    memcpy(b + 10, dict, hl);
    memcpy(b + 10 + hl, data, dl);
    spit(path(name), b, 10 + hl + dl);
}

static void test_npy_layouts(void)
{
    /* Fortran order, big-endian: 2 x 3 of >u2 holding C-order values 0..5 */
    static const unsigned char f_be[12] = {0, 0, 0, 3, 0, 1, 0, 4, 0, 2, 0, 5};
    npy_file("fbe.npy", "{'descr': '>u2', 'fortran_order': True, 'shape': (2, 3), }\n",
             f_be, 12);
    tensor t;
    char err[512] = "";
    int r = tensor_read(&t, path("fbe.npy"), err, sizeof err);
    int ok = r == 0 && t.dtype == TENSOR_U16 && t.n == 6;
    for (size_t i = 0; ok && i < 6; i++)
        ok = tensor_get_bits(&t, i) == i;
    CHECK(ok, "fortran big-endian: %s", err);
    tensor_free(&t);
    /* 3-d Fortran order, 1-byte elements */
    unsigned char f3[24];
    size_t k = 0;
    for (size_t c = 0; c < 4; c++)       /* storage: first axis fastest */
        for (size_t b = 0; b < 3; b++)
            for (size_t a = 0; a < 2; a++)
                f3[k++] = (unsigned char)(a * 12 + b * 4 + c);
    npy_file("f3.npy", "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 4), }\n",
             f3, 24);
    r = tensor_read(&t, path("f3.npy"), err, sizeof err);
    ok = r == 0 && t.n == 24;
    for (size_t i = 0; ok && i < 24; i++)
        ok = t.data[i] == i;
    CHECK(ok, "fortran 3-d: %s", err);
    tensor_free(&t);
    npy_file("bool.npy", "{'descr': '|b1', 'fortran_order': False, 'shape': (), }\n",
             "\x01", 1);
    r = tensor_read(&t, path("bool.npy"), err, sizeof err);
    CHECK(r == 0 && t.dtype == TENSOR_BOOL && t.ndim == 0 && t.n == 1 &&
          t.data[0] == 1, "0-d bool: %s", err);
    tensor_free(&t);
    static const struct defect defects[] = {
        {"c16.npy", NULL, "unsupported dtype '<c16'", NULL},
        {"bf4.npy", NULL, "unsupported dtype '|f4'", NULL},
    };
    npy_file("c16.npy", "{'descr': '<c16', 'fortran_order': False, 'shape': (), }\n",
             "", 0);
    npy_file("bf4.npy", "{'descr': '|f4', 'fortran_order': False, 'shape': (), }\n",
             "abcd", 4);
    for (size_t i = 0; i < sizeof defects / sizeof defects[0]; i++)
        expect_error(&defects[i]);
    spit(path("junk.bin"), "hello world, not a tensor", 25);
    struct defect j = {"junk.bin", NULL, "not a tensor file", NULL};
    expect_error(&j);
    struct defect e = {"nonexist.npy", NULL, "cannot open", NULL};
    expect_error(&e);
}

/* The writer's .npy bytes: numpy's header layout, 64-byte aligned. */
static void test_npy_bytes(void)
{
    tensor a;
    static const size_t s[2] = {3, 4};
    make(&a, TENSOR_F32, 2, s);
    const tensor *ts[1] = {&a};
    char err[256];
    tensor_write(path("hdr.npy"), ts, NULL, 1, 0, err, sizeof err);
    size_t len;
    unsigned char *b = slurp(path("hdr.npy"), &len);
    static const char want[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', "
                               "'fortran_order': False, 'shape': (3, 4), }";
    CHECK(b && len == 128 + 48 && !memcmp(b, want, sizeof want - 1) &&
          b[127] == '\n' && b[126] == ' ', "npy header bytes");
    free(b);
    tensor_free(&a);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_tensor SCRATCH_DIR\n");
        return 2;
    }
    scratch = argv[1];
    mkdir(scratch, 0777);
    rng_state = tc_seed_fixed("test_tensor", 20240611);
    test_dtypes();
    test_round_trips();
    test_members();
    test_meta();
    test_sniff_0x93();
    test_write_fp();
    test_formats();
    test_defect_sweeps();
    test_safetensors_defects();
    test_npz_defects();
    test_npy_layouts();
    test_npy_bytes();
    return tc_finish("test_tensor", 1514);
}
