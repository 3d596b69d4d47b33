#define _POSIX_C_SOURCE 200809L
/* report_build.c: stages 3 and 4 of the report (see report.c): the plots
 * (report_plot.h) and the document (report_doc.h): the headline table, the
 * ratings, the pairings, how games ended, what was played, the SPRT and the
 * tuning log.  Every Elo through stats.h's formatter. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ini.h>

#include "idset.h"
#include "report_internal.h"
#include "engine_id.h"

#include "report_plot.h"
#include "report_sessions.h"
#include "search.h"
#include "stats.h"
#include "strbuf.h"

/* ---- formatting ------------------------------------------------------------------ */

/* Every Elo value is written by stats.h's one formatter (stats_fmt_elo and
 * its kin): whole Elo with its sign, and 0 without one. */

static void fmt_pct(char *buf, size_t n, double x)
{
    if (x > 0.999 && x < 1)
        snprintf(buf, n, ">99.9%%");
    else if (x > 0 && x < 0.001)
        snprintf(buf, n, "<0.1%%");
    else if (isfinite(x))
        snprintf(buf, n, "%.1f%%", 100.0 * x);
    else
        snprintf(buf, n, "n/a");
}

/* ---- what was played ------------------------------------------------------------------- */


typedef struct {
    const char *section;
    StrBuf *out;
} SectionKeys;

static int section_key(void *user, const char *section, const char *name, const char *value)
{
    SectionKeys *k = user;
    if (!strcmp(section, k->section))
        strbuf_addf(k->out, "%s%s = %s", k->out->len ? ", " : "", name, value);
    return 1;
}

/* The keys of [section] of an INI text as "k = v, k = v" into out (nothing
 * when the section is missing: every key at its default). */
static void section_keys(const char *ini, const char *section, StrBuf *out)
{
    SectionKeys k = {section, out};
    ini_parse_string(ini ? ini : "", section_key, &k);
}

/* The limits of an engine: "depth 3, nodes 1000, movetime 100 ms" or "none". */
static void engine_limits(const StoredEngine *e, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    if (e->depth > 0)
        o += (size_t)snprintf(buf + o, n - o, "depth %d", (int)e->depth);
    if (e->nodes > 0 && o < n)
        o += (size_t)snprintf(buf + o, n - o, "%snodes %lld", o ? ", " : "", (long long)e->nodes);
    if (e->movetime_ms > 0 && o < n)
        o += (size_t)snprintf(buf + o, n - o, "%smovetime %d ms", o ? ", " : "", (int)e->movetime_ms);
    if (!buf[0])
        snprintf(buf, n, "none");
}

/* The words "name=value" of a stored settings text whose value is not the
 * setting's default (search.def), into out; "defaults" when there is none. */
static void settings_not_default(const char *settings, StrBuf *out)
{
    size_t before = out->len;
    for (const char *w = settings; *w;) {
        size_t len = strcspn(w, " ");
        const char *eq = memchr(w, '=', len);
        bool dflt = false;
        for (int i = 0; eq && i < SEARCH_NSETTINGS; i++)
            if (strlen(SEARCH_SETTING_INFO[i].name) == (size_t)(eq - w) &&
                !strncmp(w, SEARCH_SETTING_INFO[i].name, (size_t)(eq - w)))
                dflt = (!strncmp(eq + 1, "yes", 3) ? 1 : !strncmp(eq + 1, "no", 2) ? 0 : atoi(eq + 1)) ==
                       SEARCH_SETTING_INFO[i].def;
        if (!dflt)
            strbuf_addf(out, "%s%.*s", out->len > before ? " " : "", (int)len, w);
        w += len + (w[len] == ' ');
    }
    if (out->len == before)
        strbuf_addf(out, "defaults");
}

static const char *store_name(const StoreContents *c, int e)
{
    return e >= 0 && e < c->nengines ? c->engines[e].name : "?";
}


/* Stage 3: the plot data, the script, gnuplot. */
TvStatus report_plots(const Report *R, const char *outdir, TvError *err)
{
    PlotSet P;
    plot_begin(&P, outdir);
    TvStatus st = plot_lengths(&P, R->ngames, R->binw, R->nbins, R->decisive_by_bin, R->drawn_by_bin, err);
    const char **names = malloc(sizeof *names * (size_t)R->nrated);
    double *elo = malloc(sizeof *elo * 3 * (size_t)R->nrated);
    PlotPairing *pp = malloc(sizeof *pp * (size_t)(R->npairings ? R->npairings : 1));
    char(*labels)[140] = malloc(sizeof *labels * (size_t)(R->npairings ? R->npairings : 1));
    if (st == TV_OK && (!names || !elo || !pp || !labels))
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    if (st == TV_OK) {
        for (int i = 0; i < R->nrated; i++) {
            int ri = R->order[i];
            names[i] = R->players[R->rated_player[ri]].name;
            elo[i] = R->r.elo[ri];
            elo[R->nrated + i] = R->r.lo[ri];
            elo[2 * R->nrated + i] = R->r.hi[ri];
        }
        st = plot_elo(&P, NULL, names, elo, elo + R->nrated, elo + 2 * R->nrated, R->nrated, err);
    }
    if (st == TV_OK) {
        for (int i = 0; i < R->npairings; i++) {
            const Pairing *q = &R->pairings[i];
            snprintf(labels[i], sizeof labels[i], "%s vs %s", R->players[q->a].name, R->players[q->b].name);
            pp[i] = (PlotPairing){labels[i], q->games, q->elo, q->err95};
        }
        st = plot_pairings(&P, pp, R->npairings, err);
    }
    free(names);
    free(elo);
    free(pp);
    free(labels);
    for (int i = 0; st == TV_OK && i < R->nsprt; i++) {
        const SprtInfo *s = &R->sprt[i];
        const StoreContents *c = &R->c[s->file];
        PlotSprt ps = {store_name(c, 0), store_name(c, 1), s->elo0, s->elo1, s->alpha, s->beta, s->lower, s->upper,
                       s->npairs, s->path_games, s->path_llr, s->minllr, s->maxllr};
        st = plot_sprt(&P, i, &ps, err);
    }
    if (st == TV_OK && R->have_tl && R->tl.niters > 0)
        st = plot_tuning_loss(&P, R->tl.iters, R->tl.niters, R->tl_have_hold, err);
    if (st == TV_OK && R->have_tl && R->tl.nweights > 0) {
        int k = R->tl.nweights < TOP_WEIGHTS ? R->tl.nweights : TOP_WEIGHTS;
        PlotBar bars[TOP_WEIGHTS];
        for (int i = 0; i < k; i++)
            bars[i] = (PlotBar){R->tl_rank[i].w->name, R->tl_rank[i].move, R->tl_rank[i].w->se};
        st = plot_tuning_weights(&P, bars, k, R->tl.nweights,
                                 R->tl_by_z ? "|new - start| / stderr" : "|new - start|", err);
    }
    if (st == TV_OK)
        st = plot_draw(&P, err);
    plot_free(&P);
    return st;
}

/* What was played: each store's program version, dates, rules, openings,
 * adjudication and reproducibility, each engine's kind, program or engine
 * INI, options or search settings, limits and clock, and the tournament INI
 * texts themselves. */
static void build_played(const Report *R, Doc *D)
{
    char a[64], b[64];
    doc_h2(D, "What was played");
    for (int f = 0; f < R->nfiles; f++) {
        const StoreContents *c = &R->c[f];
        int64_t first = INT64_MAX, last = 0, untimed = 0;
        TvIdSet set = {0}; /* the distinct openings (core/idset.h) */
        int64_t distinct = 0;
        for (int64_t i = 0; i < c->ngames; i++) {
            const StoredGame *g = &c->games[i];
            if (g->stored_at > 0) {
                int64_t began = g->stored_at - (int64_t)(g->wall_time > 0 ? g->wall_time : 0);
                first = began < first ? began : first;
                last = g->stored_at > last ? g->stored_at : last;
            } else {
                untimed++;
            }
            int added = tv_idset_add(&set, tv_hash_bytes(0, g->start_tfen, strnlen(g->start_tfen, sizeof g->start_tfen)));
            if (added < 0)
                D->oom = true; /* the report then fails: out of memory */
            else
                distinct += added;
        }
        tv_idset_free(&set);
        StrBuf when = {0}, open = {0}, adj = {0};
        if (last > 0) {
            report_fmt_utc(a, sizeof a, first);
            report_fmt_utc(b, sizeof b, last);
            strbuf_addf(&when, "played from %s (when its first game began) to %s (when its last game was stored)", a,
                        b);
            if (untimed)
                strbuf_addf(&when, "; %lld older games carry no time", (long long)untimed);
        } else {
            strbuf_addf(&when, "dates not recorded (a store made before games carried the time they were stored)");
        }
        section_keys(c->tournament_ini, "openings", &open);
        section_keys(c->tournament_ini, "adjudication", &adj);
        doc_para(D,
                 "%s: made by tavreli %s; %s. Rule options: %s. Openings: %s%s%s; %lld distinct start position%s in "
                 "%lld games. Adjudication: %s%s%s. The games are %s.",
                 R->files[f], c->program_version, when.s ? when.s : "", c->options[0] ? c->options : "the defaults",
                 open.len ? "[openings] " : "random, every [openings] key at its default", open.s ? open.s : "",
                 open.len ? " (any other key at its default)" : "", (long long)distinct, distinct == 1 ? "" : "s",
                 (long long)c->ngames,
                 adj.len ? "[adjudication] " : "every key at its default", adj.s ? adj.s : "",
                 adj.len ? " (any other key at its default)" : "",
                 c->reproducible ? "reproducible: only depth and node limits, so the same tournament plays them "
                                   "again move for move"
                                 : "not reproducible: a clock, a movetime or a separate program makes the moves "
                                   "depend on timing");
        free(when.s);
        free(open.s);
        free(adj.s);
        report_doc_sessions(D, R->files[f], &R->c[f]);
    }
    doc_para(D, "Engines (each as in the first store that has it; defaults of the tournament and engine INI keys: "
                "docs/tournaments.md and docs/engines.md).");
    doc_table(D, "llllllll");
    const char *eh[] = {"engine", "kind", "program or engine INI", "build", "options or search settings", "limits",
                        "clock", "timemargin"};
    for (size_t i = 0; i < sizeof eh / sizeof eh[0]; i++)
        doc_cell(D, "%s", eh[i]);
    for (int p = 0; p < R->nplayers; p++) {
        const ReportPlayer *pl = &R->players[p];
        const StoredEngine *e = pl->eng;
        StrBuf opt = {0};
        char lim[96];
        if (e->command[0]) /* a program: the options it was given */
            strbuf_addf(&opt, "%s", e->options[0] ? e->options : "none");
        else if (e->settings[0])
            settings_not_default(e->settings, &opt);
        else
            strbuf_addf(&opt, "%s", e->path[0] ? "not recorded (an older store)" : "-");
        engine_limits(e, lim, sizeof lim);
        doc_cell(D, "%s", pl->name);
        doc_cell(D, "%s", engine_id_kind_name(e->kind));
        doc_cell(D, "%.256s", e->command[0] ? e->command : e->path[0] ? e->path : "-");
        /* which build: the commit (tavreli's, or the one a tavreli program names), the
         * program's hash and its id name */
        StrBuf build = {0};
        if (e->commit[0])
            strbuf_addf(&build, "commit %s", e->commit);
        if (e->exe_sha256[0])
            strbuf_addf(&build, "%ssha256 %.12s", build.len ? ", " : "", e->exe_sha256);
        if (e->id_name[0])
            strbuf_addf(&build, "%s'%s'", build.len ? ", " : "", e->id_name);
        if (e->bench >= 0)
            strbuf_addf(&build, "%sbench %lld", build.len ? ", " : "", (long long)e->bench);
        doc_cell(D, "%s", build.len ? build.s : "-");
        strbuf_free(&build);
        doc_cell(D, "%s", opt.s ? opt.s : "");
        doc_cell(D, "%s", lim);
        doc_cell(D, "%.32s", e->tc[0] ? e->tc : "none");
        if (e->tc[0] || e->movetime_ms > 0) /* the grace over a clock or movetime */
            doc_cell(D, "%d ms", (int)e->timemargin_ms);
        else
            doc_cell(D, "-");
        free(opt.s);
    }
    /* two versions under one name: two players, and why */
    for (int p = 0; p < R->nplayers; p++)
        if (R->players[p].versions[0])
            doc_para(D, "Note: %s (%s) is another version of '%s' than the one before it: %s. They are rated as two "
                        "players.",
                     R->players[p].name, R->files[R->players[p].file], R->players[p].eng->name,
                     R->players[p].versions);
    for (int f = 0; f < R->nfiles; f++) {
        bool seen = false;
        for (int g = 0; g < f && !seen; g++)
            seen = !strcmp(R->c[g].tournament_ini, R->c[f].tournament_ini);
        if (seen || !R->c[f].tournament_ini[0])
            continue;
        doc_para(D, "The tournament INI of %s (as stored with its games):", R->files[f]);
        doc_text(D, DOC_PRE, strdup(R->c[f].tournament_ini));
    }
}


/* A pairing's statistics from player `first`'s view (the pairing holds
 * them from its engine a's). */
static PairingStats pairing_view(const Pairing *p, int first)
{
    PairingStats s = p->ps;
    if (p->a == first)
        return s;
    s.wins = p->ps.losses;
    s.losses = p->ps.wins;
    for (int k = 0; k < 5; k++)
        s.penta[k] = p->ps.penta[4 - k];
    s.score = 1 - p->ps.score;
    s.elo = -p->ps.elo;
    s.nelo = -p->ps.nelo;
    s.los = 1 - p->ps.los;
    return s;
}

void report_headlines(const Report *R, StrBuf *out)
{
    const int first = R->baseline, n = R->r.n;
    for (int i = 0; i < R->npairings; i++) {
        const Pairing *p = &R->pairings[i];
        if (p->a != first && p->b != first)
            continue;
        const int other = p->a == first ? p->b : p->a;
        const PairingStats s = pairing_view(p, first);
        char elo[48], nelo[48], los[16];
        stats_format_elo(&s, elo, sizeof elo);
        stats_format_nelo(&s, nelo, sizeof nelo);
        fmt_pct(los, sizeof los, R->r.los[R->players[first].rated * n + R->players[other].rated]);
        StrBuf sprt = {0};
        for (int k = 0; k < R->nsprt; k++) {
            const SprtInfo *si = &R->sprt[k];
            if ((si->a == first && si->b == other) || (si->a == other && si->b == first))
                strbuf_addf(&sprt, "; SPRT [%g, %g] %s: %s", si->elo0, si->elo1,
                            si->model == SPRT_LOGISTIC ? "Elo" : "nElo",
                            si->result && si->result[0] ? si->result
                                                        : sprt_decision_name(sprt_decide(si->llr, si->lower,
                                                                                         si->upper)));
        }
        strbuf_addf(out, "%s vs %s: %s Elo (nElo %s), LOS %s, %lld games (+%lld =%lld -%lld)%s\n",
                    R->players[first].name, R->players[other].name, elo, nelo, los, (long long)p->games,
                    (long long)s.wins, (long long)s.draws, (long long)s.losses, sprt.s ? sprt.s : "");
        strbuf_free(&sprt);
    }
}

/* The report's first lines (report_headlines), in bold. */
static void headline(const Report *R, Doc *D)
{
    StrBuf lines = {0};
    report_headlines(R, &lines);
    D->oom |= lines.failed;
    for (const char *l = lines.s; l && *l;) {
        const int len = (int)strcspn(l, "\n");
        doc_para(D, "**%.*s**", len, l);
        l += len + (l[len] == '\n');
    }
    strbuf_free(&lines);
}

/* The title, the headline, the stores. */
static void doc_intro(const Report *R, Doc *D)
{
    doc_h1(D, "Strength report");
    headline(R, D);
    doc_para(D, "%lld games from %d store%s; %d engine versions.", (long long)R->ngames, R->nfiles,
             R->nfiles == 1 ? "" : "s", R->nplayers);
    for (int f = 0; f < R->nfiles; f++)
        if (R->c[f].torn_rows > 0)
            doc_para(D,
                     "%s: %lld /games rows of an append a crash cut short are left out (the store was not closed; "
                     "'tavreli selfplay ... --resume' rewrites it without them).",
                     R->files[f], (long long)R->c[f].torn_rows);
    if (R->nduplicates > 0)
        doc_para(D,
                 "%lld games are held by more than one store (the same tournament and game index) and are "
                 "counted once.",
                 (long long)R->nduplicates);
    doc_table(D, "lrl");
    doc_cell(D, "store");
    doc_cell(D, "games");
    doc_cell(D, "engines");
    for (int f = 0; f < R->nfiles; f++) {
        StrBuf e = {0};
        for (int i = 0; i < R->c[f].nengines; i++)
            strbuf_addf(&e, "%s%.64s", i ? ", " : "", R->c[f].engines[i].name);
        doc_cell(D, "%s", R->files[f]);
        doc_cell(D, "%lld", (long long)R->c[f].ngames);
        doc_cell(D, "%s", e.s ? e.s : "");
        free(e.s);
    }
}

/* The table under the headline: the first engine against every other one. */
static void doc_against_baseline(const Report *R, Doc *D)
{
    char a[64];
    {
        const ReportPlayer *base = &R->players[R->baseline];
        const int rb = base->rated, n = R->r.n;
        doc_h2(D, "%s against each engine", base->name);
        doc_para(D,
                 "%s's Elo minus each other engine's (%s is %s), from the joint rating of all games below (not only "
                 "their games against each other), with its 95%% interval from the covariance of the fit; LOS: the "
                 "probability that %s is the stronger.",
                 base->name, base->name,
                 R->baseline_name ? "chosen with --baseline" : "the first engine; choose another with --baseline NAME",
                 base->name);
        doc_table(D, "lrrrr");
        doc_cell(D, "engine");
        doc_cell(D, "Elo difference");
        doc_cell(D, "LOS");
        doc_cell(D, "games");
        doc_cell(D, "games against %s", base->name);
        for (int i = 0; i < R->nrated; i++) {
            int ri = R->order[i];
            if (ri == rb)
                continue;
            const ReportPlayer *p = &R->players[R->rated_player[ri]];
            double v = R->r.cov[ri * n + ri] + R->r.cov[rb * n + rb] - 2 * R->r.cov[ri * n + rb];
            int64_t h2h = 0;
            for (int k = 0; k < R->npairings; k++) {
                const Pairing *q = &R->pairings[k];
                if ((q->a == R->rated_player[ri] && q->b == R->baseline) ||
                    (q->b == R->rated_player[ri] && q->a == R->baseline))
                    h2h = q->games;
            }
            doc_cell(D, "%s", p->name);
            stats_fmt_elo_pm(R->r.elo[rb] - R->r.elo[ri], v > 0 ? STATS_Z975 * sqrt(v) : NAN, a, sizeof a);
            doc_cell(D, "%s", a);
            fmt_pct(a, sizeof a, R->r.los[rb * n + ri]);
            doc_cell(D, "%s", a);
            doc_cell(D, "%lld", (long long)p->games);
            doc_cell(D, "%lld", (long long)h2h);
        }
    }
}

/* Ratings: the table, the unrated, referee notes, the plot, pairing notes. */
static void doc_ratings(const Report *R, Doc *D)
{
    char a[64], b[64];
    doc_h2(D, "Ratings");
    doc_para(D,
             "Elo by maximum likelihood (Bradley-Terry with a draw parameter, as BayesElo; colours are balanced by "
             "the paired openings). Ratings are relative: their mean is 0. Fitted draw Elo: %.1f. The interval is "
             "95%%, %s; score is the engine's points per game.",
             R->r.draw_elo,
             R->r.simulated ? "from simulated replays of the same schedule" : "from the covariance of the fit");
    doc_table(D, "rlrrrr");
    doc_cell(D, "rank");
    doc_cell(D, "engine");
    doc_cell(D, "Elo");
    doc_cell(D, "95%% interval");
    doc_cell(D, "games");
    doc_cell(D, "score");
    for (int i = 0; i < R->nrated; i++) {
        int ri = R->order[i];
        const ReportPlayer *p = &R->players[R->rated_player[ri]];
        doc_cell(D, "%d", i + 1);
        doc_cell(D, "%s", p->name);
        stats_fmt_elo(R->r.elo[ri], a, sizeof a);
        doc_cell(D, "%s", a);
        stats_fmt_elo(R->r.lo[ri], a, sizeof a);
        stats_fmt_elo(R->r.hi[ri], b, sizeof b);
        doc_cell(D, "[%s, %s]", a, b);
        doc_cell(D, "%lld", (long long)p->games);
        fmt_pct(a, sizeof a, p->games ? p->points / (double)p->games : NAN);
        doc_cell(D, "%s", a);
    }
    for (int p = 0; p < R->nplayers; p++)
        if (R->players[p].rated < 0) {
            doc_cell(D, "-");
            doc_cell(D, "%s", R->players[p].name);
            doc_cell(D, "-");
            doc_cell(D, "no games against another version");
            doc_cell(D, "%lld", (long long)R->players[p].games);
            doc_cell(D, "-");
        }
    if (R->nself > 0)
        doc_para(D, "%lld games of an engine against itself are not rated (they count below).", (long long)R->nself);
    for (int i = 0; i < R->nrated; i++) {
        const ReportPlayer *p = &R->players[R->rated_player[R->order[i]]];
        int64_t lost = 0;
        StrBuf why = {0};
        for (int k = 0; k < NREFEREE; k++)
            if (p->referee_lost[k]) {
                lost += p->referee_lost[k];
                strbuf_addf(&why, "%s%lld by %s", why.len ? ", " : "", (long long)p->referee_lost[k],
                            termination_name((Termination)(TERM_ILLEGAL_MOVE + k)));
            }
        if (lost > 0 && (double)lost > REFEREE_NOTE_SHARE * (double)p->games) {
            fmt_pct(a, sizeof a, (double)lost / (double)p->games);
            doc_para(D,
                     "Note: %s lost %lld of its %lld games (%s) by the referee's decision, not by play: %s. Its rating "
                     "and every figure with it count these as losses; with more than %g%% of the games decided this "
                     "way they say more about the clock, the machine's load or the program's robustness than about "
                     "its strength (see \"How games ended\").",
                     p->name, (long long)lost, (long long)p->games, a, why.s ? why.s : "", 100 * REFEREE_NOTE_SHARE);
        }
        free(why.s);
    }
    doc_img(D, PLOT_ELO_PNG, "Elo of each engine with its 95% interval");
    for (int i = 0; i < R->npairings; i++) {
        const Pairing *p = &R->pairings[i];
        if (2 * p->not_played_out > p->games) /* resignations are how most games end: not counted */
            doc_para(D,
                     "Note: %lld of the %lld games of %s vs %s (more than half) were drawn by the ply limit or draw "
                     "adjudication: their results rest on the adjudication settings more than on play to the end.",
                     (long long)p->not_played_out, (long long)p->games, R->players[p->a].name,
                     R->players[p->b].name);
        if (p->identical)
            doc_para(D,
                     "Note: %s and %s are the same engine version (program, options, limits, weights and search "
                     "settings) under two names: both games of each opening pair are the same game, so their results "
                     "say nothing about strength.",
                     R->players[p->a].name, R->players[p->b].name);
    }
}

/* Likelihood of superiority: every rated engine against every other. */
static void doc_los(const Report *R, Doc *D)
{
    char a[64];
    doc_h2(D, "Likelihood of superiority");
    doc_para(D, "The probability that the row's engine is stronger than the column's, from the fitted ratings.");
    {
        char align[40] = "l";
        int n = R->nrated < 38 ? R->nrated : 38;
        for (int i = 0; i < n; i++)
            strcat(align, "r");
        doc_table(D, align);
        doc_cell(D, "LOS");
        for (int j = 0; j < n; j++)
            doc_cell(D, "%s", R->players[R->rated_player[R->order[j]]].name);
        for (int i = 0; i < n; i++) {
            int ri = R->order[i];
            doc_cell(D, "%s", R->players[R->rated_player[ri]].name);
            for (int j = 0; j < n; j++) {
                int rj = R->order[j];
                if (ri == rj) {
                    doc_cell(D, "-");
                } else {
                    fmt_pct(a, sizeof a, R->r.los[ri * R->r.n + rj]);
                    doc_cell(D, "%s", a);
                }
            }
        }
    }
}

/* Pairings: each pair of engines, its games and its Elo. */
static void doc_pairings(const Report *R, Doc *D)
{
    char a[64];
    doc_h2(D, "Pairings");
    doc_para(D,
             "Results from the first engine's view. Pentanomial: opening pairs (both colours) scoring 0, 1/2, 1, "
             "3/2, 2 points. Elo from the score with its 95%% half-width; normalized Elo (nElo) from the "
             "pentanomial counts. A perfect score has no finite Elo: the bound the games support at 95%% is shown "
             "instead. LOS: the probability that the first engine is the stronger (from the fitted ratings, as in the "
             "matrix above). Adjudicated: games ended by the ply limit, resignation or draw adjudication.");
    doc_table(D, "lrrrrrrrrrrr");
    const char *ph[] = {"pairing", "games", "W", "D", "L", "pentanomial 0/½/1/1½/2", "score", "draws", "Elo",
                        "nElo", "LOS", "adjudicated"};
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++)
        doc_cell(D, "%s", ph[i]);
    for (int i = 0; i < R->npairings; i++) {
        const Pairing *p = &R->pairings[i];
        const PairingStats *s = &p->ps;
        doc_cell(D, "%s vs %s", R->players[p->a].name, R->players[p->b].name);
        doc_cell(D, "%lld", (long long)(s->wins + s->draws + s->losses));
        doc_cell(D, "%lld", (long long)s->wins);
        doc_cell(D, "%lld", (long long)s->draws);
        doc_cell(D, "%lld", (long long)s->losses);
        doc_cell(D, "%lld / %lld / %lld / %lld / %lld", (long long)s->penta[0], (long long)s->penta[1],
                 (long long)s->penta[2], (long long)s->penta[3], (long long)s->penta[4]);
        fmt_pct(a, sizeof a, s->score);
        doc_cell(D, "%s", a);
        fmt_pct(a, sizeof a, s->draw_rate);
        doc_cell(D, "%s", a);
        stats_format_elo(s, a, sizeof a);
        doc_cell(D, "%s", a);
        stats_format_nelo(s, a, sizeof a);
        doc_cell(D, "%s", a);
        int ra = R->players[p->a].rated, rb = R->players[p->b].rated;
        fmt_pct(a, sizeof a, R->r.los[ra * R->r.n + rb]);
        doc_cell(D, "%s", a);
        fmt_pct(a, sizeof a, (double)p->adjudicated / (double)p->games);
        doc_cell(D, "%s", a);
    }
    doc_img(D, PLOT_PAIRINGS_PNG, "Elo of each pairing as its games accumulate, with its 95% band");
}

/* How games ended. */
static void doc_terminations(const Report *R, Doc *D)
{
    char a[64];
    doc_h2(D, "How games ended");
    doc_table(D, "llrrrrr");
    const char *th[] = {"termination", "meaning", "games", "share", "White won", "drawn", "Black won"};
    for (size_t i = 0; i < sizeof th / sizeof th[0]; i++)
        doc_cell(D, "%s", th[i]);
    int64_t tot[3] = {0, 0, 0};
    for (int t = 0; t < NTERM; t++) {
        int64_t n = R->term[t][0] + R->term[t][1] + R->term[t][2];
        if (!n)
            continue;
        doc_cell(D, "%s", t < NTERM - 1 ? termination_name((Termination)t) : "other");
        doc_cell(D, "%s", termination_meaning((Termination)t));
        doc_cell(D, "%lld", (long long)n);
        fmt_pct(a, sizeof a, (double)n / (double)R->ngames);
        doc_cell(D, "%s", a);
        for (int k = 0; k < 3; k++) {
            doc_cell(D, "%lld", (long long)R->term[t][k]);
            tot[k] += R->term[t][k];
        }
    }
    doc_cell(D, "all");
    doc_cell(D, "%s", "");
    doc_cell(D, "%lld", (long long)R->ngames);
    doc_cell(D, "100.0%%");
    for (int k = 0; k < 3; k++)
        doc_cell(D, "%lld", (long long)tot[k]);
    {
        int64_t referee = 0;
        for (int k = 0; k < NREFEREE; k++)
            referee += R->term[TERM_ILLEGAL_MOVE + k][0] + R->term[TERM_ILLEGAL_MOVE + k][2];
        if (referee == 0) {
            doc_para(D, "No game was lost by the referee's decision (an illegal move, on time, a crash or a stall).");
        } else {
            doc_para(D, "Games each engine lost by the referee's decision (not by play), best-rated engine first.");
            doc_table(D, "lrrrrrr");
            doc_cell(D, "engine");
            doc_cell(D, "games");
            for (int k = 0; k < NREFEREE; k++)
                doc_cell(D, "%s", termination_name((Termination)(TERM_ILLEGAL_MOVE + k)));
            doc_cell(D, "share of its games");
            for (int i = 0; i < R->nplayers; i++) {
                /* rated engines best first, then the unrated ones */
                int pi = i < R->nrated ? R->rated_player[R->order[i]] : -1;
                if (pi < 0)
                    for (int p = 0, u = R->nrated; p < R->nplayers; p++)
                        if (R->players[p].rated < 0 && u++ == i)
                            pi = p;
                const ReportPlayer *p = &R->players[pi];
                int64_t lost = 0;
                doc_cell(D, "%s", p->name);
                doc_cell(D, "%lld", (long long)p->games);
                for (int k = 0; k < NREFEREE; k++) {
                    doc_cell(D, "%lld", (long long)p->referee_lost[k]);
                    lost += p->referee_lost[k];
                }
                fmt_pct(a, sizeof a, p->games ? (double)lost / (double)p->games : NAN);
                doc_cell(D, "%s", a);
            }
        }
    }
}

/* Game length. */
static void doc_lengths(const Report *R, Doc *D)
{
    doc_h2(D, "Game length");
    {
        double sum = 0;
        for (int64_t i = 0; i < R->ngames; i++)
            sum += R->plies[i];
        double median = R->ngames % 2 ? R->plies[R->ngames / 2]
                                      : (R->plies[R->ngames / 2 - 1] + R->plies[R->ngames / 2]) / 2.0;
        doc_para(D, "Plies per game: min %d, median %g, mean %.1f, max %d.", R->plies[0], median,
                 sum / (double)R->ngames, R->plies[R->ngames - 1]);
    }
    doc_img(D, PLOT_LENGTHS_PNG, "histogram of game lengths in plies, decisive and drawn games");
}

/* Each store's SPRT. */
static void doc_sprt(const Report *R, Doc *D)
{
    for (int i = 0; i < R->nsprt; i++) {
        const SprtInfo *s = &R->sprt[i];
        const StoreContents *c = &R->c[s->file];
        char png[32];
        plot_sprt_file(i, "png", png, sizeof png);
        doc_h2(D, "SPRT (%s)", R->files[s->file]);
        const bool logistic = s->model == SPRT_LOGISTIC;
        const char *unit = logistic ? "Elo" : "nElo";
        doc_para(D,
                 "%.64s against %.64s: H0 %s <= %g against H1 %s >= %g (%s model%s), alpha %g, beta %g; LLR "
                 "bounds [%.3f, %.3f].",
                 store_name(c, 0), store_name(c, 1), unit, s->elo0, unit, s->elo1, sprt_model_name(s->model),
                 logistic ? ", cutechess-cli's Elo" : ", fishtest's default", s->alpha, s->beta, s->lower,
                 s->upper);
        /* both models: the other's bounds at these games' per-pair deviation */
        const double o0 = sprt_other_model(s->elo0, s->model, s->penta),
                     o1 = sprt_other_model(s->elo1, s->model, s->penta);
        if (isfinite(o0) && isfinite(o1))
            doc_para(D,
                     "In the %s model, at the per-pair score deviation of these games, the bounds are [%.2f, %.2f] "
                     "%s (the two models agree on a score's distance from 1/2; they differ by the draw rate).",
                     sprt_model_name(logistic ? SPRT_NORMALIZED : SPRT_LOGISTIC), o0, o1, logistic ? "nElo" : "Elo");
        doc_table(D, "lr");
        doc_cell(D, "%s", "");
        doc_cell(D, "value");
        doc_cell(D, "complete pairs");
        doc_cell(D, "%lld", (long long)s->npairs);
        doc_cell(D, "pentanomial 0/½/1/1½/2");
        doc_cell(D, "%lld / %lld / %lld / %lld / %lld", (long long)s->penta[0], (long long)s->penta[1],
                 (long long)s->penta[2], (long long)s->penta[3], (long long)s->penta[4]);
        doc_cell(D, "LLR");
        doc_cell(D, "%.3f", s->llr);
        doc_cell(D, "decision from these games");
        doc_cell(D, "%s", sprt_decision_name(sprt_decide(s->llr, s->lower, s->upper)));
        doc_cell(D, "decision stored by the run");
        doc_cell(D, "%s", s->result && s->result[0] ? s->result : "none");
        doc_img(D, png, "SPRT log-likelihood ratio after each complete pair, with the bounds");
    }
}

/* The tuning log, when there is one. */
static void doc_tuning(const Report *R, Doc *D)
{
    if (R->have_tl) {
        const TuneLog *t = &R->tl;
        doc_h2(D, "Tuning");
        if (t->niters > 0) {
            const TuneLogIter *f0 = &t->iters[0], *fl = &t->iters[t->niters - 1];
            if (R->tl_have_hold) {
                int best = -1;
                for (int i = 0; i < t->niters; i++)
                    if (isfinite(t->iters[i].holdout_loss) &&
                        (best < 0 || t->iters[i].holdout_loss < t->iters[best].holdout_loss))
                        best = i;
                doc_para(D,
                         "%s: %d iterations; fit loss %.6g -> %.6g, hold-out loss %.6g -> %.6g (lowest %.6g at "
                         "iteration %ld).",
                         R->tuning_path, t->niters, f0->fit_loss, fl->fit_loss, f0->holdout_loss, fl->holdout_loss,
                         t->iters[best].holdout_loss, t->iters[best].iter);
            } else {
                doc_para(D, "%s: %d iterations; fit loss %.6g -> %.6g (no hold-out loss).", R->tuning_path,
                         t->niters, f0->fit_loss, fl->fit_loss);
            }
            doc_img(D, PLOT_TUNING_LOSS_PNG, "fit and hold-out loss per iteration");
        }
        if (t->ncv > 0) {
            int best = 0;
            for (int i = 1; i < t->ncv; i++)
                if (t->cv[i].loss < t->cv[best].loss)
                    best = i;
            doc_para(D, "The L2 strength against the loss on held-out games (cross-validation over games: mean "
                        "validation loss over the folds and its standard error); the lowest is marked.");
            doc_table(D, "rrrl");
            doc_cell(D, "L2");
            doc_cell(D, "validation loss");
            doc_cell(D, "se");
            doc_cell(D, " ");
            for (int i = 0; i < t->ncv; i++) {
                if (isfinite(t->cv[i].l2))
                    doc_cell(D, "%.4g", t->cv[i].l2);
                else
                    doc_cell(D, "start weights");
                doc_cell(D, "%.6f", t->cv[i].loss);
                doc_cell(D, "%.6f", t->cv[i].se);
                doc_cell(D, "%s", i == best ? "lowest" : "");
            }
        }
        if (t->nweights > 0) {
            int k = t->nweights < TOP_WEIGHTS ? t->nweights : TOP_WEIGHTS;
            doc_para(D, "The %d weights (of %d) that moved most, ranked by %s.", k, t->nweights,
                     R->tl_by_z ? "|new - start| / stderr" : "|new - start| (some stderr is 0)");
            doc_table(D, "lrrrrr");
            const char *wh[] = {"weight", "start", "new", "new - start", "stderr", "move / stderr"};
            for (size_t i = 0; i < sizeof wh / sizeof wh[0]; i++)
                doc_cell(D, "%s", wh[i]);
            for (int i = 0; i < k; i++) {
                const RankedWeight *rw = &R->tl_rank[i];
                doc_cell(D, "%s", rw->w->name);
                doc_cell(D, "%g", rw->w->start);
                doc_cell(D, "%g", rw->w->now);
                doc_cell(D, "%+g", rw->move);
                doc_cell(D, "%g", rw->w->se);
                if (rw->w->se > 0)
                    doc_cell(D, "%+.2f", rw->move / rw->w->se);
                else
                    doc_cell(D, "-");
            }
            doc_img(D, PLOT_TUNING_WEIGHTS_PNG, "the weights that moved most, with +/- 2 stderr error bars");
        }
        if (t->ncorr > 0) {
            doc_para(D, "Pairs of weights whose estimates are strongly correlated (|r| > %g): the data fix their "
                        "combination, not each value; holding one fixed (tune --fixed, [train] fixed) anchors "
                        "the other.",
                     TUNE_CORR_REPORT);
            doc_table(D, "llr");
            doc_cell(D, "weight");
            doc_cell(D, "weight");
            doc_cell(D, "r");
            for (int i = 0; i < t->ncorr; i++) {
                doc_cell(D, "%s", t->corr[i].a);
                doc_cell(D, "%s", t->corr[i].b);
                doc_cell(D, "%+.3f", t->corr[i].r);
            }
        }
        if (t->ngroups > 0) {
            doc_para(D, "Groups of weights (core/weights.def's groups) and how their estimates trade off as a "
                        "whole, and the line 'all' for every weight (trade-offs between groups): the condition "
                        "number of their estimates' correlations (1: independent; above %g, as a pair at |r| %g "
                        "has, the data fix one combination of them much worse than another, though no pair need "
                        "show it), and the combination they fix least, each weight in its own standard errors, "
                        "with how many times it spreads beyond independent estimates.",
                     TUNE_COND_REPORT, TUNE_CORR_REPORT);
            doc_table(D, "lrrrl");
            doc_cell(D, "group");
            doc_cell(D, "weights");
            doc_cell(D, "condition number");
            doc_cell(D, "spread of the loosest combination");
            doc_cell(D, "loosest combination (per standard error)");
            for (int i = 0; i < t->ngroups; i++) {
                const TuneLogGroup *g = &t->groups[i];
                char comb[TUNE_GROUP_SHOW * 112 + 8];
                size_t len = 0;
                comb[0] = 0;
                for (int j = 0; j < g->nshow && len < sizeof comb; j++)
                    len += (size_t)snprintf(comb + len, sizeof comb - len, "%s%+.2f %s", j ? " " : "", g->coef[j],
                                            g->names[j]);
                if (g->nshow < g->n && len < sizeof comb)
                    snprintf(comb + len, sizeof comb - len, " ...");
                doc_cell(D, "%s", g->group);
                doc_cell(D, "%d", g->n);
                doc_cell(D, "%.3g%s", g->cond, g->cond > TUNE_COND_REPORT ? " (trades off)" : "");
                doc_cell(D, "x%.2g", g->spread);
                doc_cell(D, "%s", comb);
            }
        }
    }
}

/* Stage 4: the document, section by section. */
void report_build_doc(const Report *R, Doc *D)
{
    doc_intro(R, D);
    doc_against_baseline(R, D);
    build_played(R, D);
    doc_ratings(R, D);
    doc_los(R, D);
    doc_pairings(R, D);
    doc_terminations(R, D);
    doc_lengths(R, D);
    doc_sprt(R, D);
    doc_tuning(R, D);
}
