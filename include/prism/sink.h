/*
 * sink.h - where evaluated rows go: the contract between the search driver (search/)
 * and the output writers (io/).
 *
 * The global index space of a run is the concatenation of its jobs (one job per grid
 * point; a plain run has one job). Rank r owns one contiguous block [lo, hi) of that
 * space. The driver evaluates its block in increasing index order, batch by batch, and
 * hands every batch to the sink, feasible or not. Batches never straddle a segment or
 * a job boundary.
 *
 * Resume: the driver always evaluates the whole block (evaluation is cheap; fronts and
 * top-k need every row); a sink that already persisted some rows simply skips them.
 */
#ifndef PRISM_SINK_H
#define PRISM_SINK_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cost.h>

G_BEGIN_DECLS

/* Defined in search.h (which includes this header). */
typedef struct PrismSearchResult PrismSearchResult;

/** The interval columns a sink receives with PrismSearchOptions.intervals (ranges.h): the
 *  corners of the published ranges, not widened by a track record. */
typedef enum {
    PRISM_IV_STEP_LO = 0, /**< s: the least of the point and both corners' step times */
    PRISM_IV_STEP_HI,     /**< s: the largest of them */
    PRISM_IV_MEM_HI,      /**< bytes: the largest device figure (prism_cost_memory_kinds) */
    PRISM_IV_MEM_RISK,    /**< PrismMemClass of the device figure: 0 fits, 1 at risk,
                               2 does not fit (prism_mem_class against the usable memory) */
    PRISM_IV_COUNT
} PrismIntervalCol;

typedef struct PrismRowBatch {
    uint64_t first_index;       /**< global index of row 0 of this batch */
    size_t n;                   /**< rows in the batch */
    uint32_t job;               /**< job (grid point) id, 0 for single runs */
    uint64_t job_first_index;   /**< the job-local index of row 0 */
    const PrismSegmentKey *key; /**< structural dims shared by every row */
    const PrismLanes *lanes;    /**< per-row dims (tp, cp, dp, ep, sp, mbs, m, zero) */
    const PrismCostOut *cols;   /**< per-row cost columns, PRISM_COL_COUNT of them */
    double flops_time;          /**< the segment's prism_cost_segment_flops_time() */
    /** per-row interval columns (PrismIntervalCol); NULL without
     *  PrismSearchOptions.intervals */
    const double *iv[PRISM_IV_COUNT];
} PrismRowBatch;

typedef struct PrismRowSink {
    /**
     * Called once on every rank before any rows. @p total is the size of the global
     * index space, [lo, hi) this rank's block; every rank can recompute every other
     * rank's block from the same partition. Collective: yes.
     */
    gboolean (*begin)(void *user, uint64_t total, uint64_t lo, uint64_t hi, GError **error);
    /**
     * One batch of this rank's rows, in increasing index order. A sink that writes
     * collectively must arrange that every rank makes the same number of collective
     * calls (for example fixed-size rounds, padded with empty writes in end()).
     */
    gboolean (*rows)(void *user, const PrismRowBatch *batch, GError **error);
    /**
     * After the last batch (also after an error, with ok = FALSE; then also on ranks
     * whose own begin() or rows() failed). Collective: yes.
     */
    gboolean (*end)(void *user, gboolean ok, GError **error);
    void *user;
    /**
     * Optional (NULL = not called): after a successful loop, once the global fronts and
     * top-k lists are merged, with the same @p result on every rank, before
     * end(ok = TRUE). A writer stores /pareto and /topk here. Collective: yes.
     */
    gboolean (*results)(void *user, const PrismSearchResult *result, GError **error);
} PrismRowSink;

G_END_DECLS

#endif /* PRISM_SINK_H */
