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
 *   mpirun -n P bench_reduce [--reps N] [--quick]
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
                double *t = g_new(double, reps);
                size_t global = 0;
                for (int r = -1; r < reps; r++) {
                    PrismFront *fr = local_front(f, k, comm->rank, comm->size, disjoint);
                    MPI_Barrier(comm->mpi);
                    double t0 = MPI_Wtime();
                    if (!prism_front_reduce(comm, &fr, &error)) {
                        fprintf(stderr, "bench_reduce: %s\n", error->message);
                        status = 1;
                        break;
                    }
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
                if (comm->rank == 0)
                    printf("{\"case\":\"%s\",\"objectives\":%zu,\"ranks\":%d,\"front_per_rank\":"
                           "%zu,\"global_front\":%zu,\"median_s\":%.4g,\"min_s\":%.4g,"
                           "\"check\":%s}\n",
                           disjoint ? "disjoint" : "nested", k, comm->size, f, global, t[reps / 2],
                           t[0], global == want ? "true" : "false");
                g_free(t);
            }
    prism_comm_free(comm);
    MPI_Finalize();
    return status;
}
