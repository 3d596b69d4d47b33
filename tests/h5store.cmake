# The HDF5 store of a tournament: round trip, refusals, merge, schema
# versions (test_h5store); crash safety (kill -9), a live writer, damaged
# rows and files (test_h5store_crash).  Both play the generated stores of
# tests/h5store_gen.c.
foreach(t test_h5store test_h5store_crash)
  tavreli_test(${t} fast ${t}.c h5store_gen.c h5_fixtures.c)
  target_link_libraries(${t} PRIVATE tavreli_selfplay)
  # The tests also open stores with HDF5 directly (to check attributes and
  # to make wrong files).
  target_include_directories(${t} PRIVATE ${HDF5_INCLUDE_DIRS})
  target_link_libraries(${t} PRIVATE ${HDF5_C_LIBRARIES})
  # ... and write a damaged chunk (test_h5store's test_damaged_chunk)
  target_link_libraries(${t} PRIVATE PkgConfig::LIBDEFLATE)
  # The damaged stores they read hit a leak inside libhdf5 (see
  # test_h5store_crash.c).
  set_tests_properties(${t} PROPERTIES
    ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan-hdf5.supp:print_suppressions=0")
endforeach()
