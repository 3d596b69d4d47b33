# One game between players (selfplay/match.c): rules before adjudication,
# resignation, the ply limit, abandoning.
tavreli_test(test_match fast test_match.c)
target_link_libraries(test_match PRIVATE tavreli_selfplay)
