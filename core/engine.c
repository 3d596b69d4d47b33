/* engine.c: reading and writing engine versions (INI, via Debian's inih). */
#include "engine.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "option.h"

void engine_default(EngineVersion *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "default");
    eval_params_default(&e->params);
    search_settings_default(&e->settings);
    e->limits.depth = 4;
}

typedef struct {
    EngineVersion *e;
    char msg[TV_ERROR_MSG_LEN];
    bool failed;
    TvIniLines in;  /* the line reader: in.line is the line being parsed */
    TvIniKeys keys; /* the keys read so far: one given twice would silently take the later value */
} Reader;

static int fail(Reader *r, const char *fmt, const char *a, const char *b)
{
    if (!r->failed) {
        snprintf(r->msg, sizeof r->msg, fmt, a, b);
        r->failed = true;
    }
    return 0;
}


static int read_weight(Reader *r, const WeightInfo *w, const char *value)
{
    int n = 0;
    const char *p = value;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char tok[64];
        long v;
        snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), p);
        if (strspn(tok, " \t") == strlen(tok))
            return fail(r, "weight '%s': an empty element (a comma too many?) in '%s'", w->name, value);
        if (n >= w->size) {
            char want[64];
            snprintf(want, sizeof want, "%d", w->size);
            return fail(r, "weight '%s' has more than %s elements", w->name, want);
        }
        if (!tv_parse_long(tok, -1000000, 1000000, &v))
            return fail(r, "weight '%s': '%s' is not a whole number", w->name, tok);
        if (v < w->lo || v > w->hi) {
            char range[96];
            snprintf(range, sizeof range, "%ld is outside its bounds [%d, %d]", v, w->lo, w->hi);
            return fail(r, "weight '%s': %s", w->name, range);
        }
        r->e->params.w[w->offset + n++] = (int)v;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (n != w->size) {
        char got[96];
        snprintf(got, sizeof got, "needs %d comma-separated elements, got %d", w->size, n);
        return fail(r, "weight '%s' %s", w->name, got);
    }
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    Reader *r = user;
    if (r->failed)
        return 0;
    char twice[TV_ERROR_MSG_LEN];
    if (tv_ini_key_once(&r->keys, section, name, r->in.line, twice, sizeof twice) != 1)
        return fail(r, "%s%s", twice, "");
    if (!strcmp(section, "engine")) {
        if (!strcmp(name, "name")) {
            if (!*value || strlen(value) >= sizeof r->e->name)
                return fail(r, "engine name '%s' must have 1 to 63 characters%s", value, "");
            snprintf(r->e->name, sizeof r->e->name, "%s", value);
            return 1;
        }
        return fail(r, "unknown key '%s' in [%s] (known: name)", name, section);
    }
    if (!strcmp(section, "search")) {
        long v;
        int b;
        if (!strcmp(name, "depth")) {
            if (!tv_parse_long(value, 0, SEARCH_MAX_PLY / 2, &v))
                return fail(r, "search depth '%s' must be a whole number from 0 to 48%s", value, "");
            r->e->limits.depth = (int)v;
        } else if (!strcmp(name, "nodes")) {
            if (!tv_parse_long(value, 0, 2000000000L, &v))
                return fail(r, "search nodes '%s' must be a whole number from 0 to 2000000000%s", value, "");
            r->e->limits.nodes = (uint64_t)v;
        } else if (!strcmp(name, "movetime")) {
            if (!tv_parse_long(value, 0, 86400000L, &v))
                return fail(r, "search movetime '%s' must be milliseconds from 0 to 86400000%s", value, "");
            r->e->limits.movetime_ms = (int)v;
        } else {
            int i = search_setting_find(name);
            if (i < 0)
                return fail(r, "unknown key '%s' in [%s] (known: depth, nodes, movetime and the settings listed in "
                               "configs/engines/default.ini)",
                            name, section);
            /* setting i is option i of the table (core/option.h) */
            const SearchSettingInfo *si = &SEARCH_SETTING_INFO[i];
            if (option_parse_value(i, value, &b, NULL) != TV_OK) {
                if (si->type == SEARCH_SETTING_BOOL)
                    return fail(r, "search %s '%s' must be yes or no (or true/false, on/off, 1/0)", si->name, value);
                char range[64];
                snprintf(range, sizeof range, "%d to %d", si->lo, si->hi);
                char what[160];
                snprintf(what, sizeof what, "search %s '%.60s'", si->name, value);
                return fail(r, "%s must be a whole number from %s", what, range);
            }
            option_set(r->e, i, b, NULL);
        }
        return 1;
    }
    if (!strcmp(section, "weights")) {
        for (int d = 0; d < EVAL_NDECLS; d++)
            if (!strcmp(name, EVAL_WEIGHT_INFO[d].name))
                return read_weight(r, &EVAL_WEIGHT_INFO[d], value);
        return fail(r, "unknown weight '%s'%s (see configs/engines/default.ini for the list)", name, "");
    }
    return fail(r, "unknown section [%s]%s (known: [engine], [search], [weights])", section, "");
}

static TvStatus finish(int rc, Reader *r, const char *name, TvError *err)
{
    if (rc == 0 && !r->failed)
        return TV_OK;
    if (rc < 0) {
        tv_error_clear(err);
        if (err)
            snprintf(err->file, sizeof err->file, "%s", name);
        return tv_fail(err, TV_ERR_IO, "%s: cannot read the engine file", name);
    }
    if (!r->failed)
        return tv_fail_at(err, TV_ERR_PARSE, name, rc, "malformed line (expected [section] or key = value)");
    return tv_fail_at(err, TV_ERR_PARSE, name, rc, "%s", r->msg);
}

TvStatus engine_read(const char *path, EngineVersion *e, TvError *err)
{
    char *text;
    TvStatus s = tv_ini_load(path, "engine file", &text, NULL, err);
    if (s != TV_OK) {
        engine_default(e);
        return s;
    }
    s = engine_read_string(text, path, e, err);
    free(text);
    return s;
}

static const char *const ENGINE_SECTIONS[] = {"engine", "search", "weights", NULL};

TvStatus engine_read_string(const char *text, const char *name, EngineVersion *e, TvError *err)
{
    engine_default(e);
    TvStatus st = tv_ini_check(text, strlen(text), name, err);
    if (st != TV_OK)
        return st;
    Reader r = {.e = e};
    int rc = tv_ini_check_sections(text, ENGINE_SECTIONS, r.msg, sizeof r.msg);
    r.failed = rc != 0;
    if (rc == 0) {
        tv_ini_lines_init(&r.in, text);
        rc = ini_parse_stream(tv_ini_line_reader, &r.in, handler, &r);
        tv_ini_keys_free(&r.keys);
    }
    return finish(rc, &r, name, err);
}

/* Comment lines are wrapped at this width: readable in an editor, and far
 * below the INI reader's TV_INI_LINE_MAX (a tuner comment once made a
 * 240-character line that the reader refused). */
#define COMMENT_WIDTH 78

/* Writes text as "# " comment lines, each of its lines wrapped at blanks to
 * COMMENT_WIDTH; a word longer than that (a path) stands alone, cut into
 * pieces only beyond what a line can hold. */
static void write_comment(FILE *f, const char *text)
{
    const size_t hard = TV_INI_LINE_MAX - 2;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *p = s, *end = s + len;
        do {
            size_t take = (size_t)(end - p);
            if (take > COMMENT_WIDTH) {
                size_t cut = COMMENT_WIDTH;
                while (cut > 0 && p[cut] != ' ')
                    cut--;
                if (cut == 0) { /* one long word: to its end, or what a line holds */
                    cut = strcspn(p, " \n");
                    if (cut > (size_t)(end - p))
                        cut = (size_t)(end - p);
                    if (cut > hard)
                        cut = hard;
                }
                take = cut;
            }
            fprintf(f, "# %.*s\n", (int)take, p);
            p += take;
            while (p < end && *p == ' ')
                p++;
        } while (p < end);
        s += len + (nl ? 1 : 0);
    }
}

TvStatus engine_write(const char *path, const EngineVersion *e, const char *extra_comment, TvError *err)
{
    TvAtomicFile a;
    TvStatus st = tv_atomic_open(&a, path, "engine file", err);
    if (st != TV_OK)
        return st;
    engine_print(a.f, e, extra_comment);
    return tv_atomic_commit(&a, err);
}

void engine_print(FILE *f, const EngineVersion *e, const char *extra_comment)
{
    fprintf(f, "# tavreli engine version. Every weight is listed; a file may give any subset\n"
               "# (the rest take their defaults). Units: centi-combatants.\n");
    if (extra_comment && *extra_comment)
        write_comment(f, extra_comment);
    fprintf(f, "\n[engine]\nname = %s\n", e->name);
    fprintf(f, "\n[search]\n");
    fprintf(f, "# default limits (0 = none); a tournament may set its own\n");
    fprintf(f, "depth = %d\nnodes = %llu\nmovetime = %d\n", e->limits.depth, (unsigned long long)e->limits.nodes,
            e->limits.movetime_ms);
    for (int i = 0; i < SEARCH_NSETTINGS; i++) {
        const SearchSettingInfo *si = &SEARCH_SETTING_INFO[i];
        int v = search_setting_value(&e->settings, i);
        if (si->type == SEARCH_SETTING_BOOL)
            fprintf(f, "# %s (yes or no)\n%s = %s\n", si->meaning, si->name, option_bool_text(v, OPTION_SPELL_INI));
        else
            fprintf(f, "# %s (bounds %d..%d)\n%s = %d\n", si->meaning, si->lo, si->hi, si->name, v);
    }
    fprintf(f, "\n[weights]\n");
    for (int d = 0; d < EVAL_NDECLS; d++) {
        const WeightInfo *w = &EVAL_WEIGHT_INFO[d];
        fprintf(f, "# %s (group %s, bounds %d..%d)\n%s = ", w->meaning, w->group, w->lo, w->hi, w->name);
        for (int i = 0; i < w->size; i++)
            fprintf(f, "%s%d", i ? ", " : "", e->params.w[w->offset + i]);
        fprintf(f, "\n");
    }
}
