// SPDX-License-Identifier: MIT
/*
 * core_comm.c - the MPI wrapper (see comm.h): duplicate + MPI_ERRORS_RETURN, error
 * agreement, the few collectives prism needs, the PRISM_COMM_DEBUG check that all ranks
 * entered the same collective, and the block partition. The ordered rank tree (the only
 * point-to-point traffic) is in core_reduce.c.
 *
 * Collective where comm.h says so; not thread-safe (MPI_THREAD_FUNNELED use).
 */
#include <prism/comm.h>

#include <limits.h>
#include <string.h>

#include <prism/core.h>

#include "core-internal.h"

static gboolean bcast_blob(PrismComm *comm, void **buf, size_t *n, int root, GError **error);

void prism_mpi_set_error(GError **error, int rc, const char *call, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        g_strlcpy(msg, "unknown MPI error", sizeof msg);
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_MPI, "%s failed: %s (%s:%d)", call,
                msg, file, line);
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
    comm->max_count = INT_MAX;
    MPI_Comm_rank(dup, &comm->rank);
    MPI_Comm_size(dup, &comm->size);
    /* Read PRISM_COMM_DEBUG once; agree on it, since a rank checking alone would hang. */
    const char *env = g_getenv("PRISM_COMM_DEBUG");
    int mine = env != NULL && *env != '\0' && strcmp(env, "0") != 0, any = 0;
    rc = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, dup);
    if (rc != MPI_SUCCESS) {
        prism_mpi_set_error(error, rc, "MPI_Allreduce(PRISM_COMM_DEBUG)", __FILE__, __LINE__);
        prism_comm_free(comm);
        return NULL;
    }
    comm->debug = any != 0;
    return comm;
}

PrismComm *prism_comm_new_solo(void)
{
    PrismComm *comm = g_new0(PrismComm, 1);
    comm->mpi = MPI_COMM_NULL; /* the mark of a solo communicator: no MPI call is made */
    comm->rank = 0;
    comm->size = 1;
    comm->max_count = INT_MAX;
    return comm;
}

gboolean prism_comm_is_solo(const PrismComm *comm)
{
    return comm->mpi == MPI_COMM_NULL;
}

void prism_comm_free(PrismComm *comm)
{
    if (comm == NULL)
        return;
    if (comm->mpi != MPI_COMM_NULL)
        MPI_Comm_free(&comm->mpi);
    g_free(comm);
}

/* A small code for the predefined reduction ops, so ranks can compare them. */
static int64_t op_code(MPI_Op op)
{
    if (op == MPI_SUM)
        return 1;
    if (op == MPI_MAX)
        return 2;
    if (op == MPI_MIN)
        return 3;
    if (op == MPI_LAND)
        return 4;
    if (op == MPI_LOR)
        return 5;
    if (op == MPI_BOR)
        return 6;
    if (op == MPI_BAND)
        return 7;
    return 0;
}

static const char *const op_names[] = {"other", "sum", "max", "min", "land", "lor", "bor", "band"};

/* "prism_comm_bcast_bytes(root 0, n 8)" for one rank's (site, arg, count). */
static void describe_site(GString *s, const int64_t *v)
{
    int64_t arg = v[1], count = v[2];
    const char *op = arg >= 0 && arg < (int64_t)G_N_ELEMENTS(op_names) ? op_names[arg] : "?";
    switch ((PrismCommSite)v[0]) {
    case PRISM_COMM_SITE_AGREE:
        g_string_append(s, "prism_comm_agree()");
        break;
    case PRISM_COMM_SITE_AGREE_ERROR:
        g_string_append(s, "prism_comm_agree_error()");
        break;
    case PRISM_COMM_SITE_ALLREDUCE_U64:
        g_string_append_printf(s, "prism_comm_allreduce_u64(op %s)", op);
        break;
    case PRISM_COMM_SITE_ALLREDUCE_F64:
        g_string_append_printf(s, "prism_comm_allreduce_f64(op %s)", op);
        break;
    case PRISM_COMM_SITE_EXSCAN_U64:
        g_string_append(s, "prism_comm_exscan_u64()");
        break;
    case PRISM_COMM_SITE_BCAST_BYTES:
        g_string_append_printf(
            s, "prism_comm_bcast_bytes(root %" G_GINT64_FORMAT ", n %" G_GINT64_FORMAT ")", arg,
            count);
        break;
    case PRISM_COMM_SITE_BCAST_BLOB:
        g_string_append_printf(s, "prism_comm_bcast_blob(root %" G_GINT64_FORMAT ")", arg);
        break;
    case PRISM_COMM_SITE_OR_IDLE:
        g_string_append(s, "prism_comm_or_idle()");
        break;
    case PRISM_COMM_SITE_BARRIER:
        g_string_append(s, "prism_comm_barrier()");
        break;
    case PRISM_COMM_SITE_REDUCE_ORDERED:
        g_string_append_printf(s,
                               "prism_comm_reduce_ordered(tag 0x%" G_GINT64_MODIFIER "x, mode %s)",
                               arg, count == PRISM_COMM_REDUCE_ALL ? "all" : "root");
        break;
    default:
        g_string_append_printf(s, "unknown collective %" G_GINT64_FORMAT, v[0]);
        break;
    }
}

gboolean prism_comm_check_internal(PrismComm *comm, PrismCommSite site, int64_t arg, int64_t count,
                                   GError **error)
{
    if (!comm->debug || prism_comm_is_solo(comm))
        return TRUE;
    /* MAX over (v, -v) gives max and -min of each entry in one call. */
    int64_t v[6] = {(int64_t)site, arg, count, -(int64_t)site, -arg, -count}, m[6];
    PRISM_MPI_TRY(MPI_Allreduce(v, m, 6, MPI_INT64_T, MPI_MAX, comm->mpi), error);
    if (m[0] == -m[3] && m[1] == -m[4] && m[2] == -m[5])
        return TRUE;
    /* Every rank saw the mismatch, so every rank is here: gather what each one called. */
    g_autofree int64_t *all = g_new(int64_t, 3 * (size_t)comm->size);
    PRISM_MPI_TRY(MPI_Allgather(v, 3, MPI_INT64_T, all, 3, MPI_INT64_T, comm->mpi), error);
    g_autoptr(GString) s = g_string_new("collective mismatch (PRISM_COMM_DEBUG): ");
    for (int r = 0; r < comm->size;) {
        int end = r + 1; /* runs of ranks that called the same thing */
        while (end < comm->size && memcmp(all + 3 * end, all + 3 * r, 3 * sizeof *all) == 0)
            end++;
        if (r > 0)
            g_string_append(s, "; ");
        if (end - r == 1)
            g_string_append_printf(s, "rank %d called ", r);
        else
            g_string_append_printf(s, "ranks %d-%d called ", r, end - 1);
        describe_site(s, all + 3 * r);
        r = end;
    }
    g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERNAL, "%s", s->str);
    return FALSE;
}

/* Run the debug check for a wrapper whose *error may already hold a local error: on a
 * mismatch the mismatch replaces it (it explains everything that follows). */
static gboolean check_replacing(PrismComm *comm, PrismCommSite site, int64_t arg, int64_t count,
                                GError **error)
{
    GError *mismatch = NULL;
    if (prism_comm_check_internal(comm, site, arg, count, &mismatch))
        return TRUE;
    if (error != NULL)
        g_clear_error(error);
    g_propagate_error(error, mismatch);
    return FALSE;
}

gboolean prism_comm_agree(PrismComm *comm, gboolean local_ok, GError **error)
{
    if (!check_replacing(comm, PRISM_COMM_SITE_AGREE, 0, 0, error))
        return FALSE;
    if (prism_comm_is_solo(comm))
        return local_ok; /* the failing rank is this one: it keeps its error */
    /* MIN over (ok ? size : rank) gives the lowest failing rank, or size if none. */
    int mine = local_ok ? comm->size : comm->rank, lowest = comm->size;
    PRISM_MPI_TRY(MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm->mpi), error);
    if (lowest == comm->size)
        return TRUE;
    if (local_ok)
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_PEER_FAILED, "rank %d failed",
                    lowest);
    return FALSE;
}

gboolean prism_comm_agree_error(PrismComm *comm, GError **error)
{
    gboolean local_ok = (error == NULL || *error == NULL);
    if (!check_replacing(comm, PRISM_COMM_SITE_AGREE_ERROR, 0, 0, error))
        return FALSE;
    if (prism_comm_is_solo(comm))
        return local_ok;
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
    if (!bcast_blob(comm, (void **)&msg, &msg_len, lowest, error))
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
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_ALLREDUCE_U64, op_code(op), 1, error))
        return FALSE;
    if (prism_comm_is_solo(comm))
        *out = in; /* sum, max, min, or, and of one value */
    else
        PRISM_MPI_TRY(MPI_Allreduce(&in, out, 1, MPI_UINT64_T, op, comm->mpi), error);
    return TRUE;
}

gboolean prism_comm_allreduce_f64(PrismComm *comm, double in, MPI_Op op, double *out,
                                  GError **error)
{
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_ALLREDUCE_F64, op_code(op), 1, error))
        return FALSE;
    if (prism_comm_is_solo(comm))
        *out = in;
    else
        PRISM_MPI_TRY(MPI_Allreduce(&in, out, 1, MPI_DOUBLE, op, comm->mpi), error);
    return TRUE;
}

gboolean prism_comm_or_idle(PrismComm *comm, int in, int *out, GError **error)
{
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_OR_IDLE, 0, 1, error))
        return FALSE;
    *out = in; /* the "or" over one rank */
    if (prism_comm_is_solo(comm))
        return TRUE;
    /* Open MPI's blocking collectives poll the network without pause while they wait: a
     * rank that arrives first takes a core from the ranks still working whenever there
     * are fewer free cores than ranks (a shared node, oversubscription). Here it polls
     * with MPI_Test and sleeps between polls: 20 us doubling to 200 us, short next to
     * the work between two calls (a search round is tens of ms). */
    MPI_Request req;
    PRISM_MPI_TRY(MPI_Iallreduce(&in, out, 1, MPI_INT, MPI_BOR, comm->mpi, &req), error);
    gulong pause = 20;
    for (;;) {
        int done = 0;
        PRISM_MPI_TRY(MPI_Test(&req, &done, MPI_STATUS_IGNORE), error);
        if (done)
            return TRUE;
        g_usleep(pause);
        pause = pause < 100 ? 2 * pause : 200;
    }
}

gboolean prism_comm_exscan_u64(PrismComm *comm, uint64_t in, uint64_t *out, GError **error)
{
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_EXSCAN_U64, 0, 1, error))
        return FALSE;
    uint64_t r = 0;
    if (!prism_comm_is_solo(comm))
        PRISM_MPI_TRY(MPI_Exscan(&in, &r, 1, MPI_UINT64_T, MPI_SUM, comm->mpi), error);
    *out = comm->rank == 0 ? 0 : r; /* MPI leaves rank 0's result undefined */
    return TRUE;
}

size_t prism_comm_chunk_internal(const PrismComm *comm)
{
    return comm->max_count > 0 && comm->max_count <= (size_t)INT_MAX ? comm->max_count
                                                                     : (size_t)INT_MAX;
}

gboolean prism_comm_bcast_bytes_internal(PrismComm *comm, void *buf, size_t n, int root,
                                         GError **error)
{
    if (prism_comm_is_solo(comm))
        return TRUE; /* the root is this rank */
    unsigned char *p = buf;
    const size_t max = prism_comm_chunk_internal(comm);
    while (n > 0) { /* Open MPI 4.1 has no large-count calls: chunk at INT_MAX */
        int chunk = (int)(n > max ? max : n);
        PRISM_MPI_TRY(MPI_Bcast(p, chunk, MPI_BYTE, root, comm->mpi), error);
        p += chunk;
        n -= (size_t)chunk;
    }
    return TRUE;
}

gboolean prism_comm_bcast_bytes(PrismComm *comm, void *buf, size_t n, int root, GError **error)
{
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_BCAST_BYTES, root, (int64_t)n, error))
        return FALSE;
    return prism_comm_bcast_bytes_internal(comm, buf, n, root, error);
}

static gboolean bcast_blob(PrismComm *comm, void **buf, size_t *n, int root, GError **error)
{
    if (prism_comm_is_solo(comm))
        return TRUE;
    uint64_t len = comm->rank == root ? (uint64_t)*n : 0;
    PRISM_MPI_TRY(MPI_Bcast(&len, 1, MPI_UINT64_T, root, comm->mpi), error);
    if (comm->rank != root) {
        g_free(*buf);
        *buf = len ? g_malloc(len) : NULL;
        *n = (size_t)len;
    }
    return prism_comm_bcast_bytes_internal(comm, *buf, (size_t)len, root, error);
}

gboolean prism_comm_bcast_blob(PrismComm *comm, void **buf, size_t *n, int root, GError **error)
{
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_BCAST_BLOB, root, 0, error))
        return FALSE;
    return bcast_blob(comm, buf, n, root, error);
}

gboolean prism_comm_barrier(PrismComm *comm, GError **error)
{
    if (!prism_comm_check_internal(comm, PRISM_COMM_SITE_BARRIER, 0, 0, error))
        return FALSE;
    if (!prism_comm_is_solo(comm))
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
