/* cli_strength.c: `tavreli strength`, the engine's sanity check of strength
 * (selfplay/strength.h does the work). */
#include <omp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "strength.h"

static const char STRENGTH_HELP[] =
    "usage: tavreli strength [--check random|depth|all] [--games N] [--seed S]\n"
    "                        [--threads N] [--engine FILE]\n"
    "\n"
    "Plays N games (default 200, 2 to 1000000; each opening twice, colours\n"
    "reversed) with the ordinary tournament runner and prints the first player's\n"
    "wins/draws/losses, score and Elo with its 95% interval:\n"
    "  random  the engine at depth 3 against a random mover: passes at >= 95%\n"
    "  depth   the engine at depth 4 against itself at depth 2: passes when the\n"
    "          lower end of the 95% interval of its Elo is above 0\n"
    "Openings are random (2 plies for 'random', 4 for 'depth') from the seed S\n"
    "(default 1; the depth check uses S + 1); games longer than 300 plies are\n"
    "drawn. --threads: game threads (default all cores). --engine: an engine\n"
    "version INI (default the built-in one). Exit status 1 when a check fails.\n\n"
    "Examples:\n"
    "  tavreli strength\n"
    "  tavreli strength --check depth --games 40 --engine configs/engines/default.ini\n";

typedef struct {
    const char *check, *engine;
    long games, threads;
    unsigned long long seed;
} StrengthArgs;

static const CliFlag STRENGTH_FLAGS[] = {
    {"check", 0, CLI_STRING, offsetof(StrengthArgs, check), 0, 0},
    {"games", 0, CLI_LONG, offsetof(StrengthArgs, games), 2, 1000000},
    {"seed", 0, CLI_U64, offsetof(StrengthArgs, seed), 0, 18446744073709551615.0},
    {"threads", 0, CLI_LONG, offsetof(StrengthArgs, threads), 1, 1024},
    {"engine", 0, CLI_STRING, offsetof(StrengthArgs, engine), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_strength(const CliCommand *cmd, int argc, char **argv)
{
    StrengthArgs a = {"all", NULL, 200, 0, 1};
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    bool do_random = !strcmp(a.check, "random") || !strcmp(a.check, "all");
    bool do_depth = !strcmp(a.check, "depth") || !strcmp(a.check, "all");
    if (!do_random && !do_depth) {
        cli_error("strength: --check must be random, depth or all, not '%s'", a.check);
        return CLI_USAGE;
    }
    StrengthOptions so;
    memset(&so, 0, sizeof so);
    if (!cli_load_engine(a.engine, &so.engine))
        return CLI_FAIL;
    CliProgress progress = {isatty(STDERR_FILENO), 0};
    so.games = (int)a.games;
    so.threads = (int)a.threads;
    so.progress = cli_progress_line;
    so.progress_user = &progress;
    so.progress_every = progress.tty ? 0.5 : 10;
    int rc = CLI_OK;
    for (int k = 0; k < 2; k++) {
        if (!(k == 0 ? do_random : do_depth))
            continue;
        so.check = k == 0 ? STRENGTH_RANDOM : STRENGTH_DEPTH;
        so.seed = a.seed + (uint64_t)k;
        StrengthResult r;
        TvError err;
        if (strength_run(&so, &r, &err) != TV_OK) {
            cli_error("strength: %s", err.msg);
            return CLI_FAIL;
        }
        const PairingStats *ps = &r.stats;
        char elo[48];
        printf("%s: %lld games, +%lld =%lld -%lld, score %.1f%%, Elo %s (95%%)\n", r.title,
               (long long)(ps->wins + ps->draws + ps->losses), (long long)ps->wins, (long long)ps->draws,
               (long long)ps->losses, 100 * ps->score, stats_format_elo(ps, elo, sizeof elo));
        printf("  %s (%s)\n", r.pass ? "PASS" : "FAIL", r.criterion);
        fflush(stdout);
        if (!r.pass)
            rc = CLI_FAIL;
    }
    return rc;
}

const CliCommand CLI_STRENGTH = {"strength", STRENGTH_HELP, STRENGTH_FLAGS, run_strength};
