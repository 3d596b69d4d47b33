/* uci.h: the engine protocol (docs/protocol.md): UCI's verbs and flow with
 * Tavreli positions (TFEN) and moves (docs/rules.md section 11, without
 * suffixes).  This is the one codec of the protocol's lines: the engine
 * side (uci_engine.c, `tavreli uci`) and the harness side
 * (selfplay/engine_proc.c) both format and parse through it, so the two
 * cannot drift apart.
 *
 * The harness reads lines of at most UCI_LINE_MAX bytes and drops the rest
 * of a longer line; the built-in engine reads lines of any length (a
 * `position` of a 10,000-ply game is about 60 KB).  Tokens are separated by
 * blanks (spaces and tabs). */
#ifndef TAVRELI_UCI_H
#define TAVRELI_UCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "position.h"
#include "status.h"
#include "strbuf.h"

#define UCI_LINE_MAX 16384

/* Splits a line into its first word (the verb, at most n - 1 bytes) and
 * returns the rest with leading blanks skipped ("" when there is none).
 * A trailing '\r' or '\n' of line is not part of either. */
const char *uci_verb(const char *line, char *verb, size_t n);

/* ---- go ---------------------------------------------------------------------- */

#define UCI_GO_IGNORED_MAX 160

/* The parameters of `go`; -1 (or false) = not given. */
typedef struct {
    int wtime_ms, btime_ms; /* each side's time left */
    int winc_ms, binc_ms;   /* increments per move */
    int movestogo;          /* moves to the next time control */
    int movetime_ms;        /* exactly this long */
    int depth;
    int64_t nodes;
    int mate;               /* look for a mate in this many moves (of the side to move) */
    bool infinite;          /* until `stop` */
    char ignored[UCI_GO_IGNORED_MAX]; /* the words read but not supported ("" for none), cut with "..." */
} UciGo;

/* An empty go: nothing given. */
void uci_go_init(UciGo *go);

/* Parses the words after `go`.  Words this protocol does not support are
 * skipped, as UCI asks, and listed in go->ignored: `searchmoves` with the
 * moves after it, `ponder`, and any unknown word.
 * A clock below zero (wtime -20: the harness let it run over) reads as 0.
 * Errors (TV_ERR_PARSE): a missing or bad number after a supported word
 * ("go: 'depth' needs a whole number from 0 to 2147483647"). */
TvStatus uci_go_parse(const char *args, UciGo *go, TvError *err);

/* Appends "go ..." (only what is given) to b, without a newline. */
void uci_go_format(const UciGo *go, StrBuf *b);

/* ---- position ---------------------------------------------------------------- */

/* Appends "position startpos" or "position tfen TFEN", then " moves M1 M2
 * ..." when n > 0, without a newline.  start_tfen NULL or "startpos" means
 * the start position; moves are strings in the protocol's notation. */
void uci_position_format(const char *start_tfen, const char *const *moves, int n, StrBuf *b);

/* Parses the words after `position` under the rule options o: sets *pos to
 * the position after the moves, and stores the hashes of the positions
 * before it (oldest first, for repetitions) in hist, at most maxhist (the
 * first maxhist; size hist by uci_position_plies to keep them all), their
 * number in *nhist (hist may be NULL).  Errors (TV_ERR_PARSE, or
 * TV_ERR_ILLEGAL for an illegal move): a bad TFEN, a move that cannot be
 * read or is not legal ("position: move 3 'e2-e5': illegal move ..."), text
 * that is neither; *pos is then unchanged (hist and *nhist are not). */
TvStatus uci_position_parse(const char *args, const Options *o, Position *pos, uint64_t *hist, int maxhist,
                            int *nhist, TvError *err);

/* At least the number of moves the words after `position` give (their
 * number of words): the size of hist that keeps every position. */
int uci_position_plies(const char *args);

/* ---- info and bestmove ------------------------------------------------------- */

/* What an `info` line said (fields not given keep -1 / false). */
typedef struct {
    int depth, seldepth;
    bool has_score;
    int score;       /* in the project's scale: centi-combatants, or a mate
                        score as in search.h (SCORE_MATE - plies) */
    bool lowerbound, upperbound;
    int64_t nodes, nps;
    int time_ms;
    int pv_words;    /* how many words the pv had */
} UciInfo;

void uci_info_init(UciInfo *info);

/* Reads the words after `info`; words it does not know (currmove, string,
 * hashfull, ...) are skipped, `string` ends the line.  Never fails: an
 * unreadable number leaves its field unset. */
void uci_info_parse(const char *args, UciInfo *info);

/* Appends "info depth D score cp X|mate N nodes N nps N time MS pv ..."
 * (score in the project's scale, written as cp or mate in moves) to b. */
void uci_info_format(int depth, int score, uint64_t nodes, int time_ms, const char *const *pv, int npv,
                     StrBuf *b);

/* Reads the words after `bestmove`: the move (at most n - 1 bytes; a
 * `ponder` part is ignored).  False when there is no move word. */
bool uci_bestmove_parse(const char *args, char *move, size_t n);

/* Converts a score in the project's scale to UCI's cp/mate pair and back:
 * mate is in moves, positive when the side to move mates. */
void uci_score_to_uci(int score, bool *mate, int *value);
int uci_score_from_uci(bool mate, int value);

/* ---- options ----------------------------------------------------------------- */

typedef enum { UCI_OPT_SPIN, UCI_OPT_CHECK, UCI_OPT_COMBO, UCI_OPT_STRING, UCI_OPT_BUTTON } UciOptionType;

#define UCI_OPTION_NAME_MAX 64
#define UCI_OPTION_VALUE_MAX 256
#define UCI_OPTION_VARS_MAX 16

/* One `option name N type T ...` declaration. */
typedef struct {
    char name[UCI_OPTION_NAME_MAX];
    UciOptionType type;
    char def[UCI_OPTION_VALUE_MAX]; /* default, as text ("" when not given) */
    long min, max;                  /* spin */
    int nvars;                      /* combo */
    char vars[UCI_OPTION_VARS_MAX][UCI_OPTION_NAME_MAX];
} UciOption;

/* The name of a type ("spin") and back (-1 when unknown). */
const char *uci_option_type_name(UciOptionType t);
int uci_option_type_find(const char *name);

/* Parses the words after `option`.  The name may hold blanks (it runs up to
 * the word `type`).  Errors (TV_ERR_PARSE): no name, no or unknown type, a
 * spin without min and max, a name or value too long. */
TvStatus uci_option_parse(const char *args, UciOption *opt, TvError *err);

/* Appends "option name N type T default D [min A max B] [var V]..." to b. */
void uci_option_format(const UciOption *opt, StrBuf *b);

/* Parses the words after `setoption`: `name N [value V]` (the name runs up
 * to the word `value`; V may hold blanks).  Errors: no name, a name or value
 * too long. */
TvStatus uci_setoption_parse(const char *args, char *name, size_t name_n, char *value, size_t value_n,
                             TvError *err);

/* Appends "setoption name N value V" (or without value when value is NULL). */
void uci_setoption_format(const char *name, const char *value, StrBuf *b);

/* Checks value against the declaration (a spin's range, a check's
 * true/false, a combo's vars; strings and buttons take anything).  Errors
 * (TV_ERR_ARG) say what the option takes. */
TvStatus uci_option_check_value(const UciOption *opt, const char *value, TvError *err);

/* The declarations of the rule options (docs/rules.md section 10), in the
 * table's order: slide_over_own a check (default false), enpassant and
 * ending combos.  The value to send for option i of o with setoption. */
void uci_rule_option_decl(int i, UciOption *opt);
const char *uci_rule_option_value(const Options *o, int i);

/* Sets the rule option called name in o from a setoption value (for the
 * check "true" or "false", or any other spelling of tv_parse_bool; a var for
 * a combo).  *is_rule says whether name is
 * a rule option at all (o is untouched when not).  Errors (TV_ERR_ARG): a
 * value the option does not take. */
TvStatus uci_rule_option_set(Options *o, const char *name, const char *value, bool *is_rule, TvError *err);

#endif
