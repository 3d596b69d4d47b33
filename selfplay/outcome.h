/* outcome.h: how a game ended: its result and termination, the vocabulary
 * shared by the games (match.h), the store (h5store.h stores a Termination
 * in /games.termination) and the reports. */
#ifndef TAVRELI_OUTCOME_H
#define TAVRELI_OUTCOME_H

#include <stdbool.h>

typedef enum { RESULT_WHITE = 0, RESULT_DRAW = 1, RESULT_BLACK = 2 } GameResult;

/* Termination of a game, as stored (the numbers are part of the store's
 * schema: never renumber them). */
typedef enum {
    TERM_CHECKMATE = 0,
    TERM_STALEMATE = 1,
    TERM_REPETITION = 2,
    TERM_ADJ_MAX_PLIES = 3, /* adjudicated draw: ply limit */
    TERM_ADJ_RESIGN = 4,    /* adjudicated win: both engines agreed the score was decisive */
    TERM_ADJ_DRAW = 5,      /* adjudicated draw: both engines saw a score near zero */
    TERM_WIZARD_CAPTURED = 6, /* ending=capture */
    /* The harness as referee (docs/protocol.md): the side to move in the
     * final position failed and lost. */
    TERM_ILLEGAL_MOVE = 7,    /* it answered an illegal or unreadable move */
    TERM_TIME_FORFEIT = 8,    /* it overstepped its clock or movetime by more than timemargin */
    TERM_ENGINE_DIED = 9,     /* its process ended or closed its pipe */
    TERM_ENGINE_STALLED = 10  /* no answer within the engine's timeout (no clock to lose on) */
} Termination;

#define TERM_COUNT 11

/* Whether t is one of the referee's terminations (7 to 10): the side to
 * move in the final position lost, and the rules had not ended the game. */
/* The run's summary and the report note it when an engine lost more than
 * this share of its games by the referee's decision.  Each such game can
 * move its score by a whole point, so a share s can move it by s: 2% is up
 * to 14 Elo near an even score (about 7 Elo per percentage point), more
 * than the 0..5 nElo SPRT bounds of docs/engines.md and more than the 95%
 * half-width of a 2,000-game run (12 Elo at 40% draws).
 * (A 3-engine tournament at tc = 2+0.05 under load lost 35 of its 102 games
 * on time, and its report claimed LOS 98.2% where the same tournament
 * without forfeits gave 57.4%; a movetime match at load 27 lost 35 of 63
 * games on time and printed an Elo of +187.) */
#define REFEREE_NOTE_SHARE 0.02

static inline int termination_is_failure(int t) { return t >= TERM_ILLEGAL_MOVE && t <= TERM_ENGINE_STALLED; }

/* Whether termination t ends a game with a winner (checkmate, a captured
 * Wizard, an adjudicated win, a referee's loss): its stored result is then
 * 1 or -1, and 0 for every other termination (the draws). */
static inline int termination_is_decisive(int t)
{
    return t == TERM_CHECKMATE || t == TERM_ADJ_RESIGN || t == TERM_WIZARD_CAPTURED || termination_is_failure(t);
}

/* How one game ended. */
typedef struct {
    GameResult result;
    Termination termination;
    int plies;
    int over_ms; /* TERM_TIME_FORFEIT: the loser's time beyond its limit and timemargin (ms); else 0 */
    bool unready; /* TERM_ENGINE_STALLED: the loser gave no readyok within the handshake limit before
                     its move (else its move did not come within its timeout) */
    int ready_ms[2];     /* [side]: its waits before readyok ahead of its moves, in all (ms; on no clock) */
    int ready_max_ms[2]; /* ... and the longest of them */
    int think_ms[2];     /* [side]: its thinking time on those moves, in all (ms) */
} GameOutcome;

/* The short name of a termination ("checkmate", "max_plies", ...; "unknown"
 * for a number that is not a Termination). */
const char *termination_name(Termination t);

/* One line saying what a termination means ("a termination code this
 * program does not know" for a number that is not one). */
const char *termination_meaning(Termination t);

/* The stored form of a result: 1 White won, 0 draw, -1 Black won. */
static inline int game_result_sign(GameResult r) { return r == RESULT_WHITE ? 1 : r == RESULT_BLACK ? -1 : 0; }

#endif
