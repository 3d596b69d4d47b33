/* ratings.h: Elo ratings of engine versions from game results.
 *
 * Ratings: maximum likelihood of a Bradley-Terry model with a draw parameter
 * (BayesElo's model: with f(x) = 1 / (1 + 10^(-x/400)),
 *   P(i beats j) = f(elo_i - elo_j - draw_elo),
 *   P(j beats i) = f(elo_j - elo_i - draw_elo),
 *   P(draw)      = 1 - the two,
 * with White's advantage left out: games are paired with colours reversed),
 * fitted with GSL.  Elo values are relative: their mean is 0.
 *
 * One pairing's statistics, the SPRT and the Elo formatter are in stats.h,
 * beside it. */
#ifndef TAVRELI_RATINGS_H
#define TAVRELI_RATINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h" /* RatedGame, pairing statistics and the SPRT */
#include "status.h"

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

#endif
