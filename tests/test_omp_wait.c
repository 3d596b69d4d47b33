/* test_omp_wait.c: the environment libgomp reads at start has
 * OMP_WAIT_POLICY=PASSIVE (selfplay/omp_wait.c), and a setting of the user
 * is left alone.
 *
 * Each case runs this program again (its own executable, linked with
 * tavreli_omp_wait like tavreli) with a given environment and "--child
 * MARK" as its arguments; the child opens an OpenMP region and prints, at
 * main(), its process id, its MARK argument and what getenv sees of
 * OMP_WAIT_POLICY and GOMP_SPINCOUNT, the variables libgomp read before
 * main().  The parent checks that line: the child is the process it forked
 * (the entry executes the program again in the same process), its
 * arguments arrived whole, and the policy is as the case says. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <omp.h>

static char self[4096];

/* runs the child with ENV; its output line into LINE */
static void run_child(char *const env[], char *line, size_t size)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char *argv[] = {self, "--child", "mark with spaces", NULL};
        execve(self, argv, env);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    assert_non_null(in);
    if (!fgets(line, (int)size, in))
        line[0] = '\0';
    fclose(in);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    line[strcspn(line, "\n")] = '\0';
    char want[64];
    snprintf(want, sizeof want, "pid %ld mark 'mark with spaces' ", (long)pid);
    if (strncmp(line, want, strlen(want)))
        fail_msg("child said '%s', expected it to begin '%s'", line, want);
}

static const char *policy_of(const char *line)
{
    const char *p = strstr(line, "policy ");
    return p ? p + 7 : "";
}

static void test_unset_becomes_passive(void **state)
{
    (void)state;
    char line[512];
    char *env[] = {"TAVRELI_OMP_WAIT_TEST=1", NULL};
    run_child(env, line, sizeof line);
    assert_string_equal(policy_of(line), "PASSIVE spincount (unset)");
}

static void test_empty_environment(void **state)
{
    (void)state;
    char line[512];
    char *env[] = {NULL};
    run_child(env, line, sizeof line);
    assert_string_equal(policy_of(line), "PASSIVE spincount (unset)");
}

static void test_user_policy_kept(void **state)
{
    (void)state;
    char line[512];
    char *env[] = {"OMP_WAIT_POLICY=ACTIVE", NULL};
    run_child(env, line, sizeof line);
    assert_string_equal(policy_of(line), "ACTIVE spincount (unset)");
}

static void test_user_spincount_kept(void **state)
{
    (void)state;
    char line[512];
    char *env[] = {"GOMP_SPINCOUNT=1000", NULL};
    run_child(env, line, sizeof line);
    assert_string_equal(policy_of(line), "(unset) spincount 1000");
}

static int child(const char *mark)
{
    int threads = 0;
#pragma omp parallel
    {
#pragma omp atomic
        threads++;
    }
    const char *p = getenv("OMP_WAIT_POLICY"), *s = getenv("GOMP_SPINCOUNT");
    printf("pid %ld mark '%s' threads %s policy %s spincount %s\n", (long)getpid(), mark,
           threads > 0 ? "ran" : "none", p ? p : "(unset)", s ? s : "(unset)");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return child(argv[2]);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "test_omp_wait: cannot read /proc/self/exe\n");
        return 1;
    }
    self[n] = '\0';
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unset_becomes_passive),
        cmocka_unit_test(test_empty_environment),
        cmocka_unit_test(test_user_policy_kept),
        cmocka_unit_test(test_user_spincount_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
