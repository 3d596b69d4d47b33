# Stores crafted with the HDF5 C API (a missing column, an out-of-range
# value, a checkmate's result flipped, a huge extent, a game of another plan)
# against every command that reads a store: the reference answer or a clear
# refusal, never a crash, a hang or a wrong answer.  TAVRELI_CRAFTED_ALL=1
# runs every family (the default run takes one of each kind).
add_executable(test_crafted test_crafted.c run_files.c)
target_include_directories(test_crafted PRIVATE ${HDF5_INCLUDE_DIRS})
target_compile_definitions(test_crafted PRIVATE ${HDF5_DEFINITIONS})
target_link_libraries(test_crafted PRIVATE ${HDF5_C_LIBRARIES} m)
add_test(NAME test_crafted COMMAND test_crafted $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_crafted PROPERTIES LABELS fast TIMEOUT 900)
# The crafted stores it reads hit a leak inside libhdf5 (as test_reliability's).
set_tests_properties(test_crafted PROPERTIES
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan-hdf5.supp:print_suppressions=0")
