# The sanitized MPI build's leak settings for the tests that start Open MPI
# (tests/mpi_env.sh): the preload that keeps its plugins loaded, given to
# those tests in tests/CMakeLists.txt, and test_mpi_leaks, which shows that
# a leak of ours is still reported with them.
if(TAVRELI_MPI AND TAVRELI_SANITIZE)
  add_library(keep_mpi_plugins SHARED keep_mpi_plugins.c)
  # not sanitized itself: it only replaces dlclose
  target_compile_options(keep_mpi_plugins PRIVATE -fno-sanitize=all)
  target_link_options(keep_mpi_plugins PRIVATE -fno-sanitize=all)
  add_executable(mpi_leak_probe mpi_leak_probe.c)
  target_link_libraries(mpi_leak_probe PRIVATE MPI::MPI_C)
  add_test(NAME test_mpi_leaks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_leaks.sh
           $<TARGET_FILE:mpi_leak_probe> ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_mpi_leaks PROPERTIES LABELS mpi TIMEOUT 300)
endif()
