# TFEN, move notation and game records (docs/rules.md sections 11-13, 15).
tavreli_test(test_tfen fast test_tfen.c data_lines.c)
tavreli_test(test_notation fast test_notation.c data_lines.c)
tavreli_test(test_records fast test_records.c)
