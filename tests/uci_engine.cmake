# `tavreli uci` (core/uci_engine.c): every go answered, input read during a
# search, positions applied whole, long lines, a Hash out of memory.
tavreli_test(test_uci_engine fast test_uci_engine.c)
target_link_libraries(test_uci_engine PRIVATE Threads::Threads m)
