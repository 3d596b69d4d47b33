# The doc-test (tests/test_docs.sh, conventions in docs/testing.md): the
# quick command blocks of README.md and docs/*.md run as written against this
# build; long and illustrative blocks are checked without being run.
add_test(NAME test_docs COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_docs.sh $<TARGET_FILE:tavreli>
  ${PROJECT_SOURCE_DIR})
set_tests_properties(test_docs PROPERTIES LABELS fast TIMEOUT 600)
