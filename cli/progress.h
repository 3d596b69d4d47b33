/* progress.h: drawing a run's progress on stderr and its standings on
 * stdout (front ends only). */
#ifndef TAVRELI_CLI_PROGRESS_H
#define TAVRELI_CLI_PROGRESS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

typedef struct {
    bool tty;           /* redraw one line with \r (a terminal); else a plain line per report */
    double last_detail; /* when the per-pairing table was last printed (seconds into the run) */
} CliProgress;

/* A RunProgressFn: games done of planned (and this run's share with
 * --games), each pairing's W/D/L and Elo while they fit the terminal's
 * width (else their count, with the full table every minute), the LLR of an
 * SPRT, games per minute and the ETA.  user is a CliProgress. */
void cli_progress_line(const RunProgress *p, void *user);

/* A RunRefereeFn: one line on stderr per game the referee ended ("game 17:
 * new loses on time (white, 2 ms over the margin, after 40 plies, against
 * old)"), above the progress line.  user is a CliProgress. */
void cli_progress_referee(const RefereeEnd *e, void *user);

/* RunOptions.note: the line on stderr as a warning (printed also with
 * --quiet: a program that failed as a game began). */
void cli_progress_note(const char *text, void *user);

/* ---- stdout that never holds the work up ------------------------------------
 * A long command's lines for stdout (tune's progress and summary): a
 * closed stdout (`| head -1`) or a full pipe must never cost a result nor
 * keep a signal from being obeyed.  cli_out_printf writes what stdout takes
 * now without waiting (poll) and keeps the rest; cli_out_finish, once the
 * results are written, waits for stdout to take the rest, and gives up on a
 * signal (*stop set).  SIGPIPE is ignored from cli_out_begin on, so a
 * closed stdout is an error of the write (EPIPE), not the process's death. */
typedef struct {
    char *pending; /* what stdout has not taken yet */
    size_t len, cap;
    int error;     /* the errno of a write that failed (EPIPE, ENOSPC); 0 */
} CliOut;

void cli_out_begin(CliOut *o);
void cli_out_printf(CliOut *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes what is pending, waiting while stdout is full, until all is
 * written, a write fails, or *stop is set.  Returns whether all of it was
 * written (on false a failed write is in o->error; the caller's exit status
 * says the answer was lost).  Frees o. */
bool cli_out_finish(CliOut *o, const volatile sig_atomic_t *stop);

/* After a run, on stdout: per engine that lost games by the referee, how many
 * and by which termination (nothing when none did). */
void cli_print_referee(const Tournament *t, const RefereeCounts *rc, const RatedGame *games, int64_t ngames);

/* After a run, on stdout: per engine whose waits before readyok deserve a
 * note (run_wait_notable), how long it waited in all, the longest wait and
 * its share of its thinking time: time on no clock (nothing when none). */
void cli_print_waits(const Tournament *t, const ReadyWaits *w);

/* The standings after a run, on stdout: every engine, best first, with its
 * Elo and 95% interval (BayesElo's model over all the games), games and
 * score.  With two engines the Elo is the difference between them with its
 * interval, as on the progress line (stats_format_elo). */
void cli_print_standings(const Tournament *t, const RatedGame *games, int64_t ngames);

/* A duration as "42s", "3m07s" or "2h05m" ("?" when unknown). */
void cli_format_duration(double seconds, char *buf, size_t n);

/* Columns of the terminal at fd (its window size, else $COLUMNS, else 80). */
int cli_terminal_width(int fd);

#endif
