/*
 * test_dc_support.h - random instances and brute-force oracles shared by the engine
 * tests (unit and MPI). Header-only (static functions) so each test binary stays one
 * translation unit plus this file.
 */
#ifndef PRISM_TEST_DC_SUPPORT_H
#define PRISM_TEST_DC_SUPPORT_H

#include <stdint.h>

#include <glib.h>

#include <prism/dc.h>

/* A chain of n rectangular min-plus matrices with dims d[0] x d[1], d[1] x d[2], ...
 * Entries are 0..30, about one in six is +inf. dims[] has n+1 entries in 1..maxdim. */
static inline PrismMinPlus **tdc_random_chain(GRand *rng, size_t n, uint32_t maxdim, uint32_t *dims)
{
    for (size_t i = 0; i <= n; i++)
        dims[i] = (uint32_t)g_rand_int_range(rng, 1, (gint32)maxdim + 1);
    PrismMinPlus **m = g_new(PrismMinPlus *, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        m[i] = prism_minplus_new(dims[i], dims[i + 1], 0);
        for (size_t e = 0; e < (size_t)dims[i] * dims[i + 1]; e++)
            m[i]->v[e] =
                g_rand_int_range(rng, 0, 6) == 0 ? PRISM_DC_INF : g_rand_int_range(rng, 0, 31);
    }
    return m;
}

/* Advance a mixed-radix counter k[from..n) with radices radix[]; FALSE when it wraps
 * around (every combination has been visited). */
static inline gboolean tdc_counter_next(uint32_t *k, const uint32_t *radix, size_t from, size_t n)
{
    for (size_t pos = from; pos < n; pos++) {
        if (++k[pos] < radix[pos])
            return TRUE;
        k[pos] = 0;
    }
    return FALSE;
}

/* Brute force: entry (i, j) of the chain product = min over every path
 * i = k_0, k_1, ..., k_n = j of sum m[s][k_s][k_{s+1}], enumerated as a mixed-radix
 * counter over the inner indices (no matrix product involved). */
static inline int64_t tdc_brute_entry(PrismMinPlus *const *m, size_t n, const uint32_t *dims,
                                      uint32_t i, uint32_t j)
{
    uint32_t k[16] = {0};
    int64_t best = PRISM_DC_INF;
    for (;;) {
        int64_t sum = 0;
        for (size_t s = 0; s < n; s++) {
            uint32_t from = s == 0 ? i : k[s], to = s + 1 == n ? j : k[s + 1];
            sum = prism_dc_add(sum, prism_minplus_get(m[s], from, to));
        }
        if (sum < best)
            best = sum;
        if (!tdc_counter_next(k, dims, 1, n))
            break;
    }
    return best;
}

/* O(n^2) dominance filter, independent of prism_pareto_prune: keep points no other
 * point weakly dominates with one strict inequality; drop duplicates after the first. */
static inline size_t tdc_brute_front(PrismParetoPoint *p, size_t n)
{
    size_t k = 0;
    for (size_t a = 0; a < n; a++) {
        gboolean keep = p[a].time != PRISM_DC_INF;
        for (size_t b = 0; b < n && keep; b++) {
            if (b == a)
                continue;
            gboolean weak = p[b].time <= p[a].time && p[b].mem <= p[a].mem;
            gboolean strict = p[b].time < p[a].time || p[b].mem < p[a].mem;
            if (weak && strict)
                keep = FALSE;
            if (!strict && weak && b < a) /* equal point seen earlier */
                keep = FALSE;
        }
        if (keep)
            p[k++] = p[a];
    }
    /* sort by time for comparison with the canonical order */
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && p[b].time < p[b - 1].time; b--) {
            PrismParetoPoint t = p[b];
            p[b] = p[b - 1];
            p[b - 1] = t;
        }
    return k;
}

/* A chain of Pareto matrices with 0..3 random points per entry (time, mem in 0..20). */
static inline PrismParetoMat **tdc_random_pareto_chain(GRand *rng, size_t n, uint32_t maxdim,
                                                       uint32_t *dims)
{
    for (size_t i = 0; i <= n; i++)
        dims[i] = (uint32_t)g_rand_int_range(rng, 1, (gint32)maxdim + 1);
    PrismParetoMat **m = g_new(PrismParetoMat *, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        size_t e = (size_t)dims[i] * dims[i + 1];
        PrismParetoPoint *buf = g_new(PrismParetoPoint, e * 3 + 1);
        const PrismParetoPoint **lists = g_new(const PrismParetoPoint *, e);
        uint32_t *lens = g_new(uint32_t, e);
        for (size_t x = 0; x < e; x++) {
            lens[x] = (uint32_t)g_rand_int_range(rng, 0, 4);
            lists[x] = buf + x * 3;
            for (uint32_t p = 0; p < lens[x]; p++)
                buf[x * 3 + p] =
                    (PrismParetoPoint){g_rand_int_range(rng, 0, 21), g_rand_int_range(rng, 0, 21)};
        }
        m[i] = prism_pareto_new(dims[i], dims[i + 1], lists, lens);
        g_free(buf);
        g_free(lists);
        g_free(lens);
    }
    return m;
}

/* Brute force front of entry (i, j): every path and every choice of one point per
 * factor, summed, then the O(n^2) filter. */
static inline size_t tdc_brute_pareto_entry(PrismParetoMat *const *m, size_t n,
                                            const uint32_t *dims, uint32_t i, uint32_t j,
                                            PrismParetoPoint **out)
{
    GArray *acc = g_array_new(FALSE, FALSE, sizeof(PrismParetoPoint));
    uint32_t k[16] = {0};
    for (;;) {
        /* all point choices along this path: a second mixed-radix counter */
        size_t e[16];
        uint32_t cnt[16], pick[16] = {0};
        gboolean empty = FALSE;
        for (size_t s = 0; s < n; s++) {
            uint32_t from = s == 0 ? i : k[s], to = s + 1 == n ? j : k[s + 1];
            e[s] = (size_t)from * m[s]->cols + to;
            cnt[s] = m[s]->count[e[s]];
            if (cnt[s] == 0)
                empty = TRUE;
        }
        while (!empty) {
            PrismParetoPoint sum = {0, 0};
            for (size_t s = 0; s < n; s++) {
                PrismParetoPoint q = m[s]->pts[m[s]->offset[e[s]] + pick[s]];
                sum.time += q.time;
                sum.mem += q.mem;
            }
            g_array_append_val(acc, sum);
            if (!tdc_counter_next(pick, cnt, 0, n))
                break;
        }
        if (!tdc_counter_next(k, dims, 1, n))
            break;
    }
    size_t len = tdc_brute_front((PrismParetoPoint *)(void *)acc->data, acc->len);
    *out = (PrismParetoPoint *)(void *)g_array_free(acc, FALSE);
    return len;
}

#endif /* PRISM_TEST_DC_SUPPORT_H */
