/*
 * dc.h - the layer-sequence divide-and-conquer engine (Third Homomorphism).
 *
 * A reduction over a sequence x_0 .. x_{n-1} is described by four things:
 *   - a summary TYPE (PrismDcType): copy, free, equality, and a serialized form so that
 *     summaries can travel over MPI;
 *   - the IDENTITY summary e;
 *   - an associative COMBINE a . b (NOT commutative in general: a summarises a segment
 *     that comes BEFORE the segment of b);
 *   - LEAF(i), the summary of the one-element segment [i, i+1).
 * Then h([lo, hi)) = leaf(lo) . leaf(lo+1) . ... . leaf(hi-1) is the same for every
 * parenthesisation, and this module offers the evaluation orders:
 *   left fold ((e.x0).x1)..., right fold x0.(x1.(...e)), balanced tree (split at the
 *   middle), ordered cross-rank reduction (each rank reduces its contiguous block, then a
 *   binomial tree over point-to-point messages combines the rank summaries in rank
 *   order), and power(s, n) = s . s ... s (n times) by repeated squaring.
 * Summary types whose combine is exact (integer min-plus matrices and integer Pareto sets
 * below) give bit-identical results for every order; that is what the tests check.
 *
 * Two summary types ship here and serve both instances (search/DC.md):
 *   PrismMinPlus  - a rows x cols (min,+) matrix of int64 costs; combine = matrix
 *                   product (min over k of a[i][k] + b[k][j]); identity = a tagged unit
 *                   that adapts to any size. Costs are integers (e.g. picoseconds,
 *                   bytes), so + is exact and associative; PRISM_DC_INF is +infinity and
 *                   saturates.
 *   PrismParetoMat - a rows x cols matrix whose entries are Pareto sets of (time, mem)
 *                   int64 pairs, both minimised; combine = for each (i, j) the union over
 *                   k of the Minkowski sums a[i][k] + b[k][j], pruned to the canonical
 *                   front (time strictly increasing, mem strictly decreasing).
 * Serialized forms (host byte order; all ranks of a job share the architecture):
 *   PrismMinPlus:  u32 rows, u32 cols, then rows*cols int64 row-major.
 *                  The identity is rows = cols = 0 (8 bytes).
 *   PrismParetoMat: u32 rows, u32 cols, rows*cols u32 point counts (row-major), then
 *                  for each entry its points as int64 (time, mem) pairs in front order.
 * The engine frames nothing itself: the payload handed to the rank tree of comm.h is
 * exactly the type's serialized bytes (the tree adds its own status frame).
 *
 * Threading: every function is re-entrant; a reduction's user data is only read.
 * Collective: only prism_dc_reduce_ranks() and prism_dc_combine_ranks().
 */
#ifndef PRISM_DC_H
#define PRISM_DC_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>

G_BEGIN_DECLS

/** +infinity for integer costs; a + b saturates to it. */
#define PRISM_DC_INF INT64_MAX

/** Error domain of the engine (corrupt serialized summaries). */
#define PRISM_DC_ERROR (prism_dc_error_quark())
GQuark prism_dc_error_quark(void);

typedef enum {
    PRISM_DC_ERROR_CORRUPT = 0, /**< a serialized summary does not parse */
    PRISM_DC_ERROR_SHAPE = 1,   /**< summaries of incompatible shapes were combined */
} PrismDcError;

/** Saturating addition of two costs (either >= PRISM_DC_INF gives PRISM_DC_INF). */
static inline int64_t prism_dc_add(int64_t a, int64_t b)
{
    if (a == PRISM_DC_INF || b == PRISM_DC_INF)
        return PRISM_DC_INF;
    int64_t s;
    if (__builtin_add_overflow(a, b, &s))
        return PRISM_DC_INF;
    return s;
}

/** The data side of a summary type. All callbacks are required. */
typedef struct PrismDcType {
    const char *name;
    void *(*copy)(const void *s);
    void (*free)(void *s);
    gboolean (*equal)(const void *a, const void *b);
    /** Bytes that serialize() writes. */
    size_t (*size)(const void *s);
    void (*serialize)(const void *s, uint8_t *buf);
    /** Parse exactly @p n bytes; NULL with PRISM_DC_ERROR_CORRUPT on bad input. */
    void *(*deserialize)(const uint8_t *buf, size_t n, GError **error);
} PrismDcType;

/** A reduction: the type plus identity, combine and leaf, with their user data. */
typedef struct PrismDcReduction {
    const PrismDcType *type;
    void *(*identity)(void *user);
    /** New summary a . b; a's segment precedes b's. Must be associative. */
    void *(*combine)(const void *a, const void *b, void *user);
    /** Summary of element @p index. */
    void *(*leaf)(size_t index, void *user);
    void *user;
} PrismDcReduction;

/**
 * h([lo, hi)) as a left fold ((e . x_lo) . x_lo+1) ... (hi == lo gives the identity).
 * Collective: no. Ownership: caller frees with r->type->free().
 */
void *prism_dc_fold_left(const PrismDcReduction *r, size_t lo, size_t hi);

/** h([lo, hi)) as a right fold x_lo . (x_lo+1 . (... . e)). Same ownership. */
void *prism_dc_fold_right(const PrismDcReduction *r, size_t lo, size_t hi);

/**
 * h([lo, hi)) as a balanced tree: split at lo + (hi - lo) / 2, reduce both halves,
 * combine. Depth ceil(log2(hi - lo)). Collective: no. Same ownership.
 */
void *prism_dc_tree(const PrismDcReduction *r, size_t lo, size_t hi);

/**
 * s . s . ... . s (@p n times) by repeated squaring: O(log n) combines.
 * n == 0 gives the identity. Collective: no. Ownership: caller frees the result.
 */
void *prism_dc_power(const PrismDcReduction *r, const void *s, uint64_t n);

/**
 * Ordered combine of one summary per rank: the result is local_0 . local_1 ... local_P-1
 * (rank order), computed on the ordered rank tree prism_comm_reduce_ordered() (comm.h,
 * tag PRISM_COMM_TAG_DC: at step k, rank r with r mod 2k == k sends its partial to r - k,
 * which combines mine . received), then broadcast from rank 0, so every rank returns the
 * same summary. At one rank the result is a copy of @p local.
 * Collective: yes (on @p comm). Ownership: caller frees *out with r->type->free();
 * @p local is only read. Errors: PRISM_RUNTIME_ERROR_MPI, PRISM_DC_ERROR_CORRUPT on the
 * rank that failed to decode a summary, PRISM_RUNTIME_ERROR_PEER_FAILED (quoting it) on
 * the others; every rank fails together.
 */
gboolean prism_dc_combine_ranks(PrismComm *comm, const PrismDcReduction *r, const void *local,
                                void **out, GError **error);

/**
 * h([0, n)) over MPI: rank k reduces its contiguous block (prism_partition_block) with
 * prism_dc_tree(), then prism_dc_combine_ranks(). The result equals prism_dc_fold_left()
 * for any number of ranks when combine is exact. Collective: yes. Ownership and errors
 * as prism_dc_combine_ranks().
 */
gboolean prism_dc_reduce_ranks(PrismComm *comm, const PrismDcReduction *r, size_t n, void **out,
                               GError **error);

/** Serialize to a new buffer of *n bytes. Ownership: g_free(). Collective: no. */
uint8_t *prism_dc_serialize(const PrismDcType *type, const void *s, size_t *n);

/* Min-plus matrices. */

/** A (min,+) matrix, or the identity (rows == cols == 0, is_identity TRUE). */
typedef struct PrismMinPlus {
    uint32_t rows, cols;
    gboolean is_identity;
    int64_t *v; /**< rows*cols, row-major */
} PrismMinPlus;

/** The summary type of PrismMinPlus. Static. */
extern const PrismDcType prism_minplus_type;

/** New rows x cols matrix filled with @p fill. Ownership: prism_minplus_free(). */
PrismMinPlus *prism_minplus_new(uint32_t rows, uint32_t cols, int64_t fill);
/** The identity. Ownership: prism_minplus_free(). */
PrismMinPlus *prism_minplus_identity(void);
void prism_minplus_free(PrismMinPlus *m);
PrismMinPlus *prism_minplus_copy(const PrismMinPlus *m);
static inline int64_t prism_minplus_get(const PrismMinPlus *m, uint32_t i, uint32_t j)
{
    return m->v[(size_t)i * m->cols + j];
}
static inline void prism_minplus_set(PrismMinPlus *m, uint32_t i, uint32_t j, int64_t x)
{
    m->v[(size_t)i * m->cols + j] = x;
}
/**
 * a . b = min-plus product. Programming error (g_return_val_if_fail) when a->cols !=
 * b->rows. Ownership: caller frees. Not collective.
 */
PrismMinPlus *prism_minplus_mul(const PrismMinPlus *a, const PrismMinPlus *b);
/** Entrywise sum (parallel composition); same shapes required. Identity is not allowed. */
PrismMinPlus *prism_minplus_add(const PrismMinPlus *a, const PrismMinPlus *b);
/** Smallest entry (PRISM_DC_INF for an empty matrix). */
int64_t prism_minplus_min(const PrismMinPlus *m);
gboolean prism_minplus_equal(const PrismMinPlus *a, const PrismMinPlus *b);

/** A reduction over an array of borrowed PrismMinPlus (leaf(i) copies items[i]). */
void prism_minplus_reduction_init(PrismDcReduction *r, PrismMinPlus *const *items);

/* Pareto-set matrices. */

/** One (time, mem) point; both minimised. */
typedef struct PrismParetoPoint {
    int64_t time;
    int64_t mem;
} PrismParetoPoint;

/** A rows x cols matrix of canonical Pareto sets, or the identity (rows == cols == 0). */
typedef struct PrismParetoMat {
    uint32_t rows, cols;
    gboolean is_identity;
    uint32_t *count;       /**< rows*cols point counts */
    uint32_t *offset;      /**< rows*cols + 1 offsets into pts */
    PrismParetoPoint *pts; /**< all fronts, concatenated row-major */
} PrismParetoMat;

extern const PrismDcType prism_pareto_type;

/**
 * Build from rows*cols candidate point lists (each pruned to its canonical front;
 * an empty list = infeasible entry). @p lists[e] has @p lens[e] points.
 * Ownership: prism_pareto_free().
 */
PrismParetoMat *prism_pareto_new(uint32_t rows, uint32_t cols, const PrismParetoPoint *const *lists,
                                 const uint32_t *lens);
PrismParetoMat *prism_pareto_identity(void);
void prism_pareto_free(PrismParetoMat *m);
PrismParetoMat *prism_pareto_copy(const PrismParetoMat *m);
PrismParetoMat *prism_pareto_mul(const PrismParetoMat *a, const PrismParetoMat *b);
/** Entrywise Minkowski sum (parallel composition). */
PrismParetoMat *prism_pareto_add(const PrismParetoMat *a, const PrismParetoMat *b);
gboolean prism_pareto_equal(const PrismParetoMat *a, const PrismParetoMat *b);
/** The front of all entries together. Ownership: g_free(); *n receives the count. */
PrismParetoPoint *prism_pareto_overall(const PrismParetoMat *m, uint32_t *n);
/**
 * Prune @p pts in place to its canonical front (sort by time then mem, keep strictly
 * decreasing mem). Returns the new count.
 */
uint32_t prism_pareto_prune(PrismParetoPoint *pts, uint32_t n);

void prism_pareto_reduction_init(PrismDcReduction *r, PrismParetoMat *const *items);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismMinPlus, prism_minplus_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismParetoMat, prism_pareto_free)

G_END_DECLS

#endif /* PRISM_DC_H */
