// SPDX-License-Identifier: MIT
/*
 * dc_engine.c - evaluation orders of an associative reduction (see dc.h): left and right
 * folds, balanced tree, power by repeated squaring, and the ordered cross-rank reduction
 * on the rank tree of core (prism_comm_reduce_ordered(), comm.h).
 *
 * Re-entrant. prism_dc_combine_ranks() and prism_dc_reduce_ranks() are collective; every
 * other function is local.
 */
#include <prism/dc.h>

#include <string.h>

#include <prism/core.h>

G_DEFINE_QUARK(prism - dc - error - quark, prism_dc_error)

/* Combine and free both inputs: a . b. */
static void *combine_consume(const PrismDcReduction *r, void *a, void *b)
{
    void *c = r->combine(a, b, r->user);
    r->type->free(a);
    r->type->free(b);
    return c;
}

void *prism_dc_fold_left(const PrismDcReduction *r, size_t lo, size_t hi)
{
    void *acc = r->identity(r->user);
    for (size_t i = lo; i < hi; i++)
        acc = combine_consume(r, acc, r->leaf(i, r->user));
    return acc;
}

void *prism_dc_fold_right(const PrismDcReduction *r, size_t lo, size_t hi)
{
    void *acc = r->identity(r->user);
    for (size_t i = hi; i > lo; i--)
        acc = combine_consume(r, r->leaf(i - 1, r->user), acc);
    return acc;
}

static void *tree_rec(const PrismDcReduction *r, size_t lo, size_t hi)
{
    if (hi - lo == 1)
        return r->leaf(lo, r->user);
    size_t mid = lo + (hi - lo) / 2;
    void *a = tree_rec(r, lo, mid);
    void *b = tree_rec(r, mid, hi);
    return combine_consume(r, a, b);
}

void *prism_dc_tree(const PrismDcReduction *r, size_t lo, size_t hi)
{
    if (hi <= lo)
        return r->identity(r->user);
    return tree_rec(r, lo, hi);
}

void *prism_dc_power(const PrismDcReduction *r, const void *s, uint64_t n)
{
    /* All powers of s commute with each other, so the product order of the binary
     * digits does not matter even for a non-commutative combine. */
    void *result = r->identity(r->user);
    if (n == 0)
        return result;
    void *base = r->type->copy(s);
    for (;;) {
        if (n & 1u)
            result = combine_consume(r, result, r->type->copy(base));
        n >>= 1;
        if (n == 0)
            break;
        void *sq = r->combine(base, base, r->user);
        r->type->free(base);
        base = sq;
    }
    r->type->free(base);
    return result;
}

uint8_t *prism_dc_serialize(const PrismDcType *type, const void *s, size_t *n)
{
    *n = type->size(s);
    uint8_t *buf = g_malloc(*n ? *n : 1);
    type->serialize(s, buf);
    return buf;
}

/* The combine step of the rank tree (comm.h): bytes of deserialize(left) . deserialize(right). */
static gboolean combine_bytes(const guint8 *left, size_t left_len, const guint8 *right,
                              size_t right_len, GByteArray *out, gpointer user, GError **error)
{
    const PrismDcReduction *r = user;
    void *a = r->type->deserialize(left, left_len, error);
    if (a == NULL)
        return FALSE;
    void *b = r->type->deserialize(right, right_len, error);
    if (b == NULL) {
        r->type->free(a);
        return FALSE;
    }
    void *c = combine_consume(r, a, b);
    size_t n = r->type->size(c);
    if (n > G_MAXUINT) {
        r->type->free(c);
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_MPI,
                    "summary of %zu bytes is too large for the rank tree", n);
        return FALSE;
    }
    g_byte_array_set_size(out, (guint)n);
    r->type->serialize(c, out->data);
    r->type->free(c);
    return TRUE;
}

gboolean prism_dc_combine_ranks(PrismComm *comm, const PrismDcReduction *r, const void *local,
                                void **out, GError **error)
{
    g_return_val_if_fail(comm != NULL && r != NULL && local != NULL && out != NULL, FALSE);
    *out = NULL;
    if (comm->size == 1) { /* nothing travels: the result is the local summary */
        *out = r->type->copy(local);
        return TRUE;
    }
    size_t n = 0;
    g_autofree uint8_t *mine = prism_dc_serialize(r->type, local, &n);
    GError *local_error = NULL;
    g_autoptr(GByteArray) all = NULL;
    if (!prism_comm_reduce_ordered(comm, PRISM_COMM_TAG_DC, mine, n, TRUE, combine_bytes,
                                   (gpointer)r, PRISM_COMM_REDUCE_ALL, &all, &local_error)) {
        g_propagate_error(error, local_error);
        return FALSE;
    }
    void *result = r->type->deserialize(all->data, all->len, &local_error);
    if (!prism_comm_agree(comm, result != NULL, &local_error)) {
        if (result != NULL)
            r->type->free(result);
        g_propagate_error(error, local_error);
        return FALSE;
    }
    *out = result;
    return TRUE;
}

gboolean prism_dc_reduce_ranks(PrismComm *comm, const PrismDcReduction *r, size_t n, void **out,
                               GError **error)
{
    uint64_t lo = 0, hi = 0;
    prism_partition_block(n, comm->rank, comm->size, &lo, &hi);
    void *local = prism_dc_tree(r, (size_t)lo, (size_t)hi);
    gboolean ok = prism_dc_combine_ranks(comm, r, local, out, error);
    r->type->free(local);
    return ok;
}
