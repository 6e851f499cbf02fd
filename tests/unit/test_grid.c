// SPDX-License-Identifier: MIT
/*
 * test_grid.c - grid files (prism_grid_load): a full file is read value by value, a
 * minimal one leaves everything else unset, and every malformed file in
 * tests/data/grids/bad-*.ini gives an input error naming the file, key and value.
 */
#include <string.h>

#include <glib/gstdio.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/io.h>

#include "prism_test_util.h"

static PrismGrid *load(const char *name, GError **error)
{
    g_autofree char *rel = g_build_filename("grids", name, NULL);
    g_autofree char *path = prism_test_data_path(rel);
    return prism_grid_load(path, error);
}

static void test_small_grid(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("small.ini", &error);
    CU_ASSERT_PTR_NOT_NULL(g);
    if (g == NULL) {
        fprintf(stderr, "%s\n", error->message);
        g_error_free(error);
        return;
    }
    CU_ASSERT_EQUAL(g->n_models, 2);
    CU_ASSERT_STRING_EQUAL(g->model_names[1], "llama2-7b");
    CU_ASSERT_EQUAL(prism_model_n_blocks(g->models[0]), 24); /* GPT-3 1.3B: 24 layers */
    CU_ASSERT_EQUAL(g->n_clusters, 2);
    /* The cluster file is found relative to the grid file (../clusters/). */
    CU_ASSERT_STRING_EQUAL(g->cluster_names[1], "../clusters/three-level.ini");
    CU_ASSERT_EQUAL(g->clusters[1]->n_levels, 3);
    CU_ASSERT_STRING_EQUAL(g->devices, "8,16");
    CU_ASSERT_EQUAL(g->n_gbs, 1);
    CU_ASSERT_EQUAL(g->gbs[0], 64);
    CU_ASSERT_EQUAL(g->seq[0], 2048);
    CU_ASSERT_STRING_EQUAL(g->dtype, "bf16");
    CU_ASSERT_EQUAL(g->mem_budget_gib, 70.0);
    CU_ASSERT_STRING_EQUAL(g->fix[0], "zero=1");
    CU_ASSERT_STRING_EQUAL(g->only[0], "schedule=1f1b,interleaved");
    CU_ASSERT_PTR_NULL(g->range);
    CU_ASSERT_EQUAL(g->top, 5);
    CU_ASSERT_STRING_EQUAL(g->knobs[0], "tp_overlap=0.5");
    CU_ASSERT_PTR_NULL(g->knobs[1]);
}

static void test_minimal_grid(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("minimal.ini", &error);
    CU_ASSERT_PTR_NOT_NULL(g);
    g_clear_error(&error);
    if (g == NULL)
        return;
    CU_ASSERT_EQUAL(g->n_models, 1);
    CU_ASSERT_EQUAL(g->n_clusters, 0);
    CU_ASSERT_PTR_NULL(g->devices);
    CU_ASSERT_PTR_NULL(g->gbs);
    CU_ASSERT_PTR_NULL(g->seq);
    CU_ASSERT_PTR_NULL(g->knobs);
    CU_ASSERT_EQUAL(g->top, 0);
}

static void test_hf_config_next_to_grid(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("hf.ini", &error);
    CU_ASSERT_PTR_NOT_NULL(g);
    if (g == NULL) {
        fprintf(stderr, "%s\n", error->message);
        g_error_free(error);
        return;
    }
    CU_ASSERT_EQUAL(g->n_models, 2);
    CU_ASSERT_STRING_EQUAL(g->model_names[0], "../hf/gpt2.json");
    CU_ASSERT_EQUAL(g->models[0]->hidden, 768); /* GPT-2 small: n_embd 768 */
    CU_ASSERT_EQUAL(prism_model_n_blocks(g->models[0]), 12);
}

/* Plain file names (no folder) next to the grid file, loaded from another folder: the
 * cluster key file "mine.ini" was looked up in the working folder only. */
static void test_files_next_to_grid(void)
{
    g_autofree char *tmpl = g_build_filename(g_get_tmp_dir(), "prism-grid-XXXXXX", NULL);
    char *dir = g_mkdtemp(tmpl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    g_autofree char *cl_src = prism_test_data_path("clusters/three-level.ini");
    g_autofree char *hf_src = prism_test_data_path("hf/gpt2.json");
    g_autofree char *cl = g_build_filename(dir, "mine.ini", NULL);
    g_autofree char *hf = g_build_filename(dir, "cfg.json", NULL);
    g_autofree char *grid = g_build_filename(dir, "grid.ini", NULL);
    g_autofree char *text_cl = NULL, *text_hf = NULL;
    gboolean ok =
        g_file_get_contents(cl_src, &text_cl, NULL, NULL) &&
        g_file_get_contents(hf_src, &text_hf, NULL, NULL) &&
        g_file_set_contents(cl, text_cl, -1, NULL) && g_file_set_contents(hf, text_hf, -1, NULL) &&
        g_file_set_contents(grid, "[grid]\nmodels = cfg.json\nclusters = mine.ini\n", -1, NULL);
    CU_ASSERT_TRUE_FATAL(ok);
    GError *error = NULL;
    g_autoptr(PrismGrid) g = prism_grid_load(grid, &error);
    if (g == NULL)
        fprintf(stderr, "%s\n", error->message);
    CU_ASSERT_TRUE(g != NULL && g->n_clusters == 1 && g->clusters[0]->n_levels == 3 &&
                   g->models[0]->hidden == 768);
    g_clear_error(&error);
    g_unlink(cl);
    g_unlink(hf);
    g_unlink(grid);
    g_rmdir(dir);
}

static void test_bad_grids(void)
{
    static const struct {
        const char *file;
        int code;
        const char *needle[2];
    } cases[] = {
        {"bad-unknown-key.ini", PRISM_INPUT_ERROR_UNKNOWN_NAME, {"model_count", "models"}},
        {"bad-unknown-group.ini", PRISM_INPUT_ERROR_UNKNOWN_NAME, {"[setup]", "[options]"}},
        {"bad-no-grid.ini", PRISM_INPUT_ERROR_MISSING, {"no [grid] group", "bad-no-grid.ini"}},
        {"bad-unknown-model.ini", PRISM_INPUT_ERROR_UNKNOWN_NAME, {"gpt3-14b", "gpt3-13b"}},
        {"bad-gbs.ini", PRISM_INPUT_ERROR_VALUE, {"[grid] gbs", "'-8'"}},
        {"bad-empty-list.ini", PRISM_INPUT_ERROR_VALUE, {"models", "empty list"}},
        {"bad-knob.ini", PRISM_INPUT_ERROR_VALUE, {"[knobs]", "tp_overlap"}},
        {"bad-filter.ini", PRISM_INPUT_ERROR_UNKNOWN_NAME, {"[options] fix", "tpp"}},
        {"bad-syntax.ini", PRISM_INPUT_ERROR_PARSE, {"bad-syntax.ini", "grid"}},
        {"bad-duplicate-key.ini",
         PRISM_INPUT_ERROR_PARSE,
         {"[grid] key 'models' is given twice", "lines 3 and 5"}},
        {"bad-top.ini", PRISM_INPUT_ERROR_VALUE, {"[options] top", "2.5"}},
        {"bad-top-large.ini", PRISM_INPUT_ERROR_VALUE, {"[options] top", "up to 1000"}},
        {"bad-missing-config.ini", PRISM_INPUT_ERROR_FILE, {"does-not-exist.json", "models"}},
        {"no-such-grid.ini", PRISM_INPUT_ERROR_FILE, {"no-such-grid.ini", "grid"}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *error = NULL;
        PrismGrid *g = load(cases[i].file, &error);
        gboolean ok = g == NULL && g_error_matches(error, PRISM_INPUT_ERROR, cases[i].code) &&
                      strstr(error->message, cases[i].needle[0]) != NULL &&
                      strstr(error->message, cases[i].needle[1]) != NULL;
        if (!ok)
            fprintf(stderr, "%s: %s\n", cases[i].file, error ? error->message : "(no error)");
        CU_ASSERT_TRUE(ok);
        g_clear_error(&error);
        prism_grid_free(g);
    }
    /* Every bad grid on disk is in the table (and so is tested); all but no-such-grid.ini. */
    CU_ASSERT_EQUAL(prism_test_data_files_listed("grids", "bad-", &cases[0].file,
                                                 G_N_ELEMENTS(cases), sizeof cases[0]),
                    (int)G_N_ELEMENTS(cases) - 1);
}

static CU_TestInfo tests[] = {
    {"full grid file", test_small_grid},
    {"minimal grid file", test_minimal_grid},
    {"config.json relative to the grid", test_hf_config_next_to_grid},
    {"cluster and config files next to the grid", test_files_next_to_grid},
    {"malformed grid files", test_bad_grids},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"grid", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
