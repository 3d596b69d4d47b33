/* tune.h: fitting the evaluation weights to game results (Texel tuning).
 *
 * Every stored position is resolved to a quiet one (search_quiet, with the
 * START engine's weights and the store's rules); the feature vector of that
 * leaf (eval_trace) is computed once and kept sparse.  Since the evaluation
 * is linear in its weights, eval = trace . weights, and the loss
 *
 *   L(w) = mean_i (y_i - sigmoid(K * f_i . w))^2  +  l2 * sum_j (w_j - w0_j)^2
 *
 * (y_i the game result from the stored position's side to move: 1, 0.5, 0;
 * sigmoid(x) = 1 / (1 + exp(-x)); eval in centi-combatants) and its gradient
 * are sparse dot products, computed with OpenMP over positions.  K is fitted
 * first with the START weights (GSL Brent), then the chosen weights with GSL's
 * vector BFGS (see tune.c for the bounds and the preconditioning).
 *
 * No global mutable state, except that tune_fit switches GSL's error handler
 * off (tuner_gsl_errors_off in gsl_util.h: the handler is process-wide in
 * GSL) so that GSL failures come back as TvErrors with GSL's text. */
#ifndef TAVRELI_TUNE_H
#define TAVRELI_TUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "eval.h"
#include "status.h"

/* One non-zero feature: weight element index and its count. */
typedef struct {
    int16_t idx;
    int16_t val;
} TuneEntry;

/* Positions with sparse feature vectors (CSR layout): position i has the
 * entries ent[row[i]] .. ent[row[i + 1] - 1]. */
typedef struct {
    int64_t n, cap;          /* positions */
    int64_t nnz, cap_nnz;    /* entries */
    int64_t *row;            /* n + 1 */
    TuneEntry *ent;
    uint8_t *label2;         /* 2 * result: 0 loss, 1 draw, 2 win */
    int32_t *game;           /* game number (tuner-wide, 0 .. ngames - 1) */
    int32_t ngames;          /* 1 + the largest game number */
} TuneSet;

void tune_set_init(TuneSet *s);
void tune_set_free(TuneSet *s);

/* Appends a position: its feature vector times sign (+1 or -1), its result
 * (0, 0.5 or 1) and game.  Errors: a feature count outside int16, a bad
 * result, out of memory. */
TvStatus tune_set_add(TuneSet *s, const EvalTrace *t, int sign, double result, int32_t game, TvError *err);

/* Appends position i of src. */
TvStatus tune_set_add_from(TuneSet *s, const TuneSet *src, int64_t i, TvError *err);

/* trace . w of position i (w has EVAL_NWEIGHTS elements). */
double tune_set_dot(const TuneSet *s, int64_t i, const double *w);

/* Bytes held by the set (its arrays as used, not their capacity). */
size_t tune_set_bytes(const TuneSet *s);

/* Resolves pos to its quiescence leaf with ctx (search_quiet) and fills
 * trace with the leaf's feature vector as seen from pos's side to move
 * (negated when the leaf's side to move differs).  *qscore receives the
 * quiescence score, *leaf_out the leaf (both may be NULL). */
void tune_resolve(SearchContext *ctx, const Position *pos, const Options *rules, EvalTrace *trace,
                  int *qscore, Position *leaf_out);

/* Resolves n positions (OpenMP, one search context per thread, with the
 * params and rules given) and appends them with their results and games.
 * Positions whose quiescence score is a mate score are skipped (counted in
 * *skipped, may be NULL). */
TvStatus tune_add_positions(TuneSet *s, const Position *pos, const double *result, const int32_t *game, int64_t n,
                            const EvalParams *params, const Options *rules, int64_t *skipped, TvError *err);

/* Reads the positions of the stores (h5store_read) and resolves them with
 * the START engine and each store's rules.  Game numbers run over all files.
 * Errors: h5store_read's, a bad TFEN or result in a store, no positions. */
TvStatus tune_load(const char *const *files, int nfiles, const EngineVersion *start, TuneSet *out, int64_t *skipped,
                   TvError *err);

/* Splits by whole games, seeded: about `holdout` of the games (at least one
 * when holdout > 0 and there are two games or more; never all) go to hold,
 * the rest to fit.  Deterministic for a seed. */
TvStatus tune_split(const TuneSet *all, double holdout, uint64_t seed, TuneSet *fit, TuneSet *hold, TvError *err);

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

/* Fits K with weights w: minimises tune_loss over K (grid in log K, then
 * GSL's Brent minimiser). */
TvStatus tune_fit_k(const TuneSet *s, const double *w, double *K, TvError *err);

typedef struct {
    int iter;
    double fit_loss;     /* MSE of the fit set */
    double holdout_loss; /* MSE of the hold-out set (NAN without one) */
    double objective;    /* what is minimised: fit MSE + l2 term + bound penalty */
    float w[EVAL_NWEIGHTS]; /* the weights after this iteration (the weight path) */
} TuneIteration;

typedef struct {
    bool free[EVAL_NWEIGHTS]; /* weights to fit (others stay at the start) */
    double l2;                /* lambda of the pull to the start weights */
    double fixed_k;           /* > 0: use this K instead of fitting it */
    int bootstrap;            /* refits on games resampled with replacement */
    uint64_t seed;            /* for the bootstrap */
    int max_iter;             /* 0: 500 */
    /* Called after every iteration (iter 0: the start), may be NULL. */
    void (*progress)(const TuneIteration *it, void *user);
    void *user;
} TuneOptions;

void tune_options_default(TuneOptions *o);

typedef struct {
    double K;
    double start[EVAL_NWEIGHTS];   /* start weights */
    double fitted[EVAL_NWEIGHTS];  /* real-valued optimum (start where not free) */
    int rounded[EVAL_NWEIGHTS];    /* fitted, rounded and clamped to the bounds */
    double se[EVAL_NWEIGHTS];      /* standard error (0: not fitted or at a bound) */
    double boot_sd[EVAL_NWEIGHTS]; /* bootstrap sd (0 without --bootstrap) */
    bool free[EVAL_NWEIGHTS];      /* fitted */
    bool no_data[EVAL_NWEIGHTS];   /* asked for but the feature is always 0: kept */
    bool at_bound[EVAL_NWEIGHTS];
    int nfree;
    double fit_loss0, hold_loss0;  /* MSE with the start weights (and K) */
    double fit_loss1, hold_loss1;  /* MSE with the fitted weights */
    double fit_loss_rounded, hold_loss_rounded; /* MSE with the rounded weights */
    double residual_var;           /* sum of squared residuals / (n - p) */
    int iterations;
    int boot_done;
    double seconds;
    const char *stop_reason;       /* constant string */
    TuneIteration *history;        /* heap, nhistory (iter 0 first) */
    int nhistory;
} TuneResult;

/* Fits the free weights of opt on fit (hold may be NULL or empty: its loss
 * is then NAN).  start: the start weights.  Errors: an empty fit set, no
 * free weight, a GSL failure (its text). */
TvStatus tune_fit(const TuneSet *fit, const TuneSet *hold, const EvalParams *start, const TuneOptions *opt,
                  TuneResult *out, TvError *err);

void tune_result_free(TuneResult *r);

/* Writes the tuning log (tuner/report.h's format). */
TvStatus tune_write_log(const char *path, const TuneResult *r, const char *header, TvError *err);

/* The comment block for the engine INI (heap string). */
char *tune_ini_comment(const TuneResult *r, const char *header);

/* ---- the whole command ---------------------------------------------------- */

typedef struct {
    const char *const *files;
    int nfiles;
    const char *engine;  /* START engine INI */
    const char *out;     /* NEW engine INI */
    const char *log;     /* NULL: derived from out (see tune_default_log_path) */
    const char *groups;  /* NULL: all */
    double holdout;      /* 0.1 */
    uint64_t seed;
    double l2;
    int bootstrap;
    int max_iter;
    FILE *msg;           /* progress and summary (may be NULL) */
} TuneArgs;

void tune_args_default(TuneArgs *a);

/* out without ".ini" plus ".tuning.log" (or out + ".tuning.log"). */
void tune_default_log_path(const char *out, char *buf, size_t n);

/* Load, split, fit, write the INI and the log. */
TvStatus tune_run(const TuneArgs *a, TvError *err);

/* n positions from random legal walks of 2 to 80 plies from the start
 * position (seeded; a walk that reaches the end of a game starts again). */
void tune_random_walks(int64_t n, uint64_t seed, const Options *rules, Position *out);

/* ---- benchmark ------------------------------------------------------------ */

typedef struct {
    int64_t positions;        /* in the benchmark set */
    double bytes_per_position;
    double loss_grad_pps;     /* positions per second of loss + gradient */
    int threads;
    double fit_seconds;       /* a full fit of all free weights */
    int fit_iterations;
    double fit_loss0, fit_loss1;
} TuneBench;

/* Replicates the feature vectors of `base` real positions (random walks
 * from the start position, resolved) to n positions with labels drawn from
 * the model, then times loss + gradient and a full fit. */
TvStatus tune_bench(int64_t n, int base, uint64_t seed, TuneBench *out, TvError *err);

#endif
