/* test_spsa.c: the SPSA file reader (every refusal of issue 24 names its
 * line, one test per row), the gain schedule against its formulas (c is
 * c_end and a / c^2 is r_end at the last pair), the perturbation (from the
 * seed and the iteration only), the step and its clamp, and the values
 * set on the two players. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "option.h"
#include "spsa.h"

#define ENGINE TAVRELI_TEST_DATA "/../../configs/engines/default.ini"
#define INI_PATH TAVRELI_TEST_DATA "/spsa-test.ini"

static const char ENGINE_SECTION[] = "[engine base]\npath = " ENGINE "\ndepth = 2\n";

static TvStatus read_text(const char *text, SpsaConfig *c, TvError *err)
{
    char *copy = strdup(text);
    assert_non_null(copy);
    return spsa_read_text(INI_PATH, copy, strlen(copy), c, err);
}

/* ---- refusals: one row each ---------------------------------------------------- */

typedef struct {
    const char *spsa;  /* the [spsa] section's lines after its header (line 2 on) */
    const char *after; /* sections after the engine section (NULL: none) */
    int line;          /* the line the error names */
    const char *what;  /* in the message */
} BadRow;

static const BadRow BAD[] = {
    {"param no_such_setting = 1, 0, 2, 1, 0.002\n", NULL, 2, "no such setting or weight"},
    {"param lmr_base = 300, 50, 200, 10, 0.002\n", NULL, 2, "outside [MIN, MAX]"},
    {"param lmr_base = 100, 200, 200, 10, 0.002\n", NULL, 2, "must be below MAX"},
    {"param lmr_base = 100, 250, 50, 10, 0.002\n", NULL, 2, "must be below MAX"},
    {"param lmr_base = 100, 50, 200, 0, 0.002\n", NULL, 2, "C_END 0 must be above 0"},
    {"param lmr_base = 100, 50, 200, -1, 0.002\n", NULL, 2, "C_END -1 must be above 0"},
    {"param lmr_base = 100, 50, 200, 10, 0\n", NULL, 2, "R_END 0 must be above 0"},
    {"param lmr = 1, 0, 1, 1, 0.002\n", NULL, 2, "yes/no setting, not tunable"},
    {"param lmr_base = 100, 50, 200, 10, 0.002\nparam lmr_base = 90, 50, 200, 10, 0.002\n", NULL, 3,
     "given twice (first at line 2)"},
    {"param Hash = 16, 1, 64, 4, 0.002\nparam hash_mb = 16, 1, 64, 4, 0.002\n", NULL, 3, "same engine option"},
    {"param lmr_base = 100, 50, 200, 10\n", NULL, 2, "expected five numbers"},
    {"param lmr_base = 100, 50, 200, 10, x\n", NULL, 2, "expected five numbers"},
    {"param lmr_base = 100, -5, 200, 10, 0.002\n", NULL, 2, "declares the range [0, 1000]"},
    {"param top_value[9] = 100, 50, 200, 10, 0.002\n", NULL, 2, "no such setting or weight"},
    {"iterations = 0\nparam lmr_base = 100, 50, 200, 10, 0.002\n", NULL, 2, "iterations '0' must be"},
    {"bogus = 1\n", NULL, 2, "unknown key 'bogus' in [spsa]"},
    {"verify_elo0 = 5\nverify_elo1 = 5\nparam lmr_base = 100, 50, 200, 10, 0.002\n", NULL, 1,
     "verify_elo0 < verify_elo1"},
    {"", NULL, 1, "no param line"},
    {"param lmr_base = 100, 50, 200, 10, 0.002\n", "[engine other]\npath = " ENGINE "\ndepth = 1\n", 6,
     "a second [engine] section"},
    {"param lmr_base = 100, 50, 200, 10, 0.002\n", "[tournament]\npairs = 3\n", 6, "[tournament] is not for"},
    {"param lmr_base = 100, 50, 200, 10, 0.002\n", "[sprt]\nelo1 = 5\n", 6, "[sprt] is not for"},
};

static void refused(void **state)
{
    const BadRow *row = *state;
    char text[4096];
    snprintf(text, sizeof text, "[spsa]\n%s%s%s", row->spsa, ENGINE_SECTION, row->after ? row->after : "");
    SpsaConfig c;
    TvError err;
    assert_int_not_equal(read_text(text, &c, &err), TV_OK);
    char want[64];
    snprintf(want, sizeof want, "spsa-test.ini:%d: ", row->line);
    if (!strstr(err.msg, want) || !strstr(err.msg, row->what))
        fail_msg("expected '%s' and '%s' in: %s", want, row->what, err.msg);
    assert_int_equal(err.line, row->line);
}

static void too_many_params(void **state)
{
    (void)state;
    char text[16384];
    int n = snprintf(text, sizeof text, "[spsa]\n");
    OptionInfo info;
    for (int k = 0, i = 0; i < SPSA_MAX_PARAMS + 1; k++) {
        assert_true(option_info(k, &info));
        if (info.type == OPTION_BOOL || info.lo >= info.hi)
            continue;
        n += snprintf(text + n, sizeof text - (size_t)n, "param %s = %d, %d, %d, 1, 0.002\n", info.name, info.lo,
                      info.lo, info.hi);
        i++;
    }
    snprintf(text + n, sizeof text - (size_t)n, "%s", ENGINE_SECTION);
    SpsaConfig c;
    TvError err;
    assert_int_not_equal(read_text(text, &c, &err), TV_OK);
    if (!strstr(err.msg, "spsa-test.ini:66: more than 64 parameters"))
        fail_msg("%s", err.msg);
}

static void defaults_and_tournament(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text, "; comment\n[spsa]\nparam lmr_base = 100, 50, 200, 10, 0.002\n%s", ENGINE_SECTION);
    SpsaConfig c;
    TvError err;
    if (read_text(text, &c, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(c.name, "spsa-test");
    assert_int_equal(c.iterations, 200);
    assert_int_equal(c.batch, 8);
    assert_true(c.alpha == 0.602 && c.gamma == 0.101 && c.A_ratio == 0.1);
    assert_true(c.verify && c.verify_elo0 == 0 && c.verify_elo1 == 5);
    assert_int_equal(c.t.nengines, 2);
    assert_int_equal(c.t.pairs, 1600);
    assert_string_equal(c.t.engines[SPSA_PLUS].engine.name, "base+");
    assert_string_equal(c.t.engines[SPSA_MINUS].engine.name, "base-");
    assert_int_equal(c.t.engines[SPSA_PLUS].engine.limits.depth, 2);
    assert_string_equal(c.t.text, text); /* the store keeps the file as written */
    assert_int_equal(c.params[0].line, 3);
    spsa_free(&c);
}

/* ---- the schedule ------------------------------------------------------------------ */

static SpsaConfig schedule_config(long iterations, long batch)
{
    char text[4096];
    snprintf(text, sizeof text,
             "[spsa]\niterations = %ld\nbatch = %ld\nseed = 7\n"
             "param lmr_base = 100, 50, 200, 10, 0.002\nparam rfp_margin = 120, 0, 400, 20, 0.01\n%s",
             iterations, batch, ENGINE_SECTION);
    SpsaConfig c;
    TvError err;
    if (read_text(text, &c, &err) != TV_OK)
        fail_msg("%s", err.msg);
    return c;
}

static void schedule_formulas(void **state)
{
    (void)state;
    SpsaConfig c = schedule_config(100, 1);
    const double N = 100, A = 10;
    /* first pair: c = c_end N^gamma, a = r_end c_end^2 ((A + N) / (A + 1))^alpha */
    assert_true(fabs(spsa_c(&c, 0, 0) - 10 * pow(N, 0.101)) < 1e-9);
    assert_true(fabs(spsa_a(&c, 1, 0) - 0.01 * 400 * pow((A + N) / (A + 1), 0.602)) < 1e-9);
    /* last pair: c = c_end and a / c^2 = r_end */
    assert_true(fabs(spsa_c(&c, 0, 99) - 10) < 1e-9);
    assert_true(fabs(spsa_a(&c, 0, 99) / (spsa_c(&c, 0, 99) * spsa_c(&c, 0, 99)) - 0.002) < 1e-12);
    assert_true(fabs(spsa_c(&c, 1, 99) - 20) < 1e-9);
    /* decreasing */
    for (long k = 1; k < 100; k++) {
        assert_true(spsa_c(&c, 0, k) < spsa_c(&c, 0, k - 1));
        assert_true(spsa_a(&c, 0, k) < spsa_a(&c, 0, k - 1));
    }
    spsa_free(&c);
    /* with batches the schedule counts pairs: iteration k starts at pair k x batch + 1 */
    SpsaConfig b = schedule_config(25, 4);
    assert_true(fabs(spsa_c(&b, 0, 3) - 10 * pow(100.0 / 13, 0.101)) < 1e-9);
    spsa_free(&b);
}

static void delta_from_seed(void **state)
{
    (void)state;
    SpsaConfig c = schedule_config(100, 1);
    int8_t d1[2], d2[2];
    int plus = 0, differ = 0;
    for (long k = 0; k < 400; k++) {
        spsa_delta(&c, k, d1);
        spsa_delta(&c, k, d2);
        assert_memory_equal(d1, d2, sizeof d1);
        for (int p = 0; p < 2; p++) {
            assert_true(d1[p] == 1 || d1[p] == -1);
            plus += d1[p] == 1;
        }
        differ += d1[0] != d1[1];
    }
    assert_in_range(plus, 340, 460);   /* 800 draws of +-1: 400 +- 3 sd */
    assert_in_range(differ, 160, 240); /* the two parameters draw independently */
    c.seed = 8;
    int same = 0;
    for (long k = 0; k < 400; k++) {
        spsa_delta(&c, k, d1);
        c.seed = 7;
        spsa_delta(&c, k, d2);
        c.seed = 8;
        same += d1[0] == d2[0];
    }
    assert_in_range(same, 160, 240); /* another seed, other perturbations */
    spsa_free(&c);
}

static void step_and_clamp(void **state)
{
    (void)state;
    SpsaConfig c = schedule_config(100, 1);
    double theta[2] = {100, 120};
    const int8_t delta[2] = {1, -1};
    spsa_step(&c, 99, delta, 2, theta);
    /* at the end a step is r_end c_end x score x delta */
    assert_true(fabs(theta[0] - (100 + 0.002 * 10 * 2)) < 1e-9);
    assert_true(fabs(theta[1] - (120 - 0.01 * 20 * 2)) < 1e-9);
    double edge[2] = {199.99, 0.01};
    spsa_step(&c, 0, delta, 2, edge);
    assert_true(edge[0] == 200 && edge[1] == 0);
    /* the played values are clamped, not rounded */
    assert_true(spsa_played(&c, 0, 0, 195, 1, 1) == 200);
    assert_true(fabs(spsa_played(&c, 0, 99, 100.25, -1, 1) - 90.25) < 1e-9);
    assert_int_equal(spsa_round(90.5), 91);
    assert_int_equal(spsa_round(-2.5), -3);
    spsa_free(&c);
}

static void apply_to_players(void **state)
{
    (void)state;
    SpsaConfig c = schedule_config(100, 1);
    const double plus[2] = {110.4, 99.5}, minus[2] = {89.6, 140.49};
    TvError err;
    assert_int_equal(spsa_apply(&c, &c.t, SPSA_PLUS, plus, &err), TV_OK);
    assert_int_equal(spsa_apply(&c, &c.t, SPSA_MINUS, minus, &err), TV_OK);
    assert_int_equal(c.t.engines[SPSA_PLUS].engine.settings.lmr_base, 110);
    assert_int_equal(c.t.engines[SPSA_PLUS].engine.settings.rfp_margin, 100);
    assert_int_equal(c.t.engines[SPSA_MINUS].engine.settings.lmr_base, 90);
    assert_int_equal(c.t.engines[SPSA_MINUS].engine.settings.rfp_margin, 140);
    spsa_free(&c);
}

int main(void)
{
    enum { NBAD = sizeof BAD / sizeof BAD[0] };
    struct CMUnitTest tests[NBAD + 6];
    char names[NBAD][96];
    for (int i = 0; i < NBAD; i++) {
        snprintf(names[i], sizeof names[i], "refused: %.70s", BAD[i].what);
        tests[i] = (struct CMUnitTest){names[i], refused, NULL, NULL, (void *)&BAD[i]};
    }
    tests[NBAD] = (struct CMUnitTest)cmocka_unit_test(too_many_params);
    tests[NBAD + 1] = (struct CMUnitTest)cmocka_unit_test(defaults_and_tournament);
    tests[NBAD + 2] = (struct CMUnitTest)cmocka_unit_test(schedule_formulas);
    tests[NBAD + 3] = (struct CMUnitTest)cmocka_unit_test(delta_from_seed);
    tests[NBAD + 4] = (struct CMUnitTest)cmocka_unit_test(step_and_clamp);
    tests[NBAD + 5] = (struct CMUnitTest)cmocka_unit_test(apply_to_players);
    return _cmocka_run_group_tests("spsa", tests, NBAD + 6, NULL, NULL);
}
