/* test_tune_load.c: what tune_load makes of a self-play store is the set a
 * plain sequential reading gives, bit for bit.
 *
 * tune_load reads a store's positions in chunks, parses and resolves them
 * in parallel and drops duplicates in between; this test rebuilds the same
 * set the simple way: every game in plan order (its index), every position
 * of it parsed on its own, a position left out when one with the same
 * Zobrist hash and the same result came before (looked up in a plain list),
 * the rest resolved and added by tune_add_positions.  The two sets (feature
 * entries, rows, results, games) and the counts must be equal, on 1 to 4
 * threads, for one store and for the same store given twice (every game
 * then read once).  A store of 60 games (the default engine against itself
 * at depth 1, every game its own opening) is played once by the runner. */
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
#include <omp.h>

#include "h5store.h"
#include "record.h"
#include "runner.h"
#include "tfen.h"
#include "tune.h"

typedef struct {
    char dir[64];
    char store[128];
    EngineVersion start;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/tavreli_tune_load_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->store, sizeof f->store, "%s/data.h5", f->dir);
    const char *engine = TAVRELI_TEST_DATA "/../../configs/engines/default.ini";
    char *text = malloc(1024); /* tournament_read_text takes it */
    assert_non_null(text);
    int len = snprintf(text, 1024,
                       "[tournament]\nname = tune-load\npairs = 30\nseed = 11\n"
                       "[openings]\nplies = 6\nbalance_depth = 1\nbalance_cp = 300\nper_game = yes\n"
                       "[adjudication]\nmax_plies = 120\n"
                       "[engine a]\npath = %s\ndepth = 1\n[engine b]\npath = %s\ndepth = 1\n",
                       engine, engine);
    Tournament t;
    TvError err;
    char ini[128];
    snprintf(ini, sizeof ini, "%s/t.ini", f->dir);
    if (tournament_read_text(ini, text, (size_t)len, &t, &err) != TV_OK)
        fail_msg("%s", err.msg);
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = f->store;
    ro.force = true;
    RunStats rs;
    memset(&rs, 0, sizeof rs);
    if (runner_run(&ro, &rs, &err) != TV_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rs.played, 60);
    run_stats_free(&rs);
    tournament_free(&t);
    assert_int_equal(engine_read(engine, &f->start, &err), TV_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    remove(f->store);
    char ini[128];
    snprintf(ini, sizeof ini, "%s/t.ini", f->dir);
    remove(ini);
    rmdir(f->dir);
    free(f);
    return 0;
}

typedef struct {
    uint64_t hash;
    double result;
} Seen;

/* The reference: the store read `copies` times, game by game, position by
 * position. */
static void reference(const Fixture *f, int copies, TuneSet *out, TuneLoadCounts *counts)
{
    TvError err;
    StoreContents c;
    assert_int_equal(h5store_read(f->store, false, true, &c, &err), TV_OK);
    Options rules;
    assert_int_equal(rule_options_parse(c.options ? c.options : "", &rules, &err), TV_OK);
    Position *pos = malloc(sizeof *pos * (size_t)c.npositions);
    double *res = malloc(sizeof *res * (size_t)c.npositions);
    int32_t *gm = malloc(sizeof *gm * (size_t)c.npositions);
    Seen *seen = malloc(sizeof *seen * (size_t)c.npositions);
    assert_true(pos && res && gm && seen);
    int64_t n = 0, nseen = 0;
    memset(counts, 0, sizeof *counts);
    for (int64_t rank = 0; rank < c.ngames; rank++) {
        /* the game of plan index `rank`-th smallest (indices are distinct) */
        const StoredGame *g = NULL;
        for (int64_t gi = 0; gi < c.ngames; gi++) {
            int64_t below = 0;
            for (int64_t j = 0; j < c.ngames; j++)
                below += c.games[j].index < c.games[gi].index;
            if (below == rank)
                g = &c.games[gi];
        }
        assert_non_null(g);
        for (int64_t k = 0; k < g->position_count; k++) {
            const StoredPosition *sp = &c.positions[g->position_offset + k];
            Position p;
            assert_int_equal(tfen_read(sp->tfen, &p, &err), TV_OK);
            bool dup = false;
            for (int64_t s = 0; s < nseen && !dup; s++)
                dup = seen[s].hash == p.hash && seen[s].result == sp->result;
            if (dup) {
                counts->duplicate_positions++;
                continue;
            }
            seen[nseen++] = (Seen){p.hash, sp->result};
            pos[n] = p;
            res[n] = sp->result;
            gm[n] = (int32_t)rank;
            n++;
        }
    }
    counts->duplicate_games = (copies - 1) * c.ngames;
    tune_set_init(out);
    assert_int_equal(tune_add_positions(out, pos, res, gm, n, &f->start.params, &rules, &counts->skipped, &err),
                     TV_OK);
    free(pos);
    free(res);
    free(gm);
    free(seen);
    h5store_contents_free(&c);
}

static void check_equal(const TuneSet *a, const TuneLoadCounts *ca, const TuneSet *b, const TuneLoadCounts *cb)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->nnz, b->nnz);
    assert_int_equal(a->ngames, b->ngames);
    assert_memory_equal(a->row, b->row, sizeof *a->row * (size_t)(a->n + 1));
    assert_memory_equal(a->ent, b->ent, sizeof *a->ent * (size_t)a->nnz);
    assert_memory_equal(a->label2, b->label2, (size_t)a->n);
    assert_memory_equal(a->game, b->game, sizeof *a->game * (size_t)a->n);
    assert_int_equal(ca->skipped, cb->skipped);
    assert_int_equal(ca->duplicate_positions, cb->duplicate_positions);
    assert_int_equal(ca->duplicate_games, cb->duplicate_games);
    assert_int_equal(ca->torn_rows, cb->torn_rows);
}

static void load_matches(const Fixture *f, int copies)
{
    TuneSet ref;
    TuneLoadCounts rc;
    reference(f, copies, &ref, &rc);
    assert_true(ref.n > 1000);
    assert_true(rc.duplicate_positions > 0); /* the check covers dropping duplicates */
    const char *files[2] = {f->store, f->store};
    /* 4 threads: more than the cores, so that the threads claiming the
     * positions' keys interleave in more ways (the first copy is still the
     * one kept) */
    for (int threads = 1; threads <= 4; threads++) {
        omp_set_num_threads(threads);
        TuneSet s;
        TuneLoadCounts lc;
        TvError err;
        if (tune_load(files, copies, &f->start, false, &s, &lc, &err) != TV_OK)
            fail_msg("%s", err.msg);
        check_equal(&s, &lc, &ref, &rc);
        tune_set_free(&s);
    }
    omp_set_num_threads(2);
    tune_set_free(&ref);
}

static void test_one_store(void **state) { load_matches(*state, 1); }

static void test_store_twice(void **state) { load_matches(*state, 2); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_store),
        cmocka_unit_test(test_store_twice),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
