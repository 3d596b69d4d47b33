/* cli_serve.c: `tavreli serve` (serve/serve.h). */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "serve.h"

static const char SERVE_HELP[] =
    "usage: tavreli serve [DIR] [--port N] [--bind ADDR] [--threads N] [--connections N]\n"
    "\n"
    "Serves live pages of the runs under DIR (default results) to a browser, read\n"
    "only: every tournament store, 'tavreli train' and 'tavreli spsa' folder, with\n"
    "its state (running, finished, interrupted with the command that resumes it,\n"
    "damaged with the reader's reason), games played of planned, games a minute,\n"
    "ETA, headline (Elo with interval, LLR and verdict), engines and conditions.\n"
    "The pages update themselves while runs play. A run's page has its standings,\n"
    "pairings with pentanomial counts, the LLR path against its bounds, the games\n"
    "the referee ended, a train run's generations or an SPSA run's parameters, its\n"
    "full report, and a table of its games (filter by engine, result, how they\n"
    "ended); a game opens in a viewer that draws the board with every tower, steps\n"
    "through the moves (arrow keys) with the engines' scores, depths and clocks,\n"
    "and gives the game's TGN record. docs/serve.md has the pages and their JSON.\n"
    "\n"
    "  --port N         the port (default 8080; 0: a free one, printed)\n"
    "  --bind ADDR      the address to listen on (default 127.0.0.1: this machine\n"
    "                   only; 0.0.0.0 or :: let others in, with a warning: the\n"
    "                   pages show engine paths and command lines)\n"
    "  --threads N      request threads (default 4)\n"
    "  --connections N  connections at once (default 64)\n"
    "\n"
    "Prints the address to open, then runs until Ctrl-C or SIGTERM (exit 0).\n"
    "Nothing under DIR is written; the server's own copies of the reports live in\n"
    "a temporary folder that it removes as it ends.\n"
    "\n"
    "Examples:\n"
    "  tavreli serve\n"
    "  tavreli serve results --port 0\n";

typedef struct {
    long port, threads, connections;
    const char *bind;
} ServeArgs;

static const CliFlag SERVE_FLAGS[] = {
    {"port", 0, CLI_LONG, offsetof(ServeArgs, port), 0, 65535},
    {"bind", 0, CLI_STRING, offsetof(ServeArgs, bind), 0, 0},
    {"threads", 0, CLI_LONG, offsetof(ServeArgs, threads), 1, 64},
    {"connections", 0, CLI_LONG, offsetof(ServeArgs, connections), 1, 10000},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_serve(const CliCommand *cmd, int argc, char **argv)
{
    ServeOptions o;
    serve_options_default(&o);
    ServeArgs a = {.port = o.port, .threads = o.threads, .connections = o.max_connections, .bind = o.bind};
    char *pos[2];
    int npos = 0;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos > 1) {
        cli_error("serve: one folder of runs is served (got %d: '%s', '%s'); see 'tavreli serve --help'", npos,
                  pos[0], pos[1]);
        return CLI_USAGE;
    }
    o.dir = npos ? pos[0] : o.dir;
    o.port = (int)a.port;
    o.bind = a.bind;
    o.threads = (int)a.threads;
    o.max_connections = (int)a.connections;
    if (strcmp(o.bind, "127.0.0.1") != 0 && strcmp(o.bind, "::1") != 0)
        cli_warning("serve: listening on %s lets other machines read the pages (engine paths, command lines, "
                    "results); the server is read-only and has no login",
                    o.bind);
    /* SIGINT and SIGTERM are waited for here: blocked before the server's
     * threads start, so that they inherit the mask and only sigwait takes them */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    Server *s;
    TvError err;
    if (serve_start(&o, &s, &err) != TV_OK) {
        cli_error("serve: %s", err.msg);
        return CLI_FAIL;
    }
    const bool v6 = strchr(o.bind, ':') != NULL;
    printf("serving %s on http://%s%s%s:%d/ (Ctrl-C ends it)\n", o.dir, v6 ? "[" : "",
           !strcmp(o.bind, "0.0.0.0") ? "127.0.0.1" : !strcmp(o.bind, "::") ? "::1" : o.bind, v6 ? "]" : "",
           serve_port(s));
    fflush(stdout);
    int sig = 0;
    sigwait(&set, &sig);
    serve_stop(s);
    printf("serve: stopped by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return CLI_OK;
}

const CliCommand CLI_SERVE = {"serve", SERVE_HELP, SERVE_FLAGS, run_serve};
