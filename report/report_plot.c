/* report_plot.c: the report's plot data files, its gnuplot script, and
 * running gnuplot (see report_plot.h). */
#include "report_plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_doc.h"

static const char GP_HEAD[] =
    "# Written by `tavreli report`; run `gnuplot plots.gp` in this directory to redraw the plots.\n"
    "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
    "    set terminal pngcairo size 900,500 noenhanced font \"sans,11\"\n"
    "} else {\n"
    "    set terminal png size 900,500 noenhanced\n"
    "}\n";

void plot_sprt_file(int i, const char *ext, char *buf, size_t n)
{
    if (i)
        snprintf(buf, n, "sprt_llr_%d.%s", i + 1, ext);
    else
        snprintf(buf, n, "sprt_llr.%s", ext);
}

void plot_begin(PlotSet *p, const char *outdir)
{
    memset(p, 0, sizeof *p);
    p->outdir = outdir;
    strbuf_addf(&p->script, "%s", GP_HEAD);
}

void plot_free(PlotSet *p)
{
    strbuf_free(&p->script);
    strbuf_free(&p->data);
    strbuf_free(&p->pngs);
}

/* Starts the next data file: the data buffer emptied, then its header line. */
static StrBuf *data_begin(PlotSet *p, const char *header)
{
    p->data.len = 0;
    strbuf_addf(&p->data, "%s\n", header);
    return &p->data;
}

/* Ends a plot: writes its data file dat and records that the script draws
 * png.  Errors: dat cannot be written. */
static TvStatus data_end(PlotSet *p, const char *dat, const char *png, TvError *err)
{
    TvStatus st = doc_write_buf(p->outdir, dat, &p->data, err);
    if (st == TV_OK)
        strbuf_addf(&p->pngs, "%s\n", png);
    return st;
}

/* ---- the plots ----------------------------------------------------------------------- */

TvStatus plot_lengths(PlotSet *p, int64_t ngames, int binw, int nbins, const int64_t *decisive, const int64_t *drawn,
                      TvError *err)
{
    StrBuf *d = data_begin(p, "# plies (bin centre)  decisive  drawn");
    for (int b = 0; b < nbins; b++)
        strbuf_addf(d, "%g %lld %lld\n", b * binw + (binw - 1) / 2.0, (long long)decisive[b], (long long)drawn[b]);
    strbuf_addf(&p->script,
             "\nreset\nset output \"" PLOT_LENGTHS_PNG "\"\n"
             "set title \"Game length: %lld games (bins of %d plies)\"\n"
             "set xlabel \"game length (plies)\"\nset ylabel \"games\"\n"
             "set style fill solid 0.85 border rgb \"#555555\"\nset boxwidth %d absolute\n"
             "set key below horizontal\nset grid ytics\nset yrange [0:*]\nset xrange [%g:%g]\n"
             "plot \"lengths.dat\" using 1:($2+$3) with boxes lc rgb \"#fdae6b\" title \"drawn\", \\\n"
             "     \"\" using 1:2 with boxes lc rgb \"#3182bd\" title \"decisive\"\n",
             (long long)ngames, binw, binw, -binw / 2.0 - 0.5, nbins * binw - 0.5);
    return data_end(p, "lengths.dat", PLOT_LENGTHS_PNG, err);
}

TvStatus plot_sprt(PlotSet *p, int i, const PlotSprt *s, TvError *err)
{
    char dat[32], png[32];
    plot_sprt_file(i, "dat", dat, sizeof dat);
    plot_sprt_file(i, "png", png, sizeof png);
    StrBuf *d = data_begin(p, "# games (in complete pairs)  LLR");
    for (int64_t k = 0; k <= s->npairs; k++)
        strbuf_addf(d, "%g %.6f\n", s->games[k], s->llr[k]);
    double lo = fmin(s->lower, s->minllr), hi = fmax(s->upper, s->maxllr), pad = 0.08 * (hi - lo);
    strbuf_addf(&p->script,
             "\nreset\nset output \"%s\"\n"
             "set title \"SPRT: %s against %s, H0 nElo <= %g, H1 nElo >= %g (alpha %g, beta %g)\"\n"
             "set xlabel \"games (complete pairs x 2, in game-index order)\"\n"
             "set ylabel \"log-likelihood ratio\"\nset key below horizontal\nset grid\n"
             "set yrange [%g:%g]\nset xrange [0:%g]\n"
             "plot \"%s\" using 1:2 with lines lw 2 lc rgb \"#3182bd\" title \"LLR\", \\\n"
             "     %g with lines dt 2 lw 2 lc rgb \"#d62728\" title \"upper bound %.3f: accept H1\", \\\n"
             "     %g with lines dt 2 lw 2 lc rgb \"#2ca02c\" title \"lower bound %.3f: accept H0\"\n",
             png, s->engine0, s->engine1, s->elo0, s->elo1, s->alpha, s->beta, lo - pad, hi + pad,
             s->npairs > 0 ? 2.0 * (double)s->npairs : 2.0, dat, s->upper, s->upper, s->lower, s->lower);
    return data_end(p, dat, png, err);
}

TvStatus plot_tuning_loss(PlotSet *p, const TuneLogIter *iters, int niters, bool have_hold, TvError *err)
{
    StrBuf *d = data_begin(p, "# iteration  fit_loss  holdout_loss");
    for (int i = 0; i < niters; i++)
        strbuf_addf(d, "%ld %.10g %.10g\n", iters[i].iter, iters[i].fit_loss,
                 isfinite(iters[i].holdout_loss) ? iters[i].holdout_loss : NAN);
    strbuf_addf(&p->script,
             "\nreset\nset output \"" PLOT_TUNING_LOSS_PNG "\"\nset title \"Tuning: loss per iteration\"\n"
             "set xlabel \"iteration\"\nset ylabel \"loss\"\nset key top right\nset grid\n"
             "plot \"tuning_loss.dat\" using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb \"#3182bd\" "
             "title \"fit\"%s\n",
             have_hold ? ", \\\n     \"\" using 1:3 with linespoints lw 2 pt 5 ps 0.6 lc rgb \"#e6550d\" "
                         "title \"hold-out\""
                       : "");
    return data_end(p, "tuning_loss.dat", PLOT_TUNING_LOSS_PNG, err);
}

TvStatus plot_elo(PlotSet *p, const char *title, const char *const *names, const double *elo, const double *lo,
                  const double *hi, int n, TvError *err)
{
    StrBuf *d = data_begin(p, "# engine  Elo  low  high (the best last: drawn at the top)");
    for (int i = n - 1; i >= 0; i--)
        strbuf_addf(d, "\"%s\" %.3f %.3f %.3f\n", names[i], elo[i], lo[i], hi[i]);
    strbuf_addf(&p->script,
                "\nreset\nset output \"" PLOT_ELO_PNG "\"\n"
                "set title \"%s\"\n"
                "set xlabel \"Elo\"\nset ytics scale 0\nset yrange [-0.7:%g]\nset grid xtics\nset xzeroaxis\n"
                "set yzeroaxis lt -1\nset key off\n"
                "plot \"elo.dat\" using 2:0:3:4:yticlabels(1) with xerrorbars pt 7 ps 1.2 lc rgb \"#3182bd\"\n",
                title ? title : "Elo of each engine with its 95% interval (mean 0)", n - 0.3);
    return data_end(p, "elo.dat", PLOT_ELO_PNG, err);
}

TvStatus plot_pairings(PlotSet *p, const PlotPairing *pairings, int npairings, TvError *err)
{
    StrBuf *d = data_begin(p, "# one block per pairing: games  Elo  low  high");
    for (int k = 0; k < npairings; k++) {
        const PlotPairing *q = &pairings[k];
        strbuf_addf(d, "# %s\n", q->label);
        for (int64_t i = 0; i < q->n; i++) {
            double e = q->elo[i], h = q->err95[i];
            double lo = isfinite(h) ? e - h : e, hi = isfinite(h) ? e + h : e;
            strbuf_addf(d, "%lld %.2f %.2f %.2f\n", (long long)(i + 1), e, fmax(lo, -1000), fmin(hi, 1000));
        }
        strbuf_addf(d, "\n\n");
    }
    strbuf_addf(&p->script,
                "\nreset\nset output \"" PLOT_PAIRINGS_PNG "\"\n"
                "set title \"Elo of each pairing as its games accumulate (first engine's view, 95%% band)\"\n"
                "set xlabel \"games of the pairing\"\nset ylabel \"Elo\"\nset grid\nset xzeroaxis lt -1\n"
                "set key below horizontal\nset yrange [-1000:1000]\nset style fill transparent solid 0.15 noborder\n"
                "plot ");
    for (int k = 0; k < npairings; k++)
        strbuf_addf(&p->script,
                    "%s\"pairings.dat\" index %d using 1:3:4 with filledcurves lc %d notitle, "
                    "\"\" index %d using 1:2 with lines lw 2 lc %d title \"%s\"",
                    k ? ", \\\n     " : "", k, k + 1, k, k + 1, pairings[k].label);
    strbuf_addf(&p->script, "\n");
    return data_end(p, "pairings.dat", PLOT_PAIRINGS_PNG, err);
}

TvStatus plot_tuning_weights(PlotSet *p, const PlotBar *bars, int k, int nweights, const char *ranked_by,
                             TvError *err)
{
    StrBuf *d = data_begin(p, "# weight  new-start  stderr (largest last: drawn at the top)");
    for (int i = k - 1; i >= 0; i--)
        strbuf_addf(d, "%s %.10g %.10g\n", bars[i].name, bars[i].move, bars[i].se);
    strbuf_addf(&p->script,
             "\nreset\nset output \"" PLOT_TUNING_WEIGHTS_PNG "\"\n"
             "set title \"Weights that moved most (top %d of %d by %s)\"\n"
             "set xlabel \"new - start (error bars: +/- 2 stderr)\"\n"
             "set ytics scale 0\nset yrange [-0.7:%g]\nset grid xtics\nset yzeroaxis lt -1\n"
             "set key below horizontal\nset style fill solid 0.6 border rgb \"#555555\"\n"
             "plot \"tuning_weights.dat\" using ($2/2):0:(abs($2)/2):(0.35):yticlabels(1) with boxxyerror "
             "lc rgb \"#3182bd\" title \"new - start\", \\\n"
             "     \"\" using 2:0:(2*$3) with xerrorbars pt 7 ps 0.5 lc rgb \"black\" title \"+/- 2 stderr\"\n",
             k, nweights, ranked_by, k - 0.3);
    return data_end(p, "tuning_weights.dat", PLOT_TUNING_WEIGHTS_PNG, err);
}

/* Free space below which a plot that gnuplot could not write is put down
 * to a full disk: a report's plots take 20 to 60 KB each. */
#define PLOT_ROOM_BYTES (64 * 1024)

/* True when the file system holding dir has less than PLOT_ROOM_BYTES free
 * (for the user; the bytes free in *free_kib). */
static bool disk_full(const char *dir, unsigned long long *free_kib)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return false;
    unsigned long long room = (unsigned long long)sv.f_bavail * sv.f_frsize;
    *free_kib = room / 1024;
    return room < PLOT_ROOM_BYTES;
}

/* ---- gnuplot ------------------------------------------------------------------------- */

/* Runs `gnuplot plots.gp` in outdir, its output going to outdir/gnuplot.log
 * (removed on success). */
static TvStatus run_gnuplot(const char *outdir, TvError *err)
{
    char *log = doc_path(outdir, "gnuplot.log");
    if (!log)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        TvStatus st = tv_fail(err, TV_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
        free(log);
        return st;
    }
    if (pid == 0) {
        if (chdir(outdir) != 0)
            _exit(126);
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        char *argv[] = {"gnuplot", "plots.gp", NULL};
        execvp(argv[0], argv);
        _exit(errno == ENOENT ? 127 : 126);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            TvStatus st = tv_fail(err, TV_ERR_IO, "cannot wait for gnuplot: %s", strerror(errno));
            free(log);
            return st;
        }
    }
    TvStatus st = TV_OK;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        remove(log);
        st = tv_fail(err, TV_ERR_IO,
                     "gnuplot was not found: the report's plots need it; install gnuplot "
                     "(Debian: apt-get install gnuplot-nox)");
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* The first line gnuplot wrote that mentions an error. */
        char line[256] = "";
        FILE *f = fopen(log, "r");
        if (f) {
            char buf[256];
            while (fgets(buf, sizeof buf, f)) {
                buf[strcspn(buf, "\n")] = 0;
                if (buf[0] && (!line[0] || strstr(buf, "rror")))
                    snprintf(line, sizeof line, "%s", buf);
                if (strstr(buf, "rror"))
                    break;
            }
            fclose(f);
        }
        unsigned long long kib;
        if (disk_full(outdir, &kib))
            st = tv_fail(err, TV_ERR_IO, "gnuplot failed on %s/plots.gp: the disk holding %s is full (%llu KiB free)",
                         outdir, outdir, kib);
        else if (WIFEXITED(status) && WEXITSTATUS(status) == 126 && !line[0])
            st = tv_fail(err, TV_ERR_IO, "cannot run gnuplot in %s (is gnuplot installed and executable?)", outdir);
        else
            st = tv_fail(err, TV_ERR_IO, "gnuplot failed on %s/plots.gp: %s (see %s)", outdir,
                         line[0] ? line : "no message", log);
    } else {
        remove(log);
    }
    free(log);
    return st;
}

/* An outdir/name file that gnuplot should have written must be a PNG. */
static TvStatus check_png(const char *outdir, const char *name, TvError *err)
{
    char *path = doc_path(outdir, name);
    if (!path)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    unsigned char sig[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(sig, 1, sizeof sig, f) : 0;
    if (f)
        fclose(f);
    TvStatus st = TV_OK;
    unsigned long long kib;
    if ((n != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8) != 0) && disk_full(outdir, &kib))
        st = tv_fail(err, TV_ERR_IO, "gnuplot could not write the plot %s: the disk holding %s is full (%llu KiB free)",
                     path, outdir, kib);
    else if (n != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8) != 0)
        st = tv_fail(err, TV_ERR_IO, "gnuplot did not write the plot %s (is its png or pngcairo terminal available?)",
                     path);
    free(path);
    return st;
}

TvStatus plot_draw(PlotSet *p, TvError *err)
{
    if (p->pngs.failed)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    TvStatus st = doc_write_buf(p->outdir, "plots.gp", &p->script, err);
    if (st == TV_OK)
        st = run_gnuplot(p->outdir, err);
    /* every plot, in the order drawn */
    for (const char *s = strbuf_str(&p->pngs); st == TV_OK && *s;) {
        size_t len = strcspn(s, "\n");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, s);
        st = check_png(p->outdir, name, err);
        s += len + (s[len] ? 1 : 0);
    }
    return st;
}
