/* test_cli_help.c: every command's --help text and its parser agree.
 *
 *  - every flag a command's parser accepts is named in its --help text
 *    ("--name" as a whole word);
 *  - every flag named in the synopsis (the usage lines at the top of the
 *    help, up to the first blank line) is one the parser accepts;
 *  - `--flag=value` and `--flag value` both parse, and a value outside a
 *    flag's range is refused with the range in the message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

/* True when text holds "--name" not followed by another name character. */
static bool names_flag(const char *text, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; p + n + 2 <= text + len; p++) {
        if (p[0] != '-' || p[1] != '-' || strncmp(p + 2, name, n) != 0)
            continue;
        if (p > text && (p[-1] == '-' || (p[-1] >= 'a' && p[-1] <= 'z')))
            continue;
        char after = p + 2 + n < text + len ? p[2 + n] : ' ';
        if (!((after >= 'a' && after <= 'z') || after == '-' || (after >= '0' && after <= '9')))
            return true;
    }
    return false;
}

static void test_every_flag_in_help(void **state)
{
    (void)state;
    int n;
    const CliCommand *const *cmds = cli_commands(&n);
    assert_true(n >= 18);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const CliCommand *c = cmds[i];
        if (!c->flags) /* a dispatcher ("bench"): its benchmarks are checked themselves */
            continue;
        for (const CliFlag *f = c->flags; f->name; f++)
            if (!names_flag(c->help, strlen(c->help), f->name)) {
                print_error("'tavreli %s --help' does not mention --%s, which it accepts\n", c->name, f->name);
                bad++;
            }
    }
    assert_int_equal(bad, 0);
}

/* Every command's --help ends with one or two examples (issue 36). */
static void test_every_help_has_an_example(void **state)
{
    (void)state;
    int n, bad = 0;
    const CliCommand *const *cmds = cli_commands(&n);
    for (int i = 0; i < n; i++)
        if (!strstr(cmds[i]->help, "\nExample")) {
            print_error("'tavreli %s --help' gives no example\n", cmds[i]->name);
            bad++;
        }
    assert_int_equal(bad, 0);
}

static void test_synopsis_flags_accepted(void **state)
{
    (void)state;
    int n;
    const CliCommand *const *cmds = cli_commands(&n);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const CliCommand *c = cmds[i];
        if (!c->flags)
            continue;
        const char *end = strstr(c->help, "\n\n");
        size_t len = end ? (size_t)(end - c->help) : strlen(c->help);
        for (const char *p = c->help; p < c->help + len; p++) {
            if (p[0] != '-' || p[1] != '-' || (p > c->help && p[-1] != ' ' && p[-1] != '[' && p[-1] != '|'))
                continue;
            char word[64];
            size_t k = 0;
            for (const char *q = p + 2; q < c->help + len && k < sizeof word - 1 &&
                                        ((*q >= 'a' && *q <= 'z') || *q == '-' || (*q >= '0' && *q <= '9'));
                 q++)
                word[k++] = *q;
            word[k] = 0;
            bool known = !strcmp(word, "help");
            for (const CliFlag *f = c->flags; f->name && !known; f++)
                known = !strcmp(f->name, word);
            if (!known) {
                print_error("'tavreli %s --help' shows --%s in its synopsis, which its parser refuses\n", c->name,
                            word);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

typedef struct {
    long depth;
    const char *out;
    bool quiet;
    double ratio;
} ToyArgs;

static const CliFlag TOY_FLAGS[] = {
    {"depth", 0, CLI_LONG, offsetof(ToyArgs, depth), 1, 48},
    {"out", 'o', CLI_STRING, offsetof(ToyArgs, out), 0, 0},
    {"quiet", 0, CLI_BOOL, offsetof(ToyArgs, quiet), 0, 0},
    {"ratio", 0, CLI_DOUBLE, offsetof(ToyArgs, ratio), 0, 1},
    {NULL, 0, 0, 0, 0, 0},
};

static const CliCommand TOY = {"toy", "usage: tavreli toy [--depth N] [-o|--out F] [--quiet] [--ratio R] X...\n",
                               TOY_FLAGS, NULL};

static CliParse parse(const char *const *words, int nwords, ToyArgs *a, char **pos, int *npos)
{
    char *argv[16];
    argv[0] = "toy";
    for (int i = 0; i < nwords; i++)
        argv[i + 1] = (char *)words[i];
    memset(a, 0, sizeof *a);
    return cli_parse(&TOY, nwords + 1, argv, a, pos, npos);
}

static void test_parse_forms(void **state)
{
    (void)state;
    ToyArgs a;
    char *pos[16];
    int npos;
    const char *w1[] = {"--depth=3", "a", "-o", "f.h5", "--quiet", "b", "--ratio", "0.5", "-", "c"};
    assert_int_equal(parse(w1, 10, &a, pos, &npos), CLI_PARSED);
    assert_int_equal(a.depth, 3);
    assert_string_equal(a.out, "f.h5");
    assert_true(a.quiet);
    assert_true(a.ratio == 0.5);
    assert_int_equal(npos, 4); /* positional arguments in order, "-" among them (a TFEN field) */
    assert_string_equal(pos[0], "a");
    assert_string_equal(pos[1], "b");
    assert_string_equal(pos[2], "-");
    assert_string_equal(pos[3], "c");
    const char *w2[] = {"--depth", "7", "--out=x", "--", "--quiet"};
    assert_int_equal(parse(w2, 5, &a, pos, &npos), CLI_PARSED);
    assert_int_equal(a.depth, 7);
    assert_string_equal(a.out, "x");
    assert_false(a.quiet);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "--quiet");
}

static void test_parse_refusals(void **state)
{
    (void)state;
    ToyArgs a;
    char *pos[16];
    int npos;
    const char *bad[][2] = {{"--depth", "0"},    {"--depth", "49"},    {"--depth", "3x"}, {"--ratio", "nan"},
                            {"--ratio", "1.5"},  {"--nosuch", "1"},    {"--depth=", "a"}, {"--quiet=yes", "a"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], 2, &a, pos, &npos), CLI_PARSE_ERROR);
    const char *missing[] = {"--out"};
    assert_int_equal(parse(missing, 1, &a, pos, &npos), CLI_PARSE_ERROR);
    const char *stray[] = {"x"};
    char *argv[] = {"toy", "x"};
    assert_int_equal(cli_parse(&TOY, 2, argv, &a, NULL, NULL), CLI_PARSE_ERROR); /* no positional allowed */
    (void)stray;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_flag_in_help),
        cmocka_unit_test(test_every_help_has_an_example),
        cmocka_unit_test(test_synopsis_flags_accepted),
        cmocka_unit_test(test_parse_forms),
        cmocka_unit_test(test_parse_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
