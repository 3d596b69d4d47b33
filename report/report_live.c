#define _POSIX_C_SOURCE 200809L
/* report_live.c: see report_live.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_live.h"
#include "outcome.h"
#include "report_internal.h"

/* "k": with the comma before it that JSON needs (none after '{' or a line
 * break, where the caller has put its own). */
static void key(StrBuf *o, const char *k)
{
    const char last = o->len ? o->s[o->len - 1] : '{';
    if (last != '{' && last != '\n')
        strbuf_add(o, ", ");
    strbuf_add_json_string(o, k);
    strbuf_add(o, ": ");
}

static void num(StrBuf *o, const char *k, double x)
{
    key(o, k);
    strbuf_add_json_number(o, x, 6);
}

static void standings(const Report *R, StrBuf *o)
{
    key(o, "standings");
    strbuf_add(o, "[");
    /* rated players best first, then any that met no other */
    int *list = malloc((size_t)(R->nplayers ? R->nplayers : 1) * sizeof *list);
    if (!list) {
        o->failed = true;
        return;
    }
    int n = 0;
    for (int i = 0; i < R->nrated; i++)
        list[n++] = R->rated_player[R->order[i]];
    for (int p = 0; p < R->nplayers; p++)
        if (R->players[p].rated < 0)
            list[n++] = p;
    for (int i = 0; i < n; i++) {
        const ReportPlayer *p = &R->players[list[i]];
        const int ri = p->rated;
        strbuf_add(o, i ? ",\n {" : "\n {");
        key(o, "name");
        strbuf_add_json_string(o, p->name);
        num(o, "games", (double)p->games);
        num(o, "points", p->points);
        num(o, "score", p->games ? 100.0 * p->points / (double)p->games : NAN);
        const bool rated = ri >= 0 && R->have_r;
        num(o, "elo", rated ? R->r.elo[ri] : NAN);
        num(o, "lo", rated ? R->r.lo[ri] : NAN);
        num(o, "hi", rated ? R->r.hi[ri] : NAN);
        num(o, "err95", rated ? (R->r.hi[ri] - R->r.lo[ri]) / 2 : NAN);
        key(o, "referee_lost");
        strbuf_add(o, "{");
        for (int t = 0; t < NREFEREE; t++) {
            num(o, termination_name((Termination)(TERM_ILLEGAL_MOVE + t)), (double)p->referee_lost[t]);
        }
        strbuf_add(o, "}}");
    }
    strbuf_add(o, "]");
    free(list);
}

static void pairings(const Report *R, StrBuf *o)
{
    key(o, "pairings");
    strbuf_add(o, "[");
    for (int i = 0; i < R->npairings; i++) {
        const Pairing *p = &R->pairings[i];
        strbuf_add(o, i ? ",\n {" : "\n {");
        key(o, "a");
        strbuf_add_json_string(o, R->players[p->a].name);
        key(o, "b");
        strbuf_add_json_string(o, R->players[p->b].name);
        num(o, "games", (double)p->games);
        strbuf_addf(o, ", \"w\": %lld, \"d\": %lld, \"l\": %lld, \"penta\": [%lld, %lld, %lld, %lld, %lld]",
                    (long long)p->ps.wins, (long long)p->ps.draws, (long long)p->ps.losses,
                    (long long)p->ps.penta[0], (long long)p->ps.penta[1], (long long)p->ps.penta[2],
                    (long long)p->ps.penta[3], (long long)p->ps.penta[4]);
        num(o, "score", 100.0 * p->ps.score);
        num(o, "elo", p->ps.elo);
        num(o, "err95", p->ps.elo_err95);
        num(o, "nelo", p->ps.nelo);
        num(o, "nelo_err95", p->ps.nelo_err95);
        num(o, "los", 100.0 * p->ps.los);
        char elo[STATS_ELO_TEXT], nelo[STATS_ELO_TEXT];
        key(o, "elo_text");
        strbuf_add_json_string(o, stats_format_elo(&p->ps, elo, sizeof elo));
        key(o, "nelo_text");
        strbuf_add_json_string(o, stats_format_nelo(&p->ps, nelo, sizeof nelo));
        strbuf_add(o, "}");
    }
    strbuf_add(o, "]");
}

/* The first store's SPRT (a live run has one store). */
static void sprt(const Report *R, bool with_path, StrBuf *o)
{
    key(o, "sprt");
    if (R->nsprt == 0) {
        strbuf_add(o, "null");
        return;
    }
    const SprtInfo *s = &R->sprt[0];
    strbuf_add(o, "{");
    key(o, "a");
    strbuf_add_json_string(o, R->players[s->a].name);
    key(o, "b");
    strbuf_add_json_string(o, R->players[s->b].name);
    num(o, "elo0", s->elo0);
    num(o, "elo1", s->elo1);
    num(o, "alpha", s->alpha);
    num(o, "beta", s->beta);
    key(o, "model");
    strbuf_add_json_string(o, sprt_model_name(s->model));
    num(o, "lower", s->lower);
    num(o, "upper", s->upper);
    num(o, "llr", s->llr);
    num(o, "pairs", (double)s->npairs);
    strbuf_addf(o, ", \"penta\": [%lld, %lld, %lld, %lld, %lld]", (long long)s->penta[0],
                (long long)s->penta[1], (long long)s->penta[2], (long long)s->penta[3], (long long)s->penta[4]);
    key(o, "result"); /* the stored decision of a finished run */
    strbuf_add_json_string(o, s->result && s->result[0] ? s->result : NULL);
    key(o, "decision"); /* what the LLR so far says */
    strbuf_add_json_string(o, sprt_decision_name(sprt_decide(s->llr, s->lower, s->upper)));
    if (!with_path) {
        strbuf_add(o, "}");
        return;
    }
    key(o, "path");
    strbuf_add(o, "[");
    for (int64_t i = 0; i <= s->npairs; i++) {
        strbuf_add(o, i ? ", [" : "[");
        strbuf_add_json_number(o, s->path_games[i], 6);
        strbuf_add(o, ", ");
        strbuf_add_json_number(o, s->path_llr[i], 5);
        strbuf_add(o, "]");
    }
    strbuf_add(o, "]}");
}

static void referee_losses(const Report *R, int max_losses, StrBuf *o)
{
    key(o, "referee_losses");
    strbuf_add(o, "[");
    int64_t n = 0, first = R->ngames;
    /* the last max_losses, latest last: find where they begin */
    for (int64_t i = R->ngames - 1; i >= 0 && n < max_losses; i--)
        if (termination_is_failure(R->kept[i]->termination))
            n++, first = i;
    bool any = false;
    for (int64_t i = first; i < R->ngames; i++) {
        const StoredGame *g = R->kept[i];
        if (!termination_is_failure(g->termination))
            continue;
        const int loser = g->result > 0 ? R->kept_black[i] : R->kept_white[i];
        strbuf_add(o, any ? ",\n {" : "\n {");
        any = true;
        num(o, "game", (double)g->index);
        key(o, "loser");
        strbuf_add_json_string(o, loser >= 0 ? R->players[loser].name : NULL);
        key(o, "termination");
        strbuf_add_json_string(o, termination_name((Termination)g->termination));
        num(o, "plies", g->plies);
        strbuf_add(o, "}");
    }
    strbuf_add(o, "]");
}

/* The members from a Report whose stores are set (files, or contents given). */
static TvStatus live_json(Report *R, bool brief, int max_losses, StrBuf *out, TvError *err)
{
    R->sprt_from_ini = true;
    TvStatus st;
    if ((st = report_collect(R, err)) == TV_OK && (st = report_compute(R, err)) == TV_OK) {
        StrBuf lines = {0};
        report_headlines(R, &lines);
        const char *l = strbuf_str(&lines);
        char *first = strndup(l, strcspn(l, "\n"));
        key(out, "headline");
        strbuf_add_json_string(out, first ? first : "");
        strbuf_add(out, ",\n");
        num(out, "rated_games", (double)R->ngames);
        strbuf_add(out, ",\n");
        sprt(R, !brief, out);
        if (!brief) {
            strbuf_add(out, ",\n");
            standings(R, out);
            strbuf_add(out, ",\n");
            pairings(R, out);
            strbuf_add(out, ",\n");
            referee_losses(R, max_losses, out);
        }
        free(first);
        strbuf_free(&lines);
        if (out->failed || lines.failed || !first)
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory writing the live report");
    }
    report_free(R);
    return st;
}

TvStatus report_live_json(const char *const *files, int nfiles, bool brief, int max_losses, StrBuf *out,
                          TvError *err)
{
    Report R;
    memset(&R, 0, sizeof R);
    R.files = files;
    R.nfiles = nfiles;
    return live_json(&R, brief, max_losses, out, err);
}

TvStatus report_live_json_contents(const StoreContents *c, const char *name, bool brief, int max_losses,
                                   StrBuf *out, TvError *err)
{
    Report R;
    memset(&R, 0, sizeof R);
    const char *files[1] = {name};
    R.files = files;
    R.nfiles = 1;
    R.c = (StoreContents *)c; /* read only: report_collect and report_compute do not change it */
    R.c_given = true;
    return live_json(&R, brief, max_losses, out, err);
}
