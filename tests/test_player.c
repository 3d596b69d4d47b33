/* test_player.c: the player seam (selfplay/player.h) and the stop flags
 * the search polls (core/search.h, StopFlags).
 *
 *  - either of the two stop flags ends a search (the caller's signal flag
 *    and a run's own; runner.c once relayed one into the other with a
 *    thread waking every 2 ms);
 *  - the built-in engine and `tavreli uci` as a separate program answer
 *    the same move, score and depth through the same seam;
 *  - a random mover's moves depend only on the game's seed;
 *  - a set flag (either) abandons the game at the referee, and a program
 *    the harness waits for stops being waited for;
 *  - the /engines row holds the built-in engine's weights, zeros for a
 *    program's. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "match.h"
#include "movegen.h"
#include "notation.h"
#include "player.h"
#include "tfen.h"

static Tournament *defaults(void)
{
    static Tournament t; /* the defaults of an [engine NAME]: the built-in engine, no clock */
    tournament_defaults(&t, "player");
    return &t;
}

static PlayerMove go_once(Player *p, const Position *pos, const StopFlags *stop, PlayerAnswer *answer)
{
    const PlayerGame g = {pos, TV_START_TFEN, NULL, NULL, 0};
    const PlayerClocks c = {{false, false}, {0, 0}, {0, 0}, 0};
    PlayerMove m;
    *answer = player_go(p, &g, &c, stop, &m);
    return m;
}

static void test_either_flag_ends_search(void **state)
{
    (void)state;
    EvalParams params;
    eval_params_default(&params);
    SearchSettings set;
    search_settings_default(&set);
    Options o = {0};
    SearchContext *ctx = search_alloc(&params, &o, &set);
    assert_non_null(ctx);
    Position p;
    assert_int_equal(tfen_read(TV_START_TFEN, &p, NULL), TV_OK);
    const SearchLimits deep = {48, 0, 0}; /* hours without a flag */
    for (int k = 0; k < 2; k++) {
        volatile sig_atomic_t caller = 0, own = 0;
        const StopFlags stop = {{&caller, &own}};
        search_set_stop_flags(ctx, &stop);
        *(k ? &own : &caller) = 1; /* set before the search: not even depth 1 completes */
        SearchResult r;
        search_run(ctx, &p, NULL, 0, &deep, NULL, NULL, &r);
        assert_int_equal(r.depth, 0);
        assert_true(movegen_is_legal(&p, &o, r.best));
        assert_int_equal(k ? caller : own, 0); /* the other flag is only read */
    }
    search_free(ctx);
}

static void test_program_answers_as_built_in(void **state)
{
    (void)state;
    Tournament *t = defaults();
    Options o = {0};
    TournamentEngine *built_in = &t->engines[0], *program = &t->engines[1];
    built_in->engine.limits = program->engine.limits = (SearchLimits){3, 0, 0};
    program->kind = PLAYER_PROCESS;
    snprintf(program->command, sizeof program->command, "%s uci", TAVRELI_EXE);
    snprintf(program->stderr_path, sizeof program->stderr_path, "%s", TOURNAMENT_STDERR_DISCARD);
    TvError err;
    bool again;
    StoredEngine id;
    assert_int_equal(player_identify(program, &o, NULL, &id, &err), TV_OK);
    /* what the program is: the executable its command runs, hashed, and what it said */
    assert_int_equal(strlen(id.exe_sha256), 64);
    assert_true(id.exe_size > 0);
    assert_true(id.exe_path[0] == '/');
    assert_int_equal(strncmp(id.id_name, "tavreli ", 8), 0);
    assert_string_equal(id.id_author, "the tavreli project");
    char commit[32];
    const bool named = engine_id_commit_of_name(id.id_name, commit, sizeof commit);
    assert_int_equal(named, commit[0] != '\0'); /* a build outside git names none */
    assert_string_equal(id.commit, commit);
    Player *a, *b;
    assert_int_equal(player_open(built_in, &o, NULL, &a, &err), TV_OK);
    assert_int_equal(player_open(program, &o, NULL, &b, &err), TV_OK);
    assert_ptr_equal(player_config(b), program);
    assert_int_equal(player_new_game(a, 1, &again, &err), TV_OK);
    assert_int_equal(player_new_game(b, 1, &again, &err), TV_OK);
    Position p;
    assert_int_equal(tfen_read(TV_START_TFEN, &p, NULL), TV_OK);
    PlayerAnswer ra, rb;
    PlayerMove ma = go_once(a, &p, NULL, &ra), mb = go_once(b, &p, NULL, &rb);
    assert_int_equal(ra, PLAYER_MOVED);
    assert_int_equal(rb, PLAYER_MOVED);
    assert_string_equal(ma.move, mb.move);
    assert_true(ma.has_score && mb.has_score);
    assert_int_equal(ma.score, mb.score);
    assert_int_equal(ma.depth, 3);
    assert_int_equal(mb.depth, 3);
    Move m;
    assert_int_equal(move_parse(&p, &o, ma.move, TV_PARSE_STRICT, &m, NULL, NULL), TV_OK);
    player_close(a);
    player_close(b);
}

static void test_random_mover_follows_the_seed(void **state)
{
    (void)state;
    Tournament *t = defaults();
    Options o = {0};
    t->engines[0].kind = PLAYER_RANDOM;
    Player *r;
    TvError err;
    bool again;
    assert_int_equal(player_open(&t->engines[0], &o, NULL, &r, &err), TV_OK);
    Position p;
    assert_int_equal(tfen_read(TV_START_TFEN, &p, NULL), TV_OK);
    char first[8][64];
    bool differs = false;
    for (uint64_t seed = 5; seed <= 6; seed++) {
        assert_int_equal(player_new_game(r, seed, &again, &err), TV_OK);
        for (int i = 0; i < 8; i++) {
            PlayerAnswer a;
            PlayerMove m = go_once(r, &p, NULL, &a);
            assert_int_equal(a, PLAYER_MOVED);
            assert_false(m.has_score); /* no opinion for adjudication */
            Move mv;
            assert_int_equal(move_parse(&p, &o, m.move, TV_PARSE_STRICT, &mv, NULL, NULL), TV_OK);
            if (seed == 5)
                snprintf(first[i], sizeof first[i], "%s", m.move);
            else
                differs |= strcmp(first[i], m.move) != 0;
        }
    }
    assert_true(differs); /* another seed, other moves */
    assert_int_equal(player_new_game(r, 5, &again, &err), TV_OK);
    for (int i = 0; i < 8; i++) { /* the same seed, the same moves */
        PlayerAnswer a;
        PlayerMove m = go_once(r, &p, NULL, &a);
        assert_string_equal(m.move, first[i]);
    }
    player_close(r);
}

static void test_either_flag_abandons_the_game(void **state)
{
    (void)state;
    Tournament *t = defaults();
    Options o = {0};
    t->engines[0].engine.limits = (SearchLimits){2, 0, 0};
    Player *p;
    TvError err;
    assert_int_equal(player_open(&t->engines[0], &o, NULL, &p, &err), TV_OK);
    Position start;
    assert_int_equal(tfen_read(TV_START_TFEN, &start, NULL), TV_OK);
    const Adjudication adj = {20, 0, 0, 0, 0, 0};
    for (int k = 0; k < 2; k++) {
        volatile sig_atomic_t caller = 0, own = 0;
        *(k ? &own : &caller) = 1;
        const StopFlags stop = {{&caller, &own}};
        GameOutcome out;
        assert_int_equal(match_play(&start, &o, p, p, 1, &adj, NULL, &stop, &out, &err), MATCH_ABANDONED);
        assert_int_equal(k ? caller : own, 0);
    }
    GameOutcome out; /* no flag: the game is played (the player plays itself) */
    assert_int_equal(match_play(&start, &o, p, p, 1, &adj, NULL, NULL, &out, &err), MATCH_FINISHED);
    assert_int_equal(out.plies, 20);
    player_close(p);
}

typedef struct {
    volatile sig_atomic_t *flag;
} Setter;

static void *set_later(void *arg)
{
    const struct timespec pause = {0, 300 * 1000000L};
    nanosleep(&pause, NULL);
    *((Setter *)arg)->flag = 1;
    return NULL;
}

static void test_run_flag_stops_waiting_for_a_program(void **state)
{
    (void)state;
    Tournament *t = defaults();
    Options o = {0};
    TournamentEngine *te = &t->engines[0];
    te->kind = PLAYER_PROCESS;
    te->engine.limits = (SearchLimits){48, 0, 0}; /* hours */
    snprintf(te->command, sizeof te->command, "%s uci", TAVRELI_EXE);
    snprintf(te->stderr_path, sizeof te->stderr_path, "%s", TOURNAMENT_STDERR_DISCARD);
    Player *p;
    TvError err;
    bool again;
    assert_int_equal(player_open(te, &o, NULL, &p, &err), TV_OK);
    assert_int_equal(player_new_game(p, 1, &again, &err), TV_OK);
    Position start;
    assert_int_equal(tfen_read(TV_START_TFEN, &start, NULL), TV_OK);
    volatile sig_atomic_t caller = 0, own = 0;
    const StopFlags stop = {{&caller, &own}};
    pthread_t th;
    Setter s = {&own};
    assert_int_equal(pthread_create(&th, NULL, set_later, &s), 0);
    const double t0 = tv_now_seconds();
    PlayerAnswer a;
    go_once(p, &start, &stop, &a);
    const double took = tv_now_seconds() - t0;
    pthread_join(th, NULL);
    assert_int_equal(a, PLAYER_STOPPED);
    assert_true(took < 30); /* not the 60 s timeout, nor the hours of the search (load-proof bound) */
    assert_int_equal(caller, 0);
    player_close(p);
}

static void test_stored_engine_rows(void **state)
{
    (void)state;
    Tournament *t = defaults();
    t->engines[1].kind = PLAYER_PROCESS;
    snprintf(t->engines[1].command, sizeof t->engines[1].command, "prog --x");
    t->engines[1].noptions = 2; /* stored sorted by name */
    snprintf(t->engines[1].option_names[0], sizeof t->engines[1].option_names[0], "Threads");
    snprintf(t->engines[1].option_values[0], sizeof t->engines[1].option_values[0], "1");
    snprintf(t->engines[1].option_names[1], sizeof t->engines[1].option_names[1], "Hash");
    snprintf(t->engines[1].option_values[1], sizeof t->engines[1].option_values[1], "8");
    StoredEngine a, b;
    engine_id_of_entry(&t->engines[0], &a);
    engine_id_of_entry(&t->engines[1], &b);
    assert_memory_equal(a.weights, t->engines[0].engine.params.w, sizeof a.weights);
    assert_true(strstr(a.settings, "qsearch=yes") != NULL); /* booleans as an engine INI spells them */
    assert_true(a.version[0] != '\0'); /* the build that plays it */
    assert_string_equal(b.options, "Hash=8 Threads=1");
    assert_string_equal(b.version, "");
    StoredEngine zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(b.weights, zero.weights, sizeof b.weights);
    assert_string_equal(b.settings, "");
    assert_string_equal(b.command, "prog --x");
    assert_int_equal(b.kind, PLAYER_PROCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_either_flag_ends_search),
        cmocka_unit_test(test_program_answers_as_built_in),
        cmocka_unit_test(test_random_mover_follows_the_seed),
        cmocka_unit_test(test_either_flag_abandons_the_game),
        cmocka_unit_test(test_run_flag_stops_waiting_for_a_program),
        cmocka_unit_test(test_stored_engine_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
