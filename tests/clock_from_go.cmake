# The referee's clock counts from `go` (tests/test_clock_from_go.sh): a
# separate program slow to answer `isready` is not forfeited on time.
add_test(NAME test_clock_from_go COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_clock_from_go.sh
         $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_clock_from_go PROPERTIES LABELS fast)
