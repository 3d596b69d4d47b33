/* tournament.h: a tournament configuration (INI) and the plan of its games.
 *
 * Every opening is played twice with colours reversed: the pair is the unit
 * of statistics.  Game i of the plan is fully determined by the
 * configuration: its pairing, colours, opening and seed, so a run gives the
 * same games whatever the number of threads, processes or interruptions. */
#ifndef TAVRELI_TOURNAMENT_H
#define TAVRELI_TOURNAMENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "engine_id.h" /* PlayerKind */
#include "stats.h"
#include "status.h"
#include "tfen.h"

#define TOURNAMENT_MAX_ENGINES 16

typedef enum { FORMAT_ROUND_ROBIN = 0, FORMAT_GAUNTLET = 1 } TournamentFormat;


/* A time control: base_ms on the clock, inc_ms added after each move, and
 * with moves > 0 another base_ms after every `moves` moves ("40/60+0").
 * base_ms 0: no clock. */
typedef struct {
    int moves;
    int base_ms;
    int inc_ms;
} TimeControl;

/* Reads "BASE+INC", "BASE" or "MOVES/BASE+INC" (seconds, decimals allowed:
 * "10+0.1", "40/60+0"); BASE may also be minutes and seconds, M:SS
 * ("1:30+0.5", "40/2:00+1", SS from 00 to 59, decimals allowed: "0:07.5");
 * "inf" is no clock (base_ms 0).  False when text is not one of those, or a
 * number is out of range (base above 0 and at most a day; inc at most an
 * hour). */
bool time_control_parse(const char *text, TimeControl *tc);

/* The stored form: "10+0.1" or "40/60+0" ("" when there is no clock). */
void time_control_format(const TimeControl *tc, char *buf, size_t n);

/* The size of the stderr and log paths of an [engine NAME]; `stderr =
 * discard` keeps only an engine's last stderr lines (for its errors). */
#define TOURNAMENT_PATH_MAX 512
#define TOURNAMENT_STDERR_DISCARD "discard"

/* The number of option.NAME lines an [engine NAME] section may hold. */
#define TOURNAMENT_MAX_OPTIONS 64

/* bench = none: no bench signature, even for a tavreli build. */
/* The default of [tournament] game_attempts: a crash at a new game is
 * rare (a restart then usually plays), one at every new game is a broken
 * program, seen after three. */
#define TOURNAMENT_GAME_ATTEMPTS 3

/* The default of an engine's log_cap, in MB: a night of a well-behaved
 * engine's protocol log is a few MB; one that printed 8 MB of stderr in a
 * move made 19 MB of logs (issue 35), and a loop of it fills a disk. */
#define TOURNAMENT_LOG_CAP_MB 64
#define TOURNAMENT_BENCH_NONE "none"

typedef struct TournamentEngine { /* the tag: engine_id.h declares it */
    PlayerKind kind;
    char path[512];        /* the engine INI as given (resolved relative to the tournament file) */
    EngineVersion engine;  /* read from it; its limits may be overridden in the tournament; for
                              PLAYER_PROCESS only the name and the limits are used */
    TimeControl tc;        /* tc = ...: a game clock kept by the harness (both kinds) */
    int timemargin_ms;     /* timemargin: grace over the clock or movetime before a time loss; default 100 */
    int timeout_ms;        /* timeout (seconds in the INI): the wait for a move without clock or movetime
                              before the engine is called stalled; default MATCH_ANSWER_TIMEOUT_MS */
    /* PLAYER_PROCESS: */
    int start_timeout_ms;  /* start_timeout (seconds in the INI): the wait for the start's uciok and readyok;
                              0 = the default, ENGINE_PROC_HANDSHAKE_MS (10 s).  A start that fails during the run
                              (not the first, before any game) begins the game again, [tournament] game_attempts
                              times at most, with a growing pause */
    char command[1024];    /* command = PROGRAM ARGS (a program with '/' relative to the tournament file) */
    char dir[512];         /* dir: its working directory (default the tournament file's) */
    char stderr_path[TOURNAMENT_PATH_MAX]; /* stderr: a file its stderr lines are appended to; "" = the
                              default (STORE.NAME.log beside the store), TOURNAMENT_STDERR_DISCARD or
                              ENGINE_PROC_STDERR_INHERIT (the harness's stderr) */
    char log_path[TOURNAMENT_PATH_MAX];    /* log: its protocol log ("" = none) */
    int log_cap_mb;        /* log_cap: the stderr file and the protocol log take no more of its lines past
                              this many MB (engine_proc.h); default TOURNAMENT_LOG_CAP_MB */
    char bench[1024];      /* bench = COMMAND: prints its bench signature, "nodes N" (engine_id_bench; a
                              program with '/' relative to the tournament file); "" = a tavreli build's own
                              (EXECUTABLE bench search), none for others; TOURNAMENT_BENCH_NONE = none */
    int noptions;          /* option.NAME = VALUE lines, sent with setoption */
    char option_names[TOURNAMENT_MAX_OPTIONS][64];
    char option_values[TOURNAMENT_MAX_OPTIONS][256];
} TournamentEngine;

typedef struct {
    int max_plies;         /* game drawn (adjudicated) at this many plies; default 400 */
    int resign_score;      /* resign when both engines' scores are beyond this (cp), 0 = off; default 1000 */
    int resign_moves;      /* ... for this many consecutive moves of each side; default 4 */
    int draw_score;        /* draw when both see |score| <= this (cp) ...; default 10, 0 with draw_moves 0 = off */
    int draw_moves;        /* ... for this many consecutive moves of each side; default 8 */
    int draw_after_ply;    /* ... starting after this ply; default 80 */
} Adjudication;

/* How an openings file is read ([openings] format). */
typedef enum {
    OPENINGS_FORMAT_AUTO, /* TGN records when its first line that is not blank or a '#' comment starts with '[' */
    OPENINGS_FORMAT_TGN,  /* game records: each record's start position and moves */
    OPENINGS_FORMAT_TFEN, /* one position a line (as chess's EPD books) */
} OpeningsFormat;

typedef struct {
    int plies;             /* random openings of this many plies; default 6; with a file of records, the
                              most moves of each record played, when plies_given */
    bool plies_given;      /* plies was given in the INI: without it a record's moves are all played (as
                              cutechess takes a PGN book's moves) */
    OpeningsFormat format; /* with a file; default OPENINGS_FORMAT_AUTO */
    int balance_depth;     /* a search of this depth must call them roughly balanced; default 2 */
    int balance_cp;        /* |score| <= this counts as balanced; default 150 */
    char file[512];        /* or a file of TFENs, one per line ('#' comments); empty = random */
    bool per_game;         /* every game its own opening (opening index = game index), not one per pair;
                              for training data, where the pair unit is not needed; default false */
    int sample_plies;      /* after the random plies, this many moves sampled by a softmax of their
                              quiescence scores (selfplay/variety.h); default 0 */
    int sample_temperature; /* ... its temperature in centi-combatants; default 100 */
    /* With a file: */
    bool cycle;            /* a file with fewer openings than the plan needs is played again from its first
                              opening (in the order below); without it such a file is an error; default false */
    bool random_order;     /* order = random: the file's openings in a permutation drawn from the tournament's
                              seed (order = sequential: the file's order); default false */
    int start;             /* the first opening played, 1-based, in that order; default 1 */
} OpeningSettings;

typedef struct {
    char source[512];      /* the INI path */
    char *text;            /* the whole INI text (heap), stored with the results */
    char name[64];
    TournamentFormat format;
    int nengines;
    TournamentEngine engines[TOURNAMENT_MAX_ENGINES];
    int pairs;             /* opening pairs per pairing (2 games each) */
    uint64_t seed;
    int threads;           /* 0 = all cores */
    int game_attempts;     /* a game is begun at most this many times in a row when a program ends, does
                              not answer or cannot be started again as it begins (ucinewgame); then the
                              run stops; default TOURNAMENT_GAME_ATTEMPTS */
    Options rules;
    OpeningSettings openings;
    Adjudication adjudication;
    bool sprt;             /* an [sprt] section: stop when the test decides (2 engines only) */
    SprtSettings sprt_settings; /* bounds of the first engine over the second (in its model), error rates */
    int sprt_line;         /* line of the first [sprt] key (for messages) */
    char (*opening_tfens)[TV_TFEN_MAX]; /* the openings file's positions (heap), if a file is used, in the
                                           order they are played (order and start applied) */
    int nopening_tfens;
    int opening_repeats;   /* records or lines of the file that gave a position an earlier one gave (each
                              position is one opening): their count, the first such line and the line
                              it repeats */
    int opening_repeat_line, opening_repeat_of;
    /* set by a front end (not the reader): a signal's stop flag, polled by
     * tournament_opening (making a big plan's openings takes seconds) */
    volatile sig_atomic_t *stop;
} Tournament;

/* Fills t with every default of a tournament INI (documented in
 * docs/tournaments.md): round-robin, 10 pairs, seed 1, random 6-ply
 * openings balanced at depth 2 within 150 cp, adjudication 400 plies /
 * resign 1000 cp for 4 moves / draw 10 cp for 8 moves after ply 80, no
 * engines (each engine slot holds the default engine version, timemargin
 * 100 ms and timeout MATCH_ANSWER_TIMEOUT_MS), and the given name.  The INI reader starts from this; so does a
 * tournament built in code (benchmarks, the strength check). */
void tournament_defaults(Tournament *t, const char *name);

/* Reads a tournament INI.  Sections and keys (all documented in docs/tournaments.md):
 *   [tournament] name, format = round-robin | gauntlet, pairs, seed, threads
 *   [rules]      slide_over_own, enpassant, ending
 *   [openings]   plies, balance_depth, balance_cp, file, per_game, sample_plies,
 *                sample_temperature; with a file: cycle, order = sequential |
 *                random, start (a file shorter than the plan is an error
 *                without cycle = yes)
 *   [adjudication] max_plies, resign_score, resign_moves, draw_score,
 *                draw_moves, draw_after_ply
 *   [sprt]       elo0, elo1 (normalized Elo), alpha, beta: an SPRT of the
 *                first engine against the second (2 engines only); the run
 *                stops by itself when the test decides
 *   [engine NAME] path = engines/x.ini (the built-in engine) or command =
 *                PROGRAM ARGS (a separate program: dir, stderr, option.NAME);
 *                limits depth, nodes, movetime, tc (override the engine
 *                file's), timemargin; one section per engine, in order (in a
 *                gauntlet the first is the one tested).
 *   [each]       any [engine NAME] key, for every engine; an engine's own key
 *                overrides it (path and command count as one key).
 * Unknown sections or keys, bad values and missing engine files are errors
 * with the file and line (TvError.file, TvError.line, and the message starts
 * with "FILE:LINE: "). */
TvStatus tournament_read(const char *path, Tournament *t, TvError *err);

/* tournament_read of a text already in memory (len bytes, heap: t takes
 * it, also on error), as if read from `path` (messages name it; engine and
 * openings paths are relative to its directory). */
TvStatus tournament_read_text(const char *path, char *text, size_t len, Tournament *t, TvError *err);
/* tournament_read_text for the INI stored in a store (what --resume compares with): the same reader, except that
 * an openings file shorter than the plan is read as cycled, since the stored games were played that way (stores
 * made before [openings] cycle existed). */
TvStatus tournament_read_stored_text(const char *path, char *text, size_t len, Tournament *t, TvError *err);
/* The plan of a store's INI text (a copy is taken): the same reader, but no
 * file it names is read (engine INIs, openings), so the engines' settings
 * and the openings are not known; what tournament_game needs is (the
 * engines by section, format, seed, [openings] per_game).  Errors: the text
 * is not a tournament's (an SPSA file, a store of tests), as
 * tournament_read_text says. */
TvStatus tournament_read_plan(const char *text, Tournament *t, TvError *err);

/* Whether a store made by tournament `stored` can be continued by `now`:
 * every setting that decides a game is the same (format, seed, rules,
 * openings, adjudication, the SPRT, the engines' names, kinds, limits and
 * search settings, in order), and `now` has at least as many pairs (the
 * plan is index-determined, so a larger `pairs` only adds games).  The name,
 * the threads, [openings] cycle (it changes no game), comments and blank
 * space may differ.  On false, why says
 * what differs. */
bool tournament_can_continue(const Tournament *stored, const Tournament *now, char *why, size_t n);

/* The first line at which two INI texts differ, comments and blanks left
 * out, as "line A 'x = 1', now line B 'x = 2'" (a missing line: "(none)"); ""
 * when they hold the same settings. */
void tournament_text_difference(const char *a, const char *b, char *buf, size_t n);

void tournament_free(Tournament *t);

/* One planned game. */
typedef struct {
    int64_t index;   /* 0 .. total-1 */
    int pairing;     /* index into the pairings */
    int white, black; /* engine indices */
    int opening;     /* opening index (one per pair; per game with [openings] per_game) */
    uint64_t seed;   /* the game's own seed (random movers, tie-breaks) */
} PlannedGame;

/* NULL when `stored` (a game as a store holds it) is the plan's game
 * `plan`: the same pairing, colours, opening and seed; else "pairing P,
 * white W, black B, opening O, seed S stored, the plan has P', W', B', O',
 * S'" into why.  The one comparison of the reader (every command) and of
 * --resume. */
const char *tournament_game_difference(const PlannedGame *stored, const PlannedGame *plan, char *why, size_t n);

/* Number of pairings: n(n-1)/2 for round-robin, n-1 for gauntlet. */
int tournament_pairings(const Tournament *t);

/* The two engines of pairing p (first = the first-named engine). */
void tournament_pairing(const Tournament *t, int p, int *first, int *second);

/* True when engines a and b play alike (engine_id_identical: one version
 * under two names, no clock).  Both games of each opening pair between them are
 * then the same game (nothing random breaks the tie), so their games carry
 * no information about which is stronger. */
bool tournament_engines_identical(const Tournament *t, int a, int b);

/* False when a game's moves can depend on timing: an engine with movetime
 * or tc, or a separate program (whose determinism the harness cannot
 * know).  The store's root attribute `reproducible` says the same. */
bool tournament_reproducible(const Tournament *t);

/* Total games: pairings x pairs x 2. */
int64_t tournament_total_games(const Tournament *t);

/* The number of openings (opening indices) the plan uses: pairs (one per round), or
 * the total games with [openings] per_game.  With an openings file of fewer
 * positions, opening indices from nopening_tfens on repeat earlier ones
 * ([openings] cycle = yes; without it the reader refuses the file). */
int64_t tournament_openings_needed(const Tournament *t);

/* Game i of the plan.  Games 2k and 2k+1 share an opening and swap colours.
 * Order: pair-major, so that an interrupted run has played whole rounds. */
void tournament_game(const Tournament *t, int64_t i, PlannedGame *g);

/* The start position of opening `opening` (random and balanced from the
 * seed, or entry `opening` of opening_tfens, cycling: the file's positions
 * in the order of [openings] order and start).  Deterministic.
 * Random openings need a search: a fresh context with default weights is
 * used for the balance check.  Fails (TV_ERR_ARG, "stopped by a signal")
 * once *t->stop is set. */
TvStatus tournament_opening(const Tournament *t, int opening, Position *out, TvError *err);

#endif
