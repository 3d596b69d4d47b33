/* eval.h: the evaluation, linear in its weights.
 *
 *   eval(pos) = sum_i weight_i * feature_i(pos)
 *
 * from the side to move's point of view.  Every feature is an integer count,
 * taken as (White's count - Black's count), negated when Black is to move, so
 * a colour-mirrored position evaluates the same for its side to move.  The
 * weights are declared once in weights.def. */
#ifndef TAVRELI_EVAL_H
#define TAVRELI_EVAL_H

#include "position.h"

/* Offsets of each weight in the flat vector: EW_<name> is the first element,
 * EW_<name>_END the last. */
enum {
#define W(name, size, def, lo, hi, group, meaning) EW_##name, EW_##name##_END = EW_##name + (size) - 1,
#include "weights.def"
#undef W
    EVAL_NWEIGHTS
};

/* The element of the per-kind weights (top_value, mobility, prisoner,
 * captive) that a tavrel of kind k counts under: Prince 0, Warrior 1,
 * Archer 2, Horseman 3, Combatant 4, Helgi 5; -1 for the Wizard (and no
 * kind).  The evaluation and the search's capture values share it. */
static inline int eval_kind_index(Kind k)
{
    static const int8_t INDEX[TV_KIND_COUNT] = {-1, -1, 0, 1, 2, 3, 5, 4};
    return INDEX[k];
}

/* Number of weight declarations (names) in weights.def. */
enum {
#define W(name, size, def, lo, hi, group, meaning) EWD_##name,
#include "weights.def"
#undef W
    EVAL_NDECLS
};

typedef struct {
    const char *name;
    int size;
    int offset;
    int lo, hi;
    const char *group;
    const char *meaning;
} WeightInfo;

/* One entry per declaration, in weights.def order (constant). */
extern const WeightInfo EVAL_WEIGHT_INFO[EVAL_NDECLS];

typedef struct {
    int w[EVAL_NWEIGHTS];
} EvalParams;

typedef struct {
    int f[EVAL_NWEIGHTS]; /* feature counts, side to move's view */
} EvalTrace;

/* Fills p with the default weights. */
void eval_params_default(EvalParams *p);

/* The name of weight element i ("top_value[2]", or "tempo" for a scalar). */
char *eval_weight_element_name(int i, char *buf, size_t n);

/* The declaration that element i belongs to. */
const WeightInfo *eval_weight_info_of(int i);

/* The feature vector of pos (side to move's view): what every weight
 * multiplies. */
void eval_trace(const Position *pos, const Options *o, EvalTrace *trace);

/* Evaluates pos for the side to move, in centi-combatants.  When trace is
 * not NULL, it receives the feature vector, and the result equals the dot
 * product of trace and weights exactly. */
int eval_position(const Position *pos, const Options *o, const EvalParams *params, EvalTrace *trace);

/* ---- the incremental form --------------------------------------------------
 *
 * Most terms depend on one square's stack alone: the values of its top,
 * advance, centre, prisoners and height (the "local" part), and what the
 * tower would lose if its top is attacked (captives, threatened tower and
 * own tavrels, a promoted top).  An EvalState keeps these per square, for
 * one set of weights, so that after a move only the squares it changed are
 * recomputed; eval_position_state then adds the terms that need the attack
 * maps.  The result equals eval_position exactly (tests/test_engine.c
 * checks it along random walks). */
typedef struct {
    int32_t local;      /* White's view: the terms of this stack alone */
    int32_t attacked;   /* White's view: what is added when the opponent attacks the top */
} EvalSquare;

typedef struct {
    EvalSquare sq[64];
    int32_t local;      /* the sum of sq[].local */
    Bitboard special;   /* squares whose `attacked` is not 0 */
} EvalState;

/* Computes the state of pos from scratch. */
void eval_state_init(EvalState *st, const Position *pos, const EvalParams *params);

/* Recomputes square s of the state (after its stack changed). */
void eval_state_square(EvalState *st, const Position *pos, const EvalParams *params, Square s);

/* The squares whose stacks move m changes (mover: the side that plays it):
 * from and to, and the double-stepper's square of an en passant or the
 * Warrior's two squares of a castling.  Returns how many (2 to 4). */
static inline int eval_move_squares(Move m, int mover, Square sq[4])
{
    sq[0] = move_from(m);
    sq[1] = move_to(m);
    if (move_special(m) == TV_MOVE_ENPASSANT) {
        sq[2] = mover == TV_WHITE ? sq[1] - 8 : sq[1] + 8;
        return 3;
    }
    if (move_is_castling(m)) {
        const int rank = mover == TV_WHITE ? 0 : 7;
        const bool short_side = move_special(m) == TV_MOVE_CASTLE_SHORT;
        sq[2] = sq_make(short_side ? 7 : 0, rank);
        sq[3] = sq_make(short_side ? 5 : 3, rank);
        return 4;
    }
    return 2;
}

/* Recomputes the squares that move m changed (eval_move_squares), pos being
 * the position after m (or, to undo, before it: the same squares); mover is
 * the side that played m. */
void eval_state_move(EvalState *st, const Position *pos, const EvalParams *params, Move m, int mover);

/* eval_position(pos, o, params, NULL), computed with st, the state of pos
 * for params.  When threats is not NULL, it receives the squares that the
 * side not to move attacks (the evaluation computes them anyway): the
 * squares s with pos_attackers(pos, o, s, side ^ 1) != 0, exactly. */
int eval_position_state(const Position *pos, const Options *o, const EvalParams *params, const EvalState *st,
                        Bitboard *threats);

#endif
