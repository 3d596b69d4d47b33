/* rule_options.h: the rule options of a game (docs/rules.md section 10),
 * declared once in rule_options.c: each has a name and its values, values[0]
 * the default; `boolean` options have the values "no" and "yes" and accept
 * every boolean spelling (tv_parse_bool: yes/no, true/false, on/off, 1/0);
 * the engine protocol declares them as a check box, the others as a combo
 * (core/uci.h).  The value of option i in an Options is an index into
 * values.  They are not engine options (core/option.h): both players of a
 * game play by the same rules. */
#ifndef TAVRELI_RULE_OPTIONS_H
#define TAVRELI_RULE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"
#include "types.h"

#define TV_NRULE_OPTIONS 3
typedef struct {
    const char *name;
    const char *values[4];
    int nvalues;
    bool boolean;
} RuleOptionInfo;

/* Option i (0 <= i < TV_NRULE_OPTIONS), or NULL. */
const RuleOptionInfo *rule_option_info(int i);
/* The index of the option called name, or -1. */
int rule_option_find(const char *name);
/* The value index of option i in o, and setting it. */
int rule_option_get(const Options *o, int i);
void rule_option_set(Options *o, int i, int value);

/* The value index of option i named by text (a boolean option: any boolean
 * spelling), or -1. */
int rule_option_value_find(int i, const char *text);

/* Parses "slide_over_own=no enpassant=combatant ending=checkmate" (any subset,
 * any order) into o, starting from the defaults.  Also used by the command
 * line's --option name=value and a tournament's [rules] (one pair per
 * call).  Errors (TV_ERR_ARG) name the option and the values it takes. */
TvStatus rule_options_parse(const char *text, Options *o, TvError *err);
TvStatus rule_options_set(Options *o, const char *name, const char *value, TvError *err);

/* Writes options as "slide_over_own=no enpassant=combatant ending=checkmate"
 * (booleans as yes/no). */
char *rule_options_to_str(const Options *o, char *buf, size_t n);

#endif
