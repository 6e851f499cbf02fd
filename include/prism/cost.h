/*
 * cost.h - the symbolic cost model: compile once, evaluate batches of strategies.
 *
 * Flow:
 *   PrismCostModel   = model IR + cluster + training + knobs, compiled to per-layer-kind
 *                      constants (parameters, activation and FLOP coefficients, ...).
 *   PrismCostSegment = the STRUCTURAL part of a strategy (devices, pp, vpp, schedule,
 *                      recompute, k): which layer kinds sit on which stage and chunk, and
 *                      how many micro-batches each chunk holds in flight. The search
 *                      orders its index so that long runs of strategies share a segment.
 *   PrismLanes       = the per-strategy dims inside a segment (tp, cp, dp, ep, sp, mbs,
 *                      m, zero) as structure-of-arrays of doubles.
 *   PrismEvaluator   = a kernel table (ISA) + workspace; computes every output column
 *                      for a batch of lanes with straight-line arithmetic.
 *
 * The scalar kernel is the reference: every ISA gives bit-identical columns, and
 * `prism explain` evaluates through the same kernel code (explain.h), so explain and the
 * search always agree exactly. Nothing here is collective; an evaluator is not thread-safe
 * (one per worker), models and segments are read-only after creation.
 */
#ifndef PRISM_COST_H
#define PRISM_COST_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cluster.h>
#include <prism/knobs.h>
#include <prism/model.h>
#include <prism/strategy.h>
#include <prism/training.h>

G_BEGIN_DECLS

/** Output columns of the cost kernel, one double per strategy each. Append-only. */
typedef enum {
    PRISM_COL_MEM_PARAMS = 0,   /**< bytes, peak stage: parameters */
    PRISM_COL_MEM_GRADS,        /**< bytes, peak stage: gradients */
    PRISM_COL_MEM_OPTIMIZER,    /**< bytes, peak stage: optimizer state */
    PRISM_COL_MEM_ACTIVATIONS,  /**< bytes, peak stage: in-flight activations */
    PRISM_COL_MEM_COMM_BUFFERS, /**< bytes, peak stage: communication buffers */
    PRISM_COL_MEM_PEAK,         /**< bytes: max over stages of the total */
    PRISM_COL_PEAK_STAGE,       /**< index of the stage that sets the peak */
    PRISM_COL_TIME_COMPUTE,     /**< s per step: forward + backward compute (critical path) */
    PRISM_COL_TIME_RECOMPUTE,   /**< s per step: recompute */
    PRISM_COL_TIME_TP_COMM,     /**< s per step: exposed TP communication */
    PRISM_COL_TIME_CP_COMM,     /**< s per step: exposed CP communication */
    PRISM_COL_TIME_EP_COMM,     /**< s per step: exposed EP all-to-all */
    PRISM_COL_TIME_DP_COMM,     /**< s per step: exposed DP / ZeRO communication */
    PRISM_COL_TIME_PP_COMM,     /**< s per step: exposed PP point-to-point */
    PRISM_COL_TIME_BUBBLE,      /**< s per step: pipeline bubble */
    PRISM_COL_TIME_STEP,        /**< s per step */
    PRISM_COL_MFU,              /**< model FLOPs / (step * N * peak) */
    PRISM_COL_HFU,              /**< hardware FLOPs (with recompute) / (step * N * peak) */
    PRISM_COL_TOKENS_PER_S,     /**< tokens per second, whole job */
    PRISM_COL_FLOPS_PER_DEVICE, /**< hardware FLOPs per device per step (busiest stage) */
    PRISM_COL_BYTES_L0,         /**< bytes per device per step on network level 0 */
    PRISM_COL_BYTES_L1,
    PRISM_COL_BYTES_L2,
    PRISM_COL_BYTES_L3,
    PRISM_COL_FEASIBLE,       /**< 1 = fits in memory, 0 = does not */
    PRISM_COL_REASON,         /**< PrismReason */
    PRISM_COL_TIME_OPTIMIZER, /**< s per step: optimizer update (slowest stage), in the step */
    PRISM_COL_TIME_OFFLOAD,   /**< s per step: exposed host-link transfers (offload) */
    PRISM_COL_MEM_HOST,       /**< bytes per device in host memory (offload), peak state */
    PRISM_COL_COUNT
} PrismCostCol;

/** Why a strategy is infeasible. Append-only. */
typedef enum {
    PRISM_REASON_OK = 0,
    PRISM_REASON_MEM_STATIC = 1,      /**< parameters + gradients + optimizer exceed the budget */
    PRISM_REASON_MEM_ACTIVATIONS = 2, /**< static fits, in-flight activations do not */
    PRISM_REASON_MEM_BUFFERS = 3,     /**< static + activations fit, comm buffers do not */
    PRISM_REASON_MEM_HOST = 4,        /**< the device fits; what is offloaded exceeds the
                                           host memory per device (or the cluster has none) */
    PRISM_REASON_COUNT
} PrismReason;

/** How a column is stored in the HDF5 landscape. */
typedef enum {
    PRISM_STORE_F64 = 0,
    PRISM_STORE_F32 = 1,
    PRISM_STORE_U8 = 2,
    PRISM_STORE_U16 = 3,
    PRISM_STORE_U32 = 4,
} PrismStore;

typedef struct PrismColInfo {
    const char *name; /**< "mem_peak", "time_step", "mfu", ... */
    const char *unit; /**< "bytes", "s", "fraction", "1/s", "FLOP", "code" */
    const char *doc;
    PrismStore store;
} PrismColInfo;

const PrismColInfo *prism_col_info(PrismCostCol col);
/** Look up a column by name. Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME with close names. */
gboolean prism_col_lookup(const char *name, PrismCostCol *out, GError **error);
/** Static names: "ok", "mem_static", "mem_activations", "mem_buffers", "mem_host". */
const char *prism_reason_name(PrismReason reason);

typedef struct PrismCostModel PrismCostModel;
typedef struct PrismCostSegment PrismCostSegment;
typedef struct PrismEvaluator PrismEvaluator;
typedef struct PrismKernelTable PrismKernelTable;

/**
 * Compile model + cluster + training + knobs. Copies what it needs; the inputs may be
 * freed afterwards. Errors: PRISM_INPUT_ERROR_VALUE (dtype unsupported by the device,
 * seq longer than the model allows, ...). Ownership: prism_cost_model_free().
 */
PrismCostModel *prism_cost_model_new(const PrismModel *model, const PrismCluster *cluster,
                                     const PrismTraining *training, const PrismKnobs *knobs,
                                     GError **error);
void prism_cost_model_free(PrismCostModel *cm);
const PrismModel *prism_cost_model_model(const PrismCostModel *cm);
const PrismCluster *prism_cost_model_cluster(const PrismCostModel *cm);
const PrismTraining *prism_cost_model_training(const PrismCostModel *cm);
const PrismKnobs *prism_cost_model_knobs(const PrismCostModel *cm);
/**
 * The per-setup constants of the derived columns: mfu = flops_per_step / (devices x
 * peak_flops) x (1 / step_time), tokens_per_s = tokens_per_step x (1 / step_time), each
 * formed in double exactly as the kernel forms them (so a reader that stores step_time
 * and these recomputes the kernel's values bit for bit). Model FLOPs per step (MFU
 * convention), the per-device peak MFU is taken against (FLOP/s), gbs x seq.
 */
double prism_cost_model_flops_per_step(const PrismCostModel *cm);
double prism_cost_model_peak_flops(const PrismCostModel *cm);
double prism_cost_model_tokens_per_step(const PrismCostModel *cm);
/** Memory budget in bytes (training override or device memory) before the margin. */
double prism_cost_model_budget(const PrismCostModel *cm);
/** The bytes the device-level figure is compared with: the budget less the knob mem_margin
 *  (a strategy is feasible when prism_cost_memory_kinds' device is <= this, bit for bit). */
double prism_cost_model_usable(const PrismCostModel *cm);
/**
 * Memory as each source measures it (cost/README.md, "Memory as each source measures
 * it"), for a strategy whose allocated peak (a PRISM_COL_MEM_PEAK value, or one stage's
 * from prism_cost_stage_peaks) and that stage's persistent bytes (its parameters, gradients
 * and optimizer state: prism_cost_persistent of a column row) are known. Bytes.
 */
typedef struct PrismMemKinds {
    double allocated; /**< torch.cuda.max_memory_allocated: the modelled peak as given */
    double reserved;  /**< max_memory_reserved: allocated + (allocated - persistent) x
                           allocator_reserve (the reserve on the transient bytes only), or
                           with expandable_segments allocated + one 20 MiB and one 2 MiB page */
    double
        device; /**< nvidia-smi: the reserved figure (with gather_pool, tp_pending) + cuda_context
                     + nccl; feasible when it is <= prism_cost_model_usable (the
                     kernels' verdict, bit for bit) */
    double context;     /**< of device: the CUDA context (knob cuda_context) */
    double nccl;        /**< of device: NCCL's buffers, 2 x nccl_channels x nccl_conn_bytes per
                             tp, cp, dp, ep and pp group of more than one rank */
    double gather_pool; /**< of reserved and device: ZeRO-3's gathered units held in the
                             all-gather stream's own pool, fsdp_gather_pool x the model's
                             largest unit's gathered bytes (0 below ZeRO-3) */
    double tp_pending;  /**< of reserved and device: freed TP collective inputs the caching
                             allocator cannot reuse until the host sees their collective done
                             (recordStream), tp_freed_inputs x launch_queue / the layer's
                             launches x T x h x bytes at tp > 1 (0 at pp > 1 when the
                             pipeline's transfers wait on the host) */
} PrismMemKinds;

/** The three kinds of @p allocated, of which @p persistent bytes are persistent state, for
 *  strategy @p s under @p cm's knobs. Pure. */
void prism_cost_memory_kinds(const PrismCostModel *cm, const PrismStrategy *s, double allocated,
                             double persistent, PrismMemKinds *out);

/** The persistent bytes of a column row's peak stage: PRISM_COL_MEM_PARAMS + _GRADS +
 *  _OPTIMIZER, summed in the kernel's order (the figure its verdict uses). */
static inline double prism_cost_persistent(const double *cols)
{
    return cols[PRISM_COL_MEM_PARAMS] + cols[PRISM_COL_MEM_GRADS] + cols[PRISM_COL_MEM_OPTIMIZER];
}

/** The largest allocated peak whose device figure fits prism_cost_model_usable for @p s
 *  when none of it is persistent (a floor of the limit: persistent bytes take no reserve). */
double prism_cost_allocated_limit(const PrismCostModel *cm, const PrismStrategy *s);

/** Host memory per device that offloading may use, bytes: the cluster's host memory when it
 *  gives the host link, memory and bandwidth, else 0 (nothing can be offloaded). */
double prism_cost_model_host_budget(const PrismCostModel *cm);

/** The structural part of a strategy (see file comment). */
typedef struct PrismSegmentKey {
    uint32_t devices;
    uint32_t pp;
    uint32_t vpp;
    uint8_t schedule;   /**< PrismSchedule */
    uint8_t recompute;  /**< PrismRecompute */
    uint16_t rc_layers; /**< k for PRISM_RECOMPUTE_BLOCK */
    uint8_t offload;    /**< PrismOffload bit set (optimizer, activations to host memory) */
} PrismSegmentKey;

/** The segment key of strategy @p s: its structural dims (registry.h, PRISM_DIM_STRUCTURAL),
 *  the one projection the cost model, the space and refine use. */
static inline PrismSegmentKey prism_segment_key_of(const PrismStrategy *s)
{
    const PrismSegmentKey k = {.devices = s->devices,
                               .pp = s->pp,
                               .vpp = s->vpp,
                               .schedule = s->schedule,
                               .recompute = s->recompute,
                               .rc_layers = s->rc_layers,
                               .offload = s->offload};
    return k;
}

/**
 * Compile a segment: stage/chunk layer composition and in-flight micro-batches.
 * With @p all_stages FALSE only the stages that can set a maximum are kept (fast path
 * for the search); TRUE keeps every stage (explain). Both give identical columns.
 * Ownership: prism_cost_segment_free().
 */
PrismCostSegment *prism_cost_segment_new(const PrismCostModel *cm, const PrismSegmentKey *key,
                                         gboolean all_stages, GError **error);
void prism_cost_segment_free(PrismCostSegment *seg);

/** Per-strategy dims of a batch inside one segment, structure-of-arrays. */
typedef struct PrismLanes {
    const double *tp, *cp, *dp, *ep, *sp, *mbs, *m, *zero;
    size_t n;
    /** expert tensor parallelism per lane; NULL = etp equals tp (the tied mapping). */
    const double *etp;
    /** 1 for a folded lane, 0 for a tied one (prism_strategy_folding); NULL = all 0. */
    const double *fold;
    /** The overlap options (strategy.h R12): 1 on (the knob's hidden fraction), 0 off
     *  (exposed in full); NULL = all on (the behaviour before the overlap dims). */
    const double *tp_ov, *dp_ov, *param_ov;
    /** Optional ids of the GEMM key (tp, cp, mbs, ep, etp) per lane: gkey_id[i] indexes
     *  gkeys[5 * id ...] (n_gkeys keys); gkey_serial names this id set, unique in the
     *  process (two lane sets with the same serial must have the same keys; 0 is
     *  reserved: such ids are ignored). NULL = none: the evaluator then finds each
     *  lane's key by value. Speed only: same results. */
    const uint32_t *gkey_id;
    const double *gkeys;
    uint32_t n_gkeys;
    uint64_t gkey_serial;
    /** Optional ids of the static key (tp, cp, ep, zero, etp) per lane, numbered 0 ..
     *  n_skeys-1 within the lane set named by gkey_serial: lanes of one segment with the
     *  same id have the same static bytes (prism_evaluator_run_static). NULL = none. */
    const uint32_t *skey_id;
    uint32_t n_skeys;
} PrismLanes;

/** Output columns; col[c] points to at least n doubles (64-byte aligned preferred). */
typedef struct PrismCostOut {
    double *col[PRISM_COL_COUNT];
} PrismCostOut;

/**
 * A kernel table for @p isa ("scalar", "avx2", "avx512" or "auto"; NULL = "auto" or
 * the PRISM_ISA environment variable). Errors: PRISM_INPUT_ERROR_VALUE for an unknown
 * name or an ISA this CPU or build lacks. Ownership: static, never freed.
 */
const PrismKernelTable *prism_kernel_table_get(const char *isa, GError **error);
const char *prism_kernel_table_name(const PrismKernelTable *kt);
/** Names of the ISAs compiled into this build, and whether this CPU runs them. */
size_t prism_kernel_isa_count(void);
const char *prism_kernel_isa_name(size_t i);
gboolean prism_kernel_isa_supported(const char *isa);

/** An evaluator for batches of at most @p max_batch lanes. Ownership: _free(). */
PrismEvaluator *prism_evaluator_new(const PrismCostModel *cm, const PrismKernelTable *kt,
                                    size_t max_batch);
void prism_evaluator_free(PrismEvaluator *ev);
/**
 * With @p lean, prism_evaluator_run writes only the columns for which prism_cost_col_lean()
 * is TRUE (what a search without a row sink reads: peak memory, the step time and its DP,
 * PP, bubble, optimizer and offload parts, MFU, HFU, tokens/s, feasible, host memory),
 * each with the bits of a full run; the others (the memory and time breakdowns, the peak
 * stage, FLOPs per device, bytes per level, the reason) keep whatever @p out held. The
 * skipped work is about a fifth of the kernel's (cost/README.md, "Kernels and
 * performance"). Default: off.
 */
void prism_evaluator_set_lean(PrismEvaluator *ev, gboolean lean);
gboolean prism_cost_col_lean(PrismCostCol c);
/** Evaluate lanes->n <= max_batch strategies of @p seg into @p out. Cannot fail. */
void prism_evaluator_run(PrismEvaluator *ev, const PrismCostSegment *seg, const PrismLanes *lanes,
                         PrismCostOut *out);
/**
 * prism_evaluator_run, and with @p stat non-NULL also a lower bound of each lane's peak:
 * stat[i] = the largest static bytes (params + grads + optimizer, summed in that order) of
 * the stages that can set the peak, so mem_peak >= stat bit for bit. It depends only on
 * the lane's static key (PrismLanes.skey_id) within one segment, which the search's
 * pruning relies on (search/README.md, "Pruning"; checked by test_space "static keys").
 */
void prism_evaluator_run_static(PrismEvaluator *ev, const PrismCostSegment *seg,
                                const PrismLanes *lanes, PrismCostOut *out, double *stat);

/**
 * Floors of the step time (time[i]) and of the peak memory of every lane of @p seg that
 * differs from probe lane i only in zero, dp_overlap, param_overlap and folding (same tp,
 * cp, dp, ep, etp, sp, mbs, m, tp_overlap), bit for bit (the search's pruning,
 * search/README.md "Pruning"). Probes are given at zero = 0 with both DP overlaps on.
 * time[i] is m x the schedule's micro-batch share x the slowest stage's time per
 * micro-batch (compute, recompute, the exposed TP, CP, EP and pipeline communication, the
 * host gap) plus the bubble where it can only grow, 1e-9 below. The peak's floor is in
 * parts: parts[2 nc i + 2c] is the largest activations of composition c's peak
 * candidates and parts[2 nc i + 2c + 1] its buffers (nc = prism_cost_segment_n_parts;
 * both -inf for a composition without candidates); prism_floor_peak adds a lane's static
 * bytes to them (cost_floor.c). Evaluates the probes (n <= the batch) into @p scratch and
 * overwrites the evaluator's workspace. Not collective.
 */
void prism_evaluator_floors(PrismEvaluator *ev, const PrismCostSegment *seg,
                            const PrismLanes *probes, PrismCostOut *scratch, double *time,
                            double *parts);
/** The number of stage compositions of @p seg: the parts of the peak's floor. */
uint32_t prism_cost_segment_n_parts(const PrismCostSegment *seg);
/**
 * prism_evaluator_run_static (@p stat non-NULL), and each composition's static bytes
 * (params + grads + optimizer, summed as the peak's total starts) in sparts[nc i + c]
 * (nc = prism_cost_segment_n_parts). They depend only on the lane's static key within
 * one segment, as stat does.
 */
void prism_evaluator_run_parts(PrismEvaluator *ev, const PrismCostSegment *seg,
                               const PrismLanes *lanes, PrismCostOut *out, double *stat,
                               double *sparts);
/**
 * A floor of the peak of a lane whose compositions' static bytes are @p sparts (from
 * prism_evaluator_run_parts) and whose probe's parts are @p fparts (prism_evaluator_floors):
 * the largest (static + activations) + buffers over the compositions, 1e-9 below, >= 0.
 * The kernel sums a candidate's total in that order with the lane's own activations (the
 * probe's) and buffers (>= the probe's: only ZeRO-3 adds to them), so the peak is >= it.
 */
static inline double prism_floor_peak(uint32_t n_parts, const double *sparts, const double *fparts)
{
    /* inline: the bounded walk takes it for nearly every row it proves out */
    double a = 0.0;
    for (uint32_t c = 0; c < n_parts; c++) {
        const double x = (sparts[c] + fparts[2 * c]) + fparts[2 * c + 1];
        a = x > a ? x : a; /* NaN: left out */
    }
    return a * (1.0 - 1e-9);
}

/**
 * Evaluate one strategy with the scalar reference (checks shape rules first).
 * @p cols receives PRISM_COL_COUNT values. Errors: PRISM_INPUT_ERROR_SHAPE.
 */
gboolean prism_cost_eval_one(const PrismCostModel *cm, const PrismStrategy *s,
                             double cols[PRISM_COL_COUNT], GError **error);

/* `prism explain`'s data (every named term, stage and GEMM of one strategy) is in
 * <prism/explain.h>; the CLI renders it and an evaluated row's columns (src/app/). */

/**
 * An explicit stage layout: how many split layers (transformer blocks + MTP layers, in
 * model order) each model chunk holds, and the recompute mode of every split layer.
 * Chunk c of stage s is entry [c * pp + s] (the order layers flow through the
 * pipeline). Chunks may be empty; the embedding always sits on stage 0 and the head on
 * the last stage. Plain data; build with prism_layout_new() or prism_layout_default().
 */
typedef struct PrismLayout {
    uint32_t pp, vpp;
    uint32_t *chunk_layers; /**< pp * vpp entries, summing to n_layers */
    uint8_t *layer_rc;      /**< per split layer: PRISM_RECOMPUTE_NONE, _SELECTIVE or _FULL */
    uint32_t n_layers;
} PrismLayout;

/** A zeroed layout of pp*vpp chunks and @p n_layers layers. Ownership: _free(). */
PrismLayout *prism_layout_new(uint32_t pp, uint32_t vpp, uint32_t n_layers);
void prism_layout_free(PrismLayout *layout);
PrismLayout *prism_layout_copy(const PrismLayout *layout);

/**
 * The default layout of a segment key: an even split of the split layers over the
 * pp*vpp chunks, the remainder spread one layer each over chunks 1, 2, ... (so the
 * first chunk, which also holds the embedding, never gets an extra layer, and the last
 * chunk, which holds the head, only when every other chunk has one); recompute per the
 * key (block:k = full on the first k layers of every chunk). Not collective.
 * Errors: PRISM_INPUT_ERROR_SHAPE when pp*vpp exceeds the layers.
 * Ownership: prism_layout_free().
 */
PrismLayout *prism_layout_default(const PrismCostModel *cm, const PrismSegmentKey *key,
                                  GError **error);

/**
 * nanotron's split of the blocks over @p pp stages (no interleaving) by its compute-cost
 * estimate (huggingface/nanotron src/nanotron/models/base.py build_model, 01de8d94 and
 * da4aa258, with models/llama.py get_block_compute_costs, 03b83fc8): the pipeline blocks
 * in model order cost the embedding 0, decoder block i @p block_cost[i], the final norm 0
 * and the LM head @p head_cost; each block is placed on the current stage s, then, with C
 * the running sum up to and including it and T_s = C_total (s + 1) / pp, the next block
 * moves to stage s + 1 when C reaches T_s. The code compares C > T_s; the Playbook sweep's
 * runs resolve an exact tie by moving on (C >= T_s): its bench CSV's per-rank parameter
 * count ("Local Params") of rank 0 is the embedding and 10 of 16 blocks at pp 2 and 5 at
 * pp 4 for the 1.34 B model, whose costs meet those thresholds exactly, where > gives 11
 * and 6; the 8.86 B model's 18, 5 and 3 at pp 2, 8 and 16 have no tie. Recompute none on
 * every layer. NULL when pp is 0. Not collective. Ownership: prism_layout_free().
 */
PrismLayout *prism_layout_by_cost(const double *block_cost, uint32_t n_blocks, double head_cost,
                                  uint32_t pp);
/** prism_layout_by_cost() for @p model under nanotron's Llama estimate: a block costs
 *  4 heads head_dim h + 3 ffn h, the head vocab h. NULL when a split layer is not a dense
 *  attention block (nanotron's Llama has no other) or pp is 0. */
PrismLayout *prism_layout_nanotron(const PrismModel *model, uint32_t pp);

/** Set every layer's recompute mode of @p l from a strategy's: none, selective or full on
 *  every layer, block:k full on the first k layers of every chunk (the rule
 *  prism_layout_default() applies). Not collective. */
void prism_layout_set_recompute(PrismLayout *l, PrismRecompute recompute, uint32_t rc_layers);

/**
 * Like prism_cost_segment_new() but with an explicit layout (uneven stages, per-layer
 * recompute). key->pp/vpp must match the layout; key->recompute is ignored. The columns
 * come from the same formulas as the default layout. Not collective.
 * Errors: PRISM_INPUT_ERROR_VALUE when the layout does not fit the model or key.
 * Ownership: prism_cost_segment_free().
 */
PrismCostSegment *prism_cost_segment_new_layout(const PrismCostModel *cm,
                                                const PrismSegmentKey *key,
                                                const PrismLayout *layout, gboolean all_stages,
                                                GError **error);

/** Number of memory candidates (stage states that can set the peak) the kernel visits;
 *  at least pp with all_stages. Not collective. */
uint32_t prism_cost_segment_n_candidates(const PrismCostSegment *seg);

/** The segment's model + recompute FLOPs per step over the devices' peak FLOP/s (s): the
 *  numerator of hfu, whose every row is float32(this x (1 / step_time)) as the kernel
 *  forms it. Not collective. */
double prism_cost_segment_flops_time(const PrismCostSegment *seg);

/**
 * The peak memory of every pipeline stage of @p s (bytes, as PRISM_COL_MEM_PEAK counts the
 * largest of them: the stage's largest schedule state) under @p layout (NULL = the default)
 * into @p out[0 .. pp-1], and each stage's persistent bytes (parameters + gradients +
 * optimizer state, prism_cost_memory_kinds) into @p persistent[0 .. pp-1] unless it is NULL.
 * Stage 0 holds the embedding. Not collective. Errors: as
 * prism_explain_new() (explain.h).
 */
gboolean prism_cost_stage_peaks(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, double *out, double *persistent,
                                GError **error);

/** Evaluate one strategy with an explicit layout through the scalar reference (the same
 *  columns and formulas as prism_cost_eval_one()). Not collective.
 *  Errors: as prism_cost_segment_new_layout(). */
gboolean prism_cost_eval_layout(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, double cols[PRISM_COL_COUNT],
                                GError **error);

/** Per-layer terms of one strategy (per device, per micro-batch), for the layer-level
 *  planners (per-layer recompute, stage boundaries). Index 0..2 = recompute mode
 *  none, selective, full. */
typedef struct PrismLayerTerms {
    double params_bytes, grads_bytes, optimizer_bytes; /**< static, after ZeRO sharding */
    double act_bytes[3];   /**< activations kept per micro-batch, by recompute mode */
    double work_bytes;     /**< backward working set: transient bytes while the layer runs
                                backward (rematerialised activations under full recompute;
                                the same amount, its gradients, in every mode when the
                                bwd_working_set knob is 1); the stage holds its largest once */
    double fwd_s, bwd_s;   /**< compute + exposed TP/CP/EP communication, per micro-batch;
                                bwd_s includes the gradient accumulation */
    double recompute_s[3]; /**< extra time per micro-batch by mode (none = 0) */
    double flops_fwd;      /**< executed forward FLOPs per device per micro-batch */
    double opt_step_s;     /**< optimizer update of this layer's shard, once per step */
    double wgrad_s;        /**< weight-gradient GEMMs + gradient accumulation per
                                micro-batch (part of bwd_s; ZB-H1's W pass) */
    double fsdp_s[3];      /**< ZeRO-3, by recompute mode: exposed gather/reduce of this unit
                                per micro-batch (recompute widens the backward window) */
    double fsdp_lead_s[3]; /**< ZeRO-3, by mode: what stays unhidden if the unit leads its
                                stage (the stage adds the largest once per micro-batch) */
    double gather_bytes;   /**< ZeRO-3: this unit's gathered parameters on one device, in
                                the parameter dtype (after TP/EP sharding) */
} PrismLayerTerms;

/**
 * Terms of entry @p layer of the model's layer sequence (model->layers[layer]: the
 * embedding, a block, an MTP module or the head; the final norm is counted in the head
 * and gives zeros). Only the per-strategy dims of @p s matter (tp, cp, dp, ep, sp, mbs,
 * m, zero); the head has its own weight copy unless embeddings are tied and pp == 1.
 * Computed by the scalar kernel, so the numbers are the ones the search sums. Not
 * collective. Errors: PRISM_INPUT_ERROR_VALUE for an index out of range.
 */
gboolean prism_cost_layer_terms(const PrismCostModel *cm, const PrismStrategy *s, uint32_t layer,
                                PrismLayerTerms *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismLayout, prism_layout_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismCostModel, prism_cost_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismCostSegment, prism_cost_segment_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismEvaluator, prism_evaluator_free)

G_END_DECLS

#endif /* PRISM_COST_H */
