/*
 * search.h - the search driver: evaluate every strategy of one or more JOBS over the
 * MPI ranks, hand every row to a row sink, and build global Pareto fronts and top-k
 * lists that are identical for any number of ranks.
 *
 * A job is a compiled cost model plus a strategy space (a grid sweep is one job per
 * grid point). The global index of a run is the concatenation of its jobs' indices:
 * job j covers [first_j, first_j + size_j) with first_j = sum of the earlier sizes.
 *
 * Partition: rank r evaluates one contiguous block [lo, hi) of the global index. Each
 * row is weighted by its job's estimated cost per row (PrismSearchJob.row_weight,
 * default prism_search_row_weight()) times a factor of its segment (rows with more
 * pipeline stages cost the kernel more; search/README.md), and each rank gets an
 * equal share of the total weight. The blocks depend only on the jobs and the rank
 * count (prism_search_partition); the index never depends on the rank count.
 *
 * Loop: each rank walks its block in increasing index order in ROUNDS: every rank runs
 * the same number of rounds (its block cut into equal parts, about 2^18 rows each for
 * the largest block) and each round ends with one MPI_Allreduce of an error/stop flag.
 * Within a round, batches of at most PrismSearchOptions.batch lanes never straddle a
 * segment or a job boundary. A batch is decoded by pointer arithmetic into the space's
 * lane table, evaluated with the job's evaluator on a lazily compiled PrismCostSegment
 * (compiled when the walk enters the segment), handed to the sink (if any), and folded
 * into the local fronts and top-k lists of its job. Afterwards the fronts and lists are
 * merged in a fixed binomial tree (front.h) and broadcast, so every rank holds the same
 * result.
 *
 * Errors and interruption: an error from the set-up, the sink or segment compilation,
 * or a TRUE from the stop hook, ends the loop on every rank at the end of the current
 * round; all ranks then agree (prism_comm_agree_error), call sink->end(ok = FALSE) and
 * return FALSE with the failing rank's error (a stop is PRISM_RUNTIME_ERROR_INTERRUPTED).
 *
 * Progress: with PrismSearchOptions.progress and a progress_fn, rank 0 reports the rows
 * done at the start, after each round but the last, and at the end of a search that
 * completed; the library prints nothing (the CLI's line: src/app/app_search.c).
 */
#ifndef PRISM_SEARCH_H
#define PRISM_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/comm.h>
#include <prism/cost.h>
#include <prism/front.h>
#include <prism/sink.h>
#include <prism/space.h>

G_BEGIN_DECLS

/** What an objective or ranking column reads. */
typedef enum {
    PRISM_COLUMN_COST = 0, /**< a cost-model output column (PrismCostCol) */
    PRISM_COLUMN_DIM = 1,  /**< a strategy dimension (PrismDim), e.g. devices or tp */
} PrismColumnKind;

/** One objective: a column and a direction. */
typedef struct PrismObjective {
    PrismColumnKind kind;
    int id;            /**< PrismCostCol or PrismDim */
    gboolean maximize; /**< "max:" prefix; minimised otherwise */
} PrismObjective;

/**
 * Parse one objective: "[min:|max:]NAME" where NAME is a cost column
 * (prism_col_lookup: step_time, peak_mem, mfu, tokens_per_s, ...), a strategy dimension
 * (prism_dim_lookup: devices, tp, ...) or a friendly alias: step/time -> step_time,
 * memory/mem -> peak_mem, throughput/tokens -> tokens_per_s, bubble -> bubble_time.
 * Not collective.
 * Errors: PRISM_INPUT_ERROR_UNKNOWN_NAME listing the closest names.
 */
gboolean prism_objective_parse(const char *text, PrismObjective *out, GError **error);
/**
 * Parse a comma-separated list into @p out (at most PRISM_FRONT_MAX_OBJECTIVES).
 * Errors: as prism_objective_parse, PRISM_INPUT_ERROR_VALUE for an empty or too long
 * list, PRISM_INPUT_ERROR_CONFLICT for a column named twice.
 */
gboolean prism_objectives_parse(const char *text, PrismObjective *out, size_t *n, GError **error);
/** "max:mfu", "step_time", "devices". Ownership: g_free(). */
char *prism_objective_name(const PrismObjective *o);
/** The column value of one row (not negated for max). Not collective. */
double prism_objective_value(const PrismObjective *o, const PrismStrategy *s,
                             const double cols[PRISM_COL_COUNT]);

/** One job: borrowed cost model and space, both must outlive the run. */
typedef struct PrismSearchJob {
    const PrismCostModel *cm;
    const PrismSpace *space;
    double row_weight; /**< estimated cost of one row; <= 0: prism_search_row_weight(cm) */
} PrismSearchJob;

/**
 * The jobs of a run, made available one at a time (a grid sweep builds each point's cost
 * model and space on demand instead of keeping them all: search/README.md, "Memory").
 * Everything the driver needs about all jobs at once is here, in a few numbers a job:
 *   first:  n + 1 global indices, first[j] the first row of job j, first[n] the total
 *   weight: n partition weights, weight[j] = prism_search_job_weight() of job j
 *   multi_devices: some job's space has several device counts (default objectives)
 * get(user, j, out): job j's cost model and space in *out, valid until the next get()
 * with another j (a get() of the same j keeps them) or the end of the run; FALSE with
 * @p error when it cannot be built. The driver calls it on every rank alike for the
 * partition, and per rank for the jobs of its block.
 */
typedef struct PrismSearchJobs {
    size_t n;
    const uint64_t *first;
    const double *weight;
    gboolean multi_devices;
    gboolean (*get)(void *user, size_t j, PrismSearchJob *out, GError **error);
    void *user;
} PrismSearchJobs;

/** Polled after each batch on each rank; TRUE on any rank stops every rank at the end of
 * the round, as interrupted. Called locally (not collective). */
typedef gboolean (*PrismSearchStopFn)(void *user);

/** When rank 0 reports progress (PrismSearchOptions.progress_fn). */
typedef enum {
    PRISM_PROGRESS_START = 0, /**< the search starts (after its first barrier) */
    PRISM_PROGRESS_ROUND = 1, /**< a round ended (every one but the last) */
    PRISM_PROGRESS_END = 2    /**< the search completed on every rank */
} PrismProgressPhase;

/**
 * Progress of a search: @p done of @p total rows (a fraction of the whole run, from the
 * rounds done), @p seconds since the start, @p label the options' label ("search" when
 * NULL). Called on rank 0 only, by the thread that called the search: it must not call a
 * collective. Not collective.
 */
typedef void (*PrismSearchProgressFn)(void *user, PrismProgressPhase phase, const char *label,
                                      double done, uint64_t total, double seconds);

typedef struct PrismSearchOptions {
    PrismObjective objectives[PRISM_FRONT_MAX_OBJECTIVES];
    size_t n_objectives; /**< 0: step_time, peak_mem (+ devices when a space has several) */
    PrismObjective rank_by;
    gboolean rank_by_set;       /**< FALSE: top-k by step_time (minimised) */
    size_t top_k;               /**< top-k list length; 0 = 10 */
    size_t closest_k;           /**< closest list length; 0 = top_k */
    size_t batch;               /**< lanes per batch, 1..4096; 0 = 1024 */
    uint64_t round_rows;        /**< rows of the largest block per round; 0 = 2^18 */
    const PrismKernelTable *kt; /**< NULL: prism_kernel_table_get(NULL, ...) */
    PrismSearchStopFn stop;     /**< NULL: never stops early */
    void *stop_user;
    gboolean progress;                 /**< rank 0 calls progress_fn */
    const char *label;                 /**< progress prefix ("plan", "sweep"); NULL = "search" */
    PrismSearchProgressFn progress_fn; /**< NULL: no progress */
    void *progress_user;
    /** Worker threads of a rank, 1..PRISM_SEARCH_THREADS_MAX; 0 = the online CPUs when the
     *  communicator has one rank, else 1. Used only without a row sink and for jobs given
     *  as an array (prism_search_run); the result does not depend on it. */
    int threads;
    /** TRUE: run the kernel on every row. FALSE (default): without a row sink, a row whose
     *  static bytes (known from another row of its static key, cost.h PrismLanes.skey_id)
     *  exceed the usable memory and the closest list's last peak is counted as evaluated and
     *  infeasible without running the kernel. The result is the same either way. */
    gboolean exhaustive;
    /** TRUE (and not exhaustive, no row sink): also leave out, without evaluating them, the
     *  rows whose floors (of the step time and the peak per GEMM key, sp and tp_overlap
     *  of a segment, prism_evaluator_floors, beside the static bytes) prove that
     *  they enter neither the top list nor the front, nor the closest list while the job
     *  has no feasible row yet (search/README.md, "Pruning"). The front and the top list
     *  are those of the full walk, bit for bit, and so is the closest list of a job without
     *  a feasible row; feasible and evaluated then count the evaluated rows only
     *  (prism_search_result_proved: the others), and depend on the ranks and threads, as
     *  does the closest list of a job with a feasible row. FALSE: every count exact. */
    gboolean bound;
    /** With a row sink: also evaluate every row at both corners of the published ranges
     *  (ranges.h, prism_cost_model_corner of the job's model) and hand the sink its
     *  interval columns (sink.h PrismRowBatch.iv): two more kernel runs per row. */
    gboolean intervals;
    /** With intervals: a row at memory risk (or over) counts as infeasible for the fronts,
     *  top-k lists and feasible counts (the stored feasible column stays the point verdict). */
    gboolean mem_safety;
} PrismSearchOptions;

#define PRISM_SEARCH_THREADS_MAX 256

/** Defaults (every field as documented above). Not collective. */
void prism_search_options_init(PrismSearchOptions *opt);

typedef struct PrismSearchResult PrismSearchResult;

/**
 * Run the search. Every rank passes the same jobs (built from the same inputs) and
 * options. @p sink may be NULL. Collective: yes (on @p comm).
 * Ownership: caller frees the result with prism_search_result_free(); identical on
 * every rank. Errors: PRISM_INPUT_ERROR_* (bad options), PRISM_RUNTIME_ERROR_MPI,
 * _INTERRUPTED, _PEER_FAILED, and whatever the sink or segment compilation reports;
 * agreed on every rank.
 */
PrismSearchResult *prism_search_run(PrismComm *comm, const PrismSearchJob *jobs, size_t n_jobs,
                                    const PrismSearchOptions *opt, const PrismRowSink *sink,
                                    GError **error);
/** The same over jobs made available on demand (PrismSearchJobs). Collective: yes. */
PrismSearchResult *prism_search_run_jobs(PrismComm *comm, const PrismSearchJobs *jobs,
                                         const PrismSearchOptions *opt, const PrismRowSink *sink,
                                         GError **error);
void prism_search_result_free(PrismSearchResult *r);
/** Threads each rank used (1 unless prism_search_run without a sink; see threads). */
int prism_search_result_threads(const PrismSearchResult *r);

/** Strategies in all jobs, rows evaluated, and feasible rows (summed over ranks). */
uint64_t prism_search_result_total(const PrismSearchResult *r);
uint64_t prism_search_result_evaluated(const PrismSearchResult *r);
uint64_t prism_search_result_feasible(const PrismSearchResult *r);
/** Of the rows evaluated, those decided by the static-memory bound without running the
 *  kernel (PrismSearchOptions.exhaustive; search/README.md, "Pruning"). Depends on the
 *  ranks and threads (each walker learns its own bounds); the results do not. */
uint64_t prism_search_result_pruned(const PrismSearchResult *r);
/** Rows proved out by their floors without being evaluated (PrismSearchOptions.bound);
 *  total = evaluated + proved. Depends on the ranks and threads; the results do not. */
uint64_t prism_search_result_proved(const PrismSearchResult *r);
/** Feasible rows of job @p job. */
uint64_t prism_search_result_job_feasible(const PrismSearchResult *r, size_t job);
/** Wall time of the evaluation loop, max over ranks, in seconds. */
double prism_search_result_seconds(const PrismSearchResult *r);
/** The same, min over ranks: seconds_min / seconds shows the load balance. */
double prism_search_result_seconds_min(const PrismSearchResult *r);
/** Name of the kernel ISA used ("scalar", "avx2", "avx512"). Static string. */
const char *prism_search_result_isa(const PrismSearchResult *r);
int prism_search_result_ranks(const PrismSearchResult *r);
/** The objectives and the rank-by column actually used (defaults resolved). */
const PrismObjective *prism_search_result_objectives(const PrismSearchResult *r, size_t *n);
const PrismObjective *prism_search_result_rank_by(const PrismSearchResult *r);
/**
 * Per job (0..n_jobs-1), borrowed, valid while @p r lives. Global indices; keys are
 * minimised (a "max" objective is stored negated).
 *   front:   Pareto front of the feasible rows over the objectives
 *   top:     the top_k feasible rows by the rank-by column
 *   closest: the closest_k rows (feasible or not) with the lowest peak memory, for the
 *            "nothing fits" report
 */
const PrismFront *prism_search_result_front(const PrismSearchResult *r, size_t job);
const PrismTopK *prism_search_result_top(const PrismSearchResult *r, size_t job);
const PrismTopK *prism_search_result_closest(const PrismSearchResult *r, size_t job);

/** Default cost weight of one row of @p cm for the partition (search/README.md). */
double prism_search_row_weight(const PrismCostModel *cm);
/** Partition weight of all rows of @p job: its row weight (PrismSearchJob.row_weight,
 * or prism_search_row_weight) times the sum over its segments of the segment factor
 * times the segment's rows (search/README.md). */
double prism_search_job_weight(const PrismSearchJob *job);
/** prism_search_row over jobs made available on demand (calls jobs->get). */
gboolean prism_search_jobs_row(const PrismSearchJobs *jobs, uint64_t index, size_t *job,
                               PrismStrategy *s, double cols[PRISM_COL_COUNT], GError **error);
/** The job holding global @p index (binary search of jobs->first). FALSE when out of
 * range. */
gboolean prism_search_jobs_locate(const PrismSearchJobs *jobs, uint64_t index, size_t *job,
                                  uint64_t *local);
/** A job array as PrismSearchJobs (what prism_search_run() runs on), for callers above
 *  the search that take either form. Not collective. Ownership: prism_search_jobs_free()
 *  (@p jobs stays the caller's and must outlive the result). */
PrismSearchJobs *prism_search_jobs_new_array(const PrismSearchJob *jobs, size_t n_jobs);
void prism_search_jobs_free(PrismSearchJobs *jobs);
/** Total size of the jobs' spaces. */
uint64_t prism_search_total(const PrismSearchJob *jobs, size_t n_jobs);
/** Rank @p rank's block [lo, hi) of the weighted partition. Not collective. */
void prism_search_partition(const PrismSearchJob *jobs, size_t n_jobs, int rank, int size,
                            uint64_t *lo, uint64_t *hi);
/** The job holding global @p index and the job-local index. FALSE when out of range. */
gboolean prism_search_locate(const PrismSearchJob *jobs, size_t n_jobs, uint64_t index, size_t *job,
                             uint64_t *local);
/**
 * Re-evaluate one row by global index: its strategy and every cost column (scalar
 * reference, bit-identical to the kernels). Used to print fronts and top-k lists.
 * Errors: PRISM_INPUT_ERROR_VALUE when @p index is out of range.
 */
gboolean prism_search_row(const PrismSearchJob *jobs, size_t n_jobs, uint64_t index, size_t *job,
                          PrismStrategy *s, double cols[PRISM_COL_COUNT], GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismSearchResult, prism_search_result_free)

G_END_DECLS

#endif /* PRISM_SEARCH_H */
