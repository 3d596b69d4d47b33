#define _POSIX_C_SOURCE 200809L
/* test_store_chunks.c: the store's own chunk decoder (selfplay/store_chunks.c)
 * reads the same bytes as H5Dread.
 *
 *  - the datasets this program writes are decoded by it (not handed back
 *    to H5Dread), in full and in any range of rows: aligned or not to the
 *    chunks, one row, the last row, across chunk bounds, and into a memory
 *    type of a few members (the keys a scan reads);
 *  - other layouts made from the same store with h5repack are read the
 *    same: no filters, deflate without shuffle and other chunk sizes are
 *    decoded; a contiguous dataset and a Fletcher-32 checksum are left to
 *    H5Dread; h5store_read gives the same games from each;
 *  - a chunk whose compressed bytes are damaged: the decoder gives way to
 *    H5Dread, which fails as it did before, and h5store_read says which
 *    dataset it could not read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hdf5.h>

#include "h5store.h"
#include "h5store_gen.h"
#include "store_internal.h"

enum { GAMES = 1000 };

typedef struct {
    Scratch dir;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    f->dir = scratch("chunks.h5");
    H5Store *s = create_store(f->dir.path, false);
    append_range(s, 0, GAMES / 2);
    append_range(s, GAMES / 2, GAMES / 2);
    close_store(s);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    scratch_remove(&f->dir);
    free(f);
    return 0;
}

/* Rows [at, at + n) of dataset `which` of file read both ways into buffers
 * prefilled alike: the same bytes. */
static void same_rows(hid_t file, int which, hid_t mt, size_t row, int64_t at, int64_t n)
{
    hid_t ds = H5Dopen2(file, store_datasets[which].name, H5P_DEFAULT);
    assert_true(ds >= 0);
    char *a = malloc((size_t)n * row), *b = malloc((size_t)n * row);
    memset(a, 0xA5, (size_t)n * row);
    memset(b, 0xA5, (size_t)n * row);
    assert_true(store_read_rows(ds, mt, at, n, a));
    assert_true(store_read_rows_decoded(ds, mt, at, n, b));
    if (memcmp(a, b, (size_t)n * row) != 0)
        fail_msg("/%s rows %lld..%lld differ from H5Dread's", store_datasets[which].name, (long long)at,
                 (long long)(at + n - 1));
    free(a);
    free(b);
    H5Dclose(ds);
}

/* Every range worth trying of dataset `which` (chunk: its rows per chunk in
 * the file), in its whole native type and, for /moves and /positions, in a
 * type of two of its members. */
static void check_dataset(const char *path, int which, bool decodable)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t ds = H5Dopen2(file, store_datasets[which].name, H5P_DEFAULT);
    assert_true(ds >= 0);
    int64_t rows = store_dataset_rows(ds);
    hid_t dcpl = H5Dget_create_plist(ds);
    hsize_t chunk = 0;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED)
        H5Pget_chunk(dcpl, 1, &chunk);
    H5Pclose(dcpl);
    hid_t mt = store_mem_type_for(ds, which);
    assert_true(mt >= 0);
    if (store_rows_decodable(ds, mt) != decodable)
        fail_msg("%s /%s: decodable %d, expected %d", path, store_datasets[which].name, !decodable, decodable);
    hid_t keys = H5Tcreate(H5T_COMPOUND, 16);
    assert_true(H5Tinsert(keys, "ply", 0, H5T_NATIVE_INT32) >= 0 && H5Tinsert(keys, "game", 8, H5T_NATIVE_INT64) >= 0);
    H5Dclose(ds);
    assert_true(rows > 2 * (int64_t)(chunk ? chunk : 1));
    const int64_t c = chunk ? (int64_t)chunk : 100;
    const int64_t ranges[][2] = {{0, rows}, {1, rows - 2}, {c - 1, 2}, {c, c}, {c + 3, c + 5}, {rows - 1, 1},
                                 {0, 1}, {rows / 2, 1}, {c / 2, rows - c}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        same_rows(file, which, mt, store_datasets[which].row_size, ranges[i][0], ranges[i][1]);
        if (which != DS_GAMES)
            same_rows(file, which, keys, 16, ranges[i][0], ranges[i][1]);
    }
    H5Tclose(keys);
    H5Tclose(mt);
    H5Fclose(file);
}

static void test_written_layout(void **state)
{
    Fixture *f = *state;
    for (int which = DS_GAMES; which <= DS_POSITIONS; which++)
        check_dataset(f->dir.path, which, true);
}

/* The store rewritten by h5repack with FILTERS (or layout) into NAME. */
static void repack(const Fixture *f, const char *name, const char *how, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", f->dir.dir, name);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "h5repack %s '%s' '%s'", how, f->dir.path, out);
    if (system(cmd) != 0)
        fail_msg("failed: %s", cmd);
}

static void test_other_layouts(void **state)
{
    Fixture *f = *state;
    if (system("command -v h5repack >/dev/null 2>&1") != 0)
        skip(); /* Debian: hdf5-tools, which .ci/setup installs */
    const struct {
        const char *name, *how;
        bool decodable;
    } layouts[] = {
        {"none.h5", "-f NONE", true},
        {"gzip.h5", "-f GZIP=6", true},
        {"shuf.h5", "-f SHUF", true},
        {"chunk100.h5", "-l CHUNK=100", true},
        {"conti.h5", "-f NONE -l CONTI", false},
        {"fletcher.h5", "-f SHUF -f FLET -f GZIP=1", false},
    };
    StoreContents want = read_store(f->dir.path);
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        char path[512];
        repack(f, layouts[i].name, layouts[i].how, path, sizeof path);
        for (int which = DS_MOVES; which <= DS_POSITIONS; which++)
            check_dataset(path, which, layouts[i].decodable);
        StoreContents got = read_store(path);
        assert_int_equal(got.ngames, want.ngames);
        assert_int_equal(got.nmoves, want.nmoves);
        assert_int_equal(got.npositions, want.npositions);
        assert_memory_equal(got.games, want.games, sizeof *got.games * (size_t)got.ngames);
        assert_memory_equal(got.moves, want.moves, sizeof *got.moves * (size_t)got.nmoves);
        assert_memory_equal(got.positions, want.positions, sizeof *got.positions * (size_t)got.npositions);
        h5store_contents_free(&got);
    }
    h5store_contents_free(&want);
}

/* Overwrites the middle of the stored bytes of /positions' second chunk. */
static void damage_chunk(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(file, "positions", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(ds);
    hsize_t chunk;
    assert_int_equal(H5Pget_chunk(dcpl, 1, &chunk), 1);
    hsize_t off = chunk, size = 0;
    haddr_t addr = 0;
    unsigned mask;
    assert_true(H5Dget_chunk_info_by_coord(ds, &off, &mask, &addr, &size) >= 0 && size > 64);
    H5Pclose(dcpl);
    H5Dclose(ds);
    H5Fclose(file);
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    char junk[32];
    memset(junk, 0x5A, sizeof junk);
    assert_int_equal(fseek(fp, (long)(addr + size / 2), SEEK_SET), 0);
    assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
    fclose(fp);
}

static void test_damaged_chunk(void **state)
{
    Fixture *f = *state;
    char path[512];
    repack(f, "damaged.h5", "-f SHUF -f GZIP=1", path, sizeof path);
    damage_chunk(path);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(file, "positions", H5P_DEFAULT);
    hid_t mt = store_mem_type_for(ds, DS_POSITIONS);
    int64_t rows = store_dataset_rows(ds);
    StoredPosition *buf = malloc(sizeof *buf * (size_t)rows);
    store_quiet_hdf5();
    assert_false(store_read_rows(ds, mt, 0, rows, buf));
    assert_false(store_read_rows_decoded(ds, mt, 0, rows, buf));
    assert_true(store_read_rows_decoded(ds, mt, 0, 100, buf)); /* the first chunk is whole */
    free(buf);
    H5Tclose(mt);
    H5Dclose(ds);
    H5Fclose(file);
    StoreContents c;
    TvError err;
    assert_int_not_equal(h5store_read(path, false, true, &c, &err), TV_OK);
    if (!strstr(err.msg, "positions"))
        fail_msg("the error does not name /positions: %s", err.msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_layout),
        cmocka_unit_test(test_other_layouts),
        cmocka_unit_test(test_damaged_chunk),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
