/* idset.c: the hash set of idset.h. */
#include "idset.h"

#include <stdlib.h>

/* Puts a non-zero key not yet there into slots with room. */
static void put(uint64_t *slot, size_t cap, uint64_t key)
{
    size_t i = tv_idset_home(key, cap);
    while (slot[i])
        i = (i + 1) & (cap - 1);
    slot[i] = key;
}

int tv_idset_add(TvIdSet *s, uint64_t key)
{
    if (key == 0) {
        if (s->has_zero)
            return 0;
        s->has_zero = true;
        s->n++;
        return 1;
    }
    if (tv_idset_has(s, key))
        return 0;
    if (2 * (s->n + 1) > s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 1024;
        uint64_t *bigger = calloc(ncap, sizeof *bigger);
        if (!bigger)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                put(bigger, ncap, s->slot[i]);
        free(s->slot);
        s->slot = bigger;
        s->cap = ncap;
    }
    put(s->slot, s->cap, key);
    s->n++;
    return 1;
}

bool tv_idset_has(const TvIdSet *s, uint64_t key)
{
    if (key == 0)
        return s->has_zero;
    if (!s->cap)
        return false;
    for (size_t i = tv_idset_home(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == key)
            return true;
        if (!s->slot[i])
            return false;
    }
}

void tv_idset_free(TvIdSet *s)
{
    free(s->slot);
    *s = (TvIdSet){0};
}
