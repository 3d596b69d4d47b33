# Sourced by the tests that start Open MPI (tests/test_mpi*.sh,
# test_slurm.sh, test_spsa_run.sh, test_openings.sh): mpi_test_env SRC_DIR
# [--leaks] exports what every one of them needs.
#  - No shared-memory single copy: containers refuse the cross-memory
#    attach it uses.
#  - Under AddressSanitizer, leaks.  Open MPI keeps memory from MPI_Init to
#    exit, and unloads its plugins (dlclose) before LeakSanitizer looks:
#    a suppression (tests/lsan-mpi.supp) then matches its allocation
#    stacks only when every allocation takes a full stack (slow
#    unwinding), which doubled a rank's CPU time (a 2-rank run of the
#    test tournament: 8.4-9.0 CPU s with the leak check, 3.9-4.3 without,
#    2 Dec 2026), most of the sanitized MPI tests' cost.  So the ranks
#    (and only they: Open MPI's mca_base_env_list reaches every rank
#    mpirun starts, the batch script's too) run with AddressSanitizer's
#    and UndefinedBehaviorSanitizer's checks but no leak check, and the
#    leaks of the MPI code paths are checked by one test,
#    tests/test_mpi_leaks.sh, with mpi_test_env SRC_DIR --leaks: full
#    stacks and the suppressions, on the runs that use them (a run to its
#    end, a stop and its resume, SPSA on 2 ranks, engines as separate
#    programs under the ranks).  Everything a test starts outside mpirun
#    keeps the leak check.  A preload that kept the plugins loaded, with
#    the fast unwinder, made rank exits fail now and then (two CI runs of
#    test_slurm, 2 Dec 2026): not used.
# Outside the sanitized build these settings change nothing that is tested.
mpi_test_env() {
  local src=$1
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  if [ "${2:-}" = --leaks ]; then
    export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:fast_unwind_on_malloc=0"
    unset OMPI_MCA_mca_base_env_list
  else
    export OMPI_MCA_mca_base_env_list="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  fi
}
