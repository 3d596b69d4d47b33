/* verify.c: stored games against the rules.  See verify.h. */
#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "record.h"
#include "tfen.h"

typedef struct {
    VerifyProblemFn fn;
    void *user;
    bool bad;
} Problems;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void problem(Problems *pr, int64_t game, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pr->bad = true;
    if (pr->fn)
        pr->fn(game, what, pr->user);
}

/* The rules' verdict on p, with hist[0..n) the hashes of the positions
 * before it (repetition counts positions with the same side to move). */
static GameState rules_state(const Position *p, const Options *o, const uint64_t *hist, int n)
{
    GameState s = movegen_state(p, o);
    if (s == TV_STATE_ONGOING) {
        int seen = 1;
        for (int i = n - 2; i >= 0; i -= 2)
            seen += hist[i] == p->hash;
        if (seen >= 3)
            s = TV_STATE_REPETITION;
    }
    return s;
}

static Termination termination_of_state(GameState s)
{
    return s == TV_STATE_CHECKMATE    ? TERM_CHECKMATE
           : s == TV_STATE_STALEMATE  ? TERM_STALEMATE
           : s == TV_STATE_REPETITION ? TERM_REPETITION
                                      : TERM_WIZARD_CAPTURED;
}

static void verify_game(const StoreContents *c, const StoredGame *g, const Options *o, uint64_t *hist, Problems *pr)
{
    Position p;
    TvError e;
    if (tfen_read(g->start_tfen, &p, &e) != TV_OK) {
        problem(pr, g->index, "start position: %s", e.msg);
        return;
    }
    if (g->move_count != g->plies || g->position_count != g->plies) {
        problem(pr, g->index, "%d plies but %d moves and %d positions stored", g->plies, g->move_count,
                g->position_count);
        return;
    }
    for (int32_t k = 0; k < g->plies; k++) {
        GameState s = rules_state(&p, o, hist, k);
        if (s != TV_STATE_ONGOING) {
            problem(pr, g->index, "ply %d: the game was already over by the rules (%s) but went on", k + 1,
                    game_state_name(s));
            return;
        }
        const StoredPosition *sp = &c->positions[g->position_offset + k];
        char tfen[TV_TFEN_MAX];
        tfen_write(&p, tfen, sizeof tfen);
        if (strncmp(sp->tfen, tfen, sizeof sp->tfen) != 0)
            problem(pr, g->index, "ply %d: stored position '%.*s' is not the one reached, '%s'", k + 1,
                    (int)sizeof sp->tfen, sp->tfen, tfen);
        float want = g->result == 0 ? 0.5f : ((g->result > 0) == (p.side == TV_WHITE)) ? 1.0f : 0.0f;
        if (sp->side != p.side || sp->result != want)
            problem(pr, g->index, "ply %d: stored side %d / result %g, expected %d / %g", k + 1, sp->side,
                    (double)sp->result, p.side, (double)want);
        const StoredMove *sm = &c->moves[g->move_offset + k];
        Move m;
        char shown[64];
        if (move_parse(&p, o, sm->move, TV_PARSE_STRICT, &m, NULL, &e) != TV_OK) {
            problem(pr, g->index, "ply %d: move '%s': %s", k + 1, tv_escape(sm->move, shown, sizeof shown), e.msg);
            return;
        }
        char written[TV_MOVE_STR_MAX];
        move_to_str(&p, o, m, true, written, sizeof written);
        if (strncmp(sm->move, written, sizeof sm->move) != 0)
            problem(pr, g->index, "ply %d: move stored as '%s', written '%s' by the rules", k + 1,
                    tv_escape(sm->move, shown, sizeof shown), written);
        hist[k] = p.hash;
        Undo u;
        pos_make_move(&p, m, &u);
    }
    char why[300];
    if (verify_ending(g, &p, o, hist, why, sizeof why))
        problem(pr, g->index, "%s", why);
}

const char *verify_ending(const StoredGame *g, const Position *final, const Options *o, const uint64_t *hist,
                          char *why, size_t n)
{
    const Position *pp = final;
    GameState s = rules_state(pp, o, hist, g->plies);
    Termination t = (Termination)g->termination;
    bool rules_end = t == TERM_CHECKMATE || t == TERM_STALEMATE || t == TERM_REPETITION || t == TERM_WIZARD_CAPTURED;
    if (s != TV_STATE_ONGOING) {
        Termination want = termination_of_state(s);
        int result = s == TV_STATE_CHECKMATE || s == TV_STATE_WIZARD_CAPTURED ? (pp->side == TV_WHITE ? -1 : 1) : 0;
        if (t != want)
            snprintf(why, n, "ends in %s by the rules but is stored as %s", termination_name(want), termination_name(t));
        else if (g->result != result)
            snprintf(why, n, "ends in %s: result %d stored, %d by the rules", termination_name(t), g->result, result);
        else
            return NULL;
    } else if (rules_end) {
        snprintf(why, n, "stored as %s, but the rules have not ended the game", termination_name(t));
    } else if (termination_is_failure(t)) {
        const int loser_lost = pp->side == TV_WHITE ? -1 : 1;
        if (g->result == loser_lost)
            return NULL;
        snprintf(why, n, "%s: result %d stored, but the side to move (%s) failed and lost", termination_name(t),
                 g->result, pp->side == TV_WHITE ? "White" : "Black");
    } else if (t != TERM_ADJ_MAX_PLIES && t != TERM_ADJ_RESIGN && t != TERM_ADJ_DRAW) {
        snprintf(why, n, "unknown termination code %d", g->termination);
    } else if ((t == TERM_ADJ_MAX_PLIES || t == TERM_ADJ_DRAW) && g->result != 0) {
        snprintf(why, n, "adjudicated draw (%s) stored with result %d", termination_name(t), g->result);
    } else if (t == TERM_ADJ_RESIGN && g->result == 0) {
        snprintf(why, n, "adjudicated win stored as a draw");
    } else
        return NULL;
    return why;
}

const char *verify_moves(const StoredGame *g, const StoredMove *moves, const Options *o, Move *out, uint64_t *hist,
                         char *why, size_t n)
{
    return verify_move_strings(g, moves ? moves[0].move : NULL, sizeof *moves, o, out, hist, why, n);
}

const char *verify_move_strings(const StoredGame *g, const char *first, size_t stride, const Options *o, Move *out,
                                uint64_t *hist, char *why, size_t n)
{
    Position p;
    TvError e;
    if (tfen_read(g->start_tfen, &p, &e) != TV_OK) {
        snprintf(why, n, "start position: %.300s", e.msg);
        return why;
    }
    for (int32_t k = 0; k < g->plies; k++) {
        GameState s = rules_state(&p, o, hist, k);
        if (s != TV_STATE_ONGOING) {
            snprintf(why, n, "ply %d: the game was already over by the rules (%s) but went on", k + 1,
                     game_state_name(s));
            return why;
        }
        const char *text = first + (size_t)k * stride;
        char shown[64], stored[H5STORE_MOVE_LEN + 1];
        snprintf(stored, sizeof stored, "%.*s", H5STORE_MOVE_LEN, text);
        Move m;
        if (move_parse(&p, o, stored, TV_PARSE_STRICT, &m, NULL, &e) != TV_OK) {
            snprintf(why, n, "ply %d: move '%s': %.300s", k + 1, tv_escape(stored, shown, sizeof shown), e.msg);
            return why;
        }
        /* its written form too (a wrong + suffix reads, but a TGN of it is
         * refused): every reader sees what export sees */
        char written[TV_MOVE_STR_MAX];
        move_to_str(&p, o, m, true, written, sizeof written);
        if (strncmp(stored, written, H5STORE_MOVE_LEN) != 0) {
            snprintf(why, n, "ply %d: move stored as '%s', written '%s' by the rules", k + 1,
                     tv_escape(stored, shown, sizeof shown), written);
            return why;
        }
        if (out)
            out[k] = m;
        hist[k] = p.hash;
        Undo u;
        pos_make_move(&p, m, &u);
    }
    return verify_ending(g, &p, o, hist, why, n);
}

TvStatus verify_store_games(const StoreContents *c, VerifyProblemFn fn, void *user, VerifyReport *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    Options o;
    TvError e;
    if (rule_options_parse(c->options ? c->options : "", &o, &e) != TV_OK)
        return tv_fail(err, TV_ERR_PARSE, "the store's rule options '%s': %s", c->options ? c->options : "", e.msg);
    int32_t longest = 0;
    for (int64_t i = 0; i < c->ngames; i++)
        if (c->games[i].plies > longest)
            longest = c->games[i].plies;
    uint64_t *hist = malloc(sizeof *hist * ((size_t)longest + 1));
    if (!hist)
        return tv_fail(err, TV_ERR_LIMIT, "verify: out of memory");
    for (int64_t i = 0; i < c->ngames; i++) {
        const StoredGame *g = &c->games[i];
        Problems pr = {fn, user, false};
        verify_game(c, g, &o, hist, &pr);
        out->games++;
        out->bad += pr.bad;
        int t = g->termination >= 0 && g->termination < TERM_COUNT ? g->termination : TERM_COUNT;
        out->by_termination[t]++;
    }
    free(hist);
    return TV_OK;
}
