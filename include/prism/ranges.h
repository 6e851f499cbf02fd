/*
 * ranges.h - published ranges of the knobs that dominate step time and memory, and the
 * intervals they give a prediction.
 *
 * A knob's default is one published figure (or a convention); the published figures of
 * the same quantity spread over a range (a sustained clock between its power-capped and
 * boost values, a network efficiency between published bus bandwidths). The range table
 * (cost/cost_ranges.c, its own table so that the knob table stays as it is) gives each
 * such knob its two ends with their citation ("KIND: WHERE", core.h). A strategy priced
 * with every ranged knob at its optimistic end and at its pessimistic end gives the
 * corners step_lo and step_hi (and mem_hi); `prism plan` widens them by the track record's
 * error spread (validate.h) and reads equivalence, the memory risk class and the robust
 * ranking off them (cost/README.md, "Intervals"). Nothing here is collective.
 */
#ifndef PRISM_RANGES_H
#define PRISM_RANGES_H

#include <stddef.h>

#include <glib.h>

#include <prism/cost.h>

G_BEGIN_DECLS

/** How a range's ends act on the value in use. */
typedef enum {
    /** the ends are values of the knob; a corner scales the knob in use by end / default
     *  (so a framework profile's or the user's value keeps its own place in the range) */
    PRISM_RANGE_SCALE = 0,
    /** the ends are factors of the value in use (for a knob whose default 0 means the
     *  device's figure: compute_efficiency) */
    PRISM_RANGE_FACTOR = 1,
    /** the ends are fractions of the device's boost clock; the pessimistic corner takes
     *  the lower of its end and the device's sustained clock, the optimistic one the
     *  higher (a cluster field, not a knob: key "sustained_clock") */
    PRISM_RANGE_CLOCK = 2,
} PrismRangeKind;

typedef struct PrismKnobRange {
    const char *name; /**< a knob name (knobs.h), or "sustained_clock" */
    double lo, hi;    /**< the published range (lo <= hi), in the unit of PrismRangeKind */
    PrismRangeKind kind;
    gboolean hi_slow;   /**< TRUE: the high end is the pessimistic one (more time or memory) */
    gboolean memory;    /**< TRUE: acts on memory only (mem_hi), FALSE: on time only */
    const char *source; /**< citation of the two ends, "KIND: WHERE" */
} PrismKnobRange;

/** The corners of the ranges. */
typedef enum {
    PRISM_CORNER_FAST = 0, /**< every ranged knob at its optimistic end: step_lo */
    PRISM_CORNER_SLOW = 1, /**< every ranged knob at its pessimistic end: step_hi, mem_hi */
    PRISM_CORNER_COUNT
} PrismCorner;

size_t prism_knob_range_count(void);
const PrismKnobRange *prism_knob_range(size_t i);
/** The range of knob @p name, NULL when it has none. */
const PrismKnobRange *prism_knob_range_find(const char *name);

/**
 * Set @p knobs and @p cluster (copies of the point model's) to @p corner. With @p time
 * FALSE the time ranges stay at the point values, with @p memory FALSE the memory ones
 * (so a model can be pessimistic in memory only, `prism plan --mem-safety`).
 */
void prism_corner_apply(PrismCorner corner, gboolean time, gboolean memory, PrismKnobs *knobs,
                        PrismCluster *cluster);

/** A cost model at @p corner of the ranges (prism_corner_apply on @p cm's inputs).
 *  Ownership: prism_cost_model_free(). */
PrismCostModel *prism_cost_model_corner(const PrismCostModel *cm, PrismCorner corner, gboolean time,
                                        gboolean memory, GError **error);

/** A prediction with its interval. */
typedef struct PrismInterval {
    double step, step_lo, step_hi; /**< s per step: point, optimistic, pessimistic */
    double mem, mem_hi;            /**< bytes: point peak, pessimistic peak */
} PrismInterval;

/** The two corner models of a point model. Ownership: prism_corners_free(). */
typedef struct PrismCorners {
    PrismCostModel *cm[PRISM_CORNER_COUNT];
    double widen_step; /**< relative widening of step_lo/step_hi (track record), >= 0 */
    double widen_mem;  /**< relative widening of mem_hi, >= 0 */
} PrismCorners;

PrismCorners *prism_corners_new(const PrismCostModel *cm, GError **error);
void prism_corners_free(PrismCorners *c);

/**
 * The interval of @p s whose point columns are @p point (from the point model): each
 * corner evaluated with the scalar reference (prism_cost_eval_one), step_lo = the least and
 * step_hi = the largest of the point and the two corners (so a term that is not monotone
 * cannot put the point outside), mem_hi likewise; then widened: step_lo x (1 - widen_step),
 * step_hi x (1 + widen_step), mem_hi x (1 + widen_mem). Errors: the shape rules.
 */
gboolean prism_corners_eval(const PrismCorners *c, const PrismStrategy *s,
                            const double point[PRISM_COL_COUNT], PrismInterval *out,
                            GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismCorners, prism_corners_free)

G_END_DECLS

#endif /* PRISM_RANGES_H */
