/* ratings.c: BayesElo ratings by maximum likelihood (GSL).  See ratings.h.
 *
 * Units.  Internally the ratings are in natural log-odds ("nats"):
 * r = elo * ln(10) / 400, so that f(x) = 1 / (1 + 10^(-x/400)) becomes the
 * logistic sigma(r) = 1 / (1 + e^-r).  The draw parameter is
 * theta = draw_elo * ln(10) / 400 > 0.
 *
 * The model for one game of i against j (d = r_i - r_j, colours ignored):
 *   p_win  = sigma(d - theta), p_loss = sigma(-d - theta),
 *   p_draw = 1 - p_win - p_loss = expm1(2 theta) * p_win * p_loss
 * (the last identity is sigma(a) - sigma(b) = (e^(a-b) - 1) sigma(-a) sigma(b)
 *  with a = theta - d, b = -theta - d; it avoids the cancellation in
 *  1 - p_win - p_loss), so one pair's
 * log-likelihood with w wins of i, D draws and l wins of j is
 *   (w + D) log p_win + (l + D) log p_loss + D log expm1(2 theta),
 * with the analytic gradient and Hessian used below.
 *
 * Games are first aggregated into per-pair counts (colours are irrelevant in
 * this model), so the fit costs O(games) once plus O(players^2) per
 * iteration, and the result does not depend on the order of the games (the
 * counts are integers, summed exactly). */
#include "ratings.h"
#include "gsl_util.h"
#include "rng.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>

#define ELO_PER_NAT (400.0 / M_LN10) /* 173.717... */
#define MAX_PLAYERS 1024
/* A GSL failure: what failed, then GSL's text (stats_gsl_fail). */
#define RATINGS_GSL_MSG "ratings: %s failed (GSL: %s)"

/* The weak prior, used only when the plain maximum-likelihood solution may
 * not be finite.  A finite ML solution needs (at least) that every player
 * both beat and lost to the rest in some way, and that there are draws and
 * decisive games.  We test the simple sufficient condition "the graph of
 * decisive results (i -> j when i beat j) is strongly connected over all
 * players, and there is at least one draw": then every direction in which the
 * ratings or the draw parameter run away makes some term of the likelihood go
 * to -infinity, so the maximum is finite and unique.  When the condition fails
 * (a player who won or lost every game, a player without games, no draws,
 * groups linked by draws only, ...) every pair of players (i, j), met or not,
 * gets PRIOR_GAMES virtual games scored as PRIOR_WIN wins, PRIOR_DRAW draws
 * and PRIOR_WIN losses, and the fit is the maximum of the posterior instead:
 * a perfect score of W games is then rated as if it were about
 * W + 0.25 wins out of W + 1 games against the rest (finite, and shrinking
 * towards the field as it should with few games).  With two players and
 * results that have W, D, L all > 0 the fit is exactly the ML one (closed
 * form, see ratings_fit's test). */
#define PRIOR_WIN 0.25
#define PRIOR_DRAW 0.5

/* ---- small numerical helpers --------------------------------------------- */

static double sigmoid(double x)
{
    if (x >= 0)
        return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

/* log(sigma(x)), stable for large |x|. */
static double log_sigmoid(double x)
{
    if (x >= 0)
        return -log1p(exp(-x));
    return x - log1p(exp(x));
}

/* ---- aggregated results ---------------------------------------------------- */

/* Counts per unordered pair i < j, stored at [i*n + j]: win = i beat j,
 * loss = j beat i.  Doubles so that the prior can be added. */
typedef struct {
    int n;
    double *win, *draw, *loss;
    double total; /* all counts, prior included */
} Counts;

static void counts_free(Counts *c)
{
    free(c->win);
    free(c->draw);
    free(c->loss);
    memset(c, 0, sizeof *c);
}

static bool counts_alloc(Counts *c, int n)
{
    size_t nn = (size_t)n * (size_t)n;
    c->n = n;
    c->win = calloc(nn, sizeof(double));
    c->draw = calloc(nn, sizeof(double));
    c->loss = calloc(nn, sizeof(double));
    c->total = 0;
    if (!c->win || !c->draw || !c->loss) {
        counts_free(c);
        return false;
    }
    return true;
}

/* True when the plain ML fit is guaranteed finite (see PRIOR_WIN above). */
static bool ml_exists(const Counts *c)
{
    int n = c->n;
    bool any_draw = false;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (c->draw[i * n + j] > 0)
                any_draw = true;
    if (!any_draw)
        return false;
    /* Strong connectivity of i -> j (i beat j): everyone reachable from 0
     * forwards and backwards. */
    bool *seen = calloc((size_t)n, sizeof(bool));
    int *stack = malloc((size_t)n * sizeof(int));
    bool ok = seen && stack;
    for (int dir = 0; ok && dir < 2; dir++) {
        memset(seen, 0, (size_t)n * sizeof(bool));
        int top = 0, count = 1;
        seen[0] = true;
        stack[top++] = 0;
        while (top > 0) {
            int u = stack[--top];
            for (int v = 0; v < n; v++) {
                if (seen[v] || v == u)
                    continue;
                /* forward: u beat v; backward: v beat u */
                int i = u < v ? u : v, j = u < v ? v : u;
                bool u_beat_v = u < v ? c->win[i * n + j] > 0 : c->loss[i * n + j] > 0;
                bool v_beat_u = u < v ? c->loss[i * n + j] > 0 : c->win[i * n + j] > 0;
                if (dir == 0 ? u_beat_v : v_beat_u) {
                    seen[v] = true;
                    count++;
                    stack[top++] = v;
                }
            }
        }
        if (count < n)
            ok = false;
    }
    free(seen);
    free(stack);
    return ok;
}

static void counts_add_prior(Counts *c)
{
    int n = c->n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            c->win[i * n + j] += PRIOR_WIN;
            c->loss[i * n + j] += PRIOR_WIN;
            c->draw[i * n + j] += PRIOR_DRAW;
            c->total += 2 * PRIOR_WIN + PRIOR_DRAW;
        }
}

/* ---- the likelihood ------------------------------------------------------ */

/* Optimisation variables: x[k] = r_{k+1} (k < n-1, r_0 = 0) and
 * x[n-1] = log(theta) (keeps theta > 0).  The objective is the negative
 * log-likelihood divided by the number of games (well scaled for the
 * gradient test). */
static void unpack(const gsl_vector *x, int n, double *r, double *theta)
{
    r[0] = 0;
    for (int k = 1; k < n; k++)
        r[k] = gsl_vector_get(x, (size_t)(k - 1));
    *theta = exp(gsl_vector_get(x, (size_t)(n - 1)));
}

typedef struct {
    const Counts *c;
    double *r;    /* n */
    double *grad; /* n: d/dr_i, then one slot for d/dtheta */
} FitCtx;

/* Negative log-likelihood / total, and optionally its gradient in
 * (r_0..r_{n-1}) and theta (grad_r has n entries, *grad_theta one). */
static double nll_eval(const Counts *c, const double *r, double theta, double *grad_r, double *grad_theta)
{
    int n = c->n;
    double ll = 0, gt = 0;
    double ldraw = log(expm1(2 * theta));
    double dldraw = 2.0 + 2.0 / expm1(2 * theta);
    if (grad_r)
        memset(grad_r, 0, (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            size_t k = (size_t)i * (size_t)n + (size_t)j;
            double w = c->win[k], dr = c->draw[k], l = c->loss[k];
            if (w + dr + l == 0)
                continue;
            double d = r[i] - r[j];
            double a = w + dr, b = l + dr;
            ll += a * log_sigmoid(d - theta) + b * log_sigmoid(-d - theta);
            if (dr > 0)
                ll += dr * ldraw;
            if (grad_r) {
                /* d/dx log sigma(x) = sigma(-x) */
                double qa = sigmoid(theta - d); /* 1 - p_win */
                double qb = sigmoid(theta + d); /* 1 - p_loss */
                double gd = a * qa - b * qb;
                grad_r[i] -= gd;
                grad_r[j] += gd;
                gt -= -a * qa - b * qb + dr * dldraw;
            }
        }
    if (grad_r) {
        for (int i = 0; i < n; i++)
            grad_r[i] /= c->total;
        *grad_theta = gt / c->total;
    }
    return -ll / c->total;
}

static double fit_f(const gsl_vector *x, void *params)
{
    FitCtx *ctx = params;
    double theta;
    unpack(x, ctx->c->n, ctx->r, &theta);
    double v = nll_eval(ctx->c, ctx->r, theta, NULL, NULL);
    return isfinite(v) ? v : GSL_POSINF;
}

static void fit_fdf(const gsl_vector *x, void *params, double *f, gsl_vector *g)
{
    FitCtx *ctx = params;
    int n = ctx->c->n;
    double theta, gtheta;
    unpack(x, n, ctx->r, &theta);
    *f = nll_eval(ctx->c, ctx->r, theta, ctx->grad, &gtheta);
    for (int k = 1; k < n; k++)
        gsl_vector_set(g, (size_t)(k - 1), ctx->grad[k]);
    gsl_vector_set(g, (size_t)(n - 1), gtheta * theta); /* chain rule: theta = e^u */
}

static void fit_df(const gsl_vector *x, void *params, gsl_vector *g)
{
    double f;
    fit_fdf(x, params, &f, g);
}

/* Hessian of the negative log-likelihood (not divided by the total) in
 * (r_1..r_{n-1}, theta): h is (n x n). */
static void nll_hessian(const Counts *c, const double *r, double theta, gsl_matrix *h)
{
    int n = c->n;
    size_t m = (size_t)n; /* index n-1 is theta; player p >= 1 is index p-1 */
    gsl_matrix_set_zero(h);
    double e = expm1(2 * theta);
    double d2draw = -4.0 * (e + 1.0) / (e * e); /* d2/dtheta2 log expm1(2 theta) */
    size_t t = m - 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            size_t k = (size_t)i * m + (size_t)j;
            double w = c->win[k], dr = c->draw[k], l = c->loss[k];
            if (w + dr + l == 0)
                continue;
            double d = r[i] - r[j];
            double pw = sigmoid(d - theta), pl = sigmoid(-d - theta);
            double va = (w + dr) * pw * (1 - pw), vb = (l + dr) * pl * (1 - pl);
            /* -LL second derivatives in (d, theta) */
            double hdd = va + vb, hdt = -(va - vb), htt = va + vb - dr * d2draw;
            /* d = r_i - r_j: spread onto players i, j (player 0 is fixed) */
            if (i > 0) {
                size_t ii = (size_t)i - 1;
                *gsl_matrix_ptr(h, ii, ii) += hdd;
                *gsl_matrix_ptr(h, ii, t) += hdt;
                *gsl_matrix_ptr(h, t, ii) += hdt;
            }
            size_t jj = (size_t)j - 1; /* j >= 1 always */
            *gsl_matrix_ptr(h, jj, jj) += hdd;
            *gsl_matrix_ptr(h, jj, t) -= hdt;
            *gsl_matrix_ptr(h, t, jj) -= hdt;
            if (i > 0) {
                size_t ii = (size_t)i - 1;
                *gsl_matrix_ptr(h, ii, jj) -= hdd;
                *gsl_matrix_ptr(h, jj, ii) -= hdd;
            }
            *gsl_matrix_ptr(h, t, t) += htt;
        }
}

/* A few Newton steps with the analytic Hessian after BFGS: BFGS stops when
 * the gradient is small, Newton then reaches the maximum to rounding
 * precision (quadratic convergence), so that e.g. the two-player fit matches
 * its closed form to 1e-9 Elo.  A step is kept only when it keeps theta > 0
 * and lowers the objective, or lowers the gradient while leaving the
 * objective equal up to rounding (near the maximum the objective cannot
 * resolve the last digits, the gradient can). */
static void polish(const Counts *c, double *r, double *theta)
{
    int n = c->n;
    size_t m = (size_t)n;
    gsl_matrix *h = gsl_matrix_alloc(m, m);
    gsl_vector *g = gsl_vector_alloc(m);
    gsl_vector *step = gsl_vector_alloc(m);
    double *gr = malloc(m * sizeof(double));
    double *nr = malloc(m * sizeof(double));
    if (!h || !g || !step || !gr || !nr)
        goto done;
    for (int it = 0; it < 8; it++) {
        double gt;
        double f = nll_eval(c, r, *theta, gr, &gt);
        double gnorm = fabs(gt);
        for (int k = 1; k < n; k++) {
            gsl_vector_set(g, (size_t)k - 1, gr[k] * c->total);
            gnorm = fmax(gnorm, fabs(gr[k]));
        }
        gsl_vector_set(g, m - 1, gt * c->total);
        if (gnorm < 1e-15)
            break;
        nll_hessian(c, r, *theta, h);
        if (gsl_linalg_cholesky_decomp1(h) || gsl_linalg_cholesky_solve(h, g, step))
            break;
        nr[0] = 0;
        for (int k = 1; k < n; k++)
            nr[k] = r[k] - gsl_vector_get(step, (size_t)k - 1);
        double nt = *theta - gsl_vector_get(step, m - 1);
        if (!(nt > 0))
            break;
        double ngt;
        double nf = nll_eval(c, nr, nt, gr, &ngt);
        double ngnorm = fabs(ngt);
        for (int k = 1; k < n; k++)
            ngnorm = fmax(ngnorm, fabs(gr[k]));
        if (!(nf < f || (ngnorm < gnorm && nf <= f + 1e-14 * fabs(f))))
            break;
        memcpy(r, nr, m * sizeof(double));
        *theta = nt;
    }
done:
    gsl_matrix_free(h);
    gsl_vector_free(g);
    gsl_vector_free(step);
    free(gr);
    free(nr);
}

/* Fits the counts: on success r (n, nats, r_0 = 0) and *theta hold the
 * maximum; x0 (n, may be NULL) is the starting point in the same layout
 * (r_1..r_{n-1}, log theta). */
static TvStatus fit_counts(const Counts *c, const double *x0, double *r, double *theta, int *iterations,
                           TvError *err)
{
    int n = c->n;
    size_t dim = (size_t)n;
    TvStatus st = TV_OK;
    double *grad = malloc(dim * sizeof(double));
    gsl_vector *x = gsl_vector_alloc(dim);
    gsl_multimin_fdfminimizer *s = gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, dim);
    if (!grad || !x || !s) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    if (x0) {
        for (size_t k = 0; k < dim; k++)
            gsl_vector_set(x, k, x0[k]);
    } else {
        /* Start from equal ratings and the draw parameter matching the
         * overall draw rate at d = 0: p_draw = 1 - 2 sigma(-theta). */
        double draws = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                draws += c->draw[(size_t)i * dim + (size_t)j];
        double dr = draws / c->total;
        if (dr < 0.01)
            dr = 0.01;
        if (dr > 0.99)
            dr = 0.99;
        gsl_vector_set_zero(x);
        gsl_vector_set(x, dim - 1, log(log((1 + dr) / (1 - dr))));
    }
    FitCtx ctx = { c, r, grad };
    gsl_multimin_function_fdf fdf = { fit_f, fit_df, fit_fdf, dim, &ctx };
    int gs = gsl_multimin_fdfminimizer_set(s, &fdf, x, 0.1, 0.1);
    if (gs) {
        st = stats_gsl_fail(err, gs, RATINGS_GSL_MSG, "minimiser set-up");
        goto done;
    }
    int iter = 0, status = GSL_CONTINUE, failure = GSL_SUCCESS;
    const double tol = 1e-11;
    while (status == GSL_CONTINUE && iter < 2000) {
        iter++;
        int is = gsl_multimin_fdfminimizer_iterate(s);
        if (is) {
            /* No further progress by BFGS (typically rounding in the line
             * search near the minimum): Newton below takes over. */
            failure = is;
            break;
        }
        status = gsl_multimin_test_gradient(s->gradient, tol);
    }
    if (status == GSL_CONTINUE && failure == GSL_SUCCESS)
        failure = GSL_EMAXITER;
    unpack(s->x, n, r, theta);
    polish(c, r, theta);
    /* Accept when the gradient (per game, in nats) is negligible, however
     * BFGS ended. */
    {
        double gt, gmax;
        nll_eval(c, r, *theta, grad, &gt);
        gmax = fabs(gt * *theta);
        for (int k = 1; k < n; k++)
            gmax = fmax(gmax, fabs(grad[k]));
        if (!(gmax < 1e-8)) {
            st = stats_gsl_fail(err, failure ? failure : GSL_ENOPROG,
                                "ratings: the BFGS fit did not converge (gradient %g; GSL: %s)", gmax);
            goto done;
        }
    }
    if (!isfinite(*theta)) {
        st = tv_fail(err, TV_ERR_ARG, "ratings: the fit diverged");
        goto done;
    }
    for (int k = 0; k < n; k++)
        if (!isfinite(r[k])) {
            st = tv_fail(err, TV_ERR_ARG, "ratings: the fit diverged");
            goto done;
        }
    if (iterations)
        *iterations = iter;
done:
    gsl_multimin_fdfminimizer_free(s);
    gsl_vector_free(x);
    free(grad);
    return st;
}

/* Covariance of the mean-0 ratings in Elo^2 (n x n, row-major) from the
 * inverse Hessian at (r, theta). */
static TvStatus covariance(const Counts *c, const double *r, double theta, double *cov, TvError *err)
{
    int n = c->n;
    size_t m = (size_t)n;
    TvStatus st = TV_OK;
    gsl_matrix *h = gsl_matrix_alloc(m, m);
    double *full = calloc(m * m, sizeof(double));
    if (!h || !full) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    nll_hessian(c, r, theta, h);
    int gs = gsl_linalg_cholesky_decomp1(h);
    if (!gs)
        gs = gsl_linalg_cholesky_invert(h);
    if (gs) {
        st = stats_gsl_fail(err, gs, RATINGS_GSL_MSG, "inverting the Hessian");
        goto done;
    }
    /* Covariance of (r_0 = 0, r_1, ..., r_{n-1}). */
    for (int i = 1; i < n; i++)
        for (int j = 1; j < n; j++)
            full[(size_t)i * m + (size_t)j] = gsl_matrix_get(h, (size_t)i - 1, (size_t)j - 1);
    /* e = A r with A = I - 11^T / n:  cov_e = A C A^T, i.e.
     * C_ij - rowmean_i - colmean_j + grandmean. */
    double *rowm = calloc(m, sizeof(double));
    if (!rowm) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    double grand = 0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < m; j++)
            rowm[i] += full[i * m + j];
        rowm[i] /= (double)n;
        grand += rowm[i];
    }
    grand /= (double)n;
    const double s2 = ELO_PER_NAT * ELO_PER_NAT;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++) /* C symmetric: column mean j = rowm[j] */
            cov[i * m + j] = s2 * (full[i * m + j] - rowm[i] - rowm[j] + grand);
    free(rowm);
done:
    gsl_matrix_free(h);
    free(full);
    return st;
}

/* Fits counts, adding the prior when needed (on a copy). */
static TvStatus fit_with_prior(const Counts *c0, Counts *work, const double *x0, double *r, double *theta,
                               int *iterations, TvError *err)
{
    size_t nn = (size_t)c0->n * (size_t)c0->n;
    memcpy(work->win, c0->win, nn * sizeof(double));
    memcpy(work->draw, c0->draw, nn * sizeof(double));
    memcpy(work->loss, c0->loss, nn * sizeof(double));
    work->total = c0->total;
    if (!ml_exists(work))
        counts_add_prior(work);
    return fit_counts(work, x0, r, theta, iterations, err);
}

void ratings_free(Ratings *r)
{
    if (!r)
        return;
    free(r->elo);
    free(r->lo);
    free(r->hi);
    free(r->cov);
    free(r->los);
    memset(r, 0, sizeof *r);
}

/* Percentile intervals from `simulations` replays of the schedule drawn from
 * the fitted model (r, theta): each replay keeps the number of games of every
 * pair, draws its W/D/L from the model, and is refitted the same way. */
static TvStatus simulate_intervals(const Counts *data, const double *r, double theta, int simulations,
                                   uint64_t seed, double *lo, double *hi, TvError *err)
{
    int n = data->n;
    size_t m = (size_t)n;
    TvStatus st = TV_OK;
    Counts sim = { 0 }, work = { 0 };
    double *samples = malloc(m * (size_t)simulations * sizeof(double));
    double *rs = malloc(m * sizeof(double));
    double *x0 = malloc(m * sizeof(double));
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!samples || !rs || !x0 || !rng || !counts_alloc(&sim, n) || !counts_alloc(&work, n)) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    gsl_rng_set(rng, (unsigned long)(tv_rng_mix(seed) & 0xffffffffu));
    for (int k = 1; k < n; k++)
        x0[k - 1] = r[k];
    x0[n - 1] = log(theta);
    for (int s = 0; s < simulations; s++) {
        sim.total = data->total;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                size_t k = (size_t)i * m + (size_t)j;
                double games = data->win[k] + data->draw[k] + data->loss[k];
                sim.win[k] = sim.draw[k] = sim.loss[k] = 0;
                if (games <= 0)
                    continue;
                double d = r[i] - r[j];
                double pw = sigmoid(d - theta), pl = sigmoid(-d - theta);
                unsigned int g = (unsigned int)games;
                unsigned int w = gsl_ran_binomial(rng, pw, g);
                unsigned int l = w < g ? gsl_ran_binomial(rng, pl / (1 - pw), g - w) : 0;
                sim.win[k] = w;
                sim.loss[k] = l;
                sim.draw[k] = (double)(g - w - l);
            }
        double th;
        st = fit_with_prior(&sim, &work, x0, rs, &th, NULL, err);
        if (st)
            goto done;
        double mean = 0;
        for (int i = 0; i < n; i++)
            mean += rs[i];
        mean /= n;
        for (int i = 0; i < n; i++)
            samples[(size_t)i * (size_t)simulations + (size_t)s] = (rs[i] - mean) * ELO_PER_NAT;
    }
    for (int i = 0; i < n; i++) {
        double *v = samples + (size_t)i * (size_t)simulations;
        gsl_sort(v, 1, (size_t)simulations);
        lo[i] = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)simulations, 0.025);
        hi[i] = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)simulations, 0.975);
    }
done:
    counts_free(&sim);
    counts_free(&work);
    gsl_rng_free(rng);
    free(samples);
    free(rs);
    free(x0);
    return st;
}

TvStatus ratings_fit(const RatedGame *games, int64_t ngames, int nplayers, int simulations, uint64_t seed,
                     Ratings *out, TvError *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!out)
        return tv_fail(err, TV_ERR_ARG, "ratings: no output");
    if (nplayers < 2)
        return tv_fail(err, TV_ERR_ARG, "ratings: need at least 2 players, got %d", nplayers);
    if (nplayers > MAX_PLAYERS)
        return tv_fail(err, TV_ERR_LIMIT, "ratings: %d players (at most %d)", nplayers, MAX_PLAYERS);
    if (ngames <= 0 || !games)
        return tv_fail(err, TV_ERR_ARG, "ratings: no games");
    if (simulations < 0)
        return tv_fail(err, TV_ERR_ARG, "ratings: negative number of simulations (%d)", simulations);
    /* GSL must not abort the process: its errors come back as status codes
     * and are reported in err (gsl_util.h). */
    stats_gsl_errors_off();

    int n = nplayers;
    size_t m = (size_t)n;
    TvStatus st = TV_OK;
    Counts data = { 0 }, work = { 0 };
    double *r = malloc(m * sizeof(double));
    bool *played = calloc(m, sizeof(bool));
    if (!r || !played || !counts_alloc(&data, n) || !counts_alloc(&work, n)) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    /* Aggregate in integers (exact, order-independent), then convert. */
    int64_t *cnt = calloc(3 * m * m, sizeof(int64_t));
    if (!cnt) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    for (int64_t g = 0; g < ngames; g++) {
        const RatedGame *gm = &games[g];
        if (gm->white < 0 || gm->white >= n || gm->black < 0 || gm->black >= n || gm->white == gm->black ||
            gm->result < -1 || gm->result > 1) {
            free(cnt);
            if (gm->white == gm->black && gm->white >= 0 && gm->white < n)
                st = tv_fail(err, TV_ERR_ARG, "ratings: game %lld: player %d against itself", (long long)g,
                             gm->white);
            else if (gm->result < -1 || gm->result > 1)
                st = tv_fail(err, TV_ERR_ARG, "ratings: game %lld: bad result %d (1, 0 or -1)", (long long)g,
                             gm->result);
            else
                st = tv_fail(err, TV_ERR_ARG, "ratings: game %lld: player index %d/%d outside 0..%d", (long long)g,
                             gm->white, gm->black, n - 1);
            goto done;
        }
        int i = gm->white, j = gm->black, res = gm->result;
        if (i > j) {
            int t = i;
            i = j;
            j = t;
            res = -res;
        }
        /* res from i's view: 1 i won (slot 0), 0 draw (1), -1 j won (2) */
        cnt[3 * ((size_t)i * m + (size_t)j) + (size_t)(1 - res)]++;
        played[i] = played[j] = true;
    }
    for (size_t k = 0; k < m * m; k++) {
        data.win[k] = (double)cnt[3 * k];
        data.draw[k] = (double)cnt[3 * k + 1];
        data.loss[k] = (double)cnt[3 * k + 2];
    }
    free(cnt);
    data.total = (double)ngames;
    int with_games = 0;
    for (int i = 0; i < n; i++)
        with_games += played[i];
    if (with_games < 2) {
        st = tv_fail(err, TV_ERR_ARG, "ratings: fewer than 2 players with games");
        goto done;
    }

    double theta;
    st = fit_with_prior(&data, &work, NULL, r, &theta, &out->iterations, err);
    if (st)
        goto done;

    out->n = n;
    out->elo = malloc(m * sizeof(double));
    out->lo = malloc(m * sizeof(double));
    out->hi = malloc(m * sizeof(double));
    out->cov = malloc(m * m * sizeof(double));
    out->los = malloc(m * m * sizeof(double));
    if (!out->elo || !out->lo || !out->hi || !out->cov || !out->los) {
        st = tv_fail(err, TV_ERR_LIMIT, "ratings: out of memory");
        goto done;
    }
    double mean = 0;
    for (int i = 0; i < n; i++)
        mean += r[i];
    mean /= n;
    for (int i = 0; i < n; i++)
        out->elo[i] = (r[i] - mean) * ELO_PER_NAT;
    out->draw_elo = theta * ELO_PER_NAT;
    /* The covariance of the model actually fitted (with the prior when it
     * was added). */
    st = covariance(&work, r, theta, out->cov, err);
    if (st)
        goto done;
    for (int i = 0; i < n; i++) {
        double sd = sqrt(fmax(out->cov[(size_t)i * m + (size_t)i], 0));
        out->lo[i] = out->elo[i] - STATS_Z975 * sd;
        out->hi[i] = out->elo[i] + STATS_Z975 * sd;
    }
    /* LOS(i > j) = Phi((e_i - e_j) / sd(e_i - e_j)), from the covariance. */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = out->cov[(size_t)i * m + (size_t)i] + out->cov[(size_t)j * m + (size_t)j] -
                       2 * out->cov[(size_t)i * m + (size_t)j];
            double los = 0.5;
            if (i != j && v > 0)
                los = stats_normal_cdf((out->elo[i] - out->elo[j]) / sqrt(v));
            out->los[(size_t)i * m + (size_t)j] = los;
        }
    /* Make los_ij + los_ji = 1 exact (Phi(-x) = 1 - Phi(x) up to rounding). */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            out->los[(size_t)j * m + (size_t)i] = 1.0 - out->los[(size_t)i * m + (size_t)j];

    if (simulations > 0) {
        st = simulate_intervals(&data, r, theta, simulations, seed, out->lo, out->hi, err);
        if (st)
            goto done;
        out->simulated = true;
    }
done:
    if (st)
        ratings_free(out);
    counts_free(&data);
    counts_free(&work);
    free(r);
    free(played);
    return st;
}
