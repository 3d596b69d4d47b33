# Which engine played (selfplay/engine_id.c): a separate program whose
# engine INI, executable or id name changed between two stores is two
# players in the report; a resume refuses it; a program restarted mid-run as
# another program ends the run; bench signatures are recorded and compared.
add_test(NAME test_engine_id COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_engine_id.sh
         $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_engine_id PROPERTIES LABELS fast)
