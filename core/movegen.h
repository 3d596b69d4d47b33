/* movegen.h: legal move generation (docs/rules.md sections 4-8). */
#ifndef TAVRELI_MOVEGEN_H
#define TAVRELI_MOVEGEN_H

#include "position.h"

/* Fills list with every legal move of the side to move: one entry per
 * distinct (from, k, to), plus castling.  Under ending=capture, a position in
 * which a Wizard has been landed on has no moves.  No allocation. */
void movegen_legal(const Position *p, const Options *o, MoveList *list);

/* The legal moves that land on an opponent stack (en passant included) or
 * bring a combatant mover to its far rank (promotion), every k: what the
 * engine's quiescence search looks at.  No allocation. */
void movegen_tactical(const Position *p, const Options *o, MoveList *list);

/* movegen_tactical restricted to chosen counts: a move (from, k, to) is
 * kept only when bit k-1 of kmask[from] is set (the engine's quiescence
 * search picks the k worth trying per stack).  in_check is pos_in_check(p, o),
 * which the search has at hand (not computed again).  No allocation. */
void movegen_tactical_k(const Position *p, const Options *o, const uint32_t kmask[64], bool in_check, MoveList *list);

/* movegen_legal's list (the same moves in the same order) when the side to
 * move is in check: pos_in_check(p, o) is true, and the caller knows it (as
 * the engine's quiescence search does).  No allocation. */
void movegen_evasions(const Position *p, const Options *o, MoveList *list);

/* True when m is among the legal moves of p: the same answer as
 * movegen_is_legal, but only the moves of m's stack to m's destination (or
 * the castlings) are generated, so it is cheap enough to test a hash move
 * before generating all moves. */
bool movegen_check_move(const Position *p, const Options *o, Move m);

/* True when the legal move m gives check: after it, the opponent's Wizard
 * is attacked (what pos_in_check says once m is made), found from the tops
 * the move changes without making it.  False under ending=capture when m
 * lands on the Wizard. */
bool movegen_gives_check(const Position *p, const Options *o, Move m);

/* Number of legal moves (what perft counts at its last ply). */
int movegen_count(const Position *p, const Options *o);

/* True when m is among the legal moves of p. */
bool movegen_is_legal(const Position *p, const Options *o, Move m);

/* The state of the game in p, ignoring repetition (see game.h for that). */
typedef enum {
    TV_STATE_ONGOING = 0,
    TV_STATE_CHECKMATE,
    TV_STATE_STALEMATE,
    TV_STATE_REPETITION,
    TV_STATE_WIZARD_CAPTURED /* ending=capture: the side to move lost its Wizard */
} GameState;

const char *game_state_name(GameState s);

/* Checkmate, stalemate, Wizard captured or ongoing. */
GameState movegen_state(const Position *p, const Options *o);

#endif
