/* test_records.c: game records, replay and TGN (docs/rules.md sections 9, 11, 13). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record.h"

#define DATA(name) TAVRELI_TEST_DATA "/" name

static const Options defaults = {0};

static const char *const seed_game = "1. g1-f3 f8-e7 2. d1-c1 g8-h6 3. c1-b2 0-0 4. b2(1)-g7x";

/* Replays movetext strictly, under the default options, from the position
 * of tfen; the status must be want. */
static void replay_strict(const char *tfen, const char *movetext, TvStatus want, ReplayResult *r, TvError *err)
{
    Position start;
    assert_int_equal(tfen_read(tfen, &start, NULL), TV_OK);
    tv_error_clear(err);
    TvStatus got = replay_movetext(&start, &defaults, movetext, TV_PARSE_STRICT, r, err);
    if (got != want)
        fail_msg("'%s': status %d, expected %d: %s", movetext, got, want, err->msg);
}

static bool has_warning(const ReplayResult *r, const char *needle)
{
    for (int i = 0; i < r->nwarnings; i++)
        if (strstr(r->warnings[i], needle))
            return true;
    return false;
}

static void test_published_lenient(void **state)
{
    (void)state;
    RecordList list;
    TvError err;
    tv_error_clear(&err);
    if (records_read_file(DATA("published.txt"), &list, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(list.count, 7);
    assert_string_equal(list.games[0].id, "game1");
    assert_int_equal(list.games[0].source_line, 7);
    int checkmates = 0;
    for (int i = 0; i < list.count; i++) {
        ReplayResult r;
        tv_error_clear(&err);
        if (replay_record(&list.games[i], TV_PARSE_LENIENT, &r, &err) != TV_OK)
            fail_msg("%s: %s", list.games[i].id, err.msg);
        assert_false(has_warning(&r, "does not give check"));
        assert_false(has_warning(&r, "does not mate"));
        assert_true(r.plies > 0);
        checkmates += r.state == TV_STATE_CHECKMATE;
        if (strcmp(list.games[i].id, "game1") == 0) {
            assert_int_equal(r.nwarnings, 1);
            assert_non_null(strstr(r.warnings[0], "b1 e1"));
            assert_non_null(strstr(r.warnings[0], "a space for the hyphen"));
        }
        if (strcmp(list.games[i].id, "game11") == 0) {
            assert_int_equal(r.nwarnings, 2);
            assert_true(has_warning(&r, "an upper-case file letter"));
        }
        replay_result_free(&r);
    }
    assert_true(checkmates >= 3);
    records_free(&list);
    assert_int_equal(list.count, 0);
}

static void test_published_strict(void **state)
{
    (void)state;
    RecordList list;
    TvError err;
    assert_int_equal(records_read_file(DATA("published.txt"), &list, &err), TV_OK);
    ReplayResult r;
    tv_error_clear(&err);
    assert_int_equal(replay_record(&list.games[0], TV_PARSE_STRICT, &r, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "game1: ply 39 (20. b1 e1): cannot read move 'b1 e1': a space for the hyphen "
                                 "(only a lenient reader mends this)");
    assert_int_equal(r.plies, 38);
    replay_result_free(&r);
    /* Game 11's upper-case file. */
    assert_string_equal(list.games[6].id, "game11");
    assert_int_equal(replay_record(&list.games[6], TV_PARSE_STRICT, &r, &err), TV_ERR_PARSE);
    assert_non_null(strstr(err.msg, "ply 31 (16. g3-F4): cannot read move 'g3-F4'"));
    replay_result_free(&r);
    records_free(&list);
}

static void test_seed_game(void **state)
{
    (void)state;
    ReplayResult r;
    TvError err;
    replay_strict(TV_START_TFEN, seed_game, TV_OK, &r, &err);
    assert_int_equal(r.plies, 7);
    assert_int_equal(r.state, TV_STATE_CHECKMATE);
    assert_int_equal(r.nwarnings, 0);
    char buf[TV_TFEN_MAX];
    assert_string_equal(tfen_write(&r.final, buf, sizeof buf),
                        "rnbq1rk1/prpnpbpq(bph)pb(Qpn)pr/7n/8/8/5N2/PR(BPN)PBPQPHPBPNPR/RN2KB1R b KQ - 0 4");
    replay_result_free(&r);

    /* Without move numbers, with a result token. */
    replay_strict(TV_START_TFEN, "g1-f3 f8-e7 d1-c1 g8-h6 c1-b2 0-0 b2(1)-g7# 1-0", TV_OK, &r, &err);
    assert_int_equal(r.state, TV_STATE_CHECKMATE);
    assert_int_equal(r.nwarnings, 0);
    replay_result_free(&r);

    /* A move after mate is an error. */
    replay_strict(TV_START_TFEN, "g1-f3 f8-e7 d1-c1 g8-h6 c1-b2 0-0 b2(1)-g7x g8-h8", TV_ERR_ILLEGAL, &r, &err);
    assert_string_equal(err.msg, "ply 8 (4... g8-h8): the game is already over (checkmate)");
    replay_result_free(&r);
}

static void test_replay_errors_and_warnings(void **state)
{
    (void)state;
    ReplayResult r;
    TvError err;
    replay_strict(TV_START_TFEN, "1. g1-f3 f8-e7 2. d1-c1 g8-h6 3. c1-b2 0-0 4. b1-b5", TV_ERR_ILLEGAL, &r, &err);
    assert_string_equal(err.msg, "ply 7 (4. b1-b5): illegal move 'b1-b5': the Horseman on b1 cannot reach b5");
    replay_result_free(&r);

    /* A '+' that does not check and a '#' that does not mate warn; an 'x'
     * that does not mate (resignation) does not. */
    replay_strict(TV_START_TFEN, "1. g1-f3+ f8-e7# 2. b1-c3x", TV_OK, &r, &err);
    assert_int_equal(r.nwarnings, 2);
    assert_string_equal(r.warnings[0], "ply 1 (1. g1-f3+): '+' but the move does not give check");
    assert_string_equal(r.warnings[1], "ply 2 (1... f8-e7#): '#' but the move does not mate");
    assert_int_equal(r.state, TV_STATE_ONGOING);
    replay_result_free(&r);

    /* Comments, annotations and numbers attached to moves. */
    replay_strict(TV_START_TFEN, "1.g1-f3!? {a comment} f8-e7 $1 2...", TV_OK, &r, &err);
    assert_int_equal(r.plies, 2);
    replay_result_free(&r);

    replay_strict(TV_START_TFEN, "1. g1-f3 1-0 f8-e7", TV_ERR_PARSE, &r, &err);
    replay_result_free(&r);
    replay_strict(TV_START_TFEN, "1. g1-f3 {open", TV_ERR_PARSE, &r, &err);
    replay_result_free(&r);

    /* Starting with Black to move. */
    replay_strict("4k3/8/8/8/8/8/8/R3K2R b KQ - 0 9", "9... e8-d7 10. 0-0 d7-d6 11. e1-e4", TV_ERR_ILLEGAL, &r, &err);
    assert_string_equal(err.msg, "ply 4 (11. e1-e4): illegal move 'e1-e4': no own stack on e1");
    replay_result_free(&r);
}

/* A result token or a glyph glued to the last move ("c8(1)-f5*", as
 * printed in published records): refused strictly, mended leniently with a
 * warning. */
static void test_glued_result_token(void **state)
{
    (void)state;
    ReplayResult r;
    TvError err;
    const char *glued = "1. g1-f3 f8-e7 2. d1-c1*";
    replay_strict(TV_START_TFEN, glued, TV_ERR_PARSE, &r, &err);
    replay_result_free(&r);
    Position start;
    Options o = {0};
    assert_int_equal(tfen_read(TV_START_TFEN, &start, &err), TV_OK);
    assert_int_equal(replay_movetext(&start, &o, glued, TV_PARSE_LENIENT, &r, &err), TV_OK);
    assert_int_equal(r.plies, 3);
    assert_int_equal(r.nwarnings, 1);
    assert_string_equal(r.warnings[0], "ply 3 (2. d1-c1): '*' glued to the move read as a token of its own");
    replay_result_free(&r);
    /* every result token, and a glyph; a move after a glued result is an error */
    const char *ok[] = {"g1-f3 f8-e71-0", "g1-f3 f8-e70-1", "g1-f3 f8-e71/2-1/2", "g1-f3$4 f8-e7", "g1-f3!?* "};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(replay_movetext(&start, &o, ok[i], TV_PARSE_LENIENT, &r, &err), TV_OK);
        assert_int_equal(r.nwarnings, 1);
        replay_result_free(&r);
    }
    assert_int_equal(replay_movetext(&start, &o, "g1-f3* f8-e7", TV_PARSE_LENIENT, &r, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "move 'f8-e7' after the result token");
    replay_result_free(&r);
}

static void test_repetition(void **state)
{
    (void)state;
    ReplayResult r;
    TvError err;
    const char *seven = "1. g1-f3 g8-f6 2. f3-g1 f6-g8 3. g1-f3 g8-f6 4. f3-g1";
    replay_strict(TV_START_TFEN, seven, TV_OK, &r, &err);
    assert_int_equal(r.state, TV_STATE_ONGOING);
    replay_result_free(&r);
    const char *eight = "1. g1-f3 g8-f6 2. f3-g1 f6-g8 3. g1-f3 g8-f6 4. f3-g1 f6-g8";
    replay_strict(TV_START_TFEN, eight, TV_OK, &r, &err);
    assert_int_equal(r.state, TV_STATE_REPETITION);
    assert_int_equal(r.plies, 8);
    replay_result_free(&r);
    char nine[128];
    snprintf(nine, sizeof nine, "%s 5. e2-e4", eight);
    replay_strict(TV_START_TFEN, nine, TV_ERR_ILLEGAL, &r, &err);
    assert_string_equal(err.msg, "ply 9 (5. e2-e4): the game is already over (repetition)");
    replay_result_free(&r);
    /* Castling rights count: the Warrior shuffle loses them, so the
     * position after it differs from the start. */
    replay_strict("r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1", "a1-a2 a8-a7 a2-a1 a7-a8 a1-a2 a8-a7 a2-a1 a7-a8", TV_OK, &r,
                  &err);
    assert_int_equal(r.state, TV_STATE_ONGOING);
    replay_result_free(&r);
}

static const char *const tgn_text =
    "[Event \"Test \\\"cup\\\"\"] [Site \"here\"]\n"
    "[Round \"7\"]\n"
    "[White \"baseline\"] [Black \"tuned\"] [Result \"1-0\"]\n"
    "[Variant \"tavreli\"] [Options \"slide_over_own=no enpassant=combatant ending=checkmate\"]\n"
    "\n"
    "1. g1-f3 {develops} f8-e7 2. d1-c1 g8-h6?! ; a line comment\n"
    "3. c1-b2 0-0 4. b2(1)-g7x 1-0\n"
    "\n"
    "[Event \"second\"]\n"
    "[TFEN \"4k3/8/8/8/8/8/8/R3K2R b KQ - 0 9\"]\n"
    "[Options \"ending=capture enpassant=any\"]\n"
    "9... e8-d7 10. 0-0 *\n"
    "[White \"third, no moves\"]\n";

static void test_tgn_read(void **state)
{
    (void)state;
    RecordList list;
    TvError err;
    tv_error_clear(&err);
    if (records_read_string(tgn_text, "inline.tgn", &list, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(list.count, 3);
    GameRecord *g = &list.games[0];
    assert_string_equal(g->id, "7");
    assert_int_equal(g->source_line, 1);
    assert_int_equal(g->ntags, 8);
    assert_string_equal(g->tags[0].key, "Event");
    assert_string_equal(g->tags[0].value, "Test \"cup\"");
    assert_string_equal(g->start_tfen, TV_START_TFEN);
    ReplayResult r;
    assert_int_equal(replay_record(g, TV_PARSE_STRICT, &r, &err), TV_OK);
    assert_int_equal(r.plies, 7);
    assert_int_equal(r.state, TV_STATE_CHECKMATE);
    replay_result_free(&r);

    g = &list.games[1];
    assert_string_equal(g->id, "second");
    assert_int_equal(g->source_line, 9);
    assert_string_equal(g->start_tfen, "4k3/8/8/8/8/8/8/R3K2R b KQ - 0 9");
    assert_int_equal(g->options.ending, TV_ENDING_CAPTURE);
    assert_int_equal(g->options.enpassant, TV_EP_ANY);
    assert_false(g->options.slide_over_own);
    if (replay_record(g, TV_PARSE_STRICT, &r, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(r.plies, 2);
    replay_result_free(&r);

    g = &list.games[2];
    assert_string_equal(g->id, "game 3");
    assert_int_equal(g->source_line, 13);
    assert_string_equal(g->movetext, "");
    records_free(&list);
}

static void expect_read_error(const char *text, const char *want)
{
    RecordList list;
    TvError err;
    tv_error_clear(&err);
    assert_int_not_equal(records_read_string(text, "bad.tgn", &list, &err), TV_OK);
    if (strcmp(err.msg, want) != 0)
        fail_msg("got:      %s\nexpected: %s", err.msg, want);
    assert_string_equal(err.file, "bad.tgn");
    assert_int_equal(list.count, 0);
}

static void test_read_errors(void **state)
{
    (void)state;
    expect_read_error("[Event \"a\"]\n[Result \"*\"\n1. e2-e4 *\n",
                      "bad.tgn:2: tag Result: expected ']' after the value");
    expect_read_error("[Event \"a\"]\n\n[TFEN \"8/8/8/8/8/8/8/8 w KQ - 0 1\"]\n",
                      "bad.tgn:3: tag TFEN: TFEN field 3 (castling), char 19: castling right 'K' but the White "
                      "Wizard is not alone on e1");
    expect_read_error("[Options \"ending=draw\"]\n",
                      "bad.tgn:1: tag Options: bad value 'draw' for option ending (checkmate or capture)");
    expect_read_error("[Event \"a\"]\n1. e2-e4 {never\nclosed\n",
                      "bad.tgn:2: unclosed comment '{'");
    expect_read_error("[Event \"a]\n", "bad.tgn:1: tag Event: unclosed value");
    expect_read_error("[Variant \"chess\"]\n", "bad.tgn:1: tag Variant: 'chess' is not tavreli");
    expect_read_error("# comment\ngame1 | fine | e2-e4\n\nno bars here\n",
                      "bad.tgn:4: expected 'id | description | movetext'");
    expect_read_error(" | no id | e2-e4\n", "bad.tgn:1: a game without an id");

    RecordList list;
    TvError err;
    assert_int_equal(records_read_file(DATA("no-such-file.txt"), &list, &err), TV_ERR_IO);
    assert_non_null(strstr(err.msg, "no-such-file.txt"));
}

static void test_tgn_write_read_back(void **state)
{
    (void)state;
    RecordList list;
    TvError err;
    assert_int_equal(records_read_file(DATA("published.txt"), &list, &err), TV_OK);
    for (int i = 0; i < list.count; i++) {
        ReplayResult r;
        assert_int_equal(replay_record(&list.games[i], TV_PARSE_LENIENT, &r, &err), TV_OK);
        Position start;
        assert_int_equal(tfen_read(list.games[i].start_tfen, &start, NULL), TV_OK);
        char *tgn = record_write_tgn(&start, &list.games[i].options, r.moves, r.plies, list.games[i].tags,
                                     list.games[i].ntags, "1-0", NULL);
        assert_non_null(tgn);
        /* Movetext lines below 80 characters. */
        const char *movetext = strstr(tgn, "\n\n");
        assert_non_null(movetext);
        for (const char *line = movetext + 2; *line;) {
            const char *eol = strchr(line, '\n');
            assert_non_null(eol);
            assert_true(eol - line < 80);
            line = eol + 1;
        }
        assert_non_null(strstr(tgn, "[Variant \"tavreli\"]\n"));
        assert_non_null(strstr(tgn, "[Result \"1-0\"]\n"));
        assert_non_null(strstr(tgn, "[Options \"slide_over_own=no enpassant=combatant ending=checkmate\"]\n"));
        assert_null(strstr(tgn, "[TFEN "));
        assert_non_null(strstr(tgn, "1. "));
        RecordList back;
        if (records_read_string(tgn, "written.tgn", &back, &err) != TV_OK)
            fail_msg("%s\n%s", err.msg, tgn);
        assert_int_equal(back.count, 1);
        ReplayResult r2;
        if (replay_record(&back.games[0], TV_PARSE_STRICT, &r2, &err) != TV_OK)
            fail_msg("%s\n%s", err.msg, tgn);
        assert_int_equal(r2.plies, r.plies);
        assert_memory_equal(r2.moves, r.moves, (size_t)r.plies * sizeof(Move));
        /* The writer's suffixes are right: no warnings on reading back. */
        assert_int_equal(r2.nwarnings, 0);
        assert_int_equal(r2.state, r.state);
        replay_result_free(&r2);
        records_free(&back);
        free(tgn);
        replay_result_free(&r);
    }
    records_free(&list);

    /* From a TFEN with Black to move, under other options. */
    Position start;
    assert_int_equal(tfen_read("4k3/8/8/8/8/8/8/R3K2R b KQ - 0 9", &start, NULL), TV_OK);
    Options o = {.slide_over_own = true, .enpassant = TV_EP_ANY, .ending = TV_ENDING_CHECKMATE};
    ReplayResult r;
    assert_int_equal(replay_movetext(&start, &o, "9... e8-d7 10. 0-0 d7-d6 11. f1-f6+", TV_PARSE_STRICT, &r, &err),
                     TV_OK);
    RecordTag tags[1] = {{"White", "someone"}};
    char *tgn = record_write_tgn(&start, &o, r.moves, r.plies, tags, 1, NULL, NULL);
    assert_non_null(tgn);
    assert_non_null(strstr(tgn, "[White \"someone\"]\n[Result \"*\"]\n"));
    assert_non_null(strstr(tgn, "[TFEN \"4k3/8/8/8/8/8/8/R3K2R b KQ - 0 9\"]\n"));
    assert_non_null(strstr(tgn, "\n9... e8-d7 10. 0-0 d7-d6 11. f1-f6+ *\n"));
    RecordList back;
    assert_int_equal(records_read_string(tgn, "w.tgn", &back, &err), TV_OK);
    assert_true(back.games[0].options.slide_over_own);
    ReplayResult r2;
    assert_int_equal(replay_record(&back.games[0], TV_PARSE_STRICT, &r2, &err), TV_OK);
    assert_int_equal(r2.plies, 4);
    assert_memory_equal(r2.moves, r.moves, 4 * sizeof(Move));
    replay_result_free(&r2);
    records_free(&back);
    free(tgn);
    replay_result_free(&r);
}

static void test_options(void **state)
{
    (void)state;
    Options o;
    TvError err;
    char buf[128];
    tv_error_clear(&err);
    assert_int_equal(rule_options_parse("", &o, &err), TV_OK);
    assert_false(o.slide_over_own);
    assert_int_equal(o.enpassant, TV_EP_COMBATANT);
    assert_int_equal(o.ending, TV_ENDING_CHECKMATE);
    assert_string_equal(rule_options_to_str(&o, buf, sizeof buf),
                        "slide_over_own=no enpassant=combatant ending=checkmate");
    assert_int_equal(rule_options_parse("ending=capture  slide_over_own=yes\tenpassant=any", &o, &err), TV_OK);
    assert_true(o.slide_over_own);
    assert_int_equal(o.enpassant, TV_EP_ANY);
    assert_int_equal(o.ending, TV_ENDING_CAPTURE);
    assert_string_equal(rule_options_to_str(&o, buf, sizeof buf), "slide_over_own=yes enpassant=any ending=capture");
    Options back;
    assert_int_equal(rule_options_parse(buf, &back, &err), TV_OK);
    assert_memory_equal(&o, &back, sizeof o);

    assert_int_equal(rule_options_parse("castling=yes", &o, &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "unknown option 'castling' (known: slide_over_own, enpassant, ending)");
    assert_int_equal(rule_options_parse("slide_over_own=maybe", &o, &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "bad value 'maybe' for option slide_over_own (no or yes; also true/false, on/off, 1/0)");
    assert_int_equal(rule_options_parse("enpassant=all", &o, &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "bad value 'all' for option enpassant (combatant or any)");
    assert_int_equal(rule_options_parse("ending", &o, &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "option 'ending' has no value (write name=value)");
    assert_int_equal(rule_options_parse("ending=capture ending=checkmate", &o, &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "option ending given twice");

    o = (Options){0};
    assert_int_equal(rule_options_set(&o, "enpassant", "any", &err), TV_OK);
    assert_int_equal(o.enpassant, TV_EP_ANY);
    assert_int_equal(rule_options_set(&o, "ending", "", &err), TV_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_lenient),
        cmocka_unit_test(test_published_strict),
        cmocka_unit_test(test_seed_game),
        cmocka_unit_test(test_replay_errors_and_warnings),
        cmocka_unit_test(test_glued_result_token),
        cmocka_unit_test(test_repetition),
        cmocka_unit_test(test_tgn_read),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_tgn_write_read_back),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
