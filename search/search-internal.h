/*
 * search-internal.h - helpers shared between the files of the search module.
 * Not installed; nothing here is part of the public API.
 */
#ifndef PRISM_SEARCH_INTERNAL_H
#define PRISM_SEARCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>
#include <prism/cost.h>
#include <prism/sink.h>
#include <prism/search.h>
#include <prism/space.h>

G_BEGIN_DECLS

/*
 * Recompute filter values are encoded as (mode << 16) | k so that "block" (every k)
 * and "block:4" are both intervals of one dimension.
 */
#define PRISM_RC_CODE(mode, k) (((uint64_t)(mode) << 16) | (uint64_t)(k))

/* The PrismOverlap bit of an overlap dim, 0 for the other dims. */
unsigned prism_dim_overlap_bit_internal(PrismDim dim);
/** Per-dimension test used by the enumerator (recompute takes PRISM_RC_CODE values). */
/* The equal-chunks rule is on (prism_space_filter_set_uniform_chunks); a NULL filter has
 * it off. */
gboolean prism_space_filter_uniform_internal(const PrismSpaceFilter *f);
/* TRUE when @p f keeps block recompute to every-N-th-layer counts
 * (prism_space_filter_set_every_nth). */
gboolean prism_space_filter_every_nth_internal(const PrismSpaceFilter *f);
/* The cp-shards rule (prism_space_filter_set_cp_shards) accepts ZeRO stage @p zero at context
 * parallelism @p cp; TRUE for a NULL filter or one without the rule. */
gboolean prism_space_filter_cp_shards_internal(const PrismSpaceFilter *f, uint64_t cp,
                                               uint64_t zero);
/* The default-where-allowed rule (prism_space_filter_set_default_where_allowed) of @p dim
 * (sp or zero) accepts @p value; @p allowed: the strategy's tp > 1 (sp) or dp*cp > 1
 * (zero). TRUE for other dims, a dim without the rule and a NULL filter. */
gboolean prism_space_filter_default_internal(const PrismSpaceFilter *f, PrismDim dim,
                                             uint64_t value, gboolean allowed);
gboolean prism_space_filter_accepts_internal(const PrismSpaceFilter *f, PrismDim dim,
                                             uint64_t value);

/** Ascending divisors of @p n (n >= 1). Ownership: g_free(); *count set. */
uint64_t *prism_divisors_internal(uint64_t n, size_t *count);

/** Compact text of an ascending value list ("1..48", "1 2 4 8"), at most ~@p width chars. */
char *prism_values_compact_internal(PrismDim dim, const uint64_t *v, size_t n, size_t width);

/* The corners of the published ranges during a walk with a row sink
 * (PrismSearchOptions.intervals; search_corners.c): the current job's two corner models,
 * their evaluators and compiled segments, and the batch's interval columns. */
typedef struct PrismSearchCorners PrismSearchCorners;
PrismSearchCorners *prism_search_corners_new(size_t batch);
void prism_search_corners_free(PrismSearchCorners *c);
/* Make @p cm (a job's point model) current: its corner models and evaluators. */
gboolean prism_search_corners_job(PrismSearchCorners *c, const PrismCostModel *cm,
                                  const PrismKernelTable *kt, GError **error);
/* Compile the current job's corner segments of @p key (a new segment). */
gboolean prism_search_corners_segment(PrismSearchCorners *c, const PrismSegmentKey *key,
                                      GError **error);
/* Evaluate @p lanes at both corners and fill the interval columns from them and the point
 * columns @p point; returns the PRISM_IV_COUNT columns (valid until the next call). */
const double *const *prism_search_corners_run(PrismSearchCorners *c, const PrismSegmentKey *key,
                                              const PrismLanes *lanes, const PrismCostOut *point);

/* A reducible object: search_reduce.c serialises it for the rank tree of core
 * (prism_comm_reduce_ordered()), whose combine step deserialises, merges and frees. */
typedef struct PrismReduceOps {
    void (*serialize)(const void *obj, GByteArray *out);
    void *(*deserialize)(const guint8 *data, size_t len, GError **error);
    void *(*merge)(const void *a, const void *b); /* pure; returns a new object */
    void (*free)(void *obj);
} PrismReduceOps;

/*
 * Ordered merge of *obj over all ranks (prism_comm_reduce_ordered() with
 * PRISM_COMM_TAG_SEARCH), result broadcast to every rank (replacing *obj). A rank passes
 * *obj == NULL when it failed locally (it still takes part). Collective. On failure
 * every rank returns FALSE and *obj is left as it was: the failing rank with its own
 * error, the others with PRISM_RUNTIME_ERROR_PEER_FAILED quoting it.
 */
gboolean prism_reduce_tree_internal(PrismComm *comm, const PrismReduceOps *ops, void **obj,
                                    GError **error);

/* A job array as PrismSearchJobs (first and weight computed once; get returns
 * jobs[j]). search_driver.c. */
typedef struct {
    PrismSearchJobs src;
    const PrismSearchJob *jobs;
    uint64_t *first;
    double *weight;
} PrismArrayJobs;
void prism_array_jobs_init_internal(PrismArrayJobs *a, const PrismSearchJob *jobs, size_t n_jobs);
void prism_array_jobs_clear_internal(PrismArrayJobs *a);

/* Serialisation helpers (native byte order). */
void prism_put_u32_internal(GByteArray *out, uint32_t v);
void prism_put_u64_internal(GByteArray *out, uint64_t v);
/** Sets PRISM_RUNTIME_ERROR_INTERNAL "corrupt serialised <what>"; returns FALSE. */
gboolean prism_corrupt_internal(GError **error, const char *what);

G_END_DECLS

#endif /* PRISM_SEARCH_INTERNAL_H */
