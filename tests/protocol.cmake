# Engines as separate programs (docs/protocol.md): a misbehaving engine for
# the tests, and the tests of tournaments that play separate programs.
add_executable(fake_engine fake_engine.c)
target_link_libraries(fake_engine PRIVATE tavreli_core)
add_test(NAME test_protocol COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_protocol.sh $<TARGET_FILE:tavreli>
  $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_protocol PROPERTIES LABELS fast)
