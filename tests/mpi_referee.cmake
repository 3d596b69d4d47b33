# Separate programs on 2 MPI ranks (tests/test_mpi_referee.sh): the referee's
# terminations of every rank counted by rank 0, and a program that cannot
# start leaving no part or store.  Only in a build with -DTAVRELI_MPI=ON
# (label mpi, as tests/mpi.cmake); uses fake_engine (tests/protocol.cmake).
if(TAVRELI_MPI)
  add_test(NAME test_mpi_referee COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_referee.sh
           $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_mpi_referee PROPERTIES LABELS mpi TIMEOUT 300)
endif()
