/* Placeholder until the verify subcommand lands. */
#include "cli.h"

int cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'verify' is not built yet");
}
