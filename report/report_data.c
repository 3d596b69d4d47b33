#define _POSIX_C_SOURCE 200809L
/* report_data.c: stages 1 and 2 of the report (see report.c): reading the
 * stores, what an engine is (matched by name, one version per name), the
 * games counted once, the ratings, the pairings, terminations, lengths, the
 * SPRT paths and the tuning log's ranking. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "idset.h"
#include "report_internal.h"
#include "strbuf.h"

/* ---- the tuning log ------------------------------------------------------------------ */

/* Biggest key first (ties: by name; names are unique in a log). */
static int cmp_ranked(const void *a, const void *b)
{
    const RankedWeight *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return strcmp(x->w->name, y->w->name);
}

/* ---- the SPRT of one store -------------------------------------------------------------- */

/* Reads the store's "sprt" attribute into s (stats.h's reader) and sets the
 * LLR bounds. */
static TvStatus parse_sprt(const char *file, const char *text, SprtInfo *s, TvError *err)
{
    SprtSettings set;
    TvError e;
    if (sprt_settings_parse(text, &set, &e) != TV_OK)
        return tv_fail(err, TV_ERR_PARSE, "%s: %s", file, e.msg);
    s->elo0 = set.elo0;
    s->elo1 = set.elo1;
    s->alpha = set.alpha;
    s->beta = set.beta;
    sprt_bounds(s->alpha, s->beta, &s->lower, &s->upper);
    return TV_OK;
}

static int cmp_game_index(const void *a, const void *b)
{
    const StoredGame *x = *(const StoredGame *const *)a, *y = *(const StoredGame *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The LLR after each complete pair of the store's engines 0 and 1, in
 * game-index order, from engine 0's view. */
static TvStatus sprt_path(const StoreContents *c, SprtInfo *s, TvError *err)
{
    const StoredGame **g = malloc((size_t)(c->ngames ? c->ngames : 1) * sizeof *g);
    int64_t n = 0;
    if (!g)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int64_t i = 0; i < c->ngames; i++) {
        const StoredGame *x = &c->games[i];
        if ((x->white == 0 && x->black == 1) || (x->white == 1 && x->black == 0))
            g[n++] = x;
    }
    qsort(g, (size_t)n, sizeof *g, cmp_game_index);
    s->path_games = malloc((size_t)(n / 2 + 1) * sizeof(double));
    s->path_llr = malloc((size_t)(n / 2 + 1) * sizeof(double));
    if (!s->path_games || !s->path_llr) {
        free(g);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    s->path_games[0] = 0;
    s->path_llr[0] = 0;
    s->minllr = s->maxllr = 0;
    for (int64_t i = 0; i + 1 < n; i++) {
        if (g[i]->index % 2 != 0 || g[i + 1]->index != g[i]->index + 1)
            continue;
        int pts2 = 0; /* engine 0's points in the pair, doubled */
        for (int k = 0; k < 2; k++) {
            int r = g[i + k]->result;
            pts2 += g[i + k]->white == 0 ? r + 1 : 1 - r;
        }
        s->penta[pts2]++;
        s->npairs++;
        s->llr = sprt_llr_pentanomial(s->penta, s->elo0, s->elo1);
        s->path_games[s->npairs] = 2.0 * (double)s->npairs;
        s->path_llr[s->npairs] = s->llr;
        if (isfinite(s->llr)) {
            s->minllr = fmin(s->minllr, s->llr);
            s->maxllr = fmax(s->maxllr, s->llr);
        }
        i++;
    }
    free(g);
    return TV_OK;
}

/* ---- what an engine is: its /engines row and its option.NAME lines ------------------ */

/* A separate program's options are not in /engines: they are the
 * option.NAME = VALUE lines of its [engine NAME] section (and of an [each]
 * section, which holds keys for every engine) in the store's tournament_ini,
 * read here with inih as the tournament reader reads them. */
typedef struct {
    const StoreContents *c;
    StrBuf *own;  /* c->nengines: "NAME=VALUE ..." of each engine's section */
    StrBuf each;  /* of [each] */
} OptionLines;

static int option_line(void *user, const char *section, const char *name, const char *value)
{
    OptionLines *o = user;
    if (strncmp(name, "option.", 7) != 0)
        return 1;
    StrBuf *dst = NULL;
    if (!strcmp(section, "each")) {
        dst = &o->each;
    } else if (!strncmp(section, "engine", 6) && (section[6] == ' ' || section[6] == '\t')) {
        const char *n = section + 6;
        while (*n == ' ' || *n == '\t')
            n++;
        size_t len = strlen(n);
        while (len > 0 && (n[len - 1] == ' ' || n[len - 1] == '\t'))
            len--;
        for (int e = 0; e < o->c->nengines && !dst; e++)
            if (strlen(o->c->engines[e].name) == len && !strncmp(o->c->engines[e].name, n, len))
                dst = &o->own[e];
    }
    if (dst)
        strbuf_addf(dst, "%s%s=%s", dst->len ? " " : "", name + 7, value);
    return 1;
}

/* Each engine's options in store c, "NAME=VALUE ..." ([each] first, then
 * its own section; "" when none), as c->nengines heap strings in *out.
 * A tournament_ini that does not read (a store written by hand) gives none. */
static TvStatus engine_options(const StoreContents *c, char ***out, TvError *err)
{
    OptionLines o = {c, calloc((size_t)(c->nengines ? c->nengines : 1), sizeof(StrBuf)), {0}};
    char **opts = calloc((size_t)(c->nengines ? c->nengines : 1), sizeof *opts);
    TvStatus st = TV_OK;
    if (!o.own || !opts) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        goto done;
    }
    ini_parse_string(c->tournament_ini ? c->tournament_ini : "", option_line, &o);
    for (int e = 0; e < c->nengines && st == TV_OK; e++) {
        StrBuf all = {0};
        strbuf_addf(&all, "%s%s%s", o.each.s ? o.each.s : "", o.each.len && o.own[e].len ? " " : "",
                    o.own[e].s ? o.own[e].s : "");
        if (o.own[e].failed || o.each.failed || !(opts[e] = strbuf_take(&all))) /* take: "" when empty */
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
done:
    for (int e = 0; o.own && e < c->nengines; e++)
        free(o.own[e].s);
    free(o.own);
    free(o.each.s);
    if (st != TV_OK && opts) {
        for (int e = 0; e < c->nengines; e++)
            free(opts[e]);
        free(opts);
        opts = NULL;
    }
    *out = opts;
    return st;
}

/* The first word (space-separated "name=value") where a and b differ, as
 * "WORD_OF_B, there WORD_OF_A". */
static void first_word_difference(const char *a, const char *b, char *out, size_t n)
{
    while (*a || *b) {
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la != lb || strncmp(a, b, la)) {
            snprintf(out, n, "%.*s, there %.*s", lb ? (int)(lb > 60 ? 60 : lb) : 4, lb ? b : "none",
                     la ? (int)(la > 60 ? 60 : la) : 4, la ? a : "none");
            return;
        }
        a += la + (a[la] == ' ');
        b += lb + (b[lb] == ' ');
    }
    snprintf(out, n, "the same words");
}

/* An engine of a store as the report compares it: its /engines row and its
 * option.NAME lines. */
typedef struct {
    const StoredEngine *e;
    const char *options; /* "NAME=VALUE ..." or "" */
} EngineId;

static const char *KIND_NAMES[] = {"in-process engine", "random mover", "separate program"};

const char *report_kind_name(int kind)
{
    return kind >= 0 && kind < 3 ? KIND_NAMES[kind] : "unknown kind";
}

/* Why x and y are not the same engine version (a name stands for one
 * version: the same kind, program and options, limits and clock, weights
 * and search settings), or NULL.  y is said first ("B, there A").  Search
 * settings are compared when both stores hold them (a store made before they
 * were stored has ""). */
static const char *engine_difference(EngineId x, EngineId y, char *why, size_t n)
{
    const StoredEngine *a = x.e, *b = y.e;
    char w[160];
    if (a->kind != b->kind) {
        snprintf(why, n, "another kind of player (%s, there %s)", report_kind_name(b->kind), report_kind_name(a->kind));
        return why;
    }
    if (strncmp(a->command, b->command, sizeof a->command)) {
        snprintf(why, n, "a different program (command '%.80s', there '%.80s')", b->command, a->command);
        return why;
    }
    if (strcmp(x.options, y.options)) {
        first_word_difference(x.options, y.options, w, sizeof w);
        snprintf(why, n, "other options (%s)", w);
        return why;
    }
    if (a->depth != b->depth || a->nodes != b->nodes || a->movetime_ms != b->movetime_ms ||
        strncmp(a->tc, b->tc, sizeof a->tc))
        return "other limits";
    if (a->timemargin_ms != b->timemargin_ms) {
        snprintf(why, n, "another timemargin (%d ms, there %d ms)", (int)b->timemargin_ms, (int)a->timemargin_ms);
        return why;
    }
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        if (a->weights[i] != b->weights[i]) {
            char name[96];
            eval_weight_element_name(i, name, sizeof name);
            snprintf(why, n, "other weights (%s %d, there %d)", name, b->weights[i], a->weights[i]);
            return why;
        }
    if (a->settings[0] && b->settings[0] && strncmp(a->settings, b->settings, sizeof a->settings)) {
        first_word_difference(a->settings, b->settings, w, sizeof w);
        snprintf(why, n, "other search settings (%s)", w);
        return why;
    }
    return NULL;
}

/* Whether x and y are known to play alike: no difference, and for the
 * built-in engine search settings stored for both. */
static bool engines_identical(EngineId x, EngineId y)
{
    char why[8];
    return !engine_difference(x, y, why, sizeof why) &&
           (x.e->kind != 0 || (x.e->settings[0] && y.e->settings[0]));
}

/* Stage 1: read the stores and collect the games.  Players are matched by
 * name across stores (any engine sets: v1-v2 in one store and v2-v3 in
 * another are one rating list); a game held by two stores counts once. */
TvStatus report_collect(Report *R, TvError *err)
{
    R->c = calloc((size_t)(R->nfiles > 0 ? R->nfiles : 1), sizeof *R->c);
    R->options = calloc((size_t)(R->nfiles > 0 ? R->nfiles : 1), sizeof *R->options);
    if (!R->c || !R->options)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    int64_t all = 0;
    for (int f = 0; f < R->nfiles; f++) {
        TvStatus st = h5store_read(R->files[f], false, false, &R->c[f], err);
        if (st != TV_OK)
            return st;
        if (R->c[f].ngames == 0)
            return tv_fail(err, TV_ERR_ARG, "%s: no games", R->files[f]);
        if ((st = engine_options(&R->c[f], &R->options[f], err)) != TV_OK)
            return st;
        if (!R->mix_rules && strcmp(R->c[f].options, R->c[0].options) != 0)
            return tv_fail(err, TV_ERR_ARG,
                           "%s was played under other rules (%s) than %s (%s): rating them together needs "
                           "--mix-rules",
                           R->files[f], R->c[f].options, R->files[0], R->c[0].options);
        all += R->c[f].ngames;
    }
    int total_engines = 0;
    for (int f = 0; f < R->nfiles; f++)
        total_engines += R->c[f].nengines;
    R->players = calloc((size_t)(total_engines ? total_engines : 1), sizeof *R->players);
    R->rg = malloc((size_t)(all ? all : 1) * sizeof *R->rg);
    R->kept = malloc((size_t)(all ? all : 1) * sizeof *R->kept);
    R->kept_white = malloc((size_t)(all ? all : 1) * sizeof *R->kept_white);
    R->kept_black = malloc((size_t)(all ? all : 1) * sizeof *R->kept_black);
    TvIdSet keys = {0}; /* the games counted (core/idset.h) */
    int *map = malloc((size_t)(total_engines ? total_engines : 1) * sizeof *map);
    TvStatus st = TV_OK;
    if (!R->players || !R->rg || !R->kept || !R->kept_white || !R->kept_black || !map) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        goto done;
    }
    int64_t pair_base = 0;
    for (int f = 0; f < R->nfiles && st == TV_OK; f++) {
        const StoreContents *c = &R->c[f];
        /* its engines as players: a known name must be the same version */
        for (int e = 0; e < c->nengines && st == TV_OK; e++) {
            map[e] = -1;
            for (int p = 0; p < R->nplayers && map[e] < 0; p++)
                if (!strncmp(c->engines[e].name, R->players[p].name, sizeof c->engines[e].name))
                    map[e] = p;
            char why[400];
            const char *d;
            const EngineId here = {&c->engines[e], R->options[f][e]};
            if (map[e] >= 0 &&
                (d = engine_difference((EngineId){R->players[map[e]].eng, R->players[map[e]].options}, here, why,
                                       sizeof why)))
                st = tv_fail(err, TV_ERR_ARG,
                             "%s: engine '%.64s' has %s than in %s: one name must be one version (rename one of "
                             "them)",
                             R->files[f], c->engines[e].name, d, R->files[R->players[map[e]].file]);
            else if (map[e] < 0) {
                Player *p = &R->players[R->nplayers];
                snprintf(p->name, sizeof p->name, "%.*s", (int)sizeof c->engines[e].name - 1, c->engines[e].name);
                p->eng = &c->engines[e];
                p->options = R->options[f][e];
                p->file = f;
                p->rated = -1;
                map[e] = R->nplayers++;
            }
        }
        int64_t max_index = 0;
        for (int64_t i = 0; i < c->ngames && st == TV_OK; i++) {
            const StoredGame *g = &c->games[i];
            if (g->white < 0 || g->white >= c->nengines || g->black < 0 || g->black >= c->nengines ||
                g->result < -1 || g->result > 1 || g->index < 0) {
                st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld has a bad engine index, result or index", R->files[f],
                             (long long)g->index);
                break;
            }
            /* a game seen in an earlier store (or twice here) counts once */
            int added = tv_idset_add(&keys, h5store_game_id(c, g));
            if (added < 0) {
                st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                break;
            }
            if (!added) {
                R->nduplicates++;
                continue;
            }
            int w = map[g->white], b = map[g->black];
            R->kept_white[R->ngames] = w;
            R->kept_black[R->ngames] = b;
            R->kept[R->ngames++] = g;
            if (g->index > max_index)
                max_index = g->index;
            double pw = (g->result + 1) / 2.0;
            R->players[w].games++;
            R->players[b].games++;
            R->players[w].points += pw;
            R->players[b].points += 1.0 - pw;
            if (termination_is_failure(g->termination) && g->result != 0)
                R->players[g->result > 0 ? b : w].referee_lost[g->termination - TERM_ILLEGAL_MOVE]++;
            if (w == b) {
                R->nself++;
                continue;
            }
            RatedGame *r = &R->rg[R->nrg++];
            r->white = w;
            r->black = b;
            r->result = g->result;
            r->pair = pair_base + g->index / 2;
        }
        pair_base += max_index / 2 + 1;
    }
done:
    tv_idset_free(&keys);
    free(map);
    return st;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The tuning log's weights ranked by how far they moved, the biggest first. */
static TvStatus rank_tuning(Report *R, TvError *err)
{
    const TuneLog *t = &R->tl;
    for (int i = 0; i < t->niters; i++)
        if (isfinite(t->iters[i].holdout_loss))
            R->tl_have_hold = true;
    R->tl_rank = malloc((size_t)(t->nweights ? t->nweights : 1) * sizeof *R->tl_rank);
    if (!R->tl_rank)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    R->tl_by_z = t->nweights > 0;
    for (int i = 0; i < t->nweights; i++)
        if (!(t->weights[i].se > 0))
            R->tl_by_z = false;
    for (int i = 0; i < t->nweights; i++) {
        RankedWeight *r = &R->tl_rank[i];
        r->w = &t->weights[i];
        r->move = r->w->now - r->w->start;
        r->key = R->tl_by_z ? fabs(r->move) / r->w->se : fabs(r->move);
    }
    qsort(R->tl_rank, (size_t)t->nweights, sizeof *R->tl_rank, cmp_ranked);
    return TV_OK;
}

/* Stage 2: the numbers. */
TvStatus report_compute(Report *R, TvError *err)
{
    /* Players who played another player are rated. */
    bool *met = calloc((size_t)R->nplayers, sizeof *met);
    R->rated_player = malloc((size_t)R->nplayers * sizeof *R->rated_player);
    if (!met || !R->rated_player) {
        free(met);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int64_t i = 0; i < R->nrg; i++)
        met[R->rg[i].white] = met[R->rg[i].black] = true;
    for (int p = 0; p < R->nplayers; p++)
        if (met[p]) {
            R->players[p].rated = R->nrated;
            R->rated_player[R->nrated++] = p;
        }
    free(met);
    if (R->nrated < 2) {
        const char *only = R->nplayers > 0 ? R->players[0].name : "?";
        for (int p = 0; p < R->nplayers; p++)
            if (R->players[p].games > 0) {
                only = R->players[p].name;
                break;
            }
        return tv_fail(err, TV_ERR_ARG,
                       "only one engine version (%s) played in %s%s: ratings need two versions that played each other",
                       only, R->files[0], R->nfiles > 1 ? " and the other stores" : "");
    }
    RatedGame *cg = malloc((size_t)R->nrg * sizeof *cg);
    if (!cg)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int64_t i = 0; i < R->nrg; i++) {
        cg[i] = R->rg[i];
        cg[i].white = R->players[cg[i].white].rated;
        cg[i].black = R->players[cg[i].black].rated;
    }
    TvStatus st = ratings_fit(cg, R->nrg, R->nrated, R->simulations, 1, &R->r, err);
    if (st != TV_OK) {
        free(cg);
        return st;
    }
    R->have_r = true;

    /* The baseline: --baseline NAME, or the first engine (of the first store)
     * that played another. */
    R->baseline = R->rated_player[0];
    if (R->baseline_name) {
        R->baseline = -1;
        for (int p = 0; p < R->nplayers; p++)
            if (!strcmp(R->players[p].name, R->baseline_name))
                R->baseline = p;
        if (R->baseline < 0) {
            StrBuf names = {0};
            for (int p = 0; p < R->nplayers; p++)
                strbuf_addf(&names, "%s%s", p ? ", " : "", R->players[p].name);
            st = tv_fail(err, TV_ERR_ARG, "--baseline %.64s: no engine of that name in the stores (engines: %.300s)",
                         R->baseline_name, names.s ? names.s : "");
            free(names.s);
            free(cg);
            return st;
        }
    }
    if (R->players[R->baseline].rated < 0) {
        free(cg);
        return tv_fail(err, TV_ERR_ARG,
                       "the baseline %s played no other engine: choose another with --baseline NAME",
                       R->players[R->baseline].name);
    }

    /* Order: by Elo, best first (ties: store order). */
    R->order = malloc((size_t)R->nrated * sizeof *R->order);
    if (!R->order) {
        free(cg);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int i = 0; i < R->nrated; i++)
        R->order[i] = i;
    for (int i = 1; i < R->nrated; i++) /* insertion sort: a handful of players */
        for (int j = i; j > 0 && R->r.elo[R->order[j]] > R->r.elo[R->order[j - 1]]; j--) {
            int t = R->order[j];
            R->order[j] = R->order[j - 1];
            R->order[j - 1] = t;
        }

    /* Pairings: every two players who met, in store order. */
    int n = R->nplayers;
    int64_t *met_games = calloc((size_t)n * (size_t)n, sizeof *met_games);
    R->pairings = malloc((size_t)(n * (n - 1) / 2 + 1) * sizeof *R->pairings);
    if (!met_games || !R->pairings) {
        free(cg);
        free(met_games);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int64_t i = 0; i < R->nrg; i++) {
        int a = R->rg[i].white, b = R->rg[i].black;
        met_games[(a < b ? a : b) * n + (a < b ? b : a)]++;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (met_games[a * n + b] > 0) {
                Pairing *p = &R->pairings[R->npairings++];
                memset(p, 0, sizeof *p);
                p->a = a;
                p->b = b;
                p->games = met_games[a * n + b];
                pairing_stats(cg, R->nrg, R->players[a].rated, R->players[b].rated, &p->ps);
                p->identical = engines_identical((EngineId){R->players[a].eng, R->players[a].options},
                                                 (EngineId){R->players[b].eng, R->players[b].options});
                p->elo = malloc(sizeof *p->elo * (size_t)p->games);
                p->err95 = malloc(sizeof *p->err95 * (size_t)p->games);
                if (!p->elo || !p->err95)
                    st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
            }
    free(met_games);
    free(cg);
    if (st != TV_OK)
        return st;
    /* Each pairing's Elo after each of its games, as played. */
    for (int i = 0; i < R->npairings; i++) {
        Pairing *p = &R->pairings[i];
        int64_t w = 0, d = 0, l = 0, k = 0;
        for (int64_t g = 0; g < R->ngames && k < p->games; g++) {
            int x = R->kept_white[g], y = R->kept_black[g];
            if (!((x == p->a && y == p->b) || (x == p->b && y == p->a)))
                continue;
            const StoredGame *sg = R->kept[g];
            int res = x == p->a ? sg->result : -sg->result;
            w += res > 0;
            d += res == 0;
            l += res < 0;
            p->adjudicated += sg->termination == TERM_ADJ_MAX_PLIES || sg->termination == TERM_ADJ_RESIGN ||
                              sg->termination == TERM_ADJ_DRAW;
            double s, se, e, h;
            stats_trinomial(w, d, l, &s, &se, &e, &h);
            p->elo[k] = fmax(-1000, fmin(1000, e));
            p->err95[k++] = h;
        }
    }

    /* Terminations and game lengths (every game, also self-games). */
    R->plies = malloc((size_t)R->ngames * sizeof *R->plies);
    if (!R->plies)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    int64_t k = 0;
    for (int64_t i = 0; i < R->ngames; i++) {
        const StoredGame *g = R->kept[i];
        int t = g->termination >= 0 && g->termination < NTERM - 1 ? g->termination : NTERM - 1;
        R->term[t][1 - g->result]++;
        R->plies[k++] = g->plies < 0 ? 0 : g->plies;
    }
    qsort(R->plies, (size_t)R->ngames, sizeof *R->plies, cmp_int);
    int maxp = R->plies[R->ngames - 1];
    static const int nice[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000};
    R->binw = nice[sizeof nice / sizeof nice[0] - 1];
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if ((maxp + 1 + nice[i] - 1) / nice[i] <= 40) {
            R->binw = nice[i];
            break;
        }
    R->nbins = maxp / R->binw + 1;
    R->decisive_by_bin = calloc((size_t)R->nbins, sizeof *R->decisive_by_bin);
    R->drawn_by_bin = calloc((size_t)R->nbins, sizeof *R->drawn_by_bin);
    if (!R->decisive_by_bin || !R->drawn_by_bin)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int64_t i = 0; i < R->ngames; i++) {
        const StoredGame *g = R->kept[i];
        int bin = (g->plies < 0 ? 0 : g->plies) / R->binw;
        if (g->result)
            R->decisive_by_bin[bin]++;
        else
            R->drawn_by_bin[bin]++;
    }

    /* SPRT: every store that ran one. */
    R->sprt = calloc((size_t)R->nfiles, sizeof *R->sprt);
    if (!R->sprt)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int f = 0; f < R->nfiles; f++) {
        const char *text = R->c[f].sprt; /* the root attribute "sprt" (NULL: none) */
        if (!text)
            continue;
        SprtInfo *s = &R->sprt[R->nsprt++];
        s->file = f;
        if ((st = parse_sprt(R->files[f], text, s, err)) != TV_OK)
            return st;
        if (R->c[f].nengines < 2)
            return tv_fail(err, TV_ERR_ARG, "%s: an SPRT needs two engines", R->files[f]);
        const char *res = R->c[f].sprt_result;
        if (res && !(s->result = strdup(res)))
            return tv_fail(err, TV_ERR_LIMIT, "out of memory");
        if ((st = sprt_path(&R->c[f], s, err)) != TV_OK)
            return st;
    }

    if (R->tuning_path) {
        if ((st = tune_log_read(R->tuning_path, &R->tl, err)) != TV_OK)
            return st;
        R->have_tl = true;
        if ((st = rank_tuning(R, err)) != TV_OK)
            return st;
    }
    return TV_OK;
}
