// SPDX-License-Identifier: MIT
/*
 * test_io_query.c - `prism pareto FILE` internals at 1-4 ranks: fronts and top-k lists
 * recomputed from a stored landscape equal an O(n^2) brute force over the same rows
 * (read back whole on every rank), for 2 and 3 objectives, max: objectives and --where
 * filters with code names; whole-row reads; filter parse errors.
 *
 * Brute force: q precedes p when q <= p in every key and (some key is smaller, or all
 * are equal and q has the smaller index) - the tie-break documented in front.h; the
 * front is the set of points nothing precedes, sorted by (keys, index).
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/io.h>

#include "prism_test_util.h"
#include "test_io_synth.h"

static PrismLandscapeFile *file;

static int suite_init(void)
{
    PrismComm *comm = prism_test_comm();
    g_autofree char *path =
        g_strdup_printf("%s/query-np%d.h5", prism_test_scratch_dir(), comm->size);
    GError *error = NULL;
    if (!synth_write_file(comm, path, &error)) {
        fprintf(stderr, "query fixture: %s\n", error->message);
        g_error_free(error);
        return 1;
    }
    file = prism_landscape_file_open(comm, path, &error);
    g_clear_error(&error);
    return file == NULL;
}

static int suite_clean(void)
{
    prism_landscape_file_close(file);
    return 0;
}

typedef struct {
    double key[8];
    uint64_t index;
} Pt;

static int cmp_pt(const void *a, const void *b, void *n_obj)
{
    const Pt *x = a, *y = b;
    for (size_t k = 0; k < *(size_t *)n_obj; k++)
        if (x->key[k] != y->key[k])
            return x->key[k] < y->key[k] ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static gboolean precedes(const Pt *q, const Pt *p, size_t n_obj)
{
    gboolean strict = FALSE;
    for (size_t k = 0; k < n_obj; k++) {
        if (q->key[k] > p->key[k])
            return FALSE;
        strict |= q->key[k] < p->key[k];
    }
    return strict || q->index < p->index;
}

/* Every column of the file, whole, on every rank. */
static double *read_all(const char *name)
{
    double *v = g_new(double, TOTAL);
    GError *error = NULL;
    if (!prism_landscape_file_read(file, "landscape", name, 0, TOTAL, v, &error)) {
        g_clear_error(&error);
        g_free(v);
        return NULL;
    }
    return v;
}

/* Check the answer of @p q against brute force; objectives given as (name, max). */
static gboolean check_query(const PrismLandscapeQuery *q, size_t n_obj, const char *const *obj,
                            const gboolean *obj_max, const char *rank_col, gboolean rank_max,
                            gboolean (*pass)(uint64_t g, double *const *cols))
{
    GError *error = NULL;
    PrismLandscapeAnswer *a = prism_landscape_query(file, q, &error);
    if (a == NULL) {
        if (prism_test_comm()->rank == 0)
            fprintf(stderr, "query: %s\n", error->message);
        g_clear_error(&error);
        return prism_test_all(FALSE);
    }
    static const char *const names[] = {"point", "feasible", "tp", "schedule", "pp"};
    double *cols[5];
    for (int i = 0; i < 5; i++)
        cols[i] = read_all(names[i]);
    double *ov[8], *rv = read_all(rank_col);
    for (size_t k = 0; k < n_obj; k++)
        ov[k] = read_all(obj[k]);
    gboolean ok = prism_landscape_answer_points(a) == 5;
    for (size_t p = 0; ok && p < 5; p++) {
        GArray *cand = g_array_new(FALSE, FALSE, sizeof(Pt));
        uint64_t matched = 0;
        for (uint64_t g = 0; g < TOTAL; g++) {
            if (cols[0][g] != (double)p || !pass(g, cols))
                continue;
            matched++;
            if (cols[1][g] == 0)
                continue;
            Pt pt = {{0}, g};
            for (size_t k = 0; k < n_obj; k++)
                pt.key[k] = obj_max[k] ? -ov[k][g] : ov[k][g];
            g_array_append_val(cand, pt);
        }
        ok &= prism_landscape_answer_matched(a, p) == matched;
        ok &= prism_landscape_answer_feasible(a, p) == cand->len;
        const Pt *c = (const Pt *)(const void *)cand->data;
        GArray *front = g_array_new(FALSE, FALSE, sizeof(Pt));
        for (guint i = 0; i < cand->len; i++) {
            gboolean beaten = FALSE;
            for (guint j = 0; j < cand->len && !beaten; j++)
                beaten = j != i && precedes(&c[j], &c[i], n_obj);
            if (!beaten)
                g_array_append_val(front, c[i]);
        }
        g_array_sort_with_data(front, cmp_pt, &n_obj);
        const PrismFront *fr = prism_landscape_answer_front(a, p);
        ok &= prism_front_size(fr) == front->len && (front->len > 0 || cand->len == 0);
        for (guint i = 0; ok && i < front->len; i++) {
            const Pt *e = &g_array_index(front, Pt, i);
            ok &= prism_front_index(fr, i) == e->index &&
                  memcmp(prism_front_key(fr, i), e->key, n_obj * sizeof(double)) == 0;
        }
        /* top-k: the 10 smallest (rank key, index) among the feasible candidates */
        size_t one = 1;
        for (guint i = 0; i < cand->len; i++)
            g_array_index(cand, Pt, i).key[0] =
                (rank_max ? -1 : 1) * rv[g_array_index(cand, Pt, i).index];
        g_array_sort_with_data(cand, cmp_pt, &one);
        const PrismTopK *tk = prism_landscape_answer_top(a, p);
        ok &= prism_topk_size(tk) == MIN(10u, cand->len);
        for (size_t i = 0; ok && i < prism_topk_size(tk); i++)
            ok &= prism_topk_index(tk, i) == g_array_index(cand, Pt, i).index;
        g_array_unref(front);
        g_array_unref(cand);
    }
    for (int i = 0; i < 5; i++)
        g_free(cols[i]);
    for (size_t k = 0; k < n_obj; k++)
        g_free(ov[k]);
    g_free(rv);
    prism_landscape_answer_free(a);
    return prism_test_all(ok);
}

static gboolean pass_all(uint64_t g, double *const *cols)
{
    (void)g;
    (void)cols;
    return TRUE;
}

/* tp<=4 and schedule!=gpipe (code 2) and pp>=2 */
static gboolean pass_filter(uint64_t g, double *const *cols)
{
    return cols[2][g] <= 4 && cols[3][g] != 2 && cols[4][g] >= 2;
}

static void test_two_objectives(void)
{
    const char *obj[] = {"step_time", "peak_mem"};
    gboolean mx[] = {FALSE, FALSE};
    PrismLandscapeQuery q = {NULL, NULL, NULL, 0}; /* objectives from the file attribute */
    CU_ASSERT_TRUE(check_query(&q, 2, obj, mx, "step_time", FALSE, pass_all));
}

static void test_three_objectives_max_and_filter(void)
{
    const char *obj[] = {"step_time", "peak_mem", "mfu"};
    gboolean mx[] = {FALSE, FALSE, TRUE};
    PrismLandscapeQuery q = {"step_time, peak_mem, max:mfu", "tp<=4, schedule!=gpipe,pp>=2",
                             "max:mfu", 10};
    CU_ASSERT_TRUE(check_query(&q, 3, obj, mx, "mfu", TRUE, pass_filter));
}

static void test_read_rows(void)
{
    uint64_t idx[] = {0, 17, 4999, 10006};
    g_autoptr(PrismLandscapeSchema) schema = synth_schema();
    double *out = g_new0(double, 4 * schema->n);
    GError *error = NULL;
    gboolean ok = prism_landscape_file_read_rows(file, idx, 4, out, &error);
    g_clear_error(&error);
    if (ok && prism_test_comm()->rank == 0)
        for (size_t i = 0; i < 4; i++)
            for (size_t c = 0; c < schema->n; c++)
                ok &= out[i * schema->n + c] == synth_expected(&schema->cols[c], idx[i]);
    CU_ASSERT_TRUE(prism_test_all(ok));
    g_free(out);
    uint64_t bad[] = {5, TOTAL};
    double dummy[64];
    CU_ASSERT_FALSE(prism_landscape_file_read_rows(file, bad, 2, dummy, &error));
    CU_ASSERT_TRUE(
        prism_test_all(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE)));
    g_clear_error(&error);
}

static void test_bad_queries(void)
{
    struct {
        PrismLandscapeQuery q;
        int code;
        const char *needle;
    } cases[] = {
        {{"step_tme,peak_mem", NULL, NULL, 0}, PRISM_INPUT_ERROR_UNKNOWN_NAME, "step_time"},
        {{"step_time,time_step", NULL, NULL, 0}, PRISM_INPUT_ERROR_CONFLICT, "twice"},
        {{NULL, "tpp<=4", NULL, 0}, PRISM_INPUT_ERROR_UNKNOWN_NAME, "tp"},
        {{NULL, "tp~4", NULL, 0}, PRISM_INPUT_ERROR_PARSE, "COLUMN OP VALUE"},
        {{NULL, "schedule=zb-h2", NULL, 0}, PRISM_INPUT_ERROR_UNKNOWN_NAME, "zb-h1"},
        {{NULL, "tp<=4,,pp=2", NULL, 0}, PRISM_INPUT_ERROR_PARSE, "empty term"},
        {{NULL, NULL, "mfuu", 0}, PRISM_INPUT_ERROR_UNKNOWN_NAME, "mfu"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *error = NULL;
        PrismLandscapeAnswer *a = prism_landscape_query(file, &cases[i].q, &error);
        gboolean ok = a == NULL && g_error_matches(error, PRISM_INPUT_ERROR, cases[i].code) &&
                      strstr(error->message, cases[i].needle) != NULL;
        if (!ok && prism_test_comm()->rank == 0)
            fprintf(stderr, "case %zu: %s\n", i, error ? error->message : "(no error)");
        CU_ASSERT_TRUE(prism_test_all(ok));
        g_clear_error(&error);
        prism_landscape_answer_free(a);
    }
}

static CU_TestInfo tests[] = {
    {"front + top-k = brute force (2 objectives)", test_two_objectives},
    {"3 objectives, max:, --where", test_three_objectives_max_and_filter},
    {"whole rows by index", test_read_rows},
    {"bad objectives and filters", test_bad_queries},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"io_query", suite_init, suite_clean, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
