/* position.c: stacks, derived bitboards, Zobrist hashing, attacks and
 * make/unmake.  docs/rules.md sections 3, 4, 6 (promotion, demotion), 7 and 8. */
#include "position.h"

#include <stdio.h>
#include <string.h>

#include "bitboard.h"

/* ---- Zobrist keys ----------------------------------------------------------
 * A key per (square, level, tavrel byte) would need a 4 MB table; instead each
 * key is a strong 64-bit mix of its coordinates, computed on demand.  The mix
 * is a bijection (murmur3's finaliser), so distinct inputs give distinct
 * keys. */
static inline uint64_t mix64(uint64_t z)
{
    z ^= z >> 33;
    z *= 0xff51afd7ed558ccdull;
    z ^= z >> 33;
    z *= 0xc4ceb9fe1a85ec53ull;
    z ^= z >> 33;
    return z;
}

uint64_t zobrist_tavrel(Square s, int level, Tavrel t)
{
    return mix64(((uint64_t)(s * TV_MAX_HEIGHT + level) << 8 | t) + 0x9e3779b97f4a7c15ull);
}
uint64_t zobrist_side(void) { return mix64(0x1000001ull); }
uint64_t zobrist_castling(int rights) { return rights ? mix64(0x2000000ull + (uint64_t)rights) : 0; }
uint64_t zobrist_ep(Square s) { return mix64(0x3000000ull + (uint64_t)s); }

/* ---- derived state ---------------------------------------------------------- */

static inline void top_bits_clear(Position *p, Square s)
{
    if (p->height[s]) {
        Tavrel t = p->stack[s][p->height[s] - 1];
        Bitboard b = sq_bb(s);
        p->occ ^= b;
        p->by_colour[tavrel_colour(t)] ^= b;
        p->by_kind[tavrel_kind(t)] ^= b;
    }
}

static inline void top_bits_set(Position *p, Square s)
{
    if (p->height[s]) {
        Tavrel t = p->stack[s][p->height[s] - 1];
        Bitboard b = sq_bb(s);
        p->occ |= b;
        p->by_colour[tavrel_colour(t)] |= b;
        p->by_kind[tavrel_kind(t)] |= b;
    }
}

/* The hash's keys besides the tavrels: side to move, rights, en passant. */
static uint64_t hash_state(const Position *p)
{
    uint64_t h = zobrist_castling(p->castling);
    if (p->side == TV_BLACK)
        h ^= zobrist_side();
    if (p->ep != TV_NO_SQUARE)
        h ^= zobrist_ep(p->ep);
    return h;
}

void pos_clear(Position *p)
{
    /* Every byte zero (the stacks above their heights stay zero, as
     * pos_is_ok checks), in two halves: glibc's memset takes rep stosb above
     * 2 KB, and for the 2,240 bytes of a Position that took 57 ns against 30
     * ns for two calls under 2 KB (its vector loop; Zen 3), and callgrind
     * counted 2,256 instructions against about 100 per tfen_read. */
    const size_t half = offsetof(Position, stack[32]); /* height[] and the stacks of a1 to h4 */
    memset(p, 0, half);
    memset((char *)p + half, 0, sizeof *p - half);
    p->wizard[0] = p->wizard[1] = TV_NO_SQUARE;
    p->ep = TV_NO_SQUARE;
    p->side = TV_WHITE;
    p->move_number = 1;
    p->hash = 0; /* pos_compute_hash of the empty board, White to move, no rights, no en passant */
}

void pos_set_start(Position *p)
{
    static const Kind back[8] = {TV_WARRIOR, TV_HORSEMAN, TV_ARCHER, TV_PRINCE,
                                 TV_WIZARD,  TV_ARCHER,   TV_HORSEMAN, TV_WARRIOR};
    static const Kind destiny[8] = {TV_WARRIOR, TV_HORSEMAN, TV_ARCHER, TV_PRINCE,
                                    TV_HELGI,   TV_ARCHER,   TV_HORSEMAN, TV_WARRIOR};
    pos_clear(p);
    for (int f = 0; f < 8; f++) {
        pos_setup_push(p, sq_make(f, 0), tavrel_make(TV_WHITE, back[f], TV_NONE, false));
        pos_setup_push(p, sq_make(f, 1), tavrel_make(TV_WHITE, TV_COMBATANT, destiny[f], false));
        pos_setup_push(p, sq_make(f, 6), tavrel_make(TV_BLACK, TV_COMBATANT, destiny[f], false));
        pos_setup_push(p, sq_make(f, 7), tavrel_make(TV_BLACK, back[f], TV_NONE, false));
    }
    p->castling = TV_CASTLE_WK | TV_CASTLE_WQ | TV_CASTLE_BK | TV_CASTLE_BQ;
    pos_refresh(p);
}

/* The squares whose height is not 0, eight bytes of height[] at a time: a
 * byte's top bit is set by adding 0x7f to its low seven bits or by its own
 * top bit (no carry leaves a byte), and the multiply gathers the eight top
 * bits (at bits 8k) into bits 56 + k. */
static inline Bitboard occupied_squares(const uint8_t height[64])
{
    Bitboard occ = 0;
    for (int w = 0; w < 8; w++) {
        const uint8_t *h = height + 8 * w;
        /* byte k at bits 8k on any machine; one load where little-endian */
        uint64_t x = (uint64_t)h[0] | (uint64_t)h[1] << 8 | (uint64_t)h[2] << 16 | (uint64_t)h[3] << 24 |
                     (uint64_t)h[4] << 32 | (uint64_t)h[5] << 40 | (uint64_t)h[6] << 48 | (uint64_t)h[7] << 56;
        uint64_t top = (((x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | x) & 0x8080808080808080ull;
        occ |= ((top >> 7) * 0x0102040810204080ull >> 56) << 8 * w;
    }
    return occ;
}

void pos_refresh(Position *p)
{
    /* accumulated in locals, stored once: stores through p inside the loop
     * would be reloaded after every write to the stacks' bytes (aliasing) */
    Bitboard occ = occupied_squares(p->height), by_colour[2] = {0, 0}, by_kind[TV_KIND_COUNT] = {0};
    Square wizard[2] = {TV_NO_SQUARE, TV_NO_SQUARE};
    uint64_t h = 0; /* pos_compute_hash, in the same pass (it was a second pass over every tavrel) */
    /* Only the occupied squares, in increasing order as before (the last
     * Wizard found wins): testing all 64 heights cost about 500 of the 1,670
     * instructions per call in tfen_read, and a mispredicted branch per
     * empty run. */
    for (Bitboard rest = occ; rest; rest &= rest - 1) {
        const Square s = bb_lsb(rest);
        const int height = p->height[s];
        const Tavrel *st = p->stack[s];
        Tavrel top = st[height - 1];
        Bitboard b = sq_bb(s);
        by_colour[tavrel_colour(top)] |= b;
        by_kind[tavrel_kind(top)] |= b;
        for (int i = 0; i < height; i++) {
            Tavrel t = st[i];
            if (tavrel_kind(t) == TV_WIZARD)
                wizard[tavrel_colour(t)] = s;
            h ^= zobrist_tavrel(s, i, t);
        }
    }
    p->occ = occ;
    memcpy(p->by_colour, by_colour, sizeof by_colour);
    memcpy(p->by_kind, by_kind, sizeof by_kind);
    p->wizard[0] = wizard[0];
    p->wizard[1] = wizard[1];
    p->hash = h ^ hash_state(p);
}

uint64_t pos_compute_hash(const Position *p)
{
    uint64_t h = 0;
    for (Square s = 0; s < 64; s++)
        for (int i = 0; i < p->height[s]; i++)
            h ^= zobrist_tavrel(s, i, p->stack[s][i]);
    return h ^ hash_state(p);
}

bool pos_is_ok(const Position *p, char *why, size_t why_len)
{
    Position q = *p;
    pos_refresh(&q);
    const char *bad = NULL;
    if (q.occ != p->occ || q.by_colour[0] != p->by_colour[0] || q.by_colour[1] != p->by_colour[1] ||
        memcmp(q.by_kind, p->by_kind, sizeof q.by_kind) != 0)
        bad = "bitboards disagree with the stacks";
    else if (q.hash != p->hash)
        bad = "incremental hash differs from the recomputed one";
    else if (q.wizard[0] != p->wizard[0] || q.wizard[1] != p->wizard[1])
        bad = "Wizard squares disagree with the stacks";
    else if (pos_tavrel_count(p) > TV_MAX_TAVRELS)
        bad = "more than 32 tavrels";
    else
        for (Square s = 0; s < 64 && !bad; s++) {
            if (p->height[s] > TV_MAX_HEIGHT)
                bad = "stack taller than 32";
            for (int i = 0; i < p->height[s] && !bad; i++)
                if (tavrel_kind(p->stack[s][i]) == TV_NONE)
                    bad = "a stack holds an empty tavrel";
            for (int i = p->height[s]; i < TV_MAX_HEIGHT && !bad; i++)
                if (p->stack[s][i] != 0)
                    bad = "stale bytes above a stack";
        }
    if (bad && why)
        snprintf(why, why_len, "%s", bad);
    return bad == NULL;
}

bool pos_equal(const Position *a, const Position *b)
{
    if (memcmp(a->height, b->height, sizeof a->height) != 0)
        return false;
    for (Square s = 0; s < 64; s++)
        if (memcmp(a->stack[s], b->stack[s], a->height[s]) != 0)
            return false;
    return a->occ == b->occ && a->by_colour[0] == b->by_colour[0] && a->by_colour[1] == b->by_colour[1] &&
           memcmp(a->by_kind, b->by_kind, sizeof a->by_kind) == 0 && a->wizard[0] == b->wizard[0] &&
           a->wizard[1] == b->wizard[1] && a->side == b->side && a->castling == b->castling &&
           a->ep == b->ep && a->quiet_plies == b->quiet_plies && a->move_number == b->move_number &&
           a->hash == b->hash;
}

int pos_tavrel_count(const Position *p)
{
    int n = 0;
    for (Square s = 0; s < 64; s++)
        n += p->height[s];
    return n;
}

/* ---- attacks ------------------------------------------------------------------ */

Bitboard pos_attacks_of(Kind kind, int colour, Square s, Bitboard blockers)
{
    return bb_attacks(kind, colour, s, blockers);
}

Bitboard pos_attackers(const Position *p, const Options *o, Square s, int by)
{
    const Bitboard *k = p->by_kind;
    Bitboard blockers = o->slide_over_own ? p->by_colour[by ^ 1] : p->occ;
    Bitboard a = (TV_KNIGHT_ATT[s] & (k[TV_HORSEMAN] | k[TV_HELGI])) | (TV_KING_ATT[s] & k[TV_WIZARD]) |
                 (TV_PAWN_ATT[by ^ 1][s] & k[TV_COMBATANT]) |
                 (bb_rook(s, blockers) & (k[TV_WARRIOR] | k[TV_PRINCE] | k[TV_HELGI])) |
                 (bb_bishop(s, blockers) & (k[TV_ARCHER] | k[TV_PRINCE] | k[TV_HELGI]));
    return a & p->by_colour[by];
}

bool pos_attacked(const Position *p, const Options *o, Square s, int by)
{
    return pos_attackers(p, o, s, by) != 0;
}

bool pos_wizard_captured(const Position *p, int colour)
{
    Square w = p->wizard[colour];
    if (w == TV_NO_SQUARE)
        return false;
    Tavrel t = pos_top(p, w);
    return !(tavrel_kind(t) == TV_WIZARD && tavrel_colour(t) == colour);
}

bool pos_in_check(const Position *p, const Options *o)
{
    Square w = p->wizard[p->side];
    if (w == TV_NO_SQUARE || pos_wizard_captured(p, p->side))
        return false;
    return pos_attacked(p, o, w, p->side ^ 1);
}

/* ---- make / unmake ------------------------------------------------------------ */

/* Castling rights kept when the whole stack leaves a square (or the Wizard
 * leaves e1/e8). */
static int rights_kept(Square from)
{
    switch (from) {
    case 0: return ~TV_CASTLE_WQ;                  /* a1 */
    case 7: return ~TV_CASTLE_WK;                  /* h1 */
    case 4: return ~(TV_CASTLE_WK | TV_CASTLE_WQ); /* e1 */
    case 56: return ~TV_CASTLE_BQ;                 /* a8 */
    case 63: return ~TV_CASTLE_BK;                 /* h8 */
    case 60: return ~(TV_CASTLE_BK | TV_CASTLE_BQ); /* e8 */
    default: return ~0;
    }
}

static inline int far_rank(int colour) { return colour == TV_WHITE ? 7 : 0; }

/* Promotes the top of s if it is an unpromoted combatant on its far rank. */
static inline void promote_top(Position *p, Square s)
{
    int h = p->height[s];
    if (!h)
        return;
    Tavrel t = p->stack[s][h - 1];
    if (tavrel_kind(t) == TV_COMBATANT && sq_rank(s) == far_rank(tavrel_colour(t))) {
        Tavrel n = tavrel_promoted(t);
        p->hash ^= zobrist_tavrel(s, h - 1, t) ^ zobrist_tavrel(s, h - 1, n);
        p->stack[s][h - 1] = n;
    }
}

/* Demotes the top of s (about to be covered) if it is a promoted combatant. */
static inline void demote_top(Position *p, Square s)
{
    int h = p->height[s];
    if (!h)
        return;
    Tavrel t = p->stack[s][h - 1];
    if (tavrel_is_promoted(t)) {
        Tavrel n = tavrel_demoted(t);
        p->hash ^= zobrist_tavrel(s, h - 1, t) ^ zobrist_tavrel(s, h - 1, n);
        p->stack[s][h - 1] = n;
    }
}

/* Pushes one tavrel on s, keeping the hash (not the bitboards). */
static inline void push_one(Position *p, Square s, Tavrel t)
{
    int h = p->height[s]++;
    p->stack[s][h] = t;
    p->hash ^= zobrist_tavrel(s, h, t);
}

static inline Tavrel pop_one(Position *p, Square s)
{
    int h = --p->height[s];
    Tavrel t = p->stack[s][h];
    p->stack[s][h] = 0;
    p->hash ^= zobrist_tavrel(s, h, t);
    return t;
}

/* The Wizard's and the Warrior's squares of castling m by side us. */
static void castling_squares(int us, Move m, Square *wfrom, Square *wto, Square *rfrom, Square *rto)
{
    int rank = us == TV_WHITE ? 0 : 7;
    bool short_side = move_special(m) == TV_MOVE_CASTLE_SHORT;
    *wfrom = sq_make(4, rank);
    *wto = sq_make(short_side ? 6 : 2, rank);
    *rfrom = sq_make(short_side ? 7 : 0, rank);
    *rto = sq_make(short_side ? 5 : 3, rank);
}

static void make_castling(Position *p, Move m)
{
    int us = p->side;
    Square wfrom, wto, rfrom, rto;
    castling_squares(us, m, &wfrom, &wto, &rfrom, &rto);
    top_bits_clear(p, wfrom);
    top_bits_clear(p, rfrom);
    push_one(p, wto, pop_one(p, wfrom));
    push_one(p, rto, pop_one(p, rfrom));
    top_bits_set(p, wto);
    top_bits_set(p, rto);
    p->wizard[us] = wto;
}

static void unmake_castling(Position *p, Move m)
{
    int us = p->side; /* already restored */
    Square wfrom, wto, rfrom, rto;
    castling_squares(us, m, &wfrom, &wto, &rfrom, &rto);
    top_bits_clear(p, wto);
    top_bits_clear(p, rto);
    p->stack[wfrom][p->height[wfrom]++] = p->stack[wto][--p->height[wto]];
    p->stack[wto][p->height[wto]] = 0;
    p->stack[rfrom][p->height[rfrom]++] = p->stack[rto][--p->height[rto]];
    p->stack[rto][p->height[rto]] = 0;
    top_bits_set(p, wfrom);
    top_bits_set(p, rfrom);
    p->wizard[us] = wfrom;
}

void pos_make_move(Position *p, Move m, Undo *u)
{
    const int us = p->side;
    const Square from = move_from(m), to = move_to(m);
    const int k = move_k(m), special = move_special(m);

    u->move = m;
    u->hash = p->hash;
    u->castling = p->castling;
    u->ep = p->ep;
    u->quiet_plies = p->quiet_plies;
    u->move_number = p->move_number;
    u->captured_wizard = TV_NO_SQUARE;

    if (p->ep != TV_NO_SQUARE)
        p->hash ^= zobrist_ep(p->ep);
    p->ep = TV_NO_SQUARE;

    if (special >= TV_MOVE_CASTLE_SHORT) {
        make_castling(p, m);
        p->castling &= us == TV_WHITE ? ~(TV_CASTLE_WK | TV_CASTLE_WQ) : ~(TV_CASTLE_BK | TV_CASTLE_BQ);
        p->quiet_plies++;
    } else {
        const int h = p->height[from];
        const int base = h - k;
        const Tavrel mover = p->stack[from][h - 1];
        bool reset_quiet = special == TV_MOVE_ENPASSANT;

        memcpy(u->moved, &p->stack[from][base], (size_t)k);
        u->from_top = base > 0 ? p->stack[from][base - 1] : 0;
        u->to_top = pos_top(p, to);

        top_bits_clear(p, from);
        top_bits_clear(p, to);
        for (int i = h - 1; i >= base; i--)
            pop_one(p, from);

        if (special == TV_MOVE_ENPASSANT) {
            /* The double-stepper is lifted off its landing square and put on
             * top of X (= to), as if it had stepped once. */
            Square lift = us == TV_WHITE ? to - 8 : to + 8;
            u->lift_sq = lift;
            u->x_top = u->to_top;
            top_bits_clear(p, lift);
            u->lifted = pop_one(p, lift);
            top_bits_set(p, lift);
            demote_top(p, to);
            push_one(p, to, u->lifted);
        } else {
            if (u->to_top) {
                if (tavrel_colour(u->to_top) != us) {
                    reset_quiet = true;
                    if (tavrel_kind(u->to_top) == TV_WIZARD)
                        u->captured_wizard = to; /* ending=capture only */
                }
                demote_top(p, to);
            }
        }
        for (int i = 0; i < k; i++) {
            Tavrel t = u->moved[i];
            if (tavrel_kind(t) == TV_COMBATANT) {
                t |= TV_FLAG_BIT; /* carried or moving: it has moved */
                reset_quiet = true;
            }
            push_one(p, to, t);
        }
        promote_top(p, to);
        promote_top(p, from);
        top_bits_set(p, from);
        top_bits_set(p, to);

        if (tavrel_kind(mover) == TV_WIZARD)
            p->wizard[us] = to;
        if (k == h)
            p->castling &= rights_kept(from);
        if (tavrel_is_unmoved_combatant(mover) && (to - from == 16 || from - to == 16)) {
            p->ep = (from + to) / 2;
            p->hash ^= zobrist_ep(p->ep);
        }
        p->quiet_plies = reset_quiet ? 0 : p->quiet_plies + 1;
    }

    if (p->castling != u->castling) /* the keys are computed, not looked up: only when the rights change */
        p->hash ^= zobrist_castling(u->castling) ^ zobrist_castling(p->castling);
    p->hash ^= zobrist_side();
    if (us == TV_BLACK)
        p->move_number++;
    p->side = us ^ 1;
}

void pos_unmake_move(Position *p, const Undo *u)
{
    const Move m = u->move;
    const int us = p->side ^ 1;
    p->side = us;
    p->castling = u->castling;
    p->ep = u->ep;
    p->quiet_plies = u->quiet_plies;
    p->move_number = u->move_number;

    if (move_special(m) >= TV_MOVE_CASTLE_SHORT) {
        unmake_castling(p, m);
        p->hash = u->hash;
        return;
    }

    const Square from = move_from(m), to = move_to(m);
    const int k = move_k(m);
    top_bits_clear(p, from);
    top_bits_clear(p, to);
    p->height[to] = (uint8_t)(p->height[to] - k);
    memset(&p->stack[to][p->height[to]], 0, (size_t)k);
    if (move_special(m) == TV_MOVE_ENPASSANT) {
        Square lift = u->lift_sq;
        p->stack[to][--p->height[to]] = 0; /* the double-stepper */
        if (u->x_top)
            p->stack[to][p->height[to] - 1] = u->x_top;
        top_bits_clear(p, lift);
        p->stack[lift][p->height[lift]++] = u->lifted;
        top_bits_set(p, lift);
    } else if (u->to_top) {
        p->stack[to][p->height[to] - 1] = u->to_top;
    }
    if (u->from_top)
        p->stack[from][p->height[from] - 1] = u->from_top;
    memcpy(&p->stack[from][p->height[from]], u->moved, (size_t)k);
    p->height[from] = (uint8_t)(p->height[from] + k);
    top_bits_set(p, from);
    top_bits_set(p, to);
    if (tavrel_kind(u->moved[k - 1]) == TV_WIZARD)
        p->wizard[us] = from;
    p->hash = u->hash;
}

void pos_mirror(const Position *p, Position *out)
{
    pos_clear(out);
    for (Square s = 0; s < 64; s++) {
        Square t = s ^ 56;
        out->height[t] = p->height[s];
        for (int i = 0; i < p->height[s]; i++)
            out->stack[t][i] = p->stack[s][i] ^ TV_COLOUR_BIT;
    }
    out->side = p->side ^ 1;
    out->castling = ((p->castling & 3) << 2) | ((p->castling >> 2) & 3);
    out->ep = p->ep == TV_NO_SQUARE ? TV_NO_SQUARE : (p->ep ^ 56);
    out->quiet_plies = p->quiet_plies;
    out->move_number = p->move_number;
    pos_refresh(out);
}
