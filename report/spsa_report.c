/* spsa_report.c: `tavreli report DIR` on the folder of an SPSA run
 * (spsa_report.h). */
#include "spsa_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5store.h"
#include "report.h"
#include "atomic_file.h"
#include "report_doc.h"
#include "report_plot.h"
#include "report_sessions.h"
#include "spsa.h"
#include "spsa_run.h"

#define SPSA_TRAJECTORY_PNG "spsa_trajectory.png"

static void path_in(char *buf, size_t n, const char *dir, const char *file) { snprintf(buf, n, "%s/%s", dir, file); }

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool spsa_is_dir(const char *dir)
{
    char path[1100];
    path_in(path, sizeof path, dir, "spsa.h5");
    return exists(path);
}

/* theta of every parameter against the iteration, each normalised to its [min, max]. */
static TvStatus plot_trajectory(PlotSet *p, const SpsaTable *t, TvError *err)
{
    StrBuf d = {0};
    strbuf_addf(&d, "# iteration, then (theta - min) / (max - min) of each parameter in /spsa/names order\n");
    for (long k = 0; k <= t->done; k++) {
        strbuf_addf(&d, "%ld", k);
        for (int i = 0; i < t->nparams; i++)
            strbuf_addf(&d, " %.6f", (t->theta[k * t->nparams + i] - t->lo[i]) / (t->hi[i] - t->lo[i]));
        strbuf_addf(&d, "\n");
    }
    TvStatus st = doc_write_buf(p->outdir, "spsa_trajectory.dat", &d, err);
    strbuf_free(&d);
    if (st != TV_OK)
        return st;
    strbuf_addf(&p->script,
                "\nreset\nset output \"" SPSA_TRAJECTORY_PNG "\"\n"
                "set title \"theta of each parameter against the iteration, normalised to its [min, max]\"\n"
                "set xlabel \"iteration\"\nset ylabel \"(theta - min) / (max - min)\"\nset yrange [0:1]\n"
                "set grid\nset key below horizontal\nplot ");
    for (int i = 0; i < t->nparams; i++)
        strbuf_addf(&p->script, "%s\"spsa_trajectory.dat\" using 1:%d with lines lw 2 title \"%s\"",
                    i ? ", \\\n     " : "", i + 2, t->names[i]);
    strbuf_addf(&p->script, "\n");
    strbuf_addf(&p->pngs, "%s\n", SPSA_TRAJECTORY_PNG);
    return TV_OK;
}

/* Whether the SPSA file stored in `store` asks for a verification: 1 yes,
 * 0 no, -1 unknown (the store or its file does not read here: an engine
 * file it names is elsewhere). */
static int spsa_verifies(const char *store)
{
    StoreContents c;
    if (h5store_read(store, false, false, &c, NULL) != TV_OK)
        return -1;
    int verifies = -1;
    char *text = c.tournament_ini ? strdup(c.tournament_ini) : NULL;
    if (text) {
        SpsaConfig *cfg = calloc(1, sizeof *cfg);
        if (cfg && spsa_read_text(store, text, strlen(text), cfg, NULL) == TV_OK)
            verifies = cfg->verify ? 1 : 0;
        else if (!cfg)
            free(text);
        if (cfg) {
            spsa_free(cfg);
            free(cfg);
        }
    }
    h5store_contents_free(&c);
    return verifies;
}

TvStatus spsa_report(const char *dir, const char *outdir, TvError *err)
{
    char store[1100], verify[1100], vdir[1100];
    path_in(store, sizeof store, dir, "spsa.h5");
    path_in(verify, sizeof verify, dir, "verify.h5");
    path_in(vdir, sizeof vdir, outdir, "verify");
    SpsaTable t;
    bool found;
    TvStatus st = spsa_table_read(store, &t, &found, err);
    if (st != TV_OK)
        return st;
    if (!found)
        return tv_fail(err, TV_ERR_PARSE,
                       "%s has no /spsa table (a run killed before its first one was written): run 'tavreli spsa "
                       "CONFIG --resume' to write it",
                       store);
    DocFolder folder;
    if ((st = doc_folder_open(&folder, outdir, err)) != TV_OK) {
        spsa_table_free(&t);
        return st;
    }
    const char *out = folder.stage.stage; /* every file is written there */
    PlotSet p;
    plot_begin(&p, out);
    st = plot_trajectory(&p, &t, err);
    if (st == TV_OK)
        st = plot_draw(&p, err);
    plot_free(&p);

    /* the verification: its own report, and its verdict here */
    StoreContents vc;
    memset(&vc, 0, sizeof vc);
    bool have_verify = st == TV_OK && exists(verify);
    if (have_verify) {
        const char *files[1] = {verify};
        st = report_write(files, 1, NULL, vdir, err);
        if (st == TV_OK)
            st = h5store_read(verify, false, false, &vc, err);
    }

    Doc D = {0};
    if (st == TV_OK) {
        const long P = t.nparams, K = t.done;
        doc_h1(&D, "SPSA run: %s", dir);
        doc_para(&D,
                 "%ld of %ld iterations complete, %ld opening pairs each (both colours of an opening: theta + c "
                 "Delta against theta - c Delta), %ld games. The plot shows theta after every iteration, each "
                 "parameter normalised to its range [min, max].",
                 K, t.iterations, t.batch, 2 * K * t.batch);
        doc_img(&D, SPSA_TRAJECTORY_PNG, "theta against the iteration, normalised to each parameter's range");
        long from = K - (K + 9) / 10; /* the last 10% of the iterations (at least one) */
        doc_para(&D,
                 "Final values, and the spread of theta over the last 10%% of the iterations (after iterations "
                 "%ld to %ld): a wide spread against c_end means the last steps still moved it, and more "
                 "iterations or a smaller r_end would settle it.",
                 from + 1, K);
        doc_table(&D, "lrrrrrrr");
        const char *head[] = {"parameter", "min", "max", "start", "final", "last 10% mean", "last 10% low",
                              "last 10% high"};
        for (int i = 0; i < 8; i++)
            doc_cell(&D, "%s", head[i]);
        for (long i = 0; i < P; i++) {
            double lo = INFINITY, hi = -INFINITY, sum = 0;
            for (long k = from + 1; k <= K; k++) {
                double v = t.theta[k * P + i];
                lo = fmin(lo, v);
                hi = fmax(hi, v);
                sum += v;
            }
            doc_cell(&D, "%s", t.names[i]);
            doc_cell(&D, "%g", t.lo[i]);
            doc_cell(&D, "%g", t.hi[i]);
            doc_cell(&D, "%.2f", t.theta[i]);
            doc_cell(&D, "%.2f", t.theta[K * P + i]);
            if (K > 0) {
                doc_cell(&D, "%.2f", sum / (double)(K - from));
                doc_cell(&D, "%.2f", lo);
                doc_cell(&D, "%.2f", hi);
            } else {
                for (int j = 0; j < 3; j++)
                    doc_cell(&D, "-");
            }
        }
        doc_h2(&D, "Verification");
        if (have_verify)
            doc_para(&D,
                     "The SPRT of the tuned engine against the start (%s, %lld games): %s. Its ratings, pairing, "
                     "how its games ended and its LLR path are in [verify/report.html](verify/report.html).",
                     vc.sprt ? vc.sprt : "no SPRT settings stored", (long long)vc.ngames,
                     vc.sprt_result ? vc.sprt_result : "not finished (run 'tavreli spsa CONFIG --resume')");
        else if (K < t.iterations)
            doc_para(&D, "No verification yet: the run is not finished (%ld of %ld iterations); the run that finishes "
                         "it verifies the tuned engine unless its file says verify = no.",
                     K, t.iterations);
        else if (spsa_verifies(store) == 0)
            doc_para(&D, "No verification: the run's file says verify = no (an SPRT of DIR/tuned.ini against "
                         "DIR/start.ini with `tavreli selfplay` gives one).");
        else
            doc_para(&D, "No verification yet (%s is missing): the run is finished but its verification has not run "
                         "or was stopped before its first game was stored; `tavreli spsa CONFIG --resume` runs it.",
                     verify);
        /* what shaped the games: the run's store and the verification's */
        StoreContents sc[2];
        memset(sc, 0, sizeof sc);
        st = h5store_read(store, false, false, &sc[0], err);
        if (st == TV_OK) {
            sc[1] = vc;
            report_doc_conditions(&D, sc, have_verify ? 2 : 1);
            report_doc_sessions(&D, "spsa.h5", &sc[0]);
            if (have_verify)
                report_doc_sessions(&D, "verify.h5", &vc);
        }
        h5store_contents_free(&sc[0]);
        if (st == TV_OK && D.oom)
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory building the report");
    }
    if (st == TV_OK) {
        StrBuf md = {0}, html = {0};
        doc_render_md(&D, &md);
        st = doc_render_html(&D, out, &html, err);
        if (st == TV_OK)
            st = doc_write_buf(out, "report.md", &md, err);
        if (st == TV_OK)
            st = doc_write_buf(out, "report.html", &html, err);
        strbuf_free(&md);
        strbuf_free(&html);
    }
    st = doc_folder_close(&folder, st, err);
    doc_free(&D);
    h5store_contents_free(&vc);
    spsa_table_free(&t);
    return st;
}
