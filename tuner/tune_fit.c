/* tune_fit.c: the loss, K and the weight fit (see tune_fit.h).
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
 *    covariance()); --bootstrap refits on games resampled with replacement,
 *    since positions of one game are correlated: a check of them. */
#include "tune_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_min.h>
#include <omp.h>

#include "gsl_util.h"
#include "rng.h"

#define NW EVAL_NWEIGHTS
#define LOSS_CHUNKS 128 /* fixed: the sums do not depend on the thread count */
#define GN_CHUNKS 16
/* A GSL failure: what failed, then GSL's text (tuner_gsl_fail). */
#define TUNE_GSL_MSG "tune: %s: GSL error: %s"

/* ---- loss and gradient ----------------------------------------------------- */

double tune_loss(const TuneSet *s, const double *w, double K, const float *game_weight, double *grad)
{
    if (grad)
        memset(grad, 0, sizeof(double) * NW);
    if (s->n == 0)
        return NAN;
    int nch = s->n < LOSS_CHUNKS ? (int)s->n : LOSS_CHUNKS;
    enum { STRIDE = NW + 2 };
    double part[LOSS_CHUNKS][STRIDE];
    const bool want = grad != NULL;
#pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < nch; c++) {
        int64_t lo = s->n * c / nch, hi = s->n * (c + 1) / nch;
        double g[NW];
        memset(g, 0, sizeof g);
        double loss = 0, wsum = 0;
        for (int64_t i = lo; i < hi; i++) {
            int64_t a = s->row[i], b = s->row[i + 1];
            double e = 0;
            for (int64_t k = a; k < b; k++)
                e += w[s->ent[k].idx] * s->ent[k].val;
            double p = tune_sigmoid(K * e);
            double r = 0.5 * s->label2[i] - p;
            double m = game_weight ? game_weight[s->game[i]] : 1.0;
            loss += m * r * r;
            wsum += m;
            if (want) {
                double coef = -2.0 * m * r * p * (1.0 - p) * K;
                for (int64_t k = a; k < b; k++)
                    g[s->ent[k].idx] += coef * s->ent[k].val;
            }
        }
        part[c][0] = loss;
        part[c][1] = wsum;
        memcpy(&part[c][2], g, sizeof g);
    }
    double loss = 0, wsum = 0;
    for (int c = 0; c < nch; c++) {
        loss += part[c][0];
        wsum += part[c][1];
        if (grad)
            for (int j = 0; j < NW; j++)
                grad[j] += part[c][2 + j];
    }
    if (!(wsum > 0))
        return NAN;
    if (grad)
        for (int j = 0; j < NW; j++)
            grad[j] /= wsum;
    return loss / wsum;
}

/* Gauss-Newton sums over the free weights F (fidx[0..p-1]):
 * A = sum m (s' K)^2 f_F f_F^T, B = sum m r^2 (s' K)^2 f_F f_F^T (B may be
 * NULL), and sum m r^2, sum m.  A and B are p x p (row-major, full). */
static void hess_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p,
                      bool exact, double *A, double *B, double *rss, double *wsum);

static void gn_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p, double *A,
                    double *B, double *rss, double *wsum)
{
    hess_sums(s, w, K, gw, fidx, p, false, A, B, rss, wsum);
}

/* gn_sums, or with exact the whole second derivative in A:
 * sum m ((s' K)^2 - r s'' K^2) f_F f_F^T, s'' = s' (1 - 2 s). */
static void hess_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p,
                      bool exact, double *A, double *B, double *rss, double *wsum)
{
    int posf[NW]; /* weight -> its index in F, or -1 */
    for (int i = 0; i < NW; i++)
        posf[i] = -1;
    for (int j = 0; j < p; j++)
        posf[fidx[j]] = j;
    int nch = s->n < GN_CHUNKS ? (int)s->n : GN_CHUNKS;
    size_t pp = (size_t)p * (size_t)p;
    double *part = calloc((size_t)(nch > 0 ? nch : 1) * (2 * pp + 2), sizeof *part);
    if (!part) {
        memset(A, 0, pp * sizeof *A);
        if (B)
            memset(B, 0, pp * sizeof *B);
        *rss = NAN;
        *wsum = 0;
        return;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < nch; c++) {
        double *a = part + (size_t)c * (2 * pp + 2), *bm = a + pp, *sc = bm + pp;
        int64_t lo = s->n * c / nch, hi = s->n * (c + 1) / nch;
        int li[NW];
        double lv[NW];
        for (int64_t i = lo; i < hi; i++) {
            int64_t ka = s->row[i], kb = s->row[i + 1];
            double e = 0;
            int nl = 0;
            for (int64_t k = ka; k < kb; k++) {
                e += w[s->ent[k].idx] * s->ent[k].val;
                int q = posf[s->ent[k].idx];
                if (q >= 0) {
                    li[nl] = q;
                    lv[nl++] = s->ent[k].val;
                }
            }
            double pr = tune_sigmoid(K * e);
            double r = 0.5 * s->label2[i] - pr;
            double m = gw ? gw[s->game[i]] : 1.0;
            double d = pr * (1 - pr) * K;
            double wa = m * d * d, wb = wa * r * r;
            if (exact)
                wa -= m * r * d * (1 - 2 * pr) * K;
            sc[0] += m * r * r;
            sc[1] += m;
            for (int u = 0; u < nl; u++)
                for (int v = 0; v < nl; v++) {
                    double f = lv[u] * lv[v];
                    a[(size_t)li[u] * (size_t)p + (size_t)li[v]] += wa * f;
                    bm[(size_t)li[u] * (size_t)p + (size_t)li[v]] += wb * f;
                }
        }
    }
    memset(A, 0, pp * sizeof *A);
    if (B)
        memset(B, 0, pp * sizeof *B);
    *rss = 0;
    *wsum = 0;
    for (int c = 0; c < nch; c++) {
        double *a = part + (size_t)c * (2 * pp + 2);
        for (size_t k = 0; k < pp; k++) {
            A[k] += a[k];
            if (B)
                B[k] += a[pp + k];
        }
        *rss += a[2 * pp];
        *wsum += a[2 * pp + 1];
    }
    free(part);
}
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
/* ---- K ---------------------------------------------------------------------- */

typedef struct {
    const TuneSet *s;
    const double *w;
} KCtx;

static double k_loss(double lk, void *user)
{
    const KCtx *c = user;
    return tune_loss(c->s, c->w, exp(lk), NULL, NULL);
}

TvStatus tune_fit_k(const TuneSet *s, const double *w, double *K, TvError *err)
{
    tuner_gsl_errors_off();
    if (s->n == 0)
        return tv_fail(err, TV_ERR_ARG, "tune: no positions to fit K on");
    KCtx c = {s, w};
    /* grid over log K from 1e-5 to 1 per centi-combatant */
    enum { NG = 41 };
    double lk[NG], f[NG];
    int best = 0;
    for (int i = 0; i < NG; i++) {
        lk[i] = log(1e-5) + (log(1.0) - log(1e-5)) * i / (NG - 1);
        f[i] = k_loss(lk[i], &c);
        if (f[i] < f[best])
            best = i;
    }
    if (best == 0 || best == NG - 1 || !(f[best] < f[best - 1]) || !(f[best] < f[best + 1])) {
        *K = exp(lk[best]);
        return TV_OK; /* the minimum is on the grid's edge (or flat): take it */
    }
    gsl_function F = {k_loss, &c};
    gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    if (!m)
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    int st = gsl_min_fminimizer_set_with_values(m, &F, lk[best], f[best], lk[best - 1], f[best - 1], lk[best + 1],
                                                f[best + 1]);
    for (int it = 0; st == GSL_SUCCESS && it < 100; it++) {
        st = gsl_min_fminimizer_iterate(m);
        if (st)
            break;
        double a = gsl_min_fminimizer_x_lower(m), b = gsl_min_fminimizer_x_upper(m);
        if (gsl_min_test_interval(a, b, 1e-7, 0.0) == GSL_SUCCESS)
            break;
    }
    double x = gsl_min_fminimizer_x_minimum(m);
    gsl_min_fminimizer_free(m);
    if (st)
        return tuner_gsl_fail(err, st, TUNE_GSL_MSG, "fitting K");
    *K = exp(x);
    return TV_OK;
}
/* The loss of the hold-out set at w (NAN without one). */
static double hold_loss(const TuneSet *hold, const double *w, double K)
{
    return hold && hold->n ? tune_loss(hold, w, K, NULL, NULL) : NAN;
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
    hess_sums(c->s, w, c->K, c->gw, c->fidx, c->p, true, A, NULL, &rss, &W);
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
                return tuner_gsl_fail(err, st, TUNE_GSL_MSG, "factoring the Newton matrix");
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
            TuneIteration it = {*iter, tune_loss(c->s, w, c->K, c->gw, NULL), hold_loss(hold, w, c->K), f, {0}};
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
        TuneIteration it = {0, mse0, hold_loss(hold, out->w, c->K), box_objective(c, out->w, NULL), {0}};
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
    r->nhistory = 0;
}

/* The per-game score sums' outer products over the free weights F:
 *   Bc = sum_g u_g u_g^T,  u_g = sum_{i in game g} r_i J_i,
 * J_i = sigmoid'(K e_i) K f_F,i (p x p, row-major).  The games are taken in
 * order of their numbers, in a fixed number of chunks summed in order, so
 * the result does not depend on the number of threads.  *ngames receives
 * the number of games.  False when out of memory. */
static bool cluster_sums(const TuneSet *s, const double *w, double K, const int *fidx, int p, double *Bc,
                         double *usum, int64_t *ngames)
{
    enum { CL_CHUNKS = 16 };
    size_t pp = (size_t)p * (size_t)p;
    int32_t G = s->ngames;
    int64_t *start = calloc((size_t)G + 2, sizeof *start); /* positions of game g: order[start[g] .. start[g+1]) */
    int64_t *order = malloc(sizeof *order * (size_t)(s->n ? s->n : 1));
    double *part = calloc((size_t)CL_CHUNKS * (pp + (size_t)p + 1), sizeof *part);
    if (!start || !order || !part) {
        free(start);
        free(order);
        free(part);
        return false;
    }
    for (int64_t i = 0; i < s->n; i++)
        start[s->game[i] + 1]++;
    int64_t games = 0;
    for (int32_t g = 0; g < G; g++) {
        games += start[g + 1] > 0;
        start[g + 1] += start[g];
    }
    int64_t *fill = calloc((size_t)G + 1, sizeof *fill);
    if (!fill) {
        free(start);
        free(order);
        free(part);
        return false;
    }
    for (int64_t i = 0; i < s->n; i++)
        order[start[s->game[i]] + fill[s->game[i]]++] = i;
    free(fill);
    int posf[NW];
    for (int i = 0; i < NW; i++)
        posf[i] = -1;
    for (int j = 0; j < p; j++)
        posf[fidx[j]] = j;
#pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < CL_CHUNKS; c++) {
        double *bm = part + (size_t)c * (pp + (size_t)p + 1), *us = bm + pp;
        double u[NW];
        int32_t g0 = (int32_t)((int64_t)G * c / CL_CHUNKS), g1 = (int32_t)((int64_t)G * (c + 1) / CL_CHUNKS);
        for (int32_t g = g0; g < g1; g++) {
            if (start[g] == start[g + 1])
                continue;
            memset(u, 0, sizeof u);
            for (int64_t q = start[g]; q < start[g + 1]; q++) {
                int64_t i = order[q];
                double e = 0;
                for (int64_t k = s->row[i]; k < s->row[i + 1]; k++)
                    e += w[s->ent[k].idx] * s->ent[k].val;
                double pr = tune_sigmoid(K * e);
                double r = 0.5 * s->label2[i] - pr, d = r * pr * (1 - pr) * K;
                for (int64_t k = s->row[i]; k < s->row[i + 1]; k++) {
                    int j = posf[s->ent[k].idx];
                    if (j >= 0)
                        u[j] += d * s->ent[k].val;
                }
            }
            for (int x = 0; x < p; x++)
                if (u[x] != 0) {
                    us[x] += u[x];
                    for (int y = 0; y < p; y++)
                        bm[(size_t)x * (size_t)p + (size_t)y] += u[x] * u[y];
                }
        }
    }
    memset(Bc, 0, pp * sizeof *Bc);
    memset(usum, 0, (size_t)p * sizeof *usum);
    for (int c = 0; c < CL_CHUNKS; c++) {
        const double *bm = part + (size_t)c * (pp + (size_t)p + 1);
        for (size_t k = 0; k < pp; k++)
            Bc[k] += bm[k];
        for (int x = 0; x < p; x++)
            usum[x] += bm[pp + (size_t)x];
    }
    free(start);
    free(order);
    free(part);
    *ngames = games;
    return true;
}

/* The covariance of the fitted weights over the free weights not on a
 * bound, the "sandwich" with game-clustered scores, at the L2 strength of
 * the fit:
 *   cov = G/(G-1) H^-1 Bc H^-1,  H = A + l2 W I,
 *   A = the exact second derivative of the squared-error sum (hess_sums),
 *   Bc = sum_g (u_g - ubar)(u_g - ubar)^T (cluster_sums; ubar the mean game
 *   score, not 0 at a penalised optimum),  J_i = sigmoid'(K e_i) K f_i.
 * H is the Hessian of the objective that was minimised (W = the number of
 * positions: the loss is a mean), so the error is that of the estimate the
 * fit returns at its L2: the pull's curvature is in the bread.  (With the
 * Gauss-Newton matrix of the data alone as bread, the errors at the chosen
 * L2 came out about twice the bootstrap over games, which refits with the
 * pull; with H they agree: tests/test_tune_selfplay.c.)
 * Positions of one game share its result, so their residuals are strongly
 * correlated: treating them as independent (B = sum_i r_i^2 J_i J_i^T, the
 * per-position sandwich with n/(n-p), kept in se_positions for comparison)
 * gave errors 2.6 times (median) smaller than the bootstrap over games.
 * Identifiability is judged on the data alone: from the eigen-decomposition
 * of the Gauss-Newton matrix sum_i J_i J_i^T scaled to unit diagonal, a
 * weight with a real component in a null direction (collinear features in
 * the data: the loss cannot tell it from a combination of others) gets se =
 * INFINITY, whatever the pull.  The inverse of H is a pseudo-inverse over
 * the same scaling.  The correlations of the clustered covariance with
 * |r| > TUNE_CORR_REPORT go to corr (strongest first).  *resvar receives
 * rss / (n - p). */
static TvStatus covariance(const TuneSet *s, const double *w, double K, double l2, const int *fidx, int p,
                           double *se, double *se_positions, double *resvar, TuneResult *corr, TvError *err)
{
    size_t pp = (size_t)p * (size_t)p;
    double *A = malloc(sizeof *A * (pp ? pp : 1));
    double *H = malloc(sizeof *H * (pp ? pp : 1));
    double *B = malloc(sizeof *B * (pp ? pp : 1));
    double *Bc = malloc(sizeof *Bc * (pp ? pp : 1));
    double usum[NW];
    int64_t G = 0;
    if (!A || !H || !B || !Bc || !cluster_sums(s, w, K, fidx, p, Bc, usum, &G)) {
        free(A);
        free(H);
        free(B);
        free(Bc);
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    }
    double rss, W, rss2, W2;
    gn_sums(s, w, K, NULL, fidx, p, A, B, &rss, &W);
    hess_sums(s, w, K, NULL, fidx, p, true, H, NULL, &rss2, &W2);
    *resvar = s->n > p ? rss / (double)(s->n - p) : NAN;
    corr->ncorr = corr->ncorr_all = 0;
    if (p == 0) {
        free(A);
        free(H);
        free(B);
        free(Bc);
        return TV_OK;
    }
    if (G > 0)
        for (int u = 0; u < p; u++)
            for (int v = 0; v < p; v++)
                Bc[(size_t)u * (size_t)p + (size_t)v] -= usum[u] * usum[v] / (double)G;
    /* small-sample corrections: n / (n - p) per position, G / (G - 1) per game */
    double hc1 = s->n > p ? (double)s->n / (double)(s->n - p) : 1;
    double cr1 = G > 1 ? (double)G / (double)(G - 1) : 1;
    size_t up = (size_t)p;
    gsl_matrix *C = gsl_matrix_alloc(up, up), *V = gsl_matrix_alloc(up, up), *Mi = gsl_matrix_calloc(up, up),
               *T = gsl_matrix_alloc(up, up), *R = gsl_matrix_alloc(up, up);
    gsl_vector *ev = gsl_vector_alloc(up);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(up);
    double *d = malloc(sizeof *d * up);
    TvStatus ts = TV_OK;
    if (!C || !V || !Mi || !T || !R || !ev || !ws || !d)
        ts = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    /* pass 0: the data's Gauss-Newton matrix (identifiability); pass 1: the
     * objective's Hessian (its pseudo-inverse into Mi) */
    for (int pass = 0; pass < 2 && ts == TV_OK; pass++) {
        const double *M = pass ? H : A;
        const double shift = pass ? W * l2 : 0;
        for (int j = 0; j < p; j++) {
            double m = A[(size_t)j * up + (size_t)j] + shift;
            d[j] = m > 0 ? sqrt(m) : 1;
        }
        for (int u = 0; u < p; u++)
            for (int v = 0; v < p; v++)
                gsl_matrix_set(C, (size_t)u, (size_t)v,
                               (M[(size_t)u * up + (size_t)v] + (u == v ? shift : 0)) / (d[u] * d[v]));
        int st = gsl_eigen_symmv(C, ev, V, ws);
        if (st) {
            ts = tuner_gsl_fail(err, st, TUNE_GSL_MSG, "the covariance's eigen-decomposition");
            break;
        }
        double emax = gsl_vector_max(ev), cut = 1e-10 * (emax > 0 ? emax : 1);
        if (pass == 0) {
            for (int j = 0; j < p; j++) {
                double nullload = 0;
                for (int k = 0; k < p; k++) {
                    double e = gsl_vector_get(ev, (size_t)k), vjk = gsl_matrix_get(V, (size_t)j, (size_t)k);
                    if (e <= cut)
                        nullload += vjk * vjk;
                }
                se[fidx[j]] = nullload > 1e-8 ? INFINITY : 0;
            }
            continue;
        }
        /* Mi = D^-1 V L^+ V^T D^-1 */
        for (int u = 0; u < p; u++)
            for (int v = 0; v < p; v++) {
                double acc = 0;
                for (int k = 0; k < p; k++) {
                    double e = gsl_vector_get(ev, (size_t)k);
                    if (e > cut)
                        acc += gsl_matrix_get(V, (size_t)u, (size_t)k) * gsl_matrix_get(V, (size_t)v, (size_t)k) / e;
                }
                gsl_matrix_set(Mi, (size_t)u, (size_t)v, acc / (d[u] * d[v]));
            }
        /* Mi B Mi, per position and per game (the game's last: R keeps it) */
        for (int k = 0; k < 2; k++) {
            gsl_matrix_view Bv = gsl_matrix_view_array(k ? Bc : B, up, up);
            gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, Mi, &Bv.matrix, 0.0, T);
            gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, T, Mi, 0.0, R);
            double *out = k ? se : se_positions;
            for (int j = 0; j < p; j++) {
                if (isinf(se[fidx[j]])) {
                    out[fidx[j]] = INFINITY;
                    continue;
                }
                double v = gsl_matrix_get(R, (size_t)j, (size_t)j) * (k ? cr1 : hc1);
                out[fidx[j]] = v > 0 ? sqrt(v) : 0;
            }
        }
        /* the strongly correlated pairs, strongest first */
        for (int u = 0; u < p; u++)
            for (int v = u + 1; v < p; v++) {
                if (!isfinite(se[fidx[u]]) || !isfinite(se[fidx[v]]))
                    continue;
                double su = gsl_matrix_get(R, (size_t)u, (size_t)u), sv = gsl_matrix_get(R, (size_t)v, (size_t)v);
                if (!(su > 0 && sv > 0))
                    continue;
                double r = gsl_matrix_get(R, (size_t)u, (size_t)v) / sqrt(su * sv);
                if (!(fabs(r) > TUNE_CORR_REPORT))
                    continue;
                corr->ncorr_all++;
                int at;
                if (corr->ncorr < TUNE_CORR_MAX)
                    at = corr->ncorr++;
                else if (fabs(r) > fabs(corr->corr[TUNE_CORR_MAX - 1].r))
                    at = TUNE_CORR_MAX - 1; /* the list is full: the weakest makes room */
                else
                    continue;
                corr->corr[at] = (TuneCorrPair){fidx[u], fidx[v], r};
                for (; at > 0 && fabs(corr->corr[at - 1].r) < fabs(corr->corr[at].r); at--) {
                    TuneCorrPair t = corr->corr[at];
                    corr->corr[at] = corr->corr[at - 1];
                    corr->corr[at - 1] = t;
                }
            }
    }
    if (C)
        gsl_matrix_free(C);
    if (V)
        gsl_matrix_free(V);
    if (Mi)
        gsl_matrix_free(Mi);
    if (T)
        gsl_matrix_free(T);
    if (R)
        gsl_matrix_free(R);
    if (ev)
        gsl_vector_free(ev);
    if (ws)
        gsl_eigen_symmv_free(ws);
    free(d);
    free(A);
    free(H);
    free(B);
    free(Bc);
    return ts;
}

/* For each weight, the number of games and of positions of s in which its
 * feature occurs. */
static void count_feature_games(const TuneSet *s, int32_t *games, int64_t *positions)
{
    int32_t last[NW];
    for (int i = 0; i < NW; i++) {
        games[i] = 0;
        positions[i] = 0;
        last[i] = -1;
    }
    for (int64_t p = 0; p < s->n; p++)
        for (int64_t k = s->row[p]; k < s->row[p + 1]; k++) {
            int i = s->ent[k].idx;
            if (!s->ent[k].val)
                continue;
            positions[i]++;
            if (last[i] != s->game[p]) {
                last[i] = s->game[p];
                games[i]++;
            }
        }
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
        gn_sums(s, c->base, c->K, NULL, c->fidx, c->p, A, NULL, &rss, &W);
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
    tuner_gsl_errors_off();
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
    out->hold_loss0 = hold_loss(hold, out->start, c.K);
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
            st = covariance(fit, out->fitted, c.K, c.l2, fidx2, p2, out->se, out->se_positions, &out->residual_var, out,
                        err);
        /* A weight the data cannot determine (its feature collinear with
         * others here, e.g. a tune on one game) keeps its start value: the
         * fitted number is one of infinitely many equally good ones. */
        count_feature_games(fit, out->feature_games, out->feature_positions);
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
        out->moved_2se = 0;
        for (int j = 0; st == TV_OK && j < c.p; j++) {
            int i = c.fidx[j];
            out->moved_2se += isfinite(out->se[i]) && out->se[i] > 0 && !out->undetermined[i] &&
                              fabs(out->fitted[i] - out->start[i]) > 2 * out->se[i];
        }
        out->fit_loss1 = tune_loss(fit, out->fitted, c.K, NULL, NULL);
        out->hold_loss1 = hold_loss(hold, out->fitted, c.K);
        double rw[NW];
        for (int i = 0; i < NW; i++)
            rw[i] = out->rounded[i];
        out->fit_loss_rounded = tune_loss(fit, rw, c.K, NULL, NULL);
        out->hold_loss_rounded = hold_loss(hold, rw, c.K);
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
