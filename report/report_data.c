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
#include "tournament.h"
#include "engine_id.h"
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
    s->model = set.model;
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
        const SprtSettings set = {.elo0 = s->elo0, .elo1 = s->elo1, .alpha = s->alpha, .beta = s->beta,
                                  .model = s->model};
        s->llr = sprt_llr(s->penta, &set);
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

/* The name of p, the k-th version seen of its name: NAME@TAG with tag
 * (engine_id_tag: its commit or program hash), or NAME@vK when tag is ""
 * or another player has that name already. */
static void player_version_name(ReportPlayer *p, int k, const char *tag, const Report *R)
{
    char name[sizeof p->name];
    snprintf(name, sizeof name, "%.40s@%.22s", p->eng->name, tag);
    bool taken = !tag[0];
    for (int q = 0; q < R->nplayers && !taken; q++)
        taken = &R->players[q] != p && !strcmp(R->players[q].name, name);
    if (taken)
        snprintf(name, sizeof name, "%.40s@v%d", p->eng->name, k);
    snprintf(p->name, sizeof p->name, "%s", name);
}

/* The player that engine e of a store is (its version: engine_id.h), -1 for none. */
static int player_of(const Report *R, const StoredEngine *e)
{
    char why[8];
    for (int p = 0; p < R->nplayers; p++)
        if (!engine_id_difference(R->players[p].eng, "", e, "", why, sizeof why))
            return p;
    return -1;
}

/* Whether two players are one version under two names (engine_id_identical). */
static bool engines_identical(const StoredEngine *a, const StoredEngine *b)
{
    StoredEngine x = *a;
    snprintf(x.name, sizeof x.name, "%s", b->name);
    return engine_id_identical(&x, b);
}

/* Stage 1: read the stores and collect the games.  Players are matched by
 * name across stores (any engine sets: v1-v2 in one store and v2-v3 in
 * another are one rating list); a game held by two stores counts once. */
TvStatus report_collect(Report *R, TvError *err)
{
    if (!R->c_given) {
        R->c = calloc((size_t)(R->nfiles > 0 ? R->nfiles : 1), sizeof *R->c);
        if (!R->c)
            return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    int64_t all = 0;
    for (int f = 0; f < R->nfiles; f++) {
        TvStatus st = R->c_given ? TV_OK : h5store_read(R->files[f], false, false, &R->c[f], err);
        if (st != TV_OK)
            return st;
        if (R->c[f].ngames == 0)
            return tv_fail(err, TV_ERR_ARG, "%s: no games", R->files[f]);
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
        /* its engines as players: one player per version (engine_id.h); two
         * versions under one name are two players, NAME@TAG */
        for (int e = 0; e < c->nengines && st == TV_OK; e++) {
            const StoredEngine *here = &c->engines[e];
            int versions = 0, other = -1;
            char why[8];
            map[e] = -1;
            for (int p = 0; p < R->nplayers && map[e] < 0; p++) {
                if (strcmp(here->name, R->players[p].eng->name))
                    continue;
                if (!engine_id_difference(R->players[p].eng, "", here, "", why, sizeof why))
                    map[e] = p;
                else
                    versions++, other = p;
            }
            if (map[e] >= 0)
                continue;
            ReportPlayer *p = &R->players[R->nplayers];
            p->eng = here;
            p->file = f;
            p->rated = -1;
            snprintf(p->name, sizeof p->name, "%s", here->name);
            if (versions > 0) {
                /* named by their builds when those tell them apart, else by their order */
                char tag_other[48], tag_here[48];
                engine_id_tag(R->players[other].eng, tag_other, sizeof tag_other);
                engine_id_tag(here, tag_here, sizeof tag_here);
                const bool by_build = tag_other[0] && tag_here[0] && strcmp(tag_other, tag_here);
                if (!strchr(R->players[other].name, '@')) /* the first version of the name is tagged too */
                    player_version_name(&R->players[other], 1, by_build ? tag_other : "", R);
                player_version_name(p, versions + 1, by_build ? tag_here : "", R);
                char a_where[80], b_where[80];
                snprintf(a_where, sizeof a_where, "for %s", R->players[other].name);
                snprintf(b_where, sizeof b_where, "for %s", p->name);
                engine_id_difference(R->players[other].eng, a_where, here, b_where, p->versions,
                                     sizeof p->versions);
            }
            map[e] = R->nplayers++;
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
                p->identical = engines_identical(R->players[a].eng, R->players[b].eng);
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
            p->not_played_out += sg->termination == TERM_ADJ_MAX_PLIES || sg->termination == TERM_ADJ_DRAW;
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
        char from_ini[256];
        if (!text && R->sprt_from_ini) {
            /* a run still playing (or cut short): its settings are only in its tournament INI */
            Tournament t;
            TvError e;
            if (tournament_read_plan(R->c[f].tournament_ini, &t, &e) == TV_OK) {
                if (t.sprt && t.nengines == 2)
                    text = sprt_settings_format(&t.sprt_settings, from_ini, sizeof from_ini);
                tournament_free(&t);
            }
        }
        if (!text)
            continue;
        SprtInfo *s = &R->sprt[R->nsprt++];
        s->file = f;
        if ((st = parse_sprt(R->files[f], text, s, err)) != TV_OK)
            return st;
        if (R->c[f].nengines < 2)
            return tv_fail(err, TV_ERR_ARG, "%s: an SPRT needs two engines", R->files[f]);
        s->a = player_of(R, &R->c[f].engines[0]);
        s->b = player_of(R, &R->c[f].engines[1]);
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
