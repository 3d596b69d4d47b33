/* option.c: the one table of an engine version's options (option.h), derived
 * from SEARCH_SETTING_INFO (search.def) and EVAL_WEIGHT_INFO (weights.def). */
#include "option.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rule_options.h"

/* The protocol's name of the setting hash_mb (the first line of search.def). */
#define HASH_OPTION "Hash"

_Static_assert(SS_hash_mb == 0, "hash_mb must stay the first line of search.def (option 0 is Hash)");

int option_count(void) { return SEARCH_NSETTINGS + EVAL_NWEIGHTS; }

/* The name of option k (0 <= k < option_count()) into buf. */
static void option_name(int k, char *buf, size_t n)
{
    if (k < SEARCH_NSETTINGS)
        snprintf(buf, n, "%s", k == SS_hash_mb ? HASH_OPTION : SEARCH_SETTING_INFO[k].name);
    else
        eval_weight_element_name(k - SEARCH_NSETTINGS, buf, n);
}

bool option_info(int k, OptionInfo *info)
{
    if (k < 0 || k >= option_count())
        return false;
    memset(info, 0, sizeof *info);
    option_name(k, info->name, sizeof info->name);
    if (k < SEARCH_NSETTINGS) {
        const SearchSettingInfo *s = &SEARCH_SETTING_INFO[k];
        info->key = s->name;
        info->type = s->type == SEARCH_SETTING_BOOL ? OPTION_BOOL : OPTION_INT;
        info->kind = OPTION_SETTING;
        info->def = s->def;
        info->lo = s->lo;
        info->hi = s->hi;
        info->meaning = s->meaning;
        info->group = "search";
        info->index = k;
        return true;
    }
    const int i = k - SEARCH_NSETTINGS;
    const WeightInfo *w = eval_weight_info_of(i);
    EvalParams def;
    eval_params_default(&def);
    info->key = w->name;
    info->type = OPTION_INT;
    info->kind = OPTION_WEIGHT;
    info->def = def.w[i];
    info->lo = w->lo;
    info->hi = w->hi;
    info->meaning = w->meaning;
    info->group = w->group;
    info->index = i;
    return true;
}

int option_find(const char *name)
{
    char buf[OPTION_NAME_MAX];
    for (int k = 0; k < option_count(); k++) {
        option_name(k, buf, sizeof buf);
        if (!strcasecmp(buf, name) || (k < SEARCH_NSETTINGS && !strcasecmp(SEARCH_SETTING_INFO[k].name, name)))
            return k;
    }
    return -1;
}

int option_get(const EngineVersion *e, int k)
{
    if (k < 0 || k >= option_count())
        return 0;
    if (k < SEARCH_NSETTINGS)
        return search_setting_value(&e->settings, k);
    return e->params.w[k - SEARCH_NSETTINGS];
}

/* Fails with "option NAME takes ..., not 'TEXT'" for option k. */
static TvStatus refuse(int k, const char *text, TvError *err)
{
    OptionInfo o;
    option_info(k, &o);
    if (o.type == OPTION_BOOL)
        return tv_fail(err, TV_ERR_ARG, "option %s takes yes or no (also true/false, on/off, 1/0), not '%s'", o.name,
                       text);
    return tv_fail(err, TV_ERR_ARG, "option %s takes a whole number from %d to %d, not '%s'", o.name, o.lo, o.hi, text);
}

TvStatus option_set(EngineVersion *e, int k, int value, TvError *err)
{
    OptionInfo o;
    if (!option_info(k, &o))
        return tv_fail(err, TV_ERR_ARG, "no option number %d (there are %d)", k, option_count());
    if (value < o.lo || value > o.hi) {
        char text[16];
        snprintf(text, sizeof text, "%d", value);
        return refuse(k, text, err);
    }
    if (k < SEARCH_NSETTINGS)
        *search_setting_field(&e->settings, k) = value;
    else
        e->params.w[k - SEARCH_NSETTINGS] = value;
    return TV_OK;
}

const char *option_bool_text(int value, OptionSpelling spelling)
{
    if (spelling == OPTION_SPELL_PROTOCOL)
        return value ? "true" : "false";
    return value ? "yes" : "no";
}

TvStatus option_parse_value(int k, const char *text, int *value, TvError *err)
{
    OptionInfo o;
    if (!option_info(k, &o))
        return tv_fail(err, TV_ERR_ARG, "no option number %d (there are %d)", k, option_count());
    if (o.type == OPTION_BOOL) {
        if (!tv_parse_bool(text, value))
            return refuse(k, text, err);
        return TV_OK;
    }
    long v;
    if (!tv_parse_long(text, o.lo, o.hi, &v))
        return refuse(k, text, err);
    *value = (int)v;
    return TV_OK;
}

char *option_value_text(int k, int value, OptionSpelling spelling, char *buf, size_t n)
{
    OptionInfo o;
    if (option_info(k, &o) && o.type == OPTION_BOOL)
        snprintf(buf, n, "%s", option_bool_text(value, spelling));
    else
        snprintf(buf, n, "%d", value);
    return buf;
}

TvStatus option_set_text(EngineVersion *e, const char *name, const char *text, TvError *err)
{
    const int k = option_find(name);
    if (k < 0) {
        if (rule_option_find(name) >= 0)
            return tv_fail(err, TV_ERR_ARG,
                           "'%s' is a rule option, not an engine option: both players play by the same rules "
                           "(set it for the game, e.g. in a tournament's [rules])",
                           name);
        return tv_fail(err, TV_ERR_ARG,
                       "no engine option '%s' (the options are those `tavreli uci` lists: Hash, the search settings "
                       "and the weight elements such as top_value[1])",
                       name);
    }
    int v;
    TvStatus st = option_parse_value(k, text, &v, err);
    return st != TV_OK ? st : option_set(e, k, v, err);
}
