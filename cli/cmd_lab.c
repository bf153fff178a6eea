/*
 * cmd_lab.c — `fplab lab`: run every experiment, every plot, write the
 * report.
 *
 *   fplab lab [--out DIR] [--quick] [--seed N] [--only ID[,ID...]]
 *             [--no-plots] [--data FILE] [--seeds N] [--jobs N]
 *
 * The experiments (experiments/) compute in memory; this command writes
 * their data files atomically into DIR, runs plots/<stem>.gp through
 * gnuplot for every figure (PNG and SVG, each written to a temporary name
 * and renamed), and renders DIR/REPORT.md.  Without gnuplot the data and
 * the report are still written and the report says the plots were skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lab.h"


static void usage(FILE *fp)
{
    const char *how, *share = cli_share_dir(&how);
    fprintf(fp,
            "usage: fplab lab [--out DIR] [--quick] [--seed N] [--only ID[,ID...]]\n"
            "                 [--no-plots] [--data FILE] [--text FILE] [--seeds N]\n"
            "                 [--jobs N]\n\n"
            "Runs every experiment and plot into DIR (default out/) and writes\n"
            "DIR/REPORT.md.  DIR and its missing parents are created.\n"
            "--quick: small sizes for CI.\n"
            "--seed: every random choice derives from it; the same seed\n"
            "reproduces the same data bytes.\n"
            "--seeds N: training runs per policy, seeds SEED .. SEED+N-1 (2..64;\n"
            "default 5, --quick 3).  --jobs N: threads for the training runs\n"
            "(default: the number of online CPUs); the bytes do not depend on it.\n"
            "--only: a subset of the experiments:");
    for (size_t i = 0; i < lab_experiment_count; i++)
        fprintf(fp, " %s", lab_experiments[i].id);
    fprintf(fp, "\n--data: the training CSV (default: $FPLAB_DATA, else\n"
                "SHARE/data/digits.csv.gz).\n"
                "--text: the character language model's text (default: $FPLAB_TEXT,\n"
                "else " LAB_DEFAULT_TEXT ", which Debian's\n"
                "base-files ships).\n"
                "Plot scripts: $FPLAB_PLOTS_DIR, else SHARE/plots; gnuplot from\n"
                "$FPLAB_GNUPLOT or PATH.\n"
                "SHARE: $FPLAB_SHARE_DIR, else PREFIX/share/fplab for an installed\n"
                "PREFIX/bin/fplab, else (run from its build directory) the source\n"
                "tree.\n"
                "Here SHARE is %s (%s).\n",
            share ? share : "not found", how);
}

/* SHARE/rel (static storage), or NULL when SHARE is not found. */
static const char *share_path(const char *rel)
{
    static char buf[2][4200];
    static int k;
    const char *how, *share = cli_share_dir(&how);
    if (share == NULL)
        return NULL;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", share, rel);
    return buf[k];
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Run one plot script for one output; 0 on success (output renamed into
 * place), -1 with a reason. */
static int run_gnuplot(const char *gp, const char *script, const char *dir,
                       const char *stem, const char *ext, char *why, size_t wlen)
{
    char final[4096], tmp[4200], qd[4096], qo[4400], expr[9000];
    snprintf(final, sizeof final, "%s/%s.%s", dir, stem, ext);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", final, (long)getpid());
    cli_gp_quote(qd, sizeof qd, dir);
    cli_gp_quote(qo, sizeof qo, tmp);
    snprintf(expr, sizeof expr, "dir='%s'; ext='%s'; out='%s'", qd, ext, qo);
    char what[4200];
    snprintf(what, sizeof what, "%.180s (%s)", script, ext);
    return cli_run_gnuplot(gp, expr, script, tmp, final, what, why, wlen);
}

static int write_file(const char *dir, const char *name, const char *data,
                      size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cli_out o;
    if (cli_out_open(&o, path))
        return -1;
    if (len && fwrite(data, 1, len, o.fp) != len) {
        cli_out_abort(&o);
        return cli_error("%s: write failed", path) ? -1 : -1;
    }
    return cli_out_commit(&o);
}

static int selected(const char *only, const char *id)
{
    if (!only)
        return 1;
    size_t n = strlen(id);
    for (const char *p = only; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !strncmp(p, id, n))
            return 1;
        p += len + (c ? 1 : 0);
    }
    return 0;
}

int cmd_lab(int argc, char **argv)
{
    const char *out = "out", *only = NULL, *data = NULL, *text = NULL;
    uint64_t seed = 1, seeds = 0, jobs = 0;
    int quick = 0, plots = 1;
    const cli_string_opt strings[] = {
        {"--out", &out}, {"--only", &only}, {"--data", &data}, {"--text", &text},
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        const cli_string_opt *str =
            cli_string_opt_find(strings, sizeof strings / sizeof strings[0], a);
        if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--no-plots")) {
            plots = 0;
        } else if (str || !strcmp(a, "--seed") || !strcmp(a, "--seeds") ||
                   !strcmp(a, "--jobs")) {
            if (i + 1 >= argc)
                return cli_error("lab: %s needs a value", a);
            const char *v = argv[++i];
            if (str) {
                *str->value = v;
            } else if (!strcmp(a, "--seeds")) {
                if (cli_parse_u64(v, &seeds) || seeds < 2 || seeds > 64)
                    return cli_error("lab: --seeds: '%s' is not an integer 2..64", v);
            } else if (!strcmp(a, "--jobs")) {
                if (cli_parse_u64(v, &jobs) || jobs < 1 || jobs > 64)
                    return cli_error("lab: --jobs: '%s' is not an integer 1..64", v);
            } else if (cli_parse_u64(v, &seed)) {
                return cli_error("lab: --seed: '%s' is not an unsigned integer", v);
            }
        } else {
            usage(stderr);
            return cli_error("lab: unknown argument '%s'", a);
        }
    }
    if (!*out)
        return cli_error("lab: --out: empty directory name");
    if (only) {
        /* every listed id must exist */
        for (const char *p = only; *p;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            int ok = 0;
            for (size_t i = 0; i < lab_experiment_count; i++)
                if (strlen(lab_experiments[i].id) == len &&
                    !strncmp(p, lab_experiments[i].id, len))
                    ok = 1;
            if (!ok) {
                char names[256] = "";
                for (size_t i = 0; i < lab_experiment_count; i++)
                    snprintf(names + strlen(names), sizeof names - strlen(names),
                             "%s%s", i ? " " : "", lab_experiments[i].id);
                return cli_error("lab: --only: unknown experiment '%.*s' "
                                 "(the experiments: %s)", (int)len, p, names);
            }
            p += len + (c ? 1 : 0);
        }
    }
    /* the data set and the plot scripts: options and environment first,
     * else the share directory (see usage) */
    const char *how;
    if (!data && getenv("FPLAB_DATA") && *getenv("FPLAB_DATA"))
        data = getenv("FPLAB_DATA");
    if (!data && !(data = share_path("data/digits.csv.gz"))) {
        cli_share_dir(&how);
        return cli_error("lab: cannot find the data set: %s (or give --data "
                         "FILE)", how);
    }
    const char *plots_dir = getenv("FPLAB_PLOTS_DIR");
    if (!plots_dir || !*plots_dir)
        plots_dir = share_path("plots");
    if (plots && !plots_dir) {
        cli_share_dir(&how);
        return cli_error("lab: cannot find the plot scripts: %s (or set "
                         "FPLAB_PLOTS_DIR, or run with --no-plots)", how);
    }
    if (cli_mkdir_p(out, "lab: --out"))
        return CLI_USAGE;

    if (!text && getenv("FPLAB_TEXT") && *getenv("FPLAB_TEXT"))
        text = getenv("FPLAB_TEXT");
    if (!text)
        text = LAB_DEFAULT_TEXT;

    lab_ctx L;
    lab_ctx_init(&L, seed, quick, data);
    L.text_path = text;
    if (seeds)
        L.seeds = (int)seeds;
    if (!jobs) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = nc < 1 ? 1 : nc > 64 ? 64 : (uint64_t)nc;
    }
    L.jobs = (int)jobs;
    size_t nexp = lab_experiment_count;
    size_t item0[16], item1[16], file0[16], file1[16];
    int ran[16] = {0}, failed = 0;
    char fail_msg[16][512];
    for (size_t i = 0; i < nexp && i < 16; i++) {
        if (!selected(only, lab_experiments[i].id))
            continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        item0[i] = L.nitems;
        file0[i] = L.nfiles;
        L.err[0] = 0;
        int r = lab_experiments[i].run(&L);
        if (L.cur_fp) {   /* an experiment that failed mid-file */
            fclose(L.cur_fp);
            L.cur_fp = NULL;
            free(L.cur_buf);
            free(L.cur_name);
            L.cur_buf = L.cur_name = NULL;
        }
        item1[i] = L.nitems;
        file1[i] = L.nfiles;
        ran[i] = r ? -1 : 1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (r) {
            failed++;
            snprintf(fail_msg[i], sizeof fail_msg[i], "%s", L.err[0] ? L.err : "failed");
            fprintf(stderr, "fplab: lab: experiment %s failed: %s\n",
                    lab_experiments[i].id, fail_msg[i]);
        } else {
            printf("experiment %-9s %6.2f s, %zu data file(s)\n", lab_experiments[i].id,
                   secs, file1[i] - file0[i]);
        }
    }

    /* data files */
    for (size_t f = 0; f < L.nfiles; f++)
        if (write_file(out, L.files[f].name, L.files[f].data, L.files[f].len)) {
            lab_ctx_free(&L);
            return CLI_USAGE;
        }

    /* plots */
    char *gp = plots ? cli_find_gnuplot() : NULL;
    const char *plot_note = !plots ? "plots not requested (--no-plots)"
                            : !gp ? "gnuplot not found: plots skipped, data and "
                                    "report written"
                                  : NULL;
    int *fig_ok = calloc(L.nitems ? L.nitems : 1, sizeof *fig_ok);
    char (*fig_why)[256] = calloc(L.nitems ? L.nitems : 1, sizeof *fig_why);
    int nfig = 0, nfig_ok = 0;
    if (!fig_ok || !fig_why) {
        lab_ctx_free(&L);
        free(gp);
        return cli_error("lab: out of memory");
    }
    for (size_t k = 0; k < L.nitems; k++) {
        if (!L.items[k].is_figure)
            continue;
        nfig++;
        if (!gp) {
            snprintf(fig_why[k], sizeof fig_why[k], "%s", plot_note);
            continue;
        }
        char script[4096];
        snprintf(script, sizeof script, "%s/%s.gp", plots_dir, L.items[k].stem);
        if (!file_exists(script)) {
            snprintf(fig_why[k], sizeof fig_why[k], "plot script %.200s not found", script);
            fprintf(stderr, "fplab: lab: %s\n", fig_why[k]);
            continue;
        }
        if (run_gnuplot(gp, script, out, L.items[k].stem, "png", fig_why[k],
                        sizeof fig_why[k]) ||
            run_gnuplot(gp, script, out, L.items[k].stem, "svg", fig_why[k],
                        sizeof fig_why[k])) {
            fprintf(stderr, "fplab: lab: %s\n", fig_why[k]);
            continue;
        }
        fig_ok[k] = 1;
        nfig_ok++;
    }

    /* the report */
    char *rep = NULL;
    size_t replen = 0;
    FILE *r = open_memstream(&rep, &replen);
    if (!r) {
        free(fig_ok);
        free(fig_why);
        free(gp);
        lab_ctx_free(&L);
        return cli_error("lab: out of memory");
    }
    fprintf(r, "# fplab lab report\n\n"
               "fplab %s, seed %llu%s.  Every number below was measured by this run; "
               "the data behind each figure is in the `.dat` files beside this "
               "report, each with a `#` header (seed, formats, parameters, version). "
               "The same seed reproduces the same data bytes.\n\n",
            FPLAB_VERSION, (unsigned long long)seed,
            quick ? ", quick mode (small sizes)" : "");
    if (plot_note)
        fprintf(r, "**Note:** %s.\n\n", plot_note);
    else
        fprintf(r, "Figures: %d of %d plotted (PNG shown, SVG linked).\n\n", nfig_ok,
                nfig);
    int num = 0;
    for (size_t i = 0; i < nexp && i < 16; i++) {
        if (!ran[i])
            continue;
        fprintf(r, "## %d. %s\n\n", ++num, lab_experiments[i].title);
        if (ran[i] < 0) {
            fprintf(r, "**This experiment failed:** %s\n\n", fail_msg[i]);
        }
        for (size_t k = item0[i]; k < item1[i]; k++) {
            lab_item *it = &L.items[k];
            if (!it->is_figure) {
                fputs(it->text, r);
                continue;
            }
            if (fig_ok[k])
                fprintf(r, "![%s](%s.png)\n\n*Figure %s* ([SVG](%s.svg)): %s\n\n",
                        it->stem, it->stem, it->stem, it->stem, it->text);
            else
                fprintf(r, "*Figure %s* (not drawn: %s): %s\n\n", it->stem,
                        fig_why[k], it->text);
        }
        if (file1[i] > file0[i]) {
            fprintf(r, "Data:");
            for (size_t f = file0[i]; f < file1[i]; f++)
                fprintf(r, " `%s`", L.files[f].name);
            fprintf(r, "\n\n");
        }
    }
    fclose(r);
    int rc = write_file(out, "REPORT.md", rep, replen) ? CLI_USAGE : CLI_OK;
    free(rep);
    free(fig_ok);
    free(fig_why);
    free(gp);
    lab_ctx_free(&L);
    if (rc == CLI_OK)
        printf("wrote %s/REPORT.md (%d experiment(s) failed, %d/%d figures)\n", out,
               failed, nfig_ok, nfig);
    if (failed)
        return CLI_USAGE;
    return rc;
}
