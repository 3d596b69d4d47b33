# tavreli match: a tournament given as cutechess-cli and fastchess take one
# (cli/cli_match.c): each flag family, resume, refusals.
add_test(NAME test_match_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_match_cli.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_match_cli PROPERTIES LABELS fast)
