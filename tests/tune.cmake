# Weight fitting (tuner/tune*.c): synthetic recovery and 95% interval coverage,
# gradient against finite differences, monotone loss, reproducibility,
# eval == trace . weights for the stored feature vectors, errors.
tavreli_test(test_tune fast test_tune.c)
target_link_libraries(test_tune PRIVATE tavreli_tuner tavreli_omp_wait OpenMP::OpenMP_C)
# The tuner's error bars on real self-play (300 games played by the test):
# game-clustered errors against the bootstrap over games, and recovery of
# known weights from results drawn per game.
tavreli_test(test_tune_selfplay fast test_tune_selfplay.c)
target_link_libraries(test_tune_selfplay PRIVATE tavreli_tuner tavreli_omp_wait OpenMP::OpenMP_C)
