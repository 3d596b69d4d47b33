/* match.c: games between players.  See match.h. */
#include "match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notation.h"
#include "rng.h"
#include "tfen.h"

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

/* The clock of one side: time left, and moves made (for MOVES/BASE+INC). */
typedef struct {
    bool on;
    int left_ms;
    int moves;
} SideClock;

/* How to start the program of a tournament's [engine NAME] with command =;
 * its stderr goes by default to STORE.ENGINE.log beside the store
 * (results/NAME.h5: results/NAME.ENGINE.log; no store: only its last lines
 * are kept, for errors).  stderr_buf holds that path. */
static EngineProcSpec process_spec(const TournamentEngine *te, const Options *o, const char *store_path,
                                   char *stderr_buf, size_t n)
{
    const char *errpath = te->stderr_path;
    if (!strcmp(errpath, TOURNAMENT_STDERR_DISCARD)) {
        errpath = "";
    } else if (!*errpath && store_path) {
        size_t len = strlen(store_path);
        if (len > 3 && !strcmp(store_path + len - 3, ".h5"))
            len -= 3;
        snprintf(stderr_buf, n, "%.*s.%s.log", (int)len, store_path, te->engine.name);
        errpath = stderr_buf;
    }
    return (EngineProcSpec){.label = te->engine.name,
                            .command = te->command,
                            .dir = te->dir,
                            .stderr_path = errpath,
                            .log_path = te->log_path,
                            .rules = o,
                            .noptions = te->noptions,
                            .option_names = (const char (*)[UCI_OPTION_NAME_MAX])te->option_names,
                            .option_values = (const char (*)[UCI_OPTION_VALUE_MAX])te->option_values};
}

/* Starts (or restarts) a separate program and tells it a game begins. */
static TvStatus prepare_process(MatchPlayer *mp, const Options *o, TvError *err)
{
    const TournamentEngine *te = mp->spec->te;
    if (mp->proc && !engine_proc_alive(mp->proc)) {
        engine_proc_close(mp->proc);
        mp->proc = NULL;
    }
    if (!mp->proc) {
        char errpath[TOURNAMENT_PATH_MAX + 128];
        EngineProcSpec spec = process_spec(te, o, mp->store_path, errpath, sizeof errpath);
        if (engine_proc_start(&spec, &mp->proc, err) != TV_OK)
            return err ? err->status : TV_ERR_IO;
    }
    return engine_proc_new_game(mp->proc, err);
}

TvStatus match_check_process(const TournamentEngine *te, const Options *o, const char *store_path, TvError *err)
{
    char errpath[TOURNAMENT_PATH_MAX + 128];
    EngineProcSpec spec = process_spec(te, o, store_path, errpath, sizeof errpath);
    EngineProc *proc;
    TvStatus st = engine_proc_start(&spec, &proc, err);
    engine_proc_close(proc);
    return st;
}

/* The go of a move: the limits, and the clocks of both sides. */
static void make_go(const MatchPlayer *mp, const SideClock clocks[2], const MatchPlayer *players[2], int side,
                    UciGo *go)
{
    uci_go_init(go);
    const SearchLimits *l = &mp->spec->engine.limits;
    if (l->depth > 0)
        go->depth = l->depth;
    if (l->nodes > 0)
        go->nodes = (int64_t)l->nodes;
    if (l->movetime_ms > 0)
        go->movetime_ms = l->movetime_ms;
    if (clocks[TV_WHITE].on) {
        go->wtime_ms = clocks[TV_WHITE].left_ms;
        go->winc_ms = players[TV_WHITE]->spec->te->tc.inc_ms;
    }
    if (clocks[TV_BLACK].on) {
        go->btime_ms = clocks[TV_BLACK].left_ms;
        go->binc_ms = players[TV_BLACK]->spec->te->tc.inc_ms;
    }
    const TimeControl *tc = mp->spec->te ? &mp->spec->te->tc : NULL;
    if (clocks[side].on && tc->moves > 0)
        go->movestogo = tc->moves - clocks[side].moves % tc->moves;
}

MatchEnd match_play(const Position *start, const Options *o, MatchPlayer *white, MatchPlayer *black, uint64_t seed,
                    const Adjudication *adj, PlyRecord *rec, volatile sig_atomic_t *abort_flag, GameOutcome *out,
                    TvError *err)
{
    const int max_plies = adj ? adj->max_plies : 1000;
    Position p = *start;
    uint64_t rng = seed;
    AdjState as = {{0, 0}, {0, 0}, {0, 0}, false, TERM_ADJ_MAX_PLIES, RESULT_DRAW};
    MatchPlayer *players[2] = {white, black};
    SideClock clocks[2];
    out->result = RESULT_DRAW;
    out->termination = TERM_ADJ_MAX_PLIES;
    out->plies = 0;
    out->over_ms = 0;
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
        MatchPlayer *mp = players[side];
        const TournamentEngine *te = mp->spec->te;
        clocks[side] = (SideClock){te && te->tc.base_ms > 0, te ? te->tc.base_ms : 0, 0};
        if (mp->spec->kind == PLAYER_ENGINE && mp->ctx && (side == 0 || mp->ctx != players[0]->ctx))
            search_clear(mp->ctx);
        if (mp->spec->kind == PLAYER_PROCESS && prepare_process(mp, o, err) != TV_OK)
            end = MATCH_FAILED;
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
        if (abort_flag && *abort_flag) {
            end = MATCH_ABANDONED;
            break;
        }
        const int side = p.side;
        MatchPlayer *mp = players[side];
        const PlayerSpec *who = mp->spec;
        SideClock *clock = &clocks[side];
        const int margin = who->te ? who->te->timemargin_ms : 100;
        PlyRecord r = {TV_MOVE_NONE, 0, 0, 0, 0, -1};
        bool has_score = true;
        Termination failed = TERM_ADJ_MAX_PLIES; /* none */
        double seconds;
        if (who->kind == PLAYER_RANDOM) {
            const double t0 = tv_now_seconds();
            MoveList list;
            movegen_legal(&p, o, &list);
            r.move = list.moves[tv_rng_below(&rng, (uint64_t)list.count)];
            seconds = tv_now_seconds() - t0;
        } else if (who->kind == PLAYER_ENGINE) {
            SearchResult sr;
            SearchClock sc = {clocks[TV_WHITE].left_ms,
                              clocks[TV_BLACK].left_ms,
                              clocks[TV_WHITE].on ? white->spec->te->tc.inc_ms : 0,
                              clocks[TV_BLACK].on ? black->spec->te->tc.inc_ms : 0,
                              0};
            if (clock->on && who->te->tc.moves > 0)
                sc.movestogo = who->te->tc.moves - clock->moves % who->te->tc.moves;
            const double t0 = tv_now_seconds();
            search_run_clock(mp->ctx, &p, hist, ply, &who->engine.limits, clock->on ? &sc : NULL, NULL, NULL, &sr);
            seconds = tv_now_seconds() - t0;
            /* A search the stop flag cut short gives a move its limits would
             * not have chosen: the game is abandoned, never stored with it
             * (even when that move would have ended the game). */
            if (abort_flag && *abort_flag) {
                end = MATCH_ABANDONED;
                break;
            }
            r.move = sr.best;
            r.score = sr.score;
            r.depth = sr.depth;
            r.nodes = sr.nodes;
        } else {
            UciGo go;
            const MatchPlayer *cp[2] = {white, black};
            make_go(mp, clocks, cp, side, &go);
            double limit_ms = clock->on ? clock->left_ms + margin
                              : who->engine.limits.movetime_ms > 0 ? who->engine.limits.movetime_ms + margin
                                                                   : who->te->timeout_ms;
            EngineMove em;
            const double t0 = tv_now_seconds();
            EngineMoveStatus ms = engine_proc_go(mp->proc, start_tfen, played_ptr, ply, &go,
                                                 t0 + limit_ms / 1000.0 + 0.002, abort_flag, &em);
            seconds = em.seconds;
            if (ms == ENGINE_MOVE_ABORTED) {
                end = MATCH_ABANDONED;
                break;
            }
            if (ms == ENGINE_MOVE_UNREADY) { /* no readyok before go: it cannot be asked for a move */
                failed = TERM_ENGINE_STALLED;
                engine_proc_close(mp->proc);
                mp->proc = NULL;
            } else if (ms == ENGINE_MOVE_LATE) {
                const bool timed = clock->on || who->engine.limits.movetime_ms > 0;
                failed = timed ? TERM_TIME_FORFEIT : TERM_ENGINE_STALLED;
                if (!timed || !engine_proc_stop(mp->proc, 1000)) {
                    engine_proc_close(mp->proc); /* a fresh one plays the next game */
                    mp->proc = NULL;
                }
            } else if (ms == ENGINE_MOVE_DIED) {
                failed = TERM_ENGINE_DIED;
                engine_proc_close(mp->proc);
                mp->proc = NULL;
            } else if (ms == ENGINE_MOVE_NOMOVE ||
                       move_parse(&p, o, em.move, TV_PARSE_STRICT, &r.move, NULL, NULL) != TV_OK) {
                failed = TERM_ILLEGAL_MOVE;
            } else {
                has_score = em.info.has_score;
                r.score = em.info.has_score ? em.info.score : 0;
                r.depth = em.info.depth > 0 ? em.info.depth : 0;
                r.nodes = em.info.nodes > 0 ? (uint64_t)em.info.nodes : 0;
            }
        }
        const int used_ms = (int)(seconds * 1000.0 + 0.5);
        /* The referee's clock: the same rule for every kind of engine. */
        const int allowed = clock->on ? clock->left_ms : who->engine.limits.movetime_ms;
        if (failed == TERM_ADJ_MAX_PLIES && who->kind != PLAYER_RANDOM) {
            if (allowed > 0 && used_ms > allowed + margin)
                failed = TERM_TIME_FORFEIT;
        }
        if (failed == TERM_TIME_FORFEIT)
            out->over_ms = used_ms > allowed + margin ? used_ms - (allowed + margin) : 0;
        if (failed != TERM_ADJ_MAX_PLIES) {
            out->termination = failed;
            out->result = side == TV_WHITE ? RESULT_BLACK : RESULT_WHITE;
            break;
        }
        if (clock->on) {
            clock->left_ms = (clock->left_ms > used_ms ? clock->left_ms - used_ms : 0) + who->te->tc.inc_ms;
            clock->moves++;
            if (who->te->tc.moves > 0 && clock->moves % who->te->tc.moves == 0)
                clock->left_ms += who->te->tc.base_ms;
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
        if (adj && who->kind != PLAYER_RANDOM && has_score)
            adjudication_note(&as, adj, side, ply, r.score);
    }
    free(hist);
    free(played);
    free(played_ptr);
    return end;
}

bool match_play_recorded(const Position *start, const Options *o, const PlayerSpec *white, SearchContext *ctx_white,
                         const PlayerSpec *black, SearchContext *ctx_black, uint64_t seed, const Adjudication *adj,
                         PlyRecord *rec, volatile sig_atomic_t *abort_flag, GameOutcome *out)
{
    MatchPlayer w = {.spec = white, .ctx = ctx_white}, b = {.spec = black, .ctx = ctx_black};
    return match_play(start, o, &w, &b, seed, adj, rec, abort_flag, out, NULL) == MATCH_FINISHED;
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
