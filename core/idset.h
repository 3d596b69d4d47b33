/* idset.h: the project's one hash set, of 64-bit keys (game ids, position
 * keys): open addressing with linear probing, grown at half full.
 *
 *   TvIdSet seen = {0};
 *   int added = tv_idset_add(&seen, key); // 1 new, 0 already there, -1 out of memory
 *   tv_idset_free(&seen);
 *
 * Every key is a key, 0 included. */
#ifndef TAVRELI_IDSET_H
#define TAVRELI_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

typedef struct {
    uint64_t *slot; /* cap slots, 0 marks a free one (key 0 is has_zero) */
    size_t cap, n;  /* cap is 0 or a power of two; n keys held */
    bool has_zero;
} TvIdSet;

/* The home slot of a non-zero key in cap slots (a power of two): the high
 * bits of a multiplicative (Fibonacci) hash, so that keys that differ in
 * their low bits only (consecutive ids) spread.  Also the home of the
 * tuner's table of positions seen first (tuner/tune_data.c), which threads
 * share and so is a table of its own. */
static inline size_t tv_idset_home(uint64_t key, size_t cap)
{
    return (size_t)(key * TV_RNG_GOLDEN >> 20) & (cap - 1);
}

/* Adds key: 1 when added, 0 when it was there, -1 when out of memory (the
 * set is then as it was). */
int tv_idset_add(TvIdSet *s, uint64_t key);

/* True when key is in the set. */
bool tv_idset_has(const TvIdSet *s, uint64_t key);

/* Frees the slots and empties the set. */
void tv_idset_free(TvIdSet *s);

#endif
