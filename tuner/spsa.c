/* spsa.c: the SPSA configuration, its gain schedule and the step of theta
 * (spsa.h; docs/spsa.md). */
#include "spsa.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player.h"
#include "rng.h"
#include "strbuf.h"

/* ---- reading ----------------------------------------------------------------- */

typedef struct {
    SpsaConfig *c;
    TvIniLines in; /* the line reader: in.line is the line being parsed */
    bool in_spsa;     /* the last header seen was [spsa] */
    bool failed;
    TvError *err;
    TvIniKeys keys; /* [spsa] keys given, for duplicates */
} SpsaReader;

static bool failf(SpsaReader *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool failf(SpsaReader *r, int line, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    char msg[TV_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tv_fail(r->err, TV_ERR_PARSE, "%s:%d: %s", r->c->source, line, msg);
    if (r->err) {
        snprintf(r->err->file, sizeof r->err->file, "%.255s", r->c->source);
        r->err->line = line;
    }
    return false;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return false;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_yes_no(const char *s, bool *out)
{
    if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "1"))
        *out = true;
    else if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0"))
        *out = false;
    else
        return false;
    return true;
}

/* `param NAME = START, MIN, MAX, C_END, R_END` */
static bool param_line(SpsaReader *r, const char *name, const char *value)
{
    SpsaConfig *c = r->c;
    while (isspace((unsigned char)*name))
        name++;
    if (!*name)
        return failf(r, r->in.line, "param without a name: write 'param NAME = START, MIN, MAX, C_END, R_END'");
    if (strlen(name) >= sizeof c->params[0].name)
        return failf(r, r->in.line, "param name '%.70s' is longer than %d characters", name,
                     (int)sizeof c->params[0].name - 1);
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->params[i].name, name))
            return failf(r, r->in.line, "param %s is given twice (first at line %d): give each parameter once", name,
                         c->params[i].line);
    if (c->nparams == SPSA_MAX_PARAMS)
        return failf(r, r->in.line, "more than %d parameters: tune at most %d at a time", SPSA_MAX_PARAMS,
                     SPSA_MAX_PARAMS);
    double v[5];
    int n = 0;
    char buf[TV_INI_LINE_MAX + 2];
    snprintf(buf, sizeof buf, "%s", value);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == 5 || !parse_double(tok, &v[n]))
            return failf(r, r->in.line,
                         "param %s = '%s': expected five numbers START, MIN, MAX, C_END, R_END (e.g. 'param "
                         "lmr_base = 100, 50, 200, 10, 0.002')",
                         name, value);
        n++;
    }
    if (n != 5)
        return failf(r, r->in.line,
                     "param %s = '%s': expected five numbers START, MIN, MAX, C_END, R_END, found %d", name, value, n);
    SpsaParam *p = &c->params[c->nparams];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->start = v[0];
    p->lo = v[1];
    p->hi = v[2];
    p->c_end = v[3];
    p->r_end = v[4];
    p->line = r->in.line;
    if (!(p->lo < p->hi))
        return failf(r, r->in.line, "param %s: MIN %g must be below MAX %g", name, p->lo, p->hi);
    if (p->start < p->lo || p->start > p->hi)
        return failf(r, r->in.line, "param %s: START %g is outside [MIN, MAX] = [%g, %g]", name, p->start, p->lo, p->hi);
    if (!(p->c_end > 0))
        return failf(r, r->in.line, "param %s: C_END %g must be above 0 (the last perturbation, in the parameter's units)",
                     name, p->c_end);
    if (!(p->r_end > 0))
        return failf(r, r->in.line, "param %s: R_END %g must be above 0 (the last step per c_end^2, e.g. 0.002)", name,
                     p->r_end);
    c->nparams++;
    return true;
}

static bool long_key(SpsaReader *r, const char *name, const char *value, long lo, long hi, long *out)
{
    if (!tv_parse_long(value, lo, hi, out))
        return failf(r, r->in.line, "[spsa] %s '%s' must be a whole number from %ld to %ld", name, value, lo, hi);
    return true;
}

static bool double_key(SpsaReader *r, const char *name, const char *value, double lo, double hi, double *out)
{
    if (!parse_double(value, out) || *out < lo || *out > hi)
        return failf(r, r->in.line, "[spsa] %s '%s' must be a number from %g to %g", name, value, lo, hi);
    return true;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    SpsaReader *r = user;
    if (r->failed)
        return 0;
    if (strcmp(section, "spsa") != 0)
        return 1; /* the tournament reader's */
    SpsaConfig *c = r->c;
    if (!strncmp(name, "param", 5) && (name[5] == ' ' || name[5] == '\t'))
        return param_line(r, name + 5, value);
    char twice[200];
    if (tv_ini_key_once(&r->keys, section, name, r->in.line, twice, sizeof twice) != 1)
        return failf(r, r->in.line, "%s", twice);
    if (!strcmp(name, "name")) {
        size_t n = strlen(value);
        bool ok = n > 0 && n < sizeof c->name;
        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)value[i]) || strchr("_-.+", value[i]);
        if (!ok)
            return failf(r, r->in.line, "[spsa] name '%s' must have 1 to %d letters, digits or _ - . +", value,
                         (int)sizeof c->name - 1);
        snprintf(c->name, sizeof c->name, "%s", value);
        return 1;
    }
    if (!strcmp(name, "iterations"))
        return long_key(r, name, value, 1, 100000, &c->iterations);
    if (!strcmp(name, "batch"))
        return long_key(r, name, value, 1, 1000, &c->batch);
    if (!strcmp(name, "threads"))
        return long_key(r, name, value, 0, 1024, &c->threads);
    if (!strcmp(name, "verify_pairs"))
        return long_key(r, name, value, 1, 1000000, &c->verify_pairs);
    if (!strcmp(name, "seed")) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (!isdigit((unsigned char)value[0]) || *end || errno)
            return failf(r, r->in.line, "[spsa] seed '%s' must be a whole number from 0 to 18446744073709551615",
                         value);
        c->seed = v;
        return 1;
    }
    if (!strcmp(name, "alpha"))
        return double_key(r, name, value, 0.01, 1, &c->alpha);
    if (!strcmp(name, "gamma"))
        return double_key(r, name, value, 0.01, 1, &c->gamma);
    if (!strcmp(name, "A"))
        return double_key(r, name, value, 0, 10, &c->A_ratio);
    if (!strcmp(name, "verify_elo0"))
        return double_key(r, name, value, -1000, 1000, &c->verify_elo0);
    if (!strcmp(name, "verify_elo1"))
        return double_key(r, name, value, -1000, 1000, &c->verify_elo1);
    if (!strcmp(name, "verify")) {
        if (!parse_yes_no(value, &c->verify))
            return failf(r, r->in.line, "[spsa] verify '%s' must be yes or no", value);
        return 1;
    }
    return failf(r, r->in.line,
                 "unknown key '%s' in [spsa] (known: name, iterations, batch, seed, threads, alpha, gamma, A, "
                 "verify, verify_elo0, verify_elo1, verify_pairs, param NAME)",
                 name);
}

static void defaults(SpsaConfig *c, const char *path)
{
    memset(c, 0, sizeof *c);
    snprintf(c->source, sizeof c->source, "%s", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    if (n == 0 || n >= sizeof c->name)
        n = 0;
    snprintf(c->name, sizeof c->name, "%.*s", (int)n, base);
    if (!c->name[0])
        snprintf(c->name, sizeof c->name, "spsa");
    c->iterations = 200;
    c->batch = 8;
    c->seed = 1;
    c->alpha = 0.602;
    c->gamma = 0.101;
    c->A_ratio = 0.1;
    c->verify = true;
    c->verify_elo0 = 0;
    c->verify_elo1 = 5;
    c->verify_pairs = 2000;
}

/* The tournament text of c: the [spsa] section blanked (its lines kept
 * empty, so that every other line keeps its number), the one [engine NAME]
 * header turned into [each], and the two players and the plan appended.
 * Fails (at a line) on a second engine, [each], [tournament] or [sprt]. */
static bool tournament_text(SpsaReader *r, const char *text, StrBuf *out, char *engine, size_t engine_n)
{
    int line = 1, engine_line = 0;
    bool in_spsa = false;
    for (const char *s = text; *s; line++) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *name;
        const long n = tv_ini_header(s, len, &name);
        if (n >= 0) {
            char sec[TV_INI_LINE_MAX + 2];
            snprintf(sec, sizeof sec, "%.*s", (int)n, name);
            in_spsa = !strcmp(sec, "spsa");
            if (in_spsa) {
                if (r->c->spsa_line)
                    return failf(r, line, "a second [spsa] section (the first is at line %d)", r->c->spsa_line);
                r->c->spsa_line = line;
            } else if (!strcmp(sec, "each") || !strcmp(sec, "tournament") || !strcmp(sec, "sprt")) {
                return failf(r, line,
                             "[%s] is not for an SPSA file: name, seed and threads go in [spsa], the one engine in "
                             "[engine NAME], the verification in [spsa] verify_elo0 and verify_elo1",
                             sec);
            } else if (!strncmp(sec, "engine", 6) && (sec[6] == ' ' || sec[6] == '\t')) {
                if (engine_line)
                    return failf(r, line,
                                 "a second [engine] section (the first is at line %d): SPSA tunes one base engine "
                                 "against itself",
                                 engine_line);
                engine_line = line;
                const char *a = sec + 7;
                while (*a == ' ' || *a == '\t')
                    a++;
                snprintf(engine, engine_n, "%s", a);
                size_t m = strlen(engine);
                while (m && (engine[m - 1] == ' ' || engine[m - 1] == '\t'))
                    engine[--m] = 0;
                /* room for the players' and the verification's names ("NAME-start": a section header of
                 * at most 45 characters) */
                if (m == 0 || m > 32)
                    return failf(r, line, "engine name '%s' must have 1 to 32 letters, digits or _ - . +", engine);
                strbuf_add(out, "[each]\n");
                s += len + (eol ? 1 : 0);
                continue;
            }
        }
        if (!in_spsa)
            strbuf_add_n(out, s, len);
        strbuf_add(out, "\n");
        s += len + (eol ? 1 : 0);
    }
    if (!r->c->spsa_line)
        return failf(r, 1, "no [spsa] section: an SPSA file needs [spsa] with at least one 'param NAME = START, "
                           "MIN, MAX, C_END, R_END' line");
    if (!engine_line)
        return failf(r, line > 1 ? line - 1 : 1,
                     "no [engine NAME] section: give the base engine (path = ENGINE.ini or command = PROGRAM) "
                     "and its limits");
    return true;
}

/* Each parameter as the player sees it (player_params): known to it, within
 * its range, and no two naming one setting; a program is asked only when
 * start_programs (it is started once).  Errors name the param line. */
static TvStatus check_params(const SpsaConfig *c, bool start_programs, SpsaReader *r)
{
    const TournamentEngine *te = &c->t.engines[SPSA_PLUS];
    const char *names[SPSA_MAX_PARAMS];
    PlayerParamInfo info[SPSA_MAX_PARAMS];
    for (int i = 0; i < c->nparams; i++)
        names[i] = c->params[i].name;
    TvStatus st = player_params(te, &c->t.rules, names, c->nparams, start_programs, info, r->err);
    if (st != TV_OK)
        return st;
    for (int i = 0; i < c->nparams && !r->failed; i++) {
        const SpsaParam *p = &c->params[i];
        if (!info[i].known)
            continue;
        if (!info[i].ok)
            failf(r, p->line, "param %s: %s", p->name, info[i].why);
        else if (p->lo < (double)info[i].lo || p->hi > (double)info[i].hi)
            failf(r, p->line,
                  "param %s: [MIN, MAX] = [%g, %g], but engine '%s' declares the range [%ld, %ld]: keep the "
                  "parameter within it",
                  p->name, p->lo, p->hi, c->engine, info[i].lo, info[i].hi);
        for (int j = 0; j < i && !r->failed; j++)
            if (info[i].index >= 0 && info[j].index == info[i].index)
                failf(r, p->line, "param %s is the same engine option as param %s (line %d): give it once", p->name,
                      c->params[j].name, c->params[j].line);
    }
    return r->failed ? TV_ERR_PARSE : TV_OK;
}

TvStatus spsa_read(const char *path, SpsaConfig *c, TvError *err)
{
    char *text;
    size_t len;
    memset(c, 0, sizeof *c);
    TvStatus st = tv_ini_load(path, "SPSA file", &text, &len, err);
    if (st != TV_OK)
        return st;
    return spsa_read_text(path, text, len, c, err);
}

TvStatus spsa_read_text(const char *path, char *text, size_t len, SpsaConfig *c, TvError *err)
{
    tv_error_clear(err);
    defaults(c, path);
    SpsaReader r = {.c = c, .err = err};
    tv_ini_lines_init(&r.in, text);
    char why[200];
    int bad = tv_ini_check_text(text, len, why, sizeof why);
    if (bad) {
        failf(&r, bad, "%s", why);
        free(text);
        return TV_ERR_PARSE;
    }
    StrBuf tb = {0};
    char engine[TV_INI_LINE_MAX + 2] = "";
    if (!tournament_text(&r, text, &tb, engine, sizeof engine)) {
        strbuf_free(&tb);
        free(text);
        return TV_ERR_PARSE;
    }
    int rc = ini_parse_stream(tv_ini_line_reader, &r.in, handler, &r);
    tv_ini_keys_free(&r.keys);
    if (!r.failed && rc > 0)
        failf(&r, rc, "malformed line (expected [section] or key = value)");
    if (!r.failed && c->nparams == 0)
        failf(&r, c->spsa_line, "[spsa] has no param line: add 'param NAME = START, MIN, MAX, C_END, R_END'");
    if (!r.failed && c->iterations * c->batch > 1000000)
        failf(&r, c->spsa_line, "[spsa] iterations x batch = %ld pairs: at most 1000000", c->iterations * c->batch);
    if (!r.failed && !(c->verify_elo0 < c->verify_elo1))
        failf(&r, c->spsa_line, "[spsa] needs verify_elo0 < verify_elo1 (got %g and %g)", c->verify_elo0,
              c->verify_elo1);
    if (r.failed) {
        strbuf_free(&tb);
        free(text);
        return TV_ERR_PARSE;
    }
    strbuf_addf(&tb, "[tournament]\nname = %s\npairs = %ld\nseed = %llu\nthreads = %ld\n[engine %s+]\n[engine %s-]\n",
               c->name, c->iterations * c->batch, (unsigned long long)c->seed, c->threads, engine, engine);
    size_t tlen = tb.len;
    char *ttext = strbuf_take(&tb);
    if (!ttext) {
        free(text);
        return tv_fail(err, TV_ERR_LIMIT, "%s: out of memory", path);
    }
    TvStatus st = tournament_read_text(path, ttext, tlen, &c->t, err);
    if (st != TV_OK) {
        free(text);
        return st;
    }
    free(c->t.text); /* the store keeps the SPSA file as written */
    c->t.text = text;
    if (c->t.sprt || c->t.openings.per_game) {
        spsa_free(c);
        return tv_fail(err, TV_ERR_PARSE,
                       "%s: [openings] per_game = yes is not for SPSA: a pair plays both colours of one opening",
                       path);
    }
    /* what the player says of each parameter (a program's only once it is started: spsa_check_params) */
    snprintf(c->engine, sizeof c->engine, "%s", engine);
    if (check_params(c, false, &r) != TV_OK) {
        spsa_free(c);
        return TV_ERR_PARSE;
    }
    return TV_OK;
}

TvStatus spsa_tournament_text(const SpsaConfig *c, const char *tail, char **out, TvError *err)
{
    *out = NULL;
    SpsaConfig *scratch = calloc(1, sizeof *scratch); /* the transform notes the [spsa] line in it */
    if (!scratch)
        return tv_fail(err, TV_ERR_LIMIT, "out of memory");
    snprintf(scratch->source, sizeof scratch->source, "%s", c->source);
    SpsaReader r = {.c = scratch, .err = err};
    StrBuf tb = {0};
    char engine[TV_INI_LINE_MAX + 2];
    bool ok = tournament_text(&r, c->t.text, &tb, engine, sizeof engine);
    free(scratch);
    if (!ok) {
        strbuf_free(&tb);
        return TV_ERR_PARSE;
    }
    strbuf_add(&tb, tail);
    *out = strbuf_take(&tb);
    return *out ? TV_OK : tv_fail(err, TV_ERR_LIMIT, "out of memory");
}

void spsa_free(SpsaConfig *c)
{
    tournament_free(&c->t);
}

TvStatus spsa_check_params(const SpsaConfig *c, TvError *err)
{
    SpsaReader r = {.c = (SpsaConfig *)c, .err = err};
    return check_params(c, true, &r);
}

/* ---- the schedule -------------------------------------------------------------- */

/* The pair the schedule is at in iteration k (1-based, as fishtest counts), and the number of pairs. */
static double pair_of(const SpsaConfig *c, long k) { return (double)k * (double)c->batch + 1; }
static double npairs(const SpsaConfig *c) { return (double)c->iterations * (double)c->batch; }

double spsa_c(const SpsaConfig *c, int p, long k)
{
    return c->params[p].c_end * pow(npairs(c) / pair_of(c, k), c->gamma);
}

double spsa_a(const SpsaConfig *c, int p, long k)
{
    const double A = c->A_ratio * npairs(c);
    const double ce = c->params[p].c_end;
    return c->params[p].r_end * ce * ce * pow((A + npairs(c)) / (A + pair_of(c, k)), c->alpha);
}

void spsa_delta(const SpsaConfig *c, long k, int8_t *delta)
{
    uint64_t state = tv_rng_mix(c->seed ^ 0x5350534144454c54ull) + (uint64_t)k * 0x2545F4914F6CDD1Dull;
    state = tv_rng_mix(state);
    for (int p = 0; p < c->nparams; p++)
        delta[p] = (tv_rng_next(&state) >> 63) ? 1 : -1;
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

double spsa_played(const SpsaConfig *c, int p, long k, double theta, int sign, int8_t delta)
{
    return clamp(theta + sign * spsa_c(c, p, k) * delta, c->params[p].lo, c->params[p].hi);
}

void spsa_step(const SpsaConfig *c, long k, const int8_t *delta, double score, double *theta)
{
    for (int p = 0; p < c->nparams; p++) {
        double step = spsa_a(c, p, k) / spsa_c(c, p, k) * score * delta[p];
        theta[p] = clamp(theta[p] + step, c->params[p].lo, c->params[p].hi);
    }
}

long spsa_round(double v) { return lround(v); }

TvStatus spsa_apply(const SpsaConfig *c, Tournament *t, int which, const double *values, TvError *err)
{
    for (int p = 0; p < c->nparams; p++) {
        TvStatus st = player_set_param(&t->engines[which], c->params[p].name, spsa_round(values[p]), err);
        if (st != TV_OK)
            return st;
    }
    return TV_OK;
}
