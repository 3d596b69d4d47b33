/* tune_se.c: the standard errors of the fitted weights (see tune_fit.h):
 * the game-clustered sandwich with the objective's Hessian (the L2 pull's
 * curvature included) as bread, and how many games and positions carry each
 * weight's feature. */
#include "tune_fit.h"
#include "tune_fit_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <omp.h>

#include "gsl_util.h"

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
TvStatus tune_covariance(const TuneSet *s, const double *w, double K, double l2, const int *fidx, int p,
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
    tune_gn_sums(s, w, K, NULL, fidx, p, A, B, &rss, &W);
    tune_hess_sums(s, w, K, NULL, fidx, p, true, H, NULL, &rss2, &W2);
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
            ts = stats_gsl_fail(err, st, TUNE_GSL_MSG, "the covariance's eigen-decomposition");
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
void tune_count_feature_games(const TuneSet *s, int32_t *games, int64_t *positions)
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
