# tavreli compare: a throwaway git repository's commits built once each into a
# cache, played and reported with both commits and bench signatures; a dirty
# working tree, a revision that is not a commit, a failed build and wrong
# bench signatures refused (tests/test_compare.sh).
add_test(NAME test_compare COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.sh
         $<TARGET_FILE:tavreli> $<TARGET_FILE:fake_engine> ${PROJECT_SOURCE_DIR}/cmake/tavreli_tree.cmake)
set_tests_properties(test_compare PROPERTIES LABELS fast)
