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
#include "outcome.h"
#include "stats.h"
#include "tournament.h"

/* The referee's terminations (outcome.h: illegal move, time forfeit, engine
 * died, engine stalled), counted per engine that lost by them. */
#define RUN_REFEREE_KINDS (TERM_ENGINE_STALLED - TERM_ILLEGAL_MOVE + 1)
typedef struct {
    int64_t lost[TOURNAMENT_MAX_ENGINES][RUN_REFEREE_KINDS]; /* [engine][termination - TERM_ILLEGAL_MOVE] */
} RefereeCounts;

/* The waits before readyok of the games a run played, per engine: the time
 * between the isready before each move and its readyok, which is on no
 * clock (docs/tournaments.md, "Time on no clock"). */
typedef struct {
    int64_t total_ms[TOURNAMENT_MAX_ENGINES]; /* in all */
    int32_t max_ms[TOURNAMENT_MAX_ENGINES];   /* the longest one */
    int64_t think_ms[TOURNAMENT_MAX_ENGINES]; /* beside them: its thinking time on the same moves */
} ReadyWaits;

/* A game of this run the referee ended, reported as it happens. */
typedef struct {
    const Tournament *t;
    int64_t index;           /* plan index */
    int loser, winner;       /* engine indices */
    bool loser_white;
    Termination termination; /* TERM_ILLEGAL_MOVE ... TERM_ENGINE_STALLED */
    int plies;               /* plies played before it */
    int over_ms;             /* TERM_TIME_FORFEIT: ms beyond the limit and timemargin */
    bool unready;            /* TERM_ENGINE_STALLED: no readyok within the handshake limit before its move */
} RefereeEnd;

/* Called by the run for each game the referee ended (calls never overlap,
 * nor overlap those of the RunProgressFn). */
typedef void (*RunRefereeFn)(const RefereeEnd *e, void *user);

/* Where a run stands, for a progress display.  Pointers are valid only
 * during the callback. */
typedef struct {
    const Tournament *t;
    int64_t total;          /* games of the whole tournament */
    int64_t finished;       /* games finished so far, stored before this run or by it */
    int64_t done;           /* games finished by this run */
    int64_t todo;           /* games this run set out to play */
    double elapsed;         /* seconds since this run started playing */
    const RatedGame *games; /* every finished game (players are engine indices; pair = index / 2) */
    int64_t ngames;
    bool sprt;              /* the tournament runs an SPRT: */
    double llr, lower, upper; /* ... its LLR over the pairs completed in plan order, and its bounds */
    bool final;             /* the last report of the run ... */
    bool stopped;           /* ... of a run stopped before it ended (a signal, or a failure) */
    const RefereeCounts *referee; /* the referee's terminations among the finished games, per loser */
    const ReadyWaits *ready; /* the waits before readyok of this run's games, per engine */
} RunProgress;

/* Called by the run with its progress (from whichever thread finished a
 * game; calls never overlap).  The library never prints: the front end
 * draws the progress line from this. */
typedef void (*RunProgressFn)(const RunProgress *p, void *user);

typedef struct {
    const Tournament *t;
    const char *out_path;      /* the store; NULL: keep no store */
    bool resume;               /* continue an existing store of the same configuration */
    bool force;                /* overwrite an existing store */
    int threads;               /* 0: the tournament's setting, else all cores */
    int64_t max_games;         /* play at most this many of the missing games (0 = all) */
    int batch_games;           /* flush after this many games (default 16) ... */
    double batch_seconds;      /* ... or this many seconds (default 5) */
    volatile sig_atomic_t *stop; /* set by a signal handler: abandon games in flight, flush, close */
    RunProgressFn progress;    /* may be NULL: no progress reports */
    void *progress_user;
    double progress_every;     /* seconds between progress reports (default 10); the first and the
                                  last are always made */
    RunRefereeFn referee;      /* may be NULL: each game the referee ended (uses progress_user) */
    void (*note)(const char *text, void *user); /* may be NULL: a line on the run, a game begun again
                                                   after a program failed as it began (uses
                                                   progress_user; calls never overlap each other) */
} RunOptions;

typedef struct {
    int64_t planned;           /* games of the whole tournament */
    int64_t already;           /* found in the store at the start (resume) */
    int64_t played;            /* finished and stored by this run: after an error, what the store
                                  holds beyond `already` (read back), not what was played */
    int64_t positions;         /* positions stored by this run */
    double wall_seconds;
    double store_seconds;      /* inside HDF5 writes */
    bool interrupted;
    bool stopped_reading;      /* interrupted while a resume read or checked the store, before any game:
                                  nothing was played or changed, `already` is not known (0) */
    bool store_unread;         /* after an error: the store could not be read back (store_error says
                                  why), so `played` counts only the batches whose writes succeeded */
    TvError store_error;
    bool store_removed;        /* after an error: the store this run created held no game and was
                                  removed (a rerun needs no --force) */
    /* with an [sprt] section: the test on the pairs completed in plan order */
    int sprt_decision;         /* SprtDecision (stats.h) */
    double sprt_llr, sprt_lower, sprt_upper;
    int64_t sprt_pairs;
    char sprt_result[256];     /* also stored as the store's "sprt_result" attribute */
    RefereeCounts referee;     /* the referee's terminations among those games, per loser */
    ReadyWaits ready;          /* the waits before readyok of this run's games, per engine */
    RatedGame *games;          /* every finished game known at the end (stored before or now; heap,
                                  freed by run_stats_free): for the final standings */
    int64_t ngames;
} RunStats;

/* Frees what runner_run left in stats. */
void run_stats_free(RunStats *stats);

/* Runs (or resumes) the tournament.  With ro->out_path NULL the games are
 * played but not stored (their results reach stats->games and the progress
 * reports only).  Every separate program is started and checked before the
 * store is created, so an engine that cannot start leaves no store.  Errors:
 * store errors, unreadable openings, engines that fail; whatever stops the
 * run, every finished game is stored unless writing failed, and stats->played
 * is then what the store holds (read back after closing it); a store this
 * run created that holds no game is removed.  On interruption (*stop set)
 * the games in flight are abandoned, the finished ones flushed, and TV_OK is
 * returned with interrupted set; a signal while a resume reads and checks
 * the store (seconds for a big one) ends it there, the store unchanged
 * (interrupted and stopped_reading set). */
TvStatus runner_run(const RunOptions *ro, RunStats *stats, TvError *err);

/* ---- the pieces of a run (runner_run uses them; so does the MPI runner) ---- */

/* A finished game, as the players report it. */
typedef struct {
    int64_t index;     /* plan index */
    int32_t result;    /* 1 White won, 0 draw, -1 Black won */
    int32_t positions; /* positions stored */
    int32_t termination; /* Termination (0 from a sender that does not say) */
    int32_t over_ms;     /* TERM_TIME_FORFEIT: ms beyond the limit and timemargin (GameOutcome) */
    int32_t unready;     /* TERM_ENGINE_STALLED: no readyok before the loser's move (GameOutcome) */
    int32_t ready_ms[2]; /* [side]: the waits before readyok in the game, in all and ... */
    int32_t ready_max_ms[2]; /* ... the longest, and ... */
    int32_t think_ms[2];     /* ... the thinking time of those moves (GameOutcome) */
} GameDone;

/* Hands out games: reports `done` (the game the calling thread just
 * finished, or NULL) and, when want_more, returns the plan index of the next
 * game to play, -1 when there is none (all handed out, stopped), or
 * RUNNER_DECIDED when the run has decided (the SPRT): the games in flight
 * are then abandoned too.  Called by the player threads, so it must be
 * thread-safe. */
typedef int64_t (*NextGameFn)(void *ctx, const GameDone *done, bool want_more);
#define RUNNER_DECIDED (-2)

/* The coordinator (coordinator.c): the games of the plan still to play (in plan order), the
 * results known so far (with read_store: those of the store at
 * ro->out_path, whose engines must be ids, the run's identities, when ids
 * is not NULL: runner_check_engines), the SPRT and the progress line.
 * Thread-safe. */
typedef struct Coordinator Coordinator;
TvStatus coordinator_open(const RunOptions *ro, bool read_store, const StoredEngine *ids, Coordinator **out,
                          RunStats *stats, TvError *err);
const int64_t *coordinator_missing(const Coordinator *c, int64_t *n);
void coordinator_start(Coordinator *c);                                    /* first progress line */
int64_t coordinator_next(void *coordinator, const GameDone *done, bool want_more); /* a NextGameFn */
void coordinator_finish(Coordinator *c, RunStats *stats); /* last progress line, interrupted, SPRT fields */
void coordinator_free(Coordinator *c);

/* The identities of t's engines (player_identify: every separate program
 * is started once and must answer and take its options and the rule
 * options; its stderr goes where a game's would, named after store_path),
 * as t->nengines /engines rows on the heap (*out, the caller frees).  The
 * first failure is the error.  Call it before making a store, so that an
 * engine that cannot start leaves none. */
TvStatus runner_identify(const Tournament *t, const char *store_path, StoredEngine **out, TvError *err);

/* --dry-run's check of the players: every separate program is started as
 * the run's own start does it (the handshake, its options and the rule
 * options, its bench signature) and ended, writing nothing (its stderr is
 * kept in memory for the error, no protocol log); the built-in engines and
 * random movers are identified without a process.  Their identities into
 * *out (t->nengines rows on the heap, the caller frees).  The first
 * failure is the error, as the run would give it. */
TvStatus runner_dry_start(const Tournament *t, StoredEngine **out, TvError *err);

/* The resume check of engines, the one place it is made: the stored rows
 * (stored, nstored) of the store at path must be the run's identities
 * (now, n) one for one (engine_id_difference); otherwise an error naming
 * the engine and the first difference. */
TvStatus runner_check_engines(const char *path, const StoredEngine *stored, int nstored, const StoredEngine *now,
                             int n, TvError *err);

/* Plays the games that `next` hands out on the run's threads and appends
 * them to `store` in batches (call runner_identify first).  openings:
 * per opening index (precomputed), or NULL to compute each game's opening
 * when it starts.  Stops when `next` returns -1, when it returns
 * RUNNER_DECIDED or on *ro->stop (both abandon the games in flight), or on a
 * write error.  *ro->stop is only read: a decision never sets it (train runs
 * many tournaments on one signal flag). */
TvStatus runner_play(const RunOptions *ro, H5Store *store, NextGameFn next, void *next_ctx,
                     const Position *openings, int64_t *played, int64_t *positions, TvError *err);

/* Before a resume: the store (or part) at path, made by an earlier run,
 * takes tournament t's INI text when t can continue it (same games, maybe
 * more pairs: see tournament_can_continue) and its engines are now, the
 * run's identities (runner_check_engines).  Otherwise an error naming what
 * differs and the first differing line of each INI. */
TvStatus runner_adopt_ini(const char *path, const Tournament *t, const StoredEngine *now,
                          const volatile sig_atomic_t *stop, TvError *err);

int runner_threads(const RunOptions *ro);              /* game threads of this process */
/* With an [sprt] section: stores the settings and stats->sprt_result as the
 * attributes sprt and sprt_result of the (closed) store ro->out_path
 * (nothing after a run stopped while it read the store). */
TvStatus runner_store_sprt(const RunOptions *ro, const RunStats *stats, TvError *err);

#endif
