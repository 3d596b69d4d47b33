/* commands.c: the table of every command: tavreli.c dispatches on it, and
 * test_cli_help checks each command's --help against its flag table. */
#include "cli.h"

const CliCommand *const *cli_commands(int *n)
{
    static const CliCommand *const COMMANDS[] = {
        &CLI_PERFT,          &CLI_MOVES,      &CLI_REPLAY,    &CLI_BENCH,    &CLI_BENCH_PERFT, &CLI_BENCH_SEARCH,
        &CLI_BENCH_SELFPLAY, &CLI_BENCH_TUNE, &CLI_BENCH_MPI, &CLI_BENCH_PROTOCOL, &CLI_BENCH_SPSA, &CLI_BENCH_SERVE, &CLI_SELFPLAY, &CLI_MATCH, &CLI_COMPARE, &CLI_EXPORT,      &CLI_VERIFY, &CLI_REPAIR, &CLI_REPORT, &CLI_SERVE,
        &CLI_TUNE,           &CLI_TRAIN, &CLI_SPSA, &CLI_SPRT,       &CLI_ANALYSE,   &CLI_PLAY,     &CLI_WEIGHTS,     &CLI_STRENGTH, &CLI_UCI,
    };
    *n = (int)(sizeof COMMANDS / sizeof COMMANDS[0]);
    return COMMANDS;
}
