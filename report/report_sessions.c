/* report_sessions.c: the sessions and the conditions of stores in a
 * report.  See report_sessions.h. */
#include "report_sessions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_session.h"
#include "strbuf.h"

void report_fmt_utc(char *buf, size_t n, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, n, "%lld (Unix time)", (long long)t);
}

void report_doc_sessions(Doc *D, const char *name, const StoreContents *c)
{
    RunSession *s = NULL;
    int n = 0;
    TvError err;
    if (run_sessions_parse(c->sessions, &s, &n, &err) != TV_OK) {
        doc_para(D, "%s: its sessions are not shown: %s.", name, err.msg);
        return;
    }
    int64_t covered = 0;
    for (int i = 0; i < n; i++)
        covered += s[i].games;
    if (n == 0) {
        doc_para(D, "%s: no session recorded its conditions (hosts, threads, cores, load, waits): the store was made "
                    "before they were recorded, or every session that played was killed before it ended.",
                 name);
        free(s);
        return;
    }
    doc_para(D, "Sessions of %s (each run, from its start or --resume to its end, as it recorded itself as it "
                "ended; threads and cores per host, the load average as the session began):",
             name);
    doc_table(D, "llrlrl");
    const char *h[] = {"began", "ended", "games", "build", "ranks", "hosts: ranks, threads, cores, load"};
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        doc_cell(D, "%s", h[i]);
    for (int i = 0; i < n; i++) {
        char a[64], b[64];
        report_fmt_utc(a, sizeof a, s[i].began);
        report_fmt_utc(b, sizeof b, s[i].ended);
        doc_cell(D, "%s", a);
        doc_cell(D, "%s (%s)", b, s[i].end);
        doc_cell(D, "%lld", (long long)s[i].games);
        doc_cell(D, "tavreli %s, %s, tree %.12s", s[i].version, s[i].build, s[i].tree);
        doc_cell(D, "%d", s[i].ranks);
        StrBuf hosts = {0};
        for (int k = 0; k < s[i].nhosts; k++) {
            const RunHost *hh = &s[i].hosts[k];
            strbuf_addf(&hosts, "%s%s: %d, %d, %d, ", k ? "; " : "", hh->name, hh->ranks, hh->threads, hh->cores);
            if (hh->load >= 0)
                strbuf_addf(&hosts, "%.2f", hh->load);
            else
                strbuf_addf(&hosts, "unknown");
            if (hh->threads > hh->cores && hh->cores > 0)
                strbuf_addf(&hosts, " (more threads than cores)");
        }
        doc_cell(D, "%s", hosts.s ? hosts.s : "-");
        strbuf_free(&hosts);
    }
    if (covered < c->ngames)
        doc_para(D, "%lld of the %lld games of %s were stored by sessions that recorded nothing (killed before "
                    "they ended, or run before sessions were recorded).",
                 (long long)(c->ngames - covered), (long long)c->ngames, name);
    /* The waits before readyok, per engine over every session: time on no clock. */
    int64_t wait[TOURNAMENT_MAX_ENGINES] = {0}, longest[TOURNAMENT_MAX_ENGINES] = {0},
            think[TOURNAMENT_MAX_ENGINES] = {0};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < s[i].nwaits; k++) {
            const RunWait *w = &s[i].waits[k];
            if (w->engine >= c->nengines)
                continue;
            wait[w->engine] += w->total_ms;
            think[w->engine] += w->think_ms;
            longest[w->engine] = w->max_ms > longest[w->engine] ? w->max_ms : longest[w->engine];
        }
    for (int e = 0; e < c->nengines && e < TOURNAMENT_MAX_ENGINES; e++)
        if (run_wait_notable(wait[e], think[e]))
            doc_para(D, "Note: %s waited %.1f s in all for 'readyok' before its moves (the longest wait %.1f s), "
                        "beside %.1f s of thinking: time on no clock, which neither its clock nor its movetime "
                        "counted, so it may have searched longer than its limits say.",
                     c->engines[e].name, wait[e] / 1000.0, longest[e] / 1000.0, think[e] / 1000.0);
    free(s);
}


/* One host seen in the sessions of a run: its greatest threads and cores,
 * and the range of its load averages. */
typedef struct {
    char name[64];
    int ranks, threads, cores;
    double load_lo, load_hi;
} SeenHost;

void report_doc_conditions(Doc *D, const StoreContents *stores, int n)
{
    doc_h2(D, "Conditions");
    int64_t games = 0, began = 0, ended = 0, first_stored = 0, last_stored = 0, untimed = 0, sessions = 0;
    StrBuf builds = {0}, hosts = {0}, engines = {0};
    SeenHost seen[RUN_SESSION_MAX_HOSTS];
    int nseen = 0;
    char names[TOURNAMENT_MAX_ENGINES * 4][64];
    int nnames = 0;
    for (int f = 0; f < n; f++) {
        const StoreContents *c = &stores[f];
        games += c->ngames;
        for (int64_t i = 0; i < c->ngames; i++) {
            const int64_t t = c->games[i].stored_at;
            if (t <= 0) {
                untimed++;
                continue;
            }
            first_stored = !first_stored || t < first_stored ? t : first_stored;
            last_stored = t > last_stored ? t : last_stored;
        }
        for (int e = 0; e < c->nengines; e++) { /* each engine once, as the first store holds it */
            const StoredEngine *se = &c->engines[e];
            int k = 0;
            while (k < nnames && strcmp(names[k], se->name))
                k++;
            if (k < nnames || nnames == (int)(sizeof names / sizeof names[0]))
                continue;
            snprintf(names[nnames++], sizeof names[0], "%s", se->name);
            strbuf_addf(&engines, "%s%s: ", engines.len ? "; " : "", se->name);
            if (se->depth > 0)
                strbuf_addf(&engines, "depth %d", (int)se->depth);
            else if (se->nodes > 0)
                strbuf_addf(&engines, "%lld nodes", (long long)se->nodes);
            else if (se->movetime_ms > 0)
                strbuf_addf(&engines, "movetime %d ms", (int)se->movetime_ms);
            else
                strbuf_addf(&engines, "no depth, node or movetime limit");
            if (se->tc[0])
                strbuf_addf(&engines, ", clock %s (timemargin %d ms)", se->tc, (int)se->timemargin_ms);
        }
        RunSession *s = NULL;
        int ns = 0;
        TvError err;
        if (run_sessions_parse(c->sessions, &s, &ns, &err) != TV_OK)
            ns = 0;
        for (int i = 0; i < ns; i++) {
            sessions++;
            began = !began || s[i].began < began ? s[i].began : began;
            ended = s[i].ended > ended ? s[i].ended : ended;
            char b[200];
            snprintf(b, sizeof b, "tavreli %s (%s, tree %.12s)", s[i].version, s[i].build, s[i].tree);
            if (!builds.s || !strstr(builds.s, b))
                strbuf_addf(&builds, "%s%s", builds.len ? "; " : "", b);
            for (int k = 0; k < s[i].nhosts; k++) {
                const RunHost *h = &s[i].hosts[k];
                int j = 0;
                while (j < nseen && strcmp(seen[j].name, h->name))
                    j++;
                if (j == nseen) {
                    if (nseen == RUN_SESSION_MAX_HOSTS)
                        continue;
                    seen[nseen++] = (SeenHost){"", h->ranks, h->threads, h->cores, h->load, h->load};
                    snprintf(seen[j].name, sizeof seen[j].name, "%s", h->name);
                    continue;
                }
                SeenHost *x = &seen[j];
                x->ranks = h->ranks > x->ranks ? h->ranks : x->ranks;
                x->threads = h->threads > x->threads ? h->threads : x->threads;
                x->cores = h->cores > x->cores ? h->cores : x->cores;
                if (h->load >= 0) {
                    x->load_lo = x->load_lo < 0 || h->load < x->load_lo ? h->load : x->load_lo;
                    x->load_hi = h->load > x->load_hi ? h->load : x->load_hi;
                }
            }
        }
        free(s);
    }
    for (int j = 0; j < nseen; j++) {
        const SeenHost *x = &seen[j];
        strbuf_addf(&hosts, "%s%s (%d rank%s, %d game thread%s, %d cores, load average ", j ? "; " : "", x->name,
                    x->ranks, x->ranks == 1 ? "" : "s", x->threads, x->threads == 1 ? "" : "s", x->cores);
        if (x->load_lo < 0)
            strbuf_addf(&hosts, "unknown)");
        else if (x->load_hi - x->load_lo < 0.005)
            strbuf_addf(&hosts, "%.2f as it began)", x->load_lo);
        else
            strbuf_addf(&hosts, "%.2f to %.2f as its sessions began)", x->load_lo, x->load_hi);
    }
    char a[64], b[64];
    StrBuf when = {0};
    if (sessions) {
        report_fmt_utc(a, sizeof a, began);
        report_fmt_utc(b, sizeof b, ended);
        strbuf_addf(&when, "from %s to %s (%lld session%s)", a, b, (long long)sessions, sessions == 1 ? "" : "s");
    } else if (last_stored) {
        report_fmt_utc(a, sizeof a, first_stored);
        report_fmt_utc(b, sizeof b, last_stored);
        strbuf_addf(&when, "games stored from %s to %s (no session recorded its times)", a, b);
    } else {
        strbuf_addf(&when, "not recorded");
    }
    doc_para(D,
             "%lld games in %d store%s%s. Engines: %s. Played %s. Builds: %s. Hosts: %s.", (long long)games, n,
             n == 1 ? "" : "s", untimed ? " (some made before games carried their time)" : "",
             engines.s ? engines.s : "none", when.s ? when.s : "",
             builds.s ? builds.s : "not recorded (no session recorded itself: the stores were made before sessions "
                                   "were recorded, or their runs were killed)",
             hosts.s ? hosts.s : "not recorded");
    strbuf_free(&when);
    strbuf_free(&builds);
    strbuf_free(&hosts);
    strbuf_free(&engines);
}
