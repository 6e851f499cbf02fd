/*
 * front.h - Pareto fronts (skylines) and top-k lists over (key vector, global index)
 * points, local and across MPI ranks.
 *
 * Keys are MINIMISED: a caller with a "max" objective negates it before offering.
 * A point whose key has a NaN never enters.
 *
 * Dominance with a deterministic tie-break: q precedes p (q < p) when q <= p in every
 * key and either some key is strictly smaller or the keys are all equal and q has the
 * smaller global index. The front is the set of points no other point precedes: among
 * points with identical key vectors only the lowest index survives. This relation is a
 * strict partial order, so front(A u B) = front(front(A) u front(B)) in any grouping
 * and order: the merge is associative and commutative and the result does not depend
 * on the number of ranks.
 *
 * Canonical order: keys lexicographically ascending, then index ascending. Fronts and
 * top-k lists are always returned and serialised in canonical order, so two equal
 * fronts serialise to identical bytes.
 *
 * Skyline algorithms (all after one canonical sort, where a point can only be preceded
 * by points before it): 2 keys - one scan with a running minimum; 3 keys - a scan with a
 * Fenwick tree of prefix minima; 1 or >= 4 keys - presorted block-nested-loop (SFS).
 * Streaming offers are pre-filtered against the current front and buffered.
 *
 * Not thread-safe: one front per worker. Only the _reduce functions are collective.
 */
#ifndef PRISM_FRONT_H
#define PRISM_FRONT_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>

G_BEGIN_DECLS

/** Most objectives a front supports. */
#define PRISM_FRONT_MAX_OBJECTIVES 8

typedef struct PrismFront PrismFront;
typedef struct PrismTopK PrismTopK;

/**
 * An empty front over @p n_obj keys (1 <= n_obj <= PRISM_FRONT_MAX_OBJECTIVES).
 * Collective: no. Ownership: caller frees with prism_front_free().
 */
PrismFront *prism_front_new(size_t n_obj);
void prism_front_free(PrismFront *f);
/** Deep copy (pending offers included). Ownership: prism_front_free(). */
PrismFront *prism_front_copy(const PrismFront *f);
size_t prism_front_n_objectives(const PrismFront *f);

/**
 * Offer one point: @p key holds n_obj minimised keys. Points preceded by the current
 * front are dropped at once; the others are buffered until the next flush.
 * Collective: no. Errors: none (NaN keys are ignored by design).
 */
void prism_front_offer(PrismFront *f, const double *key, uint64_t index);
/**
 * Offer @p n points at once (@p keys row-major, n x n_obj; @p idx their indices); the
 * same result as n single offers. With 3 or more keys and a large front the batch's own
 * skyline is taken first, so only its survivors are scanned against the front.
 * Collective: no.
 */
void prism_front_offer_batch(PrismFront *f, size_t n, const double *keys, const uint64_t *idx);
/**
 * TRUE when a point of the front (its folded points; the buffered offers are not looked at)
 * is <= @p lb in every key and < in one: then every point whose keys are each >= @p lb is
 * preceded and cannot enter (the search's pruning: @p lb holds lower bounds of a row's keys).
 * NaN in @p lb: FALSE. Collective: no.
 */
gboolean prism_front_covers(const PrismFront *f, const double *lb);
/** Fold the buffered offers into the front (canonical order). Idempotent. */
void prism_front_finish(PrismFront *f);
/** prism_front_finish, then free the buffer of offers (it grows again with the next
 *  offer): a front kept while others are built holds only its points. */
void prism_front_trim(PrismFront *f);

/** Accessors; the front must be finished (prism_front_finish) first. */
size_t prism_front_size(const PrismFront *f);
/** Borrowed: n_obj keys of point @p i, valid until the next offer/finish/free. */
const double *prism_front_key(const PrismFront *f, size_t i);
uint64_t prism_front_index(const PrismFront *f, size_t i);

/**
 * The front of the union of two finished fronts with the same n_obj. Pure: the inputs
 * are not modified. Collective: no. Ownership: caller frees with prism_front_free().
 */
PrismFront *prism_front_merge(const PrismFront *a, const PrismFront *b);
/** TRUE when both hold the same points (finished fronts). */
gboolean prism_front_equal(const PrismFront *a, const PrismFront *b);

/**
 * Append the canonical serialisation of a finished front to @p out (native byte order:
 * "PRFR", version, n_obj, n, then n x (index, keys)).
 */
void prism_front_serialize(const PrismFront *f, GByteArray *out);
/**
 * Read one serialised front from @p data; *used receives the bytes consumed.
 * Errors: PRISM_RUNTIME_ERROR_INTERNAL for a truncated or corrupt buffer.
 * Ownership: prism_front_free().
 */
PrismFront *prism_front_deserialize(const guint8 *data, size_t len, size_t *used, GError **error);

/**
 * Replace *@p f on every rank by the global front: an ordered merge to rank 0 on the rank
 * tree of comm.h (prism_comm_reduce_ordered()), then a broadcast. Every rank must call
 * it, also with an empty front; a rank with *@p f == NULL fails but still takes part. The
 * local front is finished first. Collective: yes (on @p comm). Ownership: *@p f is
 * replaced by a new front on success (the old one freed), left as it was on failure.
 * Errors: PRISM_RUNTIME_ERROR_MPI, PRISM_RUNTIME_ERROR_INTERNAL on a rank without a
 * front, PRISM_RUNTIME_ERROR_PEER_FAILED (quoting the lowest failing rank) on the others.
 */
gboolean prism_front_reduce(PrismComm *comm, PrismFront **f, GError **error);

/**
 * The @p k smallest points by (key, index), one key per point; NaN never enters.
 * Collective: no. Ownership: prism_topk_free().
 */
PrismTopK *prism_topk_new(size_t k);
void prism_topk_free(PrismTopK *t);
PrismTopK *prism_topk_copy(const PrismTopK *t);
/** Capacity k and the current number of points (canonical order, always). */
size_t prism_topk_capacity(const PrismTopK *t);
size_t prism_topk_size(const PrismTopK *t);
double prism_topk_key(const PrismTopK *t, size_t i);
uint64_t prism_topk_index(const PrismTopK *t, size_t i);
/** Offer one point; O(1) when it does not enter, O(k) when it does. */
void prism_topk_offer(PrismTopK *t, double key, uint64_t index);
/** The k best of the union (capacity of @p a). Pure. Ownership: prism_topk_free(). */
PrismTopK *prism_topk_merge(const PrismTopK *a, const PrismTopK *b);
gboolean prism_topk_equal(const PrismTopK *a, const PrismTopK *b);
/** Canonical serialisation ("PRTK", version, k, n, then n x (index, key)). */
void prism_topk_serialize(const PrismTopK *t, GByteArray *out);
/** Errors: PRISM_RUNTIME_ERROR_INTERNAL for a corrupt buffer. */
PrismTopK *prism_topk_deserialize(const guint8 *data, size_t len, size_t *used, GError **error);
/** Global top-k on every rank (same tree as prism_front_reduce). Collective: yes. */
gboolean prism_topk_reduce(PrismComm *comm, PrismTopK **t, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismFront, prism_front_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismTopK, prism_topk_free)

G_END_DECLS

#endif /* PRISM_FRONT_H */
