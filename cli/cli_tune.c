/* cli_tune.c: `tavreli tune` and `tavreli bench tune` (tuner/tune.h does
 * the work). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "tune.h"

static const char TUNE_HELP[] =
    "usage: tavreli tune --data FILE.h5 [FILE.h5 ...] --engine START.ini --out NEW.ini\n"
    "                    [--groups GROUP,...] [--holdout F] [--seed S] [--l2 LAMBDA]\n"
    "                    [--fixed NAME,...] [--bootstrap N] [--max-iter N] [--log FILE]\n"
    "                    [--mix-rules]\n"
    "\n"
    "Fits the evaluation weights to the results of stored games (Texel tuning):\n"
    "every stored position is resolved to its quiescence leaf with the START\n"
    "engine, and the weights minimise the mean squared error between the result\n"
    "(1, 0.5, 0 for the side to move) and sigmoid(K * eval), K fitted first.\n"
    "\n"
    "  --groups     fit only these groups of weights.def (material, tower,\n"
    "               combatant, mobility, wizard, centre; default: all)\n"
    "  --holdout F  fraction of the games held out to measure the fit (0.1)\n"
    "  --seed S     seed of the split and the bootstrap (1)\n"
    "  --l2 LAMBDA|auto  add LAMBDA * sum (w - w_start)^2 to the loss; auto\n"
    "               (default) chooses LAMBDA by 5-fold cross-validation over games\n"
    "  --fixed NAME,...  hold these weights at their start values, out of the\n"
    "               fit (top_value[1], tempo, or a whole array: top_value), e.g.\n"
    "               to anchor the scale of weights that trade off\n"
    "  --bootstrap N  N refits on games resampled with replacement (0)\n"
    "  --max-iter N iteration limit of the minimiser (500)\n"
    "  --log FILE   the tuning log (default: NEW.tuning.log next to NEW.ini),\n"
    "               for 'tavreli report --tuning-log'\n"
    "  --mix-rules  tune on stores played under different rule options together\n"
    "               (refused otherwise); a game two stores hold is read once\n"
    "\n"
    "Writes NEW.ini (the START engine with the fitted weights rounded, and the\n"
    "fit as comments: data per fitted weight (a warning below 10 games), losses,\n"
    "the verdict, moves beyond 2 standard errors, strongly correlated pairs of\n"
    "estimates, and per weight 'name: start -> new +- se', se the game-clustered\n"
    "standard error at the chosen L2).  An SPRT, not the loss, decides whether\n"
    "NEW plays better: the summary gives the command.\n\n"
    "Examples:\n"
    "  tavreli tune --data results/quick.h5 --engine configs/engines/default.ini --out results/tuned.ini\n"
    "  tavreli tune --data a.h5 b.h5 --engine start.ini --out new.ini --groups material,tower --fixed top_value[4]\n";

static const char BENCH_TUNE_HELP[] =
    "usage: tavreli bench tune [--positions N] [--base N] [--seed S] [--data FILE.h5]\n"
    "\n"
    "Times the tuner on N synthetic positions (1000000): the feature vectors of\n"
    "BASE (5000) random-walk positions, resolved, replicated with labels drawn\n"
    "from the model. Prints the positions resolved per second (quiescence search\n"
    "and trace, as tune does for stored positions), loss + gradient positions per\n"
    "second, bytes per position in memory, and the time of a full fit of all\n"
    "weights.  With --data, also the positions per second of reading and\n"
    "resolving that store's positions as tune does (random walks leave pieces\n"
    "hanging, so their quiescence trees are larger than stored games').\n\n"
    "Examples:\n"
    "  tavreli bench tune\n"
    "  tavreli bench tune --data results/quick.h5\n";

static volatile sig_atomic_t g_tune_stop = 0;   /* the stop flag of `tavreli tune` (not in the tuner) */
static volatile sig_atomic_t g_tune_signal = 0; /* the signal that set it, for the exit status */

static void on_tune_signal(int sig)
{
    if (g_tune_stop && sig == SIGINT) { /* a second Ctrl-C: leave at once (nothing is half written) */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (!g_tune_signal)
        g_tune_signal = sig;
    g_tune_stop = 1;
}

/* The progress lines go through a CliOut (progress.h): a closed or full
 * stdout never holds the fit up nor costs NEW.ini, which is written before
 * the summary is. */
static void print_loaded(const TuneRunReport *r, void *user)
{
    CliOut *o = user;
    cli_out_printf(o, "positions: %lld resolved to quiet leaves in %.1f s (%lld skipped: mate scores); fit %lld, "
                      "hold-out %lld (split by games); %.1f bytes/position\n",
                   (long long)r->positions, r->load_seconds, (long long)r->skipped, (long long)r->fit,
                   (long long)r->hold, r->bytes_per_position);
    if (r->torn_rows)
        cli_warning("%lld /games rows of appends a crash cut short are left out", (long long)r->torn_rows);
    if (r->duplicate_games)
        cli_out_printf(o, "%lld games held by more than one store were read once\n", (long long)r->duplicate_games);
    cli_out_printf(o, "%lld duplicate positions (same position and result as one read before) removed\n",
                   (long long)r->duplicate_positions);
}

static void print_iteration(const TuneIteration *it, void *user)
{
    cli_out_printf(user, "iter %d fit_loss %.8f holdout_loss %.8f\n", it->iter, it->fit_loss, it->holdout_loss);
}

typedef struct {
    const char *data, *engine, *out, *log, *groups, *l2, *fixed;
    double holdout;
    unsigned long long seed;
    long bootstrap, max_iter;
    bool mix_rules;
} TuneCliArgs;

static const CliFlag TUNE_FLAGS[] = {
    {"data", 0, CLI_STRING, offsetof(TuneCliArgs, data), 0, 0},
    {"engine", 0, CLI_STRING, offsetof(TuneCliArgs, engine), 0, 0},
    {"out", 0, CLI_STRING, offsetof(TuneCliArgs, out), 0, 0},
    {"groups", 0, CLI_STRING, offsetof(TuneCliArgs, groups), 0, 0},
    {"holdout", 0, CLI_DOUBLE, offsetof(TuneCliArgs, holdout), 0, 0.9},
    {"seed", 0, CLI_U64, offsetof(TuneCliArgs, seed), 0, 18446744073709551615.0},
    {"l2", 0, CLI_STRING, offsetof(TuneCliArgs, l2), 0, 0},
    {"fixed", 0, CLI_STRING, offsetof(TuneCliArgs, fixed), 0, 0},
    {"bootstrap", 0, CLI_LONG, offsetof(TuneCliArgs, bootstrap), 0, 100000},
    {"max-iter", 0, CLI_LONG, offsetof(TuneCliArgs, max_iter), 1, 100000},
    {"log", 0, CLI_STRING, offsetof(TuneCliArgs, log), 0, 0},
    {"mix-rules", 0, CLI_BOOL, offsetof(TuneCliArgs, mix_rules), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_tune(const CliCommand *cmd, int argc, char **argv)
{
    TuneArgs a;
    tune_args_default(&a);
    a.program = cli_self();
    TuneCliArgs c;
    memset(&c, 0, sizeof c);
    c.holdout = a.holdout;
    c.seed = a.seed;
    c.bootstrap = a.bootstrap;
    c.max_iter = a.max_iter;
    /* --data takes one or more files: the first is its value, the rest
     * arrive as positional arguments. */
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files)
        return CLI_FAIL;
    int nfiles = 0;
    int rc = cli_parse_or_exit(cmd, argc, argv, &c, (char **)files + 1, &nfiles);
    if (rc >= 0) {
        free(files);
        return rc;
    }
    rc = CLI_OK;
    if (nfiles && !c.data) {
        cli_error("tune: unexpected argument '%s' (stores are given with --data; see 'tavreli tune --help')",
                  files[1]);
        rc = CLI_USAGE;
        goto done;
    }
    if (c.data) {
        files[0] = c.data;
        nfiles++;
    }
    a.engine = c.engine;
    a.out = c.out;
    a.log = c.log;
    a.groups = c.groups;
    a.fixed = c.fixed;
    a.holdout = c.holdout;
    if (c.l2 && strcmp(c.l2, "auto") != 0) {
        char *end;
        errno = 0;
        a.l2 = strtod(c.l2, &end);
        if (errno || end == c.l2 || *end || !(a.l2 >= 0 && a.l2 <= 1e6)) {
            cli_error("tune: --l2 '%s' must be auto or a number from 0 to 1e6", c.l2);
            rc = CLI_USAGE;
            goto done;
        }
        a.l2_auto = false;
    }
    a.seed = c.seed;
    a.bootstrap = (int)c.bootstrap;
    a.max_iter = (int)c.max_iter;
    a.mix_rules = c.mix_rules;
    if (!nfiles || !a.engine || !a.out) {
        cli_error("tune: expected --data FILE.h5 [FILE.h5 ...] --engine START.ini --out NEW.ini "
                  "(see 'tavreli tune --help')");
        rc = CLI_USAGE;
        goto done;
    }
    a.files = files;
    a.nfiles = nfiles;
    TvError err;
    TuneRunReport report;
    CliOut out;
    cli_out_begin(&out);
    const TuneCallbacks cb = {print_loaded, print_iteration, &out};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tune_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    a.stop = &g_tune_stop;
    if (tune_run(&a, &cb, &report, &err) != TV_OK) {
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
    } else if (report.interrupted) {
        cli_out_printf(&out, "interrupted by signal %d: nothing was written (%s is as it was); run the same command "
                             "again\n",
                       (int)g_tune_signal, a.out);
        rc = 128 + (g_tune_signal ? (int)g_tune_signal : SIGINT);
    } else
        cli_out_printf(&out, "%swrote %s and %s\n", report.summary ? report.summary : "", a.out, report.log_path);
    tune_run_report_free(&report);
    /* the results are written: now stdout may wait, until a signal */
    if (!cli_out_finish(&out, &g_tune_stop)) {
        if (out.error == EINTR || g_tune_stop)
            rc = 128 + (g_tune_signal ? (int)g_tune_signal : SIGTERM);
        else {
            cli_error("cannot write the output to stdout: %s (the results are written)", strerror(out.error));
            if (rc == CLI_OK)
                rc = CLI_FAIL;
        }
    }
done:
    free(files);
    return rc;
}

const CliCommand CLI_TUNE = {"tune", TUNE_HELP, TUNE_FLAGS, run_tune};

typedef struct {
    unsigned long long positions, base, seed;
    const char *data;
} BenchTuneArgs;

static const CliFlag BENCH_TUNE_FLAGS[] = {
    {"positions", 0, CLI_U64, offsetof(BenchTuneArgs, positions), 1, 1000000000},
    {"base", 0, CLI_U64, offsetof(BenchTuneArgs, base), 1, 10000000},
    {"seed", 0, CLI_U64, offsetof(BenchTuneArgs, seed), 0, 18446744073709551615.0},
    {"data", 0, CLI_STRING, offsetof(BenchTuneArgs, data), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_bench_tune(const CliCommand *cmd, int argc, char **argv)
{
    BenchTuneArgs a = {1000000, 5000, 1, NULL};
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (rc >= 0)
        return rc;
    const unsigned long long n = a.positions, base = a.base, seed = a.seed;
    TuneBench b;
    TvError err;
    if (tune_bench((int64_t)n, (int)base, seed, &b, &err) != TV_OK ||
        (a.data && tune_bench_store(a.data, &b, &err) != TV_OK)) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    printf("positions          %lld (features of %llu random-walk positions, replicated)\n", (long long)b.positions,
           base);
    printf("memory             %.1f bytes/position\n", b.bytes_per_position);
    printf("resolve (walks)    %.0f positions/s (quiescence + trace, %d threads)\n", b.resolve_pps, b.threads);
    if (a.data)
        printf("resolve (store)    %.0f positions/s (%lld positions of %s read, parsed and resolved, %d threads)\n",
               b.store_pps, (long long)b.store_positions, a.data, b.threads);
    printf("loss + gradient    %.1f M positions/s (%d threads)\n", b.loss_grad_pps / 1e6, b.threads);
    printf("full fit           %.2f s, %d iterations, loss %.6f -> %.6f\n", b.fit_seconds, b.fit_iterations,
           b.fit_loss0, b.fit_loss1);
    return CLI_OK;
}

const CliCommand CLI_BENCH_TUNE = {"bench tune", BENCH_TUNE_HELP, BENCH_TUNE_FLAGS, run_bench_tune};
