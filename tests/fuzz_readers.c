/* fuzz_readers.c: libFuzzer target for the TFEN and move readers.  Built only
 * with -DTAVRELI_FUZZ=ON and clang (see tests/fuzz.cmake).  Run, e.g.:
 *   mkdir -p /tmp/fuzz-corpus
 *   ./tests/fuzz_readers -dict=<src>/tests/data/fuzz_tavreli.dict \
 *       -max_total_time=600 /tmp/fuzz-corpus <src>/tests/data/fuzz_corpus
 * A crash or a violated check writes crash-<sha1>; copy it into
 * tests/data/fuzz_crashes/ so that test_fuzz_regress replays it. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1024];
    if (fuzz_check_input(data, size, why, sizeof why) != 0) {
        fprintf(stderr, "fuzz_readers: check failed: %s\n", why);
        abort();
    }
    return 0;
}
