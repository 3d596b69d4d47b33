#define _POSIX_C_SOURCE 200809L
/* test_tournament.c: tournament INI files and the plan of their games.
 *
 *  - configs/tournaments/quick.ini and overnight.ini read, with their engines
 *    and limits;
 *  - every tests/data/tournaments/bad-*.ini is rejected with the message and
 *    line written on its first line ("# expect: FILE:LINE: text");
 *  - the plan: total, every pairing gets the same number of games, games 2k
 *    and 2k+1 share an opening and swap colours, each round plays every
 *    pairing once, the plan is a pure function of the configuration;
 *  - openings: random ones are deterministic and balanced, a file's lines are
 *    used in order and cycle;
 *  - an [engine] section's depth / nodes / movetime replace the file's limits;
 *  - [each] keys reach every engine unless its own key overrides them;
 *  - an openings file shorter than the plan is refused without cycle = yes,
 *    and order = random / start = N give the file's openings permuted from
 *    the seed / rotated, the same on every read. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "search.h"
#include "tfen.h"
#include "engine_proc.h"
#include "match.h"
#include "record.h"
#include "tournament.h"

#define DATA TAVRELI_TEST_DATA "/tournaments/"
#define CONFIGS TAVRELI_SOURCE_DIR "/configs/tournaments/"

static void read_ok(const char *path, Tournament *t)
{
    TvError err;
    if (tournament_read(path, t, &err) != TV_OK)
        fail_msg("%s: %s", path, err.msg);
}

static const TournamentEngine *engine_named(const Tournament *t, const char *name)
{
    for (int i = 0; i < t->nengines; i++)
        if (!strcmp(t->engines[i].engine.name, name))
            return &t->engines[i];
    fail_msg("no engine '%s'", name);
    return NULL;
}

/* ---- the shipped configurations ---------------------------------------------- */

static void test_quick_ini(void **state)
{
    (void)state;
    Tournament t;
    read_ok(CONFIGS "quick.ini", &t);
    assert_string_equal(t.name, "quick");
    assert_int_equal(t.format, FORMAT_ROUND_ROBIN);
    assert_int_equal(t.nengines, 3);
    assert_int_equal(tournament_pairings(&t), 3);
    int64_t total = tournament_total_games(&t);
    assert_int_equal(total, 3 * t.pairs * 2);
    assert_true(total >= 100 && total <= 400); /* a few minutes on 2 cores */
    assert_int_equal(engine_named(&t, "default-d2")->engine.limits.depth, 2);
    assert_int_equal(engine_named(&t, "default-d3")->engine.limits.depth, 3);
    assert_int_equal(engine_named(&t, "mobility-d3")->engine.limits.depth, 3);
    /* the variant really has other weights */
    assert_memory_not_equal(engine_named(&t, "default-d3")->engine.params.w,
                            engine_named(&t, "mobility-d3")->engine.params.w, sizeof(EvalParams));
    assert_non_null(t.text);
    assert_non_null(strstr(t.text, "[engine mobility-d3]"));
    assert_int_equal(t.openings.file[0], 0);
    assert_int_equal(t.nopening_tfens, 0);
    assert_false(t.rules.slide_over_own);
    Position p;
    TvError err;
    assert_int_equal(tournament_opening(&t, 0, &p, &err), TV_OK);
    tournament_free(&t);
}

static void test_overnight_ini(void **state)
{
    (void)state;
    Tournament t;
    read_ok(CONFIGS "overnight.ini", &t);
    assert_string_equal(t.name, "overnight");
    assert_int_equal(t.format, FORMAT_GAUNTLET);
    assert_true(t.nengines >= 3);
    assert_int_equal(tournament_pairings(&t), t.nengines - 1);
    assert_true(tournament_total_games(&t) >= 2000);
    assert_string_equal(t.engines[0].engine.name, "default");
    assert_int_equal(t.engines[0].engine.limits.depth, 4);
    const TournamentEngine *n = engine_named(&t, "default-n60k");
    assert_int_equal(n->engine.limits.depth, 0);
    assert_int_equal(n->engine.limits.nodes, 60000);
    tournament_free(&t);
}

/* Every tournament INI shipped in configs/ and every good one of the tests'
 * data reads (a new refusal must not break a file users start from). */
static void test_every_shipped_ini(void **state)
{
    (void)state;
    static const char *const DIRS[] = {CONFIGS, CONFIGS "engine/", DATA};
    int n = 0;
    for (size_t k = 0; k < sizeof DIRS / sizeof DIRS[0]; k++) {
        DIR *d = opendir(DIRS[k]);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 5 || strcmp(e->d_name + l - 4, ".ini") || !strncmp(e->d_name, "bad-", 4))
                continue;
            char path[600];
            snprintf(path, sizeof path, "%s%s", DIRS[k], e->d_name);
            Tournament t;
            read_ok(path, &t);
            tournament_free(&t);
            n++;
        }
        closedir(d);
    }
    assert_true(n >= 15);
}

/* ---- bad files ---------------------------------------------------------------- */

static int check_bad_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, DATA "%s", name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char first[512] = "";
    if (!fgets(first, sizeof first, f))
        first[0] = 0;
    fclose(f);
    first[strcspn(first, "\r\n")] = 0;
    const char *prefix = "# expect: ";
    if (strncmp(first, prefix, strlen(prefix)))
        fail_msg("%s: the first line must be '# expect: FILE:LINE: text'", name);
    char file[256];
    int line;
    int used = 0;
    if (sscanf(first + strlen(prefix), "%255[^:]:%d: %n", file, &line, &used) != 2 || !used)
        fail_msg("%s: cannot read the expectation '%s'", name, first);
    const char *text = first + strlen(prefix) + used;

    Tournament t;
    TvError err;
    TvStatus s = tournament_read(path, &t, &err);
    if (s == TV_OK) {
        tournament_free(&t);
        fail_msg("%s: read without error", name);
    }
    assert_int_equal(err.status, s);
    /* file and line */
    size_t fl = strlen(err.file), bl = strlen(file);
    if (fl < bl || strcmp(err.file + fl - bl, file) || (fl > bl && err.file[fl - bl - 1] != '/'))
        fail_msg("%s: error file '%s', expected '%s' (%s)", name, err.file, file, err.msg);
    if (err.line != line)
        fail_msg("%s: error line %d, expected %d (%s)", name, err.line, line, err.msg);
    /* "FILE:LINE: " then the text */
    char head[400];
    snprintf(head, sizeof head, "%s:%d: ", err.file, err.line);
    if (strncmp(err.msg, head, strlen(head)))
        fail_msg("%s: message '%s' does not start with '%s'", name, err.msg, head);
    if (!strstr(err.msg + strlen(head), text))
        fail_msg("%s: message '%s' does not contain '%s'", name, err.msg, text);
    /* a failed read holds nothing */
    assert_null(t.text);
    assert_null(t.opening_tfens);
    tournament_free(&t);
    return 1;
}

static void test_bad_files(void **state)
{
    (void)state;
    DIR *d = opendir(DATA);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "bad-", 4) && strlen(e->d_name) > 4 &&
            !strcmp(e->d_name + strlen(e->d_name) - 4, ".ini"))
            n += check_bad_file(e->d_name);
    closedir(d);
    assert_true(n >= 30);
}

static void test_engine_errors_passed_on(void **state)
{
    (void)state;
    Tournament t;
    TvError err;
    /* a missing engine file: the engine reader's own message */
    assert_int_equal(tournament_read(DATA "bad-engine-missing.ini", &t, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "engines/nope.ini: cannot open the engine file"));
    /* an engine file with an error: its file, line and message */
    assert_int_equal(tournament_read(DATA "bad-engine-error.ini", &t, &err), TV_ERR_PARSE);
    assert_non_null(strstr(err.msg, "engines/bad-weight.ini:5: weight 'tempo': 1000 is outside its bounds"));
}

static void test_missing_file(void **state)
{
    (void)state;
    Tournament t;
    TvError err;
    assert_int_equal(tournament_read(DATA "no-such-file.ini", &t, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "no-such-file.ini"));
    assert_null(t.text);
    tournament_free(&t);
}

/* ---- a valid file: every key, defaults, overrides ----------------------------- */

/* What good.ini and minimal.ini must give for the [tournament], [rules],
 * [openings] and [adjudication] keys.  openings.file: a part of the resolved
 * path, or "" for none. */
typedef struct {
    const char *name;
    TournamentFormat format;
    int pairs;
    uint64_t seed;
    int threads;
    Options rules;
    OpeningSettings openings;
    Adjudication adjudication;
} Settings;

static void check_settings(const Tournament *t, const Settings *want)
{
    assert_string_equal(t->name, want->name);
    assert_int_equal(t->format, want->format);
    assert_int_equal(t->pairs, want->pairs);
    assert_int_equal(t->seed, want->seed);
    assert_int_equal(t->threads, want->threads);
    assert_int_equal(t->rules.slide_over_own, want->rules.slide_over_own);
    assert_int_equal(t->rules.enpassant, want->rules.enpassant);
    assert_int_equal(t->rules.ending, want->rules.ending);
    assert_int_equal(t->openings.plies, want->openings.plies);
    assert_int_equal(t->openings.balance_depth, want->openings.balance_depth);
    assert_int_equal(t->openings.balance_cp, want->openings.balance_cp);
    if (want->openings.file[0])
        assert_non_null(strstr(t->openings.file, want->openings.file));
    else
        assert_int_equal(t->openings.file[0], 0);
    assert_int_equal(t->adjudication.max_plies, want->adjudication.max_plies);
    assert_int_equal(t->adjudication.resign_score, want->adjudication.resign_score);
    assert_int_equal(t->adjudication.resign_moves, want->adjudication.resign_moves);
    assert_int_equal(t->adjudication.draw_score, want->adjudication.draw_score);
    assert_int_equal(t->adjudication.draw_moves, want->adjudication.draw_moves);
    assert_int_equal(t->adjudication.draw_after_ply, want->adjudication.draw_after_ply);
}

static void test_good_ini(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "good.ini", &t);
    check_settings(&t, &(Settings){
        .name = "good", .format = FORMAT_GAUNTLET, .pairs = 3, .seed = 99, .threads = 2,
        .rules = {.slide_over_own = true, .enpassant = TV_EP_ANY, .ending = TV_ENDING_CAPTURE},
        .openings = {.plies = 4, .balance_depth = 1, .balance_cp = 200, .file = "tournaments/openings.txt"},
        .adjudication = {.max_plies = 200, .resign_score = 800, .resign_moves = 3,
                         .draw_score = 5, .draw_moves = 6, .draw_after_ply = 40},
    });
    assert_int_equal(t.nopening_tfens, 3);
    assert_int_equal(t.nengines, 4);
    const char *names[4] = {"plain", "deeper", "budget", "timed"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(t.engines[i].engine.name, names[i]);
        assert_non_null(strstr(t.engines[i].path, "tournaments/engines/d1.ini"));
        assert_int_equal(t.engines[i].engine.settings.tt_mb, 1); /* the rest of the file applies */
    }
    assert_non_null(strstr(t.text, "[engine timed]"));
    assert_int_equal(strlen(t.text) > 100, 1);
    tournament_free(&t);
    tournament_free(&t); /* twice is harmless */
}

static void test_limit_overrides(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "good.ini", &t);
    /* no override: the engine file's depth 1 */
    assert_int_equal(t.engines[0].engine.limits.depth, 1);
    assert_int_equal(t.engines[0].engine.limits.nodes, 0);
    assert_int_equal(t.engines[0].engine.limits.movetime_ms, 0);
    /* depth = 2 */
    assert_int_equal(t.engines[1].engine.limits.depth, 2);
    assert_int_equal(t.engines[1].engine.limits.nodes, 0);
    /* nodes = 5000 replaces all of the file's limits */
    assert_int_equal(t.engines[2].engine.limits.depth, 0);
    assert_int_equal(t.engines[2].engine.limits.nodes, 5000);
    /* movetime = 50 given before path */
    assert_int_equal(t.engines[3].engine.limits.depth, 0);
    assert_int_equal(t.engines[3].engine.limits.movetime_ms, 50);
    tournament_free(&t);
}

/* tc replaces the engine file's limits (as depth, nodes and movetime do);
 * command engines: program relative to the file, dir, stderr, options. */
static void test_clocks_and_commands(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "clocks.ini", &t);
    const TournamentEngine *c = &t.engines[0], *p = &t.engines[1], *q = &t.engines[2];
    assert_int_equal(c->kind, PLAYER_ENGINE);
    assert_int_equal(c->tc.moves, 40);
    assert_int_equal(c->tc.base_ms, 60000);
    assert_int_equal(c->tc.inc_ms, 500);
    /* d1.ini's depth 1 is replaced: the clock alone limits the search */
    assert_int_equal(c->engine.limits.depth, 0);
    assert_int_equal(c->engine.limits.nodes, 0);
    assert_int_equal(c->timemargin_ms, 100);
    assert_int_equal(c->timeout_ms, MATCH_ANSWER_TIMEOUT_MS);
    char buf[32];
    time_control_format(&c->tc, buf, sizeof buf);
    assert_string_equal(buf, "40/60+0.5");

    assert_int_equal(p->kind, PLAYER_PROCESS);
    assert_string_equal(p->command, "'" DATA "bin/my' engine --uci \"two words\"");
    assert_string_equal(p->dir, DATA);
    assert_string_equal(p->stderr_path, DATA "logs/prog.err");
    assert_int_equal(p->noptions, 2);
    assert_string_equal(p->option_names[1], "Skill Level");
    assert_string_equal(p->option_values[1], "3");
    assert_int_equal(p->engine.limits.depth, 5);
    assert_int_equal(p->timemargin_ms, 250);
    assert_int_equal(p->timeout_ms, 7000);
    char words[256];
    char *argv[8];
    assert_int_equal(engine_proc_split(p->command, words, sizeof words, argv, 8), 4);
    assert_string_equal(argv[0], DATA "bin/my");
    assert_string_equal(argv[3], "two words");

    assert_string_equal(q->command, "my-engine"); /* no '/': looked up in PATH */
    assert_string_equal(q->dir, DATA "work");
    assert_int_equal(q->tc.base_ms, 2500);
    assert_int_equal(q->tc.moves, 0);
    assert_false(tournament_reproducible(&t));
    tournament_free(&t);
}

/* Time controls: the forms taken and refused. */
static void test_time_control_parse(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        bool ok;
        int moves, base, inc;
    } CASES[] = {
        {"10+0.1", true, 0, 10000, 100}, {"60", true, 0, 60000, 0},     {"40/60+0", true, 40, 60000, 0},
        {"0.5+0", true, 0, 500, 0},      {"1+0.01", true, 0, 1000, 10}, {"0+1", false, 0, 0, 0},
        {"10+", false, 0, 0, 0},         {"+1", false, 0, 0, 0},        {"x", false, 0, 0, 0},
        {"0/10+1", false, 0, 0, 0},      {"10+1x", false, 0, 0, 0},     {"-5+1", false, 0, 0, 0},
        {"90000+0", false, 0, 0, 0},     {"10+-1", false, 0, 0, 0},     {"", false, 0, 0, 0},
        /* minutes and seconds, and no clock */
        {"1:30+0.5", true, 0, 90000, 500}, {"40/2:00+1", true, 40, 120000, 1000}, {"0:07.5", true, 0, 7500, 0},
        {"10:00", true, 0, 600000, 0},     {"inf", true, 0, 0, 0},              {"1:60", false, 0, 0, 0},
        {":30", false, 0, 0, 0},           {"1:", false, 0, 0, 0},              {"inf+1", false, 0, 0, 0},
        {"1:5", false, 0, 0, 0},           {"1:300", false, 0, 0, 0},           {"0:00", false, 0, 0, 0},
        {"1:30:00", false, 0, 0, 0},       {"1.5:30", false, 0, 0, 0},          {"40/inf", false, 0, 0, 0},
        {"1440:01", false, 0, 0, 0},       {"Inf", false, 0, 0, 0},             {"1:-5", false, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        TimeControl tc = {0, 0, 0};
        bool ok = time_control_parse(CASES[i].text, &tc);
        if (ok != CASES[i].ok)
            fail_msg("'%s': %s, expected %s", CASES[i].text, ok ? "taken" : "refused", CASES[i].ok ? "taken" : "refused");
        if (ok) {
            if (tc.moves != CASES[i].moves || tc.base_ms != CASES[i].base || tc.inc_ms != CASES[i].inc)
                fail_msg("'%s': %d/%d+%d, expected %d/%d+%d", CASES[i].text, tc.moves, tc.base_ms, tc.inc_ms,
                         CASES[i].moves, CASES[i].base, CASES[i].inc);
            assert_int_equal(tc.moves, CASES[i].moves);
            assert_int_equal(tc.base_ms, CASES[i].base);
            assert_int_equal(tc.inc_ms, CASES[i].inc);
        }
    }
}

static void test_defaults(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "minimal.ini", &t);
    check_settings(&t, &(Settings){
        .name = "minimal", .format = FORMAT_ROUND_ROBIN, .pairs = 10, .seed = 1, .threads = 0,
        .rules = {.slide_over_own = false, .enpassant = TV_EP_COMBATANT, .ending = TV_ENDING_CHECKMATE},
        .openings = {.plies = 6, .balance_depth = 2, .balance_cp = 150, .file = ""},
        .adjudication = {.max_plies = 400, .resign_score = 1000, .resign_moves = 4,
                         .draw_score = 10, .draw_moves = 8, .draw_after_ply = 80},
    });
    assert_string_equal(t.engines[0].engine.name, "a");
    assert_string_equal(t.engines[1].engine.name, "b");
    assert_int_equal(tournament_total_games(&t), 20);
    tournament_free(&t);
}

/* ---- the plan ------------------------------------------------------------------ */

static Tournament synthetic(TournamentFormat format, int nengines, int pairs, uint64_t seed)
{
    Tournament t;
    memset(&t, 0, sizeof t);
    t.format = format;
    t.nengines = nengines;
    t.pairs = pairs;
    t.seed = seed;
    return t;
}

static void check_plan(const Tournament *t)
{
    int n = t->nengines, P = tournament_pairings(t);
    assert_int_equal(P, t->format == FORMAT_GAUNTLET ? n - 1 : n * (n - 1) / 2);
    int64_t total = tournament_total_games(t);
    assert_int_equal(total, (int64_t)P * t->pairs * 2);

    /* the pairings: distinct engines, first < second; round-robin meets every
     * two engines exactly once, a gauntlet pairs engine 0 with each other */
    int met[TOURNAMENT_MAX_ENGINES][TOURNAMENT_MAX_ENGINES] = {{0}};
    for (int p = 0; p < P; p++) {
        int a = -1, b = -1;
        tournament_pairing(t, p, &a, &b);
        assert_true(a >= 0 && a < b && b < n);
        met[a][b]++;
        if (t->format == FORMAT_GAUNTLET)
            assert_int_equal(a, 0);
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            assert_int_equal(met[a][b], t->format == FORMAT_GAUNTLET ? (a == 0) : 1);

    int *games = calloc((size_t)P, sizeof *games);
    int *white_first = calloc((size_t)P, sizeof *white_first);
    assert_non_null(games);
    assert_non_null(white_first);
    for (int64_t i = 0; i < total; i += 2) {
        PlannedGame g0, g1, again;
        tournament_game(t, i, &g0);
        tournament_game(t, i + 1, &g1);
        tournament_game(t, i, &again);
        assert_memory_equal(&g0, &again, sizeof g0); /* pure */
        assert_int_equal(g0.index, i);
        assert_int_equal(g1.index, i + 1);
        assert_true(g0.pairing >= 0 && g0.pairing < P);
        /* one pair: same pairing and opening, colours swapped */
        assert_int_equal(g0.pairing, g1.pairing);
        assert_int_equal(g0.opening, g1.opening);
        assert_int_equal(g0.white, g1.black);
        assert_int_equal(g0.black, g1.white);
        assert_true(g0.seed != g1.seed);
        int a, b;
        tournament_pairing(t, g0.pairing, &a, &b);
        assert_true((g0.white == a && g0.black == b) || (g0.white == b && g0.black == a));
        white_first[g0.pairing] += g0.white == a;
        games[g0.pairing] += 2;
        /* pair-major: round r = the opening plays every pairing once */
        int64_t k = i / 2;
        assert_int_equal(g0.opening, k / P);
        assert_int_equal(g0.pairing, k % P);
    }
    for (int p = 0; p < P; p++) {
        assert_int_equal(games[p], 2 * t->pairs);
        assert_int_equal(white_first[p], t->pairs); /* each engine White in half */
    }
    free(games);
    free(white_first);
}

static void test_plan_properties(void **state)
{
    (void)state;
    for (int n = 2; n <= TOURNAMENT_MAX_ENGINES; n++)
        for (int f = 0; f < 2; f++) {
            Tournament t = synthetic((TournamentFormat)f, n, 1 + n % 4, 7u * (uint64_t)n);
            check_plan(&t);
        }
    /* a shipped configuration too */
    Tournament q;
    read_ok(CONFIGS "quick.ini", &q);
    check_plan(&q);
    tournament_free(&q);
}

static void test_plan_seeds(void **state)
{
    (void)state;
    Tournament a = synthetic(FORMAT_ROUND_ROBIN, 5, 40, 1);
    Tournament b = synthetic(FORMAT_ROUND_ROBIN, 5, 40, 2);
    int64_t total = tournament_total_games(&a);
    uint64_t *seeds = malloc(sizeof *seeds * (size_t)total);
    assert_non_null(seeds);
    int same = 0;
    for (int64_t i = 0; i < total; i++) {
        PlannedGame ga, gb;
        tournament_game(&a, i, &ga);
        tournament_game(&b, i, &gb);
        seeds[i] = ga.seed;
        same += ga.seed == gb.seed;
        /* the same plan apart from the seed */
        assert_int_equal(ga.white, gb.white);
        assert_int_equal(ga.opening, gb.opening);
    }
    assert_int_equal(same, 0);
    for (int64_t i = 0; i < total; i++)
        for (int64_t j = i + 1; j < total; j++)
            assert_true(seeds[i] != seeds[j]);
    free(seeds);
}

/* ---- openings ---------------------------------------------------------------- */

static void test_random_openings(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "random.ini", &t);
    Tournament copy = t; /* a pure function of the configuration */
    int distinct = 0;
    Position prev;
    pos_set_start(&prev);
    EvalParams params;
    eval_params_default(&params);
    SearchSettings ss;
    search_settings_default(&ss);
    SearchContext *ctx = search_alloc(&params, &t.rules, &ss);
    assert_non_null(ctx);
    for (int o = 0; o < 12; o++) {
        Position p, q;
        TvError err;
        assert_int_equal(tournament_opening(&t, o, &p, &err), TV_OK);
        assert_int_equal(tournament_opening(&copy, o, &q, &err), TV_OK);
        assert_true(pos_equal(&p, &q));
        assert_int_equal(movegen_state(&p, &t.rules), TV_STATE_ONGOING);
        /* an even number of plies (6) from the start: White to move */
        assert_int_equal(p.side, TV_WHITE);
        Position start;
        pos_set_start(&start);
        assert_false(pos_equal(&p, &start));
        distinct += !pos_equal(&p, &prev);
        prev = p;
        /* balanced: the same search agrees */
        SearchLimits lim = {t.openings.balance_depth, 0, 0};
        SearchResult res;
        search_clear(ctx);
        search_run(ctx, &p, NULL, 0, &lim, NULL, NULL, &res);
        assert_true(res.score >= -t.openings.balance_cp && res.score <= t.openings.balance_cp);
    }
    assert_true(distinct >= 11);
    search_free(ctx);

    /* another seed, other openings */
    Tournament other = t;
    other.seed = t.seed + 1;
    int differ = 0;
    for (int o = 0; o < 6; o++) {
        Position p, q;
        TvError err;
        assert_int_equal(tournament_opening(&t, o, &p, &err), TV_OK);
        assert_int_equal(tournament_opening(&other, o, &q, &err), TV_OK);
        differ += !pos_equal(&p, &q);
    }
    assert_true(differ >= 5);

    /* without a balance check: still deterministic, still legal */
    Tournament nocheck = t;
    nocheck.openings.balance_depth = 0;
    Position p, q;
    TvError err;
    assert_int_equal(tournament_opening(&nocheck, 3, &p, &err), TV_OK);
    assert_int_equal(tournament_opening(&nocheck, 3, &q, &err), TV_OK);
    assert_true(pos_equal(&p, &q));
    assert_int_equal(tournament_opening(&t, -1, &p, &err), TV_ERR_ARG);
    tournament_free(&t);
}

static void test_unbalanced_openings(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "unbalanced.ini", &t);
    Position p;
    TvError err;
    assert_int_equal(tournament_opening(&t, 0, &p, &err), TV_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "no balanced position in 1000 attempts"));
    tournament_free(&t);
}

static void test_openings_file(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "good.ini", &t);
    assert_int_equal(t.nopening_tfens, 3);
    static const char *const want[3] = {
        TV_START_TFEN,
        "rnbqkbnr/prpnpbpqphpbpnpr/8/8/4PH3/8/PRPNPBPQ1PBPNPR/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/prpnpbpq1pbpnpr/8/4ph3/4PH3/8/PRPNPBPQ1PBPNPR/RNBQKBNR w KQkq e6 0 2",
    };
    for (int o = 0; o < 7; o++) {
        Position p, w;
        TvError err;
        assert_int_equal(tournament_opening(&t, o, &p, &err), TV_OK);
        assert_int_equal(tfen_read(want[o % 3], &w, &err), TV_OK);
        assert_true(pos_equal(&p, &w));
    }
    /* the plan's opening index picks the line: round r uses line r mod 3 */
    PlannedGame g;
    tournament_game(&t, 2 * tournament_pairings(&t) * 4, &g);
    assert_int_equal(g.opening, 4);
    tournament_free(&t);
}

/* [sprt] model: normalized by default, logistic when asked; anything else
 * refused at its line (issue 36: a cutechess-cli user's elo1 = 5 meant
 * another test, silently). */
static void test_sprt_model(void **state)
{
    (void)state;
    static const char *const texts[3] = {
        "[sprt]\nelo1 = 5\n[engine a]\npath = engines/d1.ini\n[engine b]\npath = engines/d1.ini\ndepth = 2\n",
        "[sprt]\nelo1 = 5\nmodel = logistic\n[engine a]\npath = engines/d1.ini\n[engine b]\npath = engines/d1.ini\n"
        "depth = 2\n",
        "[sprt]\nelo1 = 5\nmodel = bayeselo\n[engine a]\npath = engines/d1.ini\n[engine b]\npath = engines/d1.ini\n"
        "depth = 2\n",
    };
    Tournament t;
    TvError err;
    assert_int_equal(tournament_read_text(DATA "m.ini", strdup(texts[0]), strlen(texts[0]), &t, &err), TV_OK);
    assert_int_equal(t.sprt_settings.model, SPRT_NORMALIZED);
    tournament_free(&t);
    assert_int_equal(tournament_read_text(DATA "m.ini", strdup(texts[1]), strlen(texts[1]), &t, &err), TV_OK);
    assert_true(t.sprt);
    assert_int_equal(t.sprt_settings.model, SPRT_LOGISTIC);
    tournament_free(&t);
    assert_int_equal(tournament_read_text(DATA "m.ini", strdup(texts[2]), strlen(texts[2]), &t, &err), TV_ERR_PARSE);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.msg, "[sprt] model 'bayeselo' must be normalized"));
}

/* ---- [each] -------------------------------------------------------------------- */

static void test_each(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "each.ini", &t);
    assert_int_equal(t.nengines, 4);
    const TournamentEngine *a = engine_named(&t, "a"), *b = engine_named(&t, "b"), *c = engine_named(&t, "c"),
                           *prog = engine_named(&t, "prog");
    /* a: everything from [each] (which comes after it in the file) */
    assert_int_equal(a->kind, PLAYER_ENGINE);
    assert_non_null(strstr(a->path, "tournaments/engines/d1.ini"));
    assert_int_equal(a->tc.moves, 0);
    assert_int_equal(a->tc.base_ms, 90000);
    assert_int_equal(a->tc.inc_ms, 500);
    assert_int_equal(a->engine.limits.depth, 0); /* the clock replaces the file's depth 1 */
    assert_int_equal(a->timemargin_ms, 200);
    /* b: tc = inf overrides [each] tc: no clock, its own depth */
    assert_int_equal(b->tc.base_ms, 0);
    assert_int_equal(b->engine.limits.depth, 2);
    assert_int_equal(b->timemargin_ms, 200);
    assert_non_null(strstr(b->path, "tournaments/engines/d1.ini"));
    /* c: its own tc and timemargin */
    assert_int_equal(c->tc.moves, 40);
    assert_int_equal(c->tc.base_ms, 120000);
    assert_int_equal(c->tc.inc_ms, 1000);
    assert_int_equal(c->timemargin_ms, 50);
    /* prog: its command overrides [each] path; the clock is [each]'s */
    assert_int_equal(prog->kind, PLAYER_PROCESS);
    assert_string_equal(prog->command, "my-engine");
    assert_int_equal(prog->path[0], 0);
    assert_int_equal(prog->tc.base_ms, 90000);
    assert_int_equal(prog->timemargin_ms, 200);
    /* tc = inf alone keeps the engine file's limit */
    char text[] = "[each]\npath = engines/d1.ini\ntc = inf\n[engine a]\n[engine b]\n";
    Tournament u;
    TvError err;
    assert_int_equal(tournament_read_text(DATA "inf.ini", strdup(text), strlen(text), &u, &err), TV_OK);
    assert_int_equal(u.engines[0].tc.base_ms, 0);
    assert_int_equal(u.engines[0].engine.limits.depth, 1);
    assert_true(tournament_reproducible(&u));
    tournament_free(&u);
    tournament_free(&t);
}

/* ---- openings files shorter than the plan, order and start -------------------- */

#define NGEN 17

/* Writes NGEN distinct positions (the start position after each of its
 * first NGEN legal moves) to a temporary file; its path into path, their
 * TFENs into tfens. */
static void write_openings(char *path, size_t n, char tfens[NGEN][TV_TFEN_MAX])
{
    snprintf(path, n, "/tmp/tv-openings-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    Position start;
    pos_set_start(&start);
    Options rules = {0}; /* zero: the default rules */
    MoveList list;
    movegen_legal(&start, &rules, &list);
    assert_true(list.count >= NGEN);
    for (int i = 0; i < NGEN; i++) {
        Position p = start;
        Undo u;
        pos_make_move(&p, list.moves[i], &u);
        tfen_write(&p, tfens[i], TV_TFEN_MAX);
        fprintf(f, "%s\n", tfens[i]);
    }
    fclose(f);
}

/* A tournament of two engines reading `file` with the given [tournament]
 * and [openings] lines; TV_OK or the reader's error in err. */
static TvStatus read_with(const char *file, const char *tournament, const char *openings, Tournament *t,
                          TvError *err)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[tournament]\n%s\n[openings]\nfile = %s\n%s\n[engine a]\npath = engines/d1.ini\n"
             "[engine b]\npath = engines/d1.ini\ndepth = 2\n",
             tournament, file, openings);
    return tournament_read_text(DATA "generated.ini", strdup(text), strlen(text), t, err);
}

/* Which of the file's openings opening o of the plan is (-1: none). */
static int which(const Tournament *t, int o, char tfens[NGEN][TV_TFEN_MAX])
{
    Position p;
    TvError err;
    assert_int_equal(tournament_opening(t, o, &p, &err), TV_OK);
    char s[TV_TFEN_MAX];
    tfen_write(&p, s, sizeof s);
    for (int i = 0; i < NGEN; i++)
        if (!strcmp(s, tfens[i]))
            return i;
    return -1;
}

/* ---- opening books of TGN records (issue 36) ----------------------------------- */

/* Writes text to a new temporary file; its path into path. */
static void write_book(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/tv-book-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The TFEN of the start position after the moves of a movetext. */
static void after(const char *movetext, char *out)
{
    Position p;
    pos_set_start(&p);
    Options rules = {0};
    ReplayResult res;
    TvError err;
    if (replay_movetext(&p, &rules, movetext, TV_PARSE_STRICT, &res, &err) != TV_OK)
        fail_msg("%s", err.msg);
    tfen_write(&res.final, out, TV_TFEN_MAX);
    replay_result_free(&res);
}

static void opening_tfen(const Tournament *t, int o, char *out)
{
    Position p;
    TvError err;
    assert_int_equal(tournament_opening(t, o, &p, &err), TV_OK);
    tfen_write(&p, out, TV_TFEN_MAX);
}

#define BOOK2 "[Event \"a\"]\n\n1. e2-e4 e7-e5 *\n\n[Event \"b\"]\n\n1. d2-d4 d7-d5 2. c2-c4 *\n"

/* Each record of a book is one opening: its moves, all of them without
 * plies (the book became one opening, the start position, and the
 * run was refused with "has 1 openings"). */
static void test_book_records_keep_moves(void **state)
{
    (void)state;
    char path[64], a[TV_TFEN_MAX], b[TV_TFEN_MAX], got[TV_TFEN_MAX];
    write_book(path, sizeof path, BOOK2);
    Tournament t;
    TvError err;
    if (read_with(path, "pairs = 2", "", &t, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.nopening_tfens, 2);
    assert_int_equal(t.opening_repeats, 0);
    after("e2-e4 e7-e5", a);
    after("d2-d4 d7-d5 c2-c4", b);
    opening_tfen(&t, 0, got);
    assert_string_equal(got, a);
    opening_tfen(&t, 1, got);
    assert_string_equal(got, b);
    tournament_free(&t);
    remove(path);
}

/* plies = N takes at most N moves of each record (cutechess's plies= for a
 * PGN book); plies = 0 the start positions alone. */
static void test_book_plies(void **state)
{
    (void)state;
    char path[64], want[TV_TFEN_MAX], got[TV_TFEN_MAX];
    write_book(path, sizeof path, BOOK2);
    Tournament t;
    TvError err;
    if (read_with(path, "pairs = 2", "plies = 2", &t, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.nopening_tfens, 2);
    after("d2-d4 d7-d5", want);
    opening_tfen(&t, 1, got);
    assert_string_equal(got, want);
    tournament_free(&t);
    /* plies = 0: both records start from the start position: one opening,
     * a repeat, and the plan's second pair has no opening of its own */
    assert_int_equal(read_with(path, "pairs = 2", "plies = 0", &t, &err), TV_ERR_PARSE);
    assert_non_null(strstr(err.msg, "has 1 openings (distinct positions: 1 of its entries repeat an earlier one's, "
                                    "the first at line 5 that of line 1), but the plan needs 2"));
    assert_int_equal(read_with(path, "pairs = 1", "plies = 0", &t, &err), TV_OK);
    assert_int_equal(t.nopening_tfens, 1);
    assert_int_equal(t.opening_repeats, 1);
    assert_int_equal(t.opening_repeat_line, 5);
    assert_int_equal(t.opening_repeat_of, 1);
    opening_tfen(&t, 0, got);
    assert_string_equal(got, TV_START_TFEN);
    tournament_free(&t);
    remove(path);
}

/* Two records that reach one position are one opening, and counted. */
static void test_book_repeats(void **state)
{
    (void)state;
    char path[64];
    write_book(path, sizeof path,
               "[Event \"a\"]\n\n1. e2-e4 e7-e5 *\n\n[Event \"b\"]\n\n1. d2-d4 *\n\n[Event \"c\"]\n\n1. e2-e4 e7-e5 *\n");
    Tournament t;
    TvError err;
    if (read_with(path, "pairs = 2", "", &t, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(t.nopening_tfens, 2);
    assert_int_equal(t.opening_repeats, 1);
    assert_int_equal(t.opening_repeat_line, 9);
    assert_int_equal(t.opening_repeat_of, 1);
    tournament_free(&t);
    remove(path);
}

/* A record whose moves do not replay, or end the game, is refused at its
 * line, saying how to take fewer moves. */
static void test_book_bad_records(void **state)
{
    (void)state;
    char path[64];
    write_book(path, sizeof path, "[Event \"a\"]\n\n1. e2-e4 *\n\n[Event \"b\"]\n\n1. e2-e5 *\n");
    Tournament t;
    TvError err;
    assert_int_equal(read_with(path, "pairs = 1", "", &t, &err), TV_ERR_PARSE);
    assert_int_equal(err.line, 5);
    assert_non_null(strstr(err.msg, "the record's moves (the opening) do not replay under the tournament's rules"));
    remove(path);
    /* a helpmate (tests/report_fixtures.c) ends the game: refused, unless plies cuts it */
    write_book(path, sizeof path, "[Event \"m\"]\n\n1. d1-c1 e8-f8 2. c1-b2 f8-g8 3. b2(1)-g7 1-0\n");
    assert_int_equal(read_with(path, "pairs = 1", "", &t, &err), TV_ERR_PARSE);
    assert_int_equal(err.line, 1);
    assert_non_null(strstr(err.msg, "the game is over after the record's 5 moves (checkmate): an opening must "
                                    "leave a game to play; give [openings] plies = N"));
    assert_int_equal(read_with(path, "pairs = 1", "plies = 4", &t, &err), TV_OK);
    tournament_free(&t);
    remove(path);
}

/* format = tfen reads the file as positions even when a line starts with
 * '['; format = tgn as records; format without a file is refused. */
static void test_book_format(void **state)
{
    (void)state;
    char path[64];
    write_book(path, sizeof path, BOOK2);
    Tournament t;
    TvError err;
    assert_int_equal(read_with(path, "pairs = 1", "format = tfen", &t, &err), TV_ERR_PARSE);
    assert_int_equal(err.line, 1);
    assert_int_equal(read_with(path, "pairs = 1", "format = tgn", &t, &err), TV_OK);
    assert_int_equal(t.nopening_tfens, 2);
    tournament_free(&t);
    assert_int_equal(read_with(path, "pairs = 1", "format = epd", &t, &err), TV_ERR_PARSE);
    assert_non_null(strstr(err.msg, "[openings] format 'epd' must be tgn (game records), tfen (one position a line) "
                                    "or auto"));
    remove(path);
    char text[] = "[openings]\nformat = tgn\n[engine a]\npath = engines/d1.ini\n[engine b]\npath = engines/d1.ini\n";
    assert_int_equal(tournament_read_text(DATA "nofile.ini", strdup(text), strlen(text), &t, &err), TV_ERR_PARSE);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.msg, "[openings] format is for an openings file"));
}

/* The case: 17 openings, pairs = 60. */
static void test_openings_short_file(void **state)
{
    (void)state;
    char path[64], tfens[NGEN][TV_TFEN_MAX];
    write_openings(path, sizeof path, tfens);
    Tournament t;
    TvError err;
    /* refused, naming the file key's line, both counts and the ways out */
    assert_int_equal(read_with(path, "pairs = 60", "", &t, &err), TV_ERR_PARSE);
    assert_int_equal(err.line, 4);
    assert_non_null(strstr(err.msg, "generated.ini:4: the openings file"));
    assert_non_null(strstr(err.msg, "has 17 openings, but the plan needs 60"));
    assert_non_null(strstr(err.msg, "cycle = yes"));
    assert_null(t.opening_tfens);
    /* the same text stored in a store made before cycle existed: read as cycled, so --resume can compare it */
    {
        char text[1024];
        snprintf(text, sizeof text,
                 "[tournament]\npairs = 60\n[openings]\nfile = %s\n\n[engine a]\npath = engines/d1.ini\n"
                 "[engine b]\npath = engines/d1.ini\ndepth = 2\n",
                 path);
        assert_int_equal(tournament_read_stored_text(DATA "generated.ini", strdup(text), strlen(text), &t, &err),
                         TV_OK);
        assert_int_equal(tournament_total_games(&t), 120);
        tournament_free(&t);
    }
    /* exactly enough is fine */
    assert_int_equal(read_with(path, "pairs = 17", "", &t, &err), TV_OK);
    tournament_free(&t);
    /* with cycle = yes: 120 games, 60 openings of which 17 distinct, in the file's order */
    assert_int_equal(read_with(path, "pairs = 60", "cycle = yes", &t, &err), TV_OK);
    assert_int_equal(tournament_total_games(&t), 120);
    assert_int_equal(tournament_openings_needed(&t), 60);
    int used[NGEN] = {0};
    for (int64_t i = 0; i < tournament_total_games(&t); i++) {
        PlannedGame g;
        tournament_game(&t, i, &g);
        int k = which(&t, g.opening, tfens);
        assert_int_equal(k, g.opening % NGEN);
        used[k]++;
    }
    for (int i = 0; i < NGEN; i++)
        assert_true(used[i] >= 6); /* 60 rounds over 17: each opening 3 or 4 rounds of 2 games */
    tournament_free(&t);
    /* start = 5: the 5th first, then on, round the end */
    assert_int_equal(read_with(path, "pairs = 17", "start = 5", &t, &err), TV_OK);
    for (int o = 0; o < NGEN; o++)
        assert_int_equal(which(&t, o, tfens), (4 + o) % NGEN);
    tournament_free(&t);
    /* order = random: a permutation, the same on every read, another for another seed */
    Tournament r1, r2, r3, r4;
    assert_int_equal(read_with(path, "pairs = 17\nseed = 3", "order = random", &r1, &err), TV_OK);
    assert_int_equal(read_with(path, "pairs = 17\nseed = 3", "order = random", &r2, &err), TV_OK);
    assert_int_equal(read_with(path, "pairs = 17\nseed = 4", "order = random", &r3, &err), TV_OK);
    assert_int_equal(read_with(path, "pairs = 17\nseed = 3", "order = random\nstart = 3", &r4, &err), TV_OK);
    int seen[NGEN] = {0}, moved = 0, other = 0;
    for (int o = 0; o < NGEN; o++) {
        int k = which(&r1, o, tfens);
        assert_true(k >= 0);
        seen[k]++;
        moved += k != o;
        assert_int_equal(which(&r2, o, tfens), k);
        other += which(&r3, o, tfens) != k;
        assert_int_equal(which(&r4, o, tfens), which(&r1, (o + 2) % NGEN, tfens)); /* start counts in that order */
    }
    for (int i = 0; i < NGEN; i++)
        assert_int_equal(seen[i], 1);
    assert_true(moved > NGEN / 2);
    assert_true(other > NGEN / 2);
    /* --resume: cycle may be added (no stored game changes), order and start not */
    Tournament more;
    char why[200];
    assert_int_equal(read_with(path, "pairs = 40\nseed = 3", "order = random\ncycle = yes", &more, &err), TV_OK);
    assert_true(tournament_can_continue(&r1, &more, why, sizeof why));
    assert_false(tournament_can_continue(&r1, &r4, why, sizeof why));
    assert_non_null(strstr(why, "[openings] differ"));
    tournament_free(&more);
    assert_int_equal(read_with(path, "pairs = 17\nseed = 3", "", &more, &err), TV_OK);
    assert_false(tournament_can_continue(&r1, &more, why, sizeof why));
    tournament_free(&more);
    tournament_free(&r1);
    tournament_free(&r2);
    tournament_free(&r3);
    tournament_free(&r4);
    /* per_game: one opening per game */
    assert_int_equal(read_with(path, "pairs = 9", "per_game = yes", &t, &err), TV_ERR_PARSE);
    assert_non_null(strstr(err.msg, "has 17 openings, but the plan needs 18 (one per game with per_game = yes: games = 18)"));
    remove(path);
}

/* The shipped file with cycle, order and start together. */
static void test_openings_cycle_ini(void **state)
{
    (void)state;
    Tournament t;
    read_ok(DATA "openings-cycle.ini", &t);
    assert_true(t.openings.cycle);
    assert_true(t.openings.random_order);
    assert_int_equal(t.openings.start, 2);
    assert_int_equal(t.nopening_tfens, 3);
    assert_int_equal(tournament_openings_needed(&t), 5);
    /* the plan's rounds 3 and 4 play its openings 0 and 1 again */
    for (int o = 0; o < 2; o++) {
        Position p, q;
        TvError err;
        assert_int_equal(tournament_opening(&t, o, &p, &err), TV_OK);
        assert_int_equal(tournament_opening(&t, o + 3, &q, &err), TV_OK);
        assert_true(pos_equal(&p, &q));
    }
    assert_true(tournament_reproducible(&t));
    tournament_free(&t);
    /* without a file the default values may be written (as in the documented example), others not */
    char text[] = "[openings]\ncycle = no\norder = sequential\nstart = 1\n[engine a]\npath = engines/d1.ini\n"
                  "[engine b]\npath = engines/d1.ini\n";
    TvError err;
    assert_int_equal(tournament_read_text(DATA "defaults.ini", strdup(text), strlen(text), &t, &err), TV_OK);
    tournament_free(&t);
    /* the defaults: no cycle, the file's order from its first opening */
    read_ok(DATA "good.ini", &t);
    assert_false(t.openings.cycle);
    assert_false(t.openings.random_order);
    assert_int_equal(t.openings.start, 1);
    tournament_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_ini),
        cmocka_unit_test(test_overnight_ini),
        cmocka_unit_test(test_every_shipped_ini),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_engine_errors_passed_on),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_good_ini),
        cmocka_unit_test(test_limit_overrides),
        cmocka_unit_test(test_clocks_and_commands),
        cmocka_unit_test(test_time_control_parse),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_plan_properties),
        cmocka_unit_test(test_plan_seeds),
        cmocka_unit_test(test_random_openings),
        cmocka_unit_test(test_unbalanced_openings),
        cmocka_unit_test(test_openings_file),
        cmocka_unit_test(test_each),
        cmocka_unit_test(test_openings_short_file),
        cmocka_unit_test(test_openings_cycle_ini),
        cmocka_unit_test(test_book_records_keep_moves),
        cmocka_unit_test(test_book_plies),
        cmocka_unit_test(test_book_repeats),
        cmocka_unit_test(test_book_bad_records),
        cmocka_unit_test(test_book_format),
        cmocka_unit_test(test_sprt_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
