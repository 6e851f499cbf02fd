// SPDX-License-Identifier: MIT
/*
 * io_finish.c - the landscape writer's end: build the HDF5 file from the spill
 * records, add /pareto, /topk and /grid, the root attributes, then rename NAME.partial to
 * NAME and remove the spill folder.
 *
 * Collective on the writer's comm, but the HDF5 file itself is written by rank 0 alone,
 * serially: the spill records are already the file's compressed chunks (compressed by
 * every rank's spill writer thread while the search ran), so writing the file is copying
 * bytes (H5Dwrite_chunk), which one process does at disk speed; only a chunk split
 * between records (a rank boundary, an earlier session) is decoded and written through
 * HDF5's filters. The other ranks wait, then every rank agrees on rank 0's verdict.
 * Not thread-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <prism/core.h>
#include <prism/version.h>

#include "io-writer.h"

static char *utc_now(void)
{
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    return g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
}

gboolean prism_io_write_root_attrs_internal(PrismLandscape *ls, hid_t file, const char *status,
                                            GError **error)
{
    /* Every rank writes identical attributes: the time stamp comes from rank 0. */
    char stamp[32] = "";
    if (ls->comm->rank == 0) {
        g_autofree char *t = utc_now();
        g_strlcpy(stamp, t, sizeof stamp);
    }
    if (!prism_comm_bcast_bytes(ls->comm, stamp, sizeof stamp, 0, error))
        return FALSE;
    unsigned maj = 0, min = 0, rel = 0;
    (void)PRISM_H5_TRY(H5get_libversion(&maj, &min, &rel), NULL);
    g_autofree char *h5v = g_strdup_printf("%u.%u.%u", maj, min, rel);
    if (!prism_h5_attr_string_internal(file, "tool", "prism", error) ||
        !prism_h5_attr_string_internal(file, "tool_version", PRISM_VERSION_STRING, error) ||
        !prism_h5_attr_string_internal(file, "git_revision", PRISM_GIT_REVISION, error) ||
        !prism_h5_attr_string_internal(file, "hdf5_version", h5v, error) ||
        !prism_h5_attr_string_internal(file, "created_utc", stamp, error) ||
        !prism_h5_attr_u64_internal(file, "schema_version", PRISM_LANDSCAPE_SCHEMA_VERSION,
                                    error) ||
        !prism_h5_attr_u64_internal(file, "ranks", (uint64_t)ls->ranks, error) ||
        !prism_h5_attr_u64_internal(file, "sessions", ls->session, error) ||
        !prism_h5_attr_string_internal(file, "status", status, error))
        return FALSE;
    for (guint i = 0; i < ls->attr_names->len; i++)
        if (!prism_h5_attr_string_internal(file, g_ptr_array_index(ls->attr_names, i),
                                           g_ptr_array_index(ls->attr_values, i), error))
            return FALSE;
    return TRUE;
}

typedef struct {
    PrismLandscape *ls;
    GArray *records; /* every session's records, sorted by first */
    int *fds;        /* by file id, opened lazily */
    GByteArray *scratch;
    PrismChunkCoder *cc;
} Assembly;

static int assembly_fd(Assembly *a, uint32_t file, GError **error)
{
    if (a->fds[file] < 0) {
        const char *p = g_ptr_array_index(a->ls->files, file);
        a->fds[file] = open(p, O_RDONLY | O_CLOEXEC);
        if (a->fds[file] < 0)
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "opening %s: %s", p,
                        g_strerror(errno));
    }
    return a->fds[file];
}

/* Fill rows [lo, hi) of column @p col into @p dst from the records covering them. */
static gboolean gather_column(Assembly *a, size_t col, uint64_t lo, uint64_t hi, void *dst,
                              GError **error)
{
    const PrismSpillRecord *r = (const PrismSpillRecord *)(const void *)a->records->data;
    guint n = a->records->len, left = 0, right = n;
    while (left < right) { /* first record whose end is beyond lo */
        guint mid = left + (right - left) / 2;
        if (r[mid].first + r[mid].n <= lo)
            left = mid + 1;
        else
            right = mid;
    }
    uint64_t g = lo;
    for (guint i = left; i < n && g < hi; i++) {
        if (r[i].first + r[i].n <= g)
            continue; /* overlapping duplicate already used */
        if (r[i].first > g)
            break;
        uint64_t stop = MIN(hi, r[i].first + r[i].n);
        int fd = assembly_fd(a, r[i].file, error);
        if (fd < 0 ||
            !prism_spill_read_column_internal(
                fd, g_ptr_array_index(a->ls->files, r[i].file), a->ls->schema, &r[i], col, g, stop,
                dst, lo, r[i].file < a->ls->n_old_files, a->cc, a->scratch, error))
            return FALSE;
        g = stop;
    }
    if (g < hi) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "landscape rows %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
                    " were never delivered to the writer",
                    g, hi);
        return FALSE;
    }
    return TRUE;
}

/* Everyone's records of this session, added to the earlier ones. */
static gboolean gather_records(PrismLandscape *ls, GArray *all, GError **error)
{
    int size = ls->comm->size;
    int mine = (int)(ls->my_records->len * sizeof(PrismSpillRecord));
    g_autofree int *counts = g_new0(int, size);
    g_autofree int *displs = g_new0(int, size);
    PRISM_MPI_TRY(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, ls->comm->mpi), error);
    int total = 0;
    for (int r = 0; r < size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    g_array_append_vals(all, ls->old_records->data, ls->old_records->len);
    guint base = all->len;
    g_array_set_size(all, base + (guint)(total / (int)sizeof(PrismSpillRecord)));
    PRISM_MPI_TRY(MPI_Allgatherv(ls->my_records->data, mine, MPI_BYTE,
                                 all->data + base * sizeof(PrismSpillRecord), counts, displs,
                                 MPI_BYTE, ls->comm->mpi),
                  error);
    g_array_sort(all, prism_spill_record_cmp_internal);
    return TRUE;
}

/* Agree on a step every rank took; a failing step must have set *error. */
static gboolean agree_step(PrismComm *comm, gboolean local_ok, GError **error)
{
    if (!local_ok && *error == NULL)
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL, "unknown failure");
    return prism_comm_agree_error(comm, error);
}

/* An HDF5 step that failed: remembered for the message (the file is serial, rank 0's
 * alone, so it is still closed; see io/README.md, Write errors). */
static gboolean step(PrismLandscape *ls, gboolean local_ok, GError **error)
{
    gboolean ok = agree_step(ls->comm, local_ok, error);
    if (!ok)
        ls->h5_failed = TRUE;
    return ok;
}

/* A small 1-D dataset whose values come from rank 0 (n agreed beforehand). */
static gboolean write_small(PrismLandscape *ls, hid_t loc, const char *name, hid_t type, uint64_t n,
                            const void *buf, hid_t dxpl, const char *unit, const char *doc,
                            GError **error)
{
    PrismComm *comm = ls->comm;
    hid_t d = prism_h5_dataset_create_internal(loc, name, type, n, 0, PRISM_CODEC_NONE, 0, error);
    gboolean ok = step(ls, d >= 0, error);
    if (ok)
        ok = step(ls,
                  (unit == NULL || prism_h5_attr_string_internal(d, "unit", unit, error)) &&
                      (doc == NULL || prism_h5_attr_string_internal(d, "doc", doc, error)),
                  error);
    if (ok && n > 0)
        ok = step(
            ls,
            prism_h5_write_range_internal(d, type, dxpl, 0, comm->rank == 0 ? n : 0, buf, error),
            error);
    if (d >= 0 && !ls->h5_broken) {
        gboolean closed = prism_h5_close_internal(&d, error);
        ok = ok && step(ls, closed, error); /* after an agreed failure: just close */
    }
    return ok;
}

static hid_t create_group(hid_t file, const char *name, GError **error)
{
    hid_t gcpl = PRISM_H5_TRY(H5Pcreate(H5P_GROUP_CREATE), error), g = -1;
    if (gcpl >= 0 &&
        PRISM_H5_TRY(
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
            error) >= 0 &&
        prism_h5_compact_internal(gcpl, error))
        g = PRISM_H5_TRY(H5Gcreate2(file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT), error);
    (void)prism_h5_close_internal(&gcpl, NULL);
    if (g < 0)
        g_prefix_error(error, "group %s: ", name);
    return g;
}

static gboolean close_group(PrismLandscape *ls, hid_t g, const char *name, gboolean ok,
                            GError **error)
{
    if (ls->h5_broken)
        return FALSE;
    gboolean closed = prism_h5_close_internal(&g, error);
    if (!closed && ok)
        g_prefix_error(error, "%s: ", name);
    return ok && step(ls, closed, error); /* after an agreed failure: just close */
}

/* The record that is chunk [lo, lo + chunk) of the file, whole and in the file's codec
 * (then its segments are the stored chunks), or NULL. */
static const PrismSpillRecord *exact_record(const PrismLandscape *ls, const GArray *records,
                                            uint64_t lo, uint64_t chunk)
{
    const PrismSpillRecord *r = (const PrismSpillRecord *)(const void *)records->data;
    guint left = 0, right = records->len;
    while (left < right) { /* first record that starts at lo or later */
        guint mid = left + (right - left) / 2;
        if (r[mid].first < lo)
            left = mid + 1;
        else
            right = mid;
    }
    uint64_t n = MIN(chunk, ls->total - lo);
    for (guint i = left; i < records->len && r[i].first == lo; i++)
        if (r[i].n == n && r[i].n_enc == chunk && r[i].codec == (uint32_t)ls->opts.codec &&
            r[i].level == ls->opts.level)
            return &r[i];
    return NULL;
}

static gboolean write_landscape(PrismLandscape *ls, hid_t file, hid_t dxpl, GArray *records,
                                GError **error)
{
    const PrismLandscapeSchema *schema = ls->schema;
    hid_t group = create_group(file, "landscape", error);
    if (!step(ls, group >= 0, error))
        return FALSE;
    gboolean ok = TRUE;
    uint64_t total = ls->total, chunk = ls->chunk;
    g_autofree hid_t *dsets = g_new(hid_t, schema->n);
    for (size_t c = 0; c < schema->n; c++)
        dsets[c] = -1;
    GString *names = g_string_new(NULL), *dims = g_string_new(NULL);
    for (size_t c = 0; c < schema->n && ok; c++) {
        const PrismLandscapeColumn *col = &schema->cols[c];
        g_string_append_printf(names, "%s%s", c ? "," : "", col->name);
        if (col->source == PRISM_LS_SOURCE_DIM) /* the strategy dims, for readers (scripts/) */
            g_string_append_printf(dims, "%s%s", dims->len ? "," : "", col->name);
        dsets[c] = prism_h5_dataset_create_internal(group, col->name,
                                                    prism_h5_store_type_internal(col->store), total,
                                                    chunk, ls->opts.codec, ls->opts.level, error);
        ok = step(ls, dsets[c] >= 0, error);
        if (ok)
            ok = step(ls,
                      prism_h5_attr_string_internal(dsets[c], "unit", col->unit, error) &&
                          prism_h5_attr_string_internal(dsets[c], "doc", col->doc, error) &&
                          prism_h5_attr_string_internal(dsets[c], "type",
                                                        prism_store_name(col->store), error) &&
                          (col->codes == NULL ||
                           prism_h5_attr_string_internal(dsets[c], "codes", col->codes, error)),
                      error);
    }
    if (ok)
        ok = step(ls, prism_h5_attr_string_internal(group, "columns", names->str, error), error);
    if (ok)
        ok = step(ls, prism_h5_attr_string_internal(group, "dims", dims->str, error), error);
    g_string_free(names, TRUE);
    g_string_free(dims, TRUE);
    /* Chunk by chunk, column after column (each column's chunks lie together in the
     * file): a chunk that one record holds whole is copied; any other is gathered from
     * the records that cover it and written through HDF5's filters. */
    uint64_t n_chunks = total > 0 ? (total + chunk - 1) / chunk : 0;
    g_autofree const PrismSpillRecord **exact = g_new0(const PrismSpillRecord *, MAX(n_chunks, 1));
    for (uint64_t k = 0; k < n_chunks; k++)
        exact[k] = exact_record(ls, records, k * chunk, chunk);
    Assembly a = {ls, records, g_new(int, MAX(ls->files->len, 1)), g_byte_array_new(),
                  prism_chunk_coder_new()};
    for (guint f = 0; f < ls->files->len; f++)
        a.fds[f] = -1;
    void *buf = g_malloc(MAX(chunk, 1) * sizeof(double));
    for (size_t c = 0; c < schema->n && ok; c++) {
        size_t vsize = prism_store_size(schema->cols[c].store);
        for (uint64_t k = 0; k < n_chunks && ok; k++) {
            uint64_t lo = k * chunk, hi = MIN(lo + chunk, total);
            const PrismSpillRecord *r = exact[k];
            const void *bytes = NULL;
            size_t size = 0;
            if (r != NULL) {
                int fd = assembly_fd(&a, r->file, error);
                ok = fd >= 0 && prism_spill_read_segment_internal(
                                    fd, g_ptr_array_index(ls->files, r->file), schema, r, c,
                                    r->file < ls->n_old_files, a.scratch, error);
                bytes = a.scratch->data;
                size = a.scratch->len;
            } else { /* gathered, then encoded as HDF5 would (an edge chunk padded) */
                ok = gather_column(&a, c, lo, hi, buf, error) &&
                     prism_chunk_encode(a.cc, ls->opts.codec, ls->opts.level, buf, hi - lo, chunk,
                                        vsize, &bytes, &size, error);
            }
            if (!ok)
                break;
            /* Written straight to the file: no chunk cache holds it until the close. */
            hsize_t off[1] = {lo};
            ok = step(ls,
                      PRISM_H5_TRY(H5Dwrite_chunk(dsets[c], dxpl, 0, off, size, bytes), error) >= 0,
                      error);
        }
        if (ls->test_delay_ms > 0) /* PRISM_IO_TEST_DELAY_MS: widen the window for kills */
            g_usleep((gulong)ls->test_delay_ms * 1000);
    }
    g_free(buf);
    for (guint f = 0; f < ls->files->len; f++)
        if (a.fds[f] >= 0)
            close(a.fds[f]);
    g_free(a.fds);
    g_byte_array_unref(a.scratch);
    prism_chunk_coder_free(a.cc);
    gboolean closed = TRUE;
    for (size_t c = 0; c < schema->n; c++)
        if (!prism_h5_close_internal(&dsets[c], error))
            closed = FALSE;
    if (ok)
        ok = step(ls, closed, error);
    return close_group(ls, group, "/landscape", ok, error);
}

/* /pareto or /topk: index (+ rank for topk) and every landscape column. */
static gboolean write_table(PrismLandscape *ls, hid_t file, hid_t dxpl, const char *name,
                            const PrismLandscapeRow *rows, size_t n_rows, gboolean ranked,
                            GError **error)
{
    PrismComm *comm = ls->comm;
    uint64_t n = comm->rank == 0 ? n_rows : 0;
    if (!prism_comm_bcast_bytes(comm, &n, sizeof n, 0, error))
        return FALSE;
    hid_t g = create_group(file, name, error);
    if (!step(ls, g >= 0, error))
        return FALSE;
    /* The landscape's columns, with hfu itself in place of flops_time (a row of the
     * tables carries its cost columns, not its segment's flops_time). */
    g_autoptr(PrismLandscapeSchema) schema = prism_io_schema_copy_internal(ls->schema);
    for (size_t c = 0; c < schema->n; c++)
        if (schema->cols[c].source == PRISM_LS_SOURCE_FLOPS_TIME) {
            const PrismColInfo *info = prism_col_info(PRISM_COL_HFU);
            g_free(schema->cols[c].name);
            g_free(schema->cols[c].unit);
            g_free(schema->cols[c].doc);
            schema->cols[c].name = g_strdup(info->name);
            schema->cols[c].unit = g_strdup(info->unit);
            schema->cols[c].doc = g_strdup(info->doc);
            schema->cols[c].store = info->store;
            schema->cols[c].source = PRISM_LS_SOURCE_COST;
            schema->cols[c].index = PRISM_COL_HFU;
        }
    size_t have = comm->rank == 0 ? (size_t)n : 0;
    g_autofree uint64_t *index = g_new0(uint64_t, MAX(have, 1));
    g_autofree uint32_t *rank_col = g_new0(uint32_t, MAX(have, 1));
    void **bufs = g_new0(void *, schema->n);
    for (size_t c = 0; c < schema->n; c++)
        bufs[c] = g_malloc0(MAX(have, 1) * prism_store_size(schema->cols[c].store));
    for (size_t i = 0; i < have; i++) {
        index[i] = rows[i].index;
        rank_col[i] = (uint32_t)(i + 1);
        prism_io_pack_row_internal(schema, &rows[i], bufs, i);
    }
    gboolean ok = write_small(ls, g, "index", H5T_NATIVE_UINT64, n, index, dxpl, "row",
                              "global row index into /landscape", error);
    if (ok && ranked)
        ok = write_small(ls, g, "rank", H5T_NATIVE_UINT32, n, rank_col, dxpl, "position",
                         "1 = best", error);
    for (size_t c = 0; c < schema->n && ok; c++)
        ok = write_small(ls, g, schema->cols[c].name,
                         prism_h5_store_type_internal(schema->cols[c].store), n, bufs[c], dxpl,
                         schema->cols[c].unit, NULL, error);
    for (size_t c = 0; c < schema->n; c++)
        g_free(bufs[c]);
    g_free(bufs);
    return close_group(ls, g, name, ok, error);
}

static gboolean write_strings(PrismLandscape *ls, hid_t loc, const char *name, const char *const *v,
                              size_t n, hid_t dxpl, GError **error)
{
    size_t width = 1;
    for (size_t i = 0; i < n; i++)
        width = MAX(width, strlen(v[i]) + 1);
    g_autofree char *flat = g_malloc0(MAX(n, 1) * width);
    for (size_t i = 0; i < n; i++)
        memcpy(flat + i * width, v[i], strlen(v[i]));
    /* Fixed-length strings: parallel HDF5 cannot write variable-length data. */
    GError *local = NULL;
    hid_t type = PRISM_H5_TRY(H5Tcopy(H5T_C_S1), &local);
    if (type >= 0 && (PRISM_H5_TRY(H5Tset_size(type, width), &local) < 0 ||
                      PRISM_H5_TRY(H5Tset_strpad(type, H5T_STR_NULLPAD), &local) < 0 ||
                      PRISM_H5_TRY(H5Tset_cset(type, H5T_CSET_UTF8), &local) < 0))
        (void)prism_h5_close_internal(&type, NULL);
    /* A failure to build the type is local and identical on every rank: agree first. */
    if (local != NULL)
        g_propagate_error(error, local);
    if (!agree_step(ls->comm, type >= 0, error))
        return FALSE;
    gboolean ok = write_small(ls, loc, name, type, n, flat, dxpl, NULL, NULL, error);
    (void)prism_h5_close_internal(&type, NULL);
    return ok;
}

static gboolean write_grid(PrismLandscape *ls, hid_t file, hid_t dxpl, const uint64_t *feasible,
                           GError **error)
{
    size_t n = ls->n_grid;
    hid_t g = create_group(file, "grid", error);
    if (!step(ls, g >= 0, error))
        return FALSE;
    g_autofree const char **models = g_new0(const char *, MAX(n, 1));
    g_autofree const char **clusters = g_new0(const char *, MAX(n, 1));
    g_autofree uint32_t *devices = g_new0(uint32_t, MAX(n, 1));
    g_autofree uint64_t *u = g_new0(uint64_t, 5 * MAX(n, 1));
    /* names from a point function are interned here: they are borrowed per call */
    g_autoptr(GStringChunk) names = g_string_chunk_new(4096);
    for (size_t i = 0; i < n; i++) {
        PrismGridPointInfo p;
        if (ls->grid_fn != NULL) {
            ls->grid_fn(ls->grid_user, i, &p);
            p.model = g_string_chunk_insert_const(names, p.model ? p.model : "");
            p.cluster = g_string_chunk_insert_const(names, p.cluster ? p.cluster : "");
        } else {
            p = ls->grid[i];
        }
        models[i] = p.model;
        clusters[i] = p.cluster;
        devices[i] = p.devices;
        u[0 * n + i] = p.gbs;
        u[1 * n + i] = p.seq;
        u[2 * n + i] = p.first_row;
        u[3 * n + i] = p.rows;
        u[4 * n + i] = feasible[i];
    }
    static const char *const unames[5] = {"gbs", "seq", "first_row", "rows", "feasible_rows"};
    static const char *const udocs[5] = {"global batch in sequences", "sequence length",
                                         "first global row of the point", "rows of the point",
                                         "rows that fit in memory"};
    gboolean ok = write_strings(ls, g, "model", models, n, dxpl, error) &&
                  write_strings(ls, g, "cluster", clusters, n, dxpl, error) &&
                  write_small(ls, g, "devices", H5T_NATIVE_UINT32, n, devices, dxpl, "count",
                              "device count (0 = several: a dim of the point)", error);
    for (size_t k = 0; k < 5 && ok; k++)
        ok = write_small(ls, g, unames[k], H5T_NATIVE_UINT64, n, u + k * n, dxpl, NULL, udocs[k],
                         error);
    return close_group(ls, g, "/grid", ok, error);
}

/* /constants: per point, the constants of the derived columns; /landscape's "derived"
 * attribute names those columns (only when their inputs are stored). */
static gboolean write_constants(PrismLandscape *ls, hid_t file, hid_t dxpl, GError **error)
{
    size_t n = ls->n_constants;
    hid_t g = create_group(file, "constants", error);
    if (!step(ls, g >= 0, error))
        return FALSE;
    g_autofree double *v = g_new0(double, 3 * MAX(n, 1));
    for (size_t i = 0; i < n; i++) {
        v[i] = ls->constants[i].flops_per_step;
        v[n + i] = ls->constants[i].peak_flops;
        v[2 * n + i] = ls->constants[i].tokens_per_step;
    }
    gboolean ok =
        step(ls,
             prism_h5_attr_string_internal(
                 g, "doc",
                 "per grid point (row = point): mfu = (flops_per_step / (devices x peak_flops)) x "
                 "(1 / step_time), tokens_per_s = tokens_per_step x (1 / step_time), hfu = "
                 "/landscape/flops_time x (1 / step_time), in double, then float32",
                 error),
             error) &&
        write_small(ls, g, "flops_per_step", H5T_NATIVE_DOUBLE, n, v, dxpl, "FLOP",
                    "model FLOPs per step (MFU convention)", error) &&
        write_small(ls, g, "peak_flops", H5T_NATIVE_DOUBLE, n, v + n, dxpl, "FLOP/s",
                    "per-device peak MFU is taken against (BF16 dense)", error) &&
        write_small(ls, g, "tokens_per_step", H5T_NATIVE_DOUBLE, n, v + 2 * n, dxpl, "tokens",
                    "gbs x seq", error);
    return close_group(ls, g, "/constants", ok, error);
}

static gboolean write_derived_attr(PrismLandscape *ls, hid_t file, GError **error)
{
    const PrismLandscapeSchema *schema = ls->schema;
    gboolean step_time = FALSE, devices = FALSE, flops_time = FALSE;
    for (size_t c = 0; c < schema->n; c++) {
        step_time |= strcmp(schema->cols[c].name, "step_time") == 0;
        devices |= strcmp(schema->cols[c].name, "devices") == 0;
        flops_time |= schema->cols[c].source == PRISM_LS_SOURCE_FLOPS_TIME;
    }
    if (!step_time || !devices)
        return TRUE;
    hid_t g = PRISM_H5_TRY(H5Gopen2(file, "landscape", H5P_DEFAULT), error);
    gboolean ok = g >= 0 && prism_h5_attr_string_internal(
                                g, "derived",
                                flops_time ? "mfu,tokens_per_s,hfu" : "mfu,tokens_per_s", error);
    (void)prism_h5_close_internal(&g, NULL);
    return step(ls, ok, error);
}

/* Per-job row and feasible counts summed over ranks (every row was seen by one rank). */
static gboolean job_counts(PrismLandscape *ls, GArray *rows_out, GArray *feas_out, GError **error)
{
    uint64_t mine = ls->rows_per_job->len, n = 0;
    if (!prism_comm_allreduce_u64(ls->comm, mine, MPI_MAX, &n, error))
        return FALSE;
    n = MAX(n, (uint64_t)ls->n_grid);
    g_array_set_size(ls->rows_per_job, (guint)n);
    g_array_set_size(ls->feasible_per_job, (guint)n);
    g_array_set_size(rows_out, (guint)n);
    g_array_set_size(feas_out, (guint)n);
    if (n == 0)
        return TRUE;
    PRISM_MPI_TRY(MPI_Allreduce(ls->rows_per_job->data, rows_out->data, (int)n, MPI_UINT64_T,
                                MPI_SUM, ls->comm->mpi),
                  error);
    PRISM_MPI_TRY(MPI_Allreduce(ls->feasible_per_job->data, feas_out->data, (int)n, MPI_UINT64_T,
                                MPI_SUM, ls->comm->mpi),
                  error);
    return TRUE;
}

/* Rank 0 alone (ls->comm is its own communicator): the whole HDF5 file, serially. On
 * failure the message says how to go on. */
static gboolean write_file(PrismLandscape *ls, GArray *records, uint64_t feasible,
                           const uint64_t *feas_job, const PrismLandscapeRow *pareto,
                           size_t n_pareto, const PrismLandscapeRow *topk, size_t n_topk,
                           GError **error)
{
    hid_t fapl = PRISM_H5_TRY(H5Pcreate(H5P_FILE_ACCESS), error);
    /* the 1.8 format or later: superblock v2 and version-2 object headers carry checksums,
     * so HDF5 reports damaged metadata instead of reading it (io/README.md, "The file") */
    if (fapl >= 0 &&
        PRISM_H5_TRY(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST), error) < 0)
        (void)prism_h5_close_internal(&fapl, NULL);
    hid_t fcpl = prism_h5_fcpl_internal(), dxpl = H5P_DEFAULT;
    hid_t file = fapl >= 0 && fcpl >= 0
                     ? PRISM_H5_TRY(H5Fcreate(ls->partial, H5F_ACC_TRUNC, fcpl, fapl), error)
                     : -1;
    if (file < 0 && *error == NULL)
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HDF5,
                    "%s: HDF5 property lists could not be created", ls->partial);
    gboolean ok = step(ls, file >= 0, error);
    if (ok)
        ok = step(ls,
                  prism_io_write_root_attrs_internal(ls, file, "incomplete", error) &&
                      prism_h5_attr_u64_internal(file, "rows", ls->total, error) &&
                      prism_h5_attr_u64_internal(file, "feasible_rows", feasible, error) &&
                      prism_h5_attr_string_internal(
                          file, "landscape",
                          ls->opts.no_landscape ? "not stored (--no-landscape)" : "stored", error),
                  error);
    if (ok && !ls->opts.no_landscape)
        ok = write_landscape(ls, file, dxpl, records, error);
    if (ok && ls->n_constants > 0) {
        ok = write_constants(ls, file, dxpl, error);
        if (ok && !ls->opts.no_landscape)
            ok = write_derived_attr(ls, file, error);
    }
    if (ok)
        ok = write_table(ls, file, dxpl, "pareto", pareto, n_pareto, FALSE, error) &&
             write_table(ls, file, dxpl, "topk", topk, n_topk, TRUE, error);
    if (ok && ls->n_grid > 0)
        ok = write_grid(ls, file, dxpl, feas_job, error);
    if (ok)
        ok = step(ls, prism_h5_attr_string_internal(file, "status", "complete", error), error);
    if (ok) {
        gboolean flushed = PRISM_H5_TRY(H5Fflush(file, H5F_SCOPE_GLOBAL), error) >= 0;
        ok = step(ls, flushed, error);
    }
    /* HDF5's error stack does not always carry errno: name the likely cause, measured
     * before the truncation below frees the room. */
    g_autofree char *space =
        !ok && ls->h5_failed ? prism_io_free_space_note_internal(ls->partial) : NULL;
    if (file >= 0) { /* a serial file closes after a failure too */
        /* After a failed write (ENOSPC above all) the close's own metadata flush fails
         * too, and HDF5 1.10 keeps the half-closed file until its library shutdown at
         * MPI_Finalize, where it crashes. The partial was created empty (H5F_ACC_TRUNC)
         * for this write, so nothing in it is needed: truncate it first, which frees the
         * room the close needs; --resume writes it again from the spill records. */
        if (!ok && truncate(ls->partial, 0) != 0)
            g_debug("truncate %s: %s", ls->partial, g_strerror(errno));
        gboolean closed = prism_h5_close_internal(&file, ok ? error : NULL);
        ok = ok && step(ls, closed, error);
    }
    (void)prism_h5_close_internal(&fapl, NULL);
    (void)prism_h5_close_internal(&fcpl, NULL);
    if (!ok && ls->h5_failed) {
        g_prefix_error(error,
                       "writing %s failed%s; the partial output and its spill folder "
                       "are kept (fix the cause and rerun with --resume): ",
                       ls->partial, space);
    } else if (!ok && strstr((*error)->message, "--drop-damaged") != NULL) {
        g_prefix_error(error, "writing %s: ", ls->partial); /* one way out, named already */
    } else if (!ok) {
        g_prefix_error(error,
                       "writing %s (kept with its spill folder; fix the cause and rerun "
                       "with --resume): ",
                       ls->partial);
    }
    return ok;
}

static gboolean finish(PrismLandscape *ls, const PrismLandscapeRow *pareto, size_t n_pareto,
                       const PrismLandscapeRow *topk, size_t n_topk, GError **error)
{
    PrismComm *comm = ls->comm;
    g_autoptr(GArray) rows_job = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    g_autoptr(GArray) feas_job = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    if (!job_counts(ls, rows_job, feas_job, error))
        return FALSE;
    uint64_t seen = 0, feasible = 0;
    for (guint j = 0; j < rows_job->len; j++) {
        seen += g_array_index(rows_job, uint64_t, j);
        feasible += g_array_index(feas_job, uint64_t, j);
    }
    if (seen != ls->total) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "landscape: the sink saw %" G_GUINT64_FORMAT " rows of %" G_GUINT64_FORMAT,
                    seen, ls->total);
        return FALSE; /* the same sums on every rank: all fail here */
    }
    g_autoptr(GArray) records = g_array_new(FALSE, FALSE, sizeof(PrismSpillRecord));
    if (!ls->opts.no_landscape && !gather_records(ls, records, error))
        return FALSE;
    if (comm->rank == 0) {
        PrismComm *self = prism_comm_new(MPI_COMM_SELF, error);
        if (self != NULL) {
            ls->comm = self;
            (void)write_file(ls, records, feasible, (const uint64_t *)(const void *)feas_job->data,
                             pareto, n_pareto, topk, n_topk, error);
            ls->comm = comm;
            prism_comm_free(self);
        }
    }
    if (!prism_comm_agree_error(comm, error))
        return FALSE;
    /* Complete: publish under the final name, then drop the spill records. */
    if (comm->rank == 0) {
        /* The node checks of prepare, again: something may have appeared at NAME since. */
        if (!prism_io_check_output_internal(ls->path, ls->opts.force, error)) {
            g_prefix_error(error,
                           "%s is complete but not renamed (move the obstacle away and "
                           "rerun with --resume): ",
                           ls->partial);
        } else if (g_rename(ls->partial, ls->path) != 0) {
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "renaming %s to %s: %s",
                        ls->partial, ls->path, g_strerror(errno));
        } else {
            g_autofree char *dir = g_path_get_dirname(ls->path);
            int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)fsync(dfd); /* make the rename durable; best effort */
                close(dfd);
            }
            GError *local = NULL;
            if (!ls->opts.no_landscape &&
                !prism_io_remove_spill_dir_internal(ls->spill_dir, &local)) {
                prism_log(PRISM_LOG_WARN, 0, "%s", local->message);
                g_error_free(local);
            }
            prism_io_unlock_internal(ls, TRUE);
        }
    }
    return prism_comm_agree_error(comm, error);
}

gboolean prism_landscape_finish(PrismLandscape *ls, const PrismLandscapeRow *pareto,
                                size_t n_pareto, const PrismLandscapeRow *topk, size_t n_topk,
                                GError **error)
{
    g_return_val_if_fail(ls != NULL && ls->prepared && ls->began && !ls->finished, FALSE);
    GError *local = NULL; /* the agreement steps need a real error slot */
    gboolean ok = finish(ls, pareto, n_pareto, topk, n_topk, &local);
    if (!ok)
        g_propagate_error(error, local);
    ls->finished = ok;
    return ok;
}
