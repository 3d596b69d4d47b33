/* match.h: playing games between players (engine versions or a random
 * mover), with openings and a ply limit.  Each game's randomness comes from
 * a seed and the game's index, so a run gives the same games on any number
 * of threads. */
#ifndef TAVRELI_MATCH_H
#define TAVRELI_MATCH_H

#include <signal.h>
#include <stdint.h>

#include "engine.h"
#include "outcome.h"
#include "movegen.h"
#include "search.h"
#include "tournament.h"

/* What a player is: an engine version with its limits, or a mover that picks
 * uniformly among the legal moves. */
typedef struct {
    PlayerKind kind;
    EngineVersion engine; /* for PLAYER_ENGINE; its limits are used */
    char label[80];
} PlayerSpec;

/* Plays `plies` random legal moves from the start position (seeded); retries
 * with the next random numbers when the game ends during the opening. */
void match_random_opening(const Options *o, uint64_t seed, int plies, Position *out);

/* What a game records per ply: the move and the mover's search figures. */
typedef struct {
    Move move;
    int score; /* mover's view; 0 for a random mover */
    int depth;
    uint64_t nodes;
    int time_ms;  /* the mover's thinking time */
    int clock_ms; /* the mover's clock after the move (-1: no clock) */
} PlyRecord;

/* Plays one game from start with adjudication (adj may be NULL: only the
 * rules end the game, and max_plies of 1000).  When rec is not NULL it
 * receives one entry per ply (room for adj->max_plies entries).  The game is
 * abandoned (returns false) as soon as *abort_flag becomes non-zero (may be
 * NULL).  Contexts are cleared first, so the game depends only on its
 * inputs. */
bool match_play_recorded(const Position *start, const Options *o, const PlayerSpec *white, SearchContext *ctx_white,
                         const PlayerSpec *black, SearchContext *ctx_black, uint64_t seed, const Adjudication *adj,
                         PlyRecord *rec, volatile sig_atomic_t *abort_flag, GameOutcome *out);

/* Plays one game from start.  ctx_white/ctx_black are search contexts for
 * engine players (NULL for random movers); they are cleared first so that
 * the game depends only on its inputs.  seed drives the random movers. */
GameOutcome match_play_game(const Position *start, const Options *o, const PlayerSpec *white,
                            SearchContext *ctx_white, const PlayerSpec *black, SearchContext *ctx_black,
                            uint64_t seed, int max_plies);

#endif
