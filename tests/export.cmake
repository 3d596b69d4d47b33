# Export (digests and TGN of a store) and the strength check, both library
# modules of selfplay/.
tavreli_test(test_export fast test_export.c)
target_link_libraries(test_export PRIVATE tavreli_selfplay)
