#define _POSIX_C_SOURCE 200809L
/* test_eval.c: the evaluation and what the search builds on (the search
 * and engine versions: test_engine.c).
 *
 *  - eval == trace . weights on thousands of walk positions, with the
 *    default and with random weights; a colour-mirrored position evaluates
 *    the same for its side to move; the features equal a square-by-square
 *    reference implementation kept here; the incremental form (EvalState)
 *    equals the full one along random walks, moves made and taken back;
 *    the features are linearly independent, and each fires somewhere;
 *  - the engine's quick generators (movegen_check_move, movegen_tactical_k,
 *    movegen_evasions) agree with the full ones, the last two list for list
 *    under every option set, and movegen_gives_check with making the move;
 *  - the quiescence search's score is the evaluation of the leaf it
 *    returns. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "engine_fixtures.h"
#include "engine.h"
#include "rng.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "search.h"
#include "tfen.h"

typedef struct {
    EvalParams params;
    int checked;
    int bad;
} DotCheck;

static void check_dot(const Position *p, void *user)
{
    DotCheck *d = user;
    Options o = {0};
    EvalTrace t;
    int score = eval_position(p, &o, &d->params, &t);
    long long dot = 0;
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        dot += (long long)t.f[i] * d->params.w[i];
    if (dot != score && d->bad++ < 5) {
        char buf[TV_TFEN_MAX];
        print_error("eval %d != trace.weights %lld at %s\n", score, dot, tfen_write(p, buf, sizeof buf));
    }
    if (eval_position(p, &o, &d->params, NULL) != score && d->bad++ < 5)
        print_error("eval differs with and without a trace\n");
    EvalTrace t2;
    eval_trace(p, &o, &t2);
    if (memcmp(&t2, &t, sizeof t) != 0 && d->bad++ < 5)
        print_error("eval_trace differs from the trace of eval_position\n");
    Position m;
    pos_mirror(p, &m);
    int ms = eval_position(&m, &o, &d->params, NULL);
    if (ms != score && d->bad++ < 5) {
        char buf[TV_TFEN_MAX];
        print_error("mirror evaluates %d, original %d at %s\n", ms, score, tfen_write(p, buf, sizeof buf));
    }
    d->checked++;
}

static void test_eval_is_linear_and_symmetric(void **state)
{
    (void)state;
    DotCheck d = {.checked = 0, .bad = 0};
    eval_params_default(&d.params);
    for_walk_positions(check_dot, &d);
    uint64_t seed = 99;
    random_params(&d.params, &seed);
    for_walk_positions(check_dot, &d);
    assert_int_equal(d.bad, 0);
    assert_true(d.checked > 4000);
}

/* The evaluation's features as first written, square by square, kept as
 * the reference of the faster form in core/eval.c (kind by kind, shifted
 * combatant sets, towers visited through a height mask). */
static const int REF_KIND_INDEX[TV_KIND_COUNT] = {-1, -1, 0, 1, 2, 3, 5, 4};
static const int REF_DESTINY_ROW[TV_KIND_COUNT] = {-1, -1, 3, 0, 2, 1, 4, -1};

static void reference_trace(const Position *pos, const Options *o, int *f)
{
    const Bitboard CENTRE = 0x0000001818000000ull, RING = 0x00003C24243C0000ull;
    memset(f, 0, sizeof(int) * EVAL_NWEIGHTS);
    const Bitboard wizards = pos->by_kind[TV_WIZARD];
    Bitboard att[2] = {0, 0};
    Bitboard sq_att[64];
    for (int c = 0; c < 2; c++) {
        Bitboard blk = o->slide_over_own ? pos->by_colour[c ^ 1] : pos->occ;
        Bitboard b = pos->by_colour[c];
        while (b) {
            Square s = __builtin_ctzll(b);
            b &= b - 1;
            sq_att[s] = pos_attacks_of(tavrel_kind(pos_top(pos, s)), c, s, blk);
            att[c] |= sq_att[s];
        }
    }
    for (int c = 0; c < 2; c++) {
        const int sgn = c == pos->side ? 1 : -1;
        const int them = c ^ 1;
        const Bitboard own = pos->by_colour[c], opp = pos->by_colour[them];
        Bitboard b = own;
        while (b) {
            Square s = __builtin_ctzll(b);
            b &= b - 1;
            Tavrel t = pos_top(pos, s);
            Kind k = tavrel_kind(t);
            int h = pos->height[s];
            int ki = REF_KIND_INDEX[k];
            if (ki >= 0)
                f[EW_top_value + ki] += sgn;
            int own_below = 0;
            for (int i = 0; i < h - 1; i++) {
                Tavrel u = pos->stack[s][i];
                int ui = REF_KIND_INDEX[tavrel_kind(u)];
                if (tavrel_colour(u) == c)
                    own_below++;
                else if (ui >= 0) {
                    f[EW_prisoner + ui] += sgn;
                    if (att[them] & sq_bb(s))
                        f[EW_captive + ui] -= sgn;
                }
            }
            if (h >= 3)
                f[EW_tower_height] += sgn * (h - 2);
            if (h >= 2 && (att[them] & sq_bb(s))) {
                f[EW_tower_threatened] += sgn;
                f[EW_threatened_own] += sgn * own_below;
            }
            if (k == TV_COMBATANT) {
                int rel = c == TV_WHITE ? sq_rank(s) - 1 : 6 - sq_rank(s);
                int row = REF_DESTINY_ROW[tavrel_destiny(t)];
                if (row >= 0 && rel >= 0 && rel < 6)
                    f[EW_advance + row * 6 + rel] += sgn;
            } else if (tavrel_is_promoted(t) && (att[them] & sq_bb(s))) {
                f[EW_promoted_threatened] += sgn;
            }
            if (ki >= 0) {
                Bitboard moves;
                if (k == TV_COMBATANT) {
                    Square a = c == TV_WHITE ? s + 8 : s - 8;
                    moves = pos_attacks_of(TV_COMBATANT, c, s, 0) & opp;
                    if (a >= 0 && a < 64 && !(opp & sq_bb(a)))
                        moves |= sq_bb(a);
                } else {
                    moves = sq_att[s];
                }
                f[EW_mobility + ki] += sgn * __builtin_popcountll(moves & ~wizards);
            }
            if (CENTRE & sq_bb(s))
                f[EW_centre] += sgn;
            else if (RING & sq_bb(s))
                f[EW_centre + 1] += sgn;
        }
        Square w = pos->wizard[c];
        if (w != TV_NO_SQUARE) {
            Bitboard zone = pos_attacks_of(TV_WIZARD, c, w, 0);
            f[EW_wizard_zone_attacked] += sgn * __builtin_popcountll(zone & att[them]);
            f[EW_wizard_shelter] += sgn * __builtin_popcountll(zone & own);
        }
    }
    f[EW_tempo] = 1;
}

typedef struct {
    Options rules;
    int checked, bad;
} RefCheck;

static void check_reference(const Position *p, void *user)
{
    RefCheck *r = user;
    int ref[EVAL_NWEIGHTS];
    reference_trace(p, &r->rules, ref);
    EvalTrace t;
    eval_trace(p, &r->rules, &t);
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        if (t.f[i] != ref[i] && r->bad++ < 5) {
            char buf[TV_TFEN_MAX], name[64];
            print_error("feature %s: %d, reference %d at %s\n", eval_weight_element_name(i, name, sizeof name), t.f[i],
                        ref[i], tfen_write(p, buf, sizeof buf));
        }
    r->checked++;
}

/* The evaluation's features equal the square-by-square reference on every
 * walk position, under the default rules and with slide_over_own. */
static void test_eval_matches_reference(void **state)
{
    (void)state;
    RefCheck r = {.checked = 0, .bad = 0};
    for_walk_positions(check_reference, &r);
    r.rules.slide_over_own = true;
    for_walk_positions(check_reference, &r);
    assert_int_equal(r.bad, 0);
    assert_true(r.checked > 4000);
}

/* movegen_check_move answers as movegen_is_legal, for every legal move and
 * for moves that are not (other k, other destinations, other squares);
 * movegen_tactical_k keeps exactly the moves of movegen_tactical whose k
 * the mask allows, in the same order. */
static void check_quick_generators(const Position *p, void *user)
{
    int *bad = user;
    Options o = {0};
    MoveList all, tac, sel;
    movegen_legal(p, &o, &all);
    for (int i = 0; i < all.count; i++) {
        Move m = all.moves[i];
        if (!movegen_check_move(p, &o, m))
            (*bad)++;
        /* neighbours of a legal move, legal or not */
        Move variants[3] = {move_make(move_from(m), move_to(m), move_k(m) + 1, move_special(m)),
                            move_make(move_from(m), (move_to(m) + 1) & 63, move_k(m), move_special(m)),
                            move_make((move_from(m) + 9) & 63, move_to(m), move_k(m), TV_MOVE_NORMAL)};
        for (int v = 0; v < 3; v++)
            if (movegen_check_move(p, &o, variants[v]) != movegen_is_legal(p, &o, variants[v]))
                (*bad)++;
    }
    if (movegen_check_move(p, &o, TV_MOVE_NONE))
        (*bad)++;
    movegen_tactical(p, &o, &tac);
    uint32_t kmask[64];
    for (int s = 0; s < 64; s++)
        kmask[s] = (uint32_t)(p->hash >> (s % 32)) | 1u; /* some k per square, always k = 1 */
    movegen_tactical_k(p, &o, kmask, pos_in_check(p, &o), &sel);
    int n = 0;
    for (int i = 0; i < tac.count; i++) {
        Move m = tac.moves[i];
        if (!((kmask[move_from(m)] >> (move_k(m) - 1)) & 1u))
            continue;
        if (n >= sel.count || sel.moves[n] != m)
            (*bad)++;
        n++;
    }
    if (n != sel.count)
        (*bad)++;
}

static void test_quick_generators(void **state)
{
    (void)state;
    int bad = 0;
    for_walk_positions(check_quick_generators, &bad);
    assert_int_equal(bad, 0);
}

/* Under every option set: movegen_evasions gives movegen_legal's list, in
 * its order, in every position in check; movegen_tactical_k keeps exactly
 * the moves of movegen_tactical whose k the mask allows, in the same order,
 * for a mask of some k per square and for the quiescence search's (k = 1
 * and k = height). */
typedef struct {
    int checked, in_check, bad;
} EngineLists;

static bool same_list(const MoveList *a, const MoveList *b)
{
    return a->count == b->count && memcmp(a->moves, b->moves, sizeof(Move) * (size_t)a->count) == 0;
}

static void check_engine_lists(const Position *p, void *user)
{
    EngineLists *e = user;
    for (int v = 0; v < 8; v++) {
        Options o = {0};
        o.slide_over_own = (v & 1) != 0;
        o.enpassant = (v & 2) ? TV_EP_ANY : TV_EP_COMBATANT;
        o.ending = (v & 4) ? TV_ENDING_CAPTURE : TV_ENDING_CHECKMATE;
        MoveList all, evasions, tac, sel;
        const bool check = pos_in_check(p, &o);
        if (check) {
            movegen_legal(p, &o, &all);
            movegen_evasions(p, &o, &evasions);
            e->in_check++;
            if (!same_list(&all, &evasions) && e->bad++ < 5) {
                char buf[TV_TFEN_MAX];
                print_error("movegen_evasions differs at %s (options %d)\n", tfen_write(p, buf, sizeof buf), v);
            }
        }
        movegen_tactical(p, &o, &tac);
        for (int m = 0; m < 2; m++) {
            uint32_t kmask[64];
            for (int s = 0; s < 64; s++)
                kmask[s] = m == 0 ? (uint32_t)(p->hash >> (s % 32)) | 1u
                                  : 1u | (p->height[s] ? 1u << (p->height[s] - 1) : 0u);
            movegen_tactical_k(p, &o, kmask, check, &sel);
            MoveList want = {.count = 0};
            for (int i = 0; i < tac.count; i++)
                if ((kmask[move_from(tac.moves[i])] >> (move_k(tac.moves[i]) - 1)) & 1u)
                    want.moves[want.count++] = tac.moves[i];
            if (!same_list(&want, &sel) && e->bad++ < 5) {
                char buf[TV_TFEN_MAX];
                print_error("movegen_tactical_k differs at %s (options %d)\n", tfen_write(p, buf, sizeof buf), v);
            }
        }
        e->checked++;
    }
}

static void test_engine_lists(void **state)
{
    (void)state;
    EngineLists e = {0, 0, 0};
    for_walk_positions(check_engine_lists, &e);
    assert_int_equal(e.bad, 0);
    assert_true(e.in_check > 500);
}

/* movegen_gives_check agrees with making the move and asking pos_in_check,
 * for every legal move of the walk positions, under the default rules and
 * under slide_over_own and ending=capture. */
static void check_gives_check(const Position *pos, void *user)
{
    int *counts = user;
    for (int v = 0; v < 3; v++) {
        Options o = {0};
        if (v == 1)
            o.slide_over_own = true;
        if (v == 2)
            o.ending = TV_ENDING_CAPTURE;
        MoveList l;
        movegen_legal(pos, &o, &l);
        for (int i = 0; i < l.count; i++) {
            Position p = *pos;
            bool quick = movegen_gives_check(&p, &o, l.moves[i]);
            Undo u;
            pos_make_move(&p, l.moves[i], &u);
            bool real = pos_in_check(&p, &o);
            counts[0]++;
            counts[1] += real;
            if (quick != real && counts[2]++ < 5) {
                char buf[TV_TFEN_MAX], m[TV_MOVE_STR_MAX];
                print_error("gives check: %d, made: %d for %s at %s (variant %d)\n", quick, real,
                            move_to_str(pos, &o, l.moves[i], false, m, sizeof m), tfen_write(pos, buf, sizeof buf),
                            v);
            }
        }
    }
}

static void test_gives_check(void **state)
{
    (void)state;
    int counts[3] = {0, 0, 0}; /* moves, checks, disagreements */
    for_walk_positions(check_gives_check, counts);
    assert_int_equal(counts[2], 0);
    assert_true(counts[1] > 1000);
}

/* The incremental evaluation equals the full one along random walks: the
 * state is updated only for the squares each move changed (and back again
 * when the moves are taken back), with the default and random weights,
 * under the default rules and slide_over_own; the attack map it gives
 * (threats) is pos_attackers' on every square. */
static void test_eval_incremental(void **state)
{
    (void)state;
    uint64_t seed = 31;
    int checked = 0, bad = 0;
    for (int variant = 0; variant < 4; variant++) {
        Options o = {0};
        o.slide_over_own = variant & 1;
        EvalParams w;
        eval_params_default(&w);
        if (variant & 2)
            random_params(&w, &seed);
        for (size_t st = 0; st < sizeof WALK_STARTS / sizeof WALK_STARTS[0]; st++)
            for (int walk = 0; walk < 6; walk++) {
                Position p = read_tfen(WALK_STARTS[st]);
                static EvalState es;
                eval_state_init(&es, &p, &w);
                Undo undo[80];
                Move moves[80];
                int n = 0;
                for (; n < 80; n++) {
                    Bitboard threats = 0;
                    int full = eval_position(&p, &o, &w, NULL), inc = eval_position_state(&p, &o, &w, &es, &threats);
                    checked++;
                    if (full != inc && bad++ < 5) {
                        char buf[TV_TFEN_MAX];
                        print_error("incremental %d, full %d at %s\n", inc, full, tfen_write(&p, buf, sizeof buf));
                    }
                    /* the threats are the squares the side not to move attacks */
                    for (Square s = 0; s < 64; s++)
                        if (((threats >> s) & 1) != (pos_attackers(&p, &o, s, p.side ^ 1) != 0) && bad++ < 5)
                            print_error("threats differ from pos_attackers on square %d\n", s);
                    MoveList l;
                    movegen_legal(&p, &o, &l);
                    if (l.count == 0)
                        break;
                    moves[n] = l.moves[tv_rng_next(&seed) % (uint64_t)l.count];
                    int mover = p.side;
                    pos_make_move(&p, moves[n], &undo[n]);
                    eval_state_move(&es, &p, &w, moves[n], mover);
                }
                /* back to the start, checking on the way */
                while (n-- > 0) {
                    pos_unmake_move(&p, &undo[n]);
                    eval_state_move(&es, &p, &w, moves[n], p.side);
                    if (eval_position(&p, &o, &w, NULL) != eval_position_state(&p, &o, &w, &es, NULL) && bad++ < 5)
                        print_error("incremental evaluation differs after taking a move back\n");
                    checked++;
                }
            }
    }
    assert_int_equal(bad, 0);
    assert_true(checked > 8000);
}

/* movegen_tactical gives exactly the legal moves that land on an opponent
 * stack, capture en passant, or bring a combatant mover to its far rank. */
static void check_tactical(const Position *p, void *user)
{
    int *bad = user;
    Options o = {0};
    MoveList all, tac;
    movegen_legal(p, &o, &all);
    movegen_tactical(p, &o, &tac);
    int expected = 0;
    for (int i = 0; i < all.count; i++) {
        Move m = all.moves[i];
        Tavrel dst = pos_top(p, move_to(m)), mover = pos_top(p, move_from(m));
        bool capture = (dst && tavrel_colour(dst) != p->side) || move_special(m) == TV_MOVE_ENPASSANT;
        bool promo = tavrel_kind(mover) == TV_COMBATANT && sq_rank(move_to(m)) == (p->side == TV_WHITE ? 7 : 0);
        if (!capture && !promo)
            continue;
        expected++;
        bool found = false;
        for (int j = 0; j < tac.count; j++)
            found |= tac.moves[j] == m;
        if (!found)
            (*bad)++;
    }
    if (expected != tac.count)
        (*bad)++;
}

static void test_tactical_moves(void **state)
{
    (void)state;
    int bad = 0;
    for_walk_positions(check_tactical, &bad);
    assert_int_equal(bad, 0);
}

/* search_quiet: the quiescence score of a position is the evaluation of the
 * leaf it returns (from the position's side to move), unless it is a mate. */
typedef struct {
    SearchContext *ctx;
    EvalParams w;
    int checked, bad;
} QuietCheck;

static void check_quiet(const Position *p, void *user)
{
    QuietCheck *q = user;
    Options o = {0};
    Position leaf;
    int score;
    search_quiet(q->ctx, p, &leaf, &score);
    if (score > SCORE_MATE_BOUND || score < -SCORE_MATE_BOUND)
        return;
    int e = eval_position(&leaf, &o, &q->w, NULL);
    if (leaf.side != p->side)
        e = -e;
    if (e != score && q->bad++ < 5) {
        char buf[TV_TFEN_MAX];
        print_error("quiet score %d, leaf eval %d at %s\n", score, e, tfen_write(p, buf, sizeof buf));
    }
    q->checked++;
}

static void test_search_quiet(void **state)
{
    (void)state;
    Options o = {0};
    QuietCheck q = {.checked = 0, .bad = 0};
    eval_params_default(&q.w);
    SearchSettings set;
    search_settings_default(&set);
    q.ctx = search_alloc(&q.w, &o, &set);
    assert_non_null(q.ctx);
    for_walk_positions(check_quiet, &q);
    search_free(q.ctx);
    assert_int_equal(q.bad, 0);
    assert_true(q.checked > 3000);
}

/* The features must be linearly independent on real positions, or the tuner
 * cannot tell their weights apart.  (Nothing leaves the board, so counts of
 * tavrels by status are tied together: threatened_prisoners and a linear
 * tower_height once were exact combinations of other features.) */
typedef struct {
    double gram[EVAL_NWEIGHTS][EVAL_NWEIGHTS];
    int nonzero[EVAL_NWEIGHTS];
} Gram;

static void add_gram(const Position *p, void *user)
{
    Gram *g = user;
    /* as in real games: both sides with the same number of tavrels (the
     * walks also start from endgame positions with unequal numbers) */
    int count[2] = {0, 0};
    for (Square sq = 0; sq < 64; sq++)
        for (int i = 0; i < p->height[sq]; i++)
            count[tavrel_colour(p->stack[sq][i])]++;
    if (count[0] != count[1])
        return;
    Options o = {0};
    EvalTrace t;
    eval_trace(p, &o, &t);
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        if (t.f[i])
            g->nonzero[i]++;
        for (int j = 0; j < EVAL_NWEIGHTS; j++)
            g->gram[i][j] += (double)t.f[i] * t.f[j];
    }
}

static void test_features_independent(void **state)
{
    (void)state;
    static Gram g;
    memset(&g, 0, sizeof g);
    for_walk_positions(add_gram, &g);
    /* the features seen often enough, then Gaussian elimination with pivoting */
    int idx[EVAL_NWEIGHTS], n = 0;
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        if (g.nonzero[i] >= 50) /* tempo is the constant column */
            idx[n++] = i;
    static double a[EVAL_NWEIGHTS][EVAL_NWEIGHTS];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) /* scale to unit diagonal: a correlation matrix */
            a[i][j] = g.gram[idx[i]][idx[j]] / sqrt(g.gram[idx[i]][idx[i]] * g.gram[idx[j]][idx[j]]);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-9) {
            char name[64];
            fail_msg("feature %s is a linear combination of the others on %d positions",
                     eval_weight_element_name(idx[c], name, sizeof name), g.nonzero[idx[c]]);
        }
        for (int j = 0; j < n; j++) {
            double tmp = a[c][j];
            a[c][j] = a[piv][j];
            a[piv][j] = tmp;
        }
        int ti = idx[c];
        idx[c] = idx[piv];
        idx[piv] = ti;
        for (int r = c + 1; r < n; r++) {
            double m = a[r][c] / a[c][c];
            for (int j = c; j < n; j++)
                a[r][j] -= m * a[c][j];
        }
    }
    assert_true(n >= 20);
}

/* A feature that must fire: a prisoner under an own top counts. */
static void test_eval_features_fire(void **state)
{
    (void)state;
    Options o = {0};
    EvalParams w;
    eval_params_default(&w);
    EvalTrace t;
    /* White Warrior on a Black Prince-destined combatant: one prisoner
     * (combatant) for White; White to move. */
    Position p = read_tfen("4k3/8/8/8/3(Rpq)4/8/8/4K3 w - - 0 1");
    eval_position(&p, &o, &w, &t);
    assert_int_equal(t.f[EW_prisoner + 4], 1);
    assert_int_equal(t.f[EW_top_value + 1], 1);
    assert_int_equal(t.f[EW_tower_height], 0); /* counted from the third tavrel */
    assert_int_equal(t.f[EW_tempo], 1);
    /* Same from Black's side to move: features flip sign, tempo stays. */
    p = read_tfen("4k3/8/8/8/3(Rpq)4/8/8/4K3 b - - 0 1");
    eval_position(&p, &o, &w, &t);
    assert_int_equal(t.f[EW_prisoner + 4], -1);
    assert_int_equal(t.f[EW_tempo], 1);
    /* Helgi-destined combatant on the 7th rank is worth more than a
     * Warrior-destined one. */
    assert_true(w.w[EW_advance + 4 * 6 + 5] > w.w[EW_advance + 0 * 6 + 5]);
}

int main(void)
{
    if (getenv("TAVRELI_TEST_FILTER")) /* run one test: TAVRELI_TEST_FILTER=test_gives_check */
        cmocka_set_test_filter(getenv("TAVRELI_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_is_linear_and_symmetric),
        cmocka_unit_test(test_eval_features_fire),
        cmocka_unit_test(test_tactical_moves),
        cmocka_unit_test(test_search_quiet),
        cmocka_unit_test(test_features_independent),
        cmocka_unit_test(test_eval_matches_reference),
        cmocka_unit_test(test_eval_incremental),
        cmocka_unit_test(test_quick_generators),
        cmocka_unit_test(test_engine_lists),
        cmocka_unit_test(test_gives_check),
    };
    return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
