#define _POSIX_C_SOURCE 200809L
/* test_engine.c: the search and engine versions (the evaluation and the
 * generators the search builds on: test_eval.c).
 *
 *  - the hand-made tactical positions of data/tactics.tsv are solved at
 *    their depth;
 *  - mates in 1 and 2 (some only by a split) are found; each is confirmed by
 *    an independent brute-force mate search in this file;
 *  - a mover never plays an illegal move over 2,000 random-weight games;
 *  - determinism at fixed depth and at fixed nodes, also with two engine
 *    versions searching at once on two threads;
 *  - engine INI files: write/read round trip, and bad files rejected with
 *    file and line; every search setting of search.def survives write/read
 *    and is refused out of its bounds; default.ini lists them all;
 *  - the time budget of a clock keeps its bounds, and a search with a
 *    50 ms clock returns within the hard limit it computed;
 *  - a stop flag set by another thread (as a signal handler does) ends a
 *    deep search within a second, keeping a legal move; a search stopped
 *    before its first iteration completed says so (depth 0) and still
 *    returns a legal move. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#include <cmocka.h>

#include "data_lines.h"
#include "engine_fixtures.h"
#include "engine.h"
#include "rng.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "search.h"
#include "tfen.h"

/* ---- mates ------------------------------------------------------------------ */

static bool move_mates_within(Position *p, const Options *o, Move m, int n);

/* Independent brute force: does the side to move mate within n moves? */
static bool mates_within(Position *p, const Options *o, int n)
{
    MoveList l;
    movegen_legal(p, o, &l);
    for (int i = 0; i < l.count; i++)
        if (move_mates_within(p, o, l.moves[i], n))
            return true;
    return false;
}

/* Does move m mate within n (m, then for every reply a mate within n-1)? */
static bool move_mates_within(Position *p, const Options *o, Move m, int n)
{
    Undo u;
    pos_make_move(p, m, &u);
    MoveList r;
    movegen_legal(p, o, &r);
    bool ok;
    if (r.count == 0)
        ok = pos_in_check(p, o);
    else if (n == 1)
        ok = false;
    else {
        ok = true;
        for (int j = 0; j < r.count && ok; j++) {
            Undo u2;
            pos_make_move(p, r.moves[j], &u2);
            ok = mates_within(p, o, n - 1);
            pos_unmake_move(p, &u2);
        }
    }
    pos_unmake_move(p, &u);
    return ok;
}

typedef struct {
    const char *tfen;
    int n;          /* mate in n moves */
    bool split_only; /* every mating first move is a split */
} MateCase;

static const MateCase MATES[] = {
    /* docs/rules.md section 14: the split b2(1)-g7 mates */
    {"rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4", 1, true},
    {"8/k7/2Q5/8/8/4K3/8/1BQ5 w - - 0 1", 2, false},
    {"4R3/4K3/6k1/8/8/5N2/Q7/8 w - - 0 1", 2, false},
    {"8/8/R6K/3R4/7k/8/8/8 w - - 0 1", 2, false},
    {"8/3k4/8/6(QRR)1/8/8/8/3K4 w - - 0 1", 2, false},
    {"8/Q5K1/8/3(QrRn)4/8/7k/8/8 w - - 0 1", 2, false},
    {"2K5/5k2/7(BRqqbQ)/8/8/8/8/8 w - - 0 1", 2, false},
    {"8/4K3/(RnRR)7/2k5/8/8/8/8 w - - 0 1", 2, false},
};

static void test_mates_found(void **state)
{
    (void)state;
    Options o = {0};
    EngineVersion e;
    engine_default(&e);
    int split_mates = 0;
    for (size_t i = 0; i < sizeof MATES / sizeof MATES[0]; i++) {
        Position p = read_tfen(MATES[i].tfen);
        /* the position really is a mate in n and not in fewer */
        assert_true(mates_within(&p, &o, MATES[i].n));
        if (MATES[i].n > 1)
            assert_false(mates_within(&p, &o, MATES[i].n - 1));
        SearchContext *c = search_alloc(&e.params, &o, &e.settings);
        assert_non_null(c);
        SearchLimits lim = {2 * MATES[i].n + 1, 0, 0};
        SearchResult r;
        search_run(c, &p, NULL, 0, &lim, NULL, NULL, &r);
        search_free(c);
        char m[TV_MOVE_STR_MAX];
        move_to_str(&p, &o, r.best, true, m, sizeof m);
        if (r.score != SCORE_MATE - (2 * MATES[i].n - 1) || !move_mates_within(&p, &o, r.best, MATES[i].n))
            fail_msg("%s: engine plays %s with score %d, not a mate in %d", MATES[i].tfen, m, r.score, MATES[i].n);
        if (move_k(r.best) < p.height[move_from(r.best)])
            split_mates++;
        if (MATES[i].split_only) {
            MoveList l;
            movegen_legal(&p, &o, &l);
            for (int j = 0; j < l.count; j++)
                if (move_mates_within(&p, &o, l.moves[j], MATES[i].n))
                    assert_true(move_k(l.moves[j]) < p.height[move_from(l.moves[j])]);
        }
    }
    /* several of the mates are played with a split */
    assert_true(split_mates >= 3);
}

/* ---- legality over random-weight games --------------------------------------- */

static void test_random_weight_games_are_legal(void **state)
{
    (void)state;
    Options o = {0};
    uint64_t seed = 2024;
    int games = 0, plies = 0;
    SearchSettings set;
    search_settings_default(&set);
    set.tt_mb = 1;
    for (int g = 0; g < 2000; g++) {
        EvalParams w[2];
        random_params(&w[0], &seed);
        random_params(&w[1], &seed);
        SearchContext *c[2] = {search_alloc(&w[0], &o, &set), search_alloc(&w[1], &o, &set)};
        assert_non_null(c[0]);
        assert_non_null(c[1]);
        Position p = read_tfen("startpos");
        /* a couple of random plies so that games differ */
        for (int i = 0; i < 2; i++) {
            MoveList l;
            movegen_legal(&p, &o, &l);
            Undo u;
            pos_make_move(&p, l.moves[tv_rng_next(&seed) % (uint64_t)l.count], &u);
        }
        uint64_t hist[64];
        for (int ply = 0; ply < 24; ply++) {
            if (movegen_state(&p, &o) != TV_STATE_ONGOING)
                break;
            SearchLimits lim = {(g % 10 == 0) ? 3 : 1, 200, 0}; /* node cap: random weights can make long lines */
            SearchResult r;
            search_run(c[p.side], &p, hist, ply, &lim, NULL, NULL, &r);
            if (!movegen_is_legal(&p, &o, r.best)) {
                char buf[TV_TFEN_MAX];
                fail_msg("game %d ply %d: illegal move %06x at %s", g, ply, r.best, tfen_write(&p, buf, sizeof buf));
            }
            hist[ply] = p.hash;
            Undo u;
            pos_make_move(&p, r.best, &u);
            plies++;
        }
        search_free(c[0]);
        search_free(c[1]);
        games++;
    }
    assert_int_equal(games, 2000);
    assert_true(plies > 30000);
}

/* ---- determinism --------------------------------------------------------------- */

static void search_once(const EvalParams *w, const char *tfen, const SearchLimits *lim, SearchResult *r)
{
    Options o = {0};
    SearchSettings set;
    search_settings_default(&set);
    SearchContext *c = search_alloc(w, &o, &set);
    assert_non_null(c);
    Position p = read_tfen(tfen);
    search_run(c, &p, NULL, 0, lim, NULL, NULL, r);
    search_free(c);
}

static void test_deterministic(void **state)
{
    (void)state;
    EvalParams w[2];
    eval_params_default(&w[0]);
    uint64_t seed = 5;
    random_params(&w[1], &seed);
    const char *tfen = WALK_STARTS[3];
    const SearchLimits limits[2] = {{3, 0, 0}, {0, 20000, 0}};
    for (int l = 0; l < 2; l++) {
        SearchResult a[2], b[2];
        for (int v = 0; v < 2; v++)
            search_once(&w[v], tfen, &limits[l], &a[v]);
        /* again, the two versions at once on two threads */
#pragma omp parallel for num_threads(2)
        for (int v = 0; v < 2; v++)
            search_once(&w[v], tfen, &limits[l], &b[v]);
        for (int v = 0; v < 2; v++) {
            assert_int_equal(a[v].best, b[v].best);
            assert_int_equal(a[v].score, b[v].score);
            assert_int_equal(a[v].nodes, b[v].nodes);
            assert_int_equal(a[v].depth, b[v].depth);
        }
        if (l == 1) /* the node limit is honoured (checked per node) */
            assert_true(a[0].nodes <= 20000 + 1);
    }
}

/* ---- engine INI files -------------------------------------------------------- */

/* A SearchReport that counts completed iterations (each has depth >= 1). */
static void count_report(const SearchResult *r, void *user)
{
    assert_true(r->depth >= 1);
    ++*(int *)user;
}

typedef struct {
    volatile sig_atomic_t *flag;
    double delay;
} Stopper;

static void *stop_later(void *arg)
{
    const Stopper *st = arg;
    struct timespec ts = {(time_t)st->delay, (long)((st->delay - (double)(time_t)st->delay) * 1e9)};
    nanosleep(&ts, NULL);
    *st->flag = 1;
    return NULL;
}

static void test_stop_flag_ends_deep_search(void **state)
{
    (void)state;
    EvalParams params;
    eval_params_default(&params);
    SearchSettings set;
    search_settings_default(&set);
    Options o = {0};
    SearchContext *ctx = search_alloc(&params, &o, &set);
    assert_non_null(ctx);
    volatile sig_atomic_t flag = 0;
    search_set_stop_flag(ctx, &flag);
    Position p = read_tfen(TV_START_TFEN);
    SearchLimits deep = {48, 0, 0}; /* hours without the flag */
    pthread_t th;
    Stopper st = {&flag, 0.3};
    assert_int_equal(pthread_create(&th, NULL, stop_later, &st), 0);
    double t0 = tv_now_seconds();
    SearchResult r;
    search_run(ctx, &p, NULL, 0, &deep, NULL, NULL, &r);
    double took = tv_now_seconds() - t0;
    pthread_join(th, NULL);
    assert_true(took < 1.3);
    assert_true(r.depth >= 1 && r.depth < 48);
    assert_true(movegen_is_legal(&p, &o, r.best));
    /* set before the search: not even depth 1 completes */
    search_run(ctx, &p, NULL, 0, &deep, NULL, NULL, &r);
    assert_int_equal(r.depth, 0);
    assert_true(movegen_is_legal(&p, &o, r.best));
    search_free(ctx);
}

static void test_incomplete_first_iteration(void **state)
{
    (void)state;
    EvalParams params;
    eval_params_default(&params);
    SearchSettings set;
    search_settings_default(&set);
    Options o = {0};
    SearchContext *ctx = search_alloc(&params, &o, &set);
    Position p = read_tfen(TV_START_TFEN);
    int reports = 0;
    for (uint64_t n = 1; n <= 200; n += 7) {
        SearchLimits lim = {0, n, 0};
        SearchResult r;
        search_clear(ctx);
        search_run(ctx, &p, NULL, 0, &lim, count_report, &reports, &r);
        assert_true(movegen_is_legal(&p, &o, r.best));
        if (r.depth == 0)
            assert_int_equal(r.pv_len, 0);
        else
            assert_true(r.pv_len >= 1);
    }
    /* every report is a completed iteration */
    assert_true(reports > 0);
    search_free(ctx);
}

static void test_engine_ini_round_trip(void **state)
{
    (void)state;
    EngineVersion e, back;
    engine_default(&e);
    snprintf(e.name, sizeof e.name, "roundtrip");
    uint64_t seed = 11;
    random_params(&e.params, &seed);
    e.limits.depth = 6;
    e.limits.nodes = 12345;
    e.settings.qsearch = 0;
    char path[] = "/tmp/tavreli_engine_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    TvError err;
    assert_int_equal(engine_write(path, &e, "a comment\nover two lines", &err), TV_OK);
    assert_int_equal(engine_read(path, &back, &err), TV_OK);
    remove(path);
    assert_string_equal(back.name, "roundtrip");
    assert_memory_equal(&back.params, &e.params, sizeof e.params);
    assert_int_equal(back.limits.depth, 6);
    assert_int_equal(back.limits.nodes, 12345);
    assert_int_equal(back.settings.qsearch, 0);

    /* a subset: the rest default */
    assert_int_equal(engine_read_string("[engine]\nname = small\n[weights]\ntempo = 3\n", "small.ini", &back, &err),
                     TV_OK);
    EvalParams d;
    eval_params_default(&d);
    d.w[EW_tempo] = 3;
    assert_memory_equal(&back.params, &d, sizeof d);
}

static void test_engine_ini_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line;
        const char *msg;
    } cases[] = {
        {"[engine]\nname = x\n[weights]\nnosuch = 3\n", 4, "unknown weight 'nosuch'"},
        {"[engine]\nname = x\n[wrong]\n", 3, "unknown section [wrong]"},
        {"[search]\ndepth = 3\nspeed = 9\n", 3, "unknown key 'speed' in [search]"},
        {"[weights]\ntempo = 1000\n", 2, "weight 'tempo': 1000 is outside its bounds [-100, 100]"},
        {"[weights]\n\ntop_value = 1, 2, 3\n", 3, "weight 'top_value' needs 6 comma-separated elements, got 3"},
        {"[weights]\ncentre = 1, 2, 3\n", 2, "weight 'centre' has more than 2 elements"},
        {"[weights]\ntempo = ten\n", 2, "weight 'tempo': 'ten' is not a whole number"},
        {"[search]\ndepth = -1\n", 2, "search depth '-1'"},
        {"[search]\nqsearch = maybe\n", 2, "search qsearch 'maybe' must be yes or no"},
        {"[engine]\nname\n", 2, "malformed line"},
        {"[weights]\ntempo = 5\ntempo = 7\n", 3, "[weights] tempo is given twice (first at line 2): give it once"},
        {"[weights]\ncentre = 1, 2,\n", 2, "weight 'centre': an empty element (a comma too many?)"},
        {"[weights]\ncentre = 1,,2\n", 2, "weight 'centre': an empty element"},
        {"[engine] x\nname = y\n", 1, "text after the section header: 'x'"},
        {"[search]\ndepth = +3\n", 2, "search depth '+3'"},
        {"[engine]\nname = a\x1b[31m\n", 2, "a control character (byte \\x1B"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EngineVersion e;
        TvError err;
        TvStatus s = engine_read_string(cases[i].text, "bad.ini", &e, &err);
        if (s == TV_OK || err.line != cases[i].line || !strstr(err.msg, cases[i].msg) ||
            strncmp(err.msg, "bad.ini:", 8) != 0)
            fail_msg("case %zu: status %d line %d message '%s'; expected line %d and '%s'", i, s, err.line, err.msg,
                     cases[i].line, cases[i].msg);
    }
    EngineVersion e;
    TvError err;
    assert_int_equal(engine_read("/nonexistent/x.ini", &e, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent/x.ini"));
}

/* configs/engines/handset.ini is exactly what the weight and setting tables
 * write: the built-in defaults are the hand-set engine (the shipped
 * default.ini is the tuning pipeline's result, docs/shipped-engine.md). */
static void test_handset_ini_matches_table(void **state)
{
    (void)state;
    EngineVersion handset, def;
    TvError err;
    assert_int_equal(engine_read(TAVRELI_SOURCE_DIR "/configs/engines/handset.ini", &handset, &err), TV_OK);
    engine_default(&def);
    assert_memory_equal(&handset.params, &def.params, sizeof def.params);
    assert_memory_equal(&handset.settings, &def.settings, sizeof def.settings);
    assert_int_equal(handset.limits.depth, def.limits.depth);
}

/* Every search setting of search.def survives an INI write and read at a
 * value other than its default (both bounds of an int), and the reader
 * refuses a value just outside its bounds, naming the setting and the line. */
static void test_search_settings_ini(void **state)
{
    (void)state;
    char path[] = "/tmp/tavreli_settings_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    for (int i = 0; i < SEARCH_NSETTINGS; i++) {
        const SearchSettingInfo *si = &SEARCH_SETTING_INFO[i];
        assert_true(si->lo <= si->def && si->def <= si->hi);
        assert_int_equal(search_setting_find(si->name), i);
        const int values[2] = {si->lo, si->hi};
        for (int j = 0; j < 2; j++) {
            EngineVersion e, back;
            engine_default(&e);
            *search_setting_field(&e.settings, i) = values[j];
            TvError err;
            assert_int_equal(engine_write(path, &e, NULL, &err), TV_OK);
            assert_int_equal(engine_read(path, &back, &err), TV_OK);
            if (memcmp(&back.settings, &e.settings, sizeof e.settings) != 0)
                fail_msg("setting %s = %d does not survive write and read", si->name, values[j]);
        }
        /* refused out of bounds */
        char text[256];
        const char *bad[2];
        char lo[32], hi[32];
        if (si->type == SEARCH_SETTING_BOOL) {
            bad[0] = "maybe";
            bad[1] = "2";
        } else {
            snprintf(lo, sizeof lo, "%ld", (long)si->lo - 1);
            snprintf(hi, sizeof hi, "%ld", (long)si->hi + 1);
            bad[0] = lo;
            bad[1] = hi;
        }
        for (int j = 0; j < 2; j++) {
            snprintf(text, sizeof text, "[engine]\nname = x\n[search]\n%s = %s\n", si->name, bad[j]);
            EngineVersion e;
            TvError err;
            if (engine_read_string(text, "bad.ini", &e, &err) == TV_OK || err.line != 4 ||
                !strstr(err.msg, si->name))
                fail_msg("setting %s = %s accepted or badly reported: %s", si->name, bad[j], err.msg);
        }
    }
    remove(path);
    /* the older field name aliases hash_mb */
    SearchSettings set;
    search_settings_default(&set);
    set.tt_mb = 3;
    assert_int_equal(set.hash_mb, 3);
}

/* The time budget: none without a clock; soft <= hard; the hard limit
 * never above time_max_pct of the time left after the overhead (when there
 * is any), and both at least 1 ms.  A mover whose sudden-death clock is at
 * 0 or below (the referee's margin lets it overstep) gets the least budget,
 * 1 ms, not none: with none the search ran unbounded (tc = 0.3 tournaments
 * finished no game). */
static void test_time_budget(void **state)
{
    (void)state;
    SearchSettings set;
    search_settings_default(&set);
    int soft, hard;
    search_time_budget(&set, NULL, TV_WHITE, &soft, &hard);
    assert_true(soft == 0 && hard == 0);
    static const int spent[] = {0, -1, -150, INT_MIN};
    for (size_t i = 0; i < sizeof spent / sizeof spent[0]; i++) {
        SearchClock out = {spent[i], 5000, 0, 0, 0};
        search_time_budget(&set, &out, TV_WHITE, &soft, &hard);
        if (soft != 1 || hard != 1)
            fail_msg("White's clock at %d ms: soft %d hard %d, not 1 and 1", spent[i], soft, hard);
        search_time_budget(&set, &out, TV_BLACK, &soft, &hard);
        assert_true(soft > 1 && hard > 1);
        SearchClock black_out = {5000, spent[i], 0, 0, 0};
        search_time_budget(&set, &black_out, TV_BLACK, &soft, &hard);
        if (soft != 1 || hard != 1)
            fail_msg("Black's clock at %d ms: soft %d hard %d, not 1 and 1", spent[i], soft, hard);
    }
    static const int lefts[] = {1, 5, 20, 50, 100, 1000, 60000, 3600000};
    static const int incs[] = {0, 10, 1000};
    static const int togo[] = {0, 1, 5, 40};
    for (size_t a = 0; a < sizeof lefts / sizeof lefts[0]; a++)
        for (size_t b = 0; b < sizeof incs / sizeof incs[0]; b++)
            for (size_t m = 0; m < sizeof togo / sizeof togo[0]; m++) {
                SearchClock ck = {lefts[a], lefts[a], incs[b], incs[b], togo[m]};
                search_time_budget(&set, &ck, TV_WHITE, &soft, &hard);
                double t = lefts[a] - set.move_overhead_ms;
                if (soft < 1 || hard < 1 || soft > hard ||
                    (t > 0 && hard > 1 && hard > t * set.time_max_pct / 100.0))
                    fail_msg("left %d inc %d movestogo %d: soft %d hard %d", lefts[a], incs[b], togo[m], soft, hard);
            }
}

/* With a clock of 50 ms (and no other limit) the search returns a legal
 * move within the hard limit it computed.  The tolerance: the clock is
 * polled every 1,024 nodes (well under 1 ms here) and the search then
 * unwinds, but on a shared machine the thread may also be descheduled for
 * a time slice or more; 250 ms covers that, while a search that ignored
 * the clock would run for hours (no depth limit). */
static void test_clock_hard_limit(void **state)
{
    (void)state;
    EngineVersion e;
    engine_default(&e);
    Options o = {0};
    SearchContext *ctx = search_alloc(&e.params, &o, &e.settings);
    assert_non_null(ctx);
    for (size_t i = 0; i < sizeof WALK_STARTS / sizeof WALK_STARTS[0]; i++) {
        Position p = read_tfen(WALK_STARTS[i]);
        SearchClock ck = {50, 50, 0, 0, 0};
        SearchLimits none = {0, 0, 0};
        SearchResult r;
        search_clear(ctx);
        double t0 = tv_now_seconds();
        search_run_clock(ctx, &p, NULL, 0, &none, &ck, NULL, NULL, &r);
        double ms = (tv_now_seconds() - t0) * 1000.0;
        assert_true(r.hard_ms >= 1 && r.soft_ms >= 1 && r.soft_ms <= r.hard_ms);
        assert_true(r.hard_ms <= 50);
        if (ms > r.hard_ms + 250.0)
            fail_msg("%s: %.1f ms used, hard limit %d ms", WALK_STARTS[i], ms, r.hard_ms);
        assert_true(movegen_is_legal(&p, &o, r.best));
        /* a depth limit given with the clock still applies */
        SearchLimits d1 = {1, 0, 0};
        SearchClock lots = {3600000, 3600000, 0, 0, 0};
        search_run_clock(ctx, &p, NULL, 0, &d1, &lots, NULL, NULL, &r);
        assert_int_equal(r.depth, 1);
    }
    search_free(ctx);
}

/* ---- tactics ------------------------------------------------------------------ */

typedef struct {
    int solved, failed;
} TacticsCtx;

static void check_tactic(char **cols, int ncols, int lineno, void *user)
{
    TacticsCtx *t = user;
    if (ncols < 3)
        fail_msg("tactics.tsv:%d: expected depth, move and TFEN", lineno);
    Options o = {0};
    Position p = read_tfen(cols[2]);
    Move want;
    TvError err;
    if (move_parse(&p, &o, cols[1], TV_PARSE_STRICT, &want, NULL, &err) != TV_OK)
        fail_msg("tactics.tsv:%d: %s", lineno, err.msg);
    EngineVersion e;
    engine_default(&e);
    SearchContext *c = search_alloc(&e.params, &o, &e.settings);
    assert_non_null(c);
    SearchLimits lim = {atoi(cols[0]), 0, 0};
    SearchResult r;
    search_run(c, &p, NULL, 0, &lim, NULL, NULL, &r);
    search_free(c);
    if (r.best == want)
        t->solved++;
    else {
        char m[TV_MOVE_STR_MAX];
        print_error("tactics.tsv:%d: the engine plays %s (score %d) at depth %s, expected %s (%s)\n", lineno,
                    move_to_str(&p, &o, r.best, false, m, sizeof m), r.score, cols[0], cols[1],
                    ncols > 3 ? cols[3] : "");
        t->failed++;
    }
}

/* Every position of tests/data/tactics.tsv (tower captures, splits,
 * promotions by uncovering, demotions; made by hand) is solved at its
 * depth by the default engine. */
static void test_tactics(void **state)
{
    (void)state;
    TacticsCtx t = {0, 0};
    int n = for_each_line(DATA("tactics.tsv"), check_tactic, &t);
    assert_true(n >= 10);
    assert_int_equal(t.failed, 0);
    assert_int_equal(t.solved, n);
}

/* The shipped engine files (default.ini, the pipeline's result, and
 * handset.ini) read, and each names every search setting and every weight:
 * a reader sees the whole engine in one file. */
static void test_shipped_inis_complete(void **state)
{
    (void)state;
    static const char *const files[2] = {TAVRELI_SOURCE_DIR "/configs/engines/default.ini",
                                         TAVRELI_SOURCE_DIR "/configs/engines/handset.ini"};
    for (int f = 0; f < 2; f++) {
        EngineVersion shipped;
        TvError err;
        assert_int_equal(engine_read(files[f], &shipped, &err), TV_OK);
        char *text = NULL;
        size_t len = 0;
        assert_int_equal(tv_read_file(files[f], "engine INI", &text, &len, &err), TV_OK);
        for (int i = 0; i < SEARCH_NSETTINGS; i++) {
            char key[80];
            snprintf(key, sizeof key, "\n%s = ", SEARCH_SETTING_INFO[i].name);
            if (!strstr(text, key))
                fail_msg("%s does not list the search setting %s", files[f], SEARCH_SETTING_INFO[i].name);
        }
        for (int i = 0; i < EVAL_NDECLS; i++) {
            char key[80];
            snprintf(key, sizeof key, "\n%s = ", EVAL_WEIGHT_INFO[i].name);
            if (!strstr(text, key))
                fail_msg("%s does not list the weight %s", files[f], EVAL_WEIGHT_INFO[i].name);
        }
        free(text);
    }
}

int main(void)
{
    if (getenv("TAVRELI_TEST_FILTER")) /* run one test: TAVRELI_TEST_FILTER=test_mates_found */
        cmocka_set_test_filter(getenv("TAVRELI_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mates_found),
        cmocka_unit_test(test_random_weight_games_are_legal),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_stop_flag_ends_deep_search),
        cmocka_unit_test(test_incomplete_first_iteration),
        cmocka_unit_test(test_engine_ini_round_trip),
        cmocka_unit_test(test_engine_ini_errors),
        cmocka_unit_test(test_handset_ini_matches_table),
        cmocka_unit_test(test_search_settings_ini),
        cmocka_unit_test(test_time_budget),
        cmocka_unit_test(test_clock_hard_limit),
        cmocka_unit_test(test_tactics),
        cmocka_unit_test(test_shipped_inis_complete),
    };
    return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
