/* ladder.h: the document of a training run's Elo ladder (`tavreli report
 * TRAINING-DIR`): the ladder tuner/train.h computes (train_ladder), written
 * as ladder.md, report.html and the plot elo.png. */
#ifndef TAVRELI_LADDER_H
#define TAVRELI_LADDER_H

#include "status.h"
#include "train.h"

/* Writes outdir/ladder.md, outdir/report.html and outdir/elo.png (gnuplot)
 * for the ladder of the training folder dir (train_ladder_info: nr rungs and
 * info): every rung with its Elo against gen-0, its interval, its games
 * against gen-0, its step over the previous best and how it was measured,
 * then every generation's outcome (train_read_generation).  Errors: gnuplot missing or
 * failing, an unwritable outdir. */
TvStatus ladder_report_write(const char *dir, const TrainRung *rungs, int nr, const TrainLadderInfo *info,
                             const char *outdir, TvError *err);

#endif
