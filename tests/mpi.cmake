# Distributed self-play: only in a build with -DTAVRELI_MPI=ON (.ci/test-all
# runs the MPI tests in its sanitized MPI build, build-sanitize); the test also
# checks that a build without MPI (TAVRELI_PLAIN_BINARY, when given) refuses
# to run as several ranks.
if(TAVRELI_MPI)
  set(TAVRELI_PLAIN_BINARY "" CACHE FILEPATH "A tavreli built without MPI, for test_mpi's refusal check")
  add_test(NAME test_mpi COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi.sh $<TARGET_FILE:tavreli>
           ${PROJECT_SOURCE_DIR} ${TAVRELI_PLAIN_BINARY})
  set_tests_properties(test_mpi PROPERTIES LABELS mpi TIMEOUT 600)
endif()
# The Slurm batch script without Slurm (tests/test_slurm.sh): --check in
# every build; the stop during the final merge, the requeue, scancel and
# root need the MPI build.  Its timeout: the sanitizer MPI build took 4 min
# 20 s alone at load average 5-14 on 2 cores, and ran past 10 min with two
# more test suites beside it.
# The stores its runs are checked against are played by the build without
# MPI (TAVRELI_PLAIN_BINARY, when given), as test_mpi's references.
add_test(NAME test_slurm COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_slurm.sh $<TARGET_FILE:tavreli>
         ${PROJECT_SOURCE_DIR} ${TAVRELI_PLAIN_BINARY})
if(TAVRELI_MPI)
  set_tests_properties(test_slurm PROPERTIES LABELS mpi TIMEOUT 1200)
else()
  set_tests_properties(test_slurm PROPERTIES LABELS fast)
endif()
# The batch script on a real Slurm of two nodes (tests/test_slurm_nodes.sh):
# a slurmctld and two slurmd with their own host names, a private munged;
# scancel, requeue and a rank killed with kill -9, each against the
# one-process digest.  Skipped (77) without root, Slurm or munge (.ci/setup
# --test installs them).  About 1 minute sanitized at load average 14.
if(TAVRELI_MPI)
  add_test(NAME test_slurm_nodes COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_slurm_nodes.sh $<TARGET_FILE:tavreli>
           ${PROJECT_SOURCE_DIR} ${TAVRELI_PLAIN_BINARY})
  set_tests_properties(test_slurm_nodes PROPERTIES LABELS mpi TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()
