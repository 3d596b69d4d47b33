/* move_pick.h: the order in which the search tries a node's moves: each
 * move has a key (core/search.c scores them), and the moves are taken best
 * key first, ties in list order, so the order is deterministic.  Static
 * functions of the one file that includes it (search.c), declared as they
 * were inside it: the compiled search is the same instruction for
 * instruction (objdump, -O3); marking them all inline instead let the
 * compiler inline the sort into the search and doubled its code. */
#ifndef TAVRELI_MOVE_PICK_H
#define TAVRELI_MOVE_PICK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "movegen.h"

/* Moves the best remaining move (highest key, earliest on ties, so the
 * order is deterministic) to index i.  Lazy: a cut-off early saves sorting
 * the long move lists of towers. */
static void movelist_pick_next(MoveList *list, int *keys, int i)
{
    int best = i;
    for (int j = i + 1; j < list->count; j++)
        if (keys[j] > keys[best])
            best = j;
    if (best != i) {
        Move m = list->moves[best];
        int k = keys[best];
        memmove(&list->moves[i + 1], &list->moves[i], sizeof(Move) * (size_t)(best - i));
        memmove(&keys[i + 1], &keys[i], sizeof(int) * (size_t)(best - i));
        list->moves[i] = m;
        keys[i] = k;
    }
}

/* Sorts a[0..n) of distinct numbers, largest first: a quicksort on the
 * middle element with insertion sort for short runs (qsort's comparator
 * calls cost twice as much, measured). */
static void movelist_sort_desc(uint64_t *a, int n)
{
    while (n > 16) {
        uint64_t pivot = a[n / 2];
        int i = 0, j = n - 1;
        while (i <= j) {
            while (a[i] > pivot)
                i++;
            while (a[j] < pivot)
                j--;
            if (i <= j) {
                uint64_t t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        /* recurse into the smaller part, loop on the larger */
        if (j + 1 < n - i) {
            movelist_sort_desc(a, j + 1);
            a += i;
            n -= i;
        } else {
            movelist_sort_desc(a + i, n - i);
            n = j + 1;
        }
    }
    for (int i = 1; i < n; i++) {
        uint64_t x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] < x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

/* Sorts list[from..count) by key, highest first, keeping the present order
 * among equal keys: afterwards the moves come in exactly the order that
 * repeated movelist_pick_next would give, at O(n log n) instead of O(n^2).  Sorting
 * a composite of key and position does it. */
static void movelist_sort_rest(MoveList *list, int *keys, int from)
{
    uint64_t buf[TV_MAX_MOVES];
    Move moves[TV_MAX_MOVES];
    const int n = list->count - from;
    for (int i = 0; i < n; i++) {
        /* key + 2^31 keeps the order of negative keys; the lower word
         * puts an earlier position first among equal keys */
        buf[i] = ((uint64_t)((int64_t)keys[from + i] + 2147483648LL) << 32) | (uint32_t)(0xFFFFFFFFu - (uint32_t)i);
        moves[i] = list->moves[from + i];
    }
    movelist_sort_desc(buf, n);
    for (int i = 0; i < n; i++) {
        int j = (int)(0xFFFFFFFFu - (uint32_t)buf[i]);
        list->moves[from + i] = moves[j];
        keys[from + i] = (int)((int64_t)(buf[i] >> 32) - 2147483648LL);
    }
}

/* The next move of a node's list: the best remaining one by movelist_pick_next for
 * the first few (a cut-off usually comes early), then the rest is sorted
 * once (the same order, measured: movelist_pick_next over every move of the long
 * lists of towers was 5% of the bench search). */
#define PICKS_BEFORE_SORT 4
static inline void movelist_pick(MoveList *list, int *keys, int i, bool *sorted)
{
    if (*sorted)
        return;
    if (i >= PICKS_BEFORE_SORT && list->count - i > 8) {
        movelist_sort_rest(list, keys, i);
        *sorted = true;
        return;
    }
    movelist_pick_next(list, keys, i);
}

#endif
