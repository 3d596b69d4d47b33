#define _POSIX_C_SOURCE 200809L
/* test_h5store.c: the HDF5 store of a tournament (selfplay/store_*.c), as
 * its writer and reader see it (a crash, a live writer and damage:
 * test_h5store_crash.c; the generated stores: h5store_gen.h).
 *
 *  - write then read gives back exactly the games, moves, positions,
 *    engines and attributes, over several appends and a resumed store;
 *  - refusals: create over an existing file (force overrides), resume with
 *    another tournament INI, a non-store HDF5 file, a file that is not HDF5,
 *    another schema version, an unwritable path;
 *  - merging stores (the parts of an MPI run) gives each game once, in
 *    ascending index, and refuses stores of another configuration;
 *  - a store of schema version 1 reads, and resuming it upgrades it;
 *  - h5dump -H reads a closed store (when h5dump is installed). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>
#include <libdeflate.h>

#include "h5_fixtures.h"
#include "h5store.h"
#include "h5store_gen.h"
#include "outcome.h"
#include "run_session.h"

/* ---- tests --------------------------------------------------------------------------- */

static void test_round_trip(void **state)
{
    (void)state;
    Scratch d = scratch("rt.h5");
    H5Store *s = create_store(d.path, false);
    append_range(s, 0, 1);
    append_range(s, 1, 0);
    append_range(s, 1, 40);
    append_range(s, 41, 7);
    assert_true(h5store_write_seconds(s) > 0.0);
    close_store(s);

    StoreContents c = read_store(d.path);
    check_attributes(&c);
    assert_int_equal(c.ngames, 48);
    check_games(&c, 48, true);
    h5store_contents_free(&c);

    /* Without the large datasets. */
    TvError err;
    tv_error_clear(&err);
    assert_int_equal(h5store_read(d.path, false, false, &c, &err), TV_OK);
    assert_int_equal(c.ngames, 48);
    assert_null(c.moves);
    assert_null(c.positions);
    check_games(&c, 48, false);
    h5store_contents_free(&c);

    /* Resumed: more games follow on, offsets continue. */
    if (h5store_open_append(d.path, INI, &s, &err) != TV_OK)
        fail_msg("open_append: %s", err.msg);
    append_range(s, 48, 2000); /* crosses the /games chunk boundary */
    close_store(s);
    c = read_store(d.path);
    check_attributes(&c);
    assert_int_equal(c.ngames, 2048);
    check_games(&c, 2048, true);
    h5store_contents_free(&c);

    /* The weight names attribute of /engines. */
    hid_t f = H5Fopen(d.path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t ds = H5Dopen2(f, "engines", H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t a = H5Aopen(ds, "weight_names", H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t sp = H5Aget_space(a);
    assert_int_equal(H5Sget_simple_extent_npoints(sp), EVAL_NWEIGHTS);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char **names = calloc(EVAL_NWEIGHTS, sizeof *names);
    assert_true(H5Aread(a, t, names) >= 0);
    for (int i = 0; i < EVAL_NWEIGHTS; i++) {
        char want[96];
        assert_string_equal(names[i], eval_weight_element_name(i, want, sizeof want));
    }
    H5Dvlen_reclaim(t, sp, H5P_DEFAULT, names);
    free(names);
    H5Tclose(t);
    H5Sclose(sp);
    H5Aclose(a);
    H5Dclose(ds);
    H5Fclose(f);

    /* h5dump reads it without any code of ours. */
    if (access("/usr/bin/h5dump", X_OK) == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "/usr/bin/h5dump -H '%s' > /dev/null 2>&1", d.path);
        assert_int_equal(system(cmd), 0);
    }
    scratch_remove(&d);
}

/* Merging: the games of several stores (the output among them), each index
 * once, in ascending index, offsets chained anew; refusals. */
static void test_merge(void **state)
{
    (void)state;
    Scratch d = scratch("main.h5");
    char p1[400], p2[400], p3[400];
    snprintf(p1, sizeof p1, "%s/part-1.h5", d.dir);
    snprintf(p2, sizeof p2, "%s/part-2.h5", d.dir);
    snprintf(p3, sizeof p3, "%s/other.h5", d.dir);
    H5Store *s = create_store(d.path, false);
    append_range(s, 20, 5);
    append_range(s, 0, 5);
    close_store(s);
    s = create_store(p1, false);
    append_range(s, 10, 5);
    append_range(s, 5, 5);
    close_store(s);
    s = create_store(p2, false);
    append_range(s, 15, 5);
    append_range(s, 3, 2); /* also in main: a merge cut short */
    {
        /* a torn last append: game 26's last position row never written
         * (fill value): the merge drops game 26, as a reader does */
        Batch b = make_batch(25, 2);
        b.positions[moves_of(25) + moves_of(26) - 1].game = -1;
        TvError e;
        tv_error_clear(&e);
        if (h5store_append(s, b.games, 2, b.moves, b.positions, &e) != TV_OK)
            fail_msg("append: %s", e.msg);
        free_batch(&b);
    }
    close_store(s);
    const char *inputs[3] = {d.path, p1, p2};
    TvError err;
    tv_error_clear(&err);
    int64_t n = -1;
    char tmp[420];
    snprintf(tmp, sizeof tmp, "%s.tmp", d.path);
    /* A signal (the stop flag set): the stoppable merge gives up, the
     * store keeps its 10 games, no OUT.tmp is left; unset, it merges. */
    volatile sig_atomic_t stop = 1;
    bool stopped = false;
    if (h5store_merge_stoppable(d.path, inputs, 3, INI, &stop, &stopped, &n, &err) != TV_OK)
        fail_msg("stopped merge: %s", err.msg);
    assert_true(stopped);
    assert_int_equal(n, 0);
    StoreContents c = read_store(d.path);
    assert_int_equal(c.ngames, 10);
    h5store_contents_free(&c);
    assert_int_not_equal(access(tmp, F_OK), 0);
    stop = 0;
    if (h5store_merge_stoppable(d.path, inputs, 3, INI, &stop, &stopped, &n, &err) != TV_OK)
        fail_msg("merge: %s", err.msg);
    assert_false(stopped);
    assert_int_equal(n, 26);
    c = read_store(d.path);
    check_attributes(&c);
    assert_int_equal(c.ngames, 26);
    check_games(&c, 26, true);
    h5store_contents_free(&c);
    assert_int_not_equal(access(tmp, F_OK), 0);
    /* merging the merged store again (h5store_merge) changes nothing */
    if (h5store_merge(d.path, inputs, 1, INI, &n, &err) != TV_OK)
        fail_msg("merge: %s", err.msg);
    assert_int_equal(n, 26);

    /* Another tournament, other engines, a missing input: refused, output untouched. */
    StoredEngine e[3];
    make_engines(e, 3);
    assert_int_equal(h5store_create(p3, true, e, 3, "[tournament]\nname = other\n", OPTIONS, &s, &err), TV_OK);
    close_store(s);
    const char *bad1[2] = {d.path, p3};
    expect_error(h5store_merge(d.path, bad1, 2, INI, &n, &err), &err, "other.h5", "another configuration");
    e[1].weights[0]++;
    assert_int_equal(h5store_create(p3, true, e, 3, INI, OPTIONS, &s, &err), TV_OK);
    close_store(s);
    expect_error(h5store_merge(d.path, bad1, 2, INI, &n, &err), &err, "different engine versions", NULL);
    remove(p3);
    expect_error(h5store_merge(d.path, bad1, 2, INI, &n, &err), &err, "other.h5", NULL);
    c = read_store(d.path);
    assert_int_equal(c.ngames, 26);
    h5store_contents_free(&c);
    remove(p1);
    remove(p2);
    scratch_remove(&d);
}

/* A session's line (run_session.h): written and read back field for
 * field; a malformed value is refused naming its key, a key of a newer
 * program is passed over; a store's "sessions" takes each line once, and a
 * merge keeps the lines of every input (the parts of an MPI run that was
 * stopped carry the session that stopped them). */
static void test_sessions(void **state)
{
    (void)state;
    RunHost hosts[3];
    run_session_host_here(&hosts[0], 4, "node-a", 8);
    run_session_host_here(&hosts[1], 4, "node-a", 8);
    run_session_host_here(&hosts[2], 2, "node b,=x", 0); /* blanks, commas, '=' become '_' */
    RunSession s;
    run_session_begin(&s, 3, hosts, 3);
    assert_int_equal(s.nhosts, 2);
    assert_int_equal(s.hosts[0].ranks, 2);
    assert_int_equal(s.hosts[0].threads, 8);
    assert_int_equal(s.hosts[0].cores, 8);
    assert_string_equal(s.hosts[1].name, "node_b__x");
    assert_true(s.hosts[1].cores >= 1); /* its affinity mask */
    ReadyWaits w = {0};
    w.total_ms[1] = 3604;
    w.max_ms[1] = 301;
    w.think_ms[1] = 12;
    w.think_ms[0] = 40;
    run_session_end(&s, "stopped", 17, &w, 2);
    StrBuf line = {0};
    run_session_format(&s, &line);
    RunSession *back = NULL;
    int n = 0;
    TvError err;
    tv_error_clear(&err);
    if (run_sessions_parse(strbuf_str(&line), &back, &n, &err) != TV_OK)
        fail_msg("parse: %s", err.msg);
    assert_int_equal(n, 1);
    assert_int_equal(back[0].began, s.began);
    assert_int_equal(back[0].ended, s.ended);
    assert_string_equal(back[0].end, "stopped");
    assert_int_equal(back[0].games, 17);
    assert_int_equal(back[0].ranks, 3);
    assert_string_equal(back[0].version, s.version);
    assert_string_equal(back[0].build, s.build);
    assert_string_equal(back[0].tree, s.tree);
    assert_int_equal(back[0].nhosts, 2);
    assert_string_equal(back[0].hosts[0].name, "node-a");
    assert_int_equal(back[0].hosts[0].threads, 8);
    assert_int_equal(back[0].nwaits, 2);
    assert_int_equal(back[0].waits[1].engine, 1);
    assert_int_equal(back[0].waits[1].total_ms, 3604);
    assert_int_equal(back[0].waits[1].max_ms, 301);
    assert_int_equal(back[0].waits[1].think_ms, 12);
    free(back);
    assert_true(run_wait_notable(3604, 12));
    assert_false(run_wait_notable(999, 0));        /* under 1 s in all */
    assert_false(run_wait_notable(5000, 200000)); /* 2.5% of its thinking */

    /* a newer program's key is passed over; a malformed value names its key */
    assert_int_equal(run_sessions_parse("began=5 gpu=yes ended=6\nbegan=7", &back, &n, &err), TV_OK);
    assert_int_equal(n, 2);
    assert_int_equal(back[0].ended, 6);
    assert_int_equal(back[1].began, 7);
    free(back);
    const char *bad[] = {"began=x", "ranks=-1", "host=a,1,2", "host=a,1,2,3,x", "wait=99,1,1,1", "wait=0,1,1",
                         "games"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(run_sessions_parse(bad[i], &back, &n, &err), TV_ERR_PARSE);
        assert_non_null(strstr(err.msg, "sessions attribute, line 1"));
    }

    /* in stores: each line once; a merge keeps every input's */
    Scratch d = scratch("sessions.h5");
    char p1[400], p2[400];
    snprintf(p1, sizeof p1, "%s/part-0.h5", d.dir);
    snprintf(p2, sizeof p2, "%s/part-1.h5", d.dir);
    H5Store *st = create_store(p1, false);
    append_range(st, 0, 3);
    close_store(st);
    st = create_store(p2, false);
    append_range(st, 3, 3);
    close_store(st);
    assert_int_equal(run_session_record(p1, &s, &err), TV_OK);
    assert_int_equal(run_session_record(p1, &s, &err), TV_OK); /* the same line: held once */
    s.games = 3;
    assert_int_equal(run_session_record(p2, &s, &err), TV_OK);
    assert_int_equal(h5store_add_lines(p2, "sessions", "began=1 games=3\nbegan=2 games=0", &err), TV_OK);
    const char *inputs[2] = {p1, p2};
    int64_t merged = 0;
    if (h5store_merge(d.path, inputs, 2, INI, &merged, &err) != TV_OK)
        fail_msg("merge: %s", err.msg);
    StoreContents c;
    if (h5store_read(d.path, false, false, &c, &err) != TV_OK)
        fail_msg("read: %s", err.msg);
    assert_int_equal(c.ngames, 6);
    assert_int_equal(run_sessions_parse(c.sessions, &back, &n, &err), TV_OK);
    assert_int_equal(n, 4); /* p1's, p2's (3 games), and the two added */
    assert_int_equal(back[0].games, 17);
    assert_int_equal(back[1].games, 3);
    assert_int_equal(back[2].began, 1);
    free(back);
    h5store_contents_free(&c);
    strbuf_free(&line);
    remove(p1);
    remove(p2);
    scratch_remove(&d);
}

/* A chunk of /positions whose deflate stream inflates to one row too few
 * (issue 34): it was handed on to H5Dread, which read past its buffer
 * (AddressSanitizer: heap-buffer-overflow in H5VM_memcpyvv); the decoder
 * that found it bad now refuses it, naming the chunk. */
/* Writes chunk 0 of /positions of the store at path as `len` bytes: the
 * zlib stream of `rows` bytes of zeros, then zeros up to len when it is
 * longer. */
static void write_positions_chunk(const char *path, size_t rows_bytes, size_t len)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t ds = H5Dopen2(file, "/positions", H5P_DEFAULT);
    assert_true(ds >= 0);
    unsigned char *rows = calloc(1, rows_bytes), *z = calloc(1, rows_bytes + len + 1024);
    assert_non_null(rows);
    assert_non_null(z);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    size_t zlen = libdeflate_zlib_compress(c, rows, rows_bytes, z, rows_bytes + 1024);
    libdeflate_free_compressor(c);
    assert_true(zlen > 0);
    hsize_t off = 0;
    assert_true(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &off, len > zlen ? len : zlen, z) >= 0);
    free(rows);
    free(z);
    H5Dclose(ds);
    H5Fclose(file);
}

static void test_damaged_chunk(void **state)
{
    (void)state;
    Scratch d = scratch("chunk.h5");
    H5Store *s = create_store(d.path, false);
    append_range(s, 0, 20);
    close_store(s);
    hid_t file = H5Fopen(d.path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t ds = H5Dopen2(file, "/positions", H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t dcpl = H5Dget_create_plist(ds), ft = H5Dget_type(ds);
    hsize_t chunk = 0;
    assert_int_equal(H5Pget_chunk(dcpl, 1, &chunk), 1);
    const size_t fsize = H5Tget_size(ft);
    H5Tclose(ft);
    H5Pclose(dcpl);
    H5Dclose(ds);
    H5Fclose(file);
    write_positions_chunk(d.path, (size_t)chunk * fsize - fsize, 0); /* a row short */
    StoreContents sc;
    TvError err;
    tv_error_clear(&err);
    assert_int_not_equal(h5store_read(d.path, false, true, &sc, &err), TV_OK);
    assert_non_null(strstr(err.msg, "cannot read /moves and /positions"));
    assert_non_null(strstr(err.msg, "damaged chunk at row 0 of /positions: it holds "));
    /* a chunk stored larger than deflate makes of a whole chunk (an edited
     * index once made H5Dread allocate 2 GB): refused before it is read */
    write_positions_chunk(d.path, (size_t)chunk * fsize, 2 * (size_t)chunk * fsize);
    assert_int_not_equal(h5store_read(d.path, false, true, &sc, &err), TV_OK);
    assert_non_null(strstr(err.msg, "damaged chunk at row 0 of /positions: its index says"));
    assert_non_null(strstr(err.msg, "more than a chunk can take"));
    scratch_remove(&d);
}

static void test_refusals(void **state)
{
    (void)state;
    Scratch d = scratch("ref.h5");
    StoredEngine e[3];
    make_engines(e, 3);
    H5Store *s = create_store(d.path, false);
    append_range(s, 0, 3);
    close_store(s);

    TvError err;
    tv_error_clear(&err);
    s = NULL;
    expect_error(h5store_create(d.path, false, e, 3, INI, OPTIONS, &s, &err), &err, d.path, "--force");
    assert_non_null(strstr(err.msg, "--resume"));
    assert_null(s);
    StoreContents c = read_store(d.path); /* untouched */
    assert_int_equal(c.ngames, 3);
    h5store_contents_free(&c);

    s = create_store(d.path, true); /* force: a new, empty store */
    close_store(s);
    c = read_store(d.path);
    assert_int_equal(c.ngames, 0);
    h5store_contents_free(&c);

    expect_error(h5store_open_append(d.path, "[tournament]\nname = other\n", &s, &err), &err, d.path,
                 "another configuration");
    assert_null(s);

    /* Another schema version. */
    set_schema_version(d.path, 7);
    expect_error(h5store_read(d.path, true, true, &c, &err), &err, d.path, "schema version 7, this program reads 1");
    expect_error(h5store_open_append(d.path, INI, &s, &err), &err, "schema version 7", NULL);
    set_schema_version(d.path, 1);
    c = read_store(d.path);
    h5store_contents_free(&c);

    /* An HDF5 file that is not a store. */
    remove(d.path);
    hid_t f = H5Fcreate(d.path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    hsize_t n = 4;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t ds = H5Dcreate2(f, "games", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    H5Dclose(ds);
    H5Sclose(sp);
    H5Fclose(f);
    expect_error(h5store_read(d.path, true, true, &c, &err), &err, d.path, "not a tavreli store");
    expect_error(h5store_open_append(d.path, INI, &s, &err), &err, d.path, "not a tavreli store");

    /* A store whose checksummed metadata is damaged (as a writer killed
     * mid-flush can leave it): an error, not HDF5's endless SWMR retries. */
    remove(d.path);
    s = create_store(d.path, false);
    append_range(s, 0, 3);
    close_store(s);
    s = NULL;
    FILE *bin = fopen(d.path, "r+b");
    assert_non_null(bin);
    assert_int_equal(fseek(bin, 20, SEEK_SET), 0); /* inside the superblock */
    int byte = fgetc(bin);
    assert_int_equal(fseek(bin, 20, SEEK_SET), 0);
    fputc(byte ^ 0xff, bin);
    fclose(bin);
    expect_error(h5store_read(d.path, true, true, &c, &err), &err, d.path, "checksum");
    expect_error(h5store_open_append(d.path, INI, &s, &err), &err, d.path, "checksum");

    /* A file that is not HDF5 at all. */
    FILE *txt = fopen(d.path, "w");
    assert_non_null(txt);
    fputs("game 1\n1. e2-e4 e7-e5\n", txt);
    fclose(txt);
    expect_error(h5store_read(d.path, true, true, &c, &err), &err, d.path, "not a tavreli store");
    expect_error(h5store_open_append(d.path, INI, &s, &err), &err, d.path, "not a tavreli store");

    /* Missing file, unwritable place. */
    remove(d.path);
    expect_error(h5store_read(d.path, true, true, &c, &err), &err, d.path, "No such file");
    expect_error(h5store_open_append(d.path, INI, &s, &err), &err, d.path, "No such file");
    expect_error(h5store_create("/nonexistent-dir/x.h5", false, e, 3, INI, OPTIONS, &s, &err), &err,
                 "/nonexistent-dir/x.h5", "No such file");
    assert_null(s);
    scratch_remove(&d);
}

/* A store of schema version 1 (tests/data/stores) reads with the fields of
 * version 2 at their defaults, and resuming it rewrites it in version 2
 * with the same games. */
static void test_schema_v1_read_and_upgrade(void **state)
{
    (void)state;
    Scratch d = scratch("v1.h5");
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cp '%s/stores/v1-random.h5' '%s'", TAVRELI_TEST_DATA, d.path);
    assert_int_equal(system(cmd), 0);
    StoreContents a;
    TvError err;
    assert_int_equal(h5store_read(d.path, true, true, &a, &err), TV_OK);
    assert_int_equal(a.schema_version, 1);
    assert_int_equal(a.ngames, 6);
    assert_true(a.reproducible);
    for (int64_t i = 0; i < a.nmoves; i++) {
        assert_int_equal(a.moves[i].time_ms, -1);
        assert_int_equal(a.moves[i].clock_ms, -1);
    }
    for (int i = 0; i < a.nengines; i++)
        assert_int_equal(a.engines[i].kind, 0);
    H5Store *s = NULL;
    if (h5store_open_append(d.path, a.tournament_ini, &s, &err) != TV_OK)
        fail_msg("resume of a version 1 store: %s", err.msg);
    assert_int_equal(h5store_close(s, &err), TV_OK);
    StoreContents b;
    assert_int_equal(h5store_read(d.path, true, true, &b, &err), TV_OK);
    assert_int_equal(b.schema_version, H5STORE_SCHEMA_VERSION);
    assert_int_equal(b.ngames, a.ngames);
    assert_int_equal(b.nmoves, a.nmoves);
    for (int64_t i = 0; i < a.nmoves; i++) {
        assert_string_equal(b.moves[i].move, a.moves[i].move);
        assert_int_equal(b.moves[i].score, a.moves[i].score);
        assert_int_equal(b.moves[i].time_ms, -1);
    }
    for (int64_t i = 0; i < a.npositions; i++)
        assert_string_equal(b.positions[i].tfen, a.positions[i].tfen);
    h5store_contents_free(&a);
    h5store_contents_free(&b);
    scratch_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_sessions),
        cmocka_unit_test(test_damaged_chunk),
        cmocka_unit_test(test_schema_v1_read_and_upgrade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
