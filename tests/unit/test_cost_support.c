// SPDX-License-Identifier: MIT
/* test_cost_support.c - builders for the cost-model tests (see test_cost_support.h). */
#include "test_cost_support.h"

#include <string.h>

#include <CUnit/CUnit.h>

PrismModel *test_gpt_model(uint32_t L, uint64_t h, uint32_t a, uint64_t V)
{
    PrismModel *m = prism_model_new("test-gpt", "gpt");
    m->hidden = h;
    m->vocab = V;
    m->max_positions = 1u << 20;
    m->pos = PRISM_POS_ROPE;
    m->final_norm = PRISM_NORM_LAYERNORM;
    PrismBlockSpec s;
    memset(&s, 0, sizeof s);
    s.attn.kind = PRISM_ATTN_STANDARD;
    s.attn.n_heads = a;
    s.attn.n_kv_heads = a;
    s.attn.head_dim = (uint32_t)(h / a);
    s.mlp.act = PRISM_MLP_GELU;
    s.mlp.ffn_hidden = 4 * h;
    s.norm = PRISM_NORM_LAYERNORM;
    uint32_t id = prism_model_add_spec(m, &s);
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    for (uint32_t i = 0; i < L; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, id);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

PrismCluster *test_cluster(void)
{
    PrismCluster *c = g_new0(PrismCluster, 1);
    c->name = g_strdup("test-cluster");
    c->mem_bytes = 80e9;
    c->peak_flops[PRISM_DTYPE_FP32] = 19.5e12;
    c->peak_flops[PRISM_DTYPE_BF16] = 312e12;
    c->peak_flops[PRISM_DTYPE_FP16] = 312e12;
    c->devices_per_node = 8;
    c->n_levels = 2;
    c->levels[0] = (PrismNetLevel){"nvlink", 8, 300.0, 5.0};
    c->levels[1] = (PrismNetLevel){"ib", 0, 25.0, 10.0};
    return c;
}

PrismCostModel *test_cost_model(const PrismModel *m, uint64_t gbs, uint64_t seq, PrismDtype dtype,
                                const char *const *sets)
{
    g_autoptr(PrismCluster) c = test_cluster();
    return test_cost_model_on(m, c, gbs, seq, dtype, sets);
}

PrismCostModel *test_cost_model_on(const PrismModel *m, const PrismCluster *c, uint64_t gbs,
                                   uint64_t seq, PrismDtype dtype, const char *const *sets)
{
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = gbs;
    t.seq = seq;
    t.dtype = dtype;
    PrismKnobs k;
    prism_knobs_default(&k);
    for (const char *const *s = sets; s != NULL && *s != NULL; s++)
        CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, *s, NULL));
    GError *error = NULL;
    PrismCostModel *cm = prism_cost_model_new(m, c, &t, &k, &error);
    if (error != NULL)
        fprintf(stderr, "test_cost_model_on: %s\n", error->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    return cm;
}

PrismStrategy test_strategy(const PrismCostModel *cm, uint32_t devices, const char *text)
{
    PrismStrategy s;
    GError *error = NULL;
    gboolean ok = prism_strategy_parse(text, devices, prism_cost_model_training(cm), &s, &error);
    if (!ok)
        fprintf(stderr, "test_strategy(%s): %s\n", text, error->message);
    CU_ASSERT_TRUE_FATAL(ok);
    g_clear_error(&error);
    return s;
}

static const uint32_t device_counts[] = {8, 16, 32, 64, 96, 128, 256, 512, 1024, 3072};

static uint32_t pick_divisor(GRand *rng, uint32_t n, uint32_t limit)
{
    uint32_t d[64], k = 0;
    for (uint32_t i = 1; i <= n && k < 64; i++)
        if (n % i == 0 && i <= limit)
            d[k++] = i;
    return d[g_rand_int_range(rng, 0, (gint32)k)];
}

gboolean test_random_batch(const PrismCostModel *cm, GRand *rng, size_t n, TestBatch *out)
{
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismTraining *t = prism_cost_model_training(cm);
    const uint32_t L = prism_model_split_layers(model);
    memset(out, 0, sizeof *out);
    PrismSegmentKey key = {0};
    key.devices = device_counts[g_rand_int_range(rng, 0, G_N_ELEMENTS(device_counts))];
    key.pp = pick_divisor(rng, key.devices, L < 64 ? L : 64);
    key.vpp = 1;
    if (key.pp > 1 && g_rand_int_range(rng, 0, 3) == 0) {
        uint32_t maxv = L / key.pp;
        key.vpp = maxv >= 2 ? (uint32_t)g_rand_int_range(rng, 2, (gint32)MIN(maxv, 6) + 1) : 1;
    }
    if (key.vpp > 2)
        key.schedule = PRISM_SCHEDULE_INTERLEAVED;
    else if (key.vpp == 2) {
        static const uint8_t s[] = {PRISM_SCHEDULE_INTERLEAVED, PRISM_SCHEDULE_ZB_V,
                                    PRISM_SCHEDULE_DUALPIPE_V};
        key.schedule = s[g_rand_int_range(rng, 0, 3)];
    } else if (key.pp == 1)
        key.schedule = PRISM_SCHEDULE_1F1B;
    else {
        /* dualpipe needs an even pp: the draw falls back to 1f1b for odd pp */
        static const uint8_t s[] = {PRISM_SCHEDULE_1F1B, PRISM_SCHEDULE_GPIPE, PRISM_SCHEDULE_ZB_H1,
                                    PRISM_SCHEDULE_SEQ1F1B, PRISM_SCHEDULE_DUALPIPE};
        key.schedule = s[g_rand_int_range(rng, 0, 5)];
        if (key.schedule == PRISM_SCHEDULE_DUALPIPE && key.pp % 2 != 0)
            key.schedule = PRISM_SCHEDULE_1F1B;
    }
    key.recompute = (uint8_t)g_rand_int_range(rng, 0, PRISM_RECOMPUTE_COUNT);
    const uint32_t chunks = key.pp * key.vpp, per_chunk = (L + chunks - 1) / chunks;
    if (key.recompute == PRISM_RECOMPUTE_BLOCK) {
        if (per_chunk < 2)
            key.recompute = PRISM_RECOMPUTE_FULL;
        else
            key.rc_layers = (uint16_t)g_rand_int_range(rng, 1, (gint32)per_chunk);
    }
    /* every offload (R11): the ISA and property checks cover its kernel paths */
    key.offload = (uint8_t)g_rand_int_range(rng, 0, PRISM_OFFLOAD_COUNT);
    /* every valid lane of the key */
    g_autoptr(GArray) ok = g_array_new(FALSE, FALSE, sizeof(PrismStrategy));
    const uint32_t rest = key.devices / key.pp;
    for (uint32_t tp = 1; tp <= rest && tp <= 64; tp++) {
        if (rest % tp)
            continue;
        for (uint32_t cp = 1; cp <= rest / tp && cp <= 16; cp++) {
            if ((rest / tp) % cp)
                continue;
            const uint32_t dp = rest / tp / cp;
            if (t->gbs % dp)
                continue;
            for (uint32_t ep = 1; ep <= rest && ep <= 256; ep++) {
                if (rest % ep)
                    continue;
                for (uint32_t mbs = 1; mbs <= t->gbs / dp && mbs <= 16; mbs++) {
                    if ((t->gbs / dp) % mbs)
                        continue;
                    for (uint8_t sp = 0; sp <= 1; sp++)
                        for (uint8_t z = 0; z <= 3; z++)
                            for (uint32_t etp = 1; etp <= rest && etp <= 64; etp++) {
                                /* folded and tied lanes (etp = tp) alike; the check rejects
                                 * etp != tp for dense models */
                                if (rest % etp)
                                    continue;
                                PrismStrategy s = {.devices = key.devices,
                                                   .dp = dp,
                                                   .tp = tp,
                                                   .pp = key.pp,
                                                   .vpp = key.vpp,
                                                   .cp = cp,
                                                   .ep = ep,
                                                   .mbs = mbs,
                                                   .m = (uint32_t)(t->gbs / dp / mbs),
                                                   .sp = sp,
                                                   .zero = z,
                                                   .recompute = key.recompute,
                                                   .schedule = key.schedule,
                                                   .rc_layers = key.rc_layers,
                                                   .etp = etp,
                                                   .offload = key.offload};
                                if (prism_strategy_check(&s, model, t, NULL))
                                    g_array_append_val(ok, s);
                            }
                }
            }
        }
    }
    if (ok->len == 0)
        return FALSE;
    out->key = key;
    out->n = n;
    out->tp = g_new(double, 12 * n);
    out->cp = out->tp + n;
    out->dp = out->cp + n;
    out->ep = out->dp + n;
    out->sp = out->ep + n;
    out->mbs = out->sp + n;
    out->m = out->mbs + n;
    out->zero = out->m + n;
    out->etp = out->zero + n;
    out->tov = out->etp + n;
    out->dov = out->tov + n;
    out->pov = out->dov + n;
    for (size_t i = 0; i < n; i++) {
        const PrismStrategy *s =
            &g_array_index(ok, PrismStrategy, g_rand_int_range(rng, 0, (gint32)ok->len));
        out->tp[i] = s->tp;
        out->cp[i] = s->cp;
        out->dp[i] = s->dp;
        out->ep[i] = s->ep;
        out->sp[i] = s->sp;
        out->mbs[i] = s->mbs;
        out->m[i] = s->m;
        out->zero[i] = s->zero;
        out->etp[i] = prism_strategy_etp(s);
        /* the overlap options (R12) where they apply, off on a hash of the lane (no draw
         * from @p rng, so the keys drawn after this batch are the same as before): the
         * ISA and property checks cover the overlap paths */
        const unsigned h = (unsigned)((i * 2654435761u) >> 7);
        out->tov[i] = prism_strategy_overlap_applies(s, PRISM_OVERLAP_TP) && (h & 1) ? 0.0 : 1.0;
        out->dov[i] = prism_strategy_overlap_applies(s, PRISM_OVERLAP_DP) && (h & 2) ? 0.0 : 1.0;
        out->pov[i] = prism_strategy_overlap_applies(s, PRISM_OVERLAP_PARAM) && (h & 4) ? 0.0 : 1.0;
    }
    out->lanes = (PrismLanes){out->tp,   out->cp, out->dp,  out->ep, out->sp,  out->mbs, out->m,
                              out->zero, n,       out->etp, NULL,    out->tov, out->dov, out->pov,
                              NULL,      NULL,    0,        0,       NULL,     0};
    return TRUE;
}

void test_batch_clear(TestBatch *b)
{
    g_free(b->tp);
    memset(b, 0, sizeof *b);
}

PrismCostModel *test_zoo_cost_model(size_t i, GRand *rng)
{
    GError *error = NULL;
    g_autoptr(PrismModel) m = prism_model_zoo_get(prism_model_zoo_name(i), &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    /* presets with and without power capping, SM counts that do and do not divide the
     * tile counts, and the FP8 recipes where the device has them (the GEMM table, the
     * cast terms and the FP8 weight copies) */
    static const char *const clusters[] = {"A100-80GB", "H100-SXM", "MI300X", "B200-750W",
                                           "H100-96GB-500W"};
    g_autoptr(PrismCluster) c =
        prism_cluster_preset(clusters[g_rand_int_range(rng, 0, G_N_ELEMENTS(clusters))], &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    PrismTraining t;
    prism_training_default(&t);
    static const PrismDtype dts[] = {PRISM_DTYPE_BF16, PRISM_DTYPE_FP8, PRISM_DTYPE_FP8_CS,
                                     PRISM_DTYPE_MXFP8};
    const PrismDtype dt = dts[g_rand_int_range(rng, 0, G_N_ELEMENTS(dts))];
    if (c->peak_flops[dt] > 0)
        t.dtype = dt;
    static const uint64_t gbs[] = {512, 1536, 3072};
    t.gbs = gbs[g_rand_int_range(rng, 0, 3)];
    t.seq = m->pos == PRISM_POS_LEARNED && m->max_positions < 4096 ? m->max_positions : 4096;
    PrismKnobs k;
    prism_knobs_default(&k);
    /* every selective policy (per-op SAC with and without SDPA kept) on a third of the
     * models each, the eager loss copy on half */
    k.v[PRISM_KNOB_SELECTIVE_POLICY] = g_rand_int_range(rng, 0, 3);
    k.v[PRISM_KNOB_LOSS_BWD_EXTRA] = g_rand_int_range(rng, 0, 2);
    /* every FP8 scope (the dense/expert split of the GEMM table and of the weight copies) */
    k.v[PRISM_KNOB_FP8_SCOPE] = g_rand_int_range(rng, 0, 3);
    /* nanotron's gradient copies and eager SwiGLU (the held 16-bit gradients' peak runs in
     * a kernel branch of its own) on half the models each */
    k.v[PRISM_KNOB_GRAD_LOWP_KEPT] = g_rand_int_range(rng, 0, 2);
    k.v[PRISM_KNOB_DDP_GRAD_COPY] = g_rand_int_range(rng, 0, 2);
    k.v[PRISM_KNOB_SWIGLU_UNFUSED] = g_rand_int_range(rng, 0, 2);
    /* ZeRO-1's flat gather buffers (a kernel branch of its own): nanotron's 2 on half */
    k.v[PRISM_KNOB_ZERO1_GATHER_COPIES] = 2.0 * g_rand_int_range(rng, 0, 2);
    /* the attention core without flash attention (its HBM bound and the scores' backward
     * count) and Megatron-DeepSpeed's two host synchronisations per layer, on half each */
    k.v[PRISM_KNOB_FLASH_ATTENTION] = g_rand_int_range(rng, 0, 2);
    k.v[PRISM_KNOB_LAYER_HOST_SYNCS] = 2.0 * g_rand_int_range(rng, 0, 2);
    /* FSDP2's all-gather pool on the device figure (the verdict's PRISM_KF_GPOOL) on every
     * other model, by its index: no draw from @p rng, so the batches drawn stay the same */
    k.v[PRISM_KNOB_FSDP_GATHER_POOL] = i % 2 == 1 ? 2.0 : 0.0;
    /* Megatron's fused-softmax condition (the per-lane attention-batch test and the
     * unfused softmax's terms) on models 2, 3, 6, 7, ...: also by index */
    k.v[PRISM_KNOB_SOFTMAX_FUSION_RULE] = (i / 2) % 2 == 1 ? 1.0 : 0.0;
    /* Megatron-DeepSpeed's three host synchronisations per micro-batch load (the embedding's
     * and, pipelined, the head's slot) on the other half, by the index: no draw either */
    k.v[PRISM_KNOB_MB_HOST_SYNCS] = i % 2 == 0 ? 3.0 : 0.0;
    k.v[PRISM_KNOB_STEP_LAYER_SYNCS] = i % 2 == 0 ? 12.0 : 0.0;
    /* and its partitioned pipeline transfers (the per-lane tp > 1 branch of the PP time) */
    k.v[PRISM_KNOB_PP_TP_PARTITIONED] = i % 2 == 0 ? 1.0 : 0.0;
    PrismCostModel *cm = prism_cost_model_new(m, c, &t, &k, &error);
    if (cm == NULL)
        fprintf(stderr, "zoo model %s: %s\n", m->name, error->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    return cm;
}

double test_explain_term(const PrismExplain *ex, PrismTermLevel level, unsigned index,
                         const char *name)
{
    for (unsigned i = 0; i < prism_term_count(level); i++)
        if (strcmp(prism_term_info(level, i)->name, name) == 0)
            return prism_explain_term(ex, level, index, i);
    CU_FAIL_FATAL("no explain term of that name");
    return 0;
}
