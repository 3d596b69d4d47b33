/* position.h: a Tavreli position with towers, its incremental bitboards and
 * Zobrist hash, attack tests, and make/unmake.
 *
 * Stacks are stored bottom to top: stack[s][0] is the bottom tavrel of square
 * s and stack[s][height[s]-1] its top.  (TFEN and the rules list stacks top to
 * bottom; the storage order makes moving the top k tavrels a copy of the last
 * k bytes.)  The bitboards describe the top tavrel of every non-empty square. */
#ifndef TAVRELI_POSITION_H
#define TAVRELI_POSITION_H

#include <stddef.h>

#include "types.h"

typedef struct {
    uint8_t height[64];
    Tavrel stack[64][TV_MAX_HEIGHT]; /* bottom to top */
    Bitboard occ;                    /* non-empty squares */
    Bitboard by_colour[2];           /* squares whose top is that colour */
    Bitboard by_kind[TV_KIND_COUNT]; /* squares whose top is that kind */
    Square wizard[2];                /* each side's Wizard, TV_NO_SQUARE if none */
    int side;                        /* side to move */
    int castling;                    /* TV_CASTLE_* bits */
    Square ep;                       /* en-passant square or TV_NO_SQUARE */
    int quiet_plies;
    int move_number;
    uint64_t hash;
} Position;

/* Everything make needs to undo a move exactly. */
typedef struct {
    Move move;
    uint64_t hash;
    int castling;
    Square ep;
    int quiet_plies;
    int move_number;
    Tavrel moved[TV_MAX_HEIGHT]; /* the moving part as it was, bottom to top */
    Tavrel from_top;             /* remainder top before the move, 0 if none */
    Tavrel to_top;               /* top of the destination before the move, 0 if none */
    Square lift_sq;              /* en passant: where the double-stepper stood */
    Tavrel lifted;               /* en passant: the double-stepper as it was */
    Tavrel x_top;                /* en passant: top of X before the move, 0 if none */
    Square captured_wizard;      /* ending=capture: square of a Wizard landed on */
} Undo;

/* Empties the board: no tavrels, White to move, no rights, counters 0 1. */
void pos_clear(Position *p);

/* Sets the start position (docs/rules.md section 2). */
void pos_set_start(Position *p);

/* Puts tavrel t on top of square s during set-up.  Call pos_refresh after
 * the last one.  Returns false when the stack is already 32 high. */
static inline bool pos_setup_push(Position *p, Square s, Tavrel t)
{
    if (p->height[s] >= TV_MAX_HEIGHT)
        return false;
    p->stack[s][p->height[s]++] = t;
    return true;
}

/* Recomputes every derived field (bitboards, Wizard squares, hash) from the
 * stacks, side, rights, en-passant square.  Used after set-up. */
void pos_refresh(Position *p);

/* The Zobrist hash computed from scratch; equals p->hash in a sound position.
 * It covers every tavrel's colour, kind, destiny, promoted and moved state on
 * every square and level, the side to move, castling rights and the
 * en-passant square (docs/rules.md section 9). */
uint64_t pos_compute_hash(const Position *p);

/* Checks that every derived field agrees with the stacks.  On failure writes
 * a reason into why (when not NULL) and returns false. */
bool pos_is_ok(const Position *p, char *why, size_t why_len);

/* True when the two positions are the same in every stored field. */
bool pos_equal(const Position *a, const Position *b);

static inline int pos_height(const Position *p, Square s) { return p->height[s]; }

/* Top tavrel of s, or 0 when s is empty. */
static inline Tavrel pos_top(const Position *p, Square s)
{
    return p->height[s] ? p->stack[s][p->height[s] - 1] : (Tavrel)0;
}

/* The i-th tavrel of s counted from the top (i = 0 is the top). */
static inline Tavrel pos_at_from_top(const Position *p, Square s, int i)
{
    return p->stack[s][p->height[s] - 1 - i];
}

/* Number of tavrels on the board. */
int pos_tavrel_count(const Position *p);

/* Attacks from square s by a tavrel of kind `kind` and colour `colour`, as
 * docs/rules.md section 8 defines them, with `blockers` the squares that stop a
 * slider. */
Bitboard pos_attacks_of(Kind kind, int colour, Square s, Bitboard blockers);

/* True when side `by` attacks square s in p (docs/rules.md section 8), under the
 * given options (slide_over_own changes what blocks a slider). */
bool pos_attacked(const Position *p, const Options *o, Square s, int by);

/* Squares of the stacks of side `by` whose tops attack s. */
Bitboard pos_attackers(const Position *p, const Options *o, Square s, int by);

/* True when the side to move's Wizard is attacked (false when it has none,
 * or when it has been landed on under ending=capture). */
bool pos_in_check(const Position *p, const Options *o);

/* Under ending=capture: true when a Wizard of `colour` is covered (the game
 * is over). */
bool pos_wizard_captured(const Position *p, int colour);

/* Plays a legal move (as produced by movegen_legal) and fills u so that
 * pos_unmake_move restores p exactly.  No allocation. */
void pos_make_move(Position *p, Move m, Undo *u);

/* Takes back the move recorded in u, which must be the last one made. */
void pos_unmake_move(Position *p, const Undo *u);

/* Zobrist keys, exposed for tests and the engine. */
uint64_t zobrist_tavrel(Square s, int level, Tavrel t);
uint64_t zobrist_side(void);
uint64_t zobrist_castling(int rights);
uint64_t zobrist_ep(Square s);

/* The colour-mirrored position: ranks reversed, colours swapped, side to
 * move swapped, rights and en-passant square mirrored. */
void pos_mirror(const Position *p, Position *out);

#endif
