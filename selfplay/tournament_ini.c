/* tournament_ini.c: reading a tournament INI (via Debian's inih).  See
 * tournament.h and docs/tournaments.md.
 *
 * Reading works in three passes over the text kept in t->text:
 *  1. the section headers are checked (inih reports keys, not headers, so an
 *     unknown or empty section would otherwise pass silently) and the
 *     [engine NAME] sections are collected in order;
 *  2. inih calls the handler for every key; the text is fed through our own
 *     line reader so that every key knows its line;
 *  3. what needs the whole file is checked (engine count, `path` present,
 *     limits) and the openings file is read (tournament_openings.c: its
 *     positions are checked under the tournament's rules, which may come
 *     after [openings]).
 * The first error in file order is reported as "FILE:LINE: message".  The
 * plan of the games is in tournament.c, the clock's text in time_control.c. */
#include "tournament.h"
#include "tournament_internal.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_proc.h"
#include "match.h"
#include "player.h"
#include "record.h"
#include "rule_options.h"
#include "search.h"

/* Longest engine NAME: "[engine NAME]" must fit inih's section buffer (50). */
#define ENGINE_NAME_MAX 32
/* Longest meaningful line (inih's default line buffer is 200 bytes). */
#define LINE_MAX_CHARS 198
/* [each] keys kept until the file is read: every engine key, 64 option.NAME lines and some */
#define MAX_EACH_KEYS (32 + TOURNAMENT_MAX_OPTIONS)

/* ---- small helpers ----------------------------------------------------------- */

/* Copies src into dst (size n), cutting it if needed. */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = 0;
}


static bool parse_u64(const char *s, uint64_t *out)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || *end)
        return false;
    *out = (uint64_t)v;
    return true;
}

static bool name_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == '+';
}

static bool name_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char_ok(s[i]))
            return false;
    return true;
}

/* dir + rel, unless rel is absolute or dir is empty. */
static bool resolve_path(const char *dir, const char *rel, char *out, size_t n)
{
    int w = rel[0] == '/' || !dir[0] ? snprintf(out, n, "%s", rel) : snprintf(out, n, "%s%s", dir, rel);
    return w >= 0 && (size_t)w < n;
}

/* A command with its program made relative to dir when the program holds a
 * '/' and is not absolute (quoted, so that dir may hold blanks).  False when
 * a quote is not closed or the result does not fit. */
static bool resolve_command(const char *dir, const char *command, char *out, size_t n)
{
    char words[1024];
    char *argv[64];
    if (engine_proc_split(command, words, sizeof words, argv, 64) <= 0)
        return false;
    const char *s = command;
    while (*s == ' ' || *s == '\t')
        s++;
    /* the first word: its text without quotes, and where it ends */
    char word[1024];
    size_t w = 0;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t') {
        if (*e == '\'' || *e == '"') {
            const char *close = strchr(e + 1, *e);
            if (!close)
                return false;
            for (const char *c = e + 1; c < close && w + 1 < sizeof word; c++)
                word[w++] = *c;
            e = close + 1;
        } else if (w + 1 < sizeof word) {
            word[w++] = *e++;
        } else {
            return false;
        }
    }
    word[w] = 0;
    if (!dir[0] || word[0] == '/' || !strchr(word, '/') || strchr(dir, '\'') || strchr(word, '\''))
        return (size_t)snprintf(out, n, "%s", s) < n;
    int k = snprintf(out, n, "'%s%s'%s", dir, word, e);
    return k >= 0 && (size_t)k < n;
}

/* ---- the reader -------------------------------------------------------------- */

typedef struct {
    char section[64]; /* the header text between the brackets, as inih passes it */
    int line;         /* of the header */
    int path_line;    /* of its `path` key (0: none yet) */
    int command_line; /* of its `command` key (0: none) */
    bool has_limit[3];
    long limit[3];    /* depth, nodes, movetime */
    bool has_tc;
    int option_line[TOURNAMENT_MAX_OPTIONS]; /* of each option.NAME key */
} EngineSection;

typedef struct {
    Tournament *t;
    const char *name; /* the tournament file, for messages */
    char dir[512];    /* its directory with a trailing '/', or "" */
    TvIniLines in; /* the line reader: in.line is the line being parsed */
    char prev_key[80]; /* "section\nkey" of the previous handler call */
    /* collected in pass 1 */
    int nsections;
    EngineSection eng[TOURNAMENT_MAX_ENGINES];
    TvIniKeys keys; /* every key given: for duplicates, and for [each] to know what an engine gives itself */
    int file_line;    /* line of [openings] file */
    int per_game_line; /* line of [openings] per_game */
    int cycle_line, order_line, start_line; /* lines of [openings] cycle, order, start */
    int openings_format_line;                /* line of [openings] format */
    bool stored; /* the text of a store's attribute: its games were played, so a short openings file (stores made
                    before cycle existed) is read as cycled */
    bool plan_only; /* tournament_read_plan: no file the text names is read (engine INIs, openings) */
    /* [each]: its keys, given to every engine once the file is read */
    int neach;
    struct {
        char name[80];
        char value[LINE_MAX_CHARS + 2];
        int line;
    } each[MAX_EACH_KEYS];
    /* the first error */
    bool failed;
    TvStatus status;
    int err_line;
    char msg[TV_ERROR_MSG_LEN];
} Reader;

static int failf(Reader *r, int line, TvStatus s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Records an error unless an earlier one (in file order) is already held.
 * Returns 0 (the inih "error" value). */
static int failf(Reader *r, int line, TvStatus s, const char *fmt, ...)
{
    if (r->failed && r->err_line <= line)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    r->failed = true;
    r->status = s;
    r->err_line = line;
    return 0;
}

static const char *const FIXED_SECTIONS[] = {"tournament", "rules", "openings", "adjudication", "sprt", "each"};

/* Pass 1: section headers and long lines. */
static void check_headers(const char *text, Reader *r)
{
    int line = 1;
    for (const char *s = text; *s; line++) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *end = s + len;
        while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            end--;
        const char *p = s;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        bool comment = p < end && (*p == ';' || *p == '#');
        if (!comment && end - s > LINE_MAX_CHARS) {
            failf(r, line, TV_ERR_PARSE, "line is longer than %d characters", LINE_MAX_CHARS);
            return;
        }
        if (p < end && *p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            if (!close) {
                failf(r, line, TV_ERR_PARSE, "section header without ']'");
                return;
            }
            char sec[LINE_MAX_CHARS + 2];
            size_t n = (size_t)(close - p - 1);
            memcpy(sec, p + 1, n);
            sec[n] = 0;
            bool fixed = false;
            for (size_t i = 0; i < sizeof FIXED_SECTIONS / sizeof FIXED_SECTIONS[0]; i++)
                fixed |= !strcmp(sec, FIXED_SECTIONS[i]);
            if (fixed) {
                s += len + (eol ? 1 : 0);
                continue;
            }
            if (strncmp(sec, "engine", 6) != 0 || (sec[6] && sec[6] != ' ' && sec[6] != '\t')) {
                failf(r, line, TV_ERR_PARSE,
                      "unknown section [%.60s] (known: [tournament], [rules], [openings], [adjudication], "
                      "[sprt], [engine NAME], [each])",
                      sec);
                return;
            }
            /* [engine NAME]; inih cuts section names at 49 characters */
            if (n > 45) {
                failf(r, line, TV_ERR_PARSE, "section header [%.60s] is longer than 45 characters", sec);
                return;
            }
            char name[LINE_MAX_CHARS + 2];
            const char *a = sec + 6, *b = sec + n;
            while (*a == ' ' || *a == '\t')
                a++;
            while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
                b--;
            memcpy(name, a, (size_t)(b - a));
            name[b - a] = 0;
            if (!name_ok(name, ENGINE_NAME_MAX)) {
                failf(r, line, TV_ERR_PARSE,
                      "engine name '%.60s' must have 1 to %d letters, digits or _ - . + ([engine NAME])", name,
                      ENGINE_NAME_MAX);
                return;
            }
            for (int i = 0; i < r->nsections; i++)
                if (!strcmp(r->t->engines[i].engine.name, name)) {
                    failf(r, line, TV_ERR_PARSE, "duplicate engine name '%s' (first at line %d)", name,
                          r->eng[i].line);
                    return;
                }
            if (r->nsections == TOURNAMENT_MAX_ENGINES) {
                failf(r, line, TV_ERR_LIMIT, "more than %d engines", TOURNAMENT_MAX_ENGINES);
                return;
            }
            EngineSection *e = &r->eng[r->nsections];
            copy_str(e->section, sizeof e->section, sec);
            e->line = line;
            TournamentEngine *te = &r->t->engines[r->nsections++];
            copy_str(te->engine.name, sizeof te->engine.name, name);
        }
        s += len + (eol ? 1 : 0);
    }
}

/* Duplicate keys: the later one would silently win, so it is an error. */
static bool check_duplicate(Reader *r, const char *section, const char *name)
{
    char why[256];
    const int once = tv_ini_key_once(&r->keys, section, name, r->in.line, why, sizeof why);
    if (once != 1)
        failf(r, r->in.line, once < 0 ? TV_ERR_LIMIT : TV_ERR_PARSE, "%s", why);
    return once == 1;
}

/* An int key in [lo, hi]; the message names the section, key and range. */
static int int_key(Reader *r, const char *section, const char *name, const char *value, long lo, long hi,
                   const char *what, int *out)
{
    long v;
    if (!tv_parse_long(value, lo, hi, &v))
        return failf(r, r->in.line, TV_ERR_PARSE, "[%s] %s '%s' must be a whole number from %ld to %ld%s", section,
                     name, value, lo, hi, what);
    *out = (int)v;
    return 1;
}

static int tournament_key(Reader *r, const char *name, const char *value)
{
    Tournament *t = r->t;
    if (!strcmp(name, "name")) {
        if (!name_ok(value, sizeof t->name - 1))
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[tournament] name '%s' must have 1 to %d letters, digits or _ - . +", value,
                         (int)sizeof t->name - 1);
        snprintf(t->name, sizeof t->name, "%s", value);
        return 1;
    }
    if (!strcmp(name, "format")) {
        if (!strcmp(value, "round-robin"))
            t->format = FORMAT_ROUND_ROBIN;
        else if (!strcmp(value, "gauntlet"))
            t->format = FORMAT_GAUNTLET;
        else
            return failf(r, r->in.line, TV_ERR_PARSE, "[tournament] format '%s' must be round-robin or gauntlet",
                         value);
        return 1;
    }
    if (!strcmp(name, "pairs"))
        return int_key(r, "tournament", name, value, 1, 1000000, " (opening pairs per pairing)", &t->pairs);
    if (!strcmp(name, "seed")) {
        if (!parse_u64(value, &t->seed))
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[tournament] seed '%s' must be a whole number from 0 to 18446744073709551615", value);
        return 1;
    }
    if (!strcmp(name, "threads"))
        return int_key(r, "tournament", name, value, 0, 1024, " (0 = all cores)", &t->threads);
    if (!strcmp(name, "game_attempts"))
        return int_key(r, "tournament", name, value, 1, 100,
                       " (times a game is begun when a program fails as it begins)", &t->game_attempts);
    return failf(r, r->in.line, TV_ERR_PARSE,
                 "unknown key '%s' in [tournament] (known: name, format, pairs, seed, threads, game_attempts)", name);
}

static int rules_key(Reader *r, const char *name, const char *value)
{
    if (rule_option_find(name) < 0) {
        char known[128] = "";
        for (int i = 0; i < TV_NRULE_OPTIONS; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     rule_option_info(i)->name);
        return failf(r, r->in.line, TV_ERR_PARSE, "unknown key '%s' in [rules] (known: %s)", name, known);
    }
    TvError e;
    tv_error_clear(&e);
    if (rule_options_set(&r->t->rules, name, value, &e) != TV_OK)
        return failf(r, r->in.line, TV_ERR_PARSE, "[rules] %s", e.msg);
    return 1;
}

static int openings_key(Reader *r, const char *name, const char *value)
{
    OpeningSettings *o = &r->t->openings;
    if (!strcmp(name, "plies")) {
        o->plies_given = true;
        return int_key(r, "openings", name, value, 0, 100, "", &o->plies);
    }
    if (!strcmp(name, "format")) {
        r->openings_format_line = r->in.line;
        if (!strcmp(value, "tgn"))
            o->format = OPENINGS_FORMAT_TGN;
        else if (!strcmp(value, "tfen"))
            o->format = OPENINGS_FORMAT_TFEN;
        else if (!strcmp(value, "auto"))
            o->format = OPENINGS_FORMAT_AUTO;
        else
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[openings] format '%s' must be tgn (game records), tfen (one position a line) or auto "
                         "(records when the first line starts with '[')",
                         value);
        return 1;
    }
    if (!strcmp(name, "balance_depth"))
        return int_key(r, "openings", name, value, 0, 8, " (0 = no balance check)", &o->balance_depth);
    if (!strcmp(name, "balance_cp"))
        return int_key(r, "openings", name, value, 0, 10000, "", &o->balance_cp);
    if (!strcmp(name, "file")) {
        if (!*value) { /* empty = random openings */
            o->file[0] = 0;
            r->file_line = r->in.line;
            return 1;
        }
        if (!resolve_path(r->dir, value, o->file, sizeof o->file))
            return failf(r, r->in.line, TV_ERR_LIMIT, "[openings] file '%s': the path is too long", value);
        r->file_line = r->in.line;
        return 1;
    }
    if (!strcmp(name, "per_game")) {
        int b;
        if (tv_parse_bool(value, &b)) {
            o->per_game = b;
            r->per_game_line = r->in.line;
            return 1;
        }
        return failf(r, r->in.line, TV_ERR_PARSE, "[openings] per_game '%s' must be yes or no", value);
    }
    if (!strcmp(name, "sample_plies"))
        return int_key(r, "openings", name, value, 0, 100, "", &o->sample_plies);
    if (!strcmp(name, "sample_temperature"))
        return int_key(r, "openings", name, value, 1, 10000, " (centi-combatants)", &o->sample_temperature);
    if (!strcmp(name, "cycle")) {
        r->cycle_line = r->in.line;
        int b;
        if (!tv_parse_bool(value, &b))
            return failf(r, r->in.line, TV_ERR_PARSE, "[openings] cycle '%s' must be yes or no", value);
        o->cycle = b;
        return 1;
    }
    if (!strcmp(name, "order")) {
        r->order_line = r->in.line;
        if (strcmp(value, "sequential") && strcmp(value, "random"))
            return failf(r, r->in.line, TV_ERR_PARSE, "[openings] order '%s' must be sequential or random", value);
        o->random_order = value[0] == 'r';
        return 1;
    }
    if (!strcmp(name, "start")) {
        r->start_line = r->in.line;
        return int_key(r, "openings", name, value, 1, 1000000000, " (the first opening, 1-based)", &o->start);
    }
    return failf(r, r->in.line, TV_ERR_PARSE,
                 "unknown key '%s' in [openings] (known: plies, balance_depth, balance_cp, file, format, per_game, "
                 "sample_plies, sample_temperature, cycle, order, start)",
                 name);
}

static int adjudication_key(Reader *r, const char *name, const char *value)
{
    Adjudication *a = &r->t->adjudication;
    static const char *const S = "adjudication";
    if (!strcmp(name, "max_plies"))
        return int_key(r, S, name, value, 1, 10000, "", &a->max_plies);
    if (!strcmp(name, "resign_score"))
        return int_key(r, S, name, value, 0, SCORE_MATE, " (0 = off)", &a->resign_score);
    if (!strcmp(name, "resign_moves"))
        return int_key(r, S, name, value, 1, 1000, "", &a->resign_moves);
    if (!strcmp(name, "draw_score"))
        return int_key(r, S, name, value, 0, 10000, "", &a->draw_score);
    if (!strcmp(name, "draw_moves"))
        return int_key(r, S, name, value, 0, 1000, " (0 = off)", &a->draw_moves);
    if (!strcmp(name, "draw_after_ply"))
        return int_key(r, S, name, value, 0, 10000, "", &a->draw_after_ply);
    return failf(r, r->in.line, TV_ERR_PARSE,
                 "unknown key '%s' in [adjudication] (known: max_plies, resign_score, resign_moves, draw_score, "
                 "draw_moves, draw_after_ply)",
                 name);
}

static int sprt_key(Reader *r, const char *name, const char *value)
{
    Tournament *t = r->t;
    if (!strcmp(name, "model")) {
        if (!strcmp(value, "normalized"))
            t->sprt_settings.model = SPRT_NORMALIZED;
        else if (!strcmp(value, "logistic"))
            t->sprt_settings.model = SPRT_LOGISTIC;
        else
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[sprt] model '%s' must be normalized (fishtest's and fastchess's default: the bounds "
                         "mean the same test at any draw rate) or logistic (cutechess-cli's Elo)",
                         value);
        t->sprt = true;
        if (!t->sprt_line)
            t->sprt_line = r->in.line;
        return 1;
    }
    static const char *const keys[4] = {"elo0", "elo1", "alpha", "beta"};
    double *dst[4] = {&t->sprt_settings.elo0, &t->sprt_settings.elo1, &t->sprt_settings.alpha, &t->sprt_settings.beta};
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, keys[k])) {
            char *end;
            double v = strtod(value, &end);
            while (*end == ' ' || *end == '\t')
                end++;
            bool prob = k >= 2;
            if (!*value || *end || (prob ? !(v > 0 && v < 0.5) : !(v > -1000 && v < 1000)))
                return failf(r, r->in.line, TV_ERR_PARSE, "[sprt] %s '%s' must be %s", name, value,
                             prob ? "a probability above 0 and below 0.5"
                                  : "a number of Elo (of [sprt] model: normalized unless model = logistic)");
            *dst[k] = v;
            t->sprt = true;
            if (!t->sprt_line)
                t->sprt_line = r->in.line;
            return 1;
        }
    return failf(r, r->in.line, TV_ERR_PARSE, "unknown key '%s' in [sprt] (known: elo0, elo1, alpha, beta, model)",
                 name);
}

static int engine_key(Reader *r, int idx, const char *name, const char *value)
{
    EngineSection *es = &r->eng[idx];
    TournamentEngine *te = &r->t->engines[idx];
    if (!strcmp(name, "path")) {
        char resolved[sizeof te->path];
        es->path_line = r->in.line;
        if (!*value)
            return failf(r, r->in.line, TV_ERR_PARSE, "[%s] path is empty", es->section);
        if (!resolve_path(r->dir, value, resolved, sizeof resolved))
            return failf(r, r->in.line, TV_ERR_LIMIT, "[%s] path '%s' is too long", es->section, value);
        char keep[sizeof te->engine.name];
        memcpy(keep, te->engine.name, sizeof keep);
        TvError e;
        tv_error_clear(&e);
        if (!r->plan_only && engine_read(resolved, &te->engine, &e) != TV_OK)
            return failf(r, r->in.line, e.status, "engine '%s': %s", keep, e.msg);
        memcpy(te->engine.name, keep, sizeof keep);
        memcpy(te->path, resolved, sizeof te->path);
        return 1;
    }
    static const char *const limits[3] = {"depth", "nodes", "movetime"};
    static const long hi[3] = {SEARCH_MAX_PLY / 2, 2000000000L, 86400000L};
    static const char *const what[3] = {"", "", " (milliseconds)"};
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, limits[k])) {
            long v;
            if (!tv_parse_long(value, 0, hi[k], &v))
                return failf(r, r->in.line, TV_ERR_PARSE, "[%s] %s '%s' must be a whole number from 0 to %ld%s",
                             es->section, name, value, hi[k], what[k]);
            es->has_limit[k] = true;
            es->limit[k] = v;
            return 1;
        }
    if (!strcmp(name, "command")) {
        es->command_line = r->in.line; /* even when bad: the section has its command */
        te->kind = PLAYER_PROCESS;
        if (!*value)
            return failf(r, r->in.line, TV_ERR_PARSE, "[%s] command is empty", es->section);
        if (!resolve_command(r->dir, value, te->command, sizeof te->command))
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[%s] command '%.80s' has an unclosed quote or is too long (1023 bytes, 63 words)", es->section, value);
        te->kind = PLAYER_PROCESS;
        es->command_line = r->in.line;
        return 1;
    }
    if (!strcmp(name, "bench")) {
        if (!*value)
            return failf(r, r->in.line, TV_ERR_PARSE, "[%s] bench is empty (a command printing 'nodes N', or none)",
                         es->section);
        if (!strcmp(value, TOURNAMENT_BENCH_NONE))
            copy_str(te->bench, sizeof te->bench, value);
        else if (!resolve_command(r->dir, value, te->bench, sizeof te->bench))
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[%s] bench '%.80s' has an unclosed quote or is too long (1023 bytes, 63 words)", es->section,
                         value);
        return 1;
    }
    if (!strcmp(name, "log_cap"))
        return int_key(r, es->section, name, value, 1, 1000000, " (MB: the stderr file and the protocol log)",
                       &te->log_cap_mb);
    if (!strcmp(name, "dir") || !strcmp(name, "stderr") || !strcmp(name, "log")) {
        char *dst = name[0] == 'd' ? te->dir : name[0] == 's' ? te->stderr_path : te->log_path;
        size_t n = name[0] == 'd' ? sizeof te->dir : sizeof te->stderr_path;
        if (!*value)
            return failf(r, r->in.line, TV_ERR_PARSE, "[%s] %s is empty", es->section, name);
        if (name[0] == 's' &&
            (!strcmp(value, TOURNAMENT_STDERR_DISCARD) || !strcmp(value, ENGINE_PROC_STDERR_INHERIT)))
            copy_str(dst, n, value); /* words, not files */
        else if (!resolve_path(r->dir, value, dst, n))
            return failf(r, r->in.line, TV_ERR_LIMIT, "[%s] %s '%s' is too long", es->section, name, value);
        return 1;
    }
    if (!strncmp(name, "option.", 7)) {
        const char *opt = name + 7;
        if (!*opt || strlen(opt) >= sizeof te->option_names[0] || strlen(value) >= sizeof te->option_values[0])
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[%s] option.NAME = VALUE needs a name of 1 to %zu characters and a value of at most %zu",
                         es->section, sizeof te->option_names[0] - 1, sizeof te->option_values[0] - 1);
        if (te->noptions == TOURNAMENT_MAX_OPTIONS)
            return failf(r, r->in.line, TV_ERR_LIMIT, "[%s] more than %d option.NAME lines", es->section,
                         TOURNAMENT_MAX_OPTIONS);
        copy_str(te->option_names[te->noptions], sizeof te->option_names[0], opt);
        copy_str(te->option_values[te->noptions], sizeof te->option_values[0], value);
        es->option_line[te->noptions] = r->in.line;
        te->noptions++;
        return 1;
    }
    if (!strcmp(name, "tc")) {
        if (!time_control_parse(value, &te->tc))
            return failf(r, r->in.line, TV_ERR_PARSE,
                         "[%s] tc '%s' must be BASE+INC or MOVES/BASE+INC, BASE in seconds or M:SS (e.g. 10+0.1, "
                         "40/60+0, 1:30+0.5), or inf",
                         es->section, value);
        es->has_tc = te->tc.base_ms > 0; /* tc = inf: no clock, and the engine's limits stay */
        return 1;
    }
    /* the referee's times: key, bounds, unit in the INI, milliseconds per unit */
    static const struct {
        const char *key;
        long lo, hi;
        const char *unit;
        int ms;
    } TIMES[3] = {{"timeout", 1, 86400, "seconds", 1000},
                  {"timemargin", 0, 60000, "milliseconds", 1},
                  {"start_timeout", 1, 86400, "seconds", 1000}};
    int *const times_dst[3] = {&te->timeout_ms, &te->timemargin_ms, &te->start_timeout_ms};
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, TIMES[k].key)) {
            long v;
            if (!tv_parse_long(value, TIMES[k].lo, TIMES[k].hi, &v))
                return failf(r, r->in.line, TV_ERR_PARSE, "[%s] %s '%s' must be a whole number from %ld to %ld (%s)",
                             es->section, name, value, TIMES[k].lo, TIMES[k].hi, TIMES[k].unit);
            *times_dst[k] = (int)v * TIMES[k].ms;
            return 1;
        }
    return failf(r, r->in.line, TV_ERR_PARSE,
                 "unknown key '%s' in [%s] (known: path, command, bench, dir, stderr, log, log_cap, option.NAME, depth, nodes, "
                 "movetime, tc, timemargin, timeout, start_timeout)",
                 name, es->section);
}

/* [each]: kept, and given to every engine once the whole file is read
 * (apply_each), so that it may come before or after the engines. */
static int each_key(Reader *r, const char *name, const char *value)
{
    if (r->neach == MAX_EACH_KEYS)
        return failf(r, r->in.line, TV_ERR_LIMIT, "more than %d keys in [each]", MAX_EACH_KEYS);
    if (strlen(name) >= sizeof r->each[0].name)
        return failf(r, r->in.line, TV_ERR_PARSE, "[each] key '%.60s' is too long", name);
    copy_str(r->each[r->neach].name, sizeof r->each[0].name, name);
    copy_str(r->each[r->neach].value, sizeof r->each[0].value, value);
    r->each[r->neach++].line = r->in.line;
    return 1;
}

/* Whether [section] gave key `name` (check_duplicate has seen every key). */
static bool section_has(const Reader *r, const char *section, const char *name)
{
    return tv_ini_key_line(&r->keys, section, name) > 0;
}

/* Gives every [each] key to every engine that has not its own: path and
 * command count as one key (an engine's command overrides [each] path).
 * engine_key reads them as the engine's, at the [each] line; while it does,
 * the section is called [each] in its messages.  `complete`: the whole file
 * was read (no error stopped it), so each engine's kind is known. */
static void apply_each(Reader *r, bool complete)
{
    for (int i = 0; i < r->nsections; i++) {
        EngineSection *es = &r->eng[i];
        bool own_player = section_has(r, es->section, "path") || section_has(r, es->section, "command");
        char keep[sizeof es->section];
        memcpy(keep, es->section, sizeof keep);
        int program_key = -1; /* an [each] key only a separate program takes, given to this engine */
        for (int k = 0; k < r->neach; k++) {
            const char *name = r->each[k].name;
            bool player = !strcmp(name, "path") || !strcmp(name, "command");
            if (player ? own_player : section_has(r, keep, name))
                continue;
            if (program_key < 0 && (!strcmp(name, "dir") || !strcmp(name, "stderr") || !strcmp(name, "bench")))
                program_key = k;
            copy_str(es->section, sizeof es->section, "each");
            r->in.line = r->each[k].line;
            engine_key(r, i, name, r->each[k].value);
            memcpy(es->section, keep, sizeof keep);
        }
        if (complete && program_key >= 0 && !es->command_line)
            failf(r, r->each[program_key].line, TV_ERR_PARSE,
                  "[each] %s is for a command (a separate program), and engine '%s' is the built-in engine: give "
                  "it in the sections of the programs",
                  r->each[program_key].name, r->t->engines[i].engine.name);
    }
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    Reader *r = user;
    if (r->failed && r->err_line <= r->in.line)
        return 0;
    /* inih joins an indented line to the previous key's value (calling us
     * again with the same key): values must fit on one line here. */
    char key[80];
    snprintf(key, sizeof key, "%.40s\n%.38s", section, name);
    bool repeat = !strcmp(key, r->prev_key);
    snprintf(r->prev_key, sizeof r->prev_key, "%s", key);
    if (repeat && r->in.line_start && (r->in.line_start[0] == ' ' || r->in.line_start[0] == '\t'))
        return failf(r, r->in.line, TV_ERR_PARSE,
                     "indented line would continue the value of '%s': start every key at the beginning of its line",
                     name);
    if (!check_duplicate(r, section, name))
        return 0;
    if (!strcmp(section, "tournament"))
        return tournament_key(r, name, value);
    if (!strcmp(section, "rules"))
        return rules_key(r, name, value);
    if (!strcmp(section, "openings"))
        return openings_key(r, name, value);
    if (!strcmp(section, "adjudication"))
        return adjudication_key(r, name, value);
    if (!strcmp(section, "sprt"))
        return sprt_key(r, name, value);
    if (!strcmp(section, "each"))
        return each_key(r, name, value);
    for (int i = 0; i < r->nsections; i++)
        if (!strcmp(section, r->eng[i].section))
            return engine_key(r, i, name, value);
    if (!*section)
        return failf(r, r->in.line, TV_ERR_PARSE, "key '%s' before any [section]", name);
    /* Not reached: pass 1 rejected every other header. */
    return failf(r, r->in.line, TV_ERR_PARSE, "unknown section [%s]", section);
}

/* ---- reading ----------------------------------------------------------------- */

static void set_defaults(Tournament *t, const char *path)
{
    tournament_defaults(t, "tournament");
    snprintf(t->source, sizeof t->source, "%s", path);
    /* name: the file's stem, made safe */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    if (n >= sizeof t->name)
        n = sizeof t->name - 1;
    if (n > 0) {
        for (size_t i = 0; i < n; i++)
            t->name[i] = name_char_ok(base[i]) ? base[i] : '_';
        t->name[n] = 0;
    }
}

static int count_lines(const char *text)
{
    int n = 1;
    for (const char *s = text; *s; s++)
        n += *s == '\n' && s[1];
    return n;
}

TvStatus tournament_read(const char *path, Tournament *t, TvError *err)
{
    tv_error_clear(err);
    char *text;
    size_t len;
    TvStatus st = tv_ini_load(path, "tournament file", &text, &len, err); /* the INI readers' one prologue */
    if (st != TV_OK) {
        set_defaults(t, path);
        return st;
    }
    return tournament_read_text(path, text, len, t, err);
}

static TvStatus read_text(const char *path, char *text, size_t len, bool stored, Tournament *t, TvError *err);
static TvStatus read_text_as(const char *path, char *text, size_t len, bool stored, bool plan_only, Tournament *t,
                             TvError *err);

TvStatus tournament_read_plan(const char *text, Tournament *t, TvError *err)
{
    char *copy = strdup(text ? text : "");
    if (!copy) {
        set_defaults(t, "stored INI");
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    }
    return read_text_as("stored INI", copy, strlen(copy), true, true, t, err);
}

TvStatus tournament_read_text(const char *path, char *text, size_t len, Tournament *t, TvError *err)
{
    return read_text(path, text, len, false, t, err);
}

TvStatus tournament_read_stored_text(const char *path, char *text, size_t len, Tournament *t, TvError *err)
{
    return read_text(path, text, len, true, t, err);
}

static TvStatus read_text(const char *path, char *text, size_t len, bool stored, Tournament *t, TvError *err)
{
    return read_text_as(path, text, len, stored, false, t, err);
}

static TvStatus read_text_as(const char *path, char *text, size_t len, bool stored, bool plan_only, Tournament *t,
                             TvError *err)
{
    tv_error_clear(err);
    set_defaults(t, path);
    t->text = text;
    TvStatus checked = tv_ini_check(t->text, len, path, err);
    if (checked != TV_OK) {
        tournament_free(t);
        return checked;
    }
    Reader *r = calloc(1, sizeof *r);
    if (!r) {
        tournament_free(t);
        return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
    }
    r->t = t;
    r->name = path;
    r->stored = stored;
    r->plan_only = plan_only;
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path + 1) < sizeof r->dir) {
        memcpy(r->dir, path, (size_t)(slash - path + 1));
        r->dir[slash - path + 1] = 0;
    }
    tv_ini_lines_init(&r->in, t->text);

    check_headers(t->text, r);
    t->nengines = r->nsections;
    bool headers_ok = !r->failed;
    if (headers_ok) {
        int rc = ini_parse_stream(tv_ini_line_reader, &r->in, handler, r);
        if (rc < 0)
            failf(r, 1, TV_ERR_LIMIT, "out of memory");
        else if (rc > 0 && (!r->failed || rc < r->err_line))
            failf(r, rc, TV_ERR_PARSE, "malformed line (expected [section] or key = value)");
        apply_each(r, !r->failed);
    }
    /* whole-file checks, in file order of the lines they name */
    for (int i = 0; i < t->nengines && headers_ok && !r->failed; i++) { /* only a file read to its end */
        EngineSection *es = &r->eng[i];
        TournamentEngine *te = &t->engines[i];
        if (es->path_line && es->command_line) {
            failf(r, es->command_line, TV_ERR_PARSE,
                  "[%s] has both path (the built-in engine) and command (a separate program): give one",
                  es->section);
            break;
        }
        if (!es->path_line && !es->command_line) {
            failf(r, es->line, TV_ERR_PARSE,
                  "[%s] has no path (path = FILE, the engine INI) and no command (command = PROGRAM ARGS)",
                  es->section);
            break;
        }
        const bool program = es->command_line != 0; /* a section with a command: a separate program */
        if (program && !te->dir[0])
            copy_str(te->dir, sizeof te->dir, r->dir[0] ? r->dir : ".");
        if (!program && (te->dir[0] || te->stderr_path[0] || te->log_path[0] || te->bench[0] ||
                         te->log_cap_mb != TOURNAMENT_LOG_CAP_MB || te->start_timeout_ms)) {
            failf(r, es->line, TV_ERR_PARSE, "[%s]: dir, stderr, log, log_cap, bench and start_timeout are for a "
                  "command (a separate program); the built-in engine takes its settings from its path and "
                  "option.NAME", es->section);
            break;
        }
        if (r->plan_only)
            continue; /* the engines' files and settings are not read */
        /* option.NAME, in file order: the player takes what it can now */
        TvError e;
        int bad = -1;
        if (player_take_options(te, &bad, &e) != TV_OK) {
            failf(r, bad >= 0 ? es->option_line[bad] : es->line, TV_ERR_PARSE, "[%s] option.%s = %s: %s", es->section,
                  bad >= 0 ? te->option_names[bad] : "?", bad >= 0 ? te->option_values[bad] : "?", e.msg);
            break;
        }
        if (program) /* no engine INI: its settings are its own; only the limits below are ours */
            te->engine.limits = (SearchLimits){0, 0, 0};
        if (es->has_limit[0] || es->has_limit[1] || es->has_limit[2] || es->has_tc) {
            /* the tournament's limits (a tc among them) replace the engine file's */
            te->engine.limits.depth = (int)es->limit[0];
            te->engine.limits.nodes = (uint64_t)es->limit[1];
            te->engine.limits.movetime_ms = (int)es->limit[2];
        }
        const SearchLimits *l = &te->engine.limits;
        if (l->depth == 0 && l->nodes == 0 && l->movetime_ms == 0 && te->tc.base_ms == 0)
            failf(r, es->line, TV_ERR_PARSE,
                  "engine '%s' has no search limit (give tc, movetime, depth or nodes)", te->engine.name);
    }
    if (headers_ok && t->nengines < 2)
        failf(r, t->nengines ? r->eng[0].line : count_lines(t->text), TV_ERR_PARSE,
              "a tournament needs at least 2 [engine NAME] sections, found %d", t->nengines);
    if (headers_ok && t->sprt && t->nengines != 2)
        failf(r, t->sprt_line, TV_ERR_PARSE, "[sprt] tests two engine versions; this tournament has %d",
              t->nengines);
    if (headers_ok && t->sprt && t->openings.per_game)
        failf(r, r->per_game_line, TV_ERR_PARSE,
              "[openings] per_game = yes cannot go with [sprt]: the test counts opening pairs");
    if (headers_ok && t->sprt && !(t->sprt_settings.elo0 < t->sprt_settings.elo1))
        failf(r, t->sprt_line, TV_ERR_PARSE, "[sprt] needs elo0 < elo1 (got %g and %g)", t->sprt_settings.elo0,
              t->sprt_settings.elo1);
    if (headers_ok && !t->openings.file[0]) { /* random openings never repeat and have no order */
        static const char *const FILE_KEYS[4] = {"cycle = yes", "order = random", "start", "format"};
        const bool set[4] = {t->openings.cycle, t->openings.random_order, t->openings.start != 1,
                             t->openings.format != OPENINGS_FORMAT_AUTO};
        const int file_key_lines[4] = {r->cycle_line, r->order_line, r->start_line, r->openings_format_line};
        for (int k = 0; k < 4; k++)
            if (set[k])
                failf(r, file_key_lines[k], TV_ERR_PARSE,
                      "[openings] %s is for an openings file: give file = FILE (random openings never repeat "
                      "and have no order)", FILE_KEYS[k]);
    }
    TvStatus st = TV_OK;
    if (r->failed) {
        st = tv_fail_at(err, r->status, path, r->err_line, "%s", r->msg);
    } else if (t->openings.file[0] && !r->plan_only) {
        st = tournament_load_openings(t, r->file_line, r->start_line, r->stored, err);
    }
    tv_ini_keys_free(&r->keys);
    free(r);
    if (st != TV_OK)
        tournament_free(t);
    return st;
}
