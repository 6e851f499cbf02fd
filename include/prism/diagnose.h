/*
 * diagnose.h - "nothing fits": why, and what would make room, as data.
 *
 * When a search finds no feasible strategy for a job, prism_diagnose_run() describes
 * the job's closest strategies (the lowest peak memory per device, search.h's closest
 * list): by how much each is over the usable memory, which failure the cost model
 * reports (PrismReason) and which memory part is the largest. It then asks what would
 * make room, running what-if searches over the same model, training and knobs:
 *
 *   DEVICES     the same filters with 2x, 4x, 8x the largest device count of the job's
 *               space (one count at a time, the first that fits ends the scan; a count
 *               above G_MAXUINT32 is not tried): how many strategies fit and the best
 *               step time.
 *   NO_FILTERS  only when the job's space was filtered: the unrestricted space on the
 *               same device counts.
 *   MEM_BUDGET  no search: the budget (bytes, margin included) the closest strategy
 *               needs, i.e. peak + mem_margin.
 *   FILTER_DIM  no search: a filter restricts a dimension (mbs, recompute, zero, tp, pp)
 *               whose excluded values save memory (mbs=1, recompute=full, zero=3, a
 *               larger tp or pp).
 *
 * The renderers (text, JSON) are in the CLI (src/app/app_render.c); nothing here prints.
 * A what-if search uses top_k = 1 and the default objectives; its best strategy is the
 * fastest by step time (ties: the lowest index of the what-if space).
 */
#ifndef PRISM_DIAGNOSE_H
#define PRISM_DIAGNOSE_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>
#include <prism/cost.h>
#include <prism/search.h>
#include <prism/space.h>
#include <prism/strategy.h>

G_BEGIN_DECLS

/** The closest rows a search keeps (PrismSearchOptions.closest_k) for the diagnosis to rank
 *  by the device-level figure: the search keeps them by the allocated peak, which the
 *  allocator's reserve, the CUDA context and NCCL's buffers can order otherwise. */
#define PRISM_DIAGNOSE_POOL 100

/** What a what-if changes (see the file comment). Append-only. */
typedef enum {
    PRISM_WHAT_IF_DEVICES = 0,
    PRISM_WHAT_IF_NO_FILTERS = 1,
    PRISM_WHAT_IF_MEM_BUDGET = 2,
    PRISM_WHAT_IF_FILTER_DIM = 3,
} PrismWhatIfKind;

/** One what-if. Members not named for a kind are zero. */
typedef struct PrismWhatIf {
    PrismWhatIfKind kind;
    gboolean searched;  /**< a search ran: feasible, best_step and best are its result */
    uint32_t factor;    /**< DEVICES: devices / the job's largest count (0: none tried,
                             the largest count times 2 exceeds G_MAXUINT32) */
    uint32_t devices;   /**< DEVICES: the count tried last (the first that fits, else
                             the largest tried) */
    uint64_t feasible;  /**< strategies that fit after the change (searched) */
    double best_step;   /**< s, the best step time among them; NAN when none */
    PrismStrategy best; /**< that strategy (zeroed when none) */
    double mem_budget;  /**< MEM_BUDGET: bytes the closest strategy needs, margin included */
    PrismDim dim;       /**< FILTER_DIM: the restricted dimension */
    const char *saver;  /**< FILTER_DIM: what the filter may exclude ("mbs=1"); static */
} PrismWhatIf;

/** One closest strategy. */
typedef struct PrismDiagClosest {
    uint64_t index; /**< global index of the search (prism_search_row) */
    PrismStrategy strategy;
    double cols[PRISM_COL_COUNT]; /**< its cost columns (scalar reference) */
    double over;                  /**< device-level figure - usable, bytes (> 0: infeasible) */
    PrismCostCol dominant;        /**< the largest of PRISM_COL_MEM_PARAMS .. _COMM_BUFFERS
                                       (the first on ties) */
} PrismDiagClosest;

typedef struct PrismDiagnosis {
    size_t job;                /**< the diagnosed job */
    double usable;             /**< budget - mem_margin, bytes */
    double margin;             /**< the mem_margin knob, bytes */
    double device_mem;         /**< the cluster's memory per device, bytes: a budget above
                                    it cannot be asked for */
    double host_usable;        /**< host memory per device for offloading, bytes (0: the
                                    cluster gives no host: nothing can be offloaded) */
    uint32_t max_devices;      /**< the largest device count of the job's space */
    size_t n_device_counts;    /**< device counts of the job's space */
    gboolean filtered;         /**< the job's space was built with a non-empty filter */
    PrismDiagClosest *closest; /**< the closest list in order (lowest peak first) */
    size_t n_closest;          /**< >= 1 */
    double statics;            /**< params + grads + optimizer of closest[0], bytes */
    gboolean statics_exceed;   /**< statics > usable: the model states alone do not fit */
    PrismWhatIf *what_ifs;     /**< in the order of PrismWhatIfKind; FILTER_DIM in the
                                    order mbs, recompute, zero, tp, pp */
    size_t n_what_ifs;
} PrismDiagnosis;

/**
 * Diagnose job @p job of a finished search (@p jobs, @p n_jobs and @p res as given to
 * and returned by prism_search_run()). @p filter is the filter the job's space was built
 * with (NULL: none); @p kt the kernel table of the what-if searches (NULL: default);
 * @p stop (NULL: never) ends a what-if's space enumeration or search on request, every
 * rank with PRISM_RUNTIME_ERROR_INTERRUPTED.
 * The job's cost model must hold the model and training its space was built from.
 * Collective: yes (on @p comm; the what-if searches); every rank passes the same
 * arguments and gets the same diagnosis. Meant for a job with no feasible strategy, but
 * works on any job.
 * Ownership: prism_diagnosis_free(). Errors: PRISM_INPUT_ERROR_INFEASIBLE when the job
 * has no strategy with a finite peak memory; PRISM_INPUT_ERROR_VALUE for @p job out of
 * range; what prism_search_run() reports (agreed on every rank).
 */
PrismDiagnosis *prism_diagnose_run(PrismComm *comm, const PrismSearchJob *jobs, size_t n_jobs,
                                   size_t job, const PrismSearchResult *res,
                                   const PrismSpaceFilter *filter, const PrismKernelTable *kt,
                                   PrismSearchStopFn stop, void *stop_user, GError **error);
/** The same over jobs made available on demand (search.h PrismSearchJobs); job @p job
 * is made available (get) and must stay so until the next get of another job.
 * Collective: yes (as prism_diagnose_run). */
PrismDiagnosis *prism_diagnose_run_jobs(PrismComm *comm, const PrismSearchJobs *jobs, size_t job,
                                        const PrismSearchResult *res,
                                        const PrismSpaceFilter *filter, const PrismKernelTable *kt,
                                        PrismSearchStopFn stop, void *stop_user, GError **error);
void prism_diagnosis_free(PrismDiagnosis *d);

/**
 * The job whose closest strategy has the lowest peak memory over all @p n_jobs jobs (the
 * first on ties; 0 when no job has a closest strategy). For a grid sweep with nothing
 * feasible anywhere. Not collective.
 */
size_t prism_diagnose_closest_job(const PrismSearchResult *res, size_t n_jobs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismDiagnosis, prism_diagnosis_free)

G_END_DECLS

#endif /* PRISM_DIAGNOSE_H */
