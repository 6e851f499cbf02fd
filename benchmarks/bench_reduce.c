// SPDX-License-Identifier: MIT
/*
 * bench_reduce.c - cost of the cross-rank front merge (binomial tree + broadcast)
 * against the front size per rank and the number of ranks. Two shapes: "disjoint" -
 * every rank's points stay on the global front (the merged front is P x F points, the
 * worst case for message size); "nested" - rank fronts dominate each other (the merged
 * front is F points). Each result is checked against the expected global size.
 *
 * Output: a JSON header line, one JSON line per case (median of --reps after a warm-up;
 * barrier outside the timed region, start MIN / stop MAX over ranks).
 *   mpirun -n P bench_reduce [--reps N] [--quick] [--max-front F]
 * Each line also gives, per tree level (step 1, 2, 4, ...), the slowest rank's time in the
 * level (the receiving ranks' wait, transfer and combine; the senders' send) and the bytes
 * sent at the level, over all ranks, and the broadcast of the result (PrismCommTreeStats).
 * Collective on MPI_COMM_WORLD.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <prism/core.h>
#include <prism/front.h>
#include <prism/version.h>

#include "bench.h"

/* F points of rank r on a 2- or 3-key staircase. */
static PrismFront *local_front(size_t f, size_t k, int rank, int size, gboolean disjoint)
{
    PrismFront *fr = prism_front_new(k);
    double key[3];
    for (size_t i = 0; i < f; i++) {
        /* disjoint: ranks interleave along one staircase; nested: rank r shifted by r */
        double x = disjoint ? (double)(i * (size_t)size + (size_t)rank) : (double)i;
        key[0] = x;
        key[1] = 1e9 - x + (disjoint ? 0 : rank);
        key[2] = disjoint ? 0 : rank;
        prism_front_offer(fr, key, (uint64_t)rank * f + i);
    }
    prism_front_finish(fr);
    return fr;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GError *error = NULL;
    PrismComm *comm = prism_comm_new(MPI_COMM_WORLD, &error);
    int reps = 7;
    gboolean quick = FALSE;
    prism_bench_common_args(argc, argv, &reps, &quick);
    size_t max_front = SIZE_MAX; /* --max-front F: only the fronts of at most F points */
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--max-front") == 0)
            max_front = (size_t)g_ascii_strtoull(argv[i + 1], NULL, 10);
    if (comm->rank == 0) {
        g_autofree char *mpi = prism_bench_mpi_library();
        g_autofree char *ranks = g_strdup_printf("%d", comm->size);
        const char *extra[] = {"mpi", mpi, "ranks", ranks, NULL, NULL};
        prism_bench_header("reduce", argc, argv, extra);
    }
    const size_t sizes_full[] = {10, 100, 1000, 10000, 100000};
    const size_t sizes_quick[] = {10, 1000};
    const size_t *sizes = quick ? sizes_quick : sizes_full;
    size_t n_sizes = quick ? G_N_ELEMENTS(sizes_quick) : G_N_ELEMENTS(sizes_full);
    int status = 0;
    for (size_t k = 2; k <= 3; k++)
        for (int disjoint = 1; disjoint >= 0; disjoint--)
            for (size_t s = 0; s < n_sizes; s++) {
                size_t f = sizes[s];
                if (f > max_front)
                    continue;
                double *t = g_new(double, reps);
                size_t global = 0;
                PrismCommTreeStats st;
                for (int r = -1; r < reps; r++) {
                    memset(&st, 0, sizeof st); /* the last repetition's figures */
                    comm->tree_stats = &st;
                    PrismFront *fr = local_front(f, k, comm->rank, comm->size, disjoint);
                    MPI_Barrier(comm->mpi);
                    double t0 = MPI_Wtime();
                    if (!prism_front_reduce(comm, &fr, &error)) {
                        fprintf(stderr, "bench_reduce: %s\n", error->message);
                        status = 1;
                        break;
                    }
                    comm->tree_stats = NULL;
                    double t1 = MPI_Wtime(), a = 0, b = 0;
                    MPI_Allreduce(&t0, &a, 1, MPI_DOUBLE, MPI_MIN, comm->mpi);
                    MPI_Allreduce(&t1, &b, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
                    if (r >= 0)
                        t[r] = b - a;
                    global = prism_front_size(fr);
                    prism_front_free(fr);
                }
                size_t want = disjoint ? f * (size_t)comm->size : f;
                if (global != want)
                    status = 1;
                prism_bench_sort(t, (size_t)reps);
                /* per tree level (the last repetition): the slowest rank's time, and the
                 * bytes of all frames sent at that level */
                double lmax[PRISM_COMM_TREE_LEVELS], cmax[PRISM_COMM_TREE_LEVELS];
                uint64_t lbytes[PRISM_COMM_TREE_LEVELS], bbytes = 0;
                double bmax = 0;
                int levels = 0;
                while ((1 << levels) < comm->size)
                    levels++;
                MPI_Reduce(st.seconds, lmax, levels, MPI_DOUBLE, MPI_MAX, 0, comm->mpi);
                MPI_Reduce(st.combine_seconds, cmax, levels, MPI_DOUBLE, MPI_MAX, 0, comm->mpi);
                MPI_Reduce(st.bytes, lbytes, levels, MPI_UINT64_T, MPI_SUM, 0, comm->mpi);
                MPI_Reduce(&st.bcast_seconds, &bmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm->mpi);
                MPI_Reduce(&st.bcast_bytes, &bbytes, 1, MPI_UINT64_T, MPI_MAX, 0, comm->mpi);
                if (comm->rank == 0) {
                    g_autoptr(GString) lv = g_string_new("");
                    for (int l = 0; l < levels; l++)
                        g_string_append_printf(lv,
                                               "%s{\"step\":%d,\"max_s\":%.4g,\"combine_max_s\":"
                                               "%.4g,\"bytes\":%" G_GUINT64_FORMAT "}",
                                               l ? "," : "", 1 << l, lmax[l], cmax[l], lbytes[l]);
                    printf("{\"case\":\"%s\",\"objectives\":%zu,\"ranks\":%d,\"front_per_rank\":"
                           "%zu,\"global_front\":%zu,\"median_s\":%.4g,\"min_s\":%.4g,"
                           "\"levels\":[%s],\"bcast_max_s\":%.4g,\"bcast_bytes\":%" G_GUINT64_FORMAT
                           ",\"check\":%s}\n",
                           disjoint ? "disjoint" : "nested", k, comm->size, f, global, t[reps / 2],
                           t[0], lv->str, bmax, bbytes, global == want ? "true" : "false");
                }
                g_free(t);
            }
    prism_comm_free(comm);
    MPI_Finalize();
    return status;
}
