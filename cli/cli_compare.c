/* cli_compare.c: `tavreli compare`, a commit against a commit: each built
 * once (selfplay/build_cache.h), then a tournament of the two builds as
 * separate programs with an SPRT, played and reported by `selfplay` and
 * `report` (docs/compare.md). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "build_cache.h"
#include "cli.h"
#include "h5store.h"
#include "stats.h"
#include "tournament.h"

static const char COMPARE_HELP[] =
    "usage: tavreli compare [OLD [NEW]] [--tc BASE+INC | --nodes N] [--elo0 E] [--elo1 E]\n"
    "                       [--alpha A] [--beta B] [--pairs N] [--plies N] [--seed S]\n"
    "                       [--threads N] [--jobs N] [--out DIR] [--cache DIR] [--repo DIR]\n"
    "                       [--built EXE|none]\n"
    "                       [--resume | --force] [--dry-run] [--quiet]\n"
    "\n"
    "Is NEW stronger than OLD? OLD and NEW are git revisions of this checkout\n"
    "(default HEAD~1 and the working tree; '.' names the working tree). Each is\n"
    "built once, Release, only its tavreli target, into a cache of its own and\n"
    "reused when asked for again; a working tree with changes is built apart and\n"
    "named COMMIT-dirty. A revision this very tavreli is a build of (its --version:\n"
    "the commit, built Release, from the files as they are now) is not built\n"
    "again: this program plays it. The two builds then play as separate programs ('tavreli\n"
    "uci') on a clock, each opening twice with colours swapped, until an SPRT\n"
    "decides or the pairs run out; the games are a tournament store like any\n"
    "(DIR/compare.ini and DIR/compare.h5), with both commits and bench signatures\n"
    "in the engines' identity, and DIR/report/ is its report. The output ends,\n"
    "and the report begins, with 'new-COMMIT vs old-COMMIT: Elo, nElo, LOS,\n"
    "W/D/L; SPRT verdict'.\n"
    "\n"
    "  OLD, NEW     git revisions (a commit, branch, tag, HEAD~2, ...)\n"
    "  --tc BASE+INC  each side's clock in seconds (default 10+0.1)\n"
    "  --nodes N    a node limit per move instead of a clock (reproducible games)\n"
    "  --elo0 E, --elo1 E  the SPRT's hypotheses in normalized Elo (default 0 and\n"
    "               10: is NEW at least as strong, or 10 nElo stronger?)\n"
    "  --alpha A, --beta B  its error rates (default 0.05 each)\n"
    "  --pairs N    at most N opening pairs, 2N games (default 2000)\n"
    "  --plies N    random opening plies (default 8)\n"
    "  --seed S     the seed of the openings (default 1)\n"
    "  --threads N  game threads (default: all cores)\n"
    "  --jobs N     compiler processes of a build (default: all cores)\n"
    "  --out DIR    the run's folder (default results/compare-OLD-NEW)\n"
    "  --cache DIR  the builds (default $XDG_CACHE_HOME/tavreli/builds, else\n"
    "               ~/.cache/tavreli/builds)\n"
    "  --repo DIR   the git checkout (default: the one holding the current folder)\n"
    "  --built EXE  a tavreli already built, played for the revision it is a build\n"
    "               of (as above) instead of building that one (default: this\n"
    "               tavreli; 'none': build both)\n"
    "  --resume     continue the run in DIR (the same builds: a changed working\n"
    "               tree is refused); --force starts it anew\n"
    "  --dry-run    build both and write DIR/compare.ini; play nothing\n"
    "  --quiet      no progress output\n"
    "\n"
    "A revision that is not a commit of the repository, a build that fails (the\n"
    "compiler's last lines are quoted) and a build whose bench signature ('tavreli\n"
    "bench search') disagrees with its cache record or with a 'Bench: N' line of\n"
    "its commit message are refused. Ctrl-C stops as selfplay does; --resume\n"
    "continues.\n\n"
    "Examples:\n"
    "  tavreli compare HEAD~1\n"
    "  tavreli compare v1 main --tc 10+0.1 --elo1 5\n";

typedef struct {
    const char *tc, *out, *cache, *repo, *built;
    long nodes, pairs, plies, threads, jobs;
    double elo0, elo1, alpha, beta;
    unsigned long long seed;
    bool resume, force, dry_run, quiet;
} CompareArgs;

static const CliFlag COMPARE_FLAGS[] = {
    {"tc", 0, CLI_STRING, offsetof(CompareArgs, tc), 0, 0},
    {"nodes", 0, CLI_LONG, offsetof(CompareArgs, nodes), 1, 2000000000},
    {"elo0", 0, CLI_DOUBLE, offsetof(CompareArgs, elo0), -999, 999},
    {"elo1", 0, CLI_DOUBLE, offsetof(CompareArgs, elo1), -999, 999},
    {"alpha", 0, CLI_DOUBLE_OPEN, offsetof(CompareArgs, alpha), 0, 0.5},
    {"beta", 0, CLI_DOUBLE_OPEN, offsetof(CompareArgs, beta), 0, 0.5},
    {"pairs", 0, CLI_LONG, offsetof(CompareArgs, pairs), 1, 1000000},
    {"plies", 0, CLI_LONG, offsetof(CompareArgs, plies), 0, 100},
    {"seed", 0, CLI_U64, offsetof(CompareArgs, seed), 0, 18446744073709551615.0},
    {"threads", 0, CLI_LONG, offsetof(CompareArgs, threads), 0, 1024},
    {"jobs", 0, CLI_LONG, offsetof(CompareArgs, jobs), 0, 1024},
    {"out", 0, CLI_STRING, offsetof(CompareArgs, out), 0, 0},
    {"cache", 0, CLI_STRING, offsetof(CompareArgs, cache), 0, 0},
    {"repo", 0, CLI_STRING, offsetof(CompareArgs, repo), 0, 0},
    {"built", 0, CLI_STRING, offsetof(CompareArgs, built), 0, 0},
    {"resume", 0, CLI_BOOL, offsetof(CompareArgs, resume), 0, 0},
    {"force", 0, CLI_BOOL, offsetof(CompareArgs, force), 0, 0},
    {"dry-run", 0, CLI_BOOL, offsetof(CompareArgs, dry_run), 0, 0},
    {"quiet", 0, CLI_BOOL, offsetof(CompareArgs, quiet), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static void print_note(const char *text, void *user)
{
    if (!*(const bool *)user)
        fprintf(stderr, "%s\n", text);
}

/* Builds one side; false after printing the error. */
static bool build_side(const char *side, const char *cache, const BuildRev *r, const char *prebuilt, long jobs,
                       bool quiet, BuiltRev *b)
{
    TvError err;
    if (build_cache_get(cache, r, prebuilt, (int)jobs, print_note, &quiet, b, &err) != TV_OK) {
        /* the message's first line, then the compiler's lines as they were */
        const int first = (int)strcspn(err.msg, "\n");
        cli_error("compare: %s (%s): %.*s", side, r->label, first, err.msg);
        if (err.msg[first])
            fprintf(stderr, "%s\n", err.msg + first + 1);
        return false;
    }
    if (!quiet) {
        char how[BUILD_PATH_MAX + 64] = "built before";
        if (b->prebuilt)
            snprintf(how, sizeof how, "a copy of %s, already built from these files", prebuilt);
        else if (!b->reused)
            snprintf(how, sizeof how, "built in %.0f s", b->seconds);
        fprintf(stderr, "%s %s: %s (%s), bench %lld%s\n", side, r->label, b->exe, how, (long long)b->bench,
                b->said_commit[0] ? "" : " (a build older than 'tavreli --version' naming its commit)");
    }
    return true;
}

/* The tournament of the two builds, new first (the report's baseline: its
 * headline is new against old). */
static bool write_ini(const char *path, const CompareArgs *a, const TimeControl *tc, const BuildRev *rev[2],
                      const BuiltRev *built[2], char names[2][48])
{
    TvAtomicFile at;
    TvError err;
    if (tv_atomic_open(&at, path, "tournament INI", &err) != TV_OK) {
        cli_error("compare: %s", err.msg);
        return false;
    }
    FILE *f = at.f;
    fprintf(f, "# written by tavreli compare: %s against %s\n", rev[0]->label, rev[1]->label);
    fprintf(f, "[tournament]\nname = compare-%s-%s\npairs = %ld\nseed = %llu\nthreads = %ld\n", rev[1]->label,
            rev[0]->label, a->pairs, a->seed, a->threads);
    fprintf(f, "[openings]\nplies = %ld\n", a->plies);
    fprintf(f, "[sprt]\nelo0 = %g\nelo1 = %g\nalpha = %g\nbeta = %g\n", a->elo0, a->elo1, a->alpha, a->beta);
    char clock[48];
    time_control_format(tc, clock, sizeof clock);
    if (a->nodes > 0)
        fprintf(f, "[each]\nnodes = %ld\n", a->nodes);
    else
        fprintf(f, "[each]\ntc = %s\n", clock);
    for (int k = 0; k < 2; k++)
        fprintf(f, "[engine %s]\n# %.40s: %.120s\ncommand = '%s' uci\n", names[k],
                rev[k]->given[0] ? rev[k]->given : "the working tree", rev[k]->subject, built[k]->exe);
    if (tv_atomic_commit(&at, &err) != TV_OK) {
        cli_error("compare: %s", err.msg);
        return false;
    }
    return true;
}

/* Seconds in words: "40 s", "12 min", "3.5 h". */
static const char *duration(double s, char *buf, size_t n)
{
    if (s < 90)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 5400)
        snprintf(buf, n, "%.0f min", s / 60);
    else
        snprintf(buf, n, "%.1f h", s / 3600);
    return buf;
}

/* The games a store holds (0 when there is none or it cannot be read). */
static long long stored_games(const char *store)
{
    if (access(store, F_OK) != 0)
        return 0;
    StoreContents c;
    TvError err;
    if (h5store_read(store, false, false, &c, &err) != TV_OK)
        return 0;
    const long long n = c.ngames;
    h5store_contents_free(&c);
    return n;
}

static int run_compare(const CliCommand *cmd, int argc, char **argv)
{
    CompareArgs a = {.tc = "10+0.1", .pairs = 2000, .plies = 8, .seed = 1, .elo0 = 0, .elo1 = 10, .alpha = 0.05,
                     .beta = 0.05, .repo = "."};
    char *pos[argc];
    int npos;
    int parsed = cli_parse_or_exit(cmd, argc, argv, &a, pos, &npos);
    if (parsed >= 0)
        return parsed;
    if (npos > 2) {
        cli_error("compare: at most two revisions, OLD and NEW (got %d); see tavreli compare --help", npos);
        return CLI_USAGE;
    }
    if (a.resume && a.force) {
        cli_error("compare: --resume and --force contradict each other");
        return CLI_USAGE;
    }
    if (a.elo0 >= a.elo1) {
        cli_error("compare: --elo0 (%g) must be below --elo1 (%g)", a.elo0, a.elo1);
        return CLI_USAGE;
    }
    TimeControl tc;
    if (!time_control_parse(a.tc, &tc) || tc.base_ms <= 0) {
        cli_error("compare: --tc '%s' must be BASE+INC in seconds (e.g. 10+0.1)", a.tc);
        return CLI_USAGE;
    }
    const char *old_rev = npos >= 1 ? pos[0] : "HEAD~1";
    const char *new_rev = npos >= 2 && strcmp(pos[1], ".") ? pos[1] : NULL;
    if (!strcmp(old_rev, ".")) {
        cli_error("compare: OLD is the working tree ('.'); OLD must be a commit (NEW is the working tree by default)");
        return CLI_USAGE;
    }
    BuildRev old, new_;
    TvError err;
    if (build_cache_resolve(a.repo, old_rev, &old, &err) != TV_OK ||
        build_cache_resolve(a.repo, new_rev, &new_, &err) != TV_OK) {
        cli_error("compare: %s", err.msg);
        return CLI_FAIL;
    }
    if (!strcmp(old.label, new_.label)) {
        cli_error("compare: OLD (%s) and NEW (%s) are the same build, %s: nothing to compare", old_rev,
                  new_rev ? new_rev : "the working tree", old.label);
        return CLI_USAGE;
    }
    char cache[BUILD_PATH_MAX];
    if (a.cache)
        snprintf(cache, sizeof cache, "%s", a.cache);
    else
        build_cache_default_dir(old.repo, cache, sizeof cache);
    /* this tavreli, unless --built names another or none */
    char self[BUILD_PATH_MAX] = "";
    if (a.built && strcmp(a.built, "none"))
        snprintf(self, sizeof self, "%s", a.built);
    else if (!a.built) {
        const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        self[len > 0 ? len : 0] = '\0';
    }
    if (a.built && self[0] && access(self, X_OK) != 0) {
        cli_error("compare: --built %s: %s (give a tavreli executable, or 'none')", self, strerror(errno));
        return CLI_USAGE;
    }
    BuiltRev old_b, new_b;
    if (!build_side("old", cache, &old, self, a.jobs, a.quiet, &old_b) ||
        !build_side("new", cache, &new_, self, a.jobs, a.quiet, &new_b))
        return CLI_FAIL;

    char dir[1024], ini[1100], store[1100], report[1100];
    if (a.out)
        snprintf(dir, sizeof dir, "%s", a.out);
    else {
        if (mkdir("results", 0777) != 0 && errno != EEXIST) {
            cli_error("compare: cannot make the folder 'results': %s (give --out DIR)", strerror(errno));
            return CLI_FAIL;
        }
        snprintf(dir, sizeof dir, "results/compare-%s-%s", old.label, new_.label);
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("compare: cannot make the folder %s: %s", dir, strerror(errno));
        return CLI_FAIL;
    }
    snprintf(ini, sizeof ini, "%s/compare.ini", dir);
    snprintf(store, sizeof store, "%s/compare.h5", dir);
    snprintf(report, sizeof report, "%s/report", dir);
    if (!a.resume && !a.force && !a.dry_run && access(store, F_OK) == 0) {
        cli_error("compare: %s exists: --resume continues it, --force starts anew", store);
        return CLI_FAIL;
    }
    char names[2][48];
    snprintf(names[0], sizeof names[0], "new-%s", new_.label);
    snprintf(names[1], sizeof names[1], "old-%s", old.label);
    const BuildRev *revs[2] = {&new_, &old};
    const BuiltRev *builds[2] = {&new_b, &old_b};
    if (!write_ini(ini, &a, &tc, revs, builds, names))
        return CLI_FAIL;
    /* before the first game: the SPRT's expected length (stats.h), and a game's
     * length as earlier runs measured it here at this clock (the cache keeps
     * it), else its longest; the progress line then gives the ETA measured
     * from this run's games */
    const long threads = a.threads > 0 ? a.threads : sysconf(_SC_NPROCESSORS_ONLN);
    char what[64];
    if (a.nodes > 0)
        snprintf(what, sizeof what, "nodes %ld", a.nodes);
    else
        snprintf(what, sizeof what, "tc %s", a.tc);
    if (!a.quiet) {
        double at_bounds = sprt_expected_pairs(a.elo0, a.elo1, a.alpha, a.beta, a.elo1);
        double middle = sprt_expected_pairs(a.elo0, a.elo1, a.alpha, a.beta, (a.elo0 + a.elo1) / 2);
        if (at_bounds > a.pairs)
            at_bounds = (double)a.pairs;
        if (middle > a.pairs)
            middle = (double)a.pairs;
        double game_s;
        long long measured = 0;
        char eta[32], most[32];
        char how[160];
        if (build_cache_game_seconds(cache, what, &game_s, &measured))
            snprintf(how, sizeof how, "%.1f s a game per thread, measured here over %lld games of earlier runs", game_s,
                     measured);
        else {
            /* no measurement yet: a game's longest, both clocks spent with the
             * increments of 60 moves a side (a node limit: 0.5 s a move) */
            game_s = a.nodes > 0 ? 60.0 : 2 * (tc.base_ms + 60.0 * tc.inc_ms) / 1000;
            snprintf(how, sizeof how, "at most %.0f s a game (no earlier run measured it here)", game_s);
        }
        fprintf(stderr,
                "%s vs %s at %s, SPRT [%g, %g] nElo: about %.0f pairs when NEW is %g or %g nElo stronger, %.0f "
                "between, at most %ld; %s; %ld thread%s: ETA %s (at most %s)\n",
                names[0], names[1], what, a.elo0, a.elo1, at_bounds, a.elo0, a.elo1, middle, a.pairs, how, threads,
                threads == 1 ? "" : "s", duration(2 * at_bounds * game_s / threads, eta, sizeof eta),
                duration(2 * a.pairs * game_s / threads, most, sizeof most));
    }
    if (a.dry_run) {
        printf("%s written; nothing played (--dry-run)\n", ini);
        return CLI_OK;
    }
    /* the tournament, as `tavreli selfplay` plays it, then its report */
    char *play[8] = {"selfplay", ini, "--out", store};
    int n = 4;
    if (a.resume)
        play[n++] = "--resume";
    if (a.force)
        play[n++] = "--force";
    if (a.quiet)
        play[n++] = "--quiet";
    play[n] = NULL;
    const long long before = a.force ? 0 : stored_games(store); /* --force starts the store anew */
    const double t0 = tv_now_seconds();
    int rc = CLI_SELFPLAY.run(&CLI_SELFPLAY, n, play);
    const double wall = tv_now_seconds() - t0;
    const long long played = stored_games(store) - (before > 0 ? before : 0);
    if (played >= 2) /* this run's game length, for the next run's ETA */
        build_cache_note_game_seconds(cache, what,
                                      wall * (double)threads / (double)played,
                                      played);
    if (rc != CLI_OK) {
        if (access(store, F_OK) == 0)
            fprintf(stderr, "note: 'tavreli compare %s %s --out %s --resume' continues the run\n", old_rev,
                    new_rev ? new_rev : ".", dir);
        return rc;
    }
    fflush(stdout);
    char *rep[] = {"report", store, "-o", report, NULL};
    return CLI_REPORT.run(&CLI_REPORT, 4, rep); /* its last line: the report's headline */
}

const CliCommand CLI_COMPARE = {"compare", COMPARE_HELP, COMPARE_FLAGS, run_compare};
