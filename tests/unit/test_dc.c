// SPDX-License-Identifier: MIT
/*
 * test_dc.c - the divide-and-conquer engine without MPI: every evaluation order (left
 * fold, right fold, balanced tree, power) gives bit-identical summaries, equal to an
 * independent brute force (path enumeration, O(n^2) Pareto filter) on small chains; the
 * serialized forms round-trip and reject corrupt bytes.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/dc.h>

#include "prism_test_util.h"
#include "test_dc_support.h"

static void test_minplus_orders_and_brute(void)
{
    GRand *rng = g_rand_new_with_seed(20261129);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = (size_t)g_rand_int_range(rng, 1, 7);
        uint32_t dims[16];
        PrismMinPlus **m = tdc_random_chain(rng, n, 4, dims);
        PrismDcReduction r;
        prism_minplus_reduction_init(&r, m);
        PrismMinPlus *l = prism_dc_fold_left(&r, 0, n);
        PrismMinPlus *rt = prism_dc_fold_right(&r, 0, n);
        PrismMinPlus *t = prism_dc_tree(&r, 0, n);
        CU_ASSERT_TRUE(prism_minplus_equal(l, rt));
        CU_ASSERT_TRUE(prism_minplus_equal(l, t));
        CU_ASSERT_EQUAL(l->rows, dims[0]);
        CU_ASSERT_EQUAL(l->cols, dims[n]);
        gboolean brute_ok = TRUE;
        for (uint32_t i = 0; i < dims[0]; i++)
            for (uint32_t j = 0; j < dims[n]; j++)
                if (prism_minplus_get(l, i, j) != tdc_brute_entry(m, n, dims, i, j))
                    brute_ok = FALSE;
        CU_ASSERT_TRUE(brute_ok);
        /* any split point: h(x ++ y) = h(x) . h(y) */
        size_t cut = (size_t)g_rand_int_range(rng, 0, (gint32)n + 1);
        PrismMinPlus *a = prism_dc_tree(&r, 0, cut), *b = prism_dc_fold_right(&r, cut, n);
        PrismMinPlus *ab = prism_minplus_mul(a, b);
        CU_ASSERT_TRUE(prism_minplus_equal(l, ab));
        prism_minplus_free(a);
        prism_minplus_free(b);
        prism_minplus_free(ab);
        prism_minplus_free(l);
        prism_minplus_free(rt);
        prism_minplus_free(t);
        for (size_t i = 0; i < n; i++)
            prism_minplus_free(m[i]);
        g_free(m);
    }
    g_rand_free(rng);
}

static void test_minplus_noncommutative(void)
{
    /* a = [[0, 5], [1, 0]] (2x2), b = [[3, 0], [0, 9]].
     * a.b: (0,0) = min(0+3, 5+0) = 3; (0,1) = min(0+0, 5+9) = 0;
     *      (1,0) = min(1+3, 0+0) = 0; (1,1) = min(1+0, 0+9) = 1.
     * b.a: (0,0) = min(3+0, 0+1) = 1; so a.b != b.a. */
    PrismMinPlus *a = prism_minplus_new(2, 2, 0), *b = prism_minplus_new(2, 2, 0);
    int64_t av[] = {0, 5, 1, 0}, bv[] = {3, 0, 0, 9};
    memcpy(a->v, av, sizeof av);
    memcpy(b->v, bv, sizeof bv);
    PrismMinPlus *ab = prism_minplus_mul(a, b), *ba = prism_minplus_mul(b, a);
    int64_t expect[] = {3, 0, 0, 1};
    CU_ASSERT_EQUAL(memcmp(ab->v, expect, sizeof expect), 0);
    CU_ASSERT_EQUAL(prism_minplus_get(ba, 0, 0), 1);
    CU_ASSERT_FALSE(prism_minplus_equal(ab, ba));
    /* the identity is neutral on both sides */
    PrismMinPlus *e = prism_minplus_identity();
    PrismMinPlus *ea = prism_minplus_mul(e, a), *ae = prism_minplus_mul(a, e);
    CU_ASSERT_TRUE(prism_minplus_equal(ea, a));
    CU_ASSERT_TRUE(prism_minplus_equal(ae, a));
    /* saturation: inf + x = inf, and overflow saturates */
    CU_ASSERT_EQUAL(prism_dc_add(PRISM_DC_INF, -5), PRISM_DC_INF);
    CU_ASSERT_EQUAL(prism_dc_add(INT64_MAX - 1, 7), PRISM_DC_INF);
    prism_minplus_free(a);
    prism_minplus_free(b);
    prism_minplus_free(ab);
    prism_minplus_free(ba);
    prism_minplus_free(e);
    prism_minplus_free(ea);
    prism_minplus_free(ae);
}

static void test_power(void)
{
    GRand *rng = g_rand_new_with_seed(7);
    for (int trial = 0; trial < 30; trial++) {
        uint32_t dims[2];
        PrismMinPlus **m = tdc_random_chain(rng, 1, 4, dims);
        /* square matrix for powers */
        PrismMinPlus *sq = prism_minplus_new(dims[0], dims[0], 0);
        for (size_t e = 0; e < (size_t)dims[0] * dims[0]; e++)
            sq->v[e] = g_rand_int_range(rng, 0, 50);
        PrismMinPlus *items[64];
        for (int i = 0; i < 64; i++)
            items[i] = sq;
        PrismDcReduction r;
        prism_minplus_reduction_init(&r, items);
        for (uint64_t n = 0; n <= 64; n++) {
            PrismMinPlus *p = prism_dc_power(&r, sq, n);
            PrismMinPlus *f = prism_dc_fold_left(&r, 0, (size_t)n);
            CU_ASSERT_TRUE(prism_minplus_equal(p, f));
            prism_minplus_free(p);
            prism_minplus_free(f);
        }
        prism_minplus_free(sq);
        prism_minplus_free(m[0]);
        g_free(m);
    }
    /* hand-checked: 1x1 matrix [3] to the 1000000th power is [3000000] */
    PrismMinPlus *one = prism_minplus_new(1, 1, 3);
    PrismDcReduction r;
    prism_minplus_reduction_init(&r, &one);
    PrismMinPlus *p = prism_dc_power(&r, one, 1000000);
    CU_ASSERT_EQUAL(prism_minplus_get(p, 0, 0), 3000000);
    prism_minplus_free(p);
    prism_minplus_free(one);
    g_rand_free(rng);
}

static void test_pareto_orders_and_brute(void)
{
    GRand *rng = g_rand_new_with_seed(99);
    for (int trial = 0; trial < 120; trial++) {
        size_t n = (size_t)g_rand_int_range(rng, 1, 5);
        uint32_t dims[16];
        PrismParetoMat **m = tdc_random_pareto_chain(rng, n, 3, dims);
        PrismDcReduction r;
        prism_pareto_reduction_init(&r, m);
        PrismParetoMat *l = prism_dc_fold_left(&r, 0, n);
        PrismParetoMat *rt = prism_dc_fold_right(&r, 0, n);
        PrismParetoMat *t = prism_dc_tree(&r, 0, n);
        CU_ASSERT_TRUE(prism_pareto_equal(l, rt));
        CU_ASSERT_TRUE(prism_pareto_equal(l, t));
        gboolean ok = TRUE;
        for (uint32_t i = 0; i < dims[0]; i++)
            for (uint32_t j = 0; j < dims[n]; j++) {
                PrismParetoPoint *bf = NULL;
                size_t nb = tdc_brute_pareto_entry(m, n, dims, i, j, &bf);
                size_t e = (size_t)i * l->cols + j;
                if (nb != l->count[e] ||
                    (nb > 0 && memcmp(bf, l->pts + l->offset[e], nb * sizeof *bf) != 0))
                    ok = FALSE;
                g_free(bf);
            }
        CU_ASSERT_TRUE(ok);
        prism_pareto_free(l);
        prism_pareto_free(rt);
        prism_pareto_free(t);
        for (size_t i = 0; i < n; i++)
            prism_pareto_free(m[i]);
        g_free(m);
    }
    g_rand_free(rng);
}

static void test_pareto_prune_hand(void)
{
    /* (5,1) (1,5) (3,3) (3,2) (1,6) (5,1) (6,0) -> front sorted by time:
     * (1,5) (3,2) (5,1) (6,0); (1,6), (3,3) and the duplicate (5,1) are dominated. */
    PrismParetoPoint p[] = {{5, 1}, {1, 5}, {3, 3}, {3, 2}, {1, 6}, {5, 1}, {6, 0}};
    uint32_t n = prism_pareto_prune(p, 7);
    PrismParetoPoint expect[] = {{1, 5}, {3, 2}, {5, 1}, {6, 0}};
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(memcmp(p, expect, sizeof expect), 0);
}

static void test_serialize_roundtrip(void)
{
    GRand *rng = g_rand_new_with_seed(3);
    uint32_t dims[8];
    PrismMinPlus **m = tdc_random_chain(rng, 3, 4, dims);
    PrismParetoMat **pm = tdc_random_pareto_chain(rng, 2, 3, dims);
    const void *objs[] = {m[0], pm[0]};
    const PrismDcType *types[] = {&prism_minplus_type, &prism_pareto_type};
    for (int k = 0; k < 2; k++) {
        size_t n = 0;
        uint8_t *buf = prism_dc_serialize(types[k], objs[k], &n);
        GError *error = NULL;
        void *back = types[k]->deserialize(buf, n, &error);
        CU_ASSERT_PTR_NOT_NULL(back);
        CU_ASSERT_TRUE(back != NULL && types[k]->equal(back, objs[k]));
        if (back)
            types[k]->free(back);
        /* truncated and empty buffers are rejected with a message */
        CU_ASSERT_PTR_NULL(types[k]->deserialize(buf, n - 1, &error));
        CU_ASSERT_TRUE(g_error_matches(error, PRISM_DC_ERROR, PRISM_DC_ERROR_CORRUPT));
        g_clear_error(&error);
        CU_ASSERT_PTR_NULL(types[k]->deserialize(buf, 0, &error));
        g_clear_error(&error);
        g_free(buf);
    }
    /* identity: exactly 8 zero bytes */
    PrismMinPlus *e = prism_minplus_identity();
    size_t n = 0;
    uint8_t *buf = prism_dc_serialize(&prism_minplus_type, e, &n);
    CU_ASSERT_EQUAL(n, 8);
    PrismMinPlus *eb = prism_minplus_type.deserialize(buf, n, NULL);
    CU_ASSERT_TRUE(eb != NULL && eb->is_identity);
    prism_minplus_free(eb);
    prism_minplus_free(e);
    g_free(buf);
    for (int i = 0; i < 3; i++)
        prism_minplus_free(m[i]);
    for (int i = 0; i < 2; i++)
        prism_pareto_free(pm[i]);
    g_free(m);
    g_free(pm);
    g_rand_free(rng);
}

static CU_TestInfo engine_tests[] = {
    {"min-plus: left/right/tree/split equal brute force", test_minplus_orders_and_brute},
    {"min-plus: non-commutative, identity, saturation", test_minplus_noncommutative},
    {"power equals fold, 0..64 and 10^6", test_power},
    {"Pareto: every order equals brute force", test_pareto_orders_and_brute},
    {"Pareto: prune by hand", test_pareto_prune_hand},
    {"serialized forms round-trip, corrupt rejected", test_serialize_roundtrip},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"dc-engine", NULL, NULL, NULL, NULL, engine_tests},
    CU_SUITE_INFO_NULL,
};
