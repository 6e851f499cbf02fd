// SPDX-License-Identifier: MIT
/*
 * test_front.c - Pareto fronts: every skyline path (2-D scan, 3-D Fenwick, SFS for 1 and
 * >= 4 keys, streaming offers with pre-filtering) equals an O(n^2) brute-force dominance
 * check; merge is associative and commutative; serialisation round-trips byte-exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/front.h>

#include "prism_test_util.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n points with k keys; "grid" values (many exact ties) or continuous ones, with a few
 * NaNs, negative zeros and duplicated points. Indices are distinct but shuffled. */
static void make_points(uint64_t seed, size_t n, size_t k, gboolean grid, double *keys,
                        uint64_t *idx)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < k; j++) {
            uint64_t r = rng_next(&s);
            keys[i * k + j] = grid ? (double)(r % 7) - 3.0 : (double)(r >> 11) * 0x1p-53;
        }
        idx[i] = i * 7919 % (n * 13 + 1) + 1000;
        if (i % 97 == 5)
            keys[i * k + (i % k)] = NAN;
        if (grid && i % 31 == 3)
            keys[i * k] = -0.0;
        if (i % 53 == 7 && i > 0) /* same keys as the previous point, other index */
            memcpy(keys + i * k, keys + (i - 1) * k, k * sizeof(double));
    }
}

/* O(n^2) oracle: p survives iff no q precedes it (front.h) and it is not an exact
 * duplicate of an earlier (keys, index) entry. Result sorted canonically. */
static PrismFront *brute_front(size_t n, size_t k, const double *keys, const uint64_t *idx)
{
    GByteArray *buf = g_byte_array_new();
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const double *p = keys + i * k;
        gboolean nan = FALSE;
        for (size_t j = 0; j < k; j++)
            nan |= isnan(p[j]);
        if (nan)
            continue;
        gboolean out = FALSE;
        for (size_t q = 0; q < n && !out; q++) {
            if (q == i)
                continue;
            const double *r = keys + q * k;
            gboolean le = TRUE, lt = FALSE, rnan = FALSE;
            for (size_t j = 0; j < k; j++) {
                rnan |= isnan(r[j]);
                le &= r[j] <= p[j];
                lt |= r[j] < p[j];
            }
            if (rnan || !le)
                continue;
            out = lt || idx[q] < idx[i] || (idx[q] == idx[i] && q < i);
        }
        if (!out) {
            g_byte_array_append(buf, (const guint8 *)&idx[i], 8);
            g_byte_array_append(buf, (const guint8 *)p, (guint)(8 * k));
            count++;
        }
    }
    /* canonical order: sort the rows, then build the front from them (already minimal) */
    size_t row = 8 + 8 * k;
    for (size_t a = 1; a < count; a++) /* insertion sort: small n */
        for (size_t b = a; b > 0; b--) {
            guint8 *x = buf->data + (b - 1) * row, *y = buf->data + b * row;
            double kx[8], ky[8];
            uint64_t ix, iy;
            memcpy(&ix, x, 8);
            memcpy(&iy, y, 8);
            memcpy(kx, x + 8, 8 * k);
            memcpy(ky, y + 8, 8 * k);
            int c = 0;
            for (size_t j = 0; j < k && c == 0; j++)
                c = kx[j] < ky[j] ? -1 : kx[j] > ky[j];
            if (c == 0)
                c = ix < iy ? -1 : ix > iy;
            if (c <= 0)
                break;
            guint8 tmp[8 + 64];
            memcpy(tmp, x, row);
            memcpy(x, y, row);
            memcpy(y, tmp, row);
        }
    /* serialise as a front and read it back: the oracle result as a PrismFront */
    GByteArray *ser = g_byte_array_new();
    uint32_t head[4] = {0x52465250u, 1u, (uint32_t)k, 0};
    uint64_t n64 = count;
    g_byte_array_append(ser, (const guint8 *)head, sizeof head);
    g_byte_array_append(ser, (const guint8 *)&n64, 8);
    g_byte_array_append(ser, buf->data, buf->len);
    size_t used = 0;
    PrismFront *f = prism_front_deserialize(ser->data, ser->len, &used, NULL);
    g_byte_array_unref(ser);
    g_byte_array_unref(buf);
    return f;
}

static PrismFront *stream_front(size_t n, size_t k, const double *keys, const uint64_t *idx)
{
    PrismFront *f = prism_front_new(k);
    for (size_t i = 0; i < n; i++)
        prism_front_offer(f, keys + i * k, idx[i]);
    prism_front_finish(f);
    return f;
}

static gboolean same_bytes(const PrismFront *a, const PrismFront *b)
{
    g_autoptr(GByteArray) x = g_byte_array_new();
    g_autoptr(GByteArray) y = g_byte_array_new();
    prism_front_serialize(a, x);
    prism_front_serialize(b, y);
    return x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

static void test_against_brute_force(void)
{
    const size_t sizes[] = {0, 1, 2, 17, 300, 1500};
    int cases = 0;
    for (size_t k = 1; k <= 5; k++)
        for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++)
            for (int grid = 0; grid <= 1; grid++) {
                size_t n = sizes[si];
                g_autofree double *keys = g_new(double, (n + 1) * k);
                g_autofree uint64_t *idx = g_new(uint64_t, n + 1);
                make_points(1000 * k + 10 * si + (uint64_t)grid, n, k, grid, keys, idx);
                g_autoptr(PrismFront) want = brute_front(n, k, keys, idx);
                g_autoptr(PrismFront) got = stream_front(n, k, keys, idx);
                CU_ASSERT_PTR_NOT_NULL_FATAL(want);
                gboolean eq = prism_front_equal(want, got) && same_bytes(want, got);
                if (!eq)
                    fprintf(stderr, "k=%zu n=%zu grid=%d: brute %zu vs skyline %zu\n", k, n, grid,
                            prism_front_size(want), prism_front_size(got));
                CU_ASSERT_TRUE(eq);
                if (n >= 300)
                    CU_ASSERT_TRUE(prism_front_size(got) >= 1);
                cases++;
            }
    CU_ASSERT_EQUAL(cases, 60);
}

/*
 * Hand example, 2 keys (minimise both):
 *   #10 (1,5)  #11 (2,3)  #12 (3,4)  #13 (4,1)  #14 (2,3)  #9 (4,1)  #15 (5,0.5)  #16 (1,6)
 * #12 is dominated by #11; #14 ties #11 with a larger index; #13 ties #9 with a larger
 * index; #16 is dominated by #10. Front, canonical: #10 (1,5), #11 (2,3), #9 (4,1),
 * #15 (5,0.5).
 */
static void test_hand_example(void)
{
    const double pts[][2] = {{1, 5}, {2, 3}, {3, 4}, {4, 1}, {2, 3}, {4, 1}, {5, 0.5}, {1, 6}};
    const uint64_t idx[] = {10, 11, 12, 13, 14, 9, 15, 16};
    g_autoptr(PrismFront) f = prism_front_new(2);
    for (size_t i = 0; i < G_N_ELEMENTS(idx); i++)
        prism_front_offer(f, pts[i], idx[i]);
    prism_front_finish(f);
    CU_ASSERT_EQUAL_FATAL(prism_front_size(f), 4);
    const uint64_t want[] = {10, 11, 9, 15};
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(prism_front_index(f, i), want[i]);
    CU_ASSERT_EQUAL(prism_front_key(f, 3)[1], 0.5);
    /* a NaN never enters, even when it would dominate everything */
    const double nan_pt[2] = {NAN, -1e300};
    prism_front_offer(f, nan_pt, 1);
    prism_front_finish(f);
    CU_ASSERT_EQUAL(prism_front_size(f), 4);
    /* an earlier index with the same keys replaces the point */
    const double tie[2] = {2, 3};
    prism_front_offer(f, tie, 3);
    prism_front_finish(f);
    CU_ASSERT_EQUAL(prism_front_index(f, 1), 3);
}

static void test_merge_laws(void)
{
    for (size_t k = 2; k <= 4; k++) {
        size_t n = 2000;
        g_autofree double *keys = g_new(double, n *k);
        g_autofree uint64_t *idx = g_new(uint64_t, n);
        make_points(77 + k, n, k, k != 3, keys, idx);
        g_autoptr(PrismFront) all = stream_front(n, k, keys, idx);
        /* split into 3 uneven parts */
        size_t cut1 = 123, cut2 = 1400;
        g_autoptr(PrismFront) a = stream_front(cut1, k, keys, idx);
        g_autoptr(PrismFront) b = stream_front(cut2 - cut1, k, keys + cut1 * k, idx + cut1);
        g_autoptr(PrismFront) c = stream_front(n - cut2, k, keys + cut2 * k, idx + cut2);
        g_autoptr(PrismFront) ab = prism_front_merge(a, b);
        g_autoptr(PrismFront) ab_c = prism_front_merge(ab, c);
        g_autoptr(PrismFront) bc = prism_front_merge(b, c);
        g_autoptr(PrismFront) a_bc = prism_front_merge(a, bc);
        g_autoptr(PrismFront) ca = prism_front_merge(c, a);
        g_autoptr(PrismFront) ca_b = prism_front_merge(ca, b);
        CU_ASSERT_TRUE(same_bytes(ab_c, all));
        CU_ASSERT_TRUE(same_bytes(a_bc, all));
        CU_ASSERT_TRUE(same_bytes(ca_b, all));
        /* a copy is the same front (and independent of the original) */
        g_autoptr(PrismFront) cp = prism_front_copy(all);
        CU_ASSERT_TRUE(same_bytes(cp, all) && prism_front_n_objectives(cp) == k);
        /* idempotent: merging a front with itself changes nothing */
        g_autoptr(PrismFront) aa = prism_front_merge(all, all);
        CU_ASSERT_TRUE(same_bytes(aa, all));
        /* empty is the identity */
        g_autoptr(PrismFront) empty = prism_front_new(k);
        prism_front_finish(empty);
        g_autoptr(PrismFront) ae = prism_front_merge(empty, all);
        CU_ASSERT_TRUE(same_bytes(ae, all));
    }
}

static void test_serialize(void)
{
    size_t n = 500, k = 3;
    g_autofree double *keys = g_new(double, n *k);
    g_autofree uint64_t *idx = g_new(uint64_t, n);
    make_points(5, n, k, FALSE, keys, idx);
    g_autoptr(PrismFront) f = stream_front(n, k, keys, idx);
    g_autoptr(GByteArray) buf = g_byte_array_new();
    prism_front_serialize(f, buf);
    CU_ASSERT_EQUAL(buf->len, 24 + prism_front_size(f) * (8 + 8 * k));
    size_t used = 0;
    GError *error = NULL;
    g_autoptr(PrismFront) back = prism_front_deserialize(buf->data, buf->len, &used, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    CU_ASSERT_EQUAL(used, buf->len);
    CU_ASSERT_TRUE(same_bytes(f, back));
    /* truncated and corrupted buffers are errors, not crashes */
    for (size_t cut = 0; cut < buf->len; cut += 7) {
        PrismFront *bad = prism_front_deserialize(buf->data, cut, &used, &error);
        if (cut < 24 + (8 + 8 * k) * prism_front_size(f)) {
            CU_ASSERT_PTR_NULL(bad);
            CU_ASSERT_TRUE(error != NULL && error->code == PRISM_RUNTIME_ERROR_INTERNAL);
        }
        prism_front_free(bad);
        g_clear_error(&error);
    }
    buf->data[0] ^= 0xff;
    CU_ASSERT_PTR_NULL(prism_front_deserialize(buf->data, buf->len, &used, &error));
    CU_ASSERT_PTR_NOT_NULL(error);
    g_clear_error(&error);
}

typedef struct {
    double x, y;
    uint64_t idx;
} Pt2;

static int cmp_pt2(const void *a, const void *b)
{
    const Pt2 *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return p->idx < q->idx ? -1 : p->idx > q->idx;
}

/* Streaming with many front-improving offers in index order exercises the flushes. */
static void test_streaming_large(void)
{
    size_t n = 60000, k = 2;
    g_autofree double *keys = g_new(double, n *k);
    g_autofree uint64_t *idx = g_new(uint64_t, n);
    uint64_t s = 9;
    for (size_t i = 0; i < n; i++) {
        /* points on/near the anti-diagonal: a large front */
        double x = (double)(rng_next(&s) >> 11) * 0x1p-53;
        keys[2 * i] = x;
        keys[2 * i + 1] = 1.0 - x + (double)(rng_next(&s) % 4) * 1e-3;
        idx[i] = i;
    }
    g_autoptr(PrismFront) f = stream_front(n, k, keys, idx);
    /* Independent oracle for a large 2-D set, the textbook staircase: sort by (x, y,
     * index) and keep each point whose y is strictly below every y before it. (A point
     * with the same x and a smaller y, or the same keys and a smaller index, comes first
     * and removes it, as front.h's tie-break says.) */
    Pt2 *pts = g_new(Pt2, n);
    for (size_t i = 0; i < n; i++)
        pts[i] = (Pt2){keys[2 * i], keys[2 * i + 1], idx[i]};
    qsort(pts, n, sizeof *pts, cmp_pt2);
    GArray *want = g_array_new(FALSE, FALSE, sizeof(Pt2));
    double best_y = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (pts[i].y < best_y) {
            best_y = pts[i].y;
            g_array_append_val(want, pts[i]);
        }
    gboolean same = prism_front_size(f) == want->len;
    for (size_t i = 0; same && i < want->len; i++) {
        const Pt2 *w = &g_array_index(want, Pt2, i);
        same = prism_front_index(f, i) == w->idx && prism_front_key(f, i)[0] == w->x &&
               prism_front_key(f, i)[1] == w->y;
    }
    if (!same)
        fprintf(stderr, "staircase %u points vs streaming front %zu\n", want->len,
                prism_front_size(f));
    CU_ASSERT_TRUE(same);
    CU_ASSERT_TRUE(prism_front_size(f) > 1000);
    /* reverse offer order: another flush pattern, the same bytes */
    PrismFront *g = prism_front_new(2);
    for (size_t i = n; i > 0; i--)
        prism_front_offer(g, keys + 2 * (i - 1), idx[i - 1]);
    prism_front_finish(g);
    CU_ASSERT_TRUE(same_bytes(f, g));
    prism_front_free(g);
    /* trimmed every 7,001 offers (a walk leaving a job and coming back): the same bytes */
    PrismFront *t = prism_front_new(2);
    for (size_t i = 0; i < n; i++) {
        prism_front_offer(t, keys + 2 * i, idx[i]);
        if (i % 7001 == 7000)
            prism_front_trim(t);
    }
    prism_front_trim(t);
    CU_ASSERT_TRUE(same_bytes(f, t));
    prism_front_free(t);
    g_array_unref(want);
    g_free(pts);
}

/* 3 keys and a front of more than 2048 points: offers skip the linear pre-filter and
 * the flushes decide (Fenwick skyline); still equal to the O(n^2) oracle. */
static void test_streaming_large_3d(void)
{
    size_t n = 6000, k = 3;
    g_autofree double *keys = g_new(double, n *k);
    g_autofree uint64_t *idx = g_new(uint64_t, n);
    uint64_t s = 3;
    for (size_t i = 0; i < n; i++) {
        double x = (double)(rng_next(&s) >> 11) * 0x1p-53;
        double y = (double)(rng_next(&s) >> 11) * 0x1p-53 * (1 - x);
        keys[3 * i] = x;
        keys[3 * i + 1] = y;
        keys[3 * i + 2] = 1 - x - y + (double)(rng_next(&s) % 3) * 1e-4; /* near a plane */
        idx[i] = i;
    }
    g_autoptr(PrismFront) want = brute_front(n, k, keys, idx);
    g_autoptr(PrismFront) got = stream_front(n, k, keys, idx);
    CU_ASSERT_TRUE(prism_front_size(want) > 2048);
    CU_ASSERT_TRUE(prism_front_equal(want, got) && same_bytes(want, got));
}

static CU_TestInfo front_tests[] = {
    {"streaming, large 3-D front", test_streaming_large_3d},
    {"hand example", test_hand_example},
    {"skyline == brute force (k = 1..5)", test_against_brute_force},
    {"merge laws", test_merge_laws},
    {"serialize", test_serialize},
    {"streaming, large front", test_streaming_large},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"front", NULL, NULL, NULL, NULL, front_tests},
    CU_SUITE_INFO_NULL,
};
