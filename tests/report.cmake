# Strength reports (report/): Markdown + HTML with gnuplot plots from
# synthetic stores; the error cases.  Needs gnuplot (Debian: gnuplot-nox).
foreach(t test_report test_report_engines)
  tavreli_test(${t} fast ${t}.c report_fixtures.c h5_fixtures.c)
  target_link_libraries(${t} PRIVATE tavreli_report tavreli_selfplay)
  # The tests rewrite an attribute with HDF5 directly (another schema
  # version, h5_fixtures.c).
  target_include_directories(${t} PRIVATE ${HDF5_INCLUDE_DIRS})
  target_link_libraries(${t} PRIVATE ${HDF5_C_LIBRARIES})
endforeach()
# report.html in a real browser (headless Chromium; skipped when it is not
# installed: .ci/setup --test installs it for CI).
add_test(NAME test_report_browser COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_report_browser.sh
         $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR})
set_tests_properties(test_report_browser PROPERTIES LABELS fast SKIP_RETURN_CODE 77)
