/* stats.c: pairing statistics, fishtest's generalised SPRT and the Elo
 * formatter.  See stats.h. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strict C11 has no LN10 or SQRT2. */
#define LN10 2.302585092994045684
#define SQRT2 1.414213562373095049
#define ELO_PER_NAT (400.0 / LN10) /* 173.717...: Elo per natural log-odds unit */

double stats_normal_cdf(double x) { return 0.5 * erfc(-x / SQRT2); }

void stats_trinomial(int64_t w, int64_t d, int64_t l, double *score, double *se, double *elo, double *err95)
{
    double N = (double)(w + d + l);
    double s = N > 0 ? ((double)w + 0.5 * (double)d) / N : NAN;
    double var = N > 0 ? ((double)w * (1 - s) * (1 - s) + (double)d * (0.5 - s) * (0.5 - s) + (double)l * s * s) / N
                       : NAN;
    *score = s;
    *se = sqrt(var / N);
    *elo = elo_from_score(s);
    *err95 = s > 0 && s < 1 ? STATS_Z975 * *se * ELO_PER_NAT / (s * (1 - s)) : INFINITY;
}

double elo_from_score(double score)
{
    /* f(elo) = score  <=>  elo = -400 log10(1/score - 1); +-inf at 1 and 0. */
    return -400.0 * log10(1.0 / score - 1.0);
}

/* ---- one pairing --------------------------------------------------------- */

typedef struct {
    int64_t pair;
    int points; /* half-points for a: 0, 1, 2 */
} PairedGame;

static int cmp_paired(const void *pa, const void *pb)
{
    const PairedGame *a = pa, *b = pb;
    if (a->pair != b->pair)
        return a->pair < b->pair ? -1 : 1;
    return (a->points > b->points) - (a->points < b->points);
}

/* fishtest's regularisation (LLRcalc.regularize): an empty cell counts 1e-3. */
static double regularize(int64_t count)
{
    return count == 0 ? 1e-3 : (double)count;
}

/* The result of game g from a's view (1 win, 0 draw, -1 loss) when it is
 * a game between a and b; false otherwise. */
static bool result_for(const RatedGame *g, int a, int b, int *res)
{
    if (g->white == a && g->black == b)
        *res = g->result;
    else if (g->white == b && g->black == a)
        *res = -g->result;
    else
        return false;
    return true;
}

void pairing_stats(const RatedGame *games, int64_t ngames, int a, int b, PairingStats *out)
{
    memset(out, 0, sizeof *out);
    out->score = out->draw_rate = out->elo = out->elo_err95 = NAN;
    out->nelo = out->nelo_err95 = out->los = NAN;
    if (!games || ngames <= 0 || a == b)
        return;
    int64_t npaired = 0;
    for (int64_t g = 0; g < ngames; g++) {
        const RatedGame *gm = &games[g];
        int res; /* from a's view */
        if (!result_for(gm, a, b, &res))
            continue;
        if (res > 0)
            out->wins++;
        else if (res < 0)
            out->losses++;
        else
            out->draws++;
        if (gm->pair >= 0)
            npaired++;
    }
    int64_t n = out->wins + out->draws + out->losses;
    if (n == 0)
        return;

    /* Trinomial: score, Elo, its 95% half-width by the delta method
     * (d elo / d score = 400 / (ln 10 * s (1 - s))), and the LOS as fishtest's
     * get_elo: Phi((s - 1/2) / (sd / sqrt(N))). */
    double s, se;
    stats_trinomial(out->wins, out->draws, out->losses, &s, &se, &out->elo, &out->elo_err95);
    out->score = s;
    out->draw_rate = (double)out->draws / (double)n;
    out->los = se > 0 ? stats_normal_cdf((s - 0.5) / se) : (s > 0.5 ? 1.0 : s < 0.5 ? 0.0 : 0.5);

    /* Pentanomial: games sharing a pair id; pairs with exactly two games
     * between a and b. */
    if (npaired >= 2) {
        PairedGame *pg = malloc((size_t)npaired * sizeof *pg);
        if (pg) {
            int64_t k = 0;
            for (int64_t g = 0; g < ngames; g++) {
                const RatedGame *gm = &games[g];
                if (gm->pair < 0)
                    continue;
                int res;
                if (!result_for(gm, a, b, &res))
                    continue;
                pg[k].pair = gm->pair;
                pg[k].points = res + 1;
                k++;
            }
            qsort(pg, (size_t)k, sizeof *pg, cmp_paired);
            for (int64_t i = 0; i < k;) {
                int64_t j = i;
                while (j < k && pg[j].pair == pg[i].pair)
                    j++;
                if (j - i == 2)
                    out->penta[pg[i].points + pg[i + 1].points]++;
                i = j;
            }
            free(pg);
        }
    }
    int64_t pairs = 0;
    for (int i = 0; i < 5; i++)
        pairs += out->penta[i];
    if (pairs > 0) {
        /* Normalized Elo as fishtest (LLRcalc.results_to_pdf, stats_ex, and
         * the t_conf of its views): pair scores x_i = i/4 per game with
         * regularized frequencies p_i; mu, var, skewness, excess kurtosis
         * of that distribution; t = (mu - 1/2) / sqrt(var) per pair;
         * nElo = t * (800 / ln 10) / sqrt(2);
         * var_t = 1 - t skew + t^2 (exkurt + 2) / 4 (variance of t's
         * estimate per pair, delta method);
         * half-width = (800 / ln 10) / sqrt(2) * z_0.975 * sqrt(var_t / N). */
        double c[5], tot = 0;
        for (int i = 0; i < 5; i++) {
            c[i] = regularize(out->penta[i]);
            tot += c[i];
        }
        double mu = 0, m2 = 0, m3 = 0, m4 = 0;
        for (int i = 0; i < 5; i++)
            mu += c[i] / tot * (i / 4.0);
        for (int i = 0; i < 5; i++) {
            double dv = i / 4.0 - mu, p = c[i] / tot;
            m2 += p * dv * dv;
            m3 += p * dv * dv * dv;
            m4 += p * dv * dv * dv * dv;
        }
        double skew = m3 / pow(m2, 1.5), exkurt = m4 / (m2 * m2) - 3;
        double t = (mu - 0.5) / sqrt(m2);
        double var_t = fmax(1 - t * skew + 0.25 * t * t * (exkurt + 2), 0);
        const double coeff = 800.0 / LN10 / SQRT2;
        out->nelo = coeff * t;
        out->nelo_err95 = coeff * STATS_Z975 * sqrt(var_t / tot);
    }
}

/* ---- SPRT ---------------------------------------------------------------- */

void sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1 - alpha));
    *upper = log((1 - beta) / alpha);
}

const char *sprt_decision_name(SprtDecision d)
{
    switch (d) {
    case SPRT_CONTINUE: return "continue";
    case SPRT_ACCEPT_H0: return "H0 accepted";
    case SPRT_ACCEPT_H1: return "H1 accepted";
    }
    return "unknown";
}

SprtDecision sprt_decide(double llr, double lower, double upper)
{
    /* fishtest (stat_util.update_SPRT, without the overshoot correction):
     * strictly below the lower bound rejects, strictly above the upper
     * accepts. */
    if (llr < lower)
        return SPRT_ACCEPT_H0;
    if (llr > upper)
        return SPRT_ACCEPT_H1;
    return SPRT_CONTINUE;
}

/* The root x of sum_i p_i b_i / (1 + x b_i) = 0 on (-1/max b, -1/min b)
 * (fishtest LLRcalc.secular; the function is strictly decreasing there).
 * Safeguarded Newton; NAN when the b_i do not change sign. */
static double secular(const double *p, const double *bv, int k)
{
    double vmin = bv[0], vmax = bv[0];
    for (int i = 1; i < k; i++) {
        vmin = fmin(vmin, bv[i]);
        vmax = fmax(vmax, bv[i]);
    }
    if (!(vmin < 0 && vmax > 0))
        return NAN;
    const double eps = 1e-9; /* fishtest's margin from the poles */
    double lo = -1 / vmax + eps, hi = -1 / vmin - eps;
    double x = 0; /* f(0) = sum p b: a fine start */
    if (x <= lo || x >= hi)
        x = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        double f = 0, df = 0;
        for (int i = 0; i < k; i++) {
            double den = 1 + x * bv[i];
            f += p[i] * bv[i] / den;
            df -= p[i] * bv[i] * bv[i] / (den * den);
        }
        if (f > 0)
            lo = x; /* decreasing: root is to the right */
        else if (f < 0)
            hi = x;
        else
            return x;
        double nx = df < 0 ? x - f / df : 0.5 * (lo + hi);
        if (!(nx > lo && nx < hi))
            nx = 0.5 * (lo + hi);
        if (fabs(nx - x) <= 1e-16 * fmax(1.0, fabs(x)) || hi - lo <= 1e-16 * fmax(1.0, fabs(x)))
            return nx;
        x = nx;
    }
    return x;
}

/* fishtest LLRcalc.MLE_t_value: the maximum-likelihood distribution on the
 * values a_i (observed frequencies phat_i) whose t-value (mu - ref) / sigma
 * equals s.  Fixed-point iteration from the uniform distribution: with mu,
 * sigma of the current estimate, b_i = a_i - ref - s sigma (1 + ((mu - a_i) /
 * sigma)^2) / 2, x solves the secular equation, p_i = phat_i / (1 + x b_i);
 * until the largest change is below 1e-9.  (The method is in
 * https://www.cantate.be/Fishtest/normalized_elo_practical.pdf, section 4.1.) */
static bool mle_t_value(const double *a, const double *phat, int k, double ref, double s, double *p)
{
    for (int i = 0; i < k; i++)
        p[i] = 1.0 / k;
    for (int it = 0; it < 100; it++) {
        double mu = 0, var = 0;
        for (int i = 0; i < k; i++)
            mu += p[i] * a[i];
        for (int i = 0; i < k; i++)
            var += p[i] * (a[i] - mu) * (a[i] - mu);
        double sigma = sqrt(var);
        double bv[5];
        for (int i = 0; i < k; i++) {
            double z = (mu - a[i]) / sigma;
            bv[i] = a[i] - ref - s * sigma * (1 + z * z) / 2;
        }
        double x = secular(phat, bv, k);
        if (!isfinite(x))
            return false;
        double change = 0;
        for (int i = 0; i < k; i++) {
            double np = phat[i] / (1 + x * bv[i]);
            change = fmax(change, fabs(np - p[i]));
            p[i] = np;
        }
        if (change < 1e-9)
            break;
    }
    return true;
}

/* The pair scores a_i = i/4 and the regularized frequencies phat of the
 * counts; returns their (regularized) total. */
static double penta_pdf(const int64_t penta[5], double a[5], double phat[5])
{
    double N = 0;
    for (int i = 0; i < 5; i++) {
        a[i] = i / 4.0;
        phat[i] = regularize(penta[i]);
        N += phat[i];
    }
    for (int i = 0; i < 5; i++)
        phat[i] /= N;
    return N;
}

double sprt_llr_pentanomial(const int64_t penta[5], double nelo0, double nelo1)
{
    /* fishtest LLRcalc.LLR_normalized for 5 results: t-value bounds
     * t = nelo / (800 / ln 10) * sqrt(2) (per pair), regularized counts,
     * pair scores a_i = i/4, and LLR = N * sum_i phat_i log(p1_i / p0_i) with
     * p0, p1 the constrained maximum-likelihood distributions (generalised
     * SPRT). */
    double a[5], phat[5], p0[5], p1[5];
    const double N = penta_pdf(penta, a, phat);
    const double nelo_per_nt = 800.0 / LN10;
    double t0 = nelo0 / nelo_per_nt * SQRT2, t1 = nelo1 / nelo_per_nt * SQRT2;
    if (!mle_t_value(a, phat, 5, 0.5, t0, p0) || !mle_t_value(a, phat, 5, 0.5, t1, p1))
        return NAN;
    double llr = 0;
    for (int i = 0; i < 5; i++)
        llr += phat[i] * (log(p1[i]) - log(p0[i]));
    return N * llr;
}

double sprt_llr_logistic(const int64_t penta[5], double elo0, double elo1)
{
    double a[5], phat[5], llr = 0;
    const double N = penta_pdf(penta, a, phat);
    double p[2][5];
    for (int h = 0; h < 2; h++) {
        /* the MLE with mean s: p_i = phat_i / (1 + x (a_i - s)), x the root of the secular equation */
        const double s = 1 / (1 + pow(10, -(h ? elo1 : elo0) / 400));
        double b[5];
        for (int i = 0; i < 5; i++)
            b[i] = a[i] - s;
        const double x = secular(phat, b, 5);
        if (!isfinite(x))
            return NAN;
        for (int i = 0; i < 5; i++)
            p[h][i] = phat[i] / (1 + x * b[i]);
    }
    for (int i = 0; i < 5; i++)
        llr += phat[i] * (log(p[1][i]) - log(p[0][i]));
    return N * llr;
}

double sprt_llr(const int64_t penta[5], const SprtSettings *s)
{
    return s->model == SPRT_LOGISTIC ? sprt_llr_logistic(penta, s->elo0, s->elo1)
                                     : sprt_llr_pentanomial(penta, s->elo0, s->elo1);
}

const char *sprt_model_name(SprtModel m)
{
    return m == SPRT_LOGISTIC ? "logistic" : "normalized";
}

double sprt_other_model(double elo, SprtModel from, const int64_t penta[5])
{
    double N = 0, mu = 0, var = 0;
    for (int i = 0; i < 5; i++)
        N += (double)penta[i];
    if (N <= 0)
        return NAN;
    for (int i = 0; i < 5; i++)
        mu += (double)penta[i] / N * (i / 4.0);
    for (int i = 0; i < 5; i++)
        var += (double)penta[i] / N * (i / 4.0 - mu) * (i / 4.0 - mu);
    const double sigma = sqrt(var); /* of the pair's mean score */
    if (!(sigma > 0))
        return NAN;
    const double per_t = SQRT2 * LN10 / 800.0; /* a pair's t-value per normalized Elo */
    if (from == SPRT_LOGISTIC) {
        const double s = 1 / (1 + pow(10, -elo / 400));
        return (s - 0.5) / sigma / per_t + 0.0; /* + 0.0: no -0 */
    }
    const double s = 0.5 + elo * per_t * sigma;
    if (!(s > 0 && s < 1))
        return NAN;
    return -400 * log10(1 / s - 1) + 0.0;
}

double sprt_expected_pairs(double nelo0, double nelo1, double alpha, double beta, double nelo)
{
    const double per_t = SQRT2 * LN10 / 800.0;
    const double t0 = nelo0 * per_t, t1 = nelo1 * per_t, t = nelo * per_t;
    double lower, upper;
    sprt_bounds(alpha, beta, &lower, &upper);
    const double var = (t1 - t0) * (t1 - t0);
    const double mu = (t1 - t0) * (t - (t0 + t1) / 2);
    if (var <= 0)
        return NAN;
    if (fabs(mu) < 1e-12 * var) /* no drift: the walk's exit time */
        return -lower * upper / var;
    const double th = 2 * mu / var;
    const double p_upper = (1 - exp(-th * lower)) / (exp(-th * upper) - exp(-th * lower));
    return (p_upper * upper + (1 - p_upper) * lower) / mu;
}

/* ---- Elo for people ----------------------------------------------------------- */

double stats_perfect_score_bound(int64_t n)
{
    return elo_from_score(pow(0.05, 1.0 / (double)(n > 0 ? n : 1)));
}

/* Whole Elo because no interval a run reaches is that narrow: a 95%
 * half-width of 1 Elo near an even score is 1.96 * 695 * sd / sqrt(games),
 * with sd the score's per-game deviation (0.32 to 0.39 at 60% to 40% draws),
 * so it takes 190,000 to 280,000 games. */
char *stats_fmt_elo(double x, char *buf, size_t n)
{
    if (isnan(x))
        snprintf(buf, n, "n/a");
    else if (isinf(x))
        snprintf(buf, n, "%s", x > 0 ? "+inf" : "-inf");
    else if (round(x) == 0) /* also -0.0 and -0.4, which %+.0f writes "-0" */
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%+.0f", round(x)); /* round(): half away from zero, where %.0f rounds it to even */
    return buf;
}

/* An unsigned width: "30", "n/a", "inf". */
static const char *fmt_width(double e, char *buf, size_t n)
{
    if (isfinite(e))
        snprintf(buf, n, "%.0f", round(fabs(e)));
    else
        snprintf(buf, n, "%s", isnan(e) ? "n/a" : "inf");
    return buf;
}

char *stats_fmt_elo_pm(double x, double err95, char *buf, size_t n)
{
    char a[STATS_ELO_TEXT], b[STATS_ELO_TEXT];
    snprintf(buf, n, "%.24s ± %.24s", stats_fmt_elo(x, a, sizeof a), fmt_width(err95, b, sizeof b));
    return buf;
}

char *stats_fmt_elo_interval(double x, double lo, double hi, char *buf, size_t n)
{
    double below = x - lo, above = hi - x;
    if (!isfinite(below) || !isfinite(above) || round(below) == round(above))
        return stats_fmt_elo_pm(x, above, buf, n);
    char a[STATS_ELO_TEXT], b[STATS_ELO_TEXT], c[STATS_ELO_TEXT];
    snprintf(buf, n, "%.24s -%.12s/+%.12s", stats_fmt_elo(x, a, sizeof a), fmt_width(below, b, sizeof b),
             fmt_width(above, c, sizeof c));
    return buf;
}

double stats_all_drawn_bound(int64_t n)
{
    const double q = 1 - pow(0.05, 1.0 / (double)(n > 0 ? n : 1));
    return elo_from_score(0.5 + q / 2);
}

char *stats_format_elo(const PairingStats *ps, char *buf, size_t n)
{
    int64_t games = ps->wins + ps->draws + ps->losses;
    char a[STATS_ELO_TEXT];
    if (games == 0)
        snprintf(buf, n, "-");
    else if (ps->draws == games)
        stats_fmt_elo_pm(0, stats_all_drawn_bound(games), buf, n);
    else if ((ps->losses == 0 || ps->wins == 0) && ps->draws == 0) {
        double bound = stats_perfect_score_bound(games);
        if (round(bound) <= 0)
            snprintf(buf, n, "n/a (%lld game%s)", (long long)games, games == 1 ? "" : "s");
        else
            snprintf(buf, n, "%s %s", ps->wins ? ">" : "<", stats_fmt_elo(ps->wins ? bound : -bound, a, sizeof a));
    } else
        stats_fmt_elo_pm(ps->elo, ps->elo_err95, buf, n);
    return buf;
}

double stats_nelo_bound(int cell, int64_t n)
{
    const double p = pow(0.05, 1.0 / (double)(n > 0 ? n : 1)), v = cell / 4.0, sd = sqrt(p * (1 - p));
    const double coeff = 800.0 / LN10 / SQRT2;
    /* t = (mean - 1/2) / sd of p at v and 1 - p at x: a ratio of two linear
     * functions of x on each side of v, so its extremes are at x = 0 and 1 */
    double t[2];
    for (int k = 0; k < 2; k++) {
        const double x = k; /* at x = v (every pair won or lost) only the other end is a bound */
        t[k] = x == v ? (cell > 2 ? INFINITY : -INFINITY) : (p * v + (1 - p) * x - 0.5) / (fabs(v - x) * sd);
    }
    if (cell == 2)
        return coeff * fmax(fabs(t[0]), fabs(t[1]));
    return coeff * (cell > 2 ? fmin(t[0], t[1]) : fmax(t[0], t[1]));
}

char *stats_format_nelo(const PairingStats *ps, char *buf, size_t n)
{
    int64_t pairs = 0;
    int cell = -1;
    for (int k = 0; k < 5; k++) {
        pairs += ps->penta[k];
        if (ps->penta[k])
            cell = cell == -1 ? k : 5; /* 5: more than one */
    }
    char a[STATS_ELO_TEXT];
    if (pairs == 0)
        snprintf(buf, n, "n/a");
    else if (cell == 2)
        stats_fmt_elo_pm(0, stats_nelo_bound(2, pairs), buf, n);
    else if (cell < 5) {
        double bound = stats_nelo_bound(cell, pairs);
        if (round(fabs(bound)) == 0 || (cell > 2) != (bound > 0))
            snprintf(buf, n, "n/a (%lld pair%s)", (long long)pairs, pairs == 1 ? "" : "s");
        else
            snprintf(buf, n, "%s %s", cell > 2 ? ">" : "<", stats_fmt_elo(bound, a, sizeof a));
    } else
        stats_fmt_elo_pm(ps->nelo, ps->nelo_err95, buf, n);
    return buf;
}

/* ---- the SPRT settings attribute -------------------------------------------- */

void sprt_settings_default(SprtSettings *s)
{
    s->elo0 = 0;
    s->elo1 = 5;
    s->alpha = 0.05;
    s->beta = 0.05;
    s->model = SPRT_NORMALIZED;
}

/* x in the shortest of %g, %.15g, %.17g that reads back exactly. */
static void shortest(char *buf, size_t n, double x)
{
    static const char *const forms[] = {"%g", "%.15g", "%.17g"};
    for (int i = 0; i < 3; i++) {
        snprintf(buf, n, forms[i], x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

char *sprt_settings_format(const SprtSettings *s, char *buf, size_t n)
{
    char v[4][32];
    shortest(v[0], sizeof v[0], s->elo0);
    shortest(v[1], sizeof v[1], s->elo1);
    shortest(v[2], sizeof v[2], s->alpha);
    shortest(v[3], sizeof v[3], s->beta);
    snprintf(buf, n, "elo0=%s elo1=%s alpha=%s beta=%s%s", v[0], v[1], v[2], v[3],
             s->model == SPRT_LOGISTIC ? " model=logistic" : "");
    return buf;
}

TvStatus sprt_settings_parse(const char *text, SprtSettings *s, TvError *err)
{
    static const char *const keys[4] = {"elo0", "elo1", "alpha", "beta"};
    double *vals[4] = {&s->elo0, &s->elo1, &s->alpha, &s->beta};
    bool have[4] = {false, false, false, false};
    const char *p = text;
    bool have_model = false;
    s->model = SPRT_NORMALIZED;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        size_t klen = strcspn(p, "= \t,");
        if (klen == 5 && !strncmp(p, "model", 5) && p[5] == '=' && !have_model) {
            const char *v = p + 6;
            size_t vlen = strcspn(v, " \t,");
            if (vlen == 8 && !strncmp(v, "logistic", 8))
                s->model = SPRT_LOGISTIC;
            else if (!(vlen == 10 && !strncmp(v, "normalized", 10)))
                goto bad;
            have_model = true;
            p = v + vlen;
            continue;
        }
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (strlen(keys[i]) == klen && !strncmp(p, keys[i], klen))
                k = i;
        if (k < 0 || have[k] || p[klen] != '=')
            goto bad;
        char *end;
        errno = 0;
        double v = strtod(p + klen + 1, &end);
        if (end == p + klen + 1 || errno || !isfinite(v) || (*end && *end != ' ' && *end != '\t' && *end != ','))
            goto bad;
        *vals[k] = v;
        have[k] = true;
        p = end;
    }
    for (int i = 0; i < 4; i++)
        if (!have[i])
            goto bad;
    if (!(s->alpha > 0 && s->alpha < 1 && s->beta > 0 && s->beta < 1 && s->elo0 < s->elo1))
        goto bad;
    return TV_OK;
bad:
    return tv_fail(err, TV_ERR_PARSE,
                   "bad sprt attribute '%s': expected 'elo0=E0 elo1=E1 alpha=A beta=B' (and optionally "
                   "'model=logistic' or 'model=normalized') with elo0 < elo1 and 0 < alpha, beta < 1",
                   text);
}
