// SPDX-License-Identifier: MIT
/*
 * test_machines.c - the 2026 machines by hand: NVFP4's memory of a layer and an
 * expert-parallel all-to-all inside and outside a 72-GPU NVLink domain (GB200/GB300
 * NVL72: the domain is level 0); one NVFP4 GEMM on B200 at its published rate; MXFP4's
 * memory of a layer, its peaks per preset and one MXFP4 GEMM on B200.
 */
#include <string.h>

#include <CUnit/CUnit.h>
#include <prism/core.h>
#include <prism/cost.h>
#include <prism/explain.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

/* The static parameter bytes of layer 1 (a block) on one device, no ZeRO. */
static double layer_param_bytes(PrismDtype dt, const char *bf16_layers)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 1024, 8, 64);
    g_autoptr(PrismCluster) c = test_cluster();
    c->peak_flops[PRISM_DTYPE_NVFP4] = 4 * 312e12;
    c->peak_flops[PRISM_DTYPE_MXFP4] = 4 * 312e12;
    const char *const sets[] = {"grad_fp32=0", bf16_layers, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, c, 8, 1024, dt, sets);
    PrismStrategy s = test_strategy(cm, 1, "dp=1");
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    return lt.params_bytes;
}

/*
 * NVFP4 memory of a layer. A block of P parameters holds its BF16 weights (2 B each) and,
 * from the forward to the backward, the NVFP4 weight in two layouts (row-wise for the
 * forward, column-wise for dgrad): each half a byte per element plus one 1-byte E4M3
 * scale per 16 elements = 9/16 B, so 2 x 9/16 = 9/8 B per parameter:
 *   every linear in NVFP4 (nvfp4_bf16_layers = 0): (2 + 9/8) P = 1.5625 x the BF16 2 P;
 *   1 of the 4 layers in BF16: the share 3/4 keeps copies: (2 + 3/4 x 9/8) P = 1.421875 x;
 *   4 of 4 layers in BF16: exactly the BF16 bytes.
 */
static void test_nvfp4_layer_memory(void)
{
    const double bf16 = layer_param_bytes(PRISM_DTYPE_BF16, "nvfp4_bf16_layers=0");
    CU_ASSERT_TRUE(bf16 > 0);
    CU_ASSERT_TRUE(prism_test_close(layer_param_bytes(PRISM_DTYPE_NVFP4, "nvfp4_bf16_layers=0"),
                                    bf16 * (2.0 + 9.0 / 8.0) / 2.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(layer_param_bytes(PRISM_DTYPE_NVFP4, "nvfp4_bf16_layers=1"),
                                    bf16 * (2.0 + 0.75 * 9.0 / 8.0) / 2.0, 1e-12, 0));
    CU_ASSERT_EQUAL(layer_param_bytes(PRISM_DTYPE_NVFP4, "nvfp4_bf16_layers=4"), bf16);
    /* 9/16 B per element is the dtype's operand size */
    CU_ASSERT_EQUAL(prism_dtype_bytes(PRISM_DTYPE_NVFP4), 0.5625);
    /* a device without NVFP4 tensor cores refuses the dtype */
    g_autoptr(PrismModel) m = test_gpt_model(4, 1024, 8, 64);
    GError *error = NULL;
    g_autoptr(PrismCluster) h100 = prism_cluster_preset("H100-SXM", NULL);
    PrismTraining t;
    prism_training_default(&t);
    t.dtype = PRISM_DTYPE_NVFP4;
    CU_ASSERT_PTR_NULL(prism_cost_model_new(m, h100, &t, NULL, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "no nvfp4 peak") : NULL);
    g_clear_error(&error);
}

/* A first-layer MoE block of 32 experts, top-2, on the test model. */
static PrismModel *moe32(void)
{
    PrismModel *m = test_gpt_model(2, 1024, 8, 64);
    m->specs[0].mlp =
        (PrismMlpSpec){.act = PRISM_MLP_SWIGLU, .n_experts = 32, .top_k = 2, .expert_hidden = 512};
    return m;
}

/* Forward seconds of layer 1 of dp=32,ep=32 on @p c with ep_overlap @p ov. */
static double moe_fwd(const PrismCluster *c, const char *ov)
{
    g_autoptr(PrismModel) m = moe32();
    const char *const sets[] = {"grad_fp32=0", ov, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, c, 32, 1024, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 32, "dp=32,ep=32");
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    return lt.fwd_s;
}

/*
 * An EP all-to-all of 32 devices inside and outside a 72-GPU NVLink domain. Each device
 * dispatches its T = 1024 tokens' top_k x h x 2 = 4096 B; (e-1)/e = 31/32 leave it in 31
 * messages. At net_efficiency 0.8:
 *   rack (level 0 = 72 GPUs, 900 GB/s, 3 us): t = 1024 x 4096 x 31/32 / 720e9 + 31 x 3e-6
 *   8-GPU nodes (level 1, 50 GB/s, 8 us): the 7/32 for the node's peers over its 720 GB/s
 *   and the 24/32 for the others over the NIC run concurrently, the slower paces it:
 *     t = max(1024 x 4096 x 7/32 / 720e9, 1024 x 4096 x 24/32 / 40e9) + 31 x 8e-6
 * The forward runs a dispatch and a combine: fwd(ep_overlap 0) - fwd(ep_overlap 1) = 2 t.
 */
static void test_a2a_rack_level(void)
{
    g_autoptr(PrismCluster) rack = test_cluster();
    rack->devices_per_node = 4;
    rack->levels[0] = (PrismNetLevel){"nvlink5-nvl72", 72, 900.0, 3.0};
    rack->levels[1] = (PrismNetLevel){"ib", 0, 50.0, 8.0};
    g_autoptr(PrismCluster) hgx = prism_cluster_copy(rack);
    hgx->devices_per_node = 8;
    hgx->levels[0].size = 8;
    const double bytes = 1024.0 * 4096.0 * 31.0 / 32.0;
    const double in = bytes / 720e9 + 31.0 * 3e-6;
    const double out = 1024.0 * 4096.0 * 24.0 / 32.0 / 40e9 + 31.0 * 8e-6;
    const double d_in = moe_fwd(rack, "ep_overlap=0") - moe_fwd(rack, "ep_overlap=1");
    const double d_out = moe_fwd(hgx, "ep_overlap=0") - moe_fwd(hgx, "ep_overlap=1");
    CU_ASSERT_TRUE(prism_test_close(d_in, 2.0 * in, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(d_out, 2.0 * out, 1e-9, 0));
    /* the level a group of 32 lands on: the rack's NVLink, the nodes' network */
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(rack, 32), 0u);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(hgx, 32), 1u);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(rack, 73), 1u);
}

/* The forward seconds of the GEMM of width @p N and depth @p K of layer kind 0's first
 * block on @p cm under dp=1 (explain's data, PrismExplain), and the dtype it runs in
 * (the training dtype's when it runs in low precision, else BF16). */
static double gemm_fwd_s(const PrismCostModel *cm, double N, double K, PrismDtype *dtype)
{
    const PrismStrategy s = test_strategy(cm, 1, "dp=1");
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    const PrismDtype td = prism_cost_model_training(cm)->dtype;
    for (uint32_t i = 0; i < prism_explain_n_kinds(ex); i++) {
        PrismExplainKind k;
        prism_explain_kind(ex, i, &k);
        for (uint32_t q = 0; q < k.n_gemm; q++) {
            PrismExplainGemm g;
            prism_explain_gemm(ex, i, q, &g);
            if (g.N == N && g.K == K) {
                *dtype = g.low && prism_dtype_is_lowp(td) ? td : PRISM_DTYPE_BF16;
                return g.pass[0].seconds;
            }
        }
    }
    CU_FAIL("no GEMM of that shape");
    return 0;
}

/*
 * One NVFP4 GEMM on B200 at the published rate. B200: 148 SMs, 128 x 256 tiles, NVFP4 peak
 * 9e15 FLOP/s at its full clock, gemm_efficiency_nvfp4 0.597 (pytorch/ao#2427: NVFP4 GEMMs
 * at 4096^3, 6144^3, 8192^3 reached 4.46, 5.50, 5.37 PFLOP/s, median 5.37 = 0.597 of 9 PF).
 * A block of h 6144 at M = 4736 tokens (seq 4736, mbs 1): its MLP up-projection is M x N x
 * K = 4736 x 24576 x 6144. Tiles 37 x 96 = 3552 = 24 full waves of 148, no padding; depth K
 * = 6144 = gemm_eff_k, where a wave costs its main loop exactly (cost/README.md, "A GEMM
 * wave's fixed time"). Operands 9/16 B per element, output 2 B: 334 MB, 52 us at 8000 GB/s
 * x 0.8, against 1.43022e12 FLOP: compute bound. So
 *   t = 2 M N K / (9e15 x 0.597) = 1.43022e12 / 5.373e15 = 2.66187e-4 s,
 * and the same GEMM in BF16 at 2.25e15 x 0.631: 1.00738e-3 s (3.78x). With
 * compute_efficiency 0.5 the NVFP4 rate scales by the device's 0.597 / 0.631.
 */
static void test_nvfp4_gemm_b200(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(1, 6144, 48, 32000);
    g_autoptr(PrismCluster) b200 = prism_cluster_preset("B200", NULL);
    CU_ASSERT_EQUAL(b200->gemm_eff_nvfp4, 0.597);
    CU_ASSERT_EQUAL(b200->peak_flops[PRISM_DTYPE_NVFP4], 9000e12);
    const double M = 4736, N = 24576, K = 6144, flop = 2.0 * M * N * K;
    const char *const all4[] = {"nvfp4_bf16_layers=0", NULL};
    PrismDtype dt;
    g_autoptr(PrismCostModel) c4 = test_cost_model_on(m, b200, 1, 4736, PRISM_DTYPE_NVFP4, all4);
    const double t4 = gemm_fwd_s(c4, N, K, &dt);
    CU_ASSERT_EQUAL(dt, PRISM_DTYPE_NVFP4);
    CU_ASSERT_TRUE(prism_test_close(t4, flop / (9e15 * 0.597), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(t4, 2.66187e-4, 1e-5, 0));
    g_autoptr(PrismCostModel) c16 = test_cost_model_on(m, b200, 1, 4736, PRISM_DTYPE_BF16, NULL);
    const double t16 = gemm_fwd_s(c16, N, K, &dt);
    CU_ASSERT_EQUAL(dt, PRISM_DTYPE_BF16);
    CU_ASSERT_TRUE(prism_test_close(t16, flop / (2.25e15 * 0.631), 1e-12, 0));
    /* the knob: 0.5 x 0.597 / 0.631 of the NVFP4 peak */
    const char *const knob[] = {"nvfp4_bf16_layers=0", "compute_efficiency=0.5", NULL};
    g_autoptr(PrismCostModel) ck = test_cost_model_on(m, b200, 1, 4736, PRISM_DTYPE_NVFP4, knob);
    CU_ASSERT_TRUE(
        prism_test_close(gemm_fwd_s(ck, N, K, &dt), flop / (9e15 * 0.5 * 0.597 / 0.631), 1e-12, 0));
    /* a device without an NVFP4 figure prices NVFP4 at its BF16 efficiency */
    b200->gemm_eff_nvfp4 = 0;
    g_autoptr(PrismCostModel) c0 = test_cost_model_on(m, b200, 1, 4736, PRISM_DTYPE_NVFP4, all4);
    CU_ASSERT_TRUE(prism_test_close(gemm_fwd_s(c0, N, K, &dt), flop / (9e15 * 0.631), 1e-12, 0));
    /* every NVFP4 preset carries the figure; a value above 1 or without an NVFP4 peak is
     * refused by the cluster check */
    for (size_t i = 0; i < prism_cluster_preset_count(); i++) {
        g_autoptr(PrismCluster) c = prism_cluster_preset(prism_cluster_preset_name(i), NULL);
        CU_ASSERT_EQUAL(c->gemm_eff_nvfp4 > 0, c->peak_flops[PRISM_DTYPE_NVFP4] > 0);
    }
    GError *error = NULL;
    b200->gemm_eff_nvfp4 = 1.2;
    CU_ASSERT_FALSE(prism_cluster_validate(b200, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "gemm_efficiency_nvfp4 1.2") : NULL);
    g_clear_error(&error);
    g_autoptr(PrismCluster) h100 = prism_cluster_preset("H100-SXM", NULL);
    h100->gemm_eff_nvfp4 = 0.6;
    CU_ASSERT_FALSE(prism_cluster_validate(h100, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "without an NVFP4 peak") : NULL);
    g_clear_error(&error);
}

/*
 * MXFP4 memory of a layer (OCP MX v1.0: E2M1 elements, one 1-byte E8M0 scale per 32). A
 * block of P parameters holds its BF16 weights (2 B each) and the MXFP4 weight in two
 * layouts (as NVFP4's), each half a byte per element plus 1/32 byte of scale = 17/32 B, so
 * 2 x 17/32 = 17/16 B per parameter:
 *   every linear in MXFP4 (nvfp4_bf16_layers = 0): (2 + 17/16) P = 1.53125 x the BF16 2 P;
 *   1 of the 4 layers in BF16: (2 + 3/4 x 17/16) P = 1.3984375 x;
 *   4 of 4 layers in BF16: exactly the BF16 bytes.
 * A device without MXFP4 tensor cores (MI325X, CDNA3) refuses the dtype.
 */
static void test_mxfp4_layer_memory(void)
{
    const double bf16 = layer_param_bytes(PRISM_DTYPE_BF16, "nvfp4_bf16_layers=0");
    CU_ASSERT_TRUE(bf16 > 0);
    CU_ASSERT_TRUE(prism_test_close(layer_param_bytes(PRISM_DTYPE_MXFP4, "nvfp4_bf16_layers=0"),
                                    bf16 * 1.53125, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(layer_param_bytes(PRISM_DTYPE_MXFP4, "nvfp4_bf16_layers=1"),
                                    bf16 * 1.3984375, 1e-12, 0));
    CU_ASSERT_EQUAL(layer_param_bytes(PRISM_DTYPE_MXFP4, "nvfp4_bf16_layers=4"), bf16);
    CU_ASSERT_EQUAL(prism_dtype_bytes(PRISM_DTYPE_MXFP4), 0.53125); /* 4.25 bits */
    PrismDtype dt;
    CU_ASSERT_TRUE(prism_dtype_parse("MXFP4", &dt, NULL) && dt == PRISM_DTYPE_MXFP4);
    CU_ASSERT_STRING_EQUAL(prism_dtype_name(PRISM_DTYPE_MXFP4), "mxfp4");
    CU_ASSERT_TRUE(prism_dtype_is_lowp(PRISM_DTYPE_MXFP4) && prism_dtype_is_fp4(dt));
    CU_ASSERT_FALSE(prism_dtype_is_fp8(PRISM_DTYPE_MXFP4));
    g_autoptr(PrismModel) m = test_gpt_model(4, 1024, 8, 64);
    GError *error = NULL;
    g_autoptr(PrismCluster) mi325 = prism_cluster_preset("MI325X", NULL);
    PrismTraining t;
    prism_training_default(&t);
    t.dtype = PRISM_DTYPE_MXFP4;
    CU_ASSERT_PTR_NULL(prism_cost_model_new(m, mi325, &t, NULL, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "no mxfp4 peak") : NULL);
    g_clear_error(&error);
}

/*
 * MXFP4 peaks per preset, dense FLOP/s. Blackwell runs MXFP4 on the FP4 tensor cores at
 * the datasheet's FP4 figure: B200 18 PF sparse / 2 = 9 PF, GB200 NVL72 1440 PF sparse /
 * 72 / 2 = 10 PF, GB300 NVL72 1080 PF dense / 72 = 15 PF, HGX B300 108 PF dense / 8 = 13.5
 * PF. MI355X (CDNA4): one 32x32x64 MXFP4 MFMA is 2 x 32 x 32 x 64 = 131072 FLOP in 32
 * cycles on each of 256 CUs x 4 = 1024 matrix cores at 2.4 GHz: 131072 / 32 x 1024 x 2.4e9
 * = 10066.3e12, twice its FP8 peak (5033.2e12). No FP4 on CDNA3 (MI300X, MI325X), Hopper,
 * Ampere or Ascend. Efficiency: cuBLAS MXF4 5239 of 9000 TFLOP/s at 8192^3 on B200 = 0.582
 * (deepseek-ai/DeepGEMM#348), taken by every Blackwell part; none for MI355X.
 */
static void test_mxfp4_peaks(void)
{
    static const struct {
        const char *name;
        double peak, eff;
    } want[] = {{"B200", 9e15, 0.582},
                {"B200-750W", 9e15, 0.582},
                {"GB200-NVL72", 10e15, 0.582},
                {"GB300-NVL72", 15e15, 0.582},
                {"B300", 13.5e15, 0.582},
                {"MI355X", 131072.0 / 32 * 1024 * 2.4e9, 0},
                {"MI325X", 0, 0},
                {"MI300X", 0, 0},
                {"H100-SXM", 0, 0},
                {"A100-80GB", 0, 0}};
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        g_autoptr(PrismCluster) c = prism_cluster_preset(want[i].name, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_TRUE(prism_test_close(c->peak_flops[PRISM_DTYPE_MXFP4], want[i].peak, 1e-5, 0));
        CU_ASSERT_EQUAL(c->gemm_eff_mxfp4, want[i].eff);
    }
    /* every preset: an MXFP4 figure only with an MXFP4 peak, and a cited peak */
    for (size_t i = 0; i < prism_cluster_preset_count(); i++) {
        const char *name = prism_cluster_preset_name(i);
        g_autoptr(PrismCluster) c = prism_cluster_preset(name, NULL);
        CU_ASSERT_TRUE(!(c->gemm_eff_mxfp4 > 0) || c->peak_flops[PRISM_DTYPE_MXFP4] > 0);
        CU_ASSERT_PTR_NOT_NULL(prism_cluster_preset_source(name, "peak_tflops_mxfp4"));
        CU_ASSERT_PTR_NOT_NULL(prism_cluster_preset_source(name, "gemm_efficiency_mxfp4"));
    }
    GError *error = NULL;
    g_autoptr(PrismCluster) h100 = prism_cluster_preset("H100-SXM", NULL);
    h100->gemm_eff_mxfp4 = 0.6;
    CU_ASSERT_FALSE(prism_cluster_validate(h100, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "without an MXFP4 peak") : NULL);
    g_clear_error(&error);
}

/*
 * One MXFP4 GEMM on B200: the NVFP4 test's GEMM (4736 x 24576 x 6144, 24 full waves, depth
 * gemm_eff_k; operands now 17/32 B per element: still compute bound) at the MXFP4 peak 9e15
 * x gemm_efficiency_mxfp4 0.582:
 *   t = 2 M N K / (9e15 x 0.582) = 1.43022e12 / 5.238e15 = 2.73047e-4 s.
 */
static void test_mxfp4_gemm_b200(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(1, 6144, 48, 32000);
    g_autoptr(PrismCluster) b200 = prism_cluster_preset("B200", NULL);
    const char *const all4[] = {"nvfp4_bf16_layers=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, b200, 1, 4736, PRISM_DTYPE_MXFP4, all4);
    PrismDtype dt;
    const double t = gemm_fwd_s(cm, 24576, 6144, &dt);
    CU_ASSERT_EQUAL(dt, PRISM_DTYPE_MXFP4);
    CU_ASSERT_TRUE(prism_test_close(t, 2.0 * 4736 * 24576 * 6144 / (9e15 * 0.582), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(t, 2.73047e-4, 1e-5, 0));
}

static CU_TestInfo tests[] = {
    {"NVFP4 memory of a layer", test_nvfp4_layer_memory},
    {"all-to-all inside and outside a 72-GPU NVLink level", test_a2a_rack_level},
    {"one NVFP4 GEMM on B200 at the published rate", test_nvfp4_gemm_b200},
    {"MXFP4 memory of a layer", test_mxfp4_layer_memory},
    {"MXFP4 peaks per preset", test_mxfp4_peaks},
    {"one MXFP4 GEMM on B200 at the published rate", test_mxfp4_gemm_b200},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"machines", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};
