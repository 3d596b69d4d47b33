#define _XOPEN_SOURCE 700 /* realpath */
/* store_write.c: writing the HDF5 store: creating it, appending games,
 * closing it, setting attributes, the lock that keeps a second writer out,
 * the run lock (PATH.lock: one run at a time on a store, h5store.h), and
 * opening a store again to append to it (repairing one left by a crash).
 *
 * Crash safety:
 *  - a store is built under a temporary name beside PATH (PATH.tmp-PID-N:
 *    all datasets and attributes, flushed, SWMR writing started) and only
 *    then given the name PATH, so PATH is never a half-made store.  A new
 *    store is linked to PATH (never renamed over it): of two runs creating
 *    one --out at once exactly one succeeds, the other is told PATH exists;
 *  - an append writes /moves and /positions and flushes them (H5Dflush)
 *    before it writes /games and flushes the file: /games is the commit
 *    point.  Fill values mark rows never written (game index -1);
 *  - a store left by a crash still carries HDF5's "open for writing" flag, so
 *    it can only be opened with SWMR read access; h5store_open_append
 *    (store_resume.c) then rewrites it (PATH.tmp, renamed over PATH) from
 *    what it holds (a merge of one input, store_merge.c).
 * This file uses neither of those: store_merge.c builds its output with
 * store_build and h5store_append from here, and store_resume.c uses both. */
#include "store_internal.h"

#include "atomic_file.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tavreli_version.h" /* TAVRELI_VERSION: git describe of the build (CMakeLists.txt) */

#define H5STORE_PROGRAM_VERSION TAVRELI_VERSION

/* Closes everything; returns false when closing the file failed. */
bool store_release(H5Store *s)
{
    bool ok = true;
    if (!s)
        return true;
    for (int i = 0; i < DS_ENGINES; i++)
        store_close_id(&s->ds[i], H5Dclose);
    store_types_free(&s->types);
    if (s->file >= 0 && H5Fclose(s->file) < 0)
        ok = false;
    s->file = H5I_INVALID_HID;
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    free(s);
    return ok;
}

/* A handle with nothing open, named `path` in messages (NULL when out of memory). */
H5Store *store_alloc(const char *path)
{
    H5Store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->file = H5I_INVALID_HID;
    s->lock_fd = -1;
    for (int i = 0; i < DS_ENGINES; i++)
        s->ds[i] = H5I_INVALID_HID;
    store_types_init(&s->types);
    return s;
}

/* Takes a POSIX write lock on the whole file (not HDF5's own flock, which
 * SWMR writing drops): a second writer, e.g. a second resumed run, is
 * refused instead of "repairing" a live store.  Returns the fd, or -1 with
 * errno (EAGAIN or EACCES when another process holds it). */
int store_lock_file(const char *path)
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

/* The error for a failed store_lock_file (errno as it left it). */
TvStatus store_lock_fail(const char *path, TvError *err)
{
    if (errno == EAGAIN || errno == EACCES)
        return tv_fail(err, TV_ERR_IO, "%s is being written by another process (a running tournament?)", path);
    return tv_fail(err, TV_ERR_IO, "cannot lock %s: %s", path, strerror(errno));
}

/* Only "another process holds the lock" refuses the store: a file that
 * cannot be locked otherwise (or does not exist) is not live. */
TvStatus store_lock_unless_live(const char *path, int *fd, TvError *err)
{
    *fd = store_lock_file(path);
    if (*fd < 0 && (errno == EAGAIN || errno == EACCES))
        return store_lock_fail(path, err);
    return TV_OK;
}

/* ---- creating ------------------------------------------------------------------------------------ */

/* Writes n rows (memory type memtype) to dataset ds of current extent
 * *extent at row `at` (at <= *extent), extending it as needed. */
static bool write_rows(hid_t ds, hid_t memtype, hsize_t *extent, hsize_t at, const void *rows, hsize_t n)
{
    hid_t fs, ms;
    if (n == 0)
        return true;
    if (at + n > *extent) {
        hsize_t size = at + n;
        if (H5Dset_extent(ds, &size) < 0)
            return false;
        *extent = size;
    }
    if (!store_select_rows(ds, at, n, &fs, &ms))
        return false;
    bool ok = H5Dwrite(ds, memtype, ms, fs, H5P_DEFAULT, rows) >= 0;
    H5Sclose(ms);
    H5Sclose(fs);
    return ok;
}

/* PATH.tmp: where a store is built before it is renamed to PATH. */
char *store_tmp_path(const char *path)
{
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s.tmp", path);
    return tmp;
}

/* HDF5's error details name the file it was given: the temporary one,
 * removed by then.  Messages name the user's file (display) instead. */
static void name_user_file(TvError *err, const char *tmp, const char *display)
{
    if (!err || !tmp[0] || !strcmp(tmp, display))
        return;
    char out[sizeof err->msg];
    size_t n = 0, tl = strlen(tmp), dl = strlen(display);
    for (const char *m = err->msg; *m && n + 1 < sizeof out;) {
        if (!strncmp(m, tmp, tl) && n + dl + 1 < sizeof out) {
            memcpy(out + n, display, dl);
            n += dl;
            m += tl;
        } else
            out[n++] = *m++;
    }
    out[n] = 0;
    memcpy(err->msg, out, n + 1);
}

/* Builds a complete store at `tmp` (truncating it) with SWMR writing
 * started.  `display` names the store in messages. */
TvStatus store_build(const char *tmp, const char *display, const StoredEngine *engines, int nengines,
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
    if (!store_types_make(&s->types)) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot make the HDF5 types");
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
    if ((fapl = store_fapl(STORE_FAPL_LATEST | STORE_FAPL_SWMR_RETRIES)) < 0 ||
        (fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot set up the file properties");
        goto done;
    }
    if ((s->file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl)) < 0) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot create the HDF5 file");
        goto done;
    }
    for (int i = 0; i < DS_COUNT; i++) {
        hid_t *ds = i == DS_ENGINES ? &eng : &s->ds[i];
        if ((*ds = store_create_dataset(s->file, i, &s->types, err, display)) < 0)
            goto done;
    }
    if (!write_rows(eng, s->types.mem[DS_ENGINES], &eext, 0, engines, (hsize_t)nengines)) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot write /engines");
        goto done;
    }
    if (!store_write_weight_names(eng)) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot write the weight_names attribute");
        goto done;
    }
    if ((root = H5Gopen2(s->file, "/", H5P_DEFAULT)) < 0 ||
        !store_write_string_attr(root, "tournament_ini", tournament_ini ? tournament_ini : "") ||
        !store_write_string_attr(root, "options", options_str ? options_str : "") ||
        !store_write_string_attr(root, "program_version", program_version) ||
        !store_write_int_attr(root, "schema_version", H5STORE_SCHEMA_VERSION) ||
        !store_write_int_attr(root, "reproducible", h5store_engines_reproducible(engines, nengines))) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot write the store attributes");
        goto done;
    }
    H5Gclose(root);
    root = H5I_INVALID_HID;
    H5Dclose(eng);
    eng = H5I_INVALID_HID;
    if (H5Fflush(s->file, H5F_SCOPE_LOCAL) < 0 || H5Fstart_swmr_write(s->file) < 0) {
        store_h5_fail(err, TV_ERR_IO, display, "cannot start SWMR writing");
        goto done;
    }
    st = TV_OK;
done:
    store_close_id(&eng, H5Dclose);
    store_close_id(&root, H5Gclose);
    store_close_id(&fcpl, H5Pclose);
    store_close_id(&fapl, H5Pclose);
    if (st != TV_OK) {
        store_release(s);
        if (s)
            remove(tmp);
        name_user_file(err, tmp, display);
    } else {
        *out = s;
    }
    return st;
}

/* Refuses to treat anything but a regular file (or nothing) at path as a
 * store: --force must never remove a directory or a device. */
static TvStatus check_regular_or_absent(const char *path, TvError *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return TV_OK;
    if (S_ISDIR(sb.st_mode))
        return tv_fail(err, TV_ERR_IO, "%s is a directory: it is not a store and is not replaced (choose another --out)",
                       path);
    return tv_fail(err, TV_ERR_IO, "%s is not a regular file: it is not a store and is not replaced", path);
}

/* A test's hook (tests/test_resume_stop.sh, docs/testing.md): with
 * TAVRELI_TEST_PAUSE_BEFORE_LINK=FILE in the environment, a store creation
 * makes FILE and waits 60 s just before the finished store gets its name,
 * so that the test can kill -9 it at that moment. */
static void test_pause_before_link(void)
{
    const char *marker = getenv("TAVRELI_TEST_PAUSE_BEFORE_LINK");
    if (!marker || !*marker)
        return;
    FILE *f = fopen(marker, "w");
    if (f)
        fclose(f);
    struct timespec left = {60, 0};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

/* Builds the store under a temporary name beside PATH, locks it and gives
 * it the name PATH: linked (a new store: exactly one of two runs creating
 * PATH at once succeeds) or, with force, renamed over the old file. */
TvStatus h5store_create(const char *path, bool force, const StoredEngine *engines, int nengines,
                        const char *tournament_ini, const char *options_str, H5Store **out, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    char tmp[TV_PATH_MAX + 32] = "";
    H5Store *s = NULL;
    int lock_fd = -1;
    store_quiet_hdf5();
    *out = NULL;
    if (nengines < 0 || (nengines > 0 && !engines)) {
        st = tv_fail(err, TV_ERR_ARG, "%s: bad engine list", path);
        goto done;
    }
    if (!force && access(path, F_OK) == 0) { /* early and clear; the link below is the guard */
        st = tv_fail(err, TV_ERR_IO, "%s already exists: use --resume to continue it or --force to overwrite it",
                     path);
        goto done;
    }
    /* Never replace a directory, or a store that a running tournament is writing. */
    if ((st = check_regular_or_absent(path, err)) != TV_OK)
        goto done;
    if (force && access(path, F_OK) == 0 && (st = h5store_check_not_live(path, err)) != TV_OK)
        goto done;
    if ((st = tv_temp_beside(path, "store", tmp, sizeof tmp, err)) != TV_OK)
        goto done;
    st = store_build(tmp, path, engines, nengines, tournament_ini, options_str, H5STORE_PROGRAM_VERSION, &s, err);
    if (st != TV_OK) {
        tmp[0] = 0; /* removed there */
        goto done;
    }
    /* locked before it has its name: no other writer can come in between */
    if ((lock_fd = store_lock_file(tmp)) < 0) {
        st = store_lock_fail(path, err);
        goto done;
    }
    test_pause_before_link();
    int why = 0;
    if ((st = tv_publish(tmp, path, force, &why, err)) != TV_OK) {
        if (why == EEXIST)
            st = tv_fail(err, TV_ERR_IO,
                         "%s already exists (another run created it while this one started): use --resume to "
                         "continue it, or another --out",
                         path);
        goto done;
    }
    tmp[0] = 0;
    s->lock_fd = lock_fd;
    lock_fd = -1;
    *out = s;
    s = NULL;
done:
    if (lock_fd >= 0)
        close(lock_fd);
    if (s)
        store_release(s);
    if (tmp[0])
        remove(tmp);
    return st;
}

/* Takes the lock and lets it go at once. */
TvStatus h5store_resolve_path(const char *path, char *buf, size_t n, TvError *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode)) {
        if (snprintf(buf, n, "%s", path) >= (int)n)
            return tv_fail(err, TV_ERR_ARG, "%s: path too long", path);
        return TV_OK;
    }
    char *real = realpath(path, NULL);
    if (!real)
        return tv_fail(err, TV_ERR_IO, "%s is a symbolic link whose target cannot be used: %s", path, strerror(errno));
    TvStatus st = TV_OK;
    if (snprintf(buf, n, "%s", real) >= (int)n)
        st = tv_fail(err, TV_ERR_ARG, "%s: the link's target path is too long", path);
    free(real);
    return st;
}

TvStatus h5store_check_not_live(const char *path, TvError *err)
{
    int fd;
    TvStatus st = store_lock_unless_live(path, &fd, err);
    if (fd >= 0)
        close(fd);
    return st;
}

long h5store_writer_pid(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK; /* would a writer's lock conflict? F_GETLK only asks */
    fl.l_whence = SEEK_SET;
    long pid = 0;
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
        pid = fl.l_pid > 0 ? (long)fl.l_pid : -1;
    close(fd);
    return pid;
}

/* Holds the lock while removing, so a writer cannot start in between. */
TvStatus h5store_remove(const char *path, TvError *err)
{
    int fd;
    TvStatus st = check_regular_or_absent(path, err);
    if (st != TV_OK)
        return st;
    st = store_lock_unless_live(path, &fd, err);
    if (st != TV_OK)
        return st;
    if (remove(path) != 0 && errno != ENOENT)
        st = tv_fail(err, TV_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return st;
}

/* ---- the run lock ------------------------------------------------------------------------------ */

/* core/atomic_file.h's output lock, with the store's advice. */
TvStatus h5store_lock_run(const char *path, H5LeftoverFn removed, void *user, H5RunLock **out, TvError *err)
{
    return tv_lock_output(path,
                          "wait until it ends, or stop it (kill PID: it stores its finished games, and --resume "
                          "continues them); two runs on one store would lose one's games",
                          removed, user, out, err);
}

void h5store_unlock_run(H5RunLock *l) { tv_unlock_output(l); }

/* ---- appending ------------------------------------------------------------------------------------ */

/* The commit protocol of the file comment: rows, flush, /games, flush. */
TvStatus h5store_append(H5Store *s, StoredGame *games, int ngames, const StoredMove *moves,
                        const StoredPosition *positions, TvError *err)
{
    TvStatus st = TV_ERR_IO;
    double t0 = tv_now_seconds();
    const int64_t now = (int64_t)time(NULL);
    int64_t nm = 0, np = 0;
    store_quiet_hdf5();
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
        if (games[i].stored_at == 0) /* a new game (a copy keeps its time, or -1) */
            games[i].stored_at = now;
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
        store_h5_fail(err, TV_ERR_IO, s->path, "cannot write moves and positions");
        goto done;
    }
    if (!write_rows(s->ds[DS_GAMES], s->types.mem[DS_GAMES], &s->extent[DS_GAMES], (hsize_t)s->ngames, games,
                    (hsize_t)ngames) ||
        H5Fflush(s->file, H5F_SCOPE_LOCAL) < 0) {
        store_h5_fail(err, TV_ERR_IO, s->path, "cannot write games");
        goto done;
    }
    s->ngames += ngames;
    s->nmoves += nm;
    s->npositions += np;
    st = TV_OK;
done:
    s->write_seconds += tv_now_seconds() - t0;
    if (st != TV_OK)
        s->write_failed = true;
    return st;
}

bool h5store_write_failed(const H5Store *s) { return s && s->write_failed; }

/* 0 for no store. */
double h5store_write_seconds(const H5Store *s)
{
    return s ? s->write_seconds : 0.0;
}

/* Closes and frees s (also on failure); NULL is a no-op. */
TvStatus h5store_close(H5Store *s, TvError *err)
{
    if (!s)
        return TV_OK;
    store_quiet_hdf5();
    char path[sizeof s->path];
    snprintf(path, sizeof path, "%s", s->path);
    if (!store_release(s))
        return store_h5_fail(err, TV_ERR_IO, path, "cannot close the store");
    return TV_OK;
}

/* The root group of a closed store opened normally (not SWMR) for its
 * attributes: ids[0..2] the file access list, the file and the group. */
static TvStatus root_open(const char *path, hid_t ids[3], const char *why, TvError *err)
{
    ids[0] = ids[1] = ids[2] = H5I_INVALID_HID;
    store_quiet_hdf5();
    if ((ids[0] = store_fapl(STORE_FAPL_LATEST)) < 0 || (ids[1] = H5Fopen(path, H5F_ACC_RDWR, ids[0])) < 0 ||
        (ids[2] = H5Gopen2(ids[1], "/", H5P_DEFAULT)) < 0)
        return store_h5_fail(err, TV_ERR_IO, path, why);
    return TV_OK;
}

/* Closes what root_open opened; a failed close of the file is the result
 * when st was TV_OK. */
static TvStatus root_close(const char *path, hid_t ids[3], TvStatus st, TvError *err)
{
    if (ids[2] >= 0)
        H5Gclose(ids[2]);
    if (ids[1] >= 0 && H5Fclose(ids[1]) < 0 && st == TV_OK)
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot close the store");
    if (ids[0] >= 0)
        H5Pclose(ids[0]);
    return st;
}

TvStatus h5store_add_lines(const char *path, const char *name, const char *lines, TvError *err)
{
    hid_t ids[3];
    char *old = NULL;
    StrBuf now = {0};
    TvStatus st = root_open(path, ids, "cannot open the store to add to its attributes", err);
    const hid_t root = ids[2];
    if (st != TV_OK)
        goto done;
    old = H5Aexists(root, name) > 0 ? store_read_string_attr(root, name) : NULL;
    strbuf_addf(&now, "%s", old ? old : "");
    bool added = false;
    for (const char *p = lines; *p;) {
        size_t n = strcspn(p, "\n");
        bool held = false; /* the same line already there */
        for (const char *q = old; q && *q && !held;) {
            size_t m = strcspn(q, "\n");
            held = m == n && !memcmp(p, q, n);
            q += m + (q[m] == '\n');
        }
        if (n && !held) {
            if (now.len && strbuf_str(&now)[now.len - 1] != '\n')
                strbuf_add_n(&now, "\n", 1);
            strbuf_add_n(&now, p, n);
            added = true;
        }
        p += n + (p[n] == '\n');
    }
    if (!added)
        goto done;
    if (!strbuf_str(&now)[0]) {
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory for the attribute %s", path, name);
        goto done;
    }
    if ((H5Aexists(root, name) > 0 && H5Adelete(root, name) < 0) ||
        !store_write_string_attr(root, name, strbuf_str(&now)))
        st = store_h5_fail(err, TV_ERR_IO, path, "cannot write an attribute");
done:
    free(old);
    strbuf_free(&now);
    return root_close(path, ids, st, err);
}

/* Opens the file normally (not SWMR), deletes each attribute that exists
 * and writes it again as a string. */
TvStatus h5store_set_attributes(const char *path, const char *const *names, const char *const *values, int n,
                                TvError *err)
{
    hid_t ids[3];
    TvStatus st = root_open(path, ids, "cannot open the store to set its attributes", err);
    const hid_t root = ids[2];
    if (st != TV_OK)
        goto done;
    for (int i = 0; i < n; i++) {
        if (H5Aexists(root, names[i]) > 0 && H5Adelete(root, names[i]) < 0) {
            st = store_h5_fail(err, TV_ERR_IO, path, "cannot replace an attribute");
            goto done;
        }
        if (!store_write_string_attr(root, names[i], values[i])) {
            st = store_h5_fail(err, TV_ERR_IO, path, "cannot write an attribute");
            goto done;
        }
    }
done:
    return root_close(path, ids, st, err);
}

