#include "perft.h"

#include "movegen.h"

uint64_t perft(Position *p, const Options *o, int depth)
{
    if (depth <= 0)
        return 1;
    MoveList list;
    movegen_legal(p, o, &list);
    if (depth == 1)
        return (uint64_t)list.count;
    uint64_t n = 0;
    Undo u;
    for (int i = 0; i < list.count; i++) {
        pos_make_move(p, list.moves[i], &u);
        n += perft(p, o, depth - 1);
        pos_unmake_move(p, &u);
    }
    return n;
}
