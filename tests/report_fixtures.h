/* report_fixtures.h: what the report tests (test_report.c,
 * test_report_engines.c) share.  Synthetic games follow from their index:
 * a round robin of three engines (NAMES) with PAIRS pairs per pairing, whose
 * results, lengths and terminations the tests know; stores are written with
 * the project's writer; each test gets a scratch directory (setup/teardown,
 * a Tmp in *state); the written report is read back as text. */
#ifndef TAVRELI_TEST_REPORT_FIXTURES_H
#define TAVRELI_TEST_REPORT_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "h5store.h"
#include "report.h"
#include "status.h"

#define PAIRS 20               /* pairs per pairing */
#define NGAMES (3 * PAIRS * 2) /* round robin of 3 engines */

extern const char *const INI;     /* the synthetic tournament's INI text */
extern const char *const OPTIONS; /* its rule options */
extern const char *const NAMES[3];

/* ---- synthetic games ---- */
void pairing_players(int p, int *a, int *b); /* pairing p: (0,1), (0,2), (1,2) */
int first_result(int64_t i);
void synth_game(int64_t i, StoredGame *g);
void settings_text(char *buf, size_t n, int k);
void make_engines(StoredEngine *e, int n, const char *const *names);
void write_store_engines(const char *path, const StoredEngine *e, int nengines, StoredGame *games, int ngames,
                         const char *ini, const char *options);
void write_store_as(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames, int w0,
                    const char *options);
void write_store(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames);
void write_store_weight0(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames,
                         int w0);
int select_games(StoredGame *out, int (*keep)(int64_t pair));
int even_round(int64_t pair);
int odd_round(int64_t pair);

/* ---- files ---- */
typedef struct {
    char dir[256];
} Tmp;
char *tmp_path_into(char *buf, const Tmp *t, const char *name);
/* A path in the test's directory, valid until the end of the enclosing block. */
#define tmp_path(t, name) tmp_path_into((char[512]){0}, (t), (name))
char *slurp(const char *path);
void assert_contains(const char *text, const char *what, const char *where);
void assert_png(const char *path);
int setup(void **state);    /* a scratch directory: *state is its Tmp */
int teardown(void **state); /* removes it */

/* ---- the report read back ---- */
char *section(const char *md, const char *title); /* "## TITLE" up to the next "## " (the caller frees) */
TvStatus report1(const char *file, const char *log, const char *outdir, TvError *err);
char *report_md(const char *file, const char *log, const char *outdir); /* report.md (the caller frees) */

#endif
