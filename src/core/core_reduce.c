// SPDX-License-Identifier: MIT
/*
 * core_reduce.c - the ordered rank tree (comm.h, prism_comm_reduce_ordered()): the one
 * place in prism that sends point-to-point messages.
 *
 * Binomial tree to rank 0: at step s = 1, 2, 4, ..., rank r with r mod 2s == s sends its
 * partial (covering ranks r .. r+s-1) to r - s and leaves; the receiver combines
 * (own, received), own covering the lower ranks. Then rank 0 broadcasts the outcome.
 *
 * Every message is a frame: a header of two uint64 (status, body length) followed by the
 * body in chunks of at most comm->max_count bytes (so counts stay <= INT_MAX). An OK
 * frame's body is the payload; a FAILED frame's body is the lowest failing rank of the
 * sender's subtree (int32) and that rank's message. A rank that failed keeps sending and
 * receiving what the tree expects, so nobody blocks; the broadcast from rank 0 (status,
 * failing rank, body length, then the body) tells every rank the outcome.
 *
 * Collective; not thread-safe (MPI_THREAD_FUNNELED use).
 */
#include <prism/comm.h>

#include <limits.h>
#include <string.h>

#include <prism/core.h>

#include "core-internal.h"

enum { FRAME_FAILED = 0, FRAME_OK = 1 };

/* The state of one rank's subtree while the tree runs. */
typedef struct {
    GByteArray *acc; /* partial result; NULL once the subtree failed */
    int fail_rank;   /* lowest failing rank of the subtree, or -1 */
    char *fail_msg;  /* its message */
    GError *own;     /* this rank's own error, if this rank failed */
} Subtree;

/* This rank failed with *err (taken): record it, and as the subtree's failure if it is
 * the first (a rank is lower than every rank of the subtrees it receives). */
static void fail_here(PrismComm *comm, Subtree *t, GError *err)
{
    if (t->own == NULL)
        t->own = err;
    else
        g_error_free(err);
    if (t->acc != NULL)
        g_byte_array_unref(t->acc);
    t->acc = NULL;
    if (t->fail_rank < 0 || t->fail_rank > comm->rank) {
        g_free(t->fail_msg);
        t->fail_rank = comm->rank;
        t->fail_msg = g_strdup(t->own->message);
    }
}

static gboolean send_frame(PrismComm *comm, int dest, PrismCommTag tag, uint64_t status,
                           const guint8 *body, size_t len, GError **error)
{
    uint64_t head[2] = {status, (uint64_t)len};
    PRISM_MPI_TRY(MPI_Send(head, 2, MPI_UINT64_T, dest, (int)tag, comm->mpi), error);
    size_t max = prism_comm_chunk_internal(comm);
    for (size_t off = 0; off < len;) {
        int n = (int)(len - off > max ? max : len - off);
        PRISM_MPI_TRY(MPI_Send(body + off, n, MPI_BYTE, dest, (int)tag, comm->mpi), error);
        off += (size_t)n;
    }
    return TRUE;
}

/* Receive one frame from @p src: *status and a new *body (never NULL on success). */
static gboolean recv_frame(PrismComm *comm, int src, PrismCommTag tag, uint64_t *status,
                           GByteArray **body, GError **error)
{
    uint64_t head[2] = {0, 0};
    PRISM_MPI_TRY(MPI_Recv(head, 2, MPI_UINT64_T, src, (int)tag, comm->mpi, MPI_STATUS_IGNORE),
                  error);
    if (head[0] > FRAME_OK || head[1] > G_MAXUINT) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "corrupt reduction frame from rank %d (status %" G_GUINT64_FORMAT
                    ", %" G_GUINT64_FORMAT " bytes)",
                    src, head[0], head[1]);
        return FALSE;
    }
    g_autoptr(GByteArray) b = g_byte_array_sized_new((guint)head[1]);
    g_byte_array_set_size(b, (guint)head[1]);
    size_t max = prism_comm_chunk_internal(comm), len = (size_t)head[1];
    for (size_t off = 0; off < len;) {
        int n = (int)(len - off > max ? max : len - off);
        PRISM_MPI_TRY(
            MPI_Recv(b->data + off, n, MPI_BYTE, src, (int)tag, comm->mpi, MPI_STATUS_IGNORE),
            error);
        off += (size_t)n;
    }
    *status = head[0];
    *body = g_steal_pointer(&b);
    return TRUE;
}

/* The FAILED frame body: int32 rank, then the message bytes (no NUL). */
static GByteArray *failure_body(const Subtree *t)
{
    GByteArray *b = g_byte_array_new();
    int32_t r = t->fail_rank;
    g_byte_array_append(b, (const guint8 *)&r, sizeof r);
    g_byte_array_append(b, (const guint8 *)t->fail_msg, (guint)strlen(t->fail_msg));
    return b;
}

/* Take a child's FAILED frame into the subtree state (only if it is the lowest yet). */
static void take_child_failure(Subtree *t, int src, const GByteArray *body)
{
    int32_t r = src;
    if (body->len >= sizeof r)
        memcpy(&r, body->data, sizeof r);
    if (t->acc != NULL)
        g_byte_array_unref(t->acc);
    t->acc = NULL;
    if (t->fail_rank >= 0 && t->fail_rank <= r)
        return;
    g_free(t->fail_msg);
    t->fail_rank = r;
    t->fail_msg = body->len >= sizeof r
                      ? g_strndup((const char *)body->data + sizeof r, body->len - sizeof r)
                      : g_strdup("no message");
}

/* Receive from child @p src and combine (own, child) into t->acc. */
static void receive_child(PrismComm *comm, PrismCommTag tag, Subtree *t, int src,
                          PrismCommCombineFn combine, gpointer user, int level)
{
    uint64_t status = 0;
    GByteArray *body = NULL;
    GError *err = NULL;
    PrismCommTreeStats *st = comm->tree_stats;
    const double t0 = st != NULL ? prism_now() : 0.0;
    if (!recv_frame(comm, src, tag, &status, &body, &err)) {
        fail_here(comm, t, err);
        return;
    }
    const double t1 = st != NULL ? prism_now() : 0.0;
    if (status == FRAME_FAILED) {
        take_child_failure(t, src, body);
    } else if (t->acc != NULL) {
        GByteArray *out = g_byte_array_new();
        if (combine(t->acc->data, t->acc->len, body->data, body->len, out, user, &err)) {
            g_byte_array_unref(t->acc);
            t->acc = out;
        } else {
            g_byte_array_unref(out);
            if (err == NULL)
                g_set_error(&err, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                            "rank %d: the combine step failed without a message", comm->rank);
            fail_here(comm, t, err);
        }
    }
    if (st != NULL) {
        const double t2 = prism_now();
        st->seconds[level] += t2 - t0;
        st->combine_seconds[level] += t2 - t1;
        st->bytes[level] += 2 * sizeof(uint64_t) + body->len;
    }
    g_byte_array_unref(body);
}

/* Walk the tree; returns with the root's state on rank 0 (others have sent theirs). */
static void run_tree(PrismComm *comm, PrismCommTag tag, Subtree *t, PrismCommCombineFn combine,
                     gpointer user)
{
    int rank = comm->rank, size = comm->size;
    PrismCommTreeStats *st = comm->tree_stats;
    for (int s = 1, level = 0; s < size; s <<= 1, level++) {
        if (rank & s) { /* lower bits are 0 here, so rank mod 2s == s */
            GError *err = NULL;
            gboolean sent;
            const double t0 = st != NULL ? prism_now() : 0.0;
            size_t len;
            if (t->fail_rank < 0) {
                len = t->acc->len;
                sent = send_frame(comm, rank - s, tag, FRAME_OK, t->acc->data, len, &err);
            } else {
                g_autoptr(GByteArray) b = failure_body(t);
                len = b->len;
                sent = send_frame(comm, rank - s, tag, FRAME_FAILED, b->data, len, &err);
            }
            if (st != NULL) {
                st->seconds[level] += prism_now() - t0;
                st->bytes[level] += 2 * sizeof(uint64_t) + len;
            }
            if (!sent)
                fail_here(comm, t, err); /* the parent may be lost too: MPI is broken */
            return;
        }
        if (rank + s < size)
            receive_child(comm, tag, t, rank + s, combine, user, level);
    }
}

/* Rank 0 tells every rank the outcome: (status, failing rank, body length), then the
 * body (the result with _ALL, the failing rank's message on failure). */
static gboolean broadcast_outcome(PrismComm *comm, PrismCommReduceMode mode, Subtree *t,
                                  GByteArray **body, GError **error)
{
    uint64_t head[3] = {0, 0, 0};
    g_autoptr(GByteArray) b = NULL;
    if (comm->rank == 0) {
        if (t->fail_rank < 0) {
            head[0] = FRAME_OK;
            if (mode == PRISM_COMM_REDUCE_ALL)
                b = g_byte_array_ref(t->acc);
        } else {
            head[0] = FRAME_FAILED;
            head[1] = (uint64_t)t->fail_rank;
            b = g_byte_array_new_take((guint8 *)g_strdup(t->fail_msg), strlen(t->fail_msg));
        }
        head[2] = b != NULL ? b->len : 0;
    }
    if (!prism_comm_is_solo(comm)) /* a solo rank is rank 0: it has the outcome */
        PRISM_MPI_TRY(MPI_Bcast(head, 3, MPI_UINT64_T, 0, comm->mpi), error);
    if (comm->rank != 0) {
        if (head[2] > G_MAXUINT) {
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                        "corrupt reduction outcome (%" G_GUINT64_FORMAT " bytes)", head[2]);
            return FALSE;
        }
        b = g_byte_array_sized_new((guint)head[2]);
        g_byte_array_set_size(b, (guint)head[2]);
    }
    if (head[2] > 0 && !prism_comm_bcast_bytes_internal(comm, b->data, head[2], 0, error))
        return FALSE;
    if (head[0] != FRAME_OK) {
        if (t->fail_rank < 0 || t->fail_rank > (int)head[1]) {
            g_free(t->fail_msg);
            t->fail_rank = (int)head[1];
            t->fail_msg = g_strndup(b != NULL ? (const char *)b->data : "", head[2]);
        }
        return TRUE;
    }
    *body = g_steal_pointer(&b);
    return TRUE;
}

gboolean prism_comm_reduce_ordered(PrismComm *comm, PrismCommTag tag, const guint8 *local,
                                   size_t local_len, gboolean local_ok, PrismCommCombineFn combine,
                                   gpointer user, PrismCommReduceMode mode, GByteArray **result,
                                   GError **error)
{
    g_return_val_if_fail(comm != NULL && combine != NULL && result != NULL, FALSE);
    *result = NULL;
    Subtree t = {.acc = NULL, .fail_rank = -1, .fail_msg = NULL, .own = NULL};
    if (local_ok && local_len > G_MAXUINT) {
        GError *err = NULL;
        g_set_error(&err, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                    "rank %d: a reduction payload of %zu bytes exceeds the 4 GiB limit", comm->rank,
                    local_len);
        fail_here(comm, &t, err);
    } else if (!local_ok) {
        GError *err = NULL;
        if (error != NULL && *error != NULL)
            err = g_steal_pointer(error);
        else
            g_set_error(&err, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL,
                        "rank %d failed before the reduction (no message)", comm->rank);
        fail_here(comm, &t, err);
    } else {
        t.acc = g_byte_array_sized_new((guint)local_len);
        if (local_len > 0)
            g_byte_array_append(t.acc, local, (guint)local_len);
    }
    GError *mismatch = NULL;
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_REDUCE_ORDERED, (int64_t)tag,
                                   (int64_t)mode, &mismatch)) {
        if (t.acc != NULL)
            g_byte_array_unref(t.acc);
        g_clear_error(&t.own);
        g_free(t.fail_msg);
        g_propagate_error(error, mismatch);
        return FALSE;
    }
    run_tree(comm, tag, &t, combine, user);
    GByteArray *body = NULL;
    GError *bcast_error = NULL;
    const double b0 = comm->tree_stats != NULL ? prism_now() : 0.0;
    gboolean outcome = broadcast_outcome(comm, mode, &t, &body, &bcast_error);
    if (comm->tree_stats != NULL) {
        comm->tree_stats->bcast_seconds += prism_now() - b0;
        comm->tree_stats->bcast_bytes += 3 * sizeof(uint64_t) + (body != NULL ? body->len
                                                                 : t.fail_msg ? strlen(t.fail_msg)
                                                                              : 0);
    }
    if (!outcome && t.own == NULL) {
        t.own = bcast_error;
        t.fail_rank = t.fail_rank < 0 ? comm->rank : t.fail_rank;
    } else {
        g_clear_error(&bcast_error);
    }
    gboolean ok = outcome && t.fail_rank < 0;
    if (ok) {
        if (mode == PRISM_COMM_REDUCE_ALL)
            *result = g_steal_pointer(&body);
        else if (comm->rank == 0)
            *result = g_steal_pointer(&t.acc);
    } else {
        if (t.own != NULL) /* a failing rank keeps its own message */
            g_propagate_error(error, g_steal_pointer(&t.own));
        else
            g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_PEER_FAILED,
                        "rank %d failed: %s", t.fail_rank, t.fail_msg ? t.fail_msg : "");
    }
    if (body != NULL)
        g_byte_array_unref(body);
    if (t.acc != NULL)
        g_byte_array_unref(t.acc);
    g_clear_error(&t.own);
    g_free(t.fail_msg);
    return ok;
}
