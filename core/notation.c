/* notation.c: writing and reading moves (docs/rules.md section 11).
 *
 * Reading goes in three steps: the text is normalised (in lenient mode the
 * published slips are mended: upper-case files, a Cyrillic 'с' for 'c', a
 * space for the hyphen), parsed into (from, k, to) or a castling, and then
 * matched against the legal moves.  When no legal move matches, the reader
 * works out why, for the error message. */
#include "notation.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"

/* Longest move text read; anything longer is not a move. */
#define NOTATION_TEXT_MAX 48

static const char *const notation_kind_names[TV_KIND_COUNT] = {
    "nothing", "Wizard", "Prince", "Warrior", "Archer", "Horseman", "Helgi", "Combatant"};

/* ---- writing ---------------------------------------------------------- */

static void notation_square(Square s, char *out)
{
    out[0] = (char)('a' + sq_file(s));
    out[1] = (char)('1' + sq_rank(s));
    out[2] = '\0';
}

char *move_to_str(const Position *p, const Options *o, Move m, bool suffix, char *buf, size_t n)
{
    char body[TV_MOVE_STR_MAX];
    char from[3], to[3];
    int special = move_special(m);
    if (n == 0)
        return buf;
    if (special == TV_MOVE_CASTLE_SHORT) {
        snprintf(body, sizeof body, "0-0");
    } else if (special == TV_MOVE_CASTLE_LONG) {
        snprintf(body, sizeof body, "0-0-0");
    } else {
        notation_square(move_from(m), from);
        notation_square(move_to(m), to);
        if (move_k(m) < pos_height(p, move_from(m)))
            snprintf(body, sizeof body, "%s(%d)-%s", from, move_k(m), to);
        else
            snprintf(body, sizeof body, "%s-%s", from, to);
    }
    const char *mark = "";
    if (suffix) {
        Position after = *p;
        Undo u;
        pos_make_move(&after, m, &u);
        if (o->ending == TV_ENDING_CAPTURE && pos_wizard_captured(&after, after.side))
            mark = "x";
        else if (pos_in_check(&after, o))
            mark = movegen_count(&after, o) == 0 ? "x" : "+";
    }
    snprintf(buf, n, "%s%s", body, mark);
    return buf;
}

/* ---- reading: normalising --------------------------------------------- */

/* The text after lenient mending, and what was mended. */
typedef struct {
    char text[NOTATION_TEXT_MAX + 1];
    bool upper_file;
    bool cyrillic;
    bool space;
} NotationNorm;

static bool notation_is_file_start(const unsigned char *s)
{
    return (s[0] >= 'a' && s[0] <= 'h') || (s[0] >= 'A' && s[0] <= 'H') || (s[0] == 0xD1 && s[1] == 0x81) ||
           (s[0] == 0xD0 && s[1] == 0xA1);
}

/* Copies text (already known to be at most NOTATION_TEXT_MAX bytes) into
 * norm, mending every slip a lenient reader accepts.  The flags say what was
 * mended; the caller decides whether mending is allowed. */
static void notation_normalise(const char *text, NotationNorm *norm)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t out = 0;
    memset(norm, 0, sizeof *norm);
    for (size_t i = 0; s[i] != '\0' && out < NOTATION_TEXT_MAX; i++) {
        unsigned char c = s[i];
        if ((c == 0xD1 && s[i + 1] == 0x81) || (c == 0xD0 && s[i + 1] == 0xA1)) {
            norm->text[out++] = 'c';
            norm->cyrillic = true;
            i++;
        } else if (c >= 'A' && c <= 'H') {
            norm->text[out++] = (char)(c - 'A' + 'a');
            norm->upper_file = true;
        } else if (c == ' ' && out > 0 && norm->text[out - 1] >= '1' && norm->text[out - 1] <= '8' &&
                   notation_is_file_start(s + i + 1)) {
            norm->text[out++] = '-';
            norm->space = true;
        } else {
            norm->text[out++] = (char)c;
        }
    }
    norm->text[out] = '\0';
}

static void notation_mend_reasons(const NotationNorm *norm, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    const char *parts[3];
    int np = 0;
    if (norm->upper_file)
        parts[np++] = "an upper-case file letter";
    if (norm->cyrillic)
        parts[np++] = "a Cyrillic letter for 'c'";
    if (norm->space)
        parts[np++] = "a space for the hyphen";
    for (int i = 0; i < np && len + 1 < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", parts[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* ---- reading: parsing ------------------------------------------------- */

typedef struct {
    int castle;   /* 0 none, TV_MOVE_CASTLE_SHORT or TV_MOVE_CASTLE_LONG */
    Square from;
    Square to;
    int k;        /* 0 when not written */
    MoveInfo info;
} NotationParsed;

static bool notation_read_square(const char *s, size_t *i, Square *out)
{
    char f = s[*i];
    if (f < 'a' || f > 'h')
        return false;
    char r = s[*i + 1];
    if (r < '1' || r > '8')
        return false;
    *out = sq_make(f - 'a', r - '1');
    *i += 2;
    return true;
}

/* Describes the character at s[i] for a message. */
static const char *notation_char_repr(const char *s, size_t i, char *buf, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    if (c == '\0')
        snprintf(buf, n, "the end");
    else if (c == ' ')
        snprintf(buf, n, "a space");
    else if (c > 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02X", c);
    return buf;
}

/* Parses the suffix and annotation at s[i].  Returns NULL or why not. */
static const char *notation_read_tail(const char *s, size_t i, MoveInfo *info, char *why, size_t n)
{
    char rb[24];
    switch (s[i]) {
    case '+': info->check = true; i++; break;
    case '#': info->mate = true; i++; break;
    case 'x': info->win = true; i++; break;
    default: break;
    }
    static const char *const annotations[] = {"!!", "??", "!?", "?!", "!", "?"};
    for (size_t a = 0; a < sizeof annotations / sizeof annotations[0]; a++) {
        size_t len = strlen(annotations[a]);
        if (strncmp(s + i, annotations[a], len) == 0) {
            memcpy(info->annotation, annotations[a], len + 1);
            i += len;
            break;
        }
    }
    if (s[i] != '\0') {
        snprintf(why, n, "found %s after the move", notation_char_repr(s, i, rb, sizeof rb));
        return why;
    }
    return NULL;
}

/* Parses a normalised move text.  Returns NULL on success, else a reason. */
static const char *notation_parse_text(const char *s, NotationParsed *pm, char *why, size_t n)
{
    char rb[24];
    size_t i = 0;
    memset(pm, 0, sizeof *pm);
    if (s[0] == '\0')
        return "no move text";
    if (s[0] == '0' || s[0] == 'O') {
        char z = s[0];
        if (s[1] == '-' && s[2] == z) {
            i = 3;
            pm->castle = TV_MOVE_CASTLE_SHORT;
            if (s[3] == '-' && s[4] == z) {
                i = 5;
                pm->castle = TV_MOVE_CASTLE_LONG;
            }
            return notation_read_tail(s, i, &pm->info, why, n);
        }
        return "a castling is written 0-0 or 0-0-0";
    }
    if (!notation_read_square(s, &i, &pm->from)) {
        if (s[0] >= 'a' && s[0] <= 'h')
            snprintf(why, n, "%s is not a rank 1-8", notation_char_repr(s, 1, rb, sizeof rb));
        else
            snprintf(why, n, "a move starts with a square such as e2, not %s", notation_char_repr(s, 0, rb, sizeof rb));
        return why;
    }
    if (s[i] == '(') {
        i++;
        int k = 0;
        int digits = 0;
        while (s[i] >= '0' && s[i] <= '9') {
            if (++digits > 2)
                return "the count in brackets is too large";
            k = k * 10 + (s[i] - '0');
            i++;
        }
        if (digits == 0)
            return "'(' must be followed by a count of tavrels";
        if (s[i] != ')')
            return "the count in brackets is not closed by ')'";
        if (k < 1)
            return "the count in brackets must be at least 1";
        i++;
        pm->k = k;
    }
    if (s[i] != '-') {
        snprintf(why, n, "expected '-' after the square, found %s", notation_char_repr(s, i, rb, sizeof rb));
        return why;
    }
    i++;
    size_t at = i;
    if (!notation_read_square(s, &i, &pm->to)) {
        if (s[at] >= 'a' && s[at] <= 'h')
            snprintf(why, n, "%s is not a rank 1-8", notation_char_repr(s, at + 1, rb, sizeof rb));
        else
            snprintf(why, n, "expected a square after '-', found %s", notation_char_repr(s, at, rb, sizeof rb));
        return why;
    }
    return notation_read_tail(s, i, &pm->info, why, n);
}

/* ---- reading: why a move is not legal ---------------------------------- */

static const char *notation_castle_name(int castle)
{
    return castle == TV_MOVE_CASTLE_SHORT ? "0-0" : "0-0-0";
}

static void notation_why_no_castle(const Position *p, const Options *o, int castle, char *why, size_t n)
{
    int us = p->side;
    int r = us == TV_WHITE ? 0 : 7;
    bool is_short = castle == TV_MOVE_CASTLE_SHORT;
    int bit = us == TV_WHITE ? (is_short ? TV_CASTLE_WK : TV_CASTLE_WQ) : (is_short ? TV_CASTLE_BK : TV_CASTLE_BQ);
    Square corner = sq_make(is_short ? 7 : 0, r);
    char sq[3];
    const char *name = notation_castle_name(castle);
    if (!(p->castling & bit)) {
        snprintf(why, n, "%s has no right to castle %s", us == TV_WHITE ? "White" : "Black",
                 is_short ? "short" : "long");
        return;
    }
    Tavrel rt = tavrel_make(us, TV_WARRIOR, TV_NONE, false);
    if (pos_top(p, corner) != rt) {
        notation_square(corner, sq);
        snprintf(why, n, "the Warrior on %s is not the top of its stack", sq);
        return;
    }
    int lo = is_short ? 5 : 1, hi = is_short ? 6 : 3;
    for (int f = lo; f <= hi; f++) {
        Square s = sq_make(f, r);
        if (pos_height(p, s)) {
            notation_square(s, sq);
            snprintf(why, n, "%s is not empty", sq);
            return;
        }
    }
    if (pos_in_check(p, o)) {
        snprintf(why, n, "the Wizard is in check");
        return;
    }
    int cross = is_short ? 5 : 3, land = is_short ? 6 : 2;
    for (int j = 0; j < 2; j++) {
        Square s = sq_make(j == 0 ? cross : land, r);
        if (pos_attacked(p, o, s, !us)) {
            notation_square(s, sq);
            snprintf(why, n, "the Wizard would %s %s, which is attacked", j == 0 ? "cross" : "land on", sq);
            return;
        }
    }
    snprintf(why, n, "%s is not legal here", name);
}

/* Whether the mover on `from` could reach `to` by its pattern at all. */
static bool notation_pattern_reaches(const Position *p, const Options *o, Square from, Square to)
{
    Tavrel mover = pos_top(p, from);
    int us = tavrel_colour(mover);
    Bitboard opp = p->by_colour[!us];
    Bitboard blockers = o->slide_over_own ? opp : p->occ;
    Bitboard target = sq_bb(to);
    switch (tavrel_kind(mover)) {
    case TV_WIZARD: return (TV_KING_ATT[from] & target) != 0;
    case TV_HORSEMAN: return (TV_KNIGHT_ATT[from] & target) != 0;
    case TV_WARRIOR: return (bb_rook(from, blockers) & target) != 0;
    case TV_ARCHER: return (bb_bishop(from, blockers) & target) != 0;
    case TV_PRINCE: return (bb_queen(from, blockers) & target) != 0;
    case TV_HELGI: return ((bb_queen(from, blockers) | TV_KNIGHT_ATT[from]) & target) != 0;
    case TV_COMBATANT: {
        int dir = us == TV_WHITE ? 8 : -8;
        Square ahead = from + dir;
        if (ahead < 0 || ahead > 63)
            return false;
        if (to == ahead)
            return !(opp & target);
        if (to == ahead + dir)
            return tavrel_is_unmoved_combatant(mover) && pos_height(p, from) == 1 && !(opp & sq_bb(ahead)) &&
                   !(opp & target);
        if (TV_PAWN_ATT[us][from] & target)
            return (opp & target) || to == p->ep;
        return false;
    }
    default: return false;
    }
}

static void notation_why_illegal(const Position *p, const Options *o, const NotationParsed *pm,
                                 const MoveList *list, char *why, size_t n)
{
    char from[3], to[3];
    if (pm->castle) {
        notation_why_no_castle(p, o, pm->castle, why, n);
        return;
    }
    notation_square(pm->from, from);
    notation_square(pm->to, to);
    int h = pos_height(p, pm->from);
    if (h == 0 || tavrel_colour(pos_top(p, pm->from)) != p->side) {
        snprintf(why, n, "no own stack on %s", from);
        return;
    }
    if (pm->k > h) {
        snprintf(why, n, "k=%d but the stack on %s has %d tavrel%s", pm->k, from, h, h == 1 ? "" : "s");
        return;
    }
    if (list->count == 0) {
        snprintf(why, n, "there is no legal move in this position");
        return;
    }
    Tavrel mover = pos_top(p, pm->from);
    const char *name = notation_kind_names[tavrel_kind(mover)];
    if (pm->from == pm->to) {
        snprintf(why, n, "the %s on %s must leave its square", name, from);
        return;
    }
    Tavrel target = pos_top(p, pm->to);
    if (target && tavrel_kind(target) == TV_WIZARD &&
        (tavrel_colour(target) == p->side || o->ending != TV_ENDING_CAPTURE)) {
        snprintf(why, n, "nothing may land on the Wizard on %s", to);
        return;
    }
    if (!notation_pattern_reaches(p, o, pm->from, pm->to)) {
        snprintf(why, n, "the %s on %s cannot reach %s", name, from, to);
        return;
    }
    snprintf(why, n, "leaves the Wizard in check");
}

/* ---- reading: the whole ------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static TvStatus notation_fail(TvError *err, TvStatus st, const char *text, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return tv_fail(err, st, "%s move '%.*s': %s", st == TV_ERR_PARSE ? "cannot read" : "illegal",
                   NOTATION_TEXT_MAX, text, why);
}

TvStatus move_parse(const Position *p, const Options *o, const char *text, int mode, Move *out,
                    MoveInfo *info, TvError *err)
{
    if (!text)
        text = "";
    size_t len = 0;
    while (len <= NOTATION_TEXT_MAX && text[len] != '\0')
        len++;
    if (len > NOTATION_TEXT_MAX)
        return notation_fail(err, TV_ERR_PARSE, text, "too long to be a move");

    NotationNorm norm;
    notation_normalise(text, &norm);
    NotationParsed pm;
    char why[160];
    const char *bad = notation_parse_text(norm.text, &pm, why, sizeof why);
    if (bad)
        return notation_fail(err, TV_ERR_PARSE, text, "%s", bad);
    bool mended = norm.upper_file || norm.cyrillic || norm.space;
    char reasons[96];
    notation_mend_reasons(&norm, reasons, sizeof reasons);
    if (mended && mode != TV_PARSE_LENIENT)
        return notation_fail(err, TV_ERR_PARSE, text, "%s (only a lenient reader mends this)", reasons);

    MoveList list;
    movegen_legal(p, o, &list);
    Move found = TV_MOVE_NONE;
    if (pm.castle) {
        for (int i = 0; i < list.count; i++)
            if (move_special(list.moves[i]) == pm.castle)
                found = list.moves[i];
    } else if (pos_height(p, pm.from) > 0) {
        int k = pm.k ? pm.k : pos_height(p, pm.from);
        for (int i = 0; i < list.count; i++) {
            Move m = list.moves[i];
            if (move_from(m) != pm.from || move_to(m) != pm.to)
                continue;
            int mk = move_is_castling(m) ? pos_height(p, pm.from) : move_k(m);
            if (mk == k) {
                found = m;
                break;
            }
        }
    }
    if (found == TV_MOVE_NONE) {
        notation_why_illegal(p, o, &pm, &list, why, sizeof why);
        return notation_fail(err, TV_ERR_ILLEGAL, text, "%s", why);
    }
    *out = found;
    if (info) {
        *info = pm.info;
        if (mended) {
            info->mended = true;
            char raw[sizeof info->warning];
            snprintf(raw, sizeof raw, "read '%s' as '%s' (%s)", text, norm.text, reasons);
            tv_escape(raw, info->warning, sizeof info->warning);
        }
    }
    return TV_OK;
}
