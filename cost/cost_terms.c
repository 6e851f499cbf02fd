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
    [PRISM_KL_INV_EP] = {"inv_ep", "1", "1/(e*etp): a device's share of the routed experts"},
    [PRISM_KL_PDIV] = {"zero_param_share", "1",
                       "z >= 3 and fsdp_reshard ? L/n_s : 1 (n_s = shard group; L = "
                       "zero3_lowp_shard: 0 when the fp32 master is the only shard); 1 for "
                       "z >= 3 under fsdp_pp_nosync with pp > 1"},
    [PRISM_KL_GDIV] = {"zero_grad_share", "1",
                       "z >= 2 ? 1/n_s : 1; 1 for z >= 3 under fsdp_pp_nosync with pp > 1"},
    [PRISM_KL_ODIV] = {"zero_opt_share", "1", "z >= 1 ? 1/n_s : 1"},
    [PRISM_KL_PDIV_E] = {"zero_param_share_experts", "1",
                         "z >= 3 ? L*e*etp/(t*d*c) : 1 (L = zero3_lowp_shard); 1 for z >= 3 "
                         "under fsdp_pp_nosync with pp > 1"},
    [PRISM_KL_GDIV_E] = {"zero_grad_share_experts", "1",
                         "z >= 2 ? e*etp/(t*d*c) : 1; 1 for z >= 3 under fsdp_pp_nosync with "
                         "pp > 1"},
    [PRISM_KL_ODIV_E] = {"zero_opt_share_experts", "1", "z >= 1 ? e*etp/(t*d*c) : 1"},
    [PRISM_KL_TP_A] = {"tp_s_per_byte", "s/B",
                       "2(t-1)/t / BWk(t)  (ring all-reduce; with SP reduce-scatter + all-gather "
                       "at the level's gather figure); BWk = min(k*BW, BW(node)) for a group "
                       "over nodes with k members on each (nic_spread)"},
    [PRISM_KL_TP_LAT] = {"tp_latency", "s",
                         "nccl_model: n_c*base_Simple + 2(t-1)*hop_Simple(t), n_c = 2 with SP "
                         "(reduce-scatter + all-gather) else 1; a group over N > 1 nodes: "
                         "NCCL's count R(t, N) per collective as dp_latency; else "
                         "2(t-1) * LAT(t)"},
    [PRISM_KL_TP_BF] = {"tp_bytes_factor", "1", "2(t-1)/t"},
    [PRISM_KL_TP_LVL] = {"tp_level", "level", "innermost level joining t devices"},
    [PRISM_KL_CP_A] = {"cp_s_per_byte", "s/B", "(c-1) / BW(t*c)  (ring of c-1 exchanges)"},
    [PRISM_KL_CP_LAT] = {"cp_latency", "s", "(c-1) * LAT(t*c)"},
    [PRISM_KL_CP_BF] = {"cp_bytes_factor", "1", "c-1"},
    [PRISM_KL_CP_LVL] = {"cp_level", "level", "level joining t*c devices"},
    [PRISM_KL_EP_A] = {"ep_s_per_byte", "s/B",
                       "all-to-all: (e-1)/(e*t) / BW(etp*e) + (etp-1)/t / BW(etp); "
                       "moe_dispatcher 1 (all-gather): (etp*e-1)/t * H/S / BW(etp*e)"},
    [PRISM_KL_EP_LAT] = {"ep_latency", "s",
                         "all-to-all: (e-1) * LAT(etp*e) + (etp-1) * LAT(etp); all-gather: "
                         "(etp*e-1) * LAT(etp*e)"},
    [PRISM_KL_EP_BF] = {"ep_bytes_factor", "1",
                        "all-to-all: (e-1)/(e*t) + (etp-1)/t; all-gather: (etp*e-1)/t * H/S "
                        "(H hidden-state bytes, S routed-slot bytes)"},
    [PRISM_KL_EP_LVL] = {"ep_level", "level", "level joining etp*e devices"},
    [PRISM_KL_EP_SYNC] = {"ep_count_sync", "s",
                          "[moe_count_sync, all-to-all] the token counts' all-gather "
                          "(etp*e > 1) over etp*e (nccl_model: base_LL + R(etp*e, N) at LL "
                          "hops; else (etp*e-1) * LAT(etp*e)) + launch_us + host_sync_us, "
                          "once per MoE layer forward"},
    [PRISM_KL_DP_A] =
        {"dp_s_per_param", "s",
         "[z<3] (n_s-1)/n_s * V_z / BWk(t*n_s) + (n_r-1)/n_r * V_r / BW(t*c*d); BWk = BW "
         "(z >= 1: the level's all-gather / reduce-scatter figure; z1 with "
         "zero1_grad_allreduce: its 2g at the all-reduce figure), "
         "with nic_spread min(k*BW, BW(node)) for k = node/stride > 1 "
         "members per node (stride t; experts e*etp)"},
    [PRISM_KL_DP_LAT] = {"dp_latency", "s",
                         "[z<3] (n_s-1) * steps_z * LAT(t*n_s) + 2*(n_r-1)*n_red*LAT(t*c*d); "
                         "nccl_model: calls_z*base_Simple + n_red*base_Simple and per ring "
                         "NCCL's count, R(n, N) = (s - s_x)*hop(NVLink) + s_x*hop(level), "
                         "s = n-1 (gather, scatter) or 2(n-1) (all-reduce), s_x = N-1 or 2N "
                         "(N > 1), N = the nodes the n ranks occupy"},
    [PRISM_KL_DP_BF] =
        {"dp_bytes_per_param", "B",
         "(n_s-1)/n_s * V_z; V_z = 2g (z0), g+p (z1; 2g+p with zero1_grad_allreduce), "
         "m*g+p (z2), "
         "m*(g+(1+fsdp_reshard)*p) (z3)"},
    [PRISM_KL_DPE_A] = {"dp_s_per_param_experts", "s", "as dp_s_per_param with n = t*d*c/(e*etp)"},
    [PRISM_KL_DPE_LAT] = {"dp_latency_experts", "s",
                          "(n-1) * steps_z * LAT, n = t*d*c/(e*etp) (nccl_model: R(n, N) "
                          "per collective as dp_latency, stride e*etp)"},
    [PRISM_KL_DPE_BF] = {"dp_bytes_per_param_experts", "B", "(n-1)/n * V_z, n = t*d*c/(e*etp)"},
    [PRISM_KL_DP_LVL] = {"dp_level", "level", "level joining t*c*d devices"},
    [PRISM_KL_PP_TIME] = {"pp_time_per_microbatch", "s",
                          "[pp>1] 2*vpp*(V_pp/BW(x) + LAT(x)*msgs + H) * (1-pp_overlap), "
                          "x = tcd*pp inside a node, else two nodes (point-to-point), "
                          "V_pp = T*h*bytes/t, vpp = chunks per stage (dualpipe 2), "
                          "msgs = pp_p2p_msgs * (seq1f1b_splits (seq1f1b) else 1), "
                          "H = pp_p2p_host_syncs*(launch_us+host_sync_us) * the same; "
                          "pp_tp_partitioned at t>1: + LAT(x) + (launch_us+host_sync_us) + "
                          "1.5*((t-1)/t*T*h*bytes/BW_ag(t) + LAT_ag(t)) inside the bracket"},
    [PRISM_KL_PP_BYTES] = {"pp_bytes_per_microbatch", "B", "[pp>1] 2*vpp*V_pp"},
    [PRISM_KL_PP_LVL] = {"pp_level", "level",
                         "[pp>1] level of the slowest stage boundary, which paces every "
                         "micro-batch: the node's when the whole pipeline (t*c*d*pp) is in "
                         "one, else the level joining two nodes (one NIC on each side)"},
    [PRISM_KL_EP_BUF] = {"ep_buffer", "B", "2*T/t*top_k*cf*h*bytes (all-to-all send+recv)"},
    [PRISM_KL_PP_BUF] = {"pp_buffer", "B", "[pp>1] 2*V_pp (send + receive)"},
    [PRISM_KL_SHARD] = {"zero_shard_group", "ranks",
                        "n_s = hsdp and z >= 1 ? min(d*c, level-0 size/t) : d*c"},
    [PRISM_KL_REPL] = {"zero_replicas", "ranks", "n_r = d*c / n_s (HSDP replicas)"},
    [PRISM_KL_DP_BF_R] = {"dp_bytes_per_param_replicas", "B",
                          "(n_r-1)/n_r * V_r; V_r = n_red*2g/n_s (all-reduce of the shard), "
                          "n_red = 1 (z1) or m (z2, z3)"},
    [PRISM_KL_DP_LVL_R] = {"dp_level_replicas", "level",
                           "level joining t*c*d devices (replica all-reduce, expert group)"},
    [PRISM_KL_DP_FB] = {"dp_backward_share", "1",
                        "share of the per-step DP bytes reduced during backward (z0: 1; "
                        "z1: g; z2: m*g; over V_z, with the replica all-reduce)"},
    [PRISM_KL_DP_NW] = {"dp_windows", "1",
                        "backward windows carrying the reduction: m for z >= 2, else 1"},
    [PRISM_KL_FS_AG_A] = {"fsdp_gather_s_per_param", "s",
                          "[z3] p*(n_s-1)/n_s / BWk(t*n_s)  (all-gather, param dtype)"},
    [PRISM_KL_FS_AG_LAT] = {"fsdp_gather_latency", "s",
                            "[z3] (n_s-1) * LAT(t*n_s) (nccl_model: R(n_s, N) + base_Simple, "
                            "as dp_latency)"},
    [PRISM_KL_FS_RS_A] = {"fsdp_reduce_s_per_param", "s",
                          "[z3] g*(n_s-1)/n_s / BWk(t*n_s) + 2g/n_s*(n_r-1)/n_r / BW(t*c*d)  "
                          "(reduce-scatter in the reduce dtype + HSDP all-reduce)"},
    [PRISM_KL_FS_RS_LAT] = {"fsdp_reduce_latency", "s",
                            "[z3] (n_s-1)*LAT(t*n_s) + 2(n_r-1)*LAT(t*c*d) (nccl_model: "
                            "R(n_s, N) + R_allreduce(n_r, N_r) + bases, as dp_latency)"},
    [PRISM_KL_FS_AGE_A] = {"fsdp_gather_s_per_param_experts", "s",
                           "[z3] p*(n-1)/n / BWk(t*c*d), n = t*d*c/(e*etp)"},
    [PRISM_KL_FS_AGE_LAT] = {"fsdp_gather_latency_experts", "s",
                             "[z3] (n-1) * LAT(t*c*d) (nccl_model: R(n, N), as dp_latency)"},
    [PRISM_KL_FS_RSE_A] = {"fsdp_reduce_s_per_param_experts", "s",
                           "[z3] g*(n-1)/n / BWk(t*c*d), n = t*d*c/(e*etp)"},
    [PRISM_KL_FS_RSE_LAT] = {"fsdp_reduce_latency_experts", "s",
                             "[z3] (n-1) * LAT(t*c*d) (nccl_model: R(n, N), as dp_latency)"},
    [PRISM_KL_CP_STEP_A] = {"cp_step_s_per_byte", "s/B", "1 / BW(t*c)  (one ring step)"},
    [PRISM_KL_CP_STEP_LAT] = {"cp_step_latency", "s", "LAT(t*c)"},
    [PRISM_KL_CP_A2A_A] = {"cp_a2a_s_per_byte", "s/B", "(c-1)/c / BW(t*c)  (all-to-all)"},
    [PRISM_KL_CP_LB] = {"cp_load_imbalance", "1",
                        "slowest rank's attention core / mean: 1 with cp_load_balance "
                        "(zig-zag), else (c - skip)/(c*(1 - skip)), skip = causal_skip with "
                        "flash attention (Liu et al.; zig-zag: 2c chunks, rank r holds r and "
                        "2c-1-r)"},
    [PRISM_KL_CP_INV] = {"inv_cp", "1", "1/c"},
    [PRISM_KL_FS_ONCE] = {"fsdp_once", "1",
                          "[z3, pp > 1, fsdp_pp_nosync] 1/m: parameters gathered once per step, "
                          "accumulated gradients reduce-scattered once after the last backward "
                          "(nothing to hide it); else 0 (per micro-batch)"},
    [PRISM_KL_TP_LAT_LL128] = {"tp_latency_ll128", "s",
                               "nccl_model: n_c*base_LL128 + 2(t-1)*hop_LL128(t); else "
                               "tp_latency"},
    [PRISM_KL_TP_LAT_LL] = {"tp_latency_ll", "s",
                            "nccl_model: n_c*base_LL + 2(t-1)*hop_LL(t); else tp_latency"},
    [PRISM_KL_TIE_SYNC] = {"tied_grad_sync", "s",
                           "[pp>1, tied embeddings] V*h/t * bytes_g / BW(x) + base_Simple + "
                           "2*hop(x): the first and last stage all-reduce the shared matrix's "
                           "gradients once per step; x = t*c*d*pp inside a node, else two nodes"},
};

static const PrismTermInfo slot_terms[PRISM_KS_COUNT] = {
    [PRISM_KS_PARAMS] = {"params", "B", "bytes_p*(P_dense*zp + P_exp*zp_e)"},
    [PRISM_KS_GRADS] = {"grads", "B",
                        "(bytes_g + [ddp_grad_copy, z = 0, d*c > 1] bytes_p)*(P_dense*zg + "
                        "P_exp*zg_e)"},
    [PRISM_KS_OPT] = {"optimizer", "B", "bytes_o*(P_dense*zo + P_exp*zo_e)"},
    [PRISM_KS_NE] = {"dense_params", "params", "P_tp/t + P_kv*kv + P_rep"},
    [PRISM_KS_EX] = {"expert_params", "params", "P_exp/(etp*e)"},
    [PRISM_KS_ACT] = {"activations", "B",
                      "none: T*(A_rep*r + A_tp/t + A_kv*kv + A_full + (A_score + u*A_unf)/t); "
                      "selective: without A_score (selective_policy 1, per-op SAC: "
                      "T*(As_rep*r + As_tp/t + As_kv*kv + As_full)); full: T*h*bytes*r"},
    [PRISM_KS_EXTRA] = {"bwd_working_set", "B",
                        "(none-mode activations) - (the kept input): full recompute "
                        "rematerialises them; with bwd_working_set = 1 every layer's "
                        "gradients take as much while it runs backward; else 0"},
    [PRISM_KS_COMPUTE] = {"compute", "s",
                          "gemm_fwd + gemm_dgrad + gemm_wgrad + core_fwd + core_bwd + "
                          "(1+bwd_ratio)*elementwise fwd + fp8_cast + fp8_cast_bwd + "
                          "grad_accum + host_gap"},
    [PRISM_KS_RECOMP] = {"recompute", "s",
                         "full: one forward (gemm_fwd + core_fwd + elementwise + fp8_cast); "
                         "selective: core_fwd + its elementwise (selective_policy 1: "
                         "sel_gemm*gemm_fwd + the forward elementwise)"},
    [PRISM_KS_WGRAD] = {"weight_grad", "s", "gemm_wgrad + grad_accum (ZB-H1 W pass)"},
    [PRISM_KS_TP] = {"tp_comm", "s",
                     "n_coll*min_p(tp_latency_p + T*h*bytes*tp_s_per_byte*inv_eff_p)*x, "
                     "p = Simple (1), LL128 (1/0.92), LL (4), n_coll = 2 fwd (x2 with full "
                     "recompute) + 2 bwd; x = 1-tp_overlap, or with tp_ub_sms = k "
                     "(userbuffers) fwd 1/2*k_r/S + 1/2*(1/n + (1-1/n)*k/S), bwd 1/2*(k_r + "
                     "k)/S, k_r = 1, n = tp_ub_splits, S = SMs"},
    [PRISM_KS_CP] = {"cp_comm", "s",
                     "ring: (c-1)*[max(0, V_kv/BW + LAT - ov*lb*core/c) fwd (+1 if the core "
                     "is recomputed) + max(0, 2(V_kv/BW + LAT) - ov*bwd_ratio*lb*core/c)] + "
                     "cp_imbalance; Ulysses: (2 + rc)*(T*(QO/t + KV)*cp_a2a_s_per_byte + "
                     "cp_latency); V_kv = T*KV, core = T*F_core/t/(peak*eff), ov = cp_overlap"},
    [PRISM_KS_EP] = {"ep_comm", "s",
                     "n_a2a*(T*top_k*cf*h*bytes*ep_s_per_byte + ep_latency)*(1-ep_overlap), "
                     "n_a2a = 4 (+2 full recompute); shared_expert_overlap: less min(2 a2a, "
                     "shared experts' GEMMs) per pass"},
    [PRISM_KS_FLOPS] = {"flops", "FLOP", "(1+bwd_ratio)*F + recompute FLOPs"},
    [PRISM_KS_TP_BYTES] = {"tp_bytes", "B", "n_coll*T*h*bytes*2(t-1)/t"},
    [PRISM_KS_CP_BYTES] = {"cp_bytes", "B",
                           "ring: (3 + rc)*T*KV*(c-1); Ulysses: (2 + rc)*T*(QO/t + KV)*(c-1)/c"},
    [PRISM_KS_EP_BYTES] = {"ep_bytes", "B", "n_a2a*T*top_k*cf*h*bytes*(e-1)/(e*t)"},
    [PRISM_KS_GATHER] = {"zero3_gather", "B", "bytes_p*(dense_params + expert_params)"},
    [PRISM_KS_FWD] = {"forward", "s",
                      "gemm_fwd + core_fwd + elementwise + fp8_cast + forward tp/cp/ep "
                      "(exposed)"},
    [PRISM_KS_BWD] = {"backward", "s",
                      "gemm_dgrad + gemm_wgrad + core_bwd + elementwise + fp8_cast_bwd + "
                      "grad_accum + backward tp/cp/ep (exposed)"},
    [PRISM_KS_RC_TIME] = {"recompute_total", "s", "recompute + (full: forward comm again)"},
    [PRISM_KS_ELEMWISE] = {"elementwise", "s",
                           "T*((1+bwd_ratio)*(E_rep*r + E_tp/t + E_full) + (E_score + "
                           "E_score_b + u*(E_unf + E_unf_b))/t)/(HBM*eff), E_score_b the scores' "
                           "softmax and dropout backward, u = 1 where softmax_fusion_rule "
                           "finds Megatron's fused softmax unavailable (mbs*heads/t % 4 != 0); "
                           "part of compute"},
    [PRISM_KS_OPT_STEP] = {"optimizer_step", "s",
                           "(P_dense*zo + P_exp*zo_e) * opt_traffic / (HBM*eff)"},
    [PRISM_KS_GRAD_ACCUM] = {"grad_accum", "s",
                             "(P_dense + P_exp) * 2*bytes_g*grad_accum_exposed / (HBM*eff), "
                             "part of compute and of the W pass"},
    [PRISM_KS_GEMM_FWD] = {"gemm_fwd", "s",
                           "sum over the kind's GEMMs of max(waves*SMs*tm*tn*2K/rate, "
                           "operand bytes/(HBM*eff)), M = T (x top_k*cf*e/E experts), "
                           "N, K after tp; rate = peak(dtype)*sustained/boost clock*"
                           "compute_efficiency (explain's gemm table)"},
    [PRISM_KS_GEMM_DGRAD] = {"gemm_dgrad", "s", "the same for the M x K output over N"},
    [PRISM_KS_GEMM_WGRAD] = {"gemm_wgrad", "s", "the same for the K x N output over M"},
    [PRISM_KS_CORE_FWD] = {"core_fwd", "s",
                           "T*F_core/t / (peak_bf16*sustained/boost*attn_fwd_fraction) with "
                           "flash attention, else max(that at the large-GEMM BF16 rate, "
                           "T*2*bytes*heads*s/t/(HBM*eff)): the scores written and read"},
    [PRISM_KS_CORE_BWD] = {"core_bwd", "s",
                           "flash: 2.5*T*F_core/t / (peak_bf16*sustained/boost*"
                           "attn_bwd_fraction); else max(bwd_ratio x the forward's FLOP time, "
                           "T*4*bytes*heads*s/t/(HBM*eff))"},
    [PRISM_KS_FP8_CAST] = {"fp8_cast", "s",
                           "FP8 recipes: (cast_x*M*K + cast_w*K*N)/(HBM*eff) per FP8 GEMM "
                           "(inputs and weights, with transposes and amax)"},
    [PRISM_KS_FP8_CAST_BWD] = {"fp8_cast_bwd", "s",
                               "FP8 recipes: cast_x*M*N/(HBM*eff) per FP8 GEMM (output "
                               "gradients)"},
    [PRISM_KS_DP_FS] = {"fsdp_exposed", "s",
                        "[z3] max(0, AG - W_f) + max(0, fsdp_reshard*AG + RS - W_b); "
                        "AG = P*fsdp_gather_s_per_param + LAT, RS likewise, W_f/W_b = the "
                        "unit's forward / backward(+recompute) wall time"},
    [PRISM_KS_DP_TAIL] = {"fsdp_lead", "s",
                          "min(AG, W_f) + min(fsdp_reshard*AG + RS, W_b): what the stage's "
                          "first gather / last reduce leaves unhidden (the stage takes its max)"},
    [PRISM_KS_CF] = {"forward_window", "s",
                     "forward compute + exposed forward tp/cp/ep (window of the next gather)"},
    [PRISM_KS_FS_AG] = {"fsdp_gather", "s", "[z3] one all-gather of the unit (AG)"},
    [PRISM_KS_FS_RS] = {"fsdp_backward_comm", "s",
                        "[z3] fsdp_reshard*AG + RS (reduce-scatter + HSDP all-reduce)"},
    [PRISM_KS_CP_IMB] = {"cp_imbalance", "s",
                         "(cp_load_imbalance - 1) * core * (1 + bwd_ratio + rc), part of cp_comm"},
    [PRISM_KS_CP_ULY] =
        {"cp_all_to_all", "bool",
         "1 if cp_algo = 1 (Mamba-2 layers: always) and heads/(t*c) is a whole number >= 1"},
    [PRISM_KS_OFFX] = {"offload_exposed", "s",
                       "[offload activations] X = activations/host_link_BW: max(0, X - "
                       "forward_window) + max(0, X - (compute + recompute + tp + cp + ep - "
                       "forward_window)); else 0"},
    [PRISM_KS_HOST_GAP] =
        {"host_gap", "s",
         "[layers] max(0, launch_us*((layer_kernels_fwd + n_tp + n_sp)*(1 + full) + "
         "layer_kernels_bwd + n_tp + n_sp_b) - (compute + recompute + tp + "
         "cp + ep), launch_us*(layer_kernels_fwd + n_tp + n_sp) - forward), "
         "n_tp = [t > 1] TP collectives per pass x (1 + sp), n_sp(_b) = "
         "[t > 1] sp layer_kernels_sp_fwd (_bwd): the host floor's excess over "
         "the device time (a host-bound forward delays the backward), + "
         "layer_host_syncs*(launch_us + host_sync_us)*(1 + full): the forward's "
         "host synchronisations; [embedding; head at pp > 1] mb_host_syncs*(launch_us + "
         "host_sync_us): loading the micro-batch; in compute"},
};

static const PrismTermInfo comp_terms[PRISM_KC_COUNT] = {
    [PRISM_KC_PARAMS] = {"params", "B", "bytes_p*(dense_params*zp + expert_params*zp_e)"},
    [PRISM_KC_GRADS] = {"grads", "B",
                        "(bytes_g + [ddp_grad_copy, z = 0, d*c > 1] bytes_p)*(dense_params*zg + "
                        "expert_params*zg_e)"},
    [PRISM_KC_OPT] = {"optimizer", "B", "bytes_o*(dense_params*zo + expert_params*zo_e)"},
    [PRISM_KC_NE] = {"dense_params", "params", "sum over the stage's layers"},
    [PRISM_KC_EX] = {"expert_params", "params", "sum over the stage's layers"},
    [PRISM_KC_GATHER] = {"zero3_gather_max", "B", "max over the stage's layers"},
    [PRISM_KC_BUFFERS] = {"comm_buffers", "B",
                          "pp_buffer + [MoE] ep_buffer + [z=3] (fsdp_reshard*zero3_prefetch + "
                          "1 + g/p)*gather_max + runtime_overhead + [tp_overlap on, t>1, SP] "
                          "tp_overlap_buffers*T*h*bytes (TE userbuffers) + [t>1, SP] "
                          "tp_gather_buffers*T*h*bytes (persistent gather buffers)"},
    [PRISM_KC_COMPUTE] = {"compute", "s/mb", "sum over layers"},
    [PRISM_KC_RECOMP] = {"recompute", "s/mb", "sum over layers"},
    [PRISM_KC_WGRAD] = {"weight_grad", "s/mb", "sum over layers"},
    [PRISM_KC_TP] = {"tp_comm", "s/mb", "sum over layers"},
    [PRISM_KC_CP] = {"cp_comm", "s/mb", "sum over layers"},
    [PRISM_KC_EP] = {"ep_comm", "s/mb",
                     "sum over layers; DualPipe(V): less min(that, compute + recompute)"},
    [PRISM_KC_TIME] = {"stage_time", "s/mb",
                       "T_s = compute + recompute + tp + cp + ep + pp + fsdp_exposed + "
                       "fsdp_lead + offload_exposed per micro-batch"},
    [PRISM_KC_UNIT] = {"bubble_unit", "s",
                       "u_s = T_s (1F1B, interleaved, GPipe, seq1F1B); T_s - 2*W_s (ZB-H1); "
                       "T_s - 3*W_s (ZB-V, DualPipe, DualPipeV)"},
    [PRISM_KC_DP] = {"dp_comm", "s/step",
                     "C = P_dense*dp_s_per_param + dp_latency + [MoE] experts; dp_bucket = 0: "
                     "C*(1-dp_overlap); else nw*max(q*C_b, C_b - W_b) + max(q*C_f, C_f - W_f), "
                     "C_b = C*fb/nw, C_f = C*(1-fb), q = min(1, B/P_stage), B = max(dp_bucket, "
                     "dp_bucket_per_rank*dp*cp), W = the "
                     "stage's forward / backward per micro-batch"},
    [PRISM_KC_FLOPS] = {"flops", "FLOP/mb", "sum over layers"},
    [PRISM_KC_TP_BYTES] = {"tp_bytes", "B/mb", "sum over layers"},
    [PRISM_KC_CP_BYTES] = {"cp_bytes", "B/mb", "sum over layers"},
    [PRISM_KC_EP_BYTES] = {"ep_bytes", "B/mb", "sum over layers"},
    [PRISM_KC_BYTES_L0] = {"bytes_l0", "B/step", "m*(tp+cp+ep+pp bytes on level 0) + dp bytes"},
    [PRISM_KC_BYTES_L1] = {"bytes_l1", "B/step", "as level 0"},
    [PRISM_KC_BYTES_L2] = {"bytes_l2", "B/step", "as level 0"},
    [PRISM_KC_BYTES_L3] = {"bytes_l3", "B/step", "as level 0"},
    [PRISM_KC_OPT_STEP] = {"optimizer_step", "s/step",
                           "P_o*opt_traffic/(HBM*eff); [offload optimizer] P_o*opt_traffic/"
                           "host_memory_BW (CPU Adam); P_o = dense_params*zo + "
                           "expert_params*zo_e; + (step_layer_syncs*layers + step_host_syncs)*"
                           "(launch_us + host_sync_us) (not with offload)"},
    [PRISM_KC_DP_FS] = {"fsdp_exposed", "s/mb", "sum over layers"},
    [PRISM_KC_DP_TAIL] = {"fsdp_lead", "s/mb", "max over layers"},
    [PRISM_KC_CF] = {"forward_window", "s/mb", "sum over layers"},
    [PRISM_KC_HOST] = {"host_optimizer", "B",
                       "[offload optimizer] (bytes_o + bytes_g)*P_o: the state and a gradient "
                       "copy in host memory (the optimizer term above is then 0); else 0"},
    [PRISM_KC_XFER] = {"offload_transfer", "s/step",
                       "[offload optimizer] P_o*(bytes_g + bytes_p)/host_link_BW: gradients "
                       "to the host, updated parameters back; else 0"},
    [PRISM_KC_OFFX] = {"offload_exposed", "s/mb", "sum over layers (part of stage_time)"},
};

static const PrismTermInfo cand_terms[PRISM_KD_COUNT] = {
    [PRISM_KD_ACT] = {"activations", "B",
                      "sum over chunks and layers of in_flight(chunk) * activations + "
                      "working set; [grad_lowp_kept] + max(0, G - A_one - working set), G = "
                      "bytes_p*(dense_params + expert_params), A_one = one micro-batch's; "
                      "[zero1_gather_copies, ZeRO-1/2, shard > 1] at least "
                      "bytes_p*(dense_params + expert_params)*(copies + 1/shard)"},
    [PRISM_KD_WORK] = {"bwd_working_set", "B",
                       "max over the stage's layers that carry one (bwd_working_set)"},
    [PRISM_KD_TOTAL] = {"total", "B", "params + grads + optimizer + activations + buffers"},
    [PRISM_KD_HOST] = {"host_total", "B",
                       "host_optimizer + [offload activations] in-flight activations (the "
                       "sum above before the device keeps its share)"},
    [PRISM_KD_KEEP] = {"largest_layer_act", "B",
                       "[offload activations] max over the stage's layers of one micro-batch's "
                       "activations; the device keeps min(in-flight, 2 x it): the layer running "
                       "and the one in transfer"},
};

static const PrismTermInfo final_terms[PRISM_KF_COUNT] = {
    [PRISM_KF_TMAX] = {"slowest_stage_time", "s/mb", "max over stages of T_s"},
    [PRISM_KF_USUM] = {"bubble_unit_sum", "s", "sum over stages of u_s"},
    [PRISM_KF_UMAX] = {"bubble_unit_max", "s", "max over stages of u_s"},
    [PRISM_KF_DPMAX] = {"dp_comm_max", "s", "max over stages of dp_comm"},
    [PRISM_KF_FSDP] = {"fsdp_slowest", "s/mb",
                       "fsdp_exposed + fsdp_lead of the slowest stage (dp_time adds m x it)"},
    [PRISM_KF_OFFX] = {"offload_slowest", "s/mb",
                       "offload_exposed of the slowest stage (offload_time adds m x it)"},
    [PRISM_KF_TOFF] = {"offload_slowest_T", "s/mb", "T_s of that stage (scratch)"},
    [PRISM_KF_PSTAT] = {"peak_persistent", "B",
                        "params + grads + optimizer of the peak stage (no allocator reserve)"},
    [PRISM_KF_GPOOL] = {"gather_pool", "B",
                        "ZeRO-3: fsdp_gather_pool x max over every stage of zero3_gather_max "
                        "(the device figure adds it)"},
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

/* The public names of the table (explain.h). */
unsigned prism_term_count(PrismTermLevel level)
{
    return prism_term_count_internal(level);
}

const PrismTermInfo *prism_term_info(PrismTermLevel level, unsigned i)
{
    return prism_term_info_internal(level, i);
}
