# The one growable array and the one hash set of core/ (grow.h, idset.h).
tavreli_test(test_containers fast test_containers.c)
