// SPDX-License-Identifier: MIT
/*
 * cost_explain.c - `prism explain`: every named term of one strategy with its formula,
 * unit and value, per layer kind and per stage, as text or JSON.
 *
 * The values come from a one-lane run of the scalar kernel on an all-stages segment:
 * the same arithmetic the search uses, read back from the kernel's workspace, so
 * explain and the landscape agree exactly. Nothing here is collective.
 */
#include <prism/cost.h>

#include <string.h>

#include <prism/core.h>
#include <prism/cost_json.h>

#include "cost-internal.h"
#include "kernels/kernels-gemm.h"
#include "cost-terms.h"

static const char *rc_name(uint32_t mode)
{
    return prism_recompute_name((PrismRecompute)mode);
}

static char *slot_label(const PrismCostModel *cm, const PrismKSlot *sl)
{
    return g_strdup_printf("%s [%s]", cm->kind_name[sl->kind], rc_name(sl->mode));
}

/* Bytes as GiB (2^30) with three decimals, for tables: the unit of plan's and the
 * verdict's memory. */
static void add_gb(GString *s, double bytes)
{
    g_string_append_printf(s, " %10.3f", bytes / 1073741824.0);
}

void prism_cost_strategy_to_json(const PrismStrategy *s, JsonBuilder *b)
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
static char *tp_overlap_how(const PrismCostModel *cm)
{
    const double *kn = cm->knobs.v;
    if (kn[PRISM_KNOB_TP_UB_SMS] <= 0.0)
        return g_strdup_printf("%g %% hidden", 100.0 * kn[PRISM_KNOB_TP_OVERLAP]);
    return g_strdup_printf("userbuffers: exposed forward %.4g %% = 1/2 (k_r/S) + 1/2 (1/n + (1 - "
                           "1/n) k/S), backward %.4g %% = 1/2 (k_r/S + k/S); k = %g SMs, k_r = 1, "
                           "n = %g splits, S = %u SMs",
                           100.0 * cm->k.tp_exposed, 100.0 * cm->k.tp_exposed_b,
                           kn[PRISM_KNOB_TP_UB_SMS], kn[PRISM_KNOB_TP_UB_SPLITS],
                           cm->cluster->sm_count);
}

/* How DP overlap prices the gradient reduce / parameter gather. */
static char *dp_overlap_how(const PrismCostModel *cm, const PrismStrategy *s)
{
    const double *kn = cm->knobs.v;
    if (kn[PRISM_KNOB_DP_BUCKET] <= 0.0)
        return g_strdup_printf("%g %% hidden", 100.0 * kn[PRISM_KNOB_DP_OVERLAP]);
    const double grow = kn[PRISM_KNOB_DP_BUCKET_PER_RANK] * s->dp * s->cp;
    return g_strdup_printf("buckets of %g params = max(dp_bucket, dp_bucket_per_rank*dp*cp), "
                           "the last exposed",
                           grow > kn[PRISM_KNOB_DP_BUCKET] ? grow : kn[PRISM_KNOB_DP_BUCKET]);
}

static void text_header(GString *o, const PrismCostModel *cm, const PrismStrategy *s)
{
    const PrismTraining *t = &cm->training;
    g_autofree char *st = prism_strategy_format(s);
    g_string_append_printf(o,
                           "prism explain: %s on %u x %s, gbs %" G_GUINT64_FORMAT
                           ", seq %" G_GUINT64_FORMAT ", %s, %s\n",
                           cm->model->name, s->devices, cm->cluster->name, t->gbs, t->seq,
                           prism_dtype_name(t->dtype), prism_optimizer_name(t->optimizer));
    g_string_append_printf(o, "strategy: %s\n", st);
    if (prism_model_is_moe(cm->model))
        g_string_append_printf(o,
                               "experts: etp %u x ep %u x edp %u over the tp*cp*dp = %u devices "
                               "of a stage (%s; ETP groups of %u consecutive devices, EP groups "
                               "span %u)\n",
                               prism_strategy_etp(s), s->ep, prism_strategy_edp(s),
                               s->tp * s->cp * s->dp, prism_strategy_folding(s) ? "folded" : "tied",
                               prism_strategy_etp(s), prism_strategy_etp(s) * s->ep);
    const PrismCluster *cl = cm->cluster;
    g_string_append_printf(o,
                           "offload: %s (host per device: link %g GB/s per direction, memory "
                           "%g GiB at %g GB/s%s)\n",
                           s->offload == PRISM_OFFLOAD_BOTH        ? "optimizer state + activations"
                           : s->offload == PRISM_OFFLOAD_OPTIMIZER ? "optimizer state"
                           : s->offload == PRISM_OFFLOAD_ACTIVATIONS ? "activations"
                                                                     : "none",
                           cl->host_link_GBps, cl->host_mem_bytes / 1073741824.0,
                           cl->host_mem_bw_GBps,
                           cm->k.host_budget > 0 ? "" : "; not given: nothing can be offloaded");
    g_autofree char *h_tp = tp_overlap_how(cm);
    g_autofree char *h_dp = dp_overlap_how(cm, s);
    g_autofree char *o_tp = overlap_choice(s, PRISM_OVERLAP_TP, h_tp);
    g_autofree char *o_dp = overlap_choice(s, PRISM_OVERLAP_DP, h_dp);
    g_autofree char *o_pg = overlap_choice(s, PRISM_OVERLAP_PARAM, h_dp);
    g_string_append_printf(o,
                           "overlap: tp %s, grad reduce %s, param gather %s; userbuffers %g "
                           "B per token while TP overlap is on\n",
                           o_tp, o_dp, o_pg, cm->k.ub_bytes);
    g_string_append(o, "values: scalar reference kernel (every ISA gives the same bits)\n");
    g_string_append(o, "symbols: t tp, c cp, d dp, e ep, m micro-batches, z ZeRO stage, "
                       "T tokens per micro-batch per device,\n         r = 1/t with SP "
                       "else 1, kv = 1/t if t <= KV heads else 1/KV heads\n");
}

static void text_lane(GString *o, const double *ws, const PrismKSegment *ks)
{
    g_string_append(o, "\nstrategy terms\n");
    for (unsigned i = 0; i < prism_term_count_internal(PRISM_TERM_LANE); i++) {
        const PrismTermInfo *ti = prism_term_info_internal(PRISM_TERM_LANE, i);
        const double v = prism_term_value_internal(ws, ks, PRISM_TERM_LANE, 0, i)[0];
        g_string_append_printf(o, "  %-28s %12.6g %-6s %s\n", ti->name, v, ti->unit, ti->formula);
    }
}

static void text_slots(GString *o, const PrismCostModel *cm, const PrismCostSegment *seg,
                       const double *ws)
{
    const PrismKSegment *ks = &seg->k;
    g_string_append(o, "\nlayer terms (per layer, per micro-batch)\n");
    for (uint32_t q = 0; q < ks->n_slots; q++) {
        g_autofree char *lab = slot_label(cm, &ks->slots[q]);
        g_string_append_printf(o, "  %s\n", lab);
        for (unsigned i = 0; i < prism_term_count_internal(PRISM_TERM_SLOT); i++) {
            const PrismTermInfo *ti = prism_term_info_internal(PRISM_TERM_SLOT, i);
            const double v = prism_term_value_internal(ws, ks, PRISM_TERM_SLOT, q, i)[0];
            g_string_append_printf(o, "    %-24s %12.6g %-6s %s\n", ti->name, v, ti->unit,
                                   ti->formula);
        }
    }
}

/* The candidate of stage @p s with the largest total (first on ties). */
static uint32_t stage_peak_cand(const PrismCostSegment *seg, const double *ws, uint32_t s)
{
    const PrismKSegment *ks = &seg->k;
    uint32_t best = seg->stage_cand[s];
    for (uint32_t d = best; d < ks->n_cand && ks->cand_stage[d] == (double)s; d++)
        if (prism_term_value_internal(ws, ks, PRISM_TERM_CAND, d, PRISM_KD_TOTAL)[0] >
            prism_term_value_internal(ws, ks, PRISM_TERM_CAND, best, PRISM_KD_TOTAL)[0])
            best = d;
    return best;
}

static void text_stages(GString *o, const PrismCostModel *cm, const PrismCostSegment *seg,
                        const double *ws, double m)
{
    const PrismKSegment *ks = &seg->k;
    const PrismLayout *l = seg->layout;
    const uint32_t pp = l->pp, vpp = seg->nch, sch = seg->key.schedule;
    const uint32_t last = l->pp * l->vpp - 1;
    g_string_append_printf(o,
                           "\nstages (layers per chunk; in-flight micro-batches per chunk at the "
                           "first steady-state forward: %s)\n",
                           pp > 1 ? prism_schedule_info(sch)->inflight : "1");
    for (uint32_t s = 0; s < pp; s++) {
        gboolean emb = FALSE, head = FALSE;
        g_string_append_printf(o, "  stage %-3u composition %-3u layers [", s, seg->stage_comp[s]);
        for (uint32_t c = 0; c < vpp; c++) {
            const uint32_t j = prism_stage_chunk(sch, pp, s, c);
            emb |= j == 0;
            head |= j == last;
            g_string_append_printf(o, "%s%u", c ? " " : "", l->chunk_layers[j]);
        }
        g_string_append(o, "]  in-flight [");
        for (uint32_t c = 0; c < vpp; c++) {
            const size_t at = (size_t)s * vpp + c;
            if (seg->mu_b[at] > 0) /* GPipe: mu_b x m, all of the step's micro-batches */
                g_string_append_printf(o, "%s%g", c ? " " : "", seg->mu_b[at] * m);
            else
                g_string_append_printf(o, "%s%g", c ? " " : "", MIN(seg->mu_a[at], m));
        }
        g_string_append_printf(o, "]%s%s", emb ? " +embedding" : "", head ? " +head" : "");
        if (seg->stage_states[s] > 1)
            g_string_append_printf(o, "  (%u schedule states; memory = the largest)",
                                   seg->stage_states[s]);
        g_string_append_c(o, '\n');
    }
    g_string_append(o, "\nper-composition terms (time per micro-batch; static memory)\n");
    for (uint32_t c = 0; c < ks->n_comp; c++) {
        g_string_append_printf(o, "  composition %u (%g stage%s):", c, ks->mult[c],
                               ks->mult[c] == 1.0 ? "" : "s");
        for (uint32_t q = 0; q < ks->n_slots; q++) {
            const double n = ks->count[(size_t)c * ks->n_slots + q];
            if (n > 0) {
                g_autofree char *lab = slot_label(cm, &ks->slots[q]);
                g_string_append_printf(o, " %g x %s;", n, lab);
            }
        }
        g_string_append_c(o, '\n');
        for (unsigned i = 0; i < prism_term_count_internal(PRISM_TERM_COMP); i++) {
            const PrismTermInfo *ti = prism_term_info_internal(PRISM_TERM_COMP, i);
            const double v = prism_term_value_internal(ws, ks, PRISM_TERM_COMP, c, i)[0];
            g_string_append_printf(o, "    %-22s %12.6g %-7s %s\n", ti->name, v, ti->unit,
                                   ti->formula);
        }
    }
    g_string_append(o, "\nmemory per stage (GiB = 2^30 bytes)\n"
                       "  stage     params      grads  optimizer activations  buffers      "
                       "total\n");
    for (uint32_t s = 0; s < pp; s++) {
        const uint32_t c = seg->stage_comp[s], d = stage_peak_cand(seg, ws, s);
        g_string_append_printf(o, "  %5u", s);
        add_gb(o, prism_term_value_internal(ws, ks, PRISM_TERM_COMP, c, PRISM_KC_PARAMS)[0]);
        add_gb(o, prism_term_value_internal(ws, ks, PRISM_TERM_COMP, c, PRISM_KC_GRADS)[0]);
        add_gb(o, prism_term_value_internal(ws, ks, PRISM_TERM_COMP, c, PRISM_KC_OPT)[0]);
        add_gb(o, prism_term_value_internal(ws, ks, PRISM_TERM_CAND, d, PRISM_KD_ACT)[0]);
        add_gb(o, prism_term_value_internal(ws, ks, PRISM_TERM_COMP, c, PRISM_KC_BUFFERS)[0]);
        add_gb(o, prism_term_value_internal(ws, ks, PRISM_TERM_CAND, d, PRISM_KD_TOTAL)[0]);
        g_string_append_c(o, '\n');
    }
}

static void text_step(GString *o, const PrismCostModel *cm, const PrismStrategy *s,
                      const PrismCostSegment *seg, const double *ws, const double *col)
{
    const PrismKSegment *ks = &seg->k;
    g_string_append(o, "\nstep\n");
    for (unsigned i = 0; i < prism_term_count_internal(PRISM_TERM_FINAL); i++) {
        const PrismTermInfo *ti = prism_term_info_internal(PRISM_TERM_FINAL, i);
        const double v = prism_term_value_internal(ws, ks, PRISM_TERM_FINAL, 0, i)[0];
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
                                 "the slowest stage (the latter inside T_max)"},
        {PRISM_COL_TIME_PP_COMM, "m * pp_time_per_microbatch"},
        {PRISM_COL_TIME_BUBBLE, NULL}, /* the schedule's bubble text (registry.h) */
        {PRISM_COL_TIME_OPTIMIZER, "max over stages of optimizer_step"},
        {PRISM_COL_TIME_OFFLOAD,
         "max over stages of offload_transfer + m * offload_slowest (the latter in T_max)"},
        {PRISM_COL_TIME_STEP,
         "m * T_max + bubble + max over stages of dp_comm + optimizer + max over stages of "
         "offload_transfer"},
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
            (uint32_t)(rows[i].col - PRISM_COL_BYTES_L0) >= cm->cluster->n_levels)
            continue;
        g_string_append_printf(o, "  %-22s %12.6g %-8s %s\n", ci->name, col[rows[i].col], ci->unit,
                               rows[i].formula ? rows[i].formula
                                               : prism_schedule_info(seg->key.schedule)->bubble);
    }
    g_string_append_printf(o, "  model FLOPs per step   %12.6g FLOP\n", cm->k.model_flops_step);
    g_string_append_printf(o, "  budget                 %12.6g B      memory - mem_margin\n",
                           cm->k.budget);
    g_string_append_printf(o, "  host budget            %12.6g B      host memory per device\n",
                           cm->k.host_budget);
    /* memory as each source measures it (prism_cost_memory_kinds), in one unit */
    PrismMemKinds mk;
    prism_cost_memory_kinds(cm, s, col[PRISM_COL_MEM_PEAK], &mk);
    const double gib = 1073741824.0;
    g_string_append(o, "\nmemory (GiB, the peak stage)\n");
    g_string_append_printf(o,
                           "  allocated              %12.4f GiB    peak_mem: tensors, workspaces\n",
                           mk.allocated / gib);
    g_string_append_printf(o, "  reserved               %12.4f GiB    %s\n", mk.reserved / gib,
                           cm->knobs.v[PRISM_KNOB_EXPANDABLE_SEGMENTS] > 0.5
                               ? "allocated + 20 MiB + 2 MiB (expandable segments)"
                               : "allocated x (1 + allocator_reserve)");
    g_string_append_printf(o,
                           "  device                 %12.4f GiB    reserved + cuda_context %.4f + "
                           "NCCL %.4f (nvidia-smi)\n",
                           mk.device / gib, mk.context / gib, mk.nccl / gib);
    g_string_append_printf(o,
                           "\nverdict: %s (%s), device %.2f GiB of %.2f GiB usable, step %.4g s, "
                           "MFU %.1f%%\n",
                           col[PRISM_COL_FEASIBLE] > 0.5 ? "fits" : "does NOT fit",
                           prism_reason_name((PrismReason)(int)col[PRISM_COL_REASON]),
                           mk.device / 1073741824.0, cm->k.budget / 1073741824.0,
                           col[PRISM_COL_TIME_STEP], 100.0 * col[PRISM_COL_MFU]);
    if (col[PRISM_COL_MEM_HOST] > 0 || col[PRISM_COL_REASON] == (double)PRISM_REASON_MEM_HOST)
        g_string_append_printf(o, "host: %.2f GiB offloaded of %.2f GiB host memory per device\n",
                               col[PRISM_COL_MEM_HOST] / 1073741824.0,
                               cm->k.host_budget / 1073741824.0);
}

/* ---- the GEMM table: each kind's GEMMs, their shapes, efficiencies and why ---- */

static const char *const pass_names[3] = {"fwd", "dgrad", "wgrad"};

/* The three passes of one GEMM of @p kind for strategy @p s, with their why (the same
 * functions and inputs as the evaluator's table, so the seconds are the kernel's). */
static void gemm_passes(const PrismCostModel *cm, uint32_t kind, uint32_t q, const PrismStrategy *s,
                        PrismGemmShape *g, PrismKGemmWhy w[3])
{
    prism_cost_gemm_shape_internal(cm, kind, q, s->tp, s->cp, s->mbs, s->ep, prism_strategy_etp(s),
                                   g);
    const PrismKGemmDev *d = &cm->k.gdev;
    const double mk = g->M * g->K * g->count, kn = g->K * g->N * g->count;
    const double mn = g->M * g->N * g->count, ib = g->in_bytes;
    prism_k_gemm_why(d, g->M, g->N, g->K, g->count, g->inv_rate, ib * (mk + kn) + 2.0 * mn, g->peak,
                     &w[0]);
    prism_k_gemm_why(d, g->M, g->K, g->N, g->count, g->inv_rate, ib * (mn + kn) + 2.0 * mk, g->peak,
                     &w[1]);
    prism_k_gemm_why(d, g->K, g->N, g->M, g->count, g->inv_rate, ib * (mk + mn) + 2.0 * kn, g->peak,
                     &w[2]);
}

/* Kinds present in the segment, each once, in slot order. */
static uint32_t segment_kinds(const PrismCostModel *cm, const PrismKSegment *ks, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t q = 0; q < ks->n_slots; q++) {
        gboolean seen = FALSE;
        for (uint32_t j = 0; j < n; j++)
            seen = seen || out[j] == ks->slots[q].kind;
        if (!seen && cm->kinds[ks->slots[q].kind].n_gemm > 0)
            out[n++] = ks->slots[q].kind;
    }
    return n;
}

static double clock_ratio(const PrismCluster *c)
{
    return c->boost_clock_mhz > 0 && c->sustained_clock_mhz > 0
               ? c->sustained_clock_mhz / c->boost_clock_mhz
               : 1.0;
}

/* How the model FLOPs of MFU count the attention core (the mfu_core knob). */
static const char *mfu_core_text(const PrismCostModel *cm)
{
    const double mc = cm->knobs.v[PRISM_KNOB_MFU_CORE];
    if (mc < 0.5)
        return cm->exec_core < 1.0
                   ? "as executed (causal flash attention runs 1 - causal_skip of it)"
                   : "as executed (without flash attention all of it runs)";
    return mc < 1.5 ? "in full (mfu_core 1: Narayanan et al., torchtitan)"
                    : "at half (mfu_core 2: Megatron-LM's causal mask)";
}

/* Which linear GEMMs an FP8 recipe covers (fp8_scope), for the compute-model line: "" for
 * every one (the default). */
static const char *fp8_scope_text(const PrismCostModel *cm)
{
    const double sc = cm->knobs.v[PRISM_KNOB_FP8_SCOPE];
    if (!prism_dtype_is_fp8(cm->training.dtype))
        return "";
    return sc < 0.5   ? ""
           : sc < 1.5 ? " (fp8_scope 1: the dense linears; routed experts in bf16)"
                      : " (fp8_scope 2: the routed experts; the other linears in bf16)";
}

static void text_gemms(GString *o, const PrismCostModel *cm, const PrismCostSegment *seg,
                       const PrismStrategy *s, const double *ws)
{
    const PrismCluster *c = cm->cluster;
    const PrismKModel *k = &cm->k;
    const gboolean fp8 = prism_dtype_is_lowp(cm->training.dtype);
    g_string_append_printf(
        o,
        "\ncompute model (cost/README.md \"Compute\"): device %s: %u SMs, tile %ux%u, clock %g of "
        "%g MHz (x%.3f)%s,\n  large-GEMM rate bf16 %.4g TFLOP/s = peak x clock x "
        "compute_efficiency %g (%s)",
        c->name, c->sm_count, c->gemm_tile_m, c->gemm_tile_n, c->sustained_clock_mhz,
        c->boost_clock_mhz, clock_ratio(c),
        k->gdev.quant > 0.5 ? "" : " (no tile/wave quantisation)", 1e-12 / k->inv_rate_bf16,
        prism_knobs_gemm_efficiency(&cm->knobs, c->gemm_efficiency),
        cm->knobs.v[PRISM_KNOB_COMPUTE_EFFICIENCY] > 0 ? "the knob"
        : c->gemm_efficiency > 0                       ? "the cluster's gemm_efficiency"
                                                       : "fallback: no device figure");
    if (fp8)
        g_string_append_printf(o, "; %s linear GEMMs%s %.4g TFLOP/s (%s)",
                               prism_dtype_name(cm->training.dtype), fp8_scope_text(cm),
                               1e-12 / k->inv_rate,
                               cm->training.dtype == PRISM_DTYPE_NVFP4
                                   ? "blended with the BF16 rate over nvfp4_bf16_layers"
                                   : "x fp8_gemm_ratio");
    g_string_append_printf(o,
                           "; HBM %.4g GB/s achieved.\n  Attention core %s. MFU and HFU are "
                           "against the BF16 dense peak (%.4g TFLOP/s), the published tables' "
                           "convention, also for FP8 runs; MFU counts the attention core %s, "
                           "HFU as executed (with recomputation).\n",
                           1e-9 / k->inv_hbm,
                           k->core_fwd_inv != k->inv_rate_bf16
                               ? "at the flash-attention fractions (device, or the "
                                 "attn_*_fraction knobs)"
                               : "at the large-GEMM BF16 rate",
                           k->peak_flops * 1e-12, mfu_core_text(cm));
    g_string_append(o, "  per layer per micro-batch, each GEMM: dtype, M rows (tokens the GEMM "
                       "sees), N x K after tp, xcount (grouped);\n  per pass (forward, input "
                       "gradient, weight gradient): output tiles, waves over the SMs, wave "
                       "and tile\n  efficiency, bound (compute, or HBM: the operands' "
                       "traffic), time, achieved fraction of the dtype's datasheet peak\n");
    uint32_t kinds[256];
    const uint32_t nk = segment_kinds(cm, &seg->k, kinds);
    for (uint32_t i = 0; i < nk; i++) {
        const PrismKKind *K = &cm->kinds[kinds[i]];
        g_string_append_printf(o, "  %s\n", cm->kind_name[kinds[i]]);
        double sec[2] = {0, 0}, fl[2] = {0, 0}, sh[2] = {0, 0};
        for (uint32_t q = 0; q < K->n_gemm; q++) {
            PrismGemmShape g;
            PrismKGemmWhy w[3];
            gemm_passes(cm, kinds[i], q, s, &g, w);
            const int low = K->gemm[q].low > 0.5 && fp8;
            g_string_append_printf(
                o, "    %-11s %-6s M %-8.6g N %-8.6g K %-8.6g x%-4g", K->gemm[q].name,
                low ? prism_dtype_name(cm->training.dtype) : "bf16", g.M, g.N, g.K, g.count);
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
                sh[p > 0] += K->gemm[q].shared > 0.5 ? w[p].seconds : 0.0;
            }
            g_string_append_c(o, '\n');
        }
        g_string_append_printf(o, "    split (fwd + bwd): bf16 GEMMs %.4g GFLOP in %.4g s",
                               fl[0] * 1e-9, sec[0]);
        if (fp8)
            g_string_append_printf(o, "; %s GEMMs %.4g GFLOP in %.4g s",
                                   prism_dtype_name(cm->training.dtype), fl[1] * 1e-9, sec[1]);
        /* the attention core and the casts: the kernel's own terms of the first slot */
        for (uint32_t q = 0; q < seg->k.n_slots; q++)
            if (seg->k.slots[q].kind == kinds[i]) {
                const double *sw =
                    ws + ((size_t)PRISM_KL_COUNT + (size_t)q * PRISM_KS_COUNT) * PRISM_K_TILE;
                g_string_append_printf(o, "; attention core (bf16) %.4g s; fp8 casts %.4g s",
                                       sw[PRISM_KS_CORE_FWD * PRISM_K_TILE] +
                                           sw[PRISM_KS_CORE_BWD * PRISM_K_TILE],
                                       sw[PRISM_KS_FP8_CAST * PRISM_K_TILE] +
                                           sw[PRISM_KS_FP8_CAST_BWD * PRISM_K_TILE]);
                break;
            }
        if (k->shared_overlap > 0.5 && sh[0] + sh[1] > 0.0)
            g_string_append_printf(o,
                                   ";\n    shared_expert_overlap: the shared experts' GEMMs (%.4g "
                                   "s forward, %.4g s backward) hide up to as much of the pass's "
                                   "two EP all-to-alls",
                                   sh[0], sh[1]);
        g_string_append_c(o, '\n');
    }
}

static void json_gemms(JsonBuilder *b, const PrismCostModel *cm, const PrismCostSegment *seg,
                       const PrismStrategy *s)
{
    const PrismCluster *c = cm->cluster;
    const gboolean fp8 = prism_dtype_is_lowp(cm->training.dtype);
    json_builder_set_member_name(b, "compute_model");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "mfu_peak");
    json_builder_add_string_value(b, "bf16 dense (the published tables' convention)");
    json_builder_set_member_name(b, "mfu_core");
    json_builder_add_string_value(b, mfu_core_text(cm));
    json_builder_set_member_name(b, "mfu_peak_flops");
    json_builder_add_double_value(b, cm->k.peak_flops);
    json_builder_set_member_name(b, "clock_ratio");
    json_builder_add_double_value(b, clock_ratio(c));
    json_builder_set_member_name(b, "gemm_efficiency");
    json_builder_add_double_value(b, prism_knobs_gemm_efficiency(&cm->knobs, c->gemm_efficiency));
    json_builder_set_member_name(b, "quantisation");
    json_builder_add_boolean_value(b, cm->k.gdev.quant > 0.5);
    json_builder_set_member_name(b, "bf16_gemm_flops");
    json_builder_add_double_value(b, 1.0 / cm->k.inv_rate_bf16);
    json_builder_set_member_name(b, "linear_gemm_flops");
    json_builder_add_double_value(b, 1.0 / cm->k.inv_rate);
    json_builder_set_member_name(b, "fp8_scope");
    json_builder_add_int_value(b, fp8 ? (gint64)cm->knobs.v[PRISM_KNOB_FP8_SCOPE] : 0);
    json_builder_set_member_name(b, "kinds");
    json_builder_begin_array(b);
    uint32_t kinds[256];
    const uint32_t nk = segment_kinds(cm, &seg->k, kinds);
    for (uint32_t i = 0; i < nk; i++) {
        const PrismKKind *K = &cm->kinds[kinds[i]];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, cm->kind_name[kinds[i]]);
        json_builder_set_member_name(b, "gemms");
        json_builder_begin_array(b);
        for (uint32_t q = 0; q < K->n_gemm; q++) {
            PrismGemmShape g;
            PrismKGemmWhy w[3];
            gemm_passes(cm, kinds[i], q, s, &g, w);
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(b, K->gemm[q].name);
            json_builder_set_member_name(b, "dtype");
            json_builder_add_string_value(
                b, K->gemm[q].low > 0.5 && fp8 ? prism_dtype_name(cm->training.dtype) : "bf16");
            /* hides EP all-to-all time under shared_expert_overlap (the knobs member) */
            json_builder_set_member_name(b, "shared_expert");
            json_builder_add_boolean_value(b, K->gemm[q].shared > 0.5);
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

static void json_terms(JsonBuilder *b, const double *ws, const PrismKSegment *ks,
                       PrismTermLevel level, unsigned index)
{
    json_builder_begin_object(b);
    for (unsigned i = 0; i < prism_term_count_internal(level); i++) {
        json_builder_set_member_name(b, prism_term_info_internal(level, i)->name);
        json_builder_add_double_value(b, prism_term_value_internal(ws, ks, level, index, i)[0]);
    }
    json_builder_end_object(b);
}

static char *explain_json(const PrismCostModel *cm, const PrismStrategy *s,
                          const PrismCostSegment *seg, const double *ws, const double *col)
{
    const PrismKSegment *ks = &seg->k;
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_add_string_value(b, cm->model->name);
    json_builder_set_member_name(b, "cluster");
    json_builder_add_string_value(b, cm->cluster->name);
    json_builder_set_member_name(b, "gbs");
    json_builder_add_int_value(b, (gint64)cm->training.gbs);
    json_builder_set_member_name(b, "seq");
    json_builder_add_int_value(b, (gint64)cm->training.seq);
    json_builder_set_member_name(b, "dtype");
    json_builder_add_string_value(b, prism_dtype_name(cm->training.dtype));
    json_builder_set_member_name(b, "strategy");
    json_builder_begin_object(b);
    prism_cost_strategy_to_json(s, b);
    json_builder_end_object(b);
    prism_cost_metrics_to_json(cm, s, col, b);
    json_builder_set_member_name(b, "per_stage");
    json_builder_begin_array(b);
    for (uint32_t st = 0; st < seg->layout->pp; st++) {
        const uint32_t c = seg->stage_comp[st], d = stage_peak_cand(seg, ws, st);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "stage");
        json_builder_add_int_value(b, st);
        json_builder_set_member_name(b, "layers");
        json_builder_begin_array(b);
        for (uint32_t v = 0; v < seg->nch; v++)
            json_builder_add_int_value(b, seg->layout->chunk_layers[prism_stage_chunk(
                                              seg->key.schedule, seg->layout->pp, st, v)]);
        json_builder_end_array(b);
        static const struct {
            const char *key;
            PrismTermLevel level;
            unsigned term;
        } mem[] = {{"params", PRISM_TERM_COMP, PRISM_KC_PARAMS},
                   {"grads", PRISM_TERM_COMP, PRISM_KC_GRADS},
                   {"optimizer", PRISM_TERM_COMP, PRISM_KC_OPT},
                   {"activations", PRISM_TERM_CAND, PRISM_KD_ACT},
                   {"comm_buffers", PRISM_TERM_COMP, PRISM_KC_BUFFERS},
                   {"peak", PRISM_TERM_CAND, PRISM_KD_TOTAL},
                   {"time_per_microbatch", PRISM_TERM_COMP, PRISM_KC_TIME},
                   {"dp_comm", PRISM_TERM_COMP, PRISM_KC_DP},
                   {"host", PRISM_TERM_CAND, PRISM_KD_HOST},
                   {"offload_transfer", PRISM_TERM_COMP, PRISM_KC_XFER}};
        for (size_t i = 0; i < G_N_ELEMENTS(mem); i++) {
            const unsigned idx = mem[i].level == PRISM_TERM_CAND ? d : c;
            json_builder_set_member_name(b, mem[i].key);
            json_builder_add_double_value(
                b, prism_term_value_internal(ws, ks, mem[i].level, idx, mem[i].term)[0]);
        }
        json_builder_set_member_name(b, "terms");
        json_terms(b, ws, ks, PRISM_TERM_COMP, c);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "layers");
    json_builder_begin_array(b);
    for (uint32_t q = 0; q < ks->n_slots; q++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, cm->kind_name[ks->slots[q].kind]);
        json_builder_set_member_name(b, "recompute");
        json_builder_add_string_value(b, rc_name(ks->slots[q].mode));
        json_builder_set_member_name(b, "terms");
        json_terms(b, ws, ks, PRISM_TERM_SLOT, q);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "terms");
    json_terms(b, ws, ks, PRISM_TERM_LANE, 0);
    json_builder_set_member_name(b, "model_flops_per_step");
    json_builder_add_double_value(b, cm->k.model_flops_step);
    json_gemms(b, cm, seg, s);
    json_builder_set_member_name(b, "knobs");
    json_builder_begin_object(b);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        json_builder_set_member_name(b, prism_knob_info((PrismKnobId)i)->name);
        json_builder_add_double_value(b, cm->knobs.v[i]);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    return prism_json_to_string(root, TRUE);
}

char *prism_cost_explain_layout(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, gboolean json, GError **error)
{
    double col[PRISM_COL_COUNT];
    g_autoptr(PrismCostSegment) seg = NULL;
    g_autoptr(PrismEvaluator) ev = NULL;
    if (!prism_cost_run_one_internal(cm, s, layout, &seg, &ev, col, error))
        return NULL;
    if (json)
        return explain_json(cm, s, seg, ev->ws, col);
    GString *o = g_string_new(NULL);
    text_header(o, cm, s);
    text_lane(o, ev->ws, &seg->k);
    text_slots(o, cm, seg, ev->ws);
    text_stages(o, cm, seg, ev->ws, (double)s->m);
    text_gemms(o, cm, seg, s, ev->ws);
    text_step(o, cm, s, seg, ev->ws, col);
    g_string_append(o, "knobs: ");
    g_autofree char *kj = prism_knobs_to_json(&cm->knobs);
    g_string_append(o, kj);
    g_string_append_c(o, '\n');
    return g_string_free(o, FALSE);
}

gboolean prism_cost_stage_peaks(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, double *out, GError **error)
{
    double col[PRISM_COL_COUNT];
    g_autoptr(PrismCostSegment) seg = NULL;
    g_autoptr(PrismEvaluator) ev = NULL;
    if (!prism_cost_run_one_internal(cm, s, layout, &seg, &ev, col, error))
        return FALSE;
    /* the total of each stage's largest candidate, as explain's memory table prints it */
    for (uint32_t st = 0; st < seg->layout->pp; st++)
        out[st] = prism_term_value_internal(ev->ws, &seg->k, PRISM_TERM_CAND,
                                            stage_peak_cand(seg, ev->ws, st), PRISM_KD_TOTAL)[0];
    return TRUE;
}

char *prism_cost_explain(const PrismCostModel *cm, const PrismStrategy *s, gboolean json,
                         GError **error)
{
    return prism_cost_explain_layout(cm, s, NULL, json, error);
}
