/* train_config.c: the [train] INI of `tavreli train` (see train.h): every
 * key declared once in TRAIN_KEYS (name, kind, range, default), read after
 * the INI readers' one prologue (tv_ini_load: NUL and control bytes, long
 * lines, text after a section header) and the check of section names. */
#include "train.h"
#include "train_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "engine.h"
#include "strbuf.h"
#include "tune.h"

/* ---- the configuration ------------------------------------------------------ */

typedef enum { KEY_NAME, KEY_PATH, KEY_LONG, KEY_DOUBLE, KEY_U64, KEY_FIXED } KeyKind;

/* Every key of [train], declared once: name, kind, place, range, default
 * (the defaults are set from this table too), and what it means (for
 * messages; docs/tuning.md documents them). */
typedef struct {
    const char *name;
    KeyKind kind;
    size_t offset;
    double lo, hi, def;
} TrainKey;

static const TrainKey TRAIN_KEYS[] = {
    {"name", KEY_NAME, offsetof(TrainConfig, name), 0, 0, 0},
    {"engine", KEY_PATH, offsetof(TrainConfig, engine), 0, 0, 0},
    /* generation G tunes on the self-play of generations 1..G: at 100 the
     * last fit reads 100 stores (20,000 games at the default 200), hours
     * per generation at any depth worth training */
    {"generations", KEY_LONG, offsetof(TrainConfig, generations), 1, 100, 3},
    {"games", KEY_LONG, offsetof(TrainConfig, games), 2, 1000000, 200},
    {"depth", KEY_LONG, offsetof(TrainConfig, depth), 1, 20, 2},
    {"sprt_pairs", KEY_LONG, offsetof(TrainConfig, sprt_pairs), 1, 1000000, 200},
    {"elo0", KEY_DOUBLE, offsetof(TrainConfig, elo0), -999, 999, 0},
    {"elo1", KEY_DOUBLE, offsetof(TrainConfig, elo1), -999, 999, 10},
    {"alpha", KEY_DOUBLE, offsetof(TrainConfig, alpha), 1e-6, 0.499, 0.05},
    {"beta", KEY_DOUBLE, offsetof(TrainConfig, beta), 1e-6, 0.499, 0.05},
    {"plies", KEY_LONG, offsetof(TrainConfig, plies), 0, 100, 6},
    {"sample_plies", KEY_LONG, offsetof(TrainConfig, sample_plies), 0, 100, 0},
    {"max_plies", KEY_LONG, offsetof(TrainConfig, max_plies), 1, 10000, 300},
    {"threads", KEY_LONG, offsetof(TrainConfig, threads), 0, 1024, 0},
    {"seed", KEY_U64, offsetof(TrainConfig, seed), 0, 0, 1},
    /* an accepted generation's confirmation: this many opening pairs
     * against gen-0 and as many against the previous best.  50 pairs (100
     * games) give a 95% half-width of 60 to 70 Elo per match near an even
     * score (1.96 * 695 * sd / sqrt(100), sd 0.42 to 0.5 per game at 30% to
     * 0% draws) and about 100 at a score of 85-90% (+-101 and +-114 in the
     * run of docs/tuning.md); it adds 100 to 200 games per accepted generation, less
     * than the 300 self-play and up to 300 SPRT games of each generation of
     * configs/train/quick.ini */
    {"confirm_pairs", KEY_LONG, offsetof(TrainConfig, confirm_pairs), 0, 1000000, 50},
    /* weights every tune holds at the best's values (tune --fixed) */
    {"fixed", KEY_FIXED, offsetof(TrainConfig, fixed), 0, 0, 0},
};
#define NKEYS (int)(sizeof TRAIN_KEYS / sizeof TRAIN_KEYS[0])

typedef struct {
    TrainConfig *c;
    char dir[512];
    char msg[256];
    TvIniLines in;  /* the line reader: in.line is the line being parsed */
    TvIniKeys keys; /* the keys given, for duplicates */
} TrainReader;

static bool name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 63)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.' || *s == '+'))
            return false;
    return true;
}

static int train_handler(void *user, const char *section, const char *name, const char *value)
{
    TrainReader *r = user;
    if (strcmp(section, "train") != 0) {
        snprintf(r->msg, sizeof r->msg, "unknown section [%.60s] (known: [train])", section);
        return 0;
    }
    for (int k = 0; k < NKEYS; k++) {
        const TrainKey *key = &TRAIN_KEYS[k];
        if (strcmp(name, key->name) != 0)
            continue;
        if (tv_ini_key_once(&r->keys, section, name, r->in.line, r->msg, sizeof r->msg) != 1)
            return 0;
        char *at = (char *)r->c + key->offset, *end;
        errno = 0;
        switch (key->kind) {
        case KEY_NAME:
            if (!name_ok(value)) {
                snprintf(r->msg, sizeof r->msg, "[train] name '%.60s' must have 1 to 63 letters, digits or _ - . +",
                         value);
                return 0;
            }
            snprintf(at, sizeof r->c->name, "%s", value);
            return 1;
        case KEY_PATH:
            if (!*value) {
                snprintf(r->msg, sizeof r->msg, "[train] %s needs a path", name);
                return 0;
            }
            if ((value[0] == '/' ? snprintf(at, sizeof r->c->engine, "%s", value)
                                 : snprintf(at, sizeof r->c->engine, "%s%s", r->dir, value)) >=
                (int)sizeof r->c->engine) {
                snprintf(r->msg, sizeof r->msg, "[train] %s: the path is too long", name);
                return 0;
            }
            return 1;
        case KEY_LONG: {
            long v;
            if (!tv_parse_long(value, (long)key->lo, (long)key->hi, &v)) {
                snprintf(r->msg, sizeof r->msg, "[train] %s '%.40s' must be a whole number from %.0f to %.0f", name,
                         value, key->lo, key->hi);
                return 0;
            }
            *(long *)at = v;
            return 1;
        }
        case KEY_DOUBLE: {
            double v = strtod(value, &end);
            if (errno || end == value || *end || !(v >= key->lo && v <= key->hi)) {
                snprintf(r->msg, sizeof r->msg, "[train] %s '%.40s' must be a number from %g to %g", name, value,
                         key->lo, key->hi);
                return 0;
            }
            *(double *)at = v;
            return 1;
        }
        case KEY_FIXED: {
            bool mask[EVAL_NWEIGHTS];
            TvError e;
            if (strlen(value) >= sizeof r->c->fixed) {
                snprintf(r->msg, sizeof r->msg, "[train] fixed: the list is longer than %zu characters",
                         sizeof r->c->fixed - 1);
                return 0;
            }
            if (tune_fixed_parse(value, mask, &e) != TV_OK) {
                snprintf(r->msg, sizeof r->msg, "[train] %.240s", e.msg);
                return 0;
            }
            snprintf(at, sizeof r->c->fixed, "%s", value);
            return 1;
        }
        case KEY_U64: {
            unsigned long long v = value[0] == '-' ? 0 : strtoull(value, &end, 10);
            if (value[0] == '-' || errno || end == value || *end) {
                snprintf(r->msg, sizeof r->msg, "[train] %s '%.40s' must be a whole number from 0 to 2^64-1", name,
                         value);
                return 0;
            }
            *(uint64_t *)at = v;
            return 1;
        }
        }
    }
    StrBuf known = {0};
    for (int k = 0; k < NKEYS; k++)
        strbuf_addf(&known, "%s%s", k ? ", " : "", TRAIN_KEYS[k].name);
    snprintf(r->msg, sizeof r->msg, "unknown key '%.40s' in [train] (known: %s)", name, known.s ? known.s : "");
    free(known.s);
    return 0;
}

/* See train_internal.h. */
TvStatus train_read_config(const char *path, TrainConfig *c, bool check_engine, TvError *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "%s", path);
    for (int k = 0; k < NKEYS; k++) {
        char *at = (char *)c + TRAIN_KEYS[k].offset;
        if (TRAIN_KEYS[k].kind == KEY_LONG)
            *(long *)at = (long)TRAIN_KEYS[k].def;
        else if (TRAIN_KEYS[k].kind == KEY_DOUBLE)
            *(double *)at = TRAIN_KEYS[k].def;
        else if (TRAIN_KEYS[k].kind == KEY_U64)
            *(uint64_t *)at = (uint64_t)TRAIN_KEYS[k].def;
    }
    /* name: the file's stem */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    snprintf(c->name, sizeof c->name, "%.*s", (int)(n < 63 ? n : 63), base);
    if (!name_ok(c->name))
        snprintf(c->name, sizeof c->name, "train");
    char *text;
    TvStatus st = tv_ini_load(path, "training file", &text, NULL, err);
    if (st != TV_OK)
        return st;
    TrainReader r;
    memset(&r, 0, sizeof r);
    r.c = c;
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path + 1) < sizeof r.dir)
        snprintf(r.dir, sizeof r.dir, "%.*s", (int)(slash - path + 1), path);
    static const char *const sections[] = {"train", NULL};
    int rc = tv_ini_check_sections(text, sections, r.msg, sizeof r.msg);
    if (rc == 0) {
        tv_ini_lines_init(&r.in, text);
        rc = ini_parse_stream(tv_ini_line_reader, &r.in, train_handler, &r);
        tv_ini_keys_free(&r.keys);
    }
    free(text);
    if (rc != 0)
        return tv_fail_at(err, TV_ERR_PARSE, path, rc > 0 ? rc : 0, "%s", r.msg[0] ? r.msg : "malformed line");
    if (!c->engine[0])
        return tv_fail(err, TV_ERR_PARSE, "%s: [train] engine = START.ini is required", path);
    if (!(c->elo0 < c->elo1))
        return tv_fail(err, TV_ERR_PARSE, "%s: [train] needs elo0 < elo1 (got %g and %g)", path, c->elo0, c->elo1);
    if (!check_engine)
        return TV_OK;
    EngineVersion ev;
    TvError e;
    if (engine_read(c->engine, &ev, &e) != TV_OK)
        return tv_fail(err, e.status ? e.status : TV_ERR_PARSE, "%s: [train] engine: %s", path, e.msg);
    return TV_OK;
}

TvStatus train_read(const char *path, TrainConfig *c, TvError *err)
{
    return train_read_config(path, c, true, err);
}

/* The default of a [train] key (TRAIN_KEYS). */
double train_key_default(const char *name)
{
    for (int k = 0; k < NKEYS; k++)
        if (!strcmp(TRAIN_KEYS[k].name, name))
            return TRAIN_KEYS[k].def;
    return 0;
}
