/* run_session.h: what shaped a session of a tournament (one run of
 * `tavreli selfplay`, from its start or from --resume to its end): when it
 * ran, which build ran it, on which hosts with how many ranks, threads and
 * cores, how loaded they were as it began, how it ended, how many games it
 * stored, and each engine's waits before readyok (time on no clock).
 *
 * A store keeps one line per session in its root attribute "sessions"
 * (docs/store.md, "Sessions"); the line is written and read here, side by
 * side, and nowhere else:
 *
 *   began=1765015200 ended=1765015321 end=finished games=60 version=v0.9-12-gabc
 *   build=Release tree=4d29a884... ranks=2 host=vm,2,4,2,1.52 wait=0,2000,340,12000 ...
 *
 * host=NAME,RANKS,THREADS,CORES,LOAD (one per host: its ranks of the run,
 * their game threads in all, the cores they may use, its 1-minute load
 * average as the session began, -1 when unknown); wait=ENGINE,TOTAL_MS,
 * MAX_MS,THINK_MS (one per engine that played: its waits before readyok in
 * all, the longest, and its thinking time on the same moves).  Keys a
 * reader does not know are passed over (a newer program's), a malformed
 * value is an error.  A session killed (kill -9, power loss) leaves no line:
 * the session writes its line as it ends. */
#ifndef TAVRELI_RUN_SESSION_H
#define TAVRELI_RUN_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "runner.h"
#include "status.h"
#include "strbuf.h"

#define RUN_SESSION_MAX_HOSTS 64

typedef struct {
    char name[64];  /* host name (MPI_Get_processor_name, or gethostname) */
    int ranks;      /* ranks of the run on it */
    int threads;    /* their game threads in all */
    int cores;      /* the cores they may use */
    double load;    /* its 1-minute load average as the session began; -1 unknown */
} RunHost;

typedef struct {
    int engine;       /* index in the tournament */
    int64_t total_ms; /* its waits before readyok in all */
    int64_t max_ms;   /* the longest */
    int64_t think_ms; /* its thinking time on the same moves */
} RunWait;

typedef struct {
    int64_t began, ended; /* Unix time in seconds */
    char end[16];         /* "finished", "stopped" (a signal), "failed" */
    int64_t games;        /* games it stored */
    char version[64];     /* the program's version (git describe) */
    char build[48];       /* its build type ("Release", "Release+sanitize") */
    char tree[48];        /* the git tree it was built from ("unknown" when not known) */
    int ranks;
    int nhosts;
    RunHost hosts[RUN_SESSION_MAX_HOSTS];
    int nwaits;
    RunWait waits[TOURNAMENT_MAX_ENGINES];
} RunSession;

/* This process's host as a session begins: its name (name, or
 * gethostname's when NULL), 1 rank, `threads` game threads, `cores` cores
 * (when <= 0: what its affinity mask allows), the load average. */
void run_session_host_here(RunHost *h, int threads, const char *name, int cores);

/* Starts s: now, this build, ranks, and the hosts (nhosts of them; a host
 * named twice is one host with their ranks and threads added). */
void run_session_begin(RunSession *s, int ranks, const RunHost *hosts, int nhosts);

/* Ends s: now, how ("finished", "stopped", "failed"), the games it stored,
 * and the waits of the engines (0 .. nengines-1) that played. */
void run_session_end(RunSession *s, const char *end, int64_t games, const ReadyWaits *w, int nengines);

/* s as one line (no newline) onto out. */
void run_session_format(const RunSession *s, StrBuf *out);

/* Every session of a "sessions" attribute (lines; NULL or "" gives none)
 * into *out (heap, caller frees), *n of them.  Errors (TV_ERR_PARSE): a
 * malformed value, naming the line and the key. */
TvStatus run_sessions_parse(const char *text, RunSession **out, int *n, TvError *err);

/* Adds s's line to the store's "sessions" attribute (the store closed). */
TvStatus run_session_record(const char *store_path, const RunSession *s, TvError *err);

/* The end of a run's session: run_session_end with how the run ended
 * (stats->interrupted: "stopped"; st not TV_OK: "failed"; else
 * "finished"), the games it stored and its waits, and the line added to
 * the closed store at store_path.  A store that cannot take it gets a note
 * through ro->note (the games are safe; the run's status is not changed). */
void run_session_close(RunSession *s, const RunOptions *ro, const char *store_path, const RunStats *stats,
                       TvStatus st);

/* Whether an engine's waits before readyok deserve a note: 1 s or more in
 * all and at least 5% of its thinking time (an engine that answers
 * isready at once waits well under 1 ms a move; the issue that led here
 * was one that waited 2 s before each readyok of 10 ms moves). */
bool run_wait_notable(int64_t total_ms, int64_t think_ms);

#endif
