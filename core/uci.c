/* uci.c: the codec of the engine protocol's lines (uci.h, docs/protocol.md). */
#include "uci.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "record.h"
#include "search.h"
#include "tfen.h"

static bool is_blank(char c) { return c == ' ' || c == '\t'; }
static bool is_end(char c) { return c == '\0' || c == '\n' || c == '\r'; }

/* Copies the next word of *s into w (at most n - 1 bytes; longer words are
 * cut) and advances *s past it and the blanks after it.  False at the end. */
static bool next_word(const char **s, char *w, size_t n)
{
    const char *p = *s;
    while (is_blank(*p))
        p++;
    if (is_end(*p)) {
        *s = p;
        return false;
    }
    size_t k = 0;
    while (!is_end(*p) && !is_blank(*p)) {
        if (k + 1 < n)
            w[k++] = *p;
        p++;
    }
    w[k] = '\0';
    while (is_blank(*p))
        p++;
    *s = p;
    return true;
}

const char *uci_verb(const char *line, char *verb, size_t n)
{
    const char *s = line;
    if (!next_word(&s, verb, n))
        verb[0] = '\0';
    return is_end(*s) ? "" : s;
}

/* A whole number in [lo, hi]. */
static bool parse_num(const char *w, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    if (!*w || *w == '+')
        return false;
    long long v = strtoll(w, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* ---- go ---------------------------------------------------------------------- */

void uci_go_init(UciGo *go)
{
    go->wtime_ms = go->btime_ms = go->winc_ms = go->binc_ms = -1;
    go->movestogo = go->movetime_ms = go->depth = go->mate = -1;
    go->nodes = -1;
    go->infinite = false;
    go->ignored[0] = '\0';
}

/* Appends word w to go->ignored ("..." once it is full). */
static void go_ignore(UciGo *go, const char *w)
{
    const size_t n = sizeof go->ignored, used = strlen(go->ignored);
    if (used >= 3 && !strcmp(go->ignored + used - 3, "..."))
        return;
    if (used + 1 + strlen(w) + 4 < n)
        snprintf(go->ignored + used, n - used, "%s%s", used ? " " : "", w);
    else
        snprintf(go->ignored + used, n - used, "%s...", used ? " " : "");
}

/* Every word of go in UCI: the words that end a `searchmoves` list. */
static const char *const GO_WORDS[] = {"wtime", "btime",    "winc",        "binc", "movestogo", "movetime", "depth",
                                       "nodes", "infinite", "searchmoves", "mate", "ponder",    NULL};

static bool is_go_word(const char *w)
{
    for (int i = 0; GO_WORDS[i]; i++)
        if (!strcmp(w, GO_WORDS[i]))
            return true;
    return false;
}

TvStatus uci_go_parse(const char *args, UciGo *go, TvError *err)
{
    uci_go_init(go);
    char w[64], v[64];
    const char *s = args;
    while (next_word(&s, w, sizeof w)) {
        if (!strcmp(w, "infinite")) {
            go->infinite = true;
            continue;
        }
        if (!strcmp(w, "searchmoves")) {
            /* skipped with what belongs to it: the moves up to the next word of go */
            go_ignore(go, w);
            for (const char *q = s; next_word(&q, v, sizeof v) && !is_go_word(v); s = q)
                go_ignore(go, v);
            continue;
        }
        int *field = !strcmp(w, "wtime")       ? &go->wtime_ms
                     : !strcmp(w, "btime")     ? &go->btime_ms
                     : !strcmp(w, "winc")      ? &go->winc_ms
                     : !strcmp(w, "binc")      ? &go->binc_ms
                     : !strcmp(w, "movestogo") ? &go->movestogo
                     : !strcmp(w, "movetime")  ? &go->movetime_ms
                     : !strcmp(w, "depth")     ? &go->depth
                     : !strcmp(w, "mate")      ? &go->mate
                                               : NULL;
        const bool nodes = !strcmp(w, "nodes");
        if (!field && !nodes) { /* ponder, or a word UCI does not have */
            go_ignore(go, w);
            continue;
        }
        long long x;
        /* a clock may run below zero on the harness's side: a negative time is read as 0 */
        const bool clock = field == &go->wtime_ms || field == &go->btime_ms;
        if (!next_word(&s, v, sizeof v) || !parse_num(v, clock ? INT_MIN : 0, nodes ? INT64_MAX : INT_MAX, &x))
            return tv_fail(err, TV_ERR_PARSE, "go: '%s' needs a whole number from 0 to %s", w,
                           nodes ? "9223372036854775807" : "2147483647");
        if (nodes)
            go->nodes = x;
        else
            *field = (int)(x < 0 ? 0 : x);
    }
    return TV_OK;
}

void uci_go_format(const UciGo *go, StrBuf *b)
{
    strbuf_add(b, "go");
    const struct {
        const char *name;
        int v;
    } f[] = {{"wtime", go->wtime_ms},         {"btime", go->btime_ms}, {"winc", go->winc_ms},
             {"binc", go->binc_ms},           {"movestogo", go->movestogo}, {"movetime", go->movetime_ms},
             {"depth", go->depth},            {"mate", go->mate}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v >= 0)
            strbuf_addf(b, " %s %d", f[i].name, f[i].v);
    if (go->nodes >= 0)
        strbuf_addf(b, " nodes %lld", (long long)go->nodes);
    if (go->infinite)
        strbuf_add(b, " infinite");
}

/* ---- position ---------------------------------------------------------------- */

void uci_position_format(const char *start_tfen, const char *const *moves, int n, StrBuf *b)
{
    if (!start_tfen || !strcmp(start_tfen, "startpos"))
        strbuf_add(b, "position startpos");
    else
        strbuf_addf(b, "position tfen %s", start_tfen);
    if (n > 0) {
        strbuf_add(b, " moves");
        for (int i = 0; i < n; i++)
            strbuf_addf(b, " %s", moves[i]);
    }
}

int uci_position_plies(const char *args)
{
    int n = 0;
    for (const char *s = args; *s;) {
        while (is_blank(*s))
            s++;
        if (is_end(*s))
            break;
        n++;
        while (!is_end(*s) && !is_blank(*s))
            s++;
    }
    return n;
}

/* uci_position_parse into *pos, which may be left half-way on an error. */
static TvStatus position_parse(const char *args, const Options *o, Position *pos, uint64_t *hist, int maxhist,
                               int *nhist, TvError *err);

TvStatus uci_position_parse(const char *args, const Options *o, Position *pos, uint64_t *hist, int maxhist,
                            int *nhist, TvError *err)
{
    Position p;
    TvStatus st = position_parse(args, o, &p, hist, maxhist, nhist, err);
    if (st == TV_OK)
        *pos = p;
    else if (nhist)
        *nhist = 0;
    return st;
}

static TvStatus position_parse(const char *args, const Options *o, Position *pos, uint64_t *hist, int maxhist,
                               int *nhist, TvError *err)
{
    if (nhist)
        *nhist = 0;
    char w[256];
    const char *s = args;
    if (!next_word(&s, w, sizeof w))
        return tv_fail(err, TV_ERR_PARSE, "position: expected 'startpos' or 'tfen TFEN'");
    TvError e;
    if (!strcmp(w, "startpos")) {
        tfen_read_arg("startpos", pos, &e);
    } else if (!strcmp(w, "tfen")) {
        /* the TFEN runs up to the word "moves" or the end of the line */
        const char *q = s, *end = NULL;
        for (;;) {
            while (is_blank(*q))
                q++;
            if (is_end(*q))
                break;
            const char *ws = q;
            while (!is_end(*q) && !is_blank(*q))
                q++;
            if (q - ws == 5 && !strncmp(ws, "moves", 5)) {
                end = ws;
                break;
            }
        }
        size_t len = (size_t)((end ? end : q) - s);
        while (len > 0 && is_blank(s[len - 1]))
            len--;
        char tfen[TV_TFEN_MAX + 64];
        if (len == 0 || len >= sizeof tfen)
            return tv_fail(err, TV_ERR_PARSE, "position: %s TFEN after 'tfen'", len ? "an overlong" : "no");
        memcpy(tfen, s, len);
        tfen[len] = '\0';
        if (tfen_read(tfen, pos, &e) != TV_OK)
            return tv_fail(err, TV_ERR_PARSE, "position: %s", e.msg);
        s = end ? end : q;
    } else {
        return tv_fail(err, TV_ERR_PARSE, "position: expected 'startpos' or 'tfen TFEN', not '%s'", w);
    }
    if (!next_word(&s, w, sizeof w))
        return TV_OK;
    if (strcmp(w, "moves"))
        return tv_fail(err, TV_ERR_PARSE, "position: expected 'moves' after the position, not '%s'", w);
    for (int k = 1; next_word(&s, w, sizeof w); k++) {
        Move m;
        TvStatus st = move_parse(pos, o, w, TV_PARSE_STRICT, &m, NULL, &e);
        if (st != TV_OK)
            return tv_fail(err, st, "position: move %d: %s", k, e.msg);
        if (hist && nhist && *nhist < maxhist)
            hist[(*nhist)++] = pos->hash;
        Undo u;
        pos_make_move(pos, m, &u);
    }
    return TV_OK;
}

/* ---- info and bestmove ------------------------------------------------------- */

void uci_info_init(UciInfo *info)
{
    memset(info, 0, sizeof *info);
    info->depth = info->seldepth = info->time_ms = -1;
    info->nodes = info->nps = -1;
}

void uci_score_to_uci(int score, bool *mate, int *value)
{
    if (score > SCORE_MATE_BOUND) {
        *mate = true;
        *value = (SCORE_MATE - score + 1) / 2;
    } else if (score < -SCORE_MATE_BOUND) {
        *mate = true;
        *value = -((SCORE_MATE + score) / 2);
    } else {
        *mate = false;
        *value = score;
    }
}

int uci_score_from_uci(bool mate, int value)
{
    if (!mate)
        return value < -SCORE_MATE_BOUND ? -SCORE_MATE_BOUND : value > SCORE_MATE_BOUND ? SCORE_MATE_BOUND : value;
    if (value > 0)
        return SCORE_MATE - (value > 500 ? 999 : 2 * value - 1);
    if (value < 0)
        return -SCORE_MATE + (-value > 500 ? 1000 : -2 * value);
    return -SCORE_MATE; /* "mate 0": the side to move is mated */
}

void uci_info_parse(const char *args, UciInfo *info)
{
    uci_info_init(info);
    char w[64], v[64];
    const char *s = args;
    while (next_word(&s, w, sizeof w)) {
        long long x;
        if (!strcmp(w, "string"))
            return;
        if (!strcmp(w, "pv")) {
            while (next_word(&s, v, sizeof v))
                info->pv_words++;
            return;
        }
        if (!strcmp(w, "score")) {
            /* score cp X | mate N, optionally lowerbound / upperbound */
            const char *save = s;
            if (!next_word(&s, w, sizeof w))
                return;
            const bool mate = !strcmp(w, "mate");
            if ((mate || !strcmp(w, "cp")) && next_word(&s, v, sizeof v) && parse_num(v, -1000000, 1000000, &x)) {
                info->has_score = true;
                info->score = uci_score_from_uci(mate, (int)x);
                info->lowerbound = info->upperbound = false;
                const char *q = s;
                if (next_word(&q, w, sizeof w) && (!strcmp(w, "lowerbound") || !strcmp(w, "upperbound"))) {
                    info->lowerbound = !strcmp(w, "lowerbound");
                    info->upperbound = !info->lowerbound;
                    s = q;
                }
            } else {
                s = save;
            }
            continue;
        }
        const char *save = s;
        if (!next_word(&s, v, sizeof v))
            return;
        if (!strcmp(w, "depth") && parse_num(v, 0, 10000, &x))
            info->depth = (int)x;
        else if (!strcmp(w, "seldepth") && parse_num(v, 0, 10000, &x))
            info->seldepth = (int)x;
        else if (!strcmp(w, "nodes") && parse_num(v, 0, INT64_MAX, &x))
            info->nodes = x;
        else if (!strcmp(w, "nps") && parse_num(v, 0, INT64_MAX, &x))
            info->nps = x;
        else if (!strcmp(w, "time") && parse_num(v, 0, INT_MAX, &x))
            info->time_ms = (int)x;
        else if (strcmp(w, "currmove") && strcmp(w, "currmovenumber") && strcmp(w, "hashfull") &&
                 strcmp(w, "multipv") && strcmp(w, "tbhits") && strcmp(w, "cpuload") && strcmp(w, "refutation") &&
                 strcmp(w, "currline") && strcmp(w, "sbhits"))
            s = save; /* an unknown word stands alone */
    }
}

void uci_info_format(int depth, int score, uint64_t nodes, int time_ms, const char *const *pv, int npv, StrBuf *b)
{
    bool mate;
    int v;
    uci_score_to_uci(score, &mate, &v);
    const long long nps = time_ms > 0 ? (long long)(nodes * 1000.0 / time_ms) : (long long)nodes * 1000;
    strbuf_addf(b, "info depth %d score %s %d nodes %llu nps %lld time %d", depth, mate ? "mate" : "cp", v,
                (unsigned long long)nodes, nps, time_ms);
    if (npv > 0) {
        strbuf_add(b, " pv");
        for (int i = 0; i < npv; i++)
            strbuf_addf(b, " %s", pv[i]);
    }
}

bool uci_bestmove_parse(const char *args, char *move, size_t n)
{
    const char *s = args;
    return next_word(&s, move, n);
}

/* ---- options ----------------------------------------------------------------- */

static const char *const OPTION_TYPES[] = {"spin", "check", "combo", "string", "button"};

const char *uci_option_type_name(UciOptionType t)
{
    return (unsigned)t < sizeof OPTION_TYPES / sizeof OPTION_TYPES[0] ? OPTION_TYPES[t] : "?";
}

int uci_option_type_find(const char *name)
{
    for (size_t i = 0; i < sizeof OPTION_TYPES / sizeof OPTION_TYPES[0]; i++)
        if (!strcmp(name, OPTION_TYPES[i]))
            return (int)i;
    return -1;
}

/* Copies the words from *s up to (not including) the word `stop` (or any of
 * the words of stops[], NULL-terminated) into buf, joined by single
 * blanks; advances *s to that word.  False when the text is longer than n. */
static bool words_until(const char **s, const char *const *stops, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    char w[UCI_OPTION_VALUE_MAX + 1];
    for (;;) {
        const char *save = *s;
        if (!next_word(s, w, sizeof w))
            return true;
        for (int i = 0; stops[i]; i++)
            if (!strcmp(w, stops[i])) {
                *s = save;
                return true;
            }
        size_t len = strlen(w);
        if (k + (k ? 1 : 0) + len + 1 > n || len >= UCI_OPTION_VALUE_MAX)
            return false;
        if (k)
            buf[k++] = ' ';
        memcpy(buf + k, w, len + 1);
        k += len;
    }
}

TvStatus uci_option_parse(const char *args, UciOption *opt, TvError *err)
{
    memset(opt, 0, sizeof *opt);
    opt->min = LONG_MIN;
    opt->max = LONG_MAX;
    const char *s = args;
    char w[64];
    static const char *const after_name[] = {"type", NULL};
    static const char *const keywords[] = {"default", "min", "max", "var", NULL};
    if (!next_word(&s, w, sizeof w) || strcmp(w, "name"))
        return tv_fail(err, TV_ERR_PARSE, "option: expected 'name' first");
    if (!words_until(&s, after_name, opt->name, sizeof opt->name))
        return tv_fail(err, TV_ERR_PARSE, "option: a name longer than %d bytes", UCI_OPTION_NAME_MAX - 1);
    if (!opt->name[0])
        return tv_fail(err, TV_ERR_PARSE, "option: no name");
    char type[32];
    if (!next_word(&s, w, sizeof w) || !next_word(&s, type, sizeof type))
        return tv_fail(err, TV_ERR_PARSE, "option %s: no type", opt->name);
    int t = uci_option_type_find(type);
    if (t < 0)
        return tv_fail(err, TV_ERR_PARSE, "option %s: unknown type '%s' (spin, check, combo, string, button)",
                       opt->name, type);
    opt->type = (UciOptionType)t;
    bool have_min = false, have_max = false;
    while (next_word(&s, w, sizeof w)) {
        char val[UCI_OPTION_VALUE_MAX];
        if (!words_until(&s, keywords, val, sizeof val))
            return tv_fail(err, TV_ERR_PARSE, "option %s: a value longer than %d bytes", opt->name,
                           UCI_OPTION_VALUE_MAX - 1);
        long long x;
        if (!strcmp(w, "default")) {
            snprintf(opt->def, sizeof opt->def, "%s", strcmp(val, "<empty>") ? val : "");
        } else if (!strcmp(w, "min") || !strcmp(w, "max")) {
            if (!parse_num(val, LONG_MIN, LONG_MAX, &x))
                return tv_fail(err, TV_ERR_PARSE, "option %s: %s '%s' is not a whole number", opt->name, w, val);
            if (!strcmp(w, "min")) {
                opt->min = (long)x;
                have_min = true;
            } else {
                opt->max = (long)x;
                have_max = true;
            }
        } else if (!strcmp(w, "var")) {
            if (opt->nvars >= UCI_OPTION_VARS_MAX || strlen(val) >= UCI_OPTION_NAME_MAX)
                return tv_fail(err, TV_ERR_PARSE, "option %s: more than %d vars or a var longer than %d bytes",
                               opt->name, UCI_OPTION_VARS_MAX, UCI_OPTION_NAME_MAX - 1);
            snprintf(opt->vars[opt->nvars++], UCI_OPTION_NAME_MAX, "%s", val);
        } else {
            return tv_fail(err, TV_ERR_PARSE, "option %s: unknown word '%s'", opt->name, w);
        }
    }
    if (opt->type == UCI_OPT_SPIN && (!have_min || !have_max || opt->min > opt->max))
        return tv_fail(err, TV_ERR_PARSE, "option %s: a spin needs min and max (min <= max)", opt->name);
    return TV_OK;
}

void uci_option_format(const UciOption *opt, StrBuf *b)
{
    strbuf_addf(b, "option name %s type %s", opt->name, uci_option_type_name(opt->type));
    if (opt->type != UCI_OPT_BUTTON)
        strbuf_addf(b, " default %s", opt->def[0] ? opt->def : (opt->type == UCI_OPT_STRING ? "<empty>" : ""));
    if (opt->type == UCI_OPT_SPIN)
        strbuf_addf(b, " min %ld max %ld", opt->min, opt->max);
    for (int i = 0; i < opt->nvars; i++)
        strbuf_addf(b, " var %s", opt->vars[i]);
}

TvStatus uci_setoption_parse(const char *args, char *name, size_t name_n, char *value, size_t value_n,
                             TvError *err)
{
    static const char *const after_name[] = {"value", NULL};
    static const char *const none[] = {NULL};
    const char *s = args;
    char w[64];
    name[0] = value[0] = '\0';
    if (!next_word(&s, w, sizeof w) || strcmp(w, "name"))
        return tv_fail(err, TV_ERR_PARSE, "setoption: expected 'name' first");
    if (!words_until(&s, after_name, name, name_n))
        return tv_fail(err, TV_ERR_PARSE, "setoption: a name longer than %zu bytes", name_n - 1);
    if (!name[0])
        return tv_fail(err, TV_ERR_PARSE, "setoption: no name");
    if (next_word(&s, w, sizeof w) && !words_until(&s, none, value, value_n))
        return tv_fail(err, TV_ERR_PARSE, "setoption %s: a value longer than %zu bytes", name, value_n - 1);
    return TV_OK;
}

void uci_setoption_format(const char *name, const char *value, StrBuf *b)
{
    strbuf_addf(b, "setoption name %s", name);
    if (value)
        strbuf_addf(b, " value %s", value);
}

TvStatus uci_option_check_value(const UciOption *opt, const char *value, TvError *err)
{
    long long x;
    switch (opt->type) {
    case UCI_OPT_SPIN:
        if (!parse_num(value, opt->min, opt->max, &x))
            return tv_fail(err, TV_ERR_ARG, "option %s takes a whole number from %ld to %ld, not '%s'", opt->name,
                           opt->min, opt->max, value);
        return TV_OK;
    case UCI_OPT_CHECK:
        if (strcmp(value, "true") && strcmp(value, "false"))
            return tv_fail(err, TV_ERR_ARG, "option %s takes true or false, not '%s'", opt->name, value);
        return TV_OK;
    case UCI_OPT_COMBO:
        for (int i = 0; i < opt->nvars; i++)
            if (!strcmp(value, opt->vars[i]))
                return TV_OK;
        {
            StrBuf b = {0};
            for (int i = 0; i < opt->nvars; i++)
                strbuf_addf(&b, "%s%s", i ? ", " : "", opt->vars[i]);
            TvStatus st = tv_fail(err, TV_ERR_ARG, "option %s takes one of %s, not '%s'", opt->name,
                                  strbuf_str(&b), value);
            strbuf_free(&b);
            return st;
        }
    default:
        return TV_OK;
    }
}

void uci_rule_option_decl(int i, UciOption *opt)
{
    const RuleOptionInfo *r = rule_option_info(i);
    memset(opt, 0, sizeof *opt);
    snprintf(opt->name, sizeof opt->name, "%s", r->name);
    if (r->boolean) {
        opt->type = UCI_OPT_CHECK;
        snprintf(opt->def, sizeof opt->def, "false");
    } else {
        opt->type = UCI_OPT_COMBO;
        snprintf(opt->def, sizeof opt->def, "%s", r->values[0]);
        for (int v = 0; v < r->nvalues && v < UCI_OPTION_VARS_MAX; v++)
            snprintf(opt->vars[opt->nvars++], UCI_OPTION_NAME_MAX, "%s", r->values[v]);
    }
}

const char *uci_rule_option_value(const Options *o, int i)
{
    const RuleOptionInfo *r = rule_option_info(i);
    int v = rule_option_get(o, i);
    if (r->boolean)
        return v ? "true" : "false";
    return r->values[v];
}

TvStatus uci_rule_option_set(Options *o, const char *name, const char *value, bool *is_rule, TvError *err)
{
    int i = rule_option_find(name);
    *is_rule = i >= 0;
    if (i < 0)
        return TV_OK;
    const int v = rule_option_value_find(i, value);
    if (v < 0) {
        UciOption decl;
        uci_rule_option_decl(i, &decl);
        return uci_option_check_value(&decl, value, err); /* fails, saying what it takes */
    }
    rule_option_set(o, i, v);
    return TV_OK;
}
