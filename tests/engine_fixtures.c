#define _POSIX_C_SOURCE 200809L
/* engine_fixtures.c: see engine_fixtures.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "engine_fixtures.h"
#include "movegen.h"
#include "rng.h"
#include "tfen.h"

Position read_tfen(const char *s)
{
    Position p;
    TvError err;
    if (tfen_read_arg(s, &p, &err) != TV_OK)
        fail_msg("%s: %s", s, err.msg);
    return p;
}

void random_params(EvalParams *p, uint64_t *seed)
{
    for (int d = 0; d < EVAL_NDECLS; d++) {
        const WeightInfo *w = &EVAL_WEIGHT_INFO[d];
        for (int i = 0; i < w->size; i++)
            p->w[w->offset + i] = w->lo + (int)(tv_rng_next(seed) % (uint64_t)(w->hi - w->lo + 1));
    }
}

const char *const WALK_STARTS[] = {
    "startpos",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "8/1k6/2(nPRbPNrPBq)5/8/3(RBNQprpn)4/8/8/4K3 b - - 0 1",
    "(RPR)nb1k3/1(rprpn)1pq(qph)pb(bpn)1/8/1(PNnpbN)5(rpr)/8/2(BPQ)QPHN2/2PB2PBPNPR/4KB1R w K - 1 13",
    "3r1n1k/4(PHr)3/8/8/8/8/8/K7 w - - 0 1",
};

void for_walk_positions(void (*fn)(const Position *, void *), void *user)
{
    Options o = {0};
    uint64_t seed = 7;
    for (size_t s = 0; s < WALK_NSTARTS; s++)
        for (int walk = 0; walk < 10; walk++) {
            Position p = read_tfen(WALK_STARTS[s]);
            for (int ply = 0; ply < 80; ply++) {
                fn(&p, user);
                MoveList l;
                movegen_legal(&p, &o, &l);
                if (l.count == 0)
                    break;
                Undo u;
                pos_make_move(&p, l.moves[tv_rng_next(&seed) % (uint64_t)l.count], &u);
            }
        }
}
