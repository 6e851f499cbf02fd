// SPDX-License-Identifier: MIT
/*
 * test_validate.c - the planned mode of `prism validate` (cost.h PrismValidatePlanFn,
 * prism_app_validate_plan): what the report asks the planner for each row whose strategy
 * dims are not all stated, how it reports the answer apart from the direct statistics, and
 * the real planner (the search, collective) against an independent brute force that
 * enumerates the same restricted space with nested loops and prism_strategy_check().
 *
 * Data: tests/data/validation/planned.csv, three MLM_README_H100_2024 rows: GPT-1.7B
 * (48 GPUs, tp 1, pp 1), GPT-7.1B (96 GPUs, tp 2, pp 1; micro-batch 2 and selective
 * recompute written in, so they must be fixed) and GPT-70B (768 GPUs, tp 8, pp 2, 84
 * layers). Runs at 1-4 ranks: the planner's search is collective, the brute force local.
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/cost.h>
#include <prism/strategy.h>

#include "../../src/app/app-internal.h"
#include "prism_test_util.h"

/* What the fake planner saw, per call. */
typedef struct Seen {
    int calls;
    char *fix[4], *only[4];
    uint32_t devices[4];
    PrismDtype dtype[4];
    uint64_t gbs[4], seq[4];
    double tp_overlap[4], dp_overlap[4], flash[4];
    int fail_call; /* 1-based call that returns an error; 0 = none */
} Seen;

static gboolean fake_plan(const PrismValidatePlan *req, void *user, PrismValidatePlanResult *out,
                          GError **error)
{
    Seen *s = user;
    const int i = s->calls++;
    if (i < 4) {
        const PrismTraining *t = prism_cost_model_training(req->cm);
        const PrismKnobs *k = prism_cost_model_knobs(req->cm);
        s->fix[i] = g_strdup(req->fix);
        s->only[i] = g_strdup(req->only);
        s->devices[i] = req->devices;
        s->dtype[i] = t->dtype;
        s->gbs[i] = t->gbs;
        s->seq[i] = t->seq;
        s->tp_overlap[i] = k->v[PRISM_KNOB_TP_OVERLAP];
        s->dp_overlap[i] = k->v[PRISM_KNOB_DP_OVERLAP];
        s->flash[i] = k->v[PRISM_KNOB_FLASH_ATTENTION];
    }
    if (s->fail_call == i + 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE, "planner says no");
        return FALSE;
    }
    /* a made-up answer: MFU 0.5 exactly, so the error against 0.41 is 22.0 % */
    memset(out, 0, sizeof *out);
    out->searched = 10;
    out->feasible = 7;
    out->best = (PrismStrategy){.devices = req->devices, .dp = 1, .tp = 1, .pp = 1, .vpp = 1,
                                .cp = 1, .ep = 1, .mbs = 1, .m = 1};
    out->cols[PRISM_COL_MFU] = 0.5;
    out->cols[PRISM_COL_TIME_STEP] = 1.0;
    return TRUE;
}

static void seen_clear(Seen *s)
{
    for (int i = 0; i < 4; i++) {
        g_free(s->fix[i]);
        g_free(s->only[i]);
    }
}

/*
 * The requests: the stated dims fixed (tp, pp, cp, ep; the 7.1B row also mbs 2 and
 * selective recompute), what Megatron-Core r0.8 supported as --only, with the equal-chunk
 * vpp values: L/pp = 24, 30 (pp 1: vpp 1 only) and 84/2 = 42 -> 1,2,3,6,7,14,21,42;
 * bf16 (the source's dtype), gbs and seq of the row, the source's overlap knobs.
 * The report: three planned rows, none in the direct statistics, the 1.7B row's MFU error
 * |0.5 - 0.41| / 0.41 = 22.0 %, and a failing planner turns its row into a skipped one.
 */
static void test_requests(void)
{
    g_autofree char *csv = prism_test_data_path("validation/planned.csv");
    PrismKnobs k;
    prism_knobs_default(&k);
    Seen s = {0};
    GError *error = NULL;
    g_autofree char *rep = prism_validate_report_planned(csv, &k, fake_plan, &s, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
    CU_ASSERT_EQUAL_FATAL(s.calls, 3);
    CU_ASSERT_STRING_EQUAL(s.fix[0], "tp=1,pp=1,cp=1,ep=1");
    CU_ASSERT_STRING_EQUAL(s.fix[1], "tp=2,pp=1,cp=1,ep=1,mbs=2,recompute=selective");
    CU_ASSERT_STRING_EQUAL(s.fix[2], "tp=8,pp=2,cp=1,ep=1");
    CU_ASSERT_STRING_EQUAL(s.only[0], "schedule=1f1b,interleaved,zero=0,1,vpp=1");
    CU_ASSERT_STRING_EQUAL(s.only[2], "schedule=1f1b,interleaved,zero=0,1,vpp=1,2,3,6,7,14,21,42");
    const uint32_t dev[3] = {48, 96, 768};
    const uint64_t gbs[3] = {192, 192, 384};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(s.devices[i], dev[i]);
        CU_ASSERT_EQUAL(s.gbs[i], gbs[i]);
        CU_ASSERT_EQUAL(s.seq[i], 4096);
        CU_ASSERT_EQUAL(s.dtype[i], PRISM_DTYPE_BF16);
        CU_ASSERT_EQUAL(s.tp_overlap[i], 0.5);
        CU_ASSERT_EQUAL(s.dp_overlap[i], 0.9);
        CU_ASSERT_EQUAL(s.flash[i], 1.0);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "0 rows predicted, 3 planned, 0 skipped"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "PLANNED rows"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, " 22.0%"));
    /* nothing planned in the direct statistics */
    const char *direct = strstr(rep, "absolute percentage error per source: mean");
    const char *end = direct ? strstr(direct, " rows predicted") : NULL;
    CU_ASSERT_TRUE(direct != NULL && end != NULL &&
                   g_strstr_len(direct, end - direct, "MLM_README") == NULL);
    seen_clear(&s);

    /* the planner fails on the third row: that row is skipped with its message */
    Seen f = {.fail_call = 3};
    g_autofree char *rep2 = prism_validate_report_planned(csv, &k, fake_plan, &f, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep2, "0 rows predicted, 2 planned, 1 skipped"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep2, "GPT-70B: planned mode: planner says no"));
    seen_clear(&f);

    /* no planner: the rows are skipped for what they leave unstated */
    g_autofree char *rep3 = prism_validate_report(csv, &k, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep3);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep3, "0 rows predicted, 0 planned, 3 skipped"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(rep3, "GPT-1.7B: micro_batch, recompute, vpp, sp, zero_stage not stated"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep3, "GPT-7.1B: vpp, sp, zero_stage not stated"));
    CU_ASSERT_PTR_NULL(strstr(rep3, "PLANNED rows"));
}

/* The brute force: every (vpp, schedule, recompute, sp, mbs, zero) by nested loops, the
 * row's fixed dims, Megatron-Core r0.8's restrictions written out again (1F1B or
 * interleaved, ZeRO 0/1, vpp dividing L/pp), prism_strategy_check for the shape rules. */
typedef struct Brute {
    uint64_t valid, feasible;
    double best_step;
} Brute;

static Brute brute_force(const PrismCostModel *cm, uint32_t devices, uint32_t tp, uint32_t pp,
                         int fixed_mbs, int fixed_rc)
{
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismTraining *t = prism_cost_model_training(cm);
    const uint32_t L = prism_model_split_layers(model), dp = devices / (tp * pp);
    Brute b = {0, 0, INFINITY};
    for (uint32_t vpp = 1; vpp * pp <= L; vpp++) {
        if ((L / pp) % vpp != 0)
            continue;
        for (int sch = 0; sch < 2; sch++) /* 1f1b, interleaved */
            for (uint32_t rc = 0; rc < 3 + L; rc++) /* none, selective, full, block:1.. */
                for (uint8_t sp = 0; sp < 2; sp++)
                    for (uint32_t mbs = 1; mbs <= t->gbs / dp; mbs++)
                        for (uint8_t zero = 0; zero < 2; zero++) {
                            if ((fixed_mbs && mbs != (uint32_t)fixed_mbs) ||
                                (fixed_rc >= 0 && rc != (uint32_t)fixed_rc) ||
                                t->gbs % ((uint64_t)dp * mbs) != 0)
                                continue;
                            PrismStrategy s = {.devices = devices, .dp = dp, .tp = tp, .pp = pp,
                                               .vpp = vpp, .cp = 1, .ep = 1, .mbs = mbs,
                                               .m = (uint32_t)(t->gbs / (dp * mbs)), .sp = sp,
                                               .zero = zero,
                                               .schedule = sch ? PRISM_SCHEDULE_INTERLEAVED
                                                               : PRISM_SCHEDULE_1F1B};
                            s.recompute = rc < 3 ? (uint8_t)rc : PRISM_RECOMPUTE_BLOCK;
                            s.rc_layers = rc < 3 ? 0 : (uint16_t)(rc - 2);
                            if (!prism_strategy_check(&s, model, t, NULL))
                                continue;
                            b.valid++;
                            double c[PRISM_COL_COUNT];
                            if (!prism_cost_eval_one(cm, &s, c, NULL))
                                continue;
                            if (c[PRISM_COL_FEASIBLE] > 0.5) {
                                b.feasible++;
                                b.best_step = MIN(b.best_step, c[PRISM_COL_TIME_STEP]);
                            }
                        }
    }
    return b;
}

typedef struct Check {
    int calls, ok;
} Check;

/* The real planner (collective), then the brute force on this rank (local). */
static gboolean checked_plan(const PrismValidatePlan *req, void *user, PrismValidatePlanResult *out,
                             GError **error)
{
    Check *ck = user;
    ck->calls++;
    if (!prism_app_validate_plan(req, prism_test_comm(), out, error))
        return FALSE;
    /* the rows: 48 GPUs tp 1 pp 1; 96 GPUs tp 2 pp 1 mbs 2 selective; 768 GPUs tp 8 pp 2 */
    const uint32_t tp = req->devices == 48 ? 1 : req->devices == 96 ? 2 : 8;
    const uint32_t pp = req->devices == 768 ? 2 : 1;
    const int mbs = req->devices == 96 ? 2 : 0;
    const int rc = req->devices == 96 ? PRISM_RECOMPUTE_SELECTIVE : -1;
    const Brute b = brute_force(req->cm, req->devices, tp, pp, mbs, rc);
    double c[PRISM_COL_COUNT];
    const gboolean again = prism_cost_eval_one(req->cm, &out->best, c, NULL);
    const gboolean ok = out->searched == b.valid && out->feasible == b.feasible &&
                        b.feasible > 0 && out->cols[PRISM_COL_TIME_STEP] == b.best_step &&
                        again && c[PRISM_COL_TIME_STEP] == b.best_step &&
                        c[PRISM_COL_FEASIBLE] > 0.5 && out->best.tp == tp && out->best.pp == pp &&
                        out->best.zero <= 1 && (mbs == 0 || out->best.mbs == (uint32_t)mbs) &&
                        (rc < 0 || out->best.recompute == rc);
    if (!ok)
        fprintf(stderr,
                "\n  planner vs brute force (%u GPUs): searched %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                " feasible %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " step %.17g/%.17g\n",
                req->devices, out->searched, b.valid, out->feasible, b.feasible,
                out->cols[PRISM_COL_TIME_STEP], b.best_step);
    ck->ok += ok;
    return TRUE;
}

static void test_planner_brute_force(void)
{
    g_autofree char *csv = prism_test_data_path("validation/planned.csv");
    PrismKnobs k;
    prism_knobs_default(&k);
    Check ck = {0, 0};
    GError *error = NULL;
    g_autofree char *rep = prism_validate_report_planned(csv, &k, checked_plan, &ck, &error);
    if (rep == NULL)
        fprintf(stderr, "%s\n", error->message);
    g_clear_error(&error);
    const gboolean all = prism_test_all(rep != NULL && ck.calls == 3 && ck.ok == 3);
    CU_ASSERT_TRUE(all);
    {
        CU_ASSERT_PTR_NOT_NULL(rep ? strstr(rep, "0 rows predicted, 3 planned, 0 skipped") : NULL);
    }
}

static CU_TestInfo validate_tests[] = {
    {"planned mode: requests and report", test_requests},
    {"planned mode: the search against a brute force", test_planner_brute_force},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"validate", NULL, NULL, NULL, NULL, validate_tests},
    CU_SUITE_INFO_NULL,
};
