/* tune_data.h: the tuner's data set: positions as sparse feature vectors
 * with their results and games (TuneSet), filled from self-play stores
 * (every stored position resolved to its quiescence leaf with the START
 * engine) or from random walks, and split by whole games into fit and
 * hold-out sets.  Part of tune.h. */
#ifndef TAVRELI_TUNE_DATA_H
#define TAVRELI_TUNE_DATA_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* An empty set (no allocation). */
void tune_set_init(TuneSet *s);

/* Frees the set's arrays and leaves it empty. */
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

/* What tune_load left out. */
typedef struct {
    int64_t skipped;          /* positions whose quiescence score is a mate score */
    int64_t duplicate_games;  /* games held by an earlier store too (h5store_game_id): read once */
    int64_t torn_rows;        /* /games rows of appends a crash cut short, left out by the reader */
    int64_t duplicate_positions; /* positions seen before (same position, same result): left out */
} TuneLoadCounts;

/* Reads the positions of the stores (h5store_read) and resolves them with
 * the START engine and each store's rules.  Game numbers run over all files;
 * a game that two stores hold is read once.  A position seen before with
 * the same result (the same Zobrist hash: stacks, side to move, rights,
 * en passant; in any game of any store) is left out and counted: the
 * first is kept, so the same games give the same set.  Stores played under other
 * rule options than the first are refused unless mix_rules.  Errors:
 * h5store_read's, a bad TFEN or result in a store, other rules, no
 * positions. */
TvStatus tune_load(const char *const *files, int nfiles, const EngineVersion *start, bool mix_rules, TuneSet *out,
                   TuneLoadCounts *counts, TvError *err);

/* tune_load that a signal cuts short: *stop (may be NULL; set by a signal
 * handler) is looked at while each store is read and before each chunk of
 * positions is resolved (milliseconds apart); then the result is an error
 * ("stopped by a signal while reading PATH") with *out empty: the caller
 * tells it from a failure by *stop. */
TvStatus tune_load_stoppable(const char *const *files, int nfiles, const EngineVersion *start, bool mix_rules,
                             const volatile sig_atomic_t *stop, TuneSet *out, TuneLoadCounts *counts, TvError *err);

/* Splits by whole games, seeded: about `holdout` of the games (at least one
 * when holdout > 0 and there are two games or more; never all) go to hold,
 * the rest to fit.  Deterministic for a seed. */
TvStatus tune_split(const TuneSet *all, double holdout, uint64_t seed, TuneSet *fit, TuneSet *hold, TvError *err);

/* n positions from random legal walks of 2 to 80 plies from the start
 * position (seeded; a walk that reaches the end of a game starts again). */
void tune_random_walks(int64_t n, uint64_t seed, const Options *rules, Position *out);

/* A seed derived from a seed and a number (the split's key of game k, the
 * bootstrap's seed of round k): tv_rng_mix of the two, mixed. */
uint64_t tune_seed_mix(uint64_t seed, uint64_t k);

#endif
