// SPDX-License-Identifier: MIT
/*
 * cost_terms.c - the named terms of the cost model: one entry per workspace array of
 * the kernel (kernels-model.h), with its unit and formula text. `prism explain` prints
 * every term with the value the kernel computed, so the text and the arithmetic live
 * side by side (kernels-impl.h computes, this table documents).
 *
 * Symbols: t tp, c cp, d dp, e ep, b mbs, m micro-batches, z ZeRO stage, s seq, h hidden,
 * T = b*s/c tokens per micro-batch per device, r = 1/t with SP else 1, kv = 1/t when
 * t <= g (KV heads) else 1/g, BW(x)/LAT(x) = bandwidth/latency of the innermost level
 * joining x devices. Nothing here is collective.
 */
#include "cost-terms.h"

static const PrismTermInfo lane_terms[PRISM_KL_COUNT] = {
    [PRISM_KL_INV_TP] = {"inv_tp", "1", "1/t"},
    [PRISM_KL_REP] = {"sp_share", "1", "r = 1/t with sequence parallelism, else 1"},
    [PRISM_KL_TOKENS] = {"tokens", "tokens", "T = mbs*seq/cp (per micro-batch per device)"},
    [PRISM_KL_INV_EP] = {"inv_ep", "1", "1/e"},
    [PRISM_KL_PDIV] = {"zero_param_share", "1", "z >= 3 ? 1/(d*c) : 1"},
    [PRISM_KL_GDIV] = {"zero_grad_share", "1", "z >= 2 ? 1/(d*c) : 1"},
    [PRISM_KL_ODIV] = {"zero_opt_share", "1", "z >= 1 ? 1/(d*c) : 1"},
    [PRISM_KL_PDIV_E] = {"zero_param_share_experts", "1", "z >= 3 ? e/(d*c) : 1"},
    [PRISM_KL_GDIV_E] = {"zero_grad_share_experts", "1", "z >= 2 ? e/(d*c) : 1"},
    [PRISM_KL_ODIV_E] = {"zero_opt_share_experts", "1", "z >= 1 ? e/(d*c) : 1"},
    [PRISM_KL_TP_A] = {"tp_s_per_byte", "s/B", "2(t-1)/t / BW(t)  (ring all-reduce)"},
    [PRISM_KL_TP_LAT] = {"tp_latency", "s", "2(t-1) * LAT(t)"},
    [PRISM_KL_TP_BF] = {"tp_bytes_factor", "1", "2(t-1)/t"},
    [PRISM_KL_TP_LVL] = {"tp_level", "level", "innermost level joining t devices"},
    [PRISM_KL_CP_A] = {"cp_s_per_byte", "s/B", "(c-1) / BW(t*c)  (ring of c-1 exchanges)"},
    [PRISM_KL_CP_LAT] = {"cp_latency", "s", "(c-1) * LAT(t*c)"},
    [PRISM_KL_CP_BF] = {"cp_bytes_factor", "1", "c-1"},
    [PRISM_KL_CP_LVL] = {"cp_level", "level", "level joining t*c devices"},
    [PRISM_KL_EP_A] = {"ep_s_per_byte", "s/B", "(e-1)/(e*t) / BW(t*e)  (all-to-all, SP share)"},
    [PRISM_KL_EP_LAT] = {"ep_latency", "s", "(e-1) * LAT(t*e)"},
    [PRISM_KL_EP_BF] = {"ep_bytes_factor", "1", "(e-1)/(e*t)"},
    [PRISM_KL_EP_LVL] = {"ep_level", "level", "level joining t*e devices"},
    [PRISM_KL_DP_A] = {"dp_s_per_param", "s", "(n-1)/n * V_z / BW(t*c*d), n = d*c"},
    [PRISM_KL_DP_LAT] = {"dp_latency", "s", "(n-1) * steps_z * LAT(t*c*d)"},
    [PRISM_KL_DP_BF] = {"dp_bytes_per_param", "B",
                        "(n-1)/n * V_z; V_z = 2g (z0), g+p (z1), m*g+p (z2), m*(g+2p) (z3)"},
    [PRISM_KL_DPE_A] = {"dp_s_per_param_experts", "s", "as dp_s_per_param with n = d*c/e"},
    [PRISM_KL_DPE_LAT] = {"dp_latency_experts", "s", "(n-1) * steps_z * LAT, n = d*c/e"},
    [PRISM_KL_DPE_BF] = {"dp_bytes_per_param_experts", "B", "(n-1)/n * V_z, n = d*c/e"},
    [PRISM_KL_DP_LVL] = {"dp_level", "level", "level joining t*c*d devices"},
    [PRISM_KL_PP_TIME] = {"pp_time_per_microbatch", "s",
                          "[pp>1] 2*vpp*(V_pp/BW(tcd*pp) + LAT*msgs) * (1-pp_overlap), "
                          "V_pp = T*h*bytes/t, vpp = chunks per stage (dualpipe 2), "
                          "msgs = seq1f1b_splits (seq1f1b) else 1"},
    [PRISM_KL_PP_BYTES] = {"pp_bytes_per_microbatch", "B", "[pp>1] 2*vpp*V_pp"},
    [PRISM_KL_PP_LVL] = {"pp_level", "level",
                         "level joining the whole pipeline (t*c*d*pp): its slowest boundary "
                         "paces every micro-batch"},
    [PRISM_KL_EP_BUF] = {"ep_buffer", "B", "2*T/t*top_k*cf*h*bytes (all-to-all send+recv)"},
    [PRISM_KL_PP_BUF] = {"pp_buffer", "B", "[pp>1] 2*V_pp (send + receive)"},
};

static const PrismTermInfo slot_terms[PRISM_KS_COUNT] = {
    [PRISM_KS_PARAMS] = {"params", "B", "bytes_p*(P_dense*zp + P_exp*zp_e)"},
    [PRISM_KS_GRADS] = {"grads", "B", "bytes_g*(P_dense*zg + P_exp*zg_e)"},
    [PRISM_KS_OPT] = {"optimizer", "B", "bytes_o*(P_dense*zo + P_exp*zo_e)"},
    [PRISM_KS_NE] = {"dense_params", "params", "P_tp/t + P_kv*kv + P_rep"},
    [PRISM_KS_EX] = {"expert_params", "params", "P_exp/(t*e)"},
    [PRISM_KS_ACT] = {"activations", "B",
                      "none: T*(A_rep*r + A_tp/t + A_kv*kv + A_full + A_score/t); "
                      "selective: without A_score; full: T*h*bytes*r"},
    [PRISM_KS_EXTRA] = {"bwd_working_set", "B",
                        "(none-mode activations) - (the kept input): full recompute "
                        "rematerialises them; with bwd_working_set = 1 every layer's "
                        "gradients take as much while it runs backward; else 0"},
    [PRISM_KS_COMPUTE] = {"compute", "s",
                          "(1+bwd_ratio)*(F/(peak*eff) + elementwise fwd) + grad_accum, "
                          "F = T*(F_tp/t + F_kv*kv + F_rep + F_core/t + "
                          "F_exp/t)"},
    [PRISM_KS_RECOMP] = {"recompute", "s", "full: F/(peak*eff); selective: T*F_core/t/(peak*eff)"},
    [PRISM_KS_WGRAD] = {"weight_grad", "s",
                        "bwd_ratio/2 * F/(peak*eff) + grad_accum (ZB-H1 W pass)"},
    [PRISM_KS_TP] = {"tp_comm", "s",
                     "n_coll*(T*h*bytes*tp_s_per_byte + tp_latency)*(1-tp_overlap), "
                     "n_coll = 2 fwd (x2 with full recompute) + 2 bwd"},
    [PRISM_KS_CP] = {"cp_comm", "s",
                     "passes*(T*KV/t*cp_s_per_byte + cp_latency)*(1-cp_overlap), "
                     "passes = 1 fwd + 2 bwd (+1 full recompute)"},
    [PRISM_KS_EP] = {"ep_comm", "s",
                     "n_a2a*(T*top_k*cf*h*bytes*ep_s_per_byte + ep_latency)*(1-ep_overlap), "
                     "n_a2a = 4 (+2 full recompute)"},
    [PRISM_KS_FLOPS] = {"flops", "FLOP", "(1+bwd_ratio)*F + recompute FLOPs"},
    [PRISM_KS_TP_BYTES] = {"tp_bytes", "B", "n_coll*T*h*bytes*2(t-1)/t"},
    [PRISM_KS_CP_BYTES] = {"cp_bytes", "B", "passes*T*KV*(c-1)"},
    [PRISM_KS_EP_BYTES] = {"ep_bytes", "B", "n_a2a*T*top_k*cf*h*bytes*(e-1)/(e*t)"},
    [PRISM_KS_GATHER] = {"zero3_gather", "B", "bytes_p*(dense_params + expert_params)"},
    [PRISM_KS_FWD] = {"forward", "s", "F/(peak*eff) + forward tp/cp/ep (exposed)"},
    [PRISM_KS_BWD] = {"backward", "s",
                      "bwd_ratio*F/(peak*eff) + grad_accum + backward tp/cp/ep (exposed)"},
    [PRISM_KS_RC_TIME] = {"recompute_total", "s", "recompute + (full: forward comm again)"},
    [PRISM_KS_ELEMWISE] = {"elementwise", "s",
                           "(1+bwd_ratio)*T*(E_rep*r + E_tp/t + E_score/t + E_full)/(HBM*eff), "
                           "part of compute"},
    [PRISM_KS_OPT_STEP] = {"optimizer_step", "s",
                           "(P_dense*zo + P_exp*zo_e) * opt_traffic / (HBM*eff)"},
    [PRISM_KS_GRAD_ACCUM] = {"grad_accum", "s",
                             "(P_dense + P_exp) * 2*bytes_g*grad_accum_exposed / (HBM*eff), "
                             "part of compute and of the W pass"},
};

static const PrismTermInfo comp_terms[PRISM_KC_COUNT] = {
    [PRISM_KC_PARAMS] = {"params", "B", "bytes_p*(dense_params*zp + expert_params*zp_e)"},
    [PRISM_KC_GRADS] = {"grads", "B", "bytes_g*(dense_params*zg + expert_params*zg_e)"},
    [PRISM_KC_OPT] = {"optimizer", "B", "bytes_o*(dense_params*zo + expert_params*zo_e)"},
    [PRISM_KC_NE] = {"dense_params", "params", "sum over the stage's layers"},
    [PRISM_KC_EX] = {"expert_params", "params", "sum over the stage's layers"},
    [PRISM_KC_GATHER] = {"zero3_gather_max", "B", "max over the stage's layers"},
    [PRISM_KC_BUFFERS] = {"comm_buffers", "B",
                          "pp_buffer + [MoE] ep_buffer + [z=3] zero3_prefetch*gather_max + "
                          "runtime_overhead"},
    [PRISM_KC_COMPUTE] = {"compute", "s/mb", "sum over layers"},
    [PRISM_KC_RECOMP] = {"recompute", "s/mb", "sum over layers"},
    [PRISM_KC_WGRAD] = {"weight_grad", "s/mb", "sum over layers"},
    [PRISM_KC_TP] = {"tp_comm", "s/mb", "sum over layers"},
    [PRISM_KC_CP] = {"cp_comm", "s/mb", "sum over layers"},
    [PRISM_KC_EP] = {"ep_comm", "s/mb",
                     "sum over layers; DualPipe(V): less min(that, compute + recompute)"},
    [PRISM_KC_TIME] = {"stage_time", "s/mb",
                       "T_s = compute + recompute + tp + cp + ep + pp per micro-batch"},
    [PRISM_KC_UNIT] = {"bubble_unit", "s",
                       "u_s = T_s (1F1B, interleaved, GPipe, seq1F1B); T_s - 2*W_s (ZB-H1); "
                       "T_s - 3*W_s (ZB-V, DualPipe, DualPipeV)"},
    [PRISM_KC_DP] = {"dp_comm", "s/step",
                     "(P_dense*dp_s_per_param + dp_latency + [MoE] experts)*(1-dp_overlap)"},
    [PRISM_KC_FLOPS] = {"flops", "FLOP/mb", "sum over layers"},
    [PRISM_KC_TP_BYTES] = {"tp_bytes", "B/mb", "sum over layers"},
    [PRISM_KC_CP_BYTES] = {"cp_bytes", "B/mb", "sum over layers"},
    [PRISM_KC_EP_BYTES] = {"ep_bytes", "B/mb", "sum over layers"},
    [PRISM_KC_BYTES_L0] = {"bytes_l0", "B/step", "m*(tp+cp+ep+pp bytes on level 0) + dp bytes"},
    [PRISM_KC_BYTES_L1] = {"bytes_l1", "B/step", "as level 0"},
    [PRISM_KC_BYTES_L2] = {"bytes_l2", "B/step", "as level 0"},
    [PRISM_KC_BYTES_L3] = {"bytes_l3", "B/step", "as level 0"},
    [PRISM_KC_OPT_STEP] = {"optimizer_step", "s/step",
                           "(dense_params*zo + expert_params*zo_e)*opt_traffic/(HBM*eff)"},
};

static const PrismTermInfo cand_terms[PRISM_KD_COUNT] = {
    [PRISM_KD_ACT] = {"activations", "B",
                      "sum over chunks and layers of in_flight(chunk) * activations + "
                      "working set"},
    [PRISM_KD_WORK] = {"bwd_working_set", "B",
                       "max over the stage's layers that carry one (bwd_working_set)"},
    [PRISM_KD_TOTAL] = {"total", "B", "params + grads + optimizer + activations + buffers"},
};

static const PrismTermInfo final_terms[PRISM_KF_COUNT] = {
    [PRISM_KF_TMAX] = {"slowest_stage_time", "s/mb", "max over stages of T_s"},
    [PRISM_KF_USUM] = {"bubble_unit_sum", "s", "sum over stages of u_s"},
    [PRISM_KF_UMAX] = {"bubble_unit_max", "s", "max over stages of u_s"},
    [PRISM_KF_DPMAX] = {"dp_comm_max", "s", "max over stages of dp_comm"},
};

const PrismTermInfo *prism_term_info_internal(PrismTermLevel level, unsigned i)
{
    switch (level) {
    case PRISM_TERM_LANE:
        return i < PRISM_KL_COUNT ? &lane_terms[i] : NULL;
    case PRISM_TERM_SLOT:
        return i < PRISM_KS_COUNT ? &slot_terms[i] : NULL;
    case PRISM_TERM_COMP:
        return i < PRISM_KC_COUNT ? &comp_terms[i] : NULL;
    case PRISM_TERM_CAND:
        return i < PRISM_KD_COUNT ? &cand_terms[i] : NULL;
    case PRISM_TERM_FINAL:
        return i < PRISM_KF_COUNT ? &final_terms[i] : NULL;
    }
    return NULL;
}

unsigned prism_term_count_internal(PrismTermLevel level)
{
    static const unsigned n[] = {PRISM_KL_COUNT, PRISM_KS_COUNT, PRISM_KC_COUNT, PRISM_KD_COUNT,
                                 PRISM_KF_COUNT};
    return n[level];
}

const double *prism_term_value_internal(const double *ws, const PrismKSegment *ks,
                                        PrismTermLevel level, unsigned index, unsigned i)
{
    size_t at = 0;
    switch (level) {
    case PRISM_TERM_LANE:
        at = i;
        break;
    case PRISM_TERM_SLOT:
        at = PRISM_KL_COUNT + (size_t)index * PRISM_KS_COUNT + i;
        break;
    case PRISM_TERM_COMP:
        at = PRISM_KL_COUNT + (size_t)ks->n_slots * PRISM_KS_COUNT +
             (size_t)index * PRISM_KC_COUNT + i;
        break;
    case PRISM_TERM_CAND:
        at = PRISM_KL_COUNT + (size_t)ks->n_slots * PRISM_KS_COUNT +
             (size_t)ks->n_comp * PRISM_KC_COUNT + (size_t)index * PRISM_KD_COUNT + i;
        break;
    case PRISM_TERM_FINAL:
        at = PRISM_KL_COUNT + (size_t)ks->n_slots * PRISM_KS_COUNT +
             (size_t)ks->n_comp * PRISM_KC_COUNT + (size_t)ks->n_cand * PRISM_KD_COUNT + i;
        break;
    }
    return ws + at * PRISM_K_TILE;
}
