/* types.h: the basic vocabulary of the rules core: colours, kinds, tavrels,
 * squares, moves and variant options.  Everything here is plain data and
 * inline helpers; nothing allocates and nothing is global and mutable. */
#ifndef TAVRELI_TYPES_H
#define TAVRELI_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t Bitboard;

/* Colours. */
enum { TV_WHITE = 0, TV_BLACK = 1 };

/* Kinds of tavrel.  0 is "no tavrel". */
typedef enum {
    TV_NONE = 0,
    TV_WIZARD = 1,    /* K: moves like a king */
    TV_PRINCE = 2,    /* Q: queen */
    TV_WARRIOR = 3,   /* R: rook */
    TV_ARCHER = 4,    /* B: bishop */
    TV_HORSEMAN = 5,  /* N: knight */
    TV_HELGI = 6,     /* H: queen + knight */
    TV_COMBATANT = 7  /* P: pawn-like, has a destiny */
} Kind;

#define TV_KIND_COUNT 8

/* A tavrel is one byte:
 *   bits 0-2  kind (Kind, never TV_NONE for a real tavrel)
 *   bits 3-5  destiny (Kind: Warrior, Horseman, Archer, Prince or Helgi) for a
 *             combatant, promoted or not; 0 for every other tavrel
 *   bit  6    flag: for an unpromoted combatant (kind P) "has moved"; for any
 *             other kind "is a promoted combatant" (so promotion and demotion
 *             only swap the kind field between P and the destiny)
 *   bit  7    colour (0 white, 1 black)
 * The byte 0 never denotes a tavrel. */
typedef uint8_t Tavrel;

#define TV_FLAG_BIT 0x40u
#define TV_COLOUR_BIT 0x80u

static inline Kind tavrel_kind(Tavrel t) { return (Kind)(t & 7u); }
static inline Kind tavrel_destiny(Tavrel t) { return (Kind)((t >> 3) & 7u); }
static inline int tavrel_colour(Tavrel t) { return (t >> 7) & 1; }
static inline bool tavrel_flag(Tavrel t) { return (t & TV_FLAG_BIT) != 0; }
static inline bool tavrel_is_combatant(Tavrel t) { return tavrel_kind(t) == TV_COMBATANT; }
/* An unpromoted combatant that has never left its start square. */
static inline bool tavrel_is_unmoved_combatant(Tavrel t)
{
    return tavrel_kind(t) == TV_COMBATANT && !tavrel_flag(t);
}
/* A combatant that has been turned over into its destiny tavrel. */
static inline bool tavrel_is_promoted(Tavrel t)
{
    return tavrel_kind(t) != TV_COMBATANT && tavrel_flag(t);
}
static inline Tavrel tavrel_make(int colour, Kind kind, Kind destiny, bool flag)
{
    return (Tavrel)((unsigned)kind | ((unsigned)destiny << 3) | (flag ? TV_FLAG_BIT : 0u) |
                    (colour ? TV_COLOUR_BIT : 0u));
}
/* Promotion turns a combatant into its destiny (flag stays set: a promoted
 * combatant has always moved); demotion turns it back. */
static inline Tavrel tavrel_promoted(Tavrel t)
{
    return (Tavrel)((t & ~7u) | (unsigned)tavrel_destiny(t) | TV_FLAG_BIT);
}
static inline Tavrel tavrel_demoted(Tavrel t)
{
    return (Tavrel)((t & ~7u) | (unsigned)TV_COMBATANT | TV_FLAG_BIT);
}

/* Squares: a1 = 0, b1 = 1, ..., h8 = 63. */
typedef int Square;
#define TV_NO_SQUARE (-1)
static inline int sq_file(Square s) { return s & 7; }
static inline int sq_rank(Square s) { return s >> 3; }
static inline Square sq_make(int file, int rank) { return rank * 8 + file; }
static inline Bitboard sq_bb(Square s) { return (Bitboard)1 << s; }

#define TV_MAX_HEIGHT 32
#define TV_MAX_TAVRELS 32

/* A move.  (from, k, to) identifies every move; castling is marked by a flag
 * (from is the Wizard's square, to its landing square).  En passant is also
 * flagged so that make/unmake need not rediscover it.
 *   bits 0-5  from
 *   bits 6-11 to
 *   bits 12-17 k (1..32)
 *   bits 18-19 special: 0 normal, 1 en passant, 2 castling short, 3 castling long */
typedef uint32_t Move;

enum { TV_MOVE_NORMAL = 0, TV_MOVE_ENPASSANT = 1, TV_MOVE_CASTLE_SHORT = 2, TV_MOVE_CASTLE_LONG = 3 };
#define TV_MOVE_NONE ((Move)0)

static inline Move move_make(Square from, Square to, int k, int special)
{
    return (Move)((unsigned)from | ((unsigned)to << 6) | ((unsigned)k << 12) | ((unsigned)special << 18));
}
static inline Square move_from(Move m) { return (Square)(m & 63u); }
static inline Square move_to(Move m) { return (Square)((m >> 6) & 63u); }
static inline int move_k(Move m) { return (int)((m >> 12) & 63u); }
static inline int move_special(Move m) { return (int)((m >> 18) & 3u); }
static inline bool move_is_castling(Move m) { return move_special(m) >= TV_MOVE_CASTLE_SHORT; }

/* Upper bound on legal moves in one position: 32 tavrels can form at most
 * 32 stacks; a stack of height h yields at most h * 35 moves (Helgi: 27
 * slides + 8 leaps), and the total height is 32, so 32 * 35 + 2 castlings. */
#define TV_MAX_MOVES 1200

typedef struct {
    int count;
    Move moves[TV_MAX_MOVES];
} MoveList;

/* Variant options (docs/rules.md section 10).  Zero-initialised = the defaults. */
typedef enum { TV_EP_COMBATANT = 0, TV_EP_ANY = 1 } EnPassantOption;
typedef enum { TV_ENDING_CHECKMATE = 0, TV_ENDING_CAPTURE = 1 } EndingOption;

typedef struct {
    bool slide_over_own;      /* default false */
    EnPassantOption enpassant; /* default TV_EP_COMBATANT */
    EndingOption ending;      /* default TV_ENDING_CHECKMATE */
} Options;

/* Castling right bits. */
enum { TV_CASTLE_WK = 1, TV_CASTLE_WQ = 2, TV_CASTLE_BK = 4, TV_CASTLE_BQ = 8 };

#endif
