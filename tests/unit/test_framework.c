// SPDX-License-Identifier: MIT
/*
 * test_framework.c - framework profiles (framework.h): every shipped profile of
 * cost/frameworks loads and sets what its file says (values checked by hand against the
 * .ini text), its --only text is a valid space filter, applying it changes exactly the
 * knobs it names, and bad profiles (unknown group or key, bad value, no title, missing
 * file, unknown name) are refused with the file, group, key and value.
 */
#include <string.h>

#include <CUnit/CUnit.h>
#include <glib/gstdio.h>

#include <prism/core.h>
#include <prism/cost.h>
#include <prism/model.h>
#include <prism/framework.h>
#include <prism/space.h>
#include <prism/strategy.h>

#include "prism_test_util.h"

static PrismFramework *load(const char *name)
{
    GError *error = NULL;
    PrismFramework *fw = prism_framework_resolve(name, &error);
    if (fw == NULL)
        fprintf(stderr, "\n  %s: %s\n", name, error->message);
    g_clear_error(&error);
    return fw;
}

/* Each profile's file, read by hand: the knobs it sets and the defaults it gives. */
static void test_shipped(void)
{
    g_auto(GStrv) names = prism_framework_names();
    /* the five profiles of issue 9 item 6, megatron-core-moe (issue 10's validation
     * rows), nanotron (the Playbook rows), deepseek-v3 (issue 37: DeepSeek's own recipe)
     * and deepspeed-zero (DeepSpeed's own engine, issue 37); sources.ini is not a profile */
    CU_ASSERT_EQUAL(g_strv_length(names), 9);
    CU_ASSERT_TRUE(g_strv_contains((const char *const *)names, "deepspeed-zero"));
    CU_ASSERT_TRUE(g_strv_contains((const char *const *)names, "deepseek-v3"));
    CU_ASSERT_TRUE(g_strv_contains((const char *const *)names, "nanotron"));
    CU_ASSERT_TRUE(g_strv_contains((const char *const *)names, "megatron-lm-2021"));
    CU_ASSERT_TRUE(g_strv_contains((const char *const *)names, "pytorch-fsdp"));
    CU_ASSERT_FALSE(g_strv_contains((const char *const *)names, "sources"));

    g_autoptr(PrismFramework) a = load("megatron-lm-2021");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(a->knobs.v[PRISM_KNOB_FLASH_ATTENTION], 0.0);
    CU_ASSERT_EQUAL(a->knobs.v[PRISM_KNOB_DROPOUT], 1.0);
    CU_ASSERT_EQUAL(a->knobs.v[PRISM_KNOB_TP_OVERLAP], 0.0);
    CU_ASSERT_EQUAL(a->knobs.v[PRISM_KNOB_DP_OVERLAP], 0.0);
    CU_ASSERT_TRUE(a->knob_set[PRISM_KNOB_DP_OVERLAP] && a->knob_set[PRISM_KNOB_GRAD_FP32]);
    CU_ASSERT_FALSE(a->knob_set[PRISM_KNOB_COMPUTE_EFFICIENCY]);
    CU_ASSERT_EQUAL(a->counts, PRISM_MEM_ALLOCATED);
    CU_ASSERT_EQUAL(a->def[PRISM_FW_MICRO_BATCH], PRISM_FW_NONE);
    CU_ASSERT_EQUAL(a->def[PRISM_FW_RECOMPUTE], PRISM_RECOMPUTE_NONE);
    CU_ASSERT_EQUAL(a->def[PRISM_FW_VPP], 1);
    CU_ASSERT_EQUAL(a->def[PRISM_FW_ZERO], 0);
    CU_ASSERT_EQUAL(a->def[PRISM_FW_SP], 0);
    CU_ASSERT_EQUAL(a->def[PRISM_FW_SCHEDULE], PRISM_SCHEDULE_1F1B);
    CU_ASSERT_TRUE(a->has_dtype && a->dtype == PRISM_DTYPE_FP16);
    CU_ASSERT_STRING_EQUAL(
        a->only, "schedule=1f1b,interleaved,zero=0,sp=0,recompute=none,full,offload=0,cp=1,ep=1");
    CU_ASSERT_TRUE(a->uniform_chunks && !a->llama && a->tied_embeddings == 1);
    /* the overlap options (cost/README.md "Communication overlap"): none in 2021's
     * Megatron-LM; megatron-core can turn all three off and searches tp by default */
    CU_ASSERT_EQUAL(a->overlap, 0u);
    CU_ASSERT_EQUAL(a->overlap_search, 0u);
    g_autoptr(PrismFramework) mc = load("megatron-core");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mc);
    CU_ASSERT_EQUAL(mc->overlap, (unsigned)PRISM_OVERLAP_ALL);
    CU_ASSERT_EQUAL(mc->overlap_search, (unsigned)PRISM_OVERLAP_TP);
    /* core_r0.8: the distributed optimizer, no custom FSDP (no ZeRO-2/3); --sequence-parallel
     * is a switch and --recompute-method block takes any k */
    CU_ASSERT_STRING_EQUAL(mc->only, "schedule=1f1b,interleaved,zero=0,1,offload=0,1");
    CU_ASSERT_TRUE(!mc->sp_always && !mc->rc_every_nth && !mc->cp_shards);
    g_autoptr(PrismFramework) fs = load("pytorch-fsdp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fs);
    CU_ASSERT_EQUAL(fs->overlap, 0u);

    /* megatron-core-moe.ini: the Mixtral release recipes (mbs 1, no recompute, Llama-style
     * shape, untied, dropout 0, alltoall dispatcher, distributed optimizer) */
    g_autoptr(PrismFramework) mo = load("megatron-core-moe");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mo);
    CU_ASSERT_EQUAL(mo->def[PRISM_FW_MICRO_BATCH], 1);
    CU_ASSERT_EQUAL(mo->def[PRISM_FW_RECOMPUTE], PRISM_RECOMPUTE_NONE);
    CU_ASSERT_EQUAL(mo->def[PRISM_FW_VPP], PRISM_FW_NONE);
    CU_ASSERT_EQUAL(mo->def[PRISM_FW_ZERO], 1);
    CU_ASSERT_EQUAL(mo->knobs.v[PRISM_KNOB_DROPOUT], 0.0);
    CU_ASSERT_EQUAL(mo->knobs.v[PRISM_KNOB_MOE_DISPATCHER], 0.0);
    CU_ASSERT_TRUE(mo->knob_set[PRISM_KNOB_MOE_DISPATCHER]);
    /* current Megatron-Core splits unevenly (--decoder-first/last-pipeline-num-layers); the
     * sources whose runs used equal chunks say so in sources.ini */
    CU_ASSERT_TRUE(mo->llama && mo->tied_embeddings == 0 && !mo->uniform_chunks);
    CU_ASSERT_FALSE(mc->uniform_chunks);

    /* deepseek-v3.ini: the report's Sec. 3.2-3.3 - DualPipe, ZeRO-1, no TP/SP, selective
     * recompute of the norms and MLA up-projections, FP8 activation cache, BF16 moments,
     * FP32 gradients, online-scaled FP8 */
    g_autoptr(PrismFramework) ds = load("deepseek-v3");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ds);
    CU_ASSERT_EQUAL(ds->def[PRISM_FW_SCHEDULE], PRISM_SCHEDULE_DUALPIPE);
    CU_ASSERT_EQUAL(ds->def[PRISM_FW_ZERO], 1);
    CU_ASSERT_EQUAL(ds->def[PRISM_FW_SP], 0);
    CU_ASSERT_EQUAL(ds->def[PRISM_FW_RECOMPUTE], PRISM_RECOMPUTE_SELECTIVE);
    CU_ASSERT_TRUE(ds->has_dtype && ds->dtype == PRISM_DTYPE_FP8_CS);
    CU_ASSERT_EQUAL(ds->knobs.v[PRISM_KNOB_RECOMPUTE_NORM], 1.0);
    CU_ASSERT_EQUAL(ds->knobs.v[PRISM_KNOB_RECOMPUTE_MLA_UP], 1.0);
    CU_ASSERT_EQUAL(ds->knobs.v[PRISM_KNOB_ACT_CACHE_FP8], 1.0);
    CU_ASSERT_EQUAL(ds->knobs.v[PRISM_KNOB_MOE_PROBS_IN_ACT], 1.0);
    CU_ASSERT_EQUAL(ds->knobs.v[PRISM_KNOB_ADAM_MOMENT_BYTES], 2.0);
    CU_ASSERT_EQUAL(ds->knobs.v[PRISM_KNOB_RECOMPUTE_MOE_ACT], 0.0); /* act_cache_fp8 does it */
    CU_ASSERT_STRING_EQUAL(ds->only, "schedule=dualpipe");

    g_autoptr(PrismFramework) b = load("megatron-lm-2022");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(b->only, "schedule=1f1b,interleaved,zero=0,1,offload=0,cp=1,ep=1");
    CU_ASSERT_TRUE(b->uniform_chunks);
    CU_ASSERT_EQUAL(b->knobs.v[PRISM_KNOB_FLASH_ATTENTION], 0.0);

    g_autoptr(PrismFramework) c = load("megatron-core");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_FALSE(c->knob_set[PRISM_KNOB_TP_OVERLAP]); /* the userbuffers instead */
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_TP_UB_SMS], 16.0);
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_TP_UB_SPLITS], 4.0);
    CU_ASSERT_FALSE(c->knob_set[PRISM_KNOB_DP_OVERLAP]); /* the buckets instead */
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_DP_BUCKET], 4e7);
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_DP_BUCKET_PER_RANK], 1e6);
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_FLASH_ATTENTION], 1.0);
    CU_ASSERT_EQUAL(c->def[PRISM_FW_MICRO_BATCH], PRISM_FW_NONE);
    CU_ASSERT_EQUAL(c->def[PRISM_FW_RECOMPUTE], PRISM_FW_NONE);
    CU_ASSERT_EQUAL(c->def[PRISM_FW_VPP], PRISM_FW_NONE);
    CU_ASSERT_EQUAL(c->def[PRISM_FW_ZERO], 1); /* --overlap-param-gather needs it */
    CU_ASSERT_EQUAL(c->def[PRISM_FW_SP], 1);   /* --tp-comm-overlap needs it */
    CU_ASSERT_FALSE(c->has_dtype);

    g_autoptr(PrismFramework) d = load("megatron-deepspeed");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->def[PRISM_FW_ZERO], 1);
    CU_ASSERT_EQUAL(d->def[PRISM_FW_VPP], 1);
    CU_ASSERT_TRUE(d->has_dtype && d->dtype == PRISM_DTYPE_BF16);
    CU_ASSERT_EQUAL(d->knobs.v[PRISM_KNOB_GRAD_FP32], 1.0);
    /* host floor: the layer's 30 backward launches besides its TP all-reduces and
     * BF16_Optimizer.update_hp_grads' cast + add_ for each of its 12 parameter tensors
     * (2 norms' weight and bias, QKV, proj, fc1, fc2 weight and bias); the forward keeps
     * the default 15 */
    CU_ASSERT_EQUAL(d->knobs.v[PRISM_KNOB_LAYER_KERNELS_BWD], 30.0 + 12.0 * 2.0);
    CU_ASSERT_FALSE(d->knob_set[PRISM_KNOB_LAYER_KERNELS_FWD]);
    /* DeepSpeed's pipeline engine partitions its transfers over TP (pipe_partitioned and
     * grad_partitioned on by default) */
    CU_ASSERT_EQUAL(d->knobs.v[PRISM_KNOB_PP_TP_PARTITIONED], 1.0);
    CU_ASSERT_STRING_EQUAL(
        d->only, "schedule=1f1b,vpp=1,zero=0,1,recompute=none,full,sp=0,cp=1,ep=1,offload=0,1");

    /* megatron-lm-2021 reduces fp16 gradients beside its fp32 main gradient */
    CU_ASSERT_EQUAL(a->knobs.v[PRISM_KNOB_GRAD_REDUCE_BYTES], 2.0);
    CU_ASSERT_EQUAL(a->knobs.v[PRISM_KNOB_GRAD_FP32], 1.0);

    /* DeepSpeed's engine, fp16 path: fp16 gradients held and reduced, overlap_comm off
     * (the whole reduce exposed), ZeRO 0 by default, no TP/CP, allocated memory */
    g_autoptr(PrismFramework) z = load("deepspeed-zero");
    CU_ASSERT_PTR_NOT_NULL_FATAL(z);
    CU_ASSERT_TRUE(z->has_dtype && z->dtype == PRISM_DTYPE_FP16);
    CU_ASSERT_EQUAL(z->knobs.v[PRISM_KNOB_GRAD_FP32], 0.0);
    CU_ASSERT_EQUAL(z->knobs.v[PRISM_KNOB_GRAD_REDUCE_BYTES], 2.0);
    CU_ASSERT_EQUAL(z->knobs.v[PRISM_KNOB_DP_OVERLAP], 0.0);
    CU_ASSERT_EQUAL(z->knobs.v[PRISM_KNOB_DP_BUCKET], 0.0);
    CU_ASSERT_EQUAL(z->def[PRISM_FW_ZERO], 0);
    CU_ASSERT_EQUAL(z->def[PRISM_FW_MICRO_BATCH], PRISM_FW_NONE);
    CU_ASSERT_EQUAL(z->counts, PRISM_MEM_ALLOCATED);
    CU_ASSERT_STRING_EQUAL(z->only, "tp=1,cp=1,sp=0,schedule=1f1b,vpp=1,zero=0,1,2");
    CU_ASSERT_FALSE(z->uniform_chunks);

    /* nanotron: DDP buckets of ddp_bucket_cap_mb = 25 MiB of bf16 gradients = 25 x 2^20 / 2
     * parameters; fp32 accumulation; the afab engine (gpipe) and no sequence parallelism by
     * default (ALL_REDUCE), ZeRO 0; reserved memory as the Playbook plots it (its bench CSV's
     * "Mem Res (GB)") */
    g_autoptr(PrismFramework) n = load("nanotron");
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_DP_BUCKET], 25.0 * 1048576.0 / 2.0);
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_GRAD_FP32], 1.0);
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_DROPOUT], 0.0);
    CU_ASSERT_FALSE(n->knob_set[PRISM_KNOB_TP_OVERLAP]); /* no published hidden share */
    CU_ASSERT_EQUAL(n->counts, PRISM_MEM_RESERVED);
    CU_ASSERT_EQUAL(n->def[PRISM_FW_SCHEDULE], PRISM_SCHEDULE_GPIPE);
    CU_ASSERT_EQUAL(n->def[PRISM_FW_SP], 0);
    CU_ASSERT_EQUAL(n->def[PRISM_FW_ZERO], 0);
    CU_ASSERT_EQUAL(n->def[PRISM_FW_VPP], 1);
    CU_ASSERT_EQUAL(n->def[PRISM_FW_RECOMPUTE], PRISM_RECOMPUTE_NONE);
    CU_ASSERT_EQUAL(n->def[PRISM_FW_MICRO_BATCH], PRISM_FW_NONE);
    CU_ASSERT_TRUE(n->llama && n->tied_embeddings == 0);
    CU_ASSERT_TRUE(n->split_by_cost); /* build_model's split by its cost estimate */
    CU_ASSERT_STRING_EQUAL(n->only,
                           "schedule=1f1b,gpipe,vpp=1,zero=0,1,recompute=none,full,offload=0");
    /* the host floor's counts, one LlamaDecoderLayer (the profile's comment itemises them):
     * forward norm 1 + 4 GEMMs + 3 layout copies (q/k/v, cat, permute) + rotary 2 +
     * cu_seqlens 6 + flash 1 + 2 residual adds + norm 1 + silu and product 2 = 22;
     * backward 4 x (dgrad + wgrad) 8 + 2 norms x 3 + flash 3 + rotary 2 + 2 residual sums +
     * product 2 + silu 1 + split cat 1 + k/v cat 1 + unbind stack and copy 2 = 28 */
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_LAYER_KERNELS_FWD],
                    1.0 + 4.0 + 3.0 + 2.0 + 6.0 + 1.0 + 2.0 + 1.0 + 2.0);
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_LAYER_KERNELS_BWD],
                    8.0 + 6.0 + 3.0 + 2.0 + 2.0 + 2.0 + 1.0 + 1.0 + 1.0 + 2.0);
    /* the loss op by op: fp32 cast 2 + 4, max 4, subtract 4 + 4, exp 4 + 4, sum 4, divide
     * 4 + 4 (forward 38); gradient product 4 + 4, cast back 4 + 2 (backward 14) */
    /* layout copies (query widths): forward permute copy 3, cat 2, permute copy 2; backward
     * cat 2, stack 3, reshape copy 3 */
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_LAYOUT_COPIES], 3.0 + 2.0 + 2.0 + 2.0 + 3.0 + 3.0);
    CU_ASSERT_EQUAL(n->knobs.v[PRISM_KNOB_LOSS_BYTES],
                    6.0 + 4.0 + 8.0 + 8.0 + 4.0 + 8.0 + 8.0 + 6.0);

    g_autoptr(PrismFramework) e = load("pytorch-fsdp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->knobs.v[PRISM_KNOB_DROPOUT], 0.0);
    CU_ASSERT_FALSE(e->knob_set[PRISM_KNOB_DP_OVERLAP]); /* no published hidden share */
    CU_ASSERT_EQUAL(e->counts, PRISM_MEM_RESERVED);
    CU_ASSERT_EQUAL(e->def[PRISM_FW_MICRO_BATCH], PRISM_FW_MBS_LOCAL);
    CU_ASSERT_TRUE(e->pp_microbatches_stages);
    CU_ASSERT_EQUAL(e->def[PRISM_FW_RECOMPUTE], PRISM_RECOMPUTE_SELECTIVE);
    CU_ASSERT_EQUAL(e->def[PRISM_FW_ZERO], 3);
    CU_ASSERT_EQUAL(e->def[PRISM_FW_VPP], PRISM_FW_NONE);
    CU_ASSERT_TRUE(e->llama && e->tied_embeddings == 0);
    /* torch.distributed.pipelining's schedules: no DualPipe (bidirectional), no seq1F1B */
    /* FSDP2: no ZeRO-1, no offload prism prices; SP whenever TP; every-N-th-layer AC */
    CU_ASSERT_STRING_EQUAL(
        e->only, "schedule=1f1b,interleaved,gpipe,zb-h1,zb-v,dualpipe-v,zero=0,2,3,offload=0");
    CU_ASSERT_TRUE(e->sp_always && e->rc_every_nth);
    /* FSDP2 over the data and context ranks whenever cp > 1 (ParallelDims.fsdp_enabled) */
    CU_ASSERT_TRUE(e->cp_shards);
    /* SDPA's FlashAttention-2 on H100 (FA3 paper Fig. 5/6, head dim 128, 8k): 333 and
     * 318 TFLOP/s over the 989.4 TFLOP/s BF16 peak = 0.337 and 0.321 (rounded there) */
    CU_ASSERT_DOUBLE_EQUAL(e->knobs.v[PRISM_KNOB_ATTN_FWD_FRACTION], 333.0 / 989.4, 5e-4);
    CU_ASSERT_DOUBLE_EQUAL(e->knobs.v[PRISM_KNOB_ATTN_BWD_FRACTION], 318.0 / 989.4, 5e-4);
    CU_ASSERT_TRUE(e->knob_set[PRISM_KNOB_ATTN_FWD_FRACTION]);
    /* torchtitan's per-op SAC, not Korthikanti's selective */
    CU_ASSERT_EQUAL(e->knobs.v[PRISM_KNOB_SELECTIVE_POLICY], 1.0);
    /* host floor of an eager Llama block (pytorch-fsdp.ini): forward 2 RMSNorms x 8,
     * wq/wk/wv 3, rotary 6, repeat_kv 2, SDPA 1, contiguous 1, wo 1, SwiGLU 5, residual
     * adds 2; backward 7 linears x 2, 2 RMSNorms x 16, SDPA 3, repeat_kv 2, rotary 6,
     * silu 1, SwiGLU product 2, gradient sums 5 */
    CU_ASSERT_EQUAL(e->knobs.v[PRISM_KNOB_LAYER_KERNELS_FWD],
                    2.0 * 8.0 + 3.0 + 6.0 + 2.0 + 1.0 + 1.0 + 1.0 + 5.0 + 2.0);
    CU_ASSERT_EQUAL(e->knobs.v[PRISM_KNOB_LAYER_KERNELS_BWD],
                    7.0 * 2.0 + 2.0 * 16.0 + 3.0 + 2.0 + 6.0 + 1.0 + 2.0 + 5.0);
    /* eager F.cross_entropy: one fp32 logit copy more in the loss backward */
    CU_ASSERT_EQUAL(e->knobs.v[PRISM_KNOB_LOSS_BWD_EXTRA], 1.0);
    /* context_parallel_rotate_method "allgather": nothing overlaps the K/V exchange */
    CU_ASSERT_TRUE(e->knob_set[PRISM_KNOB_CP_OVERLAP] && e->knobs.v[PRISM_KNOB_CP_OVERLAP] == 0.0);
    CU_ASSERT_FALSE(c->knob_set[PRISM_KNOB_LOSS_BWD_EXTRA]);
    /* training.compile defaults to false: eager elementwise ops */
    CU_ASSERT_TRUE(e->knob_set[PRISM_KNOB_ELEMENTWISE_EAGER] &&
                   e->knobs.v[PRISM_KNOB_ELEMENTWISE_EAGER] == 1.0);
    CU_ASSERT_FALSE(c->knob_set[PRISM_KNOB_ELEMENTWISE_EAGER]);
    /* the Megatron profiles keep the default policy (recompute the attention core) */
    CU_ASSERT_FALSE(c->knob_set[PRISM_KNOB_SELECTIVE_POLICY]);
    CU_ASSERT_FALSE(b->knob_set[PRISM_KNOB_SELECTIVE_POLICY]);
    /* megatron-core prices TE's attention at FlashAttention-2's fractions too (NeMo 24.03's
     * long-sequence table implies that class of rate: cost/README.md) */
    CU_ASSERT_TRUE(c->knob_set[PRISM_KNOB_ATTN_FWD_FRACTION] &&
                   c->knob_set[PRISM_KNOB_ATTN_BWD_FRACTION]);
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_ATTN_FWD_FRACTION],
                    e->knobs.v[PRISM_KNOB_ATTN_FWD_FRACTION]);
    CU_ASSERT_EQUAL(c->knobs.v[PRISM_KNOB_ATTN_BWD_FRACTION],
                    e->knobs.v[PRISM_KNOB_ATTN_BWD_FRACTION]);
    /* the 2021/2022 Megatron profiles run without flash attention: no fraction */
    CU_ASSERT_FALSE(a->knob_set[PRISM_KNOB_ATTN_FWD_FRACTION]);
    CU_ASSERT_FALSE(b->knob_set[PRISM_KNOB_ATTN_FWD_FRACTION]);

    /* every --only text is a valid filter */
    PrismFramework *all[] = {a, b, c, d, e};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
        GError *error = NULL;
        CU_ASSERT_TRUE(all[i]->only == NULL || prism_space_filter_only(f, all[i]->only, &error));
        if (error)
            fprintf(stderr, "\n  %s only: %s\n", all[i]->name, error->message);
        g_clear_error(&error);
    }
    /* apply: the knobs it sets, nothing else; its optimizer */
    PrismKnobs k, def;
    prism_knobs_default(&k);
    prism_knobs_default(&def);
    PrismTraining t;
    prism_training_default(&t);
    t.optimizer = PRISM_OPTIMIZER_SGD;
    prism_framework_apply(c, NULL, &k, &t);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_TP_UB_SMS], 16.0);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_COMPUTE_EFFICIENCY], def.v[PRISM_KNOB_COMPUTE_EFFICIENCY]);
    CU_ASSERT_EQUAL(t.optimizer, PRISM_OPTIMIZER_ADAM);
}

static void expect_bad(const char *dir, const char *text, int code, const char *const *parts)
{
    g_autofree char *path = g_build_filename(dir, "bad.ini", NULL);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, text, -1, NULL));
    GError *error = NULL;
    PrismFramework *fw = prism_framework_load(path, &error);
    CU_ASSERT_PTR_NULL(fw);
    prism_framework_free(fw);
    CU_ASSERT_TRUE_FATAL(error != NULL);
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, code));
    CU_ASSERT_PTR_NOT_NULL(strstr(error->message, path));
    for (const char *const *p = parts; *p; p++) {
        if (strstr(error->message, *p) == NULL)
            fprintf(stderr, "\n  '%s' lacks '%s'\n", error->message, *p);
        CU_ASSERT_PTR_NOT_NULL(strstr(error->message, *p));
    }
    g_error_free(error);
    g_unlink(path);
}

static void test_refused(void)
{
    g_autofree char *dir = g_dir_make_tmp("prism-fw-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    const char *head = "[profile]\ntitle = t\n";
    g_autofree char *k1 = g_strconcat(head, "[knobs]\ntp_overlapp = 0.5\n", NULL);
    expect_bad(dir, k1, PRISM_INPUT_ERROR_UNKNOWN_NAME,
               (const char *const[]){"[knobs]", "tp_overlapp", "0.5", "tp_overlap", NULL});
    g_autofree char *k2 = g_strconcat(head, "[knobs]\ntp_overlap = 2\n", NULL);
    expect_bad(dir, k2, PRISM_INPUT_ERROR_VALUE, (const char *const[]){"tp_overlap", "'2'", NULL});
    g_autofree char *g = g_strconcat(head, "[defaultz]\nvpp = 1\n", NULL);
    expect_bad(dir, g, PRISM_INPUT_ERROR_UNKNOWN_NAME,
               (const char *const[]){"[defaultz]", "allowed", NULL});
    g_autofree char *d1 = g_strconcat(head, "[defaults]\nrecompute = sometimes\n", NULL);
    expect_bad(dir, d1, PRISM_INPUT_ERROR_VALUE,
               (const char *const[]){"[defaults] recompute", "'sometimes'", "selective", NULL});
    g_autofree char *d2 = g_strconcat(head, "[defaults]\nzero_stage = 4\n", NULL);
    expect_bad(dir, d2, PRISM_INPUT_ERROR_VALUE, (const char *const[]){"zero_stage", "'4'", NULL});
    g_autofree char *d3 = g_strconcat(head, "[defaults]\nmicro_bach = 2\n", NULL);
    expect_bad(dir, d3, PRISM_INPUT_ERROR_UNKNOWN_NAME,
               (const char *const[]){"micro_bach", "micro_batch", NULL});
    g_autofree char *m1 = g_strconcat(head, "[memory]\ncounts = smi\n", NULL);
    expect_bad(dir, m1, PRISM_INPUT_ERROR_VALUE,
               (const char *const[]){"[memory] counts", "'smi'", "reserved", NULL});
    g_autofree char *m2 = g_strconcat(head, "[memory]\nallocator_reserve = nan\n", NULL);
    expect_bad(dir, m2, PRISM_INPUT_ERROR_VALUE, (const char *const[]){"allocator_reserve", NULL});
    g_autofree char *o1 = g_strconcat(head, "[planning]\noverlap = tp, pp\n", NULL);
    expect_bad(dir, o1, PRISM_INPUT_ERROR_VALUE,
               (const char *const[]){"[planning] overlap", "'tp, pp'", "tp, dp and param", NULL});
    g_autofree char *o2 =
        g_strconcat(head, "[planning]\noverlap = tp\noverlap_search = tp, dp\n", NULL);
    expect_bad(dir, o2, PRISM_INPUT_ERROR_VALUE,
               (const char *const[]){"overlap_search", "must be supported", NULL});
    expect_bad(dir, "[knobs]\ndropout = 1\n", PRISM_INPUT_ERROR_MISSING,
               (const char *const[]){"title", NULL});
    expect_bad(dir, "[profile]\ntitle = a\ntitle = b\n", PRISM_INPUT_ERROR_PARSE,
               (const char *const[]){"title", NULL});
    /* every other key's rule, one bad value or unknown key each: the group, key and
     * value named, and what is allowed */
    static const struct {
        const char *text;
        int code;
        const char *parts[5]; /* at most 4, NULL-terminated by the initializer */
    } rules[] = {
        {"author = x\n", /* under head's [profile] */
         PRISM_INPUT_ERROR_UNKNOWN_NAME,
         {"[profile] author = 'x'", "allowed: title, source"}},
        {"[memory]\noptimizer = lamb\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[memory] optimizer", "'lamb'", "adam, sgd"}},
        {"[memory]\nheap = 1\n",
         PRISM_INPUT_ERROR_UNKNOWN_NAME,
         {"[memory] heap = '1'", "grad_fp32, optimizer, context_bytes"}},
        {"[defaults]\npp_microbatches = 8\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[defaults] pp_microbatches", "'8'", "stages, plan"}},
        {"[defaults]\ndtype = fp4\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[defaults] dtype", "'fp4'", "prism plan --dtype"}},
        {"[defaults]\nmicro_batch = 0\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[defaults] micro_batch", "'0'", "local or plan"}},
        {"[defaults]\nvpp = two\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[defaults] vpp", "'two'", "a positive integer or plan"}},
        {"[defaults]\nsp = 2\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[defaults] sp", "'2'", "0, 1 (on whenever tp > 1) or plan"}},
        {"[defaults]\nschedule = pipedream\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[defaults] schedule", "'pipedream'", "1f1b, interleaved", "seq1f1b or plan"}},
        {"[planning]\nuniform_chunks = maybe\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[planning] uniform_chunks", "'maybe'", "true or false"}},
        {"[planning]\npipeline_split = balanced\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[planning] pipeline_split", "'balanced'", "even or cost"}},
        {"[planning]\nschedules = 1f1b\n",
         PRISM_INPUT_ERROR_UNKNOWN_NAME,
         {"[planning] schedules = '1f1b'", "only, uniform_chunks, overlap", "recompute_layers"}},
        {"[planning]\nsequence_parallel = never\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[planning] sequence_parallel", "'never'", "always or optional"}},
        {"[planning]\nrecompute_layers = last_k\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[planning] recompute_layers", "'last_k'", "first_k or every_nth"}},
        {"[planning]\ncontext_parallel_sharding = sometimes\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[planning] context_parallel_sharding", "'sometimes'", "always or optional"}},
        {"[model]\narchitecture = mamba\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[model] architecture", "'mamba'", "gpt, llama"}},
        {"[model]\ntied_embeddings = 2\n",
         PRISM_INPUT_ERROR_VALUE,
         {"[model] tied_embeddings", "'2'", "true or false"}},
        {"[model]\nlayers = 2\n",
         PRISM_INPUT_ERROR_UNKNOWN_NAME,
         {"[model] layers = '2'", "architecture, tied_embeddings"}},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rules); i++) {
        g_autofree char *text = g_strconcat(head, rules[i].text, NULL);
        expect_bad(dir, text, rules[i].code, rules[i].parts);
    }
    /* [knobs.FAMILY]: a family no preset has (the allowed ones listed), the same family
     * twice, a bad knob inside one (its group named) */
    g_autofree char *f1 = g_strconcat(head, "[knobs.B20]\ndropout = 0\n", NULL);
    expect_bad(dir, f1, PRISM_INPUT_ERROR_UNKNOWN_NAME,
               (const char *const[]){"[knobs.B20]", "'B20'", "A100, H100", "B200", NULL});
    g_autofree char *f2 =
        g_strconcat(head, "[knobs.B200]\ndropout = 0\n[knobs.b200]\ndropout = 1\n", NULL);
    expect_bad(dir, f2, PRISM_INPUT_ERROR_PARSE,
               (const char *const[]){"[knobs.B200]", "[knobs.b200]", NULL});
    g_autofree char *f3 = g_strconcat(head, "[knobs.H100]\nattn_fwd_fraction = 2\n", NULL);
    expect_bad(dir, f3, PRISM_INPUT_ERROR_VALUE,
               (const char *const[]){"[knobs.H100]", "attn_fwd_fraction", "'2'", NULL});
    /* a missing file, an unknown name */
    GError *error = NULL;
    CU_ASSERT_PTR_NULL(prism_framework_load("/nonexistent/x.ini", &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE));
    g_clear_error(&error);
    CU_ASSERT_PTR_NULL(prism_framework_resolve("megatron-lm-2099", &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME));
    CU_ASSERT_TRUE(error && strstr(error->message, "megatron-core") != NULL);
    g_clear_error(&error);
    /* names as people write them: case and separators ignored, the profile's own name kept */
    const char *loose[][2] = {{"Megatron_Core", "megatron-core"},
                              {"PyTorch FSDP", "pytorch-fsdp"},
                              {"megatron-core-MoE", "megatron-core-moe"}};
    for (size_t i = 0; i < G_N_ELEMENTS(loose); i++) {
        PrismFramework *fw = prism_framework_resolve(loose[i][0], NULL);
        CU_ASSERT_PTR_NOT_NULL(fw);
        CU_ASSERT_STRING_EQUAL(fw ? fw->name : "", loose[i][1]);
        prism_framework_free(fw);
    }
    g_rmdir(dir);
}

/* The user's knobs over a profile (validate, the track record): a knob given at its
 * default still overrides the profile's value; a knob not given leaves it; the last of
 * two assignments wins; a knobs file marks its keys; bad input is refused unmarked. */
static void test_overrides(void)
{
    PrismFramework *fw = load("pytorch-fsdp");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fw);
    PrismKnobs def, k;
    prism_knobs_default(&def);
    prism_knobs_default(&k);
    prism_framework_apply(fw, NULL, &k, NULL);
    /* the profile sets cp_overlap = 0 and attn_fwd_fraction = 0.337 (file text) */
    CU_ASSERT_EQUAL(def.v[PRISM_KNOB_CP_OVERLAP], 1.0);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_CP_OVERLAP], 0.0);
    CU_ASSERT_EQUAL(k.v[PRISM_KNOB_ATTN_FWD_FRACTION], 0.337);
    PrismKnobOverrides o;
    prism_knob_overrides_init(&o);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        CU_ASSERT_TRUE(!o.set[i] && o.knobs.v[i] == def.v[i]);
    CU_ASSERT_TRUE(prism_knob_overrides_set(&o, "cp_overlap=0.5", NULL));
    CU_ASSERT_TRUE(prism_knob_overrides_set(&o, " cp_overlap = 1 ", NULL)); /* the default */
    GError *error = NULL;
    CU_ASSERT_FALSE(prism_knob_overrides_set(&o, "dropout=7", &error)); /* out of range */
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
    g_clear_error(&error);
    CU_ASSERT_FALSE(o.set[PRISM_KNOB_DROPOUT]);
    g_autofree char *path = g_build_filename(g_get_tmp_dir(), "prism-test-overrides.ini", NULL);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, "[knobs]\nhsdp = 0\n", -1, NULL));
    CU_ASSERT_TRUE(prism_knob_overrides_load_file(&o, path, NULL));
    g_unlink(path);
    PrismKnobs applied = k;
    prism_knob_overrides_apply(&o, &applied);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        const gboolean given = i == PRISM_KNOB_CP_OVERLAP || i == PRISM_KNOB_HSDP;
        CU_ASSERT_EQUAL(o.set[i], given);
        CU_ASSERT_EQUAL(applied.v[i], given ? def.v[i] : k.v[i]);
    }
    prism_knob_overrides_apply(NULL, &applied); /* none: unchanged */
    CU_ASSERT_EQUAL(applied.v[PRISM_KNOB_ATTN_FWD_FRACTION], 0.337);
    /* [knobs.B200] on a B200-family cluster (any case; the 750 W preset too): cuDNN's
     * attention fractions over [knobs]' Hopper ones, the MX casts, per-op SAC without the
     * cuDNN attention on its save list; nothing else differs.
     * Other families and no cluster keep [knobs]. User overrides still come last. */
    const char *const b200[] = {"B200", "B200-750W", "b200-750w"};
    for (size_t c = 0; c < G_N_ELEMENTS(b200); c++) {
        PrismKnobs kb;
        prism_knobs_default(&kb);
        prism_framework_apply(fw, b200[c], &kb, NULL);
        CU_ASSERT_PTR_NOT_NULL(prism_framework_device(fw, b200[c]));
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_ATTN_FWD_FRACTION], 0.532);
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_ATTN_BWD_FRACTION], 0.418);
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_MX_CAST_PASSES], 2.0);
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_MX_CAST_EFFICIENCY], 0.602);
        /* torch._grouped_mm on B200: 822.0 of the dense 1419.75 TFLOP/s (the profile's
         * comment) */
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_GROUPED_GEMM_RATIO], 0.579);
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_SELECTIVE_POLICY], 2.0);
        for (int i = 0; i < PRISM_KNOB_COUNT; i++)
            if (i != PRISM_KNOB_ATTN_FWD_FRACTION && i != PRISM_KNOB_ATTN_BWD_FRACTION &&
                i != PRISM_KNOB_MX_CAST_PASSES && i != PRISM_KNOB_MX_CAST_EFFICIENCY &&
                i != PRISM_KNOB_GROUPED_GEMM_RATIO && i != PRISM_KNOB_SELECTIVE_POLICY)
                CU_ASSERT_EQUAL(kb.v[i], k.v[i]);
        prism_knob_overrides_apply(&o, &kb);
        CU_ASSERT_EQUAL(kb.v[PRISM_KNOB_CP_OVERLAP], 1.0);
    }
    const char *const others[] = {"H100-SXM", "H100-96GB-500W", "A100-80GB", "MI300X"};
    for (size_t c = 0; c < G_N_ELEMENTS(others); c++) {
        PrismKnobs ko;
        prism_knobs_default(&ko);
        prism_framework_apply(fw, others[c], &ko, NULL);
        CU_ASSERT_PTR_NULL(prism_framework_device(fw, others[c]));
        for (int i = 0; i < PRISM_KNOB_COUNT; i++)
            CU_ASSERT_EQUAL(ko.v[i], k.v[i]);
    }
    CU_ASSERT_PTR_NULL(prism_framework_device(fw, NULL));
    /* which knobs the profile gives on a family: mx_cast_passes only in [knobs.B200] */
    CU_ASSERT_TRUE(prism_framework_knob_given(fw, "B200-750W", PRISM_KNOB_MX_CAST_PASSES));
    CU_ASSERT_FALSE(prism_framework_knob_given(fw, "H100-SXM", PRISM_KNOB_MX_CAST_PASSES));
    CU_ASSERT_FALSE(prism_framework_knob_given(fw, NULL, PRISM_KNOB_MX_CAST_PASSES));
    CU_ASSERT_TRUE(prism_framework_knob_given(fw, "H100-SXM", PRISM_KNOB_CP_OVERLAP));
    CU_ASSERT_FALSE(prism_framework_knob_given(fw, "B200", PRISM_KNOB_HSDP));
    prism_framework_free(fw);
}

/* The one parser of what a memory figure counts: each kind back from its own name, and
 * anything else (another word, another case, empty) refused with the value and the kinds. */
static void test_mem_counts_parse(void)
{
    for (int k = 0; k < PRISM_MEM_COUNTS_COUNT; k++) {
        PrismMemCounts got = (PrismMemCounts)-1;
        CU_ASSERT_TRUE(
            prism_mem_counts_parse(prism_mem_counts_name((PrismMemCounts)k), &got, NULL));
        CU_ASSERT_EQUAL(got, (PrismMemCounts)k);
    }
    PrismMemCounts got = PRISM_MEM_DEVICE;
    CU_ASSERT_TRUE(prism_mem_counts_parse("allocated", &got, NULL));
    CU_ASSERT_EQUAL(got, PRISM_MEM_ALLOCATED);
    const char *const bad[] = {"cached", "Reserved", "", "device "};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) e = NULL;
        got = PRISM_MEM_RESERVED;
        CU_ASSERT_FALSE(prism_mem_counts_parse(bad[i], &got, &e));
        CU_ASSERT_EQUAL(got, PRISM_MEM_RESERVED); /* untouched */
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_TRUE(g_error_matches(e, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
        g_autofree char *quoted = g_strdup_printf("'%s'", bad[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, quoted));
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "allocated, reserved or device"));
    }
}

/*
 * Each profile's loss_bytes, counted by hand from its framework's loss code: bytes each op
 * reads and writes per logit element of the rank's vocabulary shard, forward and backward
 * (16-bit logits, fp32 loss arithmetic; per-token gathers and the small all-reduces left
 * out). Megatron's vocab-parallel cross-entropy (2021, 2022, Core and its MoE recipes,
 * Megatron-DeepSpeed's copy; nanotron's _ShardedCrossEntropy does the same ops):
 *   forward  cast to fp32 2+4, max 4, subtract 4+4, exp 4+4, sum 4, divide 4+4 = 38
 *   backward multiply by the incoming gradient 4+4, the cast's backward 4+2    = 14
 * torchtitan's eager F.cross_entropy over .float() logits:
 *   forward  cast 2+4, log_softmax 4+4                                          = 14
 *   backward nll_loss_backward's zero-filled gradient 4, log_softmax_backward
 *            4+4+4, the cast's backward 4+2                                     = 22
 * A Hugging Face causal LM under DeepSpeed's engine: torchtitan's ops plus the shift's
 * .contiguous() copy 4+4 in forward and its slice backward (zero-filled gradient and the
 * copy into it) 4+4+4: 36 + 8 + 12 = 56. DeepSeek-V3: no public code, the fused count (0).
 */
static void test_loss_bytes_counts(void)
{
    const double megatron = (2 + 4) + 4 + (4 + 4) + (4 + 4) + 4 + (4 + 4) + (4 + 4) + (4 + 2);
    const double eager = (2 + 4) + (4 + 4) + 4 + (4 + 4 + 4) + (4 + 2);
    const double hf = eager + (4 + 4) + (4 + 4 + 4);
    const struct {
        const char *name;
        double want;
    } cases[] = {{"megatron-lm-2021", megatron},
                 {"megatron-lm-2022", megatron},
                 {"megatron-core", megatron},
                 {"megatron-core-moe", megatron},
                 {"megatron-deepspeed", megatron},
                 {"nanotron", megatron},
                 {"pytorch-fsdp", eager},
                 {"deepspeed-zero", hf},
                 {"deepseek-v3", 0.0}};
    CU_ASSERT_EQUAL(megatron, 52.0);
    CU_ASSERT_EQUAL(eager, 36.0);
    CU_ASSERT_EQUAL(hf, 56.0);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        PrismFramework *fw = load(cases[i].name);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fw);
        PrismKnobs k;
        prism_knobs_default(&k);
        prism_framework_apply(fw, NULL, &k, NULL);
        CU_ASSERT_TRUE(prism_framework_knob_given(fw, NULL, PRISM_KNOB_LOSS_BYTES));
        CU_ASSERT_EQUAL(k.v[PRISM_KNOB_LOSS_BYTES], cases[i].want);
        prism_framework_free(fw);
    }
}

/* nanotron's split of the blocks by cost, derived by hand. The Playbook's 1.34 B model (h
 * 2048, 32 heads of 64, ffn 8192, vocab 131072): a block costs 4 x 32 x 64 x 2048 + 3 x
 * 8192 x 2048 = 2^24 + 3 x 2^24 = 2^26, the head 131072 x 2048 = 2^28 = 4 blocks; 20
 * blocks' worth in all. pp 2: T_0 = 10, block 10 reaches it: 10 | 6. pp 4: T = 5, 10, 15:
 * blocks 5, 10, 15 close their stages: 5 | 5 | 5 | 1. pp 8: T = 2.5 k: the running sums 3,
 * 5, 8, 10, 13, 15 close stages 0-5 (3, 2, 3, 2, 3, 2 blocks), block 16 (16 < 17.5) is
 * stage 6's, nothing is left for stage 7: 3,2,3,2,3,2,1,0. The sweep's rank-0 parameter
 * counts agree: embedding + 10 blocks = 2^28 + 10 x (2^26 + 2 x 2048) = 940 M at pp 2 and
 * + 5 blocks = 604 M at pp 4 (its bench CSV's "Local Params"). The 8.86 B model (h 4096,
 * 32 heads of 128, ffn 14336, 32 blocks): a block 4 x 4096^2 + 3 x 14336 x 4096 =
 * 243,269,632, the head 131072 x 4096 = 536,870,912 = 2.2069 blocks, 34.2069 in all; pp 2:
 * T_0 = 17.103, block 18 (18 >= 17.103) is the last of stage 0: 18 | 14 (its CSV: 1.23 G
 * at tp 4 = (2^29 + 18 x 243,277,824) / 4); pp 16: T_0 = 2.138: 3 blocks on stage 0 (1.27 G
 * at tp 1 = 2^29 + 3 x 243,277,824). */
static void test_split_by_cost(void)
{
    const double b1 = 4.0 * 32 * 64 * 2048 + 3.0 * 8192 * 2048, h1 = 131072.0 * 2048;
    double c1[16], c8[32];
    for (int i = 0; i < 16; i++)
        c1[i] = b1;
    const uint32_t want2[] = {10, 6}, want4[] = {5, 5, 5, 1}, want8[] = {3, 2, 3, 2, 3, 2, 1, 0};
    const struct {
        uint32_t pp;
        const uint32_t *want;
    } cases[] = {{2, want2}, {4, want4}, {8, want8}};
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        g_autoptr(PrismLayout) l = prism_layout_by_cost(c1, 16, h1, cases[k].pp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        CU_ASSERT_TRUE(l->pp == cases[k].pp && l->vpp == 1 && l->n_layers == 16);
        for (uint32_t s = 0; s < cases[k].pp; s++)
            CU_ASSERT_EQUAL(l->chunk_layers[s], cases[k].want[s]);
    }
    const double b8 = 4.0 * 4096 * 4096 + 3.0 * 14336 * 4096, h8 = 131072.0 * 4096;
    for (int i = 0; i < 32; i++)
        c8[i] = b8;
    g_autoptr(PrismLayout) l2 = prism_layout_by_cost(c8, 32, h8, 2);
    g_autoptr(PrismLayout) l16 = prism_layout_by_cost(c8, 32, h8, 16);
    CU_ASSERT_TRUE(l2->chunk_layers[0] == 18 && l2->chunk_layers[1] == 14);
    CU_ASSERT_EQUAL(l16->chunk_layers[0], 3);
    CU_ASSERT_PTR_NULL(prism_layout_by_cost(c8, 32, h8, 0));
    /* the model's own costs give the same split: the zoo's llama3-8b is the 8.86 B shape
     * but for its vocabulary (128256: head 2.1595 blocks, T_0 = 17.080 at pp 2, still 18) */
    g_autoptr(PrismModel) m = prism_model_zoo_get("llama3-8b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    g_autoptr(PrismLayout) lm = prism_layout_nanotron(m, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lm);
    CU_ASSERT_TRUE(lm->chunk_layers[0] == 18 && lm->chunk_layers[1] == 14);
}

static CU_TestInfo framework_tests[] = {
    {"shipped profiles load with their values", test_shipped},
    {"bad profiles are refused", test_refused},
    {"user knobs over a profile: given at the default still overrides", test_overrides},
    {"memory kinds parse from their names only", test_mem_counts_parse},
    {"each profile's loss_bytes is its framework's count", test_loss_bytes_counts},
    {"nanotron's split of the blocks by cost", test_split_by_cost},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"framework", NULL, NULL, NULL, NULL, framework_tests},
    CU_SUITE_INFO_NULL,
};
