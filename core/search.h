/* search.h: iterative-deepening alpha-beta (PVS) with a transposition table,
 * quiescence, check extension and move ordering.  All state lives in a
 * SearchContext: two engine versions with different weights can play each
 * other in one process, and many contexts can run on many threads. */
#ifndef TAVRELI_SEARCH_H
#define TAVRELI_SEARCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval.h"
#include "position.h"

#define SEARCH_MAX_PLY 96
#define SCORE_MATE 30000
#define SCORE_INF 32000
/* Scores beyond this are mates: SCORE_MATE - plies to mate. */
#define SCORE_MATE_BOUND (SCORE_MATE - 1000)

/* Settings of an engine version beyond its weights, declared once in
 * search.def (one int per setting; a BOOL is 0 or 1).  hash_mb, the first,
 * can also be called by its older name tt_mb. */
typedef struct {
    union {
        struct {
#define S(name, type, def, lo, hi, meaning) int name;
#include "search.def"
#undef S
        };
        struct {
            int tt_mb; /* = hash_mb: transposition table size in MiB */
        };
    };
} SearchSettings;

/* Index of each setting in search.def order: SS_<name>. */
enum {
#define S(name, type, def, lo, hi, meaning) SS_##name,
#include "search.def"
#undef S
    SEARCH_NSETTINGS
};

typedef enum { SEARCH_SETTING_INT = 0, SEARCH_SETTING_BOOL = 1 } SearchSettingType;

typedef struct {
    const char *name;       /* field and INI key */
    SearchSettingType type;
    int def, lo, hi;        /* default and inclusive bounds (a BOOL: 0..1) */
    const char *meaning;
    size_t offset;          /* of the int field in SearchSettings */
} SearchSettingInfo;

/* One entry per setting, in search.def order (constant): what an INI
 * reader, a tuner or a UCI front end (spin / check options) lists. */
extern const SearchSettingInfo SEARCH_SETTING_INFO[SEARCH_NSETTINGS];

/* Fills s with every setting's default. */
void search_settings_default(SearchSettings *s);

/* The field of setting i (0 <= i < SEARCH_NSETTINGS) in s. */
int *search_setting_field(SearchSettings *s, int i);
int search_setting_value(const SearchSettings *s, int i);

/* The index of the setting called name, or -1. */
int search_setting_find(const char *name);

/* Limits of one search; 0 means no limit of that kind.  With only depth
 * and/or nodes limits the search is deterministic: the same position,
 * history and context state give the same move, score and node count. */
typedef struct {
    int depth;
    uint64_t nodes;
    int movetime_ms;
} SearchLimits;

/* A game clock, as a UCI engine's `go wtime btime winc binc movestogo`
 * gives it (milliseconds; increments and movestogo 0 = none).  It is passed
 * beside the limits (search_run_clock) rather than inside them so that the
 * many positional initialisers of SearchLimits stay complete.
 *
 * The contract: a clock given to the search gives the side to move's time
 * left (wtime_ms for White, btime_ms for Black), and the search manages its
 * time (a caller that has no time for the side to move passes no clock).
 * At 0 or below (a sudden-death clock that ran out, or one the referee's
 * margin let run below zero) the search still moves at once: both limits
 * are 1 ms, and it plays the best move of its last completed iteration or,
 * when not even the first completed, of the first so far.  Above 0 it
 * computes
 * a soft and a hard limit (search_time_budget below) from that time, that
 * side's increment and movestogo (0 = plan for the setting time_moves),
 * with the settings move_overhead_ms and time_* of search.def; it starts
 * no iteration after the soft limit, nor one predicted to end after the
 * hard limit, and stops inside an iteration at the hard limit, polled like
 * movetime (every 1,024 nodes).  The hard limit is at most time_max_pct of
 * the time left after the overhead, so a caller that charges the search's
 * wall time to the clock does not lose on time as long as the overhead
 * covers what happens outside the search.  The limits given with the clock
 * still apply (the first reached ends the search); a clock makes the search
 * not reproducible, like movetime.  The opponent's clock is not used. */
typedef struct {
    int wtime_ms, btime_ms; /* time left on each side's clock */
    int winc_ms, binc_ms;   /* increment per move */
    int movestogo;          /* moves until the next time control (0 = the rest of the game) */
} SearchClock;

/* The time budget of a search by the side to move `side` with clock:
 * *soft_ms and *hard_ms as described above (both at least 1, both 1 when
 * that side's time is 0 or below), or both 0 when clock is NULL. */
void search_time_budget(const SearchSettings *settings, const SearchClock *clock, int side, int *soft_ms,
                        int *hard_ms);

/* Counts of what the selective techniques did in one search, for
 * measuring them (bench search prints them). */
typedef struct {
    uint64_t qnodes;           /* quiescence nodes (included in nodes) */
    uint64_t null_tries;       /* null-move searches */
    uint64_t null_cutoffs;     /* ... that cut off (verified when verification applies) */
    uint64_t null_refuted;     /* ... that failed high but whose verification did not */
    uint64_t lmr_researches;   /* reduced moves searched again at full depth */
    uint64_t pruned;           /* moves skipped by futility and late-move pruning */
    uint64_t aspiration_fails; /* root searches repeated with a wider window */
} SearchStats;

typedef struct {
    Move best;      /* legal whenever the position has a legal move */
    int score;      /* side to move's view, centi-combatants or mate score */
    int depth;      /* last completed iteration; 0 when none completed (the limit or a stop
                       came first): best is then the first move of the unfinished first
                       iteration, and score means nothing */
    uint64_t nodes;
    double seconds;
    int soft_ms, hard_ms; /* the time budget used (search_time_budget), 0 without a clock */
    SearchStats stats;
    int pv_len;
    Move pv[SEARCH_MAX_PLY];
} SearchResult;

typedef struct SearchContext SearchContext;

/* Allocates a context (its transposition table on the heap).  Returns NULL
 * when memory runs out. */
SearchContext *search_alloc(const EvalParams *params, const Options *rules, const SearchSettings *settings);
void search_free(SearchContext *ctx);

/* Forgets everything learnt (transposition table, killers, history): the
 * state of a fresh context.  Call between games for reproducible games. */
void search_clear(SearchContext *ctx);

/* The flags that end a search (and a game) early, either may be NULL: a
 * caller's signal flag and a run's own (selfplay/runner.c: a decided SPRT
 * stops the games without writing the caller's flag, which train keeps for
 * the next tournament).  Set when either is non-zero. */
typedef struct {
    const volatile sig_atomic_t *flag[2];
} StopFlags;

static inline bool stop_flags_set(const StopFlags *s)
{
    return s && ((s->flag[0] && *s->flag[0]) || (s->flag[1] && *s->flag[1]));
}

/* Makes the search poll the flags of stop (every 1,024 nodes, as it polls
 * the clock) and stop as soon as one is non-zero, keeping the last
 * completed iteration: a signal handler that sets a flag ends even a deep
 * search within a fraction of a second.  stop may be NULL (no polling);
 * the flags stay set on the context for every later search.
 * search_set_stop_flag: one flag (may be NULL). */
void search_set_stop_flags(SearchContext *ctx, const StopFlags *stop);
void search_set_stop_flag(SearchContext *ctx, const volatile sig_atomic_t *flag);

/* Called after each completed iteration (may be NULL). */
typedef void (*SearchReport)(const SearchResult *iteration, void *user);

/* Searches pos within the limits.  history holds the hashes of the
 * positions of the game before pos (oldest first; n may be 0), so that
 * repetitions are scored as draws.  Returns the best move (TV_MOVE_NONE when
 * there is no legal move) in out. */
void search_run(SearchContext *ctx, const Position *pos, const uint64_t *history, int nhistory,
                const SearchLimits *limits, SearchReport report, void *user, SearchResult *out);

/* search_run with a game clock (see SearchClock; NULL = none). */
void search_run_clock(SearchContext *ctx, const Position *pos, const uint64_t *history, int nhistory,
                      const SearchLimits *limits, const SearchClock *clock, SearchReport report, void *user,
                      SearchResult *out);

/* Resolves pos to a quiet position: runs the quiescence search (captures and
 * promotions, evasions in check) from pos with a full window and plays its
 * principal variation; *leaf receives the position at its end and *score
 * the quiescence score of pos (side to move's view).  Used by the tuner
 * (Texel tuning evaluates quiet positions only).  Deterministic. */
void search_quiet(SearchContext *ctx, const Position *pos, Position *leaf, int *score);

#endif
