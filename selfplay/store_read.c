#define _POSIX_C_SOURCE 200809L
/* store_read.c: the one reader of the HDF5 store and its checks: the
 * schema version, the datasets and the members it requires, the weights of
 * the engines, every /games row and the values of every row read (the
 * checks of one row are in store_rows.c; see h5store_read in h5store.h).  A store left by a crash reads
 * as of its last committed append; a damaged one is refused with the row
 * and the reason.  Every game is replayed under the store's rule options
 * (verify_move_strings): a move the rules do not allow or write so, and a
 * termination or result the moves contradict (a checkmate's result flipped
 * in /games and /positions alike), are refused by every command, not by
 * verify and export alone. */
#include "store_internal.h"
#include "tournament.h"

#include "engine_id.h"
#include "rule_options.h"
#include "verify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* ---- reading ------------------------------------------------------------------------------------- */

/* Frees every heap member and zeroes c (NULL is a no-op). */
void h5store_contents_free(StoreContents *c)
{
    if (!c)
        return;
    free(c->tournament_ini);
    free(c->options);
    free(c->program_version);
    free(c->sprt);
    free(c->sprt_result);
    free(c->sessions);
    free(c->engines);
    free(c->games);
    free(c->moves);
    free(c->positions);
    memset(c, 0, sizeof *c);
}

/* True when the file starts with the HDF5 signature (stores have no user block). */
static bool has_hdf5_signature(const char *path)
{
    unsigned char sig[8] = {0};
    bool yes = false;
    FILE *f = fopen(path, "rb");
    if (f) {
        yes = fread(sig, 1, 8, f) == 8 && memcmp(sig, "\211HDF\r\n\032\n", 8) == 0;
        fclose(f);
    }
    return yes;
}

/* Opens a store file for reading: SWMR read first (a store being written or
 * left by a crash), else plain read-only. */
TvStatus store_open_read(const char *path, hid_t *file, TvError *err)
{
    if (access(path, R_OK) != 0)
        return tv_fail(err, TV_ERR_IO, "cannot open store %s: %s", path, strerror(errno));
    TvStatus reg = tv_check_regular_file(path, "store", err); /* a FIFO would block HDF5 for ever */
    if (reg != TV_OK)
        return reg;
    hid_t fapl = store_fapl(STORE_FAPL_SWMR_RETRIES);
    *file = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl) : H5I_INVALID_HID;
    if (fapl >= 0)
        H5Pclose(fapl);
    if (*file < 0)
        *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*file >= 0)
        return TV_OK;
    if (!has_hdf5_signature(path))
        return tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (not an HDF5 file)", path);
    return store_h5_fail(err, TV_ERR_IO, path, "cannot open the HDF5 file");
}

/* Checks that `file` is a store of this schema: schema_version attribute
 * and the four datasets. */
TvStatus store_check_schema(hid_t file, const char *path, int *schema, TvError *err)
{
    TvStatus st = TV_ERR_PARSE;
    hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
    int v = 0;
    if (root < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot open the root group");
        goto done;
    }
    int rc = store_read_int_attr(root, "schema_version", &v);
    if (rc < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot read the schema_version attribute");
        goto done;
    }
    if (rc == 0) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (no schema_version attribute)", path);
        goto done;
    }
    if (v < H5STORE_SCHEMA_OLDEST || v > H5STORE_SCHEMA_VERSION) {
        if (H5STORE_SCHEMA_OLDEST == H5STORE_SCHEMA_VERSION)
            st = tv_fail(err, TV_ERR_PARSE, "%s: schema version %d, this program reads %d", path, v,
                         H5STORE_SCHEMA_VERSION);
        else
            st = tv_fail(err, TV_ERR_PARSE, "%s: schema version %d, this program reads %d to %d", path, v,
                         H5STORE_SCHEMA_OLDEST, H5STORE_SCHEMA_VERSION);
        goto done;
    }
    for (int i = 0; i < DS_COUNT; i++) {
        if (H5Lexists(file, store_datasets[i].name, H5P_DEFAULT) <= 0) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (no /%s dataset)", path, store_datasets[i].name);
            goto done;
        }
    }
    *schema = v;
    st = TV_OK;
done:
    if (root >= 0)
        H5Gclose(root);
    return st;
}

/* Reads rows [0, n) of dataset `which` into a new heap array (NULL when n
 * is 0), setting *st; `path` names the store in messages.  Rows of an older
 * schema version get the defaults of the members they lack. */
static void *read_dataset(hid_t file, int which, int64_t n, const char *path, TvStatus *st, TvError *err)
{
    const StoreDataset *d = &store_datasets[which];
    void *rows = NULL;
    hid_t ds = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    *st = TV_OK;
    if (n == 0)
        return NULL;
    if ((rows = malloc((size_t)n * d->row_size)))
        store_prefill(which, rows, n);
    if (!rows || (ds = H5Dopen2(file, d->name, H5P_DEFAULT)) < 0 || (mt = store_mem_type_for(ds, which)) < 0 ||
        !store_read_rows_decoded(ds, mt, 0, n, rows)) {
        char what[64];
        snprintf(what, sizeof what, "cannot read /%s", d->name);
        *st = rows ? store_h5_fail(err, TV_ERR_IO, path, what) : tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
        free(rows);
        rows = NULL;
    }
    store_close_id(&mt, H5Tclose);
    store_close_id(&ds, H5Dclose);
    return rows;
}

/* The game and ply of a /moves or /positions row: what every reader checks
 * of the large datasets. */
typedef struct {
    int64_t game;
    int32_t ply;
    int8_t side;  /* /positions only: checked against the game's result */
    float result;
    char move[H5STORE_MOVE_LEN]; /* /moves only: replayed */
} RowKey;

/* Rows of /moves or /positions read as the scan of /games reaches them, a
 * block at a time: only the rows that the games point to are read (a
 * damaged extent of millions of rows costs nothing), either whole (the rows
 * a command asked for) or their game and ply only. */
#define CURSOR_BLOCK_ROWS 65536
/* A block is read in pieces, the stop flag looked at before each: 8,192
 * rows (8 chunks of /positions, 2 of /moves) take about 10 ms, so a signal
 * is seen within a second even when the process gets a twentieth of a core. */
#define CURSOR_PIECE_ROWS 8192

typedef struct {
    int which;            /* DS_MOVES or DS_POSITIONS */
    bool whole;           /* whole rows (else RowKey) */
    hid_t ds, mt;         /* the dataset and the memory type its rows are read with */
    size_t row_size, game_at, ply_at, side_at, result_at; /* side and result: /positions only */
    size_t move_at;       /* /moves only */
    int64_t rows;         /* the dataset's extent */
    char *buf;            /* rows [base, have) */
    int64_t base, have, cap; /* cap: rows the buffer holds */
    bool slide;           /* rows before `keep` may be dropped (a scan that only goes forward, keys only) */
    int64_t keep;
    bool failed;          /* an HDF5 read or an allocation failed, or a stop */
    const volatile sig_atomic_t *stop; /* may be NULL */
} RowCursor;

static bool cursor_open(RowCursor *c, hid_t file, int which, bool whole)
{
    memset(c, 0, sizeof *c);
    c->which = which;
    c->whole = whole;
    c->mt = H5I_INVALID_HID;
    if ((c->ds = H5Dopen2(file, store_datasets[which].name, H5P_DEFAULT)) < 0 ||
        (c->rows = store_dataset_rows(c->ds)) < 0)
        return false;
    if (whole) {
        c->row_size = store_datasets[which].row_size;
        c->game_at = which == DS_MOVES ? offsetof(StoredMove, game) : offsetof(StoredPosition, game);
        c->ply_at = which == DS_MOVES ? offsetof(StoredMove, ply) : offsetof(StoredPosition, ply);
        c->side_at = offsetof(StoredPosition, side);
        c->result_at = offsetof(StoredPosition, result);
        c->move_at = offsetof(StoredMove, move);
        c->mt = store_mem_type_for(c->ds, which);
        return c->mt >= 0;
    }
    c->row_size = sizeof(RowKey);
    c->game_at = offsetof(RowKey, game);
    c->ply_at = offsetof(RowKey, ply);
    c->side_at = offsetof(RowKey, side);
    c->result_at = offsetof(RowKey, result);
    c->move_at = offsetof(RowKey, move);
    c->mt = H5Tcreate(H5T_COMPOUND, sizeof(RowKey));
    hid_t str = H5I_INVALID_HID;
    bool ok = c->mt >= 0 && H5Tinsert(c->mt, "game", offsetof(RowKey, game), H5T_NATIVE_INT64) >= 0 &&
              H5Tinsert(c->mt, "ply", offsetof(RowKey, ply), H5T_NATIVE_INT32) >= 0;
    if (ok && which == DS_MOVES)
        ok = (str = H5Tcopy(H5T_C_S1)) >= 0 && H5Tset_size(str, H5STORE_MOVE_LEN) >= 0 &&
             H5Tset_strpad(str, H5T_STR_NULLPAD) >= 0 && H5Tinsert(c->mt, "move", offsetof(RowKey, move), str) >= 0;
    else if (ok)
        ok = H5Tinsert(c->mt, "side", offsetof(RowKey, side), H5T_NATIVE_INT8) >= 0 &&
             H5Tinsert(c->mt, "result", offsetof(RowKey, result), H5T_NATIVE_FLOAT) >= 0;
    store_close_id(&str, H5Tclose);
    return ok;
}

static void cursor_close(RowCursor *c)
{
    store_close_id(&c->mt, H5Tclose);
    store_close_id(&c->ds, H5Dclose);
    free(c->buf);
    c->buf = NULL;
}

/* Makes rows [0, min(upto, extent)) available; false on a failure. */
static bool cursor_reach(RowCursor *c, int64_t upto)
{
    if (upto > c->rows)
        upto = c->rows;
    if (upto <= c->have)
        return true;
    if (c->failed)
        return false;
    int64_t want = c->have + CURSOR_BLOCK_ROWS > upto ? c->have + CURSOR_BLOCK_ROWS : upto;
    if (want > c->rows)
        want = c->rows;
    if (c->slide && c->keep > c->base && want - c->base > c->cap) { /* the rows before `keep` are done with */
        memmove(c->buf, c->buf + (size_t)(c->keep - c->base) * c->row_size,
                (size_t)(c->have - c->keep) * c->row_size);
        c->base = c->keep;
    }
    if (want - c->base > c->cap) {
        int64_t cap = c->cap ? c->cap : CURSOR_BLOCK_ROWS;
        while (cap < want - c->base)
            cap *= 2;
        char *b = realloc(c->buf, (size_t)cap * c->row_size);
        if (!b) {
            c->failed = true;
            return false;
        }
        c->buf = b;
        c->cap = cap;
    }
    for (int64_t from = c->have; from < want; from += CURSOR_PIECE_ROWS) {
        int64_t k = want - from < CURSOR_PIECE_ROWS ? want - from : CURSOR_PIECE_ROWS;
        char *at = c->buf + (size_t)(from - c->base) * c->row_size;
        if (c->whole)
            store_prefill(c->which, at, k);
        if ((c->stop && *c->stop) || !store_read_rows_decoded(c->ds, c->mt, from, k, at)) {
            c->failed = true;
            return false;
        }
    }
    c->have = want;
    return true;
}

static RowKey cursor_key(const RowCursor *c, int64_t row)
{
    RowKey k;
    const char *r = c->buf + (size_t)(row - c->base) * c->row_size;
    memcpy(&k.game, r + c->game_at, sizeof k.game);
    memcpy(&k.ply, r + c->ply_at, sizeof k.ply);
    k.side = 0;
    k.result = 0;
    if (c->which == DS_POSITIONS) {
        memcpy(&k.side, r + c->side_at, sizeof k.side);
        memcpy(&k.result, r + c->result_at, sizeof k.result);
    }
    return k;
}

/* The first n rows read, as a heap array of their own (NULL when n is 0):
 * the cursor gives its buffer away. */
static void *cursor_take(RowCursor *c, int64_t n)
{
    if (n == 0)
        return NULL;
    /* a whole cursor never slides: its rows start at row 0 */
    void *rows = c->buf, *shrunk = realloc(c->buf, (size_t)n * c->row_size);
    c->buf = NULL;
    c->have = c->cap = 0;
    return shrunk ? shrunk : rows;
}

/* Chunk positions looked up for the written rows of /games, per chunk the
 * file holds (and a floor): a store written by appends holds its chunks
 * from row 0 on, so the lookups stop at the last of them. */
#define WRITTEN_LOOKUPS_PER_CHUNK 4
#define WRITTEN_LOOKUPS_MIN 1024

/* The rows of dataset `which` that can have been written: up to the end of
 * its last allocated chunk (rows past it are fill values: never written).
 * A flipped bit in /games' extent (2^22 rows in a 23 KB file) once cost
 * 14.5 s and 1.27 GB of fill values; the work here is bounded by the
 * chunks the file holds (H5Dget_num_chunks), looked up from row 0 until all
 * are seen.  *sparse: they are not found within WRITTEN_LOOKUPS_PER_CHUNK
 * lookups each (chunks far apart: not a store this program wrote). */
static int64_t written_rows(hid_t file, int which, int64_t extent, bool *sparse)
{
    *sparse = false;
    hid_t ds = H5Dopen2(file, store_datasets[which].name, H5P_DEFAULT), dcpl = H5I_INVALID_HID,
          space = H5I_INVALID_HID;
    int64_t rows = extent;
    hsize_t chunk = 0, nchunks = 0;
    if (ds >= 0 && (dcpl = H5Dget_create_plist(ds)) >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
        H5Pget_chunk(dcpl, 1, &chunk) == 1 && chunk > 0 && (space = H5Dget_space(ds)) >= 0 &&
        H5Dget_num_chunks(ds, space, &nchunks) >= 0 && nchunks * chunk < (hsize_t)extent) {
        hsize_t seen = 0, end = 0, limit = WRITTEN_LOOKUPS_PER_CHUNK * nchunks + WRITTEN_LOOKUPS_MIN;
        for (hsize_t k = 0; seen < nchunks && k < limit && k * chunk < (hsize_t)extent; k++) {
            hsize_t off = k * chunk, size = 0;
            herr_t r;
            H5E_BEGIN_TRY { r = H5Dget_chunk_storage_size(ds, &off, &size); }
            H5E_END_TRY;
            if (r >= 0 && size > 0) {
                seen++;
                end = (k + 1) * chunk;
            }
        }
        if (seen < nchunks)
            *sparse = true;
        else
            rows = end < (hsize_t)extent ? (int64_t)end : extent;
    }
    store_close_id(&space, H5Sclose);
    store_close_id(&dcpl, H5Pclose);
    store_close_id(&ds, H5Dclose);
    return rows;
}

/* Number of rows of dataset `name` of file, or -1. */
static int64_t rows_of(hid_t file, const char *name)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return -1;
    int64_t n = store_dataset_rows(ds);
    H5Dclose(ds);
    return n;
}

/* The weights member of /engines must have EVAL_NWEIGHTS elements. */
TvStatus store_check_weights(hid_t file, const char *path, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    hid_t ds = H5I_INVALID_HID, t = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    hsize_t dims = 0;
    int idx;
    if ((ds = H5Dopen2(file, "engines", H5P_DEFAULT)) < 0 || (t = H5Dget_type(ds)) < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot open /engines");
        goto done;
    }
    if (H5Tget_class(t) != H5T_COMPOUND || (idx = H5Tget_member_index(t, "weights")) < 0 ||
        (mt = H5Tget_member_type(t, (unsigned)idx)) < 0 || H5Tget_class(mt) != H5T_ARRAY ||
        H5Tget_array_ndims(mt) != 1 || H5Tget_array_dims2(mt, &dims) < 0) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (/engines has no weights array)", path);
        goto done;
    }
    if (dims != EVAL_NWEIGHTS) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: its engines have %llu weights, this program has %d", path,
                     (unsigned long long)dims, EVAL_NWEIGHTS);
        goto done;
    }
    st = TV_OK;
done:
    store_close_id(&mt, H5Tclose);
    store_close_id(&t, H5Tclose);
    store_close_id(&ds, H5Dclose);
    return st;
}

/* The INI text decides whether two runs are the same tournament. */
TvStatus store_check_config(const char *path, const char *stored_ini, const char *tournament_ini, TvError *err)
{
    if (strcmp(stored_ini, tournament_ini ? tournament_ini : "") == 0)
        return TV_OK;
    /* the key that differs, with both values (an SPSA file's refusal named
     * none: a changed iterations, batch, param bound or depth read alike) */
    char diff[700];
    tournament_text_difference(stored_ini, tournament_ini, diff, sizeof diff);
    return tv_fail(err, TV_ERR_ARG,
                   "%s: the store was made by another configuration (its tournament INI differs%s%s); "
                   "use --force to start a new store",
                   path, diff[0] ? ": first difference: stored " : "", diff);
}

/* Games replayed at once, on every core, in a strict scan: their /moves
 * rows stay in the cursor until then (256 games of about 100 plies: 1 MB
 * of keys). */
#define REPLAY_BATCH 256

/* What the scan of /games knows of the big datasets. */
typedef struct {
    RowCursor cur[2]; /* /moves, /positions */
    int nengines;
    Options rules;    /* the store's rule options: every game is replayed under them */
    Tournament *plan; /* the plan of the store's INI (tournament_read_plan), NULL when it is not a tournament's */
    bool replay;      /* every game replayed (false: the caller replays them, verify) */
    /* a strict scan: the rows of /games whose rows passed and wait for their
     * replay, and the /moves row of the first (the cursor keeps it) */
    int64_t pending[REPLAY_BATCH];
    int npending;
    int64_t hold;
} Rows;

/* Replays game g from the move strings in the /moves cursor (hist: g->plies
 * + 1 entries); NULL when it is good, else why. */
static const char *replay_problem(const StoredGame *g, const Rows *r, uint64_t *hist, char *why, size_t n)
{
    const RowCursor *c = &r->cur[0];
    const char *first = g->plies ? c->buf + (size_t)(g->move_offset - c->base) * c->row_size + c->move_at : NULL;
    return verify_move_strings(g, first, c->row_size, &r->rules, NULL, hist, why, n);
}

/* Replays the pending games on every core; the /games row of the first
 * that fails (its problem in why), or -1.  *no_memory on an allocation
 * failure. */
static int64_t replay_pending(Rows *r, const StoredGame *g, bool *no_memory, char *why, size_t n)
{
    int64_t first_bad = INT64_MAX;
    bool oom = false;
    if (r->npending > 1) {
#pragma omp parallel reduction(min : first_bad) reduction(|| : oom)
        {
            uint64_t *hist = NULL;
            int32_t cap = -1;
#pragma omp for schedule(dynamic, 4)
            for (int k = 0; k < r->npending; k++) {
                const StoredGame *x = &g[r->pending[k]];
                if (r->pending[k] > first_bad || oom)
                    continue;
                if (x->plies > cap) {
                    free(hist);
                    cap = x->plies;
                    if (!(hist = malloc(sizeof *hist * ((size_t)cap + 1)))) {
                        oom = true;
                        cap = -1;
                        continue;
                    }
                }
                char w[400];
                if (replay_problem(x, r, hist, w, sizeof w))
                    first_bad = r->pending[k] < first_bad ? r->pending[k] : first_bad;
            }
            free(hist);
        }
    } else if (r->npending == 1) {
        first_bad = r->pending[0]; /* looked at below */
    }
    *no_memory = oom;
    int64_t bad = -1;
    if (!oom && first_bad != INT64_MAX) { /* its message (or, for one game, its replay) */
        const StoredGame *x = &g[first_bad];
        uint64_t *hist = malloc(sizeof *hist * ((size_t)x->plies + 1));
        if (!hist)
            *no_memory = true;
        else if (replay_problem(x, r, hist, why, n))
            bad = first_bad;
        free(hist);
    }
    r->npending = 0;
    return bad;
}

static bool fill_row(const StoredGame *g)
{
    return g->index == -1 && g->move_count == -1 && g->position_count == -1;
}

/* What is wrong with row g of /games given that the rows before it end at
 * offsets mo (moves) and po (positions) (-1: any offsets inside the
 * datasets will do, for a repair), written into why; NULL when it is a good
 * game.  *unwritten: the problem is that its moves or positions were never
 * written (what a crash leaves). */
static const char *row_problem(const StoredGame *g, int64_t mo, int64_t po, Rows *r, bool *unwritten, char *why,
                               size_t n)
{
    const bool repair = mo < 0;
    if (mo < 0) {
        mo = g->move_offset >= 0 ? g->move_offset : 0;
        po = g->position_offset >= 0 ? g->position_offset : 0;
    }
    static const char *const NAMES[2] = {"moves", "positions"};
    *unwritten = false;
    if (fill_row(g)) {
        snprintf(why, n, "never written");
        *unwritten = true;
        return why;
    }
    if (g->index < 0)
        snprintf(why, n, "game index %lld", (long long)g->index);
    else if (g->plies < 0 || g->move_count != g->plies || g->position_count != g->plies)
        snprintf(why, n, "%d plies, move_count %d, position_count %d", g->plies, g->move_count, g->position_count);
    else if (g->move_offset != mo || g->position_offset != po)
        snprintf(why, n, "move_offset %lld and position_offset %lld, where the previous game's rows end at %lld and %lld",
                 (long long)g->move_offset, (long long)g->position_offset, (long long)mo, (long long)po);
    else {
        for (int k = 0; k < 2; k++) {
            RowCursor *c = &r->cur[k];
            int64_t off = k ? po : mo;
            if (off > c->rows - g->plies) {
                *unwritten = true;
                snprintf(why, n, "its %s (rows %lld to %lld) run past the end of /%s (%lld rows)", NAMES[k],
                         (long long)off, (long long)(off + g->plies - 1), NAMES[k], (long long)c->rows);
                return why;
            }
            /* the rows of the games before this one are done with (but
             * for the /moves rows of the games that wait for their replay) */
            c->keep = k == 0 && r->npending ? r->hold : off;
            if (!cursor_reach(c, off + g->plies)) {
                snprintf(why, n, "its %s could not be read", NAMES[k]);
                return why;
            }
            for (int32_t j = 0; j < g->plies; j++) {
                RowKey key = cursor_key(c, off + j);
                if (key.game == g->index && key.ply == j) {
                    /* a position's result is the game's from its side's view: a result
                     * changed in /games alone (or in /positions alone) shows here */
                    float want = g->result == 0 ? 0.5f : ((g->result > 0) == (key.side == 0)) ? 1.0f : 0.0f;
                    if (k == 0 || ((key.side == 0 || key.side == 1) && key.result == want))
                        continue;
                    snprintf(why, n, "/positions row %lld (ply %d): side %d and result %g, but the game's result is %d",
                             (long long)(off + j), j, key.side, (double)key.result, g->result);
                    return why;
                }
                *unwritten = key.game == -1;
                snprintf(why, n, "/%s row %lld is game %lld ply %d, not ply %d of this game", NAMES[k],
                         (long long)(off + j), (long long)key.game, key.ply, j);
                return why;
            }
        }
        const char *bad = store_game_value_problem(g, r->nengines, why, n);
        if (!bad && r->plan) {
            PlannedGame pg, stored = {g->index, g->pairing, g->white, g->black, g->opening, g->seed};
            char diff[200];
            tournament_game(r->plan, g->index, &pg);
            if (tournament_game_difference(&stored, &pg, diff, sizeof diff)) {
                snprintf(why, n, "not the plan of the store's INI: %s", diff);
                bad = why;
            }
        }
        if (bad || !repair || !r->replay)
            return bad; /* a strict scan replays its games in batches (scan_games) */
        /* a repair: each game on its own */
        uint64_t *hist = malloc(sizeof *hist * ((size_t)g->plies + 1));
        if (!hist) {
            snprintf(why, n, "out of memory replaying it");
            return why;
        }
        bad = replay_problem(g, r, hist, why, n);
        free(hist);
        return bad;
    }
    return why;
}

static int cmp_index_row(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Checks the ng rows of /games against the big datasets' keys: sets *kept
 * to the good games (a prefix) and *torn to the rows after them that a
 * crash left unwritten; any other bad row, and a game index held by two
 * rows, is an error naming the row. */
static TvStatus scan_games(const char *path, const StoredGame *g, int64_t ng, Rows *r,
                           const volatile sig_atomic_t *stop, int64_t *kept, int64_t *torn, TvError *err)
{
    char why[256];
    bool unwritten;
    int64_t mo = 0, po = 0, good = ng;
    *kept = *torn = 0;
    char rwhy[400];
    bool no_memory = false;
    int64_t bad = -1;
    for (int64_t i = 0; i < ng; i++) {
        if (stop && *stop) /* a look costs a load: a game's rows cost microseconds */
            return store_stopped(err, path, "reading");
        if (!row_problem(&g[i], mo, po, r, &unwritten, why, sizeof why)) {
            mo += g[i].move_count;
            po += g[i].position_count;
            if (!r->replay)
                continue;
            if (!r->npending)
                r->hold = g[i].move_offset;
            r->pending[r->npending++] = i;
            if (r->npending == REPLAY_BATCH && (bad = replay_pending(r, g, &no_memory, rwhy, sizeof rwhy)) >= 0)
                break;
            if (no_memory)
                return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory replaying its games", path);
            continue;
        }
        /* the games before this row are replayed first: the first problem is named */
        if ((bad = replay_pending(r, g, &no_memory, rwhy, sizeof rwhy)) >= 0)
            break;
        if (no_memory)
            return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory replaying its games", path);
        if (stop && *stop)
            return store_stopped(err, path, "reading");
        if (r->cur[0].failed || r->cur[1].failed)
            return store_h5_fail(err, TV_ERR_IO, path, "cannot read /moves and /positions");
        /* The torn tail of a crash: every row from here on unwritten. */
        bool tail = unwritten;
        for (int64_t j = i + 1; j < ng && tail; j++)
            tail = fill_row(&g[j]);
        if (!tail)
            return tv_fail(err, TV_ERR_PARSE,
                           "%s: /games row %lld (game %lld): %s; the store is damaged ('tavreli repair %s' copies "
                           "its good games into a new store)",
                           path, (long long)i, (long long)g[i].index, why, path);
        good = i;
        break;
    }
    if (bad < 0 && (bad = replay_pending(r, g, &no_memory, rwhy, sizeof rwhy)) < 0 && no_memory)
        return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory replaying its games", path);
    if (bad >= 0)
        return tv_fail(err, TV_ERR_PARSE,
                       "%s: /games row %lld (game %lld): %s; the store is damaged ('tavreli verify %s' lists every "
                       "problem, 'tavreli repair %s' copies its good games into a new store)",
                       path, (long long)bad, (long long)g[bad].index, rwhy, path, path);
    int64_t (*ir)[2] = malloc(sizeof *ir * (size_t)(good ? good : 1));
    if (!ir)
        return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
    for (int64_t i = 0; i < good; i++) {
        ir[i][0] = g[i].index;
        ir[i][1] = i;
    }
    qsort(ir, (size_t)good, sizeof *ir, cmp_index_row);
    for (int64_t i = 1; i < good; i++)
        if (ir[i][0] == ir[i - 1][0]) {
            TvStatus st = tv_fail(err, TV_ERR_PARSE,
                                  "%s: /games row %lld holds game %lld, as row %lld does; the store is damaged "
                                  "('tavreli repair %s' copies its good games into a new store)",
                                  path, (long long)ir[i][1], (long long)ir[i][0], (long long)ir[i - 1][1], path);
            free(ir);
            return st;
        }
    free(ir);
    *kept = good;
    *torn = ng - good;
    return TV_OK;
}

/* The repair's scan: every row checked on its own (offsets need not follow
 * each other); the good ones are moved to the front of g in stored order,
 * the first row of a game index wins, and each row left out is reported. */
static int64_t scan_games_tolerant(StoredGame *g, int64_t ng, Rows *r, StoreRowFn dropped, void *user,
                                   StoreRepairCounts *counts, int64_t *rows_of_kept)
{
    char why[256];
    bool unwritten;
    int64_t kept = 0;
    int64_t (*seen)[2] = malloc(sizeof *seen * (size_t)(ng ? ng : 1));
    int64_t nseen = 0;
    for (int64_t i = 0; i < ng; i++) {
        const char *problem = row_problem(&g[i], -1, -1, r, &unwritten, why, sizeof why);
        bool duplicate = false;
        for (int64_t j = 0; !problem && seen && j < nseen; j++) /* quadratic only in a damaged store */
            if (seen[j][0] == g[i].index) {
                snprintf(why, sizeof why, "game %lld again (kept from row %lld)", (long long)g[i].index,
                         (long long)seen[j][1]);
                problem = why;
                duplicate = true;
            }
        if (problem) {
            if (duplicate)
                counts->duplicates++;
            else
                counts->bad++;
            if (dropped)
                dropped(i, g[i].index, problem, user);
            continue;
        }
        if (seen) {
            seen[nseen][0] = g[i].index;
            seen[nseen++][1] = i;
        }
        if (rows_of_kept)
            rows_of_kept[kept] = i;
        g[kept++] = g[i];
    }
    free(seen);
    counts->kept = kept;
    return kept;
}

/* The hash of a tournament INI's settings that decide games. */
static uint64_t tournament_id(const char *ini)
{
    uint64_t h = TV_HASH_START;
    for (const char *s = ini ? ini : ""; *s;) {
        const char *eol = strchr(s, '\n'), *end = eol ? eol : s + strlen(s);
        const char *p = s, *cut = s;
        while (cut < end && *cut != ';' && *cut != '#')
            cut++;
        char line[256];
        size_t k = 0;
        for (; p < cut && k < sizeof line - 1; p++)
            if (*p != ' ' && *p != '\t' && *p != '\r')
                line[k++] = *p;
        line[k] = 0;
        if (k && strncmp(line, "pairs=", 6) && strncmp(line, "threads=", 8) && strncmp(line, "name=", 5))
            h = tv_hash_bytes(h, line, k + 1);
        s = eol ? eol + 1 : end;
    }
    return h;
}

/* An engine's name and row, sorted by name to find one named twice. */
typedef struct {
    const char *name;
    int row;
} NamedRow;

static int cmp_named_row(const void *a, const void *b)
{
    const NamedRow *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* Opens and checks the store, reads its attributes and rows and keeps the
 * good games: strictly (h5store_read) or, with `repair`, every row that is
 * good on its own. */
TvStatus store_read_games(const char *path, bool with_moves, bool with_positions, StoreRepair *repair, bool replay,
                          const volatile sig_atomic_t *stop, StoreContents *out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    hid_t file = H5I_INVALID_HID, root = H5I_INVALID_HID;
    Rows rows;
    memset(&rows, 0, sizeof rows);
    rows.cur[0].ds = rows.cur[0].mt = rows.cur[1].ds = rows.cur[1].mt = H5I_INVALID_HID;
    store_quiet_hdf5();
    memset(out, 0, sizeof *out);
    if (repair)
        repair->rows = NULL;
    if ((st = store_open_read(path, &file, err)) != TV_OK)
        goto done;
    if ((st = store_check_schema(file, path, &out->schema_version, err)) != TV_OK)
        goto done;
    if ((st = store_check_members(file, path, out->schema_version, err)) != TV_OK)
        goto done;
    if ((st = store_check_weights(file, path, err)) != TV_OK)
        goto done;
    st = TV_ERR_IO;
    if ((root = H5Gopen2(file, "/", H5P_DEFAULT)) < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot open the root group");
        goto done;
    }
    out->tournament_ini = store_read_string_attr(root, "tournament_ini");
    out->options = store_read_string_attr(root, "options");
    out->program_version = store_read_string_attr(root, "program_version");
    out->sprt = store_read_string_attr(root, "sprt");
    out->sprt_result = store_read_string_attr(root, "sprt_result");
    out->sessions = store_read_string_attr(root, "sessions");
    int reproducible = 1;
    if (store_read_int_attr(root, "reproducible", &reproducible) < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot read the reproducible attribute");
        goto done;
    }
    out->reproducible = reproducible != 0;
    out->tournament_id = tournament_id(out->tournament_ini);
    if (!out->tournament_ini || !out->options || !out->program_version) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (a string attribute is missing)", path);
        goto done;
    }
    int64_t ne = rows_of(file, "engines"), ng = rows_of(file, "games");
    if (ne < 0 || ng < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot read the dataset sizes");
        goto done;
    }
    if (ne > 1000000) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: %lld engines", path, (long long)ne);
        goto done;
    }
    out->engines = read_dataset(file, DS_ENGINES, ne, path, &st, err);
    if (st != TV_OK)
        goto done;
    out->nengines = (int)ne;
    /* each engine named once ([engine NAME] sections): an empty or a
     * repeated name (an edited store) would be copied into a TGN's tags
     * and mix two engines' results in a report */
    for (int i = 0; i < out->nengines; i++) {
        const char *name = out->engines[i].name;
        if (!memchr(name, 0, sizeof out->engines[i].name) || !name[0]) {
            st = tv_fail(err, TV_ERR_PARSE,
                         "%s: /engines row %d has %s name; the store is damaged (a tournament names every engine)",
                         path, i, name[0] ? "an unterminated" : "an empty");
            goto done;
        }
    }
    if (out->nengines > 1) {
        NamedRow *byname = malloc(sizeof *byname * (size_t)out->nengines);
        if (!byname) {
            st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
            goto done;
        }
        for (int i = 0; i < out->nengines; i++)
            byname[i] = (NamedRow){out->engines[i].name, i};
        qsort(byname, (size_t)out->nengines, sizeof *byname, cmp_named_row);
        for (int i = 1; i < out->nengines; i++)
            if (!strcmp(byname[i].name, byname[i - 1].name)) {
                char shown[200];
                st = tv_fail(err, TV_ERR_PARSE,
                             "%s: /engines rows %d and %d are both named '%s'; the store is damaged (a tournament "
                             "names each engine once)",
                             path, byname[i - 1].row, byname[i].row, tv_escape(byname[i].name, shown, sizeof shown));
                break;
            }
        free(byname);
        if (st != TV_OK)
            goto done;
    }
    engine_id_upgrade(out->engines, out->nengines, out->schema_version, out->tournament_ini);
    /* only the rows that can have been written are read; the rest are a
     * torn tail (never written) */
    const int64_t ng_all = ng;
    bool sparse;
    ng = written_rows(file, DS_GAMES, ng_all, &sparse);
    if (sparse) {
        st = tv_fail(err, TV_ERR_PARSE,
                     "%s: /games has %lld rows but its written chunks lie far apart; the store is damaged (not one "
                     "this program wrote)",
                     path, (long long)ng_all);
        goto done;
    }
    out->games = read_dataset(file, DS_GAMES, ng, path, &st, err);
    if (st != TV_OK)
        goto done;
    /* Every row checked against the game and ply of the rows it points to,
     * read as far as the games reach, and every game replayed under the
     * store's rule options. */
    rows.nengines = out->nengines;
    rows.replay = replay;
    {
        TvError e;
        if (rule_options_parse(out->options, &rows.rules, &e) != TV_OK) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: the store's rule options '%s': %s; no game of it can be replayed",
                         path, out->options, e.msg);
            goto done;
        }
    }
    /* the plan of a tournament's store: every game checked against it (a
     * game of swapped colours, another pairing or seed was rated by report
     * and fitted by tune; only --resume, which knows the plan, refused it) */
    if (!(rows.plan = malloc(sizeof *rows.plan))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
        goto done;
    }
    if (tournament_read_plan(out->tournament_ini, rows.plan, NULL) != TV_OK || rows.plan->nengines != out->nengines) {
        tournament_free(rows.plan); /* not a tournament's INI (an SPSA file, a test's): no plan to check */
        free(rows.plan);
        rows.plan = NULL;
    }
    if (!cursor_open(&rows.cur[0], file, DS_MOVES, with_moves) ||
        !cursor_open(&rows.cur[1], file, DS_POSITIONS, with_positions)) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot open /moves and /positions");
        goto done;
    }
    /* keys only, in a strict scan (offsets only go forward): a window of
     * rows, not the whole dataset */
    rows.cur[0].slide = !with_moves && !repair;
    rows.cur[1].slide = !with_positions && !repair;
    rows.cur[0].stop = rows.cur[1].stop = stop;
    if (repair) {
        memset(repair->counts, 0, sizeof *repair->counts);
        repair->counts->rows = ng;
        if (with_moves || with_positions) {
            st = tv_fail(err, TV_ERR_ARG, "%s: a repair reads the rows of each game itself", path);
            goto done;
        }
        if (!(repair->rows = malloc(sizeof *repair->rows * (size_t)(ng ? ng : 1)))) {
            st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
            goto done;
        }
        out->ngames = scan_games_tolerant(out->games, ng, &rows, repair->dropped, repair->user, repair->counts,
                                          repair->rows);
        repair->counts->rows = ng_all;
        if (ng_all > ng) { /* rows never written: one line for them all */
            char why[160];
            snprintf(why, sizeof why, "never written, as are the %lld rows after it (no chunk of them is in the file)",
                     (long long)(ng_all - ng - 1));
            repair->counts->bad += ng_all - ng;
            if (repair->dropped)
                repair->dropped(ng, -1, why, repair->user);
        }
        if (rows.cur[0].failed || rows.cur[1].failed) {
            st = store_h5_fail(err, TV_ERR_IO, path, "cannot read /moves and /positions");
            goto done;
        }
    } else if ((st = scan_games(path, out->games, ng, &rows, stop, &out->ngames, &out->torn_rows, err)) != TV_OK) {
        goto done;
    } else {
        out->torn_rows += ng_all - ng; /* never written: the end of the torn tail */
    }
    int64_t need_m = 0, need_p = 0;
    if (out->ngames > 0) {
        const StoredGame *last = &out->games[out->ngames - 1];
        need_m = last->move_offset + last->move_count;
        need_p = last->position_offset + last->position_count;
    }
    if (with_moves) {
        out->moves = cursor_take(&rows.cur[0], need_m);
        out->nmoves = need_m;
    }
    if (with_positions) {
        out->positions = cursor_take(&rows.cur[1], need_p);
        out->npositions = need_p;
    }
    /* The values of the rows asked for, the first bad game named. */
    int64_t first_bad = out->ngames;
    if (with_moves || with_positions) {
#pragma omp parallel for schedule(dynamic, 512) reduction(min : first_bad)
        for (int64_t i = 0; i < out->ngames; i++) {
            const StoredGame *g = &out->games[i];
            char why[400];
            if (i < first_bad && !(stop && *stop) &&
                store_game_rows_problem(g, out->moves ? out->moves + g->move_offset : NULL,
                                        out->positions ? out->positions + g->position_offset : NULL, false, why,
                                        sizeof why))
                first_bad = i;
        }
    }
    if (stop && *stop) {
        st = store_stopped(err, path, "reading");
        goto done;
    }
    if (first_bad < out->ngames) {
        const StoredGame *g = &out->games[first_bad];
        char why[400];
        store_game_rows_problem(g, out->moves ? out->moves + g->move_offset : NULL,
                                out->positions ? out->positions + g->position_offset : NULL, false, why, sizeof why);
        st = tv_fail(err, TV_ERR_PARSE,
                     "%s: /games row %lld (game %lld): %s; the store is damaged ('tavreli repair %s' copies its "
                     "good games into a new store)",
                     path, (long long)first_bad, (long long)g->index, why, path);
        goto done;
    }
    st = TV_OK;
done:
    if (rows.plan) {
        tournament_free(rows.plan);
        free(rows.plan);
    }
    cursor_close(&rows.cur[0]);
    cursor_close(&rows.cur[1]);
    if (root >= 0)
        H5Gclose(root);
    if (file >= 0 && H5Fclose(file) < 0 && st == TV_OK)
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot close the file");
    if (st != TV_OK)
        h5store_contents_free(out);
    return st;
}


TvStatus h5store_read(const char *path, bool with_moves, bool with_positions, StoreContents *out, TvError *err)
{
    return store_read_games(path, with_moves, with_positions, NULL, true, NULL, out, err);
}

TvStatus h5store_read_unreplayed(const char *path, bool with_moves, bool with_positions, StoreContents *out,
                                 TvError *err)
{
    return store_read_games(path, with_moves, with_positions, NULL, false, NULL, out, err);
}

TvStatus h5store_read_stoppable(const char *path, bool with_moves, bool with_positions,
                                const volatile sig_atomic_t *stop, StoreContents *out, TvError *err)
{
    return store_read_games(path, with_moves, with_positions, NULL, true, stop, out, err);
}

TvStatus store_stopped(TvError *err, const char *path, const char *doing)
{
    return tv_fail(err, TV_ERR_IO, "stopped by a signal while %s %s; it was not changed", doing, path);
}

uint64_t h5store_game_id(const StoreContents *c, const StoredGame *g)
{
    uint64_t h = tv_hash_bytes(c->tournament_id, &g->index, sizeof g->index);
    for (int k = 0; k < 2; k++) {
        int e = k ? g->black : g->white;
        const char *name = e >= 0 && e < c->nengines ? c->engines[e].name : "";
        h = tv_hash_bytes(h, name, strnlen(name, sizeof c->engines[0].name));
    }
    h = tv_hash_bytes(h, g->start_tfen, strnlen(g->start_tfen, sizeof g->start_tfen));
    h = tv_hash_bytes(h, &g->plies, sizeof g->plies);
    return tv_hash_bytes(h, &g->result, sizeof g->result);
}

/* Rows read at once by h5store_check_readable. */
#define CHECK_BLOCK_ROWS 16384

/* The values of rows [0, k) of a block of /moves or /positions rows (the
 * first at row `at`); rows never written (game -1) are passed over. */
static const char *block_problem(int which, const void *buf, int64_t at, int64_t k, char *why, size_t n)
{
    for (int64_t i = 0; i < k; i++) {
        if (which == DS_MOVES) {
            const StoredMove *r = (const StoredMove *)buf + i;
            const char *bad = r->game == -1 ? NULL : store_move_row_problem(r);
            if (bad) {
                store_describe_move_row(r, at + i, bad, why, n);
                return why;
            }
        } else if (which == DS_POSITIONS) {
            const StoredPosition *r = (const StoredPosition *)buf + i;
            char detail[200];
            const char *bad = r->game == -1 ? NULL : store_position_row_problem(r, true, detail, sizeof detail);
            if (bad) {
                store_describe_position_row(r, at + i, bad, detail, why, n);
                return why;
            }
        }
    }
    return NULL;
}

TvStatus h5store_check_readable(const char *path, TvError *err)
{
    return store_check_readable(path, NULL, err);
}

TvStatus store_check_readable(const char *path, const volatile sig_atomic_t *stop, TvError *err)
{
    TvStatus st = TV_OK;
    hid_t file = H5I_INVALID_HID, ds = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    void *buf = NULL;
    int64_t reach[DS_COUNT] = {-1, 0, 0, -1}; /* rows of /moves and /positions that /games points to (-1: all) */
    store_quiet_hdf5();
    if ((st = store_open_read(path, &file, err)) != TV_OK)
        return st;
    for (int which = 0; which < DS_COUNT && st == TV_OK; which++) {
        const StoreDataset *d = &store_datasets[which];
        int64_t n;
        if ((ds = H5Dopen2(file, d->name, H5P_DEFAULT)) < 0 || (mt = store_mem_type_for(ds, which)) < 0 ||
            (n = store_dataset_rows(ds)) < 0 || !(buf = realloc(buf, CHECK_BLOCK_ROWS * d->row_size))) {
            char what[64];
            snprintf(what, sizeof what, "cannot open /%s", d->name);
            st = store_h5_fail(err, TV_ERR_IO, path, what);
            break;
        }
        if (reach[which] >= 0 && reach[which] < n) /* a damaged extent costs nothing */
            n = reach[which];
        for (int64_t at = 0; at < n && st == TV_OK; at += CHECK_BLOCK_ROWS) {
            int64_t k = n - at < CHECK_BLOCK_ROWS ? n - at : CHECK_BLOCK_ROWS;
            char why[400];
            store_prefill(which, buf, k);
            if (stop && *stop) /* a block takes milliseconds */
                st = store_stopped(err, path, "checking");
            else if (!store_read_rows_decoded(ds, mt, at, k, buf)) {
                char what[96];
                snprintf(what, sizeof what, "cannot read /%s rows %lld to %lld", d->name, (long long)at,
                         (long long)(at + k - 1));
                st = store_h5_fail(err, TV_ERR_IO, path, what);
            } else if (block_problem(which, buf, at, k, why, sizeof why)) {
                st = tv_fail(err, TV_ERR_PARSE,
                             "%s: %s; the store is damaged ('tavreli repair %s' copies its good games into a new "
                             "store)",
                             path, why, path);
            }
            for (int64_t i = 0; which == DS_GAMES && i < k; i++) {
                const StoredGame *g = (const StoredGame *)buf + i;
                if (g->move_offset >= 0 && g->move_count >= 0 && g->move_offset <= INT64_MAX - g->move_count &&
                    g->move_offset + g->move_count > reach[DS_MOVES])
                    reach[DS_MOVES] = g->move_offset + g->move_count;
                if (g->position_offset >= 0 && g->position_count >= 0 &&
                    g->position_offset <= INT64_MAX - g->position_count &&
                    g->position_offset + g->position_count > reach[DS_POSITIONS])
                    reach[DS_POSITIONS] = g->position_offset + g->position_count;
            }
        }
        store_close_id(&mt, H5Tclose);
        store_close_id(&ds, H5Dclose);
    }
    store_close_id(&mt, H5Tclose);
    store_close_id(&ds, H5Dclose);
    free(buf);
    if (file >= 0 && H5Fclose(file) < 0 && st == TV_OK)
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot close the file");
    return st;
}
