// SPDX-License-Identifier: MIT
/*
 * search_driver.c - the search loop: weighted block partition over ranks, rounds of
 * batches (decode -> evaluate -> sink -> local fronts/top-k), cooperative stop, then the
 * cross-rank merge of the per-job results. The contract is in search.h.
 *
 * prism_search_run() is collective on its communicator. Each rank evaluates its own
 * block in ROUNDS: every rank runs the same number of rounds, and each round ends with
 * one MPI_Allreduce of a status flag, so an error or a stop request on any rank ends
 * every rank at the same round boundary.
 *
 * Threads (PrismSearchOptions.threads, no sink, array jobs): a rank's round is cut into
 * groups of consecutive segments that share their lane tables (one device count and pp);
 * this thread builds the group's tables, then the group's rows are dealt in chunks to
 * the threads, one Walker each (its own evaluator, compiled segment and results), joined
 * before the next group. The Walkers' results merge like ranks'
 * (bundle_merge: canonical fronts and top-k lists), so the result is the same for any
 * thread count, as it is for any rank count.
 */
#include <prism/search.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <prism/core.h>

#include "search-internal.h"

/* Rows per rank per round: about 10-30 ms of evaluation, small next to a round's
 * allreduce, short enough that a stop request ends the run promptly. */
#define ROUND_ROWS ((uint64_t)1 << 18)

enum { FLAG_ERROR = 1, FLAG_STOP = 2 };

/* The reducible per-job results of one rank. */
typedef struct {
    size_t n_jobs;
    PrismFront **front;
    PrismTopK **top, **closest;
    uint64_t *feasible; /* per job */
    uint64_t evaluated;
    uint64_t pruned; /* of evaluated: decided by the static-memory bound (Walker.prune) */
    uint64_t proved; /* not evaluated: proved out of every list by their bounds */
} Bundle;

struct PrismSearchResult {
    Bundle b;
    uint64_t total;
    double seconds, seconds_min;
    const char *isa;
    int ranks, threads;
    PrismObjective obj[PRISM_FRONT_MAX_OBJECTIVES];
    size_t n_obj;
    PrismObjective rank_by;
};

static Bundle *bundle_new(size_t n_jobs, size_t n_obj, size_t k, size_t kc)
{
    Bundle *b = g_new0(Bundle, 1);
    b->n_jobs = n_jobs;
    b->front = g_new0(PrismFront *, n_jobs);
    b->top = g_new0(PrismTopK *, n_jobs);
    b->closest = g_new0(PrismTopK *, n_jobs);
    b->feasible = g_new0(uint64_t, n_jobs);
    for (size_t j = 0; j < n_jobs; j++) {
        b->front[j] = n_obj ? prism_front_new(n_obj) : NULL;
        b->top[j] = prism_topk_new(k);
        b->closest[j] = prism_topk_new(kc);
    }
    return b;
}

static void bundle_clear(Bundle *b)
{
    for (size_t j = 0; j < b->n_jobs; j++) {
        prism_front_free(b->front[j]);
        prism_topk_free(b->top[j]);
        prism_topk_free(b->closest[j]);
    }
    g_free(b->front);
    g_free(b->top);
    g_free(b->closest);
    g_free(b->feasible);
}

static void bundle_free(void *obj)
{
    if (obj == NULL)
        return;
    bundle_clear(obj);
    g_free(obj);
}

static void bundle_serialize(const void *obj, GByteArray *out)
{
    const Bundle *b = obj;
    prism_put_u64_internal(out, b->n_jobs);
    prism_put_u64_internal(out, b->evaluated);
    prism_put_u64_internal(out, b->pruned);
    prism_put_u64_internal(out, b->proved);
    for (size_t j = 0; j < b->n_jobs; j++) {
        prism_put_u64_internal(out, b->feasible[j]);
        prism_front_serialize(b->front[j], out);
        prism_topk_serialize(b->top[j], out);
        prism_topk_serialize(b->closest[j], out);
    }
}

static void *bundle_deserialize(const guint8 *data, size_t len, GError **error)
{
    uint64_t n_jobs, evaluated, pruned, proved;
    if (len < 32) {
        prism_corrupt_internal(error, "search result");
        return NULL;
    }
    memcpy(&n_jobs, data, 8);
    memcpy(&evaluated, data + 8, 8);
    memcpy(&pruned, data + 16, 8);
    memcpy(&proved, data + 24, 8);
    if (n_jobs > len / 8) {
        prism_corrupt_internal(error, "search result (job count)");
        return NULL;
    }
    Bundle *b = g_new0(Bundle, 1);
    b->n_jobs = (size_t)n_jobs;
    b->evaluated = evaluated;
    b->pruned = pruned;
    b->proved = proved;
    b->front = g_new0(PrismFront *, b->n_jobs);
    b->top = g_new0(PrismTopK *, b->n_jobs);
    b->closest = g_new0(PrismTopK *, b->n_jobs);
    b->feasible = g_new0(uint64_t, b->n_jobs);
    size_t off = 32, used = 0;
    for (size_t j = 0; j < b->n_jobs; j++) {
        if (len - off < 8) {
            prism_corrupt_internal(error, "search result (truncated)");
            bundle_free(b);
            return NULL;
        }
        memcpy(&b->feasible[j], data + off, 8);
        off += 8;
        b->front[j] = prism_front_deserialize(data + off, len - off, &used, error);
        if (b->front[j] == NULL) {
            bundle_free(b);
            return NULL;
        }
        off += used;
        b->top[j] = prism_topk_deserialize(data + off, len - off, &used, error);
        if (b->top[j] == NULL) {
            bundle_free(b);
            return NULL;
        }
        off += used;
        b->closest[j] = prism_topk_deserialize(data + off, len - off, &used, error);
        if (b->closest[j] == NULL) {
            bundle_free(b);
            return NULL;
        }
        off += used;
    }
    return b;
}

static void *bundle_merge(const void *x, const void *y)
{
    const Bundle *a = x, *c = y;
    g_assert(a->n_jobs == c->n_jobs);
    Bundle *b = g_new0(Bundle, 1);
    b->n_jobs = a->n_jobs;
    b->evaluated = a->evaluated + c->evaluated;
    b->pruned = a->pruned + c->pruned;
    b->proved = a->proved + c->proved;
    b->front = g_new0(PrismFront *, b->n_jobs);
    b->top = g_new0(PrismTopK *, b->n_jobs);
    b->closest = g_new0(PrismTopK *, b->n_jobs);
    b->feasible = g_new0(uint64_t, b->n_jobs);
    for (size_t j = 0; j < b->n_jobs; j++) {
        b->feasible[j] = a->feasible[j] + c->feasible[j];
        b->front[j] = prism_front_merge(a->front[j], c->front[j]);
        b->top[j] = prism_topk_merge(a->top[j], c->top[j]);
        b->closest[j] = prism_topk_merge(a->closest[j], c->closest[j]);
    }
    return b;
}

static const PrismReduceOps bundle_ops = {bundle_serialize, bundle_deserialize, bundle_merge,
                                          bundle_free};

void prism_search_options_init(PrismSearchOptions *opt)
{
    memset(opt, 0, sizeof *opt);
}

double prism_search_row_weight(const PrismCostModel *cm)
{
    /* The kernel loops over the distinct layer kinds of the model. */
    return 1.0 + (double)prism_cost_model_model(cm)->n_specs;
}

uint64_t prism_search_total(const PrismSearchJob *jobs, size_t n_jobs)
{
    uint64_t t = 0;
    for (size_t j = 0; j < n_jobs; j++)
        t += prism_space_size(jobs[j].space);
    return t;
}

static double job_weight(const PrismSearchJob *job)
{
    return job->row_weight > 0 ? job->row_weight : prism_search_row_weight(job->cm);
}

/*
 * Relative cost of one row of a segment (1 = a row of a 1-chunk segment). The kernel's
 * work per row grows with the model chunks c = pp*vpp it walks, and compiling a
 * segment costs about 20k instructions per chunk, spread here over the segment's rows.
 * Fitted to callgrind instruction counts (AVX2 kernel, GPT-3 175B on 1024 devices; per
 * row: pp=2 vpp=1 517, pp=8 vpp=1 611, pp=2 vpp=2..4 564, pp=8 interleaved 1610,
 * pp=2 vpp=20..48 1837; search/README.md): about 477 + 20 c per row.
 */
static double segment_factor(const PrismSpaceSegment *seg)
{
    double c = (double)seg->key.pp * (double)seg->key.vpp;
    return 1.0 + 0.042 * c + 42.0 * c / (double)(seg->count ? seg->count : 1);
}

double prism_search_job_weight(const PrismSearchJob *job)
{
    size_t ns = 0;
    const PrismSpaceSegment *segs = prism_space_segments(job->space, &ns);
    double w = job_weight(job), all = 0;
    for (size_t i = 0; i < ns; i++)
        all += w * segment_factor(&segs[i]) * (double)segs[i].count;
    return all;
}

static gboolean array_get(void *user, size_t j, PrismSearchJob *out, GError **error)
{
    (void)error;
    *out = ((const PrismArrayJobs *)user)->jobs[j];
    return TRUE;
}

void prism_array_jobs_init_internal(PrismArrayJobs *a, const PrismSearchJob *jobs, size_t n_jobs)
{
    a->jobs = jobs;
    a->first = g_new(uint64_t, n_jobs + 1);
    a->weight = g_new(double, n_jobs ? n_jobs : 1);
    a->first[0] = 0;
    gboolean multi = FALSE;
    for (size_t j = 0; j < n_jobs; j++) {
        a->first[j + 1] = a->first[j] + prism_space_size(jobs[j].space);
        a->weight[j] = prism_search_job_weight(&jobs[j]);
        size_t nd = 0;
        (void)prism_space_devices(jobs[j].space, &nd);
        multi = multi || nd > 1;
    }
    a->src = (PrismSearchJobs){.n = n_jobs,
                               .first = a->first,
                               .weight = a->weight,
                               .multi_devices = multi,
                               .get = array_get,
                               .user = a};
}

void prism_array_jobs_clear_internal(PrismArrayJobs *a)
{
    g_free(a->first);
    g_free(a->weight);
}

/*
 * The first index of every rank's block, cuts[0..size]: rank r gets [cuts[r],
 * cuts[r+1]). Each row weighs its job's row weight times its segment factor; cut r is
 * the first index at which the weight before it reaches r/size of the total. The jobs'
 * total weights place each cut in a job; only the jobs that hold a cut are made
 * available (get) to place it among their segments. Only depends on the jobs and size.
 */
static gboolean partition_cuts(const PrismSearchJobs *jobs, int size, uint64_t *cuts,
                               GError **error)
{
    double all = 0;
    for (size_t j = 0; j < jobs->n; j++)
        all += jobs->weight[j];
    uint64_t total = jobs->first[jobs->n];
    double acc = 0;
    int r = 1;
    cuts[0] = 0;
    for (size_t j = 0; j < jobs->n && r < size; j++) {
        double after = acc + jobs->weight[j];
        if (after < all * (double)r / (double)size) {
            acc = after; /* no cut in this job */
            continue;
        }
        PrismSearchJob job;
        if (!jobs->get(jobs->user, j, &job, error))
            return FALSE;
        size_t ns = 0;
        const PrismSpaceSegment *segs = prism_space_segments(job.space, &ns);
        double w = job_weight(&job);
        for (size_t i = 0; i < ns && r < size; i++) {
            double wr = w * segment_factor(&segs[i]), ws = wr * (double)segs[i].count;
            /* every cut that falls inside this segment */
            while (r < size && acc + ws >= all * (double)r / (double)size) {
                double rows = (all * (double)r / (double)size - acc) / wr;
                uint64_t k = rows <= 0 ? 0 : (uint64_t)rows;
                if ((double)k < rows)
                    k++;
                if (k > segs[i].count)
                    k = segs[i].count;
                cuts[r++] = jobs->first[j] + segs[i].first + k;
            }
            acc += ws;
        }
        acc = after; /* the same sum, whatever the rounding inside the job */
    }
    for (; r <= size; r++)
        cuts[r] = total;
    for (int i = 1; i <= size; i++) /* monotone even under rounding */
        if (cuts[i] < cuts[i - 1])
            cuts[i] = cuts[i - 1];
    return TRUE;
}

void prism_search_partition(const PrismSearchJob *jobs, size_t n_jobs, int rank, int size,
                            uint64_t *lo, uint64_t *hi)
{
    g_autofree uint64_t *cuts = g_new(uint64_t, (size_t)size + 1);
    PrismArrayJobs a;
    prism_array_jobs_init_internal(&a, jobs, n_jobs);
    if (!partition_cuts(&a.src, size, cuts, NULL))
        g_assert_not_reached(); /* an array's get cannot fail */
    prism_array_jobs_clear_internal(&a);
    *lo = cuts[rank];
    *hi = cuts[rank + 1];
}

gboolean prism_search_jobs_locate(const PrismSearchJobs *jobs, uint64_t index, size_t *job,
                                  uint64_t *local)
{
    if (jobs->n == 0 || index >= jobs->first[jobs->n])
        return FALSE;
    size_t lo = 0, hi = jobs->n; /* first[lo] <= index < first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (jobs->first[mid] <= index)
            lo = mid;
        else
            hi = mid;
    }
    while (lo + 1 < jobs->n && jobs->first[lo + 1] <= index) /* empty jobs */
        lo++;
    *job = lo;
    *local = index - jobs->first[lo];
    return TRUE;
}

gboolean prism_search_jobs_row(const PrismSearchJobs *jobs, uint64_t index, size_t *job,
                               PrismStrategy *s, double cols[PRISM_COL_COUNT], GError **error)
{
    uint64_t local = 0;
    size_t j = 0;
    PrismSearchJob one;
    if (!prism_search_jobs_locate(jobs, index, &j, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "strategy index %" G_GUINT64_FORMAT " is out of range (%" G_GUINT64_FORMAT
                    " strategies)",
                    index, jobs->n ? jobs->first[jobs->n] : 0);
        return FALSE;
    }
    if (!jobs->get(jobs->user, j, &one, error))
        return FALSE;
    if (!prism_space_unrank(one.space, local, s)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "strategy index %" G_GUINT64_FORMAT " is out of range", index);
        return FALSE;
    }
    if (job != NULL)
        *job = j;
    return prism_cost_eval_one(one.cm, s, cols, error);
}

gboolean prism_search_locate(const PrismSearchJob *jobs, size_t n_jobs, uint64_t index, size_t *job,
                             uint64_t *local)
{
    for (size_t j = 0; j < n_jobs; j++) {
        uint64_t n = prism_space_size(jobs[j].space);
        if (index < n) {
            *job = j;
            *local = index;
            return TRUE;
        }
        index -= n;
    }
    return FALSE;
}

gboolean prism_search_row(const PrismSearchJob *jobs, size_t n_jobs, uint64_t index, size_t *job,
                          PrismStrategy *s, double cols[PRISM_COL_COUNT], GError **error)
{
    uint64_t local = 0;
    size_t j = 0;
    if (!prism_search_locate(jobs, n_jobs, index, &j, &local) ||
        !prism_space_unrank(jobs[j].space, local, s)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "strategy index %" G_GUINT64_FORMAT " is out of range (%" G_GUINT64_FORMAT
                    " strategies)",
                    index, prism_search_total(jobs, n_jobs));
        return FALSE;
    }
    if (job != NULL)
        *job = j;
    return prism_cost_eval_one(jobs[j].cm, s, cols, error);
}

/* Where one objective's values come from inside a batch. */
typedef struct {
    const double *src; /* per-lane values, or NULL for a per-segment constant */
    double constant;
    double sign; /* -1 for maximised objectives */
} KeySource;

static void key_source(const PrismObjective *o, const PrismSegmentKey *key, const PrismLanes *lanes,
                       const PrismCostOut *out, KeySource *ks)
{
    ks->sign = o->maximize ? -1.0 : 1.0;
    ks->src = NULL;
    ks->constant = 0;
    if (o->kind == PRISM_COLUMN_COST) {
        ks->src = out->col[o->id];
        return;
    }
    switch ((PrismDim)o->id) {
    case PRISM_DIM_DEVICES:
        ks->constant = key->devices;
        break;
    case PRISM_DIM_PP:
        ks->constant = key->pp;
        break;
    case PRISM_DIM_VPP:
        ks->constant = key->vpp;
        break;
    case PRISM_DIM_SCHEDULE:
        ks->constant = key->schedule;
        break;
    case PRISM_DIM_RECOMPUTE:
        ks->constant = key->recompute;
        break;
    case PRISM_DIM_RC_LAYERS:
        ks->constant = key->rc_layers;
        break;
    case PRISM_DIM_TP:
        ks->src = lanes->tp;
        break;
    case PRISM_DIM_CP:
        ks->src = lanes->cp;
        break;
    case PRISM_DIM_DP:
        ks->src = lanes->dp;
        break;
    case PRISM_DIM_EP:
        ks->src = lanes->ep;
        break;
    case PRISM_DIM_SP:
        ks->src = lanes->sp;
        break;
    case PRISM_DIM_MBS:
        ks->src = lanes->mbs;
        break;
    case PRISM_DIM_M:
        ks->src = lanes->m;
        break;
    case PRISM_DIM_ZERO:
        ks->src = lanes->zero;
        break;
    case PRISM_DIM_ETP:
        ks->src = lanes->etp != NULL ? lanes->etp : lanes->tp;
        break;
    case PRISM_DIM_FOLDING:
        ks->src = lanes->fold; /* NULL: every lane tied (0) */
        break;
    case PRISM_DIM_OFFLOAD:
        ks->constant = key->offload;
        break;
    case PRISM_DIM_TP_OVERLAP: /* NULL: every lane on (1) */
        ks->src = lanes->tp_ov;
        ks->constant = 1;
        break;
    case PRISM_DIM_DP_OVERLAP:
        ks->src = lanes->dp_ov;
        ks->constant = 1;
        break;
    case PRISM_DIM_PARAM_OVERLAP:
        ks->src = lanes->param_ov;
        ks->constant = 1;
        break;
    case PRISM_DIM_COUNT:
        break;
    }
}

static double key_value(const KeySource *ks, size_t i)
{
    return ks->sign * (ks->src ? ks->src[i] : ks->constant);
}

/* Everything one rank needs while walking its block. */
typedef struct {
    PrismComm *comm;
    const PrismSearchJobs *jobs;
    PrismSearchJob cur; /* job w->job, from jobs->get */
    const PrismSearchOptions *opt;
    const PrismRowSink *sink;
    const PrismKernelTable *kt;
    const PrismObjective *obj;
    size_t n_obj;
    PrismObjective rank_by;
    size_t batch;
    Bundle *bundle;
    PrismCostOut out;
    double *keys;     /* batch x n_obj objective keys of the feasible rows */
    uint64_t *keyidx; /* their global indices */
    /* current job and segment */
    size_t job;
    uint64_t job_first;
    PrismEvaluator *ev;
    size_t seg;
    PrismCostSegment *compiled;
    gboolean have_seg;
    gboolean keep_lanes; /* threaded: leaving a job does not release its lanes (the
                          * calling thread does, between groups) */
    gboolean lean;       /* no row sink and every key a lean column: prism_evaluator_set_lean */
    /* pruning (search/README.md, "Pruning"): without a row sink, a row whose static bytes
     * (prism_evaluator_run_static, the same for every lane of its static key in one
     * segment) exceed both the usable memory and the closest list's last peak can enter
     * no list and is not feasible, so it is counted and not evaluated */
    gboolean prune;
    double usable;    /* the current job's prism_cost_model_usable */
    double *memo;     /* per static key id of the segment: its static bytes */
    double *dmemo;    /* the same keys: the device-level figure of those bytes, a floor of
                       * the figure the verdict is on (prism_cost_memory_kinds) */
    double *cmemo;    /* the same keys, bound: each composition's static bytes (n_parts a
                       * key, prism_evaluator_run_parts), in the order learnt: */
    uint32_t *cslot;  /* per static key, its place in cmemo */
    uint32_t cmemo_n; /* keys learnt in cmemo this segment */
    double *nmemo;    /* the same keys: the device figure's constant part, the CUDA context,
                       * the allocator's pages and the NCCL buffers (device_floor at 0) */
    uint32_t n_parts; /* the segment's compositions (prism_cost_segment_n_parts) */
    size_t memo_cap;  /* doubles allocated */
    uint32_t memo_n;  /* keys in memo, NaN = not known yet (0: a new segment, memo unset) */
    double *stat;     /* batch: the evaluated lanes' static bytes */
    uint8_t *learn;   /* batch: 1 = the lane teaches the memo its key's bytes */
    PrismLanes cl;    /* the lanes kept, compacted (points into cbuf, cgid, cskid) */
    double *cbuf;     /* PRUNE_COLS x batch */
    uint32_t *cgid, *cskid, *at; /* batch: kept lanes' key ids and their place in the batch */
    /* bounds (search/README.md, "Pruning"): floors of the step time and the peak per
     * (GEMM key, sp, tp_overlap) of the segment (prism_evaluator_floors) beside the
     * static bytes; a
     * lane whose floors show that it enters neither the top list nor the front, nor the
     * closest list while the job may have no feasible row, is proved out, not evaluated */
    gboolean bound;      /* the bounds are used (prune, and every key has a bound) */
    gboolean seg_bound;  /* bound, and the segment's lanes carry GEMM key ids */
    gboolean bound_dims; /* some key is a strategy dim (read per lane: no cache) */
    double *tfloor;      /* per (GEMM key id, sp, tp_overlap) of the segment: the step time's */
    double *afloor;      /* floor, and the peak's parts (2 n_parts a probe, in the order probed: */
    uint32_t *aslot;     /* per floor index, its place in afloor) */
    uint32_t afloor_n;   /* probes in afloor this segment */
    size_t tfloor_cap, afloor_cap;
    /* whose floors tfloor and afloor hold: segment fkey of job fjob, lane set fserial
     * (PrismLanes.gkey_serial), fparts compositions; an optimizer-offload twin of that
     * segment keeps them (twin_floors) */
    gboolean fvalid;
    size_t fjob;
    PrismSegmentKey fkey;
    uint64_t fserial;
    uint32_t fparts;
    double *pbuf;         /* probes (prism_evaluator_floors): PRUNE_COLS x batch columns, */
    uint32_t *pgid, *pfi; /* their key ids and floor indices, */
    uint32_t *pat;        /* their lanes in the batch, */
    uint32_t *lfi;        /* batch: each lane's floor index, UINT32_MAX when the static
                           * bytes decide it (or it taught them) */
    double *ptime;        /* their step floors, */
    double *poutbuf;      /* and their scratch columns (PRISM_COL_COUNT x batch) */
    double mfu_num, hfu_num, tokens; /* the derived columns' numerators (cost.h) */
    double per_pp, gbs;              /* the segment's devices per stage and the global batch: a GEMM
                                      * key's dp = per_pp / tp / cp and m = gbs / dp / mbs (R1, R8) */
    /* intervals (PrismSearchOptions.intervals, with a row sink): the corners, and under
     * mem_safety the batch's memory class, a row at risk counting as infeasible */
    PrismSearchCorners *corners;
    const double *risk;
} Walker;

/* The lane columns a compacted batch carries (tp .. zero, etp, fold, the three overlaps). */
#define PRUNE_COLS 13

static void walker_clear(Walker *w)
{
    g_clear_pointer(&w->compiled, prism_cost_segment_free);
    g_clear_pointer(&w->ev, prism_evaluator_free);
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        g_clear_pointer(&w->out.col[c], prism_aligned_free);
    g_clear_pointer(&w->keys, g_free);
    g_clear_pointer(&w->keyidx, g_free);
    g_clear_pointer(&w->memo, g_free);
    g_clear_pointer(&w->dmemo, g_free);
    g_clear_pointer(&w->cmemo, g_free);
    g_clear_pointer(&w->cslot, g_free);
    g_clear_pointer(&w->nmemo, g_free);
    g_clear_pointer(&w->stat, prism_aligned_free);
    g_clear_pointer(&w->learn, g_free);
    g_clear_pointer(&w->cbuf, prism_aligned_free);
    g_clear_pointer(&w->cgid, g_free);
    g_clear_pointer(&w->cskid, g_free);
    g_clear_pointer(&w->at, g_free);
    g_clear_pointer(&w->tfloor, g_free);
    g_clear_pointer(&w->afloor, g_free);
    g_clear_pointer(&w->aslot, g_free);
    g_clear_pointer(&w->pbuf, g_free);
    g_clear_pointer(&w->pgid, g_free);
    g_clear_pointer(&w->pfi, g_free);
    g_clear_pointer(&w->pat, g_free);
    g_clear_pointer(&w->lfi, g_free);
    g_clear_pointer(&w->ptime, g_free);
    g_clear_pointer(&w->poutbuf, g_free);
    g_clear_pointer(&w->corners, prism_search_corners_free);
}

/* Fold one evaluated batch into the local results: lane i is row first + i, or
 * first + at[i] when @p at is non-NULL (a compacted batch). */
static void collect(Walker *w, const PrismSegmentKey *key, const PrismLanes *lanes, uint64_t first,
                    const uint32_t *at)
{
    size_t n = lanes->n, j = w->job;
    const double *feasible = w->out.col[PRISM_COL_FEASIBLE];
    const double *peak = w->out.col[PRISM_COL_MEM_PEAK];
    KeySource ks[PRISM_FRONT_MAX_OBJECTIVES], rk;
    for (size_t o = 0; o < w->n_obj; o++)
        key_source(&w->obj[o], key, lanes, &w->out, &ks[o]);
    key_source(&w->rank_by, key, lanes, &w->out, &rk);
    PrismFront *front = w->bundle->front[j];
    PrismTopK *top = w->bundle->top[j], *closest = w->bundle->closest[j];
    size_t feas = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t row = first + (at != NULL ? at[i] : i);
        prism_topk_offer(closest, peak[i], row);
        if (feasible[i] != 1.0 || (w->risk != NULL && w->risk[i] != 0))
            continue;
        prism_topk_offer(top, key_value(&rk, i), row);
        for (size_t o = 0; o < w->n_obj; o++)
            w->keys[feas * w->n_obj + o] = key_value(&ks[o], i);
        w->keyidx[feas++] = row;
    }
    prism_front_offer_batch(front, feas, w->keys, w->keyidx);
    w->bundle->feasible[j] += feas;
    w->bundle->evaluated += n;
}

/* Make job @p j current (its cost model and space from jobs->get, and an evaluator). */
static gboolean enter_job(Walker *w, size_t j, GError **error)
{
    if (w->ev != NULL && w->job == j)
        return TRUE;
    /* the job left keeps its size and segments but not its lanes (an array's spaces
     * stay; a grid sweep's get() frees the point left): a grid's memory is that of the
     * job being walked (prism_space_release_lanes) */
    if (w->ev != NULL && !w->keep_lanes)
        prism_space_release_lanes(w->cur.space);
    /* and its front is trimmed: a grid sweep keeps each point's front until the end, but
     * not its buffer of offers (about 130 KB a point more before) */
    if (w->ev != NULL)
        prism_front_trim(w->bundle->front[w->job]);
    g_clear_pointer(&w->compiled, prism_cost_segment_free);
    g_clear_pointer(&w->ev, prism_evaluator_free);
    w->have_seg = FALSE;
    if (!w->jobs->get(w->jobs->user, j, &w->cur, error))
        return FALSE;
    w->job = j;
    w->fvalid = FALSE;
    w->job_first = w->jobs->first[j];
    w->usable = prism_cost_model_usable(w->cur.cm);
    w->memo_n = 0;
    w->ev = prism_evaluator_new(w->cur.cm, w->kt, w->batch);
    prism_evaluator_set_lean(w->ev, w->lean);
    return w->corners == NULL || prism_search_corners_job(w->corners, w->cur.cm, w->kt, error);
}

/* The peak a row must exceed to be left out of the closest list of the job: +inf while
 * the list is not full, -inf when it has no capacity, else its last peak
 * (prism_topk_offer admits no key above the last). A row is left out by its memory when
 * its static bytes exceed this and their device-level figure the usable memory (it is
 * then infeasible: the figure the verdict is on is >= that of the peak >= that of the
 * static bytes, and it enters no list). */
static double closest_threshold(const Walker *w)
{
    const PrismTopK *closest = w->bundle->closest[w->job];
    const size_t k = prism_topk_capacity(closest);
    if (k == 0)
        return -INFINITY;
    if (prism_topk_size(closest) < k)
        return INFINITY;
    return prism_topk_key(closest, k - 1);
}

/* The device-level figure of @p stat static bytes for lane @p i of @p lanes in a segment
 * of @p pp stages: a floor of the figure feasibility is decided on, in the kernel's
 * order (prism_cost_memory_kinds: static bytes are persistent and take no reserve; the
 * peak A >= stat and its figure A + (A - P) x reserve >= A for its stage's P <= A; the
 * strategy below leaves zero at 0, so no ZeRO-3 gather pool, which only adds). */
static double device_floor(const Walker *w, const PrismLanes *lanes, size_t i, uint32_t pp,
                           double stat)
{
    PrismStrategy st = {.tp = (uint32_t)lanes->tp[i],
                        .cp = (uint32_t)lanes->cp[i],
                        .dp = (uint32_t)lanes->dp[i],
                        .ep = (uint32_t)lanes->ep[i],
                        .pp = pp};
    PrismMemKinds mk;
    prism_cost_memory_kinds(w->cur.cm, &st, stat, stat, &mk);
    return mk.device;
}

/* The addresses of the PRUNE_COLS column pointers of @p l. */
static void lane_cols(PrismLanes *l, const double **col[PRUNE_COLS])
{
    const double **c[PRUNE_COLS] = {&l->tp,    &l->cp,    &l->dp,      &l->ep,  &l->sp,
                                    &l->mbs,   &l->m,     &l->zero,    &l->etp, &l->fold,
                                    &l->tp_ov, &l->dp_ov, &l->param_ov};
    memcpy(col, c, sizeof c);
}

/* The place of PRUNE_COLS column @p c (lane_cols' order) in a GEMM key (tp, cp, mbs, ep,
 * etp: PrismLanes.gkeys), -1 when the key does not hold it. The key table holds the lane
 * table's own doubles (number_keys), so a column taken from it has the same bits, and the
 * lane columns it stands for are not touched: the walk's first touch of a lane column is
 * a cache miss. */
static int gkey_col(int c)
{
    return c == 0 ? 0 : c == 1 ? 1 : c == 5 ? 2 : c == 3 ? 3 : c == 8 ? 4 : -1;
}

/* Column @p c (2: dp, 6: m; lane_cols' order) of the lanes of GEMM key @p g (tp, cp, mbs,
 * ep, etp) in the walker's segment: dp = per_pp / tp / cp (R1) and m = gbs / dp / mbs
 * (R8), quotients of integers that divide exactly, so the divisions are exact and give
 * the lane table's values (debug builds compare them) without touching its columns. */
static inline double key_dp_m(const Walker *w, const double *g, int c)
{
    const double dp = w->per_pp / g[0] / g[1];
    return c == 2 ? dp : w->gbs / dp / g[2];
}

/* Copy lanes at[0 .. k) of @p lanes, in that order, into w->cl. */
static void compact(Walker *w, const PrismLanes *lanes, const uint32_t *restrict at, size_t k)
{
    w->cl = *lanes;
    const double **col[PRUNE_COLS];
    lane_cols(&w->cl, col);
    const uint32_t *restrict gid = lanes->gkey_id, *restrict sid = lanes->skey_id;
    for (int c = 0; c < PRUNE_COLS; c++) {
        if (*col[c] == NULL)
            continue;
        const double *restrict sc = *col[c];
        double *restrict dc = w->cbuf + (size_t)c * w->batch;
        const int g = gkey_col(c);
        if (g >= 0 && gid != NULL && lanes->gkeys != NULL) {
            const double *restrict gk = lanes->gkeys + g;
            for (size_t i = 0; i < k; i++)
                dc[i] = gk[(size_t)5 * gid[at[i]]];
        } else if ((c == 2 || c == 6) && gid != NULL && lanes->gkeys != NULL) {
            /* dp and m from the key (key_dp_m) */
            for (size_t i = 0; i < k; i++)
                dc[i] = key_dp_m(w, lanes->gkeys + (size_t)5 * gid[at[i]], c);
        } else {
            for (size_t i = 0; i < k; i++)
                dc[i] = sc[at[i]];
        }
#ifndef NDEBUG
        for (size_t i = 0; i < k; i++)
            if (dc[i] != sc[at[i]])
                g_error("search: column %d is %.17g, its lane's %.17g", c, dc[i], sc[at[i]]);
#endif
        *col[c] = dc;
    }
    uint32_t *restrict cg = w->cgid, *restrict cs = w->cskid;
    for (size_t i = 0; i < k; i++) {
        cg[i] = gid != NULL ? gid[at[i]] : 0;
        cs[i] = sid[at[i]];
    }
    w->cl.gkey_id = gid != NULL ? w->cgid : NULL;
    w->cl.skey_id = w->cskid;
    w->cl.n = k;
}

#ifndef NDEBUG
/* A debug build checks what prune_batch relies on: every evaluated lane's static bytes are
 * those of its key's first lane (NaN for NaN: such a key is never left out). */
static void prune_check(const Walker *w, const PrismLanes *lanes)
{
    for (size_t i = 0; i < lanes->n; i++)
        if (w->memo[lanes->skey_id[i]] != w->stat[i] &&
            !(isnan(w->memo[lanes->skey_id[i]]) && isnan(w->stat[i])))
            g_error("search: static bytes %.17g and %.17g under one static key",
                    w->memo[lanes->skey_id[i]], w->stat[i]);
}
#endif

/* Whether a segment of key @p b has the probes' floors of a segment of key @p a (the
 * same job and lane set): the same structure but for the optimizer-offload bit. The
 * kernel reads that bit (PrismKSegment.off_opt, kernels-impl.h) in the optimizer state
 * (0 on the device: static bytes, learnt per segment, never kept), the optimizer step,
 * its host-link transfers and the host bytes (no floor holds them); with the same
 * activation-offload bit it adds the same exposed copies (0 without: tt + 0, the same
 * value) to a stage's time. So the stage times per micro-batch and per unit (the floor of
 * the step and the bubble's inputs), every candidate's activations and every
 * composition's buffers are the twin's bit for bit, and so are the probes' floors. Debug
 * builds probe the kept floors again (check_kept_floors). */
static gboolean twin_floors(const PrismSegmentKey *a, const PrismSegmentKey *b)
{
    return a->devices == b->devices && a->pp == b->pp && a->vpp == b->vpp &&
           a->schedule == b->schedule && a->recompute == b->recompute &&
           a->rc_layers == b->rc_layers &&
           (a->offload & PRISM_OFFLOAD_ACTIVATIONS) == (b->offload & PRISM_OFFLOAD_ACTIVATIONS);
}

#ifndef NDEBUG
static void check_kept_floors(Walker *w, const PrismLanes *lanes);
#endif

/* Entering a segment: its floors of the step time and the peak per GEMM key (w->tfloor,
 * w->afloor, NaN until a lane of the key needs them: a MoE table holds tens of thousands
 * of keys; those of the segment walked before when it is a twin, twin_floors) and the
 * derived columns' numerators. */
static void bound_segment(Walker *w, const PrismSegmentKey *key, const PrismLanes *lanes)
{
    const size_t nf = (size_t)4 * lanes->n_gkeys, np = w->n_parts;
    const gboolean keep = w->fvalid && w->fjob == w->job && w->fserial == lanes->gkey_serial &&
                          w->fparts == w->n_parts && lanes->gkey_serial != 0 &&
                          twin_floors(&w->fkey, key);
    w->fvalid = TRUE;
    w->fjob = w->job;
    w->fkey = *key;
    w->fserial = lanes->gkey_serial;
    w->fparts = w->n_parts;
    if (w->tfloor_cap < nf) {
        g_free(w->tfloor);
        g_free(w->aslot);
        w->tfloor = g_new(double, nf);
        w->aslot = g_new(uint32_t, nf);
        w->tfloor_cap = nf;
    }
    if (w->afloor_cap < nf * 2 * np) {
        g_free(w->afloor);
        w->afloor = g_new(double, nf * 2 * np);
        w->afloor_cap = nf * 2 * np;
    }
    if (!keep) {
        w->afloor_n = 0;
        for (size_t f = 0; f < nf; f++)
            w->tfloor[f] = NAN;
    }
    if (w->pbuf == NULL) {
        w->pbuf = g_new(double, (size_t)PRUNE_COLS * w->batch);
        w->pgid = g_new(uint32_t, w->batch);
        w->pfi = g_new(uint32_t, w->batch);
        w->pat = g_new(uint32_t, w->batch);
        w->lfi = g_new(uint32_t, w->batch);
        w->ptime = g_new(double, w->batch);
        w->poutbuf = g_new(double, (size_t)PRISM_COL_COUNT * w->batch);
    }
    const PrismCostModel *cm = w->cur.cm;
    w->mfu_num = prism_cost_model_flops_per_step(cm) /
                 ((double)key->devices * prism_cost_model_peak_flops(cm));
    w->hfu_num = prism_cost_segment_flops_time(w->compiled);
    w->tokens = prism_cost_model_tokens_per_step(cm);
#ifndef NDEBUG
    if (keep)
        check_kept_floors(w, lanes);
#endif
}

/* Lane @p i's place in the floors: its GEMM key, sp and tp_overlap (the lanes that differ
 * only in zero, the DP overlaps and folding share one probe: cost_floor.c). */
static size_t floor_index(const PrismLanes *lanes, size_t i)
{
    const size_t tov = lanes->tp_ov == NULL || lanes->tp_ov[i] > 0.5 ? 2 : 0;
    return (size_t)4 * lanes->gkey_id[i] + (lanes->sp[i] > 0.5 ? 1 : 0) + tov;
}

/* Run the probes of floor indices w->pfi[0 .. np) (at most a batch) of the segment
 * whose lanes are @p lanes: their step floors into @p time, the peak's parts into @p parts
 * (2 n_parts a probe). A probe's columns come from its floor index alone: tp, cp, mbs, ep
 * and etp from the GEMM key table, dp and m from those (key_dp_m), sp and tp_overlap from
 * the index, zero 0, the DP overlaps on, folding 0. */
static void run_probes(Walker *w, const PrismLanes *lanes, size_t np, double *time, double *parts)
{
    /* the probes' columns, gathered column by column */
    double *pc[PRUNE_COLS];
    const double *src[PRUNE_COLS] = {
        lanes->tp,   lanes->cp,  lanes->dp,   lanes->ep,    lanes->sp,    lanes->mbs,     lanes->m,
        lanes->zero, lanes->etp, lanes->fold, lanes->tp_ov, lanes->dp_ov, lanes->param_ov};
    src[8] = src[8] != NULL ? src[8] : lanes->tp; /* etp NULL: etp = tp */
    for (int c = 0; c < PRUNE_COLS; c++) {
        pc[c] = w->pbuf + (size_t)c * w->batch;
        double *restrict dc = pc[c];
        const int gcol = gkey_col(c); /* tp, cp, mbs, ep, etp: from the key table */
        const uint32_t *restrict pf = w->pfi;
        if (c == 7 || c == 9 || c >= 11 || src[c] == NULL) {
            /* zero 0, the DP overlaps on; a NULL column its default (tp_overlap 1); folding
             * 0: the kernel does not read it (PrismKLanes has no such column, etp is in
             * the key) */
            const double v = c == 7 || c == 9 ? 0.0 : 1.0;
            for (size_t k = 0; k < np; k++)
                dc[k] = v;
        } else if (gcol >= 0) {
            const double *restrict gk = lanes->gkeys + gcol;
            for (size_t k = 0; k < np; k++)
                dc[k] = gk[(size_t)5 * (pf[k] / 4)];
        } else if (c == 4 || c == 10) {
            /* sp and tp_overlap from the floor index (floor_index: both 0 or 1) */
            const uint32_t bit = c == 4 ? 1 : 2;
            for (size_t k = 0; k < np; k++)
                dc[k] = (pf[k] & bit) != 0 ? 1.0 : 0.0;
        } else {
            /* dp and m (c 2 and 6) from the key (key_dp_m) */
            for (size_t k = 0; k < np; k++)
                dc[k] = key_dp_m(w, lanes->gkeys + (size_t)5 * (pf[k] / 4), c);
        }
    }
#ifndef NDEBUG
    for (int c = 0; c < PRUNE_COLS && w->pat != NULL; c++)
        for (size_t k = 0; c != 7 && c != 9 && c < 11 && src[c] != NULL && k < np; k++)
            if (w->pat[k] != UINT32_MAX && pc[c][k] != src[c][w->pat[k]])
                g_error("search: probe column %d is %.17g, its lane's %.17g", c, pc[c][k],
                        src[c][w->pat[k]]);
#endif
    for (size_t k = 0; k < np; k++)
        w->pgid[k] = w->pfi[k] / 4;
    PrismLanes pl = *lanes;
    const double **dst[PRUNE_COLS];
    lane_cols(&pl, dst);
    for (int c = 0; c < PRUNE_COLS; c++)
        *dst[c] = pc[c];
    pl.n = np;
    pl.gkey_id = w->pgid;
    pl.skey_id = NULL;
    pl.n_skeys = 0;
    PrismCostOut po;
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        po.col[c] = w->poutbuf + (size_t)c * w->batch;
    prism_evaluator_floors(w->ev, w->compiled, &pl, &po, time, parts);
}

/* Probe, in one evaluator run, the floors the lanes of a batch that the static bytes did
 * not rule out need and the segment has not computed yet (w->tfloor NaN: not known); note
 * every lane's floor index in w->lfi (UINT32_MAX: the static bytes decide the lane). */
static void probe_batch(Walker *w, const PrismLanes *lanes, double thr, double usable)
{
    size_t np = 0;
    for (size_t i = 0; i < lanes->n; i++) {
        const uint32_t sid = lanes->skey_id[i];
        if (w->learn[i] || (w->memo[sid] > thr && w->dmemo[sid] > usable)) {
            w->lfi[i] = UINT32_MAX;
            continue;
        }
        const size_t f = floor_index(lanes, i);
        w->lfi[i] = (uint32_t)f;
        if (!isnan(w->tfloor[f]))
            continue;
        w->tfloor[f] = -INFINITY; /* queued */
        w->pat[np] = (uint32_t)i;
        w->pfi[np] = (uint32_t)f;
        np++;
    }
    if (np == 0)
        return;
    /* the peak's parts go straight to the segment's next places in afloor (a floor index
     * is probed once a segment, so they fit) */
    run_probes(w, lanes, np, w->ptime, w->afloor + (size_t)w->afloor_n * 2 * w->n_parts);
    for (size_t k = 0; k < np; k++) {
        w->tfloor[w->pfi[k]] = w->ptime[k];
        w->aslot[w->pfi[k]] = w->afloor_n + (uint32_t)k;
    }
    w->afloor_n += (uint32_t)np;
}

#ifndef NDEBUG
/* A debug build probes the floors a segment kept from its twin (twin_floors) again, in
 * this segment, and requires the same bits. */
static void check_kept_floors(Walker *w, const PrismLanes *lanes)
{
    const size_t nf = (size_t)4 * lanes->n_gkeys, n2 = (size_t)2 * w->n_parts;
    double *parts = g_new(double, w->batch *n2);
    for (size_t f0 = 0; f0 < nf;) {
        size_t np = 0;
        for (; f0 < nf && np < w->batch; f0++)
            if (!isnan(w->tfloor[f0])) {
                w->pfi[np] = (uint32_t)f0;
                w->pat[np++] = UINT32_MAX; /* no lane of this batch */
            }
        if (np == 0)
            continue;
        run_probes(w, lanes, np, w->ptime, parts);
        for (size_t k = 0; k < np; k++) {
            const uint32_t f = w->pfi[k];
            const double *kept = w->afloor + (size_t)w->aslot[f] * n2;
            gboolean same = memcmp(&w->ptime[k], &w->tfloor[f], sizeof(double)) == 0;
            same = same && memcmp(parts + k * n2, kept, n2 * sizeof(double)) == 0;
            if (!same)
                g_error("search: floor %u kept from the offload twin is %.17g, probed here "
                        "%.17g (or its peak's parts differ)",
                        (unsigned)f, w->tfloor[f], w->ptime[k]);
        }
    }
    g_free(parts);
}
#endif

/* A floor of objective @p o's key (signed like the key: a maximised column negated) for
 * lane @p i of a batch whose step time is >= @p t and peak >= @p mem; -inf where no floor
 * is known. The derived columns are float32 at most (cost.h): 1e-6 above their ceiling. */
static double key_floor(const Walker *w, const PrismObjective *o, const KeySource *ks, size_t i,
                        double t, double mem)
{
    if (o->kind == PRISM_COLUMN_DIM)
        return key_value(ks, i);
    const double up = 1.0 + 1e-6;
    if (!o->maximize)
        return o->id == PRISM_COL_TIME_STEP ? t : o->id == PRISM_COL_MEM_PEAK ? mem : -INFINITY;
    if (!(t > 0.0))
        return -INFINITY;
    switch ((PrismCostCol)o->id) {
    case PRISM_COL_MFU:
        return -(w->mfu_num / t) * up;
    case PRISM_COL_HFU:
        return -(w->hfu_num / t) * up;
    case PRISM_COL_TOKENS_PER_S:
        return -(w->tokens / t) * up;
    default:
        return -INFINITY;
    }
}

/* Whether a column has a floor in key_floor (a dim always has its value). */
static gboolean key_has_floor(const PrismObjective *o)
{
    if (o->kind == PRISM_COLUMN_DIM)
        return TRUE;
    if (!o->maximize)
        return o->id == PRISM_COL_TIME_STEP || o->id == PRISM_COL_MEM_PEAK;
    return o->id == PRISM_COL_MFU || o->id == PRISM_COL_HFU || o->id == PRISM_COL_TOKENS_PER_S;
}

/* What proved_out reads of the job's lists, taken once a batch (they change only when a
 * batch is collected, never while its verdicts are taken). */
typedef struct {
    int closest;     /* 0: no gate (a feasible row, or no closest list); 1: the list is not
                      * full (nothing is proved out); 2: the peak must exceed cl_last */
    double cl_last;  /* the closest list's last peak */
    gboolean shut;   /* no top list: it shuts every row out */
    gboolean full;   /* the top list is full, */
    double top_last; /* its last key: a row whose floor exceeds it cannot enter */
} ListGate;

static void list_gate(const Walker *w, ListGate *g)
{
    const size_t j = w->job;
    const PrismTopK *cl = w->bundle->closest[j], *top = w->bundle->top[j];
    const size_t kc = prism_topk_capacity(cl), kt = prism_topk_capacity(top);
    g->closest = 0;
    g->cl_last = NAN;
    if (w->bundle->feasible[j] == 0 && kc > 0) {
        g->closest = prism_topk_size(cl) < kc ? 1 : 2;
        g->cl_last = g->closest == 2 ? prism_topk_key(cl, kc - 1) : NAN;
    }
    g->shut = kt == 0;
    g->full = kt > 0 && prism_topk_size(top) == kt;
    g->top_last = g->full ? prism_topk_key(top, kt - 1) : NAN;
}

/* Lane @p i of a batch, whose peak is >= @p mem and device-level figure >= @p dmem, enters
 * no list of the walker's job: the closest list (while the job has no feasible row: the
 * list is read only then, by the diagnosis) is full and its last peak below @p mem, and
 * the row is infeasible (@p dmem above the usable memory) or both the top list (full, its
 * last key below the rank-by floor) and the front (a point precedes the floors, the step
 * time's @p t) shut it out. */
static gboolean proved_out(const Walker *w, const ListGate *g, const KeySource *ks,
                           const KeySource *rk, size_t i, double mem, double dmem, double t)
{
    if (isnan(mem) || isnan(dmem))
        return FALSE;
    if (g->closest == 1 || (g->closest == 2 && !(mem > g->cl_last)))
        return FALSE;
    if (dmem > w->usable)
        return TRUE;
    if (isnan(t))
        return FALSE;
    const double rf = key_floor(w, &w->rank_by, rk, i, t, mem);
    if (!g->shut && !(g->full && rf > g->top_last))
        return FALSE;
    const size_t j = w->job;
    double lb[PRISM_FRONT_MAX_OBJECTIVES];
    for (size_t o = 0; o < w->n_obj; o++)
        lb[o] = key_floor(w, &w->obj[o], &ks[o], i, t, mem);
    return w->n_obj == 0 || prism_front_covers(w->bundle->front[j], lb);
}

/* Evaluate and collect one batch with pruning (search/README.md, "Pruning"). First the
 * first lane of each static key the segment's memo does not know yet is evaluated and
 * collected, which teaches the memo its bytes; then, of the other lanes, those whose key's
 * bytes exceed the threshold are left out (counted as evaluated and pruned) and the rest
 * are evaluated and collected. No lane is evaluated twice. */
static void prune_batch(Walker *w, const PrismSegmentKey *key, const PrismLanes *lanes,
                        uint64_t first)
{
    const size_t n = lanes->n;
    if (w->memo_n == 0) {
        if (w->memo_cap < lanes->n_skeys) {
            g_free(w->memo);
            g_free(w->dmemo);
            g_free(w->nmemo);
            g_free(w->cslot);
            w->memo = g_new(double, lanes->n_skeys);
            w->dmemo = g_new(double, lanes->n_skeys);
            w->nmemo = g_new(double, lanes->n_skeys);
            w->cslot = g_new(uint32_t, lanes->n_skeys);
            w->memo_cap = lanes->n_skeys;
        }
        for (uint32_t k = 0; k < lanes->n_skeys; k++)
            w->memo[k] = NAN;
        w->memo_n = lanes->n_skeys;
        w->per_pp = (double)(key->devices / key->pp);
        w->gbs = (double)prism_cost_model_training(w->cur.cm)->gbs;
        w->seg_bound = w->bound && lanes->gkey_id != NULL && lanes->gkeys != NULL;
        if (w->seg_bound) {
            w->n_parts = prism_cost_segment_n_parts(w->compiled);
            g_free(w->cmemo); /* once a segment: a key's bytes per composition */
            w->cmemo = g_new(double, (size_t)lanes->n_skeys * w->n_parts);
            w->cmemo_n = 0;
            bound_segment(w, key, lanes);
        }
    }
    size_t na = 0;
    for (size_t i = 0; i < n; i++) {
        double *m = &w->memo[lanes->skey_id[i]];
        w->learn[i] = isnan(*m) ? 1 : 0;
        if (w->learn[i]) {
            *m = -INFINITY; /* learnt by this lane: not by the next of its key */
            w->at[na++] = (uint32_t)i;
        }
    }
    if (na > 0) {
        compact(w, lanes, w->at, na);
        /* bound: the compositions' bytes go straight to the segment's next places in cmemo
         * (a static key is learnt once a segment, so they fit) */
        if (w->seg_bound)
            prism_evaluator_run_parts(w->ev, w->compiled, &w->cl, &w->out, w->stat,
                                      w->cmemo + (size_t)w->cmemo_n * w->n_parts);
        else
            prism_evaluator_run_static(w->ev, w->compiled, &w->cl, &w->out, w->stat);
        for (size_t k = 0; k < na; k++) {
            const uint32_t sid = w->cskid[k];
            w->memo[sid] = w->stat[k];
            w->dmemo[sid] = device_floor(w, &w->cl, k, key->pp, w->stat[k]);
            if (w->seg_bound) {
                w->nmemo[sid] = device_floor(w, &w->cl, k, key->pp, 0.0);
                w->cslot[sid] = w->cmemo_n + (uint32_t)k;
            }
        }
        if (w->seg_bound)
            w->cmemo_n += (uint32_t)na;
        collect(w, key, &w->cl, first, w->at);
    }
    const double thr = closest_threshold(w), usable = w->usable;
    size_t kept = 0, proved = 0;
    if (w->seg_bound) {
        KeySource ks[PRISM_FRONT_MAX_OBJECTIVES], rk;
        for (size_t o = 0; o < w->n_obj; o++)
            key_source(&w->obj[o], key, lanes, &w->out, &ks[o]);
        key_source(&w->rank_by, key, lanes, &w->out, &rk);
        probe_batch(w, lanes, thr, usable);
        ListGate g;
        list_gate(w, &g);
        const size_t np = w->n_parts;
        /* lanes in a row with the same floors and static key have the same verdict
         * unless a key is a dim */
        size_t last_f = SIZE_MAX;
        uint32_t last_s = UINT32_MAX;
        gboolean out = FALSE;
        for (size_t i = 0; i < n; i++) {
            const size_t f = w->lfi[i];
            if (f == UINT32_MAX) /* taught the static bytes, or they decide it */
                continue;
            const uint32_t sid = lanes->skey_id[i];
            const double mem = w->memo[sid], dmem = w->dmemo[sid];
            if (w->bound_dims || f != last_f || sid != last_s) {
                /* the peak >= the static bytes and >= its floor from the parts */
                const double a = prism_floor_peak(np, w->cmemo + (size_t)w->cslot[sid] * np,
                                                  w->afloor + (size_t)w->aslot[f] * 2 * np);
                const double t = w->tfloor[f];
                /* a's device figure as device_floor forms it: the floor's persistent
                 * part is unknown and at most a, so it takes no allocator reserve (the
                 * reserve applies to allocated - persistent >= 0), a + (a - a) x reserve =
                 * a exactly, plus the context, pages and NCCL buffers of allocated 0 */
                const double da = a + w->nmemo[sid];
#ifndef NDEBUG
                if (a > mem && da != device_floor(w, lanes, i, key->pp, a))
                    g_error("search: device figure %.17g, not %.17g", da,
                            device_floor(w, lanes, i, key->pp, a));
#endif
                out = a > mem ? proved_out(w, &g, ks, &rk, i, a, da, t)
                              : proved_out(w, &g, ks, &rk, i, mem, dmem, t);
                last_f = f;
                last_s = sid;
            }
            if (out)
                proved++;
            else
                w->at[kept++] = (uint32_t)i;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            const uint32_t sid = lanes->skey_id[i];
            w->at[kept] = (uint32_t)i;
            kept += !w->learn[i] && !(w->memo[sid] > thr && w->dmemo[sid] > usable);
        }
    }
    size_t pruned = n - na - kept - proved;
    /* copying a kept lane costs about a fifteenth of evaluating one (benchmarks/README.md):
     * a batch that would leave out less than 1 in 16 is evaluated whole */
    const PrismLanes *run = &w->cl;
    const uint32_t *at = w->at;
    if (na == 0 && 16 * (pruned + proved) < n) {
        run = lanes;
        at = NULL;
        pruned = 0;
        proved = 0;
    } else if (kept > 0) {
        compact(w, lanes, w->at, kept);
    }
    w->bundle->evaluated += pruned;
    w->bundle->pruned += pruned;
    w->bundle->proved += proved;
    if (kept == 0)
        return;
#ifndef NDEBUG
    prism_evaluator_run_static(w->ev, w->compiled, run, &w->out, w->stat);
    prune_check(w, run);
    /* every probed floor is below its lanes' figures (a lane not probed: NaN or queued) */
    for (size_t i = 0; w->seg_bound && i < run->n; i++) {
        const size_t f = floor_index(run, i);
        const double t = w->tfloor[f];
        if (isnan(t) || t == -INFINITY)
            continue;
        const double a =
            prism_floor_peak(w->n_parts, w->cmemo + (size_t)w->cslot[run->skey_id[i]] * w->n_parts,
                             w->afloor + (size_t)w->aslot[f] * 2 * w->n_parts);
        if (!(t <= w->out.col[PRISM_COL_TIME_STEP][i] && a <= w->out.col[PRISM_COL_MEM_PEAK][i]))
            g_error("search: step time %.17g or peak %.17g below its floor %.17g, %.17g",
                    w->out.col[PRISM_COL_TIME_STEP][i], w->out.col[PRISM_COL_MEM_PEAK][i], t, a);
    }
#else
    prism_evaluator_run(w->ev, w->compiled, run, &w->out);
#endif
    collect(w, key, run, first, at);
}

/*
 * Evaluate global rows [from, to) in batches. Returns FALSE with @p error on a sink or
 * segment error, and sets *stopped when the stop hook asked to stop.
 */
static gboolean walk(Walker *w, uint64_t from, uint64_t to, gboolean *stopped, GError **error)
{
    uint64_t pos = from;
    while (pos < to) {
        size_t j = 0;
        uint64_t local = 0;
        if (!prism_search_jobs_locate(w->jobs, pos, &j, &local))
            g_assert_not_reached();
        if (!enter_job(w, j, error))
            return FALSE;
        const PrismSpace *space = w->cur.space;
        size_t nseg = 0;
        const PrismSpaceSegment *segs = prism_space_segments(space, &nseg);
        size_t si = prism_space_find_segment(space, local);
        if (!w->have_seg || w->seg != si) {
            g_clear_pointer(&w->compiled, prism_cost_segment_free);
            w->memo_n = 0;
            w->compiled = prism_cost_segment_new(w->cur.cm, &segs[si].key, FALSE, error);
            if (w->compiled == NULL ||
                (w->corners != NULL &&
                 !prism_search_corners_segment(w->corners, &segs[si].key, error)))
                return FALSE;
            w->seg = si;
            w->have_seg = TRUE;
        }
        const PrismSpaceSegment *seg = &segs[si];
        uint64_t seg_end = w->job_first + seg->first + seg->count;
        uint64_t stop_at = seg_end < to ? seg_end : to;
        uint64_t n = stop_at - pos;
        if (n > w->batch)
            n = w->batch;
        PrismLanes lanes;
        const double *const *iv = NULL;
        prism_space_lanes(space, si, local - seg->first, (size_t)n, &lanes);
        if (w->prune && lanes.skey_id != NULL) {
            prune_batch(w, &seg->key, &lanes, pos);
        } else {
            prism_evaluator_run(w->ev, w->compiled, &lanes, &w->out);
            if (w->corners != NULL) {
                iv = prism_search_corners_run(w->corners, &seg->key, &lanes, &w->out);
                w->risk = w->opt->mem_safety ? iv[PRISM_IV_MEM_RISK] : NULL;
            }
            collect(w, &seg->key, &lanes, pos, NULL);
        }
        if (w->sink != NULL && w->sink->rows != NULL) { /* never with pruning */
            PrismRowBatch b = {.first_index = pos,
                               .n = (size_t)n,
                               .job = (uint32_t)j,
                               .job_first_index = local,
                               .key = &seg->key,
                               .lanes = &lanes,
                               .cols = &w->out,
                               .flops_time = prism_cost_segment_flops_time(w->compiled)};
            for (int c = 0; c < PRISM_IV_COUNT && iv != NULL; c++)
                b.iv[c] = iv[c];
            if (!w->sink->rows(w->sink->user, &b, error))
                return FALSE;
        }
        pos += n;
        if (w->opt->stop != NULL && w->opt->stop(w->opt->stop_user)) {
            *stopped = TRUE;
            return TRUE;
        }
    }
    return TRUE;
}

/* A group's rows, handed out in chunks to the threads that walk them. */
typedef struct {
    _Atomic uint64_t next; /* first row not yet handed out */
    atomic_int abort;      /* an error or a stop: hand out no more */
    uint64_t end, chunk;
} Deal;

/* One thread's share of a group. */
typedef struct {
    Walker *w;
    Deal *deal;
    gboolean ok, stopped;
    uint64_t error_row; /* first row of the chunk that failed */
    GError *error;
} Part;

static gpointer part_walk(gpointer data)
{
    Part *p = data;
    Deal *d = p->deal;
    for (;;) {
        const uint64_t a = atomic_fetch_add(&d->next, d->chunk);
        if (a >= d->end || atomic_load(&d->abort))
            return NULL;
        const uint64_t b = d->end - a > d->chunk ? a + d->chunk : d->end;
        gboolean stopped = FALSE;
        if (!walk(p->w, a, b, &stopped, &p->error)) {
            p->ok = FALSE;
            p->error_row = a;
        }
        p->stopped = p->stopped || stopped;
        if (!p->ok || stopped) {
            atomic_store(&d->abort, 1);
            return NULL;
        }
    }
}

/*
 * walk() over @p nt Walkers (w[0] runs on this thread): rows [from, to) group by group
 * (segments of one job with the same device count and pp, hence the same lane tables,
 * built here first so the threads only read them). The threads take chunks of 8 batches
 * of a group in turn (rows cost unevenly: deeper pipelines, more stages) and are joined
 * before the next group. Of several errors, the one at the lowest row is reported.
 */
static gboolean walk_threads(Walker *w, int nt, const void **space_held, uint64_t from, uint64_t to,
                             gboolean *stopped, GError **error)
{
    uint64_t pos = from;
    while (pos < to) {
        size_t j = 0;
        uint64_t local = 0;
        if (!prism_search_jobs_locate(w[0].jobs, pos, &j, &local))
            g_assert_not_reached();
        if (!enter_job(&w[0], j, error))
            return FALSE;
        const PrismSpace *space = w[0].cur.space;
        if (*space_held != NULL && *space_held != (const void *)space)
            prism_space_release_lanes(*space_held); /* every thread has joined */
        *space_held = space;
        size_t nseg = 0;
        const PrismSpaceSegment *segs = prism_space_segments(space, &nseg);
        size_t si = prism_space_find_segment(space, local);
        const uint64_t jf = w[0].job_first;
        uint64_t end = pos;
        for (size_t k = si; k < nseg && end < to && segs[k].key.devices == segs[si].key.devices &&
                            segs[k].key.pp == segs[si].key.pp;
             k++) {
            PrismLanes none;
            prism_space_lanes(space, k, 0, 0, &none); /* builds the table if it is not */
            end = jf + segs[k].first + segs[k].count;
        }
        if (end > to)
            end = to;
        Deal deal = {.end = end, .chunk = 8 * (uint64_t)w[0].batch};
        atomic_init(&deal.next, pos);
        atomic_init(&deal.abort, 0);
        /* a thread for every chunk at most */
        const uint64_t chunks = (end - pos + deal.chunk - 1) / deal.chunk;
        const int used = chunks < (uint64_t)nt ? (int)chunks : nt;
        Part part[PRISM_SEARCH_THREADS_MAX];
        GThread *th[PRISM_SEARCH_THREADS_MAX];
        for (int p = 0; p < used; p++) {
            /* a thread that cannot be created leaves its chunks to the others */
            part[p] = (Part){.w = &w[p], .deal = &deal, .ok = TRUE};
            th[p] = p == 0 ? NULL : g_thread_try_new("prism-search", part_walk, &part[p], NULL);
        }
        (void)part_walk(&part[0]);
        int failed = -1;
        for (int p = 0; p < used; p++) {
            if (th[p] != NULL)
                g_thread_join(th[p]);
            *stopped = *stopped || part[p].stopped;
            if (!part[p].ok && (failed < 0 || part[p].error_row < part[failed].error_row))
                failed = p;
        }
        for (int p = 0; p < used; p++) {
            if (p == failed)
                g_propagate_error(error, part[p].error);
            else
                g_clear_error(&part[p].error);
        }
        if (failed >= 0 || *stopped)
            return failed < 0;
        pos = end;
    }
    return TRUE;
}

/* Rank 0's progress reports (PrismSearchOptions.progress_fn; the line itself is the
 * caller's). */
typedef struct {
    gboolean enabled;
    double start;
    const PrismSearchOptions *opt;
    uint64_t total;
} Progress;

static void progress_update(const Progress *p, PrismProgressPhase phase, double frac)
{
    if (!p->enabled || p->opt->progress_fn == NULL)
        return;
    p->opt->progress_fn(p->opt->progress_user, phase, p->opt->label ? p->opt->label : "search",
                        frac * (double)p->total, p->total, prism_now() - p->start);
}

/* Resolve defaults into the result's objective list. */
static gboolean resolve_options(const PrismSearchJobs *jobs, const PrismSearchOptions *opt,
                                PrismSearchResult *r, GError **error)
{
    if (opt->n_objectives > PRISM_FRONT_MAX_OBJECTIVES || (opt->batch != 0 && opt->batch > 4096)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "search options: at most %d objectives and batches of 1..4096 lanes",
                    PRISM_FRONT_MAX_OBJECTIVES);
        return FALSE;
    }
    if (opt->n_objectives > 0) {
        memcpy(r->obj, opt->objectives, opt->n_objectives * sizeof(PrismObjective));
        r->n_obj = opt->n_objectives;
    } else {
        r->obj[0] = (PrismObjective){PRISM_COLUMN_COST, PRISM_COL_TIME_STEP, FALSE};
        r->obj[1] = (PrismObjective){PRISM_COLUMN_COST, PRISM_COL_MEM_PEAK, FALSE};
        r->n_obj = 2;
        if (jobs->multi_devices) {
            r->obj[2] = (PrismObjective){PRISM_COLUMN_DIM, PRISM_DIM_DEVICES, FALSE};
            r->n_obj = 3;
        }
    }
    r->rank_by = opt->rank_by_set ? opt->rank_by
                                  : (PrismObjective){PRISM_COLUMN_COST, PRISM_COL_TIME_STEP, FALSE};
    return TRUE;
}

/* Rounds: the same count on every rank, from the largest block. */
static uint64_t round_count(const uint64_t *cuts, int size, uint64_t round_rows)
{
    uint64_t most = 0;
    for (int r = 0; r < size; r++)
        if (cuts[r + 1] - cuts[r] > most)
            most = cuts[r + 1] - cuts[r];
    uint64_t rounds = (most + round_rows - 1) / round_rows;
    return rounds ? rounds : 1;
}

PrismSearchResult *prism_search_run(PrismComm *comm, const PrismSearchJob *jobs, size_t n_jobs,
                                    const PrismSearchOptions *opt, const PrismRowSink *sink,
                                    GError **error)
{
    g_return_val_if_fail(comm != NULL && jobs != NULL && n_jobs > 0 && opt != NULL, NULL);
    PrismArrayJobs a;
    prism_array_jobs_init_internal(&a, jobs, n_jobs);
    PrismSearchResult *r = prism_search_run_jobs(comm, &a.src, opt, sink, error);
    prism_array_jobs_clear_internal(&a);
    return r;
}

/* prism_search_run_jobs, phase 2: one walker per thread, copies of @p w with their own
 * bundle (@p n_obj objectives, at least 1) and buffers of w->batch rows. */
static Walker *walkers_new(const Walker *wp, int nt, size_t n_jobs, size_t n_obj, size_t top_k,
                           size_t closest_k)
{
    const Walker w = *wp;
    Walker *ws = g_new0(Walker, (size_t)nt);
    for (int t = 0; t < nt; t++) {
        ws[t] = w;
        ws[t].keep_lanes = nt > 1;
        ws[t].bundle = bundle_new(n_jobs, n_obj, top_k, closest_k);
        for (int c = 0; c < PRISM_COL_COUNT; c++)
            ws[t].out.col[c] = prism_aligned_new(w.batch, sizeof(double));
        ws[t].keys = g_new(double, w.batch *PRISM_FRONT_MAX_OBJECTIVES);
        ws[t].keyidx = g_new(uint64_t, w.batch);
        if (w.prune) {
            ws[t].stat = prism_aligned_new(w.batch, sizeof(double));
            ws[t].cbuf = prism_aligned_new(PRUNE_COLS * w.batch, sizeof(double));
            ws[t].cgid = g_new(uint32_t, w.batch);
            ws[t].cskid = g_new(uint32_t, w.batch);
            ws[t].at = g_new(uint32_t, w.batch);
            ws[t].learn = g_new(uint8_t, w.batch);
        }
        if (w.sink != NULL && w.sink->rows != NULL && w.opt->intervals)
            ws[t].corners = prism_search_corners_new(w.batch);
    }
    return ws;
}

/* Phase 3: this rank's block [@p lo, @p hi) in @p rounds rounds, one allreduce of
 * {error, stop} per round; *flag gathers FLAG_ERROR and FLAG_STOP. */
static void run_rounds(PrismComm *comm, Walker *ws, int nt, uint64_t lo, uint64_t hi,
                       uint64_t rounds, const Progress *prog, int *flag, GError **local)
{
    const void *space_held = NULL;
    uint64_t block = hi - lo;
    for (uint64_t i = 0; i < rounds; i++) {
        if (*flag == 0) {
            uint64_t a = lo + block * i / rounds, b = lo + block * (i + 1) / rounds;
            gboolean stopped = FALSE;
            if (nt > 1 ? !walk_threads(ws, nt, &space_held, a, b, &stopped, local)
                       : !walk(&ws[0], a, b, &stopped, local))
                *flag |= FLAG_ERROR;
            if (stopped)
                *flag |= FLAG_STOP;
        }
        int any = *flag;
        /* a rank that ends its round first sleeps while it waits (comm.h) */
        if (!prism_comm_or_idle(comm, *flag, &any, *local == NULL ? local : NULL)) {
            *flag |= FLAG_ERROR;
            break;
        }
        if (any != 0) {
            *flag |= any;
            break;
        }
        if (i + 1 < rounds)
            progress_update(prog, PRISM_PROGRESS_ROUND, (double)(i + 1) / (double)rounds);
    }
}

/* Phase 4: the threads' bundles merged into one (ws[0]'s), the walkers freed. */
static Bundle *merge_threads(Walker *ws, int nt, size_t n_jobs)
{
    /* the threads' results, merged in thread order (any order gives the same result) */
    Bundle *merged = ws[0].bundle;
    for (int t = 0; t < nt; t++) {
        if (t > 0) {
            for (size_t j = 0; j < n_jobs; j++) {
                prism_front_finish(merged->front[j]);
                prism_front_finish(ws[t].bundle->front[j]);
            }
            Bundle *m = bundle_merge(merged, ws[t].bundle);
            bundle_free(merged);
            bundle_free(ws[t].bundle);
            merged = m;
        }
        walker_clear(&ws[t]);
    }
    g_free(ws);
    return merged;
}

PrismSearchResult *prism_search_run_jobs(PrismComm *comm, const PrismSearchJobs *jobs,
                                         const PrismSearchOptions *opt, const PrismRowSink *sink,
                                         GError **error)
{
    g_return_val_if_fail(comm != NULL && jobs != NULL && jobs->n > 0 && opt != NULL, NULL);
    size_t n_jobs = jobs->n;
    PrismSearchResult *r = g_new0(PrismSearchResult, 1);
    GError *local = NULL;
    int flag = 0;
    r->ranks = comm->size;
    r->total = jobs->first[n_jobs];
    Walker w = {.comm = comm,
                .jobs = jobs,
                .opt = opt,
                .sink = sink,
                .batch = opt->batch ? opt->batch : 1024};
    if (!resolve_options(jobs, opt, r, &local))
        flag |= FLAG_ERROR;
    w.obj = r->obj;
    w.n_obj = r->n_obj;
    w.rank_by = r->rank_by;
    /* without a row sink only the feasibility, the peak (closest list) and the keys are
     * read: the evaluators skip the report columns when every key is one they write */
    w.lean = sink == NULL || sink->rows == NULL;
    for (size_t o = 0; o <= r->n_obj; o++) {
        const PrismObjective *ob = o < r->n_obj ? &r->obj[o] : &r->rank_by;
        if (ob->kind == PRISM_COLUMN_COST && !prism_cost_col_lean((PrismCostCol)ob->id))
            w.lean = FALSE;
    }
    w.kt = opt->kt;
    if (w.kt == NULL && flag == 0) {
        w.kt = prism_kernel_table_get(NULL, &local);
        if (w.kt == NULL)
            flag |= FLAG_ERROR;
    }
    r->isa = w.kt ? prism_kernel_table_name(w.kt) : "none";
    size_t top_k = opt->top_k ? opt->top_k : 10;
    size_t closest_k = opt->closest_k ? opt->closest_k : top_k;
    /* threads: array jobs (their get() only reads) and no row sink (rows in index order) */
    int nt = 1;
    if (sink == NULL && jobs->get == array_get) {
        const int cpus = (int)g_get_num_processors();
        nt = opt->threads > 0 ? opt->threads : comm->size == 1 ? cpus : 1;
        nt = nt < 1 ? 1 : nt > PRISM_SEARCH_THREADS_MAX ? PRISM_SEARCH_THREADS_MAX : nt;
    }
    r->threads = nt;
    /* pruning: only without a row sink (a sink sees every row) */
    w.prune = (sink == NULL || sink->rows == NULL) && !opt->exhaustive;
    w.bound = w.prune && opt->bound && key_has_floor(&r->rank_by);
    for (size_t o = 0; o < r->n_obj; o++) {
        w.bound = w.bound && key_has_floor(&r->obj[o]);
        w.bound_dims = w.bound_dims || r->obj[o].kind == PRISM_COLUMN_DIM;
    }
    w.bound_dims = w.bound_dims || r->rank_by.kind == PRISM_COLUMN_DIM;
    Walker *ws = walkers_new(&w, nt, n_jobs, r->n_obj ? r->n_obj : 1, top_k, closest_k);

    g_autofree uint64_t *cuts = g_new0(uint64_t, (size_t)comm->size + 1);
    if (!partition_cuts(jobs, comm->size, cuts, local ? NULL : &local)) {
        flag |= FLAG_ERROR;
        memset(cuts, 0, ((size_t)comm->size + 1) * sizeof(uint64_t));
    }
    uint64_t lo = cuts[comm->rank], hi = cuts[comm->rank + 1];
    gboolean begun = FALSE;
    if (sink != NULL && sink->begin != NULL) {
        begun = TRUE;
        if (!sink->begin(sink->user, r->total, lo, hi, local ? NULL : &local))
            flag |= FLAG_ERROR;
    }
    Progress prog = {.enabled = opt->progress && comm->rank == 0, .opt = opt, .total = r->total};
    (void)prism_comm_barrier(comm, NULL);
    double t0 = prism_now();
    prog.start = t0;
    progress_update(&prog, PRISM_PROGRESS_START, 0.0);
    uint64_t rounds = round_count(cuts, comm->size, opt->round_rows ? opt->round_rows : ROUND_ROWS);
    run_rounds(comm, ws, nt, lo, hi, rounds, &prog, &flag, &local);
    double mine = prism_now() - t0;
    if ((flag & FLAG_STOP) && local == NULL)
        g_set_error(&local, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED,
                    "interrupted: the search stopped on request (SIGINT/SIGTERM or a stop hook)");
    /* the threads' results, merged in thread order (any order gives the same result) */
    w.bundle = merge_threads(ws, nt, n_jobs);
    gboolean ok = prism_comm_agree_error(comm, &local);
    if (ok) {
        progress_update(&prog, PRISM_PROGRESS_END, 1.0);
        for (size_t j = 0; j < n_jobs; j++)
            prism_front_finish(w.bundle->front[j]);
        void *obj = w.bundle;
        ok = prism_reduce_tree_internal(comm, &bundle_ops, &obj, &local);
        w.bundle = obj;
    }
    if (ok)
        ok = prism_comm_allreduce_f64(comm, mine, MPI_MAX, &r->seconds, &local) &&
             prism_comm_allreduce_f64(comm, mine, MPI_MIN, &r->seconds_min, &local);
    if (ok) {
        r->b = *w.bundle;
        g_free(w.bundle);
        w.bundle = NULL;
        if (sink != NULL && sink->results != NULL)
            (void)sink->results(sink->user, r, &local); /* a failure is agreed below */
        ok = prism_comm_agree_error(comm, &local);
    }
    if (begun) {
        GError *end_error = NULL;
        gboolean end_ok = sink->end(sink->user, ok, ok ? &end_error : NULL);
        if (ok && !end_ok && local == NULL)
            local = end_error;
        else
            g_clear_error(&end_error);
        if (ok)
            ok = prism_comm_agree_error(comm, &local);
    }
    bundle_free(w.bundle);
    if (!ok) {
        g_propagate_error(error, local);
        if (r->b.front != NULL)
            bundle_clear(&r->b);
        g_free(r);
        return NULL;
    }
    return r;
}

void prism_search_result_free(PrismSearchResult *r)
{
    if (r == NULL)
        return;
    bundle_clear(&r->b);
    g_free(r);
}

uint64_t prism_search_result_total(const PrismSearchResult *r)
{
    return r->total;
}

uint64_t prism_search_result_evaluated(const PrismSearchResult *r)
{
    return r->b.evaluated;
}

uint64_t prism_search_result_pruned(const PrismSearchResult *r)
{
    return r->b.pruned;
}

uint64_t prism_search_result_proved(const PrismSearchResult *r)
{
    return r->b.proved;
}

uint64_t prism_search_result_feasible(const PrismSearchResult *r)
{
    uint64_t t = 0;
    for (size_t j = 0; j < r->b.n_jobs; j++)
        t += r->b.feasible[j];
    return t;
}

uint64_t prism_search_result_job_feasible(const PrismSearchResult *r, size_t job)
{
    g_return_val_if_fail(job < r->b.n_jobs, 0);
    return r->b.feasible[job];
}

double prism_search_result_seconds(const PrismSearchResult *r)
{
    return r->seconds;
}

double prism_search_result_seconds_min(const PrismSearchResult *r)
{
    return r->seconds_min;
}

const char *prism_search_result_isa(const PrismSearchResult *r)
{
    return r->isa;
}

int prism_search_result_threads(const PrismSearchResult *r)
{
    return r->threads;
}

int prism_search_result_ranks(const PrismSearchResult *r)
{
    return r->ranks;
}

const PrismObjective *prism_search_result_objectives(const PrismSearchResult *r, size_t *n)
{
    *n = r->n_obj;
    return r->obj;
}

const PrismObjective *prism_search_result_rank_by(const PrismSearchResult *r)
{
    return &r->rank_by;
}

const PrismFront *prism_search_result_front(const PrismSearchResult *r, size_t job)
{
    g_return_val_if_fail(job < r->b.n_jobs, NULL);
    return r->b.front[job];
}

const PrismTopK *prism_search_result_top(const PrismSearchResult *r, size_t job)
{
    g_return_val_if_fail(job < r->b.n_jobs, NULL);
    return r->b.top[job];
}

const PrismTopK *prism_search_result_closest(const PrismSearchResult *r, size_t job)
{
    g_return_val_if_fail(job < r->b.n_jobs, NULL);
    return r->b.closest[job];
}
