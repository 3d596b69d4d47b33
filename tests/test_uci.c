/* test_uci.c: the codec of the engine protocol (core/uci.h, docs/protocol.md):
 * every line the engine and the harness exchange is written and read back
 * through one module; bad lines get their exact errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record.h"
#include "search.h"
#include "uci.h"

static const Options defaults = {0};

static void test_verb(void **state)
{
    (void)state;
    char verb[16];
    assert_string_equal(uci_verb("  go depth 3\r\n", verb, sizeof verb), "depth 3\r\n");
    assert_string_equal(verb, "go");
    assert_string_equal(uci_verb("uci\n", verb, sizeof verb), "");
    assert_string_equal(verb, "uci");
    assert_string_equal(uci_verb("", verb, sizeof verb), "");
    assert_string_equal(verb, "");
}

static void test_go_round_trip(void **state)
{
    (void)state;
    UciGo go, back;
    uci_go_init(&go);
    go.wtime_ms = 60000;
    go.btime_ms = 59000;
    go.winc_ms = 100;
    go.binc_ms = 100;
    go.movestogo = 40;
    go.nodes = 5000000000LL;
    StrBuf b = {0};
    uci_go_format(&go, &b);
    assert_string_equal(strbuf_str(&b), "go wtime 60000 btime 59000 winc 100 binc 100 movestogo 40 nodes 5000000000");
    TvError err;
    assert_int_equal(uci_go_parse(strbuf_str(&b) + 3, &back, &err), TV_OK);
    assert_int_equal(back.wtime_ms, go.wtime_ms);
    assert_int_equal(back.btime_ms, go.btime_ms);
    assert_int_equal(back.winc_ms, go.winc_ms);
    assert_int_equal(back.binc_ms, go.binc_ms);
    assert_int_equal(back.movestogo, go.movestogo);
    assert_int_equal(back.movetime_ms, -1);
    assert_int_equal(back.depth, -1);
    assert_int_equal(back.nodes, go.nodes);
    assert_false(back.infinite);
    strbuf_free(&b);

    assert_int_equal(uci_go_parse("infinite", &back, &err), TV_OK);
    assert_true(back.infinite);
    assert_int_equal(back.depth, -1);
    assert_int_equal(uci_go_parse("depth 7 movetime 250", &back, &err), TV_OK);
    assert_int_equal(back.depth, 7);
    assert_int_equal(back.movetime_ms, 250);
    /* a clock the harness let run below zero reads as 0 */
    assert_int_equal(uci_go_parse("wtime -20 btime 5", &back, &err), TV_OK);
    assert_int_equal(back.wtime_ms, 0);
}

static void test_go_errors(void **state)
{
    (void)state;
    UciGo go;
    TvError err;
    assert_int_equal(uci_go_parse("depth", &go, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "go: 'depth' needs a whole number from 0 to 2147483647");
    assert_int_equal(uci_go_parse("depth -1", &go, &err), TV_ERR_PARSE);
    assert_int_equal(uci_go_parse("movetime 3000000000", &go, &err), TV_ERR_PARSE);
    assert_int_equal(uci_go_parse("nodes x", &go, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "go: 'nodes' needs a whole number from 0 to 9223372036854775807");
}

/* Words UCI has but this protocol does not support, and words UCI does not
 * have, are skipped (as UCI asks) and listed, so that the engine can say
 * what it ignored and still answer: an error here left the go unanswered. */
static void test_go_ignored(void **state)
{
    (void)state;
    UciGo go;
    TvError err;
    assert_int_equal(uci_go_parse("searchmoves g1-f3 b1-a3 depth 3", &go, &err), TV_OK);
    assert_string_equal(go.ignored, "searchmoves g1-f3 b1-a3");
    assert_int_equal(go.depth, 3);
    /* mate is read (tavreli uci searches 2N - 1 plies for it) */
    assert_int_equal(uci_go_parse("wtime 100 mate 4 btime 200", &go, &err), TV_OK);
    assert_string_equal(go.ignored, "");
    assert_int_equal(go.mate, 4);
    assert_int_equal(go.wtime_ms, 100);
    assert_int_equal(go.btime_ms, 200);
    StrBuf f = {0};
    uci_go_format(&go, &f);
    assert_string_equal(strbuf_str(&f), "go wtime 100 btime 200 mate 4");
    strbuf_free(&f);
    assert_int_equal(uci_go_parse("ponder fast movetime 5 searchmoves", &go, &err), TV_OK);
    assert_string_equal(go.ignored, "ponder fast searchmoves");
    assert_int_equal(go.movetime_ms, 5);
    assert_int_equal(uci_go_parse("depth 2", &go, &err), TV_OK);
    assert_string_equal(go.ignored, "");
    /* a long list is cut, never overflows */
    StrBuf b = {0};
    strbuf_add(&b, "searchmoves");
    for (int i = 0; i < 200; i++)
        strbuf_add(&b, " g1-f3");
    strbuf_add(&b, " nodes 7");
    assert_int_equal(uci_go_parse(strbuf_str(&b), &go, &err), TV_OK);
    assert_int_equal(go.nodes, 7);
    assert_true(strlen(go.ignored) < sizeof go.ignored);
    assert_non_null(strstr(go.ignored, "..."));
    strbuf_free(&b);
}

static void test_position(void **state)
{
    (void)state;
    const char *moves[] = {"g1-f3", "f8-e7", "d1-c1"};
    StrBuf b = {0};
    uci_position_format(NULL, moves, 3, &b);
    assert_string_equal(strbuf_str(&b), "position startpos moves g1-f3 f8-e7 d1-c1");
    Position p, q;
    uint64_t hist[8];
    int n;
    TvError err;
    assert_int_equal(uci_position_parse(strbuf_str(&b) + 9, &defaults, &p, hist, 8, &n, &err), TV_OK);
    assert_int_equal(n, 3);
    /* the same position by hand, and the hashes of the positions before it */
    TvError e2;
    ReplayResult r;
    Position start;
    tfen_read_arg("startpos", &start, NULL);
    assert_int_equal(replay_movetext(&start, &defaults, "g1-f3 f8-e7 d1-c1", TV_PARSE_STRICT, &r, &e2), TV_OK);
    assert_int_equal(p.hash, r.final.hash);
    assert_int_equal(hist[0], start.hash);
    replay_result_free(&r);
    strbuf_free(&b);

    /* from a TFEN, with and without moves */
    char tfen[TV_TFEN_MAX];
    tfen_write(&p, tfen, sizeof tfen);
    uci_position_format(tfen, NULL, 0, &b);
    assert_int_equal(uci_position_parse(strbuf_str(&b) + 9, &defaults, &q, NULL, 0, NULL, &err), TV_OK);
    assert_int_equal(q.hash, p.hash);
    strbuf_free(&b);
    const char *more[] = {"g8-h6"};
    uci_position_format(tfen, more, 1, &b);
    assert_int_equal(uci_position_parse(strbuf_str(&b) + 9, &defaults, &q, hist, 8, &n, &err), TV_OK);
    assert_int_equal(n, 1);
    assert_int_equal(hist[0], p.hash);
    strbuf_free(&b);
    /* "startpos" as the TFEN means the start position */
    uci_position_format("startpos", NULL, 0, &b);
    assert_string_equal(strbuf_str(&b), "position startpos");
    strbuf_free(&b);
}

static void test_position_errors(void **state)
{
    (void)state;
    Position p;
    TvError err;
    assert_int_equal(uci_position_parse("", &defaults, &p, NULL, 0, NULL, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "position: expected 'startpos' or 'tfen TFEN'");
    assert_int_equal(uci_position_parse("fen x", &defaults, &p, NULL, 0, NULL, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "position: expected 'startpos' or 'tfen TFEN', not 'fen'");
    assert_int_equal(uci_position_parse("tfen moves e2-e4", &defaults, &p, NULL, 0, NULL, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "position: no TFEN after 'tfen'");
    assert_int_equal(uci_position_parse("startpos e2-e4", &defaults, &p, NULL, 0, NULL, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "position: expected 'moves' after the position, not 'e2-e4'");
    assert_int_equal(uci_position_parse("startpos moves g1-f3 e2-e5", &defaults, &p, NULL, 0, NULL, &err),
                     TV_ERR_ILLEGAL);
    assert_non_null(strstr(err.msg, "position: move 2: illegal move 'e2-e5'"));
    assert_int_equal(uci_position_parse("startpos moves zz", &defaults, &p, NULL, 0, NULL, &err), TV_ERR_PARSE);
    assert_non_null(strstr(err.msg, "position: move 1: cannot read move 'zz'"));
    /* a failed parse leaves the position as it was (never half-way) */
    Position before, start;
    tfen_read_arg("startpos", &start, NULL);
    before = start;
    p = start;
    assert_int_equal(uci_position_parse("startpos moves g1-f3 g8-h6 zz", &defaults, &p, NULL, 0, NULL, &err),
                     TV_ERR_PARSE);
    assert_memory_equal(&p, &before, sizeof p);
    assert_int_equal(uci_position_plies("startpos moves g1-f3 g8-h6\n"), 4);
    assert_int_equal(uci_position_plies(""), 0);
}

static void test_scores(void **state)
{
    (void)state;
    bool mate;
    int v;
    uci_score_to_uci(35, &mate, &v);
    assert_false(mate);
    assert_int_equal(v, 35);
    uci_score_to_uci(SCORE_MATE - 1, &mate, &v); /* mates with its next move */
    assert_true(mate);
    assert_int_equal(v, 1);
    uci_score_to_uci(SCORE_MATE - 5, &mate, &v); /* in 3 moves */
    assert_int_equal(v, 3);
    uci_score_to_uci(-(SCORE_MATE - 4), &mate, &v); /* mated in 2 */
    assert_true(mate);
    assert_int_equal(v, -2);
    /* and back: every mate distance survives the round trip */
    for (int plies = 1; plies < 60; plies++) {
        int s = plies % 2 ? SCORE_MATE - plies : -(SCORE_MATE - plies);
        uci_score_to_uci(s, &mate, &v);
        assert_int_equal(uci_score_from_uci(mate, v), s);
    }
    assert_int_equal(uci_score_from_uci(false, -123), -123);
    assert_int_equal(uci_score_from_uci(false, 1000000), SCORE_MATE_BOUND);
}

static void test_info(void **state)
{
    (void)state;
    const char *pv[] = {"d1-e2", "b8-c6"};
    StrBuf b = {0};
    uci_info_format(6, 12, 616967, 786, pv, 2, &b);
    assert_string_equal(strbuf_str(&b), "info depth 6 score cp 12 nodes 616967 nps 784945 time 786 pv d1-e2 b8-c6");
    UciInfo in;
    uci_info_parse(strbuf_str(&b) + 5, &in);
    assert_int_equal(in.depth, 6);
    assert_true(in.has_score);
    assert_int_equal(in.score, 12);
    assert_int_equal(in.nodes, 616967);
    assert_int_equal(in.time_ms, 786);
    assert_int_equal(in.pv_words, 2);
    strbuf_free(&b);
    uci_info_format(3, SCORE_MATE - 3, 100, 0, NULL, 0, &b);
    assert_string_equal(strbuf_str(&b), "info depth 3 score mate 2 nodes 100 nps 100000 time 0");
    uci_info_parse(strbuf_str(&b) + 5, &in);
    assert_int_equal(in.score, SCORE_MATE - 3);
    strbuf_free(&b);

    /* other engines' words are skipped; string ends the line; bounds are kept */
    uci_info_parse("multipv 1 depth 9 seldepth 14 score cp -40 upperbound hashfull 12 currmove e2-e4 nodes 77 "
                   "string depth 99",
                   &in);
    assert_int_equal(in.depth, 9);
    assert_int_equal(in.seldepth, 14);
    assert_int_equal(in.score, -40);
    assert_true(in.upperbound);
    assert_int_equal(in.nodes, 77);
    /* garbage never fails */
    uci_info_parse("depth x score banana nodes -1 zzz", &in);
    assert_int_equal(in.depth, -1);
    assert_false(in.has_score);
    assert_int_equal(in.nodes, -1);

    char m[16];
    assert_true(uci_bestmove_parse("b2(1)-g7 ponder e7-e5", m, sizeof m));
    assert_string_equal(m, "b2(1)-g7");
    assert_false(uci_bestmove_parse("  ", m, sizeof m));
}

static void test_options(void **state)
{
    (void)state;
    UciOption o, back;
    TvError err;
    assert_int_equal(uci_option_parse("name Hash type spin default 16 min 1 max 4096", &o, &err), TV_OK);
    assert_string_equal(o.name, "Hash");
    assert_int_equal(o.type, UCI_OPT_SPIN);
    assert_string_equal(o.def, "16");
    assert_int_equal(o.min, 1);
    assert_int_equal(o.max, 4096);
    StrBuf b = {0};
    uci_option_format(&o, &b);
    assert_string_equal(strbuf_str(&b), "option name Hash type spin default 16 min 1 max 4096");
    assert_int_equal(uci_option_parse(strbuf_str(&b) + 7, &back, &err), TV_OK);
    assert_memory_equal(&o, &back, sizeof o);
    strbuf_free(&b);

    /* names and values with blanks; combos */
    assert_int_equal(uci_option_parse("name Skill Level type combo default Very Hard var Easy var Very Hard", &o, &err),
                     TV_OK);
    assert_string_equal(o.name, "Skill Level");
    assert_string_equal(o.def, "Very Hard");
    assert_int_equal(o.nvars, 2);
    assert_string_equal(o.vars[1], "Very Hard");
    assert_int_equal(uci_option_check_value(&o, "Easy", &err), TV_OK);
    assert_int_equal(uci_option_check_value(&o, "Medium", &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "option Skill Level takes one of Easy, Very Hard, not 'Medium'");
    assert_int_equal(uci_option_parse("name Clear Hash type button", &o, &err), TV_OK);
    assert_int_equal(uci_option_parse("name Path type string default <empty>", &o, &err), TV_OK);
    assert_string_equal(o.def, "");

    assert_int_equal(uci_option_parse("type spin", &o, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "option: expected 'name' first");
    assert_int_equal(uci_option_parse("name X", &o, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "option X: no type");
    assert_int_equal(uci_option_parse("name X type slider", &o, &err), TV_ERR_PARSE);
    assert_int_equal(uci_option_parse("name X type spin default 3", &o, &err), TV_ERR_PARSE);
    assert_string_equal(err.msg, "option X: a spin needs min and max (min <= max)");

    assert_int_equal(uci_option_parse("name T type spin default 5 min 0 max 10", &o, &err), TV_OK);
    assert_int_equal(uci_option_check_value(&o, "11", &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "option T takes a whole number from 0 to 10, not '11'");
    assert_int_equal(uci_option_parse("name C type check default false", &o, &err), TV_OK);
    assert_int_equal(uci_option_check_value(&o, "yes", &err), TV_ERR_ARG);

    char name[64], value[256];
    assert_int_equal(uci_setoption_parse("name Skill Level value Very Hard", name, sizeof name, value, sizeof value,
                                         &err),
                     TV_OK);
    assert_string_equal(name, "Skill Level");
    assert_string_equal(value, "Very Hard");
    uci_setoption_format("top_value[2]", "330", &b);
    assert_string_equal(strbuf_str(&b), "setoption name top_value[2] value 330");
    assert_int_equal(uci_setoption_parse(strbuf_str(&b) + 10, name, sizeof name, value, sizeof value, &err), TV_OK);
    assert_string_equal(name, "top_value[2]");
    assert_string_equal(value, "330");
    strbuf_free(&b);
    assert_int_equal(uci_setoption_parse("name Clear Hash", name, sizeof name, value, sizeof value, &err), TV_OK);
    assert_string_equal(value, "");
    assert_int_equal(uci_setoption_parse("value 3", name, sizeof name, value, sizeof value, &err), TV_ERR_PARSE);
}

/* The rule options travel as options declared from the one table. */
static void test_rule_options(void **state)
{
    (void)state;
    UciOption o;
    StrBuf b = {0};
    for (int i = 0; i < TV_NRULE_OPTIONS; i++) {
        uci_rule_option_decl(i, &o);
        uci_option_format(&o, &b);
        strbuf_add(&b, "\n");
    }
    assert_string_equal(strbuf_str(&b), "option name slide_over_own type check default false\n"
                                        "option name enpassant type combo default combatant var combatant var any\n"
                                        "option name ending type combo default checkmate var checkmate var capture\n");
    strbuf_free(&b);
    Options r = {0};
    bool is_rule;
    TvError err;
    assert_int_equal(uci_rule_option_set(&r, "slide_over_own", "true", &is_rule, &err), TV_OK);
    assert_true(is_rule && r.slide_over_own);
    assert_int_equal(uci_rule_option_set(&r, "ending", "capture", &is_rule, &err), TV_OK);
    assert_int_equal(r.ending, TV_ENDING_CAPTURE);
    assert_string_equal(uci_rule_option_value(&r, 0), "true");
    assert_string_equal(uci_rule_option_value(&r, 2), "capture");
    assert_string_equal(uci_rule_option_value(&r, 1), "combatant");
    assert_int_equal(uci_rule_option_set(&r, "enpassant", "all", &is_rule, &err), TV_ERR_ARG);
    assert_string_equal(err.msg, "option enpassant takes one of combatant, any, not 'all'");
    assert_int_equal(uci_rule_option_set(&r, "Hash", "16", &is_rule, &err), TV_OK);
    assert_false(is_rule);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verb),          cmocka_unit_test(test_go_round_trip),
        cmocka_unit_test(test_go_errors),     cmocka_unit_test(test_position),
        cmocka_unit_test(test_position_errors), cmocka_unit_test(test_scores),
        cmocka_unit_test(test_info),          cmocka_unit_test(test_options),
        cmocka_unit_test(test_rule_options),  cmocka_unit_test(test_go_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
