/* atomic_file.c: outputs written whole or not at all (see atomic_file.h). */
#define _GNU_SOURCE /* renameat2 (RENAME_NOREPLACE), realpath */
#include "atomic_file.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Attempts at a free temporary name: another writer of the same path in
 * this process (a thread) or a stale file of a killed process with our pid
 * takes one each. */
#define TEMP_ATTEMPTS 100

static TvStatus roll_forward(const char *output, TvError *err);

/* Whether the writer pid that left a temporary file or a stage is gone: not
 * this process, and no such process (EPERM: another user's, alive). */
static bool writer_gone(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

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

TvStatus tv_atomic_finish(TvAtomicFile *a, TvError *err)
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
    if (e) {
        unlink(a->tmp);
        return open_fail(a->path, a->what, e, err);
    }
    return TV_OK;
}

TvStatus tv_atomic_commit(TvAtomicFile *a, TvError *err)
{
    TvStatus st = tv_atomic_finish(a, err);
    if (st != TV_OK)
        return st;
    if (rename(a->tmp, a->target) != 0) {
        int e = errno;
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
/* ---- the lock of an output --------------------------------------------------------------------- */

struct TvLock {
    int fd;
    char path[TV_PATH_MAX + 8]; /* OUT.lock */
};

/* The pid (and host) of the run that holds the lock at fd, as it wrote
 * them into the file ("PID HOST"), else as the kernel says (F_GETLK). */
static void lock_holder(int fd, char *who, size_t n)
{
    char text[128] = "";
    ssize_t k = pread(fd, text, sizeof text - 1, 0);
    long pid = 0;
    char host[64] = "";
    if (k > 0) {
        text[k] = 0;
        if (sscanf(text, "%ld %63s", &pid, host) < 1)
            pid = 0;
    }
    if (pid <= 0) {
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
            pid = (long)fl.l_pid;
        host[0] = 0;
    }
    if (pid > 0)
        snprintf(who, n, "pid %ld%s%s", pid, host[0] ? " on " : "", host);
    else
        snprintf(who, n, "pid unknown");
}

/* A writer of path killed before its rename (or link) left PATH.tmp-PID-N:
 * removed when process PID is gone (a live one may still be writing it),
 * each reported to `removed`. */
static TvStatus remove_dead_temps(const char *path, TvLeftoverFn removed, void *user, TvError *err)
{
    const char *slash = strrchr(path, '/');
    char dir[TV_PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path ? slash - path : 1) : 1, slash ? path : ".");
    const char *base = slash ? slash + 1 : path;
    const size_t bl = strlen(base);
    DIR *d = opendir(dir);
    if (!d)
        return TV_OK; /* nothing to list: nothing left there either */
    TvStatus st = TV_OK;
    struct dirent *e;
    while (st == TV_OK && (e = readdir(d)) != NULL) {
        long pid;
        int k, used = 0;
        if (strncmp(e->d_name, base, bl) || sscanf(e->d_name + bl, ".tmp-%ld-%d%n", &pid, &k, &used) != 2 ||
            e->d_name[bl + (size_t)used] != 0 || pid <= 0)
            continue;
        if (!writer_gone(pid))
            continue;
        char leftover[TV_PATH_MAX + 300];
        snprintf(leftover, sizeof leftover, "%s/%s", dir, e->d_name);
        if (remove(leftover) != 0 && errno != ENOENT)
            st = tv_fail(err, TV_ERR_IO, "cannot remove %s (left by a writer that was killed): %s", leftover,
                         strerror(errno));
        else if (removed)
            removed(leftover, pid, user);
    }
    closedir(d);
    return st;
}

TvStatus tv_lock_output(const char *path, const char *advice, TvLeftoverFn removed, void *user, TvLock **out,
                       TvError *err)
{
    *out = NULL;
    TvLock *l = calloc(1, sizeof *l);
    if (!l)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    if (snprintf(l->path, sizeof l->path, "%s.lock", path) >= (int)sizeof l->path) {
        free(l);
        return tv_fail(err, TV_ERR_ARG, "%s: path too long", path);
    }
    /* A run that ends removes the file while it holds the lock: a file
     * locked after that is no longer the one at the path, and is taken
     * again (a few rounds: each needs another run to end meanwhile). */
    for (int round = 0; round < 100; round++) {
        l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (l->fd < 0) {
            const int e = errno;
            /* the usual cause is the output's folder: say that, not the lock */
            char dir[sizeof l->path];
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *(slash == dir ? slash + 1 : slash) = 0;
            struct stat sb;
            TvStatus st;
            if (e == ENOENT && slash && stat(dir, &sb) != 0)
                st = tv_fail(err, TV_ERR_IO, "%s: its folder %s does not exist (make it, or give another path)",
                             path, dir);
            else if (e == ENOTDIR && slash)
                st = tv_fail(err, TV_ERR_IO, "%s: %s is not a folder (give another path)", path, dir);
            else
                st = tv_fail(err, TV_ERR_IO, "cannot make the lock %s of %s: %s", l->path, path, strerror(e));
            free(l);
            return st;
        }
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(l->fd, F_SETLK, &fl) != 0) {
            int e = errno;
            char who[128];
            TvStatus st;
            if (e == EAGAIN || e == EACCES) {
                lock_holder(l->fd, who, sizeof who);
                st = tv_fail(err, TV_ERR_IO, "%s is in use by another run (%s holds %s): %s", path, who, l->path,
                             advice);
            } else {
                st = tv_fail(err, TV_ERR_IO, "cannot lock %s: %s", l->path, strerror(e));
            }
            close(l->fd);
            free(l);
            return st;
        }
        struct stat held, now;
        if (fstat(l->fd, &held) == 0 && stat(l->path, &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino)
            break;
        close(l->fd); /* removed by the run that ended: take the new one */
        l->fd = -1;
    }
    if (l->fd < 0) {
        free(l);
        return tv_fail(err, TV_ERR_IO, "cannot take the lock %s: it keeps being replaced", path);
    }
    char text[128], host[64] = "";
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = 0;
    int k = snprintf(text, sizeof text, "%ld %s\n", (long)getpid(), host);
    if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, text, (size_t)k, 0) != k) {
        /* the lock holds without its text: others then name the pid the kernel gives */
    }
    TvStatus st = roll_forward(path, err);
    if (st == TV_OK)
        st = remove_dead_temps(path, removed, user, err);
    if (st != TV_OK) {
        tv_unlock_output(l);
        return st;
    }
    *out = l;
    return TV_OK;
}

void tv_unlock_output(TvLock *l)
{
    if (!l)
        return;
    unlink(l->path); /* while it is held: see tv_lock_output */
    close(l->fd);
    free(l);
}

/* ---- outputs that belong together ---------------------------------------------------------------- */

/* The journal: "tavreli-commit", the writer's pid, then each pair
 * temporary, final name; every field ends with a NUL byte. */
#define JOURNAL_MAGIC "tavreli-commit"

/* path made absolute against the current folder (a later run may start
 * elsewhere) */
static bool absolute(const char *path, char *out, size_t n)
{
    if (path[0] == '/')
        return snprintf(out, n, "%s", path) < (int)n;
    char cwd[TV_PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return false;
    return snprintf(out, n, "%s/%s", cwd, path) < (int)n;
}

/* Syncs the folder holding path, so that renames in it last. */
static void sync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[TV_PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path ? slash - path : 1) : 1, slash ? path : ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

TvStatus tv_commit_group(const char *output, const char *const *tmps, const char *const *targets, int n,
                         TvError *err)
{
    char journal[TV_PATH_MAX + 8];
    TvStatus st = TV_OK;
    size_t cap = 64, len = 0;
    char *text = malloc(cap);
    if (!text)
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    if (st == TV_OK && snprintf(journal, sizeof journal, "%s.commit", output) >= (int)sizeof journal)
        st = tv_fail(err, TV_ERR_ARG, "%s: path too long", output);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    for (int i = -1; st == TV_OK && i < n; i++) {
        char a[TV_PATH_MAX], b[TV_PATH_MAX];
        if (i < 0) {
            snprintf(a, sizeof a, "%s", JOURNAL_MAGIC);
            snprintf(b, sizeof b, "%s", pid);
        } else if (!absolute(tmps[i], a, sizeof a) || !absolute(targets[i], b, sizeof b)) {
            st = tv_fail(err, TV_ERR_IO, "%s: cannot name it from the root (%s)", targets[i], strerror(errno));
            break;
        }
        size_t need = len + strlen(a) + strlen(b) + 2;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            char *t = realloc(text, cap);
            if (!t) {
                st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                break;
            }
            text = t;
        }
        memcpy(text + len, a, strlen(a) + 1);
        len += strlen(a) + 1;
        memcpy(text + len, b, strlen(b) + 1);
        len += strlen(b) + 1;
    }
    /* one file needs no journal: its rename is the whole group */
    if (st == TV_OK && n > 1)
        st = tv_atomic_write(journal, "commit journal", text, len, err);
    free(text);
    if (st != TV_OK) {
        for (int i = 0; i < n; i++)
            unlink(tmps[i]);
        return st;
    }
    for (int i = 0; i < n; i++)
        if (rename(tmps[i], targets[i]) != 0) {
            /* the journal stays: the next run completes what it can */
            return tv_fail(err, TV_ERR_IO, "%s: cannot write it: %s (the next run on %s completes the group)",
                           targets[i], strerror(errno), output);
        }
    for (int i = 0; i < n; i++)
        if (i == 0 || strcmp(targets[i], targets[i - 1]))
            sync_parent(targets[i]);
    if (n > 1 && unlink(journal) != 0 && errno != ENOENT)
        return tv_fail(err, TV_ERR_IO, "cannot remove %s: %s", journal, strerror(errno));
    return TV_OK;
}

/* A run killed while it renamed a group left OUTPUT.commit: its renames
 * are completed (a temporary file gone was renamed already). */
static TvStatus roll_forward(const char *output, TvError *err)
{
    char journal[TV_PATH_MAX + 8];
    if (snprintf(journal, sizeof journal, "%s.commit", output) >= (int)sizeof journal)
        return TV_OK;
    FILE *f = fopen(journal, "rb");
    if (!f)
        return TV_OK;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t k;
    while (text && (k = fread(text + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            char *t = realloc(text, cap * 2);
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    TvStatus st = TV_OK;
    const char *end = text + len, *p = text;
    /* fields: magic, pid, then pairs; a file that is not a whole journal is left alone and named */
    const char *field[2];
    int nf = 0, pair = -1;
    while (st == TV_OK && p < end) {
        const char *z = memchr(p, 0, (size_t)(end - p));
        if (!z)
            break;
        field[nf++] = p;
        p = z + 1;
        if (nf < 2)
            continue;
        nf = 0;
        if (pair++ < 0) {
            if (strcmp(field[0], JOURNAL_MAGIC)) {
                st = tv_fail(err, TV_ERR_IO, "%s is not a commit journal of tavreli: look at it, then remove it",
                             journal);
                break;
            }
            continue;
        }
        if (rename(field[0], field[1]) != 0 && errno != ENOENT)
            st = tv_fail(err, TV_ERR_IO, "cannot complete the interrupted write of %s (journal %s): %s", field[1],
                         journal, strerror(errno));
        else
            sync_parent(field[1]);
    }
    free(text);
    if (st == TV_OK && unlink(journal) != 0 && errno != ENOENT)
        st = tv_fail(err, TV_ERR_IO, "cannot remove %s: %s", journal, strerror(errno));
    return st;
}

/* ---- a folder replaced as a group ------------------------------------------------------------------ */

#define STAGE_PREFIX ".stage-"

/* Removes the files of folder dir (one level: a stage holds no folders) and dir. */
static void remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[TV_PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

TvStatus tv_stage_open(TvStage *s, const char *dir, const char *what, TvError *err)
{
    memset(s, 0, sizeof *s);
    if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir)
        return tv_fail(err, TV_ERR_ARG, "%s: path too long", dir);
    for (size_t n = strlen(s->dir); n > 1 && s->dir[n - 1] == '/'; n--)
        s->dir[n - 1] = 0;
    struct stat sb;
    s->made = stat(s->dir, &sb) != 0;
    TvStatus st = tv_make_dirs(s->dir, what, err);
    if (st != TV_OK)
        return st;
    /* the stages of killed runs */
    DIR *d = opendir(s->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            long pid;
            int k, used = 0;
            if (sscanf(e->d_name, STAGE_PREFIX "%ld-%d%n", &pid, &k, &used) != 2 || e->d_name[used] || pid <= 0 ||
                strncmp(e->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)))
                continue;
            if (!writer_gone(pid))
                continue;
            char p[TV_PATH_MAX * 2];
            snprintf(p, sizeof p, "%s/%s", s->dir, e->d_name);
            remove_flat_dir(p);
        }
        closedir(d);
    }
    for (int k = 0; k < TEMP_ATTEMPTS; k++) {
        if (snprintf(s->stage, sizeof s->stage, "%s/" STAGE_PREFIX "%ld-%d", s->dir, (long)getpid(), k) >=
            (int)sizeof s->stage)
            return tv_fail(err, TV_ERR_ARG, "%s: path too long", dir);
        if (mkdir(s->stage, 0777) == 0)
            return TV_OK;
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    s->stage[0] = 0;
    return tv_fail(err, TV_ERR_IO, "cannot write into the %s %s: %s", what, s->dir, strerror(e));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

TvStatus tv_stage_commit(TvStage *s, const char *const *last, TvError *err)
{
    DIR *d = opendir(s->stage);
    if (!d) {
        TvStatus st = tv_fail(err, TV_ERR_IO, "cannot read %s: %s", s->dir, strerror(errno));
        tv_stage_abort(s, NULL, err);
        return st;
    }
    TvStatus st = TV_OK;
    int n = 0, cap = 0;
    char **names = NULL;
    struct dirent *e;
    while (st == TV_OK && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **t = realloc(names, sizeof *t * (size_t)cap);
            if (!t) {
                st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                break;
            }
            names = t;
        }
        if (!(names[n] = strdup(e->d_name)))
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        else
            n++;
    }
    closedir(d);
    /* the order: every file by name, those of `last` moved to the end in their order */
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    char **order = calloc((size_t)n + 1, sizeof *order);
    if (st == TV_OK && !order)
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    if (st == TV_OK) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            bool late = false;
            for (int L = 0; last && last[L] && !late; L++)
                late = !strcmp(names[i], last[L]);
            if (!late)
                order[k++] = names[i];
        }
        for (int L = 0; last && last[L]; L++)
            for (int i = 0; i < n; i++)
                if (!strcmp(names[i], last[L]))
                    order[k++] = names[i];
        memcpy(names, order, sizeof *names * (size_t)n);
    }
    free(order);
    char **tmps = calloc((size_t)n + 1, sizeof *tmps), **targets = calloc((size_t)n + 1, sizeof *targets);
    if (st == TV_OK && (!tmps || !targets))
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int i = 0; st == TV_OK && i < n; i++) {
        size_t a = strlen(s->stage) + strlen(names[i]) + 2, b = strlen(s->dir) + strlen(names[i]) + 2;
        tmps[i] = malloc(a);
        targets[i] = malloc(b);
        if (!tmps[i] || !targets[i]) {
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
            break;
        }
        snprintf(tmps[i], a, "%s/%s", s->stage, names[i]);
        snprintf(targets[i], b, "%s/%s", s->dir, names[i]);
        struct stat sb;
        if (lstat(tmps[i], &sb) != 0 || !S_ISREG(sb.st_mode)) {
            st = tv_fail(err, TV_ERR_IO, "%s: not a file the run wrote", targets[i]);
            break;
        }
        /* gnuplot's plots were not synced by their writer */
        int fd = open(tmps[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
            st = tv_fail(err, TV_ERR_IO, "%s: cannot write it: %s", targets[i], strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    bool begun = false; /* renames began: the journal DIR.commit names the stage's files */
    if (st == TV_OK) {
        st = tv_commit_group(s->dir, (const char *const *)tmps, (const char *const *)targets, n, err);
        char journal[TV_PATH_MAX + 8];
        snprintf(journal, sizeof journal, "%s.commit", s->dir);
        begun = st != TV_OK && access(journal, F_OK) == 0;
    }
    for (int i = 0; i < n; i++) {
        free(names[i]);
        if (tmps)
            free(tmps[i]);
        if (targets)
            free(targets[i]);
    }
    free(names);
    free(tmps);
    free(targets);
    if (begun) /* left for the next holder of DIR's lock to complete (roll_forward), then remove */
        s->stage[0] = 0;
    else if (st != TV_OK)
        tv_stage_abort(s, NULL, err);
    if (st != TV_OK)
        return st;
    rmdir(s->stage);
    s->stage[0] = 0;
    return TV_OK;
}

void tv_stage_abort(TvStage *s, const char *const *keep, TvError *err)
{
    if (!s->stage[0])
        return;
    for (int k = 0; keep && keep[k]; k++) {
        char a[TV_PATH_MAX * 2], b[TV_PATH_MAX * 2];
        snprintf(a, sizeof a, "%s/%s", s->stage, keep[k]);
        snprintf(b, sizeof b, "%s/%s", s->dir, keep[k]);
        (void)rename(a, b);
    }
    remove_flat_dir(s->stage);
    if (s->made)
        rmdir(s->dir); /* fails, as it should, when anything is in it */
    if (err) { /* the stage is gone: a message names the user's folder */
        char *m;
        size_t sl = strlen(s->stage), dl = strlen(s->dir);
        while ((m = strstr(err->msg, s->stage)) != NULL) {
            size_t rest = strlen(m + sl) + 1;
            if ((size_t)(m - err->msg) + dl + rest > sizeof err->msg)
                break;
            memmove(m + dl, m + sl, rest);
            memcpy(m, s->dir, dl);
        }
    }
    s->stage[0] = 0;
}
