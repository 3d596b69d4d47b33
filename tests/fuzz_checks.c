/* fuzz_checks.c: see fuzz_checks.h. */
#include "fuzz_checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "tfen.h"

/* Positions move_parse is tried on: start, towers, castling, en passant, the
 * seed game before its mating split. */
static const char *const FIXED_TFENS[] = {
    TV_START_TFEN,
    "4k3/8/8/3(QprRbNpqPBpn)4/8/8/8/7K w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "7k/8/8/8/3pqPHpb2/4N3/8/K7 b - e3 0 1",
    "rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4",
};
#define N_FIXED (sizeof FIXED_TFENS / sizeof FIXED_TFENS[0])

static int fail(char *why, size_t n, const char *fmt, ...)
{
    if (why && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return 1;
}

static int check_position(const Position *p, const Options *o, const char *text, char *why, size_t n)
{
    char r[256];
    if (!pos_is_ok(p, r, sizeof r))
        return fail(why, n, "tfen_read accepted '%s' but pos_is_ok fails: %s", text, r);
    char t1[TV_TFEN_MAX], t2[TV_TFEN_MAX];
    tfen_write(p, t1, sizeof t1);
    Position q;
    TvError err;
    tv_error_clear(&err);
    if (tfen_read(t1, &q, &err) != TV_OK)
        return fail(why, n, "'%s' was read and written as '%s', which does not read back: %s", text, t1, err.msg);
    if (!pos_equal(p, &q))
        return fail(why, n, "'%s' written as '%s' reads back as a different position", text, t1);
    tfen_write(&q, t2, sizeof t2);
    if (strcmp(t1, t2) != 0)
        return fail(why, n, "TFEN not stable: '%s' -> '%s' -> '%s'", text, t1, t2);

    /* Every legal move makes and unmakes cleanly on what the reader accepted. */
    static MoveList list;
    movegen_legal(p, o, &list);
    Position work = *p;
    for (int i = 0; i < list.count; i++) {
        Undo u;
        pos_make_move(&work, list.moves[i], &u);
        if (!pos_is_ok(&work, r, sizeof r))
            return fail(why, n, "'%s': pos_is_ok fails after legal move %d: %s", t1, i, r);
        pos_unmake_move(&work, &u);
        if (!pos_equal(&work, p))
            return fail(why, n, "'%s': make/unmake of legal move %d does not restore", t1, i);
    }
    return 0;
}

static int check_move_text(const Position *p, const Options *o, const char *text, int mode, char *why, size_t n)
{
    Move m = TV_MOVE_NONE;
    MoveInfo info;
    TvError err;
    memset(&info, 0, sizeof info);
    tv_error_clear(&err);
    TvStatus st = move_parse(p, o, text, mode, &m, &info, &err);
    if (st != TV_OK) {
        if (st != TV_ERR_PARSE && st != TV_ERR_ILLEGAL)
            return fail(why, n, "move_parse('%s') returned status %d", text, (int)st);
        if (err.msg[0] == 0)
            return fail(why, n, "move_parse('%s') failed without a message", text);
        return 0;
    }
    if (!movegen_is_legal(p, o, m))
        return fail(why, n, "move_parse('%s') returned a move that is not legal", text);
    char buf[TV_MOVE_STR_MAX];
    for (int suffix = 0; suffix < 2; suffix++) {
        move_to_str(p, o, m, suffix != 0, buf, sizeof buf);
        Move back = TV_MOVE_NONE;
        tv_error_clear(&err);
        if (move_parse(p, o, buf, TV_PARSE_STRICT, &back, NULL, &err) != TV_OK)
            return fail(why, n, "move_parse('%s') ok, but its written form '%s' does not read back: %s", text, buf,
                        err.msg);
        if (back != m)
            return fail(why, n, "move_parse('%s') and its written form '%s' give different moves", text, buf);
    }
    return 0;
}

int fuzz_check_input(const uint8_t *data, size_t size, char *why, size_t why_len)
{
    static Position fixed[N_FIXED];
    static int have_fixed;
    Options o;
    memset(&o, 0, sizeof o);
    if (!have_fixed) {
        for (size_t i = 0; i < N_FIXED; i++) {
            TvError err;
            if (tfen_read(FIXED_TFENS[i], &fixed[i], &err) != TV_OK)
                return fail(why, why_len, "fixed position %zu does not read: %s", i, err.msg);
        }
        have_fixed = 1;
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    text[size] = 0;

    int rc = 0;
    Position p;
    TvError err;
    tv_error_clear(&err);
    TvStatus st = tfen_read(text, &p, &err);
    if (st == TV_OK) {
        rc = check_position(&p, &o, text, why, why_len);
    } else if (st != TV_ERR_PARSE) {
        rc = fail(why, why_len, "tfen_read returned status %d (expected parse error)", (int)st);
    } else if (strncmp(err.msg, "TFEN field ", 11) != 0) {
        rc = fail(why, why_len, "tfen_read error message not of the documented form: '%s'", err.msg);
    }

    for (size_t i = 0; rc == 0 && i < N_FIXED; i++)
        for (int mode = 0; rc == 0 && mode < 2; mode++)
            rc = check_move_text(&fixed[i], &o, text, mode ? TV_PARSE_LENIENT : TV_PARSE_STRICT, why, why_len);
    free(text);
    return rc;
}
