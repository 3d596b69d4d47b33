/* simple_movegen.h: a deliberately simple, independent Tavreli move generator
 * and perft, used only by the tests to cross-check the fast one in core/.
 *
 * It is written from docs/rules.md alone (sections 3-8, 10 and 15), never from
 * core/movegen.c or core/position.c.  It uses its own plain representation,
 * copy-make (every move is played on a copy), naive square-by-square ray
 * walking and legality by playing the move in full and scanning every
 * opponent top for an attack on the mover's Wizard.  Speed is not a goal. */
#ifndef TAVRELI_SIMPLE_MOVEGEN_H
#define TAVRELI_SIMPLE_MOVEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "position.h"
#include "types.h"

/* A position: only what the rules need.  Stacks bottom to top, like the core
 * (st[s][h[s]-1] is the top); ep is -1 when there is no en-passant square. */
typedef struct {
    uint8_t h[64];
    Tavrel st[64][TV_MAX_HEIGHT];
    int side;
    int castling;
    int ep;
} SimplePos;

/* One move: (from, k, to) plus special (TV_MOVE_NORMAL, TV_MOVE_ENPASSANT,
 * TV_MOVE_CASTLE_SHORT, TV_MOVE_CASTLE_LONG; castling has from = the Wizard's
 * square, to = its landing square, k = 1). */
typedef struct {
    uint8_t from, to, k, special;
} SimpleMove;

#define SIMPLE_MAX_MOVES TV_MAX_MOVES

/* Copies stacks, side, castling rights and en-passant square of a core
 * Position. */
void simple_from_position(const Position *p, SimplePos *sp);

/* An independent minimal TFEN reader (docs/rules.md section 12) for well-formed
 * input: returns false on anything it does not understand.  Lets the tests
 * check the simple generator without the core reader and cross-check
 * tfen_read. */
bool simple_from_tfen(const char *tfen, SimplePos *sp);

/* True when sp and p hold the same stacks, side, rights and en-passant
 * square.  On a difference writes it into why (when not NULL). */
bool simple_equals_position(const SimplePos *sp, const Position *p, char *why, size_t why_len);

/* True when side `by` attacks square x (docs/rules.md section 8). */
bool simple_attacked(const SimplePos *sp, const Options *o, int x, int by);

/* Under ending=capture: true when some Wizard is covered (the game is over). */
bool simple_wizard_captured(const SimplePos *sp);

/* Every legal move of the side to move; returns the count. */
int simple_gen(const SimplePos *sp, const Options *o, SimpleMove *out);

/* Plays m (legal, as produced by simple_gen) on a copy: *out = sp after m. */
void simple_make(const SimplePos *sp, SimpleMove m, SimplePos *out);

uint64_t simple_perft_sp(const SimplePos *sp, const Options *o, int depth);

/* The entry points the property tests use. */
int simple_legal_moves(const Position *p, const Options *o, SimpleMove *out);
uint64_t simple_perft(const Position *p, const Options *o, int depth);

/* Converts to / from the core's packed Move. */
Move simple_move_to_core(SimpleMove m);
SimpleMove simple_move_from_core(Move m);

/* "e2(1)-e4 ep" style text for messages (buf of at least 32 bytes). */
char *simple_move_str(SimpleMove m, char *buf);

#endif
