# test_mpi_leaks: the sanitized MPI build's leak settings for the tests
# that start Open MPI (tests/mpi_env.sh) still report a leak of ours.
if(TAVRELI_MPI AND TAVRELI_SANITIZE)
  add_executable(mpi_leak_probe mpi_leak_probe.c)
  target_link_libraries(mpi_leak_probe PRIVATE MPI::MPI_C)
  add_test(NAME test_mpi_leaks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_leaks.sh
           $<TARGET_FILE:mpi_leak_probe> ${PROJECT_SOURCE_DIR} $<TARGET_FILE:tavreli>)
  set_tests_properties(test_mpi_leaks PROPERTIES LABELS mpi TIMEOUT 300)
endif()
