# What tavreli writes and where (tests/test_outputs.sh): closed fds 0-2, a
# closed or full stdout, two runs creating one store, the tuner's INI read
# back, the [train] INI's refusals, a signal during the openings, escaped
# file names; and (test_outputs_fulldisk) outputs on a full tmpfs, skipped
# when the test cannot mount one.
add_test(NAME test_outputs COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_outputs.sh $<TARGET_FILE:tavreli>
  ${PROJECT_SOURCE_DIR})
set_tests_properties(test_outputs PROPERTIES LABELS fast TIMEOUT 300)
add_test(NAME test_outputs_fulldisk COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_outputs.sh $<TARGET_FILE:tavreli>
  ${PROJECT_SOURCE_DIR} fulldisk)
set_tests_properties(test_outputs_fulldisk PROPERTIES LABELS fast TIMEOUT 300 SKIP_RETURN_CODE 77)
