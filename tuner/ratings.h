/* ratings.h: Elo ratings of engine versions from game results, and the SPRT.
 *
 * Ratings: maximum likelihood of a Bradley-Terry model with a draw parameter
 * (BayesElo's model: with f(x) = 1 / (1 + 10^(-x/400)),
 *   P(i beats j) = f(elo_i - elo_j - draw_elo),
 *   P(j beats i) = f(elo_j - elo_i - draw_elo),
 *   P(draw)      = 1 - the two,
 * with White's advantage left out: games are paired with colours reversed),
 * fitted with GSL.  Elo values are relative: their mean is 0.
 *
 * SPRT: fishtest's generalised SPRT on pentanomial counts, with bounds in
 * normalized Elo. */
#ifndef TAVRELI_RATINGS_H
#define TAVRELI_RATINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* One game for the ratings. */
typedef struct {
    int white, black; /* player indices */
    int result;       /* 1 White won, 0 draw, -1 Black won */
    int64_t pair;     /* games of one opening pair share this id (-1: not paired) */
} RatedGame;

typedef struct {
    int n;             /* players */
    double *elo;       /* n: mean 0 */
    double *lo, *hi;   /* n: 95% interval */
    double draw_elo;   /* the fitted draw parameter */
    double *cov;       /* n x n covariance of elo (row-major) */
    double *los;       /* n x n: los[i*n+j] = likelihood that i is stronger than j */
    int iterations;
    bool simulated;    /* intervals from simulated replays instead of the covariance */
} Ratings;

/* Fits the ratings of nplayers players from games.  With simulations > 0,
 * the 95% intervals come from that many simulated replays of the same
 * schedule drawn from the fitted model (seeded), instead of the covariance.
 * Errors: fewer than 2 players with games, no games, a GSL failure (its text
 * in the message).  The result does not depend on the order of the games. */
TvStatus ratings_fit(const RatedGame *games, int64_t ngames, int nplayers, int simulations, uint64_t seed,
                     Ratings *out, TvError *err);

void ratings_free(Ratings *r);

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

void pairing_stats(const RatedGame *games, int64_t ngames, int a, int b, PairingStats *out);

/* The closed form: Elo difference of a score (0 < score < 1). */
double elo_from_score(double score);

/* SPRT bounds for error rates alpha, beta: lower = log(beta / (1 - alpha)),
 * upper = log((1 - beta) / alpha). */
void sprt_bounds(double alpha, double beta, double *lower, double *upper);

/* fishtest's generalised SPRT log-likelihood ratio for pentanomial counts
 * penta[0..4] (pairs scoring 0, 0.5, 1, 1.5, 2), testing normalized Elo nelo0
 * against nelo1.  For [39, 2226, 31451, 2412, 40] and [0.764, 3.439] it is
 * 2.16294087. */
double sprt_llr_pentanomial(const int64_t penta[5], double nelo0, double nelo1);

typedef enum { SPRT_CONTINUE = 0, SPRT_ACCEPT_H0 = 1, SPRT_ACCEPT_H1 = 2 } SprtDecision;

const char *sprt_decision_name(SprtDecision d);

/* LLR against the bounds. */
SprtDecision sprt_decide(double llr, double lower, double upper);

#endif
