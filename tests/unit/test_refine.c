// SPDX-License-Identifier: MIT
/*
 * test_refine.c - per-layer recompute and stage boundaries: the surrogate optimum equals
 * an independent brute force over every split and every recompute vector on small
 * sequences (vpp 1), vpp 2 stays feasible and no better than the brute force, chunk
 * fronts are order-independent, and on DeepSeek-V3 the refined layout's numbers are the
 * cost model's own (prism_cost_eval_layout) and never worse than the uniform split.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/dc.h>
#include <prism/refine.h>

#include "prism_test_util.h"

/* Independent evaluation of the surrogate (refine.h): stage time = sum of layer times
 * (+ embedding / head), memory = static + mu * activations + largest work set. */
static int64_t brute_eval(const PrismRefineProblem *p, const uint32_t *sizes, const uint8_t *rc)
{
    int64_t tmax = 0, sum = 0;
    uint32_t q = 0, C = p->pp * p->vpp;
    int64_t st_time[8] = {0}, st_mem[8] = {0}, st_work[8] = {0};
    for (uint32_t j = 0; j < C; j++) {
        uint32_t s = j % p->pp, c = j / p->pp;
        int64_t act = 0;
        for (uint32_t k = 0; k < sizes[j]; k++, q++) {
            st_time[s] += p->layers[q].time_ps[rc[q]];
            st_mem[s] += p->layers[q].static_bytes;
            act += p->layers[q].act_bytes[rc[q]];
            if (p->layers[q].work_bytes > st_work[s])
                st_work[s] = p->layers[q].work_bytes;
        }
        if (j == 0) {
            st_time[s] += p->first_time_ps;
            st_mem[s] += p->first_static;
            act += p->first_act;
        }
        if (j == C - 1) {
            st_time[s] += p->last_time_ps;
            st_mem[s] += p->last_static;
            act += p->last_act;
        }
        st_mem[s] += (int64_t)p->mu[s * p->vpp + c] * act;
    }
    for (uint32_t s = 0; s < p->pp; s++) {
        if (st_mem[s] + st_work[s] > p->budget_bytes)
            return PRISM_DC_INF;
        tmax = st_time[s] > tmax ? st_time[s] : tmax;
        sum += st_time[s];
    }
    return (int64_t)p->m * tmax + (sum - tmax) / (int64_t)p->vpp;
}

/* Minimum over every composition of L into C positive parts and every mode vector. */
static int64_t brute_min(const PrismRefineProblem *p)
{
    const uint32_t L = p->n_layers, C = p->pp * p->vpp;
    int64_t best = PRISM_DC_INF;
    uint32_t sizes[8];
    uint8_t rc[16];
    /* compositions via cut masks over the L-1 gaps with exactly C-1 cuts */
    for (uint32_t mask = 0; mask < (1u << (L - 1)); mask++) {
        if ((uint32_t)__builtin_popcount(mask) != C - 1)
            continue;
        uint32_t j = 0, run = 1;
        for (uint32_t g = 0; g < L - 1; g++) {
            if (mask & (1u << g)) {
                sizes[j++] = run;
                run = 1;
            } else {
                run++;
            }
        }
        sizes[j] = run;
        uint32_t total = 1;
        for (uint32_t q = 0; q < L; q++)
            total *= 3;
        for (uint32_t code = 0; code < total; code++) {
            uint32_t x = code;
            gboolean allowed = TRUE;
            for (uint32_t q = 0; q < L; q++) {
                rc[q] = (uint8_t)(x % 3);
                x /= 3;
                allowed = allowed && (p->modes & (1u << rc[q]));
            }
            if (!allowed)
                continue;
            int64_t v = brute_eval(p, sizes, rc);
            best = v < best ? v : best;
        }
    }
    return best;
}

/* Random layers: none is fastest with the most activations, full the slowest with the
 * fewest (as in a real model), selective in between. */
static void random_problem(GRand *rng, PrismRefineProblem *p, PrismRefineLayer *layers, double *mu,
                           uint32_t L, uint32_t pp, uint32_t vpp)
{
    memset(p, 0, sizeof *p);
    for (uint32_t q = 0; q < L; q++) {
        int64_t t = g_rand_int_range(rng, 50, 150), a = g_rand_int_range(rng, 20, 100);
        layers[q] = (PrismRefineLayer){
            .time_ps = {t, t + g_rand_int_range(rng, 1, 20), t + g_rand_int_range(rng, 20, 60)},
            .act_bytes = {a, a / 2 + g_rand_int_range(rng, 0, 10), g_rand_int_range(rng, 1, 8)},
            .static_bytes = g_rand_int_range(rng, 10, 60),
            .work_bytes = g_rand_int_range(rng, 0, 30)};
    }
    p->layers = layers;
    p->n_layers = L;
    p->pp = pp;
    p->vpp = vpp;
    p->m = (uint32_t)g_rand_int_range(rng, (gint32)pp, 9);
    for (uint32_t s = 0; s < pp; s++)
        for (uint32_t c = 0; c < vpp; c++)
            mu[s * vpp + c] = prism_refine_inflight(
                vpp > 1 ? PRISM_SCHEDULE_INTERLEAVED : PRISM_SCHEDULE_1F1B, pp, vpp, p->m, s, c);
    p->modes = g_rand_int_range(rng, 0, 4) == 0 ? 5u : 7u; /* sometimes no selective */
    p->mu = mu;
    p->first_time_ps = g_rand_int_range(rng, 0, 40);
    p->first_static = g_rand_int_range(rng, 0, 80);
    p->first_act = g_rand_int_range(rng, 0, 20);
    p->last_time_ps = g_rand_int_range(rng, 0, 120);
    p->last_static = g_rand_int_range(rng, 0, 80);
    p->last_act = g_rand_int_range(rng, 0, 40);
    p->budget_bytes = g_rand_int_range(rng, 150, 900);
}

static void test_brute_force_vpp1(void)
{
    GRand *rng = g_rand_new_with_seed(61);
    int feasible = 0, infeasible = 0, mixed = 0;
    for (int trial = 0; trial < 150; trial++) {
        uint32_t L = (uint32_t)g_rand_int_range(rng, 1, 8);
        uint32_t pp = (uint32_t)g_rand_int_range(rng, 1, (gint32)MIN(L, 3u) + 1);
        PrismRefineProblem p;
        PrismRefineLayer layers[16];
        double mu[8];
        random_problem(rng, &p, layers, mu, L, pp, 1);
        int64_t want = brute_min(&p);
        GError *error = NULL;
        PrismRefineSolution *sol = prism_refine_solve(&p, &error);
        if (want == PRISM_DC_INF) {
            CU_ASSERT_PTR_NULL(sol);
            CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE));
            infeasible++;
        } else {
            CU_ASSERT_PTR_NOT_NULL(sol);
            if (sol != NULL) {
                CU_ASSERT_EQUAL(sol->step_ps, want);
                CU_ASSERT_EQUAL(brute_eval(&p, sol->chunk_layers, sol->layer_rc), want);
                uint32_t seen = 0;
                for (uint32_t q = 0; q < L; q++)
                    seen |= 1u << sol->layer_rc[q];
                if (__builtin_popcount(seen) > 1)
                    mixed++;
            }
            feasible++;
        }
        g_clear_error(&error);
        prism_refine_solution_free(sol);
    }
    /* the instances exercise both outcomes and real per-layer mixes */
    CU_ASSERT_TRUE(feasible > 30 && infeasible > 5 && mixed > 5);
    g_rand_free(rng);
}

static void test_vpp2_conservative(void)
{
    GRand *rng = g_rand_new_with_seed(62);
    int solved = 0, optimal = 0, possible = 0;
    for (int trial = 0; trial < 40; trial++) {
        uint32_t L = (uint32_t)g_rand_int_range(rng, 4, 8);
        PrismRefineProblem p;
        PrismRefineLayer layers[16];
        double mu[8];
        random_problem(rng, &p, layers, mu, L, 2, 2);
        p.budget_bytes *= 3;
        int64_t want = brute_min(&p);
        PrismRefineSolution *sol = prism_refine_solve(&p, NULL);
        possible += want != PRISM_DC_INF;
        if (sol != NULL) {
            /* feasible by the exact stage check, and never better than the optimum */
            CU_ASSERT_TRUE(sol->step_ps != PRISM_DC_INF && sol->step_ps >= want);
            CU_ASSERT_EQUAL(brute_eval(&p, sol->chunk_layers, sol->layer_rc), sol->step_ps);
            solved++;
            optimal += sol->step_ps == want;
        }
        prism_refine_solution_free(sol);
    }
    /* not vacuous: most instances that have a solution get one, some the optimum */
    printf("[vpp 2: %d of %d solvable solved, %d optimal] ", solved, possible, optimal);
    CU_ASSERT_TRUE(possible >= 20 && solved * 4 >= possible * 3 && optimal > 0);
    g_rand_free(rng);
}

static void test_hand_example(void)
{
    /* Two identical layers, pp = 1, m = 4 (so step = 4 * T): time none 10 / sel 12 /
     * full 15, activations 40 / 20 / 5, static 10 each, no work set, budget 80.
     * All none: mem 20 + 80 = 100 > 80. One none + one sel: 20 + 60 = 80 fits, T = 22.
     * Two sel: 20 + 40 = 60, T = 24. So the optimum is 4 * 22 = 88 with modes
     * (none, sel) or (sel, none); canonical recovery gives the LAST layer the smallest
     * mode: rc = [sel, none]. */
    PrismRefineLayer l = {.time_ps = {10, 12, 15}, .act_bytes = {40, 20, 5}, .static_bytes = 10};
    PrismRefineLayer layers[2] = {l, l};
    double mu[1] = {1};
    PrismRefineProblem p = {.n_layers = 2,
                            .layers = layers,
                            .pp = 1,
                            .vpp = 1,
                            .m = 4,
                            .mu = mu,
                            .budget_bytes = 80,
                            .modes = 7};
    g_autoptr(PrismRefineSolution) sol = prism_refine_solve(&p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sol);
    CU_ASSERT_EQUAL(sol->step_ps, 88);
    CU_ASSERT_EQUAL(sol->layer_rc[0], 1);
    CU_ASSERT_EQUAL(sol->layer_rc[1], 0);
    CU_ASSERT_EQUAL(sol->stage_mem[0], 80);
    /* pp = 2, m = 4: one layer per stage, mu = 2 on stage 0 and 1 on stage 1 (1F1B).
     * Stage 0: 10 + 2a <= 80 -> a <= 35 -> sel (20), T0 = 12; stage 1: 10 + 40 fits, none,
     * T1 = 10. step = 4 * 12 + 10 = 58. */
    double mu2[2] = {2, 1};
    p.pp = 2;
    p.mu = mu2;
    g_autoptr(PrismRefineSolution) s2 = prism_refine_solve(&p, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s2);
    CU_ASSERT_EQUAL(s2->step_ps, 58);
    CU_ASSERT_EQUAL(s2->layer_rc[0], 1);
    CU_ASSERT_EQUAL(s2->layer_rc[1], 0);
}

static void test_inflight_rule(void)
{
    /* 1F1B: min(pp - s, m); GPipe: m; pp = 1: 1. Interleaved pp = 4, vpp = 2, m = 8 (16 units):
     * stage 0 warms up with 2*3 + 4 = 10 forwards (chunk 0: units 0-3, 8-9 = 6; chunk 1:
     * 4); then each forward is followed by a backward (backward units 0-3 run chunk 1,
     * 4-7 chunk 0): states after each forward are (7,4) (8,3) (8,3) (8,3) (8,3) (7,4),
     * so the per-chunk maxima are 8 and 4. Stage 3 warms up with 4 (chunk 0 = 4); the
     * states are (4,1) x4, (5,0) x4, (4,1) x4 -> maxima 5 and 1. */
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_1F1B, 8, 1, 32, 3, 0), 5.0);
    /* m = 3 < pp = 8 (R8 admits it for 1F1B): stage 2 holds min(6, 3) = 3, stage 6 min(2, 3) */
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_1F1B, 8, 1, 3, 2, 0), 3.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_1F1B, 8, 1, 3, 6, 0), 2.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_GPIPE, 8, 1, 32, 3, 0), 32.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_1F1B, 1, 1, 32, 0, 0), 1.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_INTERLEAVED, 4, 2, 8, 0, 0), 8.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_INTERLEAVED, 4, 2, 8, 0, 1), 4.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_INTERLEAVED, 4, 2, 8, 3, 0), 5.0);
    CU_ASSERT_EQUAL(prism_refine_inflight(PRISM_SCHEDULE_INTERLEAVED, 4, 2, 8, 3, 1), 1.0);
}

static PrismCostModel *deepseek(GError **error)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("deepseek-v3", error);
    g_autoptr(PrismCluster) c = prism_cluster_preset("H100-SXM", error);
    if (m == NULL || c == NULL)
        return NULL;
    PrismTraining tr;
    prism_training_default(&tr);
    tr.gbs = 1024;
    tr.seq = 4096;
    PrismKnobs k;
    prism_knobs_default(&k);
    return prism_cost_model_new(m, c, &tr, &k, error);
}

static void test_deepseek_exact_numbers(void)
{
    GError *error = NULL;
    g_autoptr(PrismCostModel) cm = deepseek(&error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    const PrismTraining *tr = prism_cost_model_training(cm);
    /* 62 split layers (61 blocks + 1 MTP) over pp = 16: uneven by construction */
    const char *texts[] = {"tp=8,pp=16,ep=8,recompute=full", "tp=4,pp=16,ep=16,recompute=selective",
                           "tp=8,pp=16,vpp=2,ep=8,recompute=full"};
    PrismStrategy s[3];
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_TRUE_FATAL(prism_strategy_parse(texts[i], 1024, tr, &s[i], &error));
        CU_ASSERT_TRUE_FATAL(prism_strategy_check(&s[i], prism_cost_model_model(cm), tr, &error));
    }
    g_autoptr(GPtrArray) res = prism_refine_run(cm, s, 3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    int improved = 0;
    for (guint i = 0; i < res->len; i++) {
        const PrismRefineResult *r = g_ptr_array_index(res, i);
        /* the reported numbers are the cost model's, for the reported layout */
        double cols[PRISM_COL_COUNT];
        CU_ASSERT_TRUE(prism_cost_eval_layout(cm, &r->strategy, r->refined, cols, NULL));
        CU_ASSERT_EQUAL(memcmp(cols, r->refined_cols, sizeof cols), 0);
        CU_ASSERT_TRUE(prism_cost_eval_layout(cm, &r->strategy, r->uniform, cols, NULL));
        CU_ASSERT_EQUAL(memcmp(cols, r->uniform_cols, sizeof cols), 0);
        /* the uniform layout is the cost model's default: the same as eval_one */
        CU_ASSERT_TRUE(prism_cost_eval_one(cm, &r->strategy, cols, NULL));
        CU_ASSERT_EQUAL(cols[PRISM_COL_TIME_STEP], r->uniform_cols[PRISM_COL_TIME_STEP]);
        /* never worse, always feasible when it claims a gain; the layout covers 62 layers */
        CU_ASSERT_TRUE(r->refined_cols[PRISM_COL_TIME_STEP] <=
                           r->uniform_cols[PRISM_COL_TIME_STEP] ||
                       r->uniform_cols[PRISM_COL_FEASIBLE] < 0.5);
        uint32_t sum = 0;
        for (uint32_t j = 0; j < r->refined->pp * r->refined->vpp; j++)
            sum += r->refined->chunk_layers[j];
        CU_ASSERT_EQUAL(sum, 62);
        if (r->improved) {
            improved++;
            CU_ASSERT_TRUE(r->refined_cols[PRISM_COL_FEASIBLE] > 0.5);
            /* faster, or made to fit (an infeasible uniform layout: any gain below 1) */
            CU_ASSERT_TRUE(r->gain < 1.0 &&
                           (r->gain > 0.0 || r->uniform_cols[PRISM_COL_FEASIBLE] < 0.5));
        }
    }
    CU_ASSERT_TRUE(improved >= 2);
}

/* Explicit layouts that do not fit the model or the strategy are refused with the reason
 * (cost_stages.c, check_layout); a fitting uneven one evaluates. DeepSeek-V3 has 62 split
 * layers (61 blocks + 1 MTP); the strategy has pp 16. */
static void test_layout_refusals(void)
{
    GError *error = NULL;
    g_autoptr(PrismCostModel) cm = deepseek(&error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    PrismStrategy s;
    CU_ASSERT_TRUE_FATAL(prism_strategy_parse("tp=8,pp=16,ep=8,recompute=full", 1024,
                                              prism_cost_model_training(cm), &s, &error));
    static const char *const want[] = {
        "layout pp=8 vpp=1 does not match the strategy (pp=16 vpp=1)",
        "layout has 61 layers; model 'deepseek-v3' has 62 (blocks + MTP)",
        "layout chunks hold 60 layers; the model has 62",
        "layout layer 5: recompute code 3 (allowed none, selective, full)",
    };
    for (int k = 0; k <= (int)G_N_ELEMENTS(want); k++) {
        const uint32_t pp = k == 0 ? 8 : 16, n = k == 1 ? 61 : 62;
        g_autoptr(PrismLayout) l = prism_layout_new(pp, 1, n);
        /* n / pp layers per chunk, one more on the first n % pp chunks */
        for (uint32_t j = 0; j < pp; j++)
            l->chunk_layers[j] = n / pp + (j < n % pp);
        if (k == 2)
            l->chunk_layers[0] -= 2;
        for (uint32_t i = 0; i < n; i++)
            l->layer_rc[i] = i == 5 && k == 3 ? 3 : PRISM_RECOMPUTE_FULL;
        double cols[PRISM_COL_COUNT];
        const gboolean ok = prism_cost_eval_layout(cm, &s, l, cols, &error);
        if (k == (int)G_N_ELEMENTS(want)) { /* every rule kept: it evaluates */
            CU_ASSERT_TRUE(ok && cols[PRISM_COL_TIME_STEP] > 0);
            g_clear_error(&error);
            continue;
        }
        CU_ASSERT_FALSE(ok);
        const gboolean said = g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE) &&
                              strstr(error->message, want[k]) != NULL;
        CU_ASSERT_TRUE(said);
        if (!said)
            printf("\n  case %d: %s\n", k, error ? error->message : "(accepted)");
        g_clear_error(&error);
    }
}

static CU_TestInfo refine_tests[] = {
    {"surrogate optimum = brute force (vpp 1)", test_brute_force_vpp1},
    {"vpp 2: feasible, not better than brute force", test_vpp2_conservative},
    {"hand example: per-layer modes and stage weights", test_hand_example},
    {"in-flight micro-batches per schedule", test_inflight_rule},
    {"DeepSeek-V3: exact cost-model numbers, never worse", test_deepseek_exact_numbers},
    {"explicit layouts: each refusal with its reason", test_layout_refusals},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"refine", NULL, NULL, NULL, NULL, refine_tests},
    CU_SUITE_INFO_NULL,
};
