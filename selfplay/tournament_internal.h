/* tournament_internal.h: what the files of the tournament share
 * (tournament_ini.c reads the INI, tournament_openings.c the openings file).
 * Included by those files only. */
#ifndef TAVRELI_TOURNAMENT_INTERNAL_H
#define TAVRELI_TOURNAMENT_INTERNAL_H

#include <stdbool.h>

#include "status.h"
#include "tournament.h"

/* Reads t->openings.file into t->opening_tfens (in the order they are
 * played).  Errors about the file name its lines; those about the INI name
 * t->source at ini_line (the `file =` line) or start_line (`start =`).  A
 * stored tournament (stored: read back from a store) may need more openings
 * than the file has: the store's games tell what was played. */
TvStatus tournament_load_openings(Tournament *t, int ini_line, int start_line, bool stored, TvError *err);

#endif
