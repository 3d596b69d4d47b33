/* player.h: one side of a game, whatever makes its moves.
 *
 * The referee (match.c) opens a player from a tournament's [engine NAME]
 * section, tells it a game begins, asks it for moves with the clocks and
 * the game so far, and closes it; it never asks which kind of player it
 * is.  Behind this seam (player.c) are three kinds, chosen from the
 * section's PlayerKind when the player is opened:
 *  - the built-in engine in this process (its own search context);
 *  - a separate program speaking the engine protocol (engine_proc.h),
 *    started at the first game and again after a failure that made it
 *    unusable;
 *  - a mover at random among the legal moves (a sanity baseline), drawing
 *    from the game's seed.
 * A player belongs to one thread: the thread that opens it closes it (a
 * separate program's guard follows the thread that started it). */
#ifndef TAVRELI_PLAYER_H
#define TAVRELI_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "h5store.h"
#include "outcome.h"
#include "position.h"
#include "record.h"
#include "search.h"
#include "status.h"
#include "strbuf.h"
#include "tournament.h"

typedef struct Player Player;

/* Opens the player of te under the rules o (te and o must outlive it).
 * store_path (may be NULL: no store): a separate program's stderr goes by
 * default to STORE.NAME.log beside it (results/NAME.h5:
 * results/NAME.NAME.log).  Errors: out of memory. */
TvStatus player_open(const TournamentEngine *te, const Options *o, const char *store_path, Player **out,
                     TvError *err);

/* Closes p (ends its program, frees its search); NULL is ignored. */
void player_close(Player *p);

/* The section p was opened from: its limits, clock and timemargin, which
 * the referee applies to every kind of player. */
const TournamentEngine *player_config(const Player *p);

/* The check a tournament makes of every player before its first game, so
 * that one that cannot play fails at once with a clear error, and its
 * identity (engine_id.h), into *se: a separate program is started, does
 * the handshake, takes its options and the rule options, says its id name
 * and author, and is ended; its executable is hashed and its bench
 * signature measured (the engine's bench command, else for a tavreli build
 * `EXECUTABLE bench search`; engine_id_bench).  The other kinds
 * always can play; their identity is their configuration's
 * (engine_id_of_entry).  A program that is started again during a
 * run (after a crash or a stall) must be the same program (executable and
 * id name) or the run ends with an error. */
TvStatus player_identify(const TournamentEngine *te, const Options *o, const char *store_path, StoredEngine *se,
                         TvError *err);

/* A game begins: the built-in engine forgets what it learnt (the game then
 * depends only on its inputs), a random mover draws from seed from now on,
 * and a separate program is started (or restarted) and told `ucinewgame`.
 * Errors: a program that ended or did not answer as the game began, or
 * that could not be started again after it had played (*again set: the
 * process is gone, the next call starts a fresh one, the game may be begun
 * again); a program started again as another program, or one that never
 * started (*again false: the tournament cannot go on). */
TvStatus player_new_game(Player *p, uint64_t seed, bool *again, TvError *err);

/* The game so far, as the referee gives it with each request. */
typedef struct {
    const Position *pos;       /* the position to move in */
    const char *start_tfen;    /* the game's start */
    const uint64_t *hist;      /* the hash of the position before each move played */
    const char *const *moves;  /* the moves played since the start, as text */
    int nmoves;
} PlayerGame;

/* The clocks the referee keeps (a side without a tc has none). */
typedef struct {
    bool on[2];      /* [side]: that side has a clock */
    int left_ms[2];  /* its time left */
    int inc_ms[2];   /* its increment (0 without a clock) */
    int movestogo;   /* the mover's moves to its next time control (0: none) */
} PlayerClocks;

/* How a request for a move ended. */
typedef enum {
    PLAYER_MOVED = 0,   /* out->move holds its move, as text: the referee checks it with the rules */
    PLAYER_STOPPED = 1, /* a stop flag was set while it thought: the game is abandoned (the move of a
                           search cut short is one its limits would not have chosen) */
    PLAYER_FAILED = 2   /* it loses by out->failure: TERM_ILLEGAL_MOVE (a bestmove without a move),
                           TERM_TIME_FORFEIT, TERM_ENGINE_DIED or TERM_ENGINE_STALLED */
} PlayerAnswer;

/* What it answered. */
typedef struct {
    char move[64];       /* its move (may be unreadable or illegal: the referee checks) */
    bool has_score;      /* its score counts for adjudication (not a random mover's, nor a
                            program's that gave none) */
    int score;           /* from its own view; 0 without one */
    int depth;           /* 0 when not given */
    uint64_t nodes;      /* 0 when not given */
    double seconds;      /* its thinking time, as the harness measured it */
    double ready_seconds; /* a program: its wait before the readyok ahead of this move, on no clock
                             (0 for the other kinds) */
    Termination failure; /* PLAYER_FAILED: how it lost */
    bool unready;        /* ... TERM_ENGINE_STALLED because no readyok came within the handshake limit
                            before its go (not because its move did not come within its timeout) */
} PlayerMove;

/* Asks p for its move in game g with the clocks c and its limits; stop
 * (may be NULL) ends the thinking early: the built-in search polls its
 * flags, and a program is waited for only until one is set. */
PlayerAnswer player_go(Player *p, const PlayerGame *g, const PlayerClocks *c, const StopFlags *stop,
                       PlayerMove *out);

/* The threads te thinks with: a program's option.Threads (1 when not
 * given), 1 for the other kinds. */
int player_threads(const TournamentEngine *te);

/* ---- a player's integer parameters (what SPSA tunes) ---------------------------------
 * The built-in engine's are its integer search settings and weight elements
 * (core/option.h: "lmr_min_depth", "top_value[1]"); a program's are the spin
 * options it declares.  Every kind is asked the same way. */

/* What one parameter is for a player. */
typedef struct {
    bool known;    /* the player was asked (false: a program not started, see player_params) */
    bool ok;       /* it is an integer parameter of the player ... */
    long lo, hi;   /* ... with this range (inclusive) */
    char why[256]; /* else why it cannot be tuned, in words ("the built-in engine has no such setting or weight") */
    int index;     /* the built-in engine's: its option index (core/option.h); -1 otherwise */
} PlayerParamInfo;

/* What each of names[0..n-1] is for te.  A program is started (under the
 * rule options o) to read its declarations, and ended, only when
 * start_programs; else its parameters are not known yet.  TV_OK when each
 * info says what is known; an error when a program cannot be started. */
TvStatus player_params(const TournamentEngine *te, const Options *o, const char *const *names, int n,
                       bool start_programs, PlayerParamInfo *info, TvError *err);

/* Makes te's option.NAME lines take effect as far as they can before it
 * plays, in order: the built-in engine's are applied to its version now
 * (core/option.h: a name it has not or a bad value is an error, *bad the
 * line's index); a program's are sent when it starts (nothing to do now). */
TvStatus player_take_options(TournamentEngine *te, int *bad, TvError *err);

/* Gives te's parameter `name` the value (its next games play with it): the
 * built-in engine's setting or weight, a program's option.NAME. */
TvStatus player_set_param(TournamentEngine *te, const char *name, long value, TvError *err);

/* Writes te as it stands to path (atomically), for a tournament's [engine]
 * section to take up again: the built-in engine as an engine INI (its
 * name `name`, engine_write; a section takes it as `path = FILE`), a
 * program as the option.NAME = VALUE lines of its given options (a
 * section takes them as they are, after its command).  comment: a line
 * saying what the file is. */
TvStatus player_write(const TournamentEngine *te, const char *path, const char *name, const char *comment,
                      TvError *err);

/* Appends to out the lines of a tournament's [engine] section that make
 * the player written by player_write to `written` (an absolute path):
 * "path = FILE" for the built-in engine, the option lines for a program
 * (whose command comes from the section's [each]). */
TvStatus player_section(const TournamentEngine *te, const char *written, StrBuf *out, TvError *err);

#endif
