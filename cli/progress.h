/* progress.h: drawing a run's progress on stderr (front ends only). */
#ifndef TAVRELI_CLI_PROGRESS_H
#define TAVRELI_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

typedef struct {
    bool tty; /* redraw one line with \r (a terminal); else a plain line per report */
} CliProgress;

/* A RunProgressFn: games done of planned, W/D/L and Elo per pairing, the
 * LLR of an SPRT, games per minute and the ETA.  user is a CliProgress. */
void cli_progress_line(const RunProgress *p, void *user);

/* A duration as "42s", "3m07s" or "2h05m" ("?" when unknown). */
void cli_format_duration(double seconds, char *buf, size_t n);

#endif
