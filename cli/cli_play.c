/* cli_play.c: `tavreli play`: a person plays the engine in a terminal. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine.h"
#include "movegen.h"
#include "notation.h"
#include "record.h"
#include "search.h"
#include "tfen.h"

static const char PLAY_HELP[] =
    "usage: tavreli play [--engine FILE] [--white | --black] [--depth N | --nodes N | --movetime MS]\n"
    "                    [--tfen TFEN] [--option NAME=VALUE]... [--rule NAME=VALUE]...\n"
    "\n"
    "Play the engine in the terminal. You take White unless --black is given.\n"
    "Type moves in the notation of docs/rules.md (e2-e4, b2(1)-g7, 0-0), or:\n"
    "  moves      list your legal moves\n"
    "  undo       take back your last move (and the engine's reply)\n"
    "  show SQ    the whole stack on a square, top first (show e4)\n"
    "  board      draw the board again\n"
    "  tfen       print the position as TFEN\n"
    "  help       this list\n"
    "  quit       leave (the game is abandoned)\n"
    "The board shows each square's top tavrel (White upper case, Black lower case;\n"
    "P+destiny for a combatant, ~ for a promoted one) and ^N for a tower of N.\n"
    "--option NAME=VALUE sets an engine option on top of FILE (lmr=no, a weight\n"
    "element such as top_value[1]=480); --rule NAME=VALUE a rule option\n"
    "(slide_over_own=yes, enpassant=any, ending=capture).\n"
    "\n"
    "Examples:\n"
    "  tavreli play --depth 5\n"
    "  tavreli play --black --engine configs/engines/handset.ini --option lmr=no\n";

#define PLAY_MAX_PLIES 2048

typedef struct {
    Position start;
    Position pos;
    Options rules;
    Move moves[PLAY_MAX_PLIES];
    uint64_t hashes[PLAY_MAX_PLIES + 1]; /* hashes[i]: position before ply i */
    int plies;
} PlayGame;

static const char *kind_name(Kind k)
{
    static const char *names[TV_KIND_COUNT] = {"?",      "Wizard", "Prince", "Warrior",
                                               "Archer", "Horseman", "Helgi", "Combatant"};
    return names[k];
}

static void draw_board(const PlayGame *g, int human)
{
    printf("\n");
    for (int rr = 0; rr < 8; rr++) {
        int rank = human == TV_WHITE ? 7 - rr : rr;
        printf(" %d ", rank + 1);
        for (int ff = 0; ff < 8; ff++) {
            int file = human == TV_WHITE ? ff : 7 - ff;
            Square s = sq_make(file, rank);
            char cell[16];
            int h = g->pos.height[s];
            if (!h)
                snprintf(cell, sizeof cell, ".");
            else {
                char tok[8];
                tfen_token(pos_top(&g->pos, s), tok);
                if (h > 1)
                    snprintf(cell, sizeof cell, "%s^%d", tok, h);
                else
                    snprintf(cell, sizeof cell, "%s", tok);
            }
            printf(" %-6s", cell);
        }
        printf("\n");
    }
    printf("   ");
    for (int ff = 0; ff < 8; ff++)
        printf(" %-6c", 'a' + (human == TV_WHITE ? ff : 7 - ff));
    printf("\n%s to move%s\n", g->pos.side == TV_WHITE ? "White" : "Black",
           pos_in_check(&g->pos, &g->rules) ? ", in check" : "");
}

static void show_square(const PlayGame *g, const char *arg)
{
    if (strlen(arg) != 2 || arg[0] < 'a' || arg[0] > 'h' || arg[1] < '1' || arg[1] > '8') {
        printf("show needs a square such as e4\n");
        return;
    }
    Square s = sq_make(arg[0] - 'a', arg[1] - '1');
    int h = g->pos.height[s];
    if (!h) {
        printf("%s is empty\n", arg);
        return;
    }
    printf("%s: %d tavrel%s, top first:\n", arg, h, h > 1 ? "s" : "");
    for (int i = 0; i < h; i++) {
        Tavrel t = pos_at_from_top(&g->pos, s, i);
        char tok[8];
        tfen_token(t, tok);
        printf("  %-4s %s %s", tok, tavrel_colour(t) == TV_WHITE ? "White" : "Black", kind_name(tavrel_kind(t)));
        if (tavrel_kind(t) == TV_COMBATANT)
            printf(" (destiny %s%s)", kind_name(tavrel_destiny(t)), tavrel_flag(t) ? "" : ", unmoved");
        else if (tavrel_is_promoted(t))
            printf(" (promoted combatant)");
        printf("%s\n", i == 0 ? "  <- top, owns the stack" : "");
    }
}

static void play_move(PlayGame *g, Move m)
{
    Undo u;
    g->hashes[g->plies] = g->pos.hash;
    g->moves[g->plies++] = m;
    pos_make_move(&g->pos, m, &u);
}

/* Replays the game from the start without its last n plies. */
static void take_back(PlayGame *g, int n)
{
    int keep = g->plies - n;
    if (keep < 0)
        keep = 0;
    g->pos = g->start;
    g->plies = 0;
    Move moves[PLAY_MAX_PLIES];
    memcpy(moves, g->moves, sizeof moves);
    for (int i = 0; i < keep; i++)
        play_move(g, moves[i]);
}

/* The game state including threefold repetition. */
static GameState state_of(const PlayGame *g)
{
    GameState s = movegen_state(&g->pos, &g->rules);
    if (s != TV_STATE_ONGOING)
        return s;
    int seen = 1;
    for (int i = 0; i < g->plies; i++)
        if (g->hashes[i] == g->pos.hash)
            seen++;
    return seen >= 3 ? TV_STATE_REPETITION : TV_STATE_ONGOING;
}

/* Prints the result and returns true when the game is over. */
static bool announce_end(const PlayGame *g)
{
    GameState s = state_of(g);
    if (s == TV_STATE_ONGOING)
        return false;
    const char *result = "1/2-1/2";
    if (s == TV_STATE_CHECKMATE || s == TV_STATE_WIZARD_CAPTURED)
        result = g->pos.side == TV_WHITE ? "0-1" : "1-0";
    printf("\nGame over: %s (%s)\n", result, game_state_name(s));
    return true;
}

static void print_moves(const PlayGame *g)
{
    MoveList list;
    movegen_legal(&g->pos, &g->rules, &list);
    char (*names)[TV_MOVE_STR_MAX] = malloc(sizeof *names * (size_t)(list.count ? list.count : 1));
    if (!names)
        return;
    for (int i = 0; i < list.count; i++)
        move_to_str(&g->pos, &g->rules, list.moves[i], true, names[i], TV_MOVE_STR_MAX);
    qsort(names, (size_t)list.count, sizeof *names, (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < list.count; i++)
        printf("%s%s", names[i], (i % 10 == 9 || i == list.count - 1) ? "\n" : " ");
    printf("%d legal moves\n", list.count);
    free(names);
}

typedef struct {
    const char *engine, *tfen;
    bool white, black;
    long depth, nodes, movetime;
    Options rules;
    CliEngineOptions options;
} PlayArgs;

static const CliFlag PLAY_FLAGS[] = {
    {"engine", 0, CLI_STRING, offsetof(PlayArgs, engine), 0, 0},
    {"white", 0, CLI_BOOL, offsetof(PlayArgs, white), 0, 0},
    {"black", 0, CLI_BOOL, offsetof(PlayArgs, black), 0, 0},
    {"depth", 0, CLI_LONG, offsetof(PlayArgs, depth), 1, SEARCH_MAX_PLY / 2},
    {"nodes", 0, CLI_LONG, offsetof(PlayArgs, nodes), 1, 2000000000},
    {"movetime", 0, CLI_LONG, offsetof(PlayArgs, movetime), 1, 86400000},
    {"tfen", 0, CLI_STRING, offsetof(PlayArgs, tfen), 0, 0},
    {"option", 0, CLI_ENGINE_OPTION, offsetof(PlayArgs, options), 0, 0},
    {"rule", 0, CLI_RULE_OPTION, offsetof(PlayArgs, rules), 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static int run_play(const CliCommand *cmd, int argc, char **argv)
{
    PlayArgs a = {0};
    a.tfen = "startpos";
    int rc = cli_parse_or_exit(cmd, argc, argv, &a, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (a.white && a.black) {
        cli_error("play: --white and --black contradict each other");
        return CLI_USAGE;
    }
    const char *engine_path = a.engine, *tfen = a.tfen;
    const int human = a.black ? TV_BLACK : TV_WHITE;
    SearchLimits limits = {(int)a.depth, (uint64_t)a.nodes, (int)a.movetime};
    const bool limit_given = a.depth || a.nodes || a.movetime;
    PlayGame *g = calloc(1, sizeof *g);
    if (!g)
        return CLI_FAIL;
    g->rules = a.rules;
    rc = CLI_OK;
    TvError err;
    if (tfen_read_arg(tfen, &g->start, &err) != TV_OK) {
        cli_error("%s", err.msg);
        rc = CLI_FAIL;
        goto done;
    }
    g->pos = g->start;
    EngineVersion e;
    if (!cli_load_engine(engine_path, &e) || !cli_apply_engine_options("play", &a.options, &e)) {
        rc = CLI_FAIL;
        goto done;
    }
    if (!limit_given)
        limits = e.limits;
    SearchContext *ctx = search_alloc(&e.params, &g->rules, &e.settings);
    if (!ctx) {
        cli_error("play: out of memory");
        rc = CLI_FAIL;
        goto done;
    }
    printf("tavreli: you play %s against '%s'. Type 'help' for commands.\n", human == TV_WHITE ? "White" : "Black",
           e.name);
    draw_board(g, human);
    char line[256];
    for (;;) {
        if (announce_end(g))
            break;
        if (g->pos.side != human) {
            SearchResult r;
            search_run(ctx, &g->pos, g->hashes, g->plies, &limits, NULL, NULL, &r);
            char m[TV_MOVE_STR_MAX];
            move_to_str(&g->pos, &g->rules, r.best, true, m, sizeof m);
            printf("engine plays %s (depth %d, %llu nodes)\n", m, r.depth, (unsigned long long)r.nodes);
            play_move(g, r.best);
            draw_board(g, human);
            continue;
        }
        if (g->plies >= PLAY_MAX_PLIES - 2) {
            printf("the game is too long for this board (%d plies); stopping\n", g->plies);
            break;
        }
        printf("your move> ");
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin)) {
            printf("\n");
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        char *cmd = line;
        while (isspace((unsigned char)*cmd))
            cmd++;
        if (!*cmd)
            continue;
        if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit"))
            break;
        if (!strcmp(cmd, "help")) {
            fputs(PLAY_HELP, stdout);
            continue;
        }
        if (!strcmp(cmd, "board")) {
            draw_board(g, human);
            continue;
        }
        if (!strcmp(cmd, "moves")) {
            print_moves(g);
            continue;
        }
        if (!strcmp(cmd, "tfen")) {
            char buf[TV_TFEN_MAX];
            puts(tfen_write(&g->pos, buf, sizeof buf));
            continue;
        }
        if (!strncmp(cmd, "show", 4) && (cmd[4] == ' ' || !cmd[4])) {
            char *sq = cmd + 4;
            while (*sq == ' ')
                sq++;
            show_square(g, sq);
            continue;
        }
        if (!strcmp(cmd, "undo")) {
            /* back to the previous position where it was your move */
            int n = g->plies >= 2 ? 2 : g->plies;
            if (n == 0 || (g->plies == 1 && g->start.side != human)) {
                printf("nothing to take back\n");
                continue;
            }
            take_back(g, n);
            draw_board(g, human);
            continue;
        }
        Move m;
        MoveInfo info;
        if (move_parse(&g->pos, &g->rules, cmd, TV_PARSE_LENIENT, &m, &info, &err) != TV_OK) {
            printf("%s (type 'moves' for the legal moves)\n", err.msg);
            continue;
        }
        if (info.mended)
            printf("note: %s\n", info.warning);
        play_move(g, m);
        draw_board(g, human);
    }
    search_free(ctx);
done:
    free(g);
    return rc;
}

const CliCommand CLI_PLAY = {"play", PLAY_HELP, PLAY_FLAGS, run_play};
