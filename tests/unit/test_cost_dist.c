// SPDX-License-Identifier: MIT
/*
 * test_cost_dist.c - data and context parallelism of the cost model against values
 * derived by hand (each derivation is in the comment above its check): FSDP/ZeRO-3
 * prefetch overlap, reshard-after-forward memory, HSDP volumes per network level, the
 * bucketed distributed-optimizer overlap, causal CP load balance (zig-zag vs contiguous),
 * Ulysses all-to-all volumes, the exposed part of the ring's K/V exchange, and the
 * executed vs model attention FLOPs.
 *
 * Model unless stated: GPT-style (test_gpt_model), L = 4, h = 4096, a = 32 (head dim
 * 128, MHA), ffn 4h, LayerNorm, no biases, untied head, RoPE, V = 51200; fp16 (2-byte
 * parameters, fp32 gradients: grad_fp32 = 1). Cluster (test_cluster): 8 devices per node
 * at 300 GB/s and 5 us, then 25 GB/s and 10 us; net_efficiency 0.8 gives 240e9 and
 * 20e9 B/s; peak 312e12 FLOP/s at compute_efficiency 0.8 = 2.496e14 FLOP/s.
 * Parameter counts: block P_b = 12h^2 + 4h = 201,342,976; embedding V h = 209,715,200;
 * head V h + 2h = 209,723,392; total P = 4 P_b + 2 V h + 2h = 1,224,810,496.
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/cost.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

#define H 4096.0
#define PB (12.0 * H * H + 4.0 * H)
#define PEMB (51200.0 * H)
#define PHEAD (51200.0 * H + 2.0 * H)
#define PTOT (4.0 * PB + PEMB + PHEAD)
#define BW0 (300e9 * 0.8)
#define BW1 (25e9 * 0.8)
#define RATE (312e12 * 0.8)

/* Every derivation here prices a DP group at one device's NIC (nic_spread = 0; the
 * multi-NIC rule is test_cost_formulas' "nic_spread").
 * The attention core at the large-GEMM rate RATE (forward fraction 0.8; backward, priced
 * as 2.5x the forward's matmul FLOPs over fraction 1.0, = bwd_ratio 2 x forward at 0.8), so
 * the hand derivations below can count the core at RATE like the GEMMs. The derivations
 * use the per-step latency model (nccl_model = 0: the level's latency_us per step, no
 * base latency) and no host floor (launch_us = 0); both are derived by hand in
 * test_cost_formulas. */
static PrismCostModel *dist_model(const PrismModel *m, uint64_t gbs, uint64_t seq,
                                  const char *const *sets)
{
    const char *all[16] = {"attn_fwd_fraction=0.8", "attn_bwd_fraction=1", "nccl_model=0",
                           "launch_us=0", "nic_spread=0"};
    size_t n = 5;
    for (const char *const *s = sets; s != NULL && *s != NULL && n < 15; s++)
        all[n++] = *s;
    all[n] = NULL;
    return test_cost_model(m, gbs, seq, PRISM_DTYPE_FP16, all);
}

static PrismCostModel *model_with(uint64_t gbs, uint64_t seq, const char *const *sets)
{
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    return dist_model(m, gbs, seq, sets);
}

static void layer(const PrismCostModel *cm, const PrismStrategy *s, uint32_t l, PrismLayerTerms *t)
{
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, s, l, t, NULL));
}

/*
 * FSDP prefetch overlap of one block (layer 1), ZeRO-3, per micro-batch.
 * All-gather of the block in fp16 over the shard group of n ranks: each rank receives
 * (n-1)/n of 2 P_b bytes in n-1 steps; the reduce-scatter moves (n-1)/n of the fp32
 * gradients (4 P_b):
 *   AG = 2 P_b (n-1)/n / BW + (n-1) LAT,   RS = 4 P_b (n-1)/n / BW + (n-1) LAT.
 * The unit exposes max(0, AG - W_f) + max(0, AG + RS - W_b) (resharded: gathered again
 * in backward) and, if it leads its stage, min(AG, W_f) + min(AG + RS, W_b); W_f and W_b
 * are the unit's forward and backward time (the layer API's fwd_s and bwd_s).
 *
 * (a) comm < compute: dp = 8 in one node (240e9 B/s, 5 us), mbs 8, seq 2048:
 *     AG = 402,685,952 * 7/8 / 240e9 + 35e-6 = 1.50313e-3 s, RS = 2.97126e-3 s, while the
 *     forward alone is > 2 * 12h^2 * 16384 / 2.496e14 = 26.4 ms: fully hidden, exposed 0,
 *     lead = AG + (AG + RS).
 * (b) comm > compute: dp = 16 over two nodes (20e9 B/s, 10 us), mbs 1, seq 256:
 *     AG = 402,685,952 * 15/16 / 20e9 + 150e-6 = 19.0259e-3 s against a forward of
 *     < 1 ms (2 * 12h^2 * 256 / 2.496e14 = 0.41 ms of GEMMs) and a backward < 3 ms:
 *     exposed (AG - W_f) + (AG + RS - W_b), lead W_f + W_b.
 * (c) as (b) without reshard-after-forward: backward moves only RS.
 */
static void test_fsdp_overlap(void)
{
    g_autoptr(PrismCostModel) ca = model_with(64, 2048, NULL);
    PrismStrategy sa = test_strategy(ca, 8, "dp=8,mbs=8,zero=3");
    PrismLayerTerms t;
    layer(ca, &sa, 1, &t);
    const double ag_a = 2.0 * PB * 7.0 / 8.0 / BW0 + 7.0 * 5e-6;
    const double rs_a = 4.0 * PB * 7.0 / 8.0 / BW0 + 7.0 * 5e-6;
    CU_ASSERT_TRUE(prism_test_close(ag_a, 1.50313e-3, 1e-5, 0));
    CU_ASSERT_TRUE(t.fwd_s > 2.0 * 12.0 * H * H * 16384.0 / RATE);
    CU_ASSERT_EQUAL(t.fsdp_s[0], 0.0);
    CU_ASSERT_TRUE(prism_test_close(t.fsdp_lead_s[0], ag_a + (ag_a + rs_a), 1e-12, 0));

    g_autoptr(PrismCostModel) cb = model_with(16, 256, NULL);
    PrismStrategy sb = test_strategy(cb, 16, "dp=16,mbs=1,zero=3");
    layer(cb, &sb, 1, &t);
    const double ag_b = 2.0 * PB * 15.0 / 16.0 / BW1 + 15.0 * 10e-6;
    const double rs_b = 4.0 * PB * 15.0 / 16.0 / BW1 + 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(ag_b, 19.0259e-3, 1e-5, 0));
    CU_ASSERT_TRUE(t.fwd_s < 1e-3 && t.bwd_s < 3e-3);
    CU_ASSERT_TRUE(
        prism_test_close(t.fsdp_s[0], (ag_b - t.fwd_s) + (ag_b + rs_b - t.bwd_s), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(t.fsdp_lead_s[0], t.fwd_s + t.bwd_s, 1e-12, 0));
    /* full recompute widens the backward window by the recomputed forward */
    CU_ASSERT_TRUE(prism_test_close(
        t.fsdp_s[2], (ag_b - t.fwd_s) + (ag_b + rs_b - t.bwd_s - t.recompute_s[2]), 1e-12, 0));

    static const char *const keep[] = {"fsdp_reshard=0", NULL};
    g_autoptr(PrismCostModel) cc = model_with(16, 256, keep);
    layer(cc, &sb, 1, &t);
    CU_ASSERT_TRUE(prism_test_close(t.fsdp_s[0], (ag_b - t.fwd_s) + (rs_b - t.bwd_s), 1e-12, 0));

    /* the step: dp_time = m * (sum over the stage's units + the largest lead), and the
     * step holds it once per micro-batch (pp = 1: step = m T + dp + optimizer) */
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cb, &sb, c, NULL));
    const PrismModel *mod = prism_cost_model_model(cb);
    double sum = 0, lead = 0, stage = 0;
    for (uint32_t l = 0; l < mod->n_layers; l++) {
        layer(cb, &sb, l, &t);
        sum += t.fsdp_s[0];
        lead = MAX(lead, t.fsdp_lead_s[0]);
        stage += t.fwd_s + t.bwd_s;
    }
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], sb.m * (sum + lead), 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_STEP],
                                    sb.m * (stage + sum + lead) + c[PRISM_COL_TIME_OPTIMIZER],
                                    1e-12, 0));
}

/*
 * Reshard-after-forward and memory, ZeRO-3 over dp = 8, pp = 1, fp16 parameters:
 *   resharded: parameters 2 P / 8; buffers = (zero3_prefetch 2 gathered units + the
 *     unit's fp16 gradients + its fp32 reduce-scatter input, 4/2 of the unit) x the
 *     largest unit's 2 P_head bytes + runtime_overhead (the cuBLAS workspace, 32 MiB) =
 *     (2 + 1 + 2) * 2 P_head + 33,554,432;
 *   kept (fsdp_reshard = 0): parameters 2 P (every unit stays gathered from forward to
 *     backward, ZeRO-2 memory); buffers (1 + 2) * 2 P_head + 33,554,432.
 * Gradients and optimizer are sharded either way: 4 P / 8 and 12 P / 8.
 */
static void test_reshard_memory(void)
{
    static const char *const keep[] = {"fsdp_reshard=0", NULL};
    g_autoptr(PrismCostModel) c1 = model_with(8, 2048, NULL);
    g_autoptr(PrismCostModel) c0 = model_with(8, 2048, keep);
    PrismStrategy s = test_strategy(c1, 8, "dp=8,zero=3");
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c1, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c0, &s, b, NULL));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_MEM_PARAMS], 2.0 * PTOT / 8.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_PARAMS], 2.0 * PTOT, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_MEM_GRADS], 4.0 * PTOT / 8.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_GRADS], 4.0 * PTOT / 8.0, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(a[PRISM_COL_MEM_COMM_BUFFERS], 5.0 * 2.0 * PHEAD + 33554432.0, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(b[PRISM_COL_MEM_COMM_BUFFERS], 3.0 * 2.0 * PHEAD + 33554432.0, 1e-12, 0));
}

/*
 * HSDP volumes per level: dp = 16 over two nodes, tp = 1, m = 2 (gbs 32, mbs 1).
 * ZeRO-3 per parameter per micro-batch: shard group n_s = 8 (the node), n_r = 2:
 *   level 0: (g + 2p)(n_s-1)/n_s = (4 + 4) 7/8 = 7 B; level 1: the all-reduce of the
 *   fp32 gradient shard, 2 g / n_s (n_r-1)/n_r = 2*4/8 * 1/2 = 0.5 B.
 *   bytes_l0 = m 7 P, bytes_l1 = m 0.5 P. Without HSDP: all 16 ranks, level 1:
 *   m (4 + 4) 15/16 P = m 7.5 P, nothing on level 0.
 * Static: optimizer state sharded 8 ways with HSDP (12 P / 8), 16 without.
 * ZeRO-1 with HSDP, per step: level 0 (g + p) 7/8 = 5.25 B, level 1 0.5 B.
 */
static void test_hsdp_levels(void)
{
    static const char *const on[] = {"hsdp=1", NULL};
    g_autoptr(PrismCostModel) ch = model_with(32, 2048, on);
    g_autoptr(PrismCostModel) cf = model_with(32, 2048, NULL);
    PrismStrategy s = test_strategy(ch, 16, "dp=16,mbs=1,zero=3");
    CU_ASSERT_EQUAL(s.m, 2);
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(ch, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cf, &s, b, NULL));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_BYTES_L0], 2.0 * 7.0 * PTOT, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_BYTES_L1], 2.0 * 0.5 * PTOT, 1e-12, 0));
    CU_ASSERT_EQUAL(b[PRISM_COL_BYTES_L0], 0.0);
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_BYTES_L1], 2.0 * 7.5 * PTOT, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_MEM_OPTIMIZER], 12.0 * PTOT / 8.0, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_MEM_OPTIMIZER], 12.0 * PTOT / 16.0, 1e-12, 0));
    /* the per-unit collectives of a block: all-gather in the node, backward reduce-scatter
     * in the node + all-reduce of the shard across the 2 replicas:
     *   AG = 2 P_b 7/8 / BW0 + 7 LAT0,
     *   RS = 4 P_b 7/8 / BW0 + 7 LAT0 + 2 * (4 P_b / 8) * 1/2 / BW1 + 2 LAT1.
     * Whatever the windows, exposed + lead = max(0, x - w) + min(x, w) = x per direction,
     * so fsdp_s + fsdp_lead_s = AG + (AG + RS). */
    PrismLayerTerms t;
    layer(ch, &s, 1, &t);
    const double ag = 2.0 * PB * 7.0 / 8.0 / BW0 + 7.0 * 5e-6;
    const double rs =
        4.0 * PB * 7.0 / 8.0 / BW0 + 7.0 * 5e-6 + 2.0 * (4.0 * PB / 8.0) * 0.5 / BW1 + 2.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(t.fsdp_s[0] + t.fsdp_lead_s[0], 2.0 * ag + rs, 1e-12, 0));
    PrismStrategy s1 = test_strategy(ch, 16, "dp=16,mbs=1,zero=1");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(ch, &s1, a, NULL));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_BYTES_L0], 5.25 * PTOT, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(a[PRISM_COL_BYTES_L1], 0.5 * PTOT, 1e-12, 0));
}

/*
 * Megatron's distributed optimizer with overlapped grad-reduce and param-gather
 * (dp_bucket > 0), ZeRO-1, dp = 16 over two nodes, pp = 1. Per step the ring
 * reduce-scatter of fp32 gradients and all-gather of fp16 parameters cost
 *   C = (4 + 2) * 15/16 * P / 20e9 + 2 * 15 * 10e-6;
 * a share g/(g+p) = 2/3 runs in the last backward (window W_b), 1/3 in the next forward
 * (W_f). Each exposes max(one bucket, comm - window); a bucket is q = 4e7 / P of it.
 * (a) mbs 8, seq 2048: the windows (> 0.3 s backward, > 0.15 s forward) cover
 *     C_b (1 - q) = 0.22 s and C_f (1 - q) = 0.11 s, so dp_time = q C_b + q C_f = q C.
 * (b) mbs 1, seq 128: the windows are small, dp_time = (C_b - W_b) + (C_f - W_f) =
 *     C - (W_f + W_b), with W_f + W_b = the stage's forward + backward time.
 */
static void test_bucketed_dp(void)
{
    static const char *const sets[] = {"dp_bucket=4e7", NULL};
    const double C = 6.0 * 15.0 / 16.0 * PTOT / BW1 + 2.0 * 15.0 * 10e-6;
    g_autoptr(PrismCostModel) ca = model_with(128, 2048, sets);
    PrismStrategy sa = test_strategy(ca, 16, "dp=16,mbs=8,zero=1");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(ca, &sa, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 4e7 / PTOT * C, 1e-12, 0));

    g_autoptr(PrismCostModel) cb = model_with(16, 128, sets);
    PrismStrategy sb = test_strategy(cb, 16, "dp=16,mbs=1,zero=1");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cb, &sb, c, NULL));
    const PrismModel *mod = prism_cost_model_model(cb);
    double w = 0;
    for (uint32_t l = 0; l < mod->n_layers; l++) {
        PrismLayerTerms t;
        layer(cb, &sb, l, &t);
        w += t.fwd_s + t.bwd_s;
    }
    CU_ASSERT_TRUE(w < C / 3.0);
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], C - w, 1e-9, 0));
    /* (c) Megatron-Core's bucket grows with the DP x CP group: max(dp_bucket,
     * dp_bucket_per_rank x dp x cp). In (a)'s long windows the exposed share is q = B/P:
     * per rank 5e6 x dp 16 = 8e7 > 4e7, so dp_time = 8e7/P C; per rank 1e6 x 16 = 1.6e7 <
     * 4e7 keeps (a)'s 4e7/P C. */
    static const char *const grow[] = {"dp_bucket=4e7", "dp_bucket_per_rank=5e6", NULL};
    static const char *const keep[] = {"dp_bucket=4e7", "dp_bucket_per_rank=1e6", NULL};
    g_autoptr(PrismCostModel) cg = model_with(128, 2048, grow);
    g_autoptr(PrismCostModel) ck = model_with(128, 2048, keep);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cg, &sa, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 8e7 / PTOT * C, 1e-12, 0));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(ck, &sa, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 4e7 / PTOT * C, 1e-12, 0));
    /* dp_bucket = 0 keeps the legacy (1 - dp_overlap) C = 0.5 C */
    g_autoptr(PrismCostModel) cl = model_with(16, 128, NULL);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cl, &sb, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 0.5 * C, 1e-12, 0));
}

/*
 * torch DDP as Megatron-LM 2021 ran it for SC21's pp = 1 rows: ZeRO-0, fp16 gradients
 * reduced (grad_reduce_bytes = 2) beside the fp32 main gradient (grad_fp32 = 1), buckets
 * of 25 MiB / 2 B = 13,107,200 parameters. dp = 16 over two nodes, mbs 8, seq 2048 (the
 * long windows of test_bucketed_dp (a)). The ring all-reduce moves 2 (n-1)/n of the
 * reduced bytes in 2 (n-1) steps:
 *   C2 = 2 * 2 * 15/16 * P / 20e9 + 2 * 15 * 10e-6 = 0.229952 s (fp16),
 *   C4 = 2 * 4 * 15/16 * P / 20e9 + 2 * 15 * 10e-6 = 0.459604 s (fp32, grad_reduce_bytes 0).
 * Without overlap (dp_overlap 0) the whole C is exposed; with the buckets only the last one
 * (the backward window, > 0.3 s, covers C2 (1 - q)): q C2 with q = 13,107,200 / P =
 * 0.0107013, 2.46078e-3 s.
 */
static void test_ddp_fp16_buckets(void)
{
    const double C2 = 4.0 * 15.0 / 16.0 * PTOT / BW1 + 2.0 * 15.0 * 10e-6;
    const double C4 = 8.0 * 15.0 / 16.0 * PTOT / BW1 + 2.0 * 15.0 * 10e-6;
    CU_ASSERT_TRUE(prism_test_close(C2, 0.229952, 1e-5, 0));
    static const char *const fp32[] = {"dp_overlap=0", NULL};
    static const char *const fp16[] = {"dp_overlap=0", "grad_reduce_bytes=2", NULL};
    static const char *const ddp[] = {"grad_reduce_bytes=2", "dp_bucket=13107200", NULL};
    g_autoptr(PrismCostModel) c4 = model_with(128, 2048, fp32);
    g_autoptr(PrismCostModel) c2 = model_with(128, 2048, fp16);
    g_autoptr(PrismCostModel) cd = model_with(128, 2048, ddp);
    PrismStrategy s = test_strategy(c4, 16, "dp=16,mbs=8,zero=0");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c4, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], C4, 1e-12, 0));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c2, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], C2, 1e-12, 0));
    /* the gradient memory stays the fp32 main gradient's: only the reduction is fp16 */
    double m2 = c[PRISM_COL_MEM_PEAK];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c4, &s, c, NULL));
    CU_ASSERT_EQUAL(m2, c[PRISM_COL_MEM_PEAK]);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cd, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 13107200.0 / PTOT * C2, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 2.46078e-3, 1e-4, 0));
}

/*
 * Causal context parallelism, load balance. seq 16384, cp = 4 in one node, mbs 1: each
 * rank holds T = 4096 queries; the executed attention core per token is
 * 4 a d s (1 - causal_skip) = 4*32*128*16384*0.5 = 134,217,728 FLOPs, so one forward core
 * is core = 4096 * 134,217,728 / 2.496e14 = 2.2026e-3 s (t = 1).
 * Contiguous chunks: rank r attends to r full blocks and half its diagonal block; the
 * last rank does c - 1/2 = 3.5 blocks against the mean c/2 = 2: ratio (2c-1)/c = 1.75,
 * and it paces every ring step. Zig-zag (2c chunks, rank r holds r and 2c-1-r) gives
 * every rank the mean. Excess = 0.75 core per forward, 0.75 bwd_ratio core per backward:
 * per layer and micro-batch cp_imbalance = 0.75 (1 + 2) core; per step (m = 4 micro-
 * batches, L = 4 blocks) cp_time(contiguous) - cp_time(zig-zag) = 16 * 2.25 core.
 * The ring exchange itself is hidden in both: one step moves T * 2 g d 2 B = 67.1 MB in
 * 0.280 ms + 5 us while a step computes core/4 = 0.551 ms (backward: twice both).
 */
static void test_cp_load_balance(void)
{
    static const char *const naive[] = {"cp_load_balance=0", NULL};
    g_autoptr(PrismCostModel) cz = model_with(4, 16384, NULL);
    g_autoptr(PrismCostModel) cn = model_with(4, 16384, naive);
    PrismStrategy s = test_strategy(cz, 4, "cp=4,mbs=1");
    CU_ASSERT_EQUAL(s.m, 4);
    const double core = 4096.0 * (4.0 * 32.0 * 128.0 * 16384.0 * 0.5) / RATE;
    CU_ASSERT_TRUE(prism_test_close(core, 2.2026e-3, 1e-4, 0));
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cz, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cn, &s, b, NULL));
    CU_ASSERT_EQUAL(a[PRISM_COL_TIME_CP_COMM], 0.0);
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_CP_COMM], 16.0 * 2.25 * core, 1e-12, 0));
    PrismLayerTerms x, y;
    layer(cz, &s, 1, &x);
    layer(cn, &s, 1, &y);
    CU_ASSERT_TRUE(prism_test_close(y.fwd_s - x.fwd_s, 0.75 * core, 1e-9, 0));
    CU_ASSERT_TRUE(prism_test_close(y.bwd_s - x.bwd_s, 1.5 * core, 1e-9, 0));
}

/*
 * Exposed K/V exchange of the ring, per step. cp = 16 over two nodes (20e9 B/s, 10 us),
 * seq 4096, mbs 1: T = 256 tokens per rank; a step sends the local K and V,
 * T * 2 g d * 2 B = 256 * 16384 = 4,194,304 B: step = 4194304 / 20e9 + 10e-6 s. It
 * overlaps the attention core of one chunk, core/c with core = T * 4 a d s * 0.5 /
 * 2.496e14 = 256 * 33,554,432 / 2.496e14 = 3.4415e-5 s. Forward: 15 steps exposing
 * step - core/16 each; backward moves K/V and their gradients (2 step) against
 * bwd_ratio core/16: 15 (2 step - 2 core/16). Per step: m = 16 micro-batches x L = 4.
 */
static void test_cp_ring_exposed(void)
{
    g_autoptr(PrismCostModel) cm = model_with(16, 4096, NULL);
    PrismStrategy s = test_strategy(cm, 16, "cp=16,mbs=1");
    CU_ASSERT_EQUAL(s.m, 16);
    const double step = 256.0 * 16384.0 / BW1 + 10e-6;
    const double core = 256.0 * (4.0 * 32.0 * 128.0 * 4096.0 * 0.5) / RATE;
    const double per_layer = 15.0 * (step - core / 16.0) + 15.0 * (2.0 * step - 2.0 * core / 16.0);
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_CP_COMM], 16.0 * 4.0 * per_layer, 1e-12, 0));
    /* cp_overlap = 0: nothing hides the exchange, 15 * 3 steps exposed */
    static const char *const none[] = {"cp_overlap=0", NULL};
    g_autoptr(PrismCostModel) c0 = model_with(16, 4096, none);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(c0, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_CP_COMM], 16.0 * 4.0 * 45.0 * step, 1e-12, 0));
}

/*
 * Ulysses all-to-all (Jacobs et al. 2023, DeepSpeed-Ulysses): cp = 4, tp = 1, seq 8192,
 * mbs 1, T = 2048. Before the attention each rank sends (c-1)/c of its Q, K, V and after
 * it of the output: per token Q + O = 2 a d 2 B = 16384 B, K + V = 2 g d 2 B = 16384 B
 * (MHA, g = 32 >= c). Forward and backward each move (c-1)/c T (QO + KV):
 *   bytes per layer per micro-batch = 2 * 3/4 * 2048 * 32768 = 100,663,296;
 *   bytes_l0 = m L that = 4 * 4 * 100,663,296, plus the gradient all-reduce over the
 *   dp x cp = 4 ranks that hold the same parameters: 2 * 4 B * 3/4 * P = 6 P.
 * GQA block: 10 h^2 (Q, O, MLP) + 2 h g d (K, V) + 4 h parameters.
 * Time per all-to-all pass: 3/4 * 2048 * 32768 / 240e9 + 3 * 5e-6; two passes per layer.
 * GQA with g = 2 < c = 4: each rank's 2 KV heads are repeated to c = 4 before the
 * all-to-all, K + V = 4 * 2 d 2 B = 2048 B per token, QO unchanged.
 * Heads/cp not whole (a = 12, cp = 8): the ring is used, bytes as with cp_algo = 0;
 * h = 768 model: P = 4 (12 h^2 + 4 h) + 2 V h + 2 h, all-reduce 2 * 4 * 7/8 P.
 */
static void test_ulysses(void)
{
    static const char *const uly[] = {"cp_algo=1", NULL};
    g_autoptr(PrismCostModel) cm = model_with(4, 8192, uly);
    PrismStrategy s = test_strategy(cm, 4, "cp=4,mbs=1");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, c, NULL));
    CU_ASSERT_TRUE(
        prism_test_close(c[PRISM_COL_BYTES_L0], 16.0 * 100663296.0 + 6.0 * PTOT, 1e-12, 0));
    const double pass = 0.75 * 2048.0 * 32768.0 / BW0 + 3.0 * 5e-6;
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_CP_COMM], 16.0 * 2.0 * pass, 1e-12, 0));

    g_autoptr(PrismModel) gq = test_gpt_model(4, 4096, 32, 51200);
    gq->specs[0].attn.n_kv_heads = 2;
    g_autoptr(PrismCostModel) cg = dist_model(gq, 4, 8192, uly);
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cg, &s, c, NULL));
    const double p_gqa = 4.0 * (10.0 * H * H + 2.0 * H * 2.0 * 128.0 + 4.0 * H) + PEMB + PHEAD;
    CU_ASSERT_TRUE(prism_test_close(
        c[PRISM_COL_BYTES_L0], 16.0 * 2.0 * 0.75 * 2048.0 * (16384.0 + 4.0 * 512.0) + 6.0 * p_gqa,
        1e-12, 0));

    g_autoptr(PrismModel) m12 = test_gpt_model(4, 768, 12, 51200);
    g_autoptr(PrismCostModel) u12 = dist_model(m12, 8, 8192, uly);
    g_autoptr(PrismCostModel) r12 = dist_model(m12, 8, 8192, NULL);
    PrismStrategy s8 = test_strategy(u12, 8, "cp=8,mbs=1");
    double u[PRISM_COL_COUNT], r[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(u12, &s8, u, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(r12, &s8, r, NULL));
    CU_ASSERT_EQUAL(u[PRISM_COL_BYTES_L0], r[PRISM_COL_BYTES_L0]);
    /* ring bytes: 3 passes (K/V forward; K/V and their gradients backward) of
     * (c-1) T 2 g d 2 B = 7 * 1024 * 3072 per layer, m = 8, L = 4 */
    const double p12 = 4.0 * (12.0 * 768.0 * 768.0 + 4.0 * 768.0) + 2.0 * 51200.0 * 768.0 + 1536.0;
    CU_ASSERT_TRUE(prism_test_close(
        r[PRISM_COL_BYTES_L0],
        8.0 * 4.0 * 3.0 * 7.0 * 1024.0 * 3072.0 + 2.0 * 4.0 * 7.0 / 8.0 * p12, 1e-12, 0));
}

/*
 * Executed vs model attention FLOPs. Flash attention executes the causal half of the core.
 * Per device per step, with cp = 4 and with dp = 4 (gbs 4, mbs 1, seq 8192, same device
 * count) the executed FLOPs are the same (each cp rank runs 4 micro-batches of s/4
 * queries against the full s keys):
 *   executed = 3 s (L (24 h^2 + 4 h s * 0.5) + 2 h V) per device.
 * The model FLOPs of MFU (x step x N x peak, the whole step of 4 sequences) count the core
 * as executed by default (mfu_core 0): 4 x executed; with mfu_core 1 the full core, the
 * published convention of torchtitan and of Megatron-LM before 2025 (6N + 12 L h s per
 * token): 3 * 4 s (L (24 h^2 + 4 h s) + 2 h V).
 */
static void test_core_flops(void)
{
    static const char *const full_core[] = {"mfu_core=1", NULL};
    g_autoptr(PrismCostModel) cm = model_with(4, 8192, NULL);
    g_autoptr(PrismCostModel) cf = model_with(4, 8192, full_core);
    const double s = 8192.0, L = 4.0, V = 51200.0;
    const double exec = 3.0 * s * (L * (24.0 * H * H + 4.0 * H * s * 0.5) + 2.0 * H * V);
    const double model = 3.0 * 4.0 * s * (L * (24.0 * H * H + 4.0 * H * s) + 2.0 * H * V);
    const char *texts[] = {"cp=4,mbs=1", "dp=4,mbs=1"};
    for (int k = 0; k < 2; k++) {
        PrismStrategy st = test_strategy(cm, 4, texts[k]);
        double c[PRISM_COL_COUNT], f[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &st, c, NULL));
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cf, &st, f, NULL));
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_FLOPS_PER_DEVICE], exec, 1e-12, 0));
        CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_MFU] * c[PRISM_COL_TIME_STEP] * 4.0 * 312e12,
                                        4.0 * exec, 1e-12, 0));
        CU_ASSERT_EQUAL(f[PRISM_COL_TIME_STEP], c[PRISM_COL_TIME_STEP]);
        CU_ASSERT_TRUE(prism_test_close(f[PRISM_COL_MFU] * f[PRISM_COL_TIME_STEP] * 4.0 * 312e12,
                                        model, 1e-12, 0));
    }
}

/*
 * TP overlap as Transformer Engine's userbuffers run it (tp_ub_sms = k > 0), tp = 8 with SP
 * in one node, on a device of S = 128 SMs, no recompute. Per all-reduce-equivalent (an
 * all-gather and a reduce-scatter of equal time t), forward: the ring-exchange all-gather
 * is hidden, its GEMM losing k_r/S = 1/128 while it runs; the pipelined reduce-scatter in
 * n = 4 chunks exposes its last chunk t/4 and hides 3t/4 at k/S = 16/128 of the GEMM:
 *   x_f = 1/2 (1/128) + 1/2 (1/4 + 3/4 * 16/128) = 0.00390625 + 0.171875 = 0.17578125.
 * Backward: ring all-gather (1/128) and bulk reduce-scatter (16/128), both hidden:
 *   x_b = 1/2 (1/128 + 16/128) = 0.06640625.
 * Every all-reduce-equivalent moves T h bytes (the same time u in every kind); per micro-
 * batch the 4 blocks have 2 forward + 2 backward, the vocabulary-parallel embedding 1
 * forward, the head 1 forward (SP gather) + 1 backward: F = 10 u, B = 9 u, R = 19 u exposed
 * in full (knob tp_overlap = 0). The userbuffers' TP time is (10 x_f + 9 x_b)/19 R =
 * (1.7578125 + 0.59765625)/19 R = 2.35546875/19 R. With the strategy's tp_overlap dim off
 * it is R.
 */
static void test_userbuffers_tp(void)
{
    static const char *const raw[] = {"tp_overlap=0", NULL};
    static const char *const ub[] = {"tp_ub_sms=16", "tp_ub_splits=4", NULL};
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCluster) cl = test_cluster();
    cl->sm_count = 128;
    g_autoptr(PrismCostModel) cr = test_cost_model_on(m, cl, 16, 2048, PRISM_DTYPE_FP16, raw);
    g_autoptr(PrismCostModel) cu = test_cost_model_on(m, cl, 16, 2048, PRISM_DTYPE_FP16, ub);
    PrismStrategy s = test_strategy(cr, 8, "tp=8,sp=1,mbs=1");
    double a[PRISM_COL_COUNT], b[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cr, &s, a, NULL));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cu, &s, b, NULL));
    CU_ASSERT_TRUE(a[PRISM_COL_TIME_TP_COMM] > 0.0);
    CU_ASSERT_TRUE(prism_test_close(b[PRISM_COL_TIME_TP_COMM],
                                    2.35546875 / 19.0 * a[PRISM_COL_TIME_TP_COMM], 1e-12, 0));
    PrismStrategy off = test_strategy(cu, 8, "tp=8,sp=1,mbs=1,tp_overlap=0");
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cu, &off, b, NULL));
    CU_ASSERT_TRUE(
        prism_test_close(b[PRISM_COL_TIME_TP_COMM], a[PRISM_COL_TIME_TP_COMM], 1e-12, 0));
}

/*
 * NCCL's SMs: a DP collective hidden behind compute holds nccl_sms = k of the device's S
 * SMs, so the compute beside it runs at (S - k)/S and hiding H seconds costs H k/S more.
 * The setup of test_bucketed_dp on a device of S = 128 SMs, k = 16 (k/S = 1/8), ZeRO-1,
 * dp = 16 over two nodes, C as there (the per-step latency model: nccl_model = 0):
 * (a) buckets of 4e7 (q = 4e7/P), long windows: the last buckets q C exposed, (1 - q) C
 *     hidden: dp_time = q C + (1 - q) C / 8.
 * (b) the fraction model (dp_bucket = 0, dp_overlap 0.5): 0.5 C + 0.5 C / 8 = 0.5625 C.
 * (c) nccl_sms = 0: (a) without the loss, q C.
 */
static void test_nccl_sms(void)
{
    static const char *const bk[] = {"dp_bucket=4e7", "nccl_sms=16", "nic_spread=0", "nccl_model=0",
                                     NULL};
    static const char *const fr[] = {"nccl_sms=16", "nic_spread=0", "nccl_model=0", NULL};
    static const char *const none[] = {"dp_bucket=4e7", "nccl_sms=0", "nic_spread=0",
                                       "nccl_model=0", NULL};
    const double C = 6.0 * 15.0 / 16.0 * PTOT / BW1 + 2.0 * 15.0 * 10e-6, q = 4e7 / PTOT;
    g_autoptr(PrismModel) m = test_gpt_model(4, 4096, 32, 51200);
    g_autoptr(PrismCluster) cl = test_cluster();
    cl->sm_count = 128;
    g_autoptr(PrismCostModel) ca = test_cost_model_on(m, cl, 128, 2048, PRISM_DTYPE_FP16, bk);
    g_autoptr(PrismCostModel) cb = test_cost_model_on(m, cl, 128, 2048, PRISM_DTYPE_FP16, fr);
    g_autoptr(PrismCostModel) cc = test_cost_model_on(m, cl, 128, 2048, PRISM_DTYPE_FP16, none);
    PrismStrategy s = test_strategy(ca, 16, "dp=16,mbs=8,zero=1");
    double c[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(ca, &s, c, NULL));
    CU_ASSERT_TRUE(
        prism_test_close(c[PRISM_COL_TIME_DP_COMM], q * C + (1.0 - q) * C / 8.0, 1e-12, 0));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cb, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], 0.5625 * C, 1e-12, 0));
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cc, &s, c, NULL));
    CU_ASSERT_TRUE(prism_test_close(c[PRISM_COL_TIME_DP_COMM], q * C, 1e-12, 0));
}

static CU_TestInfo dist_tests[] = {
    {"FSDP prefetch overlap: hidden, exposed, no reshard", test_fsdp_overlap},
    {"reshard-after-forward memory", test_reshard_memory},
    {"HSDP bytes per network level", test_hsdp_levels},
    {"distributed optimizer, bucketed overlap", test_bucketed_dp},
    {"torch DDP: fp16 gradient reduce, 25 MiB buckets", test_ddp_fp16_buckets},
    {"TP overlap: userbuffers' last chunk and SM loss", test_userbuffers_tp},
    {"NCCL's SMs: hidden DP collectives slow compute", test_nccl_sms},
    {"causal CP: zig-zag vs contiguous chunks", test_cp_load_balance},
    {"CP ring: exposed K/V exchange per step", test_cp_ring_exposed},
    {"CP all-to-all (Ulysses) volumes", test_ulysses},
    {"executed vs model attention FLOPs", test_core_flops},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cost_dist", NULL, NULL, NULL, NULL, dist_tests},
    CU_SUITE_INFO_NULL,
};
