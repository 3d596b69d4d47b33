/* tune_log.h: the tuning log (written by `tavreli tune`, read by
 * `tavreli report --tuning-log`): its format, its one writer and its one
 * reader side by side; and the comment block of the tuned engine INI.  Part
 * of tune.h.
 *
 * Format (text, one record per line; '#' starts a comment that runs to the
 * end of the line; blank lines are skipped):
 *   iter N fit_loss X holdout_loss Y   the mean squared errors after
 *                                      iteration N (Y is nan without a
 *                                      hold-out set)
 *   path N V0 V1 ...                   the weight path: every weight element,
 *                                      in weights.def order, after iteration N
 *   weight NAME START NEW STDERR       a fitted weight: its start value, the
 *                                      value written to the INI, its standard
 *                                      error (>= 0)
 *   corr NAME1 NAME2 R                 two fitted weights whose estimates
 *                                      correlate strongly (|R| >
 *                                      TUNE_CORR_REPORT, R in [-1, 1]),
 *                                      strongest first
 *   group NAME N COND SPREAD W:C...    a weights.def group with N >= 2
 *                                      adopted weights (NAME 'all': every
 *                                      adopted weight): the condition number
 *                                      of their estimates' correlations
 *                                      (COND >= 1), how many times their
 *                                      loosest combination spreads beyond
 *                                      independent estimates (SPREAD >= 1),
 *                                      and its largest components per
 *                                      standard error (weight W, coefficient
 *                                      C in [-1, 1]; at most TUNE_GROUP_SHOW)
 *   cv L2 LOSS SE                      --l2 auto: the mean validation loss
 *                                      (MSE) over the folds of games at L2
 *                                      strength L2 (a number >= 0, or
 *                                      'start' for the start weights), and
 *                                      its standard error (>= 0)
 * The writer puts every iter line, then every path line, then the weight
 * lines, then the corr lines, then the group lines, then the cv lines, with
 * comments before each kind. */
#ifndef TAVRELI_TUNE_LOG_H
#define TAVRELI_TUNE_LOG_H

#include "status.h"
#include "tune_fit.h"

/* Writes the tuning log of r to path; header (may be NULL) becomes comment
 * lines at the top.  Errors: path cannot be written (TV_ERR_IO). */
TvStatus tune_write_log(const char *path, const TuneResult *r, const char *header, TvError *err);

/* The text tune_write_log writes, to f (a file of a group: tv_commit_group). */
void tune_log_print(FILE *f, const TuneResult *r, const char *header);

/* One 'iter' record. */
typedef struct {
    long iter;
    double fit_loss;
    double holdout_loss; /* NAN without a hold-out set */
} TuneLogIter;

/* One 'path' record: the weights after iteration iter. */
typedef struct {
    long iter;
    int n;     /* values (EVAL_NWEIGHTS in a log this program wrote) */
    double *w; /* heap, n */
} TuneLogPath;

/* One 'weight' record. */
typedef struct {
    char name[96];
    double start;
    double now; /* NEW: as written to the INI */
    double se;  /* STDERR */
} TuneLogWeight;

/* One 'corr' record. */
typedef struct {
    char a[96], b[96]; /* the two weights' names */
    double r;          /* the correlation of their estimates */
} TuneLogCorr;

/* One 'group' record. */
typedef struct {
    char group[32];
    int n;
    double cond, spread;
    int nshow;
    char names[TUNE_GROUP_SHOW][96];
    double coef[TUNE_GROUP_SHOW];
} TuneLogGroup;

/* One 'cv' record. */
typedef struct {
    double l2;   /* INFINITY: the start weights */
    double loss, se;
} TuneLogCv;

/* A tuning log as read: its records in file order. */
typedef struct {
    TuneLogCv *cv;
    int ncv;
    TuneLogCorr *corr;
    int ncorr;
    TuneLogGroup *groups;
    int ngroups;
    TuneLogIter *iters;
    int niters;
    TuneLogPath *paths;
    int npaths;
    TuneLogWeight *weights;
    int nweights;
} TuneLog;

/* Reads the tuning log at path into *out (freed with tune_log_free; left
 * empty on failure).  A 'path' line is read as its iteration and the numbers
 * that follow up to the first word that is not one: the report does not draw
 * the path, and its values are not checked.  Errors: path cannot be read
 * (TV_ERR_IO); a line that is none of the records, a group record whose
 * N is below 2, COND below 1, SPREAD below 1, or a W:C not a name and
 * a coefficient in [-1, 1], a cv record whose
 * L2 is not 'start' or a number >= 0 or whose loss or SE is not a finite
 * number (SE >= 0), a fit_loss that is
 * not finite, a weight's START or NEW that is not a number or a STDERR that
 * is not a number >= 0, a weight given twice (TV_ERR_PARSE, with err->file
 * and err->line set); no 'iter' or 'weight' record at all (TV_ERR_PARSE);
 * out of memory (TV_ERR_LIMIT). */
TvStatus tune_log_read(const char *path, TuneLog *out, TvError *err);

/* Frees the records of log and empties it (also after a failed read). */
void tune_log_free(TuneLog *log);

/* The comment block for the tuned engine INI (heap string; NULL when out of
 * memory): header (may be NULL), K, the losses, and per weight
 * "name: start -> new +- se". */
char *tune_ini_comment(const TuneResult *r, const char *header, const char *sprt);

#endif
