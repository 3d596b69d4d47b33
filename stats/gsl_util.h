/* gsl_util.h: the one seam between GSL and the error reporting of the
 * rating fit (stats/ratings.c) and the tuner (tuner/), which both call GSL.
 * (The names keep their tuner_ prefix from before the fit moved to stats/.)
 *
 * GSL's default error handler aborts the process.  Every entry point
 * that calls GSL first switches it off (stats_gsl_errors_off), so that GSL
 * failures come back as status codes, and turns a failed status into a
 * TvError with GSL's text (stats_gsl_fail).  The handler is process-wide in
 * GSL: switching it off is the only global effect of the tuner. */
#ifndef TAVRELI_GSL_UTIL_H
#define TAVRELI_GSL_UTIL_H

#include <gsl/gsl_errno.h>

#include "status.h"

/* Switches GSL's process-wide error handler off (idempotent). */
void stats_gsl_errors_off(void);

/* Fails with TV_ERR_ARG and the message fmt formatted with the arguments
 * that follow and then GSL's text for gsl_status: fmt's last conversion is
 * the %s that receives that text, e.g.
 *   return stats_gsl_fail(err, st, "tune: %s: GSL error: %s", "fitting K");
 * Evaluates to TV_ERR_ARG (each module keeps its own wording; the status
 * and where GSL's text comes from are decided here). */
#define stats_gsl_fail(err, gsl_status, ...) tv_fail((err), TV_ERR_ARG, __VA_ARGS__, gsl_strerror(gsl_status))

#endif
