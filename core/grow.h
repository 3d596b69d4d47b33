/* grow.h: the project's one growable array: room for `need` elements in a
 * heap array whose capacity doubles.
 *
 *   StoredGame *games = NULL;
 *   int64_t n = 0, cap = 0;
 *   if (!tv_grow((void **)&games, &cap, n + 1, sizeof *games))
 *       return tv_fail(err, TV_ERR_LIMIT, "out of memory");
 *   games[n++] = g;
 *
 * The caller keeps the count and frees the array. */
#ifndef TAVRELI_GROW_H
#define TAVRELI_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *p (capacity *cap elements of `size` bytes) hold at least `need`
 * elements: the capacity doubles from 64 until it does.  False when out of
 * memory or when the bytes would overflow size_t; then *p and *cap are
 * unchanged (the array is still the caller's to free). */
static inline bool tv_grow(void **p, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap)
        return true;
    int64_t n = *cap > 0 ? *cap : 64;
    while (n < need) {
        if (n > INT64_MAX / 2)
            return false;
        n *= 2;
    }
    if (size && (uint64_t)n > SIZE_MAX / size)
        return false;
    void *q = realloc(*p, (size_t)n * size);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

#endif
