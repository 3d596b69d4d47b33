/* cli_strength.c: `tavreli strength`: the engine's sanity check of strength.
 * Plays paired games (each opening twice, colours reversed) on all cores:
 *   random: the engine at depth 3 against a random mover (must score >= 95%)
 *   depth:  the engine at depth 4 against itself at depth 2 (must score
 *           clearly above 50%: the lower end of the 95% interval above 50%). */
#include <math.h>
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "match.h"
#include "rng.h"

static const char STRENGTH_HELP[] =
    "usage: tavreli strength [--check random|depth|all] [--games N] [--seed S]\n"
    "                        [--threads N] [--engine FILE]\n"
    "\n"
    "Plays N games (default 200; each opening twice, colours reversed) and\n"
    "prints wins/draws/losses and the score of the first player:\n"
    "  random  the engine at depth 3 against a random mover: passes at >= 95%\n"
    "  depth   the engine at depth 4 against itself at depth 2: passes when the\n"
    "          lower end of the score's 95% interval is above 50%\n"
    "Openings are random (2 plies for 'random', 4 for 'depth') from the seed;\n"
    "games longer than 300 plies are drawn. Exit status 1 when a check fails.\n";

typedef struct {
    int wins, draws, losses; /* of the first player */
} Tally;

/* Plays `games` games (pairs of one opening) of a against b; returns the
 * tally from a's view. */
static Tally run_pairs(const PlayerSpec *a, const PlayerSpec *b, int games, uint64_t seed, int opening_plies,
                       int threads, const char *title)
{
    Options o = {0};
    int pairs = (games + 1) / 2;
    GameResult *res = calloc((size_t)pairs * 2, sizeof *res);
    int done = 0;
    Tally t = {0, 0, 0};
    if (!res)
        return t;
#pragma omp parallel num_threads(threads)
    {
        SearchContext *ca = a->kind == PLAYER_ENGINE ? search_alloc(&a->engine.params, &o, &a->engine.settings) : NULL;
        SearchContext *cb = b->kind == PLAYER_ENGINE ? search_alloc(&b->engine.params, &o, &b->engine.settings) : NULL;
#pragma omp for schedule(dynamic, 1)
        for (int pair = 0; pair < pairs; pair++) {
            Position start;
            uint64_t s = seed ^ (0x51ED2701ull * (uint64_t)(pair + 1));
            match_random_opening(&o, tv_rng_next(&s), opening_plies, &start);
            for (int g = 0; g < 2; g++) {
                /* g = 0: a plays White; g = 1: colours reversed */
                uint64_t game_seed = tv_rng_next(&s);
                GameOutcome out = g == 0 ? match_play_game(&start, &o, a, ca, b, cb, game_seed, 300)
                                         : match_play_game(&start, &o, b, cb, a, ca, game_seed, 300);
                GameResult r = out.result;
                if (g == 1 && r != RESULT_DRAW) /* from a's view */
                    r = r == RESULT_WHITE ? RESULT_BLACK : RESULT_WHITE;
                res[pair * 2 + g] = r;
#pragma omp critical
                {
                    done++;
                    if (done % 20 == 0 || done == pairs * 2) {
                        fprintf(stderr, "\r%s: %d/%d games", title, done, pairs * 2);
                        fflush(stderr);
                    }
                }
            }
        }
        search_free(ca);
        search_free(cb);
    }
    fprintf(stderr, "\n");
    for (int i = 0; i < pairs * 2; i++) {
        if (res[i] == RESULT_WHITE)
            t.wins++;
        else if (res[i] == RESULT_DRAW)
            t.draws++;
        else
            t.losses++;
    }
    free(res);
    return t;
}

/* Prints the tally; returns the score and its standard error. */
static double report(const char *title, const Tally *t, double *se)
{
    int n = t->wins + t->draws + t->losses;
    double score = n ? (t->wins + 0.5 * t->draws) / n : 0;
    double var = n ? ((t->wins * (1 - score) * (1 - score)) + (t->draws * (0.5 - score) * (0.5 - score)) +
                      (t->losses * score * score)) / n
                   : 0;
    *se = n > 1 ? sqrt(var / n) : 0;
    double elo = score <= 0 ? -INFINITY : score >= 1 ? INFINITY : -400 * log10(1 / score - 1);
    printf("%s: %d games, +%d =%d -%d, score %.1f%% +- %.1f%% (95%%), Elo %+.0f\n", title, n, t->wins, t->draws,
           t->losses, 100 * score, 196 * *se, elo);
    return score;
}

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
    StrengthArgs a = {"all", NULL, 200, omp_get_max_threads(), 1};
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    const char *check = a.check, *engine_path = a.engine;
    const long games = a.games, threads = a.threads;
    const unsigned long long seed = a.seed;
    bool do_random = !strcmp(check, "random") || !strcmp(check, "all");
    bool do_depth = !strcmp(check, "depth") || !strcmp(check, "all");
    if (!do_random && !do_depth) {
        cli_error("strength: --check must be random, depth or all, not '%s'", check);
        return CLI_USAGE;
    }
    PlayerSpec engine = {.kind = PLAYER_ENGINE};
    if (engine_path) {
        TvError err;
        if (engine_read(engine_path, &engine.engine, &err) != TV_OK) {
            cli_error("%s", err.msg);
            return CLI_FAIL;
        }
    } else
        engine_default(&engine.engine);
    engine.engine.limits = (SearchLimits){3, 0, 0};
    int rc = CLI_OK;
    if (do_random) {
        PlayerSpec random = {.kind = PLAYER_RANDOM};
        Tally t = run_pairs(&engine, &random, (int)games, seed, 2, (int)threads, "depth 3 vs random");
        double se, s = report("depth 3 vs random mover", &t, &se);
        bool pass = s >= 0.95;
        printf("  %s (needs >= 95%%)\n", pass ? "PASS" : "FAIL");
        if (!pass)
            rc = CLI_FAIL;
    }
    if (do_depth) {
        PlayerSpec deep = engine, shallow = engine;
        deep.engine.limits.depth = 4;
        shallow.engine.limits.depth = 2;
        Tally t = run_pairs(&deep, &shallow, (int)games, seed + 1, 4, (int)threads, "depth 4 vs depth 2");
        double se, s = report("depth 4 vs depth 2", &t, &se);
        bool pass = s - 1.96 * se > 0.5;
        printf("  %s (needs the 95%% interval above 50%%)\n", pass ? "PASS" : "FAIL");
        if (!pass)
            rc = CLI_FAIL;
    }
    return rc;
}

const CliCommand CLI_STRENGTH = {"strength", STRENGTH_HELP, STRENGTH_FLAGS, run_strength};
