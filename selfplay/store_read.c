#define _POSIX_C_SOURCE 200809L
/* store_read.c: reading the HDF5 store and checking what it holds: the
 * schema version, the datasets, the weights of the engines, and which games
 * are complete.  A reader keeps only the games whose rows are complete and
 * consistent (offsets chained, moves and positions present) and ignores any
 * moves or positions beyond the last such game, so a store left by a crash
 * reads as of its last committed append. */
#include "store_internal.h"

#include <errno.h>
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
    if (v != H5STORE_SCHEMA_VERSION) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: schema version %d, this program reads %d", path, v,
                     H5STORE_SCHEMA_VERSION);
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
 * is 0), setting *st; `path` names the store in messages. */
static void *read_dataset(hid_t file, int which, const StoreTypes *t, int64_t n, const char *path, TvStatus *st,
                          TvError *err)
{
    const StoreDataset *d = &store_datasets[which];
    void *rows = NULL;
    hid_t ds = H5I_INVALID_HID;
    *st = TV_OK;
    if (n == 0)
        return NULL;
    if (!(rows = calloc((size_t)n, d->row_size)) || (ds = H5Dopen2(file, d->name, H5P_DEFAULT)) < 0 ||
        !store_read_rows(ds, t->mem[which], 0, n, rows)) {
        char what[64];
        snprintf(what, sizeof what, "cannot read /%s", d->name);
        *st = store_h5_fail(err, TV_ERR_IO, path, what);
        free(rows);
        rows = NULL;
    }
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
    return tv_fail(err, TV_ERR_ARG,
                   "%s: the store was made by another configuration (its tournament INI differs); "
                   "use --force to start a new store",
                   path);
}

/* The number of leading games that are complete: offsets chained from 0,
 * counts non-negative, rows present in /moves and /positions. */
static int64_t complete_games(const StoredGame *g, int64_t n, int64_t nmoves_rows, int64_t npos_rows)
{
    int64_t mo = 0, po = 0;
    for (int64_t i = 0; i < n; i++) {
        if (g[i].index < 0 || g[i].move_count < 0 || g[i].position_count < 0 || g[i].move_offset != mo ||
            g[i].position_offset != po || mo + g[i].move_count > nmoves_rows || po + g[i].position_count > npos_rows)
            return i;
        mo += g[i].move_count;
        po += g[i].position_count;
    }
    return n;
}

/* Opens and checks the store, reads its attributes and rows and keeps the
 * complete games (the file comment). */
TvStatus h5store_read(const char *path, bool with_moves, bool with_positions, StoreContents *out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    hid_t file = H5I_INVALID_HID, root = H5I_INVALID_HID;
    StoreTypes t;
    store_types_init(&t);
    store_quiet_hdf5();
    memset(out, 0, sizeof *out);
    if ((st = store_open_read(path, &file, err)) != TV_OK)
        goto done;
    if ((st = store_check_schema(file, path, &out->schema_version, err)) != TV_OK)
        goto done;
    if ((st = store_check_weights(file, path, err)) != TV_OK)
        goto done;
    st = TV_ERR_IO;
    if (!store_types_make(&t)) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot make the HDF5 types");
        goto done;
    }
    if ((root = H5Gopen2(file, "/", H5P_DEFAULT)) < 0) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot open the root group");
        goto done;
    }
    out->tournament_ini = store_read_string_attr(root, "tournament_ini");
    out->options = store_read_string_attr(root, "options");
    out->program_version = store_read_string_attr(root, "program_version");
    out->sprt = store_read_string_attr(root, "sprt");
    out->sprt_result = store_read_string_attr(root, "sprt_result");
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
    out->engines = read_dataset(file, DS_ENGINES, &t, ne, path, &st, err);
    if (st != TV_OK)
        goto done;
    out->nengines = (int)ne;
    out->games = read_dataset(file, DS_GAMES, &t, ng, path, &st, err);
    if (st != TV_OK)
        goto done;
    /* Keep the complete games only (a torn last append leaves rows that were
     * never written or point past the moves and positions). */
    out->ngames = complete_games(out->games, ng, nm, np);
    int64_t need_m = 0, need_p = 0;
    if (out->ngames > 0) {
        const StoredGame *last = &out->games[out->ngames - 1];
        need_m = last->move_offset + last->move_count;
        need_p = last->position_offset + last->position_count;
    }
    if (with_moves) {
        out->moves = read_dataset(file, DS_MOVES, &t, need_m, path, &st, err);
        if (st != TV_OK)
            goto done;
        out->nmoves = need_m;
    }
    if (with_positions) {
        out->positions = read_dataset(file, DS_POSITIONS, &t, need_p, path, &st, err);
        if (st != TV_OK)
            goto done;
        out->npositions = need_p;
    }
    /* Rows of a game must name it: a game whose moves or positions were not
     * all written (fill value -1) ends the complete part. */
    for (int64_t i = 0; i < out->ngames; i++) {
        const StoredGame *g = &out->games[i];
        bool good = true;
        for (int32_t k = 0; good && with_moves && k < g->move_count; k++)
            good = out->moves[g->move_offset + k].game == g->index;
        for (int32_t k = 0; good && with_positions && k < g->position_count; k++)
            good = out->positions[g->position_offset + k].game == g->index;
        if (!good) {
            out->ngames = i;
            if (with_moves)
                out->nmoves = g->move_offset;
            if (with_positions)
                out->npositions = g->position_offset;
            break;
        }
    }
    st = TV_OK;
done:
    if (root >= 0)
        H5Gclose(root);
    store_types_free(&t);
    if (file >= 0 && H5Fclose(file) < 0 && st == TV_OK)
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot close the file");
    if (st != TV_OK)
        h5store_contents_free(out);
    return st;
}

