/* test_option.c: the one table of engine options (core/option.h), the
 * boolean spellings (tv_parse_bool) and the rule options
 * (core/rule_options.h): every reader takes yes/no, true/false, on/off and
 * 1/0; INI files are written yes/no, the protocol true/false; bounds come
 * from search.def and weights.def. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine.h"
#include "option.h"
#include "rule_options.h"
#include "uci_engine.h"

/* ---- reading a value: one test per row ------------------------------------ */

typedef struct {
    const char *name, *text;
    bool ok;
    int value;         /* when ok */
    const char *error; /* when not: a part of the message */
} ValueRow;

static const ValueRow VALUE_ROWS[] = {
    {"lmr", "yes", true, 1, NULL},
    {"lmr", "no", true, 0, NULL},
    {"lmr", "true", true, 1, NULL},
    {"lmr", "false", true, 0, NULL},
    {"lmr", "on", true, 1, NULL},
    {"lmr", "off", true, 0, NULL},
    {"lmr", "1", true, 1, NULL},
    {"lmr", "0", true, 0, NULL},
    {"LMR", "No", true, 0, NULL},
    {"null_move", "TRUE", true, 1, NULL},
    {"lmr", "maybe", false, 0, "option lmr takes yes or no (also true/false, on/off, 1/0), not 'maybe'"},
    {"lmr", "2", false, 0, "option lmr takes yes or no"},
    {"lmr", "", false, 0, "option lmr takes yes or no"},
    {"lmr", "y", false, 0, "option lmr takes yes or no"},
    {"lmr_moves", "1", true, 1, NULL},
    {"lmr_moves", "200", true, 200, NULL},
    {"lmr_moves", "0", false, 0, "option lmr_moves takes a whole number from 1 to 200, not '0'"},
    {"lmr_moves", "201", false, 0, "option lmr_moves takes a whole number from 1 to 200, not '201'"},
    {"lmr_moves", "3.5", false, 0, "not '3.5'"},
    {"lmr_moves", "+3", false, 0, "not '+3'"},
    {"lmr_moves", "yes", false, 0, "not 'yes'"},
    {"Hash", "65536", true, 65536, NULL},
    {"hash", "1", true, 1, NULL},
    {"hash_mb", "8", true, 8, NULL},
    {"Hash", "0", false, 0, "option Hash takes a whole number from 1 to 65536, not '0'"},
    {"top_value[1]", "3000", true, 3000, NULL},
    {"TOP_VALUE[1]", "-1", false, 0, "option top_value[1] takes a whole number from 0 to 3000, not '-1'"},
    {"tempo", "-100", true, -100, NULL},
    {"advance[29]", "1500", true, 1500, NULL},
};

static void test_value_row(void **state)
{
    const ValueRow *row = *state;
    const int k = option_find(row->name);
    if (k < 0)
        fail_msg("no option '%s'", row->name);
    int v = -12345;
    TvError err;
    tv_error_clear(&err);
    TvStatus st = option_parse_value(k, row->text, &v, &err);
    if (row->ok) {
        if (st != TV_OK)
            fail_msg("%s = '%s' refused: %s", row->name, row->text, err.msg);
        assert_int_equal(v, row->value);
        /* and set through the name, on a version */
        EngineVersion e;
        engine_default(&e);
        assert_int_equal(option_set_text(&e, row->name, row->text, &err), TV_OK);
        assert_int_equal(option_get(&e, k), row->value);
    } else {
        assert_int_equal(st, TV_ERR_ARG);
        if (!strstr(err.msg, row->error))
            fail_msg("%s = '%s': message '%s' lacks '%s'", row->name, row->text, err.msg, row->error);
        EngineVersion e, before;
        engine_default(&e);
        before = e;
        assert_int_equal(option_set_text(&e, row->name, row->text, &err), TV_ERR_ARG);
        assert_memory_equal(&e, &before, sizeof e); /* a refused value changes nothing */
    }
}

/* ---- the table ----------------------------------------------------------------- */

/* Every option: found by its name in any case, its default the default
 * version's value, its bounds those of its .def line, its value settable to
 * both bounds and not past them. */
static void test_table(void **state)
{
    (void)state;
    assert_int_equal(option_count(), SEARCH_NSETTINGS + EVAL_NWEIGHTS);
    EngineVersion def;
    engine_default(&def);
    for (int k = 0; k < option_count(); k++) {
        OptionInfo o;
        assert_true(option_info(k, &o));
        assert_int_equal(option_find(o.name), k);
        char upper[OPTION_NAME_MAX];
        for (size_t i = 0; i <= strlen(o.name); i++)
            upper[i] = (char)(o.name[i] >= 'a' && o.name[i] <= 'z' ? o.name[i] - 32 : o.name[i]);
        assert_int_equal(option_find(upper), k);
        assert_int_equal(option_get(&def, k), o.def);
        if (o.type == OPTION_BOOL) {
            assert_int_equal(o.lo, 0);
            assert_int_equal(o.hi, 1);
        }
        if (k < SEARCH_NSETTINGS) {
            const SearchSettingInfo *s = &SEARCH_SETTING_INFO[k];
            assert_int_equal(o.kind, OPTION_SETTING);
            assert_string_equal(o.key, s->name);
            assert_int_equal(o.lo, s->lo);
            assert_int_equal(o.hi, s->hi);
            assert_int_equal(o.type == OPTION_BOOL, s->type == SEARCH_SETTING_BOOL);
            assert_int_equal(option_find(s->name), k); /* the INI key too */
        } else {
            const WeightInfo *w = eval_weight_info_of(k - SEARCH_NSETTINGS);
            char name[OPTION_NAME_MAX];
            eval_weight_element_name(k - SEARCH_NSETTINGS, name, sizeof name);
            assert_int_equal(o.kind, OPTION_WEIGHT);
            assert_string_equal(o.name, name);
            assert_string_equal(o.key, w->name);
            assert_int_equal(o.lo, w->lo);
            assert_int_equal(o.hi, w->hi);
        }
        EngineVersion e = def;
        TvError err;
        assert_int_equal(option_set(&e, k, o.lo, &err), TV_OK);
        assert_int_equal(option_get(&e, k), o.lo);
        assert_int_equal(option_set(&e, k, o.hi, &err), TV_OK);
        assert_int_equal(option_get(&e, k), o.hi);
        assert_int_equal(option_set(&e, k, o.hi + 1, &err), TV_ERR_ARG);
        assert_int_equal(option_set(&e, k, o.lo - 1, &err), TV_ERR_ARG);
        assert_int_equal(option_get(&e, k), o.hi);
    }
    OptionInfo o;
    assert_false(option_info(option_count(), &o));
    assert_false(option_info(-1, &o));
    assert_int_equal(option_find("Hash"), 0);
    assert_int_equal(option_find("nosuch"), -1);
    assert_int_equal(option_find("top_value[6]"), -1);
    assert_int_equal(option_find("Threads"), -1); /* a word of the protocol, not of an engine version */
    assert_int_equal(option_find("ending"), -1);  /* a rule option */
}

/* A setting and a weight element land in their fields. */
static void test_fields(void **state)
{
    (void)state;
    EngineVersion e;
    engine_default(&e);
    TvError err;
    assert_int_equal(option_set_text(&e, "lmr", "no", &err), TV_OK);
    assert_int_equal(e.settings.lmr, 0);
    assert_int_equal(option_set_text(&e, "Hash", "3", &err), TV_OK);
    assert_int_equal(e.settings.hash_mb, 3);
    assert_int_equal(option_set_text(&e, "top_value[1]", "333", &err), TV_OK);
    assert_int_equal(e.params.w[EW_top_value + 1], 333);
    assert_int_equal(option_set_text(&e, "tempo", "7", &err), TV_OK);
    assert_int_equal(e.params.w[EW_tempo], 7);
}

static void test_refused_names(void **state)
{
    (void)state;
    EngineVersion e;
    engine_default(&e);
    TvError err;
    assert_int_equal(option_set_text(&e, "ending", "capture", &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "'ending' is a rule option, not an engine option"));
    assert_int_equal(option_set_text(&e, "Colour", "red", &err), TV_ERR_ARG);
    assert_non_null(strstr(err.msg, "no engine option 'Colour'"));
    assert_int_equal(option_set(&e, option_count(), 0, &err), TV_ERR_ARG);
}

/* One writer spelling per medium. */
static void test_spellings(void **state)
{
    (void)state;
    char buf[16];
    const int lmr = option_find("lmr"), moves = option_find("lmr_moves");
    assert_string_equal(option_value_text(lmr, 0, OPTION_SPELL_INI, buf, sizeof buf), "no");
    assert_string_equal(option_value_text(lmr, 1, OPTION_SPELL_INI, buf, sizeof buf), "yes");
    assert_string_equal(option_value_text(lmr, 0, OPTION_SPELL_PROTOCOL, buf, sizeof buf), "false");
    assert_string_equal(option_value_text(lmr, 1, OPTION_SPELL_PROTOCOL, buf, sizeof buf), "true");
    assert_string_equal(option_value_text(moves, 7, OPTION_SPELL_PROTOCOL, buf, sizeof buf), "7");
}

/* ---- the INI reader and the protocol read through the table ---------------------- */

typedef struct {
    const char *text;
    int lmr;
} IniRow;

static const IniRow INI_ROWS[] = {
    {"[search]\nlmr = no\n", 0},  {"[search]\nlmr = false\n", 0}, {"[search]\nlmr = OFF\n", 0},
    {"[search]\nlmr = 0\n", 0},   {"[search]\nlmr = No\n", 0},    {"[search]\nlmr = on\n", 1},
    {"[search]\nlmr = TRUE\n", 1}, {"[search]\nlmr = Yes\n", 1},
};

static void test_ini_row(void **state)
{
    const IniRow *row = *state;
    EngineVersion e;
    TvError err;
    if (engine_read_string(row->text, "x.ini", &e, &err) != TV_OK)
        fail_msg("'%s' refused: %s", row->text, err.msg);
    assert_int_equal(e.settings.lmr, row->lmr);
}

/* The INI writer writes yes/no, and reads back what it wrote. */
static void test_ini_writes_yes_no(void **state)
{
    (void)state;
    char path[] = "/tmp/test_option_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    EngineVersion e, back;
    engine_default(&e);
    TvError err;
    assert_int_equal(option_set_text(&e, "lmr", "0", &err), TV_OK);
    assert_int_equal(option_set_text(&e, "top_value[2]", "401", &err), TV_OK);
    assert_int_equal(engine_write(path, &e, NULL, &err), TV_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    bool lmr_no = false;
    while (fgets(line, sizeof line, f)) {
        lmr_no |= !strcmp(line, "lmr = no\n");
        assert_null(strstr(line, "= false")); /* not the protocol's spelling */
        assert_null(strstr(line, "= true"));
    }
    fclose(f);
    assert_true(lmr_no);
    assert_int_equal(engine_read(path, &back, &err), TV_OK);
    remove(path);
    for (int k = 0; k < option_count(); k++)
        assert_int_equal(option_get(&back, k), option_get(&e, k));
}

/* `tavreli uci` sets a check from any spelling, and refuses a bad one
 * naming what it takes. */
static void test_uci_setoption(void **state)
{
    (void)state;
    static const char script[] = "setoption name lmr value no\n"
                                 "setoption name qsearch value OFF\n"
                                 "setoption name slide_over_own value yes\n"
                                 "setoption name lmr_moves value 0\n"
                                 "setoption name null_move value maybe\n"
                                 "uci\n"
                                 "quit\n";
    FILE *in = fmemopen((void *)script, sizeof script - 1, "r");
    char *outbuf = NULL;
    size_t outlen = 0;
    FILE *out = open_memstream(&outbuf, &outlen);
    assert_non_null(in);
    assert_non_null(out);
    EngineVersion e;
    engine_default(&e);
    TvError err;
    assert_int_equal(uci_engine_run(in, out, &e, NULL, &err), TV_OK);
    fclose(in);
    fclose(out);
    const char *want[] = {
        "info string setoption: option lmr_moves takes a whole number from 1 to 200, not '0'\n",
        "info string setoption: option null_move takes yes or no (also true/false, on/off, 1/0), not 'maybe'\n",
        "option name lmr type check default false\n",
        "option name qsearch type check default false\n",
        "option name slide_over_own type check default false\n", /* a rule option's default is the rules' */
        "option name lmr_moves type spin default 3 min 1 max 200\n",
        "option name null_move type check default false\n",
        "option name Hash type spin default 16 min 1 max 65536\n",
        "option name Threads type spin default 1 min 1 max 1\n",
        "option name top_value[1] type spin default ",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(outbuf, want[i]))
            fail_msg("no '%s' in the answer:\n%s", want[i], outbuf);
    assert_null(strstr(outbuf, "option name hash_mb")); /* that is Hash */
    /* exactly the two refusals */
    int n = 0;
    for (const char *p = outbuf; (p = strstr(p, "info string")); p++)
        n++;
    assert_int_equal(n, 2);
    free(outbuf);
}

/* ---- the rule options take the same boolean spellings ------------------------ */

typedef struct {
    const char *name, *value;
    bool ok;
    const char *str; /* rule_options_to_str afterwards */
} RuleRow;

static const RuleRow RULE_ROWS[] = {
    {"slide_over_own", "yes", true, "slide_over_own=yes enpassant=combatant ending=checkmate"},
    {"slide_over_own", "true", true, "slide_over_own=yes enpassant=combatant ending=checkmate"},
    {"slide_over_own", "ON", true, "slide_over_own=yes enpassant=combatant ending=checkmate"},
    {"slide_over_own", "1", true, "slide_over_own=yes enpassant=combatant ending=checkmate"},
    {"slide_over_own", "off", true, "slide_over_own=no enpassant=combatant ending=checkmate"},
    {"slide_over_own", "False", true, "slide_over_own=no enpassant=combatant ending=checkmate"},
    {"slide_over_own", "maybe", false, "bad value 'maybe' for option slide_over_own (no or yes; also true/false"},
    {"ending", "capture", true, "slide_over_own=no enpassant=combatant ending=capture"},
    {"ending", "yes", false, "bad value 'yes' for option ending (checkmate or capture)"},
    {"enpassant", "any", true, "slide_over_own=no enpassant=any ending=checkmate"},
};

static void test_rule_row(void **state)
{
    const RuleRow *row = *state;
    Options o;
    TvError err;
    assert_int_equal(rule_options_parse(NULL, &o, &err), TV_OK);
    TvStatus st = rule_options_set(&o, row->name, row->value, &err);
    if (row->ok) {
        if (st != TV_OK)
            fail_msg("%s=%s refused: %s", row->name, row->value, err.msg);
        char buf[128];
        assert_string_equal(rule_options_to_str(&o, buf, sizeof buf), row->str);
    } else {
        assert_int_equal(st, TV_ERR_ARG);
        if (!strstr(err.msg, row->str))
            fail_msg("%s=%s: message '%s' lacks '%s'", row->name, row->value, err.msg, row->str);
    }
}

#define ROWS(rows, fn, list, n)                                                                                       \
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)                                                      \
        list[n++] = (struct CMUnitTest)cmocka_unit_test_prestate(fn, (void *)&rows[i]);

int main(void)
{
    enum { MAX = 128 };
    struct CMUnitTest tests[MAX];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_table);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_fields);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_refused_names);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_spellings);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_ini_writes_yes_no);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_uci_setoption);
    ROWS(VALUE_ROWS, test_value_row, tests, n)
    ROWS(INI_ROWS, test_ini_row, tests, n)
    ROWS(RULE_ROWS, test_rule_row, tests, n)
    assert_true(n <= MAX);
    return _cmocka_run_group_tests("option", tests, n, NULL, NULL);
}
