# Fixed weights (tune --fixed, [train] fixed): bad names refused (train with
# file and line), a training run passes them to its tune.
add_test(NAME test_tune_fixed COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_tune_fixed.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_tune_fixed PROPERTIES LABELS fast)
