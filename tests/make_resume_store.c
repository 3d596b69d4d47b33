/* make_resume_store.c: a big store that a resume accepts, made in seconds
 * (for tests/test_resume_stop.sh: a signal while a resume reads and checks
 * it).  Playing 100,000 games takes hours; this copies one real game.
 *
 *     make_resume_store CONFIG.ini SMALL.h5 OUT.h5 N
 *
 * CONFIG.ini must be a plan whose games are all one game: two identical
 * engines with depth limits and no random openings ([openings] plies = 0),
 * so every game of the plan plays game 0's moves whoever has White.
 * SMALL.h5 (a run of CONFIG.ini with --games 1) holds game 0; OUT.h5 gets
 * games 0 .. N-1 of the plan, each game 0's rows under the plan's index,
 * pairing, colours, opening and seed: exactly what the run would store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5store.h"
#include "record.h"
#include "runner.h"
#include "tournament.h"

#define BATCH_GAMES 500 /* games a batch: fewer HDF5 calls, a few MB of rows */

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: make_resume_store CONFIG.ini SMALL.h5 OUT.h5 N\n");
        return 2;
    }
    const long n = atol(argv[4]);
    Tournament t;
    TvError err;
    StoreContents sc;
    if (tournament_read(argv[1], &t, &err) != TV_OK || h5store_read(argv[2], true, true, &sc, &err) != TV_OK) {
        fprintf(stderr, "make_resume_store: %s\n", err.msg);
        return 1;
    }
    if (sc.ngames < 1 || n < 1 || n > tournament_total_games(&t)) {
        fprintf(stderr, "make_resume_store: %s holds no game, or N is not within the plan\n", argv[2]);
        return 1;
    }
    const StoredGame *g0 = &sc.games[0];
    const int plies = g0->plies;
    StoredGame *games = calloc(BATCH_GAMES, sizeof *games);
    StoredMove *moves = calloc((size_t)BATCH_GAMES * (size_t)(plies ? plies : 1), sizeof *moves);
    StoredPosition *positions = calloc((size_t)BATCH_GAMES * (size_t)(plies ? plies : 1), sizeof *positions);
    StoredEngine *se = NULL;
    if (runner_identify(&t, argv[3], &se, &err) != TV_OK) {
        fprintf(stderr, "make_resume_store: %s\n", err.msg);
        return 1;
    }
    char options[128];
    rule_options_to_str(&t.rules, options, sizeof options);
    H5Store *s = NULL;
    if (!games || !moves || !positions || !se ||
        h5store_create(argv[3], true, se, t.nengines, t.text, options, &s, &err) != TV_OK) {
        fprintf(stderr, "make_resume_store: %s\n", se && games && moves && positions ? err.msg : "out of memory");
        return 1;
    }
    for (long at = 0; at < n; at += BATCH_GAMES) {
        int k = n - at < BATCH_GAMES ? (int)(n - at) : BATCH_GAMES;
        for (int i = 0; i < k; i++) {
            PlannedGame pg;
            tournament_game(&t, at + i, &pg);
            games[i] = *g0;
            games[i].index = pg.index;
            games[i].pairing = pg.pairing;
            games[i].white = pg.white;
            games[i].black = pg.black;
            games[i].opening = pg.opening;
            games[i].seed = pg.seed;
            games[i].stored_at = 0;
            for (int j = 0; j < plies; j++) {
                StoredMove *m = &moves[(size_t)i * (size_t)plies + (size_t)j];
                StoredPosition *p = &positions[(size_t)i * (size_t)plies + (size_t)j];
                *m = sc.moves[g0->move_offset + j];
                *p = sc.positions[g0->position_offset + j];
                m->game = p->game = pg.index;
            }
        }
        if (h5store_append(s, games, k, moves, positions, &err) != TV_OK) {
            fprintf(stderr, "make_resume_store: %s\n", err.msg);
            return 1;
        }
    }
    if (h5store_close(s, &err) != TV_OK) {
        fprintf(stderr, "make_resume_store: %s\n", err.msg);
        return 1;
    }
    printf("%s: %ld games of %d plies\n", argv[3], n, plies);
    free(games);
    free(moves);
    free(positions);
    free(se);
    h5store_contents_free(&sc);
    tournament_free(&t);
    return 0;
}
