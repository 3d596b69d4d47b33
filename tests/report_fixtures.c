#define _POSIX_C_SOURCE 200809L
/* report_fixtures.c: what the report tests share (report_fixtures.h):
 * synthetic games and stores whose results follow from the game index, a
 * scratch directory per test, and reading the written report back. */
#include "report_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "h5_fixtures.h"
#include "movegen.h"
#include "notation.h"
#include "outcome.h"
#include "rule_options.h"
#include "search.h"
#include "tfen.h"

const char *const INI = "[tournament]\nname = synth\npairs = 20\n";
const char *const OPTIONS = "slide_over_own=no enpassant=combatant ending=checkmate";
const char *const NAMES[3] = {"alpha", "beta", "gamma"};


/* ---- synthetic games: everything follows from the game index ---------------- */

/* Pairing p of the round robin of three: (0,1), (0,2), (1,2). */
void pairing_players(int p, int *a, int *b)
{
    static const int A[3] = {0, 0, 1}, B[3] = {1, 2, 2};
    *a = A[p];
    *b = B[p];
}

/* The result of game i from the pairing's first engine's view: the stronger
 * (lower index) engine wins more often: 40/30/30 when one apart, 50/20/30
 * when two apart. */
int first_result(int64_t i)
{
    int64_t k = i / 2, r = k / 3;
    int p = (int)(k % 3), a, b;
    pairing_players(p, &a, &b);
    int diff = b - a;
    int u = (int)((r * 7 + (i % 2) * 3 + p) % 10);
    return u < 3 + diff ? 1 : u < 7 ? 0 : -1;
}

void synth_game(int64_t i, StoredGame *g)
{
    memset(g, 0, sizeof *g);
    int64_t k = i / 2;
    int p = (int)(k % 3), a, b;
    pairing_players(p, &a, &b);
    g->index = i;
    g->pairing = p;
    g->white = i % 2 == 0 ? a : b;
    g->black = i % 2 == 0 ? b : a;
    g->opening = (int32_t)(k / 3);
    strcpy(g->start_tfen, "startpos");
    int r = first_result(i);
    g->result = (int8_t)(g->white == a ? r : -r);
    if (r)
        g->termination = i % 3 == 0 ? TERM_ADJ_RESIGN : TERM_CHECKMATE;
    else
        g->termination = i % 2 ? TERM_REPETITION : TERM_ADJ_DRAW;
    g->plies = 20 + (int32_t)((i * 37) % 150);
    g->seed = (uint64_t)i;
    g->wall_time = 0.1;
}

/* The /engines settings text of the default search settings with setting
 * k (-1: none) one above its default, as the runner writes it. */
void settings_text(char *buf, size_t n, int k)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < SEARCH_NSETTINGS && o < n; i++) {
        const SearchSettingInfo *s = &SEARCH_SETTING_INFO[i];
        int v = i == k ? (s->def < s->hi ? s->def + 1 : s->def - 1) : s->def;
        o += (size_t)snprintf(buf + o, n - o, "%s%s=%d", i ? " " : "", s->name, v);
    }
}

void make_engines(StoredEngine *e, int n, const char *const *names)
{
    memset(e, 0, (size_t)n * sizeof *e);
    for (int i = 0; i < n; i++) {
        snprintf(e[i].name, sizeof e[i].name, "%s", names[i]);
        snprintf(e[i].path, sizeof e[i].path, "%s.ini", names[i]);
        settings_text(e[i].settings, sizeof e[i].settings, -1);
        e[i].depth = 3;
        e[i].weights[0] = 100;
        for (const char *c = names[i]; *c; c++) /* versions that differ by name (identical ones get a note) */
            e[i].weights[1] += *c;
    }
}

/* ---- real games: every reader replays the stored moves ------------------------ */

/* Lines the rules end, from the start position: White mates in 5 plies (a
 * search of helpmates from the start position found it), Black by the same
 * moves mirrored with Black moving first, and a knight shuffle that brings
 * the start position back a third time (a draw by repetition). */
static const char *const MATE_WHITE[] = {"d1-c1", "e8-f8", "c1-b2", "f8-g8", "b2(1)-g7", NULL};
static const char *const MATE_BLACK[] = {"d8-c8", "e1-f1", "c8-b7", "f1-g1", "b7(1)-g2", NULL};
static const char *const SHUFFLE[] = {"g1-f3", "g8-f6", "f3-g1", "f6-g8", "g1-f3", "g8-f6", "f3-g1", "f6-g8", NULL};
#define START_BLACK_FIRST "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR b KQkq - 0 1"

/* The rules' verdict with hist[0..k) the hashes before p (as verify). */
static GameState state_after(const Position *p, const Options *o, const uint64_t *hist, int k)
{
    GameState s = movegen_state(p, o);
    int seen = 1;
    for (int i = k - 2; i >= 0; i -= 2)
        seen += hist[i] == p->hash;
    return s == TV_STATE_ONGOING && seen >= 3 ? TV_STATE_REPETITION : s;
}

/* Writes game g's moves and positions into m and p (room for g->plies + 8
 * rows) as a real game of its termination and result: a checkmate or a
 * repetition by the lines above (its plies become theirs), anything else
 * g->plies moves chosen by its index that end nothing (one more when the
 * side to move at the end must be the loser of a referee's loss). */
static void real_game(StoredGame *g, const Options *o, StoredMove *m, StoredPosition *p)
{
    const char *const *line = NULL;
    const char *start = TV_START_TFEN;
    if (g->termination == TERM_CHECKMATE)
        line = g->result > 0 ? MATE_WHITE : MATE_BLACK, start = g->result > 0 ? TV_START_TFEN : START_BLACK_FIRST;
    else if (g->termination == TERM_REPETITION)
        line = SHUFFLE;
    else if (g->termination == TERM_STALEMATE || g->termination == TERM_WIZARD_CAPTURED)
        fail_msg("report_fixtures: no line for termination %d", g->termination);
    if (line) {
        g->plies = 0;
        while (line[g->plies])
            g->plies++;
    } else if (termination_is_failure(g->termination) && (g->plies % 2 == 0) != (g->result < 0)) {
        g->plies++; /* White to move at the end (an even ply count) lost: result -1 */
    }
    snprintf(g->start_tfen, sizeof g->start_tfen, "%s", start);
    Position pos;
    if (tfen_read(start, &pos, NULL) != TV_OK)
        fail_msg("report_fixtures: start position");
    uint64_t *hist = calloc((size_t)g->plies + 1, sizeof *hist);
    assert_non_null(hist);
    for (int k = 0; k < g->plies; k++) {
        Move mv;
        TvError e;
        if (line) {
            if (move_parse(&pos, o, line[k], TV_PARSE_STRICT, &mv, NULL, &e) != TV_OK)
                fail_msg("report_fixtures: line move %s: %s", line[k], e.msg);
        } else {
            MoveList l;
            movegen_legal(&pos, o, &l);
            bool found = false;
            for (int j = 0; j < l.count && !found; j++) { /* the first that ends nothing */
                mv = l.moves[(g->index * 31 + k * 17 + j) % l.count];
                Undo u;
                hist[k] = pos.hash;
                pos_make_move(&pos, mv, &u);
                found = state_after(&pos, o, hist, k + 1) == TV_STATE_ONGOING;
                pos_unmake_move(&pos, &u);
            }
            if (!found)
                fail_msg("report_fixtures: game %lld: every move ends it at ply %d", (long long)g->index, k + 1);
        }
        memset(&m[k], 0, sizeof m[k]);
        memset(&p[k], 0, sizeof p[k]);
        m[k].game = p[k].game = g->index;
        m[k].ply = p[k].ply = k;
        char text[TV_MOVE_STR_MAX];
        move_to_str(&pos, o, mv, true, text, sizeof text);
        memcpy(m[k].move, text, strlen(text) < sizeof m[k].move ? strlen(text) : sizeof m[k].move);
        tfen_write(&pos, p[k].tfen, sizeof p[k].tfen);
        p[k].side = (int8_t)pos.side;
        p[k].result = g->result == 0 ? 0.5f : (g->result > 0) == (pos.side == TV_WHITE) ? 1.0f : 0.0f;
        hist[k] = pos.hash;
        Undo u;
        pos_make_move(&pos, mv, &u);
    }
    free(hist);
}

/* A store of the engines e holding the given games (NULL: none), made by
 * the tournament INI text ini under the given rule options.  Each game is
 * made real (real_game): its plies and start position may change. */
void write_store_engines(const char *path, const StoredEngine *e, int nengines, StoredGame *games, int ngames,
                                const char *ini, const char *options)
{
    H5Store *s = NULL;
    TvError err;
    Options o;
    if (rule_options_parse(options, &o, &err) != TV_OK)
        fail_msg("options %s: %s", options, err.msg);
    int64_t rows = 0;
    for (int i = 0; i < ngames; i++)
        rows += games[i].plies + 8;
    StoredMove *m = calloc((size_t)rows + 1, sizeof *m);
    StoredPosition *p = calloc((size_t)rows + 1, sizeof *p);
    assert_non_null(m);
    assert_non_null(p);
    for (int i = 0, r = 0; i < ngames; i++) {
        real_game(&games[i], &o, &m[r], &p[r]);
        games[i].move_count = games[i].position_count = games[i].plies;
        r += games[i].plies;
    }
    if (h5store_create(path, true, e, nengines, ini, options, &s, &err) != TV_OK)
        fail_msg("create %s: %s", path, err.msg);
    if (ngames > 0 && h5store_append(s, games, ngames, m, p, &err) != TV_OK)
        fail_msg("append %s: %s", path, err.msg);
    free(m);
    free(p);
    if (h5store_close(s, &err) != TV_OK)
        fail_msg("close %s: %s", path, err.msg);
}

/* A store of the engines `names` holding the given games (NULL: none),
 * every engine with weight 0 set to w0 and the given rule options. */
void write_store_as(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames,
                           int w0, const char *options)
{
    StoredEngine e[8];
    make_engines(e, nengines, names);
    for (int i = 0; i < nengines; i++) {
        e[i].weights[0] = w0 < 0 ? 100 : w0;
        if (w0 < 0) /* w0 < 0: every engine the same version under its own name */
            e[i].weights[1] = 0;
    }
    write_store_engines(path, e, nengines, games, ngames, INI, options);
}

void write_store(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames)
{
    write_store_as(path, names, nengines, games, ngames, 100, OPTIONS);
}

void write_store_weight0(const char *path, const char *const *names, int nengines, StoredGame *games,
                                int ngames, int w0)
{
    write_store_as(path, names, nengines, games, ngames, w0, OPTIONS);
}

/* The games with index in [from, to) whose pair (index / 2) passes keep(). */
int select_games(StoredGame *out, int (*keep)(int64_t pair))
{
    int n = 0;
    for (int64_t i = 0; i < NGAMES; i++)
        if (!keep || keep(i / 2))
            synth_game(i, &out[n++]);
    return n;
}

int even_round(int64_t pair)
{
    return (pair / 3) % 2 == 0;
}

int odd_round(int64_t pair)
{
    return (pair / 3) % 2 == 1;
}

/* ---- files ------------------------------------------------------------------- */


char *tmp_path_into(char *buf, const Tmp *t, const char *name)
{
    snprintf(buf, 512, "%s/%s", t->dir, name);
    return buf;
}


char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

void assert_contains(const char *text, const char *what, const char *where)
{
    if (!strstr(text, what))
        fail_msg("%s does not contain \"%s\"; it is:\n%.3000s", where, what, text);
}

void assert_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("missing plot %s", path);
    unsigned char sig[8] = {0};
    size_t n = fread(sig, 1, 8, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    if (n != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8) != 0 || size < 1000)
        fail_msg("%s is not a PNG of some size (%ld bytes)", path, size);
}

int setup(void **state)
{
    Tmp *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    const char *base = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/test_report_XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

int teardown(void **state)
{
    Tmp *t = *state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", t->dir);
    free(t);
    return 0;
}

/* The text of a section "## TITLE" up to the next "## " heading. */
char *section(const char *md, const char *title)
{
    char head[128];
    snprintf(head, sizeof head, "\n## %s\n", title);
    const char *s = strstr(md, head);
    if (!s)
        fail_msg("no section '%s'", title);
    const char *e = strstr(s + strlen(head), "\n## ");
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char *out = malloc(n + 1);
    assert_non_null(out);
    memcpy(out, s, n);
    out[n] = 0;
    return out;
}

TvStatus report1(const char *file, const char *log, const char *outdir, TvError *err)
{
    const char *files[1] = {file};
    return report_write(files, 1, log, outdir, err);
}

/* The report of one store (and a tuning log, or NULL) written into outdir:
 * its report.md (the caller frees). */
char *report_md(const char *file, const char *log, const char *outdir)
{
    TvError err;
    if (report1(file, log, outdir, &err) != TV_OK)
        fail_msg("report: %s", err.msg);
    char path[600];
    snprintf(path, sizeof path, "%s/report.md", outdir);
    char *md = slurp(path);
    assert_non_null(md);
    return md;
}
