// SPDX-License-Identifier: MIT
/*
 * test_topk.c - top-k lists: equal to a full sort by (key, index) of all non-NaN
 * points, ties broken by index, merge associative, serialisation round trip.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/front.h>

#include "prism_test_util.h"

typedef struct {
    double key;
    uint64_t idx;
} Pt;

static int pt_cmp(const void *a, const void *b)
{
    const Pt *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void make(uint64_t seed, size_t n, Pt *p)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = lcg(&seed);
        p[i].key = (double)(r % 50); /* many ties */
        p[i].idx = (i * 7 + 3) % (n + 11);
        if (r % 23 == 0)
            p[i].key = NAN;
    }
}

/* Oracle: sort the non-NaN points and take the first k. */
static size_t oracle(const Pt *p, size_t n, size_t k, Pt *out)
{
    Pt *all = g_new(Pt, n ? n : 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i].key))
            all[m++] = p[i];
    qsort(all, m, sizeof(Pt), pt_cmp);
    size_t r = m < k ? m : k;
    memcpy(out, all, r * sizeof(Pt));
    g_free(all);
    return r;
}

static void test_against_sort(void)
{
    const size_t ks[] = {1, 3, 10, 100};
    const size_t ns[] = {0, 5, 99, 2000};
    for (size_t a = 0; a < G_N_ELEMENTS(ks); a++)
        for (size_t b = 0; b < G_N_ELEMENTS(ns); b++) {
            size_t k = ks[a], n = ns[b];
            g_autofree Pt *p = g_new(Pt, n + 1);
            g_autofree Pt *want = g_new(Pt, k);
            make(a * 100 + b, n, p);
            size_t m = oracle(p, n, k, want);
            g_autoptr(PrismTopK) t = prism_topk_new(k);
            for (size_t i = 0; i < n; i++)
                prism_topk_offer(t, p[i].key, p[i].idx);
            CU_ASSERT_EQUAL(prism_topk_size(t), m);
            gboolean ok = prism_topk_size(t) == m;
            for (size_t i = 0; ok && i < m; i++)
                ok = prism_topk_key(t, i) == want[i].key && prism_topk_index(t, i) == want[i].idx;
            CU_ASSERT_TRUE(ok);
        }
}

/* Hand example, k = 3: keys (idx) 5 (1), 2 (9), 2 (4), NaN (0), 7 (2), 2 (3)
 * -> sorted by (key, idx): 2 (3), 2 (4), 2 (9). */
static void test_hand(void)
{
    g_autoptr(PrismTopK) t = prism_topk_new(3);
    const double keys[] = {5, 2, 2, NAN, 7, 2};
    const uint64_t idx[] = {1, 9, 4, 0, 2, 3};
    for (size_t i = 0; i < 6; i++)
        prism_topk_offer(t, keys[i], idx[i]);
    CU_ASSERT_EQUAL_FATAL(prism_topk_size(t), 3);
    CU_ASSERT_EQUAL(prism_topk_index(t, 0), 3);
    CU_ASSERT_EQUAL(prism_topk_index(t, 1), 4);
    CU_ASSERT_EQUAL(prism_topk_index(t, 2), 9);
    /* offering the same point again changes nothing */
    prism_topk_offer(t, 2, 3);
    CU_ASSERT_EQUAL(prism_topk_index(t, 1), 4);
}

static void test_merge(void)
{
    size_t n = 3000, k = 25;
    g_autofree Pt *p = g_new(Pt, n);
    make(42, n, p);
    PrismTopK *part[3];
    g_autoptr(PrismTopK) all = prism_topk_new(k);
    for (int j = 0; j < 3; j++)
        part[j] = prism_topk_new(k);
    for (size_t i = 0; i < n; i++) {
        prism_topk_offer(part[i * 3 / n], p[i].key, p[i].idx);
        prism_topk_offer(all, p[i].key, p[i].idx);
    }
    g_autoptr(PrismTopK) ab = prism_topk_merge(part[0], part[1]);
    g_autoptr(PrismTopK) ab_c = prism_topk_merge(ab, part[2]);
    g_autoptr(PrismTopK) cb = prism_topk_merge(part[2], part[1]);
    g_autoptr(PrismTopK) cb_a = prism_topk_merge(cb, part[0]);
    CU_ASSERT_TRUE(prism_topk_equal(ab_c, all));
    CU_ASSERT_TRUE(prism_topk_equal(cb_a, all));
    g_autoptr(PrismTopK) cp = prism_topk_copy(all);
    CU_ASSERT_TRUE(prism_topk_equal(cp, all) && prism_topk_size(cp) == k);
    g_autoptr(PrismTopK) self = prism_topk_merge(all, all);
    CU_ASSERT_TRUE(prism_topk_equal(self, all));
    g_autoptr(GByteArray) buf = g_byte_array_new();
    prism_topk_serialize(all, buf);
    size_t used = 0;
    g_autoptr(PrismTopK) back = prism_topk_deserialize(buf->data, buf->len, &used, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    CU_ASSERT_EQUAL(used, buf->len);
    CU_ASSERT_TRUE(prism_topk_equal(back, all));
    GError *error = NULL;
    CU_ASSERT_PTR_NULL(prism_topk_deserialize(buf->data, buf->len - 1, &used, &error));
    CU_ASSERT_PTR_NOT_NULL(error);
    g_clear_error(&error);
    for (int j = 0; j < 3; j++)
        prism_topk_free(part[j]);
}

static CU_TestInfo topk_tests[] = {
    {"hand example", test_hand},
    {"top-k == full sort", test_against_sort},
    {"merge and serialize", test_merge},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"topk", NULL, NULL, NULL, NULL, topk_tests},
    CU_SUITE_INFO_NULL,
};
