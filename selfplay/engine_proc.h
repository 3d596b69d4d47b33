/* engine_proc.h: an engine that is a separate program, spoken to over the
 * engine protocol (docs/protocol.md) on its stdin and stdout.
 *
 * The harness side of the protocol.  Each program runs under a guard
 * process of its own (engine_guard.c): the program and everything it starts
 * (children, grandchildren, double-forked daemons) are killed when it
 * ends, when it is closed, and when the harness dies, even by SIGKILL or an
 * MPI abort; the program runs in its own process group (a Ctrl-C on the
 * terminal reaches the harness only, which then ends its engines).  Its
 * lines are read with deadlines, and its end is watched as well as its
 * output, so that an engine that hangs, floods or dies never blocks the
 * harness.  Its stderr lines are kept (the last ones in every error) and
 * written to a file; a protocol log may record every line both ways.
 * Lines are read and written through core/uci.h, the one codec of the
 * protocol.
 *
 * An EngineProc belongs to one thread: the thread that starts it must close
 * it (the guard's PR_SET_PDEATHSIG follows the starting thread). */
#ifndef TAVRELI_ENGINE_PROC_H
#define TAVRELI_ENGINE_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "record.h"
#include "search.h"
#include "status.h"
#include "uci.h"

/* Handshake answers (uciok, readyok) must come within this time (the
 * issue's figure, also cutechess's default). */
#define ENGINE_PROC_HANDSHAKE_MS 10000

/* At most this many options are kept from an engine's `uci` answer. */
#define ENGINE_PROC_MAX_OPTIONS 512

/* stderr_path for an engine whose stderr is the harness's own. */
#define ENGINE_PROC_STDERR_INHERIT "inherit"

/* How to start an engine program. */
typedef struct {
    const char *label;    /* the tournament's name for it (for messages) */
    const char *command;  /* program and arguments, split at blanks; quotes ' and " group words; a
                             relative program with a '/' is found from the harness's working
                             directory, not from dir */
    const char *dir;      /* working directory ("" or NULL: the harness's) */
    const char *stderr_path; /* append its stderr lines here ("" or NULL: keep only the last ones for
                                errors; ENGINE_PROC_STDERR_INHERIT: passed on to the harness's own
                                stderr, line by line) */
    const char *log_path; /* the protocol log: every line both ways, with times ("" or NULL: none) */
    int64_t log_cap;      /* the stderr file and the protocol log take no more lines once they hold
                             this many bytes; its last lines and a note of what was cut are written
                             when the process is closed (0: no cap) */
    const Options *rules; /* rule options sent with setoption (non-default ones must be declared) */
    int noptions;         /* option.NAME = VALUE lines of the tournament, sent with setoption */
    const char (*option_names)[UCI_OPTION_NAME_MAX];
    const char (*option_values)[UCI_OPTION_VALUE_MAX];
    int start_timeout_ms; /* the start's handshake (uciok, then readyok after the options) must come within
                             this time (0: ENGINE_PROC_HANDSHAKE_MS) */
} EngineProcSpec;

typedef struct EngineProc EngineProc;

/* Starts the program, does the handshake (`uci` ... `uciok`), checks and
 * sends the options (every non-default rule option must be declared by the
 * engine; an option.NAME must be declared and its value must suit the
 * declaration), and waits for `readyok`.  Errors name the engine and say
 * what it printed (its last lines) or how it ended. */
TvStatus engine_proc_start(const EngineProcSpec *spec, EngineProc **out, TvError *err);

/* The engine's `id name` and `id author` ("" when it gave none). */
const char *engine_proc_name(const EngineProc *p);
const char *engine_proc_author(const EngineProc *p);

/* The option declarations the engine gave. */
int engine_proc_option_count(const EngineProc *p);
const UciOption *engine_proc_option(const EngineProc *p, int i);

/* A new game: `ucinewgame`, then `isready` ... `readyok` within
 * ENGINE_PROC_HANDSHAKE_MS.  An error says what went wrong. */
TvStatus engine_proc_new_game(EngineProc *p, TvError *err);

/* How asking for a move ended. */
typedef enum {
    ENGINE_MOVE_OK = 0,      /* a bestmove line came (its move may still be illegal: the caller checks) */
    ENGINE_MOVE_LATE = 1,    /* no bestmove before the deadline */
    ENGINE_MOVE_DIED = 2,    /* the engine closed its output or its process ended */
    ENGINE_MOVE_ABORTED = 3, /* a flag of stop became non-zero while waiting */
    ENGINE_MOVE_NOMOVE = 4,  /* a bestmove line without a move */
    ENGINE_MOVE_UNREADY = 5  /* no readyok within ENGINE_PROC_HANDSHAKE_MS of the isready before go */
} EngineMoveStatus;

/* What the engine answered. */
typedef struct {
    char move[64];    /* the bestmove's move word (may be unreadable) */
    UciInfo info;     /* the last info line with a score (depth, score, nodes as given) */
    double seconds;   /* from sending go to reading bestmove */
    double ready_seconds; /* from sending the isready before go to reading its readyok (or giving
                             up): a wait that is on no clock */
} EngineMove;

/* Sends `position` (start_tfen NULL = the start position, and the moves
 * played since) and `isready`, passes over everything the engine says
 * before `readyok` (a late or repeated bestmove is never taken for the
 * answer), then sends `go` (go) and reads until `bestmove`.  Gives up
 * limit_s seconds after `go` was sent (<= 0: never; the round trip of
 * `isready` before it is not the engine's thinking time) or
 * when a flag of stop (may be NULL) becomes non-zero.  ENGINE_MOVE_DIED comes
 * as soon as the engine's process ends or its stdout closes, whichever is
 * first, after every line it wrote was read. */
EngineMoveStatus engine_proc_go(EngineProc *p, const char *start_tfen, const char *const *moves, int nmoves,
                                const UciGo *go, double limit_s, const StopFlags *stop,
                                EngineMove *out);

/* After ENGINE_MOVE_LATE: sends `stop` and waits up to wait_ms for its
 * bestmove.  False when it does not come (the engine is then unusable). */
bool engine_proc_stop(EngineProc *p, int wait_ms);

/* Whether the process is still usable (no pipe closed, no answer missed). */
bool engine_proc_alive(const EngineProc *p);

/* How the process ended, or "still running" ("exited with status 3",
 * "killed by signal 6 (Aborted)"), after ENGINE_MOVE_DIED. */
const char *engine_proc_exit_text(EngineProc *p);

/* Ends the engine: `quit`, a short wait, then its guard kills it and
 * everything it started; reaps the guard.  NULL is ignored. */
void engine_proc_close(EngineProc *p);

/* Splits a command line into words (blanks separate; '...' and "..." group,
 * without escapes).  Returns the number of words (at most max - 1; argv is
 * NULL-terminated and points into buf), or -1 when a quote is not closed or
 * there are too many words. */
int engine_proc_split(const char *command, char *buf, size_t n, char **argv, int max);

#endif
