/*
 * comm.h - the MPI wrapper: one PrismComm per run, no globals.
 *
 * prism_comm_new() duplicates the parent communicator and sets MPI_ERRORS_RETURN on the
 * duplicate, so every MPI failure comes back as a GError (PRISM_RUNTIME_ERROR_MPI)
 * naming the call. Phase boundaries call prism_comm_agree(): one rank's local error
 * makes every rank return FALSE instead of leaving the others blocked in a collective.
 * The program runs as a singleton (no mpirun) as well as under mpirun -n P.
 *
 * Solo communicators: prism_comm_new_solo() gives a PrismComm of one rank that makes no
 * MPI call at all (mpi is MPI_COMM_NULL), so a process may use every wrapper below without
 * MPI_Init. Each wrapper then does what MPI does on one rank (a reduction returns its
 * input, a broadcast from root 0 leaves the buffer, an agreement returns the local status
 * and keeps the local error); the results are those of a one-rank MPI communicator. The
 * CLI runs its commands that touch no HDF5 file this way when no launcher started it
 * (src/app/prism_app.c): Open MPI's singleton start-up is most of a small command's time.
 * Raw MPI calls outside this file must not see a solo communicator (io/ refuses one).
 *
 * Point-to-point messages exist in one place only, the ordered rank tree
 * prism_comm_reduce_ordered() (src/core/core_reduce.c); a CTest (comm_p2p_scan) fails if
 * MPI_Send/MPI_Recv/... appear anywhere else in src/ cost/ search/ io/.
 *
 * Debug mode: with PRISM_COMM_DEBUG=1 in the environment of prism_comm_new(), every
 * collective wrapper below first checks that all ranks entered the same wrapper with
 * the same arguments (one extra MPI_Allreduce); a mismatch fails every rank with
 * PRISM_RUNTIME_ERROR_INTERNAL naming what each rank called, instead of a deadlock.
 */
#ifndef PRISM_COMM_H
#define PRISM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <mpi.h>

G_BEGIN_DECLS

/** Levels of the ordered rank tree that prism_comm_reduce_ordered() records: 2^32 ranks. */
#define PRISM_COMM_TREE_LEVELS 32

/**
 * What one rank spent in prism_comm_reduce_ordered(), level by level (benchmarks read it;
 * each call adds to it). Level l is the tree step s = 2^l: a receiving rank records the
 * wait and transfer of its child's frame plus the combine, a sending rank its send (the
 * rank then leaves the tree). The broadcast of the outcome from rank 0 is kept apart.
 */
typedef struct PrismCommTreeStats {
    double seconds[PRISM_COMM_TREE_LEVELS];         /**< receive + combine, or send, at level l */
    double combine_seconds[PRISM_COMM_TREE_LEVELS]; /**< the combine alone */
    uint64_t bytes[PRISM_COMM_TREE_LEVELS];         /**< frame bytes received or sent */
    double bcast_seconds;                           /**< the broadcast of the outcome */
    uint64_t bcast_bytes;                           /**< its bytes (header and body) */
} PrismCommTreeStats;

typedef struct PrismComm {
    MPI_Comm mpi; /**< our duplicate; owned */
    int rank;
    int size;
    gboolean debug;   /**< PRISM_COMM_DEBUG=1 at prism_comm_new() (agreed by all ranks) */
    size_t max_count; /**< largest count per MPI call: INT_MAX (tests lower it to force
                           chunking); set at prism_comm_new(), change only on all ranks */
    PrismCommTreeStats *tree_stats; /**< NULL (prism_comm_new()), or where the ordered tree
                                         adds this rank's figures; not owned */
} PrismComm;

/**
 * Message tags of the point-to-point traffic (all of it goes through
 * prism_comm_reduce_ordered()). One tag per reduction stream, so a message of one stream
 * can never be taken for another's. Values are pinned.
 */
typedef enum {
    PRISM_COMM_TAG_SEARCH = 0x5052, /**< fronts, top-k lists, search results (search/) */
    PRISM_COMM_TAG_DC = 7301,       /**< divide-and-conquer summaries (dc.h) */
    PRISM_COMM_TAG_TEST = 0x5400,   /**< reserved for tests and benchmarks */
} PrismCommTag;

/**
 * Duplicate @p parent, read PRISM_COMM_DEBUG once (any rank setting it to a value other
 * than "" or "0" turns the check on for all; one MPI_Allreduce) and set max_count to
 * INT_MAX. Collective: yes (on @p parent).
 * Ownership: caller frees with prism_comm_free() before MPI_Finalize.
 * Errors: PRISM_RUNTIME_ERROR_MPI.
 */
PrismComm *prism_comm_new(MPI_Comm parent, GError **error);
/**
 * A communicator of this process alone that needs no MPI_Init: rank 0, size 1, mpi
 * MPI_COMM_NULL, debug off. Collective: no. Ownership: prism_comm_free().
 */
PrismComm *prism_comm_new_solo(void);
/** TRUE for a communicator from prism_comm_new_solo() (no MPI behind it). Collective: no. */
gboolean prism_comm_is_solo(const PrismComm *comm);
/** Free the duplicate. Collective: yes. NULL is a no-op. */
void prism_comm_free(PrismComm *comm);

/** Fill @p error from an MPI return code, naming the call and file:line. */
void prism_mpi_set_error(GError **error, int rc, const char *call, const char *file, int line);

#define PRISM_MPI_TRY(call, error)                                                                 \
    do {                                                                                           \
        int prism_mpi_rc_ = (call);                                                                \
        if (G_UNLIKELY(prism_mpi_rc_ != MPI_SUCCESS)) {                                            \
            prism_mpi_set_error((error), prism_mpi_rc_, #call, __FILE__, __LINE__);                \
            return FALSE;                                                                          \
        }                                                                                          \
    } while (0)

/**
 * Agree on success. Every rank passes its local status; if any rank failed, every rank
 * returns FALSE. A rank that failed locally keeps its own @p error (pass the local
 * error in *error; it is left untouched); the others get PRISM_RUNTIME_ERROR_PEER_FAILED
 * naming the lowest failing rank. Collective: yes. One MPI_Allreduce.
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
/**
 * Bitwise "or" of one int over all ranks, for a status polled between pieces of work:
 * a rank that arrives before the others sleeps between polls (MPI_Iallreduce and
 * MPI_Test) instead of spinning in a blocking MPI_Allreduce, so on a node with fewer free
 * cores than ranks it leaves the CPU to the ranks still working. Adds at most ~0.2 ms to
 * a wait. Collective: yes. Errors: the MPI error.
 */
gboolean prism_comm_or_idle(PrismComm *comm, int in, int *out, GError **error);
/** Exclusive prefix sum of @p in (0 on rank 0). Collective: yes. */
gboolean prism_comm_exscan_u64(PrismComm *comm, uint64_t in, uint64_t *out, GError **error);
/** Broadcast @p n bytes from @p root (n must agree). Collective: yes. */
gboolean prism_comm_bcast_bytes(PrismComm *comm, void *buf, size_t n, int root, GError **error);
/**
 * Broadcast a byte buffer of unknown size from @p root. On non-root ranks *buf and *n
 * are replaced with a g_malloc'd copy. Collective: yes.
 */
gboolean prism_comm_bcast_blob(PrismComm *comm, void **buf, size_t *n, int root, GError **error);
/** Wait until every rank of @p comm arrives. Collective: yes. Errors: the MPI error. */
gboolean prism_comm_barrier(PrismComm *comm, GError **error);

/**
 * The combine step of prism_comm_reduce_ordered(): append the payload of left . right to
 * @p out (empty on entry). @p left summarises lower ranks than @p right; the operation
 * must be associative but need not be commutative. Return FALSE with @p error set to
 * fail the reduction (the rank running the combine becomes a failing rank).
 */
typedef gboolean (*PrismCommCombineFn)(const guint8 *left, size_t left_len, const guint8 *right,
                                       size_t right_len, GByteArray *out, gpointer user,
                                       GError **error);

/** Where the result of prism_comm_reduce_ordered() ends up. */
typedef enum {
    PRISM_COMM_REDUCE_ROOT = 0, /**< on rank 0 only (*result NULL elsewhere) */
    PRISM_COMM_REDUCE_ALL = 1,  /**< broadcast: every rank gets the same bytes */
} PrismCommReduceMode;

/**
 * Ordered tree reduction of one variable-size byte payload per rank: the result is
 * local_0 . local_1 . ... . local_{P-1} in rank order, for a @p combine that is associative
 * (not necessarily commutative). A binomial tree of point-to-point messages: at step
 * s = 1, 2, 4, ..., rank r with r mod 2s == s sends its partial to r - s, which combines
 * (its own, received). Payloads may be empty and larger than INT_MAX (chunked); the
 * parenthesisation is fixed by the rank count, so it never depends on arrival order.
 *
 * Failure protocol (the only one in prism): every message is a status frame, so a rank
 * whose local work failed (@p local_ok FALSE) or whose combine failed still sends and
 * receives what the tree expects, and no rank waits forever. The lowest failing rank and
 * its message travel up the tree, and rank 0 broadcasts the outcome: every rank returns
 * FALSE. A failing rank keeps its own error (pass it in *@p error; if @p local_ok is FALSE
 * and *error is NULL a generic one is set); every other rank gets
 * PRISM_RUNTIME_ERROR_PEER_FAILED "rank L failed: <L's message>" for the lowest failing
 * rank L.
 *
 * @param comm communicator; every rank calls with the same @p tag and @p mode.
 * @param tag the stream's tag (PrismCommTag).
 * @param local this rank's payload (@p local_len bytes; NULL allowed when 0 or failed).
 * @param local_ok FALSE if this rank failed before the reduction (it still takes part).
 * @param combine the combine step; @p user is passed through.
 * @param mode PRISM_COMM_REDUCE_ROOT or PRISM_COMM_REDUCE_ALL.
 * @param result receives the reduced bytes (rank 0, or every rank with _ALL); NULL on
 *        other ranks and on failure.
 * @return TRUE on every rank, or FALSE on every rank.
 * Collective: yes (on @p comm); every rank calls it, also with an empty payload.
 * Ownership: caller owns *@p result (g_byte_array_unref()); @p local is only read.
 * Errors: the failing rank's own error; PRISM_RUNTIME_ERROR_PEER_FAILED on the others;
 * PRISM_RUNTIME_ERROR_MPI; PRISM_RUNTIME_ERROR_INTERNAL for a collective mismatch
 * (PRISM_COMM_DEBUG) or a corrupt frame.
 */
gboolean prism_comm_reduce_ordered(PrismComm *comm, PrismCommTag tag, const guint8 *local,
                                   size_t local_len, gboolean local_ok, PrismCommCombineFn combine,
                                   gpointer user, PrismCommReduceMode mode, GByteArray **result,
                                   GError **error);

/**
 * Contiguous block partition: rank r of size P gets [*lo, *hi) of [0, n), the first
 * n % P ranks one item more. Depends only on (n, rank, size). Not collective.
 */
void prism_partition_block(uint64_t n, int rank, int size, uint64_t *lo, uint64_t *hi);

G_END_DECLS

#endif /* PRISM_COMM_H */
