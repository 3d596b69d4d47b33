/* test_tune.c: the weight fitting of tuner/tune.c.
 *
 *  - eval == trace . weights: for every position the tuner stores (random
 *    walks from the start position, resolved to quiescence leaves), its
 *    sparse dot product with the START weights equals eval_position on the
 *    leaf, negated when the leaf's side to move differs;
 *  - the analytic gradient of the loss matches central finite differences;
 *  - synthetic recovery: real feature vectors, results drawn from
 *    sigmoid(K * true_weights . features); the fit comes back within 4
 *    standard errors of the truth, and over 40 trials the stated 95%
 *    intervals (fit +- 1.96 se) contain the truth for 85-100% of the
 *    (trial, weight) pairs; K is recovered within 10% by tune_fit_k;
 *  - the objective never increases across accepted steps (recorded);
 *  - the fit converges on the bounds: truths beyond two upper bounds end on
 *    them, the projected gradient is below its tolerance, no free weight
 *    off its bound can be moved to lower the loss, and a fit from another
 *    start ends at the same loss and weights;
 *  - a fit with the same data and seed (split, bootstrap) is identical;
 *  - --l2 auto: the strength chosen has the lowest cross-validated loss,
 *    below the start's; held-out games of the fitted model make the fit an
 *    improvement, held-out games of the start's model make it none (the
 *    start weights are kept and the summary says NO IMPROVEMENT); the cv
 *    table survives the log;
 *  - the tuning log read back (tune_log_read) gives every record written
 *    (tune_write_log), to the precision written; the reader's errors;
 *  - errors: unknown group (lists the known ones), unreadable store, no
 *    files, empty fit set, bad hold-out fraction;
 *  - a planted pair of nearly collinear features: their estimates'
 *    correlation is reported (summary, log), the independent weight's not;
 *  - a fixed weight keeps its start value, the others converge; bad names
 *    for fixed are refused.
 * Sizes are small enough for sanitizer builds (a few seconds). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval.h"
#include "rng.h"
#include "search.h"
#include "tune.h"

#define NW EVAL_NWEIGHTS
#define NBASE 1200

typedef struct {
    Position *pos;   /* NBASE random-walk positions */
    TuneSet base;    /* their resolved feature vectors (result 0.5, game i) */
    EvalParams start;
    Options rules;
} Fixture;

static double unif(uint64_t *s) { return (double)(tv_rng_next(s) >> 11) / 9007199254740992.0; }

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    eval_params_default(&f->start);
    memset(&f->rules, 0, sizeof f->rules);
    f->pos = malloc(sizeof *f->pos * NBASE);
    assert_non_null(f->pos);
    tune_random_walks(NBASE, 12345, &f->rules, f->pos);
    double res[NBASE];
    int32_t gm[NBASE];
    for (int i = 0; i < NBASE; i++) {
        res[i] = 0.5;
        gm[i] = i;
    }
    tune_set_init(&f->base);
    TvError err;
    int64_t skipped = 0;
    assert_int_equal(tune_add_positions(&f->base, f->pos, res, gm, NBASE, &f->start, &f->rules, &skipped, &err),
                     TV_OK);
    assert_true(f->base.n > NBASE * 9 / 10);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    tune_set_free(&f->base);
    free(f->pos);
    free(f);
    return 0;
}

/* n samples: features of random base positions, results drawn from the model
 * (win with probability sigmoid(K w.f), else loss); 8 positions per game. */
static void synth(const TuneSet *base, int64_t n, const double *w, double K, uint64_t seed, TuneSet *out)
{
    uint64_t s = seed;
    tune_set_init(out);
    TvError err;
    for (int64_t i = 0; i < n; i++) {
        int64_t j = (int64_t)(tv_rng_next(&s) % (uint64_t)base->n);
        double p = 1.0 / (1.0 + exp(-K * tune_set_dot(base, j, w)));
        EvalTrace t;
        memset(&t, 0, sizeof t);
        for (int64_t k = base->row[j]; k < base->row[j + 1]; k++)
            t.f[base->ent[k].idx] = base->ent[k].val;
        assert_int_equal(tune_set_add(out, &t, 1, unif(&s) < p ? 1.0 : 0.0, (int32_t)(i / 8), &err), TV_OK);
    }
}

static void start_weights(const Fixture *f, double *w)
{
    for (int i = 0; i < NW; i++)
        w[i] = f->start.w[i];
}

/* ---- eval == trace . weights -------------------------------------------------- */

static void test_trace_dot(void **state)
{
    Fixture *f = *state;
    SearchSettings set;
    search_settings_default(&set);
    set.tt_mb = 1;
    SearchContext *ctx = search_alloc(&f->start, &f->rules, &set);
    assert_non_null(ctx);
    double w[NW];
    start_weights(f, w);
    int64_t k = 0, flipped = 0;
    for (int i = 0; i < NBASE; i++) {
        Position leaf;
        int q;
        search_quiet(ctx, &f->pos[i], &leaf, &q);
        if (q >= SCORE_MATE_BOUND || q <= -SCORE_MATE_BOUND)
            continue; /* the tuner skips these */
        int e = eval_position(&leaf, &f->rules, &f->start, NULL);
        int sign = leaf.side == f->pos[i].side ? 1 : -1;
        flipped += sign < 0;
        double d = tune_set_dot(&f->base, k, w);
        if (d != (double)(sign * e))
            fail_msg("position %d: tuner dot %g, eval_position on the leaf %d (sign %d)", i, d, e, sign);
        k++;
    }
    assert_int_equal(k, f->base.n);
    assert_true(flipped > 0); /* both cases occur */
    search_free(ctx);
    /* memory: well under 200 bytes per position */
    double bpp = (double)tune_set_bytes(&f->base) / (double)f->base.n;
    print_message("stored feature vectors: %.1f bytes/position\n", bpp);
    assert_true(bpp < 200);
}

/* ---- gradient --------------------------------------------------------------------- */

static void test_gradient(void **state)
{
    Fixture *f = *state;
    double w[NW], g[NW];
    start_weights(f, w);
    TuneSet s;
    synth(&f->base, 4000, w, 0.004, 7, &s);
    uint64_t r = 99;
    for (int i = 0; i < NW; i++)
        w[i] += (unif(&r) - 0.5) * 40;
    const double K = 0.004;
    float gw[1000];
    for (int i = 0; i < 1000; i++)
        gw[i] = (float)(i % 3);
    for (int weighted = 0; weighted < 2; weighted++) {
        tune_loss(&s, w, K, weighted ? gw : NULL, g);
        for (int i = 0; i < NW; i++) {
            double h = 1e-3, wp[NW], wm[NW];
            memcpy(wp, w, sizeof wp);
            memcpy(wm, w, sizeof wm);
            wp[i] += h;
            wm[i] -= h;
            double fd = (tune_loss(&s, wp, K, weighted ? gw : NULL, NULL) -
                         tune_loss(&s, wm, K, weighted ? gw : NULL, NULL)) / (2 * h);
            if (fabs(fd - g[i]) > 1e-6 * fabs(g[i]) + 1e-11)
                fail_msg("weight %d: analytic %.10g, finite difference %.10g", i, g[i], fd);
        }
    }
    tune_set_free(&s);
}

/* ---- recovery and coverage ---------------------------------------------------------- */

/* The true weights: the defaults moved by up to +-20% (+-15 at least). */
static void true_weights(const Fixture *f, uint64_t seed, double *w)
{
    uint64_t r = seed;
    for (int i = 0; i < NW; i++) {
        double d = fabs((double)f->start.w[i]) * 0.2;
        if (d < 15)
            d = 15;
        w[i] = f->start.w[i] + (unif(&r) * 2 - 1) * d;
    }
}

static void test_recovery_coverage(void **state)
{
    Fixture *f = *state;
    const double K = 0.004;
    const char *groups = "material,mobility,centre,wizard";
    TuneOptions opt;
    tune_options_default(&opt);
    TvError err;
    assert_int_equal(tune_groups_parse(groups, opt.free, &err), TV_OK);
    opt.fixed_k = K;
    double truth[NW];
    true_weights(f, 5, truth);
    /* non-fitted weights are at the truth (= the start) */
    EvalParams start = f->start;
    for (int i = 0; i < NW; i++)
        if (!opt.free[i])
            truth[i] = start.w[i];
    const int trials = 40;
    int covered = 0, total = 0, worst_i = -1;
    double worst = 0;
    for (int t = 0; t < trials; t++) {
        TuneSet s;
        synth(&f->base, 20000, truth, K, 1000 + (uint64_t)t, &s);
        TuneResult r;
        assert_int_equal(tune_fit(&s, NULL, &start, &opt, &r, &err), TV_OK);
        /* positions in which each feature occurs: the normal approximation
         * behind a standard error needs data (a Helgi on top is rare in these
         * walks, and its value then sits far out on the sigmoid's flat tail) */
        int64_t seen[NW] = {0};
        for (int64_t e = 0; e < s.nnz; e++)
            seen[s.ent[e].idx]++;
        for (int i = 0; i < NW; i++) {
            if (!r.free[i] || r.at_bound[i] || !isfinite(r.se[i]))
                continue;
            assert_true(r.se[i] > 0);
            double z = fabs(r.fitted[i] - truth[i]) / r.se[i];
            covered += z <= 1.959964;
            total++;
            if (z > worst) {
                worst = z;
                worst_i = i;
            }
            if (t == 0 && z > 4 && seen[i] >= 1000)
                fail_msg("weight %d: fitted %g, truth %g, se %g (%.1f se off)", i, r.fitted[i], truth[i], r.se[i], z);
        }
        tune_result_free(&r);
        tune_set_free(&s);
    }
    double cov = (double)covered / total;
    print_message("coverage of the 95%% intervals: %d / %d = %.1f%% (worst weight %d at %.2f se)\n", covered, total,
                  100 * cov, worst_i, worst);
    assert_true(total >= trials * 10);
    assert_true(cov >= 0.85 && cov <= 1.0);
}

static void test_fit_k(void **state)
{
    Fixture *f = *state;
    double truth[NW];
    true_weights(f, 5, truth);
    TuneSet s;
    synth(&f->base, 40000, truth, 0.004, 77, &s);
    double K;
    TvError err;
    assert_int_equal(tune_fit_k(&s, truth, &K, &err), TV_OK);
    print_message("K: fitted %.6f, truth 0.004\n", K);
    assert_true(fabs(K - 0.004) < 0.0004);
    tune_set_free(&s);
}

/* ---- convergence on the bounds ---------------------------------------------------- */

/* Truths beyond the upper bounds of two mobility weights: the fit must end
 * on those bounds, converged (projected gradient below its tolerance), and
 * no single free weight off its bound can be moved by 0.25 either way
 * (within its bounds) to lower the objective. */
static void test_converges_on_bounds(void **state)
{
    Fixture *f = *state;
    TuneOptions opt;
    tune_options_default(&opt);
    TvError err;
    assert_int_equal(tune_groups_parse("mobility,centre", opt.free, &err), TV_OK);
    opt.fixed_k = 0.004;
    double truth[NW];
    start_weights(f, truth);
    int m0 = -1;
    for (int i = 0; i < NW; i++) {
        char name[96];
        eval_weight_element_name(i, name, sizeof name);
        if (!strcmp(name, "mobility[0]"))
            m0 = i;
    }
    assert_true(m0 >= 0);
    const WeightInfo *wi = eval_weight_info_of(m0);
    truth[m0] = wi->hi + 60;
    truth[m0 + 1] = wi->hi + 60;
    TuneSet s;
    synth(&f->base, 20000, truth, 0.004, 99, &s);
    TuneResult r;
    assert_int_equal(tune_fit(&s, NULL, &f->start, &opt, &r, &err), TV_OK);
    print_message("stop: %s; projected gradient %g, tolerance %g, %d iterations\n", r.stop_reason, r.pgnorm, r.pgtol,
                  r.iterations);
    assert_non_null(strstr(r.stop_reason, "converged"));
    assert_true(r.pgnorm <= r.pgtol);
    assert_true(r.at_bound[m0] && r.at_bound[m0 + 1]);
    assert_true(r.fitted[m0] == wi->hi && r.rounded[m0] == (int)wi->hi);
    /* the summary gives it no '+- 0' (issue 38): it says no +- applies */
    {
        char name[96], want[200], *c = tune_ini_comment(&r, "header", "sprt");
        eval_weight_element_name(m0, name, sizeof name);
        snprintf(want, sizeof want, "%s: ", name);
        const char *line = c ? strstr(c, want) : NULL;
        assert_non_null(line);
        char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char one[400];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), line);
        print_message("%s\n", one);
        assert_non_null(strstr(one, "held at its bound"));
        assert_null(strstr(one, "+- 0"));
        free(c);
    }
    double w[NW];
    memcpy(w, r.fitted, sizeof w);
    double f0 = tune_loss(&s, w, r.K, NULL, NULL);
    for (int i = 0; i < NW; i++) {
        if (!r.free[i] || r.at_bound[i])
            continue;
        const WeightInfo *wj = eval_weight_info_of(i);
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double v = r.fitted[i] + 0.25 * sgn;
            if (v < wj->lo || v > wj->hi)
                continue;
            w[i] = v;
            double f1 = tune_loss(&s, w, r.K, NULL, NULL);
            if (f1 < f0 - 1e-12)
                fail_msg("weight %d: %g -> %g lowers the loss %.15g -> %.15g", i, r.fitted[i], v, f0, f1);
            w[i] = r.fitted[i];
        }
    }
    /* from another start (every free weight moved by up to 30%) the fit
     * ends at the same minimum: the same loss, the same weights */
    EvalParams other = f->start;
    uint64_t rs = 77;
    for (int i = 0; i < NW; i++)
        if (r.free[i]) {
            const WeightInfo *wj = eval_weight_info_of(i);
            double v = other.w[i] + (unif(&rs) * 2 - 1) * fmax(20, 0.3 * fabs((double)other.w[i]));
            other.w[i] = (int)fmin(wj->hi, fmax(wj->lo, v));
        }
    TuneResult r2;
    assert_int_equal(tune_fit(&s, NULL, &other, &opt, &r2, &err), TV_OK);
    assert_non_null(strstr(r2.stop_reason, "converged"));
    double f2 = tune_loss(&s, r2.fitted, r2.K, NULL, NULL);
    print_message("from another start: loss %.12f (first %.12f)\n", f2, f0);
    assert_true(fabs(f2 - f0) <= 1e-9 * f0);
    for (int i = 0; i < NW; i++)
        if (r.free[i] && !r.at_bound[i] && isfinite(r.se[i]) && r.se[i] > 0 &&
            fabs(r2.fitted[i] - r.fitted[i]) > 0.05 * r.se[i])
            fail_msg("weight %d: %g from the start, %g from another start (se %g)", i, r.fitted[i], r2.fitted[i],
                     r.se[i]);
    tune_result_free(&r2);
    tune_result_free(&r);
    tune_set_free(&s);
}

/* ---- monotone loss, reproducibility ---------------------------------------------------- */

typedef struct {
    int calls;
    double last;
    int increases;
} Recorder;

static void record(const TuneIteration *it, void *user)
{
    Recorder *r = user;
    if (r->calls && it->objective > r->last)
        r->increases++;
    r->last = it->objective;
    r->calls++;
}

static void test_monotone_and_reproducible(void **state)
{
    Fixture *f = *state;
    double truth[NW];
    true_weights(f, 11, truth);
    TuneSet all, fit, hold, fit2, hold2;
    synth(&f->base, 30000, truth, 0.004, 3, &all);
    TvError err;
    assert_int_equal(tune_split(&all, 0.2, 42, &fit, &hold, &err), TV_OK);
    assert_int_equal(tune_split(&all, 0.2, 42, &fit2, &hold2, &err), TV_OK);
    assert_true(hold.n > 0 && fit.n > 0 && fit.n + hold.n == all.n);
    assert_int_equal(fit.n, fit2.n);
    assert_memory_equal(fit.game, fit2.game, sizeof *fit.game * (size_t)fit.n);
    /* whole games: no game on both sides */
    uint8_t *side = calloc((size_t)all.ngames, 1);
    for (int64_t i = 0; i < fit.n; i++)
        side[fit.game[i]] |= 1;
    for (int64_t i = 0; i < hold.n; i++)
        side[hold.game[i]] |= 2;
    for (int32_t g = 0; g < all.ngames; g++)
        assert_true(side[g] != 3);
    free(side);

    TuneOptions opt;
    tune_options_default(&opt);
    opt.l2 = 1e-7;
    opt.bootstrap = 3;
    opt.seed = 9;
    Recorder rec = {0, 0, 0};
    opt.progress = record;
    opt.user = &rec;
    TuneResult a, b;
    assert_int_equal(tune_fit(&fit, &hold, &f->start, &opt, &a, &err), TV_OK);
    assert_int_equal(rec.calls, a.nhistory);
    assert_true(a.nhistory >= 2);
    for (int k = 1; k < a.nhistory; k++)
        if (a.history[k].objective > a.history[k - 1].objective)
            fail_msg("objective rose at iteration %d: %.12g -> %.12g", k, a.history[k - 1].objective,
                     a.history[k].objective);
    assert_int_equal(rec.increases, 0);
    assert_true(a.fit_loss1 < a.fit_loss0);
    assert_true(isfinite(a.hold_loss0) && isfinite(a.hold_loss1));
    assert_int_equal(a.boot_done, 3);
    opt.progress = NULL;
    assert_int_equal(tune_fit(&fit2, &hold2, &f->start, &opt, &b, &err), TV_OK);
    assert_memory_equal(a.fitted, b.fitted, sizeof a.fitted);
    assert_memory_equal(a.rounded, b.rounded, sizeof a.rounded);
    assert_memory_equal(a.se, b.se, sizeof a.se);
    assert_memory_equal(a.boot_sd, b.boot_sd, sizeof a.boot_sd);
    assert_int_equal(a.nhistory, b.nhistory);
    assert_memory_equal(a.history, b.history, sizeof *a.history * (size_t)a.nhistory);
    /* the INI comment carries a line per fitted weight */
    char *c = tune_ini_comment(&a, "hdr", NULL);
    assert_non_null(c);
    assert_non_null(strstr(c, "tempo: 10 -> "));
    free(c);
    /* the weight path: the start, then each iteration's weights, ending at
     * the fitted ones; written to the log as 'path N V...' lines */
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        assert_true(fabs(a.history[0].w[i] - f->start.w[i]) < 1e-3);
        assert_true(fabs(a.history[a.nhistory - 1].w[i] - a.fitted[i]) <= 1e-4 * (1 + fabs(a.fitted[i])));
    }
    char logpath[] = "/tmp/tavreli_tune_log_XXXXXX";
    int fd = mkstemp(logpath);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tune_write_log(logpath, &a, "test", &err), TV_OK);
    FILE *lf = fopen(logpath, "r");
    assert_non_null(lf);
    char line[4096];
    int paths = 0;
    while (fgets(line, sizeof line, lf))
        paths += !strncmp(line, "path ", 5);
    fclose(lf);
    remove(logpath);
    assert_int_equal(paths, a.nhistory);
    tune_result_free(&a);
    tune_result_free(&b);
    tune_set_free(&all);
    tune_set_free(&fit);
    tune_set_free(&hold);
    tune_set_free(&fit2);
    tune_set_free(&hold2);
}

/* ---- the tuning log: written and read back ---------------------------------------- */

/* a equals b to a relative precision rel (exactly when b is 0). */
static bool close_to(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

/* Writes r's tuning log, reads it back with tune_log_read and compares every
 * record with r, to the precision the writer prints (iter losses %.10g, path
 * values %.6g, START %g of an integer, NEW exact, STDERR %.4g). */
static void check_log_round_trip(const TuneResult *r)
{
    char path[] = "/tmp/tavreli_tune_rt_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    TvError err;
    assert_int_equal(tune_write_log(path, r, "round trip\nsecond header line", &err), TV_OK);
    TuneLog log;
    TvStatus st = tune_log_read(path, &log, &err);
    remove(path);
    if (st != TV_OK)
        fail_msg("tune_log_read: %s", err.msg);
    assert_int_equal(log.niters, r->nhistory);
    assert_int_equal(log.npaths, r->nhistory);
    for (int k = 0; k < r->nhistory; k++) {
        const TuneIteration *h = &r->history[k];
        assert_int_equal(log.iters[k].iter, h->iter);
        assert_true(close_to(log.iters[k].fit_loss, h->fit_loss, 1e-9));
        if (isnan(h->holdout_loss))
            assert_true(isnan(log.iters[k].holdout_loss));
        else
            assert_true(close_to(log.iters[k].holdout_loss, h->holdout_loss, 1e-9));
        assert_int_equal(log.paths[k].iter, h->iter);
        assert_int_equal(log.paths[k].n, NW);
        for (int i = 0; i < NW; i++)
            if (!close_to(log.paths[k].w[i], h->w[i], 1e-5))
                fail_msg("path %d weight %d: read %.9g, wrote %.9g", h->iter, i, log.paths[k].w[i], h->w[i]);
    }
    int j = 0;
    for (int i = 0; i < NW; i++) {
        if (!r->free[i])
            continue;
        assert_true(j < log.nweights);
        const TuneLogWeight *w = &log.weights[j++];
        char name[96];
        eval_weight_element_name(i, name, sizeof name);
        assert_string_equal(w->name, name);
        assert_true(w->start == r->start[i]);
        assert_true(w->now == r->rounded[i]);
        double se = r->se[i]; /* one error: the clustered one, also with a bootstrap */
        if (!close_to(w->se, isfinite(se) ? se : 0.0, 1e-3))
            fail_msg("weight %s: stderr read %g, wrote %g", name, w->se, se);
    }
    assert_int_equal(j, log.nweights);
    assert_int_equal(log.nweights, r->nfree);
    assert_int_equal(log.ncorr, r->ncorr);
    for (int k = 0; k < r->ncorr; k++) {
        char na[96], nb[96];
        assert_string_equal(log.corr[k].a, eval_weight_element_name(r->corr[k].a, na, sizeof na));
        assert_string_equal(log.corr[k].b, eval_weight_element_name(r->corr[k].b, nb, sizeof nb));
        assert_true(close_to(log.corr[k].r, r->corr[k].r, 1e-3));
    }
    tune_log_free(&log);
    assert_null(log.iters);
    assert_int_equal(log.niters + log.npaths + log.nweights, 0);
}

/* Writes text to a new temporary file named into path (a mkstemp template). */
static void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* tune_log_read on text: the status, and (when not OK) that the message
 * holds want. */
static void check_log_text(const char *text, TvStatus want_st, const char *want, int want_line)
{
    char path[] = "/tmp/tavreli_tune_log_text_XXXXXX";
    write_temp(path, text);
    TuneLog log;
    TvError err;
    memset(&err, 0, sizeof err);
    TvStatus st = tune_log_read(path, &log, &err);
    if (st != want_st)
        fail_msg("'%s': status %d, expected %d (%s)", text, (int)st, (int)want_st, err.msg);
    if (st != TV_OK) {
        if (!strstr(err.msg, want))
            fail_msg("'%s': message '%s' lacks '%s'", text, err.msg, want);
        if (want_line > 0) {
            char where[128];
            snprintf(where, sizeof where, "%s:%d: ", path, want_line);
            assert_int_equal(strncmp(err.msg, where, strlen(where)), 0);
            assert_string_equal(err.file, path);
            assert_int_equal(err.line, want_line);
        }
        assert_null(log.iters);
        assert_null(log.weights);
    }
    tune_log_free(&log);
    remove(path);
}

static void test_log_round_trip(void **state)
{
    Fixture *f = *state;
    double truth[NW];
    true_weights(f, 21, truth);
    TuneSet all, fit, hold;
    synth(&f->base, 6000, truth, 0.004, 17, &all);
    TvError err;
    assert_int_equal(tune_split(&all, 0.2, 3, &fit, &hold, &err), TV_OK);
    TuneOptions opt;
    tune_options_default(&opt);
    assert_int_equal(tune_groups_parse("material,tower", opt.free, &err), TV_OK);
    opt.max_iter = 5;
    TuneResult r;
    assert_int_equal(tune_fit(&fit, &hold, &f->start, &opt, &r, &err), TV_OK);
    assert_true(r.nhistory >= 2 && r.nfree > 0 && r.nfree < NW);
    check_log_round_trip(&r);
    /* no hold-out loss (nan), a bootstrap (STDERR stays the clustered
     * error: one ±), and an infinite error (written as 0) */
    for (int k = 0; k < r.nhistory; k++)
        r.history[k].holdout_loss = NAN;
    r.boot_done = 2;
    bool first = true;
    for (int i = 0; i < NW; i++)
        if (r.free[i]) {
            r.boot_sd[i] = 0.25 * (i + 1);
            if (first)
                r.se[i] = INFINITY;
            first = false;
        }
    check_log_round_trip(&r);
    tune_result_free(&r);
    tune_set_free(&all);
    tune_set_free(&fit);
    tune_set_free(&hold);

    /* the reader's errors */
    check_log_text("iter 1 fit_loss 0.1 holdout_loss 0.2\n\nweight tempo 10 twelve 1\n", TV_ERR_PARSE,
                   "expected 'iter N fit_loss X holdout_loss Y', 'path N V...', 'weight NAME START NEW STDERR', "
                   "'corr NAME1 NAME2 R', 'group NAME N COND SPREAD W:C...' or 'cv L2 LOSS SE'",
                   3);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ncorr tempo top_value[1] 1.5\n", TV_ERR_PARSE,
                   "corr: R must be a number from -1 to 1", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ncv -1 0.2 0.01\n", TV_ERR_PARSE, "cv: L2 must be", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ncv start 0.2 -0.01\n", TV_ERR_PARSE, "cv: L2 must be", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ngroup material 1 3 2 tempo:0.5\n", TV_ERR_PARSE,
                   "group: N must be 2 or more, COND a number >= 1", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ngroup material 2 0.5 2 tempo:0.5\n", TV_ERR_PARSE,
                   "group: N must be 2 or more, COND a number >= 1", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ngroup material 2 3 2 tempo:1.5\n", TV_ERR_PARSE,
                   "group: each W:C must be a weight's name and a coefficient from -1 to 1", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ngroup material 2 3 2 tempo\n", TV_ERR_PARSE,
                   "group: each W:C must be", 2);
    check_log_text("iter 0 fit_loss 0.1 holdout_loss 0.2\ngroup material 2 3 2 a:0.1 b:-0.2\n", TV_OK, "", 0);
    check_log_text("# comment\niter 2 fit_loss inf holdout_loss 0.2\n", TV_ERR_PARSE,
                   "fit_loss must be a finite number", 2);
    check_log_text("weight a 1 2 -1\n", TV_ERR_PARSE, "weight: START and NEW must be numbers and STDERR a number >= 0",
                   1);
    check_log_text("weight a 1 2 3\nweight b 1 2 3\nweight a 1 2 3 # again\n", TV_ERR_PARSE,
                   "weight 'a' is given twice", 3);
    check_log_text("# only comments\n\npath 0 1 2 3\n", TV_ERR_PARSE, "no 'iter' or 'weight' records: not a tuning log",
                   0);
    /* a path line is read up to its first word that is not a number */
    check_log_text("iter 0 fit_loss 0.1 holdout_loss nan\npath 0 1 2 x 3\n", TV_OK, "", 0);
    TuneLog log;
    assert_int_equal(tune_log_read("/nonexistent/dir/x.log", &log, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot read the tuning log /nonexistent/dir/x.log"));
}

/* ---- errors ---------------------------------------------------------------------------- */

static void test_errors(void **state)
{
    Fixture *f = *state;
    TvError err;
    bool mask[NW];
    assert_int_equal(tune_groups_parse("tower,bogus", mask, &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "unknown group 'bogus'"));
    assert_non_null(strstr(err.msg, "material, tower, combatant, mobility, wizard, centre"));
    assert_int_equal(tune_groups_parse("tower,material", mask, &err), TV_OK);
    assert_true(mask[EW_tower_height] && mask[EW_top_value] && !mask[EW_tempo]);

    EngineVersion e;
    engine_default(&e);
    TuneSet s;
    const char *missing[] = {"/nonexistent/dir/x.h5"};
    assert_int_not_equal(tune_load(missing, 1, &e, false, &s, NULL, &err), TV_OK);
    assert_int_equal(tune_load(missing, 0, &e, false, &s, NULL, &err), TV_ERR_ARG);
    char path[] = "/tmp/test_tune_notstore_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("not an HDF5 file\n", fp);
    fclose(fp);
    const char *bad[] = {path};
    assert_int_not_equal(tune_load(bad, 1, &e, false, &s, NULL, &err), TV_OK);
    print_message("not a store: %s\n", err.msg);
    remove(path);

    TuneSet empty, fit, hold;
    tune_set_init(&empty);
    TuneOptions opt;
    tune_options_default(&opt);
    TuneResult r;
    assert_int_equal(tune_fit(&empty, NULL, &f->start, &opt, &r, &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "no positions"));
    assert_int_equal(tune_split(&f->base, 1.5, 1, &fit, &hold, &err), TV_ERR_ARG);
    EvalTrace t;
    memset(&t, 0, sizeof t);
    assert_int_equal(tune_set_add(&empty, &t, 1, 0.3, 0, &err), TV_ERR_ARG);
    t.f[0] = 40000;
    assert_int_equal(tune_set_add(&empty, &t, 1, 1.0, 0, &err), TV_ERR_LIMIT);
    tune_set_free(&empty);
}

/* ---- --l2 auto, and whether the fit beats the start -------------------------------- */

/* Fit games labelled by a model far from the start: cross-validation picks
 * a strength whose validation loss is the lowest of the grid and below the
 * start's; held-out games labelled by the same model make it an
 * improvement, held-out games labelled by the start weights' model make it
 * none: then the weights written are the start's and the summary says so. */
static void test_l2_auto_and_improvement(void **state)
{
    Fixture *f = *state;
    double truth[NW], startw[NW];
    true_weights(f, 31, truth);
    start_weights(f, startw);
    const double K = 0.004;
    TuneSet fit, hold_same, hold_start;
    synth(&f->base, 12000, truth, K, 41, &fit);
    synth(&f->base, 3000, truth, K, 42, &hold_same);
    synth(&f->base, 3000, startw, K, 43, &hold_start);
    TuneOptions opt;
    tune_options_default(&opt);
    TvError err;
    assert_int_equal(tune_groups_parse("material,mobility,centre", opt.free, &err), TV_OK);
    opt.fixed_k = K;
    opt.l2_auto = true;
    opt.seed = 5;
    TuneResult a, b;
    assert_int_equal(tune_fit(&fit, &hold_same, &f->start, &opt, &a, &err), TV_OK);
    assert_true(a.l2_auto && a.ncv == TUNE_CV_GRID && a.cv_folds == 5);
    int best = 0;
    for (int k = 0; k < a.ncv; k++) {
        assert_true(isfinite(a.cv_loss[k]) && a.cv_se[k] >= 0);
        if (a.cv_loss[k] < a.cv_loss[best])
            best = k;
    }
    assert_true(a.l2 == a.cv_l2[best]);
    assert_true(a.cv_loss[best] < a.cv_start_loss);
    assert_true(a.improvement_checked && a.improved);
    assert_true(a.hold_loss_rounded < a.hold_loss0);
    int moved = 0;
    for (int i = 0; i < NW; i++)
        moved += a.rounded[i] != f->start.w[i];
    assert_true(moved > 0);
    assert_int_equal(tune_fit(&fit, &hold_start, &f->start, &opt, &b, &err), TV_OK);
    assert_true(b.improvement_checked && !b.improved);
    assert_true(b.hold_loss_rounded >= b.hold_loss0);
    for (int i = 0; i < NW; i++)
        assert_int_equal(b.rounded[i], f->start.w[i]);
    char *c = tune_ini_comment(&b, NULL, NULL);
    assert_non_null(c);
    assert_non_null(strstr(c, "NO IMPROVEMENT"));
    assert_non_null(strstr(c, "not adopted"));
    free(c);
    /* the cross-validation table reaches the log and back */
    char path[] = "/tmp/tavreli_tune_cv_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tune_write_log(path, &a, NULL, &err), TV_OK);
    TuneLog log;
    assert_int_equal(tune_log_read(path, &log, &err), TV_OK);
    remove(path);
    assert_int_equal(log.ncv, a.ncv + 1);
    assert_true(isinf(log.cv[0].l2) && close_to(log.cv[0].loss, a.cv_start_loss, 1e-9));
    for (int k = 0; k < a.ncv; k++)
        assert_true(close_to(log.cv[k + 1].loss, a.cv_loss[k], 1e-9));
    tune_log_free(&log);
    tune_result_free(&a);
    tune_result_free(&b);
    tune_set_free(&fit);
    tune_set_free(&hold_same);
    tune_set_free(&hold_start);
}

/* The index of weight element `name` (tune_fixed_parse names exactly one). */
static int weight_index(const char *name)
{
    bool m[NW];
    TvError err;
    assert_int_equal(tune_fixed_parse(name, m, &err), TV_OK);
    int at = -1, n = 0;
    for (int i = 0; i < NW; i++)
        if (m[i]) {
            at = i;
            n++;
        }
    assert_int_equal(n, 1);
    return at;
}

/* A planted pair: feature b is feature a plus rare noise, c independent;
 * results drawn from the model (truth = start + 40), 400 games of 10
 * positions.  The set and the three indices. */
static void planted_pair(TuneSet *s, const EvalParams *start, int *a, int *b, int *c, double *truth)
{
    *a = weight_index("top_value[1]");
    *b = weight_index("top_value[3]");
    *c = weight_index("tempo");
    for (int i = 0; i < NW; i++)
        truth[i] = start->w[i];
    truth[*a] += 40;
    truth[*b] += 40;
    truth[*c] += 40;
    tune_set_init(s);
    uint64_t rs = 77;
    TvError err;
    for (int g = 0; g < 400; g++)
        for (int k = 0; k < 10; k++) {
            EvalTrace t;
            memset(&t, 0, sizeof t);
            t.f[*a] = (int)tv_rng_below(&rs, 3) - 1;
            t.f[*b] = t.f[*a] + (tv_rng_below(&rs, 10) == 0 ? (int)tv_rng_below(&rs, 3) - 1 : 0);
            t.f[*c] = (int)tv_rng_below(&rs, 5) - 2;
            double e = truth[*a] * t.f[*a] + truth[*b] * t.f[*b] + truth[*c] * t.f[*c];
            double y = unif(&rs) < tune_sigmoid(0.003 * e) ? 1.0 : 0.0;
            assert_int_equal(tune_set_add(s, &t, 1, y, g, &err), TV_OK);
        }
}

/* Nearly collinear features: their estimates are strongly (negatively)
 * correlated and the summary and the log say so; the independent one is
 * in no pair. */
static void test_correlated_pair(void **state)
{
    Fixture *f = *state;
    TuneSet s;
    int a, b, c;
    double truth[NW];
    planted_pair(&s, &f->start, &a, &b, &c, truth);
    TuneOptions opt;
    tune_options_default(&opt);
    opt.fixed_k = 0.003;
    TuneResult r;
    TvError err;
    if (tune_fit(&s, NULL, &f->start, &opt, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(r.nfree, 3);
    assert_int_equal(r.ncorr, 1);
    assert_int_equal(r.ncorr_all, 1);
    assert_int_equal(r.corr[0].a, a < b ? a : b);
    assert_int_equal(r.corr[0].b, a < b ? b : a);
    print_message("planted pair: r = %.3f\n", r.corr[0].r);
    assert_true(r.corr[0].r < -TUNE_CORR_REPORT);
    char *sum = tune_ini_comment(&r, NULL, NULL);
    assert_non_null(strstr(sum, "strongly correlated estimates (|r| > 0.8"));
    assert_non_null(strstr(sum, "  top_value[1] top_value[3] -0."));
    free(sum);
    char path[] = "/tmp/tavreli_tune_corr_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tune_write_log(path, &r, NULL, &err), TV_OK);
    TuneLog log;
    assert_int_equal(tune_log_read(path, &log, &err), TV_OK);
    assert_int_equal(log.ncorr, 1);
    assert_string_equal(log.corr[0].a, "top_value[1]");
    assert_string_equal(log.corr[0].b, "top_value[3]");
    tune_log_free(&log);
    remove(path);
    tune_result_free(&r);
    tune_set_free(&s);
}

/* A strongly correlated pair of weights the data see in too few games:
 * both are poorly determined and kept at their start, so the pair is not
 * listed (it was, with the advice to fix one of them: issue 38's run listed
 * +0.971 and +1.000 for weights the summary called poorly determined). */
static void test_correlated_pair_undetermined(void **state)
{
    Fixture *f = *state;
    int a = weight_index("top_value[1]"), b = weight_index("top_value[3]"), c = weight_index("tempo");
    TuneSet s;
    tune_set_init(&s);
    uint64_t rs = 78;
    TvError err;
    for (int g = 0; g < 400; g++)
        for (int k = 0; k < (g < TUNE_MIN_GAMES - 2 ? 100 : 10); k++) {
            EvalTrace t;
            memset(&t, 0, sizeof t);
            if (g < TUNE_MIN_GAMES - 2) { /* a and b: in 8 long games only, nearly collinear */
                t.f[a] = (int)tv_rng_below(&rs, 3) - 1;
                t.f[b] = t.f[a] + (tv_rng_below(&rs, 10) == 0 ? (int)tv_rng_below(&rs, 3) - 1 : 0);
            }
            t.f[c] = (int)tv_rng_below(&rs, 5) - 2;
            double e = f->start.w[a] * t.f[a] + f->start.w[b] * t.f[b] + (f->start.w[c] + 40) * t.f[c];
            double y = unif(&rs) < tune_sigmoid(0.003 * e) ? 1.0 : 0.0;
            assert_int_equal(tune_set_add(&s, &t, 1, y, g, &err), TV_OK);
        }
    TuneOptions opt;
    tune_options_default(&opt);
    opt.fixed_k = 0.003;
    TuneResult r;
    if (tune_fit(&s, NULL, &f->start, &opt, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_true(r.undetermined[a] && r.undetermined[b]);
    assert_false(r.undetermined[c]);
    /* their estimates do correlate strongly: the pair is left out for being
     * kept, not for want of a correlation */
    assert_non_null(r.cov);
    double rab = r.cov[(size_t)a * NW + (size_t)b] /
                 sqrt(r.cov[(size_t)a * NW + (size_t)a] * r.cov[(size_t)b * NW + (size_t)b]);
    print_message("undetermined pair: r = %.3f\n", rab);
    assert_true(fabs(rab) > TUNE_CORR_REPORT);
    assert_int_equal(r.ncorr, 0);
    assert_int_equal(r.ncorr_all, 0);
    char *sum = tune_ini_comment(&r, NULL, NULL);
    assert_non_null(strstr(sum, "no strongly correlated estimates"));
    free(sum);
    tune_result_free(&r);
    tune_set_free(&s);
}

/* Six weights of one group whose estimates trade off as a whole (features
 * f_i = 8 z_i - sum z, z_i in {-1, 0, 1}: the data see their differences
 * far better than their common level), with no pair beyond
 * TUNE_CORR_REPORT: the group's condition number and its loosest
 * combination (all six, one sign) are reported, in the summary, the log
 * and what the log reader reads back. */
static void test_group_tradeoff(void **state)
{
    Fixture *f = *state;
    int m0 = weight_index("top_value[0]"), t = weight_index("tempo");
    TuneSet s;
    tune_set_init(&s);
    uint64_t rs = 79;
    TvError err;
    for (int g = 0; g < 600; g++)
        for (int k = 0; k < 10; k++) {
            EvalTrace tr;
            memset(&tr, 0, sizeof tr);
            int z[6], sz = 0;
            for (int i = 0; i < 6; i++) {
                z[i] = (int)tv_rng_below(&rs, 3) - 1;
                sz += z[i];
            }
            double e = 0;
            for (int i = 0; i < 6; i++) {
                tr.f[m0 + i] = 8 * z[i] - sz;
                e += f->start.w[m0 + i] * tr.f[m0 + i];
            }
            tr.f[t] = (int)tv_rng_below(&rs, 5) - 2;
            e += f->start.w[t] * tr.f[t];
            double y = unif(&rs) < tune_sigmoid(0.0002 * e) ? 1.0 : 0.0;
            assert_int_equal(tune_set_add(&s, &tr, 1, y, g, &err), TV_OK);
        }
    TuneOptions opt;
    tune_options_default(&opt);
    opt.fixed_k = 0.0002;
    TuneResult r;
    if (tune_fit(&s, NULL, &f->start, &opt, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(r.nfree, 7);
    assert_int_equal(r.ncorr_all, 0); /* no pair tells it */
    assert_int_equal(r.ngroups, 2); /* material; tempo is alone in its group here; then all */
    const TuneGroupTradeoff *g = &r.groups[0];
    assert_string_equal(r.groups[1].group, TUNE_GROUP_ALL);
    assert_int_equal(r.groups[1].n, 7);
    print_message("material: cond %.1f, spread %.2f\n", g->cond, g->spread);
    assert_string_equal(g->group, eval_weight_info_of(m0)->group);
    assert_int_equal(g->n, 6);
    assert_true(g->cond > TUNE_COND_REPORT);
    assert_true(g->spread > 1.8); /* a pair at TUNE_CORR_REPORT: sqrt(1.8) = 1.34 */
    assert_int_equal(g->nshow, 6);
    for (int i = 0; i < 6; i++) /* the common level: every weight, one sign */
        assert_true(g->coef[i] > 0.2 && g->coef[i] < 0.7);
    char *sum = tune_ini_comment(&r, NULL, NULL);
    assert_non_null(strstr(sum, "weights that trade off as a group"));
    assert_non_null(strstr(sum, "  material: 6 weights, condition number "));
    free(sum);
    char path[] = "/tmp/tavreli_tune_group_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(tune_write_log(path, &r, NULL, &err), TV_OK);
    TuneLog log;
    if (tune_log_read(path, &log, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(log.ngroups, 2);
    assert_string_equal(log.groups[0].group, g->group);
    assert_int_equal(log.groups[0].n, 6);
    assert_true(close_to(log.groups[0].cond, g->cond, 1e-3 * g->cond));
    assert_true(close_to(log.groups[0].spread, g->spread, 1e-3 * g->spread));
    assert_int_equal(log.groups[0].nshow, 6);
    char name[96];
    assert_string_equal(log.groups[0].names[0], eval_weight_element_name(g->idx[0], name, sizeof name));
    tune_log_free(&log);
    remove(path);
    tune_result_free(&r);
    tune_set_free(&s);
}

/* A fixed weight keeps its start value and is left out of the fit; the
 * others still converge (the independent one to its truth).  Bad names
 * are refused, saying how names are written. */
static void test_fixed_weights(void **state)
{
    Fixture *f = *state;
    TuneSet s;
    int a, b, c;
    double truth[NW];
    planted_pair(&s, &f->start, &a, &b, &c, truth);
    TuneOptions opt;
    tune_options_default(&opt);
    opt.fixed_k = 0.003;
    TvError err;
    assert_int_equal(tune_fixed_parse(" top_value[1] ", opt.fixed, &err), TV_OK);
    TuneResult r;
    if (tune_fit(&s, NULL, &f->start, &opt, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(r.nfree, 2);
    assert_true(r.fixed[a] && !r.free[a]);
    assert_true(r.fitted[a] == f->start.w[a] && r.rounded[a] == f->start.w[a]);
    assert_string_equal(r.stop_reason, "converged: projected gradient below tolerance");
    assert_true(fabs(r.fitted[c] - truth[c]) < 4 * r.se[c]);
    /* b absorbs a's share: their sum is what the data fix */
    assert_true(fabs(r.fitted[b] + f->start.w[a] - truth[a] - truth[b]) < 4 * r.se[b]);
    assert_int_equal(r.ncorr, 0);
    char *sum = tune_ini_comment(&r, NULL, NULL);
    assert_non_null(strstr(sum, "top_value[1]: 500 (fixed)\n"));
    free(sum);
    tune_result_free(&r);
    tune_set_free(&s);
    /* names */
    bool m[NW];
    assert_int_equal(tune_fixed_parse("top_value", m, &err), TV_OK);
    int n = 0;
    for (int i = 0; i < NW; i++)
        n += m[i];
    assert_int_equal(n, 6);
    assert_int_equal(tune_fixed_parse("top_value[6]", m, &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "unknown weight 'top_value[6]' (top_value has elements top_value[0] to "
                                    "top_value[5])"));
    assert_int_equal(tune_fixed_parse("tempo,nonsense", m, &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "unknown weight 'nonsense'"));
    assert_non_null(strstr(err.msg, "core/weights.def"));
    assert_int_equal(tune_fixed_parse("tempo, tempo", m, &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "'tempo' is given twice"));
    assert_int_equal(tune_fixed_parse("tempo,,top_value[0]", m, &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "an empty name"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_dot),
        cmocka_unit_test(test_gradient),
        cmocka_unit_test(test_fit_k),
        cmocka_unit_test(test_recovery_coverage),
        cmocka_unit_test(test_monotone_and_reproducible),
        cmocka_unit_test(test_converges_on_bounds),
        cmocka_unit_test(test_l2_auto_and_improvement),
        cmocka_unit_test(test_log_round_trip),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_correlated_pair),
        cmocka_unit_test(test_correlated_pair_undetermined),
        cmocka_unit_test(test_group_tradeoff),
        cmocka_unit_test(test_fixed_weights),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
