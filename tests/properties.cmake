# Property tests (random legal walks, the independent simple move generator)
# and the replay of fuzzer findings.  Owned by the property-test part of the suite.
tavreli_test(test_properties fast test_properties.c simple_movegen.c)
tavreli_test(test_fuzz_regress fast test_fuzz_regress.c fuzz_checks.c)
