/* runner.c: the tournament runner (runner.h): the game threads with their
 * players, the finished games appended in batches, and the run of one
 * process.  What to play next, the SPRT and the progress reports are the
 * coordinator's (coordinator.c). */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include "engine_id.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "match.h"
#include "notation.h"
#include "stats.h"
#include "record.h"
#include "run_session.h"

/* ---- finished games waiting for the writer --------------------------------- */

typedef struct {
    StoredGame *games;
    int64_t ngames, cap_games;
    StoredMove *moves;
    int64_t nmoves, cap_moves;
    StoredPosition *positions;
    int64_t npositions, cap_positions;
} Pending;

static void pending_free(Pending *pd)
{
    free(pd->games);
    free(pd->moves);
    free(pd->positions);
    memset(pd, 0, sizeof *pd);
}

/* ---- one game ---------------------------------------------------------------- */

/* What the coordinator hears of finished game g, stored as sg with
 * `positions` positions, which ended as oc says. */
static GameDone game_done(const PlannedGame *g, const StoredGame *sg, int positions, const GameOutcome *oc)
{
    GameDone d = {g->index, sg->result, positions, sg->termination, oc->over_ms, oc->unready, {0, 0}, {0, 0}, {0, 0}};
    for (int k = 0; k < 2; k++) {
        d.ready_ms[k] = oc->ready_ms[k];
        d.ready_max_ms[k] = oc->ready_max_ms[k];
        d.think_ms[k] = oc->think_ms[k];
    }
    return d;
}

/* Plays planned game g and appends it to pd.  Returns false when abandoned. */
static MatchEnd play_one(const Tournament *t, const PlannedGame *g, const Position *start, Player **players,
                         PlyRecord *rec, const StopFlags *stop, Pending *out_game, GameOutcome *oc, TvError *err)
{
    double t0 = tv_now_seconds();
    MatchEnd end = match_play(start, &t->rules, players[g->white], players[g->black], g->seed, &t->adjudication,
                              rec, stop, oc, err);
    if (end != MATCH_FINISHED)
        return end;
    StoredGame *sg = &out_game->games[0];
    memset(sg, 0, sizeof *sg);
    sg->index = g->index;
    sg->pairing = g->pairing;
    sg->white = g->white;
    sg->black = g->black;
    sg->opening = g->opening;
    char buf[TV_TFEN_MAX];
    snprintf(sg->start_tfen, sizeof sg->start_tfen, "%s", tfen_write(start, buf, sizeof buf));
    sg->result = (int8_t)game_result_sign(oc->result);
    sg->termination = (int8_t)oc->termination;
    sg->plies = oc->plies;
    sg->seed = g->seed;
    sg->move_count = oc->plies;
    sg->position_count = oc->plies;
    Position p = *start;
    for (int i = 0; i < oc->plies; i++) {
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

TvStatus runner_check_engines(const char *path, const StoredEngine *stored, int nstored, const StoredEngine *now,
                             int n, TvError *err)
{
    if (nstored != n)
        return tv_fail(err, TV_ERR_ARG,
                       "%s: the store was made by another configuration: it has %d engines, the tournament %d; use "
                       "--force to start a new store (or --out for another file)",
                       path, nstored, n);
    for (int i = 0; i < n; i++) {
        char why[600];
        if (engine_id_difference(&stored[i], "in the store", &now[i], "now", why, sizeof why))
            return tv_fail(err, TV_ERR_ARG,
                           "%s: engine %d ('%s') is not the version the store holds: %s; its games would mix two "
                           "versions under one name: use --force to start a new store, --out for another file, or "
                           "another engine name",
                           path, i + 1, stored[i].name, why);
    }
    return TV_OK;
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

TvStatus runner_adopt_ini(const char *path, const Tournament *t, const StoredEngine *now,
                          const volatile sig_atomic_t *stop, TvError *err)
{
    StoreContents c;
    TvStatus st = h5store_read_stoppable(path, false, false, stop, &c, err);
    if (st != TV_OK)
        return st;
    char why[400] = "";
    if ((st = runner_check_engines(path, c.engines, c.nengines, now, t->nengines, err)) != TV_OK) {
        h5store_contents_free(&c);
        return st;
    }
    bool same_text = !strcmp(c.tournament_ini, t->text ? t->text : "");
    bool ok = same_openings(&c, t, why, sizeof why);
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

TvStatus runner_identify(const Tournament *t, const char *store_path, StoredEngine **out, TvError *err)
{
    StoredEngine *se = calloc((size_t)(t->nengines > 0 ? t->nengines : 1), sizeof *se);
    *out = NULL;
    if (!se)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int i = 0; i < t->nengines; i++) {
        TvStatus st = player_identify(&t->engines[i], &t->rules, store_path, &se[i], err);
        if (st != TV_OK) {
            free(se);
            return st;
        }
    }
    *out = se;
    return TV_OK;
}

TvStatus runner_dry_start(const Tournament *t, StoredEngine **out, TvError *err)
{
    StoredEngine *se = calloc((size_t)(t->nengines > 0 ? t->nengines : 1), sizeof *se);
    *out = NULL;
    if (!se)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    TournamentEngine *te = malloc(sizeof *te);
    if (!te) {
        free(se);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int i = 0; i < t->nengines; i++) {
        *te = t->engines[i];
        te->stderr_path[0] = 0; /* with no store path: kept in memory */
        te->log_path[0] = 0;
        TvStatus st = player_identify(te, &t->rules, NULL, &se[i], err);
        if (st != TV_OK) {
            free(te);
            free(se);
            return st;
        }
    }
    free(te);
    *out = se;
    return TV_OK;
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

    /* The games stop on either of two flags: the caller's (a signal) and
     * the run's own, set when `next` says the run has decided (the SPRT),
     * which never touches the caller's (train plays one tournament after
     * another on it).  The search and the wait for a program poll both. */
    volatile sig_atomic_t decided = 0;
    const StopFlags stop = {{ro->stop, &decided}};

#pragma omp parallel num_threads(threads)
    {
        /* This thread's players, opened and closed by it (player.h). */
        Player *players[TOURNAMENT_MAX_ENGINES] = {NULL};
        bool ok = true;
        for (int i = 0; i < t->nengines && ok; i++)
            ok = player_open(&t->engines[i], &t->rules, ro->out_path, &players[i], NULL) == TV_OK;
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
            if (abort_games || stop_flags_set(&stop))
                break;
            int64_t index = next(next_ctx, last, true);
            last = NULL;
            if (index == RUNNER_DECIDED)
                decided = 1;
            if (index < 0)
                break;
            PlannedGame g;
            tournament_game(t, index, &g);
            Position opening;
            if (!openings) {
                TvError e;
                if (tournament_opening(t, g.opening, &opening, &e) != TV_OK) {
                    /* a signal while the opening was made: a stop like one
                     * during a game (the game is abandoned; an MPI rank
                     * reported it as a failure: "rank 1: stopped by a signal
                     * while making opening 1", at load 30) */
                    if (stop_flags_set(&stop))
                        break;
#pragma omp critical(store)
                    keep_first_error(&write_status, &write_err, &e, TV_ERR_ARG);
                    abort_games = 1;
                    break;
                }
            }
            TvError game_err;
            tv_error_clear(&game_err);
            GameOutcome oc = {0};
            MatchEnd end;
            /* A program that fails as the game begins has played nothing:
             * the game is begun again with a fresh process, after a wait
             * that grows (1 s, 2 s, ...), game_attempts times at most. */
            for (int attempt = 1;; attempt++) {
                end = play_one(t, &g, openings ? &openings[g.opening] : &opening, players, rec, &stop, &one,
                               &oc, &game_err);
                if (end != MATCH_AGAIN)
                    break;
                if (attempt >= t->game_attempts) {
                    char why[sizeof game_err.msg];
                    snprintf(why, sizeof why, "%s", game_err.msg);
                    tv_fail(&game_err, game_err.status ? game_err.status : TV_ERR_IO,
                            "%s; game %lld was begun %d time%s and failed so each time: the run stops "
                            "([tournament] game_attempts = %d)",
                            why, (long long)g.index, attempt, attempt > 1 ? "s" : "", t->game_attempts);
                    end = MATCH_FAILED;
                    break;
                }
                if (ro->note) {
                    char text[sizeof game_err.msg + 160];
                    snprintf(text, sizeof text, "%s; game %lld is begun again with a fresh process in %d s (attempt %d "
                             "of %d)", game_err.msg, (long long)g.index, attempt, attempt + 1, t->game_attempts);
#pragma omp critical(store)
                    ro->note(text, ro->progress_user);
                }
                for (int ms = 0; ms < 1000 * attempt && !stop_flags_set(&stop); ms += 20)
                    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
                if (stop_flags_set(&stop)) {
                    end = MATCH_ABANDONED;
                    break;
                }
                tv_error_clear(&game_err);
            }
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
                done = game_done(&g, &one.games[0], one.games[0].plies, &oc);
                last = &done;
            } else {
                int n = one.games[0].plies;
                if (tv_grow((void **)&pd.games, &pd.cap_games, pd.ngames + 1, sizeof *pd.games) &&
                    tv_grow((void **)&pd.moves, &pd.cap_moves, pd.nmoves + n, sizeof *pd.moves) &&
                    tv_grow((void **)&pd.positions, &pd.cap_positions, pd.npositions + n, sizeof *pd.positions)) {
                    pd.games[pd.ngames++] = one.games[0];
                    memcpy(&pd.moves[pd.nmoves], one.moves, sizeof *one.moves * (size_t)n);
                    memcpy(&pd.positions[pd.npositions], one.positions, sizeof *one.positions * (size_t)n);
                    pd.nmoves += n;
                    pd.npositions += n;
                    done = game_done(&g, &one.games[0], n, &oc);
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
        for (int i = 0; i < t->nengines; i++)
            player_close(players[i]);
        free(rec);
        free(one.games);
        free(one.moves);
        free(one.positions);
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
    StoredEngine *ids = NULL;
    RunHost here;
    RunSession session; /* what shaped this session, recorded in the store as it ends */
    run_session_host_here(&here, runner_threads(ro), NULL, 0);
    run_session_begin(&session, 1, &here, 1);
    /* which versions play (a separate program is started once: one that
     * cannot play fails before any store is made) */
    if ((st = runner_identify(t, ro->out_path, &ids, err)) != TV_OK) {
        stats->wall_seconds = tv_now_seconds() - t_start;
        return st;
    }
    if ((st = coordinator_open(ro, ro->resume, ids, &c, stats, err)) != TV_OK) {
        free(ids);
        stats->wall_seconds = tv_now_seconds() - t_start;
        return stopped_reading(ro, stats, st);
    }

    /* The store: new, or the one to resume (none without a path). */
    if (!ro->out_path) {
        st = TV_OK;
    } else if (ro->resume) {
        st = stopped_reading(ro, stats, h5store_open_append_stoppable(ro->out_path, t->text, ro->stop, &store, err));
        if (stats->stopped_reading)
            goto cleanup;
    } else {
        char options_str[128];
        rule_options_to_str(&t->rules, options_str, sizeof options_str);
        st = h5store_create(ro->out_path, ro->force, ids, t->nengines, t->text, options_str, &store, err);
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

cleanup:;
    const bool opened = store != NULL;
    bool intact = opened && !h5store_write_failed(store); /* may take the session's line */
    if (store) {
        stats->store_seconds = h5store_write_seconds(store);
        TvError close_err;
        if (h5store_close(store, &close_err) != TV_OK) {
            intact = false;
            if (st == TV_OK) {
                if (err)
                    *err = close_err;
                st = close_err.status;
            }
        }
    }
    if (st != TV_OK && opened)
        count_stored(ro, created, stats);
    if (st == TV_OK && ro->out_path)
        st = runner_store_sprt(ro, stats, err);
    if (intact && !stats->store_removed && !stats->store_unread)
        run_session_close(&session, ro, ro->out_path, stats, st);
    stats->wall_seconds = tv_now_seconds() - t_start;
    free(openings);
    free(have_opening);
    free(ids);
    coordinator_free(c);
    return st;
}
