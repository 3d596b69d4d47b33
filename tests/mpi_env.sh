# Sourced by the tests that start Open MPI (tests/test_mpi*.sh,
# test_slurm.sh, test_spsa_run.sh, test_openings.sh): mpi_test_env SRC_DIR
# exports what every one of them needs.
#  - No shared-memory single copy: containers refuse the cross-memory
#    attach it uses.
#  - Under AddressSanitizer, Open MPI keeps memory from MPI_Init to exit:
#    tests/lsan-mpi.supp names its libraries.  A suppression matches a
#    leak through the modules on its allocation stack, and Open MPI unloads
#    its plugins (dlclose) at MPI_Finalize, before LeakSanitizer looks: the
#    plugins' frames then belong to no module, and the default fast
#    unwinder's stacks matched no suppression (53 false reports a rank).
#    The sanitized MPI build therefore gives the MPI tests
#    TAVRELI_KEEP_PLUGINS, a library (tests/keep_mpi_plugins.c) preloaded
#    into every process that makes dlclose keep the module loaded, and the
#    fast unwinder finds the suppressions again.  Without it (a script run
#    by hand) the slow unwinder's full stacks are used, as before: 9.8 s of
#    CPU against 2.6 s for one 2-rank run of t.ini (2 Dec 2026).
#    tests/test_mpi_leaks.sh shows that a leak of ours is still reported.
# Outside the sanitized build these settings change nothing that is tested.
mpi_test_env() {
  local src=$1
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  export LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  if [ -n "${TAVRELI_KEEP_PLUGINS:-}" ]; then
    # the preload comes before AddressSanitizer's runtime in the list of
    # libraries, which it would otherwise refuse
    export LD_PRELOAD="$TAVRELI_KEEP_PLUGINS${LD_PRELOAD:+:$LD_PRELOAD}"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
  else
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
  fi
}
