/* test_perft.c: perft numbers of the start position (docs/rules.md section 14) and
 * of every position of data/rules_cases.tsv, and the move breakdown of the
 * start position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "perft.h"
#include "tfen.h"

static Position start_position(void)
{
    Position p;
    TvError err;
    assert_int_equal(tfen_read(TV_START_TFEN, &p, &err), TV_OK);
    return p;
}

static void test_start_perft_shallow(void **state)
{
    (void)state;
    Position p = start_position();
    Options o = {0};
    assert_int_equal(perft(&p, &o, 1), 39);
    assert_int_equal(perft(&p, &o, 2), 1519);
    assert_int_equal(perft(&p, &o, 3), 68455);
}

static void test_start_perft_depth4(void **state)
{
    (void)state;
    Position p = start_position();
    Options o = {0};
    assert_int_equal(perft(&p, &o, 4), 3055489);
}

/* Section 14: Warrior a1: 2, Horseman b1: 3, Archer c1: 2, Prince d1: 4,
 * Wizard e1: 5, Archer f1: 2, Horseman g1: 3, Warrior h1: 2, and eight single
 * and eight double combatant steps. */
static void test_start_breakdown(void **state)
{
    (void)state;
    Position p = start_position();
    Options o = {0};
    MoveList list;
    movegen_legal(&p, &o, &list);
    int per_square[64] = {0};
    int singles = 0, doubles = 0;
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        per_square[move_from(m)]++;
        if (sq_rank(move_from(m)) == 1) {
            if (move_to(m) - move_from(m) == 8)
                singles++;
            else
                doubles++;
        }
    }
    const int back[8] = {2, 3, 2, 4, 5, 2, 3, 2};
    for (int f = 0; f < 8; f++)
        assert_int_equal(per_square[f], back[f]);
    assert_int_equal(singles, 8);
    assert_int_equal(doubles, 8);
    /* The Prince may not land on its own Wizard. */
    for (int i = 0; i < list.count; i++)
        assert_false(move_from(list.moves[i]) == 3 && move_to(list.moves[i]) == 4);
}

static bool has_move(const Position *p, const Options *o, Square from, Square to)
{
    MoveList list;
    movegen_legal(p, o, &list);
    for (int i = 0; i < list.count; i++)
        if (move_from(list.moves[i]) == from && move_to(list.moves[i]) == to)
            return true;
    return false;
}

/* Regression: under slide_over_own=yes a pinned slider may pass over its own
 * Wizard, to the far side of the pin line, and so expose the Wizard.  The
 * fast path once let such moves through (found by the simple generator). */
static void test_pinned_slider_passing_own_wizard(void **state)
{
    (void)state;
    Options o = {0};
    o.slide_over_own = true;
    Position p;
    TvError err;
    /* White Warrior b1 pinned by the Black r on a1 against the Wizard e1. */
    assert_int_equal(tfen_read("4k2r/8/8/8/8/8/8/rR2K2R w Kk - 2 2", &p, &err), TV_OK);
    assert_true(has_move(&p, &o, 1, 3));  /* b1-d1 stays on the line, between */
    assert_false(has_move(&p, &o, 1, 5)); /* b1-f1 passes e1: exposes it */
    assert_false(has_move(&p, &o, 1, 6));
    assert_false(has_move(&p, &o, 1, 7));
    /* Black Archer f5 pinned by the White B~ on c8 against the Wizard g4. */
    assert_int_equal(tfen_read("2B~5/8/8/5b2/6k1/8/K7/8 b - - 2 2", &p, &err), TV_OK);
    assert_true(has_move(&p, &o, 37, 44));  /* f5-e6 */
    assert_false(has_move(&p, &o, 37, 23)); /* f5-h3 over g4 */
    /* Default rules: sliders stop at the Wizard, so nothing changes. */
    o.slide_over_own = false;
    assert_false(has_move(&p, &o, 37, 23));
}

typedef struct {
    char tfen[TV_TFEN_MAX];
    uint64_t expect[3];
    char what[512];
} Case;

static int read_cases(Case **out)
{
    FILE *f = fopen(TAVRELI_TEST_DATA "/rules_cases.tsv", "r");
    assert_non_null(f);
    static char line[2048];
    int n = 0, cap = 64;
    Case *cases = calloc((size_t)cap, sizeof *cases);
    assert_non_null(cases);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *fields[5] = {0};
        char *s = line;
        for (int i = 0; i < 5 && s; i++) {
            fields[i] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = 0;
        }
        assert_non_null(fields[4]);
        fields[4][strcspn(fields[4], "\n")] = 0;
        assert_true(n < cap);
        snprintf(cases[n].tfen, sizeof cases[n].tfen, "%.250s", fields[0]);
        for (int d = 0; d < 3; d++)
            cases[n].expect[d] = strtoull(fields[1 + d], NULL, 10);
        snprintf(cases[n].what, sizeof cases[n].what, "%.500s", fields[4]);
        n++;
    }
    fclose(f);
    *out = cases;
    return n;
}

static void test_rules_cases(void **state)
{
    (void)state;
    Case *cases;
    int n = read_cases(&cases);
    assert_int_equal(n, 45);
    Options o = {0};
    int failures = 0;
    for (int i = 0; i < n; i++) {
        Position p;
        TvError err;
        if (tfen_read(cases[i].tfen, &p, &err) != TV_OK) {
            print_error("%s: %s\n", cases[i].tfen, err.msg);
            failures++;
            continue;
        }
        for (int d = 1; d <= 3; d++) {
            uint64_t got = perft(&p, &o, d);
            if (got != cases[i].expect[d - 1]) {
                print_error("perft %d of %s = %llu, expected %llu (%s)\n", d, cases[i].tfen,
                            (unsigned long long)got, (unsigned long long)cases[i].expect[d - 1], cases[i].what);
                failures++;
                break;
            }
        }
    }
    free(cases);
    assert_int_equal(failures, 0);
}

int main(int argc, char **argv)
{
    /* `test_perft slow` runs only the slow depth-4 check. */
    if (argc > 1 && !strcmp(argv[1], "slow")) {
        const struct CMUnitTest slow[] = {cmocka_unit_test(test_start_perft_depth4)};
        return cmocka_run_group_tests_name("perft_slow", slow, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_perft_shallow),
        cmocka_unit_test(test_start_breakdown),
        cmocka_unit_test(test_rules_cases),
        cmocka_unit_test(test_pinned_slider_passing_own_wizard),
    };
    return cmocka_run_group_tests_name("perft", tests, NULL, NULL);
}
