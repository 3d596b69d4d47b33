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

void set_row_member(const char *path, const char *dataset, int64_t row, const char *member, int64_t value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t ds = H5Dopen2(f, dataset, H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
    assert_true(t >= 0 && H5Tinsert(t, member, 0, H5T_NATIVE_INT64) >= 0);
    hid_t fs = H5Dget_space(ds);
    hsize_t at = (hsize_t)row, one = 1;
    assert_true(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &one, NULL) >= 0);
    hid_t ms = H5Screate_simple(1, &one, NULL);
    assert_true(H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, &value) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(t);
    H5Dclose(ds);
    H5Fclose(f);
}
