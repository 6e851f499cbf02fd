// SPDX-License-Identifier: MIT
/*
 * test_cost_formulas.c - the cost model against closed forms derived by hand from the
 * papers (each expected value is worked out in the comment above its check).
 *
 * Model used throughout unless stated: GPT-style, hidden h = 4096, a = 32 heads (head
 * dim 128), ffn 4h, LayerNorm, no biases, untied head, RoPE; fp16 (2 bytes).
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <json-glib/json-glib.h>

#include <prism/core.h>
#include <prism/cost.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

#define H 4096.0
#define A 32.0

static double block_act(const char *strategy, uint32_t devices, const char *const *sets, int mode)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    return lt.act_bytes[mode];
}

/*
 * Korthikanti et al. 2022 (arXiv:2205.05198), Sec. 4, activation bytes per layer with
 * s = 2048, b = 2, h = 4096, a = 32, fp16, dropout, no flash attention:
 *   sbh = 2048 * 2 * 4096 = 16,777,216;  5as/h = 5*32*2048/4096 = 80.
 *   no parallelism       sbh (34 + 5as/h)             = 16,777,216 * 114  = 1,912,602,624
 *   TP t=4, no SP        sbh (10 + 24/t + 5as/(ht))   = 16,777,216 * 36   =   603,979,776
 *   TP t=4 + SP          sbh/t (34 + 5as/h)           = 16,777,216 * 28.5 =   478,150,656
 *   TP + SP + selective  sbh/t * 34                   = 16,777,216 * 8.5  =   142,606,336
 *   full recompute       2sbh (no SP, any t)          =                        33,554,432
 *   full recompute + SP  2sbh/t                       =                         8,388,608
 */
static void test_korthikanti(void)
{
    static const char *const sets[] = {"flash_attention=0", "dropout=1", NULL};
    const double sbh = 2048.0 * 2.0 * H;
    CU_ASSERT_EQUAL(block_act("tp=1,mbs=2", 1, sets, 0), sbh * (34.0 + 5.0 * A * 2048.0 / H));
    CU_ASSERT_EQUAL(block_act("tp=1,mbs=2", 1, sets, 0), 1912602624.0);
    CU_ASSERT_EQUAL(block_act("tp=4,mbs=2", 4, sets, 0), 603979776.0);
    CU_ASSERT_EQUAL(block_act("tp=4,sp=1,mbs=2", 4, sets, 0), 478150656.0);
    CU_ASSERT_EQUAL(block_act("tp=4,sp=1,mbs=2", 4, sets, 1), 142606336.0);
    CU_ASSERT_EQUAL(block_act("tp=1,mbs=2", 1, sets, 2), 33554432.0);
    CU_ASSERT_EQUAL(block_act("tp=4,mbs=2", 4, sets, 2), 33554432.0);
    CU_ASSERT_EQUAL(block_act("tp=4,sp=1,mbs=2", 4, sets, 2), 8388608.0);
}

/*
 * With flash attention the 5as/h softmax/dropout term is replaced by the fp32
 * log-sum-exp per head and token: 4*a bytes per token, so per layer (t = 1)
 *   sbh*34 + s*b*4a = 570,425,344 + 4096*128 = 570,949,632.
 */
static void test_flash_attention(void)
{
    static const char *const sets[] = {"flash_attention=1", "dropout=1", NULL};
    CU_ASSERT_EQUAL(block_act("tp=1,mbs=2", 1, sets, 0), 570425344.0 + 4096.0 * 128.0);
}

/*
 * Per-op SAC (selective_policy = 1; torchtitan "op": SDPA's outputs and every other
 * matmul's output saved). The test model's block is bias-free MHA with a GELU MLP, so its
 * matmuls run wq, wk, wv, wo, fc1, fc2: saved wq (a d), wv (g d), fc1 (f), SDPA's output
 * (a d) and log-sum-exp (4a bytes), plus the block input (h). h 4096, a = g = 32, d 128,
 * f 16384, bf16 (2 B), s 2048, b 2 (T = 4096 tokens):
 *   t = 1:        2*4096 + 2*(4096 + 4096 + 16384) + 4*32 + 2*4096 = 65,664 B/token
 *                 x 4096 tokens                                     = 268,959,744 B
 *   t = 4 + SP:   every part divided by 4 (r = 1/t, heads and KV heads sharded, 4 <= g)
 *                                                                   =  67,239,936 B
 * Korthikanti's selective (policy 0) keeps the none-mode body without the core's
 * statistics, no dropout masks: inputs 4 x 2h, Q and output 2 x 2h, K and V 2 x 2h, fc1
 * and GELU outputs 2 x 2f = 8h + 4h + 4h + 16h = 32h bytes/token, x 4096 tokens
 * = 32 * 4096 * 4096 = 536,870,912 B at t = 1.
 * Recompute FLOPs per token (HFU's model convention): wk 2hgd + wo 2adh + fc2 2fh
 * = 2*4096*(4096 + 4096 + 16384) = 201,326,592; policy 0: the full core 4 a d s
 * = 4*4096*2048 = 33,554,432. Per step (gbs 8, 4 layers, dp 1: 8 * 2048 = 16,384 tokens)
 * 4 * 16384 * 201,326,592 = 1.3194e13 and 4 * 16384 * 33,554,432 = 2.1990e12, which
 * (HFU - MFU) x step x N x peak (312e12, the test cluster's BF16 peak) must equal.
 */
static double sac_recompute_flops(const char *policy, double *act_t1, double *act_t4)
{
    const char *const sets[] = {"flash_attention=1", "dropout=0", policy, NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_BF16, sets);
    PrismLayerTerms lt;
    PrismStrategy s1 = test_strategy(cm, 1, "tp=1,mbs=2,recompute=selective");
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s1, 1, &lt, NULL));
    *act_t1 = lt.act_bytes[1];
    PrismStrategy s4 = test_strategy(cm, 4, "tp=4,sp=1,mbs=2,recompute=selective");
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s4, 1, &lt, NULL));
    *act_t4 = lt.act_bytes[1];
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s1, c, NULL));
    return (c[PRISM_COL_HFU] - c[PRISM_COL_MFU]) * c[PRISM_COL_TIME_STEP] * 312e12;
}

static void test_selective_policy(void)
{
    double a1, a4;
    const double sac = sac_recompute_flops("selective_policy=1", &a1, &a4);
    CU_ASSERT_EQUAL(a1, 268959744.0);
    CU_ASSERT_EQUAL(a4, 67239936.0);
    CU_ASSERT_DOUBLE_EQUAL(sac / (4.0 * 16384.0 * 201326592.0), 1.0, 1e-9);
    const double kor = sac_recompute_flops("selective_policy=0", &a1, &a4);
    CU_ASSERT_EQUAL(a1, 32.0 * 4096.0 * 4096.0);
    CU_ASSERT_DOUBLE_EQUAL(kor / (4.0 * 16384.0 * 33554432.0), 1.0, 1e-9);
}

/*
 * loss_bwd_extra: the head's backward working set grows by one copy of the logits per
 * extra copy, logits_bytes x V / t per token. V 51200, fp32 logits (4 B), T = 2 x 2048 =
 * 4096 tokens: t = 1: 4 * 51200 * 4096 = 838,860,800 B; t = 4 (+SP): 209,715,200 B. The
 * kept activations do not change.
 */
static void head_terms(const char *extra, const char *strategy, uint32_t devices,
                       PrismLayerTerms *lt)
{
    const char *const sets[] = {extra, NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_BF16, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, m->n_layers - 1, lt, NULL));
}

static void test_loss_bwd_extra(void)
{
    PrismLayerTerms a, b;
    head_terms("loss_bwd_extra=0", "tp=1,mbs=2", 1, &a);
    head_terms("loss_bwd_extra=1", "tp=1,mbs=2", 1, &b);
    CU_ASSERT_EQUAL(b.work_bytes - a.work_bytes, 838860800.0);
    CU_ASSERT_EQUAL(b.act_bytes[0], a.act_bytes[0]);
    head_terms("loss_bwd_extra=0", "tp=4,sp=1,mbs=2", 4, &a);
    head_terms("loss_bwd_extra=1", "tp=4,sp=1,mbs=2", 4, &b);
    CU_ASSERT_EQUAL(b.work_bytes - a.work_bytes, 209715200.0);
}

/*
 * elementwise_eager: the test model (LayerNorm, GELU, RoPE) gains only eager RoPE on q and
 * k: x.float() (2 + 4), complex multiply (4 + 4), type_as (4 + 2) = 20 B per element over
 * d (a + g) = 128 * (32 + 32) = 8192 elements per token = 163,840 B/token per forward.
 * At 1000 GB/s and hbm_efficiency 1, T = 4096 tokens: 4096 * 163840 / 1e12 = 6.7108864e-4 s
 * more forward, and bwd_ratio (2) times that in backward.
 */
static void eager_terms(const char *eager, PrismLayerTerms *lt)
{
    const char *const sets[] = {eager, "hbm_GBps=1000", "hbm_efficiency=1", NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_BF16, sets);
    PrismStrategy s = test_strategy(cm, 1, "tp=1,mbs=2");
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, lt, NULL));
}

static void test_elementwise_eager(void)
{
    PrismLayerTerms a, b;
    eager_terms("elementwise_eager=0", &a);
    eager_terms("elementwise_eager=1", &b);
    CU_ASSERT_DOUBLE_EQUAL((b.fwd_s - a.fwd_s) / 6.7108864e-4, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL((b.bwd_s - a.bwd_s) / (2.0 * 6.7108864e-4), 1.0, 1e-9);
    CU_ASSERT_EQUAL(b.act_bytes[0], a.act_bytes[0]);
}

static double static_bytes_per_param(int zero, const char *grad_fp32)
{
    const char *const sets[] = {grad_fp32, NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    g_autofree char *text = g_strdup_printf("dp=8,zero=%d", zero);
    PrismStrategy s = test_strategy(cm, 8, text);
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    /* a block holds 12h^2 (QKV, O, 2 x 4h^2 MLP) + 2 x 2h (LayerNorms) parameters */
    const double P = 12.0 * H * H + 4.0 * H;
    CU_ASSERT_EQUAL(P, prism_block_params(&m->specs[0], m->hidden));
    return (lt.params_bytes + lt.grads_bytes + lt.optimizer_bytes) / P;
}

/*
 * Rajbhandari et al. 2020 (ZeRO, Sec. 5.1), mixed-precision Adam, K = 12 bytes of
 * optimizer state (fp32 master + 2 moments), 2-byte parameters and gradients, N_d = 8:
 *   ZeRO-0  2 + 2 + 12             = 16
 *   ZeRO-1  2 + 2 + 12/8           = 5.5
 *   ZeRO-2  2 + (2 + 12)/8         = 3.75
 *   ZeRO-3  (2 + 2 + 12)/8         = 2
 * Megatron with fp32 gradient accumulation (grad_fp32=1, the default), its distributed
 * optimizer table: non-distributed 2 + 4 + 12 = 18; distributed 6 + 12/8 = 7.5.
 */
static void test_zero_bytes(void)
{
    CU_ASSERT_EQUAL(static_bytes_per_param(0, "grad_fp32=0"), 16.0);
    CU_ASSERT_EQUAL(static_bytes_per_param(1, "grad_fp32=0"), 5.5);
    CU_ASSERT_EQUAL(static_bytes_per_param(2, "grad_fp32=0"), 3.75);
    CU_ASSERT_EQUAL(static_bytes_per_param(3, "grad_fp32=0"), 2.0);
    CU_ASSERT_EQUAL(static_bytes_per_param(0, "grad_fp32=1"), 18.0);
    CU_ASSERT_EQUAL(static_bytes_per_param(1, "grad_fp32=1"), 7.5);
}

/*
 * Narayanan et al. 2021 (SC21, Sec. 5.1): FLOPs per iteration of a GPT model with L
 * layers, batch B, sequence s, vocabulary V:
 *   without recompute (model FLOPs)  72 B s L h^2 (1 + s/(6h) + V/(12 h L))
 *   with full recompute              96 B s L h^2 (1 + s/(6h) + V/(16 h L))
 * (the logit layer is not recomputed). B = 8, s = 2048, L = 4, V = 51200. The kernel
 * reports MFU and HFU; FLOPs = fraction * step * N * peak (N = 1, peak 312e12).
 */
static void test_narayanan_flops(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, NULL);
    const double B = 8, s = 2048, L = 4, V = 51200;
    const double model = 72.0 * B * s * L * H * H * (1.0 + s / (6.0 * H) + V / (12.0 * H * L));
    const double hw = 96.0 * B * s * L * H * H * (1.0 + s / (6.0 * H) + V / (16.0 * H * L));
    double c[PRISM_COL_COUNT];
    PrismStrategy st = test_strategy(cm, 1, "tp=1,recompute=full");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &st, c, NULL));
    const double denom = c[PRISM_COL_TIME_STEP] * 1.0 * 312e12;
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_MFU] * denom, model, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_HFU] * denom, hw, 1e-12, 0));
    /* tokens/s = B s / step */
    CU_ASSERT_TRUE(
        prism_test_close(c[PRISM_COL_TOKENS_PER_S] * c[PRISM_COL_TIME_STEP], B * s, 1e-12, 0));
}

/*
 * Ring all-reduce (Patarasuk & Yuan 2009; 2(n-1)/n of the volume on each link) of one
 * TP collective: t = 8 inside a node (level 0: 300 GB/s x net_efficiency 0.8, 5 us),
 * volume V = s*b*h*2 bytes = 2048*1*4096*2 = 16,777,216:
 *   t_AR = 2*7/8 * V / 240e9 + 2*7 * 5e-6 = 1.2233e-4 + 7e-5 s.
 * The forward of a block has 2 all-reduces (after attention and MLP), so turning TP
 * overlap from 0 to 1 changes the forward time by exactly 2 t_AR.
 */
static void test_ring_allreduce_tp(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const ov0[] = {"tp_overlap=0", NULL};
    static const char *const ov1[] = {"tp_overlap=1", NULL};
    g_autoptr(PrismCostModel) c0 = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, ov0);
    g_autoptr(PrismCostModel) c1 = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, ov1);
    PrismStrategy s = test_strategy(c0, 8, "tp=8");
    PrismLayerTerms a, b;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c0, &s, 1, &a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c1, &s, 1, &b, NULL));
    const double V = 2048.0 * 4096.0 * 2.0;
    const double t_ar = 2.0 * 7.0 / 8.0 * V / (300e9 * 0.8) + 2.0 * 7.0 * 5e-6;
    CU_ASSERT_TRUE(prism_test_close(a.fwd_s - b.fwd_s, 2.0 * t_ar, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(a.bwd_s - b.bwd_s, 2.0 * t_ar, 1e-9, 0));
}

/*
 * DP gradient all-reduce across nodes: tp = 1, dp = 16 spans 2 nodes (level 1:
 * 25 GB/s x 0.8, 10 us), ZeRO-0, fp32 gradients (4 bytes), pp = 1 so the one stage holds
 * every parameter P = V h (embedding) + L(12h^2 + 4h) + V h + 2h (head + final norm):
 *   t_dp = 2*15/16 * 4P / 20e9 + 2*15 * 10e-6.
 */
static void test_ring_allreduce_dp(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const sets[] = {"dp_overlap=0", "grad_fp32=1", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 16, "dp=16");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    const double P = 51200.0 * H + 4.0 * (12.0 * H * H + 4.0 * H) + 51200.0 * H + 2.0 * H;
    const double t_dp = 2.0 * 15.0 / 16.0 * 4.0 * P / (25e9 * 0.8) + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], t_dp, 1e-12, 0));
    /* bytes on level 1 per device: 2*15/16 * 4P; nothing on level 0 (tp = pp = 1) */
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_BYTES_L1], 2.0 * 15.0 / 16.0 * 4.0 * P, 1e-12, 0));
    CU_ASSERT_EQUAL(c[PRISM_COL_BYTES_L0], 0.0);
}

/*
 * Pipeline bubble. 1F1B (Narayanan et al. 2021, Sec. 2.2.1): p - 1 slots of the stage
 * time, fraction (p-1)/m; interleaved with v chunks: (p-1)/(v m). Exactly, prism's
 * bubble is sum_s T_s - max_s T_s (over vpp); with p = 4 and a vocabulary of 8 the head
 * is negligible and the embedding's memory-bound work is 0.4% of a stage, so T_s is the
 * same on every stage to within 1% and bubble / (m T_max) is (p-1)/m to 1% relative.
 * L = 8, m = 16, tp = 1: 1F1B 3/16; interleaved v = 2: 3/32.
 */
static void check_bubble(const char *text, double expect)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 8);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, NULL);
    PrismStrategy s = test_strategy(cm, 4, text);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    const double tmax = (c[PRISM_COL_TIME_STEP] - c[PRISM_COL_TIME_BUBBLE] -
                         c[PRISM_COL_TIME_DP_COMM] - c[PRISM_COL_TIME_OPTIMIZER]) /
                        16.0;
    const double frac = c[PRISM_COL_TIME_BUBBLE] / (16.0 * tmax);
    CU_ASSERT_TRUE(prism_test_close(frac, expect, 1e-2, 0));
}

static void test_bubble(void)
{
    check_bubble("pp=4,mbs=1", 3.0 / 16.0);
    check_bubble("pp=4,vpp=2,mbs=1", 3.0 / 32.0);
}

/*
 * The bubble exactly: 1F1B with p = 4, L = 8 (2 layers per stage), tp = 1; stage times
 * T_0 = 2 T_layer + T_emb + T_pp, T_1 = T_2 = 2 T_layer + T_pp and
 * T_3 = 2 T_layer + T_head + T_pp (the slowest: the head's 2hV FLOPs), where
 * T_pp = 2 (V_pp/240e9 + 5e-6), V_pp = s b h 2 bytes, and T_layer = forward + backward
 * of one block (the backward includes its gradient accumulation, see test_grad_accum).
 * bubble = sum T_s - T_3 = 3 (2 T_layer + T_pp) + T_emb.
 */
static void test_bubble_exact(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, NULL);
    PrismStrategy s = test_strategy(cm, 4, "pp=4,mbs=1");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    PrismLayerTerms lt, emb;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 0, &emb, NULL));
    const double t_pp = 2.0 * (2048.0 * 4096.0 * 2.0 / (300e9 * 0.8) + 5e-6);
    const double expect = 3.0 * (2.0 * (lt.fwd_s + lt.bwd_s) + t_pp) + emb.fwd_s + emb.bwd_s;
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_BUBBLE], expect, 1e-12, 0));
}

/*
 * prism_knobs_to_json prints the shortest of %.15g/%.16g/%.17g that parses back to the same
 * double: 0.6 (whose %.17g is 0.59999999999999998) prints as 0.6, 2e9 as 2000000000, and
 * 0.1 + 0.2 = 0.30000000000000004 needs all 17 digits. Every value parses back exactly.
 */
static void test_knobs_json(void)
{
    PrismKnobs k;
    prism_knobs_default(&k);
    CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, "compute_efficiency=0.6", NULL));
    k.v[PRISM_KNOB_TP_OVERLAP] = 0.1 + 0.2;
    g_autofree char *j = prism_knobs_to_json(&k);
    CU_ASSERT_PTR_NOT_NULL(strstr(j, "\"compute_efficiency\": 0.6,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(j, "\"mem_margin\": 2000000000,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(j, "\"tp_overlap\": 0.30000000000000004,"));
    CU_ASSERT_PTR_NULL(strstr(j, "0.59999"));
    g_autoptr(JsonParser) p = json_parser_new();
    CU_ASSERT_TRUE_FATAL(json_parser_load_from_data(p, j, -1, NULL));
    JsonObject *o = json_node_get_object(json_parser_get_root(p));
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        const char *name = prism_knob_info((PrismKnobId)i)->name;
        CU_ASSERT_EQUAL(json_object_get_double_member(o, name), k.v[i]);
    }
}

/*
 * Device memory bandwidth comes from the cluster (PrismCluster.mem_bw_GBps); the hbm_GBps
 * knob overrides it, and a cluster without it is priced at 2000 GB/s. The optimizer step
 * of one block (tp = 1, no ZeRO, fp16 with fp32 gradients, Adam) moves, per parameter,
 * 2 x 12 (master copy + moments, read + write) + 4 (fp32 gradient) + 2 (fp16 weight
 * written) = 30 bytes at bandwidth x hbm_efficiency (0.8):
 *   params = 12 h^2 + 4 h (two LayerNorms; no biases) = 12 * 4096^2 + 4 * 4096
 *          = 201,342,976
 *   1000 GB/s: 201,342,976 * 30 / (1000e9 * 0.8) = 7.550361600e-3 s
 *   cluster 1000 GB/s with hbm_GBps = 4000: a quarter of that; no bandwidth: / 2 (2000).
 */
static void test_cluster_hbm(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCluster) c = test_cluster();
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = 8;
    t.seq = 2048;
    t.dtype = PRISM_DTYPE_FP16;
    double opt[3];
    for (int i = 0; i < 3; i++) {
        PrismKnobs k;
        prism_knobs_default(&k);
        c->mem_bw_GBps = i == 2 ? 0.0 : 1000.0;
        if (i == 1)
            CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, "hbm_GBps=4000", NULL));
        g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, &k, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
        PrismStrategy s = test_strategy(cm, 8, "dp=8,tp=1,pp=1,mbs=1,zero=0");
        PrismLayerTerms lt;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
        opt[i] = lt.opt_step_s;
    }
    const double want = 201342976.0 * 30.0 / (1000e9 * 0.8);
    CU_ASSERT_DOUBLE_EQUAL(opt[0], want, want * 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(opt[1], want / 4.0, want * 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(opt[2], want / 2.0, want * 1e-12);
}

/*
 * Backward working set (knob bwd_working_set; SAPP-ND's BwdOverhead, SEEDS.md 2.7): while a
 * layer runs backward, one micro-batch of its activations (less the kept input) is live on
 * top of the stored ones. pp = 1, 4 blocks, s = 2048, b = 2 (T = 4096 tokens), h = 4096,
 * a = 32, V = 51200, fp16, dropout, no flash attention:
 *   block    sbh (34 + 5as/h)                         = 1,912,602,624 (Korthikanti, above)
 *   embedding  T h (dropout mask)                     =    16,777,216
 *   head     T (2 * 2h + 4 V) = 4096 * 221,184        =   905,969,664
 *   stored: 4 * 1,912,602,624 + 16,777,216 + 905,969,664 = 8,573,157,376
 *   working set: max over layers of (activations - kept input 2Th):
 *            block 1,912,602,624 - 33,554,432 = 1,879,048,192 (the head's is 905,969,664)
 *   peak activations: 8,573,157,376 + 1,879,048,192 = 10,452,205,568; without: 8,573,157,376
 */
static void test_bwd_working_set(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const on[] = {"flash_attention=0", "dropout=1", NULL};
    static const char *const off[] = {"flash_attention=0", "dropout=1", "bwd_working_set=0",
                                      NULL};
    const double want[2] = {10452205568.0, 8573157376.0};
    for (int i = 0; i < 2; i++) {
        g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, i ? off : on);
        PrismStrategy s = test_strategy(cm, 4, "dp=4,tp=1,pp=1,mbs=2,recompute=none");
        double c[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
        CU_ASSERT_EQUAL(c[PRISM_COL_MEM_ACTIVATIONS], want[i]);
    }
}

/*
 * Gradient accumulation (knob grad_accum_exposed): every micro-batch reads and writes the
 * gradient buffer once per parameter, 2 * 4 B with fp32 gradients, at HBM 2000 GB/s (the
 * test cluster gives none) * 0.8. One block, tp = 1: 12 h^2 + 4 h = 201,342,976 params:
 *   201,342,976 * 8 / 1.6e12 = 1.00671488e-3 s per micro-batch, in the backward pass;
 *   with gradients in fp16 (grad_fp32 = 0) half of it: 5.0335744e-4 s.
 */
static double bwd_seconds(const char *const *sets)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, "dp=8,tp=1,pp=1,mbs=1,zero=0");
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    return lt.bwd_s;
}

static void test_grad_accum(void)
{
    static const char *const on[] = {NULL};
    static const char *const off[] = {"grad_accum_exposed=0", NULL};
    static const char *const on16[] = {"grad_fp32=0", NULL};
    static const char *const off16[] = {"grad_fp32=0", "grad_accum_exposed=0", NULL};
    const double acc = bwd_seconds(on) - bwd_seconds(off);
    CU_ASSERT_DOUBLE_EQUAL(acc, 1.00671488e-3, 1e-12);
    const double acc16 = bwd_seconds(on16) - bwd_seconds(off16);
    CU_ASSERT_DOUBLE_EQUAL(acc16, 5.0335744e-4, 1e-12);
}

static CU_TestInfo formula_tests[] = {
    {"Korthikanti activations per layer", test_korthikanti},
    {"flash attention statistics", test_flash_attention},
    {"ZeRO static bytes per parameter", test_zero_bytes},
    {"Narayanan model and hardware FLOPs", test_narayanan_flops},
    {"ring all-reduce, TP in a node", test_ring_allreduce_tp},
    {"ring all-reduce, DP across nodes", test_ring_allreduce_dp},
    {"bubble fractions 1F1B and interleaved", test_bubble},
    {"1F1B bubble exactly", test_bubble_exact},
    {"knobs JSON: shortest round-trip numbers", test_knobs_json},
    {"memory bandwidth from the cluster, knob override", test_cluster_hbm},
    {"backward working set", test_bwd_working_set},
    {"gradient accumulation traffic", test_grad_accum},
    {"selective policy: per-op SAC", test_selective_policy},
    {"loss backward: eager cross-entropy copy", test_loss_bwd_extra},
    {"eager elementwise: RoPE passes", test_elementwise_eager},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cost_formulas", NULL, NULL, NULL, NULL, formula_tests},
    CU_SUITE_INFO_NULL,
};
