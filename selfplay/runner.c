/* runner.c: the tournament runner.  See runner.h. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include <pthread.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "match.h"
#include "notation.h"
#include "stats.h"
#include "record.h"
#include "verify.h"

/* ---- finished games waiting for the writer --------------------------------- */

typedef struct {
    StoredGame *games;
    int64_t ngames, cap_games;
    StoredMove *moves;
    int64_t nmoves, cap_moves;
    StoredPosition *positions;
    int64_t npositions, cap_positions;
} Pending;

static bool grow(void **p, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap)
        return true;
    int64_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * size);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static void pending_free(Pending *pd)
{
    free(pd->games);
    free(pd->moves);
    free(pd->positions);
    memset(pd, 0, sizeof *pd);
}

/* ---- progress --------------------------------------------------------------- */

/* Every game known to this run (stored before or now), for the progress
 * line and the SPRT: indexed by plan index. */
typedef struct {
    RatedGame *games; /* compact list of finished games */
    int64_t n;
    int8_t *result_of; /* per plan index: result, or -2 when not played */
    RefereeCounts referee;
} Finished;

static void finished_add(Finished *f, int64_t index, int white, int black, int result)
{
    f->games[f->n].white = white;
    f->games[f->n].black = black;
    f->games[f->n].result = result;
    f->games[f->n].pair = index / 2; /* games 2k and 2k+1 share an opening */
    f->n++;
    f->result_of[index] = (int8_t)result;
}

/* The SPRT on the pairs completed in plan order (a prefix, so the decision
 * does not depend on which thread finished first). */
typedef struct {
    int64_t next_pair; /* first pair not yet counted */
    int64_t penta[5];
    double llr, lower, upper;
    SprtDecision decision;
} Sprt;

static void sprt_advance(Sprt *sp, const Tournament *t, const Finished *f, int64_t total)
{
    while (sp->decision == SPRT_CONTINUE && 2 * sp->next_pair + 1 < total &&
           f->result_of[2 * sp->next_pair] != -2 && f->result_of[2 * sp->next_pair + 1] != -2) {
        PlannedGame g0, g1;
        tournament_game(t, 2 * sp->next_pair, &g0);
        tournament_game(t, 2 * sp->next_pair + 1, &g1);
        /* points of engine 0 in the pair */
        double pts = 0;
        const PlannedGame *gs[2] = {&g0, &g1};
        for (int k = 0; k < 2; k++) {
            int r = f->result_of[gs[k]->index];
            int for_white = r; /* 1, 0, -1 */
            int for_first = gs[k]->white == 0 ? for_white : -for_white;
            pts += (for_first + 1) / 2.0;
        }
        sp->penta[(int)(pts * 2 + 0.5)]++;
        sp->next_pair++;
        sp->llr = sprt_llr_pentanomial(sp->penta, t->sprt_settings.elo0, t->sprt_settings.elo1);
        sp->decision = sprt_decide(sp->llr, sp->lower, sp->upper);
    }
}

/* Counts game g in rc when the referee ended it; returns whether it did. */
static bool referee_count(RefereeCounts *rc, int white, int black, int result, int termination)
{
    if (!termination_is_failure(termination) || result == 0)
        return false;
    rc->lost[result > 0 ? black : white][termination - TERM_ILLEGAL_MOVE]++;
    return true;
}

/* Reports where the run stands to ro->progress. */
static void report_progress(const RunOptions *ro, const Finished *f, const Sprt *sp, int64_t done, int64_t todo,
                            int64_t total, double elapsed, bool final)
{
    if (!ro->progress)
        return;
    const RunProgress p = {ro->t,       total,   f->n,      done,      todo,  elapsed,     f->games, f->n,
                           ro->t->sprt, sp->llr, sp->lower, sp->upper, final, &f->referee};
    ro->progress(&p, ro->progress_user);
}

/* ---- one game ---------------------------------------------------------------- */

/* Plays planned game g and appends it to pd.  Returns false when abandoned. */
static MatchEnd play_one(const Tournament *t, const PlannedGame *g, const Position *start, MatchPlayer *mp,
                         PlyRecord *rec, volatile sig_atomic_t *abort_flag, Pending *out_game, int *over_ms,
                         TvError *err)
{
    double t0 = tv_now_seconds();
    GameOutcome oc;
    MatchEnd end = match_play(start, &t->rules, &mp[g->white], &mp[g->black], g->seed, &t->adjudication, rec,
                              abort_flag, &oc, err);
    if (end != MATCH_FINISHED)
        return end;
    *over_ms = oc.over_ms;
    StoredGame *sg = &out_game->games[0];
    memset(sg, 0, sizeof *sg);
    sg->index = g->index;
    sg->pairing = g->pairing;
    sg->white = g->white;
    sg->black = g->black;
    sg->opening = g->opening;
    char buf[TV_TFEN_MAX];
    snprintf(sg->start_tfen, sizeof sg->start_tfen, "%s", tfen_write(start, buf, sizeof buf));
    sg->result = (int8_t)game_result_sign(oc.result);
    sg->termination = (int8_t)oc.termination;
    sg->plies = oc.plies;
    sg->seed = g->seed;
    sg->move_count = oc.plies;
    sg->position_count = oc.plies;
    Position p = *start;
    for (int i = 0; i < oc.plies; i++) {
        StoredMove *m = &out_game->moves[i];
        StoredPosition *sp = &out_game->positions[i];
        memset(m, 0, sizeof *m);
        memset(sp, 0, sizeof *sp);
        m->game = sp->game = g->index;
        m->ply = sp->ply = i;
        move_to_str(&p, &t->rules, rec[i].move, true, m->move, sizeof m->move);
        m->score = sp->score = rec[i].score;
        m->depth = rec[i].depth;
        m->nodes = (int64_t)rec[i].nodes;
        m->time_ms = rec[i].time_ms;
        m->clock_ms = rec[i].clock_ms;
        snprintf(sp->tfen, sizeof sp->tfen, "%s", tfen_write(&p, buf, sizeof buf));
        sp->side = (int8_t)p.side;
        sp->result = sg->result == 0 ? 0.5f : ((sg->result == 1) == (p.side == TV_WHITE)) ? 1.0f : 0.0f;
        Undo u;
        pos_make_move(&p, rec[i].move, &u);
    }
    sg->wall_time = tv_now_seconds() - t0;
    return MATCH_FINISHED;
}

/* ---- the coordinator: what to play, what is done, SPRT and progress --------- */

struct Coordinator {
    const RunOptions *ro;
    const Tournament *t;
    int64_t total;
    Finished fin;
    Sprt sp;
    int64_t *missing; /* the games to play, in plan order */
    int64_t nmissing, next;
    int64_t finished, positions; /* reported by the players of this run */
    double t_start, last_progress;
    pthread_mutex_t lock;
};

void coordinator_free(Coordinator *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c->missing);
    free(c->fin.games);
    free(c->fin.result_of);
    free(c);
}

/* The stored games a resume keeps, checked: each game of the plan must be
 * the plan's (pairing, colours, opening, seed), and its moves must replay
 * to its stored termination and result (verify_moves).  A store that
 * differs is refused (it was made by another plan, or damaged). */
/* A stored game is the plan's game pg: the same pairing, colours, opening and seed. */
static bool is_planned(const StoredGame *g, const PlannedGame *pg)
{
    return g->pairing == pg->pairing && g->white == pg->white && g->black == pg->black && g->opening == pg->opening &&
           g->seed == pg->seed;
}

static TvStatus resume_check_games(const RunOptions *ro, const StoreContents *sc, int64_t total, TvError *err)
{
    Options o;
    TvError e;
    if (options_parse(sc->options, &o, &e) != TV_OK)
        return tv_fail(err, TV_ERR_PARSE, "%s: the store's rule options '%s': %s", ro->out_path, sc->options, e.msg);
    int32_t longest = 0;
    for (int64_t i = 0; i < sc->ngames; i++)
        longest = sc->games[i].plies > longest ? sc->games[i].plies : longest;
    /* the replays on every core; the first game that fails is named */
    int64_t first_bad = sc->ngames;
    bool no_memory = false;
#pragma omp parallel num_threads(runner_threads(ro)) reduction(min : first_bad) reduction(|| : no_memory)
    {
        uint64_t *h = malloc(sizeof *h * ((size_t)longest + 1));
        no_memory = !h;
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < sc->ngames; i++) {
            const StoredGame *g = &sc->games[i];
            char why[400];
            PlannedGame pg;
            if (!h || i > first_bad || g->index >= total || (ro->stop && *ro->stop)) /* a replay: microseconds */
                continue;
            tournament_game(ro->t, g->index, &pg);
            if (!is_planned(g, &pg) || verify_moves(g, &sc->moves[g->move_offset], &o, NULL, h, why, sizeof why))
                first_bad = i;
        }
        free(h);
    }
    if (no_memory)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory checking the stored games");
    if (ro->stop && *ro->stop)
        return tv_fail(err, TV_ERR_IO, "stopped by a signal while checking the games of %s against the plan; it was "
                                       "not changed",
                       ro->out_path);
    uint64_t *hist = malloc(sizeof *hist * ((size_t)longest + 1));
    if (!hist)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory checking the stored games");
    TvStatus st = TV_OK;
    for (int64_t i = first_bad; i < sc->ngames && st == TV_OK; i++) { /* the message of the first */
        const StoredGame *g = &sc->games[i];
        if (g->index >= total)
            continue; /* beyond a plan of fewer pairs: not counted */
        PlannedGame pg;
        tournament_game(ro->t, g->index, &pg);
        char why[400];
        if (!is_planned(g, &pg))
            st = tv_fail(err, TV_ERR_ARG,
                         "%s: game %lld is not the plan's: pairing %d, white %d, black %d, opening %d, seed %llu "
                         "stored, the plan has %d, %d, %d, %d, %llu (the store was made by another tournament, or "
                         "edited); use --force to start a new store",
                         ro->out_path, (long long)g->index, g->pairing, g->white, g->black, g->opening,
                         (unsigned long long)g->seed, pg.pairing, pg.white, pg.black, pg.opening,
                         (unsigned long long)pg.seed);
        else if (verify_moves(g, &sc->moves[g->move_offset], &o, NULL, hist, why, sizeof why))
            st = tv_fail(err, TV_ERR_PARSE,
                         "%s: game %lld: %s; the store is damaged ('tavreli verify %s' lists every problem, "
                         "'tavreli repair' copies the good games)",
                         ro->out_path, (long long)g->index, why, ro->out_path);
    }
    free(hist);
    return st;
}

TvStatus coordinator_open(const RunOptions *ro, bool read_store, Coordinator **out, RunStats *stats, TvError *err)
{
    const Tournament *t = ro->t;
    const int64_t total = tournament_total_games(t);
    const size_t n = (size_t)(total ? total : 1);
    *out = NULL;
    memset(stats, 0, sizeof *stats);
    stats->planned = total;
    Coordinator *c = calloc(1, sizeof *c);
    if (!c)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory planning %lld games", (long long)total);
    pthread_mutex_init(&c->lock, NULL);
    c->ro = ro;
    c->t = t;
    c->total = total;
    c->t_start = tv_now_seconds();
    c->sp.decision = SPRT_CONTINUE;
    if (t->sprt)
        sprt_bounds(t->sprt_settings.alpha, t->sprt_settings.beta, &c->sp.lower, &c->sp.upper);
    c->fin.games = calloc(n, sizeof(RatedGame));
    c->fin.result_of = malloc(n);
    c->missing = malloc(sizeof *c->missing * n);
    if (!c->fin.games || !c->fin.result_of || !c->missing) {
        coordinator_free(c);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory planning %lld games", (long long)total);
    }
    memset(c->fin.result_of, -2, n);
    if (read_store) {
        StoreContents sc;
        TvStatus st = h5store_read_stoppable(ro->out_path, true, false, ro->stop, &sc, err);
        if (st == TV_OK && (st = resume_check_games(ro, &sc, total, err)) != TV_OK)
            h5store_contents_free(&sc);
        if (st != TV_OK) {
            coordinator_free(c);
            return st;
        }
        for (int64_t i = 0; i < sc.ngames; i++) {
            int64_t gi = sc.games[i].index;
            if (gi >= 0 && gi < total && c->fin.result_of[gi] == -2) {
                stats->already++;
                finished_add(&c->fin, gi, sc.games[i].white, sc.games[i].black, sc.games[i].result);
                referee_count(&c->fin.referee, sc.games[i].white, sc.games[i].black, sc.games[i].result,
                              sc.games[i].termination);
            }
        }
        h5store_contents_free(&sc);
    }
    for (int64_t i = 0; i < total; i++) /* in plan order */
        if (c->fin.result_of[i] == -2)
            c->missing[c->nmissing++] = i;
    if (ro->max_games > 0 && c->nmissing > ro->max_games)
        c->nmissing = ro->max_games;
    if (t->sprt) {
        sprt_advance(&c->sp, t, &c->fin, total);
        if (c->sp.decision != SPRT_CONTINUE)
            c->nmissing = 0; /* decided in an earlier run */
    }
    *out = c;
    return TV_OK;
}

const int64_t *coordinator_missing(const Coordinator *c, int64_t *n)
{
    *n = c->nmissing;
    return c->missing;
}

void coordinator_start(Coordinator *c)
{
    c->t_start = tv_now_seconds();
    report_progress(c->ro, &c->fin, &c->sp, 0, c->nmissing, c->total, 0, false);
}

/* Counts a game the referee ended and reports it (inside c->lock). */
static void referee_report(Coordinator *c, const PlannedGame *g, const GameDone *done)
{
    if (!referee_count(&c->fin.referee, g->white, g->black, done->result, done->termination) || !c->ro->referee)
        return;
    const bool white_lost = done->result < 0;
    const RefereeEnd e = {c->t,
                          done->index,
                          white_lost ? g->white : g->black,
                          white_lost ? g->black : g->white,
                          white_lost,
                          (Termination)done->termination,
                          done->positions,
                          done->over_ms};
    c->ro->referee(&e, c->ro->progress_user);
}

int64_t coordinator_next(void *coordinator, const GameDone *done, bool want_more)
{
    Coordinator *c = coordinator;
    const RunOptions *ro = c->ro;
    const Tournament *t = c->t;
    int64_t index = -1;
    pthread_mutex_lock(&c->lock);
    if (done && done->index >= 0 && done->index < c->total && c->fin.result_of[done->index] == -2) {
        PlannedGame g;
        tournament_game(t, done->index, &g);
        finished_add(&c->fin, done->index, g.white, g.black, done->result);
        referee_report(c, &g, done);
        c->finished++;
        c->positions += done->positions;
        if (t->sprt && c->sp.decision == SPRT_CONTINUE)
            sprt_advance(&c->sp, t, &c->fin, c->total);
        double now = tv_now_seconds();
        if (now - c->last_progress >= (ro->progress_every > 0 ? ro->progress_every : 10)) {
            report_progress(ro, &c->fin, &c->sp, c->finished, c->nmissing, c->total, now - c->t_start, false);
            c->last_progress = now;
        }
    }
    /* A decision is the run's own: it never touches the caller's signal
     * flag (train plays one tournament after another on it). */
    if (t->sprt && c->sp.decision != SPRT_CONTINUE)
        index = RUNNER_DECIDED; /* the games in flight are not needed */
    else if (want_more && !(ro->stop && *ro->stop) && c->next < c->nmissing)
        index = c->missing[c->next++];
    pthread_mutex_unlock(&c->lock);
    return index;
}

void coordinator_finish(Coordinator *c, RunStats *stats)
{
    const RunOptions *ro = c->ro;
    pthread_mutex_lock(&c->lock);
    stats->interrupted = ro->stop && *ro->stop;
    free(stats->games);
    stats->games = malloc(sizeof *stats->games * (size_t)(c->fin.n ? c->fin.n : 1));
    stats->ngames = stats->games ? c->fin.n : 0;
    if (stats->games)
        memcpy(stats->games, c->fin.games, sizeof *stats->games * (size_t)stats->ngames);
    stats->referee = c->fin.referee;
    report_progress(ro, &c->fin, &c->sp, c->finished, c->nmissing, c->total, tv_now_seconds() - c->t_start, true);
    if (c->t->sprt) {
        const Sprt *sp = &c->sp;
        stats->sprt_decision = sp->decision;
        stats->sprt_llr = sp->llr;
        stats->sprt_lower = sp->lower;
        stats->sprt_upper = sp->upper;
        stats->sprt_pairs = sp->next_pair;
        snprintf(stats->sprt_result, sizeof stats->sprt_result,
                 "%s after %lld pairs (%lld games) in plan order: LLR %.4f, bounds [%.4f, %.4f]",
                 sprt_decision_name(sp->decision), (long long)sp->next_pair, (long long)(2 * sp->next_pair), sp->llr,
                 sp->lower, sp->upper);
    }
    pthread_mutex_unlock(&c->lock);
}

/* The first word ("name=value") of a that b does not have in its place:
 * "lmr=1 in the store, lmr=0 now". */
static void first_word_difference(const char *a, const char *b, char *out, size_t n)
{
    while (*a || *b) {
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la != lb || strncmp(a, b, la)) {
            snprintf(out, n, "%.*s in the store, %.*s now", (int)(la < 60 ? la : 60), a, (int)(lb < 60 ? lb : 60), b);
            return;
        }
        a += la + (a[la] == ' ');
        b += lb + (b[lb] == ' ');
    }
    snprintf(out, n, "the same words");
}

/* Same players: names, weights, settings, limits and clocks (what /engines
 * holds). */
static bool same_stored_engines(const StoredEngine *a, int na, const StoredEngine *b, int nb, char *why, size_t n)
{
    if (na != nb) {
        snprintf(why, n, "the store has %d engines, the tournament %d", na, nb);
        return false;
    }
    for (int i = 0; i < na; i++) {
        if (strcmp(a[i].name, b[i].name) || a[i].kind != b[i].kind) {
            snprintf(why, n, "engine %d is '%s' in the store, '%s' now", i + 1, a[i].name, b[i].name);
            return false;
        }
        if (memcmp(a[i].weights, b[i].weights, sizeof a[i].weights) != 0 || a[i].depth != b[i].depth ||
            a[i].nodes != b[i].nodes || a[i].movetime_ms != b[i].movetime_ms || strcmp(a[i].tc, b[i].tc) ||
            a[i].timemargin_ms != b[i].timemargin_ms || strcmp(a[i].command, b[i].command)) {
            snprintf(why, n, "engine '%s' has other weights, limits, clock or command than when the store was made "
                             "(its engine INI changed?)",
                     a[i].name);
            return false;
        }
        /* a store made before the settings were stored has "" */
        if (a[i].settings[0] && strcmp(a[i].settings, b[i].settings)) {
            char first[160];
            first_word_difference(a[i].settings, b[i].settings, first, sizeof first);
            snprintf(why, n, "engine '%s' has other search settings than when the store was made (%s; its engine "
                             "INI changed?)",
                     a[i].name, first);
            return false;
        }
    }
    return true;
}

/* Whether the stored games began from the positions the openings file
 * gives now (a file edited since the store was made would mix games of two
 * opening sets in one plan). */
static bool same_openings(const StoreContents *c, const Tournament *t, char *why, size_t n)
{
    for (int64_t i = 0; i < c->ngames && t->nopening_tfens > 0; i++) {
        const StoredGame *g = &c->games[i];
        const int line = g->opening % t->nopening_tfens;
        Position p;
        char now[TV_TFEN_MAX];
        if (tfen_read_arg(t->opening_tfens[line], &p, NULL) != TV_OK)
            continue; /* the reader has checked every position */
        tfen_write(&p, now, sizeof now);
        if (strcmp(now, g->start_tfen)) {
            snprintf(why, n, "game %lld began from '%.60s', but opening %d of %.60s is now '%.60s' (the openings file "
                             "changed)",
                     (long long)g->index, g->start_tfen, line + 1, t->openings.file, now);
            return false;
        }
    }
    return true;
}

TvStatus runner_adopt_ini(const char *path, const Tournament *t, const volatile sig_atomic_t *stop, TvError *err)
{
    StoreContents c;
    TvStatus st = h5store_read_stoppable(path, false, false, stop, &c, err);
    if (st != TV_OK)
        return st;
    char why[400] = "";
    StoredEngine *now = runner_stored_engines(t);
    if (!now) {
        h5store_contents_free(&c);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    bool same_text = !strcmp(c.tournament_ini, t->text ? t->text : "");
    bool ok = same_stored_engines(c.engines, c.nengines, now, t->nengines, why, sizeof why) &&
              same_openings(&c, t, why, sizeof why);
    free(now);
    if (ok && !same_text) {
        Tournament stored;
        TvError e;
        char *copy = strdup(c.tournament_ini);
        if (!copy)
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        else if (tournament_read_stored_text(t->source, copy, strlen(copy), &stored, &e) != TV_OK) {
            ok = false;
            snprintf(why, sizeof why, "its stored INI no longer reads: %.200s", e.msg);
        } else {
            ok = tournament_can_continue(&stored, t, why, sizeof why);
            tournament_free(&stored);
        }
    }
    if (st == TV_OK && !ok) {
        char diff[700];
        tournament_text_difference(c.tournament_ini, t->text, diff, sizeof diff);
        st = tv_fail(err, TV_ERR_ARG,
                     "%s: the store was made by another configuration: %s%s%s; use --force to start a new store "
                     "(or --out for another file)",
                     path, why, diff[0] ? "; first difference: stored " : "", diff);
    }
    if (st == TV_OK && !same_text) {
        /* the new text (comments, more pairs, threads) is the store's from now on */
        const char *names[1] = {"tournament_ini"};
        const char *values[1] = {t->text};
        st = h5store_set_attributes(path, names, values, 1, err);
        if (st != TV_OK) { /* a store left by a crash opens only once repaired */
            const char *inputs[1] = {path};
            bool stopped = false;
            st = h5store_merge_stoppable(path, inputs, 1, c.tournament_ini, stop, &stopped, NULL, err);
            if (st == TV_OK && stopped)
                st = tv_fail(err, TV_ERR_IO, "stopped by a signal while rewriting %s; it was not changed", path);
            if (st == TV_OK)
                st = h5store_set_attributes(path, names, values, 1, err);
        }
    }
    h5store_contents_free(&c);
    return st;
}

void run_stats_free(RunStats *stats)
{
    free(stats->games);
    stats->games = NULL;
    stats->ngames = 0;
}

TvStatus runner_store_sprt(const RunOptions *ro, const RunStats *stats, TvError *err)
{
    const Tournament *t = ro->t;
    if (!t->sprt || stats->stopped_reading) /* stopped before the games were counted: nothing to say */
        return TV_OK;
    char settings[160];
    sprt_settings_format(&t->sprt_settings, settings, sizeof settings);
    const char *names[2] = {"sprt", "sprt_result"};
    const char *values[2] = {settings, stats->sprt_result};
    return h5store_set_attributes(ro->out_path, names, values, 2, err);
}

StoredEngine *runner_stored_engines(const Tournament *t)
{
    StoredEngine *se = calloc((size_t)t->nengines, sizeof *se);
    if (!se)
        return NULL;
    for (int i = 0; i < t->nengines; i++) {
        const EngineVersion *e = &t->engines[i].engine;
        snprintf(se[i].name, sizeof se[i].name, "%s", e->name);
        snprintf(se[i].path, sizeof se[i].path, "%s", t->engines[i].path);
        if (t->engines[i].kind != PLAYER_PROCESS) /* a separate program's weights are its own: 0 */
            memcpy(se[i].weights, e->params.w, sizeof se[i].weights);
        se[i].depth = e->limits.depth;
        se[i].nodes = (int64_t)e->limits.nodes;
        se[i].movetime_ms = e->limits.movetime_ms;
        se[i].kind = (int8_t)t->engines[i].kind;
        snprintf(se[i].command, sizeof se[i].command, "%s", t->engines[i].command);
        time_control_format(&t->engines[i].tc, se[i].tc, sizeof se[i].tc);
        se[i].timemargin_ms = t->engines[i].timemargin_ms;
        if (t->engines[i].kind == PLAYER_ENGINE) {
            size_t o = 0;
            for (int k = 0; k < SEARCH_NSETTINGS && o < sizeof se[i].settings; k++)
                o += (size_t)snprintf(se[i].settings + o, sizeof se[i].settings - o, "%s%s=%d", k ? " " : "",
                                      SEARCH_SETTING_INFO[k].name, search_setting_value(&e->settings, k));
        }
    }
    return se;
}

int runner_threads(const RunOptions *ro)
{
    return ro->threads > 0 ? ro->threads : ro->t->threads > 0 ? ro->t->threads : omp_get_max_threads();
}

/* ---- the players: games on OpenMP threads, appended in batches -------------- */

/* Keeps e as the run's error unless one came first (call inside the
 * critical section that guards *status). */
static void keep_first_error(TvStatus *status, TvError *dst, const TvError *e, TvStatus fallback)
{
    if (*status != TV_OK)
        return;
    *status = e->status ? e->status : fallback;
    *dst = *e;
}

/* Every separate program must start, answer and take the options and rule
 * options before any game is played (or any store is made). */
TvStatus runner_check_programs(const Tournament *t, const char *store_path, TvError *err)
{
    for (int i = 0; i < t->nengines; i++) {
        TvStatus st = t->engines[i].kind == PLAYER_PROCESS
                          ? match_check_process(&t->engines[i], &t->rules, store_path, err)
                          : TV_OK;
        if (st != TV_OK)
            return st;
    }
    return TV_OK;
}

/* The games of runner_play stop on one flag of the run's own, `halt`: the
 * run sets it when `next` says the run has decided, and this thread sets it
 * when the caller's signal flag is set (a signal handler can set only the
 * caller's flag).  It looks every 2 ms: a Ctrl-C reaches the games that
 * much later at most, at a cost of 500 wake-ups a second. */
typedef struct {
    const volatile sig_atomic_t *signal_flag;
    volatile sig_atomic_t *halt;
    atomic_bool done;
} SignalRelay;

static void *signal_relay(void *arg)
{
    SignalRelay *r = arg;
    const struct timespec pause = {0, 2000000};
    while (!atomic_load(&r->done)) {
        if (*r->signal_flag)
            *r->halt = 1;
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static TvStatus play(const RunOptions *ro, H5Store *store, NextGameFn next, void *next_ctx,
                     const Position *openings, int64_t *played, int64_t *positions, TvError *err);

TvStatus runner_play(const RunOptions *ro, H5Store *store, NextGameFn next, void *next_ctx,
                     const Position *openings, int64_t *played, int64_t *positions, TvError *err)
{
    *played = *positions = 0;
    return play(ro, store, next, next_ctx, openings, played, positions, err);
}

/* runner_play (the separate programs checked before). */
static TvStatus play(const RunOptions *ro, H5Store *store, NextGameFn next, void *next_ctx,
                     const Position *openings, int64_t *played, int64_t *positions, TvError *err)
{
    const Tournament *t = ro->t;
    const int threads = runner_threads(ro);
    const int max_plies = t->adjudication.max_plies > 0 ? t->adjudication.max_plies : 1000;
    const int batch_games = ro->batch_games > 0 ? ro->batch_games : 16;
    const double batch_seconds = ro->batch_seconds > 0 ? ro->batch_seconds : 5;
    volatile int abort_games = 0;
    int64_t nplayed = 0, npositions = 0;
    bool write_failed = false; /* a write failed: nothing more goes to the store */
    double last_flush = tv_now_seconds();
    TvStatus write_status = TV_OK;
    TvError write_err;
    tv_error_clear(&write_err);
    Pending pd = {0};

    volatile sig_atomic_t halt = ro->stop && *ro->stop;
    SignalRelay relay = {ro->stop, &halt, false};
    pthread_t relay_thread;
    if (ro->stop && pthread_create(&relay_thread, NULL, signal_relay, &relay) != 0)
        return tv_fail(err, TV_ERR_LIMIT, "cannot start a thread to watch for signals");

#pragma omp parallel num_threads(threads)
    {
        /* Separate programs are started by this thread at its first game
         * with them and closed by it below (engine_proc.h). */
        MatchPlayer mp[TOURNAMENT_MAX_ENGINES];
        PlayerSpec players[TOURNAMENT_MAX_ENGINES];
        bool ok = true;
        for (int i = 0; i < t->nengines; i++) {
            players[i].kind = t->engines[i].kind;
            players[i].engine = t->engines[i].engine;
            players[i].te = &t->engines[i];
            snprintf(players[i].label, sizeof players[i].label, "%s", t->engines[i].engine.name);
            mp[i] = (MatchPlayer){.spec = &players[i], .store_path = ro->out_path};
            if (players[i].kind == PLAYER_ENGINE) {
                mp[i].ctx = search_alloc(&players[i].engine.params, &t->rules, &players[i].engine.settings);
                ok = ok && mp[i].ctx;
                if (mp[i].ctx) /* Ctrl-C, SIGTERM or a decision stops even a deep search at once */
                    search_set_stop_flag(mp[i].ctx, &halt);
            }
        }
        PlyRecord *rec = malloc(sizeof *rec * (size_t)(max_plies + 1));
        Pending one = {0};
        one.games = malloc(sizeof *one.games);
        one.moves = malloc(sizeof *one.moves * (size_t)(max_plies + 1));
        one.positions = malloc(sizeof *one.positions * (size_t)(max_plies + 1));
        ok = ok && rec && one.games && one.moves && one.positions;
        if (!ok) {
#pragma omp critical(store)
            if (write_status == TV_OK)
                write_status = tv_fail(&write_err, TV_ERR_LIMIT, "out of memory for a game runner thread");
            abort_games = 1;
        }
        GameDone done, *last = NULL;
        for (;;) {
            if (abort_games || halt)
                break;
            int64_t index = next(next_ctx, last, true);
            last = NULL;
            if (index == RUNNER_DECIDED)
                halt = 1;
            if (index < 0)
                break;
            PlannedGame g;
            tournament_game(t, index, &g);
            Position opening;
            if (!openings) {
                TvError e;
                if (tournament_opening(t, g.opening, &opening, &e) != TV_OK) {
#pragma omp critical(store)
                    keep_first_error(&write_status, &write_err, &e, TV_ERR_ARG);
                    abort_games = 1;
                    break;
                }
            }
            TvError game_err;
            tv_error_clear(&game_err);
            int over_ms = 0;
            MatchEnd end = play_one(t, &g, openings ? &openings[g.opening] : &opening, mp, rec, &halt, &one,
                                    &over_ms, &game_err);
            if (end == MATCH_FAILED) {
#pragma omp critical(store)
                keep_first_error(&write_status, &write_err, &game_err, TV_ERR_IO);
                abort_games = 1;
                break;
            }
            if (end == MATCH_ABANDONED)
                continue; /* --resume plays it */
#pragma omp critical(store)
            if (!store) { /* no store: only the result matters */
                nplayed++;
                npositions += one.games[0].plies;
                done = (GameDone){g.index, one.games[0].result, one.games[0].plies, one.games[0].termination, over_ms};
                last = &done;
            } else {
                int n = one.games[0].plies;
                if (grow((void **)&pd.games, &pd.cap_games, pd.ngames + 1, sizeof *pd.games) &&
                    grow((void **)&pd.moves, &pd.cap_moves, pd.nmoves + n, sizeof *pd.moves) &&
                    grow((void **)&pd.positions, &pd.cap_positions, pd.npositions + n, sizeof *pd.positions)) {
                    pd.games[pd.ngames++] = one.games[0];
                    memcpy(&pd.moves[pd.nmoves], one.moves, sizeof *one.moves * (size_t)n);
                    memcpy(&pd.positions[pd.npositions], one.positions, sizeof *one.positions * (size_t)n);
                    pd.nmoves += n;
                    pd.npositions += n;
                    done = (GameDone){g.index, one.games[0].result, n, one.games[0].termination, over_ms};
                    last = &done;
                } else if (write_status == TV_OK) {
                    write_status = tv_fail(&write_err, TV_ERR_LIMIT, "out of memory for finished games");
                    abort_games = 1;
                }
                double now = tv_now_seconds();
                if (write_status == TV_OK && (pd.ngames >= batch_games || now - last_flush >= batch_seconds)) {
                    if (h5store_append(store, pd.games, (int)pd.ngames, pd.moves, pd.positions, &write_err) !=
                        TV_OK) {
                        write_status = write_err.status ? write_err.status : TV_ERR_IO;
                        write_failed = true;
                        abort_games = 1;
                    } else { /* counted once stored */
                        nplayed += pd.ngames;
                        npositions += pd.npositions;
                    }
                    pd.ngames = 0;
                    pd.nmoves = pd.npositions = 0;
                    last_flush = now;
                }
            }
        }
        if (last) /* the last game of this thread reaches the progress line and the SPRT */
            next(next_ctx, last, false);
        for (int i = 0; i < t->nengines; i++) {
            search_free(mp[i].ctx);
            engine_proc_close(mp[i].proc);
        }
        free(rec);
        free(one.games);
        free(one.moves);
        free(one.positions);
    }

    if (ro->stop) {
        atomic_store(&relay.done, true);
        pthread_join(relay_thread, NULL);
    }

    /* The last batch: whatever stopped the run (a signal, an engine that
     * failed, a decided SPRT), its finished games are stored, unless writing
     * itself failed. */
    if (!write_failed && store && pd.ngames > 0) {
        TvError e;
        if (h5store_append(store, pd.games, (int)pd.ngames, pd.moves, pd.positions, &e) != TV_OK) {
            keep_first_error(&write_status, &write_err, &e, TV_ERR_IO);
        } else {
            nplayed += pd.ngames;
            npositions += pd.npositions;
        }
    }
    pending_free(&pd);
    *played = nplayed;
    *positions = npositions;
    if (write_status != TV_OK && err)
        *err = write_err;
    return write_status;
}

/* ---- the run of one process ------------------------------------------------------ */

/* After an error: what the closed store holds, read back (a failed write
 * can take earlier batches with it), into stats->played; a store this run
 * created that holds no game is removed. */
static void count_stored(const RunOptions *ro, bool created, RunStats *stats)
{
    StoreContents sc;
    if (h5store_read(ro->out_path, false, false, &sc, &stats->store_error) != TV_OK) {
        stats->store_unread = true;
        return;
    }
    stats->played = sc.ngames > stats->already ? sc.ngames - stats->already : 0;
    const bool empty = sc.ngames == 0 && sc.torn_rows == 0;
    h5store_contents_free(&sc);
    TvError e;
    if (created && empty && h5store_remove(ro->out_path, &e) == TV_OK)
        stats->store_removed = true;
}

/* A failure st while the store was read or checked, with the signal flag
 * set: the signal's interruption (nothing played, the store as it was). */
static TvStatus stopped_reading(const RunOptions *ro, RunStats *stats, TvStatus st)
{
    if (st == TV_OK || !ro->stop || !*ro->stop)
        return st;
    stats->interrupted = stats->stopped_reading = true;
    return TV_OK;
}

TvStatus runner_run(const RunOptions *ro, RunStats *stats, TvError *err)
{
    const Tournament *t = ro->t;
    const double t_start = tv_now_seconds();
    TvStatus st;
    H5Store *store = NULL;
    Coordinator *c = NULL;
    Position *openings = NULL;
    unsigned char *have_opening = NULL;
    bool created = false;
    if ((st = coordinator_open(ro, ro->resume, &c, stats, err)) != TV_OK) {
        stats->wall_seconds = tv_now_seconds() - t_start;
        return stopped_reading(ro, stats, st);
    }
    if ((st = runner_check_programs(t, ro->out_path, err)) != TV_OK)
        goto cleanup;

    /* The store: new, or the one to resume (none without a path). */
    if (!ro->out_path) {
        st = TV_OK;
    } else if (ro->resume) {
        st = stopped_reading(ro, stats, h5store_open_append_stoppable(ro->out_path, t->text, ro->stop, &store, err));
        if (stats->stopped_reading)
            goto cleanup;
    } else {
        char options_str[128];
        options_to_str(&t->rules, options_str, sizeof options_str);
        StoredEngine *se = runner_stored_engines(t);
        st = se ? h5store_create(ro->out_path, ro->force, se, t->nengines, t->text, options_str, &store, err)
                : tv_fail(err, TV_ERR_LIMIT, "out of memory");
        free(se);
        created = st == TV_OK;
    }
    if (st != TV_OK)
        goto cleanup;

    /* Openings used by these games, computed once (in parallel). */
    int64_t nmissing;
    const int64_t *missing = coordinator_missing(c, &nmissing);
    int nopenings = 0;
    for (int64_t k = 0; k < nmissing; k++) {
        PlannedGame g;
        tournament_game(t, missing[k], &g);
        if (g.opening + 1 > nopenings)
            nopenings = g.opening + 1;
    }
    openings = calloc((size_t)(nopenings ? nopenings : 1), sizeof *openings);
    have_opening = calloc((size_t)(nopenings ? nopenings : 1), 1);
    if (!openings || !have_opening) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory for %d openings", nopenings);
        goto cleanup;
    }
    for (int64_t k = 0; k < nmissing; k++) {
        PlannedGame g;
        tournament_game(t, missing[k], &g);
        have_opening[g.opening] = 1;
    }
    TvStatus opening_status = TV_OK;
    TvError opening_err;
    tv_error_clear(&opening_err);
#pragma omp parallel for schedule(dynamic, 1) num_threads(runner_threads(ro))
    for (int i = 0; i < nopenings; i++) {
        if (!have_opening[i])
            continue;
        TvError e;
        if (tournament_opening(t, i, &openings[i], &e) != TV_OK) {
#pragma omp critical(opening_error)
            if (opening_status == TV_OK) {
                opening_status = e.status ? e.status : TV_ERR_ARG;
                opening_err = e;
            }
        }
    }
    if (opening_status != TV_OK && ro->stop && *ro->stop) {
        /* a signal while the openings were made: an interruption like one during the games (train's next
         * generation once exited 1 here with "stopped by a signal while making opening N") */
        stats->interrupted = true;
        st = TV_OK;
        goto cleanup;
    }
    if (opening_status != TV_OK) {
        if (err)
            *err = opening_err;
        st = opening_status;
        goto cleanup;
    }

    coordinator_start(c);
    st = play(ro, store, coordinator_next, c, openings, &stats->played, &stats->positions, err);
    coordinator_finish(c, stats);

cleanup:
    if (store) {
        stats->store_seconds = h5store_write_seconds(store);
        TvError close_err;
        if (h5store_close(store, &close_err) != TV_OK && st == TV_OK) {
            if (err)
                *err = close_err;
            st = close_err.status;
        }
    }
    if (st != TV_OK && store)
        count_stored(ro, created, stats);
    if (st == TV_OK && ro->out_path)
        st = runner_store_sprt(ro, stats, err);
    stats->wall_seconds = tv_now_seconds() - t_start;
    free(openings);
    free(have_opening);
    coordinator_free(c);
    return st;
}
