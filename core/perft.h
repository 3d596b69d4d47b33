/* perft.h: counting legal move paths, the standard check of a move generator. */
#ifndef TAVRELI_PERFT_H
#define TAVRELI_PERFT_H

#include "position.h"

/* Number of legal move sequences of length depth from p (depth 0 = 1).  The
 * last ply is counted in bulk.  p is restored before returning. */
uint64_t perft(Position *p, const Options *o, int depth);

#endif
