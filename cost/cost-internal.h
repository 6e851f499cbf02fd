/*
 * cost-internal.h - private structures of the cost module (the .c files of cost/ only).
 *
 * A PrismCostModel owns copies of its inputs and the compiled kernel constants
 * (PrismKModel, kernels/kernels-model.h). A PrismCostSegment owns its PrismKSegment and
 * the stage bookkeeping explain needs. Nothing here is collective.
 */
#ifndef PRISM_COST_INTERNAL_H
#define PRISM_COST_INTERNAL_H

#include <prism/cost.h>

#include "kernels/kernels-model.h"

/** Special kinds appended after the block/MTP kinds. */
typedef enum {
    PRISM_KIND_BLOCK = 0,
    PRISM_KIND_MTP = 1,
    PRISM_KIND_EMBEDDING = 2,
    PRISM_KIND_HEAD = 3,      /**< final norm + output projection with its own weights */
    PRISM_KIND_HEAD_TIED = 4, /**< final norm + projection sharing the embedding weights */
} PrismKindRole;

struct PrismCostModel {
    PrismModel *model;
    PrismCluster *cluster;
    PrismTraining training;
    PrismKnobs knobs;
    PrismKModel k;
    PrismKKind *kinds;
    PrismKindRole *kind_role;
    char **kind_name;         /* "block 0 (dense)", "mtp 0", "embedding", "head" */
    double *kind_model_flops; /* forward model FLOPs per token per layer (MFU convention) */
    double *kind_exec_flops;  /* the same with the attention core as executed (HFU) */
    double *kind_core_flops;  /* attention-core FLOPs per token, the full core */
    double exec_core;         /* executed share of the core: 1 - causal_skip with flash, else 1 */
    uint32_t n_kinds;
    uint32_t kind_emb, kind_head, kind_head_tied;
    uint32_t *layer_kind; /* kind of each split layer (blocks + MTP, in model order) */
    uint32_t n_split;
};

struct PrismCostSegment {
    PrismSegmentKey key;
    gboolean all_stages;
    PrismKSegment k;
    PrismLayout *layout;
    PrismKSlot *slots;
    double *count, *mult, *comp_moe, *cand_stage, *w_a, *w_b, *w_cap, *w_mid, *w_one;
    double *comp_step_host; /* per composition: step_layer_syncs' seconds (kernels-model.h) */
    uint32_t *cand_comp;
    uint8_t *cand_work;
    uint32_t *stage_comp;   /* composition of each stage */
    uint32_t *stage_cand;   /* first candidate of each stage (G_MAXUINT32 when pruned) */
    uint32_t *stage_states; /* distinct in-flight states of each stage (before pruning) */
    double *mu_a, *mu_b;    /* in-flight micro-batches per [stage * nch + chunk], first
                             * steady state of the m >= 3 pp regime (explain) */
    uint32_t nch;           /* model chunks per stage (prism_stage_chunks) */
};

/* Model chunks one stage (device) holds: vpp, except DualPipe (vpp = 1), whose device s
 * holds stage s of one direction and stage pp-1-s of the other (registry.h). */
static inline uint32_t prism_stage_chunks(uint32_t schedule, uint32_t vpp)
{
    return prism_schedule_chunks(schedule, vpp);
}

/* The virtual chunk (index into PrismLayout.chunk_layers, in model order) that stage s
 * runs as its chunk c: c*pp + s (interleaved order); the V schedules (ZB-V, DualPipeV)
 * run chunks s and 2pp-1-s; DualPipe runs s and pp-1-s (registry.h, placement). */
static inline uint32_t prism_stage_chunk(uint32_t schedule, uint32_t pp, uint32_t s, uint32_t c)
{
    return prism_schedule_place(schedule, pp, s, c);
}

struct PrismKernelTable {
    const char *name;
    PrismKernelFn fn;
};

struct PrismEvaluator {
    const PrismCostModel *cm;
    const PrismKernelTable *kt;
    size_t max_batch;
    double *ws;
    size_t ws_arrays;
    gboolean ws_borrowed; /* ws is the thread's one-lane workspace (cost_eval.c): not freed */
    /* the GEMM table (PrismKLanes.gtab): one entry of n_kinds x PRISM_KG_COUNT seconds per
     * distinct lane key (tp, cp, mbs, ep, etp), found by open addressing */
    double *gtab; /* [entry][kind][PRISM_KG_COUNT] */
    double *gkey; /* [entry][5] */
    size_t g_n, g_cap;
    int32_t *ghash; /* entry index + 1, 0 = empty; g_hcap slots (power of two) */
    size_t g_hcap;
    /* lanes that carry GEMM key ids (PrismLanes.gkey_id): per id set (serial) an array
     * id -> offset in gtab (-1 = not looked up yet); a few sets at a time, since the
     * search alternates between the lane tables of one (devices, pp) */
    struct PrismGemmIdMap {
        uint64_t serial; /* 0 = unused */
        int32_t *off;
        uint32_t n;
    } gmap[8];
    uint32_t gmap_next; /* the slot replaced next (round robin) */
    int32_t *goff;      /* per lane of the current batch */
    double *ones;       /* max_batch ones: the overlap options of lanes that give none (on) */
    gboolean lean;      /* prism_evaluator_set_lean */
    gboolean floors;    /* inside prism_evaluator_floors: PrismKLanes.lean 2 */
};

/** One GEMM of a kind for one lane key, as the kernel's table prices it: rows M, output
 *  width N, depth K, count, s per FLOP of a large GEMM in its dtype, operand bytes. */
typedef struct PrismGemmShape {
    double M, N, K, count, inv_rate, in_bytes, peak;
} PrismGemmShape;
void prism_cost_gemm_shape_internal(const PrismCostModel *cm, uint32_t kind, uint32_t q, double tp,
                                    double cp, double mbs, double ep, double etp,
                                    PrismGemmShape *out);

/** The table entry of one lane key: out[kind * PRISM_KG_COUNT + j] (kernels-model.h). */
void prism_cost_gemm_entry_internal(const PrismCostModel *cm, double tp, double cp, double mbs,
                                    double ep, double etp, double *out);

/* kernels (one per compiled ISA) */
void prism_cost_kernel_scalar(const PrismKModel *km, const PrismKSegment *ks,
                              const PrismKLanes *lanes, size_t n, double *const *out, double *ws);
void prism_cost_kernel_avx2(const PrismKModel *km, const PrismKSegment *ks,
                            const PrismKLanes *lanes, size_t n, double *const *out, double *ws);
void prism_cost_kernel_avx512(const PrismKModel *km, const PrismKSegment *ks,
                              const PrismKLanes *lanes, size_t n, double *const *out, double *ws);

/** The scalar table (the reference; always compiled). */
const PrismKernelTable *prism_kernel_table_scalar_internal(void);

/** Grow @p ev's workspace for @p seg (outside the hot loop; aborts on OOM like GLib). */
void prism_evaluator_reserve_internal(PrismEvaluator *ev, const PrismCostSegment *seg);

/**
 * Evaluate one strategy on an all-stages segment with the scalar kernel and hand back
 * the segment and workspace (explain reads the named terms). With @p own_ws the evaluator
 * owns its workspace (the caller may evaluate again before reading it); without, it borrows
 * the thread's one-lane workspace, valid until the thread's next one-lane evaluation.
 * Errors: shape rules.
 */
gboolean prism_cost_run_one_internal(const PrismCostModel *cm, const PrismStrategy *s,
                                     const PrismLayout *layout, gboolean own_ws,
                                     PrismCostSegment **seg_out, PrismEvaluator **ev_out,
                                     double cols[PRISM_COL_COUNT], GError **error);

/** The kernel model's device-level memory terms from the knob values @p kn (cost_memory.c):
 *  device = peak + (peak - persistent) x @p reserve + @p fixed + @p nccl_group x the lane's
 *  communicators; @p scale = 1 + @p reserve. */
void prism_cost_memory_setup_internal(const double *kn, double *scale, double *fixed,
                                      double *nccl_group, double *reserve);
/* The groups of more than one rank of @p s that hold NCCL buffers (cost_memory.c; the
 * kernels' k_comms counts the same). */
double prism_cost_communicators_internal(const PrismStrategy *s);
/* The gathered bytes of the model's largest ZeRO-3 unit for @p s (0 below ZeRO-3 or with
 * fsdp_gather_pool 0): the per-kind evaluations the gather pool takes. */
double prism_cost_gather_largest_internal(const PrismCostModel *cm, const PrismStrategy *s);
/* prism_cost_memory_kinds with the largest unit's bytes given (@p largest, from
 * prism_cost_gather_largest_internal: callers pricing one strategy under several models
 * whose knobs do not move the gathered bytes compute it once). */
void prism_cost_memory_kinds_internal(const PrismCostModel *cm, const PrismStrategy *s,
                                      double allocated, double persistent, double largest,
                                      PrismMemKinds *out);

/** Lanes of one strategy (arrays of one double each, owned by the caller). */
typedef struct PrismOneLane {
    double tp, cp, dp, ep, sp, mbs, m, zero, etp, fold, tov, dov, pov;
} PrismOneLane;
void prism_one_lane_fill_internal(const PrismStrategy *s, PrismOneLane *v, PrismLanes *lanes);

#endif /* PRISM_COST_INTERNAL_H */
