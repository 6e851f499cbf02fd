/*
 * grid.h - the model of a grid sweep (`prism sweep --grid FILE`): the grid file, its
 * points (models x clusters x device counts x global batches x sequence lengths, in that
 * nesting), which command-line options it may not repeat, the knobs its points share, and
 * the set-up: each point validated and counted, its cost model and space built on demand.
 * The file's format is in io/README.md; search/analysis/grid_file.c reads it and
 * search/analysis/grid.c expands and sets it up; src/app/cmd_sweep.c gives the options and
 * renders the run. Nothing here is collective: every rank loads the same file and computes
 * the same points.
 */
#ifndef PRISM_GRID_H
#define PRISM_GRID_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include <prism/cluster.h>
#include <prism/cost.h>
#include <prism/framework.h>
#include <prism/knobs.h>
#include <prism/model.h>
#include <prism/search.h>
#include <prism/space.h>
#include <prism/training.h>

G_BEGIN_DECLS

/* Grid files (`prism sweep --grid FILE`; format in io/README.md). */

typedef struct PrismGrid {
    char *path;
    char **model_names;  /**< as written (NULL-terminated) */
    PrismModel **models; /**< resolved, n_models */
    size_t n_models;
    char **cluster_names; /**< NULL when the file lists none (the CLI's --cluster applies) */
    PrismCluster **clusters;
    size_t n_clusters;
    char *devices;       /**< --devices syntax ("8,16:64"), NULL = the CLI's --devices */
    uint64_t *gbs, *seq; /**< NULL = the CLI's value */
    size_t n_gbs, n_seq;
    char *dtype, *optimizer;     /**< [options], NULL = unset */
    double mem_budget_gib;       /**< 0 = unset */
    char **fix, **range, **only; /**< search filters (space.h syntax), NULL = unset */
    char *objectives, *rank_by;
    size_t top;   /**< 0 = unset */
    char **knobs; /**< [knobs] as "name=value", NULL = none */
} PrismGrid;

/**
 * Load and validate a grid file: [grid] models (required), clusters, devices, gbs, seq
 * as ';'-separated lists; [options] dtype, optimizer, mem_budget (GiB), fix, range,
 * only, objectives, rank_by, top; [knobs] name = value. Models and clusters are
 * resolved (zoo/preset names or files; a relative path is tried next to the grid file
 * first). Not collective. Errors: PRISM_INPUT_ERROR_* naming the file, group, key and
 * value. Ownership: prism_grid_free().
 */
PrismGrid *prism_grid_load(const char *path, GError **error);
void prism_grid_free(PrismGrid *grid);

/* Grid points. */

/** The setup of one point; everything borrowed (from the grid or the base setup). */
typedef struct PrismGridPoint {
    const PrismModel *model;
    const PrismCluster *cluster;
    const char *model_name, *cluster_name;
    PrismTraining training;
    const uint32_t *devices; /**< a grid point has one device count; a single setup may
                                  have several */
    size_t n_devices;
} PrismGridPoint;

/**
 * The points of a run: a grid's (models x clusters x devices x gbs x seq, in that nesting:
 * the sequence length varies fastest), or the one point of a single setup (@p grid NULL).
 * The base setup is what the command line gives; a grid takes from it what the file leaves
 * unset (the cluster, the batch, the sequence, the training settings).
 */
typedef struct PrismGridPoints {
    const PrismGrid *grid;            /**< NULL: a single setup, the base */
    PrismGridPoint base;              /**< the command line's setup (borrowed) */
    const uint32_t *devices;          /**< the grid's device counts, n_dev (borrowed) */
    size_t n_dev, n_cl, n_gbs, n_seq; /**< lengths of the nested lists (1 when unset) */
    size_t per_cluster;               /**< points per cluster: n_dev * n_gbs * n_seq */
    size_t n_points;                  /**< n_models * n_cl * per_cluster, or 1 */
} PrismGridPoints;

/** The points of @p grid (NULL: the single setup @p base) over the device counts @p devices
 *  (a grid's own list, or the base's when it gives none). Borrows all three. */
void prism_grid_points_init(PrismGridPoints *p, const PrismGrid *grid, const PrismGridPoint *base,
                            const uint32_t *devices, size_t n_dev);
/** The setup of point @p i < p->n_points (no validation: the grid loader checked its values). */
void prism_grid_point(const PrismGridPoints *p, size_t i, PrismGridPoint *out);
/** The cluster index of point @p i (0 for a single setup). */
size_t prism_grid_point_cluster(const PrismGridPoints *p, size_t i);
/** "grid FILE point I (MODEL on N x CLUSTER, gbs B, seq S)", or "inputs" for a single setup.
 *  Ownership: g_free(). */
char *prism_grid_point_label(const PrismGridPoints *p, size_t i);

/** The command-line options given that a grid file may also set (TRUE: given). */
typedef struct PrismGridGiven {
    gboolean model, cluster, devices, gbs, seq, dtype, optimizer, mem_budget;
    gboolean objectives, rank_by, top;
} PrismGridGiven;

/** A grid value and the same command-line option may not both be given: the first such
 *  pair is PRISM_INPUT_ERROR_CONFLICT naming the option, the file and its group and key. */
gboolean prism_grid_check_given(const PrismGrid *grid, const PrismGridGiven *given, GError **error);

/**
 * The knobs of a grid run in @p k: defaults, then framework profile @p fw's (NULL: none;
 * with its [knobs.FAMILY] group for the cluster), then the grid's [knobs], then
 * @p knobs_file (NULL: none) and the --set assignments @p set (NULL-terminated, NULL:
 * none). The same for every cluster of the grid, as a landscape records one set of knobs:
 * clusters that the profile's [knobs.FAMILY] groups would price with different knobs are
 * PRISM_INPUT_ERROR_CONFLICT. @p single: the cluster of a grid that lists none.
 */
gboolean prism_grid_knobs(const PrismGrid *grid, const PrismFramework *fw,
                          const PrismCluster *single, const char *knobs_file, char *const *set,
                          PrismKnobs *k, GError **error);

/* Set-up: what the search needs of every point at once. */

/** Per point: the constants readers derive mfu and tokens_per_s from. */
typedef struct PrismGridConstants {
    double flops_per_step;  /**< prism_cost_model_flops_per_step */
    double peak_flops;      /**< prism_cost_model_peak_flops */
    double tokens_per_step; /**< prism_cost_model_tokens_per_step */
} PrismGridConstants;

/** A check of a grid point's training on its cluster under the run's knobs, before its cost
 *  model is built (the command's memory-budget check); FALSE with @p error. */
typedef gboolean (*PrismGridCheckFn)(const PrismTraining *t, const PrismCluster *c,
                                     const PrismKnobs *k, GError **error);
/** Before each point is set up (@p done of @p total), and once at the end (@p final). */
typedef void (*PrismGridProgressFn)(void *user, size_t done, size_t total, gboolean final);

/**
 * The jobs of a run over its points (PrismSearchJobs): per point only its first row and
 * partition weight (16 bytes) and its constants (24 bytes); the cost model and space of
 * one point at a time are built on demand (jobs.get) and freed when another point is asked
 * for. The caller fills the inputs; prism_grid_jobs_setup() the rest.
 */
typedef struct PrismGridJobs {
    /* inputs, borrowed */
    const PrismGridPoints *pts;
    const PrismKnobs *knobs;
    const PrismSpaceFilter *filter;
    PrismGridCheckFn check; /**< grid points only; NULL: none */
    PrismSearchStopFn stop; /**< polled between points and inside a point's enumeration
                                 during the set-up (PRISM_RUNTIME_ERROR_INTERRUPTED); NULL */
    void *stop_user;
    /* set up */
    uint64_t *first;               /**< n_points + 1 */
    double *weight;                /**< n_points */
    PrismGridConstants *constants; /**< n_points */
    char *space_sum;     /**< a grid's: SHA-256 of the spaces' descriptions; NULL for one setup */
    uint32_t max_levels; /**< the most network levels of a point's cluster */
    PrismSearchJobs jobs;
    /* the point made available by jobs.get */
    size_t cur;
    PrismCostModel *cm;
    PrismSpace *space;
} PrismGridJobs;

/**
 * Set up every point, one at a time (memory does not grow with the points beyond the
 * per-point numbers): validate it, build its cost model and (for the first cluster: the
 * cluster does not change the space) its space, record its rows, weight and constants;
 * then free both. Points of a later cluster take the rows and weight of the same point of
 * the first cluster (the row weight only depends on the model). Errors name the point;
 * an interruption (stop) is PRISM_RUNTIME_ERROR_INTERRUPTED saying nothing was written.
 * @p progress: NULL or called as PrismGridProgressFn says. Free with prism_grid_jobs_clear().
 */
gboolean prism_grid_jobs_setup(PrismGridJobs *j, PrismGridProgressFn progress, void *progress_user,
                               GError **error);
void prism_grid_jobs_clear(PrismGridJobs *j);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismGrid, prism_grid_free)

G_END_DECLS

#endif /* PRISM_GRID_H */
