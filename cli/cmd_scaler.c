/* Placeholder until the scaler subcommand lands. */
#include "cli.h"

int cmd_scaler(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'scaler' is not built yet");
}
