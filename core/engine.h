/* engine.h: engine versions.  An engine version is an INI file (see
 * configs/engines/default.ini, written by engine_write from the weight
 * table): a name, any subset of the weights (the rest default) and search
 * settings, including its default limits. */
#ifndef TAVRELI_ENGINE_H
#define TAVRELI_ENGINE_H

#include <stdio.h>

#include "eval.h"
#include "search.h"
#include "status.h"

typedef struct {
    char name[64];
    EvalParams params;
    SearchSettings settings;
    SearchLimits limits; /* the version's default limits (depth 4 unless set) */
} EngineVersion;

/* The default version: default weights and settings, depth 4. */
void engine_default(EngineVersion *e);

/* Reads an engine INI.  Unknown sections or keys, values out of the weight's
 * bounds, a wrong number of elements and malformed numbers are errors whose
 * TvError has the file and line set and a message naming the key. */
TvStatus engine_read(const char *path, EngineVersion *e, TvError *err);

/* Same from text in memory (name is used in messages). */
TvStatus engine_read_string(const char *text, const char *name, EngineVersion *e, TvError *err);

/* Writes e as a complete INI (every weight, with its meaning and bounds as
 * comments).  extra_comment (may be NULL) is written as comment lines after
 * the header, wrapped so that every line stays readable by engine_read.
 * Atomic (core/atomic_file.h): the file is there whole or not at all. */
TvStatus engine_write(const char *path, const EngineVersion *e, const char *extra_comment, TvError *err);

/* The text engine_write writes, to f (a file of a group: tv_commit_group). */
void engine_print(FILE *f, const EngineVersion *e, const char *extra_comment);

#endif
