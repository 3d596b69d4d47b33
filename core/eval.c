/* eval.c: the features of the linear evaluation and their default weights. */
#include "eval.h"

#include <stdio.h>
#include <string.h>

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

/* Kind -> index of the per-kind weights (-1 for the Wizard). */
static const int KIND_INDEX[TV_KIND_COUNT] = {-1, -1, 0, 1, 2, 3, 5, 4};
/* Destiny kind -> row of the advance table. */
static const int DESTINY_ROW[TV_KIND_COUNT] = {-1, -1, 3, 0, 2, 1, 4, -1};

static const Bitboard CENTRE = 0x0000001818000000ull;
static const Bitboard RING = 0x00003C24243C0000ull;

void eval_trace(const Position *pos, const Options *o, EvalTrace *trace)
{
    int *f = trace->f;
    memset(f, 0, sizeof trace->f);
    const Bitboard wizards = pos->by_kind[TV_WIZARD];

    /* Attack maps of both sides (tops only), and each top's attacks. */
    Bitboard att[2] = {0, 0};
    Bitboard sq_att[64];
    for (int c = 0; c < 2; c++) {
        Bitboard blk = o->slide_over_own ? pos->by_colour[c ^ 1] : pos->occ;
        Bitboard b = pos->by_colour[c];
        while (b) {
            Square s = bb_pop(&b);
            Tavrel t = pos_top(pos, s);
            sq_att[s] = pos_attacks_of(tavrel_kind(t), c, s, blk);
            att[c] |= sq_att[s];
        }
    }

    for (int c = 0; c < 2; c++) {
        const int sgn = c == pos->side ? 1 : -1;
        const int them = c ^ 1;
        const Bitboard own = pos->by_colour[c], opp = pos->by_colour[them];
        Bitboard b = own;
        while (b) {
            Square s = bb_pop(&b);
            Tavrel t = pos_top(pos, s);
            Kind k = tavrel_kind(t);
            int h = pos->height[s];
            int ki = KIND_INDEX[k];
            if (ki >= 0)
                f[EW_top_value + ki] += sgn;

            /* Prisoners under this top; this side's captives are counted
             * from the opponent's tops below. */
            int own_below = 0;
            for (int i = 0; i < h - 1; i++) {
                Tavrel u = pos->stack[s][i];
                int ui = KIND_INDEX[tavrel_kind(u)];
                if (tavrel_colour(u) == c)
                    own_below++;
                else if (ui >= 0) {
                    f[EW_prisoner + ui] += sgn;
                    if (att[them] & sq_bb(s))
                        f[EW_captive + ui] -= sgn; /* the opponent's captive, retakable */
                }
            }
            if (h >= 3)
                f[EW_tower_height] += sgn * (h - 2);
            if (h >= 2) {
                if (att[them] & sq_bb(s)) {
                    f[EW_tower_threatened] += sgn;
                    f[EW_threatened_own] += sgn * own_below;
                }
            }

            if (k == TV_COMBATANT) {
                int rel = c == TV_WHITE ? sq_rank(s) - 1 : 6 - sq_rank(s);
                int row = DESTINY_ROW[tavrel_destiny(t)];
                if (row >= 0 && rel >= 0 && rel < 6)
                    f[EW_advance + row * 6 + rel] += sgn;
            } else if (tavrel_is_promoted(t) && (att[them] & sq_bb(s))) {
                f[EW_promoted_threatened] += sgn;
            }

            if (ki >= 0) {
                Bitboard moves;
                if (k == TV_COMBATANT) {
                    Square a = c == TV_WHITE ? s + 8 : s - 8;
                    moves = TV_PAWN_ATT[c][s] & opp;
                    if (a >= 0 && a < 64 && !(opp & sq_bb(a)))
                        moves |= sq_bb(a);
                } else {
                    moves = sq_att[s];
                }
                f[EW_mobility + ki] += sgn * bb_popcount(moves & ~wizards);
            }
            if (CENTRE & sq_bb(s))
                f[EW_centre] += sgn;
            else if (RING & sq_bb(s))
                f[EW_centre + 1] += sgn;
        }

        Square w = pos->wizard[c];
        if (w != TV_NO_SQUARE) {
            f[EW_wizard_zone_attacked] += sgn * bb_popcount(TV_KING_ATT[w] & att[them]);
            f[EW_wizard_shelter] += sgn * bb_popcount(TV_KING_ATT[w] & own);
        }
    }
    f[EW_tempo] = 1;
}

int eval_position(const Position *pos, const Options *o, const EvalParams *params, EvalTrace *trace)
{
    EvalTrace local;
    EvalTrace *t = trace ? trace : &local;
    eval_trace(pos, o, t);
    int score = 0;
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        score += t->f[i] * params->w[i];
    return score;
}
