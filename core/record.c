/* record.c: game records (docs/rules.md sections 11 and 13): reading the
 * published one-game-a-line list and TGN, replaying a
 * movetext with every check (including threefold repetition), and writing
 * TGN. */
#include "record.h"
#include "strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------ */

static char *record_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static bool record_is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

/* ---- record lists --------------------------------------------------------- */

static void record_game_free(GameRecord *g)
{
    for (int i = 0; i < g->ntags; i++)
        free(g->tags[i].value);
    free(g->tags);
    free(g->movetext);
    memset(g, 0, sizeof *g);
}

void records_free(RecordList *list)
{
    if (!list)
        return;
    for (int i = 0; i < list->count; i++)
        record_game_free(&list->games[i]);
    free(list->games);
    list->games = NULL;
    list->count = 0;
}

static bool record_add_tag(GameRecord *g, const char *key, const char *value, size_t vlen)
{
    RecordTag *t = realloc(g->tags, (size_t)(g->ntags + 1) * sizeof *t);
    if (!t)
        return false;
    g->tags = t;
    char *v = record_strndup(value, vlen);
    if (!v)
        return false;
    snprintf(t[g->ntags].key, sizeof t[g->ntags].key, "%s", key);
    t[g->ntags].value = v;
    g->ntags++;
    return true;
}

static const char *record_tag(const GameRecord *g, const char *key)
{
    for (int i = g->ntags - 1; i >= 0; i--)
        if (strcmp(g->tags[i].key, key) == 0)
            return g->tags[i].value;
    return NULL;
}

/* Moves g (a finished game) to the end of the list. */
static bool record_list_push(RecordList *list, GameRecord *g)
{
    GameRecord *games = realloc(list->games, (size_t)(list->count + 1) * sizeof *games);
    if (!games)
        return false;
    list->games = games;
    games[list->count++] = *g;
    memset(g, 0, sizeof *g);
    return true;
}

static void record_init_game(GameRecord *g, int line)
{
    memset(g, 0, sizeof *g);
    g->source_line = line;
    snprintf(g->start_tfen, sizeof g->start_tfen, "%s", TV_START_TFEN);
}

/* ---- the published format ------------------------------------------------- */

static void record_trim(const char **s, size_t *n)
{
    while (*n && record_is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && record_is_space((*s)[*n - 1]))
        (*n)--;
}

static TvStatus records_read_published(const char *text, const char *name, RecordList *out, TvError *err)
{
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        const char *s = p;
        size_t len = n;
        p = eol ? eol + 1 : p + n;
        record_trim(&s, &len);
        if (len == 0 || s[0] == '#')
            continue;
        const char *bar1 = memchr(s, '|', len);
        const char *bar2 = NULL;
        for (size_t i = len; i > 0; i--)
            if (s[i - 1] == '|') {
                bar2 = s + i - 1;
                break;
            }
        if (!bar1 || bar1 == bar2)
            return tv_fail_at(err, TV_ERR_PARSE, name, line, "expected 'id | description | movetext'");
        const char *id = s;
        size_t idlen = (size_t)(bar1 - s);
        record_trim(&id, &idlen);
        if (idlen == 0)
            return tv_fail_at(err, TV_ERR_PARSE, name, line, "a game without an id");
        const char *desc = bar1 + 1;
        size_t desclen = (size_t)(bar2 - desc);
        record_trim(&desc, &desclen);
        const char *moves = bar2 + 1;
        size_t moveslen = (size_t)(s + len - moves);
        record_trim(&moves, &moveslen);

        GameRecord g;
        record_init_game(&g, line);
        snprintf(g.id, sizeof g.id, "%.*s", (int)idlen, id);
        g.movetext = record_strndup(moves, moveslen);
        if (!g.movetext || !record_add_tag(&g, "Description", desc, desclen) || !record_list_push(out, &g)) {
            record_game_free(&g);
            return tv_fail_at(err, TV_ERR_LIMIT, name, line, "out of memory");
        }
    }
    return TV_OK;
}

/* ---- TGN ---------------------------------------------------------------------- */

static bool record_is_result(const char *tok, size_t n)
{
    return (n == 3 && (memcmp(tok, "1-0", 3) == 0 || memcmp(tok, "0-1", 3) == 0)) ||
           (n == 7 && memcmp(tok, "1/2-1/2", 7) == 0) || (n == 1 && tok[0] == '*');
}

typedef struct {
    const char *name;
    RecordList *out;
    GameRecord game;
    StrBuf moves;
    bool in_game;
    int games_seen;
} TgnReader;

static void tgn_start(TgnReader *r, int line)
{
    if (r->in_game)
        return;
    record_init_game(&r->game, line);
    memset(&r->moves, 0, sizeof r->moves);
    r->in_game = true;
}

static TvStatus tgn_finish(TgnReader *r, int line, TvError *err)
{
    if (!r->in_game)
        return TV_OK;
    r->in_game = false;
    r->games_seen++;
    GameRecord *g = &r->game;
    const char *round = record_tag(g, "Round");
    const char *event = record_tag(g, "Event");
    if (round && *round && strcmp(round, "?") != 0 && strcmp(round, "-") != 0)
        snprintf(g->id, sizeof g->id, "%s", round);
    else if (event && *event && strcmp(event, "?") != 0)
        snprintf(g->id, sizeof g->id, "%s", event);
    else
        snprintf(g->id, sizeof g->id, "game %d", r->games_seen);
    g->movetext = strbuf_take(&r->moves);
    memset(&r->moves, 0, sizeof r->moves);
    if (!g->movetext || !record_list_push(r->out, g)) {
        record_game_free(g);
        return tv_fail_at(err, TV_ERR_LIMIT, r->name, line, "out of memory");
    }
    return TV_OK;
}

/* Reads `[Key "value"]` at text[*i]; *line is advanced over newlines. */
static TvStatus tgn_read_tag(TgnReader *r, const char *text, size_t *i, int *line, TvError *err)
{
    int at = *line;
    size_t j = *i + 1;
    while (text[j] == ' ' || text[j] == '\t')
        j++;
    size_t kstart = j;
    while ((text[j] >= 'A' && text[j] <= 'Z') || (text[j] >= 'a' && text[j] <= 'z') ||
           (text[j] >= '0' && text[j] <= '9') || text[j] == '_')
        j++;
    size_t klen = j - kstart;
    if (klen == 0)
        return tv_fail_at(err, TV_ERR_PARSE, r->name, at, "a tag must start with a name: [Name \"value\"]");
    if (klen >= sizeof r->game.tags[0].key)
        return tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag name too long");
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)klen, text + kstart);
    while (text[j] == ' ' || text[j] == '\t')
        j++;
    if (text[j] != '"')
        return tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag %s: the value must be in double quotes", key);
    j++;
    StrBuf value = {0};
    for (;;) {
        char c = text[j];
        if (c == '\0' || c == '\n') {
            strbuf_free(&value);
            return tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag %s: unclosed value", key);
        }
        if (c == '"')
            break;
        if (c == '\\' && (text[j + 1] == '"' || text[j + 1] == '\\')) {
            j++;
            c = text[j];
        }
        strbuf_add_n(&value, &c, 1);
        j++;
    }
    j++;
    while (text[j] == ' ' || text[j] == '\t')
        j++;
    if (text[j] != ']') {
        strbuf_free(&value);
        return tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag %s: expected ']' after the value", key);
    }
    *i = j + 1;
    char *v = strbuf_take(&value);
    if (!v)
        return tv_fail_at(err, TV_ERR_LIMIT, r->name, at, "out of memory");

    tgn_start(r, at);
    GameRecord *g = &r->game;
    TvStatus st = TV_OK;
    TvError sub;
    tv_error_clear(&sub);
    if (strcmp(key, "TFEN") == 0 || strcmp(key, "FEN") == 0) {
        Position pos;
        if (strlen(v) >= sizeof g->start_tfen)
            st = tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag %s: too long for a TFEN", key);
        else if (tfen_read(v, &pos, &sub) != TV_OK)
            st = tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag %s: %s", key, sub.msg);
        else
            snprintf(g->start_tfen, sizeof g->start_tfen, "%s", v);
    } else if (strcmp(key, "Options") == 0) {
        if (rule_options_parse(v, &g->options, &sub) != TV_OK)
            st = tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag Options: %s", sub.msg);
    } else if (strcmp(key, "Variant") == 0) {
        if (strcmp(v, "tavreli") != 0 && strcmp(v, "Tavreli") != 0)
            st = tv_fail_at(err, TV_ERR_PARSE, r->name, at, "tag Variant: '%s' is not tavreli", v);
    }
    if (st == TV_OK && !record_add_tag(g, key, v, strlen(v)))
        st = tv_fail_at(err, TV_ERR_LIMIT, r->name, at, "out of memory");
    free(v);
    return st;
}

static TvStatus records_read_tgn(const char *text, const char *name, RecordList *out, TvError *err)
{
    TgnReader r;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.out = out;
    int line = 1;
    bool line_start = true;
    bool has_moves = false;
    size_t i = 0;
    TvStatus st = TV_OK;
    while (st == TV_OK && text[i] != '\0') {
        char c = text[i];
        if (c == '\n') {
            line++;
            line_start = true;
            i++;
            continue;
        }
        if (record_is_space(c)) {
            i++;
            continue;
        }
        bool at_line_start = line_start;
        line_start = false;
        if (c == '%' && at_line_start) { /* PGN escape line */
            while (text[i] != '\0' && text[i] != '\n')
                i++;
        } else if (c == ';') {
            while (text[i] != '\0' && text[i] != '\n')
                i++;
        } else if (c == '{') {
            int open = line;
            while (text[i] != '\0' && text[i] != '}') {
                if (text[i] == '\n')
                    line++;
                i++;
            }
            if (text[i] == '\0')
                st = tv_fail_at(err, TV_ERR_PARSE, name, open, "unclosed comment '{'");
            else
                i++;
        } else if (c == '[') {
            if (r.in_game && has_moves) {
                st = tgn_finish(&r, line, err);
                has_moves = false;
            }
            if (st == TV_OK)
                st = tgn_read_tag(&r, text, &i, &line, err);
        } else {
            size_t start = i;
            while (text[i] != '\0' && !record_is_space(text[i]) && text[i] != '{' && text[i] != ';')
                i++;
            tgn_start(&r, line);
            if (r.moves.len)
                strbuf_add(&r.moves, " ");
            strbuf_add_n(&r.moves, text + start, i - start);
            has_moves = true;
            if (record_is_result(text + start, i - start)) {
                st = tgn_finish(&r, line, err);
                has_moves = false;
            }
        }
    }
    if (st == TV_OK)
        st = tgn_finish(&r, line, err);
    if (st != TV_OK && r.in_game) {
        strbuf_free(&r.moves);
        record_game_free(&r.game);
    }
    return st;
}

/* ---- reading files ---------------------------------------------------------- */

static bool records_look_tgn(const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '[')
            return true;
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    return false;
}

TvStatus records_read_string(const char *text, const char *name, RecordList *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    if (!name)
        name = "(text)";
    TvStatus st = records_look_tgn(text) ? records_read_tgn(text, name, out, err)
                                         : records_read_published(text, name, out, err);
    if (st != TV_OK)
        records_free(out);
    return st;
}

TvStatus records_read_file(const char *path, RecordList *out, TvError *err)
{
    memset(out, 0, sizeof *out);
    TvStatus reg = tv_check_regular_file(path, "record file", err); /* a FIFO would never end */
    if (reg != TV_OK) {
        if (err)
            snprintf(err->file, sizeof err->file, "%s", path);
        return reg;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        TvStatus st = tv_fail(err, TV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
        if (err)
            snprintf(err->file, sizeof err->file, "%s", path);
        return st;
    }
    StrBuf buf = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        strbuf_add_n(&buf, chunk, n);
    bool bad = ferror(f) != 0;
    fclose(f);
    size_t len = buf.len;
    char *text = strbuf_take(&buf);
    if (bad || !text) {
        free(text);
        return tv_fail_at(err, bad ? TV_ERR_IO : TV_ERR_LIMIT, path, 0, bad ? "read error" : "out of memory");
    }
    if (strlen(text) != len) {
        free(text);
        return tv_fail_at(err, TV_ERR_PARSE, path, 0, "the file contains a NUL byte");
    }
    TvStatus st = records_read_string(text, path, out, err);
    free(text);
    return st;
}

/* ---- replay --------------------------------------------------------------------- */

void replay_result_free(ReplayResult *res)
{
    if (!res)
        return;
    free(res->moves);
    for (int i = 0; i < res->nwarnings; i++)
        free(res->warnings[i]);
    free(res->warnings);
    res->moves = NULL;
    res->warnings = NULL;
    res->plies = 0;
    res->nwarnings = 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool replay_warn(ReplayResult *res, const char *fmt, ...)
{
    char raw[TV_ERROR_MSG_LEN], text[TV_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    tv_escape(raw, text, sizeof text); /* the warning echoes the record */
    char **w = realloc(res->warnings, (size_t)(res->nwarnings + 1) * sizeof *w);
    if (!w)
        return false;
    res->warnings = w;
    w[res->nwarnings] = record_strndup(text, strlen(text));
    if (!w[res->nwarnings])
        return false;
    res->nwarnings++;
    return true;
}

/* The next movetext token at text[*i]: skips whitespace, {comments} and
 * ;comments.  Returns false at the end; sets *bad when a comment is not
 * closed. */
static bool replay_next_token(const char *text, size_t *i, const char **tok, size_t *len, bool *bad)
{
    size_t j = *i;
    *bad = false;
    for (;;) {
        while (record_is_space(text[j]))
            j++;
        if (text[j] == '{') {
            while (text[j] != '\0' && text[j] != '}')
                j++;
            if (text[j] == '\0') {
                *bad = true;
                *i = j;
                return false;
            }
            j++;
            continue;
        }
        if (text[j] == ';') {
            while (text[j] != '\0' && text[j] != '\n')
                j++;
            continue;
        }
        break;
    }
    if (text[j] == '\0') {
        *i = j;
        return false;
    }
    size_t start = j;
    while (text[j] != '\0' && !record_is_space(text[j]) && text[j] != '{' && text[j] != ';')
        j++;
    *tok = text + start;
    *len = j - start;
    *i = j;
    return true;
}

/* Length of a square at the start of s as a lenient reader sees it (a-h or
 * A-H or a Cyrillic с/С, then 1-8); 0 when there is none. */
/* Lenient reading: the length of a result token ("1-0", "0-1", "1/2-1/2",
 * "*") or a numeric annotation glyph ("$12") glued to the end of a move
 * ("c8(1)-f5*", as some published records print it), or 0.  What stays in
 * front must end the way a move does (a rank digit, a castling 0 or O, or a
 * suffix). */
static size_t replay_glued_tail(const char *tok, size_t len)
{
    static const char *const results[] = {"1/2-1/2", "1-0", "0-1", "*"};
    size_t tail = 0;
    for (size_t r = 0; r < sizeof results / sizeof results[0] && !tail; r++) {
        size_t n = strlen(results[r]);
        if (len > n && !memcmp(tok + len - n, results[r], n))
            tail = n;
    }
    if (!tail) { /* $N */
        size_t d = len;
        while (d > 0 && tok[d - 1] >= '0' && tok[d - 1] <= '9')
            d--;
        if (d > 1 && d < len && tok[d - 1] == '$')
            tail = len - d + 1;
    }
    if (!tail)
        return 0;
    char last = tok[len - tail - 1];
    bool move_end = (last >= '1' && last <= '8') || last == '0' || last == 'O' || last == '+' || last == 'x' ||
                    last == '#' || last == '!' || last == '?';
    return move_end ? tail : 0;
}

static size_t replay_square_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t f = 0;
    if (n >= 1 && ((u[0] >= 'a' && u[0] <= 'h') || (u[0] >= 'A' && u[0] <= 'H')))
        f = 1;
    else if (n >= 2 && ((u[0] == 0xD1 && u[1] == 0x81) || (u[0] == 0xD0 && u[1] == 0xA1)))
        f = 2;
    if (f == 0 || n < f + 1 || u[f] < '1' || u[f] > '8')
        return 0;
    return f + 1;
}

static size_t replay_count_hash(const uint64_t *hashes, int n, uint64_t h)
{
    size_t c = 0;
    for (int i = 0; i < n; i++)
        c += hashes[i] == h;
    return c;
}

TvStatus replay_movetext(const Position *start, const Options *o, const char *movetext, int mode,
                         ReplayResult *res, TvError *err)
{
    ReplayResult local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    res->final = *start;
    Position *pos = &res->final;
    res->state = movegen_state(pos, o);
    if (!movetext)
        movetext = "";

    int cap = 0;
    int nhashes = 0;
    int hcap = 64;
    uint64_t *hashes = malloc((size_t)hcap * sizeof *hashes);
    TvStatus st = TV_OK;
    if (!hashes) {
        st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
        goto done;
    }
    hashes[nhashes++] = pos->hash;

    size_t i = 0;
    bool result_seen = false;
    const char *tok;
    size_t len;
    bool bad;
    char text[TV_MOVE_STR_MAX * 4];
    while (replay_next_token(movetext, &i, &tok, &len, &bad)) {
        if (record_is_result(tok, len)) {
            if (result_seen) {
                st = tv_fail(err, TV_ERR_PARSE, "a second result token '%.*s'", (int)len, tok);
                goto done;
            }
            result_seen = true;
            continue;
        }
        /* Move numbers: "12." or "12..." alone or in front of a move. */
        size_t d = 0;
        while (d < len && tok[d] >= '0' && tok[d] <= '9')
            d++;
        if (d > 0 && d < len && tok[d] == '.') {
            while (d < len && tok[d] == '.')
                d++;
            tok += d;
            len -= d;
            if (len == 0)
                continue;
        }
        if (tok[0] == '$') /* numeric annotation glyph */
            continue;
        if (result_seen) {
            st = tv_fail(err, TV_ERR_PARSE, "move '%.*s' after the result token", (int)len, tok);
            goto done;
        }
        /* Lenient: a result token or glyph glued to the move is split off. */
        size_t glued = mode == TV_PARSE_LENIENT ? replay_glued_tail(tok, len) : 0;
        const char *glued_text = tok + len - glued;
        len -= glued;
        /* A space for the hyphen: "b1 e1" arrives as two bare squares. */
        snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), tok);
        if (replay_square_len(tok, len) == len) {
            size_t j = i;
            const char *next;
            size_t nlen;
            bool nbad;
            if (replay_next_token(movetext, &j, &next, &nlen, &nbad) && replay_square_len(next, nlen) > 0 &&
                len + 1 + nlen < sizeof text) {
                Move m;
                if (move_parse(pos, o, text, TV_PARSE_LENIENT, &m, NULL, NULL) == TV_ERR_PARSE) {
                    snprintf(text, sizeof text, "%.*s %.*s", (int)len, tok, (int)nlen, next);
                    i = j;
                }
            }
        }

        int ply = res->plies + 1;
        char label[sizeof text + 24];
        snprintf(label, sizeof label, "ply %d (%d.%s %s)", ply, pos->move_number,
                 pos->side == TV_WHITE ? "" : "..", text);
        if (res->state != TV_STATE_ONGOING) {
            st = tv_fail(err, TV_ERR_ILLEGAL, "%s: the game is already over (%s)", label,
                         game_state_name(res->state));
            goto done;
        }
        Move m;
        MoveInfo info;
        TvError sub;
        tv_error_clear(&sub);
        TvStatus ps = move_parse(pos, o, text, mode, &m, &info, &sub);
        if (ps != TV_OK) {
            st = tv_fail(err, ps, "%s: %s", label, sub.msg);
            goto done;
        }
        if (res->plies == cap) {
            int ncap = cap ? cap * 2 : 64;
            Move *mv = realloc(res->moves, (size_t)ncap * sizeof *mv);
            if (!mv) {
                st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                goto done;
            }
            res->moves = mv;
            cap = ncap;
        }
        Undo u;
        pos_make_move(pos, m, &u);
        res->moves[res->plies++] = m;

        bool check = pos_in_check(pos, o);
        GameState state = movegen_state(pos, o);
        bool ok = true;
        if (info.mended)
            ok = ok && replay_warn(res, "%s: %s", label, info.warning);
        if (glued) {
            ok = ok && replay_warn(res, "%s: '%.*s' glued to the move read as a token of its own", label, (int)glued,
                                   glued_text);
            result_seen = result_seen || glued_text[0] != '$';
        }
        if (info.check && !check)
            ok = ok && replay_warn(res, "%s: '+' but the move does not give check", label);
        if (info.mate && state != TV_STATE_CHECKMATE && state != TV_STATE_WIZARD_CAPTURED)
            ok = ok && replay_warn(res, "%s: '#' but the move does not mate", label);
        if (!ok) {
            st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
            goto done;
        }

        if (state == TV_STATE_ONGOING && replay_count_hash(hashes, nhashes, pos->hash) >= 2)
            state = TV_STATE_REPETITION;
        res->state = state;
        if (nhashes == hcap) {
            uint64_t *h = realloc(hashes, (size_t)hcap * 2 * sizeof *h);
            if (!h) {
                st = tv_fail(err, TV_ERR_LIMIT, "out of memory");
                goto done;
            }
            hashes = h;
            hcap *= 2;
        }
        hashes[nhashes++] = pos->hash;
    }
    if (bad)
        st = tv_fail(err, TV_ERR_PARSE, "unclosed comment '{'");
done:
    free(hashes);
    if (res == &local)
        replay_result_free(&local);
    return st;
}

TvStatus replay_record(const GameRecord *g, int mode, ReplayResult *res, TvError *err)
{
    Position start;
    TvError sub;
    tv_error_clear(&sub);
    if (res)
        memset(res, 0, sizeof *res);
    const char *tfen = g->start_tfen[0] ? g->start_tfen : TV_START_TFEN;
    if (tfen_read(tfen, &start, &sub) != TV_OK)
        return tv_fail(err, TV_ERR_PARSE, "%s: %s", g->id, sub.msg);
    TvStatus st = replay_movetext(&start, &g->options, g->movetext, mode, res, &sub);
    if (st != TV_OK) {
        tv_fail(err, st, "%s: %s", g->id, sub.msg);
        if (err)
            err->line = g->source_line;
    }
    return st;
}

/* ---- writing TGN --------------------------------------------------------------- */

static void tgn_write_tag(StrBuf *b, const char *key, const char *value)
{
    strbuf_add(b, "[");
    strbuf_add(b, key);
    strbuf_add(b, " \"");
    for (const char *p = value; *p; p++) {
        if (*p == '"' || *p == '\\')
            strbuf_add_n(b, "\\", 1);
        strbuf_add_n(b, p, 1);
    }
    strbuf_add(b, "\"]\n");
}

/* Appends one unit of movetext, wrapping lines below 80 characters. */
static void tgn_write_unit(StrBuf *b, size_t *col, const char *unit)
{
    size_t n = strlen(unit);
    if (*col > 0 && *col + 1 + n > 79) {
        strbuf_add(b, "\n");
        *col = 0;
    } else if (*col > 0) {
        strbuf_add(b, " ");
        (*col)++;
    }
    strbuf_add(b, unit);
    *col += n;
}

char *record_write_tgn(const Position *start, const Options *o, const Move *moves, int nmoves,
                       const RecordTag *tags, int ntags, const char *result, const char *const *comments)
{
    StrBuf b = {0};
    char buf[TV_TFEN_MAX];
    if (!result)
        result = "*";
    for (int i = 0; tags && i < ntags; i++) {
        const char *k = tags[i].key;
        if (strcmp(k, "Variant") == 0 || strcmp(k, "Options") == 0 || strcmp(k, "TFEN") == 0 ||
            strcmp(k, "Result") == 0 || strcmp(k, "SetUp") == 0)
            continue;
        tgn_write_tag(&b, k, tags[i].value ? tags[i].value : "");
    }
    tgn_write_tag(&b, "Result", result);
    tgn_write_tag(&b, "Variant", "tavreli");
    tgn_write_tag(&b, "Options", rule_options_to_str(o, buf, sizeof buf));
    tfen_write(start, buf, sizeof buf);
    if (strcmp(buf, TV_START_TFEN) != 0) {
        tgn_write_tag(&b, "SetUp", "1");
        tgn_write_tag(&b, "TFEN", buf);
    }
    strbuf_add(&b, "\n");

    Position pos = *start;
    size_t col = 0;
    for (int i = 0; i < nmoves; i++) {
        if (!movegen_is_legal(&pos, o, moves[i])) {
            strbuf_free(&b);
            return NULL;
        }
        char mv[TV_MOVE_STR_MAX];
        char unit[TV_MOVE_STR_MAX + 24];
        move_to_str(&pos, o, moves[i], true, mv, sizeof mv);
        bool after_comment = i > 0 && comments && comments[i - 1] && comments[i - 1][0];
        if (pos.side == TV_WHITE)
            snprintf(unit, sizeof unit, "%d. %s", pos.move_number, mv);
        else if (i == 0 || after_comment)
            snprintf(unit, sizeof unit, "%d... %s", pos.move_number, mv);
        else
            snprintf(unit, sizeof unit, "%s", mv);
        tgn_write_unit(&b, &col, unit);
        if (comments && comments[i] && comments[i][0]) {
            char c[128];
            snprintf(c, sizeof c, "{%s}", comments[i]);
            tgn_write_unit(&b, &col, c);
        }
        Undo u;
        pos_make_move(&pos, moves[i], &u);
    }
    tgn_write_unit(&b, &col, result);
    strbuf_add(&b, "\n");
    return strbuf_take(&b);
}
