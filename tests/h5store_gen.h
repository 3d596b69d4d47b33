/* h5store_gen.h: the stores of test_h5store and test_h5store_crash:
 * generated games (every value follows from the game index), scratch
 * folders, and the store calls that fail the test on an error. */
#ifndef TAVRELI_TEST_H5STORE_GEN_H
#define TAVRELI_TEST_H5STORE_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "h5store.h"

/* The tournament INI and rule options of every generated store. */
extern const char *const INI;
extern const char *const OPTIONS;

/* Game g's number of moves, its /games row, its move k and position k. */
int32_t moves_of(int64_t g);
void make_game(int64_t g, StoredGame *out);
void make_move(int64_t g, int k, StoredMove *out);
void make_position(int64_t g, int k, StoredPosition *out);

/* The rows of games [first, first + n). */
typedef struct {
    int n;
    StoredGame *games;
    StoredMove *moves;
    StoredPosition *positions;
} Batch;
Batch make_batch(int64_t first, int n);
void free_batch(Batch *b);

/* n generated engines. */
void make_engines(StoredEngine *e, int n);

/* Checks that c holds games [0, n) exactly as generated, with offsets chained. */
void check_games(const StoreContents *c, int64_t n, bool with_rows);

/* Appends games [first, first + n) to s. */
void append_range(H5Store *s, int64_t first, int n);

/* A fresh folder under $TMPDIR (or /tmp) and the path of `name` in it. */
typedef struct {
    char dir[256];
    char path[320];
} Scratch;
Scratch scratch(const char *name);
void scratch_remove(const Scratch *s);

/* The store calls, failing the test on an error. */
H5Store *create_store(const char *path, bool force);
void close_store(H5Store *s);
StoreContents read_store(const char *path);

/* The attributes of a generated store. */
void check_attributes(const StoreContents *c);

/* got is an error whose message holds part1 (and part2 when not NULL). */
void expect_error(TvStatus got, const TvError *err, const char *part1, const char *part2);

#endif
