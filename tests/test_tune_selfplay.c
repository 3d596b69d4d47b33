/* test_tune_selfplay.c: the tuner's error bars on real self-play data.
 *
 * A store of 300 self-play games (the default engine against itself at
 * depth 1, every game its own opening: [openings] per_game) is played once
 * by the runner; its positions are resolved as `tavreli tune` resolves
 * them (tune_load).  Then:
 *
 *  - bootstrap agreement (at L2 0 and at the cross-validated L2): on the
 *    games' real results, the game-clustered
 *    standard errors agree with the bootstrap over games (50 refits) within
 *    25% at the median over the well-determined weights (free, not on a
 *    bound, not poorly determined), while the errors that take positions as
 *    independent are far smaller (median below 0.75 of the bootstrap): the
 *    check can tell them apart;
 *  - recovery of known weights: every position of a decisive game gets a
 *    result drawn from the model with known weights, one uniform number per
 *    game deciding one outcome for all its positions (so the model holds for
 *    each position and the positions of a game are strongly correlated, as
 *    real results are); the fit comes
 *    back within its clustered 95% intervals for at least 85% of the
 *    well-determined weights and within 4.5 clustered errors for all, and
 *    the per-position errors cover clearly less.
 *
 *  - the same load and fit (cross-validation, errors, bootstrap) bit for
 *    bit on 1 and on 2 threads;
 *  - `tune` on 100 of the games warns about the data per fitted weight.
 *
 * Sizes are small enough for the sanitizer build. */
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
#include <omp.h>

#include "rng.h"
#include "runner.h"
#include "tune.h"

#define NW EVAL_NWEIGHTS

typedef struct {
    char dir[64];
    char store[128];
    EngineVersion start;
    TuneSet all;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/tavreli_tune_sp_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->store, sizeof f->store, "%s/data.h5", f->dir);
    const char *engine = TAVRELI_TEST_DATA "/../../configs/engines/default.ini";
    char *text = malloc(2048);
    assert_non_null(text);
    int len = snprintf(text, 2048,
                       "[tournament]\nname = tune-data\npairs = 150\nseed = 7\n"
                       "[openings]\nplies = 6\nbalance_depth = 1\nbalance_cp = 300\nper_game = yes\n"
                       "[adjudication]\nmax_plies = 160\n"
                       "[engine a]\npath = %s\ndepth = 1\n[engine b]\npath = %s\ndepth = 1\n",
                       engine, engine);
    Tournament t;
    TvError err;
    char ini[128];
    snprintf(ini, sizeof ini, "%s/t.ini", f->dir);
    if (tournament_read_text(ini, text, (size_t)len, &t, &err) != TV_OK)
        fail_msg("%s", err.msg);
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = f->store;
    ro.force = true;
    RunStats rs;
    memset(&rs, 0, sizeof rs);
    if (runner_run(&ro, &rs, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rs.played, 300);
    run_stats_free(&rs);
    tournament_free(&t);
    assert_int_equal(engine_read(engine, &f->start, &err), TV_OK);
    const char *files[1] = {f->store};
    TuneLoadCounts lc;
    if (tune_load(files, 1, &f->start, false, &f->all, &lc, &err) != TV_OK)
        fail_msg("%s", err.msg);
    print_message("%lld positions of 300 games (%lld duplicates removed)\n", (long long)f->all.n,
                  (long long)lc.duplicate_positions);
    assert_true(f->all.n > 5000);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    tune_set_free(&f->all);
    remove(f->store);
    char ini[128];
    snprintf(ini, sizeof ini, "%s/t.ini", f->dir);
    remove(ini);
    rmdir(f->dir);
    free(f);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A weight whose standard error means something: fitted, inside its
 * bounds, enough data, a finite positive error. */
static bool well_determined(const TuneResult *r, int i)
{
    return r->free[i] && !r->at_bound[i] && !r->undetermined[i] && isfinite(r->se[i]) && r->se[i] > 0;
}

/* The clustered errors against the bootstrap at L2 strength l2 (auto:
 * cross-validated, as `tavreli tune` does by default); the median ratio
 * over the well-determined weights within [lo, hi]. */
static void check_bootstrap_agreement(void **state, bool l2_auto, double lo, double hi)
{
    Fixture *f = *state;
    TuneOptions opt;
    tune_options_default(&opt);
    opt.bootstrap = 50;
    opt.seed = 3;
    opt.l2_auto = l2_auto;
    TuneResult r;
    TvError err;
    if (tune_fit(&f->all, NULL, &f->start.params, &opt, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(r.boot_done, 50);
    double ratio[NW], naive[NW];
    int n = 0;
    for (int i = 0; i < NW; i++)
        if (well_determined(&r, i) && r.boot_sd[i] > 0) {
            ratio[n] = r.se[i] / r.boot_sd[i];
            naive[n++] = r.se_positions[i] / r.boot_sd[i];
        }
    assert_true(n >= 20);
    double m = median(ratio, n), mn = median(naive, n);
    print_message("L2 %g: %d weights: clustered / bootstrap median %.3f (range %.2f .. %.2f); per-position / "
                  "bootstrap median %.3f\n",
                  r.l2, n, m, ratio[0], ratio[n - 1], mn);
    assert_true(m >= lo && m <= hi);
    assert_true(mn < 0.75);
    tune_result_free(&r);
}

static void test_bootstrap_agreement(void **state) { check_bootstrap_agreement(state, false, 0.75, 1.25); }

/* At the cross-validated L2 the bootstrap refits with the pull: the
 * clustered errors must hold its curvature too (without it they were about
 * twice the bootstrap's). */
static void test_bootstrap_agreement_l2_auto(void **state) { check_bootstrap_agreement(state, true, 0.8, 1.25); }

static void test_recovers_known_weights(void **state)
{
    Fixture *f = *state;
    /* the truth: the start weights moved by up to 20% (15 at least) */
    double truth[NW];
    uint64_t rs = 11;
    for (int i = 0; i < NW; i++) {
        const WeightInfo *wi = eval_weight_info_of(i);
        double d = fmax(15, 0.2 * fabs((double)f->start.params.w[i]));
        double u = (double)(tv_rng_next(&rs) >> 11) / 9007199254740992.0;
        truth[i] = fmin(wi->hi - 1, fmax(wi->lo + 1, f->start.params.w[i] + (2 * u - 1) * d));
    }
    const double K = 0.0015;
    /* results from the model: one uniform per game */
    TuneSet s;
    tune_set_init(&s);
    double *u = malloc(sizeof *u * ((size_t)f->all.ngames + 1));
    assert_non_null(u);
    for (int32_t g = 0; g < f->all.ngames; g++)
        u[g] = (double)(tv_rng_next(&rs) >> 11) / 9007199254740992.0;
    TvError err;
    for (int64_t i = 0; i < f->all.n; i++) {
        /* The real result tells which side a position's side to move is in
         * a decisive game (label 1: the real winner's); draws are left out.
         * The real winner's side wins the synthetic game when u < q, q its
         * model probability at this position, so each position's label is
         * 1 with probability sigmoid(K truth . f) and a game's positions
         * share one outcome. */
        if (f->all.label2[i] == 1)
            continue;
        bool winner = f->all.label2[i] == 2;
        double p = tune_sigmoid(K * tune_set_dot(&f->all, i, truth)), q = winner ? p : 1 - p;
        bool won = u[f->all.game[i]] < q;
        EvalTrace t;
        memset(&t, 0, sizeof t);
        for (int64_t k = f->all.row[i]; k < f->all.row[i + 1]; k++)
            t.f[f->all.ent[k].idx] = f->all.ent[k].val;
        assert_int_equal(tune_set_add(&s, &t, 1, won == winner ? 1.0 : 0.0, f->all.game[i], &err), TV_OK);
    }
    free(u);
    TuneOptions opt;
    tune_options_default(&opt);
    opt.fixed_k = K;
    TuneResult r;
    if (tune_fit(&s, NULL, &f->start.params, &opt, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    int n = 0, in95 = 0, naive95 = 0, worst_i = -1;
    double worst = 0, rel[NW];
    for (int i = 0; i < NW; i++) {
        if (!well_determined(&r, i))
            continue;
        double z = fabs(r.fitted[i] - truth[i]) / r.se[i];
        rel[n] = r.se[i] / r.se_positions[i];
        n++;
        in95 += z <= 1.959964;
        naive95 += fabs(r.fitted[i] - truth[i]) <= 1.959964 * r.se_positions[i];
        if (z > worst) {
            worst = z;
            worst_i = i;
        }
    }
    print_message("%d weights: %d within the clustered 95%% intervals, %d within the per-position ones; worst "
                  "weight %d at %.2f se; clustered / per-position errors: median %.2f\n",
                  n, in95, naive95, worst_i, worst, median(rel, n));
    assert_true(n >= 20);
    assert_true(in95 >= 0.85 * n);
    assert_true(worst <= 4.5);
    assert_true(naive95 < 0.75 * n);
    tune_result_free(&r);
    tune_set_free(&s);
}

/* The same data and seed give the same set and the same fit, bit for bit,
 * on 1 and on 2 threads: loading (resolving in parallel), the
 * cross-validation, the fit, the clustered errors and the bootstrap. */
static void test_threads_identical(void **state)
{
    Fixture *f = *state;
    const char *files[1] = {f->store};
    TuneSet s[2];
    TuneResult r[2];
    TvError err;
    for (int k = 0; k < 2; k++) {
        omp_set_num_threads(k + 1);
        TuneLoadCounts lc;
        assert_int_equal(tune_load(files, 1, &f->start, false, &s[k], &lc, &err), TV_OK);
        TuneOptions opt;
        tune_options_default(&opt);
        assert_int_equal(tune_groups_parse("material,mobility", opt.free, &err), TV_OK);
        opt.l2_auto = true;
        opt.bootstrap = 2;
        opt.seed = 4;
        assert_int_equal(tune_fit(&s[k], NULL, &f->start.params, &opt, &r[k], &err), TV_OK);
    }
    omp_set_num_threads(2);
    assert_int_equal(s[0].n, s[1].n);
    assert_int_equal(s[0].nnz, s[1].nnz);
    assert_memory_equal(s[0].ent, s[1].ent, sizeof *s[0].ent * (size_t)s[0].nnz);
    assert_memory_equal(s[0].label2, s[1].label2, (size_t)s[0].n);
    assert_memory_equal(s[0].game, s[1].game, sizeof *s[0].game * (size_t)s[0].n);
    assert_true(r[0].K == r[1].K && r[0].l2 == r[1].l2);
    assert_memory_equal(r[0].cv_loss, r[1].cv_loss, sizeof r[0].cv_loss);
    assert_memory_equal(r[0].fitted, r[1].fitted, sizeof r[0].fitted);
    assert_memory_equal(r[0].se, r[1].se, sizeof r[0].se);
    assert_memory_equal(r[0].boot_sd, r[1].boot_sd, sizeof r[0].boot_sd);
    for (int k = 0; k < 2; k++) {
        tune_result_free(&r[k]);
        tune_set_free(&s[k]);
    }
}

/* The whole command (tune_run) on 100 of the games (hold-out 2/3): the
 * summary gives the data per fitted weight and warns, counts the moves
 * beyond 2 standard errors, says that an SPRT decides with the command to
 * run one, and the log has its corr header. */
static void test_small_data_warns(void **state)
{
    Fixture *f = *state;
    char out[160], log[160];
    snprintf(out, sizeof out, "%s/new.ini", f->dir);
    snprintf(log, sizeof log, "%s/new.tuning.log", f->dir);
    const char *files[1] = {f->store};
    TuneArgs a;
    tune_args_default(&a);
    a.files = files;
    a.nfiles = 1;
    a.engine = TAVRELI_TEST_DATA "/../../configs/engines/default.ini";
    a.out = out;
    a.holdout = 2.0 / 3.0;
    TuneRunReport rep;
    TvError err;
    if (tune_run(&a, NULL, &rep, &err) != TV_OK)
        fail_msg("%s", err.msg);
    const char *sum = rep.summary;
    assert_non_null(sum);
    const char *d = strstr(sum, "data per fitted weight: ");
    assert_non_null(d);
    double gpw = 0;
    int games = 0, nfree = 0;
    long long npos = 0;
    assert_int_equal(sscanf(d, "data per fitted weight: %lf games and %*f positions (%d games, %lld positions, %d",
                            &gpw, &games, &npos, &nfree),
                     4);
    print_message("%d games, %lld positions, %d weights: %.1f games per weight\n", games, npos, nfree, gpw);
    assert_true(games >= 80 && games <= 120);
    assert_true(fabs(gpw - (double)games / nfree) < 0.06);
    assert_non_null(strstr(sum, "WARNING: few games per fitted weight"));
    assert_non_null(strstr(sum, "moves beyond 2 standard errors: "));
    assert_non_null(strstr(sum, "an SPRT of the new weights against the start decides"));
    assert_non_null(strstr(sum, "tavreli selfplay sprt.ini"));
    FILE *fp = fopen(log, "r");
    assert_non_null(fp);
    char line[512];
    bool corr = false;
    while (fgets(line, sizeof line, fp))
        corr |= !strncmp(line, "# corr NAME1 NAME2 R", 20);
    fclose(fp);
    assert_true(corr);
    tune_run_report_free(&rep);
    remove(out);
    remove(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bootstrap_agreement),
        cmocka_unit_test(test_bootstrap_agreement_l2_auto),
        cmocka_unit_test(test_recovers_known_weights),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_small_data_warns),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
