/* record.h: game records.  Two formats are read:
 *  - the published list (one game a line: `id | description | movetext`,
 *    lines starting with '#' are comments), as in tests/data/published.txt;
 *  - TGN (docs/rules.md section 13): PGN-shaped tag pairs then numbered movetext
 *    ending with a result token.
 * and TGN is written.  Replaying a record checks every move. */
#ifndef TAVRELI_RECORD_H
#define TAVRELI_RECORD_H

#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "rule_options.h"
#include "status.h"
#include "tfen.h"

typedef struct {
    char key[32];
    char *value; /* heap */
} RecordTag;

typedef struct {
    char id[64];        /* published id, or the TGN's Round/Event, or "game N" */
    int source_line;    /* line in the file where the record starts */
    RecordTag *tags;    /* heap, count ntags */
    int ntags;
    char *movetext;     /* heap: the moves (numbers, annotations, result token allowed) */
    char start_tfen[TV_TFEN_MAX];
    Options options;
} GameRecord;

typedef struct {
    GameRecord *games;
    int count;
} RecordList;

/* Reads every game of a file in either format (detected per file: a line
 * starting with '[' means TGN).  Errors name the file and line. */
TvStatus records_read_file(const char *path, RecordList *out, TvError *err);

/* Same from a string already in memory; `name` is used in messages. */
TvStatus records_read_string(const char *text, const char *name, RecordList *out, TvError *err);

void records_free(RecordList *list);

/* The result of replaying one game. */
typedef struct {
    Position final;
    GameState state;   /* including TV_STATE_REPETITION */
    int plies;         /* moves played */
    Move *moves;       /* heap, plies entries */
    int nwarnings;
    char **warnings;   /* heap: mended slips, a '+' that does not check, a '#' that does not mate */
} ReplayResult;

/* Replays a movetext from start (a position) under o.  mode is
 * TV_PARSE_STRICT or TV_PARSE_LENIENT.  Stops with an error naming the ply and
 * the move ("ply 7 (4. b1-b5): illegal move ...") at the first bad move.  A
 * game that reaches checkmate, stalemate or repetition and has more moves is
 * an error too. */
TvStatus replay_movetext(const Position *start, const Options *o, const char *movetext, int mode,
                         ReplayResult *res, TvError *err);

/* Replays a record (its TFEN tag or the start position, its options). */
TvStatus replay_record(const GameRecord *g, int mode, ReplayResult *res, TvError *err);

void replay_result_free(ReplayResult *res);

/* Writes one game as TGN into a heap string (caller frees).  tags may be
 * NULL.  When the game does not start from the start position, the TFEN
 * tag and [SetUp "1"] say so (as PGN's FEN and SetUp do).  comments may be
 * NULL, or hold one comment per move (NULL or "" for none), written as
 * {comment} after the move. */
char *record_write_tgn(const Position *start, const Options *o, const Move *moves, int nmoves,
                       const RecordTag *tags, int ntags, const char *result, const char *const *comments);

#endif
