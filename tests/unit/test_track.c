// SPDX-License-Identifier: MIT
/*
 * test_track.c - the track record (validate.h) on hand-made validation rows: which rows
 * match (device family, profile, kind, OOM), the sign of the speed error per metric
 * (step time, TFLOP/s, MFU) and of the memory error, and the means and worst, derived by
 * hand below. The end-to-end check against `prism validate --json` is tests/cli/plan.sh.
 * The order statistic (prism_validate_order) on hand-made groups: pairs, measured ties,
 * predicted ties, the speed metric of a pair and of a group, the fastest row; its
 * end-to-end check against an independent count is tests/cli/validate.sh.
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/validate.h>

#include "prism_test_util.h"

#define NEAR(a, b) CU_ASSERT_DOUBLE_EQUAL((a), (b), 1e-9)

static void row_free(gpointer p)
{
    PrismValidateRow *r = p;
    g_free(r->source);
    g_free(r->model);
    g_free(r->cluster);
    g_free(r->framework);
    g_free(r->strategy);
    g_free(r->dtype);
    g_free(r);
}

/* A row with one metric measured and predicted; err as prism_validate_run sets it. */
static PrismValidateRow *row(const char *source, const char *cluster, const char *fw,
                             PrismValidateKind kind, int metric, double pred, double meas)
{
    PrismValidateRow *r = g_new0(PrismValidateRow, 1);
    r->source = g_strdup(source);
    r->cluster = g_strdup(cluster);
    r->framework = g_strdup(fw);
    r->kind = kind;
    for (int k = 0; k < PRISM_VM_COUNT; k++)
        r->pred[k] = r->meas[k] = r->err[k] = NAN;
    r->pred[metric] = pred;
    r->meas[metric] = meas;
    r->err[metric] = 100.0 * fabs(pred - meas) / meas;
    return r;
}

static void test_family(void)
{
    const char *cases[][2] = {{"H100-SXM", "H100"},  {"H100-96GB-500W", "H100"},
                              {"B200-750W", "B200"}, {"A100-80GB", "A100"},
                              {"H800", "H800"},      {"-odd", "-odd"}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *f = prism_device_family(cases[i][0]);
        CU_ASSERT_STRING_EQUAL(f, cases[i][1]);
    }
}

static void test_hand(void)
{
    PrismValidateReport rep = {.rows = g_ptr_array_new_with_free_func(row_free)};
    GPtrArray *rows = rep.rows;
    /* matching rows (H100 family, profile "fw"):
     * 1. step 2.0 predicted, 2.5 measured: 20 % error, predicted faster -> +20
     * 2. TFLOP/s 300 predicted, 400 measured: 25 %, slower -> -25
     * 3. MFU 0.5 predicted, 0.4 measured (planned row): 25 %, faster -> +25
     * 4. memory 90 predicted, 100 measured: 10 %, less -> -10 (no speed metric) */
    g_ptr_array_add(rows,
                    row("A", "H100-SXM", "fw", PRISM_VALIDATE_PREDICTED, PRISM_VM_STEP, 2.0, 2.5));
    g_ptr_array_add(rows, row("B", "H100-96GB-500W", "fw", PRISM_VALIDATE_PREDICTED,
                              PRISM_VM_TFLOPS, 300, 400));
    g_ptr_array_add(rows,
                    row("A", "H100-SXM", "fw", PRISM_VALIDATE_PLANNED, PRISM_VM_MFU, 0.5, 0.4));
    g_ptr_array_add(rows,
                    row("C", "H100-SXM", "fw", PRISM_VALIDATE_PREDICTED, PRISM_VM_MEM, 90, 100));
    /* left out: other family, other profile, skipped, OOM */
    g_ptr_array_add(rows,
                    row("D", "A100-80GB", "fw", PRISM_VALIDATE_PREDICTED, PRISM_VM_STEP, 1, 2));
    g_ptr_array_add(rows,
                    row("E", "H100-SXM", "other", PRISM_VALIDATE_PREDICTED, PRISM_VM_STEP, 1, 2));
    g_ptr_array_add(rows, row("F", "H100-SXM", "fw", PRISM_VALIDATE_SKIPPED, PRISM_VM_STEP, 1, 2));
    PrismValidateRow *oom =
        row("G", "H100-SXM", "fw", PRISM_VALIDATE_PREDICTED, PRISM_VM_STEP, 1, 2);
    oom->oom = TRUE;
    g_ptr_array_add(rows, oom);

    g_autoptr(PrismTrackRecord) t = prism_track_record_new("H100", "fw");
    prism_track_record_add(t, &rep);
    prism_track_record_finish(t);
    CU_ASSERT_EQUAL(t->rows, 4);
    CU_ASSERT_EQUAL(t->speed.n, 3);
    NEAR(t->speed.mean_signed, (20.0 - 25.0 + 25.0) / 3); /* 6.667: faster on average */
    NEAR(t->speed.mean_abs, (20.0 + 25.0 + 25.0) / 3);
    NEAR(t->speed.worst, 25.0);
    /* sd of 20, -25, 25 about 20/3: sqrt((400 + 625 + 625) / 3 - (20/3)^2) = sqrt(505.56) */
    NEAR(t->speed.sd, sqrt(1650.0 / 3 - 400.0 / 9));
    CU_ASSERT_EQUAL(t->mem.n, 1);
    NEAR(t->mem.sd, 0.0);
    NEAR(t->mem.mean_signed, -10.0);
    NEAR(t->mem.mean_abs, 10.0);
    CU_ASSERT_EQUAL(t->sources->len, 3); /* A, B, C in first-seen order */
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(t->sources, 0), "A");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(t->sources, 2), "C");

    /* any profile: row 6 joins (step 1 vs 2: 50 %, faster -> +50) */
    g_autoptr(PrismTrackRecord) any = prism_track_record_new("H100", NULL);
    prism_track_record_add(any, &rep);
    prism_track_record_finish(any);
    CU_ASSERT_EQUAL(any->rows, 5);
    NEAR(any->speed.mean_signed, (20.0 - 25.0 + 25.0 + 50.0) / 4);
    NEAR(any->speed.worst, 50.0);

    /* a second report adds to the same sums (two CSVs) */
    g_autoptr(PrismTrackRecord) two = prism_track_record_new("H100", "fw");
    prism_track_record_add(two, &rep);
    prism_track_record_add(two, &rep);
    prism_track_record_finish(two);
    CU_ASSERT_EQUAL(two->rows, 8);
    NEAR(two->speed.mean_signed, t->speed.mean_signed);

    /* no match: an empty record, no division */
    g_autoptr(PrismTrackRecord) none = prism_track_record_new("B200", "fw");
    prism_track_record_add(none, &rep);
    prism_track_record_finish(none);
    CU_ASSERT_EQUAL(none->rows, 0);
    CU_ASSERT_EQUAL(none->speed.n, 0);
    NEAR(none->speed.mean_signed, 0.0);
    g_ptr_array_unref(rows);
}

/* A row of workload (model "m", 8 devices, gbs 16, @p seq) on @p cluster for the order. */
static PrismValidateRow *orow(GPtrArray *rows, const char *source, const char *cluster,
                              uint64_t seq, PrismValidateKind kind, int metric, double pred,
                              double meas)
{
    PrismValidateRow *r = row(source, cluster, "fw", kind, metric, pred, meas);
    r->model = g_strdup("m");
    r->devices = 8;
    r->gbs = 16;
    r->seq = seq;
    r->line = (int)rows->len + 2; /* the CSV line it would be on */
    g_ptr_array_add(rows, r);
    return r;
}

static void order_check(const PrismValidateOrder *o, const char *source, int groups, int pairs,
                        int ties, double same, int fg, int fa)
{
    CU_ASSERT_EQUAL(g_strcmp0(o->source, source), 0);
    CU_ASSERT_EQUAL(o->groups, groups);
    CU_ASSERT_EQUAL(o->pairs, pairs);
    CU_ASSERT_EQUAL(o->ties, ties);
    NEAR(o->same, same);
    CU_ASSERT_EQUAL(o->fastest_groups, fg);
    CU_ASSERT_EQUAL(o->fastest_agree, fa);
}

static void test_order(void)
{
    PrismValidateReport rep = {.rows = g_ptr_array_new_with_free_func(row_free)};
    GPtrArray *rows = rep.rows;
    const PrismValidateKind P = PRISM_VALIDATE_PREDICTED;
    /* source A, seq 1024: step times (pred, meas) a1 (1.1, 1.0), a2 (2.5, 2.0), a3 (2.4,
     * 3.0). a1-a2 and a1-a3: a1 faster in both; a2-a3: measured a2 faster, predicted a3
     * (2.4 < 2.5): 2 of 3. Fastest: a1 measured (1.0, next 2.0) and predicted: agrees.
     * A skipped and an OOM row of the group take no part. */
    orow(rows, "A", "H100-SXM", 1024, P, PRISM_VM_STEP, 1.1, 1.0);
    orow(rows, "A", "H100-SXM", 1024, P, PRISM_VM_STEP, 2.5, 2.0);
    orow(rows, "A", "H100-SXM", 1024, PRISM_VALIDATE_PLANNED, PRISM_VM_STEP, 2.4, 3.0);
    orow(rows, "A", "H100-SXM", 1024, PRISM_VALIDATE_SKIPPED, PRISM_VM_STEP, 9.0, 0.1);
    orow(rows, "A", "H100-SXM", 1024, P, PRISM_VM_STEP, 0.1, 9.0)->oom = TRUE;
    /* seq 2048: TFLOP/s measured 100.0 and 100.5, 0.5 % apart: a tie, and no clear
     * fastest row */
    orow(rows, "A", "H100-SXM", 2048, P, PRISM_VM_TFLOPS, 300, 100.0);
    orow(rows, "A", "H100-SXM", 2048, P, PRISM_VM_TFLOPS, 200, 100.5);
    /* seq 4096: MFU measured 0.4 and 0.5, predicted 0.45 both: half a pair; the measured
     * fastest (0.5) is not prism's alone */
    orow(rows, "A", "H100-SXM", 4096, P, PRISM_VM_MFU, 0.45, 0.4);
    orow(rows, "A", "H100-SXM", 4096, P, PRISM_VM_MFU, 0.45, 0.5);
    /* a lone row */
    orow(rows, "A", "H100-SXM", 8192, P, PRISM_VM_STEP, 1.0, 1.0);
    /* source B, seq 1024: step (pred, meas) d1 (1, 2), d2 (2, 1): reversed, fastest
     * disagrees. The same workload on another part is another group (alone). */
    orow(rows, "B", "H100-SXM", 1024, P, PRISM_VM_STEP, 1.0, 2.0);
    orow(rows, "B", "B200-750W", 1024, P, PRISM_VM_STEP, 1.0, 1.0);
    orow(rows, "B", "H100-SXM", 1024, P, PRISM_VM_STEP, 2.0, 1.0);
    /* seq 2048: e1 gives step (1.0, 1.0) and MFU (0.35, 0.3), e2 only MFU (0.3, 0.4): the
     * pair and the group compare MFU: measured e2 faster, predicted e1: reversed */
    PrismValidateRow *e1 = orow(rows, "B", "H100-SXM", 2048, P, PRISM_VM_STEP, 1.0, 1.0);
    e1->pred[PRISM_VM_MFU] = 0.35;
    e1->meas[PRISM_VM_MFU] = 0.3;
    orow(rows, "B", "H100-SXM", 2048, P, PRISM_VM_MFU, 0.3, 0.4);

    g_autoptr(GPtrArray) o = prism_validate_order(&rep, PRISM_VALIDATE_ORDER_TIE);
    CU_ASSERT_EQUAL_FATAL(o->len, 3);
    order_check(g_ptr_array_index(o, 0), "A", 2, 4, 1, 2.5, 2, 1);
    order_check(g_ptr_array_index(o, 1), "B", 2, 2, 0, 0.0, 2, 0);
    order_check(g_ptr_array_index(o, 2), NULL, 4, 6, 1, 2.5, 4, 1);

    /* every counted pair, group by group: A's seq-1024 group (a1-a2, a1-a3 as measured,
     * a2-a3 reversed), A's seq-4096 pair (predicted equal), B's two reversed pairs */
    g_autoptr(GArray) pl = prism_validate_order_pairs(&rep, PRISM_VALIDATE_ORDER_TIE);
    CU_ASSERT_EQUAL_FATAL(pl->len, 6);
    static const struct {
        int a, b, metric;
        double same;
    } want[] = {{2, 3, PRISM_VM_STEP, 1.0},   {2, 4, PRISM_VM_STEP, 1.0},
                {3, 4, PRISM_VM_STEP, 0.0},   {9, 10, PRISM_VM_MFU, 0.5},
                {12, 14, PRISM_VM_STEP, 0.0}, {15, 16, PRISM_VM_MFU, 0.0}};
    double sum = 0.0;
    for (guint i = 0; i < pl->len; i++) {
        const PrismValidateOrderPair *p = &g_array_index(pl, PrismValidateOrderPair, i);
        CU_ASSERT_EQUAL(p->a->line, want[i].a);
        CU_ASSERT_EQUAL(p->b->line, want[i].b);
        CU_ASSERT_EQUAL(p->metric, want[i].metric);
        NEAR(p->same, want[i].same);
        sum += p->same;
    }
    NEAR(sum, 2.5); /* the statistic's same-order count */

    /* no tie allowance: the seq-2048 pair of A counts (measured b2 faster, predicted b1:
     * reversed) and its group has a fastest row, which prism misses */
    g_autoptr(GPtrArray) z = prism_validate_order(&rep, 0.0);
    order_check(g_ptr_array_index(z, 0), "A", 3, 5, 0, 2.5, 3, 1);

    /* the track record of H100 under "fw" takes the order of its rows (all but the B200
     * one, which is alone in its group): every source together */
    g_autoptr(PrismTrackRecord) th = prism_track_record_new("H100", "fw");
    prism_track_record_add(th, &rep);
    prism_track_record_finish(th);
    order_check(&th->order, NULL, 4, 6, 1, 2.5, 4, 1);
    g_autoptr(PrismTrackRecord) tb = prism_track_record_new("B200", NULL);
    prism_track_record_add(tb, &rep);
    order_check(&tb->order, NULL, 0, 0, 0, 0.0, 0, 0);
    /* one source: no "all" entry */
    PrismValidateReport one = {.rows = g_ptr_array_new()};
    for (guint i = 0; i < rows->len; i++) {
        PrismValidateRow *r = g_ptr_array_index(rows, i);
        if (strcmp(r->source, "A") == 0)
            g_ptr_array_add(one.rows, r);
    }
    g_autoptr(GPtrArray) oa = prism_validate_order(&one, PRISM_VALIDATE_ORDER_TIE);
    CU_ASSERT_EQUAL(oa->len, 1);
    /* nothing to compare: an empty list */
    g_ptr_array_set_size(one.rows, 1);
    g_autoptr(GPtrArray) none = prism_validate_order(&one, PRISM_VALIDATE_ORDER_TIE);
    CU_ASSERT_EQUAL(none->len, 0);
    g_ptr_array_unref(one.rows);
    g_ptr_array_unref(rows);
}

/* A row of the regret groups: metric @p k predicted and measured, global batch @p gbs (the
 * group), predicted to fit or not. */
static PrismValidateRow *feel_row(const char *source, PrismValidateKind kind, int k, double pred,
                                  double meas, uint64_t gbs, gboolean fits, gboolean oom)
{
    PrismValidateRow *r = row(source, "H100-SXM", "fw", kind, k, pred, meas);
    r->gbs = gbs;
    r->fits = fits;
    r->oom = oom;
    return r;
}

/* The regret and the feasibility both ways, derived by hand:
 * source A
 *   group gbs 1 (step time): predicted 1.0, 2.0, 3.0; measured 3.0, 2.0, 4.0. prism picks
 *     the first (best prediction 1.0), which measured 3.0; the fastest measured 2.0:
 *     regret 3.0 / 2.0 - 1 = 50 %. A planned row (predicted 0.5) and a failure in the
 *     group take no part.
 *   group gbs 2 (TFLOP/s): predicted 100, 200; measured 300, 250. prism picks the second
 *     (200), which measured 250; the fastest measured 300: regret 300 / 250 - 1 = 20 %.
 *   group gbs 3: one row, no regret.
 *   mean (50 + 20) / 2 = 35 %, worst 50 %, picks the fastest in 0 of 2.
 *   feasibility: 7 measured runs modelled (3 + 2 + 1 + the planned one), 6 predicted to
 *   fit (the second of gbs 2 does not); 1 failure, flagged (predicted not to fit).
 * source B
 *   group gbs 1 (step): predicted 1.0, 1.0 (a tie: the first in file order), measured 1.0,
 *   1.5: the pick is the fastest, regret 0; 1 of 1. 2 of 2 runs fit; its failure is
 *   predicted to fit: 0 of 1 flagged.
 * A skipped row counts nowhere. */
static void test_regret(void)
{
    PrismValidateReport rep = {.rows = g_ptr_array_new_with_free_func(row_free)};
    GPtrArray *rows = rep.rows;
    const int S = PRISM_VM_STEP, T = PRISM_VM_TFLOPS;
    const PrismValidateKind P = PRISM_VALIDATE_PREDICTED;
    g_ptr_array_add(rows, feel_row("A", P, S, 1.0, 3.0, 1, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("A", P, S, 2.0, 2.0, 1, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("B", P, S, 1.0, 1.0, 1, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("A", P, S, 3.0, 4.0, 1, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("A", PRISM_VALIDATE_PLANNED, S, 0.5, 10.0, 1, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("A", P, S, 0.1, NAN, 1, FALSE, TRUE));
    g_ptr_array_add(rows, feel_row("A", P, T, 100, 300, 2, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("A", P, T, 200, 250, 2, FALSE, FALSE));
    g_ptr_array_add(rows, feel_row("A", P, S, 1.0, 1.0, 3, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("B", P, S, 1.0, 1.5, 1, TRUE, FALSE));
    g_ptr_array_add(rows, feel_row("B", P, S, 0.1, NAN, 1, TRUE, TRUE));
    g_ptr_array_add(rows, feel_row("B", PRISM_VALIDATE_SKIPPED, S, 1, 1, 1, FALSE, FALSE));
    g_autoptr(GPtrArray) feel = prism_validate_regret(&rep);
    CU_ASSERT_EQUAL_FATAL(feel->len, 2);
    const PrismValidateRegret *a = g_ptr_array_index(feel, 0), *b = g_ptr_array_index(feel, 1);
    CU_ASSERT_STRING_EQUAL(a->source, "A");
    CU_ASSERT_EQUAL(a->groups, 2);
    NEAR(a->regret_sum / a->groups, 35.0);
    NEAR(a->regret_worst, 50.0);
    CU_ASSERT_EQUAL(a->picks_fastest, 0);
    CU_ASSERT_EQUAL(a->ok_rows, 7);
    CU_ASSERT_EQUAL(a->ok_feasible, 6);
    CU_ASSERT_EQUAL(a->oom_rows, 1);
    CU_ASSERT_EQUAL(a->oom_flagged, 1);
    CU_ASSERT_STRING_EQUAL(b->source, "B");
    CU_ASSERT_EQUAL(b->groups, 1);
    NEAR(b->regret_sum, 0.0);
    CU_ASSERT_EQUAL(b->picks_fastest, 1);
    CU_ASSERT_EQUAL(b->ok_rows, 2);
    CU_ASSERT_EQUAL(b->ok_feasible, 2);
    CU_ASSERT_EQUAL(b->oom_rows, 1);
    CU_ASSERT_EQUAL(b->oom_flagged, 0);
    /* two CSVs of one source add up: A's rows twice give the same means, twice the counts */
    g_autoptr(GPtrArray) twice = prism_validate_regret_list_new();
    prism_validate_regret_collect(&rep, twice);
    prism_validate_regret_collect(&rep, twice);
    const PrismValidateRegret *a2 = g_ptr_array_index(twice, 0);
    CU_ASSERT_EQUAL(a2->groups, 4);
    NEAR(a2->regret_sum / a2->groups, 35.0);
    CU_ASSERT_EQUAL(a2->oom_rows, 2);
    g_ptr_array_unref(rows);
}

/* A row with a measured step time and its ranges-only interval [lo, hi] (validate.c sets
 * step_lo and step_hi); its statistic (kind, source) is added to @p rep when new. */
static PrismValidateRow *ival_row(PrismValidateReport *rep, const char *source, const char *cluster,
                                  const char *fw, double pred, double meas, double lo, double hi)
{
    PrismValidateRow *r =
        row(source, cluster, fw, PRISM_VALIDATE_PREDICTED, PRISM_VM_STEP, pred, meas);
    r->step_lo = lo;
    r->step_hi = hi;
    gboolean seen = FALSE;
    for (guint i = 0; i < rep->stats->len; i++)
        seen |=
            strcmp(((PrismValidateStat *)g_ptr_array_index(rep->stats, i))->source, source) == 0;
    if (!seen) {
        PrismValidateStat *st = g_new0(PrismValidateStat, 1);
        st->source = g_strdup(source);
        st->kind = PRISM_VALIDATE_PREDICTED;
        g_ptr_array_add(rep->stats, st);
    }
    g_ptr_array_add(rep->rows, r);
    return r;
}

static void stat_free(gpointer p)
{
    PrismValidateStat *st = p;
    g_free(st->source);
    g_free(st);
}

static const PrismValidateStat *stat_of(const PrismValidateReport *rep, const char *source)
{
    for (guint i = 0; i < rep->stats->len; i++) {
        const PrismValidateStat *st = g_ptr_array_index(rep->stats, i);
        if (strcmp(st->source, source) == 0)
            return st;
    }
    CU_FAIL("no statistic");
    return NULL;
}

/* The interval plan would show for each row with the row's own source left out of the
 * track record (prism_track_holdout), on two hand-made CSVs, derived by hand.
 * Speed errors (+ = predicted faster; validate.h):
 *   r1 A  H100 fw    step 1.0 vs 1.2 measured, ranges [0.90, 1.10]: +16.667
 *   r2 B  H100 fw    step 2.0 vs 2.5, [1.80, 2.20]: +20
 *   r3 C  H100 fw    TFLOP/s 300 vs 400 (no step interval): -25
 *   r4 D  A100 fw    step 1.0 vs 1.05, [0.95, 1.10]: +4.762
 *   r5 A  H100 other step 1.0 vs 1.5, [0.90, 1.20]: +33.3
 *   r7 C  H100 fw    step 1.0 vs 2.0, [0.90, 1.10]: +50
 *   second CSV: r6 B H100 fw step 1.0 vs 0.8, [0.95, 1.05]: -25
 * Widening w = the mean absolute speed error of the other sources' rows / 100, the ends
 * lo / (1 + w) and hi / (1 - w):
 *   r1 (A out): r2, r3, r6, r7: (20 + 25 + 25 + 50) / 4 = 30 % -> [0.9 / 1.3, 1.1 / 0.7]
 *     = [0.69231, 1.57143] holds 1.2; width 87.912 %
 *   r2, r6 (B out): r1, r3, r7: (16.667 + 25 + 50) / 3 = 30.556 % ->
 *     r2 [1.8 / 1.30556, 2.2 / 0.69444] = [1.37872, 3.168] holds 2.5; width 89.464 %
 *     r6 [0.72766, 1.512] holds 0.8; width 78.434 %
 *   r7 (C out): r1, r2, r6: (16.667 + 20 + 25) / 3 = 20.556 % -> [0.9 / 1.20556,
 *     1.1 / 0.79444] = [0.74654, 1.38462] misses 2.0; width 63.807 %
 *   r4 (A100 fw) and r5 (H100 other): no other source, not widened: r4 [0.95, 1.1] holds
 *     1.05 (width 15 %), r5 [0.9, 1.2] misses 1.5 (width 30 %).
 * The ranges alone hold only r4 (1.2 > 1.1, 2.5 > 2.2, 0.8 < 0.95, 2.0 > 1.1, 1.5 > 1.2). */
static void test_holdout(void)
{
    PrismValidateReport one = {.rows = g_ptr_array_new_with_free_func(row_free),
                               .stats = g_ptr_array_new_with_free_func(stat_free)};
    PrismValidateReport two = {.rows = g_ptr_array_new_with_free_func(row_free),
                               .stats = g_ptr_array_new_with_free_func(stat_free)};
    PrismValidateRow *r1 = ival_row(&one, "A", "H100-SXM", "fw", 1.0, 1.2, 0.9, 1.1);
    PrismValidateRow *r2 = ival_row(&one, "B", "H100-SXM", "fw", 2.0, 2.5, 1.8, 2.2);
    PrismValidateRow *r3 =
        row("C", "H100-96GB-500W", "fw", PRISM_VALIDATE_PREDICTED, PRISM_VM_TFLOPS, 300, 400);
    r3->step_lo = r3->step_hi = NAN;
    g_ptr_array_add(one.rows, r3);
    PrismValidateRow *r4 = ival_row(&one, "D", "A100-80GB", "fw", 1.0, 1.05, 0.95, 1.1);
    PrismValidateRow *r5 = ival_row(&one, "A", "H100-SXM", "other", 1.0, 1.5, 0.9, 1.2);
    PrismValidateRow *r7 = ival_row(&one, "C", "H100-SXM", "fw", 1.0, 2.0, 0.9, 1.1);
    PrismValidateRow *r6 = ival_row(&two, "B", "H100-SXM", "fw", 1.0, 0.8, 0.95, 1.05);
    PrismValidateReport *reps[] = {&one, &two};
    prism_track_holdout(reps, 2);

    NEAR(r1->held_widen, 0.3);
    NEAR(r1->held_lo, 0.9 / 1.3);
    NEAR(r1->held_hi, 1.1 / 0.7);
    const double w2 = 91.6666666666667 / 300, w7 = 61.6666666666667 / 300;
    NEAR(r2->held_widen, w2);
    NEAR(r2->held_lo, 1.8 / (1 + w2));
    NEAR(r2->held_hi, 2.2 / (1 - w2));
    NEAR(r6->held_widen, r2->held_widen);
    NEAR(r7->held_widen, w7);
    NEAR(r7->held_lo, 0.9 / (1 + w7));
    NEAR(r4->held_widen, 0.0);
    NEAR(r4->held_lo, 0.95);
    NEAR(r5->held_widen, 0.0);
    NEAR(r5->held_hi, 1.2);
    CU_ASSERT(isnan(r3->held_widen) && isnan(r3->held_lo));

    const PrismValidateStat *a = stat_of(&one, "A"), *b = stat_of(&one, "B");
    const PrismValidateStat *c = stat_of(&one, "C"), *d = stat_of(&one, "D");
    const PrismValidateStat *b2 = stat_of(&two, "B");
    CU_ASSERT(a->ho_n == 2 && a->ho_inside == 1 && a->ho_bare == 1); /* r1 in, r5 out */
    NEAR(a->ho_width, 100.0 * (1.1 / 0.7 - 0.9 / 1.3) + 30.0);
    CU_ASSERT(b->ho_n == 1 && b->ho_inside == 1 && b->ho_bare == 0);
    NEAR(b->ho_width, 100.0 * (2.2 / (1 - w2) - 1.8 / (1 + w2)) / 2.0); /* 89.464 */
    CU_ASSERT(c->ho_n == 1 && c->ho_inside == 0 && c->ho_bare == 0);
    NEAR(c->ho_width, 100.0 * (1.1 / (1 - w7) - 0.9 / (1 + w7))); /* 63.807 */
    CU_ASSERT(d->ho_n == 1 && d->ho_inside == 1 && d->ho_bare == 1);
    NEAR(d->ho_width, 15.0);
    CU_ASSERT(b2->ho_n == 1 && b2->ho_inside == 1 && b2->ho_bare == 0);
    NEAR(b2->ho_width, 100.0 * (1.05 / (1 - w2) - 0.95 / (1 + w2))); /* 78.434 */

    /* the widening plan takes from a record: the mean absolute error, at most 90 % */
    const PrismTrackStat none = {0}, big = {.n = 1, .mean_abs = 95.0};
    NEAR(prism_track_widening(&none), 0.0);
    NEAR(prism_track_widening(&big), 0.9);
    g_ptr_array_unref(one.rows);
    g_ptr_array_unref(one.stats);
    g_ptr_array_unref(two.rows);
    g_ptr_array_unref(two.stats);
}

/* A row of one step-time group for `plan --pick simplest` (8 devices, gbs 16): strategy
 * @p strat, the step at the point, the optimistic and the pessimistic corner, measured
 * @p meas, and the held-out record's tolerance @p tol (NAN: none). */
static PrismValidateRow *simple_row(GPtrArray *rows, const char *strat, double pred, double fast,
                                    double slow, double meas, double tol)
{
    PrismValidateRow *r =
        row("S", "H100-SXM", "fw", PRISM_VALIDATE_PREDICTED, PRISM_VM_STEP, pred, meas);
    r->strategy = g_strdup(strat);
    r->devices = 8;
    r->gbs = 16;
    r->seq = 1024;
    r->step_fast = r->step_lo = fast;
    r->step_slow = r->step_hi = slow;
    r->held_lo = r->held_hi = NAN;
    r->held_tol = tol;
    r->fits = TRUE;
    g_ptr_array_add(rows, r);
    return r;
}

/* `plan --pick simplest` in validate's regret, derived by hand. One group:
 *   a pp=2: step 1.00 (corners 0.80, 1.30), measured 1.10 - the predicted fastest (pick)
 *   b pp=1: step 1.02 (0.81, 1.33), measured 1.00 - simpler (fewer pipeline stages)
 *   c pp=4: step 1.05 (0.79, 1.40), measured 0.95 - the measured fastest
 * Ratios to a at (point, fast, slow): b 1.02, 1.0125, 1.0231 (least 1.0125: not
 * equivalent without tolerance, equivalent within 2 %); c 1.05, 0.9875, 1.0769
 * (equivalent: the order flips at the optimistic corner) but not simpler than a.
 * No tolerance: a stays, regret 1.10 / 0.95 - 1 = 15.79 %, as the pick's.
 * Tolerance 2 % (the held-out record's): b, regret 1.00 / 0.95 - 1 = 5.26 %.
 * Without a held-out tolerance (NAN) no held-out group is counted. */
static void test_simplest(void)
{
    static const char *const tail = ",vpp=1,cp=1,ep=1,sp=0,mbs=1,zero=1,recompute=none,"
                                    "schedule=1f1b";
    g_autofree char *sa = g_strconcat("dp=4,tp=1,pp=2", tail, NULL);
    g_autofree char *sb = g_strconcat("dp=8,tp=1,pp=1", tail, NULL);
    g_autofree char *sc = g_strconcat("dp=2,tp=1,pp=4", tail, NULL);
    const double tols[] = {0.02, NAN};
    for (size_t i = 0; i < G_N_ELEMENTS(tols); i++) {
        PrismValidateReport rep = {.rows = g_ptr_array_new_with_free_func(row_free)};
        simple_row(rep.rows, sa, 1.00, 0.80, 1.30, 1.10, tols[i]);
        simple_row(rep.rows, sb, 1.02, 0.81, 1.33, 1.00, tols[i]);
        simple_row(rep.rows, sc, 1.05, 0.79, 1.40, 0.95, tols[i]);
        g_autoptr(GPtrArray) feel = prism_validate_regret(&rep);
        CU_ASSERT_EQUAL_FATAL(feel->len, 1);
        const PrismValidateRegret *e = g_ptr_array_index(feel, 0);
        CU_ASSERT_EQUAL(e->groups, 1);
        NEAR(e->regret_sum, 100.0 * (1.10 / 0.95 - 1));
        CU_ASSERT_EQUAL(e->simplest_groups, 1);
        NEAR(e->simplest_sum, 100.0 * (1.10 / 0.95 - 1));
        CU_ASSERT_EQUAL(e->simplest_held_groups, isnan(tols[i]) ? 0 : 1);
        NEAR(e->simplest_held_sum, isnan(tols[i]) ? 0.0 : 100.0 * (1.00 / 0.95 - 1));
        NEAR(e->simplest_held_worst, e->simplest_held_sum);
        g_ptr_array_unref(rep.rows);
    }
}

/*
 * The same rule in a group that gives MFU only (the rows' predicted steps carry the
 * intervals): a pp=2 predicted MFU 0.50 (measured 0.40), step 1.00 (corners 0.80, 1.30);
 * b pp=1 0.49 (0.44), step 1.02 (0.79, 1.33). a is the pick; b is simpler and equivalent
 * without tolerance (0.79 / 0.80 = 0.9875 < 1 at the optimistic corner, the intervals
 * overlap). Regret: the pick 0.44 / 0.40 - 1 = 10 %; the simplest, b, 0 %.
 */
static void test_simplest_mfu(void)
{
    static const char *const tail = ",vpp=1,cp=1,ep=1,sp=0,mbs=1,zero=1,recompute=none,"
                                    "schedule=1f1b";
    g_autofree char *sa = g_strconcat("dp=4,tp=1,pp=2", tail, NULL);
    g_autofree char *sb = g_strconcat("dp=8,tp=1,pp=1", tail, NULL);
    PrismValidateReport rep = {.rows = g_ptr_array_new_with_free_func(row_free)};
    const struct {
        const char *s;
        double mfu, meas, step, fast, slow;
    } in[] = {{sa, 0.50, 0.40, 1.00, 0.80, 1.30}, {sb, 0.49, 0.44, 1.02, 0.79, 1.33}};
    for (size_t i = 0; i < G_N_ELEMENTS(in); i++) {
        PrismValidateRow *r =
            simple_row(rep.rows, in[i].s, in[i].step, in[i].fast, in[i].slow, NAN, NAN);
        r->meas[PRISM_VM_STEP] = r->err[PRISM_VM_STEP] = NAN;
        r->pred[PRISM_VM_MFU] = in[i].mfu;
        r->meas[PRISM_VM_MFU] = in[i].meas;
    }
    g_autoptr(GPtrArray) feel = prism_validate_regret(&rep);
    CU_ASSERT_EQUAL_FATAL(feel->len, 1);
    const PrismValidateRegret *e = g_ptr_array_index(feel, 0);
    CU_ASSERT_EQUAL(e->groups, 1);
    NEAR(e->regret_sum, 100.0 * (0.44 / 0.40 - 1));
    CU_ASSERT_EQUAL(e->simplest_groups, 1);
    NEAR(e->simplest_sum, 0.0);
    g_ptr_array_unref(rep.rows);
}

/* A row of a pair of runs (8 devices, seq 1024, dtype bf16) for the pair errors: strategy
 * @p strat, global batch @p gbs, the metric @p k predicted and measured. */
static void pair_row(GPtrArray *rows, const char *strat, double gbs, int k, double pred,
                     double meas)
{
    PrismValidateRow *r = row("S", "H100-SXM", "fw", PRISM_VALIDATE_PREDICTED, k, pred, meas);
    r->strategy = g_strdup(strat);
    r->devices = 8;
    r->gbs = gbs;
    r->seq = 1024;
    r->dtype = g_strdup("bf16");
    g_ptr_array_add(rows, r);
}

/*
 * The error of a predicted ratio of two strategies, derived by hand. Workload gbs 16 (step
 * times): a A 1.0 predicted / 1.2 measured, b B 1.1 / 1.1, c A 1.0 / 1.4 (A again: a and c
 * are no pair, they differ in what prism does not price). Workload gbs 32 (TFLOP/s, read
 * as inverse times): e A 400 / 300, f B 300 / 300. A row of B at gbs 64 has no partner.
 *   (a, b): 100 (ln(1.0/1.1) - ln(1.2/1.1)) = 100 ln(1/1.2) = -18.232
 *   (b, c): 100 (ln(1.1/1.0) - ln(1.1/1.4)) = 100 ln(1.4) = 33.647
 *   (e, f): 100 (ln(300/400) - ln(300/300)) = -28.768
 * rms = sqrt((18.232^2 + 33.647^2 + 28.768^2) / 3) = 27.641 %, worst 33.647 %; plan's
 * tolerance exp(0.27641) - 1 = 0.31839. No pair: the measurement tie, 0.01.
 */
static void test_pairs(void)
{
    static const char *const sa = "dp=4,tp=2,pp=1,vpp=1,cp=1,ep=1,sp=1,mbs=1,zero=1,"
                                  "recompute=none,schedule=1f1b";
    static const char *const sb = "dp=8,tp=1,pp=1,vpp=1,cp=1,ep=1,sp=0,mbs=1,zero=1,"
                                  "recompute=none,schedule=1f1b";
    PrismValidateReport rep = {.rows = g_ptr_array_new_with_free_func(row_free)};
    pair_row(rep.rows, sa, 16, PRISM_VM_STEP, 1.0, 1.2);
    pair_row(rep.rows, sb, 16, PRISM_VM_STEP, 1.1, 1.1);
    pair_row(rep.rows, sa, 16, PRISM_VM_STEP, 1.0, 1.4);
    pair_row(rep.rows, sa, 32, PRISM_VM_TFLOPS, 400, 300);
    pair_row(rep.rows, sb, 32, PRISM_VM_TFLOPS, 300, 300);
    pair_row(rep.rows, sb, 64, PRISM_VM_STEP, 1.0, 1.0);
    g_autoptr(PrismTrackRecord) t = prism_track_record_new("H100", "fw");
    prism_track_record_add(t, &rep);
    prism_track_record_finish(t);
    CU_ASSERT_EQUAL(t->pairs.n, 3);
    CU_ASSERT_DOUBLE_EQUAL(t->pairs.rms, 27.641496, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(t->pairs.worst, 33.647224, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(prism_track_pair_tolerance(&t->pairs), 0.318395, 1e-6);
    const PrismTrackPairs none = {0};
    NEAR(prism_track_pair_tolerance(&none), PRISM_VALIDATE_ORDER_TIE); /* the tie: 1 % */
    g_ptr_array_unref(rep.rows);
}

static CU_TestInfo track_tests[] = {
    {"regret and feasibility", test_regret},
    {"device family", test_family},
    {"hand-made rows", test_hand},
    {"order within groups", test_order},
    {"held-out intervals", test_holdout},
    {"the simplest of equals", test_simplest},
    {"pairs of strategies", test_pairs},
    {"the simplest of equals by MFU", test_simplest_mfu},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"track", NULL, NULL, NULL, NULL, track_tests},
    CU_SUITE_INFO_NULL,
};
