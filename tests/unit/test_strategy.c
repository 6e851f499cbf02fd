// SPDX-License-Identifier: MIT
/*
 * test_strategy.c - strategy text form and the shape rules R1-R10 (strategy.h),
 * on GPT-3 175B (96 layers, 96 heads, ffn 49152) with gbs 1536, seq 2048.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/strategy.h>

#include "prism_test_util.h"

static PrismModel *gpt3(void)
{
    PrismModel *m = prism_model_zoo_get("gpt3-175b", NULL);
    CU_ASSERT_PTR_NOT_NULL(m);
    return m;
}

static void test_parse_defaults(void)
{
    PrismTraining t;
    prism_training_default(&t);
    PrismStrategy s;
    GError *error = NULL;
    CU_ASSERT_TRUE(prism_strategy_parse("tp=8,pp=16", 1024, &t, &s, &error));
    /* dp = 1024/(8*16*1) = 8, m = 1536/(8*1) = 192 */
    CU_ASSERT_EQUAL(s.dp, 8);
    CU_ASSERT_EQUAL(s.m, 192);
    CU_ASSERT_EQUAL(s.vpp, 1);
    CU_ASSERT_EQUAL(s.schedule, PRISM_SCHEDULE_1F1B);
    CU_ASSERT_TRUE(
        prism_strategy_parse("tp=8,pp=16,vpp=2,recompute=block:3", 1024, &t, &s, &error));
    CU_ASSERT_EQUAL(s.schedule, PRISM_SCHEDULE_INTERLEAVED);
    CU_ASSERT_EQUAL(s.recompute, PRISM_RECOMPUTE_BLOCK);
    CU_ASSERT_EQUAL(s.rc_layers, 3);
}

static void test_format_roundtrip(void)
{
    PrismTraining t;
    prism_training_default(&t);
    PrismStrategy s, back;
    CU_ASSERT_TRUE(prism_strategy_parse("dp=8,tp=8,pp=16,sp=1,mbs=1,zero=1,recompute=selective",
                                        1024, &t, &s, NULL));
    g_autofree char *text = prism_strategy_format(&s);
    CU_ASSERT_STRING_EQUAL(text, "dp=8,tp=8,pp=16,vpp=1,cp=1,ep=1,sp=1,mbs=1,m=192,zero=1,"
                                 "recompute=selective,schedule=1f1b");
    CU_ASSERT_TRUE(prism_strategy_parse(text, 1024, &t, &back, NULL));
    CU_ASSERT_TRUE(prism_strategy_equal(&s, &back));
}

static void test_parse_errors(void)
{
    PrismTraining t;
    prism_training_default(&t);
    PrismStrategy s;
    const char *bad[] = {"tp=x",
                         "foo=1",
                         "tp",
                         "zero=4",
                         "sp=2",
                         "recompute=block",
                         "recompute=full:2",
                         "schedule=zigzag",
                         "tp=-1"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        GError *error = NULL;
        CU_ASSERT_FALSE(prism_strategy_parse(bad[i], 1024, &t, &s, &error));
        CU_ASSERT_PTR_NOT_NULL(error);
        CU_ASSERT_TRUE(error != NULL && error->domain == PRISM_INPUT_ERROR);
        g_clear_error(&error);
    }
}

/* Each entry breaks exactly one rule; the message must start with that rule's id. */
static void test_rules(void)
{
    g_autoptr(PrismModel) m = gpt3();
    PrismTraining t;
    prism_training_default(&t);
    struct {
        const char *text;
        const char *rule;
    } cases[] = {
        {"dp=8,tp=8,pp=8", "R1:"},                        /* 512 != 1024 */
        {"tp=3,pp=16,dp=21", "R1:"},                      /* 1008 != 1024 */
        {"dp=4,tp=64,pp=4", "R2:"},                       /* 96 % 64 != 0 */
        {"dp=8,tp=8,pp=8,cp=2", NULL},                    /* valid: 2048 % 4 == 0 */
        {"dp=1,tp=8,pp=8,cp=16,mbs=1", NULL},             /* valid */
        {"dp=64,tp=1,pp=16,sp=1", "R4:"},                 /* sp without tp */
        {"dp=8,tp=8,pp=16,ep=2", "R5:"},                  /* dense model */
        {"dp=8,tp=1,pp=128", "R6:"},                      /* 128 > 96 layers */
        {"dp=8,tp=8,pp=16,vpp=7", "R6:"},                 /* 112 > 96 */
        {"dp=8,tp=8,pp=16,schedule=interleaved", "R7:"},  /* interleaved needs vpp > 1 */
        {"dp=64,tp=16,pp=1,schedule=gpipe", "R7:"},       /* no pipeline */
        {"dp=8,tp=8,pp=16,mbs=48", NULL},                 /* valid: 1f1b with m = 4 < 16 */
        {"dp=8,tp=8,pp=16,mbs=48,schedule=gpipe", NULL},  /* valid: gpipe, m = 4 < 16 */
        {"dp=8,tp=8,pp=16,mbs=48,schedule=zb-h1", "R8:"}, /* zb-h1 needs m >= pp */
        {"dp=8,tp=8,pp=16,vpp=2,mbs=48", "R8:"},          /* interleaved, m = 4 < 16 */
        {"dp=8,tp=8,pp=16,mbs=5,m=1", "R8:"},             /* 8*5*1 != 1536 */
        {"dp=8,tp=8,pp=16,vpp=2,mbs=8", "R8:"},           /* m=24 not divisible by 16 */
        {"dp=1,tp=8,pp=16,cp=8,zero=1", NULL},            /* valid: 2048 % 16 == 0 */
        {"dp=8,tp=8,pp=16,recompute=block:6", "R10:"},    /* 6 layers per stage: k < 6 */
        {"dp=8,tp=8,pp=16,recompute=block:5", NULL},      /* valid */
        /* the V schedules run two chunks per device: vpp = 2, m >= 2pp (m = 192/mbs) */
        {"dp=8,tp=8,pp=16,vpp=2,schedule=zb-v", NULL},              /* valid, m = 192 */
        {"dp=8,tp=8,pp=16,vpp=2,mbs=6,schedule=zb-v", NULL},        /* valid, m = 32 = 2pp */
        {"dp=8,tp=8,pp=16,vpp=2,mbs=8,schedule=dualpipe-v", "R8:"}, /* m = 24 < 32 */
        {"dp=8,tp=8,pp=16,schedule=zb-v", "R7:"},                   /* vpp = 1 */
        {"dp=16,tp=8,pp=8,vpp=3,schedule=dualpipe-v", "R7:"},       /* vpp = 3 */
        /* dualpipe: vpp = 1, pp even, m even >= 2pp */
        {"dp=8,tp=8,pp=16,schedule=dualpipe", NULL},            /* valid, m = 192 */
        {"dp=8,tp=8,pp=16,mbs=8,schedule=dualpipe", "R8:"},     /* m = 24 < 32 */
        {"dp=16,tp=8,pp=8,vpp=2,schedule=dualpipe", "R7:"},     /* vpp = 2 */
        {"devices=24,dp=1,tp=8,pp=3,schedule=dualpipe", "R7:"}, /* pp = 3 is odd */
        /* seq1f1b: vpp = 1, any m */
        {"dp=8,tp=8,pp=16,mbs=48,schedule=seq1f1b", NULL}, /* valid, m = 4 < 16 */
        {"dp=8,tp=8,pp=16,vpp=2,schedule=seq1f1b", "R7:"}, /* vpp = 2 */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        PrismStrategy s;
        GError *error = NULL;
        CU_ASSERT_TRUE(prism_strategy_parse(cases[i].text, 1024, &t, &s, &error));
        gboolean ok = prism_strategy_check(&s, m, &t, &error);
        if (cases[i].rule == NULL) {
            if (!ok)
                fprintf(stderr, "case %zu '%s': %s\n", i, cases[i].text, error->message);
            CU_ASSERT_TRUE(ok);
        } else {
            CU_ASSERT_FALSE(ok);
            if (!ok && !g_str_has_prefix(error->message, cases[i].rule))
                fprintf(stderr, "case %zu '%s': expected %s got %s\n", i, cases[i].text,
                        cases[i].rule, error->message);
            CU_ASSERT_TRUE(!ok && g_str_has_prefix(error->message, cases[i].rule));
        }
        g_clear_error(&error);
    }
    /* dualpipe with an odd m >= 2pp: gbs 5 on 16 devices (dp 1, tp 8, pp 2, m 5) */
    {
        PrismTraining t5 = t;
        t5.gbs = 5;
        PrismStrategy d = {.devices = 16,
                           .dp = 1,
                           .tp = 8,
                           .pp = 2,
                           .vpp = 1,
                           .cp = 1,
                           .ep = 1,
                           .mbs = 1,
                           .m = 5,
                           .schedule = PRISM_SCHEDULE_DUALPIPE};
        GError *e5 = NULL;
        CU_ASSERT_FALSE(prism_strategy_check(&d, m, &t5, &e5));
        CU_ASSERT_TRUE(e5 != NULL && g_str_has_prefix(e5->message, "R8:") &&
                       strstr(e5->message, "even") != NULL);
        g_clear_error(&e5);
        d.schedule = PRISM_SCHEDULE_SEQ1F1B; /* any m */
        CU_ASSERT_TRUE(prism_strategy_check(&d, m, &t5, NULL));
    }
    /* every schedule name parses back to its code; the documented aliases */
    for (int sc = 0; sc < PRISM_SCHEDULE_COUNT; sc++) {
        PrismSchedule back;
        CU_ASSERT_TRUE(prism_schedule_parse(prism_schedule_name((PrismSchedule)sc), &back, NULL));
        CU_ASSERT_EQUAL((int)back, sc);
    }
    {
        PrismSchedule a1, a2;
        CU_ASSERT_TRUE(prism_schedule_parse("DualPipeV", &a1, NULL));
        CU_ASSERT_TRUE(prism_schedule_parse("zbv", &a2, NULL));
        CU_ASSERT_TRUE(a1 == PRISM_SCHEDULE_DUALPIPE_V && a2 == PRISM_SCHEDULE_ZB_V);
    }
    /* R3 proper: seq 2048 with cp = 2048 needs 4096 | 2048 -> fails */
    PrismTraining t2 = t;
    t2.gbs = 1;
    PrismStrategy s = {.devices = 1024,
                       .dp = 1,
                       .tp = 1,
                       .pp = 1,
                       .vpp = 1,
                       .cp = 1024,
                       .ep = 1,
                       .mbs = 1,
                       .m = 1};
    GError *error = NULL;
    t2.seq = 2048;
    CU_ASSERT_TRUE(prism_strategy_check(&s, m, &t2, &error));
    g_clear_error(&error);
    s.cp = 1024;
    t2.seq = 1024;
    CU_ASSERT_FALSE(prism_strategy_check(&s, m, &t2, &error));
    CU_ASSERT_TRUE(error && g_str_has_prefix(error->message, "R3:"));
    g_clear_error(&error);
}

/* A left-out dp or m that does not divide out, and a key given twice, are named at
 * parse time (not later as "dp=0" by R1). 1024 devices, gbs 1536:
 *   "tp=3": dp = 1024 / 3 is not whole -> R1;
 *   "tp=8": dp = 1024 / 8 = 128, m = 1536 / 128 = 12 -> fine;
 *   "" (all defaults): dp = 1024, m = 1536 / 1024 is not whole -> R8;
 *   "dp=512,tp=2,mbs=2": R1 holds (512 * 2 = 1024), but dp*mbs = 1024 does not divide
 *   1536 -> R8. (With R1 broken, m stays 0 and the shape rules report R1 instead.) */
/* prism_recompute_every_nth: by hand for 32 layers in one chunk (floor(32/N) for N = 2..32:
 * 16, 10, 8, 6, 5, 4, 4, 3, 3, 2 ... 2 (N <= 16), 1 (N = 17..32)), and against a brute
 * force over every N for every chunk size, chunk count and k. */
static void test_every_nth(void)
{
    static const uint32_t want[32] = {
        [1] = 17, [2] = 11, [3] = 9, [4] = 7, [5] = 6, [6] = 5, [8] = 4, [10] = 3, [16] = 2};
    for (uint32_t k = 0; k < 32; k++)
        CU_ASSERT_EQUAL(prism_recompute_every_nth(32, 1, k), want[k]);
    /* 2 chunks of 4 on a rank (8 layers): N = 2 gives 4 = 2 per chunk, N = 3 and 4 give 2
     * = 1 per chunk (smallest N: 3), N = 5..8 give 1, no whole count per chunk */
    CU_ASSERT_EQUAL(prism_recompute_every_nth(4, 2, 2), 2u);
    CU_ASSERT_EQUAL(prism_recompute_every_nth(4, 2, 1), 3u);
    for (uint32_t pc = 1; pc <= 40; pc++)
        for (uint32_t v = 1; v <= 4; v++)
            for (uint32_t k = 0; k <= pc; k++) {
                uint32_t brute = 0;
                for (uint32_t n = 2; n <= pc * v && brute == 0; n++)
                    if ((pc * v) / n == k * v && k >= 1 && k < pc)
                        brute = n;
                CU_ASSERT_EQUAL(prism_recompute_every_nth(pc, v, k), brute);
            }
}

static void test_parse_derived(void)
{
    PrismTraining t;
    prism_training_default(&t);
    PrismStrategy s;
    struct {
        const char *text;
        int code;
        const char *needle;
    } bad[] = {
        {"tp=3", PRISM_INPUT_ERROR_SHAPE, "devices=1024 is not a multiple of tp*pp*cp = 3*1*1"},
        {"", PRISM_INPUT_ERROR_SHAPE, "gbs=1536 is not a multiple of dp*mbs = 1024*1"},
        {"dp=512,tp=2,mbs=2", PRISM_INPUT_ERROR_SHAPE, "(R8: dp*mbs*m = gbs)"},
        {"tp=8,pp=2,tp=4", PRISM_INPUT_ERROR_CONFLICT, "'tp' is given twice"},
        {"recompute=full,recompute=none", PRISM_INPUT_ERROR_CONFLICT, "'recompute'"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        GError *error = NULL;
        CU_ASSERT_FALSE(prism_strategy_parse(bad[i].text, 1024, &t, &s, &error));
        const char *needles[] = {bad[i].needle};
        CU_ASSERT_TRUE(prism_test_input_error(error, bad[i].code, needles, 1, bad[i].text));
        g_clear_error(&error);
    }
    CU_ASSERT_TRUE(prism_strategy_parse("tp=8", 1024, &t, &s, NULL));
    CU_ASSERT_TRUE(s.dp == 128 && s.m == 12);
}

/* The registry (registry.h): every dim and schedule found by its names, the strategy text
 * in the registry's user order with every dim away from its default, R8's micro-batch
 * rules and the chunk placements, each value derived by hand. */
static void test_registry(void)
{
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        const PrismDimInfo *info = prism_dim_info((PrismDim)d);
        PrismDim got = PRISM_DIM_COUNT;
        CU_ASSERT_TRUE(prism_dim_lookup(info->name, &got, NULL) && got == (PrismDim)d);
        if (info->alias != NULL)
            CU_ASSERT_TRUE(prism_dim_lookup(info->alias, &got, NULL) && got == (PrismDim)d);
        CU_ASSERT_TRUE(info->lo <= info->hi && info->allowed != NULL && info->doc != NULL);
    }
    CU_ASSERT_PTR_NULL(prism_dim_info(PRISM_DIM_COUNT));
    for (uint32_t k = 0; k < PRISM_SCHEDULE_COUNT; k++) {
        const PrismScheduleInfo *si = prism_schedule_info(k);
        PrismSchedule got = PRISM_SCHEDULE_COUNT;
        CU_ASSERT_TRUE(prism_schedule_parse(si->name, &got, NULL) && got == (PrismSchedule)k);
        for (size_t a = 0; a < G_N_ELEMENTS(si->aliases) && si->aliases[a] != NULL; a++)
            CU_ASSERT_TRUE(prism_schedule_parse(si->aliases[a], &got, NULL) &&
                           got == (PrismSchedule)k);
    }
    /* 64 devices = dp 4 x tp 2 x pp 4 x cp 2; gbs 64 = dp 4 x mbs 2 x m 8 (m = 2pp, as zb-v
     * needs); etp 1 != tp 2, so folded. Only the text is checked here, not the shape rules. */
    const PrismTraining t = {.gbs = 64, .seq = 4096};
    const char *all = "dp=4,tp=2,pp=4,vpp=2,cp=2,ep=2,etp=1,sp=1,mbs=2,m=8,zero=1,"
                      "recompute=block:1,schedule=zb-v,offload=3,tp_overlap=0,dp_overlap=0,"
                      "param_overlap=0";
    PrismStrategy s;
    CU_ASSERT_TRUE_FATAL(prism_strategy_parse(all, 64, &t, &s, NULL));
    g_autofree char *text = prism_strategy_format(&s);
    CU_ASSERT_STRING_EQUAL(text, all);
    CU_ASSERT_TRUE(s.etp == 1 && s.offload == 3 && s.overlap_off == PRISM_OVERLAP_ALL &&
                   s.rc_layers == 1 && s.schedule == PRISM_SCHEDULE_ZB_V);
    CU_ASSERT_EQUAL(prism_strategy_dim(&s, PRISM_DIM_FOLDING), 1); /* etp != tp */
    CU_ASSERT_EQUAL(prism_strategy_dim(&s, PRISM_DIM_TP_OVERLAP), 0);
    /* R8 at pp = 4: any m; m % 4 == 0; m >= 4; m >= 8; m >= 8 and even */
    CU_ASSERT_TRUE(prism_schedule_m_ok(PRISM_M_ANY, 1, 4));
    CU_ASSERT_TRUE(prism_schedule_m_ok(PRISM_M_MULTIPLE_PP, 8, 4));
    CU_ASSERT_FALSE(prism_schedule_m_ok(PRISM_M_MULTIPLE_PP, 6, 4));
    CU_ASSERT_TRUE(prism_schedule_m_ok(PRISM_M_AT_LEAST_PP, 4, 4));
    CU_ASSERT_FALSE(prism_schedule_m_ok(PRISM_M_AT_LEAST_PP, 3, 4));
    CU_ASSERT_TRUE(prism_schedule_m_ok(PRISM_M_AT_LEAST_2PP, 9, 4));
    CU_ASSERT_FALSE(prism_schedule_m_ok(PRISM_M_AT_LEAST_2PP, 7, 4));
    CU_ASSERT_FALSE(prism_schedule_m_ok(PRISM_M_EVEN_2PP, 9, 4));
    CU_ASSERT_TRUE(prism_schedule_m_ok(PRISM_M_EVEN_2PP, 10, 4));
    CU_ASSERT_FALSE(prism_schedule_m_ok(PRISM_M_EVEN_2PP, 6, 4));
    /* pp = 4, stage 1, chunk 1: loop c*pp+s = 5; V 2pp-1-s = 6; two directions pp-1-s = 2 */
    CU_ASSERT_EQUAL(prism_schedule_place(PRISM_SCHEDULE_INTERLEAVED, 4, 1, 1), 5);
    CU_ASSERT_EQUAL(prism_schedule_place(PRISM_SCHEDULE_ZB_V, 4, 1, 1), 6);
    CU_ASSERT_EQUAL(prism_schedule_place(PRISM_SCHEDULE_DUALPIPE, 4, 1, 1), 2);
    CU_ASSERT_EQUAL(prism_schedule_chunks(PRISM_SCHEDULE_DUALPIPE, 1), 2);
    CU_ASSERT_EQUAL(prism_schedule_chunks(PRISM_SCHEDULE_INTERLEAVED, 5), 5);
}

static CU_TestInfo strategy_tests[] = {
    {"every N-th layer as block:k", test_every_nth},
    {"derived keys and repeated keys", test_parse_derived},
    {"parse defaults", test_parse_defaults},
    {"format round trip", test_format_roundtrip},
    {"parse errors", test_parse_errors},
    {"shape rules", test_rules},
    {"registry of dims and schedules", test_registry},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"strategy", NULL, NULL, NULL, NULL, strategy_tests},
    CU_SUITE_INFO_NULL,
};
