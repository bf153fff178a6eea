/*
 * util_test.c — the CLI's shared helpers: atomic output (a committed file
 * appears whole, an aborted or failed one leaves nothing behind, missing
 * directories on the way are made), mkdir -p and the parents of a file,
 * number, mode and format parsing, flag names.
 *
 * usage: cli_util_test WORKDIR   (created; files are written inside it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "../test_common.h"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static char *slurp(const char *p)
{
    static char buf[256];
    FILE *fp = fopen(p, "r");
    size_t n;
    if (fp == NULL)
        return NULL;
    n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

int main(int argc, char **argv)
{
    char dir[512], path[600], tmp[700];
    cli_out o;
    if (argc != 2) {
        fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/a/b/c", argv[1]);

    /* mkdir -p: nested, idempotent, and a file in the way is an error */
    CHECK(cli_mkdir_p(dir, NULL) == 0, "mkdir -p %s", dir);
    CHECK(cli_mkdir_p(dir, NULL) == 0, "mkdir -p again %s", dir);
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL, "create %s", path);
    if (fp)
        fclose(fp);
    snprintf(tmp, sizeof tmp, "%s/sub", path);
    CHECK(cli_mkdir_p(tmp, "test") == -1, "mkdir -p through a file must fail");

    /* the directories holding a file: made, the file not; a bare name
     * needs none; a file in the way is an error */
    char deep[800], last[700];
    snprintf(deep, sizeof deep, "%s/p/q/r/file.txt", argv[1]);
    snprintf(last, sizeof last, "%s/p/q/r", argv[1]);
    CHECK(cli_mkdir_parent(deep, "test") == 0 && exists(last) &&
          !exists(deep), "mkdir parent of %s", deep);
    CHECK(cli_mkdir_parent("bare-name.txt", "test") == 0 &&
          !exists("bare-name.txt"), "a bare name");
    snprintf(deep, sizeof deep, "%s/x/y.txt", path);
    CHECK(cli_mkdir_parent(deep, "test") == -1, "a file on the way");

    /* atomic output into missing directories: the chain is made */
    snprintf(deep, sizeof deep, "%s/new1/new2/out.txt", argv[1]);
    CHECK(cli_out_open(&o, deep) == 0, "open %s", deep);
    if (o.fp != NULL) {
        fputs("deep\n", o.fp);
        CHECK(cli_out_commit(&o) == 0 && exists(deep) &&
              !strcmp(slurp(deep), "deep\n"), "commit %s", deep);
    } else {
        CHECK(0, "nothing to commit");
    }

    /* commit: the new content replaces the old, no temp file remains */
    snprintf(path, sizeof path, "%s/out.txt", dir);
    unlink(path);   /* left by an earlier run */
    CHECK(cli_out_open(&o, path) == 0, "open %s", path);
    snprintf(tmp, sizeof tmp, "%s", o.tmp);
    fputs("first\n", o.fp);
    CHECK(!exists(path), "target must not exist before commit");
    CHECK(cli_out_commit(&o) == 0, "commit");
    char *s = slurp(path);
    CHECK(s && !strcmp(s, "first\n"), "content after commit: %s", s);
    CHECK(!exists(tmp), "temp %s left behind", tmp);

    /* abort: the old file stays as it was, the temp file is gone */
    CHECK(cli_out_open(&o, path) == 0, "reopen");
    snprintf(tmp, sizeof tmp, "%s", o.tmp);
    fputs("second, half-written", o.fp);
    cli_out_abort(&o);
    s = slurp(path);
    CHECK(s && !strcmp(s, "first\n"), "content after abort: %s", s);
    CHECK(!exists(tmp), "temp %s left after abort", tmp);

    /* failures: a file on the way (open), and rename onto a directory */
    snprintf(path, sizeof path, "%s/file/x/out.txt", dir);
    CHECK(cli_out_open(&o, path) == -1 && o.fp == NULL,
          "open through a file must fail");
    CHECK(cli_out_open(&o, dir) == 0, "open over a directory");
    snprintf(tmp, sizeof tmp, "%s", o.tmp);
    CHECK(cli_out_commit(&o) == -1, "commit onto a directory must fail");
    CHECK(!exists(tmp), "temp %s left after a failed commit", tmp);

    /* numbers */
    uint64_t u = 0;
    double d = 0;
    CHECK(cli_parse_u64("0x10", &u) == 0 && u == 16, "0x10 -> %llu",
          (unsigned long long)u);
    CHECK(cli_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX,
          "2^64-1");
    CHECK(cli_parse_u64("18446744073709551616", &u) == -1, "2^64 overflows");
    CHECK(cli_parse_u64("0x", &u) == -1, "bare 0x");
    CHECK(cli_parse_u64("12a", &u) == -1, "trailing junk");
    CHECK(cli_parse_u64("", &u) == -1, "empty");
    CHECK(cli_parse_u64("-1", &u) == -1, "negative");
    CHECK(cli_parse_double("0.5", &d) == 0 && d == 0x1p-1, "0.5");
    CHECK(cli_parse_double("0x1p-3", &d) == 0 && d == 0x1p-3, "0x1p-3");
    CHECK(cli_parse_double("1e3x", &d) == -1, "1e3x");
    CHECK(cli_parse_double(" 1", &d) == -1, "leading blank");

    /* modes, formats, flag names */
    CHECK(cli_parse_rm("near_even", "t") == FL_RNE, "near_even");
    CHECK(cli_parse_rm("minMag", "t") == FL_RTZ, "minMag");
    CHECK(cli_parse_rm("odd", "t") == FL_RTO, "odd");
    CHECK(cli_parse_rm("bogus", "t") == -1, "bogus mode");
    fl_format f;
    CHECK(cli_parse_format("ieee:4:3", &f, "t") == 0 &&
              !strcmp(f.name, "ieee:4:3") && f.width == 8,
          "ieee:4:3 named %s", f.name);
    CHECK(cli_parse_format("fp99", &f, "t") == -1, "fp99");
    char names[64];
    CHECK(!strcmp(cli_flag_names(0, names, sizeof names), "-"), "no flags");
    CHECK(!strcmp(cli_flag_names(FL_INEXACT | FL_UNDERFLOW | FL_TERN_UP,
                                 names, sizeof names),
                  "inexact,underflow"),
          "got %s", names);
    CHECK(!strcmp(cli_flag_names(FL_IEEE_FLAGS, names, sizeof names),
                  "inexact,underflow,overflow,divbyzero,invalid"),
          "got %s", names);

    return tc_finish("cli_util_test", 41);
}
