/* verify.h: every stored game checked against the rules core.  A store
 * says how each game went and ended; this replays it from its start
 * position under the store's rule options and confirms:
 *  - every stored move is legal and written as the project writes it (with
 *    its + / x suffix), and every stored position (TFEN, side to move,
 *    result from its side's view) is the one the game reached;
 *  - no position before the last was already over by the rules (mate,
 *    stalemate, threefold repetition, a captured Wizard);
 *  - the termination is what the rules say of the last position: a rules
 *    ending (checkmate, stalemate, repetition, Wizard captured) with its
 *    result, or, for an adjudicated game (ply limit, resignation, draw), a
 *    position the rules have not ended. */
#ifndef TAVRELI_VERIFY_H
#define TAVRELI_VERIFY_H

#include <stdint.h>

#include "h5store.h"
#include "outcome.h"
#include "position.h"
#include "status.h"

typedef struct {
    int64_t games;                  /* games checked */
    int64_t bad;                    /* games with at least one problem */
    int64_t by_termination[TERM_COUNT + 1]; /* games per stored termination (the last: unknown codes) */
} VerifyReport;

/* Called for every problem found (game index, what is wrong). */
typedef void (*VerifyProblemFn)(int64_t game, const char *what, void *user);

/* Checks every game of c (read with moves and positions).  Problems go to
 * `problem` (may be NULL) and are counted in out->bad; the status is TV_OK
 * even then.  Errors: the store's rule options do not read. */
TvStatus verify_store_games(const StoreContents *c, VerifyProblemFn problem, void *user, VerifyReport *out,
                            TvError *err);

/* What is wrong with game g's stored termination and result, given the
 * position `final` that its moves reach and hist[0..g->plies) the hashes of
 * the positions before each move (for repetition): NULL when they are what
 * the rules say (a rules ending with its result, or an adjudication or a
 * referee's loss of a position the rules have not ended), else the problem
 * written into why. */
const char *verify_ending(const StoredGame *g, const Position *final, const Options *o, const uint64_t *hist,
                          char *why, size_t n);

/* Replays game g from its start position under o with its stored moves
 * (moves[0..g->plies)): each must be legal (read strictly), no position
 * before the last already over by the rules, and the ending as
 * verify_ending says; each written as the rules write it (its + suffix).
 * The moves read go to out (may be NULL; g->plies entries); hist needs
 * g->plies entries.  NULL when the game is good, else the first problem
 * written into why.  The one replay of every reader: the store's reader
 * (h5store_read: every command), --resume and export. */
const char *verify_moves(const StoredGame *g, const StoredMove *moves, const Options *o, Move *out, uint64_t *hist,
                         char *why, size_t n);

/* verify_moves over move strings of H5STORE_MOVE_LEN bytes (not
 * necessarily NUL-terminated) at first, first + stride, ...: rows of any
 * layout (the reader's keys, whole /moves rows). */
const char *verify_move_strings(const StoredGame *g, const char *first, size_t stride, const Options *o, Move *out,
                                uint64_t *hist, char *why, size_t n);

#endif
