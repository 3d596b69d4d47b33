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
 *      into place, so a generation with a result is complete.
 * A run that is interrupted (a signal, kill -9) resumes where it stopped:
 * complete generations are skipped, a store being written is resumed
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
#include <stdint.h>

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
    char fixed[512];    /* weights every tune holds at the best's values ("" none; tune --fixed) */
} TrainConfig;

/* Reads a training INI (errors name the file and line: unknown section or
 * key, a bad value, elo0 >= elo1, a missing engine file). */
TvStatus train_read(const char *path, TrainConfig *c, TvError *err);

/* One step of the run, for the front end to print. */
typedef struct {
    int generation;
    const char *stage;  /* "self-play", "tune", "sprt", "result", "skip" */
    char text[512];     /* what happened */
} TrainEvent;

typedef struct {
    void (*event)(const TrainEvent *e, void *user); /* may be NULL */
    void *user;
    volatile sig_atomic_t *stop; /* set by a signal handler: the run stops after flushing (may be NULL) */
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

/* True when dir holds a training run (DIR/train.ini and DIR/gen-0). */
bool train_is_dir(const char *dir);

/* One rung of the ladder: an accepted generation (and generation 0). */
typedef struct {
    int generation;
    double elo, lo, hi; /* Elo against generation 0 with its 95% interval */
    int64_t games;      /* SPRT games the version played */
} TrainRung;

/* The Elo ladder of a training directory: every accepted generation's Elo
 * against generation 0 with 95% intervals, from one rating fit of all the
 * SPRT games of the run (accepted and not; each version is a player named
 * gen-G); writes outdir/ladder.md, outdir/report.html and the plot
 * outdir/ladder.png (gnuplot), and fills rungs (heap, *nrungs; free()).
 * The intervals are those of the fit; SPRT matches stop early when the
 * test decides, which biases each step's estimate away from 0 (reported in
 * the document).  Errors: no complete generation, no SPRT games, gnuplot
 * missing, an unwritable outdir. */
TvStatus train_report(const char *dir, const char *outdir, TrainRung **rungs, int *nrungs, TvError *err);

#endif
