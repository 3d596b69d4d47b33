/* option.h: the one table of an engine version's options.
 *
 * Derived from core/search.def (the search settings) and core/weights.def
 * (the evaluation weights, one option per element): nothing is listed here
 * twice.  Option k, 0 <= k < option_count():
 *
 *   k <  SEARCH_NSETTINGS   the search setting k of search.def; the first,
 *                           hash_mb, is called "Hash" as the engine protocol
 *                           calls it (hash_mb is accepted as well)
 *   k >= SEARCH_NSETTINGS   weight element k - SEARCH_NSETTINGS, named as
 *                           eval_weight_element_name names it ("top_value[1]",
 *                           "tempo")
 *
 * Who reads it: `tavreli uci` declares and sets its options from it
 * (core/uci_engine.c), the engine INI reader checks [search] values with it
 * (core/engine.c), a tournament's `option.NAME = VALUE` on an in-process
 * engine is applied with it (selfplay/), and a tuner looks a parameter up by
 * name, reads its type and bounds and sets it on an EngineVersion.
 *
 * The rule options (core/rule_options.h) are not engine options: both
 * players of a game play by the same rules.  `tavreli uci` declares them
 * after this table; option_set_text names them as such when given here.
 *
 * Booleans: every reader accepts yes/no, true/false, on/off and 1/0 (any
 * case: tv_parse_bool in status.h); INI files are written with yes/no, the engine protocol with
 * true/false (as the protocol requires). */
#ifndef TAVRELI_OPTION_H
#define TAVRELI_OPTION_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "status.h"

typedef enum { OPTION_INT = 0, OPTION_BOOL = 1 } OptionType;

typedef enum {
    OPTION_SETTING = 0, /* a search setting (SearchSettings), including Hash */
    OPTION_WEIGHT = 1   /* an evaluation weight element (EvalParams) */
} OptionKind;

/* Longest option name, with its NUL ("qsearch_see_margin", "advance[29]"). */
#define OPTION_NAME_MAX 48

typedef struct {
    char name[OPTION_NAME_MAX]; /* the protocol's name: "Hash", "lmr", "top_value[1]" */
    const char *key;            /* the engine INI's key: "hash_mb", "lmr", "top_value" */
    OptionType type;            /* a BOOL's bounds are 0..1 */
    OptionKind kind;
    int def, lo, hi;            /* the default version's value; inclusive bounds */
    const char *meaning;        /* one line, from the .def file */
    const char *group;          /* a weight's tuner group; "search" for a setting */
    int index;                  /* SS_<name> of a setting, EW_<name> + element of a weight */
} OptionInfo;

/* How a value is written: INI files say yes/no, the protocol true/false. */
typedef enum { OPTION_SPELL_INI = 0, OPTION_SPELL_PROTOCOL = 1 } OptionSpelling;

/* The number of options. */
int option_count(void);

/* Fills *info with option k; false (info untouched) when k is out of range. */
bool option_info(int k, OptionInfo *info);

/* The option called name (case-insensitive; a setting also by its INI key,
 * so "Hash" and "hash_mb" are one option), or -1. */
int option_find(const char *name);

/* The value of option k in e (0 or 1 for a BOOL). */
int option_get(const EngineVersion *e, int k);

/* Sets option k of e to value.  Errors (TV_ERR_ARG): k out of range, value
 * outside the option's bounds (the message names the option and its
 * bounds). */
TvStatus option_set(EngineVersion *e, int k, int value, TvError *err);

/* Reads text as a value of option k: an INT a whole number within the
 * bounds, a BOOL one of yes/no/true/false/on/off/1/0 (any case).  Errors
 * (TV_ERR_ARG) name the option and what it takes. */
TvStatus option_parse_value(int k, const char *text, int *value, TvError *err);

/* The text of a boolean in a spelling: "yes"/"no" or "true"/"false". */
const char *option_bool_text(int value, OptionSpelling spelling);

/* Writes value of option k as text in a spelling into buf (n bytes). */
char *option_value_text(int k, int value, OptionSpelling spelling, char *buf, size_t n);

/* option_find + option_parse_value + option_set.  Errors (TV_ERR_ARG): an
 * unknown name (a rule option is named as such), a value the option does
 * not take. */
TvStatus option_set_text(EngineVersion *e, const char *name, const char *text, TvError *err);

#endif
