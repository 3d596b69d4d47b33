/* distrib.h: a tournament on several MPI ranks (mpirun -np N tavreli
 * selfplay ...), ending in one store.
 *
 * Rank 0 keeps the plan (runner.h's coordinator): it hands out game indices
 * one at a time as the ranks' threads ask, so fast and slow machines all
 * stay busy, and it counts every finished game (progress line, SPRT).  Each
 * rank plays on its own OpenMP threads and writes its games to its own
 * store, OUT.part-R.h5 (R the rank), with the usual SWMR crash safety.  When
 * every rank has finished, rank 0 merges the parts (and the games an
 * earlier run left in OUT.h5) into OUT.h5 in ascending game index and
 * removes the parts.  A run cut short leaves its parts; --resume merges
 * them first, so only the missing games are played.  A run stopped by a
 * signal does not merge (under mpirun a signal leaves a second or two
 * before SIGKILL, and a merge takes time in proportion to the store): a
 * stop costs the same at any store size, and the next --resume merges.
 *
 * Why parts and a merge, not HDF5's MPI build writing one file: Debian's
 * parallel HDF5 is a different library from the serial one the rest of the
 * program links; it has no SWMR (so no crash safety), and every dataset
 * extension is collective, so all ranks would have to append in lock step,
 * which a dynamic schedule of games of unequal lengths does not allow.
 * Why not virtual datasets: they leave the data in the parts, so the result
 * would not be one file one can copy; and a merge costs a second's copy at
 * the end (HDF5 writing is about 0.1% of a run).
 *
 * Everything here is compiled only with -DTAVRELI_MPI=ON, except
 * distrib_launched_size. */
#ifndef TAVRELI_DISTRIB_H
#define TAVRELI_DISTRIB_H

#include <stddef.h>

#include "runner.h"

/* The number of ranks of the MPI job this process was started in (read from
 * the launcher's environment: Open MPI, PMI, PMIx), 1 when unknown, 0 when
 * not started by an MPI launcher at all. */
int distrib_launched_size(void);

/* The path of rank R's part of store `out`: OUT.part-R.h5 (OUT without its
 * .h5 suffix). */
void distrib_part_path(const char *out, int rank, char *buf, size_t size);

/* Gets the store `out` ready for a run, single-process or MPI: with force,
 * removes it and any parts; without resume, refuses an existing store or
 * parts; with resume, merges the parts an interrupted MPI run left (with
 * the store, if any) into the store and removes them.  With force or
 * resume, a stale OUT.tmp (a merge killed before its rename) is removed
 * once no live process holds the store.  A signal (*stop set; stop may be
 * NULL) during that merge stops it at no cost: an error saying so is
 * returned and the store and its parts stay as they were.  *have_store:
 * the store exists afterwards.  The caller holds the store's run lock
 * (h5store_lock_run): the temporary files OUT.part-R.h5.tmp-PID-N of part
 * creations that were killed are removed first.  Not thread-safe (HDF5). */
TvStatus distrib_prepare_store(const char *out, bool resume, bool force, const Tournament *t,
                               const volatile sig_atomic_t *stop, bool *have_store, TvError *err);

typedef struct {
    int rank, size;
    int threads;               /* game threads of this rank */
    /* This rank's node (the ranks that share its memory), known before any
     * game: for the front end's check that their threads fit its cores. */
    char host[256];            /* its name (MPI_Get_processor_name) */
    int node_ranks;            /* ranks on it */
    int node_threads;          /* their game threads in all */
    int node_cores;            /* the cores they may use: the union of their CPU affinity masks */
    bool node_first;           /* this rank is the node's lowest: it speaks for the node */
    int64_t ranks_failed;      /* ranks that reported an error (rank 0) */
    int64_t merged_games;      /* games in the merged store (rank 0) */
    double merge_seconds;      /* time of the final merge (rank 0) */
    bool parts_left;           /* stopped by a signal: not merged, the parts stay for --resume (rank 0) */
} DistribInfo;

#ifdef TAVRELI_WITH_MPI
/* Called on every rank once its node is known (info's node fields), before
 * any engine starts; may be NULL. */
typedef void (*DistribNodeFn)(const DistribInfo *info, void *user);

/* Runs the tournament on all ranks of MPI_COMM_WORLD (initialises MPI;
 * distrib_end finalises it).  On rank 0, stats describe the whole run (all ranks);
 * elsewhere, the rank's own games.  Every rank gets the same status when
 * the setup fails (bad store, unwritable part, a separate program that does
 * not start on some rank: checked before any part or store is made); a
 * rank's own write error is reported by that rank and counted in
 * info->ranks_failed.  A run that fails before storing any game removes
 * the store it made (stats->store_removed). */
TvStatus distrib_run(const RunOptions *ro, DistribNodeFn on_node, void *node_user, RunStats *stats,
                     DistribInfo *info, TvError *err);

/* Once every rank has said what it has to say about the run of distrib_run
 * (rank 0 speaks for the run): waits for all ranks and finalises MPI.  A
 * rank that exits with an error before rank 0 has printed its messages gets
 * rank 0 killed by mpirun mid-message, hence the wait.  Nothing to do when
 * MPI was not initialised. */
void distrib_end(void);
#endif

#endif
