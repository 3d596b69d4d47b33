# stats/: pairing statistics, the SPRT and the Elo formatter (stats/stats.c),
# ratings (BayesElo by maximum likelihood, stats/ratings.c).
tavreli_test(test_stats fast test_stats.c)
target_link_libraries(test_stats PRIVATE tavreli_stats)
