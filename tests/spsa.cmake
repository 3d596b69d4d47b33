# SPSA (tuner/spsa*.c, issue 24): the file reader's refusals, the gain
# schedule, the perturbation, the step and the values set on the players.
tavreli_test(test_spsa fast test_spsa.c)
target_link_libraries(test_spsa PRIVATE tavreli_tuner tavreli_omp_wait OpenMP::OpenMP_C m)
# tavreli spsa end to end (tests/test_spsa_run.sh): the planted optimum of
# fake_engine found from the range's edge, the same trajectory on 1 and 2
# threads; kill -9 at 3 moments and --resume give the uninterrupted run;
# bad files and engines refused with FILE:LINE.
if(TAVRELI_MPI)
  set(TAVRELI_SPSA_MPI ON)
else()
  set(TAVRELI_SPSA_MPI OFF)
endif()
foreach(part planted resume refuse)
  add_test(NAME test_spsa_${part} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_spsa_run.sh ${part}
    $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR} ${TAVRELI_SPSA_MPI})
  set_tests_properties(test_spsa_${part} PROPERTIES LABELS fast TIMEOUT 300)
endforeach()
# The planted run on 2 MPI ranks against one process (an MPI build only).
if(TAVRELI_MPI)
  add_test(NAME test_spsa_mpi COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_spsa_run.sh mpi
    $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR} ON)
  set_tests_properties(test_spsa_mpi PROPERTIES LABELS mpi TIMEOUT 600)
endif()
