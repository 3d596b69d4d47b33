/* tests/test_mpi_leaks.sh: an MPI program under the sanitized MPI tests'
 * settings (tests/mpi_env.sh).  Without arguments it only starts and stops
 * MPI, and must report no leak (Open MPI's memory is suppressed); with
 * --leak it also loses memory of its own, which must be reported. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

void *volatile tv_probe_sink;

/* Not inlined: the report must name it. */
__attribute__((noinline)) static void planted_leak(void)
{
    char *p = malloc(4242);
    if (p)
        memset(p, 1, 4242);
    tv_probe_sink = p;
    tv_probe_sink = NULL; /* the only pointer is gone */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, sum = 0, one = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (argc > 1 && strcmp(argv[1], "--leak") == 0)
        planted_leak();
    MPI_Finalize();
    return sum > 0 ? 0 : 1;
}
