# Damaged stores (a bad row, a duplicated index, a torn tail, flipped bits,
# truncation) against every command that reads a store: correct games or a
# clear refusal, never a crash, a hang or a wrong answer.
add_executable(test_reliability test_reliability.c run_files.c)
target_include_directories(test_reliability PRIVATE ${HDF5_INCLUDE_DIRS})
target_compile_definitions(test_reliability PRIVATE ${HDF5_DEFINITIONS})
target_link_libraries(test_reliability PRIVATE ${HDF5_C_LIBRARIES})
add_test(NAME test_reliability COMMAND test_reliability $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_reliability PROPERTIES LABELS fast TIMEOUT 900)
# The damaged stores it reads hit a leak inside libhdf5 (see the file).
set_tests_properties(test_reliability PROPERTIES
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan-hdf5.supp:print_suppressions=0")
