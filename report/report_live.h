/* report_live.h: a store's report as data, for the live pages of `tavreli
 * serve` (serve/; docs/serve.md gives the JSON).  The same model as the
 * report's (report_data.c's stages 1 and 2: players, ratings, pairings,
 * the SPRT and its path), written as JSON instead of a document, so the
 * page and the report cannot disagree. */
#ifndef TAVRELI_REPORT_LIVE_H
#define TAVRELI_REPORT_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "h5store.h"
#include "status.h"
#include "strbuf.h"

/* Appends to out the members of a JSON object (no braces: the caller's
 * object holds them):
 *   "headline": "...", "rated_games": N, "sprt": {...} | null,
 *   "standings": [...], "pairings": [...], "referee_losses": [...]
 * from the stores, rated together as `tavreli report` rates them (a store
 * still being played takes its SPRT from its tournament INI).  Standings
 * are best first; the SPRT carries its LLR path ("path": [games, llr]
 * after each pair); referee_losses holds the last max_losses games an
 * engine lost by the referee's call, latest last.  brief: only headline,
 * rated_games and the SPRT without its path (a runs list).  Errors: the
 * report's (an unreadable store, no games). */
TvStatus report_live_json(const char *const *files, int nfiles, bool brief, int max_losses, StrBuf *out,
                          TvError *err);
/* report_live_json of one store the caller has read (c, its path `name`
 * for messages), so that a caller that needs the contents too reads the
 * store once; c is not changed. */
TvStatus report_live_json_contents(const StoreContents *c, const char *name, bool brief, int max_losses,
                                   StrBuf *out, TvError *err);

#endif
