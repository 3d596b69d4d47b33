/* match.h: playing games between players (engine versions or a random
 * mover), with openings and a ply limit.  Each game's randomness comes from
 * a seed and the game's index, so a run gives the same games on any number
 * of threads. */
#ifndef TAVRELI_MATCH_H
#define TAVRELI_MATCH_H

#include <signal.h>
#include <stdint.h>

#include "engine.h"
#include "engine_proc.h"
#include "outcome.h"
#include "movegen.h"
#include "search.h"
#include "tournament.h"

/* What a player is: an engine version with its limits, or a mover that picks
 * uniformly among the legal moves. */
typedef struct {
    PlayerKind kind;
    EngineVersion engine; /* for PLAYER_ENGINE; its limits are used (also by PLAYER_PROCESS) */
    char label[80];
    const TournamentEngine *te; /* the tournament's section: clock, and how to start a
                                   PLAYER_PROCESS (NULL: no clock, built-in or random only) */
} PlayerSpec;

/* A player on one game thread: its spec, and its search context (the
 * built-in engine) or its engine process (a separate program; NULL until
 * the first game, and again after a failure that made it unusable: the
 * next game starts a fresh one).  The thread closes proc when done. */
typedef struct {
    const PlayerSpec *spec;
    SearchContext *ctx;
    EngineProc *proc;
    const char *store_path; /* the store (NULL: none): a program's stderr goes beside it by default */
} MatchPlayer;

/* How match_play ended. */
typedef enum {
    MATCH_FINISHED = 0,  /* out holds the outcome */
    MATCH_ABANDONED = 1, /* *abort_flag was set: the game is not to be stored */
    MATCH_FAILED = 2     /* an engine could not be started or did not answer a new game's isready:
                            err says which and why; the tournament cannot go on */
} MatchEnd;

/* How long the harness waits by default (the engine's `timeout`) for the
 * move of an engine with neither a clock nor movetime (depth or node
 * limits) before it calls the engine stalled (TERM_ENGINE_STALLED). */
#define MATCH_ANSWER_TIMEOUT_MS 60000

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

/* Plays one game from start between two players, with adjudication (see
 * match_play_recorded), the harness as referee: it keeps the clocks of
 * players with a tc (from go sent to bestmove read; both kinds of engine),
 * checks every move with the rules, and ends the game with
 * TERM_ILLEGAL_MOVE, TERM_TIME_FORFEIT, TERM_ENGINE_DIED or
 * TERM_ENGINE_STALLED when the mover fails.  Separate programs are started
 * (or restarted) as needed and told `ucinewgame`. */
MatchEnd match_play(const Position *start, const Options *o, MatchPlayer *white, MatchPlayer *black, uint64_t seed,
                    const Adjudication *adj, PlyRecord *rec, volatile sig_atomic_t *abort_flag, GameOutcome *out,
                    TvError *err);

/* Starts the program of te (a PLAYER_PROCESS), does the handshake, sends
 * its options under the rule options o, and ends it: the check a
 * tournament makes of every separate program before its first game, so that
 * a program that cannot play fails at once with a clear error.  store_path
 * (may be NULL): as MatchPlayer's. */
TvStatus match_check_process(const TournamentEngine *te, const Options *o, const char *store_path, TvError *err);

/* Plays one game from start.  ctx_white/ctx_black are search contexts for
 * engine players (NULL for random movers); they are cleared first so that
 * the game depends only on its inputs.  seed drives the random movers. */
GameOutcome match_play_game(const Position *start, const Options *o, const PlayerSpec *white,
                            SearchContext *ctx_white, const PlayerSpec *black, SearchContext *ctx_black,
                            uint64_t seed, int max_plies);

#endif
