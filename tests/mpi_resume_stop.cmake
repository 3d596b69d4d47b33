# A signal while rank 0 of an MPI resume reads the store ends as an
# interruption, as in one process (tests/test_mpi_resume_stop.sh); only in a
# build with -DTAVRELI_MPI=ON (.ci/test-all builds make_resume_store there).
if(TAVRELI_MPI)
  add_test(NAME test_mpi_resume_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_resume_stop.sh
           $<TARGET_FILE:tavreli> $<TARGET_FILE:make_resume_store> ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_mpi_resume_stop PROPERTIES LABELS mpi TIMEOUT 600)
endif()
