/* test_match.c: one game between players (selfplay/match.c, the referee).
 *
 *  - the end of the game by the rules is decided before any adjudication,
 *    on every move: a mate that also completes a resignation streak is
 *    stored as a checkmate (it was once stored as an adjudicated win);
 *  - resignation adjudication ends a game that is not over by the rules;
 *  - the ply limit draws a game that nothing else ended;
 *  - a set abort flag abandons the game. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "match.h"
#include "tfen.h"

/* Black to move; its only move is k a8-b8, after which White mates at once
 * (Q h7-b7 or h7-h8).  Both engines see it, so each side's one move makes
 * a resignation streak of length 1. */
#define MATE_SOON "k7/7Q/1K6/8/8/8/8/8 b - - 0 1"

static GameOutcome play(const char *tfen, const Adjudication *adj, volatile sig_atomic_t *abort_flag, bool *finished)
{
    Options o = {0};
    Position start;
    TvError err;
    assert_int_equal(tfen_read(tfen, &start, &err), TV_OK);
    static Tournament t; /* the defaults of an [engine NAME]: the built-in engine, no clock */
    tournament_defaults(&t, "match");
    TournamentEngine *te = &t.engines[0];
    te->engine.limits = (SearchLimits){3, 0, 0};
    Player *white, *black;
    assert_int_equal(player_open(te, &o, NULL, &white, &err), TV_OK);
    assert_int_equal(player_open(te, &o, NULL, &black, &err), TV_OK);
    const StopFlags stop = {{abort_flag, NULL}};
    GameOutcome out;
    MatchEnd end = match_play(&start, &o, white, black, 1, adj, NULL, &stop, &out, &err);
    if (finished)
        *finished = end == MATCH_FINISHED;
    player_close(white);
    player_close(black);
    return out;
}

static void test_rules_before_adjudication(void **state)
{
    (void)state;
    const Adjudication adj = {100, 1, 1, 0, 0, 0}; /* resign at 1 cp after one move of each side */
    GameOutcome out = play(MATE_SOON, &adj, NULL, NULL);
    assert_int_equal(out.plies, 2);
    assert_int_equal(out.termination, TERM_CHECKMATE);
    assert_int_equal(out.result, RESULT_WHITE);
}

static void test_resignation_when_not_over(void **state)
{
    (void)state;
    /* White is a Prince up with no mate in sight: both engines agree after
     * one move each. */
    const Adjudication adj = {100, 300, 1, 0, 0, 0};
    GameOutcome out = play("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", &adj, NULL, NULL);
    assert_int_equal(out.termination, TERM_ADJ_RESIGN);
    assert_int_equal(out.result, RESULT_WHITE);
    assert_int_equal(out.plies, 2);
}

static void test_ply_limit(void **state)
{
    (void)state;
    const Adjudication adj = {3, 0, 0, 0, 0, 0};
    GameOutcome out = play(TV_START_TFEN, &adj, NULL, NULL);
    assert_int_equal(out.termination, TERM_ADJ_MAX_PLIES);
    assert_int_equal(out.result, RESULT_DRAW);
    assert_int_equal(out.plies, 3);
}

static void test_abort_abandons(void **state)
{
    (void)state;
    const Adjudication adj = {100, 0, 0, 0, 0, 0};
    volatile sig_atomic_t stop = 1;
    bool finished = true;
    play(TV_START_TFEN, &adj, &stop, &finished);
    assert_false(finished);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_before_adjudication),
        cmocka_unit_test(test_resignation_when_not_over),
        cmocka_unit_test(test_ply_limit),
        cmocka_unit_test(test_abort_abandons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
