/* variety.h: seeded variety at the start of a game: moves sampled among the
 * legal ones by a softmax of their quiescence scores, so that openings are
 * varied but not absurd.  The randomness comes from the generator passed
 * in (seeded from the tournament's seed and the opening's index), so the
 * same opening comes out on any number of threads. */
#ifndef TAVRELI_VARIETY_H
#define TAVRELI_VARIETY_H

#include <stdbool.h>
#include <stdint.h>

#include "search.h"

/* Plays `plies` moves on p, each drawn among the legal moves with
 * probability proportional to exp(s / temperature), s the mover's
 * quiescence score after the move (ctx's weights; centi-combatants, mate
 * scores clamped to +-2000), using *rng.  False when the game ends on the
 * way (no legal move). */
bool variety_sample_plies(SearchContext *ctx, Position *p, const Options *rules, int plies, int temperature,
                          uint64_t *rng);

#endif
