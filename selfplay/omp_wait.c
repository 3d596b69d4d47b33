/* omp_wait.c: OpenMP threads that wait sleep instead of spinning.
 *
 * libgomp lets a thread that waits (at the barrier that ends a parallel
 * region, or for the next region) spin for up to 300,000 rounds before it
 * sleeps.  On a machine whose cores are busy with other work, a spinning
 * thread takes the core the thread it waits for needs: a 2-thread fit took
 * 13.4 s where 1 thread took 0.75 s.  The tuner and the runner open many
 * short parallel regions, so waiting threads should sleep at once
 * (OMP_WAIT_POLICY=PASSIVE; results do not depend on it, only time does).
 *
 * libgomp reads its environment once, in its own initialiser, before
 * main().  A setenv() cannot reach it: the executable's .preinit_array runs
 * before the shared libraries' initialisers, but also before libc's, which
 * then sets the environment back to the one the kernel passed (a setenv()
 * there was lost, and libgomp spun: test_tune_selfplay took 40.6 s of CPU
 * against 17.9 s with the variable in the environment, load average 13,
 * 1 Dec 2026).  So the entry below, when neither OMP_WAIT_POLICY nor
 * GOMP_SPINCOUNT is set (a setting the user made is left alone), executes
 * the program again (/proc/self/exe, the same arguments, the same process)
 * with OMP_WAIT_POLICY=PASSIVE added to its environment, before any
 * library has started; if that is not possible it goes on as it is.  It
 * allocates nothing (libc is not initialised yet).  tests/test_omp_wait.c
 * checks that the variable is there at main().  This file is linked into
 * the executables themselves (CMake's object library tavreli_omp_wait),
 * never into a library: a .preinit_array has effect only in an
 * executable. */
#include <string.h>
#include <unistd.h>

static const char passive[] = "OMP_WAIT_POLICY=PASSIVE";

/* environment entries beyond this many: left as they are (the copy is on
 * the stack) */
enum { OMP_WAIT_MAX_ENV = 8192 };

static void omp_wait_passive(int argc, char **argv, char **envp)
{
    (void)argc;
    if (!argv || !envp)
        return; /* a libc that passes nothing to .preinit_array */
    size_t n = 0;
    for (; envp[n]; n++)
        if (!strncmp(envp[n], "OMP_WAIT_POLICY=", 16) || !strncmp(envp[n], "GOMP_SPINCOUNT=", 15))
            return;
        /* under valgrind (its preloads): the new program would run outside
         * the tool (it follows no exec by default), so a profile or a
         * memcheck run would see nothing */
        else if (!strncmp(envp[n], "LD_PRELOAD=", 11) && strstr(envp[n], "vgpreload"))
            return;
    if (n >= OMP_WAIT_MAX_ENV)
        return;
    char *env[n + 2];
    memcpy(env, envp, n * sizeof *env);
    env[n] = (char *)passive;
    env[n + 1] = NULL;
    execve("/proc/self/exe", argv, env);
    /* no /proc: threads spin as libgomp's default has them */
}

__attribute__((section(".preinit_array"), used)) static void (*const omp_wait_entry)(int, char **,
                                                                                     char **) = omp_wait_passive;
