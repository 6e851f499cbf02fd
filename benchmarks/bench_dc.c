// SPDX-License-Identifier: MIT
/*
 * bench_dc.c - the divide-and-conquer engine: a chain of N (min,+) 16x16 operator
 * matrices reduced by left fold, right fold, balanced tree, row-vector fold and across
 * MPI ranks; power(block, n) against a plain fold for n = 10^3 and 10^6.
 *
 * Usage: [mpirun -n P] bench_dc [--n N] [--reps R] [--power-max M]
 * Prints a header record then one JSON line per measurement (rank 0): median and min of
 * R timed repetitions after one warm-up, and whether the result equals the left fold.
 * Collective: every rank runs every measurement (only "ranks" uses more than one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <prism/comm.h>
#include <prism/core.h>
#include <prism/dc.h>
#include <prism/version.h>

#include "bench.h"

#define L 16

typedef void *(*Method)(const PrismDcReduction *r, size_t n, void *user);

static void *m_left(const PrismDcReduction *r, size_t n, void *u)
{
    (void)u;
    return prism_dc_fold_left(r, 0, n);
}

static void *m_right(const PrismDcReduction *r, size_t n, void *u)
{
    (void)u;
    return prism_dc_fold_right(r, 0, n);
}

static void *m_tree(const PrismDcReduction *r, size_t n, void *u)
{
    (void)u;
    return prism_dc_tree(r, 0, n);
}

static void *m_ranks(const PrismDcReduction *r, size_t n, void *u)
{
    void *out = NULL;
    GError *error = NULL;
    if (!prism_dc_reduce_ranks(u, r, n, &out, &error)) {
        fprintf(stderr, "bench_dc: %s\n", error->message);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return out;
}

/* Row vector x chain: the sequential competitor when only one source state matters. */
static void *m_vector(const PrismDcReduction *r, size_t n, void *u)
{
    (void)u;
    PrismMinPlus *v = prism_minplus_new(1, L, PRISM_DC_INF);
    prism_minplus_set(v, 0, 0, 0);
    PrismMinPlus *const *items = r->user;
    for (size_t i = 0; i < n; i++) {
        PrismMinPlus *nv = prism_minplus_mul(v, items[i]);
        prism_minplus_free(v);
        v = nv;
    }
    return v;
}

static void measure(PrismComm *comm, const char *name, Method fn, const PrismDcReduction *r,
                    size_t n, int reps, const PrismMinPlus *ref, int64_t ref_row0_min)
{
    double *t = g_new(double, reps);
    gboolean ok = TRUE;
    for (int k = -1; k < reps; k++) {
        MPI_Barrier(comm->mpi);
        double t0 = MPI_Wtime();
        PrismMinPlus *res = fn(r, n, comm);
        double dt = MPI_Wtime() - t0, mx = 0;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm->mpi);
        if (k >= 0)
            t[k] = mx;
        if (res->rows == 1) {
            int64_t best = PRISM_DC_INF;
            for (uint32_t j = 0; j < res->cols; j++)
                best = prism_minplus_get(res, 0, j) < best ? prism_minplus_get(res, 0, j) : best;
            ok = ok && best == ref_row0_min;
        } else {
            ok = ok && (ref == NULL || prism_minplus_equal(res, ref));
        }
        prism_minplus_free(res);
    }
    prism_bench_sort(t, (size_t)reps);
    if (comm->rank == 0)
        printf("{\"bench\":\"chain\",\"method\":\"%s\",\"n\":%zu,\"layouts\":%d,\"ranks\":%d,"
               "\"median_s\":%.6f,\"min_s\":%.6f,\"equal_to_left_fold\":%s}\n",
               name, n, L, comm->size, t[reps / 2], t[0], ok ? "true" : "false");
    g_free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    size_t n = 100000;
    int reps = 3;
    uint64_t power_max = 1000000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--n") == 0)
            n = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--power-max") == 0)
            power_max = strtoull(argv[i + 1], NULL, 10);
    }
    if (reps < 1)
        reps = 1;
    PrismComm *comm = prism_comm_new(MPI_COMM_WORLD, NULL);
    if (comm->rank == 0) {
        g_autofree char *ranks = g_strdup_printf("%d", comm->size);
        g_autofree char *chain = g_strdup_printf("%zu", n);
        const char *extra[] = {"ranks", ranks, "n", chain, NULL, NULL};
        prism_bench_header("dc", argc, argv, extra);
    }
    /* the same pseudo-random chain on every rank */
    GRand *rng = g_rand_new_with_seed(2026);
    PrismMinPlus **items = g_new(PrismMinPlus *, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        items[i] = prism_minplus_new(L, L, 0);
        for (size_t e = 0; e < L * L; e++)
            items[i]->v[e] = g_rand_int_range(rng, 0, 1000000);
    }
    PrismDcReduction r;
    prism_minplus_reduction_init(&r, items);
    PrismMinPlus *ref = prism_dc_fold_left(&r, 0, n);
    int64_t row0 = PRISM_DC_INF;
    for (uint32_t j = 0; j < L; j++)
        row0 = prism_minplus_get(ref, 0, j) < row0 ? prism_minplus_get(ref, 0, j) : row0;
    measure(comm, "left-fold", m_left, &r, n, reps, ref, row0);
    measure(comm, "right-fold", m_right, &r, n, reps, ref, row0);
    measure(comm, "tree", m_tree, &r, n, reps, ref, row0);
    measure(comm, "ranks", m_ranks, &r, n, reps, ref, row0);
    measure(comm, "row-vector-fold", m_vector, &r, n, reps, ref, row0);
    /* power vs fold for a repeated block */
    PrismMinPlus *block = items[0];
    PrismMinPlus **same = g_new(PrismMinPlus *, 1);
    same[0] = block;
    for (uint64_t times = 1000; times <= power_max; times *= 1000) {
        PrismMinPlus **rep = g_new(PrismMinPlus *, times);
        for (uint64_t i = 0; i < times; i++)
            rep[i] = block;
        PrismDcReduction rr;
        prism_minplus_reduction_init(&rr, rep);
        double t0 = MPI_Wtime();
        PrismMinPlus *pw = prism_dc_power(&rr, block, times);
        double tp = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        PrismMinPlus *fo = prism_dc_fold_left(&rr, 0, (size_t)times);
        double tf = MPI_Wtime() - t0;
        if (comm->rank == 0)
            printf("{\"bench\":\"power\",\"times\":%" G_GUINT64_FORMAT ",\"layouts\":%d,"
                   "\"power_s\":%.6f,\"fold_s\":%.6f,\"speedup\":%.1f,\"equal\":%s}\n",
                   times, L, tp, tf, tf / tp, prism_minplus_equal(pw, fo) ? "true" : "false");
        prism_minplus_free(pw);
        prism_minplus_free(fo);
        g_free(rep);
    }
    g_free(same);
    prism_minplus_free(ref);
    for (size_t i = 0; i < n; i++)
        prism_minplus_free(items[i]);
    g_free(items);
    g_rand_free(rng);
    prism_comm_free(comm);
    MPI_Finalize();
    return 0;
}
