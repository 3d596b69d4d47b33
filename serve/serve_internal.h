/* serve_internal.h: what the parts of the server share (internal to
 * serve/): server.c (HTTP, routes, pages, the report cache), serve_runs.c
 * (finding runs under DIR and what the runs list says of each),
 * serve_games.c (a run's games, one game for the viewer, its TGN). */
#ifndef TAVRELI_SERVE_INTERNAL_H
#define TAVRELI_SERVE_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "serve.h"

/* What identifies a file's state: a store being written changes size or
 * mtime at every flush, so an entry cached under an old signature is read
 * again. */
typedef struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    int64_t mtime_ns;
} FileSig;

/* One store's summary as the runs list shows it, cached by its signature. */
typedef struct {
    char id[PATH_MAX];  /* path under DIR */
    FileSig sig;
    bool seen;          /* found by the latest scan (entries not seen are dropped) */
    char *fields;       /* JSON members that depend on the file only (heap) */
    char *error;        /* the reader's refusal: a damaged store (heap, NULL otherwise) */
    int64_t games, planned;
    double gpm;         /* games a minute lately (NAN: unknown) */
    bool decided;       /* its SPRT decided (the sprt_result attribute) */
    char last_end[16];  /* how its last recorded session ended ("" none) */
    char resume[PATH_MAX + 256]; /* the command that continues it ("" unknown) */
} StoreEntry;

/* A run's detail (GET /api/run), cached by its store's signature. */
typedef struct {
    char id[PATH_MAX];
    FileSig sig;
    char *json; /* heap */
} DetailEntry;

#define SERVE_DETAIL_CACHE 8
#define SERVE_MAX_STORES 4096 /* stores a runs list shows (a folder with more is cut, and says so) */

struct Server {
    char dir[PATH_MAX];      /* DIR as resolved (realpath) */
    char dir_shown[PATH_MAX]; /* DIR as given, for commands shown to the user */
    char cache[PATH_MAX];    /* the server's own folder for reports (a temporary folder) */
    struct MHD_Daemon *d;
    int port;
    /* One request at a time past this point: the HDF5 library is not built
     * thread-safe in Debian, and the caches are shared.  Each answer takes
     * milliseconds (a report with its plots, a few hundred). */
    pthread_mutex_t mu;
    StoreEntry *stores;
    int nstores, capstores;
    double deadline; /* the runs list being answered reads stores until then (monotonic seconds; 0: no limit) */
    DetailEntry detail[SERVE_DETAIL_CACHE];
    int next_detail;
    /* the report cache: one folder per run under cache/, remade when the
     * run's signature changes and the last one is older than
     * SERVE_REPORT_AGE seconds */
    struct ReportCache *reports;
    int nreports, capreports;
};

/* DIR/rel as a path the server may read: rel is relative (no leading
 * '/'), has no "." or ".." component and no empty one, and once every
 * symbolic link is followed it still lies inside DIR.  Errors name what
 * was refused (TV_ERR_ARG) or that it does not exist (TV_ERR_IO). */
TvStatus serve_path(const Server *s, const char *rel, char *abs, size_t n, TvError *err);

/* Reads a file's signature; false when it cannot be read. */
bool serve_file_sig(const char *path, FileSig *sig);

/* `, "k": "v"` and `, "k": x` (a JSON string, a number or null) onto o. */
void serve_kv_str(StrBuf *o, const char *k, const char *v);
void serve_kv_num(StrBuf *o, const char *k, double v);

/* ---- serve_runs.c ---------------------------------------------------------- */

/* GET /api/runs (also serve_runs_json). */
TvStatus serve_runs(Server *s, StrBuf *out, TvError *err);

/* GET /api/run?run=ID: the run's list entry and its detail.  Errors: an
 * ID that is not a run under DIR (TV_ERR_ARG), a damaged store (its entry
 * says so: the answer is still TV_OK). */
TvStatus serve_run(Server *s, const char *id, StrBuf *out, TvError *err);

/* The kind of run at DIR/id: "tournament" (a store), "train", "spsa", or
 * NULL when it is none. */
const char *serve_run_kind(const char *abs);

/* ---- serve_games.c --------------------------------------------------------- */

/* GET /api/games?run=ID: the games of a store. */
TvStatus serve_games(Server *s, const char *id, StrBuf *out, TvError *err);

/* GET /api/game?run=ID&game=INDEX: one game, every position after every
 * move, for the viewer. */
TvStatus serve_game(Server *s, const char *id, const char *game, StrBuf *out, TvError *err);

/* GET /tgn?run=ID&game=INDEX: its TGN record. */
TvStatus serve_tgn(Server *s, const char *id, const char *game, StrBuf *out, TvError *err);

#endif
