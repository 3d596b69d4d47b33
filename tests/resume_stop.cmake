# A resume that a signal stops while it reads and checks a big store
# (tests/test_resume_stop.sh; the store is made by make_resume_store from one
# real game); two runs on one store (the run lock); a store creation killed
# before its link.
add_executable(make_resume_store make_resume_store.c)
target_link_libraries(make_resume_store PRIVATE tavreli_selfplay)
add_test(NAME test_resume_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_resume_stop.sh $<TARGET_FILE:tavreli>
  $<TARGET_FILE:make_resume_store> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_resume_stop PROPERTIES LABELS fast TIMEOUT 600)
