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
 * Naive walker (small models): assigns layers to stages from the documented split rule
 * and each schedule's chunk placement, SIMULATES each stage's schedule to find the
 * in-flight activation peak — Megatron's warm-up / steady / cool-down order (1F1B, GPipe,
 * ZB-H1, interleaved), the same over sequence chunks (seq1F1B), and the eight steps of
 * DeepSeek's DualPipe / DualPipeV code (and ZB-V as DualPipeV's order without the overlapped
 * pairs) — sums per-layer static bytes, and rebuilds the step time from the schedule's
 * bubble formula plus the slowest stage's optimizer update and, for ZeRO-3, the
 * per-unit gather/reduce exposure it rebuilds from the bandwidths (FSDP prefetch: each unit
 * exposes max(0, comm - compute), the stage adds its largest unhidden lead once); it must match
 * explain's per-stage values and the kernel's columns to 1e-9 relative.
 */
#include <string.h>

#include <CUnit/CUnit.h>

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
                         .etp = (uint32_t)b.etp[0],
                         .offload = b.key.offload};
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
        const gboolean sac = prism_cost_model_knobs(cm)->v[PRISM_KNOB_SELECTIVE_POLICY] > 0.5;
        const gboolean kept = prism_cost_model_knobs(cm)->v[PRISM_KNOB_GRAD_LOWP_KEPT] > 0.5;
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
                /* recompute, per layer. Per-op SAC (selective_policy = 1) saves the
                 * row-parallel w2 output, T x h before its reduction, which no-recompute
                 * autograd never keeps: at large tp with SP it may keep more than none, so
                 * selective <= none is a law of Korthikanti's policy only */
                CU_ASSERT_TRUE(a.act_bytes[2] <= a.act_bytes[1]);
                CU_ASSERT_TRUE(sac || a.act_bytes[1] <= a.act_bytes[0]);
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
                CU_ASSERT_TRUE(sac || c[1][PRISM_COL_MEM_PEAK] <= c[0][PRISM_COL_MEM_PEAK]);
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
                    /* grad_lowp_kept: a backward ends holding the 16-bit gradients beside
                     * the other in-flight micro-batches; with every micro-batch in flight
                     * (GPipe, or m below the schedule's depth) fewer, larger ones leave
                     * fewer beside them, so that peak may fall */
                    const gboolean few =
                        kept && (s.schedule == PRISM_SCHEDULE_GPIPE || sb.m < 2u * s.pp * s.vpp);
                    CU_ASSERT_TRUE(few || b[PRISM_COL_MEM_PEAK] >= a[PRISM_COL_MEM_PEAK]);
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
/*
 * The eight steps of DeepSeek's DualPipe / DualPipeV step() for one rank r of P ranks and
 * M micro-batches per phase (DualPipeV: P = pp, M = m, r = s, phase 0 = chunk 0 and phase 1
 * = chunk 1 of the V; DualPipe: P = pp/2, M = m/2, r = min(s, pp-1-s), phase 0 = the
 * direction this rank is early in), with the memory effect of each op: a forward adds its
 * phase's activations, a backward (its W included) releases them:
 *   1 nF0     2(P-r-1) x F0          5 nB1F1B0   P-r-1 x B1, (F1&B0)
 *   2 nF0F1   r+1 x F0, F1           6 nB1B0     r+1 x B1, B0
 *   3 nB1W1F1 P-r-1 x B1, F1         7 nWB0      P-r-1 x B0
 *   4 main    M-2P+r+1 x (F0&B1), (F1&B0)        8 nW       (weights only)
 * An overlapped pair F&B holds both micro-batches: the forward counts before the backward
 * frees. @p overlap = FALSE runs each pair backward-first (ZB-V: no second micro-batch is
 * held, so the peak stays at 1F1B's 2pp chunk units). Returns the peak after any forward.
 */
static double dual_peak(uint64_t P, uint64_t M, uint64_t r, const double act[2], gboolean overlap)
{
    double cur = 0, peak = 0;
    uint64_t nf[2] = {0, 0}, nb[2] = {0, 0};
#define F(c)                                                                                       \
    do {                                                                                           \
        cur += act[c];                                                                             \
        nf[c]++;                                                                                   \
        peak = cur > peak ? cur : peak;                                                            \
    } while (0)
#define B(c)                                                                                       \
    do {                                                                                           \
        cur -= act[c];                                                                             \
        nb[c]++;                                                                                   \
    } while (0)
#define PAIR(f, b)                                                                                 \
    do {                                                                                           \
        if (overlap) {                                                                             \
            F(f);                                                                                  \
            B(b);                                                                                  \
        } else {                                                                                   \
            B(b);                                                                                  \
            F(f);                                                                                  \
        }                                                                                          \
    } while (0)
    for (uint64_t i = 0; i < 2 * (P - r - 1); i++)
        F(0);
    for (uint64_t i = 0; i < r + 1; i++) {
        F(0);
        F(1);
    }
    for (uint64_t i = 0; i < P - r - 1; i++) {
        B(1);
        F(1);
    }
    for (uint64_t i = 0; i < M - 2 * P + r + 1; i++) {
        PAIR(0, 1);
        PAIR(1, 0);
    }
    for (uint64_t i = 0; i < P - r - 1; i++) {
        B(1);
        PAIR(1, 0);
    }
    for (uint64_t i = 0; i < r + 1; i++) {
        B(1);
        B(0);
    }
    for (uint64_t i = 0; i < P - r - 1; i++)
        B(0);
#undef F
#undef B
#undef PAIR
    /* every micro-batch ran forward and backward once per phase */
    CU_ASSERT_TRUE(nf[0] == M && nf[1] == M && nb[0] == M && nb[1] == M);
    CU_ASSERT_TRUE(cur < 1e-6 * peak + 1e-300 && cur > -1e-6 * peak - 1e-300);
    return peak;
}

static double simulate_peak(const PrismStrategy *st, uint32_t s, const double *act_in, double k)
{
    const uint32_t p = st->pp;
    if (p > 1 && (st->schedule == PRISM_SCHEDULE_ZB_V || st->schedule == PRISM_SCHEDULE_DUALPIPE_V))
        return dual_peak(p, st->m, s, act_in, st->schedule == PRISM_SCHEDULE_DUALPIPE_V);
    if (p > 1 && st->schedule == PRISM_SCHEDULE_DUALPIPE) {
        /* act_in[0]: stage s of direction A; act_in[1]: stage p-1-s of direction B */
        const uint32_t r = MIN(s, p - 1 - s);
        const gboolean first_half = s < p / 2;
        const double ph[2] = {first_half ? act_in[0] : act_in[1],
                              first_half ? act_in[1] : act_in[0]};
        return dual_peak(p / 2, st->m / 2, r, ph, TRUE);
    }
    /* seq1F1B: 1F1B over m*k sequence chunks of 1/k micro-batch; the backward of a
     * micro-batch's chunks starts after its k forwards (later chunks attend to earlier
     * ones), so the warm-up is k - 1 chunks longer */
    const gboolean seq = p > 1 && st->schedule == PRISM_SCHEDULE_SEQ1F1B;
    const uint32_t ku = seq ? (uint32_t)k : 1;
    double act[64];
    for (uint32_t c = 0; c < st->vpp && c < 64; c++)
        act[c] = act_in[c] / ku;
    const uint32_t v = st->vpp, m = st->m * ku, total = m * v;
    uint64_t warm;
    if (p == 1)
        warm = 0;
    else if (st->schedule == PRISM_SCHEDULE_GPIPE)
        warm = total;
    else if (st->schedule == PRISM_SCHEDULE_INTERLEAVED)
        warm = MIN(2ull * (p - s - 1) + (uint64_t)(v - 1) * p, total);
    else
        warm = MIN(p - s - 1 + (ku - 1), total);
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

/* The documented placement: which virtual chunk (model order) stage s runs as its chunk c.
 * Interleaved order c*p + s; V schedules s then 2p-1-s; DualPipe stage s of direction A
 * and stage p-1-s of direction B. */
static uint32_t walk_chunk(const PrismStrategy *st, uint32_t s, uint32_t c)
{
    const uint32_t p = st->pp;
    switch (st->schedule) {
    case PRISM_SCHEDULE_ZB_V:
    case PRISM_SCHEDULE_DUALPIPE_V:
        return c == 0 ? s : 2 * p - 1 - s;
    case PRISM_SCHEDULE_DUALPIPE:
        return c == 0 ? s : p - 1 - s;
    default:
        return c * p + s;
    }
}

static void walk(const PrismCostModel *cm, const PrismStrategy *st, Walk *w)
{
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismKnobs *kn = prism_cost_model_knobs(cm);
    const PrismTraining *tr = prism_cost_model_training(cm);
    const uint32_t p = st->pp, C = p * st->vpp;
    /* chunks per stage: DualPipe holds two stages' layers with vpp = 1 */
    const uint32_t v = st->schedule == PRISM_SCHEDULE_DUALPIPE ? 2 : st->vpp;
    const double k_seq = kn->v[PRISM_KNOB_SEQ1F1B_SPLITS];
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
            uint32_t c = 0;
            while (c < v && walk_chunk(st, s, c) != j)
                c++;
            if (c == v)
                continue;
            PrismLayerTerms t;
            CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, st, li, &t, NULL));
            w->stage_static[s] += t.params_bytes + t.grads_bytes + t.optimizer_bytes;
            act[c] += t.act_bytes[mode];
            if ((mode == 2 || all_work) && t.work_bytes > work)
                work = t.work_bytes;
            w->stage_time[s] += t.fwd_s + t.bwd_s + t.recompute_s[mode];
            if (q < L) {
                /* the host floor (cost/README.md, "Latency-bound work"): a block's
                 * micro-batch takes at least the launches of its kernels, forward again
                 * under full recompute, and a host-bound forward delays the backward by
                 * its launches' excess over the forward's device time; the embedding and
                 * the head pay none. At tp > 1 each part of the block (mixer, MLP) adds
                 * one TP collective launch per pass, two with SP (reduce-scatter +
                 * all-gather) */
                const double launch = kn->v[PRISM_KNOB_LAUNCH_US] * 1e-6;
                const PrismBlockSpec *bs = &model->specs[model->layers[li].spec];
                const double tpl =
                    st->tp > 1 ? launch * (double)prism_block_norms(bs) * (st->sp ? 2.0 : 1.0)
                               : 0.0;
                const double host_f = launch * kn->v[PRISM_KNOB_LAYER_KERNELS_FWD] + tpl;
                const double host = host_f * (mode == 2 ? 2.0 : 1.0) +
                                    launch * kn->v[PRISM_KNOB_LAYER_KERNELS_BWD] + tpl;
                const double dev = t.fwd_s + t.bwd_s + t.recompute_s[mode];
                w->stage_time[s] += MAX(0.0, MAX(host - dev, host_f - t.fwd_s));
            }
            if (st->zero >= 3) {
                /* ZeRO-3, rebuilt here: the unit's all-gather (fp16/bf16 parameters) and
                 * reduce-scatter (bytes_g) over the n = dp*cp ring, each (n-1)/n of the
                 * unit's bytes plus n-1 latencies; the gather overlaps the forward, gather
                 * again + reduce the backward with its recompute (fsdp_reshard = 1) */
                const double nd = (double)st->dp * st->cp;
                double lat;
                const double ib =
                    level_inv_bw(prism_cost_model_cluster(cm), (double)st->tp * st->cp * st->dp,
                                 kn->v[PRISM_KNOB_NET_EFFICIENCY], &lat);
                /* nccl_model (NVIDIA/nccl tuning.cc at b6475625, Simple ring): of the n-1
                 * steps of a gather or reduce-scatter, nNodes-1 cross the network at 14 us,
                 * the rest stay on the node's NVLink at 3.4 us; a base latency of 8.4 us
                 * per collective. nNodes counted here by walking the ring's members (rank
                 * r of the group is device r*tp, the test cluster has 8 per node). */
                double base = 0.0, steps_lat = (nd - 1.0) * lat;
                if (kn->v[PRISM_KNOB_NCCL_MODEL] > 0.5) {
                    double nodes = 0.0;
                    for (uint32_t r = 0, last = UINT32_MAX; r < (uint32_t)nd; r++) {
                        const uint32_t node = r * st->tp / 8u;
                        nodes += node != last ? 1.0 : 0.0;
                        last = node;
                    }
                    steps_lat = (nd - nodes) * 3.4e-6 + (nodes - 1.0) * 14.0e-6;
                    base = nd > 1.0 ? 8.4e-6 : 0.0;
                }
                const double pu = t.params_bytes / bytes_p * unshard;
                const double ag = bytes_p * pu * (nd - 1.0) / nd * ib + steps_lat + base;
                const double cb = ag + bytes_g * pu * (nd - 1.0) / nd * ib + steps_lat + base;
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
        /* seq1F1B's backward runs one sequence chunk at a time: 1/k of the working set */
        const double wk = st->schedule == PRISM_SCHEDULE_SEQ1F1B ? work / k_seq : work;
        w->stage_act[s] = simulate_peak(st, s, act, k_seq) + wk;
        w->stage_time[s] += lead;
        if (p > 1) { /* two sends of T h bytes / t per chunk per micro-batch */
            /* point-to-point: inside the node (8 devices) if the pipeline is, else one
             * device on each of two nodes (16 devices' level) */
            const double xp = (double)st->tp * st->cp * st->dp * st->pp;
            double lat;
            const double ib = level_inv_bw(prism_cost_model_cluster(cm), xp > 8.0 ? 16.0 : xp,
                                           kn->v[PRISM_KNOB_NET_EFFICIENCY], &lat);
            const double V = (double)st->mbs * tr->seq / st->cp * model->hidden * 2.0 / st->tp;
            /* seq1F1B sends each activation as k messages, one per sequence chunk */
            const double msgs = st->schedule == PRISM_SCHEDULE_SEQ1F1B ? k_seq : 1.0;
            w->stage_time[s] +=
                2.0 * v * (V * ib + lat * msgs) * (1.0 - kn->v[PRISM_KNOB_PP_OVERLAP]);
        }
    }
    /* bubble per schedule (cost/README.md): 1F1B, GPipe (p-1)T; interleaved (p-1)T/v;
     * ZB-H1 (p-1)(T-2W) (Qi et al.); seq1F1B (p-1)T/k; ZB-V and DualPipeV (PP/2-1)(F&B+B-3W)
     * per chunk with PP = 2p chunks, F&B = F+B and B = W: (p-1)(T-3W)/2; DualPipe the same
     * with PP = p: (p/2-1)(T-3W)/2 — written as max(0, sigma sum u - max u) * rho */
    const PrismSchedule sch = (PrismSchedule)st->schedule;
    const gboolean zb3 = sch == PRISM_SCHEDULE_ZB_V || sch == PRISM_SCHEDULE_DUALPIPE ||
                         sch == PRISM_SCHEDULE_DUALPIPE_V;
    const double kappa = sch == PRISM_SCHEDULE_ZB_H1 ? 2.0 : zb3 ? 3.0 : 0.0;
    const double sigma = sch == PRISM_SCHEDULE_DUALPIPE ? 0.5 : 1.0;
    const double rho = sch == PRISM_SCHEDULE_SEQ1F1B && p > 1 ? 1.0 / k_seq : zb3 ? 0.5 : 1.0 / v;
    /* DualPipe: each direction carries m/2 micro-batches through one of the two stages */
    const double share = sch == PRISM_SCHEDULE_DUALPIPE ? 0.5 : 1.0;
    double sum = 0, tmax = 0, usum = 0, umax = 0, opt = 0;
    for (uint32_t s = 0; s < p; s++) {
        /* zero-bubble schedules: never below zero per unit (the kernel's clamp) */
        const double u = MAX(w->stage_time[s] - kappa * w->stage_wgrad[s], 0.0);
        sum += w->stage_time[s];
        tmax = MAX(tmax, w->stage_time[s]);
        usum += u;
        umax = MAX(umax, u);
        opt = MAX(opt, w->stage_opt[s]);
    }
    (void)sum;
    const double bub = sigma * usum - umax;
    w->step = share * st->m * tmax + (bub > 0 ? bub : 0.0) * rho + opt;
}

/* Walk @p st and compare with explain's per-stage memory and the kernel's step time. */
static gboolean walker_agrees(const PrismCostModel *cm, const PrismStrategy *stp)
{
    const PrismStrategy st = *stp;
    Walk w;
    walk(cm, &st, &w);
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &st, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    gboolean ok = TRUE;
    for (uint32_t s = 0; s < st.pp; s++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, s, &sd);
        const double stat = sd.params + sd.grads + sd.optimizer;
        const double act = sd.activations;
        ok &= prism_test_close(stat, w.stage_static[s], 1e-9, 0);
        ok &= prism_test_close(act, w.stage_act[s], 1e-9, 0);
        if (!ok) {
            g_autofree char *txt = prism_strategy_format(&st);
            fprintf(stderr, "\n  walker differs: %s stage %u static %g/%g act %g/%g\n", txt, s,
                    stat, w.stage_static[s], act, w.stage_act[s]);
            break;
        }
    }
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &st, c, NULL));
    if (!prism_test_close(c[PRISM_COL_TIME_STEP], w.step, 1e-9, 0)) {
        g_autofree char *txt = prism_strategy_format(&st);
        fprintf(stderr, "\n  walker step differs: %s %.12g vs %.12g\n", txt, c[PRISM_COL_TIME_STEP],
                w.step);
        ok = FALSE;
    }
    return ok;
}

static void test_walker(void)
{
    GRand *rng = g_rand_new_with_seed(11);
    /* the walker has no DP, prices ZeRO-3's collectives at one device's NIC and hides them
     * for free (nic_spread and nccl_sms are test_cost_formulas' and test_cost_dist's) */
    static const char *const sets[] = {"dp_overlap=1", "nic_spread=0", "nccl_sms=0", NULL};
    /* the second shape runs without the backward working set and with half the gradient
     * accumulation exposed (both knobs are read by the walker) */
    static const char *const sets_alt[] = {
        "dp_overlap=1", "bwd_working_set=0", "grad_accum_exposed=0.5",
        "nic_spread=0", "nccl_sms=0",        NULL};
    size_t checked = 0, below = 0, lowest = 0, zero3 = 0, sched[PRISM_SCHEDULE_COUNT] = {0};
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
            st.offload = 0; /* the walker simulates schedules; offload: test_cost_formulas */
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
            if ((st.schedule == PRISM_SCHEDULE_1F1B || st.schedule == PRISM_SCHEDULE_GPIPE ||
                 st.schedule == PRISM_SCHEDULE_SEQ1F1B) &&
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
            /* m at the lower bound 2pp of zb-v, dualpipe and dualpipe-v (their warm-up just
             * completes): the smallest valid m >= 2pp that divides gbs/dp */
            if ((st.schedule == PRISM_SCHEDULE_ZB_V || st.schedule == PRISM_SCHEDULE_DUALPIPE ||
                 st.schedule == PRISM_SCHEDULE_DUALPIPE_V) &&
                k % 3 == 0) {
                PrismStrategy t = st;
                for (t.m = 2 * t.pp; t.m < st.m; t.m++) {
                    t.mbs = (uint32_t)(96 / (t.dp * t.m));
                    if (t.mbs >= 1 && t.dp * t.mbs * t.m == 96 &&
                        prism_strategy_check(&t, m, prism_cost_model_training(cm), NULL))
                        break;
                }
                if (t.m < st.m) {
                    st = t;
                    lowest++;
                }
            }
            gboolean ok = walker_agrees(cm, &st);
            CU_ASSERT_TRUE(ok);
            checked++;
            zero3 += st.zero >= 3;
            sched[st.schedule]++;
        }
    }
    printf("\n  %zu strategies walked (", checked);
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        printf("%s %zu, ", prism_schedule_name((PrismSchedule)i), sched[i]);
    printf("m < pp %zu, m at 2pp's lowest valid %zu, ZeRO-3 %zu)\n", below, lowest, zero3);
    CU_ASSERT_TRUE(checked > 100 && zero3 > 20);
    CU_ASSERT_TRUE(below > 5);
    CU_ASSERT_TRUE(lowest > 0);
    for (int i = 0; i < PRISM_SCHEDULE_COUNT; i++)
        CU_ASSERT_TRUE(sched[i] > 0);
    g_rand_free(rng);
}

/*
 * The new schedules on a grid of shapes (every model shape of test_walker, pp 2, 3, 4, 6,
 * m from its lower bound up to gbs, tp 1|2, dp 1|2, every recompute mode): the walker's
 * simulated order must agree with the kernel on each, and each schedule must be walked at
 * several (pp, m). Under the sanitizers (PRISM_TEST_SANITIZED=1) every third valid shape is
 * walked: each walk builds explain's per-stage terms, and with ASan's full unwinding on
 * every allocation the whole grid took over 100 s there (under 2 s in the normal build).
 */
static void test_walker_new_schedules(void)
{
    const size_t stride = prism_test_sanitized() ? 3 : 1;
    size_t seen = 0;
    static const char *const sets[] = {"dp_overlap=1", NULL};
    static const char *const sets_k[] = {"dp_overlap=1", "seq1f1b_splits=3", NULL};
    static const PrismSchedule news[] = {PRISM_SCHEDULE_ZB_V, PRISM_SCHEDULE_DUALPIPE,
                                         PRISM_SCHEDULE_DUALPIPE_V, PRISM_SCHEDULE_SEQ1F1B};
    const uint32_t shapes[][3] = {{12, 1024, 16}, {21, 768, 12}, {30, 512, 8}};
    size_t walked[G_N_ELEMENTS(news)] = {0}, bad = 0, n_rc = 0;
    for (size_t mi = 0; mi < G_N_ELEMENTS(shapes); mi++) {
        g_autoptr(PrismModel) model =
            test_gpt_model(shapes[mi][0], shapes[mi][1], shapes[mi][2], 32000);
        /* the second shape runs seq1F1B with k = 3 (not a divisor of the sequence chunks'
         * power-of-two defaults) */
        g_autoptr(PrismCostModel) cm =
            test_cost_model(model, 96, 1024, PRISM_DTYPE_BF16, mi == 1 ? sets_k : sets);
        const PrismTraining *tr = prism_cost_model_training(cm);
        for (size_t si = 0; si < G_N_ELEMENTS(news); si++)
            for (uint32_t pp = 2; pp <= 6; pp++)
                for (uint32_t dp = 1; dp <= 2; dp++)
                    for (uint32_t mbs = 1; mbs <= 48; mbs++) {
                        if (96 % (dp * mbs) != 0)
                            continue;
                        const uint32_t tp = 1 + (mbs + pp) % 2;
                        PrismStrategy st = {.devices = dp * tp * pp,
                                            .dp = dp,
                                            .tp = tp,
                                            .pp = pp,
                                            .vpp = news[si] == PRISM_SCHEDULE_ZB_V ||
                                                           news[si] == PRISM_SCHEDULE_DUALPIPE_V
                                                       ? 2
                                                       : 1,
                                            .cp = 1,
                                            .ep = 1,
                                            .mbs = mbs,
                                            .m = 96 / (dp * mbs),
                                            .sp = (uint8_t)(tp > 1),
                                            .zero = (uint8_t)(dp > 1 ? mbs % 4 : 0),
                                            .recompute = (uint8_t)(n_rc % 4),
                                            .schedule = (uint8_t)news[si],
                                            .rc_layers = (uint16_t)(n_rc % 4 == 3 ? 1 : 0)};
                        if (!prism_strategy_check(&st, model, tr, NULL))
                            continue;
                        n_rc++;
                        if (seen++ % stride != 0)
                            continue;
                        if (!walker_agrees(cm, &st))
                            bad++;
                        walked[si]++;
                    }
    }
    printf("\n  walked zb-v %zu, dualpipe %zu, dualpipe-v %zu, seq1f1b %zu; %zu disagree\n",
           walked[0], walked[1], walked[2], walked[3], bad);
    CU_ASSERT_EQUAL(bad, 0);
    for (size_t si = 0; si < G_N_ELEMENTS(news); si++)
        CU_ASSERT_TRUE(walked[si] >= 20);
}

/* Sum over stages of explain's per-stage "params" bytes. */
static double sum_stage_params(const PrismCostModel *cm, const PrismStrategy *st)
{
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, st, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    double sum = 0;
    for (uint32_t s = 0; s < st->pp; s++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, s, &sd);
        sum += sd.params;
    }
    return sum;
}

/*
 * Properties of the new schedules (GPT-like 24 layers, h 2048, gbs 256, seq 2048, on a grid
 * of pp 2, 4, 8, dp 1, 2, 4, tp 1, 2, mbs and every recompute mode):
 *   - seq1f1b with seq1f1b_splits = 1 IS 1f1b: every column equal bit for bit;
 *   - seq1f1b with k = 1, 2, 4, 8: peak memory and bubble never increase with k, and the
 *     steady part m T_max never decreases (each p2p send becomes k messages);
 *   - dualpipe holds each pipeline stage twice: the per-stage parameter bytes summed over
 *     stages are exactly 2x those of 1f1b (same dims);
 *   - dualpipe-v against zb-v (same V placement): equal static memory, activations never
 *     lower (the overlapped pair holds one more chunk micro-batch), step never higher (the
 *     overlap only hides communication), and every bubble >= 0.
 */
static void test_schedule_properties(void)
{
    g_autoptr(PrismModel) model = test_gpt_model(24, 2048, 16, 50257);
    const char *const ks[] = {"1", "2", "4", "8"};
    PrismCostModel *cms[4];
    for (int i = 0; i < 4; i++) {
        g_autofree char *set = g_strdup_printf("seq1f1b_splits=%s", ks[i]);
        const char *const sets[] = {set, NULL};
        cms[i] = test_cost_model(model, 256, 2048, PRISM_DTYPE_BF16, sets);
    }
    const PrismTraining *tr = prism_cost_model_training(cms[0]);
    size_t n_seq = 0, n_dual = 0, n_v = 0, n_rc = 0;
    for (uint32_t pp = 2; pp <= 8; pp *= 2)
        for (uint32_t dp = 1; dp <= 4; dp *= 2)
            for (uint32_t tp = 1; tp <= 2; tp++)
                for (uint32_t mbs = 1; mbs <= 16; mbs *= 2) {
                    const uint8_t rc = (uint8_t)(n_rc++ % 3);
                    PrismStrategy b = {.devices = dp * tp * pp,
                                       .dp = dp,
                                       .tp = tp,
                                       .pp = pp,
                                       .vpp = 1,
                                       .cp = 1,
                                       .ep = 1,
                                       .mbs = mbs,
                                       .m = 256 / (dp * mbs),
                                       .sp = (uint8_t)(tp > 1),
                                       .zero = (uint8_t)(dp > 1),
                                       .recompute = rc,
                                       .schedule = PRISM_SCHEDULE_1F1B};
                    if (!prism_strategy_check(&b, model, tr, NULL))
                        continue;
                    double c1[PRISM_COL_COUNT], cs[4][PRISM_COL_COUNT];
                    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cms[0], &b, c1, NULL));
                    PrismStrategy q = b;
                    q.schedule = PRISM_SCHEDULE_SEQ1F1B;
                    CU_ASSERT_TRUE_FATAL(prism_strategy_check(&q, model, tr, NULL));
                    for (int i = 0; i < 4; i++)
                        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cms[i], &q, cs[i], NULL));
                    CU_ASSERT_EQUAL(memcmp(c1, cs[0], sizeof c1), 0);
                    for (int i = 1; i < 4; i++) {
                        CU_ASSERT_TRUE(cs[i][PRISM_COL_MEM_PEAK] <= cs[i - 1][PRISM_COL_MEM_PEAK]);
                        CU_ASSERT_TRUE(cs[i][PRISM_COL_TIME_BUBBLE] <=
                                       cs[i - 1][PRISM_COL_TIME_BUBBLE]);
                        /* the price: k messages per p2p send, so the steady part
                         * m T_max = step - bubble - DP - optimizer never falls */
                        const double sa =
                            cs[i][PRISM_COL_TIME_STEP] - cs[i][PRISM_COL_TIME_BUBBLE] -
                            cs[i][PRISM_COL_TIME_DP_COMM] - cs[i][PRISM_COL_TIME_OPTIMIZER];
                        const double sb =
                            cs[i - 1][PRISM_COL_TIME_STEP] - cs[i - 1][PRISM_COL_TIME_BUBBLE] -
                            cs[i - 1][PRISM_COL_TIME_DP_COMM] - cs[i - 1][PRISM_COL_TIME_OPTIMIZER];
                        CU_ASSERT_TRUE(sa >= sb * (1.0 - 1e-12));
                    }
                    n_seq++;
                    PrismStrategy d = b;
                    d.schedule = PRISM_SCHEDULE_DUALPIPE;
                    if (prism_strategy_check(&d, model, tr, NULL)) {
                        const double p1 = sum_stage_params(cms[0], &b);
                        const double p2 = sum_stage_params(cms[0], &d);
                        CU_ASSERT_TRUE(prism_test_close(p2, 2.0 * p1, 1e-12, 0));
                        double cd[PRISM_COL_COUNT];
                        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cms[0], &d, cd, NULL));
                        CU_ASSERT_TRUE(cd[PRISM_COL_TIME_BUBBLE] >= 0.0);
                        n_dual++;
                    }
                    PrismStrategy zv = b, dv = b;
                    zv.vpp = dv.vpp = 2;
                    zv.schedule = PRISM_SCHEDULE_ZB_V;
                    dv.schedule = PRISM_SCHEDULE_DUALPIPE_V;
                    if (prism_strategy_check(&zv, model, tr, NULL) &&
                        prism_strategy_check(&dv, model, tr, NULL)) {
                        double a[PRISM_COL_COUNT], e[PRISM_COL_COUNT];
                        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cms[0], &zv, a, NULL));
                        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cms[0], &dv, e, NULL));
                        CU_ASSERT_TRUE(prism_test_close(sum_stage_params(cms[0], &zv),
                                                        sum_stage_params(cms[0], &dv), 1e-12, 0));
                        CU_ASSERT_TRUE(e[PRISM_COL_MEM_PEAK] >= a[PRISM_COL_MEM_PEAK]);
                        CU_ASSERT_TRUE(e[PRISM_COL_TIME_STEP] <= a[PRISM_COL_TIME_STEP]);
                        CU_ASSERT_TRUE(a[PRISM_COL_TIME_BUBBLE] >= 0.0 &&
                                       e[PRISM_COL_TIME_BUBBLE] >= 0.0);
                        n_v++;
                    }
                }
    for (int i = 0; i < 4; i++)
        prism_cost_model_free(cms[i]);
    printf("\n  %zu seq1f1b, %zu dualpipe, %zu zb-v/dualpipe-v comparisons\n", n_seq, n_dual, n_v);
    CU_ASSERT_TRUE(n_seq >= 30 && n_dual >= 10 && n_v >= 10);
}

static CU_TestInfo prop_tests[] = {
    {"monotonicity: tp, recompute, mbs", test_monotone},
    {"naive per-layer, per-stage walker with schedule simulation", test_walker},
    {"walker on zb-v, dualpipe, dualpipe-v, seq1f1b over (pp, m) shapes",
     test_walker_new_schedules},
    {"new schedules: seq1f1b in k, dualpipe parameters, dualpipe-v vs zb-v",
     test_schedule_properties},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cost_properties", NULL, NULL, NULL, NULL, prop_tests},
    CU_SUITE_INFO_NULL,
};
