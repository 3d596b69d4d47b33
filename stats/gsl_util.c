/* gsl_util.c: switching GSL's error handler off (see gsl_util.h). */
#include "gsl_util.h"

void stats_gsl_errors_off(void) { gsl_set_error_handler_off(); }
