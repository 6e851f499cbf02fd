// SPDX-License-Identifier: MIT
/*
 * io_h5.c - thin HDF5 helpers: error capture from the HDF5 error stack, store types,
 * string attributes, property lists for MPI-IO, and 1-D dataset create/write/read.
 *
 * Collective where the file is opened with MPI-IO: dataset creation, attribute writes
 * and the range writes/reads are called by every rank with identical metadata
 * arguments (TOOLCHAIN.md section 5). Not thread-safe (HDF5 is not built thread-safe).
 */
#include <string.h>

#include <prism/core.h>

#include "io-internal.h"

typedef struct {
    GString *text;
    unsigned n;
} ErrWalk;

static herr_t walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    ErrWalk *w = data;
    /* The API call is entry 0; the innermost entries carry the cause (errno text). */
    if (err->desc != NULL && err->desc[0] != '\0') {
        if (w->text->len > 0)
            g_string_append(w->text, "; ");
        g_string_append_printf(w->text, "%s(): %s", err->func_name ? err->func_name : "?",
                               err->desc);
    }
    w->n = n + 1;
    return 0;
}

void prism_h5_set_error_internal(GError **error, const char *what, const char *call,
                                 const char *file, int line)
{
    ErrWalk w = {g_string_new(NULL), 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &w);
    /* Keep the message readable: the outermost entry and the two innermost ones. */
    g_auto(GStrv) parts = g_strsplit(w.text->str, "; ", -1);
    guint np = g_strv_length(parts);
    g_autofree char *msg = NULL;
    if (np <= 3 || g_getenv("PRISM_H5_FULL_ERRORS"))
        msg = g_strjoinv("; ", parts);
    else
        msg = g_strdup_printf("%s ... %s; %s", parts[0], parts[np - 2], parts[np - 1]);
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HDF5, "%s: %s failed%s%s (%s:%d)",
                what, call, msg[0] ? ": " : "", msg, file, line);
    g_string_free(w.text, TRUE);
    H5Eclear2(H5E_DEFAULT);
}

void prism_h5_quiet_internal(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        /* No close-everything handler at exit: after a failed parallel write a file must
         * not be closed (io_finish.c), and every other path closes its files itself. */
        H5dont_atexit();
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        g_once_init_leave(&once, 1);
    }
}

hid_t prism_h5_store_type_internal(PrismStore store)
{
    switch (store) {
    case PRISM_STORE_F64: return H5T_NATIVE_DOUBLE;
    case PRISM_STORE_F32: return H5T_NATIVE_FLOAT;
    case PRISM_STORE_U8: return H5T_NATIVE_UINT8;
    case PRISM_STORE_U16: return H5T_NATIVE_UINT16;
    case PRISM_STORE_U32: return H5T_NATIVE_UINT32;
    }
    return H5T_NATIVE_DOUBLE;
}

gboolean prism_h5_type_store_internal(hid_t type, PrismStore *out, gboolean *is_u64)
{
    static const PrismStore stores[] = {PRISM_STORE_F64, PRISM_STORE_F32, PRISM_STORE_U8,
                                        PRISM_STORE_U16, PRISM_STORE_U32};
    *is_u64 = FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(stores); i++)
        if (H5Tequal(type, prism_h5_store_type_internal(stores[i])) > 0) {
            *out = stores[i];
            return TRUE;
        }
    if (H5Tequal(type, H5T_NATIVE_UINT64) > 0) {
        *out = PRISM_STORE_F64; /* read as double; indices stay exact below 2^53 */
        *is_u64 = TRUE;
        return TRUE;
    }
    return FALSE;
}

gboolean prism_h5_attr_string_internal(hid_t obj, const char *name, const char *value,
                                       GError **error)
{
    gboolean ok = FALSE;
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attr = -1;
    if (type < 0 || space < 0 || H5Tset_size(type, H5T_VARIABLE) < 0 ||
        H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
        PRISM_H5_FAILED(error, name, H5Tcopy);
        goto out;
    }
    if (H5Aexists(obj, name) > 0 && H5Adelete(obj, name) < 0) {
        PRISM_H5_FAILED(error, name, H5Adelete);
        goto out;
    }
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) {
        PRISM_H5_FAILED(error, name, H5Acreate2);
        goto out;
    }
    const char *v = value ? value : "";
    if (H5Awrite(attr, type, &v) < 0) {
        PRISM_H5_FAILED(error, name, H5Awrite);
        goto out;
    }
    ok = TRUE;
out:
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return ok;
}

gboolean prism_h5_attr_u64_internal(hid_t obj, const char *name, uint64_t value, GError **error)
{
    gboolean ok = FALSE;
    hid_t space = H5Screate(H5S_SCALAR), attr = -1;
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    attr = H5Acreate2(obj, name, H5T_NATIVE_UINT64, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, H5T_NATIVE_UINT64, &value) < 0)
        PRISM_H5_FAILED(error, name, H5Awrite);
    else
        ok = TRUE;
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    return ok;
}

char *prism_h5_attr_text_internal(hid_t obj, const char *name)
{
    if (H5Aexists(obj, name) <= 0)
        return NULL;
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0)
        return NULL;
    char *result = NULL;
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    if (type >= 0 && space >= 0 && H5Sget_simple_extent_npoints(space) == 1) {
        H5T_class_t cls = H5Tget_class(type);
        if (cls == H5T_STRING && H5Tis_variable_str(type) > 0) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(type));
            char *v = NULL;
            if (H5Aread(attr, mt, &v) >= 0 && v != NULL) {
                result = g_strdup(v);
                H5free_memory(v);
            }
            H5Tclose(mt);
        } else if (cls == H5T_STRING) {
            size_t sz = H5Tget_size(type);
            char *buf = g_malloc0(sz + 1);
            hid_t mt = H5Tcopy(type);
            if (H5Aread(attr, mt, buf) >= 0)
                result = g_strndup(buf, sz);
            H5Tclose(mt);
            g_free(buf);
        } else if (cls == H5T_INTEGER) {
            long long v = 0;
            if (H5Aread(attr, H5T_NATIVE_LLONG, &v) >= 0)
                result = g_strdup_printf("%lld", v);
        } else if (cls == H5T_FLOAT) {
            double v = 0;
            if (H5Aread(attr, H5T_NATIVE_DOUBLE, &v) >= 0)
                result = g_strdup_printf("%.17g", v);
        }
    }
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
    return result;
}

hid_t prism_h5_fapl_internal(PrismComm *comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    if (H5Pset_fapl_mpio(fapl, comm->mpi, MPI_INFO_NULL) < 0 ||
        H5Pset_all_coll_metadata_ops(fapl, 1) < 0 || H5Pset_coll_metadata_write(fapl, 1) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

hid_t prism_h5_fcpl_internal(void)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0 && H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED |
                                                          H5P_CRT_ORDER_INDEXED) < 0) {
        H5Pclose(fcpl);
        return -1;
    }
    return fcpl;
}

hid_t prism_h5_dxpl_internal(void)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl >= 0 && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
        H5Pclose(dxpl);
        return -1;
    }
    return dxpl;
}

hid_t prism_h5_dataset_create_internal(hid_t loc, const char *name, hid_t type, uint64_t total,
                                       uint64_t chunk, int deflate, GError **error)
{
    hsize_t dims[1] = {total}, maxdims[1] = {total};
    /* A 0-length dataset is chunked (chunk 1) with an unlimited maximum: HDF5 accepts no
     * 0-length chunk and no extendible contiguous layout. */
    gboolean chunked = total == 0 || (chunk > 0 && deflate > 0);
    if (total == 0)
        maxdims[0] = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), dset = -1;
    if (space < 0 || dcpl < 0) {
        PRISM_H5_FAILED(error, name, H5Screate_simple);
        goto out;
    }
    if (chunked) {
        hsize_t cdims[1] = {total == 0 ? 1 : (chunk < total ? chunk : total)};
        if (H5Pset_chunk(dcpl, 1, cdims) < 0 ||
            (deflate > 0 && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, (unsigned)deflate) < 0))) {
            PRISM_H5_FAILED(error, name, H5Pset_chunk);
            goto out;
        }
    }
    /* Parallel HDF5 allocates early anyway; never write fill values (every row is written). */
    if (H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) {
        PRISM_H5_FAILED(error, name, H5Pset_alloc_time);
        goto out;
    }
    dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0)
        PRISM_H5_FAILED(error, name, H5Dcreate2);
out:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return dset;
}

static gboolean range_io(gboolean write, hid_t dset, hid_t type, hid_t dxpl, uint64_t first,
                         uint64_t n, void *buf, GError **error)
{
    gboolean ok = FALSE;
    hid_t fspace = H5Dget_space(dset);
    hsize_t cnt[1] = {n > 0 ? n : 1}, off[1] = {first};
    hid_t mspace = H5Screate_simple(1, cnt, NULL);
    if (fspace < 0 || mspace < 0) {
        PRISM_H5_FAILED(error, "dataset space", H5Dget_space);
        goto out;
    }
    herr_t rc;
    if (n > 0) {
        hsize_t count[1] = {n};
        rc = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, count, NULL);
    } else {
        rc = H5Sselect_none(fspace);
        if (rc >= 0)
            rc = H5Sselect_none(mspace);
    }
    if (rc < 0) {
        PRISM_H5_FAILED(error, "selection", H5Sselect_hyperslab);
        goto out;
    }
    static char dummy[8];
    void *p = n > 0 ? buf : dummy; /* HDF5 wants a non-NULL buffer even for none */
    if (write) {
        if (H5Dwrite(dset, type, mspace, fspace, dxpl, p) < 0) {
            PRISM_H5_FAILED(error, "writing", H5Dwrite);
            goto out;
        }
    } else if (H5Dread(dset, type, mspace, fspace, dxpl, p) < 0) {
        PRISM_H5_FAILED(error, "reading", H5Dread);
        goto out;
    }
    ok = TRUE;
out:
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return ok;
}

gboolean prism_h5_write_range_internal(hid_t dset, hid_t type, hid_t dxpl, uint64_t first,
                                       uint64_t n, const void *buf, GError **error)
{
    return range_io(TRUE, dset, type, dxpl, first, n, (void *)buf, error);
}

gboolean prism_h5_read_range_internal(hid_t dset, hid_t type, hid_t dxpl, uint64_t first,
                                      uint64_t n, void *buf, GError **error)
{
    return range_io(FALSE, dset, type, dxpl, first, n, buf, error);
}
