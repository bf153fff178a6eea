/* Placeholder until the hist subcommand lands. */
#include "cli.h"

int cmd_hist(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'hist' is not built yet");
}
