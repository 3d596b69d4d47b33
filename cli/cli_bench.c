/* cli_bench.c: `tavreli bench selfplay`, `bench protocol` and `bench mpi`, the
 * benchmarks that play whole tournaments (bench mpi forks mpirun).  The
 * benchmarks of the rules, the search and the tuner are beside their commands
 * (cli_rules.c, cli_engine.c, cli_tune.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "h5store.h"
#include "report.h"
#include "runner.h"
#include "serve.h"
#include "status.h"
#include "tournament.h"

/* ---- bench selfplay ------------------------------------------------------------ */

/* A fixed tournament: the default engine against itself at a fixed depth,
 * random balanced openings, played once on 1 thread and once on 2. */
static void bench_tournament(Tournament *t, int depth, uint64_t nodes, int games)
{
    tournament_defaults(t, "bench");
    t->text = "[tournament]\nname = bench\n; built in: tavreli bench selfplay\n";
    t->nengines = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(t->engines[i].engine.name, sizeof t->engines[i].engine.name, "default-%c", 'a' + i);
        snprintf(t->engines[i].path, sizeof t->engines[i].path, "(built in)");
        t->engines[i].engine.limits = (SearchLimits){depth, nodes, 0};
    }
    t->pairs = (games + 1) / 2;
    t->seed = 2026;
}

static const char BENCH_SELFPLAY_HELP[] =
    "usage: tavreli bench selfplay [--depth N] [--games N]\n"
    "\n"
    "Runs a fixed tournament (the default engine against itself at depth N, 3 by\n"
    "default, 1 to 20; N games, 40 by default) on 1 and then 2 threads and prints\n"
    "games per hour, the speed-up, the share of wall time spent writing HDF5 and\n"
    "the bytes per stored position.\n\n"
    "Examples:\n"
    "  tavreli bench selfplay\n"
    "  tavreli bench selfplay --depth 4 --games 20\n";

typedef struct {
    long depth, games;
} BenchSelfplayArgs;

static const CliFlag BENCH_SELFPLAY_FLAGS[] = {
    {"depth", 0, CLI_LONG, offsetof(BenchSelfplayArgs, depth), 1, 20},
    {"games", 0, CLI_LONG, offsetof(BenchSelfplayArgs, games), 2, 100000},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_bench_selfplay(const CliCommand *cmd, int argc, char **argv)
{
    BenchSelfplayArgs a = {3, 40};
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    const int depth = (int)a.depth, games = (int)a.games;
    char dir[480];
    if (!cli_temp_dir("bench", dir, sizeof dir)) {
        cli_error("bench selfplay: cannot make a temporary directory in %s: %s", cli_temp_root(), strerror(errno));
        return CLI_FAIL;
    }
    Tournament t;
    bench_tournament(&t, depth, 0, games);
    double rate[2] = {0, 0};
    int rc = CLI_OK;
    for (int th = 1; th <= 2; th++) {
        char path[600];
        snprintf(path, sizeof path, "%s/bench%d.h5", dir, th);
        RunOptions ro;
        memset(&ro, 0, sizeof ro);
        ro.t = &t;
        ro.out_path = path;
        ro.threads = th;
        ro.force = true;
        RunStats s;
        TvError err;
        TvStatus st = runner_run(&ro, &s, &err);
        run_stats_free(&s);
        if (st != TV_OK) {
            cli_error("bench selfplay: %s", err.msg);
            rc = CLI_FAIL;
            break;
        }
        FILE *f = fopen(path, "rb");
        long bytes = 0;
        if (f) {
            fseek(f, 0, SEEK_END);
            bytes = ftell(f);
            fclose(f);
        }
        rate[th - 1] = s.played / s.wall_seconds * 3600;
        printf("%d thread%s: %lld games at depth %d in %.1f s: %.0f games/hour; HDF5 writing %.3f s = %.2f%% of "
               "wall time; %lld positions, %ld bytes on disk = %.1f bytes/position\n",
               th, th > 1 ? "s" : "", (long long)s.played, depth, s.wall_seconds, rate[th - 1], s.store_seconds,
               100 * s.store_seconds / s.wall_seconds, (long long)s.positions, bytes,
               s.positions ? (double)bytes / (double)s.positions : 0.0);
        fflush(stdout);
        remove(path);
    }
    rmdir(dir);
    if (rc == CLI_OK)
        printf("speed-up 2 threads / 1 thread: %.2fx\n", rate[0] > 0 ? rate[1] / rate[0] : 0.0);
    return rc;
}

const CliCommand CLI_BENCH_SELFPLAY = {"bench selfplay", BENCH_SELFPLAY_HELP, BENCH_SELFPLAY_FLAGS, run_bench_selfplay};

/* ---- bench protocol ---------------------------------------------------------- */

static const char BENCH_PROTOCOL_HELP[] =
    "usage: tavreli bench protocol [--nodes N] [--games N] [--rounds R]\n"
    "\n"
    "Measures what playing over the engine protocol costs: the same fixed\n"
    "tournament (the default engine against itself, N nodes a move, 20000 by\n"
    "default; N games, 20 by default, on 1 thread) is played in-process and with\n"
    "both engines as separate `tavreli uci` processes, alternately R times (2 by\n"
    "default, so that a change in the machine's load hits both alike).  Prints\n"
    "games per hour of each, the protocol's overhead in percent and whether\n"
    "both gave the same games (they must: node limits are reproducible).\n\n"
    "Examples:\n"
    "  tavreli bench protocol\n"
    "  tavreli bench protocol --nodes 50000 --games 10\n";

typedef struct {
    long nodes, games, rounds;
} BenchProtocolArgs;

static const CliFlag BENCH_PROTOCOL_FLAGS[] = {
    {"nodes", 0, CLI_LONG, offsetof(BenchProtocolArgs, nodes), 100, 100000000},
    {"games", 0, CLI_LONG, offsetof(BenchProtocolArgs, games), 2, 100000},
    {"rounds", 0, CLI_LONG, offsetof(BenchProtocolArgs, rounds), 1, 100},
    {NULL, 0, 0, 0, 0, 0},
};

/* Plays t into path; the wall time, or a negative number after an error. */
static double bench_protocol_round(const Tournament *t, const char *path, TvError *err)
{
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = t;
    ro.out_path = path;
    ro.threads = 1;
    ro.force = true;
    RunStats s;
    TvStatus st = runner_run(&ro, &s, err);
    double wall = s.wall_seconds;
    run_stats_free(&s);
    return st == TV_OK ? wall : -1;
}

static int run_bench_protocol(const CliCommand *cmd, int argc, char **argv)
{
    BenchProtocolArgs a = {20000, 20, 2};
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || (size_t)n >= sizeof self - 1) {
        cli_error("bench protocol: cannot find this program's path (/proc/self/exe)");
        return CLI_FAIL;
    }
    self[n] = 0;
    char dir[480];
    if (!cli_temp_dir("bench", dir, sizeof dir)) {
        cli_error("bench protocol: cannot make a temporary directory in %s: %s", cli_temp_root(), strerror(errno));
        return CLI_FAIL;
    }
    Tournament t[2]; /* in-process, over the protocol */
    for (int k = 0; k < 2; k++)
        bench_tournament(&t[k], 0, (uint64_t)a.nodes, (int)a.games);
    for (int i = 0; i < 2; i++) {
        TournamentEngine *e = &t[1].engines[i];
        e->kind = PLAYER_PROCESS;
        snprintf(e->command, sizeof e->command, "'%.1000s' uci", self);
        snprintf(e->dir, sizeof e->dir, "%s", dir);
    }
    double wall[2] = {0, 0};
    int64_t games = 0;
    int rc = CLI_OK;
    char path[2][600];
    for (int r = 0; r < a.rounds && rc == CLI_OK; r++)
        for (int k = 0; k < 2; k++) {
            snprintf(path[k], sizeof path[k], "%s/%s.h5", dir, k ? "protocol" : "in-process");
            TvError err;
            double w = bench_protocol_round(&t[k], path[k], &err);
            if (w < 0) {
                cli_error("bench protocol: %s", err.msg);
                rc = CLI_FAIL;
                break;
            }
            wall[k] += w;
            printf("round %d, %s: %ld games in %.1f s\n", r + 1, k ? "over the protocol" : "in-process", a.games,
                   w);
            fflush(stdout);
        }
    games = a.rounds * a.games;
    bool same = false;
    if (rc == CLI_OK) {
        StoreContents c[2];
        TvError err;
        bool read = true;
        for (int k = 0; k < 2 && read; k++)
            read = h5store_read(path[k], true, false, &c[k], &err) == TV_OK;
        if (read) {
            same = c[0].nmoves == c[1].nmoves;
            for (int64_t i = 0; same && i < c[0].nmoves; i++)
                same = !strcmp(c[0].moves[i].move, c[1].moves[i].move) && c[0].moves[i].score == c[1].moves[i].score &&
                       c[0].moves[i].nodes == c[1].moves[i].nodes;
            h5store_contents_free(&c[0]);
            h5store_contents_free(&c[1]);
        }
        const double rate_in = games / wall[0] * 3600, rate_proto = games / wall[1] * 3600;
        printf("%lld games at %ld nodes a move, 1 thread: in-process %.0f games/hour, over the protocol %.0f "
               "games/hour: overhead %.1f%%; same games: %s\n",
               (long long)games, a.nodes, rate_in, rate_proto, 100.0 * (wall[1] - wall[0]) / wall[0],
               same ? "yes" : "NO");
        if (!same)
            rc = CLI_FAIL;
    }
    remove(path[0]);
    remove(path[1]);
    rmdir(dir);
    return rc;
}

const CliCommand CLI_BENCH_PROTOCOL = {"bench protocol", BENCH_PROTOCOL_HELP, BENCH_PROTOCOL_FLAGS,
                                       run_bench_protocol};

/* ---- bench mpi ------------------------------------------------------------------ */

/* Runs argv (stdout and stderr to log); returns its exit status or -1. */
static int run_logged(char *const *argv, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void show_log(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        fputs(line, stderr);
    if (f)
        fclose(f);
}

static const char BENCH_MPI_HELP[] =
    "usage: tavreli bench mpi [--ranks N] [--depth N] [--games N] [--mpirun CMD]\n"
    "\n"
    "In a build with -DTAVRELI_MPI=ON: runs the 'bench selfplay' tournament through\n"
    "mpirun (or CMD, or $TAVRELI_MPIRUN), with 1 rank and then N ranks (default 2,\n"
    "2 to 4096) of one thread each, and prints games per hour over mpirun's whole\n"
    "wall time (MPI start-up and the final merge included) and the speed-up.\n\n"
    "Example:\n"
    "  tavreli bench mpi --ranks 2\n";

typedef struct {
    long ranks, depth, games;
    const char *mpirun;
} BenchMpiArgs;

static const CliFlag BENCH_MPI_FLAGS[] = {
    {"ranks", 0, CLI_LONG, offsetof(BenchMpiArgs, ranks), 2, 4096},
    {"depth", 0, CLI_LONG, offsetof(BenchMpiArgs, depth), 1, 20},
    {"games", 0, CLI_LONG, offsetof(BenchMpiArgs, games), 2, 100000},
    {"mpirun", 0, CLI_STRING, offsetof(BenchMpiArgs, mpirun), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_bench_mpi(const CliCommand *cmd, int argc, char **argv)
{
    BenchMpiArgs a = {2, 3, 40, NULL};
    a.mpirun = getenv("TAVRELI_MPIRUN") ? getenv("TAVRELI_MPIRUN") : "mpirun";
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    const int depth = (int)a.depth, games = (int)a.games, ranks = (int)a.ranks;
    const char *mpirun = a.mpirun;
#ifndef TAVRELI_WITH_MPI
    (void)run_logged;
    (void)show_log;
    (void)depth;
    (void)games;
    (void)ranks;
    (void)mpirun;
    cli_error("bench mpi: this tavreli was built without MPI: rebuild with 'cmake -DTAVRELI_MPI=ON'");
    return CLI_FAIL;
#else
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        cli_error("bench mpi: cannot find this program's path (/proc/self/exe)");
        return CLI_FAIL;
    }
    self[n] = '\0';
    char dir[480];
    if (!cli_temp_dir("bench-mpi", dir, sizeof dir)) {
        cli_error("bench mpi: cannot make a temporary directory in %s: %s", cli_temp_root(), strerror(errno));
        return CLI_FAIL;
    }
    /* The tournament of bench selfplay, as files the ranks can read. */
    char eng[520], ini[520], log[520];
    snprintf(eng, sizeof eng, "%s/default.ini", dir);
    snprintf(ini, sizeof ini, "%s/bench.ini", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    EngineVersion ev;
    engine_default(&ev);
    TvError err;
    int rc = CLI_OK;
    FILE *f = NULL;
    if (engine_write(eng, &ev, "tavreli bench mpi", &err) != TV_OK || !(f = fopen(ini, "w"))) {
        cli_error("bench mpi: cannot write the benchmark files in %s", dir);
        rc = CLI_FAIL;
        goto done;
    }
    /* bench selfplay's tournament: every setting not given is the default */
    fprintf(f,
            "[tournament]\nname = bench-mpi\npairs = %d\nseed = 2026\n"
            "[engine default-a]\npath = default.ini\ndepth = %d\n[engine default-b]\npath = default.ini\ndepth = %d\n",
            (games + 1) / 2, depth, depth);
    fclose(f);
    double rate[2] = {0, 0};
    int64_t counts[2] = {0, 0};
    const int np[2] = {1, ranks};
    for (int k = 0; k < 2 && rc == CLI_OK; k++) {
        char out[520], npstr[16];
        snprintf(out, sizeof out, "%s/r%d.h5", dir, np[k]);
        snprintf(npstr, sizeof npstr, "%d", np[k]);
        char *args[20];
        int a = 0;
        args[a++] = (char *)mpirun;
        if (geteuid() == 0)
            args[a++] = "--allow-run-as-root";
        args[a++] = "--oversubscribe";
        args[a++] = "-np";
        args[a++] = npstr;
        args[a++] = self;
        args[a++] = "selfplay";
        args[a++] = ini;
        args[a++] = "--out";
        args[a++] = out;
        args[a++] = "--threads";
        args[a++] = "1";
        args[a++] = "--quiet";
        args[a] = NULL;
        double t0 = tv_now_seconds();
        int status = run_logged(args, log);
        double wall = tv_now_seconds() - t0;
        StoreContents c;
        if (status != 0 || h5store_read(out, false, false, &c, &err) != TV_OK) {
            cli_error("bench mpi: '%s -np %d %s selfplay ...' failed (exit %d):", mpirun, np[k], self, status);
            show_log(log);
            rc = CLI_FAIL;
            break;
        }
        counts[k] = c.ngames;
        h5store_contents_free(&c);
        rate[k] = (double)counts[k] / wall * 3600;
        printf("%d rank%s x 1 thread: %lld games at depth %d in %.1f s (wall time of mpirun, start-up and merge "
               "included): %.0f games/hour\n",
               np[k], np[k] > 1 ? "s" : "", (long long)counts[k], depth, wall, rate[k]);
        fflush(stdout);
        remove(out);
    }
    if (rc == CLI_OK)
        printf("speed-up %d ranks / 1 rank: %.2fx\n", ranks, rate[0] > 0 ? rate[1] / rate[0] : 0.0);
done:
    remove(eng);
    remove(ini);
    remove(log);
    rmdir(dir);
    return rc;
#endif
}

const CliCommand CLI_BENCH_MPI = {"bench mpi", BENCH_MPI_HELP, BENCH_MPI_FLAGS, run_bench_mpi};

/* ---- bench serve ------------------------------------------------------------------ */

static const char BENCH_SERVE_HELP[] =
    "usage: tavreli bench serve [--stores N] [--games N] [--rounds R] [--data FILE.h5]\n"
    "\n"
    "Times 'tavreli serve' answering the runs list (GET /api/runs over HTTP on\n"
    "127.0.0.1) of a folder of N stores (100 by default), each a copy of one\n"
    "store: of FILE.h5 with --data, else of a fixed tournament of N games (40 by\n"
    "default; the default engine against itself at depth 2). Prints the cold\n"
    "answers (the first, which reads stores for about a second and lists the rest\n"
    "as not read yet, and the time until every store is read), the median, least\n"
    "and most of R more (20 by default: the stores unchanged, from the server's\n"
    "cache), and beside them the time 'tavreli report' takes to read the same\n"
    "stores and report on them.\n"
    "\n"
    "Examples:\n"
    "  tavreli bench serve\n"
    "  tavreli bench serve --stores 100 --data results/quick.h5\n";

typedef struct {
    long stores, games, rounds;
    const char *data;
} BenchServeArgs;

static const CliFlag BENCH_SERVE_FLAGS[] = {
    {"stores", 0, CLI_LONG, offsetof(BenchServeArgs, stores), 1, 4000},
    {"games", 0, CLI_LONG, offsetof(BenchServeArgs, games), 2, 100000},
    {"rounds", 0, CLI_LONG, offsetof(BenchServeArgs, rounds), 1, 10000},
    {"data", 0, CLI_STRING, offsetof(BenchServeArgs, data), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* GET path from 127.0.0.1:port; the body's length, or -1 on an error or a
 * status other than 200. */
static long http_get(int port, const char *path, char **body)
{
    *body = NULL;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    StrBuf b = {0};
    char buf[65536];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        strbuf_add_n(&b, buf, (size_t)got);
    close(fd);
    const char *s = strbuf_str(&b);
    const char *sep = strstr(s, "\r\n\r\n");
    if (strncmp(s, "HTTP/1.", 7) != 0 || strncmp(s + 8, " 200", 4) != 0 || !sep) {
        strbuf_free(&b);
        return -1;
    }
    long len = (long)(b.len - (size_t)(sep + 4 - s));
    *body = strdup(sep + 4);
    strbuf_free(&b);
    return *body ? len : -1;
}

static bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    bool ok = in && out;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out)
        ok = fclose(out) == 0 && ok;
    return ok;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int run_bench_serve(const CliCommand *cmd, int argc, char **argv)
{
    BenchServeArgs a = {100, 40, 20, NULL};
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    char dir[480], runs[560], source[600];
    if (!cli_temp_dir("bench-serve", dir, sizeof dir)) {
        cli_error("bench serve: cannot make a temporary directory in %s: %s", cli_temp_root(), strerror(errno));
        return CLI_FAIL;
    }
    snprintf(runs, sizeof runs, "%s/runs", dir);
    int rc = CLI_FAIL;
    TvError err;
    Server *srv = NULL;
    double *t = NULL;
    char **files = NULL;
    if (mkdir(runs, 0755) != 0) {
        cli_error("bench serve: cannot make %s: %s", runs, strerror(errno));
        goto done;
    }
    if (a.data) {
        snprintf(source, sizeof source, "%s", a.data);
    } else {
        snprintf(source, sizeof source, "%s/source.h5", dir);
        Tournament tn;
        bench_tournament(&tn, 2, 0, (int)a.games);
        RunOptions ro;
        memset(&ro, 0, sizeof ro);
        ro.t = &tn;
        ro.out_path = source;
        ro.threads = 2;
        ro.force = true;
        RunStats s;
        TvStatus st = runner_run(&ro, &s, &err);
        run_stats_free(&s);
        if (st != TV_OK) {
            cli_error("bench serve: %s", err.msg);
            goto done;
        }
    }
    files = calloc((size_t)a.stores, sizeof *files);
    if (!files)
        goto done;
    for (long i = 0; i < a.stores; i++) {
        files[i] = malloc(640);
        if (!files[i])
            goto done;
        snprintf(files[i], 640, "%s/run-%04ld.h5", runs, i);
        if (!copy_file(source, files[i])) {
            cli_error("bench serve: cannot copy %s to %s", source, files[i]);
            goto done;
        }
    }
    ServeOptions so;
    serve_options_default(&so);
    so.dir = runs;
    so.port = 0;
    if (serve_start(&so, &srv, &err) != TV_OK) {
        cli_error("bench serve: %s", err.msg);
        goto done;
    }
    const int port = serve_port(srv);
    char *body;
    /* cold: the first answers read the stores (each answer for about a
     * second, the rest listed as not read yet) until every one is read */
    double t0 = now_seconds(), first = 0;
    long len = 0, listed = 0, pending = 0, answers = 0, first_pending = 0;
    do {
        double t1 = now_seconds();
        len = http_get(port, "/api/runs", &body);
        if (answers++ == 0)
            first = now_seconds() - t1;
        listed = pending = 0;
        for (const char *p = body; p && (p = strstr(p, "\"kind\": \"tournament\"")); p++)
            listed++;
        for (const char *p = body; p && (p = strstr(p, "\"state\": \"reading\"")); p++)
            pending++;
        if (answers == 1)
            first_pending = pending;
        free(body);
    } while (len >= 0 && pending > 0 && answers < 100000);
    const double cold = now_seconds() - t0;
    if (len < 0 || listed != a.stores) {
        cli_error("bench serve: the runs list listed %ld of the %ld stores (answer of %ld bytes)", listed, a.stores,
                  len);
        goto done;
    }
    printf("runs list of %ld stores, cold: first answer %.1f ms with %ld of them read; every store read after %ld "
           "answers, %.1f ms in all\n",
           a.stores, 1e3 * first, a.stores - first_pending, answers, 1e3 * cold);
    t = malloc((size_t)a.rounds * sizeof *t);
    if (!t)
        goto done;
    for (long r = 0; r < a.rounds; r++) {
        t0 = now_seconds();
        len = http_get(port, "/api/runs", &body);
        t[r] = now_seconds() - t0;
        free(body);
        if (len < 0) {
            cli_error("bench serve: a request failed");
            goto done;
        }
    }
    qsort(t, (size_t)a.rounds, sizeof *t, cmp_double);
    printf("runs list of %ld stores (%ld bytes), warm: %ld answers: median %.2f ms, least %.2f, most %.2f "
           "(unchanged stores, from the cache)\n",
           a.stores, len, a.rounds, 1e3 * t[a.rounds / 2], 1e3 * t[0], 1e3 * t[a.rounds - 1]);
    fflush(stdout);
    serve_stop(srv);
    srv = NULL;
    char out[640];
    snprintf(out, sizeof out, "%s/report", dir);
    const ReportOptions ropt = {.simulations = 0, .mix_rules = false, .baseline = NULL};
    t0 = now_seconds();
    if (report_write_opts((const char *const *)files, (int)a.stores, NULL, out, &ropt, NULL, &err) != TV_OK) {
        cli_error("bench serve: tavreli report: %s", err.msg);
        goto done;
    }
    printf("beside it: tavreli report of the same %ld stores: %.1f ms\n", a.stores, 1e3 * (now_seconds() - t0));
    rc = CLI_OK;
done:
    serve_stop(srv);
    free(t);
    if (files)
        for (long i = 0; i < a.stores; i++) {
            if (files[i])
                remove(files[i]);
            free(files[i]);
        }
    free(files);
    cli_remove_temp_dir(dir, "bench serve");
    return rc;
}

const CliCommand CLI_BENCH_SERVE = {"bench serve", BENCH_SERVE_HELP, BENCH_SERVE_FLAGS, run_bench_serve};
