// SPDX-License-Identifier: MIT
/*
 * test_gemm.c - the shape-aware compute model (cost/README.md "Compute"): the wave/tile
 * model on GEMM shapes derived by hand, the BF16-vs-FP8 split of a layer, the three FP8
 * recipes (casts, weight copies), MFU against the BF16 peak, and the physical bound over
 * every zoo model x every preset x a deterministic sample of strategies.
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/cost.h>
#include <prism/explain.h>

#include "../../cost/kernels/kernels-gemm.h"
#include "prism_test_util.h"
#include "test_cost_support.h"

/* H100 SXM as the GEMM model sees it: 132 SMs, 128 x 256 tiles, BF16 peak 989.4e12 at
 * compute_efficiency 0.8 and clock ratio 1: rate = 791.52e12 FLOP/s; HBM 3350 GB/s x 0.8 =
 * 2680e9 B/s. wave_work = 2 x 132 x 128 x 256 = 8,650,752 FLOP per unit depth. */
static PrismKGemmDev h100(double quant)
{
    PrismKGemmDev d = {.quant = quant, .sms = 132, .tm = 128, .tn = 256};
    d.inv_sms = 1.0 / d.sms;
    d.inv_tm = 1.0 / d.tm;
    d.inv_tn = 1.0 / d.tn;
    d.wave_work = 2.0 * d.sms * d.tm * d.tn;
    d.inv_hbm = 1.0 / 2680e9;
    return d;
}

#define RATE 791.52e12
#define PEAK 989.4e12

static double bf16_bytes(double M, double N, double K)
{
    return 2.0 * (M * K + K * N + M * N);
}

/* The tile's fixed time (knob gemm_tile_us): t0 = 3.1 us per wave, the rate measured at
 * depth 6144. At 1 PFLOP/s (inv_rate 1e-15) one 128 x 256 wave of depth D costs
 * 8,650,752 D 1e-15 s of main loop; at 6144 that is 5.31502e-5 s, so the measured rate
 * holds norm = 1 + 3.1e-6 / 5.31502e-5 = 1.0583253 of it.
 * (a) M = N = 4096 (tiles 32 x 16 = 512, waves ceil(512/132) = 4), K = 512: main loop
 *     4.42919e-6 s per wave, 4 (4.42919e-6 + 3.1e-6) / 1.0583253 = 2.84570e-5 s, 1.606x the
 *     4 x 4.42919e-6 = 1.77167e-5 s without it.
 * (b) K = 6144: the wave costs its main loop exactly, (m + t0) / (1 + t0/m) = m.
 * (c) K = 65536: below the main loop: m' = 65536 x 8,650,752 x 1e-15 = 5.66936e-4 s per
 *     wave, 4 (5.66936e-4 + 3.1e-6) / 1.0583253 = 2.15448e-3 s < 4 m' = 2.26774e-3 s. */
static void test_tile_time(void)
{
    PrismKGemmDev d = h100(1.0);
    d.tile_s = 3.1e-6;
    d.ref_k = 6144.0;
    double tiles, waves;
    const double a = prism_k_gemm_tiled(&d, 4096, 4096, 512, 1, 1e-15, 1.0, 1.0, &tiles, &waves);
    CU_ASSERT_EQUAL(tiles, 512);
    CU_ASSERT_EQUAL(waves, 4);
    CU_ASSERT_DOUBLE_EQUAL(
        a, 4.0 * (8650752.0 * 512e-15 + 3.1e-6) / (1.0 + 3.1e-6 / (8650752.0 * 6144e-15)), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(a, 2.84570e-5, 1e-10);
    const double b = prism_k_gemm_tiled(&d, 4096, 4096, 6144, 1, 1e-15, 1.0, 1.0, &tiles, &waves);
    CU_ASSERT_DOUBLE_EQUAL(b, 4.0 * 8650752.0 * 6144e-15, 1e-18);
    const double c = prism_k_gemm_tiled(&d, 4096, 4096, 65536, 1, 1e-15, 1.0, 1.0, &tiles, &waves);
    CU_ASSERT_DOUBLE_EQUAL(c, 2.15448e-3, 1e-8);
    CU_ASSERT_TRUE(c < 4.0 * 8650752.0 * 65536e-15);
    /* t0 = 0 (h100(): the knob off): the main loop exactly */
    const PrismKGemmDev z = h100(1.0);
    CU_ASSERT_EQUAL(prism_k_gemm_tiled(&z, 4096, 4096, 512, 1, 1e-15, 1.0, 1.0, &tiles, &waves),
                    4.0 * 8650752.0 * 512.0 * 1e-15);
}

static void test_wave_tile(void)
{
    const PrismKGemmDev d = h100(1.0);
    PrismKGemmWhy w;
    /* (a) a large GEMM, M 8192 tokens, N = K = 4096: tiles 64 x 16 = 1024; waves
     * ceil(1024/132) = 8 (7.76); paid 8 x 8,650,752 x 4096 = 2.8347e11 FLOP-equivalents at
     * 791.52e12 = 3.5813e-4 s; useful 2 x 8192 x 4096 x 4096 = 2.7488e11 FLOP, efficiency
     * 0.8 x 1024/(8 x 132) = 0.7758 of the peak; HBM 167.8 MB / 2680e9 = 6.3e-5 s (compute
     * bound) */
    double t = prism_k_gemm_why(&d, 8192, 4096, 4096, 1, 1.0 / RATE, bf16_bytes(8192, 4096, 4096),
                                PEAK, &w);
    CU_ASSERT_EQUAL(w.tiles, 1024);
    CU_ASSERT_EQUAL(w.waves, 8);
    CU_ASSERT_DOUBLE_EQUAL(w.wave_eff, 1024.0 / 1056.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(w.tile_eff, 1.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(t, 8.0 * 8650752.0 * 4096.0 / RATE, 1e-18);
    CU_ASSERT_DOUBLE_EQUAL(t, 3.5813e-4, 1e-8);
    CU_ASSERT_DOUBLE_EQUAL(w.efficiency, 0.8 * 1024.0 / 1056.0, 1e-12);
    CU_ASSERT_TRUE(w.t_memory < w.t_compute);
    /* The library picks the fastest of 128 x 256, 128 x 128 and 64 x 256 (a tie keeps the
     * large tile): (a) takes 2048 half tiles in 16 waves either way, so 128 x 256 stays. */
    CU_ASSERT_EQUAL(w.tile_m, 128);
    CU_ASSERT_EQUAL(w.tile_n, 256);
    /* (b) a small GEMM, M 1024, N 512, K 4096 (small hidden / large tp / few tokens):
     * 128 x 256 gives 8 x 2 = 16 tiles, one wave with 116 of 132 SMs idle; 128 x 128 gives
     * 8 x 4 = 32 tiles, still one wave, each tile half the work: t = 8,650,752 / 2 x 4096 /
     * 791.52e12 = 2.2383e-5 s for 4.295e9 FLOP, efficiency 0.8 x 32/132 = 0.1939, four
     * times slower per FLOP than (a), for a physical reason (the wave) */
    t = prism_k_gemm_why(&d, 1024, 512, 4096, 1, 1.0 / RATE, bf16_bytes(1024, 512, 4096), PEAK, &w);
    CU_ASSERT_EQUAL(w.tile_n, 128);
    CU_ASSERT_EQUAL(w.tiles, 32);
    CU_ASSERT_EQUAL(w.waves, 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 2.2383e-5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(w.efficiency, 0.8 * 32.0 / 132.0, 1e-12);
    /* (c) tile padding: M 1000 -> ceil(1000/128) = 8 row tiles, N 4096 -> 16: 128 tiles,
     * one wave (a half tile gives 256 tiles in 2 waves: a tie, the large tile stays); tile
     * efficiency 1000 x 4096 / (128 x 128 x 256) = 0.97656, wave 128/132 */
    prism_k_gemm_why(&d, 1000, 4096, 4096, 1, 1.0 / RATE, bf16_bytes(1000, 4096, 4096), PEAK, &w);
    CU_ASSERT_EQUAL(w.tiles, 128);
    CU_ASSERT_DOUBLE_EQUAL(w.tile_eff, 1000.0 * 4096.0 / (128.0 * 128.0 * 256.0), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(w.wave_eff, 128.0 / 132.0, 1e-15);
    /* (d) the roofline: K = 64 (a thin reduction): compute 8 x 8,650,752 x 64 / 791.52e12
     * = 5.596e-6 s, HBM 2 x (8192 x 64 + 64 x 4096 + 8192 x 4096) = 68.68 MB / 2680e9 =
     * 2.5627e-5 s: memory bound */
    t = prism_k_gemm_why(&d, 8192, 4096, 64, 1, 1.0 / RATE, bf16_bytes(8192, 4096, 64), PEAK, &w);
    CU_ASSERT_DOUBLE_EQUAL(w.t_compute, 5.596e-6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t, 68681728.0 / 2680e9, 1e-15);
    CU_ASSERT_TRUE(w.t_memory > w.t_compute);
    /* (e) N = 12288 / 3 computed as 12288 x (1/3) is a whole 4096 (16 tiles, not 17) */
    prism_k_gemm_why(&d, 8192, 12288.0 * (1.0 / 3.0), 4096, 1, 1.0 / RATE, 0, PEAK, &w);
    CU_ASSERT_EQUAL(w.tiles, 1024);
    /* (f) grouped: 8 experts of M 256, N 512: 8 x 2 x 2 = 32 large tiles, one wave; the
     * 128 x 128 tile gives 8 x 2 x 4 = 64 tiles, still one wave, half the time */
    t = prism_k_gemm_why(&d, 256, 512, 1024, 8, 1.0 / RATE, 0, PEAK, &w);
    CU_ASSERT_EQUAL(w.tiles, 64);
    CU_ASSERT_EQUAL(w.waves, 1);
    CU_ASSERT_DOUBLE_EQUAL(t, 8650752.0 / 2 * 1024 / RATE, 1e-18);
    /* (h) a shape where the 64-row tile wins: M 64, N 8192: 128 x 256 gives 1 x 32 = 32
     * tiles, 64 x 256 also 32 tiles of half the work (128 x 128: 64 tiles, same time as
     * the half rows; the first of equal halves, 128 x 128, is kept) */
    t = prism_k_gemm_why(&d, 64, 8192, 4096, 1, 1.0 / RATE, 0, PEAK, &w);
    CU_ASSERT_DOUBLE_EQUAL(t, 8650752.0 / 2 * 4096 / RATE, 1e-18);
    /* (g) without quantisation (a device without SMs/tile): 2 M N K / rate */
    const PrismKGemmDev q0 = h100(0.0);
    t = prism_k_gemm_pass(&q0, 1024, 512, 4096, 1, 1.0 / RATE, 0);
    CU_ASSERT_DOUBLE_EQUAL(t, 2.0 * 1024 * 512 * 4096 / RATE, 1e-20);
    /* the exact ceiling: whole numbers stay, fractions round up */
    CU_ASSERT_EQUAL(prism_k_ceil(7.0), 7.0);
    CU_ASSERT_EQUAL(prism_k_ceil(7.0000001), 8.0);
    CU_ASSERT_EQUAL(prism_k_ceil(0.0), 0.0);
    CU_ASSERT_EQUAL(prism_k_ceil(1e12 + 0.5), 1e12 + 1.0);
}

/* Monotonicity of one GEMM pass over random shapes: a narrower output or a shallower
 * reduction (more tp) never takes longer, and a faster device (higher rate, higher HBM
 * bandwidth) never slows it; tiles only shrink, so every wave count and byte count does. */
static void test_gemm_monotone(void)
{
    GRand *rng = g_rand_new_with_seed(42);
    const PrismKGemmDev d = h100(1.0);
    PrismKGemmDev fast = d;
    fast.inv_hbm = d.inv_hbm * 0.5;
    size_t checks = 0;
    for (int i = 0; i < 20000; i++) {
        const double R = g_rand_int_range(rng, 1, 20000), C = g_rand_int_range(rng, 1, 60000);
        const double D = g_rand_int_range(rng, 1, 60000), n = g_rand_int_range(rng, 1, 9);
        const double t = g_rand_int_range(rng, 1, 9);
        const double by = 2.0 * (R * D + D * C + R * C) * n;
        const double base = prism_k_gemm_pass(&d, R, C, D, n, 1.0 / RATE, by);
        const double narrow = prism_k_gemm_pass(&d, R, C / t, D, n, 1.0 / RATE,
                                                2.0 * (R * D + D * C / t + R * C / t) * n);
        const double shallow = prism_k_gemm_pass(&d, R, C, D / t, n, 1.0 / RATE,
                                                 2.0 * (R * D / t + D / t * C + R * C) * n);
        const double quick = prism_k_gemm_pass(&fast, R, C, D, n, 0.5 / RATE, by);
        CU_ASSERT_TRUE(narrow <= base && shallow <= base && quick <= base);
        CU_ASSERT_TRUE(isfinite(base) && base > 0);
        /* never faster than the large-GEMM rate or the HBM bandwidth allow */
        CU_ASSERT_TRUE(base >= 2.0 * R * C * D * n / RATE * (1 - 1e-12));
        CU_ASSERT_TRUE(base >= by * d.inv_hbm * (1 - 1e-12));
        checks++;
    }
    printf("\n  %zu random shapes\n", checks);
    g_rand_free(rng);
}

/* A test cluster with FP8 and MXFP8 peaks (2x BF16) and no SM/tile attributes: GEMMs
 * priced at max(2 M N K / rate, bytes / HBM) without quantisation. */
/* fp8_model() with knob assignments (NULL-terminated list, or NULL). */
static PrismCostModel *fp8_model_set(const PrismModel *m, PrismDtype dt, const char *const *sets);

static PrismCostModel *fp8_model(const PrismModel *m, PrismDtype dt)
{
    return fp8_model_set(m, dt, NULL);
}

static PrismCostModel *fp8_model_set(const PrismModel *m, PrismDtype dt, const char *const *sets)
{
    g_autoptr(PrismCluster) c = test_cluster();
    c->peak_flops[PRISM_DTYPE_FP8] = c->peak_flops[PRISM_DTYPE_FP8_CS] = 624e12;
    c->peak_flops[PRISM_DTYPE_MXFP8] = 624e12;
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = 8;
    t.seq = 1024;
    t.dtype = dt;
    PrismKnobs k;
    prism_knobs_default(&k);
    for (size_t i = 0; sets != NULL && sets[i] != NULL; i++)
        CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, sets[i], NULL));
    GError *error = NULL;
    PrismCostModel *cm = prism_cost_model_new(m, c, &t, &k, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    return cm;
}

static void test_fp8_split(void)
{
    /* GPT h 1024, 8 heads, one block, V 4096; seq 1024, mbs 1, tp 1: T = M = 1024. The
     * block's linear GEMMs (qkv 3h x h, out h x h, fc1 4h x h, fc2 h x 4h) run in FP8, the
     * attention core and the head stay BF16, elementwise kernels are the same bytes (BF16
     * activations). So per micro-batch, between an FP8 recipe and BF16:
     *   d(forward)  = F_lin (1/r8 - 1/r16) + cast_fwd
     *   d(backward) = 2 F_lin (1/r8 - 1/r16) + cast_bwd     (dgrad and wgrad)
     * F_lin = 2 T 12 h^2 = 2.5770e10 FLOP; r16 = 312e12 x 0.8 = 249.6e12; r8 = 624e12 x 0.8
     * x fp8_gemm_ratio 0.875 = 436.8e12 (every GEMM compute bound at these shapes: the
     * smallest, out, takes 4.9e-6 s against 2.6e-6 s of HBM traffic at 1.6e12 B/s).
     * Casts at the test cluster's 2000 GB/s x 0.8 = 1.6e12 B/s, per element (cost/README):
     *   forward: inputs M K + weights K N = (1+3 + 1+1 + 1+4 + 4+4) M = 19 x 2^20 elements;
     *   backward: output gradients M N = (3 + 1 + 4 + 1) x 2^20 = 9 x 2^20 elements;
     *   fp8 (delayed) 4 B each, fp8-cs 6 B, mxfp8 2 + 2 x (1 + 1/32) = 4.0625 B. */
    g_autoptr(PrismModel) m = test_gpt_model(1, 1024, 8, 4096);
    g_autoptr(PrismCostModel) c16 = fp8_model(m, PRISM_DTYPE_BF16);
    const PrismStrategy s = test_strategy(c16, 8, "tp=1,pp=1,mbs=1");
    PrismLayerTerms b16;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c16, &s, 1, &b16, NULL));
    const double F = 2.0 * 1024 * 12.0 * 1024 * 1024;
    const double dr = F * (1.0 / 436.8e12 - 1.0 / 249.6e12);
    const double Mi = 1048576.0;
    static const struct {
        PrismDtype dt;
        double cast;    /* B per element */
        double w_extra; /* extra parameter bytes (FP8 weight + transpose) */
    } rec[] = {{PRISM_DTYPE_FP8, 4.0, 2.0},
               {PRISM_DTYPE_FP8_CS, 6.0, 0.0},
               {PRISM_DTYPE_MXFP8, 4.0625, 0.0}};
    for (size_t i = 0; i < G_N_ELEMENTS(rec); i++) {
        g_autoptr(PrismCostModel) c8 = fp8_model(m, rec[i].dt);
        PrismLayerTerms b8;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c8, &s, 1, &b8, NULL));
        const double cf = rec[i].cast * 19.0 * Mi / 1.6e12, cb = rec[i].cast * 9.0 * Mi / 1.6e12;
        CU_ASSERT_DOUBLE_EQUAL(b8.fwd_s - b16.fwd_s, dr + cf, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(b8.bwd_s - b16.bwd_s, 2.0 * dr + cb, 1e-12);
        /* the FLOP count is the same (the recipe changes time, not work) */
        CU_ASSERT_DOUBLE_EQUAL(b8.flops_fwd, b16.flops_fwd, 1e-3);
        /* memory: BF16 weights (2 B) plus the delayed recipe's FP8 copy and transpose */
        CU_ASSERT_DOUBLE_EQUAL(b8.params_bytes / b16.params_bytes, (2.0 + rec[i].w_extra) / 2.0,
                               1e-12);
        /* at h = 1024 the casts outweigh the faster GEMMs in forward: d = -4.42e-5 +
         * 4.98e-5 s for delayed scaling (FP8 pays off only for larger GEMMs) */
        if (rec[i].dt == PRISM_DTYPE_FP8)
            CU_ASSERT_DOUBLE_EQUAL(b8.fwd_s - b16.fwd_s, 5.55e-6, 1e-7);
        /* the head (logits) stays BF16: identical terms */
        PrismLayerTerms h16, h8;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c16, &s, m->n_layers - 1, &h16, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c8, &s, m->n_layers - 1, &h8, NULL));
        CU_ASSERT_EQUAL(h8.fwd_s, h16.fwd_s);
        CU_ASSERT_EQUAL(h8.bwd_s, h16.bwd_s);
        /* MFU is against the BF16 dense peak in every recipe: mfu x step is the same
         * model FLOPs / (devices x 312e12) */
        double o16[PRISM_COL_COUNT], o8[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c16, &s, o16, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c8, &s, o8, NULL));
        CU_ASSERT_DOUBLE_EQUAL(o8[PRISM_COL_MFU] * o8[PRISM_COL_TIME_STEP],
                               o16[PRISM_COL_MFU] * o16[PRISM_COL_TIME_STEP], 1e-12);
    }
    /* torchao's MX casts (mx_cast_passes 2): a kernel per layout, each reading the BF16
     * tensor, 2 x (2 + 1 + 1/32) = 6.0625 B per element; at mx_cast_efficiency 0.4 of the
     * HBM bandwidth instead of hbm_efficiency 0.8 the same bytes take twice as long: 12.125
     * B-equivalents at 1.6e12 B/s. The GEMM part is unchanged. */
    {
        static const char *const two[] = {"mx_cast_passes=2", NULL};
        static const char *const slow[] = {"mx_cast_passes=2", "mx_cast_efficiency=0.4", NULL};
        g_autoptr(PrismCostModel) c2 = fp8_model_set(m, PRISM_DTYPE_MXFP8, two);
        g_autoptr(PrismCostModel) c4 = fp8_model_set(m, PRISM_DTYPE_MXFP8, slow);
        PrismLayerTerms b8;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c2, &s, 1, &b8, NULL));
        CU_ASSERT_DOUBLE_EQUAL(b8.fwd_s - b16.fwd_s, dr + 6.0625 * 19.0 * Mi / 1.6e12, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(b8.bwd_s - b16.bwd_s, 2.0 * dr + 6.0625 * 9.0 * Mi / 1.6e12, 1e-12);
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c4, &s, 1, &b8, NULL));
        CU_ASSERT_DOUBLE_EQUAL(b8.fwd_s - b16.fwd_s, dr + 12.125 * 19.0 * Mi / 1.6e12, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(b8.bwd_s - b16.bwd_s, 2.0 * dr + 12.125 * 9.0 * Mi / 1.6e12, 1e-12);
        /* the knobs touch the MX recipe only */
        g_autoptr(PrismCostModel) ca = fp8_model(m, PRISM_DTYPE_FP8_CS);
        g_autoptr(PrismCostModel) cb = fp8_model_set(m, PRISM_DTYPE_FP8_CS, slow);
        PrismLayerTerms a, b;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(ca, &s, 1, &a, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cb, &s, 1, &b, NULL));
        CU_ASSERT_EQUAL(a.fwd_s, b.fwd_s);
        CU_ASSERT_EQUAL(a.bwd_s, b.bwd_s);
    }
    /* dtype names parse; a bad one lists every allowed name */
    PrismDtype dt;
    CU_ASSERT_TRUE(prism_dtype_parse("fp8-cs", &dt, NULL) && dt == PRISM_DTYPE_FP8_CS);
    CU_ASSERT_TRUE(prism_dtype_parse("MXFP8", &dt, NULL) && dt == PRISM_DTYPE_MXFP8);
    GError *error = NULL;
    CU_ASSERT_FALSE(prism_dtype_parse("fp4", &dt, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "fp8, fp8-cs, mxfp8") : NULL);
    g_clear_error(&error);
}

/* fp8_scope on Mixtral-8x7B (h 4096, 32 heads of 128, 8 KV heads, 8 experts of width
 * 14336, SwiGLU), tp 1, ep 1, ZeRO 0, the test cluster (no quantisation): each GEMM is
 * priced on its own at its dtype's rate with its own casts, so the FP8 saving of "every
 * linear" (scope 0) is the sum of "dense linears only" (1) and "routed experts only" (2):
 *   t(0) - t(bf16) = [t(1) - t(bf16)] + [t(2) - t(bf16)], forward and backward;
 * and the head and router stay BF16 in all three. Delayed scaling keeps a 2 B FP8 copy of
 * the weights whose GEMMs run in FP8 (cost/README.md): per MoE block
 *   experts P_e = 8 x 3 x 4096 x 14336          = 1,409,286,144 parameters,
 *   the rest P_d = q, o 2 x 4096^2 + k, v 2 x 4096 x 1024 + 2 norms 2 x 4096
 *                  + router 8 x 4096              =    41,984,000,
 * so params(0) - params(1) = 2 P_e B and params(0) - params(2) = 2 P_d B; the MX recipe
 * keeps no copy (the same bytes in every scope). */
static void test_fp8_scope(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("mixtral-8x7b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    static const PrismDtype dts[] = {PRISM_DTYPE_FP8, PRISM_DTYPE_MXFP8};
    for (size_t d = 0; d < G_N_ELEMENTS(dts); d++) {
        PrismLayerTerms t[4]; /* scope 0, 1, 2, then BF16 */
        double head[4];
        for (int sc = 0; sc < 4; sc++) {
            g_autoptr(PrismCluster) c = test_cluster();
            c->peak_flops[PRISM_DTYPE_FP8] = c->peak_flops[PRISM_DTYPE_MXFP8] = 624e12;
            PrismTraining tr;
            prism_training_default(&tr);
            tr.gbs = 8;
            tr.seq = 1024;
            tr.dtype = sc < 3 ? dts[d] : PRISM_DTYPE_BF16;
            PrismKnobs k;
            prism_knobs_default(&k);
            k.v[PRISM_KNOB_FP8_SCOPE] = sc < 3 ? sc : 0;
            g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &tr, &k, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
            const PrismStrategy s = test_strategy(cm, 8, "tp=1,pp=1,mbs=1,zero=0");
            CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &t[sc], NULL));
            /* the head is BF16 whatever the scope */
            PrismLayerTerms h;
            CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, m->n_layers - 1, &h, NULL));
            head[sc] = h.fwd_s;
        }
        CU_ASSERT_EQUAL(head[0], head[3]);
        CU_ASSERT_EQUAL(head[1], head[3]);
        CU_ASSERT_EQUAL(head[2], head[3]);
        const double b = t[3].fwd_s, bb = t[3].bwd_s;
        CU_ASSERT_DOUBLE_EQUAL(t[0].fwd_s - b, (t[1].fwd_s - b) + (t[2].fwd_s - b), 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(t[0].bwd_s - bb, (t[1].bwd_s - bb) + (t[2].bwd_s - bb), 1e-12);
        /* each scope moves something: neither part is empty */
        CU_ASSERT_TRUE(t[1].fwd_s != t[0].fwd_s && t[2].fwd_s != t[0].fwd_s);
        CU_ASSERT_TRUE(t[1].fwd_s != b && t[2].fwd_s != b);
        const double Pe = 1409286144.0, Pd = 41984000.0;
        const double copy = dts[d] == PRISM_DTYPE_FP8 ? 2.0 : 0.0;
        CU_ASSERT_DOUBLE_EQUAL(t[0].params_bytes, (2.0 + copy) * (Pe + Pd), 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(t[0].params_bytes - t[1].params_bytes, copy * Pe, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(t[0].params_bytes - t[2].params_bytes, copy * Pd, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(t[3].params_bytes, 2.0 * (Pe + Pd), 1e-3);
    }
}

/* A 2-layer GPT (h 4096) at gbs 64, seq 4096, default knobs: the clock and efficiency
 * tests' setup. */
static PrismModel *small_setup(PrismTraining *t, PrismKnobs *k)
{
    prism_training_default(t);
    t->gbs = 64;
    t->seq = 4096;
    prism_knobs_default(k);
    return test_gpt_model(2, 4096, 32, 32000);
}

/* The clock: a part capped at 500 W of 700 W prices every GEMM at 1636/1830 of the rate. */
static void test_sustained_clock(void)
{
    PrismTraining t;
    PrismKnobs k;
    g_autoptr(PrismModel) m = small_setup(&t, &k);
    g_autoptr(PrismCluster) a = prism_cluster_preset("H100-SXM", NULL);
    g_autoptr(PrismCluster) b = prism_cluster_preset("H100-96GB-500W", NULL);
    b->mem_bw_GBps = a->mem_bw_GBps; /* only the clock differs */
    b->mem_bytes = a->mem_bytes;
    g_autoptr(PrismCostModel) ca = prism_cost_model_new(m, a, &t, &k, NULL);
    g_autoptr(PrismCostModel) cb = prism_cost_model_new(m, b, &t, &k, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ca);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cb);
    /* a compute-bound strategy: every GEMM of the block (M = 4096 tokens) and the core */
    const PrismStrategy s = test_strategy(ca, 8, "tp=1,pp=1,mbs=1");
    PrismLayerTerms la, lb;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(ca, &s, 1, &la, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cb, &s, 1, &lb, NULL));
    /* the whole forward scales by at most 1830/1636 (elementwise kernels do not) */
    CU_ASSERT_TRUE(lb.fwd_s > la.fwd_s);
    CU_ASSERT_TRUE(lb.fwd_s <= la.fwd_s * 1830.0 / 1636.0 * (1 + 1e-12));
    CU_ASSERT_TRUE(lb.fwd_s >= la.fwd_s * 1.05);
}

/* The large-GEMM BF16 rate explain reports for @p c (PrismExplainModel). */
static double explained_rate(const PrismModel *m, const PrismCluster *c, const PrismTraining *t,
                             const PrismKnobs *k)
{
    g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, t, k, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    const PrismStrategy s = test_strategy(cm, 8, "tp=1,pp=1,mbs=1");
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    PrismExplainModel em;
    prism_explain_model(ex, &em);
    const double eff = prism_knobs_gemm_efficiency(prism_cost_model_knobs(cm), c->gemm_efficiency);
    const double rate = 1.0 / em.inv_rate_bf16;
    CU_ASSERT_DOUBLE_EQUAL(
        rate, c->peak_flops[PRISM_DTYPE_BF16] * eff * c->sustained_clock_mhz / c->boost_clock_mhz,
        rate * 1e-12);
    return rate;
}

/* The large-GEMM efficiency: the device's published figure (B200: torch.mm at 4096^3 -
 * 8192^3 reached 1.41-1.45 PFLOP/s, median 1.42 = 0.631 of 2.25 PF), the knob where set,
 * 0.8 where neither gives one. */
static void test_device_gemm_efficiency(void)
{
    PrismTraining t;
    PrismKnobs k;
    g_autoptr(PrismModel) m = small_setup(&t, &k);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_COMPUTE_EFFICIENCY], 0); /* 0 = the device's */
    g_autoptr(PrismCluster) b = prism_cluster_preset("B200", NULL);
    g_autoptr(PrismCluster) h = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_DOUBLE_EQUAL(b->gemm_efficiency, 1.42e15 / 2.25e15, 5e-4);
    CU_ASSERT_EQUAL(h->gemm_efficiency, 0.8);
    /* B200 at 1000 W holds the boost clock: 2250e12 x 0.631 = 1419.75e12 */
    CU_ASSERT_DOUBLE_EQUAL(explained_rate(m, b, &t, &k), 1419.75e12, 1e3);
    /* H100 SXM: 989.4e12 x 0.8 = 791.52e12 (the RATE of the hand-derived shapes above) */
    CU_ASSERT_DOUBLE_EQUAL(explained_rate(m, h, &t, &k), RATE, 1e3);
    /* the 750 W B200: the library's 0.631 at the clock the cap holds, 1437 of 1856 MHz
     * (cuBLAS at the cap, facebookexperimental/triton#854): 2250e12 x 0.631 x 1437/1856 =
     * 1099.24e12 */
    g_autoptr(PrismCluster) b7 = prism_cluster_preset("B200-750W", NULL);
    CU_ASSERT_DOUBLE_EQUAL(explained_rate(m, b7, &t, &k), 1099.24e12, 0.01e12);
    /* a device without a figure: the fallback 0.8 */
    b->gemm_efficiency = 0;
    CU_ASSERT_DOUBLE_EQUAL(explained_rate(m, b, &t, &k), 1800e12, 1e3);
    /* the knob overrides the device's figure */
    b->gemm_efficiency = 0.631;
    CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, "compute_efficiency=0.5", NULL));
    CU_ASSERT_DOUBLE_EQUAL(explained_rate(m, b, &t, &k), 1125e12, 1e3);
}

/* ---- the physical bound over every zoo model x every preset ---- */

typedef struct Cols {
    double *buf;
    PrismCostOut out;
} Cols;

static void cols_init(Cols *c, size_t n)
{
    c->buf = g_new(double, n *PRISM_COL_COUNT);
    for (int i = 0; i < PRISM_COL_COUNT; i++)
        c->out.col[i] = c->buf + (size_t)i * n;
}

/* The largest FLOP rate any part of the model can reach, as a fraction of the BF16 peak:
 * the linear GEMMs' large-GEMM rate (FP8: x 2 x fp8_gemm_ratio), the BF16 one, and the
 * attention core's published fractions, each at the sustained clock. */
static double attainable(const PrismCluster *c, PrismDtype dt, const PrismKnobs *k)
{
    const double clk = c->boost_clock_mhz > 0 ? c->sustained_clock_mhz / c->boost_clock_mhz : 1.0;
    const double p16 = c->peak_flops[PRISM_DTYPE_BF16];
    /* the knob where set, else the device's published figure, else 0.8 */
    const double eff = k->v[PRISM_KNOB_COMPUTE_EFFICIENCY] > 0 ? k->v[PRISM_KNOB_COMPUTE_EFFICIENCY]
                       : c->gemm_efficiency > 0                ? c->gemm_efficiency
                                                               : 0.8;
    const double lin =
        c->peak_flops[dt] * eff * (prism_dtype_is_fp8(dt) ? k->v[PRISM_KNOB_FP8_GEMM_RATIO] : 1.0);
    double best = lin > p16 * eff ? lin : p16 * eff;
    const double af = k->v[PRISM_KNOB_ATTN_FWD_FRACTION] > 0 ? k->v[PRISM_KNOB_ATTN_FWD_FRACTION]
                                                             : c->attn_fwd_fraction;
    const double ab = k->v[PRISM_KNOB_ATTN_BWD_FRACTION] > 0 ? k->v[PRISM_KNOB_ATTN_BWD_FRACTION]
                                                             : c->attn_bwd_fraction;
    const double att = af > ab ? af : ab;
    best = best > p16 * att ? best : p16 * att;
    return best * clk / p16;
}

static void test_physical_bound(void)
{
    GRand *rng = g_rand_new_with_seed(20261130);
    const size_t n = 160;
    Cols a;
    cols_init(&a, n);
    size_t lanes = 0, models = 0, mono = 0;
    double worst_mfu = 0, worst_hfu = 0;
    /* the sanitizer pass (PRISM_TEST_SANITIZED=1) takes every fourth pair, so each model and
     * each preset still appears; the main pass takes all of them */
    const char *san = g_getenv("PRISM_TEST_SANITIZED");
    const size_t every = san != NULL && strcmp(san, "1") == 0 ? 4 : 1;
    for (size_t mi = 0; mi < prism_model_zoo_size(); mi++) {
        g_autoptr(PrismModel) m = prism_model_zoo_get(prism_model_zoo_name(mi), NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        for (size_t pi = 0; pi < prism_cluster_preset_count(); pi++) {
            if ((mi + pi) % every != 0)
                continue;
            g_autoptr(PrismCluster) c = prism_cluster_preset(prism_cluster_preset_name(pi), NULL);
            PrismTraining t;
            prism_training_default(&t);
            t.gbs = 1536;
            t.seq =
                m->pos == PRISM_POS_LEARNED && m->max_positions < 4096 ? m->max_positions : 4096;
            /* every third pair at long context (RoPE models), where the attention core is
             * most of the FLOPs: MFU counts it as executed (mfu_core 0), so neither MFU
             * nor HFU may pass the bound there either */
            if ((mi + pi) % 3 == 0 && m->pos == PRISM_POS_ROPE)
                t.seq = 131072;
            /* alternate BF16 and the device's FP8 recipes */
            static const PrismDtype dts[] = {PRISM_DTYPE_BF16, PRISM_DTYPE_FP8, PRISM_DTYPE_FP8_CS,
                                             PRISM_DTYPE_MXFP8};
            const PrismDtype dt = dts[(mi + pi) % 4];
            t.dtype = c->peak_flops[dt] > 0 ? dt : PRISM_DTYPE_BF16;
            PrismKnobs k;
            prism_knobs_default(&k);
            g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, &k, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
            models++;
            const double bound = attainable(c, t.dtype, &k);
            TestBatch tb;
            int tries = 0;
            while (!test_random_batch(cm, rng, n, &tb) && ++tries < 20)
                ;
            if (tries >= 20)
                continue;
            g_autoptr(PrismCostSegment) seg = prism_cost_segment_new(cm, &tb.key, FALSE, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(seg);
            g_autoptr(PrismEvaluator) ev =
                prism_evaluator_new(cm, prism_kernel_table_get("scalar", NULL), n);
            prism_evaluator_run(ev, seg, &tb.lanes, &a.out);
            for (size_t i = 0; i < n; i++) {
                for (int col = 0; col < PRISM_COL_COUNT; col++) {
                    const double v = a.out.col[col][i];
                    if (!(isfinite(v) && v >= 0)) {
                        CU_FAIL("a negative or non-finite column");
                        fprintf(stderr, "%s on %s: column %s = %g\n", m->name, c->name,
                                prism_col_info((PrismCostCol)col)->name, v);
                    }
                }
                const double mfu = a.out.col[PRISM_COL_MFU][i], hfu = a.out.col[PRISM_COL_HFU][i];
                CU_ASSERT_TRUE(mfu <= hfu * (1 + 1e-12));
                if (hfu > bound)
                    fprintf(stderr, "%s on %s (%s): HFU %.4f above attainable %.4f\n", m->name,
                            c->name, prism_dtype_name(t.dtype), hfu, bound);
                CU_ASSERT_TRUE(hfu <= bound);
                if (mfu > bound)
                    fprintf(stderr,
                            "%s on %s (%s, seq %" G_GUINT64_FORMAT "): MFU %.4f above "
                            "attainable %.4f\n",
                            m->name, c->name, prism_dtype_name(t.dtype), t.seq, mfu, bound);
                CU_ASSERT_TRUE(mfu <= bound);
                worst_mfu = mfu / bound > worst_mfu ? mfu / bound : worst_mfu;
                worst_hfu = hfu / bound > worst_hfu ? hfu / bound : worst_hfu;
                lanes++;
            }
            /* monotonicity on the first lane: more tp never raises a layer's per-device
             * FLOPs; a faster device (every peak x 2) never slows a layer's compute */
            PrismStrategy s = {0};
            s.devices = tb.key.devices;
            s.pp = tb.key.pp;
            s.vpp = tb.key.vpp;
            s.schedule = tb.key.schedule;
            s.recompute = tb.key.recompute;
            s.rc_layers = tb.key.rc_layers;
            s.offload = tb.key.offload;
            s.tp = (uint32_t)tb.tp[0];
            s.cp = (uint32_t)tb.cp[0];
            s.dp = (uint32_t)tb.dp[0];
            s.ep = (uint32_t)tb.ep[0];
            s.sp = (uint8_t)tb.sp[0];
            s.mbs = (uint32_t)tb.mbs[0];
            s.m = (uint32_t)tb.m[0];
            s.zero = (uint8_t)tb.zero[0];
            s.etp = (uint32_t)tb.etp[0];
            PrismStrategy s2 = s;
            s2.tp *= 2;
            s2.devices *= 2;
            g_autoptr(PrismCluster) fast = prism_cluster_copy(c);
            for (int d = 0; d < PRISM_DTYPE_COUNT; d++)
                fast->peak_flops[d] *= 2;
            g_autoptr(PrismCostModel) cf = prism_cost_model_new(m, fast, &t, &k, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(cf);
            for (uint32_t l = 0; l < m->n_layers; l++) {
                PrismLayerTerms x, y, z;
                if (!prism_cost_layer_terms(cm, &s, l, &x, NULL) ||
                    !prism_cost_layer_terms(cm, &s2, l, &y, NULL) ||
                    !prism_cost_layer_terms(cf, &s, l, &z, NULL))
                    continue;
                CU_ASSERT_TRUE(y.flops_fwd <= x.flops_fwd * (1 + 1e-12));
                CU_ASSERT_TRUE(z.wgrad_s <= x.wgrad_s * (1 + 1e-12));
                CU_ASSERT_TRUE(z.recompute_s[2] <= x.recompute_s[2] * (1 + 1e-12));
                const double terms[] = {x.fwd_s,          x.bwd_s,          x.wgrad_s,
                                        x.recompute_s[1], x.recompute_s[2], x.flops_fwd,
                                        x.opt_step_s};
                for (size_t j = 0; j < G_N_ELEMENTS(terms); j++)
                    CU_ASSERT_TRUE(isfinite(terms[j]) && terms[j] >= 0);
                mono++;
            }
            test_batch_clear(&tb);
        }
    }
    printf("\n  %zu models x presets, %zu lanes, %zu layer monotonicity checks; highest "
           "MFU %.3f and HFU %.3f of the attainable fraction\n",
           models, lanes, mono, worst_mfu, worst_hfu);
    CU_ASSERT_TRUE(lanes > 1000);
    g_free(a.buf);
    g_rand_free(rng);
}

/* ---- grouped expert GEMMs priced by tokens per expert ---- */

/* The first GEMM named @p name of explain's data (PrismExplainGemm): M, N, K, count, fwd s;
 * and the large-GEMM BF16 rate. */
static void gemm_named(const PrismCostModel *cm, const PrismStrategy *s, const char *name,
                       double out[5], double *rate)
{
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    PrismExplainModel em;
    prism_explain_model(ex, &em);
    *rate = 1.0 / em.inv_rate_bf16;
    gboolean found = FALSE;
    for (uint32_t i = 0; i < prism_explain_n_kinds(ex) && !found; i++) {
        PrismExplainKind k;
        prism_explain_kind(ex, i, &k);
        for (uint32_t q = 0; q < k.n_gemm && !found; q++) {
            PrismExplainGemm g;
            prism_explain_gemm(ex, i, q, &g);
            if (strcmp(g.name, name) != 0)
                continue;
            const double v[5] = {g.M, g.N, g.K, g.count, g.pass[0].seconds};
            memcpy(out, v, sizeof v);
            found = TRUE;
        }
    }
    CU_ASSERT_TRUE_FATAL(found);
}

static void expert_fc1(const PrismCostModel *cm, const PrismStrategy *s, double out[5],
                       double *rate)
{
    gemm_named(cm, s, "expert_fc1", out, rate);
}

/*
 * Mixtral-8x7B (h = 4096, E = 8 experts of width 14336, top_k = 2, SwiGLU: fc1 = gate + up,
 * 2 x 14336 wide), dropless with cf = moe_imbalance = 1, on H100-SXM, mbs 1. One device's
 * E/ep local experts, each cut etp ways, see M = T x top_k x cf / E x ep x etp / tp rows
 * (T = mbs x seq / cp tokens per micro-batch), N = 2 x 14336 / etp, K = 4096:
 *   seq 4096, tp 1, ep 1, etp 1 (N=8):   M = 4096 x 2/8          = 1024, count 8, N 28672
 *   seq 4096, tp 2, ep 8, etp 1 (N=16):  M = 1024 x 8 x 1 / 2    = 4096, count 1, N 28672
 *   seq 4096, tp 2, ep 4, etp 2 (N=16):  M = 1024 x 4 x 2 / 2    = 4096, count 2, N 14336
 *   seq 4096, tp 8, ep 1, etp 8 (N=8):   M = 1024 x 1 x 8 / 8    = 1024, count 8, N 3584
 *   seq 256,  tp 1, ep 1, etp 1 (N=8):   M = 256 x 2/8           =   64, count 8, N 28672
 * and the forward seconds are the shared shape model's (prism_k_gemm_pass on H100: 132
 * SMs, 128 x 256 tiles, HBM 3350 GB/s x 0.8, bf16 operand bytes) at the explain's
 * large-GEMM rate. Thin GEMMs lose efficiency: the 64-row case runs below the 1024-row
 * one per FLOP (memory-bound weights: 2 x 4096 x 28672 x 8 bytes for 64 x 8 rows).
 */
static void test_grouped_experts(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("mixtral-8x7b", NULL);
    g_autoptr(PrismCluster) c = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const struct {
        uint64_t seq;
        uint32_t n;
        const char *s;
        double M, N, count;
    } cases[] = {{4096, 8, "tp=1,ep=1,mbs=1", 1024, 28672, 8},
                 {4096, 16, "tp=2,ep=8,etp=1,mbs=1", 4096, 28672, 1},
                 {4096, 16, "tp=2,ep=4,etp=2,mbs=1", 4096, 14336, 2},
                 {4096, 8, "tp=8,ep=1,mbs=1", 1024, 3584, 8},
                 {256, 8, "tp=1,ep=1,mbs=1", 64, 28672, 8}};
    double eff[G_N_ELEMENTS(cases)];
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        PrismTraining t;
        prism_training_default(&t);
        t.gbs = 64;
        t.seq = cases[i].seq;
        PrismKnobs k;
        prism_knobs_default(&k);
        g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, &k, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
        const PrismStrategy s = test_strategy(cm, cases[i].n, cases[i].s);
        double g[5] = {0}, rate = 0;
        expert_fc1(cm, &s, g, &rate);
        CU_ASSERT_EQUAL(g[0], cases[i].M);
        CU_ASSERT_EQUAL(g[1], cases[i].N);
        CU_ASSERT_EQUAL(g[2], 4096.0);
        CU_ASSERT_EQUAL(g[3], cases[i].count);
        PrismKGemmDev d = h100(1.0);
        d.tile_s = 3.1e-6; /* the knob defaults gemm_tile_us and gemm_eff_k */
        d.ref_k = 6144.0;
        const double M = g[0], N = g[1], K = g[2], n = g[3];
        const double want =
            prism_k_gemm_pass(&d, M, N, K, n, 1.0 / rate, 2.0 * (M * K + K * N + M * N) * n);
        CU_ASSERT_TRUE(prism_test_close(g[4], want, 1e-12, 0));
        eff[i] = 2.0 * M * N * K * n / g[4] / rate;
    }
    CU_ASSERT_TRUE(eff[4] < 0.5 * eff[0]);
}

/* grouped_gemm_ratio: the routed experts' grouped launch at r x the dense large-GEMM rate.
 * Mixtral-8x7B's first case above (M 1024, N 28672, K 4096, 8 local experts) on H100-SXM:
 * with r = 0.579 (torch._grouped_mm on B200, pytorch-fsdp [knobs.B200]) the expert_fc1
 * forward is the wave/tile pass at the rate 791.52e12 x 0.579 = 458.29e12 FLOP/s, and the
 * attention projection (qkv, a dense GEMM) keeps its time. */
static void test_grouped_gemm_ratio(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("mixtral-8x7b", NULL);
    g_autoptr(PrismCluster) c = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    double g[2][5], rate[2], qkv[2];
    for (int i = 0; i < 2; i++) {
        PrismTraining t;
        prism_training_default(&t);
        t.gbs = 64;
        t.seq = 4096;
        PrismKnobs k;
        prism_knobs_default(&k);
        CU_ASSERT_EQUAL(k.v[PRISM_KNOB_GROUPED_GEMM_RATIO], 1.0);
        if (i == 1)
            CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, "grouped_gemm_ratio=0.579", NULL));
        g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, &k, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
        const PrismStrategy s = test_strategy(cm, 8, "tp=1,ep=1,mbs=1");
        expert_fc1(cm, &s, g[i], &rate[i]);
        double d5[5], r;
        gemm_named(cm, &s, "qkv", d5, &r);
        qkv[i] = d5[4];
    }
    /* the dense rate and the dense GEMM do not move */
    CU_ASSERT_DOUBLE_EQUAL(rate[0], 791.52e12, 1e3);
    CU_ASSERT_EQUAL(rate[1], rate[0]);
    CU_ASSERT_TRUE(qkv[0] > 0);
    CU_ASSERT_EQUAL(qkv[1], qkv[0]);
    PrismKGemmDev d = h100(1.0);
    d.tile_s = 3.1e-6;
    d.ref_k = 6144.0;
    const double M = 1024, N = 28672, K = 4096, n = 8;
    CU_ASSERT_EQUAL(g[1][0], M);
    CU_ASSERT_EQUAL(g[1][3], n);
    const double bytes = 2.0 * (M * K + K * N + M * N) * n;
    const double want1 = prism_k_gemm_pass(&d, M, N, K, n, 1.0 / 791.52e12, bytes);
    const double want = prism_k_gemm_pass(&d, M, N, K, n, 1.0 / 458.29008e12, bytes);
    CU_ASSERT_TRUE(prism_test_close(g[0][4], want1, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(g[1][4], want, 1e-12, 0));
    /* compute-bound: 1/0.579 = 1.727 x the time, less the tile's fixed share */
    CU_ASSERT_TRUE(g[1][4] > 1.6 * g[0][4] && g[1][4] <= g[0][4] / 0.579 * (1 + 1e-12));
}

static CU_TestInfo gemm_tests[] = {
    {"wave and tile quantisation, roofline (hand-derived)", test_wave_tile},
    {"a small-K GEMM: the tile's fixed time (hand-derived)", test_tile_time},
    {"monotone in tp and in the device, bounded by rate and bandwidth", test_gemm_monotone},
    {"FP8 recipes: split, casts, weight copies, MFU convention", test_fp8_split},
    {"fp8_scope: dense linears and routed experts apart", test_fp8_scope},
    {"sustained clock of a power-capped part", test_sustained_clock},
    {"large-GEMM efficiency: the device's figure, the knob, the fallback",
     test_device_gemm_efficiency},
    {"physical bound: every zoo model x every preset", test_physical_bound},
    {"grouped expert GEMMs by tokens per expert (etp, ep)", test_grouped_experts},
    {"grouped_gemm_ratio: the experts' grouped launch only (hand-derived)",
     test_grouped_gemm_ratio},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"gemm", NULL, NULL, NULL, NULL, gemm_tests},
    CU_SUITE_INFO_NULL,
};
