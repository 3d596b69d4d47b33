/* test_tfen.c: TFEN reading and writing (docs/rules.md sections 12 and 15). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data_lines.h"
#include "tfen.h"

static void expect_round_trip(const char *tfen)
{
    Position p;
    TvError err;
    char buf[TV_TFEN_MAX];
    tv_error_clear(&err);
    TvStatus st = tfen_read(tfen, &p, &err);
    if (st != TV_OK)
        fail_msg("tfen_read(%s) failed: %s", tfen, err.msg);
    assert_true(pos_is_ok(&p, NULL, 0));
    assert_string_equal(tfen_write(&p, buf, sizeof buf), tfen);
}

static void test_start_round_trip(void **state)
{
    (void)state;
    expect_round_trip(TV_START_TFEN);
    Position a, b;
    assert_int_equal(tfen_read(TV_START_TFEN, &a, NULL), TV_OK);
    pos_set_start(&b);
    assert_true(pos_equal(&a, &b));
}

static void round_trip_line(char **cols, int ncols, int lineno, void *ctx)
{
    (void)ncols;
    (void)lineno;
    (void)ctx;
    expect_round_trip(cols[0]);
}

static void test_rules_cases_round_trip(void **state)
{
    (void)state;
    assert_true(for_each_line(DATA("rules_cases.tsv"), round_trip_line, NULL) >= 40);
}

static void bad_tfen_line(char **cols, int ncols, int lineno, void *ctx)
{
    (void)ctx;
    if (ncols != 2)
        fail_msg("bad_tfens.tsv line %d: expected 2 columns", lineno);
    Position p;
    TvError err;
    tv_error_clear(&err);
    TvStatus st = tfen_read(cols[0], &p, &err);
    if (st != TV_ERR_PARSE)
        fail_msg("bad_tfens.tsv line %d: '%s' was accepted", lineno, cols[0]);
    if (strcmp(err.msg, cols[1]) != 0)
        fail_msg("bad_tfens.tsv line %d: '%s'\n  got:      %s\n  expected: %s", lineno, cols[0], err.msg, cols[1]);
    assert_int_equal(err.status, TV_ERR_PARSE);
}

static void test_bad_tfens(void **state)
{
    (void)state;
    assert_true(for_each_line(DATA("bad_tfens.tsv"), bad_tfen_line, NULL) >= 30);
}

static void test_bad_tfen_extra(void **state)
{
    (void)state;
    TvError err;
    Position p;
    tv_error_clear(&err);
    assert_int_equal(tfen_read("", &p, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "TFEN field 1 (board), char 1: empty TFEN");
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/8/4K3\tw - - 0 1", &p, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg,
                        "TFEN field 1 (board), char 20: control character \\x09 (fields are separated by single spaces)");
    assert_int_equal(tfen_read(NULL, &p, &err), TV_ERR_PARSE);
    /* "startpos" is only for tfen_read_arg. */
    assert_int_equal(tfen_read("startpos", &p, &err), TV_ERR_PARSE);
    assert_null(strstr(err.msg, "error:"));
    assert_int_equal(tfen_read_arg("startpos", &p, &err), TV_OK);
    char buf[TV_TFEN_MAX];
    assert_string_equal(tfen_write(&p, buf, sizeof buf), TV_START_TFEN);
    /* A NULL err is allowed. */
    assert_int_equal(tfen_read("x", &p, NULL), TV_ERR_PARSE);
}

static void test_four_fields(void **state)
{
    (void)state;
    Position p;
    char buf[TV_TFEN_MAX];
    assert_int_equal(tfen_read("rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq -", &p, NULL),
                     TV_OK);
    assert_int_equal(p.quiet_plies, 0);
    assert_int_equal(p.move_number, 1);
    assert_string_equal(tfen_write(&p, buf, sizeof buf), TV_START_TFEN);
    assert_int_equal(tfen_read("4k3/8/8/8/4pqPH2/8/8/4K3 b - e3 17 42", &p, NULL), TV_OK);
    assert_int_equal(p.quiet_plies, 17);
    assert_int_equal(p.move_number, 42);
    assert_int_equal(p.side, TV_BLACK);
    assert_int_equal(p.ep, sq_make(4, 2));
}

static Tavrel top_of(const Position *p, const char *sq)
{
    return pos_top(p, sq_make(sq[0] - 'a', sq[1] - '1'));
}

static void test_tokens(void **state)
{
    (void)state;
    Position p;
    assert_int_equal(tfen_read("4k3/8/8/3H4/8/3h~4/5(PRpq)2/4K2(Q~b) w - - 0 1", &p, NULL), TV_OK);
    Tavrel h = top_of(&p, "d5");
    assert_int_equal(tavrel_kind(h), TV_HELGI);
    assert_int_equal(tavrel_destiny(h), TV_NONE);
    assert_false(tavrel_flag(h));
    assert_int_equal(tavrel_colour(h), TV_WHITE);
    Tavrel hp = top_of(&p, "d3");
    assert_int_equal(tavrel_kind(hp), TV_HELGI);
    assert_int_equal(tavrel_destiny(hp), TV_HELGI);
    assert_true(tavrel_is_promoted(hp));
    assert_int_equal(tavrel_colour(hp), TV_BLACK);
    /* f2 stack: PR on top of pq, stored bottom to top. */
    Square f2 = sq_make(5, 1);
    assert_int_equal(pos_height(&p, f2), 2);
    assert_int_equal(p.stack[f2][0], tavrel_make(TV_BLACK, TV_COMBATANT, TV_PRINCE, true));
    assert_int_equal(p.stack[f2][1], tavrel_make(TV_WHITE, TV_COMBATANT, TV_WARRIOR, true));
    Square h1 = sq_make(7, 0);
    assert_int_equal(p.stack[h1][1], tavrel_make(TV_WHITE, TV_PRINCE, TV_PRINCE, true));
    assert_int_equal(p.stack[h1][0], tavrel_make(TV_BLACK, TV_ARCHER, TV_NONE, false));

    char tok[4];
    assert_string_equal(tfen_token(tavrel_make(TV_WHITE, TV_COMBATANT, TV_HELGI, false), tok), "PH");
    assert_string_equal(tfen_token(tavrel_make(TV_BLACK, TV_COMBATANT, TV_ARCHER, true), tok), "pb");
    assert_string_equal(tfen_token(tavrel_make(TV_BLACK, TV_WARRIOR, TV_WARRIOR, true), tok), "r~");
    assert_string_equal(tfen_token(tavrel_make(TV_WHITE, TV_WIZARD, TV_NONE, false), tok), "K");
    assert_string_equal(tfen_token(tavrel_make(TV_WHITE, TV_HELGI, TV_NONE, false), tok), "H");
}

static Tavrel bottom_of(const Position *p, const char *sq)
{
    return p->stack[sq_make(sq[0] - 'a', sq[1] - '1')][0];
}

static void test_moved_marks(void **state)
{
    (void)state;
    Position p;
    char buf[TV_TFEN_MAX];
    /* PQ' on d2: carried back, has moved, round trips with its mark. */
    expect_round_trip("4k3/8/8/8/8/8/3PQ'4/4K3 w - - 0 1");
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/3PQ'4/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(top_of(&p, "d2")));
    /* PQ on d2: unmoved. */
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/3PQ4/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_is_unmoved_combatant(top_of(&p, "d2")));
    /* PR on h2: its file's destiny is R, unmoved. */
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/7PR/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_is_unmoved_combatant(top_of(&p, "h2")));
    /* PQ on a2: a file of another destiny, so it has moved; no mark needed. */
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/PQ7/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(top_of(&p, "a2")));
    assert_string_equal(tfen_write(&p, buf, sizeof buf), "4k3/8/8/8/8/8/PQ7/4K3 w - - 0 1");
    /* A mark where it is not needed is accepted and dropped by the writer. */
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/PQ'7/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(top_of(&p, "a2")));
    assert_string_equal(tfen_write(&p, buf, sizeof buf), "4k3/8/8/8/8/8/PQ7/4K3 w - - 0 1");
    /* Black: ph' on e7 moved, ph on e7 unmoved; pr on h7 unmoved. */
    assert_int_equal(tfen_read("4k3/4ph'2pr/8/8/8/8/8/4K3 b - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(top_of(&p, "e7")));
    assert_true(tavrel_is_unmoved_combatant(top_of(&p, "h7")));
    /* A White combatant on rank 7 is never unmoved. */
    assert_int_equal(tfen_read("4k3/7PR/8/8/8/8/8/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(top_of(&p, "h7")));
    /* Covered at the bottom of its start square: unmoved unless marked. */
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/3(NPQ)4/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_is_unmoved_combatant(bottom_of(&p, "d2")));
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/3(NPQ')4/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(bottom_of(&p, "d2")));
    /* Not at the bottom: always moved, never marked. */
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/3(PQN)4/4K3 w - - 0 1", &p, NULL), TV_OK);
    assert_true(tavrel_flag(top_of(&p, "d2")));
    assert_string_equal(tfen_write(&p, buf, sizeof buf), "4k3/8/8/8/8/8/3(PQN)4/4K3 w - - 0 1");

    /* The writer adds ' for a moved combatant carried back to its start. */
    pos_clear(&p);
    assert_true(pos_setup_push(&p, sq_make(4, 0), tavrel_make(TV_WHITE, TV_WIZARD, TV_NONE, false)));
    assert_true(pos_setup_push(&p, sq_make(4, 7), tavrel_make(TV_BLACK, TV_WIZARD, TV_NONE, false)));
    assert_true(pos_setup_push(&p, sq_make(7, 1), tavrel_make(TV_WHITE, TV_COMBATANT, TV_WARRIOR, true)));
    assert_true(pos_setup_push(&p, sq_make(0, 6), tavrel_make(TV_BLACK, TV_COMBATANT, TV_WARRIOR, true)));
    assert_true(pos_setup_push(&p, sq_make(0, 6), tavrel_make(TV_BLACK, TV_HORSEMAN, TV_NONE, false)));
    pos_refresh(&p);
    assert_string_equal(tfen_write(&p, buf, sizeof buf), "4k3/(npr')7/8/8/8/8/7PR'/4K3 w - - 0 1");
    Position q;
    assert_int_equal(tfen_read(buf, &q, NULL), TV_OK);
    assert_true(pos_equal(&p, &q));
}

static void test_castling_letters(void **state)
{
    (void)state;
    Position p;
    char buf[TV_TFEN_MAX];
    /* Any order is read; the writer writes KQkq order. */
    assert_int_equal(tfen_read("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1", &p, NULL), TV_OK);
    assert_int_equal(p.castling, TV_CASTLE_WK | TV_CASTLE_WQ | TV_CASTLE_BK | TV_CASTLE_BQ);
    assert_string_equal(tfen_write(&p, buf, sizeof buf), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    /* Rights survive covering: the unmoved Warrior at the bottom is enough. */
    expect_round_trip("4k3/8/8/8/8/8/8/4K2(nR) b K - 0 1");
    expect_round_trip("r3k2(Nr)/8/8/8/8/8/8/4K3 w k - 0 1");
}

/* Every prefix and some mutations of valid TFENs: never a crash (run under
 * the sanitizer build to make this meaningful). */
static void test_no_crash(void **state)
{
    (void)state;
    static const char *const seeds[] = {
        TV_START_TFEN,
        "r~3k3/8/8/8/8/8/8/R3K1(H~pbNqr)1 w Q - 0 1",
        "8/1k6/2(nPRbPNrPBq)5/8/3(RBNQprpn)4/8/8/4K3 b - - 0 1",
        "4k3/8/8/8/8/8/3(NPQ')4/4K3 w - - 0 1",
    };
    static const char noise[] = "()'~/ 0129KkPpQqHhxw-";
    Position p;
    char buf[TV_TFEN_MAX + 8];
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        size_t len = strlen(seeds[s]);
        for (size_t cut = 0; cut <= len; cut++) {
            memcpy(buf, seeds[s], cut);
            buf[cut] = '\0';
            (void)tfen_read(buf, &p, NULL);
            for (size_t k = 0; k < sizeof noise - 1; k++) {
                if (cut >= len)
                    break;
                snprintf(buf, sizeof buf, "%s", seeds[s]);
                buf[cut] = noise[k];
                TvError err;
                tv_error_clear(&err);
                if (tfen_read(buf, &p, &err) == TV_OK) {
                    char out[TV_TFEN_MAX];
                    tfen_write(&p, out, sizeof out);
                    Position q;
                    /* Whatever is accepted writes out as a readable TFEN. */
                    assert_int_equal(tfen_read(out, &q, NULL), TV_OK);
                    assert_true(pos_equal(&p, &q));
                } else {
                    assert_non_null(strstr(err.msg, "TFEN field "));
                }
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_round_trip),
        cmocka_unit_test(test_rules_cases_round_trip),
        cmocka_unit_test(test_bad_tfens),
        cmocka_unit_test(test_bad_tfen_extra),
        cmocka_unit_test(test_four_fields),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_moved_marks),
        cmocka_unit_test(test_castling_letters),
        cmocka_unit_test(test_no_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
