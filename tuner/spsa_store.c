/* spsa_store.c: the group /spsa of an SPSA store (spsa_run.h; the layout
 * is in docs/store.md).  Written after the games' store is closed (a store
 * open for SWMR writing takes no new dataset), rewritten whole each time:
 * it is small (a row per iteration) and follows from the games. */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "spsa_run.h"

static TvStatus h5_fail(TvError *err, const char *path, const char *what)
{
    return tv_fail(err, TV_ERR_IO, "%s: %s (the HDF5 library refused; is the disk full or the file damaged?)", path,
                   what);
}

static bool write_2d(hid_t g, const char *name, hid_t type, long rows, long cols, const void *data)
{
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
    hid_t space = H5Screate_simple(2, dims, NULL);
    if (space < 0)
        return false;
    hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = d >= 0 && (rows * cols == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    return ok;
}

static bool write_long_attr(hid_t g, const char *name, long v)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, name, H5T_NATIVE_LONG, space, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = a >= 0 && H5Awrite(a, H5T_NATIVE_LONG, &v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return ok;
}

TvStatus spsa_table_write(const char *path, const SpsaTable *t, TvError *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    TvStatus st = TV_OK;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file = H5I_INVALID_HID, g = H5I_INVALID_HID, str = H5I_INVALID_HID;
    if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0 ||
        (file = H5Fopen(path, H5F_ACC_RDWR, fapl)) < 0) {
        st = h5_fail(err, path, "cannot open the store to write its /spsa table");
        goto done;
    }
    if (H5Lexists(file, "spsa", H5P_DEFAULT) > 0 && H5Ldelete(file, "spsa", H5P_DEFAULT) < 0) {
        st = h5_fail(err, path, "cannot replace the /spsa table");
        goto done;
    }
    if ((g = H5Gcreate2(file, "spsa", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0 || (str = H5Tcopy(H5T_C_S1)) < 0 ||
        H5Tset_size(str, 64) < 0) {
        st = h5_fail(err, path, "cannot make the /spsa group");
        goto done;
    }
    const long P = t->nparams, K = t->done;
    bool ok = write_2d(g, "names", str, P, 1, t->names) && write_2d(g, "min", H5T_NATIVE_DOUBLE, P, 1, t->lo) &&
              write_2d(g, "max", H5T_NATIVE_DOUBLE, P, 1, t->hi) &&
              write_2d(g, "theta", H5T_NATIVE_DOUBLE, K + 1, P, t->theta) &&
              write_2d(g, "c", H5T_NATIVE_DOUBLE, K, P, t->c) && write_2d(g, "delta", H5T_NATIVE_INT8, K, P, t->delta) &&
              write_2d(g, "plus", H5T_NATIVE_DOUBLE, K, P, t->plus) &&
              write_2d(g, "minus", H5T_NATIVE_DOUBLE, K, P, t->minus) &&
              write_2d(g, "pairs", H5T_NATIVE_INT8, K, t->batch, t->pairs) &&
              write_long_attr(g, "iterations", t->iterations) && write_long_attr(g, "batch", t->batch);
    if (!ok)
        st = h5_fail(err, path, "cannot write the /spsa table");
done:
    if (str >= 0)
        H5Tclose(str);
    if (g >= 0)
        H5Gclose(g);
    if (file >= 0 && H5Fclose(file) < 0 && st == TV_OK)
        st = h5_fail(err, path, "cannot close the store");
    if (fapl >= 0)
        H5Pclose(fapl);
    return st;
}

/* Reads dataset name of g, which must be rows x cols of type, into a heap array. */
static void *read_2d(hid_t g, const char *name, hid_t type, size_t size, long rows, long cols, bool *ok)
{
    void *buf = calloc((size_t)(rows * cols > 0 ? rows * cols : 1), size);
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t dims[2] = {0, 0};
    bool good = buf && space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
                H5Sget_simple_extent_dims(space, dims, NULL) == 2 && dims[0] == (hsize_t)rows &&
                dims[1] == (hsize_t)cols &&
                (rows * cols == 0 || H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (space >= 0)
        H5Sclose(space);
    if (d >= 0)
        H5Dclose(d);
    if (!good) {
        free(buf);
        *ok = false;
        return NULL;
    }
    return buf;
}

static long dim0(hid_t g, const char *name)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    long n = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 && H5Sget_simple_extent_dims(space, dims, NULL) == 2
                 ? (long)dims[0]
                 : -1;
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(d);
    return n;
}

static bool read_long_attr(hid_t g, const char *name, long *v)
{
    hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    bool ok = a >= 0 && H5Aread(a, H5T_NATIVE_LONG, v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    return ok;
}

TvStatus spsa_table_read(const char *path, SpsaTable *t, bool *found, TvError *err)
{
    memset(t, 0, sizeof *t);
    *found = false;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return h5_fail(err, path, "cannot open the store");
    if (H5Lexists(file, "spsa", H5P_DEFAULT) <= 0) {
        H5Fclose(file);
        return TV_OK;
    }
    *found = true;
    hid_t g = H5Gopen2(file, "spsa", H5P_DEFAULT);
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 64);
    bool ok = g >= 0 && read_long_attr(g, "iterations", &t->iterations) && read_long_attr(g, "batch", &t->batch);
    long P = ok ? dim0(g, "names") : -1, K1 = ok ? dim0(g, "theta") : -1;
    ok = ok && P > 0 && P <= SPSA_MAX_PARAMS && K1 >= 1 && t->batch > 0;
    if (ok) {
        t->nparams = (int)P;
        t->done = K1 - 1;
        const long K = t->done;
        t->names = read_2d(g, "names", str, 64, P, 1, &ok);
        t->lo = read_2d(g, "min", H5T_NATIVE_DOUBLE, sizeof(double), P, 1, &ok);
        t->hi = read_2d(g, "max", H5T_NATIVE_DOUBLE, sizeof(double), P, 1, &ok);
        t->theta = read_2d(g, "theta", H5T_NATIVE_DOUBLE, sizeof(double), K + 1, P, &ok);
        t->c = read_2d(g, "c", H5T_NATIVE_DOUBLE, sizeof(double), K, P, &ok);
        t->delta = read_2d(g, "delta", H5T_NATIVE_INT8, 1, K, P, &ok);
        t->plus = read_2d(g, "plus", H5T_NATIVE_DOUBLE, sizeof(double), K, P, &ok);
        t->minus = read_2d(g, "minus", H5T_NATIVE_DOUBLE, sizeof(double), K, P, &ok);
        t->pairs = read_2d(g, "pairs", H5T_NATIVE_INT8, 1, K, t->batch, &ok);
    }
    H5Tclose(str);
    if (g >= 0)
        H5Gclose(g);
    H5Fclose(file);
    if (!ok) {
        spsa_table_free(t);
        return tv_fail(err, TV_ERR_PARSE,
                       "%s: the /spsa table is damaged (its datasets are missing or of the wrong shape; "
                       "docs/store.md); run 'tavreli spsa CONFIG --resume' to rewrite it",
                       path);
    }
    for (int p = 0; p < t->nparams; p++)
        t->names[p][63] = 0;
    return TV_OK;
}

void spsa_table_free(SpsaTable *t)
{
    free(t->names);
    free(t->lo);
    free(t->hi);
    free(t->theta);
    free(t->c);
    free(t->delta);
    free(t->plus);
    free(t->minus);
    free(t->pairs);
    memset(t, 0, sizeof *t);
}
