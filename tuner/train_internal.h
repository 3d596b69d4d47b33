/* train_internal.h: what the files of `tavreli train` share (train.c: the
 * loop and the ladder; train_config.c: the [train] INI).  Included by those
 * files only. */
#ifndef TAVRELI_TRAIN_INTERNAL_H
#define TAVRELI_TRAIN_INTERNAL_H

#include <stdbool.h>

#include "status.h"
#include "train.h"

/* Reads a training INI; with check_engine the start engine must be there
 * (a run's copy DIR/train.ini names it relative to the original INI's
 * directory, so --confirm, which plays gen-0's copy, does not check it). */
TvStatus train_read_config(const char *path, TrainConfig *c, bool check_engine, TvError *err);

/* The default of a [train] key (0 for a name that is not one). */
double train_key_default(const char *name);

#endif
