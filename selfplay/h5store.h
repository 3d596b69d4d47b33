/* h5store.h: the HDF5 store of a tournament: every game, move, position and
 * outcome, and every engine version.  The layout is documented in docs/store.md
 * ("Layout").  Chunked, compressed, extendible datasets of compound
 * types, readable with h5dump, h5py and pandas.
 *
 * Crash safety: the file is written in SWMR mode (HDF5 >= 1.10, libver
 * latest), which orders metadata flushes so that the file on disk is always
 * consistent as of the last flush.  Games are appended in batches and each
 * batch ends with a flush.  After a crash (kill -9) the file opens with
 * h5store_read (which uses SWMR read access, as h5py's swmr=True does),
 * and h5store_open_append repairs the left-over "open for writing" flag by
 * rewriting the file from what it holds. */
#ifndef TAVRELI_H5STORE_H
#define TAVRELI_H5STORE_H

#include <signal.h>
#include <stdint.h>

#include "atomic_file.h"
#include "eval.h"
#include "status.h"

/* Version 2 added /moves.time_ms and clock_ms, /engines.kind, command, tc
 * and timemargin_ms, and the root attribute reproducible; version 3 added
 * /games.stored_at; version 4 the engine identity (/engines.version,
 * commit, exe_path, exe_sha256, exe_size, id_name, id_author, options;
 * settings' booleans as yes/no); version 5 /engines.bench (a program's
 * bench signature).  Stores of every
 * version from H5STORE_SCHEMA_OLDEST on are read (fields a version lacks
 * read as their defaults: -1 for times, 0 or "" otherwise; a field that the
 * store's own version has is required); appending to an older store first
 * rewrites it in the current version. */
#define H5STORE_SCHEMA_VERSION 5
#define H5STORE_SCHEMA_OLDEST 1
#define H5STORE_TFEN_LEN 192 /* fixed-length TFEN strings (NUL-padded) */
#define H5STORE_MOVE_LEN 16

/* /games: one row per game. */
typedef struct {
    int64_t index;      /* game index in the plan */
    int32_t pairing;
    int32_t white;      /* engine index in /engines */
    int32_t black;
    int32_t opening;
    char start_tfen[H5STORE_TFEN_LEN];
    int8_t result;      /* 1 White won, 0 draw, -1 Black won */
    int8_t termination; /* Termination (outcome.h) */
    int32_t plies;
    uint64_t seed;
    double wall_time;   /* seconds */
    int64_t move_offset; /* first row in /moves (set by the store) */
    int32_t move_count;
    int64_t position_offset; /* first row in /positions (set by the store) */
    int32_t position_count;
    int64_t stored_at;  /* when it was written to the store: Unix time in seconds (UTC), set by
                           h5store_append when 0 (a copy keeps it); -1 in stores made before this field */
} StoredGame;

/* /moves: one row per move. */
typedef struct {
    int64_t game;       /* game index */
    int32_t ply;
    char move[H5STORE_MOVE_LEN]; /* docs/rules.md notation, with + / x suffix */
    int32_t score;      /* mover's score (cp, or mate scores as in search.h) */
    int32_t depth;
    int64_t nodes;
    int32_t time_ms;    /* the mover's thinking time in milliseconds (-1: not recorded) */
    int32_t clock_ms;   /* the mover's clock after the move, increment included (-1: no clock) */
} StoredMove;

/* /positions: what the tuner needs, one row per position before each move. */
typedef struct {
    int64_t game;
    int32_t ply;
    char tfen[H5STORE_TFEN_LEN];
    int8_t side;        /* 0 White, 1 Black to move */
    int32_t score;      /* the search score of the side to move */
    float result;       /* game result from the side to move's view: 1, 0.5, 0 */
} StoredPosition;

/* /engines: one row per engine version (player) of the tournament. */
typedef struct {
    char name[64];      /* the tournament's name for the player ([engine NAME]) */
    char path[256];     /* its engine INI, as given ("" for a separate program) */
    int32_t weights[EVAL_NWEIGHTS]; /* the evaluation weights (0 for a separate program) */
    int32_t depth;      /* limits (0 = none) */
    int64_t nodes;
    int32_t movetime_ms;
    int8_t kind;        /* 0 the built-in engine, 1 a random mover, 2 a separate program (protocol) */
    char command[256];  /* a separate program's command line ("" otherwise) */
    char tc[32];        /* its time control, "BASE+INC" or "MOVES/BASE+INC" in seconds ("" = none) */
    int32_t timemargin_ms; /* grace over the clock before a time loss is called */
    char settings[1024]; /* the built-in engine's search settings, "name=value ..." in search.def
                            order, booleans yes/no ("" for other kinds, and in stores made before
                            this field; 0/1 before schema 4, read as yes/no) */
    /* Schema 4: which build played (engine_id.h; "" or -1: unknown, not compared) */
    char version[64];   /* the built-in engine: the tavreli that played it (git describe) */
    char commit[32];    /* the commit of the build that played: this tavreli's for the built-in
                           engine, the one a tavreli program names in its id name ("-dirty": a
                           modified tree) */
    char exe_path[256]; /* a program: the executable its command runs, resolved */
    char exe_sha256[65]; /* ... its SHA-256, in hex */
    int64_t exe_size;   /* ... its size in bytes (-1 otherwise) */
    char id_name[128];  /* a program: the id name it announced */
    char id_author[128]; /* ... and its id author */
    char options[1024]; /* a program: the options it was given, "NAME=VALUE ..." sorted by name (read
                           from the stored INI's option.NAME lines before schema 4) */
    char options_in_effect[4096]; /* ... every option it declared with the value in effect (the one
                           given, else its declared default), "NAME=VALUE ..." sorted by name: a
                           program whose defaults changed (tavreli uci --engine X.ini, X.ini
                           edited) is another version */
    /* Schema 5 */
    int64_t bench;      /* a program's bench signature: the node count its bench command printed
                           (a tavreli build's `bench search`, or the tournament's bench = COMMAND);
                           -1 when none was measured */
} StoredEngine;

/* True when a store of these engines holds reproducible games: only depth
 * and node limits, no movetime, time control or separate program. */
bool h5store_engines_reproducible(const StoredEngine *engines, int nengines);

typedef struct H5Store H5Store;

/* Creates a new store (refuses an existing file unless force), writes the
 * engines and the attributes: tournament INI text, rule options string,
 * program version and schema version.  The weight names are stored as an
 * attribute of /engines ("weight_names"). */
TvStatus h5store_create(const char *path, bool force, const StoredEngine *engines, int nengines,
                        const char *tournament_ini, const char *options_str, H5Store **out, TvError *err);

/* Opens an existing store to append more games (for --resume).  Checks the
 * schema version and that its tournament INI text equals tournament_ini
 * (else an error: "the store was made by another configuration").  Repairs
 * a store left by a crash (see above). */
TvStatus h5store_open_append(const char *path, const char *tournament_ini, H5Store **out, TvError *err);

/* h5store_open_append that a signal cuts short: *stop (may be NULL) is
 * looked at while the store is read and checked (seconds for a big store)
 * and while one left by a crash is rewritten.  Once it is set the store is
 * left as it was and the result is an error ("stopped by a signal while
 * ..."): the caller tells it from a failure by *stop. */
TvStatus h5store_open_append_stoppable(const char *path, const char *tournament_ini, const volatile sig_atomic_t *stop,
                                       H5Store **out, TvError *err);

/* Appends finished games with their moves and positions (arrays of all the
 * games' moves/positions in game order; each game's move_count and
 * position_count say how many are its own), then flushes.  Sets the offsets. */
TvStatus h5store_append(H5Store *s, StoredGame *games, int ngames, const StoredMove *moves,
                        const StoredPosition *positions, TvError *err);

/* Whether an h5store_append of s failed (a full disk, say): nothing more
 * should be written to the file, not even an attribute once it is closed
 * (HDF5 does not recover from a close that fails). */
bool h5store_write_failed(const H5Store *s);

/* Seconds spent inside h5store_append so far (for the 3% budget). */
double h5store_write_seconds(const H5Store *s);

TvStatus h5store_close(H5Store *s, TvError *err);

/* Sets (creates or replaces) string attributes of the root group of a closed
 * store, e.g. "sprt" and "sprt_result" at the end of an SPRT run (SWMR
 * writing cannot add attributes, so this reopens the file normally). */
TvStatus h5store_set_attributes(const char *path, const char *const *names, const char *const *values, int n,
                                TvError *err);

/* Adds the lines of `lines` (one or more, '\n'-separated) that it does not
 * hold yet to the string attribute `name` of the root group of a closed
 * store (made when missing), in order: a store's "sessions"
 * (run_session.h), which a merge unites. */
TvStatus h5store_add_lines(const char *path, const char *name, const char *lines, TvError *err);

/* Writes one store at out_path holding every complete game of the stores
 * `inputs` (out_path itself may be one of them), in ascending game index,
 * each index once (the first input holding it wins: a merge cut short may
 * leave a game in two inputs).  All inputs must come from tournament_ini
 * and the same engine versions.  The result is built under OUT.tmp and
 * renamed over out_path, so a crash leaves the old file or the new one;
 * the inputs are left alone (the caller removes them).  Keeps an input's
 * sprt/sprt_result attributes.  Streams: holds the inputs' /games rows and
 * one batch of games' moves and positions at a time.  Keeps the games a
 * reader keeps (a torn last append of an input is dropped). */
TvStatus h5store_merge(const char *out_path, const char *const *inputs, int ninputs, const char *tournament_ini,
                       int64_t *ngames_out, TvError *err);

/* h5store_merge that a signal can cut short at no cost: *stop (set by a
 * signal handler; may be NULL) is looked at before each input is read and
 * before each game is copied.
 * Once it is set, OUT.tmp is removed, out_path and the inputs are left as
 * they were, and TV_OK is returned with *stopped true (and *ngames_out 0);
 * otherwise *stopped is false and the merge is h5store_merge's. */
TvStatus h5store_merge_stoppable(const char *out_path, const char *const *inputs, int ninputs,
                                 const char *tournament_ini, const volatile sig_atomic_t *stop, bool *stopped,
                                 int64_t *ngames_out, TvError *err);

/* A /games row that a repair leaves out: its row, the game index it holds
 * and why. */
typedef void (*StoreRowFn)(int64_t row, int64_t game, const char *why, void *user);

typedef struct {
    int64_t rows;       /* /games rows of the damaged store */
    int64_t kept;       /* good games copied */
    int64_t bad;        /* rows left out: damaged, or never written */
    int64_t duplicates; /* good rows left out: a game index already kept */
} StoreRepairCounts;

/* Writes at out_path (which must not exist, unless force) a new store
 * holding every good game of the damaged store `in`: each /games row whose
 * own moves and positions exist and name it, in ascending game index, the
 * first row of a game index kept; rows left out are reported to `dropped`
 * (may be NULL) and counted.  `in` is left untouched.  Errors: `in` is not
 * a readable store (its attributes or datasets), out_path exists, a write
 * fails. */
TvStatus h5store_repair(const char *in, const char *out_path, bool force, StoreRowFn dropped, void *user,
                        StoreRepairCounts *counts, TvError *err);

/* The path to write a store at: path itself, or, when it is a symbolic
 * link, the file it points to (a resume or a merge then writes through the
 * link instead of replacing it with a file of its own).  Errors: a link
 * whose target does not exist or cannot be reached. */
TvStatus h5store_resolve_path(const char *path, char *buf, size_t n, TvError *err);

/* The run lock: one run at a time on a store.  A run that creates,
 * replaces, resumes or merges the store at path holds it from before it
 * looks at the file until it has closed it: PATH.lock beside it, locked
 * with fcntl (also over NFS), holding "PID HOST".  Taking it, a second run
 * is refused: "PATH is in use by another run (pid N on HOST holds
 * PATH.lock): wait until it ends, or stop it ...".  The file is removed
 * when the run lets the lock go (one left by a run that was killed is
 * taken over: the kernel let its lock go).
 * Holding it, the temporary stores PATH.tmp-PID-N that a creation killed
 * before its link left are removed when process PID is gone, each reported
 * to `removed` (may be NULL). */
typedef TvLock H5RunLock; /* core/atomic_file.h's lock of an output */
typedef TvLeftoverFn H5LeftoverFn;
TvStatus h5store_lock_run(const char *path, H5LeftoverFn removed, void *user, H5RunLock **lock, TvError *err);
void h5store_unlock_run(H5RunLock *lock); /* NULL: nothing */

/* TV_OK unless a live process is writing the store (it holds the lock). */
TvStatus h5store_check_not_live(const char *path, TvError *err);

/* Whether a live process is writing the store, asked without taking any
 * lock or opening it for writing (for readers such as `tavreli serve`): its
 * pid (-1 when the lock is held over a network filesystem that does not
 * say by whom), or 0 when none is (or the file cannot be opened). */
long h5store_writer_pid(const char *path);

/* Removes a store (for --force), unless a live process is writing it. */
TvStatus h5store_remove(const char *path, TvError *err);

/* ---- reading ----------------------------------------------------------------- */

typedef struct {
    int schema_version;
    char *tournament_ini;  /* heap */
    char *options;         /* heap */
    char *program_version; /* heap */
    char *sprt;            /* heap, NULL when absent: "elo0=E0 elo1=E1 alpha=A beta=B" (normalized Elo) */
    char *sprt_result;     /* heap, NULL when absent: the decision of a finished SPRT run */
    char *sessions;        /* heap, NULL when absent: one line per session that ended (run_session.h) */
    int nengines;
    StoredEngine *engines; /* heap */
    bool reproducible;     /* root attribute "reproducible" (stores of version 1: true) */
    uint64_t tournament_id; /* a hash of the settings of tournament_ini that decide games (comments,
                               blanks, name, pairs and threads left out): see h5store_game_id */
    int64_t ngames;
    StoredGame *games;     /* heap, in stored order */
    int64_t torn_rows;     /* /games rows of an append cut short by a crash, left out */
    int64_t nmoves;
    StoredMove *moves;     /* heap (NULL unless asked for) */
    int64_t npositions;
    StoredPosition *positions; /* heap (NULL unless asked for) */
} StoreContents;

/* The one reader of a store, used by every command.  Reads a store (also one
 * left by a crash, or being written) and checks every member its schema
 * version requires and every /games row: a valid game index (each once),
 * counts equal to its plies, offsets that follow the previous game's rows,
 * /moves and /positions rows that exist and name the game with plies 0, 1,
 * ... (each position's result the game's from its side), and its values
 * (engines, result, termination, start TFEN: docs/store.md); the values of
 * the /moves and /positions rows loaded too.  /moves and /positions are
 * read only as far as the games reach.  Rows of an append that a crash cut short
 * (the last rows, never written) are left out and counted in torn_rows; any
 * other bad row is an error naming the row and the reason, so that a
 * command either reads every game of the store or refuses it.
 * with_moves/with_positions choose whether the large datasets are loaded
 * (their game and ply columns are checked either way).  Errors: not an HDF5
 * file, a schema version this program does not read, missing datasets, a
 * damaged row. */
TvStatus h5store_read(const char *path, bool with_moves, bool with_positions, StoreContents *out, TvError *err);

/* h5store_read without the replay of the games: for `tavreli verify`,
 * which replays every game itself and lists every problem (the reader
 * names the first and refuses the store). */
TvStatus h5store_read_unreplayed(const char *path, bool with_moves, bool with_positions, StoreContents *out,
                                 TvError *err);

/* h5store_read that a signal cuts short: *stop (may be NULL; set by a
 * signal handler) is looked at before each game's rows are checked, so the
 * reading ends within milliseconds of it (a 100,000-game store takes
 * seconds).  Then the result is an error ("stopped by a signal while
 * reading PATH; it was not changed") with nothing read: the caller tells it
 * from a damaged store by *stop. */
TvStatus h5store_read_stoppable(const char *path, bool with_moves, bool with_positions,
                                const volatile sig_atomic_t *stop, StoreContents *out, TvError *err);

/* A game's identity across stores, for counting a game that two stores hold
 * (a copy, an overlapping part) once: its tournament's settings
 * (c->tournament_id), its game index and its two players' names, with its
 * start position, length and result as a guard. */
uint64_t h5store_game_id(const StoreContents *c, const StoredGame *g);

/* Reads every row of every dataset of a store (of /moves and /positions,
 * as far as the /games rows reach), whole, a block at a time, keeping
 * nothing: TV_OK when all of it decompresses and reads and the values of
 * the /moves and /positions rows pass the reader's checks (what --resume
 * checks before counting a store's games as played). */
TvStatus h5store_check_readable(const char *path, TvError *err);

void h5store_contents_free(StoreContents *c);

#endif
