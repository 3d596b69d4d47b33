#define _POSIX_C_SOURCE 200809L
/* store_schema.c: the schema of the HDF5 store (see h5store.h and
 * README.md, "HDF5 store") and the HDF5 helpers the other store files share.
 *
 * Layout: four 1-D chunked, deflate+shuffle compressed, extendible datasets
 * of compound types whose member names are the struct fields (/games,
 * /moves, /positions, /engines), attributes on the root group
 * (tournament_ini, options, program_version, schema_version) and the
 * weight_names attribute of /engines.
 *
 * Every HDF5 call is checked; HDF5's own error printing is turned off and
 * the innermost HDF5 message is added to ours. */
#include "store_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Chunk cache per dataset: holds the chunk being filled of each dataset. */
#define CHUNK_CACHE_BYTES (4u << 20)
#define CHUNK_CACHE_SLOTS 1031

const char *const store_ds_name[DS_COUNT] = {"games", "moves", "positions", "engines"};

/* ---- HDF5 types ----------------------------------------------------------------- */

void store_types_init(StoreTypes *t)
{
    for (int i = 0; i < DS_COUNT; i++)
        t->mem[i] = t->file[i] = H5I_INVALID_HID;
    t->str_tfen = t->str_move = t->str_name = t->str_path = t->weights = H5I_INVALID_HID;
}

static void close_type(hid_t *h)
{
    if (*h >= 0)
        H5Tclose(*h);
    *h = H5I_INVALID_HID;
}

void store_types_free(StoreTypes *t)
{
    for (int i = 0; i < DS_COUNT; i++) {
        close_type(&t->mem[i]);
        close_type(&t->file[i]);
    }
    close_type(&t->str_tfen);
    close_type(&t->str_move);
    close_type(&t->str_name);
    close_type(&t->str_path);
    close_type(&t->weights);
}

static hid_t fixed_string(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return t;
    if (H5Tset_size(t, n) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

#define INS(type, st, field, h5t) ok = ok && H5Tinsert(type, #field, offsetof(st, field), h5t) >= 0

bool store_types_make(StoreTypes *t)
{
    bool ok = true;
    hsize_t nw = EVAL_NWEIGHTS;
    store_types_init(t);
    t->str_tfen = fixed_string(H5STORE_TFEN_LEN);
    t->str_move = fixed_string(H5STORE_MOVE_LEN);
    t->str_name = fixed_string(sizeof ((StoredEngine *)0)->name);
    t->str_path = fixed_string(sizeof ((StoredEngine *)0)->path);
    t->weights = H5Tarray_create2(H5T_NATIVE_INT32, 1, &nw);
    if (t->str_tfen < 0 || t->str_move < 0 || t->str_name < 0 || t->str_path < 0 || t->weights < 0)
        return false;

    hid_t g = t->mem[DS_GAMES] = H5Tcreate(H5T_COMPOUND, sizeof(StoredGame));
    if (g < 0)
        return false;
    INS(g, StoredGame, index, H5T_NATIVE_INT64);
    INS(g, StoredGame, pairing, H5T_NATIVE_INT32);
    INS(g, StoredGame, white, H5T_NATIVE_INT32);
    INS(g, StoredGame, black, H5T_NATIVE_INT32);
    INS(g, StoredGame, opening, H5T_NATIVE_INT32);
    INS(g, StoredGame, start_tfen, t->str_tfen);
    INS(g, StoredGame, result, H5T_NATIVE_INT8);
    INS(g, StoredGame, termination, H5T_NATIVE_INT8);
    INS(g, StoredGame, plies, H5T_NATIVE_INT32);
    INS(g, StoredGame, seed, H5T_NATIVE_UINT64);
    INS(g, StoredGame, wall_time, H5T_NATIVE_DOUBLE);
    INS(g, StoredGame, move_offset, H5T_NATIVE_INT64);
    INS(g, StoredGame, move_count, H5T_NATIVE_INT32);
    INS(g, StoredGame, position_offset, H5T_NATIVE_INT64);
    INS(g, StoredGame, position_count, H5T_NATIVE_INT32);

    hid_t m = t->mem[DS_MOVES] = H5Tcreate(H5T_COMPOUND, sizeof(StoredMove));
    if (m < 0)
        return false;
    INS(m, StoredMove, game, H5T_NATIVE_INT64);
    INS(m, StoredMove, ply, H5T_NATIVE_INT32);
    INS(m, StoredMove, move, t->str_move);
    INS(m, StoredMove, score, H5T_NATIVE_INT32);
    INS(m, StoredMove, depth, H5T_NATIVE_INT32);
    INS(m, StoredMove, nodes, H5T_NATIVE_INT64);

    hid_t p = t->mem[DS_POSITIONS] = H5Tcreate(H5T_COMPOUND, sizeof(StoredPosition));
    if (p < 0)
        return false;
    INS(p, StoredPosition, game, H5T_NATIVE_INT64);
    INS(p, StoredPosition, ply, H5T_NATIVE_INT32);
    INS(p, StoredPosition, tfen, t->str_tfen);
    INS(p, StoredPosition, side, H5T_NATIVE_INT8);
    INS(p, StoredPosition, score, H5T_NATIVE_INT32);
    INS(p, StoredPosition, result, H5T_NATIVE_FLOAT);

    hid_t e = t->mem[DS_ENGINES] = H5Tcreate(H5T_COMPOUND, sizeof(StoredEngine));
    if (e < 0)
        return false;
    INS(e, StoredEngine, name, t->str_name);
    INS(e, StoredEngine, path, t->str_path);
    INS(e, StoredEngine, weights, t->weights);
    INS(e, StoredEngine, depth, H5T_NATIVE_INT32);
    INS(e, StoredEngine, nodes, H5T_NATIVE_INT64);
    INS(e, StoredEngine, movetime_ms, H5T_NATIVE_INT32);
    if (!ok)
        return false;

    for (int i = 0; i < DS_COUNT; i++) {
        t->file[i] = H5Tcopy(t->mem[i]);
        if (t->file[i] < 0 || H5Tpack(t->file[i]) < 0)
            return false;
    }
    return true;
}

#undef INS

/* ---- errors ----------------------------------------------------------------------- */

static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    char *buf = data;
    if (n == 0 && e->desc)
        snprintf(buf, 160, "%s", e->desc);
    return 0;
}

/* The most specific message on HDF5's error stack ("" when none). */
static const char *h5_detail(char buf[160])
{
    buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, buf);
    return buf;
}

/* tv_fail with the HDF5 detail appended: "MSG (hdf5: DETAIL)". */
TvStatus store_h5_fail(TvError *err, TvStatus st, const char *path, const char *what)
{
    char d[160];
    h5_detail(d);
    if (d[0])
        return tv_fail(err, st, "%s: %s (hdf5: %s)", path, what, d);
    return tv_fail(err, st, "%s: %s", path, what);
}

void store_quiet_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void store_close_id(hid_t *h, herr_t (*fn)(hid_t))
{
    if (*h >= 0)
        fn(*h);
    *h = H5I_INVALID_HID;
}

hid_t store_fapl_latest(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return fapl;
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0 ||
        H5Pset_metadata_read_attempts(fapl, SWMR_READ_ATTEMPTS) < 0) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

hid_t store_dapl_cached(void)
{
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl < 0)
        return dapl;
    if (H5Pset_chunk_cache(dapl, CHUNK_CACHE_SLOTS, CHUNK_CACHE_BYTES, 1.0) < 0) {
        H5Pclose(dapl);
        return H5I_INVALID_HID;
    }
    return dapl;
}

/* ---- attributes ---------------------------------------------------------------------------- */

bool store_write_string_attr(hid_t obj, const char *name, const char *value)
{
    bool ok = false;
    hid_t t = H5I_INVALID_HID, sp = H5I_INVALID_HID, a = H5I_INVALID_HID;
    if ((t = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)
        goto done;
    if ((sp = H5Screate(H5S_SCALAR)) < 0)
        goto done;
    if ((a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto done;
    if (H5Awrite(a, t, &value) < 0)
        goto done;
    ok = true;
done:
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return ok;
}

bool store_write_int_attr(hid_t obj, const char *name, int value)
{
    bool ok = false;
    int32_t v = value;
    hid_t sp = H5I_INVALID_HID, a = H5I_INVALID_HID;
    if ((sp = H5Screate(H5S_SCALAR)) < 0)
        goto done;
    if ((a = H5Acreate2(obj, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto done;
    if (H5Awrite(a, H5T_NATIVE_INT32, &v) < 0)
        goto done;
    ok = true;
done:
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    return ok;
}

bool store_write_weight_names(hid_t obj)
{
    bool ok = false;
    hsize_t n = EVAL_NWEIGHTS;
    char(*names)[96] = calloc(EVAL_NWEIGHTS, sizeof *names);
    const char **ptrs = calloc(EVAL_NWEIGHTS, sizeof *ptrs);
    hid_t t = H5I_INVALID_HID, sp = H5I_INVALID_HID, a = H5I_INVALID_HID;
    if (!names || !ptrs)
        goto done;
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        ptrs[i] = eval_weight_element_name(i, names[i], sizeof names[i]);
    if ((t = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)
        goto done;
    if ((sp = H5Screate_simple(1, &n, NULL)) < 0)
        goto done;
    if ((a = H5Acreate2(obj, "weight_names", t, sp, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto done;
    if (H5Awrite(a, t, ptrs) < 0)
        goto done;
    ok = true;
done:
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    free(ptrs);
    free(names);
    return ok;
}

/* Reads a scalar string attribute (variable or fixed length) into a heap
 * string.  Returns NULL when missing or not a string. */
char *store_read_string_attr(hid_t obj, const char *name)
{
    char *out = NULL;
    hid_t a = H5I_INVALID_HID, ft = H5I_INVALID_HID, mt = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    if (H5Aexists(obj, name) <= 0)
        goto done;
    if ((a = H5Aopen(obj, name, H5P_DEFAULT)) < 0 || (ft = H5Aget_type(a)) < 0 || H5Tget_class(ft) != H5T_STRING)
        goto done;
    if ((sp = H5Aget_space(a)) < 0 || H5Sget_simple_extent_npoints(sp) != 1)
        goto done;
    htri_t vl = H5Tis_variable_str(ft);
    H5T_cset_t cset = H5Tget_cset(ft);
    if (vl < 0 || cset < 0 || (mt = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_cset(mt, cset) < 0)
        goto done;
    if (vl) {
        char *v = NULL;
        if (H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Aread(a, mt, &v) < 0)
            goto done;
        out = strdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t n = H5Tget_size(ft);
        char *buf = calloc(n + 1, 1);
        if (!buf || n == 0 || H5Tset_size(mt, n) < 0 || H5Tset_strpad(mt, H5T_STR_NULLPAD) < 0 ||
            H5Aread(a, mt, buf) < 0) {
            free(buf);
            goto done;
        }
        out = buf;
    }
done:
    if (mt >= 0)
        H5Tclose(mt);
    if (sp >= 0)
        H5Sclose(sp);
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
    return out;
}

/* 1 when read, 0 when missing or not an integer, -1 on an HDF5 error. */
int store_read_int_attr(hid_t obj, const char *name, int *value)
{
    int rc = 0;
    int32_t v = 0;
    hid_t a = H5I_INVALID_HID, ft = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    htri_t ex = H5Aexists(obj, name);
    if (ex <= 0) {
        rc = ex < 0 ? -1 : 0;
        goto done;
    }
    if ((a = H5Aopen(obj, name, H5P_DEFAULT)) < 0 || (ft = H5Aget_type(a)) < 0 || (sp = H5Aget_space(a)) < 0) {
        rc = -1;
        goto done;
    }
    if (H5Tget_class(ft) != H5T_INTEGER || H5Sget_simple_extent_npoints(sp) != 1)
        goto done;
    if (H5Aread(a, H5T_NATIVE_INT32, &v) < 0) {
        rc = -1;
        goto done;
    }
    *value = v;
    rc = 1;
done:
    if (sp >= 0)
        H5Sclose(sp);
    if (ft >= 0)
        H5Tclose(ft);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

/* Number of rows of an open dataset, or -1. */
int64_t store_dataset_rows(hid_t ds)
{
    hsize_t n = 0;
    hid_t sp = H5Dget_space(ds);
    if (sp < 0)
        return -1;
    int nd = H5Sget_simple_extent_ndims(sp);
    if (nd != 1 || H5Sget_simple_extent_dims(sp, &n, NULL) < 0)
        n = (hsize_t)-1;
    H5Sclose(sp);
    return n == (hsize_t)-1 ? -1 : (int64_t)n;
}

