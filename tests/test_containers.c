/* test_containers.c: the one growable array (core/grow.h) and the one hash
 * set (core/idset.h) that the runner, the tuner's data and log readers share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "grow.h"
#include "idset.h"
#include "rng.h"

/* Elements written one at a time survive every doubling. */
static void test_grow_keeps_elements(void **state)
{
    (void)state;
    int64_t *a = NULL, cap = 0;
    for (int64_t i = 0; i < 10000; i++) {
        assert_true(tv_grow((void **)&a, &cap, i + 1, sizeof *a));
        assert_true(cap >= i + 1);
        a[i] = i * 7;
    }
    for (int64_t i = 0; i < 10000; i++)
        assert_int_equal(a[i], i * 7);
    int64_t before = cap;
    assert_true(tv_grow((void **)&a, &cap, 5, sizeof *a)); /* room already: nothing moves */
    assert_int_equal(cap, before);
    free(a);
}

/* A size that cannot be allocated is refused, and the array is left as it was. */
static void test_grow_refuses_overflow(void **state)
{
    (void)state;
    char *a = NULL;
    int64_t cap = 0;
    assert_true(tv_grow((void **)&a, &cap, 3, 1));
    a[0] = 'x';
    assert_false(tv_grow((void **)&a, &cap, INT64_MAX, SIZE_MAX / 2));
    assert_int_equal(cap, 64);
    assert_int_equal(a[0], 'x');
    free(a);
}

/* Keys 0 and 1 are two keys (a set that stores 0 as 1 merges them). */
static void test_idset_zero_and_one(void **state)
{
    (void)state;
    TvIdSet s = {0};
    assert_false(tv_idset_has(&s, 0));
    assert_int_equal(tv_idset_add(&s, 0), 1);
    assert_int_equal(tv_idset_add(&s, 1), 1);
    assert_int_equal(tv_idset_add(&s, 0), 0);
    assert_int_equal(tv_idset_add(&s, 1), 0);
    assert_true(tv_idset_has(&s, 0) && tv_idset_has(&s, 1));
    assert_int_equal(s.n, 2);
    tv_idset_free(&s);
    assert_int_equal(s.n, 0);
}

/* Many keys through several growths: each added once, all found, none invented. */
static void test_idset_many(void **state)
{
    (void)state;
    TvIdSet s = {0};
    uint64_t rng = 2026;
    enum { N = 50000 };
    uint64_t *keys = malloc(sizeof *keys * N);
    assert_non_null(keys);
    for (int i = 0; i < N; i++) {
        keys[i] = i < 100 ? (uint64_t)i : tv_rng_next(&rng); /* small consecutive ids too */
        assert_int_equal(tv_idset_add(&s, keys[i]), 1);
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(tv_idset_add(&s, keys[i]), 0);
    assert_int_equal(s.n, N);
    for (uint64_t k = 100; k < 1100; k++)
        assert_false(tv_idset_has(&s, k));
    free(keys);
    tv_idset_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_keeps_elements),
        cmocka_unit_test(test_grow_refuses_overflow),
        cmocka_unit_test(test_idset_zero_and_one),
        cmocka_unit_test(test_idset_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
