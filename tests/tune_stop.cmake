# A signal during `tavreli tune` (the data load, the fit) is obeyed within a
# second as an interruption that writes nothing (tests/test_tune_stop.sh).
add_test(NAME test_tune_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_tune_stop.sh $<TARGET_FILE:tavreli>
  $<TARGET_FILE:make_resume_store> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_tune_stop PROPERTIES LABELS fast TIMEOUT 600)
