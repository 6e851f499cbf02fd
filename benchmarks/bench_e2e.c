// SPDX-License-Identifier: MIT
/*
 * bench_e2e.c - end-to-end search: wall time of a full `prism plan` search (space build,
 * cost-model compile, evaluation of every strategy, fronts/top-k, cross-rank merge) over
 * the whole unrestricted space, at any rank count (run under mpirun for strong scaling).
 *
 * Output: one JSON header line (git revision, compiler, ISA, MPI library, ranks, CPU,
 * command line), then one JSON line per case, then a table on rank 0. Method: one
 * discarded warm-up, then --reps repetitions; barrier outside the timed region, start
 * MIN / stop MAX over ranks; median and min reported. Per-rank loop times give the load
 * imbalance, and a line gives the cross-rank merge per tree level (time of the slowest
 * rank, bytes sent; PrismCommTreeStats) and its broadcast. Each result is checked (every row
 * evaluated, a front where a row fits).
 *
 *   bench_e2e [--reps N] [--quick] [--threads N] [--exhaustive] [--case SUBSTRING]
 * --threads: search threads per rank (default 1: rank scaling; 0 = prism plan's default,
 * every CPU at one rank). --exhaustive: the kernel on every row (no pruning by the static
 * memory bound; search/README.md, "Pruning"): the same result, for the comparison.
 * --case: only the cases whose name contains SUBSTRING.
 * Collective on MPI_COMM_WORLD.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h> /* clock_gettime(CLOCK_PROCESS_CPUTIME_ID) */

#include <mpi.h>

#include <prism/core.h>
#include <prism/search.h>
#include <prism/version.h>

#include "bench.h"

static int bench_threads = 1;             /* --threads */
static gboolean bench_exhaustive = FALSE; /* --exhaustive */
static const char *bench_case = NULL;     /* --case */

typedef struct {
    const char *name, *model, *cluster;
    uint32_t devices;
    uint64_t gbs, seq;
} Case;

static const Case full_cases[] = {
    {"gpt3-175b/1024xA100-80GB", "gpt3-175b", "A100-80GB", 1024, 1536, 2048},
    {"llama3.1-405b/16384xH100-SXM", "llama3.1-405b", "H100-SXM", 16384, 1536, 2048},
    {"deepseek-v3/1024xH100-SXM", "deepseek-v3", "H100-SXM", 1024, 1536, 2048},
    {"qwen3-235b-a22b/64xH100-SXM", "qwen3-235b-a22b", "H100-SXM", 64, 1536, 2048},
    {"deepseek-v3/64xH100-SXM", "deepseek-v3", "H100-SXM", 64, 1536, 2048},
    /* issue 40's rank-scaling case and a quarter of it (gbs 4096, seq 4096) */
    {"deepseek-v3/1024xH100-SXM/gbs4096/seq4096", "deepseek-v3", "H100-SXM", 1024, 4096, 4096},
    {"deepseek-v3/256xH100-SXM/gbs4096/seq4096", "deepseek-v3", "H100-SXM", 256, 4096, 4096},
};
static const Case quick_cases[] = {
    {"gpt3-13b/64xA100-80GB", "gpt3-13b", "A100-80GB", 64, 256, 2048},
};

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double cpu_max_s, cpu_sum_s; /* CPU time of the whole run: slowest rank, all ranks */
    double total_s;              /* build + search, start MIN / stop MAX */
    double loop_s;               /* evaluation loop, max over ranks */
    double loop_min_s;           /* evaluation loop, min over ranks (load balance) */
    uint64_t rows, feasible, pruned;
    size_t front;
    PrismCommTreeStats merge; /* this rank's share of the cross-rank merge (comm.h) */
} Run;

static gboolean run_case(PrismComm *comm, const Case *c, const PrismKernelTable *kt, Run *out,
                         GError **error)
{
    MPI_Barrier(comm->mpi);
    double t0 = MPI_Wtime(), c0 = cpu_now();
    g_autoptr(PrismModel) model = prism_model_zoo_get(c->model, error);
    g_autoptr(PrismCluster) cluster = model ? prism_cluster_resolve(c->cluster, error) : NULL;
    if (cluster == NULL)
        return FALSE;
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = c->gbs;
    t.seq = c->seq;
    PrismKnobs k;
    prism_knobs_default(&k);
    g_autoptr(PrismSpace) space = prism_space_new(model, &t, &c->devices, 1, NULL, error);
    g_autoptr(PrismCostModel) cm =
        space ? prism_cost_model_new(model, cluster, &t, &k, error) : NULL;
    if (cm == NULL)
        return FALSE;
    PrismSearchJob job = {.cm = cm, .space = space};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.kt = kt;
    opt.threads = bench_threads;
    opt.exhaustive = bench_exhaustive;
    memset(&out->merge, 0, sizeof out->merge);
    comm->tree_stats = &out->merge;
    g_autoptr(PrismSearchResult) res = prism_search_run(comm, &job, 1, &opt, NULL, error);
    comm->tree_stats = NULL;
    if (res == NULL)
        return FALSE;
    double t1 = MPI_Wtime(), start = 0, stop = 0, cpu = cpu_now() - c0;
    MPI_Allreduce(&cpu, &out->cpu_max_s, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
    MPI_Allreduce(&cpu, &out->cpu_sum_s, 1, MPI_DOUBLE, MPI_SUM, comm->mpi);
    MPI_Allreduce(&t0, &start, 1, MPI_DOUBLE, MPI_MIN, comm->mpi);
    MPI_Allreduce(&t1, &stop, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
    out->total_s = stop - start;
    out->loop_s = prism_search_result_seconds(res);
    out->rows = prism_search_result_evaluated(res);
    out->feasible = prism_search_result_feasible(res);
    out->pruned = prism_search_result_pruned(res);
    out->front = prism_front_size(prism_search_result_front(res, 0));
    out->loop_min_s = prism_search_result_seconds_min(res);
    /* an empty front is right only when nothing fits (DeepSeek-V3 on 64 devices) */
    if (out->rows != prism_space_size(space) || (out->front == 0) != (out->feasible == 0)) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "%s: result check failed", c->name);
        return FALSE;
    }
    return TRUE;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--threads") == 0)
            bench_threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--case") == 0)
            bench_case = argv[i + 1];
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--exhaustive") == 0)
            bench_exhaustive = TRUE;
    GError *error = NULL;
    PrismComm *comm = prism_comm_new(MPI_COMM_WORLD, &error);
    int reps = 5;
    gboolean quick = FALSE;
    prism_bench_common_args(argc, argv, &reps, &quick);
    const PrismKernelTable *kt = comm ? prism_kernel_table_get(NULL, &error) : NULL;
    if (kt == NULL) {
        fprintf(stderr, "bench_e2e: %s\n", error->message);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (comm->rank == 0) {
        g_autofree char *mpi = prism_bench_mpi_library();
        g_autofree char *ranks = g_strdup_printf("%d", comm->size);
        g_autofree char *threads = g_strdup_printf("%d", bench_threads);
        const char *extra[] = {"isa",        prism_kernel_table_name(kt),
                               "mpi",        mpi,
                               "ranks",      ranks,
                               "threads",    threads,
                               "exhaustive", bench_exhaustive ? "1" : "0",
                               NULL,         NULL};
        prism_bench_header("e2e", argc, argv, extra);
    }
    const Case *cases = quick ? quick_cases : full_cases;
    size_t n_cases = quick ? G_N_ELEMENTS(quick_cases) : G_N_ELEMENTS(full_cases);
    int status = 0;
    for (size_t c = 0; c < n_cases && status == 0; c++) {
        if (bench_case != NULL && strstr(cases[c].name, bench_case) == NULL)
            continue;
        double *total = g_new(double, reps), *loop = g_new(double, reps);
        double *fast = g_new(double, reps), *cmax = g_new(double, reps);
        double *csum = g_new(double, reps);
        Run r = {0};
        for (int i = -1; i < reps && status == 0; i++) {
            if (!run_case(comm, &cases[c], kt, &r, &error)) {
                fprintf(stderr, "bench_e2e: %s\n", error->message);
                status = 1;
                break;
            }
            if (i >= 0) {
                total[i] = r.total_s;
                loop[i] = r.loop_s;
                fast[i] = r.loop_min_s / r.loop_s;
                cmax[i] = r.cpu_max_s;
                csum[i] = r.cpu_sum_s;
            }
        }
        /* the merge of the last repetition, per tree level: the slowest rank's time
         * and the bytes sent at that level by all ranks */
        double lmax[PRISM_COMM_TREE_LEVELS] = {0}, bmax = 0;
        uint64_t lbytes[PRISM_COMM_TREE_LEVELS] = {0};
        int levels = 0;
        while ((1 << levels) < comm->size)
            levels++;
        if (status == 0) {
            MPI_Reduce(r.merge.seconds, lmax, levels, MPI_DOUBLE, MPI_MAX, 0, comm->mpi);
            MPI_Reduce(r.merge.bytes, lbytes, levels, MPI_UINT64_T, MPI_SUM, 0, comm->mpi);
            MPI_Reduce(&r.merge.bcast_seconds, &bmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm->mpi);
        }
        if (status == 0 && comm->rank == 0) {
            g_autoptr(GString) lv = g_string_new("");
            for (int l = 0; l < levels; l++)
                g_string_append_printf(
                    lv, "%s{\"step\":%d,\"max_s\":%.4g,\"bytes\":%" G_GUINT64_FORMAT "}",
                    l ? "," : "", 1 << l, lmax[l], lbytes[l]);
            printf("{\"case\":\"%s\",\"ranks\":%d,\"merge_levels\":[%s],\"merge_bcast_max_s\":%.4g,"
                   "\"merge_bcast_bytes\":%" G_GUINT64_FORMAT "}\n",
                   cases[c].name, comm->size, lv->str, bmax, r.merge.bcast_bytes);
            prism_bench_sort(total, (size_t)reps);
            prism_bench_sort(loop, (size_t)reps);
            prism_bench_sort(fast, (size_t)reps);
            prism_bench_sort(cmax, (size_t)reps);
            prism_bench_sort(csum, (size_t)reps);
            double med = total[reps / 2], lmed = loop[reps / 2];
            printf("{\"case\":\"%s\",\"ranks\":%d,\"reps\":%d,\"rows\":%" G_GUINT64_FORMAT
                   ",\"feasible\":%" G_GUINT64_FORMAT ",\"pruned\":%" G_GUINT64_FORMAT
                   ",\"front\":%zu,\"total_median_s\":%.4f,"
                   "\"total_min_s\":%.4f,\"loop_median_s\":%.4f,\"loop_min_s\":%.4f,"
                   "\"rows_per_s\":%.4g,\"rows_per_s_per_rank\":%.4g,"
                   "\"fastest_over_slowest_rank\":%.3f,\"cpu_max_median_s\":%.4f,"
                   "\"cpu_max_min_s\":%.4f,\"cpu_sum_median_s\":%.4f}\n",
                   cases[c].name, comm->size, reps, r.rows, r.feasible, r.pruned, r.front, med,
                   total[0], lmed, loop[0], (double)r.rows / lmed,
                   (double)r.rows / lmed / comm->size, fast[reps / 2], cmax[reps / 2], cmax[0],
                   csum[reps / 2]);
            fflush(stdout);
        }
        g_free(total);
        g_free(loop);
        g_free(fast);
        g_free(cmax);
        g_free(csum);
    }
    prism_comm_free(comm);
    MPI_Finalize();
    return status;
}
