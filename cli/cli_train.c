/* cli_train.c: `tavreli train CONFIG.ini` (tuner/train.h does the work). */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "distrib.h"
#include "stats.h"
#include "status.h"
#include "progress.h"
#include "train.h"

static const char TRAIN_HELP[] =
    "usage: tavreli train CONFIG.ini [--out DIR]\n"
    "       tavreli train --confirm DIR\n"
    "\n"
    "Runs generations of gated training (CONFIG.ini: a [train] section, see\n"
    "docs/tuning.md): self-play of the best version against itself (every game\n"
    "its own opening), a tune on all the self-play so far, and an SPRT of the\n"
    "tuned version against the best; a version the SPRT accepts becomes the\n"
    "best and is confirmed: it plays [train] confirm_pairs opening pairs against\n"
    "gen-0 and as many against the previous best. Everything is kept under DIR\n"
    "(default results/NAME): per generation gen-G/selfplay.h5, tuned.ini,\n"
    "tune.log, sprt.h5, result, and confirm-gen-O.h5 and confirmed. Run it again\n"
    "after an interruption to resume. At the end it prints the Elo ladder of\n"
    "the accepted generations (each from its confirmation games against gen-0);\n"
    "'tavreli report DIR' writes it with a plot.\n"
    "\n"
    "  --out DIR      where the run is kept (default results/NAME)\n"
    "  --confirm DIR  play the missing confirmations of the accepted generations\n"
    "                 of the existing run in DIR (confirm_pairs of DIR/train.ini,\n"
    "                 the key's default when it is 0 there) and print the\n"
    "                 ladder; no new generation is started\n\n"
    "Examples:\n"
    "  tavreli train configs/train/quick.ini\n"
    "  tavreli train --confirm results/quick-train\n";

typedef struct {
    const char *out;
    const char *confirm;
} TrainArgs;

static const CliFlag TRAIN_FLAGS[] = {
    {"out", 0, CLI_STRING, offsetof(TrainArgs, out), 0, 0},
    {"confirm", 0, CLI_STRING, offsetof(TrainArgs, confirm), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static volatile sig_atomic_t g_train_stop = 0;
static volatile sig_atomic_t g_train_signal = 0; /* the signal that stopped the run, and who sent it */
static volatile sig_atomic_t g_train_sender = 0;

static void on_train_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    if (g_train_stop && sig == SIGINT) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (!g_train_signal) {
        g_train_signal = sig;
        g_train_sender = info ? (sig_atomic_t)info->si_pid : 0;
    }
    g_train_stop = 1;
}

static void print_event(const TrainEvent *e, void *user)
{
    (void)user;
    printf("gen %d %-9s %s\n", e->generation, e->stage, e->text);
    fflush(stdout);
}

void cli_print_ladder(const TrainRung *rungs, int n)
{
    printf("generation  Elo vs gen-0  95%% interval    games  step over the previous best  measured by\n");
    for (int i = 0; i < n; i++) {
        char m[128], d[64], e[STATS_ELO_TEXT], lo[STATS_ELO_TEXT], hi[STATS_ELO_TEXT];
        char c[4][160];
        printf("gen-%-7d %s      [%s, %s]  %6lld  %s  %s\n", rungs[i].generation,
               cli_cell(stats_fmt_elo(rungs[i].elo, e, sizeof e), 8, true, c[0], sizeof c[0]),
               cli_cell(stats_fmt_elo(rungs[i].lo, lo, sizeof lo), 5, true, c[1], sizeof c[1]),
               cli_cell(stats_fmt_elo(rungs[i].hi, hi, sizeof hi), 5, true, c[2], sizeof c[2]), (long long)rungs[i].games,
               cli_cell(train_rung_step(&rungs[i], d, sizeof d), 27, false, c[3], sizeof c[3]),
               train_rung_method(&rungs[i], m, sizeof m));
    }
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_train_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* The run's callbacks: its events on stdout, its games' progress on stderr. */
static TrainCallbacks callbacks(CliProgress *progress)
{
    return (TrainCallbacks){.event = print_event,
                            .stop = &g_train_stop,
                            .progress = cli_progress_line,
                            .referee = cli_progress_referee,
                            .note = cli_progress_note,
                            .progress_user = progress};
}

/* The ladder of dir on stdout; CLI_OK, or CLI_FAIL after saying why. */
static int print_ladder(const char *dir)
{
    TrainRung *rungs;
    int nr;
    TvError err;
    if (train_ladder(dir, &rungs, &nr, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    cli_print_ladder(rungs, nr);
    free(rungs);
    return CLI_OK;
}

static int stopped(int done)
{
    printf("interrupted by signal %d (sent by process %d) after %d complete generations; run the same command "
           "to resume\n",
           (int)g_train_signal, (int)g_train_sender, done);
    return 128 + (g_train_signal ? (int)g_train_signal : SIGINT);
}

static int run_confirm(const char *dir)
{
    install_handlers();
    CliProgress progress = {isatty(STDERR_FILENO), 0};
    const TrainCallbacks cb = callbacks(&progress);
    TrainOutcome out;
    TvError err;
    if (train_confirm(dir, &cb, &out, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    if (out.interrupted)
        return stopped(out.generations_done);
    return print_ladder(dir);
}

static int run_train(const CliCommand *cmd, int argc, char **argv)
{
    TrainArgs a = {NULL, NULL};
    char *pos[2] = {NULL, NULL};
    char **posv = calloc((size_t)argc + 1, sizeof *posv);
    int npos = 0;
    if (!posv)
        return CLI_FAIL;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, posv, &npos);
    if (rc >= 0) {
        free(posv);
        return rc;
    }
    pos[0] = npos == 1 ? posv[0] : NULL;
    free(posv);
    /* train is one process (its self-play, tunes and SPRTs use this
     * machine's cores): ranks of an MPI job would each run it on one
     * folder and trip over each other's lock (issue 35) */
    const int launched = distrib_launched_size();
    if (launched > 1) {
        cli_error("train: started as one of %d MPI ranks, but train runs as one process (its games on this "
                  "machine's cores, [train] threads); run it without mpirun, or with 'mpirun -np 1'",
                  launched);
        return CLI_USAGE;
    }
    if (a.confirm) {
        if (npos || a.out) {
            cli_error("train: --confirm DIR takes no CONFIG.ini and no --out (see 'tavreli train --help')");
            return CLI_USAGE;
        }
        return run_confirm(a.confirm);
    }
    if (!pos[0]) {
        cli_error("train: expected one CONFIG.ini (see 'tavreli train --help')");
        return CLI_USAGE;
    }
    TrainConfig c;
    TvError err;
    if (train_read(pos[0], &c, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    char *text;
    size_t len;
    if (tv_read_file(pos[0], "training file", &text, &len, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    char dir[600];
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else {
        snprintf(dir, sizeof dir, "results/%s", c.name);
        mkdir("results", 0777);
    }
    install_handlers();
    CliProgress progress = {isatty(STDERR_FILENO), 0};
    const TrainCallbacks cb = callbacks(&progress);
    TrainOutcome out;
    TvStatus st = train_run(&c, text, dir, &cb, &out, &err);
    free(text);
    if (st != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    if (out.interrupted)
        return stopped(out.generations_done);
    if (print_ladder(dir) != CLI_OK)
        return CLI_FAIL;
    printf("%d generations; the best is gen-%d (%s/gen-%d/%s); the ladder with a plot: %s report %s\n",
           out.generations_done, out.best, dir, out.best, out.best ? "tuned.ini" : "best.ini", cli_self(), dir);
    return CLI_OK;
}

const CliCommand CLI_TRAIN = {"train", TRAIN_HELP, TRAIN_FLAGS, run_train};
