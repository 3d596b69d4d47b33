#define _POSIX_C_SOURCE 200809L
/* h5store.c: the HDF5 store of a tournament (see h5store.h and README.md,
 * "HDF5 store").
 *
 * Layout: four 1-D chunked, deflate+shuffle compressed, extendible datasets
 * of compound types whose member names are the struct fields (/games,
 * /moves, /positions, /engines), attributes on the root group
 * (tournament_ini, options, program_version, schema_version) and the
 * weight_names attribute of /engines.
 *
 * Crash safety:
 *  - a store is built under PATH.tmp (all datasets and attributes, flushed,
 *    SWMR writing started) and only then renamed to PATH, so PATH is never a
 *    half-made store;
 *  - an append writes /moves and /positions and flushes them (H5Dflush)
 *    before it writes /games and flushes the file: /games is the commit
 *    point.  Fill values mark rows never written (game index -1);
 *  - a reader keeps only the games whose rows are complete and consistent
 *    (offsets chained, moves and positions present) and ignores any moves or
 *    positions beyond the last such game;
 *  - a store left by a crash still carries HDF5's "open for writing" flag, so
 *    it can only be opened with SWMR read access; h5store_open_append then
 *    rewrites it (PATH.tmp, renamed over PATH) from what it holds.
 *
 * Every HDF5 call is checked; HDF5's own error printing is turned off and
 * the innermost HDF5 message is added to ours. */
#include "h5store.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#ifdef TAVRELI_VERSION
#define H5STORE_PROGRAM_VERSION TAVRELI_VERSION
#else
#define H5STORE_PROGRAM_VERSION "0.1.0"
#endif

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

enum { DS_GAMES, DS_MOVES, DS_POSITIONS, DS_ENGINES, DS_COUNT };
static const char *const DS_NAME[DS_COUNT] = {"games", "moves", "positions", "engines"};

/* ---- HDF5 types ----------------------------------------------------------------- */

typedef struct {
    hid_t mem[DS_COUNT];  /* native layout of the structs */
    hid_t file[DS_COUNT]; /* packed copies, as stored */
    hid_t str_tfen, str_move, str_name, str_path, weights;
} Types;

static void types_init(Types *t)
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

static void types_free(Types *t)
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

static bool types_make(Types *t)
{
    bool ok = true;
    hsize_t nw = EVAL_NWEIGHTS;
    types_init(t);
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
static TvStatus h5_fail(TvError *err, TvStatus st, const char *path, const char *what)
{
    char d[160];
    h5_detail(d);
    if (d[0])
        return tv_fail(err, st, "%s: %s (hdf5: %s)", path, what, d);
    return tv_fail(err, st, "%s: %s", path, what);
}

static void quiet_hdf5(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* ---- the store handle ------------------------------------------------------------------ */

struct H5Store {
    char path[1024];
    hid_t file;
    hid_t ds[3]; /* games, moves, positions */
    Types types;
    int64_t ngames, nmoves, npositions; /* committed rows */
    hsize_t extent[3];                  /* dataset sizes (may exceed committed rows after a failed append) */
    double write_seconds;
    int lock_fd; /* holds a POSIX write lock on the file while it is open for appending */
};

static void close_id(hid_t *h, herr_t (*fn)(hid_t))
{
    if (*h >= 0)
        fn(*h);
    *h = H5I_INVALID_HID;
}

/* Closes everything; returns false when closing the file failed. */
static bool store_release(H5Store *s)
{
    bool ok = true;
    if (!s)
        return true;
    for (int i = 0; i < 3; i++)
        close_id(&s->ds[i], H5Dclose);
    types_free(&s->types);
    if (s->file >= 0 && H5Fclose(s->file) < 0)
        ok = false;
    s->file = H5I_INVALID_HID;
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    free(s);
    return ok;
}

static H5Store *store_alloc(const char *path)
{
    H5Store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->file = H5I_INVALID_HID;
    s->lock_fd = -1;
    for (int i = 0; i < 3; i++)
        s->ds[i] = H5I_INVALID_HID;
    types_init(&s->types);
    return s;
}

/* Takes a POSIX write lock on the whole file (not HDF5's own flock, which
 * SWMR writing drops): a second writer, e.g. a second resumed run, is
 * refused instead of "repairing" a live store.  Returns the fd, or -1 with
 * errno (EAGAIN or EACCES when another process holds it). */
static int lock_file(const char *path)
{
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return -1;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static TvStatus lock_fail(const char *path, TvError *err)
{
    if (errno == EAGAIN || errno == EACCES)
        return tv_fail(err, TV_ERR_IO, "%s is being written by another process (a running tournament?)", path);
    return tv_fail(err, TV_ERR_IO, "cannot lock %s: %s", path, strerror(errno));
}

static hid_t fapl_latest(void)
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

static hid_t dapl_cached(void)
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

static bool write_string_attr(hid_t obj, const char *name, const char *value)
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

static bool write_int_attr(hid_t obj, const char *name, int value)
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

static bool write_weight_names(hid_t obj)
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
static char *read_string_attr(hid_t obj, const char *name)
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
static int read_int_attr(hid_t obj, const char *name, int *value)
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

/* ---- creating ------------------------------------------------------------------------------------ */

static hid_t create_dataset(hid_t file, int which, const Types *t, hsize_t chunk, const void *fill, TvError *err,
                            const char *path)
{
    hid_t ds = H5I_INVALID_HID, sp = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dapl = H5I_INVALID_HID;
    hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    if ((sp = H5Screate_simple(1, &zero, &unlimited)) < 0 || (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
        H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0 ||
        (fill && H5Pset_fill_value(dcpl, t->mem[which], fill) < 0) || (dapl = dapl_cached()) < 0) {
        h5_fail(err, TV_ERR_IO, path, "cannot set up a dataset");
        goto done;
    }
    ds = H5Dcreate2(file, DS_NAME[which], t->file[which], sp, H5P_DEFAULT, dcpl, dapl);
    if (ds < 0) {
        char what[64];
        snprintf(what, sizeof what, "cannot create dataset /%s", DS_NAME[which]);
        h5_fail(err, TV_ERR_IO, path, what);
    }
done:
    if (dapl >= 0)
        H5Pclose(dapl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    return ds;
}

/* Appends n rows of type `which` (memory layout) to dataset ds of current
 * extent *extent at row `at` (at <= *extent). */
static bool write_rows(hid_t ds, hid_t memtype, hsize_t *extent, hsize_t at, const void *rows, hsize_t n)
{
    bool ok = false;
    hid_t fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    if (n == 0)
        return true;
    if (at + n > *extent) {
        hsize_t size = at + n;
        if (H5Dset_extent(ds, &size) < 0)
            return false;
        *extent = size;
    }
    if ((fs = H5Dget_space(ds)) < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &n, NULL) < 0 ||
        (ms = H5Screate_simple(1, &n, NULL)) < 0)
        goto done;
    if (H5Dwrite(ds, memtype, ms, fs, H5P_DEFAULT, rows) < 0)
        goto done;
    ok = true;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return ok;
}

static char *tmp_path_of(const char *path)
{
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s.tmp", path);
    return tmp;
}

/* Builds a complete store at `tmp` (truncating it) with SWMR writing
 * started.  `display` names the store in messages. */
static TvStatus build_store(const char *tmp, const char *display, const StoredEngine *engines, int nengines,
                            const char *tournament_ini, const char *options_str, const char *program_version,
                            H5Store **out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    H5Store *s = store_alloc(display);
    hid_t fcpl = H5I_INVALID_HID, fapl = H5I_INVALID_HID, root = H5I_INVALID_HID, eng = H5I_INVALID_HID;
    hsize_t eext = 0;
    *out = NULL;
    if (!s) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", display);
        goto done;
    }
    if (!types_make(&s->types)) {
        h5_fail(err, TV_ERR_IO, display, "cannot make the HDF5 types");
        goto done;
    }
    /* Probe writability ourselves for a plain errno message. */
    {
        FILE *f = fopen(tmp, "wb");
        if (!f) {
            tv_fail(err, TV_ERR_IO, "cannot create store %s (writing %s): %s", display, tmp, strerror(errno));
            goto done;
        }
        fclose(f);
    }
    if ((fapl = fapl_latest()) < 0 || (fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0) {
        h5_fail(err, TV_ERR_IO, display, "cannot set up the file properties");
        goto done;
    }
    if ((s->file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl)) < 0) {
        h5_fail(err, TV_ERR_IO, tmp, "cannot create the HDF5 file");
        goto done;
    }
    StoredGame gfill;
    memset(&gfill, 0, sizeof gfill);
    gfill.index = -1;
    gfill.move_count = gfill.position_count = -1;
    StoredMove mfill;
    memset(&mfill, 0, sizeof mfill);
    mfill.game = -1;
    StoredPosition pfill;
    memset(&pfill, 0, sizeof pfill);
    pfill.game = -1;
    if ((s->ds[DS_GAMES] = create_dataset(s->file, DS_GAMES, &s->types, CHUNK_GAMES, &gfill, err, display)) < 0 ||
        (s->ds[DS_MOVES] = create_dataset(s->file, DS_MOVES, &s->types, CHUNK_MOVES, &mfill, err, display)) < 0 ||
        (s->ds[DS_POSITIONS] =
             create_dataset(s->file, DS_POSITIONS, &s->types, CHUNK_POSITIONS, &pfill, err, display)) < 0 ||
        (eng = create_dataset(s->file, DS_ENGINES, &s->types, CHUNK_ENGINES, NULL, err, display)) < 0)
        goto done;
    if (!write_rows(eng, s->types.mem[DS_ENGINES], &eext, 0, engines, (hsize_t)nengines)) {
        h5_fail(err, TV_ERR_IO, display, "cannot write /engines");
        goto done;
    }
    if (!write_weight_names(eng)) {
        h5_fail(err, TV_ERR_IO, display, "cannot write the weight_names attribute");
        goto done;
    }
    if ((root = H5Gopen2(s->file, "/", H5P_DEFAULT)) < 0 ||
        !write_string_attr(root, "tournament_ini", tournament_ini ? tournament_ini : "") ||
        !write_string_attr(root, "options", options_str ? options_str : "") ||
        !write_string_attr(root, "program_version", program_version) ||
        !write_int_attr(root, "schema_version", H5STORE_SCHEMA_VERSION)) {
        h5_fail(err, TV_ERR_IO, display, "cannot write the store attributes");
        goto done;
    }
    H5Gclose(root);
    root = H5I_INVALID_HID;
    H5Dclose(eng);
    eng = H5I_INVALID_HID;
    if (H5Fflush(s->file, H5F_SCOPE_LOCAL) < 0 || H5Fstart_swmr_write(s->file) < 0) {
        h5_fail(err, TV_ERR_IO, display, "cannot start SWMR writing");
        goto done;
    }
    st = TV_OK;
done:
    if (eng >= 0)
        H5Dclose(eng);
    if (root >= 0)
        H5Gclose(root);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (st != TV_OK) {
        store_release(s);
        if (s)
            remove(tmp);
    } else {
        *out = s;
    }
    return st;
}

TvStatus h5store_create(const char *path, bool force, const StoredEngine *engines, int nengines,
                        const char *tournament_ini, const char *options_str, H5Store **out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    char *tmp = NULL;
    H5Store *s = NULL;
    quiet_hdf5();
    *out = NULL;
    if (nengines < 0 || (nengines > 0 && !engines)) {
        st = tv_fail(err, TV_ERR_ARG, "%s: bad engine list", path);
        goto done;
    }
    if (!force && access(path, F_OK) == 0) {
        st = tv_fail(err, TV_ERR_IO, "%s already exists: use --resume to continue it or --force to overwrite it",
                     path);
        goto done;
    }
    if (force && access(path, F_OK) == 0) {
        /* Never replace a store that a running tournament is writing. */
        int fd = lock_file(path);
        if (fd < 0 && (errno == EAGAIN || errno == EACCES)) {
            st = lock_fail(path, err);
            goto done;
        }
        if (fd >= 0)
            close(fd);
    }
    if (!(tmp = tmp_path_of(path))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
        goto done;
    }
    st = build_store(tmp, path, engines, nengines, tournament_ini, options_str, H5STORE_PROGRAM_VERSION, &s, err);
    if (st != TV_OK)
        goto done;
    if (rename(tmp, path) != 0) {
        st = tv_fail(err, TV_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        store_release(s);
        s = NULL;
        remove(tmp);
        goto done;
    }
    if ((s->lock_fd = lock_file(path)) < 0) {
        st = lock_fail(path, err);
        store_release(s);
        goto done;
    }
    *out = s;
done:
    free(tmp);
    return st;
}

TvStatus h5store_check_not_live(const char *path, TvError *err)
{
    int fd = lock_file(path);
    if (fd < 0 && (errno == EAGAIN || errno == EACCES))
        return lock_fail(path, err);
    if (fd >= 0)
        close(fd);
    return TV_OK;
}

TvStatus h5store_remove(const char *path, TvError *err)
{
    int fd = lock_file(path);
    if (fd < 0 && (errno == EAGAIN || errno == EACCES))
        return lock_fail(path, err);
    TvStatus st = TV_OK;
    if (remove(path) != 0 && errno != ENOENT)
        st = tv_fail(err, TV_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return st;
}

/* ---- appending ------------------------------------------------------------------------------------ */

TvStatus h5store_append(H5Store *s, StoredGame *games, int ngames, const StoredMove *moves,
                        const StoredPosition *positions, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    double t0 = tv_now_seconds();
    int64_t nm = 0, np = 0;
    quiet_hdf5();
    if (ngames < 0 || (ngames > 0 && !games)) {
        st = tv_fail(err, TV_ERR_ARG, "%s: bad game list", s->path);
        goto done;
    }
    for (int i = 0; i < ngames; i++) {
        if (games[i].move_count < 0 || games[i].position_count < 0) {
            st = tv_fail(err, TV_ERR_ARG, "%s: game %lld has a negative move or position count", s->path,
                         (long long)games[i].index);
            goto done;
        }
        games[i].move_offset = s->nmoves + nm;
        games[i].position_offset = s->npositions + np;
        nm += games[i].move_count;
        np += games[i].position_count;
    }
    if ((nm > 0 && !moves) || (np > 0 && !positions)) {
        st = tv_fail(err, TV_ERR_ARG, "%s: moves or positions missing", s->path);
        goto done;
    }
    if (ngames == 0) {
        st = TV_OK;
        goto done;
    }
    /* Moves and positions first, flushed; /games last: the commit point. */
    if (!write_rows(s->ds[DS_MOVES], s->types.mem[DS_MOVES], &s->extent[DS_MOVES], (hsize_t)s->nmoves, moves,
                    (hsize_t)nm) ||
        !write_rows(s->ds[DS_POSITIONS], s->types.mem[DS_POSITIONS], &s->extent[DS_POSITIONS],
                    (hsize_t)s->npositions, positions, (hsize_t)np) ||
        H5Dflush(s->ds[DS_MOVES]) < 0 || H5Dflush(s->ds[DS_POSITIONS]) < 0) {
        h5_fail(err, TV_ERR_IO, s->path, "cannot write moves and positions");
        goto done;
    }
    if (!write_rows(s->ds[DS_GAMES], s->types.mem[DS_GAMES], &s->extent[DS_GAMES], (hsize_t)s->ngames, games,
                    (hsize_t)ngames) ||
        H5Fflush(s->file, H5F_SCOPE_LOCAL) < 0) {
        h5_fail(err, TV_ERR_IO, s->path, "cannot write games");
        goto done;
    }
    s->ngames += ngames;
    s->nmoves += nm;
    s->npositions += np;
    st = TV_OK;
done:
    s->write_seconds += tv_now_seconds() - t0;
    return st;
}

double h5store_write_seconds(const H5Store *s)
{
    return s ? s->write_seconds : 0.0;
}

TvStatus h5store_close(H5Store *s, TvError *err)
{
    if (!s)
        return TV_OK;
    quiet_hdf5();
    char path[sizeof s->path];
    snprintf(path, sizeof path, "%s", s->path);
    if (!store_release(s))
        return h5_fail(err, TV_ERR_IO, path, "cannot close the store");
    return TV_OK;
}

/* ---- reading ------------------------------------------------------------------------------------- */

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
static TvStatus open_for_read(const char *path, hid_t *file, TvError *err)
{
    if (access(path, R_OK) != 0)
        return tv_fail(err, TV_ERR_IO, "cannot open store %s: %s", path, strerror(errno));
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_metadata_read_attempts(fapl, SWMR_READ_ATTEMPTS) >= 0)
        *file = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
    else
        *file = H5I_INVALID_HID;
    if (fapl >= 0)
        H5Pclose(fapl);
    if (*file < 0)
        *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*file >= 0)
        return TV_OK;
    if (!has_hdf5_signature(path))
        return tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (not an HDF5 file)", path);
    return h5_fail(err, TV_ERR_IO, path, "cannot open the HDF5 file");
}

/* Checks that `file` is a store of this schema: schema_version attribute
 * and the four datasets. */
static TvStatus check_store(hid_t file, const char *path, int *schema, TvError *err)
{
    TvStatus st = TV_ERR_PARSE;
    hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
    int v = 0;
    if (root < 0) {
        st = h5_fail(err, TV_ERR_IO, path, "cannot open the root group");
        goto done;
    }
    int rc = read_int_attr(root, "schema_version", &v);
    if (rc < 0) {
        st = h5_fail(err, TV_ERR_IO, path, "cannot read the schema_version attribute");
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
        if (H5Lexists(file, DS_NAME[i], H5P_DEFAULT) <= 0) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (no /%s dataset)", path, DS_NAME[i]);
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

/* Number of rows of an open dataset, or -1. */
static int64_t dataset_rows(hid_t ds)
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

/* Reads rows [0, n) of dataset `name` into a new heap array (NULL with *ok
 * false on failure; NULL with *ok true when n is 0). */
static void *read_rows(hid_t file, const char *name, hid_t memtype, size_t rowsize, int64_t n, bool *ok)
{
    void *buf = NULL;
    hid_t ds = H5I_INVALID_HID, fs = H5I_INVALID_HID, ms = H5I_INVALID_HID;
    hsize_t start = 0, count = (hsize_t)n;
    *ok = false;
    if (n == 0) {
        *ok = true;
        return NULL;
    }
    if (!(buf = calloc((size_t)n, rowsize)))
        goto done;
    if ((ds = H5Dopen2(file, name, H5P_DEFAULT)) < 0 || (fs = H5Dget_space(ds)) < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
        (ms = H5Screate_simple(1, &count, NULL)) < 0 || H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, buf) < 0)
        goto done;
    *ok = true;
done:
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    if (ds >= 0)
        H5Dclose(ds);
    if (!*ok) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

static int64_t rows_of(hid_t file, const char *name)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return -1;
    int64_t n = dataset_rows(ds);
    H5Dclose(ds);
    return n;
}

/* The weights member of /engines must have EVAL_NWEIGHTS elements. */
static TvStatus check_weights(hid_t file, const char *path, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    hid_t ds = H5I_INVALID_HID, t = H5I_INVALID_HID, mt = H5I_INVALID_HID;
    hsize_t dims = 0;
    int idx;
    if ((ds = H5Dopen2(file, "engines", H5P_DEFAULT)) < 0 || (t = H5Dget_type(ds)) < 0) {
        st = h5_fail(err, TV_ERR_IO, path, "cannot open /engines");
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
    if (mt >= 0)
        H5Tclose(mt);
    if (t >= 0)
        H5Tclose(t);
    if (ds >= 0)
        H5Dclose(ds);
    return st;
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

TvStatus h5store_read(const char *path, bool with_moves, bool with_positions, StoreContents *out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    hid_t file = H5I_INVALID_HID, root = H5I_INVALID_HID;
    Types t;
    bool ok;
    types_init(&t);
    quiet_hdf5();
    memset(out, 0, sizeof *out);
    if ((st = open_for_read(path, &file, err)) != TV_OK)
        goto done;
    if ((st = check_store(file, path, &out->schema_version, err)) != TV_OK)
        goto done;
    if ((st = check_weights(file, path, err)) != TV_OK)
        goto done;
    st = TV_ERR_IO;
    if (!types_make(&t)) {
        h5_fail(err, TV_ERR_IO, path, "cannot make the HDF5 types");
        goto done;
    }
    if ((root = H5Gopen2(file, "/", H5P_DEFAULT)) < 0) {
        h5_fail(err, TV_ERR_IO, path, "cannot open the root group");
        goto done;
    }
    out->tournament_ini = read_string_attr(root, "tournament_ini");
    out->options = read_string_attr(root, "options");
    out->program_version = read_string_attr(root, "program_version");
    out->sprt = read_string_attr(root, "sprt");
    out->sprt_result = read_string_attr(root, "sprt_result");
    if (!out->tournament_ini || !out->options || !out->program_version) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (a string attribute is missing)", path);
        goto done;
    }
    int64_t ne = rows_of(file, "engines"), ng = rows_of(file, "games"), nm = rows_of(file, "moves"),
            np = rows_of(file, "positions");
    if (ne < 0 || ng < 0 || nm < 0 || np < 0) {
        h5_fail(err, TV_ERR_IO, path, "cannot read the dataset sizes");
        goto done;
    }
    if (ne > 1000000) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: %lld engines", path, (long long)ne);
        goto done;
    }
    out->engines = read_rows(file, "engines", t.mem[DS_ENGINES], sizeof(StoredEngine), ne, &ok);
    if (!ok) {
        h5_fail(err, TV_ERR_IO, path, "cannot read /engines");
        goto done;
    }
    out->nengines = (int)ne;
    out->games = read_rows(file, "games", t.mem[DS_GAMES], sizeof(StoredGame), ng, &ok);
    if (!ok) {
        h5_fail(err, TV_ERR_IO, path, "cannot read /games");
        goto done;
    }
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
        out->moves = read_rows(file, "moves", t.mem[DS_MOVES], sizeof(StoredMove), need_m, &ok);
        if (!ok) {
            h5_fail(err, TV_ERR_IO, path, "cannot read /moves");
            goto done;
        }
        out->nmoves = need_m;
    }
    if (with_positions) {
        out->positions = read_rows(file, "positions", t.mem[DS_POSITIONS], sizeof(StoredPosition), need_p, &ok);
        if (!ok) {
            h5_fail(err, TV_ERR_IO, path, "cannot read /positions");
            goto done;
        }
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
    types_free(&t);
    if (file >= 0 && H5Fclose(file) < 0 && st == TV_OK)
        st = h5_fail(err, TV_ERR_IO, path, "cannot close the file");
    if (st != TV_OK)
        h5store_contents_free(out);
    return st;
}

/* ---- resuming ------------------------------------------------------------------------------------ */

static TvStatus config_mismatch(const char *path, TvError *err)
{
    return tv_fail(err, TV_ERR_ARG,
                   "%s: the store was made by another configuration (its tournament INI differs); "
                   "use --force to start a new store",
                   path);
}

/* may_repair: a store left by a crash is first rewritten (a merge of one
 * input: the complete games, PATH.tmp renamed over PATH), then opened. */
static TvStatus open_append(const char *path, const char *tournament_ini, bool may_repair, H5Store **out,
                            TvError *err)
{
    TvStatus st = TV_ERR_IO;
    H5Store *s = NULL;
    hid_t fapl = H5I_INVALID_HID, root = H5I_INVALID_HID, dapl = H5I_INVALID_HID;
    char *ini = NULL;
    int schema = 0;
    quiet_hdf5();
    *out = NULL;
    if (access(path, R_OK | W_OK) != 0) {
        st = tv_fail(err, TV_ERR_IO, "cannot open store %s for writing: %s", path, strerror(errno));
        goto done;
    }
    if (!(s = store_alloc(path))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
        goto done;
    }
    /* Refuse a store that a live process is writing (it looks like a crashed one). */
    if ((s->lock_fd = lock_file(path)) < 0) {
        st = lock_fail(path, err);
        goto done;
    }
    if ((fapl = fapl_latest()) < 0 || (dapl = dapl_cached()) < 0) {
        h5_fail(err, TV_ERR_IO, path, "cannot set up the file properties");
        goto done;
    }
    s->file = H5Fopen(path, H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, fapl);
    if (s->file < 0) {
        /* A store left by a crash (its "open for writing" flag still set),
         * or not a store at all: h5store_read tells. */
        store_release(s);
        s = NULL;
        if (!may_repair) {
            st = h5_fail(err, TV_ERR_IO, path, "cannot open the repaired store for writing");
            goto done;
        }
        const char *inputs[1] = {path};
        if ((st = h5store_merge(path, inputs, 1, tournament_ini, NULL, err)) == TV_OK)
            st = open_append(path, tournament_ini, false, out, err);
        goto done;
    }
    if ((st = check_store(s->file, path, &schema, err)) != TV_OK || (st = check_weights(s->file, path, err)) != TV_OK)
        goto done;
    st = TV_ERR_IO;
    if ((root = H5Gopen2(s->file, "/", H5P_DEFAULT)) < 0 || !(ini = read_string_attr(root, "tournament_ini"))) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (no tournament_ini attribute)", path);
        goto done;
    }
    if (strcmp(ini, tournament_ini ? tournament_ini : "") != 0) {
        st = config_mismatch(path, err);
        goto done;
    }
    if (!types_make(&s->types)) {
        h5_fail(err, TV_ERR_IO, path, "cannot make the HDF5 types");
        goto done;
    }
    for (int i = 0; i < 3; i++) {
        int64_t n;
        if ((s->ds[i] = H5Dopen2(s->file, DS_NAME[i], dapl)) < 0 || (n = dataset_rows(s->ds[i])) < 0) {
            h5_fail(err, TV_ERR_IO, path, "cannot open the datasets");
            goto done;
        }
        s->extent[i] = (hsize_t)n;
    }
    /* The committed rows: up to the end of the last game. */
    s->ngames = (int64_t)s->extent[DS_GAMES];
    if (s->ngames > 0) {
        StoredGame last;
        hsize_t at = (hsize_t)s->ngames - 1, one = 1;
        hid_t fs = H5Dget_space(s->ds[DS_GAMES]), ms = H5Screate_simple(1, &one, NULL);
        bool ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &one, NULL) >= 0 &&
                  H5Dread(s->ds[DS_GAMES], s->types.mem[DS_GAMES], ms, fs, H5P_DEFAULT, &last) >= 0;
        if (ms >= 0)
            H5Sclose(ms);
        if (fs >= 0)
            H5Sclose(fs);
        if (!ok) {
            h5_fail(err, TV_ERR_IO, path, "cannot read the last game");
            goto done;
        }
        s->nmoves = last.move_offset + last.move_count;
        s->npositions = last.position_offset + last.position_count;
        if (last.index < 0 || last.move_count < 0 || last.position_count < 0 ||
            s->nmoves > (int64_t)s->extent[DS_MOVES] || s->npositions > (int64_t)s->extent[DS_POSITIONS]) {
            st = tv_fail(err, TV_ERR_PARSE, "%s: the store is damaged (its last game points past its moves)", path);
            goto done;
        }
    }
    *out = s;
    s = NULL;
    st = TV_OK;
done:
    free(ini);
    if (root >= 0)
        H5Gclose(root);
    if (dapl >= 0)
        H5Pclose(dapl);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (s)
        store_release(s);
    return st;
}

TvStatus h5store_open_append(const char *path, const char *tournament_ini, H5Store **out, TvError *err)
{
    return open_append(path, tournament_ini, true, out, err);
}

TvStatus h5store_set_attributes(const char *path, const char *const *names, const char *const *values, int n,
                                TvError *err)
{
    TvStatus st = TV_OK;
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, root = H5I_INVALID_HID;
    quiet_hdf5();
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0 ||
        (file = H5Fopen(path, H5F_ACC_RDWR, fapl)) < 0 || (root = H5Gopen2(file, "/", H5P_DEFAULT)) < 0) {
        st = h5_fail(err, TV_ERR_IO, path, "cannot open the store to set its attributes");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        if (H5Aexists(root, names[i]) > 0 && H5Adelete(root, names[i]) < 0) {
            st = h5_fail(err, TV_ERR_IO, path, "cannot replace an attribute");
            goto done;
        }
        if (!write_string_attr(root, names[i], values[i])) {
            st = h5_fail(err, TV_ERR_IO, path, "cannot write an attribute");
            goto done;
        }
    }
done:
    if (root >= 0)
        H5Gclose(root);
    if (file >= 0 && H5Fclose(file) < 0 && st == TV_OK)
        st = h5_fail(err, TV_ERR_IO, path, "cannot close the store");
    if (fapl >= 0)
        H5Pclose(fapl);
    return st;
}

/* ---- merging --------------------------------------------------------------------------------------- */

typedef struct {
    int64_t index;
    int input;
    int64_t row;
} MergeRef;

static int cmp_merge_ref(const void *a, const void *b)
{
    const MergeRef *x = a, *y = b;
    if (x->index != y->index)
        return (x->index > y->index) - (x->index < y->index);
    if (x->input != y->input)
        return (x->input > y->input) - (x->input < y->input);
    return (x->row > y->row) - (x->row < y->row);
}

static bool same_engines(const StoreContents *a, const StoreContents *b)
{
    if (a->nengines != b->nengines)
        return false;
    for (int i = 0; i < a->nengines; i++) {
        const StoredEngine *x = &a->engines[i], *y = &b->engines[i];
        if (strcmp(x->name, y->name) != 0 || memcmp(x->weights, y->weights, sizeof x->weights) != 0 ||
            x->depth != y->depth || x->nodes != y->nodes || x->movetime_ms != y->movetime_ms)
            return false;
    }
    return true;
}

#define MERGE_BATCH 512
#define MERGE_BLOCK_ROWS (1 << 18) /* rows of a `game` column read at once while checking */

/* Reads rows [start, start + n) of an open dataset into buf. */
static bool read_range(hid_t ds, hid_t memtype, int64_t start, int64_t n, void *buf)
{
    if (n == 0)
        return true;
    hsize_t at = (hsize_t)start, count = (hsize_t)n;
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &count, NULL);
    bool ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &count, NULL) >= 0 &&
              H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, buf) >= 0;
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return ok;
}

/* One input of a merge: its games (read whole) and its open row datasets. */
typedef struct {
    StoreContents c; /* metadata and games; no moves or positions */
    hid_t file, ds[2]; /* /moves, /positions */
} MergeInput;

/* The games of an input whose rows all name them, as h5store_read keeps
 * them (the first game with a foreign or unwritten row ends the input);
 * reads only the `game` member of the rows, a block at a time. */
static TvStatus merge_check_rows(MergeInput *in, const char *path, TvError *err)
{
    TvStatus st = TV_OK;
    int64_t *col = malloc(sizeof *col * MERGE_BLOCK_ROWS);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
    if (!col || t < 0 || H5Tinsert(t, "game", 0, H5T_NATIVE_INT64) < 0) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
        goto done;
    }
    for (int k = 0; k < 2 && st == TV_OK; k++) {
        int64_t block_start = 0, block_n = 0, keep = in->c.ngames;
        /* the rows end with the last game's (offsets are chained) */
        const StoredGame *lastg = keep > 0 ? &in->c.games[keep - 1] : NULL;
        const int64_t end = !lastg ? 0
                            : k == 0 ? lastg->move_offset + lastg->move_count
                                     : lastg->position_offset + lastg->position_count;
        for (int64_t i = 0; i < keep; i++) {
            const StoredGame *g = &in->c.games[i];
            int64_t off = k == 0 ? g->move_offset : g->position_offset;
            int32_t cnt = k == 0 ? g->move_count : g->position_count;
            for (int64_t r = off; r < off + cnt; r++) {
                if (r >= block_start + block_n) {
                    block_start = r;
                    block_n = end - r < MERGE_BLOCK_ROWS ? end - r : MERGE_BLOCK_ROWS;
                    if (!read_range(in->ds[k], t, block_start, block_n, col)) {
                        st = h5_fail(err, TV_ERR_IO, path, k == 0 ? "cannot read /moves" : "cannot read /positions");
                        goto done;
                    }
                }
                if (col[r - block_start] != g->index) {
                    keep = i; /* this game and every later one */
                    break;
                }
            }
        }
        in->c.ngames = keep;
    }
done:
    if (t >= 0)
        H5Tclose(t);
    free(col);
    return st;
}

TvStatus h5store_merge(const char *out_path, const char *const *inputs, int ninputs, const char *tournament_ini,
                       int64_t *ngames_out, TvError *err)
{
    TvStatus st = TV_OK;
    MergeInput *in = NULL;
    MergeRef *refs = NULL;
    StoredGame *bg = NULL;
    StoredMove *bm = NULL;
    StoredPosition *bp = NULL;
    H5Store *s = NULL;
    char *tmp = NULL;
    Types types;
    hid_t dapl = H5I_INVALID_HID;
    int lock_fd = -1;
    int64_t nrefs = 0, total = 0;
    types_init(&types);
    quiet_hdf5();
    if (ngames_out)
        *ngames_out = 0;
    if (ninputs < 1)
        return tv_fail(err, TV_ERR_ARG, "%s: nothing to merge", out_path);
    if (access(out_path, F_OK) == 0 && (lock_fd = lock_file(out_path)) < 0 && (errno == EAGAIN || errno == EACCES))
        return lock_fail(out_path, err);
    if (!(in = calloc((size_t)ninputs, sizeof *in)) || !types_make(&types) || (dapl = dapl_cached()) < 0) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", out_path);
        goto done;
    }
    for (int i = 0; i < ninputs; i++)
        in[i].file = in[i].ds[0] = in[i].ds[1] = H5I_INVALID_HID;
    /* Each input: metadata and games, checked; its rows stay on disk. */
    for (int i = 0; i < ninputs; i++) {
        if ((st = h5store_read(inputs[i], false, false, &in[i].c, err)) != TV_OK)
            goto done;
        if (strcmp(in[i].c.tournament_ini, tournament_ini ? tournament_ini : "") != 0) {
            st = config_mismatch(inputs[i], err);
            goto done;
        }
        if (!same_engines(&in[0].c, &in[i].c)) {
            st = tv_fail(err, TV_ERR_ARG,
                         "%s and %s hold different engine versions (an engine INI changed between runs?); "
                         "use --force to start a new store",
                         inputs[0], inputs[i]);
            goto done;
        }
        if ((st = open_for_read(inputs[i], &in[i].file, err)) != TV_OK)
            goto done;
        if ((in[i].ds[0] = H5Dopen2(in[i].file, "moves", dapl)) < 0 ||
            (in[i].ds[1] = H5Dopen2(in[i].file, "positions", dapl)) < 0) {
            st = h5_fail(err, TV_ERR_IO, inputs[i], "cannot open /moves and /positions");
            goto done;
        }
        if ((st = merge_check_rows(&in[i], inputs[i], err)) != TV_OK)
            goto done;
        total += in[i].c.ngames;
    }
    if (!(refs = malloc(sizeof *refs * (size_t)(total ? total : 1)))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory for %lld games", out_path, (long long)total);
        goto done;
    }
    for (int i = 0; i < ninputs; i++)
        for (int64_t j = 0; j < in[i].c.ngames; j++)
            refs[nrefs++] = (MergeRef){in[i].c.games[j].index, i, j};
    qsort(refs, (size_t)nrefs, sizeof *refs, cmp_merge_ref);
    if (!(tmp = tmp_path_of(out_path))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", out_path);
        goto done;
    }
    st = build_store(tmp, out_path, in[0].c.engines, in[0].c.nengines, in[0].c.tournament_ini, in[0].c.options,
                     in[0].c.program_version, &s, err);
    if (st != TV_OK)
        goto done;
    /* Batches of whole games, each index once, in ascending index, their
     * rows read from the inputs game by game. */
    int64_t written = 0, k = 0;
    while (k < nrefs && st == TV_OK) {
        int nb = 0;
        int64_t nm = 0, np = 0, cap_m = 0, cap_p = 0;
        for (int64_t j = k; j < nrefs && nb < MERGE_BATCH; j++) {
            if (j > 0 && refs[j].index == refs[j - 1].index)
                continue; /* a game that two inputs hold (a merge cut short): the first one */
            const StoredGame *g = &in[refs[j].input].c.games[refs[j].row];
            cap_m += g->move_count;
            cap_p += g->position_count;
            nb++;
        }
        StoredGame *g2 = realloc(bg, sizeof *bg * (size_t)(nb ? nb : 1));
        StoredMove *m2 = g2 ? realloc(bm, sizeof *bm * (size_t)(cap_m ? cap_m : 1)) : NULL;
        if (g2)
            bg = g2;
        if (m2)
            bm = m2;
        StoredPosition *p2 = m2 ? realloc(bp, sizeof *bp * (size_t)(cap_p ? cap_p : 1)) : NULL;
        if (!p2) {
            st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", out_path);
            break;
        }
        bp = p2;
        nb = 0;
        for (; k < nrefs && nb < MERGE_BATCH; k++) {
            if (k > 0 && refs[k].index == refs[k - 1].index)
                continue;
            const MergeInput *src = &in[refs[k].input];
            const StoredGame *g = &src->c.games[refs[k].row];
            if (!read_range(src->ds[0], types.mem[DS_MOVES], g->move_offset, g->move_count, &bm[nm]) ||
                !read_range(src->ds[1], types.mem[DS_POSITIONS], g->position_offset, g->position_count, &bp[np])) {
                st = h5_fail(err, TV_ERR_IO, inputs[refs[k].input], "cannot read a game's moves and positions");
                break;
            }
            bg[nb++] = *g;
            nm += g->move_count;
            np += g->position_count;
        }
        if (st == TV_OK)
            st = h5store_append(s, bg, nb, bm, bp, err);
        written += nb;
    }
    if (st != TV_OK)
        goto done;
    if (!store_release(s)) {
        s = NULL;
        st = h5_fail(err, TV_ERR_IO, tmp, "cannot close the merged store");
        goto done;
    }
    s = NULL;
    if (rename(tmp, out_path) != 0) {
        st = tv_fail(err, TV_ERR_IO, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
        goto done;
    }
    /* An SPRT decision recorded in an input stays with the games. */
    for (int i = 0; i < ninputs; i++)
        if (in[i].c.sprt && in[i].c.sprt_result) {
            const char *names[2] = {"sprt", "sprt_result"};
            const char *values[2] = {in[i].c.sprt, in[i].c.sprt_result};
            st = h5store_set_attributes(out_path, names, values, 2, err);
            break;
        }
    if (ngames_out)
        *ngames_out = written;
done:
    if (s) {
        store_release(s);
        remove(tmp);
    }
    if (lock_fd >= 0)
        close(lock_fd);
    free(tmp);
    free(bg);
    free(bm);
    free(bp);
    free(refs);
    if (in)
        for (int i = 0; i < ninputs; i++) {
            close_id(&in[i].ds[0], H5Dclose);
            close_id(&in[i].ds[1], H5Dclose);
            close_id(&in[i].file, H5Fclose);
            h5store_contents_free(&in[i].c);
        }
    free(in);
    if (dapl >= 0)
        H5Pclose(dapl);
    types_free(&types);
    return st;
}
