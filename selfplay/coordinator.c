/* coordinator.c: the coordinator of a run (runner.h): the games of the
 * plan still to play, in plan order, the results known so far (a resumed
 * store's checked against the plan), the SPRT on the pairs completed in
 * plan order, the referee's terminations and the progress reports.  The
 * player threads of runner.c (and the MPI ranks of distrib.c) ask it for
 * their next game. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "stats.h"

/* ---- progress --------------------------------------------------------------- */

/* Every game known to this run (stored before or now), for the progress
 * line and the SPRT: indexed by plan index. */
typedef struct {
    RatedGame *games; /* compact list of finished games */
    int64_t n;
    int8_t *result_of; /* per plan index: result, or -2 when not played */
    RefereeCounts referee;
    ReadyWaits ready; /* of this run's games */
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
        sp->llr = sprt_llr(sp->penta, &t->sprt_settings);
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
    const RunProgress p = {.t = ro->t,
                           .total = total,
                           .finished = f->n,
                           .done = done,
                           .todo = todo,
                           .elapsed = elapsed,
                           .games = f->games,
                           .ngames = f->n,
                           .sprt = ro->t->sprt,
                           .llr = sp->llr,
                           .lower = sp->lower,
                           .upper = sp->upper,
                           .final = final,
                           .stopped = final && ro->stop && *ro->stop,
                           .referee = &f->referee,
                           .ready = &f->ready};
    ro->progress(&p, ro->progress_user);
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

/* The stored games a resume keeps, checked against the plan: each game of
 * the plan must be the plan's (pairing, colours, opening, seed); a store
 * that differs is refused (it was made by another plan, or edited).  Their
 * moves were replayed to their stored termination and result as the store
 * was read (h5store_read). */
static TvStatus resume_check_games(const RunOptions *ro, const StoreContents *sc, int64_t total, TvError *err)
{
    for (int64_t i = 0; i < sc->ngames; i++) {
        if (ro->stop && *ro->stop)
            return tv_fail(err, TV_ERR_IO, "stopped by a signal while checking the games of %s against the plan; it "
                                           "was not changed",
                           ro->out_path);
        const StoredGame *g = &sc->games[i];
        if (g->index >= total)
            continue; /* beyond a plan of fewer pairs: not counted */
        PlannedGame pg, stored = {g->index, g->pairing, g->white, g->black, g->opening, g->seed};
        tournament_game(ro->t, g->index, &pg);
        char why[300];
        if (tournament_game_difference(&stored, &pg, why, sizeof why))
            return tv_fail(err, TV_ERR_ARG,
                           "%s: game %lld is not the plan's: %s (the store was made by another tournament, or "
                           "edited); use --force to start a new store",
                           ro->out_path, (long long)g->index, why);
    }
    return TV_OK;
}

TvStatus coordinator_open(const RunOptions *ro, bool read_store, const StoredEngine *ids, Coordinator **out,
                          RunStats *stats, TvError *err)
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
        TvStatus st = h5store_read_stoppable(ro->out_path, false, false, ro->stop, &sc, err);
        if (st == TV_OK && ids &&
            (st = runner_check_engines(ro->out_path, sc.engines, sc.nengines, ids, t->nengines, err)) != TV_OK)
            h5store_contents_free(&sc);
        else if (st == TV_OK && (st = resume_check_games(ro, &sc, total, err)) != TV_OK)
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
                          done->over_ms,
                          done->unready != 0};
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
        const int side_engine[2] = {g.white, g.black};
        for (int k = 0; k < 2; k++) {
            ReadyWaits *w = &c->fin.ready;
            const int e = side_engine[k];
            w->total_ms[e] += done->ready_ms[k];
            w->think_ms[e] += done->think_ms[k];
            w->max_ms[e] = done->ready_max_ms[k] > w->max_ms[e] ? done->ready_max_ms[k] : w->max_ms[e];
        }
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
    stats->ready = c->fin.ready;
    report_progress(ro, &c->fin, &c->sp, c->finished, c->nmissing, c->total, tv_now_seconds() - c->t_start, true);
    if (c->t->sprt) {
        const Sprt *sp = &c->sp;
        stats->sprt_decision = sp->decision;
        stats->sprt_llr = sp->llr;
        stats->sprt_lower = sp->lower;
        stats->sprt_upper = sp->upper;
        stats->sprt_pairs = sp->next_pair;
        snprintf(stats->sprt_result, sizeof stats->sprt_result,
                 "%s after %lld pairs (%lld games) in plan order: LLR %.4f, bounds [%.4f, %.4f]%s",
                 sprt_decision_name(sp->decision), (long long)sp->next_pair, (long long)(2 * sp->next_pair), sp->llr,
                 sp->lower, sp->upper, c->t->sprt_settings.model == SPRT_LOGISTIC ? " (logistic Elo)" : "");
    }
    pthread_mutex_unlock(&c->lock);
}
