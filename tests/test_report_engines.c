#define _POSIX_C_SOURCE 200809L
/* test_report_engines.c: the parts of a strength report (report/report*.c)
 * that tell engines and numbers apart, on the synthetic stores of
 * report_fixtures.c:
 *  - engine versions that differ (kind, program, options, limits, clock,
 *    settings) are named and shown side by side;
 *  - the referee's losses per engine and the --baseline table;
 *  - every Elo written one way (stats_fmt_elo);
 *  - errors: another schema version, a store with no games, one engine
 *    version only, stores with other engines, a bad tuning log, gnuplot
 *    missing, an unwritable output directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "h5_fixtures.h"
#include "engine_id.h"
#include "h5store.h"
#include "outcome.h"
#include "report.h"
#include "report_fixtures.h"
#include "search.h"
#include "tfen.h"

/* A search setting, a program's command or its options make another
 * version: no "same engine version" note between them, and one name with
 * two of them in two stores is refused (it would be rated as one player). */
/* The report of two stores in which one name stands for two versions: both
 * are players of their own (NAME@TAG rows in the Engines table), and a
 * note says how they differ (why_part).  Returns report.md. */
static char *two_players(const char *const *files, const char *out, const char *first, const char *second,
                         const char *why_part)
{
    TvError err;
    if (report_write(files, 2, NULL, out, &err) != TV_OK)
        fail_msg("two versions of one name: %s", err.msg);
    char path[600], row[160];
    snprintf(path, sizeof path, "%s/report.md", out);
    char *md = slurp(path);
    assert_non_null(md);
    snprintf(row, sizeof row, "\n| %s | ", first);
    assert_contains(md, row, "report (first version)");
    snprintf(row, sizeof row, "\n| %s | ", second);
    assert_contains(md, row, "report (second version)");
    assert_contains(md, why_part, "report (the note)");
    snprintf(row, sizeof row, "Note: %s (", second);
    assert_contains(md, row, "report (the note)");
    return md;
}

static void test_engine_versions(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    StoredEngine e[3];
    make_engines(e, 3, NAMES);
    for (int i = 0; i < 3; i++)
        e[i].weights[1] = 0; /* one set of weights */
    /* gamma: the same weights and limits, one search setting other than the default */
    const int k = SEARCH_NSETTINGS - 1;
    settings_text(e[2].settings, sizeof e[2].settings, k);
    write_store_engines(tmp_path(t, "settings.h5"), e, 3, games, n, INI, OPTIONS);
    char *md = report_md(tmp_path(t, "settings.h5"), NULL, tmp_path(t, "out1"));
    assert_contains(md, "Note: alpha and beta are the same engine version", "report");
    if (strstr(md, "and gamma are the same engine version"))
        fail_msg("gamma's search setting %s is not seen:\n%s", SEARCH_SETTING_INFO[k].name, md);
    free(md);

    /* two stores, 'gamma' with another search setting in the second: two
     * players (one name, two versions: never merged), the difference named */
    make_engines(e, 3, NAMES);
    write_store_engines(tmp_path(t, "a.h5"), e, 3, games, n, INI, OPTIONS);
    settings_text(e[2].settings, sizeof e[2].settings, k);
    write_store_engines(tmp_path(t, "b.h5"), e, 3, games, n, INI, OPTIONS);
    char want[300];
    const SearchSettingInfo *si = &SEARCH_SETTING_INFO[k];
    snprintf(want, sizeof want, "other search settings (%s=%d for gamma@v1, %s=%d for gamma@v2)", si->name, si->def,
             si->name, si->def < si->hi ? si->def + 1 : si->def - 1);
    const char *ab[2] = {tmp_path(t, "a.h5"), tmp_path(t, "b.h5")};
    md = two_players(ab, tmp_path(t, "out2"), "gamma@v1", "gamma@v2", want);
    free(md);
    /* nor are they merged into one store (the parts of a run must be one set of versions) */
    TvError err;
    if (h5store_merge(tmp_path(t, "ab.h5"), ab, 2, INI, NULL, &err) == TV_OK)
        fail_msg("stores of two versions of 'gamma' (search settings) merged into one");
    assert_contains(err.msg, "hold different engine versions", "error");

    /* separate programs: the command, the options, the executable and what it said count */
    make_engines(e, 3, NAMES);
    for (int i = 0; i < 3; i++) {
        e[i].kind = PLAYER_PROCESS;
        e[i].settings[0] = 0;
        memset(e[i].weights, 0, sizeof e[i].weights);
        snprintf(e[i].command, sizeof e[i].command, "/opt/%s --uci", NAMES[i]);
    }
    snprintf(e[0].options, sizeof e[0].options, "Hash=16");
    write_store_engines(tmp_path(t, "p16.h5"), e, 3, games, n, INI, OPTIONS);
    snprintf(e[0].options, sizeof e[0].options, "Hash=32");
    write_store_engines(tmp_path(t, "p32.h5"), e, 3, games, n, INI, OPTIONS);
    snprintf(e[0].options, sizeof e[0].options, "Hash=16");
    const char *opts[2] = {tmp_path(t, "p16.h5"), tmp_path(t, "p32.h5")};
    free(two_players(opts, tmp_path(t, "out3"), "alpha@v1", "alpha@v2",
                     "other options (Hash=16 for alpha@v1, Hash=32 for alpha@v2)"));
    snprintf(e[1].command, sizeof e[1].command, "/opt/beta2 --uci");
    write_store_engines(tmp_path(t, "beta2.h5"), e, 3, games, n, INI, OPTIONS);
    snprintf(e[1].command, sizeof e[1].command, "/opt/beta --uci");
    const char *cmds[2] = {tmp_path(t, "p16.h5"), tmp_path(t, "beta2.h5")};
    free(two_players(cmds, tmp_path(t, "out4"), "beta@v1", "beta@v2",
                     "another command: '/opt/beta --uci' for beta@v1, '/opt/beta2 --uci' for beta@v2"));
    /* the same command, another executable: named by the hash */
    snprintf(e[2].exe_sha256, sizeof e[2].exe_sha256, "%064d", 1);
    write_store_engines(tmp_path(t, "exe1.h5"), e, 3, games, n, INI, OPTIONS);
    snprintf(e[2].exe_sha256, sizeof e[2].exe_sha256, "%s%060d", "abcd", 2);
    write_store_engines(tmp_path(t, "exe2.h5"), e, 3, games, n, INI, OPTIONS);
    const char *exes[2] = {tmp_path(t, "exe1.h5"), tmp_path(t, "exe2.h5")};
    free(two_players(exes, tmp_path(t, "out5"), "gamma@sha256:000000000000", "gamma@sha256:abcd00000000",
                     "another executable"));
    /* the same command and executable, another id name; another commit */
    e[2].exe_sha256[0] = '\0';
    snprintf(e[2].id_name, sizeof e[2].id_name, "gamma 1.0");
    write_store_engines(tmp_path(t, "id1.h5"), e, 3, games, n, INI, OPTIONS);
    snprintf(e[2].id_name, sizeof e[2].id_name, "gamma 1.1");
    write_store_engines(tmp_path(t, "id2.h5"), e, 3, games, n, INI, OPTIONS);
    const char *ids[2] = {tmp_path(t, "id1.h5"), tmp_path(t, "id2.h5")};
    free(two_players(ids, tmp_path(t, "out6"), "gamma@v1", "gamma@v2",
                     "another id name: 'gamma 1.0' for gamma@v1, 'gamma 1.1' for gamma@v2"));
    snprintf(e[2].commit, sizeof e[2].commit, "0123456789ab");
    write_store_engines(tmp_path(t, "c1.h5"), e, 3, games, n, INI, OPTIONS);
    snprintf(e[2].commit, sizeof e[2].commit, "ba9876543210-dirty");
    write_store_engines(tmp_path(t, "c2.h5"), e, 3, games, n, INI, OPTIONS);
    const char *commits[2] = {tmp_path(t, "c1.h5"), tmp_path(t, "c2.h5")};
    free(two_players(commits, tmp_path(t, "out7"), "gamma@0123456789ab", "gamma@ba9876543210-dirty",
                     "another build (commit)"));
}

/* ---- the headline table and the referee's decisions ----------------------------------------- */

/* Cell k (0-based) of the Markdown table row that starts with "| first |"
 * in text, copied into buf (fails the test when there is none). */
static char *row_cell(const char *text, const char *first, int k, char *buf, size_t n)
{
    char head[96];
    snprintf(head, sizeof head, "\n| %s |", first);
    const char *r = strstr(text, head);
    if (!r)
        fail_msg("no row '%s' in:\n%s", first, text);
    r += 2; /* at "| first |" */
    for (int i = 0; i <= k; i++) {
        r = strchr(r + 1, '|');
        if (!r || r[1] == '\n')
            fail_msg("row '%s' has no cell %d", first, k);
    }
    const char *e = strchr(r + 1, '|');
    size_t len = (size_t)(e - r - 1);
    snprintf(buf, n, "%.*s", (int)len, r + 1);
    /* trim the padding spaces */
    char *b = buf;
    while (*b == ' ')
        memmove(b, b + 1, strlen(b));
    for (size_t m = strlen(b); m > 0 && b[m - 1] == ' '; m--)
        b[m - 1] = 0;
    return buf;
}

/* The synthetic round robin with every game gamma lost to beta lost on
 * time: the report counts each engine's referee losses, notes gamma's (above
 * REFEREE_NOTE_SHARE), and heads with every engine against the baseline. */
static void test_referee_and_baseline(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    long forfeits = 0;
    for (int i = 0; i < n; i++) {
        StoredGame *g = &games[i];
        int gamma_white = g->white == 2, beta_there = g->white == 1 || g->black == 1;
        if (beta_there && (g->white == 2 || g->black == 2) && g->result == (gamma_white ? -1 : 1)) {
            g->termination = TERM_TIME_FORFEIT;
            forfeits++;
        }
    }
    assert_true(forfeits > 2);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    char *md = report_md(tmp_path(t, "rr.h5"), NULL, tmp_path(t, "out"));
    char c[64], want[300];

    /* each engine's referee losses, and the note */
    char *te = section(md, "How games ended");
    assert_string_equal(row_cell(te, "alpha", 2, c, sizeof c), "0"); /* cells: games, illegal_move, time_forfeit */
    assert_string_equal(row_cell(te, "beta", 2, c, sizeof c), "0");
    snprintf(want, sizeof want, "%ld", forfeits);
    assert_string_equal(row_cell(te, "gamma", 2, c, sizeof c), want);
    assert_string_equal(row_cell(te, "gamma", 0, c, sizeof c), "80");
    free(te);
    snprintf(want, sizeof want, "Note: gamma lost %ld of its 80 games (%.1f%%) by the referee's decision, not by "
                                "play: %ld by time_forfeit.", forfeits, 100.0 * forfeits / 80, forfeits);
    char *rt = section(md, "Ratings");
    assert_contains(rt, want, "ratings");
    assert_null(strstr(rt, "Note: alpha lost"));
    assert_null(strstr(rt, "Note: beta lost"));

    /* the headline: the first engine against each other one, first in the
     * report, then its table */
    assert_contains(md, "# Strength report\n\n**alpha vs beta: +", "headline");
    assert_contains(md, "**\n\n**alpha vs gamma: +", "headline");
    char *hd = section(md, "alpha against each engine");
    assert_contains(hd, "| engine | Elo difference | LOS | games | games against alpha |", "headline table");
    assert_contains(hd, "\n| beta | +", "headline table");
    assert_contains(hd, "\n| gamma | +", "headline table");
    assert_null(strstr(hd, "\n| alpha |"));
    free(hd);
    free(md);

    /* --baseline beta: alpha ahead, gamma behind; LOS as in the matrix; games */
    const char *files[1] = {tmp_path(t, "rr.h5")};
    ReportOptions o = {.baseline = "beta"};
    TvError err;
    if (report_write_opts(files, 1, NULL, tmp_path(t, "beta"), &o, NULL, &err) != TV_OK)
        fail_msg("report --baseline beta: %s", err.msg);
    md = slurp(tmp_path(t, "beta/report.md"));
    assert_non_null(md);
    assert_contains(md, "# Strength report\n\n**beta vs alpha: -", "headline");
    hd = section(md, "beta against each engine");
    char *los = section(md, "Likelihood of superiority");
    char m[64];
    assert_true(row_cell(hd, "alpha", 0, c, sizeof c)[0] == '-');
    assert_non_null(strstr(c, " ± "));
    assert_true(row_cell(hd, "gamma", 0, c, sizeof c)[0] == '+');
    /* LOS that beta is the stronger: the matrix's row beta, column alpha (the first, by rating) */
    assert_string_equal(row_cell(hd, "alpha", 1, c, sizeof c), row_cell(los, "beta", 0, m, sizeof m));
    assert_string_equal(row_cell(hd, "alpha", 2, c, sizeof c), "80");
    assert_string_equal(row_cell(hd, "alpha", 3, c, sizeof c), "40");
    free(hd);
    free(los);
    free(rt);
    free(md);

    /* an unknown baseline */
    o.baseline = "delta";
    assert_int_not_equal(report_write_opts(files, 1, NULL, tmp_path(t, "delta"), &o, NULL, &err), TV_OK);
    assert_contains(err.msg, "--baseline delta: no engine of that name in the stores (engines: alpha, beta, gamma)",
                    "error");
}

/* ---- one way to write Elo ------------------------------------------------------------ */

/* Game i of a two-engine store: engine 0 White in even games; result from
 * White's view. */
static void two_engine_game(StoredGame *g, int64_t i, int result, int termination)
{
    memset(g, 0, sizeof *g);
    g->index = i;
    g->white = (int32_t)(i % 2);
    g->black = (int32_t)(1 - i % 2);
    g->opening = (int32_t)(i / 2);
    strcpy(g->start_tfen, "startpos");
    g->result = (int8_t)result;
    g->termination = (int8_t)termination;
    g->plies = 10;
    g->seed = (uint64_t)i;
    g->wall_time = 0.1;
}

/* An even match (W 3, D 2, L 3; pairs scoring 1, 1, 1.5, 0.5): every Elo
 * of the report is "0", written one way (not "-0", "+0" or "+0.0"). */
static void test_elo_format(void **state)
{
    Tmp *t = *state;
    /* alpha's results in games 0..7 (alpha is White in even games) */
    static const int alpha[8] = {1, -1, 1, -1, 1, 0, -1, 0};
    StoredGame g[8];
    for (int i = 0; i < 8; i++)
        two_engine_game(&g[i], i, i % 2 ? -alpha[i] : alpha[i], alpha[i] ? TERM_CHECKMATE : TERM_REPETITION);
    write_store(tmp_path(t, "even.h5"), NAMES, 2, g, 8);
    char *md = report_md(tmp_path(t, "even.h5"), NULL, tmp_path(t, "out"));
    char *pr = section(md, "Pairings");
    const char *row = strstr(pr, "| alpha vs beta | 8 | 3 | 2 | 3 |");
    if (!row)
        fail_msg("no pairing row:\n%s", pr);
    const char *elo = strstr(row, "| 0 ± "), *nelo = elo ? strstr(elo + 4, "| 0 ± ") : NULL;
    if (!elo || !nelo)
        fail_msg("Elo and nElo of an even match are not both \"0 ± X\":\n%s", row);
    free(pr);
    const char *bad[] = {"+0.0", "-0.0", "-0 ", "+0 ", "| -0 |", "| +0 |"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(md, bad[i]))
            fail_msg("the report writes a zero Elo as \"%s\":\n%s", bad[i], md);
    free(md);
}

/* ---- errors ------------------------------------------------------------------------ */

static void expect_error(const char *const *files, int n, const char *log, const char *out, const char *msg)
{
    TvError err;
    memset(&err, 0, sizeof err);
    if (report_write(files, n, log, out, &err) == TV_OK)
        fail_msg("report succeeded, expected \"%s\"", msg);
    assert_contains(err.msg, msg, "error message");
    struct stat st;
    char md[600];
    snprintf(md, sizeof md, "%s/report.md", out);
    assert_int_not_equal(stat(md, &st), 0); /* no report at all */
}

static void test_errors(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    const char *out = tmp_path(t, "out");

    /* Another schema version. */
    write_store(tmp_path(t, "v7.h5"), NAMES, 3, games, n);
    set_schema_version(tmp_path(t, "v7.h5"), 7);
    const char *f1[1] = {tmp_path(t, "v7.h5")};
    expect_error(f1, 1, NULL, out, "schema version 7, this program reads 1");

    /* No games (alone, or next to a good store). */
    write_store(tmp_path(t, "empty.h5"), NAMES, 3, NULL, 0);
    char want[600];
    snprintf(want, sizeof want, "%s: no games", tmp_path(t, "empty.h5"));
    const char *f2[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "empty.h5")};
    expect_error(f2 + 1, 1, NULL, out, want);
    expect_error(f2, 2, NULL, out, want);

    /* One engine version only: no plan pairs an engine with itself, so the
     * reader refuses such a store before the report sees it. */
    StoredGame solo[4];
    for (int i = 0; i < 4; i++) {
        synth_game(i, &solo[i]);
        solo[i].white = solo[i].black = 0;
    }
    write_store(tmp_path(t, "solo.h5"), NAMES, 1, solo, 4);
    const char *f3[1] = {tmp_path(t, "solo.h5")};
    expect_error(f3, 1, NULL, out, "engine 0 plays both colours");

    /* One name, two versions: two players, naming the weight that differs. */
    write_store_weight0(tmp_path(t, "other.h5"), NAMES, 3, games, n, 101);
    const char *f4[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "other.h5")};
    free(two_players(f4, tmp_path(t, "out-w"), "alpha@v1", "alpha@v2",
                     "other weights (top_value[0]): 100 for alpha@v1, 101 for alpha@v2"));

    /* Not a store at all. */
    FILE *f = fopen(tmp_path(t, "text.h5"), "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    const char *f6[1] = {tmp_path(t, "text.h5")};
    expect_error(f6, 1, NULL, out, "not a tavreli store");

    /* An unwritable output directory (under a regular file: refused even for root). */
    const char *f7[1] = {tmp_path(t, "rr.h5")};
    expect_error(f7, 1, NULL, tmp_path(t, "text.h5/sub"), "cannot create the output directory");

    /* gnuplot missing. */
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "/usr/bin:/bin");
    assert_non_null(saved);
    setenv("PATH", tmp_path(t, "no-such-dir"), 1);
    TvError err;
    TvStatus st = report1(tmp_path(t, "rr.h5"), NULL, tmp_path(t, "nognuplot"), &err);
    setenv("PATH", saved, 1);
    free(saved);
    assert_int_not_equal(st, TV_OK);
    assert_contains(err.msg, "gnuplot", "error");
    assert_contains(err.msg, "install", "error");
    struct stat sb;
    assert_int_not_equal(stat(tmp_path(t, "nognuplot/report.md"), &sb), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_engine_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_elo_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_referee_and_baseline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
