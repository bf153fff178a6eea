/*
 * cmd_gpu_check.c — `fplab gpu-check`: NVIDIA intrinsics, reductions,
 * tensor cores and cuBLAS compared bit for bit with the fplab core, and a
 * table of the measured behaviour.
 *
 * Without CUDA support in the build, or without a device, it exits 77
 * ("skipped"), which CTest maps to a skipped test: never a pass, never a
 * failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#ifdef FPLAB_HAVE_CUDA
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "gpu.h"
#include "fplab/tensorcore.h"
#include "tensor.h"

/* The kernels live in a module, libfplab_gpu.so, loaded here and nowhere
 * else (kernels/CMakeLists.txt says why).  Looked for in this order:
 * $FPLAB_GPU_MODULE alone when it is set; else the executable's own
 * directory (the build tree), then FPLAB_GPU_REL relative to it (the
 * installed LIBDIR/fplab). */
static struct {
    int (*query)(fk_device *, char *, size_t);
    const char *(*op_name)(int, int);
    int (*op_supported)(int, int);
    int (*check_elementwise)(int, int, uint64_t, uint64_t, fk_result *,
                             char *, size_t);
    int (*check_reduce)(int, int, int, uint64_t, fk_result *, char *, size_t);
    int (*check_mma)(int, int, const char *, uint64_t, uint64_t, int,
                     fk_result *, char *, size_t);
    int (*check_cublas)(const char *, int, uint64_t, fk_result *, char *,
                        size_t);
    int (*cublas_gemm_f16)(int, int, int, const uint16_t *, const uint16_t *,
                           uint32_t *, double *, char *, size_t);
} gpu_fn;

#define fk_query (gpu_fn.query)
#define fk_op_name (gpu_fn.op_name)
#define fk_op_supported (gpu_fn.op_supported)
#define fk_check_elementwise (gpu_fn.check_elementwise)
#define fk_check_reduce (gpu_fn.check_reduce)
#define fk_check_mma (gpu_fn.check_mma)
#define fk_check_cublas (gpu_fn.check_cublas)
#define fk_cublas_gemm_f16 (gpu_fn.cublas_gemm_f16)

/* Load the module; 0, or -1 with the reason (every place tried, or the
 * loader's message) in why. */
static int gpu_load(char *why, size_t whylen)
{
    static const char lib[] = "libfplab_gpu.so";
    char exe[PATH_MAX], cand[3][PATH_MAX + 64], tried[1024] = "";
    int ncand = 0;
    void *h = NULL;
    const char *env = getenv("FPLAB_GPU_MODULE");
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

    if (env != NULL && *env != '\0')
        snprintf(cand[ncand++], sizeof cand[0], "%s", env);
    else if (n > 0) {
        char *slash;
        exe[n] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL)
            *slash = '\0';
        snprintf(cand[ncand++], sizeof cand[0], "%s/%s", exe, lib);
        if (FPLAB_GPU_REL[0] == '/')
            snprintf(cand[ncand++], sizeof cand[0], "%s/%s", FPLAB_GPU_REL, lib);
        else
            snprintf(cand[ncand++], sizeof cand[0], "%s/%s/%s", exe,
                     FPLAB_GPU_REL, lib);
    }
    for (int i = 0; i < ncand && h == NULL; i++) {
        if (access(cand[i], F_OK) != 0) {
            size_t used = strlen(tried);
            if (used + 2 < sizeof tried)
                snprintf(tried + used, sizeof tried - used, "%s%.*s",
                         used ? ", " : "", (int)(sizeof tried - used - 3),
                         cand[i]);
            continue;
        }
        h = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            /* a long message is cut: the start names the module */
            if (snprintf(why, whylen, "cannot load the CUDA module %s: %s",
                         cand[i], dlerror()) >= (int)whylen)
                why[whylen - 1] = '\0';
            return -1;
        }
    }
    if (h == NULL) {
        snprintf(why, whylen, "the CUDA module %s was not found (looked at "
                 "%.400s; set FPLAB_GPU_MODULE)", lib,
                 tried[0] ? tried : "nothing");
        return -1;
    }
#define GPU_SYM(field, name)                                                 \
    do {                                                                     \
        *(void **)&gpu_fn.field = dlsym(h, name);                            \
        if (gpu_fn.field == NULL) {                                          \
            snprintf(why, whylen, "the CUDA module lacks %s", name);         \
            return -1;                                                       \
        }                                                                    \
    } while (0)
    GPU_SYM(query, "fk_query");
    GPU_SYM(op_name, "fk_op_name");
    GPU_SYM(op_supported, "fk_op_supported");
    GPU_SYM(check_elementwise, "fk_check_elementwise");
    GPU_SYM(check_reduce, "fk_check_reduce");
    GPU_SYM(check_mma, "fk_check_mma");
    GPU_SYM(check_cublas, "fk_check_cublas");
    GPU_SYM(cublas_gemm_f16, "fk_cublas_gemm_f16");
#undef GPU_SYM
    return 0;
}
#endif

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: fplab gpu-check [--quick] [--seed N] [--random N] [--tiles N]\n"
            "                       [--out FILE]\n"
            "       fplab gpu-check --gemm-dump DIR [--dim N] [--seed N]\n\n"
            "Runs NVIDIA's half/bfloat16 intrinsics, conversions, fp32 add/mul/fma\n"
            "(with and without .ftz), half reductions, WMMA tensor-core tiles and a\n"
            "cuBLAS GEMM on the GPU, and compares every result bit for bit with the\n"
            "fplab core (CUDA NaN preset).  Binary half/bf16 ops and conversions from\n"
            "binary32 run over all 2^32 inputs; fma, fp64 and fp32 ops over --random\n"
            "seeded cases (default 2^28; --quick 2^22); tensor cores over --tiles\n"
            "random tiles (default 2^16 = 16.7M outputs; --quick 2^10) plus an\n"
            "adversarial tile.  --out writes the table as Markdown.\n\n"
            "--gemm-dump DIR: one cublasGemmEx (fp16 in, fp32 compute and out) of\n"
            "seeded N x N inputs (--dim, default 256), written as DIR/A.npy and\n"
            "DIR/B.npy (float16) and DIR/D.npy (float32, D = A*B) for `fplab ref\n"
            "gemm` and `fplab compare` to judge (tests/gpu_cublas_ref.sh).\n\n"
            "Exit: 0 all correctly-rounded intrinsics match, 1 a mismatch where the\n"
            "intrinsic is documented as correctly rounded, 2 bad usage, 77 skipped\n"
            "(no CUDA in this build or no device).\n");
}

/* The command's options; quick lowers the defaults of nrand and tiles. */
typedef struct gc_opts {
    uint64_t seed, nrand, tiles;
    int quick, dim;
    const char *out, *dump;
} gc_opts;

/* The arguments, checked alike in every build, so that bad usage is exit
 * 2 even where the checks are skipped.  -1: run; else the exit status
 * (CLI_OK after --help, CLI_USAGE after the message). */
static int parse_args(int argc, char **argv, gc_opts *o)
{
    int nrand_set = 0, tiles_set = 0;
    o->seed = 1;
    o->nrand = (uint64_t)1 << 28;
    o->tiles = (uint64_t)1 << 16;
    o->quick = 0;
    o->dim = 256;
    o->out = o->dump = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--random") ||
                   !strcmp(a, "--tiles")) {
            uint64_t v;
            if (i + 1 >= argc || cli_parse_u64(argv[i + 1], &v) != 0)
                return cli_error("gpu-check: %s needs a non-negative integer%s%s",
                                 a, i + 1 < argc ? ", got " : "",
                                 i + 1 < argc ? argv[i + 1] : "");
            i++;
            if (!strcmp(a, "--seed"))
                o->seed = v;
            else if (!strcmp(a, "--random"))
                o->nrand = v, nrand_set = 1;
            else
                o->tiles = v, tiles_set = 1;
        } else if (!strcmp(a, "--out")) {
            if (i + 1 >= argc)
                return cli_error("gpu-check: --out needs a file name");
            o->out = argv[++i];
        } else if (!strcmp(a, "--gemm-dump")) {
            if (i + 1 >= argc)
                return cli_error("gpu-check: --gemm-dump needs a directory");
            o->dump = argv[++i];
        } else if (!strcmp(a, "--dim")) {
            uint64_t v;
            if (i + 1 >= argc || cli_parse_u64(argv[i + 1], &v) != 0 ||
                v < 1 || v > 8192)
                return cli_error("gpu-check: --dim needs an integer 1..8192");
            o->dim = (int)v;
            i++;
        } else {
            return cli_error("gpu-check: unknown argument '%s' (see --help)", a);
        }
    }
    if (o->quick) {
        if (!nrand_set)
            o->nrand = (uint64_t)1 << 22;
        if (!tiles_set)
            o->tiles = 1024;
    }
    return -1;
}

#ifndef FPLAB_HAVE_CUDA
int cmd_gpu_check(int argc, char **argv)
{
    gc_opts g;
    const int r = parse_args(argc, argv, &g);
    if (r >= 0)
        return r;
    fprintf(stderr, "fplab gpu-check: skipped: this fplab was built without "
                    "the CUDA toolkit\n");
    return CLI_SKIP;
}
#else

/* Which intrinsics are documented as correctly rounded (a mismatch there
 * is a failure); the others are measured and reported. */
static int must_match(int op)
{
    return !(op == FK_DIV || op == FK_SQRT || op == FK_RCP);
}

struct report {
    FILE *md;
    int failures;
};

static void show(struct report *rp, const char *what, const fk_result *r,
                 int strict, int width)
{
    const char *verdict = r->mismatches == 0 ? "bit-exact"
                          : strict ? "MISMATCH" : "differs";
    double rate = r->seconds > 0 ? (double)r->cases / r->seconds : 0;
    printf("%-26s %14llu %12llu %8llu %-10s %9.3f s %8.2f Gcase/s\n", what,
           (unsigned long long)r->cases, (unsigned long long)r->mismatches,
           (unsigned long long)r->max_ulp, verdict, r->seconds, rate / 1e9);
    for (int k = 0; k < r->nrec && k < 3; k++)
        printf("    in %0*llx %0*llx %0*llx: got 0x%0*llx want 0x%0*llx\n",
               width, (unsigned long long)r->in[k][0], width,
               (unsigned long long)r->in[k][1], width,
               (unsigned long long)r->in[k][2], width,
               (unsigned long long)r->got[k], width,
               (unsigned long long)r->want[k]);
    if (rp->md) {
        fprintf(rp->md, "| %s | %llu | %llu | %llu | %s | %.3f |", what,
                (unsigned long long)r->cases,
                (unsigned long long)r->mismatches,
                (unsigned long long)r->max_ulp, verdict, r->seconds);
        if (r->nrec)
            fprintf(rp->md, " in %llx %llx %llx: got 0x%llx want 0x%llx |\n",
                    (unsigned long long)r->in[0][0],
                    (unsigned long long)r->in[0][1],
                    (unsigned long long)r->in[0][2],
                    (unsigned long long)r->got[0],
                    (unsigned long long)r->want[0]);
        else
            fprintf(rp->md, " |\n");
    }
    if (strict && r->mismatches)
        rp->failures++;
}

/* A seeded binary16 input: exponent in [-6, 6], random sign and
 * fraction, some zeros (as the tensor-core checks draw them). */
static uint16_t dump_value(uint64_t seed, uint64_t i)
{
    uint64_t r = fl_sr_bits(seed, i);
    unsigned e = (unsigned)(r % 13) + 15 - 6;
    if ((r & 0xF0) == 0)
        return (uint16_t)((r >> 63) << 15);
    return (uint16_t)(((r >> 63) << 15) | (e << 10) | ((r >> 8) & 0x3FF));
}

static int dump_one(const char *dir, const char *name, const fl_format *f,
                    size_t rows, size_t cols, const uint64_t *bits)
{
    char path[4096], err[512];
    size_t shape[2] = {rows, cols};
    tensor t;
    const tensor *ts[1] = {&t};
    const char *keys[1] = {name};
    int rc;
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (tensor_from_bits(&t, f, 2, shape, bits) != 0)
        return cli_error("gpu-check: out of memory");
    rc = tensor_write(path, ts, keys, 1, 0, err, sizeof err);
    tensor_free(&t);
    if (rc != 0)
        return cli_error("gpu-check: %s", err);
    printf("wrote %s\n", path);
    return 0;
}

/* --gemm-dump: one cublasGemmEx on seeded inputs, written for fplab ref
 * and fplab compare.  The judging is theirs, never GPU against GPU. */
static int gemm_dump(const char *dir, int dim, uint64_t seed)
{
    const size_t nn = (size_t)dim * dim;
    uint16_t *a = malloc(nn * 2), *b = malloc(nn * 2);
    uint32_t *d = malloc(nn * 4);
    uint64_t *bits = malloc(nn * 8);
    char why[512];
    double sec = 0;
    int rc = CLI_USAGE;
    if (!a || !b || !d || !bits) {
        cli_error("gpu-check: out of memory");
        goto done;
    }
    if (cli_mkdir_p(dir, "gpu-check: --gemm-dump") != 0)
        goto done;
    for (size_t i = 0; i < nn; i++) {
        a[i] = dump_value(seed, 2 * i);
        b[i] = dump_value(seed, 2 * i + 1);
    }
    if (fk_cublas_gemm_f16(dim, dim, dim, a, b, d, &sec, why, sizeof why)) {
        cli_error("gpu-check: %s", why);
        goto done;
    }
    for (size_t i = 0; i < nn; i++)
        bits[i] = a[i];
    if (dump_one(dir, "A", &fl_binary16, dim, dim, bits) != 0)
        goto done;
    for (size_t i = 0; i < nn; i++)
        bits[i] = b[i];
    if (dump_one(dir, "B", &fl_binary16, dim, dim, bits) != 0)
        goto done;
    for (size_t i = 0; i < nn; i++)
        bits[i] = d[i];
    if (dump_one(dir, "D", &fl_binary32, dim, dim, bits) != 0)
        goto done;
    printf("cublasGemmEx %d x %d x %d, fp16 in, fp32 compute: %.3f ms\n",
           dim, dim, dim, sec * 1e3);
    rc = CLI_OK;
done:
    free(a);
    free(b);
    free(d);
    free(bits);
    return rc;
}

int cmd_gpu_check(int argc, char **argv)
{
    gc_opts g;
    fk_device dev;
    char why[512];
    cli_out o;
    struct report rp = {NULL, 0};
    int ndev;
    const int pr = parse_args(argc, argv, &g);
    if (pr >= 0)
        return pr;
    const uint64_t seed = g.seed, nrand = g.nrand, tiles = g.tiles;
    const int quick = g.quick, dim = g.dim;
    const char *out = g.out, *dump = g.dump;

    if (gpu_load(why, sizeof why) != 0) {
        fprintf(stderr, "fplab gpu-check: skipped: %s\n", why);
        return CLI_SKIP;
    }
    ndev = fk_query(&dev, why, sizeof why);
    if (ndev == 0) {
        fprintf(stderr, "fplab gpu-check: skipped: %s\n", why);
        return CLI_SKIP;
    }
    if (dump)
        return gemm_dump(dump, dim, seed);
    if (out) {
        time_t now = time(NULL);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
        if (cli_out_open(&o, out) != 0)
            return CLI_USAGE;
        rp.md = o.fp;
        fprintf(rp.md,
                "# GPU results\n\nMeasured by `fplab gpu-check%s --seed %llu` on %s.\n\n"
                "- GPU: %s (compute capability %d.%d, %.0f GiB)\n"
                "- Driver API %d, runtime %d\n"
                "- Measured device copy bandwidth: %.0f GB/s\n\n"
                "| check | cases | mismatches | max ulp | verdict | seconds | first mismatch |\n"
                "|---|---|---|---|---|---|---|\n",
                quick ? " --quick" : "", (unsigned long long)seed, date,
                dev.name, dev.cc_major, dev.cc_minor, dev.mem_gb,
                dev.driver_version, dev.runtime_version, dev.copy_gbs);
    }
    printf("device: %s (sm_%d%d), driver %d, runtime %d, copy bandwidth %.0f GB/s\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.driver_version,
           dev.runtime_version, dev.copy_gbs);
    printf("%-26s %14s %12s %8s %-10s %11s\n", "check", "cases", "mismatches",
           "max ulp", "verdict", "time");

    for (int type = FK_HALF; type <= FK_BF16; type++) {
        if (type == FK_BF16 && dev.cc_major < 8) {
            printf("bf16 checks skipped: sm_%d%d < sm_80\n", dev.cc_major,
                   dev.cc_minor);
            continue;
        }
        for (int op = 0; op < FK_OP_COUNT; op++) {
            fk_result r;
            if (!fk_op_supported(type, op))
                continue;
            if (fk_check_elementwise(type, op, nrand, seed, &r, why, sizeof why)) {
                fprintf(stderr, "fplab gpu-check: %s: %s\n", fk_op_name(type, op), why);
                rp.failures++;
                continue;
            }
            show(&rp, fk_op_name(type, op), &r, must_match(op),
                 op >= FK_F32_ADD ? 8 : op == FK_FROM_F64 ? 16 : 4);
            if (r.nan_bits && op <= FK_FMA_SAT)
                printf("    NaN produced: 0x%llx\n", (unsigned long long)r.nan_bits);
        }
    }
    {
        fk_result r;
        if (!fk_check_reduce(1, 4096, 4096, seed, &r, why, sizeof why))
            show(&rp, "sum of 4096 half, half acc", &r, 1, 8);
        if (!fk_check_reduce(0, 4096, 4096, seed, &r, why, sizeof why))
            show(&rp, "sum of 4096 half, f32 acc", &r, 1, 8);
    }
    /* Tensor cores: the hardware against every model preset with the
     * same input type; the table says which preset matches. */
    for (size_t k = 0; k < fl_tc_model_count(); k++) {
        const fl_tc_model *m = fl_tc_model_preset(k);
        char what[64];
        fk_result r;
        int type = m->in == &fl_bfloat16 ? FK_BF16 : FK_HALF;
        if (m->in == &fl_tf32 || (type == FK_BF16 && dev.cc_major < 8))
            continue;
        snprintf(what, sizeof what, "wmma f32acc vs %s", m->name);
        if (!fk_check_mma(type, 0, m->name, tiles, seed, 1, &r, why, sizeof why))
            show(&rp, what, &r, 0, 8);
        if (type == FK_HALF) {
            snprintf(what, sizeof what, "wmma f16acc vs %s", m->name);
            if (!fk_check_mma(type, 1, m->name, tiles, seed, 1, &r, why, sizeof why))
                show(&rp, what, &r, 0, 4);
        }
        if (type == FK_HALF) {
            snprintf(what, sizeof what, "cublasGemmEx vs %s", m->name);
            if (!fk_check_cublas(m->name, quick ? 128 : 512, seed, &r, why, sizeof why))
                show(&rp, what, &r, 0, 8);
            else
                printf("%s: %s\n", what, why);
        }
    }
    if (rp.md) {
        fprintf(rp.md, "\nRows marked `MISMATCH` are intrinsics documented as "
                       "correctly rounded; `differs` rows are measured behaviour "
                       "(approximate intrinsics, or a tensor-core model preset that "
                       "is not this GPU's).\n");
        if (cli_out_commit(&o) != 0)
            return CLI_USAGE;
    }
    printf("%s\n", rp.failures ? "FAIL: correctly-rounded intrinsics mismatched"
                               : "OK: every correctly-rounded intrinsic matched the core");
    return rp.failures ? CLI_MISMATCH : CLI_OK;
}
#endif
