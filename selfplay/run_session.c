/* run_session.c: a session's conditions, as a line of a store's "sessions"
 * attribute.  See run_session.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT, getloadavg */
#include "run_session.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h5store.h"
#include "tavreli_version.h" /* TAVRELI_VERSION, TAVRELI_BUILD_KIND, TAVRELI_TREE (CMakeLists.txt) */

/* A word of a line: no blank, no comma, no '=' (they separate), at most
 * n - 1 bytes, anything else as '_'. */
static void word(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    for (; src && *src && k + 1 < n; src++)
        dst[k++] = (*src == ' ' || *src == ',' || *src == '=' || *src == '\t' || *src == '\n') ? '_' : *src;
    dst[k] = '\0';
    if (!k)
        snprintf(dst, n, "unknown");
}

void run_session_host_here(RunHost *h, int threads, const char *name, int cores)
{
    memset(h, 0, sizeof *h);
    char here[256] = "";
    if (!name && gethostname(here, sizeof here - 1) != 0)
        here[0] = '\0';
    word(h->name, sizeof h->name, name ? name : here);
    h->ranks = 1;
    h->threads = threads;
    cpu_set_t mine;
    CPU_ZERO(&mine);
    h->cores = cores > 0                                         ? cores
               : sched_getaffinity(0, sizeof mine, &mine) == 0 ? CPU_COUNT(&mine)
                                                               : (int)sysconf(_SC_NPROCESSORS_ONLN);
    double load[1];
    h->load = getloadavg(load, 1) == 1 ? load[0] : -1;
}

void run_session_begin(RunSession *s, int ranks, const RunHost *hosts, int nhosts)
{
    memset(s, 0, sizeof *s);
    s->began = (int64_t)time(NULL);
    snprintf(s->end, sizeof s->end, "running");
    word(s->version, sizeof s->version, TAVRELI_VERSION);
    word(s->build, sizeof s->build, TAVRELI_BUILD_KIND);
    word(s->tree, sizeof s->tree, TAVRELI_TREE);
    s->ranks = ranks;
    for (int i = 0; i < nhosts; i++) {
        int k = 0;
        while (k < s->nhosts && strcmp(s->hosts[k].name, hosts[i].name))
            k++;
        if (k == s->nhosts) {
            if (s->nhosts == RUN_SESSION_MAX_HOSTS)
                continue; /* more hosts than a line names: the ranks still count */
            s->hosts[s->nhosts++] = hosts[i];
            continue;
        }
        s->hosts[k].ranks += hosts[i].ranks;
        s->hosts[k].threads += hosts[i].threads;
        if (hosts[i].cores > s->hosts[k].cores)
            s->hosts[k].cores = hosts[i].cores;
    }
}

void run_session_end(RunSession *s, const char *end, int64_t games, const ReadyWaits *w, int nengines)
{
    s->ended = (int64_t)time(NULL);
    word(s->end, sizeof s->end, end);
    s->games = games;
    s->nwaits = 0;
    for (int e = 0; w && e < nengines && e < TOURNAMENT_MAX_ENGINES; e++)
        if (w->think_ms[e] > 0 || w->total_ms[e] > 0)
            s->waits[s->nwaits++] = (RunWait){e, w->total_ms[e], w->max_ms[e], w->think_ms[e]};
}

void run_session_format(const RunSession *s, StrBuf *out)
{
    strbuf_addf(out, "began=%lld ended=%lld end=%s games=%lld version=%s build=%s tree=%s ranks=%d",
                (long long)s->began, (long long)s->ended, s->end, (long long)s->games, s->version, s->build, s->tree,
                s->ranks);
    for (int i = 0; i < s->nhosts; i++) {
        const RunHost *h = &s->hosts[i];
        strbuf_addf(out, " host=%s,%d,%d,%d,%.2f", h->name, h->ranks, h->threads, h->cores, h->load < 0 ? -1 : h->load);
    }
    for (int i = 0; i < s->nwaits; i++) {
        const RunWait *w = &s->waits[i];
        strbuf_addf(out, " wait=%d,%lld,%lld,%lld", w->engine, (long long)w->total_ms, (long long)w->max_ms,
                    (long long)w->think_ms);
    }
}

/* An integer in [lo, hi] that is the whole of text. */
static bool int_of(const char *text, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(text, &end, 10);
    if (errno || end == text || *end || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

/* The comma-separated fields of value into f (n of them exactly). */
static bool fields(char *value, char **f, int n)
{
    int k = 0;
    for (char *p = value; k < n; k++) {
        f[k] = p;
        char *c = strchr(p, ',');
        if (!c)
            return k == n - 1;
        *c = '\0';
        p = c + 1;
    }
    return false;
}

/* One line into s; false (with *bad the key) when a value is malformed. */
static bool parse_line(char *line, RunSession *s, const char **bad)
{
    memset(s, 0, sizeof *s);
    snprintf(s->end, sizeof s->end, "unknown");
    for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return *bad = "a word without '='", false;
        *eq = '\0';
        const char *key = tok;
        char *value = eq + 1;
        int64_t v;
        *bad = key;
        if (!strcmp(key, "began") || !strcmp(key, "ended") || !strcmp(key, "games") || !strcmp(key, "ranks")) {
            if (!int_of(value, 0, INT64_MAX, &v))
                return false;
            if (!strcmp(key, "began"))
                s->began = v;
            else if (!strcmp(key, "ended"))
                s->ended = v;
            else if (!strcmp(key, "games"))
                s->games = v;
            else if (v > 1 << 24)
                return false;
            else
                s->ranks = (int)v;
        } else if (!strcmp(key, "end")) {
            word(s->end, sizeof s->end, value);
        } else if (!strcmp(key, "version")) {
            word(s->version, sizeof s->version, value);
        } else if (!strcmp(key, "build")) {
            word(s->build, sizeof s->build, value);
        } else if (!strcmp(key, "tree")) {
            word(s->tree, sizeof s->tree, value);
        } else if (!strcmp(key, "host")) {
            char *f[5];
            int64_t r, t, c;
            char *end;
            if (!fields(value, f, 5) || !int_of(f[1], 0, 1 << 24, &r) || !int_of(f[2], 0, 1 << 24, &t) ||
                !int_of(f[3], 0, 1 << 24, &c))
                return false;
            double load = strtod(f[4], &end);
            if (end == f[4] || *end)
                return false;
            if (s->nhosts < RUN_SESSION_MAX_HOSTS) {
                RunHost *h = &s->hosts[s->nhosts++];
                *h = (RunHost){.ranks = (int)r, .threads = (int)t, .cores = (int)c, .load = load};
                word(h->name, sizeof h->name, f[0]);
            }
        } else if (!strcmp(key, "wait")) {
            char *f[4];
            int64_t e, tot, mx, th;
            if (!fields(value, f, 4) || !int_of(f[0], 0, TOURNAMENT_MAX_ENGINES - 1, &e) ||
                !int_of(f[1], 0, INT64_MAX, &tot) || !int_of(f[2], 0, INT64_MAX, &mx) ||
                !int_of(f[3], 0, INT64_MAX, &th))
                return false;
            if (s->nwaits < TOURNAMENT_MAX_ENGINES)
                s->waits[s->nwaits++] = (RunWait){(int)e, tot, mx, th};
        } /* another key: a newer program's, passed over */
    }
    return true;
}

TvStatus run_sessions_parse(const char *text, RunSession **out, int *n, TvError *err)
{
    *out = NULL;
    *n = 0;
    if (!text || !*text)
        return TV_OK;
    char *copy = strdup(text);
    int lines = 1;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    RunSession *s = calloc((size_t)lines, sizeof *s);
    if (!copy || !s) {
        free(copy);
        free(s);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory for %d sessions", lines);
    }
    int k = 0, at = 0;
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        at++;
        const char *bad = "";
        if (!parse_line(line, &s[k], &bad)) {
            TvStatus st = tv_fail(err, TV_ERR_PARSE, "sessions attribute, line %d: a malformed '%s'", at, bad);
            free(copy);
            free(s);
            return st;
        }
        k++;
    }
    free(copy);
    *out = s;
    *n = k;
    return TV_OK;
}

TvStatus run_session_record(const char *store_path, const RunSession *s, TvError *err)
{
    StrBuf line = {0};
    run_session_format(s, &line);
    if (!strbuf_str(&line)[0]) {
        strbuf_free(&line);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory for a session line");
    }
    TvStatus st = h5store_add_lines(store_path, "sessions", strbuf_str(&line), err);
    strbuf_free(&line);
    return st;
}

void run_session_close(RunSession *s, const RunOptions *ro, const char *store_path, const RunStats *stats,
                       TvStatus st)
{
    run_session_end(s, stats->interrupted ? "stopped" : st != TV_OK ? "failed" : "finished", stats->played,
                    &stats->ready, ro->t->nengines);
    TvError e;
    if (run_session_record(store_path, s, &e) != TV_OK && ro->note) {
        char text[sizeof e.msg + 120];
        snprintf(text, sizeof text, "the conditions of this session (hosts, threads, waits) are not recorded in %s: %s",
                 store_path, e.msg);
        ro->note(text, ro->progress_user);
    }
}

bool run_wait_notable(int64_t total_ms, int64_t think_ms) { return total_ms >= 1000 && total_ms * 20 >= think_ms; }
