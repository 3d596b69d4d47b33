#define _POSIX_C_SOURCE 200809L
/* store_read.c: the one reader of the HDF5 store and its checks: the
 * schema version, the datasets, the weights of the engines, and every
 * /games row (see h5store_read in h5store.h).  A store left by a crash reads
 * as of its last committed append; a damaged one is refused with the row
 * and the reason. */
#include "store_internal.h"

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
        !store_read_rows(ds, mt, 0, n, rows)) {
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
} RowKey;

/* Reads the game and ply members of rows [0, n) of /moves or /positions. */
static RowKey *read_keys(hid_t file, const char *name, int64_t n, const char *path, TvStatus *st, TvError *err)
{
    RowKey *keys = malloc(sizeof *keys * (size_t)(n ? n : 1));
    hid_t ds = H5I_INVALID_HID, t = H5Tcreate(H5T_COMPOUND, sizeof(RowKey));
    *st = TV_OK;
    if (!keys || t < 0 || H5Tinsert(t, "game", offsetof(RowKey, game), H5T_NATIVE_INT64) < 0 ||
        H5Tinsert(t, "ply", offsetof(RowKey, ply), H5T_NATIVE_INT32) < 0) {
        *st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory for the rows of /%s", path, name);
    } else if ((ds = H5Dopen2(file, name, H5P_DEFAULT)) < 0 || !store_read_rows(ds, t, 0, n, keys)) {
        char what[64];
        snprintf(what, sizeof what, "cannot read /%s", name);
        *st = store_h5_fail(err, TV_ERR_IO, path, what);
    }
    store_close_id(&ds, H5Dclose);
    store_close_id(&t, H5Tclose);
    if (*st != TV_OK) {
        free(keys);
        keys = NULL;
    }
    return keys;
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
    return tv_fail(err, TV_ERR_ARG,
                   "%s: the store was made by another configuration (its tournament INI differs); "
                   "use --force to start a new store",
                   path);
}

/* What the scan of /games knows of the big datasets. */
typedef struct {
    const RowKey *keys[2]; /* /moves, /positions */
    int64_t rows[2];
} Rows;

static bool fill_row(const StoredGame *g)
{
    return g->index == -1 && g->move_count == -1 && g->position_count == -1;
}

/* What is wrong with row g of /games given that the rows before it end at
 * offsets mo (moves) and po (positions) (-1: any offsets inside the
 * datasets will do, for a repair), written into why; NULL when it is a good
 * game.  *unwritten: the problem is that its moves or positions were never
 * written (what a crash leaves). */
static const char *row_problem(const StoredGame *g, int64_t mo, int64_t po, const Rows *r, bool *unwritten,
                               char *why, size_t n)
{
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
            int64_t off = k ? po : mo;
            if (off + g->plies > r->rows[k]) {
                *unwritten = true;
                snprintf(why, n, "its %s (rows %lld to %lld) run past the end of /%s (%lld rows)", NAMES[k],
                         (long long)off, (long long)(off + g->plies - 1), NAMES[k], (long long)r->rows[k]);
                return why;
            }
            for (int32_t j = 0; j < g->plies; j++) {
                const RowKey *key = &r->keys[k][off + j];
                if (key->game == g->index && key->ply == j)
                    continue;
                *unwritten = key->game == -1;
                snprintf(why, n, "/%s row %lld is game %lld ply %d, not ply %d of this game", NAMES[k],
                         (long long)(off + j), (long long)key->game, key->ply, j);
                return why;
            }
        }
        return NULL;
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
static TvStatus scan_games(const char *path, const StoredGame *g, int64_t ng, const Rows *r, int64_t *kept,
                           int64_t *torn, TvError *err)
{
    char why[256];
    bool unwritten;
    int64_t mo = 0, po = 0, good = ng;
    *kept = *torn = 0;
    for (int64_t i = 0; i < ng; i++) {
        if (!row_problem(&g[i], mo, po, r, &unwritten, why, sizeof why)) {
            mo += g[i].move_count;
            po += g[i].position_count;
            continue;
        }
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
static int64_t scan_games_tolerant(StoredGame *g, int64_t ng, const Rows *r, StoreRowFn dropped, void *user,
                                   StoreRepairCounts *counts)
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

/* Opens and checks the store, reads its attributes and rows and keeps the
 * good games: strictly (h5store_read) or, with `repair`, every row that is
 * good on its own. */
TvStatus store_read_games(const char *path, bool with_moves, bool with_positions, const StoreRepair *repair,
                          StoreContents *out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    hid_t file = H5I_INVALID_HID, root = H5I_INVALID_HID;
    RowKey *keys[2] = {NULL, NULL};
    StoredPosition *all_positions = NULL;
    store_quiet_hdf5();
    memset(out, 0, sizeof *out);
    if ((st = store_open_read(path, &file, err)) != TV_OK)
        goto done;
    if ((st = store_check_schema(file, path, &out->schema_version, err)) != TV_OK)
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
    int64_t ne = rows_of(file, "engines"), ng = rows_of(file, "games"), nm = rows_of(file, "moves"),
            np = rows_of(file, "positions");
    if (ne < 0 || ng < 0 || nm < 0 || np < 0) {
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
    out->games = read_dataset(file, DS_GAMES, ng, path, &st, err);
    if (st != TV_OK)
        goto done;
    /* Every row checked against the game and ply of the rows it points to. */
    Rows rows = {{NULL, NULL}, {nm, np}};
    keys[0] = read_keys(file, "moves", nm, path, &st, err);
    if (st == TV_OK && with_positions && !repair) {
        /* the positions are wanted: read every row once and take the keys
         * from it (decompressing /positions twice, once for its keys and
         * once for its rows, took a sixth of what tune spends on a store) */
        all_positions = read_dataset(file, DS_POSITIONS, np, path, &st, err);
        if (st == TV_OK && !(keys[1] = malloc(sizeof *keys[1] * (size_t)(np ? np : 1))))
            st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory for the rows of /positions", path);
        for (int64_t i = 0; st == TV_OK && i < np; i++)
            keys[1][i] = (RowKey){all_positions[i].game, all_positions[i].ply};
    } else if (st == TV_OK)
        keys[1] = read_keys(file, "positions", np, path, &st, err);
    if (st != TV_OK)
        goto done;
    rows.keys[0] = keys[0];
    rows.keys[1] = keys[1];
    if (repair) {
        memset(repair->counts, 0, sizeof *repair->counts);
        repair->counts->rows = ng;
        out->ngames = scan_games_tolerant(out->games, ng, &rows, repair->dropped, repair->user, repair->counts);
        if (with_moves || with_positions) {
            st = tv_fail(err, TV_ERR_ARG, "%s: a repair reads the rows of each game itself", path);
            goto done;
        }
    } else if ((st = scan_games(path, out->games, ng, &rows, &out->ngames, &out->torn_rows, err)) != TV_OK)
        goto done;
    int64_t need_m = 0, need_p = 0;
    if (out->ngames > 0) {
        const StoredGame *last = &out->games[out->ngames - 1];
        need_m = last->move_offset + last->move_count;
        need_p = last->position_offset + last->position_count;
    }
    if (with_moves) {
        out->moves = read_dataset(file, DS_MOVES, need_m, path, &st, err);
        if (st != TV_OK)
            goto done;
        out->nmoves = need_m;
    }
    if (with_positions) {
        if (all_positions && need_p > 0) {
            out->positions = all_positions; /* rows past need_p (torn) are not counted */
            all_positions = NULL;
        } else if (!all_positions)
            out->positions = read_dataset(file, DS_POSITIONS, need_p, path, &st, err);
        if (st != TV_OK)
            goto done;
        out->npositions = need_p;
    }
    st = TV_OK;
done:
    free(keys[0]);
    free(keys[1]);
    free(all_positions);
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
    return store_read_games(path, with_moves, with_positions, NULL, out, err);
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

TvStatus h5store_check_readable(const char *path, TvError *err)
{
    TvStatus st = TV_OK;
    hid_t file = H5I_INVALID_HID, ds = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    void *buf = NULL;
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
        for (int64_t at = 0; at < n && st == TV_OK; at += CHECK_BLOCK_ROWS) {
            int64_t k = n - at < CHECK_BLOCK_ROWS ? n - at : CHECK_BLOCK_ROWS;
            if (!store_read_rows(ds, mt, at, k, buf)) {
                char what[96];
                snprintf(what, sizeof what, "cannot read /%s rows %lld to %lld", d->name, (long long)at,
                         (long long)(at + k - 1));
                st = store_h5_fail(err, TV_ERR_IO, path, what);
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
