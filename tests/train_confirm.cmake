# tavreli train's confirmation stage and ladder: the ladder holds a direct
# match's result, the method is named, --confirm resumes exactly.
add_test(NAME test_train_confirm COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_train_confirm.sh $<TARGET_FILE:tavreli>)
set_tests_properties(test_train_confirm PROPERTIES LABELS fast)
