# Sourced by the tests that start Open MPI (tests/test_mpi*.sh,
# test_slurm.sh, test_spsa_run.sh, test_openings.sh): mpi_test_env SRC_DIR
# exports what every one of them needs.
#  - No shared-memory single copy: containers refuse the cross-memory
#    attach it uses.
#  - Under AddressSanitizer, Open MPI keeps memory from MPI_Init to exit:
#    tests/lsan-mpi.supp names its libraries.  A suppression matches a
#    leak through the modules on its allocation stack, and Open MPI unloads
#    its plugins (dlclose) at MPI_Finalize, before LeakSanitizer looks: the
#    default fast unwinder's stacks then matched no suppression (53 false
#    reports a rank), so every allocation takes a full stack (slow
#    unwinding).  A preload that kept the plugins loaded, with the fast
#    unwinder, cost a third less CPU but made rank exits fail now and then
#    (two CI runs of test_slurm, 2 Dec 2026): not used.
#    tests/test_mpi_leaks.sh shows that a leak of ours is still reported.
# Outside the sanitized build these settings change nothing that is tested.
mpi_test_env() {
  local src=$1
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
}
