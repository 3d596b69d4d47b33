/* atomic_file.h: files the project writes appear whole or not at all.
 *
 * Every output (tuned engine INIs, TGN exports, digests, reports, tuning
 * logs, training files) is written to a new temporary file beside its path
 * and renamed over it only once everything is written, flushed and synced:
 * a full disk, an I/O error or a kill leaves the old file (or none), never
 * half of one.  Messages name the user's path, never the temporary one.
 *
 *     TvAtomicFile a;
 *     if (tv_atomic_open(&a, path, "tuning log", err) != TV_OK) return ...;
 *     fprintf(a.f, ...);
 *     return tv_atomic_commit(&a, err);   (or tv_atomic_abort(&a) on an error)
 *
 * The temporary file is PATH.tmp-PID-N (N counts attempts), created with
 * O_EXCL, so two writers of one path (two processes, or two threads) never
 * share one.  When PATH is a symbolic link, the file it names is replaced
 * (the link stays). */
#ifndef TAVRELI_ATOMIC_FILE_H
#define TAVRELI_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "status.h"

#define TV_PATH_MAX 4096

typedef struct {
    FILE *f;                    /* write here; NULL once committed or aborted */
    char path[TV_PATH_MAX];     /* the user's path */
    char target[TV_PATH_MAX];   /* the file replaced: path, or the file a symbolic link at path names */
    char tmp[TV_PATH_MAX + 32]; /* the temporary file beside the target */
    const char *what;           /* "tuning log": names the file in messages */
} TvAtomicFile;

/* Creates the temporary file for path.  Errors (TV_ERR_IO) name path:
 * "PATH: cannot write the WHAT: REASON" (no such folder, permission, a
 * directory at PATH). */
TvStatus tv_atomic_open(TvAtomicFile *a, const char *path, const char *what, TvError *err);

/* Refuses an output path that would replace something read or kept:
 * the same file (device and inode, through links) as one of inputs[0 ..
 * ninputs-1] ("PATH is the same file as the input INPUT: the WHAT would
 * replace it"), or an existing HDF5 file, the format of the stores, which no
 * text output replaces ("PATH is an HDF5 file (a store?): the WHAT would
 * replace it").  Errors: TV_ERR_ARG.  A writer calls it before its work
 * begins; tv_atomic_open makes the HDF5 check itself. */
TvStatus tv_output_check(const char *path, const char *const *inputs, int ninputs, const char *what, TvError *err);

/* Flushes, syncs and closes the temporary file and renames it over path.
 * On any failure (a write that failed earlier included: a full disk) the
 * temporary file is removed, path is left as it was, and the error names
 * path with the reason ("No space left on device"). */
TvStatus tv_atomic_commit(TvAtomicFile *a, TvError *err);

/* Closes and removes the temporary file; path is left as it was.  Safe
 * after a commit or an abort. */
void tv_atomic_abort(TvAtomicFile *a);

/* The whole of text (len bytes) to path, atomically. */
TvStatus tv_atomic_write(const char *path, const char *what, const char *text, size_t len, TvError *err);

/* For files that another library opens by name (HDF5): creates an empty
 * new temporary file beside path (PATH.tmp-PID-N, O_EXCL) and puts its name
 * in tmp (n bytes). */
TvStatus tv_temp_beside(const char *path, const char *what, char *tmp, size_t n, TvError *err);

/* Gives the finished file tmp the name path.  With replace, an existing
 * path is replaced (rename).  Without, path must not exist: it is created
 * by link() (or renameat2 RENAME_NOREPLACE where the file system has no
 * hard links), so that of two processes creating one path exactly one
 * succeeds; the other gets "PATH already exists" (TV_ERR_IO, errno EEXIST
 * in *why_errno when not NULL) and its tmp is left for the caller to
 * remove.  On success tmp no longer exists. */
TvStatus tv_publish(const char *tmp, const char *path, bool replace, int *why_errno, TvError *err);

/* ---- outputs that belong together -------------------------------------------------------
 * A tuned INI and its tuning log, or the files of a report folder: a kill
 * between two renames must not leave a new one beside an old one.  Each is
 * first written whole as a temporary file (tv_atomic_finish, or the files
 * of a stage), then tv_commit_group writes the journal OUTPUT.commit (the
 * pairs temporary -> final name, as absolute paths, and its pid), syncs it,
 * renames every file and removes the journal.  A run killed in between
 * leaves the journal and the temporary files: the next holder of OUTPUT's
 * lock (tv_lock_output) completes the renames before it does anything
 * else, so the group is seen whole, new or old, by the next run and from
 * then on.  The caller holds OUTPUT's lock. */

/* Flushes, syncs and closes a's temporary file (a->tmp) without renaming
 * it: a member of a group.  On a failure the temporary file is removed and
 * the error names a->path. */
TvStatus tv_atomic_finish(TvAtomicFile *a, TvError *err);

/* Renames tmps[i] to targets[i] (i < n) as one group under the journal
 * OUTPUT.commit (see above).  Errors name targets[i] (TV_ERR_IO); a
 * failure before the first rename removes every temporary file. */
TvStatus tv_commit_group(const char *output, const char *const *tmps, const char *const *targets, int n,
                         TvError *err);

/* A folder of outputs (a report: its Markdown, HTML, plots and their data)
 * replaced as one group: the run writes every file into the stage
 * DIR/.stage-PID-N, then tv_stage_commit moves them into DIR with
 * tv_commit_group (journal DIR.commit), the files named in `last` last, so
 * a killed or failed run leaves the old folder as it was (a file of DIR
 * the run does not write stays).  The caller holds DIR's lock. */
typedef struct {
    char dir[TV_PATH_MAX];        /* the user's folder, no trailing '/' */
    char stage[TV_PATH_MAX + 40]; /* where the run writes */
    bool made;                    /* DIR did not exist before: an abort removes it when empty */
} TvStage;

/* Makes DIR (mkdir -p, "cannot create the WHAT DIR") and an empty stage in
 * it; removes the stages that killed runs left there. */
TvStatus tv_stage_open(TvStage *s, const char *dir, const char *what, TvError *err);

/* Syncs every file of the stage and moves them into DIR as one group, the
 * names in last (NULL-terminated, may be NULL) after all others and in
 * that order; removes the stage.  On a failure the stage is removed (see
 * tv_stage_abort), unless its renames had begun: then the journal names
 * its files and the stage stays for the next holder of DIR's lock to
 * complete. */
TvStatus tv_stage_commit(TvStage *s, const char *const *last, TvError *err);

/* Removes the stage and its files (and DIR, when tv_stage_open made it and
 * nothing else is in it); DIR keeps its old files.  A file named
 * in keep (NULL-terminated, may be NULL; a log a message points to) is
 * moved into DIR first.  When err holds a message naming the stage, it is
 * made to name DIR (a message names the user's folder, never a temporary
 * one). */
void tv_stage_abort(TvStage *s, const char *const *keep, TvError *err);

/* ---- one writer per output ---------------------------------------------------------
 * Of two runs writing one output (a store, a tuned INI and its log, a
 * report folder, an export) exactly one wins: the lock is PATH.lock, a
 * POSIX write lock on a file holding "PID HOST" of its holder, removed by
 * the holder as it ends (a killed holder leaves an unlocked file, which the
 * next run takes).  The loser gets TV_ERR_IO: "PATH is in use by another run
 * (pid N on HOST holds PATH.lock): ADVICE".  Once it holds the lock, a run
 * removes the temporary files PATH.tmp-PID-N that dead writers left (each
 * reported to removed, which may be NULL). */
typedef struct TvLock TvLock;
typedef void (*TvLeftoverFn)(const char *leftover, long pid, void *user);
TvStatus tv_lock_output(const char *path, const char *advice, TvLeftoverFn removed, void *user, TvLock **out,
                       TvError *err);
void tv_unlock_output(TvLock *lock); /* NULL: nothing */

/* Creates dir and its parents (mkdir -p).  Errors: a part cannot be created
 * or dir is not a directory (TV_ERR_IO: "cannot create the WHAT DIR:
 * REASON", what e.g. "output directory"), out of memory (TV_ERR_LIMIT). */
TvStatus tv_make_dirs(const char *dir, const char *what, TvError *err);

#endif
