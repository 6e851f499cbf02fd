// SPDX-License-Identifier: MIT
/*
 * dc_engine.c - evaluation orders of an associative reduction (see dc.h): left and right
 * folds, balanced tree, power by repeated squaring, and the ordered cross-rank reduction
 * over point-to-point messages.
 *
 * Re-entrant. prism_dc_combine_ranks() and prism_dc_reduce_ranks() are collective; every
 * other function is local.
 */
#include <prism/dc.h>

#include <limits.h>
#include <string.h>

#include <prism/core.h>

G_DEFINE_QUARK(prism-dc-error-quark, prism_dc_error)

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

static gboolean send_summary(PrismComm *comm, const PrismDcType *type, const void *s, int dest,
                             GError **error)
{
    size_t n = 0;
    g_autofree uint8_t *buf = prism_dc_serialize(type, s, &n);
    if (n > (size_t)INT_MAX) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_MPI,
                    "summary of %zu bytes is too large for one MPI message", n);
        return FALSE;
    }
    PRISM_MPI_TRY(MPI_Send(buf, (int)n, MPI_BYTE, dest, 7301, comm->mpi), error);
    return TRUE;
}

static gboolean recv_summary(PrismComm *comm, const PrismDcType *type, int src, void **out,
                             GError **error)
{
    MPI_Status st;
    int count = 0;
    PRISM_MPI_TRY(MPI_Probe(src, 7301, comm->mpi, &st), error);
    PRISM_MPI_TRY(MPI_Get_count(&st, MPI_BYTE, &count), error);
    g_autofree uint8_t *buf = g_malloc(count > 0 ? (size_t)count : 1);
    PRISM_MPI_TRY(MPI_Recv(buf, count, MPI_BYTE, src, 7301, comm->mpi, MPI_STATUS_IGNORE),
                  error);
    *out = type->deserialize(buf, (size_t)count, error);
    return *out != NULL;
}

/* The binomial tree towards rank 0. Returns the partial on rank 0 (others NULL). A rank
 * whose receive fails keeps draining its other children and then sends an empty message
 * (which no type deserializes) to its parent, so no rank waits forever; the agreement
 * after the tree reports the first error on every rank. */
static gboolean tree_to_root(PrismComm *comm, const PrismDcReduction *r, const void *local,
                             void **out, GError **error)
{
    void *acc = r->type->copy(local);
    for (int step = 1; step < comm->size; step <<= 1) {
        if (comm->rank % (2 * step) == step) {
            gboolean sent;
            if (acc != NULL) {
                sent = send_summary(comm, r->type, acc, comm->rank - step, error);
            } else {
                int rc = MPI_Send(NULL, 0, MPI_BYTE, comm->rank - step, 7301, comm->mpi);
                sent = rc == MPI_SUCCESS;
            }
            if (acc != NULL)
                r->type->free(acc);
            return sent && acc != NULL;
        }
        if (comm->rank % (2 * step) == 0 && comm->rank + step < comm->size) {
            void *other = NULL;
            GError *recv_error = NULL;
            if (!recv_summary(comm, r->type, comm->rank + step, &other, &recv_error)) {
                if (error != NULL && *error == NULL)
                    g_propagate_error(error, recv_error);
                else
                    g_clear_error(&recv_error);
                if (acc != NULL)
                    r->type->free(acc);
                acc = NULL;
                continue;
            }
            if (acc == NULL) {
                r->type->free(other);
                continue;
            }
            /* mine covers lower ranks than the received one: acc . other */
            acc = combine_consume(r, acc, other);
        }
    }
    *out = acc; /* rank 0 only reaches here */
    return acc != NULL;
}

gboolean prism_dc_combine_ranks(PrismComm *comm, const PrismDcReduction *r, const void *local,
                                void **out, GError **error)
{
    g_return_val_if_fail(comm != NULL && r != NULL && local != NULL && out != NULL, FALSE);
    *out = NULL;
    void *root = NULL;
    GError *local_error = NULL;
    (void)tree_to_root(comm, r, local, &root, &local_error);
    /* A receive error on one rank means a malformed message; a sender that already sent
     * cannot block. Agree before the broadcast so nobody waits on a failed root. */
    if (!prism_comm_agree_error(comm, &local_error)) {
        if (root != NULL)
            r->type->free(root);
        g_propagate_error(error, local_error);
        return FALSE;
    }
    size_t n = 0;
    uint8_t *buf = NULL;
    if (comm->rank == 0) {
        buf = prism_dc_serialize(r->type, root, &n);
        *out = root;
    }
    if (!prism_comm_bcast_blob(comm, (void **)&buf, &n, 0, error)) {
        g_free(buf);
        return FALSE;
    }
    gboolean ok = TRUE;
    if (comm->rank != 0) {
        *out = r->type->deserialize(buf, n, &local_error);
        ok = *out != NULL;
    }
    g_free(buf);
    if (!prism_comm_agree_error(comm, &local_error)) {
        if (*out != NULL)
            r->type->free(*out);
        *out = NULL;
        g_propagate_error(error, local_error);
        return FALSE;
    }
    (void)ok;
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
