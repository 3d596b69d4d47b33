/* export.c: digests and TGN records of a store.  See export.h. */
#include "export.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "notation.h"
#include "outcome.h"
#include "record.h"
#include "search.h"
#include "tfen.h"
#include "verify.h"

static int cmp_game_index(const void *a, const void *b)
{
    const StoredGame *x = *(const StoredGame *const *)a, *y = *(const StoredGame *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The games of c in ascending game index (heap; NULL when out of memory). */
static const StoredGame **index_order(const StoreContents *c)
{
    const StoredGame **order = malloc(sizeof *order * (size_t)(c->ngames ? c->ngames : 1));
    if (!order)
        return NULL;
    for (int64_t i = 0; i < c->ngames; i++)
        order[i] = &c->games[i];
    qsort(order, (size_t)c->ngames, sizeof *order, cmp_game_index);
    return order;
}

/* Opens path for writing and puts the games of c in index order: both or
 * neither (an error then). */
static TvStatus open_export(const StoreContents *c, const char *path, const char *what, const StoredGame ***order,
                            TvAtomicFile *f, TvError *err)
{
    *order = index_order(c);
    if (!*order)
        return tv_fail(err, TV_ERR_LIMIT, "export: out of memory");
    TvStatus st = tv_atomic_open(f, path, what, err);
    if (st != TV_OK)
        free(*order);
    return st;
}

/* The first problem verify finds. */
typedef struct {
    int64_t game;
    char what[400];
} FirstProblem;

static void first_problem(int64_t game, const char *what, void *user)
{
    FirstProblem *fp = user;
    if (fp->game < 0) {
        fp->game = game;
        snprintf(fp->what, sizeof fp->what, "%s", what);
    }
}

TvStatus export_check_moves(const StoreContents *c, const char *source, TvError *err)
{
    /* every game's moves were replayed as the store was read (h5store_read);
     * the positions, when read, are checked against the replay here */
    if (!c->positions)
        return TV_OK;
    FirstProblem fp = {-1, ""};
    VerifyReport r;
    TvStatus vs = verify_store_games(c, first_problem, &fp, &r, err);
    if (vs != TV_OK || fp.game < 0)
        return vs;
    return tv_fail(err, TV_ERR_PARSE, "%s: game %lld: %s; the store is damaged ('tavreli verify %s' lists every problem)",
                   source, (long long)fp.game, fp.what, source);
}

static TvStatus digest_locked(const StoreContents *c, const char *path, TvError *err);

/* One run at a time writes an export (tv_lock_output on its path). */
#define EXPORT_LOCK_ADVICE "wait until it ends, or give this one another path"

TvStatus export_digest(const StoreContents *c, const char *path, TvError *err)
{
    TvLock *lock;
    TvStatus st = tv_lock_output(path, EXPORT_LOCK_ADVICE, NULL, NULL, &lock, err);
    if (st != TV_OK)
        return st;
    st = digest_locked(c, path, err);
    tv_unlock_output(lock);
    return st;
}

static TvStatus digest_locked(const StoreContents *c, const char *path, TvError *err)
{
    const StoredGame **order;
    TvAtomicFile af;
    TvStatus st = open_export(c, path, "digest file", &order, &af, err);
    if (st != TV_OK)
        return st;
    FILE *f = af.f;
    for (int64_t i = 0; i < c->ngames; i++) {
        const StoredGame *g = order[i];
        uint64_t h = tv_hash_bytes(TV_HASH_START, g->start_tfen, strnlen(g->start_tfen, sizeof g->start_tfen));
        for (int32_t k = 0; k < g->move_count; k++) {
            const StoredMove *m = &c->moves[g->move_offset + k];
            int64_t v[4] = {m->game, m->ply, m->score, m->depth};
            h = tv_hash_bytes(h, m->move, strnlen(m->move, sizeof m->move));
            h = tv_hash_bytes(h, v, sizeof v);
            h = tv_hash_bytes(h, &m->nodes, sizeof m->nodes);
        }
        for (int32_t k = 0; k < g->position_count; k++) {
            const StoredPosition *p = &c->positions[g->position_offset + k];
            int64_t v[4] = {p->game, p->ply, p->side, p->score};
            double r = p->result;
            h = tv_hash_bytes(h, p->tfen, strnlen(p->tfen, sizeof p->tfen));
            h = tv_hash_bytes(h, v, sizeof v);
            h = tv_hash_bytes(h, &r, sizeof r);
        }
        fprintf(f, "%lld pairing=%d white=%d black=%d opening=%d result=%d termination=%s plies=%d seed=%llu "
                   "moves=%d positions=%d hash=%016llx\n",
                (long long)g->index, g->pairing, g->white, g->black, g->opening, g->result,
                termination_name((Termination)g->termination), g->plies, (unsigned long long)g->seed, g->move_count,
                g->position_count, (unsigned long long)h);
    }
    free(order);
    return tv_atomic_commit(&af, err);
}

typedef struct {
    char *buf;
    size_t n;
    bool found;
} NameReader;

static int name_handler(void *user, const char *section, const char *name, const char *value)
{
    NameReader *r = user;
    if (!strcmp(section, "tournament") && !strcmp(name, "name") && !r->found) {
        snprintf(r->buf, r->n, "%s", value);
        r->found = true;
    }
    return 1;
}

void export_tournament_name(const char *ini_text, const char *fallback, char *buf, size_t n)
{
    NameReader r = {buf, n, false};
    if (ini_text)
        ini_parse_string(ini_text, name_handler, &r);
    if (!r.found || !buf[0])
        snprintf(buf, n, "%s", fallback);
}

/* A move's comment: the mover's score (in combatants, "+M3" for a mate in 3
 * moves), the search depth and the time used: "+0.35/4 0.12s", as
 * cutechess-cli writes it; "" for a random mover. */
static void move_comment(const StoredMove *m, char *buf, size_t n)
{
    if (m->depth <= 0 && m->nodes == 0) {
        buf[0] = 0;
        return;
    }
    char score[24], time[24] = "";
    if (m->score > SCORE_MATE_BOUND)
        snprintf(score, sizeof score, "+M%d", (SCORE_MATE - m->score + 1) / 2);
    else if (m->score < -SCORE_MATE_BOUND)
        snprintf(score, sizeof score, "-M%d", (SCORE_MATE + m->score) / 2);
    else
        snprintf(score, sizeof score, "%+.2f", m->score / 100.0);
    if (m->time_ms >= 0)
        snprintf(time, sizeof time, " %.2fs", m->time_ms / 1000.0);
    snprintf(buf, n, "%s/%d%s", score, m->depth, time);
}

/* A player's name as a tag value: the store's text, which may lack its
 * terminating NUL or hold a line break (a hand-made store): read within its
 * field and escaped (tv_escape: "\x0A"), so the record reads back. */
static void engine_tag(const StoreContents *c, int i, char *buf, size_t n)
{
    if (i < 0 || i >= c->nengines) {
        snprintf(buf, n, "?");
        return;
    }
    const char *name = c->engines[i].name;
    char raw[sizeof c->engines[0].name + 1];
    size_t len = strnlen(name, sizeof c->engines[0].name);
    memcpy(raw, name, len);
    raw[len] = 0;
    tv_escape(raw, buf, n);
}

static TvStatus tgn_locked(const StoreContents *c, const char *source, const char *path, TvError *err);

TvStatus export_tgn(const StoreContents *c, const char *source, const char *path, TvError *err)
{
    TvLock *lock;
    TvStatus st = tv_lock_output(path, EXPORT_LOCK_ADVICE, NULL, NULL, &lock, err);
    if (st != TV_OK)
        return st;
    st = tgn_locked(c, source, path, err);
    tv_unlock_output(lock);
    return st;
}

/* The Event tag of c's records: its tournament's name; without a name key
 * the run was named after its INI file, and its default output after the
 * run, so the store's own name is the best guess. */
static void event_name(const StoreContents *c, const char *source, char *event, size_t n)
{
    char stem[128];
    const char *base = strrchr(source, '/');
    snprintf(stem, sizeof stem, "%s", base ? base + 1 : source);
    size_t sl = strlen(stem);
    if (sl > 3 && strcmp(stem + sl - 3, ".h5") == 0)
        stem[sl - 3] = 0;
    char name[128];
    export_tournament_name(c->tournament_ini, stem, name, sizeof name);
    tv_escape(name, event, n); /* the store's text: no control byte in a tag */
}

/* One game's record with the event name given (export_tgn_game). */
static TvStatus tgn_game(const StoreContents *c, const char *source, const char *event, const Options *o,
                         const StoredGame *g, char **text, TvError *err)
{
    *text = NULL;
    Position start;
    TvError e;
    if (tfen_read(g->start_tfen, &start, &e) != TV_OK)
        return tv_fail(err, TV_ERR_PARSE, "%s: game %lld: bad start TFEN: %s", source, (long long)g->index, e.msg);
    const size_t n = (size_t)g->move_count + 1;
    Move *moves = malloc(sizeof *moves * n);
    uint64_t *hist = malloc(sizeof *hist * n);
    char(*comments)[48] = malloc(sizeof *comments * n);
    const char **comment_ptrs = malloc(sizeof *comment_ptrs * n);
    TvStatus st = TV_OK;
    if (!moves || !hist || !comments || !comment_ptrs) {
        st = tv_fail(err, TV_ERR_LIMIT, "export: out of memory");
        goto done;
    }
    for (int32_t k = 0; k < g->move_count; k++)
        comment_ptrs[k] = comments[k];
    /* every move replayed, and the stored result and termination checked
     * against the position they reach: a record never says what its
     * moves contradict */
    char why[400];
    if (verify_moves(g, &c->moves[g->move_offset], o, moves, hist, why, sizeof why)) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld: %s; the store is damaged ('tavreli verify %s' lists every problem)",
                     source, (long long)g->index, why, source);
        goto done;
    }
    char round[32], index[32], white[4 * sizeof c->engines[0].name + 1], black[sizeof white];
    snprintf(round, sizeof round, "%lld", (long long)g->index + 1); /* 1-based, as PGN counts */
    snprintf(index, sizeof index, "%lld", (long long)g->index);
    engine_tag(c, g->white, white, sizeof white);
    engine_tag(c, g->black, black, sizeof black);
    RecordTag tags[6] = {{"Event", (char *)event},
                         {"Round", round},
                         {"GameIndex", index},
                         {"White", white},
                         {"Black", black},
                         {"Termination", (char *)termination_name((Termination)g->termination)}};
    const char *result = g->result > 0 ? "1-0" : g->result < 0 ? "0-1" : "1/2-1/2";
    for (int32_t k = 0; k < g->move_count; k++)
        move_comment(&c->moves[g->move_offset + k], comments[k], sizeof comments[k]);
    *text = record_write_tgn(&start, o, moves, g->move_count, tags, 6, result, comment_ptrs);
    if (!*text)
        st = tv_fail(err, TV_ERR_LIMIT, "%s: game %lld could not be written (out of memory)", source,
                     (long long)g->index);
done:
    free(moves);
    free(hist);
    free(comments);
    free(comment_ptrs);
    return st;
}

TvStatus export_tgn_game(const StoreContents *c, const char *source, const StoredGame *g, char **text,
                         TvError *err)
{
    Options o = {0};
    rule_options_parse(c->options ? c->options : "", &o, NULL);
    char event[128];
    event_name(c, source, event, sizeof event);
    return tgn_game(c, source, event, &o, g, text, err);
}

static TvStatus tgn_locked(const StoreContents *c, const char *source, const char *path, TvError *err)
{
    const StoredGame **order;
    TvAtomicFile af;
    TvStatus st = open_export(c, path, "TGN file", &order, &af, err);
    if (st != TV_OK)
        return st;
    Options o = {0};
    rule_options_parse(c->options ? c->options : "", &o, NULL);
    char event[128];
    event_name(c, source, event, sizeof event);
    for (int64_t gi = 0; gi < c->ngames && st == TV_OK; gi++) {
        char *text;
        if ((st = tgn_game(c, source, event, &o, order[gi], &text, err)) != TV_OK)
            break;
        fputs(text, af.f);
        fputs("\n", af.f);
        free(text);
    }
    free(order);
    if (st != TV_OK) {
        tv_atomic_abort(&af); /* the old file (or none), not half an export */
        return st;
    }
    return tv_atomic_commit(&af, err);
}
