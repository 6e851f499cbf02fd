// SPDX-License-Identifier: MIT
/*
 * search_reduce.c - the cross-rank merge of fronts and top-k lists: a fixed binomial
 * tree over point-to-point messages to rank 0, then a broadcast of the result.
 *
 * At step s = 1, 2, 4, ... rank r sends its partial result to r - s when bit s is the
 * lowest set bit of r, and otherwise receives from r + s (if that rank exists) and
 * merges. Message sizes vary, so receivers use MPI_Probe + MPI_Get_count. Every message
 * starts with a status byte: a rank that failed locally still takes part (it sends
 * "failed" upward), so no rank is left blocked; the final status is broadcast and
 * agreed. Collective on the communicator passed in.
 */
#include <prism/front.h>

#include <limits.h>
#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

#define REDUCE_TAG 0x5052 /* "PR" */

/* Wrap a serialised payload with its status byte. */
static GByteArray *frame(const PrismReduceOps *ops, const void *obj, gboolean ok)
{
    GByteArray *b = g_byte_array_new();
    guint8 status = ok ? 1 : 0;
    g_byte_array_append(b, &status, 1);
    if (ok)
        ops->serialize(obj, b);
    return b;
}

/* Decode a frame; NULL with *ok = FALSE for a "failed" frame (the sender or one of its
 * children holds the error) or a corrupt payload (error set here). */
static void *unframe(const PrismReduceOps *ops, const guint8 *data, size_t len, gboolean *ok,
                     GError **error)
{
    if (len < 1 || data[0] != 1) {
        *ok = FALSE;
        return NULL;
    }
    void *obj = ops->deserialize(data + 1, len - 1, error);
    *ok = obj != NULL;
    return obj;
}

gboolean prism_reduce_tree_internal(PrismComm *comm, const PrismReduceOps *ops, void **obj,
                                    GError **error)
{
    GError *local = NULL;
    gboolean ok = *obj != NULL;
    if (!ok)
        g_set_error(&local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "rank %d has no local result to reduce", comm->rank);
    int rank = comm->rank, size = comm->size;
    for (int s = 1; s < size; s <<= 1) {
        if (rank & s) {
            g_autoptr(GByteArray) msg = frame(ops, *obj, ok);
            if (msg->len > INT_MAX) { /* cannot happen for fronts; keep the protocol */
                if (local == NULL)
                    g_set_error(&local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                                "reduction message of %u bytes exceeds INT_MAX", msg->len);
                g_byte_array_set_size(msg, 1);
                msg->data[0] = 0;
                ok = FALSE;
            }
            int rc = MPI_Send(msg->data, (int)msg->len, MPI_BYTE, rank - s, REDUCE_TAG, comm->mpi);
            if (rc != MPI_SUCCESS && local == NULL) {
                prism_mpi_set_error(&local, rc, "MPI_Send", __FILE__, __LINE__);
                ok = FALSE;
            }
            break;
        }
        if (rank + s >= size)
            continue;
        MPI_Status st;
        int count = 0;
        int rc = MPI_Probe(rank + s, REDUCE_TAG, comm->mpi, &st);
        if (rc == MPI_SUCCESS)
            rc = MPI_Get_count(&st, MPI_BYTE, &count);
        g_autofree guint8 *buf = g_malloc(count > 0 ? (size_t)count : 1);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(buf, count, MPI_BYTE, rank + s, REDUCE_TAG, comm->mpi, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            if (local == NULL)
                prism_mpi_set_error(&local, rc, "MPI_Probe/MPI_Recv", __FILE__, __LINE__);
            ok = FALSE;
            continue;
        }
        gboolean child_ok = FALSE;
        void *child = unframe(ops, buf, (size_t)count, &child_ok, local ? NULL : &local);
        if (child_ok && ok) {
            void *merged = ops->merge(*obj, child);
            ops->free(*obj);
            *obj = merged;
        }
        if (child != NULL)
            ops->free(child);
        ok = ok && child_ok;
    }
    /* Broadcast the root's result (or its failure) to every rank. */
    g_autoptr(GByteArray) root_msg = rank == 0 ? frame(ops, *obj, ok) : NULL;
    void *blob = rank == 0 ? g_memdup2(root_msg->data, root_msg->len) : NULL;
    size_t blob_len = rank == 0 ? root_msg->len : 0;
    if (!prism_comm_bcast_blob(comm, &blob, &blob_len, 0, local ? NULL : &local))
        ok = FALSE;
    if (rank != 0) {
        gboolean root_ok = FALSE;
        void *result = blob ? unframe(ops, blob, blob_len, &root_ok, local ? NULL : &local) : NULL;
        if (*obj != NULL)
            ops->free(*obj);
        *obj = result;
        ok = ok && root_ok;
    }
    g_free(blob);
    /* Every rank agrees; the lowest failing rank's own error reaches all of them. */
    if (!prism_comm_agree_error(comm, &local)) {
        g_propagate_error(error, local);
        return FALSE;
    }
    if (!ok) { /* a failed frame always comes from a rank that holds an error */
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "the front reduction failed without an error message");
        return FALSE;
    }
    return TRUE;
}

static void front_ser(const void *obj, GByteArray *out)
{
    prism_front_serialize(obj, out);
}

static void *front_de(const guint8 *data, size_t len, GError **error)
{
    size_t used = 0;
    return prism_front_deserialize(data, len, &used, error);
}

static void *front_merge(const void *a, const void *b)
{
    return prism_front_merge(a, b);
}

static void front_free(void *f)
{
    prism_front_free(f);
}

gboolean prism_front_reduce(PrismComm *comm, PrismFront **f, GError **error)
{
    static const PrismReduceOps ops = {front_ser, front_de, front_merge, front_free};
    if (*f != NULL)
        prism_front_finish(*f);
    return prism_reduce_tree_internal(comm, &ops, (void **)f, error);
}

static void topk_ser(const void *obj, GByteArray *out)
{
    prism_topk_serialize(obj, out);
}

static void *topk_de(const guint8 *data, size_t len, GError **error)
{
    size_t used = 0;
    return prism_topk_deserialize(data, len, &used, error);
}

static void *topk_merge(const void *a, const void *b)
{
    return prism_topk_merge(a, b);
}

static void topk_free(void *t)
{
    prism_topk_free(t);
}

gboolean prism_topk_reduce(PrismComm *comm, PrismTopK **t, GError **error)
{
    static const PrismReduceOps ops = {topk_ser, topk_de, topk_merge, topk_free};
    return prism_reduce_tree_internal(comm, &ops, (void **)t, error);
}
