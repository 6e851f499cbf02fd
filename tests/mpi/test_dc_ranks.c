// SPDX-License-Identifier: MIT
/*
 * test_dc_ranks.c - the ordered cross-rank reduction at 1, 2, 3 and 4 ranks: the result
 * on every rank is bit-identical to the sequential left fold and to the brute force,
 * including chains shorter than the rank count (empty blocks give the identity); a
 * corrupt message fails every rank without a hang.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/cluster.h>
#include <prism/dc.h>
#include <prism/smsg.h>

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
    g_set_error(error, PRISM_DC_ERROR, PRISM_DC_ERROR_CORRUPT, "injected corrupt (%zu bytes)", n);
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

/* A real instance: VGG-16 is a pure chain, so its cost is the (min,+) product
 * D(op0) E(0,1) D(op1) E(1,2) ... D(opN) of node diagonals and edge matrices built from
 * the per-operator costs. Reduced over the ranks, its smallest entry must equal the
 * series-parallel solver's optimum, at every rank count and tp. */
static PrismMinPlus *diag_of(const PrismOpGraph *g, const PrismSmsgEnv *env, uint32_t v)
{
    PrismLayoutOption o[PRISM_SMSG_MAX_OPTIONS];
    uint32_t n = prism_op_layout_options(&g->ops[v], env, o);
    PrismMinPlus *d = prism_minplus_new(n, n, PRISM_DC_INF);
    for (uint32_t a = 0; a < n; a++)
        prism_minplus_set(d, a, a, prism_smsg_ps(o[a].compute_s + o[a].comm_s));
    return d;
}

static PrismMinPlus *edge_of(const PrismOpGraph *g, const PrismSmsgEnv *env, uint32_t v)
{
    uint32_t u = g->ops[v].inputs[0];
    PrismLayoutOption ou[PRISM_SMSG_MAX_OPTIONS], ov[PRISM_SMSG_MAX_OPTIONS];
    uint32_t nu = prism_op_layout_options(&g->ops[u], env, ou);
    uint32_t nv = prism_op_layout_options(&g->ops[v], env, ov);
    const PrismOp *p = &g->ops[u];
    PrismMinPlus *e = prism_minplus_new(nu, nv, 0);
    for (uint32_t a = 0; a < nu; a++)
        for (uint32_t b = 0; b < nv; b++)
            prism_minplus_set(
                e, a, b,
                prism_smsg_ps(prism_smsg_edge_time(
                    env, &ou[a], &ov[b], p->rows * p->out_features * p->elem_bytes, NULL)));
    return e;
}

static void test_vgg_chain_over_ranks(void)
{
    PrismComm *comm = prism_test_comm();
    g_autoptr(PrismOpGraph) g = prism_op_graph_builtin("vgg16", NULL);
    g_autoptr(PrismCluster) c = prism_cluster_preset("A100-80GB", NULL);
    PrismKnobs k;
    prism_knobs_default(&k);
    gboolean all_ok = g != NULL && c != NULL;
    for (uint32_t tp = 2; all_ok && tp <= 8; tp *= 2) {
        PrismSmsgEnv env;
        prism_smsg_env_init(&env, c, &k, tp);
        size_t n = 0;
        PrismMinPlus **items = g_new(PrismMinPlus *, 2 * g->n_ops);
        gboolean chain = TRUE;
        for (uint32_t v = 0; v < g->n_ops; v++) {
            chain = chain && g->ops[v].n_inputs == (v == 0 ? 0u : 1u);
            if (v > 0)
                items[n++] = edge_of(g, &env, v);
            items[n++] = diag_of(g, &env, v);
        }
        PrismDcReduction r;
        prism_minplus_reduction_init(&r, items);
        void *out = NULL;
        gboolean ok = chain && prism_dc_reduce_ranks(comm, &r, n, &out, NULL);
        PrismLayoutPlan *p = prism_smsg_solve(g, &env, NULL, NULL);
        ok = ok && p != NULL && prism_minplus_min(out) == p->total_ps;
        all_ok = all_ok && ok;
        prism_layout_plan_free(p);
        if (out)
            prism_minplus_free(out);
        for (size_t i = 0; i < n; i++)
            prism_minplus_free(items[i]);
        g_free(items);
    }
    CU_ASSERT_TRUE(prism_test_all(all_ok));
}

static CU_TestInfo rank_tests[] = {
    {"VGG-16 chain over ranks = SP solver optimum", test_vgg_chain_over_ranks},
    {"min-plus over ranks = fold = brute force", test_minplus_ranks},
    {"Pareto over ranks = right fold", test_pareto_ranks},
    {"corrupt message fails every rank, no hang", test_corrupt_message_no_hang},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"dc-ranks", NULL, NULL, NULL, NULL, rank_tests},
    CU_SUITE_INFO_NULL,
};
