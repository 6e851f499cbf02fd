// SPDX-License-Identifier: MIT
/*
 * test_bounds.c - the search with bounds (PrismSearchOptions.bound: rows proved out by a
 * floor of their step time and peak memory, never evaluated) gives the top list and the
 * Pareto front of the full walk (exhaustive) bit for bit, and the closest list too where
 * nothing fits (what the diagnosis reads). Over every zoo model, each with random device
 * counts, batch, sequence, memory budget, three knobs drawn from their allowed ranges and
 * one of the device-memory knobs (the verdict is on the device-level figure), one of
 * several objective sets, and 1 or 3 threads, at whatever rank count the test runs with
 * (1-4 in CTest). The draws come from a seed drawn per run (printed; PRISM_TEST_SEED
 * repeats one), so successive runs cover more of the knobs.
 * A floor that is not a floor leaves out a row of the answer and fails the comparison;
 * the test also requires that some rows were proved out (a run that proves nothing out
 * would pass trivially).
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/comm.h>
#include <prism/core.h>
#include <prism/search.h>

#include "prism_test_util.h"

/* Objective sets and rank-by columns a plan uses (NULL: the defaults); the last has a key
 * without a floor (bubble_time): no row may be proved out there. */
static const char *const objective_sets[][2] = {
    {NULL, NULL},
    {"step_time,peak_mem,max:mfu", "max:tokens_per_s"},
    {"max:tokens_per_s,peak_mem,tp", "peak_mem"},
    {"step_time,peak_mem,pp,zero", "max:mfu"},
    {"step_time,bubble_time", NULL},
};

static uint64_t proved_total;

/* One random case: model @p name, drawn from @p rng (the same draws on every rank). */
static void check_case(const char *name, GRand *rng, size_t set)
{
    static const uint32_t counts[] = {2, 4, 8};
    static const uint64_t gbss[] = {8, 16};
    static const uint64_t seqs[] = {1024, 2048};
    uint32_t dev[2];
    size_t nd = g_rand_int_range(rng, 0, 4) == 0 ? 2 : 1;
    dev[0] = counts[g_rand_int_range(rng, 0, nd == 1 ? 3 : 2)];
    dev[1] = dev[0] * 2;
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = gbss[g_rand_int_range(rng, 0, 2)];
    t.seq = seqs[g_rand_int_range(rng, 0, 2)];
    /* 20 to 80 GiB: from nothing fits (the closest list) to most things fit */
    t.mem_budget_bytes = g_rand_double_range(rng, 20.0, 80.0) * 1073741824.0;
    PrismKnobs k;
    prism_knobs_default(&k);
    PrismKnobs drawn = k;
    for (int i = 0; i < 3; i++) {
        const int id = g_rand_int_range(rng, 0, PRISM_KNOB_COUNT);
        const PrismKnobInfo *info = prism_knob_info((PrismKnobId)id);
        if (info->max - info->min < 1e6)
            drawn.v[id] = g_rand_double_range(rng, info->min, info->max);
    }
    /* the device-level figure's parts: allocator reserve, pages, CUDA context, NCCL buffers */
    switch (g_rand_int_range(rng, 0, 4)) {
    case 0:
        drawn.v[PRISM_KNOB_ALLOCATOR_RESERVE] = g_rand_double_range(rng, 0.0, 1.0);
        break;
    case 1:
        drawn.v[PRISM_KNOB_EXPANDABLE_SEGMENTS] = 1.0;
        break;
    case 2:
        drawn.v[PRISM_KNOB_CUDA_CONTEXT] = g_rand_double_range(rng, 0.0, 4e9);
        break;
    default:
        drawn.v[PRISM_KNOB_NCCL_CONN_BYTES] = g_rand_double_range(rng, 0.0, 2e8);
        break;
    }
    const int threads = g_rand_boolean(rng) ? 3 : 1;
    g_autoptr(PrismCluster) cluster = prism_cluster_resolve("H100-SXM", NULL);
    g_autoptr(PrismModel) model = prism_model_zoo_get(name, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(model);
    /* few virtual stages and recompute blocks (each is a segment of its own: the segments,
     * not the lanes, set a case's cost), offload over its whole domain or the default one,
     * and the overlap dims searched where a framework could turn them off */
    PrismSpaceFilter *filter = prism_space_filter_new();
    gboolean fok = prism_space_filter_range(filter, "vpp=1:2,rc_layers=1:2", NULL);
    if (g_rand_boolean(rng))
        fok = fok && prism_space_filter_only(filter, "offload=0,1,2,3", NULL);
    const unsigned ov = (unsigned)g_rand_int_range(rng, 0, 8);
    prism_space_filter_set_overlap(filter, ov, ov);
    CU_ASSERT_TRUE_FATAL(fok);
    g_autoptr(PrismSpace) space = prism_space_new(model, &t, dev, nd, filter, NULL);
    prism_space_filter_free(filter);
    if (space == NULL) /* no strategy on these devices (e.g. heads that tp cannot split) */
        return;
    PrismCostModel *cm = prism_cost_model_new(model, cluster, &t, &drawn, NULL);
    if (cm == NULL) /* a knob combination the model refuses: the defaults then */
        cm = prism_cost_model_new(model, cluster, &t, &k, NULL);
    if (cm == NULL) /* a sequence longer than the model allows */
        return;
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.top_k = 5;
    opt.threads = threads;
    gboolean ok = TRUE;
    if (objective_sets[set][0] != NULL)
        ok &=
            prism_objectives_parse(objective_sets[set][0], opt.objectives, &opt.n_objectives, NULL);
    if (objective_sets[set][1] != NULL) {
        ok &= prism_objective_parse(objective_sets[set][1], &opt.rank_by, NULL);
        opt.rank_by_set = TRUE;
    }
    PrismSearchJob job = {.cm = cm, .space = space};
    PrismSearchOptions full = opt;
    full.exhaustive = TRUE;
    opt.bound = TRUE;
    PrismSearchResult *a = prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, NULL);
    PrismSearchResult *b = prism_search_run(prism_test_comm(), &job, 1, &full, NULL, NULL);
    ok &= a != NULL && b != NULL;
    if (ok) {
        const uint64_t fa = prism_search_result_feasible(a), fb = prism_search_result_feasible(b);
        const uint64_t proved = prism_search_result_proved(a);
        ok = prism_topk_equal(prism_search_result_top(a, 0), prism_search_result_top(b, 0)) &&
             prism_front_equal(prism_search_result_front(a, 0), prism_search_result_front(b, 0)) &&
             prism_search_result_evaluated(a) + proved == prism_search_result_total(a) &&
             prism_search_result_proved(b) == 0 && (fa == 0) == (fb == 0) && fa <= fb;
        /* where nothing fits the diagnosis reads the closest list: the full walk's */
        if (fb == 0)
            ok &= prism_topk_equal(prism_search_result_closest(a, 0),
                                   prism_search_result_closest(b, 0));
        if (set + 1 == G_N_ELEMENTS(objective_sets))
            ok &= proved == 0;
        proved_total += proved;
        if (!ok && prism_test_comm()->rank == 0)
            printf("\n  %s on %u%s devices, gbs %" G_GUINT64_FORMAT ", seq %" G_GUINT64_FORMAT
                   ", set %zu, %d threads: differs ",
                   name, dev[0], nd > 1 ? "+" : "", t.gbs, t.seq, set, threads);
    }
    CU_ASSERT_TRUE(prism_test_all(ok));
    prism_search_result_free(a);
    prism_search_result_free(b);
    prism_cost_model_free(cm);
}

/* The run's seed: PRISM_TEST_SEED, else rank 0's clock, the same on every rank. */
static guint32 prism_test_seed(void)
{
    const char *e = g_getenv("PRISM_TEST_SEED");
    guint32 seed = e ? (guint32)g_ascii_strtoull(e, NULL, 10) : (guint32)g_get_real_time();
    MPI_Bcast(&seed, 1, MPI_UINT32_T, 0, prism_test_comm()->mpi);
    return seed;
}

static void test_zoo_identity(void)
{
    const guint32 seed = prism_test_seed();
    g_autoptr(GRand) rng = g_rand_new_with_seed(seed);
    size_t cases = 0;
    /* the sanitizer pass (PRISM_TEST_SANITIZED=1) checks every fourth model, from an offset
     * the seed picks (successive runs cover them all; the main pass checks every one) */
    const char *san = g_getenv("PRISM_TEST_SANITIZED");
    const size_t stride = san != NULL && strcmp(san, "1") == 0 ? 4 : 1;
    for (size_t i = 0; i < prism_model_zoo_size(); i++) {
        const size_t set = (size_t)g_rand_int_range(rng, 0, (gint32)G_N_ELEMENTS(objective_sets));
        g_autoptr(GRand) one = g_rand_new_with_seed(g_rand_int(rng));
        if (i % stride != seed % stride)
            continue;
        check_case(prism_model_zoo_name(i), one, set);
        cases++;
    }
    if (prism_test_comm()->rank == 0)
        printf("[seed %u: %zu cases, %" G_GUINT64_FORMAT " rows proved out] ", seed, cases,
               proved_total);
    CU_ASSERT_TRUE(proved_total > 0);
}

/* prism_front_covers against its definition, checked point by point: random fronts of 2
 * (the staircase search) and 3 keys on a small grid (ties and equal keys are common). */
static void test_front_covers(void)
{
    g_autoptr(GRand) rng = g_rand_new_with_seed(7);
    for (size_t k = 2; k <= 3; k++) {
        for (int round = 0; round < 200; round++) {
            g_autoptr(PrismFront) f = prism_front_new(k);
            const int n = g_rand_int_range(rng, 0, 30);
            for (int i = 0; i < n; i++) {
                double key[3];
                for (size_t d = 0; d < k; d++)
                    key[d] = g_rand_int_range(rng, 0, 8);
                prism_front_offer(f, key, (uint64_t)i);
            }
            prism_front_finish(f);
            for (int q = 0; q < 50; q++) {
                double lb[3];
                for (size_t d = 0; d < k; d++)
                    lb[d] = g_rand_int_range(rng, -1, 9);
                gboolean want = FALSE;
                for (size_t i = 0; i < prism_front_size(f) && !want; i++) {
                    const double *p = prism_front_key(f, i);
                    gboolean le = TRUE, lt = FALSE;
                    for (size_t d = 0; d < k; d++) {
                        le = le && p[d] <= lb[d];
                        lt = lt || p[d] < lb[d];
                    }
                    want = le && lt;
                }
                CU_ASSERT_EQUAL(prism_front_covers(f, lb), want);
            }
        }
    }
}

static CU_TestInfo bounds_tests[] = {
    {"the front covers a point: against the definition", test_front_covers},
    {"the top list and front of the full walk, over the zoo", test_zoo_identity},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"bounds", NULL, NULL, NULL, NULL, bounds_tests},
    CU_SUITE_INFO_NULL,
};
