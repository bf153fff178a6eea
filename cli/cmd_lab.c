/* Placeholder until the lab subcommand lands. */
#include "cli.h"

int cmd_lab(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'lab' is not built yet");
}
