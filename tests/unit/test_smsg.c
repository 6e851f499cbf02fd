// SPDX-License-Identifier: MIT
/*
 * test_smsg.c - operator-level sharding: the exact series-parallel optimum equals an
 * independent brute force over every assignment (random SP graphs and built-ins, min-plus
 * and Pareto), a hand-derived cost, Megatron's column->row pairing with one forward
 * all-reduce, baselines never beat the optimum, and bad graph files fail with messages.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/cluster.h>
#include <prism/core.h>
#include <prism/knobs.h>
#include <prism/smsg.h>

#include "prism_test_util.h"
#include "test_dc_support.h"

static void env_for(PrismSmsgEnv *env, uint32_t tp)
{
    g_autoptr(PrismCluster) c = prism_cluster_preset("A100-80GB", NULL);
    PrismKnobs k;
    prism_knobs_default(&k);
    prism_smsg_env_init(env, c, &k, tp);
}

/* Brute force: enumerate every assignment (mixed radix over the options of each op),
 * price it with the per-op and per-edge functions directly, keep the minimum and the
 * (time, memory) points. Independent of the series-parallel reduction. */
typedef struct Brute {
    int64_t best;
    GArray *points; /* PrismParetoPoint */
    uint64_t count;
} Brute;

static void brute(const PrismOpGraph *g, const PrismSmsgEnv *env, Brute *out)
{
    uint32_t n = g->n_ops;
    PrismLayoutOption(*o)[PRISM_SMSG_MAX_OPTIONS] = g_malloc0_n(n, sizeof *o);
    uint32_t *no = g_new(uint32_t, n), *pick = g_new0(uint32_t, n);
    for (uint32_t v = 0; v < n; v++)
        no[v] = prism_op_layout_options(&g->ops[v], env, o[v]);
    out->best = PRISM_DC_INF;
    out->points = g_array_new(FALSE, FALSE, sizeof(PrismParetoPoint));
    out->count = 0;
    for (;;) {
        int64_t t = 0, mem = 0;
        for (uint32_t v = 0; v < n; v++) {
            const PrismLayoutOption *x = &o[v][pick[v]];
            t = prism_dc_add(t, prism_smsg_ps(x->compute_s + x->comm_s));
            mem += (int64_t)llround(x->mem_bytes);
            for (uint32_t k = 0; k < g->ops[v].n_inputs; k++) {
                uint32_t u = g->ops[v].inputs[k];
                const PrismOp *p = &g->ops[u];
                double bytes = p->rows * p->out_features * p->elem_bytes;
                t = prism_dc_add(
                    t, prism_smsg_ps(prism_smsg_edge_time(env, &o[u][pick[u]], x, bytes, NULL)));
            }
        }
        out->count++;
        if (t < out->best)
            out->best = t;
        if (t != PRISM_DC_INF) {
            PrismParetoPoint pt = {t, mem};
            g_array_append_val(out->points, pt);
        }
        uint32_t pos = 0;
        while (pos < n) {
            if (++pick[pos] < no[pos])
                break;
            pick[pos] = 0;
            pos++;
        }
        if (pos == n)
            break;
    }
    g_free(o);
    g_free(no);
    g_free(pick);
}

static uint32_t largest_front; /* shows the Pareto comparison is not trivial */

static gboolean check_against_brute(const PrismOpGraph *g, uint32_t tp)
{
    PrismSmsgEnv env;
    env_for(&env, tp);
    Brute b;
    brute(g, &env, &b);
    GError *error = NULL;
    PrismLayoutPlan *p = prism_smsg_solve(g, &env, NULL, &error);
    gboolean ok = p != NULL && p->total_ps == b.best;
    if (p != NULL) {
        /* the recovered layouts really cost the optimum */
        PrismLayoutPlan *re = prism_smsg_evaluate(g, &env, p->choice);
        ok = ok && re->total_ps == p->total_ps;
        prism_layout_plan_free(re);
    }
    PrismParetoPoint *front = NULL;
    uint32_t nf = 0;
    ok = ok && prism_smsg_pareto(g, &env, &front, &nf, &error);
    largest_front = nf > largest_front ? nf : largest_front;
    size_t nb = tdc_brute_front((PrismParetoPoint *)(void *)b.points->data, b.points->len);
    ok = ok && nf == nb && memcmp(front, b.points->data, nb * sizeof(PrismParetoPoint)) == 0;
    if (!ok)
        printf("\n  mismatch on %s tp=%u: solve %" G_GINT64_FORMAT " brute %" G_GINT64_FORMAT
               " front %u vs %zu (%s)\n",
               g->name, tp, p ? p->total_ps : -1, b.best, nf, nb, error ? error->message : "");
    g_clear_error(&error);
    g_free(front);
    prism_layout_plan_free(p);
    g_array_free(b.points, TRUE);
    return ok;
}

/* Random two-terminal series-parallel graph as JSON: a chain of segments, each either
 * one op or a fork into two branches joined by an elementwise add. */
static void random_segment(GString *js, GRand *rng, int *id, char *last, int depth, int *budget)
{
    static const char *const kinds[] = {"linear",  "norm",      "elementwise",
                                        "softmax", "attention", "moe"};
    char prev[32];
    g_strlcpy(prev, last, sizeof prev);
    if (depth < 2 && *budget >= 3 && g_rand_int_range(rng, 0, 3) == 0) {
        char a[32], b[32];
        g_strlcpy(a, prev, sizeof a);
        g_strlcpy(b, prev, sizeof b);
        (*budget)--;
        random_segment(js, rng, id, a, depth + 1, budget);
        if (g_rand_boolean(rng) && *budget >= 2)
            random_segment(js, rng, id, b, depth + 1, budget);
        g_string_append_printf(js,
                               ",\n{\"name\": \"j%d\", \"kind\": \"elementwise\", \"inputs\": "
                               "[\"%s\", \"%s\"]}",
                               *id, a, b);
        g_snprintf(last, 32, "j%d", (*id)++);
        return;
    }
    const char *k = kinds[g_rand_int_range(rng, 0, G_N_ELEMENTS(kinds))];
    (*budget)--;
    g_string_append_printf(js, ",\n{\"name\": \"o%d\", \"kind\": \"%s\", \"inputs\": [\"%s\"]", *id,
                           k, prev);
    if (strcmp(k, "linear") == 0)
        g_string_append_printf(js, ", \"in\": 1024, \"out\": %d",
                               g_rand_boolean(rng) ? 1024 : 4096);
    else if (strcmp(k, "attention") == 0)
        g_string_append(js, ", \"heads\": 8, \"head_dim\": 128");
    else if (strcmp(k, "moe") == 0)
        g_string_append(js, ", \"experts\": 8, \"top_k\": 2, \"ffn\": 2048");
    g_string_append(js, "}");
    g_snprintf(last, 32, "o%d", (*id)++);
}

static void test_random_graphs_vs_brute(void)
{
    GRand *rng = g_rand_new_with_seed(1129);
    int checked = 0;
    for (int trial = 0; trial < 24; trial++) {
        GString *js = g_string_new(NULL);
        int rows = g_rand_boolean(rng) ? 1 : 16;
        g_string_append_printf(js,
                               "{\"name\": \"rand%d\", \"batch\": %d, \"seq\": 512, \"ops\": [\n"
                               "{\"name\": \"in\", \"kind\": \"input\", \"features\": 1024%s}",
                               trial, rows, g_rand_boolean(rng) ? ", \"layout\": \"rep\"" : "");
        char last[32] = "in";
        int id = 0, budget = 6;
        while (budget > 0)
            random_segment(js, rng, &id, last, 0, &budget);
        g_string_append_printf(js,
                               ",\n{\"name\": \"out\", \"kind\": \"output\", \"inputs\": "
                               "[\"%s\"]}]}",
                               last);
        GError *error = NULL;
        PrismOpGraph *g = prism_op_graph_from_json(js->str, js->len, "random", &error);
        CU_ASSERT_PTR_NOT_NULL(g);
        if (g != NULL) {
            uint32_t tp = trial % 2 ? 2 : 4;
            CU_ASSERT_TRUE(check_against_brute(g, tp));
            checked++;
        } else {
            printf("\n  %s\n%s\n", error->message, js->str);
        }
        g_clear_error(&error);
        prism_op_graph_free(g);
        g_string_free(js, TRUE);
    }
    CU_ASSERT_EQUAL(checked, 24);
    CU_ASSERT_TRUE(largest_front >= 3);
    g_rand_free(rng);
}

static void test_builtin_small_vs_brute(void)
{
    const char *names[] = {"transformer-mlp", "transformer-attention"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        g_autoptr(PrismOpGraph) g = prism_op_graph_builtin(names[i], NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        for (uint32_t tp = 1; tp <= 8; tp *= 2)
            CU_ASSERT_TRUE(check_against_brute(g, tp));
    }
    g_autofree char *path = prism_test_data_path("graphs/residual_small.json");
    GError *error = NULL;
    g_autoptr(PrismOpGraph) g = prism_op_graph_from_file(path, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    for (uint32_t tp = 2; tp <= 8; tp *= 2)
        CU_ASSERT_TRUE(check_against_brute(g, tp));
}

static const char *chosen(const PrismOpGraph *g, const PrismSmsgEnv *env, const PrismLayoutPlan *p,
                          const char *op)
{
    for (uint32_t v = 0; v < g->n_ops; v++)
        if (strcmp(g->ops[v].name, op) == 0) {
            PrismLayoutOption o[PRISM_SMSG_MAX_OPTIONS];
            prism_op_layout_options(&g->ops[v], env, o);
            return o[p->choice[v]].name;
        }
    return "(no such op)";
}

static gboolean one_forward_allreduce(const PrismLayoutPlan *p)
{
    return p->fwd_coll[PRISM_COLL_ALL_REDUCE] == 1 && p->fwd_coll[PRISM_COLL_REDUCE_SCATTER] == 0 &&
           p->fwd_coll[PRISM_COLL_ALL_GATHER] == 0 && p->fwd_coll[PRISM_COLL_ALL_TO_ALL] == 0;
}

static void test_megatron_pairing(void)
{
    for (uint32_t tp = 2; tp <= 8; tp *= 2) {
        PrismSmsgEnv env;
        env_for(&env, tp);
        g_autoptr(PrismOpGraph) mlp = prism_op_graph_builtin("transformer-mlp", NULL);
        g_autoptr(PrismLayoutPlan) p = prism_smsg_solve(mlp, &env, NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_STRING_EQUAL(chosen(mlp, &env, p, "mlp.fc1"), "col");
        CU_ASSERT_STRING_EQUAL(chosen(mlp, &env, p, "mlp.fc2"), "row");
        /* exactly ONE forward collective, an all-reduce (Megatron's g operator) */
        CU_ASSERT_TRUE(one_forward_allreduce(p));
        g_autoptr(PrismOpGraph) att = prism_op_graph_builtin("transformer-attention", NULL);
        g_autoptr(PrismLayoutPlan) q = prism_smsg_solve(att, &env, NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(q);
        CU_ASSERT_STRING_EQUAL(chosen(att, &env, q, "attn.qkv"), "col");
        CU_ASSERT_STRING_EQUAL(chosen(att, &env, q, "attn.attn"), "heads");
        CU_ASSERT_STRING_EQUAL(chosen(att, &env, q, "attn.proj"), "row");
        CU_ASSERT_TRUE(one_forward_allreduce(q));
        /* a whole block: both sub-blocks paired, one all-reduce each */
        g_autoptr(PrismOpGraph) blk = prism_op_graph_builtin("transformer-block", NULL);
        g_autoptr(PrismLayoutPlan) r = prism_smsg_solve(blk, &env, NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_STRING_EQUAL(chosen(blk, &env, r, "block.qkv"), "col");
        CU_ASSERT_STRING_EQUAL(chosen(blk, &env, r, "block.proj"), "row");
        CU_ASSERT_STRING_EQUAL(chosen(blk, &env, r, "block.fc1"), "col");
        CU_ASSERT_STRING_EQUAL(chosen(blk, &env, r, "block.fc2"), "row");
        CU_ASSERT_EQUAL(r->fwd_coll[PRISM_COLL_ALL_REDUCE], 2);
    }
}

static void test_hand_cost_mlp(void)
{
    /* transformer-mlp at tp = 8 on A100-80GB (NVLink 300 GB/s, latency a of the preset's
     * level 0 (3 us when written); 312 TFLOP/s bf16;
     * default knobs: e = the A100's gemm_efficiency (the compute_efficiency knob's default
     * 0 takes the device's figure), n = net_efficiency, read from the preset and the knob
     * table so the values may move):
     *   R = 2048 rows, h = 12288, f = 49152, 2-byte activations, F = 312e12 * e,
     *   B = 300e9 * n, AR(S) = 2 (7/8) S / B + 14 a.
     *   fc1 col: 6 R h f / (8 F); fc2 row: the same; gelu feat: 3 R f / (8 F).
     *   x(rep) -> fc1(col): forward nothing, backward the input-gradient partial sums are
     *   all-reduced: AR(R h 2). fc2 (partial) -> y(rep): forward AR(R h 2), backward none.
     *   Every other edge keeps its layout. Each term is rounded to picoseconds. */
    PrismSmsgEnv env;
    env_for(&env, 8);
    g_autoptr(PrismCluster) cl = prism_cluster_preset("A100-80GB", NULL);
    CU_ASSERT_EQUAL(prism_knob_info(PRISM_KNOB_COMPUTE_EFFICIENCY)->def, 0);
    const double e = cl->gemm_efficiency;
    CU_ASSERT_EQUAL(e, 0.8);
    const double n = prism_knob_info(PRISM_KNOB_NET_EFFICIENCY)->def;
    CU_ASSERT_DOUBLE_EQUAL(env.flops_per_s, 312e12 * e, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(env.bw_Bps, 300e9 * n, 1.0);
    CU_ASSERT_EQUAL(env.level, 0);
    double a = cl->levels[0].latency_us * 1e-6;
    CU_ASSERT_DOUBLE_EQUAL(env.latency_s, a, 0.0);
    double R = 2048, h = 12288, f = 49152, F = 312e12 * e, B = 300e9 * n;
    double mm = 6 * R * h * f / (8 * F), gelu = 3 * R * f / (8 * F);
    double ar = 2 * 7.0 / 8 * (R * h * 2) / B + 14 * a;
    int64_t expect = 2 * prism_smsg_ps(mm) + prism_smsg_ps(gelu) + 2 * prism_smsg_ps(ar);
    g_autoptr(PrismOpGraph) g = prism_op_graph_builtin("transformer-mlp", NULL);
    g_autoptr(PrismLayoutPlan) p = prism_smsg_solve(g, &env, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->total_ps, expect);
    /* tp = 1: no communication at all, the total is the replicated compute */
    PrismSmsgEnv one;
    env_for(&one, 1);
    g_autoptr(PrismLayoutPlan) p1 = prism_smsg_solve(g, &one, NULL, NULL);
    CU_ASSERT_EQUAL(p1->total_ps, 2 * prism_smsg_ps(8 * mm) + prism_smsg_ps(8 * gelu));
    CU_ASSERT_DOUBLE_EQUAL(p1->redist_s, 0.0, 0.0);
}

static void test_baselines_never_better(void)
{
    PrismSmsgEnv env;
    env_for(&env, 8);
    gboolean strict_somewhere = FALSE;
    for (size_t i = 0; i < prism_op_graph_builtin_count(); i++) {
        g_autoptr(PrismOpGraph) g = prism_op_graph_builtin(prism_op_graph_builtin_name(i), NULL);
        g_autoptr(PrismLayoutPlan) best = prism_smsg_solve(g, &env, NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(best);
        g_autoptr(PrismLayoutPlan) gr = prism_smsg_greedy(g, &env);
        CU_ASSERT_TRUE(gr->total_ps >= best->total_ps);
        if (gr->total_ps > best->total_ps)
            strict_somewhere = TRUE;
        for (int u = 0; u < PRISM_UNIFORM_COUNT; u++) {
            g_autofree uint32_t *mask = prism_uniform_mask(g, &env, (PrismUniform)u);
            PrismLayoutPlan *p = prism_smsg_solve(g, &env, mask, NULL);
            CU_ASSERT_TRUE(p == NULL || p->total_ps >= best->total_ps);
            prism_layout_plan_free(p);
        }
    }
    CU_ASSERT_TRUE(strict_somewhere);
}

typedef struct BadCase {
    const char *file;
    int code;
    const char *needle;
} BadCase;

static void test_bad_graphs(void)
{
    static const BadCase cases[] = {
        {"graphs/malformed_syntax.json", PRISM_INPUT_ERROR_PARSE, "not valid JSON"},
        {"graphs/bad_kind.json", PRISM_INPUT_ERROR_UNKNOWN_NAME, "'convolution'"},
        {"graphs/bad_value.json", PRISM_INPUT_ERROR_VALUE, "ops[1] 'fc': key 'out': value -3"},
        {"graphs/unknown_input.json", PRISM_INPUT_ERROR_UNKNOWN_NAME, "EARLIER op"},
        {"graphs/missing_batch.json", PRISM_INPUT_ERROR_MISSING, "'batch'"},
        {"graphs/two_sinks.json", PRISM_INPUT_ERROR_VALUE, "'p' and 'q'"},
        {"graphs/not_series_parallel.json", PRISM_INPUT_ERROR_VALUE,
         "is not series-parallel: the edge 'a' -> 'c'"},
        {"graphs/does_not_exist.json", PRISM_INPUT_ERROR_FILE, "does_not_exist.json"},
    };
    PrismSmsgEnv env;
    env_for(&env, 4);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *path = prism_test_data_path(cases[i].file);
        GError *error = NULL;
        PrismOpGraph *g = prism_op_graph_resolve(path, &error);
        PrismLayoutPlan *p = NULL;
        if (g != NULL)
            p = prism_smsg_solve(g, &env, NULL, &error);
        CU_ASSERT_PTR_NULL(p);
        CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, cases[i].code));
        CU_ASSERT_TRUE(error != NULL && strstr(error->message, cases[i].needle) != NULL);
        if (error && strstr(error->message, cases[i].needle) == NULL)
            printf("\n  %s: '%s'\n", cases[i].file, error->message);
        g_clear_error(&error);
        prism_op_graph_free(g);
    }
    GError *error = NULL;
    CU_ASSERT_PTR_NULL(prism_op_graph_builtin("gpt3-175", &error));
    CU_ASSERT_TRUE(error != NULL && strstr(error->message, "gpt3-175b") != NULL);
    g_clear_error(&error);
}

/* Graph texts that break one rule each of the file format (src/core/opgraph.c): the
 * error names the op (its index, and its name once read) and the key, and says what is
 * allowed. A leading "X" stands for a valid input op, "Y" for "y", an output of x. */
static void test_bad_graph_texts(void)
{
#define X "{\"name\": \"x\", \"kind\": \"input\", \"features\": 64}"
#define Y "{\"name\": \"y\", \"kind\": \"output\", \"inputs\": [\"x\"]}"
    static const struct {
        const char *text;
        int code;
        const char *needle;
    } cases[] = {
        {"[1, 2]", PRISM_INPUT_ERROR_PARSE, "t: the top level must be an object"},
        {"{\"batch\": 2}", PRISM_INPUT_ERROR_MISSING, "t: key 'ops' must be a non-empty array"},
        {"{\"batch\": 2, \"ops\": []}", PRISM_INPUT_ERROR_VALUE, "key 'ops' must be a non-empty"},
        {"{\"batch\": 2, \"ops\": {}}", PRISM_INPUT_ERROR_VALUE, "key 'ops' must be a non-empty"},
        {"{\"batch\": 2.5, \"ops\": [" X "]}", PRISM_INPUT_ERROR_VALUE,
         "t: key 'batch': value 2.5 must be a positive integer"},
        {"{\"batch\": 2, \"seq\": 0, \"ops\": [" X "]}", PRISM_INPUT_ERROR_VALUE,
         "key 'seq': value 0"},
        {"{\"batch\": 2, \"ops\": [" X ", 7]}", PRISM_INPUT_ERROR_PARSE,
         "t: ops[1]: must be an object with keys name, kind, inputs"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"kind\": \"norm\"}]}", PRISM_INPUT_ERROR_MISSING,
         "t: ops[1]: missing key 'name'"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"\", \"kind\": \"norm\"}]}",
         PRISM_INPUT_ERROR_MISSING, "ops[1]: missing key 'name' (a non-empty string)"},
        {"{\"batch\": 2, \"ops\": [" X ", " X "]}", PRISM_INPUT_ERROR_VALUE,
         "t: ops[1] 'x': duplicate op name"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"n\", \"inputs\": [\"x\"]}]}",
         PRISM_INPUT_ERROR_MISSING, "ops[1] 'n': key 'kind': '(missing)' is not one of"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"n\", \"kind\": \"norm\", "
         "\"axis\": \"row\", \"inputs\": [\"x\"]}]}",
         PRISM_INPUT_ERROR_VALUE, "ops[1] 'n': key 'axis': 'row' must be 'feature'"},
        {"{\"batch\": 2, \"ops\": [{\"name\": \"x\", \"kind\": \"input\", \"features\": 64, "
         "\"layout\": \"cols\"}]}",
         PRISM_INPUT_ERROR_VALUE, "ops[0] 'x': key 'layout': 'cols' must be rep, rows or feat"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"n\", \"kind\": \"norm\", "
         "\"inputs\": \"x\"}]}",
         PRISM_INPUT_ERROR_PARSE, "ops[1] 'n': key 'inputs' must be an array of op names"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"n\", \"kind\": \"norm\", "
         "\"inputs\": [3]}]}",
         PRISM_INPUT_ERROR_UNKNOWN_NAME, "ops[1] 'n': inputs[0] = 3 does not name an EARLIER op"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"z\", \"kind\": \"input\", "
         "\"features\": 8, \"inputs\": [\"x\"]}]}",
         PRISM_INPUT_ERROR_VALUE, "ops[1] 'z': an input op takes no 'inputs'"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"n\", \"kind\": \"norm\"}]}",
         PRISM_INPUT_ERROR_VALUE, "ops[1] 'n': key 'inputs' must name at least one producer"},
        {"{\"batch\": 2, \"ops\": [" X ", " Y ", {\"name\": \"n\", \"kind\": \"norm\", "
         "\"inputs\": [\"y\"]}]}",
         PRISM_INPUT_ERROR_VALUE, "ops[2] 'n': input 'y' is an output op and cannot feed 'norm'"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"l\", \"kind\": \"loss\", "
         "\"inputs\": [\"x\"]}, {\"name\": \"n\", \"kind\": \"norm\", \"inputs\": [\"l\"]}]}",
         PRISM_INPUT_ERROR_VALUE, "ops[2] 'n': input 'l' is a loss op and cannot feed 'norm'"},
        {"{\"batch\": 2, \"ops\": [" X ", {\"name\": \"c\", \"kind\": \"conv\", "
         "\"cin\": 3, \"cout\": 8, \"kernel\": 3, \"h_out\": 4, \"inputs\": [\"x\"]}]}",
         PRISM_INPUT_ERROR_MISSING, "ops[1] 'c': missing key 'w_out' (a positive integer)"},
    };
#undef X
#undef Y
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GError *error = NULL;
        PrismOpGraph *g =
            prism_op_graph_from_json(cases[i].text, strlen(cases[i].text), "t", &error);
        CU_ASSERT_PTR_NULL(g);
        const gboolean ok = g_error_matches(error, PRISM_INPUT_ERROR, cases[i].code) &&
                            strstr(error->message, cases[i].needle) != NULL;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            printf("\n  case %zu: %s\n", i, error ? error->message : "(no error)");
        g_clear_error(&error);
        prism_op_graph_free(g);
    }
}

/* The kinds that only a file brings in (the built-in graphs add them through the builder):
 * each key lands in its field, the defaults apply (kv_heads = heads, matrices 2, layer
 * norm), and "matmul" is a linear. */
static void test_graph_file_kinds(void)
{
    static const char text[] =
        "{\"name\": \"kinds\", \"batch\": 2, \"seq\": 16, \"ops\": ["
        "{\"name\": \"img\", \"kind\": \"input\", \"features\": 3, \"layout\": \"feat\"},"
        "{\"name\": \"c\", \"kind\": \"conv\", \"inputs\": [\"img\"], \"cin\": 3, "
        "\"cout\": 8, \"kernel\": 3, \"h_out\": 5, \"w_out\": 7},"
        "{\"name\": \"bn\", \"kind\": \"norm\", \"axis\": \"batch\", \"inputs\": [\"c\"]},"
        "{\"name\": \"p\", \"kind\": \"pool\", \"inputs\": [\"bn\"], \"channels\": 8, "
        "\"h_out\": 2, \"w_out\": 3},"
        "{\"name\": \"tok\", \"kind\": \"input\", \"features\": 1},"
        "{\"name\": \"e\", \"kind\": \"embedding\", \"inputs\": [\"tok\"], \"vocab\": 1000, "
        "\"hidden\": 48},"
        "{\"name\": \"a\", \"kind\": \"attention\", \"inputs\": [\"e\"], \"heads\": 4, "
        "\"head_dim\": 12},"
        "{\"name\": \"m\", \"kind\": \"moe\", \"inputs\": [\"a\"], \"experts\": 8, "
        "\"top_k\": 2, \"ffn\": 96},"
        "{\"name\": \"f\", \"kind\": \"MatMul\", \"inputs\": [\"m\"], \"in\": 48, \"out\": 10},"
        "{\"name\": \"ln\", \"kind\": \"norm\", \"inputs\": [\"f\"]},"
        "{\"name\": \"o1\", \"kind\": \"output\", \"inputs\": [\"p\"], \"layout\": \"rows\"},"
        "{\"name\": \"o2\", \"kind\": \"output\", \"inputs\": [\"ln\"]}]}";
    GError *error = NULL;
    g_autoptr(PrismOpGraph) g = prism_op_graph_from_json(text, strlen(text), "kinds.json", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_STRING_EQUAL(g->name, "kinds");
    CU_ASSERT_EQUAL(g->n_ops, 12);
    const PrismOp *o = g->ops;
    CU_ASSERT_TRUE(o[0].kind == PRISM_OP_INPUT && o[0].fixed_layout == PRISM_TL_FEAT);
    CU_ASSERT_TRUE(o[1].kind == PRISM_OP_CONV && o[1].k_in == 3 && o[1].k_out == 8 &&
                   o[1].kernel == 3 && o[1].h_out == 5 && o[1].w_out == 7);
    CU_ASSERT_TRUE(o[1].n_inputs == 1 && o[1].inputs[0] == 0);
    CU_ASSERT_TRUE(o[2].kind == PRISM_OP_NORM && o[2].norm_batch_axis == 1);
    CU_ASSERT_TRUE(o[3].kind == PRISM_OP_POOL && o[3].channels == 8 && o[3].h_out == 2 &&
                   o[3].w_out == 3);
    CU_ASSERT_TRUE(o[5].kind == PRISM_OP_EMBEDDING && o[5].k_in == 1000 && o[5].k_out == 48);
    CU_ASSERT_TRUE(o[6].kind == PRISM_OP_ATTENTION && o[6].heads == 4 && o[6].kv_heads == 4 &&
                   o[6].head_dim == 12);
    CU_ASSERT_TRUE(o[7].kind == PRISM_OP_MOE && o[7].experts == 8 && o[7].top_k == 2 &&
                   o[7].ffn == 96 && o[7].matrices == 2);
    CU_ASSERT_TRUE(o[8].kind == PRISM_OP_LINEAR && o[8].k_in == 48 && o[8].k_out == 10);
    CU_ASSERT_TRUE(o[9].kind == PRISM_OP_NORM && o[9].norm_batch_axis == 0);
    CU_ASSERT_TRUE(o[10].kind == PRISM_OP_OUTPUT && o[10].fixed_layout == PRISM_TL_ROWS);
    CU_ASSERT_TRUE(o[11].kind == PRISM_OP_OUTPUT && o[11].fixed_layout == -1);
    for (uint32_t i = 0; i < g->n_ops; i++)
        CU_ASSERT_TRUE(o[i].batch == 2 && o[i].seq == 16 && o[i].rows == 32);
}

/* input -> N x (linear 1024 -> 1024, norm) -> output: the series chain is
 * [E(in,l0) D(l0) E(l0,n0) D(n0) E(n0,l1) D(l1) ... E(n_N-1,out)]. The free input has the
 * same three layouts as a norm and the same tensor size, so E(in,l0) = E(n,l) and the
 * chain is N identical blocks of two (edge, operator) pairs: 2N pairs folded by power. */
static PrismOpGraph *repeated_chain(int n)
{
    GString *js = g_string_new("{\"name\": \"rep\", \"batch\": 4, \"seq\": 256, \"ops\": [\n"
                               "{\"name\": \"in\", \"kind\": \"input\", \"features\": 1024}");
    const char *prev = "in";
    char pn[32];
    for (int i = 0; i < n; i++) {
        g_string_append_printf(js,
                               ",\n{\"name\": \"l%d\", \"kind\": \"linear\", \"inputs\": "
                               "[\"%s\"], \"in\": 1024, \"out\": 1024}",
                               i, prev);
        g_string_append_printf(js,
                               ",\n{\"name\": \"n%d\", \"kind\": \"norm\", \"inputs\": "
                               "[\"l%d\"]}",
                               i, i);
        g_snprintf(pn, sizeof pn, "n%d", i);
        prev = pn;
    }
    g_string_append_printf(js,
                           ",\n{\"name\": \"out\", \"kind\": \"output\", \"inputs\": "
                           "[\"%s\"], \"layout\": \"rep\"}]}",
                           prev);
    PrismOpGraph *g = prism_op_graph_from_json(js->str, js->len, "repeated", NULL);
    g_string_free(js, TRUE);
    return g;
}

static void test_repeated_blocks_power(void)
{
    PrismSmsgEnv env;
    env_for(&env, 2);
    /* small: power is used (3 blocks) and the optimum equals the brute force */
    g_autoptr(PrismOpGraph) g3 = repeated_chain(3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g3);
    CU_ASSERT_TRUE(check_against_brute(g3, 2));
    g_autoptr(PrismLayoutPlan) p3 = prism_smsg_solve(g3, &env, NULL, NULL);
    CU_ASSERT_EQUAL(p3->power_pairs, 6);
    /* large: 40 repeated blocks of 2 pairs; the optimum equals a plain row-vector
     * product of the chain's matrices built from the per-op functions */
    g_autoptr(PrismOpGraph) g = repeated_chain(40);
    g_autoptr(PrismLayoutPlan) p = prism_smsg_solve(g, &env, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->power_pairs, 80);
    int64_t row[PRISM_SMSG_MAX_OPTIONS];
    PrismLayoutOption prev[PRISM_SMSG_MAX_OPTIONS], cur[PRISM_SMSG_MAX_OPTIONS];
    uint32_t np = prism_op_layout_options(&g->ops[0], &env, prev);
    for (uint32_t a = 0; a < np; a++)
        row[a] = prism_smsg_ps(prev[a].compute_s + prev[a].comm_s);
    for (uint32_t v = 1; v < g->n_ops; v++) {
        uint32_t nc = prism_op_layout_options(&g->ops[v], &env, cur);
        const PrismOp *u = &g->ops[v - 1];
        int64_t next[PRISM_SMSG_MAX_OPTIONS];
        for (uint32_t b = 0; b < nc; b++) {
            next[b] = PRISM_DC_INF;
            for (uint32_t a = 0; a < np; a++) {
                int64_t x = prism_dc_add(
                    row[a],
                    prism_smsg_ps(prism_smsg_edge_time(
                        &env, &prev[a], &cur[b], u->rows * u->out_features * u->elem_bytes, NULL)));
                next[b] = x < next[b] ? x : next[b];
            }
            next[b] = prism_dc_add(next[b], prism_smsg_ps(cur[b].compute_s + cur[b].comm_s));
        }
        memcpy(row, next, sizeof next);
        memcpy(prev, cur, sizeof cur);
        np = nc;
    }
    int64_t best = PRISM_DC_INF;
    for (uint32_t a = 0; a < np; a++)
        best = row[a] < best ? row[a] : best;
    CU_ASSERT_EQUAL(p->total_ps, best);
}

static CU_TestInfo smsg_tests[] = {
    {"repeated blocks: power inside the series product = plain product",
     test_repeated_blocks_power},
    {"random SP graphs: exact = brute force (min-plus, Pareto)", test_random_graphs_vs_brute},
    {"built-in MLP/attention, residual file: exact = brute force", test_builtin_small_vs_brute},
    {"Megatron column->row, one forward all-reduce", test_megatron_pairing},
    {"hand-derived MLP cost, tp 8 and tp 1", test_hand_cost_mlp},
    {"greedy and uniform baselines never beat the optimum", test_baselines_never_better},
    {"bad graph files: exit-2 errors with file, op, key", test_bad_graphs},
    {"bad graph texts: each rule's message", test_bad_graph_texts},
    {"graph file kinds: conv, pool, batch norm, embedding, MoE, defaults", test_graph_file_kinds},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"smsg", NULL, NULL, NULL, NULL, smsg_tests},
    CU_SUITE_INFO_NULL,
};
