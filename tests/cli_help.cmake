# Every command's --help names exactly the flags its parser accepts, and the
# parser's forms (--flag value, --flag=value) and refusals.
tavreli_test(test_cli_help fast test_cli_help.c)
target_link_libraries(test_cli_help PRIVATE tavreli_cli)
