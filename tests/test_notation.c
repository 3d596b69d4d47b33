/* test_notation.c: move notation (docs/rules.md section 11). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "notation.h"
#include "data_lines.h"
#include "tfen.h"

static const Options defaults = {0};

static void load(const char *tfen, Position *p)
{
    TvError err;
    tv_error_clear(&err);
    if (tfen_read_arg(tfen, p, &err) != TV_OK)
        fail_msg("cannot read %s: %s", tfen, err.msg);
}

static Square sq(const char *s) { return sq_make(s[0] - 'a', s[1] - '1'); }

/* Parses text in mode and expects success; returns the move. */
static Move parse_ok(const Position *p, const char *text, int mode, MoveInfo *info)
{
    Move m = TV_MOVE_NONE;
    TvError err;
    tv_error_clear(&err);
    MoveInfo local;
    if (move_parse(p, &defaults, text, mode, &m, info ? info : &local, &err) != TV_OK)
        fail_msg("move_parse('%s') failed: %s", text, err.msg);
    assert_true(movegen_is_legal(p, &defaults, m));
    return m;
}

static void expect_str(const Position *p, Move m, bool suffix, const char *want)
{
    char buf[TV_MOVE_STR_MAX];
    assert_string_equal(move_to_str(p, &defaults, m, suffix, buf, sizeof buf), want);
}

static void test_write_forms(void **state)
{
    (void)state;
    Position p;
    load("startpos", &p);
    expect_str(&p, move_make(sq("g1"), sq("f3"), 1, TV_MOVE_NORMAL), true, "g1-f3");
    expect_str(&p, move_make(sq("e2"), sq("e4"), 1, TV_MOVE_NORMAL), false, "e2-e4");

    /* The seed game before 4. b2(1)-g7x: a split that mates. */
    load("rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4", &p);
    Move mate = move_make(sq("b2"), sq("g7"), 1, TV_MOVE_NORMAL);
    assert_true(movegen_is_legal(&p, &defaults, mate));
    expect_str(&p, mate, false, "b2(1)-g7");
    expect_str(&p, mate, true, "b2(1)-g7x");
    expect_str(&p, move_make(sq("b2"), sq("c3"), 3, TV_MOVE_NORMAL), true, "b2-c3");
    expect_str(&p, move_make(sq("b2"), sq("c3"), 2, TV_MOVE_NORMAL), true, "b2(2)-c3");

    /* Castling. */
    load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", &p);
    Move s = parse_ok(&p, "0-0", TV_PARSE_STRICT, NULL);
    Move l = parse_ok(&p, "0-0-0", TV_PARSE_STRICT, NULL);
    assert_int_equal(move_special(s), TV_MOVE_CASTLE_SHORT);
    assert_int_equal(move_special(l), TV_MOVE_CASTLE_LONG);
    expect_str(&p, s, true, "0-0");
    expect_str(&p, l, true, "0-0-0");

    /* Check: e7-f8 promotes to H~ and checks h8. */
    load("3r1n1k/4PH3/8/8/8/8/8/K7 w - - 0 1", &p);
    Move chk = parse_ok(&p, "e7-f8", TV_PARSE_STRICT, NULL);
    expect_str(&p, chk, true, "e7-f8+");
    expect_str(&p, chk, false, "e7-f8");
    expect_str(&p, parse_ok(&p, "e7-e8", TV_PARSE_STRICT, NULL), true, "e7-e8");
}

static void test_read_forms(void **state)
{
    (void)state;
    Position p;
    MoveInfo info;
    load("startpos", &p);
    Move m = parse_ok(&p, "g1-f3", TV_PARSE_STRICT, &info);
    assert_int_equal(m, move_make(sq("g1"), sq("f3"), 1, TV_MOVE_NORMAL));
    assert_false(info.check || info.mate || info.win || info.mended);
    assert_string_equal(info.annotation, "");
    /* An explicit (k) equal to the height. */
    assert_int_equal(parse_ok(&p, "g1(1)-f3", TV_PARSE_STRICT, NULL), m);

    load("rnbq1rk1/prpnpbpq(bph)pbpnpr/7n/8/8/5N2/PR(QBPN)PBPQPHPBPNPR/RN2KB1R w KQ - 6 4", &p);
    assert_int_equal(parse_ok(&p, "b2(1)-g7x", TV_PARSE_STRICT, &info), move_make(sq("b2"), sq("g7"), 1, 0));
    assert_true(info.win);
    assert_int_equal(parse_ok(&p, "b2(1)-g7#", TV_PARSE_STRICT, &info), move_make(sq("b2"), sq("g7"), 1, 0));
    assert_true(info.mate);
    assert_int_equal(parse_ok(&p, "b2-c3", TV_PARSE_STRICT, NULL), move_make(sq("b2"), sq("c3"), 3, 0));
    assert_int_equal(parse_ok(&p, "b2(3)-c3", TV_PARSE_STRICT, NULL), move_make(sq("b2"), sq("c3"), 3, 0));
    assert_int_equal(parse_ok(&p, "b2(2)-c3", TV_PARSE_STRICT, NULL), move_make(sq("b2"), sq("c3"), 2, 0));

    /* Castling in every written form. */
    load("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", &p);
    Move s = parse_ok(&p, "0-0", TV_PARSE_STRICT, NULL);
    assert_int_equal(parse_ok(&p, "O-O", TV_PARSE_STRICT, NULL), s);
    assert_int_equal(parse_ok(&p, "e1-g1", TV_PARSE_STRICT, NULL), s);
    assert_int_equal(parse_ok(&p, "0-0+", TV_PARSE_STRICT, &info), s);
    assert_true(info.check);
    Move l = parse_ok(&p, "0-0-0", TV_PARSE_STRICT, NULL);
    assert_int_equal(parse_ok(&p, "O-O-O", TV_PARSE_STRICT, NULL), l);
    assert_int_equal(parse_ok(&p, "e1-c1", TV_PARSE_STRICT, NULL), l);
    load("r3k2r/8/8/8/8/8/8/1R2K3 b kq - 0 1", &p);
    assert_int_equal(move_special(parse_ok(&p, "e8-g8", TV_PARSE_STRICT, NULL)), TV_MOVE_CASTLE_SHORT);
    assert_int_equal(move_special(parse_ok(&p, "e8-c8", TV_PARSE_STRICT, NULL)), TV_MOVE_CASTLE_LONG);
    assert_int_equal(move_special(parse_ok(&p, "0-0", TV_PARSE_STRICT, NULL)), TV_MOVE_CASTLE_SHORT);

    /* En passant is whichever legal move has that from/k/to. */
    load("7k/8/8/8/3pqPHpb2/4N3/8/K7 b - e3 0 1", &p);
    assert_int_equal(move_special(parse_ok(&p, "d4-e3", TV_PARSE_STRICT, NULL)), TV_MOVE_ENPASSANT);
    load("3k4/8/8/8/3(pqR)PHpb2/8/8/K7 b - e3 0 1", &p);
    assert_int_equal(move_special(parse_ok(&p, "d4-e3", TV_PARSE_STRICT, NULL)), TV_MOVE_ENPASSANT);
    assert_int_equal(move_k(parse_ok(&p, "d4(2)-e3", TV_PARSE_STRICT, NULL)), 2);
}

static void test_e1_g1_ordinary(void **state)
{
    (void)state;
    Position p;
    TvError err;
    Move m;
    tv_error_clear(&err);
    /* A Warrior on e1: e1-g1 is an ordinary move. */
    load("4k3/8/8/8/8/8/8/K3R3 w - - 0 1", &p);
    m = parse_ok(&p, "e1-g1", TV_PARSE_STRICT, NULL);
    assert_int_equal(move_special(m), TV_MOVE_NORMAL);
    assert_int_equal(move_k(m), 1);
    /* Castling short is illegal (f1 attacked): e1-g1 is then an ordinary,
     * impossible Wizard move, and 0-0 says why castling is illegal. */
    load("r3kr2/8/8/8/8/8/b7/R3K2R w KQq - 0 1", &p);
    assert_int_equal(move_parse(&p, &defaults, "e1-g1", TV_PARSE_STRICT, &m, NULL, &err), TV_ERR_ILLEGAL);
    assert_string_equal(err.msg, "illegal move 'e1-g1': the Wizard on e1 cannot reach g1");
    assert_int_equal(move_parse(&p, &defaults, "0-0", TV_PARSE_STRICT, &m, NULL, &err), TV_ERR_ILLEGAL);
    /* Long castling is legal there although b1 is attacked. */
    assert_int_equal(move_special(parse_ok(&p, "e1-c1", TV_PARSE_STRICT, NULL)), TV_MOVE_CASTLE_LONG);
}

static void test_annotations(void **state)
{
    (void)state;
    static const char *const marks[] = {"!", "!!", "?", "??", "!?", "?!"};
    Position p;
    MoveInfo info;
    char text[32];
    load("startpos", &p);
    Move want = move_make(sq("b1"), sq("c3"), 1, 0);
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        snprintf(text, sizeof text, "b1-c3%s", marks[i]);
        assert_int_equal(parse_ok(&p, text, TV_PARSE_STRICT, &info), want);
        assert_string_equal(info.annotation, marks[i]);
        assert_false(info.check);
        snprintf(text, sizeof text, "b1-c3+%s", marks[i]);
        assert_int_equal(parse_ok(&p, text, TV_PARSE_STRICT, &info), want);
        assert_string_equal(info.annotation, marks[i]);
        assert_true(info.check);
    }
}

static void expect_slip(const char *tfen, const char *text, const char *mended)
{
    Position p;
    Move m;
    MoveInfo info;
    TvError err;
    tv_error_clear(&err);
    load(tfen, &p);
    if (move_parse(&p, &defaults, text, TV_PARSE_STRICT, &m, &info, &err) != TV_ERR_PARSE)
        fail_msg("strict mode accepted the slip '%s'", text);
    assert_non_null(strstr(err.msg, "only a lenient reader mends this"));
    Move l = parse_ok(&p, text, TV_PARSE_LENIENT, &info);
    assert_true(info.mended);
    assert_non_null(strstr(info.warning, text));
    assert_int_equal(l, parse_ok(&p, mended, TV_PARSE_STRICT, NULL));
    char buf[TV_MOVE_STR_MAX];
    assert_string_equal(move_to_str(&p, &defaults, l, false, buf, sizeof buf), mended);
}

static void test_slips(void **state)
{
    (void)state;
    /* Game 11 of published.txt: g3-F4 and F4-g5. */
    expect_slip("4k3/8/8/8/8/6K1/8/8 w - - 0 1", "g3-F4", "g3-f4");
    expect_slip("4k3/8/8/8/5K2/8/8/8 w - - 0 1", "F4-f5", "f4-f5");
    expect_slip("startpos", "G1-F3", "g1-f3");
    /* Cyrillic с (U+0441) and С (U+0421) for c. */
    expect_slip("startpos", "\xD1\x81" "2-\xD1\x81" "4", "c2-c4");
    expect_slip("startpos", "\xD0\xA1" "2-c3", "c2-c3");
    expect_slip("startpos", "b1-\xD1\x81" "3", "b1-c3");
    /* A space for the hyphen (game 1: b1 e1). */
    expect_slip("startpos", "b1 c3", "b1-c3");
    expect_slip("startpos", "B1 c3", "b1-c3");
    /* Lenient mode does not accept everything. */
    Position p;
    Move m;
    TvError err;
    load("startpos", &p);
    assert_int_equal(move_parse(&p, &defaults, "b1  c3", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "b1 - c3", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "I1-c3", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "b1 c4", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_ILLEGAL);
    assert_string_equal(err.msg, "illegal move 'b1 c4': the Horseman on b1 cannot reach c4");
    /* No mending, no warning. */
    MoveInfo info;
    parse_ok(&p, "b1-c3", TV_PARSE_LENIENT, &info);
    assert_false(info.mended);
    assert_string_equal(info.warning, "");
}

static void bad_move_line(char **cols, int ncols, int lineno, void *ctx)
{
    (void)ctx;
    if (ncols != 3)
        fail_msg("bad_moves.tsv line %d: expected 3 columns", lineno);
    Position p;
    Move m;
    TvError err;
    tv_error_clear(&err);
    load(cols[0], &p);
    TvStatus st = move_parse(&p, &defaults, cols[1], TV_PARSE_STRICT, &m, NULL, &err);
    TvStatus want = strncmp(cols[2], "cannot read", 11) == 0 ? TV_ERR_PARSE : TV_ERR_ILLEGAL;
    if (st != want || strcmp(err.msg, cols[2]) != 0)
        fail_msg("bad_moves.tsv line %d: '%s'\n  got:      %s (%s)\n  expected: %s", lineno, cols[1],
                 st == TV_OK ? "accepted" : err.msg, tv_status_name(st), cols[2]);
}

static void test_bad_moves(void **state)
{
    (void)state;
    assert_true(for_each_line(DATA("bad_moves.tsv"), bad_move_line, NULL) >= 30);
}

static void test_garbage(void **state)
{
    (void)state;
    Position p;
    Move m;
    TvError err;
    load("startpos", &p);
    char big[600];
    memset(big, 'e', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(move_parse(&p, &defaults, big, TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, NULL, TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "\xD1", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "b1 \xD1", TV_PARSE_LENIENT, &m, NULL, &err), TV_ERR_PARSE);
    assert_int_equal(move_parse(&p, &defaults, "e2(99)-e4", TV_PARSE_STRICT, &m, NULL, &err), TV_ERR_ILLEGAL);
    assert_string_equal(err.msg, "illegal move 'e2(99)-e4': k=99 but the stack on e2 has 1 tavrel");
    /* A NULL err and info are allowed. */
    assert_int_equal(move_parse(&p, &defaults, "e2-e5", TV_PARSE_STRICT, &m, NULL, NULL), TV_ERR_ILLEGAL);
}

/* move_parse(move_to_str(m)) == m for every legal move, with and without
 * the suffix. */
static void round_trip_line(char **cols, int ncols, int lineno, void *ctx)
{
    (void)ncols;
    int *total = ctx;
    Position p;
    load(cols[0], &p);
    MoveList list;
    movegen_legal(&p, &defaults, &list);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        for (int suffix = 0; suffix < 2; suffix++) {
            char buf[TV_MOVE_STR_MAX];
            move_to_str(&p, &defaults, m, suffix, buf, sizeof buf);
            Move back = TV_MOVE_NONE;
            MoveInfo info;
            TvError err;
            tv_error_clear(&err);
            if (move_parse(&p, &defaults, buf, TV_PARSE_STRICT, &back, &info, &err) != TV_OK)
                fail_msg("rules_cases.tsv line %d: '%s' not read back: %s", lineno, buf, err.msg);
            if (back != m)
                fail_msg("rules_cases.tsv line %d: '%s' read back as another move", lineno, buf);
            (*total)++;
        }
    }
}

static void test_all_moves_round_trip(void **state)
{
    (void)state;
    int total = 0;
    for_each_line(DATA("rules_cases.tsv"), round_trip_line, &total);
    assert_true(total > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_forms),
        cmocka_unit_test(test_read_forms),
        cmocka_unit_test(test_e1_g1_ordinary),
        cmocka_unit_test(test_annotations),
        cmocka_unit_test(test_slips),
        cmocka_unit_test(test_bad_moves),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_all_moves_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
