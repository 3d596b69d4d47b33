# Openings files shorter than the plan: cycle, order, start, end to end.
add_test(NAME test_openings COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_openings.sh $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_openings PROPERTIES LABELS fast)
if(TAVRELI_MPI) # the same, and order = random on 2 ranks (.ci/test-all runs `ctest -L mpi` in its MPI build)
  add_test(NAME test_openings_mpi COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_openings.sh $<TARGET_FILE:tavreli>
           ${PROJECT_SOURCE_DIR} --mpi)
  set_tests_properties(test_openings_mpi PROPERTIES LABELS mpi TIMEOUT 600)
endif()
