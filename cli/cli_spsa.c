/* cli_spsa.c: `tavreli spsa CONFIG.ini` (tuner/spsa_run.h does the work). */
#include <signal.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "distrib.h"
#include "export.h"
#include "h5store.h"
#include "progress.h"
#include "spsa_run.h"
#include "stats.h"

static const char SPSA_HELP[] =
    "usage: tavreli spsa CONFIG.ini [--out DIR] [--threads N] [--resume|--force]\n"
    "\n"
    "Tunes engine settings, weights or a separate program's options by SPSA\n"
    "played as games (docs/spsa.md): CONFIG.ini has an [spsa] section with one\n"
    "'param NAME = START, MIN, MAX, C_END, R_END' line per parameter, one\n"
    "[engine NAME] section (path = ENGINE.ini or command = PROGRAM, with its\n"
    "limits) and [rules], [openings] and [adjudication] as a tournament. Each\n"
    "iteration plays [spsa] batch opening pairs of theta + c delta against\n"
    "theta - c delta and steps theta; the trajectory depends only on the file.\n"
    "Every game and the /spsa table go to DIR/spsa.h5; at the end the tuned\n"
    "engine is written (DIR/tuned.ini: an engine INI, or a program's option lines)\n"
    "and, unless [spsa] verify = no, an SPRT of it against the start is played into\n"
    "DIR/verify.h5. Ctrl-C or SIGTERM stops cleanly; --resume continues.\n"
    "\n"
    "  --out DIR      where the run is kept (default results/NAME)\n"
    "  --threads N    game threads (default [spsa] threads; 0 = all cores)\n"
    "  --resume       continue the run in DIR (a run that is not there starts)\n"
    "  --force        start anew, replacing DIR/spsa.h5\n\n"
    "Examples:\n"
    "  tavreli spsa configs/spsa/detuned.ini --threads 2\n"
    "  tavreli spsa configs/spsa/detuned.ini --resume\n";

typedef struct {
    const char *out;
    long threads;
    bool resume, force;
} SpsaArgs;

static const CliFlag SPSA_FLAGS[] = {
    {"out", 0, CLI_STRING, offsetof(SpsaArgs, out), 0, 0},
    {"threads", 0, CLI_LONG, offsetof(SpsaArgs, threads), 0, 1024},
    {"resume", 0, CLI_BOOL, offsetof(SpsaArgs, resume), 0, 0},
    {"force", 0, CLI_BOOL, offsetof(SpsaArgs, force), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static volatile sig_atomic_t g_spsa_stop = 0;
static volatile sig_atomic_t g_spsa_signal = 0;

static void on_spsa_signal(int sig)
{
    if (g_spsa_stop && sig == SIGINT) { /* a second Ctrl-C: stop at once */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (!g_spsa_signal)
        g_spsa_signal = sig;
    g_spsa_stop = 1;
}

typedef struct {
    bool tty;
} SpsaView;

/* "iteration 12/200  384 games  95.1 games/min  ETA 41m07s  lmr_base=101.3 rfp_margin=117.0", cut to the
 * terminal's width. */
static void print_progress(const SpsaProgress *p, void *user)
{
    const SpsaView *v = user;
    const SpsaConfig *c = p->c;
    char line[4096], eta[32];
    double rate = p->elapsed > 0 ? (double)p->games_run / p->elapsed * 60 : 0;
    double left = (double)(c->iterations - p->iteration) * 2 * (double)c->batch;
    cli_format_duration(rate > 0 ? left / rate * 60 : -1, eta, sizeof eta);
    int n = snprintf(line, sizeof line, "iteration %ld/%ld  %lld games  %.1f games/min  ETA %s ", p->iteration,
                     c->iterations, (long long)p->games_run, rate, eta);
    for (int i = 0; i < c->nparams && n < (int)sizeof line - 1; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s=%.1f", c->params[i].name, p->theta[i]);
    int width = cli_terminal_width(STDERR_FILENO);
    if (v->tty && (int)strlen(line) > width - 1)
        line[width > 1 ? width - 1 : 0] = 0;
    if (v->tty)
        fprintf(stderr, "\r%s\033[K%s", line, p->final ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

/* Under mpirun: once this rank has printed, waits for the others and finalises MPI. */
static void end_ranks(bool mpi)
{
#ifdef TAVRELI_WITH_MPI
    if (mpi)
        distrib_end();
#endif
    (void)mpi;
}

static void print_event(const char *text, void *user)
{
    (void)user;
    printf("%s\n", text);
    fflush(stdout);
}

static int run_spsa(const CliCommand *cmd, int argc, char **argv)
{
    SpsaArgs a = {NULL, -1, false, false};
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    if (!pos)
        return CLI_FAIL;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, pos, &npos);
    const char *config = npos == 1 ? pos[0] : NULL;
    free(pos);
    if (rc >= 0)
        return rc;
    if (!config) {
        cli_error("spsa: expected one CONFIG.ini (see 'tavreli spsa --help')");
        return CLI_USAGE;
    }
    const int launched = distrib_launched_size();
#ifdef TAVRELI_WITH_MPI
    const bool mpi = launched > 0; /* started by an MPI launcher */
#else
    const bool mpi = false;
    if (launched > 1) {
        cli_error("spsa: started as one of %d MPI ranks, but this tavreli was built without MPI: rebuild with "
                  "'cmake -DTAVRELI_MPI=ON', or run it without mpirun",
                  launched);
        return CLI_FAIL;
    }
#endif
    if (a.resume && a.force) {
        cli_error("spsa: --resume continues a run and --force replaces it: give one");
        return CLI_USAGE;
    }
    SpsaConfig *c = calloc(1, sizeof *c);
    if (!c)
        return CLI_FAIL;
    TvError err;
    if (spsa_read(config, c, &err) != TV_OK) {
        cli_error("%s", err.msg);
        free(c);
        return CLI_FAIL;
    }
    char dir[600];
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else {
        snprintf(dir, sizeof dir, "results/%s", c->name);
        mkdir("results", 0777);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_spsa_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    SpsaView view = {isatty(STDERR_FILENO) != 0};
    CliProgress verify_view = {isatty(STDERR_FILENO), 0};
    SpsaRunOptions o = {.c = c,
                        .verify_progress = cli_progress_line,
                        .verify_note = cli_progress_note,
                        .verify_user = &verify_view,
                        .dir = dir,
                        .resume = a.resume,
                        .force = a.force,
                        .threads = a.threads >= 0 ? (int)a.threads : 0,
                        .stop = &g_spsa_stop,
                        .progress = print_progress,
                        .event = print_event,
                        .user = &view,
                        .mpi = mpi};
    if (a.threads == 0)
        o.threads = -1; /* --threads 0: all cores, whatever [spsa] threads says */
    SpsaOutcome out;
    TvStatus st = spsa_run(&o, &out, &err);
    if (st != TV_OK || out.rank != 0) { /* rank 0 speaks for an MPI run */
        if (st != TV_OK)
            cli_error("%s", err.msg);
        spsa_free(c);
        free(c);
        end_ranks(mpi);
        return st != TV_OK ? CLI_FAIL : out.interrupted ? 128 + (g_spsa_signal ? (int)g_spsa_signal : SIGINT)
                                                          : CLI_OK;
    }
    printf("%ld of %ld iterations, %lld games played by this run in %.1f s; theta:", out.iterations_done,
           c->iterations, (long long)out.games_played, out.wall_seconds);
    for (int p = 0; p < c->nparams; p++)
        printf(" %s=%.2f", c->params[p].name, out.theta[p]);
    printf("\n");
    if (out.tuned[0])
        printf("tuned engine: %s\n", out.tuned);
    if (out.verified)
        printf("verification SPRT (tuned against start, elo0 %g, elo1 %g): %s\n", c->verify_elo0, c->verify_elo1,
               out.verify_result);
    int code = CLI_OK;
    if (out.interrupted) {
        printf("interrupted by signal %d; run the same command with --resume to continue\n", (int)g_spsa_signal);
        code = 128 + (g_spsa_signal ? (int)g_spsa_signal : SIGINT);
    }
    spsa_free(c);
    free(c);
    end_ranks(mpi);
    return code;
}

const CliCommand CLI_SPSA = {"spsa", SPSA_HELP, SPSA_FLAGS, run_spsa};

/* ---- bench spsa ---------------------------------------------------------------- */

static const char BENCH_SPSA_HELP[] =
    "usage: tavreli bench spsa [--depth N] [--games N] [--batch N] [--rounds R]\n"
    "\n"
    "Measures what the SPSA bookkeeping costs: one plan of N games (64 by default;\n"
    "the default engine against itself at depth N, 3 by default, random balanced\n"
    "openings) played on 2 threads by 'tavreli selfplay' (the runner in one go) and\n"
    "by 'tavreli spsa' (iterations of --batch pairs, 8 by default, one runner call\n"
    "and a step of theta each; its one parameter, lmr_base, perturbed by less than\n"
    "half a unit, so that both play the same games), alternately R times (2 by\n"
    "default, so that a change in the machine's load hits both alike). Prints\n"
    "games per hour of each, the ratio and whether both gave the same games.\n\n"
    "Example:\n"
    "  tavreli bench spsa\n";

typedef struct {
    long depth, games, batch, rounds;
} BenchSpsaArgs;

static const CliFlag BENCH_SPSA_FLAGS[] = {
    {"depth", 0, CLI_LONG, offsetof(BenchSpsaArgs, depth), 1, 20},
    {"games", 0, CLI_LONG, offsetof(BenchSpsaArgs, games), 4, 100000},
    {"batch", 0, CLI_LONG, offsetof(BenchSpsaArgs, batch), 1, 1000},
    {"rounds", 0, CLI_LONG, offsetof(BenchSpsaArgs, rounds), 1, 100},
    {NULL, 0, 0, 0, 0, 0},
};

/* Writes the digest of the store at path (tavreli export --digest) to out. */
static bool digest(const char *path, const char *out)
{
    StoreContents sc;
    TvError err;
    if (h5store_read(path, true, true, &sc, &err) != TV_OK)
        return false;
    bool ok = export_digest(&sc, out, &err) == TV_OK;
    h5store_contents_free(&sc);
    return ok;
}

/* Whether two files hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
    char *ta, *tb;
    size_t na, nb;
    TvError err;
    if (tv_read_file(a, "digest", &ta, &na, &err) != TV_OK)
        return false;
    if (tv_read_file(b, "digest", &tb, &nb, &err) != TV_OK) {
        free(ta);
        return false;
    }
    bool same = na == nb && !memcmp(ta, tb, na);
    free(ta);
    free(tb);
    return same;
}

static int run_bench_spsa(const CliCommand *cmd, int argc, char **argv)
{
    BenchSpsaArgs a = {3, 64, 8, 2};
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (parsed >= 0)
        return parsed;
    long iterations = a.games / (2 * a.batch);
    if (iterations < 1) {
        cli_error("bench spsa: --games %ld is less than one iteration of --batch %ld pairs", a.games, a.batch);
        return CLI_USAGE;
    }
    char dir[400];
    if (!cli_temp_dir("bench-spsa", dir, sizeof dir)) {
        cli_error("bench spsa: cannot make a temporary directory in %s: %s", cli_temp_root(), strerror(errno));
        return CLI_FAIL;
    }
    char engine[450], ini[450], store[450], run[450];
    snprintf(engine, sizeof engine, "%s/default.ini", dir);
    snprintf(ini, sizeof ini, "%s/bench.ini", dir);
    snprintf(store, sizeof store, "%s/selfplay.h5", dir);
    snprintf(run, sizeof run, "%s/spsa", dir);
    EngineVersion e;
    engine_default(&e);
    TvError err;
    SpsaConfig *c = calloc(1, sizeof *c);
    int rc = CLI_OK;
    FILE *f = NULL;
    if (!c || engine_write(engine, &e, NULL, &err) != TV_OK || !(f = fopen(ini, "w"))) {
        cli_error("bench spsa: cannot write %s", dir);
        free(c);
        return CLI_FAIL;
    }
    /* c_end 0.001: the perturbation stays below half a unit, so both players play the default engine */
    fprintf(f,
            "[spsa]\nname = bench\niterations = %ld\nbatch = %ld\nseed = 2026\nthreads = 2\nverify = no\n"
            "param lmr_base = 75, 0, 300, 0.001, 0.002\n[engine default]\npath = default.ini\ndepth = %ld\n",
            iterations, a.batch, a.depth);
    fclose(f);
    if (spsa_read(ini, c, &err) != TV_OK) {
        cli_error("bench spsa: %s", err.msg);
        free(c);
        return CLI_FAIL;
    }
    double wall[2] = {0, 0};
    int64_t games[2] = {0, 0};
    bool same = true;
    for (long r = 0; r < a.rounds && rc == CLI_OK; r++) {
        /* selfplay: the SPSA file's plan, its players at the start values, in one runner call */
        RunOptions ro;
        memset(&ro, 0, sizeof ro);
        Tournament t = c->t;
        double theta[1] = {c->params[0].start};
        spsa_apply(c, &t, SPSA_PLUS, theta, &err);
        spsa_apply(c, &t, SPSA_MINUS, theta, &err);
        ro.t = &t;
        ro.out_path = store;
        ro.threads = 2;
        ro.force = true;
        RunStats s;
        double t0 = tv_now_seconds();
        TvStatus st = runner_run(&ro, &s, &err);
        wall[0] += tv_now_seconds() - t0;
        games[0] += s.played;
        run_stats_free(&s);
        SpsaRunOptions o = {.c = c, .dir = run, .force = true, .threads = 2};
        SpsaOutcome out;
        if (st == TV_OK) {
            t0 = tv_now_seconds();
            st = spsa_run(&o, &out, &err);
            wall[1] += tv_now_seconds() - t0;
            games[1] += out.games_played;
        }
        if (st != TV_OK) {
            cli_error("bench spsa: %s", err.msg);
            rc = CLI_FAIL;
            break;
        }
        char path[500], d1[500], d2[500];
        snprintf(path, sizeof path, "%s/spsa.h5", run);
        snprintf(d1, sizeof d1, "%s/selfplay.digest", dir);
        snprintf(d2, sizeof d2, "%s/spsa.digest", dir);
        same = same && digest(store, d1) && digest(path, d2) && same_file(d1, d2);
    }
    if (rc == CLI_OK) {
        double r0 = (double)games[0] / wall[0] * 3600, r1 = (double)games[1] / wall[1] * 3600;
        printf("selfplay: %lld games at depth %ld on 2 threads in %.1f s: %.0f games/hour\n", (long long)games[0],
               a.depth, wall[0], r0);
        printf("spsa:     %lld games at depth %ld on 2 threads in %.1f s (%ld iterations of %ld pairs a round): "
               "%.0f games/hour\n",
               (long long)games[1], a.depth, wall[1], iterations, a.batch, r1);
        printf("spsa / selfplay games per hour: %.3f (the bookkeeping costs %.1f%%); same games: %s\n", r1 / r0,
               100 * (1 - r1 / r0), same ? "yes" : "NO");
        if (!same)
            rc = CLI_FAIL;
    }
    spsa_free(c);
    free(c);
    cli_remove_temp_dir(dir, "bench spsa");
    return rc;
}

const CliCommand CLI_BENCH_SPSA = {"bench spsa", BENCH_SPSA_HELP, BENCH_SPSA_FLAGS, run_bench_spsa};
