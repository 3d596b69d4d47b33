#define _POSIX_C_SOURCE 200809L
/* test_h5store.c: the HDF5 store of a tournament (selfplay/store_*.c).
 *
 *  - write then read gives back exactly the games, moves, positions,
 *    engines and attributes, over several appends and a resumed store;
 *  - refusals: create over an existing file (force overrides), resume with
 *    another tournament INI, a non-store HDF5 file, a file that is not HDF5,
 *    another schema version, an unwritable path;
 *  - crash safety: a child process creates a store and appends batches,
 *    reporting each flushed count through a pipe; it is killed (SIGKILL) at
 *    random moments, and the store must then read back at least every
 *    reported game, each complete and as generated, and resume (repair)
 *    and take more games (TAVRELI_H5_CRASH_RUNS=N runs N kills instead of
 *    6 to 14);
 *  - resuming a store that a live process is writing is refused;
 *  - merging stores (the parts of an MPI run) gives each game once, in
 *    ascending index, and refuses stores of another configuration;
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

#include "h5_fixtures.h"
#include "h5store.h"
#include "outcome.h"

static const char *INI = "[tournament]\nname = test\npairs = 2\n\n[engine a]\npath = a.ini\n";
static const char *OPTIONS = "slide_over_own=no enpassant=combatant ending=checkmate";

/* ---- generated data: every value follows from the game index ---------------- */

static int32_t moves_of(int64_t g)
{
    return 1 + (int32_t)((g * 7) % 23);
}

static void make_game(int64_t g, StoredGame *out)
{
    memset(out, 0, sizeof *out);
    out->index = g;
    out->pairing = (int32_t)(g % 3);
    out->white = (int32_t)(g % 2);
    out->black = 1 - out->white;
    out->opening = (int32_t)(g / 2);
    snprintf(out->start_tfen, sizeof out->start_tfen,
             "rnbqkbnr/prpnpbpqphpbpnpr/8/8/4PH3/8/PRPNPBPQ1PBPNPR/RNBQKBNR b KQkq e3 0 %lld", (long long)g + 1);
    out->termination = (int8_t)(g % 7);
    /* the reader refuses a result that its termination does not allow */
    out->result = (int8_t)(termination_is_decisive(out->termination) ? (g % 2 ? 1 : -1) : 0);
    out->plies = moves_of(g);
    out->seed = (uint64_t)g * 0x9E3779B97F4A7C15ull;
    out->wall_time = 0.25 * (double)g;
    out->move_count = moves_of(g);
    out->position_count = moves_of(g);
}

static void make_move(int64_t g, int k, StoredMove *out)
{
    memset(out, 0, sizeof *out);
    out->game = g;
    out->ply = k;
    snprintf(out->move, sizeof out->move, "e%d-e%d+", k % 8 + 1, (k + 1) % 8 + 1);
    out->score = (int32_t)((g * 100 + k) % 30000) * (k % 2 ? -1 : 1); /* within +-SCORE_INF */
    out->depth = k % 9;
    out->nodes = g * 100000 + k;
}

static void make_position(int64_t g, int k, StoredPosition *out)
{
    memset(out, 0, sizeof *out);
    out->game = g;
    out->ply = k;
    snprintf(out->tfen, sizeof out->tfen, "r3k2r/8/2(NPRbprq)5/8/3(RBNQprpn)4/8/8/R3K2R %c KQkq - %d %lld",
             k % 2 ? 'b' : 'w', k, (long long)g + 1);
    out->side = (int8_t)(k % 2);
    out->score = (int32_t)(g - k);
    /* the game's result from the side to move's view (make_game) */
    int result = termination_is_decisive((int)(g % 7)) ? (g % 2 ? 1 : -1) : 0;
    out->result = result == 0 ? 0.5f : (result > 0) == (k % 2 == 0) ? 1.0f : 0.0f;
}

typedef struct {
    int n;
    StoredGame *games;
    StoredMove *moves;
    StoredPosition *positions;
} Batch;

static Batch make_batch(int64_t first, int n)
{
    Batch b = {n, calloc((size_t)n + 1, sizeof(StoredGame)), NULL, NULL};
    int nm = 0;
    for (int i = 0; i < n; i++)
        nm += moves_of(first + i);
    b.moves = calloc((size_t)nm + 1, sizeof(StoredMove));
    b.positions = calloc((size_t)nm + 1, sizeof(StoredPosition));
    assert_non_null(b.games);
    assert_non_null(b.moves);
    assert_non_null(b.positions);
    int m = 0;
    for (int i = 0; i < n; i++) {
        make_game(first + i, &b.games[i]);
        for (int k = 0; k < moves_of(first + i); k++, m++) {
            make_move(first + i, k, &b.moves[m]);
            make_position(first + i, k, &b.positions[m]);
        }
    }
    return b;
}

static void free_batch(Batch *b)
{
    free(b->games);
    free(b->moves);
    free(b->positions);
}

static void make_engines(StoredEngine *e, int n)
{
    memset(e, 0, sizeof *e * (size_t)n);
    for (int i = 0; i < n; i++) {
        snprintf(e[i].name, sizeof e[i].name, "engine-%d", i);
        snprintf(e[i].path, sizeof e[i].path, "configs/engines/e%d.ini", i);
        for (int w = 0; w < EVAL_NWEIGHTS; w++)
            e[i].weights[w] = w * 3 - i;
        e[i].depth = 2 + i;
        e[i].nodes = 1000 * i;
        e[i].movetime_ms = 10 * i;
    }
}

/* Checks that c holds games [0, n) exactly as generated, with offsets chained. */
static void check_games(const StoreContents *c, int64_t n, bool with_rows)
{
    assert_true(c->ngames >= n);
    int64_t off = 0;
    for (int64_t g = 0; g < c->ngames; g++) {
        StoredGame want;
        make_game(g, &want);
        want.move_offset = want.position_offset = off;
        assert_true(c->games[g].stored_at > 1700000000); /* stamped by the append: a time after 2023 */
        want.stored_at = c->games[g].stored_at;
        if (memcmp(&want, &c->games[g], sizeof want) != 0)
            fail_msg("game %lld differs", (long long)g);
        if (with_rows) {
            for (int k = 0; k < want.move_count; k++) {
                StoredMove m;
                StoredPosition p;
                make_move(g, k, &m);
                make_position(g, k, &p);
                if (memcmp(&m, &c->moves[off + k], sizeof m) != 0)
                    fail_msg("game %lld move %d differs", (long long)g, k);
                if (memcmp(&p, &c->positions[off + k], sizeof p) != 0)
                    fail_msg("game %lld position %d differs", (long long)g, k);
            }
        }
        off += want.move_count;
    }
    if (with_rows) {
        assert_int_equal(c->nmoves, off);
        assert_int_equal(c->npositions, off);
    }
}

static void append_range(H5Store *s, int64_t first, int n)
{
    Batch b = make_batch(first, n);
    TvError err;
    tv_error_clear(&err);
    if (h5store_append(s, b.games, n, b.moves, b.positions, &err) != TV_OK)
        fail_msg("append: %s", err.msg);
    free_batch(&b);
}

/* ---- files -------------------------------------------------------------------- */

typedef struct {
    char dir[256];
    char path[320];
} Scratch;

static Scratch scratch(const char *name)
{
    Scratch s;
    const char *base = getenv("TMPDIR");
    snprintf(s.dir, sizeof s.dir, "%s/tavreli-h5-XXXXXX", base && base[0] ? base : "/tmp");
    assert_non_null(mkdtemp(s.dir));
    snprintf(s.path, sizeof s.path, "%s/%s", s.dir, name);
    return s;
}

static void scratch_remove(const Scratch *s)
{
    char buf[400];
    static const char *const suffixes[] = {"", ".tmp"};
    for (int i = 0; i < 2; i++) {
        snprintf(buf, sizeof buf, "%s%s", s->path, suffixes[i]);
        remove(buf);
    }
    rmdir(s->dir);
}

static H5Store *create_store(const char *path, bool force)
{
    StoredEngine e[3];
    make_engines(e, 3);
    H5Store *s = NULL;
    TvError err;
    tv_error_clear(&err);
    if (h5store_create(path, force, e, 3, INI, OPTIONS, &s, &err) != TV_OK)
        fail_msg("create: %s", err.msg);
    return s;
}

static void close_store(H5Store *s)
{
    TvError err;
    tv_error_clear(&err);
    if (h5store_close(s, &err) != TV_OK)
        fail_msg("close: %s", err.msg);
}

static StoreContents read_store(const char *path)
{
    StoreContents c;
    TvError err;
    tv_error_clear(&err);
    if (h5store_read(path, true, true, &c, &err) != TV_OK)
        fail_msg("read: %s", err.msg);
    return c;
}

static void check_attributes(const StoreContents *c)
{
    StoredEngine e[3];
    make_engines(e, 3);
    assert_int_equal(c->schema_version, H5STORE_SCHEMA_VERSION);
    assert_string_equal(c->tournament_ini, INI);
    assert_string_equal(c->options, OPTIONS);
    assert_true(strlen(c->program_version) > 0);
    assert_int_equal(c->nengines, 3);
    assert_memory_equal(c->engines, e, sizeof e);
}

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

static void expect_error(TvStatus got, const TvError *err, const char *part1, const char *part2)
{
    if (got == TV_OK)
        fail_msg("no error (expected one naming '%s'%s%s)", part1, part2 ? " / " : "", part2 ? part2 : "");
    if (!strstr(err->msg, part1) || (part2 && !strstr(err->msg, part2)))
        fail_msg("error '%s' lacks '%s'%s%s", err->msg, part1, part2 ? " / " : "", part2 ? part2 : "");
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

/* ---- crash safety ------------------------------------------------------------------------------ */

#define CRASH_APPENDS 200
#define CRASH_BATCH 5

/* The child: creates the store and appends batches, writing the number of
 * games flushed after each append to fd.  Never returns. */
static void crash_child(const char *path, int fd, int nappends, bool linger)
{
    StoredEngine e[3];
    make_engines(e, 3);
    H5Store *s = NULL;
    TvError err;
    if (h5store_create(path, true, e, 3, INI, OPTIONS, &s, &err) != TV_OK)
        _exit(3);
    for (int i = 0; i < nappends; i++) {
        Batch b = make_batch((int64_t)i * CRASH_BATCH, CRASH_BATCH);
        if (h5store_append(s, b.games, b.n, b.moves, b.positions, &err) != TV_OK)
            _exit(4);
        free_batch(&b);
        int64_t done = (int64_t)(i + 1) * CRASH_BATCH;
        if (write(fd, &done, sizeof done) != (ssize_t)sizeof done)
            _exit(5);
    }
    while (linger)
        pause();
    if (h5store_close(s, &err) != TV_OK)
        _exit(6);
    _exit(0);
}

/* Runs crash_child in a child process; returns its pid, and in *counts the
 * read end of the pipe it writes its counts to. */
static pid_t start_child(const char *path, int nappends, bool linger, int *counts)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* A failed assertion in the parent must not leave a lingering child. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(p[0]);
        crash_child(path, p[1], nappends, linger);
    }
    close(p[1]);
    *counts = p[0];
    return pid;
}

/* Resumes the store at path (repairing it when needed), appends games
 * [have, have + n) and checks that it then holds exactly games [0, have + n).
 * what: a prefix for the failure message. */
static void resume_and_append(const char *path, int64_t have, int n, const char *what)
{
    H5Store *s = NULL;
    TvError err;
    tv_error_clear(&err);
    if (h5store_open_append(path, INI, &s, &err) != TV_OK)
        fail_msg("%sopen_append: %s", what, err.msg);
    append_range(s, have, n);
    close_store(s);
    StoreContents c = read_store(path);
    assert_int_equal(c.ngames, have + n);
    check_games(&c, have + n, true);
    h5store_contents_free(&c);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Runs the child and kills it after `delay` seconds (or lets it finish);
 * returns the last count it reported. */
static int64_t run_and_kill(const char *path, double delay, bool *finished)
{
    int counts;
    pid_t pid = start_child(path, CRASH_APPENDS, false, &counts);
    int status = 0;
    pid_t done = 0;
    double end = now_s() + delay;
    for (double left = delay; left > 0 && done == 0; left = end - now_s()) {
        sleep_s(left < 0.001 ? left : 0.001);
        done = waitpid(pid, &status, WNOHANG);
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        done = waitpid(pid, &status, 0);
    }
    assert_int_equal(done, pid);
    *finished = WIFEXITED(status);
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        fail_msg("crash child failed with status %d", WEXITSTATUS(status));
    int64_t last = 0, v;
    while (read(counts, &v, sizeof v) == (ssize_t)sizeof v)
        last = v;
    close(counts);
    return last;
}

static void test_crash_safety(void **state)
{
    (void)state;
    Scratch d = scratch("crash.h5");
    /* How long an uninterrupted run takes here (ASan or not). */
    bool finished = false;
    double t0 = now_s();
    int64_t reported = run_and_kill(d.path, 60.0, &finished);
    double full = now_s() - t0;
    assert_true(finished);
    assert_int_equal(reported, CRASH_APPENDS * CRASH_BATCH);
    StoreContents c = read_store(d.path);
    assert_int_equal(c.ngames, reported);
    check_games(&c, reported, true);
    h5store_contents_free(&c);
    print_message("crash test: an uninterrupted run takes %.2f s\n", full);

    /* TAVRELI_H5_CRASH_RUNS=N (and TAVRELI_H5_CRASH_SEED) for a longer soak. */
    const char *env_runs = getenv("TAVRELI_H5_CRASH_RUNS"), *env_seed = getenv("TAVRELI_H5_CRASH_SEED");
    uint64_t seed = env_seed ? strtoull(env_seed, NULL, 10) : 20240601;
    /* 14 kills, fewer when a run is slow (AddressSanitizer): ~10 s in all. */
    int runs = (int)(10.0 / (full * 0.7)), repaired = 0;
    runs = runs > 14 ? 14 : runs < 6 ? 6 : runs;
    if (env_runs)
        runs = atoi(env_runs);
    for (int r = 0; r < runs; r++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double frac = (double)(seed >> 11) / 9007199254740992.0; /* [0, 1) */
        /* Mostly within the run (incl. its first moments: the create). */
        double delay = r == 0 ? 0.0005 : frac * full * 0.9;
        remove(d.path);
        reported = run_and_kill(d.path, delay, &finished);
        TvError err;
        tv_error_clear(&err);
        if (access(d.path, F_OK) != 0) {
            /* Killed before the store existed: nothing was reported. */
            assert_int_equal(reported, 0);
            continue;
        }
        if (h5store_read(d.path, true, true, &c, &err) != TV_OK)
            fail_msg("run %d (killed after %.3f s, %lld games reported): read: %s", r, delay, (long long)reported,
                     err.msg);
        if (c.ngames < reported)
            fail_msg("run %d: %lld games read, %lld were reported flushed", r, (long long)c.ngames,
                     (long long)reported);
        check_games(&c, reported, true);
        int64_t have = c.ngames;
        h5store_contents_free(&c);

        /* Resume: repaired when needed, then more games. */
        char what[32];
        snprintf(what, sizeof what, "run %d: ", r);
        resume_and_append(d.path, have, 6, what);
        repaired++;
        print_message("crash run %d: killed after %.3f s, %lld reported, %lld read\n", r, delay,
                      (long long)reported, (long long)have);
    }
    assert_true(repaired >= runs / 2);
    scratch_remove(&d);
}

/* A store that a live process is writing looks like a crashed one; resuming
 * it must be refused, not "repaired" under the writer. */
/* A copy of store `from` at `to`. */
static void copy_file(const char *from, const char *to)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

/* Every flag combination of the reader keeps the same games. */
static int64_t games_read_every_way(const char *path)
{
    int64_t n = -1;
    for (int k = 0; k < 4; k++) {
        StoreContents c;
        TvError err;
        if (h5store_read(path, k & 1, k & 2, &c, &err) != TV_OK)
            fail_msg("read (%d): %s", k, err.msg);
        if (n >= 0)
            assert_int_equal(c.ngames, n);
        n = c.ngames;
        h5store_contents_free(&c);
    }
    return n;
}

/* One reader, used by every command: a damaged row is refused with the row
 * and the reason (it used to hide every later game), a game index held
 * twice is refused, and only the torn tail of a crash is left out. */
static void test_damaged_rows(void **state)
{
    (void)state;
    Scratch d = scratch("good.h5");
    H5Store *s = create_store(d.path, false);
    append_range(s, 0, 30);
    close_store(s);
    assert_int_equal(games_read_every_way(d.path), 30);
    char bad[400];
    snprintf(bad, sizeof bad, "%s/bad.h5", d.dir);
    StoreContents c;
    TvError err;

    copy_file(d.path, bad);
    set_row_member(bad, "games", 3, "move_count", -1);
    for (int k = 0; k < 4; k++)
        expect_error(h5store_read(bad, k & 1, k & 2, &c, &err), &err, bad, "/games row 3 (game 3)");
    assert_non_null(strstr(err.msg, "tavreli repair"));
    H5Store *s2 = NULL;
    expect_error(h5store_open_append(bad, INI, &s2, &err), &err, bad, "/games row 3 (game 3)");
    /* repair: every other game copied into a new store, the bad one left out */
    char fixed[400];
    snprintf(fixed, sizeof fixed, "%s/fixed.h5", d.dir);
    StoreRepairCounts n;
    assert_int_equal(h5store_repair(bad, fixed, false, NULL, NULL, &n, &err), TV_OK);
    assert_int_equal(n.rows, 30);
    assert_int_equal(n.kept, 29);
    assert_int_equal(n.bad, 1);
    c = read_store(fixed);
    assert_int_equal(c.ngames, 29);
    for (int64_t i = 0; i < c.ngames; i++) {
        const StoredGame *g = &c.games[i];
        assert_int_equal(g->index, i < 3 ? i : i + 1);
        for (int k = 0; k < g->move_count; k++) {
            StoredMove m;
            make_move(g->index, k, &m);
            assert_memory_equal(&m, &c.moves[g->move_offset + k], sizeof m);
        }
    }
    h5store_contents_free(&c);
    expect_error(h5store_repair(bad, fixed, false, NULL, NULL, &n, &err), &err, fixed, "already exists");
    remove(fixed);

    copy_file(d.path, bad);
    set_row_member(bad, "games", 7, "index", 2);
    expect_error(h5store_read(bad, false, false, &c, &err), &err, bad, "/games row 7");
    assert_non_null(strstr(err.msg, "/moves row"));

    copy_file(d.path, bad);
    set_row_member(bad, "moves", 40, "game", 999);
    expect_error(h5store_read(bad, false, false, &c, &err), &err, bad, "/moves row 40 is game 999");

    /* the last rows never written: a crash's torn append, left out */
    copy_file(d.path, bad);
    for (int r = 28; r < 30; r++) {
        set_row_member(bad, "games", r, "index", -1);
        set_row_member(bad, "games", r, "move_count", -1);
        set_row_member(bad, "games", r, "position_count", -1);
    }
    assert_int_equal(games_read_every_way(bad), 28);
    assert_int_equal(h5store_read(bad, false, false, &c, &err), TV_OK);
    assert_int_equal(c.torn_rows, 2);
    h5store_contents_free(&c);
    /* ... but a row never written before good ones is damage */
    copy_file(d.path, bad);
    set_row_member(bad, "games", 5, "index", -1);
    set_row_member(bad, "games", 5, "move_count", -1);
    set_row_member(bad, "games", 5, "position_count", -1);
    expect_error(h5store_read(bad, false, false, &c, &err), &err, bad, "/games row 5");
    remove(bad);
    scratch_remove(&d);
}

/* Every error path of the store closes what it opened: after each entry
 * point fails (or succeeds) on a copy with one bit flipped, no HDF5 object
 * of any file is left open (H5Fget_obj_count).  The flips fall on the
 * metadata at the front of the file, where they break the superblock, the
 * object headers and the B-trees ("incorrect metadata checksum"), and on
 * the chunks after it.  AddressSanitizer still reports memory that libhdf5
 * 1.10.8 keeps after a failed checksum even when the caller closed
 * everything: tests/lsan-hdf5.supp says why it is the library's. */
static void test_damage_leaves_nothing_open(void **state)
{
    (void)state;
    Scratch d = scratch("good.h5");
    H5Store *s = create_store(d.path, false);
    append_range(s, 0, 30);
    close_store(s);
    char bad[400], fixed[400];
    snprintf(bad, sizeof bad, "%s/bad.h5", d.dir);
    snprintf(fixed, sizeof fixed, "%s/fixed.h5", d.dir);
    struct stat st;
    assert_int_equal(stat(d.path, &st), 0);
    const long size = (long)st.st_size;
    int failed = 0, tried = 0;
    /* 12 copies: a metadata checksum that fails costs about a second of
     * SWMR read retries per call (store_schema.c), so more would slow the
     * suite without reaching other paths */
    for (long off = 211; off < size; off += off < 8192 ? 1031 : size / 4) {
        copy_file(d.path, bad);
        FILE *f = fopen(bad, "r+b");
        assert_non_null(f);
        fseek(f, off, SEEK_SET);
        int b = fgetc(f);
        fseek(f, off, SEEK_SET);
        fputc(b ^ (1 << (off % 8)), f);
        fclose(f);
        TvError err;
        StoreContents c;
        if (h5store_read(bad, true, true, &c, &err) == TV_OK)
            h5store_contents_free(&c);
        else
            failed++;
        assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
        if (h5store_check_readable(bad, &err) != TV_OK)
            failed++;
        assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
        StoreRepairCounts n;
        if (h5store_repair(bad, fixed, true, NULL, NULL, &n, &err) != TV_OK)
            failed++;
        assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
        remove(fixed);
        H5Store *s2 = NULL;
        if (h5store_open_append(bad, INI, &s2, &err) == TV_OK)
            close_store(s2);
        else
            failed++;
        assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
        tried++;
    }
    print_message("%d damaged copies, %d failed calls, no object left open\n", tried, failed);
    assert_true(failed > 0); /* the flips did reach the error paths */
    remove(bad);
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

static void test_live_writer_refused(void **state)
{
    (void)state;
    Scratch d = scratch("live.h5");
    int counts;
    pid_t pid = start_child(d.path, 3, true, &counts);
    int64_t v = 0;
    for (int i = 0; i < 3; i++)
        assert_int_equal(read(counts, &v, sizeof v), (ssize_t)sizeof v);
    assert_int_equal(v, 3 * CRASH_BATCH);
    /* Readable while being written. */
    StoreContents c = read_store(d.path);
    check_games(&c, v, true);
    h5store_contents_free(&c);
    H5Store *s = NULL;
    TvError err;
    tv_error_clear(&err);
    expect_error(h5store_open_append(d.path, INI, &s, &err), &err, d.path, "being written by another process");
    assert_null(s);
    StoredEngine e[3];
    make_engines(e, 3);
    expect_error(h5store_create(d.path, true, e, 3, INI, OPTIONS, &s, &err), &err, d.path,
                 "being written by another process");
    assert_null(s);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    close(counts);
    /* Now it is a crashed store: resumed after a repair. */
    resume_and_append(d.path, v, 2, "");
    scratch_remove(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_damaged_rows),
        cmocka_unit_test(test_damage_leaves_nothing_open),
        cmocka_unit_test(test_schema_v1_read_and_upgrade),
        cmocka_unit_test(test_live_writer_refused),
        cmocka_unit_test(test_crash_safety),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
