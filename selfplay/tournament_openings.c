/* tournament_openings.c: the openings of a tournament: an openings file
 * ([openings] file: TFENs or game records, checked under the tournament's
 * rules, ordered as [openings] order says) and, without one, the random
 * balanced openings made from the tournament's seed.  See tournament.h. */
#include "tournament.h"
#include "tournament_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "record.h"
#include "rng.h"
#include "search.h"
#include "tfen.h"
#include "variety.h"

#define OPENING_ATTEMPTS 1000

/* ---- the openings file ------------------------------------------------------- */

/* The openings collected from a file. */
typedef struct {
    char (*tfens)[TV_TFEN_MAX];
    int n, cap;
} Openings;

/* Adds position p (read from `path` at `line`) when the game is not over. */
static TvStatus add_opening(Openings *o, const Tournament *t, const Position *p, const char *path, int line,
                            TvError *err)
{
    GameState gs = movegen_state(p, &t->rules);
    if (gs != TV_STATE_ONGOING) {
        return tv_fail_at(err, TV_ERR_PARSE, path, line, "the game is already over (%s)", game_state_name(gs));
    }
    if (o->n == o->cap) {
        int ncap = o->cap ? o->cap * 2 : 64;
        void *bigger = realloc(o->tfens, (size_t)ncap * sizeof *o->tfens);
        if (!bigger)
            return tv_fail(err, TV_ERR_LIMIT, "%s:%d: out of memory reading the openings", path, line);
        o->tfens = bigger;
        o->cap = ncap;
    }
    tfen_write(p, o->tfens[o->n++], TV_TFEN_MAX);
    return TV_OK;
}

/* True when the text is game records (TGN): its first line that is not blank
 * or a '#' comment starts with '['. */
static bool openings_are_records(const char *text)
{
    for (const char *s = text; *s;) {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s == '[')
            return true;
        if (*s && *s != '\n' && *s != '#')
            return false;
        const char *eol = strchr(s, '\n');
        s = eol ? eol + 1 : s + strlen(s);
    }
    return false;
}

/* Adds p as an opening unless an earlier one of the file is the same
 * position: then counts the repeat (the first one's line and the line it
 * repeats into t). */
static TvStatus add_distinct(Openings *o, Tournament *t, const Position *p, const char *path, int line, int *lines,
                             TvError *err)
{
    TvStatus st = add_opening(o, t, p, path, line, err);
    if (st != TV_OK)
        return st;
    for (int k = 0; k < o->n - 1; k++)
        if (strcmp(o->tfens[k], o->tfens[o->n - 1]) == 0) {
            o->n--; /* seen before */
            if (!t->opening_repeats++) {
                t->opening_repeat_line = line;
                t->opening_repeat_of = lines[k];
            }
            return TV_OK;
        }
    lines[o->n - 1] = line;
    return TV_OK;
}

/* Game records as openings: each record's start position (its TFEN tag, or
 * the start position) and then its moves, all of them or, when [openings]
 * plies is given, at most that many (as cutechess-cli takes a PGN book's
 * moves, plies= cutting them); each distinct position once, the repeats
 * counted.  `plies = 0` takes the start positions alone: a TGN file that
 * `tavreli export --tgn` wrote gives back the openings of its games. */
static TvStatus record_openings(Openings *o, Tournament *t, const char *text, const char *path, TvError *err)
{
    RecordList list;
    TvError e;
    if (records_read_string(text, path, &list, &e) != TV_OK) {
        if (err) {
            *err = e;
            snprintf(err->file, sizeof err->file, "%.*s", (int)sizeof err->file - 1, path);
        }
        return tv_fail(err, e.status, "%s", e.msg);
    }
    int *lines = malloc(sizeof *lines * (size_t)(list.count > 0 ? list.count : 1));
    TvStatus st = lines ? TV_OK : tv_fail(err, TV_ERR_LIMIT, "%s: out of memory reading the openings", path);
    const int limit = t->openings.plies_given ? t->openings.plies : -1;
    for (int i = 0; i < list.count && st == TV_OK; i++) {
        const GameRecord *g = &list.games[i];
        Position p;
        if (tfen_read_arg(g->start_tfen[0] ? g->start_tfen : "startpos", &p, &e) != TV_OK) {
            st = tv_fail_at(err, TV_ERR_PARSE, path, g->source_line, "%s", e.msg);
            break;
        }
        if (limit != 0) {
            ReplayResult res;
            if (replay_movetext(&p, &t->rules, g->movetext ? g->movetext : "", TV_PARSE_STRICT, &res, &e) != TV_OK) {
                st = tv_fail_at(err, TV_ERR_PARSE, path, g->source_line,
                                "the record's moves (the opening) do not replay under the tournament's rules: %s",
                                e.msg);
                break;
            }
            const int n = limit < 0 || res.plies < limit ? res.plies : limit;
            for (int k = 0; k < n; k++) {
                Undo u;
                pos_make_move(&p, res.moves[k], &u);
            }
            replay_result_free(&res);
            if (movegen_state(&p, &t->rules) != TV_STATE_ONGOING) {
                st = tv_fail_at(err, TV_ERR_PARSE, path, g->source_line,
                                "the game is over after the record's %d move%s (%s): an opening must leave a game to "
                                "play; give [openings] plies = N to take only its first N moves (0: its start "
                                "position)",
                                n, n == 1 ? "" : "s", game_state_name(movegen_state(&p, &t->rules)));
                break;
            }
        }
        st = add_distinct(o, t, &p, path, g->source_line, lines, err);
    }
    free(lines);
    records_free(&list);
    return st;
}

static TvStatus tfen_lines(Openings *o, Tournament *t, char *text, const char *path, int *lines, TvError *err);

/* TFEN lines as openings ('#' comments, blank lines skipped), each
 * distinct position once, the repeats counted. */
static TvStatus tfen_openings(Openings *o, Tournament *t, char *text, const char *path, TvError *err)
{
    int nlines = 1;
    for (const char *c = text; *c; c++)
        nlines += *c == '\n';
    int *lines = malloc(sizeof *lines * (size_t)nlines);
    if (!lines)
        return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory reading the openings", path);
    TvStatus st = tfen_lines(o, t, text, path, lines, err);
    free(lines);
    return st;
}

static TvStatus tfen_lines(Openings *o, Tournament *t, char *text, const char *path, int *lines, TvError *err)
{
    int line = 1;
    for (char *s = text; *s; line++) {
        char *eol = strchr(s, '\n');
        char *next = eol ? eol + 1 : s + strlen(s);
        char *end = eol ? eol : next;
        char *hash = memchr(s, '#', (size_t)(end - s));
        if (hash)
            end = hash;
        while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            end--;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s == end) {
            s = next;
            continue;
        }
        *end = 0;
        Position p;
        TvError e;
        tv_error_clear(&e);
        if (tfen_read_arg(s, &p, &e) != TV_OK) {
            return tv_fail_at(err, TV_ERR_PARSE, path, line, "%s", e.msg);
        }
        TvStatus st = add_distinct(o, t, &p, path, line, lines, err);
        if (st != TV_OK)
            return st;
        s = next;
    }
    return TV_OK;
}

/* The file's n openings in the order they are played: with order = random
 * a permutation (Fisher-Yates) drawn from the tournament's seed, so the same
 * on any number of threads or processes and on every resume; then rotated so
 * that opening `start` comes first.  Into t->opening_tfens (o->tfens is
 * freed); false when out of memory. */
static bool order_openings(Tournament *t, Openings *o)
{
    const int n = o->n;
    int *perm = malloc((size_t)n * sizeof *perm);
    char (*ordered)[TV_TFEN_MAX] = malloc((size_t)n * sizeof *ordered);
    if (!perm || !ordered) {
        free(perm);
        free(ordered);
        return false;
    }
    for (int i = 0; i < n; i++)
        perm[i] = i;
    if (t->openings.random_order) {
        uint64_t rng = tv_rng_mix(t->seed ^ 0x6F70656E6F726472ull); /* "openordr": not the openings' own stream */
        for (int i = n - 1; i > 0; i--) {
            int j = (int)tv_rng_below(&rng, (uint64_t)i + 1);
            int x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
    }
    for (int i = 0; i < n; i++)
        memcpy(ordered[i], o->tfens[perm[(t->openings.start - 1 + i) % n]], sizeof ordered[i]);
    free(perm);
    free(o->tfens);
    o->tfens = NULL;
    t->opening_tfens = ordered;
    t->nopening_tfens = n;
    return true;
}

TvStatus tournament_load_openings(Tournament *t, int ini_line, int start_line, bool stored, TvError *err)
{
    const char *path = t->openings.file;
    char *text;
    size_t len;
    TvError e;
    if (tv_read_file(path, "openings file", &text, &len, &e) != TV_OK) {
        return tv_fail_at(err, TV_ERR_IO, t->source, ini_line, "%s", e.msg);
    }
    Openings o = {NULL, 0, 0};
    TvStatus st;
    t->opening_repeats = t->opening_repeat_line = t->opening_repeat_of = 0;
    if (strlen(text) != len) {
        int line = 1;
        for (const char *c = text; *c; c++)
            line += *c == '\n';
        st = tv_fail_at(err, TV_ERR_PARSE, path, line, "a NUL byte: an openings file is text");
    } else if (t->openings.format == OPENINGS_FORMAT_TGN ||
               (t->openings.format == OPENINGS_FORMAT_AUTO && openings_are_records(text)))
        st = record_openings(&o, t, text, path, err);
    else
        st = tfen_openings(&o, t, text, path, err);
    free(text);
    if (st == TV_OK && o.n == 0)
        st = tv_fail_at(err, TV_ERR_PARSE, t->source, ini_line, "the openings file '%s' has no positions", path);
    const int64_t needed = tournament_openings_needed(t);
    if (st == TV_OK && t->openings.start > o.n)
        st = tv_fail_at(err, TV_ERR_PARSE, t->source, start_line,
                     "[openings] start %d is beyond the %d openings of '%s' (give 1 to %d)", t->openings.start, o.n,
                     path, o.n);
    else if (st == TV_OK && needed > o.n && !t->openings.cycle && !stored) {
        char why[200] = "";
        if (t->opening_repeats)
            snprintf(why, sizeof why, " (distinct positions: %d of its entries repeat an earlier one's, the first "
                                      "at line %d that of line %d)",
                     t->opening_repeats, t->opening_repeat_line, t->opening_repeat_of);
        st = tv_fail_at(err, TV_ERR_PARSE, t->source, ini_line,
                     "the openings file '%s' has %d openings%s, but the plan needs %lld (%s = %lld), so the rest "
                     "would repeat them: give more openings, fewer pairs, or set [openings] cycle = yes to play "
                     "them again",
                     path, o.n, why, (long long)needed,
                     t->openings.per_game ? "one per game with per_game = yes: games" : "one per round: pairs",
                     (long long)needed);
    }
    if (st == TV_OK && !order_openings(t, &o))
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory ordering the openings", path);
    free(o.tfens);
    return st;
}

/* ---- openings -------------------------------------------------------------------- */

/* The random generator of attempt `attempt` at opening `opening`:
 * splitmix64 seeded with mix(mix(mix(seed ^ "openings") + opening) + attempt). */
static uint64_t opening_rng_seed(uint64_t seed, int opening, int attempt)
{
    uint64_t h = tv_rng_mix(seed ^ 0x6F70656E696E6773ull); /* "openings" */
    h = tv_rng_mix(h + (uint64_t)(uint32_t)opening);
    return tv_rng_mix(h + (uint64_t)(uint32_t)attempt);
}

TvStatus tournament_opening(const Tournament *t, int opening, Position *out, TvError *err)
{
    tv_error_clear(err);
    if (opening < 0)
        return tv_fail(err, TV_ERR_ARG, "opening index %d is negative", opening);
    if (t->nopening_tfens > 0) {
        int line = opening % t->nopening_tfens;
        TvError e;
        tv_error_clear(&e);
        if (tfen_read_arg(t->opening_tfens[line], out, &e) != TV_OK)
            return tv_fail(err, e.status, "opening %d (%s): %s", opening, t->opening_tfens[line], e.msg);
        return TV_OK;
    }
    const OpeningSettings *os = &t->openings;
    if (t->stop && *t->stop) /* a signal: before the search's table is made (a megabyte to clear) */
        return tv_fail(err, TV_ERR_ARG, "stopped by a signal while making opening %d", opening);
    SearchContext *ctx = NULL;
    if (os->balance_depth > 0 || os->sample_plies > 0) {
        EvalParams params;
        eval_params_default(&params);
        SearchSettings ss;
        search_settings_default(&ss);
        ss.tt_mb = 1; /* positions a few plies from the start: a small table is plenty */
        ctx = search_alloc(&params, &t->rules, &ss);
        if (!ctx)
            return tv_fail(err, TV_ERR_LIMIT, "opening %d: out of memory for the balance search", opening);
    }
    for (int attempt = 0; attempt < OPENING_ATTEMPTS; attempt++) {
        if (t->stop && *t->stop) { /* a signal: each attempt takes about a millisecond */
            search_free(ctx);
            return tv_fail(err, TV_ERR_ARG, "stopped by a signal while making opening %d", opening);
        }
        uint64_t rng = opening_rng_seed(t->seed, opening, attempt);
        pos_set_start(out);
        bool ok = true;
        for (int i = 0; i < os->plies && ok; i++) {
            MoveList list;
            movegen_legal(out, &t->rules, &list);
            if (list.count == 0) {
                ok = false;
                break;
            }
            Undo u;
            pos_make_move(out, list.moves[tv_rng_below(&rng, (uint64_t)list.count)], &u);
        }
        if (ok && os->sample_plies > 0) {
            search_clear(ctx);
            ok = variety_sample_plies(ctx, out, &t->rules, os->sample_plies, os->sample_temperature, &rng);
        }
        if (!ok || movegen_state(out, &t->rules) != TV_STATE_ONGOING)
            continue;
        if (os->balance_depth > 0) {
            SearchLimits lim = {os->balance_depth, 0, 0};
            SearchResult res;
            search_clear(ctx);
            search_run(ctx, out, NULL, 0, &lim, NULL, NULL, &res);
            if (res.score > os->balance_cp || res.score < -os->balance_cp)
                continue;
        }
        search_free(ctx);
        return TV_OK;
    }
    search_free(ctx);
    return tv_fail(err, TV_ERR_LIMIT,
                   "opening %d: no balanced position in %d attempts (plies %d, balance_depth %d, balance_cp %d)",
                   opening, OPENING_ATTEMPTS, os->plies, os->balance_depth, os->balance_cp);
}
