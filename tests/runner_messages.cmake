# What a run says it played and stored (issues 21 and 22): a crash between
# games, a write failure (a small tmpfs, skipped when none can be mounted), a
# failed engine start, referee terminations on the progress line, and the
# two-engine standings.  Uses fake_engine (tests/protocol.cmake).
add_test(NAME test_runner_messages COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_runner_messages.sh
  $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_runner_messages PROPERTIES LABELS fast)
