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
#include "filters/h5z-codecs.h"

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

int64_t prism_h5_try_internal(int64_t rc, GError **error, const char *call, const char *file,
                              int line)
{
    if (rc >= 0)
        return rc;
    if (error != NULL && *error == NULL) {
        /* "H5Dread(d, ...)": the function name is the "what", the call text follows. */
        g_autofree char *what = g_strndup(call, strcspn(call, "("));
        prism_h5_set_error_internal(error, what, call, file, line);
    } else {
        H5Eclear2(H5E_DEFAULT);
    }
    return rc;
}

gboolean prism_h5_close_internal(hid_t *id, GError **error)
{
    if (*id < 0)
        return TRUE;
    hid_t h = *id;
    *id = -1;
    int64_t rc = -1;
    switch (H5Iget_type(h)) {
    case H5I_FILE:
        rc = PRISM_H5_TRY(H5Fclose(h), error);
        break;
    case H5I_GROUP:
        rc = PRISM_H5_TRY(H5Gclose(h), error);
        break;
    case H5I_DATASET:
        rc = PRISM_H5_TRY(H5Dclose(h), error);
        break;
    case H5I_ATTR:
        rc = PRISM_H5_TRY(H5Aclose(h), error);
        break;
    case H5I_DATASPACE:
        rc = PRISM_H5_TRY(H5Sclose(h), error);
        break;
    case H5I_DATATYPE:
        rc = PRISM_H5_TRY(H5Tclose(h), error);
        break;
    case H5I_GENPROP_LST:
        rc = PRISM_H5_TRY(H5Pclose(h), error);
        break;
    default:
        rc = PRISM_H5_TRY(H5Oclose(h), error);
        break;
    }
    return rc >= 0;
}

gboolean prism_h5_is_landscape_internal(const char *path)
{
    if (PRISM_H5_TRY(H5Fis_hdf5(path), NULL) <= 0)
        return FALSE;
    hid_t f = PRISM_H5_TRY(H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), NULL);
    if (f < 0)
        return FALSE;
    g_autofree char *tool = prism_h5_attr_text_internal(f, "tool");
    g_autofree char *version = prism_h5_attr_text_internal(f, "schema_version");
    (void)prism_h5_close_internal(&f, NULL);
    return tool != NULL && strcmp(tool, "prism") == 0 && version != NULL;
}

void prism_h5_quiet_internal(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        /* No close-everything handler at exit: after a failed parallel write a file must
         * not be closed (io_finish.c), and every other path closes its files itself. */
        (void)PRISM_H5_TRY(H5dont_atexit(), NULL);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        /* The codecs of io/filters, in-process: no plugin path needed to write or read.
         * A failure leaves the filter unavailable; creating or reading a dataset with it
         * then fails with HDF5's "filter not available" message. */
        (void)PRISM_H5_TRY(H5Zregister(prism_h5z_zstd_class()), NULL);
        (void)PRISM_H5_TRY(H5Zregister(prism_h5z_lz4_class()), NULL);
        g_once_init_leave(&once, 1);
    }
}

hid_t prism_h5_store_type_internal(PrismStore store)
{
    switch (store) {
    case PRISM_STORE_F64:
        return H5T_NATIVE_DOUBLE;
    case PRISM_STORE_F32:
        return H5T_NATIVE_FLOAT;
    case PRISM_STORE_U8:
        return H5T_NATIVE_UINT8;
    case PRISM_STORE_U16:
        return H5T_NATIVE_UINT16;
    case PRISM_STORE_U32:
        return H5T_NATIVE_UINT32;
    }
    return H5T_NATIVE_DOUBLE;
}

gboolean prism_h5_type_store_internal(hid_t type, PrismStore *out, gboolean *is_u64)
{
    static const PrismStore stores[] = {PRISM_STORE_F64, PRISM_STORE_F32, PRISM_STORE_U8,
                                        PRISM_STORE_U16, PRISM_STORE_U32};
    *is_u64 = FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(stores); i++)
        if (PRISM_H5_TRY(H5Tequal(type, prism_h5_store_type_internal(stores[i])), NULL) > 0) {
            *out = stores[i];
            return TRUE;
        }
    if (PRISM_H5_TRY(H5Tequal(type, H5T_NATIVE_UINT64), NULL) > 0) {
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
    hid_t type = PRISM_H5_TRY(H5Tcopy(H5T_C_S1), error);
    hid_t space = PRISM_H5_TRY(H5Screate(H5S_SCALAR), error), attr = -1;
    const char *v = value ? value : "";
    if (type >= 0 && space >= 0 && PRISM_H5_TRY(H5Tset_size(type, H5T_VARIABLE), error) >= 0 &&
        PRISM_H5_TRY(H5Tset_cset(type, H5T_CSET_UTF8), error) >= 0) {
        int64_t there = PRISM_H5_TRY(H5Aexists(obj, name), error);
        if (there == 0 || (there > 0 && PRISM_H5_TRY(H5Adelete(obj, name), error) >= 0))
            attr =
                PRISM_H5_TRY(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), error);
        ok = attr >= 0 && PRISM_H5_TRY(H5Awrite(attr, type, &v), error) >= 0;
    }
    if (!ok)
        g_prefix_error(error, "attribute %s: ", name);
    (void)prism_h5_close_internal(&attr, NULL);
    (void)prism_h5_close_internal(&space, NULL);
    (void)prism_h5_close_internal(&type, NULL);
    return ok;
}

gboolean prism_h5_attr_u64_internal(hid_t obj, const char *name, uint64_t value, GError **error)
{
    gboolean ok = FALSE;
    hid_t space = PRISM_H5_TRY(H5Screate(H5S_SCALAR), error), attr = -1;
    if (space >= 0) {
        int64_t there = PRISM_H5_TRY(H5Aexists(obj, name), error);
        if (there == 0 || (there > 0 && PRISM_H5_TRY(H5Adelete(obj, name), error) >= 0))
            attr = PRISM_H5_TRY(
                H5Acreate2(obj, name, H5T_NATIVE_UINT64, space, H5P_DEFAULT, H5P_DEFAULT), error);
        ok = attr >= 0 && PRISM_H5_TRY(H5Awrite(attr, H5T_NATIVE_UINT64, &value), error) >= 0;
    }
    if (!ok)
        g_prefix_error(error, "attribute %s: ", name);
    (void)prism_h5_close_internal(&attr, NULL);
    (void)prism_h5_close_internal(&space, NULL);
    return ok;
}

/* The value of a one-element string, integer or float attribute as text, or NULL. */
static char *attr_value_text(hid_t attr, hid_t type)
{
    char *result = NULL;
    int64_t cls = PRISM_H5_TRY(H5Tget_class(type), NULL);
    if (cls == H5T_STRING && PRISM_H5_TRY(H5Tis_variable_str(type), NULL) > 0) {
        hid_t mt = PRISM_H5_TRY(H5Tcopy(H5T_C_S1), NULL);
        char *v = NULL;
        if (mt >= 0 && PRISM_H5_TRY(H5Tset_size(mt, H5T_VARIABLE), NULL) >= 0 &&
            PRISM_H5_TRY(H5Tset_cset(mt, H5Tget_cset(type)), NULL) >= 0 &&
            PRISM_H5_TRY(H5Aread(attr, mt, &v), NULL) >= 0 && v != NULL) {
            result = g_strdup(v);
            (void)PRISM_H5_TRY(H5free_memory(v), NULL);
        }
        (void)prism_h5_close_internal(&mt, NULL);
    } else if (cls == H5T_STRING) {
        int64_t sz = PRISM_H5_TRY(H5Tget_size(type), NULL); /* 0 on failure */
        if (sz > 0) {
            char *buf = g_malloc0((size_t)sz + 1);
            if (PRISM_H5_TRY(H5Aread(attr, type, buf), NULL) >= 0)
                result = g_strndup(buf, (size_t)sz);
            g_free(buf);
        }
    } else if (cls == H5T_INTEGER) {
        long long v = 0;
        if (PRISM_H5_TRY(H5Aread(attr, H5T_NATIVE_LLONG, &v), NULL) >= 0)
            result = g_strdup_printf("%lld", v);
    } else if (cls == H5T_FLOAT) {
        double v = 0;
        if (PRISM_H5_TRY(H5Aread(attr, H5T_NATIVE_DOUBLE, &v), NULL) >= 0)
            result = g_strdup_printf("%.17g", v);
    }
    return result;
}

char *prism_h5_attr_text_internal(hid_t obj, const char *name)
{
    if (PRISM_H5_TRY(H5Aexists(obj, name), NULL) <= 0)
        return NULL;
    hid_t attr = PRISM_H5_TRY(H5Aopen(obj, name, H5P_DEFAULT), NULL);
    if (attr < 0)
        return NULL;
    char *result = NULL;
    hid_t type = PRISM_H5_TRY(H5Aget_type(attr), NULL);
    hid_t space = PRISM_H5_TRY(H5Aget_space(attr), NULL);
    if (type >= 0 && space >= 0 && PRISM_H5_TRY(H5Sget_simple_extent_npoints(space), NULL) == 1)
        result = attr_value_text(attr, type);
    if (result != NULL && !g_utf8_validate(result, -1, NULL)) {
        /* a damaged file's bytes: U+FFFD for them, so that text and --json output stay
         * valid UTF-8 (JSON readers refuse anything else) */
        char *valid = g_utf8_make_valid(result, -1);
        g_free(result);
        result = valid;
    }
    (void)prism_h5_close_internal(&type, NULL);
    (void)prism_h5_close_internal(&space, NULL);
    (void)prism_h5_close_internal(&attr, NULL);
    return result;
}

hid_t prism_h5_fapl_internal(PrismComm *comm)
{
    hid_t fapl = PRISM_H5_TRY(H5Pcreate(H5P_FILE_ACCESS), NULL);
    if (fapl >= 0 && (PRISM_H5_TRY(H5Pset_fapl_mpio(fapl, comm->mpi, MPI_INFO_NULL), NULL) < 0 ||
                      PRISM_H5_TRY(H5Pset_all_coll_metadata_ops(fapl, 1), NULL) < 0 ||
                      PRISM_H5_TRY(H5Pset_coll_metadata_write(fapl, 1), NULL) < 0))
        (void)prism_h5_close_internal(&fapl, NULL);
    return fapl;
}

gboolean prism_h5_compact_internal(hid_t gcpl, GError **error)
{
    /* HDF5 moves a group's links, and an object's attributes, from its object header to
     * "dense" storage (a fractal heap and a B-tree) past 8 of them. The object header of
     * the 1.8 format carries a checksum; the fractal heap's direct blocks do not (HDF5
     * leaves their checksum off by default), and libhdf5 1.10 frees garbage pointers when
     * it decodes a damaged link there (tests/fuzz/h5_flip.py). Kept in the header, a
     * damaged link or attribute is a checksum error, reported. */
    return PRISM_H5_TRY(H5Pset_attr_phase_change(gcpl, PRISM_H5_COMPACT_MAX, PRISM_H5_COMPACT_MAX),
                        error) >= 0 &&
           PRISM_H5_TRY(H5Pset_link_phase_change(gcpl, PRISM_H5_COMPACT_MAX, PRISM_H5_COMPACT_MAX),
                        error) >= 0;
}

hid_t prism_h5_fcpl_internal(void)
{
    hid_t fcpl = PRISM_H5_TRY(H5Pcreate(H5P_FILE_CREATE), NULL);
    if (fcpl >= 0 && (PRISM_H5_TRY(H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED |
                                                                        H5P_CRT_ORDER_INDEXED),
                                   NULL) < 0 ||
                      !prism_h5_compact_internal(fcpl, NULL)))
        (void)prism_h5_close_internal(&fcpl, NULL);
    return fcpl;
}

hid_t prism_h5_dxpl_internal(void)
{
    hid_t dxpl = PRISM_H5_TRY(H5Pcreate(H5P_DATASET_XFER), NULL);
    if (dxpl >= 0 && PRISM_H5_TRY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), NULL) < 0)
        (void)prism_h5_close_internal(&dxpl, NULL);
    return dxpl;
}

const char *prism_codec_name(PrismCodec codec)
{
    switch (codec) {
    case PRISM_CODEC_NONE:
        return "none";
    case PRISM_CODEC_DEFLATE:
        return "deflate";
    case PRISM_CODEC_LZ4:
        return "lz4";
    case PRISM_CODEC_ZSTD:
        return "zstd";
    }
    return "?";
}

gboolean prism_codec_parse(const char *name, PrismCodec *out)
{
    for (PrismCodec c = PRISM_CODEC_NONE; c <= PRISM_CODEC_ZSTD; c++)
        if (name != NULL && strcmp(name, prism_codec_name(c)) == 0) {
            *out = c;
            return TRUE;
        }
    return FALSE;
}

int prism_codec_default_level(PrismCodec codec)
{
    return codec == PRISM_CODEC_DEFLATE || codec == PRISM_CODEC_ZSTD ? 1 : 0;
}

gboolean prism_codec_check_level(PrismCodec codec, int level, GError **error)
{
    int lo = 0, hi = 0;
    if (codec == PRISM_CODEC_DEFLATE)
        lo = 1, hi = 9;
    else if (codec == PRISM_CODEC_ZSTD)
        lo = 1, hi = 19;
    if (level >= lo && level <= hi)
        return TRUE;
    if (hi == 0)
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--compression-level %d: --compression %s has no level (use deflate or "
                    "zstd for a level)",
                    level, prism_codec_name(codec));
    else
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--compression-level %d: must be %d to %d for --compression %s", level, lo, hi,
                    prism_codec_name(codec));
    return FALSE;
}

/* The filters of @p codec at @p level on @p dcpl (chunked): byte shuffle (values of
 * more than one byte), the codec, then Fletcher32 over the stored bytes. */
static gboolean set_filters(hid_t dcpl, hid_t type, PrismCodec codec, int level, GError **error)
{
    int64_t size = PRISM_H5_TRY(H5Tget_size(type), error);
    if (size < 0)
        return FALSE;
    if (size > 1 && PRISM_H5_TRY(H5Pset_shuffle(dcpl), error) < 0)
        return FALSE;
    unsigned cd[1] = {(unsigned)level};
    herr_t rc = 0;
    switch (codec) {
    case PRISM_CODEC_NONE:
        return TRUE;
    case PRISM_CODEC_DEFLATE:
        rc = PRISM_H5_TRY(H5Pset_deflate(dcpl, (unsigned)level), error);
        break;
    case PRISM_CODEC_LZ4:
        rc = PRISM_H5_TRY(H5Pset_filter(dcpl, PRISM_H5Z_FILTER_LZ4, H5Z_FLAG_MANDATORY, 0, NULL),
                          error);
        break;
    case PRISM_CODEC_ZSTD:
        rc = PRISM_H5_TRY(H5Pset_filter(dcpl, PRISM_H5Z_FILTER_ZSTD, H5Z_FLAG_MANDATORY, 1, cd),
                          error);
        break;
    }
    return rc >= 0 && PRISM_H5_TRY(H5Pset_fletcher32(dcpl), error) >= 0;
}

hid_t prism_h5_dataset_create_internal(hid_t loc, const char *name, hid_t type, uint64_t total,
                                       uint64_t chunk, PrismCodec codec, int level, GError **error)
{
    hsize_t dims[1] = {total}, maxdims[1] = {total};
    /* A 0-length dataset is chunked (chunk 1) with an unlimited maximum: HDF5 accepts no
     * 0-length chunk and no extendible contiguous layout. */
    gboolean chunked = total == 0 || chunk > 0;
    if (total == 0)
        maxdims[0] = H5S_UNLIMITED;
    hid_t space = PRISM_H5_TRY(H5Screate_simple(1, dims, maxdims), error);
    hid_t dcpl = PRISM_H5_TRY(H5Pcreate(H5P_DATASET_CREATE), error), dset = -1;
    gboolean ok = space >= 0 && dcpl >= 0;
    if (ok && chunked) {
        hsize_t cdims[1] = {total == 0 ? 1 : (chunk < total ? chunk : total)};
        ok = PRISM_H5_TRY(H5Pset_chunk(dcpl, 1, cdims), error) >= 0;
        /* Shuffle + codec, then Fletcher32: the checksum covers the stored (compressed)
         * bytes, so damage on disk is caught before the decompressor sees it (filters run
         * in this order on write and in reverse on read). */
        if (ok && codec != PRISM_CODEC_NONE)
            ok = set_filters(dcpl, type, codec, level, error);
    }
    /* Chunks are allocated as they are written (their stored sizes are only known then:
     * H5Dwrite_chunk), small contiguous datasets at once; fill values are never written
     * (every row is). */
    if (ok)
        ok = PRISM_H5_TRY(
                 H5Pset_alloc_time(dcpl, chunked ? H5D_ALLOC_TIME_INCR : H5D_ALLOC_TIME_EARLY),
                 error) >= 0 &&
             PRISM_H5_TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), error) >= 0;
    if (ok)
        dset =
            PRISM_H5_TRY(H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), error);
    if (dset < 0)
        g_prefix_error(error, "dataset %s: ", name);
    (void)prism_h5_close_internal(&dcpl, NULL);
    (void)prism_h5_close_internal(&space, NULL);
    return dset;
}

static gboolean range_io(gboolean write, hid_t dset, hid_t type, hid_t dxpl, uint64_t first,
                         uint64_t n, void *buf, GError **error)
{
    hid_t fspace = PRISM_H5_TRY(H5Dget_space(dset), error);
    hsize_t cnt[1] = {n > 0 ? n : 1}, off[1] = {first};
    hid_t mspace = PRISM_H5_TRY(H5Screate_simple(1, cnt, NULL), error);
    gboolean ok = fspace >= 0 && mspace >= 0;
    if (ok && n > 0) {
        hsize_t count[1] = {n};
        ok = PRISM_H5_TRY(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, count, NULL),
                          error) >= 0;
    } else if (ok) {
        ok = PRISM_H5_TRY(H5Sselect_none(fspace), error) >= 0 &&
             PRISM_H5_TRY(H5Sselect_none(mspace), error) >= 0;
    }
    static char dummy[8];
    void *p = n > 0 ? buf : dummy; /* HDF5 wants a non-NULL buffer even for none */
    if (ok && write)
        ok = PRISM_H5_TRY(H5Dwrite(dset, type, mspace, fspace, dxpl, p), error) >= 0;
    else if (ok)
        ok = PRISM_H5_TRY(H5Dread(dset, type, mspace, fspace, dxpl, p), error) >= 0;
    (void)prism_h5_close_internal(&mspace, NULL);
    (void)prism_h5_close_internal(&fspace, NULL);
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
