/* test_fuzz_regress.c: replays every file of data/fuzz_crashes/ (inputs that
 * once crashed or failed fuzz_readers) and of data/fuzz_corpus/ (the seed
 * corpus) through the same checks as the libFuzzer target, as an ordinary
 * test.  Files whose name starts with "README" are skipped. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz_checks.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Replays every regular file of dir; returns the number of files, -1 when
 * the directory cannot be opened.  Failures are counted in *bad. */
static int replay_dir(const char *dir, int *bad)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
            continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 64;
            char **nw = realloc(names, cap * sizeof *names);
            assert_non_null(nw);
            names = nw;
        }
        names[nn] = malloc(strlen(e->d_name) + 1);
        assert_non_null(names[nn]);
        strcpy(names[nn], e->d_name);
        nn++;
    }
    closedir(d);
    if (nn)
        qsort(names, nn, sizeof *names, cmp_str);
    int count = 0;
    for (size_t i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        FILE *f = fopen(path, "rb");
        if (!f) {
            print_error("cannot open %s\n", path);
            (*bad)++;
            continue;
        }
        size_t size = (size_t)sb.st_size;
        uint8_t *buf = malloc(size ? size : 1);
        assert_non_null(buf);
        size_t got = fread(buf, 1, size, f);
        fclose(f);
        char why[1024];
        if (fuzz_check_input(buf, got, why, sizeof why) != 0) {
            print_error("%s: %s\n", path, why);
            (*bad)++;
        }
        free(buf);
        count++;
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return count;
}

static void test_replay_crashes(void **state)
{
    (void)state;
    int bad = 0;
    int n = replay_dir(TAVRELI_TEST_DATA "/fuzz_crashes", &bad);
    assert_true(n >= 0);
    print_message("replayed %d crash inputs\n", n);
    assert_int_equal(bad, 0);
}

static void test_replay_corpus(void **state)
{
    (void)state;
    int bad = 0;
    int n = replay_dir(TAVRELI_TEST_DATA "/fuzz_corpus", &bad);
    assert_true(n > 0);
    print_message("replayed %d corpus inputs\n", n);
    assert_int_equal(bad, 0);
}

/* A few hand-made hostile inputs, so the checks run even on an empty
 * directory. */
static void test_hostile_inputs(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "",
        " ",
        "(",
        "()",
        "((((((((",
        "8/8/8/8/8/8/8/8",
        "8/8/8/8/8/8/8/8 w - -",
        "rnbqkbnr/prpnpbpqphpbpnpr/8/8/8/8/PRPNPBPQPHPBPNPR/RNBQKBNR w KQkq - 0 1 extra",
        "(KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK)7/8/8/8/8/8/8/8 w - - 0 1",
        "(PRPRPRPRPRPRPRPRPRPRPRPRPRPRPRPRPRPRPR)7/8/8/8/8/8/8/k6K w - - 0 1",
        "99999999/8/8/8/8/8/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - -2147483648 99999999999999999999",
        "e2-e4",
        "e2(1)-e4",
        "e2(99999999999)-e4",
        "e2(0)-e4",
        "d4(2)-e3",
        "0-0-0-0",
        "O-O",
        "e1-g1+#x!!??",
        ("\xd1\x81" "1-d2"),
        "E2 E4",
        "h1(",
    };
    char why[1024];
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        if (fuzz_check_input((const uint8_t *)inputs[i], strlen(inputs[i]), why, sizeof why) != 0)
            fail_msg("input %zu '%s': %s", i, inputs[i], why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_crashes),
        cmocka_unit_test(test_replay_corpus),
        cmocka_unit_test(test_hostile_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
