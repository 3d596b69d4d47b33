#define _POSIX_C_SOURCE 200809L
/* h5store_gen.c: see h5store_gen.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "h5store_gen.h"
#include "movegen.h"
#include "notation.h"
#include "outcome.h"
#include "rule_options.h"
#include "tfen.h"

const char *const INI = "[tournament]\nname = test\npairs = 2\n\n[engine a]\npath = a.ini\n";
const char *const OPTIONS = "slide_over_own=no enpassant=combatant ending=checkmate";

/* ---- generated data: every value follows from the game index ---------------- */

/* Game g is a real game, since every reader replays the stored moves: from
 * a start position with towers (its move number g + 1), up to 1 + (7g mod
 * 23) plies of legal moves, the k-th the ((31g + 17k) mod N)-th of the N
 * legal ones, ended by the rules when they end it, else, by g mod 4, by the
 * ply limit, a resignation, a draw adjudication or a time forfeit. */
typedef struct {
    int64_t g;
    int32_t plies;
    char move[23][H5STORE_MOVE_LEN];
    char tfen[23][H5STORE_TFEN_LEN];
    int8_t side[23];
    int8_t termination, result;
} Played;

/* one game at a time: the callers ask for a game's rows in order */
static Played played = {.g = -1};

static void start_tfen(int64_t g, char *buf, size_t n)
{
    snprintf(buf, n, "rnbqkbnr/prpnpbpqphpbpnpr/8/8/4PH3/8/PRPNPBPQ1PBPNPR/RNBQKBNR b KQkq e3 0 %lld", (long long)g + 1);
}

static const Played *play(int64_t g)
{
    if (played.g == g)
        return &played;
    Played *w = &played;
    memset(w, 0, sizeof *w);
    w->g = g;
    Options o;
    Position p;
    char start[H5STORE_TFEN_LEN];
    start_tfen(g, start, sizeof start);
    if (rule_options_parse(OPTIONS, &o, NULL) != TV_OK || tfen_read(start, &p, NULL) != TV_OK)
        fail_msg("the generator's start position or options do not read");
    const int want = 1 + (int)((g * 7) % 23);
    uint64_t hist[24];
    GameState s = TV_STATE_ONGOING;
    int k = 0;
    for (;; k++) {
        s = movegen_state(&p, &o);
        int seen = 1;
        for (int i = k - 2; i >= 0; i -= 2)
            seen += hist[i] == p.hash;
        if (s == TV_STATE_ONGOING && seen >= 3)
            s = TV_STATE_REPETITION;
        if (s != TV_STATE_ONGOING || k == want)
            break;
        MoveList l;
        movegen_legal(&p, &o, &l);
        Move m = l.moves[(size_t)((g * 31 + k * 17) % l.count)];
        tfen_write(&p, w->tfen[k], sizeof w->tfen[k]);
        w->side[k] = (int8_t)p.side;
        char text[TV_MOVE_STR_MAX];
        move_to_str(&p, &o, m, true, text, sizeof text);
        memcpy(w->move[k], text, strlen(text) < sizeof w->move[k] ? strlen(text) : sizeof w->move[k]);
        hist[k] = p.hash;
        Undo u;
        pos_make_move(&p, m, &u);
    }
    w->plies = k;
    const int mover_lost = p.side == TV_WHITE ? -1 : 1;
    switch (s) {
    case TV_STATE_CHECKMATE:
        w->termination = TERM_CHECKMATE, w->result = (int8_t)mover_lost;
        break;
    case TV_STATE_WIZARD_CAPTURED:
        w->termination = TERM_WIZARD_CAPTURED, w->result = (int8_t)mover_lost;
        break;
    case TV_STATE_STALEMATE:
        w->termination = TERM_STALEMATE;
        break;
    case TV_STATE_REPETITION:
        w->termination = TERM_REPETITION;
        break;
    default:
        switch (g % 4) {
        case 0: w->termination = TERM_ADJ_MAX_PLIES; break;
        case 1: w->termination = TERM_ADJ_RESIGN, w->result = (int8_t)(g % 8 == 1 ? 1 : -1); break;
        case 2: w->termination = TERM_ADJ_DRAW; break;
        default: w->termination = TERM_TIME_FORFEIT, w->result = (int8_t)mover_lost; break;
        }
    }
    return w;
}

int32_t moves_of(int64_t g)
{
    return play(g)->plies;
}

void make_game(int64_t g, StoredGame *out)
{
    const Played *w = play(g);
    memset(out, 0, sizeof *out);
    out->index = g;
    out->pairing = (int32_t)(g % 3);
    out->white = (int32_t)(g % 2);
    out->black = 1 - out->white;
    out->opening = (int32_t)(g / 2);
    start_tfen(g, out->start_tfen, sizeof out->start_tfen);
    out->termination = w->termination;
    out->result = w->result;
    out->plies = w->plies;
    out->seed = (uint64_t)g * 0x9E3779B97F4A7C15ull;
    out->wall_time = 0.25 * (double)g;
    out->move_count = w->plies;
    out->position_count = w->plies;
}

void make_move(int64_t g, int k, StoredMove *out)
{
    const Played *w = play(g);
    memset(out, 0, sizeof *out);
    out->game = g;
    out->ply = k;
    memcpy(out->move, w->move[k], sizeof out->move);
    out->score = (int32_t)((g * 100 + k) % 30000) * (k % 2 ? -1 : 1); /* within +-SCORE_INF */
    out->depth = k % 9;
    out->nodes = g * 100000 + k;
}

void make_position(int64_t g, int k, StoredPosition *out)
{
    const Played *w = play(g);
    memset(out, 0, sizeof *out);
    out->game = g;
    out->ply = k;
    memcpy(out->tfen, w->tfen[k], sizeof out->tfen);
    out->side = w->side[k];
    out->score = (int32_t)(g - k);
    /* the game's result from the side to move's view */
    out->result = w->result == 0 ? 0.5f : (w->result > 0) == (w->side[k] == 0) ? 1.0f : 0.0f;
}

Batch make_batch(int64_t first, int n)
{
    Batch b = {n, calloc((size_t)n + 1, sizeof(StoredGame)), NULL, NULL};
    int nm = 0;
    for (int i = 0; i < n; i++)
        nm += moves_of(first + i);
    b.moves = calloc((size_t)nm + 1, sizeof(StoredMove));
    b.positions = calloc((size_t)nm + 1, sizeof(StoredPosition));
    assert_non_null(b.games);
    assert_non_null(b.moves);
    assert_non_null(b.positions);
    int m = 0;
    for (int i = 0; i < n; i++) {
        make_game(first + i, &b.games[i]);
        for (int k = 0; k < moves_of(first + i); k++, m++) {
            make_move(first + i, k, &b.moves[m]);
            make_position(first + i, k, &b.positions[m]);
        }
    }
    return b;
}

void free_batch(Batch *b)
{
    free(b->games);
    free(b->moves);
    free(b->positions);
}

void make_engines(StoredEngine *e, int n)
{
    memset(e, 0, sizeof *e * (size_t)n);
    for (int i = 0; i < n; i++) {
        snprintf(e[i].name, sizeof e[i].name, "engine-%d", i);
        snprintf(e[i].path, sizeof e[i].path, "configs/engines/e%d.ini", i);
        for (int w = 0; w < EVAL_NWEIGHTS; w++)
            e[i].weights[w] = w * 3 - i;
        e[i].depth = 2 + i;
        e[i].nodes = 1000 * i;
        e[i].movetime_ms = 10 * i;
    }
}

void check_games(const StoreContents *c, int64_t n, bool with_rows)
{
    assert_true(c->ngames >= n);
    int64_t off = 0;
    for (int64_t g = 0; g < c->ngames; g++) {
        StoredGame want;
        make_game(g, &want);
        want.move_offset = want.position_offset = off;
        assert_true(c->games[g].stored_at > 1700000000); /* stamped by the append: a time after 2023 */
        want.stored_at = c->games[g].stored_at;
        if (memcmp(&want, &c->games[g], sizeof want) != 0)
            fail_msg("game %lld differs", (long long)g);
        if (with_rows) {
            for (int k = 0; k < want.move_count; k++) {
                StoredMove m;
                StoredPosition p;
                make_move(g, k, &m);
                make_position(g, k, &p);
                if (memcmp(&m, &c->moves[off + k], sizeof m) != 0)
                    fail_msg("game %lld move %d differs", (long long)g, k);
                if (memcmp(&p, &c->positions[off + k], sizeof p) != 0)
                    fail_msg("game %lld position %d differs", (long long)g, k);
            }
        }
        off += want.move_count;
    }
    if (with_rows) {
        assert_int_equal(c->nmoves, off);
        assert_int_equal(c->npositions, off);
    }
}

void append_range(H5Store *s, int64_t first, int n)
{
    Batch b = make_batch(first, n);
    TvError err;
    tv_error_clear(&err);
    if (h5store_append(s, b.games, n, b.moves, b.positions, &err) != TV_OK)
        fail_msg("append: %s", err.msg);
    free_batch(&b);
}

/* ---- files -------------------------------------------------------------------- */

Scratch scratch(const char *name)
{
    Scratch s;
    const char *base = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/tavreli-h5-XXXXXX", base && base[0] ? base : "/tmp");
    assert_non_null(mkdtemp(s.dir));
    snprintf(s.path, sizeof s.path, "%s/%s", s.dir, name);
    return s;
}

void scratch_remove(const Scratch *s)
{
    char buf[400];
    static const char *const suffixes[] = {"", ".tmp"};
    for (int i = 0; i < 2; i++) {
        snprintf(buf, sizeof buf, "%s%s", s->path, suffixes[i]);
        remove(buf);
    }
    rmdir(s->dir);
}

H5Store *create_store(const char *path, bool force)
{
    StoredEngine e[3];
    make_engines(e, 3);
    H5Store *s = NULL;
    TvError err;
    tv_error_clear(&err);
    if (h5store_create(path, force, e, 3, INI, OPTIONS, &s, &err) != TV_OK)
        fail_msg("create: %s", err.msg);
    return s;
}

void close_store(H5Store *s)
{
    TvError err;
    tv_error_clear(&err);
    if (h5store_close(s, &err) != TV_OK)
        fail_msg("close: %s", err.msg);
}

StoreContents read_store(const char *path)
{
    StoreContents c;
    TvError err;
    tv_error_clear(&err);
    if (h5store_read(path, true, true, &c, &err) != TV_OK)
        fail_msg("read: %s", err.msg);
    return c;
}

void check_attributes(const StoreContents *c)
{
    StoredEngine e[3];
    make_engines(e, 3);
    assert_int_equal(c->schema_version, H5STORE_SCHEMA_VERSION);
    assert_string_equal(c->tournament_ini, INI);
    assert_string_equal(c->options, OPTIONS);
    assert_true(strlen(c->program_version) > 0);
    assert_int_equal(c->nengines, 3);
    assert_memory_equal(c->engines, e, sizeof e);
}

void expect_error(TvStatus got, const TvError *err, const char *part1, const char *part2)
{
    if (got == TV_OK)
        fail_msg("no error (expected one naming '%s'%s%s)", part1, part2 ? " / " : "", part2 ? part2 : "");
    if (!strstr(err->msg, part1) || (part2 && !strstr(err->msg, part2)))
        fail_msg("error '%s' lacks '%s'%s%s", err->msg, part1, part2 ? " / " : "", part2 ? part2 : "");
}
