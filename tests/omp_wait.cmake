# OpenMP threads that wait sleep (selfplay/omp_wait.c): the environment
# libgomp reads at start holds OMP_WAIT_POLICY=PASSIVE unless the user set
# it or GOMP_SPINCOUNT.
tavreli_test(test_omp_wait fast test_omp_wait.c)
target_link_libraries(test_omp_wait PRIVATE tavreli_omp_wait OpenMP::OpenMP_C)
