/* progress.c: the progress display of a run (selfplay, strength), drawn
 * from the runner's RunProgress reports, and the standings at its end.  See
 * progress.h. */
#include "progress.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "engine_proc.h"
#include "ratings.h"
#include "run_session.h"

/* Seconds between the per-pairing tables: often enough to follow a long
 * run, rare enough not to flood a terminal or a log. */
#define DETAIL_EVERY 60.0

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

int cli_terminal_width(int fd)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    int w = c ? atoi(c) : 0;
    return w >= 20 ? w : 80;
}

/* One pairing as "a-b +W=D-L Elo" into buf. */
static void pairing_text(const RunProgress *p, int k, char *buf, size_t n)
{
    int a, b;
    tournament_pairing(p->t, k, &a, &b);
    PairingStats ps;
    pairing_stats(p->games, p->ngames, a, b, &ps);
    char elo[48];
    stats_format_elo(&ps, elo, sizeof elo);
    snprintf(buf, n, "%s-%s +%lld=%lld-%lld %s%s", p->t->engines[a].engine.name, p->t->engines[b].engine.name,
             (long long)ps.wins, (long long)ps.draws, (long long)ps.losses, elo,
             tournament_engines_identical(p->t, a, b) ? " (identical engines)" : "");
}

/* The per-pairing table, one line each (for a log, or above the line). */
static void print_pairings(const RunProgress *p)
{
    int np = tournament_pairings(p->t);
    for (int k = 0; k < np; k++) {
        char text[256];
        pairing_text(p, k, text, sizeof text);
        fprintf(stderr, "  %s\n", text);
    }
}

/* The referee's terminations in a few words, for the progress line and the
 * summary, in RefereeCounts order (illegal move, time forfeit, engine died,
 * engine stalled). */
static const char *const REFEREE_SHORT[RUN_REFEREE_KINDS] = {"illegal", "time", "died", "stalled"};
static const char *const REFEREE_LOSES[RUN_REFEREE_KINDS] = {
    "loses by an illegal or unreadable move", "loses on time", "loses: its process died",
    "loses: no answer within its timeout"};

/* " | lost by referee: b 3 time 1 died; c 1 illegal" into buf ("" when there
 * are none). */
static void referee_text(const Tournament *t, const RefereeCounts *rc, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int e = 0; rc && e < t->nengines; e++) {
        bool named = false;
        for (int k = 0; k < RUN_REFEREE_KINDS; k++) {
            if (!rc->lost[e][k] || len >= n)
                continue;
            if (!named)
                len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "; " : " | lost by referee: ",
                                        t->engines[e].engine.name);
            named = true;
            if (len < n)
                len += (size_t)snprintf(buf + len, n - len, " %lld %s", (long long)rc->lost[e][k],
                                        REFEREE_SHORT[k]);
        }
    }
}

/* " | readyok waits: b 24s (thinking 60s)" into buf for the engines
 * whose waits deserve a note (run_wait_notable); "" when none do. */
static void waits_text(const Tournament *t, const ReadyWaits *w, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int e = 0; w && e < t->nengines && len < n; e++) {
        if (!run_wait_notable(w->total_ms[e], w->think_ms[e]))
            continue;
        char d[32], think[32];
        cli_format_duration(w->total_ms[e] / 1000.0, d, sizeof d);
        cli_format_duration(w->think_ms[e] / 1000.0, think, sizeof think);
        len += (size_t)snprintf(buf + len, n - len, "%s%s %s (thinking %s)", len ? "; " : " | readyok waits: ",
                                t->engines[e].engine.name, d, think);
    }
}

void cli_progress_referee(const RefereeEnd *e, void *user)
{
    CliProgress *cp = user;
    if (cp->tty) /* above the progress line, which the next report redraws */
        fputs("\r\033[K", stderr);
    char over[48] = "";
    if (e->termination == TERM_TIME_FORFEIT)
        snprintf(over, sizeof over, ", %d ms over the margin", e->over_ms);
    char unready[160];
    snprintf(unready, sizeof unready, "loses: no 'readyok' within %d s of the 'isready' before its move (the limit "
             "of a handshake)", ENGINE_PROC_HANDSHAKE_MS / 1000);
    fprintf(stderr, "game %lld: %s %s (%s%s, after %d pl%s, against %s)\n", (long long)e->index,
            e->t->engines[e->loser].engine.name,
            e->termination == TERM_ENGINE_STALLED && e->unready ? unready
                                                                 : REFEREE_LOSES[e->termination - TERM_ILLEGAL_MOVE],
            e->loser_white ? "white" : "black", over, e->plies, e->plies == 1 ? "y" : "ies",
            e->t->engines[e->winner].engine.name);
    fflush(stderr);
}

void cli_progress_note(const char *text, void *user)
{
    const CliProgress *cp = user;
    if (cp && cp->tty) /* above the progress line, which the next report redraws */
        fputs("\r\033[K", stderr);
    fprintf(stderr, "warning: %s\n", text);
    fflush(stderr);
}

void cli_print_referee(const Tournament *t, const RefereeCounts *rc, const RatedGame *games, int64_t ngames)
{
    for (int e = 0; e < t->nengines; e++) {
        int64_t total = 0, played = 0;
        for (int k = 0; k < RUN_REFEREE_KINDS; k++)
            total += rc->lost[e][k];
        if (!total)
            continue;
        for (int64_t g = 0; g < ngames; g++)
            played += games[g].white == e || games[g].black == e;
        printf("%s lost %lld game%s by the referee:", t->engines[e].engine.name, (long long)total,
               total > 1 ? "s" : "");
        const char *sep = " ";
        for (int k = 0; k < RUN_REFEREE_KINDS; k++)
            if (rc->lost[e][k]) {
                printf("%s%lld %s", sep, (long long)rc->lost[e][k], termination_name(k + TERM_ILLEGAL_MOVE));
                sep = ", ";
            }
        printf("\n");
        if (played > 0 && (double)total > REFEREE_NOTE_SHARE * (double)played)
            printf("note: %s lost %.1f%% of its %lld games by the referee, not by play (over %g%%): its Elo above "
                   "rests on them (a clock, timemargin or the machine's load more than its strength)\n",
                   t->engines[e].engine.name, 100.0 * (double)total / (double)played, (long long)played,
                   100 * REFEREE_NOTE_SHARE);
    }
}

/* ---- stdout that never holds the work up ---------------------------------------- */

void cli_out_begin(CliOut *o)
{
    memset(o, 0, sizeof *o);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
    fflush(stdout); /* what stdio holds goes first */
}

/* Writes what stdout takes of o->pending now (wait_ms: how long to wait for
 * room); returns whether all of it was written.  A pipe with room for a
 * write of at most PIPE_BUF bytes takes it whole without blocking. */
static bool out_drain(CliOut *o, int wait_ms)
{
    size_t off = 0;
    while (off < o->len && !o->error) {
        struct pollfd pf = {STDOUT_FILENO, POLLOUT, 0};
        int r = poll(&pf, 1, wait_ms);
        if (r < 0 && errno == EINTR)
            break; /* a signal: the caller looks at its flag */
        if (r <= 0)
            break;
        if (pf.revents & (POLLERR | POLLNVAL)) {
            o->error = EPIPE;
            break;
        }
        size_t n = o->len - off < PIPE_BUF ? o->len - off : PIPE_BUF;
        ssize_t w = write(STDOUT_FILENO, o->pending + off, n);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            break;
        if (w < 0) {
            o->error = errno;
            break;
        }
        off += (size_t)w;
    }
    if (o->error)
        off = o->len; /* nothing more will be written */
    if (off > 0 && off < o->len)
        memmove(o->pending, o->pending + off, o->len - off);
    o->len -= off;
    return o->len == 0 && !o->error;
}

void cli_out_printf(CliOut *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t add = n > 0 ? (size_t)n : 0;
    /* kept while stdout is full, up to 1 MiB (far beyond any command's
     * lines); past that a line is dropped, the rest kept in order */
    if (n <= 0 || o->error || o->len + add > (size_t)1 << 20)
        return;
    if (o->len + add + 1 > o->cap) { /* + 1: vsnprintf's NUL */
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->len + add + 1)
            cap *= 2;
        char *p = realloc(o->pending, cap);
        if (!p)
            return;
        o->pending = p;
        o->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(o->pending + o->len, add + 1, fmt, ap);
    va_end(ap);
    o->len += add;
    out_drain(o, 0);
}

bool cli_out_finish(CliOut *o, const volatile sig_atomic_t *stop)
{
    bool done = out_drain(o, 0);
    while (!done && !o->error && !(stop && *stop))
        done = out_drain(o, 100); /* a signal is looked at every 100 ms at most */
    if (!done && !o->error && o->len)
        o->error = EINTR; /* given up on a signal */
    free(o->pending);
    o->pending = NULL;
    o->len = o->cap = 0;
    return done;
}

void cli_print_waits(const Tournament *t, const ReadyWaits *w)
{
    for (int e = 0; e < t->nengines; e++) {
        if (!run_wait_notable(w->total_ms[e], w->think_ms[e]))
            continue;
        printf("%s waited %.1f s in all for 'readyok' before its moves (the longest %.1f s), beside %.1f s of "
               "thinking: time on no clock, which no limit counted\n",
               t->engines[e].engine.name, w->total_ms[e] / 1000.0, w->max_ms[e] / 1000.0, w->think_ms[e] / 1000.0);
    }
}

void cli_progress_line(const RunProgress *p, void *user)
{
    CliProgress *cp = user;
    if (!cp->tty && !p->final && p->done == 0 && p->todo == 0)
        return; /* nothing to play: no line until the summary */
    char line[2048];
    size_t len = 0;
    double rate = p->elapsed > 0 ? (double)p->done / p->elapsed * 60.0 : 0; /* games per minute */
    char eta[32];
    if (p->final)
        snprintf(eta, sizeof eta, "%s", p->stopped ? "stopped" : "done");
    else
        cli_format_duration(rate > 0 ? (double)(p->todo - p->done) / rate * 60.0 : INFINITY, eta, sizeof eta);
    len += (size_t)snprintf(line + len, sizeof line - len, "games %lld/%lld", (long long)p->finished,
                            (long long)p->total);
    if (p->todo != p->total - (p->finished - p->done)) /* --games: this run's share */
        len += (size_t)snprintf(line + len, sizeof line - len, " (this run %lld/%lld)", (long long)p->done,
                                (long long)p->todo);
    /* The pairings while they fit; the full table every DETAIL_EVERY s. */
    int np = tournament_pairings(p->t);
    /* a terminal line must not wrap; a log line may be long but stays readable */
    const int width = cp->tty ? cli_terminal_width(STDERR_FILENO) - 1 : 200;
    char tail[1400], referee[400]; /* the other parts of the tail are under 200 bytes */
    referee_text(p->t, p->referee, referee, sizeof referee);
    int tl = snprintf(tail, sizeof tail, " | %.1f games/min | ETA %s", rate, eta);
    if (p->sprt)
        tl += snprintf(tail + tl, sizeof tail - (size_t)tl, " | LLR %.2f [%.2f, %.2f]", p->llr, p->lower, p->upper);
    if (!tournament_reproducible(p->t)) /* clocks or separate programs */
        tl += snprintf(tail + tl, sizeof tail - (size_t)tl, " | not reproducible");
    tl += snprintf(tail + tl, sizeof tail - (size_t)tl, "%s", referee);
    char waits[400];
    waits_text(p->t, p->ready, waits, sizeof waits);
    tl += snprintf(tail + tl, sizeof tail - (size_t)tl, "%s", waits);
    /* pairings while they and the tail fit, else their count */
    char more[64];
    snprintf(more, sizeof more, " | %d pairings (table every %.0fs)", np, DETAIL_EVERY);
    bool all_fit = true;
    size_t base = len;
    for (int k = 0; k < np; k++) {
        char text[256];
        pairing_text(p, k, text, sizeof text);
        size_t need = len + 3 + strlen(text) + (size_t)tl + (k + 1 < np ? strlen(more) : 0);
        if (need > (size_t)width) {
            all_fit = false;
            len = base; /* all or nothing: a partial list reads as the whole */
            if (base + strlen(more) + (size_t)tl <= (size_t)width)
                len += (size_t)snprintf(line + len, sizeof line - len, "%s", more);
            break;
        }
        len += (size_t)snprintf(line + len, sizeof line - len, " | %s", text);
    }
    line[len] = 0;
    snprintf(line + len, sizeof line - len, "%s", tail);
    if (cp->tty && strlen(line) > (size_t)width && width > 4) /* a very narrow terminal */
        strcpy(line + width - 3, "...");
    bool detail = !all_fit && (p->final || p->elapsed - cp->last_detail >= DETAIL_EVERY);
    if (cp->tty) {
        fputs("\r\033[K", stderr);
        if (detail)
            print_pairings(p);
        fprintf(stderr, "%s%s", line, p->final ? "\n" : "");
    } else {
        fprintf(stderr, "%s\n", line);
        if (detail)
            print_pairings(p);
    }
    if (detail)
        cp->last_detail = p->elapsed;
    fflush(stderr);
}

void cli_print_standings(const Tournament *t, const RatedGame *games, int64_t ngames)
{
    if (ngames == 0 || t->nengines < 2)
        return;
    Ratings r;
    TvError err;
    if (ratings_fit(games, ngames, t->nengines, 0, 0, &r, &err) != TV_OK) {
        printf("standings: %s\n", err.msg);
        return;
    }
    int order[TOURNAMENT_MAX_ENGINES];
    for (int i = 0; i < t->nengines; i++)
        order[i] = i;
    for (int i = 1; i < t->nengines; i++) /* best first */
        for (int j = i; j > 0 && r.elo[order[j]] > r.elo[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    /* Two engines: the difference between them and its interval, the
     * figure of the progress line (one engine's Elo against the other's,
     * not each one's ± half of it around their mean). */
    const bool two = t->nengines == 2;
    printf("%-4s %-32s %16s %7s %7s\n", "rank", "engine", "Elo (95%)", "games", "score");
    for (int k = 0; k < t->nengines; k++) {
        int i = order[k];
        int64_t n = 0;
        double pts = 0;
        for (int64_t g = 0; g < ngames; g++) {
            if (games[g].white != i && games[g].black != i)
                continue;
            n++;
            int res = games[g].white == i ? games[g].result : -games[g].result;
            pts += (res + 1) / 2.0;
        }
        char elo[STATS_ELO_TEXT];
        if (two) {
            PairingStats ps;
            pairing_stats(games, ngames, i, 1 - i, &ps);
            stats_format_elo(&ps, elo, sizeof elo);
        } else
            stats_fmt_elo_interval(r.elo[i], r.lo[i], r.hi[i], elo, sizeof elo);
        char score[16] = "-";
        if (n)
            snprintf(score, sizeof score, "%.1f%%", 100 * pts / (double)n);
        char cell[STATS_ELO_TEXT + 32];
        printf("%-4d %-32s %s %7lld %7s\n", k + 1, t->engines[i].engine.name,
               cli_cell(elo, 16, true, cell, sizeof cell), (long long)n, score);
    }
    if (two)
        printf("(two engines: Elo is each one's difference from the other, as on the progress line)\n");
    ratings_free(&r);
}
