/* run_files.h: what the store tests that run the tavreli command share
 * (tests/test_reliability.c, tests/test_crafted.c): a command run with its
 * outputs in files and a hang killed, a whole file read, a file copied. */
#ifndef TAVRELI_TEST_RUN_FILES_H
#define TAVRELI_TEST_RUN_FILES_H

/* Runs argv with stdout into `out` and stderr into `err`; returns the exit
 * status, 128 + signal, or -1 for a hang (killed after `limit` seconds). */
int run_files(char *const *argv, const char *out, const char *err, int limit);

/* The whole file as a string (calloc'ed; "" when it cannot be read). */
char *slurp_file(const char *path);

/* Copies a file byte for byte (nothing when it cannot be read). */
void copy_file(const char *from, const char *to);

#endif
