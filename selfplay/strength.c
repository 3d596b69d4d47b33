/* strength.c: the strength sanity check.  See strength.h. */
#include "strength.h"

#include <stdio.h>
#include <string.h>

TvStatus strength_run(const StrengthOptions *o, StrengthResult *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    const bool random = o->check == STRENGTH_RANDOM;
    Tournament t;
    tournament_defaults(&t, random ? "strength-random" : "strength-depth");
    t.nengines = 2;
    t.pairs = (o->games + 1) / 2;
    t.seed = o->seed;
    t.threads = o->threads;
    t.openings.plies = random ? 2 : 4;
    t.openings.balance_depth = 0;
    t.adjudication = (Adjudication){300, 0, 0, 0, 0, 0};
    for (int i = 0; i < 2; i++) {
        TournamentEngine *te = &t.engines[i];
        te->kind = PLAYER_ENGINE;
        te->engine = o->engine;
        te->engine.limits = (SearchLimits){0, 0, 0};
        snprintf(te->path, sizeof te->path, "(built in)");
    }
    t.engines[0].engine.limits.depth = random ? 3 : 4;
    snprintf(t.engines[0].engine.name, sizeof t.engines[0].engine.name, "depth-%d", random ? 3 : 4);
    if (random) {
        t.engines[1].kind = PLAYER_RANDOM;
        snprintf(t.engines[1].engine.name, sizeof t.engines[1].engine.name, "random");
    } else {
        t.engines[1].engine.limits.depth = 2;
        snprintf(t.engines[1].engine.name, sizeof t.engines[1].engine.name, "depth-2");
    }

    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.t = &t;
    ro.out_path = NULL; /* no store */
    ro.stop = o->stop;
    ro.progress = o->progress;
    ro.progress_user = o->progress_user;
    ro.progress_every = o->progress_every;
    RunStats rs;
    TvStatus st = runner_run(&ro, &rs, err);
    if (st == TV_OK) {
        pairing_stats(rs.games, rs.ngames, 0, 1, &out->stats);
        out->interrupted = rs.interrupted;
        snprintf(out->title, sizeof out->title, "%s vs %s", random ? "depth 3" : "depth 4",
                 random ? "random mover" : "depth 2");
        if (random) {
            out->pass = out->stats.score >= 0.95;
            snprintf(out->criterion, sizeof out->criterion, "needs a score of at least 95%%");
        } else {
            /* the lower end of the 95% interval above 0 Elo; a perfect score
             * uses its bound (elo is infinite then) */
            const PairingStats *ps = &out->stats;
            double lower = ps->losses == 0 && ps->draws == 0
                               ? stats_perfect_score_bound(ps->wins)
                               : ps->elo - ps->elo_err95;
            out->pass = lower > 0;
            snprintf(out->criterion, sizeof out->criterion, "needs the 95%% interval above 0 Elo");
        }
    }
    run_stats_free(&rs);
    return st;
}
