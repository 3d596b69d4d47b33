/* cli_rules.c: `tavreli perft`, `moves`, `replay` and `bench perft`. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "movegen.h"
#include "notation.h"
#include "perft.h"
#include "record.h"
#include "tfen.h"
#include "verify.h"

typedef struct {
    char text[TV_MOVE_STR_MAX];
    Move move;
} NamedMove;

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const NamedMove *)a)->text, ((const NamedMove *)b)->text);
}

/* The legal moves of p with their notation, sorted by text.  Returns the
 * count; out must hold TV_MAX_MOVES entries. */
static int named_moves(const Position *p, const Options *o, bool suffix, NamedMove *out)
{
    MoveList list;
    movegen_legal(p, o, &list);
    for (int i = 0; i < list.count; i++) {
        out[i].move = list.moves[i];
        move_to_str(p, o, list.moves[i], suffix, out[i].text, sizeof out[i].text);
    }
    qsort(out, (size_t)list.count, sizeof *out, cmp_named);
    return list.count;
}

/* ---- perft ------------------------------------------------------------------ */

static const char PERFT_HELP[] =
    "usage: tavreli perft [--rule NAME=VALUE]... TFEN DEPTH [--divide] [--plain]\n"
    "\n"
    "Counts the legal move sequences of DEPTH plies from TFEN ('startpos' for the\n"
    "start position). Every split count k is a move of its own; repetition is\n"
    "ignored. The last line of output is the total alone.\n"
    "\n"
    "  --divide              first one 'move: count' line per legal move, sorted\n"
    "  --plain               write moves without the + / x suffixes\n"
    "  --rule NAME=VALUE     a variant option (slide_over_own=no|yes,\n"
    "                        enpassant=combatant|any, ending=checkmate|capture)\n"
    "\n"
    "Example: tavreli perft startpos 3 --divide\n";

/* The flags of perft and moves (moves has no --divide). */
typedef struct {
    Options rules;
    bool divide, plain;
} PositionArgs;

static const CliFlag PERFT_FLAGS[] = {
    {"rule", 0, CLI_RULE_OPTION, offsetof(PositionArgs, rules), 0, 0},
    {"divide", 0, CLI_BOOL, offsetof(PositionArgs, divide), 0, 0},
    {"plain", 0, CLI_BOOL, offsetof(PositionArgs, plain), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_perft(const CliCommand *cmd, int argc, char **argv)
{
    PositionArgs a = {0};
    char *pos_args[argc];
    int npos;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, pos_args, &npos);
    if (rc >= 0)
        return rc;
    const Options o = a.rules;
    const bool divide = a.divide, suffix = !a.plain;
    if (npos < 2) {
        cli_error("perft: expected TFEN and DEPTH (see 'tavreli perft --help')");
        return CLI_USAGE;
    }
    char *end;
    long depth = strtol(pos_args[npos - 1], &end, 10);
    if (*end || end == pos_args[npos - 1] || depth < 0 || depth > 20) {
        cli_error("perft: DEPTH must be a whole number from 0 to 20, not '%s'", pos_args[npos - 1]);
        return CLI_USAGE;
    }
    Position p;
    if (!cli_read_position(pos_args, npos - 1, &p))
        return CLI_FAIL;

    if (!divide || depth == 0) {
        printf("%llu\n", (unsigned long long)perft(&p, &o, (int)depth));
        return CLI_OK;
    }
    static NamedMove moves[TV_MAX_MOVES];
    int n = named_moves(&p, &o, suffix, moves);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        Undo u;
        pos_make_move(&p, moves[i].move, &u);
        uint64_t c = perft(&p, &o, (int)depth - 1);
        pos_unmake_move(&p, &u);
        printf("%s: %llu\n", moves[i].text, (unsigned long long)c);
        total += c;
    }
    printf("%llu\n", (unsigned long long)total);
    return CLI_OK;
}

const CliCommand CLI_PERFT = {"perft", PERFT_HELP, PERFT_FLAGS, run_perft};

/* ---- moves ------------------------------------------------------------------ */

static const char MOVES_HELP[] =
    "usage: tavreli moves [--rule NAME=VALUE]... [--plain] TFEN\n"
    "\n"
    "Prints the legal moves of TFEN ('startpos' for the start position), one per\n"
    "line, sorted, in the notation of docs/rules.md section 11: from-to, from(k)-to for\n"
    "a split of the top k tavrels, 0-0 / 0-0-0, with '+' after a checking move and\n"
    "'x' after a mating one (--plain leaves the suffixes out).\n"
    "\n"
    "  --rule NAME=VALUE   a variant option (slide_over_own=no|yes,\n"
    "                      enpassant=combatant|any, ending=checkmate|capture)\n"
    "\n"
    "Examples:\n"
    "  tavreli moves startpos\n"
    "  tavreli moves --rule slide_over_own=yes --plain startpos\n";

static const CliFlag MOVES_FLAGS[] = {
    {"rule", 0, CLI_RULE_OPTION, offsetof(PositionArgs, rules), 0, 0},
    {"plain", 0, CLI_BOOL, offsetof(PositionArgs, plain), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_moves(const CliCommand *cmd, int argc, char **argv)
{
    PositionArgs a = {0};
    char *pos_args[argc];
    int npos;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, pos_args, &npos);
    if (rc >= 0)
        return rc;
    const Options o = a.rules;
    if (npos < 1) {
        cli_error("moves: expected a TFEN (see 'tavreli moves --help')");
        return CLI_USAGE;
    }
    Position p;
    if (!cli_read_position(pos_args, npos, &p))
        return CLI_FAIL;
    static NamedMove moves[TV_MAX_MOVES];
    int n = named_moves(&p, &o, !a.plain, moves);
    for (int i = 0; i < n; i++)
        puts(moves[i].text);
    return CLI_OK;
}

const CliCommand CLI_MOVES = {"moves", MOVES_HELP, MOVES_FLAGS, run_moves};

/* ---- replay ----------------------------------------------------------------- */

static const char REPLAY_HELP[] =
    "usage: tavreli replay [--rule NAME=VALUE]... [--tfen TFEN] [--lenient] MOVE...\n"
    "       tavreli replay [--lenient] --file FILE\n"
    "\n"
    "Plays the moves (docs/rules.md section 11 notation; move numbers, annotations\n"
    "and a result token are allowed) and prints the final TFEN on a line of its\n"
    "own, then the game state: checkmate, stalemate, repetition or ongoing.\n"
    "With --file, FILE holds games (TGN, or one game a line as 'id | description |\n"
    "movetext'); each game is printed as 'game ID', its final TFEN and its state,\n"
    "and a Result tag (with its Termination tag, when it names a termination of\n"
    "the store) that the final position contradicts is an error, as in 'tavreli\n"
    "verify'.\n"
    "\n"
    "  --tfen TFEN   start from TFEN instead of the start position\n"
    "  --lenient     mend the slips of published records (upper-case files,\n"
    "                Cyrillic 'с' for c, a space for the hyphen) with a warning\n"
    "  --rule NAME=VALUE  a variant option (slide_over_own=no|yes,\n"
    "                enpassant=combatant|any, ending=checkmate|capture)\n"
    "\n"
    "A '+' that does not give check, a '#' that does not mate and every mended\n"
    "slip are reported on stderr as warnings. An illegal or unreadable move is\n"
    "an error naming the game, ply and move; the exit status is then 1.\n"
    "\n"
    "Examples:\n"
    "  tavreli replay e2-e4 e7-e5\n"
    "  tavreli replay --file tests/data/published.txt\n";

static void print_warnings(const char *game, const ReplayResult *res)
{
    for (int i = 0; i < res->nwarnings; i++)
        fprintf(stderr, "warning: %s%s%s\n", game ? game : "", game ? ": " : "", res->warnings[i]);
}

static void print_result(const ReplayResult *res)
{
    char buf[TV_TFEN_MAX];
    puts(tfen_write(&res->final, buf, sizeof buf));
    puts(game_state_name(res->state));
}

/* The value of tag `key` of a record, or NULL. */
static const char *record_tag(const GameRecord *g, const char *key)
{
    for (int i = 0; i < g->ntags; i++)
        if (!strcmp(g->tags[i].key, key))
            return g->tags[i].value;
    return NULL;
}

/* What is wrong with a record's Result tag (and Termination tag, when it
 * names one of the store's terminations) given the position its moves
 * reach: the checks of 'tavreli verify' (verify_ending).  NULL when nothing
 * is, or when the record says nothing that can be checked (no Result, "*",
 * or a game the rules have not ended and no known termination). */
static const char *record_ending_problem(const GameRecord *g, const ReplayResult *res, char *why, size_t n)
{
    const char *result = record_tag(g, "Result"), *term = record_tag(g, "Termination");
    if (!result)
        return NULL;
    StoredGame sg = {.plies = res->plies};
    if (!strcmp(result, "1-0"))
        sg.result = 1;
    else if (!strcmp(result, "0-1"))
        sg.result = -1;
    else if (!strcmp(result, "1/2-1/2"))
        sg.result = 0;
    else
        return NULL;
    int t = -1;
    for (int k = 0; term && k < TERM_COUNT && t < 0; k++)
        if (!strcmp(term, termination_name((Termination)k)))
            t = k;
    if (t < 0) { /* no termination the store knows: the rules' own ending, if any */
        if (res->state == TV_STATE_ONGOING)
            return NULL;
        t = res->state == TV_STATE_CHECKMATE    ? TERM_CHECKMATE
            : res->state == TV_STATE_STALEMATE  ? TERM_STALEMATE
            : res->state == TV_STATE_REPETITION ? TERM_REPETITION
                                                : TERM_WIZARD_CAPTURED;
    }
    sg.termination = (int8_t)t;
    /* the hashes of the positions before each move, for repetition */
    Position p;
    uint64_t *hist = malloc(sizeof *hist * ((size_t)res->plies + 1));
    if (!hist || tfen_read(g->start_tfen[0] ? g->start_tfen : TV_START_TFEN, &p, NULL) != TV_OK) {
        free(hist);
        return NULL; /* replay_record has read it */
    }
    for (int k = 0; k < res->plies; k++) {
        Undo u;
        hist[k] = p.hash;
        pos_make_move(&p, res->moves[k], &u);
    }
    char what[300];
    const char *bad = verify_ending(&sg, &p, &g->options, hist, what, sizeof what);
    free(hist);
    if (!bad)
        return NULL;
    snprintf(why, n, "[Result \"%s\"]%s%s%s: %s", result, term ? " [Termination \"" : "", term ? term : "",
             term ? "\"]" : "", what);
    return why;
}

typedef struct {
    Options rules;
    bool lenient;
    const char *tfen, *file;
} ReplayArgs;

static const CliFlag REPLAY_FLAGS[] = {
    {"rule", 0, CLI_RULE_OPTION, offsetof(ReplayArgs, rules), 0, 0},
    {"tfen", 0, CLI_STRING, offsetof(ReplayArgs, tfen), 0, 0},
    {"lenient", 0, CLI_BOOL, offsetof(ReplayArgs, lenient), 0, 0},
    {"file", 0, CLI_STRING, offsetof(ReplayArgs, file), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_replay(const CliCommand *cmd, int argc, char **argv)
{
    ReplayArgs a = {0};
    char **words = calloc((size_t)argc + 1, sizeof *words);
    int nwords = 0;
    if (!words)
        return CLI_FAIL;
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, words, &nwords);
    if (rc >= 0) {
        free(words);
        return rc;
    }
    rc = CLI_OK;
    const Options o = a.rules;
    const char *tfen = a.tfen, *file = a.file;
    const bool lenient = a.lenient;
    int mode = lenient ? TV_PARSE_LENIENT : TV_PARSE_STRICT;
    TvError err;
    if (file) {
        if (nwords || tfen) {
            cli_error("replay: --file takes no moves and no --tfen (the records carry them)");
            rc = CLI_USAGE;
            goto done;
        }
        RecordList games;
        if (records_read_file(file, &games, &err) != TV_OK) {
            cli_error("%s", err.msg);
            rc = CLI_FAIL;
            goto done;
        }
        if (games.count == 0) {
            cli_error("%s: no games found", file);
            rc = CLI_FAIL;
        }
        for (int g = 0; g < games.count; g++) {
            ReplayResult res;
            char id[sizeof games.games[g].id * 4];
            tv_escape(games.games[g].id, id, sizeof id); /* the file's text: no control bytes to the terminal */
            printf("game %s\n", id);
            if (replay_record(&games.games[g], mode, &res, &err) != TV_OK) {
                /* the message already names the game, ply and move */
                cli_error("%s:%d: %s", file, games.games[g].source_line, err.msg);
                replay_result_free(&res); /* holds the moves before the bad one */
                rc = CLI_FAIL;
                continue;
            }
            print_warnings(id, &res);
            print_result(&res);
            char why[600];
            if (record_ending_problem(&games.games[g], &res, why, sizeof why)) {
                cli_error("%s:%d: game %s: %s", file, games.games[g].source_line, id, why);
                rc = CLI_FAIL;
            }
            replay_result_free(&res);
        }
        records_free(&games);
        goto done;
    }
    Position start;
    char *start_words[1] = {(char *)(tfen ? tfen : "startpos")};
    if (!cli_read_position(start_words, 1, &start)) {
        rc = CLI_FAIL;
        goto done;
    }
    size_t len = 1;
    for (int i = 0; i < nwords; i++)
        len += strlen(words[i]) + 1;
    char *text = malloc(len);
    if (!text) {
        rc = CLI_FAIL;
        goto done;
    }
    cli_join_words(words, nwords, text, len);
    ReplayResult res;
    if (replay_movetext(&start, &o, text, mode, &res, &err) != TV_OK) {
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
    } else {
        print_warnings(NULL, &res);
        print_result(&res);
    }
    replay_result_free(&res); /* filled even on failure */
    free(text);
done:
    free(words);
    return rc;
}

const CliCommand CLI_REPLAY = {"replay", REPLAY_HELP, REPLAY_FLAGS, run_replay};

/* ---- bench ------------------------------------------------------------------ */

/* bench --help: the usage lines of every benchmark (from their own --help,
 * cli_print_bench_usage), then this. */
static const char BENCH_HELP[] =
    "bench perft runs perft on fixed positions (the start position at depth 5 and tower-heavy\n"
    "middlegames at depth 4) on one thread and prints the leaves per second of each and of\n"
    "all together (the figure to quote). The leaf counts are checked against\n"
    "known totals, so a fast but wrong generator fails the benchmark.\n"
    "\n"
    "bench search searches fixed positions to a fixed depth (5) with the default\n"
    "engine and a fresh context each, and prints each position's nodes, the total\n"
    "'nodes N' (a signature that changes only when search or evaluation change)\n"
    "and the nodes per second.\n"
    "\n"
    "bench selfplay runs a fixed tournament (default engine against itself, depth 3,\n"
    "40 games) on 1 and then 2 threads and prints games per hour, the speed-up, the\n"
    "share of wall time spent writing HDF5 and the bytes per stored position.\n"
    "\n"
    "bench tune measures the tuner: loss and gradient evaluations per second over\n"
    "stored positions, bytes per position in memory, and a full fit of 1 million\n"
    "positions.\n"
    "\n"
    "bench mpi (a build with -DTAVRELI_MPI=ON) runs the bench selfplay tournament\n"
    "through mpirun, with 1 rank and then N ranks (default 2) of one thread each,\n"
    "and prints games per hour over mpirun's whole wall time and the speed-up.\n"
    "\n"
    "bench protocol plays a fixed tournament (default engine against itself,\n"
    "20000 nodes a move) in-process and over the engine protocol (`tavreli uci`\n"
    "processes) and prints games per hour of each and the protocol's overhead.\n"
    "\n"
    "bench spsa plays one plan (default engine against itself, depth 3, 64 games)\n"
    "by selfplay and by spsa on 2 threads and prints games per hour of each, their\n"
    "ratio (what the SPSA bookkeeping costs) and whether the games were the same.\n"
    "\n"
    "bench serve times 'tavreli serve' answering the runs list of a folder of 100\n"
    "stores (the first answer and then from its cache) beside 'tavreli report'\n"
    "reading the same stores.\n"
    "\n"
    "Examples:\n"
    "  tavreli bench search\n"
    "  tavreli bench search --clock --games 20\n";

typedef struct {
    const char *name;
    const char *tfen;
    int depth;
    uint64_t expect;
} BenchPosition;

/* The start position, and tower-heavy middlegames reached in published games
 * (Karpov - Kupreichik after 12 moves; Bezgodova - Ershova's final position)
 * plus two tall towers.  Leaf counts agree with the simple generator of the
 * tests. */
static const BenchPosition BENCH_PERFT[] = {
    {"start position", TV_START_TFEN, 5, 152674453ull},
    {"game2 move 13", "(RPR)nb1k3/1(rprpn)1pq(qph)pb(bpn)1/8/1(PNnpbN)5(rpr)/8/2(BPQ)QPHN2/2PB2PBPNPR/4KB1R w K - 1 13",
     4, 56480408ull},
    {"game6 final", "4rrk1/prpnpbpq1pbpn1/2n4pr/4R3/5(BPH)2/8/PRPNPB(qbNRnQBPQ')1PBPNPR/3(h~b)N1K1 w - - 0 19", 4,
     58966327ull},
    {"seed game move 4", "rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4", 4,
     18858065ull},
    {"two tall towers", "8/1k6/2(nPRbPNrPBq)5/8/3(RBNQprpn)4/8/8/4K3 b - - 0 1", 4, 8551090ull},
};

/* `tavreli bench NAME ...`: runs the benchmark NAME (argv[1]), one of the
 * commands named "bench NAME" in the command table (cli_commands). */
static int run_bench(const CliCommand *cmd, int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *out = argc < 2 ? stderr : stdout;
        cli_print_bench_usage(out, "usage: ", "       ");
        fputs("\n", out);
        fputs(cmd->help, out);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    int n;
    const CliCommand *const *cmds = cli_commands(&n);
    char known[256] = "";
    for (int i = 0; i < n; i++) {
        if (strncmp(cmds[i]->name, "bench ", 6) != 0)
            continue;
        if (!strcmp(argv[1], cmds[i]->name + 6))
            return cmds[i]->run(cmds[i], argc - 1, argv + 1);
        size_t len = strlen(known);
        snprintf(known + len, sizeof known - len, "%s%s", len ? ", " : "", cmds[i]->name + 6);
    }
    cli_error("bench: unknown benchmark '%s' (available: %s)", argv[1], known);
    return CLI_USAGE;
}

const CliCommand CLI_BENCH = {"bench", BENCH_HELP, NULL, run_bench};


static int run_bench_perft(const CliCommand *cmd, int argc, char **argv)
{
    int rc = cli_parse_or_exit(cmd, argc, argv, NULL, NULL, NULL);
    if (rc >= 0)
        return rc;
    rc = CLI_OK;
    Options o = {0};
    uint64_t total = 0;
    double total_time = 0;
    for (size_t i = 0; i < sizeof BENCH_PERFT / sizeof BENCH_PERFT[0]; i++) {
        const BenchPosition *b = &BENCH_PERFT[i];
        Position p;
        TvError err;
        if (tfen_read(b->tfen, &p, &err) != TV_OK) {
            cli_error("bench position '%s': %s", b->name, err.msg);
            return CLI_FAIL;
        }
        double t0 = tv_now_seconds();
        uint64_t n = perft(&p, &o, b->depth);
        double dt = tv_now_seconds() - t0;
        printf("%-22s depth %d  %12llu leaves  %7.3f s  %8.1f M leaves/s%s\n", b->name, b->depth,
               (unsigned long long)n, dt, dt > 0 ? (double)n / dt / 1e6 : 0.0,
               n == b->expect ? "" : "  WRONG COUNT");
        if (n != b->expect) {
            cli_error("bench: %s gave %llu leaves, expected %llu", b->name, (unsigned long long)n,
                      (unsigned long long)b->expect);
            rc = CLI_FAIL;
        }
        fflush(stdout);
        total += n;
        total_time += dt;
    }
    printf("total: %llu leaves in %.3f s: %.1f M leaves/s (one thread)\n", (unsigned long long)total,
           total_time, total_time > 0 ? (double)total / total_time / 1e6 : 0.0);
    return rc;
}

static const char BENCH_PERFT_HELP[] =
    "usage: tavreli bench perft\n"
    "\n"
    "Runs perft on fixed positions (the start position at depth 5 and tower-heavy\n"
    "middlegames at depth 4) on one thread and prints the leaves per second of each\n"
    "and of all together (the figure to quote). The leaf counts are checked against\n"
    "known totals, so a fast but wrong generator fails the benchmark.\n\n"
    "Example:\n"
    "  tavreli bench perft\n";

const CliCommand CLI_BENCH_PERFT = {"bench perft", BENCH_PERFT_HELP, CLI_NO_FLAGS, run_bench_perft};
