/*
 * kernels-model.h - the compiled constants the cost kernel reads: plain C, no GLib.
 *
 * cost/ compiles a PrismCostModel into a PrismKModel (per layer KIND constants, the
 * network levels and knob values) and a PrismCostSegment into a PrismKSegment (slots,
 * stage compositions and memory candidates). The kernel (kernels-impl.h) evaluates a
 * batch of lanes against both. Everything here is read-only during evaluation.
 *
 * Vocabulary:
 *   kind        one distinct layer shape (a block spec, an MTP module, the embedding, the
 *               head with or without its own weight copy); constants are PER LAYER.
 *   slot        a (kind, recompute mode) pair that occurs in the segment's layout.
 *   composition the slot counts of one pipeline stage, summed over its chunks; stages
 *               with equal counts share one composition (time depends only on it).
 *   candidate   a state of a stage's schedule that can set the memory peak: the
 *               stage's composition plus the in-flight weights W[slot] = sum over
 *               chunks of (in-flight micro-batches x layers of the slot in that chunk).
 *               A stage may have several (interleaved: the chunk mix changes over the
 *               steady state); dominated states are dropped at compile time.
 * Included by the kernel TUs and by cost/ (cost-internal.h); nothing here is collective.
 */
#ifndef PRISM_KERNELS_MODEL_H
#define PRISM_KERNELS_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Network levels the kernel prices: every level a cluster may declare (PRISM_MAX_LEVELS,
 * include/prism/cluster.h; cost_layers.c asserts they agree). */
#define PRISM_K_LEVELS 8
/* Lanes per internal tile: the workspace holds one tile of every term array. */
#define PRISM_K_TILE 64

/** Recompute mode of a slot (the PrismRecompute values none/selective/full). */
enum { PRISM_K_RC_NONE = 0, PRISM_K_RC_SELECTIVE = 1, PRISM_K_RC_FULL = 2 };

/** Pipeline schedule families the kernel distinguishes (PrismSchedule values). */
enum {
    PRISM_K_SCHED_1F1B = 0,
    PRISM_K_SCHED_INTERLEAVED = 1,
    PRISM_K_SCHED_GPIPE = 2,
    PRISM_K_SCHED_ZB_H1 = 3,
    PRISM_K_SCHED_ZB_V = 4,
    PRISM_K_SCHED_DUALPIPE = 5,
    PRISM_K_SCHED_DUALPIPE_V = 6,
    PRISM_K_SCHED_SEQ1F1B = 7
};

/* GEMMs a kind lists (MLA + MoE + MTP blocks need the most: 14). */
#define PRISM_K_GEMMS 14

/** One linear layer's GEMM of a kind, per device for a lane: M = T x m_tok (x ep when
 *  `ep`; experts: x ep x etp / tp), N = n_tp/tp + n_kv x kv + n_rep (experts: n_tp/etp),
 *  K = k_tp/tp + k_rep (experts: k_tp/etp), count GEMMs (/ ep when `ep`). 2 M N K count
 *  FLOP per micro-batch forward. */
typedef struct PrismKGemm {
    const char *name;         /* "qkv", "fc1", ... (a static string; explain) */
    double n_tp, n_kv, n_rep; /* output width split by how it shards */
    double k_tp, k_rep;       /* reduction depth split by how it shards */
    double m_tok;             /* rows per token of the micro-batch (1; experts top_k cf / E) */
    double ep;                /* 1: routed experts (rows x ep, count / ep) */
    double count;             /* GEMMs of this shape per layer (experts: E) */
    double low;               /* 1: runs in the linear-layer dtype (FP8 recipes), 0: BF16 */
    double shared;            /* 1: a shared expert's GEMM (PRISM_KG_SHARED_*) */
} PrismKGemm;

/** The device as the GEMM model sees it (kernels-gemm.h). */
typedef struct PrismKGemmDev {
    double quant;        /* 1: tile/wave quantisation (SMs and tile known), 0: none */
    double sms, inv_sms; /* SMs (CUs) */
    double tm, tn;       /* CTA output tile */
    double inv_tm, inv_tn;
    double wave_work; /* 2 x SMs x tm x tn: FLOP per unit depth of one full wave */
    double inv_hbm;   /* s per byte of HBM traffic at the achieved bandwidth */
    double tile_s;    /* a tile's fixed time (pipeline fill, epilogue), s (knob gemm_tile_us;
                       * 0: none) */
    double ref_k;     /* the reduction depth the large-GEMM rate was measured at (gemm_eff_k),
                       * where tile_s is already in the rate */
} PrismKGemmDev;

/** Per-layer constants of one kind. Element counts are parameters; "bytes per token"
 *  values are for one token of one micro-batch before any parallel division. */
typedef struct PrismKKind {
    /* parameters (counts) */
    double p_tp;  /* sharded by tp (column/row-parallel weights, their sharded biases) */
    double p_kv;  /* K/V projections: sharded by tp while tp <= g, else 1/g each */
    double p_rep; /* replicated over tp (norms, router, MLA down-projections, row biases) */
    double p_exp; /* routed experts: sharded by ep and tp */
    double g;     /* KV heads (== heads for MLA, so kv selection is 1/tp) */
    double inv_g; /* 1/g */
    /* activation bytes per token per micro-batch */
    double a_rep;   /* replicated over tp unless SP (norm inputs, linear inputs, masks) */
    double a_tp;    /* sharded by tp (Q, attention output, MLP intermediates) */
    double a_kv;    /* K and V (kv selection as for parameters) */
    double a_score; /* attention core: softmax + mask + dropout (or flash statistics) */
    double a_full;  /* not sharded by tp (permuted MoE tokens) */
    double a_ckpt;  /* what full recompute keeps: the layer input (replicated unless SP) */
    double a_spg;   /* part of a_rep that is a column-parallel linear's input: kept gathered
                     * (not 1/t) when sp_saves_gathered (PyTorch DTensor SP) */
    /* forward FLOPs per token */
    double f_tp, f_kv, f_rep; /* GEMMs, split like the parameters */
    double f_core;            /* attention core (QK^T, AV) executed, after causal skip */
    double f_exp;             /* routed experts as executed: top_k x capacity x 2 x params */
    /* memory-bound (elementwise) HBM traffic per token per forward, bytes */
    double e_rep;   /* norms, bias-dropout-add (replicated over tp unless SP) */
    double e_tp;    /* bias-GeLU / SwiGLU (sharded by tp) */
    double e_score; /* softmax + dropout on the scores (sharded by tp; 0 with flash) */
    double e_full;  /* not sharded by tp (none today; kept for kinds that need it) */
    double e_moe;   /* MoE dispatch on the layer's own tokens (x r): permute, unpermute,
                     * router softmax (Megatron-Core's unfused alltoall dispatcher) */
    double e_sort;  /* MoE chunk sort + unsort of the received rows (x r x etp), run
                     * only with more than one local expert (E/ep > 1) */
    double n_exp;   /* routed experts E (0 for dense kinds) */
    /* communication */
    double tp_coll_fwd;    /* all-reduce-equivalent TP collectives per forward */
    double tp_coll_fwd_sp; /* extra forward collectives when SP is on (head all-gather) */
    double tp_coll_sel_sp; /* collectives run again by recompute = selective with SP (per-op
                            * SAC: the two all-gathers whose outputs are not saved) */
    double tp_coll_bwd;    /* per backward */
    double tp_bytes;       /* bytes per token per TP collective (h x dtype) */
    double cp_tp, cp_kv;   /* bytes per token exchanged per CP ring pass (tp-sharded / kv) */
    double ep_bytes;       /* bytes per token per all-to-all: top_k x capacity x h x dtype */
    double is_moe;         /* 1 if the kind has routed experts (EP all-to-all, buffers) */
    double is_layer;       /* 1 for blocks/MTP, 0 for embedding and head */
    /* the stages that load a micro-batch (mb_host_syncs): 1 for the embedding (the first
     * stage), 1 for the heads (the last stage, charged only when pp > 1: at pp = 1 the
     * embedding's stage loads once); 0 otherwise */
    double loads_first, loads_last;
    /* the shape-aware compute model: the kind's GEMMs (their FLOPs add up to
     * f_tp/tp + f_kv kv + f_rep + f_exp/tp per token; checked in test_gemm) */
    uint32_t n_gemm;
    PrismKGemm gemm[PRISM_K_GEMMS];
    /* context parallelism, all-to-all (Ulysses) */
    double cp_qo;  /* bytes per token of Q and of the attention output (tp-sharded) */
    double cp_kvh; /* bytes per token of one KV head's K and V (GQA replication to cp heads) */
    double heads;  /* attention heads (Ulysses needs heads/tp divisible by cp) */
    /* recompute = selective (knob selective_policy; cost/README.md "Memory"): what is kept
     * per token, split like a_* (equal to a_rep, a_tp, a_kv, a_full for Korthikanti's
     * policy), and what runs again: the attention core (sel_core 0/1), the share sel_gemm
     * of the forward GEMM time, the share sel_ew of the forward elementwise traffic, and
     * the recomputed GEMM FLOPs per token split like f_tp / f_kv */
    double as_rep, as_tp, as_kv, as_full, as_spg;
    double sel_core, sel_gemm, sel_ew, sf_tp, sf_kv;
    /* elementwise HBM bytes per token (sharded by tp) that selective recompute runs again
     * beyond sel_ew: the routed experts' activation function under recompute_moe_act */
    double se_tp;
    /* backward working set beyond the layer's activations, bytes per token sharded by tp
     * (the head: loss_bwd_extra x logits_bytes x V) */
    double w_tp;
    /* context parallelism of hybrid models' layers (cost/README.md, "State-space and
     * linear-attention layers"): cp_a2a 1: the layer's CP is always the all-to-all over its
     * heads (Mamba-2: Megatron-Core's MambaContextParallel), whatever cp_algo says; cp_none
     * 1: the layer exchanges nothing over CP (an MLP-only layer; gated DeltaNet, whose
     * cp > 1 the strategy check refuses) */
    double cp_a2a, cp_none;
    /* the attention core's batched GEMMs without flash attention (cost/README.md,
     * "Compute"): HBM bytes per token (sharded by tp) of the score matrices they write and
     * read, forward (QK^T writes the scores, the probabilities' product with V reads them)
     * and backward (dP written, P read for dV, dS read for dQ and for dK); the core runs no
     * faster than these bytes at the achieved HBM bandwidth. 0 with flash attention. */
    double c_bytes_f, c_bytes_b;
    /* the backward's HBM traffic of the softmax and dropout on the scores, bytes per token
     * (sharded by tp; 0 with flash attention): softmax backward reads the gradient and the
     * probabilities and writes one (3 x bytes), dropout backward reads the gradient and
     * the mask and writes one (2 x bytes + 1); the rest of the backward's elementwise
     * traffic is bwd_ratio x the forward's */
    double e_score_b;
    /* softmax_fusion_rule (cost/README.md, "The unfused softmax"): where Megatron's fused
     * scale-mask-softmax kernel does not run, the eager fp32 path's extra HBM bytes per
     * token (sharded by tp) forward and backward and its extra saved bytes (the fp32
     * probabilities), and the heads the kernel's batch test counts; all 0 with flash
     * attention or with the rule off */
    double e_sm_fb, e_sm_fb_b, a_sm_fb, sm_heads;
} PrismKKind;

/** Model + cluster + training + knobs, compiled. */
typedef struct PrismKModel {
    const PrismKKind *kinds;
    uint32_t n_kinds;
    double seq;                                /* tokens per sequence */
    double gbs;                                /* sequences per step */
    double bytes_act;                          /* bytes per activation element (dtype) */
    double bytes_param, bytes_grad, bytes_opt; /* per parameter */
    double bytes_grad_comm;                    /* per gradient the DP/ZeRO reduction moves (knob
                                                * grad_reduce_bytes; 0 there: bytes_grad) */
    double inv_rate;      /* s per FLOP: 1 / (peak FLOP/s of the dtype x GEMM efficiency) */
    double inv_hbm;       /* s per byte of HBM traffic: 1 / (bandwidth x hbm_efficiency) */
    double opt_traffic;   /* HBM bytes moved per parameter by one optimizer update */
    double peak_flops;    /* peak FLOP/s of the dtype, per device */
    double bwd_ratio;     /* backward FLOPs / forward FLOPs */
    double hidden_bytes;  /* h x dtype: one token of the residual stream */
    double moe_tok_bytes; /* top_k x capacity x h x dtype of the widest MoE kind */
    /* network levels, innermost first; unused levels repeat the last one */
    double lvl_size[PRISM_K_LEVELS];   /* devices a level joins (+inf for the last) */
    double lvl_inv_bw[PRISM_K_LEVELS]; /* s per byte at the achieved bandwidth */
    double lvl_lat[PRISM_K_LEVELS];    /* s per message */
    /* knobs */
    double tp_exposed, cp_exposed, ep_exposed, dp_exposed, pp_exposed; /* 1 - overlap */
    double tp_exposed_b;     /* backward TP collectives' exposed share (= tp_exposed except
                              * under the userbuffers model, tp_ub_sms > 0) */
    double shared_overlap;   /* 1: shared experts hide the EP all-to-alls of their pass */
    double pp_scatter;       /* 1: p2p sends 1/tp of the activation */
    double zero3_prefetch;   /* layers of gathered parameters held by ZeRO-3 */
    double runtime_bytes;    /* framework workspace per device */
    double accum_traffic;    /* exposed HBM bytes per parameter per micro-batch of gradient
                              * accumulation: 2 x bytes_grad x grad_accum_exposed */
    double bwd_ws;           /* 1: every layer carries a backward working set; 0: only
                              * fully recomputed layers (their rematerialised activations) */
    double budget;           /* bytes available: memory (or budget) - margin */
    double model_flops_step; /* model FLOPs per step (MFU numerator) */
    double exec_flops_step;  /* the same with the attention core as executed (HFU base) */
    /* the shape-aware compute model (cost/README.md, "Compute") */
    PrismKGemmDev gdev;
    double inv_rate_bf16;     /* s per FLOP of a large BF16 GEMM: 1 / (BF16 peak x sustained/boost
                               * clock x GEMM efficiency); inv_rate is the same for the
                               * linear-layer dtype (FP8 recipes: x fp8_gemm_ratio) */
    double low_in_bytes;      /* bytes per GEMM operand element in the linear-layer dtype */
    double core_fwd_inv;      /* s per attention-core FLOP, forward */
    double core_bwd_inv;      /* s per attention-core FLOP counted in the model (bwd_ratio x
                               * forward) in the backward: flash: 2.5 / bwd_ratio / fraction */
    double has_cast;          /* 1: some GEMM pays FP8 casts (PRISM_KG_CAST* not all +0) */
    double cast_x;            /* FP8: HBM bytes per element cast (activations, gradients), at
                                 HBM x hbm_efficiency (MXFP8 with mx_cast_efficiency: scaled) */
    double cast_w;            /* FP8: the same per weight element cast per micro-batch */
    double bytes_param_mem;   /* bytes per parameter held in memory (FP8 weight copies) */
    double exp_param_mem_rel; /* the routed experts' bytes per parameter / bytes_param_mem
                                 (fp8_scope under delayed scaling; else 1: the same bits) */
    /* data parallelism / ZeRO / FSDP (cost/README.md, "FSDP and the distributed optimizer") */
    double fsdp_reshard;   /* 1: ZeRO-3 reshards after forward (gathers again in backward) */
    double sp_gathered;    /* 1: SP keeps the gathered linear inputs (sp_saves_gathered) */
    double tp_layout_copy; /* HBM bytes per byte of an SP collective's volume spent on the
                            * layout copy (tp_layout_copy: 4 = read + write, gather and
                            * scatter side of one all-reduce-equivalent), else 0 */
    double zero3_lowp;     /* 1: ZeRO-3 holds a 16-bit parameter shard besides the master */
    double fsdp_pp_nosync; /* 1: with pp > 1, ZeRO-3 keeps the stage gathered and reduces
                            * the unsharded accumulated gradients once per step */
    double hsdp;           /* 1: ZeRO shards within the node, replicates across (HSDP) */
    double nic_spread;     /* 1: a DP/ZeRO group with k members per node crosses the node
                            * boundary on k NICs (knob nic_spread) */
    double lvl_inv_bw_ag[PRISM_K_LEVELS]; /* s per byte of all-gather / reduce-scatter on a
                                           * level (the level's gather_bw_GBps, else its
                                           * all-reduce figure): SP's TP collectives and
                                           * ZeRO's shard-group ones */
    double zero_exposed;    /* 1: ZeRO >= 1 collectives unhidden (knob zero_sync_exposed) */
    double zero1_allreduce; /* 1: ZeRO-1 all-reduces the whole gradient (knob
                             * zero1_grad_allreduce), else it reduce-scatters the shards */
    double tie_params;      /* tied embeddings: the embedding matrix's parameters (vocab x
                             * hidden, before TP) whose gradients the first and the last
                             * pipeline stage all-reduce once per step when pp > 1; else 0 */
    double dp_bucket;       /* >0: bucketed overlapped grad-reduce / param-gather, params per
                             * bucket; 0: the dp_overlap fraction */
    double dp_bucket_rank;  /* params a bucket holds per DP x CP member when that exceeds
                             * dp_bucket (knob dp_bucket_per_rank; Megatron-Core 1e6) */
    double nccl_share;      /* nccl_sms / S (at most 1; 0 without an SM count): the share of
                             * the SMs a hidden DP/FSDP collective takes from compute */
    /* context parallelism */
    double cp_ulysses;    /* 1: all-to-all (Ulysses) where heads/tp divide by cp, else ring */
    double cp_zigzag;     /* 1: causal load balancing of the ring (zig-zag chunks) */
    double moe_allgather; /* 1: all-gather token dispatcher (moe_dispatcher = 1) */
    double moe_sync;      /* moe_count_sync: 1 = the all-to-all dispatcher's token-count
                           * all-gather and host read, every MoE layer's forward */
    double moe_sync_host; /* s of that host read: (launch_us + host_sync_us) x 1e-6 */
    double cp_skip;       /* executed-causal skip fraction of the attention core (0 without
                           * flash attention: every block is computed) */
    double cp_inv_run;    /* 1/(1 - cp_skip), 0 when cp_skip = 1 */
    double cp_ov;         /* fraction of a ring step's attention compute that hides the
                           * exchange of the next KV chunk (cp_overlap) */
    double cp_bwd_units;  /* KV-sized units a backward ring step carries: the K/V and their
                           * gradients, 2; with cp_dkv_fp32 1 + 4/bytes (bf16: 3) */
    /* offloading to host memory (cost/README.md, "Offloading") */
    double inv_host_link; /* s per byte over the host link (per device, per direction); 0
                           * when the cluster gives no host */
    double inv_host_mem;  /* s per byte of host memory traffic (the CPU optimizer step) */
    double host_budget;   /* host memory bytes per device (0: no host: offload infeasible) */
    double off_keep;      /* layers of one micro-batch activation offload keeps on device */
    /* TP communication overlap's cost (cost/README.md, "Communication overlap"): device
     * bytes of the userbuffers per token of a micro-batch (tp_overlap_buffers x h x
     * dtype), held while TP overlap is on for a lane with tp > 1 and SP */
    double ub_bytes;
    /* persistent TP gather buffers (cost/README.md, "Memory"): device bytes per token of a
     * micro-batch (tp_gather_buffers x h x dtype), held for a lane with tp > 1 and SP
     * whatever the overlap */
    double gb_bytes;
    /* the device-level figure feasibility is decided on (cost/README.md, "Memory as each
     * source measures it"): device = peak x mem_scale + mem_fixed + nccl_group x the
     * lane's NCCL communicators (its tp, cp, dp, ep and pp groups of more than one rank)
     * + the lane's gather pool (gather_units below) */
    double mem_scale, mem_fixed, nccl_group;
    /* the caching allocator's reserve on the transient bytes only (cost/README.md,
     * "Memory as each source measures it"): reserved = peak + (peak - the peak stage's
     * parameters, gradients and optimizer state) x mem_reserve; 0 with expandable segments */
    double mem_reserve;
    /* FSDP2's all-gather pool on the device figure (cost/README.md, "FSDP2's all-gather
     * pool"): knob fsdp_gather_pool, the units of the largest gathered unit a ZeRO-3 lane
     * holds in the all-gather stream's pool (0: none) */
    double gather_units;
    /* the costs small and latency-bound work pays (cost/README.md, "Latency-bound work"):
     * NCCL's ring model for the TP and DP/ZeRO collectives (nccl_on 1; 0: the level's
     * latency_us per step at bus bandwidth), and the host floor of a layer */
    double nccl_on;                     /* 1: collectives priced by kernels-nccl.h */
    double nccl_base[3];                /* s per collective, ring LL / LL128 / Simple */
    double nccl_hop[PRISM_K_LEVELS][3]; /* s per ring step on a level, per protocol */
    double nccl_inv_eff[3];             /* bus-bandwidth divisor per protocol */
    double host_fwd, host_bwd;          /* s of host launches per layer: forward, backward */
    double host_launch; /* s per launch: the host floor's TP collective launches per lane */
    /* softmax_fusion_rule: 1 = test the fused kernel's shape per lane; sm_all 1 when the
     * sequence alone rules it out; sm_inv_bpb 1 / the attention batches the test divides
     * by (4); sm_launch_f/_b s of the unfused path's extra launches per pass */
    double sm_on, sm_all, sm_inv_bpb, sm_launch_f, sm_launch_b;
    double host_sync; /* s a layer's forward waits on its host synchronisations
                       * (layer_host_syncs x (launch_us + host_sync_us)) */
    double mb_host;   /* s a loading stage waits per micro-batch on the host synchronisations
                       * of its load (mb_host_syncs x (launch_us + host_sync_us)) */
    double host_sp_fwd, host_sp_bwd; /* s of launches SP adds per layer at tp > 1 */
    /* gradient copies beside the held gradients (cost/README.md, "Memory"), bytes per
     * parameter, sharded as the gradients: grad_kept the model-dtype gradients until a
     * micro-batch's backward ends (grad_lowp_kept), ddp_copy DDP's bucket copy, held with
     * ZeRO-0 over more than one replica (ddp_grad_copy); 0 when off */
    double grad_kept, ddp_copy;
    /* ZeRO-1/2's gather after the optimizer step (zero1_gather_copies; cost/README.md,
     * "Memory"): gather_p = bytes_p when on, else 0; gather_copies its unsharded flat copies
     * of the stage's parameters, beside one of the rank's shard */
    double gather_p, gather_copies;
} PrismKModel;

/** One slot: a kind and a recompute mode. */
typedef struct PrismKSlot {
    uint32_t kind;
    uint32_t mode; /* PRISM_K_RC_* */
} PrismKSlot;

/** A segment, compiled. Arrays are indexed [comp * n_slots + slot] and
 *  [cand * n_slots + slot]. */
typedef struct PrismKSegment {
    double pp, vpp, inv_vpp, inv_pp, devices;
    double pipelined;  /* 1 when pp > 1 (point-to-point traffic exists) */
    double mfu_num;    /* model FLOPs per step / (devices x peak FLOP/s) */
    double hfu_num;    /* (model + recompute FLOPs per step) / (devices x peak FLOP/s) */
    uint32_t schedule; /* PRISM_K_SCHED_* */
    uint32_t detail;   /* 1: also fill the explain-only slot terms (per-layer static
                        * bytes, time by pass); 0 for the search's segments */
    uint32_t n_slots, n_comp, n_cand;
    const PrismKSlot *slots;
    const double *count;    /* layers of each slot in a stage of the composition */
    const double *mult;     /* stages sharing the composition */
    const double *comp_moe; /* 1 if the composition holds a MoE kind */
    /* NULL, or per composition: s of host synchronisations its optimizer step waits on
     * (step_layer_syncs x its layers x (launch_us + host_sync_us)) */
    const double *comp_step_host;
    const uint32_t *cand_comp;
    const double *cand_stage; /* stage index (the peak-stage column) */
    /* in-flight weights: W = m <= m_cap ? w_cap : m <= m_mid ? w_mid : w_a + w_b * m
     * (interleaved: m_cap = pp, m_mid = 2 pp, the regimes whose schedules visit fewer
     * states; otherwise both -1) */
    const double *w_a, *w_b, *w_cap, *w_mid;
    double m_cap, m_mid;
    /* one micro-batch of each chunk: W is capped at m * w_one (a schedule never holds more
     * than m micro-batches of a chunk; binds only for 1F1B/ZB-H1 with m < pp) */
    const double *w_one;
    const uint8_t *cand_work; /* [cand * n_slots + slot]: the slot is present in the stage
                               * and carries a backward working set (full recompute, or
                               * every mode with bwd_working_set) */
    /* schedule constants (cost_stages.c, fill_kernel_view; derived in cost/README.md):
     * bubble = max(0, bub_sum x sum_s u_s - max_s u_s) x bub_scale, u_s = T_s - bub_w x W_s;
     * m_share: share of the m micro-batches that crosses each chunk of a stage (DualPipe
     * 1/2: one direction each); hide: 1 when a forward and a backward of two micro-batches
     * overlap (DualPipe, DualPipeV), hiding the EP all-to-all behind compute up to the
     * compute time; work_scale: the backward working set per micro-batch (seq1F1B
     * 1/k); pp_msgs: p2p messages per activation sent (seq1F1B k: one per sequence chunk,
     * each paying the latency). Every other schedule: 1, inv_vpp, 0 or 2, 1, 0, 1, 1
     * (bit-identical to before). */
    double bub_sum, bub_scale, bub_w, m_share, hide, work_scale, pp_msgs;
    /* pp_host: s of host synchronisations on each transfer's critical path
     * (pp_p2p_host_syncs x (launch_us + host_sync_us), seq1F1B x its splits); 0 when the
     * framework's p2p reads nothing on the host */
    double pp_host;
    /* pp_tp_msgs, pp_tp_host, pp_tp_gathers: DeepSpeed's partitioned transfer
     * (pp_tp_partitioned), applied at tp > 1 only: messages, s of host synchronisations and
     * all-gathers of the whole activation over TP that each transfer adds; all 0 when off */
    double pp_tp_msgs, pp_tp_host, pp_tp_gathers;
    /* offloading (the key's PrismOffload bits): 1 = the optimizer state / the kept
     * activations live in host memory; both 0: no offload work at all (the same bits) */
    double off_opt, off_act;
} PrismKSegment;

/* Per (lane key, kind) entries of the GEMM table: seconds per micro-batch. */
enum {
    PRISM_KG_FWD = 0,    /* the kind's GEMMs, forward */
    PRISM_KG_DGRAD,      /* input-gradient GEMMs */
    PRISM_KG_WGRAD,      /* weight-gradient GEMMs */
    PRISM_KG_CAST,       /* FP8 casts in forward (inputs, weights) */
    PRISM_KG_CAST_BWD,   /* FP8 casts in backward (output gradients) */
    PRISM_KG_SHARED_FWD, /* of PRISM_KG_FWD: the shared experts' GEMMs */
    PRISM_KG_SHARED_BWD, /* of PRISM_KG_DGRAD + PRISM_KG_WGRAD: the shared experts' */
    PRISM_KG_COUNT
};

/** The lanes of one batch: per-strategy dims as doubles, and the GEMM table. A kind's
 *  GEMM times depend only on (tp, cp, mbs, ep, etp) of a lane, which take few values per
 *  segment, so the evaluator computes them once per distinct key with the shape model
 *  (kernels-gemm.h) and the kernel reads gtab[goff[i] + kind x PRISM_KG_COUNT + j]. */
typedef struct PrismKLanes {
    const double *tp, *cp, *dp, *ep, *sp, *mbs, *m, *zero;
    const int32_t *goff; /* per lane: offset of its key's entries in gtab */
    const double *gtab;  /* [key][kind][PRISM_KG_COUNT] */
    const double *etp;   /* expert tensor parallelism (= tp when tied or dense) */
    /* the overlap options (strategy.h R12): 1 on (the knobs' hidden fractions), 0 off */
    const double *tov, *dov, *pov;
    /* 1: write only the columns a search without a row sink reads (prism_evaluator_set_lean:
     * peak memory, step time and its parts pp/bubble/dp/optimizer/offload, MFU, HFU, tokens/s,
     * feasible, host memory); the breakdowns, FLOPs, bytes per level and the reason are not
     * written. Every written column has the bits of the full run. 2: a floors' run
     * (prism_evaluator_floors): as 1 up to the candidates, then only the final pass's
     * stage-time figures PRISM_KF_TMAX, _USUM and _UMAX; no output column is written. */
    uint32_t lean;
    /* NULL, or per lane (indexed like the columns): the largest static bytes of a peak
     * candidate, (params + grads) + optimizer, summed as the candidate's total starts
     * (so the peak column is >= it bit for bit: the rest of the total is >= 0). The
     * search's exact memory bound (search/README.md, "Pruning"). */
    double *stat;
} PrismKLanes;

/* Workspace layout: term arrays of PRISM_K_TILE doubles. Lane terms first, then
 * PRISM_KS_COUNT per slot, PRISM_KC_COUNT per composition, PRISM_KD_COUNT per
 * candidate and PRISM_KF_COUNT final terms. Every array is a named term that `prism explain` prints
 * (cost_terms.c). */
enum {
    PRISM_KL_INV_TP = 0,
    PRISM_KL_REP,
    PRISM_KL_TOKENS,
    PRISM_KL_INV_EP,
    PRISM_KL_PDIV,
    PRISM_KL_GDIV,
    PRISM_KL_ODIV, /* ZeRO divisors, dense */
    PRISM_KL_PDIV_E,
    PRISM_KL_GDIV_E,
    PRISM_KL_ODIV_E, /* ZeRO divisors, experts */
    PRISM_KL_TP_A,
    PRISM_KL_TP_LAT,
    PRISM_KL_TP_BF,
    PRISM_KL_TP_LVL,
    PRISM_KL_CP_A,
    PRISM_KL_CP_LAT,
    PRISM_KL_CP_BF,
    PRISM_KL_CP_LVL,
    PRISM_KL_EP_A,
    PRISM_KL_EP_LAT,
    PRISM_KL_EP_BF,
    PRISM_KL_EP_LVL,
    PRISM_KL_DP_A,
    PRISM_KL_DP_LAT,
    PRISM_KL_DP_BF,
    PRISM_KL_DPE_A,
    PRISM_KL_DPE_LAT,
    PRISM_KL_DPE_BF,
    PRISM_KL_DP_LVL,
    PRISM_KL_PP_TIME,
    PRISM_KL_PP_BYTES,
    PRISM_KL_PP_LVL,
    PRISM_KL_EP_BUF,
    PRISM_KL_PP_BUF,
    PRISM_KL_SHARD,     /* ZeRO shard group (dp x cp, or its node part with HSDP) */
    PRISM_KL_REPL,      /* HSDP replicas */
    PRISM_KL_DP_BF_R,   /* bytes per param per step across replicas (HSDP all-reduce) */
    PRISM_KL_DP_LVL_R,  /* level of the replica all-reduce and of the expert group */
    PRISM_KL_DP_FB,     /* share of the per-step DP traffic issued in backward windows */
    PRISM_KL_DP_NW,     /* backward windows per step that carry it (ZeRO-2: m) */
    PRISM_KL_FS_AG_A,   /* ZeRO-3 per unit: s per parameter of the all-gather (dense) */
    PRISM_KL_FS_AG_LAT, /* its latency */
    PRISM_KL_FS_RS_A,   /* s per parameter of the reduce-scatter (+ HSDP all-reduce) */
    PRISM_KL_FS_RS_LAT, /* its latency */
    PRISM_KL_FS_AGE_A,  /* the same for expert parameters (group dp*cp/ep) */
    PRISM_KL_FS_AGE_LAT,
    PRISM_KL_FS_RSE_A,
    PRISM_KL_FS_RSE_LAT,
    PRISM_KL_CP_STEP_A,    /* s per byte of one ring step (level of t*c) */
    PRISM_KL_CP_STEP_LAT,  /* latency of one ring step */
    PRISM_KL_CP_A2A_A,     /* s per byte of one all-to-all over cp: (c-1)/c / BW(t*c) */
    PRISM_KL_CP_LB,        /* slowest rank's attention work / mean (causal ring) */
    PRISM_KL_CP_INV,       /* 1/c */
    PRISM_KL_FS_ONCE,      /* ZeRO-3 syncs once per step (fsdp_pp_nosync under a pipeline):
                            * 1/m, else 0 (every micro-batch) */
    PRISM_KL_TP_LAT_LL128, /* NCCL: a TP collective's latency with LL128 (tp_latency: Simple) */
    PRISM_KL_TP_LAT_LL,    /* ... with LL */
    PRISM_KL_TIE_SYNC,     /* tied embeddings under a pipeline: the step's all-reduce of the
                            * embedding gradients between the first and the last stage */
    PRISM_KL_EP_SYNC,      /* moe_count_sync: s per MoE layer forward of the token-count
                            * all-gather over etp x ep and the host read after it */
    PRISM_KL_COUNT
};
enum {
    PRISM_KS_PARAMS = 0,
    PRISM_KS_GRADS,
    PRISM_KS_OPT, /* bytes per device */
    PRISM_KS_NE,
    PRISM_KS_EX, /* parameters per device before ZeRO (dense, experts) */
    PRISM_KS_ACT,
    PRISM_KS_EXTRA, /* activation bytes per micro-batch; backward working set */
    PRISM_KS_COMPUTE,
    PRISM_KS_RECOMP,
    PRISM_KS_WGRAD, /* s per micro-batch */
    PRISM_KS_TP,
    PRISM_KS_CP,
    PRISM_KS_EP,    /* exposed s per micro-batch */
    PRISM_KS_FLOPS, /* executed FLOPs per device per micro-batch */
    PRISM_KS_TP_BYTES,
    PRISM_KS_CP_BYTES,
    PRISM_KS_EP_BYTES, /* per micro-batch */
    PRISM_KS_GATHER,   /* ZeRO-3: bytes of this layer's gathered parameters */
    PRISM_KS_FWD,
    PRISM_KS_BWD,
    PRISM_KS_RC_TIME,      /* s per micro-batch incl. exposed comm */
    PRISM_KS_ELEMWISE,     /* s per micro-batch of memory-bound kernels (in compute) */
    PRISM_KS_OPT_STEP,     /* s per step: optimizer update of this layer's shard */
    PRISM_KS_GRAD_ACCUM,   /* s per micro-batch: gradient accumulation (in compute, W pass) */
    PRISM_KS_GEMM_FWD,     /* s per micro-batch: the kind's GEMMs, forward (shape model) */
    PRISM_KS_GEMM_DGRAD,   /* ... input-gradient GEMMs */
    PRISM_KS_GEMM_WGRAD,   /* ... weight-gradient GEMMs */
    PRISM_KS_CORE_FWD,     /* s per micro-batch: attention core, forward */
    PRISM_KS_CORE_BWD,     /* ... backward */
    PRISM_KS_FP8_CAST,     /* s per micro-batch: FP8 casts (+ transposes, amax), forward */
    PRISM_KS_FP8_CAST_BWD, /* ... backward (output gradients) */
    PRISM_KS_DP_FS,        /* s per micro-batch: exposed ZeRO-3 gather/reduce of this unit */
    PRISM_KS_DP_TAIL,      /* s: the unit's unhidden first gather / last reduce if it leads */
    PRISM_KS_CF,           /* s per micro-batch: the unit's forward wall time (overlap window) */
    PRISM_KS_FS_AG,        /* detail: s of one all-gather of the unit */
    PRISM_KS_FS_RS,        /* detail: s of the backward collectives of the unit */
    PRISM_KS_CP_IMB,       /* detail: s per micro-batch of causal CP load imbalance */
    PRISM_KS_CP_ULY,       /* detail: 1 if the unit's CP runs all-to-all (Ulysses) */
    PRISM_KS_OFFX,         /* s per micro-batch: exposed activation offload copies */
    PRISM_KS_HOST_GAP,     /* s per micro-batch: host launch time beyond the device time (in
                            * compute) */
    PRISM_KS_COUNT
};
enum {
    PRISM_KC_PARAMS = 0,
    PRISM_KC_GRADS,
    PRISM_KC_OPT,
    PRISM_KC_NE,
    PRISM_KC_EX,
    PRISM_KC_GATHER,
    PRISM_KC_BUFFERS,
    PRISM_KC_COMPUTE,
    PRISM_KC_RECOMP,
    PRISM_KC_WGRAD,
    PRISM_KC_TP,
    PRISM_KC_CP,
    PRISM_KC_EP,
    PRISM_KC_TIME,
    PRISM_KC_UNIT,
    PRISM_KC_DP,
    PRISM_KC_FLOPS,
    PRISM_KC_TP_BYTES,
    PRISM_KC_CP_BYTES,
    PRISM_KC_EP_BYTES,
    PRISM_KC_BYTES_L0,
    PRISM_KC_BYTES_L1,
    PRISM_KC_BYTES_L2,
    PRISM_KC_BYTES_L3,
    PRISM_KC_OPT_STEP,
    PRISM_KC_DP_FS,   /* sum over layers of the exposed ZeRO-3 collectives, s/mb */
    PRISM_KC_DP_TAIL, /* max over layers of the leading unit's unhidden part, s/mb */
    PRISM_KC_CF,      /* sum over layers of the forward wall time, s/mb */
    PRISM_KC_HOST,    /* offload: optimizer bytes in host memory (state + gradient copy) */
    PRISM_KC_XFER,    /* offload: s per step of the optimizer's host-link transfers */
    PRISM_KC_OFFX,    /* offload: exposed activation copies, s/mb (in KC_TIME) */
    PRISM_KC_COUNT
};
enum {
    PRISM_KD_ACT = 0,
    PRISM_KD_WORK,
    PRISM_KD_TOTAL,
    PRISM_KD_HOST, /* offload: host bytes of the state */
    PRISM_KD_KEEP, /* activation offload: the largest layer's activations per micro-batch */
    PRISM_KD_COUNT
};
/* Final scratch terms: slowest stage time, sum and max of the bubble units, max DP,
 * the slowest stage's per-micro-batch ZeRO-3 exposure. */
enum {
    PRISM_KF_TMAX = 0,
    PRISM_KF_USUM,
    PRISM_KF_UMAX,
    PRISM_KF_DPMAX,
    PRISM_KF_FSDP,  /* the slowest stage's ZeRO-3 exposure per micro-batch */
    PRISM_KF_OFFX,  /* the slowest stage's exposed activation copies per micro-batch */
    PRISM_KF_TOFF,  /* scratch: the running slowest stage time of that selection */
    PRISM_KF_PSTAT, /* the persistent bytes (params + grads + optimizer) of the peak stage */
    PRISM_KF_GPOOL, /* ZeRO-3: gather_units x the largest unit's gathered bytes (else 0) */
    PRISM_KF_COUNT
};

/* Output columns; the same order as PrismCostCol in <prism/cost.h> (cost_eval.c checks). */
enum {
    PRISM_KO_MEM_PARAMS = 0,
    PRISM_KO_MEM_GRADS,
    PRISM_KO_MEM_OPTIMIZER,
    PRISM_KO_MEM_ACTIVATIONS,
    PRISM_KO_MEM_COMM_BUFFERS,
    PRISM_KO_MEM_PEAK,
    PRISM_KO_PEAK_STAGE,
    PRISM_KO_TIME_COMPUTE,
    PRISM_KO_TIME_RECOMPUTE,
    PRISM_KO_TIME_TP_COMM,
    PRISM_KO_TIME_CP_COMM,
    PRISM_KO_TIME_EP_COMM,
    PRISM_KO_TIME_DP_COMM,
    PRISM_KO_TIME_PP_COMM,
    PRISM_KO_TIME_BUBBLE,
    PRISM_KO_TIME_STEP,
    PRISM_KO_MFU,
    PRISM_KO_HFU,
    PRISM_KO_TOKENS_PER_S,
    PRISM_KO_FLOPS_PER_DEVICE,
    PRISM_KO_BYTES_L0,
    PRISM_KO_BYTES_L1,
    PRISM_KO_BYTES_L2,
    PRISM_KO_BYTES_L3,
    PRISM_KO_FEASIBLE,
    PRISM_KO_REASON,
    PRISM_KO_TIME_OPTIMIZER,
    PRISM_KO_TIME_OFFLOAD,
    PRISM_KO_MEM_HOST,
    PRISM_KO_COUNT
};

static inline size_t prism_k_ws_arrays(const PrismKSegment *ks)
{
    return PRISM_KL_COUNT + (size_t)ks->n_slots * PRISM_KS_COUNT +
           (size_t)ks->n_comp * PRISM_KC_COUNT + (size_t)ks->n_cand * PRISM_KD_COUNT +
           PRISM_KF_COUNT;
}

/** The kernel signature every ISA implements. out[c] receives column c (PRISM_COL_*). */
typedef void (*PrismKernelFn)(const PrismKModel *km, const PrismKSegment *ks,
                              const PrismKLanes *lanes, size_t n, double *const *out, double *ws);

#endif /* PRISM_KERNELS_MODEL_H */
