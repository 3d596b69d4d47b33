# A report of a tournament with a separate program on a clock says what was
# played: the build, each engine's command, options and time control, games
# lost on time, the table against --baseline (report/report*.c).
add_test(NAME test_report_played COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_report_played.sh
         $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_report_played PROPERTIES LABELS fast)
