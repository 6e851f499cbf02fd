// SPDX-License-Identifier: MIT
/*
 * test_front_golden.c - golden Pareto fronts and top-5 lists for a few small fixed setups,
 * compared byte-exactly with tests/golden/<name>.csv (values printed with %.17g, so any
 * change of a bit shows). With PRISM_REGEN_GOLDEN=1 the files are rewritten instead
 * (scripts/regen_golden.sh); review the diff before committing it. tests/golden/README.md
 * describes the setups and the format.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/search.h>

#include "prism_test_util.h"

typedef struct {
    const char *name, *model, *cluster, *objectives;
    uint32_t devices[4];
    size_t n_devices;
    uint64_t gbs, seq;
} Golden;

static const Golden goldens[] = {
    {"gpt3-1.3b_a100x8", "gpt3-1.3b", "A100-80GB", "step_time,peak_mem", {8}, 1, 16, 2048},
    {"llama3-8b_h100x12", "llama3-8b", "H100-SXM", "max:mfu,peak_mem,tp", {12}, 1, 24, 2048},
    {"mixtral-8x7b_a100x16", "mixtral-8x7b", "A100-80GB", "step_time,peak_mem", {16}, 1, 32, 4096},
    {"gpt3-1.3b_a100x4-16",
     "gpt3-1.3b",
     "A100-80GB",
     "step_time,peak_mem,devices",
     {4, 8, 16},
     3,
     32,
     2048},
};

/* The CSV text of one setup: a header comment, then kind,rank,index,objectives...,strategy
 * for the front (canonical order) and the top 5 by step time. */
static char *golden_csv(const Golden *g, GError **error)
{
    g_autoptr(PrismModel) model = prism_model_zoo_get(g->model, error);
    g_autoptr(PrismCluster) cluster = model ? prism_cluster_resolve(g->cluster, error) : NULL;
    if (cluster == NULL)
        return NULL;
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = g->gbs;
    t.seq = g->seq;
    PrismKnobs k;
    prism_knobs_default(&k);
    g_autoptr(PrismSpace) space = prism_space_new(model, &t, g->devices, g->n_devices, NULL, error);
    g_autoptr(PrismCostModel) cm =
        space ? prism_cost_model_new(model, cluster, &t, &k, error) : NULL;
    if (cm == NULL)
        return NULL;
    PrismSearchJob job = {.cm = cm, .space = space};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.top_k = 5;
    opt.kt = prism_kernel_table_get("scalar", error);
    if (opt.kt == NULL ||
        !prism_objectives_parse(g->objectives, opt.objectives, &opt.n_objectives, error))
        return NULL;
    g_autoptr(PrismSearchResult) res =
        prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, error);
    if (res == NULL)
        return NULL;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "# %s: %s on %s x", g->name, g->model, g->cluster);
    for (size_t i = 0; i < g->n_devices; i++)
        g_string_append_printf(s, "%s%u", i ? "," : " ", g->devices[i]);
    g_string_append_printf(
        s,
        ", gbs %" G_GUINT64_FORMAT ", seq %" G_GUINT64_FORMAT "; %" G_GUINT64_FORMAT
        " strategies, %" G_GUINT64_FORMAT " feasible\nkind,rank,index",
        g->gbs, g->seq, prism_search_result_total(res), prism_search_result_feasible(res));
    for (size_t o = 0; o < opt.n_objectives; o++) {
        g_autofree char *nm = prism_objective_name(&opt.objectives[o]);
        g_string_append_printf(s, ",%s", nm);
    }
    g_string_append(s, ",strategy\n");
    const PrismFront *f = prism_search_result_front(res, 0);
    const PrismTopK *top = prism_search_result_top(res, 0);
    size_t nf = prism_front_size(f), nt = prism_topk_size(top);
    for (size_t i = 0; i < nf + nt; i++) {
        uint64_t idx = i < nf ? prism_front_index(f, i) : prism_topk_index(top, i - nf);
        PrismStrategy st;
        double c[PRISM_COL_COUNT];
        if (!prism_search_row(&job, 1, idx, NULL, &st, c, error)) {
            g_string_free(s, TRUE);
            return NULL;
        }
        g_string_append_printf(s, "%s,%zu,%" G_GUINT64_FORMAT, i < nf ? "front" : "top",
                               (i < nf ? i : i - nf) + 1, idx);
        for (size_t o = 0; o < opt.n_objectives; o++)
            g_string_append_printf(s, ",%.17g", prism_objective_value(&opt.objectives[o], &st, c));
        g_autofree char *text = prism_strategy_format(&st);
        g_string_append_printf(s, ",devices=%u,%s\n", st.devices, text);
    }
    return g_string_free(s, FALSE);
}

static void test_goldens(void)
{
    const char *src = g_getenv("PRISM_SOURCE_DIR");
    gboolean regen = g_strcmp0(g_getenv("PRISM_REGEN_GOLDEN"), "1") == 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    for (size_t i = 0; i < G_N_ELEMENTS(goldens); i++) {
        GError *error = NULL;
        g_autofree char *csv = golden_csv(&goldens[i], &error);
        if (csv == NULL)
            fprintf(stderr, "%s: %s\n", goldens[i].name, error ? error->message : "?");
        CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
        g_autofree char *file = g_strdup_printf("%s/tests/golden/%s.csv", src, goldens[i].name);
        if (regen) {
            CU_ASSERT_TRUE(g_file_set_contents(file, csv, -1, &error));
            printf("[wrote %s] ", file);
        } else {
            g_autofree char *want = NULL;
            CU_ASSERT_TRUE(g_file_get_contents(file, &want, NULL, &error));
            gboolean same = want != NULL && strcmp(want, csv) == 0;
            if (!same)
                fprintf(stderr,
                        "%s differs from the golden file (scripts/regen_golden.sh "
                        "rewrites it; review the diff):\n%s\n",
                        file, csv);
            CU_ASSERT_TRUE(same);
        }
        g_clear_error(&error);
    }
}

static CU_TestInfo golden_tests[] = {
    {"golden fronts", test_goldens},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"golden", NULL, NULL, NULL, NULL, golden_tests},
    CU_SUITE_INFO_NULL,
};
