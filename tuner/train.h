/* train.h: the gated training loop of `tavreli train CONFIG.ini`.
 *
 * Generation g = 1, 2, ... of a run in directory DIR (results/NAME):
 *   1. self-play: the current best version against itself, every game its
 *      own opening ([openings] per_game), into DIR/gen-G/selfplay.h5
 *      (tournament INI DIR/gen-G/selfplay.ini; the best's engine file is
 *      copied to DIR/gen-G/best.ini);
 *   2. tune on the self-play stores of every generation so far, from the
 *      best: DIR/gen-G/tuned.ini and DIR/gen-G/tune.log (tune_run with
 *      --l2 auto and no hold-out set: the cross-validation over games
 *      judges whether the fit beats the start);
 *   3. when the tuner finds an improvement on unseen games, an SPRT match of
 *      the tuned version (named gen-G) against the best (gen-B) into
 *      DIR/gen-G/sprt.h5; H1 accepted: gen-G becomes the best;
 *   4. the outcome is written to DIR/gen-G/result (an INI [result] section:
 *      outcome = accepted | rejected | inconclusive | no-change, best = the
 *      best's generation afterwards, llr, pairs), written last and renamed
 *      into place, so a generation with a result is complete;
 *   5. an accepted generation is confirmed (with confirm_pairs > 0): gen-G
 *      plays confirm_pairs opening pairs against gen-0 and as many against
 *      the previous best, into DIR/gen-G/confirm-gen-O.h5 (tournament INI
 *      confirm-gen-O.ini); DIR/gen-G/confirmed, written last, marks the
 *      confirmation complete.  The ladder rates gen-G by its games against
 *      gen-0 (train_rung_confirmed), the others are the step beside it.
 * A run that is interrupted (a signal, kill -9) resumes where it stopped:
 * complete generations (and confirmations) are skipped, a store being written is resumed
 * (runner --resume), a tune is redone (it is deterministic).  Generation 0
 * is the start engine (DIR/gen-0/best.ini).
 *
 * The configuration (DIR/train.ini is a copy) is an INI file with one
 * section [train]; its keys are declared once in train.c (TRAIN_KEYS) with
 * their ranges and defaults and documented in docs/tuning.md. */
#ifndef TAVRELI_TRAIN_H
#define TAVRELI_TRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner.h" /* RunProgressFn */
#include "stats.h" /* RatedGame */
#include "status.h"

typedef struct {
    char source[512];   /* the INI path */
    char name[64];      /* results/NAME */
    char engine[512];   /* the start engine INI (resolved against the INI's directory) */
    long generations;   /* generations to run */
    long games;         /* self-play games per generation */
    long depth;         /* search depth of every game */
    long sprt_pairs;    /* the SPRT's largest number of opening pairs */
    double elo0, elo1, alpha, beta; /* the SPRT's bounds (normalized Elo) and error rates */
    long plies;         /* random opening plies */
    long sample_plies;  /* then moves sampled by a softmax of quiescence scores (self-play only) */
    long max_plies;     /* adjudication: a game still going is drawn here */
    long threads;       /* 0: all cores */
    uint64_t seed;
    long confirm_pairs; /* the confirmation's opening pairs against each opponent (0: none) */
    char fixed[512];    /* weights every tune holds at the best's values ("" none; tune --fixed) */
} TrainConfig;

/* Reads a training INI (errors name the file and line: unknown section or
 * key, a bad value, elo0 >= elo1, a missing engine file). */
TvStatus train_read(const char *path, TrainConfig *c, TvError *err);

/* Reads a training INI; with check_engine the start engine must be there
 * (a run's copy DIR/train.ini names it relative to the original INI's
 * directory, so --confirm, which plays gen-0's copy, and `tavreli serve`,
 * which only reads a run, do not check it). */
TvStatus train_read_config(const char *path, TrainConfig *c, bool check_engine, TvError *err);

/* One step of the run, for the front end to print. */
typedef struct {
    int generation;
    const char *stage;  /* "self-play", "tune", "sprt", "result", "skip", "confirm" */
    char text[512];     /* what happened */
} TrainEvent;

typedef struct {
    void (*event)(const TrainEvent *e, void *user); /* may be NULL */
    void *user;
    volatile sig_atomic_t *stop; /* set by a signal handler: the run stops after flushing (may be NULL) */
    /* The games' progress, as RunOptions takes them (each may be NULL):
     * every self-play, SPRT and confirmation match reports through them
     * with progress_user (a generation's 2,000 games take an hour) */
    RunProgressFn progress;
    RunRefereeFn referee;
    void (*note)(const char *text, void *user);
    void *progress_user;
} TrainCallbacks;

/* What train_run did. */
typedef struct {
    int generations_done; /* complete generations (all of them unless interrupted) */
    int best;             /* the best's generation at the end */
    bool interrupted;
} TrainOutcome;

/* Runs (or resumes) the training in dir (made when missing; DIR/train.ini
 * holds the configuration, and a resume with other settings is refused,
 * naming the first differing line).  Errors: those of self-play, the tuner
 * and the store; an unwritable dir. */
TvStatus train_run(const TrainConfig *c, const char *config_text, const char *dir, const TrainCallbacks *cb,
                   TrainOutcome *out, TvError *err);

/* `tavreli train --confirm DIR`: plays the confirmation (step 5 above) of
 * every accepted generation of the existing run in dir that has none yet,
 * with the confirm_pairs of DIR/train.ini (the key's default when it is 0
 * or missing there); no new generation is started.  Resumable as train_run
 * is.  Errors: dir is not a training folder, a damaged train.ini or
 * result, those of self-play. */
TvStatus train_confirm(const char *dir, const TrainCallbacks *cb, TrainOutcome *out, TvError *err);

/* True when dir holds a training run (DIR/train.ini and DIR/gen-0). */
bool train_is_dir(const char *dir);

/* How a rung of the ladder was measured. */
typedef enum {
    RUNG_REFERENCE,    /* generation 0: 0 by definition */
    RUNG_CONFIRMATION, /* its confirmation games against gen-0 (train_rung_confirmed) */
    RUNG_SPRT_CHAIN,   /* not confirmed: the fit of the SPRT games (a chain of early-stopped steps) */
} TrainRungMethod;

/* One rung of the ladder: an accepted generation (and generation 0). */
typedef struct {
    int generation;
    double elo, lo, hi;     /* Elo against generation 0 with its 95% interval (a perfect score:
                             * elo the one-sided 95% bound, the open end +-INFINITY) */
    TrainRungMethod method;
    int64_t games;          /* the games of its method that it played (confirmation: against gen-0) */
    int vs_prev;            /* confirmation: the previous best it also played (-1: only gen-0) */
    /* confirmation: its games against vs_prev, Elo from their score with the
     * 95% half-width (NAN otherwise; +-INFINITY for a perfect score) */
    double step, step_err;
} TrainRung;

/* The method of a rung in words: "its confirmation games against gen-0
 * (score Elo)"; buf of n >= 96 bytes. */
const char *train_rung_method(const TrainRung *r, char *buf, size_t n);

/* The step column of a rung: "+106 ± 50 vs gen-1" (stats_fmt_elo_pm), "all
 * won vs gen-1" or "all lost vs gen-1" for a perfect score, "-" without; buf
 * of n >= 48. */
const char *train_rung_step(const TrainRung *r, char *buf, size_t n);

/* The rung of confirmed generation g from its confirmation games (players
 * are generations: g against gen-0, and against prev when prev > 0): the
 * Elo of g's score against gen-0 with its 95% interval (as `tavreli
 * selfplay` prints a match), the games against prev as the step beside it.
 * Errors: no games of g against gen-0. */
TvStatus train_rung_confirmed(const RatedGame *games, int64_t n, int g, int prev, TrainRung *r, TvError *err);

/* The Elo ladder of a training directory: every accepted generation's Elo
 * against generation 0 with its 95% interval.  A confirmed generation is
 * rated by its own confirmation games against gen-0 (train_rung_confirmed);
 * a generation without a complete confirmation by one fit (BayesElo's
 * model) of the SPRT games (only the pairs each SPRT's decision counted),
 * which chains early-stopped steps and is biased away from 0.  Fills rungs
 * (heap, *nrungs; free()).  Errors: not a training folder, no complete
 * generation, a damaged store. */
TvStatus train_ladder(const char *dir, TrainRung **rungs, int *nrungs, TvError *err);

/* What a ladder was made of, for its document (report/ladder.h). */
typedef struct {
    int ngen;              /* complete generations */
    int64_t sprt_games;    /* the games the SPRTs' decisions counted */
    int64_t confirm_games; /* the confirmation games */
    int nconfirmed;        /* confirmed generations */
} TrainLadderInfo;

/* train_ladder, and what it was made of.  The ladder's document
 * (ladder.md, report.html, elo.png) is report/'s (report/ladder.h). */
TvStatus train_ladder_info(const char *dir, TrainRung **rungs, int *nrungs, TrainLadderInfo *info, TvError *err);

/* One complete generation of a run, as DIR/gen-G/result says. */
typedef struct {
    int generation;
    char outcome[32]; /* accepted | rejected | inconclusive | no-change */
    long best;        /* the best's generation afterwards */
    double llr;
    long pairs;       /* the SPRT's opening pairs */
    bool confirmed;   /* accepted, and its confirmation is complete */
} TrainGeneration;

/* Reads generation g's result; *have false when g is not complete.
 * Errors: a damaged result file (named, with the advice to delete it). */
TvStatus train_read_generation(const char *dir, int g, TrainGeneration *gen, bool *have, TvError *err);

#endif
