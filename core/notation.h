/* notation.h: move notation (docs/rules.md section 11). */
#ifndef TAVRELI_NOTATION_H
#define TAVRELI_NOTATION_H

#include "position.h"
#include "status.h"

#define TV_MOVE_STR_MAX 24

/* Writes m (legal in p) as `from-to`, `from(k)-to` (k below the height),
 * `0-0` or `0-0-0`.  With suffix true, appends `+` when the move gives check
 * and `x` when it mates (the writer's convention of docs/rules.md section 11).
 * Returns buf (size n >= TV_MOVE_STR_MAX). */
char *move_to_str(const Position *p, const Options *o, Move m, bool suffix, char *buf, size_t n);

/* What a parsed move carried besides the move itself. */
typedef struct {
    bool check;          /* '+' written */
    bool mate;           /* '#' written */
    bool win;            /* 'x' written: last move of a won game (mate or resignation) */
    char annotation[4];  /* "!", "!!", "?", "??", "!?", "?!" or "" */
    bool mended;         /* lenient mode changed the text to read it */
    char warning[160];   /* what was mended, when mended */
} MoveInfo;

enum { TV_PARSE_STRICT = 0, TV_PARSE_LENIENT = 1 };

/* Reads one move written in text (a single token; in lenient mode a space may
 * stand for the hyphen, the file letters may be upper case and a Cyrillic
 * 'с' (U+0441) may stand for 'c').  The move must be legal in p.  On success
 * stores it in *out and fills info (when not NULL).  Errors:
 *   TV_ERR_PARSE   the text is not a move: "cannot read move 'e9-e4': ..."
 *   TV_ERR_ILLEGAL the move is not legal here: "illegal move 'e2-e5': ..."
 * `e1-g1` (and the other Wizard castling squares) means castling only when
 * that castling is legal; otherwise it is an ordinary move from e1. */
TvStatus move_parse(const Position *p, const Options *o, const char *text, int mode, Move *out,
                    MoveInfo *info, TvError *err);

#endif
