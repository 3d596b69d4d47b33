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
 * first with the START weights (GSL Brent), then the chosen weights by
 * projected Newton on the box of bounds (see tune_fit.c).
 *
 * The parts: tune_data.h (the data set: loading, the split), tune_fit.h (the
 * loss, K, the fit), tune_log.h (the tuning log: writer and reader; the INI
 * comment); this header adds the whole command and the benchmark.
 *
 * No global mutable state, except that tune_fit switches GSL's error handler
 * off (stats_gsl_errors_off in gsl_util.h: the handler is process-wide in
 * GSL) so that GSL failures come back as TvErrors with GSL's text. */
#ifndef TAVRELI_TUNE_H
#define TAVRELI_TUNE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "eval.h"
#include "status.h"
#include "tune_data.h" /* TuneSet, loading, the split, random walks */
#include "tune_fit.h"  /* the loss, K, the weight fit */
#include "tune_log.h"  /* the tuning log, the INI comment */

/* ---- the whole command ---------------------------------------------------- */

typedef struct {
    const char *const *files;
    int nfiles;
    const char *engine;  /* START engine INI */
    const char *out;     /* NEW engine INI */
    const char *log;     /* NULL: derived from out (see tune_default_log_path) */
    const char *groups;  /* NULL: all */
    const char *fixed;   /* NULL: none; weights held at the start (tune_fixed_parse) */
    double holdout;      /* 0.1 */
    uint64_t seed;
    double l2;           /* used when !l2_auto */
    bool l2_auto;        /* the L2 strength by cross-validation over games (the default) */
    int bootstrap;
    int max_iter;
    bool mix_rules;      /* stores of other rule options may be tuned on together */
    const char *program; /* how the summary's SPRT command runs this program (default "tavreli"; the
                            front end gives the path it was run as) */
    const volatile sig_atomic_t *stop; /* set by a signal handler (may be NULL): tune_run stops within
                                          milliseconds (tune_load_stoppable, TuneOptions.stop) */
} TuneArgs;

/* What tune_run did, for the front end to print. */
typedef struct {
    int64_t positions;         /* resolved to quiet leaves */
    int64_t skipped;           /* skipped: their quiescence score is a mate score */
    int64_t duplicate_games;   /* games held by an earlier store too, read once */
    int64_t torn_rows;         /* rows of appends a crash cut short, left out */
    int64_t duplicate_positions; /* positions seen before with the same result, left out */
    int64_t fit, hold;         /* positions in the fit and hold-out sets (split by games) */
    double load_seconds;
    double bytes_per_position;
    char log_path[1024];       /* where the tuning log went */
    char *summary;             /* heap: the fit's summary, as written into NEW.ini's comments */
    bool improved;             /* NEW.ini holds fitted weights that beat the start on unseen games (or
                                  nothing could judge: improvement_checked false); false: the start's */
    bool improvement_checked;
    double hold_loss0, hold_loss1; /* hold-out MSE of the start and of the fitted (rounded) weights (NAN: none) */
    bool l2_auto;              /* the L2 strength was cross-validated: */
    double cv_loss0, cv_loss1; /* ... validation MSE of the start and of the chosen strength */
    bool interrupted;          /* *TuneArgs.stop was set: tune_run ended early (TV_OK) and wrote nothing */
} TuneRunReport;

/* Callbacks of tune_run (each may be NULL): `loaded` once the data set is
 * loaded and split (positions, fit, hold known), `iteration` after every
 * accepted step of the minimiser. */
typedef struct {
    void (*loaded)(const TuneRunReport *r, void *user);
    void (*iteration)(const TuneIteration *it, void *user);
    void *user;
} TuneCallbacks;

/* No files or outputs, hold-out 0.1, seed 1, L2 auto, the rest 0 / NULL. */
void tune_args_default(TuneArgs *a);

/* out without ".ini" plus ".tuning.log" (or out + ".tuning.log"). */
void tune_default_log_path(const char *out, char *buf, size_t n);

/* Load, split, fit, write the INI and the log; fills *out (free it with
 * tune_run_report_free, also after an error).  When a->stop is set before
 * the outputs are written: TV_OK with out->interrupted, nothing written. */
TvStatus tune_run(const TuneArgs *a, const TuneCallbacks *cb, TuneRunReport *out, TvError *err);

void tune_run_report_free(TuneRunReport *r);

/* ---- benchmark ------------------------------------------------------------ */

typedef struct {
    int64_t positions;        /* in the benchmark set */
    double bytes_per_position;
    double loss_grad_pps;     /* positions per second of loss + gradient */
    double resolve_pps;       /* random-walk positions per second resolved (quiescence + trace) */
    int64_t store_positions;  /* with a store: its positions (read, resolved, duplicates left out) */
    double store_pps;         /* ... per second: the whole of tune_load (read, parse, resolve) */
    int threads;
    double fit_seconds;       /* a full fit of all free weights */
    int fit_iterations;
    double fit_loss0, fit_loss1;
} TuneBench;

/* Replicates the feature vectors of `base` real positions (random walks
 * from the start position, resolved) to n positions with labels drawn from
 * the model, then times loss + gradient and a full fit. */
TvStatus tune_bench(int64_t n, int base, uint64_t seed, TuneBench *out, TvError *err);

/* Times tune_load on a store (its stored positions, read, parsed and
 * resolved with the default engine, over at least a second) into
 * out->store_positions and out->store_pps. */
TvStatus tune_bench_store(const char *path, TuneBench *out, TvError *err);

#endif
