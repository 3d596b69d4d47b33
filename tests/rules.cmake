# One hand-made position per rule of docs/rules.md with its exact legal move list
# (data/rule_positions.txt), plus checkmate, stalemate and repetition cases.
tavreli_test(test_rules fast test_rules.c)
