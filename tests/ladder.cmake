# The training ladder's construction (tuner/train.c, train_rung_confirmed):
# a confirmed generation's rung is its direct result against gen-0.
tavreli_test(test_ladder fast test_ladder.c)
target_link_libraries(test_ladder PRIVATE tavreli_tuner)
