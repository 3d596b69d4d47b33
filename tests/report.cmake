# Strength reports (tuner/report*.c): Markdown + HTML with gnuplot plots from
# synthetic stores; the error cases.  Needs gnuplot (Debian: gnuplot-nox).
tavreli_test(test_report fast test_report.c h5_fixtures.c)
target_link_libraries(test_report PRIVATE tavreli_tuner tavreli_selfplay)
# The test rewrites an attribute with HDF5 directly (another schema version,
# h5_fixtures.c).
target_include_directories(test_report PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(test_report PRIVATE ${HDF5_C_LIBRARIES})
