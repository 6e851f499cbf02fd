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

#define PRISM_K_LEVELS 4
/* Lanes per internal tile: the workspace holds one tile of every term array. */
#define PRISM_K_TILE 64

/** Recompute mode of a slot (the PrismRecompute values none/selective/full). */
enum { PRISM_K_RC_NONE = 0, PRISM_K_RC_SELECTIVE = 1, PRISM_K_RC_FULL = 2 };

/** Pipeline schedule families the kernel distinguishes (PrismSchedule values). */
enum {
    PRISM_K_SCHED_1F1B = 0,
    PRISM_K_SCHED_INTERLEAVED = 1,
    PRISM_K_SCHED_GPIPE = 2,
    PRISM_K_SCHED_ZB_H1 = 3
};

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
    /* forward FLOPs per token */
    double f_tp, f_kv, f_rep; /* GEMMs, split like the parameters */
    double f_core;            /* attention core (QK^T, AV) executed, after causal skip */
    double f_exp;             /* routed experts as executed: top_k x capacity x 2 x params */
    /* memory-bound (elementwise) HBM traffic per token per forward, bytes */
    double e_rep;   /* norms, bias-dropout-add (replicated over tp unless SP) */
    double e_tp;    /* bias-GeLU / SwiGLU (sharded by tp) */
    double e_score; /* softmax + dropout on the scores (sharded by tp; 0 with flash) */
    double e_full;  /* MoE permute / unpermute (not sharded by tp) */
    /* communication */
    double tp_coll_fwd;    /* all-reduce-equivalent TP collectives per forward */
    double tp_coll_fwd_sp; /* extra forward collectives when SP is on (head all-gather) */
    double tp_coll_bwd;    /* per backward */
    double tp_bytes;       /* bytes per token per TP collective (h x dtype) */
    double cp_tp, cp_kv;   /* bytes per token exchanged per CP ring pass (tp-sharded / kv) */
    double ep_bytes;       /* bytes per token per all-to-all: top_k x capacity x h x dtype */
    double is_moe;         /* 1 if the kind has routed experts (EP all-to-all, buffers) */
    double is_layer;       /* 1 for blocks/MTP, 0 for embedding and head */
} PrismKKind;

/** Model + cluster + training + knobs, compiled. */
typedef struct PrismKModel {
    const PrismKKind *kinds;
    uint32_t n_kinds;
    double seq;                                /* tokens per sequence */
    double gbs;                                /* sequences per step */
    double bytes_act;                          /* bytes per activation element (dtype) */
    double bytes_param, bytes_grad, bytes_opt; /* per parameter */
    double inv_rate;      /* s per FLOP: 1 / (peak FLOP/s of the dtype x compute_efficiency) */
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
    double pp_scatter;       /* 1: p2p sends 1/tp of the activation */
    double zero3_prefetch;   /* layers of gathered parameters held by ZeRO-3 */
    double runtime_bytes;    /* framework workspace per device */
    double accum_traffic;    /* exposed HBM bytes per parameter per micro-batch of gradient
                              * accumulation: 2 x bytes_grad x grad_accum_exposed */
    double bwd_ws;           /* 1: every layer carries a backward working set; 0: only
                              * fully recomputed layers (their rematerialised activations) */
    double budget;           /* bytes available: memory (or budget) - margin */
    double model_flops_step; /* model FLOPs per step (MFU numerator) */
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
} PrismKSegment;

/** The lanes of one batch: per-strategy dims as doubles. */
typedef struct PrismKLanes {
    const double *tp, *cp, *dp, *ep, *sp, *mbs, *m, *zero;
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
    PRISM_KS_RC_TIME,  /* s per micro-batch incl. exposed comm */
    PRISM_KS_ELEMWISE, /* s per micro-batch of memory-bound kernels (in compute) */
    PRISM_KS_OPT_STEP,   /* s per step: optimizer update of this layer's shard */
    PRISM_KS_GRAD_ACCUM, /* s per micro-batch: gradient accumulation (in compute, W pass) */
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
    PRISM_KC_COUNT
};
enum { PRISM_KD_ACT = 0, PRISM_KD_WORK, PRISM_KD_TOTAL, PRISM_KD_COUNT };
/* Final scratch terms: slowest stage time, sum and max of the bubble units, max DP. */
enum { PRISM_KF_TMAX = 0, PRISM_KF_USUM, PRISM_KF_UMAX, PRISM_KF_DPMAX, PRISM_KF_COUNT };

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
