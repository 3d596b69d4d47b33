#define _POSIX_C_SOURCE 200809L
/* report.c: strength reports from self-play stores (and a tuning log): what
 * the report says.
 *
 * The work is done in stages, each of which can fail with a clear message
 * before anything is written:
 *   1. read every store, map its engines to the players of the first store
 *      by name, and turn its games into RatedGame entries (pair ids made
 *      unique per file);
 *   2. fit the ratings and compute the per-pairing statistics, the
 *      termination counts, the game lengths, the SPRT paths and the tuning
 *      log's ranking (the log is read by tune_log.h);
 *   3. create outdir and draw the plots (report_plot.h: the data files, one
 *      gnuplot script, gnuplot, every PNG checked);
 *   4. build the report once as a document (report_doc.h: headings,
 *      paragraphs, tables, images) and render it twice: report.md and
 *      report.html. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ini.h>

#include "h5store.h"
#include "outcome.h"
#include "ratings.h"
#include "report.h"
#include "report_doc.h"
#include "report_plot.h"
#include "search.h"
#include "strbuf.h"
#include "tune_log.h"

#define TOP_WEIGHTS 15
/* The referee's terminations (outcome.h: illegal_move, time_forfeit,
 * engine_died, engine_stalled), each a game its engine lost without playing
 * it out. */
#define NREFEREE (TERM_ENGINE_STALLED - TERM_ILLEGAL_MOVE + 1)
/* A note says so when an engine lost more than this share of its games by
 * the referee's decision.  Each such game can move its score by a whole
 * point, so a share s can move it by s: 2% is up to 14 Elo near an even
 * score (about 7 Elo per percentage point), more than the 0..5 nElo SPRT
 * bounds of docs/engines.md and more than the 95% half-width of a 2,000-game
 * run (12 Elo at 40% draws).
 * (A 3-engine tournament at tc = 2+0.05 under load lost 35 of its 102 games
 * on time, and its report claimed LOS 98.2% where the same tournament
 * without forfeits gave 57.4%.) */
#define REFEREE_NOTE_SHARE 0.02
#define NTERM (TERM_COUNT + 1) /* the Termination values, and one more for anything else */


/* ---- formatting ------------------------------------------------------------------ */

/* Every Elo value is written by stats.h's one formatter (stats_fmt_elo and
 * its kin): whole Elo with its sign, and 0 without one. */

static void fmt_pct(char *buf, size_t n, double x)
{
    if (x > 0.999 && x < 1)
        snprintf(buf, n, ">99.9%%");
    else if (x > 0 && x < 0.001)
        snprintf(buf, n, "<0.1%%");
    else if (isfinite(x))
        snprintf(buf, n, "%.1f%%", 100.0 * x);
    else
        snprintf(buf, n, "n/a");
}

/* ---- the tuning log ------------------------------------------------------------------ */

/* A weight of the tuning log and how far it moved, for the ranking. */
typedef struct {
    const TuneLogWeight *w;
    double move; /* new - start */
    double key;  /* |move| / stderr when ranked by z, else |move| */
} RankedWeight;

/* Biggest key first (ties: by name; names are unique in a log). */
static int cmp_ranked(const void *a, const void *b)
{
    const RankedWeight *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return strcmp(x->w->name, y->w->name);
}

/* ---- the SPRT of one store -------------------------------------------------------------- */

typedef struct {
    int file;              /* index in the file list */
    double elo0, elo1, alpha, beta, lower, upper;
    char *result;          /* the stored decision (heap, may be NULL) */
    int a, b;              /* the store's engines 0 and 1, as players */
    int64_t npairs;
    int64_t penta[5];
    double llr;
    double *path_games, *path_llr; /* npairs + 1 points, starting at (0, 0) */
    double minllr, maxllr;
} SprtInfo;

/* Reads the store's "sprt" attribute into s (stats.h's reader) and sets the
 * LLR bounds. */
static TvStatus parse_sprt(const char *file, const char *text, SprtInfo *s, TvError *err)
{
    SprtSettings set;
    TvError e;
    if (sprt_settings_parse(text, &set, &e) != TV_OK)
        return tv_fail(err, TV_ERR_PARSE, "%s: %s", file, e.msg);
    s->elo0 = set.elo0;
    s->elo1 = set.elo1;
    s->alpha = set.alpha;
    s->beta = set.beta;
    sprt_bounds(s->alpha, s->beta, &s->lower, &s->upper);
    return TV_OK;
}

static int cmp_game_index(const void *a, const void *b)
{
    const StoredGame *x = *(const StoredGame *const *)a, *y = *(const StoredGame *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The LLR after each complete pair of the store's engines 0 and 1, in
 * game-index order, from engine 0's view. */
static TvStatus sprt_path(const StoreContents *c, SprtInfo *s, TvError *err)
{
    const StoredGame **g = malloc((size_t)(c->ngames ? c->ngames : 1) * sizeof *g);
    int64_t n = 0;
    if (!g)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int64_t i = 0; i < c->ngames; i++) {
        const StoredGame *x = &c->games[i];
        if ((x->white == 0 && x->black == 1) || (x->white == 1 && x->black == 0))
            g[n++] = x;
    }
    qsort(g, (size_t)n, sizeof *g, cmp_game_index);
    s->path_games = malloc((size_t)(n / 2 + 1) * sizeof(double));
    s->path_llr = malloc((size_t)(n / 2 + 1) * sizeof(double));
    if (!s->path_games || !s->path_llr) {
        free(g);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    s->path_games[0] = 0;
    s->path_llr[0] = 0;
    s->minllr = s->maxllr = 0;
    for (int64_t i = 0; i + 1 < n; i++) {
        if (g[i]->index % 2 != 0 || g[i + 1]->index != g[i]->index + 1)
            continue;
        int pts2 = 0; /* engine 0's points in the pair, doubled */
        for (int k = 0; k < 2; k++) {
            int r = g[i + k]->result;
            pts2 += g[i + k]->white == 0 ? r + 1 : 1 - r;
        }
        s->penta[pts2]++;
        s->npairs++;
        s->llr = sprt_llr_pentanomial(s->penta, s->elo0, s->elo1);
        s->path_games[s->npairs] = 2.0 * (double)s->npairs;
        s->path_llr[s->npairs] = s->llr;
        if (isfinite(s->llr)) {
            s->minllr = fmin(s->minllr, s->llr);
            s->maxllr = fmax(s->maxllr, s->llr);
        }
        i++;
    }
    free(g);
    return TV_OK;
}

/* ---- what was played ------------------------------------------------------------------- */

/* Unix time t as "2026-12-01 16:20 UTC". */
static void fmt_utc(char *buf, size_t n, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, n, "%lld (Unix time)", (long long)t);
}

typedef struct {
    const char *section;
    StrBuf *out;
} SectionKeys;

static int section_key(void *user, const char *section, const char *name, const char *value)
{
    SectionKeys *k = user;
    if (!strcmp(section, k->section))
        strbuf_addf(k->out, "%s%s = %s", k->out->len ? ", " : "", name, value);
    return 1;
}

/* The keys of [section] of an INI text as "k = v, k = v" into out (nothing
 * when the section is missing: every key at its default). */
static void section_keys(const char *ini, const char *section, StrBuf *out)
{
    SectionKeys k = {section, out};
    ini_parse_string(ini ? ini : "", section_key, &k);
}

/* The limits of an engine: "depth 3, nodes 1000, movetime 100 ms" or "none". */
static void engine_limits(const StoredEngine *e, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    if (e->depth > 0)
        o += (size_t)snprintf(buf + o, n - o, "depth %d", (int)e->depth);
    if (e->nodes > 0 && o < n)
        o += (size_t)snprintf(buf + o, n - o, "%snodes %lld", o ? ", " : "", (long long)e->nodes);
    if (e->movetime_ms > 0 && o < n)
        o += (size_t)snprintf(buf + o, n - o, "%smovetime %d ms", o ? ", " : "", (int)e->movetime_ms);
    if (!buf[0])
        snprintf(buf, n, "none");
}

/* The words "name=value" of a stored settings text whose value is not the
 * setting's default (search.def), into out; "defaults" when there is none. */
static void settings_not_default(const char *settings, StrBuf *out)
{
    size_t before = out->len;
    for (const char *w = settings; *w;) {
        size_t len = strcspn(w, " ");
        const char *eq = memchr(w, '=', len);
        bool dflt = false;
        for (int i = 0; eq && i < SEARCH_NSETTINGS; i++)
            if (strlen(SEARCH_SETTING_INFO[i].name) == (size_t)(eq - w) &&
                !strncmp(w, SEARCH_SETTING_INFO[i].name, (size_t)(eq - w)))
                dflt = atoi(eq + 1) == SEARCH_SETTING_INFO[i].def;
        if (!dflt)
            strbuf_addf(out, "%s%.*s", out->len > before ? " " : "", (int)len, w);
        w += len + (w[len] == ' ');
    }
    if (out->len == before)
        strbuf_addf(out, "defaults");
}

/* ---- the report ------------------------------------------------------------------------ */

typedef struct {
    char name[64];
    const StoredEngine *eng; /* in the first store that has it */
    const char *options;     /* its option.NAME lines there ("NAME=VALUE ...", "" when none) */
    int file;                /* that store */
    int64_t games;
    double points;
    int64_t referee_lost[NREFEREE]; /* games it lost by each referee termination */
    int rated; /* index in the ratings (-1: no games against another player) */
} Player;

typedef struct {
    int a, b; /* players, a < b */
    int64_t games;
    int64_t adjudicated; /* games ended by adjudication (ply limit, resignation, draw) */
    bool identical;      /* the two engines are the same version under two names */
    PairingStats ps;
    double *elo, *err95; /* games: a's Elo and its 95% half-width after each game, as played */
} Pairing;

typedef struct {
    const char *const *files;
    int nfiles;
    StoreContents *c; /* nfiles */
    char ***options;  /* nfiles x c[f].nengines: each engine's option.NAME lines (engine_options) */
    int nplayers;
    Player *players;
    int64_t ngames;       /* all games, each once */
    const StoredGame **kept; /* ngames: the games counted (a game two stores hold, once) */
    int *kept_white, *kept_black; /* ngames: their players */
    int64_t nduplicates;  /* games left out: held by an earlier store too */
    bool mix_rules;       /* stores of other rule options may be rated together */
    int64_t nself;        /* games of an engine against itself (not rated) */
    RatedGame *rg;        /* rated games, players as rating indices */
    int64_t nrg;
    int nrated;
    int *rated_player;    /* nrated: rating index -> player */
    Ratings r;
    bool have_r;
    int *order;           /* nrated rating indices, best first */
    Pairing *pairings;
    int npairings;
    int64_t term[NTERM][3]; /* termination x (White won, drawn, Black won) */
    int *plies;           /* ngames, sorted */
    int64_t *decisive_by_bin, *drawn_by_bin;
    int nbins, binw;
    SprtInfo *sprt;
    int nsprt;
    TuneLog tl;
    bool have_tl;
    bool tl_have_hold;     /* some iteration has a hold-out loss */
    bool tl_by_z;          /* weights ranked by |move| / stderr (every stderr > 0), else by |move| */
    RankedWeight *tl_rank; /* tl.nweights, the biggest movers first */
    const char *tuning_path;
    int simulations; /* > 0: intervals from simulated replays */
    const char *baseline_name; /* --baseline (NULL: the first engine) */
    int baseline;    /* its player */
} Report;

static void report_free(Report *R)
{
    for (int f = 0; R->options && f < R->nfiles; f++) { /* before the contents, which count them */
        for (int e = 0; R->options[f] && e < R->c[f].nengines; e++)
            free(R->options[f][e]);
        free(R->options[f]);
    }
    free(R->options);
    if (R->c)
        for (int f = 0; f < R->nfiles; f++)
            h5store_contents_free(&R->c[f]);
    free(R->c);
    free(R->players);
    free(R->kept);
    free(R->kept_white);
    free(R->kept_black);
    for (int i = 0; i < R->npairings; i++) {
        free(R->pairings[i].elo);
        free(R->pairings[i].err95);
    }
    free(R->rg);
    free(R->rated_player);
    if (R->have_r)
        ratings_free(&R->r);
    free(R->order);
    free(R->pairings);
    free(R->plies);
    free(R->decisive_by_bin);
    free(R->drawn_by_bin);
    for (int i = 0; i < R->nsprt; i++) {
        free(R->sprt[i].result);
        free(R->sprt[i].path_games);
        free(R->sprt[i].path_llr);
    }
    free(R->sprt);
    tune_log_free(&R->tl);
    free(R->tl_rank);
}

/* ---- what an engine is: its /engines row and its option.NAME lines ------------------ */

/* A separate program's options are not in /engines: they are the
 * option.NAME = VALUE lines of its [engine NAME] section (and of an [each]
 * section, which holds keys for every engine) in the store's tournament_ini,
 * read here with inih as the tournament reader reads them. */
typedef struct {
    const StoreContents *c;
    StrBuf *own;  /* c->nengines: "NAME=VALUE ..." of each engine's section */
    StrBuf each;  /* of [each] */
} OptionLines;

static int option_line(void *user, const char *section, const char *name, const char *value)
{
    OptionLines *o = user;
    if (strncmp(name, "option.", 7) != 0)
        return 1;
    StrBuf *dst = NULL;
    if (!strcmp(section, "each")) {
        dst = &o->each;
    } else if (!strncmp(section, "engine", 6) && (section[6] == ' ' || section[6] == '\t')) {
        const char *n = section + 6;
        while (*n == ' ' || *n == '\t')
            n++;
        size_t len = strlen(n);
        while (len > 0 && (n[len - 1] == ' ' || n[len - 1] == '\t'))
            len--;
        for (int e = 0; e < o->c->nengines && !dst; e++)
            if (strlen(o->c->engines[e].name) == len && !strncmp(o->c->engines[e].name, n, len))
                dst = &o->own[e];
    }
    if (dst)
        strbuf_addf(dst, "%s%s=%s", dst->len ? " " : "", name + 7, value);
    return 1;
}

/* Each engine's options in store c, "NAME=VALUE ..." ([each] first, then
 * its own section; "" when none), as c->nengines heap strings in *out.
 * A tournament_ini that does not read (a store written by hand) gives none. */
static TvStatus engine_options(const StoreContents *c, char ***out, TvError *err)
{
    OptionLines o = {c, calloc((size_t)(c->nengines ? c->nengines : 1), sizeof(StrBuf)), {0}};
    char **opts = calloc((size_t)(c->nengines ? c->nengines : 1), sizeof *opts);
    TvStatus st = TV_OK;
    if (!o.own || !opts) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        goto done;
    }
    ini_parse_string(c->tournament_ini ? c->tournament_ini : "", option_line, &o);
    for (int e = 0; e < c->nengines && st == TV_OK; e++) {
        StrBuf all = {0};
        strbuf_addf(&all, "%s%s%s", o.each.s ? o.each.s : "", o.each.len && o.own[e].len ? " " : "",
                    o.own[e].s ? o.own[e].s : "");
        if (o.own[e].failed || o.each.failed || !(opts[e] = strbuf_take(&all))) /* take: "" when empty */
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
done:
    for (int e = 0; o.own && e < c->nengines; e++)
        free(o.own[e].s);
    free(o.own);
    free(o.each.s);
    if (st != TV_OK && opts) {
        for (int e = 0; e < c->nengines; e++)
            free(opts[e]);
        free(opts);
        opts = NULL;
    }
    *out = opts;
    return st;
}

/* The first word (space-separated "name=value") where a and b differ, as
 * "WORD_OF_B, there WORD_OF_A". */
static void first_word_difference(const char *a, const char *b, char *out, size_t n)
{
    while (*a || *b) {
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la != lb || strncmp(a, b, la)) {
            snprintf(out, n, "%.*s, there %.*s", lb ? (int)(lb > 60 ? 60 : lb) : 4, lb ? b : "none",
                     la ? (int)(la > 60 ? 60 : la) : 4, la ? a : "none");
            return;
        }
        a += la + (a[la] == ' ');
        b += lb + (b[lb] == ' ');
    }
    snprintf(out, n, "the same words");
}

/* An engine of a store as the report compares it: its /engines row and its
 * option.NAME lines. */
typedef struct {
    const StoredEngine *e;
    const char *options; /* "NAME=VALUE ..." or "" */
} EngineId;

static const char *KIND_NAMES[] = {"in-process engine", "random mover", "separate program"};

static const char *kind_name(int kind)
{
    return kind >= 0 && kind < 3 ? KIND_NAMES[kind] : "unknown kind";
}

/* Why x and y are not the same engine version (a name stands for one
 * version: the same kind, program and options, limits and clock, weights
 * and search settings), or NULL.  y is said first ("B, there A").  Search
 * settings are compared when both stores hold them (a store made before they
 * were stored has ""). */
static const char *engine_difference(EngineId x, EngineId y, char *why, size_t n)
{
    const StoredEngine *a = x.e, *b = y.e;
    char w[160];
    if (a->kind != b->kind) {
        snprintf(why, n, "another kind of player (%s, there %s)", kind_name(b->kind), kind_name(a->kind));
        return why;
    }
    if (strncmp(a->command, b->command, sizeof a->command)) {
        snprintf(why, n, "a different program (command '%.80s', there '%.80s')", b->command, a->command);
        return why;
    }
    if (strcmp(x.options, y.options)) {
        first_word_difference(x.options, y.options, w, sizeof w);
        snprintf(why, n, "other options (%s)", w);
        return why;
    }
    if (a->depth != b->depth || a->nodes != b->nodes || a->movetime_ms != b->movetime_ms ||
        strncmp(a->tc, b->tc, sizeof a->tc))
        return "other limits";
    if (a->timemargin_ms != b->timemargin_ms) {
        snprintf(why, n, "another timemargin (%d ms, there %d ms)", (int)b->timemargin_ms, (int)a->timemargin_ms);
        return why;
    }
    for (int i = 0; i < EVAL_NWEIGHTS; i++)
        if (a->weights[i] != b->weights[i]) {
            char name[96];
            eval_weight_element_name(i, name, sizeof name);
            snprintf(why, n, "other weights (%s %d, there %d)", name, b->weights[i], a->weights[i]);
            return why;
        }
    if (a->settings[0] && b->settings[0] && strncmp(a->settings, b->settings, sizeof a->settings)) {
        first_word_difference(a->settings, b->settings, w, sizeof w);
        snprintf(why, n, "other search settings (%s)", w);
        return why;
    }
    return NULL;
}

/* Whether x and y are known to play alike: no difference, and for the
 * built-in engine search settings stored for both. */
static bool engines_identical(EngineId x, EngineId y)
{
    char why[8];
    return !engine_difference(x, y, why, sizeof why) &&
           (x.e->kind != 0 || (x.e->settings[0] && y.e->settings[0]));
}

/* Adds key to the open-addressing set (cap a power of two, at least twice
 * the keys it will hold; 0 marks a free slot); false when it was there. */
static bool set_add(uint64_t *set, size_t cap, uint64_t key)
{
    key = key ? key : 1;
    for (size_t i = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (set[i] == key)
            return false;
        if (set[i] == 0) {
            set[i] = key;
            return true;
        }
    }
}

/* Stage 1: read the stores and collect the games.  Players are matched by
 * name across stores (any engine sets: v1-v2 in one store and v2-v3 in
 * another are one rating list); a game held by two stores counts once. */
static TvStatus collect(Report *R, TvError *err)
{
    R->c = calloc((size_t)(R->nfiles > 0 ? R->nfiles : 1), sizeof *R->c);
    R->options = calloc((size_t)(R->nfiles > 0 ? R->nfiles : 1), sizeof *R->options);
    if (!R->c || !R->options)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    int64_t all = 0;
    for (int f = 0; f < R->nfiles; f++) {
        TvStatus st = h5store_read(R->files[f], false, false, &R->c[f], err);
        if (st != TV_OK)
            return st;
        if (R->c[f].ngames == 0)
            return tv_fail(err, TV_ERR_ARG, "%s: no games", R->files[f]);
        if ((st = engine_options(&R->c[f], &R->options[f], err)) != TV_OK)
            return st;
        if (!R->mix_rules && strcmp(R->c[f].options, R->c[0].options) != 0)
            return tv_fail(err, TV_ERR_ARG,
                           "%s was played under other rules (%s) than %s (%s): rating them together needs "
                           "--mix-rules",
                           R->files[f], R->c[f].options, R->files[0], R->c[0].options);
        all += R->c[f].ngames;
    }
    int total_engines = 0;
    for (int f = 0; f < R->nfiles; f++)
        total_engines += R->c[f].nengines;
    R->players = calloc((size_t)(total_engines ? total_engines : 1), sizeof *R->players);
    R->rg = malloc((size_t)(all ? all : 1) * sizeof *R->rg);
    R->kept = malloc((size_t)(all ? all : 1) * sizeof *R->kept);
    R->kept_white = malloc((size_t)(all ? all : 1) * sizeof *R->kept_white);
    R->kept_black = malloc((size_t)(all ? all : 1) * sizeof *R->kept_black);
    size_t cap = 16;
    while (cap < 2 * (size_t)all)
        cap *= 2;
    uint64_t *keys = calloc(cap, sizeof *keys);
    int *map = malloc((size_t)(total_engines ? total_engines : 1) * sizeof *map);
    TvStatus st = TV_OK;
    if (!R->players || !R->rg || !R->kept || !R->kept_white || !R->kept_black || !keys || !map) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        goto done;
    }
    int64_t pair_base = 0;
    for (int f = 0; f < R->nfiles && st == TV_OK; f++) {
        const StoreContents *c = &R->c[f];
        /* its engines as players: a known name must be the same version */
        for (int e = 0; e < c->nengines && st == TV_OK; e++) {
            map[e] = -1;
            for (int p = 0; p < R->nplayers && map[e] < 0; p++)
                if (!strncmp(c->engines[e].name, R->players[p].name, sizeof c->engines[e].name))
                    map[e] = p;
            char why[400];
            const char *d;
            const EngineId here = {&c->engines[e], R->options[f][e]};
            if (map[e] >= 0 &&
                (d = engine_difference((EngineId){R->players[map[e]].eng, R->players[map[e]].options}, here, why,
                                       sizeof why)))
                st = tv_fail(err, TV_ERR_ARG,
                             "%s: engine '%.64s' has %s than in %s: one name must be one version (rename one of "
                             "them)",
                             R->files[f], c->engines[e].name, d, R->files[R->players[map[e]].file]);
            else if (map[e] < 0) {
                Player *p = &R->players[R->nplayers];
                snprintf(p->name, sizeof p->name, "%.*s", (int)sizeof c->engines[e].name - 1, c->engines[e].name);
                p->eng = &c->engines[e];
                p->options = R->options[f][e];
                p->file = f;
                p->rated = -1;
                map[e] = R->nplayers++;
            }
        }
        int64_t max_index = 0;
        for (int64_t i = 0; i < c->ngames && st == TV_OK; i++) {
            const StoredGame *g = &c->games[i];
            if (g->white < 0 || g->white >= c->nengines || g->black < 0 || g->black >= c->nengines ||
                g->result < -1 || g->result > 1 || g->index < 0) {
                st = tv_fail(err, TV_ERR_PARSE, "%s: game %lld has a bad engine index, result or index", R->files[f],
                             (long long)g->index);
                break;
            }
            /* a game seen in an earlier store (or twice here) counts once */
            if (!set_add(keys, cap, h5store_game_id(c, g))) {
                R->nduplicates++;
                continue;
            }
            int w = map[g->white], b = map[g->black];
            R->kept_white[R->ngames] = w;
            R->kept_black[R->ngames] = b;
            R->kept[R->ngames++] = g;
            if (g->index > max_index)
                max_index = g->index;
            double pw = (g->result + 1) / 2.0;
            R->players[w].games++;
            R->players[b].games++;
            R->players[w].points += pw;
            R->players[b].points += 1.0 - pw;
            if (termination_is_failure(g->termination) && g->result != 0)
                R->players[g->result > 0 ? b : w].referee_lost[g->termination - TERM_ILLEGAL_MOVE]++;
            if (w == b) {
                R->nself++;
                continue;
            }
            RatedGame *r = &R->rg[R->nrg++];
            r->white = w;
            r->black = b;
            r->result = g->result;
            r->pair = pair_base + g->index / 2;
        }
        pair_base += max_index / 2 + 1;
    }
done:
    free(keys);
    free(map);
    return st;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The tuning log's weights ranked by how far they moved, the biggest first. */
static TvStatus rank_tuning(Report *R, TvError *err)
{
    const TuneLog *t = &R->tl;
    for (int i = 0; i < t->niters; i++)
        if (isfinite(t->iters[i].holdout_loss))
            R->tl_have_hold = true;
    R->tl_rank = malloc((size_t)(t->nweights ? t->nweights : 1) * sizeof *R->tl_rank);
    if (!R->tl_rank)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    R->tl_by_z = t->nweights > 0;
    for (int i = 0; i < t->nweights; i++)
        if (!(t->weights[i].se > 0))
            R->tl_by_z = false;
    for (int i = 0; i < t->nweights; i++) {
        RankedWeight *r = &R->tl_rank[i];
        r->w = &t->weights[i];
        r->move = r->w->now - r->w->start;
        r->key = R->tl_by_z ? fabs(r->move) / r->w->se : fabs(r->move);
    }
    qsort(R->tl_rank, (size_t)t->nweights, sizeof *R->tl_rank, cmp_ranked);
    return TV_OK;
}

/* Stage 2: the numbers. */
static TvStatus compute(Report *R, TvError *err)
{
    /* Players who played another player are rated. */
    bool *met = calloc((size_t)R->nplayers, sizeof *met);
    R->rated_player = malloc((size_t)R->nplayers * sizeof *R->rated_player);
    if (!met || !R->rated_player) {
        free(met);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int64_t i = 0; i < R->nrg; i++)
        met[R->rg[i].white] = met[R->rg[i].black] = true;
    for (int p = 0; p < R->nplayers; p++)
        if (met[p]) {
            R->players[p].rated = R->nrated;
            R->rated_player[R->nrated++] = p;
        }
    free(met);
    if (R->nrated < 2) {
        const char *only = R->nplayers > 0 ? R->players[0].name : "?";
        for (int p = 0; p < R->nplayers; p++)
            if (R->players[p].games > 0) {
                only = R->players[p].name;
                break;
            }
        return tv_fail(err, TV_ERR_ARG,
                       "only one engine version (%s) played in %s%s: ratings need two versions that played each other",
                       only, R->files[0], R->nfiles > 1 ? " and the other stores" : "");
    }
    RatedGame *cg = malloc((size_t)R->nrg * sizeof *cg);
    if (!cg)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int64_t i = 0; i < R->nrg; i++) {
        cg[i] = R->rg[i];
        cg[i].white = R->players[cg[i].white].rated;
        cg[i].black = R->players[cg[i].black].rated;
    }
    TvStatus st = ratings_fit(cg, R->nrg, R->nrated, R->simulations, 1, &R->r, err);
    if (st != TV_OK) {
        free(cg);
        return st;
    }
    R->have_r = true;

    /* The baseline: --baseline NAME, or the first engine (of the first store)
     * that played another. */
    R->baseline = R->rated_player[0];
    if (R->baseline_name) {
        R->baseline = -1;
        for (int p = 0; p < R->nplayers; p++)
            if (!strcmp(R->players[p].name, R->baseline_name))
                R->baseline = p;
        if (R->baseline < 0) {
            StrBuf names = {0};
            for (int p = 0; p < R->nplayers; p++)
                strbuf_addf(&names, "%s%s", p ? ", " : "", R->players[p].name);
            st = tv_fail(err, TV_ERR_ARG, "--baseline %.64s: no engine of that name in the stores (engines: %.300s)",
                         R->baseline_name, names.s ? names.s : "");
            free(names.s);
            free(cg);
            return st;
        }
    }
    if (R->players[R->baseline].rated < 0) {
        free(cg);
        return tv_fail(err, TV_ERR_ARG,
                       "the baseline %s played no other engine: choose another with --baseline NAME",
                       R->players[R->baseline].name);
    }

    /* Order: by Elo, best first (ties: store order). */
    R->order = malloc((size_t)R->nrated * sizeof *R->order);
    if (!R->order) {
        free(cg);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int i = 0; i < R->nrated; i++)
        R->order[i] = i;
    for (int i = 1; i < R->nrated; i++) /* insertion sort: a handful of players */
        for (int j = i; j > 0 && R->r.elo[R->order[j]] > R->r.elo[R->order[j - 1]]; j--) {
            int t = R->order[j];
            R->order[j] = R->order[j - 1];
            R->order[j - 1] = t;
        }

    /* Pairings: every two players who met, in store order. */
    int n = R->nplayers;
    int64_t *met_games = calloc((size_t)n * (size_t)n, sizeof *met_games);
    R->pairings = malloc((size_t)(n * (n - 1) / 2 + 1) * sizeof *R->pairings);
    if (!met_games || !R->pairings) {
        free(cg);
        free(met_games);
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    for (int64_t i = 0; i < R->nrg; i++) {
        int a = R->rg[i].white, b = R->rg[i].black;
        met_games[(a < b ? a : b) * n + (a < b ? b : a)]++;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (met_games[a * n + b] > 0) {
                Pairing *p = &R->pairings[R->npairings++];
                memset(p, 0, sizeof *p);
                p->a = a;
                p->b = b;
                p->games = met_games[a * n + b];
                pairing_stats(cg, R->nrg, R->players[a].rated, R->players[b].rated, &p->ps);
                p->identical = engines_identical((EngineId){R->players[a].eng, R->players[a].options},
                                                 (EngineId){R->players[b].eng, R->players[b].options});
                p->elo = malloc(sizeof *p->elo * (size_t)p->games);
                p->err95 = malloc(sizeof *p->err95 * (size_t)p->games);
                if (!p->elo || !p->err95)
                    st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
            }
    free(met_games);
    free(cg);
    if (st != TV_OK)
        return st;
    /* Each pairing's Elo after each of its games, as played. */
    for (int i = 0; i < R->npairings; i++) {
        Pairing *p = &R->pairings[i];
        int64_t w = 0, d = 0, l = 0, k = 0;
        for (int64_t g = 0; g < R->ngames && k < p->games; g++) {
            int x = R->kept_white[g], y = R->kept_black[g];
            if (!((x == p->a && y == p->b) || (x == p->b && y == p->a)))
                continue;
            const StoredGame *sg = R->kept[g];
            int res = x == p->a ? sg->result : -sg->result;
            w += res > 0;
            d += res == 0;
            l += res < 0;
            p->adjudicated += sg->termination == TERM_ADJ_MAX_PLIES || sg->termination == TERM_ADJ_RESIGN ||
                              sg->termination == TERM_ADJ_DRAW;
            double s, se, e, h;
            stats_trinomial(w, d, l, &s, &se, &e, &h);
            p->elo[k] = fmax(-1000, fmin(1000, e));
            p->err95[k++] = h;
        }
    }

    /* Terminations and game lengths (every game, also self-games). */
    R->plies = malloc((size_t)R->ngames * sizeof *R->plies);
    if (!R->plies)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    int64_t k = 0;
    for (int64_t i = 0; i < R->ngames; i++) {
        const StoredGame *g = R->kept[i];
        int t = g->termination >= 0 && g->termination < NTERM - 1 ? g->termination : NTERM - 1;
        R->term[t][1 - g->result]++;
        R->plies[k++] = g->plies < 0 ? 0 : g->plies;
    }
    qsort(R->plies, (size_t)R->ngames, sizeof *R->plies, cmp_int);
    int maxp = R->plies[R->ngames - 1];
    static const int nice[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000};
    R->binw = nice[sizeof nice / sizeof nice[0] - 1];
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if ((maxp + 1 + nice[i] - 1) / nice[i] <= 40) {
            R->binw = nice[i];
            break;
        }
    R->nbins = maxp / R->binw + 1;
    R->decisive_by_bin = calloc((size_t)R->nbins, sizeof *R->decisive_by_bin);
    R->drawn_by_bin = calloc((size_t)R->nbins, sizeof *R->drawn_by_bin);
    if (!R->decisive_by_bin || !R->drawn_by_bin)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int64_t i = 0; i < R->ngames; i++) {
        const StoredGame *g = R->kept[i];
        int bin = (g->plies < 0 ? 0 : g->plies) / R->binw;
        if (g->result)
            R->decisive_by_bin[bin]++;
        else
            R->drawn_by_bin[bin]++;
    }

    /* SPRT: every store that ran one. */
    R->sprt = calloc((size_t)R->nfiles, sizeof *R->sprt);
    if (!R->sprt)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    for (int f = 0; f < R->nfiles; f++) {
        const char *text = R->c[f].sprt; /* the root attribute "sprt" (NULL: none) */
        if (!text)
            continue;
        SprtInfo *s = &R->sprt[R->nsprt++];
        s->file = f;
        if ((st = parse_sprt(R->files[f], text, s, err)) != TV_OK)
            return st;
        if (R->c[f].nengines < 2)
            return tv_fail(err, TV_ERR_ARG, "%s: an SPRT needs two engines", R->files[f]);
        const char *res = R->c[f].sprt_result;
        if (res && !(s->result = strdup(res)))
            return tv_fail(err, TV_ERR_LIMIT, "out of memory");
        if ((st = sprt_path(&R->c[f], s, err)) != TV_OK)
            return st;
    }

    if (R->tuning_path) {
        if ((st = tune_log_read(R->tuning_path, &R->tl, err)) != TV_OK)
            return st;
        R->have_tl = true;
        if ((st = rank_tuning(R, err)) != TV_OK)
            return st;
    }
    return TV_OK;
}

static const char *store_name(const StoreContents *c, int e)
{
    return e >= 0 && e < c->nengines ? c->engines[e].name : "?";
}

/* Stage 3: the plot data, the script, gnuplot. */
static TvStatus plots(const Report *R, const char *outdir, TvError *err)
{
    PlotSet P;
    plot_begin(&P, outdir);
    TvStatus st = plot_lengths(&P, R->ngames, R->binw, R->nbins, R->decisive_by_bin, R->drawn_by_bin, err);
    const char **names = malloc(sizeof *names * (size_t)R->nrated);
    double *elo = malloc(sizeof *elo * 3 * (size_t)R->nrated);
    PlotPairing *pp = malloc(sizeof *pp * (size_t)(R->npairings ? R->npairings : 1));
    char(*labels)[140] = malloc(sizeof *labels * (size_t)(R->npairings ? R->npairings : 1));
    if (st == TV_OK && (!names || !elo || !pp || !labels))
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
    if (st == TV_OK) {
        for (int i = 0; i < R->nrated; i++) {
            int ri = R->order[i];
            names[i] = R->players[R->rated_player[ri]].name;
            elo[i] = R->r.elo[ri];
            elo[R->nrated + i] = R->r.lo[ri];
            elo[2 * R->nrated + i] = R->r.hi[ri];
        }
        st = plot_elo(&P, NULL, names, elo, elo + R->nrated, elo + 2 * R->nrated, R->nrated, err);
    }
    if (st == TV_OK) {
        for (int i = 0; i < R->npairings; i++) {
            const Pairing *q = &R->pairings[i];
            snprintf(labels[i], sizeof labels[i], "%s vs %s", R->players[q->a].name, R->players[q->b].name);
            pp[i] = (PlotPairing){labels[i], q->games, q->elo, q->err95};
        }
        st = plot_pairings(&P, pp, R->npairings, err);
    }
    free(names);
    free(elo);
    free(pp);
    free(labels);
    for (int i = 0; st == TV_OK && i < R->nsprt; i++) {
        const SprtInfo *s = &R->sprt[i];
        const StoreContents *c = &R->c[s->file];
        PlotSprt ps = {store_name(c, 0), store_name(c, 1), s->elo0, s->elo1, s->alpha, s->beta, s->lower, s->upper,
                       s->npairs, s->path_games, s->path_llr, s->minllr, s->maxllr};
        st = plot_sprt(&P, i, &ps, err);
    }
    if (st == TV_OK && R->have_tl && R->tl.niters > 0)
        st = plot_tuning_loss(&P, R->tl.iters, R->tl.niters, R->tl_have_hold, err);
    if (st == TV_OK && R->have_tl && R->tl.nweights > 0) {
        int k = R->tl.nweights < TOP_WEIGHTS ? R->tl.nweights : TOP_WEIGHTS;
        PlotBar bars[TOP_WEIGHTS];
        for (int i = 0; i < k; i++)
            bars[i] = (PlotBar){R->tl_rank[i].w->name, R->tl_rank[i].move, R->tl_rank[i].w->se};
        st = plot_tuning_weights(&P, bars, k, R->tl.nweights,
                                 R->tl_by_z ? "|new - start| / stderr" : "|new - start|", err);
    }
    if (st == TV_OK)
        st = plot_draw(&P, err);
    plot_free(&P);
    return st;
}

/* What was played: each store's program version, dates, rules, openings,
 * adjudication and reproducibility, each engine's kind, program or engine
 * INI, options or search settings, limits and clock, and the tournament INI
 * texts themselves. */
static void build_played(const Report *R, Doc *D)
{
    char a[64], b[64];
    doc_h2(D, "What was played");
    for (int f = 0; f < R->nfiles; f++) {
        const StoreContents *c = &R->c[f];
        int64_t first = INT64_MAX, last = 0, untimed = 0;
        size_t cap = 16;
        while (cap < 2 * (size_t)c->ngames)
            cap *= 2;
        uint64_t *set = calloc(cap, sizeof *set);
        int64_t distinct = 0;
        for (int64_t i = 0; i < c->ngames; i++) {
            const StoredGame *g = &c->games[i];
            if (g->stored_at > 0) {
                int64_t began = g->stored_at - (int64_t)(g->wall_time > 0 ? g->wall_time : 0);
                first = began < first ? began : first;
                last = g->stored_at > last ? g->stored_at : last;
            } else {
                untimed++;
            }
            if (set)
                distinct +=
                    set_add(set, cap, tv_hash_bytes(0, g->start_tfen, strnlen(g->start_tfen, sizeof g->start_tfen)));
        }
        free(set);
        StrBuf when = {0}, open = {0}, adj = {0};
        if (last > 0) {
            fmt_utc(a, sizeof a, first);
            fmt_utc(b, sizeof b, last);
            strbuf_addf(&when, "played from %s (when its first game began) to %s (when its last game was stored)", a,
                        b);
            if (untimed)
                strbuf_addf(&when, "; %lld older games carry no time", (long long)untimed);
        } else {
            strbuf_addf(&when, "dates not recorded (a store made before games carried the time they were stored)");
        }
        section_keys(c->tournament_ini, "openings", &open);
        section_keys(c->tournament_ini, "adjudication", &adj);
        doc_para(D,
                 "%s: made by tavreli %s; %s. Rule options: %s. Openings: %s%s%s; %lld distinct start position%s in "
                 "%lld games. Adjudication: %s%s%s. The games are %s.",
                 R->files[f], c->program_version, when.s ? when.s : "", c->options[0] ? c->options : "the defaults",
                 open.len ? "[openings] " : "random, every [openings] key at its default", open.s ? open.s : "",
                 open.len ? " (any other key at its default)" : "", (long long)distinct, distinct == 1 ? "" : "s",
                 (long long)c->ngames,
                 adj.len ? "[adjudication] " : "every key at its default", adj.s ? adj.s : "",
                 adj.len ? " (any other key at its default)" : "",
                 c->reproducible ? "reproducible: only depth and node limits, so the same tournament plays them "
                                   "again move for move"
                                 : "not reproducible: a clock, a movetime or a separate program makes the moves "
                                   "depend on timing");
        free(when.s);
        free(open.s);
        free(adj.s);
    }
    doc_para(D, "Engines (each as in the first store that has it; defaults of the tournament and engine INI keys: "
                "docs/tournaments.md and docs/engines.md).");
    doc_table(D, "lllllll");
    const char *eh[] = {"engine", "kind", "program or engine INI", "options or search settings", "limits", "clock",
                        "timemargin"};
    for (size_t i = 0; i < sizeof eh / sizeof eh[0]; i++)
        doc_cell(D, "%s", eh[i]);
    for (int p = 0; p < R->nplayers; p++) {
        const Player *pl = &R->players[p];
        const StoredEngine *e = pl->eng;
        StrBuf opt = {0};
        char lim[96];
        if (e->kind == 2)
            strbuf_addf(&opt, "%s", pl->options[0] ? pl->options : "none");
        else if (e->kind == 0 && e->settings[0])
            settings_not_default(e->settings, &opt);
        else
            strbuf_addf(&opt, "%s", e->kind == 0 ? "not recorded (an older store)" : "-");
        engine_limits(e, lim, sizeof lim);
        doc_cell(D, "%s", pl->name);
        doc_cell(D, "%s", kind_name(e->kind));
        doc_cell(D, "%.256s", e->kind == 2 ? e->command : e->kind == 0 ? e->path : "-");
        doc_cell(D, "%s", opt.s ? opt.s : "");
        doc_cell(D, "%s", lim);
        doc_cell(D, "%.32s", e->tc[0] ? e->tc : "none");
        if (e->tc[0] || e->movetime_ms > 0) /* the grace over a clock or movetime */
            doc_cell(D, "%d ms", (int)e->timemargin_ms);
        else
            doc_cell(D, "-");
        free(opt.s);
    }
    for (int f = 0; f < R->nfiles; f++) {
        bool seen = false;
        for (int g = 0; g < f && !seen; g++)
            seen = !strcmp(R->c[g].tournament_ini, R->c[f].tournament_ini);
        if (seen || !R->c[f].tournament_ini[0])
            continue;
        doc_para(D, "The tournament INI of %s (as stored with its games):", R->files[f]);
        doc_text(D, DOC_PRE, strdup(R->c[f].tournament_ini));
    }
}

/* Stage 4: the document. */
static void build_doc(const Report *R, Doc *D)
{
    char a[64], b[64];
    doc_h1(D, "Strength report");
    doc_para(D, "%lld games from %d store%s; %d engine versions.", (long long)R->ngames, R->nfiles,
             R->nfiles == 1 ? "" : "s", R->nplayers);
    for (int f = 0; f < R->nfiles; f++)
        if (R->c[f].torn_rows > 0)
            doc_para(D,
                     "%s: %lld /games rows of an append a crash cut short are left out (the store was not closed; "
                     "'tavreli selfplay ... --resume' rewrites it without them).",
                     R->files[f], (long long)R->c[f].torn_rows);
    if (R->nduplicates > 0)
        doc_para(D,
                 "%lld games are held by more than one store (the same tournament and game index) and are "
                 "counted once.",
                 (long long)R->nduplicates);
    doc_table(D, "lrl");
    doc_cell(D, "store");
    doc_cell(D, "games");
    doc_cell(D, "engines");
    for (int f = 0; f < R->nfiles; f++) {
        StrBuf e = {0};
        for (int i = 0; i < R->c[f].nengines; i++)
            strbuf_addf(&e, "%s%.64s", i ? ", " : "", R->c[f].engines[i].name);
        doc_cell(D, "%s", R->files[f]);
        doc_cell(D, "%lld", (long long)R->c[f].ngames);
        doc_cell(D, "%s", e.s ? e.s : "");
        free(e.s);
    }

    /* The headline: every engine against the baseline. */
    {
        const Player *base = &R->players[R->baseline];
        const int rb = base->rated, n = R->r.n;
        doc_h2(D, "Differences against %s", base->name);
        doc_para(D,
                 "Each engine's Elo minus %s's (the baseline: %s), from the joint rating of all games below (not "
                 "only their games against each other), with its 95%% interval from the covariance of the fit; LOS: "
                 "the probability that the engine is stronger than %s.",
                 base->name, R->baseline_name ? "chosen with --baseline" : "the first engine; choose another with "
                                                                            "--baseline NAME",
                 base->name);
        doc_table(D, "lrrrr");
        doc_cell(D, "engine");
        doc_cell(D, "Elo difference");
        doc_cell(D, "LOS");
        doc_cell(D, "games");
        doc_cell(D, "games against %s", base->name);
        for (int i = 0; i < R->nrated; i++) {
            int ri = R->order[i];
            if (ri == rb)
                continue;
            const Player *p = &R->players[R->rated_player[ri]];
            double v = R->r.cov[ri * n + ri] + R->r.cov[rb * n + rb] - 2 * R->r.cov[ri * n + rb];
            int64_t h2h = 0;
            for (int k = 0; k < R->npairings; k++) {
                const Pairing *q = &R->pairings[k];
                if ((q->a == R->rated_player[ri] && q->b == R->baseline) ||
                    (q->b == R->rated_player[ri] && q->a == R->baseline))
                    h2h = q->games;
            }
            doc_cell(D, "%s", p->name);
            stats_fmt_elo_pm(R->r.elo[ri] - R->r.elo[rb], v > 0 ? STATS_Z975 * sqrt(v) : NAN, a, sizeof a);
            doc_cell(D, "%s", a);
            fmt_pct(a, sizeof a, R->r.los[ri * n + rb]);
            doc_cell(D, "%s", a);
            doc_cell(D, "%lld", (long long)p->games);
            doc_cell(D, "%lld", (long long)h2h);
        }
    }

    build_played(R, D);

    /* Ratings. */
    doc_h2(D, "Ratings");
    doc_para(D,
             "Elo by maximum likelihood (Bradley-Terry with a draw parameter, as BayesElo; colours are balanced by "
             "the paired openings). Ratings are relative: their mean is 0. Fitted draw Elo: %.1f. The interval is "
             "95%%, %s; score is the engine's points per game.",
             R->r.draw_elo,
             R->r.simulated ? "from simulated replays of the same schedule" : "from the covariance of the fit");
    doc_table(D, "rlrrrr");
    doc_cell(D, "rank");
    doc_cell(D, "engine");
    doc_cell(D, "Elo");
    doc_cell(D, "95%% interval");
    doc_cell(D, "games");
    doc_cell(D, "score");
    for (int i = 0; i < R->nrated; i++) {
        int ri = R->order[i];
        const Player *p = &R->players[R->rated_player[ri]];
        doc_cell(D, "%d", i + 1);
        doc_cell(D, "%s", p->name);
        stats_fmt_elo(R->r.elo[ri], a, sizeof a);
        doc_cell(D, "%s", a);
        stats_fmt_elo(R->r.lo[ri], a, sizeof a);
        stats_fmt_elo(R->r.hi[ri], b, sizeof b);
        doc_cell(D, "[%s, %s]", a, b);
        doc_cell(D, "%lld", (long long)p->games);
        fmt_pct(a, sizeof a, p->games ? p->points / (double)p->games : NAN);
        doc_cell(D, "%s", a);
    }
    for (int p = 0; p < R->nplayers; p++)
        if (R->players[p].rated < 0) {
            doc_cell(D, "-");
            doc_cell(D, "%s", R->players[p].name);
            doc_cell(D, "-");
            doc_cell(D, "no games against another version");
            doc_cell(D, "%lld", (long long)R->players[p].games);
            doc_cell(D, "-");
        }
    if (R->nself > 0)
        doc_para(D, "%lld games of an engine against itself are not rated (they count below).", (long long)R->nself);
    for (int i = 0; i < R->nrated; i++) {
        const Player *p = &R->players[R->rated_player[R->order[i]]];
        int64_t lost = 0;
        StrBuf why = {0};
        for (int k = 0; k < NREFEREE; k++)
            if (p->referee_lost[k]) {
                lost += p->referee_lost[k];
                strbuf_addf(&why, "%s%lld by %s", why.len ? ", " : "", (long long)p->referee_lost[k],
                            termination_name((Termination)(TERM_ILLEGAL_MOVE + k)));
            }
        if (lost > 0 && (double)lost > REFEREE_NOTE_SHARE * (double)p->games) {
            fmt_pct(a, sizeof a, (double)lost / (double)p->games);
            doc_para(D,
                     "Note: %s lost %lld of its %lld games (%s) by the referee's decision, not by play: %s. Its rating "
                     "and every figure with it count these as losses; with more than %g%% of the games decided this "
                     "way they say more about the clock, the machine's load or the program's robustness than about "
                     "its strength (see \"How games ended\").",
                     p->name, (long long)lost, (long long)p->games, a, why.s ? why.s : "", 100 * REFEREE_NOTE_SHARE);
        }
        free(why.s);
    }
    doc_img(D, PLOT_ELO_PNG, "Elo of each engine with its 95% interval");
    for (int i = 0; i < R->npairings; i++) {
        const Pairing *p = &R->pairings[i];
        if (2 * p->adjudicated > p->games)
            doc_para(D,
                     "Note: %lld of the %lld games of %s vs %s (more than half) ended by adjudication: their results "
                     "rest on the engines' own scores more than on play to the end.",
                     (long long)p->adjudicated, (long long)p->games, R->players[p->a].name, R->players[p->b].name);
        if (p->identical)
            doc_para(D,
                     "Note: %s and %s are the same engine version (program, options, limits, weights and search "
                     "settings) under two names: both games of each opening pair are the same game, so their results "
                     "say nothing about strength.",
                     R->players[p->a].name, R->players[p->b].name);
    }

    /* LOS. */
    doc_h2(D, "Likelihood of superiority");
    doc_para(D, "The probability that the row's engine is stronger than the column's, from the fitted ratings.");
    {
        char align[40] = "l";
        int n = R->nrated < 38 ? R->nrated : 38;
        for (int i = 0; i < n; i++)
            strcat(align, "r");
        doc_table(D, align);
        doc_cell(D, "LOS");
        for (int j = 0; j < n; j++)
            doc_cell(D, "%s", R->players[R->rated_player[R->order[j]]].name);
        for (int i = 0; i < n; i++) {
            int ri = R->order[i];
            doc_cell(D, "%s", R->players[R->rated_player[ri]].name);
            for (int j = 0; j < n; j++) {
                int rj = R->order[j];
                if (ri == rj) {
                    doc_cell(D, "-");
                } else {
                    fmt_pct(a, sizeof a, R->r.los[ri * R->r.n + rj]);
                    doc_cell(D, "%s", a);
                }
            }
        }
    }

    /* Pairings. */
    doc_h2(D, "Pairings");
    doc_para(D,
             "Results from the first engine's view. Pentanomial: opening pairs (both colours) scoring 0, 1/2, 1, "
             "3/2, 2 points. Elo from the score with its 95%% half-width; normalized Elo (nElo) from the "
             "pentanomial counts. A perfect score has no finite Elo: the bound the games support at 95%% is shown "
             "instead. LOS: the probability that the first engine is the stronger (from the fitted ratings, as in the "
             "matrix above). Adjudicated: games ended by the ply limit, resignation or draw adjudication.");
    doc_table(D, "lrrrrrrrrrrr");
    const char *ph[] = {"pairing", "games", "W", "D", "L", "pentanomial 0/½/1/1½/2", "score", "draws", "Elo",
                        "nElo", "LOS", "adjudicated"};
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++)
        doc_cell(D, "%s", ph[i]);
    for (int i = 0; i < R->npairings; i++) {
        const Pairing *p = &R->pairings[i];
        const PairingStats *s = &p->ps;
        doc_cell(D, "%s vs %s", R->players[p->a].name, R->players[p->b].name);
        doc_cell(D, "%lld", (long long)(s->wins + s->draws + s->losses));
        doc_cell(D, "%lld", (long long)s->wins);
        doc_cell(D, "%lld", (long long)s->draws);
        doc_cell(D, "%lld", (long long)s->losses);
        doc_cell(D, "%lld / %lld / %lld / %lld / %lld", (long long)s->penta[0], (long long)s->penta[1],
                 (long long)s->penta[2], (long long)s->penta[3], (long long)s->penta[4]);
        fmt_pct(a, sizeof a, s->score);
        doc_cell(D, "%s", a);
        fmt_pct(a, sizeof a, s->draw_rate);
        doc_cell(D, "%s", a);
        stats_format_elo(s, a, sizeof a);
        doc_cell(D, "%s", a);
        stats_fmt_elo_pm(s->nelo, s->nelo_err95, a, sizeof a);
        doc_cell(D, "%s", a);
        int ra = R->players[p->a].rated, rb = R->players[p->b].rated;
        fmt_pct(a, sizeof a, R->r.los[ra * R->r.n + rb]);
        doc_cell(D, "%s", a);
        fmt_pct(a, sizeof a, (double)p->adjudicated / (double)p->games);
        doc_cell(D, "%s", a);
    }
    doc_img(D, PLOT_PAIRINGS_PNG, "Elo of each pairing as its games accumulate, with its 95% band");

    /* Terminations. */
    doc_h2(D, "How games ended");
    doc_table(D, "llrrrrr");
    const char *th[] = {"termination", "meaning", "games", "share", "White won", "drawn", "Black won"};
    for (size_t i = 0; i < sizeof th / sizeof th[0]; i++)
        doc_cell(D, "%s", th[i]);
    int64_t tot[3] = {0, 0, 0};
    for (int t = 0; t < NTERM; t++) {
        int64_t n = R->term[t][0] + R->term[t][1] + R->term[t][2];
        if (!n)
            continue;
        doc_cell(D, "%s", t < NTERM - 1 ? termination_name((Termination)t) : "other");
        doc_cell(D, "%s", termination_meaning((Termination)t));
        doc_cell(D, "%lld", (long long)n);
        fmt_pct(a, sizeof a, (double)n / (double)R->ngames);
        doc_cell(D, "%s", a);
        for (int k = 0; k < 3; k++) {
            doc_cell(D, "%lld", (long long)R->term[t][k]);
            tot[k] += R->term[t][k];
        }
    }
    doc_cell(D, "all");
    doc_cell(D, "%s", "");
    doc_cell(D, "%lld", (long long)R->ngames);
    doc_cell(D, "100.0%%");
    for (int k = 0; k < 3; k++)
        doc_cell(D, "%lld", (long long)tot[k]);
    {
        int64_t referee = 0;
        for (int k = 0; k < NREFEREE; k++)
            referee += R->term[TERM_ILLEGAL_MOVE + k][0] + R->term[TERM_ILLEGAL_MOVE + k][2];
        if (referee == 0) {
            doc_para(D, "No game was lost by the referee's decision (an illegal move, on time, a crash or a stall).");
        } else {
            doc_para(D, "Games each engine lost by the referee's decision (not by play), best-rated engine first.");
            doc_table(D, "lrrrrrr");
            doc_cell(D, "engine");
            doc_cell(D, "games");
            for (int k = 0; k < NREFEREE; k++)
                doc_cell(D, "%s", termination_name((Termination)(TERM_ILLEGAL_MOVE + k)));
            doc_cell(D, "share of its games");
            for (int i = 0; i < R->nplayers; i++) {
                /* rated engines best first, then the unrated ones */
                int pi = i < R->nrated ? R->rated_player[R->order[i]] : -1;
                if (pi < 0)
                    for (int p = 0, u = R->nrated; p < R->nplayers; p++)
                        if (R->players[p].rated < 0 && u++ == i)
                            pi = p;
                const Player *p = &R->players[pi];
                int64_t lost = 0;
                doc_cell(D, "%s", p->name);
                doc_cell(D, "%lld", (long long)p->games);
                for (int k = 0; k < NREFEREE; k++) {
                    doc_cell(D, "%lld", (long long)p->referee_lost[k]);
                    lost += p->referee_lost[k];
                }
                fmt_pct(a, sizeof a, p->games ? (double)lost / (double)p->games : NAN);
                doc_cell(D, "%s", a);
            }
        }
    }

    /* Lengths. */
    doc_h2(D, "Game length");
    {
        double sum = 0;
        for (int64_t i = 0; i < R->ngames; i++)
            sum += R->plies[i];
        double median = R->ngames % 2 ? R->plies[R->ngames / 2]
                                      : (R->plies[R->ngames / 2 - 1] + R->plies[R->ngames / 2]) / 2.0;
        doc_para(D, "Plies per game: min %d, median %g, mean %.1f, max %d.", R->plies[0], median,
                 sum / (double)R->ngames, R->plies[R->ngames - 1]);
    }
    doc_img(D, PLOT_LENGTHS_PNG, "histogram of game lengths in plies, decisive and drawn games");

    /* SPRT. */
    for (int i = 0; i < R->nsprt; i++) {
        const SprtInfo *s = &R->sprt[i];
        const StoreContents *c = &R->c[s->file];
        char png[32];
        plot_sprt_file(i, "png", png, sizeof png);
        doc_h2(D, "SPRT (%s)", R->files[s->file]);
        doc_para(D,
                 "%.64s against %.64s: H0 nElo <= %g against H1 nElo >= %g, alpha %g, beta %g; LLR bounds "
                 "[%.3f, %.3f].",
                 store_name(c, 0), store_name(c, 1), s->elo0, s->elo1, s->alpha, s->beta, s->lower, s->upper);
        doc_table(D, "lr");
        doc_cell(D, "%s", "");
        doc_cell(D, "value");
        doc_cell(D, "complete pairs");
        doc_cell(D, "%lld", (long long)s->npairs);
        doc_cell(D, "pentanomial 0/½/1/1½/2");
        doc_cell(D, "%lld / %lld / %lld / %lld / %lld", (long long)s->penta[0], (long long)s->penta[1],
                 (long long)s->penta[2], (long long)s->penta[3], (long long)s->penta[4]);
        doc_cell(D, "LLR");
        doc_cell(D, "%.3f", s->llr);
        doc_cell(D, "decision from these games");
        doc_cell(D, "%s", sprt_decision_name(sprt_decide(s->llr, s->lower, s->upper)));
        doc_cell(D, "decision stored by the run");
        doc_cell(D, "%s", s->result && s->result[0] ? s->result : "none");
        doc_img(D, png, "SPRT log-likelihood ratio after each complete pair, with the bounds");
    }

    /* Tuning. */
    if (R->have_tl) {
        const TuneLog *t = &R->tl;
        doc_h2(D, "Tuning");
        if (t->niters > 0) {
            const TuneLogIter *f0 = &t->iters[0], *fl = &t->iters[t->niters - 1];
            if (R->tl_have_hold) {
                int best = -1;
                for (int i = 0; i < t->niters; i++)
                    if (isfinite(t->iters[i].holdout_loss) &&
                        (best < 0 || t->iters[i].holdout_loss < t->iters[best].holdout_loss))
                        best = i;
                doc_para(D,
                         "%s: %d iterations; fit loss %.6g -> %.6g, hold-out loss %.6g -> %.6g (lowest %.6g at "
                         "iteration %ld).",
                         R->tuning_path, t->niters, f0->fit_loss, fl->fit_loss, f0->holdout_loss, fl->holdout_loss,
                         t->iters[best].holdout_loss, t->iters[best].iter);
            } else {
                doc_para(D, "%s: %d iterations; fit loss %.6g -> %.6g (no hold-out loss).", R->tuning_path,
                         t->niters, f0->fit_loss, fl->fit_loss);
            }
            doc_img(D, PLOT_TUNING_LOSS_PNG, "fit and hold-out loss per iteration");
        }
        if (t->ncv > 0) {
            int best = 0;
            for (int i = 1; i < t->ncv; i++)
                if (t->cv[i].loss < t->cv[best].loss)
                    best = i;
            doc_para(D, "The L2 strength against the loss on held-out games (cross-validation over games: mean "
                        "validation loss over the folds and its standard error); the lowest is marked.");
            doc_table(D, "rrrl");
            doc_cell(D, "L2");
            doc_cell(D, "validation loss");
            doc_cell(D, "se");
            doc_cell(D, " ");
            for (int i = 0; i < t->ncv; i++) {
                if (isfinite(t->cv[i].l2))
                    doc_cell(D, "%.4g", t->cv[i].l2);
                else
                    doc_cell(D, "start weights");
                doc_cell(D, "%.6f", t->cv[i].loss);
                doc_cell(D, "%.6f", t->cv[i].se);
                doc_cell(D, "%s", i == best ? "lowest" : "");
            }
        }
        if (t->nweights > 0) {
            int k = t->nweights < TOP_WEIGHTS ? t->nweights : TOP_WEIGHTS;
            doc_para(D, "The %d weights (of %d) that moved most, ranked by %s.", k, t->nweights,
                     R->tl_by_z ? "|new - start| / stderr" : "|new - start| (some stderr is 0)");
            doc_table(D, "lrrrrr");
            const char *wh[] = {"weight", "start", "new", "new - start", "stderr", "move / stderr"};
            for (size_t i = 0; i < sizeof wh / sizeof wh[0]; i++)
                doc_cell(D, "%s", wh[i]);
            for (int i = 0; i < k; i++) {
                const RankedWeight *rw = &R->tl_rank[i];
                doc_cell(D, "%s", rw->w->name);
                doc_cell(D, "%g", rw->w->start);
                doc_cell(D, "%g", rw->w->now);
                doc_cell(D, "%+g", rw->move);
                doc_cell(D, "%g", rw->w->se);
                if (rw->w->se > 0)
                    doc_cell(D, "%+.2f", rw->move / rw->w->se);
                else
                    doc_cell(D, "-");
            }
            doc_img(D, PLOT_TUNING_WEIGHTS_PNG, "the weights that moved most, with +/- 2 stderr error bars");
        }
        if (t->ncorr > 0) {
            doc_para(D, "Pairs of weights whose estimates are strongly correlated (|r| > %g): the data fix their "
                        "combination, not each value; holding one fixed (tune --fixed, [train] fixed) anchors "
                        "the other.",
                     TUNE_CORR_REPORT);
            doc_table(D, "llr");
            doc_cell(D, "weight");
            doc_cell(D, "weight");
            doc_cell(D, "r");
            for (int i = 0; i < t->ncorr; i++) {
                doc_cell(D, "%s", t->corr[i].a);
                doc_cell(D, "%s", t->corr[i].b);
                doc_cell(D, "%+.3f", t->corr[i].r);
            }
        }
    }
}

TvStatus report_write(const char *const *files, int nfiles, const char *tuning_log, const char *outdir,
                      TvError *err)
{
    const ReportOptions o = {.simulations = 0, .mix_rules = false, .baseline = NULL};
    return report_write_opts(files, nfiles, tuning_log, outdir, &o, NULL, err);
}

TvStatus report_write_opts(const char *const *files, int nfiles, const char *tuning_log, const char *outdir,
                           const ReportOptions *opt, ReportSummary *summary, TvError *err)
{
    if (err)
        tv_error_clear(err);
    if (!files || nfiles < 1)
        return tv_fail(err, TV_ERR_ARG, "report: no store given");
    if (!outdir || !outdir[0])
        return tv_fail(err, TV_ERR_ARG, "report: no output directory given");
    for (int f = 0; f < nfiles; f++)
        if (!files[f])
            return tv_fail(err, TV_ERR_ARG, "report: store %d is missing", f + 1);

    Report R;
    memset(&R, 0, sizeof R);
    R.files = files;
    R.nfiles = nfiles;
    R.tuning_path = tuning_log;
    R.simulations = opt->simulations;
    R.mix_rules = opt->mix_rules;
    R.baseline_name = opt->baseline;
    Doc D = {0};
    StrBuf md = {0}, html = {0};
    TvStatus st;
    if ((st = collect(&R, err)) != TV_OK || (st = compute(&R, err)) != TV_OK)
        goto done;
    if ((st = doc_make_dirs(outdir, err)) != TV_OK || (st = plots(&R, outdir, err)) != TV_OK)
        goto done;
    build_doc(&R, &D);
    if (D.oom) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory building the report");
        goto done;
    }
    doc_render_md(&D, &md);
    if ((st = doc_render_html(&D, outdir, &html, err)) != TV_OK)
        goto done;
    if ((st = doc_write_buf(outdir, "report.md", &md, err)) != TV_OK)
        goto done;
    st = doc_write_buf(outdir, "report.html", &html, err);
    if (st == TV_OK && summary) {
        summary->games = R.ngames;
        summary->duplicates = R.nduplicates;
        summary->torn_rows = 0;
        for (int f = 0; f < R.nfiles; f++)
            summary->torn_rows += R.c[f].torn_rows;
    }
done:
    free(md.s);
    free(html.s);
    doc_free(&D);
    report_free(&R);
    return st;
}
