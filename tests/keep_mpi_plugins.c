/* A test-only preload for the sanitized MPI build (see tests/mpi_env.sh):
 * dlclose keeps every module loaded, so that LeakSanitizer, which looks at
 * exit, still finds Open MPI's plugins on the stacks of the memory they
 * keep, and tests/lsan-mpi.supp matches them with the fast unwinder. */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
