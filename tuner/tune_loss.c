/* tune_loss.c: the tuner's loss and its derivatives, and K (see tune_fit.h).
 * The loss and its gradient are sums over positions of sparse dot products,
 * computed in a fixed number of chunks (OpenMP over the chunks) whose
 * partial sums are added in chunk order, so the result is the same bit for
 * bit with any number of threads.  The Gauss-Newton and exact second
 * derivatives over the free weights serve the fit (tune_fit.c) and the
 * standard errors (tune_se.c). */
#include "tune_fit.h"
#include "tune_fit_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <omp.h>

#include "gsl_util.h"

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

void tune_gn_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p, double *A,
                  double *B, double *rss, double *wsum)
{
    tune_hess_sums(s, w, K, gw, fidx, p, false, A, B, rss, wsum);
}

/* tune_gn_sums, or with exact the whole second derivative in A:
 * sum m ((s' K)^2 - r s'' K^2) f_F f_F^T, s'' = s' (1 - 2 s). */
void tune_hess_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *fidx, int p,
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
            /* The upper triangle only (cell x <= y), mirrored below: the
             * same products in the same order as the whole square
             * (lv[u] * lv[v] == lv[v] * lv[u]), a quarter of the work when
             * B is not wanted (the Newton steps), and bit for bit the same
             * matrices.  A row's features are distinct, so each cell gets
             * one term a position.  The features in ascending order of
             * their cell (they come so from the fit: an insertion sort
             * only checks), so that a row of the triangle is one pointer.
             * This loop was 71% of test_tune_selfplay under the sanitizers
             * (perf, 2 Dec 2026), where every index costs its checks. */
            for (int u = 1; u < nl; u++)
                for (int v = u; v > 0 && li[v - 1] > li[v]; v--) {
                    int ti = li[v];
                    double tv = lv[v];
                    li[v] = li[v - 1], lv[v] = lv[v - 1];
                    li[v - 1] = ti, lv[v - 1] = tv;
                }
            for (int u = 0; u < nl; u++) {
                const double fu = lv[u];
                double *arow = a + (size_t)li[u] * (size_t)p;
                if (B) {
                    double *brow = bm + (size_t)li[u] * (size_t)p;
                    for (int v = u; v < nl; v++) {
                        double f = fu * lv[v];
                        arow[li[v]] += wa * f;
                        brow[li[v]] += wb * f;
                    }
                } else
                    for (int v = u; v < nl; v++)
                        arow[li[v]] += wa * (fu * lv[v]);
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
    for (size_t x = 0; x < (size_t)p; x++)
        for (size_t y = x + 1; y < (size_t)p; y++) {
            A[y * (size_t)p + x] = A[x * (size_t)p + y];
            if (B)
                B[y * (size_t)p + x] = B[x * (size_t)p + y];
        }
    free(part);
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
    stats_gsl_errors_off();
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
        return stats_gsl_fail(err, st, TUNE_GSL_MSG, "fitting K");
    *K = exp(x);
    return TV_OK;
}

/* The loss of the hold-out set at w (NAN without one). */
double tune_hold_loss(const TuneSet *hold, const double *w, double K)
{
    return hold && hold->n ? tune_loss(hold, w, K, NULL, NULL) : NAN;
}
