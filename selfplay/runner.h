/* runner.h: runs a tournament's games on OpenMP threads and stores them.
 *
 * Games are scheduled dynamically (one at a time per thread); each thread has
 * its own search context per engine version, cleared before every game, so a
 * game depends only on the configuration and its index: the same games come
 * out with 1 or N threads (with depth or node limits).  Finished games are
 * appended to the store in small batches by one writer at a time. */
#ifndef TAVRELI_RUNNER_H
#define TAVRELI_RUNNER_H

#include <signal.h>

#include "h5store.h"
#include "tournament.h"

typedef struct {
    const Tournament *t;
    const char *out_path;
    bool resume;               /* continue an existing store of the same configuration */
    bool force;                /* overwrite an existing store */
    int threads;               /* 0: the tournament's setting, else all cores */
    int64_t max_games;         /* play at most this many of the missing games (0 = all) */
    int batch_games;           /* flush after this many games (default 16) ... */
    double batch_seconds;      /* ... or this many seconds (default 5) */
    volatile sig_atomic_t *stop; /* set by a signal handler: abandon games in flight, flush, close */
    bool progress_tty;         /* draw a progress line with \r (else plain lines) */
    bool quiet;                /* no progress output at all */
    double progress_every;     /* seconds between plain progress lines (default 10) */
} RunOptions;

typedef struct {
    int64_t planned;           /* games of the whole tournament */
    int64_t already;           /* found in the store at the start (resume) */
    int64_t played;            /* finished and stored by this run */
    int64_t positions;         /* positions stored by this run */
    double wall_seconds;
    double store_seconds;      /* inside HDF5 writes */
    bool interrupted;
    /* with an [sprt] section: the test on the pairs completed in plan order */
    int sprt_decision;         /* SprtDecision (ratings.h) */
    double sprt_llr, sprt_lower, sprt_upper;
    int64_t sprt_pairs;
    char sprt_result[256];     /* also stored as the store's "sprt_result" attribute */
} RunStats;

/* Runs (or resumes) the tournament.  Errors: store errors, unreadable
 * openings.  On interruption (*stop set) the games in flight are abandoned,
 * the finished ones flushed, and TV_OK is returned with interrupted set. */
TvStatus runner_run(const RunOptions *ro, RunStats *stats, TvError *err);

#endif
