/* tfen.h: reading and writing the position notation of docs/rules.md section 12. */
#ifndef TAVRELI_TFEN_H
#define TAVRELI_TFEN_H

#include "position.h"
#include "status.h"

#define TV_START_TFEN "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq - 0 1"

/* Longest TFEN: 32 tavrels of at most 3 characters, brackets, digits,
 * slashes and the other fields fit comfortably. */
#define TV_TFEN_MAX 256

/* Parses a TFEN (4 or 6 fields; "startpos" is NOT accepted here, see
 * tfen_read_arg) into p.  On error returns TV_ERR_PARSE and writes into err a
 * message of the form
 *   TFEN field N (name), char C: what is wrong
 * where C counts characters of the whole string from 1.  Never crashes, on
 * any input.  p is unspecified on error. */
TvStatus tfen_read(const char *s, Position *p, TvError *err);

/* As tfen_read, but also accepts the word "startpos". */
TvStatus tfen_read_arg(const char *s, Position *p, TvError *err);

/* Writes p as a TFEN of 6 fields into buf (size n, at least TV_TFEN_MAX).
 * Returns buf. */
char *tfen_write(const Position *p, char *buf, size_t n);

/* Writes one tavrel as its TFEN token (without the ' mark) into buf (size at
 * least 4); returns buf. */
char *tfen_token(Tavrel t, char *buf);

#endif
