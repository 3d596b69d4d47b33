/* tfen.c: reading and writing TFEN (docs/rules.md sections 12 and 15).
 *
 * The reader works on the text as it is (no copies), checks every character
 * against the grammar, and reports the first error with the field and the
 * position (counted from 1 over the whole string).  Work is linear in the
 * length of the text. */
#include "tfen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TFEN_FIELD_COUNT 6

static const char *const tfen_field_names[TFEN_FIELD_COUNT + 1] = {
    "", "board", "side", "castling", "en-passant", "quiet-plies", "move-number"};

/* Letters of the kinds, indexed by Kind (upper case = White). */
static const char tfen_kind_letters[TV_KIND_COUNT] = {'?', 'K', 'Q', 'R', 'B', 'N', 'H', 'P'};

/* The destiny of a combatant starting on each file (docs/rules.md section 2). */
static const Kind tfen_file_destiny[8] = {TV_WARRIOR, TV_HORSEMAN, TV_ARCHER, TV_PRINCE,
                                          TV_HELGI,   TV_ARCHER,   TV_HORSEMAN, TV_WARRIOR};

static const char *const tfen_colour_names[2] = {"White", "Black"};

#define TFEN_MSG_MARK "a ' mark may only follow an unpromoted combatant, once"
#define TFEN_MSG_TILDE "'~' may only follow R, N, B, Q or H (a promoted combatant), once"

/* One field of the text: where it starts (0-based offset) and how long it is. */
typedef struct {
    size_t start;
    size_t len;
} TfenField;

/* One tavrel read from the board with where its token started (0-based). */
typedef struct {
    Tavrel t;
    size_t at;
    bool mark; /* followed by ' */
} TfenToken;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static TvStatus tfen_error(TvError *err, int field, size_t at, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tv_fail(err, TV_ERR_PARSE, "TFEN field %d (%s), char %zu: %s", field, tfen_field_names[field],
                   at + 1, what);
}

/* A printable form of one byte for messages: the character itself when
 * printable ASCII, else a \xNN escape. */
static const char *tfen_char_repr(unsigned char c, char *buf, size_t n)
{
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, n, "%c", c);
    else
        snprintf(buf, n, "\\x%02X", c);
    return buf;
}

/* The kind of each letter (either case), TV_NONE for any other byte: a
 * table, as tfen_read looks up every letter of a TFEN (about 40). */
static const uint8_t tfen_letter_kind[256] = {
    ['K'] = TV_WIZARD,   ['k'] = TV_WIZARD,   ['Q'] = TV_PRINCE,    ['q'] = TV_PRINCE,
    ['R'] = TV_WARRIOR,  ['r'] = TV_WARRIOR,  ['B'] = TV_ARCHER,    ['b'] = TV_ARCHER,
    ['N'] = TV_HORSEMAN, ['n'] = TV_HORSEMAN, ['H'] = TV_HELGI,     ['h'] = TV_HELGI,
    ['P'] = TV_COMBATANT, ['p'] = TV_COMBATANT,
};

static inline Kind tfen_kind_of_letter(char c)
{
    return (Kind)tfen_letter_kind[(unsigned char)c];
}

static bool tfen_is_destiny(Kind k)
{
    return k == TV_WARRIOR || k == TV_HORSEMAN || k == TV_ARCHER || k == TV_PRINCE || k == TV_HELGI;
}

/* True when a combatant of `colour` with `destiny` at level `level` of
 * square s stands where an unmoved combatant would stand. */
static bool tfen_start_place(int colour, Kind destiny, Square s, int level)
{
    int home = colour == TV_WHITE ? 1 : 6;
    return level == 0 && sq_rank(s) == home && tfen_file_destiny[sq_file(s)] == destiny;
}

/* Reads one token starting at text[*i] (inside field 1).  On success
 * advances *i past the token and its ~ or ' mark.  The field is followed by
 * a space, which no test below accepts, so the token's end needs no test of
 * its own.  inline: called for every tavrel, and the call cost about 15 of
 * its 50 instructions. */
static inline TvStatus tfen_read_token(const char *text, size_t *i, TfenToken *tok, TvError *err)
{
    char rb[8];
    size_t at = *i;
    char c = text[at];
    Kind kind = tfen_kind_of_letter(c);
    if (kind == TV_NONE)
        return tfen_error(err, 1, at, "unknown letter '%s'", tfen_char_repr((unsigned char)c, rb, sizeof rb));
    int colour = (c & 0x20) ? TV_BLACK : TV_WHITE; /* c is a letter: lower case is Black */
    size_t j = at + 1;
    Tavrel t;
    tok->at = at;
    tok->mark = false;
    if (kind == TV_COMBATANT) {
        char d = text[j];
        Kind destiny = tfen_kind_of_letter(d);
        int dcolour = (d & 0x20) ? TV_BLACK : TV_WHITE; /* only looked at when d is a letter */
        if (!tfen_is_destiny(destiny) || dcolour != colour)
            return tfen_error(err, 1, j, "combatant '%c' must be followed by its destiny %s", c,
                              colour == TV_WHITE ? "R, N, B, Q or H" : "r, n, b, q or h");
        j++;
        t = tavrel_make(colour, TV_COMBATANT, destiny, true);
        if (text[j] == '\'') {
            tok->mark = true;
            j++;
        }
    } else if (text[j] == '~') {
        if (!tfen_is_destiny(kind))
            return tfen_error(err, 1, j, "%s", TFEN_MSG_TILDE);
        t = tavrel_make(colour, kind, kind, true);
        j++;
    } else {
        t = tavrel_make(colour, kind, TV_NONE, false);
    }
    if (text[j] == '\'')
        return tfen_error(err, 1, j, "%s", TFEN_MSG_MARK);
    if (text[j] == '~')
        return tfen_error(err, 1, j, "%s", TFEN_MSG_TILDE);
    tok->t = t;
    *i = j;
    return TV_OK;
}

/* Checks one stack (toks[0] is the top) and clears the "has moved" flag of
 * a combatant that stands unmoved.  wizards counts Wizards seen so far. */
static TvStatus tfen_check_stack(TfenToken *toks, int n, Square s, int wizards[2], TvError *err)
{
    for (int j = 0; j < n; j++) {
        Tavrel t = toks[j].t;
        int colour = tavrel_colour(t);
        if (tavrel_kind(t) == TV_WIZARD) {
            if (j > 0)
                return tfen_error(err, 1, toks[j].at, "a tavrel on a Wizard (a Wizard is always the top of its stack)");
            if (++wizards[colour] > 1)
                return tfen_error(err, 1, toks[j].at, "a second %s Wizard", tfen_colour_names[colour]);
        }
        if (tavrel_is_promoted(t) && j > 0)
            return tfen_error(err, 1, toks[j].at, "a covered promoted combatant (landing on it demotes it)");
        if (tavrel_kind(t) == TV_COMBATANT) {
            int far = colour == TV_WHITE ? 7 : 0;
            if (j == 0 && sq_rank(s) == far)
                return tfen_error(err, 1, toks[j].at,
                                  "an unpromoted %s combatant on top on rank %d (it would have promoted)",
                                  tfen_colour_names[colour], far + 1);
            if (!toks[j].mark && tfen_start_place(colour, tavrel_destiny(t), s, n - 1 - j))
                toks[j].t = (Tavrel)(t & ~TV_FLAG_BIT);
        }
    }
    return TV_OK;
}

/* Reads the board field into p (which has been cleared). */
static TvStatus tfen_read_board(const char *text, TfenField f, Position *p, TvError *err)
{
    char rb[8];
    size_t i = f.start;
    size_t end = f.start + f.len;
    int rank = 7;
    int file = 0;
    int total = 0;
    int wizards[2] = {0, 0};
    for (;;) {
        if (i >= end || text[i] == '/') {
            if (file != 8)
                return tfen_error(err, 1, i, "rank %d has %d squares, not 8", rank + 1, file);
            if (i >= end) {
                if (rank != 0)
                    return tfen_error(err, 1, i, "%d ranks instead of 8", 8 - rank);
                break;
            }
            if (rank == 0)
                return tfen_error(err, 1, i, "more than 8 ranks");
            rank--;
            file = 0;
            i++;
            continue;
        }
        char c = text[i];
        const bool letter = tfen_kind_of_letter(c) != TV_NONE;
        if (!letter) { /* the tests below, which no letter passes, only for other bytes */
            if (c >= '1' && c <= '8') {
                file += c - '0';
                if (file > 8)
                    return tfen_error(err, 1, i, "rank %d has more than 8 squares", rank + 1);
                i++;
                continue;
            }
            if (c == '0' || c == '9')
                return tfen_error(err, 1, i, "empty-square count '%c' is not 1 to 8", c);
            if (c == ')')
                return tfen_error(err, 1, i, "')' without '('");
            if (c == '\'')
                return tfen_error(err, 1, i, "%s", TFEN_MSG_MARK);
            if (c == '~')
                return tfen_error(err, 1, i, "%s", TFEN_MSG_TILDE);
        }
        if (file >= 8)
            return tfen_error(err, 1, i, "rank %d has more than 8 squares", rank + 1);
        Square s = sq_make(file, rank);
        TfenToken toks[TV_MAX_TAVRELS];
        int n = 0;
        if (c == '(') {
            size_t open = i++;
            for (;;) {
                if (i >= end || text[i] == '/')
                    return tfen_error(err, 1, open, "unclosed bracket '('");
                char d = text[i];
                if (d == ')')
                    break;
                if (d == '(')
                    return tfen_error(err, 1, i, "'(' inside brackets");
                if (d >= '0' && d <= '9')
                    return tfen_error(err, 1, i, "a digit inside brackets");
                if (d == '\'')
                    return tfen_error(err, 1, i, "%s", TFEN_MSG_MARK);
                if (d == '~')
                    return tfen_error(err, 1, i, "%s", TFEN_MSG_TILDE);
                if (tfen_kind_of_letter(d) == TV_NONE)
                    return tfen_error(err, 1, i, "unknown letter '%s'",
                                      tfen_char_repr((unsigned char)d, rb, sizeof rb));
                if (total + n >= TV_MAX_TAVRELS)
                    return tfen_error(err, 1, i, "more than 32 tavrels");
                TvStatus st = tfen_read_token(text, &i, &toks[n], err);
                if (st != TV_OK)
                    return st;
                n++;
            }
            if (n == 0)
                return tfen_error(err, 1, open, "empty brackets '()'");
            if (n == 1)
                return tfen_error(err, 1, open, "brackets around a single tavrel (write it without them)");
            i++; /* past ')' */
        } else {
            if (letter && total >= TV_MAX_TAVRELS)
                return tfen_error(err, 1, i, "more than 32 tavrels");
            TvStatus st = tfen_read_token(text, &i, &toks[0], err);
            if (st != TV_OK)
                return st;
            n = 1;
        }
        TvStatus st = tfen_check_stack(toks, n, s, wizards, err);
        if (st != TV_OK)
            return st;
        /* What pos_setup_push of toks[n - 1] .. toks[0] does, written at
         * once: s is empty (every square is read once) and total + n <= 32,
         * so the stack cannot be full.  The pushes, with height[s] reloaded
         * after every byte stored, cost about 640 instructions per TFEN. */
        p->height[s] = (uint8_t)n;
        if (n == 1) /* most squares; the loop alone cost 10 instructions a tavrel */
            p->stack[s][0] = toks[0].t;
        else
            for (int j = 0; j < n; j++)
                p->stack[s][j] = toks[n - 1 - j].t;
        total += n;
        file++;
    }
    return TV_OK;

}

/* Reads a decimal counter of at most 9 digits. */
static TvStatus tfen_read_counter(const char *text, TfenField f, int field, int min, int *out, TvError *err)
{
    char rb[8];
    long v = 0;
    if (f.len > 9)
        return tfen_error(err, field, f.start, "number too long (at most 9 digits)");
    for (size_t i = 0; i < f.len; i++) {
        char c = text[f.start + i];
        if (c < '0' || c > '9')
            return tfen_error(err, field, f.start + i, "'%s' in a number",
                              tfen_char_repr((unsigned char)c, rb, sizeof rb));
        v = v * 10 + (c - '0');
    }
    if (v < min)
        return tfen_error(err, field, f.start, "must be at least %d", min);
    *out = (int)v;
    return TV_OK;
}

static TvStatus tfen_read_castling(const char *text, TfenField f, Position *p, TvError *err)
{
    char rb[8];
    if (f.len == 1 && text[f.start] == '-') {
        p->castling = 0;
        return TV_OK;
    }
    int rights = 0;
    for (size_t i = 0; i < f.len; i++) {
        size_t at = f.start + i;
        char c = text[at];
        int bit;
        switch (c) {
        case 'K': bit = TV_CASTLE_WK; break;
        case 'Q': bit = TV_CASTLE_WQ; break;
        case 'k': bit = TV_CASTLE_BK; break;
        case 'q': bit = TV_CASTLE_BQ; break;
        case '-': return tfen_error(err, 3, at, "'-' must stand alone");
        default:
            return tfen_error(err, 3, at, "unknown castling letter '%s'",
                              tfen_char_repr((unsigned char)c, rb, sizeof rb));
        }
        if (rights & bit)
            return tfen_error(err, 3, at, "castling letter '%s' twice", tfen_char_repr((unsigned char)c, rb, sizeof rb));
        rights |= bit;
        int colour = (bit & (TV_CASTLE_WK | TV_CASTLE_WQ)) ? TV_WHITE : TV_BLACK;
        int r = colour == TV_WHITE ? 0 : 7;
        Square wiz = sq_make(4, r);
        Square corner = sq_make((bit & (TV_CASTLE_WK | TV_CASTLE_BK)) ? 7 : 0, r);
        Tavrel wt = tavrel_make(colour, TV_WIZARD, TV_NONE, false);
        Tavrel rt = tavrel_make(colour, TV_WARRIOR, TV_NONE, false);
        if (p->height[wiz] != 1 || p->stack[wiz][0] != wt)
            return tfen_error(err, 3, at, "castling right '%c' but the %s Wizard is not alone on e%d", c,
                              tfen_colour_names[colour], r + 1);
        if (p->height[corner] == 0 || p->stack[corner][0] != rt)
            return tfen_error(err, 3, at, "castling right '%c' but no unmoved %s Warrior at the bottom of %c%d", c,
                              tfen_colour_names[colour], 'a' + sq_file(corner), r + 1);
    }
    p->castling = rights;
    return TV_OK;
}

static TvStatus tfen_read_ep(const char *text, TfenField f, Position *p, TvError *err)
{
    if (f.len == 1 && text[f.start] == '-') {
        p->ep = TV_NO_SQUARE;
        return TV_OK;
    }
    const char *s = text + f.start;
    if (f.len != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return tfen_error(err, 4, f.start, "expected a square such as e3, or '-'");
    int want = p->side == TV_WHITE ? 6 : 3;
    if (s[1] - '0' != want)
        return tfen_error(err, 4, f.start, "en-passant square %c%c is not on rank %d (%s to move)", s[0], s[1], want,
                          tfen_colour_names[p->side]);
    p->ep = sq_make(s[0] - 'a', s[1] - '1');
    return TV_OK;
}

TvStatus tfen_read(const char *s, Position *p, TvError *err)
{
    if (!s)
        return tv_fail(err, TV_ERR_PARSE, "TFEN field 1 (board), char 1: no text");
    /* Split into fields at single spaces. */
    TfenField fields[TFEN_FIELD_COUNT];
    int nfields = 0;
    size_t i = 0;
    size_t start = 0;
    for (;; i++) {
        char c = s[i];
        if ((unsigned char)c > ' ')
            continue; /* most bytes: one test instead of four */
        /* c is a space, the end, or a control character */
        if (c != ' ' && c != '\0')
            return tfen_error(err, nfields < TFEN_FIELD_COUNT ? nfields + 1 : TFEN_FIELD_COUNT, i,
                              "control character \\x%02X (fields are separated by single spaces)",
                              (unsigned)(unsigned char)c);
        if (i == start) {
            if (i == 0 && c == ' ')
                return tfen_error(err, 1, i, "the text starts with a space");
            if (c == '\0' && nfields == 0)
                return tfen_error(err, 1, i, "empty TFEN");
            if (c == '\0')
                return tfen_error(err, nfields, i - 1, "the text ends with a space");
            return tfen_error(err, nfields < TFEN_FIELD_COUNT ? nfields + 1 : TFEN_FIELD_COUNT, i,
                              "two spaces in a row (fields are separated by single spaces)");
        }
        if (nfields == TFEN_FIELD_COUNT)
            return tfen_error(err, TFEN_FIELD_COUNT, start - 1,
                              "text after the last field (a TFEN has 4 or 6 fields)");
        fields[nfields].start = start;
        fields[nfields].len = i - start;
        nfields++;
        if (c == '\0')
            break;
        start = i + 1;
    }
    if (nfields < 4)
        return tfen_error(err, nfields + 1, i, "missing field (a TFEN has 4 or 6 fields)");
    if (nfields == 5)
        return tfen_error(err, 6, i, "missing field (a TFEN has 4 or 6 fields)");

    pos_clear(p);
    TvStatus st = tfen_read_board(s, fields[0], p, err);
    if (st != TV_OK)
        return st;

    TfenField f = fields[1];
    if (f.len != 1 || (s[f.start] != 'w' && s[f.start] != 'b'))
        return tfen_error(err, 2, f.start, "the side to move must be 'w' or 'b'");
    p->side = s[f.start] == 'w' ? TV_WHITE : TV_BLACK;

    if ((st = tfen_read_castling(s, fields[2], p, err)) != TV_OK)
        return st;
    if ((st = tfen_read_ep(s, fields[3], p, err)) != TV_OK)
        return st;
    p->quiet_plies = 0;
    p->move_number = 1;
    if (nfields == 6) {
        if ((st = tfen_read_counter(s, fields[4], 5, 0, &p->quiet_plies, err)) != TV_OK)
            return st;
        if ((st = tfen_read_counter(s, fields[5], 6, 1, &p->move_number, err)) != TV_OK)
            return st;
    }
    pos_refresh(p);
    return TV_OK;
}

TvStatus tfen_read_arg(const char *s, Position *p, TvError *err)
{
    if (s && strcmp(s, "startpos") == 0)
        s = TV_START_TFEN;
    return tfen_read(s, p, err);
}

char *tfen_token(Tavrel t, char *buf)
{
    Kind kind = tavrel_kind(t);
    bool black = tavrel_colour(t) == TV_BLACK;
    int n = 0;
    if (kind == TV_COMBATANT) {
        buf[n++] = 'P';
        buf[n++] = tfen_kind_letters[tavrel_destiny(t)];
    } else {
        buf[n++] = tfen_kind_letters[kind];
        if (tavrel_flag(t))
            buf[n++] = '~';
    }
    buf[n] = '\0';
    if (black)
        for (int i = 0; i < n; i++)
            if (buf[i] >= 'A' && buf[i] <= 'Z')
                buf[i] = (char)(buf[i] - 'A' + 'a');
    return buf;
}

/* Appends text to buf at *len, never past n - 1. */
static void tfen_append(char *buf, size_t n, size_t *len, const char *text)
{
    while (*text && *len + 1 < n)
        buf[(*len)++] = *text++;
    buf[*len] = '\0';
}

static void tfen_append_tavrel(char *buf, size_t n, size_t *len, Tavrel t, Square s, int level)
{
    char tok[8];
    tfen_append(buf, n, len, tfen_token(t, tok));
    if (tavrel_kind(t) == TV_COMBATANT && tavrel_flag(t) &&
        tfen_start_place(tavrel_colour(t), tavrel_destiny(t), s, level))
        tfen_append(buf, n, len, "'");
}

char *tfen_write(const Position *p, char *buf, size_t n)
{
    size_t len = 0;
    char tmp[32];
    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            Square s = sq_make(file, rank);
            int h = p->height[s];
            if (h == 0) {
                empty++;
                continue;
            }
            if (empty) {
                snprintf(tmp, sizeof tmp, "%d", empty);
                tfen_append(buf, n, &len, tmp);
                empty = 0;
            }
            if (h > TV_MAX_HEIGHT)
                h = TV_MAX_HEIGHT;
            if (h > 1)
                tfen_append(buf, n, &len, "(");
            for (int level = h - 1; level >= 0; level--)
                tfen_append_tavrel(buf, n, &len, p->stack[s][level], s, level);
            if (h > 1)
                tfen_append(buf, n, &len, ")");
        }
        if (empty) {
            snprintf(tmp, sizeof tmp, "%d", empty);
            tfen_append(buf, n, &len, tmp);
        }
        if (rank > 0)
            tfen_append(buf, n, &len, "/");
    }
    tfen_append(buf, n, &len, p->side == TV_WHITE ? " w " : " b ");
    if (p->castling == 0) {
        tfen_append(buf, n, &len, "-");
    } else {
        if (p->castling & TV_CASTLE_WK) tfen_append(buf, n, &len, "K");
        if (p->castling & TV_CASTLE_WQ) tfen_append(buf, n, &len, "Q");
        if (p->castling & TV_CASTLE_BK) tfen_append(buf, n, &len, "k");
        if (p->castling & TV_CASTLE_BQ) tfen_append(buf, n, &len, "q");
    }
    if (p->ep >= 0 && p->ep < 64)
        snprintf(tmp, sizeof tmp, " %c%d", 'a' + sq_file(p->ep), sq_rank(p->ep) + 1);
    else
        snprintf(tmp, sizeof tmp, " -");
    tfen_append(buf, n, &len, tmp);
    snprintf(tmp, sizeof tmp, " %d %d", p->quiet_plies, p->move_number);
    tfen_append(buf, n, &len, tmp);
    return buf;
}
