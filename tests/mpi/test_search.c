// SPDX-License-Identifier: MIT
/*
 * test_search.c - the search driver through the real cost model, at 1-4 ranks:
 *  - fronts, top-k and closest lists equal an independent brute force: every row
 *    re-evaluated one by one with prism_cost_eval_one() (once per space: runs over the
 *    same space with other objectives read the rows kept), O(n^2) dominance, full sorts;
 *  - the sink sees every row of its block once, in order, in batches inside one
 *    segment, with the columns of the scalar reference;
 *  - a sink error or a stop request on one rank fails every rank, with end(FALSE);
 *  - the weighted partition of several jobs is contiguous, complete and balanced.
 */
#include <math.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/search.h>

#include "prism_test_util.h"

typedef struct {
    PrismModel *model;
    PrismCluster *cluster;
    PrismTraining training;
    PrismKnobs knobs;
    PrismSpace *space;
    PrismCostModel *cm;
} Setup;

/* Overlap options searched (0 and 1) by the spaces set up next; 0 (the default): each
 * option is 1 where it applies, as without a framework profile. */
static unsigned setup_overlap;

static gboolean setup_init_budget(Setup *s, const char *model, const uint32_t *dev, size_t nd,
                                  uint64_t gbs, uint64_t seq, const char *only, const char *range,
                                  double budget_gib)
{
    memset(s, 0, sizeof *s);
    GError *error = NULL;
    s->model = prism_model_zoo_get(model, &error);
    s->cluster = prism_cluster_resolve("A100-80GB", &error);
    prism_training_default(&s->training);
    s->training.gbs = gbs;
    s->training.seq = seq;
    s->training.mem_budget_bytes = budget_gib * 1073741824.0;
    prism_knobs_default(&s->knobs);
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    if (only != NULL)
        (void)prism_space_filter_only(f, only, &error);
    if (range != NULL)
        (void)prism_space_filter_range(f, range, &error);
    if (setup_overlap != 0)
        prism_space_filter_set_overlap(f, setup_overlap, setup_overlap);
    if (s->model && s->cluster && error == NULL)
        s->space = prism_space_new(s->model, &s->training, dev, nd, f, &error);
    if (s->space)
        s->cm = prism_cost_model_new(s->model, s->cluster, &s->training, &s->knobs, &error);
    if (error != NULL)
        fprintf(stderr, "setup %s: %s\n", model, error->message);
    g_clear_error(&error);
    return s->cm != NULL;
}

static gboolean setup_init(Setup *s, const char *model, const uint32_t *dev, size_t nd,
                           uint64_t gbs, uint64_t seq, const char *only, const char *range)
{
    return setup_init_budget(s, model, dev, nd, gbs, seq, only, range, 0);
}

static void setup_clear(Setup *s)
{
    prism_cost_model_free(s->cm);
    prism_space_free(s->space);
    prism_cluster_free(s->cluster);
    prism_model_free(s->model);
}

typedef struct {
    double key[PRISM_FRONT_MAX_OBJECTIVES];
    double rank_key, peak;
    uint64_t idx;
    gboolean feasible, key_nan;
} Row;

static int cmp_top(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->rank_key != y->rank_key)
        return x->rank_key < y->rank_key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_peak(const void *a, const void *b)
{
    const Row *x = a, *y = b;
    if (x->peak != y->peak)
        return x->peak < y->peak ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Bit d set by brute_check: the strategy dim d, an objective or the rank-by column of a
 * checked search, took at least two values over the feasible rows. */
static uint32_t dims_varied;

static void note_varied(const PrismObjective *o, const double *first, double v)
{
    if (o->kind == PRISM_COLUMN_DIM && !isnan(*first) && v != *first)
        dims_varied |= 1u << o->id;
}

/* The rows of the last space brute_check re-evaluated, one by one: runs over the same
 * space (test_brute_dim_objectives: five objective sets) read them instead of pricing
 * every row again. A row's strategy and columns do not depend on the objectives; the
 * space is named by every argument of its setup (run_brute's memo key). */
static struct {
    char *key;
    uint64_t n;
    PrismStrategy *s;
    double *c; /* n x PRISM_COL_COUNT */
} memo;

static void memo_clear(void)
{
    g_clear_pointer(&memo.key, g_free);
    g_clear_pointer(&memo.s, g_free);
    g_clear_pointer(&memo.c, g_free);
    memo.n = 0;
}

/* Every row of @p job's space priced alone, or read from the memo when @p key names the
 * space it holds. */
static gboolean memo_rows(const PrismSearchJob *job, const char *key)
{
    uint64_t n = prism_space_size(job->space);
    if (memo.key != NULL && strcmp(memo.key, key) == 0 && memo.n == n)
        return TRUE;
    memo_clear();
    memo.s = g_new(PrismStrategy, n);
    memo.c = g_new(double, n *PRISM_COL_COUNT);
    for (uint64_t i = 0; i < n; i++)
        if (!prism_search_row(job, 1, i, NULL, &memo.s[i], &memo.c[i * PRISM_COL_COUNT], NULL)) {
            memo_clear();
            return FALSE;
        }
    memo.key = g_strdup(key);
    memo.n = n;
    return TRUE;
}

static gboolean brute_check(const PrismSearchJob *job, const PrismSearchResult *res,
                            const char *key)
{
    uint64_t n = prism_space_size(job->space);
    size_t k = 0;
    const PrismObjective *obj = prism_search_result_objectives(res, &k);
    const PrismObjective *rb = prism_search_result_rank_by(res);
    if (!memo_rows(job, key))
        return FALSE;
    Row *rows = g_new0(Row, n);
    uint64_t feasible = 0;
    double first[PRISM_FRONT_MAX_OBJECTIVES + 1]; /* the first feasible row's keys */
    for (size_t o = 0; o <= k; o++)
        first[o] = NAN;
    for (uint64_t i = 0; i < n; i++) {
        const PrismStrategy s = memo.s[i];
        const double *c = &memo.c[i * PRISM_COL_COUNT];
        Row *r = &rows[i];
        r->idx = i;
        r->feasible = c[PRISM_COL_FEASIBLE] == 1.0;
        r->peak = c[PRISM_COL_MEM_PEAK];
        r->rank_key = (rb->maximize ? -1 : 1) * prism_objective_value(rb, &s, c);
        for (size_t o = 0; o < k; o++) {
            r->key[o] = (obj[o].maximize ? -1 : 1) * prism_objective_value(&obj[o], &s, c);
            r->key_nan |= isnan(r->key[o]);
        }
        feasible += r->feasible;
        if (r->feasible) {
            for (size_t o = 0; o < k; o++) {
                note_varied(&obj[o], &first[o], r->key[o]);
                if (isnan(first[o]))
                    first[o] = r->key[o];
            }
            note_varied(rb, &first[k], r->rank_key);
            if (isnan(first[k]))
                first[k] = r->rank_key;
        }
    }
    gboolean ok =
        feasible == prism_search_result_feasible(res) && n == prism_search_result_evaluated(res);
    /* front: O(n^2) over feasible rows: row i is out iff some row j dominates it (or
     * equals it with j < i). The row that dominated the previous one is tried first, as
     * it often dominates the next too; the verdict is the same in any order. */
    GArray *front = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    uint64_t hint = n;
    for (uint64_t i = 0; i < n; i++) {
        if (!rows[i].feasible || rows[i].key_nan)
            continue;
        gboolean dominated = FALSE;
        for (uint64_t q = 0; q <= n && !dominated; q++) {
            const uint64_t j = q == 0 ? hint : q - 1;
            if (j == n || j == i || !rows[j].feasible || rows[j].key_nan)
                continue;
            gboolean le = TRUE, lt = FALSE;
            for (size_t o = 0; o < k; o++) {
                le &= rows[j].key[o] <= rows[i].key[o];
                lt |= rows[j].key[o] < rows[i].key[o];
            }
            dominated = le && (lt || j < i);
            if (dominated)
                hint = j;
        }
        if (!dominated)
            g_array_append_val(front, i);
    }
    const PrismFront *f = prism_search_result_front(res, 0);
    ok &= front->len == prism_front_size(f);
    for (guint i = 0; ok && i < front->len; i++) {
        gboolean found = FALSE;
        for (size_t j = 0; j < prism_front_size(f) && !found; j++)
            found = prism_front_index(f, j) == g_array_index(front, uint64_t, i);
        ok &= found;
    }
    if (!ok)
        fprintf(stderr,
                "front: brute %u vs driver %zu, feasible %" G_GUINT64_FORMAT
                " vs %" G_GUINT64_FORMAT "\n",
                front->len, prism_front_size(f), feasible, prism_search_result_feasible(res));
    g_array_unref(front);
    /* top-k: full sort of the feasible rows */
    Row *sorted = g_new(Row, n);
    size_t m = 0;
    for (uint64_t i = 0; i < n; i++)
        if (rows[i].feasible && !isnan(rows[i].rank_key))
            sorted[m++] = rows[i];
    qsort(sorted, m, sizeof(Row), cmp_top);
    const PrismTopK *top = prism_search_result_top(res, 0);
    size_t want = m < prism_topk_capacity(top) ? m : prism_topk_capacity(top);
    ok &= prism_topk_size(top) == want;
    for (size_t i = 0; ok && i < want; i++)
        ok &= prism_topk_index(top, i) == sorted[i].idx;
    /* closest: all rows by peak memory */
    memcpy(sorted, rows, n * sizeof(Row));
    qsort(sorted, n, sizeof(Row), cmp_peak);
    const PrismTopK *cl = prism_search_result_closest(res, 0);
    want = n < prism_topk_capacity(cl) ? n : prism_topk_capacity(cl);
    ok &= prism_topk_size(cl) == want;
    for (size_t i = 0; ok && i < want; i++)
        ok &= prism_topk_index(cl, i) == sorted[i].idx;
    g_free(sorted);
    g_free(rows);
    return ok;
}

/* A digest of the result's counts and its front, top and closest indices in order: equal
 * on every rank iff each rank holds the same result (FNV-1a over the values). */
static uint64_t result_digest(const PrismSearchResult *res)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
    MIX(prism_search_result_feasible(res));
    MIX(prism_search_result_evaluated(res));
    const PrismFront *f = prism_search_result_front(res, 0);
    MIX(prism_front_size(f));
    for (size_t i = 0; i < prism_front_size(f); i++)
        MIX(prism_front_index(f, i));
    const PrismTopK *lists[] = {prism_search_result_top(res, 0),
                                prism_search_result_closest(res, 0)};
    for (size_t l = 0; l < G_N_ELEMENTS(lists); l++) {
        MIX(prism_topk_size(lists[l]));
        for (size_t i = 0; i < prism_topk_size(lists[l]); i++)
            MIX(prism_topk_index(lists[l], i));
    }
#undef MIX
    return h;
}

/* TRUE on every rank iff @p v is the same on every rank. Collective. */
static gboolean same_on_all_ranks(uint64_t v)
{
    uint64_t lo = 0, hi = 0;
    return prism_comm_allreduce_u64(prism_test_comm(), v, MPI_MIN, &lo, NULL) &&
           prism_comm_allreduce_u64(prism_test_comm(), v, MPI_MAX, &hi, NULL) && lo == hi;
}

static uint64_t pruned_rows; /* over the brute-force runs: rows pruning left out */

static void run_brute(const char *model, const uint32_t *dev, size_t nd, uint64_t gbs, uint64_t seq,
                      const char *only, const char *range, const char *objectives,
                      const char *rank_by, double budget_gib)
{
    Setup s;
    gboolean ok = setup_init_budget(&s, model, dev, nd, gbs, seq, only, range, budget_gib);
    g_autoptr(GString) key = g_string_new(NULL);
    g_string_printf(key, "%s|%" G_GUINT64_FORMAT "|%" G_GUINT64_FORMAT "|%s|%s|%.17g|%u|", model,
                    gbs, seq, only ? only : "", range ? range : "", budget_gib, setup_overlap);
    for (size_t i = 0; i < nd; i++)
        g_string_append_printf(key, "%u,", dev[i]);
    PrismSearchResult *res = NULL;
    PrismSearchJob job = {.cm = s.cm, .space = s.space};
    if (ok) {
        PrismSearchOptions opt;
        prism_search_options_init(&opt);
        opt.top_k = 7;
        opt.batch = 100; /* many batches per segment */
        if (objectives)
            ok = prism_objectives_parse(objectives, opt.objectives, &opt.n_objectives, NULL);
        if (rank_by) {
            ok &= prism_objective_parse(rank_by, &opt.rank_by, NULL);
            opt.rank_by_set = TRUE;
        }
        res = prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, NULL);
        /* the same result with 1, 3 and 4 threads per rank (each thread walks chunks of
         * 8 batches of 100 lanes, so these spaces are dealt to every thread); the sanitizer
         * pass, which hunts memory errors rather than other answers, takes 3 threads only
         * (the same dealing code as 4; the run above took one per rank at 2+ ranks) */
        const int threads[] = {3, 1, 4};
        const size_t n_threads = prism_test_sanitized() ? 1 : G_N_ELEMENTS(threads);
        for (size_t t = 0; res != NULL && t < n_threads; t++) {
            opt.threads = threads[t];
            PrismSearchResult *rt = prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, NULL);
            ok = ok && rt != NULL && prism_search_result_threads(rt) == threads[t] &&
                 result_digest(rt) == result_digest(res);
            if (rt == NULL || result_digest(rt) != result_digest(res))
                fprintf(stderr, "%s: %d threads give another result\n", model, threads[t]);
            prism_search_result_free(rt);
        }
        /* pruning (the default without a sink) left rows out: the kernel on every row gives
         * the same result, and evaluates every row */
        if (res != NULL) {
            opt.threads = 1;
            opt.exhaustive = TRUE;
            PrismSearchResult *rx = prism_search_run(prism_test_comm(), &job, 1, &opt, NULL, NULL);
            ok = ok && rx != NULL && result_digest(rx) == result_digest(res) &&
                 prism_search_result_pruned(rx) == 0;
            if (rx == NULL || result_digest(rx) != result_digest(res))
                fprintf(stderr, "%s: the exhaustive search gives another result\n", model);
            prism_search_result_free(rx);
            pruned_rows += prism_search_result_pruned(res);
        }
    }
    /* Every rank holds the same result (the digest), and rank 0 alone checks it against
     * the brute force: each rank re-evaluating every row made the check np times the work
     * on 2 cores. prism_test_all() below spreads the verdict. */
    const gboolean same = same_on_all_ranks(res != NULL ? result_digest(res) : 0);
    ok = ok && res != NULL && same && prism_space_size(s.space) < 20000 &&
         prism_search_result_feasible(res) > 0 &&
         (prism_test_comm()->rank != 0 || brute_check(&job, res, key->str));
    if (!ok)
        fprintf(stderr, "brute force mismatch: %s (%" G_GUINT64_FORMAT " rows)\n", model,
                s.space ? prism_space_size(s.space) : 0);
    else if (prism_test_comm()->rank == 0)
        printf("[%s: %" G_GUINT64_FORMAT " rows, %" G_GUINT64_FORMAT
               " feasible, front %zu, %" G_GUINT64_FORMAT " pruned] ",
               model, prism_space_size(s.space), prism_search_result_feasible(res),
               prism_front_size(prism_search_result_front(res, 0)),
               prism_search_result_pruned(res));
    CU_ASSERT_TRUE(prism_test_all(ok));
    prism_search_result_free(res);
    setup_clear(&s);
}

static void test_brute_dense(void)
{
    const uint32_t d8[] = {8};
    /* activation offload (2) next to none: the driver walks its segments like any other */
    run_brute("gpt3-1.3b", d8, 1, 16, 2048, "zero=0,1,offload=0,2", "mbs=1:2", NULL, NULL, 12);
    const uint32_t d12[] = {12};
    /* offload's default domain {0, 1} (twice the rows of the space without offload); the
     * sanitizer pass takes recompute=none only (half the rows to re-evaluate one by one) */
    run_brute("llama3-8b", d12, 1, 24, 2048,
              prism_test_sanitized() ? "recompute=none" : "recompute=none,full", NULL,
              "max:mfu,peak_mem,tp", "max:tokens_per_s", 0);
}

static void test_brute_moe_devices(void)
{
    const uint32_t d8[] = {8};
    run_brute("deepseek-v2-lite", d8, 1, 16, 2048, "zero=1,recompute=selective", "mbs=:2", NULL,
              "peak_mem", 60);
    /* two device counts: the default objectives become step_time, peak_mem, devices */
    const uint32_t d48[] = {4, 8};
    run_brute("gpt3-1.3b", d48, 2, 16, 2048, "zero=1,recompute=none,full", "mbs=:2", NULL, NULL,
              10);
    /* the budgets above leave rows whose static bytes do not fit: pruning left some out
     * (the count is summed over the ranks, so the same on each) */
    CU_ASSERT_TRUE(prism_test_all(pruned_rows > 0));
}

/* Every strategy dim as a Pareto objective and as the top list's column: the driver
 * reads a dim from the lanes or the segment key (search_driver.c, key_source), the
 * brute force from the strategy (prism_objective_value). Each dim must vary over the
 * feasible rows of the spaces below, or its check would prove nothing. */
static void test_brute_dim_objectives(void)
{
    static const struct {
        const char *objectives, *rank_by;
    } runs[] = {
        {"step_time,pp,max:vpp,schedule", "max:recompute"},
        {"peak_mem,rc_layers,max:tp,cp", "dp"},
        {"max:mfu,ep,sp,max:mbs", "max:m"},
        {"step_time,zero,max:etp,folding", "offload"},
        {"step_time,max:tp_overlap,dp_overlap,devices", "max:param_overlap"},
    };
    uint32_t named = 0;
    for (size_t r = 0; r < G_N_ELEMENTS(runs); r++) {
        PrismObjective o[PRISM_FRONT_MAX_OBJECTIVES + 1];
        size_t n = 0;
        CU_ASSERT_FATAL(prism_objectives_parse(runs[r].objectives, o, &n, NULL));
        CU_ASSERT_FATAL(prism_objective_parse(runs[r].rank_by, &o[n++], NULL));
        for (size_t i = 0; i < n; i++)
            if (o[i].kind == PRISM_COLUMN_DIM)
                named |= 1u << o[i].id;
    }
    const uint32_t all = (1u << PRISM_DIM_COUNT) - 1;
    CU_ASSERT_EQUAL(named, all); /* a new dim must join a run above */
    /* MoE on 4 and 8 devices: pipelines with interleaving, block recompute, offload,
     * folded and tied expert layouts, every overlap option searched */
    const uint32_t d48[] = {4, 8};
    setup_overlap = PRISM_OVERLAP_ALL;
    dims_varied = 0;
    for (size_t r = 0; r < G_N_ELEMENTS(runs); r++)
        run_brute("deepseek-v2-lite", d48, 2, 8, 2048,
                  "zero=1,2,recompute=none,block:1,schedule=1f1b,interleaved,offload=0,1",
                  "mbs=:2,tp=:2,cp=:2,vpp=:2", runs[r].objectives, runs[r].rank_by, 0);
    setup_overlap = 0;
    if (prism_test_comm()->rank == 0 && dims_varied != all)
        fprintf(stderr, "dims that did not vary: mask 0x%x\n", all & ~dims_varied);
    CU_ASSERT_TRUE(prism_test_comm()->rank != 0 || dims_varied == all);
}

typedef struct {
    int begins, ends, results;
    gboolean end_ok;
    uint64_t total, lo, hi, next, rows;
    gboolean in_order, one_segment, cols_match;
    const PrismSearchJob *job;
    int fail_rank, fail_at_batch, batches;
} TestSink;

static gboolean ts_begin(void *user, uint64_t total, uint64_t lo, uint64_t hi, GError **error)
{
    (void)error;
    TestSink *t = user;
    t->begins++;
    t->total = total;
    t->lo = lo;
    t->hi = hi;
    t->next = lo;
    return TRUE;
}

static gboolean ts_rows(void *user, const PrismRowBatch *b, GError **error)
{
    TestSink *t = user;
    if (prism_test_comm()->rank == t->fail_rank && t->batches == t->fail_at_batch) {
        g_set_error(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO,
                    "test sink failure on rank %d", t->fail_rank);
        return FALSE;
    }
    t->batches++;
    t->in_order &= b->first_index == t->next && b->n > 0 && b->job == 0 &&
                   b->job_first_index == b->first_index;
    t->next = b->first_index + b->n;
    t->rows += b->n;
    const PrismSpace *sp = t->job->space;
    size_t s0 = prism_space_find_segment(sp, b->first_index);
    size_t s1 = prism_space_find_segment(sp, b->first_index + b->n - 1);
    size_t ns = 0;
    const PrismSpaceSegment *segs = prism_space_segments(sp, &ns);
    t->one_segment &= s0 == s1 && memcmp(&segs[s0].key, b->key, sizeof *b->key) == 0;
    for (size_t i = 0; i < b->n; i += 37) {
        PrismStrategy s;
        double c[PRISM_COL_COUNT];
        if (!prism_search_row(t->job, 1, b->first_index + i, NULL, &s, c, NULL) ||
            s.tp != (uint32_t)b->lanes->tp[i] || s.mbs != (uint32_t)b->lanes->mbs[i]) {
            t->cols_match = FALSE;
            continue;
        }
        for (int k = 0; k < PRISM_COL_COUNT; k++)
            t->cols_match &= memcmp(&c[k], &b->cols->col[k][i], sizeof(double)) == 0;
    }
    return TRUE;
}

static gboolean ts_end(void *user, gboolean ok, GError **error)
{
    (void)error;
    TestSink *t = user;
    t->ends++;
    t->end_ok = ok;
    return TRUE;
}

static gboolean ts_results(void *user, const PrismSearchResult *r, GError **error)
{
    (void)error;
    TestSink *t = user;
    t->results += t->ends == 0 && prism_search_result_total(r) == t->total;
    return TRUE;
}

static void test_sink(void)
{
    PrismComm *comm = prism_test_comm();
    const uint32_t d[] = {8};
    Setup s;
    gboolean ok = setup_init(&s, "mixtral-8x7b", d, 1, 32, 4096, NULL, "mbs=:2");
    PrismSearchJob job = {.cm = s.cm, .space = s.space};
    TestSink t = {
        .in_order = TRUE, .one_segment = TRUE, .cols_match = TRUE, .job = &job, .fail_rank = -1};
    PrismRowSink sink = {
        .begin = ts_begin, .rows = ts_rows, .end = ts_end, .user = &t, .results = ts_results};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.batch = 333;
    opt.round_rows = 4000; /* several rounds, cutting through segments */
    PrismSearchResult *res = ok ? prism_search_run(comm, &job, 1, &opt, &sink, NULL) : NULL;
    uint64_t lo, hi;
    prism_search_partition(&job, 1, comm->rank, comm->size, &lo, &hi);
    ok = ok && res != NULL && t.begins == 1 && t.ends == 1 && t.end_ok && t.results == 1 &&
         t.lo == lo && t.hi == hi && t.next == hi && t.rows == hi - lo && t.in_order &&
         t.one_segment && t.cols_match && t.total == prism_space_size(s.space);
    if (!ok)
        fprintf(stderr,
                "[rank %d] sink: begins %d ends %d results %d order %d seg %d cols %d "
                "rows %" G_GUINT64_FORMAT "\n",
                comm->rank, t.begins, t.ends, t.results, t.in_order, t.one_segment, t.cols_match,
                t.rows);
    CU_ASSERT_TRUE(prism_test_all(ok));
    prism_search_result_free(res);
    setup_clear(&s);
}

static gboolean stop_on_rank0(void *user)
{
    (void)user;
    return prism_test_comm()->rank == 0;
}

/* Stop hook called by several threads: rank 0 asks to stop from its 5th call on. */
static atomic_int stop_calls;
static gboolean stop_on_rank0_later(void *user)
{
    (void)user;
    return prism_test_comm()->rank == 0 && atomic_fetch_add(&stop_calls, 1) >= 4;
}

static void test_failures(void)
{
    PrismComm *comm = prism_test_comm();
    const uint32_t d[] = {8};
    Setup s;
    gboolean ok = setup_init(&s, "gpt3-1.3b", d, 1, 16, 2048, NULL, NULL);
    PrismSearchJob job = {.cm = s.cm, .space = s.space};
    /* the sink fails on the last rank at its first batch (the last rank's block can be too
     * small for two batches in its first round: R8 admits m < pp, and at 4 ranks its
     * pipelined rows weigh more) */
    TestSink t = {.in_order = TRUE,
                  .one_segment = TRUE,
                  .cols_match = TRUE,
                  .job = &job,
                  .fail_rank = comm->size - 1,
                  .fail_at_batch = 0};
    PrismRowSink sink = {.begin = ts_begin, .rows = ts_rows, .end = ts_end, .user = &t};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.batch = 64;
    opt.round_rows = 500; /* many rounds: the failure ends every rank at a round boundary */
    GError *error = NULL;
    PrismSearchResult *res = ok ? prism_search_run(comm, &job, 1, &opt, &sink, &error) : NULL;
    g_autofree char *want = g_strdup_printf("test sink failure on rank %d", comm->size - 1);
    gboolean good = ok && res == NULL && error != NULL &&
                    g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_IO) &&
                    strcmp(error->message, want) == 0 && t.ends == 1 && !t.end_ok &&
                    t.rows <= 500; /* every rank stopped after the first round */
    if (!good)
        fprintf(stderr, "[rank %d] sink failure: %s (rows %zu, ends %d)\n", comm->rank,
                error ? error->message : "(no error)", (size_t)t.rows, t.ends);
    CU_ASSERT_TRUE(prism_test_all(good));
    g_clear_error(&error);
    prism_search_result_free(res);
    /* a stop request on rank 0 interrupts every rank */
    TestSink t2 = {
        .in_order = TRUE, .one_segment = TRUE, .cols_match = TRUE, .job = &job, .fail_rank = -1};
    sink.user = &t2;
    opt.stop = stop_on_rank0;
    res = ok ? prism_search_run(comm, &job, 1, &opt, &sink, &error) : NULL;
    good = ok && res == NULL &&
           g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED) &&
           t2.ends == 1 && !t2.end_ok && t2.rows <= 500;
    CU_ASSERT_TRUE(prism_test_all(good));
    g_clear_error(&error);
    prism_search_result_free(res);
    /* the same stop with 3 threads per rank and no sink: every thread stops dealing, the
     * threads are joined, every rank reports the interruption (rank 0 asks after its
     * 5th batch, from whichever thread runs it) */
    stop_calls = 0;
    opt.stop = stop_on_rank0_later;
    opt.threads = 3;
    opt.round_rows = 0; /* whole groups in a round: chunks of 8 x 64 rows for 3 threads */
    res = ok ? prism_search_run(comm, &job, 1, &opt, NULL, &error) : NULL;
    good = ok && res == NULL &&
           g_error_matches(error, PRISM_RUNTIME_ERROR, PRISM_RUNTIME_ERROR_INTERRUPTED);
    CU_ASSERT_TRUE(prism_test_all(good));
    g_clear_error(&error);
    setup_clear(&s);
}

/* The documented weight of rows [lo, hi) of a job list (search/README.md): the job's
 * row weight times 1 + 0.042 c + 42 c / rows for the row's segment, c = pp * vpp. */
static double block_weight(const PrismSearchJob *jobs, size_t n_jobs, uint64_t lo, uint64_t hi,
                           double *max_row)
{
    double w = 0;
    uint64_t first = 0;
    for (size_t j = 0; j < n_jobs; j++) {
        size_t ns = 0;
        const PrismSpaceSegment *segs = prism_space_segments(jobs[j].space, &ns);
        double jw = prism_search_row_weight(jobs[j].cm);
        for (size_t i = 0; i < ns; i++) {
            uint64_t a = first + segs[i].first, b = a + segs[i].count;
            double c = (double)segs[i].key.pp * segs[i].key.vpp;
            double rw = jw * (1.0 + 0.042 * c + 42.0 * c / (double)segs[i].count);
            if (rw > *max_row)
                *max_row = rw;
            uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
            if (y > x)
                w += rw * (double)(y - x);
        }
        first += prism_space_size(jobs[j].space);
    }
    return w;
}

/* Two jobs of different row weights: blocks are contiguous, complete, and each holds
 * its share of the total weight to within one row. */
static void test_partition(void)
{
    const uint32_t d8[] = {8}, d16[] = {16};
    Setup a, b;
    gboolean ok = setup_init(&a, "gpt3-1.3b", d8, 1, 16, 2048, NULL, NULL) &&
                  setup_init(&b, "deepseek-v2-lite", d16, 1, 32, 2048, NULL, NULL);
    CU_ASSERT_TRUE_FATAL(ok);
    PrismSearchJob jobs[2] = {{.cm = a.cm, .space = a.space}, {.cm = b.cm, .space = b.space}};
    /* 1 + 1 layer kind vs 1 + 2 (a dense first block, then MoE blocks) */
    CU_ASSERT_TRUE(prism_search_row_weight(a.cm) == 2.0 && prism_search_row_weight(b.cm) == 3.0);
    uint64_t n0 = prism_space_size(a.space), total = prism_search_total(jobs, 2);
    double max_row = 0, all = block_weight(jobs, 2, 0, total, &max_row);
    for (int size = 1; size <= 7; size++) {
        uint64_t prev = 0;
        for (int r = 0; r < size; r++) {
            uint64_t lo, hi;
            prism_search_partition(jobs, 2, r, size, &lo, &hi);
            CU_ASSERT_EQUAL(lo, prev);
            CU_ASSERT_TRUE(hi >= lo);
            double w = block_weight(jobs, 2, lo, hi, &max_row);
            if (fabs(w - all / size) > max_row + 1e-9 * all)
                fprintf(stderr, "size %d rank %d: weight %g vs share %g\n", size, r, w, all / size);
            CU_ASSERT_TRUE(fabs(w - all / size) <= max_row + 1e-9 * all);
            prev = hi;
        }
        CU_ASSERT_EQUAL(prev, total);
    }
    size_t job;
    uint64_t local;
    CU_ASSERT_TRUE(prism_search_locate(jobs, 2, n0, &job, &local));
    CU_ASSERT_TRUE(job == 1 && local == 0);
    CU_ASSERT_FALSE(prism_search_locate(jobs, 2, total, &job, &local));
    setup_clear(&a);
    setup_clear(&b);
}

static void test_objective_parse(void)
{
    PrismObjective o[8];
    size_t n = 0;
    GError *error = NULL;
    CU_ASSERT_TRUE(prism_objectives_parse("step_time,peak_mem,devices", o, &n, &error));
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_TRUE(o[0].kind == PRISM_COLUMN_COST && o[0].id == PRISM_COL_TIME_STEP);
    CU_ASSERT_TRUE(o[1].kind == PRISM_COLUMN_COST && o[1].id == PRISM_COL_MEM_PEAK);
    CU_ASSERT_TRUE(o[2].kind == PRISM_COLUMN_DIM && o[2].id == PRISM_DIM_DEVICES);
    CU_ASSERT_TRUE(prism_objectives_parse("max:mfu, memory", o, &n, &error));
    CU_ASSERT_TRUE(n == 2 && o[0].maximize && o[1].id == PRISM_COL_MEM_PEAK);
    g_autofree char *nm = prism_objective_name(&o[0]);
    CU_ASSERT_STRING_EQUAL(nm, "max:mfu");
    CU_ASSERT_FALSE(prism_objectives_parse("step_time,stepp_time", o, &n, &error));
    CU_ASSERT_TRUE(error && error->code == PRISM_INPUT_ERROR_UNKNOWN_NAME &&
                   strstr(error->message, "step_time") != NULL);
    g_clear_error(&error);
    CU_ASSERT_FALSE(prism_objectives_parse("step,step_time", o, &n, &error));
    CU_ASSERT_TRUE(error && error->code == PRISM_INPUT_ERROR_CONFLICT);
    g_clear_error(&error);
    CU_ASSERT_TRUE(prism_test_all(TRUE));
}

static CU_TestInfo search_tests[] = {
    {"objective parsing", test_objective_parse},
    {"weighted partition of jobs", test_partition},
    {"driver == brute force (dense)", test_brute_dense},
    {"driver == brute force (MoE, device list)", test_brute_moe_devices},
    {"driver == brute force (every dim an objective)", test_brute_dim_objectives},
    {"sink contract", test_sink},
    {"sink error and stop fail every rank", test_failures},
    CU_TEST_INFO_NULL,
};

static int search_cleanup(void)
{
    memo_clear();
    return 0;
}

CU_SuiteInfo prism_test_suites[] = {
    {"search", NULL, search_cleanup, NULL, NULL, search_tests},
    CU_SUITE_INFO_NULL,
};
