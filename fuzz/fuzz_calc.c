/*
 * fuzz_calc.c — `fplab calc` argument handling end to end: format specs,
 * operation names, options, and the operand parser (decimal, hex-float,
 * inf/nan/snan, bits:0xHEX, bits:0bBINARY, bits:DECIMAL, integers).
 *
 * Input: newline-separated arguments (at most 12, each at most 512 bytes)
 * passed to cmd_calc as its argv.  Properties: no crash, no sanitizer
 * report, and the exit status is one of 0 (success) or 2 (bad usage); the
 * command never reports mismatches (1) nor skips (77).
 */
#include "fuzz_common.h"
#include "cli.h"

enum { MAX_ARGS = 12, MAX_ARG_LEN = 512 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    fz_quiet();
    char *text = fz_str(data, size, MAX_ARGS * (MAX_ARG_LEN + 1));
    argv[argc++] = (char *)"calc";
    for (char *p = text; argc <= MAX_ARGS;) {
        char *nl = strchr(p, '\n');
        if (nl != NULL)
            *nl = '\0';
        if (strlen(p) > MAX_ARG_LEN)
            p[MAX_ARG_LEN] = '\0';
        argv[argc++] = p;
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    argv[argc] = NULL;
    int rc = cmd_calc(argc, argv);
    fflush(stdout);
    if (rc != CLI_OK && rc != CLI_USAGE)
        FZ_FAIL("fplab calc returned %d (only 0 or 2 are possible)", rc);
    free(text);
    return 0;
}
