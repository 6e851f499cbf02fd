/*
 * refine.h - per-layer recompute and pipeline stage boundaries for one global strategy
 * (second instance of the divide-and-conquer engine; `prism plan --refine K`).
 *
 * Given a strategy (pp, vpp, m, schedule and the per-device dims), the layers that are
 * split over the pp*vpp model chunks (transformer blocks + MTP, in model order) are
 * re-assigned to chunks (contiguous, possibly uneven) and each layer gets a recompute
 * mode (none / selective / full), to minimise the step time under the per-stage memory
 * budget, where a stage's activations are weighted by its in-flight micro-batches.
 *
 * The optimisation runs on a SURROGATE built from prism_cost_layer_terms() (integer
 * picoseconds and bytes, so the summaries are exact):
 *   T_s    = sum over the stage's layers of (fwd + bwd + recompute[mode]) (+ embedding on
 *            stage 0 and head on the last stage)
 *   step   = m * max_s T_s + (sum_s T_s - max_s T_s) / vpp   (the kernel's pipeline form)
 *   mem_s  = static + sum over chunks c of mu(s, c) * act(mode) + max work bytes of the
 *            stage's layers (conservative) <= budget - buffers
 * Per chunk, the (extra recompute time, activation bytes) Pareto set of its layers is a
 * Minkowski sum of per-layer sets (the engine's Pareto summary, combined left to right);
 * stage boundaries come from a (min,+) product over the stages of (L+1) x (L+1) tables
 * (entry [i][j] = best time of a chunk holding layers i..j-1, +inf above a threshold on
 * the slowest stage), folded with the engine; thresholds are scanned upward from the
 * smallest feasible one until m * threshold alone exceeds the best step found.
 * For vpp > 1 each chunk is checked against budget/vpp (conservative), and the result
 * and the optional start layout (the uniform split) are improved by local moves on the
 * exact surrogate (shift one layer across a chunk boundary, change one layer's mode).
 * The refined layout is then evaluated EXACTLY with prism_cost_eval_layout() (the same
 * formulas as `prism explain`); it is reported only if that exact step time beats the
 * default layout's, otherwise the default is kept (gain 0).
 * Nothing here is collective; everything is re-entrant.
 */
#ifndef PRISM_REFINE_H
#define PRISM_REFINE_H

#include <stdint.h>

#include <glib.h>

#include <prism/cost.h>
#include <prism/strategy.h>

G_BEGIN_DECLS

/** Surrogate terms of one split layer, per device and micro-batch; index = recompute mode
 *  (0 none, 1 selective, 2 full). Integers: picoseconds and bytes. */
typedef struct PrismRefineLayer {
    int64_t time_ps[3];   /**< fwd + bwd + recompute extra */
    int64_t act_bytes[3]; /**< activations kept per micro-batch */
    int64_t static_bytes; /**< params + grads + optimizer state */
    int64_t work_bytes;   /**< transient set while recomputing (full) */
} PrismRefineLayer;

/** The surrogate problem. Chunk j = c * pp + s is chunk c of stage s (model order). */
typedef struct PrismRefineProblem {
    uint32_t n_layers;
    const PrismRefineLayer *layers;
    uint32_t pp, vpp, m;
    const double *mu;     /**< pp*vpp in-flight micro-batches, [s * vpp + c] */
    int64_t budget_bytes; /**< per device, after the margin and buffers */
    uint8_t modes;        /**< bitmask of allowed recompute modes (bit r = mode r) */
    /** embedding (on chunk 0) and head (on the last chunk): time, static, activations */
    int64_t first_time_ps, first_static, first_act;
    int64_t last_time_ps, last_static, last_act;
    /** optional start layout for the vpp > 1 local search (NULL = none) */
    const uint32_t *start_chunks;
    const uint8_t *start_rc;
} PrismRefineProblem;

/** A surrogate solution. */
typedef struct PrismRefineSolution {
    uint32_t pp, vpp;
    uint32_t *chunk_layers; /**< pp*vpp, chunk j = c*pp + s */
    uint8_t *layer_rc;      /**< per split layer */
    uint32_t n_layers;
    int64_t step_ps;        /**< surrogate step */
    int64_t *stage_time_ps; /**< pp */
    int64_t *stage_mem;     /**< pp */
} PrismRefineSolution;

void prism_refine_solution_free(PrismRefineSolution *s);

/**
 * Surrogate step of a given layout (chunk_layers: pp*vpp counts, rc: per layer).
 * Fills @p stage_time / @p stage_mem (pp entries each, may be NULL). Returns the step
 * in picoseconds, or PRISM_DC_INF when a stage exceeds the budget (vpp > 1: the exact
 * stage sum is checked, unlike the conservative search). Not collective.
 */
int64_t prism_refine_evaluate(const PrismRefineProblem *p, const uint32_t *chunk_layers,
                              const uint8_t *rc, int64_t *stage_time, int64_t *stage_mem);

/**
 * Minimise the surrogate step. Every chunk holds at least one layer.
 * Errors: PRISM_INPUT_ERROR_INFEASIBLE when no layout fits the budget;
 * PRISM_INPUT_ERROR_VALUE when pp*vpp exceeds the layers.
 * Ownership: prism_refine_solution_free().
 */
PrismRefineSolution *prism_refine_solve(const PrismRefineProblem *p, GError **error);

/** In-flight micro-batches of (stage s, chunk c): the cost model's rule; for the
 *  interleaved schedule the largest count of chunk c over Megatron's in-flight states
 *  (an upper bound of the cost model's peak state). Not collective. */
double prism_refine_inflight(PrismSchedule schedule, uint32_t pp, uint32_t vpp, uint32_t m,
                             uint32_t s, uint32_t c);

/** The result of refining one strategy. */
typedef struct PrismRefineResult {
    PrismStrategy strategy;
    PrismLayout *uniform; /**< the default (even) layout */
    PrismLayout *refined; /**< the refined layout (== uniform when no gain) */
    double uniform_cols[PRISM_COL_COUNT];
    double refined_cols[PRISM_COL_COUNT];
    double gain;          /**< 1 - refined step / uniform step (0 when kept) */
    gboolean improved;    /**< the refined layout beats the default exactly */
    int64_t surrogate_ps; /**< surrogate step of the refined layout */
    double seconds;       /**< time spent refining */
} PrismRefineResult;

void prism_refine_result_free(PrismRefineResult *r);

/**
 * Build the surrogate for @p s from prism_cost_layer_terms(), solve it, evaluate both
 * layouts exactly with prism_cost_eval_layout(). Not collective.
 * Errors: as prism_cost_eval_layout() and prism_cost_layer_terms() (bad strategy);
 * an infeasible surrogate is NOT an error: the result keeps the uniform layout.
 * Ownership: prism_refine_result_free().
 */
PrismRefineResult *prism_refine_strategy(const PrismCostModel *cm, const PrismStrategy *s,
                                         GError **error);

/**
 * Refine each of @p n strategies (e.g. the K best of the global search). Ownership: a
 * GPtrArray of PrismRefineResult (free with g_ptr_array_unref). Errors: the first
 * failing strategy's error. Not collective (run on one rank, or on every rank alike).
 */
GPtrArray *prism_refine_run(const PrismCostModel *cm, const PrismStrategy *strategies, size_t n,
                            GError **error);

/* The text and JSON reports of the results are rendered by the CLI
 * (src/app/app_render.c); nothing here prints. */

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismRefineSolution, prism_refine_solution_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismRefineResult, prism_refine_result_free)

G_END_DECLS

#endif /* PRISM_REFINE_H */
