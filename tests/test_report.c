#define _POSIX_C_SOURCE 200809L
/* test_report.c: strength reports (report/report*.c).
 *
 *  - a synthetic round robin of three engines with known results is stored
 *    and reported: report.md and report.html exist and hold the rating table
 *    (best first), the LOS matrix, each pairing's exact W/D/L and
 *    pentanomial counts, the termination counts, the length histogram; the
 *    PNG files are PNGs;
 *  - splitting the same games into two stores gives the same tables;
 *  - an SPRT store shows the decision, the bounds and the LLR plot;
 *  - a tuning log adds the loss plot and the weights table (top 15 only);
 *  - errors: another schema version, a store with no games, one engine
 *    version only, stores with other engines, a bad tuning log, gnuplot
 *    missing, an unwritable output directory. */
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
#include "h5store.h"
#include "outcome.h"
#include "report.h"
#include "search.h"
#include "tfen.h"

static const char *INI = "[tournament]\nname = synth\npairs = 20\n";
static const char *OPTIONS = "slide_over_own=no enpassant=combatant ending=checkmate";
static const char *NAMES[3] = {"alpha", "beta", "gamma"};

#define PAIRS 20                 /* pairs per pairing */
#define NGAMES (3 * PAIRS * 2)   /* round robin of 3 engines */

/* ---- synthetic games: everything follows from the game index ---------------- */

/* Pairing p of the round robin of three: (0,1), (0,2), (1,2). */
static void pairing_players(int p, int *a, int *b)
{
    static const int A[3] = {0, 0, 1}, B[3] = {1, 2, 2};
    *a = A[p];
    *b = B[p];
}

/* The result of game i from the pairing's first engine's view: the stronger
 * (lower index) engine wins more often: 40/30/30 when one apart, 50/20/30
 * when two apart. */
static int first_result(int64_t i)
{
    int64_t k = i / 2, r = k / 3;
    int p = (int)(k % 3), a, b;
    pairing_players(p, &a, &b);
    int diff = b - a;
    int u = (int)((r * 7 + (i % 2) * 3 + p) % 10);
    return u < 3 + diff ? 1 : u < 7 ? 0 : -1;
}

static void synth_game(int64_t i, StoredGame *g)
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
static void settings_text(char *buf, size_t n, int k)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < SEARCH_NSETTINGS && o < n; i++) {
        const SearchSettingInfo *s = &SEARCH_SETTING_INFO[i];
        int v = i == k ? (s->def < s->hi ? s->def + 1 : s->def - 1) : s->def;
        o += (size_t)snprintf(buf + o, n - o, "%s%s=%d", i ? " " : "", s->name, v);
    }
}

static void make_engines(StoredEngine *e, int n, const char *const *names)
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

/* A store of the engines e holding the given games (NULL: none), made by
 * the tournament INI text ini under the given rule options. */
static void write_store_engines(const char *path, const StoredEngine *e, int nengines, StoredGame *games, int ngames,
                                const char *ini, const char *options)
{
    H5Store *s = NULL;
    TvError err;
    /* every game's rows, as a store holds them (the report reads only
     * /games, but every reader checks that the rows are there) */
    int64_t rows = 0;
    for (int i = 0; i < ngames; i++)
        rows += games[i].plies;
    StoredMove *m = calloc((size_t)rows + 1, sizeof *m);
    StoredPosition *p = calloc((size_t)rows + 1, sizeof *p);
    assert_non_null(m);
    assert_non_null(p);
    for (int i = 0, r = 0; i < ngames; i++) {
        games[i].move_count = games[i].position_count = games[i].plies;
        /* what every reader checks of /games and /positions: a start
         * position that reads, each position's result the game's from its
         * side's view */
        if (!games[i].start_tfen[0] || !strcmp(games[i].start_tfen, "startpos"))
            strcpy(games[i].start_tfen, TV_START_TFEN);
        for (int k = 0; k < games[i].plies; k++, r++) {
            m[r].game = p[r].game = games[i].index;
            m[r].ply = p[r].ply = k;
            p[r].side = (int8_t)(k % 2);
            int res = games[i].result;
            p[r].result = res == 0 ? 0.5f : (res > 0) == (k % 2 == 0) ? 1.0f : 0.0f;
        }
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
static void write_store_as(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames,
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

static void write_store(const char *path, const char *const *names, int nengines, StoredGame *games, int ngames)
{
    write_store_as(path, names, nengines, games, ngames, 100, OPTIONS);
}

static void write_store_weight0(const char *path, const char *const *names, int nengines, StoredGame *games,
                                int ngames, int w0)
{
    write_store_as(path, names, nengines, games, ngames, w0, OPTIONS);
}

/* The games with index in [from, to) whose pair (index / 2) passes keep(). */
static int select_games(StoredGame *out, int (*keep)(int64_t pair))
{
    int n = 0;
    for (int64_t i = 0; i < NGAMES; i++)
        if (!keep || keep(i / 2))
            synth_game(i, &out[n++]);
    return n;
}

static int even_round(int64_t pair)
{
    return (pair / 3) % 2 == 0;
}

static int odd_round(int64_t pair)
{
    return (pair / 3) % 2 == 1;
}

/* ---- files ------------------------------------------------------------------- */

typedef struct {
    char dir[256];
} Tmp;

static char *tmp_path_into(char *buf, const Tmp *t, const char *name)
{
    snprintf(buf, 512, "%s/%s", t->dir, name);
    return buf;
}

/* A path in the test's directory, valid until the end of the enclosing block. */
#define tmp_path(t, name) tmp_path_into((char[512]){0}, (t), (name))

static char *slurp(const char *path)
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

static void assert_contains(const char *text, const char *what, const char *where)
{
    if (!strstr(text, what))
        fail_msg("%s does not contain \"%s\"", where, what);
}

static void assert_png(const char *path)
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

static int setup(void **state)
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

static int teardown(void **state)
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
static char *section(const char *md, const char *title)
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

static TvStatus report1(const char *file, const char *log, const char *outdir, TvError *err)
{
    const char *files[1] = {file};
    return report_write(files, 1, log, outdir, err);
}

/* The report of one store (and a tuning log, or NULL) written into outdir:
 * its report.md (the caller frees). */
static char *report_md(const char *file, const char *log, const char *outdir)
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

/* ---- the report of a round robin ----------------------------------------------- */

static void test_round_robin(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    assert_int_equal(n, NGAMES);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    char *md = report_md(tmp_path(t, "rr.h5"), NULL, tmp_path(t, "out/deeper"));
    char *html = slurp(tmp_path(t, "out/deeper/report.html"));
    assert_non_null(html);

    /* The rating table, best first. */
    char *rt = section(md, "Ratings");
    assert_contains(rt, "| rank | engine | Elo | 95% interval | games | score |", "ratings");
    const char *pa = strstr(rt, "| 1 | alpha |"), *pb = strstr(rt, "| 2 | beta |"), *pc = strstr(rt, "| 3 | gamma |");
    if (!pa || !pb || !pc)
        fail_msg("rating table not in the order alpha, beta, gamma:\n%s", rt);
    free(rt);

    /* The LOS matrix. */
    char *los = section(md, "Likelihood of superiority");
    assert_contains(los, "| LOS | alpha | beta | gamma |", "LOS");
    assert_contains(los, "| alpha | - |", "LOS");
    assert_contains(los, "| gamma |", "LOS");
    free(los);

    /* Each pairing's W/D/L and pentanomial counts as generated. */
    char *pr = section(md, "Pairings");
    for (int p = 0; p < 3; p++) {
        int a, b;
        pairing_players(p, &a, &b);
        long w = 0, d = 0, l = 0, penta[5] = {0};
        for (int64_t i = 0; i < NGAMES; i += 2) {
            if ((i / 2) % 3 != p)
                continue;
            int r0 = first_result(i), r1 = first_result(i + 1);
            for (int k = 0; k < 2; k++) {
                int r = k ? r1 : r0;
                w += r > 0;
                d += r == 0;
                l += r < 0;
            }
            penta[r0 + 1 + r1 + 1]++;
        }
        char line[256];
        snprintf(line, sizeof line, "| %s vs %s | %ld | %ld | %ld | %ld | %ld / %ld / %ld / %ld / %ld |", NAMES[a],
                 NAMES[b], w + d + l, w, d, l, penta[0], penta[1], penta[2], penta[3], penta[4]);
        assert_contains(pr, line, "pairings");
    }
    assert_contains(pr, "nElo", "pairings");
    free(pr);

    /* Terminations. */
    long term[7][3] = {{0}};
    for (int64_t i = 0; i < NGAMES; i++) {
        StoredGame g;
        synth_game(i, &g);
        term[g.termination][1 - g.result]++;
    }
    char *te = section(md, "How games ended");
    for (int k = 0; k < 7; k++) {
        long tot = term[k][0] + term[k][1] + term[k][2];
        if (!tot)
            continue;
        char line[256];
        snprintf(line, sizeof line, "| %s | ", termination_name((Termination)k));
        assert_contains(te, line, "terminations");
        snprintf(line, sizeof line, " | %ld | %.1f%% | %ld | %ld | %ld |", tot, 100.0 * tot / NGAMES, term[k][0],
                 term[k][1], term[k][2]);
        assert_contains(te, line, "terminations");
    }
    char all[64];
    snprintf(all, sizeof all, "| all |  | %d | 100.0%% |", NGAMES);
    assert_contains(te, all, "terminations");
    free(te);

    /* Lengths. */
    char *le = section(md, "Game length");
    assert_contains(le, "![", "game length");
    assert_contains(le, "(lengths.png)", "game length");
    free(le);
    assert_png(tmp_path(t, "out/deeper/lengths.png"));
    assert_null(strstr(md, "SPRT"));
    assert_null(strstr(md, "## Tuning"));

    /* The HTML: self-contained, the same tables, the image. */
    assert_contains(html, "<!DOCTYPE html>", "html");
    assert_contains(html, "<style>", "html");
    /* one self-contained page: every image inlined, none linked */
    assert_contains(html, "<img src=\"data:image/png;base64,iVBORw0KGgo", "html");
    assert_contains(html, "title=\"lengths.png\"", "html");
    assert_null(strstr(html, "src=\"lengths.png\""));
    assert_contains(html, "<td>alpha</td>", "html");
    assert_contains(html, "<td>beta vs gamma</td>", "html");
    assert_contains(html, "<th>LOS</th>", "html");
    assert_contains(html, "<td>checkmate</td>", "html");
    assert_null(strstr(html, "<script"));
    free(md);
    free(html);
}

/* The same games in two stores give the same ratings, LOS and pairings. */
static void test_split_same_table(void **state)
{
    Tmp *t = *state;
    StoredGame all[NGAMES], even[NGAMES], odd[NGAMES];
    int n = select_games(all, NULL), ne = select_games(even, even_round), no = select_games(odd, odd_round);
    assert_int_equal(ne + no, n);
    write_store(tmp_path(t, "all.h5"), NAMES, 3, all, n);
    write_store(tmp_path(t, "even.h5"), NAMES, 3, even, ne);
    /* The second store lists the engines in another order: players are matched by name. */
    const char *rev[3] = {"gamma", "alpha", "beta"};
    for (int i = 0; i < no; i++) {
        int map[3] = {1, 2, 0}; /* old index -> index in rev */
        odd[i].white = map[odd[i].white];
        odd[i].black = map[odd[i].black];
    }
    write_store(tmp_path(t, "odd.h5"), rev, 3, odd, no);
    char *m1 = report_md(tmp_path(t, "all.h5"), NULL, tmp_path(t, "one"));
    const char *files[2] = {tmp_path(t, "odd.h5"), tmp_path(t, "even.h5")};
    TvError err;
    if (report_write(files, 2, NULL, tmp_path(t, "two"), &err) != TV_OK)
        fail_msg("report: %s", err.msg);
    char *m2 = slurp(tmp_path(t, "two/report.md"));
    assert_non_null(m2);
    const char *titles[] = {"Ratings", "Likelihood of superiority", "How games ended", "Game length"};
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++) {
        char *s1 = section(m1, titles[i]), *s2 = section(m2, titles[i]);
        assert_string_equal(s1, s2);
        free(s1);
        free(s2);
    }
    /* Pairings: same counts, but from the first store's engine order (gamma first in "two"). */
    char *p2 = section(m2, "Pairings");
    assert_contains(p2, "| gamma vs alpha |", "pairings of the split stores");
    free(p2);
    free(m1);
    free(m2);
}

/* ---- SPRT ---------------------------------------------------------------------------- */

static void test_sprt(void **state)
{
    Tmp *t = *state;
    /* Two engines: alpha scores 2, 1.5, 1 in a cycle of pairs. */
    StoredGame g[60];
    for (int i = 0; i < 60; i++) {
        memset(&g[i], 0, sizeof g[i]);
        g[i].index = i;
        g[i].white = i % 2;
        g[i].black = 1 - i % 2;
        int pattern = (i / 2) % 3; /* alpha's pair: win-win, win-draw, draw-draw */
        int ra = pattern == 0 ? 1 : pattern == 1 ? (i % 2 ? 0 : 1) : 0;
        g[i].result = (int8_t)(g[i].white == 0 ? ra : -ra);
        g[i].termination = ra ? TERM_CHECKMATE : TERM_ADJ_DRAW;
        g[i].plies = 40 + i;
    }
    /* Stored out of order, as the runner finishes them. */
    StoredGame tmp = g[3];
    g[3] = g[10];
    g[10] = tmp;
    write_store(tmp_path(t, "sprt.h5"), NAMES, 2, g, 60);
    const char *names[2] = {"sprt", "sprt_result"}, *values[2] = {"elo0=0 elo1=5 alpha=0.05 beta=0.05", "H1"};
    TvError err;
    if (h5store_set_attributes(tmp_path(t, "sprt.h5"), names, values, 2, &err) != TV_OK)
        fail_msg("set attributes: %s", err.msg);
    char *md = report_md(tmp_path(t, "sprt.h5"), NULL, tmp_path(t, "out"));
    char head[600];
    snprintf(head, sizeof head, "SPRT (%s)", tmp_path(t, "sprt.h5"));
    char *s = section(md, head);
    assert_contains(s, "alpha against beta", "sprt");
    assert_contains(s, "[-2.944, 2.944]", "sprt");
    assert_contains(s, "| complete pairs | 30 |", "sprt");
    assert_contains(s, "| pentanomial 0/½/1/1½/2 | 0 / 0 / 10 / 10 / 10 |", "sprt");
    assert_contains(s, "| decision stored by the run | H1 |", "sprt");
    assert_contains(s, "| decision from these games |", "sprt");
    assert_contains(s, "(sprt_llr.png)", "sprt");
    free(s);
    free(md);
    assert_png(tmp_path(t, "out/sprt_llr.png"));

    /* A malformed sprt attribute is an error naming the store. */
    values[0] = "elo0=5 elo1=0 alpha=0.05 beta=0.05";
    if (h5store_set_attributes(tmp_path(t, "sprt.h5"), names, values, 2, &err) != TV_OK)
        fail_msg("set attributes: %s", err.msg);
    assert_int_not_equal(report1(tmp_path(t, "sprt.h5"), NULL, tmp_path(t, "out2"), &err), TV_OK);
    assert_contains(err.msg, "bad sprt attribute", "error");
    assert_contains(err.msg, "sprt.h5", "error");
}

/* ---- the tuning log ---------------------------------------------------------------- */

static void test_tuning_log(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    FILE *f = fopen(tmp_path(t, "tune.log"), "w");
    assert_non_null(f);
    fprintf(f, "# tuning log\n");
    for (int i = 0; i < 30; i++)
        fprintf(f, "iter %d fit_loss %.6f holdout_loss %.6f\n", i, 0.09 + 0.02 / (1 + i), 0.095 + 0.018 / (1 + i) +
                                                                                            0.0001 * i);
    /* 20 weights: w00 moved least (by move / stderr), w19 most. */
    for (int i = 0; i < 20; i++)
        fprintf(f, "weight w%02d_x[%d] %d %d %.1f   # a comment\n", i, i, 100, 100 + (i % 2 ? i : -i) * 3, 2.0);
    fclose(f);
    char *md = report_md(tmp_path(t, "rr.h5"), tmp_path(t, "tune.log"), tmp_path(t, "out"));
    char *s = section(md, "Tuning");
    assert_contains(s, "30 iterations", "tuning");
    assert_contains(s, "(tuning_loss.png)", "tuning");
    assert_contains(s, "(tuning_weights.png)", "tuning");
    assert_contains(s, "| weight | start | new | new - start | stderr | move / stderr |", "tuning");
    assert_contains(s, "| w19_x[19] | 100 | 157 | +57 | 2 | +28.50 |", "tuning");
    assert_contains(s, "| w18_x[18] | 100 | 46 | -54 | 2 | -27.00 |", "tuning");
    assert_contains(s, "w05_x[5]", "tuning");
    assert_null(strstr(s, "w04_x[4]")); /* only the top 15 */
    assert_null(strstr(s, "w00_x[0]"));
    /* The biggest mover comes first. */
    assert_true(strstr(s, "w19_x") < strstr(s, "w18_x"));
    free(s);
    free(md);
    assert_png(tmp_path(t, "out/tuning_loss.png"));
    assert_png(tmp_path(t, "out/tuning_weights.png"));

    /* A bad line is an error with the log's name and line. */
    f = fopen(tmp_path(t, "bad.log"), "w");
    assert_non_null(f);
    fprintf(f, "iter 1 fit_loss 0.1 holdout_loss 0.2\n\nweight tempo 10 twelve 1\n");
    fclose(f);
    TvError err;
    assert_int_equal(report1(tmp_path(t, "rr.h5"), tmp_path(t, "bad.log"), tmp_path(t, "out3"), &err), TV_ERR_PARSE);
    char want[600];
    snprintf(want, sizeof want, "%s:3: expected", tmp_path(t, "bad.log"));
    assert_contains(err.msg, want, "error");
    /* A missing log. */
    assert_int_equal(report1(tmp_path(t, "rr.h5"), tmp_path(t, "none.log"), tmp_path(t, "out3"), &err), TV_ERR_IO);
    assert_contains(err.msg, "none.log", "error");
}

/* ---- any set of stores ------------------------------------------------------------- */

/* Stores with different engine sets are one rating list (engines matched
 * by name); a game two stores hold counts once; stores of other rules need
 * --mix-rules. */
static void test_any_stores_together(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n); /* alpha, beta, gamma */
    const char *other[3] = {"gamma", "delta", "epsilon"};
    StoredGame g2[NGAMES];
    int n2 = select_games(g2, NULL);
    write_store(tmp_path(t, "other.h5"), other, 3, g2, n2);
    const char *both[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "other.h5")};
    TvError err;
    if (report_write(both, 2, NULL, tmp_path(t, "out"), &err) != TV_OK)
        fail_msg("report of two engine sets: %s", err.msg);
    char path[600];
    snprintf(path, sizeof path, "%s/report.md", tmp_path(t, "out"));
    char *md = slurp(path);
    char *r = section(md, "Ratings");
    for (int i = 0; i < 3; i++) {
        assert_contains(r, NAMES[i], "ratings");
        assert_contains(r, other[i], "ratings");
    }
    free(r);
    assert_contains(md, "5 engine versions", "report");
    free(md);

    /* the same store twice: each game once */
    const char *twice[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "rr.h5")};
    if (report_write(twice, 2, NULL, tmp_path(t, "out2"), &err) != TV_OK)
        fail_msg("report of a store twice: %s", err.msg);
    snprintf(path, sizeof path, "%s/report.md", tmp_path(t, "out2"));
    md = slurp(path);
    char want[128];
    snprintf(want, sizeof want, "%d games from 2 stores", n);
    assert_contains(md, want, "report");
    snprintf(want, sizeof want, "%d games are held by more than one store", n);
    assert_contains(md, want, "report");
    free(md);

    /* notes: a pairing mostly adjudicated, and identical engines */
    for (int i = 0; i < n2; i++) {
        g2[i].termination = TERM_ADJ_MAX_PLIES;
        g2[i].result = 0;
    }
    write_store_as(tmp_path(t, "same.h5"), other, 3, g2, n2, -1, OPTIONS);
    md = report_md(tmp_path(t, "same.h5"), NULL, tmp_path(t, "out4"));
    assert_contains(md, "(more than half) ended by adjudication", "report");
    assert_contains(md, "are the same engine version (program, options, limits, weights and search settings) under "
                        "two names", "report");
    free(md);

    /* other rules: refused unless asked for */
    write_store_as(tmp_path(t, "capture.h5"), other, 3, g2, n2, 100,
                   "slide_over_own=no enpassant=combatant ending=capture");
    const char *rules[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "capture.h5")};
    assert_int_not_equal(report_write(rules, 2, NULL, tmp_path(t, "out3"), &err), TV_OK);
    assert_contains(err.msg, "was played under other rules", "error");
    assert_contains(err.msg, "--mix-rules", "error");
    ReportOptions mix = {.mix_rules = true};
    if (report_write_opts(rules, 2, NULL, tmp_path(t, "out3"), &mix, NULL, &err) != TV_OK)
        fail_msg("report with --mix-rules: %s", err.msg);
}

/* ---- what makes an engine version ------------------------------------------------------ */

/* A search setting, a program's command or its options make another
 * version: no "same engine version" note between them, and one name with
 * two of them in two stores is refused (it would be rated as one player). */
static void test_engine_versions(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    StoredEngine e[3];
    make_engines(e, 3, NAMES);
    for (int i = 0; i < 3; i++)
        e[i].weights[1] = 0; /* one set of weights */
    /* gamma: the same weights and limits, one search setting other than the default */
    const int k = SEARCH_NSETTINGS - 1;
    settings_text(e[2].settings, sizeof e[2].settings, k);
    write_store_engines(tmp_path(t, "settings.h5"), e, 3, games, n, INI, OPTIONS);
    char *md = report_md(tmp_path(t, "settings.h5"), NULL, tmp_path(t, "out1"));
    assert_contains(md, "Note: alpha and beta are the same engine version", "report");
    if (strstr(md, "and gamma are the same engine version"))
        fail_msg("gamma's search setting %s is not seen:\n%s", SEARCH_SETTING_INFO[k].name, md);
    free(md);

    /* two stores, 'gamma' with another search setting in the second: refused, naming it */
    make_engines(e, 3, NAMES);
    write_store_engines(tmp_path(t, "a.h5"), e, 3, games, n, INI, OPTIONS);
    settings_text(e[2].settings, sizeof e[2].settings, k);
    write_store_engines(tmp_path(t, "b.h5"), e, 3, games, n, INI, OPTIONS);
    char want[300];
    const SearchSettingInfo *si = &SEARCH_SETTING_INFO[k];
    snprintf(want, sizeof want, "engine 'gamma' has other search settings (%s=%d, there %s=%d) than in", si->name,
             si->def < si->hi ? si->def + 1 : si->def - 1, si->name, si->def);
    const char *ab[2] = {tmp_path(t, "a.h5"), tmp_path(t, "b.h5")};
    TvError err;
    if (report_write(ab, 2, NULL, tmp_path(t, "out2"), &err) == TV_OK)
        fail_msg("two versions of 'gamma' (search settings) rated as one player");
    assert_contains(err.msg, want, "error");
    /* nor are they merged into one store (the parts of a run must be one set of versions) */
    if (h5store_merge(tmp_path(t, "ab.h5"), ab, 2, INI, NULL, &err) == TV_OK)
        fail_msg("stores of two versions of 'gamma' (search settings) merged into one");
    assert_contains(err.msg, "hold different engine versions", "error");

    /* separate programs: the command and the option.NAME lines count */
    make_engines(e, 3, NAMES);
    for (int i = 0; i < 3; i++) {
        e[i].kind = 2;
        e[i].settings[0] = 0;
        memset(e[i].weights, 0, sizeof e[i].weights);
        snprintf(e[i].command, sizeof e[i].command, "/opt/%s --uci", NAMES[i]);
    }
    const char *ini16 = "[tournament]\nname = synth\npairs = 20\n[engine alpha]\ncommand = /opt/alpha --uci\n"
                        "option.Hash = 16\ndepth = 3\n[engine beta]\ncommand = /opt/beta --uci\ndepth = 3\n"
                        "[engine gamma]\ncommand = /opt/gamma --uci\ndepth = 3\n";
    const char *ini32 = "[tournament]\nname = synth\npairs = 20\n[engine alpha]\ncommand = /opt/alpha --uci\n"
                        "option.Hash = 32\ndepth = 3\n[engine beta]\ncommand = /opt/beta --uci\ndepth = 3\n"
                        "[engine gamma]\ncommand = /opt/gamma --uci\ndepth = 3\n";
    write_store_engines(tmp_path(t, "p16.h5"), e, 3, games, n, ini16, OPTIONS);
    write_store_engines(tmp_path(t, "p32.h5"), e, 3, games, n, ini32, OPTIONS);
    const char *opts[2] = {tmp_path(t, "p16.h5"), tmp_path(t, "p32.h5")};
    if (report_write(opts, 2, NULL, tmp_path(t, "out3"), &err) == TV_OK)
        fail_msg("two versions of 'alpha' (option.Hash) rated as one player");
    assert_contains(err.msg, "engine 'alpha' has other options (Hash=32, there Hash=16)", "error");
    snprintf(e[1].command, sizeof e[1].command, "/opt/beta2 --uci");
    write_store_engines(tmp_path(t, "beta2.h5"), e, 3, games, n, ini16, OPTIONS);
    const char *cmds[2] = {tmp_path(t, "p16.h5"), tmp_path(t, "beta2.h5")};
    if (report_write(cmds, 2, NULL, tmp_path(t, "out4"), &err) == TV_OK)
        fail_msg("two programs named 'beta' rated as one player");
    assert_contains(err.msg, "engine 'beta' has a different program (command '/opt/beta2 --uci', there '/opt/beta "
                             "--uci')", "error");
}

/* ---- the headline table and the referee's decisions ----------------------------------------- */

/* Cell k (0-based) of the Markdown table row that starts with "| first |"
 * in text, copied into buf (fails the test when there is none). */
static char *row_cell(const char *text, const char *first, int k, char *buf, size_t n)
{
    char head[96];
    snprintf(head, sizeof head, "\n| %s |", first);
    const char *r = strstr(text, head);
    if (!r)
        fail_msg("no row '%s' in:\n%s", first, text);
    r += 2; /* at "| first |" */
    for (int i = 0; i <= k; i++) {
        r = strchr(r + 1, '|');
        if (!r || r[1] == '\n')
            fail_msg("row '%s' has no cell %d", first, k);
    }
    const char *e = strchr(r + 1, '|');
    size_t len = (size_t)(e - r - 1);
    snprintf(buf, n, "%.*s", (int)len, r + 1);
    /* trim the padding spaces */
    char *b = buf;
    while (*b == ' ')
        memmove(b, b + 1, strlen(b));
    for (size_t m = strlen(b); m > 0 && b[m - 1] == ' '; m--)
        b[m - 1] = 0;
    return buf;
}

/* The synthetic round robin with every game gamma lost to beta lost on
 * time: the report counts each engine's referee losses, notes gamma's (above
 * REFEREE_NOTE_SHARE), and heads with every engine against the baseline. */
static void test_referee_and_baseline(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    long forfeits = 0;
    for (int i = 0; i < n; i++) {
        StoredGame *g = &games[i];
        int gamma_white = g->white == 2, beta_there = g->white == 1 || g->black == 1;
        if (beta_there && (g->white == 2 || g->black == 2) && g->result == (gamma_white ? -1 : 1)) {
            g->termination = TERM_TIME_FORFEIT;
            forfeits++;
        }
    }
    assert_true(forfeits > 2);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    char *md = report_md(tmp_path(t, "rr.h5"), NULL, tmp_path(t, "out"));
    char c[64], want[300];

    /* each engine's referee losses, and the note */
    char *te = section(md, "How games ended");
    assert_string_equal(row_cell(te, "alpha", 2, c, sizeof c), "0"); /* cells: games, illegal_move, time_forfeit */
    assert_string_equal(row_cell(te, "beta", 2, c, sizeof c), "0");
    snprintf(want, sizeof want, "%ld", forfeits);
    assert_string_equal(row_cell(te, "gamma", 2, c, sizeof c), want);
    assert_string_equal(row_cell(te, "gamma", 0, c, sizeof c), "80");
    free(te);
    snprintf(want, sizeof want, "Note: gamma lost %ld of its 80 games (%.1f%%) by the referee's decision, not by "
                                "play: %ld by time_forfeit.", forfeits, 100.0 * forfeits / 80, forfeits);
    char *rt = section(md, "Ratings");
    assert_contains(rt, want, "ratings");
    assert_null(strstr(rt, "Note: alpha lost"));
    assert_null(strstr(rt, "Note: beta lost"));

    /* the headline: against the first engine */
    char *hd = section(md, "Differences against alpha");
    assert_contains(hd, "| engine | Elo difference | LOS | games | games against alpha |", "headline");
    assert_contains(hd, "\n| beta | -", "headline");
    assert_contains(hd, "\n| gamma | -", "headline");
    assert_null(strstr(hd, "\n| alpha |"));
    free(hd);
    free(md);

    /* --baseline beta: alpha ahead, gamma behind; LOS as in the matrix; games */
    const char *files[1] = {tmp_path(t, "rr.h5")};
    ReportOptions o = {.baseline = "beta"};
    TvError err;
    if (report_write_opts(files, 1, NULL, tmp_path(t, "beta"), &o, NULL, &err) != TV_OK)
        fail_msg("report --baseline beta: %s", err.msg);
    md = slurp(tmp_path(t, "beta/report.md"));
    assert_non_null(md);
    hd = section(md, "Differences against beta");
    char *los = section(md, "Likelihood of superiority");
    char m[64];
    assert_true(row_cell(hd, "alpha", 0, c, sizeof c)[0] == '+');
    assert_non_null(strstr(c, " ± "));
    assert_true(row_cell(hd, "gamma", 0, c, sizeof c)[0] == '-');
    assert_string_equal(row_cell(hd, "alpha", 1, c, sizeof c), row_cell(los, "alpha", 1, m, sizeof m));
    assert_string_equal(row_cell(hd, "alpha", 2, c, sizeof c), "80");
    assert_string_equal(row_cell(hd, "alpha", 3, c, sizeof c), "40");
    free(hd);
    free(los);
    free(rt);
    free(md);

    /* an unknown baseline */
    o.baseline = "delta";
    assert_int_not_equal(report_write_opts(files, 1, NULL, tmp_path(t, "delta"), &o, NULL, &err), TV_OK);
    assert_contains(err.msg, "--baseline delta: no engine of that name in the stores (engines: alpha, beta, gamma)",
                    "error");
}

/* ---- one way to write Elo ------------------------------------------------------------ */

/* Game i of a two-engine store: engine 0 White in even games; result from
 * White's view. */
static void two_engine_game(StoredGame *g, int64_t i, int result, int termination)
{
    memset(g, 0, sizeof *g);
    g->index = i;
    g->white = (int32_t)(i % 2);
    g->black = (int32_t)(1 - i % 2);
    g->opening = (int32_t)(i / 2);
    strcpy(g->start_tfen, "startpos");
    g->result = (int8_t)result;
    g->termination = (int8_t)termination;
    g->plies = 10;
    g->seed = (uint64_t)i;
    g->wall_time = 0.1;
}

/* An even match (W 3, D 2, L 3; pairs scoring 1, 1, 1.5, 0.5): every Elo
 * of the report is "0", written one way (not "-0", "+0" or "+0.0"). */
static void test_elo_format(void **state)
{
    Tmp *t = *state;
    /* alpha's results in games 0..7 (alpha is White in even games) */
    static const int alpha[8] = {1, -1, 1, -1, 1, 0, -1, 0};
    StoredGame g[8];
    for (int i = 0; i < 8; i++)
        two_engine_game(&g[i], i, i % 2 ? -alpha[i] : alpha[i], alpha[i] ? TERM_CHECKMATE : TERM_REPETITION);
    write_store(tmp_path(t, "even.h5"), NAMES, 2, g, 8);
    char *md = report_md(tmp_path(t, "even.h5"), NULL, tmp_path(t, "out"));
    char *pr = section(md, "Pairings");
    const char *row = strstr(pr, "| alpha vs beta | 8 | 3 | 2 | 3 |");
    if (!row)
        fail_msg("no pairing row:\n%s", pr);
    const char *elo = strstr(row, "| 0 ± "), *nelo = elo ? strstr(elo + 4, "| 0 ± ") : NULL;
    if (!elo || !nelo)
        fail_msg("Elo and nElo of an even match are not both \"0 ± X\":\n%s", row);
    free(pr);
    const char *bad[] = {"+0.0", "-0.0", "-0 ", "+0 ", "| -0 |", "| +0 |"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(md, bad[i]))
            fail_msg("the report writes a zero Elo as \"%s\":\n%s", bad[i], md);
    free(md);
}

/* ---- errors ------------------------------------------------------------------------ */

static void expect_error(const char *const *files, int n, const char *log, const char *out, const char *msg)
{
    TvError err;
    memset(&err, 0, sizeof err);
    if (report_write(files, n, log, out, &err) == TV_OK)
        fail_msg("report succeeded, expected \"%s\"", msg);
    assert_contains(err.msg, msg, "error message");
    struct stat st;
    char md[600];
    snprintf(md, sizeof md, "%s/report.md", out);
    assert_int_not_equal(stat(md, &st), 0); /* no report at all */
}

static void test_errors(void **state)
{
    Tmp *t = *state;
    StoredGame games[NGAMES];
    int n = select_games(games, NULL);
    write_store(tmp_path(t, "rr.h5"), NAMES, 3, games, n);
    const char *out = tmp_path(t, "out");

    /* Another schema version. */
    write_store(tmp_path(t, "v7.h5"), NAMES, 3, games, n);
    set_schema_version(tmp_path(t, "v7.h5"), 7);
    const char *f1[1] = {tmp_path(t, "v7.h5")};
    expect_error(f1, 1, NULL, out, "schema version 7, this program reads 1");

    /* No games (alone, or next to a good store). */
    write_store(tmp_path(t, "empty.h5"), NAMES, 3, NULL, 0);
    char want[600];
    snprintf(want, sizeof want, "%s: no games", tmp_path(t, "empty.h5"));
    const char *f2[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "empty.h5")};
    expect_error(f2 + 1, 1, NULL, out, want);
    expect_error(f2, 2, NULL, out, want);

    /* One engine version only: no plan pairs an engine with itself, so the
     * reader refuses such a store before the report sees it. */
    StoredGame solo[4];
    for (int i = 0; i < 4; i++) {
        synth_game(i, &solo[i]);
        solo[i].white = solo[i].black = 0;
    }
    write_store(tmp_path(t, "solo.h5"), NAMES, 1, solo, 4);
    const char *f3[1] = {tmp_path(t, "solo.h5")};
    expect_error(f3, 1, NULL, out, "engine 0 plays both colours");

    /* One name, two versions: refused, naming the weight that differs. */
    write_store_weight0(tmp_path(t, "other.h5"), NAMES, 3, games, n, 101);
    const char *f4[2] = {tmp_path(t, "rr.h5"), tmp_path(t, "other.h5")};
    expect_error(f4, 2, NULL, out, "engine 'alpha' has other weights (top_value[0] 101, there 100)");

    /* Not a store at all. */
    FILE *f = fopen(tmp_path(t, "text.h5"), "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    const char *f6[1] = {tmp_path(t, "text.h5")};
    expect_error(f6, 1, NULL, out, "not a tavreli store");

    /* An unwritable output directory (under a regular file: refused even for root). */
    const char *f7[1] = {tmp_path(t, "rr.h5")};
    expect_error(f7, 1, NULL, tmp_path(t, "text.h5/sub"), "cannot create the output directory");

    /* gnuplot missing. */
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "/usr/bin:/bin");
    assert_non_null(saved);
    setenv("PATH", tmp_path(t, "no-such-dir"), 1);
    TvError err;
    TvStatus st = report1(tmp_path(t, "rr.h5"), NULL, tmp_path(t, "nognuplot"), &err);
    setenv("PATH", saved, 1);
    free(saved);
    assert_int_not_equal(st, TV_OK);
    assert_contains(err.msg, "gnuplot", "error");
    assert_contains(err.msg, "install", "error");
    struct stat sb;
    assert_int_not_equal(stat(tmp_path(t, "nognuplot/report.md"), &sb), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_robin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split_same_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sprt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tuning_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_any_stores_together, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engine_versions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_elo_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_referee_and_baseline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
