/* spsa_run.h: an SPSA run on the tournament runner (spsa.h has the
 * configuration and the schedule; docs/spsa.md the user's view).
 *
 * Everything lands in DIR (default results/NAME):
 *   spsa.h5    every game, in the store schema of tournaments (game i is
 *              played in iteration i / (2 x batch); engine 0, NAME+, is
 *              theta + c Delta, engine 1, NAME-, theta - c Delta; the
 *              /engines rows hold the start values), and the group /spsa:
 *              theta after every iteration, c, Delta, the values played and
 *              the pair results (docs/store.md)
 *   tuned.ini  the final theta, as the player writes itself (player_write:
 *              an engine INI for the built-in engine, option.NAME = VALUE
 *              lines for a program); start.ini the start the same way
 *   verify.h5  the verification SPRT of the tuned engine against the start
 *
 * The trajectory depends only on the SPSA file: the games are the plan's
 * (tournament.h: each game's opening and seed from its index), an
 * iteration's perturbation comes from the seed, and theta steps only once
 * every game of the iteration is in, so 1 or N threads give the same theta
 * after every iteration.  A resume replays the stored games' iterations
 * (theta is a function of them) and plays the missing games. */
#ifndef TAVRELI_SPSA_RUN_H
#define TAVRELI_SPSA_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "runner.h" /* RunProgressFn */
#include "spsa.h"

/* Where a run stands, for a progress line (valid during the callback). */
typedef struct {
    const SpsaConfig *c;
    long iteration;        /* iterations complete */
    int64_t games_run;     /* games played by this run */
    double elapsed;        /* seconds of this run */
    const double *theta;   /* the current theta (c->nparams values) */
    bool final;
} SpsaProgress;

typedef void (*SpsaProgressFn)(const SpsaProgress *p, void *user);

/* What the run reports besides progress (the verification's stages). */
typedef void (*SpsaEventFn)(const char *text, void *user);

typedef struct {
    SpsaConfig *c;
    const char *dir;           /* the run's folder (made when missing) */
    bool resume;               /* continue DIR/spsa.h5 (a missing store starts anew) */
    bool force;                /* start DIR/spsa.h5 anew */
    int threads;               /* game threads; 0: [spsa] threads; -1: all cores */
    volatile sig_atomic_t *stop; /* set by a signal handler: stop cleanly */
    SpsaProgressFn progress;   /* may be NULL */
    SpsaEventFn event;         /* may be NULL */
    void *user;
    double progress_every;     /* seconds between progress reports (default 10) */
    RunProgressFn verify_progress; /* may be NULL: the verification's games, as selfplay reports them (its
                                      up to 2 x verify_pairs games printed nothing), with verify_user, */
    void (*verify_note)(const char *text, void *user); /* ... and its notes (a program begun again) */
    void *verify_user;
    bool mpi;                  /* run on the ranks of MPI_COMM_WORLD (an MPI build, under mpirun): rank r plays
                                  the games whose index is r modulo the ranks, into DIR/spsa.part-R.h5, every
                                  rank steps theta alike from all the results, and at the end rank 0 merges the
                                  parts into DIR/spsa.h5 and writes the rest (the caller finalises MPI:
                                  distrib_end) */
} SpsaRunOptions;

typedef struct {
    int rank;                  /* this process's MPI rank (0 without MPI): only rank 0 has the results below */
    long iterations_done;
    int64_t games_played;      /* by this run */
    double wall_seconds;
    bool interrupted;
    double theta[SPSA_MAX_PARAMS];
    char tuned[1100];          /* the tuned engine's file ("" before the end) */
    bool verified;             /* the verification SPRT ran to its end */
    int verify_decision;       /* SprtDecision (ratings.h) */
    double verify_llr, verify_lower, verify_upper;
    int64_t verify_pairs;
    char verify_result[256];
} SpsaOutcome;

/* Runs (or resumes) the SPSA of o->c into o->dir, writes the tuned engine,
 * then (unless [spsa] verify = no) plays the verification SPRT.  An
 * interruption (*o->stop) returns TV_OK with out->interrupted; the games
 * played are stored and the /spsa table written for the complete
 * iterations. */
TvStatus spsa_run(const SpsaRunOptions *o, SpsaOutcome *out, TvError *err);

/* ---- the /spsa table (spsa_store.c) ------------------------------------------------ */

typedef struct {
    int nparams;
    long iterations, batch;        /* of the run */
    long done;                     /* complete iterations: rows */
    char (*names)[64];             /* [nparams] */
    double *lo, *hi;               /* [nparams] */
    double *theta;                 /* [(done + 1) x nparams]: row 0 the start, row k after iteration k */
    double *c;                     /* [done x nparams] */
    int8_t *delta;                 /* [done x nparams] */
    double *plus, *minus;          /* [done x nparams] the values played (before rounding) */
    int8_t *pairs;                 /* [done x batch] wins minus losses of theta + c Delta in each pair */
} SpsaTable;

/* Writes t as the group /spsa of the closed store at path (replacing one
 * that is there). */
TvStatus spsa_table_write(const char *path, const SpsaTable *t, TvError *err);

/* Reads the group /spsa of the store at path (heap; spsa_table_free).
 * *found false (and TV_OK) when the store has none. */
TvStatus spsa_table_read(const char *path, SpsaTable *t, bool *found, TvError *err);

void spsa_table_free(SpsaTable *t);

#endif
