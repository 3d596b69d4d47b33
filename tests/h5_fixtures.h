/* h5_fixtures.h: changing a closed store with HDF5 directly, behind the
 * store's own writer (for the refusals of test_h5store and test_report). */
#ifndef TAVRELI_TEST_H5_FIXTURES_H
#define TAVRELI_TEST_H5_FIXTURES_H

#include <stdint.h>

/* Sets the schema_version attribute of the closed store at path to v. */
void set_schema_version(const char *path, int v);

/* Sets member `member` (an integer member) of row `row` of /`dataset` of
 * the closed store at path to value, as a damaged or hand-edited store. */
void set_row_member(const char *path, const char *dataset, int64_t row, const char *member, int64_t value);

#endif
