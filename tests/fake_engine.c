/* fake_engine.c: a small engine for the protocol tests (docs/protocol.md)
 * that misbehaves on purpose.  It plays the first legal move of each
 * position (so its games are short and known), and with --mode it breaks
 * the protocol in one way once it has played --after N moves (default 0):
 *
 *   ok          never misbehaves
 *   illegal     answers a well-formed move that is not legal
 *   garbage     prints garbage lines, then "bestmove" with an unreadable move
 *   crash       dies (abort) on `go`, without an answer
 *   exit        exits (status 3) on `go`, closing its pipes
 *   hang        never answers `go` (and ignores `stop`); hang-clock the same
 *   slow-uciok  waits SECONDS (--seconds, default 12) before `uciok`
 *   slow-ready  waits SECONDS before answering `isready` after the handshake
 *   late-ready  waits SECONDS before answering the `isready` that follows a
 *               `position` (the one before `go`) once it has played N moves
 *   no-start    prints a line and exits at once (status 1)
 *   no-start-stderr  prints a line on stderr only and exits at once (status 1)
 *   overtime    sleeps past its clock: wtime/btime + SECONDS on `go`
 *   huge        prints about 64 MiB of info lines and one line of 1 MiB
 *               before its answer to go number N + 1 only, then answers
 *               normally
 *   noisy       writes 100,000 lines (7.7 MB) on stderr before its answer to
 *               go number N + 1 only, then answers normally
 *   double      answers go number N + 1 and later with its bestmove twice, the
 *               second one 20 ms later (a late duplicate)
 *   stray       on every `position` from go number N + 1 on, prints a
 *               bestmove nobody asked for (one that is illegal there)
 *   stray-ready the same after its `readyok` to each `isready` (between
 *               the harness's readyok and its `go`)
 *   crash-child on go: starts a child that keeps stdout open and sleeps,
 *               then dies (abort)
 *   close-stdout on go: closes its stdout and runs on (reads, never answers)
 *   daemon      at start, leaves a double-forked setsid daemon (stdio on
 *               /dev/null) that sleeps; plays normally
 *   grandchild  at start, leaves a child that ignores SIGTERM (stdio on
 *               /dev/null) and sleeps; plays normally
 *   crash-newgame  dies (abort) on its Nth `ucinewgame` (--after N, counted
 *               from 1; 0 counts as 1), between two games
 *   planted     a planted optimum for the SPSA tests (docs/spsa.md): declares
 *               `option name Strength type spin default 0 min 0 max MAX`
 *               (--strength-max, default 100) and plays the move whose
 *               evaluation after it (the library's, depth 1) is best with
 *               probability 1 - |Strength - X| / 100 (--optimum X, default
 *               60), else a legal move drawn at random; the draws come from
 *               the position's hash and the Strength, so games are
 *               reproducible
 *
 * --crash-newgame N: in any mode, dies (abort) on its Nth `ucinewgame` and
 * every later one (as --mode crash-newgame --after N does).
 * --slow-start N --count-file F: in any mode, the Nth start of the program
 * (counted in file F, shared by every process given it) waits SECONDS
 * (--seconds) before `uciok`: a start late once, on a loaded machine.
 * --no-rules: does not declare the rule options (slide_over_own, enpassant,
 * ending), so a tournament with a non-default rule option must refuse it.
 * --name NAME: its `id name`.  Every other line is ignored. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eval.h"
#include "movegen.h"
#include "rng.h"
#include "notation.h"
#include "record.h"
#include "strbuf.h"
#include "uci.h"

static void say(const char *line)
{
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* A move string that reads as a move but is not legal in p. */
static void illegal_move(const Position *p, const Options *o, char *buf, size_t n)
{
    static const char files[] = "abcdefgh";
    for (int from = 0; from < 64; from++)
        for (int to = 0; to < 64; to++) {
            if (from == to)
                continue;
            snprintf(buf, n, "%c%d-%c%d", files[from % 8], from / 8 + 1, files[to % 8], to / 8 + 1);
            Move m;
            if (move_parse(p, o, buf, TV_PARSE_STRICT, &m, NULL, NULL) == TV_ERR_ILLEGAL)
                return;
        }
    snprintf(buf, n, "a1-a8");
}

/* The planted mode's move (see the header). */
static Move planted_move(const Position *pos, const Options *o, const MoveList *list, long strength, long optimum,
                         int *score_out)
{
    EvalParams params;
    eval_params_default(&params);
    int best = 0, best_score = 0;
    for (int i = 0; i < list->count; i++) {
        Position next = *pos;
        Undo u;
        pos_make_move(&next, list->moves[i], &u);
        int score = -eval_position(&next, o, &params, NULL);
        if (i == 0 || score > best_score) {
            best = i;
            best_score = score;
        }
    }
    uint64_t state = tv_rng_mix(pos->hash ^ ((uint64_t)strength * 0x9E3779B97F4A7C15ull));
    double p = 1.0 - (double)labs(strength - optimum) / 100.0;
    double u = (double)(tv_rng_next(&state) >> 11) / 9007199254740992.0;
    Move m = u < p ? list->moves[best] : list->moves[tv_rng_below(&state, (uint64_t)list->count)];
    Position next = *pos;
    Undo un;
    pos_make_move(&next, m, &un);
    *score_out = -eval_position(&next, o, &params, NULL); /* reported, for the resign adjudication */
    return m;
}

/* A process that sleeps until killed, with its stdio on /dev/null. */
static void sleeper(void)
{
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; fd++)
        dup2(null, fd);
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    const char *mode = "ok", *name = "fake";
    int after = 0;
    double seconds = 12; /* --seconds: decimals allowed (0.3) */
    long strength = 0, optimum = 60, strength_max = 100;
    int crash_newgame = 0; /* --crash-newgame N: 0 never */
    int slow_start = 0;    /* --slow-start N: 0 never */
    const char *count_file = NULL;
    bool rules = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mode") && i + 1 < argc)
            mode = argv[++i];
        else if (!strcmp(argv[i], "--after") && i + 1 < argc)
            after = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--optimum") && i + 1 < argc)
            optimum = atol(argv[++i]);
        else if (!strcmp(argv[i], "--strength-max") && i + 1 < argc)
            strength_max = atol(argv[++i]);
        else if (!strcmp(argv[i], "--crash-newgame") && i + 1 < argc)
            crash_newgame = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--slow-start") && i + 1 < argc)
            slow_start = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--count-file") && i + 1 < argc)
            count_file = argv[++i];
        else if (!strcmp(argv[i], "--no-rules"))
            rules = false;
        else {
            fprintf(stderr, "fake_engine: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    bool slow_now = false; /* this start is the --slow-start one */
    if (slow_start > 0 && count_file) {
        int fd = open(count_file, O_RDWR | O_CREAT, 0644);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fd >= 0 && fcntl(fd, F_SETLKW, &fl) == 0) {
            char b[32] = "";
            ssize_t n = pread(fd, b, sizeof b - 1, 0);
            int count = (n > 0 ? atoi(b) : 0) + 1;
            int len = snprintf(b, sizeof b, "%d\n", count);
            if (ftruncate(fd, 0) == 0 && pwrite(fd, b, (size_t)len, 0) == len)
                slow_now = count == slow_start;
        }
        if (fd >= 0)
            close(fd);
    }
    if (!strcmp(mode, "no-start")) {
        say("fake_engine: cannot start (this is on purpose)");
        return 1;
    }
    if (!strcmp(mode, "daemon")) {
        fflush(stdout);
        pid_t mid = fork();
        if (mid == 0) {
            setsid();
            if (fork() == 0)
                sleeper();
            _exit(0);
        }
        waitpid(mid, NULL, 0);
    }
    if (!strcmp(mode, "grandchild")) {
        fflush(stdout);
        if (fork() == 0) {
            signal(SIGTERM, SIG_IGN);
            sleeper();
        }
    }
    if (!strcmp(mode, "no-start-stderr")) {
        fputs("fake_engine: no weights file (this is on purpose)\n", stderr);
        return 1;
    }
    Options o = {0};
    Position pos;
    tfen_read_arg("startpos", &pos, NULL);
    int played = 0, newgames = 0;
    bool handshake_done = false;
    bool positioned = false; /* a position came, and no go yet */
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        char verb[32];
        const char *args = uci_verb(line, verb, sizeof verb);
        if (!strcmp(verb, "uci")) {
            char l[160];
            snprintf(l, sizeof l, "id name %s", name);
            say(l);
            say("id author the tavreli tests");
            say("option name Hash type spin default 1 min 1 max 16");
            if (!strcmp(mode, "planted")) {
                snprintf(l, sizeof l, "option name Strength type spin default 0 min 0 max %ld", strength_max);
                say(l);
            }
            if (rules)
                for (int i = 0; i < TV_NRULE_OPTIONS; i++) {
                    UciOption d;
                    StrBuf b = {0};
                    uci_rule_option_decl(i, &d);
                    uci_option_format(&d, &b);
                    say(strbuf_str(&b));
                    strbuf_free(&b);
                }
            if (!strcmp(mode, "slow-uciok") || slow_now)
                sleep_ms((long)(seconds * 1000));
            slow_now = false;
            say("uciok");
        } else if (!strcmp(verb, "isready")) {
            if ((handshake_done && !strcmp(mode, "slow-ready")) ||
                (positioned && played >= after && !strcmp(mode, "late-ready")))
                sleep_ms((long)(seconds * 1000));
            handshake_done = true;
            if (played >= after && !strcmp(mode, "stray-ready")) {
                /* in one write: both lines are readable before the go */
                char l[96], mv[TV_MOVE_STR_MAX];
                illegal_move(&pos, &o, mv, sizeof mv);
                snprintf(l, sizeof l, "readyok\nbestmove %s", mv);
                say(l);
            } else
                say("readyok");
        } else if (!strcmp(verb, "setoption")) {
            char n[64], v[256];
            bool is_rule;
            if (uci_setoption_parse(args, n, sizeof n, v, sizeof v, NULL) == TV_OK) {
                uci_rule_option_set(&o, n, v, &is_rule, NULL);
                if (!strcmp(n, "Strength"))
                    strength = atol(v);
            }
        } else if (!strcmp(verb, "position")) {
            positioned = true;
            if (uci_position_parse(args, &o, &pos, NULL, 0, NULL, NULL) != TV_OK)
                say("info string fake_engine: cannot read that position");
            if (played >= after && !strcmp(mode, "stray")) {
                char l[96], mv[TV_MOVE_STR_MAX];
                illegal_move(&pos, &o, mv, sizeof mv);
                snprintf(l, sizeof l, "bestmove %s", mv);
                say(l);
            }
        } else if (!strcmp(verb, "go")) {
            UciGo go;
            uci_go_parse(args, &go, NULL);
            const bool bad = played >= after;
            played++;
            positioned = false;
            MoveList list;
            movegen_legal(&pos, &o, &list);
            char mv[TV_MOVE_STR_MAX] = "0000";
            int score = 0;
            if (list.count > 0)
                move_to_str(&pos, &o,
                            strcmp(mode, "planted") ? list.moves[0]
                                                    : planted_move(&pos, &o, &list, strength, optimum, &score),
                            false, mv, sizeof mv);
            if (bad && !strcmp(mode, "illegal"))
                illegal_move(&pos, &o, mv, sizeof mv);
            if (bad && !strcmp(mode, "garbage")) {
                say("\x01\x02 this is not a protocol line \xff");
                say("info depth banana score cp x");
                snprintf(mv, sizeof mv, "?\?-!!");
            }
            if (bad && !strcmp(mode, "crash"))
                abort();
            if (bad && !strcmp(mode, "exit"))
                exit(3);
            if (bad && !strcmp(mode, "crash-child")) {
                fflush(stdout);
                if (fork() == 0)
                    for (;;)
                        pause();
                abort();
            }
            if (bad && !strcmp(mode, "close-stdout")) {
                fclose(stdout);
                while (fgets(line, sizeof line, stdin))
                    ;
                for (;;)
                    pause();
            }
            if (bad && (!strcmp(mode, "hang") || !strcmp(mode, "hang-clock")))
                for (;;)
                    pause();
            if (bad && !strcmp(mode, "overtime")) {
                int left = pos.side == TV_WHITE ? go.wtime_ms : go.btime_ms;
                sleep_ms((left > 0 ? left : 0) + (long)(seconds * 1000));
            }
            if (played == after + 1 && !strcmp(mode, "noisy"))
                for (int i = 0; i < 100000; i++)
                    fprintf(stderr, "fake_engine: noisy line %d of 100000, on purpose, to fill its stderr file\n", i);
            if (played == after + 1 && !strcmp(mode, "huge")) {
                static char big[1 << 20];
                memset(big, 'x', sizeof big - 1);
                fputs("info string ", stdout);
                fputs(big, stdout);
                fputc('\n', stdout);
                for (int i = 0; i < 600000; i++)
                    printf("info depth 1 score cp 0 nodes %d nps 1 time 0 pv %s %s %s %s %s %s %s %s\n", i, mv, mv,
                           mv, mv, mv, mv, mv, mv);
            }
            char l[96];
            snprintf(l, sizeof l, "info depth 1 score cp %d nodes 1 nps 1 time 0 pv %s", score, mv);
            say(l);
            snprintf(l, sizeof l, "bestmove %s", mv);
            say(l);
            if (bad && !strcmp(mode, "double")) {
                sleep_ms(20);
                say(l);
            }
        } else if (!strcmp(verb, "ucinewgame")) {
            newgames++;
            if ((!strcmp(mode, "crash-newgame") && newgames >= (after > 0 ? after : 1)) ||
                (crash_newgame > 0 && newgames >= crash_newgame))
                abort();
        } else if (!strcmp(verb, "quit")) {
            return 0;
        }
        /* stop and anything else: nothing to do */
    }
    return 0;
}
