/* test_rules.c: one hand-made position per rule of docs/rules.md (sections 3 to 10
 * and the fine points of section 15), each with its exact list of legal moves
 * worked out by hand, read from data/rule_positions.txt.
 *
 * A case is a block of `key: value` lines starting with `rule:`; lines
 * starting with '#' are comments.  Keys:
 *   rule:    name of the case (required, starts a new case)
 *   options: variant options as rule_options_parse reads them (default: defaults)
 *   tfen:    the position (required)
 *   play:    moves replayed from the position with replay_movetext (strict);
 *            the checks below then apply to the position reached
 *   moves:   every legal move, space separated, as move_to_str writes them
 *            without suffix; may be repeated (the lists are joined); an
 *            empty `moves:` means no legal move
 *   state:   ongoing, checkmate, stalemate, repetition or wizard_captured
 *            (without play: movegen_state of the position)
 *   check:   yes or no: whether the side to move is in check
 *   final:   the first four TFEN fields of the position reached
 * Each case is one cmocka test; a failing move list prints the missing and
 * the extra moves. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "record.h"
#include "tfen.h"

#define MAX_CASES 200

typedef struct {
    int line;          /* line of the `rule:` line */
    char *rule;
    char *options;
    char *tfen;
    char *play;
    char *moves;       /* joined `moves:` lines, NULL when none given */
    char *state;
    char *check;
    char *final;
} Case;

static Case cases[MAX_CASES];
static int ncases;

static char *xstrdup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(d, s, n + 1);
    return d;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static char *append(char *old, const char *more)
{
    if (!old)
        return xstrdup(more);
    size_t a = strlen(old), b = strlen(more);
    char *d = realloc(old, a + b + 2);
    if (!d) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    d[a] = ' ';
    memcpy(d + a + 1, more, b + 1);
    return d;
}

/* Reads the data file into cases[]; returns 0 or prints an error and
 * returns -1. */
static int load_cases(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    static char line[8192];
    int lineno = 0;
    Case *c = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *colon = strchr(s, ':');
        if (!colon) {
            fprintf(stderr, "%s:%d: expected `key: value`\n", path, lineno);
            fclose(f);
            return -1;
        }
        *colon = '\0';
        char *key = trim(s);
        char *val = trim(colon + 1);
        if (strcmp(key, "rule") == 0) {
            if (ncases == MAX_CASES) {
                fprintf(stderr, "%s:%d: too many cases\n", path, lineno);
                fclose(f);
                return -1;
            }
            c = &cases[ncases++];
            memset(c, 0, sizeof *c);
            c->line = lineno;
            c->rule = xstrdup(val);
            continue;
        }
        if (!c) {
            fprintf(stderr, "%s:%d: `%s:` before the first `rule:`\n", path, lineno, key);
            fclose(f);
            return -1;
        }
        char **slot = NULL;
        if (strcmp(key, "options") == 0)
            slot = &c->options;
        else if (strcmp(key, "tfen") == 0)
            slot = &c->tfen;
        else if (strcmp(key, "play") == 0)
            slot = &c->play;
        else if (strcmp(key, "state") == 0)
            slot = &c->state;
        else if (strcmp(key, "check") == 0)
            slot = &c->check;
        else if (strcmp(key, "final") == 0)
            slot = &c->final;
        else if (strcmp(key, "moves") == 0) {
            c->moves = append(c->moves, val);
            continue;
        } else {
            fprintf(stderr, "%s:%d: unknown key `%s`\n", path, lineno, key);
            fclose(f);
            return -1;
        }
        if (*slot) {
            fprintf(stderr, "%s:%d: `%s:` given twice\n", path, lineno, key);
            fclose(f);
            return -1;
        }
        *slot = xstrdup(val);
    }
    fclose(f);
    for (int i = 0; i < ncases; i++) {
        if (!cases[i].tfen) {
            fprintf(stderr, "%s:%d: case `%s` has no tfen\n", path, cases[i].line, cases[i].rule);
            return -1;
        }
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Splits s (modified) at spaces into words; returns the count. */
static int split_words(char *s, char **words, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(s, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n < max)
            words[n] = w;
        n++;
    }
    return n;
}

static bool state_from_name(const char *name, GameState *out)
{
    static const struct {
        const char *name;
        GameState state;
    } names[] = {
        {"ongoing", TV_STATE_ONGOING},       {"checkmate", TV_STATE_CHECKMATE},
        {"stalemate", TV_STATE_STALEMATE},   {"repetition", TV_STATE_REPETITION},
        {"wizard_captured", TV_STATE_WIZARD_CAPTURED},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].state;
            return true;
        }
    }
    return false;
}

static const char *state_to_name(GameState s)
{
    switch (s) {
    case TV_STATE_ONGOING: return "ongoing";
    case TV_STATE_CHECKMATE: return "checkmate";
    case TV_STATE_STALEMATE: return "stalemate";
    case TV_STATE_REPETITION: return "repetition";
    case TV_STATE_WIZARD_CAPTURED: return "wizard_captured";
    }
    return "?";
}

/* Compares the generated and the expected lists (both sorted); prints the
 * differences; returns the number of differences. */
static int compare_lists(const Case *c, char **got, int ngot, char **want, int nwant)
{
    int diffs = 0;
    /* Duplicates in the generated list: one (from, k, to) must be one move. */
    for (int i = 1; i < ngot; i++) {
        if (strcmp(got[i - 1], got[i]) == 0) {
            print_error("  [%s] generated twice: %s\n", c->rule, got[i]);
            diffs++;
        }
    }
    for (int i = 1; i < nwant; i++) {
        if (strcmp(want[i - 1], want[i]) == 0) {
            print_error("  [%s] data file lists twice: %s\n", c->rule, want[i]);
            diffs++;
        }
    }
    int i = 0, j = 0;
    char missing[8192] = "", extra[8192] = "";
    int nmissing = 0, nextra = 0;
    while (i < ngot || j < nwant) {
        int r = i >= ngot ? 1 : j >= nwant ? -1 : strcmp(got[i], want[j]);
        if (r == 0) {
            i++;
            j++;
        } else if (r < 0) {
            if (strlen(extra) + strlen(got[i]) + 2 < sizeof extra) {
                strcat(extra, " ");
                strcat(extra, got[i]);
            }
            nextra++;
            i++;
        } else {
            if (strlen(missing) + strlen(want[j]) + 2 < sizeof missing) {
                strcat(missing, " ");
                strcat(missing, want[j]);
            }
            nmissing++;
            j++;
        }
    }
    if (nmissing || nextra) {
        print_error("  [%s] (line %d) tfen %s\n", c->rule, c->line, c->tfen);
        print_error("  generated %d moves, expected %d\n", ngot, nwant);
        if (nmissing)
            print_error("  missing (expected, not generated) %d:%s\n", nmissing, missing);
        if (nextra)
            print_error("  extra (generated, not expected) %d:%s\n", nextra, extra);
    }
    return diffs + nmissing + nextra;
}

static void run_case(void **state)
{
    const Case *c = *state;
    Options o;
    TvError err;
    tv_error_clear(&err);
    memset(&o, 0, sizeof o);
    if (c->options && rule_options_parse(c->options, &o, &err) != TV_OK) {
        print_error("  [%s] options '%s': %s\n", c->rule, c->options, err.msg);
        fail();
    }
    static Position start, pos;
    if (tfen_read(c->tfen, &start, &err) != TV_OK) {
        print_error("  [%s] tfen '%s': %s\n", c->rule, c->tfen, err.msg);
        fail();
    }
    GameState st;
    if (c->play) {
        static ReplayResult res;
        memset(&res, 0, sizeof res);
        if (replay_movetext(&start, &o, c->play, TV_PARSE_STRICT, &res, &err) != TV_OK) {
            print_error("  [%s] play '%s': %s\n", c->rule, c->play, err.msg);
            replay_result_free(&res);
            fail();
        }
        pos = res.final;
        st = res.state;
        replay_result_free(&res);
    } else {
        pos = start;
        st = movegen_state(&pos, &o);
    }

    int failures = 0;
    if (c->state) {
        GameState want = TV_STATE_ONGOING;
        if (!state_from_name(c->state, &want)) {
            print_error("  [%s] unknown state '%s'\n", c->rule, c->state);
            fail();
        }
        if (want != st) {
            print_error("  [%s] state: expected %s, got %s\n", c->rule, c->state, state_to_name(st));
            failures++;
        }
    }
    if (c->check) {
        bool want = strcmp(c->check, "yes") == 0;
        if (!want && strcmp(c->check, "no") != 0) {
            print_error("  [%s] check must be yes or no\n", c->rule);
            fail();
        }
        bool got = pos_in_check(&pos, &o);
        if (got != want) {
            print_error("  [%s] check: expected %s, got %s\n", c->rule, c->check, got ? "yes" : "no");
            failures++;
        }
    }
    if (c->final) {
        char buf[TV_TFEN_MAX];
        tfen_write(&pos, buf, sizeof buf);
        /* Compare the first four fields only (the counters are not rules). */
        char *p = buf;
        for (int spaces = 0; *p; p++) {
            if (*p == ' ' && ++spaces == 4) {
                *p = '\0';
                break;
            }
        }
        if (strcmp(buf, c->final) != 0) {
            print_error("  [%s] final position:\n    expected %s\n    got      %s\n", c->rule, c->final,
                        buf);
            failures++;
        }
    }
    if (c->moves) {
        static MoveList list;
        movegen_legal(&pos, &o, &list);
        char **got = malloc(sizeof(char *) * (size_t)(list.count + 1));
        char *gotbuf = malloc((size_t)(list.count + 1) * TV_MOVE_STR_MAX);
        assert_non_null(got);
        assert_non_null(gotbuf);
        for (int i = 0; i < list.count; i++) {
            got[i] = gotbuf + (size_t)i * TV_MOVE_STR_MAX;
            move_to_str(&pos, &o, list.moves[i], false, got[i], TV_MOVE_STR_MAX);
        }
        qsort(got, (size_t)list.count, sizeof(char *), cmp_str);

        char *copy = xstrdup(c->moves);
        int nwant = split_words(copy, NULL, 0);
        char **want = malloc(sizeof(char *) * (size_t)(nwant + 1));
        assert_non_null(want);
        free(copy);
        copy = xstrdup(c->moves);
        split_words(copy, want, nwant);
        qsort(want, (size_t)nwant, sizeof(char *), cmp_str);

        failures += compare_lists(c, got, list.count, want, nwant);
        free(copy);
        free(want);
        free(gotbuf);
        free(got);
    }
    if (failures)
        fail_msg("case '%s' (line %d): %d difference(s)", c->rule, c->line, failures);
}

int main(void)
{
    const char *path = TAVRELI_TEST_DATA "/rule_positions.txt";
    if (load_cases(path) != 0)
        return 1;
    if (ncases <= 0) {
        fprintf(stderr, "%s: no cases\n", path);
        return 1;
    }
    size_t n = (size_t)ncases;
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (!tests)
        return 1;
    for (int i = 0; i < ncases; i++) {
        tests[i].name = cases[i].rule;
        tests[i].test_func = run_case;
        tests[i].initial_state = &cases[i];
    }
    int rc = _cmocka_run_group_tests("rule_positions", tests, n, NULL, NULL);
    free(tests);
    return rc;
}
