/*
 * test_amp_data.c — the CSV reader: shapes, scaling, headers, and an exact
 * error message (file, line, field) for each kind of bad input.
 */
#include <stdio.h>
#include <string.h>
#include "amp.h"
#include "test_check.h"

static int n_cases;

static void expect_error(const char *text, int label_pos, const char *msg)
{
    amp_dataset d;
    char err[256] = "";
    int rc = amp_dataset_parse_csv(&d, "x.csv", text, strlen(text),
                                   label_pos, 1.0, err, sizeof err);
    ck_assert_msg(rc == -1 && strstr(err, msg) != NULL,
                  "input '%s': rc %d err '%s', expected '%s'", text, rc, err,
                  msg);
    ck_assert(d.x == NULL && d.y == NULL && d.n == 0);
    n_cases++;
}

START_TEST(parse_good_tables)
{
    amp_dataset d;
    char err[256];
    const char *t = "0,16,8,1\n\n4, 2 ,0,0\r\n";
    ck_assert_int_eq(amp_dataset_parse_csv(&d, "a", t, strlen(t),
                                           AMP_LABEL_LAST, 16, err, sizeof err), 0);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.dim, 3);
    ck_assert_int_eq(d.classes, 2);
    ck_assert(d.x[1] == 1.0f && d.x[2] == 0.5f && d.x[3] == 0.25f);
    ck_assert(d.y[0] == 1 && d.y[1] == 0);
    amp_dataset_free(&d);
    /* label first, header line skipped, scale by the maximum */
    t = "label,p0,p1\n3,0,255\n1,51,0\n";
    ck_assert_int_eq(amp_dataset_parse_csv(&d, "b", t, strlen(t),
                                           AMP_LABEL_FIRST, 0, err, sizeof err), 0);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.dim, 2);
    ck_assert_int_eq(d.classes, 4);
    ck_assert(d.x[1] == 1.0f && d.x[2] == 0.2f && d.y[0] == 3);
    amp_dataset_free(&d);
    n_cases += 2;
}
END_TEST

START_TEST(parse_errors_name_line_and_field)
{
    expect_error("1,2,3\n1,2\n", AMP_LABEL_LAST,
                 "x.csv:2: 2 fields, expected 3");
    expect_error("1,2,3\n1,zz,3\n", AMP_LABEL_LAST,
                 "x.csv:2: field 2: 'zz' is not a number");
    expect_error("1,2,3\n1,2,3.5\n", AMP_LABEL_LAST,
                 "x.csv:2: field 3: label 3.5 is not an integer");
    expect_error("1,2,-1\n", AMP_LABEL_LAST, "field 3: label -1");
    expect_error("", AMP_LABEL_LAST, "x.csv: no data rows");
    expect_error("7\n", AMP_LABEL_LAST, "x.csv:1: 1 field");
    expect_error("1,2,0\n3,4,0\n", AMP_LABEL_LAST, "only one class");
    expect_error("1,2,1\n3,nan,0\n", AMP_LABEL_LAST,
                 "x.csv:2: field 2: 'nan' is not a number");
    expect_error("h1,h2,h3\nq,2,1\n", AMP_LABEL_LAST,
                 "x.csv:2: field 1: 'q'");
    expect_error("1,2,1\n1,,0\n", AMP_LABEL_LAST, "x.csv:2: field 2: ''");
}
END_TEST

START_TEST(read_files)
{
    amp_dataset d;
    char err[512];
    ck_assert_int_eq(amp_dataset_read_csv(&d, "/nonexistent/dir/x.csv",
                                          AMP_LABEL_LAST, 1, err, sizeof err), -1);
    ck_assert(strstr(err, "/nonexistent/dir/x.csv: cannot open") != NULL);
    n_cases++;
#ifdef FPLAB_SOURCE_DIR
    int rc = amp_dataset_read_csv(&d, FPLAB_SOURCE_DIR "/data/digits.csv.gz",
                                  AMP_LABEL_LAST, 16, err, sizeof err);
#ifdef FPLAB_HAVE_ZLIB_TEST
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(d.n, 1797);
    ck_assert_uint_eq(d.dim, 64);
    ck_assert_int_eq(d.classes, 10);
    ck_assert(d.y[0] == 0 && d.y[1] == 1 && d.y[2] == 2);
    ck_assert(d.x[2] == 5.0f / 16);   /* first row: 0,0,5,13,... */
    amp_dataset_free(&d);
#else
    ck_assert(rc == 0 || strstr(err, "gunzip") != NULL);
    if (rc == 0)
        amp_dataset_free(&d);
#endif
    n_cases++;
#endif
}
END_TEST

int main(void)
{
    const TTest *tests[] = { parse_good_tables,
                             parse_errors_name_line_and_field, read_files,
                             NULL };
    int failed = tc_run_suite("amp_data", tc_tcase("data", 0, tests),
                              TC_IN_PROCESS);
    return tc_exit_counted("amp_data", failed, n_cases, 2 + 10 + 2);
}
