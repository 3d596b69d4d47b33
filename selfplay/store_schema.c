#define _POSIX_C_SOURCE 200809L
/* store_schema.c: the schema of the HDF5 store (see h5store.h and
 * docs/store.md) and the HDF5 helpers the other store files share.
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

#include "engine_id.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows per chunk: 64-220 KB of raw data each (a /games row is ~270 bytes
 * packed, /moves ~44, /positions ~213).  Every append rewrites the partly
 * filled last chunk of each dataset, compressed, so its cost grows with the
 * chunk size: chunks 4x larger made an append of 5 games ~6x slower. */
#define CHUNK_GAMES 256
#define CHUNK_MOVES 4096
#define CHUNK_POSITIONS 1024
#define CHUNK_ENGINES 64
#define DEFLATE_LEVEL 4
/* Chunk cache per dataset: holds the chunk being filled of each dataset. */
#define CHUNK_CACHE_BYTES (4u << 20)
#define CHUNK_CACHE_SLOTS 1031
/* Metadata read attempts in SWMR mode (reading or writing).  HDF5 retries a
 * metadata block whose checksum fails, doubling a sleep from 1 ns, to wait
 * for a live writer to finish it; its default of 100 attempts is an endless
 * wait when the writer was killed.  30 attempts wait at most 2^30 ns, about
 * a second, then fail with "incorrect metadata checksum". */
#define SWMR_READ_ATTEMPTS 30

/* ---- the datasets ---------------------------------------------------------------- */

/* What a struct field is stored as: its C type picks the native HDF5 type
 * (char arrays are fixed-length NUL-padded strings, int32_t arrays 1-D
 * arrays of their length). */
typedef enum {
    FIELD_INT8,
    FIELD_INT32,
    FIELD_INT64,
    FIELD_UINT64,
    FIELD_FLOAT,
    FIELD_DOUBLE,
    FIELD_STRING,     /* char[N] */
    FIELD_INT32_ARRAY /* int32_t[N] */
} FieldKind;

struct StoreField {
    const char *name; /* the member name: the field name */
    size_t offset;    /* offsetof the field in its struct */
    size_t size;      /* sizeof the field */
    FieldKind kind;
    int since;        /* the schema version that added it (a store of that version or later must have it);
                         0: never required (added without a new version, read as its default) */
};

/* The kind of a field, from its C type; a field of any other type does not
 * compile.  (_Generic sees an array as a pointer to its first element.) */
#define FIELD_KIND(x)                                                                                                \
    _Generic((x), int8_t: FIELD_INT8, int32_t: FIELD_INT32, int64_t: FIELD_INT64, uint64_t: FIELD_UINT64,           \
             float: FIELD_FLOAT, double: FIELD_DOUBLE, char *: FIELD_STRING, int32_t *: FIELD_INT32_ARRAY)
/* One member of a compound type: the field `f` of struct `st`. */
#define FIELD(st, f) FIELD_SINCE(st, f, 1)
/* A member added by schema version `since` (0: optional, see StoreField). */
#define FIELD_SINCE(st, f, since) {#f, offsetof(st, f), sizeof ((st *)0)->f, FIELD_KIND(((st *)0)->f), since}
#define NFIELDS(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* The members of each dataset, in stored order (docs/store.md, "Layout"). */
static const StoreField GAME_FIELDS[] = {
    FIELD(StoredGame, index),        FIELD(StoredGame, pairing),         FIELD(StoredGame, white),
    FIELD(StoredGame, black),        FIELD(StoredGame, opening),         FIELD(StoredGame, start_tfen),
    FIELD(StoredGame, result),       FIELD(StoredGame, termination),     FIELD(StoredGame, plies),
    FIELD(StoredGame, seed),         FIELD(StoredGame, wall_time),       FIELD(StoredGame, move_offset),
    FIELD(StoredGame, move_count),   FIELD(StoredGame, position_offset), FIELD(StoredGame, position_count),
    FIELD_SINCE(StoredGame, stored_at, 3),
};
static const StoreField MOVE_FIELDS[] = {
    FIELD(StoredMove, game),  FIELD(StoredMove, ply),   FIELD(StoredMove, move),    FIELD(StoredMove, score),
    FIELD(StoredMove, depth), FIELD(StoredMove, nodes), FIELD_SINCE(StoredMove, time_ms, 2), FIELD_SINCE(StoredMove, clock_ms, 2),
};
static const StoreField POSITION_FIELDS[] = {
    FIELD(StoredPosition, game), FIELD(StoredPosition, ply),   FIELD(StoredPosition, tfen),
    FIELD(StoredPosition, side), FIELD(StoredPosition, score), FIELD(StoredPosition, result),
};
static const StoreField ENGINE_FIELDS[] = {
    FIELD(StoredEngine, name),    FIELD(StoredEngine, path),        FIELD(StoredEngine, weights),
    FIELD(StoredEngine, depth),   FIELD(StoredEngine, nodes),       FIELD(StoredEngine, movetime_ms),
    FIELD_SINCE(StoredEngine, kind, 2),    FIELD_SINCE(StoredEngine, command, 2),     FIELD_SINCE(StoredEngine, tc, 2),
    FIELD_SINCE(StoredEngine, timemargin_ms, 2), FIELD_SINCE(StoredEngine, settings, 0),
    FIELD_SINCE(StoredEngine, version, 4), FIELD_SINCE(StoredEngine, commit, 4),
    FIELD_SINCE(StoredEngine, exe_path, 4), FIELD_SINCE(StoredEngine, exe_sha256, 4),
    FIELD_SINCE(StoredEngine, exe_size, 4), FIELD_SINCE(StoredEngine, id_name, 4),
    FIELD_SINCE(StoredEngine, id_author, 4), FIELD_SINCE(StoredEngine, options, 4),
    FIELD_SINCE(StoredEngine, options_in_effect, 4), FIELD_SINCE(StoredEngine, bench, 5),
};

/* Fill values mark rows never written (game index -1); a field that an
 * older store lacks reads as its value here (times -1: not recorded). */
static const StoredGame GAME_FILL = {.index = -1, .move_count = -1, .position_count = -1, .stored_at = -1};
static const StoredMove MOVE_FILL = {.game = -1, .time_ms = -1, .clock_ms = -1};
static const StoredPosition POSITION_FILL = {.game = -1};
static const StoredEngine ENGINE_FILL = {.kind = 0, .exe_size = -1, .bench = -1};

const StoreDataset store_datasets[DS_COUNT] = {
    [DS_GAMES] = {"games", sizeof(StoredGame), CHUNK_GAMES, &GAME_FILL, GAME_FIELDS, NFIELDS(GAME_FIELDS)},
    [DS_MOVES] = {"moves", sizeof(StoredMove), CHUNK_MOVES, &MOVE_FILL, MOVE_FIELDS, NFIELDS(MOVE_FIELDS)},
    [DS_POSITIONS] = {"positions", sizeof(StoredPosition), CHUNK_POSITIONS, &POSITION_FILL, POSITION_FIELDS,
                      NFIELDS(POSITION_FIELDS)},
    [DS_ENGINES] = {"engines", sizeof(StoredEngine), CHUNK_ENGINES, &ENGINE_FILL, ENGINE_FIELDS,
                    NFIELDS(ENGINE_FIELDS)},
};

/* ---- HDF5 types ----------------------------------------------------------------- */

/* Sets every id to invalid. */
void store_types_init(StoreTypes *t)
{
    for (int i = 0; i < DS_COUNT; i++)
        t->mem[i] = t->file[i] = H5I_INVALID_HID;
}

/* Closes the types that were made. */
void store_types_free(StoreTypes *t)
{
    for (int i = 0; i < DS_COUNT; i++) {
        store_close_id(&t->mem[i], H5Tclose);
        store_close_id(&t->file[i], H5Tclose);
    }
}

/* A fixed-length NUL-padded string type of n bytes (invalid on failure). */
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

/* The native type of a field: a new id the caller closes (invalid on failure). */
static hid_t field_type(const StoreField *f)
{
    hsize_t n = f->size / sizeof(int32_t);
    switch (f->kind) {
    case FIELD_INT8:
        return H5Tcopy(H5T_NATIVE_INT8);
    case FIELD_INT32:
        return H5Tcopy(H5T_NATIVE_INT32);
    case FIELD_INT64:
        return H5Tcopy(H5T_NATIVE_INT64);
    case FIELD_UINT64:
        return H5Tcopy(H5T_NATIVE_UINT64);
    case FIELD_FLOAT:
        return H5Tcopy(H5T_NATIVE_FLOAT);
    case FIELD_DOUBLE:
        return H5Tcopy(H5T_NATIVE_DOUBLE);
    case FIELD_STRING:
        return fixed_string(f->size);
    case FIELD_INT32_ARRAY:
        return H5Tarray_create2(H5T_NATIVE_INT32, 1, &n);
    }
    return H5I_INVALID_HID;
}

/* The native compound type of dataset `which`: the struct's layout; with
 * `present` (a file type), only the members that it has too. */
static hid_t compound_type(int which, hid_t present)
{
    const StoreDataset *d = &store_datasets[which];
    hid_t t = H5Tcreate(H5T_COMPOUND, d->row_size);
    for (int i = 0; t >= 0 && i < d->nfields; i++) {
        if (present >= 0 && H5Tget_member_index(present, d->fields[i].name) < 0)
            continue;
        hid_t ft = field_type(&d->fields[i]);
        bool ok = ft >= 0 && H5Tinsert(t, d->fields[i].name, d->fields[i].offset, ft) >= 0;
        if (ft >= 0)
            H5Tclose(ft);
        if (!ok)
            store_close_id(&t, H5Tclose);
    }
    return t;
}

/* Each dataset's file type is its native type packed (no padding). */
bool store_types_make(StoreTypes *t)
{
    store_types_init(t);
    for (int i = 0; i < DS_COUNT; i++) {
        if ((t->mem[i] = compound_type(i, H5I_INVALID_HID)) < 0)
            return false;
        t->file[i] = H5Tcopy(t->mem[i]);
        if (t->file[i] < 0 || H5Tpack(t->file[i]) < 0)
            return false;
    }
    return true;
}

hid_t store_mem_type_for(hid_t ds, int which)
{
    hid_t ft = H5Dget_type(ds);
    if (ft < 0)
        return ft;
    hid_t t = H5Tget_class(ft) == H5T_COMPOUND ? compound_type(which, ft) : H5I_INVALID_HID;
    H5Tclose(ft);
    return t;
}

void store_prefill(int which, void *rows, int64_t n)
{
    const StoreDataset *d = &store_datasets[which];
    for (int64_t i = 0; i < n; i++)
        memcpy((char *)rows + (size_t)i * d->row_size, d->fill, d->row_size);
}

bool h5store_engines_reproducible(const StoredEngine *engines, int nengines)
{
    for (int i = 0; i < nengines; i++)
        if (!engine_id_reproducible(&engines[i]))
            return false;
    return true;
}

/* ---- errors ----------------------------------------------------------------------- */

/* H5Ewalk2 callback: copies the innermost (first, walking upward) message. */
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

/* HDF5 prints its error stack by default; ours go into TvError. */
void store_quiet_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Safe on an invalid id, and on the same id twice. */
void store_close_id(hid_t *h, herr_t (*fn)(hid_t))
{
    if (*h >= 0)
        fn(*h);
    *h = H5I_INVALID_HID;
}

/* STORE_FAPL_LATEST: the latest file format (SWMR needs it);
 * STORE_FAPL_SWMR_RETRIES: at most SWMR_READ_ATTEMPTS metadata reads. */
hid_t store_fapl(int flags)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return fapl;
    if (((flags & STORE_FAPL_LATEST) && H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0) ||
        ((flags & STORE_FAPL_SWMR_RETRIES) && H5Pset_metadata_read_attempts(fapl, SWMR_READ_ATTEMPTS) < 0)) {
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

/* CHUNK_CACHE_SLOTS slots, CHUNK_CACHE_BYTES bytes, full chunks evicted first. */
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

/* The dataset creation properties (chunks, shuffle + deflate, the fill
 * value) are the schema's; so are its name and type. */
hid_t store_create_dataset(hid_t file, int which, const StoreTypes *t, TvError *err, const char *path)
{
    const StoreDataset *d = &store_datasets[which];
    hid_t ds = H5I_INVALID_HID, sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dapl = H5I_INVALID_HID;
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = d->chunk_rows;
    if ((sp = H5Screate_simple(1, &zero, &unlimited)) < 0 || (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
        H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0 ||
        (d->fill && H5Pset_fill_value(dcpl, t->mem[which], d->fill) < 0) || (dapl = store_dapl_cached()) < 0) {
        store_h5_fail(err, TV_ERR_IO, path, "cannot set up a dataset");
        goto done;
    }
    ds = H5Dcreate2(file, d->name, t->file[which], sp, H5P_DEFAULT, dcpl, dapl);
    if (ds < 0) {
        char what[64];
        snprintf(what, sizeof what, "cannot create dataset /%s", d->name);
        store_h5_fail(err, TV_ERR_IO, path, what);
    }
done:
    store_close_id(&dapl, H5Pclose);
    store_close_id(&dcpl, H5Pclose);
    store_close_id(&sp, H5Sclose);
    return ds;
}

/* ---- attributes ---------------------------------------------------------------------------- */

/* Creates attribute `name` of obj holding n elements (n == 0: a scalar),
 * of type ftype in the file, written from buf of type mtype. */
static bool write_attr(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *buf)
{
    bool ok = false;
    hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL), a = H5I_INVALID_HID;
    if (sp >= 0 && (a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        ok = H5Awrite(a, mtype, buf) >= 0;
    store_close_id(&a, H5Aclose);
    store_close_id(&sp, H5Sclose);
    return ok;
}

/* Creates an attribute of variable-length UTF-8 strings: one (n == 0: a
 * scalar) or an array of n. */
static bool write_strings_attr(hid_t obj, const char *name, hsize_t n, const char *const *values)
{
    bool ok = false;
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && H5Tset_size(t, H5T_VARIABLE) >= 0 && H5Tset_cset(t, H5T_CSET_UTF8) >= 0)
        ok = write_attr(obj, name, t, t, n, values);
    store_close_id(&t, H5Tclose);
    return ok;
}

/* A scalar variable-length UTF-8 string. */
bool store_write_string_attr(hid_t obj, const char *name, const char *value)
{
    return write_strings_attr(obj, name, 0, &value);
}

/* A scalar int32, little-endian in the file. */
bool store_write_int_attr(hid_t obj, const char *name, int value)
{
    int32_t v = value;
    return write_attr(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &v);
}

/* "weight_names": the name of every evaluation weight, in weight order. */
bool store_write_weight_names(hid_t obj)
{
    bool ok = false;
    char(*names)[96] = calloc(EVAL_NWEIGHTS, sizeof *names);
    const char **ptrs = calloc(EVAL_NWEIGHTS, sizeof *ptrs);
    if (names && ptrs) {
        for (int i = 0; i < EVAL_NWEIGHTS; i++)
            ptrs[i] = eval_weight_element_name(i, names[i], sizeof names[i]);
        ok = write_strings_attr(obj, "weight_names", EVAL_NWEIGHTS, ptrs);
    }
    free(ptrs);
    free(names);
    return ok;
}

/* Opens attribute `name` of obj when it holds one element of class cls:
 * returns 1 with *a and *ft (its type) open for the caller to close; 0 when
 * it is missing, of another class or not one element; -1 on an HDF5 error.
 * On 0 and -1 nothing is left open. */
static int open_one_attr(hid_t obj, const char *name, H5T_class_t cls, hid_t *a, hid_t *ft)
{
    int rc = -1;
    hid_t sp = H5I_INVALID_HID;
    htri_t ex = H5Aexists(obj, name);
    *a = *ft = H5I_INVALID_HID;
    if (ex <= 0)
        return ex < 0 ? -1 : 0;
    if ((*a = H5Aopen(obj, name, H5P_DEFAULT)) >= 0 && (*ft = H5Aget_type(*a)) >= 0 && (sp = H5Aget_space(*a)) >= 0)
        rc = H5Tget_class(*ft) == cls && H5Sget_simple_extent_npoints(sp) == 1;
    store_close_id(&sp, H5Sclose);
    if (rc != 1) {
        store_close_id(ft, H5Tclose);
        store_close_id(a, H5Aclose);
    }
    return rc;
}

/* Reads a scalar string attribute (variable or fixed length) into a heap
 * string.  Returns NULL when missing or not a string. */
char *store_read_string_attr(hid_t obj, const char *name)
{
    char *out = NULL;
    hid_t a, ft, mt = H5I_INVALID_HID;
    if (open_one_attr(obj, name, H5T_STRING, &a, &ft) != 1)
        return NULL;
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
    store_close_id(&mt, H5Tclose);
    store_close_id(&ft, H5Tclose);
    store_close_id(&a, H5Aclose);
    return out;
}

/* 1 when read, 0 when missing or not an integer, -1 on an HDF5 error. */
int store_read_int_attr(hid_t obj, const char *name, int *value)
{
    int32_t v = 0;
    hid_t a, ft;
    int rc = open_one_attr(obj, name, H5T_INTEGER, &a, &ft);
    if (rc == 1) {
        if (H5Aread(a, H5T_NATIVE_INT32, &v) < 0)
            rc = -1;
        else
            *value = v;
        store_close_id(&ft, H5Tclose);
        store_close_id(&a, H5Aclose);
    }
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

/* Selects rows [at, at + n) of ds: *fs its file space with the rows
 * selected, *ms a memory space of n rows, both for the caller to close;
 * false on failure with nothing open. */
bool store_select_rows(hid_t ds, hsize_t at, hsize_t n, hid_t *fs, hid_t *ms)
{
    *ms = H5I_INVALID_HID;
    if ((*fs = H5Dget_space(ds)) >= 0 && H5Sselect_hyperslab(*fs, H5S_SELECT_SET, &at, NULL, &n, NULL) >= 0 &&
        (*ms = H5Screate_simple(1, &n, NULL)) >= 0)
        return true;
    store_close_id(fs, H5Sclose);
    return false;
}

/* Reads rows [start, start + n) of an open dataset into buf (memory type
 * memtype); nothing to do when n is 0. */
bool store_read_rows(hid_t ds, hid_t memtype, int64_t start, int64_t n, void *buf)
{
    hid_t fs, ms;
    if (n == 0)
        return true;
    if (!store_select_rows(ds, (hsize_t)start, (hsize_t)n, &fs, &ms))
        return false;
    bool ok = H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, buf) >= 0;
    H5Sclose(ms);
    H5Sclose(fs);
    return ok;
}

/* ---- the members a version requires ------------------------------------------------ */

/* The HDF5 class a field is stored as. */
static H5T_class_t field_class(const StoreField *f)
{
    switch (f->kind) {
    case FIELD_FLOAT:
    case FIELD_DOUBLE:
        return H5T_FLOAT;
    case FIELD_STRING:
        return H5T_STRING;
    case FIELD_INT32_ARRAY:
        return H5T_ARRAY;
    default:
        return H5T_INTEGER;
    }
}

TvStatus store_check_members(hid_t file, const char *path, int schema, TvError *err)
{
    TvStatus st = TV_OK;
    for (int which = 0; which < DS_COUNT && st == TV_OK; which++) {
        const StoreDataset *d = &store_datasets[which];
        hid_t ds = H5Dopen2(file, d->name, H5P_DEFAULT), ft = ds >= 0 ? H5Dget_type(ds) : H5I_INVALID_HID;
        if (ft < 0) {
            char what[64];
            snprintf(what, sizeof what, "cannot open /%s", d->name);
            st = store_h5_fail(err, TV_ERR_IO, path, what);
        } else if (H5Tget_class(ft) != H5T_COMPOUND) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (/%s is not a table of rows)", path, d->name);
        }
        for (int i = 0; i < d->nfields && st == TV_OK; i++) {
            const StoreField *f = &d->fields[i];
            int idx = H5Tget_member_index(ft, f->name);
            if (idx < 0) {
                if (f->since > 0 && f->since <= schema)
                    st = tv_fail(err, TV_ERR_PARSE,
                                 "%s: /%s has no member '%s', which every store of schema version %d has (since "
                                 "version %d): the store is damaged or was written by another program",
                                 path, d->name, f->name, schema, f->since);
                continue;
            }
            H5T_class_t cls = H5Tget_member_class(ft, (unsigned)idx);
            if (cls != field_class(f))
                st = tv_fail(err, TV_ERR_PARSE,
                             "%s: /%s member '%s' is not stored as %s: the store is damaged or was written by "
                             "another program",
                             path, d->name, f->name,
                             field_class(f) == H5T_FLOAT    ? "a floating-point number"
                             : field_class(f) == H5T_STRING ? "a string"
                             : field_class(f) == H5T_ARRAY  ? "an array"
                                                            : "an integer");
        }
        store_close_id(&ft, H5Tclose);
        store_close_id(&ds, H5Dclose);
    }
    return st;
}
