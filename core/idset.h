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

typedef struct {
    uint64_t *slot; /* cap slots, 0 marks a free one (key 0 is has_zero) */
    size_t cap, n;  /* cap is 0 or a power of two; n keys held */
    bool has_zero;
} TvIdSet;

/* Adds key: 1 when added, 0 when it was there, -1 when out of memory (the
 * set is then as it was). */
int tv_idset_add(TvIdSet *s, uint64_t key);

/* True when key is in the set. */
bool tv_idset_has(const TvIdSet *s, uint64_t key);

/* Frees the slots and empties the set. */
void tv_idset_free(TvIdSet *s);

#endif
