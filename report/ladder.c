/* ladder.c: the document of a training run's Elo ladder (see ladder.h).
 * The ladder itself (the rungs and how each was measured) is
 * tuner/train.c's. */
#include "ladder.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report_doc.h"
#include "report_plot.h"
#include "report_sessions.h"
#include "stats.h"
#include "strbuf.h"

/* The conditions of every store of the training folder dir (the self-play,
 * SPRT and confirmation games of generations 0 to ngen: each .h5 file of
 * DIR/gen-G). */
static TvStatus doc_stores_conditions(Doc *D, const char *dir, int ngen, TvError *err)
{
    StoreContents *c = NULL;
    int n = 0, cap = 0, unread = 0; /* a store that does not read is left out, and counted */
    TvStatus st = TV_OK;
    for (int g = 0; st == TV_OK && g <= ngen; g++) {
        char folder[1100];
        snprintf(folder, sizeof folder, "%s/gen-%d", dir, g);
        DIR *d = opendir(folder);
        if (!d)
            continue;
        struct dirent *e;
        while (st == TV_OK && (e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".h5"))
                continue;
            if (n == cap) {
                StoreContents *more = realloc(c, sizeof *c * (size_t)(cap = cap ? 2 * cap : 8));
                if (!more) {
                    st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                    break;
                }
                c = more;
            }
            char path[1400];
            TvError e_read;
            snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
            if (h5store_read(path, false, false, &c[n], &e_read) == TV_OK)
                n++;
            else
                unread++;
        }
        closedir(d);
    }
    if (st == TV_OK)
        report_doc_conditions(D, c, n);
    if (st == TV_OK && unread)
        doc_para(D, "%d store%s of the folder could not be read and %s left out of these conditions ('tavreli "
                    "verify' says why).",
                 unread, unread == 1 ? "" : "s", unread == 1 ? "is" : "are");
    for (int i = 0; i < n; i++)
        h5store_contents_free(&c[i]);
    free(c);
    return st;
}

TvStatus ladder_report_write(const char *dir, const TrainRung *rungs, int nr, const TrainLadderInfo *info,
                             const char *outdir, TvError *err)
{
    /* the document and the plot */
    Doc D = {0};
    StrBuf md = {0}, html = {0};
    DocFolder folder;
    TvStatus st = doc_folder_open(&folder, outdir, err);
    if (st != TV_OK)
        return st;
    const char *out = folder.stage.stage; /* every file is written there */
    if (st == TV_OK) {
        PlotSet p;
        plot_begin(&p, out);
        const char **names = calloc((size_t)nr + 1, sizeof *names);
        double *e = calloc((size_t)nr + 1, sizeof *e), *lo = calloc((size_t)nr + 1, sizeof *lo),
               *hi = calloc((size_t)nr + 1, sizeof *hi);
        char(*nb)[32] = calloc((size_t)nr + 1, sizeof *nb);
        if (!names || !e || !lo || !hi || !nb)
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        for (int i = 0; st == TV_OK && i < nr; i++) {
            snprintf(nb[i], sizeof nb[i], "gen-%d", rungs[i].generation);
            names[i] = nb[i];
            e[i] = rungs[i].elo; /* a perfect score's open end drawn at its bound */
            lo[i] = isfinite(rungs[i].lo) ? rungs[i].lo : rungs[i].elo;
            hi[i] = isfinite(rungs[i].hi) ? rungs[i].hi : rungs[i].elo;
        }
        if (st == TV_OK)
            st = plot_elo(&p, "Elo against generation 0 with its 95% interval (accepted generations)", names, e, lo,
                          hi, nr, err);
        if (st == TV_OK)
            st = plot_draw(&p, err);
        plot_free(&p);
        free(names);
        free(e);
        free(lo);
        free(hi);
        free(nb);
    }
    if (st == TV_OK) {
        doc_h1(&D, "Training ladder: %s", dir);
        int nacc = nr - 1;
        doc_para(&D,
                 "%d generations complete, %d accepted, %d of them confirmed. Elo of every accepted generation "
                 "against generation 0 with its 95%% interval; the last column says how each was measured.",
                 info->ngen, nacc, info->nconfirmed);
        doc_para(&D,
                 "How each step was measured. A confirmed generation (`train` confirms each accepted generation, "
                 "`[train] confirm_pairs` opening pairs against gen-0 and as many against the best before it; "
                 "`tavreli train --confirm DIR` for a run without; %lld confirmation games in all) is rated by its "
                 "own confirmation games against gen-0 alone: the Elo of its score with the 95%% half-width, the "
                 "numbers `tavreli selfplay` prints for a match of the two, so the interval is that of a direct "
                 "match against gen-0. Its games against the previous best are the `step` column beside it, "
                 "measured the same way; they do not enter its Elo. Strength need not add up between versions: "
                 "a generation may beat the one before it clearly and gen-0 hardly more, so the steps need not "
                 "sum to the Elo.",
                 (long long)info->confirm_games);
        if (info->nconfirmed < nacc)
            doc_para(&D,
                     "Generations not confirmed: one rating fit (BayesElo's model) of the %lld SPRT games the "
                     "tests' decisions counted. Each SPRT played only the generation against the best before it "
                     "and stopped when the test decided, so such an Elo adds up early-stopped steps: each step is "
                     "biased away from 0, and strength need not add up between versions. Run `tavreli train "
                     "--confirm %s`.",
                     (long long)info->sprt_games, dir);
        doc_table(&D, "lrrrrrl");
        const char *head[] = {"generation", "Elo vs gen-0", "95% low", "95% high", "games vs gen-0",
                              "step over the previous best", "measured by"};
        for (int i = 0; i < 7; i++)
            doc_cell(&D, "%s", head[i]);
        for (int i = 0; i < nr; i++) {
            char m[128];
            doc_cell(&D, "gen-%d", rungs[i].generation);
            char x[STATS_ELO_TEXT];
            doc_cell(&D, "%s", stats_fmt_elo(rungs[i].elo, x, sizeof x));
            doc_cell(&D, "%s", stats_fmt_elo(rungs[i].lo, x, sizeof x));
            doc_cell(&D, "%s", stats_fmt_elo(rungs[i].hi, x, sizeof x));
            doc_cell(&D, "%lld", (long long)rungs[i].games);
            char d[64];
            doc_cell(&D, "%s", train_rung_step(&rungs[i], d, sizeof d));
            doc_cell(&D, "%s", train_rung_method(&rungs[i], m, sizeof m));
        }
        doc_img(&D, PLOT_ELO_PNG, "Elo of the accepted generations against generation 0, 95% intervals");
        doc_h2(&D, "Generations");
        doc_table(&D, "lllrrl");
        const char *gh[] = {"generation", "outcome", "best after", "LLR", "SPRT pairs", "confirmed"};
        for (int i = 0; i < 6; i++)
            doc_cell(&D, "%s", gh[i]);
        for (int g = 1; g <= info->ngen; g++) {
            TrainGeneration gen;
            bool have;
            if (train_read_generation(dir, g, &gen, &have, err) != TV_OK || !have)
                break;
            doc_cell(&D, "gen-%d", g);
            doc_cell(&D, "%s", gen.outcome);
            doc_cell(&D, "gen-%ld", gen.best);
            doc_cell(&D, "%.3f", gen.llr);
            doc_cell(&D, "%ld", gen.pairs);
            doc_cell(&D, "%s", strcmp(gen.outcome, "accepted") ? "-" : gen.confirmed ? "yes" : "no");
        }
        if (st == TV_OK)
            st = doc_stores_conditions(&D, dir, info->ngen, err);
        if (st == TV_OK && D.oom)
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory building the report");
    }
    if (st == TV_OK) {
        doc_render_md(&D, &md);
        st = doc_render_html(&D, out, &html, err);
    }
    if (st == TV_OK)
        st = doc_write_buf(out, "ladder.md", &md, err);
    if (st == TV_OK)
        st = doc_write_buf(out, "report.html", &html, err);
    st = doc_folder_close(&folder, st, err);
    doc_free(&D);
    free(md.s);
    free(html.s);
    return st;
}
