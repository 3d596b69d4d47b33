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
