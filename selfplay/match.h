/* match.h: the referee of games between players (player.h: engine
 * versions, separate programs or a random mover), with openings and a ply
 * limit.  Each game's randomness comes from
 * a seed and the game's index, so a run gives the same games on any number
 * of threads. */
#ifndef TAVRELI_MATCH_H
#define TAVRELI_MATCH_H

#include <signal.h>
#include <stdint.h>

#include "engine.h"
#include "movegen.h"
#include "outcome.h"
#include "player.h"
#include "search.h"
#include "tournament.h"

/* How match_play ended. */
typedef enum {
    MATCH_FINISHED = 0,  /* out holds the outcome */
    MATCH_ABANDONED = 1, /* a stop flag was set: the game is not to be stored */
    MATCH_FAILED = 2,    /* a player could not begin the game (a program that never started, or one
                            started again as another program): err says which and why; the
                            tournament cannot go on */
    MATCH_AGAIN = 3      /* a program ended or did not answer as the game began (ucinewgame), or
                            could not be started again: nothing was played, err says how; the
                            next match_play starts a fresh process and begins the game again */
} MatchEnd;

/* How long the harness waits by default (the engine's `timeout`) for the
 * move of an engine with neither a clock nor movetime (depth or node
 * limits) before it calls the engine stalled (TERM_ENGINE_STALLED). */
#define MATCH_ANSWER_TIMEOUT_MS 60000

/* What a game records per ply: the move and the mover's search figures. */
typedef struct {
    Move move;
    int score; /* mover's view; 0 for a random mover */
    int depth;
    uint64_t nodes;
    int time_ms;  /* the mover's thinking time */
    int clock_ms; /* the mover's clock after the move (-1: no clock) */
} PlyRecord;

/* Plays one game from start between two players (white may be black: it
 * then plays itself), the harness as referee: each player is told a new
 * game (player_new_game with the seed: the game depends only on its
 * inputs), then asked for its moves.  The referee keeps the clocks of
 * players with a tc (from the request to the answer), checks every move
 * with the rules, and ends the game with TERM_ILLEGAL_MOVE,
 * TERM_TIME_FORFEIT, TERM_ENGINE_DIED or TERM_ENGINE_STALLED when the mover
 * fails, by the rules, or by adjudication (adj may be NULL: only the rules
 * end the game, and max_plies of 1000).  When rec is not NULL it receives
 * one entry per ply (room for adj->max_plies entries).  The game is
 * abandoned (MATCH_ABANDONED) as soon as a flag of stop (may be NULL) is
 * set. */
MatchEnd match_play(const Position *start, const Options *o, Player *white, Player *black, uint64_t seed,
                    const Adjudication *adj, PlyRecord *rec, const StopFlags *stop, GameOutcome *out, TvError *err);

#endif
