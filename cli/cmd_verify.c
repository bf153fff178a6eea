/*
 * cmd_verify.c — `fplab verify`: compare the core with an independent
 * oracle over every input, or a seeded random sample biased toward the hard
 * cases; threads on all cores; MPI sharding when launched under mpirun.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "oracle.h"
#include "sweep.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef FPLAB_HAVE_MPI
#include <mpi.h>
#endif

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab verify --format F --op OP [--from SRC] [--rm MODE|all]\n"
"                    [--oracle mpfr|hw|cuda-host|auto]\n"
"                    [--exhaustive | --random N [--seed S]] [--threads T]\n"
"                    [--no-flags] [--daz] [--show K] [--log FILE] [--quiet]\n"
"       fplab verify --list\n"
"\n"
"  --op       add sub mul div sqrt fma cvt (cvt converts --from SRC,\n"
"             default binary32, into --format F)\n"
"  --rm       rne rtz rdn rup rna rto, or all (modes the oracle lacks are\n"
"             reported as skipped); default rne\n"
"  --oracle   auto takes the fastest oracle that covers the job\n"
"  --exhaustive  every input: 2^(arity x width) cases (at most 2^40)\n"
"  --random N    N inputs from seed S (default 1), biased toward ties,\n"
"             overflow and subnormal boundaries, cancellation\n"
"  --threads  default: all online cores\n"
"  --no-flags compare values only\n"
"  --daz      denormals-are-zero on inputs (models vcvtneps2bf16)\n"
"  --nan-any  compare NaN results as any NaN (default: bit for bit when the\n"
"             oracle reproduces a NaN preset)\n"
"  --nan P    run under NaN rule P (fplab calc --nan's names); an oracle\n"
"             that models NaN bits covers only its own rule (hw: x86,\n"
"             cuda-host: cuda), mpfr any rule (NaN results as any NaN)\n"
"  --show K   print the first K mismatches (default 10, at most %d)\n"
"  --log FILE append one tab-separated line per mode (for reports)\n"
"  --inject-every N  self-test: corrupt the core's result at every index\n"
"             divisible by N (the sweep must then report mismatches)\n"
"Under mpirun each rank sweeps one shard; rank 0 prints the reduced result.\n"
"Exit: 0 no mismatch, 1 mismatches, 2 bad usage, 77 nothing could run.\n",
            FL_SWEEP_MAXREC);
}

static void print_hex(FILE *fp, const fl_format *f, uint64_t v)
{
    fprintf(fp, "0x%0*llx", (f->width + 3) / 4, (unsigned long long)v);
}

static void print_rec(const fl_sweep_cfg *cfg, const fl_sweep_rec *r,
                      unsigned fmask)
{
    const fl_orc_job *j = &cfg->job;
    const int ar = fl_orc_op_arity(j->op);
    printf("MISMATCH %s %s %s [%llu] a=", j->fmt->name,
           fl_orc_op_name(j->op), fl_rm_name(j->ctx.rm),
           (unsigned long long)r->index);
    print_hex(stdout, j->src, r->a);
    if (ar >= 2) { printf(" b="); print_hex(stdout, j->src, r->b); }
    if (ar >= 3) { printf(" c="); print_hex(stdout, j->src, r->c); }
    printf(" expected=");
    print_hex(stdout, j->fmt, r->want);
    if (r->wflags & FL_ORC_ERROR)
        printf(" (oracle error)");
    else if (fmask)
        printf(" flags=%02x", r->wflags & fmask);
    printf(" got=");
    print_hex(stdout, j->fmt, r->got);
    if (fmask)
        printf(" flags=%02x", r->gflags & fmask);
    printf("\n");
}

static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

int cmd_verify(int argc, char **argv)
{
    fl_format fmt, src;
    const char *fmt_s = NULL, *src_s = "binary32", *op_s = NULL;
    const char *rm_s = "rne", *orc_s = "auto", *log_s = NULL;
    int exhaustive = 0, have_random = 0, no_flags = 0, daz = 0, quiet = 0;
    int nan_any = 0, nan_rule = -1;
    uint64_t random_n = 0, seed = 1, u, inject = 0;
    int threads = online_cores(), show = 10, op, i;
    int modes[FL_RM_COUNT], nmodes = 0, any_run = 0, any_mm = 0;
    int rank = 0, nranks = 1, use_mpi = 0, rc_final;
    char why[256], cpu[64], date[32];

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV() do { if (!v) return cli_error("verify: %s needs a value", a); i++; } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return CLI_OK; }
        else if (!strcmp(a, "--list")) {
            size_t k;
            for (k = 0; k < fl_oracle_count(); k++) {
                const fl_oracle *o = fl_oracle_get(k);
                int ok = o->can_run(why, sizeof why);
                printf("%-10s %-4s %s — %s\n", o->name, ok ? "yes" : "no",
                       o->what, why);
            }
            return CLI_OK;
        }
        else if (!strcmp(a, "--format")) { NEEDV(); fmt_s = v; }
        else if (!strcmp(a, "--from")) { NEEDV(); src_s = v; }
        else if (!strcmp(a, "--op")) { NEEDV(); op_s = v; }
        else if (!strcmp(a, "--rm")) { NEEDV(); rm_s = v; }
        else if (!strcmp(a, "--oracle")) { NEEDV(); orc_s = v; }
        else if (!strcmp(a, "--log")) { NEEDV(); log_s = v; }
        else if (!strcmp(a, "--exhaustive")) exhaustive = 1;
        else if (!strcmp(a, "--no-flags")) no_flags = 1;
        else if (!strcmp(a, "--daz")) daz = 1;
        else if (!strcmp(a, "--nan-any")) nan_any = 1;
        else if (!strcmp(a, "--nan")) {
            NEEDV();
            if ((nan_rule = fl_nan_preset_parse(v)) < 0)
                return cli_error("verify: --nan: '%s' is not a NaN rule (x86 arm "
                                 "riscv cuda softfloat sign sign-pos default-neg "
                                 "first)", v);
        }
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--random")) {
            NEEDV();
            if (cli_parse_u64(v, &random_n) != 0 || random_n == 0)
                return cli_error("verify: --random: '%s' is not a positive integer", v);
            have_random = 1;
        } else if (!strcmp(a, "--seed")) {
            NEEDV();
            if (cli_parse_u64(v, &seed) != 0)
                return cli_error("verify: --seed: '%s' is not an integer", v);
        } else if (!strcmp(a, "--threads")) {
            NEEDV();
            if (cli_parse_u64(v, &u) != 0 || u == 0 || u > 1024)
                return cli_error("verify: --threads: '%s' is not in 1..1024", v);
            threads = (int)u;
        } else if (!strcmp(a, "--inject-every")) {
            NEEDV();
            if (cli_parse_u64(v, &inject) != 0 || inject == 0)
                return cli_error("verify: --inject-every: '%s' is not a positive integer", v);
        } else if (!strcmp(a, "--show")) {
            NEEDV();
            if (cli_parse_u64(v, &u) != 0 || u > FL_SWEEP_MAXREC)
                return cli_error("verify: --show: '%s' is not in 0..%d", v, FL_SWEEP_MAXREC);
            show = (int)u;
        } else
            return cli_error("verify: unknown argument '%s' (see --help)", a);
#undef NEEDV
    }
    if (!fmt_s || !op_s)
        return cli_error("verify: --format and --op are required (see --help)");
    if (cli_parse_format(fmt_s, &fmt, "verify: --format") != 0)
        return CLI_USAGE;
    op = fl_orc_op_parse(op_s);
    if (op < 0)
        return cli_error("verify: --op: '%s' is not one of add sub mul div sqrt fma cvt", op_s);
    if (op == FL_ORC_CVT) {
        if (cli_parse_format(src_s, &src, "verify: --from") != 0)
            return CLI_USAGE;
    } else {
        src = fmt;
    }
    if (strcmp(orc_s, "auto") && !fl_oracle_by_name(orc_s))
        return cli_error("verify: --oracle: '%s' is not one of mpfr hw cuda-host auto", orc_s);
    if (!strcmp(rm_s, "all")) {
        static const int all[] = {FL_RNE, FL_RTZ, FL_RDN, FL_RUP, FL_RNA, FL_RTO};
        for (i = 0; i < 6; i++) modes[nmodes++] = all[i];
    } else {
        int rm = cli_parse_rm(rm_s, "verify: --rm");
        if (rm < 0) return CLI_USAGE;
        modes[nmodes++] = rm;
    }

    if (exhaustive == have_random)
        return cli_error("verify: give exactly one of --exhaustive and --random N");

#ifdef FPLAB_HAVE_MPI
    /* Only when launched by an MPI launcher: a plain run stays MPI-free. */
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
        getenv("PMIX_RANK")) {
        int inited = 0;
        MPI_Initialized(&inited);
        if (!inited) MPI_Init(NULL, NULL);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
        use_mpi = 1;
    }
#endif

    fl_orc_cpu_model(cpu, sizeof cpu);
    {
        time_t t = time(NULL);
        struct tm tmv;
        gmtime_r(&t, &tmv);
        strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    }

    for (i = 0; i < nmodes; i++) {
        fl_sweep_cfg cfg;
        fl_sweep_result res;
        const fl_oracle *o = NULL;
        uint64_t space;
        unsigned fmask;
        char label[128];
        memset(&cfg, 0, sizeof cfg);
        cfg.job.fmt = &fmt;
        cfg.job.src = &src;
        cfg.job.op = op;
        cfg.job.ctx = fl_ctx_make(modes[i]);
        cfg.job.ctx.daz = (uint8_t)daz;

        if (!strcmp(orc_s, "auto")) {
            size_t k;
            for (k = 0; k < fl_oracle_count() && !o; k++) {
                const fl_oracle *c = fl_oracle_get(k);
                cfg.job.ctx.nan = (uint8_t)(nan_rule >= 0 ? nan_rule
                                            : c->nan_preset >= 0 ? c->nan_preset
                                                                 : FL_NANP_X86);
                if (nan_rule >= 0 && c->nan_preset >= 0 && c->nan_preset != nan_rule)
                    continue;   /* an oracle of another NaN rule */
                if (c->can_run(why, sizeof why) && c->supports(&cfg.job, why, sizeof why))
                    o = c;
            }
            if (!o) snprintf(why, sizeof why, "no oracle covers this job");
        } else {
            o = fl_oracle_by_name(orc_s);
            if (!o)
                return cli_error("verify: --oracle: '%s' is not one of mpfr hw cuda-host auto", orc_s);
            cfg.job.ctx.nan = (uint8_t)(nan_rule >= 0 ? nan_rule
                                        : o->nan_preset >= 0 ? o->nan_preset
                                                             : FL_NANP_X86);
            if (nan_rule >= 0 && o->nan_preset >= 0 && o->nan_preset != nan_rule) {
                snprintf(why, sizeof why, "it models NaN rule %s only",
                         fl_nan_preset_name(o->nan_preset));
                o = NULL;
            } else if (!o->can_run(why, sizeof why) ||
                       !o->supports(&cfg.job, why, sizeof why)) {
                o = NULL;
            }
        }
        if (!o) {
            if (rank == 0)
                printf("SKIP %s %s %s oracle=%s: %s\n", fmt.name,
                       fl_orc_op_name(op), fl_rm_name(modes[i]), orc_s, why);
            continue;
        }
        if (fl_sweep_space(&cfg.job, exhaustive, random_n, &space, why, sizeof why) != 0)
            return cli_error("verify: %s", why);
        cfg.orc = o;
        cfg.exhaustive = exhaustive;
        cfg.random_n = random_n;
        cfg.seed = seed;
        cfg.threads = threads;
        cfg.lo = space / (uint64_t)nranks * (uint64_t)rank +
                 (space % (uint64_t)nranks) * (uint64_t)rank / (uint64_t)nranks;
        cfg.hi = space / (uint64_t)nranks * (uint64_t)(rank + 1) +
                 (space % (uint64_t)nranks) * (uint64_t)(rank + 1) / (uint64_t)nranks;
        cfg.check_flags = !no_flags;
        cfg.inject_every = inject;
        cfg.nan_any = nan_any;
        cfg.progress = rank == 0 && !quiet && isatty(2);
        snprintf(label, sizeof label, "%s %s %s vs %s", fmt.name,
                 fl_orc_op_name(op), fl_rm_name(modes[i]), o->name);
        cfg.label = label;
        fmask = cfg.check_flags ? o->flags_reported(&cfg.job) : 0;

        if (fl_sweep_run(&cfg, &res) != 0)
            return cli_error("verify: could not start %d threads", threads);
#ifdef FPLAB_HAVE_MPI
        if (use_mpi) {
            fl_sweep_result *all = NULL;
            int r;
            if (rank == 0) all = calloc((size_t)nranks, sizeof *all);
            MPI_Gather(&res, (int)sizeof res, MPI_BYTE, all, (int)sizeof res,
                       MPI_BYTE, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                memset(&res, 0, sizeof res);
                for (r = 0; r < nranks; r++)
                    fl_sweep_merge(&res, &all[r]);
                free(all);
            }
        }
#endif
        any_run = 1;
        if (res.mismatches) any_mm = 1;
        if (rank != 0)
            continue;
        {
            uint32_t k;
            for (k = 0; k < res.nrec && (int)k < show; k++)
                print_rec(&cfg, &res.rec[k], fmask);
        }
        printf("%s %s%s%s %s oracle=%s %s: cases=%llu mismatches=%llu "
               "(value %llu, flags %llu, oracle errors %llu) flags=%s "
               "time=%.2fs rate=%.2fM/s%s\n",
               fmt.name, fl_orc_op_name(op), op == FL_ORC_CVT ? " from " : "",
               op == FL_ORC_CVT ? src.name : "", fl_rm_name(modes[i]), o->name,
               exhaustive ? "exhaustive" : "random",
               (unsigned long long)res.cases,
               (unsigned long long)res.mismatches,
               (unsigned long long)res.value_mm,
               (unsigned long long)res.flag_mm,
               (unsigned long long)res.oracle_err,
               fmask ? "checked" : "not-reported", res.seconds,
               res.seconds > 0 ? (double)res.cases / res.seconds / 1e6 : 0.0,
               use_mpi ? "" : "");
        if (!exhaustive)
            printf("  seed=%llu (replay: --random %llu --seed %llu)\n",
                   (unsigned long long)seed, (unsigned long long)random_n,
                   (unsigned long long)seed);
        if (use_mpi)
            printf("  ranks=%d threads-per-rank=%d\n", nranks, threads);
        if (log_s) {
            FILE *lf = fopen(log_s, "a");
            if (!lf)
                return cli_error("verify: --log: cannot open '%s'", log_s);
            fprintf(lf, "%s\t%s%s%s\t%s\t%s\t%s\t%llu\t%llu\t%s\t%.2f\t%s\t%s\n",
                    fmt.name, fl_orc_op_name(op), op == FL_ORC_CVT ? " from " : "",
                    op == FL_ORC_CVT ? src.name : "", fl_rm_name(modes[i]),
                    o->name, exhaustive ? "exhaustive" : "random",
                    (unsigned long long)res.cases,
                    (unsigned long long)res.mismatches,
                    fmask ? "value+flags" : "value", res.seconds, date, cpu);
            fclose(lf);
        }
        fflush(stdout);
    }
    rc_final = any_mm ? CLI_MISMATCH : any_run ? CLI_OK : CLI_SKIP;
#ifdef FPLAB_HAVE_MPI
    if (use_mpi) {
        MPI_Bcast(&rc_final, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Finalize();
    }
#endif
    (void)use_mpi;
    return rc_final;
}
