/* cli_engine.c: `tavreli analyse`, `weights` and `bench search` (with its clock benchmark). */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "engine.h"
#include "movegen.h"
#include "notation.h"
#include "record.h"
#include "rng.h"
#include "search.h"
#include "tfen.h"

/* Writes a principal variation in notation (with suffixes) into buf. */
static void pv_to_str(const Position *start, const Options *o, const Move *pv, int n, char *buf, size_t size)
{
    Position p = *start;
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        if (!movegen_is_legal(&p, o, pv[i]))
            break; /* a stale table move: stop the line there */
        char m[TV_MOVE_STR_MAX];
        move_to_str(&p, o, pv[i], true, m, sizeof m);
        int w = snprintf(buf + len, size - len, "%s%s", i ? " " : "", m);
        if (w < 0 || (size_t)w >= size - len)
            break;
        len += (size_t)w;
        Undo u;
        pos_make_move(&p, pv[i], &u);
    }
}

static void format_score(int score, char *buf, size_t n)
{
    if (score > SCORE_MATE_BOUND)
        snprintf(buf, n, "mate %d", (SCORE_MATE - score + 1) / 2);
    else if (score < -SCORE_MATE_BOUND)
        snprintf(buf, n, "mate -%d", (SCORE_MATE + score) / 2);
    else
        snprintf(buf, n, "cp %d", score);
}

typedef struct {
    const Position *pos;
    const Options *o;
} ReportCtx;

static void print_iteration(const SearchResult *r, void *user)
{
    const ReportCtx *rc = user;
    char pv[2048], sc[32];
    pv_to_str(rc->pos, rc->o, r->pv, r->pv_len, pv, sizeof pv);
    format_score(r->score, sc, sizeof sc);
    printf("depth %d score %s nodes %llu nps %.0f time %.3f pv %s\n", r->depth, sc, (unsigned long long)r->nodes,
           r->seconds > 0 ? (double)r->nodes / r->seconds : 0.0, r->seconds, pv);
    fflush(stdout);
}

/* ---- analyse ---------------------------------------------------------------- */

static const char ANALYSE_HELP[] =
    "usage: tavreli analyse [--engine FILE] [--depth N | --nodes N | --movetime MS]\n"
    "                       [--option NAME=VALUE]... [--rule NAME=VALUE]... TFEN\n"
    "\n"
    "Searches TFEN ('startpos' for the start position) and prints one line per\n"
    "completed iteration: depth, score (cp N, or mate N in moves), nodes, nodes\n"
    "per second, time and principal variation; the last line is 'bestmove MOVE'.\n"
    "\n"
    "  --engine FILE   an engine version INI (default: built-in defaults)\n"
    "  --depth N       search N plies (default: the engine's depth, 4 by default)\n"
    "  --nodes N       stop after about N nodes (deterministic)\n"
    "  --movetime MS   stop after MS milliseconds\n"
    "  --option NAME=VALUE  an engine option on top of FILE (lmr=no,\n"
    "                  top_value[1]=480: a search setting or weight, as option.NAME\n"
    "                  in a tournament; 'tavreli weights' lists the weights)\n"
    "  --rule NAME=VALUE    a rule option (slide_over_own=yes, enpassant=any,\n"
    "                  ending=capture)\n"
    "\n"
    "Examples:\n"
    "  tavreli analyse --depth 6 startpos\n"
    "  tavreli analyse --engine configs/engines/handset.ini --option lmr=no --nodes 200000 startpos\n";

typedef struct {
    const char *engine;
    long depth, nodes, movetime;
    Options rules;
    CliEngineOptions options;
} AnalyseArgs;

static const CliFlag ANALYSE_FLAGS[] = {
    {"engine", 0, CLI_STRING, offsetof(AnalyseArgs, engine), 0, 0},
    {"depth", 0, CLI_LONG, offsetof(AnalyseArgs, depth), 1, SEARCH_MAX_PLY / 2},
    {"nodes", 0, CLI_LONG, offsetof(AnalyseArgs, nodes), 1, 2000000000},
    {"movetime", 0, CLI_LONG, offsetof(AnalyseArgs, movetime), 1, 86400000},
    {"option", 0, CLI_ENGINE_OPTION, offsetof(AnalyseArgs, options), 0, 0},
    {"rule", 0, CLI_RULE_OPTION, offsetof(AnalyseArgs, rules), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_analyse(const CliCommand *cmd, int argc, char **argv)
{
    AnalyseArgs a = {0};
    char *words[argc];
    int nwords;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, words, &nwords);
    if (rc >= 0)
        return rc;
    const char *engine_path = a.engine;
    const Options o = a.rules;
    SearchLimits limits = {(int)a.depth, (uint64_t)a.nodes, (int)a.movetime};
    const bool limit_given = a.depth || a.nodes || a.movetime;
    if (nwords == 0) {
        cli_error("analyse: expected a TFEN (see 'tavreli analyse --help')");
        return CLI_USAGE;
    }
    Position pos;
    if (!cli_read_position(words, nwords, &pos))
        return CLI_FAIL;
    EngineVersion e;
    if (!cli_load_engine(engine_path, &e) || !cli_apply_engine_options("analyse", &a.options, &e))
        return CLI_FAIL;
    if (!limit_given)
        limits = e.limits;
    SearchContext *ctx = search_alloc(&e.params, &o, &e.settings);
    if (!ctx) {
        cli_error("analyse: out of memory for a %d MiB hash table", e.settings.tt_mb);
        return CLI_FAIL;
    }
    ReportCtx report_ctx = {&pos, &o};
    SearchResult r;
    search_run(ctx, &pos, NULL, 0, &limits, print_iteration, &report_ctx, &r);
    search_free(ctx);
    if (r.best == TV_MOVE_NONE) {
        printf("bestmove (none): %s\n", game_state_name(movegen_state(&pos, &o)));
        return CLI_OK;
    }
    char m[TV_MOVE_STR_MAX];
    if (r.depth == 0) { /* the limit came before the first iteration completed */
        printf("no iteration completed within the limit (%llu nodes searched)\n", (unsigned long long)r.nodes);
        printf("bestmove %s (unsearched)\n", move_to_str(&pos, &o, r.best, true, m, sizeof m));
        return CLI_OK;
    }
    printf("bestmove %s\n", move_to_str(&pos, &o, r.best, true, m, sizeof m));
    return CLI_OK;
}

const CliCommand CLI_ANALYSE = {"analyse", ANALYSE_HELP, ANALYSE_FLAGS, run_analyse};

/* ---- bench search ----------------------------------------------------------- */

/* Fixed positions searched to a fixed depth with a fresh context each: the
 * total node count is a signature of the search and evaluation. */
static const struct {
    const char *name;
    const char *tfen;
} BENCH_SEARCH[] = {
    {"start position", TV_START_TFEN},
    {"seed game move 4", "rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4"},
    {"game2 move 13", "(RPR)nb1k3/1(rprpn)1pq(qph)pb(bpn)1/8/1(PNnpbN)5(rpr)/8/2(BPQ)QPHN2/2PB2PBPNPR/4KB1R w K - 1 13"},
    {"game6 final", "4rrk1/prpnpbpq1pbpn1/2n4pr/4R3/5(BPH)2/8/PRPNPB(qbNRnQBPQ')1PBPNPR/3(h~b)N1K1 w - - 0 19"},
    {"game10 final", "r6r/1pn1(Rb)1(Rphpqpb)(kpn)pr/pr2N1n1(nPH)/(qB)7/5(Nb)2/2PB5/1PN1K1PBPNPR/(b~QBPQPR)7 b - - 0 26"},
    {"tall towers", "8/1k6/2(nPRbPNrPBq)5/8/3(RBNQprpn)4/8/8/4K3 b - - 0 1"},
    {"castling", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"},
    {"promotions", "3r1n1k/4(PHr)3/8/8/8/8/8/K7 w - - 0 1"},
};

#define BENCH_SEARCH_DEPTH 5

static const char BENCH_SEARCH_HELP[] =
    "usage: tavreli bench search [--depth N] [--engine FILE]\n"
    "       tavreli bench search --clock [--games N] [--base MS] [--inc MS] [--seed S] [--engine FILE]\n"
    "\n"
    "Searches fixed positions to a fixed depth (5, or N from 1 to 20) with the\n"
    "default engine (or --engine FILE) and a fresh context each, and prints each\n"
    "position's nodes, what the selective techniques did, the total 'nodes N'\n"
    "(with the default engine a signature that changes only when the search or\n"
    "the evaluation change) and the nodes per second on one thread.\n"
    "\n"
    "--clock measures the time management instead: N games (default 50) of the\n"
    "engine (--engine FILE, default the built-in one) against itself on one\n"
    "thread, each side with a clock of --base MS (default 1000) and --inc MS\n"
    "(default 10) per move, from openings of 4 random plies (--seed S, default\n"
    "1). Each move's wall time (search and move) is taken off the mover's\n"
    "clock, then the increment is added. A game ends by the rules, by a time\n"
    "loss or at 400 plies. Prints one line per game, then the time losses, the\n"
    "least time any side had left after a move, and how far the moves went\n"
    "past the hard limits the search computed.\n\n"
    "Examples:\n"
    "  tavreli bench search\n"
    "  tavreli bench search --clock --games 20 --base 10000 --inc 100\n";

typedef struct {
    long depth;
    bool clock;
    long games, base, inc;
    unsigned long long seed;
    const char *engine;
} BenchSearchArgs;

static const CliFlag BENCH_SEARCH_FLAGS[] = {
    {"depth", 0, CLI_LONG, offsetof(BenchSearchArgs, depth), 1, 20},
    {"clock", 0, CLI_BOOL, offsetof(BenchSearchArgs, clock), 0, 0},
    {"games", 0, CLI_LONG, offsetof(BenchSearchArgs, games), 1, 100000},
    {"base", 0, CLI_LONG, offsetof(BenchSearchArgs, base), 1, 86400000},
    {"inc", 0, CLI_LONG, offsetof(BenchSearchArgs, inc), 0, 3600000},
    {"seed", 0, CLI_U64, offsetof(BenchSearchArgs, seed), 0, 18446744073709551615.0},
    {"engine", 0, CLI_STRING, offsetof(BenchSearchArgs, engine), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

#define CLOCK_MAX_PLIES 400

/* One game of the clock benchmark; returns the plies played and fills the
 * outcome, the least time left after a move (ms) and the worst overshoot of
 * a move beyond its hard limit (ms). */
static int clock_game(SearchContext *ctx[2], const Options *o, uint64_t seed, double base_ms, double inc_ms,
                      const char **outcome, int *loser, double *min_left, double *worst_over, double *move_ms)
{
    uint64_t rng = seed;
    Position p;
    pos_set_start(&p);
    for (int i = 0; i < 4; i++) {
        MoveList l;
        movegen_legal(&p, o, &l);
        Undo u;
        pos_make_move(&p, l.moves[tv_rng_below(&rng, (uint64_t)l.count)], &u);
    }
    search_clear(ctx[0]);
    search_clear(ctx[1]);
    double left[2] = {base_ms, base_ms};
    uint64_t hist[CLOCK_MAX_PLIES + 1];
    *loser = -1;
    *outcome = "400 plies";
    *min_left = base_ms;
    *worst_over = -1e9;
    *move_ms = 0;
    int ply = 0;
    for (; ply < CLOCK_MAX_PLIES; ply++) {
        GameState st = movegen_state(&p, o);
        int seen = 1;
        for (int i = ply - 2; i >= 0; i -= 2)
            seen += hist[i] == p.hash;
        if (st != TV_STATE_ONGOING || seen >= 3) {
            *outcome = seen >= 3 && st == TV_STATE_ONGOING ? "repetition" : game_state_name(st);
            break;
        }
        const int side = p.side;
        SearchClock ck = {(int)left[0], (int)left[1], (int)inc_ms, (int)inc_ms, 0};
        SearchLimits lim = {0, 0, 0};
        SearchResult r;
        double t0 = tv_now_seconds();
        search_run_clock(ctx[side], &p, hist, ply, &lim, &ck, NULL, NULL, &r);
        hist[ply] = p.hash;
        Undo u;
        pos_make_move(&p, r.best, &u);
        double used = (tv_now_seconds() - t0) * 1000.0;
        *move_ms += used;
        if (used - r.hard_ms > *worst_over)
            *worst_over = used - r.hard_ms;
        left[side] -= used;
        if (left[side] < *min_left)
            *min_left = left[side];
        if (left[side] < 0) {
            *loser = side;
            *outcome = "time loss";
            ply++;
            break;
        }
        left[side] += inc_ms;
    }
    return ply;
}

static int run_bench_clock(const BenchSearchArgs *a)
{
    EngineVersion e;
    if (!cli_load_engine(a->engine, &e))
        return CLI_FAIL;
    Options o = {0};
    SearchContext *ctx[2] = {search_alloc(&e.params, &o, &e.settings), search_alloc(&e.params, &o, &e.settings)};
    if (!ctx[0] || !ctx[1]) {
        search_free(ctx[0]);
        search_free(ctx[1]);
        cli_error("bench search: out of memory");
        return CLI_FAIL;
    }
    printf("clock benchmark: %ld games of '%s' against itself, %ld ms + %ld ms per move, one thread\n", a->games,
           e.name, a->base, a->inc);
    int losses = 0;
    long plies = 0;
    double min_left = 1e18, worst_over = -1e18, total_ms = 0;
    for (long g = 0; g < a->games; g++) {
        const char *outcome;
        int loser;
        double ml, wo, ms;
        int n = clock_game(ctx, &o, tv_rng_mix(a->seed + (uint64_t)g), (double)a->base, (double)a->inc, &outcome,
                           &loser, &ml, &wo, &ms);
        printf("game %ld: %s%s, %d plies, least time left %.1f ms, worst move %+.1f ms past its hard limit\n",
               g + 1, outcome, loser < 0 ? "" : loser == TV_WHITE ? " (White)" : " (Black)", n, ml, wo);
        fflush(stdout);
        losses += loser >= 0;
        plies += n;
        total_ms += ms;
        if (ml < min_left)
            min_left = ml;
        if (wo > worst_over)
            worst_over = wo;
    }
    search_free(ctx[0]);
    search_free(ctx[1]);
    printf("time losses %d of %ld games\n", losses, a->games);
    printf("least time left %.1f ms; worst move %+.1f ms past its hard limit; %.2f ms per move over %ld moves\n",
           min_left, worst_over, plies ? total_ms / (double)plies : 0.0, plies);
    return losses ? CLI_FAIL : CLI_OK;
}

static int run_bench_search(const CliCommand *cmd, int argc, char **argv)
{
    BenchSearchArgs a = {BENCH_SEARCH_DEPTH, false, 50, 1000, 10, 1, NULL};
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (a.clock)
        return run_bench_clock(&a);
    const int depth = (int)a.depth;
    EngineVersion e;
    if (!cli_load_engine(a.engine, &e))
        return CLI_FAIL;
    Options o = {0};
    uint64_t total = 0;
    double seconds = 0;
    SearchStats st = {0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof BENCH_SEARCH / sizeof BENCH_SEARCH[0]; i++) {
        Position pos;
        TvError err;
        if (tfen_read(BENCH_SEARCH[i].tfen, &pos, &err) != TV_OK) {
            cli_error("bench position '%s': %s", BENCH_SEARCH[i].name, err.msg);
            return CLI_FAIL;
        }
        SearchContext *ctx = search_alloc(&e.params, &o, &e.settings);
        if (!ctx) {
            cli_error("bench search: out of memory");
            return CLI_FAIL;
        }
        SearchLimits limits = {depth, 0, 0};
        SearchResult r;
        search_run(ctx, &pos, NULL, 0, &limits, NULL, NULL, &r);
        search_free(ctx);
        char m[TV_MOVE_STR_MAX], sc[32];
        format_score(r.score, sc, sizeof sc);
        printf("%-18s depth %d  %10llu nodes  %7.3f s  %9.0f nps  %-8s bestmove %s\n", BENCH_SEARCH[i].name,
               r.depth, (unsigned long long)r.nodes, r.seconds, r.seconds > 0 ? (double)r.nodes / r.seconds : 0.0,
               sc, r.best ? move_to_str(&pos, &o, r.best, false, m, sizeof m) : "(none)");
        fflush(stdout);
        total += r.nodes;
        seconds += r.seconds;
        st.qnodes += r.stats.qnodes;
        st.null_tries += r.stats.null_tries;
        st.null_cutoffs += r.stats.null_cutoffs;
        st.null_refuted += r.stats.null_refuted;
        st.lmr_researches += r.stats.lmr_researches;
        st.pruned += r.stats.pruned;
        st.aspiration_fails += r.stats.aspiration_fails;
    }
    printf("quiescence nodes %llu; null moves %llu, cut-offs %llu, refuted by verification %llu; "
           "reduced moves searched again %llu; moves pruned %llu; aspiration re-searches %llu\n",
           (unsigned long long)st.qnodes, (unsigned long long)st.null_tries, (unsigned long long)st.null_cutoffs,
           (unsigned long long)st.null_refuted, (unsigned long long)st.lmr_researches,
           (unsigned long long)st.pruned, (unsigned long long)st.aspiration_fails);
    printf("nodes %llu\n", (unsigned long long)total);
    printf("nps %.0f (one thread, %.3f s)\n", seconds > 0 ? (double)total / seconds : 0.0, seconds);
    return CLI_OK;
}

const CliCommand CLI_BENCH_SEARCH = {"bench search", BENCH_SEARCH_HELP, BENCH_SEARCH_FLAGS, run_bench_search};

/* ---- weights -------------------------------------------------------------------- */

static const char WEIGHTS_HELP[] =
    "usage: tavreli weights [--ini FILE]\n"
    "\n"
    "Prints the evaluation's weight table (name, size, default, bounds, group,\n"
    "meaning) and the search settings (name, type, default, bounds, meaning), or\n"
    "with --ini writes the built-in engine version, the hand-set defaults, to\n"
    "FILE (this is how configs/engines/handset.ini is made; the shipped\n"
    "configs/engines/default.ini is the tuning pipeline's, docs/shipped-engine.md).\n\n"
    "Examples:\n"
    "  tavreli weights\n"
    "  tavreli weights --ini my-engine.ini\n";

typedef struct {
    const char *ini;
} WeightsArgs;

static const CliFlag WEIGHTS_FLAGS[] = {
    {"ini", 0, CLI_STRING, offsetof(WeightsArgs, ini), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_weights(const CliCommand *cmd, int argc, char **argv)
{
    WeightsArgs a = {0};
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (rc >= 0)
        return rc;
    EngineVersion e;
    engine_default(&e);
    if (a.ini) {
        TvError err;
        if (engine_write(a.ini, &e, "Written by 'tavreli weights --ini' from core/weights.def.", &err) != TV_OK) {
            cli_error("%s", err.msg);
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    printf("%-22s %4s  %-30s %13s  %-9s %s\n", "name", "size", "default", "bounds", "group", "meaning");
    for (int d = 0; d < EVAL_NDECLS; d++) {
        const WeightInfo *w = &EVAL_WEIGHT_INFO[d];
        char def[256];
        size_t len = 0;
        def[0] = 0;
        for (int i = 0; i < w->size && len < sizeof def - 8; i++)
            len += (size_t)snprintf(def + len, sizeof def - len, "%s%d", i ? "," : "", e.params.w[w->offset + i]);
        if (strlen(def) > 30)
            strcpy(def + 26, "...");
        char bounds[32];
        snprintf(bounds, sizeof bounds, "%d..%d", w->lo, w->hi);
        printf("%-22s %4d  %-30s %13s  %-9s %s\n", w->name, w->size, def, bounds, w->group, w->meaning);
    }
    printf("%d weights in %d declarations\n", EVAL_NWEIGHTS, EVAL_NDECLS);
    printf("\n%-22s %4s  %-30s %13s  %-9s %s\n", "search setting", "type", "default", "bounds", "", "meaning");
    for (int i = 0; i < SEARCH_NSETTINGS; i++) {
        const SearchSettingInfo *si = &SEARCH_SETTING_INFO[i];
        int v = search_setting_value(&e.settings, i);
        char bounds[32];
        snprintf(bounds, sizeof bounds, "%d..%d", si->lo, si->hi);
        if (si->type == SEARCH_SETTING_BOOL)
            printf("%-22s %4s  %-30s %13s  %-9s %s\n", si->name, "bool", v ? "yes" : "no", "yes/no", "", si->meaning);
        else
            printf("%-22s %4s  %-30d %13s  %-9s %s\n", si->name, "int", v, bounds, "", si->meaning);
    }
    printf("%d search settings ([search] keys besides the limits depth, nodes, movetime)\n", SEARCH_NSETTINGS);
    return CLI_OK;
}

const CliCommand CLI_WEIGHTS = {"weights", WEIGHTS_HELP, WEIGHTS_FLAGS, run_weights};
