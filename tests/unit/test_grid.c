// SPDX-License-Identifier: MIT
/*
 * test_grid.c - grid files (prism_grid_load): a full file is read value by value, a
 * minimal one leaves everything else unset, and every malformed file in
 * tests/data/grids/bad-*.ini gives an input error naming the file, key and value. The grid
 * model (grid.h): the points' nesting and setups, the options a grid may not repeat, and
 * the knob chain its points share.
 */
#include <string.h>

#include <glib/gstdio.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/grid.h>

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

/* small.ini: 2 models x 2 clusters x devices 8;16 x gbs 64 x seq 2048 = 8 points, 2 per
 * cluster. Point i: device di = i % 2, cluster ci = i / 2 % 2, model mi = i / 4 (the
 * sequence, then the batch, then the devices vary fastest). */
static void test_points_of_small_grid(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("small.ini", &error);
    g_autoptr(PrismCluster) a100 = prism_cluster_preset("A100-80GB", &error);
    CU_ASSERT_TRUE_FATAL(g != NULL && a100 != NULL);
    const uint32_t devices[] = {8, 16};
    /* the command line's setup: gbs 1536, seq 4096, fp16 (all replaced by the grid's) */
    PrismGridPoint base = {.cluster = a100, .training = {.gbs = 1536, .seq = 4096}};
    (void)prism_dtype_parse("fp16", &base.training.dtype, NULL);
    PrismGridPoints pts;
    prism_grid_points_init(&pts, g, &base, devices, 2);
    CU_ASSERT_EQUAL(pts.per_cluster, 2);
    CU_ASSERT_EQUAL(pts.n_points, 8);
    PrismGridPoint p;
    prism_grid_point(&pts, 5, &p); /* di 1, ci 0, mi 1 */
    CU_ASSERT_STRING_EQUAL(p.model_name, "llama2-7b");
    CU_ASSERT_STRING_EQUAL(p.cluster_name, "A100-80GB");
    CU_ASSERT_EQUAL(p.n_devices, 1);
    CU_ASSERT_EQUAL(p.devices[0], 16);
    CU_ASSERT_EQUAL(p.training.gbs, 64);
    CU_ASSERT_EQUAL(p.training.seq, 2048);
    PrismDtype bf16;
    (void)prism_dtype_parse("bf16", &bf16, NULL);
    CU_ASSERT_EQUAL(p.training.dtype, bf16);
    /* [options] mem_budget = 70 GiB = 70 * 2^30 bytes */
    CU_ASSERT_EQUAL(p.training.mem_budget_bytes, 75161927680.0);
    prism_grid_point(&pts, 2, &p); /* di 0, ci 1, mi 0 */
    CU_ASSERT_STRING_EQUAL(p.model_name, "gpt3-1.3b");
    CU_ASSERT_STRING_EQUAL(p.cluster_name, "../clusters/three-level.ini");
    CU_ASSERT_EQUAL(p.cluster->n_levels, 3);
    CU_ASSERT_EQUAL(p.devices[0], 8);
    CU_ASSERT_EQUAL(prism_grid_point_cluster(&pts, 2), 1);
    CU_ASSERT_EQUAL(prism_grid_point_cluster(&pts, 5), 0);
    CU_ASSERT_EQUAL(prism_grid_point_cluster(&pts, 7), 1);
    g_autofree char *label = prism_grid_point_label(&pts, 3);
    g_autofree char *want = g_strdup_printf(
        "grid %s point 3 (gpt3-1.3b on 16 x ../clusters/three-level.ini, gbs 64, seq 2048)",
        g->path);
    CU_ASSERT_STRING_EQUAL(label, want);
    g_clear_error(&error);
}

/* A grid written by hand: 1 model, no clusters (the command line's), devices 4;8, gbs
 * 32;64, seq 1024;2048;4096: 1 x 1 x 2 x 2 x 3 = 12 points. Point i: seq index i % 3,
 * gbs index i / 3 % 2, device index i / 6 % 2. */
static void test_point_nesting(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("gpt3-1.3b", NULL);
    g_autoptr(PrismCluster) h100 = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_TRUE_FATAL(m != NULL && h100 != NULL);
    char name[] = "gpt3-1.3b", path[] = "hand.ini";
    char *names[] = {name, NULL};
    PrismModel *models[] = {m};
    uint64_t gbs[] = {32, 64}, seq[] = {1024, 2048, 4096};
    PrismGrid g = {.path = path,
                   .model_names = names,
                   .models = models,
                   .n_models = 1,
                   .gbs = gbs,
                   .n_gbs = 2,
                   .seq = seq,
                   .n_seq = 3};
    const uint32_t devices[] = {4, 8};
    PrismGridPoint base = {.cluster = h100, .training = {.gbs = 8, .seq = 512}};
    PrismGridPoints pts;
    prism_grid_points_init(&pts, &g, &base, devices, 2);
    CU_ASSERT_EQUAL(pts.n_points, 12);
    static const struct {
        size_t i;
        uint32_t devices;
        uint64_t gbs, seq;
    } want[] = {
        {0, 4, 32, 1024}, {1, 4, 32, 2048}, {3, 4, 64, 1024}, {7, 8, 32, 2048}, {11, 8, 64, 4096}};
    for (size_t k = 0; k < G_N_ELEMENTS(want); k++) {
        PrismGridPoint p;
        prism_grid_point(&pts, want[k].i, &p);
        CU_ASSERT_EQUAL(p.devices[0], want[k].devices);
        CU_ASSERT_EQUAL(p.training.gbs, want[k].gbs);
        CU_ASSERT_EQUAL(p.training.seq, want[k].seq);
        CU_ASSERT_PTR_EQUAL(p.cluster, h100); /* the grid lists no cluster */
        CU_ASSERT_STRING_EQUAL(p.cluster_name, "H100-SXM");
    }
    /* a single setup: one point, the base itself */
    base.model = m;
    base.model_name = "gpt3-1.3b";
    base.devices = devices;
    base.n_devices = 2;
    prism_grid_points_init(&pts, NULL, &base, NULL, 0);
    CU_ASSERT_EQUAL(pts.n_points, 1);
    PrismGridPoint p;
    prism_grid_point(&pts, 0, &p);
    CU_ASSERT_EQUAL(p.n_devices, 2);
    CU_ASSERT_EQUAL(p.training.gbs, 8);
    g_autofree char *label = prism_grid_point_label(&pts, 0);
    CU_ASSERT_STRING_EQUAL(label, "inputs");
}

/* small.ini sets models, clusters, devices, gbs, seq, dtype, optimizer, mem_budget,
 * objectives and top, not rank_by: each of those options given again is a conflict. */
static void test_given_twice(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("small.ini", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    PrismGridGiven none = {0};
    CU_ASSERT_TRUE(prism_grid_check_given(g, &none, NULL));
    PrismGridGiven rank_by = {.rank_by = TRUE};
    CU_ASSERT_TRUE(prism_grid_check_given(g, &rank_by, NULL));
    PrismGridGiven devices = {.devices = TRUE};
    CU_ASSERT_FALSE(prism_grid_check_given(g, &devices, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT));
    g_autofree char *want = g_strdup_printf(
        "--devices is given twice: by --devices and by grid %s [grid] devices; keep one", g->path);
    CU_ASSERT_STRING_EQUAL(error ? error->message : "", want);
    g_clear_error(&error);
    PrismGridGiven top = {.top = TRUE};
    CU_ASSERT_FALSE(prism_grid_check_given(g, &top, &error));
    CU_ASSERT_TRUE(error != NULL && strstr(error->message, "[options] top") != NULL);
    g_clear_error(&error);
    /* minimal.ini sets only models: --model conflicts, --cluster does not */
    g_autoptr(PrismGrid) m = load("minimal.ini", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismGridGiven model = {.model = TRUE}, cluster = {.cluster = TRUE, .gbs = TRUE};
    CU_ASSERT_FALSE(prism_grid_check_given(m, &model, NULL));
    CU_ASSERT_TRUE(prism_grid_check_given(m, &cluster, NULL));
}

/* The knob chain: the default tp_overlap (0), then small.ini's [knobs] tp_overlap = 0.5,
 * then --set tp_overlap=0.25 over it. */
static void test_grid_knobs(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("small.ini", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    PrismKnobs k;
    CU_ASSERT_TRUE(prism_grid_knobs(g, NULL, NULL, NULL, NULL, &k, NULL));
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_TP_OVERLAP], 0.5);
    char quarter[] = "tp_overlap=0.25", two[] = "tp_overlap=2";
    char *set[] = {quarter, NULL};
    CU_ASSERT_TRUE(prism_grid_knobs(g, NULL, NULL, NULL, set, &k, NULL));
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_TP_OVERLAP], 0.25);
    char *bad[] = {two, NULL};
    CU_ASSERT_FALSE(prism_grid_knobs(g, NULL, NULL, NULL, bad, &k, &error));
    CU_ASSERT_TRUE(error != NULL && g_str_has_prefix(error->message, "--set: "));
    g_clear_error(&error);
}

/* The set-up of small.ini's 8 points: each point's rows (first[i + 1] - first[i]) are the
 * size of the space jobs.get builds for it (a point of the second cluster, ci = 1, takes
 * them from the same point of the first: the cluster does not change the space), every
 * point's tokens per step are its gbs x seq = 64 x 2048 = 131072, and a grid records the
 * checksum of its spaces. A budget above the device is refused naming the point. */
static void test_grid_setup(void)
{
    GError *error = NULL;
    g_autoptr(PrismGrid) g = load("small.ini", &error);
    g_autoptr(PrismCluster) a100 = prism_cluster_preset("A100-80GB", NULL);
    CU_ASSERT_TRUE_FATAL(g != NULL && a100 != NULL);
    const uint32_t devices[] = {8, 16};
    PrismGridPoint base = {.cluster = a100, .training = {.gbs = 1, .seq = 1}};
    PrismGridPoints pts;
    prism_grid_points_init(&pts, g, &base, devices, 2);
    PrismKnobs k;
    CU_ASSERT_TRUE_FATAL(prism_grid_knobs(g, NULL, NULL, NULL, NULL, &k, NULL));
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    PrismGridJobs j = {.pts = &pts, .knobs = &k, .filter = f};
    gboolean ok = prism_grid_jobs_setup(&j, NULL, NULL, &error);
    if (!ok)
        fprintf(stderr, "%s\n", error->message);
    CU_ASSERT_TRUE_FATAL(ok);
    CU_ASSERT_EQUAL(j.jobs.n, 8);
    CU_ASSERT_EQUAL(j.max_levels, 3); /* three-level.ini */
    CU_ASSERT_PTR_NOT_NULL(j.space_sum);
    CU_ASSERT_EQUAL(j.first[0], 0);
    for (size_t i = 0; i < 8; i++) {
        PrismSearchJob job;
        CU_ASSERT_TRUE_FATAL(j.jobs.get(j.jobs.user, i, &job, NULL));
        CU_ASSERT_EQUAL(j.first[i + 1] - j.first[i], prism_space_size(job.space));
        CU_ASSERT_TRUE(prism_space_size(job.space) > 0);
        CU_ASSERT_EQUAL(j.constants[i].tokens_per_step, 131072.0);
        size_t k0 = i % 2 + i / 4 * 4; /* the same point of the first cluster */
        CU_ASSERT_EQUAL(j.weight[i], j.weight[k0]);
    }
    prism_grid_jobs_clear(&j);
    /* [options] mem_budget 70 GiB on a 40 GB device: the first point is refused */
    g_autoptr(PrismCluster) a40 = prism_cluster_preset("A100-40GB", NULL);
    g->n_clusters = 0; /* every point on the base cluster */
    base.cluster = a40;
    prism_grid_points_init(&pts, g, &base, devices, 2);
    PrismGridJobs bad = {.pts = &pts, .knobs = &k, .filter = f};
    CU_ASSERT_FALSE(prism_grid_jobs_setup(&bad, NULL, NULL, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE) &&
                   strstr(error->message, "point 0 (gpt3-1.3b on 8 x A100-40GB") != NULL &&
                   strstr(error->message, "[options] mem_budget 70 GiB exceeds the 40.0 GiB") !=
                       NULL);
    g_clear_error(&error);
    g->n_clusters = 2;
    prism_grid_jobs_clear(&bad);
}

static CU_TestInfo tests[] = {
    {"full grid file", test_small_grid},
    {"minimal grid file", test_minimal_grid},
    {"config.json relative to the grid", test_hf_config_next_to_grid},
    {"cluster and config files next to the grid", test_files_next_to_grid},
    {"malformed grid files", test_bad_grids},
    {"points of a grid file", test_points_of_small_grid},
    {"nesting of the points", test_point_nesting},
    {"options given twice", test_given_twice},
    {"knobs of a grid run", test_grid_knobs},
    {"set-up of the points", test_grid_setup},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"grid", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
