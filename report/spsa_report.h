/* spsa_report.h: the report of an SPSA run's folder (`tavreli report DIR`;
 * spsa_run.h says what the folder holds). */
#ifndef TAVRELI_SPSA_REPORT_H
#define TAVRELI_SPSA_REPORT_H

#include <stdbool.h>

#include "status.h"

/* True when dir is the folder of an SPSA run (it holds spsa.h5). */
bool spsa_is_dir(const char *dir);

/* Writes into outdir report.md and report.html: theta of each parameter
 * against the iteration (a plot, normalised to each range), the final
 * values with the spread of their last 10% of iterations, and the verdict of
 * the verification SPRT; and into outdir/verify the usual report (ratings,
 * pairing, terminations, the LLR path) of the verification games.  Errors:
 * no /spsa table, an unreadable store, gnuplot missing or failing. */
TvStatus spsa_report(const char *dir, const char *outdir, TvError *err);

#endif
