/* variety.c: moves sampled by a softmax of their quiescence scores (see
 * variety.h). */
#include "variety.h"

#include <math.h>
#include <stdlib.h>

#include "movegen.h"
#include "rng.h"

bool variety_sample_plies(SearchContext *ctx, Position *p, const Options *rules, int plies, int temperature,
                          uint64_t *rng)
{
    MoveList *list = malloc(sizeof *list);
    double *w = malloc(sizeof *w * TV_MAX_MOVES);
    bool ok = list && w;
    for (int k = 0; ok && k < plies; k++) {
        movegen_legal(p, rules, list);
        if (list->count == 0) {
            ok = false;
            break;
        }
        double best = -INFINITY;
        for (int i = 0; i < list->count; i++) {
            Position child = *p, leaf;
            Undo u;
            pos_make_move(&child, list->moves[i], &u);
            int q = 0;
            search_quiet(ctx, &child, &leaf, &q);
            double s = -q; /* the mover's view */
            w[i] = s > 2000 ? 2000 : s < -2000 ? -2000 : s;
            if (w[i] > best)
                best = w[i];
        }
        double sum = 0;
        for (int i = 0; i < list->count; i++)
            sum += w[i] = exp((w[i] - best) / temperature);
        double x = (double)(tv_rng_next(rng) >> 11) / 9007199254740992.0 * sum;
        int pick = list->count - 1;
        for (int i = 0; i < list->count; i++) {
            x -= w[i];
            if (x < 0) {
                pick = i;
                break;
            }
        }
        Undo u;
        pos_make_move(p, list->moves[pick], &u);
    }
    free(list);
    free(w);
    return ok;
}
