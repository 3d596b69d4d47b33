# Weight fitting (tuner/tune*.c): synthetic recovery and 95% interval coverage,
# gradient against finite differences, monotone loss, reproducibility,
# eval == trace . weights for the stored feature vectors, errors.
tavreli_test(test_tune fast test_tune.c)
target_link_libraries(test_tune PRIVATE tavreli_tuner tavreli_omp_wait OpenMP::OpenMP_C)
