/* strength.h: the engine's sanity check of strength, as tournaments run by
 * the ordinary runner (runner.h) without a store:
 *   random: the engine at depth 3 against a random mover; passes when the
 *           engine scores at least 95%;
 *   depth:  the engine at depth 4 against itself at depth 2; passes when the
 *           lower end of the 95% interval of the deeper one's Elo is above 0.
 * Paired random openings (each twice, colours reversed), no balance check,
 * games drawn at 300 plies, no other adjudication. */
#ifndef TAVRELI_STRENGTH_H
#define TAVRELI_STRENGTH_H

#include <signal.h>

#include "engine.h"
#include "runner.h"
#include "stats.h"

typedef enum { STRENGTH_RANDOM = 0, STRENGTH_DEPTH = 1 } StrengthCheck;

typedef struct {
    StrengthCheck check;
    EngineVersion engine;       /* weights and settings; the check sets the depths */
    int games;                  /* games (rounded up to whole pairs) */
    uint64_t seed;              /* the tournament seed: openings and the random mover */
    int threads;                /* 0: all cores */
    RunProgressFn progress;     /* may be NULL */
    void *progress_user;
    double progress_every;      /* seconds between progress reports (0: 10) */
    volatile sig_atomic_t *stop; /* may be NULL */
} StrengthOptions;

typedef struct {
    char title[64];     /* "depth 3 vs random mover" */
    PairingStats stats; /* from the engine under test's view */
    bool pass;
    char criterion[64]; /* "needs >= 95%" */
    bool interrupted;
} StrengthResult;

/* Runs one check.  Errors: out of memory. */
TvStatus strength_run(const StrengthOptions *o, StrengthResult *out, TvError *err);

#endif
