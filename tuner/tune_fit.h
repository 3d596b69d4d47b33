/* tune_fit.h: the tuner's loss, the fit of K and of the weights, standard
 * errors and the bootstrap (see tune.h for the model, tune_fit.c for the
 * method).  Part of tune.h. */
#ifndef TAVRELI_TUNE_FIT_H
#define TAVRELI_TUNE_FIT_H

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "eval.h"
#include "status.h"
#include "tune_data.h"

/* A weight whose feature occurs in fewer games of the fit set than this
 * keeps its start value: what a handful of games say about it is noise
 * (on one game every weight fits it "perfectly" somewhere). */
#define TUNE_MIN_GAMES 10
/* ... or in fewer positions than this: a standard error from a handful of
 * positions (a rare Helgi seen 33 times) is not to be trusted. */
#define TUNE_MIN_POSITIONS 100

/* The model's sigmoid: the expected result of eval x (scaled by K). */
static inline double tune_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* Mean squared error of s at weights w (EVAL_NWEIGHTS) and scale K; with
 * game_weight (indexed by game number; NULL = all 1) a weighted mean.  When
 * grad is not NULL it receives dMSE/dw (EVAL_NWEIGHTS).  The sum is taken in
 * a fixed order, so the result does not depend on the number of threads.
 * Returns NAN for an empty set. */
double tune_loss(const TuneSet *s, const double *w, double K, const float *game_weight, double *grad);

/* Parses a comma-separated list of groups (weights.def's group column) into
 * mask (EVAL_NWEIGHTS; true = free); NULL or "" or "all" selects every
 * weight.  Error: an unknown group (the message lists the known ones). */
TvStatus tune_groups_parse(const char *groups, bool *mask, TvError *err);

/* Parses a comma-separated list of weight names into mask (EVAL_NWEIGHTS;
 * true = named): an element ("top_value[1]", or "tempo" for a scalar) or a
 * whole array ("top_value": all its elements); spaces around names are
 * skipped.  NULL or "" names none.  Error: an unknown name or a bad index
 * (the message says which and how names are written), or a name given
 * twice. */
TvStatus tune_fixed_parse(const char *list, bool *mask, TvError *err);

/* Fits K with weights w: minimises tune_loss over K (grid in log K, then
 * GSL's Brent minimiser). */
TvStatus tune_fit_k(const TuneSet *s, const double *w, double *K, TvError *err);

typedef struct {
    int iter;
    double fit_loss;     /* MSE of the fit set */
    double holdout_loss; /* MSE of the hold-out set (NAN without one) */
    double objective;    /* what is minimised: fit MSE + l2 term */
    float w[EVAL_NWEIGHTS]; /* the weights after this iteration (the weight path) */
} TuneIteration;

typedef struct {
    bool free[EVAL_NWEIGHTS]; /* weights to fit (others stay at the start) */
    bool fixed[EVAL_NWEIGHTS]; /* held at the start even when free (anchors the scale): out of the fit */
    double l2;                /* lambda of the pull to the start weights (unless l2_auto) */
    bool l2_auto;             /* choose l2 by cross-validation over games (cv_folds folds) */
    int cv_folds;             /* 0: 5 */
    double fixed_k;           /* > 0: use this K instead of fitting it */
    int bootstrap;            /* refits on games resampled with replacement */
    uint64_t seed;            /* for the bootstrap */
    int max_iter;             /* 0: 500 */
    /* Called after every iteration (iter 0: the start), may be NULL. */
    void (*progress)(const TuneIteration *it, void *user);
    void *user;
    /* Set by a signal handler (may be NULL): looked at before every step of
     * the minimiser (the cross-validation's, the fit's, the bootstrap's
     * fits) and before K's fit and the standard errors; when set, tune_fit
     * ends with an error ("stopped by a signal ...") and nothing in *out. */
    const volatile sig_atomic_t *stop;
} TuneOptions;

/* Every weight free, no l2, K fitted, no bootstrap, seed 0, 500 iterations
 * at most, no progress callback. */
void tune_options_default(TuneOptions *o);

/* Strengths of the L2 pull tried by --l2 auto (the last is 0). */
#define TUNE_CV_GRID 13

/* Fewer games than this per fitted weight draw a warning from the summary.
 * Measured on depth-2 self-play (61 weights, seeds 1-3 of the split): at
 * 4.4 and 8.9 games per weight the verdict (hold-out loss) changed with the
 * seed, at 13.3 and 17.7 it did not (docs/tuning.md, "Small data"). */
#define TUNE_WARN_GAMES_PER_WEIGHT 10

/* Two fitted weights whose estimates correlate beyond this (|r|, from the
 * game-clustered covariance) trade off against each other: the data fix
 * their combination, not each value (docs/tuning.md).  0.8: r^2 = 0.64,
 * so knowing one estimate explains two thirds of the other's variance. */
#define TUNE_CORR_REPORT 0.8
/* The strongest pairs kept (the count of all is kept too). */
#define TUNE_CORR_MAX 32

/* A group of weights (core/weights.def's group) trades off as a whole when
 * the condition number of its estimates' correlation matrix exceeds this:
 * some combination of them is then fixed this many times worse (in
 * variance) than another, though no single pair need pass
 * TUNE_CORR_REPORT (six weights with pairwise r = 0.7 reach 15).  9 is
 * what a pair at TUNE_CORR_REPORT has, (1 + 0.8) / (1 - 0.8): the same
 * bar for a group as for a pair. */
#define TUNE_COND_REPORT 9.0
/* Weights of a group named in its loosest combination (largest |coef| first). */
#define TUNE_GROUP_SHOW 6
/* Groups of weights.def (at most), with the line of all weights. */
#define TUNE_GROUPS_MAX 16
/* The group name of the line of every adopted weight (after the groups). */
#define TUNE_GROUP_ALL "all"

/* The joint uncertainty of a group's estimates: the fitted weights of one
 * core/weights.def group that have a standard error (not at a bound, not
 * poorly determined). */
typedef struct {
    const char *group;  /* weights.def's group name (static) */
    int n;              /* its weights in the covariance */
    double cond;        /* condition number of their estimates' correlation matrix (1: independent) */
    double spread;      /* sqrt of that matrix's largest eigenvalue: the loosest combination of the
                           estimates, each in its own standard errors, spreads this many times as much
                           as independent estimates would (1: independent) */
    int nshow;          /* weights named in the combination */
    int idx[TUNE_GROUP_SHOW];      /* weight elements, largest |coef| first */
    double coef[TUNE_GROUP_SHOW];  /* the unit eigenvector's components, per standard error of each
                                      weight (sign: the largest positive) */
} TuneGroupTradeoff;

typedef struct {
    int a, b;  /* weight elements, a < b in weights.def order */
    double r;  /* the correlation of their estimates */
} TuneCorrPair;

typedef struct {
    double K;
    double l2;                     /* the strength used (chosen by cross-validation when l2_auto) */
    bool l2_auto;                  /* l2 was chosen by cross-validation */
    bool cv_too_few_games;         /* l2 auto asked for, but the fit set has one game: l2 0 */
    int ncv, cv_folds;             /* the cross-validation: strengths tried, folds of games */
    double cv_l2[TUNE_CV_GRID];    /* strongest first, the last 0 */
    double cv_loss[TUNE_CV_GRID], cv_se[TUNE_CV_GRID]; /* mean validation MSE over the folds, its error */
    double cv_start_loss, cv_start_se; /* the same for the start weights (an infinite pull) */
    bool improved;                 /* the fitted (rounded) weights predict held-out games better than the
                                      start's: the hold-out loss, or without a hold-out set the
                                      cross-validated loss, is lower; otherwise rounded keeps the start */
    bool improvement_checked;      /* false: neither a hold-out set nor cross-validation to judge by */
    double start[EVAL_NWEIGHTS];   /* start weights */
    double fitted[EVAL_NWEIGHTS];  /* real-valued optimum (start where not free) */
    int rounded[EVAL_NWEIGHTS];    /* fitted, rounded and clamped to the bounds */
    double se[EVAL_NWEIGHTS];      /* standard error, game-clustered sandwich at the fit's L2 (0: not fitted
                                      or at a bound) */
    double se_positions[EVAL_NWEIGHTS]; /* the same with positions taken as independent (too small:
                                           positions of one game share its result); for comparison */
    double boot_sd[EVAL_NWEIGHTS]; /* bootstrap sd (0 without --bootstrap) */
    bool free[EVAL_NWEIGHTS];      /* fitted */
    bool no_data[EVAL_NWEIGHTS];   /* asked for but the feature is always 0: kept */
    bool at_bound[EVAL_NWEIGHTS];   /* on its bound (no standard error) */
    bool near_bound[EVAL_NWEIGHTS]; /* within rounding of its bound (less than 1.5 away) */
    bool undetermined[EVAL_NWEIGHTS]; /* the data cannot fix it (infinite stderr, or its feature seen in
                                         fewer than TUNE_MIN_GAMES games or TUNE_MIN_POSITIONS
                                         positions): poorly determined, rounded keeps the start */
    bool fixed[EVAL_NWEIGHTS];     /* held at the start value by TuneOptions.fixed: left out of the fit */
    double *cov;                   /* heap, EVAL_NWEIGHTS^2: the game-clustered covariance of the estimates
                                      (cov[i * EVAL_NWEIGHTS + j]) among the fitted weights with a finite
                                      standard error, NAN elsewhere; NULL when none */
    TuneCorrPair corr[TUNE_CORR_MAX]; /* pairs with |r| > TUNE_CORR_REPORT, strongest first, of weights
                                      whose fit is adopted (not poorly determined, not held at a bound) */
    int ncorr, ncorr_all;          /* kept, and found (ncorr_all - ncorr beyond TUNE_CORR_MAX) */
    TuneGroupTradeoff groups[TUNE_GROUPS_MAX]; /* per weights.def group with two such weights or more,
                                                  in weights.def order, then TUNE_GROUP_ALL (every such
                                                  weight, when they are of two groups or more) */
    int ngroups;
    int32_t fit_games;             /* games of the fit set */
    int64_t fit_positions;         /* positions of the fit set */
    int moved_2se;                 /* fitted weights (finite error, not on a bound) moved by more than 2
                                      standard errors from the start */
    int32_t feature_games[EVAL_NWEIGHTS]; /* games of the fit set in which the weight's feature occurs */
    int64_t feature_positions[EVAL_NWEIGHTS]; /* ... and positions */
    int nfree;
    double fit_loss0, hold_loss0;  /* MSE with the start weights (and K) */
    double fit_loss1, hold_loss1;  /* MSE with the fitted weights */
    double fit_loss_rounded, hold_loss_rounded; /* MSE with the rounded weights */
    double residual_var;           /* sum of squared residuals / (n - p) */
    int iterations;
    int boot_done;
    double seconds;
    const char *stop_reason;       /* constant string */
    double pgnorm, pgtol;          /* the final projected gradient's norm (Gauss-Newton metric) and the
                                      tolerance it was held to */
    TuneIteration *history;        /* heap, nhistory (iter 0 first) */
    int nhistory;
} TuneResult;

/* Fits the free weights of opt on fit (hold may be NULL or empty: its loss
 * is then NAN).  start: the start weights.  Errors: an empty fit set, no
 * free weight, a GSL failure (its text). */
TvStatus tune_fit(const TuneSet *fit, const TuneSet *hold, const EvalParams *start, const TuneOptions *opt,
                  TuneResult *out, TvError *err);

/* Frees the result's history (the rest is held in the struct). */
void tune_result_free(TuneResult *r);

#endif
