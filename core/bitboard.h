/* bitboard.h: attack tables.  The tables are constants generated at build
 * time by gen_tables.c (into tables.c in the build directory), so the core
 * has no start-up initialisation and no mutable globals. */
#ifndef TAVRELI_BITBOARD_H
#define TAVRELI_BITBOARD_H

#include "types.h"

typedef struct {
    Bitboard mask;
    Bitboard magic;
    uint32_t offset;
    uint32_t shift;
} Magic;

extern const Bitboard TV_KNIGHT_ATT[64];
extern const Bitboard TV_KING_ATT[64];
extern const Bitboard TV_PAWN_ATT[2][64];  /* diagonal-forward squares */
extern const Bitboard TV_BETWEEN[64][64];  /* squares strictly between two aligned squares */
extern const Bitboard TV_LINE[64][64];     /* the whole line through two aligned squares */
extern const Magic TV_ROOK_MAGIC[64];
extern const Magic TV_BISHOP_MAGIC[64];
extern const Bitboard TV_ROOK_TABLE[];
extern const Bitboard TV_BISHOP_TABLE[];

static inline Bitboard bb_rook(Square s, Bitboard occ)
{
    const Magic *m = &TV_ROOK_MAGIC[s];
    return TV_ROOK_TABLE[m->offset + (((occ & m->mask) * m->magic) >> m->shift)];
}
static inline Bitboard bb_bishop(Square s, Bitboard occ)
{
    const Magic *m = &TV_BISHOP_MAGIC[s];
    return TV_BISHOP_TABLE[m->offset + (((occ & m->mask) * m->magic) >> m->shift)];
}
static inline Bitboard bb_queen(Square s, Bitboard occ) { return bb_rook(s, occ) | bb_bishop(s, occ); }

/* Attacks from s of a top of kind `kind` and colour `colour` with `blockers`
 * stopping sliders (docs/rules.md section 8); pos_attacks_of in a form the
 * compiler can inline. */
static inline Bitboard bb_attacks(Kind kind, int colour, Square s, Bitboard blockers)
{
    switch (kind) {
    case TV_WIZARD: return TV_KING_ATT[s];
    case TV_PRINCE: return bb_queen(s, blockers);
    case TV_WARRIOR: return bb_rook(s, blockers);
    case TV_ARCHER: return bb_bishop(s, blockers);
    case TV_HORSEMAN: return TV_KNIGHT_ATT[s];
    case TV_HELGI: return bb_queen(s, blockers) | TV_KNIGHT_ATT[s];
    case TV_COMBATANT: return TV_PAWN_ATT[colour][s];
    default: return 0;
    }
}

static inline int bb_popcount(Bitboard b) { return __builtin_popcountll(b); }
static inline Square bb_lsb(Bitboard b) { return (Square)__builtin_ctzll(b); }
static inline Square bb_pop(Bitboard *b)
{
    Square s = bb_lsb(*b);
    *b &= *b - 1;
    return s;
}
static inline bool bb_more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

#endif
