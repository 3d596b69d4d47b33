/* tournament.c: reading a tournament INI (via Debian's inih) and the plan of
 * its games.  See tournament.h and README.md ("Tournaments").
 *
 * Reading works in three passes over the text kept in t->text:
 *  1. the section headers are checked (inih reports keys, not headers, so an
 *     unknown or empty section would otherwise pass silently) and the
 *     [engine NAME] sections are collected in order;
 *  2. inih calls the handler for every key; the text is fed through our own
 *     line reader so that every key knows its line;
 *  3. what needs the whole file is checked (engine count, `path` present,
 *     limits) and the openings file is read (its positions are checked under
 *     the tournament's rules, which may come after [openings]).
 * The first error in file order is reported as "FILE:LINE: message". */
#include "tournament.h"
#include "variety.h"

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
#include "movegen.h"
#include "option.h"
#include "record.h"
#include "rule_options.h"
#include "rng.h"
#include "search.h"

/* Longest engine NAME: "[engine NAME]" must fit inih's section buffer (50). */
#define ENGINE_NAME_MAX 32
/* Longest meaningful line (inih's default line buffer is 200 bytes). */
#define LINE_MAX_CHARS 198
#define OPENING_ATTEMPTS 1000
/* [each] keys kept until the file is read: every engine key, 64 option.NAME lines and some */
#define MAX_EACH_KEYS (32 + TOURNAMENT_MAX_OPTIONS)
/* Every key of a file without duplicates fits (the fixed sections, [each], and per engine its options and
 * its other keys with room to spare), so that [each] knows every key an engine gives itself. */
#define MAX_SEEN_KEYS (64 + MAX_EACH_KEYS + TOURNAMENT_MAX_ENGINES * (TOURNAMENT_MAX_OPTIONS + 32))

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

/* A clock's base at s: seconds ("90", "7.5") or minutes and seconds ("1:30",
 * "0:07.5": SS two digits from 00 to 59).  *end: the first character after
 * it.  False when s starts with neither. */
static bool parse_base(const char *s, char **end, double *out)
{
    if (!isdigit((unsigned char)*s) && *s != '.')
        return false;
    const char *d = s;
    while (isdigit((unsigned char)*d))
        d++;
    if (*d != ':') {
        *out = strtod(s, end);
        return true;
    }
    /* M:SS */
    if (!isdigit((unsigned char)d[1]) || !isdigit((unsigned char)d[2]) || isdigit((unsigned char)d[3]))
        return false;
    errno = 0;
    double minutes = strtod(s, end); /* stops at the ':' */
    double seconds = strtod(d + 1, end);
    if (errno || seconds >= 60)
        return false;
    *out = minutes * 60 + seconds;
    return true;
}

bool time_control_parse(const char *text, TimeControl *tc)
{
    TimeControl t = {0, 0, 0};
    const char *s = text;
    char *end;
    if (!strcmp(s, "inf")) { /* no clock */
        *tc = t;
        return true;
    }
    const char *slash = strchr(s, '/');
    if (slash) {
        long m = strtol(s, &end, 10);
        if (end != slash || m < 1 || m > 1000 || !isdigit((unsigned char)*s))
            return false;
        t.moves = (int)m;
        s = slash + 1;
    }
    double base;
    if (!parse_base(s, &end, &base))
        return false;
    double inc = 0;
    if (*end == '+') {
        const char *i = end + 1;
        if (!isdigit((unsigned char)*i) && *i != '.')
            return false;
        inc = strtod(i, &end);
    }
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end || !(base > 0 && base <= 86400) || !(inc >= 0 && inc <= 3600))
        return false;
    t.base_ms = (int)(base * 1000.0 + 0.5);
    t.inc_ms = (int)(inc * 1000.0 + 0.5);
    if (t.base_ms < 1)
        return false;
    *tc = t;
    return true;
}

void time_control_format(const TimeControl *tc, char *buf, size_t n)
{
    if (tc->base_ms <= 0) {
        snprintf(buf, n, "%s", "");
        return;
    }
    char moves[16] = "";
    if (tc->moves > 0)
        snprintf(moves, sizeof moves, "%d/", tc->moves);
    snprintf(buf, n, "%s%g+%g", moves, tc->base_ms / 1000.0, tc->inc_ms / 1000.0);
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
    /* the line reader */
    const char *pos;
    int next_line;    /* line number of the next line to hand to inih */
    int line;         /* line of the line being parsed */
    const char *line_start; /* its text */
    char prev_key[80]; /* "section\nkey" of the previous handler call */
    /* collected in pass 1 */
    int nsections;
    EngineSection eng[TOURNAMENT_MAX_ENGINES];
    /* keys seen ("section\nkey") for duplicate detection */
    int nseen;
    char seen[MAX_SEEN_KEYS][80];
    int seen_line[MAX_SEEN_KEYS];
    int file_line;    /* line of [openings] file */
    int per_game_line; /* line of [openings] per_game */
    int cycle_line, order_line, start_line; /* lines of [openings] cycle, order, start */
    bool stored; /* the text of a store's attribute: its games were played, so a short openings file (stores made
                    before cycle existed) is read as cycled */
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

/* An inih reader over the text that counts lines.  A line longer than the
 * buffer is cut (the rest is skipped, so line numbers stay right); pass 1
 * rejects such lines unless they are comments. */
static char *line_reader(char *str, int num, void *stream)
{
    Reader *r = stream;
    if (!*r->pos || num < 3)
        return NULL;
    const char *eol = strchr(r->pos, '\n');
    size_t len = eol ? (size_t)(eol - r->pos) : strlen(r->pos);
    size_t keep = len < (size_t)num - 2 ? len : (size_t)num - 2;
    memcpy(str, r->pos, keep);
    str[keep] = '\n';
    str[keep + 1] = 0;
    r->line = r->next_line++;
    r->line_start = r->pos;
    r->pos += len + (eol ? 1 : 0);
    return str;
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
    char key[80];
    snprintf(key, sizeof key, "%.40s\n%.38s", section, name);
    for (int i = 0; i < r->nseen; i++)
        if (!strcmp(r->seen[i], key)) {
            failf(r, r->line, TV_ERR_PARSE, "duplicate key '%s' in [%s] (first at line %d)", name, section,
                  r->seen_line[i]);
            return false;
        }
    if (r->nseen < MAX_SEEN_KEYS) {
        snprintf(r->seen[r->nseen], sizeof r->seen[0], "%s", key);
        r->seen_line[r->nseen++] = r->line;
    }
    return true;
}

/* An int key in [lo, hi]; the message names the section, key and range. */
static int int_key(Reader *r, const char *section, const char *name, const char *value, long lo, long hi,
                   const char *what, int *out)
{
    long v;
    if (!tv_parse_long(value, lo, hi, &v))
        return failf(r, r->line, TV_ERR_PARSE, "[%s] %s '%s' must be a whole number from %ld to %ld%s", section,
                     name, value, lo, hi, what);
    *out = (int)v;
    return 1;
}

static int tournament_key(Reader *r, const char *name, const char *value)
{
    Tournament *t = r->t;
    if (!strcmp(name, "name")) {
        if (!name_ok(value, sizeof t->name - 1))
            return failf(r, r->line, TV_ERR_PARSE,
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
            return failf(r, r->line, TV_ERR_PARSE, "[tournament] format '%s' must be round-robin or gauntlet",
                         value);
        return 1;
    }
    if (!strcmp(name, "pairs"))
        return int_key(r, "tournament", name, value, 1, 1000000, " (opening pairs per pairing)", &t->pairs);
    if (!strcmp(name, "seed")) {
        if (!parse_u64(value, &t->seed))
            return failf(r, r->line, TV_ERR_PARSE,
                         "[tournament] seed '%s' must be a whole number from 0 to 18446744073709551615", value);
        return 1;
    }
    if (!strcmp(name, "threads"))
        return int_key(r, "tournament", name, value, 0, 1024, " (0 = all cores)", &t->threads);
    return failf(r, r->line, TV_ERR_PARSE,
                 "unknown key '%s' in [tournament] (known: name, format, pairs, seed, threads)", name);
}

static int rules_key(Reader *r, const char *name, const char *value)
{
    if (rule_option_find(name) < 0) {
        char known[128] = "";
        for (int i = 0; i < TV_NRULE_OPTIONS; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     rule_option_info(i)->name);
        return failf(r, r->line, TV_ERR_PARSE, "unknown key '%s' in [rules] (known: %s)", name, known);
    }
    TvError e;
    tv_error_clear(&e);
    if (options_set(&r->t->rules, name, value, &e) != TV_OK)
        return failf(r, r->line, TV_ERR_PARSE, "[rules] %s", e.msg);
    return 1;
}

static int openings_key(Reader *r, const char *name, const char *value)
{
    OpeningSettings *o = &r->t->openings;
    if (!strcmp(name, "plies"))
        return int_key(r, "openings", name, value, 0, 100, "", &o->plies);
    if (!strcmp(name, "balance_depth"))
        return int_key(r, "openings", name, value, 0, 8, " (0 = no balance check)", &o->balance_depth);
    if (!strcmp(name, "balance_cp"))
        return int_key(r, "openings", name, value, 0, 10000, "", &o->balance_cp);
    if (!strcmp(name, "file")) {
        if (!*value) { /* empty = random openings */
            o->file[0] = 0;
            r->file_line = r->line;
            return 1;
        }
        if (!resolve_path(r->dir, value, o->file, sizeof o->file))
            return failf(r, r->line, TV_ERR_LIMIT, "[openings] file '%s': the path is too long", value);
        r->file_line = r->line;
        return 1;
    }
    if (!strcmp(name, "per_game")) {
        int b;
        if (tv_parse_bool(value, &b)) {
            o->per_game = b;
            r->per_game_line = r->line;
            return 1;
        }
        return failf(r, r->line, TV_ERR_PARSE, "[openings] per_game '%s' must be yes or no", value);
    }
    if (!strcmp(name, "sample_plies"))
        return int_key(r, "openings", name, value, 0, 100, "", &o->sample_plies);
    if (!strcmp(name, "sample_temperature"))
        return int_key(r, "openings", name, value, 1, 10000, " (centi-combatants)", &o->sample_temperature);
    if (!strcmp(name, "cycle")) {
        r->cycle_line = r->line;
        int b;
        if (!tv_parse_bool(value, &b))
            return failf(r, r->line, TV_ERR_PARSE, "[openings] cycle '%s' must be yes or no", value);
        o->cycle = b;
        return 1;
    }
    if (!strcmp(name, "order")) {
        r->order_line = r->line;
        if (strcmp(value, "sequential") && strcmp(value, "random"))
            return failf(r, r->line, TV_ERR_PARSE, "[openings] order '%s' must be sequential or random", value);
        o->random_order = value[0] == 'r';
        return 1;
    }
    if (!strcmp(name, "start")) {
        r->start_line = r->line;
        return int_key(r, "openings", name, value, 1, 1000000000, " (the first opening, 1-based)", &o->start);
    }
    return failf(r, r->line, TV_ERR_PARSE,
                 "unknown key '%s' in [openings] (known: plies, balance_depth, balance_cp, file, per_game, "
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
    return failf(r, r->line, TV_ERR_PARSE,
                 "unknown key '%s' in [adjudication] (known: max_plies, resign_score, resign_moves, draw_score, "
                 "draw_moves, draw_after_ply)",
                 name);
}

static int sprt_key(Reader *r, const char *name, const char *value)
{
    Tournament *t = r->t;
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
                return failf(r, r->line, TV_ERR_PARSE, "[sprt] %s '%s' must be %s", name, value,
                             prob ? "a probability above 0 and below 0.5" : "a number of normalized Elo");
            *dst[k] = v;
            t->sprt = true;
            if (!t->sprt_line)
                t->sprt_line = r->line;
            return 1;
        }
    return failf(r, r->line, TV_ERR_PARSE, "unknown key '%s' in [sprt] (known: elo0, elo1, alpha, beta)", name);
}

static int engine_key(Reader *r, int idx, const char *name, const char *value)
{
    EngineSection *es = &r->eng[idx];
    TournamentEngine *te = &r->t->engines[idx];
    if (!strcmp(name, "path")) {
        char resolved[sizeof te->path];
        es->path_line = r->line;
        if (!*value)
            return failf(r, r->line, TV_ERR_PARSE, "[%s] path is empty", es->section);
        if (!resolve_path(r->dir, value, resolved, sizeof resolved))
            return failf(r, r->line, TV_ERR_LIMIT, "[%s] path '%s' is too long", es->section, value);
        char keep[sizeof te->engine.name];
        memcpy(keep, te->engine.name, sizeof keep);
        TvError e;
        tv_error_clear(&e);
        if (engine_read(resolved, &te->engine, &e) != TV_OK)
            return failf(r, r->line, e.status, "engine '%s': %s", keep, e.msg);
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
                return failf(r, r->line, TV_ERR_PARSE, "[%s] %s '%s' must be a whole number from 0 to %ld%s",
                             es->section, name, value, hi[k], what[k]);
            es->has_limit[k] = true;
            es->limit[k] = v;
            return 1;
        }
    if (!strcmp(name, "command")) {
        es->command_line = r->line; /* even when bad: the section has its command */
        te->kind = PLAYER_PROCESS;
        if (!*value)
            return failf(r, r->line, TV_ERR_PARSE, "[%s] command is empty", es->section);
        if (!resolve_command(r->dir, value, te->command, sizeof te->command))
            return failf(r, r->line, TV_ERR_PARSE,
                         "[%s] command '%.80s' has an unclosed quote or is too long (1023 bytes, 63 words)", es->section, value);
        te->kind = PLAYER_PROCESS;
        es->command_line = r->line;
        return 1;
    }
    if (!strcmp(name, "dir") || !strcmp(name, "stderr") || !strcmp(name, "log")) {
        char *dst = name[0] == 'd' ? te->dir : name[0] == 's' ? te->stderr_path : te->log_path;
        size_t n = name[0] == 'd' ? sizeof te->dir : sizeof te->stderr_path;
        if (!*value)
            return failf(r, r->line, TV_ERR_PARSE, "[%s] %s is empty", es->section, name);
        if (name[0] == 's' &&
            (!strcmp(value, TOURNAMENT_STDERR_DISCARD) || !strcmp(value, ENGINE_PROC_STDERR_INHERIT)))
            copy_str(dst, n, value); /* words, not files */
        else if (!resolve_path(r->dir, value, dst, n))
            return failf(r, r->line, TV_ERR_LIMIT, "[%s] %s '%s' is too long", es->section, name, value);
        return 1;
    }
    if (!strncmp(name, "option.", 7)) {
        const char *opt = name + 7;
        if (!*opt || strlen(opt) >= sizeof te->option_names[0] || strlen(value) >= sizeof te->option_values[0])
            return failf(r, r->line, TV_ERR_PARSE,
                         "[%s] option.NAME = VALUE needs a name of 1 to %zu characters and a value of at most %zu",
                         es->section, sizeof te->option_names[0] - 1, sizeof te->option_values[0] - 1);
        if (te->noptions == TOURNAMENT_MAX_OPTIONS)
            return failf(r, r->line, TV_ERR_LIMIT, "[%s] more than %d option.NAME lines", es->section,
                         TOURNAMENT_MAX_OPTIONS);
        copy_str(te->option_names[te->noptions], sizeof te->option_names[0], opt);
        copy_str(te->option_values[te->noptions], sizeof te->option_values[0], value);
        es->option_line[te->noptions] = r->line;
        te->noptions++;
        return 1;
    }
    if (!strcmp(name, "tc")) {
        if (!time_control_parse(value, &te->tc))
            return failf(r, r->line, TV_ERR_PARSE,
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
    } TIMES[2] = {{"timeout", 1, 86400, "seconds", 1000}, {"timemargin", 0, 60000, "milliseconds", 1}};
    int *const times_dst[2] = {&te->timeout_ms, &te->timemargin_ms};
    for (int k = 0; k < 2; k++)
        if (!strcmp(name, TIMES[k].key)) {
            long v;
            if (!tv_parse_long(value, TIMES[k].lo, TIMES[k].hi, &v))
                return failf(r, r->line, TV_ERR_PARSE, "[%s] %s '%s' must be a whole number from %ld to %ld (%s)",
                             es->section, name, value, TIMES[k].lo, TIMES[k].hi, TIMES[k].unit);
            *times_dst[k] = (int)v * TIMES[k].ms;
            return 1;
        }
    return failf(r, r->line, TV_ERR_PARSE,
                 "unknown key '%s' in [%s] (known: path, command, dir, stderr, log, option.NAME, depth, nodes, "
                 "movetime, tc, timemargin, timeout)",
                 name, es->section);
}

/* [each]: kept, and given to every engine once the whole file is read
 * (apply_each), so that it may come before or after the engines. */
static int each_key(Reader *r, const char *name, const char *value)
{
    if (r->neach == MAX_EACH_KEYS)
        return failf(r, r->line, TV_ERR_LIMIT, "more than %d keys in [each]", MAX_EACH_KEYS);
    if (strlen(name) >= sizeof r->each[0].name)
        return failf(r, r->line, TV_ERR_PARSE, "[each] key '%.60s' is too long", name);
    copy_str(r->each[r->neach].name, sizeof r->each[0].name, name);
    copy_str(r->each[r->neach].value, sizeof r->each[0].value, value);
    r->each[r->neach++].line = r->line;
    return 1;
}

/* Whether [section] gave key `name` (check_duplicate has seen every key). */
static bool section_has(const Reader *r, const char *section, const char *name)
{
    char key[80];
    snprintf(key, sizeof key, "%.40s\n%.38s", section, name);
    for (int i = 0; i < r->nseen; i++)
        if (!strcmp(r->seen[i], key))
            return true;
    return false;
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
            if (program_key < 0 && (!strcmp(name, "dir") || !strcmp(name, "stderr")))
                program_key = k;
            copy_str(es->section, sizeof es->section, "each");
            r->line = r->each[k].line;
            engine_key(r, i, name, r->each[k].value);
            memcpy(es->section, keep, sizeof keep);
        }
        if (complete && program_key >= 0 && r->t->engines[i].kind != PLAYER_PROCESS)
            failf(r, r->each[program_key].line, TV_ERR_PARSE,
                  "[each] %s is for a command (a separate program), and engine '%s' is the built-in engine: give "
                  "it in the sections of the programs",
                  r->each[program_key].name, r->t->engines[i].engine.name);
    }
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    Reader *r = user;
    if (r->failed && r->err_line <= r->line)
        return 0;
    /* inih joins an indented line to the previous key's value (calling us
     * again with the same key): values must fit on one line here. */
    char key[80];
    snprintf(key, sizeof key, "%.40s\n%.38s", section, name);
    bool repeat = !strcmp(key, r->prev_key);
    snprintf(r->prev_key, sizeof r->prev_key, "%s", key);
    if (repeat && r->line_start && (r->line_start[0] == ' ' || r->line_start[0] == '\t'))
        return failf(r, r->line, TV_ERR_PARSE,
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
        return failf(r, r->line, TV_ERR_PARSE, "key '%s' before any [section]", name);
    /* Not reached: pass 1 rejected every other header. */
    return failf(r, r->line, TV_ERR_PARSE, "unknown section [%s]", section);
}

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
        if (err) {
            tv_error_clear(err);
            copy_str(err->file, sizeof err->file, path);
            err->line = line;
        }
        return tv_fail(err, TV_ERR_PARSE, "%s:%d: the game is already over (%s)", path, line, game_state_name(gs));
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

/* Game records as openings: each record's start position (its TFEN tag, or
 * the start position), each distinct position once: a TGN file that
 * `tavreli export --tgn` wrote gives back the openings of its games (both
 * games of a pair start from the same one, which is taken once). */
static TvStatus record_openings(Openings *o, const Tournament *t, const char *text, const char *path, TvError *err)
{
    RecordList list;
    TvError e;
    if (records_read_string(text, path, &list, &e) != TV_OK) {
        if (err) {
            *err = e;
            copy_str(err->file, sizeof err->file, path);
        }
        return tv_fail(err, e.status, "%s", e.msg);
    }
    TvStatus st = TV_OK;
    const int first = o->n;
    for (int i = 0; i < list.count && st == TV_OK; i++) {
        const GameRecord *g = &list.games[i];
        Position p;
        if (tfen_read_arg(g->start_tfen[0] ? g->start_tfen : "startpos", &p, &e) != TV_OK) {
            if (err) {
                tv_error_clear(err);
                copy_str(err->file, sizeof err->file, path);
                err->line = g->source_line;
            }
            st = tv_fail(err, TV_ERR_PARSE, "%s:%d: %s", path, g->source_line, e.msg);
        } else if ((st = add_opening(o, t, &p, path, g->source_line, err)) == TV_OK) {
            for (int k = first; k < o->n - 1; k++)
                if (strcmp(o->tfens[k], o->tfens[o->n - 1]) == 0) {
                    o->n--; /* seen before */
                    break;
                }
        }
    }
    records_free(&list);
    return st;
}

/* TFEN lines as openings ('#' comments, blank lines skipped). */
static TvStatus tfen_openings(Openings *o, const Tournament *t, char *text, const char *path, TvError *err)
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
            if (err) {
                tv_error_clear(err);
                copy_str(err->file, sizeof err->file, path);
                err->line = line;
            }
            return tv_fail(err, TV_ERR_PARSE, "%s:%d: %s", path, line, e.msg);
        }
        TvStatus st = add_opening(o, t, &p, path, line, err);
        if (st != TV_OK)
            return st;
        s = next;
    }
    return TV_OK;
}

/* An error at line `line` of `file`: "FILE:LINE: message", with err->file and err->line. */
static TvStatus fail_at(TvError *err, TvStatus status, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static TvStatus fail_at(TvError *err, TvStatus status, const char *file, int line, const char *fmt, ...)
{
    char msg[TV_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err) {
        tv_error_clear(err);
        copy_str(err->file, sizeof err->file, file);
        err->line = line;
    }
    return tv_fail(err, status, "%s:%d: %s", file, line, msg);
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

static TvStatus load_openings(Tournament *t, const Reader *r, TvError *err)
{
    const char *path = t->openings.file;
    const int ini_line = r->file_line;
    char *text;
    size_t len;
    TvError e;
    if (tv_read_file(path, "openings file", &text, &len, &e) != TV_OK) {
        if (err) {
            tv_error_clear(err);
            copy_str(err->file, sizeof err->file, t->source);
            err->line = ini_line;
        }
        return tv_fail(err, TV_ERR_IO, "%s:%d: %s", t->source, ini_line, e.msg);
    }
    Openings o = {NULL, 0, 0};
    TvStatus st;
    if (strlen(text) != len) {
        int line = 1;
        for (const char *c = text; *c; c++)
            line += *c == '\n';
        if (err) {
            tv_error_clear(err);
            copy_str(err->file, sizeof err->file, path);
            err->line = line;
        }
        st = tv_fail(err, TV_ERR_PARSE, "%s:%d: a NUL byte: an openings file is text", path, line);
    } else if (openings_are_records(text))
        st = record_openings(&o, t, text, path, err);
    else
        st = tfen_openings(&o, t, text, path, err);
    free(text);
    if (st == TV_OK && o.n == 0)
        st = fail_at(err, TV_ERR_PARSE, t->source, ini_line, "the openings file '%s' has no positions", path);
    const int64_t needed = tournament_openings_needed(t);
    if (st == TV_OK && t->openings.start > o.n)
        st = fail_at(err, TV_ERR_PARSE, t->source, r->start_line,
                     "[openings] start %d is beyond the %d openings of '%s' (give 1 to %d)", t->openings.start, o.n,
                     path, o.n);
    else if (st == TV_OK && needed > o.n && !t->openings.cycle && !r->stored)
        st = fail_at(err, TV_ERR_PARSE, t->source, ini_line,
                     "the openings file '%s' has %d openings, but the plan needs %lld (%s = %lld), so the rest "
                     "would repeat them: give more openings, fewer pairs, or set [openings] cycle = yes to play "
                     "them again",
                     path, o.n, (long long)needed,
                     t->openings.per_game ? "one per game with per_game = yes: games" : "one per round: pairs",
                     (long long)needed);
    if (st == TV_OK && !order_openings(t, &o))
        st = tv_fail(err, TV_ERR_LIMIT, "%s: out of memory ordering the openings", path);
    free(o.tfens);
    return st;
}

/* ---- reading ----------------------------------------------------------------- */

void tournament_defaults(Tournament *t, const char *name)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->format = FORMAT_ROUND_ROBIN;
    t->pairs = 10;
    sprt_settings_default(&t->sprt_settings);
    t->seed = 1;
    t->threads = 0;
    t->openings.plies = 6;
    t->openings.balance_depth = 2;
    t->openings.balance_cp = 150;
    t->openings.sample_temperature = 100;
    t->openings.start = 1;
    t->adjudication.max_plies = 400;
    t->adjudication.resign_score = 1000;
    t->adjudication.resign_moves = 4;
    t->adjudication.draw_score = 10;
    t->adjudication.draw_moves = 8;
    t->adjudication.draw_after_ply = 80;
    for (int i = 0; i < TOURNAMENT_MAX_ENGINES; i++) {
        TournamentEngine *te = &t->engines[i];
        engine_default(&te->engine);
        te->timemargin_ms = 100;
        te->timeout_ms = MATCH_ANSWER_TIMEOUT_MS;
    }
}

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
    tv_error_clear(err);
    set_defaults(t, path);
    t->text = text;
    char why[200];
    int bad = tv_ini_check_text(t->text, len, why, sizeof why);
    if (bad) {
        if (err) {
            copy_str(err->file, sizeof err->file, path);
            err->line = bad;
        }
        tournament_free(t);
        return tv_fail(err, TV_ERR_PARSE, "%s:%d: %s", path, bad, why);
    }
    Reader *r = calloc(1, sizeof *r);
    if (!r) {
        tournament_free(t);
        return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
    }
    r->t = t;
    r->name = path;
    r->stored = stored;
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path + 1) < sizeof r->dir) {
        memcpy(r->dir, path, (size_t)(slash - path + 1));
        r->dir[slash - path + 1] = 0;
    }
    r->pos = t->text;
    r->next_line = 1;

    check_headers(t->text, r);
    t->nengines = r->nsections;
    bool headers_ok = !r->failed;
    if (headers_ok) {
        int rc = ini_parse_stream(line_reader, r, handler, r);
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
        if (te->kind == PLAYER_PROCESS && !te->dir[0])
            copy_str(te->dir, sizeof te->dir, r->dir[0] ? r->dir : ".");
        if (te->kind != PLAYER_PROCESS && (te->dir[0] || te->stderr_path[0] || te->log_path[0])) {
            failf(r, es->line, TV_ERR_PARSE, "[%s]: dir, stderr and log are for a command (a separate program); the "
                  "built-in engine takes its settings from its path and option.NAME", es->section);
            break;
        }
        /* option.NAME on the built-in engine: applied to the version its path
         * gave, from the table of engine options (core/option.h), in file order */
        for (int k = 0; te->kind != PLAYER_PROCESS && k < te->noptions && !r->failed; k++) {
            TvError e;
            tv_error_clear(&e);
            if (option_set_text(&te->engine, te->option_names[k], te->option_values[k], &e) != TV_OK)
                failf(r, es->option_line[k], TV_ERR_PARSE, "[%s] option.%s = %s: %s", es->section,
                      te->option_names[k], te->option_values[k], e.msg);
        }
        if (r->failed)
            break;
        if (te->kind == PLAYER_PROCESS) /* its settings are its own; only the limits below are ours */
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
        static const char *const FILE_KEYS[3] = {"cycle = yes", "order = random", "start"};
        const bool set[3] = {t->openings.cycle, t->openings.random_order, t->openings.start != 1};
        const int file_key_lines[3] = {r->cycle_line, r->order_line, r->start_line};
        for (int k = 0; k < 3; k++)
            if (set[k])
                failf(r, file_key_lines[k], TV_ERR_PARSE,
                      "[openings] %s is for an openings file: give file = FILE (random openings never repeat "
                      "and have no order)", FILE_KEYS[k]);
    }
    TvStatus st = TV_OK;
    if (r->failed) {
        if (err) {
            tv_error_clear(err);
            copy_str(err->file, sizeof err->file, path);
            err->line = r->err_line;
        }
        st = tv_fail(err, r->status, "%s:%d: %s", path, r->err_line, r->msg);
    } else if (t->openings.file[0]) {
        st = load_openings(t, r, err);
    }
    free(r);
    if (st != TV_OK)
        tournament_free(t);
    return st;
}

void tournament_free(Tournament *t)
{
    if (!t)
        return;
    free(t->text);
    t->text = NULL;
    free(t->opening_tfens);
    t->opening_tfens = NULL;
    t->nopening_tfens = 0;
}

/* ---- the plan ------------------------------------------------------------------ */

int tournament_pairings(const Tournament *t)
{
    int n = t->nengines;
    if (n < 2)
        return 0;
    return t->format == FORMAT_GAUNTLET ? n - 1 : n * (n - 1) / 2;
}

/* Round-robin pairings in order (0,1), (0,2), ..., (0,n-1), (1,2), ...;
 * gauntlet pairings (0,1), (0,2), ..., (0,n-1). */
void tournament_pairing(const Tournament *t, int p, int *first, int *second)
{
    int n = t->nengines;
    if (t->format == FORMAT_GAUNTLET) {
        *first = 0;
        *second = p + 1;
        return;
    }
    for (int i = 0; i < n - 1; i++) {
        if (p < n - 1 - i) {
            *first = i;
            *second = i + 1 + p;
            return;
        }
        p -= n - 1 - i;
    }
    *first = 0; /* p out of range: not reached for 0 <= p < pairings */
    *second = 1;
}

/* Whether two engines are started alike (the built-in engine: its
 * option.NAME lines; command and dir are empty). */
static bool same_process(const TournamentEngine *x, const TournamentEngine *y)
{
    if (strcmp(x->command, y->command) || strcmp(x->dir, y->dir) || x->noptions != y->noptions)
        return false;
    for (int i = 0; i < x->noptions; i++)
        if (strcmp(x->option_names[i], y->option_names[i]) || strcmp(x->option_values[i], y->option_values[i]))
            return false;
    return true;
}

bool tournament_can_continue(const Tournament *stored, const Tournament *now, char *why, size_t n)
{
    const Tournament *a = stored, *b = now;
#define DIFFERS(cond, ...)                                                                                           \
    do {                                                                                                             \
        if (cond) {                                                                                                  \
            snprintf(why, n, __VA_ARGS__);                                                                           \
            return false;                                                                                            \
        }                                                                                                            \
    } while (0)
    DIFFERS(a->format != b->format, "[tournament] format differs");
    DIFFERS(a->seed != b->seed, "[tournament] seed %llu, now %llu", (unsigned long long)a->seed,
            (unsigned long long)b->seed);
    DIFFERS(b->pairs < a->pairs, "[tournament] pairs %d, now %d (fewer pairs would drop stored games)", a->pairs,
            b->pairs);
    DIFFERS(memcmp(&a->rules, &b->rules, sizeof a->rules) != 0, "[rules] differ");
    DIFFERS(a->openings.plies != b->openings.plies || a->openings.balance_depth != b->openings.balance_depth ||
                a->openings.balance_cp != b->openings.balance_cp || strcmp(a->openings.file, b->openings.file) ||
                a->openings.per_game != b->openings.per_game ||
                a->openings.sample_plies != b->openings.sample_plies ||
                a->openings.sample_temperature != b->openings.sample_temperature ||
                a->openings.random_order != b->openings.random_order || a->openings.start != b->openings.start,
            "[openings] differ"); /* cycle may differ: it changes no game, it only allows more */
    DIFFERS(memcmp(&a->adjudication, &b->adjudication, sizeof a->adjudication) != 0, "[adjudication] differs");
    DIFFERS(a->sprt != b->sprt || (a->sprt && memcmp(&a->sprt_settings, &b->sprt_settings, sizeof a->sprt_settings)),
            "[sprt] differs");
    DIFFERS(a->nengines != b->nengines, "%d engines, now %d", a->nengines, b->nengines);
    for (int i = 0; i < a->nengines; i++) {
        const TournamentEngine *x = &a->engines[i], *y = &b->engines[i];
        DIFFERS(strcmp(x->engine.name, y->engine.name), "engine %d is '%s', now '%s'", i + 1, x->engine.name,
                y->engine.name);
        DIFFERS(x->kind != y->kind || x->engine.limits.depth != y->engine.limits.depth ||
                    x->engine.limits.nodes != y->engine.limits.nodes ||
                    x->engine.limits.movetime_ms != y->engine.limits.movetime_ms,
                "engine '%s': its limits differ", x->engine.name);
        DIFFERS(memcmp(&x->engine.settings, &y->engine.settings, sizeof x->engine.settings) != 0,
                "engine '%s': its search settings differ", x->engine.name);
        DIFFERS(memcmp(&x->tc, &y->tc, sizeof x->tc) != 0 || x->timemargin_ms != y->timemargin_ms ||
                    x->timeout_ms != y->timeout_ms,
                "engine '%s': its clock (tc, timemargin, timeout) differs", x->engine.name);
        DIFFERS(!same_process(x, y), "engine '%s': its command, dir or option.NAME lines differ", x->engine.name);
    }
#undef DIFFERS
    return true;
}

/* The next line of text that holds a setting (not blank, not a comment),
 * trimmed, from *p on; its number in *line.  False at the end. */
static bool next_setting(const char **p, int *line, char *buf, size_t n)
{
    while (**p) {
        const char *s = *p, *eol = strchr(s, '\n');
        const char *end = eol ? eol : s + strlen(s);
        *p = eol ? eol + 1 : end;
        ++*line;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        const char *cut = s;
        while (cut < end && *cut != ';' && *cut != '#')
            cut++;
        while (cut > s && (cut[-1] == ' ' || cut[-1] == '\t' || cut[-1] == '\r'))
            cut--;
        if (cut == s)
            continue;
        snprintf(buf, n, "%.*s", (int)(cut - s), s);
        return true;
    }
    return false;
}

void tournament_text_difference(const char *a, const char *b, char *buf, size_t n)
{
    const char *pa = a ? a : "", *pb = b ? b : "";
    int la = 0, lb = 0;
    char sa[256], sb[256];
    buf[0] = 0;
    for (;;) {
        bool ha = next_setting(&pa, &la, sa, sizeof sa), hb = next_setting(&pb, &lb, sb, sizeof sb);
        if (!ha && !hb)
            return;
        if (ha && hb) {
            /* blanks around '=' do not count */
            char ca[256], cb[256];
            size_t i = 0, j = 0;
            for (const char *c = sa; *c; c++)
                if (*c != ' ' && *c != '\t')
                    ca[i++] = *c;
            for (const char *c = sb; *c; c++)
                if (*c != ' ' && *c != '\t')
                    cb[j++] = *c;
            ca[i] = cb[j] = 0;
            if (!strcmp(ca, cb))
                continue;
        }
        char xa[300], xb[300];
        if (ha)
            snprintf(xa, sizeof xa, "line %d '%s'", la, sa);
        else
            snprintf(xa, sizeof xa, "(none)");
        if (hb)
            snprintf(xb, sizeof xb, "line %d '%s'", lb, sb);
        else
            snprintf(xb, sizeof xb, "(none)");
        snprintf(buf, n, "%s / %s", xa, xb);
        return;
    }
}

bool tournament_engines_identical(const Tournament *t, int a, int b)
{
    const TournamentEngine *x = &t->engines[a], *y = &t->engines[b];
    return x->kind == y->kind && x->kind != PLAYER_RANDOM &&
           !memcmp(&x->engine.params, &y->engine.params, sizeof x->engine.params) &&
           !memcmp(&x->engine.settings, &y->engine.settings, sizeof x->engine.settings) &&
           x->engine.limits.depth == y->engine.limits.depth && x->engine.limits.nodes == y->engine.limits.nodes &&
           x->engine.limits.movetime_ms == y->engine.limits.movetime_ms && same_process(x, y) &&
           /* on a clock, timing alone makes the games differ */
           x->engine.limits.movetime_ms == 0 && x->tc.base_ms == 0 && y->tc.base_ms == 0;
}

bool tournament_reproducible(const Tournament *t)
{
    for (int i = 0; i < t->nengines; i++) {
        const TournamentEngine *e = &t->engines[i];
        if (e->kind == PLAYER_PROCESS || e->tc.base_ms > 0 || e->engine.limits.movetime_ms > 0)
            return false;
    }
    return true;
}

int64_t tournament_total_games(const Tournament *t)
{
    return (int64_t)tournament_pairings(t) * t->pairs * 2;
}

int64_t tournament_openings_needed(const Tournament *t)
{
    return t->openings.per_game ? tournament_total_games(t) : t->pairs;
}

/* With P pairings, game i belongs to
 *     pair k = i / 2,  round r = k / P,  pairing p = k % P,
 * so round r (games 2rP .. 2rP + 2P - 1) plays every pairing once and an
 * interrupted run has played whole rounds.  Game 2k has the pairing's first
 * engine as White, game 2k + 1 the second.  Both use opening r: all pairings
 * of a round start from the same position, which makes their results
 * comparable.  With [openings] per_game every game has its own opening,
 * opening i.  The game's seed is the (i+1)-th output of splitmix64 started
 * at t->seed, i.e. mix(t->seed + (i + 1) * 0x9E3779B97F4A7C15). */
void tournament_game(const Tournament *t, int64_t i, PlannedGame *g)
{
    int P = tournament_pairings(t);
    int64_t k = i / 2;
    int first = 0, second = 1;
    g->index = i;
    g->pairing = P > 0 ? (int)(k % P) : 0;
    g->opening = t->openings.per_game ? (int)i : P > 0 ? (int)(k / P) : 0;
    if (P > 0)
        tournament_pairing(t, g->pairing, &first, &second);
    g->white = i % 2 == 0 ? first : second;
    g->black = i % 2 == 0 ? second : first;
    g->seed = tv_rng_mix(t->seed + (uint64_t)i * TV_RNG_GOLDEN);
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
