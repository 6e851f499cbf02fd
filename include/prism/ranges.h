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
    /** the ends are fractions of the clock of the device's datasheet peak
     *  (boost_clock_mhz); the pessimistic corner takes the lower of its end and the
     *  device's sustained clock, the optimistic one the higher, but no more than the part
     *  runs under load at its power limit (max_clock_mhz; not given: the boost clock for a
     *  part held below it, else the end) (a cluster field, not a knob: key
     *  "sustained_clock") */
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
    double mem, mem_hi;            /**< bytes, the device figure (prism_cost_memory_kinds): point,
                                        pessimistic */
    double corner[PRISM_CORNER_COUNT]; /**< s per step at each corner, not widened */
} PrismInterval;

/** The two corner models of a point model. Ownership: prism_corners_free(). */
typedef struct PrismCorners {
    const PrismCostModel *point; /**< borrowed: the point model (outlives this) */
    PrismCostModel *cm[PRISM_CORNER_COUNT];
    double widen_step; /**< relative widening of step_lo/step_hi (track record), >= 0 */
    double widen_mem;  /**< relative widening of mem_hi, >= 0 */
    double tolerance;  /**< relative error of a comparison beyond the corners (the track
                            record's spread), >= 0: prism_interval_equivalent */
} PrismCorners;

PrismCorners *prism_corners_new(const PrismCostModel *cm, GError **error);
void prism_corners_free(PrismCorners *c);

/**
 * The interval of @p s whose point columns are @p point (from the point model): each
 * corner evaluated with the scalar reference (prism_cost_eval_one), step_lo = the least and
 * step_hi = the largest of the point and the two corners (so a term that is not monotone
 * cannot put the point outside), mem_hi likewise; then widened (prism_interval_widen):
 * step_lo / (1 + widen_step), step_hi / (1 - widen_step), mem_hi / (1 - widen_mem).
 * Errors: the shape rules.
 */
gboolean prism_corners_eval(const PrismCorners *c, const PrismStrategy *s,
                            const double point[PRISM_COL_COUNT], PrismInterval *out,
                            GError **error);
/**
 * The interval prism_corners_eval forms, from figures already priced: @p point the point
 * model's columns of @p s (step time, allocated peak and its persistent bytes,
 * prism_cost_persistent), @p step and @p peak each corner
 * model's. step_lo and step_hi are the least and the largest step, widened by
 * c->widen_step; mem the device figure (prism_cost_memory_kinds) of the point's peak and
 * mem_hi the largest of the three, widened by c->widen_mem. The sweep's interval columns
 * (search_corners.c) form theirs here from batches its kernels priced.
 */
void prism_corners_form(const PrismCorners *c, const PrismStrategy *s,
                        const double point[PRISM_COL_COUNT], const double step[PRISM_CORNER_COUNT],
                        const double peak[PRISM_CORNER_COUNT], PrismInterval *out);

/**
 * Widens @p lo and @p hi by a track record's mean relative error @p w (0 <= w < 1): the
 * record's error is |predicted - measured| / measured, so a prediction e too fast means a
 * measured time of predicted / (1 - e) and one e too slow predicted / (1 + e). Hence
 * *out_lo = lo / (1 + w) and *out_hi = hi / (1 - w) (either pointer may be NULL).
 */
void prism_interval_widen(double lo, double hi, double w, double *out_lo, double *out_hi);

/* ---- reading intervals: equivalence, the simplest of equals, the memory class ---- */

/**
 * TRUE when @p b cannot be told apart from @p a within the model's error: their intervals
 * overlap (b->step_lo <= a->step_hi and a->step_lo <= b->step_hi) and the interval of
 * their ratio b/a contains 1. The ratio is taken at the same corner (the point and both
 * corners: the same clock and efficiencies price both strategies, so the error they share
 * cancels) and widened by @p tolerance, the relative error of a comparison left beyond the
 * ranges (the track record's error on the predicted ratio of two strategies of one
 * workload, prism_track_pair_tolerance): min over the corners of b/a <= 1 + tolerance and
 * max >= 1 - tolerance. Absolute intervals overlap far more often, because most of their
 * width is the error both strategies share (cost/README.md, "Intervals").
 */
gboolean prism_interval_equivalent(const PrismInterval *a, const PrismInterval *b,
                                   double tolerance);

/** Memory with its error: fits (mem_hi within @p usable), at risk (the point fits, mem_hi
 *  does not) or does not fit (the point exceeds @p usable). */
typedef enum {
    PRISM_MEM_FITS = 0,
    PRISM_MEM_AT_RISK = 1,
    PRISM_MEM_NO_FIT = 2,
} PrismMemClass;

PrismMemClass prism_mem_class(const PrismInterval *iv, double usable);
/** Static names: "fits", "at risk", "does not fit". */
const char *prism_mem_class_name(PrismMemClass c);

/** The moving parts of a strategy, each with a count that is 0 when the part is absent
 *  (prism_moving_part_value). */
typedef enum {
    PRISM_MOVING_OFFLOAD = 0, /**< offloaded states: 0 none, 1 one, 2 both */
    PRISM_MOVING_SCHEDULE,    /**< 1f1b 0, gpipe 1, interleaved 2, seq1f1b 3, zb-h1 4, zb-v 5,
                                   dualpipe-v 6, dualpipe 7 (0 without pipelining) */
    PRISM_MOVING_PP,          /**< pipeline stages */
    PRISM_MOVING_VPP,         /**< model chunks per stage */
    PRISM_MOVING_CP,          /**< context parallelism */
    PRISM_MOVING_ZERO,        /**< ZeRO stage */
    PRISM_MOVING_RECOMPUTE,   /**< none 0, selective 1, block 2, full 3 */
    PRISM_MOVING_TP,          /**< tensor parallelism */
    PRISM_MOVING_EP,          /**< expert parallelism */
    PRISM_MOVING_COUNT
} PrismMovingPart;

/** The default simplicity order: fewer of the earlier parts first. */
#define PRISM_SIMPLICITY_DEFAULT "offload,schedule,pp,vpp,cp,zero,recompute,tp,ep"

/** An order of moving parts: order[0] compared first. */
typedef struct PrismSimplicity {
    PrismMovingPart order[PRISM_MOVING_COUNT];
} PrismSimplicity;

/** Parse a comma list of part names (the default's names); parts left out follow in the
 *  default order. NULL = the default. Errors: PRISM_INPUT_ERROR_VALUE naming the part and
 *  the allowed names, or a part named twice. */
gboolean prism_simplicity_parse(const char *text, PrismSimplicity *out, GError **error);
/** "offload,schedule,...". Ownership: g_free(). */
char *prism_simplicity_text(const PrismSimplicity *o);
const char *prism_moving_part_name(PrismMovingPart p);
uint64_t prism_moving_part_value(PrismMovingPart p, const PrismStrategy *s);
/** < 0 when @p a is simpler than @p b under @p o, > 0 when @p b is, 0 when equal. */
int prism_simplicity_cmp(const PrismSimplicity *o, const PrismStrategy *a, const PrismStrategy *b);

/** Which of the equivalent strategies a plan recommends. */
typedef enum {
    PRISM_PICK_FASTEST = 0,  /**< the best point estimate (#1) */
    PRISM_PICK_SIMPLEST = 1, /**< the simplest of those equivalent to #1 (the default) */
    PRISM_PICK_ROBUST = 2,   /**< the least step_hi of those equivalent to #1 */
} PrismPick;

gboolean prism_pick_parse(const char *text, PrismPick *out, GError **error);
/** Static names: "fastest", "simplest", "robust". */
const char *prism_pick_name(PrismPick p);

/**
 * The recommendation among @p n strategies ranked best first (@p s, @p iv): the index
 * @p pick chooses among those equivalent to the first (prism_interval_equivalent with
 * @p tolerance; equiv[i] set to TRUE for them, @p equiv NULL allowed); ties keep the rank
 * order. With @p risky (NULL: none) simplest and robust choose among the equivalent ones
 * that are not at memory risk when there are any. n > 0.
 */
size_t prism_pick(PrismPick pick, const PrismSimplicity *order, const PrismStrategy *s,
                  const PrismInterval *iv, size_t n, double tolerance, const gboolean *risky,
                  gboolean *equiv);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismCorners, prism_corners_free)

G_END_DECLS

#endif /* PRISM_RANGES_H */
