/* eval.c: the features of the linear evaluation and their default weights. */
#include "eval.h"

#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bitboard.h"

const WeightInfo EVAL_WEIGHT_INFO[EVAL_NDECLS] = {
#define W(name, size, def, lo, hi, group, meaning) {#name, (size), EW_##name, (lo), (hi), #group, meaning},
#include "weights.def"
#undef W
};

/* Per-element defaults where the single default of weights.def is not
 * enough.  Index order for kinds: Prince, Warrior, Archer, Horseman,
 * Combatant, Helgi. */

/* Chess-like values; the Helgi moves as Prince + Horseman, so it is worth
 * about their sum minus the overlap. */
static const int DEF_TOP_VALUE[6] = {900, 500, 330, 320, 100, 1150};
/* A prisoner is out of play while the tower stands: about 60% of its value
 * (it can come back when the tower is taken or split). */
static const int DEF_PRISONER[6] = {540, 300, 200, 190, 60, 690};
/* A captive in a tower we attack can be rescued: a fifth of its value. */
static const int DEF_CAPTIVE[6] = {180, 100, 66, 64, 20, 230};
/* Advancement: the closer to promotion and the better the destiny, the more
 * it is worth: (destiny value - combatant value) x [0, 2, 5, 10, 20, 40]%. */
static const int DEF_ADVANCE[30] = {
    0, 8,  20, 40, 80,  160, /* Warrior destiny */
    0, 4,  11, 22, 44,  88,  /* Horseman */
    0, 5,  12, 23, 46,  92,  /* Archer */
    0, 16, 40, 80, 160, 320, /* Prince */
    0, 21, 52, 105, 210, 420 /* Helgi */
};
/* Mobility: a few points per square, less for the long-range Prince. */
static const int DEF_MOBILITY[6] = {2, 4, 5, 6, 2, 2};
/* Centre: tops on the four centre squares, then the ring around them. */
static const int DEF_CENTRE[2] = {12, 5};

void eval_params_default(EvalParams *p)
{
#define W(name, size, def, lo, hi, group, meaning)                                                              \
    for (int i = 0; i < (size); i++)                                                                           \
        p->w[EW_##name + i] = (def);
#include "weights.def"
#undef W
    memcpy(&p->w[EW_top_value], DEF_TOP_VALUE, sizeof DEF_TOP_VALUE);
    memcpy(&p->w[EW_prisoner], DEF_PRISONER, sizeof DEF_PRISONER);
    memcpy(&p->w[EW_captive], DEF_CAPTIVE, sizeof DEF_CAPTIVE);
    memcpy(&p->w[EW_advance], DEF_ADVANCE, sizeof DEF_ADVANCE);
    memcpy(&p->w[EW_mobility], DEF_MOBILITY, sizeof DEF_MOBILITY);
    memcpy(&p->w[EW_centre], DEF_CENTRE, sizeof DEF_CENTRE);
}

const WeightInfo *eval_weight_info_of(int i)
{
    for (int d = 0; d < EVAL_NDECLS; d++)
        if (i >= EVAL_WEIGHT_INFO[d].offset && i < EVAL_WEIGHT_INFO[d].offset + EVAL_WEIGHT_INFO[d].size)
            return &EVAL_WEIGHT_INFO[d];
    return NULL;
}

char *eval_weight_element_name(int i, char *buf, size_t n)
{
    const WeightInfo *w = eval_weight_info_of(i);
    if (!w)
        snprintf(buf, n, "?");
    else if (w->size == 1)
        snprintf(buf, n, "%s", w->name);
    else
        snprintf(buf, n, "%s[%d]", w->name, i - w->offset);
    return buf;
}

/* Destiny kind -> row of the advance table. */
static const int DESTINY_ROW[TV_KIND_COUNT] = {-1, -1, 3, 0, 2, 1, 4, -1};

static const Bitboard CENTRE = 0x0000001818000000ull;
static const Bitboard RING = 0x00003C24243C0000ull;

/* The squares holding two tavrels or more. */
static inline Bitboard towers_of(const Position *pos)
{
#if defined(__SSE2__)
    const __m128i one = _mm_set1_epi8(1);
    Bitboard m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i h = _mm_loadu_si128((const __m128i *)(pos->height + 16 * i));
        /* heights are 0..32: signed compare is safe */
        m |= (Bitboard)(uint16_t)_mm_movemask_epi8(_mm_cmpgt_epi8(h, one)) << (16 * i);
    }
    return m;
#else
    Bitboard m = 0;
    for (int s = 0; s < 64; s++)
        m |= (Bitboard)(pos->height[s] >= 2) << s;
    return m;
#endif
}

#define FILE_A 0x0101010101010101ull
#define FILE_H 0x8080808080808080ull

/* The evaluation in one place for both of its uses: with f != NULL it adds
 * every feature count to f (the trace) and returns 0; with f == NULL it
 * returns the score, adding count x weight as it goes.  Both forms run the
 * same statements, so eval == trace . weights by construction (and tested).
 * Always inlined, so that each use compiles to its own specialised code.
 *
 * The first pass goes kind by kind over each side's tops (counts by
 * popcount, attacks without a switch, the combatants' attacks and steps by
 * shifting the whole set); the second visits only the towers and the
 * promoted combatants, whose terms need the opponent's attacks.  The terms
 * and their order of evaluation were measured against the square-by-square
 * form (tests/test_engine.c keeps it as the reference). */
static inline __attribute__((always_inline)) int eval_core(const Position *pos, const Options *o, const int *w,
                                                           int *f, const EvalState *st, Bitboard *threats)
{
    int score = 0;
#define ADD(i, n)                                                                                              \
    do {                                                                                                       \
        if (f)                                                                                                 \
            f[(i)] += (n);                                                                                     \
        else                                                                                                   \
            score += (n) * w[(i)];                                                                             \
    } while (0)
    const Bitboard *bk = pos->by_kind;
    const Bitboard not_wizard = ~bk[TV_WIZARD];
    Bitboard att[2] = {0, 0};
    for (int c = 0; c < 2; c++) {
        const int sgn = c == pos->side ? 1 : -1;
        const Bitboard own = pos->by_colour[c], opp = pos->by_colour[c ^ 1];
        const Bitboard blk = o->slide_over_own ? opp : pos->occ;
        Bitboard a = 0;

        if (!st) {
            ADD(EW_centre, sgn * bb_popcount(own & CENTRE)); /* every top, the Wizard too */
            ADD(EW_centre + 1, sgn * bb_popcount(own & RING));
        }

        /* Pieces: value, attacks, mobility (reachable squares but Wizards). */
#define PIECES(kind, ki, ATTACKS)                                                                              \
    do {                                                                                                       \
        Bitboard b = own & bk[kind];                                                                           \
        if (b) {                                                                                               \
            if (!st)                                                                                           \
                ADD(EW_top_value + (ki), sgn * bb_popcount(b));                                                \
            int mob = 0;                                                                                       \
            while (b) {                                                                                        \
                Square s = bb_pop(&b);                                                                         \
                Bitboard x = ATTACKS;                                                                          \
                a |= x;                                                                                        \
                mob += bb_popcount(x & not_wizard);                                                            \
            }                                                                                                  \
            ADD(EW_mobility + (ki), sgn * mob);                                                                \
        }                                                                                                      \
    } while (0)
        PIECES(TV_PRINCE, 0, bb_queen(s, blk));
        PIECES(TV_WARRIOR, 1, bb_rook(s, blk));
        PIECES(TV_ARCHER, 2, bb_bishop(s, blk));
        PIECES(TV_HORSEMAN, 3, TV_KNIGHT_ATT[s]);
        PIECES(TV_HELGI, 5, bb_queen(s, blk) | TV_KNIGHT_ATT[s]);
#undef PIECES

        /* Combatants: value, advance, attacks (diagonally forward), and
         * mobility: captures onto opponent stacks and the step ahead
         * unless an opponent stack stands there, never onto a Wizard. */
        Bitboard cb = own & bk[TV_COMBATANT];
        if (cb) {
            if (!st)
                ADD(EW_top_value + 4, sgn * bb_popcount(cb));
            Bitboard left, right, ahead;
            if (c == TV_WHITE) {
                left = (cb & ~FILE_A) << 7;
                right = (cb & ~FILE_H) << 9;
                ahead = cb << 8;
            } else {
                left = (cb & ~FILE_A) >> 9;
                right = (cb & ~FILE_H) >> 7;
                ahead = cb >> 8;
            }
            a |= left | right;
            const Bitboard prey = opp & not_wizard;
            ADD(EW_mobility + 4, sgn * (bb_popcount(left & prey) + bb_popcount(right & prey) +
                                        bb_popcount(ahead & ~opp & not_wizard)));
            Bitboard b = st ? 0 : cb; /* advance: in the state's local part when there is one */
            while (b) {
                Square s = bb_pop(&b);
                int rel = c == TV_WHITE ? sq_rank(s) - 1 : 6 - sq_rank(s);
                int row = DESTINY_ROW[tavrel_destiny(pos->stack[s][pos->height[s] - 1])];
                if (row >= 0 && rel >= 0 && rel < 6)
                    ADD(EW_advance + row * 6 + rel, sgn);
            }
        }
        Bitboard wz = own & bk[TV_WIZARD];
        while (wz)
            a |= TV_KING_ATT[bb_pop(&wz)];
        att[c] = a;
    }

    if (threats)
        *threats = att[pos->side ^ 1];
    if (st) {
        /* the per-square terms of the state, White's view */
        int white = st->local;
        Bitboard hit = st->special & ((pos->by_colour[TV_WHITE] & att[TV_BLACK]) |
                                      (pos->by_colour[TV_BLACK] & att[TV_WHITE]));
        while (hit)
            white += st->sq[bb_pop(&hit)].attacked;
        score += pos->side == TV_WHITE ? white : -white;
    }

    /* Towers (prisoners, captives, height, threats) and promoted tops (a
     * promoted combatant is a top of a kind between Prince and Helgi). */
    Bitboard b = st ? 0 : towers_of(pos) | (pos->occ & ~bk[TV_COMBATANT] & ~bk[TV_WIZARD]);
    while (b) {
        Square s = bb_pop(&b);
        const int h = pos->height[s];
        Tavrel t = pos->stack[s][h - 1];
        if (h < 2 && !tavrel_is_promoted(t))
            continue;
        const int c = tavrel_colour(t);
        const int sgn = c == pos->side ? 1 : -1;
        const bool attacked = (att[c ^ 1] & sq_bb(s)) != 0;
        if (tavrel_is_promoted(t) && attacked)
            ADD(EW_promoted_threatened, sgn);
        if (h < 2)
            continue;
        /* Prisoners under this top; this side's captives are counted from
         * the opponent's tops. */
        int own_below = 0;
        for (int i = 0; i < h - 1; i++) {
            Tavrel u = pos->stack[s][i];
            int ui = eval_kind_index(tavrel_kind(u));
            if (tavrel_colour(u) == c)
                own_below++;
            else if (ui >= 0) {
                ADD(EW_prisoner + ui, sgn);
                if (attacked)
                    ADD(EW_captive + ui, -sgn); /* the opponent's captive, retakable */
            }
        }
        if (h >= 3)
            ADD(EW_tower_height, sgn * (h - 2));
        if (attacked) {
            ADD(EW_tower_threatened, sgn);
            ADD(EW_threatened_own, sgn * own_below);
        }
    }

    for (int c = 0; c < 2; c++) {
        const int sgn = c == pos->side ? 1 : -1;
        Square wz = pos->wizard[c];
        if (wz != TV_NO_SQUARE) {
            ADD(EW_wizard_zone_attacked, sgn * bb_popcount(TV_KING_ATT[wz] & att[c ^ 1]));
            ADD(EW_wizard_shelter, sgn * bb_popcount(TV_KING_ATT[wz] & pos->by_colour[c]));
        }
    }
    ADD(EW_tempo, 1);
#undef ADD
    return score;
}

void eval_trace(const Position *pos, const Options *o, EvalTrace *trace)
{
    memset(trace->f, 0, sizeof trace->f);
    eval_core(pos, o, NULL, trace->f, NULL, NULL);
}

int eval_position(const Position *pos, const Options *o, const EvalParams *params, EvalTrace *trace)
{
    if (!trace)
        return eval_core(pos, o, params->w, NULL, NULL, NULL);
    eval_trace(pos, o, trace);
    int score = 0;
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        score += trace->f[i] * params->w[i];
    return score;
}

/* ---- the incremental form (see eval.h) ------------------------------------- */

/* square_terms repeats eval_core's terms of one stack (the prisoner loop
 * among them) in per-square form, on purpose: eval_core counts features for
 * the trace and the tuner, this form keeps each square's share so that a
 * move recomputes only its squares, which cut the search's instructions by
 * 14% (docs/engines.md, "the incremental form").  test_eval_incremental
 * (tests/test_eval.c) holds the two equal along random walks. */

static EvalSquare square_terms(const Position *pos, const int *w, Square s)
{
    EvalSquare e = {0, 0};
    const int h = pos->height[s];
    if (!h)
        return e;
    const Tavrel t = pos->stack[s][h - 1];
    const int c = tavrel_colour(t);
    const int sgn = c == TV_WHITE ? 1 : -1;
    const Kind k = tavrel_kind(t);
    if (CENTRE & sq_bb(s))
        e.local += sgn * w[EW_centre];
    else if (RING & sq_bb(s))
        e.local += sgn * w[EW_centre + 1];
    const int ki = eval_kind_index(k);
    if (ki >= 0)
        e.local += sgn * w[EW_top_value + ki];
    if (k == TV_COMBATANT) {
        int rel = c == TV_WHITE ? sq_rank(s) - 1 : 6 - sq_rank(s);
        int row = DESTINY_ROW[tavrel_destiny(t)];
        if (row >= 0 && rel >= 0 && rel < 6)
            e.local += sgn * w[EW_advance + row * 6 + rel];
    } else if (tavrel_is_promoted(t))
        e.attacked += sgn * w[EW_promoted_threatened];
    if (h >= 2) {
        int own_below = 0;
        for (int i = 0; i < h - 1; i++) {
            Tavrel u = pos->stack[s][i];
            int ui = eval_kind_index(tavrel_kind(u));
            if (tavrel_colour(u) == c)
                own_below++;
            else if (ui >= 0) {
                e.local += sgn * w[EW_prisoner + ui];
                e.attacked -= sgn * w[EW_captive + ui];
            }
        }
        if (h >= 3)
            e.local += sgn * (h - 2) * w[EW_tower_height];
        e.attacked += sgn * (w[EW_tower_threatened] + own_below * w[EW_threatened_own]);
    }
    return e;
}

static inline void state_square(EvalState *st, const Position *pos, const int *w, Square s)
{
    EvalSquare e = square_terms(pos, w, s);
    st->local += e.local - st->sq[s].local;
    st->sq[s] = e;
    if (e.attacked)
        st->special |= sq_bb(s);
    else
        st->special &= ~sq_bb(s);
}

void eval_state_init(EvalState *st, const Position *pos, const EvalParams *params)
{
    memset(st, 0, sizeof *st);
    Bitboard b = pos->occ;
    while (b)
        state_square(st, pos, params->w, bb_pop(&b));
}

void eval_state_square(EvalState *st, const Position *pos, const EvalParams *params, Square s)
{
    state_square(st, pos, params->w, s);
}

/* One call for the squares of a move, each inlined: the search called
 * eval_state_square per square, and one call per move instead cut 11 M of
 * the 1,287 M instructions of resolving a tuning set (callgrind). */
void eval_state_move(EvalState *st, const Position *pos, const EvalParams *params, Move m, int mover)
{
    Square sq[4];
    const int n = eval_move_squares(m, mover, sq);
    /* from and to (every move) apart from the rest: one loop over the 2 to
     * 4 squares cost 6 M more of the 1,264 M instructions of loading the
     * quick store (callgrind) */
    state_square(st, pos, params->w, sq[0]);
    state_square(st, pos, params->w, sq[1]);
    for (int i = 2; i < n; i++)
        state_square(st, pos, params->w, sq[i]);
}

int eval_position_state(const Position *pos, const Options *o, const EvalParams *params, const EvalState *st,
                        Bitboard *threats)
{
    return eval_core(pos, o, params->w, NULL, st, threats);
}
