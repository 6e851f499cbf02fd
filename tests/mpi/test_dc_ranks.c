// SPDX-License-Identifier: MIT
/*
 * test_dc_ranks.c - the ordered cross-rank reduction at 1, 2, 3 and 4 ranks: the result
 * on every rank is bit-identical to the sequential left fold and to the brute force,
 * including chains shorter than the rank count (empty blocks give the identity); a
 * corrupt message fails every rank without a hang.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/dc.h>

#include "prism_test_util.h"
#include "../unit/test_dc_support.h"

static void test_minplus_ranks(void)
{
    PrismComm *comm = prism_test_comm();
    GRand *rng = g_rand_new_with_seed(4242); /* same seed: same instances on every rank */
    gboolean all_ok = TRUE;
    for (int trial = 0; trial < 60; trial++) {
        size_t n = (size_t)g_rand_int_range(rng, 1, 8); /* often fewer elements than ranks */
        uint32_t dims[16];
        PrismMinPlus **m = tdc_random_chain(rng, n, 4, dims);
        PrismDcReduction r;
        prism_minplus_reduction_init(&r, m);
        PrismMinPlus *seq = prism_dc_fold_left(&r, 0, n);
        void *par = NULL;
        GError *error = NULL;
        gboolean ok = prism_dc_reduce_ranks(comm, &r, n, &par, &error);
        ok = ok && prism_minplus_equal(seq, par);
        if (n <= 6)
            for (uint32_t i = 0; ok && i < dims[0]; i++)
                for (uint32_t j = 0; j < dims[n]; j++)
                    if (prism_minplus_get(par, i, j) != tdc_brute_entry(m, n, dims, i, j))
                        ok = FALSE;
        all_ok = all_ok && ok;
        g_clear_error(&error);
        if (par)
            prism_minplus_free(par);
        prism_minplus_free(seq);
        for (size_t i = 0; i < n; i++)
            prism_minplus_free(m[i]);
        g_free(m);
    }
    g_rand_free(rng);
    CU_ASSERT_TRUE(prism_test_all(all_ok));
}

static void test_pareto_ranks(void)
{
    PrismComm *comm = prism_test_comm();
    GRand *rng = g_rand_new_with_seed(777);
    gboolean all_ok = TRUE;
    for (int trial = 0; trial < 40; trial++) {
        size_t n = (size_t)g_rand_int_range(rng, 1, 9);
        uint32_t dims[16];
        PrismParetoMat **m = tdc_random_pareto_chain(rng, n, 3, dims);
        PrismDcReduction r;
        prism_pareto_reduction_init(&r, m);
        PrismParetoMat *seq = prism_dc_fold_right(&r, 0, n);
        void *par = NULL;
        gboolean ok = prism_dc_reduce_ranks(comm, &r, n, &par, NULL);
        all_ok = all_ok && ok && prism_pareto_equal(seq, par);
        if (par)
            prism_pareto_free(par);
        prism_pareto_free(seq);
        for (size_t i = 0; i < n; i++)
            prism_pareto_free(m[i]);
        g_free(m);
    }
    g_rand_free(rng);
    CU_ASSERT_TRUE(prism_test_all(all_ok));
}

/* A min-plus type whose deserialize fails: every rank that receives a message fails,
 * and the agreement must release all ranks. */
static void *failing_deserialize(const uint8_t *buf, size_t n, GError **error)
{
    (void)buf;
    g_set_error(error, PRISM_DC_ERROR, PRISM_DC_ERROR_CORRUPT, "injected corrupt (%zu bytes)",
                n);
    return NULL;
}

static void test_corrupt_message_no_hang(void)
{
    PrismComm *comm = prism_test_comm();
    PrismDcType bad = prism_minplus_type;
    bad.deserialize = failing_deserialize;
    PrismMinPlus *items[8];
    for (int i = 0; i < 8; i++)
        items[i] = prism_minplus_new(2, 2, i);
    PrismDcReduction r;
    prism_minplus_reduction_init(&r, items);
    r.type = &bad;
    void *out = NULL;
    GError *error = NULL;
    gboolean ok = prism_dc_reduce_ranks(comm, &r, 8, &out, &error);
    if (comm->size == 1) {
        /* no message travels: the reduction succeeds; 2x2 all-i matrices: entry = sum 0..7 */
        CU_ASSERT_TRUE(ok);
        CU_ASSERT_TRUE(out != NULL && prism_minplus_get(out, 0, 0) == 28);
    } else {
        CU_ASSERT_FALSE(ok);
        CU_ASSERT_PTR_NULL(out);
        CU_ASSERT_PTR_NOT_NULL(error);
    }
    if (out)
        prism_minplus_free(out);
    g_clear_error(&error);
    for (int i = 0; i < 8; i++)
        prism_minplus_free(items[i]);
}

static CU_TestInfo rank_tests[] = {
    {"min-plus over ranks = fold = brute force", test_minplus_ranks},
    {"Pareto over ranks = right fold", test_pareto_ranks},
    {"corrupt message fails every rank, no hang", test_corrupt_message_no_hang},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"dc-ranks", NULL, NULL, NULL, NULL, rank_tests},
    CU_SUITE_INFO_NULL,
};
