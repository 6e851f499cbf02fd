/*
 * explain.h - the data behind `prism explain`: one strategy evaluated by the scalar
 * reference kernel on a segment that keeps every stage, with the kernel's workspace read
 * back as named terms (name, unit, formula text, value), the stages, compositions and
 * layer slots of the segment, and the GEMMs of each layer kind with why they run as fast
 * as they do. The library returns data; the CLI (src/app/render_explain.c) renders it as
 * text or JSON.
 *
 * The values are the kernel's own arithmetic, so an explanation and the landscape agree
 * bit for bit. Nothing here is collective; a PrismExplain is read-only once made.
 */
#ifndef PRISM_EXPLAIN_H
#define PRISM_EXPLAIN_H

#include <stdint.h>

#include <glib.h>

#include <prism/cost.h>
#include <prism/strategy.h>

G_BEGIN_DECLS

/** Where a named term sits: the levels of the kernel's workspace. */
typedef enum {
    PRISM_TERM_LANE = 0,  /**< one value per strategy */
    PRISM_TERM_SLOT = 1,  /**< per layer kind and recompute mode, per layer, per micro-batch */
    PRISM_TERM_COMP = 2,  /**< per stage composition */
    PRISM_TERM_CAND = 3,  /**< per memory candidate (a schedule state of a stage) */
    PRISM_TERM_FINAL = 4, /**< step-level scratch */
} PrismTermLevel;

/** One named term: its name (explain's JSON key), unit and formula text (static). */
typedef struct PrismTermInfo {
    const char *name;
    const char *unit;
    const char *formula;
} PrismTermInfo;

/** The number of terms of @p level, and term @p i of it (NULL past the end). */
unsigned prism_term_count(PrismTermLevel level);
const PrismTermInfo *prism_term_info(PrismTermLevel level, unsigned i);

typedef struct PrismExplain PrismExplain;

/**
 * Evaluate @p s under @p cm (and @p layout, NULL = the default layout; with a layout the
 * shape rules R6/R10 on layer counts are not applied) for an explanation. @p cm must
 * outlive the result; @p s and @p layout are copied. Errors: PRISM_INPUT_ERROR_SHAPE with
 * the violated rule, and as prism_cost_segment_new_layout(). Ownership:
 * prism_explain_free().
 */
PrismExplain *prism_explain_new(const PrismCostModel *cm, const PrismStrategy *s,
                                const PrismLayout *layout, GError **error);
void prism_explain_free(PrismExplain *ex);

/** The cost model, the strategy, and the layout evaluated (the default one when none was
 *  given). Borrowed. */
const PrismCostModel *prism_explain_cost_model(const PrismExplain *ex);
const PrismStrategy *prism_explain_strategy(const PrismExplain *ex);
const PrismLayout *prism_explain_layout(const PrismExplain *ex);
/** The output columns (PRISM_COL_COUNT values), as prism_cost_eval_one() gives them. */
const double *prism_explain_cols(const PrismExplain *ex);

/**
 * The value of term @p i of @p level for entry @p index of that level: 0 for LANE and
 * FINAL, the slot for SLOT, the composition for COMP, the candidate for CAND.
 */
double prism_explain_term(const PrismExplain *ex, PrismTermLevel level, unsigned index, unsigned i);

/** The layer slots (a layer kind under one recompute mode) of the segment. */
uint32_t prism_explain_n_slots(const PrismExplain *ex);
/** The layer kind's name of slot @p q (borrowed) and its PrismRecompute mode. */
const char *prism_explain_slot_kind(const PrismExplain *ex, uint32_t q);
PrismRecompute prism_explain_slot_recompute(const PrismExplain *ex, uint32_t q);

/** The stage compositions: how many stages share composition @p c, and how many layers of
 *  slot @p q it holds. */
uint32_t prism_explain_n_comps(const PrismExplain *ex);
double prism_explain_comp_stages(const PrismExplain *ex, uint32_t c);
double prism_explain_comp_layers(const PrismExplain *ex, uint32_t c, uint32_t q);

/** One pipeline stage (device): its composition, its largest memory candidate, its schedule
 *  states, and the terms explain's memory table and per-stage JSON show. Bytes and s. */
typedef struct PrismExplainStage {
    uint32_t comp;      /**< its composition (index of the COMP terms) */
    uint32_t cand;      /**< the candidate with the largest total, first on ties (CAND) */
    uint32_t states;    /**< distinct in-flight states of the schedule; memory = the largest */
    double params;      /**< COMP: parameters */
    double grads;       /**< COMP: gradients */
    double optimizer;   /**< COMP: optimizer state */
    double activations; /**< CAND: in-flight activations of the largest state */
    double buffers;     /**< COMP: communication buffers */
    double total;       /**< CAND: the stage's peak (as PRISM_COL_MEM_PEAK counts it) */
    double time;        /**< COMP: time per micro-batch */
    double dp_comm;     /**< COMP: exposed DP communication per step */
    double host;        /**< CAND: bytes in host memory */
    double transfer;    /**< COMP: exposed offload transfer per step */
} PrismExplainStage;

/** The model chunks each stage holds (prism_schedule_chunks of the strategy). */
uint32_t prism_explain_n_chunks(const PrismExplain *ex);
/** Stage @p st (0 .. pp-1) into @p out. */
void prism_explain_stage(const PrismExplain *ex, uint32_t st, PrismExplainStage *out);
/** The micro-batches chunk @p c of stage @p st holds in flight at the first steady-state
 *  forward, of the strategy's m (GPipe: all of them). */
double prism_explain_inflight(const PrismExplain *ex, uint32_t st, uint32_t c);

/** Model-level constants of the kernel that explain states (s, B, FLOP). */
typedef struct PrismExplainModel {
    double tp_exposed, tp_exposed_b; /**< userbuffers TP overlap: exposed share, fwd / bwd */
    double ub_bytes;                 /**< userbuffers bytes per token while TP overlap is on */
    double inv_rate_bf16;            /**< s per FLOP of the large-GEMM BF16 rate */
    double inv_rate;                 /**< s per FLOP of the linear GEMMs (the dtype's) */
    double inv_hbm;                  /**< s per byte of the achieved HBM bandwidth */
    double core_fwd_inv;             /**< s per FLOP of the attention core, forward */
    double exec_core;                /**< the attention core's executed share (flash: <1) */
    gboolean quant;                  /**< tile and wave quantisation priced */
    gboolean shared_overlap;         /**< shared experts' GEMMs hide EP all-to-alls */
} PrismExplainModel;

void prism_explain_model(const PrismExplain *ex, PrismExplainModel *out);

/** The GEMM layer kinds of the segment, each once, in slot order. */
uint32_t prism_explain_n_kinds(const PrismExplain *ex);

typedef struct PrismExplainKind {
    const char *name; /**< the layer kind (borrowed) */
    uint32_t n_gemm;  /**< its GEMMs */
    double core_s;    /**< the attention core (BF16), forward + backward, per layer per
                           micro-batch, s: the kernel's terms of the kind's first slot */
    double cast_s;    /**< the FP8 casts, forward + backward, likewise */
} PrismExplainKind;

void prism_explain_kind(const PrismExplain *ex, uint32_t i, PrismExplainKind *out);

/** One pass of a GEMM (forward, input gradient, weight gradient) and why it takes its time. */
typedef struct PrismExplainPass {
    double tile_m, tile_n; /**< the CTA tile priced */
    double tiles, waves;
    double wave_eff;   /**< tiles / (waves x SMs) */
    double tile_eff;   /**< padding of the edge tiles */
    double t_compute;  /**< s */
    double t_memory;   /**< s: operand bytes at the achieved HBM bandwidth */
    double seconds;    /**< max of the two */
    double efficiency; /**< useful FLOP / seconds / the dtype's datasheet peak */
} PrismExplainPass;

typedef struct PrismExplainGemm {
    const char *name;         /**< static */
    gboolean low;             /**< runs in the training dtype's low precision (else BF16) */
    gboolean shared;          /**< a shared expert's GEMM (shared_expert_overlap) */
    double M, N, K, count;    /**< rows, N x K after tp, grouped count */
    PrismExplainPass pass[3]; /**< forward, input gradient, weight gradient */
} PrismExplainGemm;

/** GEMM @p q of kind @p i (prism_explain_kind) under the strategy: the same functions and
 *  inputs as the evaluator's table, so the seconds are the kernel's. */
void prism_explain_gemm(const PrismExplain *ex, uint32_t i, uint32_t q, PrismExplainGemm *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismExplain, prism_explain_free)

G_END_DECLS

#endif /* PRISM_EXPLAIN_H */
