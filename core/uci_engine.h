/* uci_engine.h: the built-in engine speaking the engine protocol
 * (docs/protocol.md) on a pair of streams: `tavreli uci` runs it on stdin
 * and stdout.
 *
 * Options: declared from the table of engine options (core/option.h): Hash
 * (MiB, the setting hash_mb), Threads (1), every other search setting of
 * search.def (check or spin), every evaluation weight element of
 * weights.def (spin, named as the tuner names it: "top_value[1]"), then the
 * rule options (core/rule_options.h).  A check takes true or false, and
 * also every other boolean spelling (yes/no, on/off, 1/0).  The search runs on a thread of its own, so that
 * `stop` and `isready` are answered while it thinks.  Every `go` gets one
 * bestmove, whatever it asks (docs/protocol.md, "The built-in engine: every
 * go answered"): a command that changes what a search reads stops a running
 * search first, limits of 0 and a clock at 0 get the least search, words it
 * does not support are named in an info string, a `position` that fails
 * leaves no position (go answers 0000), a Hash that cannot be allocated is
 * halved until it can.  Input lines may be of any length.  With depth or node
 * limits it plays exactly the moves the engine plays inside `tavreli
 * selfplay`: its last info line before bestmove gives the search's own
 * depth, score and nodes. */
#ifndef TAVRELI_UCI_ENGINE_H
#define TAVRELI_UCI_ENGINE_H

#include <stdio.h>

#include "engine.h"
#include "status.h"

/* Reads commands from in and answers on out until `quit` or the end of in.
 * engine gives the starting weights and settings (its limits are not used:
 * `go` says how long to think); id_name is the `id name` it announces
 * (NULL: "tavreli" and the engine's name; the front end gives the build's,
 * "tavreli VERSION (COMMIT) NAME").  Bad commands are answered with an
 * `info string` line and otherwise ignored; errors: out of memory. */
TvStatus uci_engine_run(FILE *in, FILE *out, const EngineVersion *engine, const char *id_name, TvError *err);

#endif
