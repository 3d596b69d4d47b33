/* train.c: the gated training loop (see train.h): generations of
 * self-play with the best version, a tune, an SPRT of the tuned version
 * against the best; and the Elo ladder of a training directory.  The
 * [train] INI is read in train_config.c. */
#include "train.h"
#include "train_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "atomic_file.h"
#include "engine_id.h"
#include "h5store.h"
#include "ratings.h"
#include "runner.h"
#include "strbuf.h"
#include "tournament.h"
#include "tune.h"

/* ---- files ------------------------------------------------------------------------ */

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static TvStatus make_dir(const char *path, TvError *err)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return tv_fail(err, TV_ERR_IO, "%s: cannot make the folder: %s", path, strerror(errno));
    return TV_OK;
}

/* The file is there whole or not at all (core/atomic_file.h). */
static TvStatus write_atomic(const char *path, const char *text, TvError *err)
{
    return tv_atomic_write(path, "training file", text, strlen(text), err);
}

static TvStatus copy_file(const char *from, const char *to, TvError *err)
{
    char *text;
    size_t len;
    TvStatus st = tv_read_file(from, "engine file", &text, &len, err);
    if (st != TV_OK)
        return st;
    st = write_atomic(to, text, err);
    free(text);
    return st;
}

/* DIR/gen-G[/FILE] */
static void gen_path(char *buf, size_t n, const char *dir, int g, const char *file)
{
    snprintf(buf, n, "%s/gen-%d%s%s", dir, g, file ? "/" : "", file ? file : "");
}

/* The best's engine file: generation 0's copy of the start, or the tuned
 * version of the generation that was accepted. */
static void best_file(char *buf, size_t n, const char *dir, int best)
{
    gen_path(buf, n, dir, best, best == 0 ? "best.ini" : "tuned.ini");
}

/* ---- a generation's result file ------------------------------------------------- */

typedef struct {
    char outcome[32];
    long best;
    double llr;
    long pairs;
    bool have_outcome, have_best;
} GenResult;

static int result_handler(void *user, const char *section, const char *name, const char *value)
{
    GenResult *r = user;
    if (strcmp(section, "result") != 0)
        return 0;
    if (!strcmp(name, "outcome")) {
        if (strcmp(value, "accepted") && strcmp(value, "rejected") && strcmp(value, "inconclusive") &&
            strcmp(value, "no-change"))
            return 0;
        snprintf(r->outcome, sizeof r->outcome, "%s", value);
        r->have_outcome = true;
    } else if (!strcmp(name, "best")) {
        if (!tv_parse_long(value, 0, 100000, &r->best))
            return 0;
        r->have_best = true;
    } else if (!strcmp(name, "llr")) {
        char *end;
        r->llr = strtod(value, &end);
        if (end == value || *end) /* as written: "%.6f" (inf when an SPRT's LLR was) */
            return 0;
    } else if (!strcmp(name, "pairs")) {
        if (!tv_parse_long(value, 0, LONG_MAX, &r->pairs))
            return 0;
    } else
        return 0;
    return 1;
}

/* Reads DIR/gen-G/result; false when there is none (the generation is not
 * complete); an error when it is damaged. */
static TvStatus read_result(const char *dir, int g, GenResult *r, bool *have, TvError *err)
{
    char path[1100];
    gen_path(path, sizeof path, dir, g, "result");
    memset(r, 0, sizeof *r);
    *have = exists(path);
    if (!*have)
        return TV_OK;
    char *text;
    TvStatus st = tv_ini_load(path, "generation result", &text, NULL, err);
    if (st != TV_OK)
        return st;
    int rc = ini_parse_string(text, result_handler, r);
    free(text);
    if (rc != 0 || !r->have_outcome || !r->have_best || r->best < 0 || r->best > g)
        return tv_fail(err, TV_ERR_PARSE, "%s: not a generation result (line %d); delete it to redo generation %d",
                       path, rc, g);
    return TV_OK;
}

/* ---- the loop ----------------------------------------------------------------------- */

static void emit(const TrainCallbacks *cb, int g, const char *stage, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void emit(const TrainCallbacks *cb, int g, const char *stage, const char *fmt, ...)
{
    if (!cb || !cb->event)
        return;
    TrainEvent e;
    e.generation = g;
    e.stage = stage;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.text, sizeof e.text, fmt, ap);
    va_end(ap);
    cb->event(&e, cb->user);
}

/* Plays the tournament INI at ini_path into store (resuming a store an
 * interrupted run left); *stats as runner_run fills it. */
static TvStatus play(const char *ini_path, const char *text, const char *store, const TrainConfig *c,
                     const TrainCallbacks *cb, RunStats *stats, TvError *err)
{
    TvStatus st = write_atomic(ini_path, text, err);
    if (st != TV_OK)
        return st;
    Tournament t;
    st = tournament_read(ini_path, &t, err);
    if (st != TV_OK)
        return st;
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = store;
    ro.resume = exists(store);
    ro.threads = (int)c->threads;
    ro.stop = cb ? cb->stop : NULL;
    if (cb) {
        ro.progress = cb->progress;
        ro.referee = cb->referee;
        ro.note = cb->note;
        ro.progress_user = cb->progress_user;
    }
    t.stop = ro.stop; /* the openings of a big plan take seconds */
    memset(stats, 0, sizeof *stats);
    /* the store's run lock, as `tavreli selfplay` takes it: a selfplay run
     * on this store meanwhile is refused, and this one while it runs */
    H5RunLock *lock = NULL;
    st = h5store_lock_run(store, NULL, NULL, &lock, err);
    if (st == TV_OK)
        st = runner_run(&ro, stats, err);
    if (st == TV_OK && t.sprt)
        st = runner_store_sprt(&ro, stats, err);
    h5store_unlock_run(lock);
    tournament_free(&t);
    return st;
}

/* DIR/gen-G/confirm-gen-O.EXT */
static void confirm_path(char *buf, size_t n, const char *dir, int g, int o, const char *ext)
{
    char file[64];
    snprintf(file, sizeof file, "confirm-gen-%d.%s", o, ext);
    gen_path(buf, n, dir, g, file);
}

/* Step 5: the confirmation of accepted generation g, whose previous best
 * was prev: pairs opening pairs of gen-G against gen-0 and against gen-P
 * (once when prev is 0), each match its own store, then DIR/gen-G/confirmed
 * (last).  Done before (the marker is there): nothing.  *stopped when a
 * signal stopped it (the stores resume on the next run). */
static TvStatus confirm_generation(const TrainConfig *c, const char *dir, int g, int prev, long pairs,
                                   const TrainCallbacks *cb, bool *stopped, TvError *err)
{
    char marker[1100];
    *stopped = false;
    gen_path(marker, sizeof marker, dir, g, "confirmed");
    if (exists(marker))
        return TV_OK;
    int opp[2] = {0, prev};
    int nopp = prev == 0 ? 1 : 2;
    for (int k = 0; k < nopp; k++) {
        int o = opp[k];
        char text[2048], ini[1100], store[1100];
        /* seeds apart from the self-play's (seed * 1000003 + G) and the
         * SPRT's (+ 500000 + G): G <= 100 and O < G */
        snprintf(text, sizeof text,
                 "; written by tavreli train: generation %d's confirmation, gen-%d (accepted) against gen-%d\n"
                 "[tournament]\nname = %s-g%d-confirm-%d\npairs = %ld\nseed = %llu\nthreads = %ld\n"
                 "[openings]\nplies = %ld\n[adjudication]\nmax_plies = %ld\n"
                 "[engine gen-%d]\npath = tuned.ini\ndepth = %ld\n[engine gen-%d]\npath = ../gen-%d/%s\ndepth = %ld\n",
                 g, g, o, c->name, g, o, pairs,
                 (unsigned long long)(c->seed * 1000003ULL + 600000ULL + 1000ULL * (uint64_t)g + (uint64_t)o),
                 c->threads, c->plies, c->max_plies, g, c->depth, o, o, o == 0 ? "best.ini" : "tuned.ini",
                 c->depth);
        confirm_path(ini, sizeof ini, dir, g, o, "ini");
        confirm_path(store, sizeof store, dir, g, o, "h5");
        emit(cb, g, "confirm", "gen-%d against gen-%d, %ld pairs -> %s", g, o, pairs, store);
        RunStats rs;
        TvStatus st = play(ini, text, store, c, cb, &rs, err);
        *stopped = rs.interrupted;
        run_stats_free(&rs);
        if (st != TV_OK || *stopped)
            return st;
    }
    char text[512], also[32] = "";
    if (prev)
        snprintf(also, sizeof also, ", gen-%d", prev);
    snprintf(text, sizeof text,
             "; written by tavreli train: generation %d's confirmation is complete\n[confirmed]\npairs = %ld\n"
             "against = gen-0%s\n",
             g, pairs, also);
    return write_atomic(marker, text, err);
}

/* Confirms generation g when it was accepted (res) and pairs > 0; sets
 * out->interrupted when a signal stopped it. */
static TvStatus confirm_if_accepted(const TrainConfig *c, const char *dir, int g, int prev, const char *outcome,
                                    long pairs, const TrainCallbacks *cb, TrainOutcome *out, TvError *err)
{
    if (strcmp(outcome, "accepted") != 0 || pairs <= 0)
        return TV_OK;
    bool stopped;
    TvStatus st = confirm_generation(c, dir, g, prev, pairs, cb, &stopped, err);
    if (st == TV_OK && stopped)
        out->interrupted = true;
    return st;
}

/* One run at a time on a training folder: the run lock of DIR/train.ini
 * (h5store_lock_run: DIR/train.ini.lock, "PID HOST"), held for the whole
 * run; a second run on the folder is refused naming the first's pid. */
static TvStatus lock_folder(const char *dir, H5RunLock **lock, TvError *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/train.ini", dir);
    return h5store_lock_run(path, NULL, NULL, lock, err);
}

static TvStatus train_run_locked(const TrainConfig *c, const char *config_text, const char *dir,
                                 const TrainCallbacks *cb, TrainOutcome *out, TvError *err);

TvStatus train_run(const TrainConfig *c, const char *config_text, const char *dir, const TrainCallbacks *cb,
                   TrainOutcome *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    TvStatus st = make_dir(dir, err);
    H5RunLock *lock = NULL;
    if (st == TV_OK)
        st = lock_folder(dir, &lock, err);
    if (st == TV_OK)
        st = train_run_locked(c, config_text, dir, cb, out, err);
    h5store_unlock_run(lock);
    return st;
}

/* A resumed run goes on from the copy of the start engine it began with
 * (DIR/gen-0/best.ini): a start engine edited since is refused, naming what
 * differs (it was ignored without a word). */
static TvStatus same_start(const char *start, const char *copy, const char *dir, TvError *err)
{
    TournamentEngine *te = calloc(2, sizeof *te);
    StoredEngine *se = calloc(2, sizeof *se);
    TvStatus st = te && se ? TV_OK : tv_fail(err, TV_ERR_LIMIT, "out of memory");
    if (st == TV_OK && (st = engine_read(copy, &te[0].engine, err)) == TV_OK)
        st = engine_read(start, &te[1].engine, err);
    char why[600];
    for (int k = 0; st == TV_OK && k < 2; k++) {
        te[k].kind = PLAYER_ENGINE;
        snprintf(te[k].engine.name, sizeof te[k].engine.name, "start");
        engine_id_of_entry(&te[k], &se[k]);
    }
    if (st == TV_OK && engine_id_difference(&se[0], "in the copy it began with", &se[1], "in it now", why, sizeof why))
        st = tv_fail(err, TV_ERR_ARG,
                     "%s was begun from another version of its start engine %s (%s, %s): it goes on only from the "
                     "engine it began with; to train the edited engine, give the run another name (or remove %s)",
                     dir, start, copy, why, dir);
    free(te);
    free(se);
    return st;
}

static TvStatus train_run_locked(const TrainConfig *c, const char *config_text, const char *dir,
                                 const TrainCallbacks *cb, TrainOutcome *out, TvError *err)
{
    char path[1100], path2[1100];
    TvStatus st;
    /* the configuration: a resume must have the same settings */
    snprintf(path, sizeof path, "%s/train.ini", dir);
    if (exists(path)) {
        char *old;
        size_t len;
        if ((st = tv_read_file(path, "training file", &old, &len, err)) != TV_OK)
            return st;
        char diff[400];
        tournament_text_difference(old, config_text, diff, sizeof diff);
        free(old);
        if (diff[0])
            return tv_fail(err, TV_ERR_ARG,
                           "%s holds a run of other settings (%s): use another name or remove the folder", dir, diff);
    } else if ((st = write_atomic(path, config_text, err)) != TV_OK)
        return st;
    gen_path(path, sizeof path, dir, 0, NULL);
    if ((st = make_dir(path, err)) != TV_OK)
        return st;
    gen_path(path, sizeof path, dir, 0, "best.ini");
    if (!exists(path) && (st = copy_file(c->engine, path, err)) != TV_OK)
        return st;
    if ((st = same_start(c->engine, path, dir, err)) != TV_OK)
        return st;
    int best = 0;
    for (int g = 1; g <= c->generations; g++) {
        GenResult res;
        bool have;
        if ((st = read_result(dir, g, &res, &have, err)) != TV_OK)
            return st;
        if (have) {
            int prev = best;
            best = (int)res.best;
            out->generations_done = g;
            emit(cb, g, "skip", "done before: %s, best gen-%d", res.outcome, best);
            st = confirm_if_accepted(c, dir, g, prev, res.outcome, c->confirm_pairs, cb, out, err);
            if (st != TV_OK || out->interrupted) {
                out->best = best;
                return st;
            }
            continue;
        }
        gen_path(path, sizeof path, dir, g, NULL);
        if ((st = make_dir(path, err)) != TV_OK)
            return st;
        /* 1. self-play of the best */
        best_file(path, sizeof path, dir, best);
        gen_path(path2, sizeof path2, dir, g, "best.ini");
        if ((st = copy_file(path, path2, err)) != TV_OK)
            return st;
        char text[2048], ini[1100], store[1100];
        snprintf(text, sizeof text,
                 "; written by tavreli train: generation %d's self-play, gen-%d against itself\n"
                 "[tournament]\nname = %s-g%d-selfplay\npairs = %ld\nseed = %llu\nthreads = %ld\n"
                 "[openings]\nplies = %ld\nper_game = yes\nsample_plies = %ld\n[adjudication]\nmax_plies = %ld\n"
                 "[engine gen-%d]\npath = best.ini\ndepth = %ld\n[engine gen-%d-copy]\npath = best.ini\ndepth = %ld\n",
                 g, best, c->name, g, (c->games + 1) / 2, (unsigned long long)(c->seed * 1000003ULL + (uint64_t)g),
                 c->threads, c->plies, c->sample_plies, c->max_plies, best, c->depth, best, c->depth);
        gen_path(ini, sizeof ini, dir, g, "selfplay.ini");
        gen_path(store, sizeof store, dir, g, "selfplay.h5");
        emit(cb, g, "self-play", "%ld games of gen-%d at depth %ld -> %s", 2 * ((c->games + 1) / 2), best, c->depth,
             store);
        RunStats rs;
        st = play(ini, text, store, c, cb, &rs, err);
        bool stopped = rs.interrupted;
        run_stats_free(&rs);
        if (st != TV_OK)
            return st;
        if (stopped) {
            out->interrupted = true;
            out->best = best;
            return TV_OK;
        }
        /* 2. tune on every generation's self-play so far, from the best */
        char(*files)[1100] = malloc(sizeof *files * (size_t)g);
        const char **fp = malloc(sizeof *fp * (size_t)g);
        if (!files || !fp) {
            free(files);
            free(fp);
            return tv_fail(err, TV_ERR_LIMIT, "train: out of memory");
        }
        for (int k = 0; k < g; k++) {
            gen_path(files[k], sizeof files[k], dir, k + 1, "selfplay.h5");
            fp[k] = files[k];
        }
        TuneArgs ta;
        tune_args_default(&ta);
        char tuned[1100], log[1100];
        gen_path(tuned, sizeof tuned, dir, g, "tuned.ini");
        gen_path(log, sizeof log, dir, g, "tune.log");
        ta.files = fp;
        ta.nfiles = g;
        ta.engine = path2;
        ta.out = tuned;
        ta.log = log;
        ta.seed = c->seed + (uint64_t)g;
        ta.fixed = c->fixed[0] ? c->fixed : NULL;
        /* no hold-out set: every game goes into the fit and the 5-fold
         * cross-validation over games judges the fit (a 10% hold-out of a
         * few hundred games was too noisy a gate); the SPRT decides */
        ta.holdout = 0;
        ta.stop = cb ? cb->stop : NULL; /* the fit of a big run takes minutes */
        TuneRunReport tr;
        emit(cb, g, "tune", "on the self-play of generations 1..%d from gen-%d -> %s", g, best, tuned);
        st = tune_run(&ta, NULL, &tr, err);
        free(files);
        free(fp);
        bool improved = tr.improved && tr.improvement_checked;
        double h0 = tr.cv_loss0, h1 = tr.cv_loss1;
        int64_t npos = tr.positions;
        bool tune_stopped = tr.interrupted; /* nothing written: the next run tunes again */
        tune_run_report_free(&tr);
        if (st != TV_OK)
            return st;
        if (tune_stopped) {
            out->interrupted = true;
            out->best = best;
            return TV_OK;
        }
        emit(cb, g, "tune", "%lld positions; cross-validated loss %.6f -> %.6f: %s", (long long)npos, h0, h1,
             improved ? "an improvement" : "no improvement, the SPRT is skipped");
        char result[512];
        const char *outcome = "no-change";
        int prev_best = best;
        double llr = 0;
        int64_t pairs = 0;
        if (improved) {
            /* 3. SPRT: tuned (gen-G) against the best (gen-B) */
            snprintf(text, sizeof text,
                     "; written by tavreli train: generation %d's SPRT, gen-%d (tuned) against gen-%d (the best)\n"
                     "[tournament]\nname = %s-g%d-sprt\npairs = %ld\nseed = %llu\nthreads = %ld\n"
                     "[openings]\nplies = %ld\n[adjudication]\nmax_plies = %ld\n"
                     "[sprt]\nelo0 = %.17g\nelo1 = %.17g\nalpha = %.17g\nbeta = %.17g\n"
                     "[engine gen-%d]\npath = tuned.ini\ndepth = %ld\n[engine gen-%d]\npath = best.ini\ndepth = %ld\n",
                     g, g, best, c->name, g, c->sprt_pairs,
                     (unsigned long long)(c->seed * 1000003ULL + 500000ULL + (uint64_t)g), c->threads, c->plies,
                     c->max_plies, c->elo0, c->elo1, c->alpha, c->beta, g, c->depth, best, c->depth);
            gen_path(ini, sizeof ini, dir, g, "sprt.ini");
            gen_path(store, sizeof store, dir, g, "sprt.h5");
            emit(cb, g, "sprt", "gen-%d against gen-%d, at most %ld pairs -> %s", g, best, c->sprt_pairs, store);
            st = play(ini, text, store, c, cb, &rs, err);
            stopped = rs.interrupted;
            int decision = rs.sprt_decision;
            llr = rs.sprt_llr;
            pairs = rs.sprt_pairs;
            run_stats_free(&rs);
            if (st != TV_OK)
                return st;
            if (stopped) {
                out->interrupted = true;
                out->best = best;
                return TV_OK;
            }
            outcome = decision == SPRT_ACCEPT_H1 ? "accepted" : decision == SPRT_ACCEPT_H0 ? "rejected"
                                                                                           : "inconclusive";
            if (decision == SPRT_ACCEPT_H1)
                best = g;
        }
        /* 4. the result, last */
        snprintf(result, sizeof result,
                 "; written by tavreli train: the outcome of generation %d\n[result]\noutcome = %s\nbest = %d\n"
                 "llr = %.6f\npairs = %lld\n",
                 g, outcome, best, llr, (long long)pairs);
        gen_path(path, sizeof path, dir, g, "result");
        if ((st = write_atomic(path, result, err)) != TV_OK)
            return st;
        out->generations_done = g;
        emit(cb, g, "result", "%s (LLR %.3f after %lld pairs); the best is gen-%d", outcome, llr, (long long)pairs,
             best);
        /* 5. the confirmation of an accepted generation */
        st = confirm_if_accepted(c, dir, g, prev_best, outcome, c->confirm_pairs, cb, out, err);
        if (st != TV_OK || out->interrupted) {
            out->best = best;
            return st;
        }
    }
    out->best = best;
    return TV_OK;
}

static TvStatus confirm_locked(const char *dir, const TrainCallbacks *cb, TrainOutcome *out, TvError *err);

TvStatus train_confirm(const char *dir, const TrainCallbacks *cb, TrainOutcome *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    if (!train_is_dir(dir))
        return tv_fail(err, TV_ERR_ARG, "%s is not a training folder (no train.ini and gen-0): give the folder of a "
                       "'tavreli train' run", dir);
    H5RunLock *lock = NULL;
    TvStatus st = lock_folder(dir, &lock, err);
    if (st != TV_OK)
        return st;
    st = confirm_locked(dir, cb, out, err);
    h5store_unlock_run(lock);
    return st;
}

static TvStatus confirm_locked(const char *dir, const TrainCallbacks *cb, TrainOutcome *out, TvError *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/train.ini", dir);
    TrainConfig c;
    TvStatus st = train_read_config(path, &c, false, err);
    if (st != TV_OK)
        return st;
    long pairs = c.confirm_pairs > 0 ? c.confirm_pairs : (long)train_key_default("confirm_pairs");
    int best = 0;
    for (int g = 1;; g++) {
        GenResult res;
        bool have;
        if ((st = read_result(dir, g, &res, &have, err)) != TV_OK || !have)
            break;
        int prev = best;
        best = (int)res.best;
        out->generations_done = g;
        st = confirm_if_accepted(&c, dir, g, prev, res.outcome, pairs, cb, out, err);
        if (st != TV_OK || out->interrupted)
            break;
    }
    out->best = best;
    return st;
}

/* ---- the ladder --------------------------------------------------------------------- */

bool train_is_dir(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/train.ini", dir);
    if (!exists(path))
        return false;
    gen_path(path, sizeof path, dir, 0, NULL);
    return exists(path);
}

/* The generation of an engine named gen-G, or -1. */
static int gen_of_name(const char *name)
{
    if (strncmp(name, "gen-", 4) != 0)
        return -1;
    char *end;
    long g = strtol(name + 4, &end, 10);
    return *end || end == name + 4 || g < 0 || g > 100000 ? -1 : (int)g;
}

/* The games of one store into *games (grown), engines named gen-G; slot
 * keeps pair ids apart between the stores of a generation; with max_index
 * >= 0 only the games of plan index below it. */
typedef struct {
    RatedGame *g;
    int64_t n, cap;
    int maxgen;
} GameList;

static TvStatus add_store(const char *store, int gen, int slot, int64_t max_index, GameList *L, TvError *err)
{
    StoreContents c;
    memset(&c, 0, sizeof c);
    TvStatus st = h5store_read(store, false, false, &c, err);
    for (int64_t i = 0; st == TV_OK && i < c.ngames; i++) {
        const StoredGame *sg = &c.games[i];
        if (max_index >= 0 && sg->index >= max_index)
            continue;
        int w = sg->white >= 0 && sg->white < c.nengines ? gen_of_name(c.engines[sg->white].name) : -1;
        int b = sg->black >= 0 && sg->black < c.nengines ? gen_of_name(c.engines[sg->black].name) : -1;
        if (w < 0 || b < 0) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: engines not named gen-G", store);
            break;
        }
        if (L->n == L->cap) {
            int64_t cap = L->cap ? 2 * L->cap : 1024;
            RatedGame *ng = realloc(L->g, sizeof *ng * (size_t)cap);
            if (!ng) {
                st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                break;
            }
            L->g = ng;
            L->cap = cap;
        }
        L->g[L->n++] = (RatedGame){w, b, sg->result, ((int64_t)gen * 128 + slot) * 100000000LL + sg->index / 2};
        L->maxgen = w > L->maxgen ? w : b > L->maxgen ? b : L->maxgen;
    }
    h5store_contents_free(&c);
    return st;
}

/* One rating fit of a game list: each generation that played is a player. */
typedef struct {
    int maxgen;
    int *player;     /* maxgen + 1: the generation's rating index, -1 when it did not play */
    int64_t *played; /* maxgen + 1: its games */
    int np;
    Ratings R;
    bool rated;
} GenFit;

static void gen_fit_free(GenFit *F)
{
    free(F->player);
    free(F->played);
    if (F->rated)
        ratings_free(&F->R);
    memset(F, 0, sizeof *F);
}

static TvStatus gen_fit(const GameList *L, GenFit *F, TvError *err)
{
    memset(F, 0, sizeof *F);
    F->maxgen = L->maxgen;
    F->player = malloc(sizeof *F->player * (size_t)(L->maxgen + 1));
    F->played = calloc((size_t)L->maxgen + 1, sizeof *F->played);
    RatedGame *games = malloc(sizeof *games * (size_t)(L->n ? L->n : 1));
    if (!F->player || !F->played || !games) {
        free(games);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int g = 0; g <= L->maxgen; g++)
        F->player[g] = -1;
    for (int64_t i = 0; i < L->n; i++) {
        int gg[2] = {L->g[i].white, L->g[i].black};
        for (int k = 0; k < 2; k++) {
            F->played[gg[k]]++;
            if (F->player[gg[k]] < 0)
                F->player[gg[k]] = F->np++;
        }
        games[i] = L->g[i];
        games[i].white = F->player[gg[0]];
        games[i].black = F->player[gg[1]];
    }
    TvStatus st = TV_OK;
    if (F->np >= 2) {
        st = ratings_fit(games, L->n, F->np, 0, 1, &F->R, err);
        F->rated = st == TV_OK;
    }
    free(games);
    return st;
}

/* Generation g's Elo against generation 0 in fit F with its 95% interval
 * (from the covariance of the two ratings); false when F does not rate both. */
static bool gen_fit_elo(const GenFit *F, int g, TrainRung *r)
{
    if (!F->rated || g > F->maxgen || F->player[g] < 0 || F->player[0] < 0)
        return false;
    int a = F->player[g], z = F->player[0], np = F->np;
    double d = F->R.elo[a] - F->R.elo[z];
    double v = F->R.cov[a * np + a] + F->R.cov[z * np + z] - 2 * F->R.cov[a * np + z];
    double h = STATS_Z975 * sqrt(v > 0 ? v : 0);
    r->elo = d;
    r->lo = d - h;
    r->hi = d + h;
    r->games = F->played[g];
    return true;
}

/* A confirmed rung: gen-G's own games against gen-0 rate it, with the Elo of
 * its score and the 95% half-width that `tavreli selfplay` prints for a
 * match (stats/stats.h), so its interval means what a direct match of
 * the two measures; the games against the previous best are the step beside
 * it.  Not a joint fit of all confirmation games: that assumes strength adds
 * up between versions (gen-2 over gen-0 = gen-2 over gen-1 + gen-1 over
 * gen-0), which these versions need not obey (docs/tuning.md measured a
 * joint +451 against a direct +282), and its Elo is BayesElo's draw-model
 * scale, larger than the score's when games are drawn. */
TvStatus train_rung_confirmed(const RatedGame *games, int64_t n, int g, int prev, TrainRung *r, TvError *err)
{
    PairingStats ps;
    pairing_stats(games, n, g, 0, &ps);
    r->generation = g;
    r->method = RUNG_CONFIRMATION;
    r->vs_prev = prev > 0 ? prev : -1;
    r->games = ps.wins + ps.draws + ps.losses;
    if (!r->games)
        return tv_fail(err, TV_ERR_ARG, "gen-%d: no confirmation games against gen-0", g);
    r->elo = ps.elo;
    if (isinf(ps.elo)) { /* a perfect score: the one-sided bound the games support */
        double b = stats_perfect_score_bound(r->games);
        r->elo = ps.elo > 0 ? b : -b;
        r->lo = ps.elo > 0 ? b : -INFINITY;
        r->hi = ps.elo > 0 ? INFINITY : -b;
    } else if (ps.draws == r->games) { /* all drawn: no spread, the bound of stats_all_drawn_bound */
        r->lo = -stats_all_drawn_bound(r->games);
        r->hi = -r->lo;
    } else {
        r->lo = ps.elo - ps.elo_err95;
        r->hi = ps.elo + ps.elo_err95;
    }
    r->step = r->step_err = NAN;
    if (prev > 0) {
        pairing_stats(games, n, g, prev, &ps);
        int64_t played = ps.wins + ps.draws + ps.losses;
        if (played) {
            r->step = ps.elo;
            r->step_err = ps.draws == played ? stats_all_drawn_bound(played) : ps.elo_err95;
        }
    }
    return TV_OK;
}

const char *train_rung_method(const TrainRung *r, char *buf, size_t n)
{
    switch (r->method) {
    case RUNG_REFERENCE:
        snprintf(buf, n, "reference");
        break;
    case RUNG_CONFIRMATION:
        snprintf(buf, n, "its confirmation games against gen-0 (score Elo)");
        break;
    case RUNG_SPRT_CHAIN:
        snprintf(buf, n, "SPRT games only: not confirmed, biased away from 0");
        break;
    }
    return buf;
}

const char *train_rung_step(const TrainRung *r, char *buf, size_t n)
{
    if (r->vs_prev <= 0 || isnan(r->step))
        snprintf(buf, n, "-");
    else if (isinf(r->step))
        snprintf(buf, n, "%s gen-%d", r->step > 0 ? "all won vs" : "all lost vs", r->vs_prev);
    else {
        char e[STATS_ELO_TEXT];
        snprintf(buf, n, "%s vs gen-%d", stats_fmt_elo_pm(r->step, r->step_err, e, sizeof e), r->vs_prev);
    }
    return buf;
}

static TvStatus ladder(const char *dir, TrainRung **rungs_out, int *nrungs_out, TrainLadderInfo *info, TvError *err)
{
    *rungs_out = NULL;
    *nrungs_out = 0;
    memset(info, 0, sizeof *info);
    if (!train_is_dir(dir))
        return tv_fail(err, TV_ERR_ARG, "%s is not a training folder (no train.ini and gen-0)", dir);
    GameList sprt = {0}, conf = {0};
    int *prev_of = NULL; /* per generation: the best before it (accepted ones), -1 otherwise */
    bool *confirmed = NULL;
    TvStatus st = TV_OK;
    int best = 0;
    for (int g = 1;; g++) {
        GenResult res;
        bool have;
        if ((st = read_result(dir, g, &res, &have, err)) != TV_OK || !have)
            break;
        int *p = realloc(prev_of, sizeof *p * (size_t)(g + 1));
        if (p)
            prev_of = p;
        bool *cf = realloc(confirmed, sizeof *cf * (size_t)(g + 1));
        if (cf)
            confirmed = cf;
        if (!p || !cf) {
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
            break;
        }
        info->ngen = g;
        prev_of[0] = -1;
        confirmed[0] = false;
        bool acc = !strcmp(res.outcome, "accepted");
        prev_of[g] = acc ? best : -1;
        char path[1100];
        gen_path(path, sizeof path, dir, g, "confirmed");
        confirmed[g] = acc && exists(path);
        /* the SPRT: only the pairs its decision counted (plan order), not
         * the games still in flight when it decided */
        gen_path(path, sizeof path, dir, g, "sprt.h5");
        if (exists(path) && (st = add_store(path, g, 0, 2 * (int64_t)res.pairs, &sprt, err)) != TV_OK)
            break;
        if (confirmed[g]) {
            int opp[2] = {0, best};
            for (int k = 0; k < (best ? 2 : 1) && st == TV_OK; k++) {
                confirm_path(path, sizeof path, dir, g, opp[k], "h5");
                st = add_store(path, g, 1 + opp[k], -1, &conf, err);
            }
            if (st != TV_OK)
                break;
            info->nconfirmed++;
        }
        if (acc)
            best = g;
    }
    if (st == TV_OK && info->ngen == 0)
        st = tv_fail(err, TV_ERR_ARG, "%s: no generation is complete yet", dir);
    info->sprt_games = sprt.n;
    info->confirm_games = conf.n;
    GenFit fs;
    memset(&fs, 0, sizeof fs);
    if (st == TV_OK)
        st = gen_fit(&sprt, &fs, err);
    /* the rungs: generation 0 and every accepted generation */
    TrainRung *rungs = NULL;
    int nr = 0;
    if (st == TV_OK && !(rungs = calloc((size_t)info->ngen + 1, sizeof *rungs)))
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int g = 0; st == TV_OK && g <= info->ngen; g++) {
        if (g > 0 && prev_of[g] < 0)
            continue;
        TrainRung *r = &rungs[nr++];
        r->generation = g;
        r->vs_prev = -1;
        r->step = r->step_err = NAN;
        if (g == 0) {
            r->method = RUNG_REFERENCE;
            if (info->nconfirmed) /* gen-0's confirmation games */
                for (int64_t i = 0; i < conf.n; i++)
                    r->games += conf.g[i].white == 0 || conf.g[i].black == 0;
            else
                r->games = fs.played[0];
        } else if (confirmed[g]) {
            st = train_rung_confirmed(conf.g, conf.n, g, prev_of[g], r, err);
        } else {
            r->method = RUNG_SPRT_CHAIN;
            if (!gen_fit_elo(&fs, g, r))
                r->games = 0;
        }
    }
    gen_fit_free(&fs);
    free(sprt.g);
    free(conf.g);
    free(prev_of);
    free(confirmed);
    if (st != TV_OK) {
        free(rungs);
        return st;
    }
    *rungs_out = rungs;
    *nrungs_out = nr;
    return TV_OK;
}

TvStatus train_ladder(const char *dir, TrainRung **rungs, int *nrungs, TvError *err)
{
    TrainLadderInfo info;
    return ladder(dir, rungs, nrungs, &info, err);
}

TvStatus train_ladder_info(const char *dir, TrainRung **rungs, int *nrungs, TrainLadderInfo *info, TvError *err)
{
    return ladder(dir, rungs, nrungs, info, err);
}

TvStatus train_read_generation(const char *dir, int g, TrainGeneration *gen, bool *have, TvError *err)
{
    GenResult res;
    TvStatus st = read_result(dir, g, &res, have, err);
    memset(gen, 0, sizeof *gen);
    if (st != TV_OK || !*have)
        return st;
    char path[1100];
    gen_path(path, sizeof path, dir, g, "confirmed");
    gen->generation = g;
    snprintf(gen->outcome, sizeof gen->outcome, "%s", res.outcome);
    gen->best = res.best;
    gen->llr = res.llr;
    gen->pairs = res.pairs;
    gen->confirmed = !strcmp(res.outcome, "accepted") && exists(path);
    return TV_OK;
}
