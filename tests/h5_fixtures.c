/* h5_fixtures.c: see h5_fixtures.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <hdf5.h>

#include "h5_fixtures.h"

void set_schema_version(const char *path, int v)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t a = H5Aopen_by_name(f, "/", "schema_version", H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    int32_t x = v;
    assert_true(H5Awrite(a, H5T_NATIVE_INT32, &x) >= 0);
    H5Aclose(a);
    H5Fclose(f);
}
