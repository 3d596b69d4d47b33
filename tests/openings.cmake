# Openings files shorter than the plan: cycle, order, start, end to end.
add_test(NAME test_openings COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_openings.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_openings PROPERTIES LABELS fast)
