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
 * libgomp reads its environment in its own initialiser, before main(), so
 * the variable is set from the executable's .preinit_array, which the
 * dynamic loader runs before the initialisers of any shared library.  A
 * setting the user made (OMP_WAIT_POLICY or GOMP_SPINCOUNT in the
 * environment) is left alone.  This file is linked into the executables
 * themselves (CMake's object library tavreli_omp_wait), never into a
 * library: a .preinit_array has effect only in an executable. */
#include <stdlib.h>

static void omp_wait_passive(void)
{
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
        setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
}

__attribute__((section(".preinit_array"), used)) static void (*const omp_wait_entry)(void) = omp_wait_passive;
