/* fuzz_checks.h: the checks that the libFuzzer target (fuzz_readers.c) and
 * the ordinary regression test (test_fuzz_regress.c) apply to one input. */
#ifndef TAVRELI_FUZZ_CHECKS_H
#define TAVRELI_FUZZ_CHECKS_H

#include <stddef.h>
#include <stdint.h>

/* Feeds the bytes (as a NUL-terminated copy) to tfen_read and, on a few
 * fixed positions, to move_parse in strict and lenient mode.  When tfen_read
 * succeeds the position must be sound (pos_is_ok), tfen_write must round-trip,
 * and every legal move must make and unmake cleanly.  When move_parse
 * succeeds the move must be legal and its written form must read back the
 * same.  Errors must carry the documented status and a message.
 * Returns 0 when every check holds; otherwise writes the first violation
 * into why and returns 1.  Never crashes on any input (that is what the
 * fuzzer checks). */
int fuzz_check_input(const uint8_t *data, size_t size, char *why, size_t why_len);

#endif
