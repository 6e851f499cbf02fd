// SPDX-License-Identifier: MIT
/*
 * render_explain.c - `prism explain`'s text and JSON: every named term of one strategy
 * with its formula, unit and value, per layer kind and per stage, rendered from the data
 * cost/ returns (explain.h: prism_explain_new and its accessors). `prism validate
 * --explain` prints the same, and `prism plan`'s rows carry its metric members
 * (prism_app_metrics_json). Nothing here is collective.
 */
#include <string.h>

#include <prism/core.h>
#include <prism/explain.h>

#include "app-internal.h"

static const char *rc_name(uint32_t mode)
{
    return prism_recompute_name((PrismRecompute)mode);
}

static char *slot_label(const PrismExplain *ex, uint32_t q)
{
    return g_strdup_printf("%s [%s]", prism_explain_slot_kind(ex, q),
                           rc_name(prism_explain_slot_recompute(ex, q)));
}

/* Bytes as GiB (2^30) with three decimals, for tables: the unit of plan's and the
 * verdict's memory. */
static void add_gb(GString *s, double bytes)
{
    g_string_append_printf(s, " %10.3f", bytes / 1073741824.0);
}

void prism_app_strategy_json(const PrismStrategy *s, JsonBuilder *b)
{
    /* the registry's dims in its JSON order, code dims by name; edp (not a dim: it follows
     * from the expert mapping) after etp */
    for (int i = 0; i < PRISM_DIM_COUNT; i++) {
        const PrismDim d = prism_dim_json_order[i];
        const uint64_t v = prism_strategy_dim(s, d);
        json_builder_set_member_name(b, prism_dim_name(d));
        if (prism_dim_info(d)->codes != NULL) {
            g_autofree char *text = prism_dim_value_text(d, v);
            json_builder_add_string_value(b, text);
        } else
            json_builder_add_int_value(b, (gint64)v);
        if (d == PRISM_DIM_ETP) {
            json_builder_set_member_name(b, "edp");
            json_builder_add_int_value(b, prism_strategy_edp(s));
        }
    }
}

void prism_app_metrics_json(const PrismCostModel *cm, const PrismStrategy *s,
                            const double c[PRISM_COL_COUNT], JsonBuilder *b)
{
    json_builder_set_member_name(b, "memory");
    json_builder_begin_object(b);
    static const struct {
        const char *key;
        PrismCostCol col;
    } mem[] = {{"params", PRISM_COL_MEM_PARAMS},
               {"grads", PRISM_COL_MEM_GRADS},
               {"optimizer", PRISM_COL_MEM_OPTIMIZER},
               {"activations", PRISM_COL_MEM_ACTIVATIONS},
               {"comm_buffers", PRISM_COL_MEM_COMM_BUFFERS},
               {"peak", PRISM_COL_MEM_PEAK},
               {"host", PRISM_COL_MEM_HOST}};
    for (size_t i = 0; i < G_N_ELEMENTS(mem); i++) {
        json_builder_set_member_name(b, mem[i].key);
        json_builder_add_double_value(b, c[mem[i].col]);
    }
    json_builder_set_member_name(b, "peak_stage");
    json_builder_add_int_value(b, (gint64)c[PRISM_COL_PEAK_STAGE]);
    /* memory as each source measures it, bytes (prism_cost_memory_kinds) */
    PrismMemKinds mk;
    prism_cost_memory_kinds(cm, s, c[PRISM_COL_MEM_PEAK], prism_cost_persistent(c), &mk);
    const struct {
        const char *key;
        double v;
    } kinds[] = {{"allocated", mk.allocated}, {"reserved", mk.reserved},
                 {"device", mk.device},       {"cuda_context", mk.context},
                 {"nccl_buffers", mk.nccl},   {"gather_pool", mk.gather_pool},
                 {"nccl_held", mk.tp_pending}};
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        json_builder_set_member_name(b, kinds[i].key);
        json_builder_add_double_value(b, kinds[i].v);
    }
    json_builder_set_member_name(b, "budget");
    json_builder_add_double_value(b, prism_cost_model_usable(cm));
    json_builder_set_member_name(b, "host_budget");
    json_builder_add_double_value(b, prism_cost_model_host_budget(cm));
    json_builder_end_object(b);
    json_builder_set_member_name(b, "time");
    json_builder_begin_object(b);
    static const struct {
        const char *key;
        PrismCostCol col;
    } tim[] = {{"compute", PRISM_COL_TIME_COMPUTE},
               {"recompute", PRISM_COL_TIME_RECOMPUTE},
               {"tp_comm", PRISM_COL_TIME_TP_COMM},
               {"cp_comm", PRISM_COL_TIME_CP_COMM},
               {"ep_comm", PRISM_COL_TIME_EP_COMM},
               {"dp_comm", PRISM_COL_TIME_DP_COMM},
               {"pp_comm", PRISM_COL_TIME_PP_COMM},
               {"bubble", PRISM_COL_TIME_BUBBLE},
               {"optimizer", PRISM_COL_TIME_OPTIMIZER},
               {"offload", PRISM_COL_TIME_OFFLOAD},
               {"step", PRISM_COL_TIME_STEP}};
    for (size_t i = 0; i < G_N_ELEMENTS(tim); i++) {
        json_builder_set_member_name(b, tim[i].key);
        json_builder_add_double_value(b, c[tim[i].col]);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "flops_per_device");
    json_builder_add_double_value(b, c[PRISM_COL_FLOPS_PER_DEVICE]);
    json_builder_set_member_name(b, "bytes_per_level");
    json_builder_begin_array(b);
    for (uint32_t j = 0;
         j < prism_cost_model_cluster(cm)->n_levels && j <= PRISM_COL_BYTES_L3 - PRISM_COL_BYTES_L0;
         j++)
        json_builder_add_double_value(b, c[PRISM_COL_BYTES_L0 + j]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "mfu");
    json_builder_add_double_value(b, c[PRISM_COL_MFU]);
    json_builder_set_member_name(b, "hfu");
    json_builder_add_double_value(b, c[PRISM_COL_HFU]);
    json_builder_set_member_name(b, "tokens_per_s");
    json_builder_add_double_value(b, c[PRISM_COL_TOKENS_PER_S]);
    json_builder_set_member_name(b, "feasible");
    json_builder_add_boolean_value(b, c[PRISM_COL_FEASIBLE] > 0.5);
    json_builder_set_member_name(b, "reason");
    json_builder_add_string_value(b, prism_reason_name((PrismReason)(int)c[PRISM_COL_REASON]));
}

/* One overlap option of the explain header: "on (how)", "off", or "- (tp = 1)". */
static char *overlap_choice(const PrismStrategy *s, PrismOverlap bit, const char *how)
{
    if (!prism_strategy_overlap_applies(s, bit))
        return g_strdup("- (nothing to hide)");
    if (s->overlap_off & bit)
        return g_strdup("off (exposed in full)");
    return g_strdup_printf("on (%s)", how);
}

/* How TP overlap prices the collectives: the hidden fraction, or the userbuffers model's
 * exposed shares (the last pipelined chunk plus the SMs the communication takes). */
static char *tp_overlap_how(const PrismExplain *ex)
{
    const PrismCostModel *cm = prism_explain_cost_model(ex);
    const double *kn = prism_cost_model_knobs(cm)->v;
    PrismExplainModel k;
    prism_explain_model(ex, &k);
    if (kn[PRISM_KNOB_TP_UB_SMS] <= 0.0)
        return g_strdup_printf("%g %% hidden", 100.0 * kn[PRISM_KNOB_TP_OVERLAP]);
    return g_strdup_printf("userbuffers: exposed forward %.4g %% = 1/2 (k_r/S) + 1/2 (1/n + (1 - "
                           "1/n) k/S), backward %.4g %% = 1/2 (k_r/S + k/S); k = %g SMs, k_r = 1, "
                           "n = %g splits, S = %u SMs",
                           100.0 * k.tp_exposed, 100.0 * k.tp_exposed_b, kn[PRISM_KNOB_TP_UB_SMS],
                           kn[PRISM_KNOB_TP_UB_SPLITS], prism_cost_model_cluster(cm)->sm_count);
}

/* How DP overlap prices the gradient reduce / parameter gather. */
static char *dp_overlap_how(const PrismCostModel *cm, const PrismStrategy *s)
{
    const double *kn = prism_cost_model_knobs(cm)->v;
    if (kn[PRISM_KNOB_DP_BUCKET] <= 0.0)
        return g_strdup_printf("%g %% hidden", 100.0 * kn[PRISM_KNOB_DP_OVERLAP]);
    const double grow = kn[PRISM_KNOB_DP_BUCKET_PER_RANK] * s->dp * s->cp;
    return g_strdup_printf("buckets of %g params = max(dp_bucket, dp_bucket_per_rank*dp*cp), "
                           "the last exposed",
                           grow > kn[PRISM_KNOB_DP_BUCKET] ? grow : kn[PRISM_KNOB_DP_BUCKET]);
}

static void text_header(GString *o, const PrismExplain *ex)
{
    const PrismCostModel *cm = prism_explain_cost_model(ex);
    const PrismStrategy *s = prism_explain_strategy(ex);
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismTraining *t = prism_cost_model_training(cm);
    PrismExplainModel k;
    prism_explain_model(ex, &k);
    g_autofree char *st = prism_strategy_format(s);
    g_string_append_printf(o,
                           "prism explain: %s on %u x %s, gbs %" G_GUINT64_FORMAT
                           ", seq %" G_GUINT64_FORMAT ", %s, %s\n",
                           model->name, s->devices, prism_cost_model_cluster(cm)->name, t->gbs,
                           t->seq, prism_dtype_name(t->dtype), prism_optimizer_name(t->optimizer));
    g_string_append_printf(o, "strategy: %s\n", st);
    if (prism_model_is_moe(model))
        g_string_append_printf(o,
                               "experts: etp %u x ep %u x edp %u over the tp*cp*dp = %u devices "
                               "of a stage (%s; ETP groups of %u consecutive devices, EP groups "
                               "span %u)\n",
                               prism_strategy_etp(s), s->ep, prism_strategy_edp(s),
                               s->tp * s->cp * s->dp, prism_strategy_folding(s) ? "folded" : "tied",
                               prism_strategy_etp(s), prism_strategy_etp(s) * s->ep);
    const PrismCluster *cl = prism_cost_model_cluster(cm);
    g_string_append_printf(
        o,
        "offload: %s (host per device: link %g GB/s per direction, memory "
        "%g GiB at %g GB/s%s)\n",
        s->offload == PRISM_OFFLOAD_BOTH          ? "optimizer state + activations"
        : s->offload == PRISM_OFFLOAD_OPTIMIZER   ? "optimizer state"
        : s->offload == PRISM_OFFLOAD_ACTIVATIONS ? "activations"
                                                  : "none",
        cl->host_link_GBps, cl->host_mem_bytes / 1073741824.0, cl->host_mem_bw_GBps,
        prism_cost_model_host_budget(cm) > 0 ? "" : "; not given: nothing can be offloaded");
    g_autofree char *h_tp = tp_overlap_how(ex);
    g_autofree char *h_dp = dp_overlap_how(cm, s);
    g_autofree char *o_tp = overlap_choice(s, PRISM_OVERLAP_TP, h_tp);
    g_autofree char *o_dp = overlap_choice(s, PRISM_OVERLAP_DP, h_dp);
    g_autofree char *o_pg = overlap_choice(s, PRISM_OVERLAP_PARAM, h_dp);
    g_string_append_printf(o,
                           "overlap: tp %s, grad reduce %s, param gather %s; userbuffers %g "
                           "B per token while TP overlap is on\n",
                           o_tp, o_dp, o_pg, k.ub_bytes);
    g_string_append(o, "values: scalar reference kernel (every ISA gives the same bits)\n");
    g_string_append(o, "symbols: t tp, c cp, d dp, e ep, m micro-batches, z ZeRO stage, "
                       "T tokens per micro-batch per device,\n         r = 1/t with SP "
                       "else 1, kv = 1/t if t <= KV heads else 1/KV heads\n");
}

static void text_lane(GString *o, const PrismExplain *ex)
{
    g_string_append(o, "\nstrategy terms\n");
    for (unsigned i = 0; i < prism_term_count(PRISM_TERM_LANE); i++) {
        const PrismTermInfo *ti = prism_term_info(PRISM_TERM_LANE, i);
        const double v = prism_explain_term(ex, PRISM_TERM_LANE, 0, i);
        g_string_append_printf(o, "  %-28s %12.6g %-6s %s\n", ti->name, v, ti->unit, ti->formula);
    }
}

static void text_slots(GString *o, const PrismExplain *ex)
{
    g_string_append(o, "\nlayer terms (per layer, per micro-batch)\n");
    for (uint32_t q = 0; q < prism_explain_n_slots(ex); q++) {
        g_autofree char *lab = slot_label(ex, q);
        g_string_append_printf(o, "  %s\n", lab);
        for (unsigned i = 0; i < prism_term_count(PRISM_TERM_SLOT); i++) {
            const PrismTermInfo *ti = prism_term_info(PRISM_TERM_SLOT, i);
            const double v = prism_explain_term(ex, PRISM_TERM_SLOT, q, i);
            g_string_append_printf(o, "    %-24s %12.6g %-6s %s\n", ti->name, v, ti->unit,
                                   ti->formula);
        }
    }
}

static void text_stages(GString *o, const PrismExplain *ex)
{
    const PrismLayout *l = prism_explain_layout(ex);
    const uint32_t pp = l->pp, vpp = prism_explain_n_chunks(ex);
    const uint32_t sch = prism_explain_strategy(ex)->schedule;
    const uint32_t last = l->pp * l->vpp - 1;
    g_string_append_printf(o,
                           "\nstages (layers per chunk; in-flight micro-batches per chunk at the "
                           "first steady-state forward: %s)\n",
                           pp > 1 ? prism_schedule_info(sch)->inflight : "1");
    for (uint32_t s = 0; s < pp; s++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, s, &sd);
        gboolean emb = FALSE, head = FALSE;
        g_string_append_printf(o, "  stage %-3u composition %-3u layers [", s, sd.comp);
        for (uint32_t c = 0; c < vpp; c++) {
            const uint32_t j = prism_schedule_place(sch, pp, s, c);
            emb |= j == 0;
            head |= j == last;
            g_string_append_printf(o, "%s%u", c ? " " : "", l->chunk_layers[j]);
        }
        g_string_append(o, "]  in-flight [");
        for (uint32_t c = 0; c < vpp; c++)
            g_string_append_printf(o, "%s%g", c ? " " : "", prism_explain_inflight(ex, s, c));
        g_string_append_printf(o, "]%s%s", emb ? " +embedding" : "", head ? " +head" : "");
        if (sd.states > 1)
            g_string_append_printf(o, "  (%u schedule states; memory = the largest)", sd.states);
        g_string_append_c(o, '\n');
    }
    g_string_append(o, "\nper-composition terms (time per micro-batch; static memory)\n");
    for (uint32_t c = 0; c < prism_explain_n_comps(ex); c++) {
        const double mult = prism_explain_comp_stages(ex, c);
        g_string_append_printf(o, "  composition %u (%g stage%s):", c, mult,
                               mult == 1.0 ? "" : "s");
        for (uint32_t q = 0; q < prism_explain_n_slots(ex); q++) {
            const double n = prism_explain_comp_layers(ex, c, q);
            if (n > 0) {
                g_autofree char *lab = slot_label(ex, q);
                g_string_append_printf(o, " %g x %s;", n, lab);
            }
        }
        g_string_append_c(o, '\n');
        for (unsigned i = 0; i < prism_term_count(PRISM_TERM_COMP); i++) {
            const PrismTermInfo *ti = prism_term_info(PRISM_TERM_COMP, i);
            const double v = prism_explain_term(ex, PRISM_TERM_COMP, c, i);
            g_string_append_printf(o, "    %-22s %12.6g %-7s %s\n", ti->name, v, ti->unit,
                                   ti->formula);
        }
    }
    g_string_append(o, "\nmemory per stage (GiB = 2^30 bytes)\n"
                       "  stage     params      grads  optimizer activations  buffers      "
                       "total\n");
    for (uint32_t s = 0; s < pp; s++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, s, &sd);
        g_string_append_printf(o, "  %5u", s);
        add_gb(o, sd.params);
        add_gb(o, sd.grads);
        add_gb(o, sd.optimizer);
        add_gb(o, sd.activations);
        add_gb(o, sd.buffers);
        add_gb(o, sd.total);
        g_string_append_c(o, '\n');
    }
}

static void text_step(GString *o, const PrismExplain *ex)
{
    const PrismCostModel *cm = prism_explain_cost_model(ex);
    const PrismStrategy *s = prism_explain_strategy(ex);
    const PrismKnobs *knobs = prism_cost_model_knobs(cm);
    const double *col = prism_explain_cols(ex);
    g_string_append(o, "\nstep\n");
    for (unsigned i = 0; i < prism_term_count(PRISM_TERM_FINAL); i++) {
        const PrismTermInfo *ti = prism_term_info(PRISM_TERM_FINAL, i);
        const double v = prism_explain_term(ex, PRISM_TERM_FINAL, 0, i);
        g_string_append_printf(o, "  %-22s %12.6g %-6s %s\n", ti->name, v, ti->unit, ti->formula);
    }
    static const struct {
        PrismCostCol col;
        const char *formula;
    } rows[] = {
        {PRISM_COL_MEM_PARAMS, "peak stage"},
        {PRISM_COL_MEM_GRADS, "peak stage"},
        {PRISM_COL_MEM_OPTIMIZER, "peak stage"},
        {PRISM_COL_MEM_ACTIVATIONS, "peak stage"},
        {PRISM_COL_MEM_COMM_BUFFERS, "peak stage"},
        {PRISM_COL_MEM_PEAK, "max over stages of total (first stage on ties)"},
        {PRISM_COL_PEAK_STAGE, "argmax"},
        {PRISM_COL_TIME_COMPUTE, "m * compute of the slowest stage"},
        {PRISM_COL_TIME_RECOMPUTE, "m * recompute of the slowest stage"},
        {PRISM_COL_TIME_TP_COMM, "m * tp_comm of the slowest stage"},
        {PRISM_COL_TIME_CP_COMM, "m * cp_comm of the slowest stage"},
        {PRISM_COL_TIME_EP_COMM, "m * ep_comm of the slowest stage"},
        {PRISM_COL_TIME_DP_COMM, "max over stages of dp_comm + m * (fsdp_exposed + fsdp_lead) of "
                                 "the slowest stage (the latter inside T_max) + tied_grad_sync"},
        {PRISM_COL_TIME_PP_COMM, "m * pp_time_per_microbatch"},
        {PRISM_COL_TIME_BUBBLE, NULL}, /* the schedule's bubble text (registry.h) */
        {PRISM_COL_TIME_OPTIMIZER, "max over stages of optimizer_step"},
        {PRISM_COL_TIME_OFFLOAD,
         "max over stages of offload_transfer + m * offload_slowest (the latter in T_max)"},
        {PRISM_COL_TIME_STEP,
         "m * T_max + bubble + max over stages of dp_comm + tied_grad_sync + optimizer + max "
         "over stages of offload_transfer"},
        {PRISM_COL_MFU, "model FLOPs per step / (step * N * BF16 dense peak)"},
        {PRISM_COL_HFU, "(model + recompute FLOPs) / (step * N * BF16 dense peak)"},
        {PRISM_COL_TOKENS_PER_S, "gbs * seq / step"},
        {PRISM_COL_FLOPS_PER_DEVICE, "m * max over stages of executed FLOPs per micro-batch"},
        {PRISM_COL_BYTES_L0, "mean over stages"},
        {PRISM_COL_BYTES_L1, "mean over stages"},
        {PRISM_COL_BYTES_L2, "mean over stages"},
        {PRISM_COL_BYTES_L3, "mean over stages"},
        {PRISM_COL_MEM_HOST, "max over stages of host_total"},
        {PRISM_COL_FEASIBLE, "device <= budget and host_mem <= host budget"},
        {PRISM_COL_REASON, "which part first exceeds the budget (4: the host's)"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        const PrismColInfo *ci = prism_col_info(rows[i].col);
        if (rows[i].col >= PRISM_COL_BYTES_L0 && rows[i].col <= PRISM_COL_BYTES_L3 &&
            (uint32_t)(rows[i].col - PRISM_COL_BYTES_L0) >= prism_cost_model_cluster(cm)->n_levels)
            continue;
        g_string_append_printf(o, "  %-22s %12.6g %-8s %s\n", ci->name, col[rows[i].col], ci->unit,
                               rows[i].formula ? rows[i].formula
                                               : prism_schedule_info(s->schedule)->bubble);
    }
    g_string_append_printf(o, "  model FLOPs per step   %12.6g FLOP\n",
                           prism_cost_model_flops_per_step(cm));
    g_string_append_printf(o, "  budget                 %12.6g B      memory - mem_margin\n",
                           prism_cost_model_usable(cm));
    g_string_append_printf(o, "  host budget            %12.6g B      host memory per device\n",
                           prism_cost_model_host_budget(cm));
    /* memory as each source measures it (prism_cost_memory_kinds), in one unit */
    PrismMemKinds mk;
    prism_cost_memory_kinds(cm, s, col[PRISM_COL_MEM_PEAK], prism_cost_persistent(col), &mk);
    const double gib = 1073741824.0;
    g_string_append(o, "\nmemory (GiB, the peak stage)\n");
    g_string_append_printf(o,
                           "  allocated              %12.4f GiB    peak_mem: tensors, workspaces\n",
                           mk.allocated / gib);
    g_string_append_printf(o, "  reserved               %12.4f GiB    %s%s%s\n", mk.reserved / gib,
                           knobs->v[PRISM_KNOB_EXPANDABLE_SEGMENTS] > 0.5
                               ? "allocated + 20 MiB + 2 MiB (expandable segments)"
                               : "allocated + (allocated - params, grads, optimizer) x "
                                 "allocator_reserve",
                           mk.gather_pool > 0.0 ? " + gather pool" : "",
                           mk.tp_pending > 0.0 ? " + NCCL-held" : "");
    if (mk.gather_pool > 0.0)
        g_string_append_printf(o,
                               "  of which gather pool   %12.4f GiB    fsdp_gather_pool x the "
                               "largest unit's gathered parameters (all-gather stream)\n",
                               mk.gather_pool / gib);
    if (mk.tp_pending > 0.0)
        g_string_append_printf(o,
                               "  of which NCCL-held     %12.4f GiB    tp_freed_inputs x "
                               "launch_queue / launches per layer x T x h x bytes (recordStream)\n",
                               mk.tp_pending / gib);
    g_string_append_printf(o,
                           "  device                 %12.4f GiB    reserved + cuda_context %.4f "
                           "+ NCCL %.4f (nvidia-smi)\n",
                           mk.device / gib, mk.context / gib, mk.nccl / gib);
    g_string_append_printf(o,
                           "\nverdict: %s (%s), device %.2f GiB of %.2f GiB usable, step %.4g s, "
                           "MFU %.1f%%\n",
                           col[PRISM_COL_FEASIBLE] > 0.5 ? "fits" : "does NOT fit",
                           prism_reason_name((PrismReason)(int)col[PRISM_COL_REASON]),
                           mk.device / 1073741824.0, prism_cost_model_usable(cm) / 1073741824.0,
                           col[PRISM_COL_TIME_STEP], 100.0 * col[PRISM_COL_MFU]);
    if (col[PRISM_COL_MEM_HOST] > 0 || col[PRISM_COL_REASON] == (double)PRISM_REASON_MEM_HOST)
        g_string_append_printf(o, "host: %.2f GiB offloaded of %.2f GiB host memory per device\n",
                               col[PRISM_COL_MEM_HOST] / 1073741824.0,
                               prism_cost_model_host_budget(cm) / 1073741824.0);
}

/* ---- the GEMM table: each kind's GEMMs, their shapes, efficiencies and why ---- */

static const char *const pass_names[3] = {"fwd", "dgrad", "wgrad"};

static double clock_ratio(const PrismCluster *c)
{
    return c->boost_clock_mhz > 0 && c->sustained_clock_mhz > 0
               ? c->sustained_clock_mhz / c->boost_clock_mhz
               : 1.0;
}

/* How the model FLOPs of MFU count the attention core (the mfu_core knob). */
static const char *mfu_core_text(const PrismExplain *ex)
{
    const double mc = prism_cost_model_knobs(prism_explain_cost_model(ex))->v[PRISM_KNOB_MFU_CORE];
    PrismExplainModel k;
    prism_explain_model(ex, &k);
    if (mc < 0.5)
        return k.exec_core < 1.0 ? "as executed (causal flash attention runs 1 - causal_skip of it)"
                                 : "as executed (without flash attention all of it runs)";
    return mc < 1.5 ? "in full (mfu_core 1: Narayanan et al., torchtitan)"
                    : "at half (mfu_core 2: Megatron-LM's causal mask)";
}

/* Which linear GEMMs an FP8 recipe covers (fp8_scope), for the compute-model line: "" for
 * every one (the default). */
static const char *fp8_scope_text(const PrismCostModel *cm)
{
    const double sc = prism_cost_model_knobs(cm)->v[PRISM_KNOB_FP8_SCOPE];
    if (!prism_dtype_is_fp8(prism_cost_model_training(cm)->dtype))
        return "";
    return sc < 0.5   ? ""
           : sc < 1.5 ? " (fp8_scope 1: the dense linears; routed experts in bf16)"
                      : " (fp8_scope 2: the routed experts; the other linears in bf16)";
}

/* Where the FP4 linear GEMMs' rate comes from (text_gemms): MXFP4's when @p mx. */
static const char *fp4_eff_text(const PrismCostModel *cm, gboolean mx)
{
    const PrismCluster *c = prism_cost_model_cluster(cm);
    if (!((mx ? c->gemm_eff_mxfp4 : c->gemm_eff_nvfp4) > 0))
        return mx ? "no MXFP4 figure: the BF16 efficiency" : "no NVFP4 figure: the BF16 efficiency";
    if (prism_cost_model_knobs(cm)->v[PRISM_KNOB_COMPUTE_EFFICIENCY] > 0)
        return mx ? "the knob x the cluster's gemm_efficiency_mxfp4 / gemm_efficiency"
                  : "the knob x the cluster's gemm_efficiency_nvfp4 / gemm_efficiency";
    return mx ? "the cluster's gemm_efficiency_mxfp4" : "the cluster's gemm_efficiency_nvfp4";
}

static void text_gemms(GString *o, const PrismExplain *ex)
{
    const PrismCostModel *cm = prism_explain_cost_model(ex);
    const PrismCluster *c = prism_cost_model_cluster(cm);
    const PrismKnobs *knobs = prism_cost_model_knobs(cm);
    const PrismDtype dtype = prism_cost_model_training(cm)->dtype;
    PrismExplainModel km;
    prism_explain_model(ex, &km);
    const PrismExplainModel *k = &km;
    const gboolean fp8 = prism_dtype_is_lowp(dtype);
    g_string_append_printf(
        o,
        "\ncompute model (cost/README.md \"Compute\"): device %s: %u SMs, tile %ux%u, clock %g of "
        "%g MHz (x%.3f)%s,\n  large-GEMM rate bf16 %.4g TFLOP/s = peak x clock x "
        "compute_efficiency %g (%s)",
        c->name, c->sm_count, c->gemm_tile_m, c->gemm_tile_n, c->sustained_clock_mhz,
        c->boost_clock_mhz, clock_ratio(c), k->quant ? "" : " (no tile/wave quantisation)",
        1e-12 / k->inv_rate_bf16, prism_knobs_gemm_efficiency(knobs, c->gemm_efficiency),
        knobs->v[PRISM_KNOB_COMPUTE_EFFICIENCY] > 0 ? "the knob"
        : c->gemm_efficiency > 0                    ? "the cluster's gemm_efficiency"
                                                    : "fallback: no device figure");
    if (prism_dtype_is_fp4(dtype)) {
        const gboolean mx = dtype == PRISM_DTYPE_MXFP4;
        g_string_append_printf(
            o,
            "; %s linear GEMMs%s %.4g TFLOP/s (%s peak x clock x "
            "efficiency %g: %s; blended with the BF16 rate over "
            "nvfp4_bf16_layers)",
            prism_dtype_name(dtype), fp8_scope_text(cm), 1e-12 / k->inv_rate,
            mx ? "MXFP4" : "NVFP4",
            prism_knobs_gemm_efficiency_nvfp4(knobs, c->gemm_efficiency,
                                              mx ? c->gemm_eff_mxfp4 : c->gemm_eff_nvfp4),
            fp4_eff_text(cm, mx));
    } else if (fp8)
        g_string_append_printf(o, "; %s linear GEMMs%s %.4g TFLOP/s (x fp8_gemm_ratio)",
                               prism_dtype_name(dtype), fp8_scope_text(cm), 1e-12 / k->inv_rate);
    g_string_append_printf(o,
                           "; HBM %.4g GB/s achieved.\n  Attention core %s. MFU and HFU are "
                           "against the BF16 dense peak (%.4g TFLOP/s), the published tables' "
                           "convention, also for FP8 runs; MFU counts the attention core %s, "
                           "HFU as executed (with recomputation).\n",
                           1e-9 / k->inv_hbm,
                           k->core_fwd_inv != k->inv_rate_bf16
                               ? "at the flash-attention fractions (device, or the "
                                 "attn_*_fraction knobs)"
                               : "at the large-GEMM BF16 rate or, when slower, its score matrices' "
                                 "HBM traffic (2 s x 2 bytes per head and token forward, twice "
                                 "that backward)",
                           prism_cost_model_peak_flops(cm) * 1e-12, mfu_core_text(ex));
    g_string_append(o, "  per layer per micro-batch, each GEMM: dtype, M rows (tokens the GEMM "
                       "sees), N x K after tp, xcount (grouped);\n  per pass (forward, input "
                       "gradient, weight gradient): output tiles, waves over the SMs, wave "
                       "and tile\n  efficiency, bound (compute, or HBM: the operands' "
                       "traffic), time, achieved fraction of the dtype's datasheet peak\n");
    for (uint32_t i = 0; i < prism_explain_n_kinds(ex); i++) {
        PrismExplainKind K;
        prism_explain_kind(ex, i, &K);
        g_string_append_printf(o, "  %s\n", K.name);
        double sec[2] = {0, 0}, fl[2] = {0, 0}, sh[2] = {0, 0};
        for (uint32_t q = 0; q < K.n_gemm; q++) {
            PrismExplainGemm g;
            prism_explain_gemm(ex, i, q, &g);
            const PrismExplainPass *w = g.pass;
            const int low = g.low && fp8;
            g_string_append_printf(o, "    %-11s %-6s M %-8.6g N %-8.6g K %-8.6g x%-4g", g.name,
                                   low ? prism_dtype_name(dtype) : "bf16", g.M, g.N, g.K, g.count);
            for (int p = 0; p < 3; p++) {
                g_string_append_printf(o,
                                       "%s%-5s tile %gx%g: %-6g tiles %-4g waves (wave eff %.3f, "
                                       "tile eff %.3f) %-7s %.4g ms, eff %.3f",
                                       p ? "\n                                                   "
                                           "       "
                                         : "  ",
                                       pass_names[p], w[p].tile_m, w[p].tile_n, w[p].tiles,
                                       w[p].waves, w[p].wave_eff, w[p].tile_eff,
                                       w[p].t_memory > w[p].t_compute ? "HBM" : "compute",
                                       w[p].seconds * 1e3, w[p].efficiency);
                sec[low] += w[p].seconds;
                fl[low] += 2.0 * g.M * g.N * g.K * g.count;
                sh[p > 0] += g.shared ? w[p].seconds : 0.0;
            }
            g_string_append_c(o, '\n');
        }
        g_string_append_printf(o, "    split (fwd + bwd): bf16 GEMMs %.4g GFLOP in %.4g s",
                               fl[0] * 1e-9, sec[0]);
        if (fp8)
            g_string_append_printf(o, "; %s GEMMs %.4g GFLOP in %.4g s", prism_dtype_name(dtype),
                                   fl[1] * 1e-9, sec[1]);
        /* the attention core and the casts: the kernel's own terms of the kind's first slot */
        g_string_append_printf(o, "; attention core (bf16) %.4g s; fp8 casts %.4g s", K.core_s,
                               K.cast_s);
        if (k->shared_overlap && sh[0] + sh[1] > 0.0)
            g_string_append_printf(o,
                                   ";\n    shared_expert_overlap: the shared experts' GEMMs (%.4g "
                                   "s forward, %.4g s backward) hide up to as much of the pass's "
                                   "two EP all-to-alls",
                                   sh[0], sh[1]);
        g_string_append_c(o, '\n');
    }
}

static void json_gemms(JsonBuilder *b, const PrismExplain *ex)
{
    const PrismCostModel *cm = prism_explain_cost_model(ex);
    const PrismCluster *c = prism_cost_model_cluster(cm);
    const PrismKnobs *knobs = prism_cost_model_knobs(cm);
    const PrismDtype dtype = prism_cost_model_training(cm)->dtype;
    const gboolean fp8 = prism_dtype_is_lowp(dtype);
    PrismExplainModel k;
    prism_explain_model(ex, &k);
    json_builder_set_member_name(b, "compute_model");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "mfu_peak");
    json_builder_add_string_value(b, "bf16 dense (the published tables' convention)");
    json_builder_set_member_name(b, "mfu_core");
    json_builder_add_string_value(b, mfu_core_text(ex));
    json_builder_set_member_name(b, "mfu_peak_flops");
    json_builder_add_double_value(b, prism_cost_model_peak_flops(cm));
    json_builder_set_member_name(b, "clock_ratio");
    json_builder_add_double_value(b, clock_ratio(c));
    json_builder_set_member_name(b, "gemm_efficiency");
    json_builder_add_double_value(b, prism_knobs_gemm_efficiency(knobs, c->gemm_efficiency));
    json_builder_set_member_name(b, "quantisation");
    json_builder_add_boolean_value(b, k.quant);
    json_builder_set_member_name(b, "bf16_gemm_flops");
    json_builder_add_double_value(b, 1.0 / k.inv_rate_bf16);
    json_builder_set_member_name(b, "linear_gemm_flops");
    json_builder_add_double_value(b, 1.0 / k.inv_rate);
    json_builder_set_member_name(b, "fp8_scope");
    json_builder_add_int_value(b, fp8 ? (gint64)knobs->v[PRISM_KNOB_FP8_SCOPE] : 0);
    json_builder_set_member_name(b, "kinds");
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < prism_explain_n_kinds(ex); i++) {
        PrismExplainKind K;
        prism_explain_kind(ex, i, &K);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, K.name);
        json_builder_set_member_name(b, "gemms");
        json_builder_begin_array(b);
        for (uint32_t q = 0; q < K.n_gemm; q++) {
            PrismExplainGemm g;
            prism_explain_gemm(ex, i, q, &g);
            const PrismExplainPass *w = g.pass;
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(b, g.name);
            json_builder_set_member_name(b, "dtype");
            json_builder_add_string_value(b, g.low && fp8 ? prism_dtype_name(dtype) : "bf16");
            /* hides EP all-to-all time under shared_expert_overlap (the knobs member) */
            json_builder_set_member_name(b, "shared_expert");
            json_builder_add_boolean_value(b, g.shared);
            static const char *const dims[] = {"M", "N", "K", "count"};
            const double dv[] = {g.M, g.N, g.K, g.count};
            for (int j = 0; j < 4; j++) {
                json_builder_set_member_name(b, dims[j]);
                json_builder_add_double_value(b, dv[j]);
            }
            for (int p = 0; p < 3; p++) {
                json_builder_set_member_name(b, pass_names[p]);
                json_builder_begin_object(b);
                static const char *const keys[] = {
                    "tile_m",          "tile_n",    "tiles",    "waves",   "wave_efficiency",
                    "tile_efficiency", "compute_s", "memory_s", "seconds", "efficiency"};
                const double v[] = {w[p].tile_m,   w[p].tile_n,    w[p].tiles,     w[p].waves,
                                    w[p].wave_eff, w[p].tile_eff,  w[p].t_compute, w[p].t_memory,
                                    w[p].seconds,  w[p].efficiency};
                for (int j = 0; j < 10; j++) {
                    json_builder_set_member_name(b, keys[j]);
                    json_builder_add_double_value(b, v[j]);
                }
                json_builder_set_member_name(b, "bound");
                json_builder_add_string_value(b, w[p].t_memory > w[p].t_compute ? "memory"
                                                                                : "compute");
                json_builder_end_object(b);
            }
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

static void json_terms(JsonBuilder *b, const PrismExplain *ex, PrismTermLevel level, unsigned index)
{
    json_builder_begin_object(b);
    for (unsigned i = 0; i < prism_term_count(level); i++) {
        json_builder_set_member_name(b, prism_term_info(level, i)->name);
        json_builder_add_double_value(b, prism_explain_term(ex, level, index, i));
    }
    json_builder_end_object(b);
}

static char *explain_json(const PrismExplain *ex)
{
    const PrismCostModel *cm = prism_explain_cost_model(ex);
    const PrismStrategy *s = prism_explain_strategy(ex);
    const PrismTraining *t = prism_cost_model_training(cm);
    const PrismLayout *l = prism_explain_layout(ex);
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, prism_cost_model_model(cm)->name);
    json_builder_set_member_name(b, "cluster");
    json_builder_add_string_value(b, prism_cost_model_cluster(cm)->name);
    json_builder_set_member_name(b, "gbs");
    json_builder_add_int_value(b, (gint64)t->gbs);
    json_builder_set_member_name(b, "seq");
    json_builder_add_int_value(b, (gint64)t->seq);
    json_builder_set_member_name(b, "dtype");
    json_builder_add_string_value(b, prism_dtype_name(t->dtype));
    json_builder_set_member_name(b, "strategy");
    json_builder_begin_object(b);
    prism_app_strategy_json(s, b);
    json_builder_end_object(b);
    prism_app_metrics_json(cm, s, prism_explain_cols(ex), b);
    json_builder_set_member_name(b, "per_stage");
    json_builder_begin_array(b);
    for (uint32_t st = 0; st < l->pp; st++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, st, &sd);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "stage");
        json_builder_add_int_value(b, st);
        json_builder_set_member_name(b, "layers");
        json_builder_begin_array(b);
        for (uint32_t v = 0; v < prism_explain_n_chunks(ex); v++)
            json_builder_add_int_value(
                b, l->chunk_layers[prism_schedule_place(s->schedule, l->pp, st, v)]);
        json_builder_end_array(b);
        const struct {
            const char *key;
            double value;
        } mem[] = {{"params", sd.params},
                   {"grads", sd.grads},
                   {"optimizer", sd.optimizer},
                   {"activations", sd.activations},
                   {"comm_buffers", sd.buffers},
                   {"peak", sd.total},
                   {"time_per_microbatch", sd.time},
                   {"dp_comm", sd.dp_comm},
                   {"host", sd.host},
                   {"offload_transfer", sd.transfer}};
        for (size_t i = 0; i < G_N_ELEMENTS(mem); i++) {
            json_builder_set_member_name(b, mem[i].key);
            json_builder_add_double_value(b, mem[i].value);
        }
        json_builder_set_member_name(b, "terms");
        json_terms(b, ex, PRISM_TERM_COMP, sd.comp);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "layers");
    json_builder_begin_array(b);
    for (uint32_t q = 0; q < prism_explain_n_slots(ex); q++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, prism_explain_slot_kind(ex, q));
        json_builder_set_member_name(b, "recompute");
        json_builder_add_string_value(b, rc_name(prism_explain_slot_recompute(ex, q)));
        json_builder_set_member_name(b, "terms");
        json_terms(b, ex, PRISM_TERM_SLOT, q);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "terms");
    json_terms(b, ex, PRISM_TERM_LANE, 0);
    json_builder_set_member_name(b, "model_flops_per_step");
    json_builder_add_double_value(b, prism_cost_model_flops_per_step(cm));
    json_gemms(b, ex);
    json_builder_set_member_name(b, "knobs");
    json_builder_begin_object(b);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        json_builder_set_member_name(b, prism_knob_info((PrismKnobId)i)->name);
        json_builder_add_double_value(b, prism_cost_model_knobs(cm)->v[i]);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return prism_json_to_string(root, TRUE);
}

char *prism_app_explain_render(const PrismExplain *ex, gboolean json)
{
    if (json)
        return explain_json(ex);
    GString *o = g_string_new(NULL);
    text_header(o, ex);
    text_lane(o, ex);
    text_slots(o, ex);
    text_stages(o, ex);
    text_gemms(o, ex);
    text_step(o, ex);
    g_string_append(o, "knobs: ");
    g_autofree char *kj = prism_knobs_to_json(prism_cost_model_knobs(prism_explain_cost_model(ex)));
    g_string_append(o, kj);
    g_string_append_c(o, '\n');
    return g_string_free(o, FALSE);
}

char *prism_app_explain(const PrismCostModel *cm, const PrismStrategy *s, const PrismLayout *layout,
                        gboolean json, GError **error)
{
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, s, layout, error);
    return ex != NULL ? prism_app_explain_render(ex, json) : NULL;
}
