# Ratings (BayesElo by maximum likelihood), pairing statistics and the SPRT.
tavreli_test(test_ratings fast test_ratings.c)
# tavreli_ratings holds tuner/ratings.c (tavreli_tuner links it too); linking
# it alone keeps this test independent of the report code.
target_link_libraries(test_ratings PRIVATE tavreli_ratings)
