/*
 * comm.h - the MPI wrapper: one PrismComm per run, no globals.
 *
 * prism_comm_new() duplicates the parent communicator and sets MPI_ERRORS_RETURN on the
 * duplicate, so every MPI failure comes back as a GError (PRISM_RUNTIME_ERROR_MPI)
 * naming the call. Phase boundaries call prism_comm_agree(): one rank's local error
 * makes every rank return FALSE instead of leaving the others blocked in a collective.
 * The program runs as a singleton (no mpirun) as well as under mpirun -n P.
 */
#ifndef PRISM_COMM_H
#define PRISM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <mpi.h>

G_BEGIN_DECLS

typedef struct PrismComm {
    MPI_Comm mpi; /**< our duplicate; owned */
    int rank;
    int size;
} PrismComm;

/**
 * Duplicate @p parent. Collective: yes (on @p parent).
 * Ownership: caller frees with prism_comm_free() before MPI_Finalize.
 * Errors: PRISM_RUNTIME_ERROR_MPI.
 */
PrismComm *prism_comm_new(MPI_Comm parent, GError **error);
/** Free the duplicate. Collective: yes. NULL is a no-op. */
void prism_comm_free(PrismComm *comm);

/** Fill @p error from an MPI return code, naming the call and file:line. */
void prism_mpi_set_error(GError **error, int rc, const char *call, const char *file, int line);

#define PRISM_MPI_TRY(call, error)                                                           \
    do {                                                                                     \
        int prism_mpi_rc_ = (call);                                                          \
        if (G_UNLIKELY(prism_mpi_rc_ != MPI_SUCCESS)) {                                      \
            prism_mpi_set_error((error), prism_mpi_rc_, #call, __FILE__, __LINE__);          \
            return FALSE;                                                                    \
        }                                                                                    \
    } while (0)

/**
 * Agree on success. Every rank passes its local status; if any rank failed, every rank
 * returns FALSE. A rank that failed locally keeps its own @p error (pass the local
 * error in *error; it is left untouched); the others get PRISM_RUNTIME_ERROR_PEER_FAILED
 * naming the lowest failing rank. Collective: yes. One MPI_Allreduce.
 * If @p local_error_is_input is TRUE on the failing rank, the peers' error code is
 * still PEER_FAILED but prism_comm_agree_input() tells whether the failure was bad input.
 */
gboolean prism_comm_agree(PrismComm *comm, gboolean local_ok, GError **error);

/**
 * Like prism_comm_agree() but also propagates the failing rank's error domain/code and
 * message to every rank (the lowest failing rank's error wins), so that e.g. a bad-input
 * error on rank 2 gives exit status 2 on all ranks with the same message.
 * Collective: yes.
 */
gboolean prism_comm_agree_error(PrismComm *comm, GError **error);

/** Sum / max / min of one uint64 over all ranks. Collective: yes. */
gboolean prism_comm_allreduce_u64(PrismComm *comm, uint64_t in, MPI_Op op, uint64_t *out,
                                  GError **error);
/** Sum / max / min of one double over all ranks. Collective: yes. */
gboolean prism_comm_allreduce_f64(PrismComm *comm, double in, MPI_Op op, double *out,
                                  GError **error);
/** Exclusive prefix sum of @p in (0 on rank 0). Collective: yes. */
gboolean prism_comm_exscan_u64(PrismComm *comm, uint64_t in, uint64_t *out, GError **error);
/** Broadcast @p n bytes from @p root (n must agree). Collective: yes. */
gboolean prism_comm_bcast_bytes(PrismComm *comm, void *buf, size_t n, int root, GError **error);
/**
 * Broadcast a byte buffer of unknown size from @p root. On non-root ranks *buf and *n
 * are replaced with a g_malloc'd copy. Collective: yes.
 */
gboolean prism_comm_bcast_blob(PrismComm *comm, void **buf, size_t *n, int root,
                               GError **error);
gboolean prism_comm_barrier(PrismComm *comm, GError **error);

/**
 * Contiguous block partition: rank r of size P gets [*lo, *hi) of [0, n), the first
 * n % P ranks one item more. Depends only on (n, rank, size). Not collective.
 */
void prism_partition_block(uint64_t n, int rank, int size, uint64_t *lo, uint64_t *hi);

G_END_DECLS

#endif /* PRISM_COMM_H */
