# SPSA (tuner/spsa*.c, issue 24): the file reader's refusals, the gain
# schedule, the perturbation, the step and the values set on the players.
tavreli_test(test_spsa fast test_spsa.c)
target_link_libraries(test_spsa PRIVATE tavreli_tuner tavreli_omp_wait OpenMP::OpenMP_C m)
