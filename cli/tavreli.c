/* tavreli.c: the `tavreli` program: one command family for the rules, the
 * engine, self-play and the tuner.  Dispatches to the front ends. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "status.h"
#include "engine_id.h"

/* The overview `tavreli --help` prints: each command's synopsis is taken
 * from the usage lines of its own --help (so the two cannot disagree), with
 * a one-line summary from this table. */
typedef struct {
    const char *group; /* starts a group of commands when not NULL */
    const char *name;
    const char *summary;
} Overview;

static const Overview OVERVIEW[] = {
    {"Rules commands:", "perft", "count legal move paths; the last output line is the total"},
    {NULL, "moves", "list the legal moves, one per line, sorted"},
    {NULL, "replay", "play games, print each final TFEN and state"},
    {NULL, "bench", "measure move generation, search, self-play, the tuner or MPI"},
    {"Self-play:", "selfplay", "run a tournament, storing every game in HDF5 (Ctrl-C: stop cleanly);\n"
                               "mpirun -np N tavreli selfplay ... runs it on N MPI ranks (MPI build)"},
    {NULL, "match", "the same on the command line, as cutechess-cli and fastchess take it (-engine cmd=...\n"
                    "-each tc=10+0.1 -rounds N -sprt ...); writes the INI beside the store (docs/match.md)"},
    {NULL, "compare", "is NEW stronger than OLD? builds two git revisions once each and plays them\n"
                      "on a clock until an SPRT decides (new vs old: Elo, LOS, verdict)"},
    {NULL, "export", "write a store's games as TGN records, or a digest line per game"},
    {NULL, "verify", "replay every stored game with the rules: moves, positions, terminations"},
    {NULL, "repair", "copy the good games of a damaged store into a new one"},
    {NULL, "report", "strength report (ratings, LOS, SPRT, plots) as DIR/report.html"},
    {NULL, "serve", "live pages of the runs under results/ in a browser: standings, SPRT, games\n"
                    "and a game viewer that draws the towers (read-only; docs/serve.md)"},
    {NULL, "tune", "fit the evaluation weights to the stored games (Texel tuning)"},
    {NULL, "train", "generations of self-play, tune and SPRT gate, under results/NAME (resumable)"},
    {NULL, "spsa", "tune settings or options by SPSA played as games, then verify by SPRT (resumable)"},
    {NULL, "sprt", "fishtest's generalised SPRT on pentanomial counts"},
    {"Engine commands:", "analyse", "search a position, one line per iteration, then 'bestmove'"},
    {NULL, "play", "play the engine in the terminal"},
    {NULL, "weights", "print the evaluation weight table, or write the default engine INI"},
    {NULL, "strength", "paired games: depth 3 vs a random mover, depth 4 vs depth 2"},
    {NULL, "uci", "run the engine on stdin/stdout with the engine protocol (docs/protocol.md)"},
};

static void print_usage(FILE *out)
{
    fputs("usage: tavreli COMMAND [ARGS]\n"
          "\n"
          "Tavreli (\"Russian chess\", chess with towers) test harness.\n",
          out);
    int n;
    const CliCommand *const *cmds = cli_commands(&n);
    for (size_t i = 0; i < sizeof OVERVIEW / sizeof OVERVIEW[0]; i++) {
        const Overview *o = &OVERVIEW[i];
        if (o->group)
            fprintf(out, "\n%s\n", o->group);
        if (!strcmp(o->name, "bench"))
            cli_print_bench_usage(out, "  ", "  "); /* each benchmark's own usage lines */
        else
            for (int k = 0; k < n; k++)
                if (!strcmp(cmds[k]->name, o->name))
                    cli_print_synopsis(out, cmds[k]->help, "  ");
        for (const char *s = o->summary; *s;) {
            const char *eol = strchr(s, '\n');
            size_t len = eol ? (size_t)(eol - s) : strlen(s);
            fprintf(out, "      %.*s\n", (int)len, s);
            s += len + (eol != NULL);
        }
    }
    fputs("\n"
          "TFEN may be the word 'startpos'. Options (docs/rules.md section 10):\n"
          "  slide_over_own=no|yes  enpassant=combatant|any  ending=checkmate|capture\n"
          "\n"
          "Run 'tavreli COMMAND --help' for a command's details.\n",
          out);
}

/* A closed descriptor 0, 1 or 2 (`2>&-`, as some cron wrappers and
 * daemonisers start programs) would be the next file opened: the store's
 * HDF5 file would receive the progress lines.  Each closed one is opened on
 * /dev/null first: 0 and 2 as usual (no input; messages go nowhere, there
 * is nowhere to report), 1 read-only, so that a command whose answer is
 * written to a closed stdout fails in finish_stdout instead of losing it.
 * False when /dev/null cannot be opened. */
static bool open_standard_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY); /* the lowest free descriptor: fd */
        if (got != fd) {
            if (got >= 0)
                close(got);
            return false;
        }
    }
    return true;
}

/* The answer must reach stdout: a write that failed (a closed stdout, a
 * full disk: `>/dev/full`) turns the exit code into a failure with a
 * message on stderr. */
static int finish_stdout(int rc)
{
    bool failed = ferror(stdout);
    int e = fflush(stdout) != 0 ? errno : 0;
    if (fclose(stdout) != 0 && !e)
        e = errno;
    if (!e && !failed)
        return rc;
    cli_error("cannot write the output to stdout: %s", e ? strerror(e) : "a write failed");
    return rc != CLI_OK ? rc : CLI_FAIL;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        char line[512];
        engine_id_version_line(line, sizeof line);
        printf("%s\n", line);
        return CLI_OK;
    }
    int n;
    const CliCommand *const *cmds = cli_commands(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(argv[1], cmds[i]->name))
            return cmds[i]->run(cmds[i], argc - 1, argv + 1);
    char shown[160];
    cli_error("unknown command '%s' (run 'tavreli --help' for the list)", tv_escape(argv[1], shown, sizeof shown));
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
    if (!open_standard_fds())
        return CLI_FAIL; /* no /dev/null: nowhere safe to write, not even a message */
    cli_set_self(argc > 0 ? argv[0] : NULL);
    return finish_stdout(run(argc, argv));
}
