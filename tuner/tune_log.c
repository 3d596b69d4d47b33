/* tune_log.c: the tuning log's writer and reader, and the INI comment of a
 * tuned engine (see tune_log.h for the format). */
#include "tune_log.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "eval.h"
#include "grow.h"
#include "strbuf.h"

#define NW EVAL_NWEIGHTS

/* ---- the writer ---------------------------------------------------------------- */

TvStatus tune_write_log(const char *path, const TuneResult *r, const char *header, TvError *err)
{
    TvAtomicFile a;
    TvStatus st = tv_atomic_open(&a, path, "tuning log", err);
    if (st != TV_OK)
        return st;
    tune_log_print(a.f, r, header);
    return tv_atomic_commit(&a, err);
}

void tune_log_print(FILE *f, const TuneResult *r, const char *header)
{
    fprintf(f, "# tavreli tuning log (format: tuner/tune_log.h)\n");
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
    fprintf(f, "# weight NAME START NEW STDERR  (NEW as written to the INI; STDERR the game-clustered standard "
               "error at L2 %.6g)\n",
            r->l2);
    for (int i = 0; i < NW; i++) {
        if (!r->free[i])
            continue;
        char name[96];
        eval_weight_element_name(i, name, sizeof name);
        double se = r->se[i];
        fprintf(f, "weight %s %g %d %.4g\n", name, r->start[i], r->rounded[i], isfinite(se) ? se : 0.0);
    }
    fprintf(f, "# corr NAME1 NAME2 R  (pairs of fitted weights whose estimates correlate beyond |r| > %g, "
               "strongest first; %d found)\n",
            TUNE_CORR_REPORT, r->ncorr_all);
    for (int k = 0; k < r->ncorr; k++) {
        char na[96], nb[96];
        eval_weight_element_name(r->corr[k].a, na, sizeof na);
        eval_weight_element_name(r->corr[k].b, nb, sizeof nb);
        fprintf(f, "corr %s %s %.4f\n", na, nb, r->corr[k].r);
    }
    fprintf(f, "# group NAME N COND SPREAD W:C...  (per weights.def group with 2 or more adopted weights, then "
               "'all' of them: the condition number of their estimates' correlations, trading off as a group above "
               "%g; how many times their loosest combination spreads beyond independent estimates; its "
               "components per standard error)\n",
            TUNE_COND_REPORT);
    for (int k = 0; k < r->ngroups; k++) {
        const TuneGroupTradeoff *g = &r->groups[k];
        fprintf(f, "group %s %d %.6g %.6g", g->group, g->n, g->cond, g->spread);
        for (int j = 0; j < g->nshow; j++) {
            char name[96];
            eval_weight_element_name(g->idx[j], name, sizeof name);
            fprintf(f, " %s:%.4f", name, g->coef[j]);
        }
        fprintf(f, "\n");
    }
    if (r->l2_auto) {
        fprintf(f, "# cv L2 LOSS SE  (%d-fold cross-validation over games: mean validation MSE and its error; "
                   "chosen %.6g)\n",
                r->cv_folds, r->l2);
        fprintf(f, "cv start %.10g %.4g\n", r->cv_start_loss, r->cv_start_se);
        for (int k = 0; k < r->ncv; k++)
            fprintf(f, "cv %.6g %.10g %.4g\n", r->cv_l2[k], r->cv_loss[k], r->cv_se[k]);
    }
}

/* ---- the reader ------------------------------------------------------------------ */

static bool only_space(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return false;
    return true;
}

static TvStatus log_error(TvError *err, const char *path, long line, const char *why)
{
    return tv_fail_at(err, TV_ERR_PARSE, path, (int)line, "%s", why);
}

static TvStatus out_of_memory(TvError *err, const char *path)
{
    return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
}

/* The numbers of s up to the first word that is not one (a 'path' line's
 * values) into p->w, p->n; false when out of memory. */
static bool read_numbers(const char *s, TuneLogPath *p)
{
    int64_t cap = 0;
    for (;;) {
        char *end;
        double v = strtod(s, &end);
        if (end == s)
            return true;
        if (!tv_grow((void **)&p->w, &cap, p->n + 1, sizeof *p->w))
            return false;
        p->w[p->n++] = v;
        s = end;
    }
}

TvStatus tune_log_read(const char *path, TuneLog *t, TvError *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return tv_fail(err, TV_ERR_IO, "cannot read the tuning log %s: %s", path, strerror(errno));
    int64_t cap_iters = 0, cap_paths = 0, cap_weights = 0, cap_cv = 0, cap_corr = 0, cap_groups = 0;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    TvStatus st = TV_OK;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        if (only_space(line))
            continue;
        long path_iter;
        int path_used = -1;
        if (sscanf(line, " path %ld %n", &path_iter, &path_used) == 1 && path_used >= 0) {
            TuneLogPath p = {path_iter, 0, NULL};
            bool ok = read_numbers(line + path_used, &p) &&
                      tv_grow((void **)&t->paths, &cap_paths, (int64_t)t->npaths + 1, sizeof *t->paths);
            if (!ok) {
                free(p.w);
                st = out_of_memory(err, path);
                break;
            }
            t->paths[t->npaths++] = p;
            continue;
        }
        int used = -1;
        TuneLogIter it = {0, 0, NAN};
        if (sscanf(line, " iter %ld fit_loss %lf holdout_loss %lf %n", &it.iter, &it.fit_loss, &it.holdout_loss,
                   &used) == 3 &&
            used >= 0 && only_space(line + used)) {
            if (!isfinite(it.fit_loss)) {
                st = log_error(err, path, lineno, "fit_loss must be a finite number");
                break;
            }
            if (!tv_grow((void **)&t->iters, &cap_iters, (int64_t)t->niters + 1, sizeof *t->iters)) {
                st = out_of_memory(err, path);
                break;
            }
            t->iters[t->niters++] = it;
            continue;
        }
        used = -1;
        TuneLogWeight w;
        memset(&w, 0, sizeof w);
        if (sscanf(line, " weight %95s %lf %lf %lf %n", w.name, &w.start, &w.now, &w.se, &used) == 4 && used >= 0 &&
            only_space(line + used)) {
            if (!isfinite(w.start) || !isfinite(w.now) || !isfinite(w.se) || w.se < 0) {
                st = log_error(err, path, lineno,
                               "weight: START and NEW must be numbers and STDERR a number >= 0");
                break;
            }
            for (int i = 0; i < t->nweights; i++)
                if (!strcmp(t->weights[i].name, w.name)) {
                    char why[200];
                    snprintf(why, sizeof why, "weight '%s' is given twice", w.name);
                    st = log_error(err, path, lineno, why);
                    break;
                }
            if (st != TV_OK)
                break;
            if (!tv_grow((void **)&t->weights, &cap_weights, (int64_t)t->nweights + 1, sizeof *t->weights)) {
                st = out_of_memory(err, path);
                break;
            }
            t->weights[t->nweights++] = w;
            continue;
        }
        TuneLogCorr co;
        memset(&co, 0, sizeof co);
        used = -1;
        if (sscanf(line, " corr %95s %95s %lf %n", co.a, co.b, &co.r, &used) == 3 && used >= 0 &&
            only_space(line + used)) {
            if (!(co.r >= -1 && co.r <= 1)) {
                st = log_error(err, path, lineno, "corr: R must be a number from -1 to 1");
                break;
            }
            if (!tv_grow((void **)&t->corr, &cap_corr, (int64_t)t->ncorr + 1, sizeof *t->corr)) {
                st = out_of_memory(err, path);
                break;
            }
            t->corr[t->ncorr++] = co;
            continue;
        }
        TuneLogGroup gr;
        memset(&gr, 0, sizeof gr);
        used = -1;
        if (sscanf(line, " group %31s %d %lf %lf %n", gr.group, &gr.n, &gr.cond, &gr.spread, &used) == 4 &&
            used >= 0) {
            if (gr.n < 2 || !(gr.cond >= 1) || !(gr.spread >= 1 - 1e-9) || !isfinite(gr.spread)) {
                st = log_error(err, path, lineno, "group: N must be 2 or more, COND a number >= 1, SPREAD >= 1");
                break;
            }
            const char *q = line + used;
            while (!only_space(q)) {
                char word[128];
                int wl = -1;
                if (sscanf(q, " %127s %n", word, &wl) != 1 || wl < 0)
                    break;
                char *colon = strrchr(word, ':'), *end;
                double c = colon ? strtod(colon + 1, &end) : NAN;
                if (!colon || colon == word || colon - word >= 96 || *end || !(c >= -1 && c <= 1) ||
                    gr.nshow >= TUNE_GROUP_SHOW) {
                    st = log_error(err, path, lineno,
                                   "group: each W:C must be a weight's name and a coefficient from -1 to 1 (at most "
                                   "6 of them)");
                    break;
                }
                snprintf(gr.names[gr.nshow], sizeof gr.names[gr.nshow], "%.*s", (int)(colon - word), word);
                gr.coef[gr.nshow++] = c;
                q += wl;
            }
            if (st != TV_OK)
                break;
            if (!tv_grow((void **)&t->groups, &cap_groups, (int64_t)t->ngroups + 1, sizeof *t->groups)) {
                st = out_of_memory(err, path);
                break;
            }
            t->groups[t->ngroups++] = gr;
            continue;
        }
        char l2w[32];
        TuneLogCv cv = {0, 0, 0};
        used = -1;
        if (sscanf(line, " cv %31s %lf %lf %n", l2w, &cv.loss, &cv.se, &used) == 3 && used >= 0 &&
            only_space(line + used)) {
            char *end;
            cv.l2 = strcmp(l2w, "start") ? strtod(l2w, &end) : INFINITY;
            if ((isfinite(cv.l2) && (*end || !(cv.l2 >= 0))) || !isfinite(cv.loss) || !isfinite(cv.se) ||
                cv.se < 0) {
                st = log_error(err, path, lineno, "cv: L2 must be 'start' or a number >= 0, LOSS a number, SE >= 0");
                break;
            }
            if (!tv_grow((void **)&t->cv, &cap_cv, (int64_t)t->ncv + 1, sizeof *t->cv)) {
                st = out_of_memory(err, path);
                break;
            }
            t->cv[t->ncv++] = cv;
            continue;
        }
        st = log_error(err, path, lineno,
                       "expected 'iter N fit_loss X holdout_loss Y', 'path N V...', 'weight NAME START NEW STDERR', "
                       "'corr NAME1 NAME2 R', 'group NAME N COND SPREAD W:C...' or 'cv L2 LOSS SE'");
        break;
    }
    if (st == TV_OK && ferror(f))
        st = tv_fail(err, TV_ERR_IO, "cannot read the tuning log %s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (st == TV_OK && t->niters == 0 && t->nweights == 0)
        st = tv_fail(err, TV_ERR_PARSE, "%s: no 'iter' or 'weight' records: not a tuning log", path);
    if (st != TV_OK)
        tune_log_free(t);
    return st;
}

void tune_log_free(TuneLog *t)
{
    for (int i = 0; i < t->npaths; i++)
        free(t->paths[i].w);
    free(t->paths);
    free(t->iters);
    free(t->weights);
    free(t->cv);
    free(t->corr);
    free(t->groups);
    memset(t, 0, sizeof *t);
}

/* ---- the INI comment ------------------------------------------------------------- */

/* The pairs of strongly correlated estimates, one per line, each line
 * started with lead. */
static void add_corr(StrBuf *b, const TuneResult *r, const char *lead)
{
    for (int k = 0; k < r->ncorr; k++) {
        char na[96], nb[96];
        eval_weight_element_name(r->corr[k].a, na, sizeof na);
        eval_weight_element_name(r->corr[k].b, nb, sizeof nb);
        strbuf_addf(b, "%s%s %s %+.3f\n", lead, na, nb, r->corr[k].r);
    }
}

/* The groups whose weights trade off as a whole (condition number above
 * TUNE_COND_REPORT), one line each, or a line saying none does. */
static void add_groups(StrBuf *b, const TuneResult *r)
{
    int n = 0;
    for (int k = 0; k < r->ngroups; k++)
        n += r->groups[k].cond > TUNE_COND_REPORT;
    if (!n) {
        strbuf_addf(b, "no group of weights trades off as a whole (condition number of a group's estimates' "
                       "correlations above %g)\n",
                    TUNE_COND_REPORT);
        return;
    }
    strbuf_addf(b, "weights that trade off as a group (condition number of their estimates' correlations above %g, "
                   "as a pair at |r| %g has: the data fix one combination of them much worse than another; the "
                   "loosest combination, each weight in its own standard errors, spreads the given times as much as "
                   "independent estimates would; 'all': every weight, for trade-offs between groups): %d line%s\n",
                TUNE_COND_REPORT, TUNE_CORR_REPORT, n, n == 1 ? "" : "s");
    for (int k = 0; k < r->ngroups; k++) {
        const TuneGroupTradeoff *g = &r->groups[k];
        if (!(g->cond > TUNE_COND_REPORT))
            continue;
        strbuf_addf(b, "  %s: %d weights, condition number %.3g; loosest combination", g->group, g->n, g->cond);
        for (int j = 0; j < g->nshow; j++) {
            char name[96];
            eval_weight_element_name(g->idx[j], name, sizeof name);
            strbuf_addf(b, " %+.2f %s", g->coef[j], name);
        }
        strbuf_addf(b, "%s, spread x%.2g\n", g->nshow < g->n ? " ..." : "", g->spread);
    }
}

char *tune_ini_comment(const TuneResult *r, const char *header, const char *sprt)
{
    StrBuf b = {0};
    if (header)
        strbuf_addf(&b, "%s\n", header);
    {
        int nf = r->nfree > 0 ? r->nfree : 1;
        double gpw = (double)r->fit_games / nf, ppw = (double)r->fit_positions / nf;
        strbuf_addf(&b, "data per fitted weight: %.1f games and %.0f positions (%d games, %lld positions, %d weights "
                        "fitted)\n",
                    gpw, ppw, r->fit_games, (long long)r->fit_positions, r->nfree);
        if (gpw < TUNE_WARN_GAMES_PER_WEIGHT)
            strbuf_addf(&b, "WARNING: few games per fitted weight (%.1f, below %d): the moves are mostly noise and the "
                            "verdict below may change with --seed; play more games, or fit fewer weights "
                            "(--groups, --fixed) (docs/tuning.md)\n",
                        gpw, TUNE_WARN_GAMES_PER_WEIGHT);
    }
    strbuf_addf(&b, "K %.6g; %d weights fitted; %d iterations (%s); projected gradient %.3g (tolerance %.3g); "
                    "%.2f s\n",
                r->K, r->nfree, r->iterations, r->stop_reason ? r->stop_reason : "", r->pgnorm, r->pgtol,
                r->seconds);
    if (r->l2_auto) {
        strbuf_addf(&b, "L2 strength chosen by %d-fold cross-validation over games: %.4g\n", r->cv_folds, r->l2);
        strbuf_addf(&b, "  l2            validation loss (MSE, mean over folds +- se)\n");
        strbuf_addf(&b, "  start weights %.6f +- %.6f\n", r->cv_start_loss, r->cv_start_se);
        for (int k = 0; k < r->ncv; k++)
            strbuf_addf(&b, "  %-13.4g %.6f +- %.6f%s\n", r->cv_l2[k], r->cv_loss[k], r->cv_se[k],
                        r->cv_l2[k] == r->l2 ? "  <- chosen" : "");
    } else if (r->cv_too_few_games)
        strbuf_addf(&b, "L2 strength 0: cross-validation over games needs at least 2 games\n");
    else
        strbuf_addf(&b, "L2 strength %.4g (given)\n", r->l2);
    strbuf_addf(&b, "loss (MSE) fit %.6f -> %.6f (rounded %.6f); hold-out %.6f -> %.6f (rounded %.6f)\n",
              r->fit_loss0, r->fit_loss1, r->fit_loss_rounded, r->hold_loss0, r->hold_loss1, r->hold_loss_rounded);
    if (!r->improvement_checked)
        strbuf_addf(&b, "NOT CHECKED: no hold-out set and no cross-validation, so nothing says whether the fitted "
                        "weights predict unseen games better than the start's\n");
    double cvbest = INFINITY;
    for (int k = 0; k < r->ncv; k++)
        cvbest = fmin(cvbest, r->cv_loss[k]);
    if (!r->improvement_checked)
        ;
    else if (!r->improved)
        strbuf_addf(&b, "NO IMPROVEMENT: the fitted weights do not predict %s better than the start's "
                        "(%.6f, start %.6f): the data do not support a change, so the INI keeps the start weights "
                        "(the fitted values below are for reference only)\n",
                    r->hold_loss0 == r->hold_loss0 ? "the hold-out games" : "held-out folds",
                    r->hold_loss0 == r->hold_loss0 ? r->hold_loss_rounded : cvbest,
                    r->hold_loss0 == r->hold_loss0 ? r->hold_loss0 : r->cv_start_loss);
    else if (r->improved)
        strbuf_addf(&b, "improvement: the fitted weights predict %s better than the start's\n",
                    r->hold_loss0 == r->hold_loss0 ? "the hold-out games" : "held-out folds");
    if (r->improvement_checked)
        strbuf_addf(&b, "the loss predicts results, it does not play: an SPRT of the new weights against the start "
                        "decides whether they are stronger%s%s\n",
                    sprt ? "; " : "", sprt ? sprt : "");
    int fitted_se = 0;
    for (int i = 0; i < NW; i++)
        fitted_se += r->free[i] && !r->at_bound[i] && !r->undetermined[i] && isfinite(r->se[i]) && r->se[i] > 0;
    strbuf_addf(&b, "moves beyond 2 standard errors: %d of the %d weights with one (%d fitted)\n", r->moved_2se,
                fitted_se, r->nfree);
    if (r->ncorr_all) {
        strbuf_addf(&b, "strongly correlated estimates (|r| > %g: the data fix their combination, not each value; "
                        "fix one with --fixed to anchor it): %d pair%s%s\n",
                    TUNE_CORR_REPORT, r->ncorr_all, r->ncorr_all == 1 ? "" : "s",
                    r->ncorr_all > r->ncorr ? " (the strongest listed)" : "");
        add_corr(&b, r, "  ");
    } else
        strbuf_addf(&b, "no strongly correlated estimates (|r| > %g)\n", TUNE_CORR_REPORT);
    add_groups(&b, r);
    strbuf_addf(&b, "weights: name: start -> new +- se, se the game-clustered standard error at L2 %.4g%s\n", r->l2,
                r->boot_done > 1 ? "; in brackets the bootstrap sd over games, a check of it" : "");
    for (int i = 0; i < NW; i++)
        if (r->fixed[i]) {
            char name[96];
            eval_weight_element_name(i, name, sizeof name);
            strbuf_addf(&b, "%s: %g (fixed)\n", name, r->start[i]);
        }
    for (int i = 0; i < NW; i++) {
        char name[96];
        eval_weight_element_name(i, name, sizeof name);
        if (r->no_data[i]) {
            strbuf_addf(&b, "%s: %g (no data: kept)\n", name, r->start[i]);
            continue;
        }
        if (!r->free[i])
            continue;
        const WeightInfo *wi = eval_weight_info_of(i);
        double bound = r->fitted[i] - wi->lo < wi->hi - r->fitted[i] ? wi->lo : wi->hi;
        /* a weight held at its bound has no two-sided error: the data push
         * it past the bound, and the error of the fit there is 0 (it printed
         * '+- 0'; a bootstrap of games gave an sd of 16.7 with 71% of the
         * refits at the bound) */
        const bool held = r->at_bound[i] && !r->undetermined[i] && !isinf(r->se[i]);
        if (held && r->improved)
            strbuf_addf(&b, "%s: %g -> %d (held at its bound %g: no +- applies; the data would take it %s)", name,
                        r->start[i], r->rounded[i], bound, bound == wi->lo ? "lower" : "higher");
        else if (held)
            strbuf_addf(&b, "%s: %g (fitted %.0f, held at its bound %g: no +- applies; not adopted)", name,
                        r->start[i], r->fitted[i], bound);
        else if (r->improved)
            strbuf_addf(&b, "%s: %g -> %d +- %.3g", name, r->start[i], r->rounded[i], r->se[i]);
        else
            strbuf_addf(&b, "%s: %g (fitted %.0f +- %.3g, not adopted)", name, r->start[i], r->fitted[i], r->se[i]);
        if (isinf(r->se[i]))
            strbuf_addf(&b, " (not identifiable: its feature is collinear with others in the data; kept at its start "
                            "value)");
        else if (r->undetermined[i])
            strbuf_addf(&b, " (poorly determined: its feature occurs in %d games and %lld positions, fewer than %d "
                            "games or %d positions; kept at its start value)",
                        r->feature_games[i], (long long)r->feature_positions[i], TUNE_MIN_GAMES,
                        TUNE_MIN_POSITIONS);
        if (r->boot_done > 1)
            strbuf_addf(&b, " [%.3g]", r->boot_sd[i]);
        if (r->undetermined[i] || held)
            ; /* kept at the start (where the fit put it does not matter), or said above */
        else if (r->at_bound[i])
            strbuf_addf(&b, " (at its bound %g)", bound);
        else if (r->near_bound[i])
            strbuf_addf(&b, " (within rounding of its bound %g)", bound);
        strbuf_addf(&b, "\n");
    }
    return strbuf_take(&b);
}
