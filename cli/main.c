/* main.c — the fplab command: dispatch to subcommands. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand commands[] = {
    {"info", cmd_info, "parameters of a format (range, precision, epsilon)"},
    {"table", cmd_table, "every value of a format of at most 12 bits"},
    {"calc", cmd_calc, "one operation in any format, mode and preset"},
    {"testfloat", cmd_testfloat, "check or answer Berkeley TestFloat lines"},
    {"verify", cmd_verify, "sweep an operation against an independent oracle"},
    {"train", cmd_train, "train the MLP on digits under a precision policy"},
    {"hist", cmd_hist, "gradient histograms of a dumped tensor vs scale"},
    {"scaler", cmd_scaler, "replay a loss scaler on per-step overflow flags"},
    {"lab", cmd_lab, "run every experiment and plot, write the report"},
    {"gpu-check", cmd_gpu_check, "GPU intrinsics bit for bit against the core"},
    {"ref", cmd_ref, "a kernel's reference output in a stated arithmetic model"},
    {"compare", cmd_compare, "a kernel's output against a reference: the verdict"},
    {"quantize", cmd_quantize, "MX, NVFP4 and FP8 per-tensor quantization of a tensor"},
    {"reveal", cmd_reveal, "the arithmetic model of a black-box sum/dot/GEMM kernel"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: fplab COMMAND [ARGS...]   (fplab COMMAND --help)\n\n"
                "fplab %s: a bit-exact float-format simulator and "
                "mixed-precision lab.\n\ncommands:\n", FPLAB_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("fplab %s\n", FPLAB_VERSION);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fplab: unknown command '%s' (try 'fplab --help')\n",
            argv[1]);
    return CLI_USAGE;
}
