/* progress.c: the progress line of a run (selfplay, strength), drawn from
 * the runner's RunProgress reports.  See progress.h. */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cli_format_duration(double s, char *buf, size_t n)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

void cli_progress_line(const RunProgress *p, void *user)
{
    const CliProgress *cp = user;
    const Tournament *t = p->t;
    if (!cp->tty && !p->final && p->done == 0 && p->todo == 0)
        return; /* nothing to play: no line until the summary */
    char line[1024];
    size_t len = 0;
    double rate = p->elapsed > 0 ? (double)p->done / p->elapsed * 60.0 : 0; /* games per minute */
    char eta[32];
    cli_format_duration(rate > 0 ? (double)(p->todo - p->done) / rate * 60.0 : INFINITY, eta, sizeof eta);
    len += (size_t)snprintf(line + len, sizeof line - len, "games %lld/%lld", (long long)p->finished,
                            (long long)p->total);
    int npairings = tournament_pairings(t);
    for (int k = 0; k < npairings && len < sizeof line - 160; k++) {
        int a, b;
        tournament_pairing(t, k, &a, &b);
        PairingStats ps;
        pairing_stats(p->games, p->ngames, a, b, &ps);
        char e[48];
        if (ps.wins + ps.draws + ps.losses > 1 && isfinite(ps.elo_err95))
            snprintf(e, sizeof e, "%+.0f±%.0f", ps.elo, ps.elo_err95);
        else
            snprintf(e, sizeof e, "-");
        len += (size_t)snprintf(line + len, sizeof line - len, " | %s-%s +%lld=%lld-%lld Elo %s",
                                t->engines[a].engine.name, t->engines[b].engine.name, (long long)ps.wins,
                                (long long)ps.draws, (long long)ps.losses, e);
    }
    if (p->sprt)
        len += (size_t)snprintf(line + len, sizeof line - len, " | LLR %.2f [%.2f, %.2f]", p->llr, p->lower,
                                p->upper);
    snprintf(line + len, sizeof line - len, " | %.1f games/min | ETA %s", rate, p->final ? "done" : eta);
    if (cp->tty)
        fprintf(stderr, "\r\033[K%s%s", line, p->final ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
}
