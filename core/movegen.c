/* movegen.c: legal move generation (docs/rules.md sections 4-8, options of 10).
 *
 * Every own stack yields, for each square its top tavrel (the mover) can
 * reach, one move per count k = 1..height.  All k share the mover's pattern
 * and destination; they differ only in what stays behind on `from`: nothing
 * (k = height) or a remainder whose top may be an opponent tavrel, freed by
 * the move (and promoted if it is a combatant uncovered on its far rank).
 * Legality is therefore decided per (from, to) with cheap tests in the common
 * case (no check, no pin, own remainder top) and by simulating the move on
 * the bitboards otherwise. */
#include "movegen.h"

#include <string.h>

#include "bitboard.h"

typedef struct {
    const Position *p;
    const Options *o;
    int us, them;
    Bitboard own, opp, occ;
    Bitboard no_land;   /* squares nothing may land on (Wizards) */
    Bitboard blk_us;    /* what stops our sliders */
    Square ksq;         /* our Wizard, TV_NO_SQUARE if none */
    Bitboard pinned;    /* own stacks that alone shield ksq from a slider */
    Bitboard evasion;   /* in check: where a non-Wizard mover may land (all squares otherwise) */
    bool in_check;
    bool capture_mode;  /* ending=capture */
    bool tactical_only; /* movegen_tactical: captures and promotions */
    const uint32_t *kmask; /* movegen_tactical_k: the allowed k of each square */
    MoveList *list;
} Gen;

static inline int far_rank(int colour) { return colour == TV_WHITE ? 7 : 0; }

/* The kind a tavrel acts as when it is the top of square s: an unpromoted
 * combatant uncovered on its far rank is promoted at once. */
static inline Kind effective_kind(Tavrel t, Square s)
{
    Kind k = tavrel_kind(t);
    if (k == TV_COMBATANT && sq_rank(s) == far_rank(tavrel_colour(t)))
        return tavrel_destiny(t);
    return k;
}

/* Whether their tavrels attack square target in the position after a move,
 * given the changed occupancy occ2 and our stacks own2, with their stacks at
 * `gone` covered, and up to two freed tavrels of theirs (kinds xk[i] at
 * xs[i], TV_NONE for none) added. */
static inline __attribute__((always_inline)) bool attacked_after(const Gen *g, Square target, Bitboard occ2, Bitboard own2, Bitboard gone,
                           const Square xs[2], const Kind xk[2])
{
    const Bitboard *k = g->p->by_kind;
    const Bitboard theirs = g->opp & ~gone;
    const Bitboard blk = g->o->slide_over_own ? own2 : occ2;
    for (int i = 0; i < 2; i++)
        if (xk[i] != TV_NONE && (pos_attacks_of(xk[i], g->them, xs[i], blk) & sq_bb(target)))
            return true;
    Bitboard a = (TV_KNIGHT_ATT[target] & (k[TV_HORSEMAN] | k[TV_HELGI])) | (TV_KING_ATT[target] & k[TV_WIZARD]) |
                 (TV_PAWN_ATT[g->us][target] & k[TV_COMBATANT]);
    if (a & theirs)
        return true;
    Bitboard rq = (k[TV_WARRIOR] | k[TV_PRINCE] | k[TV_HELGI]) & theirs;
    if (rq && (bb_rook(target, blk) & rq))
        return true;
    Bitboard bq = (k[TV_ARCHER] | k[TV_PRINCE] | k[TV_HELGI]) & theirs;
    return bq && (bb_bishop(target, blk) & bq);
}

/* Full legality test of (from, to, k) by simulating the move's effect on the
 * occupancy.  `lift` is the en-passant double-stepper's square or
 * TV_NO_SQUARE. */
static bool legal_full(const Gen *g, Square from, Square to, int k, Square lift, bool wizard_mover)
{
    const Position *p = g->p;
    const int h = p->height[from];
    Bitboard f = sq_bb(from), t = sq_bb(to);
    Bitboard occ2 = g->occ | t, own2 = g->own | t, gone = t;
    Square xs[2] = {TV_NO_SQUARE, TV_NO_SQUARE};
    Kind xk[2] = {TV_NONE, TV_NONE};
    if (k == h) {
        occ2 &= ~f;
        own2 &= ~f;
    } else {
        Tavrel r = p->stack[from][h - k - 1];
        if (tavrel_colour(r) != g->us) {
            own2 &= ~f;
            xs[0] = from;
            xk[0] = effective_kind(r, from);
        }
    }
    if (lift != TV_NO_SQUARE) {
        /* The double-stepper leaves `lift`; what it stood on (their own
         * stack, or nothing) is uncovered there. */
        gone |= sq_bb(lift);
        if (p->height[lift] == 1)
            occ2 &= ~sq_bb(lift);
        else {
            xs[1] = lift;
            xk[1] = effective_kind(p->stack[lift][p->height[lift] - 2], lift);
        }
    }
    Square target = wizard_mover ? to : g->ksq;
    if (g->capture_mode) {
        /* Only the Wizard's own step is restricted; it may land on the
         * opponent's Wizard even when that square is attacked. */
        if (!wizard_mover)
            return true;
        if (to == p->wizard[g->them])
            return true;
    }
    return !attacked_after(g, target, occ2, own2, gone, xs, xk);
}

/* In check, the only squares where a moving part whose mover is not the
 * Wizard can end a legal move (en passant aside): a checker's square
 * (landing covers it) or a square between a checker and the Wizard (landing
 * blocks the line).  A move changes nothing else that could stop an attack:
 * what stays on `from` is never less of a blocker than before, except that
 * an opponent top freed there may attack.  Every checker's squares are
 * kept, so a landing that answers two checks at once (slide_over_own: a
 * checker standing on another's line) stays; legality is still decided
 * move by move. */
static Bitboard evasion_squares(const Position *p, const Options *o, Square ksq, int them)
{
    Bitboard checkers = pos_attackers(p, o, ksq, them), e = checkers;
    while (checkers)
        e |= TV_BETWEEN[ksq][bb_pop(&checkers)];
    return e;
}

static inline void push_move(Gen *g, Move m) { g->list->moves[g->list->count++] = m; }

/* Adds every legal k for the mover on `from` going to `to`. */
static inline __attribute__((always_inline)) void add_moves(Gen *g, Square from, Square to, int special, Square lift, bool wizard_mover)
{
    const Position *p = g->p;
    const int h = p->height[from];

    if (g->ksq == TV_NO_SQUARE) { /* no Wizard: never in check */
        for (int k = 1; k <= h; k++)
            push_move(g, move_make(from, to, k, special));
        return;
    }
    if (wizard_mover || lift != TV_NO_SQUARE || g->in_check || g->capture_mode) {
        for (int k = 1; k <= h; k++)
            if (legal_full(g, from, to, k, lift, wizard_mover))
                push_move(g, move_make(from, to, k, special));
        return;
    }

    /* Not in check, an ordinary move of a non-Wizard mover. */
    const Bitboard f = sq_bb(from);
    const bool pinned = (g->pinned & f) != 0;
    for (int k = 1; k < h; k++) {
        Tavrel r = p->stack[from][h - k - 1];
        if (tavrel_colour(r) == g->us) {
            /* From stays covered by our own tavrel: nothing changes for
             * their attacks except that `to` now blocks. */
            push_move(g, move_make(from, to, k, special));
        } else if (pinned) {
            /* A freed opponent top on a pinned square: under slide_over_own
             * their sliders pass over it; simulate. */
            if (legal_full(g, from, to, k, TV_NO_SQUARE, false))
                push_move(g, move_make(from, to, k, special));
        } else {
            Bitboard t = sq_bb(to);
            Bitboard blk = g->o->slide_over_own ? ((g->own & ~f) | t) : (g->occ | t);
            if (!(pos_attacks_of(effective_kind(r, from), g->them, from, blk) & sq_bb(g->ksq)))
                push_move(g, move_make(from, to, k, special));
        }
    }
    /* The whole stack leaves: only a pin can expose the Wizard.  A pinned
     * stack is simulated: under slide_over_own it may even pass over its own
     * Wizard to the far side of the line. */
    if (!pinned || legal_full(g, from, to, h, TV_NO_SQUARE, false))
        push_move(g, move_make(from, to, h, special));
}

/* add_moves for the k of g->kmask[from] only (bit k-1), with one
 * simulation per distinct remainder top where add_moves simulates every k:
 * the positions after (from, k, to) for k < h differ only in the
 * remainder's new top, its colour and, for an opponent tavrel, the kind it
 * acts as.  Kept apart from add_moves so that perft's loops carry no test. */
static __attribute__((noinline)) void add_moves_k(Gen *g, Square from, Square to, int special, Square lift, bool wizard_mover)
{
    const Position *p = g->p;
    const int h = p->height[from];
    uint32_t ks = g->kmask[from] & (h >= 32 ? 0xFFFFFFFFu : ((1u << h) - 1u));
    const bool simulate = g->ksq != TV_NO_SQUARE &&
                          (wizard_mover || lift != TV_NO_SQUARE || g->in_check || g->capture_mode ||
                           (g->pinned & sq_bb(from)));
    signed char own_ok = -1, opp_ok[TV_KIND_COUNT], whole_ok = -1;
    memset(opp_ok, -1, sizeof opp_ok);
    while (ks) {
        const int k = __builtin_ctz(ks) + 1;
        ks &= ks - 1;
        bool ok;
        if (g->ksq == TV_NO_SQUARE)
            ok = true;
        else if (k == h) {
            if (whole_ok < 0)
                whole_ok = !simulate || legal_full(g, from, to, h, lift, wizard_mover);
            ok = whole_ok;
        } else {
            Tavrel r = p->stack[from][h - k - 1];
            signed char *memo = tavrel_colour(r) == g->us ? &own_ok : &opp_ok[effective_kind(r, from)];
            if (*memo < 0) {
                if (simulate)
                    *memo = legal_full(g, from, to, k, lift, wizard_mover);
                else if (tavrel_colour(r) == g->us)
                    *memo = 1; /* from stays covered by our own tavrel */
                else {
                    Bitboard f = sq_bb(from), t = sq_bb(to);
                    Bitboard blk = g->o->slide_over_own ? ((g->own & ~f) | t) : (g->occ | t);
                    *memo = !(pos_attacks_of(effective_kind(r, from), g->them, from, blk) & sq_bb(g->ksq));
                }
            }
            ok = *memo;
        }
        if (ok)
            push_move(g, move_make(from, to, k, special));
    }
}

/* add_moves_k for every target of `from` (ordinary moves, no en passant),
 * with what does not depend on the target found once per stack.  Unless
 * add_moves_k simulates (in check, a Wizard or pinned mover, ending=capture),
 * an own remainder top and the whole stack leaving are legal whatever the
 * target, and a freed opponent top only matters when it attacks the Wizard
 * past the occupancy without the target: then the target may block it (more
 * blockers never add an attack), tested per target.  Measured (callgrind,
 * the quiescence searches of loading a store): 16% fewer instructions for
 * movegen_tactical_k than one add_moves_k call per target. */
static inline __attribute__((always_inline)) void add_targets_k(Gen *g, Square from, Bitboard targets,
                                                                bool wizard_mover)
{
    const Position *p = g->p;
    const int h = p->height[from];
    const Bitboard f = sq_bb(from);
    if (g->ksq != TV_NO_SQUARE && (wizard_mover || g->in_check || g->capture_mode || (g->pinned & f))) {
        while (targets)
            add_moves_k(g, from, bb_pop(&targets), TV_MOVE_NORMAL, TV_NO_SQUARE, wizard_mover);
        return;
    }
    const uint32_t ks = g->kmask[from] & (h >= 32 ? 0xFFFFFFFFu : ((1u << h) - 1u));
    const Bitboard blk0 = g->o->slide_over_own ? (g->own & ~f) : g->occ;
    uint32_t ok = ks, test = 0; /* legal for every target; legal unless the target fails to block */
    if (g->ksq != TV_NO_SQUARE)
        for (uint32_t b = ks & ((1u << (h - 1)) - 1u); b; b &= b - 1) { /* k < h */
            Tavrel r = p->stack[from][h - (__builtin_ctz(b) + 1) - 1];
            if (tavrel_colour(r) != g->us &&
                (pos_attacks_of(effective_kind(r, from), g->them, from, blk0) & sq_bb(g->ksq))) {
                ok &= ~(b & -b);
                test |= b & -b;
            }
        }
    while (targets) {
        const Square to = bb_pop(&targets);
        uint32_t legal = ok;
        for (uint32_t b = test; b; b &= b - 1) {
            Tavrel r = p->stack[from][h - (__builtin_ctz(b) + 1) - 1];
            if (!(pos_attacks_of(effective_kind(r, from), g->them, from, blk0 | sq_bb(to)) & sq_bb(g->ksq)))
                legal |= b & -b;
        }
        for (; legal; legal &= legal - 1)
            push_move(g, move_make(from, to, __builtin_ctz(legal) + 1, TV_MOVE_NORMAL));
    }
}

static void gen_castling(Gen *g)
{
    const Position *p = g->p;
    const int us = g->us;
    const int rank = us == TV_WHITE ? 0 : 7;
    const Square e = sq_make(4, rank);
    const int rk = us == TV_WHITE ? TV_CASTLE_WK : TV_CASTLE_BK;
    const int rq = us == TV_WHITE ? TV_CASTLE_WQ : TV_CASTLE_BQ;
    if (!(p->castling & (rk | rq)) || g->in_check || g->ksq != e || p->height[e] != 1)
        return;
    for (int side = 0; side < 2; side++) {
        if (!(p->castling & (side == 0 ? rk : rq)))
            continue;
        Square corner = sq_make(side == 0 ? 7 : 0, rank);
        Tavrel w = pos_top(p, corner);
        if (p->height[corner] != 1 || tavrel_kind(w) != TV_WARRIOR || tavrel_colour(w) != us ||
            tavrel_is_promoted(w))
            continue;
        Bitboard between = TV_BETWEEN[e][corner];
        if (g->occ & between)
            continue;
        Square cross = sq_make(side == 0 ? 5 : 3, rank), land = sq_make(side == 0 ? 6 : 2, rank);
        if (pos_attacked(p, g->o, cross, g->them) || pos_attacked(p, g->o, land, g->them))
            continue;
        push_move(g, move_make(e, land, 1, side == 0 ? TV_MOVE_CASTLE_SHORT : TV_MOVE_CASTLE_LONG));
    }
}

/* Squares the mover on `from` (top tavrel t, of kind `kind`) reaches by its
 * pattern, without en passant and castling.  t is read only for a
 * combatant. */
static inline __attribute__((always_inline)) Bitboard targets_of_kind(const Gen *g, Square from, Tavrel t, Kind kind)
{
    const Bitboard land = ~g->no_land;
    switch (kind) {
    case TV_WIZARD: return TV_KING_ATT[from] & land;
    case TV_PRINCE: return bb_queen(from, g->blk_us) & land;
    case TV_WARRIOR: return bb_rook(from, g->blk_us) & land;
    case TV_ARCHER: return bb_bishop(from, g->blk_us) & land;
    case TV_HORSEMAN: return TV_KNIGHT_ATT[from] & land;
    case TV_HELGI: return (bb_queen(from, g->blk_us) | TV_KNIGHT_ATT[from]) & land;
    case TV_COMBATANT: {
        Bitboard b = TV_PAWN_ATT[g->us][from] & g->opp & land;
        if (sq_rank(from) == far_rank(g->us))
            return b; /* cannot arise in play: a combatant on its far rank is promoted */
        const int fwd = g->us == TV_WHITE ? 8 : -8;
        const Square a = from + fwd;
        const Bitboard wiz = g->p->by_kind[TV_WIZARD];
        if (!(g->opp & sq_bb(a))) {
            if (!(wiz & sq_bb(a)))
                b |= sq_bb(a);
            if (!tavrel_flag(t)) { /* unmoved: double step */
                const Square a2 = a + fwd;
                if (!((g->opp | wiz) & sq_bb(a2)))
                    b |= sq_bb(a2);
            }
        }
        return b;
    }
    default: return 0;
    }
}

static inline __attribute__((always_inline)) Bitboard targets_of(const Gen *g, Square from, Tavrel t)
{
    return targets_of_kind(g, from, t, tavrel_kind(t));
}

/* Whether the mover on `from` may capture en passant onto X = p->ep, and the
 * double-stepper's square. */
static bool ep_reaches(const Gen *g, Square from, Tavrel t, Square x, Square lift)
{
    Kind kind = tavrel_kind(t);
    if (kind == TV_COMBATANT)
        return (TV_PAWN_ATT[g->us][from] & sq_bb(x)) != 0;
    if (g->o->enpassant != TV_EP_ANY)
        return false;
    /* enpassant=any: judged on the board as if the combatant had stepped
     * once: it stands on X and has left `lift`. */
    Bitboard occ2 = g->occ | sq_bb(x), opp2 = g->opp | sq_bb(x);
    if (g->p->height[lift] == 1) {
        occ2 &= ~sq_bb(lift);
        opp2 &= ~sq_bb(lift);
    }
    Bitboard blk = g->o->slide_over_own ? opp2 : occ2;
    return (pos_attacks_of(kind, g->us, from, blk) & sq_bb(x)) != 0;
}

/* The set-up of both generators (generate and generate_sel): the sides,
 * the squares nothing may land on, check, the evasion squares and the pins.
 * False when the game is already over (ending=capture and a Wizard taken).
 * Forced inline into each, so that perft's generator compiles as it did:
 * generate() has the same instructions but for the choice of registers
 * (objdump, -O3), and `tavreli bench perft` against the build before the
 * sharing, 10 runs each in turn, took 0.998 times its CPU time (median
 * ratio; 0.93 to 1.14 on a machine at load average 25 to 35).  generate_sel
 * sets kmask itself: storing it for generate too cost a store per call. */
/* known_check: pos_in_check(p, o) when the caller has it (0 or 1), -1 to
 * compute it here. */
static inline __attribute__((always_inline)) bool gen_start(Gen *gp, const Position *p, const Options *o,
                                                            MoveList *list, bool tactical_only, int known_check)
{
    gp->tactical_only = tactical_only;
    gp->p = p;
    gp->o = o;
    gp->us = p->side;
    gp->them = p->side ^ 1;
    gp->own = p->by_colour[gp->us];
    gp->opp = p->by_colour[gp->them];
    gp->occ = p->occ;
    gp->capture_mode = o->ending == TV_ENDING_CAPTURE;
    gp->list = list;
    list->count = 0;
    if (gp->capture_mode && (pos_wizard_captured(p, TV_WHITE) || pos_wizard_captured(p, TV_BLACK)))
        return false; /* the game is over */

    const Bitboard wizards = p->by_kind[TV_WIZARD];
    gp->no_land = gp->capture_mode ? (wizards & gp->own) : wizards;
    gp->blk_us = o->slide_over_own ? gp->opp : gp->occ;
    gp->ksq = p->wizard[gp->us];
    gp->pinned = 0;
    gp->in_check = false;
    gp->evasion = ~0ull;
    if (gp->ksq != TV_NO_SQUARE) {
        /* pos_in_check's answer: the Wizard is on ksq (a captured one ended
         * the game above, and only ending=capture lands on a Wizard) */
        gp->in_check = known_check >= 0 ? known_check != 0 : pos_attacked(p, o, gp->ksq, gp->them);
        if (gp->in_check && !gp->capture_mode)
            gp->evasion = evasion_squares(p, o, gp->ksq, gp->them);
        /* Pins: one of our stacks alone between the Wizard and one of their
         * sliders (their sliders are stopped by every stack, or only by ours
         * under slide_over_own). */
        const Bitboard *k = p->by_kind;
        Bitboard snipers = ((bb_rook(gp->ksq, 0) & (k[TV_WARRIOR] | k[TV_PRINCE] | k[TV_HELGI])) |
                            (bb_bishop(gp->ksq, 0) & (k[TV_ARCHER] | k[TV_PRINCE] | k[TV_HELGI]))) &
                           gp->opp;
        const Bitboard blk_them = o->slide_over_own ? gp->own : gp->occ;
        while (snipers) {
            Square s = bb_pop(&snipers);
            Bitboard b = TV_BETWEEN[gp->ksq][s] & blk_them;
            if (b && !bb_more_than_one(b) && (b & gp->own))
                gp->pinned |= b;
        }
    }
    return true;
}

/* The en-passant target X of p and the square `lift` its double-stepper
 * stands on, when a capture there is possible: the double-stepper is there
 * and nothing lands on a Wizard.  False otherwise. */
static inline __attribute__((always_inline)) bool gen_ep(const Gen *g, Square *x, Square *lift)
{
    const Position *p = g->p;
    *x = p->ep;
    *lift = TV_NO_SQUARE;
    if (*x == TV_NO_SQUARE)
        return false;
    *lift = g->us == TV_WHITE ? *x - 8 : *x + 8;
    Tavrel xt = pos_top(p, *x), lt = pos_top(p, *lift);
    return tavrel_kind(lt) == TV_COMBATANT && tavrel_colour(lt) == g->them && !(xt && tavrel_kind(xt) == TV_WIZARD);
}

static void generate(const Position *p, const Options *o, MoveList *list, bool tactical_only)
{
    Gen g;
    if (!gen_start(&g, p, o, list, tactical_only, -1))
        return;
    Square x = p->ep, lift = TV_NO_SQUARE;
    const bool ep_possible = gen_ep(&g, &x, &lift);

    Bitboard stacks = g.own;
    while (stacks) {
        Square from = bb_pop(&stacks);
        Tavrel t = pos_top(p, from);
        Bitboard targets = targets_of(&g, from, t);
        bool wizard_mover = tavrel_kind(t) == TV_WIZARD;
        if (tactical_only) {
            /* onto opponent stacks; a combatant also onto its far rank */
            Bitboard keep = g.opp;
            if (tavrel_kind(t) == TV_COMBATANT)
                keep |= 0xFFull << (8 * far_rank(g.us));
            targets &= keep;
        }
        if (ep_possible && ep_reaches(&g, from, t, x, lift)) {
            targets &= ~sq_bb(x); /* the move onto X is the en-passant capture */
            add_moves(&g, from, x, TV_MOVE_ENPASSANT, lift, wizard_mover);
        }
        if (!wizard_mover)
            targets &= g.evasion;
        while (targets) {
            Square to = bb_pop(&targets);
            add_moves(&g, from, to, TV_MOVE_NORMAL, TV_NO_SQUARE, wizard_mover);
        }
    }
    if (!tactical_only)
        gen_castling(&g);
}

void movegen_legal(const Position *p, const Options *o, MoveList *list) { generate(p, o, list, false); }

void movegen_tactical(const Position *p, const Options *o, MoveList *list) { generate(p, o, list, true); }

/* generate_sel's first pass for the stacks of one kind (a constant once
 * inlined, so that targets_of_kind has no switch): the targets of each
 * stack, restricted to keep, into tg; returns the stacks that have any. */
static inline __attribute__((always_inline)) Bitboard sel_targets(const Gen *g, Bitboard stacks, Kind kind,
                                                                  Bitboard keep, Bitboard tg[64])
{
    Bitboard movers = 0;
    stacks &= g->p->by_kind[kind];
    while (stacks) {
        Square from = bb_pop(&stacks);
        Bitboard targets = targets_of_kind(g, from, pos_top(g->p, from), kind) & keep;
        tg[from] = targets;
        if (targets)
            movers |= sq_bb(from);
    }
    return movers;
}

/* sel_targets for combatants that can only capture (for tactical_only: no
 * step of theirs reaches the far rank): the captures onto `onto`, which
 * holds opponent stacks only. */
static inline __attribute__((always_inline)) Bitboard sel_captures(const Gen *g, Bitboard stacks, Bitboard onto,
                                                                   Bitboard tg[64])
{
    Bitboard movers = 0;
    stacks &= g->p->by_kind[TV_COMBATANT];
    while (stacks) {
        Square from = bb_pop(&stacks);
        Bitboard targets = TV_PAWN_ATT[g->us][from] & onto;
        tg[from] = targets;
        if (targets)
            movers |= sq_bb(from);
    }
    return movers;
}

/* generate for the engine: tactical_only keeps captures and promotions;
 * kmask (NULL for every k) chooses the k per square; from_mask and to_mask
 * restrict the moving stacks and the destinations; castling adds the
 * castlings.  The set-up is generate's (gen_start, gen_ep).  The moves are
 * generate's, in its order, found in two passes: the targets of every stack,
 * kind by kind, then the moves of the stacks that have any (or of every
 * stack when en passant is possible), by ascending square as generate.
 * Kept apart from generate so that perft's generator stays as it was
 * compiled (measured: folding these options into generate cost perft 15%).
 * The two passes save the switch on the mover's kind per stack and the
 * work per stack for the many that have no capture (or, in check, no
 * evasion): measured (callgrind, the quiescence searches of loading a
 * store), 15% fewer instructions for movegen_tactical_k than one loop over
 * the stacks as generate's. */
static inline __attribute__((always_inline)) void generate_sel(const Position *p, const Options *o, MoveList *list,
                                                               bool tactical_only, const uint32_t *kmask,
                                                               Bitboard from_mask, Bitboard to_mask, bool castling,
                                                               int known_check)
{
    Gen g;
    g.kmask = kmask;
    if (!gen_start(&g, p, o, list, tactical_only, known_check))
        return;
    Square x = p->ep, lift = TV_NO_SQUARE;
    const bool ep_possible = x != TV_NO_SQUARE && (to_mask & sq_bb(x)) && gen_ep(&g, &x, &lift);

    /* generate's masks: tactical_only keeps landings on opponent stacks and a
     * combatant's on its far rank; a mover other than the Wizard lands on
     * an evasion square (en passant aside: added in the second pass) */
    const Bitboard stacks = g.own & from_mask;
    const Bitboard keep = tactical_only ? g.opp & to_mask : to_mask;
    const Bitboard keep_comb = tactical_only ? (g.opp | (0xFFull << (8 * far_rank(g.us)))) & to_mask : to_mask;
    Bitboard tg[64];
    Bitboard movers = sel_targets(&g, stacks, TV_WIZARD, keep, tg);
    movers |= sel_targets(&g, stacks, TV_PRINCE, keep & g.evasion, tg);
    movers |= sel_targets(&g, stacks, TV_WARRIOR, keep & g.evasion, tg);
    movers |= sel_targets(&g, stacks, TV_ARCHER, keep & g.evasion, tg);
    movers |= sel_targets(&g, stacks, TV_HORSEMAN, keep & g.evasion, tg);
    movers |= sel_targets(&g, stacks, TV_HELGI, keep & g.evasion, tg);
    if (tactical_only) {
        /* A combatant neither one nor two ranks before its far rank keeps
         * only its captures: its steps (one rank, or two unmoved) land on no
         * opponent stack and off the far rank (on the far rank it has no
         * step).  Measured (callgrind, the quiescence searches of loading a
         * store): 16% fewer instructions for movegen_tactical_k than
         * sel_targets for every combatant. */
        const Bitboard near = g.us == TV_WHITE ? 0x00FFFF0000000000ull : 0x0000000000FFFF00ull;
        movers |= sel_targets(&g, stacks & near, TV_COMBATANT, keep_comb & g.evasion, tg);
        movers |= sel_captures(&g, stacks & ~near, g.opp & ~g.no_land & keep & g.evasion, tg);
    } else
        movers |= sel_targets(&g, stacks, TV_COMBATANT, keep_comb & g.evasion, tg);

    Bitboard visit = ep_possible ? stacks : movers;
    while (visit) {
        Square from = bb_pop(&visit);
        Tavrel t = pos_top(p, from);
        Bitboard targets = tg[from];
        bool wizard_mover = tavrel_kind(t) == TV_WIZARD;
        if (ep_possible && ep_reaches(&g, from, t, x, lift)) {
            targets &= ~sq_bb(x);
            if (kmask)
                add_moves_k(&g, from, x, TV_MOVE_ENPASSANT, lift, wizard_mover);
            else
                add_moves(&g, from, x, TV_MOVE_ENPASSANT, lift, wizard_mover);
        }
        if (kmask)
            add_targets_k(&g, from, targets, wizard_mover);
        else
            while (targets) {
                Square to = bb_pop(&targets);
                add_moves(&g, from, to, TV_MOVE_NORMAL, TV_NO_SQUARE, wizard_mover);
            }
    }
    if (castling && !tactical_only)
        gen_castling(&g);
}

void movegen_tactical_k(const Position *p, const Options *o, const uint32_t kmask[64], bool in_check, MoveList *list)
{
    generate_sel(p, o, list, true, kmask, ~0ull, ~0ull, false, in_check);
}

/* movegen_legal through generate_sel, whose first pass drops at once the
 * many stacks that reach no evasion square; no castling (never in check).
 * Measured (callgrind, the quiescence searches of loading a store): 11%
 * fewer instructions than movegen_legal in the same positions.  Memoising
 * legal_full per remainder top as add_moves_k does (every k allowed) cost
 * 30% more when tried: in these positions it saves a tenth of the
 * simulations (most are the steps of a Wizard alone on its square). */
void movegen_evasions(const Position *p, const Options *o, MoveList *list)
{
    generate_sel(p, o, list, false, NULL, ~0ull, ~0ull, false, 1);
}

/* generate_sel for movegen_check_move, compiled once for its two calls. */
static __attribute__((noinline)) void generate_part(const Position *p, const Options *o, MoveList *list,
                                                    Bitboard from_mask, Bitboard to_mask, bool castling)
{
    generate_sel(p, o, list, false, NULL, from_mask, to_mask, castling, -1);
}

bool movegen_check_move(const Position *p, const Options *o, Move m)
{
    if (m == TV_MOVE_NONE)
        return false;
    MoveList list; /* at most one stack's moves to one square (or the castlings) */
    if (move_is_castling(m))
        generate_part(p, o, &list, 0, 0, true);
    else
        generate_part(p, o, &list, sq_bb(move_from(m)), sq_bb(move_to(m)), false);
    for (int i = 0; i < list.count; i++)
        if (list.moves[i] == m)
            return true;
    return false;
}

/* The tops after a move, as bitboards: what movegen_gives_check needs. */
typedef struct {
    Bitboard colour[2];
    Bitboard kind[TV_KIND_COUNT];
} Tops;

static inline void tops_clear(Tops *t, Square s)
{
    Bitboard b = ~sq_bb(s);
    t->colour[0] &= b;
    t->colour[1] &= b;
    for (int k = 0; k < TV_KIND_COUNT; k++)
        t->kind[k] &= b;
}

/* Puts tavrel x (as the kind it acts as on s) on top of s. */
static inline void tops_set(Tops *t, Square s, Tavrel x)
{
    tops_clear(t, s);
    t->colour[tavrel_colour(x)] |= sq_bb(s);
    t->kind[effective_kind(x, s)] |= sq_bb(s);
}

bool movegen_gives_check(const Position *p, const Options *o, Move m)
{
    const int us = p->side, them = us ^ 1;
    const Square wsq = p->wizard[them];
    if (wsq == TV_NO_SQUARE || pos_wizard_captured(p, them))
        return false;
    const Square from = move_from(m), to = move_to(m);
    if (o->ending == TV_ENDING_CAPTURE && to == wsq)
        return false; /* the Wizard is landed on: the game is over, not a check */
    Tops t;
    t.colour[0] = p->by_colour[0];
    t.colour[1] = p->by_colour[1];
    for (int k = 0; k < TV_KIND_COUNT; k++)
        t.kind[k] = p->by_kind[k];
    if (move_is_castling(m)) {
        const int rank = us == TV_WHITE ? 0 : 7;
        const bool short_side = move_special(m) == TV_MOVE_CASTLE_SHORT;
        const Square rfrom = sq_make(short_side ? 7 : 0, rank), rto = sq_make(short_side ? 5 : 3, rank);
        tops_set(&t, to, pos_top(p, from));
        tops_set(&t, rto, pos_top(p, rfrom));
        tops_clear(&t, from);
        tops_clear(&t, rfrom);
    } else {
        const int h = p->height[from], k = move_k(m);
        const Tavrel mover = p->stack[from][h - 1]; /* a combatant promotes on its far rank */
        if (move_special(m) == TV_MOVE_ENPASSANT) {
            const Square lift = us == TV_WHITE ? to - 8 : to + 8;
            if (p->height[lift] >= 2)
                tops_set(&t, lift, p->stack[lift][p->height[lift] - 2]);
            else
                tops_clear(&t, lift);
        }
        if (k < h)
            tops_set(&t, from, p->stack[from][h - k - 1]);
        else
            tops_clear(&t, from);
        tops_set(&t, to, mover);
    }
    /* our attackers of their Wizard on the new tops */
    const Bitboard occ = t.colour[0] | t.colour[1];
    const Bitboard blk = o->slide_over_own ? t.colour[them] : occ;
    const Bitboard *k = t.kind;
    Bitboard a = (TV_KNIGHT_ATT[wsq] & (k[TV_HORSEMAN] | k[TV_HELGI])) | (TV_KING_ATT[wsq] & k[TV_WIZARD]) |
                 (TV_PAWN_ATT[them][wsq] & k[TV_COMBATANT]) |
                 (bb_rook(wsq, blk) & (k[TV_WARRIOR] | k[TV_PRINCE] | k[TV_HELGI])) |
                 (bb_bishop(wsq, blk) & (k[TV_ARCHER] | k[TV_PRINCE] | k[TV_HELGI]));
    return (a & t.colour[us]) != 0;
}

int movegen_count(const Position *p, const Options *o)
{
    MoveList list;
    movegen_legal(p, o, &list);
    return list.count;
}

bool movegen_is_legal(const Position *p, const Options *o, Move m)
{
    MoveList list;
    movegen_legal(p, o, &list);
    for (int i = 0; i < list.count; i++)
        if (list.moves[i] == m)
            return true;
    return false;
}

const char *game_state_name(GameState s)
{
    switch (s) {
    case TV_STATE_ONGOING: return "ongoing";
    case TV_STATE_CHECKMATE: return "checkmate";
    case TV_STATE_STALEMATE: return "stalemate";
    case TV_STATE_REPETITION: return "repetition";
    case TV_STATE_WIZARD_CAPTURED: return "wizard-captured";
    }
    return "unknown";
}

GameState movegen_state(const Position *p, const Options *o)
{
    if (o->ending == TV_ENDING_CAPTURE && pos_wizard_captured(p, p->side))
        return TV_STATE_WIZARD_CAPTURED;
    if (movegen_count(p, o) > 0)
        return TV_STATE_ONGOING;
    return pos_in_check(p, o) ? TV_STATE_CHECKMATE : TV_STATE_STALEMATE;
}
