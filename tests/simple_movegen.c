/* simple_movegen.c: see simple_movegen.h.  Written from docs/rules.md only.
 * Every section reference below is to docs/rules.md. */
#include "simple_movegen.h"

#include <stdio.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------ */

static int file_of(int s) { return s % 8; }
static int rank_of(int s) { return s / 8; }
static int on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

static Tavrel top_of(const SimplePos *b, int s) { return b->h[s] ? b->st[s][b->h[s] - 1] : 0; }

/* Forward rank step of a colour: White towards rank 8, Black towards rank 1. */
static int forward(int colour) { return colour == TV_WHITE ? 1 : -1; }
/* Far rank (index 0..7): rank 8 for White, rank 1 for Black. */
static int far_rank(int colour) { return colour == TV_WHITE ? 7 : 0; }

static const int KNIGHT_D[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
static const int KING_D[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
static const int ROOK_D[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int BISHOP_D[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static bool kind_slides_straight(Kind k) { return k == TV_WARRIOR || k == TV_PRINCE || k == TV_HELGI; }
static bool kind_slides_diag(Kind k) { return k == TV_ARCHER || k == TV_PRINCE || k == TV_HELGI; }
static bool kind_leaps(Kind k) { return k == TV_HORSEMAN || k == TV_HELGI; }

/* ---- conversion ---------------------------------------------------------- */

void simple_from_position(const Position *p, SimplePos *sp)
{
    memset(sp, 0, sizeof *sp);
    for (int s = 0; s < 64; s++) {
        sp->h[s] = p->height[s];
        for (int i = 0; i < p->height[s] && i < TV_MAX_HEIGHT; i++)
            sp->st[s][i] = p->stack[s][i];
    }
    sp->side = p->side;
    sp->castling = p->castling;
    sp->ep = p->ep < 0 ? -1 : p->ep;
}

static Kind kind_of_letter(char c)
{
    switch (c) {
    case 'K': case 'k': return TV_WIZARD;
    case 'Q': case 'q': return TV_PRINCE;
    case 'R': case 'r': return TV_WARRIOR;
    case 'B': case 'b': return TV_ARCHER;
    case 'N': case 'n': return TV_HORSEMAN;
    case 'H': case 'h': return TV_HELGI;
    case 'P': case 'p': return TV_COMBATANT;
    default: return TV_NONE;
    }
}

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/* The destiny of the combatant that starts on file f (section 2). */
static Kind file_destiny(int f)
{
    static const Kind d[8] = {TV_WARRIOR, TV_HORSEMAN, TV_ARCHER, TV_PRINCE,
                              TV_HELGI,   TV_ARCHER,   TV_HORSEMAN, TV_WARRIOR};
    return d[f];
}

/* Reads one token at *s; returns the tavrel and whether a ' followed. */
static bool read_token(const char **s, Tavrel *t, bool *tick)
{
    const char *c = *s;
    char l = *c;
    Kind k = kind_of_letter(l);
    if (k == TV_NONE)
        return false;
    int colour = is_upper(l) ? TV_WHITE : TV_BLACK;
    c++;
    *tick = false;
    if (k == TV_COMBATANT) {
        Kind d = kind_of_letter(*c);
        if (d == TV_NONE || d == TV_WIZARD || d == TV_COMBATANT)
            return false;
        if ((colour == TV_WHITE) != is_upper(*c))
            return false;
        c++;
        *t = tavrel_make(colour, TV_COMBATANT, d, false);
        if (*c == '\'') {
            *tick = true;
            c++;
        }
    } else if (*c == '~') {
        *t = tavrel_make(colour, k, k, true);
        c++;
    } else {
        *t = tavrel_make(colour, k, TV_NONE, false);
    }
    *s = c;
    return true;
}

/* Steps over the space between two TFEN fields; false when there is none. */
static bool next_field(const char **s)
{
    if (**s != ' ')
        return false;
    (*s)++;
    return true;
}

/* Steps over a field that is '-' (none); false, stepping over nothing, for
 * any other field. */
static bool empty_field(const char **s)
{
    if (**s != '-')
        return false;
    (*s)++;
    return true;
}

bool simple_from_tfen(const char *tfen, SimplePos *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->ep = -1;
    const char *c = tfen;
    /* Per square: the tokens top to bottom and their ' marks. */
    for (int r = 7; r >= 0; r--) {
        int f = 0;
        while (f < 8) {
            if (*c >= '1' && *c <= '8') {
                f += *c - '0';
                c++;
                continue;
            }
            Tavrel tops[TV_MAX_HEIGHT];
            bool ticks[TV_MAX_HEIGHT];
            int n = 0;
            if (*c == '(') {
                c++;
                while (*c != ')') {
                    if (n >= TV_MAX_HEIGHT || !read_token(&c, &tops[n], &ticks[n]))
                        return false;
                    n++;
                }
                c++;
            } else {
                if (!read_token(&c, &tops[0], &ticks[0]))
                    return false;
                n = 1;
            }
            int s = r * 8 + f;
            for (int i = 0; i < n; i++) {
                Tavrel t = tops[n - 1 - i]; /* bottom first */
                if (tavrel_kind(t) == TV_COMBATANT) {
                    int col = tavrel_colour(t);
                    int home = col == TV_WHITE ? 1 : 6;
                    bool unmoved = i == 0 && r == home && file_destiny(f) == tavrel_destiny(t) &&
                                   !ticks[n - 1 - i];
                    if (!unmoved)
                        t |= TV_FLAG_BIT;
                }
                sp->st[s][i] = t;
            }
            sp->h[s] = (uint8_t)n;
            f++;
        }
        if (f != 8)
            return false;
        if (r > 0) {
            if (*c != '/')
                return false;
            c++;
        }
    }
    if (!next_field(&c))
        return false;
    if (*c == 'w')
        sp->side = TV_WHITE;
    else if (*c == 'b')
        sp->side = TV_BLACK;
    else
        return false;
    c++;
    if (!next_field(&c))
        return false;
    if (!empty_field(&c)) {
        while (*c && *c != ' ') {
            switch (*c) {
            case 'K': sp->castling |= TV_CASTLE_WK; break;
            case 'Q': sp->castling |= TV_CASTLE_WQ; break;
            case 'k': sp->castling |= TV_CASTLE_BK; break;
            case 'q': sp->castling |= TV_CASTLE_BQ; break;
            default: return false;
            }
            c++;
        }
    }
    if (!next_field(&c))
        return false;
    if (!empty_field(&c)) {
        if (c[0] < 'a' || c[0] > 'h' || c[1] < '1' || c[1] > '8')
            return false;
        sp->ep = (c[1] - '1') * 8 + (c[0] - 'a');
        c += 2;
    }
    return *c == '\0' || *c == ' ';
}

static const char *tav_name(Tavrel t, char *buf)
{
    static const char L[] = ".KQRBNHP";
    char l = L[tavrel_kind(t)];
    int n = 0;
    if (tavrel_kind(t) == TV_COMBATANT) {
        buf[n++] = l;
        buf[n++] = L[tavrel_destiny(t)];
        if (tavrel_flag(t))
            buf[n++] = '\'';
    } else {
        buf[n++] = l;
        if (tavrel_flag(t))
            buf[n++] = '~';
    }
    buf[n] = 0;
    if (tavrel_colour(t))
        for (int i = 0; i < n; i++)
            if (is_upper(buf[i]))
                buf[i] = (char)(buf[i] - 'A' + 'a');
    return buf;
}

bool simple_equals_position(const SimplePos *sp, const Position *p, char *why, size_t why_len)
{
    char a[8], b[8];
    for (int s = 0; s < 64; s++) {
        if (sp->h[s] != p->height[s]) {
            if (why)
                snprintf(why, why_len, "square %c%d: height %d (simple) vs %d (core)", 'a' + file_of(s),
                         rank_of(s) + 1, sp->h[s], p->height[s]);
            return false;
        }
        for (int i = 0; i < sp->h[s]; i++)
            if (sp->st[s][i] != p->stack[s][i]) {
                if (why)
                    snprintf(why, why_len, "square %c%d level %d from the bottom: %s (simple) vs %s (core)",
                             'a' + file_of(s), rank_of(s) + 1, i, tav_name(sp->st[s][i], a),
                             tav_name(p->stack[s][i], b));
                return false;
            }
    }
    if (sp->side != p->side) {
        if (why)
            snprintf(why, why_len, "side %d vs %d", sp->side, p->side);
        return false;
    }
    if (sp->castling != p->castling) {
        if (why)
            snprintf(why, why_len, "castling %d vs %d", sp->castling, p->castling);
        return false;
    }
    int pep = p->ep < 0 ? -1 : p->ep;
    if (sp->ep != pep) {
        if (why)
            snprintf(why, why_len, "en-passant square %d vs %d", sp->ep, pep);
        return false;
    }
    return true;
}

/* ---- attacks (section 8) -------------------------------------------------- */

/* Does a slider of colour `by` on s reach x along direction (df, dr)?  Walks
 * square by square: the squares strictly between must not stop it. */
static bool ray_reaches(const SimplePos *b, const Options *o, int s, int x, int df, int dr, int by)
{
    int f = file_of(s) + df, r = rank_of(s) + dr;
    while (on_board(f, r)) {
        int q = r * 8 + f;
        if (q == x)
            return true;
        if (b->h[q]) {
            /* slide_over_own: own stacks (own Wizard included) do not stop it. */
            if (!(o->slide_over_own && tavrel_colour(top_of(b, q)) == by))
                return false;
        }
        f += df;
        r += dr;
    }
    return false;
}

/* Does the top tavrel t (colour by) on square s attack x? */
static bool top_attacks(const SimplePos *b, const Options *o, int s, Tavrel t, int x)
{
    int by = tavrel_colour(t);
    Kind k = tavrel_kind(t);
    int df = file_of(x) - file_of(s), dr = rank_of(x) - rank_of(s);
    if (s == x)
        return false;
    switch (k) {
    case TV_WIZARD:
        return df >= -1 && df <= 1 && dr >= -1 && dr <= 1;
    case TV_COMBATANT:
        return dr == forward(by) && (df == 1 || df == -1);
    default:
        break;
    }
    if (kind_leaps(k)) {
        for (int i = 0; i < 8; i++)
            if (df == KNIGHT_D[i][0] && dr == KNIGHT_D[i][1])
                return true;
    }
    if (kind_slides_straight(k) && (df == 0 || dr == 0)) {
        int sf = df > 0 ? 1 : df < 0 ? -1 : 0, sr = dr > 0 ? 1 : dr < 0 ? -1 : 0;
        if (ray_reaches(b, o, s, x, sf, sr, by))
            return true;
    }
    if (kind_slides_diag(k) && (df == dr || df == -dr)) {
        int sf = df > 0 ? 1 : -1, sr = dr > 0 ? 1 : -1;
        if (ray_reaches(b, o, s, x, sf, sr, by))
            return true;
    }
    return false;
}

bool simple_attacked(const SimplePos *b, const Options *o, int x, int by)
{
    for (int s = 0; s < 64; s++) {
        if (!b->h[s])
            continue;
        Tavrel t = top_of(b, s);
        if (tavrel_colour(t) != by)
            continue;
        if (top_attacks(b, o, s, t, x))
            return true;
    }
    return false;
}

bool simple_wizard_captured(const SimplePos *b)
{
    for (int s = 0; s < 64; s++)
        for (int i = 0; i + 1 < b->h[s]; i++)
            if (tavrel_kind(b->st[s][i]) == TV_WIZARD)
                return true;
    return false;
}

/* The square of the top Wizard of colour c, or -1. */
static int wizard_square(const SimplePos *b, int c)
{
    for (int s = 0; s < 64; s++) {
        Tavrel t = top_of(b, s);
        if (t && tavrel_kind(t) == TV_WIZARD && tavrel_colour(t) == c)
            return s;
    }
    return -1;
}

/* ---- making a move ------------------------------------------------------- */

/* Section 6: after the tavrels are placed, a covered promoted combatant is
 * demoted, and an unpromoted combatant on top on its own far rank is
 * promoted.  Applied to the whole board: in a sound position nothing else
 * can be affected, and this is the rule as stated. */
static void promote_demote(SimplePos *b)
{
    for (int s = 0; s < 64; s++) {
        int h = b->h[s];
        for (int i = 0; i + 1 < h; i++)
            if (tavrel_is_promoted(b->st[s][i]))
                b->st[s][i] = tavrel_demoted(b->st[s][i]);
        if (h) {
            Tavrel t = b->st[s][h - 1];
            if (tavrel_kind(t) == TV_COMBATANT && rank_of(s) == far_rank(tavrel_colour(t)))
                b->st[s][h - 1] = tavrel_promoted(t);
        }
    }
}

static void push(SimplePos *b, int s, Tavrel t) { b->st[s][b->h[s]++] = t; }
static Tavrel pop(SimplePos *b, int s) { return b->st[s][--b->h[s]]; }

/* Squares of the Wizards and Warriors that castling rights refer to. */
static const int CASTLE_WIZ[2] = {4, 60};            /* e1, e8 */
static const int CASTLE_SHORT_R[2] = {7, 63};        /* h1, h8 */
static const int CASTLE_LONG_R[2] = {0, 56};         /* a1, a8 */
static const int RIGHT_SHORT[2] = {TV_CASTLE_WK, TV_CASTLE_BK};
static const int RIGHT_LONG[2] = {TV_CASTLE_WQ, TV_CASTLE_BQ};

void simple_make(const SimplePos *sp, SimpleMove m, SimplePos *out)
{
    *out = *sp;
    SimplePos *b = out;
    int us = sp->side;
    b->ep = -1;
    if (m.special == TV_MOVE_CASTLE_SHORT || m.special == TV_MOVE_CASTLE_LONG) {
        bool shorts = m.special == TV_MOVE_CASTLE_SHORT;
        int wiz = CASTLE_WIZ[us];
        int rsq = shorts ? CASTLE_SHORT_R[us] : CASTLE_LONG_R[us];
        int wto = shorts ? wiz + 2 : wiz - 2;
        int rto = shorts ? wiz + 1 : wiz - 1;
        push(b, wto, pop(b, wiz));
        push(b, rto, pop(b, rsq));
        b->castling &= ~(RIGHT_SHORT[us] | RIGHT_LONG[us]);
        promote_demote(b);
        b->side = !us;
        return;
    }
    int from = m.from, to = m.to, k = m.k;
    int hfrom = sp->h[from];
    Tavrel mover = top_of(sp, from);
    Tavrel part[TV_MAX_HEIGHT];
    for (int i = 0; i < k; i++)
        part[i] = b->st[from][hfrom - k + i]; /* bottom to top */
    b->h[from] = (uint8_t)(hfrom - k);
    if (m.special == TV_MOVE_ENPASSANT) {
        /* The double-stepper (the opponent's) is lifted off its landing
         * square, one square beyond X in its own forward direction, and put
         * on top of X as if it had stepped only once (section 6). */
        int lift = to + 8 * forward(!us);
        push(b, to, pop(b, lift));
    }
    for (int i = 0; i < k; i++) {
        Tavrel t = part[i];
        if (tavrel_kind(t) == TV_COMBATANT)
            t |= TV_FLAG_BIT; /* carried or moving: it has moved (section 3) */
        push(b, to, t);
    }
    promote_demote(b);
    /* Castling rights end when the Wizard or the Warrior leaves its square
     * (section 15), also when carried; covering does not end them. */
    for (int c = 0; c < 2; c++) {
        if (from == CASTLE_WIZ[c])
            b->castling &= ~(RIGHT_SHORT[c] | RIGHT_LONG[c]);
        if (from == CASTLE_SHORT_R[c] && k == hfrom)
            b->castling &= ~RIGHT_SHORT[c];
        if (from == CASTLE_LONG_R[c] && k == hfrom)
            b->castling &= ~RIGHT_LONG[c];
    }
    /* A double step sets the en-passant square (the square passed over). */
    if (m.special == TV_MOVE_NORMAL && tavrel_is_unmoved_combatant(mover) && file_of(from) == file_of(to) &&
        (to - from == 16 || from - to == 16))
        b->ep = (from + to) / 2;
    b->side = !us;
}

/* ---- generation ----------------------------------------------------------- */

/* May a part of side `us` land on square s (section 4; ending=capture lets it
 * land on the opponent's Wizard)? */
static bool can_land(const SimplePos *b, const Options *o, int s, int us)
{
    if (!b->h[s])
        return true;
    Tavrel t = top_of(b, s);
    if (tavrel_kind(t) == TV_WIZARD)
        return o->ending == TV_ENDING_CAPTURE && tavrel_colour(t) != us;
    return true;
}

/* Destinations (ignoring en passant and castling) of the top of `from`, by
 * the mover's pattern (sections 5 and 6), on board b.  dest[s] set to 1. */
static void destinations(const SimplePos *b, const Options *o, int from, uint8_t dest[64])
{
    memset(dest, 0, 64);
    Tavrel t = top_of(b, from);
    int us = tavrel_colour(t);
    Kind k = tavrel_kind(t);
    int f0 = file_of(from), r0 = rank_of(from);
    if (k == TV_WIZARD) {
        for (int i = 0; i < 8; i++) {
            int f = f0 + KING_D[i][0], r = r0 + KING_D[i][1];
            if (on_board(f, r) && can_land(b, o, r * 8 + f, us))
                dest[r * 8 + f] = 1;
        }
        return;
    }
    if (k == TV_COMBATANT) {
        int fw = forward(us);
        int r1 = r0 + fw;
        if (!on_board(f0, r1))
            return;
        int a1 = r1 * 8 + f0;
        Tavrel t1 = top_of(b, a1);
        /* Step: empty or an own stack that is not a Wizard. */
        if (!t1 || (tavrel_colour(t1) == us && tavrel_kind(t1) != TV_WIZARD))
            dest[a1] = 1;
        /* Double step: unmoved; neither square an opponent stack; passes over
         * an own stack (own Wizard included); lands on empty or an own
         * non-Wizard stack. */
        if (!tavrel_flag(t) && on_board(f0, r0 + 2 * fw)) {
            int a2 = (r0 + 2 * fw) * 8 + f0;
            Tavrel t2 = top_of(b, a2);
            bool first_ok = !t1 || tavrel_colour(t1) == us;
            bool second_ok = !t2 || (tavrel_colour(t2) == us && tavrel_kind(t2) != TV_WIZARD);
            if (first_ok && second_ok)
                dest[a2] = 1;
        }
        /* Capture: diagonally forward onto an opponent stack only. */
        for (int df = -1; df <= 1; df += 2) {
            if (!on_board(f0 + df, r1))
                continue;
            int c = r1 * 8 + f0 + df;
            Tavrel tc = top_of(b, c);
            if (tc && tavrel_colour(tc) != us && can_land(b, o, c, us))
                dest[c] = 1;
        }
        return;
    }
    if (kind_leaps(k)) {
        for (int i = 0; i < 8; i++) {
            int f = f0 + KNIGHT_D[i][0], r = r0 + KNIGHT_D[i][1];
            if (on_board(f, r) && can_land(b, o, r * 8 + f, us))
                dest[r * 8 + f] = 1;
        }
    }
    for (int dset = 0; dset < 2; dset++) {
        const int(*D)[2] = dset == 0 ? ROOK_D : BISHOP_D;
        if (dset == 0 && !kind_slides_straight(k))
            continue;
        if (dset == 1 && !kind_slides_diag(k))
            continue;
        for (int i = 0; i < 4; i++) {
            int f = f0 + D[i][0], r = r0 + D[i][1];
            while (on_board(f, r)) {
                int s = r * 8 + f;
                if (!b->h[s]) {
                    dest[s] = 1;
                } else {
                    if (can_land(b, o, s, us))
                        dest[s] = 1;
                    if (!(o->slide_over_own && tavrel_colour(top_of(b, s)) == us))
                        break;
                }
                f += D[i][0];
                r += D[i][1];
            }
        }
    }
}

/* Is the en-passant square of b usable by the side to move?  Gives X and
 * the square L where the double-stepper stands. */
static bool ep_usable(const SimplePos *b, int *x, int *l)
{
    if (b->ep < 0)
        return false;
    int us = b->side, them = !us;
    int X = b->ep;
    /* X is on the stepper's third rank: rank 3 for White steppers (Black to
     * move), rank 6 for Black steppers. */
    if (rank_of(X) != (them == TV_WHITE ? 2 : 5))
        return false;
    int L = X + 8 * forward(them);
    Tavrel tl = top_of(b, L);
    if (!tl || tavrel_colour(tl) != them || tavrel_kind(tl) != TV_COMBATANT)
        return false;
    Tavrel tx = top_of(b, X);
    /* Nothing lands on a Wizard: en passant onto a Wizard is impossible. */
    if (tx && tavrel_kind(tx) == TV_WIZARD)
        return false;
    if (tx && tavrel_colour(tx) == us)
        return false; /* cannot arise: the stepper never passes an opponent stack */
    *x = X;
    *l = L;
    return true;
}

/* Is a move legal once played in full (section 8; section 10 ending=capture)? */
static bool legal_after(const SimplePos *before, const SimplePos *after, const Options *o, SimpleMove m)
{
    int us = before->side;
    if (o->ending == TV_ENDING_CAPTURE) {
        Tavrel mover = top_of(before, m.from);
        if (tavrel_kind(mover) != TV_WIZARD)
            return true;
        /* Landing on the opponent's Wizard wins even on an attacked square. */
        Tavrel tt = top_of(before, m.to);
        if (m.special == TV_MOVE_NORMAL && tt && tavrel_kind(tt) == TV_WIZARD)
            return true;
        return !simple_attacked(after, o, m.to, !us);
    }
    int w = wizard_square(after, us);
    if (w < 0)
        return true;
    return !simple_attacked(after, o, w, !us);
}

static int add_if_legal(const SimplePos *b, const Options *o, SimpleMove m, SimpleMove *out, int n)
{
    SimplePos after;
    simple_make(b, m, &after);
    if (legal_after(b, &after, o, m))
        out[n++] = m;
    return n;
}

int simple_gen(const SimplePos *b, const Options *o, SimpleMove *out)
{
    int n = 0;
    int us = b->side;
    if (o->ending == TV_ENDING_CAPTURE && simple_wizard_captured(b))
        return 0;

    int X = -1, L = -1;
    bool ep = ep_usable(b, &X, &L);
    SimplePos hyp; /* enpassant=any: the board as if the stepper had stepped once */
    if (ep && o->enpassant == TV_EP_ANY) {
        hyp = *b;
        push(&hyp, X, pop(&hyp, L));
    }

    for (int from = 0; from < 64; from++) {
        if (!b->h[from])
            continue;
        Tavrel t = top_of(b, from);
        if (tavrel_colour(t) != us)
            continue;
        uint8_t dest[64];
        destinations(b, o, from, dest);
        bool ep_here = false;
        if (ep) {
            if (o->enpassant == TV_EP_ANY) {
                uint8_t hd[64];
                destinations(&hyp, o, from, hd);
                ep_here = hd[X] != 0;
            } else if (tavrel_kind(t) == TV_COMBATANT) {
                int fw = forward(us);
                ep_here = rank_of(X) == rank_of(from) + fw &&
                          (file_of(X) == file_of(from) + 1 || file_of(X) == file_of(from) - 1);
            }
            /* Each (from, k, to) is one move: onto X it is the en passant. */
            if (ep_here)
                dest[X] = 0;
        }
        for (int k = 1; k <= b->h[from]; k++) {
            for (int to = 0; to < 64; to++) {
                if (!dest[to])
                    continue;
                SimpleMove m = {(uint8_t)from, (uint8_t)to, (uint8_t)k, TV_MOVE_NORMAL};
                n = add_if_legal(b, o, m, out, n);
            }
            if (ep_here) {
                SimpleMove m = {(uint8_t)from, (uint8_t)X, (uint8_t)k, TV_MOVE_ENPASSANT};
                n = add_if_legal(b, o, m, out, n);
            }
        }
    }

    /* Castling (section 7). */
    int wiz = CASTLE_WIZ[us];
    Tavrel tw = top_of(b, wiz);
    if ((b->castling & (RIGHT_SHORT[us] | RIGHT_LONG[us])) && tw && tavrel_kind(tw) == TV_WIZARD &&
        tavrel_colour(tw) == us && !simple_attacked(b, o, wiz, !us)) {
        for (int side = 0; side < 2; side++) {
            bool shorts = side == 0;
            if (!(b->castling & (shorts ? RIGHT_SHORT[us] : RIGHT_LONG[us])))
                continue;
            int rsq = shorts ? CASTLE_SHORT_R[us] : CASTLE_LONG_R[us];
            /* "That Warrior" has not moved, so it is at the bottom of its
             * stack; it is also the top only when it stands alone (another
             * Warrior on top of it, e.g. one carried over from a1, is not
             * "that Warrior"). */
            Tavrel tr = top_of(b, rsq);
            if (b->h[rsq] != 1 || tavrel_kind(tr) != TV_WARRIOR || tavrel_colour(tr) != us || tavrel_flag(tr))
                continue;
            int step = shorts ? 1 : -1;
            bool clear = true;
            for (int s = wiz + step; s != rsq; s += step)
                if (b->h[s])
                    clear = false;
            if (!clear)
                continue;
            if (simple_attacked(b, o, wiz + step, !us))
                continue;
            SimpleMove m = {(uint8_t)wiz, (uint8_t)(wiz + 2 * step), 1,
                            (uint8_t)(shorts ? TV_MOVE_CASTLE_SHORT : TV_MOVE_CASTLE_LONG)};
            SimplePos after;
            simple_make(b, m, &after);
            /* The landing square must not be attacked (judged after the move). */
            if (!simple_attacked(&after, o, wiz + 2 * step, !us))
                out[n++] = m;
        }
    }
    return n;
}

uint64_t simple_perft_sp(const SimplePos *sp, const Options *o, int depth)
{
    if (depth <= 0)
        return 1;
    SimpleMove moves[SIMPLE_MAX_MOVES];
    int n = simple_gen(sp, o, moves);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t total = 0;
    SimplePos child;
    for (int i = 0; i < n; i++) {
        simple_make(sp, moves[i], &child);
        total += simple_perft_sp(&child, o, depth - 1);
    }
    return total;
}

int simple_legal_moves(const Position *p, const Options *o, SimpleMove *out)
{
    SimplePos sp;
    simple_from_position(p, &sp);
    return simple_gen(&sp, o, out);
}

uint64_t simple_perft(const Position *p, const Options *o, int depth)
{
    SimplePos sp;
    simple_from_position(p, &sp);
    return simple_perft_sp(&sp, o, depth);
}

Move simple_move_to_core(SimpleMove m) { return move_make(m.from, m.to, m.k, m.special); }

SimpleMove simple_move_from_core(Move m)
{
    SimpleMove s = {(uint8_t)move_from(m), (uint8_t)move_to(m), (uint8_t)move_k(m), (uint8_t)move_special(m)};
    return s;
}

char *simple_move_str(SimpleMove m, char *buf)
{
    static const char *SPECIAL[4] = {"", " ep", " castle-short", " castle-long"};
    snprintf(buf, 32, "%c%d(%d)-%c%d%s", 'a' + file_of(m.from), rank_of(m.from) + 1, m.k, 'a' + file_of(m.to),
             rank_of(m.to) + 1, SPECIAL[m.special & 3]);
    return buf;
}
