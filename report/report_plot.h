/* report_plot.h: the report's plots (internal to report/).  Each plot writes
 * its data file into the output directory and adds its part to one gnuplot
 * script; plot_draw writes the script (plots.gp), runs gnuplot in the
 * directory and checks that every plot became a PNG.  The data files and
 * plots.gp stay, so a plot can be redrawn or restyled by hand.  The script
 * picks gnuplot's pngcairo terminal when it has one, else png.
 *
 *   PlotSet p;
 *   plot_begin(&p, outdir);
 *   st = plot_lengths(&p, ...);          // each: data file + script part
 *   ...
 *   if (st == TV_OK) st = plot_draw(&p, err);
 *   plot_free(&p);
 */
#ifndef TAVRELI_REPORT_PLOT_H
#define TAVRELI_REPORT_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "strbuf.h"
#include "tune_log.h"

/* The PNG files of the plots, as the report links them. */
#define PLOT_LENGTHS_PNG "lengths.png"
#define PLOT_ELO_PNG "elo.png"
#define PLOT_PAIRINGS_PNG "pairings.png"
#define PLOT_TUNING_LOSS_PNG "tuning_loss.png"
#define PLOT_TUNING_WEIGHTS_PNG "tuning_weights.png"

/* The file of SPRT plot i (from 0) with extension ext ("png" or "dat"):
 * sprt_llr.EXT, then sprt_llr_2.EXT, sprt_llr_3.EXT, ... */
void plot_sprt_file(int i, const char *ext, char *buf, size_t n);

typedef struct {
    const char *outdir;
    StrBuf script; /* plots.gp so far */
    StrBuf data;   /* the data file being written */
    StrBuf pngs;   /* the PNG files the script draws, one a line, in order */
} PlotSet;

/* Starts an empty set of plots for outdir (which must exist; kept by
 * pointer). */
void plot_begin(PlotSet *p, const char *outdir);

/* Frees p's buffers. */
void plot_free(PlotSet *p);

/* The histogram of game lengths: nbins bins of binw plies, decisive and
 * drawn games per bin, ngames in all.  Errors: the data file cannot be
 * written. */
TvStatus plot_lengths(PlotSet *p, int64_t ngames, int binw, int nbins, const int64_t *decisive, const int64_t *drawn,
                      TvError *err);

/* One SPRT's LLR path between its bounds. */
typedef struct {
    const char *engine0, *engine1; /* the store's engines 0 and 1 */
    double elo0, elo1, alpha, beta;
    double lower, upper;           /* LLR bounds */
    int64_t npairs;                /* complete pairs */
    const double *games, *llr;     /* npairs + 1 points, from (0, 0) */
    double minllr, maxllr;         /* over the finite LLRs of the path */
} PlotSprt;

/* SPRT plot i (plot_sprt_file's numbering).  Errors: the data file cannot be
 * written. */
TvStatus plot_sprt(PlotSet *p, int i, const PlotSprt *s, TvError *err);

/* The Elo of every engine with its 95% interval, n engines best first
 * (drawn from the top), under title (NULL: "Elo of each engine with its
 * 95% interval (mean 0)").  Errors: the data file cannot be written. */
TvStatus plot_elo(PlotSet *p, const char *title, const char *const *names, const double *elo, const double *lo,
                  const double *hi, int n,
                  TvError *err);

/* One pairing's Elo as its games accumulate: after each of its n games
 * (in the order played), the Elo of the first engine's score so far (a
 * perfect score shown at +-1000) and the 95% half-width. */
typedef struct {
    const char *label; /* "a vs b" */
    int64_t n;
    const double *elo, *err95;
} PlotPairing;

/* Every pairing's Elo against games played.  Errors: the data file cannot
 * be written. */
TvStatus plot_pairings(PlotSet *p, const PlotPairing *pairings, int npairings, TvError *err);

/* The fit and hold-out loss per iteration of a tuning log (the hold-out
 * curve only when have_hold).  Errors: the data file cannot be written. */
TvStatus plot_tuning_loss(PlotSet *p, const TuneLogIter *iters, int niters, bool have_hold, TvError *err);

/* One bar of the weights plot. */
typedef struct {
    const char *name;
    double move; /* new - start */
    double se;   /* stderr */
} PlotBar;

/* The k weights that moved most (bars, biggest first) of nweights, with
 * +/- 2 stderr error bars; ranked_by says how they were ranked (for the
 * title).  Errors: the data file cannot be written. */
TvStatus plot_tuning_weights(PlotSet *p, const PlotBar *bars, int k, int nweights, const char *ranked_by,
                             TvError *err);

/* Writes plots.gp, runs gnuplot in the output directory (its output goes to
 * gnuplot.log, removed on success) and checks every plot's PNG.  Errors:
 * gnuplot missing (with how to install it), failing (its first error line)
 * or not writing a PNG; plots.gp cannot be written; out of memory. */
TvStatus plot_draw(PlotSet *p, TvError *err);

#endif
