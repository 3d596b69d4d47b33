/* spsa.h: SPSA (simultaneous perturbation stochastic approximation) played
 * as games: the configuration (an INI with an [spsa] section, `param` lines
 * and one base engine), the gain schedule and the step of the parameter
 * vector theta.  The loop that plays the games is in spsa_run.h; the
 * schedule and its defaults are explained in docs/spsa.md.
 *
 * Iteration k (0-based) plays `batch` opening pairs, both colours of each
 * opening, of theta + c_k Delta_k against theta - c_k Delta_k, where
 * Delta_k is a +-1 vector drawn from the seed and k alone, and then steps
 *   theta_i += a_k / c_k,i x s_k x Delta_k,i   (clamped to [min_i, max_i])
 * with s_k the games won minus the games lost by theta + c_k Delta_k.  The
 * schedule counts game pairs as fishtest does: iteration k starts at pair
 * j = k x batch + 1 of N = iterations x batch, and
 *   c_j,i = c_end,i x (N / j)^gamma
 *   a_j,i = r_end,i x c_end,i^2 x ((A + N) / (A + j))^alpha,   A = A_ratio x N
 * so that at the last pair c is c_end and a / c^2 is r_end. */
#ifndef TAVRELI_SPSA_H
#define TAVRELI_SPSA_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "status.h"
#include "tournament.h"

#define SPSA_MAX_PARAMS 64

/* The engine indices of the two players in the SPSA tournament. */
enum { SPSA_PLUS = 0, SPSA_MINUS = 1 };

typedef struct {
    char name[64];
    double start, lo, hi, c_end, r_end;
    int line;                  /* the param line (for messages) */
} SpsaParam;

typedef struct {
    char source[512];          /* the INI path */
    char name[64];             /* [spsa] name (default: the file name without .ini) */
    long iterations;           /* default 200 */
    long batch;                /* opening pairs per iteration; default 8 */
    uint64_t seed;             /* default 1 */
    long threads;              /* 0 = all cores; default 0 */
    double alpha, gamma;       /* default 0.602, 0.101 */
    double A_ratio;            /* A = A_ratio x iterations x batch; default 0.1 */
    bool verify;               /* default yes */
    double verify_elo0, verify_elo1; /* default 0 and 5 (normalized Elo) */
    long verify_pairs;         /* at most this many pairs in the verification SPRT; default 2000 */
    int nparams;
    SpsaParam params[SPSA_MAX_PARAMS];
    int spsa_line;             /* the [spsa] header's line */
    char engine[48];           /* the base engine's section name ([engine NAME]) */
    Tournament t;              /* the games: engines SPSA_PLUS and SPSA_MINUS (both the base engine), the
                                  rules, openings and adjudication; pairs = iterations x batch; its text
                                  is the INI text */
} SpsaConfig;

/* Reads an SPSA INI: [spsa] (name, iterations, batch, seed, threads,
 * alpha, gamma, A, verify, verify_elo0, verify_elo1, verify_pairs, and
 * `param NAME = START, MIN, MAX, C_END, R_END` lines), one [engine NAME]
 * section (path = ENGINE.ini or command = PROGRAM, with the limits and
 * options of a tournament's engine), and [rules], [openings] and
 * [adjudication] as in a tournament.  Errors name FILE:LINE.  The names
 * of a separate program's parameters are checked against its declarations
 * by spsa_check_params. */
TvStatus spsa_read(const char *path, SpsaConfig *c, TvError *err);

/* spsa_read of text in memory (heap, taken by c also on error). */
TvStatus spsa_read_text(const char *path, char *text, size_t len, SpsaConfig *c, TvError *err);

void spsa_free(SpsaConfig *c);

/* The tournament text the SPSA file stands for, without its [tournament]
 * and engine sections: the [spsa] section blanked, the [engine NAME]
 * header made [each] (so that every engine added after it is the base
 * engine with its limits and options), and `tail` appended (heap). */
TvStatus spsa_tournament_text(const SpsaConfig *c, const char *tail, char **out, TvError *err);

/* Checks every parameter with the player (player_params): a separate
 * program is started once and must declare each as a spin option whose
 * range holds the parameter's [min, max] (spsa_read checked the built-in
 * engine's already). */
TvStatus spsa_check_params(const SpsaConfig *c, TvError *err);

/* ---- the schedule ------------------------------------------------------------ */

/* c and a of parameter p for iteration k (0-based). */
double spsa_c(const SpsaConfig *c, int p, long k);
double spsa_a(const SpsaConfig *c, int p, long k);

/* The perturbation of iteration k: delta[p] = +1 or -1, from the seed and
 * k only (core/rng.h). */
void spsa_delta(const SpsaConfig *c, long k, int8_t *delta);

/* The value parameter p is played at: theta + sign x c_k x delta, clamped
 * to [min, max] (not rounded). */
double spsa_played(const SpsaConfig *c, int p, long k, double theta, int sign, int8_t delta);

/* Steps theta (nparams values) after iteration k, whose games theta + c
 * delta won `score` more than it lost (wins minus losses). */
void spsa_step(const SpsaConfig *c, long k, const int8_t *delta, double score, double *theta);

/* The value sent to the engine: integers rounded half away from zero. */
long spsa_round(double v);

/* Sets the parameters on engine `which` (SPSA_PLUS or SPSA_MINUS) of t:
 * values[p] rounded, in its engine version (built-in, core/option.h) or
 * its option lines (a separate program).  Errors: a value outside the
 * option's bounds, more option lines than a tournament engine holds. */
TvStatus spsa_apply(const SpsaConfig *c, Tournament *t, int which, const double *values, TvError *err);

#endif
