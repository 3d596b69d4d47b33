/* stats.h: the statistics a running tournament needs, below the runner
 * (stats/ sits between core/ and selfplay/):
 * the results of one pairing (W/D/L, pentanomial counts, Elo and normalized
 * Elo with their 95% half-widths, LOS), fishtest's generalised SPRT on
 * pentanomial counts, and the SPRT settings as a text attribute of a store
 * (written and read here, side by side), and the one Elo formatter of the
 * program (stats_fmt_elo and its kin).
 *
 * The rating of many versions together (maximum likelihood over every game)
 * is in ratings.h, beside it; it builds on these types. */
#ifndef TAVRELI_STATS_H
#define TAVRELI_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Phi^-1(0.975): the half-width of a 95% interval in standard errors. */
#define STATS_Z975 1.959963984540054

/* One game for the statistics. */
typedef struct {
    int white, black; /* player indices */
    int result;       /* 1 White won, 0 draw, -1 Black won */
    int64_t pair;     /* games of one opening pair share this id (-1: not paired) */
} RatedGame;

/* Results of one pairing (a against b), from a's view. */
typedef struct {
    int64_t wins, draws, losses;
    int64_t penta[5];   /* pairs scoring 0, 0.5, 1, 1.5, 2 points for a (pairs with both games only) */
    double score;       /* (wins + draws/2) / games */
    double draw_rate;
    double elo, elo_err95;   /* logistic Elo from the score, and its 95% half-width (trinomial) */
    double nelo, nelo_err95; /* normalized Elo from the pentanomial counts, and its 95% half-width */
    double los;              /* likelihood of superiority of a over b */
} PairingStats;

/* The statistics of a against b over the games between them (either
 * colour).  Fields without data are NAN; a perfect score has elo +-INFINITY
 * and elo_err95 INFINITY (see stats_elo_bound for what to print instead). */
void pairing_stats(const RatedGame *games, int64_t ngames, int a, int b, PairingStats *out);

/* ---- Elo for people: the one formatter -------------------------------------
 * Every Elo the program writes (the progress line, the standings, the
 * strength check, the report, the training ladder) goes through these:
 * whole Elo with its sign, and 0 without one ("+12", "-7", "0": never "-0",
 * "+0" or "+0.0"; a value rounds half away from zero first, so -0.5 is
 * "-1" and -0.49 is "0"); "n/a" for NaN, "+inf"/"-inf".  Each returns buf;
 * STATS_ELO_TEXT bytes hold any of them. */
#define STATS_ELO_TEXT 64

/* One Elo value: "+12", "0", "-7". */
char *stats_fmt_elo(double x, char *buf, size_t n);

/* A value with its 95% half-width: "+12 ± 30" (the half-width unsigned;
 * "n/a" or "inf" when it is not finite). */
char *stats_fmt_elo_pm(double x, double err95, char *buf, size_t n);

/* A value with its 95% interval [lo, hi]: "+12 ± 30" when the interval is
 * symmetric to the whole Elo, else "+12 -25/+31" (the distances below and
 * above). */
char *stats_fmt_elo_interval(double x, double lo, double hi, char *buf, size_t n);

/* A pairing's Elo: stats_fmt_elo_pm of its Elo and half-width, except where
 * the games give no spread to take a half-width from, which gets the 95%
 * bound the games support instead:
 *  - every game won: "> +312", the one-sided bound of stats_perfect_score_bound;
 *    "< -312" when every game was lost; "n/a (4 games)" while that bound is
 *    not above 0 (fewer than 5 games: they cannot yet tell which is stronger);
 *  - every game drawn: "0 ± 204", the Elo of the most lopsided score whose
 *    chance of n draws in a row is 5% (stats_all_drawn_bound);
 *  - "-" without games. */
char *stats_format_elo(const PairingStats *ps, char *buf, size_t n);

/* A pairing's normalized Elo: stats_fmt_elo_pm of its nElo and half-width;
 * "n/a" without pairs; and when every pair scored alike (no spread, so the
 * estimate and its half-width are the regularisation's, not the games'), the
 * 95% bound of the least favourable pairing that gives n such pairs in a row
 * with chance 5%: "> +24" when every pair was won, "< -24" every pair lost,
 * "0 ± 458" every pair level, "n/a (4 pairs)" while the bound is not above
 * 0 (see stats_nelo_bound). */
char *stats_format_nelo(const PairingStats *ps, char *buf, size_t n);

/* The bound on normalized Elo after n pairs (n >= 1) that all scored
 * cell/4 per game (cell 0..4 as PairingStats.penta): a fraction p =
 * 0.05^(1/n) of pairs at that score, the rest at 0 or at 1 per game, and of
 * those two the one nearer the other side of 1/2 (cell > 2: the lower bound,
 * cell < 2: the upper bound, cell 2: the largest |nElo|, returned positive). */
double stats_nelo_bound(int cell, int64_t n);

/* The half-width of a 95% interval of the Elo after n games (n >= 1) that
 * were all drawn: the Elo of the score 1/2 + q/2, q = 1 - 0.05^(1/n) the
 * largest rate of decisive games under which n draws in a row have chance
 * 5% (every decisive game won, the most lopsided such pairing). */
double stats_all_drawn_bound(int64_t n);

/* The 95% lower bound on the Elo difference after n games that were all won
 * (n >= 1): the Elo of the score p whose chance of winning all n games, p^n,
 * is 5% (draws would count as half a win, so a player who won every game
 * cannot be weaker than that at 95% confidence).  Negate it for n losses. */
double stats_perfect_score_bound(int64_t n);

/* The closed form: Elo difference of a score (0 < score < 1; +-INFINITY at 1
 * and 0). */
double elo_from_score(double score);

/* The trinomial statistics of w wins, d draws and l losses: the score, its
 * standard error, the Elo of the score and its 95% half-width by the delta
 * method (INFINITY at a score of 0 or 1). */
void stats_trinomial(int64_t w, int64_t d, int64_t l, double *score, double *se, double *elo, double *err95);

/* The standard normal distribution function Phi(x). */
double stats_normal_cdf(double x);

/* ---- SPRT ------------------------------------------------------------------- */

/* The Elo model of an SPRT's bounds.  Normalized Elo (fishtest's default,
 * fastchess's): a difference in units of the per-pair score's deviation, so
 * a bound means the same test whatever the draw rate.  Logistic Elo
 * (cutechess-cli's, fishtest's older tests): the usual Elo of the expected
 * score, 1 / (1 + 10^(-elo/400)); the same bound is an easier test where
 * draws are many. */
typedef enum { SPRT_NORMALIZED = 0, SPRT_LOGISTIC = 1 } SprtModel;

/* "normalized" or "logistic". */
const char *sprt_model_name(SprtModel m);

/* An SPRT of the first engine against the second: H0 "Elo is elo0", H1
 * "... is elo1" in the model, error rates alpha and beta. */
typedef struct {
    double elo0, elo1;
    double alpha, beta;
    SprtModel model;
} SprtSettings;

/* The defaults: elo0 0, elo1 5, alpha 0.05, beta 0.05, normalized. */
void sprt_settings_default(SprtSettings *s);

/* Writes s as "elo0=E0 elo1=E1 alpha=A beta=B" (the store's root attribute
 * "sprt"), each number in the shortest form that reads back exactly, and
 * " model=logistic" after them for that model (nothing for the normalized
 * one: the stores written before the model existed read as they did).
 * Returns buf (size n >= 128). */
char *sprt_settings_format(const SprtSettings *s, char *buf, size_t n);

/* Reads what sprt_settings_format writes (keys in any order, separated by
 * blanks or commas; model optional, normalized without it).  Errors
 * (TV_ERR_PARSE): a missing, unknown or repeated key, a number that is not
 * finite, elo0 >= elo1, alpha or beta outside (0, 1), a model that is
 * neither. */
TvStatus sprt_settings_parse(const char *text, SprtSettings *s, TvError *err);

/* SPRT bounds for error rates alpha, beta: lower = log(beta / (1 - alpha)),
 * upper = log((1 - beta) / alpha). */
void sprt_bounds(double alpha, double beta, double *lower, double *upper);

/* fishtest's generalised SPRT log-likelihood ratio for pentanomial counts
 * penta[0..4] (pairs scoring 0, 0.5, 1, 1.5, 2), testing normalized Elo nelo0
 * against nelo1.  For [39, 2226, 31451, 2412, 40] and [0.764, 3.439] it is
 * 2.16294087. */
double sprt_llr_pentanomial(const int64_t penta[5], double nelo0, double nelo1);

/* fishtest's generalised SPRT log-likelihood ratio in the logistic model
 * (LLRcalc.LLR_logistic) for pentanomial counts: the maximum-likelihood
 * distributions of the pair scores a_i = i/4 whose mean is the expected
 * score of elo0 and of elo1 (1 / (1 + 10^(-elo/400))), and LLR = N sum_i
 * phat_i log(p1_i / p0_i). */
double sprt_llr_logistic(const int64_t penta[5], double elo0, double elo1);

/* The LLR of the counts under s (its model and bounds). */
double sprt_llr(const int64_t penta[5], const SprtSettings *s);

/* A bound elo of model `from` in the other model, at the per-pair score
 * deviation of the counts (the deviation that ties the two: normalized Elo
 * is the logistic score's distance from 1/2 in units of it); NAN when the
 * counts have no deviation or the score is out of (0, 1). */
double sprt_other_model(double elo, SprtModel from, const int64_t penta[5]);

/* The expected number of opening pairs before the SPRT of [nelo0, nelo1]
 * with error rates alpha, beta decides, when the true difference is nelo
 * (normalized Elo): Wald's approximation, the LLR a random walk whose step
 * per pair has mean (t1 - t0)(t - (t0 + t1) / 2) and variance (t1 - t0)^2,
 * t the per-pair t-value of each normalized Elo (as sprt_llr_pentanomial);
 * without the truncation of a run's pair limit.  Largest between the
 * bounds: for [0, 10], alpha = beta = 0.05, 5,230 pairs at 5 nElo and 3,200
 * at 0 or 10. */
double sprt_expected_pairs(double nelo0, double nelo1, double alpha, double beta, double nelo);

typedef enum { SPRT_CONTINUE = 0, SPRT_ACCEPT_H0 = 1, SPRT_ACCEPT_H1 = 2 } SprtDecision;

const char *sprt_decision_name(SprtDecision d);

/* LLR against the bounds. */
SprtDecision sprt_decide(double llr, double lower, double upper);

#endif
