# The player seam (selfplay/player.c): the built-in engine, `tavreli uci` as
# a separate program and a random mover behind one interface; the two stop
# flags the search and the wait for a program poll.
tavreli_test(test_player fast test_player.c)
target_link_libraries(test_player PRIVATE tavreli_selfplay Threads::Threads)
target_compile_definitions(test_player PRIVATE TAVRELI_EXE="$<TARGET_FILE:tavreli>")
add_dependencies(test_player tavreli)
