/* tavreli.c: the `tavreli` program: one command family for the rules, the
 * engine, self-play and the tuner.  Dispatches to the front ends. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "status.h"

static const char USAGE[] =
    "usage: tavreli COMMAND [ARGS]\n"
    "\n"
    "Tavreli (\"Russian chess\", chess with towers) test harness.\n"
    "\n"
    "Rules commands:\n"
    "  perft   [--option NAME=VALUE]... TFEN DEPTH [--divide] [--plain]\n"
    "          count legal move paths; the last output line is the total\n"
    "  moves   [--option NAME=VALUE]... [--plain] TFEN\n"
    "          list the legal moves, one per line, sorted\n"
    "  replay  [--option NAME=VALUE]... [--tfen TFEN] [--lenient] MOVE...\n"
    "  replay  [--lenient] --file FILE\n"
    "          play games, print each final TFEN and state\n"
    "  bench   perft | search [--depth N] | selfplay | tune | mpi\n"
    "          measure move generation (leaves/s) or search (nodes, nodes/s)\n"
    "\n"
    "Self-play:\n"
    "  selfplay CONFIG.ini [--out FILE.h5] [--threads N] [--games N] [--resume | --force]\n"
    "          run a tournament, storing every game in HDF5 (Ctrl-C: stop cleanly);\n"
    "          mpirun -np N tavreli selfplay ... runs it on N MPI ranks (MPI build)\n"
    "  export  FILE.h5 [--tgn OUT.tgn] [--digest OUT.txt]\n"
    "          write a store's games as TGN records, or a digest line per game\n"
    "  verify  FILE.h5\n"
    "          replay every stored game with the rules: moves, positions, terminations\n"
    "  repair  FILE.h5 [--out NEW.h5] [--force]\n"
    "          copy the good games of a damaged store into a new one\n"
    "  report  FILE.h5 [FILE.h5 ...] [--tuning-log LOG] -o DIR\n"
    "          strength report (ratings, LOS, SPRT, plots) as DIR/report.html\n"
    "  tune    --data FILE.h5 [FILE.h5 ...] --engine START.ini --out NEW.ini [--groups G,...]\n"
    "          fit the evaluation weights to the stored games (Texel tuning)\n"
    "  sprt    --penta N0,N1,N2,N3,N4 [--elo0 E] [--elo1 E] [--alpha A] [--beta B]\n"
    "          fishtest's generalised SPRT on pentanomial counts\n"
    "\n"
    "Engine commands:\n"
    "  analyse [--engine FILE] [--depth N | --nodes N | --movetime MS] TFEN\n"
    "          search a position, one line per iteration, then 'bestmove'\n"
    "  play    [--engine FILE] [--white | --black] [--depth N]\n"
    "          play the engine in the terminal\n"
    "  weights [--ini FILE]\n"
    "          print the evaluation weight table, or write the default engine INI\n"
    "  strength [--check random|depth|all] [--games N]\n"
    "          paired games: depth 3 vs a random mover, depth 4 vs depth 2\n"
    "\n"
    "TFEN may be the word 'startpos'. Options (docs/rules.md section 10):\n"
    "  slide_over_own=no|yes  enpassant=combatant|any  ending=checkmate|capture\n"
    "\n"
    "Run 'tavreli COMMAND --help' for a command's details.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(USAGE, stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tavreli %s\n", TAVRELI_VERSION);
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
