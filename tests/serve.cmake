# `tavreli serve` (serve/): its pages in headless Chromium while a tournament
# plays (screenshots kept in the build's test-artifacts/serve/), and what it
# refuses and survives.  Debian's python3 with h5py (.ci/setup --test); the
# browser test is skipped without Chromium.
set(TAVRELI_TEST_PYTHON /usr/bin/python3)
add_test(NAME test_serve_browser COMMAND ${TAVRELI_TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_serve_browser.py
         $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/test-artifacts/serve)
set_tests_properties(test_serve_browser PROPERTIES LABELS fast SKIP_RETURN_CODE 77)
if(TAVRELI_SANITIZE)
  set(serve_sanitized --sanitized)
endif()
add_test(NAME test_serve_refusals COMMAND ${TAVRELI_TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_serve_refusals.py
         $<TARGET_FILE:tavreli> ${PROJECT_SOURCE_DIR} ${serve_sanitized})
set_tests_properties(test_serve_refusals PROPERTIES LABELS fast)
