# The engine protocol: the codec of its lines (docs/protocol.md).
tavreli_test(test_uci fast test_uci.c)
