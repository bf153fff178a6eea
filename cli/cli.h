/*
 * cli.h — shared pieces of the fplab command-line tool.
 *
 * Exit codes: 0 success, 1 a check found mismatches, 2 bad usage or bad
 * input (always with a message naming what was wrong and where), 77 skipped
 * (e.g. no CUDA device).
 */
#ifndef FPLAB_CLI_H
#define FPLAB_CLI_H

#include <stdio.h>
#include <stdint.h>
#include "fplab/fplab.h"

enum { CLI_OK = 0, CLI_MISMATCH = 1, CLI_USAGE = 2, CLI_SKIP = 77 };

/* Print "fplab: <message>\n" to stderr and return CLI_USAGE. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The FORMAT paragraph of the usage texts (every preset family). */
#define CLI_FORMATS_HELP                                                      \
    "FORMAT: binary16 (fp16, half, float16), bfloat16 (bf16), binary32\n"     \
    "  (fp32, float, float32), binary64 (fp64, double, float64), tf32,\n"     \
    "  fp8-e5m2 (float8_e5m2), fp8-e4m3 (OCP E4M3, float8_e4m3fn);\n"         \
    "  ml_dtypes' float8_e4m3 (IEEE-like, max 240), float8_e3m4,\n"           \
    "  float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz, float8_e5m3fnu,\n" \
    "  float8_e8m0fnu (ml_dtypes' rounding), fp8-e8m0 (e8m0, OCP MX E8M0),\n" \
    "  float6_e2m3fn (fp6-e2m3), float6_e3m2fn (fp6-e3m2), float4_e2m1fn\n"   \
    "  (fp4-e2m1); IEEE P3109 p3109_k{K}p{P}{s|u}{e|f} (p3109:p1 .. p3109:p7\n" \
    "  = p3109_k8p1se .. p3109_k8p7se); or ieee:E:M.  Any case;\n" \
    "  a torch. or np. prefix is ignored.\n"

/* Parse a format spec (preset, alias or ieee:E:M).  On failure prints a
 * message naming `where` (e.g. "--format") and returns -1. */
int cli_parse_format(const char *spec, fl_format *out, const char *where);
/* The arguments of a subcommand that takes exactly one FORMAT and no
 * options (`fplab info`, `fplab table`): prints usage on --help and returns
 * 1; parses the format into *out (its spelling into *spec) and returns 0;
 * or prints a message naming cmd and the problem and returns -1. */
int cli_one_format(const char *cmd, int argc, char **argv,
                   void (*usage)(FILE *), fl_format *out, const char **spec);
/* Options whose value is kept as it is given: `--name VALUE` sets *value. */
typedef struct cli_string_opt {
    const char *name;
    const char **value;
} cli_string_opt;
/* The row of opts[0, n) named a, or NULL. */
const cli_string_opt *cli_string_opt_find(const cli_string_opt *opts,
                                          size_t n, const char *a);
/* An argument a of the subcommand cmd (which takes one input file) that
 * none of its options took: an unknown option ('-' and more: usage on
 * stderr), a second file, or the input file, kept in *file.  0, or
 * CLI_USAGE with a message naming cmd and the argument. */
int cli_input_file(const char *cmd, const char *a, const char **file,
                   void (*usage)(FILE *));
/* Rounding mode by fplab or TestFloat name; -1 (message printed) if bad. */
int cli_parse_rm(const char *s, const char *where);
/* Tininess by name, "before" or "after" (FL_TINY_*); -1 (message printed,
 * starting with where) if neither. */
int cli_parse_tininess(const char *s, const char *where);
/* Unsigned decimal or 0x-hex integer, whole string; -1 if bad (no message). */
int cli_parse_u64(const char *s, uint64_t *v);
/* Non-negative decimal/0x integer or a double; whole string; -1 if bad. */
int cli_parse_double(const char *s, double *v);

/* Atomic output: write to "<path>.tmp.<pid>" in the same directory, then
 * rename over <path> on commit, so a failed or interrupted run never leaves
 * a half-written file where a good one stood. */
typedef struct cli_out {
    FILE *fp;
    char *path;
    char *tmp;
} cli_out;
int cli_out_open(cli_out *o, const char *path);   /* -1 + message on error */
int cli_out_commit(cli_out *o);                   /* -1 + message on error */
void cli_out_abort(cli_out *o);                   /* removes the temp file */

/* Outputs: every command creates the missing directories on the way to
 * what it writes (one rule, these two helpers).  cli_mkdir_p creates a
 * directory and its missing parents; cli_mkdir_parent the directories
 * holding a file (nothing for a bare name); cli_out_open calls it when the
 * temp file's directory is missing.  An existing directory is fine; a file
 * in the way is an error.  -1 + message on error, starting with `what`
 * (e.g. "hist: --out") unless it is NULL. */
int cli_mkdir_p(const char *dir, const char *what);
int cli_mkdir_parent(const char *path, const char *what);

/* The directory with fplab's data set (data/digits.csv.gz) and plot
 * scripts (plots/NAME.gp), in this order: $FPLAB_SHARE_DIR; the installed
 * DATADIR/fplab found relative to the running executable (PREFIX/bin/fplab
 * -> PREFIX/share/fplab, wherever the tree was installed or moved); the
 * source tree, only when the executable runs from the build directory it
 * was built in.  Returns the directory (static storage) with *how saying
 * which ("installed", ...), or NULL with *how saying where it looked. */
const char *cli_share_dir(const char **how);

/* gnuplot (cli/gnuplot.c): $FPLAB_GNUPLOT when set (NULL when it is not
 * executable), else the first on PATH; malloc'd, NULL if none. */
char *cli_find_gnuplot(void);
/* s for a gnuplot single-quoted string ('' stands for '), cut to len. */
void cli_gp_quote(char *dst, size_t len, const char *s);
/* Run `gnuplot -e EXPR SCRIPT` (stdin /dev/null), which is to write tmp;
 * rename tmp to final when gnuplot succeeded and wrote it.  0, or -1 with
 * a reason in why ("gnuplot failed on WHAT", WHAT NULL: the script; tmp
 * removed). */
int cli_run_gnuplot(const char *gnuplot, const char *expr, const char *script,
                    const char *tmp, const char *final, const char *what,
                    char *why, size_t wlen);

/* Subcommands: each parses its own arguments and handles --help. */
int cmd_info(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_testfloat(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_scaler(int argc, char **argv);
int cmd_lab(int argc, char **argv);
int cmd_gpu_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
int cmd_ref(int argc, char **argv);
int cmd_reveal(int argc, char **argv);

/* Flag word as names in bit order ("inexact,underflow"), "-" when none of
 * the five IEEE flags is set.  Returns buf. */
const char *cli_flag_names(unsigned flags, char *buf, size_t len);
/* Exact decimal of a value as a malloc'd string (never NULL: exits on
 * out-of-memory).  The caller frees it. */
char *cli_exact_str(const fl_format *f, uint64_t a);
/* Number of hex digits that hold a format's bit pattern. */
static inline int cli_hex_digits(const fl_format *f)
{
    return (f->width + 3) / 4;
}

#endif
