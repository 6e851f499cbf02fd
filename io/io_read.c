// SPDX-License-Identifier: MIT
/*
 * io_read.c - reading a landscape file: collective open with MPI-IO, root attributes,
 * the column list of /landscape, and column hyperslabs converted to double.
 *
 * Collective: open, close and every read (each rank passes its own range, possibly
 * empty). Attribute lookups are local (the attributes are read once at open).
 * Not thread-safe.
 */
#include <prism/io.h>

#include <string.h>

#include <prism/core.h>

#include "io-internal.h"

struct PrismLandscapeFile {
    PrismComm *comm; /* borrowed */
    char *path;
    hid_t file, dxpl;
    uint64_t rows;
    gboolean has_landscape;
    PrismLandscapeSchema *schema;
    GPtrArray *attr_names; /* NULL-terminated */
    GHashTable *attrs;     /* name -> text */
};

typedef struct {
    hid_t obj;
    GPtrArray *names;
    GHashTable *attrs;
} AttrWalk;

static herr_t attr_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    AttrWalk *w = data;
    char *text = prism_h5_attr_text_internal(obj, name);
    if (text == NULL)
        text = g_strdup("(unreadable)");
    g_ptr_array_add(w->names, g_strdup(name));
    g_hash_table_replace(w->attrs, g_strdup(name), text);
    return 0;
}

void prism_landscape_file_close(PrismLandscapeFile *f)
{
    if (f == NULL)
        return;
    if (f->dxpl >= 0)
        H5Pclose(f->dxpl);
    if (f->file >= 0)
        H5Fclose(f->file);
    prism_landscape_schema_free(f->schema);
    if (f->attr_names)
        g_ptr_array_unref(f->attr_names);
    if (f->attrs)
        g_hash_table_unref(f->attrs);
    g_free(f->path);
    g_free(f);
}

static gboolean load_schema(PrismLandscapeFile *f, GError **error)
{
    f->schema = prism_landscape_schema_new();
    if (H5Lexists(f->file, "landscape", H5P_DEFAULT) <= 0)
        return TRUE;
    hid_t g = H5Gopen2(f->file, "landscape", H5P_DEFAULT);
    if (g < 0) {
        PRISM_H5_FAILED(error, "/landscape", H5Gopen2);
        return FALSE;
    }
    g_autofree char *cols = prism_h5_attr_text_internal(g, "columns");
    gboolean ok = TRUE;
    if (cols == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: /landscape has no 'columns' attribute (not written by prism)", f->path);
        ok = FALSE;
    }
    g_auto(GStrv) names = ok ? g_strsplit(cols, ",", -1) : NULL;
    for (char **n = names; ok && n != NULL && *n != NULL; n++) {
        hid_t d = H5Dopen2(g, *n, H5P_DEFAULT);
        if (d < 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /landscape lists column '%s' but has no such dataset", f->path, *n);
            ok = FALSE;
            break;
        }
        hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
        PrismStore store;
        gboolean is_u64 = FALSE;
        hssize_t len = H5Sget_simple_extent_npoints(sp);
        if (!prism_h5_type_store_internal(t, &store, &is_u64) || is_u64) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /landscape/%s has a type prism does not write", f->path, *n);
            ok = FALSE;
        } else if (f->schema->n > 0 && (uint64_t)len != f->rows) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /landscape/%s has %lld rows, other columns %" G_GUINT64_FORMAT,
                        f->path, *n, (long long)len, f->rows);
            ok = FALSE;
        } else {
            f->rows = (uint64_t)len;
            g_autofree char *unit = prism_h5_attr_text_internal(d, "unit");
            g_autofree char *doc = prism_h5_attr_text_internal(d, "doc");
            g_autofree char *codes = prism_h5_attr_text_internal(d, "codes");
            prism_landscape_schema_add(f->schema, *n, unit, doc, store, PRISM_LS_SOURCE_COST, 0);
            if (codes != NULL)
                prism_landscape_schema_set_codes(f->schema, f->schema->n - 1, codes);
        }
        H5Tclose(t);
        H5Sclose(sp);
        H5Dclose(d);
    }
    H5Gclose(g);
    f->has_landscape = ok && f->schema->n > 0;
    return ok;
}

PrismLandscapeFile *prism_landscape_file_open(PrismComm *comm, const char *path, GError **error)
{
    g_return_val_if_fail(comm != NULL && path != NULL, NULL);
    prism_h5_quiet_internal();
    GError *local = NULL;
    if (comm->rank == 0 && !g_file_test(path, G_FILE_TEST_IS_REGULAR))
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "%s: %s", path,
                    g_file_test(path, G_FILE_TEST_EXISTS) ? "not a regular file"
                                                          : "no such file");
    if (!prism_comm_agree_error(comm, &local)) {
        g_propagate_error(error, local);
        return NULL;
    }
    PrismLandscapeFile *f = g_new0(PrismLandscapeFile, 1);
    f->comm = comm;
    f->path = g_strdup(path);
    f->dxpl = prism_h5_dxpl_internal();
    hid_t fapl = prism_h5_fapl_internal(comm);
    f->file = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : -1;
    if (fapl >= 0)
        H5Pclose(fapl);
    if (f->file < 0)
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                    "%s: not an HDF5 file, or damaged (a run killed while finishing leaves a "
                    "damaged .partial: rerun it with --resume)",
                    path);
    if (!prism_comm_agree_error(comm, &local)) {
        prism_landscape_file_close(f);
        g_propagate_error(error, local);
        return NULL;
    }
    f->attr_names = g_ptr_array_new_with_free_func(g_free);
    f->attrs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    AttrWalk w = {f->file, f->attr_names, f->attrs};
    hsize_t idx = 0;
    if (H5Aiterate2(f->file, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, attr_cb, &w) < 0) {
        idx = 0; /* files without attribute creation order: by name */
        g_ptr_array_set_size(f->attr_names, 0);
        H5Aiterate2(f->file, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &w);
    }
    g_ptr_array_add(f->attr_names, NULL);
    const char *version = g_hash_table_lookup(f->attrs, "schema_version");
    if (version == NULL)
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: not a prism landscape (no schema_version attribute)", path);
    else if (g_ascii_strtoull(version, NULL, 10) > PRISM_LANDSCAPE_SCHEMA_VERSION)
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: schema version %s is newer than this prism reads (%d)", path, version,
                    PRISM_LANDSCAPE_SCHEMA_VERSION);
    else
        (void)load_schema(f, &local);
    if (!prism_comm_agree_error(comm, &local)) {
        prism_landscape_file_close(f);
        g_propagate_error(error, local);
        return NULL;
    }
    return f;
}

uint64_t prism_landscape_file_rows(const PrismLandscapeFile *f)
{
    return f->rows;
}

gboolean prism_landscape_file_has_landscape(const PrismLandscapeFile *f)
{
    return f->has_landscape;
}

const PrismLandscapeSchema *prism_landscape_file_schema(const PrismLandscapeFile *f)
{
    return f->schema;
}

const char *const *prism_landscape_file_attr_names(const PrismLandscapeFile *f)
{
    return (const char *const *)f->attr_names->pdata;
}

const char *prism_landscape_file_attr(const PrismLandscapeFile *f, const char *name)
{
    return g_hash_table_lookup(f->attrs, name);
}

/* Names of the datasets in @p group, for "did you mean" messages. */
static GPtrArray *dataset_names(hid_t g)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0)
        return names;
    for (hsize_t i = 0; i < info.nlinks; i++) {
        ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, NULL, 0,
                                         H5P_DEFAULT);
        if (len < 0)
            continue;
        char *name = g_malloc((size_t)len + 1);
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, (size_t)len + 1,
                           H5P_DEFAULT);
        g_ptr_array_add(names, name);
    }
    return names;
}

gboolean prism_landscape_file_read(PrismLandscapeFile *f, const char *group, const char *name,
                                   uint64_t first, uint64_t n, double *out, GError **error)
{
    GError *local = NULL;
    hid_t g = H5Lexists(f->file, group, H5P_DEFAULT) > 0 ? H5Gopen2(f->file, group, H5P_DEFAULT)
                                                          : -1;
    hid_t d = -1;
    if (g < 0) {
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "%s: no group /%s%s", f->path, group,
                    strcmp(group, "landscape") == 0 ? " (written with --no-landscape?)" : "");
    } else if (H5Lexists(g, name, H5P_DEFAULT) <= 0) {
        g_autoptr(GPtrArray) names = dataset_names(g);
        g_autofree char *close = prism_close_names(name, (const char *const *)names->pdata,
                                                   names->len, 3);
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "%s: no column '%s' in /%s (closest: %s)", f->path, name, group, close);
    } else {
        d = H5Dopen2(g, name, H5P_DEFAULT);
        if (d < 0)
            PRISM_H5_FAILED(&local, name, H5Dopen2);
    }
    gboolean ok = prism_comm_agree_error(f->comm, &local);
    if (ok) {
        hid_t t = H5Dget_type(d);
        PrismStore store = PRISM_STORE_F64;
        gboolean is_u64 = FALSE;
        if (!prism_h5_type_store_internal(t, &store, &is_u64))
            g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /%s/%s is not a numeric column", f->path, group, name);
        H5Tclose(t);
        ok = prism_comm_agree_error(f->comm, &local);
        if (ok) {
            hid_t mt = is_u64 ? H5T_NATIVE_UINT64 : prism_h5_store_type_internal(store);
            size_t vs = is_u64 ? 8 : prism_store_size(store);
            g_autofree void *buf = g_malloc(MAX(n, 1) * vs);
            /* Read in the file's own type (no conversion inside the collective read). */
            gboolean mine = prism_h5_read_range_internal(d, mt, f->dxpl, first, n, buf, &local);
            if (!mine) /* a damaged file, or an I/O error: name the file and the dataset */
                g_prefix_error(&local, "%s /%s/", f->path, group);
            if (mine) {
                for (uint64_t i = 0; i < n; i++)
                    out[i] = is_u64 ? (double)((const uint64_t *)buf)[i]
                                    : prism_io_load_internal(store, buf, (size_t)i);
            }
            ok = prism_comm_agree_error(f->comm, &local);
        }
    }
    if (d >= 0)
        H5Dclose(d);
    if (g >= 0)
        H5Gclose(g);
    if (!ok)
        g_propagate_error(error, local);
    return ok;
}

uint64_t prism_landscape_file_group_rows(PrismLandscapeFile *f, const char *group)
{
    if (H5Lexists(f->file, group, H5P_DEFAULT) <= 0)
        return 0;
    hid_t g = H5Gopen2(f->file, group, H5P_DEFAULT);
    if (g < 0)
        return 0;
    uint64_t rows = 0;
    g_autoptr(GPtrArray) names = dataset_names(g);
    if (names->len > 0) {
        hid_t d = H5Dopen2(g, g_ptr_array_index(names, 0), H5P_DEFAULT);
        if (d >= 0) {
            hid_t sp = H5Dget_space(d);
            hssize_t n = H5Sget_simple_extent_npoints(sp);
            rows = n > 0 ? (uint64_t)n : 0;
            H5Sclose(sp);
            H5Dclose(d);
        }
    }
    H5Gclose(g);
    return rows;
}

const char *prism_landscape_file_path(const PrismLandscapeFile *f)
{
    return f->path;
}

PrismComm *prism_landscape_file_comm(const PrismLandscapeFile *f)
{
    return f->comm;
}

gboolean prism_landscape_file_read_rows(PrismLandscapeFile *f, const uint64_t *indices,
                                        size_t n, double *out, GError **error)
{
    GError *local = NULL;
    uint64_t count = f->comm->rank == 0 ? n : 0;
    if (!prism_comm_bcast_bytes(f->comm, &count, sizeof count, 0, &local)) {
        g_propagate_error(error, local);
        return FALSE;
    }
    if (f->comm->rank == 0)
        for (size_t i = 0; i < n; i++)
            if (indices[i] >= f->rows || (i > 0 && indices[i] <= indices[i - 1])) {
                g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "row %" G_GUINT64_FORMAT " is out of range (%" G_GUINT64_FORMAT
                            " rows) or out of order",
                            indices[i], f->rows);
                break;
            }
    if (!prism_comm_agree_error(f->comm, &local) || count == 0) {
        if (local)
            g_propagate_error(error, local);
        return local == NULL;
    }
    size_t mine = f->comm->rank == 0 ? n : 0;
    g_autofree hsize_t *coords = g_new(hsize_t, MAX(mine, 1));
    for (size_t i = 0; i < mine; i++)
        coords[i] = indices[i];
    g_autofree void *buf = g_malloc(MAX(mine, 1) * sizeof(double));
    hid_t g = H5Gopen2(f->file, "landscape", H5P_DEFAULT);
    gboolean ok = g >= 0;
    if (!ok)
        PRISM_H5_FAILED(&local, "/landscape", H5Gopen2);
    ok = prism_comm_agree_error(f->comm, &local);
    for (size_t c = 0; ok && c < f->schema->n; c++) {
        const PrismLandscapeColumn *col = &f->schema->cols[c];
        hid_t type = prism_h5_store_type_internal(col->store);
        hid_t d = H5Dopen2(g, col->name, H5P_DEFAULT);
        hid_t fs = d >= 0 ? H5Dget_space(d) : -1;
        hsize_t mdim[1] = {MAX(mine, 1)};
        hid_t ms = H5Screate_simple(1, mdim, NULL);
        herr_t rc = d >= 0 && fs >= 0 && ms >= 0 ? 0 : -1;
        if (rc >= 0 && mine > 0)
            rc = H5Sselect_elements(fs, H5S_SELECT_SET, mine, coords);
        else if (rc >= 0)
            rc = (H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0) ? -1 : 0;
        if (rc < 0)
            PRISM_H5_FAILED(&local, col->name, H5Sselect_elements);
        ok = prism_comm_agree_error(f->comm, &local);
        if (ok && H5Dread(d, type, ms, fs, f->dxpl, buf) < 0) {
            PRISM_H5_FAILED(&local, col->name, H5Dread);
            g_prefix_error(&local, "%s /landscape/", f->path);
        }
        ok = prism_comm_agree_error(f->comm, &local) && ok;
        for (size_t i = 0; ok && i < mine; i++)
            out[i * f->schema->n + c] = prism_io_load_internal(col->store, buf, i);
        if (ms >= 0)
            H5Sclose(ms);
        if (fs >= 0)
            H5Sclose(fs);
        if (d >= 0)
            H5Dclose(d);
    }
    if (g >= 0)
        H5Gclose(g);
    if (!ok)
        g_propagate_error(error, local);
    return ok;
}
