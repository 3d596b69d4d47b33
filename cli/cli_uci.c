/* cli_uci.c: `tavreli uci`, the built-in engine on the engine protocol
 * (docs/protocol.md) on stdin and stdout. */
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "engine_id.h"
#include "engine.h"
#include "uci_engine.h"

static const char UCI_HELP[] =
    "usage: tavreli uci [--engine FILE]\n"
    "\n"
    "Runs the built-in engine as a separate program speaking the engine\n"
    "protocol (docs/protocol.md) on stdin and stdout, so that a tournament can\n"
    "play it as `command = tavreli uci --engine FILE`, and so can any harness\n"
    "that speaks the protocol.  Its options are Hash, Threads (1), every search\n"
    "setting, every evaluation weight element (\"top_value[1]\") and the rule\n"
    "options; `go` takes wtime btime winc binc movestogo movetime depth nodes\n"
    "infinite.  With depth or node limits it plays the same moves as the engine\n"
    "inside `tavreli selfplay`.\n"
    "\n"
    "  --engine FILE   the engine version INI whose weights and search settings\n"
    "                  it starts from (default: built-in defaults)\n\n"
    "Examples:\n"
    "  tavreli uci\n"
    "  tavreli uci --engine configs/engines/default.ini\n";

typedef struct {
    const char *engine;
} UciArgs;

static const CliFlag UCI_FLAGS[] = {
    {"engine", 0, CLI_STRING, offsetof(UciArgs, engine), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_uci(const CliCommand *cmd, int argc, char **argv)
{
    UciArgs a = {0};
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (rc >= 0)
        return rc;
    EngineVersion e;
    if (!cli_load_engine(a.engine, &e))
        return CLI_FAIL;
    TvError err;
    char id_name[256];
    engine_id_uci_name(e.name, id_name, sizeof id_name);
    if (uci_engine_run(stdin, stdout, &e, id_name, &err) != TV_OK) {
        cli_error("uci: %s", err.msg);
        return CLI_FAIL;
    }
    return CLI_OK;
}

const CliCommand CLI_UCI = {"uci", UCI_HELP, UCI_FLAGS, run_uci};
