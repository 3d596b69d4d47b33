# The one table of engine options (core/option.h), the boolean spellings
# and the rule options; option.NAME on in-process engines, end to end.
tavreli_test(test_option fast test_option.c)
target_link_libraries(test_option PRIVATE Threads::Threads m)
add_test(NAME test_option_tournament COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_option_tournament.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_option_tournament PROPERTIES LABELS fast)
