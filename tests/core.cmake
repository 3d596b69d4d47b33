# Perft of the start position and of every rules_cases.tsv line; the command
# line checked end to end.
tavreli_test(test_perft fast test_perft.c)
add_test(NAME test_perft_depth4 COMMAND test_perft slow)
set_tests_properties(test_perft_depth4 PROPERTIES LABELS slow)

add_test(NAME test_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:tavreli> ${TAVRELI_TEST_DATA})
set_tests_properties(test_cli PROPERTIES LABELS fast)
