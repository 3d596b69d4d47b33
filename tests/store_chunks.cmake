# The store's own chunk decoder against H5Dread (selfplay/store_chunks.c):
# the written layout, other layouts made with h5repack, a damaged chunk.
tavreli_test(test_store_chunks fast test_store_chunks.c h5store_gen.c)
target_link_libraries(test_store_chunks PRIVATE tavreli_selfplay)
# It calls the store's internal readers (store_internal.h) and HDF5 itself.
target_include_directories(test_store_chunks PRIVATE ${PROJECT_SOURCE_DIR}/selfplay ${HDF5_INCLUDE_DIRS})
target_link_libraries(test_store_chunks PRIVATE ${HDF5_C_LIBRARIES})
# A damaged chunk hits the leak inside libhdf5 of test_h5store_crash.c.
set_tests_properties(test_store_chunks PROPERTIES
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan-hdf5.supp:print_suppressions=0")
