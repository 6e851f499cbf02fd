// SPDX-License-Identifier: MIT
/*
 * test_kernels.c - every compiled ISA against the scalar reference, bit for bit, and the
 * fast candidate-stage path against the all-stages segment, bit for bit.
 *
 * Suites (CTest registers each one separately, see tests/cmake/cost.cmake):
 *   kernels_isa       PRISM_ISA=<isa>: >= 1,000,000 random valid strategies drawn from
 *                     EVERY zoo model (random segment keys; lanes sampled from every
 *                     (tp, cp, ep, sp, mbs, zero) that passes prism_strategy_check), in
 *                     batches whose sizes are not multiples of the vector width or tile,
 *                     compared with memcmp against the scalar kernel; the same batches
 *                     through a lean evaluator of the ISA (prism_evaluator_set_lean) give
 *                     the scalar full run's bits in every column it writes
 *                     (prism_cost_col_lean), and the same static bytes per lane
 *                     (prism_evaluator_run_static, the search's pruning bound), which are
 *                     <= the peak. Exit 77 (skip) only when this CPU cannot run
 *                     the ISA; an ISA missing from the build fails.
 *   kernels_cands     the candidate-stage segment against all_stages = TRUE, memcmp.
 *   kernels_dispatch  what "auto" picks, unknown and unsupported names, PRISM_ISA.
 * The random seed is printed; PRISM_TEST_SEED=N reproduces a run.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <mpi.h>

#include <prism/core.h>
#include <prism/cost.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

static guint32 seed(void)
{
    const char *e = g_getenv("PRISM_TEST_SEED");
    guint32 s = e ? (guint32)g_ascii_strtoull(e, NULL, 10) : 20261129u;
    printf("\n  seed %u (PRISM_TEST_SEED)\n", s);
    return s;
}

typedef struct Cols {
    double *buf;
    PrismCostOut out;
} Cols;

static void cols_init(Cols *c, size_t n)
{
    c->buf = prism_aligned_new(n * PRISM_COL_COUNT, sizeof(double));
    for (int k = 0; k < PRISM_COL_COUNT; k++)
        c->out.col[k] = c->buf + (size_t)k * n;
}

/* First differing column of two evaluations, or -1. */
static int first_diff(const Cols *a, const Cols *b, size_t n, size_t *lane)
{
    for (int k = 0; k < PRISM_COL_COUNT; k++)
        if (memcmp(a->out.col[k], b->out.col[k], n * sizeof(double)) != 0) {
            for (size_t i = 0; i < n; i++)
                if (memcmp(&a->out.col[k][i], &b->out.col[k][i], sizeof(double)) != 0) {
                    *lane = i;
                    break;
                }
            return k;
        }
    return -1;
}

static void report(const PrismCostModel *cm, const TestBatch *b, int col, size_t lane,
                   const Cols *x, const Cols *y, const char *what)
{
    fprintf(stderr,
            "\n  %s differs: model %s devices %u pp %u vpp %u schedule %u rc %u/%u lane %zu "
            "(tp %g cp %g dp %g ep %g sp %g mbs %g m %g zero %g etp %g) column %s: %.17g vs "
            "%.17g\n",
            what, prism_cost_model_model(cm)->name, b->key.devices, b->key.pp, b->key.vpp,
            b->key.schedule, b->key.recompute, b->key.rc_layers, lane, b->tp[lane], b->cp[lane],
            b->dp[lane], b->ep[lane], b->sp[lane], b->mbs[lane], b->m[lane], b->zero[lane],
            b->etp[lane], prism_col_info((PrismCostCol)col)->name, x->out.col[col][lane],
            y->out.col[col][lane]);
}

static int suite_isa_init(void)
{
    const char *isa = g_getenv("PRISM_ISA");
    if (isa == NULL || *isa == '\0' || g_ascii_strcasecmp(isa, "auto") == 0)
        return 0;
    gboolean compiled = FALSE;
    for (size_t i = 0; i < prism_kernel_isa_count(); i++)
        compiled |= g_ascii_strcasecmp(prism_kernel_isa_name(i), isa) == 0;
    if (!compiled) { /* CTest registers only compiled ISAs: this is a broken build */
        fprintf(stderr, "test_kernels: ISA '%s' is not compiled into this build\n", isa);
        return 1;
    }
    if (!prism_kernel_isa_supported(isa)) {
        printf("test_kernels: this CPU cannot run the '%s' kernels: skipped\n", isa);
        fflush(stdout);
        MPI_Finalize();
        exit(77);
    }
    return 0;
}

/* First lean column (prism_cost_col_lean) where @p a differs from @p b, or -1. */
static int first_lean_diff(const Cols *a, const Cols *b, size_t n, size_t *lane)
{
    for (int k = 0; k < PRISM_COL_COUNT; k++)
        for (size_t i = 0; prism_cost_col_lean((PrismCostCol)k) && i < n; i++)
            if (memcmp(&a->out.col[k][i], &b->out.col[k][i], sizeof(double)) != 0) {
                *lane = i;
                return k;
            }
    return -1;
}

/* Draw batches from every zoo model until at least @p target strategies. */
static void run_isa(size_t target)
{
    GError *error = NULL;
    const PrismKernelTable *kt = prism_kernel_table_get(NULL, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kt);
    const PrismKernelTable *ref = prism_kernel_table_get("scalar", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    printf("  isa %s against scalar\n", prism_kernel_table_name(kt));
    GRand *rng = g_rand_new_with_seed(seed());
    const size_t n_models = prism_model_zoo_size();
    const size_t per_model = (target + n_models - 1) / n_models;
    const size_t max_batch = 1400;
    Cols a, b, c;
    cols_init(&a, max_batch);
    cols_init(&b, max_batch);
    cols_init(&c, max_batch);
    double *stat_ref = g_new(double, max_batch), *stat_isa = g_new(double, max_batch);
    size_t total = 0, batches = 0, fails = 0, lean_fails = 0, stat_fails = 0, tails = 0;
    for (size_t mi = 0; mi < n_models; mi++) {
        g_autoptr(PrismCostModel) cm = test_zoo_cost_model(mi, rng);
        g_autoptr(PrismEvaluator) ev = prism_evaluator_new(cm, kt, max_batch);
        g_autoptr(PrismEvaluator) er = prism_evaluator_new(cm, ref, max_batch);
        g_autoptr(PrismEvaluator) el = prism_evaluator_new(cm, kt, max_batch);
        prism_evaluator_set_lean(el, TRUE);
        size_t done = 0;
        while (done < per_model) {
            TestBatch tb;
            /* sizes in [600, 1400): never all multiples of 8, 16 or the 256-lane tile */
            const size_t n = (size_t)g_rand_int_range(rng, 600, (gint32)max_batch);
            if (!test_random_batch(cm, rng, n, &tb))
                continue;
            g_autoptr(PrismCostSegment) seg = prism_cost_segment_new(cm, &tb.key, FALSE, &error);
            CU_ASSERT_PTR_NOT_NULL_FATAL(seg);
            memset(a.buf, 0xA5, max_batch * PRISM_COL_COUNT * sizeof(double));
            memset(b.buf, 0x5A, max_batch * PRISM_COL_COUNT * sizeof(double));
            memset(c.buf, 0xC3, max_batch * PRISM_COL_COUNT * sizeof(double));
            prism_evaluator_run(ev, seg, &tb.lanes, &a.out);
            prism_evaluator_run_static(er, seg, &tb.lanes, &b.out, stat_ref);
            prism_evaluator_run_static(el, seg, &tb.lanes, &c.out, stat_isa);
            gboolean stat_ok = memcmp(stat_ref, stat_isa, n * sizeof(double)) == 0;
            for (size_t i = 0; i < n; i++)
                stat_ok =
                    stat_ok && stat_ref[i] <= b.out.col[PRISM_COL_MEM_PEAK][i] && stat_ref[i] > 0.0;
            stat_fails += !stat_ok;
            size_t lane = 0;
            const int col = first_diff(&a, &b, n, &lane);
            if (col >= 0) {
                if (fails++ < 5)
                    report(cm, &tb, col, lane, &a, &b, prism_kernel_table_name(kt));
            }
            const int lcol = first_lean_diff(&c, &b, n, &lane);
            if (lcol >= 0) {
                if (lean_fails++ < 5)
                    report(cm, &tb, lcol, lane, &c, &b, "lean");
            }
            tails += n % 16 != 0;
            done += n;
            batches++;
            test_batch_clear(&tb);
        }
        total += done;
    }
    printf("  %zu strategies in %zu batches (%zu with a tail) from %zu models, %zu batches "
           "differ, %zu lean batches differ, %zu static-bytes batches differ\n",
           total, batches, tails, n_models, fails, lean_fails, stat_fails);
    CU_ASSERT_EQUAL(fails, 0);
    CU_ASSERT_EQUAL(lean_fails, 0);
    CU_ASSERT_EQUAL(stat_fails, 0);
    g_free(stat_ref);
    g_free(stat_isa);
    CU_ASSERT_TRUE(total >= target);
    CU_ASSERT_TRUE(tails > 0);
    prism_aligned_free(a.buf);
    prism_aligned_free(b.buf);
    prism_aligned_free(c.buf);
    g_rand_free(rng);
}

/* 10^6 strategies; the sanitizer pass, which looks for memory errors in the same code
 * paths (every model, batch sizes with tails), draws 10^5. */
static void test_isa_bit_identical(void)
{
    run_isa(prism_test_sanitized() ? 100000 : 1000000);
}

/* The fast path keeps only candidate stages; all_stages keeps every stage. */
static void test_candidates_exact(void)
{
    GError *error = NULL;
    const PrismKernelTable *ref = prism_kernel_table_get("scalar", &error);
    GRand *rng = g_rand_new_with_seed(seed() + 1);
    const size_t max_batch = 300;
    Cols a, b;
    cols_init(&a, max_batch);
    cols_init(&b, max_batch);
    size_t total = 0, fails = 0, pruned = 0, segs = 0;
    for (size_t mi = 0; mi < prism_model_zoo_size(); mi++) {
        g_autoptr(PrismCostModel) cm = test_zoo_cost_model(mi, rng);
        g_autoptr(PrismEvaluator) ev = prism_evaluator_new(cm, ref, max_batch);
        /* 12 random segments a model; 2 in the sanitizer pass */
        for (int k = 0; k < (prism_test_sanitized() ? 2 : 12); k++) {
            TestBatch tb;
            const size_t n = (size_t)g_rand_int_range(rng, 50, (gint32)max_batch);
            if (!test_random_batch(cm, rng, n, &tb))
                continue;
            g_autoptr(PrismCostSegment) fast = prism_cost_segment_new(cm, &tb.key, FALSE, &error);
            g_autoptr(PrismCostSegment) all = prism_cost_segment_new(cm, &tb.key, TRUE, &error);
            CU_ASSERT_PTR_NOT_NULL_FATAL(fast);
            CU_ASSERT_PTR_NOT_NULL_FATAL(all);
            /* every stage keeps at least one state; interleaved stages may keep several */
            CU_ASSERT_TRUE(prism_cost_segment_n_candidates(all) >= tb.key.pp);
            pruned += prism_cost_segment_n_candidates(fast) < prism_cost_segment_n_candidates(all);
            prism_evaluator_run(ev, fast, &tb.lanes, &a.out);
            prism_evaluator_run(ev, all, &tb.lanes, &b.out);
            size_t lane = 0;
            const int col = first_diff(&a, &b, n, &lane);
            if (col >= 0 && fails++ < 5)
                report(cm, &tb, col, lane, &a, &b, "candidate path");
            total += n;
            segs++;
            test_batch_clear(&tb);
        }
    }
    printf("  %zu strategies, %zu segments (%zu with pruned stages), %zu differ\n", total, segs,
           pruned, fails);
    CU_ASSERT_EQUAL(fails, 0);
    CU_ASSERT_TRUE(pruned > segs / 4);
    prism_aligned_free(a.buf);
    prism_aligned_free(b.buf);
    g_rand_free(rng);
}

static void test_dispatch(void)
{
    GError *error = NULL;
    /* auto = the widest compiled ISA this CPU runs */
    const char *expect = "scalar";
    for (size_t i = 0; i < prism_kernel_isa_count(); i++)
        if (prism_kernel_isa_supported(prism_kernel_isa_name(i)))
            expect = prism_kernel_isa_name(i);
    const PrismKernelTable *kt = prism_kernel_table_get("auto", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kt);
    CU_ASSERT_STRING_EQUAL(prism_kernel_table_name(kt), expect);
    printf("\n  auto -> %s (compiled:", expect);
    for (size_t i = 0; i < prism_kernel_isa_count(); i++)
        printf(" %s%s", prism_kernel_isa_name(i),
               prism_kernel_isa_supported(prism_kernel_isa_name(i)) ? "" : "(unsupported)");
    printf(")\n");
    /* scalar is always there */
    CU_ASSERT_TRUE(prism_kernel_isa_supported("scalar"));
    CU_ASSERT_STRING_EQUAL(prism_kernel_isa_name(0), "scalar");
    kt = prism_kernel_table_get("SCALAR", &error);
    CU_ASSERT_TRUE(kt != NULL && strcmp(prism_kernel_table_name(kt), "scalar") == 0);
    /* unknown names are input errors, never a crash */
    CU_ASSERT_PTR_NULL(prism_kernel_table_get("sse9", &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
    CU_ASSERT_TRUE(error != NULL && strstr(error->message, "sse9") != NULL);
    g_clear_error(&error);
    /* an ISA this CPU lacks is an error too (checked for each one that is unsupported) */
    static const char *const all[] = {"avx2", "avx512"};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        kt = prism_kernel_table_get(all[i], &error);
        CU_ASSERT_EQUAL(kt != NULL, prism_kernel_isa_supported(all[i]));
        CU_ASSERT_EQUAL(error != NULL, !prism_kernel_isa_supported(all[i]));
        g_clear_error(&error);
    }
    /* NULL reads PRISM_ISA */
    const char *old = g_getenv("PRISM_ISA");
    g_autofree char *saved = old ? g_strdup(old) : NULL;
    g_setenv("PRISM_ISA", "scalar", TRUE);
    kt = prism_kernel_table_get(NULL, &error);
    CU_ASSERT_TRUE(kt != NULL && strcmp(prism_kernel_table_name(kt), "scalar") == 0);
    g_setenv("PRISM_ISA", "bogus", TRUE);
    CU_ASSERT_PTR_NULL(prism_kernel_table_get(NULL, &error));
    CU_ASSERT_TRUE(error != NULL && strstr(error->message, "PRISM_ISA") != NULL);
    g_clear_error(&error);
    if (saved)
        g_setenv("PRISM_ISA", saved, TRUE);
    else
        g_unsetenv("PRISM_ISA");
}

static CU_TestInfo isa_tests[] = {
    {"every ISA bit-identical to scalar on 1e6 strategies", test_isa_bit_identical},
    CU_TEST_INFO_NULL,
};
static CU_TestInfo cand_tests[] = {
    {"candidate stages == all stages, bit for bit", test_candidates_exact},
    CU_TEST_INFO_NULL,
};
static CU_TestInfo dispatch_tests[] = {
    {"dispatch: auto, names, PRISM_ISA, unsupported", test_dispatch},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"kernels_isa", suite_isa_init, NULL, NULL, NULL, isa_tests},
    {"kernels_cands", NULL, NULL, NULL, NULL, cand_tests},
    {"kernels_dispatch", NULL, NULL, NULL, NULL, dispatch_tests},
    CU_SUITE_INFO_NULL,
};
