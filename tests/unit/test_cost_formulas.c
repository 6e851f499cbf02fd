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

/* Terms of layer 1 (the first block) of @p m for @p strategy on @p devices. */
static void block_terms(const PrismModel *m, uint64_t gbs, uint64_t seq, PrismDtype dt,
                        const char *const *sets, uint32_t devices, const char *strategy,
                        PrismLayerTerms *lt)
{
    g_autoptr(PrismCostModel) cm = test_cost_model(m, gbs, seq, dt, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, lt, NULL));
}

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
 * Recompute FLOPs per token (HFU counts them as executed): wk 2hgd + wo 2adh + fc2 2fh
 * = 2*4096*(4096 + 4096 + 16384) = 201,326,592; policy 0: the core 4 a d s = 4*4096*2048
 * = 33,554,432, of which causal flash attention runs half: 16,777,216. Per step (gbs 8,
 * 4 layers, dp 1: 8 * 2048 = 16,384 tokens) 4 * 16384 * 201,326,592 = 1.3194e13 and
 * 4 * 16384 * 16,777,216 = 1.0995e12, which (HFU - MFU) x step x N x peak (312e12, the
 * test cluster's BF16 peak) must equal (MFU counts the core as executed too: mfu_core 0).
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
    CU_ASSERT_DOUBLE_EQUAL(kor / (4.0 * 16384.0 * 16777216.0), 1.0, 1e-9);
}

/*
 * selective_policy = 2: per-op SAC whose attention op is not on the save list (cuDNN's SDPA
 * before torchtitan#2095). SDPA's output (a d = 4096 elements, 2 B) and its fp32
 * log-sum-exp (4 a = 128 B) are no longer kept: 65,664 - 8,192 - 128 = 57,344 B/token,
 * x 4096 tokens = 234,881,024 B at t = 1 and a quarter, 58,720,256 B, at t = 4 with SP.
 * SDPA runs again: the recompute adds the causal flash core, 16,777,216 FLOPs per token
 * (test_selective_policy), to wk + wo + fc2's 201,326,592: per step
 * 4 * 16384 * (201,326,592 + 16,777,216) = 1.4293e13.
 */
static void test_selective_policy_sdpa_recomputed(void)
{
    double a1, a4;
    const double sac = sac_recompute_flops("selective_policy=2", &a1, &a4);
    CU_ASSERT_EQUAL(a1, 234881024.0);
    CU_ASSERT_EQUAL(a4, 58720256.0);
    CU_ASSERT_DOUBLE_EQUAL(sac / (4.0 * 16384.0 * (201326592.0 + 16777216.0)), 1.0, 1e-9);
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
    block_terms(m, 8, 2048, PRISM_DTYPE_BF16, sets, 1, "tp=1,mbs=2", lt);
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

/*
 * tp_layout_copy: PyTorch's functional collectives gather / scatter on dim 0, so an SP
 * collective on the sequence dim 1 of [b, s, h] copies the full tensor once more (read +
 * write). Per all-reduce-equivalent (an all-gather + a reduce-scatter of T h): 4 T h bp
 * bytes. tp = 4 + SP, T = 2 x 2048 = 4096, fp16, 1000 GB/s at hbm_efficiency 1:
 *   4 * 4096 * 4096 * 2 / 1e12 = 1.34217728e-4 s per all-reduce-equivalent;
 *   a block's forward has 2 (after attention, after the MLP), its backward 2:
 *   +2.68435456e-4 s each. Per-op SAC (selective_policy 1) runs the two all-gathers of
 *   the attention and MLP inputs again (its save list holds only the reduce-scatters):
 *   one all-reduce-equivalent, +1.34217728e-4 s of selective recompute; Korthikanti's
 *   policy (0) recomputes the core alone: +0. Without TP nothing changes.
 */
/* Block 1's terms of @p strategy on 8 devices (gbs 8, seq 2048, fp16) under two knob sets. */
static void pair_terms(const PrismModel *m, const char *const *sets_a, const char *const *sets_b,
                       const char *strategy, PrismLayerTerms *a, PrismLayerTerms *b)
{
    g_autoptr(PrismCostModel) ca = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets_a);
    g_autoptr(PrismCostModel) cb = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets_b);
    PrismStrategy s = test_strategy(ca, 8, strategy);
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(ca, &s, 1, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cb, &s, 1, b, NULL));
}

static void layout_terms(const char *knob, const char *policy, const char *strategy,
                         uint32_t devices, PrismLayerTerms *lt)
{
    const char *const sets[] = {
        knob, policy, "hbm_GBps=1000", "hbm_efficiency=1", "flash_attention=1", NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, lt, NULL));
}

static void test_tp_layout_copy(void)
{
    PrismLayerTerms a, b;
    const char *tp4 = "tp=4,sp=1,mbs=2";
    layout_terms("tp_layout_copy=0", "selective_policy=1", tp4, 4, &a);
    layout_terms("tp_layout_copy=1", "selective_policy=1", tp4, 4, &b);
    CU_ASSERT_DOUBLE_EQUAL((b.fwd_s - a.fwd_s) / 2.68435456e-4, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL((b.bwd_s - a.bwd_s) / 2.68435456e-4, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL((b.recompute_s[1] - a.recompute_s[1]) / 1.34217728e-4, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL((b.recompute_s[2] - a.recompute_s[2]) / 2.68435456e-4, 1.0, 1e-9);
    layout_terms("tp_layout_copy=0", "selective_policy=0", tp4, 4, &a);
    layout_terms("tp_layout_copy=1", "selective_policy=0", tp4, 4, &b);
    CU_ASSERT_EQUAL(b.recompute_s[1], a.recompute_s[1]);
    layout_terms("tp_layout_copy=0", "selective_policy=1", "tp=1,mbs=2", 1, &a);
    layout_terms("tp_layout_copy=1", "selective_policy=1", "tp=1,mbs=2", 1, &b);
    CU_ASSERT_EQUAL(b.fwd_s, a.fwd_s);
    CU_ASSERT_EQUAL(b.bwd_s, a.bwd_s);
    CU_ASSERT_EQUAL(b.recompute_s[1], a.recompute_s[1]);
}

/*
 * sp_saves_gathered (PyTorch DTensor SP): the attention linears' input and the MLP's first
 * linear input are kept gathered (T h bp each) instead of 1/t of it. tp = 4 + SP, T = 4096,
 * fp16: 2 * 4096 * 4096 * 2 * (1 - 1/4) = 50,331,648 B more kept without recompute and with
 * Korthikanti's selective, and in the full-recompute working set; per-op SAC recomputes the
 * all-gathers (keeps nothing more); without SP nothing changes. (layout_terms above: its
 * bandwidth knobs do not touch memory.)
 */
static void test_sp_saves_gathered(void)
{
    PrismLayerTerms a, b;
    const double d = 50331648.0;
    layout_terms("sp_saves_gathered=0", "selective_policy=0", "tp=4,sp=1,mbs=2", 4, &a);
    layout_terms("sp_saves_gathered=1", "selective_policy=0", "tp=4,sp=1,mbs=2", 4, &b);
    CU_ASSERT_EQUAL(b.act_bytes[0] - a.act_bytes[0], d);
    CU_ASSERT_EQUAL(b.act_bytes[1] - a.act_bytes[1], d);
    CU_ASSERT_EQUAL(b.act_bytes[2], a.act_bytes[2]);
    CU_ASSERT_EQUAL(b.work_bytes - a.work_bytes, d);
    layout_terms("sp_saves_gathered=0", "selective_policy=1", "tp=4,sp=1,mbs=2", 4, &a);
    layout_terms("sp_saves_gathered=1", "selective_policy=1", "tp=4,sp=1,mbs=2", 4, &b);
    CU_ASSERT_EQUAL(b.act_bytes[1], a.act_bytes[1]);
    layout_terms("sp_saves_gathered=0", "selective_policy=0", "tp=4,mbs=2", 4, &a);
    layout_terms("sp_saves_gathered=1", "selective_policy=0", "tp=4,mbs=2", 4, &b);
    CU_ASSERT_EQUAL(b.act_bytes[0], a.act_bytes[0]);
    CU_ASSERT_EQUAL(b.work_bytes, a.work_bytes);
}

/*
 * kv_repeat (torchtitan's repeat_kv): Llama-3-8B's block (32 query heads, 8 KV heads of 128,
 * h 4096), fp16, seq 2048, mbs 1, tp 1. Without recompute autograd keeps the repeated K and V
 * for the attention backward: 2 x 32 heads instead of 2 x 8, per token 2 B x 2 x (32 - 8) x
 * 128 = 12,288 B, x 2048 tokens = 25,165,824 B more (the per-op policy keeps wv's output,
 * before the repeat: unchanged). With cp 2 (T = 1024 tokens per rank) the ring exchanges K
 * and V of every query head: its bytes per layer and micro-batch, 3 T KV (c - 1) without
 * recompute, go from 3 x 1024 x 2 B x 2 x 8 x 128 = 12,582,912 B to four times that,
 * 50,331,648 B (`prism explain` terms); a model without GQA (heads = KV heads) is unchanged.
 */
static double kv_cp_bytes_with(const char *repeat, const char *dkv, const char *model);

static double kv_cp_bytes(const char *repeat, const char *model)
{
    return kv_cp_bytes_with(repeat, "cp_dkv_fp32=0", model);
}

static double kv_cp_bytes_with(const char *repeat, const char *dkv, const char *model)
{
    const char *const sets[] = {repeat, dkv, "flash_attention=1", NULL};
    g_autoptr(PrismModel) m = prism_model_zoo_get(model, NULL);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 16, "dp=8,cp=2,tp=1,pp=1,mbs=1");
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    return test_explain_term(ex, PRISM_TERM_SLOT, 1, "cp_bytes");
}

static void test_kv_repeat(void)
{
    g_autoptr(PrismModel) m = prism_model_zoo_get("llama3-8b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    const char *const off[] = {"kv_repeat=0", "selective_policy=1", NULL};
    const char *const on[] = {"kv_repeat=1", "selective_policy=1", NULL};
    PrismLayerTerms la, lb;
    pair_terms(m, off, on, "dp=8,tp=1,pp=1,mbs=1", &la, &lb);
    CU_ASSERT_EQUAL(lb.act_bytes[0] - la.act_bytes[0], 25165824.0);
    CU_ASSERT_EQUAL(lb.act_bytes[1], la.act_bytes[1]); /* per-op SAC keeps wv's output */
    CU_ASSERT_TRUE(lb.fwd_s > la.fwd_s);               /* the copy's traffic */
    CU_ASSERT_EQUAL(kv_cp_bytes("kv_repeat=0", "llama3-8b"), 12582912.0);
    CU_ASSERT_EQUAL(kv_cp_bytes("kv_repeat=1", "llama3-8b"), 50331648.0);
    CU_ASSERT_EQUAL(kv_cp_bytes("kv_repeat=1", "gpt3-1.3b"),
                    kv_cp_bytes("kv_repeat=0", "gpt3-1.3b"));
    /* cp_dkv_fp32 (PyTorch's fp32 dK/dV ring buffer): a backward step carries the fp16 K/V
     * and fp32 dK/dV, 1 + 4/2 = 3 KV units instead of 2: 3 T KV (c - 1) becomes 4 T KV (c - 1),
     * 12,582,912 B x 4/3 = 16,777,216 B (fp16 activations, no recompute) */
    CU_ASSERT_EQUAL(kv_cp_bytes_with("kv_repeat=0", "cp_dkv_fp32=1", "llama3-8b"), 16777216.0);
}

/*
 * fsdp_pp_nosync (FSDP2 under torch.distributed.pipelining): with pp = 2, dp = 4 and
 * ZeRO-3 the stage keeps its parameters gathered (fp16, 2 B) and accumulates unsharded fp32
 * gradients (grad_fp32, 4 B) until one reduce-scatter after the last backward, and the
 * ZeRO-3 unit buffers go away. The peak stage is the last (its fp32 logits): 2 blocks, the
 * final LayerNorm and the head,
 *   P = 2 (12 h^2 + 4 h) + 2 h + V h = 402,685,952 + 8,192 + 209,715,200 = 612,409,344;
 *   nosync: params 2P = 1,224,818,688 B, grads 4P = 2,449,637,376 B;
 *   per micro-batch (0): params 2P/4 = 306,204,672 B, grads 4P/4 = 612,409,344 B;
 *   the optimizer shard (12 B / 4) is the same either way;
 *   buffers (nosync): the stage's send + receive 2 T h bp = 2 * 4096 * 4096 * 2 =
 *   67,108,864 B plus runtime_overhead (the cuBLAS workspace) 33,554,432 = 100,663,296 B.
 * Without a pipeline (pp = 1) the knob changes nothing.
 */
static void nosync_cols(const char *nosync, const char *strategy, double *c)
{
    const char *const sets[] = {nosync, NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
}

static void test_fsdp_pp_nosync(void)
{
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    const char *pp2 = "dp=4,pp=2,zero=3,mbs=2";
    nosync_cols("fsdp_pp_nosync=0", pp2, a);
    nosync_cols("fsdp_pp_nosync=1", pp2, b);
    CU_ASSERT_EQUAL(a[PRISM_COL_PEAK_STAGE], 1.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_PEAK_STAGE], 1.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_MEM_PARAMS], 1224818688.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_MEM_GRADS], 2449637376.0);
    CU_ASSERT_EQUAL(a[PRISM_COL_MEM_PARAMS], 306204672.0);
    CU_ASSERT_EQUAL(a[PRISM_COL_MEM_GRADS], 612409344.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_MEM_OPTIMIZER], a[PRISM_COL_MEM_OPTIMIZER]);
    CU_ASSERT_EQUAL(b[PRISM_COL_MEM_COMM_BUFFERS], 100663296.0);
    CU_ASSERT_TRUE(a[PRISM_COL_MEM_COMM_BUFFERS] > b[PRISM_COL_MEM_COMM_BUFFERS]);
    nosync_cols("fsdp_pp_nosync=0", "dp=8,zero=3,mbs=2", a);
    nosync_cols("fsdp_pp_nosync=1", "dp=8,zero=3,mbs=2", b);
    for (int k = 0; k < PRISM_COL_COUNT; k++)
        CU_ASSERT_EQUAL(b[k], a[k]);
}

/*
 * Memory as each source measures it (prism_cost_memory_kinds), by hand, for GPT 4 x 4096
 * on 8 devices with dp 2, tp 2, pp 2 (three NCCL groups of more than one rank) and the
 * allocated peak A the kernel gives (the sum of its parts on the peak stage), of which P
 * (parameters, gradients, optimizer state) is persistent and takes no reserve:
 *   reserved = A + (A - P) x allocator_reserve 0.343;
 *   NCCL = 3 groups x 2 peers x 16 channels x 9,633,792 B = 924,844,032 B;
 *   device = reserved + cuda_context 3e8 + 924,844,032 = reserved + 1,224,844,032 B.
 * With expandable_segments 1: reserved = A + 20 MiB + 2 MiB = A + 23,068,672 B and
 * device = A + 23,068,672 + 1,224,844,032 B. dp 8 alone holds one group: NCCL 308,281,344 B.
 * dp 8 (ZeRO-0, one stage) holds the whole model persistently: V h (embedding) + 4 blocks x
 * (12 h^2 + 4 h) + 2 h (final norm) + V h (head) = 419,430,400 + 805,371,904 + 8,192 =
 * 1,224,810,496 parameters at 2 + 4 (fp32 gradients) + 12 (Adam) = 18 B:
 * P = 22,046,588,928 B, and only A - P is scaled by 0.343.
 * The verdict is on the device figure: a budget 1 MB above it fits, 1 MB below does not.
 */
static void kinds_for(const char *const *sets, const char *strategy, double *alloc,
                      PrismMemKinds *k, double *feasible, double *persistent)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    CU_ASSERT_EQUAL(c[PRISM_COL_MEM_PEAK],
                    c[PRISM_COL_MEM_PARAMS] + c[PRISM_COL_MEM_GRADS] + c[PRISM_COL_MEM_OPTIMIZER] +
                        c[PRISM_COL_MEM_ACTIVATIONS] + c[PRISM_COL_MEM_COMM_BUFFERS]);
    *alloc = c[PRISM_COL_MEM_PEAK];
    prism_cost_memory_kinds(cm, &s, *alloc, prism_cost_persistent(c), k);
    if (feasible != NULL)
        *feasible = c[PRISM_COL_FEASIBLE];
    if (persistent != NULL)
        *persistent = prism_cost_persistent(c);
}

static void test_memory_kinds(void)
{
    const char *pp2 = "dp=2,tp=2,pp=2,mbs=1";
    double a, f, p;
    PrismMemKinds k;
    kinds_for(NULL, pp2, &a, &k, NULL, &p);
    CU_ASSERT_EQUAL(k.allocated, a);
    CU_ASSERT_TRUE(p > 0.0 && p < a);
    CU_ASSERT_DOUBLE_EQUAL(k.reserved, a + 0.343 * (a - p), 1e-9 * a);
    CU_ASSERT_EQUAL(k.nccl, 924844032.0);
    CU_ASSERT_EQUAL(k.context, 3e8);
    CU_ASSERT_DOUBLE_EQUAL(k.device, a + 0.343 * (a - p) + 1224844032.0, 1e-9 * a);
    const char *const exp[] = {"expandable_segments=1", NULL};
    kinds_for(exp, pp2, &a, &k, NULL, NULL);
    CU_ASSERT_EQUAL(k.reserved, a + 23068672.0);
    CU_ASSERT_EQUAL(k.device, a + (23068672.0 + 3e8 + 924844032.0));
    kinds_for(NULL, "dp=8,mbs=1", &a, &k, NULL, &p);
    CU_ASSERT_EQUAL(k.nccl, 308281344.0);
    /* the persistent state by hand (above): no reserve on its 22,046,588,928 B */
    CU_ASSERT_EQUAL(p, 22046588928.0);
    CU_ASSERT_DOUBLE_EQUAL(k.reserved, a + 0.343 * (a - 22046588928.0), 1e-9 * a);
    CU_ASSERT_DOUBLE_EQUAL(k.device, k.reserved + 3e8 + 308281344.0, 1e-9 * a);
    /* the kernels' verdict is on the device figure: usable = memory - mem_margin */
    kinds_for(NULL, pp2, &a, &k, NULL, NULL);
    g_autoptr(PrismCluster) cl = test_cluster();
    g_autofree char *fits = g_strdup_printf("mem_margin=%.17g", cl->mem_bytes - k.device - 1e6);
    g_autofree char *over = g_strdup_printf("mem_margin=%.17g", cl->mem_bytes - k.device + 1e6);
    const char *const s1[] = {fits, NULL}, *const s2[] = {over, NULL};
    kinds_for(s1, pp2, &a, &k, &f, NULL);
    CU_ASSERT_EQUAL(f, 1.0);
    kinds_for(s2, pp2, &a, &k, &f, NULL);
    CU_ASSERT_EQUAL(f, 0.0);
}

/*
 * tp_freed_inputs: full-sequence TP collective inputs a layer frees while NCCL's recordStream
 * still holds them, reserved for as many launches as the host runs ahead (launch_queue,
 * 1,000). GPT 4 x 4096, seq 2048, fp16 (T x h x 2 B = 2048 x 4096 x 2 = 16,777,216 B at
 * mbs 1), 4 inputs per layer, 22 + 28 launches per layer and 4 + 6 more under SP:
 *   tp 2, SP:    4 x 1000 / 60 x 16,777,216 = 1,118,481,066.67 B;
 *   tp 2, no SP: 4 x 1000 / 50 x 16,777,216 = 80 x 16,777,216 = 1,342,177,280 B;
 *   mbs 2 twice the first; tp 1 0; pp 2 0 while the pipeline's transfers wait on the host
 *   (pp_p2p_host_syncs 29), 1,118,481,066.67 B when they do not (0).
 * Allocated stays; reserved and device gain the bytes. A budget 1 MB above the figure
 * without them caps them at that 1 MB (the allocator frees them before it fails) and the
 * verdict stays the kernels': fits.
 */
static void test_tp_freed_inputs(void)
{
    const char *const strategies[] = {"dp=4,tp=2,sp=1,mbs=1",      "dp=4,tp=2,sp=0,mbs=1",
                                      "dp=4,tp=2,sp=1,mbs=2",      "dp=8,mbs=1",
                                      "dp=2,tp=2,pp=2,sp=1,mbs=1", "dp=2,tp=2,pp=2,sp=1,mbs=1"};
    const char *const syncs[] = {"pp_p2p_host_syncs=29", "pp_p2p_host_syncs=29",
                                 "pp_p2p_host_syncs=29", "pp_p2p_host_syncs=29",
                                 "pp_p2p_host_syncs=29", "pp_p2p_host_syncs=0"};
    const double want[] = {
        4000.0 / 60.0 * 16777216.0, 1342177280.0, 8000.0 / 60.0 * 16777216.0, 0.0, 0.0,
        4000.0 / 60.0 * 16777216.0};
    for (int i = 0; i < 6; i++) {
        const char *const k0s[] = {"layer_kernels_fwd=22",
                                   "layer_kernels_bwd=28",
                                   "layer_kernels_sp_fwd=4",
                                   "layer_kernels_sp_bwd=6",
                                   syncs[i],
                                   NULL};
        const char *const k4s[] = {"layer_kernels_fwd=22",
                                   "layer_kernels_bwd=28",
                                   "layer_kernels_sp_fwd=4",
                                   "layer_kernels_sp_bwd=6",
                                   syncs[i],
                                   "tp_freed_inputs=4",
                                   NULL};
        double a0, a4;
        PrismMemKinds k0, k4;
        kinds_for(k0s, strategies[i], &a0, &k0, NULL, NULL);
        kinds_for(k4s, strategies[i], &a4, &k4, NULL, NULL);
        CU_ASSERT_EQUAL(a4, a0);
        CU_ASSERT_EQUAL(k0.tp_pending, 0.0);
        CU_ASSERT_DOUBLE_EQUAL(k4.tp_pending, want[i], 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(k4.reserved, k0.reserved + want[i], 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(k4.device, k0.device + want[i], 1e-3);
    }
    /* the cap: 1 MB of room above the figure without them */
    g_autoptr(PrismCluster) cl = test_cluster();
    double a, f;
    PrismMemKinds k;
    const char *const base[] = {"layer_kernels_fwd=22", "layer_kernels_bwd=28", NULL};
    kinds_for(base, "dp=4,tp=2,sp=0,mbs=1", &a, &k, NULL, NULL);
    g_autofree char *room = g_strdup_printf("mem_margin=%.17g", cl->mem_bytes - k.device - 1e6);
    const char *const capped[] = {"layer_kernels_fwd=22", "layer_kernels_bwd=28",
                                  "tp_freed_inputs=4", room, NULL};
    PrismMemKinds kc;
    kinds_for(capped, "dp=4,tp=2,sp=0,mbs=1", &a, &kc, &f, NULL);
    CU_ASSERT_DOUBLE_EQUAL(kc.tp_pending, 1e6, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(kc.device, k.device + 1e6, 1e-3);
    CU_ASSERT_EQUAL(f, 1.0);
}

/*
 * fsdp_gather_pool (FSDP2: each unit's all-gather output is allocated on the copy-in
 * stream, whose blocks the caching allocator pools apart from the compute stream's; the
 * previous unit's output is held until the next one's is allocated: 2) adds, on the
 * reserved and the device figure, that many of the model's largest unit's gathered bytes. GPT 4 x
 * 4096, V 51200, fp16 (2 B per gathered parameter): a block is 12 h^2 + 4 h =
 * 201,342,976 parameters, the embedding V h = 209,715,200 and the head V h + 2 h (the final
 * norm is counted in it) = 209,723,392, the largest: 2 x 2 B x 209,723,392 =
 * 838,893,568 B. Under tp 2 the head's V h is vocab-parallel and its norm whole:
 * V h / 2 + 2 h = 104,865,792 against a block's 6 h^2 + 4 h = 100,679,680: 2 x 2 x
 * 104,865,792 = 419,463,168 B. Below ZeRO-3 (nothing gathered per unit) and with the knob
 * 0 it is 0; allocated is the same as without it, device = reserved + context + NCCL gains
 * the same bytes.
 * The verdict is on that device figure: with a budget halfway between the device figure
 * without the pool and with it (dp 8, ZeRO-3: 419,446,784 B above the former), the
 * strategy fits at fsdp_gather_pool 0 and not at 2; a budget 1 MB above the figure with the
 * pool fits again. The allocated limit (prism_cost_allocated_limit: (budget - context -
 * NCCL - pool) / (1 + allocator_reserve 0.343)) drops by 838,893,568 / 1.343 B.
 */
static void test_fsdp_gather_pool(void)
{
    const char *const pool[] = {"fsdp_gather_pool=2", NULL};
    const char *const strategies[] = {"dp=8,zero=3,mbs=1", "dp=4,tp=2,zero=3,mbs=1",
                                      "dp=8,zero=2,mbs=1"};
    const double want[] = {838893568.0, 419463168.0, 0.0};
    for (int i = 0; i < 3; i++) {
        double a0, a2;
        PrismMemKinds k0, k2;
        kinds_for(NULL, strategies[i], &a0, &k0, NULL, NULL);
        kinds_for(pool, strategies[i], &a2, &k2, NULL, NULL);
        CU_ASSERT_EQUAL(k0.gather_pool, 0.0);
        CU_ASSERT_EQUAL(k2.gather_pool, want[i]);
        CU_ASSERT_EQUAL(a2, a0);
        CU_ASSERT_EQUAL(k2.reserved, k0.reserved + want[i]);
        /* k0.device + pool and k2.device round once each: within an ulp of 3e10 B */
        CU_ASSERT_DOUBLE_EQUAL(k2.device, k0.device + want[i], 1e-3);
    }
    /* the verdict: fits without the pool, not with it */
    double a, f;
    PrismMemKinds k0, k2;
    kinds_for(NULL, strategies[0], &a, &k0, &f, NULL);
    kinds_for(pool, strategies[0], &a, &k2, &f, NULL);
    g_autoptr(PrismCluster) cl = test_cluster();
    g_autofree char *mid =
        g_strdup_printf("mem_margin=%.17g", cl->mem_bytes - k0.device - 419446784.0);
    g_autofree char *above = g_strdup_printf("mem_margin=%.17g", cl->mem_bytes - k2.device - 1e6);
    const char *const mid0[] = {mid, NULL}, *const mid2[] = {mid, pool[0], NULL};
    const char *const above2[] = {above, pool[0], NULL};
    kinds_for(mid0, strategies[0], &a, &k0, &f, NULL);
    CU_ASSERT_EQUAL(f, 1.0);
    kinds_for(mid2, strategies[0], &a, &k2, &f, NULL);
    CU_ASSERT_EQUAL(f, 0.0);
    kinds_for(above2, strategies[0], &a, &k2, &f, NULL);
    CU_ASSERT_EQUAL(f, 1.0);
    /* the allocated limit the refinement searches under */
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm0 = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, NULL);
    g_autoptr(PrismCostModel) cm2 = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, pool);
    const PrismStrategy s0 = test_strategy(cm0, 8, strategies[0]);
    const PrismStrategy s2 = test_strategy(cm2, 8, strategies[0]);
    CU_ASSERT_DOUBLE_EQUAL(prism_cost_allocated_limit(cm0, &s0) -
                               prism_cost_allocated_limit(cm2, &s2),
                           838893568.0 / 1.343, 1e-3);
}

static double static_bytes_per_param2(int zero, const char *grad_fp32, const char *other)
{
    const char *const sets[] = {grad_fp32, other, NULL};
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

static double static_bytes_per_param(int zero, const char *grad_fp32)
{
    return static_bytes_per_param2(zero, grad_fp32, NULL);
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
    /* FSDP2 (zero3_lowp_shard = 0): the shard is the fp32 master itself, no 16-bit shard:
     * (2 + 12)/8 = 1.75; with fp32 gradients (4 + 12)/8 = 2 = FSDP2's 4 + 4 + 8 over 8.
     * Stages below 3 and ZeRO-3 without resharding hold the full 16-bit copy as before. */
    CU_ASSERT_EQUAL(static_bytes_per_param2(3, "grad_fp32=0", "zero3_lowp_shard=0"), 1.75);
    CU_ASSERT_EQUAL(static_bytes_per_param2(3, "grad_fp32=1", "zero3_lowp_shard=0"), 2.0);
    CU_ASSERT_EQUAL(static_bytes_per_param2(2, "grad_fp32=0", "zero3_lowp_shard=0"), 3.75);
}

/*
 * ddp_grad_copy (torch DDP without gradient_as_bucket_view: its buckets copy every
 * gradient in the parameter dtype, 2 B here) with ZeRO-0 over dp = 8: 2 + (4 + 2) + 12 = 20
 * with fp32 gradients, 2 + (2 + 2) + 12 = 18 without. ZeRO-1 runs no DDP (nanotron builds
 * none): 2 + 4 + 12/8 = 7.5 as without the knob.
 */
static void test_ddp_grad_copy(void)
{
    CU_ASSERT_EQUAL(static_bytes_per_param2(0, "grad_fp32=1", "ddp_grad_copy=1"), 20.0);
    CU_ASSERT_EQUAL(static_bytes_per_param2(0, "grad_fp32=0", "ddp_grad_copy=1"), 18.0);
    CU_ASSERT_EQUAL(static_bytes_per_param2(1, "grad_fp32=1", "ddp_grad_copy=1"), 7.5);
}

/*
 * swiglu_unfused: an eager SwiGLU keeps silu(gate) beside gate, up and the product: one
 * ffn-wide tensor more per token. The test model with SwiGLU blocks (f = 4h = 16384), fp16,
 * seq 2048, mbs 1 (T = 2048): + 2 x 16384 x 2048 = 67,108,864 B per layer; with tp = 2 (no
 * SP) the tensor is split: 33,554,432. A GELU block keeps what it kept.
 */
static double swiglu_act(gboolean swiglu, const char *knob, const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    if (swiglu)
        for (uint32_t i = 0; i < m->n_specs; i++)
            m->specs[i].mlp.act = PRISM_MLP_SWIGLU;
    const char *const sets[] = {"flash_attention=1", "dropout=0", knob, NULL};
    PrismLayerTerms lt;
    block_terms(m, 8, 2048, PRISM_DTYPE_FP16, sets, 8, strategy, &lt);
    return lt.act_bytes[PRISM_RECOMPUTE_NONE];
}

static void test_swiglu_unfused(void)
{
    const char *on = "swiglu_unfused=1", *off = "swiglu_unfused=0";
    CU_ASSERT_EQUAL(swiglu_act(TRUE, on, "dp=8,mbs=1") - swiglu_act(TRUE, off, "dp=8,mbs=1"),
                    67108864.0);
    CU_ASSERT_EQUAL(swiglu_act(TRUE, on, "dp=4,tp=2,mbs=1") -
                        swiglu_act(TRUE, off, "dp=4,tp=2,mbs=1"),
                    33554432.0);
    CU_ASSERT_EQUAL(swiglu_act(FALSE, on, "dp=8,mbs=1"), swiglu_act(FALSE, off, "dp=8,mbs=1"));
}

/*
 * The attention core without flash attention streams its score matrices through HBM
 * (Megatron's CoreAttention: baddbmm writes the s x s scores, bmm(probs, V) reads them;
 * backward dP written, P, dS and dS read again) and runs no faster than those bytes. Knobs
 * for round numbers: HBM 1000 GB/s at efficiency 1, GEMMs at 0.5 of the test cluster's 312
 * TFLOP/s = 156 TFLOP/s (its clocks are not given: no clock scaling); fp16, seq s = 2048,
 * mbs 1 (T = 2048 tokens).
 * h = 1024, a = 16 (head dim 64):
 *   bytes forward  T x 2 x 2 B x a x s = 2048 x 4 x 16 x 2048 = 268,435,456 B: 268.435456 us
 *   bytes backward twice that: 536.870912 us
 *   FLOPs forward  T x 4 s h = 2048 x 4 x 2048 x 1024 = 17,179,869,184: 110.127 us, backward
 *   2x = 220.254 us: both passes bound by the bytes (intensity d = 64 FLOP/B against the
 *   ridge 156 FLOP/B).
 * tp 2 halves the heads per device: 134.217728 and 268.435456 us.
 * h = 4096, a = 16 (head dim 256): the same bytes, FLOPs 4x = 440.51 us forward, 881.02 us
 *   backward: the FLOPs bind (intensity 256 > 156), core_fwd = 68,719,476,736 / 156e12 s.
 * With flash attention no scores reach HBM: the causal half of the FLOPs at the large-GEMM
 *   rate (the test cluster has no flash fractions): 8,589,934,592 / 156e12 s.
 */
/* Explain's term @p name of the first block of a GPT-style model (2 layers, hidden @p h,
 * 16 heads, fp16, seq 2048, gbs 8 on 8 devices) under knobs @p a and @p b, and @p c (NULL
 * or one more, set last: it may override the fixed ones). */
static double block_term3(uint64_t h, const char *a, const char *b, const char *c,
                          const char *strategy, const char *name)
{
    g_autoptr(PrismModel) m = test_gpt_model(2, h, 16, 51200);
    const char *const sets[] = {a,
                                b,
                                "hbm_GBps=1000",
                                "hbm_efficiency=1",
                                "compute_efficiency=0.5",
                                "dropout=1",
                                "launch_us=8",
                                "host_sync_us=6",
                                c,
                                NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    return test_explain_term(ex, PRISM_TERM_SLOT, 1, name);
}

static double block_term(uint64_t h, const char *a, const char *b, const char *strategy,
                         const char *name)
{
    return block_term3(h, a, b, NULL, strategy, name);
}

static void core_terms(uint64_t h, const char *flash, const char *strategy, double *f, double *b)
{
    *f = block_term(h, flash, "layer_host_syncs=0", strategy, "core_fwd");
    *b = block_term(h, flash, "layer_host_syncs=0", strategy, "core_bwd");
}

/* The block's elementwise seconds (both passes) of the block_term setup. */
static double score_elementwise(const char *flash, const char *strategy)
{
    return block_term(1024, flash, "layer_host_syncs=0", strategy, "elementwise");
}

/*
 * The softmax and dropout on the scores, per score element (fp16, dropout on): forward
 * softmax read + write 4 B, dropout read + write + bool mask 5 B = 9; backward counted from
 * the kernels: the fused softmax backward reads the gradient and the probabilities and
 * writes 6 B, dropout backward reads the gradient and the mask and writes 5 B = 11 (not
 * bwd_ratio x 9 = 18). Per token a x s = 16 x 2048 = 32,768 elements; T = 2048 tokens at
 * 1000 GB/s: 2048 x 32,768 x 20 B = 1,342,177,280 B = 1.34217728 ms over flash attention's
 * elementwise (which has none of it); tp 2 halves it: 0.67108864 ms.
 */
static void test_score_elementwise_backward(void)
{
    const double d1 = score_elementwise("flash_attention=0", "dp=8,mbs=1") -
                      score_elementwise("flash_attention=1", "dp=8,mbs=1");
    CU_ASSERT_DOUBLE_EQUAL(d1, 1.34217728e-3, 1e-15);
    const double d2 = score_elementwise("flash_attention=0", "dp=4,tp=2,mbs=1") -
                      score_elementwise("flash_attention=1", "dp=4,tp=2,mbs=1");
    CU_ASSERT_DOUBLE_EQUAL(d2, 0.67108864e-3, 1e-15);
}

/*
 * layer_host_syncs: each synchronisation in a layer's forward drains the device's queue and
 * the device waits for it and the next launch, launch_us + host_sync_us = 8 + 6 = 14 us at
 * the defaults. Megatron-DeepSpeed's two (torch.tensor(0.0, device=...) twice) cost 28 us per
 * block per micro-batch, 56 us under full recompute (the forward runs twice); the host floor
 * itself charges nothing here (h 1024, 2048 tokens: the block's device time, over 1 ms,
 * outlasts its 45 launches at 8 us = 0.36 ms, the forward's 0.3 ms its 15 launches), so the
 * syncs are the whole host_gap. 0 syncs: 0.
 */
static double sync_gap(const char *syncs, const char *strategy)
{
    return block_term(1024, "flash_attention=1", syncs, strategy, "host_gap");
}

static void test_layer_host_syncs(void)
{
    CU_ASSERT_EQUAL(sync_gap("layer_host_syncs=0", "dp=8,mbs=1"), 0.0);
    CU_ASSERT_DOUBLE_EQUAL(sync_gap("layer_host_syncs=2", "dp=8,mbs=1"), 28e-6, 1e-18);
    CU_ASSERT_DOUBLE_EQUAL(sync_gap("layer_host_syncs=2", "dp=8,mbs=1,recompute=full"), 56e-6,
                           1e-18);
}

/*
 * softmax_fusion_rule: Megatron's FusedScaleMaskSoftmax runs its fused kernel only when the
 * attention batches, micro-batch x heads/tp, are a multiple of 4 (and 16 < s <= 2048,
 * s % 4 = 0: s = 2048 passes). The block_term model has 16 heads, fp16 (bp = 2), s = 2048:
 *   dp 8, mbs 1: 1 x 16 = 16 batches; tp 4, mbs 1: 4; tp 8, mbs 2: 2 x 2 = 4: fused, the
 *     same bits as with the rule off;
 *   tp 8, mbs 1: 1 x 2 = 2 batches: unfused. Extra HBM bytes per score element: forward
 *     cast (2 + 4) + scale (4 + 4) + masked_fill_ (4 + 4) + softmax (4 + 4) + cast back
 *     (4 + 2) = 36 against the fused 2 + 2: +32; backward cast (2 + 4) + softmax backward
 *     (4 + 4 + 4) + masked_fill (4 + 4) + scale (4 + 4) + cast (4 + 2) = 40 against the
 *     fused 2 + 2 + 2: +34; 66 in all. Score elements per device: T x a/t x s = 2048 x 2 x
 *     2048 = 8,388,608; x 66 B = 553,648,128 B at 1000 GB/s = 553.648128 us of elementwise.
 *   Saved for backward: torch's fp32 probabilities (4 B) instead of the fused kernel's
 *     fp16 ones (2 B): + 2 x 8,388,608 = 16,777,216 B of activations.
 *   Launches: 5 kernels a pass instead of 1, + 8 per block and micro-batch. At launch_us
 *     1000 the host binds (57 launches at tp 8: 15 + 30, 4 TP all-reduces, 8 unfused; the
 *     device's block time is a few ms) and host_gap = host - device: + 8 x 1000 us - the
 *     553.648128 us the device's elementwise grew = 7446.351872 us.
 */
static double sm_term(const char *rule, const char *launch, const char *strategy, const char *name)
{
    return block_term3(1024, "flash_attention=0", rule, launch, strategy, name);
}

static double sm_diff(const char *launch, const char *strategy, const char *name)
{
    return sm_term("softmax_fusion_rule=1", launch, strategy, name) -
           sm_term("softmax_fusion_rule=0", launch, strategy, name);
}

static void test_softmax_fusion_rule(void)
{
    const char *l8 = "launch_us=8";
    CU_ASSERT_EQUAL(sm_diff(l8, "dp=8,mbs=1", "elementwise"), 0.0);
    CU_ASSERT_EQUAL(sm_diff(l8, "tp=4,dp=2,mbs=1", "elementwise"), 0.0);
    CU_ASSERT_EQUAL(sm_diff(l8, "tp=8,mbs=2", "elementwise"), 0.0);
    CU_ASSERT_EQUAL(sm_diff(l8, "tp=8,mbs=2", "activations"), 0.0);
    CU_ASSERT_DOUBLE_EQUAL(sm_diff(l8, "tp=8,mbs=1", "elementwise"), 553.648128e-6, 1e-15);
    CU_ASSERT_EQUAL(sm_diff(l8, "tp=8,mbs=1", "activations"), 16777216.0);
    CU_ASSERT_DOUBLE_EQUAL(sm_diff("launch_us=1000", "tp=8,mbs=1", "host_gap"), 7446.351872e-6,
                           1e-12);
}

/*
 * mb_host_syncs: the host synchronisations of loading one micro-batch drain the device's
 * queue on the stages that load it, launch_us + host_sync_us = 8 + 6 = 14 us each at the
 * block_term settings. Megatron-DeepSpeed's three (mpu.broadcast_data: the sizes' blocking
 * copy to the device, their read back after the broadcast, the tokens' blocking copy) add
 * 3 x 14 = 42 us per micro-batch to the embedding's host_gap (the first stage) and, with
 * pp > 1, to the head's (the last stage loads the labels); at pp = 1 the one stage loads
 * once: the head adds nothing. The embedding and the head pay no launch floor (0 without
 * the knob). Over the step at pp = 1, dp = 8, gbs 8 (m = 1): 42 us more.
 */

/* The load's term @p name of slot @p ix, or with @p name NULL the step time. */
static double load_term(const char *syncs, const char *strategy, unsigned ix, const char *name)
{
    g_autoptr(PrismModel) m = test_gpt_model(2, 1024, 16, 51200);
    const char *const sets[] = {syncs, "launch_us=8", "host_sync_us=6", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    if (name == NULL) {
        double c[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
        return c[PRISM_COL_TIME_STEP];
    }
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    return test_explain_term(ex, PRISM_TERM_SLOT, ix, name);
}

static void test_mb_host_syncs(void)
{
    CU_ASSERT_EQUAL(load_term("mb_host_syncs=0", "dp=8,mbs=1", 0, "host_gap"), 0.0);
    CU_ASSERT_DOUBLE_EQUAL(load_term("mb_host_syncs=3", "dp=8,mbs=1", 0, "host_gap"), 42e-6, 1e-18);
    CU_ASSERT_EQUAL(load_term("mb_host_syncs=3", "dp=8,mbs=1", 2, "host_gap"), 0.0);
    CU_ASSERT_DOUBLE_EQUAL(load_term("mb_host_syncs=3", "dp=4,pp=2,mbs=1", 2, "host_gap"), 42e-6,
                           1e-18);
    const double st0 = load_term("mb_host_syncs=0", "dp=8,mbs=1", 0, NULL);
    CU_ASSERT_DOUBLE_EQUAL(load_term("mb_host_syncs=3", "dp=8,mbs=1", 0, NULL) - st0, 42e-6, 1e-12);
}

/*
 * step_layer_syncs: each optimizer step waits on that many host synchronisations per layer
 * of the stage (DeepSpeed's per-tensor gradient norm .item(): 12 per GPT block), at launch_us
 * + host_sync_us = 14 us each. A 4-layer GPT over pp = 2 holds 2 blocks per stage: 2 x 12 x
 * 14 us = 336 us more optimizer time per step, and as much more step (the slowest stage's,
 * both equal here); at pp = 1 the one stage holds 4: 672 us. The embedding and head add
 * none.
 */
static double opt_time(const char *syncs, const char *strategy, int col)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 1024, 16, 51200);
    const char *const sets[] = {syncs, "launch_us=8", "host_sync_us=6", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    return c[col];
}

/* the optimizer-time and step-time growth from knob setting @p off to @p on */
static void check_opt_growth(const char *on, const char *off, const char *strategy, int col,
                             double want)
{
    CU_ASSERT_DOUBLE_EQUAL(opt_time(on, strategy, col) - opt_time(off, strategy, col), want, 1e-12);
}

static void test_step_layer_syncs(void)
{
    const int o = PRISM_COL_TIME_OPTIMIZER, st = PRISM_COL_TIME_STEP;
    const char *pp2 = "dp=4,pp=2,mbs=1", *pp1 = "dp=8,mbs=1";
    check_opt_growth("step_layer_syncs=12", "step_layer_syncs=0", pp2, o, 336e-6);
    check_opt_growth("step_layer_syncs=12", "step_layer_syncs=0", pp2, st, 336e-6);
    check_opt_growth("step_layer_syncs=12", "step_layer_syncs=0", pp1, o, 672e-6);
}

/*
 * step_host_syncs: each stage's optimizer step waits on that many host synchronisations once
 * per step, whatever its layer count (Megatron-LM 2021/2022 under fp16: found_inf.item(),
 * the clipping's IntTensor([0]) copy and total_norm.item(), the loop's loss-scale .item():
 * 4), at launch_us + host_sync_us = 8 + 6 = 14 us each: 4 x 14 us = 56 us more optimizer
 * time and step at pp = 2 (2 blocks per stage) and at pp = 1 (4 blocks) alike, where
 * step_layer_syncs = 4 would charge 2 x 4 x 14 = 112 us and 224 us.
 */
static void test_step_host_syncs(void)
{
    const int o = PRISM_COL_TIME_OPTIMIZER, st = PRISM_COL_TIME_STEP;
    const char *pp2 = "dp=4,pp=2,mbs=1", *pp1 = "dp=8,mbs=1";
    check_opt_growth("step_host_syncs=4", "step_host_syncs=0", pp2, o, 56e-6);
    check_opt_growth("step_host_syncs=4", "step_host_syncs=0", pp2, st, 56e-6);
    check_opt_growth("step_host_syncs=4", "step_host_syncs=0", pp1, o, 56e-6);
}

static void test_core_score_traffic(void)
{
    double f, b;
    core_terms(1024, "flash_attention=0", "dp=8,mbs=1", &f, &b);
    CU_ASSERT_DOUBLE_EQUAL(f, 268.435456e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(b, 536.870912e-6, 1e-15);
    core_terms(1024, "flash_attention=0", "dp=4,tp=2,mbs=1", &f, &b);
    CU_ASSERT_DOUBLE_EQUAL(f, 134.217728e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(b, 268.435456e-6, 1e-15);
    core_terms(4096, "flash_attention=0", "dp=8,mbs=1", &f, &b);
    CU_ASSERT_DOUBLE_EQUAL(f, 68719476736.0 / 156e12, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(b, 2.0 * 68719476736.0 / 156e12, 1e-15);
    core_terms(1024, "flash_attention=1", "dp=8,mbs=1", &f, &b);
    CU_ASSERT_DOUBLE_EQUAL(f, 8589934592.0 / 156e12, 1e-15);
}

/*
 * grad_lowp_kept: a micro-batch's backward ends holding the 16-bit gradient of every
 * parameter of the stage, G = 2 P, while its own activations are gone: the stage peaks at
 * A + max(0, G - A_one). pp = 1, one micro-batch, no backward working set
 * (bwd_working_set = 0): A = A_one, so the activation column becomes max(A, G).
 * P of the test model: 4 blocks x (12 h^2 + 4h) = 805,371,904, embedding and untied head
 * 2 x 51200 x 4096 = 419,430,400, the final LayerNorm 2h = 8,192: 1,224,810,496; G =
 * 2,449,620,992 B. At seq 128 the activations are far smaller (about 0.1 GB: the fp32
 * logits 128 x 51200 x 4 B = 26 MB, four blocks of T h = 0.5M elements x some 30 B):
 * G is the peak. At seq 2048, mbs 4 they are larger
 * than G and the column keeps its bits.
 */
static double kept_act(const char *knob, uint64_t gbs, uint64_t seq, const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const sets[] = {"grad_fp32=1", "bwd_working_set=0", knob, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, gbs, seq, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    return c[PRISM_COL_MEM_ACTIVATIONS];
}

static void test_grad_lowp_kept(void)
{
    const char *on = "grad_lowp_kept=1", *off = "grad_lowp_kept=0";
    CU_ASSERT(kept_act(off, 8, 128, "dp=8,mbs=1") < 2e8);
    CU_ASSERT_DOUBLE_EQUAL(kept_act(on, 8, 128, "dp=8,mbs=1"), 2449620992.0, 1.0);
    const double big = kept_act(off, 32, 2048, "dp=8,mbs=4");
    CU_ASSERT(big > 2449620992.0);
    CU_ASSERT_EQUAL(kept_act(on, 32, 2048, "dp=8,mbs=4"), big);
}

/*
 * zero1_gather_copies: ZeRO-1's all-gather after the optimizer step holds a flat copy of the
 * rank's shard and `copies` unsharded flat copies of the stage's parameters while the
 * persistent state stays and the activations are gone: the activation column becomes
 * max(A, bytes_p N (copies + 1/dp)). The test model at seq 128 (kept_act above: A about
 * 0.1 GB, N = 1,224,810,496, bytes_p 2), dp 8, ZeRO-1, nanotron's 2 copies:
 *   2 x 1,224,810,496 x (2 + 1/8) = 2,449,620,992 x 2.125 = 5,205,444,608 B
 * (4,899,241,984 unsharded + 306,202,624 for the shard). 1 copy: 2,449,620,992 x 1.125 =
 * 2,755,823,616 B. ZeRO-0 gathers nothing (A stays), nor ZeRO-3 (it gathers layer by layer
 * in the step, priced as its own state). The peak's other parts
 * keep their bits: peak - activations is the same with the knob on and off.
 */
static void gather_cols(const char *knob, const char *strategy, double *act, double *rest)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const sets[] = {"grad_fp32=1", "bwd_working_set=0", knob, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    *act = c[PRISM_COL_MEM_ACTIVATIONS];
    *rest = c[PRISM_COL_MEM_PEAK] - c[PRISM_COL_MEM_ACTIVATIONS];
}

static void test_zero1_gather_copies(void)
{
    const char *on = "zero1_gather_copies=2", *off = "zero1_gather_copies=0";
    double a0, r0, a, r;
    gather_cols(off, "dp=8,zero=1,mbs=1", &a0, &r0);
    CU_ASSERT(a0 < 2e8);
    gather_cols(on, "dp=8,zero=1,mbs=1", &a, &r);
    CU_ASSERT_EQUAL(a, 5205444608.0);
    CU_ASSERT_EQUAL(r, r0);
    gather_cols("zero1_gather_copies=1", "dp=8,zero=1,mbs=1", &a, &r);
    CU_ASSERT_EQUAL(a, 2755823616.0);
    /* no post-step gather: ZeRO-0 over 8 ranks, ZeRO-1 over one */
    gather_cols(off, "dp=8,zero=0,mbs=1", &a0, &r0);
    gather_cols(on, "dp=8,zero=0,mbs=1", &a, &r);
    CU_ASSERT_EQUAL(a, a0);
    CU_ASSERT_EQUAL(r, r0);
    gather_cols(off, "dp=8,zero=3,mbs=1", &a0, &r0);
    gather_cols(on, "dp=8,zero=3,mbs=1", &a, &r);
    CU_ASSERT_EQUAL(a, a0);
}

/*
 * tp_gather_buffers: nanotron's MemoryBuffer keeps its "allgather" (a column linear's gathered
 * input) and "allgather2" (a row linear's gathered output gradient) tensors, each one
 * micro-batch's full sequence x hidden in the activation dtype, for the whole run on every
 * stage with tp > 1 and SP. The test model (h 4096, seq 2048, fp16) at mbs 1 with 2 buffers:
 *   2 x 2048 x 4096 x 2 B = 33,554,432 B in the comm-buffers column, and at mbs 2
 *   2 x 4096 x 4096 x 2 B = 67,108,864 B; nothing without SP, at tp 1 or with the knob 0.
 * Every other column keeps its bits.
 */
static void gb_cols(const char *knob, const char *strategy, double *buf, double *rest)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const sets[] = {knob, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    *buf = c[PRISM_COL_MEM_COMM_BUFFERS];
    *rest = c[PRISM_COL_MEM_PEAK] - c[PRISM_COL_MEM_COMM_BUFFERS];
}

static void test_tp_gather_buffers(void)
{
    const char *const strategies[] = {"dp=4,tp=2,sp=1,mbs=1", "dp=4,tp=2,sp=1,mbs=2",
                                      "dp=4,tp=2,sp=0,mbs=1", "dp=8,mbs=1"};
    const double want[] = {33554432.0, 67108864.0, 0.0, 0.0};
    for (int i = 0; i < 4; i++) {
        double b0, r0, b2, r2;
        gb_cols("tp_gather_buffers=0", strategies[i], &b0, &r0);
        gb_cols("tp_gather_buffers=2", strategies[i], &b2, &r2);
        CU_ASSERT_EQUAL(b2 - b0, want[i]);
        CU_ASSERT_EQUAL(r2, r0);
    }
}

/*
 * Narayanan et al. 2021 (SC21, Sec. 5.1): FLOPs per iteration of a GPT model with L
 * layers, batch B, sequence s, vocabulary V:
 *   without recompute (model FLOPs)  72 B s L h^2 (1 + s/(6h) + V/(12 h L))
 *   with full recompute              96 B s L h^2 (1 + s/(6h) + V/(16 h L))
 * (the logit layer is not recomputed). B = 8, s = 2048, L = 4, V = 51200. The kernel
 * reports MFU and HFU; FLOPs = fraction * step * N * peak (N = 1, peak 312e12).
 * Their s/(6h) is the full attention core, as SC21's Megatron (no flash attention) ran it.
 * Causal flash attention runs half of it (causal_skip 0.5): s/(12h).
 */
static void test_narayanan_flops(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const double B = 8, s = 2048, L = 4, V = 51200;
    const double model = 72.0 * B * s * L * H * H * (1.0 + s / (6.0 * H) + V / (12.0 * H * L));
    const double hw = 96.0 * B * s * L * H * H * (1.0 + s / (6.0 * H) + V / (16.0 * H * L));
    const double model_half =
        72.0 * B * s * L * H * H * (1.0 + s / (12.0 * H) + V / (12.0 * H * L));
    const double hw_half = 96.0 * B * s * L * H * H * (1.0 + s / (12.0 * H) + V / (16.0 * H * L));
    /* knobs; the MFU and HFU FLOPs expected: without flash attention every count is
     * Narayanan's (mfu_core 0 = as executed = the full core); with it HFU (executed)
     * counts half the core whatever mfu_core says, and MFU counts it as mfu_core says:
     * 0 as executed (half), 1 the full core (Narayanan, torchtitan), 2 half */
    static const char *const noflash[] = {"flash_attention=0", NULL};
    static const char *const dflt[] = {NULL};
    static const char *const full[] = {"mfu_core=1", NULL};
    static const char *const half[] = {"mfu_core=2", NULL};
    const struct {
        const char *const *knobs;
        double mfu, hfu;
    } cases[] = {
        {noflash, model, hw},
        {dflt, model_half, hw_half},
        {full, model, hw_half},
        {half, model_half, hw_half},
    };
    double step_flash = 0.0;
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        g_autoptr(PrismCostModel) cm =
            test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, cases[k].knobs);
        double c[PRISM_COL_COUNT];
        PrismStrategy st = test_strategy(cm, 1, "tp=1,recompute=full");
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &st, c, NULL));
        const double denom = c[PRISM_COL_TIME_STEP] * 1.0 * 312e12;
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_MFU] * denom, cases[k].mfu, 1e-12, 0));
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_HFU] * denom, cases[k].hfu, 1e-12, 0));
        /* tokens/s = B s / step */
        CU_ASSERT_TRUE(
            prism_test_close(c[PRISM_COL_TOKENS_PER_S] * c[PRISM_COL_TIME_STEP], B * s, 1e-12, 0));
        /* the count never changes a time: the three flash cases have one step */
        if (k == 1)
            step_flash = c[PRISM_COL_TIME_STEP];
        else if (k > 1)
            CU_ASSERT_EQUAL(c[PRISM_COL_TIME_STEP], step_flash);
    }
}

/*
 * Ring all-reduce (Patarasuk & Yuan 2009; 2(n-1)/n of the volume on each link) of one
 * TP collective: t = 8 inside a node (level 0: 300 GB/s x net_efficiency 0.8, 5 us),
 * volume V = s*b*h*2 bytes = 2048*1*4096*2 = 16,777,216:
 *   t_AR = 2*7/8 * V / 240e9 + 2*7 * 5e-6 = 1.2233e-4 + 7e-5 s.
 * The forward of a block has 2 all-reduces (after attention and MLP), so turning TP
 * overlap from 0 to 1 changes the forward time by exactly 2 t_AR. The per-step latency
 * model (nccl_model = 0); NCCL's is test_nccl_latency_curve.
 */
static void test_ring_allreduce_tp(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const ov0[] = {"tp_overlap=0", "nccl_model=0", NULL};
    static const char *const ov1[] = {"tp_overlap=1", "nccl_model=0", NULL};
    PrismLayerTerms a, b;
    pair_terms(m, ov0, ov1, "tp=8", &a, &b);
    const double V = 2048.0 * 4096.0 * 2.0;
    const double t_ar = 2.0 * 7.0 / 8.0 * V / (300e9 * 0.8) + 2.0 * 7.0 * 5e-6;
    CU_ASSERT_TRUE(prism_test_close(a.fwd_s - b.fwd_s, 2.0 * t_ar, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(a.bwd_s - b.bwd_s, 2.0 * t_ar, 1e-9, 0));
}

/*
 * DP gradient all-reduce across nodes: tp = 1, dp = 16 spans 2 nodes (level 1:
 * 25 GB/s x 0.8, 10 us), ZeRO-0, fp32 gradients (4 bytes), pp = 1 so the one stage holds
 * every parameter P = V h (embedding) + L(12h^2 + 4h) + V h + 2h (head + final norm).
 * NCCL's ring (nccl_model = 1, kernels-nccl.h; NVIDIA/nccl tuning.cc at b6475625): of the
 * all-reduce's 2(16-1) = 30 ring steps, 2 nNodes = 4 cross the network at the Simple
 * protocol's network hop (14 us), the other 26 stay on the node's NVLink (Simple hop 3.4 us),
 * plus one base latency of 8.4 us: 26*3.4 + 4*14 + 8.4 = 88.4 + 56 + 8.4 = 152.8 us, so
 * t_dp = 2*15/16 * 4P / 20e9 + 152.8e-6 (every step at the network hop gave 428.4 us).
 */
static void test_ring_allreduce_dp(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    /* one device's NIC, as derived (nic_spread = 1 is test_nic_spread's) */
    static const char *const sets[] = {"dp_overlap=0", "grad_fp32=1", "nic_spread=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 16, "dp=16");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    const double P = 51200.0 * H + 4.0 * (12.0 * H * H + 4.0 * H) + 51200.0 * H + 2.0 * H;
    const double t_dp =
        2.0 * 15.0 / 16.0 * 4.0 * P / (25e9 * 0.8) + 26.0 * 3.4e-6 + 4.0 * 14e-6 + 8.4e-6;
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], t_dp, 1e-12, 0));
    /* bytes on level 1 per device: 2*15/16 * 4P; nothing on level 0 (tp = pp = 1) */
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_BYTES_L1], 2.0 * 15.0 / 16.0 * 4.0 * P, 1e-12, 0));
    CU_ASSERT_EQUAL(c[PRISM_COL_BYTES_L0], 0.0);
}

/*
 * DP collectives of groups that span k nodes, by NCCL's count (NVIDIA/nccl tuning.cc at
 * b6475625, ncclTopoTuneModel, ring: a gather or reduce-scatter of n ranks takes n-1 steps,
 * nNodes-1 of them over the network at 14 us (Simple), the rest on NVLink at 3.4 us; each
 * call adds the base latency 8.4 us). Test cluster: 8 devices per node.
 * (a) ZeRO-1, tp 2, dp 16: the shard group's 16 ranks sit 4 to a node on 4 nodes; a
 *     reduce-scatter and a gather of 15 steps each, 3 across nodes:
 *     2 * (12*3.4 + 3*14) + 2*8.4 = 2 * 82.8 + 16.8 = 182.4 us
 *     (every step at the network hop: 2*15*14 + 16.8 = 436.8 us).
 * (b) ZeRO-3, tp 1, dp 32 (4 nodes, 8 ranks each): one unit's gather 28*3.4 + 3*14 + 8.4 =
 *     95.2 + 42 + 8.4 = 145.6 us; its reduce-scatter the same (no HSDP replicas).
 * (c) tp 8, dp 4: one rank per node, 4 nodes; ZeRO-1: every one of the 3 steps crosses:
 *     2 * (0*3.4 + 3*14) + 16.8 = 100.8 us; ZeRO-0 keeps NCCL's all-reduce count as
 *     written, 2 nNodes = 8 network steps of 2(4-1) = 6: -2*3.4 + 8*14 + 8.4 = 113.6 us.
 * (d) inside one node (tp 1, dp 8, ZeRO-1) every step is on NVLink: 2*7*3.4 + 16.8 = 64.4 us.
 */
static double term_on(const PrismCluster *cl, uint32_t devices, uint32_t gbs, const char *strategy,
                      const char *term)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const sets[] = {"nic_spread=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, cl, gbs, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    return test_explain_term(ex, PRISM_TERM_LANE, 0, term);
}

static double dp_term(uint32_t devices, uint32_t gbs, const char *strategy, const char *term)
{
    g_autoptr(PrismCluster) cl = test_cluster();
    return term_on(cl, devices, gbs, strategy, term);
}

/*
 * TP over two nodes (tp 16 on the test cluster), NCCL's count as for DP; NCCL at b6475625
 * floors the node hop of a multi-node ring at its network-post overhead (1 us on Intel, x3
 * for Simple), which raises only LL's 0.6 us to 1.0 us. Without SP one all-reduce, 30
 * steps, 2 nNodes = 4 across:
 *   Simple 8.4 + 26*3.4 + 4*14.0 = 152.8 us; LL128 14.0 + 26*1.9 + 4*4.0 = 79.4 us;
 *   LL 6.6 + 26*1.0 + 4*2.7 = 43.4 us.
 * With SP a reduce-scatter and an all-gather, 15 steps each, 1 across:
 *   Simple 2*8.4 + 2*(14*3.4 + 14.0) = 140.0 us.
 */
static void test_nccl_tp_two_nodes(void)
{
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(16, 16, "tp=16,sp=0", "tp_latency"), 152.8e-6, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(16, 16, "tp=16,sp=0", "tp_latency_ll128"), 79.4e-6, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(16, 16, "tp=16,sp=0", "tp_latency_ll"), 43.4e-6, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(16, 16, "tp=16,sp=1", "tp_latency"), 140.0e-6, 1e-12, 0));
}

/*
 * A level's own ring-step latencies (a cluster file's nccl_hop_*_us): the test cluster's
 * network level at aws-ofi-nccl's EFA figures (include/nccl_ofi_tuner.h at 3d55c1c3: 20 us
 * per step that crosses the network, 23 us with Simple's completion), NVLink at NCCL's.
 * The counts of test_nccl_tp_two_nodes and test_nccl_inter_steps (a):
 *   tp 16 over two nodes, one all-reduce, 26 node steps and 4 across:
 *     Simple 8.4 + 26*3.4 + 4*23 = 188.8 us; LL128 14.0 + 26*1.9 + 4*20 = 143.4 us;
 *     LL 6.6 + 26*1.0 + 4*20 = 112.6 us;
 *   with SP 2*8.4 + 2*(14*3.4 + 23) = 158.0 us;
 *   ZeRO-1, tp 2, dp 16 on 4 nodes: 2*(12*3.4 + 3*23) + 2*8.4 = 236.4 us.
 * Only the network level's hops move: tp 8 inside a node keeps 8.4 + 14*3.4 = 56.0 us.
 */
static double efa_term(uint32_t devices, uint32_t gbs, const char *strategy, const char *term)
{
    g_autoptr(PrismCluster) cl = test_cluster();
    /* {LL, LL128, Simple}, the order of PrismCluster.nccl_hop_us */
    cl->nccl_hop_us[1][0] = 20.0;
    cl->nccl_hop_us[1][1] = 20.0;
    cl->nccl_hop_us[1][2] = 23.0;
    return term_on(cl, devices, gbs, strategy, term);
}

static void test_nccl_level_hops(void)
{
    static const struct {
        uint32_t devices;
        const char *strategy, *term;
        double us;
    } want[] = {
        {16, "tp=16,sp=0", "tp_latency", 188.8},
        {16, "tp=16,sp=0", "tp_latency_ll128", 143.4},
        {16, "tp=16,sp=0", "tp_latency_ll", 112.6},
        {16, "tp=16,sp=1", "tp_latency", 158.0},
        {32, "tp=2,dp=16,zero=1", "dp_latency", 236.4},
        {8, "tp=8,sp=0", "tp_latency", 56.0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        const double got = efa_term(want[i].devices, 16, want[i].strategy, want[i].term);
        if (!prism_test_close(got, want[i].us * 1e-6, 1e-12, 0))
            fprintf(stderr, "%s %s: %.17g s, want %g us\n", want[i].strategy, want[i].term, got,
                    want[i].us);
        CU_ASSERT_TRUE(prism_test_close(got, want[i].us * 1e-6, 1e-12, 0));
    }
}

static void test_nccl_inter_steps(void)
{
    CU_ASSERT_TRUE(prism_test_close(dp_term(32, 16, "tp=2,dp=16,zero=1", "dp_latency"),
                                    2.0 * (12.0 * 3.4e-6 + 3.0 * 14e-6) + 2.0 * 8.4e-6, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(32, 16, "tp=2,dp=16,zero=1", "dp_latency"), 182.4e-6, 1e-12, 0));
    const double g3 = 28.0 * 3.4e-6 + 3.0 * 14e-6 + 8.4e-6;
    CU_ASSERT_TRUE(prism_test_close(g3, 145.6e-6, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(dp_term(32, 32, "tp=1,dp=32,zero=3", "fsdp_gather_latency"), g3,
                                    1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(dp_term(32, 32, "tp=1,dp=32,zero=3", "fsdp_reduce_latency"), g3,
                                    1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(32, 16, "tp=8,dp=4,zero=1", "dp_latency"), 100.8e-6, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(dp_term(32, 16, "tp=8,dp=4,zero=0", "dp_latency"),
                                    -2.0 * 3.4e-6 + 8.0 * 14e-6 + 8.4e-6, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(dp_term(8, 16, "tp=1,dp=8,zero=1", "dp_latency"), 64.4e-6, 1e-12, 0));
}

/* The seven-level cluster of test_deep_levels and test_pp_boundary_level: 8 devices per
 * node (NVLink 300 GB/s, 5 us), then levels of 16, 32, 64, 128 and 256 devices at 40, 30,
 * 20, 12 and 8 GB/s and the whole machine at 5 GB/s, 10 us each. */
static PrismCluster *seven_level_cluster(void)
{
    PrismCluster *cl = test_cluster();
    static const double size[7] = {8, 16, 32, 64, 128, 256, 0};
    static const double bw[7] = {300, 40, 30, 20, 12, 8, 5};
    cl->n_levels = 7;
    for (uint32_t j = 0; j < 7; j++) {
        g_strlcpy(cl->levels[j].name, j == 0 ? "nvlink" : "net", sizeof cl->levels[j].name);
        cl->levels[j].size = (uint32_t)size[j];
        cl->levels[j].bw_GBps = bw[j];
        cl->levels[j].latency_us = j == 0 ? 5.0 : 10.0;
    }
    return cl;
}

/*
 * Every level a cluster declares is priced. A seven-level cluster (the shape of the
 * Playbook's, one level per measured node count): NVLink inside 8 devices (300 GB/s),
 * then levels joining 16, 32, 64, 128 and 256 devices at 40, 30, 20, 12 and 8 GB/s,
 * and the whole machine at 5 GB/s; every network level 10 us, x net_efficiency 0.8.
 * The same model, P and ZeRO-0 fp32 all-reduce as test_ring_allreduce_dp, one NIC per
 * device (nic_spread = 0) and the per-step latency model (nccl_model = 0):
 *   dp 128 (16 nodes) is joined by level 4 (size 128, the fifth):
 *     t = 2*127/128 * 4P / (12e9 * 0.8) + 2*127 * 10e-6;
 *   dp 512 (64 nodes) by level 6, the last: t = 2*511/512 * 4P / (5e9 * 0.8) + 2*511 * 10e-6.
 * The bytes of levels 3 and outward are reported in the level-3 column (four columns).
 */
static void test_deep_levels(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCluster) cl = seven_level_cluster();
    static const char *const sets[] = {"dp_overlap=0", "grad_fp32=1", "nic_spread=0",
                                       "nccl_model=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, cl, 512, 2048, PRISM_DTYPE_FP16, sets);
    const double P = 51200.0 * H + 4.0 * (12.0 * H * H + 4.0 * H) + 51200.0 * H + 2.0 * H;
    static const double n[2] = {128.0, 512.0}, gbps[2] = {12.0, 5.0};
    for (int k = 0; k < 2; k++) {
        const double d = n[k];
        g_autofree char *dims = g_strdup_printf("dp=%.0f", d);
        PrismStrategy s = test_strategy(cm, (uint32_t)d, dims);
        double c[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
        const double t_dp =
            2.0 * (d - 1.0) / d * 4.0 * P / (gbps[k] * 1e9 * 0.8) + 2.0 * (d - 1.0) * 10e-6;
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], t_dp, 1e-12, 0));
        CU_ASSERT_TRUE(
            prism_test_close(c[PRISM_COL_BYTES_L3], 2.0 * (d - 1.0) / d * 4.0 * P, 1e-12, 0));
        CU_ASSERT_EQUAL(c[PRISM_COL_BYTES_L1], 0.0);
        CU_ASSERT_EQUAL(c[PRISM_COL_BYTES_L2], 0.0);
    }
}

/*
 * nic_spread (cost/README.md, "Collectives over several NICs per node"): a DP group with
 * k = 8/stride members on each node of the test cluster (8 per node, NVLink 300 GB/s and
 * one 25 GB/s NIC per device, both x net_efficiency 0.8) crosses the nodes on k NICs:
 * s/B = max(1/(20e9 k), 1/240e9). The same P and volume as test_ring_allreduce_dp:
 *   tp 1, dp 16 (k = 8): t = 2*15/16 * 4P / 160e9 + 2*15 * 10e-6 (latency unchanged);
 *   tp 2, dp 8  (k = 4): the bandwidth term (time minus 2*7 * 10e-6 latency) is 1/4 of
 *     the knob-off one, whatever a TP rank's parameter count;
 *   tp 8, dp 2  (k = 1): as with the knob off.
 * With nic_spread = 0 every group is priced at one device's NIC (test_ring_allreduce_dp).
 * The per-step latency model (nccl_model = 0): the latency stays the level's 10 us.
 */
static double dp_time(const char *spread, uint32_t devices, const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const sets[] = {"dp_overlap=0", "grad_fp32=1", "nccl_model=0", spread, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    return c[PRISM_COL_TIME_DP_COMM];
}

static void test_nic_spread(void)
{
    const double P = 51200.0 * H + 4.0 * (12.0 * H * H + 4.0 * H) + 51200.0 * H + 2.0 * H;
    const double t1 = 2.0 * 15.0 / 16.0 * 4.0 * P / (8.0 * 25e9 * 0.8) + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(dp_time("nic_spread=1", 16, "dp=16"), t1, 1e-12, 0));
    const double t0 = 2.0 * 15.0 / 16.0 * 4.0 * P / (25e9 * 0.8) + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(dp_time("nic_spread=0", 16, "dp=16"), t0, 1e-12, 0));
    /* tp 2 and tp 8: the knob divides the bandwidth term by k = 4 and 1 */
    const double l2 = 2.0 * 7.0 * 10e-6;
    const double b2_on = dp_time("nic_spread=1", 16, "tp=2,dp=8") - l2;
    const double b2_off = dp_time("nic_spread=0", 16, "tp=2,dp=8") - l2;
    CU_ASSERT_TRUE(prism_test_close(b2_off / b2_on, 4.0, 1e-9, 0));
    CU_ASSERT_EQUAL(dp_time("nic_spread=1", 16, "tp=8,dp=2"),
                    dp_time("nic_spread=0", 16, "tp=8,dp=2"));
    /* a group within one node (dp 8) is at NVLink either way */
    CU_ASSERT_EQUAL(dp_time("nic_spread=1", 8, "dp=8"), dp_time("nic_spread=0", 8, "dp=8"));
    /* NICs of 100 GB/s: k = 8 of them (800 GB/s) outrun NVLink's 300, so the node's own
     * links bound the group: t = 2*15/16 * 4P / 240e9 + 2*15 * 10e-6 */
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCluster) c = test_cluster();
    c->levels[1].bw_GBps = 100.0;
    static const char *const sets[] = {"dp_overlap=0", "grad_fp32=1", "nic_spread=1",
                                       "nccl_model=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, c, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 16, "dp=16");
    double col[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, NULL));
    const double tn = 2.0 * 15.0 / 16.0 * 4.0 * P / (300e9 * 0.8) + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(col[PRISM_COL_TIME_DP_COMM], tn, 1e-12, 0));
}

/*
 * TP across nodes and the all-gather / reduce-scatter figure (cost/README.md, "Collectives
 * over several NICs per node"). The test cluster: 8 per node, NVLink 300 GB/s (5 us),
 * one 25 GB/s NIC per device (10 us), both x net_efficiency 0.8; per-step latency model
 * (nccl_model = 0). One collective's volume V = s*b*h*2 = 2048*4096*2 bytes; the forward
 * of a block holds 2 of them, so tp_overlap 0 -> 1 changes it by 2 t.
 *   tp 16 over 2 nodes, no SP: an all-reduce ring with 8 members on each node crosses on 8
 *     NICs, 8*25*0.8 = 160 GB/s (under NVLink's 240): t = 2*15/16 * V/160e9 + 2*15*10e-6;
 *     nic_spread = 0: one NIC, V/20e9.
 *   tp 8 with SP, gather_bw_GBps[0] = 150: the reduce-scatter + all-gather pair at
 *     150*0.8 = 120 GB/s: t = 2*7/8 * V/120e9 + 2*7*5e-6; without SP the all-reduce
 *     keeps 300 GB/s.
 *   ZeRO-1 (reduce-scatter + all-gather) over dp 8 in a node takes 150 GB/s too: its
 *     bandwidth term (time less 7*2*5e-6 latency) doubles; ZeRO-0 (all-reduce) does not
 *     move.
 */
static double tp_fwd_delta(PrismCluster *c, const char *spread, uint32_t devices,
                           const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const ov0[] = {"tp_overlap=0", "nccl_model=0", spread, NULL};
    const char *const ov1[] = {"tp_overlap=1", "nccl_model=0", spread, NULL};
    g_autoptr(PrismCostModel) ca = test_cost_model_on(m, c, devices, 2048, PRISM_DTYPE_FP16, ov0);
    g_autoptr(PrismCostModel) cb = test_cost_model_on(m, c, devices, 2048, PRISM_DTYPE_FP16, ov1);
    PrismStrategy s = test_strategy(ca, devices, strategy);
    PrismLayerTerms a, b;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(ca, &s, 1, &a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cb, &s, 1, &b, NULL));
    return a.fwd_s - b.fwd_s;
}

static double zero_dp_time(PrismCluster *c, const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const sets[] = {"dp_overlap=0", "grad_fp32=1", "nccl_model=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, c, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double col[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, NULL));
    return col[PRISM_COL_TIME_DP_COMM];
}

static void test_tp_nics_and_gather(void)
{
    const double V = 2048.0 * 4096.0 * 2.0;
    g_autoptr(PrismCluster) c = test_cluster();
    const double t16 = 2.0 * 15.0 / 16.0 * V / 160e9 + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(
        prism_test_close(tp_fwd_delta(c, "nic_spread=1", 16, "tp=16"), 2.0 * t16, 1e-9, 0));
    const double t16_0 = 2.0 * 15.0 / 16.0 * V / 20e9 + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(
        prism_test_close(tp_fwd_delta(c, "nic_spread=0", 16, "tp=16"), 2.0 * t16_0, 1e-9, 0));
    /* no gather figure: SP prices at the all-reduce one */
    const double t8 = 2.0 * 7.0 / 8.0 * V / 240e9 + 2.0 * 7.0 * 5e-6;
    CU_ASSERT_TRUE(
        prism_test_close(tp_fwd_delta(c, "nic_spread=1", 8, "tp=8,sp=1"), 2.0 * t8, 1e-9, 0));
    const double z0 = zero_dp_time(c, "dp=8,zero=0"), z1 = zero_dp_time(c, "dp=8,zero=1");
    c->gather_bw_GBps[0] = 150.0;
    const double t8g = 2.0 * 7.0 / 8.0 * V / 120e9 + 2.0 * 7.0 * 5e-6;
    CU_ASSERT_TRUE(
        prism_test_close(tp_fwd_delta(c, "nic_spread=1", 8, "tp=8,sp=1"), 2.0 * t8g, 1e-9, 0));
    CU_ASSERT_TRUE(
        prism_test_close(tp_fwd_delta(c, "nic_spread=1", 8, "tp=8,sp=0"), 2.0 * t8, 1e-9, 0));
    const double lat = 7.0 * 2.0 * 5e-6;
    CU_ASSERT_EQUAL(zero_dp_time(c, "dp=8,zero=0"), z0);
    CU_ASSERT_TRUE(
        prism_test_close((zero_dp_time(c, "dp=8,zero=1") - lat) / (z1 - lat), 2.0, 1e-9, 0));
}

/*
 * zero_sync_exposed (nanotron: no DDP under fp32 accumulation and ZeRO-1; the reduce-scatter
 * after backward, the all-gather after the step). dp 8 in one node of the test cluster
 * (300 GB/s x 0.8, 5 us per step, nccl_model = 0), ZeRO-1, fp32 gradients (4 B) and fp16
 * parameters (2 B), DDP-style buckets on (dp_bucket): every byte exposed,
 *   t = 7/8 * (4 + 2) * P / 240e9 + 7 * 2 * 5e-6,
 * P = V h + L(12h^2 + 4h) + V h + 2h, as test_ring_allreduce_dp. With the knob off the
 * buckets hide part of it; ZeRO-0 does not move with the knob.
 */
static double zero_sync_time2(const char *knob, const char *knob2, const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const sets[] = {"dp_bucket=1e6", "grad_fp32=1", "nccl_model=0", "nccl_sms=0", knob,
                                knob2,           NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double col[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, NULL));
    return col[PRISM_COL_TIME_DP_COMM];
}

static double zero_sync_time(const char *knob, const char *strategy)
{
    return zero_sync_time2(knob, NULL, strategy);
}

static void test_zero_sync_exposed(void)
{
    const double P = 51200.0 * H + 4.0 * (12.0 * H * H + 4.0 * H) + 51200.0 * H + 2.0 * H;
    const double t = 7.0 / 8.0 * 6.0 * P / 240e9 + 7.0 * 2.0 * 5e-6;
    const double on = zero_sync_time("zero_sync_exposed=1", "dp=8,zero=1");
    CU_ASSERT_TRUE(prism_test_close(on, t, 1e-12, 0));
    CU_ASSERT_TRUE(zero_sync_time("zero_sync_exposed=0", "dp=8,zero=1") < 0.9 * t);
    CU_ASSERT_EQUAL(zero_sync_time("zero_sync_exposed=1", "dp=8,zero=0"),
                    zero_sync_time("zero_sync_exposed=0", "dp=8,zero=0"));
}

/*
 * zero1_grad_allreduce (nanotron: training_step's sync_gradients_across_dp(...,
 * reduce_scatter=False) all-reduces the whole fp32 gradient buffer, then the optimizer
 * all-gathers the fp16 parameters). The setting of test_zero_sync_exposed (dp 8 in one node,
 * 240e9 B/s, 5 us per step, nccl_model = 0, everything exposed; the test cluster gives no
 * separate gather figure): 2(n-1)/n x 4 B + (n-1)/n x 2 B = 7/8 x 10 B per parameter and
 * 2(n-1) + (n-1) = 21 steps,
 *   t = 7/8 * 10 * P / 240e9 + 21 * 5e-6,
 * against 7/8 * 6 * P / 240e9 + 14 * 5e-6 without; ZeRO-0 and ZeRO-2 do not move.
 */
static double zero1_ar_time(const char *knob, const char *strategy)
{
    return zero_sync_time2("zero_sync_exposed=1", knob, strategy);
}

static void test_zero1_grad_allreduce(void)
{
    const double P = 51200.0 * H + 4.0 * (12.0 * H * H + 4.0 * H) + 51200.0 * H + 2.0 * H;
    const double ar = 7.0 / 8.0 * 10.0 * P / 240e9 + 21.0 * 5e-6;
    const double rs = 7.0 / 8.0 * 6.0 * P / 240e9 + 14.0 * 5e-6;
    CU_ASSERT_TRUE(
        prism_test_close(zero1_ar_time("zero1_grad_allreduce=1", "dp=8,zero=1"), ar, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(zero1_ar_time("zero1_grad_allreduce=0", "dp=8,zero=1"), rs, 1e-12, 0));
    CU_ASSERT_EQUAL(zero1_ar_time("zero1_grad_allreduce=1", "dp=8,zero=0"),
                    zero1_ar_time("zero1_grad_allreduce=0", "dp=8,zero=0"));
    CU_ASSERT_EQUAL(zero1_ar_time("zero1_grad_allreduce=1", "dp=8,zero=2"),
                    zero1_ar_time("zero1_grad_allreduce=0", "dp=8,zero=2"));
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
 * Messages per pipeline transfer (knob pp_p2p_msgs; nanotron: two metadata messages per
 * tensor, 4.5 per transfer). 1F1B, pp 4 inside a node (level 0: 300 GB/s x 0.8, 5 us),
 * mbs 1, gbs 16: m = 16 micro-batches, each sending its activation V = s*h*2 =
 * 2048*4096*2 bytes forward and its gradient back, each transfer at n latencies:
 *   PP time = 16 * 2 * (V / 240e9 + n * 5e-6);  n = 1: 2.39696e-3 s, n = 4.5: 2.95696e-3 s.
 */
static void test_pp_p2p_msgs(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    static const char *const one[] = {"pp_p2p_msgs=1", NULL};
    static const char *const meta[] = {"pp_p2p_msgs=4.5", NULL};
    g_autoptr(PrismCostModel) c1 = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, one);
    g_autoptr(PrismCostModel) c2 = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, meta);
    PrismStrategy s = test_strategy(c1, 4, "pp=4,mbs=1");
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c1, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c2, &s, b, NULL));
    const double V = 2048.0 * 4096.0 * 2.0;
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_PP_COMM],
                                    16.0 * 2.0 * (V / (300e9 * 0.8) + 5e-6), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_PP_COMM],
                                    16.0 * 2.0 * (V / (300e9 * 0.8) + 4.5 * 5e-6), 1e-12, 0));
}

/*
 * Host synchronisations per pipeline transfer (knobs pp_p2p_host_syncs, launch_us,
 * host_sync_us; nanotron's p2p.py reads the received metadata on the host: 29 per
 * transfer). The setting of test_pp_p2p_msgs (pp 4 in a node: 300 GB/s x 0.8, 5 us; m = 16,
 * V = 2048*4096*2 B, one message per transfer); each sync costs launch_us + host_sync_us on
 * the transfer's critical path:
 *   syncs 29, 8 + 6 us:  16 * 2 * (V / 240e9 + 5e-6 + 29 * 14e-6)
 *                      = 32 * (6.9905067e-5 + 5e-6 + 4.06e-4) = 1.5388962e-2 s
 *   syncs 29, 3.8 + 0 us: 32 * (6.9905067e-5 + 5e-6 + 29 * 3.8e-6) = 5.9233621e-3 s
 *   syncs 0:             32 * (6.9905067e-5 + 5e-6) = 2.3969621e-3 s (as pp_p2p_msgs = 1)
 */
static double pp_comm_with(const char *syncs, const char *launch, const char *sync_us)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    const char *const sets[] = {"pp_p2p_msgs=1", syncs, launch, sync_us, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 4, "pp=4,mbs=1");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    return c[PRISM_COL_TIME_PP_COMM];
}

static void test_pp_p2p_host_syncs(void)
{
    const double base = 2048.0 * 4096.0 * 2.0 / (300e9 * 0.8) + 5e-6;
    CU_ASSERT_TRUE(
        prism_test_close(pp_comm_with("pp_p2p_host_syncs=29", "launch_us=8", "host_sync_us=6"),
                         32.0 * (base + 29.0 * 14e-6), 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(pp_comm_with("pp_p2p_host_syncs=29", "launch_us=3.8", "host_sync_us=0"),
                         32.0 * (base + 29.0 * 3.8e-6), 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(pp_comm_with("pp_p2p_host_syncs=0", "launch_us=8", "host_sync_us=6"),
                         32.0 * base, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(32.0 * (base + 29.0 * 14e-6), 1.5388962e-2, 1e-7, 0));
}

/*
 * DeepSpeed's partitioned pipeline transfers (knob pp_tp_partitioned; engine.py
 * PartitionedTensor): at tp > 1 each transfer adds one meta message (LAT), the meta's
 * blocking copy (launch_us + host_sync_us = 8 + 6 us) and 1.5 all-gathers of the whole
 * activation over the TP group. pp 4 x tp 2 on one node (level 0: 300 GB/s x 0.8, 5 us,
 * the all-gather figure the all-reduce's), nccl_model 0 (t - 1 steps at the level's
 * latency), m = 16, seq 2048, h 4096, fp16; V = 2048*4096*2/2 = 8,388,608 B sent per rank:
 *   off: 16 * 2 * (V / 240e9 + 5e-6) = 32 * 3.9952533e-5 = 1.27848107e-3 s
 *   one gather G = (2-1)/2 * 2048*4096*2 / 240e9 + (2-1) * 5e-6 = 3.9952533e-5 s
 *   on:  32 * (3.9952533e-5 + 5e-6 + 14e-6 + 1.5 * G) = 32 * 1.18881333e-4 = 3.80420267e-3 s
 * At tp 1 (pp 4 on 4 devices) nothing is partitioned: on = off, both 32 * (2V / 240e9 + 5e-6).
 */
static double pp_comm_part(const char *on, uint32_t devices, const char *strategy)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    const char *const sets[] = {on, "nccl_model=0", "launch_us=8", "host_sync_us=6", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, devices, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    return c[PRISM_COL_TIME_PP_COMM];
}

static void test_pp_tp_partitioned(void)
{
    const double V = 2048.0 * 4096.0 * 2.0 / 2.0, bw = 300e9 * 0.8;
    const double off = 32.0 * (V / bw + 5e-6);
    const double G = 0.5 * 2048.0 * 4096.0 * 2.0 / bw + 5e-6;
    const double on = 32.0 * (V / bw + 5e-6 + 5e-6 + 14e-6 + 1.5 * G);
    CU_ASSERT_TRUE(prism_test_close(off, 1.27848107e-3, 1e-8, 0));
    CU_ASSERT_TRUE(prism_test_close(on, 3.80420267e-3, 1e-8, 0));
    const char *tp2 = "tp=2,pp=4,mbs=1";
    CU_ASSERT_TRUE(prism_test_close(pp_comm_part("pp_tp_partitioned=0", 8, tp2), off, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(pp_comm_part("pp_tp_partitioned=1", 8, tp2), on, 1e-12, 0));
    const double one = 32.0 * (2.0 * V / bw + 5e-6);
    CU_ASSERT_TRUE(
        prism_test_close(pp_comm_part("pp_tp_partitioned=0", 4, "pp=4,mbs=1"), one, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(pp_comm_part("pp_tp_partitioned=1", 4, "pp=4,mbs=1"), one, 1e-12, 0));
}

/*
 * A pipeline stage boundary is point-to-point: each device sends to its peer on the next
 * stage over its own link, so on a cluster with a level per node count (the seven-level
 * cluster of test_deep_levels: 8 per node at 300 GB/s, 16 at 40, 32 at 30, 64 at 20, ...,
 * x net_efficiency 0.8, 5 us inside a node, 10 us outside) a pipeline of 8 nodes is priced
 * at the level joining two nodes (size 16, 40 GB/s), not at the 8-node level (20 GB/s).
 * NCCL's send/receive between two nodes keeps one GPU's NIC bandwidth whatever the node
 * count (NVIDIA/nccl#1272: sendrecv_perf 24.2 GB/s on 2, 4 and 8 nodes).
 * tp 8, pp 8, mbs 1, gbs 16 (m = 16), seq 2048, h 4096, fp16: each transfer sends 1/t of
 * the activation (pp_scatter), V = 2048*4096*2/8 = 2,097,152 bytes, one message:
 *   PP time = 16 * 2 * (V / 32e9 + 10e-6) = 16 * 2 * (65.536e-6 + 10e-6) = 2.417152e-3 s
 * (the 8-node level would give 16 * 2 * (V / 16e9 + 10e-6) = 4.51428e-3 s).
 * pp 2 inside one node (tp 4): level 0, V = 2048*4096*2/4 = 4,194,304 bytes:
 *   16 * 2 * (V / 240e9 + 5e-6) = 16 * 2 * (17.476267e-6 + 5e-6) = 7.19240533e-4 s.
 * pp 1 (tp 8, dp 8 over 8 nodes) has no boundary: pp_level 0 as every [pp>1] term, not
 * the level joining two nodes (1) that t*c*d = 64 > 8 would otherwise name.
 */
static void test_pp_boundary_level(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    g_autoptr(PrismCluster) cl = seven_level_cluster();
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, cl, 16, 2048, PRISM_DTYPE_FP16, NULL);
    PrismStrategy s = test_strategy(cm, 64, "tp=8,pp=8,mbs=1,schedule=1f1b");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    const double V = 2048.0 * 4096.0 * 2.0 / 8.0;
    CU_ASSERT_TRUE(prism_test_close(16.0 * 2.0 * (V / 32e9 + 10e-6), 2.417152e-3, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_PP_COMM], 2.417152e-3, 1e-12, 0));
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, &s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL(test_explain_term(ex, PRISM_TERM_LANE, 0, "pp_level"), 1.0);
    PrismStrategy s2 = test_strategy(cm, 8, "tp=4,pp=2,mbs=1,schedule=1f1b");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s2, c, NULL));
    const double V2 = 2048.0 * 4096.0 * 2.0 / 4.0;
    CU_ASSERT_TRUE(
        prism_test_close(c[PRISM_COL_TIME_PP_COMM], 16.0 * 2.0 * (V2 / 240e9 + 5e-6), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(16.0 * 2.0 * (V2 / 240e9 + 5e-6), 7.19240533e-4, 1e-9, 0));
    PrismStrategy s1 = test_strategy(cm, 64, "tp=8,pp=1,mbs=1");
    g_autoptr(PrismExplain) ex1 = prism_explain_new(cm, &s1, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex1);
    CU_ASSERT_EQUAL(test_explain_term(ex1, PRISM_TERM_LANE, 0, "pp_level"), 0.0);
    CU_ASSERT_EQUAL(test_explain_term(ex1, PRISM_TERM_LANE, 0, "pp_time_per_microbatch"), 0.0);
}

/*
 * Tied embeddings under a pipeline: once per step the first and the last stage all-reduce
 * the gradients of the matrix they share (Megatron-Core finalize_model_grads
 * _allreduce_word_embedding_grads; nanotron sync_tied_weights_gradients). A group of two:
 * 2(2-1)/2 = 1 of the V h / t gradient bytes (fp32: 4 B), 2 ring steps (nccl_model = 0: the
 * level's latency per step). L = 8, h = 4096, V = 51200, dp 1 so the DP time is this term
 * alone; untied the same strategy prices none, and pp 1 none either.
 *   pp 4 in one node (300 GB/s x 0.8, 5 us):
 *     51200 * 4096 * 4 / 240e9 + 2 * 5e-6 = 3.4952533e-3 + 1e-5 = 3.5052533e-3 s
 *   tp 2, pp 2, dp 4 on 16 devices: the pair sits on two nodes (25 GB/s x 0.8, 10 us):
 *     51200 * 4096 / 2 * 4 / 20e9 + 2 * 10e-6 = 2.0971520e-2 + 2e-5 = 2.0991520e-2 s
 * (the DP all-reduce of dp 4 is the same tied or untied, so the difference is the term).
 */
static void tie_cols(gboolean tied, uint32_t n, const char *text, double *col)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    m->tied_embeddings = tied;
    static const char *const sets[] = {"grad_fp32=1", "nccl_model=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, n, text);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, NULL));
}

static void test_tied_grad_sync(void)
{
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    tie_cols(TRUE, 4, "pp=4,mbs=1", a);
    tie_cols(FALSE, 4, "pp=4,mbs=1", b);
    const double in_node = 51200.0 * 4096.0 * 4.0 / 240e9 + 2.0 * 5e-6;
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_DP_COMM], in_node, 1e-12, 0));
    CU_ASSERT_EQUAL(b[PRISM_COL_TIME_DP_COMM], 0.0);
    CU_ASSERT_TRUE(
        prism_test_close(a[PRISM_COL_TIME_STEP] - b[PRISM_COL_TIME_STEP], in_node, 1e-9, 0));
    tie_cols(TRUE, 16, "tp=2,pp=2,mbs=1", a);
    tie_cols(FALSE, 16, "tp=2,pp=2,mbs=1", b);
    const double two_nodes = 51200.0 * 4096.0 / 2.0 * 4.0 / 20e9 + 2.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_DP_COMM] - b[PRISM_COL_TIME_DP_COMM],
                                    two_nodes, 1e-9, 0));
    tie_cols(TRUE, 1, "pp=1,mbs=1", a);
    CU_ASSERT_EQUAL(a[PRISM_COL_TIME_DP_COMM], 0.0);
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
    CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, "mem_margin=2e9", NULL));
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
    /* switches and codes take whole numbers only: 1.5 is refused (exit 2), not rounded */
    GError *error = NULL;
    CU_ASSERT_FALSE(prism_knobs_set(&k, "fp8_scope=1.5", &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "not one of its settings") : NULL);
    CU_ASSERT_TRUE(error != NULL && error->code == PRISM_INPUT_ERROR_VALUE);
    g_clear_error(&error);
    CU_ASSERT_FALSE(prism_knobs_set(&k, "nic_spread=0.5", NULL));
    CU_ASSERT_TRUE(prism_knobs_set(&k, "fp8_scope=2", NULL) && k.v[PRISM_KNOB_FP8_SCOPE] == 2.0);
    CU_ASSERT_TRUE(prism_knobs_set(&k, "nic_spread=1.0", NULL)); /* 1.0 is whole */
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
    static const char *const off[] = {"flash_attention=0", "dropout=1", "bwd_working_set=0", NULL};
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

/* explain's per-stage activations of strategy @p s (PrismExplainStage) */
static void stage_activations(const PrismCostModel *cm, const PrismStrategy *s, double *out)
{
    g_autoptr(PrismExplain) ex = prism_explain_new(cm, s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    for (uint32_t i = 0; i < s->pp; i++) {
        PrismExplainStage sd;
        prism_explain_stage(ex, i, &sd);
        out[i] = sd.activations;
    }
}

/*
 * The new schedules by hand: GPT L = 8, h = 4096, a = 32, V = 51200, seq 2048, fp16,
 * pp = 4, tp = dp = mbs = 1, m = 16, no recompute, bwd_working_set = 0 and
 * grad_accum_exposed = 0 (so the activations are the in-flight sums alone and a layer's
 * weight-gradient time is W = F_fwd / rate, rate = 312e12 * 0.8). Per layer (layer terms):
 * A, E, H the activations of a block, the embedding and the head; T = fwd + bwd and W of
 * each; one p2p send t1 = 2048*4096*2 B / 240e9 + 5e-6.
 * In-flight (cost/README.md), stage s, chunks as placed:
 *   zb-v       chunks s, 7-s (1 layer each): states (7-s, s+1) and (8-s, s);
 *              stage 0 = max(7(E+A) + (A+H), 8(E+A)); stages 1-3 = 8A
 *   dualpipe-v the same chunks: (8-s, s+1); stage 0 = 8(E+A) + (A+H); stages 1-3 = 9A
 *   dualpipe   stages s, 3-s of 2 layers: (4-s, s+1); stage 0 = 4(E+2A) + (2A+H) = stage 3;
 *              stage 1 = 3*2A + 2*2A = 10A = stage 2
 *   seq1f1b    k = 4: (4-s+3)/4 micro-batches; stage 0 = 7/4 (E+2A); stage 3 = 2A + H
 * Bubble, u_s = T_s - kappa W_s:
 *   zb-v, dualpipe-v  T_0 = E+2A+H times, T_s = 2 T_A (+ 4 t1 each: two chunks, two sends per
 *                     chunk); kappa 3; max(0, sum u - max u) / 2
 *   dualpipe          T_0 = T_3 = T_E + 4 T_A + T_H + 4 t1, T_1 = T_2 = 4 T_A + 4 t1;
 *                     kappa 3; max(0, sum u / 2 - max u) / 2; compute m/2 x T_max
 *   seq1f1b           (sum T - max T) / 4 = (3 (2 T_A + 2 t4) + T_E) / 4 (T_3 the slowest),
 *                     t4 = t1 + 3 x 5e-6: each send is 4 messages, one per sequence chunk
 */
static void test_new_schedules(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(8, 4096, 32, 51200);
    static const char *const sets[] = {"bwd_working_set=0", "grad_accum_exposed=0", NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, sets);
    const double t1 = 2048.0 * 4096.0 * 2.0 / 240e9 + 5e-6;
    const char *const texts[] = {"pp=4,vpp=2,mbs=1,schedule=zb-v",
                                 "pp=4,vpp=2,mbs=1,schedule=dualpipe-v",
                                 "pp=4,mbs=1,schedule=dualpipe", "pp=4,mbs=1,schedule=seq1f1b"};
    for (int k = 0; k < 4; k++) {
        PrismStrategy s = test_strategy(cm, 4, texts[k]);
        CU_ASSERT_TRUE_FATAL(prism_strategy_check(&s, m, prism_cost_model_training(cm), NULL));
        PrismLayerTerms lb, le, lh;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lb, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 0, &le, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 10, &lh, NULL));
        const double aB = lb.act_bytes[0], aE = le.act_bytes[0], aH = lh.act_bytes[0];
        const double TA = lb.fwd_s + lb.bwd_s, TE = le.fwd_s + le.bwd_s, TH = lh.fwd_s + lh.bwd_s;
        /* W: each layer's weight-gradient pass (the shape model's wgrad GEMMs, checked by
         * hand in test_gemm; no gradient accumulation here) */
        const double WA = lb.wgrad_s, WE = le.wgrad_s, WH = lh.wgrad_s;
        double act[4], want[4], T[4], W[4], sig = 1.0, kap = 3.0, rho = 0.5, share = 1.0;
        switch (k) {
        case 0:
            want[0] = MAX(7 * (aE + aB) + (aB + aH), 8 * (aE + aB));
            want[1] = want[2] = want[3] = 8 * aB;
            break;
        case 1:
            want[0] = 8 * (aE + aB) + (aB + aH);
            want[1] = want[2] = want[3] = 9 * aB;
            break;
        case 2:
            want[0] = want[3] = 4 * (aE + 2 * aB) + (2 * aB + aH);
            want[1] = want[2] = 10 * aB;
            break;
        default:
            want[0] = 7.0 / 4.0 * (aE + 2 * aB);
            want[1] = 6.0 / 4.0 * 2 * aB;
            want[2] = 5.0 / 4.0 * 2 * aB;
            want[3] = 2 * aB + aH;
            break;
        }
        if (k < 2) {
            T[0] = TE + 2 * TA + TH + 4 * t1;
            W[0] = WE + 2 * WA + WH;
            for (int i = 1; i < 4; i++) {
                T[i] = 2 * TA + 4 * t1;
                W[i] = 2 * WA;
            }
        } else if (k == 2) {
            T[0] = T[3] = TE + 4 * TA + TH + 4 * t1;
            W[0] = W[3] = WE + 4 * WA + WH;
            T[1] = T[2] = 4 * TA + 4 * t1;
            W[1] = W[2] = 4 * WA;
            sig = 0.5;
            share = 0.5;
        } else {
            /* each send is k = 4 messages (one per sequence chunk), each with the latency */
            const double t4 = t1 + 3.0 * 5e-6;
            T[0] = TE + 2 * TA + 2 * t4;
            T[1] = T[2] = 2 * TA + 2 * t4;
            T[3] = 2 * TA + TH + 2 * t4;
            W[0] = W[1] = W[2] = W[3] = 0;
            kap = 0.0;
            rho = 0.25;
        }
        stage_activations(cm, &s, act);
        double usum = 0, umax = -1e300, tmax = 0;
        for (int i = 0; i < 4; i++) {
            if (!prism_test_close(act[i], want[i], 1e-12, 0))
                fprintf(stderr, "\n  %s stage %d activations %.17g want %.17g\n", texts[k], i,
                        act[i], want[i]);
            CU_ASSERT_TRUE(prism_test_close(act[i], want[i], 1e-12, 0));
            const double u = MAX(T[i] - kap * W[i], 0.0); /* per unit, as the kernel */
            usum += u;
            umax = MAX(umax, u);
            tmax = MAX(tmax, T[i]);
        }
        const double bub = MAX(0.0, sig * usum - umax) * rho;
        double c[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
        if (!prism_test_close(c[PRISM_COL_TIME_BUBBLE], bub, 1e-9, 0))
            fprintf(stderr, "\n  %s bubble %.17g want %.17g\n", texts[k], c[PRISM_COL_TIME_BUBBLE],
                    bub);
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_BUBBLE], bub, 1e-9, 0));
        CU_ASSERT_TRUE(bub > 0.0);
        /* step = share m T_max + bubble + optimizer (dp = 1: no DP traffic) */
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_STEP],
                                        share * 16.0 * tmax + bub + c[PRISM_COL_TIME_OPTIMIZER],
                                        1e-9, 0));
        if (k == 3) /* the 1f1b bubble of test_bubble_exact with 4-message sends, over k = 4 */
            CU_ASSERT_TRUE(prism_test_close(bub, (3.0 * (2.0 * TA + 2.0 * (t1 + 15e-6)) + TE) / 4.0,
                                            1e-12, 0));
    }
}

/* Term @p key of stage @p st's composition (explain's per_stage[st].terms). */
static double stage_term(const PrismExplain *ex, uint32_t st, const char *key)
{
    PrismExplainStage sd;
    prism_explain_stage(ex, st, &sd);
    return test_explain_term(ex, PRISM_TERM_COMP, sd.comp, key);
}

/*
 * DualPipe(V)'s overlap of the MoE all-to-all: against zb-v (same placement, same in-flight
 * chunk mix but one), every stage's EP time drops by min(ep, compute + recompute) and its
 * stage time by as much; the step is m T_max + max(0, sum u - max u)/2 + DP + optimizer
 * with u = T - 3 W, from explain's per-stage terms. Mixtral 8x7B, 64 devices, ep 8.
 */
static void test_dualpipe_overlap(void)
{
    GError *error = NULL;
    g_autoptr(PrismModel) m = prism_model_zoo_get("mixtral-8x7b", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    g_autoptr(PrismCluster) cl = prism_cluster_preset("A100-80GB", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = 256;
    t.seq = 4096;
    PrismKnobs k;
    prism_knobs_default(&k);
    g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, cl, &t, &k, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    const char *base = "dp=8,tp=2,pp=4,vpp=2,ep=8,sp=1,mbs=1,zero=1,recompute=selective";
    g_autofree char *tz = g_strdup_printf("%s,schedule=zb-v", base);
    g_autofree char *td = g_strdup_printf("%s,schedule=dualpipe-v", base);
    PrismStrategy sz = test_strategy(cm, 64, tz), sd = test_strategy(cm, 64, td);
    g_autoptr(PrismExplain) ez = prism_explain_new(cm, &sz, NULL, NULL);
    g_autoptr(PrismExplain) ed = prism_explain_new(cm, &sd, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ez);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ed);
    double usum = 0, umax = -1e300, tmax = 0, dpmax = 0, opt = 0;
    for (uint32_t i = 0; i < 4; i++) {
#define G(ex, key) stage_term(ex, i, key)
        const double cr = G(ez, "compute") + G(ez, "recompute"), ep = G(ez, "ep_comm");
        const double hidden = MIN(ep, cr);
        CU_ASSERT_TRUE(ep > 0.0 && hidden > 0.0);
        CU_ASSERT_TRUE(prism_test_close(G(ed, "ep_comm"), ep - hidden, 1e-12, 1e-15));
        CU_ASSERT_TRUE(
            prism_test_close(G(ed, "stage_time"), G(ez, "stage_time") - hidden, 1e-12, 0));
        const double td_s = G(ed, "stage_time"), u = MAX(td_s - 3.0 * G(ed, "weight_grad"), 0.0);
        usum += u;
        umax = MAX(umax, u);
        tmax = MAX(tmax, td_s);
        dpmax = MAX(dpmax, G(ed, "dp_comm"));
        opt = MAX(opt, G(ed, "optimizer_step"));
#undef G
    }
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &sd, c, NULL));
    const double step = sd.m * tmax + MAX(0.0, usum - umax) * 0.5 + dpmax + opt;
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_STEP], step, 1e-12, 0));
}

/*
 * Parallel folding, by hand. A MoE GPT: h = 1024, a = 8 heads (head dim 128, MHA), 2
 * blocks of SwiGLU MoE, E = 16 experts of width f = 512, top_k = 2, dropless with
 * moe_imbalance 1 (cf = 1), LayerNorm, no biases; fp16, grad_fp32 = 0 (2-byte params and
 * grads, 12 bytes of Adam state), seq 1024, gbs 8. Folded layout on N = 32 (test cluster:
 * 8 per node at 300 GB/s x 0.8 and 5 us, then 25 GB/s x 0.8 and 10 us):
 * tp=4, dp=8, pp=cp=1, sp=1, ZeRO-1; experts etp=2 x ep=8 x edp = 32/16 = 2 (ep=8 does
 * divide dp*cp = 8, but etp != tp: folded).
 * Static per device, layer 1 (a block):
 *   dense  P_d = 4h^2/t + h E (router) + 2 x 2h (norms) = 1,048,576 + 16,384 + 4,096
 *              = 1,069,056
 *   expert P_e = E x 3 h f / (etp ep) = 25,165,824 / 16 = 1,572,864
 *   params = grads = 2 (P_d + P_e) = 5,283,840 B
 *   optimizer = 12 (P_d / 8 + P_e / 2) = 12 x (133,632 + 786,432) = 11,040,768 B
 *     (ZeRO-1: the dense state over dp*cp = 8, the expert state over edp = 2)
 * EP per dispatch (all-to-all dispatcher): T = 1024 tokens, each TP rank sends T/t of them,
 * top_k x cf x h x 2 = 4096 B per token. (e-1)/e = 7/8 leave over the EP group, which
 * spans etp x ep = 16 devices (two nodes: level 1) with g = 8/etp = 4 members per node:
 * 3/8 go to the node's peers (240e9) while 4/8 cross on the NIC (20e9), concurrently, so
 * the NIC's share paces it; the ETP group (2 consecutive devices, level 0) then gathers
 * (etp-1) = 1 peer's T/t tokens:
 *   t_a2a = T x 4096 x (max(3/8/4 / 240e9, 4/8/4 / 20e9) + 1/4 / 240e9) + 7 x 10e-6 + 5e-6,
 * at one device's NIC (20e9) although the EP group has 4 members per node and nic_spread
 * is 1: an all-to-all cannot aggregate several NICs (NVIDIA/nccl-tests #267).
 * Forward runs a dispatch and a combine: fwd_s(ep_overlap 0) - fwd_s(ep_overlap 1)
 * = 2 t_a2a. All-gather dispatcher: every device gathers the hidden states (h x 2 B) of
 * the other 15 devices' T/t tokens over level 1: t_ag = 15 x T/4 x 2048 / 20e9 + 15 x 10e-6.
 */
static PrismModel *moe_model(void)
{
    PrismModel *m = test_gpt_model(2, 1024, 8, 64);
    PrismMlpSpec *p = &m->specs[0].mlp;
    *p = (PrismMlpSpec){.act = PRISM_MLP_SWIGLU, .n_experts = 16, .top_k = 2, .expert_hidden = 512};
    return m;
}

static void test_folded_moe(void)
{
    g_autoptr(PrismModel) m = moe_model();
    static const char *const a0[] = {"grad_fp32=0", "ep_overlap=0", "nic_spread=1", NULL};
    static const char *const a1[] = {"grad_fp32=0", "ep_overlap=1", "nic_spread=1", NULL};
    static const char *const g0[] = {"grad_fp32=0", "ep_overlap=0", "moe_dispatcher=1", NULL};
    static const char *const g1[] = {"grad_fp32=0", "ep_overlap=1", "moe_dispatcher=1", NULL};
    g_autoptr(PrismCostModel) c0 = test_cost_model(m, 8, 1024, PRISM_DTYPE_FP16, a0);
    g_autoptr(PrismCostModel) c1 = test_cost_model(m, 8, 1024, PRISM_DTYPE_FP16, a1);
    g_autoptr(PrismCostModel) d0 = test_cost_model(m, 8, 1024, PRISM_DTYPE_FP16, g0);
    g_autoptr(PrismCostModel) d1 = test_cost_model(m, 8, 1024, PRISM_DTYPE_FP16, g1);
    PrismStrategy s = test_strategy(c0, 32, "tp=4,dp=8,ep=8,etp=2,sp=1,zero=1");
    CU_ASSERT_EQUAL(prism_strategy_edp(&s), 2u);
    CU_ASSERT_EQUAL(prism_strategy_folding(&s), 1u);
    PrismLayerTerms a, b, x, y;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c0, &s, 1, &a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c1, &s, 1, &b, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(d0, &s, 1, &x, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(d1, &s, 1, &y, NULL));
    CU_ASSERT_TRUE(prism_test_close(a.params_bytes, 5283840.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(a.grads_bytes, 5283840.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(a.optimizer_bytes, 11040768.0, 1e-12, 0));
    const double T = 1024.0;
    const double t_a2a = T * 4096.0 * (4.0 / 8.0 / 4.0 / 20e9 + 0.25 / 240e9) + 7.0 * 10e-6 + 5e-6;
    CU_ASSERT_TRUE(prism_test_close(a.fwd_s - b.fwd_s, 2.0 * t_a2a, 1e-9, 0));
    const double t_ag = 15.0 * T / 4.0 * 2048.0 / 20e9 + 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(x.fwd_s - y.fwd_s, 2.0 * t_ag, 1e-9, 0));
    /* the tied layout of the same devices (etp = tp = 4, ep = 8, edp = 1): experts cut 32
     * ways, P_e = 786,432, optimizer 12 x (133,632 + 786,432) again (edp = 1) */
    PrismStrategy tied = test_strategy(c0, 32, "tp=4,dp=8,ep=8,sp=1,zero=1");
    CU_ASSERT_EQUAL(prism_strategy_folding(&tied), 0u);
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c0, &tied, 1, &x, NULL));
    CU_ASSERT_TRUE(prism_test_close(x.params_bytes, 2.0 * (1069056.0 + 786432.0), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(x.optimizer_bytes, 11040768.0, 1e-12, 0));
}

/*
 * moe_count_sync (Megatron-Core's alltoall dispatcher: preprocess() all-gathers the
 * per-expert token counts over the tp_ep group, then reads them on the host), by hand on
 * moe_model() and the test cluster (8 devices per node). Each MoE layer's forward gains
 * the all-gather's latency plus launch_us + host_sync_us = 8 + 6 = 14 us:
 * - tied tp=4, dp=8, ep=8 on 32 devices: the tp_ep group is 32 devices on 4 nodes.
 *   NCCL's model (nccl_model 1), LL ring all-gather: base 6.6 us, 31 steps, of them
 *   nodes - 1 = 3 between nodes at the network LL hop 2.7 us and 28 inside a node at the
 *   NVLink LL hop 0.6 us raised to the network-post overhead 1 us (a ring over nodes):
 *     6.6 + 28 x 1 + 3 x 2.7 = 42.7 us; + 14 = 56.7 us.
 *   nccl_model 0: 31 steps at the level's latency (10 us): 310 + 14 = 324 us.
 * - dp=8, ep=8 (etp 1) on one node: 6.6 + 7 x 0.6 = 10.8 us; + 14 = 24.8 us.
 * - dp=8, ep=1: every expert on the device, no all-gather; the host read: 14 us.
 * Off (0), or the all-gather dispatcher (moe_dispatcher 1): nothing added.
 */
static double count_sync_fwd(const char *on, const char *nccl, const char *disp, uint32_t n,
                             const char *strategy)
{
    g_autoptr(PrismModel) m = moe_model();
    const char *const sets[] = {"grad_fp32=0", on, nccl, disp, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 1024, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, n, strategy);
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, 1, &lt, NULL));
    return lt.fwd_s;
}

static double count_sync_delta(const char *nccl, const char *disp, uint32_t n, const char *strategy)
{
    return count_sync_fwd("moe_count_sync=1", nccl, disp, n, strategy) -
           count_sync_fwd("moe_count_sync=0", nccl, disp, n, strategy);
}

static void test_moe_count_sync(void)
{
    const char *tied = "tp=4,dp=8,ep=8,sp=1,zero=1", *node = "dp=8,ep=8,zero=1";
    const char *a2a = "moe_dispatcher=0";
    CU_ASSERT_TRUE(
        prism_test_close(count_sync_delta("nccl_model=1", a2a, 32, tied), 56.7e-6, 1e-9, 0));
    CU_ASSERT_TRUE(
        prism_test_close(count_sync_delta("nccl_model=0", a2a, 32, tied), 324e-6, 1e-9, 0));
    CU_ASSERT_TRUE(
        prism_test_close(count_sync_delta("nccl_model=1", a2a, 8, node), 24.8e-6, 1e-9, 0));
    CU_ASSERT_TRUE(
        prism_test_close(count_sync_delta("nccl_model=1", a2a, 8, "dp=8,zero=1"), 14e-6, 1e-9, 0));
    CU_ASSERT_EQUAL(count_sync_delta("nccl_model=1", "moe_dispatcher=1", 32, tied), 0.0);
}

/*
 * Shared-expert overlap (Megatron-Core --moe-shared-expert-overlap), by hand. moe_model()
 * with one shared expert of width fs, on 8 devices of one node: dp=8, ep=8 (tp = etp = 1),
 * seq 1024, gbs 8: T = 1024 tokens per micro-batch. fp16 GEMMs at 312e12 x 0.8 = 249.6e12
 * FLOP/s (the test cluster has no SM count: no quantisation; hbm_GBps 1e5 keeps every GEMM
 * compute-bound). The shared expert's forward: fc1 M = T, N = 2 fs (gate + up), K = h;
 * fc2 M = T, N = h, K = fs: sh_f = 2 T h 3 fs / 249.6e12; its backward (input and weight
 * gradients) sh_b = 2 sh_f. One all-to-all: every device sends its T tokens' top_k x h x 2
 * = 4096 B, 7/8 of them over NVLink (300 GB/s x 0.8) with 7 messages of 5 us:
 * t_a2a = 7/8 T 4096 / 240e9 + 35e-6 = 50.3 us; a pass runs two (2 t_a2a = 100.6 us).
 *   fs = 1024: sh_f = 25.8 us, sh_b = 51.6 us, both < 2 t_a2a: the overlap hides sh_f of
 *              the forward and sh_b of the backward;
 *   fs = 8192: sh_f = 206 us > 2 t_a2a: the forward's two all-to-alls are hidden whole.
 */
static PrismModel *shared_model(uint64_t fs)
{
    PrismModel *m = moe_model();
    m->specs[0].mlp.n_shared = 1;
    m->specs[0].mlp.shared_hidden = fs;
    return m;
}

/* The step's EP column (both blocks, m = 1) of dp=8,ep=8 with @p recompute. */
static double shared_ep_col(const char *overlap, const char *strategy)
{
    g_autoptr(PrismModel) m = shared_model(1024);
    const char *const sets[] = {"hbm_GBps=100000", overlap, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 1024, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, strategy);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    return c[PRISM_COL_TIME_EP_COMM];
}

static void shared_terms(uint64_t fs, const char *overlap, PrismLayerTerms *lt)
{
    g_autoptr(PrismModel) m = shared_model(fs);
    const char *const sets[] = {"hbm_GBps=100000", overlap, NULL};
    block_terms(m, 8, 1024, PRISM_DTYPE_FP16, sets, 8, "dp=8,ep=8", lt);
}

static void test_shared_expert_overlap(void)
{
    const double T = 1024.0, h = 1024.0, rate = 312e12 * 0.8;
    const double t_a2a = 7.0 / 8.0 * T * 4096.0 / 240e9 + 7.0 * 5e-6;
    PrismLayerTerms off, on;
    shared_terms(1024, "shared_expert_overlap=0", &off);
    shared_terms(1024, "shared_expert_overlap=1", &on);
    const double sh_f = 2.0 * T * h * 3.0 * 1024.0 / rate;
    CU_ASSERT_TRUE(sh_f < 2.0 * t_a2a && 2.0 * sh_f < 2.0 * t_a2a);
    CU_ASSERT_TRUE(prism_test_close(off.fwd_s - on.fwd_s, sh_f, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(off.bwd_s - on.bwd_s, 2.0 * sh_f, 1e-9, 0));
    /* full recompute's repeated forward (its exposed comm is in recompute_s) hides sh_f
     * again; memory and the selective recompute do not move */
    CU_ASSERT_TRUE(prism_test_close(off.recompute_s[2] - on.recompute_s[2], sh_f, 1e-9, 0));
    CU_ASSERT_EQUAL(off.recompute_s[1], on.recompute_s[1]);
    CU_ASSERT_EQUAL(off.act_bytes[0], on.act_bytes[0]);
    shared_terms(8192, "shared_expert_overlap=0", &off);
    shared_terms(8192, "shared_expert_overlap=1", &on);
    CU_ASSERT_TRUE(2.0 * T * h * 3.0 * 8192.0 / rate > 2.0 * t_a2a);
    CU_ASSERT_TRUE(prism_test_close(off.fwd_s - on.fwd_s, 2.0 * t_a2a, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(off.bwd_s - on.bwd_s, 2.0 * t_a2a, 1e-9, 0));
    /* the step's EP column, two blocks: sh_f + 2 sh_f hidden per block; full recompute
     * runs the forward (and its overlap) again: 2 sh_f + 2 sh_f per block */
    const char *none = "dp=8,ep=8", *full = "dp=8,ep=8,recompute=full";
    CU_ASSERT_TRUE(prism_test_close(shared_ep_col("shared_expert_overlap=0", none) -
                                        shared_ep_col("shared_expert_overlap=1", none),
                                    2.0 * 3.0 * sh_f, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(shared_ep_col("shared_expert_overlap=0", full) -
                                        shared_ep_col("shared_expert_overlap=1", full),
                                    2.0 * 4.0 * sh_f, 1e-9, 0));
}

/*
 * ep_a2a_overlap (Megatron-Core --overlap-moe-expert-parallel-comm): the combined 1F1B
 * runs each micro-batch's dispatch and combine under another micro-batch's compute, as
 * DualPipe does. shared_model(1024) on dp 8, ep 8 (two MoE blocks, T = 1024 tokens, top-2
 * rows of h 1024 fp16 = 4096 B per token per all-to-all): off, the EP column is 2 blocks x
 * 4 all-to-alls x t_a2a, t_a2a = 7/8 x 1024 x 4096 / (B x 0.8) + 7 x 5 us; on, the stage
 * exposes only what its compute and recompute cannot cover: max(0, EP_off - (compute +
 * recompute)); the compute itself does not move. At the test cluster's 300 GB/s the
 * compute covers it all; on a 3 GB/s link only part of it.
 */
static void a2a_cols(double link_GBps, const char *on, double col[PRISM_COL_COUNT])
{
    g_autoptr(PrismModel) m = shared_model(1024);
    g_autoptr(PrismCluster) cl = test_cluster();
    cl->levels[0].bw_GBps = link_GBps;
    const char *const sets[] = {"hbm_GBps=100000", on, NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, cl, 8, 1024, PRISM_DTYPE_FP16, sets);
    PrismStrategy s = test_strategy(cm, 8, "dp=8,ep=8");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, NULL));
}

static void test_ep_a2a_overlap(void)
{
    const double links[2] = {300.0, 3.0};
    for (int i = 0; i < 2; i++) {
        const double t_a2a = 7.0 / 8.0 * 1024.0 * 4096.0 / (links[i] * 0.8e9) + 7.0 * 5e-6;
        double off[PRISM_COL_COUNT], on[PRISM_COL_COUNT];
        a2a_cols(links[i], "ep_a2a_overlap=0", off);
        a2a_cols(links[i], "ep_a2a_overlap=1", on);
        const double ep = off[PRISM_COL_TIME_EP_COMM];
        CU_ASSERT_TRUE(prism_test_close(ep, 8.0 * t_a2a, 1e-9, 0));
        const double cover = on[PRISM_COL_TIME_COMPUTE] + on[PRISM_COL_TIME_RECOMPUTE];
        CU_ASSERT_EQUAL(on[PRISM_COL_TIME_COMPUTE], off[PRISM_COL_TIME_COMPUTE]);
        CU_ASSERT_TRUE(i == 0 ? cover >= ep : cover < ep);
        CU_ASSERT_TRUE(
            prism_test_close(on[PRISM_COL_TIME_EP_COMM], ep > cover ? ep - cover : 0.0, 1e-9, 0));
    }
}

/*
 * recompute_moe_act (Megatron-Core --recompute-modules moe_act), by hand. moe_model()
 * (E = 16, top_k = 2, f_e = 512, SwiGLU, cf = 1) on one device, seq 1024, mbs 1: the
 * routed rows per token are top_k = 2, so under recompute = selective the experts'
 * activation output (f_e bf16 per row) is no longer kept:
 *   act_bytes[selective] drops by T x 2 x 2 B x 512 = 1024 x 2048 = 2,097,152 B;
 * and the activation runs again in backward, its SwiGLU traffic (read 2 f_e, write f_e)
 * at hbm_GBps 1000 x hbm_efficiency 0.8:
 *   recompute_s[selective] grows by 1024 x 2 x 2 x 3 x 512 / 800e9 = 7.864e-6 s.
 * No-recompute and full-recompute terms do not change.
 */
static void moe_act_terms(const char *on, PrismLayerTerms *lt)
{
    g_autoptr(PrismModel) m = moe_model();
    const char *const sets[] = {"hbm_GBps=1000", on, NULL};
    block_terms(m, 8, 1024, PRISM_DTYPE_FP16, sets, 1, "mbs=1", lt);
}

static void test_recompute_moe_act(void)
{
    PrismLayerTerms off, on;
    moe_act_terms("recompute_moe_act=0", &off);
    moe_act_terms("recompute_moe_act=1", &on);
    const int sel = PRISM_RECOMPUTE_SELECTIVE, none = PRISM_RECOMPUTE_NONE;
    CU_ASSERT_TRUE(prism_test_close(off.act_bytes[sel] - on.act_bytes[sel], 2097152.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(on.recompute_s[sel] - off.recompute_s[sel],
                                    1024.0 * 2.0 * 2.0 * 3.0 * 512.0 / 800e9, 1e-9, 0));
    CU_ASSERT_EQUAL(off.act_bytes[none], on.act_bytes[none]);
    CU_ASSERT_EQUAL(off.act_bytes[PRISM_RECOMPUTE_FULL], on.act_bytes[PRISM_RECOMPUTE_FULL]);
    CU_ASSERT_EQUAL(off.recompute_s[PRISM_RECOMPUTE_FULL], on.recompute_s[PRISM_RECOMPUTE_FULL]);
    CU_ASSERT_EQUAL(off.fwd_s, on.fwd_s);
}

/*
 * act_cache_fp8 and recompute_norm on moe_model() (standard attention, 8 heads of 128,
 * h 1024, E 16 top-2 of f_e 512, SwiGLU, fp16: bp 2), one device, T = 1024, selective.
 * act_cache_fp8 keeps, per token, the two pre-norm outputs in FP8 (1 + 4/128 = 1.03125 B:
 * -0.96875 x 2 x 1024 = -1984), the attention output in E5M6 (1.53125 B: -0.46875 x 8 x
 * 128 = -480), each routed row's fc1 outputs in FP8 and its output in fp16 instead of
 * gate, up, product and output in fp16 (2 x (3 x 512 + 1024) - (1.03125 x 2 x 512 + 2 x
 * 1024) = 2016, two rows: -4032) and the permuted inputs in FP8 (-0.96875 x 2 x 1024 =
 * -1984): -8480 B per token, -8,683,520 B per block; the SwiGLU runs again in backward,
 * 2 rows x 2 B x 3 x 512 = 6144 B per token at 800 GB/s: +7.864e-6 s.
 * recompute_norm drops the pre-norm outputs, 2 x 2 x 1024 = 4096 B per token
 * (-4,194,304 B per block), and runs both norms again, 4 x 2 x 1024 = 8192 B per token:
 * +1.048576e-5 s. No and full recompute do not move.
 */
static void test_act_cache_fp8(void)
{
    PrismLayerTerms off, fp8, norm;
    moe_act_terms("act_cache_fp8=0", &off);
    moe_act_terms("act_cache_fp8=1", &fp8);
    moe_act_terms("recompute_norm=1", &norm);
    const int sel = PRISM_RECOMPUTE_SELECTIVE, none = PRISM_RECOMPUTE_NONE;
    CU_ASSERT_TRUE(prism_test_close(off.act_bytes[sel] - fp8.act_bytes[sel], 8683520.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(fp8.recompute_s[sel] - off.recompute_s[sel],
                                    1024.0 * 6144.0 / 800e9, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(off.act_bytes[sel] - norm.act_bytes[sel], 4194304.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(norm.recompute_s[sel] - off.recompute_s[sel],
                                    1024.0 * 8192.0 / 800e9, 1e-9, 0));
    CU_ASSERT_EQUAL(off.act_bytes[none], fp8.act_bytes[none]);
    CU_ASSERT_EQUAL(off.act_bytes[PRISM_RECOMPUTE_FULL], norm.act_bytes[PRISM_RECOMPUTE_FULL]);
    CU_ASSERT_EQUAL(off.fwd_s, fp8.fwd_s);
}

/*
 * moe_probs_in_act on moe_model() (h 1024, E 16 top-2 of f_e 512, SwiGLU, fp16: bp 2), one
 * device, T = 1024. With the probabilities applied in the experts' activation the combine
 * keeps no expert output: 2 rows x 1024 x 2 B = 4096 B per token fewer, 4,194,304 B per
 * block, with no recompute and with selective (with the FP8 cache too: there the output
 * was kept in fp16 beside the FP8 fc1 outputs); full recompute keeps the block input only
 * and does not move. The unpermute's multiply by the probabilities (read + write of each
 * routed row, 2 x 2 x 1024 x 2 = 8192 B per token) leaves the dispatch traffic: the
 * forward falls by 1024 x 8192 / 800e9 = 1.048576e-5 s at 1000 GB/s x 0.8.
 */
static void probs_terms(const char *a, const char *b, PrismLayerTerms *lt)
{
    g_autoptr(PrismModel) m = moe_model();
    const char *const sets[] = {"hbm_GBps=1000", a, b, NULL};
    block_terms(m, 8, 1024, PRISM_DTYPE_FP16, sets, 1, "mbs=1", lt);
}

static void test_moe_probs_in_act(void)
{
    PrismLayerTerms off, on, off8, on8;
    probs_terms("moe_probs_in_act=0", "act_cache_fp8=0", &off);
    probs_terms("moe_probs_in_act=1", "act_cache_fp8=0", &on);
    probs_terms("moe_probs_in_act=0", "act_cache_fp8=1", &off8);
    probs_terms("moe_probs_in_act=1", "act_cache_fp8=1", &on8);
    const int sel = PRISM_RECOMPUTE_SELECTIVE, none = PRISM_RECOMPUTE_NONE;
    CU_ASSERT_TRUE(prism_test_close(off.act_bytes[none] - on.act_bytes[none], 4194304.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(off.act_bytes[sel] - on.act_bytes[sel], 4194304.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(off8.act_bytes[sel] - on8.act_bytes[sel], 4194304.0, 1e-12, 0));
    CU_ASSERT_EQUAL(off.act_bytes[PRISM_RECOMPUTE_FULL], on.act_bytes[PRISM_RECOMPUTE_FULL]);
    CU_ASSERT_TRUE(prism_test_close(off.fwd_s - on.fwd_s, 1024.0 * 8192.0 / 800e9, 1e-9, 0));
}

/*
 * DeepSeek-V3's published H800 layout under its report's memory savings (the deepseek-v3
 * profile's knobs: recompute_norm, recompute_mla_up, act_cache_fp8, adam_moment_bytes 2;
 * dropout 0; fp8-cs), by hand. 2,048 H800, dp 128, pp 16, ep 64, mbs 1, ZeRO-1, DualPipe,
 * seq 4096 (T = 4096), gbs 15360. h 7168, 128 heads, MLA q_lora 1536, kv_lora 512, nope
 * 128, rope 64, v 128; 256 experts top-8, f_e 2048, one shared expert of 2048; SwiGLU.
 * Stage 1 holds 4 MoE blocks of each direction (8 blocks) and, under DualPipe, p + 1 = 17
 * micro-batches of a 4-block chunk: 68 block micro-batches.
 * Kept per token by one MoE block (bp = 2; FP8 cache 1 + 4/128 = 1.03125 B, E5M6 1.53125 B):
 *   the two norms' inputs 2 x 2 x 7168 = 28672; their outputs: recomputed (0)
 *   compressed q and kv latents 2 x (1536 + 576) = 4224; their normed copies: recomputed
 *   router logits fp32 4 x 256 = 1024
 *   Q, K, V: recomputed (mla_up_proj); attention output E5M6 128 x 128 x 1.53125 = 25088
 *   shared expert: SwiGLU inputs FP8 2 x 2048 x 1.03125 = 4224; its output recomputed
 *   routed, 8 rows: SwiGLU inputs FP8 4224 + the output for the combine 2 x 7168 = 14336:
 *     8 x 18560 = 148480
 *   permuted expert inputs FP8 8 x 7168 x 1.03125 = 59136
 *   sum 270,848 B; x 4096 = 1,109,393,408 B per block micro-batch.
 * The backward working set: the block's none-mode activations less its kept input, per
 * token 4 x 2 x 7168 + 8320 (MLA latents and normed copies) + 1024 + 2 x (2 x 128 x 192 +
 * 2 x 128 x 128) + 12288 (shared: 3 x 2048 x 2) + 8 x 2 x (3 x 2048 + 7168) + 8 x 7168 x 2 +
 * 512 (flash LSE 4 x 128) - 14336 = 556,672; x 4096 = 2,280,128,512 B.
 *   activations = 68 x 1,109,393,408 + 2,280,128,512 = 77,718,880,256 B.
 * Parameters per block: MLA 7168 x 1536 + 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 +
 * 512 x 128 x 256 + 128 x 128 x 7168 = 187,107,328; norms 14,336; router 7168 x 256 =
 * 1,835,008; shared 3 x 7168 x 2048 = 44,040,192; dense 232,996,864; experts
 * 256 x 44,040,192 / 64 = 176,160,768; 8 blocks: 1,863,974,912 dense + 1,409,286,144
 * experts = 3,273,261,056 parameters:
 *   params 2 B = 6,546,522,112; grads fp32 4 B = 13,093,044,224;
 *   optimizer (4 B master + 2 x 2 B moments) x (1,863,974,912 / 128 + 1,409,286,144 / 2)
 *     = 8 x 719,205,376 = 5,753,643,008 B.
 * With the profile's moe_probs_in_act (the routing weights applied in the experts' SwiGLU,
 * the combine unweighted, as DeepEP's training interface and Megatron-Core's weighted
 * SwiGLU run it) the 8 routed rows keep no output for the combine: 8 x 14336 = 114,688 B
 * fewer, 156,160 B per token (639,631,360 per block micro-batch), and the working set
 * loses the same 114,688: 441,984 x 4096 = 1,810,366,464 B;
 *   activations = 68 x 639,631,360 + 1,810,366,464 = 45,305,298,944 B.
 * Stage 1 then holds, with the buffers (EP all-to-all 2 x 4096 x 8 x 7168 x 2 =
 * 939,524,096, PP send + receive 2 x 4096 x 7168 x 2 = 117,440,512, runtime_overhead
 * 33,554,432: 1,090,519,040), 6,546,522,112 + 13,093,044,224 + 5,753,643,008 +
 * 45,305,298,944 + 1,090,519,040 = 71,789,027,328 B, and the layout fits its device
 * (allocator_reserve 0, as the profile's [memory] counts allocated bytes).
 */
static void test_deepseek_v3_layout(void)
{
    GError *error = NULL;
    g_autoptr(PrismModel) m = prism_model_zoo_get("deepseek-v3", &error);
    g_autoptr(PrismCluster) c = prism_cluster_preset("H800", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const char *const sets[] = {"recompute_norm=1",    "recompute_mla_up=1", "act_cache_fp8=1",
                                "adam_moment_bytes=2", "dropout=0",          NULL};
    g_autoptr(PrismCostModel) cm = test_cost_model_on(m, c, 15360, 4096, PRISM_DTYPE_FP8_CS, sets);
    PrismStrategy s = test_strategy(
        cm, 2048, "dp=128,pp=16,ep=64,mbs=1,zero=1,recompute=selective,schedule=dualpipe");
    double col[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, &error));
    CU_ASSERT_EQUAL(col[PRISM_COL_PEAK_STAGE], 1.0);
    CU_ASSERT_TRUE(prism_test_close(col[PRISM_COL_MEM_ACTIVATIONS], 77718880256.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(col[PRISM_COL_MEM_PARAMS], 6546522112.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(col[PRISM_COL_MEM_GRADS], 13093044224.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(col[PRISM_COL_MEM_OPTIMIZER], 5753643008.0, 1e-12, 0));
    /* without the savings the same layout keeps 570,496 B per token per block (+ the
     * working set) and 12 B of optimizer state: the knobs are what moved it */
    const char *const plain[] = {"dropout=0", NULL};
    g_autoptr(PrismCostModel) cp = test_cost_model_on(m, c, 15360, 4096, PRISM_DTYPE_FP8_CS, plain);
    double col0[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cp, &s, col0, &error));
    CU_ASSERT_TRUE(prism_test_close(col0[PRISM_COL_MEM_ACTIVATIONS],
                                    68.0 * 570496.0 * 4096.0 + 2280128512.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(col0[PRISM_COL_MEM_OPTIMIZER], 12.0 * 719205376.0, 1e-12, 0));
    const char *const full[] = {
        "recompute_norm=1", "recompute_mla_up=1", "act_cache_fp8=1",     "adam_moment_bytes=2",
        "dropout=0",        "moe_probs_in_act=1", "allocator_reserve=0", NULL};
    g_autoptr(PrismCostModel) cf = test_cost_model_on(m, c, 15360, 4096, PRISM_DTYPE_FP8_CS, full);
    double peaks[16], col1[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_stage_peaks(cf, &s, NULL, peaks, NULL, &error));
    CU_ASSERT_TRUE(prism_test_close(peaks[1], 71789027328.0, 1e-12, 0));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cf, &s, col1, &error));
    CU_ASSERT_EQUAL(col1[PRISM_COL_FEASIBLE], 1.0);
    CU_ASSERT_EQUAL(col0[PRISM_COL_FEASIBLE], 0.0);
}

/* The test cluster with a host (offloading): link @p link_GBps per direction, @p host_gib
 * GiB and 50 GB/s of host memory per device. */
static PrismCostModel *offload_model(const PrismModel *m, double link_GBps, double host_gib,
                                     const char *const *sets)
{
    g_autoptr(PrismCluster) c = test_cluster();
    c->host_link_GBps = link_GBps;
    c->host_mem_bytes = host_gib * 1073741824.0;
    c->host_mem_bw_GBps = 50.0;
    return test_cost_model_on(m, c, 8, 2048, PRISM_DTYPE_FP16, sets);
}

static void eval_text(const PrismCostModel *cm, const char *text, double col[PRISM_COL_COUNT])
{
    PrismStrategy s = test_strategy(cm, 8, text);
    GError *error = NULL;
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, col, &error));
}

/*
 * Optimizer offload (ZeRO-Offload, Ren et al. 2021; cost/README.md "Offloading"). The
 * test model (4 blocks, h 4096, V 51200, untied head) holds
 *   P = 4 (12h^2 + 4h) + 2 V h + 2h (final LayerNorm) = 1,224,810,496 parameters;
 * fp16 with grad_fp32=0: bytes_p = bytes_g = 2, bytes_o = 12, and one Adam update moves
 * 2 x 12 + 2 + 2 = 28 bytes per parameter. dp=8, zero=1, pp=1: the optimizer shard is
 *   P_o = P/8 = 153,101,312 parameters, on the device 12 P_o = 1,837,215,744 B.
 * offload=1 (host link 25 GB/s, host memory 50 GB/s per device):
 *   device optimizer memory   0 (peak falls by 1,837,215,744 B)
 *   host memory               (12 + 2) P_o            = 2,143,418,368 B
 *   CPU Adam                  28 P_o / 50e9           = 0.0857367347 s
 *   transfers                 (2 + 2) P_o / 25e9      = 0.0244962099 s (offload_time)
 *   step                      + CPU Adam + transfers - the device update (28 P_o / HBM)
 * A 1 GiB host (< 2,143,418,368 B) makes it infeasible with reason mem_host (4), and a
 * cluster without a host (the test cluster) too; offload=0 stays feasible on both.
 */
static void test_offload_optimizer(void)
{
    static const char *const sets[] = {"grad_fp32=0", NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = offload_model(m, 25.0, 64.0, sets);
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    eval_text(cm, "dp=8,zero=1", a);
    eval_text(cm, "dp=8,zero=1,offload=1", b);
    const double Po = 153101312.0;
    CU_ASSERT_EQUAL(4.0 * (12.0 * H * H + 4.0 * H) + 2.0 * 51200.0 * H + 2.0 * H, 8.0 * Po);
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_MEM_OPTIMIZER], 12.0 * Po, 1e-12, 0));
    CU_ASSERT_EQUAL(a[PRISM_COL_MEM_HOST], 0.0);
    CU_ASSERT_EQUAL(a[PRISM_COL_TIME_OFFLOAD], 0.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_MEM_OPTIMIZER], 0.0);
    CU_ASSERT_TRUE(
        prism_test_close(a[PRISM_COL_MEM_PEAK] - b[PRISM_COL_MEM_PEAK], 12.0 * Po, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_HOST], 2143418368.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_OPTIMIZER], 28.0 * Po / 50e9, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_OPTIMIZER], 0.0857367347, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_OFFLOAD], 4.0 * Po / 25e9, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_OFFLOAD], 0.0244962099, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_STEP] - a[PRISM_COL_TIME_STEP],
                                    b[PRISM_COL_TIME_OPTIMIZER] + b[PRISM_COL_TIME_OFFLOAD] -
                                        a[PRISM_COL_TIME_OPTIMIZER],
                                    1e-9, 0));
    CU_ASSERT_EQUAL(b[PRISM_COL_FEASIBLE], 1.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_REASON], 0.0);
    /* the host holds less than the offloaded bytes */
    g_autoptr(PrismCostModel) small = offload_model(m, 25.0, 1.0, sets);
    eval_text(small, "dp=8,zero=1,offload=1", b);
    CU_ASSERT_EQUAL(b[PRISM_COL_FEASIBLE], 0.0);
    CU_ASSERT_EQUAL(b[PRISM_COL_REASON], (double)PRISM_REASON_MEM_HOST);
    CU_ASSERT_STRING_EQUAL(prism_reason_name(PRISM_REASON_MEM_HOST), "mem_host");
    eval_text(small, "dp=8,zero=1", a);
    CU_ASSERT_EQUAL(a[PRISM_COL_FEASIBLE], 1.0);
    /* no host at all: nothing can be offloaded, every time stays finite */
    g_autoptr(PrismCostModel) none = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, sets);
    eval_text(none, "dp=8,zero=1,offload=3", b);
    CU_ASSERT_EQUAL(b[PRISM_COL_REASON], (double)PRISM_REASON_MEM_HOST);
    CU_ASSERT_TRUE(isfinite(b[PRISM_COL_TIME_STEP]));
    eval_text(none, "dp=8,zero=1", a);
    CU_ASSERT_EQUAL(a[PRISM_COL_REASON], 0.0);
}

/*
 * Activation offload, per layer: each layer's kept activations a (one micro-batch) go
 * to the host after its forward and come back before its backward, X = a / link each
 * way; the forward copy hides behind the layer's forward compute F, the prefetch behind
 * its backward B (+ gradient accumulation): exposed max(0, X - F) + max(0, X - B). pp=1,
 * m=1 (dp=8, gbs 8, mbs 1): one micro-batch of every layer is in flight, so
 *   host memory    = sum of a over the layers
 *   device act.    = min(sum a, 2 max a) (the layer running and the one in transfer)
 *   offload_time   = sum over layers of the exposure (m = 1), and the step grows by it.
 * a, F and B per layer come from prism_cost_layer_terms (tp = cp = ep = 1: F = fwd_s,
 * B = bwd_s: no communication and no recompute). A slow 2 GB/s link makes X exceed F
 * and B for the blocks (a block keeps ~0.57 GB: X ~ 0.29 s against ms of compute).
 */
static void test_offload_activations(void)
{
    static const char *const sets[] = {"grad_fp32=0", "bwd_working_set=0", NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) cm = offload_model(m, 2.0, 64.0, sets);
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    eval_text(cm, "dp=8,zero=1", a);
    eval_text(cm, "dp=8,zero=1,offload=2", b);
    PrismStrategy s = test_strategy(cm, 8, "dp=8,zero=1");
    double sum = 0.0, big = 0.0, exposed = 0.0;
    for (uint32_t i = 0; i < m->n_layers; i++) {
        PrismLayerTerms lt;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, i, &lt, NULL));
        const double x = lt.act_bytes[0] / 2e9;
        sum += lt.act_bytes[0];
        big = MAX(big, lt.act_bytes[0]);
        exposed += MAX(0.0, x - lt.fwd_s) + MAX(0.0, x - lt.bwd_s);
    }
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_MEM_ACTIVATIONS], sum, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_HOST], sum, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_ACTIVATIONS], MIN(sum, 2.0 * big), 1e-12, 0));
    CU_ASSERT_TRUE(2.0 * big < sum);
    CU_ASSERT_TRUE(exposed > 0.1);
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_OFFLOAD], exposed, 1e-9, 0));
    CU_ASSERT_TRUE(
        prism_test_close(b[PRISM_COL_TIME_STEP] - a[PRISM_COL_TIME_STEP], exposed, 1e-9, 0));
    CU_ASSERT_EQUAL(b[PRISM_COL_MEM_OPTIMIZER], a[PRISM_COL_MEM_OPTIMIZER]);
    /* a fast link (450 GB/s, C2C-class) hides the copies behind the blocks' compute */
    g_autoptr(PrismCostModel) fast = offload_model(m, 450.0, 64.0, sets);
    double exposed_fast = 0.0;
    for (uint32_t i = 0; i < m->n_layers; i++) {
        PrismLayerTerms lt;
        CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(fast, &s, i, &lt, NULL));
        const double x = lt.act_bytes[0] / 450e9;
        exposed_fast += MAX(0.0, x - lt.fwd_s) + MAX(0.0, x - lt.bwd_s);
    }
    eval_text(fast, "dp=8,zero=1,offload=2", b);
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_OFFLOAD], exposed_fast, 1e-9, 1e-15));
    CU_ASSERT_TRUE(exposed_fast < exposed / 100.0);
    /* both offloads: host = activations + the optimizer's state and gradient copy */
    eval_text(cm, "dp=8,zero=1,offload=3", b);
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_HOST], sum + 14.0 * 153101312.0, 1e-12, 0));
}

/*
 * The overlap dims (cost/README.md "Communication overlap"), by hand on the ring tests'
 * set-up. TP: tp=8 with SP in one node (300 GB/s x 0.8, 5 us), fp16, seq 2048, h 4096:
 * one all-reduce-equivalent is t_ar = 2*7/8 V / 240e9 + 14 x 5 us, V = 2048 h 2 B, and a
 * block runs 2 in forward and 2 in backward. With the knob tp_overlap = 0.5, turning the
 * option off (tp_overlap=0 in the strategy) adds the hidden half back:
 *   fwd(off) - fwd(on) = bwd(off) - bwd(on) = 2 x 0.5 x t_ar per block,
 * the step's exposed TP time halves exactly (on = 0.5 x off), and the step grows by that
 * difference alone. "on" holds Transformer Engine's 10 userbuffers of T x h x 2 B,
 * T = mbs seq / cp = 2048 tokens: 10 x 2048 x 4096 x 2 = 167,772,160 B more peak memory;
 * with the knob at 0 nothing is hidden and no userbuffer is held (on = off exactly).
 */
static void test_tp_overlap_dim(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    /* the per-step latency model (nccl_model = 0), as test_ring_allreduce_tp */
    static const char *const half[] = {"tp_overlap=0.5", "nccl_model=0", NULL};
    static const char *const zero[] = {"tp_overlap=0", "nccl_model=0", NULL};
    g_autoptr(PrismCostModel) c5 = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, half);
    g_autoptr(PrismCostModel) c0 = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, zero);
    PrismStrategy on = test_strategy(c5, 8, "tp=8,sp=1");
    PrismStrategy off = test_strategy(c5, 8, "tp=8,sp=1,tp_overlap=0");
    CU_ASSERT_EQUAL(off.overlap_off, PRISM_OVERLAP_TP);
    PrismLayerTerms a, b;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c5, &off, 1, &a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(c5, &on, 1, &b, NULL));
    const double V = 2048.0 * 4096.0 * 2.0;
    const double t_ar = 2.0 * 7.0 / 8.0 * V / (300e9 * 0.8) + 2.0 * 7.0 * 5e-6;
    CU_ASSERT_TRUE(prism_test_close(a.fwd_s - b.fwd_s, 2.0 * 0.5 * t_ar, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(a.bwd_s - b.bwd_s, 2.0 * 0.5 * t_ar, 1e-9, 0));
    double x[PRISM_COL_COUNT], y[PRISM_COL_COUNT], z[PRISM_COL_COUNT], w[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c5, &off, x, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c5, &on, y, NULL));
    CU_ASSERT_TRUE(x[PRISM_COL_TIME_TP_COMM] > 0.0);
    CU_ASSERT_TRUE(
        prism_test_close(y[PRISM_COL_TIME_TP_COMM], 0.5 * x[PRISM_COL_TIME_TP_COMM], 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(x[PRISM_COL_TIME_STEP] - y[PRISM_COL_TIME_STEP],
                                    x[PRISM_COL_TIME_TP_COMM] - y[PRISM_COL_TIME_TP_COMM], 1e-9,
                                    0));
    CU_ASSERT_TRUE(
        prism_test_close(y[PRISM_COL_MEM_PEAK] - x[PRISM_COL_MEM_PEAK], 167772160.0, 1e-9, 0));
    /* the knob at 0: "on" hides nothing and holds no userbuffer, the same bits as off */
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c0, &on, z, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c0, &off, w, NULL));
    for (int c = 0; c < PRISM_COL_COUNT; c++)
        CU_ASSERT_EQUAL(z[c], w[c]);
    CU_ASSERT_EQUAL(z[PRISM_COL_TIME_STEP], x[PRISM_COL_TIME_STEP]);
}

/*
 * dp_overlap and param_overlap split the DP time C (the ring test's set-up: dp=16 over 2
 * nodes, fp16 with fp32 gradients, bytes_g = 4, bytes_p = 2). With the knob dp_overlap =
 * 0.9 the gradient share fb of C is exposed 0.1 while dp_overlap is on (else 1), the
 * parameter share 1 - fb likewise with param_overlap:
 *   ZeRO-0: all-reduce of the gradients, fb = 1: on 0.1 C, dp_overlap=0 C.
 *   ZeRO-1: reduce-scatter (4 B) + all-gather (2 B) per parameter, fb = 4/6 = 2/3:
 *     param_overlap=0: (1/3 + 0.1 x 2/3) C = 0.4 C; dp_overlap=0: (2/3 + 0.1/3) C = 0.7 C;
 *     both off: C; both on: 0.1 C.
 * C is the exposed DP time with the knob at 0; the step grows by the exposed difference.
 */
static void test_dp_overlap_dims(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    static const char *const ov9[] = {"dp_overlap=0.9", "grad_fp32=1", NULL};
    static const char *const ov0[] = {"dp_overlap=0", "grad_fp32=1", NULL};
    g_autoptr(PrismCostModel) c9 = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, ov9);
    g_autoptr(PrismCostModel) c0 = test_cost_model(m, 16, 2048, PRISM_DTYPE_FP16, ov0);
    static const struct {
        const char *text;
        double share; /* of C */
    } cases[] = {{"dp=16", 0.1},
                 {"dp=16,dp_overlap=0", 1.0},
                 {"dp=16,zero=1", 0.1},
                 {"dp=16,zero=1,param_overlap=0", 0.4},
                 {"dp=16,zero=1,dp_overlap=0", 0.7},
                 {"dp=16,zero=1,dp_overlap=0,param_overlap=0", 1.0}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        PrismStrategy s = test_strategy(c9, 16, cases[i].text);
        PrismStrategy full = s;
        full.overlap_off = 0;
        double on[PRISM_COL_COUNT], c[PRISM_COL_COUNT], knob0[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c9, &s, c, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c9, &full, on, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c0, &full, knob0, NULL));
        const double C = knob0[PRISM_COL_TIME_DP_COMM];
        CU_ASSERT_TRUE(C > 0.0);
        if (!prism_test_close(c[PRISM_COL_TIME_DP_COMM], cases[i].share * C, 1e-12, 0))
            fprintf(stderr, "%s: %g of C, expected %g\n", cases[i].text,
                    c[PRISM_COL_TIME_DP_COMM] / C, cases[i].share);
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], cases[i].share * C, 1e-12, 0));
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_STEP] - on[PRISM_COL_TIME_STEP],
                                        c[PRISM_COL_TIME_DP_COMM] - on[PRISM_COL_TIME_DP_COMM],
                                        1e-9, 1e-15));
        CU_ASSERT_EQUAL(c[PRISM_COL_MEM_PEAK], on[PRISM_COL_MEM_PEAK]); /* free: no memory */
    }
    /* ZeRO-0 has no parameter gather, ZeRO-3 no per-step DP collective: refused (R12) */
    PrismStrategy bad = test_strategy(c9, 16, "dp=16,param_overlap=0");
    CU_ASSERT_FALSE(prism_strategy_check(&bad, m, prism_cost_model_training(c9), NULL));
    bad = test_strategy(c9, 16, "dp=16,zero=3,dp_overlap=0");
    CU_ASSERT_FALSE(prism_strategy_check(&bad, m, prism_cost_model_training(c9), NULL));
}

/*
 * NCCL's ring model (nccl_model = 1, cost/kernels/kernels-nccl.h; the constants of
 * NVIDIA/nccl src/graph/tuning.cc): one TP all-reduce on t = 8 devices of the test
 * cluster's NVLink level (300 GB/s x net_efficiency 0.8 = 240 GB/s), 2(t-1) = 14 ring
 * steps, no SP (one collective, one base latency). x = 2*7/8 * V / 240e9 is the bus bytes
 * at the Simple protocol's bandwidth; per protocol (us):
 *   Simple  8.4 + 14 * 3.4 = 56.0   + x
 *   LL128  14.0 + 14 * 1.9 = 40.6   + x / 0.92
 *   LL      6.6 + 14 * 0.6 = 15.0   + 4 x
 * V = 1 MiB (T = 128 tokens x h 4096 x 2 B): x = 7.6460e-6 s; Simple 63.646, LL128
 *   48.911, LL 45.584 us: LL, 45.584 us (the old model: x + 14 x 5 us = 77.646 us).
 * V = 1 GiB (T = 131072 tokens: mbs 64, seq 2048): x = 7.829367e-3 s; Simple
 *   7.885367e-3 s, LL128 8.551e-3, LL 3.13e-2: Simple, 7.885367e-3 s.
 * The forward of a block runs 2 of them; turning TP overlap from 0 to 1 removes both.
 * The host floor is off (launch_us = 0): its gap would hide part of the difference.
 */
static double nccl_tp_allreduce(uint64_t seq, const char *strategy, const char *model)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    const char *const ov0[] = {"tp_overlap=0", "launch_us=0", model, NULL};
    const char *const ov1[] = {"tp_overlap=1", "launch_us=0", model, NULL};
    g_autoptr(PrismCostModel) ca = test_cost_model(m, 64, seq, PRISM_DTYPE_FP16, ov0);
    g_autoptr(PrismCostModel) cb = test_cost_model(m, 64, seq, PRISM_DTYPE_FP16, ov1);
    PrismStrategy s = test_strategy(ca, 8, strategy);
    PrismLayerTerms a, b;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(ca, &s, 1, &a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cb, &s, 1, &b, NULL));
    return (a.fwd_s - b.fwd_s) / 2.0;
}

static void test_nccl_latency_curve(void)
{
    const double mib = 1048576.0, x1 = 2.0 * 7.0 / 8.0 * mib / 240e9;
    const double t1 = 15.0e-6 + 4.0 * x1; /* LL */
    CU_ASSERT_TRUE(prism_test_close(x1, 7.6460e-6, 1e-4, 0));
    CU_ASSERT_TRUE(prism_test_close(t1, 45.584e-6, 1e-4, 0));
    CU_ASSERT_TRUE(
        prism_test_close(nccl_tp_allreduce(128, "tp=8,mbs=1", "nccl_model=1"), t1, 1e-9, 0));
    const double x2 = 2.0 * 7.0 / 8.0 * 1024.0 * mib / 240e9;
    const double t2 = 56.0e-6 + x2; /* Simple */
    CU_ASSERT_TRUE(prism_test_close(t2, 7.885367e-3, 1e-6, 0));
    CU_ASSERT_TRUE(
        prism_test_close(nccl_tp_allreduce(2048, "tp=8,mbs=64", "nccl_model=1"), t2, 1e-9, 0));
    /* nccl_model = 0: the level's 5 us per step at the bus bandwidth (test cluster) */
    CU_ASSERT_TRUE(prism_test_close(nccl_tp_allreduce(128, "tp=8,mbs=1", "nccl_model=0"),
                                    x1 + 14.0 * 5e-6, 1e-9, 0));
    /* achieved bus bandwidth of the 1 MiB all-reduce: 2*7/8 MiB / 45.584 us = 40.3 GB/s,
     * 1/6 of the link's 240; the 1 GiB one reaches 238.3 GB/s */
    CU_ASSERT_TRUE(prism_test_close(2.0 * 7.0 / 8.0 * mib / t1, 40.25e9, 1e-3, 0));
}

/*
 * The host floor (launch_us x layer_kernels_fwd/bwd, cost/README.md "Latency-bound
 * work"): a small block (h 256, 4 heads, seq 128, mbs 1, tp 1) runs for a few
 * microseconds on the device, while the host needs (15 + 30) x 8.0 us = 360 us to
 * launch its kernels (no TP collectives at tp = 1). Per block and micro-batch the compute
 * column then grows by 360 us - (its device time, fwd_s + bwd_s with the floor off: no
 * communication at tp = dp = 1); 4 blocks, m = 8 micro-batches (gbs 8). The embedding
 * and the head pay no floor. A large block (h 4096, seq 2048) takes longer on the
 * device: no gap.
 */
static void test_host_floor(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 256, 4, 1024);
    const char *const on[] = {NULL};
    const char *const off[] = {"launch_us=0", NULL};
    g_autoptr(PrismCostModel) con = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, on);
    g_autoptr(PrismCostModel) coff = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, off);
    PrismStrategy s = test_strategy(con, 1, "mbs=1");
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(coff, &s, 1, &lt, NULL));
    const double host = (15.0 + 30.0) * 8.0e-6, dev = lt.fwd_s + lt.bwd_s;
    CU_ASSERT_TRUE(prism_test_close(host, 360.0e-6, 1e-12, 0));
    CU_ASSERT_TRUE_FATAL(dev < host);
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(con, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(coff, &s, b, NULL));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_COMPUTE] - b[PRISM_COL_TIME_COMPUTE],
                                    8.0 * 4.0 * (host - dev), 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_STEP] - b[PRISM_COL_TIME_STEP],
                                    8.0 * 4.0 * (host - dev), 1e-9, 0));
    /* a large block: the device is slower than the host, the columns are the same bits */
    g_autoptr(PrismModel) big = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCostModel) bon = test_cost_model(big, 8, 2048, PRISM_DTYPE_FP16, on);
    g_autoptr(PrismCostModel) boff = test_cost_model(big, 8, 2048, PRISM_DTYPE_FP16, off);
    PrismStrategy sb = test_strategy(bon, 1, "mbs=1");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(bon, &sb, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(boff, &sb, b, NULL));
    CU_ASSERT_EQUAL(a[PRISM_COL_TIME_STEP], b[PRISM_COL_TIME_STEP]);
}

/*
 * The host floor's TP collectives (cost/README.md "Latency-bound work"): Megatron's layer
 * launches one NCCL kernel per all-reduce, after the attention and after the MLP, in
 * forward and in backward, and none at tp = 1 (its mappings return their input at world
 * size 1); with SP each is a reduce-scatter and an all-gather. At launch_us = 100 the
 * small block above (gbs 8, mbs 1: m = 8; 4 blocks) is host-bound by its totals:
 *   tp 1:        (15 + 30) x 100 us = 4.5 ms per block and micro-batch
 *   tp 2:        (15 + 2 + 30 + 2) x 100 us = 4.9 ms
 *   tp 2, SP:    (15 + 4 + 30 + 4) x 100 us = 5.3 ms
 * (the forward alone, at most 1.9 ms, stays below the totals' gap because the block's
 * backward takes far less than the 3.4 ms of backward launches: checked). The step grows
 * by 8 x 4 x (host - device) over the floor-off model's, the device time read from the
 * layer's terms.
 */
/* The small block of the host-floor tests at launch_us = 100 (@p con; @p coff the same
 * with the floor off): strategy @p strat on @p devices is host-bound by its @p launches
 * (@p fwd of them in forward), and its step grows by 8 micro-batches x 4 blocks x
 * (host - device) over @p coff's, the device time read from the layer's terms. */
static void check_host_bound(PrismCostModel *con, PrismCostModel *coff, uint32_t devices,
                             const char *strat, double launches, double fwd)
{
    PrismStrategy s = test_strategy(con, devices, strat);
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(coff, &s, 1, &lt, NULL));
    const double host = launches * 100e-6, dev = lt.fwd_s + lt.bwd_s;
    CU_ASSERT_TRUE_FATAL(host - dev > fwd * 100e-6 - lt.fwd_s);
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(con, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(coff, &s, b, NULL));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_STEP] - b[PRISM_COL_TIME_STEP],
                                    8.0 * 4.0 * (host - dev), 1e-9, 0));
}

static void test_host_floor_tp(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 256, 4, 1024);
    const char *const on[] = {"launch_us=100", NULL};
    const char *const off[] = {"launch_us=0", NULL};
    g_autoptr(PrismCostModel) con = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, on);
    g_autoptr(PrismCostModel) coff = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, off);
    const char *const strat[] = {"mbs=1", "tp=2,mbs=1", "tp=2,sp=1,mbs=1"};
    const double launches[] = {15.0 + 30.0, 15.0 + 2.0 + 30.0 + 2.0, 15.0 + 4.0 + 30.0 + 4.0};
    const double fwd_launches[] = {15.0, 17.0, 19.0};
    const uint32_t devices[] = {1, 2, 2};
    for (size_t k = 0; k < G_N_ELEMENTS(strat); k++)
        check_host_bound(con, coff, devices[k], strat[k], launches[k], fwd_launches[k]);
}

/*
 * A framework's own launches under SP at tp > 1 (knobs layer_kernels_sp_fwd/bwd,
 * cost/README.md "Latency-bound work"; nanotron.ini counts 4 and 6 from its TP path).
 * The small block above at launch_us = 100 with 3 forward and 5 backward extra launches
 * (values apart from each other and from every other count, so a swapped pass shows):
 *   tp 2, SP:    (15 + 4 + 3 + 30 + 4 + 5) x 100 us = 6.1 ms per block and micro-batch
 *   tp 2, no SP: (15 + 2 + 30 + 2) x 100 us = 4.9 ms, as without the knobs (nanotron's
 *                ALL_REDUCE mode launches the GEMMs of tp = 1)
 * The forward's 2.2 ms stays below the totals' gap (checked as above); the step grows by
 * 8 x 4 x (host - device) over the floor-off model's.
 */
static void test_host_floor_sp_launches(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 256, 4, 1024);
    const char *const on[] = {"launch_us=100", "layer_kernels_sp_fwd=3", "layer_kernels_sp_bwd=5",
                              NULL};
    const char *const off[] = {"launch_us=0", "layer_kernels_sp_fwd=3", "layer_kernels_sp_bwd=5",
                               NULL};
    g_autoptr(PrismCostModel) con = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, on);
    g_autoptr(PrismCostModel) coff = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, off);
    const char *const strat[] = {"tp=2,sp=1,mbs=1", "tp=2,mbs=1"};
    const double launches[] = {15.0 + 4.0 + 3.0 + 30.0 + 4.0 + 5.0, 15.0 + 2.0 + 30.0 + 2.0};
    const double fwd_launches[] = {22.0, 17.0};
    for (size_t k = 0; k < G_N_ELEMENTS(strat); k++)
        check_host_bound(con, coff, 2, strat[k], launches[k], fwd_launches[k]);
}

/*
 * The host floor of a host-bound forward before a device-bound backward (cost/README.md
 * "Latency-bound work"): the host queues kernels ahead of the device, so a pass of a
 * layer ends at max(device, host, host_f + device_b). With F the forward's device time
 * and B the backward's (the same small block as above, the floor off), one forward
 * launch of L = (F + (F + B)) / 2 seconds and no backward launches: the host's total L
 * is below the device's F + B (no gap by the totals), but the forward's L exceeds F, and
 * the backward cannot start before the host issued it: the pass takes L + B, a gap of
 * L - F per block and micro-batch (4 blocks, 8 micro-batches).
 */
static void test_host_floor_forward(void)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 256, 4, 1024);
    const char *const off[] = {"launch_us=0", NULL};
    g_autoptr(PrismCostModel) coff = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, off);
    PrismStrategy s = test_strategy(coff, 1, "mbs=1");
    PrismLayerTerms lt;
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(coff, &s, 1, &lt, NULL));
    const double f = lt.fwd_s, b = lt.bwd_s, l = (f + (f + b)) / 2.0;
    CU_ASSERT_TRUE_FATAL(f < l && l < f + b);
    g_autofree char *launch = g_strdup_printf("launch_us=%.17g", l * 1e6);
    const char *const on[] = {launch, "layer_kernels_fwd=1", "layer_kernels_bwd=0", NULL};
    g_autoptr(PrismCostModel) con = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, on);
    double a[PRISM_COL_COUNT], c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(con, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(coff, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_TIME_STEP] - c[PRISM_COL_TIME_STEP],
                                    8.0 * 4.0 * (l - f), 1e-9, 0));
}

/*
 * The loss's traffic (knob loss_bytes; cost/README.md "Elementwise traffic"). Fused (0):
 * (2 + 2 x logits_bytes) = 10 bytes per logit element in forward, x (1 + bwd_ratio) = 30
 * for both passes. nanotron's _ShardedCrossEntropy op by op, per element of its vocabulary
 * shard: forward cast to fp32 (read 2, write 4), max (read 4), subtract (4 + 4), exp (4 +
 * 4), sum (4), divide (4 + 4) = 38; backward multiply (4 + 4), cast back (4 + 2) = 14: 52.
 * V 51200, T = mbs 1 x seq 128, m = 8 micro-batches, HBM 2000 GB/s (the test cluster gives
 * none) x hbm_efficiency 0.8; the step grows by
 *   8 x 128 x 51200 / t x (52 - 30) / 1.6e12 = 7.2089600e-4 s at t = 1, half at t = 2
 * (each rank holds V/t of the logits). The host floor is off (launch_us 0).
 */
/* The step time that knob setting @p set adds to the 2-block test model (h 1024, V 51200;
 * 8 micro-batches of 128 tokens, the host floor off) is @p want1 / t at tp t = 1 and 2. */
static void check_step_added(const char *set, double want1)
{
    g_autoptr(PrismModel) m = test_gpt_model(2, 1024, 8, 51200);
    const char *const off[] = {"launch_us=0", NULL};
    const char *const on[] = {"launch_us=0", set, NULL};
    g_autoptr(PrismCostModel) c0 = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, off);
    g_autoptr(PrismCostModel) c1 = test_cost_model(m, 8, 128, PRISM_DTYPE_FP16, on);
    const char *const strat[] = {"mbs=1", "tp=2,mbs=1"};
    for (uint32_t t = 1; t <= 2; t++) {
        PrismStrategy s = test_strategy(c0, t, strat[t - 1]);
        double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c0, &s, a, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c1, &s, b, NULL));
        CU_ASSERT_TRUE(
            prism_test_close(b[PRISM_COL_TIME_STEP] - a[PRISM_COL_TIME_STEP], want1 / t, 1e-9, 0));
    }
}

static void test_loss_bytes(void)
{
    check_step_added("loss_bytes=52", 8.0 * 128.0 * 51200.0 * (52.0 - 30.0) / (2000e9 * 0.8));
}

/*
 * Layout copies (knob layout_copies; cost/README.md "Elementwise traffic"): nanotron's MHA
 * attention copies the q/k/v output (3 query widths: permute().contiguous()), cats k and v
 * (2) and makes them contiguous again (2) in forward, and in backward cats the k and v
 * gradients (2), stacks q, k and v (3) and copies that back to the qkv layout (3): 15
 * query-width tensors (a x d = h = 1024 here), each read and written at 2 bytes. Two
 * blocks, T = 128 tokens, m = 8 micro-batches, 1.6e12 B/s (2000 GB/s x 0.8):
 *   8 x 2 x 128 x 15 x 2 x 2 x 1024 / t / 1.6e12 = 7.864320e-5 s at t = 1, half at t = 2.
 */
static void test_layout_copies(void)
{
    check_step_added("layout_copies=15", 8.0 * 2.0 * 128.0 * 15.0 * 2.0 * 2.0 * 1024.0 / 1.6e12);
}

/* A model of one mixer-only block of @p mixer with @p ssm: h 1024, V 1000, RMSNorm. */
static PrismModel *ssm_model(PrismMixerKind mixer, PrismSsmSpec ssm)
{
    PrismModel *m = prism_model_new("test-ssm", "test");
    m->hidden = 1024;
    m->vocab = 1000;
    m->max_positions = 1u << 20;
    m->final_norm = PRISM_NORM_RMSNORM;
    PrismBlockSpec s;
    memset(&s, 0, sizeof s);
    s.mixer = mixer;
    s.ssm = ssm;
    s.no_mlp = TRUE;
    s.norm = PRISM_NORM_RMSNORM;
    const uint32_t id = prism_model_add_spec(m, &s);
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    prism_model_add_layer(m, PRISM_LAYER_BLOCK, id);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

/*
 * One Mamba-2 block (cost/README.md "State-space and linear-attention layers"): h 1024,
 * H 32 heads of P 64 (D 2048), G 4 groups of state N 64, conv K 4, chunk Q 128; bf16, no
 * dropout, mbs 1, seq 1024 (T = 1024 tokens). Forward FLOPs per token:
 *   in_proj 2 h (2D + 2GN + H) = 2 x 1024 x 4640        =  9,502,720
 *   out_proj 2 D h                                        =  4,194,304
 *   conv 2 K (D + 2GN) = 8 x 2560                         =     20,480
 *   scan 2Q (GN + HP) + 4 HPN + 2 HPN/Q = 589,824 + 524,288 + 2,048 = 1,116,160
 *   total 14,833,664 x 1024 tokens = 15,189,671,936 per micro-batch (t = 1; t = 2: half)
 * Activations per token, bytes: the norm's and in_proj's inputs 2 x 2h = 4,096; z, xBC
 * before and after the conv, dt, y, the gated norm's output 2 (5D + 4GN + H) = 22,592:
 * 26,688 x 1024 = 27,328,512 (none and selective: selective recompute leaves the layer
 * whole); t = 2 with SP: 13,664,256; full recompute: the input 2h x 1024 = 2,097,152.
 */
static void test_mamba2_block(void)
{
    static const char *const sets[] = {"dropout=0", NULL};
    const PrismSsmSpec ss = {.n_heads = 32,
                             .head_dim = 64,
                             .state = 64,
                             .n_groups = 4,
                             .conv_kernel = 4,
                             .chunk = 128,
                             .conv_bias = TRUE};
    g_autoptr(PrismModel) m = ssm_model(PRISM_MIXER_MAMBA2, ss);
    PrismLayerTerms lt;
    block_terms(m, 8, 1024, PRISM_DTYPE_BF16, sets, 1, "tp=1,mbs=1", &lt);
    CU_ASSERT_EQUAL(lt.flops_fwd, 14833664.0 * 1024.0);
    CU_ASSERT_EQUAL(lt.flops_fwd, 15189671936.0);
    CU_ASSERT_EQUAL(lt.act_bytes[0], 27328512.0);
    CU_ASSERT_EQUAL(lt.act_bytes[1], 27328512.0);
    CU_ASSERT_EQUAL(lt.act_bytes[2], 2097152.0);
    block_terms(m, 8, 1024, PRISM_DTYPE_BF16, sets, 2, "tp=2,sp=1,mbs=1", &lt);
    CU_ASSERT_EQUAL(lt.act_bytes[0], 13664256.0);
    CU_ASSERT_EQUAL(lt.flops_fwd, 15189671936.0 / 2.0);
    /* CP is Megatron-Core's all-to-all over heads: cp must divide heads/tp = 32/2 and
     * groups/tp = 2 and cp divide one another (cp 4: 2 divides 4, accepted; cp 8 with tp 8:
     * heads/tp = 4 not divisible by 8, refused) */
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 1024, PRISM_DTYPE_BF16, sets);
    PrismStrategy st = test_strategy(cm, 8, "tp=2,cp=4,mbs=1");
    CU_ASSERT_TRUE(prism_strategy_check(&st, m, prism_cost_model_training(cm), NULL));
    st = test_strategy(cm, 64, "tp=8,cp=8,mbs=1");
    GError *error = NULL;
    CU_ASSERT_FALSE(prism_strategy_check(&st, m, prism_cost_model_training(cm), &error));
    CU_ASSERT_TRUE(error != NULL && g_str_has_prefix(error->message, "R2:"));
    g_clear_error(&error);
}

/*
 * One gated-DeltaNet block: h 1024, Hk 4 key heads of dk 64, Hv 8 value heads of dv 64
 * (q and k repeated to 8 heads), conv K 4, chunk C 64; qk = 256, v = 512. Forward FLOPs per
 * token:
 *   in_proj 2 h (2 qk + 2 v + 2 Hv) = 2 x 1024 x 1552    =  3,178,496
 *   out_proj 2 v h                                        =  1,048,576
 *   conv 2 K (2 qk + v) = 8 x 1024                        =      8,192
 *   scan Hv (6 dk dv + 2C (3 dk + 2 dv) + C^2/3) = 8 (24,576 + 40,960 + 4096/3)
 *                                                         =    535,210.67
 * Activations per token, bytes: inputs 2 x 2h = 4,096; 2 x (in_proj's output 1552, the
 * conv's 1024, l2-normed q and k 512, the repeated q and k 1024, v 512, beta 8, A 8 x 64
 * = 512, the kernel's and the norm's outputs 1024) + the fp32 decay 4 x 8 = 12,368:
 * 16,464 x 1024 = 16,859,136. CP is refused (no framework runs it over these layers).
 */
static void test_gdn_block(void)
{
    static const char *const sets[] = {"dropout=0", NULL};
    const PrismSsmSpec ss = {
        .n_heads = 8, .head_dim = 64, .state = 64, .n_groups = 4, .conv_kernel = 4, .chunk = 64};
    g_autoptr(PrismModel) m = ssm_model(PRISM_MIXER_GDN, ss);
    PrismLayerTerms lt;
    block_terms(m, 8, 1024, PRISM_DTYPE_BF16, sets, 1, "tp=1,mbs=1", &lt);
    const double per_tok =
        3178496.0 + 1048576.0 + 8192.0 + 8.0 * (24576.0 + 40960.0 + 4096.0 / 3.0);
    CU_ASSERT_TRUE(prism_test_close(lt.flops_fwd, per_tok * 1024.0, 1e-12, 0));
    CU_ASSERT_EQUAL(lt.act_bytes[0], 16859136.0);
    CU_ASSERT_EQUAL(lt.act_bytes[1], 16859136.0);
    CU_ASSERT_EQUAL(lt.act_bytes[2], 2097152.0);
    g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 1024, PRISM_DTYPE_BF16, sets);
    PrismStrategy st = test_strategy(cm, 2, "tp=1,cp=2,mbs=1");
    GError *error = NULL;
    CU_ASSERT_FALSE(prism_strategy_check(&st, m, prism_cost_model_training(cm), &error));
    CU_ASSERT_TRUE(error != NULL && g_str_has_prefix(error->message, "R3:"));
    g_clear_error(&error);
}

static CU_TestInfo formula_tests[] = {
    {"Mamba-2 block by hand", test_mamba2_block},
    {"gated-DeltaNet block by hand", test_gdn_block},
    {"Korthikanti activations per layer", test_korthikanti},
    {"flash attention statistics", test_flash_attention},
    {"ZeRO static bytes per parameter", test_zero_bytes},
    {"DDP's bucket copy of the gradients", test_ddp_grad_copy},
    {"eager SwiGLU keeps silu's output", test_swiglu_unfused},
    {"the non-flash attention core streams its scores through HBM", test_core_score_traffic},
    {"the scores' softmax and dropout backward, counted", test_score_elementwise_backward},
    {"host synchronisations in a layer's forward", test_layer_host_syncs},
    {"the unfused softmax where Megatron's kernel condition fails", test_softmax_fusion_rule},
    {"host synchronisations of loading a micro-batch (mb_host_syncs)", test_mb_host_syncs},
    {"host synchronisations of the optimizer step (step_layer_syncs)", test_step_layer_syncs},
    {"host synchronisations once per optimizer step (step_host_syncs)", test_step_host_syncs},
    {"16-bit gradients held to the end of backward", test_grad_lowp_kept},
    {"ZeRO-1's flat gather buffers after the optimizer step", test_zero1_gather_copies},
    {"nanotron's persistent TP gather buffers by hand", test_tp_gather_buffers},
    {"Narayanan model and hardware FLOPs", test_narayanan_flops},
    {"ring all-reduce, TP in a node", test_ring_allreduce_tp},
    {"ring all-reduce, DP across nodes", test_ring_allreduce_dp},
    {"NCCL's network steps of DP groups over k nodes", test_nccl_inter_steps},
    {"NCCL's network steps of a TP group over two nodes", test_nccl_tp_two_nodes},
    {"a level's own ring-step latencies (nccl_hop_*_us, EFA's)", test_nccl_level_hops},
    {"every declared network level priced (7 levels)", test_deep_levels},
    {"messages per pipeline transfer (pp_p2p_msgs)", test_pp_p2p_msgs},
    {"host synchronisations per pipeline transfer (pp_p2p_host_syncs)", test_pp_p2p_host_syncs},
    {"DeepSpeed's partitioned pipeline transfers (pp_tp_partitioned)", test_pp_tp_partitioned},
    {"the MoE dispatcher's token-count exchange (moe_count_sync)", test_moe_count_sync},
    {"a pipeline boundary at the level joining two nodes", test_pp_boundary_level},
    {"bubble fractions 1F1B and interleaved", test_bubble},
    {"1F1B bubble exactly", test_bubble_exact},
    {"knobs JSON: shortest round-trip numbers", test_knobs_json},
    {"memory bandwidth from the cluster, knob override", test_cluster_hbm},
    {"backward working set", test_bwd_working_set},
    {"gradient accumulation traffic", test_grad_accum},
    {"zb-v, dualpipe, dualpipe-v, seq1f1b: in-flight and bubble by hand", test_new_schedules},
    {"dualpipe-v hides the MoE all-to-all", test_dualpipe_overlap},
    {"parallel folding: expert memory and EP volumes", test_folded_moe},
    {"shared_expert_overlap hides the EP all-to-alls by hand", test_shared_expert_overlap},
    {"recompute_moe_act: the experts' activation by hand", test_recompute_moe_act},
    {"ep_a2a_overlap: the all-to-alls under another micro-batch", test_ep_a2a_overlap},
    {"DeepSeek-V3's H800 layout under its report's savings by hand", test_deepseek_v3_layout},
    {"act_cache_fp8 and recompute_norm by hand", test_act_cache_fp8},
    {"moe_probs_in_act by hand", test_moe_probs_in_act},
    {"selective policy: per-op SAC", test_selective_policy},
    {"selective policy: per-op SAC with SDPA recomputed", test_selective_policy_sdpa_recomputed},
    {"loss backward: eager cross-entropy copy", test_loss_bwd_extra},
    {"eager elementwise: RoPE passes", test_elementwise_eager},
    {"offload: optimizer state to the host (CPU Adam, transfers, mem_host)",
     test_offload_optimizer},
    {"offload: activations per layer (exposed copies, device and host bytes)",
     test_offload_activations},
    {"tp_layout_copy and per-op SAC's all-gathers", test_tp_layout_copy},
    {"fsdp_pp_nosync: gathered stage, unsharded gradients", test_fsdp_pp_nosync},
    {"memory kinds: allocated, reserved, device by hand", test_memory_kinds},
    {"memory kinds: FSDP2's all-gather stream pool by hand", test_fsdp_gather_pool},
    {"memory kinds: TP inputs NCCL's recordStream holds by hand", test_tp_freed_inputs},
    {"nic_spread: a DP group crosses nodes on its members' NICs", test_nic_spread},
    {"nic_spread for TP across nodes; the all-gather / reduce-scatter figure",
     test_tp_nics_and_gather},
    {"zero_sync_exposed: ZeRO's collectives outside compute", test_zero_sync_exposed},
    {"zero1_grad_allreduce: ZeRO-1's whole-gradient all-reduce by hand", test_zero1_grad_allreduce},
    {"tied embeddings under a pipeline: the step's gradient all-reduce by hand",
     test_tied_grad_sync},
    {"sp_saves_gathered: DTensor SP keeps the gathered inputs", test_sp_saves_gathered},
    {"kv_repeat: repeated K/V kept and exchanged by CP, by hand", test_kv_repeat},
    {"tp_overlap dim: exposed TP time and userbuffers by hand", test_tp_overlap_dim},
    {"dp_overlap and param_overlap dims: the DP time's shares by hand", test_dp_overlap_dims},
    {"nccl_model: a 1 MiB and a 1 GiB all-reduce on an 8-GPU NVLink ring", test_nccl_latency_curve},
    {"host floor: launches of a small block by hand", test_host_floor},
    {"host floor: the TP collectives' launches at tp 1, 2 and with SP", test_host_floor_tp},
    {"host floor: a framework's own launches under SP at tp > 1", test_host_floor_sp_launches},
    {"host floor: a host-bound forward before a device-bound backward", test_host_floor_forward},
    {"loss_bytes: the cross-entropy run op by op", test_loss_bytes},
    {"layout_copies: q/k/v permutes and cats", test_layout_copies},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cost_formulas", NULL, NULL, NULL, NULL, formula_tests},
    CU_SUITE_INFO_NULL,
};
