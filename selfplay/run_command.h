/* run_command.h: runs a helper program to its end and keeps what it printed
 * (a program's bench signature, engine_id.h; git and cmake for the builds of
 * `tavreli compare`, build_cache.h).
 *
 * Not for engines: a game's program speaks the protocol through
 * engine_proc.h. */
#ifndef TAVRELI_RUN_COMMAND_H
#define TAVRELI_RUN_COMMAND_H

#include <stddef.h>

#include "status.h"
#include "strbuf.h"

/* What one run printed and how it ended. */
typedef struct {
    StrBuf out;      /* its standard output and error, interleaved as written; only the last
                        RUN_COMMAND_KEEP bytes when it printed more (`cut` says how many went) */
    size_t cut;      /* bytes dropped from the front of out */
    int exit_status; /* its exit status (0..255), or 128 + the signal that ended it */
    int timed_out;   /* 1: it was killed at the deadline */
} CommandResult;

/* The most of a command's output kept: a build log's last part, or a bench's
 * whole output (a few kilobytes). */
#define RUN_COMMAND_KEEP (256 * 1024)

/* Runs argv (argv[0] found along PATH as execvp finds it) in dir (NULL: the
 * current one), standard input from /dev/null, and waits for its end at
 * most timeout_ms (0: no limit; then it is killed, and its process group).
 * TV_OK when it ran (whatever its exit status: see r->exit_status); an
 * error when it could not be started.  The caller frees r->out. */
TvStatus run_command(char *const argv[], const char *dir, int timeout_ms, CommandResult *r, TvError *err);

/* The last `lines` lines of text, into buf (for "the compiler said: ..."). */
void run_command_tail(const char *text, int lines, char *buf, size_t n);

#endif
