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
 * the same scaling.  The clustered covariance goes to out->cov (NAN where
 * a weight has no finite error).  *resvar receives rss / (n - p). */
TvStatus tune_covariance(const TuneSet *s, const double *w, double K, double l2, const int *fidx, int p,
                         double *se, double *se_positions, double *resvar, TuneResult *out, TvError *err)
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
    free(out->cov);
    out->cov = malloc(sizeof *out->cov * NW * NW);
    if (!out->cov) {
        free(A);
        free(H);
        free(B);
        free(Bc);
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    }
    for (size_t k = 0; k < (size_t)NW * NW; k++)
        out->cov[k] = NAN;
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
            double *dst = k ? se : se_positions;
            for (int j = 0; j < p; j++) {
                if (isinf(se[fidx[j]])) {
                    dst[fidx[j]] = INFINITY;
                    continue;
                }
                double v = gsl_matrix_get(R, (size_t)j, (size_t)j) * (k ? cr1 : hc1);
                dst[fidx[j]] = v > 0 ? sqrt(v) : 0;
            }
        }
        /* the clustered covariance, for the pairs and groups (tune_tradeoffs) */
        for (int u = 0; u < p; u++)
            for (int v = 0; v < p; v++)
                if (isfinite(se[fidx[u]]) && isfinite(se[fidx[v]]))
                    out->cov[(size_t)fidx[u] * NW + (size_t)fidx[v]] = gsl_matrix_get(R, (size_t)u, (size_t)v) * cr1;
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

/* ---- what trades off: pairs and groups ------------------------------------------ */

/* Whether weight i's fit is adopted with a two-sided error: fitted, its
 * covariance known, not poorly determined, not held at a bound. */
static bool adopted(const TuneResult *r, int i)
{
    return r->free[i] && !r->undetermined[i] && !r->at_bound[i] && isfinite(r->cov[(size_t)i * NW + (size_t)i]) &&
           r->cov[(size_t)i * NW + (size_t)i] > 0;
}

/* The correlation pairs: those a --fixed could anchor (a poorly determined
 * weight is kept at its start whatever the pair says, and listing it
 * advised fixing what is already kept). */
static void tradeoff_pairs(TuneResult *r)
{
    r->ncorr = r->ncorr_all = 0;
    for (int u = 0; u < NW; u++)
        for (int v = u + 1; v < NW; v++) {
            if (!adopted(r, u) || !adopted(r, v))
                continue;
            double c = r->cov[(size_t)u * NW + (size_t)v];
            double rr = c / sqrt(r->cov[(size_t)u * NW + (size_t)u] * r->cov[(size_t)v * NW + (size_t)v]);
            if (!(fabs(rr) > TUNE_CORR_REPORT))
                continue;
            r->ncorr_all++;
            int at;
            if (r->ncorr < TUNE_CORR_MAX)
                at = r->ncorr++;
            else if (fabs(rr) > fabs(r->corr[TUNE_CORR_MAX - 1].r))
                at = TUNE_CORR_MAX - 1; /* the list is full: the weakest makes room */
            else
                continue;
            r->corr[at] = (TuneCorrPair){u, v, rr};
            for (; at > 0 && fabs(r->corr[at - 1].r) < fabs(r->corr[at].r); at--) {
                TuneCorrPair t = r->corr[at];
                r->corr[at] = r->corr[at - 1];
                r->corr[at - 1] = t;
            }
        }
}

/* The joint uncertainty of the adopted weights idx[0..m) of one group into
 * *g, from their estimates' correlation matrix (scale-free: the weights'
 * units and errors differ by orders of magnitude, and in the covariance the
 * loosest direction was merely the weight with the largest error): its
 * condition number, its largest eigenvalue and that eigenvector (the
 * combination the data fix least, per standard error). */
static TvStatus tradeoff_group(const TuneResult *r, const int *idx, int m, TuneGroupTradeoff *g, TvError *err)
{
    size_t um = (size_t)m;
    gsl_matrix *C = gsl_matrix_alloc(um, um), *V = gsl_matrix_alloc(um, um);
    gsl_vector *ev = gsl_vector_alloc(um);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(um);
    TvStatus ts = TV_OK;
    if (!C || !V || !ev || !ws)
        ts = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    g->n = m;
    if (ts == TV_OK) {
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++)
                gsl_matrix_set(C, (size_t)a, (size_t)b,
                               r->cov[(size_t)idx[a] * NW + (size_t)idx[b]] /
                                   sqrt(r->cov[(size_t)idx[a] * NW + (size_t)idx[a]] *
                                        r->cov[(size_t)idx[b] * NW + (size_t)idx[b]]));
        int st = gsl_eigen_symmv(C, ev, V, ws);
        if (st)
            ts = stats_gsl_fail(err, st, TUNE_GSL_MSG, "a group's eigen-decomposition");
    }
    if (ts == TV_OK) {
        gsl_eigen_symmv_sort(ev, V, GSL_EIGEN_SORT_VAL_DESC);
        const double top = gsl_vector_get(ev, 0), low = gsl_vector_get(ev, um - 1);
        g->cond = low > 0 ? top / low : INFINITY;
        g->spread = top > 0 ? sqrt(top) : 0;
        /* the components, largest first; the sign that makes the largest positive */
        int order[NW];
        for (int a = 0; a < NW; a++)
            order[a] = a;
        for (int a = 1; a < m; a++)
            for (int b = a; b > 0 && fabs(gsl_matrix_get(V, (size_t)order[b], 0)) >
                                         fabs(gsl_matrix_get(V, (size_t)order[b - 1], 0));
                 b--) {
                int t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        const double sign = gsl_matrix_get(V, (size_t)order[0], 0) < 0 ? -1 : 1;
        g->nshow = m < TUNE_GROUP_SHOW ? m : TUNE_GROUP_SHOW;
        for (int a = 0; a < g->nshow; a++) {
            g->idx[a] = idx[order[a]];
            g->coef[a] = sign * gsl_matrix_get(V, (size_t)order[a], 0);
        }
    }
    if (C)
        gsl_matrix_free(C);
    if (V)
        gsl_matrix_free(V);
    if (ev)
        gsl_vector_free(ev);
    if (ws)
        gsl_eigen_symmv_free(ws);
    return ts;
}

TvStatus tune_tradeoffs(TuneResult *r, TvError *err)
{
    r->ncorr = r->ncorr_all = 0;
    r->ngroups = 0;
    if (!r->cov)
        return TV_OK;
    tradeoff_pairs(r);
    /* groups in the order of their first weight in weights.def */
    for (int i = 0; i < NW && r->ngroups < TUNE_GROUPS_MAX; i++) {
        const char *group = eval_weight_info_of(i)->group;
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = !strcmp(eval_weight_info_of(k)->group, group);
        if (seen)
            continue;
        int idx[NW], m = 0;
        for (int j = i; j < NW; j++)
            if (!strcmp(eval_weight_info_of(j)->group, group) && adopted(r, j))
                idx[m++] = j;
        if (m < 2)
            continue;
        TuneGroupTradeoff *g = &r->groups[r->ngroups];
        memset(g, 0, sizeof *g);
        g->group = group;
        TvStatus st = tradeoff_group(r, idx, m, g, err);
        if (st != TV_OK)
            return st;
        r->ngroups++;
    }
    /* and every adopted weight at once: a trade-off between groups (the
     * material values against the prisoner values of the same kinds) shows
     * in no group's line */
    int idx[NW], m = 0, ngroups_seen = 0;
    const char *last = NULL;
    for (int j = 0; j < NW; j++)
        if (adopted(r, j)) {
            idx[m++] = j;
            if (!last || strcmp(last, eval_weight_info_of(j)->group)) {
                ngroups_seen++;
                last = eval_weight_info_of(j)->group;
            }
        }
    if (m >= 2 && ngroups_seen >= 2 && r->ngroups < TUNE_GROUPS_MAX) {
        TuneGroupTradeoff *g = &r->groups[r->ngroups];
        memset(g, 0, sizeof *g);
        g->group = TUNE_GROUP_ALL;
        TvStatus st = tradeoff_group(r, idx, m, g, err);
        if (st != TV_OK)
            return st;
        r->ngroups++;
    }
    return TV_OK;
}
