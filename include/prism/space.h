/*
 * space.h - the strategy space: enumeration, a stable global index (rank/unrank),
 * user filters (--fix, --range, --only) and per-dimension counts (`prism plan --count`).
 *
 * Layout of the index (outermost first):
 *   devices N (ascending, from the device list)
 *     -> structural key (pp, vpp, schedule, recompute, rc_layers, offload), ascending
 *          = one PrismSpaceSegment; every strategy of a segment shares one
 *            PrismSegmentKey and hence one compiled PrismCostSegment
 *       -> lane (tp, cp, ep, sp, mbs, zero, etp, tp_overlap, dp_overlap, param_overlap),
 *          ascending; dp, m and folding are
 *          derived (dp = N/(tp*pp*cp), m = gbs/(dp*mbs), folding per strategy.h).
 *          etp (expert tensor parallelism) joined the lane as its innermost key in
 *          landscape schema 2: a dense model has one etp per lane (etp = tp), so dense
 *          indices did not change; MoE indices from before did (they counted only
 *          tied lanes with etp = tp and ep | dp*cp).
 * offload (landscape schema 3) is the innermost structural key: an index of schema 2
 * maps to the same strategy only when the space holds offload = 0 alone (--fix offload=0).
 * Its DEFAULT domain is {0, 1} (nothing, optimizer state); activation offload (2, 3) is
 * searched only when a filter names the offload dim (--only offload=0,1,2,3 or
 * --range offload=0:3): a filter on offload picks from the whole domain 0..3.
 * The lanes valid for (N, pp, R8 rule) form a structure-of-arrays table of doubles that
 * every segment with that (N, pp, schedule family) points into, so decoding a batch of
 * indices is pointer arithmetic. Building a space only counts the lanes (and collects
 * each dimension's values); a table is materialised when first used.
 * Global index = segment offset (prefix sum of segment sizes) + lane position.
 *
 * The index depends only on (model, training, device list, filters): never on the
 * number of MPI ranks. The space holds exactly the strategies that
 * prism_strategy_check() accepts (shape rules R1-R10 in strategy.h) and that pass the
 * filters. Every dimension is finite, so the default space is the WHOLE space: every
 * vpp with pp*vpp <= L, every k of recompute=block:k allowed by R10, every micro-batch
 * size that divides gbs/dp (search/README.md lists the domains and sizes).
 *
 * A space is read-only after creation and may be shared by threads. Nothing here is
 * collective: every rank builds the same space from the same inputs.
 */
#ifndef PRISM_SPACE_H
#define PRISM_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cost.h>
#include <prism/framework.h>
#include <prism/model.h>
#include <prism/strategy.h>
#include <prism/training.h>

G_BEGIN_DECLS

/* The dims (PrismDim), their names, domains and value texts: registry.h. */

/**
 * User restrictions of the space. Each option narrows one or more dimensions; options
 * on the same dimension intersect. Forms (values never contain '=', so a token with
 * '=' starts a new dimension and tokens without one add values to the current one):
 *   --fix   "tp=8,zero=1"                 one value per dimension
 *   --range "pp=1:16,mbs=1:4"             closed ranges (numeric dims only)
 *   --only  "schedule=1f1b,interleaved,recompute=none,block:2"   value lists
 * recompute accepts none, selective, full, block (every k) and block:K. A filter on
 * rc_layers only restricts recompute=block strategies. Filters on derived dims (dp, m)
 * are allowed. offload takes 0..3; without a filter on it, offload is limited to its
 * default domain {0, 1} (see the index layout above). The overlap dims (tp_overlap,
 * dp_overlap, param_overlap) take 0 (off) or 1 (on); a filter on one only restricts the
 * strategies where the option applies (R12 of strategy.h; elsewhere the dim is blank
 * and holds 1), and 0 is in the domain only where prism_space_filter_set_overlap() says
 * the framework supports turning the option off. Not collective.
 */
typedef struct PrismSpaceFilter PrismSpaceFilter;

/** An empty filter (accepts everything). Ownership: prism_space_filter_free(). */
PrismSpaceFilter *prism_space_filter_new(void);
void prism_space_filter_free(PrismSpaceFilter *f);
/** Deep copy. Ownership: prism_space_filter_free(). */
PrismSpaceFilter *prism_space_filter_copy(const PrismSpaceFilter *f);
/**
 * Add the restrictions of one --fix / --range / --only option value.
 * Errors: PRISM_INPUT_ERROR_PARSE (syntax), _UNKNOWN_NAME (dimension or value name),
 * _VALUE (out of range: zero=5, tp=0, a range on schedule), each naming the option,
 * dimension and value and listing what is allowed.
 */
gboolean prism_space_filter_fix(PrismSpaceFilter *f, const char *text, GError **error);
gboolean prism_space_filter_range(PrismSpaceFilter *f, const char *text, GError **error);
gboolean prism_space_filter_only(PrismSpaceFilter *f, const char *text, GError **error);
/** As prism_space_filter_only(), with @p label instead of "--only" in the filter's text
 *  and errors (a framework profile's domain: "framework megatron-core only"). */
gboolean prism_space_filter_only_from(PrismSpaceFilter *f, const char *label, const char *text,
                                      GError **error);
/** Check that a framework profile's [planning] only @p only (NULL or empty: none) of the
 *  profile @p name read from @p path parses as a filter; the profile reader (cost/) cannot,
 *  the filter being search/'s. Errors: as prism_space_filter_only(), prefixed with the
 *  file, the key and the value. */
gboolean prism_space_filter_check_only(const char *name, const char *path, const char *only,
                                       GError **error);
/**
 * The overlap dims' domains from the framework profile (framework.h, [planning]
 * overlap / overlap_search): @p supported is the PrismOverlap bits the framework can turn
 * off (their dims take {0, 1}; the others only 1, "on" = the knob's hidden fraction, which
 * is today's behaviour), @p searched the subset searched without a filter naming the dim
 * (the rest only with --only/--range/--fix on it). A new filter supports none.
 */
void prism_space_filter_set_overlap(PrismSpaceFilter *f, unsigned supported, unsigned searched);
/**
 * Equal model chunks (a framework profile's [planning] uniform_chunks, framework.h): the
 * space keeps only strategies whose pp*vpp divides the model's layer count
 * (prism_model_split_layers(): every chunk of the schedule holds as many layers, as
 * Megatron asserts). Off by default (prism splits unevenly). A rule on the model, so
 * prism_space_filter_accepts_strategy() does not check it. Shown by
 * prism_space_filter_describe().
 */
void prism_space_filter_set_uniform_chunks(PrismSpaceFilter *f, gboolean on);
/**
 * Block recompute as a framework that checkpoints every N-th layer runs it (a profile's
 * [planning] recompute_layers = every_nth): the space keeps recompute=block:k only where
 * prism_recompute_every_nth(ceil(L / (pp*vpp)), vpp, k) gives an N. Off by default. A rule on
 * the model, as prism_space_filter_set_uniform_chunks().
 */
void prism_space_filter_set_every_nth(PrismSpaceFilter *f, gboolean on);
/**
 * Context parallelism always shards (a profile's [planning] context_parallel_sharding =
 * always, framework.h): the space keeps zero > 0 wherever cp > 1 (torchtitan applies FSDP2
 * over the data and context ranks whenever cp > 1). Off by default. Checked by
 * prism_space_filter_accepts_strategy() and shown by prism_space_filter_describe().
 */
void prism_space_filter_set_cp_shards(PrismSpaceFilter *f, gboolean on);
/**
 * A framework's default for sp and the ZeRO stage where the shape rules allow it, for a
 * search whose tp, dp or cp is free (`prism validate` plans a row that leaves its layout
 * unstated under a profile whose [defaults] give them): with @p sp = 1 the space keeps sp
 * = 1 where tp > 1 and sp = 0 where tp = 1 (R4; Megatron's --sequence-parallel "whenever
 * tp > 1"); with @p zero = z >= 1 it keeps zero = z where dp*cp > 1 and 0 where nothing
 * is sharded (R9). -1 = no rule (the default). A --fix of the same dim would drop the
 * strategies where the rule gives 0; this keeps them. Checked by
 * prism_space_filter_accepts_strategy() and shown by prism_space_filter_describe().
 */
void prism_space_filter_set_default_where_allowed(PrismSpaceFilter *f, int sp, int zero);
/**
 * What framework profile @p fw supports (NULL: nothing to add): its [planning] overlap
 * domains, its equal model chunks and its [planning] only, the latter labelled "framework
 * NAME only" in the filter's text. The search of `prism plan`, `sweep` and `validate`'s
 * planned rows under --framework. Errors: a bad [planning] only, naming the profile file.
 */
gboolean prism_space_filter_framework(PrismSpaceFilter *f, const PrismFramework *fw,
                                      GError **error);
/**
 * Why profile @p fw does not run strategy @p s of model @p m, or NULL when it does (or @p fw
 * is NULL): "it is outside the profile's [planning] only (...)" or "its model chunks are
 * unequal (pp*vpp = P does not divide the L layers, which NAME asserts)". `prism explain`
 * and `prism validate` price such a strategy anyway and say this next to it; `prism plan
 * --framework` never proposes it. @p s must have pp, vpp >= 1. Ownership: g_free().
 */
char *prism_space_framework_unsupported(const PrismFramework *fw, const PrismModel *m,
                                        const PrismStrategy *s);
/** TRUE when some restriction applies to @p dim. */
gboolean prism_space_filter_restricts(const PrismSpaceFilter *f, PrismDim dim);
/** TRUE when strategy @p s passes every restriction of @p f (NULL accepts all) but the
 *  equal-chunks rule (a rule on the model; the space applies it). */
gboolean prism_space_filter_accepts_strategy(const PrismSpaceFilter *f, const PrismStrategy *s);
/**
 * The filter as text, "" when empty, e.g. "tp in {8}; pp in [1,16]". Stable: written
 * into outputs as part of the space description. Ownership: g_free().
 */
char *prism_space_filter_describe(const PrismSpaceFilter *f);

/** One segment: a run of consecutive indices sharing one structural key. */
typedef struct PrismSpaceSegment {
    PrismSegmentKey key;
    uint64_t first; /**< global index of its first strategy */
    uint64_t count; /**< strategies in the segment (== lanes of its table) */
    uint32_t table; /**< lane table id */
} PrismSpaceSegment;

typedef struct PrismSpace PrismSpace;

/**
 * Enumerate the space. @p devices is a sorted, duplicate-free list of device counts
 * (PrismInputs.devices). @p filter may be NULL.
 * Errors: PRISM_INPUT_ERROR_VALUE (empty device list, a device count of 0),
 * PRISM_INPUT_ERROR_INFEASIBLE when no valid strategy passes the filters (the message
 * names the dimension whose filter excludes every valid value, or says that the
 * combination is empty). Ownership: prism_space_free().
 */
PrismSpace *prism_space_new(const PrismModel *model, const PrismTraining *training,
                            const uint32_t *devices, size_t n_devices,
                            const PrismSpaceFilter *filter, GError **error);
/** A stop hook: TRUE ends the enumeration (e.g. a caught SIGINT). */
typedef gboolean (*PrismSpaceStopFn)(void *user);
/**
 * prism_space_new with @p stop polled between lane tables (each is counted in
 * milliseconds; a large space takes seconds in all): a TRUE returns NULL with
 * PRISM_RUNTIME_ERROR_INTERRUPTED and frees what was built. @p stop NULL: never stops. Not
 * collective: each rank polls its own hook, and the caller agrees on the outcome.
 */
PrismSpace *prism_space_new_stoppable(const PrismModel *model, const PrismTraining *training,
                                      const uint32_t *devices, size_t n_devices,
                                      const PrismSpaceFilter *filter, PrismSpaceStopFn stop,
                                      void *stop_user, GError **error);
void prism_space_free(PrismSpace *space);

/** Number of strategies. */
uint64_t prism_space_size(const PrismSpace *space);
/** Segments in index order; borrowed, valid while @p space lives. */
const PrismSpaceSegment *prism_space_segments(const PrismSpace *space, size_t *n);
/** The segment holding @p index (binary search); index must be < size. */
size_t prism_space_find_segment(const PrismSpace *space, uint64_t index);
/**
 * A view of @p n lanes starting at lane @p lane of segment @p seg: pointers into the
 * lane table (no copy), valid while @p space lives, until prism_space_release_lanes(),
 * and until a call of prism_space_lanes/_unrank/_rank on lanes of another (device count,
 * pp): a space holds the lane tables of one (device count, pp) at a time, and builds
 * (the same lanes every time) those it needs. lane + n must be <= seg count. One thread
 * at a time per space.
 */
void prism_space_lanes(const PrismSpace *space, size_t seg, uint64_t lane, size_t n,
                       PrismLanes *out);
/**
 * Free the lane tables, the bulk of a space's memory (108 bytes a lane; a space keeps
 * those of one (device count, pp) at most, and none after prism_space_new). Size, segments,
 * dimension values and the index are unchanged; prism_space_lanes(), _unrank() and
 * _rank() rebuild the one table they need, identically. Lets a grid keep every point's
 * space while only the one being walked holds its lanes (search/README.md, "Memory").
 * Not thread-safe with other calls on the same space.
 */
void prism_space_release_lanes(const PrismSpace *space);
/** Number of lane tables and the lane count of table @p t. */
size_t prism_space_n_tables(const PrismSpace *space);
size_t prism_space_table_size(const PrismSpace *space, size_t t);

/** Strategy at @p index. Returns FALSE (no error) when index >= size. */
gboolean prism_space_unrank(const PrismSpace *space, uint64_t index, PrismStrategy *out);
/** Index of @p s. Returns FALSE (no error) when @p s is not in the space. */
gboolean prism_space_rank(const PrismSpace *space, const PrismStrategy *s, uint64_t *index);

/**
 * The distinct values dimension @p dim takes in the space, ascending.
 * Ownership: g_free() the array.
 */
uint64_t *prism_space_dim_values(const PrismSpace *space, PrismDim dim, size_t *n);
/** The device list the space was built for (borrowed). */
const uint32_t *prism_space_devices(const PrismSpace *space, size_t *n);
/** Number of transformer layers L the pipeline splits (prism_model_split_layers). */
uint32_t prism_space_layers(const PrismSpace *space);

/**
 * The `prism plan --count` report: size per dimension (distinct values and a compact
 * list), segments, lane tables and the total. Text table, or JSON
 * {"total":..,"segments":..,"dims":{"tp":{"count":6,"values":[1,2,...]},...}}.
 * Ownership: g_free().
 */
char *prism_space_describe(const PrismSpace *space, gboolean json);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismSpaceFilter, prism_space_filter_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismSpace, prism_space_free)

G_END_DECLS

#endif /* PRISM_SPACE_H */
