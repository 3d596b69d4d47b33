# The tuner's loading of stores (tune_load, parallel in chunks) against a
# plain sequential reading of the same store: the same set bit for bit.
tavreli_test(test_tune_load fast test_tune_load.c)
target_link_libraries(test_tune_load PRIVATE tavreli_tuner tavreli_omp_wait OpenMP::OpenMP_C)
