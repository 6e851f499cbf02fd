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

#include <math.h>
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
    /* /constants (schema 3): per point flops_per_step, peak_flops, tokens_per_step */
    double *k_flops, *k_peak, *k_tokens;
    size_t n_k;
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
    (void)prism_h5_close_internal(&f->dxpl, NULL);
    (void)prism_h5_close_internal(&f->file, NULL);
    prism_landscape_schema_free(f->schema);
    if (f->attr_names)
        g_ptr_array_unref(f->attr_names);
    if (f->attrs)
        g_hash_table_unref(f->attrs);
    g_free(f->path);
    g_free(f->k_flops);
    g_free(f->k_peak);
    g_free(f->k_tokens);
    g_free(f);
}

/* /constants/NAME, every point, into a new array of *n values. */
static double *read_constants(PrismLandscapeFile *f, const char *name, size_t *n, GError **error)
{
    g_autofree char *path = g_strconcat("/constants/", name, NULL);
    hid_t d = PRISM_H5_TRY(H5Dopen2(f->file, path, H5P_DEFAULT), error);
    hid_t sp = d >= 0 ? PRISM_H5_TRY(H5Dget_space(d), error) : -1;
    int64_t len = sp >= 0 ? PRISM_H5_TRY(H5Sget_simple_extent_npoints(sp), error) : -1;
    double *v = NULL;
    if (len >= 0) {
        v = g_new0(double, MAX(len, 1));
        if (!prism_h5_read_range_internal(d, H5T_NATIVE_DOUBLE, f->dxpl, 0, (uint64_t)len, v,
                                          error))
            g_clear_pointer(&v, g_free);
    }
    if (v == NULL)
        g_prefix_error(error, "%s: %s: ", f->path, path);
    *n = len > 0 ? (size_t)len : 0;
    (void)prism_h5_close_internal(&sp, NULL);
    (void)prism_h5_close_internal(&d, NULL);
    return v;
}

static int schema_index(const PrismLandscapeSchema *s, const char *name);

/* The columns /landscape's "derived" attribute names (schema 3, hfu since 5), computed on
 * read. */
static gboolean load_derived(PrismLandscapeFile *f, const char *derived, GError **error)
{
    size_t n1 = 0, n2 = 0, n3 = 0;
    f->k_flops = read_constants(f, "flops_per_step", &n1, error);
    f->k_peak = f->k_flops ? read_constants(f, "peak_flops", &n2, error) : NULL;
    f->k_tokens = f->k_peak ? read_constants(f, "tokens_per_step", &n3, error) : NULL;
    if (f->k_tokens == NULL)
        return FALSE;
    f->n_k = MIN(n1, MIN(n2, n3));
    g_auto(GStrv) names = g_strsplit(derived, ",", -1);
    for (char **n = names; *n != NULL; n++) {
        int col = -1;
        for (int c = 0; c < PRISM_COL_COUNT && col < 0; c++)
            if (strcmp(prism_col_info((PrismCostCol)c)->name, *n) == 0)
                col = c;
        if (col != PRISM_COL_MFU && col != PRISM_COL_TOKENS_PER_S &&
            (col != PRISM_COL_HFU || schema_index(f->schema, "flops_time") < 0)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /landscape names '%s' as a derived column; this prism derives only "
                        "mfu, tokens_per_s and (from flops_time) hfu",
                        f->path, *n);
            return FALSE;
        }
        const PrismColInfo *info = prism_col_info((PrismCostCol)col);
        prism_landscape_schema_add(f->schema, info->name, info->unit, info->doc, info->store,
                                   PRISM_LS_SOURCE_DERIVED, (uint32_t)col);
    }
    return TRUE;
}

static gboolean load_schema(PrismLandscapeFile *f, GError **error)
{
    f->schema = prism_landscape_schema_new();
    if (PRISM_H5_TRY(H5Lexists(f->file, "landscape", H5P_DEFAULT), NULL) <= 0)
        return TRUE;
    hid_t g = PRISM_H5_TRY(H5Gopen2(f->file, "landscape", H5P_DEFAULT), error);
    if (g < 0)
        return FALSE;
    g_autofree char *cols = prism_h5_attr_text_internal(g, "columns");
    gboolean ok = TRUE;
    if (cols == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: /landscape has no 'columns' attribute (not written by prism)", f->path);
        ok = FALSE;
    }
    g_auto(GStrv) names = ok ? g_strsplit(cols, ",", -1) : NULL;
    for (char **n = names; ok && n != NULL && *n != NULL; n++) {
        hid_t d = PRISM_H5_TRY(H5Dopen2(g, *n, H5P_DEFAULT), NULL);
        if (d < 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /landscape lists column '%s' but has no such dataset", f->path, *n);
            ok = FALSE;
            break;
        }
        hid_t t = PRISM_H5_TRY(H5Dget_type(d), error), sp = PRISM_H5_TRY(H5Dget_space(d), error);
        PrismStore store;
        gboolean is_u64 = FALSE;
        int64_t len = sp >= 0 ? PRISM_H5_TRY(H5Sget_simple_extent_npoints(sp), error) : -1;
        if (t < 0 || len < 0) {
            g_prefix_error(error, "%s: /landscape/%s: ", f->path, *n);
            ok = FALSE;
        } else if (!prism_h5_type_store_internal(t, &store, &is_u64) || is_u64) {
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
        (void)prism_h5_close_internal(&t, NULL);
        (void)prism_h5_close_internal(&sp, NULL);
        (void)prism_h5_close_internal(&d, NULL);
    }
    g_autofree char *derived = ok ? prism_h5_attr_text_internal(g, "derived") : NULL;
    (void)prism_h5_close_internal(&g, NULL);
    f->has_landscape = ok && f->schema->n > 0;
    if (ok && derived != NULL && f->has_landscape)
        ok = load_derived(f, derived, error);
    return ok;
}

/* HDF5 failed while reading an input landscape (damaged metadata: a chunk index, an object
 * header, a heap): that is a damaged input file, exit 2 like any bad input, not a runtime
 * failure (exit 1). Other errors are left as they are. */
static void damaged_file_error(const char *path, GError *e)
{
    if (e == NULL || e->domain != PRISM_RUNTIME_ERROR || e->code != PRISM_RUNTIME_ERROR_HDF5)
        return;
    const char *what = e->message; /* most messages start with the path already */
    if (g_str_has_prefix(what, path))
        what += strlen(path) + strspn(what + strlen(path), ": ");
    char *m = g_strdup_printf("%s is damaged or unreadable: %s; rerun the sweep to rewrite it",
                              path, what);
    g_free(e->message);
    e->message = m;
    e->domain = PRISM_INPUT_ERROR;
    e->code = PRISM_INPUT_ERROR_FILE;
}

PrismLandscapeFile *prism_landscape_file_open(PrismComm *comm, const char *path, GError **error)
{
    g_return_val_if_fail(comm != NULL && path != NULL, NULL);
    if (prism_comm_is_solo(comm)) { /* parallel HDF5 needs MPI (prism_app.c: `mpi`) */
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "%s: landscape files need MPI, and this command runs without it", path);
        return NULL;
    }
    prism_h5_quiet_internal();
    GError *local = NULL;
    if (comm->rank == 0 && !g_file_test(path, G_FILE_TEST_IS_REGULAR))
        g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "%s: %s", path,
                    g_file_test(path, G_FILE_TEST_EXISTS) ? "not a regular file" : "no such file");
    if (!prism_comm_agree_error(comm, &local)) {
        g_propagate_error(error, local);
        return NULL;
    }
    PrismLandscapeFile *f = g_new0(PrismLandscapeFile, 1);
    f->comm = comm;
    f->path = g_strdup(path);
    f->dxpl = prism_h5_dxpl_internal();
    hid_t fapl = prism_h5_fapl_internal(comm);
    f->file = fapl >= 0 ? PRISM_H5_TRY(H5Fopen(path, H5F_ACC_RDONLY, fapl), NULL) : -1;
    (void)prism_h5_close_internal(&fapl, NULL);
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
    if (PRISM_H5_TRY(H5Aiterate2(f->file, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, attr_cb, &w),
                     NULL) < 0) {
        idx = 0; /* files without attribute creation order: by name */
        g_ptr_array_set_size(f->attr_names, 0);
        (void)PRISM_H5_TRY(H5Aiterate2(f->file, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, &w),
                           NULL); /* attributes it cannot read stay absent */
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
        damaged_file_error(path, local);
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
    if (PRISM_H5_TRY(H5Gget_info(g, &info), NULL) < 0)
        return names; /* only for messages: an unreadable group lists nothing */
    for (hsize_t i = 0; i < info.nlinks; i++) {
        int64_t len = PRISM_H5_TRY(
            H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT), NULL);
        if (len < 0)
            continue;
        char *name = g_malloc0((size_t)len + 1);
        (void)PRISM_H5_TRY(H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
                                              (size_t)len + 1, H5P_DEFAULT),
                           NULL);
        g_ptr_array_add(names, name);
    }
    return names;
}

/* Chunk length of a chunked dataset (0: contiguous) and whether it has Fletcher32. */
static uint64_t chunk_rows(hid_t d, gboolean *checksummed)
{
    *checksummed = FALSE;
    hid_t dcpl = PRISM_H5_TRY(H5Dget_create_plist(d), NULL);
    uint64_t rows = 0;
    if (dcpl >= 0 && PRISM_H5_TRY(H5Pget_layout(dcpl), NULL) == H5D_CHUNKED) {
        hsize_t dim[1] = {0};
        if (PRISM_H5_TRY(H5Pget_chunk(dcpl, 1, dim), NULL) == 1)
            rows = dim[0];
        int64_t nf = PRISM_H5_TRY(H5Pget_nfilters(dcpl), NULL);
        for (int64_t i = 0; i < nf; i++) {
            unsigned flags = 0, conf = 0;
            size_t nv = 0;
            if (PRISM_H5_TRY(H5Pget_filter2(dcpl, (unsigned)i, &flags, &nv, NULL, 0, NULL, &conf),
                             NULL) == H5Z_FILTER_FLETCHER32)
                *checksummed = TRUE;
        }
    }
    (void)prism_h5_close_internal(&dcpl, NULL);
    return rows;
}

/* Why a chunk read failed, in words, from the HDF5 message. */
static const char *damage_kind(const char *hdf5_text)
{
    if (strstr(hdf5_text, "checksum") || strstr(hdf5_text, "Fletcher32"))
        return "fails its Fletcher32 checksum";
    if (strstr(hdf5_text, "inflate") || strstr(hdf5_text, "filter"))
        return "cannot be decompressed (a filter failed)";
    return "cannot be read";
}

/* One damaged-chunk description: "/landscape/step_time rows 0..65535 (chunk 0 of 4)". */
static char *chunk_text(const char *group, const char *name, uint64_t chunk, uint64_t c,
                        uint64_t rows)
{
    uint64_t n_chunks = chunk > 0 ? (rows + chunk - 1) / chunk : 1;
    uint64_t lo = chunk > 0 ? c * chunk : 0, hi = chunk > 0 ? MIN(lo + chunk, rows) : rows;
    return g_strdup_printf("/%s/%s rows %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
                           " (chunk %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ")",
                           group, name, lo, hi > 0 ? hi - 1 : 0, c, n_chunks);
}

/*
 * A read of rows [first, first + n) of dataset @p d failed on this rank (*error holds
 * HDF5's text): find the first chunk of the range that cannot be read on its own
 * (independent reads: local, no collective call) and replace the message with one that
 * names the file, the dataset and the chunk's rows.
 */
static void damaged_read_error(PrismLandscapeFile *f, const char *group, const char *name, hid_t d,
                               uint64_t first, uint64_t n, GError **error)
{
    gboolean sum = FALSE;
    uint64_t chunk = chunk_rows(d, &sum), rows = 0;
    hid_t sp = PRISM_H5_TRY(H5Dget_space(d), NULL);
    int64_t len = sp >= 0 ? PRISM_H5_TRY(H5Sget_simple_extent_npoints(sp), NULL) : -1;
    (void)prism_h5_close_internal(&sp, NULL);
    rows = len > 0 ? (uint64_t)len : 0;
    hid_t type = PRISM_H5_TRY(H5Dget_type(d), NULL);
    hid_t dxpl = PRISM_H5_TRY(H5Pcreate(H5P_DATASET_XFER), NULL); /* independent */
    int64_t tsize = type >= 0 ? PRISM_H5_TRY(H5Tget_size(type), NULL) : 0;
    size_t size = tsize > 0 ? (size_t)tsize : 0;
    char *bad = NULL;
    if (chunk > 0 && type >= 0 && dxpl >= 0 && size > 0 && n > 0) {
        g_autofree void *buf = g_malloc(chunk * size);
        for (uint64_t c = first / chunk; bad == NULL && c * chunk < MIN(first + n, rows); c++) {
            GError *one = NULL;
            uint64_t lo = c * chunk, cnt = MIN(chunk, rows - lo);
            if (!prism_h5_read_range_internal(d, type, dxpl, lo, cnt, buf, &one)) {
                g_autofree char *where = chunk_text(group, name, chunk, c, rows);
                bad = g_strdup_printf("%s: %s is damaged: it %s; rerun the sweep to rewrite "
                                      "the file",
                                      f->path, where, damage_kind(one->message));
            }
            g_clear_error(&one);
        }
    }
    (void)prism_h5_close_internal(&dxpl, NULL);
    (void)prism_h5_close_internal(&type, NULL);
    if (bad != NULL) {
        g_clear_error(error);
        g_set_error_literal(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, bad);
        g_free(bad);
    } else {
        g_prefix_error(error, "%s /%s/%s rows %" G_GUINT64_FORMAT "..+%" G_GUINT64_FORMAT ": ",
                       f->path, group, name, first, n);
    }
}

/* Row i's derived value of column @p col (a PrismCostCol) from its step time, its input
 * @p in (the device count; for hfu the row's flops_time) and its point, formed in double
 * as the kernel forms it, then rounded to float32 as the column used to be stored. NaN
 * for a point without constants. */
static double derive(const PrismLandscapeFile *f, uint32_t col, double step, double in,
                     double point)
{
    size_t p = (size_t)point;
    double inv_step = 1.0 / step, v;
    if (col == PRISM_COL_HFU)
        return (double)(float)(in * inv_step);
    if (!(point >= 0) || p >= f->n_k)
        return NAN;
    if (col == PRISM_COL_MFU)
        v = f->k_flops[p] / (in * f->k_peak[p]) * inv_step;
    else
        v = f->k_tokens[p] * inv_step;
    return (double)(float)v;
}

/* Schema index of @p name, -1 when absent. */
static int schema_index(const PrismLandscapeSchema *s, const char *name)
{
    for (size_t c = 0; c < s->n; c++)
        if (strcmp(s->cols[c].name, name) == 0)
            return (int)c;
    return -1;
}

static gboolean read_derived(PrismLandscapeFile *f, uint32_t col, uint64_t first, uint64_t n,
                             double *out, GError **error)
{
    g_autofree double *step = g_new(double, MAX(n, 1));
    g_autofree double *dev = g_new(double, MAX(n, 1));
    g_autofree double *pt = g_new0(double, MAX(n, 1));
    if (!prism_landscape_file_read(f, "landscape", "step_time", first, n, step, error) ||
        !prism_landscape_file_read(f, "landscape", col == PRISM_COL_HFU ? "flops_time" : "devices",
                                   first, n, dev, error) ||
        (schema_index(f->schema, "point") >= 0 &&
         !prism_landscape_file_read(f, "landscape", "point", first, n, pt, error)))
        return FALSE;
    for (uint64_t i = 0; i < n; i++)
        out[i] = derive(f, col, step[i], dev[i], pt[i]);
    return TRUE;
}

/* Open dataset /@p group/@p name into *@p g and *@p d, or set @p local naming what is
 * missing (the closest names). Not collective: the caller agrees on @p local. */
static void open_column(PrismLandscapeFile *f, const char *group, const char *name, hid_t *g,
                        hid_t *d, GError **local)
{
    *g = PRISM_H5_TRY(H5Lexists(f->file, group, H5P_DEFAULT), NULL) > 0
             ? PRISM_H5_TRY(H5Gopen2(f->file, group, H5P_DEFAULT), NULL)
             : -1;
    *d = -1;
    if (*g < 0) {
        g_set_error(local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME, "%s: no group /%s%s",
                    f->path, group,
                    strcmp(group, "landscape") == 0 ? " (written with --no-landscape?)" : "");
    } else if (PRISM_H5_TRY(H5Lexists(*g, name, H5P_DEFAULT), NULL) <= 0) {
        g_autoptr(GPtrArray) names = dataset_names(*g);
        g_autofree char *close =
            prism_close_names(name, (const char *const *)names->pdata, names->len, 3);
        g_set_error(local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "%s: no column '%s' in /%s (closest: %s)", f->path, name, group, close);
    } else {
        *d = PRISM_H5_TRY(H5Dopen2(*g, name, H5P_DEFAULT), local);
    }
}

gboolean prism_landscape_file_read(PrismLandscapeFile *f, const char *group, const char *name,
                                   uint64_t first, uint64_t n, double *out, GError **error)
{
    GError *local = NULL;
    int dc = strcmp(group, "landscape") == 0 ? schema_index(f->schema, name) : -1;
    if (dc >= 0 && f->schema->cols[dc].source == PRISM_LS_SOURCE_DERIVED)
        return read_derived(f, f->schema->cols[dc].index, first, n, out, error);
    hid_t g = -1, d = -1;
    open_column(f, group, name, &g, &d, &local);
    gboolean ok = prism_comm_agree_error(f->comm, &local);
    if (ok) {
        hid_t t = PRISM_H5_TRY(H5Dget_type(d), &local);
        PrismStore store = PRISM_STORE_F64;
        gboolean is_u64 = FALSE;
        if (t >= 0 && !prism_h5_type_store_internal(t, &store, &is_u64))
            g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /%s/%s is not a numeric column", f->path, group, name);
        (void)prism_h5_close_internal(&t, NULL);
        ok = prism_comm_agree_error(f->comm, &local);
        if (ok) {
            hid_t mt = is_u64 ? H5T_NATIVE_UINT64 : prism_h5_store_type_internal(store);
            size_t vs = is_u64 ? 8 : prism_store_size(store);
            g_autofree void *buf = g_malloc(MAX(n, 1) * vs);
            /* Read in the file's own type (no conversion inside the collective read). */
            gboolean mine = prism_h5_read_range_internal(d, mt, f->dxpl, first, n, buf, &local);
            if (!mine) /* a damaged file, or an I/O error: name the file, dataset and chunk */
                damaged_read_error(f, group, name, d, first, n, &local);
            if (mine) {
                for (uint64_t i = 0; i < n; i++)
                    out[i] = is_u64 ? (double)((const uint64_t *)buf)[i]
                                    : prism_io_load_internal(store, buf, (size_t)i);
            }
            ok = prism_comm_agree_error(f->comm, &local);
        }
    }
    (void)prism_h5_close_internal(&d, NULL);
    (void)prism_h5_close_internal(&g, NULL);
    if (!ok) {
        damaged_file_error(f->path, local);
        g_propagate_error(error, local);
    }
    return ok;
}

char **prism_landscape_file_read_strings(PrismLandscapeFile *f, const char *group, const char *name,
                                         GError **error)
{
    GError *local = NULL;
    hid_t g = -1, d = -1, t = -1;
    open_column(f, group, name, &g, &d, &local);
    gboolean ok = prism_comm_agree_error(f->comm, &local);
    size_t width = 0;
    uint64_t n = 0;
    if (ok) {
        t = PRISM_H5_TRY(H5Dget_type(d), &local);
        hid_t sp = PRISM_H5_TRY(H5Dget_space(d), &local);
        hssize_t pts = sp >= 0 ? PRISM_H5_TRY(H5Sget_simple_extent_npoints(sp), &local) : -1;
        (void)prism_h5_close_internal(&sp, NULL);
        if (local == NULL && (PRISM_H5_TRY(H5Tget_class(t), NULL) != H5T_STRING ||
                              PRISM_H5_TRY(H5Tis_variable_str(t), NULL) != 0 || pts < 0))
            g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "%s: /%s/%s is not a column of fixed-length strings", f->path, group, name);
        const int64_t sz = local == NULL ? PRISM_H5_TRY(H5Tget_size(t), &local) : 0; /* 0: failed */
        width = sz > 0 ? (size_t)sz : 0;
        if (local == NULL && width == 0)
            g_set_error(&local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HDF5,
                        "%s: /%s/%s: no string size", f->path, group, name);
        n = pts > 0 ? (uint64_t)pts : 0;
        ok = prism_comm_agree_error(f->comm, &local);
    }
    char **out = NULL;
    if (ok) {
        g_autofree char *buf = g_malloc0(MAX(n * width, 1));
        /* the file's own type: no conversion inside the collective read */
        if (!prism_h5_read_range_internal(d, t, f->dxpl, 0, n, buf, &local))
            damaged_read_error(f, group, name, d, 0, n, &local);
        ok = prism_comm_agree_error(f->comm, &local);
        if (ok) {
            out = g_new0(char *, n + 1);
            for (uint64_t i = 0; i < n; i++) /* NUL-padded, or exactly width bytes */
                out[i] = g_strndup(buf + i * width, width);
        }
    }
    (void)prism_h5_close_internal(&t, NULL);
    (void)prism_h5_close_internal(&d, NULL);
    (void)prism_h5_close_internal(&g, NULL);
    if (!ok) {
        damaged_file_error(f->path, local);
        g_propagate_error(error, local);
    }
    return out;
}

char **prism_landscape_file_grid_names(PrismLandscapeFile *f, const char *name, uint64_t n_points)
{
    GError *local = NULL;
    char **v = prism_landscape_file_read_strings(f, "grid", name, &local);
    if (v == NULL || g_strv_length(v) != n_points) {
        prism_log(PRISM_LOG_WARN, 0, "%s", local != NULL ? local->message : f->path);
        g_clear_error(&local);
        g_clear_pointer(&v, g_strfreev);
    }
    return v;
}

uint64_t prism_landscape_file_group_rows(PrismLandscapeFile *f, const char *group)
{
    /* A missing or unreadable group has no rows (documented in io.h). */
    if (PRISM_H5_TRY(H5Lexists(f->file, group, H5P_DEFAULT), NULL) <= 0)
        return 0;
    hid_t g = PRISM_H5_TRY(H5Gopen2(f->file, group, H5P_DEFAULT), NULL);
    if (g < 0)
        return 0;
    uint64_t rows = 0;
    g_autoptr(GPtrArray) names = dataset_names(g);
    if (names->len > 0) {
        hid_t d = PRISM_H5_TRY(H5Dopen2(g, g_ptr_array_index(names, 0), H5P_DEFAULT), NULL);
        hid_t sp = d >= 0 ? PRISM_H5_TRY(H5Dget_space(d), NULL) : -1;
        int64_t n = sp >= 0 ? PRISM_H5_TRY(H5Sget_simple_extent_npoints(sp), NULL) : -1;
        rows = n > 0 ? (uint64_t)n : 0;
        (void)prism_h5_close_internal(&sp, NULL);
        (void)prism_h5_close_internal(&d, NULL);
    }
    (void)prism_h5_close_internal(&g, NULL);
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

gboolean prism_landscape_file_read_rows(PrismLandscapeFile *f, const uint64_t *indices, size_t n,
                                        double *out, GError **error)
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
    hid_t g = PRISM_H5_TRY(H5Gopen2(f->file, "landscape", H5P_DEFAULT), &local);
    gboolean ok = prism_comm_agree_error(f->comm, &local);
    for (size_t c = 0; ok && c < f->schema->n; c++) {
        const PrismLandscapeColumn *col = &f->schema->cols[c];
        if (col->source == PRISM_LS_SOURCE_DERIVED)
            continue; /* below, from the stored columns of the row */
        hid_t type = prism_h5_store_type_internal(col->store);
        hid_t d = PRISM_H5_TRY(H5Dopen2(g, col->name, H5P_DEFAULT), &local);
        hid_t fs = d >= 0 ? PRISM_H5_TRY(H5Dget_space(d), &local) : -1;
        hsize_t mdim[1] = {MAX(mine, 1)};
        hid_t ms = PRISM_H5_TRY(H5Screate_simple(1, mdim, NULL), &local);
        int64_t rc = d >= 0 && fs >= 0 && ms >= 0 ? 0 : -1;
        if (rc >= 0 && mine > 0)
            rc = PRISM_H5_TRY(H5Sselect_elements(fs, H5S_SELECT_SET, mine, coords), &local);
        else if (rc >= 0)
            rc = (PRISM_H5_TRY(H5Sselect_none(fs), &local) < 0 ||
                  PRISM_H5_TRY(H5Sselect_none(ms), &local) < 0)
                     ? -1
                     : 0;
        if (rc < 0)
            g_prefix_error(&local, "%s /landscape/%s: ", f->path, col->name);
        ok = prism_comm_agree_error(f->comm, &local);
        if (ok && PRISM_H5_TRY(H5Dread(d, type, ms, fs, f->dxpl, buf), &local) < 0)
            damaged_read_error(f, "landscape", col->name, d, mine > 0 ? coords[0] : 0,
                               mine > 0 ? coords[mine - 1] - coords[0] + 1 : 0, &local);
        ok = prism_comm_agree_error(f->comm, &local) && ok;
        for (size_t i = 0; ok && i < mine; i++)
            out[i * f->schema->n + c] = prism_io_load_internal(col->store, buf, i);
        (void)prism_h5_close_internal(&ms, NULL);
        (void)prism_h5_close_internal(&fs, NULL);
        (void)prism_h5_close_internal(&d, NULL);
    }
    (void)prism_h5_close_internal(&g, NULL);
    int c_step = schema_index(f->schema, "step_time"), c_dev = schema_index(f->schema, "devices");
    int c_pt = schema_index(f->schema, "point"), c_ft = schema_index(f->schema, "flops_time");
    size_t w = f->schema->n;
    for (size_t c = 0; ok && c < w; c++) {
        const PrismLandscapeColumn *col = &f->schema->cols[c];
        if (col->source != PRISM_LS_SOURCE_DERIVED)
            continue;
        int c_in = col->index == PRISM_COL_HFU ? c_ft : c_dev; /* derive()'s third input */
        for (size_t i = 0; i < mine; i++) {
            const double *row = out + i * w;
            out[i * w + c] =
                c_step >= 0 && c_in >= 0
                    ? derive(f, col->index, row[c_step], row[c_in], c_pt >= 0 ? row[c_pt] : 0.0)
                    : NAN;
        }
    }
    if (!ok) {
        damaged_file_error(f->path, local);
        g_propagate_error(error, local);
    }
    return ok;
}

void prism_landscape_verify_clear(PrismLandscapeVerify *v)
{
    g_clear_pointer(&v->damaged_chunks, g_strfreev);
}

/* Every rank's strings, concatenated in rank order on every rank. */
static gboolean allgather_lines(PrismComm *comm, const GString *mine, GString *all, GError **error)
{
    for (int r = 0; r < comm->size; r++) {
        void *buf = comm->rank == r ? g_memdup2(mine->str, mine->len + 1) : NULL;
        size_t n = comm->rank == r ? mine->len + 1 : 0;
        if (!prism_comm_bcast_blob(comm, &buf, &n, r, error)) {
            g_free(buf);
            return FALSE;
        }
        if (buf != NULL && n > 0)
            g_string_append_len(all, buf, (gssize)strnlen(buf, n));
        g_free(buf);
    }
    return TRUE;
}

gboolean prism_landscape_file_verify(PrismLandscapeFile *f, PrismLandscapeVerify *out,
                                     GError **error)
{
    memset(out, 0, sizeof *out);
    out->checksummed = TRUE;
    GError *local = NULL;
    g_autoptr(GString) mine = g_string_new(NULL);
    uint64_t damaged = 0;
    hid_t g = -1;
    if (f->has_landscape)
        g = PRISM_H5_TRY(H5Gopen2(f->file, "landscape", H5P_DEFAULT), &local);
    gboolean ok = prism_comm_agree_error(f->comm, &local);
    for (size_t c = 0; ok && f->has_landscape && c < f->schema->n; c++) {
        const PrismLandscapeColumn *col = &f->schema->cols[c];
        if (col->source == PRISM_LS_SOURCE_DERIVED)
            continue; /* not stored */
        hid_t d = PRISM_H5_TRY(H5Dopen2(g, col->name, H5P_DEFAULT), &local);
        if (!prism_comm_agree_error(f->comm, &local)) {
            ok = FALSE;
            break;
        }
        gboolean sum = FALSE;
        uint64_t chunk = chunk_rows(d, &sum);
        out->checksummed &= sum;
        out->datasets++;
        uint64_t step = chunk > 0 ? chunk : MAX(f->rows, 1);
        uint64_t n_chunks = (f->rows + step - 1) / step;
        out->chunks += n_chunks;
        hid_t mt = prism_h5_store_type_internal(col->store);
        g_autofree void *buf = g_malloc(step * prism_store_size(col->store));
        /* Round k: rank r checks chunk k * size + r; the same number of collective reads on
         * every rank (a rank past the end selects nothing). A chunk that fails is damaged. */
        uint64_t rounds = (n_chunks + (uint64_t)f->comm->size - 1) / (uint64_t)f->comm->size;
        for (uint64_t k = 0; k < rounds; k++) {
            uint64_t ch = k * (uint64_t)f->comm->size + (uint64_t)f->comm->rank;
            uint64_t lo = MIN(ch * step, f->rows), hi = MIN(lo + step, f->rows);
            GError *one = NULL;
            if (!prism_h5_read_range_internal(d, mt, f->dxpl, lo, ch < n_chunks ? hi - lo : 0, buf,
                                              &one)) {
                g_autofree char *where = chunk_text("landscape", col->name, chunk, ch, f->rows);
                g_string_append_printf(mine, "%s %s\n", where, damage_kind(one->message));
                damaged++;
            }
            g_clear_error(&one);
        }
        (void)prism_h5_close_internal(&d, NULL);
    }
    (void)prism_h5_close_internal(&g, NULL);
    g_autoptr(GString) all = g_string_new(NULL);
    if (ok)
        ok = prism_comm_allreduce_u64(f->comm, damaged, MPI_SUM, &out->damaged, &local) &&
             allgather_lines(f->comm, mine, all, &local);
    if (!ok) {
        g_propagate_error(error, local);
        return FALSE;
    }
    if (all->len > 0 && all->str[all->len - 1] == '\n')
        g_string_truncate(all, all->len - 1);
    out->damaged_chunks = all->len > 0 ? g_strsplit(all->str, "\n", -1) : g_new0(char *, 1);
    return TRUE;
}
