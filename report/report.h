/* report.h: strength reports (Markdown + HTML with plots) from self-play
 * stores and, optionally, a tuning log. */
#ifndef TAVRELI_REPORT_H
#define TAVRELI_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* Reads the stores (all games of all files together), fits the ratings and
 * writes into outdir (created if missing): report.md, report.html (readable
 * in a browser without a server; plots as PNG files next to it, drawn by
 * gnuplot), and the plot files.  The report holds: the rating table with 95%
 * intervals, the LOS matrix, per-pairing results (W/D/L, pentanomial, score,
 * Elo and normalized Elo with errors), how games ended, the game-length
 * distribution, the SPRT decision and LLR path when the stores carry an SPRT
 * (root attribute "sprt": "elo0=E0 elo1=E1 alpha=A beta=B", bounds in
 * normalized Elo; "sprt_result" holds the stored decision), and with a
 * tuning log, the loss curve and the weights that moved most with their
 * error bars.
 *
 * Tuning log format (text, one record per line, '#' comments; tuner/tune_log.h
 * writes and reads it and says more):
 *   iter N fit_loss X holdout_loss Y
 *   path N V0 V1 ...      (the weight path: every weight after iteration N;
 *                          accepted and not drawn)
 *   weight NAME START NEW STDERR
 *   cv L2 LOSS SE         (--l2 auto: validation loss against the L2 strength;
 *                          shown as a table)
 *
 * Errors: a store of another schema version, no games, only one version,
 * gnuplot missing or failing, an unwritable outdir. */
TvStatus report_write(const char *const *files, int nfiles, const char *tuning_log, const char *outdir,
                      TvError *err);

typedef struct {
    int simulations; /* > 0: rating intervals from this many simulated replays of the schedule */
    bool mix_rules;  /* rate stores played under other rule options together */
    const char *baseline; /* the engine the headline table compares every other with (NULL: the first
                             engine of the first store that played another); an unknown name, or one
                             that played no other engine, is an error */
    bool sprt_from_ini; /* a store that has no "sprt" attribute yet (its run is still playing, or
                           was cut short) shows the SPRT of its tournament INI's [sprt] section, its
                           LLR so far (`tavreli serve`'s live pages) */
} ReportOptions;

/* What a report was made from, for the front end to say (the report says it too). */
typedef struct {
    int64_t games;      /* games rated, each once */
    int64_t duplicates; /* games held by more than one store, counted once */
    int64_t torn_rows;  /* /games rows of torn appends left out, over all stores */
    char headline[1024]; /* the report's first line as plain text: the first engine against the first
                            engine it met ("new vs old: +12 ± 20 Elo (nElo ...), LOS ..., W/D/L; SPRT
                            [0, 10]: verdict"); "" when it met none */
} ReportSummary;

/* report_write with options; *summary (may be NULL) is filled on success. */
TvStatus report_write_opts(const char *const *files, int nfiles, const char *tuning_log, const char *outdir,
                           const ReportOptions *opt, ReportSummary *summary, TvError *err);

#endif
