/* tune_fit_internal.h: what the files of the fit share (tune_loss.c: the
 * loss, its derivatives and K; tune_se.c: the standard errors; tune_fit.c:
 * the weight fit and the L2 strength).  Included by those files only. */
#ifndef TAVRELI_TUNE_FIT_INTERNAL_H
#define TAVRELI_TUNE_FIT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "tune_fit.h"

#define NW EVAL_NWEIGHTS
#define LOSS_CHUNKS 128 /* fixed: the sums do not depend on the thread count */
#define GN_CHUNKS 16
/* A GSL failure: what failed, then GSL's text (stats_gsl_fail). */
#define TUNE_GSL_MSG "tune: %s: GSL error: %s"

/* Gauss-Newton sums over the free weights F (fidx[0..p-1]):
 * A = sum m (s' K)^2 f_F f_F^T, B = sum m r^2 (s' K)^2 f_F f_F^T (B may be
 * NULL), and sum m r^2, sum m.  A and B are p x p (row-major, full). */
void tune_gn_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p, double *A,
                  double *B, double *rss, double *wsum);

/* tune_gn_sums, or with exact the whole second derivative in A:
 * sum m ((s' K)^2 - r s'' K^2) f_F f_F^T, s'' = s' (1 - 2 s). */
void tune_hess_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p, bool exact,
                    double *A, double *B, double *rss, double *wsum);

/* The loss of the hold-out set at w (NAN without one). */
double tune_hold_loss(const TuneSet *hold, const double *w, double K);

/* The standard errors of the fitted weights w (free weights fidx[0..p-1])
 * at scale K and pull l2: clustered by game into se, per position into
 * se_positions, the residual variance into *resvar, the clustered
 * covariance into out->cov (allocated here; tune_se.c tells how). */
TvStatus tune_covariance(const TuneSet *s, const double *w, double K, double l2, const int *fidx, int p, double *se,
                         double *se_positions, double *resvar, TuneResult *out, TvError *err);

/* From out->cov, once out->undetermined and out->at_bound are set: the
 * strongly correlated pairs (out->corr) and each group's joint uncertainty
 * (out->groups) among the weights whose fit is adopted.  Errors: a GSL
 * failure of an eigen-decomposition, out of memory. */
TvStatus tune_tradeoffs(TuneResult *out, TvError *err);

/* For each weight, the number of games and of positions of s in which its
 * feature occurs. */
void tune_count_feature_games(const TuneSet *s, int32_t *games, int64_t *positions);

#endif
