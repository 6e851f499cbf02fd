/*
 * knobs.h - every constant of the cost model is a named runtime knob.
 *
 * A knob has a name, a default, a unit, an allowed range, a one-line doc and the citation
 * of its default (`prism knobs` lists them; `prism knobs --sources` the citations). Defaults come
 * from documented physical reasoning or published figures (cost/README.md), never from fitting a
 * row of validation data. Values are overridden with --set name=value (repeatable) and --knobs FILE
 * (a GLib key file with a [knobs] group), and every output records the values used. The knob list
 * itself is defined in cost/cost_knobs.c. Nothing here is collective.
 */
#ifndef PRISM_KNOBS_H
#define PRISM_KNOBS_H

#include <stddef.h>

#include <glib.h>

G_BEGIN_DECLS

/** Knob ids; the table in cost/cost_knobs.c gives names, defaults, units and docs. */
typedef enum {
    PRISM_KNOB_COMPUTE_EFFICIENCY = 0, /**< large-GEMM fraction of the sustained-clock peak
                                            (0 = the device's) */
    PRISM_KNOB_NET_EFFICIENCY,         /**< achieved fraction of link bandwidth */
    PRISM_KNOB_TP_OVERLAP,             /**< fraction of TP communication hidden */
    PRISM_KNOB_CP_OVERLAP,             /**< fraction of CP communication hidden */
    PRISM_KNOB_EP_OVERLAP,             /**< fraction of EP all-to-all hidden */
    PRISM_KNOB_DP_OVERLAP,             /**< fraction of DP/ZeRO communication hidden */
    PRISM_KNOB_PP_OVERLAP,             /**< fraction of PP point-to-point hidden */
    PRISM_KNOB_FLASH_ATTENTION,        /**< 1 = flash attention (no s^2 activations) */
    PRISM_KNOB_GRAD_FP32,              /**< 1 = gradients accumulated in fp32 */
    PRISM_KNOB_MEM_MARGIN,             /**< bytes kept free on each device */
    PRISM_KNOB_RUNTIME_OVERHEAD,       /**< bytes of context/workspace per device */
    PRISM_KNOB_DROPOUT,                /**< 1 = dropout masks stored (1 byte/element) */
    PRISM_KNOB_CAUSAL_SKIP,            /**< attention-core FLOPs skipped by causal flash */
    PRISM_KNOB_LOGITS_BYTES,           /**< bytes per logit kept for the loss */
    PRISM_KNOB_MOE_IMBALANCE,          /**< busiest-expert load / mean load (dropless) */
    PRISM_KNOB_ZERO3_PREFETCH,         /**< layers of gathered parameters held by ZeRO-3 */
    PRISM_KNOB_BWD_RATIO,              /**< backward FLOPs / forward FLOPs */
    PRISM_KNOB_PP_SCATTER,             /**< 1 = p2p sends 1/tp of an activation */
    PRISM_KNOB_HBM_GBPS,               /**< device memory bandwidth; 0 = by device */
    PRISM_KNOB_HBM_EFFICIENCY,         /**< achieved fraction of memory bandwidth */
    PRISM_KNOB_GRAD_ACCUM_EXPOSED,     /**< share of gradient accumulation traffic exposed */
    PRISM_KNOB_BWD_WORKING_SET,        /**< 1 = every layer's backward has a working set */
    PRISM_KNOB_FP8_GEMM_RATIO,         /**< large FP8 GEMM rate / (2 x large BF16 GEMM rate) */
    PRISM_KNOB_GEMM_QUANTISATION,      /**< 1 = tile and wave quantisation of GEMMs */
    PRISM_KNOB_ATTN_FWD_FRACTION,      /**< flash-attention forward fraction; 0 = device's */
    PRISM_KNOB_ATTN_BWD_FRACTION,      /**< flash-attention backward fraction; 0 = device's */
    PRISM_KNOB_FSDP_RESHARD,           /**< 1 = ZeRO-3 reshards parameters after forward */
    PRISM_KNOB_HSDP,                   /**< 1 = ZeRO shards within a node, replicates across */
    PRISM_KNOB_DP_BUCKET,              /**< params per overlapped DP bucket; 0 = dp_overlap */
    PRISM_KNOB_CP_ALGO,                /**< 0 = ring attention, 1 = all-to-all (Ulysses) */
    PRISM_KNOB_CP_LOAD_BALANCE,        /**< 1 = zig-zag causal load balancing of the ring */
    PRISM_KNOB_SEQ1F1B_SPLITS,         /**< sequence chunks per micro-batch (seq1f1b) */
    PRISM_KNOB_MOE_DISPATCHER,         /**< 0 = all-to-all token dispatcher, 1 = all-gather */
    PRISM_KNOB_SELECTIVE_POLICY,       /**< selective recompute: 0 = Korthikanti (attention
                                            core), 1 = per-op SAC (torchtitan "op"), 2 = per-op
                                            SAC with SDPA recomputed (not on the list) */
    PRISM_KNOB_LOSS_BWD_EXTRA,         /**< logit copies live in the loss backward beyond
                                            the working set's one (eager cross-entropy 1) */
    PRISM_KNOB_ELEMENTWISE_EAGER,      /**< 1 = eager PyTorch's op-by-op norm/RoPE/SwiGLU
                                            HBM passes; 0 = fused kernels */
    PRISM_KNOB_FSDP_PP_NOSYNC,         /**< 1 = with pp > 1, ZeRO-3 keeps the stage gathered
                                            and reduces the accumulated gradients once */
    PRISM_KNOB_TP_LAYOUT_COPY,         /**< 1 = each SP collective also copies its full
                                            tensor through HBM (gather/scatter on dim 1) */
    PRISM_KNOB_ZERO3_LOWP_SHARD,       /**< 1 = ZeRO-3 also holds a low-precision shard of
                                            the parameters (0: FSDP2, the fp32 shard only) */
    PRISM_KNOB_SP_SAVES_GATHERED,      /**< 1 = SP keeps the gathered input of column-parallel
                                            linears for backward (PyTorch DTensor) */
    PRISM_KNOB_TP_OVERLAP_BUFFERS,     /**< full-sequence userbuffers TP overlap holds */
    PRISM_KNOB_NIC_SPREAD,             /**< 1 = a DP/FSDP group with k members per node
                                            crosses nodes on k NICs (1/k of the time) */
    PRISM_KNOB_SHARED_EXPERT_OVERLAP,  /**< 1 = shared experts run beside the EP dispatch and
                                            combine (Megatron-Core moe_shared_expert_overlap) */
    PRISM_KNOB_RECOMPUTE_MOE_ACT,      /**< 1 = recompute = selective also recomputes the
                                            routed experts' activation function (moe_act) */
    PRISM_KNOB_MFU_CORE,               /**< MFU's attention core: 0 = as executed (half with
                                            causal flash attention), 1 = full, 2 = half */
    PRISM_KNOB_FP8_SCOPE,              /**< FP8 recipes: 0 = every linear GEMM in FP8, 1 = the
                                            dense linears only, 2 = the routed experts only */
    PRISM_KNOB_MX_CAST_PASSES,         /**< MXFP8 casts: 1 = one fused kernel writes both
                                            layouts, 2 = a kernel per layout (torchao) */
    PRISM_KNOB_MX_CAST_EFFICIENCY,     /**< MXFP8 cast kernels' fraction of the HBM bandwidth
                                            (0 = hbm_efficiency) */
    PRISM_KNOB_KV_REPEAT,              /**< 1 = GQA's K/V heads repeated to the query heads
                                            before attention (torchtitan's repeat_kv) */
    PRISM_KNOB_CP_DKV_FP32,            /**< 1 = the CP ring passes dK/dV in fp32 (PyTorch) */
    PRISM_KNOB_NCCL_MODEL,             /**< 1 = TP and DP/ZeRO collectives priced by NCCL's
                                            tuning model (base + hop latency per protocol) */
    PRISM_KNOB_LAUNCH_US,              /**< host time to launch one kernel, microseconds */
    PRISM_KNOB_LAYER_KERNELS_FWD,      /**< a layer's forward launches, TP aside */
    PRISM_KNOB_LAYER_KERNELS_BWD,      /**< a layer's backward launches, TP aside */
    PRISM_KNOB_LAYER_KERNELS_SP_FWD,   /**< forward launches SP at tp > 1 adds per layer */
    PRISM_KNOB_LAYER_KERNELS_SP_BWD,   /**< backward launches SP at tp > 1 adds per layer */
    PRISM_KNOB_DP_BUCKET_PER_RANK,     /**< params per DP x CP member a DP bucket grows by
                                            (Megatron-Core max(4e7, 1e6 x dp_cp)) */
    PRISM_KNOB_TP_UB_SMS,              /**< SMs a pipelined / bulk userbuffers overlap takes
                                            from its GEMM (TE 16); 0 = the tp_overlap fraction */
    PRISM_KNOB_TP_UB_SPLITS,           /**< chunks of a pipelined userbuffers reduce-scatter
                                            (TE num_splits 4); the last one is exposed */
    PRISM_KNOB_NCCL_SMS,               /**< SMs an NCCL DP/FSDP collective holds while it
                                            overlaps compute (16 on a DGX with 8 NICs) */
    PRISM_KNOB_NVFP4_BF16_LAYERS,      /**< NVFP4, MXFP4: transformer layers whose linear GEMMs
                                            stay BF16 (NVIDIA's recipe: the first 2 and last 8) */
    PRISM_KNOB_CUDA_CONTEXT,           /**< bytes of the CUDA context outside the allocator */
    PRISM_KNOB_NCCL_CHANNELS,          /**< NCCL channels per communicator */
    PRISM_KNOB_NCCL_CONN_BYTES,        /**< NCCL buffer bytes per channel per peer */
    PRISM_KNOB_ALLOCATOR_RESERVE,      /**< caching allocator: reserved / allocated - 1
                                            without expandable segments */
    PRISM_KNOB_EXPANDABLE_SEGMENTS,    /**< 1 = PYTORCH_CUDA_ALLOC_CONF expandable_segments */
    PRISM_KNOB_RECOMPUTE_NORM,         /**< 1 = recompute = selective also drops the two
                                            pre-norms' outputs (--recompute-modules layernorm) */
    PRISM_KNOB_RECOMPUTE_MLA_UP,       /**< 1 = ... drops MLA's up-projection outputs (Q, K, V)
                                            and normed latents (--recompute-modules mla_up_proj) */
    PRISM_KNOB_ACT_CACHE_FP8,          /**< 1 = linear inputs kept in FP8, MoE SwiGLU inputs
                                            in FP8 with the output recomputed (DeepSeek-V3) */
    PRISM_KNOB_MOE_PROBS_IN_ACT,       /**< 1 = the routing probabilities scale the experts'
                                            activation (before fc2): the combine keeps no
                                            expert output (TE moe_permute_with_probs) */
    PRISM_KNOB_ADAM_MOMENT_BYTES,      /**< bytes per Adam moment (4 fp32; 2 BF16, DeepSeek-V3) */
    PRISM_KNOB_EP_A2A_OVERLAP,         /**< 1 = the EP all-to-all runs under another
                                            micro-batch's compute (Megatron-Core
                                            --overlap-moe-expert-parallel-comm) */
    PRISM_KNOB_GRAD_REDUCE_BYTES,      /**< bytes per gradient the DP/ZeRO reduction moves
                                            (0 = the gradient's: 4 with grad_fp32, else dtype) */
    PRISM_KNOB_GEMM_TILE_US,           /**< a GEMM tile's fixed time (fill, epilogue), us */
    PRISM_KNOB_GEMM_EFF_K,             /**< reduction depth of the GEMMs gemm_efficiency was
                                            measured at */
    PRISM_KNOB_ZERO_SYNC_EXPOSED,      /**< 1: with ZeRO >= 1 the DP collectives run after
                                            backward and the optimizer step, unhidden */
    PRISM_KNOB_PP_P2P_MSGS,            /**< point-to-point messages per pipeline transfer */
    PRISM_KNOB_LOSS_BYTES,             /**< HBM bytes the loss moves per logit element, forward
                                            and backward (0 = a fused cross-entropy's) */
    PRISM_KNOB_LAYOUT_COPIES,          /**< query-width tensors a layer copies for layout
                                            (permute + contiguous, cat), both passes */
    PRISM_KNOB_ZERO1_GRAD_ALLREDUCE,   /**< 1: ZeRO-1 all-reduces the whole gradient (not a
                                            reduce-scatter of the shards) */
    PRISM_KNOB_GRAD_LOWP_KEPT,         /**< 1 = the model-dtype gradients stay beside the fp32
                                            accumulation buffer until a micro-batch's backward
                                            ends (nanotron FP32GradientAccumulator) */
    PRISM_KNOB_DDP_GRAD_COPY,          /**< 1 = with ZeRO-0 over more than one replica, torch
                                            DDP's buckets hold a copy of every gradient */
    PRISM_KNOB_SWIGLU_UNFUSED,         /**< 1 = SwiGLU runs as silu then multiply: the silu
                                            output is kept beside its input */
    PRISM_KNOB_PP_P2P_HOST_SYNCS,      /**< host synchronisations (device-to-host reads,
                                            blocking copies) per pipeline transfer */
    PRISM_KNOB_HOST_SYNC_US,           /**< us per host synchronisation beyond its eager
                                            op's launch_us: the blocking copy */
    PRISM_KNOB_ZERO1_GATHER_COPIES,    /**< unsharded flat copies of the stage's 16-bit
                                            parameters ZeRO-1/2's post-step gather holds */
    PRISM_KNOB_GROUPED_GEMM_RATIO,     /**< the routed experts' grouped GEMMs' compute rate
                                            over the dense large-GEMM rate of their dtype */
    PRISM_KNOB_LAYER_HOST_SYNCS,       /**< host synchronisations in a layer's forward
                                            (blocking host-to-device copies, host reads) */
    PRISM_KNOB_MOE_COUNT_SYNC,         /**< 1 = the all-to-all dispatcher all-gathers its
                                            per-expert token counts over the ETP x EP group
                                            and reads them on the host, every MoE layer's
                                            forward */
    PRISM_KNOB_FSDP_GATHER_POOL,       /**< ZeRO-3 units' gathered parameters the all-gather
                                            stream's allocator pool keeps reserved (FSDP2 2) */
    PRISM_KNOB_TP_GATHER_BUFFERS,      /**< full-sequence gather buffers a framework keeps
                                            allocated under TP with SP (nanotron's
                                            MemoryBuffer: 2) */
    PRISM_KNOB_SOFTMAX_FUSION_RULE,    /**< 1 = Megatron's fused scale-mask-softmax runs only
                                            where its kernel's shape condition holds, else
                                            the eager fp32 path (unfused_softmax) */
    PRISM_KNOB_MB_HOST_SYNCS,          /**< host synchronisations of loading one micro-batch
                                            on the stages that load it (the first and the
                                            last) */
    PRISM_KNOB_STEP_LAYER_SYNCS,       /**< host synchronisations per layer of a stage in
                                            each optimizer step (a gradient norm read per
                                            parameter tensor) */
    PRISM_KNOB_TP_FREED_INPUTS,        /**< full-sequence TP collective inputs a layer frees
                                            while NCCL still holds them (recordStream;
                                            nanotron 4) */
    PRISM_KNOB_LAUNCH_QUEUE,           /**< kernel launches a CUDA stream queues before the
                                            host blocks (about 1,000) */
    PRISM_KNOB_STEP_HOST_SYNCS,        /**< host synchronisations of each stage's optimizer
                                            step and training loop, per step (Megatron-LM
                                            2021/2022 under fp16: 4) */
    PRISM_KNOB_PP_TP_PARTITIONED,      /**< 1 = at tp > 1 a pipeline transfer is a partitioned
                                            tensor (DeepSpeed's pipe/grad_partitioned): a
                                            meta message and its blocking copy more, the
                                            receiver all-gathers the activation over TP */
    PRISM_KNOB_COUNT
} PrismKnobId;

typedef struct PrismKnobInfo {
    const char *name; /**< "compute_efficiency" */
    double def;
    double min, max;    /**< allowed range, inclusive */
    const char *unit;   /**< "fraction", "bytes", "bool", ... */
    const char *doc;    /**< one line */
    const char *source; /**< the default's citation, "KIND: WHERE" (core.h, prism_source_parse) */
} PrismKnobInfo;

/** The values of every knob. Plain data. */
typedef struct PrismKnobs {
    double v[PRISM_KNOB_COUNT];
} PrismKnobs;

/** Static description of knob @p id. */
const PrismKnobInfo *prism_knob_info(PrismKnobId id);
/** Look up a knob by name; FALSE with PRISM_INPUT_ERROR_UNKNOWN_NAME (close names listed). */
gboolean prism_knob_lookup(const char *name, PrismKnobId *out, GError **error);

void prism_knobs_default(PrismKnobs *knobs);
/** Apply "name=value". Errors name the knob, the value and the allowed range. */
gboolean prism_knobs_set(PrismKnobs *knobs, const char *assignment, GError **error);
/** Apply a key file's [knobs] group. Errors name the file, key and value. */
gboolean prism_knobs_load_file(PrismKnobs *knobs, const char *path, GError **error);
/** {"name": value, ...} in table order. Ownership: g_free(). */
char *prism_knobs_to_json(const PrismKnobs *knobs);

/** compute_efficiency where the knob and the device give none: cuBLAS on A100/H100. */
#define PRISM_GEMM_EFFICIENCY_FALLBACK 0.8

/**
 * The large-GEMM efficiency the cost model prices with: the compute_efficiency knob where
 * set (> 0), else the device's published figure @p device_eff (PrismCluster
 * gemm_efficiency, > 0), else PRISM_GEMM_EFFICIENCY_FALLBACK.
 */
static inline double prism_knobs_gemm_efficiency(const PrismKnobs *knobs, double device_eff)
{
    const double k = knobs->v[PRISM_KNOB_COMPUTE_EFFICIENCY];
    return k > 0 ? k : device_eff > 0 ? device_eff : PRISM_GEMM_EFFICIENCY_FALLBACK;
}

/**
 * The large-GEMM efficiency of the NVFP4 GEMMs (cost/README.md, "NVFP4"): the device's
 * published NVFP4 figure @p device_nvfp4 (PrismCluster gemm_eff_nvfp4, > 0); with the
 * compute_efficiency knob set, the knob scaled by the device's NVFP4 / BF16 ratio (as
 * fp8_gemm_ratio scales the FP8 rate); without an NVFP4 figure the BF16 efficiency above.
 * At most 1.
 */
static inline double prism_knobs_gemm_efficiency_nvfp4(const PrismKnobs *knobs, double device_eff,
                                                       double device_nvfp4)
{
    const double k = knobs->v[PRISM_KNOB_COMPUTE_EFFICIENCY];
    if (!(device_nvfp4 > 0))
        return prism_knobs_gemm_efficiency(knobs, device_eff);
    if (!(k > 0))
        return device_nvfp4;
    const double bf16 = device_eff > 0 ? device_eff : PRISM_GEMM_EFFICIENCY_FALLBACK;
    const double r = k * (device_nvfp4 / bf16);
    return r < 1.0 ? r : 1.0;
}

/**
 * The knobs a user gave (--set, --knobs) and which ones: what is laid over a framework
 * profile's knobs where the profile is chosen per run (`prism validate`, the track
 * record). A knob set to its default value still overrides the profile's. Plain data.
 */
typedef struct PrismKnobOverrides {
    PrismKnobs knobs;               /**< the defaults, with the given values */
    gboolean set[PRISM_KNOB_COUNT]; /**< TRUE where a value was given */
} PrismKnobOverrides;

/** No override: every knob at its default, none marked. */
void prism_knob_overrides_init(PrismKnobOverrides *o);
/** prism_knobs_set() that also marks the knob. */
gboolean prism_knob_overrides_set(PrismKnobOverrides *o, const char *assignment, GError **error);
/** prism_knobs_load_file() that also marks every knob of the file. */
gboolean prism_knob_overrides_load_file(PrismKnobOverrides *o, const char *path, GError **error);
/** Copy the marked knobs into @p knobs (@p o NULL: nothing). */
void prism_knob_overrides_apply(const PrismKnobOverrides *o, PrismKnobs *knobs);

G_END_DECLS

#endif /* PRISM_KNOBS_H */
