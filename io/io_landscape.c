// SPDX-License-Identifier: MIT
/*
 * io_landscape.c - the landscape writer's set-up and row sink: options, attributes, the output
 * path checks and resume state (prepare), and the row sink that appends each rank's
 * rows to its own spill file. The HDF5 file itself is written by io_finish.c.
 *
 * prepare() and the sink's begin()/end() are collective on the writer's comm (rank 0
 * does the file-system checks and broadcasts the verdict); rows() is local. Not
 * thread-safe.
 */
#include <prism/io.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <prism/core.h>

#include "io-writer.h"

#define MANIFEST_GROUP "prism-spill"
#define SPILL_FORMAT 3 /* 3: column segments encoded as HDF5 chunks (io_spill.c) */

void prism_landscape_options_default(PrismLandscapeOptions *opts)
{
    memset(opts, 0, sizeof *opts);
    /* zstd level 1: io/README.md has the measurements of every codec */
    opts->codec = PRISM_CODEC_ZSTD;
    opts->level = 1;
    opts->chunk_rows = 65536;
    opts->spill_rows = 65536;
    opts->fsync = TRUE;
}

PrismLandscape *prism_landscape_new(PrismComm *comm, const char *path,
                                    const PrismLandscapeSchema *schema,
                                    const PrismLandscapeOptions *opts)
{
    g_return_val_if_fail(comm != NULL && path != NULL && schema != NULL && opts != NULL, NULL);
    g_return_val_if_fail(!prism_comm_is_solo(comm), NULL); /* parallel HDF5 needs MPI */
    PrismLandscape *ls = g_new0(PrismLandscape, 1);
    ls->comm = comm;
    ls->ranks = comm->size;
    ls->path = g_strdup(path);
    ls->partial = g_strconcat(path, ".partial", NULL);
    ls->spill_dir = g_strconcat(path, ".partial.spill", NULL);
    ls->manifest = g_build_filename(ls->spill_dir, "manifest.ini", NULL);
    ls->lock_path = g_strconcat(path, ".partial.lock", NULL);
    ls->lock_fd = -1;
    ls->schema = prism_io_schema_copy_internal(schema);
    ls->opts = *opts;
    if (ls->opts.chunk_rows == 0)
        ls->opts.chunk_rows = 65536;
    if (ls->opts.spill_rows == 0)
        ls->opts.spill_rows = 65536;
    ls->attr_names = g_ptr_array_new_with_free_func(g_free);
    ls->attr_values = g_ptr_array_new_with_free_func(g_free);
    ls->attr_identity = g_array_new(FALSE, FALSE, sizeof(gboolean));
    ls->files = g_ptr_array_new_with_free_func(g_free);
    ls->old_records = g_array_new(FALSE, FALSE, sizeof(PrismSpillRecord));
    ls->persisted = g_array_new(FALSE, FALSE, sizeof(uint64_t) * 2);
    ls->my_records = g_array_new(FALSE, FALSE, sizeof(PrismSpillRecord));
    g_mutex_init(&ls->wmutex);
    g_cond_init(&ls->wcond);
    ls->feasible_per_job = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    ls->rows_per_job = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    ls->fd = -1;
    const char *delay = g_getenv("PRISM_IO_TEST_DELAY_MS");
    ls->test_delay_ms = delay ? (unsigned)g_ascii_strtoull(delay, NULL, 10) : 0;
    return ls;
}

/* Stop and join the spill writer thread (after its pending record). No-op without one. */
static void stop_writer(PrismLandscape *ls)
{
    if (ls->writer == NULL)
        return;
    g_mutex_lock(&ls->wmutex);
    ls->w_quit = TRUE;
    g_cond_broadcast(&ls->wcond);
    g_mutex_unlock(&ls->wmutex);
    g_thread_join(ls->writer);
    ls->writer = NULL;
}

static void free_buffers(PrismLandscape *ls)
{
    stop_writer(ls);
    for (size_t c = 0; ls->buf != NULL && c < ls->schema->n; c++) {
        g_free(ls->buf[c]);
        g_free(ls->wbuf[c]);
    }
    g_clear_pointer(&ls->buf, g_free);
    g_clear_pointer(&ls->wbuf, g_free);
}

void prism_landscape_free(PrismLandscape *ls)
{
    if (ls == NULL)
        return;
    if (ls->fd >= 0)
        close(ls->fd);
    prism_io_unlock_internal(ls, FALSE); /* an unfinished run keeps its lock file */
    free_buffers(ls);
    g_clear_error(&ls->w_error);
    g_mutex_clear(&ls->wmutex);
    g_cond_clear(&ls->wcond);
    for (size_t i = 0; i < ls->n_grid && ls->grid != NULL; i++) {
        g_free((char *)ls->grid[i].model);
        g_free((char *)ls->grid[i].cluster);
    }
    g_free(ls->grid);
    g_free(ls->constants);
    g_ptr_array_unref(ls->attr_names);
    g_ptr_array_unref(ls->attr_values);
    g_array_unref(ls->attr_identity);
    g_ptr_array_unref(ls->files);
    g_array_unref(ls->old_records);
    g_array_unref(ls->persisted);
    g_array_unref(ls->my_records);
    g_array_unref(ls->feasible_per_job);
    g_array_unref(ls->rows_per_job);
    prism_landscape_schema_free(ls->schema);
    g_free(ls->path);
    g_free(ls->partial);
    g_free(ls->spill_dir);
    g_free(ls->manifest);
    g_free(ls->lock_path);
    g_free(ls->damage.file);
    g_free(ls);
}

void prism_landscape_add_attr(PrismLandscape *ls, const char *name, const char *value,
                              gboolean identity)
{
    g_return_if_fail(ls != NULL && name != NULL);
    g_ptr_array_add(ls->attr_names, g_strdup(name));
    g_ptr_array_add(ls->attr_values, g_strdup(value ? value : ""));
    g_array_append_val(ls->attr_identity, identity);
}

void prism_landscape_set_grid(PrismLandscape *ls, const PrismGridPointInfo *points, size_t n)
{
    g_return_if_fail(ls != NULL);
    ls->grid = g_new0(PrismGridPointInfo, n);
    for (size_t i = 0; i < n; i++) {
        ls->grid[i] = points[i];
        ls->grid[i].model = g_strdup(points[i].model ? points[i].model : "");
        ls->grid[i].cluster = g_strdup(points[i].cluster ? points[i].cluster : "");
    }
    ls->n_grid = n;
    ls->grid_fn = NULL;
}

void prism_landscape_set_grid_fn(PrismLandscape *ls, size_t n, PrismGridPointFn fn, void *user)
{
    g_return_if_fail(ls != NULL && fn != NULL);
    for (size_t i = 0; i < ls->n_grid && ls->grid != NULL; i++) {
        g_free((char *)ls->grid[i].model);
        g_free((char *)ls->grid[i].cluster);
    }
    g_clear_pointer(&ls->grid, g_free);
    ls->n_grid = n;
    ls->grid_fn = fn;
    ls->grid_user = user;
}

void prism_landscape_set_constants(PrismLandscape *ls, const PrismLandscapePointConstants *c,
                                   size_t n)
{
    g_return_if_fail(ls != NULL);
    g_free(ls->constants);
    ls->constants = g_memdup2(c, n * sizeof *c);
    ls->n_constants = n;
}

gboolean prism_landscape_unrecoverable(const PrismLandscape *ls)
{
    return ls->h5_broken;
}

const char *prism_landscape_partial_path(const PrismLandscape *ls)
{
    return ls->partial;
}

uint64_t prism_landscape_rows_skipped(const PrismLandscape *ls)
{
    return ls->skipped;
}

uint64_t prism_landscape_rows_spilled(const PrismLandscape *ls)
{
    return ls->spilled;
}

static char *schema_text(const PrismLandscapeSchema *schema)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < schema->n; i++)
        g_string_append_printf(s, "%s%s:%s", i ? "," : "", schema->cols[i].name,
                               prism_store_name(schema->cols[i].store));
    return g_string_free(s, FALSE);
}

static gboolean write_manifest(const PrismLandscape *ls, GKeyFile *kf, GError **error)
{
    gsize len = 0;
    g_autofree char *text = g_key_file_to_data(kf, &len, NULL);
    GError *local = NULL;
    if (!g_file_set_contents_full(ls->manifest, text, (gssize)len,
                                  G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                  0644, &local)) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "writing %s: %s",
                    ls->manifest, local->message);
        g_error_free(local);
        return FALSE;
    }
    return TRUE;
}

/* @p text around its first difference from @p other (long JSON attributes differ deep
 * inside: a prefix alone would show two equal excerpts). */
static char *excerpt_at_difference(const char *text, const char *other)
{
    size_t d = 0, n = strlen(text);
    while (text[d] != '\0' && text[d] == other[d])
        d++;
    size_t from = d > 60 ? d - 60 : 0, to = MIN(n, d + 100);
    return g_strdup_printf("%s%.*s%s", from > 0 ? "..." : "", (int)(to - from), text + from,
                           to < n ? "..." : "");
}

/* Compare the identity of a partial run with ours; explain the first difference. */
static gboolean check_identity(const PrismLandscape *ls, GKeyFile *kf, GError **error)
{
    g_autofree char *schema = schema_text(ls->schema);
    g_autofree char *old_schema = g_key_file_get_string(kf, MANIFEST_GROUP, "schema", NULL);
    int format = g_key_file_get_integer(kf, MANIFEST_GROUP, "format", NULL);
    if (format != SPILL_FORMAT || old_schema == NULL || strcmp(old_schema, schema) != 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "cannot resume %s: it was written with other landscape columns (%s); use "
                    "--force to start over",
                    ls->partial, old_schema ? old_schema : "unknown format");
        return FALSE;
    }
    gsize n_old = 0; /* the keys themselves are not needed, only how many */
    g_strfreev(g_key_file_get_keys(kf, "identity", &n_old, NULL));
    guint n_ident = 0;
    for (guint i = 0; i < ls->attr_names->len; i++) {
        if (!g_array_index(ls->attr_identity, gboolean, i))
            continue;
        n_ident++;
        const char *name = g_ptr_array_index(ls->attr_names, i);
        const char *value = g_ptr_array_index(ls->attr_values, i);
        g_autofree char *old = g_key_file_get_string(kf, "identity", name, NULL);
        if (old == NULL || strcmp(old, value) != 0) {
            g_autofree char *was = old ? excerpt_at_difference(old, value) : g_strdup("(none)");
            g_autofree char *now = excerpt_at_difference(value, old ? old : "");
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "cannot resume %s: it was started with a different %s (was: %s; now: "
                        "%s); rerun with the original inputs, or use --force to start over",
                        ls->partial, name, was, now);
            return FALSE;
        }
    }
    if (n_old != n_ident) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "cannot resume %s: it records %zu input attributes, this run has %u; use "
                    "--force to start over",
                    ls->partial, (size_t)n_old, n_ident);
        return FALSE;
    }
    return TRUE;
}

/* The spill folder of an earlier run is removed before a fresh start; a folder that holds
 * other files is the user's, so that is bad output-path input (exit 2), not an I/O error. */
static gboolean remove_old_spill(const PrismLandscape *ls, GError **error)
{
    if (prism_io_remove_spill_dir_internal(ls->spill_dir, error))
        return TRUE;
    g_prefix_error(error, "-o %s: ", ls->path);
    (*error)->domain = PRISM_INPUT_ERROR;
    (*error)->code = PRISM_INPUT_ERROR_OUTPUT;
    return FALSE;
}

/* Rank 0's part of prepare(): decide fresh / resume / refuse and set up the folder. */
static gboolean prepare_root(PrismLandscape *ls, uint32_t *session, GError **error)
{
    /* Nothing is deleted or created before the node checks and the lock. */
    if (!prism_io_check_output_internal(ls->path, ls->opts.force, error) ||
        !prism_io_lock_internal(ls, error))
        return FALSE;
    gboolean have_partial = g_file_test(ls->partial, G_FILE_TEST_EXISTS) ||
                            g_file_test(ls->spill_dir, G_FILE_TEST_EXISTS);
    *session = 1;
    if (have_partial && ls->opts.force) {
        if (!remove_old_spill(ls, error))
            return FALSE;
        have_partial = FALSE;
    } else if (have_partial && !ls->opts.resume) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "%s exists from an interrupted run; use --resume to continue it or --force "
                    "to start over",
                    g_file_test(ls->partial, G_FILE_TEST_EXISTS) ? ls->partial : ls->spill_dir);
        return FALSE;
    }
    prism_io_remove_ompio_leftovers_internal(ls->partial);
    if (ls->opts.no_landscape && g_file_test(ls->spill_dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                    "%s holds the rows of an interrupted landscape run, which --no-landscape "
                    "would discard; resume it without --no-landscape, or use --force",
                    ls->spill_dir);
        return FALSE;
    }
    if (ls->opts.no_landscape)
        return TRUE; /* nothing to spill; a resumed --no-landscape run simply starts over */
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (have_partial && g_file_test(ls->manifest, G_FILE_TEST_EXISTS)) {
        GError *local = NULL;
        if (!g_key_file_load_from_file(kf, ls->manifest, G_KEY_FILE_NONE, &local)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "cannot resume: %s: %s; use --force to start over", ls->manifest,
                        local->message);
            g_error_free(local);
            return FALSE;
        }
        if (!check_identity(ls, kf, error))
            return FALSE;
        *session = (uint32_t)g_key_file_get_integer(kf, MANIFEST_GROUP, "sessions", NULL) + 1;
        ls->resuming = TRUE;
    } else {
        /* Fresh start (also --resume with nothing, or a partial killed before its
         * manifest existed: it holds no rows). */
        if (have_partial && !remove_old_spill(ls, error))
            return FALSE;
        if (g_mkdir(ls->spill_dir, 0755) != 0 && errno != EEXIST) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "-o %s: cannot create the folder %s: %s", ls->path, ls->spill_dir,
                        g_strerror(errno));
            return FALSE;
        }
        g_autofree char *schema = schema_text(ls->schema);
        g_key_file_set_integer(kf, MANIFEST_GROUP, "format", SPILL_FORMAT);
        g_key_file_set_string(kf, MANIFEST_GROUP, "schema", schema);
        for (guint i = 0; i < ls->attr_names->len; i++)
            if (g_array_index(ls->attr_identity, gboolean, i))
                g_key_file_set_string(kf, "identity", g_ptr_array_index(ls->attr_names, i),
                                      g_ptr_array_index(ls->attr_values, i));
    }
    g_key_file_set_integer(kf, MANIFEST_GROUP, "sessions", (gint)*session);
    if (!write_manifest(ls, kf, error)) {
        g_prefix_error(error, "-o %s: ", ls->path);
        (*error)->domain = PRISM_INPUT_ERROR;
        (*error)->code = PRISM_INPUT_ERROR_OUTPUT;
        return FALSE;
    }
    return TRUE;
}

static gboolean prepare(PrismLandscape *ls, GError **error)
{
    prism_h5_quiet_internal();
    uint32_t session = 1;
    uint32_t head[2] = {0, 0};
    if (ls->comm->rank == 0) {
        (void)prepare_root(ls, &session, error);
        head[0] = session;
        head[1] = ls->resuming;
    }
    if (!prism_comm_agree_error(ls->comm, error))
        return FALSE;
    if (!prism_comm_bcast_bytes(ls->comm, head, sizeof head, 0, error))
        return FALSE;
    ls->session = head[0];
    ls->resuming = head[1] != 0;
    /* NAME.partial: provenance only, so `prism info NAME.partial` explains the state. */
    hid_t fapl = prism_h5_fapl_internal(ls->comm), fcpl = prism_h5_fcpl_internal();
    hid_t file = fapl >= 0 && fcpl >= 0
                     ? PRISM_H5_TRY(H5Fcreate(ls->partial, H5F_ACC_TRUNC, fcpl, fapl), error)
                     : -1;
    if (file < 0) {
        if (*error == NULL)
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_HDF5,
                        "HDF5 property lists could not be created");
        g_prefix_error(error, "-o %s: cannot create %s: ", ls->path, ls->partial);
        (*error)->domain = PRISM_INPUT_ERROR;
        (*error)->code = PRISM_INPUT_ERROR_OUTPUT;
    }
    if (prism_comm_agree_error(ls->comm, error)) {
        (void)prism_io_write_root_attrs_internal(ls, file, "incomplete", error);
        if (!prism_comm_agree_error(ls->comm, error))
            ls->h5_broken = TRUE; /* see io_finish.c: never close after a failed write */
        else
            (void)prism_h5_close_internal(&file, error);
    } else if (file >= 0) {
        ls->h5_broken = TRUE; /* created on some ranks only */
    }
    (void)prism_h5_close_internal(&fapl, NULL);
    (void)prism_h5_close_internal(&fcpl, NULL);
    if (!prism_comm_agree_error(ls->comm, error))
        return FALSE;
    ls->prepared = TRUE;
    return TRUE;
}

static gint cmp_name(gconstpointer a, gconstpointer b)
{
    /* g_ptr_array_sort passes pointers to the elements. */
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * --drop-damaged: check the column CRCs of the records of spill file @p path (those at
 * [start, end of ls->old_records)); at the first damaged one, cut the file there (the
 * record and every later one of the file: a kill can only leave a prefix, so the file
 * stays a valid sequence of records) and forget them, so their rows are recomputed.
 */
static gboolean drop_damaged(PrismLandscape *ls, const char *path, guint start, GError **error)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "opening %s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    g_autoptr(GByteArray) scratch = g_byte_array_new();
    guint bad = ls->old_records->len;
    for (guint i = start; i < ls->old_records->len && bad == ls->old_records->len; i++) {
        const PrismSpillRecord *r = &g_array_index(ls->old_records, PrismSpillRecord, i);
        for (size_t c = 0; c < ls->schema->n; c++)
            if (!prism_spill_read_column_internal(fd, path, ls->schema, r, c, r->first, r->first,
                                                  NULL, 0, TRUE, NULL, scratch, NULL)) {
                bad = i;
                break;
            }
    }
    gboolean ok = TRUE;
    if (bad < ls->old_records->len) {
        const PrismSpillRecord *r = &g_array_index(ls->old_records, PrismSpillRecord, bad);
        uint64_t rows = 0;
        for (guint i = bad; i < ls->old_records->len; i++)
            rows += g_array_index(ls->old_records, PrismSpillRecord, i).n;
        prism_log(
            PRISM_LOG_WARN, 0,
            "--drop-damaged: %s: dropping the damaged record at byte %" G_GUINT64_FORMAT
            " (rows %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
            ") and the %u after it in that file; their %" G_GUINT64_FORMAT " rows are recomputed",
            path, r->offset, r->first, r->first + r->n - 1, ls->old_records->len - bad - 1, rows);
        ls->dropped += rows;
        if (ftruncate(fd, (off_t)r->offset) != 0 || fsync(fd) != 0) {
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO,
                        "--drop-damaged: cutting %s at byte %" G_GUINT64_FORMAT ": %s", path,
                        r->offset, g_strerror(errno));
            ok = FALSE;
        }
        g_array_set_size(ls->old_records, bad);
    }
    close(fd);
    return ok;
}

/* Rank 0: read the manifest's total (or record ours) and scan the earlier sessions. */
static gboolean begin_root(PrismLandscape *ls, GString *names, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    GError *local = NULL;
    if (!g_key_file_load_from_file(kf, ls->manifest, G_KEY_FILE_NONE, &local)) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "%s: %s", ls->manifest,
                    local->message);
        g_error_free(local);
        return FALSE;
    }
    if (g_key_file_has_key(kf, MANIFEST_GROUP, "total", NULL)) {
        guint64 old = g_key_file_get_uint64(kf, MANIFEST_GROUP, "total", NULL);
        if (old != ls->total) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_OUTPUT,
                        "cannot resume %s: it has %" G_GUINT64_FORMAT
                        " rows, this run %" G_GUINT64_FORMAT
                        " (different space); use --force to start over",
                        ls->partial, (guint64)old, ls->total);
            return FALSE;
        }
    } else {
        g_key_file_set_uint64(kf, MANIFEST_GROUP, "total", ls->total);
        if (!write_manifest(ls, kf, error))
            return FALSE;
    }
    if (!ls->resuming)
        return TRUE;
    GDir *d = g_dir_open(ls->spill_dir, 0, NULL);
    g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL)
        if (g_str_has_suffix(name, ".spill"))
            g_ptr_array_add(found, g_strdup(name));
    if (d != NULL)
        g_dir_close(d);
    g_ptr_array_sort(found, cmp_name);
    for (guint i = 0; i < found->len; i++) {
        g_autofree char *p = g_build_filename(ls->spill_dir, g_ptr_array_index(found, i), NULL);
        gboolean torn = FALSE;
        guint start = ls->old_records->len;
        if (!prism_spill_scan_internal(p, i, ls->schema, ls->old_records, &torn, error))
            return FALSE;
        if (ls->opts.drop_damaged && !drop_damaged(ls, p, start, error))
            return FALSE;
        if (torn)
            prism_log(PRISM_LOG_INFO, 0, "%s: ignoring a torn last record (killed run)", p);
        g_string_append_printf(names, "%s\n", (const char *)g_ptr_array_index(found, i));
    }
    return TRUE;
}

static gpointer spill_writer(gpointer user);

static gboolean begin_body(void *user, uint64_t total, uint64_t lo, uint64_t hi, GError **error)
{
    PrismLandscape *ls = user;
    g_return_val_if_fail(ls->prepared && !ls->began, FALSE);
    ls->total = total;
    ls->lo = lo;
    ls->hi = hi;
    ls->chunk = MIN(ls->opts.chunk_rows, MAX(total, 1));
    ls->began = TRUE;
    if (ls->opts.no_landscape)
        return prism_comm_agree(ls->comm, TRUE, error);
    g_autoptr(GString) names = g_string_new(NULL);
    if (ls->comm->rank == 0)
        (void)begin_root(ls, names, error);
    if (!prism_comm_agree_error(ls->comm, error))
        return FALSE;
    /* Everyone learns the earlier sessions' files and records. */
    char *text = names->str;
    size_t text_len = names->len + 1;
    void *recs = ls->old_records->data;
    size_t recs_len = (size_t)ls->old_records->len * sizeof(PrismSpillRecord);
    void *text_buf = ls->comm->rank == 0 ? g_memdup2(text, text_len) : NULL;
    void *recs_buf = ls->comm->rank == 0 && recs_len ? g_memdup2(recs, recs_len) : NULL;
    gboolean ok = prism_comm_bcast_blob(ls->comm, &text_buf, &text_len, 0, error) &&
                  prism_comm_bcast_blob(ls->comm, &recs_buf, &recs_len, 0, error);
    if (ok) {
        g_auto(GStrv) lines = g_strsplit(text_buf ? text_buf : "", "\n", -1);
        for (char **l = lines; *l != NULL; l++)
            if (**l != '\0')
                g_ptr_array_add(ls->files, g_build_filename(ls->spill_dir, *l, NULL));
        g_array_set_size(ls->old_records, 0);
        g_array_append_vals(ls->old_records, recs_buf,
                            (guint)(recs_len / sizeof(PrismSpillRecord)));
        g_array_sort(ls->old_records, prism_spill_record_cmp_internal);
    }
    g_free(text_buf);
    g_free(recs_buf);
    if (!ok)
        return FALSE;
    ls->n_old_files = ls->files->len;
    for (int r = 0; r < ls->comm->size; r++)
        g_ptr_array_add(ls->files,
                        g_strdup_printf("%s/s%04u-r%05d.spill", ls->spill_dir, ls->session, r));
    /* Merge the earlier records into persisted intervals. */
    for (guint i = 0; i < ls->old_records->len; i++) {
        const PrismSpillRecord *r = &g_array_index(ls->old_records, PrismSpillRecord, i);
        uint64_t iv[2] = {r->first, r->first + r->n};
        if (ls->persisted->len > 0) {
            uint64_t *last = (uint64_t *)(void *)(ls->persisted->data +
                                                  (ls->persisted->len - 1) * 2 * sizeof(uint64_t));
            if (iv[0] <= last[1]) {
                if (iv[1] > last[1])
                    last[1] = iv[1];
                continue;
            }
        }
        g_array_append_val(ls->persisted, iv);
    }
    /* Our spill file for this session. */
    const char *mine = g_ptr_array_index(ls->files, ls->n_old_files + (guint)ls->comm->rank);
    GError *local = NULL;
    ls->fd = open(mine, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (ls->fd < 0)
        g_set_error(&local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "creating %s: %s", mine,
                    g_strerror(errno));
    ls->fd_size = 0;
    ls->buf = g_new0(void *, ls->schema->n);
    ls->wbuf = g_new0(void *, ls->schema->n);
    for (size_t c = 0; c < ls->schema->n; c++) {
        size_t bytes =
            MIN(ls->opts.spill_rows, ls->chunk) * prism_store_size(ls->schema->cols[c].store);
        ls->buf[c] = g_malloc(bytes);
        ls->wbuf[c] = g_malloc(bytes);
    }
    if (local == NULL)
        ls->writer = g_thread_new("prism-spill", spill_writer, ls);
    if (local != NULL)
        g_propagate_error(error, local);
    return prism_comm_agree_error(ls->comm, error);
}

/*
 * The spill writer thread: appends the record in wbuf whenever one is posted, until told
 * to quit (after the pending record). No MPI, no HDF5: POSIX I/O of this rank's own file.
 */
static gpointer spill_writer(gpointer user)
{
    PrismLandscape *ls = user;
    const char *path = g_ptr_array_index(ls->files, ls->n_old_files + (guint)ls->comm->rank);
    PrismChunkCoder *cc = prism_chunk_coder_new();
    uint64_t chunk = ls->chunk;
    g_mutex_lock(&ls->wmutex);
    for (;;) {
        while (!ls->w_pending && !ls->w_quit)
            g_cond_wait(&ls->wcond, &ls->wmutex);
        if (!ls->w_pending)
            break;
        uint64_t first = ls->w_first;
        size_t n = ls->w_n;
        gboolean failed = ls->w_error != NULL;
        g_mutex_unlock(&ls->wmutex);
        PrismSpillRecord rec;
        GError *e = NULL;
        /* After a failure nothing more is appended: the file stays a valid prefix. */
        /* A record that holds the dataset's last chunk, whole, is encoded padded to the
         * chunk length, as HDF5 stores an edge chunk: then it is copied as it is. */
        uint64_t n_enc = n;
        if (first % chunk == 0 && first + n == ls->total && n < chunk)
            n_enc = chunk;
        gboolean ok = !failed && prism_spill_append_internal(ls->fd, path, &ls->fd_size, ls->schema,
                                                             cc, ls->opts.codec, ls->opts.level,
                                                             first, (uint32_t)n, (uint32_t)n_enc,
                                                             ls->wbuf, ls->opts.fsync, &rec, &e);
        g_mutex_lock(&ls->wmutex);
        if (ok) {
            rec.file = ls->n_old_files + (uint32_t)ls->comm->rank;
            g_array_append_val(ls->my_records, rec);
            ls->spilled += n;
        } else if (e != NULL) {
            ls->w_error = e;
        }
        ls->w_pending = FALSE;
        g_cond_broadcast(&ls->wcond);
    }
    g_mutex_unlock(&ls->wmutex);
    prism_chunk_coder_free(cc);
    return NULL;
}

/* Wait until the writer has no record pending; its failure, if any, goes to @p error. */
static gboolean wait_writer(PrismLandscape *ls, GError **error)
{
    if (ls->writer == NULL)
        return TRUE;
    g_mutex_lock(&ls->wmutex);
    while (ls->w_pending)
        g_cond_wait(&ls->wcond, &ls->wmutex);
    gboolean ok = ls->w_error == NULL;
    if (!ok)
        g_propagate_error(error, g_error_copy(ls->w_error));
    g_mutex_unlock(&ls->wmutex);
    return ok;
}

/* Hand the round buffer to the writer thread as one record (after the previous one is
 * written) and go on with the other buffer set. Local. */
static gboolean flush_records(PrismLandscape *ls, GError **error)
{
    if (ls->buf_n == 0 || ls->fd < 0 || ls->writer == NULL)
        return TRUE;
    if (!wait_writer(ls, error))
        return FALSE;
    void **filled = ls->buf;
    ls->buf = ls->wbuf;
    g_mutex_lock(&ls->wmutex);
    ls->wbuf = filled;
    ls->w_first = ls->buf_first;
    ls->w_n = ls->buf_n;
    ls->w_pending = TRUE;
    g_cond_broadcast(&ls->wcond);
    g_mutex_unlock(&ls->wmutex);
    ls->buf_n = 0;
    if (ls->test_delay_ms > 0)
        g_usleep((gulong)ls->test_delay_ms * 1000);
    return TRUE;
}

static void count_job(PrismLandscape *ls, const PrismRowBatch *batch)
{
    if (batch->job >= ls->rows_per_job->len) {
        g_array_set_size(ls->rows_per_job, batch->job + 1);
        g_array_set_size(ls->feasible_per_job, batch->job + 1);
    }
    const double *feas = batch->cols->col[PRISM_COL_FEASIBLE];
    uint64_t f = 0;
    for (size_t i = 0; i < batch->n; i++)
        f += feas[i] != 0;
    g_array_index(ls->rows_per_job, uint64_t, batch->job) += batch->n;
    g_array_index(ls->feasible_per_job, uint64_t, batch->job) += f;
}

static gboolean sink_rows(void *user, const PrismRowBatch *batch, GError **error)
{
    PrismLandscape *ls = user;
    count_job(ls, batch);
    if (ls->opts.no_landscape)
        return TRUE;
    if (ls->fd < 0) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "landscape sink: rows() after end() or a failed begin()");
        return FALSE;
    }
    const uint64_t *iv = (const uint64_t *)(const void *)ls->persisted->data;
    guint n_iv = ls->persisted->len;
    uint64_t g = batch->first_index, end = batch->first_index + batch->n;
    size_t cap = (size_t)MIN(ls->opts.spill_rows, ls->chunk);
    while (g < end) {
        while (ls->cursor < n_iv && iv[2 * ls->cursor + 1] <= g)
            ls->cursor++;
        if (ls->cursor < n_iv && iv[2 * ls->cursor] <= g) {
            uint64_t stop = MIN(end, iv[2 * ls->cursor + 1]);
            ls->skipped += stop - g;
            g = stop;
            continue;
        }
        uint64_t next = ls->cursor < n_iv ? MIN(end, iv[2 * ls->cursor]) : end;
        while (g < next) {
            if (ls->buf_n > 0 && ls->buf_first + ls->buf_n != g && !flush_records(ls, error))
                return FALSE;
            if (ls->buf_n == 0)
                ls->buf_first = g;
            /* Records end at chunk boundaries: a record that is one whole chunk is
             * written into the file as it is (io_finish.c). */
            uint64_t boundary = (g / ls->chunk + 1) * ls->chunk;
            size_t take = (size_t)MIN(MIN(next, boundary) - g, (uint64_t)(cap - ls->buf_n));
            prism_io_pack_batch_internal(ls->schema, batch, (size_t)(g - batch->first_index), take,
                                         ls->buf, ls->buf_n);
            ls->buf_n += take;
            g += take;
            if ((ls->buf_n == cap || g == boundary) && !flush_records(ls, error))
                return FALSE;
        }
    }
    return TRUE;
}

static gboolean end_body(void *user, gboolean ok, GError **error)
{
    PrismLandscape *ls = user;
    GError *local = NULL;
    /* Persist what we have even after an error elsewhere: a resumed run skips it. */
    if (!ls->opts.no_landscape && (!flush_records(ls, &local) || !wait_writer(ls, &local)) && ok)
        g_propagate_error(error, local);
    else
        g_clear_error(&local);
    stop_writer(ls);
    if (ls->fd >= 0) {
        if (close(ls->fd) != 0 && error != NULL && *error == NULL)
            g_set_error(
                error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO, "closing %s: %s",
                (const char *)g_ptr_array_index(ls->files, ls->n_old_files + (guint)ls->comm->rank),
                g_strerror(errno));
        ls->fd = -1;
    }
    free_buffers(ls);
    return prism_comm_agree_error(ls->comm, error);
}

/* The collective steps need a real error slot even when the caller passes NULL. */
gboolean prism_landscape_prepare(PrismLandscape *ls, GError **error)
{
    g_return_val_if_fail(ls != NULL && !ls->prepared, FALSE);
    GError *local = NULL;
    gboolean ok = prepare(ls, &local);
    if (!ok) {
        /* Refused or failed: nothing runs, so the lock (if rank 0 took it) and its file go. */
        prism_io_unlock_internal(ls, TRUE);
        g_propagate_error(error, local);
    }
    return ok;
}

static gboolean begin(void *user, uint64_t total, uint64_t lo, uint64_t hi, GError **error)
{
    GError *local = NULL;
    gboolean ok = begin_body(user, total, lo, hi, &local);
    if (!ok)
        g_propagate_error(error, local);
    return ok;
}

static gboolean end(void *user, gboolean ok, GError **error)
{
    GError *local = NULL;
    gboolean mine = end_body(user, ok, &local);
    if (!mine)
        g_propagate_error(error, local);
    return mine;
}

PrismRowSink prism_landscape_sink(PrismLandscape *ls)
{
    PrismRowSink sink = {
        .begin = begin, .rows = sink_rows, .end = end, .user = ls, .results = NULL};
    return sink;
}

gboolean prism_landscape_disk_plan(PrismLandscape *ls, uint64_t rows, PrismLandscapeDiskPlan *plan,
                                   GError **error)
{
    g_return_val_if_fail(ls != NULL && plan != NULL, FALSE);
    memset(plan, 0, sizeof *plan);
    GError *local = NULL;
    gboolean exists = FALSE;
    /* A device or a link is refused before the plan is printed (read-only checks). */
    if (ls->comm->rank == 0)
        (void)prism_io_check_nodes_internal(ls->path, &exists, &local);
    if (!prism_comm_agree_error(ls->comm, &local)) {
        g_propagate_error(error, local);
        return FALSE;
    }
    if (ls->comm->rank == 0) {
        const PrismLandscapeSchema *sc = ls->schema;
        uint64_t raw = prism_io_row_bytes_internal(sc);
        plan->rows = rows;
        plan->row_bytes = ls->opts.codec != PRISM_CODEC_NONE
                              ? MIN(raw, (uint64_t)PRISM_SPILL_BYTES_PER_ROW)
                              : raw;
        if (!ls->opts.no_landscape) {
            /* A record per spill_rows rows (at most a chunk), plus each rank's partial
             * first and last one. */
            uint64_t records = rows / MIN(ls->opts.spill_rows, ls->opts.chunk_rows) +
                               2 * (uint64_t)ls->comm->size + 1;
            /* Segments are the file's compressed chunks; the estimate assumes
             * PRISM_SPILL_BYTES_PER_ROW (above every measured figure), never more than the
             * raw row; with --compression none they are the raw rows. */
            uint64_t spill_row = ls->opts.codec != PRISM_CODEC_NONE
                                     ? MIN(raw, (uint64_t)PRISM_SPILL_BYTES_PER_ROW)
                                     : raw;
            plan->spill_bytes =
                rows * spill_row + records * prism_spill_header_size_internal(sc->n);
            uint64_t per_row = ls->opts.codec != PRISM_CODEC_NONE
                                   ? MIN(raw, (uint64_t)PRISM_LANDSCAPE_FILE_BYTES_PER_ROW)
                                   : raw;
            plan->file_bytes = rows * per_row;
        }
        plan->file_bytes += 1u << 20;
        plan->reusable_bytes = prism_io_dir_bytes_internal(ls->spill_dir);
        uint64_t need = plan->spill_bytes + plan->file_bytes;
        plan->need_bytes = need > plan->reusable_bytes ? need - plan->reusable_bytes : 0;
        plan->free_known = prism_io_free_bytes_internal(ls->path, &plan->free_bytes);
    }
    return prism_comm_bcast_bytes(ls->comm, plan, sizeof *plan, 0, error);
}

gboolean prism_landscape_partial_progress(const char *partial_path, uint64_t *persisted,
                                          uint64_t *total, uint32_t *sessions, GError **error)
{
    g_autofree char *dir = g_strconcat(partial_path, ".spill", NULL);
    g_autofree char *manifest = g_build_filename(dir, "manifest.ini", NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    GError *local = NULL;
    if (!g_key_file_load_from_file(kf, manifest, G_KEY_FILE_NONE, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "%s: %s", manifest,
                    local->message);
        g_error_free(local);
        return FALSE;
    }
    *total = g_key_file_get_uint64(kf, MANIFEST_GROUP, "total", NULL);
    *sessions = (uint32_t)g_key_file_get_integer(kf, MANIFEST_GROUP, "sessions", NULL);
    /* The schema as recorded: "name:type,..." gives the column count and sizes. */
    g_autofree char *text = g_key_file_get_string(kf, MANIFEST_GROUP, "schema", NULL);
    g_auto(GStrv) cols = g_strsplit(text ? text : "", ",", -1);
    g_autoptr(PrismLandscapeSchema) schema = prism_landscape_schema_new();
    static const PrismStore stores[] = {PRISM_STORE_F64, PRISM_STORE_F32, PRISM_STORE_U8,
                                        PRISM_STORE_U16, PRISM_STORE_U32};
    for (char **c = cols; *c != NULL && **c != '\0'; c++) {
        const char *colon = strrchr(*c, ':');
        PrismStore store = PRISM_STORE_F64;
        for (size_t k = 0; colon && k < G_N_ELEMENTS(stores); k++)
            if (strcmp(colon + 1, prism_store_name(stores[k])) == 0)
                store = stores[k];
        prism_landscape_schema_add(schema, *c, NULL, NULL, store, PRISM_LS_SOURCE_COST, 0);
    }
    g_autoptr(GArray) recs = g_array_new(FALSE, FALSE, sizeof(PrismSpillRecord));
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    guint id = 0;
    gboolean ok = TRUE;
    while (ok && d != NULL && (name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_suffix(name, ".spill"))
            continue;
        g_autofree char *p = g_build_filename(dir, name, NULL);
        gboolean torn = FALSE;
        ok = prism_spill_scan_internal(p, id++, schema, recs, &torn, error);
    }
    if (d != NULL)
        g_dir_close(d);
    if (!ok)
        return FALSE;
    g_array_sort(recs, prism_spill_record_cmp_internal);
    uint64_t count = 0, reach = 0;
    for (guint i = 0; i < recs->len; i++) {
        const PrismSpillRecord *r = &g_array_index(recs, PrismSpillRecord, i);
        uint64_t a = MAX(r->first, reach), b = r->first + r->n;
        if (b > a)
            count += b - a;
        reach = MAX(reach, b);
    }
    *persisted = count;
    return TRUE;
}
