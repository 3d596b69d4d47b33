/* search.c: the engine's search.  See search.h; its settings and the time
 * budget are in search_settings.c, the order of picking moves in move_pick.h. */
#define _DEFAULT_SOURCE /* madvise (MADV_HUGEPAGE) where the system has it */
#include "search.h"
#include "status.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "bitboard.h"
#include "move_pick.h"
#include "movegen.h"
#include "rng.h"

enum { TT_EXACT = 1, TT_LOWER = 2, TT_UPPER = 3 };

typedef struct {
    uint64_t key;
    Move move;
    int16_t score;
    int8_t depth;
    uint8_t flag;
} TTEntry;

#define HISTORY_MAX 4096

/* The evaluation cache: the last evaluation stored per slot, by full hash.
 * 2^12 entries (64 KiB, it stays in the level-2 cache).  Measured on the
 * bench search (depth 5, one run each of A B A B ... ten times): 2^16
 * entries 12% slower (the probe misses the cache more than the evaluations
 * it saves cost), no cache 4% slower.  The entries grew from 16 to 24 bytes
 * (96 KiB) to keep the attack map (see evaluate_threats): the bench search
 * took the same time (median ratio 1.00 over 20 runs each, in turn). */
typedef struct {
    uint64_t key;
    Bitboard threats; /* the squares the side not to move attacks */
    int32_t score;
    int32_t unused;
} EvalEntry;
#define EVAL_CACHE_ENTRIES (1u << 12)

struct SearchContext {
    EvalParams params;
    Options rules;
    SearchSettings settings;
    TTEntry *tt;
    uint64_t tt_salt; /* XORed into the keys stored in tt; a new game takes another (search_clear) */
    size_t tt_mask;
    EvalEntry *eval_cache; /* EVAL_CACHE_ENTRIES */
    Move killers[SEARCH_MAX_PLY][2];
    int history[2][64][64];
    /* per search */
    uint64_t nodes;
    uint64_t node_limit;
    double deadline; /* seconds on the monotonic clock, 0 for none */
    StopFlags stop_flags; /* polled with the clock */
    bool stop;
    int root_depth;
    uint64_t path[HISTORY_MAX + SEARCH_MAX_PLY + 2]; /* game history then search path */
    int path_len;
    int game_len;    /* entries of path that come from the game */
    Move pv[SEARCH_MAX_PLY][SEARCH_MAX_PLY];
    int pv_len[SEARCH_MAX_PLY];
    SearchStats stats;
    uint8_t lmr_table[64][64]; /* late-move reductions by depth and move number (plies) */
    EvalState eval_state;      /* the incremental evaluation of the position being searched */
    /* the exchange estimate's values by kind (see tavrel_value), from params */
    int kind_value[TV_KIND_COUNT], kind_half_value[TV_KIND_COUNT];
};

/* A zeroed table of n bytes (a power of two of 16-byte entries).  Tables
 * of 2 MiB or more are aligned to 2 MiB and, on Linux, offered huge pages:
 * a probe then rarely misses the address-translation cache (perf showed
 * the probes of a 16 MiB table stalling even when prefetched). */
static void *alloc_table(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    if (n < huge)
        return calloc(1, n);
    void *t = aligned_alloc(huge, n);
    if (!t)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(t, n, MADV_HUGEPAGE);
#endif
    memset(t, 0, n);
    return t;
}

SearchContext *search_alloc(const EvalParams *params, const Options *rules, const SearchSettings *settings)
{
    SearchContext *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->params = *params;
    for (int kind = 0; kind < TV_KIND_COUNT; kind++) {
        const int i = eval_kind_index((Kind)kind);
        c->kind_value[kind] = i >= 0 ? params->w[EW_top_value + i] : 0;
        c->kind_half_value[kind] = c->kind_value[kind] / 2;
    }
    c->rules = *rules;
    c->settings = *settings;
    size_t entries = 1;
    size_t want = (size_t)(settings->tt_mb > 0 ? settings->tt_mb : 1) * 1024 * 1024 / sizeof(TTEntry);
    while (entries * 2 <= want)
        entries *= 2;
    c->tt = alloc_table(entries * sizeof(TTEntry));
    c->eval_cache = calloc(EVAL_CACHE_ENTRIES, sizeof(EvalEntry));
    if (!c->tt || !c->eval_cache) {
        free(c->tt);
        free(c->eval_cache);
        free(c);
        return NULL;
    }
    c->tt_mask = entries - 1;
    /* ln(depth) ln(moves) / div + base, in plies, rounded down */
    for (int d = 1; d < 64; d++)
        for (int m = 1; m < 64; m++) {
            double r = settings->lmr_base / 100.0 + log((double)d) * log((double)m) / (settings->lmr_div / 100.0);
            c->lmr_table[d][m] = (uint8_t)(r < 0 ? 0 : r > 40 ? 40 : (int)r);
        }
    return c;
}

void search_free(SearchContext *ctx)
{
    if (ctx) {
        free(ctx->tt);
        free(ctx->eval_cache);
        free(ctx);
    }
}

/* The table is not zeroed for a new game: its keys are stored XORed with a
 * salt, and a new salt makes every entry stored before match a position of
 * the new game only with probability 2^-64, as an empty slot (key 0) would
 * match one whose key is 0: the searches are those of a zeroed table.
 * Zeroing the 16 MiB table was 10% of a self-play run of depth 1 and 2
 * games (perf, 2 Dec 2026).  The salts follow from the number of games, so
 * a context's searches stay deterministic. */
void search_clear(SearchContext *ctx)
{
    ctx->tt_salt = tv_rng_next(&ctx->tt_salt);
    memset(ctx->eval_cache, 0, EVAL_CACHE_ENTRIES * sizeof(EvalEntry));
    memset(ctx->killers, 0, sizeof ctx->killers);
    memset(ctx->history, 0, sizeof ctx->history);
}

/* Mate scores are stored relative to the node, not the root. */
static int score_to_tt(int s, int ply)
{
    return s > SCORE_MATE_BOUND ? s + ply : s < -SCORE_MATE_BOUND ? s - ply : s;
}
static int score_from_tt(int s, int ply)
{
    return s > SCORE_MATE_BOUND ? s - ply : s < -SCORE_MATE_BOUND ? s + ply : s;
}

void search_set_stop_flags(SearchContext *ctx, const StopFlags *stop)
{
    ctx->stop_flags = stop ? *stop : (StopFlags){{NULL, NULL}};
}

void search_set_stop_flag(SearchContext *ctx, const volatile sig_atomic_t *flag)
{
    search_set_stop_flags(ctx, &(StopFlags){{flag, NULL}});
}

static bool out_of_budget(SearchContext *c)
{
    if (c->stop)
        return true;
    if (c->node_limit && c->nodes >= c->node_limit)
        c->stop = true;
    else if ((c->nodes & 1023) == 1 && /* the first node, then every 1,024 */
             (stop_flags_set(&c->stop_flags) || (c->deadline > 0 && tv_now_seconds() >= c->deadline)))
        c->stop = true;
    return c->stop;
}

/* Repetition: the position occurred before in the game or on the path.
 * Scored as a draw at its first recurrence (the opponent can repeat it). */
static bool is_repetition(const SearchContext *c, uint64_t key)
{
    /* only positions with the same side to move can be equal */
    for (int i = c->path_len - 3; i >= 0; i -= 2)
        if (c->path[i] == key)
            return true;
    return false;
}

/* Value of what a move onto an opponent stack wins, for ordering. */
static int capture_gain(const SearchContext *c, const Position *p, Move m)
{
    Square to = move_to(m);
    Tavrel victim = pos_top(p, to);
    if (!victim || tavrel_colour(victim) == p->side) {
        if (move_special(m) == TV_MOVE_ENPASSANT)
            return c->params.w[EW_top_value + 4];
        return -1;
    }
    int vi = eval_kind_index(tavrel_kind(victim));
    int gain = vi >= 0 ? c->params.w[EW_top_value + vi] : 10000;
    gain += 10 * p->height[to];
    return gain;
}

static bool is_promotion(const Position *p, Move m)
{
    Tavrel t = pos_top(p, move_from(m));
    if (tavrel_kind(t) != TV_COMBATANT)
        return false;
    int far = p->side == TV_WHITE ? 7 : 0;
    return sq_rank(move_to(m)) == far;
}

/* The value of a tavrel for the exchange estimate: its weight as an active
 * top (the Wizard 0: it is never landed on), and half of it, looked up by
 * kind in tables made by search_alloc (the weight's index and its test
 * were 15 of the exchange estimates' 60 M instructions in resolving a
 * tuning set). */
static inline int tavrel_value(const SearchContext *c, Tavrel t)
{
    return c->kind_value[tavrel_kind(t)];
}

static inline int tavrel_half_value(const SearchContext *c, Tavrel t)
{
    return c->kind_half_value[tavrel_kind(t)];
}

/* A cheap exchange estimate of a capture (setting qsearch_see): what the
 * target stack holds (its top in full, the tavrels under it at half value:
 * they change hands as prisoners or freed captives) minus, when the
 * opponent attacks the square, what the moving part risks if retaken (its
 * mover in full, the rest at half).  A moving part topped by the Wizard
 * risks nothing: nothing lands on a Wizard.  Not a true exchange sequence:
 * it is only for ordering and for skipping captures that lose at once.
 * Whether the opponent attacks a square is read from *threats where *known
 * has it, else computed (pos_attackers, once per square and node) and
 * recorded there: qsearch passes the evaluation's attack map, all known.
 * Always inlined: the call was 25 of the 105 M instructions it took in
 * resolving a tuning set (callgrind), and inlined the two sets stay in
 * registers (total 1,329 M -> 1,287 M). */
static inline __attribute__((always_inline)) int exchange_estimate(const SearchContext *c, const Position *p, Move m,
                                                                   Bitboard *known, Bitboard *threats)
{
    const Square from = move_from(m), to = move_to(m);
    const int us = p->side;
    int gain;
    if (move_special(m) == TV_MOVE_ENPASSANT)
        gain = c->params.w[EW_top_value + 4];
    else {
        const int ht = p->height[to];
        gain = tavrel_value(c, p->stack[to][ht - 1]);
        for (int i = 0; i < ht - 1; i++)
            gain += tavrel_half_value(c, p->stack[to][i]);
    }
    const int h = p->height[from], k = move_k(m);
    const Tavrel mover = p->stack[from][h - 1];
    if (tavrel_kind(mover) == TV_WIZARD)
        return gain;
    const Bitboard tb = sq_bb(to);
    if (!(*known & tb)) {
        *known |= tb;
        if (pos_attackers(p, &c->rules, to, us ^ 1))
            *threats |= tb;
    }
    if (!(*threats & tb))
        return gain;
    int risk = tavrel_value(c, mover);
    for (int i = h - k; i < h - 1; i++)
        risk += tavrel_half_value(c, p->stack[from][i]);
    return gain - risk;
}

/* The ordering key of a capture by its exchange estimate x: winning and
 * even captures before the promotions, losing ones after the killers. */
static inline int see_key(int x, Move m)
{
    if (x < -65535)
        x = -65535;
    return x >= 0 ? (1 << 28) + (x + 1) * 64 + move_k(m) : (1 << 26) + (x + 65536) * 16 + move_k(m);
}

/* Gives every move an ordering key: hash move, captures by gain (or, with
 * qsearch_see, by exchange estimate: see_key), promotions, killers, then
 * history. */
static void score_moves(const SearchContext *c, const Position *p, const MoveList *list, Move hash_move, int ply,
                        int *keys)
{
    const bool see = c->settings.qsearch_see;
    Bitboard known = 0, threats = 0; /* exchange_estimate's squares attacked by the opponent */
    for (int i = 0; i < list->count; i++) {
        Move m = list->moves[i];
        int key;
        if (m == hash_move)
            key = 1 << 30;
        else {
            int g = capture_gain(c, p, m);
            if (g >= 0 && see)
                key = see_key(exchange_estimate(c, p, m, &known, &threats), m);
            else if (g >= 0)
                key = (1 << 28) + g * 64 + move_k(m);
            else if (is_promotion(p, m))
                key = (1 << 28);
            else if (ply < SEARCH_MAX_PLY && m == c->killers[ply][0])
                key = (1 << 27) + 1;
            else if (ply < SEARCH_MAX_PLY && m == c->killers[ply][1])
                key = (1 << 27);
            else
                key = c->history[p->side][move_from(m)][move_to(m)];
        }
        keys[i] = key;
    }
}

/* Making and taking back a move with the incremental evaluation's state:
 * the squares the move changes are recomputed after it and restored after
 * taking it back. */
typedef struct {
    Undo u;
    EvalSquare sq[4];
    int32_t local;
    Bitboard special;
} MoveUndo;

static inline void make_move(SearchContext *c, Position *p, Move m, MoveUndo *mu)
{
    EvalState *es = &c->eval_state;
    Square sq[4];
    const int mover = p->side, n = eval_move_squares(m, mover, sq);
    for (int i = 0; i < n; i++)
        mu->sq[i] = es->sq[sq[i]];
    mu->local = es->local;
    mu->special = es->special;
    pos_make_move(p, m, &mu->u);
    eval_state_move(es, p, &c->params, m, mover); /* the squares saved above */
}

static inline void unmake_move(SearchContext *c, Position *p, const MoveUndo *mu)
{
    EvalState *es = &c->eval_state;
    pos_unmake_move(p, &mu->u);
    Square sq[4];
    const int n = eval_move_squares(mu->u.move, p->side, sq);
    for (int i = 0; i < n; i++)
        es->sq[sq[i]] = mu->sq[i];
    es->local = mu->local;
    es->special = mu->special;
}

/* The static evaluation, through the evaluation cache: the same value as
 * eval_position (the key is the full 64-bit hash, which covers everything
 * the evaluation reads), computed with the incremental state.  The entry
 * also keeps the squares the side not to move attacks, which the
 * evaluation finds on the way (eval_position_state's threats): qsearch
 * reads its check and its exchange estimates from them. */
static int evaluate_threats(SearchContext *c, const Position *p, Bitboard *threats)
{
    EvalEntry *e = &c->eval_cache[p->hash & (EVAL_CACHE_ENTRIES - 1)];
    if (e->key == p->hash) {
        *threats = e->threats;
        return e->score;
    }
    int s = eval_position_state(p, &c->rules, &c->params, &c->eval_state, threats);
    e->key = p->hash;
    e->threats = *threats;
    e->score = s;
    return s;
}

static int evaluate(SearchContext *c, const Position *p)
{
    Bitboard threats;
    return evaluate_threats(c, p, &threats);
}

/* pos_in_check(p, rules), given the squares the opponent attacks. */
static inline bool in_check_by(const Position *p, Bitboard threats)
{
    const Square w = p->wizard[p->side];
    return w != TV_NO_SQUARE && (threats & sq_bb(w)) && !pos_wizard_captured(p, p->side);
}

/* Score of a position without legal moves (or with a captured Wizard). */
static int terminal_score(const SearchContext *c, const Position *p, int ply)
{
    if (c->rules.ending == TV_ENDING_CAPTURE && pos_wizard_captured(p, p->side))
        return -SCORE_MATE + ply;
    return pos_in_check(p, &c->rules) ? -SCORE_MATE + ply : 0;
}

/* Quiescence: captures (moves onto opponent stacks, en passant) and
 * promotions until the position is quiet.  Nothing ever leaves the board, so
 * capture chains on towers can be long: only the whole stack and the top
 * tavrel alone (k = height, k = 1) are tried, and the line is cut after
 * QSEARCH_MAX_PLY plies.  In check every legal move is searched. */
#define QSEARCH_MAX_PLY 8

static int qsearch(SearchContext *c, Position *p, int alpha, int beta, int ply, int qply)
{
    c->pv_len[ply] = 0;
    c->nodes++;
    c->stats.qnodes++;
    if (out_of_budget(c))
        return 0;
    if (c->rules.ending == TV_ENDING_CAPTURE && pos_wizard_captured(p, p->side))
        return -SCORE_MATE + ply;
    MoveList list;
    int keys[TV_MAX_MOVES];
    bool scored = false;
    /* The evaluation first, in check too: its attack map gives the check
     * (pos_in_check was 3% of the instructions of resolving a tuning set)
     * and the exchange estimates' threatened squares. */
    Bitboard threats;
    const int stand = evaluate_threats(c, p, &threats);
    const bool check = in_check_by(p, threats);
    if (check && qply < QSEARCH_MAX_PLY && ply < SEARCH_MAX_PLY - 1) {
        movegen_evasions(p, &c->rules, &list); /* every evasion */
        if (list.count == 0)
            return -SCORE_MATE + ply;
    } else {
        if (stand >= beta || ply >= SEARCH_MAX_PLY - 1 || qply >= QSEARCH_MAX_PLY)
            return stand;
        if (stand > alpha)
            alpha = stand;
        uint32_t kmask[64];
        const int us = p->side;
        /* read once: a store to kmask[] may alias the settings' ints */
        const bool splits = c->settings.qsearch_splits;
        Bitboard own = p->by_colour[us];
        while (own) {
            Square s = bb_pop(&own);
            const int h = p->height[s];
            uint32_t mask = 1u | (1u << (h - 1)); /* k = 1 and k = height */
            if (splits && h >= 3 && tavrel_colour(p->stack[s][h - 2]) != us) {
                /* the lone top would free the opponent tavrel under it:
                 * also the smallest part that leaves an own tavrel on top */
                for (int k = 2; k < h; k++)
                    if (tavrel_colour(p->stack[s][h - 1 - k]) == us) {
                        mask |= 1u << (k - 1);
                        break;
                    }
            }
            kmask[s] = mask;
        }
        movegen_tactical_k(p, &c->rules, kmask, check, &list);
        /* the moves to try and their keys, as score_moves gives them (no
         * hash move, no killers here) */
        int n = 0;
        const bool see = c->settings.qsearch_see;
        Bitboard known = ~(Bitboard)0; /* every square's threat is in the evaluation's map */
        const int margin = c->settings.qsearch_see_margin;
        for (int i = 0; i < list.count; i++) {
            Move m = list.moves[i];
            const int k = move_k(m);
            /* a capture lands on an opponent top or is en passant; the rest
             * are promotions (capture_gain's sign: it is >= 0 exactly for
             * captures, as no top_value weight is below 0) */
            bool capture = move_special(m) == TV_MOVE_ENPASSANT || (p->by_colour[us ^ 1] & sq_bb(move_to(m)));
            int key;
            if (!capture) { /* a promotion */
                if (k != p->height[move_from(m)]) /* a split only for a capture */
                    continue;
                key = 1 << 28;
            } else if (see) {
                int x = exchange_estimate(c, p, m, &known, &threats);
                if (x < -margin)
                    continue;
                key = see_key(x, m);
            } else
                key = (1 << 28) + capture_gain(c, p, m) * 64 + k;
            keys[n] = key;
            list.moves[n++] = m;
        }
        list.count = n;
        scored = true;
    }
    if (!scored)
        score_moves(c, p, &list, TV_MOVE_NONE, SEARCH_MAX_PLY, keys);
    MoveUndo u;
    for (int i = 0; i < list.count; i++) {
        movelist_pick_next(&list, keys, i);
        make_move(c, p, list.moves[i], &u);
        __builtin_prefetch(&c->eval_cache[p->hash & (EVAL_CACHE_ENTRIES - 1)]); /* the child probes it first */
        int s = -qsearch(c, p, -beta, -alpha, ply + 1, qply + 1);
        unmake_move(c, p, &u);
        if (c->stop)
            return 0;
        if (s > alpha) {
            alpha = s;
            c->pv[ply][0] = list.moves[i];
            memcpy(&c->pv[ply][1], c->pv[ply + 1], sizeof(Move) * (size_t)c->pv_len[ply + 1]);
            c->pv_len[ply] = c->pv_len[ply + 1] + 1;
            if (s >= beta)
                break;
        }
    }
    return alpha;
}

void search_quiet(SearchContext *c, const Position *pos, Position *leaf, int *score)
{
    Position p = *pos;
    c->nodes = 0;
    c->stop = false;
    c->node_limit = 0;
    c->deadline = 0;
    c->path_len = c->game_len = 0;
    eval_state_init(&c->eval_state, &p, &c->params);
    int s = qsearch(c, &p, -SCORE_INF, SCORE_INF, 0, 0);
    *leaf = *pos;
    for (int i = 0; i < c->pv_len[0]; i++) {
        Undo u;
        pos_make_move(leaf, c->pv[0][i], &u);
    }
    if (score)
        *score = s;
}

/* Passing the move (null-move pruning): the side to move changes and the
 * en-passant square goes, nothing else.  The position is a real one (the
 * same stacks with the other side to move), so its hash is its own. */
typedef struct {
    uint64_t hash;
    Square ep;
} NullUndo;

static void make_null(Position *p, NullUndo *u)
{
    u->hash = p->hash;
    u->ep = p->ep;
    if (p->ep != TV_NO_SQUARE)
        p->hash ^= zobrist_ep(p->ep);
    p->ep = TV_NO_SQUARE;
    p->hash ^= zobrist_side();
    p->side ^= 1;
}

static void unmake_null(Position *p, const NullUndo *u)
{
    p->side ^= 1;
    p->ep = u->ep;
    p->hash = u->hash;
}

/* Tops of the side to move besides its Wizard and combatants. */
static int piece_tops(const Position *p)
{
    return bb_popcount(p->by_colour[p->side] & ~(p->by_kind[TV_WIZARD] | p->by_kind[TV_COMBATANT]));
}

static void record_cutoff(SearchContext *c, const Position *p, Move m, int depth, int ply)
{
    if (ply >= SEARCH_MAX_PLY)
        return;
    if (c->killers[ply][0] != m) {
        c->killers[ply][1] = c->killers[ply][0];
        c->killers[ply][0] = m;
    }
    int *h = &c->history[p->side][move_from(m)][move_to(m)];
    *h += depth * depth;
    if (*h > (1 << 26))
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 64; b++)
                for (int d = 0; d < 64; d++)
                    c->history[a][b][d] /= 2;
}

/* The principal variation search.  can_null is false right after a null
 * move and in a null move's verification search. */
static int search(SearchContext *c, Position *p, int alpha, int beta, int depth, int ply, bool pv_node,
                  bool can_null)
{
    const SearchSettings *set = &c->settings;
    c->pv_len[ply] = 0;
    if (ply > 0) {
        if (is_repetition(c, p->hash))
            return 0;
        /* mate distance pruning */
        int mate_alpha = -SCORE_MATE + ply, mate_beta = SCORE_MATE - ply - 1;
        if (alpha < mate_alpha)
            alpha = mate_alpha;
        if (beta > mate_beta)
            beta = mate_beta;
        if (alpha >= beta)
            return alpha;
    }
    bool check = pos_in_check(p, &c->rules);
    if (check && set->check_extension && ply < SEARCH_MAX_PLY / 2)
        depth++;
    if (depth <= 0 || ply >= SEARCH_MAX_PLY - 1) {
        if (set->qsearch)
            return qsearch(c, p, alpha, beta, ply, 0);
        c->nodes++;
        return evaluate(c, p);
    }
    c->nodes++;
    if (out_of_budget(c))
        return 0;

    TTEntry *e = &c->tt[p->hash & c->tt_mask];
    Move hash_move = TV_MOVE_NONE;
    if (e->key == (p->hash ^ c->tt_salt)) {
        hash_move = e->move;
        if (!pv_node && e->depth >= depth) {
            int s = score_from_tt(e->score, ply);
            if (e->flag == TT_EXACT || (e->flag == TT_LOWER && s >= beta) || (e->flag == TT_UPPER && s <= alpha))
                return s;
        }
    }

    /* Pruning before the moves, at nodes that are not PV nodes and not in
     * check, from the static evaluation. */
    const bool prune = !pv_node && !check && beta < SCORE_MATE_BOUND && beta > -SCORE_MATE_BOUND;
    int static_eval = -SCORE_INF;
    if (prune && (set->rfp || set->null_move || set->futility))
        static_eval = evaluate(c, p);
    if (prune && set->rfp && depth <= set->rfp_max_depth && static_eval - set->rfp_margin * depth >= beta)
        return static_eval;
    if (prune && set->null_move && can_null && depth >= set->null_move_min_depth && static_eval >= beta &&
        piece_tops(p) >= set->null_move_pieces) {
        const int r = set->null_move_base + depth / set->null_move_div;
        NullUndo nu;
        make_null(p, &nu);
        c->path[c->path_len++] = p->hash;
        c->stats.null_tries++;
        int s = -search(c, p, -beta, -beta + 1, depth - 1 - r, ply + 1, false, false);
        c->path_len--;
        unmake_null(p, &nu);
        if (c->stop)
            return 0;
        if (s >= beta) {
            if (s >= SCORE_MATE_BOUND)
                s = beta; /* a mate seen after a pass is not proven */
            if (!set->null_move_verify_depth || depth < set->null_move_verify_depth) {
                c->stats.null_cutoffs++;
                return s;
            }
            /* verification: the side to move must still fail high when it
             * moves, at the reduced depth, without passing again */
            int v = search(c, p, beta - 1, beta, depth - r, ply, false, false);
            if (c->stop)
                return 0;
            if (v >= beta) {
                c->stats.null_cutoffs++;
                return s;
            }
            c->stats.null_refuted++;
        }
    }

    /* The hash move is tried before any move is generated (a cut-off by
     * it saves the generation); movegen_check_move guards against a table
     * entry of another position with the same slot and key. */
    if (hash_move != TV_MOVE_NONE && !movegen_check_move(p, &c->rules, hash_move))
        hash_move = TV_MOVE_NONE;
    MoveList list;
    list.count = 0;
    int keys[TV_MAX_MOVES];
    bool generated = false, unsorted = false, sorted = false;
    int next = 0; /* next index of list to pick */

    const bool late_prune = prune && ((set->futility && depth <= set->futility_max_depth &&
                                       static_eval + set->futility_base + set->futility_margin * depth <= alpha) ||
                                      (set->lmp && depth <= set->lmp_max_depth));
    const int lmp_moves = set->lmp_base + depth * depth * set->lmp_scale / 100;
    const bool futile = prune && set->futility && depth <= set->futility_max_depth &&
                        static_eval + set->futility_base + set->futility_margin * depth <= alpha;
    const bool lmr = set->lmr && depth >= set->lmr_min_depth && !check;
    const int alpha0 = alpha;
    int best = -SCORE_INF;
    Move best_move = TV_MOVE_NONE;
    int searched = 0;
    MoveUndo u;
    for (int i = 0;; i++) {
        Move m;
        if (i == 0 && hash_move != TV_MOVE_NONE)
            m = hash_move;
        else {
            if (!generated) {
                generated = true;
                movegen_legal(p, &c->rules, &list);
                if (list.count == 0)
                    return terminal_score(c, p, ply);
                score_moves(c, p, &list, hash_move, ply, keys);
            }
            /* once quiet moves are being pruned, every later quiet move
             * is pruned too (unless it gives check): the rest of the list
             * is then taken as it stands, without sorting it */
            if (next < list.count && !unsorted)
                movelist_pick(&list, keys, next, &sorted);
            if (next < list.count && list.moves[next] == hash_move) { /* searched first */
                next++;
                if (next < list.count && !unsorted)
                    movelist_pick(&list, keys, next, &sorted);
            }
            if (next >= list.count)
                break;
            m = list.moves[next++];
        }
        const bool quiet = capture_gain(c, p, m) < 0 && !is_promotion(p, m);
        const bool killer = ply < SEARCH_MAX_PLY && (m == c->killers[ply][0] || m == c->killers[ply][1]);
        /* whether the move gives check, when a pruning or reduction needs it */
        const bool consider = quiet && searched > 0 && m != hash_move && (late_prune || (lmr && !killer));
        const bool gives_check = consider && movegen_gives_check(p, &c->rules, m);
        if (consider && !gives_check && late_prune && best > -SCORE_MATE_BOUND &&
            (futile || (set->lmp && depth <= set->lmp_max_depth && searched >= lmp_moves))) {
            c->stats.pruned++;
            unsorted = true;
            continue;
        }
        make_move(c, p, m, &u);
        /* the child probes these first */
        __builtin_prefetch(&c->tt[p->hash & c->tt_mask]);
        __builtin_prefetch(&c->eval_cache[p->hash & (EVAL_CACHE_ENTRIES - 1)]);
        c->path[c->path_len++] = p->hash;
        int s;
        if (searched == 0) {
            s = -search(c, p, -beta, -alpha, depth - 1, ply + 1, pv_node, true);
        } else {
            int r = 0;
            if (consider && lmr && !killer && !gives_check && searched >= set->lmr_moves) {
                r = c->lmr_table[depth < 63 ? depth : 63][searched < 63 ? searched : 63];
                if (pv_node && r > 0)
                    r--;
                if (r > depth - 2)
                    r = depth - 2 > 0 ? depth - 2 : 0;
            }
            s = -search(c, p, -alpha - 1, -alpha, depth - 1 - r, ply + 1, false, true);
            if (r > 0 && s > alpha) {
                c->stats.lmr_researches++;
                s = -search(c, p, -alpha - 1, -alpha, depth - 1, ply + 1, false, true);
            }
            if (s > alpha && s < beta)
                s = -search(c, p, -beta, -alpha, depth - 1, ply + 1, true, true);
        }
        searched++;
        c->path_len--;
        unmake_move(c, p, &u);
        if (c->stop)
            return 0;
        if (s > best) {
            best = s;
            best_move = m;
            if (s > alpha) {
                alpha = s;
                c->pv[ply][0] = m;
                memcpy(&c->pv[ply][1], c->pv[ply + 1], sizeof(Move) * (size_t)c->pv_len[ply + 1]);
                c->pv_len[ply] = c->pv_len[ply + 1] + 1;
                if (s >= beta) {
                    if (quiet)
                        record_cutoff(c, p, m, depth, ply);
                    break;
                }
            }
        }
    }
    e->key = p->hash ^ c->tt_salt;
    e->move = best_move;
    e->score = (int16_t)score_to_tt(best, ply);
    e->depth = (int8_t)(depth > 127 ? 127 : depth);
    e->flag = best >= beta ? TT_LOWER : best > alpha0 ? TT_EXACT : TT_UPPER;
    return best;
}

void search_run(SearchContext *c, const Position *pos, const uint64_t *history, int nhistory,
                const SearchLimits *limits, SearchReport report, void *user, SearchResult *out)
{
    search_run_clock(c, pos, history, nhistory, limits, NULL, report, user, out);
}

void search_run_clock(SearchContext *c, const Position *pos, const uint64_t *history, int nhistory,
                      const SearchLimits *limits, const SearchClock *clock, SearchReport report, void *user,
                      SearchResult *out)
{
    double t0 = tv_now_seconds();
    Position p = *pos;
    memset(out, 0, sizeof *out);
    memset(&c->stats, 0, sizeof c->stats);
    c->nodes = 0;
    c->stop = false;
    c->node_limit = limits->nodes;
    c->deadline = limits->movetime_ms > 0 ? t0 + limits->movetime_ms / 1000.0 : 0;
    /* the clock: a soft limit checked between iterations, a hard one polled */
    search_time_budget(&c->settings, clock, p.side, &out->soft_ms, &out->hard_ms);
    const double soft_end = out->soft_ms > 0 ? t0 + out->soft_ms / 1000.0 : 0;
    if (out->hard_ms > 0) {
        double hard_end = t0 + out->hard_ms / 1000.0;
        if (c->deadline == 0 || hard_end < c->deadline)
            c->deadline = hard_end;
    }
    if (nhistory > HISTORY_MAX) {
        history += nhistory - HISTORY_MAX;
        nhistory = HISTORY_MAX;
    }
    for (int i = 0; i < nhistory; i++)
        c->path[i] = history[i];
    c->path[nhistory] = p.hash;
    c->path_len = c->game_len = nhistory + 1;
    eval_state_init(&c->eval_state, &p, &c->params);

    MoveList root;
    movegen_legal(&p, &c->rules, &root);
    if (root.count == 0) {
        out->best = TV_MOVE_NONE;
        out->score = terminal_score(c, &p, 0);
        return;
    }
    out->best = root.moves[0];
    int max_depth = limits->depth > 0 ? limits->depth : SEARCH_MAX_PLY / 2;
    if (max_depth > SEARCH_MAX_PLY / 2)
        max_depth = SEARCH_MAX_PLY / 2;
    int prev = 0;
    for (int d = 1; d <= max_depth; d++) {
        c->root_depth = d;
        int s;
        if (c->settings.aspiration && d >= c->settings.aspiration_min_depth && prev < SCORE_MATE_BOUND &&
            prev > -SCORE_MATE_BOUND) {
            /* a window around the last score, widened on the side that fails */
            int delta = c->settings.aspiration_window;
            int lo = prev - delta, hi = prev + delta;
            for (;;) {
                s = search(c, &p, lo, hi, d, 0, true, true);
                if (c->stop)
                    break;
                if (s <= lo && lo > -SCORE_INF) {
                    c->stats.aspiration_fails++;
                    delta *= 2;
                    lo = s - delta < -SCORE_MATE_BOUND ? -SCORE_INF : s - delta;
                } else if (s >= hi && hi < SCORE_INF) {
                    c->stats.aspiration_fails++;
                    delta *= 2;
                    hi = s + delta > SCORE_MATE_BOUND ? SCORE_INF : s + delta;
                } else
                    break;
            }
        } else
            s = search(c, &p, -SCORE_INF, SCORE_INF, d, 0, true, true);
        prev = s;
        if (c->stop && d > 1)
            break; /* keep the last completed iteration */
        if (c->stop) { /* not even the first iteration completed: keep its best move so far */
            if (c->pv_len[0] > 0)
                out->best = c->pv[0][0];
            break;
        }
        out->score = s;
        out->depth = d;
        if (c->pv_len[0] > 0) {
            out->best = c->pv[0][0];
            out->pv_len = c->pv_len[0];
            memcpy(out->pv, c->pv[0], sizeof(Move) * (size_t)c->pv_len[0]);
        }
        out->nodes = c->nodes;
        out->stats = c->stats;
        out->seconds = tv_now_seconds() - t0;
        if (report)
            report(out, user);
        if (c->stop)
            break;
        if (soft_end > 0) {
            /* no iteration after the soft limit, nor one that would end
             * after the hard limit (deadline): the next is predicted to
             * take time_next_pct of the time spent so far */
            double now = tv_now_seconds();
            if (now >= soft_end || now + (now - t0) * c->settings.time_next_pct / 100.0 >= c->deadline)
                break;
        }
        if (s > SCORE_MATE_BOUND || s < -SCORE_MATE_BOUND) {
            /* a forced mate found: deeper iterations cannot change the move
             * unless a shorter mate exists, which this depth would have seen */
            if (SCORE_MATE - abs(s) <= d)
                break;
        }
    }
    out->nodes = c->nodes;
    out->stats = c->stats;
    out->seconds = tv_now_seconds() - t0;
}
