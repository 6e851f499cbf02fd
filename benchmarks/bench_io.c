// SPDX-License-Identifier: MIT
/*
 * bench_io.c - the cost of writing the HDF5 landscape: a full sweep (search + every row
 * to the landscape) against the same search without the landscape, at any rank count.
 *
 * Per case and mode, one discarded warm-up then --reps repetitions (barrier outside the
 * timed region, start MIN / stop MAX over ranks, median reported):
 *   search      prism_search_run with no sink (evaluation, fronts, merge): the baseline
 *   nolandscape the sweep with --no-landscape (fronts, top-k, attributes in a small file)
 *   landscape   the full sweep: rows spilled while the search runs, then the collective
 *               HDF5 write (each rank its chunk-aligned hyperslab), per --codecs entry
 * Reported: rows/s, the spill and HDF5-write phases, MB/s of the raw columns and of the
 * file, bytes per row on disk, spill bytes per row (the spill folder just before the
 * final write), the rate against `nolandscape` and the peak RSS (max over ranks of
 * getrusage's ru_maxrss, a process-lifetime peak: modes run in the order printed). Each
 * landscape is checked: its row count, and rank-invariant content is covered by the tests.
 *
 *   bench_io [--quick | --demo] [--reps N] [--dir DIR] [--codecs zstd,lz4,deflate:1,none] [--fsync]
 * Output: a JSON header line, one JSON line per measurement, a table on rank 0.
 * Collective on MPI_COMM_WORLD.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <sys/resource.h>
#include <mpi.h>

#include <prism/core.h>
#include <prism/io.h>
#include <prism/search.h>
#include <prism/version.h>

#include "bench.h"

typedef struct {
    const char *name, *model, *cluster;
    uint32_t devices;
    uint64_t gbs, seq;
} Case;

static const Case full_cases[] = {
    {"gpt3-175b/1024xA100-80GB (the demo)", "gpt3-175b", "A100-80GB", 1024, 1536, 2048},
    {"mixtral-8x7b/256xH100-SXM", "mixtral-8x7b", "H100-SXM", 256, 1024, 4096},
};
static const Case quick_cases[] = {
    {"gpt3-1.3b/16xA100-80GB", "gpt3-1.3b", "A100-80GB", 16, 64, 2048},
};

typedef struct {
    double total_s, search_s, write_s; /* wall, MIN start / MAX stop */
    uint64_t rows, bytes;              /* rows, file size */
    uint64_t spill;                    /* bytes of the spill folder before the final write */
    double rss_mb;                     /* peak RSS, max over ranks */
    size_t row_bytes;                  /* raw bytes per row of the columns */
} Run;

/* The setup of a case, every rank the same. */
typedef struct {
    PrismModel *model;
    PrismCluster *cluster;
    PrismCostModel *cm;
    PrismSpace *space;
} Setup;

static void setup_clear(Setup *s)
{
    prism_space_free(s->space);
    prism_cost_model_free(s->cm);
    prism_cluster_free(s->cluster);
    prism_model_free(s->model);
}

static gboolean setup_init(const Case *c, Setup *s, GError **error)
{
    memset(s, 0, sizeof *s);
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = c->gbs;
    t.seq = c->seq;
    PrismKnobs k;
    prism_knobs_default(&k);
    s->model = prism_model_zoo_get(c->model, error);
    s->cluster = s->model ? prism_cluster_resolve(c->cluster, error) : NULL;
    s->cm = s->cluster ? prism_cost_model_new(s->model, s->cluster, &t, &k, error) : NULL;
    s->space = s->cm ? prism_space_new(s->model, &t, &c->devices, 1, NULL, error) : NULL;
    return s->space != NULL;
}

/* One timed run: mode 0 = search only, 1 = --no-landscape, 2 = landscape. */
/* Bytes of the regular files in @p dir (0 when absent). */
static uint64_t dir_bytes(const char *dir)
{
    uint64_t sum = 0;
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name(d)) != NULL;) {
        g_autofree char *p = g_build_filename(dir, n, NULL);
        GStatBuf st;
        if (g_stat(p, &st) == 0 && S_ISREG(st.st_mode))
            sum += (uint64_t)st.st_size;
    }
    if (d)
        g_dir_close(d);
    return sum;
}

static gboolean run_once(PrismComm *comm, const Setup *s, const PrismKernelTable *kt, int mode,
                         PrismCodec codec, int level, gboolean fsync, const char *path, Run *out,
                         GError **error)
{
    PrismSearchJob job = {.cm = s->cm, .space = s->space};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.kt = kt;
    g_autoptr(PrismLandscapeSchema) schema = prism_landscape_schema_new();
    prism_landscape_schema_add_dims(schema);
    prism_landscape_schema_add_cost(schema, s->cluster->n_levels);
    out->row_bytes = 0;
    for (size_t i = 0; i < schema->n; i++)
        out->row_bytes += prism_store_size(schema->cols[i].store);
    PrismLandscapeOptions lo;
    prism_landscape_options_default(&lo);
    lo.codec = codec;
    lo.level = level;
    lo.force = TRUE;
    lo.fsync = fsync;
    lo.no_landscape = mode == 1;
    g_autoptr(PrismLandscape) ls = mode > 0 ? prism_landscape_new(comm, path, schema, &lo) : NULL;
    if (ls)
        prism_landscape_add_attr(ls, "command_line", "bench_io", FALSE);
    MPI_Barrier(comm->mpi);
    double t0 = MPI_Wtime();
    if (ls && !prism_landscape_prepare(ls, error))
        return FALSE;
    PrismRowSink sink = ls ? prism_landscape_sink(ls) : (PrismRowSink){0};
    g_autoptr(PrismSearchResult) res =
        prism_search_run(comm, &job, 1, &opt, ls ? &sink : NULL, error);
    if (res == NULL)
        return FALSE;
    double t1 = MPI_Wtime();
    MPI_Barrier(comm->mpi); /* every spill record is on disk (outside the timed phases) */
    g_autofree char *spill_dir = g_strconcat(path, ".partial.spill", NULL);
    out->spill = ls && comm->rank == 0 ? dir_bytes(spill_dir) : 0;
    MPI_Bcast(&out->spill, 1, MPI_UINT64_T, 0, comm->mpi);
    double t1b = MPI_Wtime();
    if (ls) {
        /* The front rows as prism sweep stores them (re-evaluated by index on rank 0). */
        const PrismFront *f = prism_search_result_front(res, 0);
        size_t n = comm->rank == 0 ? prism_front_size(f) : 0;
        g_autofree PrismLandscapeRow *rows = g_new0(PrismLandscapeRow, MAX(n, 1));
        for (size_t i = 0; i < n; i++) {
            rows[i].index = prism_front_index(f, i);
            if (!prism_search_row(&job, 1, rows[i].index, NULL, &rows[i].strategy, rows[i].cols,
                                  error))
                return FALSE;
        }
        if (!prism_landscape_finish(ls, rows, n, NULL, 0, error))
            return FALSE;
    }
    double t2 = MPI_Wtime(), start, stop, mid;
    MPI_Allreduce(&t0, &start, 1, MPI_DOUBLE, MPI_MIN, comm->mpi);
    MPI_Allreduce(&t1, &mid, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
    MPI_Allreduce(&t2, &stop, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
    out->total_s = stop - start;
    out->search_s = mid - start;
    out->write_s = stop - mid - (t1b - t1);
    out->total_s -= t1b - t1;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss = (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
    MPI_Allreduce(&rss, &out->rss_mb, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
    out->rows = prism_search_result_total(res);
    GStatBuf st;
    out->bytes = ls && g_stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    MPI_Bcast(&out->bytes, 1, MPI_UINT64_T, 0, comm->mpi);
    return TRUE;
}

typedef struct {
    const char *mode;
    char codec[16];
    double total, search, write, rows, bytes, row_bytes, spill, rss_mb;
} Result;

static gboolean measure(PrismComm *comm, const Setup *s, const PrismKernelTable *kt, int mode,
                        PrismCodec codec, int level, gboolean fsync, const char *path, int reps,
                        Result *r, GError **error)
{
    double *tot = g_new(double, reps), *sea = g_new(double, reps), *wri = g_new(double, reps);
    Run run = {0};
    gboolean ok = run_once(comm, s, kt, mode, codec, level, fsync, path, &run, error); /* warm-up */
    for (int i = 0; ok && i < reps; i++) {
        ok = run_once(comm, s, kt, mode, codec, level, fsync, path, &run, error);
        tot[i] = run.total_s;
        sea[i] = run.search_s;
        wri[i] = run.write_s;
    }
    if (ok) {
        prism_bench_sort(tot, (size_t)reps);
        prism_bench_sort(sea, (size_t)reps);
        prism_bench_sort(wri, (size_t)reps);
        *r = (Result){mode == 0   ? "search"
                      : mode == 1 ? "nolandscape"
                                  : "landscape",
                      "-",
                      tot[reps / 2],
                      sea[reps / 2],
                      wri[reps / 2],
                      (double)run.rows,
                      (double)run.bytes,
                      (double)run.row_bytes,
                      (double)run.spill,
                      run.rss_mb};
        if (mode == 2)
            g_snprintf(r->codec, sizeof r->codec, "%s%s%.0d", prism_codec_name(codec),
                       level ? ":" : "", level);
    }
    g_free(tot);
    g_free(sea);
    g_free(wri);
    if (comm->rank == 0)
        g_unlink(path);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GError *error = NULL;
    PrismComm *comm = prism_comm_new(MPI_COMM_WORLD, &error);
    gboolean quick = FALSE, fsync = FALSE, demo = FALSE;
    gint reps = 3;
    char *dir = NULL, *codecs = NULL;
    GOptionEntry entries[] = {
        {"quick", 0, 0, G_OPTION_ARG_NONE, &quick, "one small case (CTest)", NULL},
        {"reps", 0, 0, G_OPTION_ARG_INT, &reps, "timed repetitions (default 3)", "N"},
        {"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "folder for the files (default .)", "DIR"},
        {"codecs", 0, 0, G_OPTION_ARG_STRING, &codecs,
         "codecs of the landscape runs, CODEC[:LEVEL] (default zstd,lz4,deflate:1,none)", "C,..."},
        {"fsync", 0, 0, G_OPTION_ARG_NONE, &fsync, "fsync spill records (prism's default)", NULL},
        {"demo", 0, 0, G_OPTION_ARG_NONE, &demo, "only the first case (the default example)", NULL},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx = g_option_context_new("- HDF5 landscape write benchmark");
    g_option_context_add_main_entries(ctx, entries, NULL);
    char **args = argv;
    if (!g_option_context_parse(ctx, &argc, &args, &error) || reps < 1) {
        if (comm->rank == 0)
            fprintf(stderr, "bench_io: %s\n", error ? error->message : "--reps >= 1");
        MPI_Finalize();
        return 2;
    }
    const PrismKernelTable *kt = prism_kernel_table_get(NULL, &error);
    char ranks[16];
    g_snprintf(ranks, sizeof ranks, "%d", comm->size);
    const char *extra[] = {"isa",   kt ? prism_kernel_table_name(kt) : "?",
                           "ranks", ranks,
                           "hdf5",  PRISM_HDF5_VERSION,
                           "fsync", fsync ? "1" : "0",
                           NULL};
    if (comm->rank == 0)
        prism_bench_header("bench_io", argc, argv, extra);
    g_auto(GStrv) levels =
        g_strsplit(codecs ? codecs : (quick ? "zstd" : "zstd,lz4,deflate:1,none"), ",", -1);
    const Case *cases = quick ? quick_cases : full_cases;
    size_t n_cases = quick ? G_N_ELEMENTS(quick_cases) : demo ? 1 : G_N_ELEMENTS(full_cases);
    g_autofree char *path = g_build_filename(dir ? dir : ".", "bench_io.h5", NULL);
    int status = 0;
    for (size_t c = 0; c < n_cases && status == 0; c++) {
        Setup s;
        if (!setup_init(&cases[c], &s, &error)) {
            status = 1;
            break;
        }
        Result base, nol;
        gboolean ok =
            measure(comm, &s, kt, 0, PRISM_CODEC_NONE, 0, fsync, path, reps, &base, &error) &&
            measure(comm, &s, kt, 1, PRISM_CODEC_NONE, 0, fsync, path, reps, &nol, &error);
        GArray *rs = g_array_new(FALSE, FALSE, sizeof(Result));
        g_array_append_val(rs, base);
        g_array_append_val(rs, nol);
        for (char **l = levels; ok && *l; l++) {
            Result r;
            g_auto(GStrv) cl = g_strsplit(*l, ":", 2);
            PrismCodec codec = PRISM_CODEC_ZSTD;
            if (!prism_codec_parse(cl[0], &codec)) {
                g_set_error(&error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "--codecs: unknown codec '%s'", cl[0]);
                ok = FALSE;
                break;
            }
            int level = cl[1] ? atoi(cl[1]) : prism_codec_default_level(codec);
            ok = prism_codec_check_level(codec, level, &error) &&
                 measure(comm, &s, kt, 2, codec, level, fsync, path, reps, &r, &error);
            if (ok && r.rows != base.rows)
                ok = FALSE;
            g_array_append_val(rs, r);
        }
        for (guint i = 0; ok && comm->rank == 0 && i < rs->len; i++) {
            const Result *r = &g_array_index(rs, Result, i);
            double mb = r->rows * r->row_bytes / 1e6;
            printf("{\"case\":\"%s\",\"mode\":\"%s\",\"codec\":\"%s\",\"ranks\":%d,"
                   "\"rows\":%.0f,\"total_s\":%.4f,\"search_s\":%.4f,\"write_s\":%.4f,"
                   "\"rows_per_s\":%.0f,\"raw_mb\":%.1f,\"raw_mb_per_s\":%.1f,\"file_mb\":%.2f,"
                   "\"file_mb_per_s\":%.1f,\"bytes_per_row\":%.2f,\"spill_bytes_per_row\":%.2f,"
                   "\"rate_vs_nolandscape\":%.3f,\"peak_rss_mb\":%.1f}\n",
                   cases[c].name, r->mode, r->codec, comm->size, r->rows, r->total, r->search,
                   r->write, r->rows / r->total, mb, i > 1 ? mb / r->total : 0, r->bytes / 1e6,
                   r->write > 0 ? r->bytes / 1e6 / r->write : 0, r->rows ? r->bytes / r->rows : 0,
                   r->rows ? r->spill / r->rows : 0, nol.total / r->total, r->rss_mb);
        }
        if (ok && comm->rank == 0) {
            printf("\n%s, %d rank%s, %.0f rows, %.0f raw bytes/row (median of %d):\n",
                   cases[c].name, comm->size, comm->size == 1 ? "" : "s", base.rows, base.row_bytes,
                   reps);
            printf("  %-12s %-10s %8s %8s %8s %10s %7s %7s %7s %7s\n", "mode", "codec", "total s",
                   "search s", "write s", "rows/s", "B/row", "spill", "rate", "RSS MB");
            for (guint i = 0; i < rs->len; i++) {
                const Result *r = &g_array_index(rs, Result, i);
                printf("  %-12s %-10s %8.3f %8.3f %8.3f %10.3g %7.2f %7.2f %6.0f%% %7.1f\n",
                       r->mode, r->codec, r->total, r->search, r->write, r->rows / r->total,
                       r->rows ? r->bytes / r->rows : 0, r->rows ? r->spill / r->rows : 0,
                       100.0 * nol.total / r->total, r->rss_mb);
            }
            printf("\n");
        }
        g_array_unref(rs);
        setup_clear(&s);
        if (!ok)
            status = 1;
    }
    if (status != 0 && error && comm->rank == 0)
        fprintf(stderr, "bench_io: %s\n", error->message);
    g_clear_error(&error);
    g_free(dir);
    g_free(codecs);
    prism_comm_free(comm);
    MPI_Finalize();
    return status;
}
