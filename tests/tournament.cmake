# Tournament INI files and the plan of their games.
tavreli_test(test_tournament fast test_tournament.c)
target_link_libraries(test_tournament PRIVATE tavreli_selfplay)
target_compile_definitions(test_tournament PRIVATE TAVRELI_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
