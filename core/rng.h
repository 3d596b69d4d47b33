/* rng.h: the project's one deterministic random source, splitmix64.
 *
 * Every random choice (openings, random movers, the tuner's split and
 * bootstrap, simulated rating intervals, test walks) draws from it, with the
 * state passed around explicitly: no global state, so the same seed gives the
 * same numbers on any number of threads.  splitmix64 is Steele, Lea and
 * Flood's generator (as in java.util.SplittableRandom): a Weyl sequence with
 * step 0x9E3779B97F4A7C15 passed through a 64-bit finaliser. */
#ifndef TAVRELI_RNG_H
#define TAVRELI_RNG_H

#include <stdint.h>

#define TV_RNG_GOLDEN 0x9E3779B97F4A7C15ull

/* Advances *state and returns the next output. */
static inline uint64_t tv_rng_next(uint64_t *state)
{
    uint64_t z = (*state += TV_RNG_GOLDEN);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The output that state x gives next, without a state to advance: a strong
 * mix of x, for deriving seeds from seeds. */
static inline uint64_t tv_rng_mix(uint64_t x) { return tv_rng_next(&x); }

/* A number in [0, n) (0 when n is 0).  The modulo bias is below n / 2^64,
 * negligible for the move-list and data-set sizes it is used with. */
static inline uint64_t tv_rng_below(uint64_t *state, uint64_t n) { return n ? tv_rng_next(state) % n : 0; }

#endif
