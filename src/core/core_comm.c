// SPDX-License-Identifier: MIT
/*
 * core_comm.c - the MPI wrapper (see comm.h): duplicate + MPI_ERRORS_RETURN, error
 * agreement, the few collectives prism needs, and the block partition.
 *
 * Collective where comm.h says so; not thread-safe (MPI_THREAD_FUNNELED use).
 */
#include <prism/comm.h>

#include <limits.h>
#include <string.h>

#include <prism/core.h>

void prism_mpi_set_error(GError **error, int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        g_strlcpy(msg, "unknown MPI error", sizeof msg);
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_MPI, "%s failed: %s (%s:%d)",
                call, msg, file, line);
}

PrismComm *prism_comm_new(MPI_Comm parent, GError **error)
{
    MPI_Comm dup = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(parent, &dup);
    if (rc != MPI_SUCCESS) {
        prism_mpi_set_error(error, rc, "MPI_Comm_dup", __FILE__, __LINE__);
        return NULL;
    }
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    PrismComm *comm = g_new0(PrismComm, 1);
    comm->mpi = dup;
    MPI_Comm_rank(dup, &comm->rank);
    MPI_Comm_size(dup, &comm->size);
    return comm;
}

void prism_comm_free(PrismComm *comm)
{
    if (comm == NULL)
        return;
    if (comm->mpi != MPI_COMM_NULL)
        MPI_Comm_free(&comm->mpi);
    g_free(comm);
}

gboolean prism_comm_agree(PrismComm *comm, gboolean local_ok, GError **error)
{
    /* MIN over (ok ? size : rank) gives the lowest failing rank, or size if none. */
    int mine = local_ok ? comm->size : comm->rank, lowest = comm->size;
    PRISM_MPI_TRY(MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm->mpi), error);
    if (lowest == comm->size)
        return TRUE;
    if (local_ok)
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_PEER_FAILED,
                    "rank %d failed", lowest);
    return FALSE;
}

gboolean prism_comm_agree_error(PrismComm *comm, GError **error)
{
    gboolean local_ok = (error == NULL || *error == NULL);
    int mine = local_ok ? comm->size : comm->rank, lowest = comm->size;
    PRISM_MPI_TRY(MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm->mpi), error);
    if (lowest == comm->size)
        return TRUE;
    /* Ship the lowest failing rank's (domain, code, message) to everyone. */
    int32_t head[2] = {0, 0};
    g_autofree char *msg = NULL;
    size_t msg_len = 0;
    if (comm->rank == lowest) {
        head[0] = (*error)->domain == PRISM_INPUT_ERROR ? 1 : 0;
        head[1] = (*error)->code;
        msg = g_strdup((*error)->message);
        msg_len = strlen(msg) + 1;
    }
    PRISM_MPI_TRY(MPI_Bcast(head, 2, MPI_INT32_T, lowest, comm->mpi), error);
    if (!prism_comm_bcast_blob(comm, (void **)&msg, &msg_len, lowest, error))
        return FALSE;
    if (comm->rank != lowest) {
        g_clear_error(error);
        g_set_error(error, head[0] ? PRISM_INPUT_ERROR : PRISM_RUNTIME_ERROR, head[1], "%s",
                    msg != NULL ? msg : "peer failed");
    }
    return FALSE;
}

gboolean prism_comm_allreduce_u64(PrismComm *comm, uint64_t in, MPI_Op op, uint64_t *out,
                                  GError **error)
{
    PRISM_MPI_TRY(MPI_Allreduce(&in, out, 1, MPI_UINT64_T, op, comm->mpi), error);
    return TRUE;
}

gboolean prism_comm_allreduce_f64(PrismComm *comm, double in, MPI_Op op, double *out,
                                  GError **error)
{
    PRISM_MPI_TRY(MPI_Allreduce(&in, out, 1, MPI_DOUBLE, op, comm->mpi), error);
    return TRUE;
}

gboolean prism_comm_exscan_u64(PrismComm *comm, uint64_t in, uint64_t *out, GError **error)
{
    uint64_t r = 0;
    PRISM_MPI_TRY(MPI_Exscan(&in, &r, 1, MPI_UINT64_T, MPI_SUM, comm->mpi), error);
    *out = comm->rank == 0 ? 0 : r; /* MPI leaves rank 0's result undefined */
    return TRUE;
}

gboolean prism_comm_bcast_bytes(PrismComm *comm, void *buf, size_t n, int root, GError **error)
{
    unsigned char *p = buf;
    while (n > 0) { /* Open MPI 4.1 has no large-count calls: chunk at INT_MAX */
        int chunk = n > (size_t)INT_MAX ? INT_MAX : (int)n;
        PRISM_MPI_TRY(MPI_Bcast(p, chunk, MPI_BYTE, root, comm->mpi), error);
        p += chunk;
        n -= (size_t)chunk;
    }
    return TRUE;
}

gboolean prism_comm_bcast_blob(PrismComm *comm, void **buf, size_t *n, int root,
                               GError **error)
{
    uint64_t len = comm->rank == root ? (uint64_t)*n : 0;
    PRISM_MPI_TRY(MPI_Bcast(&len, 1, MPI_UINT64_T, root, comm->mpi), error);
    if (comm->rank != root) {
        g_free(*buf);
        *buf = len ? g_malloc(len) : NULL;
        *n = (size_t)len;
    }
    return prism_comm_bcast_bytes(comm, *buf, (size_t)len, root, error);
}

gboolean prism_comm_barrier(PrismComm *comm, GError **error)
{
    PRISM_MPI_TRY(MPI_Barrier(comm->mpi), error);
    return TRUE;
}

void prism_partition_block(uint64_t n, int rank, int size, uint64_t *lo, uint64_t *hi)
{
    uint64_t p = (uint64_t)size, r = (uint64_t)rank;
    uint64_t base = n / p, extra = n % p;
    *lo = r * base + (r < extra ? r : extra);
    *hi = *lo + base + (r < extra ? 1 : 0);
}
