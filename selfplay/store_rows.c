/* store_rows.c: the checks of the values of a store's rows, one row at a
 * time: a /games row (its fields, its engines, its start TFEN), a /moves
 * row, a /positions row, and the rows of one game together.  The one reader
 * (store_read.c), the readability check and the merge (store_merge.c) use
 * them, so a row is judged one way everywhere. */
#include "store_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "outcome.h"
#include "search.h"
#include "tfen.h"

/* A fixed-length string field: NUL-terminated within its n bytes. */
static bool terminated(const char *s, size_t n)
{
    return memchr(s, 0, n) != NULL;
}

/* What is wrong with the values of /games row g (a store of nengines
 * engines), written into why; NULL when nothing is. */
const char *store_game_value_problem(const StoredGame *g, int nengines, char *why, size_t n)
{
    Position p;
    TvError e;
    if (g->white < 0 || g->white >= nengines || g->black < 0 || g->black >= nengines)
        snprintf(why, n, "white %d and black %d, where /engines has %d rows", g->white, g->black, nengines);
    else if (g->white == g->black)
        snprintf(why, n, "engine %d plays both colours (no plan pairs an engine with itself)", g->white);
    else if (g->pairing < 0 || g->opening < 0)
        snprintf(why, n, "pairing %d, opening %d", g->pairing, g->opening);
    else if (g->result < -1 || g->result > 1)
        snprintf(why, n, "result %d (1, 0 or -1)", g->result);
    else if (g->termination < 0 || g->termination >= TERM_COUNT)
        snprintf(why, n, "termination code %d (0 to %d)", g->termination, TERM_COUNT - 1);
    else if (termination_is_decisive(g->termination) != (g->result != 0))
        snprintf(why, n, "result %d with termination %s (%s)", g->result, termination_name((Termination)g->termination),
                 termination_is_decisive(g->termination) ? "a win" : "a draw");
    else if (!(g->wall_time >= 0) || g->wall_time > 1e9)
        snprintf(why, n, "wall_time %g", g->wall_time);
    else if (!terminated(g->start_tfen, sizeof g->start_tfen))
        snprintf(why, n, "start_tfen has no terminating NUL");
    else if (tfen_read(g->start_tfen, &p, &e) != TV_OK)
        snprintf(why, n, "start_tfen: %.200s", e.msg);
    else
        return NULL;
    return why;
}

/* What is wrong with one /moves row on its own (NULL: nothing). */
const char *store_move_row_problem(const StoredMove *r)
{
    if (!terminated(r->move, sizeof r->move))
        return "the move has no terminating NUL";
    if (!r->move[0])
        return "the move is empty";
    for (const char *c = r->move; *c; c++)
        if (*c <= ' ' || *c > '~')
            return "the move has a byte that no move is written with";
    if (r->score < -SCORE_INF || r->score > SCORE_INF)
        return "its score is out of range";
    if (r->depth < 0 || r->nodes < 0)
        return "a negative depth or node count";
    if (r->time_ms < -1 || r->clock_ms < -1)
        return "a negative time";
    return NULL;
}

/* What is wrong with one /positions row on its own (NULL: nothing); the
 * TFEN reader's message goes to detail.  With `whole` the TFEN is read
 * (tfen_read, about a microsecond: a fifth more than reading the row);
 * without, only its side-to-move field is looked at: the commands that
 * use the positions read each TFEN themselves (tune refuses one that does
 * not read, verify and export compare it with the position replayed). */
const char *store_position_row_problem(const StoredPosition *r, bool whole, char *detail, size_t n)
{
    Position pos;
    TvError e;
    detail[0] = 0;
    if (!terminated(r->tfen, sizeof r->tfen))
        return "the TFEN has no terminating NUL";
    if (whole && tfen_read(r->tfen, &pos, &e) != TV_OK) {
        snprintf(detail, n, ": %.190s", e.msg);
        return "the TFEN does not read";
    }
    int tfen_side = -1;
    if (whole) {
        tfen_side = (int)pos.side;
    } else {
        const char *sp = strchr(r->tfen, ' ');
        if (sp && (sp[1] == 'w' || sp[1] == 'b') && sp[2] == ' ')
            tfen_side = sp[1] == 'b';
    }
    if (tfen_side < 0)
        return "the TFEN has no side to move";
    if (r->side != tfen_side)
        return "side is not the TFEN's side to move";
    if (r->result != 0.0f && r->result != 0.5f && r->result != 1.0f)
        return "result is not 0, 0.5 or 1";
    if (r->score < -SCORE_INF || r->score > SCORE_INF)
        return "its score is out of range";
    return NULL;
}

/* "/moves row ROW (game G ply P): BAD (its values)" into why. */
void store_describe_move_row(const StoredMove *r, int64_t row, const char *bad, char *why, size_t n)
{
    snprintf(why, n, "/moves row %lld (game %lld ply %d): %s (score %d, depth %d, nodes %lld, time_ms %d, clock_ms %d)",
             (long long)row, (long long)r->game, r->ply, bad, r->score, r->depth, (long long)r->nodes, r->time_ms,
             r->clock_ms);
}

/* "/positions row ROW (game G ply P): BAD (its values)DETAIL" into why. */
void store_describe_position_row(const StoredPosition *r, int64_t row, const char *bad, const char *detail,
                                 char *why, size_t n)
{
    snprintf(why, n, "/positions row %lld (game %lld ply %d): %s (side %d, result %g, score %d)%s", (long long)row,
             (long long)r->game, r->ply, bad, r->side, (double)r->result, r->score, detail);
}

const char *store_game_rows_problem(const StoredGame *g, const StoredMove *m, const StoredPosition *p, bool whole,
                                    char *why, size_t n)
{
    for (int32_t k = 0; m && k < g->move_count; k++) {
        const char *bad = store_move_row_problem(&m[k]);
        if (bad) {
            store_describe_move_row(&m[k], g->move_offset + k, bad, why, n);
            return why;
        }
    }
    for (int32_t k = 0; p && k < g->position_count; k++) {
        const StoredPosition *r = &p[k];
        char detail[200];
        float want = g->result == 0 ? 0.5f : ((g->result > 0) == (r->side == 0)) ? 1.0f : 0.0f;
        const char *bad = store_position_row_problem(r, whole, detail, sizeof detail);
        if (!bad && r->result != want)
            bad = "result is not the game's result from the side to move's view";
        if (bad) {
            store_describe_position_row(r, g->position_offset + k, bad, detail, why, n);
            return why;
        }
    }
    return NULL;
}
