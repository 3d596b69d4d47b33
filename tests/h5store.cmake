# The HDF5 store of a tournament: round trip, refusals, crash safety (kill -9).
tavreli_test(test_h5store fast test_h5store.c h5_fixtures.c)
target_link_libraries(test_h5store PRIVATE tavreli_selfplay)
# The test also opens stores with HDF5 directly (to check attributes and to
# make wrong files).
target_include_directories(test_h5store PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(test_h5store PRIVATE ${HDF5_C_LIBRARIES})
# The damaged stores it reads hit a leak inside libhdf5 (see the file).
set_tests_properties(test_h5store PROPERTIES
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan-hdf5.supp:print_suppressions=0")
