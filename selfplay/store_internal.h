/* store_internal.h: what the files of the HDF5 store share.  The store is
 * split by concern behind h5store.h:
 *   store_schema.c  the datasets, their HDF5 types, attributes, error and
 *                   property helpers;
 *   store_write.c   creating, appending, closing, locking;
 *   store_read.c    reading a store and checking what it holds;
 *   store_chunks.c  decoding the chunks of many rows on every thread;
 *   store_rows.c    the checks of the values of one row (or one game's rows);
 *   store_merge.c   merging stores (and repairing one left by a crash);
 *   store_resume.c  opening a store again to append to it (rewriting one
 *                   left by a crash or by an older version: a merge).
 * The calls go one way: merge uses write, read and rows; resume uses write,
 * read and merge; write uses only schema, read schema and rows.
 * Included by those files only; everyone else uses h5store.h. */
#ifndef TAVRELI_STORE_INTERNAL_H
#define TAVRELI_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "h5store.h"

/* ---- the datasets and their types (store_schema.c) ------------------------------------ */

enum { DS_GAMES, DS_MOVES, DS_POSITIONS, DS_ENGINES, DS_COUNT };

/* A dataset of the schema: one row is one struct of h5store.h; its members
 * (struct StoreField, store_schema.c) are declared once there and give both
 * the native and the packed file type. */
typedef struct StoreField StoreField;
typedef struct {
    const char *name;         /* "games" for /games */
    size_t row_size;          /* sizeof the struct of a row */
    hsize_t chunk_rows;       /* rows per chunk */
    const void *fill;         /* the fill value (a row never written), or NULL */
    const StoreField *fields; /* the members, in stored order */
    int nfields;
} StoreDataset;

/* The four datasets, by DS_ index. */
extern const StoreDataset store_datasets[DS_COUNT];

typedef struct {
    hid_t mem[DS_COUNT];  /* native layout of the structs */
    hid_t file[DS_COUNT]; /* packed copies, as stored */
} StoreTypes;

/* Sets every id to invalid (so that store_types_free is always safe). */
void store_types_init(StoreTypes *t);

/* Makes the memory and file types of the four datasets; false on an HDF5
 * error (then store_types_free releases what was made). */
bool store_types_make(StoreTypes *t);

/* Closes every type that was made and sets the ids to invalid. */
void store_types_free(StoreTypes *t);

/* The native type to read the rows of dataset `which` from the open dataset
 * ds, whatever schema version wrote it: the struct's members that its type
 * has (a new id for the caller to close; invalid on failure).  Members it
 * lacks are left as they are in the buffer (see store_prefill). */
hid_t store_mem_type_for(hid_t ds, int which);

/* Fills n rows of dataset `which` with its fill value (the defaults of
 * members an older store lacks). */
void store_prefill(int which, void *rows, int64_t n);

/* ---- errors and HDF5 helpers (store_schema.c) ----------------------------------------- */

/* tv_fail with the HDF5 detail appended: "PATH: WHAT (hdf5: DETAIL)". */
TvStatus store_h5_fail(TvError *err, TvStatus st, const char *path, const char *what);

/* Turns off HDF5's own error printing (libraries never print). */
void store_quiet_hdf5(void);

/* Closes *h with fn when valid and sets it to invalid. */
void store_close_id(hid_t *h, herr_t (*fn)(hid_t));

/* File access properties with what `flags` asks for (invalid id on
 * failure): the latest file format, and the bound on SWMR metadata retries
 * (a store whose writer was killed fails in about a second, not never). */
enum { STORE_FAPL_LATEST = 1, STORE_FAPL_SWMR_RETRIES = 2 };
hid_t store_fapl(int flags);

/* Dataset access: a chunk cache that holds the chunk being filled. */
hid_t store_dapl_cached(void);

/* Creates the empty dataset `which` in file, extendible, chunked and
 * compressed as the schema says (invalid id on failure, with err set;
 * `path` names the store in messages). */
hid_t store_create_dataset(hid_t file, int which, const StoreTypes *t, TvError *err, const char *path);

/* Number of rows of an open 1-D dataset, or -1. */
int64_t store_dataset_rows(hid_t ds);

/* Selects rows [at, at + n) of ds: *fs its file space with the rows
 * selected, *ms a memory space of n rows, both for the caller to close;
 * false on failure with nothing open. */
bool store_select_rows(hid_t ds, hsize_t at, hsize_t n, hid_t *fs, hid_t *ms);

/* Reads rows [start, start + n) of an open dataset into buf (memory type
 * memtype); true at once when n is 0. */
bool store_read_rows(hid_t ds, hid_t memtype, int64_t start, int64_t n, void *buf);

/* store_read_rows for many rows of a file open for reading only: decodes
 * the chunks on every OpenMP thread when the dataset is laid out as this
 * program writes it, else (or on any failure) store_read_rows.  Worth it
 * from a chunk's rows up; a game's rows at a time are store_read_rows'
 * (HDF5 keeps decoded chunks in its cache).  store_chunks.c. */
bool store_read_rows_decoded(hid_t ds, hid_t memtype, int64_t start, int64_t n, void *buf);

/* Whether store_read_rows_decoded decodes ds's chunks itself for memtype
 * (the layout is one it knows), rather than calling H5Dread. */
bool store_rows_decodable(hid_t ds, hid_t memtype);

/* ---- attributes (store_schema.c) ------------------------------------------------------ */

/* Creates a scalar variable-length UTF-8 string attribute; false on failure. */
bool store_write_string_attr(hid_t obj, const char *name, const char *value);

/* Creates a scalar little-endian int32 attribute; false on failure. */
bool store_write_int_attr(hid_t obj, const char *name, int value);

/* Creates the weight_names attribute (one string per evaluation weight). */
bool store_write_weight_names(hid_t obj);

/* Reads a scalar string attribute (variable or fixed length) into a heap
 * string.  Returns NULL when missing or not a string. */
char *store_read_string_attr(hid_t obj, const char *name);

/* 1 when read, 0 when missing or not an integer, -1 on an HDF5 error. */
int store_read_int_attr(hid_t obj, const char *name, int *value);

/* ---- the store handle (store_write.c, store_resume.c) ----------------------------------- */

struct H5Store {
    char path[1024];
    hid_t file;
    hid_t ds[DS_ENGINES]; /* games, moves, positions: the datasets an append extends */
    StoreTypes types;
    int64_t ngames, nmoves, npositions; /* committed rows */
    hsize_t extent[DS_ENGINES];         /* dataset sizes (may exceed committed rows after a failed append) */
    double write_seconds;
    bool write_failed; /* an append failed (a full disk, say): h5store_write_failed */
    int lock_fd; /* holds a POSIX write lock on the file while it is open for appending */
};

/* ---- writing (store_write.c) ---------------------------------------------------------- */

/* A handle with nothing open, named `path` in messages (NULL when out of memory). */
H5Store *store_alloc(const char *path);

/* Takes a POSIX write lock on the whole file (not HDF5's own flock, which
 * SWMR writing drops).  Returns the fd, or -1 with errno (EAGAIN or EACCES
 * when another process holds it). */
int store_lock_file(const char *path);

/* The error for a failed store_lock_file (errno as it left it). */
TvStatus store_lock_fail(const char *path, TvError *err);


/* PATH.tmp on the heap (NULL when out of memory). */
char *store_tmp_path(const char *path);

/* Builds a complete store at `tmp` (truncating it) with SWMR writing
 * started.  `display` names the store in messages.  On failure nothing is
 * left at tmp. */
TvStatus store_build(const char *tmp, const char *display, const StoredEngine *engines, int nengines,
                     const char *tournament_ini, const char *options_str, const char *program_version,
                     H5Store **out, TvError *err);

/* Closes everything and frees s; returns false when closing the file failed. */
bool store_release(H5Store *s);

/* Refuses (an error) a store that a live process is writing; otherwise
 * TV_OK with *fd the lock on it for the caller to close, or -1 when it
 * could not be taken for another reason (e.g. no such file). */
TvStatus store_lock_unless_live(const char *path, int *fd, TvError *err);

/* ---- reading and checking (store_read.c) ---------------------------------------------- */

/* A repair's way of reading: every /games row checked on its own, the good
 * ones kept (the first of a game index), each row left out reported. */
typedef struct {
    StoreRowFn dropped; /* may be NULL */
    void *user;
    StoreRepairCounts *counts;
    int64_t *rows; /* set by the reading: the /games row of each game kept (heap, for the caller to free) */
} StoreRepair;

/* h5store_read, or with `repair` (then without moves and positions) the
 * repair's reading: games need not follow each other, and a bad row is left
 * out instead of refusing the store.  replay false: the games are not
 * replayed (h5store_read_unreplayed). */
TvStatus store_read_games(const char *path, bool with_moves, bool with_positions, StoreRepair *repair, bool replay,
                          const volatile sig_atomic_t *stop, StoreContents *out, TvError *err);

/* h5store_check_readable that *stop (may be NULL) cuts short with
 * store_stopped's error. */
TvStatus store_check_readable(const char *path, const volatile sig_atomic_t *stop, TvError *err);

/* The error of a reading that a signal cut short: "stopped by a signal
 * while DOING PATH; it was not changed" (TV_ERR_IO). */
TvStatus store_stopped(TvError *err, const char *path, const char *doing);

/* Opens a store file for reading: SWMR read first (a store being written or
 * left by a crash), else plain read-only. */
TvStatus store_open_read(const char *path, hid_t *file, TvError *err);

/* Checks that `file` is a store of this schema: schema_version attribute
 * and the four datasets. */
TvStatus store_check_schema(hid_t file, const char *path, int *schema, TvError *err);

/* Every member that a store of schema version `schema` has (those an older
 * version lacked read as their defaults) is there, of its class; else an
 * error naming the dataset, the member and the file. */
TvStatus store_check_members(hid_t file, const char *path, int schema, TvError *err);

/* The weights member of /engines must have EVAL_NWEIGHTS elements. */
TvStatus store_check_weights(hid_t file, const char *path, TvError *err);

/* TV_OK when a store's tournament_ini attribute (stored_ini) is the
 * tournament's INI text (NULL: empty), else the "another configuration"
 * error. */
TvStatus store_check_config(const char *path, const char *stored_ini, const char *tournament_ini, TvError *err);

/* ---- the values of rows (store_rows.c) ------------------------------------------------ */

/* What is wrong with the values of /games row g (a store of nengines
 * engines), written into why; NULL when nothing is. */
const char *store_game_value_problem(const StoredGame *g, int nengines, char *why, size_t n);

/* What is wrong with one /moves row on its own (NULL: nothing). */
const char *store_move_row_problem(const StoredMove *r);

/* What is wrong with one /positions row on its own (NULL: nothing); the
 * TFEN reader's message goes to detail; with `whole` the TFEN is read, else
 * only its side-to-move field is looked at. */
const char *store_position_row_problem(const StoredPosition *r, bool whole, char *detail, size_t n);

/* A bad row described for a message, with its values, into why. */
void store_describe_move_row(const StoredMove *r, int64_t row, const char *bad, char *why, size_t n);
void store_describe_position_row(const StoredPosition *r, int64_t row, const char *bad, const char *detail, char *why,
                                 size_t n);

/* What is wrong with the values of game g's rows: its moves m (may be
 * NULL) and positions p (may be NULL), written into why; NULL when nothing
 * is.  Moves: a terminated, printable, non-empty string, a score within
 * +-SCORE_INF, no negative depth, node count or time.  Positions: a
 * terminated TFEN (with `whole`, one that reads), its side to move, the
 * game's result from that side's view, a score within +-SCORE_INF. */
const char *store_game_rows_problem(const StoredGame *g, const StoredMove *m, const StoredPosition *p, bool whole,
                                    char *why, size_t n);

#endif
