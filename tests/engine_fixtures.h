/* engine_fixtures.h: what test_engine.c and test_eval.c share: a position
 * from a TFEN, random weights within their bounds, and seeded random walks
 * from a few start positions (towers, splits, promoted combatants). */
#ifndef TAVRELI_TEST_ENGINE_FIXTURES_H
#define TAVRELI_TEST_ENGINE_FIXTURES_H

#include <stdint.h>

#include "eval.h"
#include "position.h"

/* The position of a TFEN (or "startpos"); fails the test when it is bad. */
Position read_tfen(const char *s);

/* Every weight drawn uniformly within its bounds. */
void random_params(EvalParams *p, uint64_t *seed);

/* The start positions of the walks. */
#define WALK_NSTARTS 5
extern const char *const WALK_STARTS[WALK_NSTARTS];

/* Calls fn on every position of seeded random walks (about 4,000). */
void for_walk_positions(void (*fn)(const Position *, void *), void *user);

#endif
