/* atomic_file.c: outputs written whole or not at all (see atomic_file.h). */
#define _GNU_SOURCE /* renameat2 (RENAME_NOREPLACE), realpath */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Attempts at a free temporary name: another writer of the same path in
 * this process (a thread) or a stale file of a killed process with our pid
 * takes one each. */
#define TEMP_ATTEMPTS 100

/* Creates PATH.tmp-PID-N with O_EXCL; returns its descriptor or -1 (errno). */
static int create_temp(const char *path, char *tmp, size_t n)
{
    for (int k = 0; k < TEMP_ATTEMPTS; k++) {
        if (snprintf(tmp, n, "%s.tmp-%ld-%d", path, (long)getpid(), k) >= (int)n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* The reason a file at path cannot be written: a directory there is named
 * as such (creating the temporary file beside it succeeds). */
static TvStatus open_fail(const char *path, const char *what, int e, TvError *err)
{
    return tv_fail(err, TV_ERR_IO, "%s: cannot write the %s: %s", path, what, strerror(e)); /* escaped there */
}

/* Whether path is an HDF5 file: its signature at offset 0, 512, 1024 or
 * 2048 (where the format allows it after a user block). */
static bool is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    bool yes = false;
    unsigned char b[8];
    for (off_t off = 0; off <= 2048 && !yes; off = off ? off * 2 : 512) {
        if (pread(fd, b, sizeof b, off) != (ssize_t)sizeof b)
            break;
        yes = !memcmp(b, sig, sizeof sig);
    }
    close(fd);
    return yes;
}

TvStatus tv_output_check(const char *path, const char *const *inputs, int ninputs, const char *what, TvError *err)
{
    struct stat out;
    if (stat(path, &out) != 0)
        return TV_OK; /* nothing there yet (or unreachable: the writer says why) */
    if (S_ISREG(out.st_mode) && is_hdf5(path))
        return tv_fail(err, TV_ERR_ARG,
                       "%s is an HDF5 file (a store?): the %s would replace it; choose another path (or remove the "
                       "file first if it is meant to go)",
                       path, what);
    for (int i = 0; i < ninputs; i++) {
        struct stat in;
        if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return tv_fail(err, TV_ERR_ARG,
                           "%s is the same file as the input %s: the %s would replace it; choose another path", path,
                           inputs[i], what);
    }
    return TV_OK;
}

TvStatus tv_temp_beside(const char *path, const char *what, char *tmp, size_t n, TvError *err)
{
    int fd = create_temp(path, tmp, n);
    if (fd < 0)
        return open_fail(path, what, errno, err);
    close(fd);
    return TV_OK;
}

TvStatus tv_atomic_open(TvAtomicFile *a, const char *path, const char *what, TvError *err)
{
    memset(a, 0, sizeof *a);
    a->what = what;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
        return open_fail(path, what, ENAMETOOLONG, err);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return open_fail(path, what, EISDIR, err);
    TvStatus st = tv_output_check(path, NULL, 0, what, err);
    if (st != TV_OK)
        return st;
    /* a symbolic link: the file it names is replaced (or made, when the
     * link dangles), the link stays */
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        char *real = realpath(path, NULL);
        if (real) {
            if (snprintf(a->target, sizeof a->target, "%s", real) >= (int)sizeof a->target)
                a->target[0] = 0;
            free(real);
        } else {
            char to[TV_PATH_MAX];
            ssize_t n = readlink(path, to, sizeof to - 1);
            if (n > 0) {
                to[n] = '\0';
                const char *slash = strrchr(path, '/');
                int dir = to[0] == '/' || !slash ? 0 : (int)(slash - path) + 1; /* relative to the link's folder */
                if (snprintf(a->target, sizeof a->target, "%.*s%s", dir, path, to) >= (int)sizeof a->target)
                    a->target[0] = 0;
            }
        }
    }
    if (!a->target[0])
        snprintf(a->target, sizeof a->target, "%s", path);
    int fd = create_temp(a->target, a->tmp, sizeof a->tmp);
    if (fd < 0)
        return open_fail(path, what, errno, err);
    /* the file replaced keeps its permissions (a 0600 file stays private) */
    if (stat(a->target, &sb) == 0 && S_ISREG(sb.st_mode))
        (void)fchmod(fd, sb.st_mode & 07777);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        return open_fail(path, what, e, err);
    }
    return TV_OK;
}

void tv_atomic_abort(TvAtomicFile *a)
{
    if (!a->f)
        return;
    fclose(a->f);
    a->f = NULL;
    unlink(a->tmp);
}

TvStatus tv_atomic_commit(TvAtomicFile *a, TvError *err)
{
    if (!a->f)
        return open_fail(a->path, a->what, EBADF, err);
    /* a write that failed earlier left the stream's error flag (and the
     * reason in errno only then): flushing again finds the reason */
    int e = 0;
    bool failed = ferror(a->f);
    if (fflush(a->f) != 0)
        e = errno;
    if (!e && failed)
        e = EIO;
    if (!e && fsync(fileno(a->f)) != 0 && errno != EINVAL) /* EINVAL: a file system without sync */
        e = errno;
    if (fclose(a->f) != 0 && !e)
        e = errno;
    a->f = NULL;
    if (!e && rename(a->tmp, a->target) != 0)
        e = errno;
    if (e) {
        unlink(a->tmp);
        return open_fail(a->path, a->what, e, err);
    }
    return TV_OK;
}

TvStatus tv_atomic_write(const char *path, const char *what, const char *text, size_t len, TvError *err)
{
    TvAtomicFile a;
    TvStatus st = tv_atomic_open(&a, path, what, err);
    if (st != TV_OK)
        return st;
    fwrite(text, 1, len, a.f);
    return tv_atomic_commit(&a, err);
}

TvStatus tv_publish(const char *tmp, const char *path, bool replace, int *why_errno, TvError *err)
{
    int e = 0;
    if (why_errno)
        *why_errno = 0;
    if (replace) {
        if (rename(tmp, path) != 0)
            e = errno;
    } else if (link(tmp, path) == 0) {
        unlink(tmp);
    } else if (errno == EEXIST) {
        e = EEXIST;
    } else if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) != 0) {
        /* no hard links here (EPERM, EOPNOTSUPP) and no RENAME_NOREPLACE (EINVAL) either: refused
         * rather than replaced without a check */
        e = errno;
    }
    if (!e)
        return TV_OK;
    if (why_errno)
        *why_errno = e;
    if (e == EEXIST)
        return tv_fail(err, TV_ERR_IO, "%s already exists (another run created it first)", path);
    return tv_fail(err, TV_ERR_IO, "%s: cannot create: %s", path, strerror(e));
}

TvStatus tv_make_dirs(const char *dir, const char *what, TvError *err)
{
    char *p = strdup(dir);
    if (!p)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    for (char *s = p + 1;; s++) {
        bool end = *s == 0;
        if (*s == '/' || end) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                free(p);
                return tv_fail(err, TV_ERR_IO, "cannot create the %s %s: %s", what, dir, strerror(e));
            }
            *s = c;
        }
        if (end)
            break;
    }
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(p);
        return tv_fail(err, TV_ERR_IO, "cannot create the %s %s: %s", what, dir,
                       "it exists and is not a directory");
    }
    free(p);
    return TV_OK;
}
