/* train_internal.h: what the files of `tavreli train` share (train.c: the
 * loop and the ladder; train_config.c: the [train] INI).  Included by those
 * files only. */
#ifndef TAVRELI_TRAIN_INTERNAL_H
#define TAVRELI_TRAIN_INTERNAL_H

#include <stdbool.h>

#include "status.h"
#include "train.h"


/* The default of a [train] key (0 for a name that is not one). */
double train_key_default(const char *name);

#endif
