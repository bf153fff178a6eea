/*
 * fuzz_testfloat.c — the TestFloat line reader of `fplab testfloat`.
 *
 * Input: byte 0 picks the function (every FUNC the command knows, by
 * construction of the list below), byte 1 the options (rounding mode,
 * tininess, -exact, -checkNaNs, -checkInvInts, NaN preset); the rest is
 * the standard input, lines of hex fields.  Properties: no crash, no
 * sanitizer report, exit status 0, 1 (a mismatch: the expected fields are
 * arbitrary) or 2 (a malformed line), never anything else.
 */
#include "fuzz_common.h"
#include "cli.h"

static const char *const flt[] = {"f16", "bf16", "f32", "f64"};
static const char *const its[] = {"i32", "ui32", "i64", "ui64"};
static const char *const ops[] = {
    "add", "sub", "mul", "div", "rem", "sqrt", "mulAdd", "roundToInt",
    "eq", "le", "lt", "eq_signaling", "le_quiet", "lt_quiet"};
static const char *const modes[] = {"near_even", "minMag", "min", "max",
                                    "near_maxMag", "odd"};
static const char *const nans[] = {"x86", "arm", "riscv", "cuda"};

static char funcs[4 * 14 + 4 * 3 + 4 * 4 * 2 + 4 * 4][32];
static int nfuncs;

static void build_funcs(void)
{
    if (nfuncs)
        return;
    for (int a = 0; a < 4; a++)
        for (int o = 0; o < 14; o++)
            snprintf(funcs[nfuncs++], 32, "%s_%s", flt[a], ops[o]);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if (a != b)
                snprintf(funcs[nfuncs++], 32, "%s_to_%s", flt[a], flt[b]);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            snprintf(funcs[nfuncs++], 32, "%s_to_%s", flt[a], its[b]);
            snprintf(funcs[nfuncs++], 32, "%s_to_%s_r_minMag", flt[a],
                     its[b]);
        }
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            snprintf(funcs[nfuncs++], 32, "%s_to_%s", its[a], flt[b]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    char *argv[12];
    int argc = 0;
    char rm[32], nan[32];
    fz_quiet();
    build_funcs();
    unsigned fsel = fz_u8(&in), opt = fz_u8(&in);

    argv[argc++] = (char *)"testfloat";
    argv[argc++] = funcs[fsel % (unsigned)nfuncs];
    snprintf(rm, sizeof rm, "-r%s", modes[opt % 6]);
    argv[argc++] = rm;
    if (opt & 0x08)
        argv[argc++] = (char *)"-tininessbefore";
    if (opt & 0x10)
        argv[argc++] = (char *)"-exact";
    if (opt & 0x20)
        argv[argc++] = (char *)"-checkNaNs";
    if (opt & 0x40)
        argv[argc++] = (char *)"-checkInvInts";
    snprintf(nan, sizeof nan, "--nan=%s", nans[(opt >> 7) * 3]);
    argv[argc++] = nan;
    argv[argc] = NULL;

    /* The rest of the input is standard input (fmemopen wants a nonempty
     * buffer: an empty input reads as an empty file). */
    static char empty[1];
    FILE *fp = in.n ? fmemopen((void *)in.p, in.n, "r")
                    : fmemopen(empty, 1, "r");
    if (fp == NULL)
        abort();
    if (!in.n)
        fgetc(fp);   /* consume the one byte: the stream is now at EOF */
    FILE *saved = stdin;
    stdin = fp;
    int rc = cmd_testfloat(argc, argv);
    stdin = saved;
    fclose(fp);
    if (rc != CLI_OK && rc != CLI_MISMATCH && rc != CLI_USAGE)
        FZ_FAIL("fplab testfloat %s returned %d", argv[1], rc);
    return 0;
}
