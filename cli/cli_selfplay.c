/* cli_selfplay.c: `tavreli selfplay`, `export`, `verify` and `repair`; the
 * benchmarks that play tournaments are in cli_bench.c. */
#include <errno.h>
#include <omp.h>
#include <sys/stat.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "atomic_file.h"
#include "distrib.h"
#include "export.h"
#include "engine.h"
#include "h5store.h"
#include "outcome.h"
#include "progress.h"
#include "record.h"
#include "player.h"
#include "runner.h"
#include "tournament.h"
#include "verify.h"

static volatile sig_atomic_t g_stop = 0;   /* the one stop flag of the program (not in core) */
static volatile sig_atomic_t g_signal = 0; /* the signal that set it, for the exit status */

static void on_signal(int sig)
{
    /* A second Ctrl-C: leave at once; the store holds every flushed game.
     * (A SIGTERM after a SIGINT is mpirun passing the first one on.) */
    if (g_stop && sig == SIGINT) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (!g_signal)
        g_signal = sig;
    g_stop = 1;
}

/* Says that a store creation killed before its link left `leftover`. */
static void note_leftover(const char *leftover, long pid, void *user)
{
    (void)user;
    char shown[1024];
    fprintf(stderr, "note: removed %s, left by a store creation (pid %ld) that was killed before it finished\n",
            tv_escape(leftover, shown, sizeof shown), pid);
}

/* The shell's status for a run a signal stopped: 128 + the signal (130 for
 * Ctrl-C, 143 for SIGTERM); 130 when the stop came from elsewhere. */
static int interrupted_status(void)
{
    return 128 + (g_signal ? (int)g_signal : SIGINT);
}

/* A clock whose game (both sides' base time and 60 moves' increments) may
 * last longer than this draws a warning: an hour, longer than any game of
 * the time controls engine testers use (fishtest's LTC 60+0.6 is about 3
 * minutes a game). */
#define TC_WARN_GAME_S 3600.0

static const char SELFPLAY_HELP[] =
    "usage: tavreli selfplay CONFIG.ini [--out FILE.h5] [--threads N] [--games N]\n"
    "                        [--resume | --force] [--quiet] [--dry-run]\n"
    "\n"
    "Runs the tournament of CONFIG.ini (see configs/tournaments/) on OpenMP threads\n"
    "and stores every game, move and position in an HDF5 file (its layout:\n"
    "docs/store.md).\n"
    "\n"
    "  --out FILE.h5  where to store (default results/NAME.h5, NAME from the INI)\n"
    "  --threads N    game threads, 0 to 1024, 0 = all cores (default: the INI's\n"
    "                 threads, else all cores)\n"
    "  --games N      play at most N of the games still missing, then stop\n"
    "  --resume       continue FILE.h5 (same configuration): play only the games\n"
    "                 it does not hold yet\n"
    "  --force        overwrite an existing FILE.h5\n"
    "  --quiet        no progress output\n"
    "  --dry-run      read CONFIG.ini (engines, openings file) and its plan, start\n"
    "                 each separate program as the run would (handshake, options,\n"
    "                 rule options) and end it, say what would be played, and\n"
    "                 stop: nothing is played or written\n"
    "\n"
    "Ctrl-C, SIGTERM or SIGUSR1 stops even a deep search at once, abandons the\n"
    "games in flight, stores the finished ones, closes the file and exits with 130\n"
    "(143 for SIGTERM, 138 for SIGUSR1); --resume then plays exactly the missing\n"
    "games. Progress (games, W/D/L and Elo per pairing, games per minute, ETA) goes\n"
    "to stderr.\n"
    "\n"
    "On a cluster (a build with -DTAVRELI_MPI=ON): mpirun -np N tavreli selfplay ...\n"
    "shares the games among N ranks (rank 0 hands them out); each rank writes\n"
    "OUT.part-R.h5 and rank 0 merges them into OUT.h5 (games in plan order) at\n"
    "the end. --threads is per rank (default: Slurm's SLURM_CPUS_PER_TASK, else\n"
    "the INI's threads, else the cores the rank may use). A signal does not merge:\n"
    "the parts stay and --resume merges them first (a signal during the final merge\n"
    "stops it, leaving the parts). mpirun passes SIGUSR1 on to every rank without\n"
    "killing them: 'kill -USR1 MPIRUN_PID' is the clean stop of a whole job.\n\n"
    "Examples:\n"
    "  tavreli selfplay configs/tournaments/quick.ini\n"
    "  tavreli selfplay configs/tournaments/quick.ini --out results/quick.h5 --resume\n";

typedef struct {
    const char *out;
    long threads, games;
    bool resume, force, quiet, dry_run;
} SelfplayArgs;

static const CliFlag SELFPLAY_FLAGS[] = {
    {"out", 0, CLI_STRING, offsetof(SelfplayArgs, out), 0, 0},
    {"threads", 0, CLI_LONG, offsetof(SelfplayArgs, threads), 0, 1024},
    {"games", 0, CLI_LONG, offsetof(SelfplayArgs, games), 1, 100000000},
    {"resume", 0, CLI_BOOL, offsetof(SelfplayArgs, resume), 0, 0},
    {"force", 0, CLI_BOOL, offsetof(SelfplayArgs, force), 0, 0},
    {"quiet", 0, CLI_BOOL, offsetof(SelfplayArgs, quiet), 0, 0},
    {"dry-run", 0, CLI_BOOL, offsetof(SelfplayArgs, dry_run), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

/* Warns when the game threads times the threads of the engine that thinks
 * (one side at a time) exceed the cores: clocks then measure waiting for a
 * core, and games are lost on time that would not be (35 of 102 games of a
 * 3-engine tournament at tc = 2+0.05 under a load average of 15-25).  A
 * separate program counts its option.Threads (1 when not set); the built-in
 * engine 1.  threads: the game threads of the machine (of all the MPI ranks
 * on a node), cores: those they may use, machine: "this machine" or the
 * node, fix: how to lower the threads. */
static void warn_oversubscribed(const Tournament *t, int threads, int cores, const char *machine, const char *fix)
{
    int most = 1, which = -1;
    for (int i = 0; i < t->nengines; i++)
        if (player_threads(&t->engines[i]) > most) {
            most = player_threads(&t->engines[i]);
            which = i;
        }
    if ((long)threads * most <= cores)
        return;
    char why[160] = "";
    if (which >= 0)
        snprintf(why, sizeof why, " x %d engine threads (engine '%s', option.Threads)", most,
                 t->engines[which].engine.name);
    cli_warning("%d game thread%s%s need %ld cores, %s has %d: engines wait for a core (on a clock they lose time "
                "waiting, and games on time); %s",
                threads, threads > 1 ? "s" : "", why, (long)threads * most, machine, cores, fix);
}

#ifdef TAVRELI_WITH_MPI
/* A DistribNodeFn: the lowest rank of each node warns when the game threads
 * of the node's ranks do not fit its cores (a node's ranks share them). */
static void warn_node_oversubscribed(const DistribInfo *info, void *user)
{
    if (!info->node_first)
        return;
    char machine[320];
    snprintf(machine, sizeof machine, "node %s (%d rank%s of this job)", info->host[0] ? info->host : "?",
             info->node_ranks, info->node_ranks > 1 ? "s" : "");
    warn_oversubscribed(user, info->node_threads, info->node_cores, machine,
                        info->node_ranks > 1 ? "lower --threads (it is per rank) or start fewer ranks per node"
                                             : "lower --threads (it is per rank)");
}
#endif

/* The program to run again to continue an interrupted run, into buf: under
 * mpirun, the command that runs this program again as this job did
 * (unbound, so that each rank's threads use all its cores; as root, with the
 * permission Open MPI asks for; this very executable); in one process,
 * `tavreli`.  Every "interrupted: run '...'" line begins with it. */
static const char *run_again(bool distributed, int ranks, char *buf, size_t size)
{
    if (!distributed) {
        snprintf(buf, size, "%s", cli_self());
        return buf;
    }
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = '\0';
    else
        snprintf(self, sizeof self, "tavreli");
    snprintf(buf, size, "mpirun %s--bind-to none -np %d %s", geteuid() == 0 ? "--allow-run-as-root " : "", ranks,
             self);
    return buf;
}

/* After distrib_run, once this rank has printed what it prints: the ranks
 * end together (distrib.h). */
static void end_ranks(bool distributed)
{
#ifdef TAVRELI_WITH_MPI
    if (distributed)
        distrib_end();
#else
    (void)distributed;
#endif
}

static int run_selfplay(const CliCommand *cmd, int argc, char **argv)
{
    SelfplayArgs a = {.out = NULL, .threads = -1};
    char *pos[argc];
    int npos;
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, pos, &npos);
    if (parsed >= 0)
        return parsed;
    const char *config = cli_one_arg(cmd, pos, npos, "CONFIG.ini (for example configs/tournaments/quick.ini)");
    if (!config)
        return CLI_USAGE;
    const char *out = a.out;
    const long threads = a.threads, games = a.games;
    const bool resume = a.resume, force = a.force, quiet = a.quiet;
    if (resume && force) {
        cli_error("selfplay: --resume and --force contradict each other");
        return CLI_USAGE;
    }
    Tournament t;
    TvError err;
    if (tournament_read(config, &t, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    /* a clock that makes a game last hours is more often a slip of units
     * (tc is in seconds: 2000+50 is 33 minutes a side, not 2 s) */
    for (int e = 0; e < t.nengines; e++) {
        const TimeControl *tc = &t.engines[e].tc;
        const double side_s = (tc->base_ms + 60.0 * tc->inc_ms) / 1000.0; /* base and 60 moves' increments */
        if (tc->base_ms > 0 && 2 * side_s > TC_WARN_GAME_S)
            cli_warning("engine '%s': tc gives each side %.0f s and %.3g s a move, so a game may take %.1f hours "
                        "(tc is in seconds: 10+0.1 is 10 seconds and 0.1 s a move)",
                        t.engines[e].engine.name, tc->base_ms / 1000.0, tc->inc_ms / 1000.0, 2 * side_s / 3600);
    }
    char default_out[600], resolved[1100];
    if (!out)
        snprintf(default_out, sizeof default_out, "results/%s.h5", t.name);
    if (a.dry_run) { /* the batch script's --check: does the tournament read, do its programs start, and
                        what would it play (a wrong program path showed only after a queue's wait) */
        StoredEngine *ids;
        if (runner_dry_start(&t, &ids, &err) != TV_OK) {
            cli_error("%s", err.msg);
            tournament_free(&t);
            return CLI_FAIL;
        }
        for (int e = 0; e < t.nengines; e++)
            if (t.engines[e].kind == PLAYER_PROCESS)
                printf("engine '%s': %s started and answered as '%s'%s%s, %d option%s set; ended\n",
                       t.engines[e].engine.name, ids[e].exe_path[0] ? ids[e].exe_path : t.engines[e].command,
                       ids[e].id_name, ids[e].id_author[0] ? " by " : "", ids[e].id_author, t.engines[e].noptions,
                       t.engines[e].noptions == 1 ? "" : "s");
        free(ids);
        printf("%s: tournament '%s', %d engines, %d pairing%s x %d pairs x 2 = %lld games, into %s; nothing "
               "played (--dry-run)\n",
               config, t.name, t.nengines, tournament_pairings(&t), tournament_pairings(&t) == 1 ? "" : "s",
               t.pairs, (long long)tournament_total_games(&t), out ? out : default_out);
        tournament_free(&t);
        return CLI_OK;
    }
    if (!out) {
        out = default_out;
        /* the default folder is made when missing (results/ of a fresh clone is there) */
        if (mkdir("results", 0777) != 0 && errno != EEXIST) {
            cli_error("selfplay: cannot make the folder 'results' for %s: %s (give --out FILE.h5)", out,
                      strerror(errno));
            tournament_free(&t);
            return CLI_FAIL;
        }
    }
    /* a symbolic link is written through, to the file it points to */
    if (h5store_resolve_path(out, resolved, sizeof resolved, &err) != TV_OK) {
        cli_error("%s", err.msg);
        tournament_free(&t);
        return CLI_FAIL;
    }
    out = resolved;
    for (int p = 0; p < tournament_pairings(&t); p++) {
        int x, y;
        tournament_pairing(&t, p, &x, &y);
        if (tournament_engines_identical(&t, x, y))
            cli_warning("engines '%s' and '%s' are identical (weights, settings, limits): %s",
                        t.engines[x].engine.name, t.engines[y].engine.name,
                        t.openings.per_game ? "their games say nothing about which is stronger"
                                            : "both games of each opening pair between them will be the same game "
                                              "(for training data set [openings] per_game = yes)");
    }
    if (t.opening_repeats)
        cli_warning("the openings file '%s': %d of its entries give a position an earlier one gave (the first at "
                    "line %d, that of line %d); each position is one opening",
                    t.openings.file, t.opening_repeats, t.opening_repeat_line, t.opening_repeat_of);
    const int64_t repeated = tournament_openings_needed(&t) - t.nopening_tfens; /* [openings] cycle = yes */
    if (t.nopening_tfens > 0 && repeated > 0 && tournament_reproducible(&t))
        cli_warning("the openings file '%s' has %d openings and the plan needs %lld: %lld of %lld games start from "
                    "an opening played before, and with fixed depth or nodes they repeat earlier games move for move "
                    "(their results count again in the ratings); give more openings or fewer pairs",
                    t.openings.file, t.nopening_tfens, (long long)tournament_openings_needed(&t),
                    (long long)(repeated * (t.openings.per_game ? 1 : 2 * tournament_pairings(&t))),
                    (long long)tournament_total_games(&t));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL); /* mpirun passes it on to every rank: a batch script's clean stop */

    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = out;
    ro.resume = resume;
    ro.force = force;
    ro.threads = threads < 0 ? 0 : threads == 0 ? omp_get_max_threads() : (int)threads; /* 0: all cores */
    ro.max_games = games;
    ro.stop = &g_stop;
    t.stop = &g_stop; /* the openings of a big plan take seconds */
    CliProgress progress = {isatty(STDERR_FILENO), 0};
    ro.progress = quiet ? NULL : cli_progress_line;
    ro.referee = quiet ? NULL : cli_progress_referee;
    ro.note = cli_progress_note;
    ro.progress_user = &progress;
    ro.progress_every = progress.tty ? 0.5 : 10;
    RunStats stats;
    memset(&stats, 0, sizeof stats);
    DistribInfo info = {.rank = 0, .size = 1};
    TvStatus st = TV_OK;
    const int launched = distrib_launched_size();
#ifdef TAVRELI_WITH_MPI
    const bool distributed = launched > 0; /* started by an MPI launcher */
#else
    const bool distributed = false;
    if (launched > 1) {
        cli_error("selfplay: started as one of %d MPI ranks, but this tavreli was built without MPI: "
                  "rebuild with 'cmake -DTAVRELI_MPI=ON' (see docs/cluster.md)",
                  launched);
        tournament_free(&t);
        return CLI_FAIL;
    }
#endif
    if (distributed) {
#ifdef TAVRELI_WITH_MPI
        if (threads < 0) {
            const char *cpus = getenv("SLURM_CPUS_PER_TASK"); /* Slurm's cores per rank */
            if (cpus && atoi(cpus) > 0)
                ro.threads = atoi(cpus);
        }
        st = distrib_run(&ro, warn_node_oversubscribed, &t, &stats, &info, &err);
#endif
    } else {
        warn_oversubscribed(&t, runner_threads(&ro), omp_get_num_procs(), "this machine",
                            "lower --threads (or threads = in [tournament])");
        bool have_store;
        H5RunLock *run_lock = NULL; /* one run at a time on a store, held until it is closed */
        if (h5store_lock_run(out, note_leftover, NULL, &run_lock, &err) != TV_OK) {
            cli_error("%s", err.msg);
            tournament_free(&t);
            return CLI_FAIL;
        }
        if (distrib_prepare_store(out, resume, force, &t, &g_stop, &have_store, &err) != TV_OK) {
            h5store_unlock_run(run_lock);
            if (!(g_stop && resume)) {
                cli_error("%s", err.msg);
                tournament_free(&t);
                return g_signal ? interrupted_status() : CLI_FAIL;
            }
            stats.interrupted = stats.stopped_reading = true; /* while the store was read: the store as it was */
        } else {
            st = runner_run(&ro, &stats, &err);
            h5store_unlock_run(run_lock);
        }
    }
    if (st == TV_OK && stats.stopped_reading) { /* one process, or every MPI rank (rank 0 speaks) */
        char again[1200];
        if (info.rank == 0)
            printf("interrupted: run '%s selfplay %s --out %s --resume' to play the missing games (stopped "
                   "while reading the store: nothing was played or changed)\n",
                   run_again(distributed, info.size, again, sizeof again), config, out);
        fflush(stdout);
        run_stats_free(&stats);
        tournament_free(&t);
        end_ranks(distributed);
        return interrupted_status();
    }
    int rc = CLI_OK;
    if (st != TV_OK) {
        /* the error alone: no summary that would look like a success */
        cli_error("%s", err.msg);
        /* what the store holds (read back by the runner), not what was played */
        char shown[1024];
        if (info.rank == 0 && stats.store_unread)
            fprintf(stderr, "note: %s could not be read back to count its games (%s); 'tavreli repair %s' "
                            "keeps its good games\n",
                    tv_escape(out, shown, sizeof shown), stats.store_error.msg, tv_escape(out, shown, sizeof shown));
        else if (info.rank == 0 && stats.store_removed)
            fprintf(stderr, "note: no game was stored: %s was removed, so the run can start again as it is\n",
                    tv_escape(out, shown, sizeof shown));
        else if (stats.played > 0 && info.rank == 0 && distributed &&
                 info.merged_games < stats.already + stats.played) {
            /* not merged: only what is true (it once named a store that did not exist) */
            char part0[1100];
            distrib_part_path(out, 0, part0, sizeof part0);
            fprintf(stderr, "note: %lld games of this run were stored in the ranks' parts (%s and the others beside "
                            "it), not merged into %s; once the cause is fixed, --resume merges the parts that are "
                            "there and plays the rest\n",
                    (long long)stats.played, tv_escape(part0, shown, sizeof shown), out);
        }
        else if (stats.played > 0 && info.rank == 0)
            fprintf(stderr, "note: %lld games of this run are stored in %s; once the cause is fixed, --resume "
                            "continues from them\n",
                    (long long)stats.played, tv_escape(out, shown, sizeof shown));
        run_stats_free(&stats);
        tournament_free(&t);
        end_ranks(distributed);
        return g_signal ? interrupted_status() : CLI_FAIL;
    }
    if (info.rank != 0) { /* rank 0 speaks for the run */
        run_stats_free(&stats);
        tournament_free(&t);
        end_ranks(distributed);
        return stats.interrupted ? interrupted_status() : CLI_OK;
    }
    if (distributed && info.parts_left)
        printf("%d MPI rank%s x %d thread%s; stopped by a signal: not merged, this run's games are in the parts "
               "next to %s (--resume merges them first)\n",
               info.size, info.size > 1 ? "s" : "", info.threads, info.threads > 1 ? "s" : "", out);
    else if (distributed)
        printf("%d MPI rank%s x %d thread%s; merged %lld games into %s in %.2f s\n", info.size,
               info.size > 1 ? "s" : "", info.threads, info.threads > 1 ? "s" : "", (long long)info.merged_games,
               out, info.merge_seconds);
    printf("%s: %lld games stored this run (%lld before), %lld of %lld planned, %lld positions\n", out,
           (long long)stats.played, (long long)stats.already, (long long)(stats.already + stats.played),
           (long long)stats.planned, (long long)stats.positions);
    printf("wall %.1f s, HDF5 writing %.3f s (%.2f%%), %.0f games/hour\n", stats.wall_seconds, stats.store_seconds,
           stats.wall_seconds > 0 ? 100 * stats.store_seconds / stats.wall_seconds : 0.0,
           stats.wall_seconds > 0 ? stats.played / stats.wall_seconds * 3600 : 0.0);
    if (t.sprt)
        printf("SPRT: %s\n", stats.sprt_result);
    cli_print_standings(&t, stats.games, stats.ngames);
    cli_print_referee(&t, &stats.referee, stats.games, stats.ngames);
    cli_print_waits(&t, &stats.ready);
    if (stats.interrupted) {
        char again[1200];
        printf("interrupted: run '%s selfplay %s --out %s --resume' to %splay the %lld missing games\n",
               run_again(distributed, info.size, again, sizeof again), config, out,
               info.parts_left ? "merge the parts and " : "",
               (long long)(stats.planned - stats.already - stats.played));
        rc = interrupted_status();
    }
    fflush(stdout);
    run_stats_free(&stats);
    tournament_free(&t);
    end_ranks(distributed);
    return rc;
}

const CliCommand CLI_SELFPLAY = {"selfplay", SELFPLAY_HELP, SELFPLAY_FLAGS, run_selfplay};

/* Says that the reader left out rows of an append a crash cut short. */
static void cli_warn_torn(const char *path, const StoreContents *c)
{
    if (c->torn_rows > 0)
        cli_warning("%s: %lld /games rows of an append a crash cut short are left out (%lld games read); "
                    "'tavreli selfplay ... --resume' rewrites the store without them",
                    path, (long long)c->torn_rows, (long long)c->ngames);
}

/* ---- export ------------------------------------------------------------------- */

static const char EXPORT_HELP[] =
    "usage: tavreli export FILE.h5 [--tgn OUT.tgn] [--digest OUT.txt]\n"
    "\n"
    "--tgn writes every game of a self-play store as TGN records (docs/rules.md section\n"
    "13), in game-index order, with Event (the tournament's name), Round (1-based),\n"
    "GameIndex (the 0-based index of the plan), White, Black, Result, Termination,\n"
    "Options, and SetUp and TFEN when the game did not start from the start position,\n"
    "and a {score/depth time} comment after each move (\"+0.35/4 0.12s\"). A TGN file\n"
    "written this way can be a tournament's [openings] file.\n"
    "\n"
    "--digest writes one line per game, in game-index order: its index, engines,\n"
    "opening, result, termination, plies and seed, and a 64-bit hash of all its\n"
    "moves (with scores, depths, node counts) and positions (TFEN, side, score,\n"
    "result). Two stores hold the same games exactly when their digests are equal,\n"
    "whatever order the games were stored in (wall times and row offsets are left\n"
    "out): e.g. an MPI run against a single-process run.\n\n"
    "Examples:\n"
    "  tavreli export results/quick.h5 --tgn results/quick.tgn\n"
    "  tavreli export a.h5 --digest a.txt && tavreli export b.h5 --digest b.txt && cmp a.txt b.txt\n";

typedef struct {
    const char *tgn, *digest;
} ExportArgs;

static const CliFlag EXPORT_FLAGS[] = {
    {"tgn", 0, CLI_STRING, offsetof(ExportArgs, tgn), 0, 0},
    {"digest", 0, CLI_STRING, offsetof(ExportArgs, digest), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_export(const CliCommand *cmd, int argc, char **argv)
{
    ExportArgs a = {0};
    char *pos[argc];
    int npos;
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, pos, &npos);
    if (parsed >= 0)
        return parsed;
    const char *in = cli_one_arg(cmd, pos, npos, "FILE.h5"), *tgn = a.tgn, *digest = a.digest;
    if (!in)
        return CLI_USAGE;
    if (!tgn && !digest) {
        cli_error("export: expected FILE.h5 --tgn OUT.tgn and/or --digest OUT.txt");
        return CLI_USAGE;
    }
    StoreContents c;
    TvError err;
    /* before the store is read: an output never replaces the input, a
     * store (a live one included) or the other output */
    const char *inputs[2] = {in, digest};
    if ((tgn && tv_output_check(tgn, inputs, digest ? 2 : 1, "TGN file", &err) != TV_OK) ||
        (digest && tv_output_check(digest, inputs, 1, "digest file", &err) != TV_OK)) {
        cli_error("export: %s", err.msg);
        return CLI_USAGE;
    }
    if (tgn && digest && !strcmp(tgn, digest)) {
        cli_error("export: --tgn and --digest name one file (%s): give each its own", tgn);
        return CLI_USAGE;
    }
    if (h5store_read(in, true, digest != NULL, &c, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    cli_warn_torn(in, &c);
    int rc = CLI_OK;
    if (export_check_moves(&c, in, &err) != TV_OK) { /* before anything is written */
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
    }
    if (digest && rc == CLI_OK) {
        if (export_digest(&c, digest, &err) != TV_OK) {
            cli_error("%s", err.msg);
            rc = CLI_FAIL;
        } else
            printf("%s: %lld games\n", digest, (long long)c.ngames);
    }
    if (tgn && rc == CLI_OK) {
        if (export_tgn(&c, in, tgn, &err) != TV_OK) {
            cli_error("%s", err.msg);
            rc = CLI_FAIL;
        } else
            printf("%s: %lld games\n", tgn, (long long)c.ngames);
    }
    h5store_contents_free(&c);
    return rc;
}

const CliCommand CLI_EXPORT = {"export", EXPORT_HELP, EXPORT_FLAGS, run_export};

/* ---- verify ------------------------------------------------------------------- */

static const char VERIFY_HELP[] =
    "usage: tavreli verify FILE.h5\n"
    "\n"
    "Replays every game of a self-play store with the rules core, under the store's\n"
    "rule options, and checks that every stored move is legal and written as the\n"
    "project writes it, that every stored position is the one the game reached,\n"
    "that no game went on after the rules had ended it, and that each stored\n"
    "termination is what the rules say: a checkmate, stalemate, repetition or\n"
    "captured Wizard with its result, or, for an adjudicated game, a position the\n"
    "rules have not ended. Prints each problem as 'game N: ...' and a summary;\n"
    "exit status 1 when any game has a problem.\n\n"
    "Example:\n"
    "  tavreli verify results/quick.h5\n";

static void print_problem(int64_t game, const char *what, void *user)
{
    (void)user;
    printf("game %lld: %s\n", (long long)game, what);
}

static int run_verify(const CliCommand *cmd, int argc, char **argv)
{
    char *pos[argc];
    int npos;
    int parsed = cli_parse_or_exit(cmd, argc, argv, NULL, pos, &npos);
    if (parsed >= 0)
        return parsed;
    const char *in = cli_one_arg(cmd, pos, npos, "FILE.h5");
    if (!in)
        return CLI_USAGE;
    StoreContents c;
    TvError err;
    /* the replay is verify's own: every problem of every game listed */
    if (h5store_read_unreplayed(in, true, true, &c, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    cli_warn_torn(in, &c);
    VerifyReport r;
    TvStatus st = verify_store_games(&c, print_problem, NULL, &r, &err);
    h5store_contents_free(&c);
    if (st != TV_OK) {
        cli_error("%s: %s", in, err.msg);
        return CLI_FAIL;
    }
    printf("%s: %lld games replayed, %lld with problems; stored terminations:", in, (long long)r.games,
           (long long)r.bad);
    for (int t = 0; t <= TERM_COUNT; t++)
        if (r.by_termination[t])
            printf(" %s %lld", t < TERM_COUNT ? termination_name((Termination)t) : "unknown",
                   (long long)r.by_termination[t]);
    printf("\n");
    return r.bad ? CLI_FAIL : CLI_OK;
}

const CliCommand CLI_VERIFY = {"verify", VERIFY_HELP, CLI_NO_FLAGS, run_verify};

/* ---- repair ------------------------------------------------------------------- */

static const char REPAIR_HELP[] =
    "usage: tavreli repair FILE.h5 [--out NEW.h5] [--force]\n"
    "\n"
    "Copies the good games of a damaged self-play store into a new store: every\n"
    "/games row whose own moves and positions exist and name it, in ascending game\n"
    "index, the first row of a game index kept. Each row left out is printed with\n"
    "the reason. FILE.h5 is not changed. Commands refuse a damaged store (naming\n"
    "the row); after a repair, 'tavreli selfplay CONFIG.ini --out NEW.h5 --resume'\n"
    "plays the games it lacks.\n"
    "\n"
    "  --out NEW.h5   the new store (default FILE-repaired.h5)\n"
    "  --force        replace NEW.h5 if it exists\n\n"
    "Example:\n"
    "  tavreli repair results/quick.h5 --out results/quick-repaired.h5\n";

typedef struct {
    const char *out;
    bool force;
} RepairArgs;

static const CliFlag REPAIR_FLAGS[] = {
    {"out", 0, CLI_STRING, offsetof(RepairArgs, out), 0, 0},
    {"force", 0, CLI_BOOL, offsetof(RepairArgs, force), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static void print_dropped(int64_t row, int64_t game, const char *why, void *user)
{
    (void)user;
    printf("row %lld (game %lld) left out: %s\n", (long long)row, (long long)game, why);
}

static int run_repair(const CliCommand *cmd, int argc, char **argv)
{
    RepairArgs a = {0};
    char *pos[argc];
    int npos;
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, pos, &npos);
    if (parsed >= 0)
        return parsed;
    const char *in = cli_one_arg(cmd, pos, npos, "FILE.h5");
    if (!in)
        return CLI_USAGE;
    char out[1100];
    if (a.out)
        snprintf(out, sizeof out, "%s", a.out);
    else {
        size_t len = strlen(in);
        int stem = len > 3 && !strcmp(in + len - 3, ".h5") ? (int)(len - 3) : (int)len;
        snprintf(out, sizeof out, "%.*s-repaired.h5", stem, in);
    }
    StoreRepairCounts n;
    TvError err;
    if (h5store_repair(in, out, a.force, print_dropped, NULL, &n, &err) != TV_OK) {
        cli_error("%s", err.msg);
        return CLI_FAIL;
    }
    printf("%s: %lld good games of %lld rows copied from %s (%lld rows left out: %lld damaged or never written, "
           "%lld repeating a game)\n",
           out, (long long)n.kept, (long long)n.rows, in, (long long)(n.bad + n.duplicates), (long long)n.bad,
           (long long)n.duplicates);
    return CLI_OK;
}

const CliCommand CLI_REPAIR = {"repair", REPAIR_HELP, REPAIR_FLAGS, run_repair};
