/* engine_id.h: which engine version played, said and compared in one place.
 *
 * An engine's identity is its /engines row (StoredEngine, h5store.h): for
 * every kind of player its name, limits and clock; for the built-in engine
 * its weights, search settings and the tavreli build (version and commit)
 * that played it; for a separate program its command, the executable that
 * command runs (resolved path, SHA-256 and size), the `id name` and
 * `id author` it announced, the options it was given and, for a tavreli
 * build, the commit its `id name` names.  The tournament fills the parts
 * its INI gives (engine_id_of_entry), the player the parts only a
 * running program can give (player_identify); docs/store.md lists the
 * fields.
 *
 * engine_id_difference is the one comparison of two identities: a resume,
 * a merge of parts, the report's players, the SPSA and train runs and a
 * tournament's "are these two engines the same" all ask it.  A field that
 * one side does not know ("" or -1: a store made before the field, or a
 * kind that has none) is not compared. */
#ifndef TAVRELI_ENGINE_ID_H
#define TAVRELI_ENGINE_ID_H

#include <stdbool.h>
#include <stddef.h>

#include "h5store.h"
#include "search.h"
#include "status.h"

/* How a tournament's player makes its moves (StoredEngine.kind). */
typedef enum {
    PLAYER_ENGINE = 0,  /* the built-in engine with an engine version's weights, settings and limits */
    PLAYER_RANDOM = 1,  /* uniformly among the legal moves, from the game's seed (a sanity baseline) */
    PLAYER_PROCESS = 2, /* a separate program speaking the engine protocol (docs/protocol.md) */
    PLAYER_NKINDS
} PlayerKind;

/* The kind's name in words ("in-process engine", "random mover",
 * "separate program"; "unknown kind" for a value out of range). */
const char *engine_id_kind_name(int kind);

/* Why `a` (seen in a_where, e.g. "in the store") and `b` (b_where, e.g.
 * "now") are not the same engine version, in words, the first difference
 * found ("its id name: 'x' in the store, 'y' now"); NULL when they are the
 * same.  Compared: the name, kind, command, executable (hash and size), id
 * name, commit, bench signature, options, limits, clock and timemargin, weights and search
 * settings; not the INI's path nor the version text (the commit says it). */
const char *engine_id_difference(const StoredEngine *a, const char *a_where, const StoredEngine *b,
                                 const char *b_where, char *why, size_t n);

/* Whether a and b are known to play alike, move for move, from the same
 * inputs: no difference, not a random mover, no clock or movetime (timing
 * alone makes games differ), and for the built-in engine its search
 * settings known on both sides. */
bool engine_id_identical(const StoredEngine *a, const StoredEngine *b);

/* Whether games of e are reproducible: only depth and node limits, no
 * movetime, clock or separate program. */
bool engine_id_reproducible(const StoredEngine *e);

/* A short tag that tells e from another version of the same name: its
 * commit (12 hex digits, "-dirty" kept), else "sha256:" and the first 12
 * digits of its executable's hash, else "" (nothing that names a build). */
void engine_id_tag(const StoredEngine *e, char *buf, size_t n);

/* Sorts the n words and writes them into buf, one blank apart (the form of
 * the options fields). */
void engine_id_join_sorted(char **words, int n, char *buf, size_t size);

/* The commit a tavreli build names in its id name ("tavreli 0.1.0
 * (1a2b3c4d5e6f-dirty) default"), into buf; false (buf "") for another
 * program's name. */
bool engine_id_commit_of_name(const char *id_name, char *buf, size_t n);

/* The identity of an entry of a tournament (tournament.h) that its
 * configuration gives: name, path, kind, limits, clock; the built-in
 * engine's weights, settings and this build; a program's command and
 * options (sorted).  What only a running program says (its executable, id
 * name) is the player's (player_identify). */
struct TournamentEngine;
void engine_id_of_entry(const struct TournamentEngine *te, StoredEngine *se);

/* What `tavreli --version` prints, two lines: "tavreli VERSION (commit
 * COMMIT)" and "built as KIND from tree TREE", KIND the build type and what
 * changes its speed ("Release", "RelWithDebInfo+sanitize"), TREE the git
 * tree of the tracked files it was built from (cmake/tavreli_tree.cmake);
 * each "unknown" outside a git checkout. */
void engine_id_version_line(char *buf, size_t n);

/* The kind and tree of a tavreli build's --version text, into kind and
 * tree; false (both "") for a text without them (an older build, "unknown",
 * another program). */
bool engine_id_build_of_version(const char *text, char *kind, size_t kn, char *tree, size_t tn);

/* The commit a tavreli build's --version line names, into buf; false (buf
 * "") for a line that names none ("unknown", a build older than the
 * commit in --version, another program). */
bool engine_id_commit_of_version(const char *text, char *buf, size_t n);

/* The id name this tavreli build announces for the engine version `name`:
 * "tavreli VERSION (COMMIT) NAME" ("tavreli VERSION NAME" outside git). */
void engine_id_uci_name(const char *name, char *buf, size_t n);

/* A separate program's executable: the first word of command, found as
 * execvp finds it (a path with '/' from the working directory, else along
 * PATH), resolved (symbolic links followed) into e->exe_path, with its size
 * and SHA-256.  Errors: no such program, or it cannot be read. */
TvStatus engine_id_program(const char *command, StoredEngine *e, TvError *err);

/* The longest a bench command may take: `tavreli bench search` takes
 * 0.2 s (0.9 s built with the sanitizers), chess engines' benches a few
 * seconds; a minute leaves a loaded machine room. */
#define ENGINE_ID_BENCH_TIMEOUT_MS 60000

/* A bench signature: runs command (words as engine_proc_split reads them,
 * in dir, NULL or "" for the current one) and reads the node count of the
 * last line that says "nodes N" or "N nodes".  Errors: it cannot be run,
 * does not end within ENGINE_ID_BENCH_TIMEOUT_MS, ends with a non-zero
 * status or prints no node count (each quoting its last lines). */
TvStatus engine_id_bench(const char *command, const char *dir, int64_t *nodes, TvError *err);

/* A tavreli build's own bench signature: engine_id_bench of
 * "'EXE' bench search" (its `nodes N`, which changes only when the search
 * or the evaluation change). */
TvStatus engine_id_tavreli_bench(const char *exe, int64_t *nodes, TvError *err);

/* The /engines rows of a store just read, of schema version `schema`:
 * every text ends within its field; a store older than the current schema
 * is put in today's spelling (booleans of the settings as yes/no; a
 * program's options from the option.NAME lines of the stored tournament
 * INI, where they were kept before schema 4), so that they compare with
 * today's. */
void engine_id_upgrade(StoredEngine *engines, int nengines, int schema, const char *tournament_ini);

#endif
