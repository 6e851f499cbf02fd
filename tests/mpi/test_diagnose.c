// SPDX-License-Identifier: MIT
/*
 * test_diagnose.c - the "nothing fits" diagnosis (diagnose.h) against a brute force, at
 * 1-4 ranks. GPT-3 1.3B, gbs 8, seq 512, small spaces (78 strategies on 2 devices with
 * --only schedule=1f1b,recompute=none,full; 1215 unrestricted), every strategy evaluated
 * one by one with prism_cost_eval_one() after prism_space_unrank() (no search):
 *  - the closest list is the rows sorted by peak memory (ties: lowest index); over =
 *    peak - usable; the dominant part is the largest memory column; statics = params +
 *    grads + optimizer of #1;
 *  - a budget halfway between the lowest peak on 2 and on 4 devices: the DEVICES what-if
 *    claims 2x (4 devices) fits; the brute force on 4 devices has exactly that many
 *    feasible rows and that best step time and strategy;
 *  - a budget below the lowest peak on 2, 4, 8 and 16 devices: the what-if claims even
 *    8x fits nothing; the brute force finds no feasible row on 4, 8 or 16 devices;
 *  - NO_FILTERS equals the brute force over the unrestricted space; MEM_BUDGET = peak of
 *    #1 + mem_margin, and the budget the CLI suggests (rounded up to 0.1 GiB) makes #1 fit;
 *    FILTER_DIM lists exactly the restricted savers (recompute; schedule is no saver);
 *  - two jobs in one search (a sweep): prism_diagnose_closest_job() picks the job of the
 *    lower peak, global indices map back to it; a job out of range is an input error;
 *  - every rank returns the same diagnosis (rank 0's digest broadcast and compared).
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/diagnose.h>
#include <prism/search.h>

#include "prism_test_util.h"

#define GIB 1073741824.0
#define ONLY "schedule=1f1b,recompute=none,full"

typedef struct {
    PrismModel *model;
    PrismCluster *cluster;
    PrismTraining training;
    PrismKnobs knobs;
    PrismSpaceFilter *filter;
} Inputs;

static gboolean inputs_init(Inputs *in)
{
    memset(in, 0, sizeof *in);
    GError *error = NULL;
    in->model = prism_model_zoo_get("gpt3-1.3b", &error);
    if (in->model)
        in->cluster = prism_cluster_resolve("A100-80GB", &error);
    prism_training_default(&in->training);
    in->training.gbs = 8;
    in->training.seq = 512;
    prism_knobs_default(&in->knobs);
    /* no allocator reserve, CUDA context or NCCL buffers: the device-level figure the
     * verdict is on equals the peak bit for bit (device = peak x 1 + 0), so the brute
     * force below reads the peaks (cost.h, PrismMemKinds; test_cost_formulas has them) */
    in->knobs.v[PRISM_KNOB_ALLOCATOR_RESERVE] = 0.0;
    in->knobs.v[PRISM_KNOB_CUDA_CONTEXT] = 0.0;
    in->knobs.v[PRISM_KNOB_NCCL_CHANNELS] = 0.0;
    in->filter = prism_space_filter_new();
    if (in->cluster)
        (void)prism_space_filter_only(in->filter, ONLY, &error);
    if (error)
        fprintf(stderr, "inputs: %s\n", error->message);
    gboolean ok = error == NULL;
    g_clear_error(&error);
    return ok;
}

static void inputs_clear(Inputs *in)
{
    prism_space_filter_free(in->filter);
    prism_cluster_free(in->cluster);
    prism_model_free(in->model);
}

/* The cost model with a memory budget of @p usable + mem_margin bytes (0: device memory). */
static PrismCostModel *cm_new(const Inputs *in, double usable)
{
    PrismTraining t = in->training;
    if (usable > 0)
        t.mem_budget_bytes = usable + in->knobs.v[PRISM_KNOB_MEM_MARGIN];
    return prism_cost_model_new(in->model, in->cluster, &t, &in->knobs, NULL);
}

static PrismSpace *space_new(const Inputs *in, uint32_t devices, const PrismSpaceFilter *f)
{
    return prism_space_new(in->model, &in->training, &devices, 1, f, NULL);
}

typedef struct {
    uint64_t idx;
    double peak, step;
    gboolean feasible;
    PrismStrategy s;
    double c[PRISM_COL_COUNT];
} Row;

/* Every row of the space, evaluated one by one. */
typedef struct {
    Row *rows;
    uint64_t n, feasible;
    double min_peak;
    int64_t best; /* fastest feasible row (ties: lowest index), -1 when none */
} Brute;

static gboolean brute(const PrismCostModel *cm, const PrismSpace *sp, Brute *b)
{
    memset(b, 0, sizeof *b);
    b->n = prism_space_size(sp);
    b->rows = g_new0(Row, b->n);
    b->min_peak = INFINITY;
    b->best = -1;
    for (uint64_t i = 0; i < b->n; i++) {
        Row *r = &b->rows[i];
        r->idx = i;
        if (!prism_space_unrank(sp, i, &r->s) || !prism_cost_eval_one(cm, &r->s, r->c, NULL))
            return FALSE;
        r->peak = r->c[PRISM_COL_MEM_PEAK];
        r->step = r->c[PRISM_COL_TIME_STEP];
        r->feasible = r->c[PRISM_COL_FEASIBLE] == 1.0;
        b->min_peak = MIN(b->min_peak, r->peak);
        if (r->feasible) {
            b->feasible++;
            if (b->best < 0 || r->step < b->rows[b->best].step)
                b->best = (int64_t)i;
        }
    }
    return TRUE;
}

static void brute_clear(Brute *b)
{
    g_free(b->rows);
}

static int cmp_peak(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->peak != y->peak)
        return x->peak < y->peak ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static gboolean same_strategy(const PrismStrategy *a, const PrismStrategy *b)
{
    g_autofree char *x = prism_strategy_format(a);
    g_autofree char *y = prism_strategy_format(b);
    return strcmp(x, y) == 0 && a->devices == b->devices;
}

/* Brute-force lowest peak of the filtered space on @p devices (device memory budget). */
static double min_peak(const Inputs *in, uint32_t devices, const PrismSpaceFilter *f)
{
    g_autoptr(PrismCostModel) cm = cm_new(in, 0);
    g_autoptr(PrismSpace) sp = space_new(in, devices, f);
    Brute b;
    double p = cm && sp && brute(cm, sp, &b) ? b.min_peak : NAN;
    if (cm && sp)
        brute_clear(&b);
    return p;
}

/* A what-if claim against the brute force of its space (@p usable as in the diagnosis). */
static gboolean what_if_matches(const Inputs *in, double usable, uint32_t devices,
                                const PrismSpaceFilter *f, const PrismWhatIf *w)
{
    g_autoptr(PrismCostModel) cm = cm_new(in, usable);
    g_autoptr(PrismSpace) sp = space_new(in, devices, f);
    Brute b;
    if (!cm || !sp || !brute(cm, sp, &b))
        return FALSE;
    gboolean ok = w->searched && w->feasible == b.feasible;
    if (b.best >= 0)
        ok &= w->best_step == b.rows[b.best].step && same_strategy(&w->best, &b.rows[b.best].s);
    else
        ok &= isnan(w->best_step) && w->best.devices == 0;
    if (!ok)
        fprintf(stderr,
                "what-if on %u devices: claims %" G_GUINT64_FORMAT
                " fit (%g s), brute %" G_GUINT64_FORMAT "\n",
                devices, w->feasible, w->best_step, b.feasible);
    brute_clear(&b);
    return ok;
}

static const PrismWhatIf *find(const PrismDiagnosis *d, PrismWhatIfKind kind)
{
    for (size_t i = 0; i < d->n_what_ifs; i++)
        if (d->what_ifs[i].kind == kind)
            return &d->what_ifs[i];
    return NULL;
}

/* Rank 0's digest of @p d equals this rank's. Collective. */
static gboolean same_on_every_rank(const PrismDiagnosis *d)
{
    PrismComm *comm = prism_test_comm();
    GString *g = g_string_new(NULL);
    g_string_append_printf(g, "%zu %a %a %zu %a %d|", d->job, d->usable, d->margin, d->n_closest,
                           d->statics, d->statics_exceed);
    for (size_t i = 0; i < d->n_closest; i++) {
        g_string_append_printf(g, "%" G_GUINT64_FORMAT " %a %d;", d->closest[i].index,
                               d->closest[i].over, (int)d->closest[i].dominant);
        for (int c = 0; c < PRISM_COL_COUNT; c++)
            g_string_append_printf(g, "%a,", d->closest[i].cols[c]);
    }
    for (size_t i = 0; i < d->n_what_ifs; i++) {
        const PrismWhatIf *w = &d->what_ifs[i];
        g_autofree char *bs = prism_strategy_format(&w->best);
        g_string_append_printf(g, "%d %d %u %u %" G_GUINT64_FORMAT " %a %s %a %d|", w->kind,
                               w->searched, w->factor, w->devices, w->feasible, w->best_step, bs,
                               w->mem_budget, (int)w->dim);
    }
    int len = (int)g->len;
    MPI_Bcast(&len, 1, MPI_INT, 0, comm->mpi);
    char *root = g_malloc0((size_t)len + 1);
    if (comm->rank == 0)
        memcpy(root, g->str, (size_t)len);
    MPI_Bcast(root, len, MPI_CHAR, 0, comm->mpi);
    gboolean ok = (size_t)len == g->len && memcmp(root, g->str, (size_t)len) == 0;
    g_free(root);
    g_string_free(g, TRUE);
    return ok;
}

/* Search @p devices under @p usable and diagnose; @p b is the brute force of that space. */
static PrismDiagnosis *diagnose(const Inputs *in, double usable, uint32_t devices,
                                const PrismSpaceFilter *f, Brute *b)
{
    PrismCostModel *cm = cm_new(in, usable);
    PrismSpace *sp = space_new(in, devices, f);
    PrismDiagnosis *d = NULL;
    if (cm && sp && brute(cm, sp, b)) {
        PrismSearchJob job = {.cm = cm, .space = sp};
        PrismSearchOptions opt;
        prism_search_options_init(&opt);
        opt.top_k = 10;
        PrismSearchResult *res = prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, NULL);
        if (res && prism_search_result_feasible(res) == 0)
            d = prism_diagnose_run(prism_test_comm(), &job, 1, 0, res, f, NULL, NULL, NULL, NULL);
        prism_search_result_free(res);
    }
    prism_space_free(sp);
    prism_cost_model_free(cm);
    return d;
}

/* The closest list, over, dominant part and statics against the brute force. */
static gboolean closest_matches(const PrismDiagnosis *d, Brute *b, double usable)
{
    Row *sorted = g_memdup2(b->rows, b->n * sizeof(Row));
    qsort(sorted, b->n, sizeof(Row), cmp_peak);
    gboolean ok = d->n_closest == MIN(10, b->n) && d->usable == usable;
    for (size_t i = 0; ok && i < d->n_closest; i++) {
        const PrismDiagClosest *c = &d->closest[i];
        const double *x = sorted[i].c;
        /* the largest of the five memory parts, first on ties */
        PrismCostCol dom = PRISM_COL_MEM_PARAMS;
        const PrismCostCol parts[] = {PRISM_COL_MEM_GRADS, PRISM_COL_MEM_OPTIMIZER,
                                      PRISM_COL_MEM_ACTIVATIONS, PRISM_COL_MEM_COMM_BUFFERS};
        for (size_t k = 0; k < G_N_ELEMENTS(parts); k++)
            if (x[parts[k]] > x[dom])
                dom = parts[k];
        ok &= c->index == sorted[i].idx && same_strategy(&c->strategy, &sorted[i].s) &&
              memcmp(c->cols, x, sizeof c->cols) == 0 &&
              c->over == x[PRISM_COL_MEM_PEAK] - usable && c->over > 0 && c->dominant == dom;
    }
    const double *x0 = sorted[0].c;
    ok &= d->statics ==
              x0[PRISM_COL_MEM_PARAMS] + x0[PRISM_COL_MEM_GRADS] + x0[PRISM_COL_MEM_OPTIMIZER] &&
          d->statics_exceed == (d->statics > usable);
    g_free(sorted);
    return ok;
}

/* The MEM_BUDGET claim: peak + margin; the CLI's suggestion (up to 0.1 GiB) makes #1 fit. */
static gboolean budget_matches(const Inputs *in, const PrismDiagnosis *d)
{
    const PrismWhatIf *w = find(d, PRISM_WHAT_IF_MEM_BUDGET);
    if (w == NULL || w->searched)
        return FALSE;
    double margin = in->knobs.v[PRISM_KNOB_MEM_MARGIN];
    gboolean ok =
        d->margin == margin && w->mem_budget == d->closest[0].cols[PRISM_COL_MEM_PEAK] + margin;
    /* the device's memory, above which the CLI suggests a larger device, not a budget */
    ok &= d->device_mem == in->cluster->mem_bytes && d->device_mem == 80.0 * GIB;
    double suggested = ceil(10 * w->mem_budget / GIB) / 10 * GIB;
    g_autoptr(PrismCostModel) cm = cm_new(in, suggested - margin);
    double c[PRISM_COL_COUNT];
    ok &= cm && prism_cost_eval_one(cm, &d->closest[0].strategy, c, NULL) &&
          c[PRISM_COL_FEASIBLE] == 1.0;
    return ok;
}

/* FILTER_DIM: --only schedule=..,recompute=.. restricts one saver, recompute. */
static gboolean filter_dims_match(const PrismDiagnosis *d)
{
    size_t n = 0;
    gboolean ok = TRUE;
    for (size_t i = 0; i < d->n_what_ifs; i++)
        if (d->what_ifs[i].kind == PRISM_WHAT_IF_FILTER_DIM) {
            ok &= d->what_ifs[i].dim == PRISM_DIM_RECOMPUTE && !d->what_ifs[i].searched &&
                  strcmp(d->what_ifs[i].saver, "recompute=full") == 0;
            n++;
        }
    /* kinds in order: DEVICES, NO_FILTERS, MEM_BUDGET, FILTER_DIM */
    for (size_t i = 1; i < d->n_what_ifs; i++)
        ok &= d->what_ifs[i - 1].kind <= d->what_ifs[i].kind;
    return ok && n == 1 && d->n_what_ifs == 4;
}

static void test_more_devices_make_room(void)
{
    Inputs in;
    gboolean ok = inputs_init(&in);
    double p2 = ok ? min_peak(&in, 2, in.filter) : NAN;
    double p4 = ok ? min_peak(&in, 4, in.filter) : NAN;
    /* precondition: 4 devices lower the lowest peak (sharding over dp/tp/pp) */
    ok &= p4 < p2;
    double usable = (p2 + p4) / 2; /* 2 devices: nothing fits; 4 devices: something does */
    Brute b = {0};
    g_autoptr(PrismDiagnosis) d = ok ? diagnose(&in, usable, 2, in.filter, &b) : NULL;
    ok &= d != NULL;
    const PrismWhatIf *dev = d ? find(d, PRISM_WHAT_IF_DEVICES) : NULL;
    const PrismWhatIf *nof = d ? find(d, PRISM_WHAT_IF_NO_FILTERS) : NULL;
    ok &= dev && nof && dev->factor == 2 && dev->devices == 4 && dev->feasible > 0;
    ok &= ok && what_if_matches(&in, usable, 4, in.filter, dev);
    ok &= ok && what_if_matches(&in, usable, 2, NULL, nof);
    ok &= ok && b.feasible == 0 && closest_matches(d, &b, usable);
    ok &= ok && budget_matches(&in, d) && filter_dims_match(d);
    if (!ok)
        fprintf(stderr, "more devices: p2 %.4g GiB, p4 %.4g GiB\n", p2 / GIB, p4 / GIB);
    gboolean same = d ? same_on_every_rank(d) : FALSE;
    CU_ASSERT(prism_test_all(ok && same));
    brute_clear(&b);
    inputs_clear(&in);
}

/* A stop hook that asks to stop on the ranks listed in @p user (a bit per rank), counting
 * its calls. */
typedef struct {
    unsigned ranks;
    int calls;
} StopOn;

static gboolean stop_on(void *user)
{
    StopOn *s = user;
    s->calls++;
    return (s->ranks >> prism_test_comm()->rank) & 1u;
}

/* A stop request ends the diagnosis on every rank with PRISM_RUNTIME_ERROR_INTERRUPTED:
 * asked on every rank, and asked on rank 0 only (the others stop too, none hangs in the
 * what-if search's collectives); a hook that never asks gives the diagnosis. */
static void test_stop(void)
{
    Inputs in;
    gboolean ok = inputs_init(&in);
    double p2 = ok ? min_peak(&in, 2, in.filter) : NAN;
    PrismCostModel *cm = ok ? cm_new(&in, 0.5 * p2) : NULL;
    PrismSpace *sp = ok ? space_new(&in, 2, in.filter) : NULL;
    PrismSearchJob job = {.cm = cm, .space = sp};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    g_autoptr(PrismSearchResult) res =
        cm && sp ? prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, NULL) : NULL;
    ok &= res != NULL && prism_search_result_feasible(res) == 0;
    const unsigned asks[] = {~0u, 1u, 0u};
    for (size_t a = 0; ok && a < G_N_ELEMENTS(asks); a++) {
        StopOn s = {asks[a], 0};
        GError *error = NULL;
        PrismDiagnosis *d = prism_diagnose_run(prism_test_comm(), &job, 1, 0, res, in.filter, NULL,
                                               stop_on, &s, &error);
        if (asks[a] == 0)
            ok &= d != NULL && error == NULL && s.calls > 0;
        else
            ok &= d == NULL &&
                  g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED);
        if (!ok)
            fprintf(stderr, "stop on ranks %#x: %s (%d calls)\n", asks[a],
                    error ? error->message : "no error", s.calls);
        prism_diagnosis_free(d);
        g_clear_error(&error);
    }
    CU_ASSERT(prism_test_all(ok));
    prism_space_free(sp);
    prism_cost_model_free(cm);
    inputs_clear(&in);
}

static void test_nothing_makes_room(void)
{
    Inputs in;
    gboolean ok = inputs_init(&in);
    double low = INFINITY;
    for (uint32_t n = 2; ok && n <= 16; n *= 2)
        low = MIN(low, min_peak(&in, n, in.filter));
    double usable = 0.5 * low; /* below the lowest peak on 2, 4, 8 and 16 devices */
    Brute b = {0};
    g_autoptr(PrismDiagnosis) d = ok ? diagnose(&in, usable, 2, in.filter, &b) : NULL;
    ok &= d != NULL;
    const PrismWhatIf *dev = d ? find(d, PRISM_WHAT_IF_DEVICES) : NULL;
    ok &= dev && dev->factor == 8 && dev->devices == 16 && dev->feasible == 0 &&
          isnan(dev->best_step);
    /* the scan's claims: 4, 8 and 16 devices fit nothing, by brute force */
    for (uint32_t n = 4; ok && n <= 16; n *= 2) {
        PrismWhatIf none = {.searched = TRUE, .feasible = 0, .best_step = NAN};
        ok &= what_if_matches(&in, usable, n, in.filter, &none);
    }
    const PrismWhatIf *nof = d ? find(d, PRISM_WHAT_IF_NO_FILTERS) : NULL;
    ok &= nof != NULL && what_if_matches(&in, usable, 2, NULL, nof);
    ok &= ok && closest_matches(d, &b, usable) && budget_matches(&in, d) && filter_dims_match(d);
    gboolean same = d ? same_on_every_rank(d) : FALSE;
    CU_ASSERT(prism_test_all(ok && same));
    brute_clear(&b);
    inputs_clear(&in);
}

/* Unfiltered: no NO_FILTERS and no FILTER_DIM what-if; two jobs as a sweep runs them. */
static void test_two_jobs(void)
{
    Inputs in;
    gboolean ok = inputs_init(&in);
    double p2 = ok ? min_peak(&in, 2, NULL) : NAN;
    double p4 = ok ? min_peak(&in, 4, NULL) : NAN;
    double usable = 0.5 * MIN(p2, p4);
    g_autoptr(PrismCostModel) cm = ok ? cm_new(&in, usable) : NULL;
    g_autoptr(PrismSpace) s2 = ok ? space_new(&in, 2, NULL) : NULL;
    g_autoptr(PrismSpace) s4 = ok ? space_new(&in, 4, NULL) : NULL;
    ok &= cm && s2 && s4;
    PrismSearchJob jobs[2] = {{.cm = cm, .space = s2}, {.cm = cm, .space = s4}};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    g_autoptr(PrismSearchResult) res =
        ok ? prism_search_run(prism_test_comm(), jobs, 2, &opt, NULL, NULL) : NULL;
    ok &= res && prism_search_result_feasible(res) == 0;
    size_t want = p4 < p2 ? 1 : 0; /* the job of the lower peak, the first on ties */
    size_t job = res ? prism_diagnose_closest_job(res, 2) : 9;
    ok &= job == want;
    GError *error = NULL;
    g_autoptr(PrismDiagnosis) d = ok ? prism_diagnose_run(prism_test_comm(), jobs, 2, job, res,
                                                          NULL, NULL, NULL, NULL, &error)
                                     : NULL;
    ok &= d && d->job == want && d->n_what_ifs == 2 && !d->filtered &&
          d->what_ifs[0].kind == PRISM_WHAT_IF_DEVICES &&
          d->what_ifs[1].kind == PRISM_WHAT_IF_MEM_BUDGET;
    Brute b = {0};
    if (ok && brute(cm, want ? s4 : s2, &b)) {
        uint64_t first = want ? prism_space_size(s2) : 0;
        /* global indices of job 1 start after job 0's rows */
        for (size_t i = 0; i < d->n_closest; i++)
            d->closest[i].index -= first;
        ok &= closest_matches(d, &b, usable) && budget_matches(&in, d);
        for (size_t i = 0; i < d->n_closest; i++)
            d->closest[i].index += first;
    } else {
        ok = FALSE;
    }
    brute_clear(&b);
    gboolean same = d ? same_on_every_rank(d) : FALSE;
    /* a job out of range is refused, the same on every rank */
    PrismDiagnosis *bad =
        res ? prism_diagnose_run(prism_test_comm(), jobs, 2, 2, res, NULL, NULL, NULL, NULL, &error)
            : NULL;
    ok &= bad == NULL && g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE);
    g_clear_error(&error);
    CU_ASSERT(prism_test_all(ok && same));
    inputs_clear(&in);
}

static CU_TestInfo diagnose_tests[] = {
    {"more devices make room (2x)", test_more_devices_make_room},
    {"nothing makes room up to 8x", test_nothing_makes_room},
    {"a stop request ends the diagnosis on every rank", test_stop},
    {"two jobs, closest job, bad job", test_two_jobs},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"diagnose", NULL, NULL, NULL, NULL, diagnose_tests},
    CU_SUITE_INFO_NULL,
};
