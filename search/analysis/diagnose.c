// SPDX-License-Identifier: MIT
/*
 * diagnose.c - diagnose.h: the closest strategies of a job with nothing feasible,
 * and the what-if searches (more devices, no filters) that say what would make room.
 *
 * Collective on comm through prism_search_run(); everything else is computed alike on
 * every rank from the same (rank-independent) search result.
 */
#include <prism/diagnose.h>

#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/search.h>

void prism_diagnosis_free(PrismDiagnosis *d)
{
    if (d == NULL)
        return;
    g_free(d->closest);
    g_free(d->what_ifs);
    g_free(d);
}

size_t prism_diagnose_closest_job(const PrismSearchResult *res, size_t n_jobs)
{
    size_t best = 0;
    double peak = INFINITY;
    for (size_t j = 0; j < n_jobs; j++) {
        const PrismTopK *cl = prism_search_result_closest(res, j);
        if (prism_topk_size(cl) > 0 && prism_topk_key(cl, 0) < peak) {
            peak = prism_topk_key(cl, 0);
            best = j;
        }
    }
    return best;
}

/* What every what-if search runs with: the kernel and the caller's stop hook. */
typedef struct {
    const PrismKernelTable *kt;
    PrismSearchStopFn stop;
    void *stop_user;
} WhatIfRun;

/* One what-if search: the job's model, training and knobs on @p devices with @p filter.
 * An empty space (no valid strategy) fits nothing; the same on every rank. A stop request
 * ends the space's enumeration or the search (PRISM_RUNTIME_ERROR_INTERRUPTED, agreed on
 * every rank before the search's collectives). */
static gboolean what_if_search(PrismComm *comm, const PrismCostModel *cm, const uint32_t *devices,
                               size_t n_devices, const PrismSpaceFilter *filter,
                               const WhatIfRun *run, PrismWhatIf *w, GError **error)
{
    w->searched = TRUE;
    w->feasible = 0;
    w->best_step = NAN;
    memset(&w->best, 0, sizeof w->best);
    GError *local = NULL, *stopped = NULL;
    g_autoptr(PrismSpace) space =
        prism_space_new_stoppable(prism_cost_model_model(cm), prism_cost_model_training(cm),
                                  devices, n_devices, filter, run->stop, run->stop_user, &local);
    if (g_error_matches(local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED))
        stopped = g_steal_pointer(&local);
    g_clear_error(&local);
    if (!prism_comm_agree_error(comm, &stopped)) { /* one rank stopped: every rank stops */
        g_propagate_error(error, stopped);
        return FALSE;
    }
    if (space == NULL)
        return TRUE;
    PrismSearchJob job = {.cm = cm, .space = space};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.top_k = 1;
    opt.kt = run->kt;
    opt.stop = run->stop;
    opt.stop_user = run->stop_user;
    g_autoptr(PrismSearchResult) res = prism_search_run(comm, &job, 1, &opt, NULL, error);
    if (res == NULL)
        return FALSE;
    w->feasible = prism_search_result_feasible(res);
    const PrismTopK *top = prism_search_result_top(res, 0);
    if (prism_topk_size(top) == 0)
        return TRUE;
    w->best_step = prism_topk_key(top, 0);
    double cols[PRISM_COL_COUNT];
    return prism_search_row(&job, 1, prism_topk_index(top, 0), NULL, &w->best, cols, error);
}

/* Closest entries by their device-level figure, ties by the lower global index (the
 * search's own tie order): the same on every rank. */
static int cmp_over(const void *pa, const void *pb)
{
    const PrismDiagClosest *a = pa, *b = pb;
    if (a->over != b->over)
        return a->over < b->over ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* 2x, 4x, 8x the largest device count, the first that fits ends the scan. */
static gboolean more_devices(PrismComm *comm, const PrismCostModel *cm,
                             const PrismSpaceFilter *filter, const WhatIfRun *run, uint32_t largest,
                             PrismWhatIf *w, GError **error)
{
    w->kind = PRISM_WHAT_IF_DEVICES;
    w->best_step = NAN;
    for (uint32_t f = 2; f <= 8; f *= 2) {
        uint64_t n = (uint64_t)largest * f;
        if (n > G_MAXUINT32)
            break;
        w->factor = f;
        w->devices = (uint32_t)n;
        if (!what_if_search(comm, cm, &w->devices, 1, filter, run, w, error))
            return FALSE;
        if (w->feasible > 0)
            break;
    }
    return TRUE;
}

static PrismCostCol dominant_part(const double *c)
{
    PrismCostCol best = PRISM_COL_MEM_PARAMS;
    for (int k = PRISM_COL_MEM_PARAMS + 1; k <= PRISM_COL_MEM_COMM_BUFFERS; k++)
        if (c[k] > c[best])
            best = (PrismCostCol)k;
    return best;
}

PrismDiagnosis *prism_diagnose_run(PrismComm *comm, const PrismSearchJob *jobs, size_t n_jobs,
                                   size_t job, const PrismSearchResult *res,
                                   const PrismSpaceFilter *filter, const PrismKernelTable *kt,
                                   PrismSearchStopFn stop, void *stop_user, GError **error)
{
    PrismSearchJobs *a = prism_search_jobs_new_array(jobs, n_jobs);
    PrismDiagnosis *d =
        prism_diagnose_run_jobs(comm, a, job, res, filter, kt, stop, stop_user, error);
    prism_search_jobs_free(a);
    return d;
}

PrismDiagnosis *prism_diagnose_run_jobs(PrismComm *comm, const PrismSearchJobs *jobs, size_t job,
                                        const PrismSearchResult *res,
                                        const PrismSpaceFilter *filter, const PrismKernelTable *kt,
                                        PrismSearchStopFn stop, void *stop_user, GError **error)
{
    const WhatIfRun run = {kt, stop, stop_user};
    if (job >= jobs->n) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "diagnose: job %zu out of range (%zu jobs)", job, jobs->n);
        return NULL;
    }
    PrismSearchJob one;
    if (!jobs->get(jobs->user, job, &one, error))
        return NULL;
    const PrismCostModel *cm = one.cm;
    size_t nd = 0;
    const uint32_t *dev = prism_space_devices(one.space, &nd);
    g_autofree uint32_t *dev_copy = g_memdup2(dev, nd * sizeof(uint32_t));
    dev = dev_copy;
    g_autoptr(PrismDiagnosis) d = g_new0(PrismDiagnosis, 1);
    d->job = job;
    d->margin = prism_cost_model_knobs(cm)->v[PRISM_KNOB_MEM_MARGIN];
    d->usable = prism_cost_model_budget(cm) - d->margin;
    d->device_mem = prism_cost_model_cluster(cm)->mem_bytes;
    d->host_usable = prism_cost_model_host_budget(cm);
    d->max_devices = dev[nd - 1];
    d->n_device_counts = nd;
    g_autofree char *filt = prism_space_filter_describe(filter);
    d->filtered = filt[0] != '\0';

    static const struct {
        PrismDim dim;
        const char *saver;
    } savers[] = {
        {PRISM_DIM_MBS, "mbs=1"},    {PRISM_DIM_RECOMPUTE, "recompute=full"},
        {PRISM_DIM_ZERO, "zero=3"},  {PRISM_DIM_TP, "larger tp"},
        {PRISM_DIM_PP, "larger pp"}, {PRISM_DIM_OFFLOAD, "offload=1 or 3 (state to host memory)"}};
    d->what_ifs = g_new0(PrismWhatIf, 3 + G_N_ELEMENTS(savers));
    PrismWhatIf *w = &d->what_ifs[d->n_what_ifs++];
    if (!more_devices(comm, cm, filter, &run, d->max_devices, w, error))
        return NULL;
    if (d->filtered) {
        w = &d->what_ifs[d->n_what_ifs++];
        w->kind = PRISM_WHAT_IF_NO_FILTERS;
        if (!what_if_search(comm, cm, dev, nd, NULL, &run, w, error))
            return NULL;
    }

    const PrismTopK *cl = prism_search_result_closest(res, job);
    d->n_closest = prism_topk_size(cl);
    if (d->n_closest == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                    "nothing fits and no strategy has a finite peak memory");
        return NULL;
    }
    d->closest = g_new0(PrismDiagClosest, d->n_closest);
    for (size_t i = 0; i < d->n_closest; i++) {
        PrismDiagClosest *c = &d->closest[i];
        c->index = prism_topk_index(cl, i);
        if (!prism_search_jobs_row(jobs, c->index, NULL, &c->strategy, c->cols, error))
            return NULL;
        /* the device-level figure the verdict is on (prism_cost_memory_kinds) */
        PrismMemKinds mk;
        prism_cost_memory_kinds(cm, &c->strategy, c->cols[PRISM_COL_MEM_PEAK],
                                prism_cost_persistent(c->cols), &mk);
        c->over = mk.device - d->usable;
        c->dominant = dominant_part(c->cols);
    }
    /* the search keeps the rows of the lowest allocated peak; feasibility is decided on
     * the device-level figure (over), which adds the allocator's reserve on the transient
     * bytes, the CUDA context and NCCL's buffers per group, and can order them otherwise:
     * shown and ranked by that figure, #1 the strategy closest to fitting */
    qsort(d->closest, d->n_closest, sizeof *d->closest, cmp_over);
    const double *c0 = d->closest[0].cols;
    d->statics = c0[PRISM_COL_MEM_PARAMS] + c0[PRISM_COL_MEM_GRADS] + c0[PRISM_COL_MEM_OPTIMIZER];
    d->statics_exceed = d->statics > d->usable;

    w = &d->what_ifs[d->n_what_ifs++];
    w->kind = PRISM_WHAT_IF_MEM_BUDGET;
    w->best_step = NAN;
    w->mem_budget = d->closest[0].over + d->usable + d->margin;
    for (size_t i = 0; i < G_N_ELEMENTS(savers); i++)
        if (prism_space_filter_restricts(filter, savers[i].dim)) {
            w = &d->what_ifs[d->n_what_ifs++];
            w->kind = PRISM_WHAT_IF_FILTER_DIM;
            w->best_step = NAN;
            w->dim = savers[i].dim;
            w->saver = savers[i].saver;
        }
    return g_steal_pointer(&d);
}
