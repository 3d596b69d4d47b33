#define _POSIX_C_SOURCE 200809L
/* report.c: strength reports from self-play stores (and a tuning log): what
 * the report says.
 *
 * The work is done in stages, each of which can fail with a clear message
 * before anything is written:
 *   1. read every store, map its engines to the players of the first store
 *      by name, and turn its games into RatedGame entries (pair ids made
 *      unique per file);
 *   2. fit the ratings and compute the per-pairing statistics, the
 *      termination counts, the game lengths, the SPRT paths and the tuning
 *      log's ranking (the log is read by tune_log.h);
 *   3. create outdir and draw the plots (report_plot.h: the data files, one
 *      gnuplot script, gnuplot, every PNG checked);
 *   4. build the report once as a document (report_doc.h: headings,
 *      paragraphs, tables, images) and render it twice: report.md and
 *      report.html.
 * Stages 1 and 2 are in report_data.c, 3 and 4 in report_build.c; what they
 * share (the Report) in report_internal.h. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "atomic_file.h"
#include "report_internal.h"
#include "strbuf.h"

void report_free(Report *R)
{
    if (R->c && !R->c_given) {
        for (int f = 0; f < R->nfiles; f++)
            h5store_contents_free(&R->c[f]);
        free(R->c);
    }
    free(R->players);
    free(R->kept);
    free(R->kept_white);
    free(R->kept_black);
    for (int i = 0; i < R->npairings; i++) {
        free(R->pairings[i].elo);
        free(R->pairings[i].err95);
    }
    free(R->rg);
    free(R->rated_player);
    if (R->have_r)
        ratings_free(&R->r);
    free(R->order);
    free(R->pairings);
    free(R->plies);
    free(R->decisive_by_bin);
    free(R->drawn_by_bin);
    for (int i = 0; i < R->nsprt; i++) {
        free(R->sprt[i].result);
        free(R->sprt[i].path_games);
        free(R->sprt[i].path_llr);
    }
    free(R->sprt);
    tune_log_free(&R->tl);
    free(R->tl_rank);
}

TvStatus report_write(const char *const *files, int nfiles, const char *tuning_log, const char *outdir,
                      TvError *err)
{
    const ReportOptions o = {.simulations = 0, .mix_rules = false, .baseline = NULL};
    return report_write_opts(files, nfiles, tuning_log, outdir, &o, NULL, err);
}

TvStatus report_write_opts(const char *const *files, int nfiles, const char *tuning_log, const char *outdir,
                           const ReportOptions *opt, ReportSummary *summary, TvError *err)
{
    if (err)
        tv_error_clear(err);
    if (!files || nfiles < 1)
        return tv_fail(err, TV_ERR_ARG, "report: no store given");
    if (!outdir || !outdir[0])
        return tv_fail(err, TV_ERR_ARG, "report: no output directory given");
    for (int f = 0; f < nfiles; f++)
        if (!files[f])
            return tv_fail(err, TV_ERR_ARG, "report: store %d is missing", f + 1);

    DocFolder folder;
    TvStatus locked = doc_folder_open(&folder, outdir, err);
    if (locked != TV_OK)
        return locked;
    const char *out = folder.stage.stage; /* every file is written there */

    Report R;
    memset(&R, 0, sizeof R);
    R.files = files;
    R.nfiles = nfiles;
    R.tuning_path = tuning_log;
    R.simulations = opt->simulations;
    R.mix_rules = opt->mix_rules;
    R.baseline_name = opt->baseline;
    Doc D = {0};
    StrBuf md = {0}, html = {0};
    TvStatus st;
    if ((st = report_collect(&R, err)) != TV_OK || (st = report_compute(&R, err)) != TV_OK)
        goto done;
    if ((st = report_plots(&R, out, err)) != TV_OK)
        goto done;
    report_build_doc(&R, &D);
    if (D.oom) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory building the report");
        goto done;
    }
    doc_render_md(&D, &md);
    if ((st = doc_render_html(&D, out, &html, err)) != TV_OK)
        goto done;
    if ((st = doc_write_buf(out, "report.md", &md, err)) != TV_OK)
        goto done;
    st = doc_write_buf(out, "report.html", &html, err);
    if (st == TV_OK && summary) {
        summary->games = R.ngames;
        summary->duplicates = R.nduplicates;
        summary->torn_rows = 0;
        for (int f = 0; f < R.nfiles; f++)
            summary->torn_rows += R.c[f].torn_rows;
        StrBuf lines = {0};
        report_headlines(&R, &lines);
        const char *first = lines.s ? lines.s : "";
        snprintf(summary->headline, sizeof summary->headline, "%.*s", (int)strcspn(first, "\n"), first);
        strbuf_free(&lines);
    }
done:
    st = doc_folder_close(&folder, st, err);
    free(md.s);
    free(html.s);
    doc_free(&D);
    report_free(&R);
    return st;
}
