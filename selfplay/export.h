/* export.h: a store's games written out for other tools and for checks:
 *  - the digest: one line per game in game-index order, with a 64-bit hash
 *    of all its moves and positions (wall times and row offsets left out),
 *    so that two stores hold the same games exactly when their digests are
 *    equal, whatever order the games were stored in;
 *  - TGN records (docs/rules.md section 13), one per game in game-index
 *    order. */
#ifndef TAVRELI_EXPORT_H
#define TAVRELI_EXPORT_H

#include <stdint.h>

#include "h5store.h"
#include "status.h"

/* The check of c before anything is exported: its moves were replayed as
 * it was read (h5store_read: each move legal and written so, the stored
 * result and termination what the rules say); when c holds the positions,
 * each must be the position replayed too (verify_store_games).  Errors name
 * the game (`source`: the store's path). */
TvStatus export_check_moves(const StoreContents *c, const char *source, TvError *err);

/* Writes the digest of the games of c (read with moves and positions) to
 * path.  Errors: an unwritable file (TV_ERR_IO), out of memory. */
TvStatus export_digest(const StoreContents *c, const char *path, TvError *err);

/* Writes every game of c (read with moves) as a TGN record to path, in
 * game-index order, with Event (the tournament's name; when its INI had no
 * name key, the store's file name without .h5, as the run was named after
 * its INI file), Round (1-based), GameIndex, White, Black, Result,
 * Termination, Options and, when the game did not start from the start
 * position, SetUp and TFEN tags, and a {score/depth time} comment after
 * each move.  `source` is the store's path (for messages and the name).
 * Errors: an unwritable file; a stored move or start TFEN that does not
 * read back (the message names the game and ply). */
TvStatus export_tgn(const StoreContents *c, const char *source, const char *path, TvError *err);

/* One game of c (read with moves) as export_tgn writes it: *text is a heap
 * string (free it).  Errors as export_tgn's, for that game. */
TvStatus export_tgn_game(const StoreContents *c, const char *source, const StoredGame *g, char **text,
                         TvError *err);

/* The tournament's name, read from a stored tournament INI text (its
 * [tournament] name key); `fallback` when the text has none. */
void export_tournament_name(const char *ini_text, const char *fallback, char *buf, size_t n);

#endif
