// SPDX-License-Identifier: MIT
/*
 * test_cost_properties.c - properties of the cost model, and an independent naive
 * walker that rebuilds per-stage memory and step time from per-layer terms.
 *
 * Monotonicity (random valid strategies of every zoo model):
 *   - more tp never raises per-device parameter bytes of any layer;
 *   - recompute never raises activations: per layer full <= selective <= none, and the
 *     strategy's peak memory with full <= selective <= none;
 *   - a larger mbs (m halved) never lowers per-layer activations nor the peak.
 * Naive walker (small models): assigns layers to stages from the documented split rule,
 * SIMULATES each stage's schedule (Megatron's warm-up / steady / cool-down order) to find
 * the in-flight activation peak, sums per-layer static bytes, and rebuilds the step time
 * from the schedule formula plus the slowest stage's optimizer update and, for ZeRO-3, the
 * per-unit gather/reduce exposure it rebuilds from the bandwidths (FSDP prefetch: each unit
 * exposes max(0, comm - compute), the stage adds its largest unhidden lead once); it must
 * match explain's per-stage values and the kernel's columns to 1e-9 relative.
 */
#include <string.h>

#include <CUnit/CUnit.h>
#include <json-glib/json-glib.h>

#include <prism/core.h>
#include <prism/cost.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

/* A random valid strategy of @p cm (the first lane of a random batch). */
static gboolean random_strategy(const PrismCostModel *cm, GRand *rng, PrismStrategy *s)
{
    TestBatch b;
    if (!test_random_batch(cm, rng, 1, &b))
        return FALSE;
    *s = (PrismStrategy){.devices = b.key.devices,
                         .dp = (uint32_t)b.dp[0],
                         .tp = (uint32_t)b.tp[0],
                         .pp = b.key.pp,
                         .vpp = b.key.vpp,
                         .cp = (uint32_t)b.cp[0],
                         .ep = (uint32_t)b.ep[0],
                         .mbs = (uint32_t)b.mbs[0],
                         .m = (uint32_t)b.m[0],
                         .sp = (uint8_t)b.sp[0],
                         .zero = (uint8_t)b.zero[0],
                         .recompute = b.key.recompute,
                         .schedule = b.key.schedule,
                         .rc_layers = b.key.rc_layers,
                         .etp = (uint32_t)b.etp[0]};
    test_batch_clear(&b);
    return TRUE;
}

static void test_monotone(void)
{
    GRand *rng = g_rand_new_with_seed(7);
    size_t tp_checks = 0, rc_checks = 0, mbs_checks = 0;
    for (size_t mi = 0; mi < prism_model_zoo_size(); mi++) {
        g_autoptr(PrismCostModel) cm = test_zoo_cost_model(mi, rng);
        const PrismModel *model = prism_cost_model_model(cm);
        const PrismTraining *tr = prism_cost_model_training(cm);
        for (int k = 0; k < 6; k++) {
            PrismStrategy s;
            if (!random_strategy(cm, rng, &s))
                continue;
            /* tp: every layer's parameter bytes at tp and 2*tp (devices doubled) */
            PrismStrategy s2 = s;
            s2.tp *= 2;
            s2.devices *= 2;
            for (uint32_t l = 0; l < model->n_layers; l++) {
                PrismLayerTerms a, b;
                CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, l, &a, NULL));
                CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s2, l, &b, NULL));
                CU_ASSERT_TRUE(b.params_bytes <= a.params_bytes);
                /* recompute, per layer */
                CU_ASSERT_TRUE(a.act_bytes[2] <= a.act_bytes[1]);
                CU_ASSERT_TRUE(a.act_bytes[1] <= a.act_bytes[0]);
                tp_checks++;
            }
            /* recompute, whole strategy: full <= selective <= none */
            double c[3][PRISM_COL_COUNT];
            gboolean ok = TRUE;
            for (int r = 0; r < 3 && ok; r++) {
                PrismStrategy sr = s;
                sr.recompute = (uint8_t)r;
                sr.rc_layers = 0;
                ok = prism_cost_eval_one(cm, &sr, c[r], NULL);
            }
            if (ok) {
                CU_ASSERT_TRUE(c[2][PRISM_COL_MEM_PEAK] <= c[1][PRISM_COL_MEM_PEAK]);
                CU_ASSERT_TRUE(c[1][PRISM_COL_MEM_PEAK] <= c[0][PRISM_COL_MEM_PEAK]);
                rc_checks++;
            }
            /* mbs doubled, m halved */
            if (s.m % 2 == 0) {
                PrismStrategy sb = s;
                sb.mbs *= 2;
                sb.m /= 2;
                double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
                if (prism_strategy_check(&sb, model, tr, NULL) &&
                    prism_cost_eval_one(cm, &s, a, NULL) && prism_cost_eval_one(cm, &sb, b, NULL)) {
                    CU_ASSERT_TRUE(b[PRISM_COL_MEM_PEAK] >= a[PRISM_COL_MEM_PEAK]);
                    PrismLayerTerms x, y;
                    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &x, NULL));
                    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &sb, 1, &y, NULL));
                    for (int r = 0; r < 3; r++)
                        CU_ASSERT_TRUE(y.act_bytes[r] >= x.act_bytes[r]);
                    mbs_checks++;
                }
            }
        }
    }
    printf("\n  %zu layer tp/recompute checks, %zu strategy recompute checks, %zu mbs checks\n",
           tp_checks, rc_checks, mbs_checks);
    CU_ASSERT_TRUE(tp_checks > 1000 && rc_checks > 100 && mbs_checks > 30);
    g_rand_free(rng);
}

/*
 * Peak in-flight activation bytes of stage s by simulating its schedule: after every
 * forward of model chunk c the stage holds act[c] more; after every backward less.
 * Megatron's order: warm-up W forwards, then (forward, backward) pairs, then the
 * remaining backwards. Interleaved: W = min(2(p-s-1) + (v-1)p, m v); forward unit k runs
 * chunk (k mod pv)/p, backward unit k chunk v-1-(k mod pv)/p. 1F1B/ZB-H1: W = p-s-1,
 * or m when the step has fewer micro-batches (m < p-s: every forward first, R8 admits
 * m < pp for 1F1B); GPipe: W = m (every forward first).
 */
static double simulate_peak(const PrismStrategy *st, uint32_t s, const double *act)
{
    const uint32_t p = st->pp, v = st->vpp, m = st->m, total = m * v;
    uint64_t warm;
    if (p == 1)
        warm = 0;
    else if (st->schedule == PRISM_SCHEDULE_GPIPE)
        warm = total;
    else if (st->schedule == PRISM_SCHEDULE_INTERLEAVED)
        warm = MIN(2ull * (p - s - 1) + (uint64_t)(v - 1) * p, total);
    else
        warm = MIN(p - s - 1, total);
    double cur = 0, peak = 0;
    uint64_t f = 0, b = 0;
#define FWD()                                                                                      \
    do {                                                                                           \
        cur += act[v == 1 ? 0 : (f % ((uint64_t)p * v)) / p];                                      \
        f++;                                                                                       \
        peak = cur > peak ? cur : peak;                                                            \
    } while (0)
#define BWD()                                                                                      \
    do {                                                                                           \
        cur -= act[v == 1 ? 0 : v - 1 - (b % ((uint64_t)p * v)) / p];                              \
        b++;                                                                                       \
    } while (0)
    for (uint64_t i = 0; i < warm; i++)
        FWD();
    while (f < total) {
        FWD();
        BWD();
    }
    while (b < total)
        BWD();
#undef FWD
#undef BWD
    return peak;
}

typedef struct Walk {
    double stage_static[64], stage_act[64], stage_time[64], stage_wgrad[64], stage_opt[64];
    double step;
} Walk;

static double level_inv_bw(const PrismCluster *c, double extent, double eff, double *lat)
{
    uint32_t j = prism_cluster_level_for_extent(c, extent);
    *lat = c->levels[j].latency_us * 1e-6;
    return 1.0 / (c->levels[j].bw_GBps * 1e9 * eff);
}

static void walk(const PrismCostModel *cm, const PrismStrategy *st, Walk *w)
{
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismKnobs *kn = prism_cost_model_knobs(cm);
    const PrismTraining *tr = prism_cost_model_training(cm);
    const uint32_t p = st->pp, v = st->vpp, C = p * v;
    const uint32_t L = prism_model_split_layers(model);
    memset(w, 0, sizeof *w);
    /* the documented split: base layers per chunk, extras on chunks 1..rem */
    uint32_t chunk_of[4096], layer_at[4096], n = 0, emb = 0, head = 0;
    for (uint32_t i = 0; i < model->n_layers; i++) {
        PrismLayerKind k = model->layers[i].kind;
        if (k == PRISM_LAYER_BLOCK || k == PRISM_LAYER_MTP)
            layer_at[n++] = i;
        else if (k == PRISM_LAYER_EMBEDDING)
            emb = i;
        else if (k == PRISM_LAYER_HEAD)
            head = i;
    }
    CU_ASSERT_EQUAL_FATAL(n, L);
    for (uint32_t j = 0, at = 0; j < C; j++) {
        uint32_t cnt = L / C + ((j >= 1 && j <= L % C) ? 1u : 0u);
        for (uint32_t q = 0; q < cnt; q++)
            chunk_of[at++] = j;
    }
    /* every layer has a backward working set (bwd_working_set), else full recompute only */
    const gboolean all_work = kn->v[PRISM_KNOB_BWD_WORKING_SET] > 0.5;
    /* gradient accumulation, seconds per parameter per micro-batch: read + write of the
     * gradient buffer (4 B with grad_fp32) at the cluster's HBM rate; the test cluster
     * gives no bandwidth, so 2000 GB/s, times hbm_efficiency */
    const double bytes_p = prism_dtype_bytes(tr->dtype) < 2 ? 2.0 : prism_dtype_bytes(tr->dtype);
    /* params_bytes per parameter: delayed-scaling FP8 keeps an FP8 copy and its transpose */
    const double bytes_pm = bytes_p + (tr->dtype == PRISM_DTYPE_FP8 ? 2.0 : 0.0);
    const double bytes_g = kn->v[PRISM_KNOB_GRAD_FP32] > 0.5 ? 4.0 : bytes_p;
    const double acc_per_param = 2.0 * bytes_g * kn->v[PRISM_KNOB_GRAD_ACCUM_EXPOSED] /
                                 (2000e9 * kn->v[PRISM_KNOB_HBM_EFFICIENCY]);
    /* parameters per device before ZeRO: the parameter bytes, unsharded for ZeRO-3 */
    const double unshard = st->zero >= 3 ? (double)st->dp * st->cp : 1.0;
    for (uint32_t s = 0; s < p; s++) {
        double act[64] = {0}, work = 0, lead = 0;
        for (uint32_t q = 0; q <= L + 1; q++) {
            uint32_t li, j, pos = 0;
            int mode = 0;
            if (q == L) {
                li = emb;
                j = 0;
            } else if (q == L + 1) {
                li = head;
                j = C - 1;
            } else {
                li = layer_at[q];
                j = chunk_of[q];
                pos = q;
                while (pos > 0 && chunk_of[pos - 1] == j)
                    pos--;
                pos = q - pos; /* index within the chunk */
                mode = st->recompute == PRISM_RECOMPUTE_BLOCK ? (pos < st->rc_layers ? 2 : 0)
                                                              : (int)st->recompute;
            }
            if (j % p != s)
                continue;
            PrismLayerTerms t;
            CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, st, li, &t, NULL));
            w->stage_static[s] += t.params_bytes + t.grads_bytes + t.optimizer_bytes;
            act[j / p] += t.act_bytes[mode];
            if ((mode == 2 || all_work) && t.work_bytes > work)
                work = t.work_bytes;
            w->stage_time[s] += t.fwd_s + t.bwd_s + t.recompute_s[mode];
            if (st->zero >= 3) {
                /* ZeRO-3, rebuilt here: the unit's all-gather (fp16/bf16 parameters) and
                 * reduce-scatter (bytes_g) over the n = dp*cp ring, each (n-1)/n of the
                 * unit's bytes plus n-1 latencies; the gather overlaps the forward, gather
                 * again + reduce the backward with its recompute (fsdp_reshard = 1) */
                const double nd = (double)st->dp * st->cp;
                double lat;
                const double ib = level_inv_bw(prism_cost_model_cluster(cm),
                                               (double)st->tp * st->cp * st->dp,
                                               kn->v[PRISM_KNOB_NET_EFFICIENCY], &lat);
                const double pu = t.params_bytes / bytes_p * unshard;
                const double ag = bytes_p * pu * (nd - 1.0) / nd * ib + (nd - 1.0) * lat;
                const double cb = ag + bytes_g * pu * (nd - 1.0) / nd * ib + (nd - 1.0) * lat;
                const double wf = t.fwd_s, wb = t.bwd_s + t.recompute_s[mode];
                w->stage_time[s] += MAX(0.0, ag - wf) + MAX(0.0, cb - wb);
                lead = MAX(lead, MIN(ag, wf) + MIN(cb, wb)); /* the stage's leading unit */
            }
            /* the W pass: the weight-gradient GEMMs (shape model, checked by hand in
             * test_gemm) + the gradient accumulation derived here */
            const double acc = t.params_bytes / bytes_pm * unshard * acc_per_param;
            CU_ASSERT_TRUE(t.wgrad_s >= acc * (1.0 - 1e-12) && t.wgrad_s <= t.bwd_s);
            w->stage_wgrad[s] += t.wgrad_s;
            w->stage_opt[s] += t.opt_step_s;
        }
        w->stage_act[s] = simulate_peak(st, s, act) + work;
        w->stage_time[s] += lead;
        if (p > 1) { /* two sends of T h bytes / t per chunk per micro-batch */
            double lat;
            const double ib = level_inv_bw(prism_cost_model_cluster(cm),
                                           (double)st->tp * st->cp * st->dp * st->pp,
                                           kn->v[PRISM_KNOB_NET_EFFICIENCY], &lat);
            const double V = (double)st->mbs * tr->seq / st->cp * model->hidden * 2.0 / st->tp;
            w->stage_time[s] += 2.0 * v * (V * ib + lat) * (1.0 - kn->v[PRISM_KNOB_PP_OVERLAP]);
        }
    }
    double sum = 0, tmax = 0, usum = 0, umax = 0, opt = 0;
    for (uint32_t s = 0; s < p; s++) {
        /* ZB-H1: (p-1)(F + B - 2W), never below zero */
        const double u = st->schedule == PRISM_SCHEDULE_ZB_H1
                             ? MAX(w->stage_time[s] - 2.0 * w->stage_wgrad[s], 0.0)
                             : w->stage_time[s];
        sum += w->stage_time[s];
        tmax = MAX(tmax, w->stage_time[s]);
        usum += u;
        umax = MAX(umax, u);
        opt = MAX(opt, w->stage_opt[s]);
    }
    (void)sum;
    w->step = st->m * tmax + (usum - umax) / v + opt;
}

static JsonObject *stage_obj(JsonNode *root, uint32_t s)
{
    JsonArray *a = json_object_get_array_member(json_node_get_object(root), "per_stage");
    return json_array_get_object_element(a, s);
}

static void test_walker(void)
{
    GRand *rng = g_rand_new_with_seed(11);
    static const char *const sets[] = {"dp_overlap=1", NULL}; /* the walker has no DP */
    /* the second shape runs without the backward working set and with half the gradient
     * accumulation exposed (both knobs are read by the walker) */
    static const char *const sets_alt[] = {"dp_overlap=1", "bwd_working_set=0",
                                           "grad_accum_exposed=0.5", NULL};
    size_t checked = 0, below = 0, zero3 = 0, sched[PRISM_SCHEDULE_COUNT] = {0};
    const uint32_t shapes[][3] = {{12, 1024, 16}, {21, 768, 12}, {30, 512, 8}};
    for (size_t mi = 0; mi < G_N_ELEMENTS(shapes); mi++) {
        g_autoptr(PrismModel) m =
            test_gpt_model(shapes[mi][0], shapes[mi][1], shapes[mi][2], 32000);
        g_autoptr(PrismCostModel) cm =
            test_cost_model(m, 96, 1024, PRISM_DTYPE_BF16, mi == 1 ? sets_alt : sets);
        for (int k = 0; k < 60; k++) {
            PrismStrategy st;
            if (!random_strategy(cm, rng, &st) || st.pp > 64)
                continue;
            /* m == pp exercises the interleaved warm-up cap */
            if (st.schedule == PRISM_SCHEDULE_INTERLEAVED && k % 3 == 0) {
                PrismStrategy t = st;
                t.m = t.pp;
                t.mbs = (uint32_t)(96 / (t.dp * t.m));
                if (t.mbs >= 1 && t.dp * t.mbs * t.m == 96 &&
                    prism_strategy_check(&t, m, prism_cost_model_training(cm), NULL))
                    st = t;
            }
            /* m < pp exercises 1F1B/GPipe with fewer micro-batches than stages (R8): the
             * largest m < pp that divides gbs/dp */
            if ((st.schedule == PRISM_SCHEDULE_1F1B || st.schedule == PRISM_SCHEDULE_GPIPE) &&
                st.pp > 2 && k % 3 == 1) {
                PrismStrategy t = st;
                for (t.m = t.pp - 1; t.m > 1 && (96 / t.dp) % t.m != 0; t.m--)
                    ;
                t.mbs = (uint32_t)(96 / (t.dp * t.m));
                if (t.dp * t.mbs * t.m == 96 &&
                    prism_strategy_check(&t, m, prism_cost_model_training(cm), NULL)) {
                    st = t;
                    below++;
                }
            }
            Walk w;
            walk(cm, &st, &w);
            g_autofree char *js = prism_cost_explain(cm, &st, TRUE, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(js);
            GError *jerr = NULL;
            g_autoptr(JsonNode) root = json_from_string(js, &jerr);
            if (root == NULL)
                fprintf(stderr, "\n  explain JSON: %s\n%s\n", jerr->message, js);
            CU_ASSERT_PTR_NOT_NULL_FATAL(root);
            gboolean ok = TRUE;
            for (uint32_t s = 0; s < st.pp; s++) {
                JsonObject *o = stage_obj(root, s);
                const double stat = json_object_get_double_member(o, "params") +
                                    json_object_get_double_member(o, "grads") +
                                    json_object_get_double_member(o, "optimizer");
                const double act = json_object_get_double_member(o, "activations");
                ok &= prism_test_close(stat, w.stage_static[s], 1e-9, 0);
                ok &= prism_test_close(act, w.stage_act[s], 1e-9, 0);
                if (!ok) {
                    g_autofree char *txt = prism_strategy_format(&st);
                    fprintf(stderr, "\n  walker differs: %s stage %u static %g/%g act %g/%g\n", txt,
                            s, stat, w.stage_static[s], act, w.stage_act[s]);
                    break;
                }
            }
            double c[PRISM_COL_COUNT];
            CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &st, c, NULL));
            if (!prism_test_close(c[PRISM_COL_TIME_STEP], w.step, 1e-9, 0)) {
                g_autofree char *txt = prism_strategy_format(&st);
                fprintf(stderr, "\n  walker step differs: %s %.12g vs %.12g\n", txt,
                        c[PRISM_COL_TIME_STEP], w.step);
                ok = FALSE;
            }
            CU_ASSERT_TRUE(ok);
            checked++;
            zero3 += st.zero >= 3;
            sched[st.schedule]++;
        }
    }
    printf("\n  %zu strategies walked (1f1b %zu, interleaved %zu, gpipe %zu, zb-h1 %zu; m < pp "
           "%zu; ZeRO-3 %zu)\n",
           checked, sched[0], sched[1], sched[2], sched[3], below, zero3);
    CU_ASSERT_TRUE(checked > 100 && zero3 > 20);
    CU_ASSERT_TRUE(below > 5);
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        CU_ASSERT_TRUE(sched[i] > 0);
    g_rand_free(rng);
}

static CU_TestInfo prop_tests[] = {
    {"monotonicity: tp, recompute, mbs", test_monotone},
    {"naive per-layer, per-stage walker with schedule simulation", test_walker},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cost_properties", NULL, NULL, NULL, NULL, prop_tests},
    CU_SUITE_INFO_NULL,
};
