/* cli_engine.c: `tavreli analyse`, `play` and `bench search`. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "engine.h"
#include "movegen.h"
#include "notation.h"
#include "record.h"
#include "search.h"
#include "tfen.h"

static bool is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

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

/* Parses a positive limit value; returns false with a message on error. */
static bool parse_limit(const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        cli_error("%s must be a whole number from %ld to %ld, not '%s'", flag, lo, hi, v);
        return false;
    }
    *out = x;
    return true;
}

static bool load_engine(const char *path, EngineVersion *e)
{
    if (!path) {
        engine_default(e);
        return true;
    }
    TvError err;
    if (engine_read(path, e, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return false;
    }
    return true;
}

/* ---- analyse ---------------------------------------------------------------- */

static const char ANALYSE_HELP[] =
    "usage: tavreli analyse [--engine FILE] [--depth N | --nodes N | --movetime MS]\n"
    "                       [--option NAME=VALUE]... TFEN\n"
    "\n"
    "Searches TFEN ('startpos' for the start position) and prints one line per\n"
    "completed iteration: depth, score (cp N, or mate N in moves), nodes, nodes\n"
    "per second, time and principal variation; the last line is 'bestmove MOVE'.\n"
    "\n"
    "  --engine FILE   an engine version INI (default: built-in defaults)\n"
    "  --depth N       search N plies (default: the engine's depth, 4 by default)\n"
    "  --nodes N       stop after about N nodes (deterministic)\n"
    "  --movetime MS   stop after MS milliseconds\n";

int cli_analyse(int argc, char **argv)
{
    const char *engine_path = NULL;
    SearchLimits limits = {0, 0, 0};
    bool limit_given = false;
    Options o = {0};
    char *words[16];
    int nwords = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            fputs(ANALYSE_HELP, stdout);
            return CLI_OK;
        }
        int taken = cli_take_option(argc, argv, &i, &o);
        if (taken < 0)
            return CLI_USAGE;
        if (taken > 0)
            continue;
        bool takes = !strcmp(a, "--engine") || !strcmp(a, "--depth") || !strcmp(a, "--nodes") ||
                     !strcmp(a, "--movetime");
        if (takes && i + 1 >= argc) {
            cli_error("analyse: %s needs a value (see 'tavreli analyse --help')", a);
            return CLI_USAGE;
        }
        long v;
        if (!strcmp(a, "--engine"))
            engine_path = argv[++i];
        else if (!strcmp(a, "--depth")) {
            if (!parse_limit("--depth", argv[++i], 1, SEARCH_MAX_PLY / 2, &v))
                return CLI_USAGE;
            limits.depth = (int)v;
            limit_given = true;
        } else if (!strcmp(a, "--nodes")) {
            if (!parse_limit("--nodes", argv[++i], 1, 2000000000L, &v))
                return CLI_USAGE;
            limits.nodes = (uint64_t)v;
            limit_given = true;
        } else if (!strcmp(a, "--movetime")) {
            if (!parse_limit("--movetime", argv[++i], 1, 86400000L, &v))
                return CLI_USAGE;
            limits.movetime_ms = (int)v;
            limit_given = true;
        } else if (a[0] == '-' && a[1] == '-') {
            cli_error("analyse: unknown flag '%s' (see 'tavreli analyse --help')", a);
            return CLI_USAGE;
        } else if (nwords < 16)
            words[nwords++] = argv[i];
    }
    if (nwords == 0) {
        cli_error("analyse: expected a TFEN (see 'tavreli analyse --help')");
        return CLI_USAGE;
    }
    char tfen[1024];
    cli_join_words(words, nwords, tfen, sizeof tfen);
    Position pos;
    TvError err;
    if (tfen_read_arg(tfen, &pos, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    EngineVersion e;
    if (!load_engine(engine_path, &e))
        return CLI_FAIL;
    if (!limit_given)
        limits = e.limits;
    SearchContext *ctx = search_alloc(&e.params, &o, &e.settings);
    if (!ctx) {
        cli_error("analyse: out of memory for a %d MiB hash table", e.settings.tt_mb);
        return CLI_FAIL;
    }
    ReportCtx rc = {&pos, &o};
    SearchResult r;
    search_run(ctx, &pos, NULL, 0, &limits, print_iteration, &rc, &r);
    search_free(ctx);
    if (r.best == TV_MOVE_NONE) {
        printf("bestmove (none): %s\n", game_state_name(movegen_state(&pos, &o)));
        return CLI_OK;
    }
    char m[TV_MOVE_STR_MAX];
    printf("bestmove %s\n", move_to_str(&pos, &o, r.best, true, m, sizeof m));
    return CLI_OK;
}

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

int cli_bench_search(int argc, char **argv)
{
    int depth = BENCH_SEARCH_DEPTH;
    for (int i = 2; i < argc; i++) {
        long v;
        if (!strcmp(argv[i], "--depth") && i + 1 < argc) {
            if (!parse_limit("--depth", argv[++i], 1, 20, &v))
                return CLI_USAGE;
            depth = (int)v;
        } else {
            cli_error("bench search: unknown argument '%s' (usage: tavreli bench search [--depth N])", argv[i]);
            return CLI_USAGE;
        }
    }
    EngineVersion e;
    engine_default(&e);
    Options o = {0};
    uint64_t total = 0;
    double seconds = 0;
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
    }
    printf("nodes %llu\n", (unsigned long long)total);
    printf("nps %.0f (one thread, %.3f s)\n", seconds > 0 ? (double)total / seconds : 0.0, seconds);
    return CLI_OK;
}

/* ---- weights -------------------------------------------------------------------- */

static const char WEIGHTS_HELP[] =
    "usage: tavreli weights [--ini FILE]\n"
    "\n"
    "Prints the evaluation's weight table (name, size, default, bounds, group,\n"
    "meaning), or with --ini writes the default engine version to FILE (this is\n"
    "how configs/engines/default.ini is made).\n";

int cli_weights(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(WEIGHTS_HELP, stdout);
        return CLI_OK;
    }
    EngineVersion e;
    engine_default(&e);
    if (argc == 3 && !strcmp(argv[1], "--ini")) {
        TvError err;
        if (engine_write(argv[2], &e, "Written by 'tavreli weights --ini' from core/weights.def.", &err) != TV_OK) {
            cli_error("%s", err.msg);
            return CLI_FAIL;
        }
        return CLI_OK;
    }
    if (argc != 1) {
        cli_error("weights: unexpected arguments (see 'tavreli weights --help')");
        return CLI_USAGE;
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
    return CLI_OK;
}
