/* match.c: games between players.  See match.h. */
#include "match.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

void match_random_opening(const Options *o, uint64_t seed, int plies, Position *out)
{
    uint64_t rng = seed;
    for (int attempt = 0; attempt < 100; attempt++) {
        pos_set_start(out);
        int i = 0;
        for (; i < plies; i++) {
            MoveList list;
            movegen_legal(out, o, &list);
            if (list.count == 0)
                break;
            Undo u;
            pos_make_move(out, list.moves[tv_rng_below(&rng, (uint64_t)list.count)], &u);
        }
        if (i == plies && movegen_count(out, o) > 0)
            return;
    }
}

/* Adjudication state: the last scores of each side (each from its own view),
 * and the verdict they reached after the last move, if any. */
typedef struct {
    int streak_win[2];  /* consecutive own moves with score >= resign_score */
    int streak_lose[2]; /* consecutive own moves with score <= -resign_score */
    int streak_draw[2]; /* consecutive own moves with |score| <= draw_score */
    bool decided;       /* the streaks reached a verdict ... */
    Termination termination;
    GameResult result;
} AdjState;

/* Counts an engine's move (by `side`, at `ply`, with its score) in the
 * streaks; a verdict it completes is kept for adjudicated(), which the game
 * asks only after the rules had their say on the position it led to. */
static void adjudication_note(AdjState *as, const Adjudication *adj, int side, int ply, int score)
{
    if (adj->resign_score > 0) {
        as->streak_win[side] = score >= adj->resign_score ? as->streak_win[side] + 1 : 0;
        as->streak_lose[side] = score <= -adj->resign_score ? as->streak_lose[side] + 1 : 0;
        for (int w = 0; w < 2 && !as->decided; w++)
            if (as->streak_win[w] >= adj->resign_moves && as->streak_lose[w ^ 1] >= adj->resign_moves) {
                as->decided = true;
                as->termination = TERM_ADJ_RESIGN;
                as->result = w == TV_WHITE ? RESULT_WHITE : RESULT_BLACK;
            }
    }
    if (adj->draw_moves > 0 && !as->decided) {
        bool near = ply >= adj->draw_after_ply && abs(score) <= adj->draw_score;
        as->streak_draw[side] = near ? as->streak_draw[side] + 1 : 0;
        if (as->streak_draw[0] >= adj->draw_moves && as->streak_draw[1] >= adj->draw_moves) {
            as->decided = true;
            as->termination = TERM_ADJ_DRAW;
            as->result = RESULT_DRAW;
        }
    }
}

/* True (with out filled) when the last move completed an adjudication. */
static bool adjudicated(const AdjState *as, GameOutcome *out)
{
    if (!as->decided)
        return false;
    out->termination = as->termination;
    out->result = as->result;
    return true;
}

bool match_play_recorded(const Position *start, const Options *o, const PlayerSpec *white, SearchContext *ctx_white,
                         const PlayerSpec *black, SearchContext *ctx_black, uint64_t seed, const Adjudication *adj,
                         PlyRecord *rec, volatile sig_atomic_t *abort_flag, GameOutcome *out)
{
    const int max_plies = adj ? adj->max_plies : 1000;
    Position p = *start;
    uint64_t rng = seed;
    AdjState as = {{0, 0}, {0, 0}, {0, 0}, false, TERM_ADJ_MAX_PLIES, RESULT_DRAW};
    uint64_t *hist = malloc(sizeof(uint64_t) * (size_t)(max_plies + 1));
    out->result = RESULT_DRAW;
    out->termination = TERM_ADJ_MAX_PLIES;
    out->plies = 0;
    if (!hist)
        return false;
    if (ctx_white)
        search_clear(ctx_white);
    if (ctx_black && ctx_black != ctx_white)
        search_clear(ctx_black);
    bool finished = true;
    for (int ply = 0;; ply++) {
        /* The end of the game by the rules comes first, on every move:
         * a mate that also completes a resignation streak is a mate. */
        GameState s = movegen_state(&p, o);
        if (s == TV_STATE_ONGOING) {
            int seen = 1;
            for (int i = ply - 2; i >= 0; i -= 2)
                seen += hist[i] == p.hash;
            if (seen >= 3)
                s = TV_STATE_REPETITION;
        }
        out->plies = ply;
        if (s != TV_STATE_ONGOING) {
            out->termination = s == TV_STATE_CHECKMATE    ? TERM_CHECKMATE
                               : s == TV_STATE_STALEMATE  ? TERM_STALEMATE
                               : s == TV_STATE_REPETITION ? TERM_REPETITION
                                                          : TERM_WIZARD_CAPTURED;
            if (s == TV_STATE_CHECKMATE || s == TV_STATE_WIZARD_CAPTURED)
                out->result = p.side == TV_WHITE ? RESULT_BLACK : RESULT_WHITE;
            break;
        }
        /* Then adjudication, on the scores of the moves played so far. */
        if (adjudicated(&as, out))
            break;
        if (ply >= max_plies) {
            out->termination = TERM_ADJ_MAX_PLIES;
            break;
        }
        if (abort_flag && *abort_flag) {
            finished = false;
            break;
        }
        const int side = p.side;
        const PlayerSpec *who = side == TV_WHITE ? white : black;
        SearchContext *ctx = side == TV_WHITE ? ctx_white : ctx_black;
        PlyRecord r = {TV_MOVE_NONE, 0, 0, 0, 0, -1};
        const double t0 = tv_now_seconds();
        if (who->kind == PLAYER_RANDOM) {
            MoveList list;
            movegen_legal(&p, o, &list);
            r.move = list.moves[tv_rng_below(&rng, (uint64_t)list.count)];
        } else {
            SearchResult sr;
            search_run(ctx, &p, hist, ply, &who->engine.limits, NULL, NULL, &sr);
            /* A search the stop flag cut short gives a move its limits would
             * not have chosen: the game is abandoned, never stored with it
             * (even when that move would have ended the game). */
            if (abort_flag && *abort_flag) {
                finished = false;
                break;
            }
            r.move = sr.best;
            r.score = sr.score;
            r.depth = sr.depth;
            r.nodes = sr.nodes;
        }
        r.time_ms = (int)((tv_now_seconds() - t0) * 1000.0 + 0.5);
        if (rec)
            rec[ply] = r;
        hist[ply] = p.hash;
        Undo u;
        pos_make_move(&p, r.move, &u);
        /* Adjudication needs both engines' opinions. */
        if (adj && who->kind == PLAYER_ENGINE)
            adjudication_note(&as, adj, side, ply, r.score);
    }
    free(hist);
    return finished;
}

GameOutcome match_play_game(const Position *start, const Options *o, const PlayerSpec *white,
                            SearchContext *ctx_white, const PlayerSpec *black, SearchContext *ctx_black,
                            uint64_t seed, int max_plies)
{
    Adjudication adj = {max_plies, 0, 0, 0, 0, 0};
    GameOutcome out;
    match_play_recorded(start, o, white, ctx_white, black, ctx_black, seed, &adj, NULL, NULL, &out);
    return out;
}
