# tavreli train end to end: bad configs, a small run, kill -9 and rerun
# gives the same outcomes and games, the ladder report.
add_test(NAME test_train COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_train.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_train PROPERTIES LABELS fast)
