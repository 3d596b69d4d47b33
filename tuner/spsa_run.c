/* spsa_run.c: the SPSA loop on the tournament runner (spsa_run.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "spsa_run.h"
#include "run_session.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TAVRELI_WITH_MPI
#include <mpi.h>
#endif

#include "atomic_file.h"
#include "distrib.h"
#include "h5store.h"
#include "player.h"
#include "ratings.h"
#include "rule_options.h"
#include "rng.h"
#include "runner.h"
#include "strbuf.h"

/* The most openings kept in memory (65536 x 2240 bytes = 147 MB of address space, touched as the run goes): a
 * plan of more pairs makes each game's opening when the game starts (twice per pair). */
#define SPSA_OPENINGS_KEPT 65536

/* ---- the games of one iteration -------------------------------------------------- */

/* The NextGameFn of an iteration: its missing games in plan order, the
 * results as they come, the progress line. */
typedef struct {
    const SpsaRunOptions *o;
    int64_t first;          /* plan index of the iteration's first game */
    int64_t *missing;
    int nmissing, next;
    int8_t *result;         /* [2 batch]: 1 White won, 0 draw, -1 Black won */
    unsigned char *have;    /* [2 batch] */
    int64_t *games_run;     /* counted across iterations */
    double t_start, *last_progress;
    long iteration;
    const double *theta;
    pthread_mutex_t lock;
} Iteration;

static void report(const SpsaRunOptions *o, long iteration, int64_t games_run, double elapsed, const double *theta,
                   bool final)
{
    if (!o->progress)
        return;
    const SpsaProgress p = {o->c, iteration, games_run, elapsed, theta, final};
    o->progress(&p, o->user);
}

static int64_t iteration_next(void *ctx, const GameDone *done, bool want_more)
{
    Iteration *it = ctx;
    pthread_mutex_lock(&it->lock);
    if (done) {
        int64_t j = done->index - it->first;
        if (j >= 0 && j < 2 * it->o->c->batch && !it->have[j]) {
            it->have[j] = 1;
            it->result[j] = (int8_t)done->result;
            (*it->games_run)++;
        }
        double now = tv_now_seconds();
        double every = it->o->progress_every > 0 ? it->o->progress_every : 10;
        if (now - *it->last_progress >= every) {
            *it->last_progress = now;
            report(it->o, it->iteration, *it->games_run, now - it->t_start, it->theta, false);
        }
    }
    int64_t index = -1;
    if (want_more && it->next < it->nmissing)
        index = it->missing[it->next++];
    pthread_mutex_unlock(&it->lock);
    return index;
}

/* Wins minus losses of engine SPSA_PLUS in game g of the plan with result r. */
static int plus_score(const Tournament *t, int64_t g, int r)
{
    PlannedGame pg;
    tournament_game(t, g, &pg);
    return pg.white == SPSA_PLUS ? r : -r;
}

/* The openings of an iteration's missing games, made in parallel before its games start (as runner_run makes
 * a tournament's): a pair's two games then share one computation.  openings is indexed by opening index. */
static TvStatus make_openings(const Tournament *t, const int64_t *missing, int n, int threads, Position *openings,
                              TvError *err)
{
    TvStatus st = TV_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = 0; i < n; i++) {
        PlannedGame g;
        tournament_game(t, missing[i], &g);
        bool first = true; /* the first missing game of its opening makes it */
        for (int j = 0; j < i; j++) {
            PlannedGame h;
            tournament_game(t, missing[j], &h);
            first = first && h.opening != g.opening;
        }
        TvError e;
        if (first && tournament_opening(t, g.opening, &openings[g.opening], &e) != TV_OK) {
#pragma omp critical(spsa_opening)
            if (st == TV_OK) {
                st = e.status ? e.status : TV_ERR_ARG;
                if (err)
                    *err = e;
            }
        }
    }
    return st;
}

/* ---- paths and files ------------------------------------------------------------------ */

static void path_in(char *buf, size_t n, const char *dir, const char *file) { snprintf(buf, n, "%s/%s", dir, file); }

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The tuned engine (theta rounded) or the start (theta = the params' start)
 * as a file in dir, as the player writes itself (player_write). */
static TvStatus write_engine(const SpsaConfig *c, const double *theta, const char *path, const char *what,
                             TvError *err)
{
    Tournament t = c->t; /* a copy to set the values on (its heap members are c's) */
    TvStatus st = spsa_apply(c, &t, SPSA_PLUS, theta, err);
    if (st != TV_OK)
        return st;
    char name[64], comment[600];
    snprintf(name, sizeof name, "%.40s-%s", c->engine, strcmp(what, "tuned engine") ? "start" : "spsa");
    snprintf(comment, sizeof comment, "The %s of tavreli spsa %s (%d parameters).", what, c->source, c->nparams);
    return player_write(&t.engines[SPSA_PLUS], path, name, comment, err);
}

/* ---- the verification SPRT ---------------------------------------------------------------- */

static TvStatus verify(const SpsaRunOptions *o, const double *theta, SpsaOutcome *out, TvError *err)
{
    const SpsaConfig *c = o->c;
    char dirabs[PATH_MAX], store[1100];
    if (!realpath(o->dir, dirabs))
        return tv_fail(err, TV_ERR_IO, "%s: cannot resolve the folder: %s", o->dir, strerror(errno));
    StrBuf b = {0};
    strbuf_addf(&b,
                "[tournament]\nname = %s-verify\npairs = %ld\nseed = %llu\nthreads = %d\n"
                "[sprt]\nelo0 = %.17g\nelo1 = %.17g\n[engine %s-spsa]\n",
                c->name, c->verify_pairs, (unsigned long long)tv_rng_mix(c->seed), o->threads > 0 ? o->threads : o->threads < 0 ? 0 : (int)c->threads,
                c->verify_elo0, c->verify_elo1, c->engine);
    /* the tuned and the start engine, as the player writes and reads them */
    Tournament pt = c->t; /* copies to set the values on (heap members are c's) */
    double start_theta[SPSA_MAX_PARAMS];
    for (int p = 0; p < c->nparams; p++)
        start_theta[p] = c->params[p].start;
    char tuned[PATH_MAX + 16], start[PATH_MAX + 16];
    snprintf(tuned, sizeof tuned, "%s/tuned.ini", dirabs);
    snprintf(start, sizeof start, "%s/start.ini", dirabs);
    TvStatus st = spsa_apply(c, &pt, SPSA_PLUS, theta, err);
    if (st == TV_OK)
        st = spsa_apply(c, &pt, SPSA_MINUS, start_theta, err);
    if (st == TV_OK)
        st = player_section(&pt.engines[SPSA_PLUS], tuned, &b, err);
    strbuf_addf(&b, "[engine %s-start]\n", c->engine);
    if (st == TV_OK)
        st = player_section(&pt.engines[SPSA_MINUS], start, &b, err);
    if (st != TV_OK) {
        strbuf_free(&b);
        return st;
    }
    char *tail = strbuf_take(&b);
    if (!tail)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    char *text;
    st = spsa_tournament_text(c, tail, &text, err);
    free(tail);
    if (st != TV_OK)
        return st;
    Tournament t;
    if ((st = tournament_read_text(c->source, text, strlen(text), &t, err)) != TV_OK)
        return st;
    path_in(store, sizeof store, o->dir, "verify.h5");
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = store;
    ro.resume = exists(store);
    ro.threads = o->threads;
    ro.stop = o->stop;
    ro.note = o->event; /* a game begun again after a program failed as it began */
    ro.progress_user = o->user;
    if (o->verify_progress) {
        ro.progress = o->verify_progress;
        ro.progress_user = o->verify_user;
        ro.note = o->verify_note;
    }
    t.stop = o->stop;
    RunStats rs;
    memset(&rs, 0, sizeof rs);
    st = runner_run(&ro, &rs, err);
    if (st == TV_OK && !rs.interrupted) {
        out->verified = true;
        out->verify_decision = rs.sprt_decision;
        out->verify_llr = rs.sprt_llr;
        out->verify_lower = rs.sprt_lower;
        out->verify_upper = rs.sprt_upper;
        out->verify_pairs = rs.sprt_pairs;
        snprintf(out->verify_result, sizeof out->verify_result, "%s", rs.sprt_result);
    }
    out->interrupted = out->interrupted || rs.interrupted;
    run_stats_free(&rs);
    tournament_free(&t);
    return st;
}

/* ---- the run ---------------------------------------------------------------------------- */

/* Checks the stored games of a resume against the plan and puts their results in result/have. */
static TvStatus stored_results(const SpsaConfig *c, const char *store, const StoredEngine *ids, int8_t *result,
                               unsigned char *have, TvError *err)
{
    StoreContents sc;
    TvStatus st = h5store_read(store, false, false, &sc, err);
    if (st != TV_OK)
        return st;
    /* the engines as they are now against the ones whose games the store
     * holds (an engine INI edited between a run and its --resume mixed two
     * engines' games, and the tuned values matched neither run) */
    st = runner_check_engines(store, sc.engines, sc.nengines, ids, 2, err);
    const int64_t total = tournament_total_games(&c->t);
    for (int64_t i = 0; i < sc.ngames && st == TV_OK; i++) {
        const StoredGame *g = &sc.games[i];
        PlannedGame pg;
        if (g->index < 0 || g->index >= total) {
            st = tv_fail(err, TV_ERR_ARG, "%s: game %lld is beyond the plan of %lld games; use --force to start anew",
                         store, (long long)g->index, (long long)total);
            break;
        }
        tournament_game(&c->t, g->index, &pg);
        if (g->white != pg.white || g->black != pg.black || g->opening != pg.opening || g->seed != pg.seed)
            st = tv_fail(err, TV_ERR_ARG,
                         "%s: game %lld is not the plan's (the store was made by another SPSA file, or edited); use "
                         "--force to start anew",
                         store, (long long)g->index);
        result[g->index] = g->result;
        have[g->index] = 1;
    }
    h5store_contents_free(&sc);
    return st;
}

/* ---- several MPI ranks ---------------------------------------------------------------- */

/* The ranks of the run: one process (rank 0 of 1), or MPI_COMM_WORLD when o->mpi. */
typedef struct {
    int rank, size;
    bool mpi;
} Ranks;

/* Every rank learns whether any failed: TV_OK only when all passed (a rank that passed says another failed). */
static TvStatus all_ok(const Ranks *R, TvStatus st, TvError *err)
{
#ifdef TAVRELI_WITH_MPI
    if (R->mpi) {
        int mine = st != TV_OK, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any && !mine)
            return tv_fail(err, TV_ERR_IO, "rank %d: stopping because another rank failed (see its message)",
                           R->rank);
        return any ? st : TV_OK;
    }
#endif
    (void)R;
    (void)err;
    return st;
}

/* Rank 0's status and message reach every rank. */
static TvStatus from_rank0(const Ranks *R, TvStatus st, TvError *err)
{
#ifdef TAVRELI_WITH_MPI
    if (R->mpi) {
        int code = st;
        MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
        char msg[TV_ERROR_MSG_LEN];
        snprintf(msg, sizeof msg, "%s", R->rank == 0 && code != TV_OK ? err->msg : "");
        MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (R->rank != 0 && code != TV_OK)
            tv_fail(err, (TvStatus)code, "%s", msg);
        return (TvStatus)code;
    }
#endif
    (void)R;
    (void)err;
    return st;
}

/* After an iteration's games: every rank gets every result of games first .. first + n - 1, and whether any
 * rank was stopped by a signal. */
static void share_results(const Ranks *R, int8_t *result, unsigned char *have, int n, bool *stopped)
{
#ifdef TAVRELI_WITH_MPI
    if (R->mpi) {
        int8_t *enc = malloc((size_t)n + 1);
        if (!enc)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < n; i++)
            enc[i] = have[i] ? (int8_t)(result[i] + 2) : 0; /* one rank holds each game: MAX combines */
        enc[n] = *stopped;
        MPI_Allreduce(MPI_IN_PLACE, enc, n + 1, MPI_INT8_T, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            if (enc[i]) {
                have[i] = 1;
                result[i] = (int8_t)(enc[i] - 2);
            }
        *stopped = enc[n];
        free(enc);
    }
#endif
    (void)R;
    (void)result;
    (void)have;
    (void)n;
    (void)stopped;
}

TvStatus spsa_run(const SpsaRunOptions *o, SpsaOutcome *out, TvError *err)
{
    SpsaConfig *c = o->c;
    memset(out, 0, sizeof *out);
    const double t0 = tv_now_seconds();
    const int P = c->nparams;
    const long N = c->iterations, B = c->batch;
    const int64_t total = tournament_total_games(&c->t);
    Ranks R = {0, 1, false};
    bool session_begun = false; /* session and ro below are set (a goto done may come before) */
#ifdef TAVRELI_WITH_MPI
    if (o->mpi) {
        int initialized = 0, provided = 0;
        MPI_Initialized(&initialized);
        if (!initialized && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
            return tv_fail(err, TV_ERR_IO, "MPI_Init_thread failed");
        R.mpi = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
        MPI_Comm_size(MPI_COMM_WORLD, &R.size);
    }
#else
    if (o->mpi)
        return tv_fail(err, TV_ERR_ARG, "this tavreli was built without MPI: rebuild with 'cmake -DTAVRELI_MPI=ON'");
#endif
    out->rank = R.rank;
    char store[1100], part[1100];
    TvStatus st = TV_OK;
    if (R.rank == 0 && mkdir(o->dir, 0777) != 0 && errno != EEXIST)
        st = tv_fail(err, TV_ERR_IO, "%s: cannot make the folder: %s", o->dir, strerror(errno));
    if ((st = from_rank0(&R, st, err)) != TV_OK)
        return st;
    path_in(store, sizeof store, o->dir, "spsa.h5");
    distrib_part_path(store, R.rank, part, sizeof part);
    if ((st = all_ok(&R, spsa_check_params(c, err), err)) != TV_OK)
        return st;
    bool resume = o->resume && exists(store);
    if (!R.mpi && !resume && !o->force && exists(store))
        return tv_fail(err, TV_ERR_ARG, "%s exists: --resume continues it, --force starts anew", store);
    /* The players as the store holds them: at the start values, which may
     * differ from their engine INI's (a merge of the parts compares the
     * parts with these; with c->t an MPI run that started a parameter away
     * from its INI's value played every game and then failed at the
     * merge). */
    Tournament start_t = c->t;
    double start_theta[SPSA_MAX_PARAMS];
    for (int p = 0; p < P; p++)
        start_theta[p] = c->params[p].start;
    if ((st = spsa_apply(c, &start_t, SPSA_PLUS, start_theta, err)) != TV_OK ||
        (st = spsa_apply(c, &start_t, SPSA_MINUS, start_theta, err)) != TV_OK)
        return st;
    if (R.mpi) { /* rank 0 readies the store: --force removes it and its parts, --resume merges the parts */
        bool have_store = false;
        /* --resume with nothing to resume starts the run, as one process
         * does (a requeued batch job passes --resume every time) */
        char part0[1100];
        distrib_part_path(store, 0, part0, sizeof part0);
        const bool something = exists(store) || exists(part0);
        if (R.rank == 0)
            st = distrib_prepare_store(store, o->resume && something, o->force, &start_t, o->stop, &have_store,
                                       err);
        if ((st = from_rank0(&R, st, err)) != TV_OK)
            return st;
        resume = exists(store);
    }
    /* A run started anew: the verification store of an earlier run in this
     * folder is not this run's (verify_run continues a verify.h5 it finds),
     * so --force removes it and a run without it is refused. */
    if (!resume && R.rank == 0) {
        char verify[1100];
        path_in(verify, sizeof verify, o->dir, "verify.h5");
        if (exists(verify))
            st = o->force ? h5store_remove(verify, err)
                          : tv_fail(err, TV_ERR_ARG,
                                    "%s exists, from an earlier run: --resume continues that run, --force starts anew",
                                    verify);
    }
    if ((st = from_rank0(&R, st, err)) != TV_OK)
        return st;

    /* what the run keeps: theta per iteration and the results of every game */
    SpsaTable tb;
    memset(&tb, 0, sizeof tb);
    tb.nparams = P;
    tb.iterations = N;
    tb.batch = B;
    tb.names = calloc((size_t)P, sizeof *tb.names);
    tb.lo = calloc((size_t)P, sizeof *tb.lo);
    tb.hi = calloc((size_t)P, sizeof *tb.hi);
    tb.theta = calloc((size_t)((N + 1) * P), sizeof *tb.theta);
    tb.c = calloc((size_t)(N * P), sizeof *tb.c);
    tb.delta = calloc((size_t)(N * P), sizeof *tb.delta);
    tb.plus = calloc((size_t)(N * P), sizeof *tb.plus);
    tb.minus = calloc((size_t)(N * P), sizeof *tb.minus);
    tb.pairs = calloc((size_t)(N * B), sizeof *tb.pairs);
    int8_t *result = calloc((size_t)total, 1);
    unsigned char *have = calloc((size_t)total, 1);
    int64_t *missing = calloc((size_t)(2 * B), sizeof *missing);
    /* every opening of the plan has its place (2240 bytes each), touched only when made: up to
     * SPSA_OPENINGS_KEPT openings; a larger plan makes each game's opening as the game starts */
    const int64_t nopenings = tournament_openings_needed(&c->t);
    Position *openings = nopenings <= SPSA_OPENINGS_KEPT ? calloc((size_t)nopenings, sizeof *openings) : NULL;
    H5Store *h5 = NULL;
    StoredEngine *ids = NULL; /* the players' identities, as the store holds them */
    Tournament t = c->t; /* the players' values are set on this copy (its heap members are c's) */
    if (!tb.names || !tb.lo || !tb.hi || !tb.theta || !tb.c || !tb.delta || !tb.plus || !tb.minus || !tb.pairs ||
        !result || !have || !missing)
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory for %ld iterations", N);
    if ((st = all_ok(&R, st, err)) != TV_OK)
        goto done;
    for (int p = 0; p < P; p++) {
        snprintf(tb.names[p], sizeof tb.names[p], "%s", c->params[p].name);
        tb.lo[p] = c->params[p].lo;
        tb.hi[p] = c->params[p].hi;
        tb.theta[p] = c->params[p].start;
    }

    /* the store (with MPI, each rank's part): the players hold the start values in /engines */
    if ((st = spsa_apply(c, &t, SPSA_PLUS, tb.theta, err)) == TV_OK &&
        (st = spsa_apply(c, &t, SPSA_MINUS, tb.theta, err)) == TV_OK)
        st = runner_identify(&t, store, &ids, err);
    if (st == TV_OK && resume)
        st = stored_results(c, store, ids, result, have, err);
    if (st == TV_OK && resume && !R.mpi) {
        st = h5store_open_append(store, c->t.text, &h5, err);
    } else if (st == TV_OK) {
        char options_str[128];
        rule_options_to_str(&t.rules, options_str, sizeof options_str);
        st = h5store_create(R.mpi ? part : store, o->force || R.mpi, ids, 2, t.text, options_str, &h5, err);
    }
    if ((st = all_ok(&R, st, err)) != TV_OK)
        goto done;

    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = R.mpi ? part : store;
    ro.threads = o->threads > 0 ? o->threads : 0;
    ro.note = R.rank == 0 ? o->event : NULL; /* a game begun again after a program failed as it began */
    ro.progress_user = o->user;
    if (o->threads < 0)
        t.threads = 0; /* all cores */
    ro.stop = o->stop;
    t.stop = o->stop;
    /* what shaped this session, recorded in the store as it ends; on
     * several ranks every rank's host, threads and cores, gathered on
     * rank 0, which records the session */
    RunHost here;
    RunSession session;
#ifdef TAVRELI_WITH_MPI
    if (R.mpi) {
        char host[MPI_MAX_PROCESSOR_NAME] = "";
        int len = 0;
        MPI_Get_processor_name(host, &len);
        run_session_host_here(&here, runner_threads(&ro), host[0] ? host : NULL, 0);
        RunHost *all = R.rank == 0 ? calloc((size_t)R.size, sizeof *all) : NULL;
        MPI_Gather(&here, (int)sizeof here, MPI_BYTE, all, (int)sizeof here, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (R.rank == 0)
            run_session_begin(&session, R.size, all ? all : &here, all ? R.size : 1);
        free(all);
    } else
#endif
    {
        run_session_host_here(&here, runner_threads(&ro), NULL, 0);
        run_session_begin(&session, 1, &here, 1);
    }
    session_begun = true;
    const SpsaRunOptions quiet = {.c = c}; /* the other ranks' progress goes nowhere */
    const SpsaRunOptions *view = R.rank == 0 ? o : &quiet;
    double last_progress = tv_now_seconds();
    int64_t games_run = 0, games_mine = 0;
    long k = 0;
    report(view, 0, 0, 0, tb.theta, false);
    for (; k < N; k++) {
        double *theta = &tb.theta[k * P], *next = &tb.theta[(k + 1) * P];
        int8_t *delta = &tb.delta[k * P];
        double *plus = &tb.plus[k * P], *minus = &tb.minus[k * P];
        spsa_delta(c, k, delta);
        for (int p = 0; p < P; p++) {
            tb.c[k * P + p] = spsa_c(c, p, k);
            plus[p] = spsa_played(c, p, k, theta[p], 1, delta[p]);
            minus[p] = spsa_played(c, p, k, theta[p], -1, delta[p]);
        }
        const int64_t first = (int64_t)k * 2 * B;
        int nmissing = 0, nmine = 0; /* missing: all ranks', the same on each; then this rank's (index mod size) */
        for (int64_t g = first; g < first + 2 * B; g++)
            nmissing += !have[g];
        for (int64_t g = first; g < first + 2 * B; g++)
            if (!have[g] && g % R.size == R.rank)
                missing[nmine++] = g;
        if (nmissing) {
            bool stopped = o->stop && *o->stop;
            if (!stopped && nmine) {
                Iteration it = {.o = view, .first = first, .missing = missing, .nmissing = nmine,
                                .result = &result[first], .have = &have[first], .games_run = &games_mine,
                                .t_start = t0, .last_progress = &last_progress, .iteration = k, .theta = theta};
                pthread_mutex_init(&it.lock, NULL);
                int64_t played, positions;
                if ((st = spsa_apply(c, &t, SPSA_PLUS, plus, err)) == TV_OK &&
                    (st = spsa_apply(c, &t, SPSA_MINUS, minus, err)) == TV_OK && openings)
                    st = make_openings(&t, missing, nmine, runner_threads(&ro), openings, err);
                if (st == TV_OK)
                    st = runner_play(&ro, h5, iteration_next, &it, openings, &played, &positions, err);
                else if (o->stop && *o->stop) /* a signal while the openings were made */
                    st = TV_OK;
                pthread_mutex_destroy(&it.lock);
                stopped = o->stop && *o->stop;
            }
            share_results(&R, &result[first], &have[first], (int)(2 * B), &stopped);
            if ((st = all_ok(&R, st, err)) != TV_OK)
                break;
            bool complete = true;
            for (int64_t g = first; g < first + 2 * B; g++)
                complete = complete && have[g];
            games_run += nmissing;
            for (int64_t g = first; g < first + 2 * B; g++)
                games_run -= !have[g];
            games_mine = games_run;
            if (!complete || stopped) /* a signal: the games in flight are abandoned, the next run plays them */
                out->interrupted = true;
            if (!complete)
                break;
        }
        int score = 0;
        for (long pr = 0; pr < B; pr++) {
            int s = plus_score(&t, first + 2 * pr, result[first + 2 * pr]) +
                    plus_score(&t, first + 2 * pr + 1, result[first + 2 * pr + 1]);
            tb.pairs[k * B + pr] = (int8_t)s;
            score += s;
        }
        memcpy(next, theta, sizeof *theta * (size_t)P);
        spsa_step(c, k, delta, score, next);
        if (out->interrupted) { /* stopped, this iteration's games all in: its step is taken */
            k++;
            break;
        }
    }
    tb.done = k;
    out->iterations_done = k;
    out->games_played = games_run;
    memcpy(out->theta, &tb.theta[k * P], sizeof *out->theta * (size_t)P);
    report(view, k, games_run, tv_now_seconds() - t0, &tb.theta[k * P], true);

done:;
    /* the session's games: every rank's (the results are shared after each iteration) */
    const int64_t games_all = session_begun ? games_mine : 0;
    if (h5) {
        TvError close_err;
        bool intact = session_begun && !h5store_write_failed(h5) && !R.mpi;
        if (h5store_close(h5, &close_err) != TV_OK) {
            intact = false;
            if (st == TV_OK) {
                *err = close_err;
                st = close_err.status;
            }
        }
        if (intact) {
            RunStats rs;
            memset(&rs, 0, sizeof rs);
            rs.interrupted = out->interrupted;
            rs.played = games_all;
            run_session_close(&session, &ro, store, &rs, st);
        }
    }
    if (R.mpi) { /* the parts become the store (rank 0), unless a signal stopped the run: --resume merges them */
        st = all_ok(&R, st, err);
        if (st == TV_OK && !out->interrupted && R.rank == 0) {
            bool have_store;
            st = distrib_prepare_store(store, true, false, &start_t, NULL, &have_store, err);
        }
        st = from_rank0(&R, st, err);
        /* rank 0 records the session: in the store, or in its part when the parts stay (a merge keeps it) */
        if (session_begun && R.rank == 0) {
            RunStats rs;
            memset(&rs, 0, sizeof rs);
            rs.interrupted = out->interrupted;
            rs.played = games_all;
            const char *where = st == TV_OK && !out->interrupted ? store : part;
            if (exists(where))
                run_session_close(&session, &ro, where, &rs, st);
        }
    }
    if (st == TV_OK && R.rank == 0 && (h5 || R.mpi) && !(R.mpi && out->interrupted))
        st = spsa_table_write(store, &tb, err);
    if (st == TV_OK && R.rank == 0 && !out->interrupted && out->iterations_done == N) {
        char start[1100];
        path_in(out->tuned, sizeof out->tuned, o->dir, "tuned.ini");
        path_in(start, sizeof start, o->dir, "start.ini");
        st = write_engine(c, out->theta, out->tuned, "tuned engine", err);
        if (st == TV_OK)
            st = write_engine(c, start_theta, start, "start engine", err);
        if (st == TV_OK && c->verify) {
            if (o->event)
                o->event("verification: an SPRT of the tuned engine against the start", o->user);
            st = verify(o, out->theta, out, err);
        }
    }
    out->wall_seconds = tv_now_seconds() - t0;
    free(ids);
    spsa_table_free(&tb);
    free(result);
    free(have);
    free(missing);
    free(openings);
    return st;
}
