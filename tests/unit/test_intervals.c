// SPDX-License-Identifier: MIT
/*
 * test_intervals.c - the knob ranges' corners (cost_ranges.c) against hand-derived knob
 * values and an independently built model, one strategy per pipeline schedule; the
 * equivalence rule, the simplicity order, the memory class and the pick (cost_pick.c).
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/ranges.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

#define NEAR(a, b) CU_ASSERT_TRUE(fabs((a) - (b)) <= 1e-12 * fabs(b))

/*
 * The corners of the H100-SXM preset (peak clock 1830 MHz, sustained 1830 MHz,
 * gemm_efficiency 0.8) under the default knobs, by hand:
 *   slow: clock min(1830, 1575/1830 x 1830) = 1575 MHz; compute_efficiency 0.8 x 1 = 0.8;
 *         net_efficiency 0.8 x (200/300) / 0.8 = 0.6667; hbm_efficiency 0.8 x 0.8/0.8 = 0.8;
 *         dp_overlap 0.5 x 0 / 0.5 = 0; cuda_context 3e8 x 4e8/3e8 = 4e8;
 *         allocator_reserve 0.343 x 0.420/0.343 = 0.42; launch_us 8 x 10/8 = 10.
 *   fast: clock max(1830, 1980/1830 x 1830) = 1980 MHz; compute_efficiency 0.8 x 1.08 = 0.864;
 *         net_efficiency 0.96; hbm_efficiency 0.9; dp_overlap 0.9; cuda_context 3e8;
 *         allocator_reserve 0.300; launch_us 8 x 3.8/8 = 3.8.
 */
static void test_corner_values(void)
{
    g_autoptr(PrismCluster) c0 = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
    CU_ASSERT_EQUAL(c0->boost_clock_mhz, 1830);
    CU_ASSERT_EQUAL(c0->sustained_clock_mhz, 1830);
    NEAR(c0->gemm_efficiency, 0.8);
    const struct {
        PrismCorner corner;
        double mhz, ce, ne, he, dpo, cc, ar, lu;
    } want[] = {{PRISM_CORNER_SLOW, 1575, 0.8, 200.0 / 300.0, 0.8, 0.0, 4e8, 0.42, 10.0},
                {PRISM_CORNER_FAST, 1980, 0.864, 0.96, 0.9, 0.9, 3e8, 0.3, 3.8}};
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        PrismCluster c = *c0;
        PrismKnobs k;
        prism_knobs_default(&k);
        prism_corner_apply(want[i].corner, TRUE, TRUE, &k, &c);
        NEAR(c.sustained_clock_mhz, want[i].mhz);
        NEAR(k.v[PRISM_KNOB_COMPUTE_EFFICIENCY], want[i].ce);
        NEAR(k.v[PRISM_KNOB_NET_EFFICIENCY], want[i].ne);
        NEAR(k.v[PRISM_KNOB_HBM_EFFICIENCY], want[i].he);
        CU_ASSERT_TRUE(fabs(k.v[PRISM_KNOB_DP_OVERLAP] - want[i].dpo) <= 1e-12);
        NEAR(k.v[PRISM_KNOB_CUDA_CONTEXT], want[i].cc);
        NEAR(k.v[PRISM_KNOB_ALLOCATOR_RESERVE], want[i].ar);
        NEAR(k.v[PRISM_KNOB_LAUNCH_US], want[i].lu);
    }
    /* time only: the memory knobs stay */
    PrismCluster c = *c0;
    PrismKnobs k;
    prism_knobs_default(&k);
    prism_corner_apply(PRISM_CORNER_SLOW, TRUE, FALSE, &k, &c);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_CUDA_CONTEXT], 3e8);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_ALLOCATOR_RESERVE], 0.343);
}

/*
 * The clock range's optimistic end never exceeds what the part runs under load at its
 * power limit (its high end is 1980/1830 = 1.08197 of the peak's clock):
 *   B200-750W (peak clock 1856, held 1437, max 1451): fast min(1.08197 x 1856 = 2008.1,
 *     1451) = 1451; slow min(1437, 1575/1830 x 1856 = 1597.4) = 1437.
 *   A100-80GB (1410, 1410, max 1410): fast min(1.08197 x 1410 = 1525.6, 1410) = 1410.
 *   H100-SXM (1830, 1830, max 1980): fast 1980, the range's own end.
 *   B200-750W without max_clock_mhz: a part held below its peak's clock runs no faster
 *     than that clock: min(2008.1, 1856) = 1856.
 *   B200 (1856, 1856, not given): at full power the range's end stands: 1980/1830 x 1856.
 */
static void test_clock_max(void)
{
    const struct {
        const char *preset;
        double max, fast, slow;
    } want[] = {{"B200-750W", -1, 1451, 1437},
                {"A100-80GB", -1, 1410, 1575.0 / 1830.0 * 1410},
                {"H100-SXM", -1, 1980, 1575},
                {"B200-750W", 0, 1856, 1437},
                {"B200", -1, 1980.0 / 1830.0 * 1856, 1575.0 / 1830.0 * 1856}};
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        g_autoptr(PrismCluster) c0 = prism_cluster_preset(want[i].preset, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
        if (want[i].max >= 0)
            c0->max_clock_mhz = want[i].max;
        const PrismCorner corners[] = {PRISM_CORNER_FAST, PRISM_CORNER_SLOW};
        const double mhz[] = {want[i].fast, want[i].slow};
        for (size_t j = 0; j < G_N_ELEMENTS(corners); j++) {
            PrismCluster c = *c0;
            PrismKnobs k;
            prism_knobs_default(&k);
            prism_corner_apply(corners[j], TRUE, FALSE, &k, &c);
            NEAR(c.sustained_clock_mhz, mhz[j]);
        }
    }
}

/*
 * One strategy per schedule (GPT 8 x 1024 on 8 H100, pp 2): each corner's step equals the
 * step of a model built from the hand-derived values above (--set and the clock written
 * by hand), step_lo < step < step_hi. Memory is the device figure A + (A - P) x
 * allocator_reserve + cuda_context + NCCL's buffers of the allocated peak A with P of it
 * persistent, which the ranged knobs leave alone: mem = A + 0.343 (A - P) + 3e8 + nccl and
 * mem_hi = A + 0.42 (A - P) + 4e8 + nccl, so mem_hi - mem = 0.077 (A - P) + 1e8.
 */
static void test_corner_steps(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 1024, 16, 32000);
    g_autoptr(PrismCluster) h = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, h, 64, 2048, PRISM_DTYPE_BF16, NULL);
    g_autoptr(PrismCorners) co = prism_corners_new(cm, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(co);
    const char *const slow_sets[] = {"compute_efficiency=0.8", "net_efficiency=0.66666666666666663",
                                     "hbm_efficiency=0.8",     "dp_overlap=0",
                                     "allocator_reserve=0.42", "cuda_context=4e8",
                                     "launch_us=10",           NULL};
    const char *const fast_sets[] = {
        "compute_efficiency=0.864", "net_efficiency=0.96", "hbm_efficiency=0.9",
        "dp_overlap=0.9",           "launch_us=3.8",       NULL};
    PrismCluster hs = *h, hf = *h;
    hs.sustained_clock_mhz = 1575;
    hf.sustained_clock_mhz = 1980;
    g_autoptr(PrismCostModel) slow =
        test_cost_model_on(m, &hs, 64, 2048, PRISM_DTYPE_BF16, slow_sets);
    g_autoptr(PrismCostModel) fast =
        test_cost_model_on(m, &hf, 64, 2048, PRISM_DTYPE_BF16, fast_sets);
    const char *const strategies[] = {
        "tp=2,pp=2,mbs=1,schedule=1f1b", "tp=2,pp=2,vpp=2,mbs=1,schedule=interleaved",
        "tp=2,pp=2,mbs=1,schedule=gpipe", "tp=2,pp=2,mbs=1,schedule=zb-h1",
        "tp=1,pp=2,vpp=2,mbs=1,schedule=zb-v"};
    for (size_t i = 0; i < G_N_ELEMENTS(strategies); i++) {
        PrismStrategy s = test_strategy(cm, 8, strategies[i]);
        double p[PRISM_COL_COUNT], ps[PRISM_COL_COUNT], pf[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, p, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(slow, &s, ps, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(fast, &s, pf, NULL));
        PrismInterval iv;
        CU_ASSERT_TRUE_FATAL(prism_corners_eval(co, &s, p, &iv, NULL));
        NEAR(iv.corner[PRISM_CORNER_SLOW], ps[PRISM_COL_TIME_STEP]);
        NEAR(iv.corner[PRISM_CORNER_FAST], pf[PRISM_COL_TIME_STEP]);
        CU_ASSERT_EQUAL(iv.step, p[PRISM_COL_TIME_STEP]);
        CU_ASSERT_TRUE(iv.step_lo < iv.step && iv.step < iv.step_hi);
        CU_ASSERT_EQUAL(iv.step_hi, iv.corner[PRISM_CORNER_SLOW]); /* no widening */
        CU_ASSERT_EQUAL(ps[PRISM_COL_MEM_PEAK], p[PRISM_COL_MEM_PEAK]);
        PrismMemKinds mk;
        prism_cost_memory_kinds(cm, &s, p[PRISM_COL_MEM_PEAK], prism_cost_persistent(p), &mk);
        NEAR(iv.mem, mk.device);
        NEAR(iv.mem_hi, iv.mem + 0.077 * (p[PRISM_COL_MEM_PEAK] - prism_cost_persistent(p)) + 1e8);
    }
    /* widening by a record's mean |pred - meas| / meas: a run w too fast took pred / (1 - w),
     * one w too slow pred / (1 + w): step_lo / 1.25, step_hi / 0.75, mem_hi / 0.9 */
    PrismStrategy s = test_strategy(cm, 8, strategies[0]);
    double p[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, p, NULL));
    PrismInterval a, b;
    CU_ASSERT_TRUE_FATAL(prism_corners_eval(co, &s, p, &a, NULL));
    co->widen_step = 0.25;
    co->widen_mem = 0.1;
    CU_ASSERT_TRUE_FATAL(prism_corners_eval(co, &s, p, &b, NULL));
    NEAR(b.step_lo, a.step_lo / 1.25);
    NEAR(b.step_hi, a.step_hi / 0.75);
    NEAR(b.mem_hi, a.mem_hi / 0.9);
}

static PrismInterval iv3(double step, double fast, double slow)
{
    return (PrismInterval){.step = step, .corner = {fast, slow}};
}

/*
 * Equivalence: b/a at the same corners. a = 10 (8 fast, 13 slow).
 *   b = 10.3 (8.4, 13.1): ratios 1.03, 1.05, 1.0077: the least exceeds 1, not equivalent
 *       with no tolerance; with 0.01 it is (1.0077 <= 1.01); with 0.007 not.
 *   c = 10.2 (7.9, 13.3): at the fast corner 7.9/8 = 0.9875 < 1: the order flips within
 *       the ranges, equivalent.
 */
static void test_equivalence(void)
{
    const PrismInterval a = iv3(10, 8, 13), b = iv3(10.3, 8.4, 13.1), c = iv3(10.2, 7.9, 13.3);
    CU_ASSERT_FALSE(prism_interval_equivalent(&a, &b, 0.0));
    CU_ASSERT_TRUE(prism_interval_equivalent(&a, &b, 0.01));
    CU_ASSERT_FALSE(prism_interval_equivalent(&a, &b, 0.007));
    CU_ASSERT_TRUE(prism_interval_equivalent(&a, &c, 0.0));
    CU_ASSERT_TRUE(prism_interval_equivalent(&a, &a, 0.0));
    /* the intervals must overlap as well: with a's 8-13 s, c's 7.9-13.3 s do, a d of the
     * same ratios as c whose interval starts at 13.5 s (beyond a's 13) does not */
    PrismInterval wa = a, wc = c, wd = c;
    wa.step_lo = 8, wa.step_hi = 13;
    wc.step_lo = 7.9, wc.step_hi = 13.3;
    wd.step_lo = 13.5, wd.step_hi = 14;
    CU_ASSERT_TRUE(prism_interval_equivalent(&wa, &wc, 0.0));
    CU_ASSERT_FALSE(prism_interval_equivalent(&wa, &wd, 0.0));
    CU_ASSERT_FALSE(prism_interval_equivalent(&wd, &wa, 0.5));
}

static void test_simplicity(void)
{
    PrismSimplicity def, pp_first;
    CU_ASSERT_TRUE_FATAL(prism_simplicity_parse(NULL, &def, NULL));
    g_autofree char *t = prism_simplicity_text(&def);
    CU_ASSERT_STRING_EQUAL(t, PRISM_SIMPLICITY_DEFAULT);
    CU_ASSERT_TRUE_FATAL(prism_simplicity_parse("pp, offload", &pp_first, NULL));
    g_autofree char *t2 = prism_simplicity_text(&pp_first);
    CU_ASSERT_STRING_EQUAL(t2, "pp,offload,schedule,vpp,cp,zero,recompute,tp,ep");
    const PrismStrategy off = {.pp = 1, .vpp = 1, .tp = 8, .cp = 1, .ep = 1, .offload = 1};
    const PrismStrategy pipe = {
        .pp = 4, .vpp = 2, .tp = 8, .cp = 1, .ep = 1, .schedule = PRISM_SCHEDULE_INTERLEAVED};
    const PrismStrategy pipe1 = {.pp = 4, .vpp = 1, .tp = 8, .cp = 1, .ep = 1};
    const PrismStrategy zb = {
        .pp = 4, .vpp = 1, .tp = 8, .cp = 1, .ep = 1, .schedule = PRISM_SCHEDULE_ZB_H1};
    CU_ASSERT_TRUE(prism_simplicity_cmp(&def, &pipe, &off) < 0);      /* no offload first */
    CU_ASSERT_TRUE(prism_simplicity_cmp(&pp_first, &off, &pipe) < 0); /* fewer stages first */
    CU_ASSERT_TRUE(prism_simplicity_cmp(&def, &pipe1, &pipe) < 0);    /* 1F1B < interleaved */
    CU_ASSERT_TRUE(prism_simplicity_cmp(&def, &pipe, &zb) < 0);       /* < zero bubble */
    CU_ASSERT_EQUAL(prism_simplicity_cmp(&def, &pipe, &pipe), 0);
    const PrismStrategy sel = {
        .pp = 1, .vpp = 1, .tp = 8, .cp = 1, .ep = 1, .recompute = PRISM_RECOMPUTE_SELECTIVE};
    const PrismStrategy full = {
        .pp = 1, .vpp = 1, .tp = 8, .cp = 1, .ep = 1, .recompute = PRISM_RECOMPUTE_FULL};
    CU_ASSERT_TRUE(prism_simplicity_cmp(&def, &sel, &full) < 0); /* less recompute */
    GError *e = NULL;
    CU_ASSERT_FALSE(prism_simplicity_parse("pp,bogus", &def, &e));
    CU_ASSERT_PTR_NOT_NULL(e != NULL ? strstr(e->message, "'bogus' is not a moving part") : NULL);
    g_clear_error(&e);
    CU_ASSERT_FALSE(prism_simplicity_parse("pp,pp", &def, &e));
    CU_ASSERT_PTR_NOT_NULL(e != NULL ? strstr(e->message, "named twice") : NULL);
    g_clear_error(&e);
}

/* Memory class against usable 72: mem 70 / mem_hi 71 fits; 70 / 75 at risk; 73 does not. */
static void test_mem_class(void)
{
    const PrismInterval fits = {.mem = 70, .mem_hi = 71}, risk = {.mem = 70, .mem_hi = 75},
                        no = {.mem = 73, .mem_hi = 76}, edge = {.mem = 70, .mem_hi = 72};
    CU_ASSERT_EQUAL(prism_mem_class(&fits, 72), PRISM_MEM_FITS);
    CU_ASSERT_EQUAL(prism_mem_class(&risk, 72), PRISM_MEM_AT_RISK);
    CU_ASSERT_EQUAL(prism_mem_class(&no, 72), PRISM_MEM_NO_FIT);
    CU_ASSERT_EQUAL(prism_mem_class(&edge, 72), PRISM_MEM_FITS);
    CU_ASSERT_STRING_EQUAL(prism_mem_class_name(PRISM_MEM_AT_RISK), "at risk");
}

/*
 * The pick among four ranked strategies: #1 offloads; #2 (no offload, pp 4) flips with #1
 * at the fast corner; #3 (pp 1, no offload) is 30 % slower at every corner (not
 * equivalent); #4 (pp 2) flips with #1 at the slow corner, the lowest step_hi.
 */
static void test_pick(void)
{
    const PrismStrategy s[4] = {{.pp = 4, .vpp = 1, .tp = 8, .cp = 1, .ep = 1, .offload = 1},
                                {.pp = 4, .vpp = 1, .tp = 8, .cp = 1, .ep = 1},
                                {.pp = 1, .vpp = 1, .tp = 8, .cp = 1, .ep = 1},
                                {.pp = 2, .vpp = 1, .tp = 8, .cp = 1, .ep = 1}};
    PrismInterval iv[4] = {iv3(10, 8, 13), iv3(10.1, 7.95, 13.2), iv3(13, 10.4, 16.9),
                           iv3(10.2, 8.3, 12.9)};
    for (int i = 0; i < 4; i++) {
        iv[i].step_lo = iv[i].corner[0];
        iv[i].step_hi = iv[i].corner[1];
    }
    PrismSimplicity def;
    CU_ASSERT_TRUE_FATAL(prism_simplicity_parse(NULL, &def, NULL));
    gboolean eq[4];
    CU_ASSERT_EQUAL(prism_pick(PRISM_PICK_FASTEST, &def, s, iv, 4, 0, NULL, eq), 0);
    CU_ASSERT_TRUE(eq[0] && eq[1] && !eq[2] && eq[3]);
    CU_ASSERT_EQUAL(prism_pick(PRISM_PICK_SIMPLEST, &def, s, iv, 4, 0, NULL, eq), 3);
    CU_ASSERT_EQUAL(prism_pick(PRISM_PICK_ROBUST, &def, s, iv, 4, 0, NULL, eq), 3);
    /* #4 at memory risk: the simplest of the others that fit */
    const gboolean risky[4] = {FALSE, FALSE, FALSE, TRUE};
    CU_ASSERT_EQUAL(prism_pick(PRISM_PICK_SIMPLEST, &def, s, iv, 4, 0, risky, eq), 1);
    PrismPick p;
    CU_ASSERT_TRUE(prism_pick_parse("robust", &p, NULL) && p == PRISM_PICK_ROBUST);
    CU_ASSERT_FALSE(prism_pick_parse("best", &p, NULL));
}

static CU_TestInfo interval_tests[] = {
    {"corner knob values by hand", test_corner_values},
    {"the clock's maximum", test_clock_max},
    {"corner steps per schedule", test_corner_steps},
    {"equivalence", test_equivalence},
    {"simplicity order", test_simplicity},
    {"memory class", test_mem_class},
    {"pick", test_pick},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"intervals", NULL, NULL, NULL, NULL, interval_tests},
    CU_SUITE_INFO_NULL,
};
