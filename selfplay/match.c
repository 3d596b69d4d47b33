/* match.c: games between players.  See match.h. */
#include "match.h"

#include <stdlib.h>
#include <string.h>

uint64_t match_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

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
            pos_make_move(out, list.moves[match_rng(&rng) % (uint64_t)list.count], &u);
        }
        if (i == plies && movegen_count(out, o) > 0)
            return;
    }
}

GameOutcome match_play_game(const Position *start, const Options *o, const PlayerSpec *white,
                            SearchContext *ctx_white, const PlayerSpec *black, SearchContext *ctx_black,
                            uint64_t seed, int max_plies)
{
    GameOutcome out = {RESULT_DRAW, TV_STATE_ONGOING, 0};
    Position p = *start;
    uint64_t rng = seed;
    uint64_t *hist = malloc(sizeof(uint64_t) * (size_t)(max_plies + 1));
    if (!hist)
        return out;
    if (ctx_white)
        search_clear(ctx_white);
    if (ctx_black && ctx_black != ctx_white)
        search_clear(ctx_black);
    for (int ply = 0;; ply++) {
        GameState s = movegen_state(&p, o);
        if (s == TV_STATE_ONGOING) {
            int seen = 1;
            for (int i = ply - 2; i >= 0; i -= 2)
                seen += hist[i] == p.hash;
            if (seen >= 3)
                s = TV_STATE_REPETITION;
        }
        if (s != TV_STATE_ONGOING) {
            out.termination = s;
            out.plies = ply;
            if (s == TV_STATE_CHECKMATE || s == TV_STATE_WIZARD_CAPTURED)
                out.result = p.side == TV_WHITE ? RESULT_BLACK : RESULT_WHITE;
            break;
        }
        if (ply >= max_plies) {
            out.plies = ply;
            break; /* adjudicated draw: ply limit */
        }
        const PlayerSpec *who = p.side == TV_WHITE ? white : black;
        SearchContext *ctx = p.side == TV_WHITE ? ctx_white : ctx_black;
        Move m;
        if (who->kind == PLAYER_RANDOM) {
            MoveList list;
            movegen_legal(&p, o, &list);
            m = list.moves[match_rng(&rng) % (uint64_t)list.count];
        } else {
            SearchResult r;
            search_run(ctx, &p, hist, ply, &who->engine.limits, NULL, NULL, &r);
            m = r.best;
        }
        hist[ply] = p.hash;
        Undo u;
        pos_make_move(&p, m, &u);
    }
    free(hist);
    return out;
}
