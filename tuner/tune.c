/* tune.c: `tavreli tune` as one call (tune_run: load, split, fit, write the
 * INI and the log) and the benchmark (tune_bench).  The data set is in
 * tune_data.c, the fit in tune_fit.c, the log and the INI comment in
 * tune_log.c. */
#include "tune.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "atomic_file.h"
#include "gsl_util.h"
#include "rng.h"
#include "strbuf.h"

#define NW EVAL_NWEIGHTS

/* ---- the whole command ------------------------------------------------------------ */

void tune_args_default(TuneArgs *a)
{
    memset(a, 0, sizeof *a);
    a->holdout = 0.1;
    a->seed = 1;
    a->l2_auto = true;
    a->program = "tavreli";
}

void tune_default_log_path(const char *out, char *buf, size_t n)
{
    size_t len = strlen(out);
    if (len >= 4 && !strcmp(out + len - 4, ".ini"))
        snprintf(buf, n, "%.*s.tuning.log", (int)(len - 4), out);
    else
        snprintf(buf, n, "%s.tuning.log", out);
}

void tune_run_report_free(TuneRunReport *r)
{
    free(r->summary);
    r->summary = NULL;
}

/* st, or TV_OK with out->interrupted when the caller's stop flag is set
 * (whatever failed then failed because of it). */
static TvStatus interrupted(const TuneArgs *a, TuneRunReport *out, TvStatus st)
{
    if (st != TV_OK && a->stop && *a->stop) {
        out->interrupted = true;
        return TV_OK;
    }
    return st;
}

static TvStatus tune_run_locked(const TuneArgs *a, const TuneCallbacks *cb, TuneRunReport *out, TvError *err);

/* One run at a time writes NEW.ini and its log (tv_lock_output on each:
 * of two tunes with one --out, both exited 0 and one result was lost);
 * taking them removes what killed runs left (NEW.ini.tmp-PID-N). */
TvStatus tune_run(const TuneArgs *a, const TuneCallbacks *cb, TuneRunReport *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    if (!a->out || !a->engine || a->nfiles < 1)
        return tv_fail(err, TV_ERR_ARG, "tune: expected --data FILE.h5 ... --engine START.ini --out NEW.ini");
    char logpath[sizeof out->log_path];
    if (a->log)
        snprintf(logpath, sizeof logpath, "%s", a->log);
    else
        tune_default_log_path(a->out, logpath, sizeof logpath);
    TvLock *lock = NULL, *log_lock = NULL;
    const char *advice = "wait until it ends, or give this one another --out";
    TvStatus st = tv_lock_output(a->out, advice, NULL, NULL, &lock, err);
    if (st == TV_OK && strcmp(logpath, a->out))
        st = tv_lock_output(logpath, advice, NULL, NULL, &log_lock, err);
    if (st == TV_OK)
        st = tune_run_locked(a, cb, out, err);
    tv_unlock_output(log_lock);
    tv_unlock_output(lock);
    return st;
}

static TvStatus tune_run_locked(const TuneArgs *a, const TuneCallbacks *cb, TuneRunReport *out, TvError *err)
{
    double t0 = omp_get_wtime();
    EngineVersion start;
    TvStatus st = engine_read(a->engine, &start, err);
    if (st != TV_OK)
        return st;
    TuneOptions opt;
    tune_options_default(&opt);
    st = tune_groups_parse(a->groups, opt.free, err);
    if (st != TV_OK)
        return st;
    st = tune_fixed_parse(a->fixed, opt.fixed, err);
    if (st != TV_OK)
        return st;
    opt.l2 = a->l2;
    opt.l2_auto = a->l2_auto;
    opt.bootstrap = a->bootstrap;
    opt.seed = a->seed;
    opt.max_iter = a->max_iter;
    opt.progress = cb ? cb->iteration : NULL;
    opt.user = cb ? cb->user : NULL;
    opt.stop = a->stop;
    char *logpath = out->log_path;
    if (a->log)
        snprintf(logpath, sizeof out->log_path, "%s", a->log);
    else
        tune_default_log_path(a->out, logpath, sizeof out->log_path);
    /* check the outputs can be written before the long part (without
     * creating them: a run stopped before its end leaves no empty file),
     * and that neither replaces an input (a store, the start engine) nor
     * the other output */
    const char **inputs = malloc(sizeof *inputs * (size_t)(a->nfiles + 2));
    if (!inputs)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    int ninputs = 0;
    inputs[ninputs++] = a->engine;
    for (int i = 0; i < a->nfiles; i++)
        inputs[ninputs++] = a->files[i];
    if (!strcmp(logpath, a->out))
        st = tv_fail(err, TV_ERR_ARG, "%s: the engine file and the tuning log cannot be one file (give --log another "
                                      "path)", a->out);
    for (int k = 0; k < 2 && st == TV_OK; k++) {
        const char *path = k ? logpath : a->out, *what = k ? "tuning log" : "engine file";
        TvAtomicFile probe;
        if ((st = tv_output_check(path, inputs, ninputs, what, err)) == TV_OK &&
            (st = tv_atomic_open(&probe, path, what, err)) == TV_OK)
            tv_atomic_abort(&probe);
    }
    free(inputs);
    if (st != TV_OK)
        return st;
    TuneSet all, fit, hold;
    TuneLoadCounts lc;
    st = tune_load_stoppable(a->files, a->nfiles, &start, a->mix_rules, a->stop, &all, &lc, err);
    int64_t skipped = lc.skipped;
    out->duplicate_games = lc.duplicate_games;
    out->torn_rows = lc.torn_rows;
    out->duplicate_positions = lc.duplicate_positions;
    if (st != TV_OK)
        return interrupted(a, out, st);
    out->load_seconds = omp_get_wtime() - t0;
    st = tune_split(&all, a->holdout, a->seed, &fit, &hold, err);
    int64_t nall = all.n;
    out->positions = nall;
    out->skipped = skipped;
    out->bytes_per_position = all.n ? (double)tune_set_bytes(&all) / (double)all.n : 0;
    tune_set_free(&all);
    if (st != TV_OK)
        return st;
    out->fit = fit.n;
    out->hold = hold.n;
    if (cb && cb->loaded)
        cb->loaded(out, cb->user);
    TuneResult r;
    st = tune_fit(&fit, &hold, &start.params, &opt, &r, err);
    if (st == TV_OK && a->stop && *a->stop) { /* the last moment with nothing written */
        tune_result_free(&r);
        st = TV_ERR_ARG;
    }
    if (st == TV_OK) {
        char header[2048], l2text[32];
        if (a->l2_auto)
            snprintf(l2text, sizeof l2text, "auto (%.4g)", r.l2);
        else
            snprintf(l2text, sizeof l2text, "%g", a->l2);
        size_t hl = (size_t)snprintf(header, sizeof header, "tuned by 'tavreli tune' from %s; data:", a->engine);
        for (int k = 0; k < a->nfiles && hl < sizeof header; k++)
            hl += (size_t)snprintf(header + hl, sizeof header - hl, " %s", a->files[k]);
        if (hl < sizeof header)
            snprintf(header + hl, sizeof header - hl,
                     "\ngroups %s; fixed %s; hold-out %g; seed %llu; l2 %s; bootstrap %d\n"
                     "positions %lld (fit %lld, hold-out %lld, skipped %lld, duplicates removed %lld)",
                     a->groups ? a->groups : "all", a->fixed && *a->fixed ? a->fixed : "none", a->holdout,
                     (unsigned long long)a->seed, l2text, a->bootstrap,
                     (long long)nall, (long long)fit.n, (long long)hold.n, (long long)skipped,
                     (long long)lc.duplicate_positions);
        EngineVersion ne = start;
        for (int i = 0; i < NW; i++)
            ne.params.w[i] = r.rounded[i];
        const char *base = strrchr(a->out, '/');
        base = base ? base + 1 : a->out;
        size_t bl = strlen(base);
        if (bl >= 4 && !strcmp(base + bl - 4, ".ini"))
            bl -= 4;
        if (bl == 0)
            snprintf(ne.name, sizeof ne.name, "tuned");
        else
            snprintf(ne.name, sizeof ne.name, "%.*s", (int)(bl < sizeof ne.name ? bl : sizeof ne.name - 1), base);
        /* the SPRT that decides: both engines at their own settings, from a
         * tournament INI in the current directory (paths as given here) */
        char sprt[2600];
        snprintf(sprt, sizeof sprt,
                 "run one: printf '[tournament]\\npairs = 200\\n[sprt]\\nelo0 = 0\\nelo1 = 10\\n[engine new]\\npath = %s"
                 "\\n[engine start]\\npath = %s\\n' > sprt.ini && %s selfplay sprt.ini --out results/sprt.h5 "
                 "(docs/tuning.md)",
                 a->out, a->engine, a->program ? a->program : "tavreli");
        char *comment = tune_ini_comment(&r, header, sprt);
        /* NEW.ini and its log as one group: a kill between the two once
         * left a new INI beside the old log (tv_commit_group) */
        TvAtomicFile ini, log;
        st = tv_atomic_open(&ini, a->out, "engine file", err);
        if (st == TV_OK) {
            engine_print(ini.f, &ne, comment);
            st = tv_atomic_open(&log, logpath, "tuning log", err);
            if (st == TV_OK) {
                tune_log_print(log.f, &r, header);
                if ((st = tv_atomic_finish(&ini, err)) != TV_OK)
                    tv_atomic_abort(&log);
                else if ((st = tv_atomic_finish(&log, err)) != TV_OK)
                    unlink(ini.tmp);
            } else {
                tv_atomic_abort(&ini);
            }
        }
        if (st == TV_OK) {
            const char *tmps[2] = {ini.tmp, log.tmp}, *targets[2] = {ini.target, log.target};
            st = tv_commit_group(a->out, tmps, targets, 2, err);
        }
        out->summary = comment;
        out->improved = r.improved;
        out->improvement_checked = r.improvement_checked;
        out->hold_loss0 = r.hold_loss0;
        out->hold_loss1 = r.hold_loss_rounded;
        out->cv_loss0 = r.cv_start_loss;
        out->cv_loss1 = INFINITY;
        for (int k = 0; k < r.ncv; k++)
            out->cv_loss1 = fmin(out->cv_loss1, r.cv_loss[k]);
        out->l2_auto = r.l2_auto;
        tune_result_free(&r);
    }
    tune_set_free(&fit);
    tune_set_free(&hold);
    return interrupted(a, out, st);
}

TvStatus tune_bench(int64_t n, int base, uint64_t seed, TuneBench *out, TvError *err)
{
    stats_gsl_errors_off();
    memset(out, 0, sizeof *out);
    if (n < 1 || base < 1)
        return tv_fail(err, TV_ERR_ARG, "bench tune: positive sizes needed");
    Options rules;
    memset(&rules, 0, sizeof rules);
    EvalParams start;
    eval_params_default(&start);
    Position *pos = malloc(sizeof *pos * (size_t)base);
    double *res = malloc(sizeof *res * (size_t)base);
    int32_t *gm = malloc(sizeof *gm * (size_t)base);
    TuneSet real, big;
    tune_set_init(&real);
    tune_set_init(&big);
    TvStatus st = TV_OK;
    if (!pos || !res || !gm)
        st = tv_fail(err, TV_ERR_LIMIT, "bench tune: out of memory");
    if (st == TV_OK) {
        tune_random_walks(base, seed, &rules, pos);
        for (int i = 0; i < base; i++) {
            res[i] = 0.5;
            gm[i] = i;
        }
        st = tune_add_positions(&real, pos, res, gm, base, &start, &rules, NULL, err);
        /* resolving (quiescence + trace), timed over at least a second */
        int reps = 0;
        double t0 = omp_get_wtime(), t = 0;
        while (st == TV_OK && (t < 1.0 || reps < 2)) {
            TuneSet scratch;
            tune_set_init(&scratch);
            st = tune_add_positions(&scratch, pos, res, gm, base, &start, &rules, NULL, err);
            tune_set_free(&scratch);
            reps++;
            t = omp_get_wtime() - t0;
        }
        out->resolve_pps = (double)base * reps / t;
    }
    free(pos);
    free(res);
    free(gm);
    /* labels from the model with perturbed weights, K = 0.005 */
    double truew[NW], w0[NW];
    uint64_t rs = seed ^ 0x5eed;
    for (int i = 0; i < NW; i++) {
        w0[i] = start.w[i];
        const WeightInfo *wi = eval_weight_info_of(i);
        double v = start.w[i] + ((double)tv_rng_below(&rs, 2001) / 1000.0 - 1.0) * 20;
        truew[i] = v < wi->lo ? wi->lo : v > wi->hi ? wi->hi : v;
    }
    const double K = 0.005;
    for (int64_t i = 0; st == TV_OK && i < n; i++) {
        int64_t j = (int64_t)tv_rng_below(&rs, (uint64_t)real.n);
        double pr = tune_sigmoid(K * tune_set_dot(&real, j, truew));
        double u = (double)(tv_rng_next(&rs) >> 11) / 9007199254740992.0;
        int64_t a = real.row[j], b = real.row[j + 1];
        EvalTrace t;
        memset(&t, 0, sizeof t);
        for (int64_t k = a; k < b; k++)
            t.f[real.ent[k].idx] = real.ent[k].val;
        st = tune_set_add(&big, &t, 1, u < pr ? 1.0 : 0.0, (int32_t)(i / 64), err);
    }
    tune_set_free(&real);
    if (st == TV_OK) {
        out->positions = big.n;
        out->bytes_per_position = (double)tune_set_bytes(&big) / (double)big.n;
        out->threads = omp_get_max_threads();
        double g[NW];
        int reps = 0;
        double t0 = omp_get_wtime(), t;
        do {
            tune_loss(&big, w0, K, NULL, g);
            reps++;
            t = omp_get_wtime() - t0;
        } while (t < 1.0 || reps < 3);
        out->loss_grad_pps = (double)big.n * reps / t;
        TuneOptions opt;
        tune_options_default(&opt);
        TuneResult r;
        st = tune_fit(&big, NULL, &start, &opt, &r, err);
        if (st == TV_OK) {
            out->fit_seconds = r.seconds;
            out->fit_iterations = r.iterations;
            out->fit_loss0 = r.fit_loss0;
            out->fit_loss1 = r.fit_loss1;
            tune_result_free(&r);
        }
    }
    tune_set_free(&big);
    return st;
}

TvStatus tune_bench_store(const char *path, TuneBench *out, TvError *err)
{
    EngineVersion start;
    engine_default(&start);
    const char *files[1] = {path};
    int reps = 0;
    double t0 = omp_get_wtime(), t = 0;
    TvStatus st = TV_OK;
    while (st == TV_OK && (t < 1.0 || reps < 2)) {
        TuneSet s;
        TuneLoadCounts lc;
        st = tune_load(files, 1, &start, false, &s, &lc, err);
        if (st == TV_OK)
            out->store_positions = s.n + lc.duplicate_positions + lc.skipped;
        tune_set_free(&s);
        reps++;
        t = omp_get_wtime() - t0;
    }
    if (st == TV_OK)
        out->store_pps = (double)out->store_positions * reps / t;
    return st;
}
