# `tavreli train`: one run at a time on a folder (the run lock of
# DIR/train.ini and of each store), and a SIGTERM during the tune phase
# obeyed within a second, the phase done again by the next run
# (tests/test_train_stop.sh; the big store is made by make_resume_store).
add_test(NAME test_train_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_train_stop.sh $<TARGET_FILE:tavreli>
  $<TARGET_FILE:make_resume_store> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_train_stop PROPERTIES LABELS fast TIMEOUT 600)
