# The search and engine versions (test_engine); the evaluation and the
# generators the search builds on (test_eval).  Both walk the positions of
# tests/engine_fixtures.c.
tavreli_test(test_engine fast test_engine.c engine_fixtures.c data_lines.c)
target_link_libraries(test_engine PRIVATE OpenMP::OpenMP_C Threads::Threads m)
target_compile_definitions(test_engine PRIVATE TAVRELI_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
tavreli_test(test_eval fast test_eval.c engine_fixtures.c)
target_link_libraries(test_eval PRIVATE m)

# The search signature: `tavreli bench search` at depth 4 must give this node
# count. It changes only when the search or the evaluation change on purpose;
# then update the number here (and say so in the commit).
add_test(NAME test_bench_signature
  COMMAND sh -c "$<TARGET_FILE:tavreli> bench search --depth 4 | grep -qx 'nodes ${TAVRELI_BENCH_SIGNATURE}'")
set_tests_properties(test_bench_signature PROPERTIES LABELS fast)
