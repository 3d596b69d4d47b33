/* distrib.c: a tournament on several MPI ranks.  See distrib.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "distrib.h"

#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h5store.h"
#include "record.h"
#include "rng.h"
#include "run_session.h"

int distrib_launched_size(void)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof size_vars / sizeof *size_vars; i++) {
        const char *v = getenv(size_vars[i]);
        if (v && *v)
            return atoi(v) > 0 ? atoi(v) : 1;
    }
    if (getenv("PMIX_RANK") || getenv("PMI_RANK"))
        return 1; /* launched, size unknown until MPI_Init */
    return 0;
}

/* OUT without a trailing ".h5". */
static size_t stem_length(const char *out)
{
    size_t n = strlen(out);
    return n > 3 && !strcmp(out + n - 3, ".h5") ? n - 3 : n;
}

void distrib_part_path(const char *out, int rank, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s.part-%d.h5", (int)stem_length(out), out, rank);
}

/* The folder of store `out` and the name prefix of its parts there
 * ("STEM.part-"). */
static void parts_dir_prefix(const char *out, char *dir, size_t dir_n, char *prefix, size_t prefix_n)
{
    size_t stem = stem_length(out);
    const char *slash = strrchr(out, '/');
    size_t dirlen = slash ? (size_t)(slash - out) : 0;
    snprintf(dir, dir_n, "%.*s", slash ? (int)(dirlen ? dirlen : 1) : 1, slash ? out : ".");
    const char *base = slash ? slash + 1 : out;
    snprintf(prefix, prefix_n, "%.*s.part-", (int)(stem - (size_t)(base - out)), base);
}

/* Removes OUT.part-R.h5.tmp-PID-N (any rank R): the temporary file of a
 * part whose creation was killed before its link.  Called by rank 0 while
 * it holds the run lock of OUT and before any rank of this run creates its
 * part: no live run can be making such a file then, whatever host its
 * rank was on (so the PID is not looked at, unlike the main store's
 * leftovers, which h5store_lock_run removes).  distrib_prepare_store's
 * callers hold that lock. */
static TvStatus remove_part_temps(const char *out, TvError *err)
{
    char dir[1024], prefix[512];
    parts_dir_prefix(out, dir, sizeof dir, prefix, sizeof prefix);
    DIR *d = opendir(dir);
    if (!d)
        return TV_OK; /* nothing to list: nothing left there either */
    TvStatus st = TV_OK;
    struct dirent *e;
    size_t pl = strlen(prefix);
    while (st == TV_OK && (e = readdir(d)) != NULL) {
        int rank, k, used = 0;
        long pid;
        if (strncmp(e->d_name, prefix, pl) != 0 || e->d_name[pl] < '0' || e->d_name[pl] > '9' ||
            sscanf(e->d_name + pl, "%d.h5.tmp-%ld-%d%n", &rank, &pid, &k, &used) != 3 ||
            e->d_name[pl + (size_t)used] != 0)
            continue;
        char path[1024 + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (remove(path) != 0 && errno != ENOENT)
            st = tv_fail(err, TV_ERR_IO, "cannot remove %s (left by a part creation that was killed): %s", path,
                         strerror(errno));
    }
    closedir(d);
    return st;
}

/* The parts of store `out` on disk (any rank number), as heap paths. */
static TvStatus list_parts(const char *out, char ***paths, int *n, TvError *err)
{
    *paths = NULL;
    *n = 0;
    char dir[1024], prefix[512];
    parts_dir_prefix(out, dir, sizeof dir, prefix, sizeof prefix);
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return TV_OK;
        return tv_fail(err, TV_ERR_IO, "cannot list %s (looking for parts of %s): %s", dir, out, strerror(errno));
    }
    TvStatus st = TV_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t pl = strlen(prefix), nl = strlen(name);
        if (nl <= pl + 3 || strncmp(name, prefix, pl) != 0 || strcmp(name + nl - 3, ".h5") != 0)
            continue;
        bool digits = true;
        for (size_t i = pl; i < nl - 3; i++)
            digits = digits && name[i] >= '0' && name[i] <= '9';
        if (!digits)
            continue;
        char **p2 = realloc(*paths, sizeof **paths * (size_t)(*n + 1));
        size_t len = strlen(dir) + nl + 2;
        char *path = malloc(len);
        if (!p2 || !path) {
            free(path);
            if (p2)
                *paths = p2;
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
            break;
        }
        *paths = p2;
        if (strchr(out, '/'))
            snprintf(path, len, "%s/%s", dir, name);
        else
            snprintf(path, len, "%s", name);
        (*paths)[(*n)++] = path;
    }
    closedir(d);
    return st;
}

static void free_paths(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

/* Merges `out` (when present) and the given parts into `out`, then removes
 * the parts.  A stop (*stop set during the merge) changes nothing on disk:
 * *stopped is set and the parts stay for the next --resume. */
static TvStatus merge_into(const char *out, char *const *parts, int nparts, const char *tournament_ini,
                           const volatile sig_atomic_t *stop, bool *stopped, int64_t *ngames, TvError *err)
{
    const char **inputs = malloc(sizeof *inputs * (size_t)(nparts + 1));
    *stopped = false;
    if (!inputs)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    int n = 0;
    if (access(out, F_OK) == 0)
        inputs[n++] = out;
    for (int i = 0; i < nparts; i++)
        inputs[n++] = parts[i];
    TvStatus st = h5store_merge_stoppable(out, inputs, n, tournament_ini, stop, stopped, ngames, err);
    free(inputs);
    for (int i = 0; st == TV_OK && !*stopped && i < nparts; i++)
        if (remove(parts[i]) != 0)
            st = tv_fail(err, TV_ERR_IO, "merged %s, but cannot remove %s: %s", out, parts[i], strerror(errno));
    return st;
}

/* Removes OUT.h5.tmp, which only a merge or a store creation killed before
 * its rename leaves (a live one holds the store's lock, checked before). */
static TvStatus remove_stale_tmp(const char *out, TvError *err)
{
    char tmp[1100];
    struct stat sb;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", out) >= (int)sizeof tmp)
        return tv_fail(err, TV_ERR_ARG, "%s: path too long", out);
    if (lstat(tmp, &sb) != 0)
        return TV_OK;
    if (!S_ISREG(sb.st_mode))
        return tv_fail(err, TV_ERR_IO, "%s is in the way of the store's merges and is not a regular file: remove it",
                       tmp);
    if (remove(tmp) != 0 && errno != ENOENT)
        return tv_fail(err, TV_ERR_IO, "cannot remove %s (left by a merge that was killed): %s", tmp, strerror(errno));
    return TV_OK;
}

TvStatus distrib_prepare_store(const char *out, bool resume, bool force, const Tournament *t,
                               const volatile sig_atomic_t *stop, bool *have_store, TvError *err)
{
    const char *tournament_ini = t->text;
    char **parts;
    int nparts;
    StoredEngine *ids = NULL; /* the run's engines, when a store is continued */
    TvStatus st = remove_part_temps(out, err);
    if (st == TV_OK)
        st = list_parts(out, &parts, &nparts, err);
    if (st != TV_OK)
        return st;
    bool exists = access(out, F_OK) == 0;
    if ((force || resume) && (exists || nparts > 0)) { /* no live process: then OUT.tmp is stale */
        if ((st = h5store_check_not_live(out, err)) == TV_OK)
            st = remove_stale_tmp(out, err);
        if (st != TV_OK)
            goto done;
    }
    if (force) {
        if (exists)
            st = h5store_remove(out, err);
        for (int i = 0; st == TV_OK && i < nparts; i++)
            st = h5store_remove(parts[i], err);
        exists = false;
    } else if (!resume) {
        if (exists)
            st = tv_fail(err, TV_ERR_IO, "%s exists: add --resume to continue it (same configuration) or --force to "
                                         "overwrite it",
                         out);
        else if (nparts > 0)
            st = tv_fail(err, TV_ERR_IO,
                         "%s: an interrupted MPI run left its parts (%s, ...): add --resume to merge them and play "
                         "the missing games, or --force to start over",
                         out, parts[0]);
    } else if (nparts > 0) {
        int64_t n;
        bool stopped = false;
        for (int i = 0; st == TV_OK && i < nparts; i++)
            st = h5store_check_not_live(parts[i], err);
        if (st == TV_OK)
            st = runner_identify(t, out, &ids, err);
        for (int i = 0; st == TV_OK && i < nparts; i++)
            st = runner_adopt_ini(parts[i], t, ids, stop, err);
        if (st == TV_OK && exists)
            st = runner_adopt_ini(out, t, ids, stop, err);
        if (st == TV_OK)
            st = merge_into(out, parts, nparts, tournament_ini, stop, &stopped, &n, err);
        if (st == TV_OK && stopped) /* the parts must stay: a new run would write over them */
            st = tv_fail(err, TV_ERR_IO,
                         "stopped by a signal while merging the parts of %s; nothing was changed or lost: "
                         "--resume merges them again",
                         out);
        exists = st == TV_OK;
    } else if (exists) {
        /* not live: checked above (refused now, not after the run) */
        if ((st = runner_identify(t, out, &ids, err)) == TV_OK)
            st = runner_adopt_ini(out, t, ids, stop, err);
    } else {
        st = tv_fail(err, TV_ERR_IO, "nothing to resume: %s does not exist (run without --resume to start it)", out);
    }
done:
    free(ids);
    free_paths(parts, nparts);
    *have_store = exists;
    return st;
}

#ifdef TAVRELI_WITH_MPI
#include <mpi.h>
#include <pthread.h>

enum { TAG_NEXT = 1, TAG_GAME = 2, TAG_DONE = 3 };

/* ---- ranks other than 0: ask rank 0 ------------------------------------------ */

/* The TAG_NEXT message: a finished game (GameDone, index -1 for none), with
 * its termination, time over the margin and waits before readyok so that
 * rank 0 counts the referee's terminations and the waits of every rank, and
 * whether a next game is wanted. */
enum {
    NEXT_INDEX,
    NEXT_RESULT,
    NEXT_POSITIONS,
    NEXT_WANT,
    NEXT_TERMINATION,
    NEXT_OVER_MS,
    NEXT_UNREADY,
    NEXT_READY_MS,         /* two: White's, Black's */
    NEXT_READY_MAX_MS = NEXT_READY_MS + 2, /* two */
    NEXT_THINK_MS = NEXT_READY_MAX_MS + 2, /* two */
    NEXT_LEN = NEXT_THINK_MS + 2
};

/* A NextGameFn: reports the finished game and asks for the next one.  The
 * threads of a rank take turns (MPI_THREAD_SERIALIZED), and rank 0 answers
 * requests in the order they come, so the answer is this thread's. */
static int64_t remote_next(void *ctx, const GameDone *done, bool want_more)
{
    (void)ctx;
    int64_t msg[NEXT_LEN] = {0};
    msg[NEXT_INDEX] = done ? done->index : -1;
    msg[NEXT_WANT] = want_more;
    if (done) {
        msg[NEXT_RESULT] = done->result;
        msg[NEXT_POSITIONS] = done->positions;
        msg[NEXT_TERMINATION] = done->termination;
        msg[NEXT_OVER_MS] = done->over_ms;
        msg[NEXT_UNREADY] = done->unready;
        for (int k = 0; k < 2; k++) {
            msg[NEXT_READY_MS + k] = done->ready_ms[k];
            msg[NEXT_READY_MAX_MS + k] = done->ready_max_ms[k];
            msg[NEXT_THINK_MS + k] = done->think_ms[k];
        }
    }
    int64_t index = -1;
#pragma omp critical(mpi)
    {
        if (MPI_Send(msg, NEXT_LEN, MPI_INT64_T, 0, TAG_NEXT, MPI_COMM_WORLD) != MPI_SUCCESS ||
            (want_more &&
             MPI_Recv(&index, 1, MPI_INT64_T, 0, TAG_GAME, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS))
            index = -1;
    }
    return index;
}

/* ---- rank 0: the dispatcher, a thread answering the other ranks -------------- */

typedef struct {
    Coordinator *coord;
    int size;
    int64_t played, positions, failed;
    double store_seconds;
} Dispatcher;

static void *dispatcher_main(void *arg)
{
    Dispatcher *d = arg;
    int active = d->size - 1;
    const struct timespec pause = {0, 1000000}; /* 1 ms: a waiting rank waits at most that */
    while (active > 0) {
        int flag = 0;
        MPI_Status status;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS)
            break;
        if (!flag) {
            nanosleep(&pause, NULL);
            continue;
        }
        if (status.MPI_TAG == TAG_NEXT) {
            int64_t msg[NEXT_LEN];
            MPI_Recv(msg, NEXT_LEN, MPI_INT64_T, status.MPI_SOURCE, TAG_NEXT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            const GameDone done = {msg[NEXT_INDEX],
                                   (int32_t)msg[NEXT_RESULT],
                                   (int32_t)msg[NEXT_POSITIONS],
                                   (int32_t)msg[NEXT_TERMINATION],
                                   (int32_t)msg[NEXT_OVER_MS],
                                   (int32_t)msg[NEXT_UNREADY],
                                   {(int32_t)msg[NEXT_READY_MS], (int32_t)msg[NEXT_READY_MS + 1]},
                                   {(int32_t)msg[NEXT_READY_MAX_MS], (int32_t)msg[NEXT_READY_MAX_MS + 1]},
                                   {(int32_t)msg[NEXT_THINK_MS], (int32_t)msg[NEXT_THINK_MS + 1]}};
            const bool want = msg[NEXT_WANT] != 0;
            int64_t index = coordinator_next(d->coord, done.index >= 0 ? &done : NULL, want);
            if (want)
                MPI_Send(&index, 1, MPI_INT64_T, status.MPI_SOURCE, TAG_GAME, MPI_COMM_WORLD);
        } else if (status.MPI_TAG == TAG_DONE) {
            double r[4];
            MPI_Recv(r, 4, MPI_DOUBLE, status.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            d->failed += r[0] != 0;
            d->played += (int64_t)r[1];
            d->positions += (int64_t)r[2];
            d->store_seconds += r[3];
            active--;
        } else { /* not ours: drop it */
            char junk[64];
            MPI_Recv(junk, (int)sizeof junk, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    return NULL;
}

/* ---- the run ---------------------------------------------------------------------- */

/* Puts "rank R: " before a failure's message (each rank prints its own). */
static TvStatus name_rank(TvStatus st, TvError *err, int rank)
{
    if (st != TV_OK) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err->msg);
        tv_fail(err, st, "rank %d: %s", rank, m);
    }
    return st;
}

/* Shares rank 0's status and message with every rank: all go on or all stop. */
static TvStatus agree(TvStatus st, TvError *err, int rank)
{
    int code = st;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", rank == 0 && err && st != TV_OK ? err->msg : "");
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0 && code != TV_OK && err) {
        err->status = (TvStatus)code;
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    }
    return (TvStatus)code;
}

/* Whether rank 0's failure st, while it read or checked the store, came
 * from a signal (its *stop set): then every rank ends as interrupted
 * (stats->stopped_reading; nothing played, the store as it was), as
 * runner_run does in one process.  Every rank calls it at the same point. */
static bool stopped_reading(const RunOptions *ro, TvStatus st, int rank, RunStats *stats)
{
    int stopped = rank == 0 && st != TV_OK && ro->stop && *ro->stop;
    MPI_Bcast(&stopped, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stopped)
        stats->interrupted = stats->stopped_reading = true;
    return stopped;
}

/* Any rank's failure stops all: returns TV_OK only when every rank passed ok. */
static TvStatus all_ok(TvStatus st, TvError *err, int rank)
{
    int mine = st != TV_OK, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && !mine)
        return tv_fail(err, TV_ERR_IO, "rank %d: stopping because another rank failed (see its message)", rank);
    return any ? st : TV_OK;
}

/* Every rank proves at the start that it sees rank 0's output folder, where
 * it writes its part and rank 0 merges the parts in the end: rank 0 writes
 * a file beside the store (OUT.probe-XXXXXX) holding a token, every other
 * rank reads it back, and all stop when one cannot (a node whose own disk
 * holds the folder found it only after the last game, at the merge).
 * A folder where rank 0 cannot make the file is left to the store's
 * creation, which says why.  A rank that does not see the file waits up to
 * PROBE_WAIT_MS for it (a shared file system may show a new file to other
 * nodes a little later); only a failing run waits that long. */
#define PROBE_WAIT_MS 5000
static TvStatus check_shared_folder(const char *out, const DistribInfo *info, TvError *err)
{
    const int rank = info->rank;
    char probe[1100] = "", token[32] = "", host0[256];
    snprintf(host0, sizeof host0, "%s", info->host);
    if (rank == 0) {
        snprintf(probe, sizeof probe, "%s.probe-XXXXXX", out);
        int fd = mkstemp(probe);
        if (fd < 0) {
            probe[0] = '\0';
        } else {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            snprintf(token, sizeof token, "%016llx",
                     (unsigned long long)tv_rng_mix(((uint64_t)getpid() << 32) ^ (uint64_t)now.tv_sec ^
                                                    ((uint64_t)now.tv_nsec << 17)));
            const ssize_t len = (ssize_t)strlen(token);
            bool ok = write(fd, token, (size_t)len) == len;
            ok = fsync(fd) == 0 && ok;
            close(fd);
            if (!ok) {
                remove(probe);
                probe[0] = '\0';
            }
        }
    }
    MPI_Bcast(probe, (int)sizeof probe, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(token, (int)sizeof token, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(host0, (int)sizeof host0, MPI_CHAR, 0, MPI_COMM_WORLD);
    TvStatus st = TV_OK;
    if (probe[0] && rank != 0) {
        char seen[32] = "";
        int why = 0;
        for (int waited = 0;; waited += 100) {
            FILE *f = fopen(probe, "r");
            why = f ? 0 : errno;
            if (f) {
                size_t n = fread(seen, 1, sizeof seen - 1, f);
                seen[n] = '\0';
                fclose(f);
            }
            if (!strcmp(seen, token) || waited >= PROBE_WAIT_MS)
                break;
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
        }
        if (strcmp(seen, token)) {
            char folder[1100];
            snprintf(folder, sizeof folder, "%s", out);
            char *slash = strrchr(folder, '/');
            if (slash)
                *(slash == folder ? slash + 1 : slash) = '\0';
            else
                snprintf(folder, sizeof folder, ".");
            st = tv_fail(err, TV_ERR_IO,
                         "rank %d on %s cannot see the output folder %s of rank 0 (on %s): the file rank 0 wrote "
                         "there as the run began (%s) is %s%s%s. The ranks write their parts beside %s and rank 0 "
                         "merges them, so its folder must be on a file system every node shares (a home or project "
                         "folder on NFS, Lustre, GPFS or BeeGFS), not a node's own disk (/tmp, a local /scratch): "
                         "give --out such a folder. Nothing was played",
                         rank, info->host[0] ? info->host : "?", folder, host0[0] ? host0 : "?", probe,
                         why ? "not there on this node (" : "there but not as rank 0 wrote it",
                         why ? strerror(why) : "", why ? ")" : "", out);
        }
    }
    st = all_ok(st, err, rank);
    if (rank == 0 && probe[0])
        remove(probe);
    return st;
}

/* info's node fields: the ranks that share this rank's memory, their game
 * threads and the cores they may use (the union of their affinity masks:
 * ranks bound to cores each see only their own). */
static void find_node(DistribInfo *info)
{
    MPI_Comm node;
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
        len = 0;
    snprintf(info->host, sizeof info->host, "%.*s", len, name);
    info->node_ranks = 1;
    info->node_threads = info->threads;
    info->node_first = true;
    cpu_set_t mine, all;
    CPU_ZERO(&mine);
    CPU_ZERO(&all);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine);
    info->node_cores = CPU_COUNT(&mine);
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info->rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return;
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &info->node_ranks);
    MPI_Allreduce(&info->threads, &info->node_threads, 1, MPI_INT, MPI_SUM, node);
    MPI_Allreduce(&mine, &all, (int)sizeof all, MPI_BYTE, MPI_BOR, node);
    info->node_cores = CPU_COUNT(&all);
    info->node_first = node_rank == 0;
    MPI_Comm_free(&node);
}

TvStatus distrib_run(const RunOptions *ro, DistribNodeFn on_node, void *node_user, RunStats *stats,
                     DistribInfo *info, TvError *err)
{
    const double t_start = tv_now_seconds();
    const Tournament *t = ro->t;
    memset(stats, 0, sizeof *stats);
    memset(info, 0, sizeof *info);
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return tv_fail(err, TV_ERR_IO, "MPI_Init_thread failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &info->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &info->size);
    const int rank = info->rank, size = info->size;
    info->threads = runner_threads(ro);
    TvStatus st = TV_OK;
    Coordinator *coord = NULL;
    StoredEngine *ids = NULL; /* this rank's engines (runner_identify) */
    H5RunLock *run_lock = NULL; /* rank 0's: one run at a time on the store (h5store.h) */
    H5Store *part = NULL;
    RunSession *session = NULL; /* rank 0's: what shaped this session (run_session.h) */
    char part_path[1100];
    distrib_part_path(ro->out_path, rank, part_path, sizeof part_path);

    if (provided < MPI_THREAD_SERIALIZED) {
        st = tv_fail(err, TV_ERR_IO,
                     "this MPI library gives thread level %d; tavreli needs MPI_THREAD_SERIALIZED (%d): "
                     "use an MPI built with thread support (Debian's Open MPI is)",
                     provided, MPI_THREAD_SERIALIZED);
        goto finalize;
    }
    /* Every rank must run the same configuration and engine versions. */
    uint64_t h = tv_hash_bytes(TV_HASH_START, t->text, t->text ? strlen(t->text) : 0), h0;
    for (int i = 0; i < t->nengines; i++) {
        const EngineVersion *e = &t->engines[i].engine;
        int64_t limits[3] = {e->limits.depth, (int64_t)e->limits.nodes, e->limits.movetime_ms};
        h = tv_hash_bytes(h, e->params.w, sizeof e->params.w);
        h = tv_hash_bytes(h, limits, sizeof limits);
    }
    h0 = h;
    MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (h0 != h)
        st = tv_fail(err, TV_ERR_ARG,
                     "rank %d read a tournament INI or engine weights that differ from rank 0's: every rank "
                     "must see the same files (a shared file system)",
                     rank);
    if ((st = all_ok(st, err, rank)) != TV_OK)
        goto finalize;
    find_node(info);
    if (on_node)
        on_node(info, node_user);
    /* What shaped this session (run_session.h): every rank's host, threads
     * and cores, gathered on rank 0, which records them as the run ends. */
    {
        RunHost mine, *all = NULL;
        run_session_host_here(&mine, info->threads, info->host, info->node_cores);
        if (rank == 0 && (!(all = calloc((size_t)size, sizeof *all)) || !(session = malloc(sizeof *session))))
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory for the session's hosts");
        MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (rank == 0 && st == TV_OK)
            run_session_begin(session, size, all, size);
        free(all);
        if ((st = all_ok(st, err, rank)) != TV_OK)
            goto finalize;
    }
    if ((st = check_shared_folder(ro->out_path, info, err)) != TV_OK)
        goto finalize;

    /* Every rank starts its separate programs once (a node may lack one)
     * before anything is made on disk: a failed start leaves no part, and
     * no store for a rerun or --resume to trip over. */
    st = name_rank(runner_identify(t, ro->out_path, &ids, err), err, rank);
    if ((st = all_ok(st, err, rank)) != TV_OK)
        goto finalize;

    /* Rank 0 readies the store (merging what an interrupted run left). */
    bool have_store = false;
    if (rank == 0 && (st = h5store_lock_run(ro->out_path, NULL, NULL, &run_lock, err)) == TV_OK)
        st = distrib_prepare_store(ro->out_path, ro->resume, ro->force, t, ro->stop, &have_store, err);
    if (stopped_reading(ro, st, rank, stats)) {
        st = TV_OK;
        goto finalize;
    }
    if ((st = agree(st, err, rank)) != TV_OK)
        goto finalize;

    /* Every rank starts its own part. */
    char options_str[128];
    rule_options_to_str(&t->rules, options_str, sizeof options_str);
    st = h5store_create(part_path, true, ids, t->nengines, t->text, options_str, &part, err);
    st = name_rank(st, err, rank);
    if (rank == 0 && st == TV_OK)
        st = coordinator_open(ro, have_store, ids, &coord, stats, err);
    if (stopped_reading(ro, st, rank, stats)) {
        st = TV_OK; /* this run's parts go (finalize): nothing changed */
        goto finalize;
    }
    if ((st = all_ok(st, err, rank)) != TV_OK)
        goto finalize;

    if (rank == 0) {
        Dispatcher d = {coord, size, 0, 0, 0, 0.0};
        pthread_t thread;
        coordinator_start(coord);
        bool started = size > 1 && pthread_create(&thread, NULL, dispatcher_main, &d) == 0;
        if (size > 1 && !started) { /* the other ranks would wait for ever */
            fprintf(stderr, "error: rank 0: cannot start the dispatcher thread; aborting the job\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        int64_t played = 0, positions = 0;
        st = runner_play(ro, part, coordinator_next, coord, NULL, &played, &positions, err);
        if (st != TV_OK && ro->stop)
            *ro->stop = 1; /* hand out nothing more; the other ranks finish and report */
        if (started)
            pthread_join(thread, NULL);
        stats->store_seconds = h5store_write_seconds(part) + d.store_seconds;
        TvError close_err;
        bool intact = !h5store_write_failed(part); /* may take the session's line (a full disk may not) */
        TvStatus cst = h5store_close(part, &close_err);
        part = NULL;
        intact = intact && cst == TV_OK;
        if (cst != TV_OK && st == TV_OK) {
            *err = close_err;
            st = cst;
        }
        coordinator_finish(coord, stats);
        stats->played = played + d.played;
        stats->positions = positions + d.positions;
        info->ranks_failed += d.failed;
        /* One store: the earlier games and every rank's part, in plan order;
         * not after a signal (nor when one comes during the merge): the
         * parts stay and the next --resume merges them. */
        TvStatus mst = TV_OK;
        if (st == TV_OK && stats->interrupted) {
            info->parts_left = true;
        } else {
            /* A failure may have set *stop to end the games; from here on
             * it means a signal (a failed run merges what it stored
             * whatever comes). */
            if (ro->stop)
                *ro->stop = 0;
            char **parts = malloc(sizeof *parts * (size_t)size);
            char *names = malloc(sizeof part_path * (size_t)size);
            for (int r = 0; parts && names && r < size; r++) {
                parts[r] = names + sizeof part_path * (size_t)r;
                distrib_part_path(ro->out_path, r, parts[r], sizeof part_path);
            }
            double m0 = tv_now_seconds();
            mst = parts && names ? merge_into(ro->out_path, parts, size, t->text, st == TV_OK ? ro->stop : NULL, &info->parts_left,
                                              &info->merged_games, &close_err)
                                 : tv_fail(&close_err, TV_ERR_LIMIT, "out of memory");
            info->merge_seconds = tv_now_seconds() - m0;
            free(names);
            free(parts);
            if (info->parts_left)
                stats->interrupted = true;
            else if (mst == TV_OK && st != TV_OK && !have_store && info->merged_games == 0) {
                /* failed before any game was stored: no empty store is left
                 * in the way of a rerun (as runner_run) */
                if (h5store_remove(ro->out_path, &close_err) == TV_OK)
                    stats->store_removed = true;
            } else if (mst == TV_OK)
                mst = runner_store_sprt(ro, stats, &close_err);
        }
        /* The session's line: in the store, or in rank 0's part when the
         * parts stay (the merge of the next --resume carries it over). */
        if (intact && !stats->store_removed && (mst == TV_OK || info->parts_left))
            run_session_close(session, ro, info->parts_left ? part_path : ro->out_path, stats, st);
        if (mst != TV_OK && st == TV_OK) {
            *err = close_err;
            st = mst;
        }
        if (st == TV_OK && info->ranks_failed > 0)
            st = tv_fail(err, TV_ERR_IO, "%lld rank(s) failed (see their messages); %s holds every game they stored",
                         (long long)info->ranks_failed, ro->out_path);
    } else {
        int64_t played = 0, positions = 0;
        st = name_rank(runner_play(ro, part, remote_next, NULL, NULL, &played, &positions, err), err, rank);
        stats->played = played;
        stats->positions = positions;
        stats->store_seconds = h5store_write_seconds(part);
        TvError close_err;
        TvStatus cst = h5store_close(part, &close_err);
        part = NULL;
        if (cst != TV_OK && st == TV_OK) {
            *err = close_err;
            st = cst;
        }
        /* The part is closed: rank 0 may merge it once every rank said so. */
        double r[4] = {st != TV_OK, (double)played, (double)positions, stats->store_seconds};
        MPI_Send(r, 4, MPI_DOUBLE, 0, TAG_DONE, MPI_COMM_WORLD);
        stats->interrupted = ro->stop && *ro->stop;
    }

finalize:
    if (part) { /* the setup failed: this run's empty part goes */
        TvError close_err;
        h5store_close(part, &close_err);
        remove(part_path);
    }
    coordinator_free(coord);
    free(ids);
    free(session);
    h5store_unlock_run(run_lock);
    stats->wall_seconds = tv_now_seconds() - t_start;
    return st;
}

void distrib_end(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
}
#endif
