/* rule_options.c: the rule options of a game (rule_options.h). */
#include "rule_options.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"

/* The rule options, declared once: rule_options_set, rule_options_parse,
 * rule_options_to_str, the command line, a tournament's [rules] and the engine
 * protocol (which declares them to engines) all read this table.
 * values[0] is the default; the Options field holds the index of the
 * value. */
static const RuleOptionInfo RULE_OPTIONS[TV_NRULE_OPTIONS] = {
    {"slide_over_own", {"no", "yes"}, 2, true},
    {"enpassant", {"combatant", "any"}, 2, false},
    {"ending", {"checkmate", "capture"}, 2, false},
};

const RuleOptionInfo *rule_option_info(int i) { return i >= 0 && i < TV_NRULE_OPTIONS ? &RULE_OPTIONS[i] : NULL; }

int rule_option_find(const char *name)
{
    for (int i = 0; i < TV_NRULE_OPTIONS; i++)
        if (strcmp(name, RULE_OPTIONS[i].name) == 0)
            return i;
    return -1;
}

int rule_option_get(const Options *o, int i)
{
    switch (i) {
    case 0:
        return o->slide_over_own ? 1 : 0;
    case 1:
        return (int)o->enpassant;
    default:
        return (int)o->ending;
    }
}

void rule_option_set(Options *o, int i, int value)
{
    switch (i) {
    case 0:
        o->slide_over_own = value != 0;
        break;
    case 1:
        o->enpassant = (EnPassantOption)value;
        break;
    default:
        o->ending = (EndingOption)value;
        break;
    }
}

int rule_option_value_find(int i, const char *text)
{
    const RuleOptionInfo *r = rule_option_info(i);
    if (!r)
        return -1;
    int b;
    if (r->boolean)
        return tv_parse_bool(text, &b) ? b : -1;
    for (int v = 0; v < r->nvalues; v++)
        if (strcmp(text, r->values[v]) == 0)
            return v;
    return -1;
}

TvStatus rule_options_set(Options *o, const char *name, const char *value, TvError *err)
{
    int i = rule_option_find(name);
    if (i < 0) {
        StrBuf known = {0};
        for (int k = 0; k < TV_NRULE_OPTIONS; k++)
            strbuf_addf(&known, "%s%s", k ? ", " : "", RULE_OPTIONS[k].name);
        TvStatus st = tv_fail(err, TV_ERR_ARG, "unknown option '%s' (known: %s)", name, strbuf_str(&known));
        strbuf_free(&known);
        return st;
    }
    const int v = rule_option_value_find(i, value);
    if (v >= 0) {
        rule_option_set(o, i, v);
        return TV_OK;
    }
    const RuleOptionInfo *r = &RULE_OPTIONS[i];
    StrBuf vals = {0};
    for (int k = 0; k < r->nvalues; k++)
        strbuf_addf(&vals, "%s%s", k ? (k == r->nvalues - 1 ? " or " : ", ") : "", r->values[k]);
    TvStatus st = tv_fail(err, TV_ERR_ARG, "bad value '%s' for option %s (%s%s)", value, name, strbuf_str(&vals),
                          r->boolean ? "; also true/false, on/off, 1/0" : "");
    strbuf_free(&vals);
    return st;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

TvStatus rule_options_parse(const char *text, Options *o, TvError *err)
{
    bool seen[TV_NRULE_OPTIONS] = {false};
    memset(o, 0, sizeof *o);
    if (!text)
        return TV_OK;
    size_t i = 0;
    for (;;) {
        while (is_space(text[i]))
            i++;
        if (text[i] == '\0')
            return TV_OK;
        size_t start = i;
        while (text[i] != '\0' && !is_space(text[i]))
            i++;
        char pair[96];
        snprintf(pair, sizeof pair, "%.*s", (int)(i - start), text + start);
        char *eq = strchr(pair, '=');
        if (!eq)
            return tv_fail(err, TV_ERR_ARG, "option '%s' has no value (write name=value)", pair);
        *eq = '\0';
        TvStatus st = rule_options_set(o, pair, eq + 1, err);
        if (st != TV_OK)
            return st;
        int j = rule_option_find(pair);
        if (seen[j])
            return tv_fail(err, TV_ERR_ARG, "option %s given twice", pair);
        seen[j] = true;
    }
}

char *rule_options_to_str(const Options *o, char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; i < TV_NRULE_OPTIONS && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s=%s", i ? " " : "", RULE_OPTIONS[i].name,
                         RULE_OPTIONS[i].values[rule_option_get(o, i)]);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}
