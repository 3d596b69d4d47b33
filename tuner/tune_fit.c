/* tune_fit.c: the weight fit and its L2 strength (see tune_fit.h); the loss
 * and K are in tune_loss.c, the standard errors in tune_se.c.
 *
 * The fit, in short:
 *  - the loss and its gradient are sums over positions of sparse dot
 *    products; they are computed in a fixed number of chunks (OpenMP over the
 *    chunks) whose partial sums are added in chunk order, so the result is
 *    the same bit for bit with any number of threads;
 *  - the minimiser: projected Newton (Bertsekas) on the box [lo, hi] of the
 *    weight table.  Each step holds the weights that sit on a bound with
 *    the gradient pushing outwards, solves the Newton system (the exact
 *    Hessian, Cholesky-factored with GSL, shifted when not positive
 *    definite) for the others, projects the step into the box and
 *    backtracks (Armijo along the projection arc).  When that line search
 *    stalls, a projected-gradient step (scaled by the Hessian's diagonal)
 *    is taken instead; the fit ends only when the projected gradient,
 *    measured in the Newton metric (one standard error is about
 *    sqrt(2 s^2 / n) there), is below 1/1000 of a standard error, at the
 *    iteration limit, or when both line searches stall.  (The earlier GSL
 *    BFGS on a penalised box stopped on line-search stalls well short of
 *    the bounded minimum.)  Weights ending on a bound get no standard error
 *    (0) and are left out of the covariance;
 *  - standard errors: the game-clustered sandwich with the objective's
 *    Hessian (the L2 pull's curvature included) as bread (see
 *    tune_covariance()); --bootstrap refits on games resampled with replacement,
 *    since positions of one game are correlated: a check of them. */
#include "tune_fit.h"
#include "tune_fit_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <omp.h>

#include "gsl_util.h"
#include "rng.h"

/* ---- groups ---------------------------------------------------------------- */

TvStatus tune_groups_parse(const char *groups, bool *mask, TvError *err)
{
    if (!groups || !*groups || !strcmp(groups, "all")) {
        for (int i = 0; i < NW; i++)
            mask[i] = true;
        return TV_OK;
    }
    for (int i = 0; i < NW; i++)
        mask[i] = false;
    const char *s = groups;
    while (1) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        bool found = false;
        for (int d = 0; d < EVAL_NDECLS; d++) {
            const WeightInfo *wi = &EVAL_WEIGHT_INFO[d];
            if (strlen(wi->group) == len && !strncmp(wi->group, s, len)) {
                found = true;
                for (int k = 0; k < wi->size; k++)
                    mask[wi->offset + k] = true;
            }
        }
        if (!found) {
            char known[256] = "";
            for (int d = 0; d < EVAL_NDECLS; d++) {
                const char *g = EVAL_WEIGHT_INFO[d].group;
                bool seen = false;
                for (int q = 0; q < d; q++)
                    seen |= !strcmp(EVAL_WEIGHT_INFO[q].group, g);
                if (!seen) {
                    size_t kl = strlen(known);
                    snprintf(known + kl, sizeof known - kl, "%s%s", kl ? ", " : "", g);
                }
            }
            return tv_fail(err, TV_ERR_ARG, "tune: unknown group '%.*s' (known: %s, or all)", (int)(len > 64 ? 64 : len),
                           s, known);
        }
        if (!e)
            break;
        s = e + 1;
    }
    return TV_OK;
}
TvStatus tune_fixed_parse(const char *list, bool *mask, TvError *err)
{
    for (int i = 0; i < NW; i++)
        mask[i] = false;
    if (!list)
        return TV_OK;
    const char *s = list;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strcspn(s, ",");
        const char *next = s[len] ? s + len + 1 : s + len;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
            len--;
        if (len == 0) {
            if (!*next && s == list)
                break; /* empty list */
            return tv_fail(err, TV_ERR_ARG, "fixed: an empty name in '%.100s' (names are separated by commas)", list);
        }
        int hits = 0;
        bool again = false;
        for (int i = 0; i < NW; i++) {
            char name[96];
            eval_weight_element_name(i, name, sizeof name);
            const WeightInfo *wi = eval_weight_info_of(i);
            bool whole = strlen(wi->name) == len && !strncmp(wi->name, s, len);
            if (whole || (strlen(name) == len && !strncmp(name, s, len))) {
                again |= mask[i];
                mask[i] = true;
                hits++;
            }
        }
        if (again)
            return tv_fail(err, TV_ERR_ARG, "fixed: '%.*s' is given twice", (int)(len > 64 ? 64 : len), s);
        if (!hits) {
            char hint[128] = "";
            for (int d = 0; d < EVAL_NDECLS; d++) {
                const WeightInfo *wi = &EVAL_WEIGHT_INFO[d];
                size_t nl = strlen(wi->name);
                if (len > nl && !strncmp(wi->name, s, nl) && s[nl] == '[')
                    snprintf(hint, sizeof hint, " (%s has elements %s[0] to %s[%d])", wi->name, wi->name, wi->name,
                             wi->size - 1);
            }
            return tv_fail(err, TV_ERR_ARG,
                           "fixed: unknown weight '%.*s'%s (an element: top_value[1], tempo; a whole weight: "
                           "top_value; the names: "
                           "core/weights.def)",
                           (int)(len > 64 ? 64 : len), s, hint);
        }
        s = next;
    }
    return TV_OK;
}
/* ---- the weight fit ---------------------------------------------------------- */

typedef struct {
    const TuneSet *s;
    const float *gw;
    double K, l2;
    int p;
    int fidx[NW];
    double base[NW]; /* the start of the fit */
    double pull[NW]; /* l2 anchor: the start weights */
    double lo[NW], hi[NW];
    const volatile sig_atomic_t *stop; /* TuneOptions.stop */
} FitCtx;

/* The error of a fit that a signal stopped (looked at before every step of
 * the minimiser: each of the CV's, the fit's and the bootstrap's fits). */
static TvStatus fit_stopped(TvError *err)
{
    return tv_fail(err, TV_ERR_ARG, "tune: stopped by a signal while fitting; nothing was written");
}

/* w clamped into the box [lo, hi] (free weights). */
static void project(const FitCtx *c, double *w)
{
    for (int j = 0; j < c->p; j++) {
        int i = c->fidx[j];
        w[i] = fmin(c->hi[i], fmax(c->lo[i], w[i]));
    }
}

typedef struct {
    double w[NW];   /* the fitted weights (inside their bounds) */
    int iterations;
    int gradient_steps; /* steps taken by projected gradient where the Newton line search stalled */
    const char *stop;
    double pgnorm, pgtol; /* the final projected gradient's norm (Newton metric) and the tolerance */
} FitOut;

/* The objective inside the box: MSE at w plus the l2 pull; with g (free
 * weights, c->p) its gradient. */
static double box_objective(const FitCtx *c, const double *w, double *g)
{
    double full[NW];
    double obj = tune_loss(c->s, w, c->K, c->gw, g ? full : NULL);
    for (int j = 0; j < c->p; j++) {
        int i = c->fidx[j];
        double d = w[i] - c->pull[i];
        obj += c->l2 * d * d;
        if (g)
            g[j] = full[i] + 2 * c->l2 * d;
    }
    return obj;
}

/* Free weight j (index into fidx) is held on its bound: it is there and
 * the gradient pushes it outwards. */
static bool held_on_bound(const FitCtx *c, const double *w, int j, double gj)
{
    int i = c->fidx[j];
    double eps = 1e-9 * (c->hi[i] - c->lo[i]);
    return (w[i] <= c->lo[i] + eps && gj > 0) || (w[i] >= c->hi[i] - eps && gj < 0);
}

/* The Hessian of the objective (the exact second derivative: near the
 * optimum Gauss-Newton alone converges only linearly, the residuals of
 * game results being large) over the free weights not held on a bound (F,
 * nf of them), factored (Cholesky, with a growing diagonal shift when it is
 * not positive definite) into L (nf x nf).  0, or a GSL error code. */
static int newton_matrix(const FitCtx *c, const double *w, const int *F, int nf, gsl_matrix *L)
{
    size_t pp = (size_t)c->p * (size_t)c->p;
    double *A = malloc(sizeof *A * (pp ? pp : 1));
    if (!A)
        return GSL_ENOMEM;
    double rss, W;
    tune_hess_sums(c->s, w, c->K, c->gw, c->fidx, c->p, true, A, NULL, &rss, &W);
    double maxd = 0;
    for (int u = 0; u < nf; u++)
        maxd = fmax(maxd, 2 * A[F[u] * c->p + F[u]] / W + 2 * c->l2);
    int st = 1;
    double jitter = 0;
    for (int tries = 0; tries < 30 && st; tries++) {
        for (int u = 0; u < nf; u++)
            for (int v = 0; v < nf; v++)
                gsl_matrix_set(L, (size_t)u, (size_t)v,
                               2 * A[F[u] * c->p + F[v]] / W + (u == v ? 2 * c->l2 + jitter : 0));
        st = gsl_linalg_cholesky_decomp1(L);
        jitter = jitter ? jitter * 10 : 1e-10 * (maxd > 0 ? maxd : 1);
    }
    free(A);
    return st;
}

/* Projected Newton (Bertsekas) from w (inside the box) until the projected
 * gradient, measured in the Newton metric (sqrt(g_F^T H_FF^-1 g_F)
 * over the weights not held on a bound: the distance to the optimum in the
 * units of a standard error), is below tol.  Each step solves the
 * Newton system on those weights, projects, and backtracks (Armijo along
 * the projection arc); when that line search stalls, a diagonally scaled
 * projected-gradient step is tried instead; the fit ends only when both
 * stall.  Iterations are counted on from *iter and recorded (history, progress). */
static TvStatus newton_phase(const FitCtx *c, double *w, double tol, int max_iter, int *iter, const TuneSet *hold,
                             TuneResult *rec, const TuneOptions *opt, FitOut *out, TvError *err)
{
    int p = c->p;
    double g[NW], gn[NW], d[NW], wn[NW];
    int F[NW];
    double f = box_objective(c, w, g);
    for (;;) {
        if (c->stop && *c->stop)
            return fit_stopped(err);
        int nf = 0;
        for (int j = 0; j < p; j++)
            if (!held_on_bound(c, w, j, g[j]))
                F[nf++] = j;
        gsl_matrix *L = nf ? gsl_matrix_alloc((size_t)nf, (size_t)nf) : NULL;
        gsl_vector *v = nf ? gsl_vector_alloc((size_t)nf) : NULL;
        if (nf && (!L || !v)) {
            if (L)
                gsl_matrix_free(L);
            if (v)
                gsl_vector_free(v);
            return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
        }
        int st = nf ? newton_matrix(c, w, F, nf, L) : 0;
        double lambda = 0;
        if (!st && nf) {
            for (int u = 0; u < nf; u++)
                gsl_vector_set(v, (size_t)u, g[F[u]]);
            gsl_blas_dtrsv(CblasLower, CblasNoTrans, CblasNonUnit, L, v); /* L^-1 g */
            lambda = gsl_blas_dnrm2(v);
            gsl_blas_dtrsv(CblasLower, CblasTrans, CblasNonUnit, L, v);   /* H^-1 g */
        }
        out->pgnorm = lambda;
        if (st || lambda <= tol || *iter >= max_iter) {
            if (L)
                gsl_matrix_free(L);
            if (v)
                gsl_vector_free(v);
            if (st)
                return stats_gsl_fail(err, st, TUNE_GSL_MSG, "factoring the Newton matrix");
            if (lambda > tol)
                out->stop = "iteration limit";
            return TV_OK;
        }
        bool moved = false;
        for (int method = 0; method < 2 && !moved; method++) {
            /* 0: the Newton direction on F; 1: -g scaled by 1 / diag(H) */
            for (int j = 0; j < p; j++)
                d[j] = 0;
            for (int u = 0; u < nf; u++) {
                double lu = gsl_matrix_get(L, (size_t)u, (size_t)u);
                d[F[u]] = method == 0 ? -gsl_vector_get(v, (size_t)u) : -g[F[u]] / (lu * lu);
            }
            for (double a = 1; a > 1e-12 && !moved; a *= 0.5) {
                double decrease = 0;
                memcpy(wn, w, sizeof wn);
                for (int j = 0; j < p; j++) {
                    int i = c->fidx[j];
                    wn[i] = fmin(c->hi[i], fmax(c->lo[i], w[i] + a * d[j]));
                    decrease += g[j] * (wn[i] - w[i]);
                }
                if (!(decrease < 0))
                    continue;
                double fn = box_objective(c, wn, gn);
                if (fn <= f + 1e-4 * decrease) {
                    moved = true;
                    out->gradient_steps += method;
                    memcpy(w, wn, sizeof wn);
                    memcpy(g, gn, sizeof g);
                    f = fn;
                }
            }
        }
        gsl_matrix_free(L);
        gsl_vector_free(v);
        if (!moved) {
            out->stop = "no further progress: the Newton and the projected-gradient line searches both stalled";
            return TV_OK;
        }
        ++*iter;
        out->iterations = *iter;
        if (rec) {
            TuneIteration it = {*iter, tune_loss(c->s, w, c->K, c->gw, NULL), tune_hold_loss(hold, w, c->K), f, {0}};
            for (int i = 0; i < NW; i++)
                it.w[i] = (float)w[i];
            rec->history[rec->nhistory++] = it;
            if (opt->progress)
                opt->progress(&it, opt->user);
        }
    }
}

/* One fit from c->base (clamped into the box).  When rec is not NULL,
 * records every iteration (and calls the progress callback), computing the
 * hold-out loss.  The tolerance: in the Newton metric one standard error is
 * about sqrt(2 s^2 / n) (s^2 <= the loss); the fit stops when the projected
 * gradient is 1/1000 of that. */
static TvStatus fit_once(FitCtx *c, int max_iter, const TuneSet *hold, TuneResult *rec, const TuneOptions *opt,
                         FitOut *out, TvError *err)
{
    memcpy(out->w, c->base, sizeof out->w);
    project(c, out->w);
    double mse0 = tune_loss(c->s, out->w, c->K, c->gw, NULL);
    out->pgtol = 1e-3 * sqrt(2 * mse0 / (double)c->s->n);
    out->iterations = 0;
    out->gradient_steps = 0;
    out->stop = NULL;
    if (rec) {
        TuneIteration it = {0, mse0, tune_hold_loss(hold, out->w, c->K), box_objective(c, out->w, NULL), {0}};
        for (int i = 0; i < NW; i++)
            it.w[i] = (float)out->w[i];
        rec->history[rec->nhistory++] = it;
        if (opt->progress)
            opt->progress(&it, opt->user);
    }
    int iter = 0;
    TvStatus ts = newton_phase(c, out->w, out->pgtol, max_iter, &iter, hold, rec, opt, out, err);
    if (ts != TV_OK)
        return ts;
    out->iterations = iter;
    if (!out->stop)
        out->stop = "converged: projected gradient below tolerance";
    return TV_OK;
}

void tune_options_default(TuneOptions *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < NW; i++)
        o->free[i] = true;
}

void tune_result_free(TuneResult *r)
{
    free(r->history);
    r->history = NULL;
    free(r->cov);
    r->cov = NULL;
    r->nhistory = 0;
}

/* ---- the L2 strength by cross-validation over games ----------------------------- */

/* Chooses c->l2 by k-fold cross-validation over the games of c->s: the
 * games are dealt into `folds` folds in a seeded random order; for every
 * fold and every strength of the grid (strongest first, each fit starting
 * where the stronger one ended) the weights are fitted on the other folds
 * (game weights 0 / 1) and scored on the fold (MSE).  Strength 0 is part of
 * the grid; the start weights (the limit of an infinite strength) are
 * scored too.  The grid is relative to the data: the median diagonal h of
 * the Gauss-Newton Hessian of the loss at the start (free weights) times
 * 10^(k/2), k = -8 .. 3, so that l2 = h pulls as hard as the data's typical
 * curvature.  Fills out->cv_* and sets c->l2 to the strength with the
 * lowest mean validation loss (the stronger on a tie). */
typedef struct {
    uint64_t key;
    int32_t game;
} FoldKey;

static int cmp_fold_key(const void *a, const void *b)
{
    const FoldKey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->game > y->game) - (x->game < y->game);
}

static TvStatus choose_l2(FitCtx *c, int folds, uint64_t seed, int max_iter, TuneResult *out, TvError *err)
{
    const TuneSet *s = c->s;
    int32_t G = s->ngames;
    int32_t *fold = malloc(sizeof *fold * ((size_t)G + 1));
    float *train = malloc(sizeof *train * ((size_t)G + 1)), *val = malloc(sizeof *val * ((size_t)G + 1));
    uint64_t *key = malloc(sizeof *key * ((size_t)G + 1));
    int32_t *games = malloc(sizeof *games * ((size_t)G + 1));
    size_t pp = (size_t)c->p * (size_t)c->p;
    double *A = malloc(sizeof *A * (pp ? pp : 1));
    TvStatus st = TV_OK;
    if (!fold || !train || !val || !key || !games || !A)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    int32_t ng = 0;
    if (st == TV_OK) {
        for (int32_t g = 0; g < G; g++)
            fold[g] = -1;
        for (int64_t i = 0; i < s->n; i++)
            fold[s->game[i]] = 0;
        for (int32_t g = 0; g < G; g++)
            if (fold[g] == 0) {
                key[ng] = tune_seed_mix(seed ^ 0xcf01dULL, (uint64_t)g);
                games[ng++] = g;
            }
        /* deal the games in key order: fold sizes differ by one at most */
        FoldKey *fk = malloc(sizeof *fk * ((size_t)ng + 1));
        if (!fk)
            st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
        else {
            for (int32_t k = 0; k < ng; k++)
                fk[k] = (FoldKey){key[k], games[k]};
            qsort(fk, (size_t)ng, sizeof *fk, cmp_fold_key);
            for (int32_t k = 0; k < ng; k++)
                games[k] = fk[k].game;
            free(fk);
        }
        if (folds > ng)
            folds = ng;
        for (int32_t k = 0; k < ng; k++)
            fold[games[k]] = k % folds;
    }
    if (st == TV_OK && folds < 2) { /* one game: nothing to validate on; no pull, and said so */
        out->cv_too_few_games = true;
        c->l2 = out->l2 = 0;
        goto done;
    }
    double h = 0;
    if (st == TV_OK) {
        double rss, W, diag[NW];
        tune_gn_sums(s, c->base, c->K, NULL, c->fidx, c->p, A, NULL, &rss, &W);
        for (int j = 0; j < c->p; j++)
            diag[j] = 2 * A[(size_t)j * (size_t)c->p + (size_t)j] / W;
        for (int a = 1; a < c->p; a++)
            for (int b = a; b > 0 && diag[b - 1] > diag[b]; b--) {
                double t = diag[b];
                diag[b] = diag[b - 1];
                diag[b - 1] = t;
            }
        h = c->p % 2 ? diag[c->p / 2] : 0.5 * (diag[c->p / 2 - 1] + diag[c->p / 2]);
        if (!(h > 0))
            h = 1e-9;
    }
    /* the grid, strongest first; the last entry is 0 */
    out->ncv = TUNE_CV_GRID;
    for (int k = 0; k < TUNE_CV_GRID - 1; k++)
        out->cv_l2[k] = h * pow(10.0, (3 - k) / 2.0);
    out->cv_l2[TUNE_CV_GRID - 1] = 0;
    out->cv_folds = folds;
    double sum[TUNE_CV_GRID] = {0}, sum2[TUNE_CV_GRID] = {0}, s0 = 0, s02 = 0;
    double base[NW];
    memcpy(base, c->base, sizeof base);
    for (int f = 0; st == TV_OK && f < folds; f++) {
        for (int32_t g = 0; g < G; g++) {
            train[g] = fold[g] >= 0 && fold[g] != f;
            val[g] = fold[g] == f;
        }
        double v0 = tune_loss(s, base, c->K, val, NULL);
        s0 += v0;
        s02 += v0 * v0;
        FitCtx cf = *c;
        cf.gw = train;
        memcpy(cf.base, base, sizeof cf.base);
        for (int k = 0; st == TV_OK && k < TUNE_CV_GRID; k++) {
            cf.l2 = out->cv_l2[k];
            FitOut fo;
            st = fit_once(&cf, max_iter, NULL, NULL, NULL, &fo, err);
            if (st != TV_OK)
                break;
            memcpy(cf.base, fo.w, sizeof cf.base); /* warm start of the next, weaker pull */
            double v = tune_loss(s, fo.w, c->K, val, NULL);
            sum[k] += v;
            sum2[k] += v * v;
        }
    }
    if (st == TV_OK) {
        int best = -1;
        for (int k = 0; k < TUNE_CV_GRID; k++) {
            double m = sum[k] / folds, v = (sum2[k] - folds * m * m) / (folds - 1);
            out->cv_loss[k] = m;
            out->cv_se[k] = v > 0 ? sqrt(v / folds) : 0;
            if (best < 0 || m < out->cv_loss[best])
                best = k;
        }
        double m0 = s0 / folds, v0 = (s02 - folds * m0 * m0) / (folds - 1);
        out->cv_start_loss = m0;
        out->cv_start_se = v0 > 0 ? sqrt(v0 / folds) : 0;
        out->l2 = c->l2 = out->cv_l2[best];
        out->l2_auto = true;
    }
done:
    free(fold);
    free(train);
    free(val);
    free(key);
    free(games);
    free(A);
    return st;
}

TvStatus tune_fit(const TuneSet *fit, const TuneSet *hold, const EvalParams *start, const TuneOptions *opt,
                  TuneResult *out, TvError *err)
{
    stats_gsl_errors_off();
    memset(out, 0, sizeof *out);
    double t0 = omp_get_wtime();
    if (!fit || fit->n == 0)
        return tv_fail(err, TV_ERR_ARG, "tune: no positions in the fit set");
    if (!(opt->l2 >= 0) || !isfinite(opt->l2))
        return tv_fail(err, TV_ERR_ARG, "tune: l2 must be >= 0, not %g", opt->l2);
    for (int i = 0; i < NW; i++)
        out->start[i] = out->fitted[i] = start->w[i];
    /* weights whose feature is never non-zero cannot be fitted */
    bool seen[NW] = {false};
    for (int64_t k = 0; k < fit->nnz; k++)
        seen[fit->ent[k].idx] = true;
    FitCtx c;
    memset(&c, 0, sizeof c);
    c.s = fit;
    c.l2 = opt->l2;
    c.stop = opt->stop;
    for (int i = 0; i < NW; i++) {
        const WeightInfo *wi = eval_weight_info_of(i);
        c.lo[i] = wi->lo;
        c.hi[i] = wi->hi;
        c.base[i] = c.pull[i] = start->w[i];
        out->fixed[i] = opt->free[i] && opt->fixed[i];
        if (opt->free[i] && !opt->fixed[i] && !seen[i])
            out->no_data[i] = true;
        if (opt->free[i] && !opt->fixed[i] && seen[i]) {
            out->free[i] = true;
            c.fidx[c.p++] = i;
        }
    }
    out->nfree = c.p;
    if (c.p == 0)
        return tv_fail(err, TV_ERR_ARG, "tune: no weight to fit (the chosen weights' features are always 0)");
    /* K */
    if (opt->fixed_k > 0)
        out->K = opt->fixed_k;
    else {
        TvStatus st = tune_fit_k(fit, out->start, &out->K, err);
        if (st != TV_OK)
            return st;
    }
    if (c.stop && *c.stop)
        return fit_stopped(err);
    c.K = out->K;
    out->l2 = c.l2;
    int max_iter0 = opt->max_iter > 0 ? opt->max_iter : 500;
    if (opt->l2_auto) {
        TvStatus cs = choose_l2(&c, opt->cv_folds > 0 ? opt->cv_folds : 5, opt->seed, max_iter0, out, err);
        if (cs != TV_OK)
            return cs;
    }
    out->fit_loss0 = tune_loss(fit, out->start, c.K, NULL, NULL);
    out->hold_loss0 = tune_hold_loss(hold, out->start, c.K);
    int max_iter = opt->max_iter > 0 ? opt->max_iter : 500;
    out->history = malloc(sizeof *out->history * (size_t)(max_iter + 2));
    TvStatus st = TV_OK;
    if (!out->history)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    FitOut fo;
    if (st == TV_OK)
        st = fit_once(&c, max_iter, hold, out, opt, &fo, err);
    if (st == TV_OK) {
        out->iterations = fo.iterations;
        out->stop_reason = fo.stop;
        out->pgnorm = fo.pgnorm;
        out->pgtol = fo.pgtol;
        memcpy(out->fitted, fo.w, sizeof fo.w);
        int fidx2[NW], p2 = 0;
        for (int j = 0; j < c.p; j++) {
            int i = c.fidx[j];
            double eps = 1e-9 * (c.hi[i] - c.lo[i]);
            out->at_bound[i] = fo.w[i] <= c.lo[i] + eps || fo.w[i] >= c.hi[i] - eps;
            /* within rounding: the integer written is the bound or next to it */
            out->near_bound[i] = !out->at_bound[i] && (fo.w[i] - c.lo[i] < 1.5 || c.hi[i] - fo.w[i] < 1.5);
            if (!out->at_bound[i])
                fidx2[p2++] = i;
        }
        for (int i = 0; i < NW; i++) {
            double v = floor(out->fitted[i] + 0.5);
            const WeightInfo *wi = eval_weight_info_of(i);
            if (v < wi->lo)
                v = wi->lo;
            if (v > wi->hi)
                v = wi->hi;
            out->rounded[i] = out->free[i] ? (int)v : start->w[i];
        }
        if (c.stop && *c.stop)
            st = fit_stopped(err);
        if (st == TV_OK)
            st = tune_covariance(fit, out->fitted, c.K, c.l2, fidx2, p2, out->se, out->se_positions, &out->residual_var, out,
                        err);
        /* A weight the data cannot determine (its feature collinear with
         * others here, e.g. a tune on one game) keeps its start value: the
         * fitted number is one of infinitely many equally good ones. */
        tune_count_feature_games(fit, out->feature_games, out->feature_positions);
        out->fit_positions = fit->n;
        out->fit_games = 0;
        unsigned char *seen_game = calloc((size_t)fit->ngames + 1, 1);
        if (!seen_game)
            st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
        for (int64_t k = 0; seen_game && k < fit->n; k++)
            if (!seen_game[fit->game[k]]) {
                seen_game[fit->game[k]] = 1;
                out->fit_games++;
            }
        free(seen_game);
        for (int j = 0; st == TV_OK && j < c.p; j++) {
            int i = c.fidx[j];
            if ((!out->at_bound[i] && !isfinite(out->se[i])) || out->feature_games[i] < TUNE_MIN_GAMES ||
                out->feature_positions[i] < TUNE_MIN_POSITIONS) {
                out->undetermined[i] = true;
                out->rounded[i] = start->w[i];
            }
        }
        if (st == TV_OK)
            st = tune_tradeoffs(out, err);
        out->moved_2se = 0;
        for (int j = 0; st == TV_OK && j < c.p; j++) {
            int i = c.fidx[j];
            out->moved_2se += isfinite(out->se[i]) && out->se[i] > 0 && !out->undetermined[i] &&
                              fabs(out->fitted[i] - out->start[i]) > 2 * out->se[i];
        }
        out->fit_loss1 = tune_loss(fit, out->fitted, c.K, NULL, NULL);
        out->hold_loss1 = tune_hold_loss(hold, out->fitted, c.K);
        double rw[NW];
        for (int i = 0; i < NW; i++)
            rw[i] = out->rounded[i];
        out->fit_loss_rounded = tune_loss(fit, rw, c.K, NULL, NULL);
        out->hold_loss_rounded = tune_hold_loss(hold, rw, c.K);
        /* Is it better than the start on games the fit did not see?  The
         * hold-out set decides; without one, the cross-validation (the
         * chosen strength against the start weights); without either the
         * question is not asked (improvement_checked false). */
        if (hold && hold->n) {
            out->improvement_checked = true;
            out->improved = out->hold_loss_rounded < out->hold_loss0;
        } else if (out->l2_auto) {
            out->improvement_checked = true;
            double best = INFINITY;
            for (int k = 0; k < out->ncv; k++)
                best = fmin(best, out->cv_loss[k]);
            out->improved = best < out->cv_start_loss;
        } else
            out->improved = true;
        if (!out->improved)
            for (int i = 0; i < NW; i++)
                out->rounded[i] = start->w[i];
    }
    /* bootstrap: resample the fit set's games with replacement, refit from
     * the optimum (same K), sd of the fitted weights */
    if (st == TV_OK && opt->bootstrap > 0) {
        int32_t G = fit->ngames;
        float *gw = calloc((size_t)G + 1, sizeof *gw);
        int32_t *games = malloc(sizeof *games * ((size_t)G + 1));
        double *sum = calloc(NW, sizeof *sum), *sum2 = calloc(NW, sizeof *sum2);
        if (!gw || !games || !sum || !sum2)
            st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
        int32_t ng = 0;
        if (st == TV_OK) {
            for (int64_t i = 0; i < fit->n; i++)
                gw[fit->game[i]] = 1;
            for (int32_t g = 0; g < G; g++)
                if (gw[g])
                    games[ng++] = g;
        }
        for (int b = 0; st == TV_OK && b < opt->bootstrap; b++) {
            uint64_t rs = tune_seed_mix(opt->seed ^ 0xb007b007ULL, (uint64_t)b);
            memset(gw, 0, sizeof *gw * ((size_t)G + 1));
            for (int32_t k = 0; k < ng; k++)
                gw[games[tv_rng_below(&rs, (uint64_t)ng)]] += 1;
            FitCtx cb = c;
            cb.gw = gw;
            memcpy(cb.base, out->fitted, sizeof cb.base);
            FitOut fb;
            st = fit_once(&cb, max_iter, NULL, NULL, opt, &fb, err);
            if (st == TV_OK) {
                for (int i = 0; i < NW; i++) {
                    sum[i] += fb.w[i];
                    sum2[i] += fb.w[i] * fb.w[i];
                }
                out->boot_done++;
            }
        }
        if (st == TV_OK && out->boot_done > 1)
            for (int i = 0; i < NW; i++) {
                double n = out->boot_done, mean = sum[i] / n, v = (sum2[i] - n * mean * mean) / (n - 1);
                out->boot_sd[i] = out->free[i] && v > 0 ? sqrt(v) : 0;
            }
        free(gw);
        free(games);
        free(sum);
        free(sum2);
    }
    out->seconds = omp_get_wtime() - t0;
    if (st != TV_OK)
        tune_result_free(out);
    return st;
}
