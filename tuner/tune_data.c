/* tune_data.c: the tuner's data set (see tune_data.h): the sparse set of
 * feature vectors, resolving positions to quiet leaves, loading self-play
 * stores, the split into fit and hold-out games, and random-walk positions. */
#include "tune_data.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "grow.h"
#include "h5store.h"
#include "idset.h"
#include "movegen.h"
#include "record.h"
#include "rng.h"
#include "search.h"
#include "tfen.h"

#define NW EVAL_NWEIGHTS

/* ---- seeds ------------------------------------------------------------------- */

uint64_t tune_seed_mix(uint64_t seed, uint64_t k) { return tv_rng_mix(seed ^ (k * 0x2545f4914f6cdd1dULL)); }

/* ---- the sparse set ---------------------------------------------------- */

void tune_set_init(TuneSet *s) { memset(s, 0, sizeof *s); }

void tune_set_free(TuneSet *s)
{
    free(s->row);
    free(s->ent);
    free(s->label2);
    free(s->game);
    tune_set_init(s);
}

static TvStatus reserve(TuneSet *s, int64_t n, int64_t nnz, TvError *err)
{
    /* three arrays of one capacity: each grows from s->cap alike */
    int64_t c[3] = {s->cap, s->cap, s->cap};
    if (!tv_grow((void **)&s->row, &c[0], n + 1, sizeof *s->row) ||
        !tv_grow((void **)&s->label2, &c[1], n + 1, sizeof *s->label2) ||
        !tv_grow((void **)&s->game, &c[2], n + 1, sizeof *s->game))
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory for %lld positions", (long long)n);
    s->cap = c[0];
    if (!tv_grow((void **)&s->ent, &s->cap_nnz, nnz, sizeof *s->ent))
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory for %lld features", (long long)nnz);
    if (s->n == 0)
        s->row[0] = 0;
    return TV_OK;
}

TvStatus tune_set_add(TuneSet *s, const EvalTrace *t, int sign, double result, int32_t game, TvError *err)
{
    int label2;
    if (result == 0.0)
        label2 = 0;
    else if (result == 0.5)
        label2 = 1;
    else if (result == 1.0)
        label2 = 2;
    else
        return tv_fail(err, TV_ERR_ARG, "tune: result %g is not 0, 0.5 or 1", result);
    if (game < 0)
        return tv_fail(err, TV_ERR_ARG, "tune: negative game number %d", (int)game);
    int k = 0;
    for (int i = 0; i < NW; i++) {
        if (t->f[i] < -32767 || t->f[i] > 32767)
            return tv_fail(err, TV_ERR_LIMIT, "tune: feature %d count %d does not fit 16 bits", i, t->f[i]);
        k += t->f[i] != 0;
    }
    TvStatus st = reserve(s, s->n + 1, s->nnz + k, err);
    if (st != TV_OK)
        return st;
    for (int i = 0; i < NW; i++)
        if (t->f[i])
            s->ent[s->nnz++] = (TuneEntry){(int16_t)i, (int16_t)(sign * t->f[i])};
    s->label2[s->n] = (uint8_t)label2;
    s->game[s->n] = game;
    s->n++;
    s->row[s->n] = s->nnz;
    if (game + 1 > s->ngames)
        s->ngames = game + 1;
    return TV_OK;
}

TvStatus tune_set_add_from(TuneSet *s, const TuneSet *src, int64_t i, TvError *err)
{
    int64_t a = src->row[i], b = src->row[i + 1];
    TvStatus st = reserve(s, s->n + 1, s->nnz + (b - a), err);
    if (st != TV_OK)
        return st;
    memcpy(&s->ent[s->nnz], &src->ent[a], sizeof(TuneEntry) * (size_t)(b - a));
    s->nnz += b - a;
    s->label2[s->n] = src->label2[i];
    s->game[s->n] = src->game[i];
    s->n++;
    s->row[s->n] = s->nnz;
    if (src->game[i] + 1 > s->ngames)
        s->ngames = src->game[i] + 1;
    return TV_OK;
}

double tune_set_dot(const TuneSet *s, int64_t i, const double *w)
{
    double e = 0;
    for (int64_t k = s->row[i]; k < s->row[i + 1]; k++)
        e += w[s->ent[k].idx] * s->ent[k].val;
    return e;
}

size_t tune_set_bytes(const TuneSet *s)
{
    return (size_t)(s->n + 1) * sizeof *s->row + (size_t)s->nnz * sizeof *s->ent +
           (size_t)s->n * (sizeof *s->label2 + sizeof *s->game);
}
/* ---- resolving positions ------------------------------------------------ */

void tune_resolve(SearchContext *ctx, const Position *pos, const Options *rules, EvalTrace *trace, int *qscore,
                  Position *leaf_out)
{
    Position leaf;
    int q = 0;
    search_quiet(ctx, pos, &leaf, &q);
    eval_trace(&leaf, rules, trace);
    if (leaf.side != pos->side)
        for (int i = 0; i < NW; i++)
            trace->f[i] = -trace->f[i];
    if (qscore)
        *qscore = q;
    if (leaf_out)
        *leaf_out = leaf;
}

/* Search contexts for resolving, one per OpenMP thread (allocating one
 * clears a transposition table and builds tables: done once per store, not
 * per chunk of positions). */
typedef struct {
    SearchContext **ctx;
    int n;
} Resolvers;

static void resolvers_free(Resolvers *r)
{
    for (int t = 0; r->ctx && t < r->n; t++)
        if (r->ctx[t])
            search_free(r->ctx[t]);
    free(r->ctx);
    r->ctx = NULL;
    r->n = 0;
}

static TvStatus resolvers_alloc(Resolvers *r, const EvalParams *params, const Options *rules, TvError *err)
{
    r->n = omp_get_max_threads();
    SearchSettings set;
    search_settings_default(&set);
    set.tt_mb = 1; /* the quiescence search does not use the table */
    r->ctx = calloc((size_t)r->n, sizeof *r->ctx);
    if (!r->ctx)
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    for (int t = 0; t < r->n; t++)
        if (!(r->ctx[t] = search_alloc(params, rules, &set))) {
            resolvers_free(r);
            return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory for a search context");
        }
    return TV_OK;
}

/* Appends m resolved positions (traces tr, quiescence scores qs) with their
 * results and games (of position at[i], or i when at is NULL), skipping
 * those with a mate score (counted in *skip). */
static TvStatus append_resolved(TuneSet *s, const EvalTrace *tr, const int *qs, const double *result,
                                const int32_t *game, const int32_t *at, int64_t m, int64_t *skip, TvError *err)
{
    TvStatus st = TV_OK;
    for (int64_t i = 0; st == TV_OK && i < m; i++) {
        if (qs[i] >= SCORE_MATE_BOUND || qs[i] <= -SCORE_MATE_BOUND) {
            ++*skip;
            continue;
        }
        int64_t j = at ? at[i] : i;
        st = tune_set_add(s, &tr[i], 1, result[j], game[j], err);
    }
    return st;
}

static TvStatus add_positions(TuneSet *s, const Resolvers *rv, const Position *pos, const double *result,
                              const int32_t *game, int64_t n, const Options *rules, int64_t *skipped, TvError *err)
{
    enum { BATCH = 8192 };
    size_t nb = n < BATCH ? (size_t)(n > 0 ? n : 1) : BATCH; /* a small call touches little fresh memory */
    EvalTrace *tr = malloc(sizeof *tr * nb);
    int *qs = malloc(sizeof *qs * nb);
    TvStatus st = TV_OK;
    if (!tr || !qs)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    int64_t skip = 0;
    for (int64_t b0 = 0; st == TV_OK && b0 < n; b0 += BATCH) {
        int64_t m = n - b0 < BATCH ? n - b0 : BATCH;
#pragma omp parallel for schedule(dynamic, 16) num_threads(rv->n)
        for (int64_t i = 0; i < m; i++)
            tune_resolve(rv->ctx[omp_get_thread_num()], &pos[b0 + i], rules, &tr[i], &qs[i], NULL);
        st = append_resolved(s, tr, qs, result + b0, game + b0, NULL, m, &skip, err);
    }
    free(tr);
    free(qs);
    if (skipped)
        *skipped += skip;
    return st;
}

TvStatus tune_add_positions(TuneSet *s, const Position *pos, const double *result, const int32_t *game, int64_t n,
                            const EvalParams *params, const Options *rules, int64_t *skipped, TvError *err)
{
    Resolvers rv = {NULL, 0};
    TvStatus st = resolvers_alloc(&rv, params, rules, err);
    if (st == TV_OK)
        st = add_positions(s, &rv, pos, result, game, n, rules, skipped, err);
    resolvers_free(&rv);
    return st;
}

/* Sorts order[0..n) (indices into games) by the games' plan index: a
 * bottom-up merge sort (stable; no global comparator context). */
static void sort_by_game_index(int64_t *order, int64_t n, const StoredGame *games)
{
    int64_t *tmp = malloc(sizeof *tmp * (size_t)(n ? n : 1));
    if (!tmp) { /* insertion sort: the rows are nearly in order already */
        for (int64_t i = 1; i < n; i++)
            for (int64_t j = i; j > 0 && games[order[j - 1]].index > games[order[j]].index; j--) {
                int64_t x = order[j];
                order[j] = order[j - 1];
                order[j - 1] = x;
            }
        return;
    }
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t a = lo, b = mid, k = lo;
            while (a < mid || b < hi)
                tmp[k++] = b >= hi || (a < mid && games[order[a]].index <= games[order[b]].index) ? order[a++]
                                                                                                 : order[b++];
        }
        memcpy(order, tmp, sizeof *order * (size_t)n);
    }
    free(tmp);
}

/* ---- loading stores ----------------------------------------------------- */

/* The first copy of each (position, result) key: keys and the number (in
 * reading order, over all stores) of the first position read with each.
 * The threads that parse a chunk claim the keys of its positions at once
 * (an atomic minimum), so that parsing, dropping the duplicates and
 * resolving are one parallel loop, with no pass on one thread in between;
 * a position is kept when it is still its key's first when the chunk is
 * appended (a later copy that a thread claimed before the first was read
 * is resolved in vain, and dropped then).  Open addressing with linear
 * probing; grown by one thread between chunks, to stay under half full. */
typedef struct {
    _Atomic uint64_t *key;   /* cap slots, 0: free (key 0 is zero_first) */
    _Atomic int64_t *first;  /* the smallest position number with the key */
    size_t cap;
    _Atomic size_t n;        /* slots taken */
    _Atomic int64_t zero_first;
} FirstSeen;

#define FIRST_NONE INT64_MAX

/* The slot of key 0 or of a key in the table (when absent: the free slot
 * where it would go, taken when take). */
static _Atomic int64_t *first_slot(FirstSeen *fs, uint64_t key, bool take)
{
    if (!key)
        return &fs->zero_first;
    for (size_t i = tv_idset_home(key, fs->cap);; i = (i + 1) & (fs->cap - 1)) {
        uint64_t cur = atomic_load_explicit(&fs->key[i], memory_order_relaxed);
        if (!cur && take) {
            if (atomic_compare_exchange_strong_explicit(&fs->key[i], &cur, key, memory_order_relaxed,
                                                        memory_order_relaxed)) {
                atomic_fetch_add_explicit(&fs->n, 1, memory_order_relaxed);
                cur = key;
            } /* else cur is the key another thread put there */
        }
        if (cur == key || !cur)
            return &fs->first[i];
    }
}

/* Room for m more keys (one thread, outside the parallel loops). */
static bool first_reserve(FirstSeen *fs, size_t m)
{
    size_t n = atomic_load(&fs->n);
    if (2 * (n + m) <= fs->cap)
        return true;
    size_t cap = fs->cap ? fs->cap : 1024;
    while (2 * (n + m) > cap)
        cap *= 2;
    FirstSeen g = {calloc(cap, sizeof *g.key), malloc(cap * sizeof *g.first), cap, 0, fs->zero_first};
    if (!g.key || !g.first) {
        free(g.key);
        free(g.first);
        return false;
    }
    for (size_t i = 0; i < cap; i++)
        atomic_init(&g.first[i], FIRST_NONE);
    for (size_t i = 0; i < fs->cap; i++)
        if (fs->key[i])
            atomic_store(first_slot(&g, fs->key[i], true), atomic_load(&fs->first[i]));
    free(fs->key);
    free(fs->first);
    *fs = g;
    return true;
}

/* Lowers key's first position number to seq: true when seq is now the
 * first (no position before it has the key). */
static bool first_claim(FirstSeen *fs, uint64_t key, int64_t seq)
{
    _Atomic int64_t *f = first_slot(fs, key, true);
    int64_t old = atomic_load_explicit(f, memory_order_relaxed);
    while (seq < old && !atomic_compare_exchange_weak_explicit(f, &old, seq, memory_order_relaxed,
                                                               memory_order_relaxed))
        ;
    return seq < old;
}

static void first_free(FirstSeen *fs)
{
    free(fs->key);
    free(fs->first);
}

/* Positions parsed and resolved at a time, and what became of each.  A
 * chunk is about 15 ms of work on 2 threads; its parallel loop ends at most
 * one grain (16 positions, a quarter of a millisecond) apart on the
 * threads.  2,048 also puts the store of tests/test_tune_load.c (2,975
 * positions) in two chunks, so that the test covers appending one chunk
 * while the next is resolved. */
enum { CHUNK = 2048, CH_BAD = 1, CH_RESOLVED = 2 };
typedef struct {
    int64_t fill, seq0; /* positions held; the number of the first (reading order) */
    const char **tfen;  /* in the store's rows */
    double *res;
    int32_t *gm;
    uint64_t *key;
    uint8_t *state; /* CH_* */
    EvalTrace *tr;
    int *qs;
} Chunk;

static bool chunk_alloc(Chunk *c)
{
    c->tfen = malloc(sizeof *c->tfen * CHUNK);
    c->res = malloc(sizeof *c->res * CHUNK);
    c->gm = malloc(sizeof *c->gm * CHUNK);
    c->key = malloc(sizeof *c->key * CHUNK);
    c->state = malloc(sizeof *c->state * CHUNK);
    c->tr = malloc(sizeof *c->tr * CHUNK);
    c->qs = malloc(sizeof *c->qs * CHUNK);
    c->fill = 0;
    return c->tfen && c->res && c->gm && c->key && c->state && c->tr && c->qs;
}

static void chunk_free(Chunk *c)
{
    free(c->tfen);
    free(c->res);
    free(c->gm);
    free(c->key);
    free(c->state);
    free(c->tr);
    free(c->qs);
}

/* Parses position i of the chunk, claims its key and, when it is the first
 * with it so far, resolves it (any thread). */
static void chunk_resolve_one(Chunk *c, int64_t i, FirstSeen *fs, SearchContext *ctx, const Options *rules)
{
    Position pos;
    if (tfen_read(c->tfen[i], &pos, NULL) != TV_OK) {
        c->state[i] = CH_BAD;
        return;
    }
    /* a position seen before with the same result (in any game of any
     * store) is left out */
    c->key[i] = tv_rng_mix(pos.hash ^ ((uint64_t)(c->res[i] * 2) + 1) * TV_RNG_GOLDEN);
    c->state[i] = 0;
    if (first_claim(fs, c->key[i], c->seq0 + i)) {
        tune_resolve(ctx, &pos, rules, &c->tr[i], &c->qs[i], NULL);
        c->state[i] = CH_RESOLVED;
    }
}

/* After the parallel loop of a chunk (one thread): the first bad TFEN is
 * the error; the first copies are appended in order (a mate score
 * skipped), every other copy counted. */
static TvStatus chunk_append(const Chunk *c, FirstSeen *fs, TuneSet *out, TuneLoadCounts *counts,
                             const char *file, int64_t game_base, TvError *err)
{
    for (int64_t i = 0; i < c->fill; i++)
        if (c->state[i] & CH_BAD)
            return tv_fail(err, TV_ERR_PARSE, "%s: bad TFEN '%.60s' (game %d of the store)", file, c->tfen[i],
                           (int)(c->gm[i] - game_base));
    for (int64_t i = 0; i < c->fill; i++) {
        if (!(c->state[i] & CH_RESOLVED) ||
            atomic_load_explicit(first_slot(fs, c->key[i], false), memory_order_relaxed) != c->seq0 + i) {
            counts->duplicate_positions++;
            continue;
        }
        if (c->qs[i] >= SCORE_MATE_BOUND || c->qs[i] <= -SCORE_MATE_BOUND) {
            counts->skipped++;
            continue;
        }
        TvStatus st = tune_set_add(out, &c->tr[i], 1, c->res[i], c->gm[i], err);
        if (st != TV_OK)
            return st;
    }
    return TV_OK;
}

TvStatus tune_load(const char *const *files, int nfiles, const EngineVersion *start, bool mix_rules, TuneSet *out,
                   TuneLoadCounts *counts, TvError *err)
{
    return tune_load_stoppable(files, nfiles, start, mix_rules, NULL, out, counts, err);
}

TvStatus tune_load_stoppable(const char *const *files, int nfiles, const EngineVersion *start, bool mix_rules,
                             const volatile sig_atomic_t *stop, TuneSet *out, TuneLoadCounts *counts, TvError *err)
{
    tune_set_init(out);
    TuneLoadCounts local;
    if (!counts)
        counts = &local;
    memset(counts, 0, sizeof *counts);
    TvIdSet ids = {0}; /* games read */
    FirstSeen keys = {NULL, NULL, 0, 0, FIRST_NONE};
    char *first_options = NULL;
    if (nfiles < 1)
        return tv_fail(err, TV_ERR_ARG, "tune: no data files");
    /* Two chunks: while the threads parse and resolve one, a thread appends
     * the one before. */
    Chunk ch[2];
    bool ok0 = chunk_alloc(&ch[0]), ok1 = chunk_alloc(&ch[1]);
    TvStatus st = TV_OK;
    if (!ok0 || !ok1)
        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    int64_t game_base = 0, seq = 0;
    for (int f = 0; st == TV_OK && f < nfiles; f++) {
        StoreContents c;
        memset(&c, 0, sizeof c);
        st = h5store_read_stoppable(files[f], false, true, stop, &c, err);
        if (st != TV_OK)
            break;
        counts->torn_rows += c.torn_rows;
        if (f == 0)
            first_options = strdup(c.options ? c.options : "");
        else if (!mix_rules && first_options && strcmp(first_options, c.options ? c.options : "") != 0) {
            st = tv_fail(err, TV_ERR_ARG,
                         "%s was played under other rules (%s) than %s (%s): tuning on both needs --mix-rules",
                         files[f], c.options ? c.options : "", files[0], first_options);
            h5store_contents_free(&c);
            break;
        }
        Options rules;
        TvError oe;
        if (rule_options_parse(c.options ? c.options : "", &rules, &oe) != TV_OK) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: bad rule options '%s': %s", files[f], c.options ? c.options : "",
                         oe.msg);
            h5store_contents_free(&c);
            break;
        }
        Resolvers rv = {NULL, 0};
        /* Positions of game gi are rows position_offset .. + position_count.
         * The games are read in plan order (their index), not in the order
         * the threads happened to store them, so that the game numbers, the
         * split and which copy of a duplicate is kept depend only on the
         * games. */
        int64_t *order = malloc(sizeof *order * (size_t)(c.ngames ? c.ngames : 1));
        if (!order) {
            st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
            h5store_contents_free(&c);
            break;
        }
        for (int64_t gi = 0; gi < c.ngames; gi++)
            order[gi] = gi;
        sort_by_game_index(order, c.ngames, c.games);
        /* ch[cur] is being filled; ch[cur ^ 1] waits to be appended when
         * pending.  An error found while filling (fill_st, fill_err) is
         * reported after the pending chunk is appended, as it comes after
         * it. */
        int cur = 0;
        bool pending = false;
        TvStatus fill_st = TV_OK;
        TvError fill_err;
        ch[cur].fill = 0;
        for (int64_t gi = 0; st == TV_OK && fill_st == TV_OK && gi <= c.ngames; gi++) {
            bool last = gi == c.ngames;
            const StoredGame *g = last ? NULL : &c.games[order[gi]];
            int64_t cnt = last ? 0 : g->position_count;
            if (!last) { /* a game an earlier store holds too: read once */
                int added = tv_idset_add(&ids, h5store_game_id(&c, g));
                if (added < 0) {
                    fill_st = tv_fail(&fill_err, TV_ERR_LIMIT, "tune: out of memory");
                    break;
                }
                if (!added) {
                    counts->duplicate_games++;
                    cnt = 0;
                }
            }
            if (!last && (g->position_offset < 0 || g->position_offset + cnt > c.npositions)) {
                fill_st = tv_fail(&fill_err, TV_ERR_PARSE, "%s: game %lld: positions %lld..%lld are not in the store",
                                  files[f], (long long)g->index, (long long)g->position_offset,
                                  (long long)(g->position_offset + cnt));
                break;
            }
            for (int64_t k = 0; k <= cnt; k++) {
                Chunk *fc = &ch[cur];
                bool flush = (k == cnt && last) || fc->fill == CHUNK;
                if (flush && fc->fill && stop && *stop) { /* a chunk takes milliseconds */
                    st = tv_fail(err, TV_ERR_IO, "tune: stopped by a signal while reading %s", files[f]);
                    break;
                }
                if (flush && fc->fill) {
                    if (!rv.ctx && (st = resolvers_alloc(&rv, &start->params, &rules, err)) != TV_OK)
                        break;
                    if (!first_reserve(&keys, (size_t)fc->fill)) {
                        st = tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
                        break;
                    }
                    fc->seq0 = seq;
                    seq += fc->fill;
                    /* Dynamic schedules: on a loaded machine a thread that
                     * the system holds back would leave the other waiting
                     * at a static schedule's barrier. */
#pragma omp parallel num_threads(rv.n)
                    {
#pragma omp single nowait
                        if (pending)
                            st = chunk_append(&ch[cur ^ 1], &keys, out, counts, files[f], game_base, err);
#pragma omp for schedule(dynamic, 16)
                        for (int64_t i = 0; i < fc->fill; i++)
                            chunk_resolve_one(fc, i, &keys, rv.ctx[omp_get_thread_num()], &rules);
                    }
                    pending = true;
                    cur ^= 1;
                    ch[cur].fill = 0;
                    if (st != TV_OK)
                        break;
                }
                if (k == cnt)
                    break;
                fc = &ch[cur];
                const StoredPosition *p = &c.positions[g->position_offset + k];
                if (!memchr(p->tfen, 0, sizeof p->tfen)) {
                    fill_st = tv_fail(&fill_err, TV_ERR_PARSE, "%s: game %lld: TFEN not terminated", files[f],
                                      (long long)g->index);
                    break;
                }
                if (!(p->result == 0.0f || p->result == 0.5f || p->result == 1.0f)) {
                    fill_st = tv_fail(&fill_err, TV_ERR_PARSE, "%s: game %lld ply %d: result %g is not 0, 0.5 or 1",
                                      files[f], (long long)g->index, (int)p->ply, (double)p->result);
                    break;
                }
                if (game_base + gi > INT32_MAX) {
                    fill_st = tv_fail(&fill_err, TV_ERR_LIMIT, "tune: more than 2^31 games");
                    break;
                }
                fc->tfen[fc->fill] = p->tfen;
                fc->res[fc->fill] = p->result;
                fc->gm[fc->fill] = (int32_t)(game_base + gi);
                fc->fill++;
            }
        }
        if (st == TV_OK && pending) /* the last chunk (the rows are in c) */
            st = chunk_append(&ch[cur ^ 1], &keys, out, counts, files[f], game_base, err);
        if (st == TV_OK && fill_st != TV_OK) {
            st = fill_st;
            if (err)
                *err = fill_err;
        }
        game_base += c.ngames;
        resolvers_free(&rv); /* the next store may have other rules */
        free(order);
        h5store_contents_free(&c);
    }
    chunk_free(&ch[0]);
    chunk_free(&ch[1]);
    tv_idset_free(&ids);
    first_free(&keys);
    free(first_options);
    if (st == TV_OK && out->n == 0)
        st = tv_fail(err, TV_ERR_ARG, "tune: no positions in the data (%d file%s)", nfiles, nfiles == 1 ? "" : "s");
    if (st != TV_OK)
        tune_set_free(out);
    return st;
}
/* ---- splitting ------------------------------------------------------------ */

typedef struct {
    uint64_t key;
    int32_t game;
} GameKey;

static int cmp_gamekey(const void *a, const void *b)
{
    const GameKey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->game > y->game) - (x->game < y->game);
}

TvStatus tune_split(const TuneSet *all, double holdout, uint64_t seed, TuneSet *fit, TuneSet *hold, TvError *err)
{
    tune_set_init(fit);
    tune_set_init(hold);
    if (!(holdout >= 0 && holdout < 1))
        return tv_fail(err, TV_ERR_ARG, "tune: the hold-out fraction must be in [0, 1), not %g", holdout);
    int32_t G = all->ngames;
    uint8_t *present = calloc((size_t)G + 1, 1);
    GameKey *keys = malloc(sizeof *keys * ((size_t)G + 1));
    if (!present || !keys) {
        free(present);
        free(keys);
        return tv_fail(err, TV_ERR_LIMIT, "tune: out of memory");
    }
    for (int64_t i = 0; i < all->n; i++)
        present[all->game[i]] = 1;
    int32_t ng = 0;
    for (int32_t g = 0; g < G; g++)
        if (present[g])
            keys[ng++] = (GameKey){tune_seed_mix(seed, (uint64_t)g), g};
    qsort(keys, (size_t)ng, sizeof *keys, cmp_gamekey);
    int32_t nh = (int32_t)floor(holdout * ng + 0.5);
    if (holdout > 0 && nh < 1 && ng >= 2)
        nh = 1;
    if (nh >= ng)
        nh = ng - 1;
    if (nh < 0)
        nh = 0;
    for (int32_t k = 0; k < ng; k++)
        present[keys[k].game] = k < nh ? 2 : 1;
    TvStatus st = TV_OK;
    for (int64_t i = 0; st == TV_OK && i < all->n; i++)
        st = tune_set_add_from(present[all->game[i]] == 2 ? hold : fit, all, i, err);
    free(present);
    free(keys);
    if (st != TV_OK) {
        tune_set_free(fit);
        tune_set_free(hold);
    }
    return st;
}
/* ---- random walks ------------------------------------------------------------- */

void tune_random_walks(int64_t n, uint64_t seed, const Options *rules, Position *out)
{
    uint64_t rs = seed;
    MoveList *list = malloc(sizeof *list);
    if (!list)
        return;
    for (int64_t i = 0; i < n; i++) {
        for (;;) {
            Position p;
            pos_set_start(&p);
            int plies = 2 + (int)tv_rng_below(&rs, 79);
            bool ok = true;
            for (int k = 0; k < plies && ok; k++) {
                movegen_legal(&p, rules, list);
                if (list->count == 0) {
                    ok = false;
                    break;
                }
                Undo u;
                pos_make_move(&p, list->moves[tv_rng_below(&rs, (uint64_t)list->count)], &u);
            }
            if (ok && movegen_state(&p, rules) == TV_STATE_ONGOING) {
                out[i] = p;
                break;
            }
        }
    }
    free(list);
}
