/*
 * smsg.h - operator-level sharding (SMSG instance of the divide-and-conquer engine):
 * the layout solver.
 *
 * The graph (opgraph.h) and what each layout option of an operator and each
 * redistribution between two operators cost (opcost.h) are given; this picks one option
 * per operator. Costs are rounded to integer picoseconds and bytes, so the (min,+) and
 * Pareto summaries of dc.h are exact.
 *
 * The exact optimum: the graph must be two-terminal series-parallel; it is reduced by
 * series steps (a chain = product of (min,+) matrices, computed with the engine) and
 * parallel steps (entrywise sum). Non-SP graphs are rejected naming an edge that
 * prevents the reduction. The JSON schema of graph files is in search/DC.md and
 * `prism layouts --help`. Nothing here is collective; everything is re-entrant.
 */
#ifndef PRISM_SMSG_H
#define PRISM_SMSG_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/dc.h>
#include <prism/opcost.h>
#include <prism/opgraph.h>

G_BEGIN_DECLS

/**
 * @p seconds rounded to integer picoseconds, the unit of the exact summaries
 * (PRISM_DC_INF for NaN, infinity or more than 9e6 s). Not collective.
 */
int64_t prism_smsg_ps(double seconds);

/** Result of a layout assignment (exact, greedy or uniform). */
typedef struct PrismLayoutPlan {
    uint32_t n_ops;
    uint8_t *choice;  /**< option index per op */
    int64_t total_ps; /**< exact total cost, picoseconds (PRISM_DC_INF = infeasible) */
    double compute_s, op_comm_s, redist_s;
    int64_t mem_bytes;                   /**< sum over ops of per-device bytes */
    uint32_t fwd_coll[PRISM_COLL_COUNT]; /**< forward collectives, in-op + redistribution */
    uint64_t power_pairs; /**< (solve) series elements folded by power: repeated blocks */
} PrismLayoutPlan;

void prism_layout_plan_free(PrismLayoutPlan *p);

/**
 * Cost of a given assignment (@p choice[i] indexes op i's options).
 * Ownership: prism_layout_plan_free(). Not collective.
 */
PrismLayoutPlan *prism_smsg_evaluate(const PrismOpGraph *g, const PrismSmsgEnv *env,
                                     const uint8_t *choice);

/**
 * The exact optimum by series-parallel reduction (min-plus), with canonical
 * tie-breaking (smallest option index in a fixed reduction order). @p allowed, if not
 * NULL, holds n_ops bitmasks of permitted options (used for uniform baselines).
 * Errors: PRISM_INPUT_ERROR_VALUE for a graph that is not series-parallel, naming the
 * edge; PRISM_INPUT_ERROR_INFEASIBLE when no assignment has finite cost.
 * Ownership: prism_layout_plan_free().
 */
PrismLayoutPlan *prism_smsg_solve(const PrismOpGraph *g, const PrismSmsgEnv *env,
                                  const uint32_t *allowed, GError **error);

/**
 * The (time, memory per device) Pareto front of all assignments, by the same reduction
 * over Pareto-set matrices. Ownership: g_free() on *front. Errors as _solve().
 */
gboolean prism_smsg_pareto(const PrismOpGraph *g, const PrismSmsgEnv *env, PrismParetoPoint **front,
                           uint32_t *n_front, GError **error);

/**
 * The D-Rec greedy baseline (SEEDS 3.4/4.2): operators visited in descending weight
 * (matmul-like: max option cost; conv: min; norm/softmax/loss first; elementwise last),
 * each choosing the option that minimises its own cost plus redistribution to the
 * neighbours already decided (first minimum wins). One round over the whole group (not
 * log2(t) bisection rounds). Ownership: prism_layout_plan_free().
 */
PrismLayoutPlan *prism_smsg_greedy(const PrismOpGraph *g, const PrismSmsgEnv *env);

/** Uniform baselines: replicated, data-parallel, column-split, row-split. */
typedef enum {
    PRISM_UNIFORM_REPLICATED = 0,
    PRISM_UNIFORM_DATA = 1,
    PRISM_UNIFORM_COLUMN = 2,
    PRISM_UNIFORM_ROW = 3,
    PRISM_UNIFORM_COUNT = 4,
} PrismUniform;

const char *prism_uniform_name(PrismUniform u);
/**
 * Allowed-option masks for a uniform baseline: weighted ops (linear, conv, embedding,
 * attention, MoE) are restricted to the class's option (data: every op splits rows;
 * replicated: every op replicated); other ops stay free. Ownership: g_free().
 */
uint32_t *prism_uniform_mask(const PrismOpGraph *g, const PrismSmsgEnv *env, PrismUniform u);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismLayoutPlan, prism_layout_plan_free)

G_END_DECLS

#endif /* PRISM_SMSG_H */
