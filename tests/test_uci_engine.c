/* test_uci_engine.c: `tavreli uci` (core/uci_engine.c, docs/protocol.md)
 * answers every `go` with a bestmove and keeps reading its input, whatever
 * arrives: commands during `go infinite`, limits of 0, clocks at 0 or below,
 * words it does not support, a bad `go`, a `position` that fails (applied
 * whole or not at all), a position line of a 9,000-ply game, a Hash that
 * cannot be allocated.  Each row runs the engine on a script (its input) in
 * a thread of its own and reads what it answered; an engine that deadlocks
 * fails the row after a timeout instead of hanging the suite. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine.h"
#include "notation.h"
#include "strbuf.h"
#include "uci.h"
#include "uci_engine.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Far above what a script of depth-1 searches takes on a loaded machine
 * (milliseconds): only an engine that waits for ever reaches it. */
#define SCRIPT_TIMEOUT_S 60.0

static const Options defaults = {0};

typedef struct {
    FILE *in, *out;
    EngineVersion engine;
    atomic_int done;
} EngineRun;

static void *engine_thread(void *arg)
{
    EngineRun *r = arg;
    TvError err;
    uci_engine_run(r->in, r->out, &r->engine, NULL, &err);
    atomic_store(&r->done, 1);
    return NULL;
}

static int count_lines(const char *text, const char *prefix);

/* The whole of the file at path (heap). */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    StrBuf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        strbuf_addf(&b, "%.*s", (int)n, chunk);
    fclose(f);
    char *text = strdup(strbuf_str(&b));
    strbuf_free(&b);
    assert_non_null(text);
    return text;
}

/* What the engine answered to script (heap; the caller frees it).  The
 * script goes down a pipe that stays open until the engine has answered
 * `bestmoves` go commands (or SCRIPT_TIMEOUT_S has passed): a bestmove must
 * come from the engine itself, not from the end of its input (which stops
 * a search as `quit` does). */
static char *engine_answers(const char *script, int bestmoves)
{
    EngineRun *r = calloc(1, sizeof *r); /* leaked with its thread when the engine hangs */
    assert_non_null(r);
    engine_default(&r->engine);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char path[] = "/tmp/test_uci_engine_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    r->in = fdopen(fds[0], "r");
    r->out = fdopen(fd, "w");
    assert_true(r->in && r->out);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, engine_thread, r), 0);
    for (size_t left = strlen(script); left > 0;) {
        ssize_t w = write(fds[1], script + strlen(script) - left, left);
        assert_true(w > 0);
        left -= (size_t)w;
    }
    const double t0 = tv_now_seconds();
    const struct timespec pause = {0, 5000000};
    char *text = read_all(path);
    while (count_lines(text, "bestmove ") < bestmoves && !atomic_load(&r->done) &&
           tv_now_seconds() - t0 < SCRIPT_TIMEOUT_S) {
        nanosleep(&pause, NULL);
        free(text);
        text = read_all(path);
    }
    const int answered = count_lines(text, "bestmove ");
    free(text);
    if (answered < bestmoves) {
        remove(path);
        fail_msg("the engine answered %d of %d go commands within %.0f s: %.300s", answered, bestmoves,
                 SCRIPT_TIMEOUT_S, script);
    }
    close(fds[1]); /* the end of its input */
    while (!atomic_load(&r->done) && tv_now_seconds() - t0 < SCRIPT_TIMEOUT_S)
        nanosleep(&pause, NULL);
    if (!atomic_load(&r->done)) {
        remove(path);
        fail_msg("the engine did not end at the end of its input within %.0f s: %.300s", SCRIPT_TIMEOUT_S, script);
    }
    pthread_join(t, NULL);
    fclose(r->in);
    fclose(r->out);
    free(r);
    text = read_all(path);
    remove(path);
    return text;
}

static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
        n += !strncmp(s, prefix, strlen(prefix));
    return n;
}

/* The move of the last "bestmove" line ("" when there is none). */
static void last_bestmove(const char *text, char *move, size_t n)
{
    move[0] = '\0';
    for (const char *s = strstr(text, "bestmove "); s; s = strstr(s + 1, "bestmove "))
        if (s == text || s[-1] == '\n')
            uci_bestmove_parse(s + 9, move, n);
}

/* Whether move is legal after `position ARGS`. */
static bool legal_after(const char *position_args, const char *move)
{
    Position p;
    Move m;
    TvError err;
    if (uci_position_parse(position_args, &defaults, &p, NULL, 0, NULL, &err) != TV_OK)
        fail_msg("the test's own position does not read: %s", err.msg);
    return move_parse(&p, &defaults, move, TV_PARSE_STRICT, &m, NULL, NULL) == TV_OK;
}

typedef struct {
    const char *name;
    const char *script;
    int bestmoves;           /* bestmove lines expected */
    const char *info;        /* text an `info string` line must hold (NULL: none) */
    const char *legal_after; /* the last bestmove must be legal after `position` this (NULL: not checked) */
    const char *exact;       /* or be exactly this move (NULL: not checked) */
} Row;

static const Row ROWS[] = {
    /* a command during `go infinite` stops it: its bestmove, then the command */
    {"position during go infinite", "go infinite\nposition startpos moves g1-f3\ngo depth 1\n", 2, NULL,
     "startpos moves g1-f3", NULL},
    {"ucinewgame during go infinite", "position startpos moves g1-f3\ngo infinite\nucinewgame\ngo depth 1\n", 2,
     NULL, "startpos", NULL},
    {"setoption during go infinite", "go infinite\nsetoption name Hash value 2\ngo depth 1\n", 2, NULL, "startpos",
     NULL},
    {"go during go infinite", "go infinite\ngo depth 1\n", 2, NULL, "startpos", NULL},
    {"stop after a position during go infinite", "go infinite\nposition startpos moves g1-f3\nstop\nisready\n", 1,
     NULL, "startpos", NULL},
    {"quit after a position during go infinite", "go infinite\nposition startpos moves g1-f3\nquit\ngo depth 1\n", 1,
     NULL, "startpos", NULL},
    /* limits that leave no search: the least search answers */
    {"go depth 0", "position startpos\ngo depth 0\n", 1, "'depth 0' leaves no search", "startpos", NULL},
    {"go nodes 0", "position startpos\ngo nodes 0\n", 1, "'nodes 0' leaves no search", "startpos", NULL},
    {"go movetime 0", "position startpos\ngo movetime 0\n", 1, "'movetime 0' leaves no search", "startpos", NULL},
    {"go wtime 0 btime 0", "position startpos\ngo wtime 0 btime 0\n", 1, NULL, "startpos", NULL},
    {"go wtime 0 btime 0, Black to move", "position startpos moves g1-f3\ngo wtime 0 btime 0\n", 1, NULL,
     "startpos moves g1-f3", NULL},
    {"go with negative clocks", "position startpos\ngo wtime -150 btime -20 winc 0 binc 0\n", 1, NULL, "startpos",
     NULL},
    /* words it does not support are ignored, and said so */
    {"go searchmoves", "position startpos\ngo searchmoves g1-f3 b1-a3 depth 1\n", 1,
     "ignored 'searchmoves g1-f3 b1-a3'", "startpos", NULL},
    /* go mate N ends by itself (a search of 2N - 1 plies), without a stop
     * (before, it was ignored and the search ran until one) */
    {"go mate", "position startpos\ngo mate 2\n", 1, NULL, "startpos", NULL},
    {"go mate with a smaller depth", "position startpos\ngo mate 3 depth 1\n", 1, NULL, "startpos", NULL},
    {"go mate 0", "position startpos\ngo mate 0\n", 1, "'mate 0' leaves no search", "startpos", NULL},
    {"go ponder", "position startpos\ngo ponder depth 1\n", 1, "ignored 'ponder'", "startpos", NULL},
    {"go with a word UCI does not have", "position startpos\ngo fast depth 1\n", 1, "ignored 'fast'", "startpos",
     NULL},
    {"go with a bad number", "position startpos\ngo depth x\n", 1, "'depth' needs a whole number", "startpos", NULL},
    /* a position that fails is not applied half-way: no position, go answers 0000 */
    {"position with a bad move", "position startpos moves g1-f3 zz\ngo depth 1\n", 1, "no position is set", NULL,
     "0000"},
    {"position with an illegal move", "position startpos moves g1-f3 g1-f3\ngo depth 1\n", 1, "no position is set",
     NULL, "0000"},
    {"position with a bad TFEN", "position startpos moves g1-f3\nposition tfen 8/8 w\ngo depth 1\n", 1,
     "no position is set", NULL, "0000"},
    {"a good position after a bad one", "position startpos moves zz\nposition startpos moves g1-f3\ngo depth 1\n", 1,
     NULL, "startpos moves g1-f3", NULL},
    {"ucinewgame after a bad position", "position startpos moves zz\nucinewgame\ngo depth 1\n", 1, NULL, "startpos",
     NULL},
};

static void check_answers(const Row *row, const char *out)
{
    if (count_lines(out, "bestmove ") != row->bestmoves)
        fail_msg("%s: %d bestmove lines, expected %d; the engine said:\n%s", row->name, count_lines(out, "bestmove "),
                 row->bestmoves, out);
    if (row->info) {
        bool found = false;
        for (const char *s = strstr(out, "info string "); s && !found; s = strstr(s + 1, "info string ")) {
            const char *end = strchr(s, '\n');
            const char *hit = strstr(s, row->info);
            found = hit && (!end || hit < end);
        }
        if (!found)
            fail_msg("%s: no info string with \"%s\"; the engine said:\n%s", row->name, row->info, out);
    }
    char mv[64];
    last_bestmove(out, mv, sizeof mv);
    if (row->exact && strcmp(mv, row->exact))
        fail_msg("%s: bestmove %s, expected %s; the engine said:\n%s", row->name, mv, row->exact, out);
    if (row->legal_after && !legal_after(row->legal_after, mv))
        fail_msg("%s: bestmove '%s' is not legal after 'position %s'; the engine said:\n%s", row->name, mv,
                 row->legal_after, out);
}

static void test_row(void **state)
{
    const Row *row = *state;
    char *out = engine_answers(row->script, row->bestmoves);
    check_answers(row, out);
    free(out);
}

/* A position line of a game of 9,000 plies (about 54 KB: max_plies allows
 * 10,000), Horsemen going back and forth: the engine reads it whole and
 * searches the position after the last ply, White to move.  A reader that
 * cut the line at 16 KB (UCI_LINE_MAX) searched the position after ply
 * 2,727, Black to move, whose moves are never legal for White. */
static void test_long_position(void **state)
{
    (void)state;
    static const char *const shuffle[4] = {"g1-f3", "g8-h6", "f3-g1", "h6-g8"};
    const int plies = 9000;
    StrBuf args = {0};
    strbuf_add(&args, "startpos moves");
    for (int i = 0; i < plies; i++)
        strbuf_addf(&args, " %s", shuffle[i % 4]);
    StrBuf script = {0};
    strbuf_addf(&script, "position %s\ngo depth 1\n", strbuf_str(&args));
    assert_true(strlen(strbuf_str(&script)) > 50000);
    char *out = engine_answers(strbuf_str(&script), 1);
    if (count_lines(out, "info string ") != 0)
        fail_msg("the long position line was not read whole; the engine said:\n%.2000s", out);
    const Row row = {"a 9,000-ply position", "", 1, NULL, strbuf_str(&args), NULL};
    check_answers(&row, out);
    free(out);
    strbuf_free(&args);
    strbuf_free(&script);
}

/* The child of test_hash_out_of_memory (this program run again, so that
 * nothing of the parent's threads comes along): limits its address space to
 * what it uses now plus 64 MiB, so that a 4,096 MiB table cannot be had on
 * any machine, and runs the engine with its answers going to path. */
static int hash_child(const char *path)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1)
        return 3;
    fclose(f);
    const rlim_t limit = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        return 4;
    EngineVersion e;
    engine_default(&e);
    FILE *in = tmpfile(), *out = fopen(path, "w");
    if (!in || !out)
        return 5;
    fputs("setoption name Hash value 4096\nisready\nposition startpos\ngo depth 1\nisready\ngo depth 1\n", in);
    rewind(in);
    TvError err;
    uci_engine_run(in, out, &e, NULL, &err);
    fclose(in);
    fclose(out);
    return 0;
}

/* A Hash that cannot be allocated: the engine says so (an info string the
 * harness keeps among an engine's last lines) and still answers every go,
 * with the largest table it could get.  Not under AddressSanitizer: its
 * shadow memory needs terabytes of address space. */
static void test_hash_out_of_memory(void **state)
{
    (void)state;
#ifdef UNDER_ASAN
    skip();
#else
    char path[] = "/tmp/test_uci_engine_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    fflush(stdout); /* not fflush(NULL): an engine the rows left hanging holds its input's lock */
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_uci_engine", "--hash-child", path, (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    char *out = read_all(path);
    remove(path);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the engine with a limited address space did not end normally (status %d); it said:\n%s", status,
                 out);
    const Row row = {"Hash 4096 out of memory", "", 2, "out of memory for Hash 4096 MiB", "startpos", NULL};
    check_answers(&row, out);
    free(out);
#endif
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--hash-child"))
        return hash_child(argv[2]);
    const size_t nrows = sizeof ROWS / sizeof ROWS[0];
    struct CMUnitTest tests[sizeof ROWS / sizeof ROWS[0] + 2] = {{0}};
    for (size_t i = 0; i < nrows; i++) {
        tests[i].name = ROWS[i].name;
        tests[i].test_func = test_row;
        tests[i].initial_state = (void *)&ROWS[i];
    }
    tests[nrows].name = "test_long_position";
    tests[nrows].test_func = test_long_position;
    tests[nrows + 1].name = "test_hash_out_of_memory";
    tests[nrows + 1].test_func = test_hash_out_of_memory;
    return _cmocka_run_group_tests("uci_engine", tests, nrows + 2, NULL, NULL);
}
