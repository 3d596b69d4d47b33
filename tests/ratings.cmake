# Ratings (BayesElo by maximum likelihood, tuner/ratings.c), pairing
# statistics and the SPRT (selfplay/stats.c).
tavreli_test(test_ratings fast test_ratings.c)
target_link_libraries(test_ratings PRIVATE tavreli_tuner)
