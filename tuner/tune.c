/* tune.c: Texel tuning of the evaluation weights (see tune.h).
 *
 * The fit, in short:
 *  - the loss and its gradient are sums over positions of sparse dot
 *    products; they are computed in a fixed number of chunks (OpenMP over the
 *    chunks) whose partial sums are added in chunk order, so the result is
 *    the same bit for bit with any number of threads;
 *  - preconditioning: the Gauss-Newton Hessian H of the loss at the start
 *    (free weights only) is factored H = L L^T, and BFGS (GSL's
 *    vector_bfgs2) works on x with w = w_base + L^-T x, where the loss is
 *    close to 1/2 |x - x*|^2: the first step is nearly the Newton step and
 *    the gradient test has a scale (one standard error is about
 *    sqrt(2 s^2 / n) in x);
 *  - bounds: clamp-and-project with a penalty.  The loss is evaluated at the
 *    projection P(w) of w onto the box [lo, hi] of the weight table, plus
 *    mu |w - P(w)|^2; the function is continuous, equals the loss inside the
 *    box, and its minimum over a coordinate that wants to leave the box is on
 *    the bound.  The fitted weights are P(w*).  (A smooth map such as
 *    lo + (hi - lo) sigmoid(u) would distort the scale of every weight and
 *    flatten the gradient near the bounds; the projection leaves the
 *    interior problem untouched.)  Weights ending on a bound get no standard
 *    error (0) and are left out of the covariance;
 *  - standard errors: from the Gauss-Newton matrix at the optimum and the
 *    residuals (see covariance()); --bootstrap refits on games resampled with
 *    replacement, since positions of one game are correlated. */
#include "tune.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multimin.h>
#include <omp.h>

#include "gsl_util.h"
#include "h5store.h"
#include "movegen.h"
#include "record.h"
#include "rng.h"
#include "strbuf.h"
#include "search.h"
#include "tfen.h"

#define NW EVAL_NWEIGHTS
#define LOSS_CHUNKS 128 /* fixed: the sums do not depend on the thread count */
#define GN_CHUNKS 16
/* A GSL failure: what failed, then GSL's text (tuner_gsl_fail). */
#define TUNE_GSL_MSG "tune: %s: GSL error: %s"

/* ---- random numbers (splitmix64, state passed around) ---------------------- */

/* A seed derived from two numbers. */
static uint64_t mix2(uint64_t a, uint64_t b) { return tv_rng_mix(a ^ (b * 0x2545f4914f6cdd1dULL)); }

/* ---- the sparse set ---------------------------------------------------- */

void tune_set_init(TuneSet *s) { memset(s, 0, sizeof *s); }

void tune_set_free(TuneSet *s)
{
    free(s->row);
    free(s->ent);
    free(s->label2);
    free(s->game);
    tune_set_init(s);
}

static bool grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    int64_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static TvStatus reserve(TuneSet *s, int64_t n, int64_t nnz, TvError *err)
{
    if (n + 1 > s->cap) {
        int64_t c = s->cap ? s->cap * 2 : 1024;
        while (c < n + 1)
            c *= 2;
        int64_t *row = realloc(s->row, sizeof *row * (size_t)c);
        if (row)
            s->row = row;
        uint8_t *lab = realloc(s->label2, sizeof *lab * (size_t)c);
        if (lab)
            s->label2 = lab;
        int32_t *gm = realloc(s->game, sizeof *gm * (size_t)c);
        if (gm)
            s->game = gm;
        if (!row || !lab || !gm)
            return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory for %lld positions", (long long)n);
        s->cap = c;
    }
    if (!grow((void **)&s->ent, &s->cap_nnz, nnz, sizeof *s->ent))
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory for %lld features", (long long)nnz);
    if (s->n == 0)
        s->row[0] = 0;
    return TV_OK;
}

TvStatus tune_set_add(TuneSet *s, const EvalTrace *t, int sign, double result, int32_t game, TvError *err)
{
    int label2;
    if (result == 0.0)
        label2 = 0;
    else if (result == 0.5)
        label2 = 1;
    else if (result == 1.0)
        label2 = 2;
    else
        return tv_fail(err, TV_ERR_ARG, "tune: result %g is not 0, 0.5 or 1", result);
    if (game < 0)
        return tv_fail(err, TV_ERR_ARG, "tune: negative game number %d", (int)game);
    int k = 0;
    for (int i = 0; i < NW; i++) {
        if (t->f[i] < -32767 || t->f[i] > 32767)
            return tv_fail(err, TV_ERR_LIMIT, "tune: feature %d count %d does not fit 16 bits", i, t->f[i]);
        k += t->f[i] != 0;
    }
    TvStatus st = reserve(s, s->n + 1, s->nnz + k, err);
    if (st != TV_OK)
        return st;
    for (int i = 0; i < NW; i++)
        if (t->f[i])
            s->ent[s->nnz++] = (TuneEntry){(int16_t)i, (int16_t)(sign * t->f[i])};
    s->label2[s->n] = (uint8_t)label2;
    s->game[s->n] = game;
    s->n++;
    s->row[s->n] = s->nnz;
    if (game + 1 > s->ngames)
        s->ngames = game + 1;
    return TV_OK;
}

TvStatus tune_set_add_from(TuneSet *s, const TuneSet *src, int64_t i, TvError *err)
{
    int64_t a = src->row[i], b = src->row[i + 1];
    TvStatus st = reserve(s, s->n + 1, s->nnz + (b - a), err);
    if (st != TV_OK)
        return st;
    memcpy(&s->ent[s->nnz], &src->ent[a], sizeof(TuneEntry) * (size_t)(b - a));
    s->nnz += b - a;
    s->label2[s->n] = src->label2[i];
    s->game[s->n] = src->game[i];
    s->n++;
    s->row[s->n] = s->nnz;
    if (src->game[i] + 1 > s->ngames)
        s->ngames = src->game[i] + 1;
    return TV_OK;
}

double tune_set_dot(const TuneSet *s, int64_t i, const double *w)
{
    double e = 0;
    for (int64_t k = s->row[i]; k < s->row[i + 1]; k++)
        e += w[s->ent[k].idx] * s->ent[k].val;
    return e;
}

size_t tune_set_bytes(const TuneSet *s)
{
    return (size_t)(s->n + 1) * sizeof *s->row + (size_t)s->nnz * sizeof *s->ent +
           (size_t)s->n * (sizeof *s->label2 + sizeof *s->game);
}

/* ---- resolving positions ------------------------------------------------ */

void tune_resolve(SearchContext *ctx, const Position *pos, const Options *rules, EvalTrace *trace, int *qscore,
                  Position *leaf_out)
{
    Position leaf;
    int q = 0;
    search_quiet(ctx, pos, &leaf, &q);
    eval_trace(&leaf, rules, trace);
    if (leaf.side != pos->side)
        for (int i = 0; i < NW; i++)
            trace->f[i] = -trace->f[i];
    if (qscore)
        *qscore = q;
    if (leaf_out)
        *leaf_out = leaf;
}

TvStatus tune_add_positions(TuneSet *s, const Position *pos, const double *result, const int32_t *game, int64_t n,
                            const EvalParams *params, const Options *rules, int64_t *skipped, TvError *err)
{
    enum { BATCH = 8192 };
    int nt = omp_get_max_threads();
    SearchSettings set;
    search_settings_default(&set);
    set.tt_mb = 1; /* the quiescence search does not use the table */
    SearchContext **ctx = calloc((size_t)nt, sizeof *ctx);
    EvalTrace *tr = malloc(sizeof *tr * BATCH);
    int *qs = malloc(sizeof *qs * BATCH);
    TvStatus st = TV_OK;
    if (!ctx || !tr || !qs)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    for (int t = 0; st == TV_OK && t < nt; t++)
        if (!(ctx[t] = search_alloc(params, rules, &set)))
            st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory for a search context");
    int64_t skip = 0;
    for (int64_t b0 = 0; st == TV_OK && b0 < n; b0 += BATCH) {
        int64_t m = n - b0 < BATCH ? n - b0 : BATCH;
#pragma omp parallel for schedule(dynamic, 16)
        for (int64_t i = 0; i < m; i++)
            tune_resolve(ctx[omp_get_thread_num()], &pos[b0 + i], rules, &tr[i], &qs[i], NULL);
        for (int64_t i = 0; st == TV_OK && i < m; i++) {
            if (qs[i] >= SCORE_MATE_BOUND || qs[i] <= -SCORE_MATE_BOUND) {
                skip++;
                continue;
            }
            st = tune_set_add(s, &tr[i], 1, result[b0 + i], game[b0 + i], err);
        }
    }
    for (int t = 0; ctx && t < nt; t++)
        if (ctx[t])
            search_free(ctx[t]);
    free(ctx);
    free(tr);
    free(qs);
    if (skipped)
        *skipped += skip;
    return st;
}

TvStatus tune_load(const char *const *files, int nfiles, const EngineVersion *start, TuneSet *out, int64_t *skipped,
                   TvError *err)
{
    enum { CHUNK = 16384 };
    tune_set_init(out);
    if (skipped)
        *skipped = 0;
    if (nfiles < 1)
        return tv_fail(err, TV_ERR_ARG, "tune: no data files");
    Position *pos = malloc(sizeof *pos * CHUNK);
    double *res = malloc(sizeof *res * CHUNK);
    int32_t *gm = malloc(sizeof *gm * CHUNK);
    int *bad = malloc(sizeof *bad * CHUNK);
    char(*tf)[H5STORE_TFEN_LEN] = malloc(sizeof *tf * CHUNK);
    TvStatus st = TV_OK;
    if (!pos || !res || !gm || !bad || !tf)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    int64_t game_base = 0;
    for (int f = 0; st == TV_OK && f < nfiles; f++) {
        StoreContents c;
        memset(&c, 0, sizeof c);
        st = h5store_read(files[f], false, true, &c, err);
        if (st != TV_OK)
            break;
        Options rules;
        TvError oe;
        if (options_parse(c.options ? c.options : "", &rules, &oe) != TV_OK) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: bad rule options '%s': %s", files[f], c.options ? c.options : "",
                         oe.msg);
            h5store_contents_free(&c);
            break;
        }
        /* Positions of game gi are rows position_offset .. + position_count. */
        int64_t fill = 0;
        for (int64_t gi = 0; st == TV_OK && gi <= c.ngames; gi++) {
            bool last = gi == c.ngames;
            const StoredGame *g = last ? NULL : &c.games[gi];
            int64_t cnt = last ? 0 : g->position_count;
            if (!last && (g->position_offset < 0 || g->position_offset + cnt > c.npositions)) {
                st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld: positions %lld..%lld are not in the store", files[f],
                             (long long)g->index, (long long)g->position_offset,
                             (long long)(g->position_offset + cnt));
                break;
            }
            for (int64_t k = 0; k <= cnt; k++) {
                bool flush = (k == cnt && last) || fill == CHUNK;
                if (flush && fill) {
                    /* parse the TFENs of the chunk, then resolve */
#pragma omp parallel for schedule(static)
                    for (int64_t i = 0; i < fill; i++)
                        bad[i] = tfen_read(tf[i], &pos[i], NULL) != TV_OK;
                    for (int64_t i = 0; i < fill; i++)
                        if (bad[i]) {
                            st = tv_fail(err, TV_ERR_PARSE, "%s: bad TFEN '%.60s' (game %d of the store)",
                                         files[f], tf[i], (int)(gm[i] - game_base));
                            break;
                        }
                    if (st == TV_OK)
                        st = tune_add_positions(out, pos, res, gm, fill, &start->params, &rules, skipped, err);
                    fill = 0;
                    if (st != TV_OK)
                        break;
                }
                if (k == cnt)
                    break;
                const StoredPosition *p = &c.positions[g->position_offset + k];
                if (!memchr(p->tfen, 0, sizeof p->tfen)) {
                    st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld: TFEN not terminated", files[f],
                                 (long long)g->index);
                    break;
                }
                if (!(p->result == 0.0f || p->result == 0.5f || p->result == 1.0f)) {
                    st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld ply %d: result %g is not 0, 0.5 or 1", files[f],
                                 (long long)g->index, (int)p->ply, (double)p->result);
                    break;
                }
                if (game_base + gi > INT32_MAX) {
                    st = tv_fail(err, TV_ERR_LIMIT, "tune: more than 2^31 games");
                    break;
                }
                memcpy(tf[fill], p->tfen, sizeof p->tfen);
                res[fill] = p->result;
                gm[fill] = (int32_t)(game_base + gi);
                fill++;
            }
        }
        game_base += c.ngames;
        h5store_contents_free(&c);
    }
    free(pos);
    free(res);
    free(gm);
    free(bad);
    free(tf);
    if (st == TV_OK && out->n == 0)
        st = tv_fail(err, TV_ERR_ARG, "tune: no positions in the data (%d file%s)", nfiles, nfiles == 1 ? "" : "s");
    if (st != TV_OK)
        tune_set_free(out);
    return st;
}

/* ---- splitting ------------------------------------------------------------ */

typedef struct {
    uint64_t key;
    int32_t game;
} GameKey;

static int cmp_gamekey(const void *a, const void *b)
{
    const GameKey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->game > y->game) - (x->game < y->game);
}

TvStatus tune_split(const TuneSet *all, double holdout, uint64_t seed, TuneSet *fit, TuneSet *hold, TvError *err)
{
    tune_set_init(fit);
    tune_set_init(hold);
    if (!(holdout >= 0 && holdout < 1))
        return tv_fail(err, TV_ERR_ARG, "tune: the hold-out fraction must be in [0, 1), not %g", holdout);
    int32_t G = all->ngames;
    uint8_t *present = calloc((size_t)G + 1, 1);
    GameKey *keys = malloc(sizeof *keys * ((size_t)G + 1));
    if (!present || !keys) {
        free(present);
        free(keys);
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    }
    for (int64_t i = 0; i < all->n; i++)
        present[all->game[i]] = 1;
    int32_t ng = 0;
    for (int32_t g = 0; g < G; g++)
        if (present[g])
            keys[ng++] = (GameKey){mix2(seed, (uint64_t)g), g};
    qsort(keys, (size_t)ng, sizeof *keys, cmp_gamekey);
    int32_t nh = (int32_t)floor(holdout * ng + 0.5);
    if (holdout > 0 && nh < 1 && ng >= 2)
        nh = 1;
    if (nh >= ng)
        nh = ng - 1;
    if (nh < 0)
        nh = 0;
    for (int32_t k = 0; k < ng; k++)
        present[keys[k].game] = k < nh ? 2 : 1;
    TvStatus st = TV_OK;
    for (int64_t i = 0; st == TV_OK && i < all->n; i++)
        st = tune_set_add_from(present[all->game[i]] == 2 ? hold : fit, all, i, err);
    free(present);
    free(keys);
    if (st != TV_OK) {
        tune_set_free(fit);
        tune_set_free(hold);
    }
    return st;
}

/* ---- loss and gradient ----------------------------------------------------- */

static inline double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

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
            double p = sigmoid(K * e);
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

/* Gauss-Newton sums over the free weights F (fidx[0..p-1]; pos[j] = index in F
 * or -1): A = sum m (s' K)^2 f_F f_F^T, B = sum m r^2 (s' K)^2 f_F f_F^T,
 * and sum m r^2, sum m.  A and B are p x p (row-major, full). */
static void gn_sums(const TuneSet *s, const double *w, double K, const float *gw, const int *posf, int p, double *A,
                    double *B, double *rss, double *wsum)
{
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
            double pr = sigmoid(K * e);
            double r = 0.5 * s->label2[i] - pr;
            double m = gw ? gw[s->game[i]] : 1.0;
            double d = pr * (1 - pr) * K;
            double wa = m * d * d, wb = wa * r * r;
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

/* ---- the weight fit ---------------------------------------------------------- */

typedef struct {
    const TuneSet *s;
    const float *gw;
    double K, l2, mu;
    int p;
    int fidx[NW];
    double base[NW]; /* w at x = 0 */
    double pull[NW]; /* l2 anchor: the start weights */
    double lo[NW], hi[NW];
    gsl_matrix *L; /* Cholesky factor of the preconditioner (lower) */
    gsl_vector *tmp;
} FitCtx;

/* w (full) from x. */
static void x_to_w(const FitCtx *c, const gsl_vector *x, double *w)
{
    gsl_vector_memcpy(c->tmp, x);
    gsl_blas_dtrsv(CblasLower, CblasTrans, CblasNonUnit, c->L, c->tmp); /* L^T y = x */
    memcpy(w, c->base, sizeof(double) * NW);
    for (int j = 0; j < c->p; j++)
        w[c->fidx[j]] += gsl_vector_get(c->tmp, (size_t)j);
}

static void project(const FitCtx *c, const double *w, double *pw)
{
    memcpy(pw, w, sizeof(double) * NW);
    for (int j = 0; j < c->p; j++) {
        int i = c->fidx[j];
        if (pw[i] < c->lo[i])
            pw[i] = c->lo[i];
        if (pw[i] > c->hi[i])
            pw[i] = c->hi[i];
    }
}

static double fit_eval(const FitCtx *c, const gsl_vector *x, gsl_vector *gx, double *mse_out)
{
    double w[NW], pw[NW], g[NW];
    x_to_w(c, x, w);
    project(c, w, pw);
    double mse = tune_loss(c->s, pw, c->K, c->gw, gx ? g : NULL);
    double obj = mse;
    for (int j = 0; j < c->p; j++) {
        int i = c->fidx[j];
        double d = pw[i] - c->pull[i], out = w[i] - pw[i];
        obj += c->l2 * d * d + c->mu * out * out;
        if (gx) {
            double gj = out == 0 ? g[i] + 2 * c->l2 * d : 0;
            gsl_vector_set(gx, (size_t)j, gj + 2 * c->mu * out);
        }
    }
    if (gx) /* dF/dx = L^-1 dF/dw */
        gsl_blas_dtrsv(CblasLower, CblasNoTrans, CblasNonUnit, c->L, gx);
    if (mse_out)
        *mse_out = mse;
    return obj;
}

static double gf_f(const gsl_vector *x, void *user) { return fit_eval(user, x, NULL, NULL); }
static void gf_df(const gsl_vector *x, void *user, gsl_vector *g) { fit_eval(user, x, g, NULL); }
static void gf_fdf(const gsl_vector *x, void *user, double *f, gsl_vector *g) { *f = fit_eval(user, x, g, NULL); }

/* Factors H = (2/W) A + 2 l2 I (+ jitter when singular) into c->L; sets mu. */
static TvStatus precondition(FitCtx *c, TvError *err)
{
    int p = c->p;
    int posf[NW];
    for (int i = 0; i < NW; i++)
        posf[i] = -1;
    for (int j = 0; j < p; j++)
        posf[c->fidx[j]] = j;
    double *A = malloc(sizeof *A * (size_t)p * (size_t)p);
    if (!A)
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    double rss, W;
    gn_sums(c->s, c->base, c->K, c->gw, posf, p, A, NULL, &rss, &W);
    double maxd = 0;
    for (int j = 0; j < p; j++) {
        double d = 2 * A[j * p + j] / W + 2 * c->l2;
        if (d > maxd)
            maxd = d;
    }
    if (!(maxd > 0)) {
        free(A);
        return tv_fail(err, TV_ERR_ARG, "tune: the loss does not depend on the free weights (all sigmoids saturated?)");
    }
    c->mu = 10 * maxd;
    double jitter = 0;
    int st = 1;
    for (int tries = 0; tries < 30 && st; tries++) {
        for (int u = 0; u < p; u++)
            for (int v = 0; v < p; v++)
                gsl_matrix_set(c->L, (size_t)u, (size_t)v,
                               2 * A[u * p + v] / W + (u == v ? 2 * c->l2 + jitter : 0));
        st = gsl_linalg_cholesky_decomp1(c->L);
        jitter = jitter ? jitter * 10 : 1e-10 * maxd;
    }
    free(A);
    if (st)
        return tuner_gsl_fail(err, st, TUNE_GSL_MSG, "factoring the Gauss-Newton matrix");
    return TV_OK;
}

typedef struct {
    double w[NW];   /* the fitted (projected) weights */
    double wraw[NW];
    int iterations;
    const char *stop;
} FitOut;

/* One fit from c->base.  When rec is not NULL, records every iteration
 * (and calls the progress callback), computing the hold-out loss. */
static TvStatus fit_once(FitCtx *c, int max_iter, const TuneSet *hold, TuneResult *rec, const TuneOptions *opt,
                         FitOut *out, TvError *err)
{
    int p = c->p;
    TvStatus ts = precondition(c, err);
    if (ts != TV_OK)
        return ts;
    gsl_multimin_function_fdf fdf = {gf_f, gf_df, gf_fdf, (size_t)p, c};
    gsl_multimin_fdfminimizer *m = gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, (size_t)p);
    gsl_vector *x = gsl_vector_calloc((size_t)p), *g = gsl_vector_alloc((size_t)p);
    if (!m || !x || !g) {
        if (m)
            gsl_multimin_fdfminimizer_free(m);
        gsl_vector_free(x);
        gsl_vector_free(g);
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    }
    double mse0;
    double f0 = fit_eval(c, x, g, &mse0);
    double gnorm = gsl_blas_dnrm2(g);
    /* In x, one standard error is about sqrt(2 s^2 / n) (s^2 <= the loss):
     * stop when the gradient (~ the distance to the optimum) is 1/1000 of it. */
    double gtol = 1e-3 * sqrt(2 * mse0 / (double)c->s->n);
    double w[NW], pw[NW];
    if (rec) {
        TuneIteration it = {0, mse0, hold && hold->n ? tune_loss(hold, c->base, c->K, NULL, NULL) : NAN, f0, {0}};
        for (int i = 0; i < NW; i++)
            it.w[i] = (float)c->base[i];
        rec->history[rec->nhistory++] = it;
        if (opt->progress)
            opt->progress(&it, opt->user);
    }
    out->iterations = 0;
    out->stop = "converged (gradient below tolerance)";
    int st = GSL_SUCCESS;
    if (gnorm > gtol)
        st = gsl_multimin_fdfminimizer_set(m, &fdf, x, gnorm, 0.1);
    if (st) {
        gsl_multimin_fdfminimizer_free(m);
        gsl_vector_free(x);
        gsl_vector_free(g);
        return tuner_gsl_fail(err, st, TUNE_GSL_MSG, "starting the minimiser");
    }
    for (int iter = 1; gnorm > gtol; iter++) {
        if (iter > max_iter) {
            out->stop = "iteration limit";
            break;
        }
        st = gsl_multimin_fdfminimizer_iterate(m);
        if (st == GSL_ENOPROG) {
            out->stop = "no further progress (line search)";
            st = GSL_SUCCESS;
            break;
        }
        if (st)
            break;
        out->iterations = iter;
        gnorm = gsl_blas_dnrm2(gsl_multimin_fdfminimizer_gradient(m));
        if (rec) {
            x_to_w(c, gsl_multimin_fdfminimizer_x(m), w);
            project(c, w, pw);
            TuneIteration it = {iter, tune_loss(c->s, pw, c->K, c->gw, NULL),
                                hold && hold->n ? tune_loss(hold, pw, c->K, NULL, NULL) : NAN,
                                gsl_multimin_fdfminimizer_minimum(m), {0}};
            for (int i = 0; i < NW; i++)
                it.w[i] = (float)pw[i];
            rec->history[rec->nhistory++] = it;
            if (opt->progress)
                opt->progress(&it, opt->user);
        }
    }
    const gsl_vector *xs = out->iterations ? gsl_multimin_fdfminimizer_x(m) : x;
    x_to_w(c, xs, out->wraw);
    project(c, out->wraw, out->w);
    gsl_multimin_fdfminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(g);
    if (st)
        return tuner_gsl_fail(err, st, TUNE_GSL_MSG, "minimising the loss");
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

/* The covariance of the fitted weights over the free weights not on a
 * bound: the Gauss-Newton approximation with the residual variance taken
 * per position (the "sandwich"),
 *   cov = n/(n-p) M^+ B M^+,  M = A + n l2 I,  A = sum J_i J_i^T,
 *   B = sum r_i^2 J_i J_i^T,  J_i = sigmoid'(K e_i) K f_i.
 * With a constant residual variance s^2 (B = s^2 A) and l2 = 0 this is the
 * textbook s^2 A^-1; results in {0, 1/2, 1} have a variance that depends on
 * the position (p (1 - p) for decisive games), where s^2 A^-1 gave 95%
 * intervals that held the truth only ~84% of the time in the synthetic test
 * (the sandwich: ~95%).  M^+ is the pseudo-inverse from the
 * eigen-decomposition of M scaled to unit diagonal: a weight with a real
 * component in a null direction (collinear features in the data: the loss
 * cannot tell it from a combination of others) gets se = INFINITY.
 * *resvar receives rss / (n - p). */
static TvStatus covariance(const TuneSet *s, const double *w, double K, double l2, const int *fidx, int p,
                           double *se, double *resvar, TvError *err)
{
    int posf[NW];
    for (int i = 0; i < NW; i++)
        posf[i] = -1;
    for (int j = 0; j < p; j++)
        posf[fidx[j]] = j;
    size_t pp = (size_t)p * (size_t)p;
    double *A = malloc(sizeof *A * (pp ? pp : 1));
    if (!A)
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    double *B = malloc(sizeof *B * (pp ? pp : 1));
    if (!B) {
        free(A);
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    }
    double rss, W;
    gn_sums(s, w, K, NULL, posf, p, A, B, &rss, &W);
    *resvar = s->n > p ? rss / (double)(s->n - p) : NAN;
    if (p == 0) {
        free(A);
        free(B);
        return TV_OK;
    }
    /* small-sample correction of the sandwich (HC1): n / (n - p) */
    double hc1 = s->n > p ? (double)s->n / (double)(s->n - p) : 1;
    size_t up = (size_t)p;
    gsl_matrix *C = gsl_matrix_alloc(up, up), *V = gsl_matrix_alloc(up, up), *Mi = gsl_matrix_calloc(up, up),
               *T = gsl_matrix_alloc(up, up), *R = gsl_matrix_alloc(up, up);
    gsl_vector *ev = gsl_vector_alloc(up);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(up);
    double *d = malloc(sizeof *d * up);
    TvStatus ts = TV_OK;
    if (!C || !V || !Mi || !T || !R || !ev || !ws || !d)
        ts = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    if (ts == TV_OK) {
        for (int j = 0; j < p; j++) {
            double m = A[(size_t)j * up + (size_t)j] + W * l2;
            d[j] = m > 0 ? sqrt(m) : 1;
        }
        for (int u = 0; u < p; u++)
            for (int v = 0; v < p; v++)
                gsl_matrix_set(C, (size_t)u, (size_t)v,
                               (A[(size_t)u * up + (size_t)v] + (u == v ? W * l2 : 0)) / (d[u] * d[v]));
        int st = gsl_eigen_symmv(C, ev, V, ws);
        if (st)
            ts = tuner_gsl_fail(err, st, TUNE_GSL_MSG, "the covariance's eigen-decomposition");
    }
    if (ts == TV_OK) {
        double emax = gsl_vector_max(ev), cut = 1e-10 * (emax > 0 ? emax : 1);
        for (int j = 0; j < p; j++) {
            double nullload = 0;
            for (int k = 0; k < p; k++) {
                double e = gsl_vector_get(ev, (size_t)k), vjk = gsl_matrix_get(V, (size_t)j, (size_t)k);
                if (e <= cut)
                    nullload += vjk * vjk;
            }
            se[fidx[j]] = nullload > 1e-8 ? INFINITY : 0;
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
        /* Mi B Mi */
        gsl_matrix_view Bv = gsl_matrix_view_array(B, up, up);
        gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, Mi, &Bv.matrix, 0.0, T);
        gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, T, Mi, 0.0, R);
        for (int j = 0; j < p; j++) {
            if (isinf(se[fidx[j]]))
                continue;
            double v = gsl_matrix_get(R, (size_t)j, (size_t)j) * hc1;
            se[fidx[j]] = v > 0 ? sqrt(v) : 0;
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
    free(B);
    return ts;
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
    for (int i = 0; i < NW; i++) {
        const WeightInfo *wi = eval_weight_info_of(i);
        c.lo[i] = wi->lo;
        c.hi[i] = wi->hi;
        c.base[i] = c.pull[i] = start->w[i];
        if (opt->free[i] && !seen[i])
            out->no_data[i] = true;
        if (opt->free[i] && seen[i]) {
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
    c.K = out->K;
    out->fit_loss0 = tune_loss(fit, out->start, c.K, NULL, NULL);
    out->hold_loss0 = hold && hold->n ? tune_loss(hold, out->start, c.K, NULL, NULL) : NAN;
    int max_iter = opt->max_iter > 0 ? opt->max_iter : 500;
    out->history = malloc(sizeof *out->history * (size_t)(max_iter + 2));
    c.L = gsl_matrix_alloc((size_t)c.p, (size_t)c.p);
    c.tmp = gsl_vector_alloc((size_t)c.p);
    TvStatus st = TV_OK;
    if (!out->history || !c.L || !c.tmp)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    FitOut fo;
    if (st == TV_OK)
        st = fit_once(&c, max_iter, hold, out, opt, &fo, err);
    if (st == TV_OK) {
        out->iterations = fo.iterations;
        out->stop_reason = fo.stop;
        memcpy(out->fitted, fo.w, sizeof fo.w);
        int fidx2[NW], p2 = 0;
        for (int j = 0; j < c.p; j++) {
            int i = c.fidx[j];
            out->at_bound[i] = fo.wraw[i] <= c.lo[i] || fo.wraw[i] >= c.hi[i];
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
        st = covariance(fit, out->fitted, c.K, c.l2, fidx2, p2, out->se, &out->residual_var, err);
        out->fit_loss1 = tune_loss(fit, out->fitted, c.K, NULL, NULL);
        out->hold_loss1 = hold && hold->n ? tune_loss(hold, out->fitted, c.K, NULL, NULL) : NAN;
        double rw[NW];
        for (int i = 0; i < NW; i++)
            rw[i] = out->rounded[i];
        out->fit_loss_rounded = tune_loss(fit, rw, c.K, NULL, NULL);
        out->hold_loss_rounded = hold && hold->n ? tune_loss(hold, rw, c.K, NULL, NULL) : NAN;
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
            uint64_t rs = mix2(opt->seed ^ 0xb007b007ULL, (uint64_t)b);
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
    gsl_matrix_free(c.L);
    gsl_vector_free(c.tmp);
    out->seconds = omp_get_wtime() - t0;
    if (st != TV_OK)
        tune_result_free(out);
    return st;
}

/* ---- outputs ------------------------------------------------------------------- */

static double reported_se(const TuneResult *r, int i) { return r->boot_done > 1 ? r->boot_sd[i] : r->se[i]; }

TvStatus tune_write_log(const char *path, const TuneResult *r, const char *header, TvError *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return tv_fail(err, TV_ERR_IO, "%s: cannot write the tuning log: %s", path, strerror(errno));
    fprintf(f, "# tavreli tuning log (format: tuner/report.h)\n");
    if (header)
        for (const char *s = header; *s;) {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            fprintf(f, "# %.*s\n", (int)len, s);
            s += len + (nl ? 1 : 0);
        }
    fprintf(f, "# K %.9g; %d weights fitted; %d iterations (%s); %.2f s\n", r->K, r->nfree, r->iterations,
            r->stop_reason ? r->stop_reason : "", r->seconds);
    fprintf(f, "# iter N fit_loss X holdout_loss Y  (mean squared error)\n");
    for (int k = 0; k < r->nhistory; k++)
        fprintf(f, "iter %d fit_loss %.10g holdout_loss %.10g\n", r->history[k].iter, r->history[k].fit_loss,
                r->history[k].holdout_loss);
    fprintf(f, "# path N V...  (the weight path: every weight element, in weights.def order, after iteration N)\n");
    for (int k = 0; k < r->nhistory; k++) {
        fprintf(f, "path %d", r->history[k].iter);
        for (int i = 0; i < NW; i++)
            fprintf(f, " %.6g", r->history[k].w[i]);
        fprintf(f, "\n");
    }
    fprintf(f, "# weight NAME START NEW STDERR  (NEW as written to the INI; STDERR %s)\n",
            r->boot_done > 1 ? "bootstrap sd over games" : "from the Gauss-Newton covariance");
    for (int i = 0; i < NW; i++) {
        if (!r->free[i])
            continue;
        char name[96];
        eval_weight_element_name(i, name, sizeof name);
        double se = reported_se(r, i);
        fprintf(f, "weight %s %g %d %.4g\n", name, r->start[i], r->rounded[i], isfinite(se) ? se : 0.0);
    }
    if (fclose(f) != 0)
        return tv_fail(err, TV_ERR_IO, "%s: cannot write the tuning log: %s", path, strerror(errno));
    return TV_OK;
}

char *tune_ini_comment(const TuneResult *r, const char *header)
{
    StrBuf b = {0};
    if (header)
        strbuf_addf(&b, "%s\n", header);
    strbuf_addf(&b, "K %.6g; %d weights fitted; %d iterations (%s); %.2f s\n", r->K, r->nfree,
              r->iterations, r->stop_reason ? r->stop_reason : "", r->seconds);
    strbuf_addf(&b, "loss (MSE) fit %.6f -> %.6f (rounded %.6f); hold-out %.6f -> %.6f (rounded %.6f)\n",
              r->fit_loss0, r->fit_loss1, r->fit_loss_rounded, r->hold_loss0, r->hold_loss1, r->hold_loss_rounded);
    strbuf_addf(&b, "weights: name: start -> new +- standard error%s\n",
              r->boot_done > 1 ? " (Gauss-Newton; bootstrap sd over games in brackets)" : " (Gauss-Newton)");
    for (int i = 0; i < NW; i++) {
        char name[96];
        eval_weight_element_name(i, name, sizeof name);
        if (r->no_data[i]) {
            strbuf_addf(&b, "%s: %g (no data: kept)\n", name, r->start[i]);
            continue;
        }
        if (!r->free[i])
            continue;
        strbuf_addf(&b, "%s: %g -> %d +- %.3g", name, r->start[i], r->rounded[i], r->se[i]);
        if (isinf(r->se[i]))
            strbuf_addf(&b, " (not identifiable: its feature is collinear with others in the data)");
        if (r->boot_done > 1)
            strbuf_addf(&b, " [%.3g]", r->boot_sd[i]);
        if (r->at_bound[i])
            strbuf_addf(&b, " (at its bound)");
        strbuf_addf(&b, "\n");
    }
    return strbuf_take(&b);
}

/* ---- the whole command ------------------------------------------------------------ */

void tune_args_default(TuneArgs *a)
{
    memset(a, 0, sizeof *a);
    a->holdout = 0.1;
    a->seed = 1;
}

void tune_default_log_path(const char *out, char *buf, size_t n)
{
    size_t len = strlen(out);
    if (len >= 4 && !strcmp(out + len - 4, ".ini"))
        snprintf(buf, n, "%.*s.tuning.log", (int)(len - 4), out);
    else
        snprintf(buf, n, "%s.tuning.log", out);
}

typedef struct {
    FILE *f;
} Progress;

static void print_progress(const TuneIteration *it, void *user)
{
    const Progress *p = user;
    if (p->f) {
        fprintf(p->f, "iter %d fit_loss %.8f holdout_loss %.8f\n", it->iter, it->fit_loss, it->holdout_loss);
        fflush(p->f);
    }
}

TvStatus tune_run(const TuneArgs *a, TvError *err)
{
    double t0 = omp_get_wtime();
    if (!a->out || !a->engine || a->nfiles < 1)
        return tv_fail(err, TV_ERR_ARG, "tune: expected --data FILE.h5 ... --engine START.ini --out NEW.ini");
    EngineVersion start;
    TvStatus st = engine_read(a->engine, &start, err);
    if (st != TV_OK)
        return st;
    TuneOptions opt;
    tune_options_default(&opt);
    st = tune_groups_parse(a->groups, opt.free, err);
    if (st != TV_OK)
        return st;
    opt.l2 = a->l2;
    opt.bootstrap = a->bootstrap;
    opt.seed = a->seed;
    opt.max_iter = a->max_iter;
    Progress pr = {a->msg};
    opt.progress = print_progress;
    opt.user = &pr;
    char logpath[1024];
    if (a->log)
        snprintf(logpath, sizeof logpath, "%s", a->log);
    else
        tune_default_log_path(a->out, logpath, sizeof logpath);
    /* check the outputs can be written before the long part */
    for (int k = 0; k < 2; k++) {
        const char *path = k ? logpath : a->out;
        FILE *f = fopen(path, "a");
        if (!f)
            return tv_fail(err, TV_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        fclose(f);
    }
    TuneSet all, fit, hold;
    int64_t skipped = 0;
    st = tune_load(a->files, a->nfiles, &start, &all, &skipped, err);
    if (st != TV_OK)
        return st;
    double t_load = omp_get_wtime() - t0;
    st = tune_split(&all, a->holdout, a->seed, &fit, &hold, err);
    int64_t nall = all.n;
    double bpp = all.n ? (double)tune_set_bytes(&all) / (double)all.n : 0;
    tune_set_free(&all);
    if (st != TV_OK)
        return st;
    if (a->msg)
        fprintf(a->msg,
                "positions: %lld resolved to quiet leaves in %.1f s (%lld skipped: mate scores); fit %lld, "
                "hold-out %lld (split by games); %.1f bytes/position\n",
                (long long)nall, t_load, (long long)skipped, (long long)fit.n, (long long)hold.n, bpp);
    TuneResult r;
    st = tune_fit(&fit, &hold, &start.params, &opt, &r, err);
    if (st == TV_OK) {
        char header[2048];
        size_t hl = (size_t)snprintf(header, sizeof header, "tuned by 'tavreli tune' from %s; data:", a->engine);
        for (int k = 0; k < a->nfiles && hl < sizeof header; k++)
            hl += (size_t)snprintf(header + hl, sizeof header - hl, " %s", a->files[k]);
        if (hl < sizeof header)
            snprintf(header + hl, sizeof header - hl,
                     "\ngroups %s; hold-out %g; seed %llu; l2 %g; bootstrap %d\n"
                     "positions %lld (fit %lld, hold-out %lld, skipped %lld)",
                     a->groups ? a->groups : "all", a->holdout, (unsigned long long)a->seed, a->l2, a->bootstrap,
                     (long long)nall, (long long)fit.n, (long long)hold.n, (long long)skipped);
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
        char *comment = tune_ini_comment(&r, header);
        st = engine_write(a->out, &ne, comment, err);
        if (st == TV_OK)
            st = tune_write_log(logpath, &r, header, err);
        if (st == TV_OK && a->msg) {
            fprintf(a->msg, "%s", comment ? comment : "");
            fprintf(a->msg, "wrote %s and %s\n", a->out, logpath);
        }
        free(comment);
        tune_result_free(&r);
    }
    tune_set_free(&fit);
    tune_set_free(&hold);
    return st;
}

/* ---- random walks and the benchmark ------------------------------------------- */

void tune_random_walks(int64_t n, uint64_t seed, const Options *rules, Position *out)
{
    uint64_t rs = seed;
    MoveList *list = malloc(sizeof *list);
    if (!list)
        return;
    for (int64_t i = 0; i < n; i++) {
        for (;;) {
            Position p;
            pos_set_start(&p);
            int plies = 2 + (int)tv_rng_below(&rs, 79);
            bool ok = true;
            for (int k = 0; k < plies && ok; k++) {
                movegen_legal(&p, rules, list);
                if (list->count == 0) {
                    ok = false;
                    break;
                }
                Undo u;
                pos_make_move(&p, list->moves[tv_rng_below(&rs, (uint64_t)list->count)], &u);
            }
            if (ok && movegen_state(&p, rules) == TV_STATE_ONGOING) {
                out[i] = p;
                break;
            }
        }
    }
    free(list);
}

TvStatus tune_bench(int64_t n, int base, uint64_t seed, TuneBench *out, TvError *err)
{
    tuner_gsl_errors_off();
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
        double pr = sigmoid(K * tune_set_dot(&real, j, truew));
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
