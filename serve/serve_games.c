#define _POSIX_C_SOURCE 200809L
/* serve_games.c: a run's games, one game for the viewer and its TGN record
 * (serve_internal.h).  Every game is read through the store's one reader
 * (h5store_read: its moves replayed and checked) and replayed once more
 * here with the same replay (verify_moves) to draw each position. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "h5store.h"
#include "outcome.h"
#include "position.h"
#include "rule_options.h"
#include "serve_internal.h"
#include "tfen.h"
#include "verify.h"

/* The store of run id (a tournament's store), read. */
static TvStatus read_store(Server *s, const char *id, bool with_moves, StoreContents *c, char *abs, size_t n,
                          TvError *err)
{
    memset(c, 0, sizeof *c);
    TvStatus st = serve_path(s, id, abs, n, err);
    if (st != TV_OK)
        return st;
    const char *kind = serve_run_kind(abs);
    if (!kind || strcmp(kind, "tournament") != 0)
        return tv_fail(err, TV_ERR_ARG, "%s is not a store (FILE.h5): only a store has games", id);
    TvError e;
    if (h5store_read(abs, with_moves, false, c, &e) != TV_OK) {
        h5store_contents_free(c);
        return tv_fail(err, TV_ERR_PARSE, "%s cannot be read: %s", id, e.msg);
    }
    return TV_OK;
}

static const char *result_text(int r) { return r > 0 ? "1-0" : r < 0 ? "0-1" : "1/2-1/2"; }

static const char *engine_name(const StoreContents *c, int i)
{
    return i >= 0 && i < c->nengines ? c->engines[i].name : "?";
}

static int cmp_index(const void *a, const void *b)
{
    const StoredGame *x = *(const StoredGame *const *)a, *y = *(const StoredGame *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

TvStatus serve_games(Server *s, const char *id, StrBuf *out, TvError *err)
{
    StoreContents c;
    char abs[PATH_MAX];
    TvStatus st = read_store(s, id, false, &c, abs, sizeof abs, err);
    if (st != TV_OK)
        return st;
    const StoredGame **order = malloc((size_t)(c.ngames ? c.ngames : 1) * sizeof *order);
    if (!order) {
        h5store_contents_free(&c);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int64_t i = 0; i < c.ngames; i++)
        order[i] = &c.games[i];
    qsort(order, (size_t)c.ngames, sizeof *order, cmp_index);
    strbuf_add(out, "{\"run\": ");
    strbuf_add_json_string(out, id);
    strbuf_add(out, ", \"games\": [");
    for (int64_t i = 0; i < c.ngames; i++) {
        const StoredGame *g = order[i];
        strbuf_addf(out, "%s{\"index\": %lld", i ? ",\n" : "\n", (long long)g->index);
        serve_kv_str(out, "white", engine_name(&c, g->white));
        serve_kv_str(out, "black", engine_name(&c, g->black));
        serve_kv_str(out, "result", result_text(g->result));
        serve_kv_str(out, "termination", termination_name((Termination)g->termination));
        serve_kv_num(out, "plies", g->plies);
        serve_kv_num(out, "opening", g->opening);
        serve_kv_num(out, "seconds", g->wall_time);
        strbuf_add(out, "}");
    }
    strbuf_add(out, "]}\n");
    free(order);
    h5store_contents_free(&c);
    return out->failed ? tv_fail(err, TV_ERR_LIMIT, "out of memory") : TV_OK;
}

/* The game of index `game` (a decimal number) in c, into *out. */
static TvStatus find_game(const StoreContents *c, const char *id, const char *game, const StoredGame **out,
                          TvError *err)
{
    char *end = NULL;
    errno = 0;
    long long k = game && game[0] ? strtoll(game, &end, 10) : -1;
    if (!game || !game[0] || *end || errno || k < 0)
        return tv_fail(err, TV_ERR_ARG, "game=%.40s: a game index (0, 1, ...) is wanted", game ? game : "");
    for (int64_t i = 0; i < c->ngames; i++)
        if (c->games[i].index == k) {
            *out = &c->games[i];
            return TV_OK;
        }
    return tv_fail(err, TV_ERR_IO, "%s has no game %lld (it holds %lld games)", id, k, (long long)c->ngames);
}

/* The store of run id read with its moves, and its game `game` in *g; on
 * success c is the caller's to free. */
static TvStatus read_game(Server *s, const char *id, const char *game, StoreContents *c, const StoredGame **g,
                          TvError *err)
{
    char abs[PATH_MAX];
    TvStatus st = read_store(s, id, true, c, abs, sizeof abs, err);
    if (st != TV_OK)
        return st;
    if ((st = find_game(c, id, game, g, err)) != TV_OK)
        h5store_contents_free(c);
    return st;
}

/* The board of p: each occupied square and its tavrels, top first. */
static void board_json(const Position *p, StrBuf *o)
{
    strbuf_add(o, "{");
    bool any = false;
    for (Square sq = 0; sq < 64; sq++) {
        const int h = pos_height(p, sq);
        if (h == 0)
            continue;
        strbuf_addf(o, "%s\"%c%c\": [", any ? ", " : "", 'a' + sq_file(sq), '1' + sq_rank(sq));
        any = true;
        for (int i = 0; i < h; i++) {
            char tok[8];
            strbuf_add(o, i ? ", " : "");
            strbuf_add_json_string(o, tfen_token(pos_at_from_top(p, sq, i), tok));
        }
        strbuf_add(o, "]");
    }
    strbuf_add(o, "}");
}

TvStatus serve_game(Server *s, const char *id, const char *game, StrBuf *out, TvError *err)
{
    StoreContents c;
    const StoredGame *g = NULL;
    TvStatus st = read_game(s, id, game, &c, &g, err);
    if (st != TV_OK)
        return st;
    Move *moves = NULL;
    uint64_t *hist = NULL;
    Options o = {0};
    rule_options_parse(c.options ? c.options : "", &o, NULL);
    Position p;
    TvError e;
    moves = malloc(sizeof *moves * (size_t)(g->move_count + 1));
    hist = malloc(sizeof *hist * (size_t)(g->move_count + 1));
    char why[400];
    if (!moves || !hist) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        goto done;
    }
    if (tfen_read(g->start_tfen, &p, &e) != TV_OK ||
        verify_moves(g, &c.moves[g->move_offset], &o, moves, hist, why, sizeof why)) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld does not replay: the store is damaged", id,
                     (long long)g->index);
        goto done;
    }
    strbuf_addf(out, "{\"index\": %lld", (long long)g->index);
    serve_kv_str(out, "run", id);
    serve_kv_str(out, "white", engine_name(&c, g->white));
    serve_kv_str(out, "black", engine_name(&c, g->black));
    serve_kv_str(out, "result", result_text(g->result));
    serve_kv_str(out, "termination", termination_name((Termination)g->termination));
    serve_kv_str(out, "termination_meaning", termination_meaning((Termination)g->termination));
    serve_kv_str(out, "options", c.options);
    StrBuf url = {0};
    strbuf_addf(&url, "/tgn?game=%lld&run=", (long long)g->index);
    for (const unsigned char *q = (const unsigned char *)id; *q; q++) /* the id URL-encoded */
        if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || strchr("-_.~", *q))
            strbuf_add_n(&url, (const char *)q, 1);
        else
            strbuf_addf(&url, "%%%02X", *q);
    serve_kv_str(out, "tgn", strbuf_str(&url));
    strbuf_free(&url);
    strbuf_add(out, ", \"plies\": [");
    char tfen[TV_TFEN_MAX];
    strbuf_add(out, "\n{\"ply\": 0, \"move\": null");
    serve_kv_str(out, "tfen", tfen_write(&p, tfen, sizeof tfen));
    strbuf_add(out, ", \"board\": ");
    board_json(&p, out);
    strbuf_add(out, "}");
    for (int32_t k = 0; k < g->move_count; k++) {
        const StoredMove *m = &c.moves[g->move_offset + k];
        const int mover = p.side;
        Undo u;
        pos_make_move(&p, moves[k], &u);
        char mv[H5STORE_MOVE_LEN + 1];
        snprintf(mv, sizeof mv, "%.*s", H5STORE_MOVE_LEN, m->move);
        strbuf_addf(out, ",\n{\"ply\": %d", k + 1);
        serve_kv_str(out, "move", mv);
        serve_kv_str(out, "mover", mover == 0 ? "w" : "b");
        serve_kv_num(out, "score", m->score);
        serve_kv_num(out, "depth", m->depth);
        serve_kv_num(out, "nodes", (double)m->nodes);
        serve_kv_num(out, "time_ms", m->time_ms >= 0 ? m->time_ms : NAN);
        serve_kv_num(out, "clock_ms", m->clock_ms >= 0 ? m->clock_ms : NAN);
        serve_kv_str(out, "tfen", tfen_write(&p, tfen, sizeof tfen));
        strbuf_add(out, ", \"board\": ");
        board_json(&p, out);
        strbuf_add(out, "}");
    }
    strbuf_add(out, "]}\n");
    if (out->failed)
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
done:
    free(moves);
    free(hist);
    h5store_contents_free(&c);
    return st;
}

TvStatus serve_tgn(Server *s, const char *id, const char *game, StrBuf *out, TvError *err)
{
    StoreContents c;
    const StoredGame *g = NULL;
    TvStatus st = read_game(s, id, game, &c, &g, err);
    if (st != TV_OK)
        return st;
    char *text = NULL;
    if ((st = export_tgn_game(&c, id, g, &text, err)) == TV_OK)
        strbuf_add(out, text);
    free(text);
    h5store_contents_free(&c);
    return st;
}
