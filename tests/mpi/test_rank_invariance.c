// SPDX-License-Identifier: MIT
/*
 * test_rank_invariance.c - the search result through the real cost model is
 * byte-identical for any number of ranks: every rank also runs the same search alone
 * (on MPI_COMM_SELF, i.e. the 1-rank result) and compares the canonical serialisation
 * of every job's front, top-k and closest lists and the counts. Run at 1, 2, 3 and 4
 * ranks, this shows all four give the same bytes. Setups cover a dense model with a
 * device list (3 default objectives), an MoE model with a max objective, and a two-job
 * run (weighted partition, per-job results).
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/search.h>

#include "prism_test_util.h"

typedef struct {
    PrismModel *model;
    PrismSpace *space;
    PrismCostModel *cm;
} Job;

static gboolean job_init(Job *j, const char *model, const uint32_t *dev, size_t nd, uint64_t gbs,
                         uint64_t seq)
{
    memset(j, 0, sizeof *j);
    g_autoptr(PrismCluster) cluster = prism_cluster_resolve("H100-SXM", NULL);
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = gbs;
    t.seq = seq;
    PrismKnobs k;
    prism_knobs_default(&k);
    j->model = prism_model_zoo_get(model, NULL);
    if (j->model == NULL || cluster == NULL)
        return FALSE;
    j->space = prism_space_new(j->model, &t, dev, nd, NULL, NULL);
    if (j->space != NULL)
        j->cm = prism_cost_model_new(j->model, cluster, &t, &k, NULL);
    return j->cm != NULL;
}

static void job_clear(Job *j)
{
    prism_cost_model_free(j->cm);
    prism_space_free(j->space);
    prism_model_free(j->model);
}

static GByteArray *canonical(const PrismSearchResult *r, size_t n_jobs)
{
    GByteArray *b = g_byte_array_new();
    uint64_t head[3] = {prism_search_result_total(r), prism_search_result_evaluated(r),
                        prism_search_result_feasible(r)};
    g_byte_array_append(b, (const guint8 *)head, sizeof head);
    for (size_t j = 0; j < n_jobs; j++) {
        uint64_t f = prism_search_result_job_feasible(r, j);
        g_byte_array_append(b, (const guint8 *)&f, sizeof f);
        prism_front_serialize(prism_search_result_front(r, j), b);
        prism_topk_serialize(prism_search_result_top(r, j), b);
        prism_topk_serialize(prism_search_result_closest(r, j), b);
    }
    return b;
}

static void check(const PrismSearchJob *jobs, size_t n_jobs, const char *objectives,
                  const char *rank_by)
{
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.top_k = 12;
    gboolean ok = TRUE;
    if (objectives)
        ok &= prism_objectives_parse(objectives, opt.objectives, &opt.n_objectives, NULL);
    if (rank_by) {
        ok &= prism_objective_parse(rank_by, &opt.rank_by, NULL);
        opt.rank_by_set = TRUE;
    }
    PrismSearchResult *all = prism_search_run(prism_test_comm(), jobs, n_jobs, &opt, NULL, NULL);
    PrismComm *self = prism_comm_new(MPI_COMM_SELF, NULL);
    PrismSearchResult *one = self ? prism_search_run(self, jobs, n_jobs, &opt, NULL, NULL) : NULL;
    ok &= all != NULL && one != NULL;
    if (ok) {
        g_autoptr(GByteArray) a = canonical(all, n_jobs);
        g_autoptr(GByteArray) b = canonical(one, n_jobs);
        ok = a->len == b->len && memcmp(a->data, b->data, a->len) == 0 &&
             prism_front_size(prism_search_result_front(one, 0)) > 1 &&
             prism_search_result_ranks(all) == prism_test_comm()->size;
        if (prism_test_comm()->rank == 0)
            printf("[%" G_GUINT64_FORMAT " rows, front %zu, %u bytes] ",
                   prism_search_result_total(one),
                   prism_front_size(prism_search_result_front(one, 0)), a->len);
    }
    CU_ASSERT_TRUE(prism_test_all(ok));
    prism_search_result_free(all);
    prism_search_result_free(one);
    prism_comm_free(self);
}

static void test_dense_device_list(void)
{
    const uint32_t dev[] = {4, 8, 16};
    Job j;
    CU_ASSERT_TRUE_FATAL(job_init(&j, "gpt3-1.3b", dev, 3, 32, 2048));
    PrismSearchJob job = {.cm = j.cm, .space = j.space};
    check(&job, 1, NULL, NULL); /* step_time, peak_mem, devices */
    check(&job, 1, "step_time,peak_mem,max:mfu,tp", "peak_mem");
    job_clear(&j);
}

static void test_moe(void)
{
    const uint32_t dev[] = {16};
    Job j;
    CU_ASSERT_TRUE_FATAL(job_init(&j, "mixtral-8x7b", dev, 1, 32, 4096));
    PrismSearchJob job = {.cm = j.cm, .space = j.space};
    check(&job, 1, "max:mfu,peak_mem", "max:tokens_per_s");
    job_clear(&j);
}

static void test_two_jobs(void)
{
    const uint32_t d12[] = {12}, d8[] = {8};
    Job a, b;
    CU_ASSERT_TRUE_FATAL(job_init(&a, "llama3-8b", d12, 1, 24, 2048));
    CU_ASSERT_TRUE_FATAL(job_init(&b, "deepseek-v2-lite", d8, 1, 16, 2048));
    PrismSearchJob jobs[2] = {{.cm = a.cm, .space = a.space}, {.cm = b.cm, .space = b.space}};
    check(jobs, 2, NULL, NULL);
    job_clear(&a);
    job_clear(&b);
}

static CU_TestInfo invariance_tests[] = {
    {"dense, device list", test_dense_device_list},
    {"MoE, max objective", test_moe},
    {"two jobs", test_two_jobs},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"rank invariance", NULL, NULL, NULL, NULL, invariance_tests},
    CU_SUITE_INFO_NULL,
};
