// SPDX-License-Identifier: MIT
/*
 * cmd_layouts.c - `prism layouts`: the optimal operator layouts of an operator graph over
 * a tensor-parallel group (SMSG instance of the divide-and-conquer engine), with uniform
 * and D-Rec greedy baselines and an optional (time, memory) Pareto front.
 *
 * Every rank computes the same (cheap) answer; only rank 0 prints. Collective on comm
 * through the final agreement in prism_app_main().
 */
#include "app-internal.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include <prism/smsg.h>

static const char schema_doc[] =
    "Built-in graphs: transformer-mlp, transformer-attention, transformer-block,\n"
    "transformer-moe-block, bert-large, gpt3-175b, vgg16, resnet50 (--list describes them).\n"
    "\n"
    "Graph file (JSON): {\"name\": \"g\", \"batch\": B, \"seq\": S (default 1),\n"
    "  \"dtype_bytes\": 2, \"ops\": [OP, ...]} where ops are listed in topological order and\n"
    "  each OP is {\"name\": unique, \"kind\": K, \"inputs\": [earlier op names], ...keys}:\n"
    "    input        features, [channels], [dtype_bytes], [layout: rep|rows|feat]  (no inputs)\n"
    "    output       [layout: rep|rows|feat]\n"
    "    linear|matmul in, out\n"
    "    attention    heads, head_dim, [kv_heads]  (input: fused q/k/v)\n"
    "    conv         cin, cout, kernel, h_out, w_out\n"
    "    pool         channels, h_out, w_out\n"
    "    norm         [axis: feature|batch], [channels]\n"
    "    elementwise  (any number of inputs, e.g. residual add)\n"
    "    embedding    vocab, hidden\n"
    "    softmax, loss\n"
    "    moe          experts, top_k, ffn, [matrices: 2 or 3]\n"
    "  Sizes are positive integers; rows = batch * seq. The graph must have one op without\n"
    "  inputs, one op without consumers, and be series-parallel (chains, residual and\n"
    "  branching blocks); otherwise the error names the offending edge (exit status 2).\n"
    "\n"
    "Costs: per-device compute (FLOPs / (peak bf16 * GEMM efficiency)), in-operator\n"
    "communication and the redistribution between a producer's and a consumer's layouts\n"
    "(all-reduce, reduce-scatter, all-gather, all-to-all), forward + backward, on the\n"
    "cluster level a group of T devices spans. See search/DC.md.";

typedef struct Opts {
    char *graph;
    char *cluster;
    gint tp;
    gboolean pareto;
    gboolean list;
    gboolean summary;
} Opts;

static double ms(int64_t ps)
{
    return (double)ps * 1e-9;
}

static void add_plan_json(JsonBuilder *b, const PrismOpGraph *g, const PrismSmsgEnv *env,
                          const PrismLayoutPlan *p, gboolean ops)
{
    json_builder_set_member_name(b, "total_s");
    json_builder_add_double_value(b, (double)p->total_ps * 1e-12);
    json_builder_set_member_name(b, "compute_s");
    json_builder_add_double_value(b, p->compute_s);
    json_builder_set_member_name(b, "op_comm_s");
    json_builder_add_double_value(b, p->op_comm_s);
    json_builder_set_member_name(b, "redistribution_s");
    json_builder_add_double_value(b, p->redist_s);
    json_builder_set_member_name(b, "mem_bytes");
    json_builder_add_int_value(b, p->mem_bytes);
    json_builder_set_member_name(b, "forward_collectives");
    json_builder_begin_object(b);
    for (int k = PRISM_COLL_ALL_REDUCE; k < PRISM_COLL_INVALID; k++) {
        json_builder_set_member_name(b, prism_collective_name((PrismCollective)k));
        json_builder_add_int_value(b, p->fwd_coll[k]);
    }
    json_builder_end_object(b);
    if (!ops)
        return;
    json_builder_set_member_name(b, "ops");
    json_builder_begin_array(b);
    for (uint32_t v = 0; v < g->n_ops; v++) {
        PrismLayoutOption o[PRISM_SMSG_MAX_OPTIONS];
        prism_op_layout_options(&g->ops[v], env, o);
        const PrismLayoutOption *x = &o[p->choice[v]];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, g->ops[v].name);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, prism_op_kind_name(g->ops[v].kind));
        json_builder_set_member_name(b, "layout");
        json_builder_add_string_value(b, x->name);
        json_builder_set_member_name(b, "in");
        json_builder_add_string_value(b, prism_tensor_layout_name(x->in_layout));
        json_builder_set_member_name(b, "out");
        json_builder_add_string_value(b, prism_tensor_layout_name(x->out_layout));
        json_builder_set_member_name(b, "compute_s");
        json_builder_add_double_value(b, x->compute_s);
        json_builder_set_member_name(b, "comm_s");
        json_builder_add_double_value(b, x->comm_s);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void print_plan_text(FILE *out, const PrismOpGraph *g, const PrismSmsgEnv *env,
                            const PrismLayoutPlan *p, gboolean ops)
{
    if (ops) {
        fprintf(out, "%-24s %-11s %-7s %-7s %-7s %12s %12s\n", "op", "kind", "layout", "in", "out",
                "compute ms", "op comm ms");
        for (uint32_t v = 0; v < g->n_ops; v++) {
            PrismLayoutOption o[PRISM_SMSG_MAX_OPTIONS];
            prism_op_layout_options(&g->ops[v], env, o);
            const PrismLayoutOption *x = &o[p->choice[v]];
            fprintf(out, "%-24s %-11s %-7s %-7s %-7s %12.4f %12.4f\n", g->ops[v].name,
                    prism_op_kind_name(g->ops[v].kind), x->name,
                    prism_tensor_layout_name(x->in_layout), prism_tensor_layout_name(x->out_layout),
                    x->compute_s * 1e3, x->comm_s * 1e3);
        }
    }
    fprintf(out,
            "total: %.4f ms per micro-batch step (compute %.4f, in-op comm %.4f, "
            "redistribution %.4f), %.2f GiB per device\n",
            ms(p->total_ps), p->compute_s * 1e3, p->op_comm_s * 1e3, p->redist_s * 1e3,
            (double)p->mem_bytes / 1073741824.0);
    fprintf(out, "forward collectives:");
    int any = 0;
    for (int k = PRISM_COLL_ALL_REDUCE; k < PRISM_COLL_INVALID; k++)
        if (p->fwd_coll[k]) {
            fprintf(out, "%s %u %s", any++ ? "," : "", p->fwd_coll[k],
                    prism_collective_name((PrismCollective)k));
        }
    fprintf(out, "%s\n", any ? "" : " none");
}

static gboolean run(PrismComm *comm, Opts *o, PrismCommonOptions *common, GError **error)
{
    FILE *out = prism_app_out(comm);
    if (o->list) {
        if (out)
            for (size_t i = 0; i < prism_op_graph_builtin_count(); i++)
                fprintf(out, "%-22s %s\n", prism_op_graph_builtin_name(i),
                        prism_op_graph_builtin_doc(i));
        return TRUE;
    }
    if (o->tp < 1 || o->tp > 4096) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--tp: %d must be between 1 and 4096", o->tp);
        return FALSE;
    }
    g_autoptr(PrismOpGraph) g =
        prism_op_graph_resolve(o->graph ? o->graph : "transformer-block", error);
    if (g == NULL)
        return FALSE;
    g_autoptr(PrismCluster) cluster =
        prism_cluster_resolve(o->cluster ? o->cluster : PRISM_DEFAULT_CLUSTER, error);
    if (cluster == NULL)
        return FALSE;
    PrismKnobs knobs;
    prism_knobs_default(&knobs);
    if (common->knobs_file != NULL && !prism_knobs_load_file(&knobs, common->knobs_file, error))
        return FALSE;
    for (char **s = common->set; s != NULL && *s != NULL; s++)
        if (!prism_knobs_set(&knobs, *s, error)) {
            g_prefix_error(error, "--set: ");
            return FALSE;
        }
    PrismSmsgEnv env;
    prism_smsg_env_init(&env, cluster, &knobs, (uint32_t)o->tp);
    g_autoptr(PrismLayoutPlan) best = prism_smsg_solve(g, &env, NULL, error);
    if (best == NULL)
        return FALSE;
    g_autoptr(PrismLayoutPlan) greedy = prism_smsg_greedy(g, &env);
    PrismLayoutPlan *uni[PRISM_UNIFORM_COUNT] = {NULL};
    for (int u = 0; u < PRISM_UNIFORM_COUNT; u++) {
        g_autofree uint32_t *mask = prism_uniform_mask(g, &env, (PrismUniform)u);
        uni[u] = prism_smsg_solve(g, &env, mask, NULL); /* NULL: infeasible */
    }
    PrismParetoPoint *front = NULL;
    uint32_t n_front = 0;
    if (o->pareto && !prism_smsg_pareto(g, &env, &front, &n_front, error))
        return FALSE;
    if (out != NULL && common->json) {
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "graph");
        json_builder_add_string_value(b, g->name);
        json_builder_set_member_name(b, "source");
        json_builder_add_string_value(b, g->source);
        json_builder_set_member_name(b, "tp");
        json_builder_add_int_value(b, o->tp);
        json_builder_set_member_name(b, "cluster");
        json_builder_add_string_value(b, cluster->name);
        json_builder_set_member_name(b, "level");
        json_builder_add_string_value(b, env.level_name);
        json_builder_set_member_name(b, "optimal");
        json_builder_begin_object(b);
        add_plan_json(b, g, &env, best, TRUE);
        json_builder_set_member_name(b, "power_pairs");
        json_builder_add_int_value(b, (gint64)best->power_pairs);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "baselines");
        json_builder_begin_array(b);
        for (int u = 0; u <= PRISM_UNIFORM_COUNT; u++) {
            const PrismLayoutPlan *p = u < PRISM_UNIFORM_COUNT ? uni[u] : greedy;
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(
                b, u < PRISM_UNIFORM_COUNT ? prism_uniform_name((PrismUniform)u) : "D-Rec greedy");
            json_builder_set_member_name(b, "feasible");
            json_builder_add_boolean_value(b, p != NULL);
            if (p != NULL) {
                add_plan_json(b, g, &env, p, FALSE);
                if (best->total_ps > 0 || p->total_ps == 0) { /* no 0/0 or x/0 in JSON */
                    json_builder_set_member_name(b, "ratio_to_optimal");
                    json_builder_add_double_value(
                        b, best->total_ps > 0 ? (double)p->total_ps / (double)best->total_ps : 1.0);
                }
            }
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        if (o->pareto) {
            json_builder_set_member_name(b, "pareto");
            json_builder_begin_array(b);
            for (uint32_t i = 0; i < n_front; i++) {
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "time_s");
                json_builder_add_double_value(b, (double)front[i].time * 1e-12);
                json_builder_set_member_name(b, "mem_bytes");
                json_builder_add_int_value(b, front[i].mem);
                json_builder_end_object(b);
            }
            json_builder_end_array(b);
        }
        json_builder_end_object(b);
        prism_app_print_json(out, b);
    } else if (out != NULL) {
        fprintf(out,
                "graph %s (%s): %u ops; tp=%d on %s, level %s (%.0f GB/s effective, %.1f us)\n",
                g->name, g->source, g->n_ops, o->tp, cluster->name, env.level_name,
                env.bw_Bps / 1e9, env.latency_s * 1e6);
        print_plan_text(out, g, &env, best, !o->summary);
        if (best->power_pairs > 0)
            fprintf(out,
                    "engine: %" G_GUINT64_FORMAT " repeated (component, operator) pairs "
                    "reduced by power (repeated squaring)\n",
                    best->power_pairs);
        fprintf(out, "\nbaselines (same cost model; ratio to the optimum):\n");
        for (int u = 0; u <= PRISM_UNIFORM_COUNT; u++) {
            const PrismLayoutPlan *p = u < PRISM_UNIFORM_COUNT ? uni[u] : greedy;
            const char *name =
                u < PRISM_UNIFORM_COUNT ? prism_uniform_name((PrismUniform)u) : "D-Rec greedy";
            if (p == NULL)
                fprintf(out, "  %-18s infeasible\n", name);
            else
                fprintf(out, "  %-18s %12.4f ms  x%.4f  %8.2f GiB\n", name, ms(p->total_ps),
                        best->total_ps > 0 ? (double)p->total_ps / (double)best->total_ps : 1.0,
                        (double)p->mem_bytes / 1073741824.0);
        }
        if (o->pareto) {
            fprintf(out, "\n(time, memory per device) Pareto front, %u points:\n", n_front);
            for (uint32_t i = 0; i < n_front; i++)
                fprintf(out, "  %12.4f ms  %10.3f GiB\n", ms(front[i].time),
                        (double)front[i].mem / 1073741824.0);
        }
    }
    g_free(front);
    for (int u = 0; u < PRISM_UNIFORM_COUNT; u++)
        prism_layout_plan_free(uni[u]);
    return TRUE;
}

gboolean prism_cmd_layouts(PrismComm *comm, int argc, char **argv, GError **error)
{
    Opts o = {.tp = 8};
    PrismCommonOptions common = {.flags = PRISM_OPT_KNOBS | PRISM_OPT_JSON};
    const GOptionEntry entries[] = {
        {"graph", 'g', 0, G_OPTION_ARG_FILENAME, &o.graph,
         "built-in graph name or JSON file (default transformer-block)", "NAME|FILE"},
        {"tp", 't', 0, G_OPTION_ARG_INT, &o.tp, "tensor-parallel group size (default 8)", "T"},
        {"cluster", 'c', 0, G_OPTION_ARG_FILENAME, &o.cluster,
         "cluster preset, a device as nvidia-smi names it (\"NVIDIA H100 80GB HBM3\": H100-SXM) or "
         "a key file (default " PRISM_DEFAULT_CLUSTER ")",
         "NAME|FILE"},
        {"pareto", 0, 0, G_OPTION_ARG_NONE, &o.pareto,
         "also print the (time, memory per device) Pareto front", NULL},
        {"summary", 0, 0, G_OPTION_ARG_NONE, &o.summary, "omit the per-operator table", NULL},
        {"list", 0, 0, G_OPTION_ARG_NONE, &o.list, "list the built-in graphs", NULL},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- optimal operator layouts over a tensor-parallel group");
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_common_options(ctx, &common);
    g_option_context_set_description(ctx, schema_doc);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "prism layouts: unexpected argument '%s' (see --help)", argv[1]);
        ok = FALSE;
    }
    if (ok)
        ok = run(comm, &o, &common, error);
    g_free(o.graph);
    g_free(o.cluster);
    prism_common_options_clear(&common);
    return ok;
}
