# Self-play end to end: threads, kill -9 and --resume, refusals.
add_test(NAME test_selfplay COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_selfplay.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_selfplay PROPERTIES LABELS fast)
