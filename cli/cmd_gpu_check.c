/* Placeholder until the gpu_check subcommand lands. */
#include "cli.h"

int cmd_gpu_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'gpu_check' is not built yet");
}
