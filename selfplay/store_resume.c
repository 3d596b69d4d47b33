/* store_resume.c: opening a store again to append to it (h5store_open_append).
 * What it holds is read back first with the one reader (store_read.c); a
 * store left by a crash (HDF5's "open for writing" flag still set, or a torn
 * tail) or written by an older schema version is first rewritten by a merge
 * of one input (store_merge.c), PATH.tmp renamed over PATH, then opened.
 * Kept apart from store_write.c so that writing and merging do not call each
 * other: merge builds its output with store_write.c, resume uses both. */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static TvStatus rewrite(const char *path, const char *tournament_ini, const volatile sig_atomic_t *stop,
                        H5Store **out, TvError *err);

/* h5store_open_append; may_repair: a store left by a crash is first
 * rewritten (a merge of one input: the complete games, PATH.tmp renamed
 * over PATH), then opened. */
static TvStatus open_append(const char *path, const char *tournament_ini, bool may_repair,
                            const volatile sig_atomic_t *stop, H5Store **out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    H5Store *s = NULL;
    hid_t fapl = H5I_INVALID_HID, root = H5I_INVALID_HID, dapl = H5I_INVALID_HID;
    char *ini = NULL;
    int schema = 0;
    store_quiet_hdf5();
    *out = NULL;
    if (access(path, R_OK | W_OK) != 0) {
        st = tv_fail(err, TV_ERR_IO, "cannot open store %s for writing: %s", path, strerror(errno));
        goto done;
    }
    /* What it holds is read back first, with the one reader (a damaged
     * row is refused) and whole (every row decompresses): only then are its
     * games counted as played.  A crash's torn tail is rewritten away. */
    if (may_repair) {
        StoreContents c;
        if ((st = h5store_check_not_live(path, err)) != TV_OK ||
            (st = store_read_games(path, false, false, NULL, true, stop, &c, err)) != TV_OK)
            goto done;
        int64_t torn = c.torn_rows;
        h5store_contents_free(&c);
        if ((st = store_check_readable(path, stop, err)) != TV_OK)
            goto done;
        if (torn > 0) {
            st = rewrite(path, tournament_ini, stop, out, err);
            goto done;
        }
    }
    if (!(s = store_alloc(path))) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
        goto done;
    }
    /* Refuse a store that a live process is writing (it looks like a crashed one). */
    if ((s->lock_fd = store_lock_file(path)) < 0) {
        st = store_lock_fail(path, err);
        goto done;
    }
    if ((fapl = store_fapl(STORE_FAPL_LATEST | STORE_FAPL_SWMR_RETRIES)) < 0 || (dapl = store_dapl_cached()) < 0) {
        store_h5_fail(err, TV_ERR_IO, path, "cannot set up the file properties");
        goto done;
    }
    s->file = H5Fopen(path, H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, fapl);
    if (s->file < 0) {
        /* A store left by a crash (its "open for writing" flag still set),
         * or not a store at all: h5store_read tells. */
        store_release(s);
        s = NULL;
        if (!may_repair) {
            st = store_h5_fail(err, TV_ERR_IO, path, "cannot open the repaired store for writing");
            goto done;
        }
        st = rewrite(path, tournament_ini, stop, out, err);
        goto done;
    }
    if ((st = store_check_schema(s->file, path, &schema, err)) != TV_OK ||
        (st = store_check_weights(s->file, path, err)) != TV_OK)
        goto done;
    if (schema != H5STORE_SCHEMA_VERSION) {
        /* A store of an older version: rewritten in this one first (a merge
         * of one input), so that new rows fit its datasets. */
        store_release(s);
        s = NULL;
        if (!may_repair) {
            st = tv_fail(err, TV_ERR_IO, "%s: the rewritten store still has schema version %d", path, schema);
            goto done;
        }
        st = rewrite(path, tournament_ini, stop, out, err);
        goto done;
    }
    st = TV_ERR_IO;
    if ((root = H5Gopen2(s->file, "/", H5P_DEFAULT)) < 0 || !(ini = store_read_string_attr(root, "tournament_ini"))) {
        st = tv_fail(err, TV_ERR_PARSE, "%s: not a tavreli store (no tournament_ini attribute)", path);
        goto done;
    }
    if ((st = store_check_config(path, ini, tournament_ini, err)) != TV_OK)
        goto done;
    if (!store_types_make(&s->types)) {
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot make the HDF5 types");
        goto done;
    }
    for (int i = 0; i < DS_ENGINES; i++) {
        int64_t n;
        if ((s->ds[i] = H5Dopen2(s->file, store_datasets[i].name, dapl)) < 0 ||
            (n = store_dataset_rows(s->ds[i])) < 0) {
            st = store_h5_fail(err, TV_ERR_IO, path, "cannot open the datasets");
            goto done;
        }
        s->extent[i] = (hsize_t)n;
    }
    /* The committed rows: up to the end of the last game. */
    s->ngames = (int64_t)s->extent[DS_GAMES];
    if (s->ngames > 0) {
        StoredGame last;
        if (!store_read_rows(s->ds[DS_GAMES], s->types.mem[DS_GAMES], s->ngames - 1, 1, &last)) {
            st = store_h5_fail(err, TV_ERR_IO, path, "cannot read the last game");
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
    store_close_id(&root, H5Gclose);
    store_close_id(&dapl, H5Pclose);
    store_close_id(&fapl, H5Pclose);
    if (s)
        store_release(s);
    return st;
}

/* The store rewritten (a merge of one input: its complete games, in the
 * current schema version) and opened; a stop leaves it as it was. */
static TvStatus rewrite(const char *path, const char *tournament_ini, const volatile sig_atomic_t *stop,
                        H5Store **out, TvError *err)
{
    const char *inputs[1] = {path};
    bool stopped = false;
    TvStatus st = h5store_merge_stoppable(path, inputs, 1, tournament_ini, stop, &stopped, NULL, err);
    if (st == TV_OK && stopped)
        return store_stopped(err, path, "rewriting");
    return st == TV_OK ? open_append(path, tournament_ini, false, stop, out, err) : st;
}

/* Repairs at most once: a repaired store that still cannot be opened is an error. */
TvStatus h5store_open_append(const char *path, const char *tournament_ini, H5Store **out, TvError *err)
{
    return open_append(path, tournament_ini, true, NULL, out, err);
}

TvStatus h5store_open_append_stoppable(const char *path, const char *tournament_ini, const volatile sig_atomic_t *stop,
                                       H5Store **out, TvError *err)
{
    return open_append(path, tournament_ini, true, stop, out, err);
}
