#define _POSIX_C_SOURCE 200809L
/* test_stats.c: the statistics of stats/: ratings (BayesElo by maximum
 * likelihood, stats/ratings.c), pairing statistics, the SPRT and the one Elo
 * formatter (stats/stats.c).
 *
 *  - SPRT: fishtest's LLR for pentanomial [39, 2226, 31451, 2412, 40] with
 *    normalized-Elo bounds [0.764, 3.439] is 2.16294087; bounds for
 *    alpha = beta = 0.05 are +-log(19); decisions and their names;
 *  - two players: the ML fit reproduces the observed win and loss
 *    frequencies exactly, so elo_diff and draw_elo are closed-form functions
 *    of W/N and L/N (BayesElo's proba_to_bayeselo);
 *  - the ratings do not depend on the order of the games (bit for bit),
 *    nor on how they are split into lists and concatenated;
 *  - three players with known ratings: games simulated from the model are
 *    fitted back within the 95% intervals, and the intervals from simulated
 *    replays roughly agree with those from the covariance;
 *  - perfect scores and a player without games stay finite (the prior);
 *  - pentanomial counting (incomplete pairs, other players, unpaired games),
 *    score, Elo, normalized Elo as fishtest;
 *  - LOS: los_ij + los_ji = 1, and the stronger player is favoured;
 *  - errors: no games, one player, bad indices and results;
 *  - the SPRT settings attribute: what sprt_settings_format writes,
 *    sprt_settings_parse reads back exactly; bad texts are refused;
 *  - speed: 1,000,000 games among 10 players in well under a second;
 *  - the Elo formatter, one test per row: a pairing's W/D/L and the text
 *    every command writes for it (an even match is "0 ± 482", never "-0" or
 *    "+0"; a perfect score the bound its games support). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratings.h"
#include "rng.h"

#define ELO_PER_NAT (400.0 / 2.302585092994045684) /* 400 / ln 10 */

/* ---- helpers ------------------------------------------------------------- */

/* |a - b| <= tol, with the values in the failure message (cmocka 1.1.5 has
 * no double assertion). */
#define assert_near(a, b, tol) near_check((a), (b), (tol), #a, __FILE__, __LINE__)

static void near_check(double a, double b, double tol, const char *expr, const char *file, int line)
{
    if (!(fabs(a - b) <= tol))
        fail_msg("%s:%d: %s = %.12g, expected %.12g (tolerance %g)", file, line, expr, a, b, tol);
}

static double uniform01(uint64_t *s)
{
    return (double)(tv_rng_next(s) >> 11) * 0x1.0p-53;
}

static double f_elo(double x)
{
    return 1.0 / (1.0 + pow(10.0, -x / 400.0));
}

/* One game of white against black drawn from BayesElo's model. */
static int draw_result(uint64_t *s, double elo_w, double elo_b, double draw_elo)
{
    double pw = f_elo(elo_w - elo_b - draw_elo), pl = f_elo(elo_b - elo_w - draw_elo);
    double u = uniform01(s);
    return u < pw ? 1 : u < pw + pl ? -1 : 0;
}

/* Round-robin of paired games (colours reversed in a pair) simulated from the
 * model; returns the number of games written into games. */
static int64_t simulate(RatedGame *games, int n, const double *elo, double draw_elo, int pairs_per_pairing,
                        uint64_t seed)
{
    uint64_t s = seed;
    int64_t k = 0, pair = 0;
    for (int p = 0; p < pairs_per_pairing; p++)
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                games[k++] = (RatedGame){ i, j, draw_result(&s, elo[i], elo[j], draw_elo), pair };
                games[k++] = (RatedGame){ j, i, draw_result(&s, elo[j], elo[i], draw_elo), pair };
                pair++;
            }
    return k;
}

/* Games of a (0) against b (1) with the given results from a's view. */
static int64_t two_player_games(RatedGame *games, int w, int d, int l)
{
    int64_t k = 0;
    int res[3] = { 1, 0, -1 }, cnt[3] = { w, d, l };
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < cnt[t]; i++, k++) {
            bool a_white = k % 2 == 0;
            games[k] = (RatedGame){ a_white ? 0 : 1, a_white ? 1 : 0, a_white ? res[t] : -res[t], k / 2 };
        }
    return k;
}

static void fit_ok(const RatedGame *games, int64_t n, int players, int sims, Ratings *r)
{
    TvError err;
    tv_error_clear(&err);
    TvStatus st = ratings_fit(games, n, players, sims, 7, r, &err);
    if (st != TV_OK)
        fail_msg("ratings_fit: %s", err.msg);
    assert_int_equal(r->n, players);
}

static void assert_ratings_identical(const Ratings *a, const Ratings *b)
{
    int n = a->n;
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->elo, b->elo, (size_t)n * sizeof(double));
    assert_memory_equal(a->lo, b->lo, (size_t)n * sizeof(double));
    assert_memory_equal(a->hi, b->hi, (size_t)n * sizeof(double));
    assert_memory_equal(a->cov, b->cov, (size_t)n * (size_t)n * sizeof(double));
    assert_memory_equal(a->los, b->los, (size_t)n * (size_t)n * sizeof(double));
    assert_true(a->draw_elo == b->draw_elo);
}

/* ---- SPRT ---------------------------------------------------------------- */

static void test_sprt_known_llr(void **state)
{
    (void)state;
    const int64_t penta[5] = { 39, 2226, 31451, 2412, 40 };
    double llr = sprt_llr_pentanomial(penta, 0.764, 3.439);
    assert_near(llr, 2.16294087, 1e-6);
    /* Swapping the hypotheses negates the LLR. */
    assert_near(sprt_llr_pentanomial(penta, 3.439, 0.764), -llr, 1e-9);
    /* Empty cells are regularized (fishtest: 1e-3), so the LLR is finite. */
    const int64_t sparse[5] = { 0, 10, 50, 12, 0 };
    assert_true(isfinite(sprt_llr_pentanomial(sparse, 0, 5)));
    const int64_t none[5] = { 0, 0, 0, 0, 0 };
    assert_true(fabs(sprt_llr_pentanomial(none, 0, 5)) < 1e-2);
}

/* ---- the logistic model (issue 36: cutechess-cli's elo0/elo1) -------------- */

/* fishtest's LLR_logistic on pentanomial counts, one test per row; the
 * values come from tests/data/sprt_logistic_reference.py, an independent
 * Python transcription of fishtest's definition (bisection, not Newton). */
typedef struct {
    int64_t penta[5];
    double elo0, elo1, llr;
} LogisticRow;

static const LogisticRow LOGISTIC_ROWS[] = {
    {{39, 2226, 31451, 2412, 40}, 0, 2, -1.6892967362},
    {{39, 2226, 31451, 2412, 40}, -1, 3, -3.3276162607},
    {{10, 50, 100, 60, 12}, 0, 5, 0.3593498764},
    {{0, 3, 20, 5, 1}, 0, 10, 0.4924523800},
    {{100, 200, 300, 200, 100}, -5, 5, 0.0},
    {{5, 40, 60, 80, 30}, 0, 20, 7.6428894399},
    {{30, 80, 60, 40, 5}, 0, 20, -9.5199571327},
};

static void test_sprt_logistic_row(void **state)
{
    const LogisticRow *r = *state;
    assert_near(sprt_llr_logistic(r->penta, r->elo0, r->elo1), r->llr, 1e-6);
    SprtSettings s;
    sprt_settings_default(&s);
    s.elo0 = r->elo0;
    s.elo1 = r->elo1;
    s.model = SPRT_LOGISTIC;
    assert_near(sprt_llr(r->penta, &s), r->llr, 1e-6);
}

/* The two models are different tests: the same bounds give another LLR;
 * a bound converted at the counts' deviation gives the other model's
 * expected score, and back. */
static void test_sprt_models_differ_and_convert(void **state)
{
    (void)state;
    const int64_t penta[5] = {10, 50, 100, 60, 12};
    assert_true(fabs(sprt_llr_logistic(penta, 0, 5) - sprt_llr_pentanomial(penta, 0, 5)) > 0.05);
    double n = sprt_other_model(5, SPRT_LOGISTIC, penta);
    assert_true(isfinite(n) && n > 5); /* with draws, a logistic Elo is more normalized Elo */
    assert_near(sprt_other_model(n, SPRT_NORMALIZED, penta), 5, 1e-9);
    assert_near(sprt_other_model(0, SPRT_LOGISTIC, penta), 0, 1e-12);
    const int64_t none[5] = {0, 0, 0, 0, 0}, same[5] = {0, 0, 7, 0, 0};
    assert_true(isnan(sprt_other_model(5, SPRT_LOGISTIC, none)));
    assert_true(isnan(sprt_other_model(5, SPRT_LOGISTIC, same)));
    /* the settings' text: model=logistic written and read; none is normalized */
    SprtSettings s, back;
    sprt_settings_default(&s);
    s.model = SPRT_LOGISTIC;
    char buf[160];
    assert_string_equal(sprt_settings_format(&s, buf, sizeof buf), "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=logistic");
    TvError err;
    assert_int_equal(sprt_settings_parse(buf, &back, &err), TV_OK);
    assert_int_equal(back.model, SPRT_LOGISTIC);
    s.model = SPRT_NORMALIZED;
    assert_string_equal(sprt_settings_format(&s, buf, sizeof buf), "elo0=0 elo1=5 alpha=0.05 beta=0.05");
    assert_int_equal(sprt_settings_parse(buf, &back, &err), TV_OK);
    assert_int_equal(back.model, SPRT_NORMALIZED);
    assert_int_equal(sprt_settings_parse("elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized", &back, &err), TV_OK);
    assert_int_equal(back.model, SPRT_NORMALIZED);
    assert_int_equal(sprt_settings_parse("elo0=0 elo1=5 alpha=0.05 beta=0.05 model=bayes", &back, &err),
                     TV_ERR_PARSE);
    assert_int_equal(
        sprt_settings_parse("elo0=0 elo1=5 alpha=0.05 beta=0.05 model=logistic model=logistic", &back, &err),
        TV_ERR_PARSE);
    assert_string_equal(sprt_model_name(SPRT_LOGISTIC), "logistic");
    assert_string_equal(sprt_model_name(SPRT_NORMALIZED), "normalized");
}

/* Wald's expected length: at the middle of the bounds -lower * upper /
 * (t1 - t0)^2; at either bound the walk ends at the bound it should with
 * probability 1 - alpha (or 1 - beta), so the mean is that mix of the bounds
 * over the drift (t1 - t0)^2 / 2. */
static void test_sprt_expected_pairs(void **state)
{
    (void)state;
    const double dt = 10 * sqrt(2) * log(10) / 800, b = log(0.95 / 0.05);
    assert_float_equal(sprt_expected_pairs(0, 10, 0.05, 0.05, 5), b * b / (dt * dt), 1e-6);
    assert_float_equal(sprt_expected_pairs(0, 10, 0.05, 0.05, 10), (0.95 * b - 0.05 * b) / (dt * dt / 2), 1e-3);
    assert_float_equal(sprt_expected_pairs(0, 10, 0.05, 0.05, 0), (0.95 * b - 0.05 * b) / (dt * dt / 2), 1e-3);
    assert_true(fabs(sprt_expected_pairs(0, 10, 0.05, 0.05, 5) - 5230) < 5);
    /* a larger difference decides sooner */
    assert_true(sprt_expected_pairs(0, 10, 0.05, 0.05, 30) < sprt_expected_pairs(0, 10, 0.05, 0.05, 10) / 2);
}

static void test_sprt_bounds_and_decisions(void **state)
{
    (void)state;
    double lo, hi;
    sprt_bounds(0.05, 0.05, &lo, &hi);
    assert_near(lo, -2.944439, 1e-6);
    assert_near(hi, 2.944439, 1e-6);
    sprt_bounds(0.05, 0.1, &lo, &hi);
    assert_near(lo, log(0.1 / 0.95), 1e-12);
    assert_near(hi, log(0.9 / 0.05), 1e-12);
    sprt_bounds(0.05, 0.05, &lo, &hi);
    assert_int_equal(sprt_decide(2.16294087, lo, hi), SPRT_CONTINUE);
    assert_int_equal(sprt_decide(3.0, lo, hi), SPRT_ACCEPT_H1);
    assert_int_equal(sprt_decide(-3.0, lo, hi), SPRT_ACCEPT_H0);
    assert_string_equal(sprt_decision_name(SPRT_CONTINUE), "continue");
    assert_string_equal(sprt_decision_name(SPRT_ACCEPT_H0), "H0 accepted");
    assert_string_equal(sprt_decision_name(SPRT_ACCEPT_H1), "H1 accepted");
}

/* ---- two players: closed form -------------------------------------------- */

/* For two players the ML fit matches the observed frequencies:
 * f(d - draw_elo) = W/N and f(-d - draw_elo) = L/N, so with
 * g(p) = 400 log10(p / (1 - p)) (the inverse of f):
 *   d = (g(W/N) - g(L/N)) / 2,  draw_elo = -(g(W/N) + g(L/N)) / 2,
 * and with mean-0 ratings elo_a = d/2, elo_b = -d/2. */
static void check_closed_form(int w, int d, int l)
{
    RatedGame games[2000];
    int64_t n = two_player_games(games, w, d, l);
    Ratings r;
    fit_ok(games, n, 2, 0, &r);
    double N = (double)n;
    double gw = 400 * log10((w / N) / (1 - w / N)), gl = 400 * log10((l / N) / (1 - l / N));
    double diff = (gw - gl) / 2, drawelo = -(gw + gl) / 2;
    assert_near(r.elo[0] - r.elo[1], diff, 1e-8);
    assert_near(r.elo[0], diff / 2, 1e-8);
    assert_near(r.elo[0] + r.elo[1], 0, 1e-9);
    assert_near(r.draw_elo, drawelo, 1e-8);
    assert_false(r.simulated);
    ratings_free(&r);
}

static void test_two_players_closed_form(void **state)
{
    (void)state;
    check_closed_form(30, 50, 20);
    check_closed_form(20, 50, 30);
    check_closed_form(400, 900, 100);
    check_closed_form(1, 1, 1);
    check_closed_form(5, 990, 5);
}

/* The pairing's closed-form Elo (from the score) has the same sign and is
 * close to the fitted one, but not equal: the model's difference also
 * depends on the draw rate.  The ML difference does equal it for the score
 * implied by the fitted model (which reproduces W/N and L/N). */
static void test_two_players_score_relation(void **state)
{
    (void)state;
    RatedGame games[200];
    int64_t n = two_player_games(games, 60, 20, 20);
    Ratings r;
    fit_ok(games, n, 2, 0, &r);
    double d = r.elo[0] - r.elo[1];
    double pw = f_elo(d - r.draw_elo), pl = f_elo(-d - r.draw_elo);
    assert_near(pw, 0.6, 1e-9);
    assert_near(pl, 0.2, 1e-9);
    assert_near(pw + 0.5 * (1 - pw - pl), 0.7, 1e-9);
    ratings_free(&r);
}

/* ---- order independence ------------------------------------------------- */

static void test_order_independent(void **state)
{
    (void)state;
    enum { N = 4, PAIRS = 150 };
    const double elo[N] = { 50, -20, 0, -30 };
    int64_t cap = (int64_t)PAIRS * N * (N - 1);
    RatedGame *g = malloc((size_t)cap * sizeof *g), *h = malloc((size_t)cap * sizeof *h);
    assert_non_null(g);
    assert_non_null(h);
    int64_t n = simulate(g, N, elo, 150, PAIRS, 99);
    Ratings a, b, c;
    fit_ok(g, n, N, 0, &a);

    /* shuffled (Fisher-Yates) */
    memcpy(h, g, (size_t)n * sizeof *g);
    uint64_t s = 5;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(tv_rng_next(&s) % (uint64_t)(i + 1));
        RatedGame t = h[i];
        h[i] = h[j];
        h[j] = t;
    }
    fit_ok(h, n, N, 0, &b);
    assert_ratings_identical(&a, &b);

    /* split into two lists (odd and even games) and concatenated the other
     * way round */
    int64_t k = 0;
    for (int64_t i = 1; i < n; i += 2)
        h[k++] = g[i];
    for (int64_t i = 0; i < n; i += 2)
        h[k++] = g[i];
    fit_ok(h, n, N, 0, &c);
    assert_ratings_identical(&a, &c);

    /* colours do not matter in the model: swapping every game's colours
     * (and the result) gives the same ratings */
    for (int64_t i = 0; i < n; i++)
        h[i] = (RatedGame){ g[i].black, g[i].white, -g[i].result, g[i].pair };
    Ratings d;
    fit_ok(h, n, N, 0, &d);
    for (int i = 0; i < N; i++)
        assert_near(d.elo[i], a.elo[i], 1e-9);
    ratings_free(&a);
    ratings_free(&b);
    ratings_free(&c);
    ratings_free(&d);
    free(g);
    free(h);
}

/* ---- recovering known ratings ------------------------------------------- */

static void test_three_players_recovered(void **state)
{
    (void)state;
    enum { N = 3, PAIRS = 1500 };
    const double truth[N] = { 120, -20, -100 }; /* mean 0 */
    const double draw_elo = 200;
    RatedGame *g = malloc((size_t)PAIRS * N * (N - 1) * sizeof *g);
    assert_non_null(g);
    int64_t n = simulate(g, N, truth, draw_elo, PAIRS, 2024);
    Ratings r, s;
    fit_ok(g, n, N, 0, &r);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        sum += r.elo[i];
        assert_true(r.lo[i] < r.elo[i] && r.elo[i] < r.hi[i]);
        if (!(r.lo[i] <= truth[i] && truth[i] <= r.hi[i]))
            fail_msg("player %d: true %g outside [%g, %g] (fit %g)", i, truth[i], r.lo[i], r.hi[i], r.elo[i]);
        /* half-widths of a few tens of Elo with 6,000 games a player */
        assert_true(r.hi[i] - r.lo[i] < 40);
    }
    assert_near(sum, 0, 1e-9);
    assert_near(r.draw_elo, draw_elo, 15);
    /* The covariance is that of mean-0 ratings: rows sum to 0. */
    for (int i = 0; i < N; i++) {
        double row = 0;
        for (int j = 0; j < N; j++)
            row += r.cov[i * N + j];
        assert_near(row, 0, 1e-6);
        assert_true(r.cov[i * N + i] > 0);
    }

    /* Intervals from 200 simulated replays roughly agree with the covariance
     * ones (half-widths within 25%), centred near the fit. */
    fit_ok(g, n, N, 200, &s);
    assert_true(s.simulated);
    for (int i = 0; i < N; i++) {
        assert_near(s.elo[i], r.elo[i], 1e-12);
        double hw_cov = (r.hi[i] - r.lo[i]) / 2, hw_sim = (s.hi[i] - s.lo[i]) / 2;
        if (fabs(hw_sim / hw_cov - 1) > 0.25)
            fail_msg("player %d: simulated half-width %g vs covariance %g", i, hw_sim, hw_cov);
        double mid = (s.hi[i] + s.lo[i]) / 2;
        assert_near(mid, r.elo[i], 0.3 * hw_cov);
    }
    /* seeded: the same seed gives the same intervals */
    Ratings s2;
    fit_ok(g, n, N, 200, &s2);
    assert_ratings_identical(&s, &s2);
    ratings_free(&r);
    ratings_free(&s);
    ratings_free(&s2);
    free(g);
}

/* ---- degenerate results: the prior --------------------------------------- */

static void test_perfect_score_finite(void **state)
{
    (void)state;
    /* Player 0 wins every game; 1 and 2 play normally. */
    RatedGame g[400];
    int64_t k = 0;
    uint64_t s = 3;
    for (int p = 0; p < 40; p++) {
        g[k++] = (RatedGame){ 0, 1, 1, 3 * p };
        g[k++] = (RatedGame){ 1, 0, -1, 3 * p };
        g[k++] = (RatedGame){ 0, 2, 1, 3 * p + 1 };
        g[k++] = (RatedGame){ 2, 0, -1, 3 * p + 1 };
        g[k++] = (RatedGame){ 1, 2, draw_result(&s, 0, 0, 150), -1 };
    }
    Ratings r;
    fit_ok(g, k, 3, 0, &r);
    for (int i = 0; i < 3; i++) {
        assert_true(isfinite(r.elo[i]) && isfinite(r.lo[i]) && isfinite(r.hi[i]));
        assert_true(r.lo[i] < r.elo[i] && r.elo[i] < r.hi[i]);
    }
    assert_true(r.elo[0] > r.elo[1] + 300 && r.elo[0] > r.elo[2] + 300);
    assert_true(r.elo[0] < 3000);
    assert_true(isfinite(r.draw_elo) && r.draw_elo > 0);
    assert_true(r.los[0 * 3 + 1] > 0.99);
    ratings_free(&r);

    /* Two players, all wins; all draws; no draws: finite. */
    RatedGame h[100];
    int cases[3][3] = { { 50, 0, 0 }, { 0, 50, 0 }, { 25, 0, 25 } };
    for (int c = 0; c < 3; c++) {
        int64_t n = two_player_games(h, cases[c][0], cases[c][1], cases[c][2]);
        fit_ok(h, n, 2, 0, &r);
        assert_true(isfinite(r.elo[0]) && isfinite(r.draw_elo) && isfinite(r.lo[0]) && isfinite(r.hi[0]));
        ratings_free(&r);
    }
}

static void test_player_without_games(void **state)
{
    (void)state;
    RatedGame h[100];
    int64_t n = two_player_games(h, 30, 40, 30);
    Ratings r;
    fit_ok(h, n, 3, 0, &r); /* player 2 has no games */
    for (int i = 0; i < 3; i++)
        assert_true(isfinite(r.elo[i]) && isfinite(r.lo[i]) && isfinite(r.hi[i]));
    /* unknown player: the widest interval */
    assert_true(r.hi[2] - r.lo[2] > r.hi[0] - r.lo[0]);
    ratings_free(&r);
}

/* ---- LOS ----------------------------------------------------------------- */

static void test_los_symmetric(void **state)
{
    (void)state;
    enum { N = 5, PAIRS = 60 };
    const double elo[N] = { 0, 30, -30, 60, 5 };
    RatedGame *g = malloc((size_t)PAIRS * N * (N - 1) * sizeof *g);
    assert_non_null(g);
    int64_t n = simulate(g, N, elo, 180, PAIRS, 11);
    Ratings r;
    fit_ok(g, n, N, 0, &r);
    for (int i = 0; i < N; i++) {
        assert_near(r.los[i * N + i], 0.5, 0);
        for (int j = 0; j < N; j++) {
            assert_near(r.los[i * N + j] + r.los[j * N + i], 1.0, 1e-12);
            assert_true(r.los[i * N + j] >= 0 && r.los[i * N + j] <= 1);
            if (r.elo[i] > r.elo[j])
                assert_true(r.los[i * N + j] > 0.5);
            /* the definition, from the covariance */
            if (i != j) {
                double v = r.cov[i * N + i] + r.cov[j * N + j] - 2 * r.cov[i * N + j];
                double z = (r.elo[i] - r.elo[j]) / sqrt(v);
                assert_near(r.los[i * N + j], 0.5 * erfc(-z / sqrt(2.0)), 1e-9);
            }
        }
    }
    ratings_free(&r);
    free(g);
}

/* ---- pairing statistics -------------------------------------------------- */

static void test_pentanomial_counting(void **state)
{
    (void)state;
    /* a = 2, b = 5 among others.  Pairs (a's points in the two games):
     *   pair 10: a wins both            -> 2    (penta[4])
     *   pair 11: win + draw             -> 1.5  (penta[3])
     *   pair 12: win + loss             -> 1    (penta[2])
     *   pair 13: draw + draw            -> 1    (penta[2])
     *   pair 14: loss + draw            -> 0.5  (penta[1])
     *   pair 15: loss + loss            -> 0    (penta[0])
     *   pair 16: only one game          -> not counted
     *   pair 17: a vs b and a vs 3      -> not counted (not both a vs b)
     *   unpaired game (pair -1), a wins -> W/D/L only
     * mixed in with games between other players. */
    const RatedGame g[] = {
        { 2, 5, 1, 10 },  { 0, 1, 1, 10 },  { 5, 2, -1, 10 }, { 2, 5, 1, 11 },  { 5, 2, 0, 11 },
        { 5, 2, 1, 12 },  { 3, 4, 0, 100 }, { 2, 5, 1, 12 },  { 2, 5, 0, 13 },  { 5, 2, 0, 13 },
        { 5, 2, 0, 14 },  { 2, 5, -1, 14 }, { 2, 5, -1, 15 }, { 5, 2, 1, 15 },  { 2, 5, 1, 16 },
        { 2, 5, 0, 17 },  { 2, 3, 1, 17 },  { 5, 2, -1, -1 }, { 3, 4, -1, 100 },
    };
    const int64_t n = (int64_t)(sizeof g / sizeof g[0]);
    PairingStats ps;
    pairing_stats(g, n, 2, 5, &ps);
    /* a's games vs b: 10:W W, 11:W D, 12:L W, 13:D D, 14:D L, 15:L L, 16:W,
     * 17:D, unpaired: W  -> W 6, D 5, L 4 */
    assert_int_equal(ps.wins, 6);
    assert_int_equal(ps.draws, 5);
    assert_int_equal(ps.losses, 4);
    const int64_t want[5] = { 1, 1, 2, 1, 1 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(ps.penta[i], want[i]);
    double s = (6 + 2.5) / 15.0;
    assert_near(ps.score, s, 1e-12);
    assert_near(ps.draw_rate, 5 / 15.0, 1e-12);
    assert_near(ps.elo, -400 * log10(1 / s - 1), 1e-9);
    assert_near(ps.elo, elo_from_score(s), 0);
    /* delta method: 1.96 * sd/sqrt(N) * 400 / (ln10 s (1 - s)) */
    double var = (6 * (1 - s) * (1 - s) + 5 * (0.5 - s) * (0.5 - s) + 4 * s * s) / 15;
    assert_near(ps.elo_err95, 1.959963984540054 * sqrt(var / 15) * ELO_PER_NAT / (s * (1 - s)), 1e-9);
    assert_near(ps.los, 0.5 * erfc(-((s - 0.5) / sqrt(var / 15)) / sqrt(2.0)), 1e-9);
    /* the pentanomial distribution is symmetric: nElo 0 */
    assert_near(ps.nelo, 0, 1e-12);
    assert_true(ps.nelo_err95 > 0);

    /* from b's view: mirrored */
    PairingStats pb;
    pairing_stats(g, n, 5, 2, &pb);
    assert_int_equal(pb.wins, 4);
    assert_int_equal(pb.losses, 6);
    for (int i = 0; i < 5; i++)
        assert_int_equal(pb.penta[i], want[4 - i]);
    assert_near(pb.elo, -ps.elo, 1e-9);
    assert_near(pb.nelo, -ps.nelo, 1e-9);
    assert_near(pb.los, 1 - ps.los, 1e-12);

    /* players who never met */
    PairingStats none;
    pairing_stats(g, n, 0, 5, &none);
    assert_int_equal(none.wins + none.draws + none.losses, 0);
    assert_true(isnan(none.score));
}

/* Normalized Elo as fishtest computes it for pentanomial results
 * (nElo = (mu - 1/2) / sigma_pair * 800 / ln 10 / sqrt 2, with the error
 * from var_t = 1 - t skew + t^2 (exkurt + 2) / 4). */
static void test_nelo_fishtest(void **state)
{
    (void)state;
    const int64_t penta[5] = { 39, 2226, 31451, 2412, 40 };
    int64_t total = 0;
    for (int i = 0; i < 5; i++)
        total += penta[i];
    RatedGame *g = malloc((size_t)total * 2 * sizeof *g);
    assert_non_null(g);
    /* one game pair per pentanomial outcome: (first, second) results for a */
    const int combo[5][2] = { { -1, -1 }, { -1, 0 }, { 1, -1 }, { 1, 0 }, { 1, 1 } };
    int64_t k = 0, pair = 0;
    for (int i = 0; i < 5; i++)
        for (int64_t c = 0; c < penta[i]; c++, pair++) {
            g[k++] = (RatedGame){ 0, 1, combo[i][0], pair };
            g[k++] = (RatedGame){ 1, 0, -combo[i][1], pair };
        }
    PairingStats ps;
    pairing_stats(g, k, 0, 1, &ps);
    for (int i = 0; i < 5; i++)
        assert_int_equal(ps.penta[i], penta[i]);
    assert_near(ps.nelo, 3.450799606946096, 1e-9);
    assert_near(ps.nelo_err95, 2.5312396032638778, 1e-9);
    free(g);
}

/* ---- errors -------------------------------------------------------------- */

static void expect_error(const RatedGame *g, int64_t n, int players, const char *part)
{
    Ratings r;
    TvError err;
    tv_error_clear(&err);
    TvStatus st = ratings_fit(g, n, players, 0, 1, &r, &err);
    assert_int_not_equal(st, TV_OK);
    if (!strstr(err.msg, part))
        fail_msg("expected '%s' in '%s'", part, err.msg);
    assert_null(r.elo);
    ratings_free(&r); /* safe on a failed fit */
}

static void test_errors(void **state)
{
    (void)state;
    const RatedGame one[] = { { 0, 1, 1, 0 } };
    expect_error(one, 0, 2, "no games");
    expect_error(NULL, 0, 3, "no games");
    expect_error(one, 1, 1, "at least 2 players");
    const RatedGame bad_index[] = { { 0, 1, 1, 0 }, { 0, 7, 0, 0 } };
    expect_error(bad_index, 2, 3, "game 1");
    const RatedGame self[] = { { 1, 1, 0, 0 } };
    expect_error(self, 1, 3, "against itself");
    const RatedGame bad_result[] = { { 0, 1, 2, 0 } };
    expect_error(bad_result, 1, 2, "bad result");
    expect_error(one, 1, -5, "at least 2 players");
    /* one game is enough to fit (through the prior) */
    Ratings r;
    fit_ok(one, 1, 2, 0, &r);
    assert_true(r.elo[0] > r.elo[1]);
    ratings_free(&r);
}

/* ---- speed --------------------------------------------------------------- */

static void test_sprt_settings_round_trip(void **state)
{
    (void)state;
    const SprtSettings cases[] = {
        {.elo0 = 0, .elo1 = 5, .alpha = 0.05, .beta = 0.05},
        {.elo0 = 0.764, .elo1 = 3.439, .alpha = 0.05, .beta = 0.1},
        {.elo0 = -1.5, .elo1 = 2, .alpha = 0.001, .beta = 0.2, .model = SPRT_LOGISTIC},
        {.elo0 = 0.1 + 0.2, .elo1 = 1.0 / 3.0, .alpha = 1e-7, .beta = 0.3333333333333333}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[160];
        sprt_settings_format(&cases[i], text, sizeof text);
        SprtSettings back;
        TvError err;
        assert_int_equal(sprt_settings_parse(text, &back, &err), TV_OK);
        assert_true(back.elo0 == cases[i].elo0 && back.elo1 == cases[i].elo1);
        assert_true(back.alpha == cases[i].alpha && back.beta == cases[i].beta);
        assert_int_equal(back.model, cases[i].model);
    }
    char text[160];
    SprtSettings d;
    sprt_settings_default(&d);
    assert_string_equal(sprt_settings_format(&d, text, sizeof text), "elo0=0 elo1=5 alpha=0.05 beta=0.05");
    const char *bad[] = {"", "elo0=0 elo1=5 alpha=0.05", "elo0=5 elo1=0 alpha=0.05 beta=0.05",
                         "elo0=0 elo1=5 alpha=0 beta=0.05", "elo0=0 elo1=5 alpha=0.05 beta=0.05 elo0=1",
                         "elo0=0 elo1=inf alpha=0.05 beta=0.05", "elo0=0 elo1=5 alpha=0.05 gamma=1",
                         "elo0=0x elo1=5 alpha=0.05 beta=0.05"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SprtSettings s;
        TvError err;
        assert_int_equal(sprt_settings_parse(bad[i], &s, &err), TV_ERR_PARSE);
        assert_non_null(strstr(err.msg, "bad sprt attribute"));
    }
}

/* A million games of ten players: the fit recovers every rating.  It never
 * ran before (the rows overwrote its slot) and asserted a time, which is a
 * benchmark's business, not a test's: the time is only printed. */
static void test_million_games_recovered(void **state)
{
    (void)state;
    enum { N = 10 };
    const int64_t n = 1000000;
    RatedGame *g = malloc((size_t)n * sizeof *g);
    assert_non_null(g);
    double elo[N];
    for (int i = 0; i < N; i++)
        elo[i] = 20.0 * i - 90;
    uint64_t s = 77;
    for (int64_t k = 0; k < n; k++) {
        int i = (int)(tv_rng_next(&s) % N), j = (int)(tv_rng_next(&s) % (N - 1));
        if (j >= i)
            j++;
        g[k] = (RatedGame){ i, j, draw_result(&s, elo[i], elo[j], 180), k / 2 };
    }
    Ratings r;
    double t0 = tv_now_seconds();
    fit_ok(g, n, N, 0, &r);
    double dt = tv_now_seconds() - t0;
    print_message("1,000,000 games, 10 players: %.3f s, %d iterations\n", dt, r.iterations);
    for (int i = 0; i < N; i++)
        assert_near(r.elo[i], elo[i], 5);
    ratings_free(&r);
    free(g);
}

/* ---- the Elo formatter ----------------------------------------------------- */

/* One pairing and the text of its Elo (the expected half-widths by hand from
 * the trinomial formula: 1.96 * sd / sqrt(N) * 400 / (ln 10 * s (1 - s))). */
typedef struct {
    int w, d, l;
    const char *text;
} EloTextRow;

static const EloTextRow ELO_TEXT_ROWS[] = {
    {1, 0, 1, "0 ± 482"},          /* score 1/2: elo_from_score gives -0.0 */
    {1000, 0, 1001, "0 ± 15"},     /* -0.17 Elo */
    {1001, 0, 1000, "0 ± 15"},     /* +0.17 Elo */
    {0, 4, 0, "0 ± 204"},          /* all drawn: no spread; the bound of stats_all_drawn_bound (0 ± 0 before) */
    {0, 10, 0, "0 ± 92"},
    {0, 1, 0, "0 ± 636"},
    {1, 0, 0, "n/a (1 game)"},     /* "> -512" before: one win cannot say who is stronger */
    {4, 0, 0, "n/a (4 games)"},    /* 0.05^(1/4) < 1/2 */
    {0, 0, 3, "n/a (3 games)"},
    {30, 40, 31, "-3 ± 53"},
    {10, 5, 3, "+143 ± 143"},
    {3, 5, 10, "-143 ± 143"},
    {5, 0, 0, "> +34"},            /* every game won: the 95% bound, 0.05^(1/5) */
    {0, 0, 5, "< -34"},
    {0, 0, 0, "-"},
};

static void test_elo_text_row(void **state)
{
    const EloTextRow *row = *state;
    RatedGame g[2100];
    int64_t n = 0;
    for (int i = 0; i < row->w; i++)
        g[n] = (RatedGame){0, 1, 1, -1}, n++;
    for (int i = 0; i < row->d; i++)
        g[n] = (RatedGame){1, 0, 0, -1}, n++;
    for (int i = 0; i < row->l; i++)
        g[n] = (RatedGame){1, 0, 1, -1}, n++;
    PairingStats ps;
    pairing_stats(g, n, 0, 1, &ps);
    char buf[64];
    assert_string_equal(stats_format_elo(&ps, buf, sizeof buf), row->text);
}

/* Pairs that all scored one way and the text of their normalized Elo (the
 * bounds by hand from stats_nelo_bound's model: a fraction p = 0.05^(1/n) of
 * pairs at that score, the rest at 0 or 1 per game). */
typedef struct {
    int cell;  /* every pair scored cell / 2 points */
    int pairs; /* how many */
    int mixed; /* plus one pair of 1 point, so the spread is the games' own */
    const char *text;
} NeloTextRow;

static const NeloTextRow NELO_TEXT_ROWS[] = {
    {4, 10, 0, "> +135"},  /* every pair won: "+5672 ± 110368" before (the regularisation's) */
    {4, 5, 0, "> +24"},
    {4, 4, 0, "n/a (4 pairs)"},
    {0, 10, 0, "< -135"},
    {2, 2, 0, "0 ± 458"},  /* every pair level: "0 ± 0"-like before */
    {2, 50, 0, "0 ± 61"},
    {3, 10, 0, "> +42"},
    {1, 10, 0, "< -42"},
    {3, 2, 0, "n/a (2 pairs)"},
    {4, 10, 1, NULL},      /* spread: the estimate and its half-width (stats_fmt_elo_pm) */
    {0, 0, 0, "n/a"},
};

static void test_nelo_text_row(void **state)
{
    const NeloTextRow *row = *state;
    RatedGame g[200];
    int64_t n = 0, pair = 0;
    /* one pair scoring cell / 2 points for player 0: its two games */
    for (int i = 0; i < row->pairs + row->mixed; i++, pair++) {
        int points = i < row->pairs ? row->cell : 2; /* half-points of the pair */
        int first = points - 1 < 1 ? points - 1 : 1, second = points - 2 - first; /* from player 0's view */
        g[n++] = (RatedGame){0, 1, first, pair};
        g[n++] = (RatedGame){1, 0, -second, pair};
    }
    PairingStats ps;
    pairing_stats(g, n, 0, 1, &ps);
    assert_int_equal(ps.penta[row->cell], row->pairs);
    char buf[64], want[64];
    const char *text = row->text;
    if (!text)
        text = stats_fmt_elo_pm(ps.nelo, ps.nelo_err95, want, sizeof want);
    assert_string_equal(stats_format_nelo(&ps, buf, sizeof buf), text);
}

/* One value (x; with a half-width e, or an interval [e, f]) and its text. */
typedef struct {
    char form; /* 'v' stats_fmt_elo, 'p' stats_fmt_elo_pm, 'i' stats_fmt_elo_interval */
    double x, e, f;
    const char *text;
} EloValueRow;

static const EloValueRow ELO_VALUE_ROWS[] = {
    {'v', -0.0, 0, 0, "0"},
    {'v', -0.49, 0, 0, "0"},
    {'v', 0.49, 0, 0, "0"},
    {'v', -0.5, 0, 0, "-1"}, /* %+.0f rounds half to even: "-0" */
    {'v', 0.5, 0, 0, "+1"},
    {'v', 2.5, 0, 0, "+3"},
    {'v', -141.7, 0, 0, "-142"},
    {'v', NAN, 0, 0, "n/a"},
    {'v', INFINITY, 0, 0, "+inf"},
    {'v', -INFINITY, 0, 0, "-inf"},
    {'p', 0.0, 480.6, 0, "0 ± 481"}, /* the ladder's gen-0 beside the pairing's "0 ± 482" */
    {'p', -0.2, 15.2, 0, "0 ± 15"},
    {'p', 12.4, NAN, 0, "+12 ± n/a"},
    {'p', 12.4, INFINITY, 0, "+12 ± inf"},
    {'i', 0.0, -480.6, 480.6, "0 ± 481"},
    {'i', 5.0, -3.0, 14.0, "+5 -8/+9"},
    {'i', -5.0, -14.0, 3.0, "-5 -9/+8"},
    {'i', 30.0, 10.2, 49.9, "+30 ± 20"},
};

static void test_elo_value_row(void **state)
{
    const EloValueRow *row = *state;
    char buf[STATS_ELO_TEXT];
    const char *got = row->form == 'v'   ? stats_fmt_elo(row->x, buf, sizeof buf)
                      : row->form == 'p' ? stats_fmt_elo_pm(row->x, row->e, buf, sizeof buf)
                                         : stats_fmt_elo_interval(row->x, row->e, row->f, buf, sizeof buf);
    assert_string_equal(got, row->text);
}

int main(void)
{
    enum { NROWS = sizeof ELO_TEXT_ROWS / sizeof ELO_TEXT_ROWS[0] };
    enum { NVALUES = sizeof ELO_VALUE_ROWS / sizeof ELO_VALUE_ROWS[0] };
    enum { NNELO = sizeof NELO_TEXT_ROWS / sizeof NELO_TEXT_ROWS[0] };
    enum { NFIXED = 15 }; /* the named tests below (14 once: the rows overwrote the 15th, which never ran) */
    struct CMUnitTest tests[NFIXED + NROWS + NVALUES + NNELO] = {
        cmocka_unit_test(test_sprt_known_llr),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[0]),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[1]),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[2]),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[3]),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[4]),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[5]),
        cmocka_unit_test_prestate(test_sprt_logistic_row, (void *)&LOGISTIC_ROWS[6]),
        cmocka_unit_test(test_sprt_models_differ_and_convert),
        cmocka_unit_test(test_sprt_bounds_and_decisions),
        cmocka_unit_test(test_two_players_closed_form),
        cmocka_unit_test(test_two_players_score_relation),
        cmocka_unit_test(test_order_independent),
        cmocka_unit_test(test_three_players_recovered),
        cmocka_unit_test(test_perfect_score_finite),
        cmocka_unit_test(test_player_without_games),
        cmocka_unit_test(test_los_symmetric),
        cmocka_unit_test(test_pentanomial_counting),
        cmocka_unit_test(test_nelo_fishtest),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sprt_settings_round_trip),
        cmocka_unit_test(test_sprt_expected_pairs),
        cmocka_unit_test(test_million_games_recovered),
    };
    static char names[NROWS][64];
    for (int i = 0; i < NROWS; i++) {
        const EloTextRow *r = &ELO_TEXT_ROWS[i];
        snprintf(names[i], sizeof names[i], "elo text of +%d=%d-%d", r->w, r->d, r->l);
        tests[NFIXED + i] = (struct CMUnitTest){names[i], test_elo_text_row, NULL, NULL, (void *)r};
    }
    static char vnames[NVALUES][64];
    for (int i = 0; i < NVALUES; i++) {
        const EloValueRow *r = &ELO_VALUE_ROWS[i];
        snprintf(vnames[i], sizeof vnames[i], "elo text %c %g %g %g", r->form, r->x, r->e, r->f);
        tests[NFIXED + NROWS + i] = (struct CMUnitTest){vnames[i], test_elo_value_row, NULL, NULL, (void *)r};
    }
    static char nnames[NNELO][64];
    for (int i = 0; i < NNELO; i++) {
        const NeloTextRow *r = &NELO_TEXT_ROWS[i];
        snprintf(nnames[i], sizeof nnames[i], "nelo text of %d pairs of %d half-points%s", r->pairs, r->cell,
                 r->mixed ? " and a level one" : "");
        tests[NFIXED + NROWS + NVALUES + i] = (struct CMUnitTest){nnames[i], test_nelo_text_row, NULL, NULL,
                                                                  (void *)r};
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
