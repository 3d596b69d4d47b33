/* match.c: the referee of games between players.  See match.h. */
#include "match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notation.h"
#include "rng.h"
#include "tfen.h"

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

/* The clock of one side: time left, and moves made (for MOVES/BASE+INC). */
typedef struct {
    bool on;
    int left_ms;
    int moves;
} SideClock;

MatchEnd match_play(const Position *start, const Options *o, Player *white, Player *black, uint64_t seed,
                    const Adjudication *adj, PlyRecord *rec, const StopFlags *stop, GameOutcome *out, TvError *err)
{
    const int max_plies = adj ? adj->max_plies : 1000;
    Position p = *start;
    AdjState as = {{0, 0}, {0, 0}, {0, 0}, false, TERM_ADJ_MAX_PLIES, RESULT_DRAW};
    Player *players[2] = {white, black};
    SideClock clocks[2];
    out->result = RESULT_DRAW;
    out->termination = TERM_ADJ_MAX_PLIES;
    out->plies = 0;
    out->over_ms = 0;
    out->unready = false;
    for (int k = 0; k < 2; k++)
        out->ready_ms[k] = out->ready_max_ms[k] = out->think_ms[k] = 0;
    uint64_t *hist = malloc(sizeof(uint64_t) * (size_t)(max_plies + 1));
    char(*played)[TV_MOVE_STR_MAX] = malloc(sizeof *played * (size_t)(max_plies + 1));
    const char **played_ptr = malloc(sizeof *played_ptr * (size_t)(max_plies + 1));
    if (!hist || !played || !played_ptr) {
        free(hist);
        free(played);
        free(played_ptr);
        tv_fail(err, TV_ERR_LIMIT, "out of memory for a game");
        return MATCH_FAILED;
    }
    char start_tfen[TV_TFEN_MAX];
    tfen_write(start, start_tfen, sizeof start_tfen);
    MatchEnd end = MATCH_FINISHED;
    for (int side = 0; side < 2; side++) {
        const TimeControl *tc = &player_config(players[side])->tc;
        clocks[side] = (SideClock){tc->base_ms > 0, tc->base_ms, 0};
        bool again = false;
        if ((side == 0 || black != white) && end == MATCH_FINISHED &&
            player_new_game(players[side], seed, &again, err) != TV_OK)
            end = again ? MATCH_AGAIN : MATCH_FAILED;
    }
    for (int ply = 0; end == MATCH_FINISHED; ply++) {
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
        if (stop_flags_set(stop)) {
            end = MATCH_ABANDONED;
            break;
        }
        const int side = p.side;
        const TournamentEngine *te = player_config(players[side]);
        SideClock *clock = &clocks[side];
        PlayerClocks pc = {{clocks[TV_WHITE].on, clocks[TV_BLACK].on},
                           {clocks[TV_WHITE].left_ms, clocks[TV_BLACK].left_ms},
                           {0, 0},
                           0};
        for (int k = 0; k < 2; k++)
            if (clocks[k].on)
                pc.inc_ms[k] = player_config(players[k])->tc.inc_ms;
        if (clock->on && te->tc.moves > 0)
            pc.movestogo = te->tc.moves - clock->moves % te->tc.moves;
        const PlayerGame game = {&p, start_tfen, hist, played_ptr, ply};
        PlayerMove pm;
        PlayerAnswer answer = player_go(players[side], &game, &pc, stop, &pm);
        if (answer == PLAYER_STOPPED) {
            end = MATCH_ABANDONED;
            break;
        }
        const int ready_ms = (int)(pm.ready_seconds * 1000.0 + 0.5);
        out->ready_ms[side] += ready_ms;
        out->ready_max_ms[side] = ready_ms > out->ready_max_ms[side] ? ready_ms : out->ready_max_ms[side];
        PlyRecord r = {TV_MOVE_NONE, pm.score, pm.depth, pm.nodes, 0, -1};
        Termination failed = answer == PLAYER_FAILED ? pm.failure : TERM_ADJ_MAX_PLIES; /* none */
        if (failed == TERM_ADJ_MAX_PLIES && move_parse(&p, o, pm.move, TV_PARSE_STRICT, &r.move, NULL, NULL) != TV_OK)
            failed = TERM_ILLEGAL_MOVE;
        const int used_ms = (int)(pm.seconds * 1000.0 + 0.5);
        out->think_ms[side] += used_ms;
        /* The referee's clock: the same rule for every kind of player. */
        const int margin = te->timemargin_ms;
        const int allowed = clock->on ? clock->left_ms : te->engine.limits.movetime_ms;
        if (failed == TERM_ADJ_MAX_PLIES && allowed > 0 && used_ms > allowed + margin)
            failed = TERM_TIME_FORFEIT;
        if (failed == TERM_TIME_FORFEIT)
            out->over_ms = used_ms > allowed + margin ? used_ms - (allowed + margin) : 0;
        if (failed != TERM_ADJ_MAX_PLIES) {
            out->termination = failed;
            out->unready = failed == TERM_ENGINE_STALLED && pm.unready;
            out->result = side == TV_WHITE ? RESULT_BLACK : RESULT_WHITE;
            break;
        }
        if (clock->on) {
            clock->left_ms = (clock->left_ms > used_ms ? clock->left_ms - used_ms : 0) + te->tc.inc_ms;
            clock->moves++;
            if (te->tc.moves > 0 && clock->moves % te->tc.moves == 0)
                clock->left_ms += te->tc.base_ms;
            r.clock_ms = clock->left_ms;
        }
        r.time_ms = used_ms;
        if (rec)
            rec[ply] = r;
        hist[ply] = p.hash;
        move_to_str(&p, o, r.move, false, played[ply], sizeof played[ply]);
        played_ptr[ply] = played[ply];
        Undo u;
        pos_make_move(&p, r.move, &u);
        /* Adjudication needs both engines' opinions. */
        if (adj && pm.has_score)
            adjudication_note(&as, adj, side, ply, r.score);
    }
    free(hist);
    free(played);
    free(played_ptr);
    return end;
}
