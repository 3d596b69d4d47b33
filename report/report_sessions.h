/* report_sessions.h: what shaped a store's games, for every report (the
 * strength report, the training ladder, the SPSA report; internal to
 * report/): each store's sessions (selfplay/run_session.h) as a table, and
 * the conditions of a set of stores in one paragraph: the engines' limits
 * and clocks, the games, the builds, the dates, and the hosts with their
 * threads, cores and load. */
#ifndef TAVRELI_REPORT_SESSIONS_H
#define TAVRELI_REPORT_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "h5store.h"
#include "report_doc.h"

/* Unix time t as "2026-12-01 16:20 UTC". */
void report_fmt_utc(char *buf, size_t n, int64_t t);

/* The sessions of store c (named name in the text): a table of when and
 * where each ran, with which build, ranks, threads, cores and load, how it
 * ended and what it stored; the games no session accounts for; a note for
 * each engine whose waits before readyok were long (run_wait_notable). */
void report_doc_sessions(Doc *D, const char *name, const StoreContents *c);

/* A "Conditions" section for the stores stores[0 .. n-1] of one run (a
 * training folder's, an SPSA run's): games in all; each engine's limits,
 * clock and timemargin as the first store that has it holds them; the
 * builds that played (program version, build type, tree); the first
 * session's start and the last one's end (else the games' store times);
 * and every host with its ranks, threads, cores and load averages (a
 * figure not recorded is said to be so). */
void report_doc_conditions(Doc *D, const StoreContents *stores, int n);

#endif
