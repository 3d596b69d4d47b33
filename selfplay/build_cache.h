/* build_cache.h: builds of this project's git revisions, each made once
 * (`tavreli compare`, docs/compare.md).
 *
 * A revision is a commit of a git checkout, or the checkout's working tree.
 * A commit is built in CACHE/COMMIT (a shared clone of the repository at
 * that commit, configured Release, only its `tavreli` target built;
 * COMMIT: its first 12 hex digits) and reused by every later run that asks for it; its record, CACHE/COMMIT/
 * build.txt, keeps the whole commit, the executable's SHA-256 and bench signature, and a reuse
 * checks both.  A working tree with changes (git's "dirty") is built in a
 * folder of its own, CACHE/worktree-HASH, again each time (an incremental
 * build), and its build says "-dirty".  Every build must name the commit it
 * was asked for (its --version), and its bench signature must agree with
 * the record and with a "Bench: N" line of the commit's message (as
 * Stockfish's commits carry one): a build that does not is not the commit
 * it claims, and is refused. */
#ifndef TAVRELI_BUILD_CACHE_H
#define TAVRELI_BUILD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define BUILD_PATH_MAX 1024

/* A revision resolved in its repository. */
typedef struct {
    char repo[BUILD_PATH_MAX]; /* the checkout's top folder */
    char given[128];           /* as the user gave it ("HEAD~1"; "" for the working tree) */
    char commit[41];           /* the commit (HEAD's for the working tree), 40 hex digits */
    bool worktree;             /* the working tree, not a commit */
    bool dirty;                /* ... and it has changes git tracks (git describe's "-dirty") */
    char label[32];            /* the build's name: 12 hex digits of the commit, "-dirty" for a dirty tree */
    char subject[160];         /* the commit's subject line */
    int64_t claimed_bench;     /* the "Bench: N" line of the commit's message; -1 when none */
} BuildRev;

/* Resolves rev (NULL or "" = the working tree: HEAD, dirty when it has
 * changes; a clean working tree is its HEAD commit) in the git checkout
 * that holds the folder dir.  Errors: dir is not in a git checkout, rev is
 * not a commit of it (git's words quoted). */
TvStatus build_cache_resolve(const char *dir, const char *rev, BuildRev *out, TvError *err);

/* A revision built. */
typedef struct {
    char exe[BUILD_PATH_MAX];  /* the tavreli executable */
    char folder[BUILD_PATH_MAX]; /* its folder in the cache (build.log there) */
    int64_t bench;             /* its bench signature (`tavreli bench search`'s nodes) */
    char said_commit[48];      /* the commit its --version names ("" for a build older than that) */
    bool reused;               /* taken from the cache or given, not built now */
    bool prebuilt;             /* ... given: a copy of the executable already built that build_cache_get was offered */
    double seconds;            /* the time the build took (0 when reused) */
} BuiltRev;

/* What a build is doing, for a progress line ("building 1a2b3c4d5e6f in
 * CACHE/1a2b... (log: ...)"); user is the caller's. */
typedef void (*BuildNote)(const char *text, void *user);

/* The build of r in cache_dir (made when missing), with jobs compiler
 * processes (0: as many as cores).  prebuilt (NULL: none) is a tavreli
 * executable already built, the running one say: when its --version says it
 * is r's build as the cache makes it (r's commit, "-dirty" as r is, built
 * Release, from r's git tree: cmake/tavreli_tree.cmake), it is r's build:
 * nothing is built, a copy of it in the cache (CACHE/tree-TREE/tavreli)
 * plays; when it names r's commit but is not, note says why it is built
 * anyway.  Waits while another process builds the
 * same revision.  Errors: git or cmake cannot be run; the build fails (the
 * compiler's last lines quoted, the whole log named); a build from the
 * cache whose executable or bench signature is not what its record says;
 * a build whose --version names another commit; a bench signature that
 * differs from the commit message's "Bench: N". */
TvStatus build_cache_get(const char *cache_dir, const BuildRev *r, const char *prebuilt, int jobs, BuildNote note,
                         void *user, BuiltRev *out, TvError *err);

/* How long a game lasts here, measured by earlier runs with this cache:
 * the wall seconds a game took per game thread at the condition `what`
 * ("tc 10+0.1", "nodes 20000"), the mean over their games, kept in
 * CACHE/timing/WHAT.txt.  False when no run measured it. */
bool build_cache_game_seconds(const char *cache_dir, const char *what, double *seconds, long long *games);

/* Adds a run's measurement (games played, seconds each per thread) to that
 * mean; a failure to write it is ignored (it is only an estimate). */
void build_cache_note_game_seconds(const char *cache_dir, const char *what, double seconds, long long games);

/* The default cache folder: $XDG_CACHE_HOME/tavreli/builds, else
 * $HOME/.cache/tavreli/builds, else .tavreli-builds in the repository. */
void build_cache_default_dir(const char *repo, char *buf, size_t n);

#endif
