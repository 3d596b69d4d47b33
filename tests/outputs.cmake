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
# The writers and their readers as library calls (tests/test_output_files.c):
# atomic files, the store's no-replace publish, wrapped engine INI comments,
# escaped engine names in a TGN export, report.md's HTML escaping.
tavreli_test(test_output_files fast test_output_files.c)
target_link_libraries(test_output_files PRIVATE tavreli_report tavreli_selfplay)
