#define _POSIX_C_SOURCE 200809L
/* test_report.c: strength reports (report/report*.c) on the synthetic stores
 * of report_fixtures.c (test_report_engines.c tests the engines' side and
 * the errors).
 *
 *  - a synthetic round robin of three engines with known results is stored
 *    and reported: report.md and report.html exist and hold the rating table
 *    (best first), the LOS matrix, each pairing's exact W/D/L and
 *    pentanomial counts, the termination counts, the length histogram; the
 *    PNG files are PNGs;
 *  - splitting the same games into two stores gives the same tables;
 *  - an SPRT store shows the decision, the bounds and the LLR plot;
 *  - a tuning log adds the loss plot and the weights table (top 15 only);
 *  - any stores of the same engines read together. */
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
#include "h5store.h"
#include "outcome.h"
#include "report.h"
#include "stats.h"
#include "report_fixtures.h"
#include "search.h"
#include "tfen.h"

/* ---- the report of a round robin ----------------------------------------------- */

static void test_round_robin(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    assert_int_equal(n, NGAMES);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    char *md = report_md(tmp_path(t, "rr.h5"), NULL, tmp_path(t, "out/deeper"));
    char *html = slurp(tmp_path(t, "out/deeper/report.html"));
    assert_non_null(html);

    /* The rating table, best first. */
    char *rt = section(md, "Ratings");
    assert_contains(rt, "| rank | engine | Elo | 95% interval | games | score |", "ratings");
    const char *pa = strstr(rt, "| 1 | alpha |"), *pb = strstr(rt, "| 2 | beta |"), *pc = strstr(rt, "| 3 | gamma |");
    if (!pa || !pb || !pc)
        fail_msg("rating table not in the order alpha, beta, gamma:\n%s", rt);
    free(rt);

    /* The LOS matrix. */
    char *los = section(md, "Likelihood of superiority");
    assert_contains(los, "| LOS | alpha | beta | gamma |", "LOS");
    assert_contains(los, "| alpha | - |", "LOS");
    assert_contains(los, "| gamma |", "LOS");
    free(los);

    /* Each pairing's W/D/L and pentanomial counts as generated. */
    char *pr = section(md, "Pairings");
    for (int p = 0; p < 3; p++) {
        int a, b;
        pairing_players(p, &a, &b);
        long w = 0, d = 0, l = 0, penta[5] = {0};
        for (int64_t i = 0; i < NGAMES; i += 2) {
            if ((i / 2) % 3 != p)
                continue;
            int r0 = first_result(i), r1 = first_result(i + 1);
            for (int k = 0; k < 2; k++) {
                int r = k ? r1 : r0;
                w += r > 0;
                d += r == 0;
                l += r < 0;
            }
            penta[r0 + 1 + r1 + 1]++;
        }
        char line[256];
        snprintf(line, sizeof line, "| %s vs %s | %ld | %ld | %ld | %ld | %ld / %ld / %ld / %ld / %ld |", NAMES[a],
                 NAMES[b], w + d + l, w, d, l, penta[0], penta[1], penta[2], penta[3], penta[4]);
        assert_contains(pr, line, "pairings");
    }
    assert_contains(pr, "nElo", "pairings");
    free(pr);

    /* Terminations. */
    long term[7][3] = {{0}};
    for (int64_t i = 0; i < NGAMES; i++) {
        StoredGame g;
        synth_game(i, &g);
        term[g.termination][1 - g.result]++;
    }
    char *te = section(md, "How games ended");
    for (int k = 0; k < 7; k++) {
        long tot = term[k][0] + term[k][1] + term[k][2];
        if (!tot)
            continue;
        char line[256];
        snprintf(line, sizeof line, "| %s | ", termination_name((Termination)k));
        assert_contains(te, line, "terminations");
        snprintf(line, sizeof line, " | %ld | %.1f%% | %ld | %ld | %ld |", tot, 100.0 * tot / NGAMES, term[k][0],
                 term[k][1], term[k][2]);
        assert_contains(te, line, "terminations");
    }
    char all[64];
    snprintf(all, sizeof all, "| all |  | %d | 100.0%% |", NGAMES);
    assert_contains(te, all, "terminations");
    free(te);

    /* Lengths. */
    char *le = section(md, "Game length");
    assert_contains(le, "![", "game length");
    assert_contains(le, "(lengths.png)", "game length");
    free(le);
    assert_png(tmp_path(t, "out/deeper/lengths.png"));
    assert_null(strstr(md, "SPRT"));
    assert_null(strstr(md, "## Tuning"));

    /* The HTML: self-contained, the same tables, the image. */
    assert_contains(html, "<!DOCTYPE html>", "html");
    assert_contains(html, "<style>", "html");
    /* one self-contained page: every image inlined, none linked */
    assert_contains(html, "<img src=\"data:image/png;base64,iVBORw0KGgo", "html");
    assert_contains(html, "title=\"lengths.png\"", "html");
    assert_null(strstr(html, "src=\"lengths.png\""));
    assert_contains(html, "<td>alpha</td>", "html");
    assert_contains(html, "<td>beta vs gamma</td>", "html");
    assert_contains(html, "<th>LOS</th>", "html");
    assert_contains(html, "<td>checkmate</td>", "html");
    assert_null(strstr(html, "<script"));
    free(md);
    free(html);
}

/* The same games in two stores give the same ratings, LOS and pairings. */
static void test_split_same_table(void **state)
{
    Tmp *t = *state;
    StoredGame all[NGAMES], even[NGAMES], odd[NGAMES];
    int n = select_games(all, NULL), ne = select_games(even, even_round), no = select_games(odd, odd_round);
    assert_int_equal(ne + no, n);
    write_store(tmp_path(t, "all.h5"), NAMES, 3, all, n);
    write_store(tmp_path(t, "even.h5"), NAMES, 3, even, ne);
    /* The second store lists the engines in another order: players are matched by name. */
    const char *rev[3] = {"gamma", "alpha", "beta"};
    for (int i = 0; i < no; i++) {
        int map[3] = {1, 2, 0}; /* old index -> index in rev */
        odd[i].white = map[odd[i].white];
        odd[i].black = map[odd[i].black];
    }
    write_store(tmp_path(t, "odd.h5"), rev, 3, odd, no);
    char *m1 = report_md(tmp_path(t, "all.h5"), NULL, tmp_path(t, "one"));
    const char *files[2] = {tmp_path(t, "odd.h5"), tmp_path(t, "even.h5")};
    TvError err;
    if (report_write(files, 2, NULL, tmp_path(t, "two"), &err) != TV_OK)
        fail_msg("report: %s", err.msg);
    char *m2 = slurp(tmp_path(t, "two/report.md"));
    assert_non_null(m2);
    const char *titles[] = {"Ratings", "Likelihood of superiority", "How games ended", "Game length"};
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++) {
        char *s1 = section(m1, titles[i]), *s2 = section(m2, titles[i]);
        assert_string_equal(s1, s2);
        free(s1);
        free(s2);
    }
    /* Pairings: same counts, but from the first store's engine order (gamma first in "two"). */
    char *p2 = section(m2, "Pairings");
    assert_contains(p2, "| gamma vs alpha |", "pairings of the split stores");
    free(p2);
    free(m1);
    free(m2);
}

/* ---- SPRT ---------------------------------------------------------------------------- */

static void test_sprt(void **state)
{
    Tmp *t = *state;
    /* Two engines: alpha scores 2, 1.5, 1 in a cycle of pairs. */
    StoredGame g[60];
    for (int i = 0; i < 60; i++) {
        memset(&g[i], 0, sizeof g[i]);
        g[i].index = i;
        g[i].white = i % 2;
        g[i].black = 1 - i % 2;
        int pattern = (i / 2) % 3; /* alpha's pair: win-win, win-draw, draw-draw */
        int ra = pattern == 0 ? 1 : pattern == 1 ? (i % 2 ? 0 : 1) : 0;
        g[i].result = (int8_t)(g[i].white == 0 ? ra : -ra);
        g[i].termination = ra ? TERM_CHECKMATE : TERM_ADJ_DRAW;
        g[i].plies = 40 + i;
    }
    /* Stored out of order, as the runner finishes them. */
    StoredGame tmp = g[3];
    g[3] = g[10];
    g[10] = tmp;
    write_store(tmp_path(t, "sprt.h5"), NAMES, 2, g, 60);
    const char *names[2] = {"sprt", "sprt_result"}, *values[2] = {"elo0=0 elo1=5 alpha=0.05 beta=0.05", "H1"};
    TvError err;
    if (h5store_set_attributes(tmp_path(t, "sprt.h5"), names, values, 2, &err) != TV_OK)
        fail_msg("set attributes: %s", err.msg);
    char *md = report_md(tmp_path(t, "sprt.h5"), NULL, tmp_path(t, "out"));
    /* the report's first line says the verdict beside the first engine's result */
    assert_contains(md, "# Strength report\n\n**alpha vs beta: ", "headline");
    assert_contains(md, "60 games (+30 =30 -0); SPRT [0, 5] nElo: H1**", "headline");
    char head[600];
    snprintf(head, sizeof head, "SPRT (%s)", tmp_path(t, "sprt.h5"));
    char *s = section(md, head);
    assert_contains(s, "alpha against beta", "sprt");
    assert_contains(s, "[-2.944, 2.944]", "sprt");
    assert_contains(s, "| complete pairs | 30 |", "sprt");
    assert_contains(s, "| pentanomial 0/½/1/1½/2 | 0 / 0 / 10 / 10 / 10 |", "sprt");
    assert_contains(s, "| decision stored by the run | H1 |", "sprt");
    assert_contains(s, "| decision from these games |", "sprt");
    assert_contains(s, "(sprt_llr.png)", "sprt");
    assert_contains(s, "H0 nElo <= 0 against H1 nElo >= 5 (normalized model, fishtest's default)", "sprt");
    assert_contains(s, "In the logistic model, at the per-pair score deviation of these games, the bounds are [0.00, ",
                    "sprt");
    free(s);
    free(md);
    assert_png(tmp_path(t, "out/sprt_llr.png"));

    /* the logistic model (issue 36): its LLR, its unit, the normalized bounds beside */
    values[0] = "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=logistic";
    if (h5store_set_attributes(tmp_path(t, "sprt.h5"), names, values, 2, &err) != TV_OK)
        fail_msg("set attributes: %s", err.msg);
    md = report_md(tmp_path(t, "sprt.h5"), NULL, tmp_path(t, "outl"));
    assert_contains(md, "60 games (+30 =30 -0); SPRT [0, 5] Elo: H1**", "headline");
    s = section(md, head);
    assert_contains(s, "H0 Elo <= 0 against H1 Elo >= 5 (logistic model, cutechess-cli's Elo)", "sprt");
    assert_contains(s, "In the normalized model, at the per-pair score deviation of these games, the bounds are "
                       "[0.00, ",
                    "sprt");
    const int64_t penta[5] = {0, 0, 10, 10, 10};
    char llr[32];
    snprintf(llr, sizeof llr, "| LLR | %.3f |", sprt_llr_logistic(penta, 0, 5));
    assert_contains(s, llr, "sprt");
    free(s);
    free(md);
    values[0] = "elo0=0 elo1=5 alpha=0.05 beta=0.05";

    /* A malformed sprt attribute is an error naming the store. */
    values[0] = "elo0=5 elo1=0 alpha=0.05 beta=0.05";
    if (h5store_set_attributes(tmp_path(t, "sprt.h5"), names, values, 2, &err) != TV_OK)
        fail_msg("set attributes: %s", err.msg);
    assert_int_not_equal(report1(tmp_path(t, "sprt.h5"), NULL, tmp_path(t, "out2"), &err), TV_OK);
    assert_contains(err.msg, "bad sprt attribute", "error");
    assert_contains(err.msg, "sprt.h5", "error");
}

/* ---- the tuning log ---------------------------------------------------------------- */

static void test_tuning_log(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    FILE *f = fopen(tmp_path(t, "tune.log"), "w");
    assert_non_null(f);
    fprintf(f, "# tuning log\n");
    for (int i = 0; i < 30; i++)
        fprintf(f, "iter %d fit_loss %.6f holdout_loss %.6f\n", i, 0.09 + 0.02 / (1 + i), 0.095 + 0.018 / (1 + i) +
                                                                                            0.0001 * i);
    /* 20 weights: w00 moved least (by move / stderr), w19 most. */
    for (int i = 0; i < 20; i++)
        fprintf(f, "weight w%02d_x[%d] %d %d %.1f   # a comment\n", i, i, 100, 100 + (i % 2 ? i : -i) * 3, 2.0);
    /* two groups: one that trades off, one that does not */
    fprintf(f, "group material 3 22.7 2.1 ga_x[1]:0.6 ga_x[3]:0.55 ga_x[5]:0.5\n");
    fprintf(f, "group tower 2 1.4 1.1 gb_x[2]:0.8 gb_x[4]:-0.6\n");
    fclose(f);
    char *md = report_md(tmp_path(t, "rr.h5"), tmp_path(t, "tune.log"), tmp_path(t, "out"));
    char *s = section(md, "Tuning");
    assert_contains(s, "30 iterations", "tuning");
    assert_contains(s, "(tuning_loss.png)", "tuning");
    assert_contains(s, "(tuning_weights.png)", "tuning");
    assert_contains(s, "| weight | start | new | new - start | stderr | move / stderr |", "tuning");
    assert_contains(s, "| w19_x[19] | 100 | 157 | +57 | 2 | +28.50 |", "tuning");
    assert_contains(s, "| w18_x[18] | 100 | 46 | -54 | 2 | -27.00 |", "tuning");
    assert_contains(s, "w05_x[5]", "tuning");
    assert_null(strstr(s, "w04_x[4]")); /* only the top 15 */
    assert_null(strstr(s, "w00_x[0]"));
    assert_contains(s, "| material | 3 | 22.7 (trades off) | x2.1 | +0.60 ga_x[1] +0.55 ga_x[3] +0.50 ga_x[5] |",
                    "tuning");
    assert_contains(s, "| tower | 2 | 1.4 | x1.1 | +0.80 gb_x[2] -0.60 gb_x[4] |", "tuning");
    /* The biggest mover comes first. */
    assert_true(strstr(s, "w19_x") < strstr(s, "w18_x"));
    free(s);
    free(md);
    assert_png(tmp_path(t, "out/tuning_loss.png"));
    assert_png(tmp_path(t, "out/tuning_weights.png"));

    /* A bad line is an error with the log's name and line. */
    f = fopen(tmp_path(t, "bad.log"), "w");
    assert_non_null(f);
    fprintf(f, "iter 1 fit_loss 0.1 holdout_loss 0.2\n\nweight tempo 10 twelve 1\n");
    fclose(f);
    TvError err;
    assert_int_equal(report1(tmp_path(t, "rr.h5"), tmp_path(t, "bad.log"), tmp_path(t, "out3"), &err), TV_ERR_PARSE);
    char want[600];
    snprintf(want, sizeof want, "%s:3: expected", tmp_path(t, "bad.log"));
    assert_contains(err.msg, want, "error");
    /* A missing log. */
    assert_int_equal(report1(tmp_path(t, "rr.h5"), tmp_path(t, "none.log"), tmp_path(t, "out3"), &err), TV_ERR_IO);
    assert_contains(err.msg, "none.log", "error");
}

/* ---- any set of stores ------------------------------------------------------------- */

/* Stores with different engine sets are one rating list (engines matched
 * by name); a game two stores hold counts once; stores of other rules need
 * --mix-rules. */
static void test_any_stores_together(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n); /* alpha, beta, gamma */
    const char *other[3] = {"gamma", "delta", "epsilon"};
    StoredGame g2[NGAMES];
    int n2 = select_games(g2, NULL);
    write_store(tmp_path(t, "other.h5"), other, 3, g2, n2);
    const char *both[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "other.h5")};
    TvError err;
    if (report_write(both, 2, NULL, tmp_path(t, "out"), &err) != TV_OK)
        fail_msg("report of two engine sets: %s", err.msg);
    char path[600];
    snprintf(path, sizeof path, "%s/report.md", tmp_path(t, "out"));
    char *md = slurp(path);
    char *r = section(md, "Ratings");
    for (int i = 0; i < 3; i++) {
        assert_contains(r, NAMES[i], "ratings");
        assert_contains(r, other[i], "ratings");
    }
    free(r);
    assert_contains(md, "5 engine versions", "report");
    free(md);

    /* the same store twice: each game once */
    const char *twice[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "rr.h5")};
    if (report_write(twice, 2, NULL, tmp_path(t, "out2"), &err) != TV_OK)
        fail_msg("report of a store twice: %s", err.msg);
    snprintf(path, sizeof path, "%s/report.md", tmp_path(t, "out2"));
    md = slurp(path);
    char want[128];
    snprintf(want, sizeof want, "%d games from 2 stores", n);
    assert_contains(md, want, "report");
    snprintf(want, sizeof want, "%d games are held by more than one store", n);
    assert_contains(md, want, "report");
    free(md);

    /* notes: a pairing mostly adjudicated, and identical engines */
    for (int i = 0; i < n2; i++) {
        g2[i].termination = TERM_ADJ_MAX_PLIES;
        g2[i].result = 0;
    }
    write_store_as(tmp_path(t, "same.h5"), other, 3, g2, n2, -1, OPTIONS);
    md = report_md(tmp_path(t, "same.h5"), NULL, tmp_path(t, "out4"));
    assert_contains(md, "(more than half) were drawn by the ply limit or draw adjudication", "report");
    assert_contains(md, "are the same engine version (program, options, limits, weights and search settings) under "
                        "two names", "report");
    free(md);

    /* resignations are not the note's: a pairing that mostly ended so has none (issue 36: the note was on
     * every report, since most games end by an agreed resignation) */
    for (int i = 0; i < n2; i++) {
        g2[i].termination = TERM_ADJ_RESIGN;
        g2[i].result = (int8_t)(i % 2 ? 1 : -1);
    }
    write_store_as(tmp_path(t, "resigned.h5"), other, 3, g2, n2, -1, OPTIONS);
    md = report_md(tmp_path(t, "resigned.h5"), NULL, tmp_path(t, "out5"));
    assert_null(strstr(md, "(more than half)"));
    free(md);

    /* other rules: refused unless asked for */
    write_store_as(tmp_path(t, "capture.h5"), other, 3, g2, n2, 100,
                   "slide_over_own=no enpassant=combatant ending=capture");
    const char *rules[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "capture.h5")};
    assert_int_not_equal(report_write(rules, 2, NULL, tmp_path(t, "out3"), &err), TV_OK);
    assert_contains(err.msg, "was played under other rules", "error");
    assert_contains(err.msg, "--mix-rules", "error");
    ReportOptions mix = {.mix_rules = true};
    if (report_write_opts(rules, 2, NULL, tmp_path(t, "out3"), &mix, NULL, &err) != TV_OK)
        fail_msg("report with --mix-rules: %s", err.msg);
}

/* ---- what makes an engine version ------------------------------------------------------ */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_robin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split_same_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sprt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tuning_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_any_stores_together, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
