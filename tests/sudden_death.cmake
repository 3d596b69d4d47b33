# Sudden-death clocks: tournaments at tc = 0.3 and tc = 0.05 finish,
# in-process and over the protocol (core/search.c search_time_budget).
add_test(NAME test_sudden_death COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_sudden_death.sh $<TARGET_FILE:tavreli>
  ${PROJECT_SOURCE_DIR})
set_tests_properties(test_sudden_death PROPERTIES LABELS fast)
