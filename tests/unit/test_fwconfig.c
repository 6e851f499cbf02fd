// SPDX-License-Identifier: MIT
/*
 * test_fwconfig.c - fwconfig.h: for random valid strategies of every target, emit then
 * read gives back the identical strategy, batch, sequence and precision; what a target
 * refuses it refuses with a reason; and the readers refuse malformed files and
 * contradictions with one PRISM_INPUT_ERROR naming the file, key and value.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/framework.h>
#include <prism/fwconfig.h>
#include <prism/space.h>
#include <prism/strategy.h>

#include "prism_test_util.h"

static const char *ext_of(PrismFwTarget t)
{
    switch (t) {
    case PRISM_FWC_TORCHTITAN:
        return "job.toml";
    case PRISM_FWC_NANOTRON:
        return "config.yaml";
    case PRISM_FWC_DEEPSPEED:
        return "launch.sh";
    default:
        return "args.txt";
    }
}

static uint32_t pick(GRand *r, const uint32_t *v, int n)
{
    return v[g_rand_int_range(r, 0, n)];
}

/* A random strategy valid for @p m (NULL after too many tries). */
static gboolean random_strategy(GRand *r, const PrismModel *m, PrismTraining *tr, PrismStrategy *s)
{
    static const uint32_t dev[] = {8, 16, 32, 64, 128}, p2[] = {1, 2, 4, 8}, cpv[] = {1, 2},
                          vppv[] = {1, 1, 2, 3, 4}, mbsv[] = {1, 2, 4}, seqv[] = {2048, 4096};
    for (int tries = 0; tries < 10000; tries++) {
        PrismStrategy x = {0};
        x.devices = pick(r, dev, 5);
        x.tp = pick(r, p2, 4);
        x.pp = pick(r, p2, 4);
        x.cp = pick(r, cpv, 2);
        uint32_t inner = x.tp * x.pp * x.cp;
        if (x.devices % inner)
            continue;
        x.dp = x.devices / inner;
        x.vpp = x.pp > 1 ? pick(r, vppv, 5) : 1;
        x.schedule = (uint8_t)g_rand_int_range(r, 0, PRISM_SCHEDULE_COUNT);
        if (x.pp == 1)
            x.schedule = PRISM_SCHEDULE_1F1B;
        else if (x.vpp > 1 && g_rand_boolean(r))
            x.schedule = PRISM_SCHEDULE_INTERLEAVED;
        x.mbs = pick(r, mbsv, 3);
        tr->gbs = 512;
        tr->seq = pick(r, seqv, 2);
        tr->dtype = g_rand_boolean(r) ? PRISM_DTYPE_BF16
                                      : (PrismDtype)g_rand_int_range(r, 0, PRISM_DTYPE_COUNT);
        if (tr->gbs % ((uint64_t)x.dp * x.mbs))
            continue;
        x.m = (uint32_t)(tr->gbs / ((uint64_t)x.dp * x.mbs));
        x.sp = x.tp > 1 && g_rand_boolean(r);
        x.zero = (uint8_t)g_rand_int_range(r, 0, 4);
        x.recompute = (uint8_t)g_rand_int_range(r, 0, PRISM_RECOMPUTE_COUNT);
        if (g_rand_boolean(r))
            x.recompute = g_rand_boolean(r) ? PRISM_RECOMPUTE_NONE : PRISM_RECOMPUTE_FULL;
        x.rc_layers =
            x.recompute == PRISM_RECOMPUTE_BLOCK ? (uint16_t)g_rand_int_range(r, 1, 4) : 0;
        x.ep = 1;
        x.etp = 0;
        for (uint32_t i = 0; i < m->n_specs; i++)
            if (m->specs[i].mlp.n_experts > 0) {
                x.ep = pick(r, p2, 4);
                x.etp = g_rand_boolean(r) ? 0 : pick(r, p2, 3);
            }
        x.offload = g_rand_int_range(r, 0, 4) == 0 ? (uint8_t)g_rand_int_range(r, 1, 4) : 0;
        x.overlap_off = g_rand_boolean(r) ? (uint8_t)g_rand_int_range(r, 0, 8) : 0;
        for (unsigned bit = 1; bit <= PRISM_OVERLAP_PARAM; bit <<= 1)
            if (!prism_strategy_overlap_applies(&x, (PrismOverlap)bit))
                x.overlap_off &= (uint8_t)~bit;
        if (x.etp == x.tp)
            x.etp = 0;
        if (!prism_strategy_check(&x, m, tr, NULL))
            continue;
        *s = x;
        return TRUE;
    }
    return FALSE;
}

static void roundtrip_model(const char *name, int draws)
{
    PrismModel *m = prism_model_zoo_get(name, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    GRand *r = g_rand_new_with_seed(20261207u);
    for (int t = 0; t < PRISM_FWC_COUNT; t++) {
        /* what --emit does: the target's profile refuses what its framework does not run
         * (plan and sweep never propose it), then the mapping what it cannot spell */
        const char *pname = prism_fw_target_profile((PrismFwTarget)t);
        g_autoptr(PrismFramework) fw = pname ? prism_framework_resolve(pname, NULL) : NULL;
        CU_ASSERT_TRUE(pname == NULL || fw != NULL);
        int emitted = 0, refused = 0, vpp_seen = 0, zero_seen = 0, sched_seen = 0, rc_seen = 0;
        int uneven_seen = 0, cp_seen = 0;
        for (int i = 0; i < draws; i++) {
            PrismTraining tr;
            prism_training_default(&tr);
            PrismStrategy s;
            if (!random_strategy(r, m, &tr, &s))
                continue;
            g_autofree char *why = prism_space_framework_unsupported(fw, m, &s);
            if (why != NULL) {
                refused++;
                continue;
            }
            GError *e = NULL;
            char *text = prism_fwconfig_emit((PrismFwTarget)t, &s, &tr, m, &e);
            if (text == NULL) {
                /* refused: an input error with the reason */
                CU_ASSERT_TRUE(e != NULL && e->domain == PRISM_INPUT_ERROR &&
                               e->code == PRISM_INPUT_ERROR_UNSUPPORTED &&
                               strstr(e->message, "cannot run") != NULL);
                g_clear_error(&e);
                refused++;
                continue;
            }
            emitted++;
            vpp_seen |= s.vpp > 1;
            uneven_seen |= s.vpp > 1 && prism_model_split_layers(m) % (s.pp * s.vpp) != 0;
            cp_seen |= s.cp > 1;
            zero_seen |= 1 << s.zero;
            sched_seen |= 1 << s.schedule;
            rc_seen |= 1 << s.recompute;
            PrismTraining other;
            prism_training_default(&other);
            other.gbs = 64; /* the file's batch, sequence and dtype must win */
            other.seq = 128;
            other.dtype = PRISM_DTYPE_FP16;
            PrismRunConfig *c = prism_fwconfig_from_data(
                text, strlen(text), ext_of((PrismFwTarget)t), s.devices, &other, m, &e);
            if (c == NULL) {
                fprintf(stderr, "\n%s: read back failed: %s\n%s\n", prism_fw_target_name(t),
                        e ? e->message : "?", text);
                CU_FAIL("read back");
                g_clear_error(&e);
                g_free(text);
                continue;
            }
            gboolean same = prism_strategy_equal(&c->strategy, &s) && c->training.gbs == tr.gbs &&
                            c->training.seq == tr.seq && c->training.dtype == tr.dtype &&
                            c->target == (PrismFwTarget)t && c->strategy.devices == s.devices;
            if (!same) {
                g_autofree char *a = prism_strategy_format(&s);
                g_autofree char *b = prism_strategy_format(&c->strategy);
                fprintf(stderr, "\n%s: %s (%s) came back as %s (%s)\n%s\n", prism_fw_target_name(t),
                        a, prism_dtype_name(tr.dtype), b, prism_dtype_name(c->training.dtype),
                        text);
            }
            CU_ASSERT_TRUE(same);
            /* everything the emitter writes, the reader reads */
            CU_ASSERT_EQUAL(c->ignored->len, 0);
            prism_run_config_free(c);
            g_free(text);
        }
        /* every target runs a good share of the space, and a varied one */
        g_test_message("%s %s: %d emitted, %d refused, schedules 0x%x", name,
                       prism_fw_target_name(t), emitted, refused, (unsigned)sched_seen);
        gboolean moe = FALSE;
        for (uint32_t i = 0; i < m->n_specs; i++)
            moe |= m->specs[i].mlp.n_experts > 0;
        if (t == PRISM_FWC_DEEPSPEED && moe) {
            /* that Megatron-DeepSpeed has no mixture-of-experts shape arguments */
            CU_ASSERT_EQUAL(emitted, 0);
            continue;
        }
        CU_ASSERT_TRUE(emitted >= 5);
        /* every schedule the target runs came back: Megatron 1F1B and interleaved;
         * torch.distributed.pipelining all but DualPipe and Seq1F1B; DeepSpeed 1F1B;
         * nanotron 1F1B and all-forward-all-backward (GPipe) */
        static const unsigned schedules[PRISM_FWC_COUNT] = {0x3, 0x3, 0x5f, 0x1, 0x5};
        CU_ASSERT_EQUAL(sched_seen, schedules[t]);
        /* every recompute mode the target runs came back: Megatron's and NeMo's four
         * (block = --recompute-method block); torchtitan's four (block:k as every N-th
         * layer, selective_ac_option = "N"); DeepSpeed and nanotron none or every layer */
        static const unsigned recomputes[PRISM_FWC_COUNT] = {0xf, 0xf, 0xf, 0x5, 0x5};
        CU_ASSERT_EQUAL(rc_seen, recomputes[t]);
        CU_ASSERT_TRUE(refused > 0);
        if (t != PRISM_FWC_DEEPSPEED && t != PRISM_FWC_NANOTRON)
            CU_ASSERT_TRUE(vpp_seen);
        /* torchtitan runs pp*vpp stages that do not divide the layers (split points) */
        if (t == PRISM_FWC_TORCHTITAN)
            CU_ASSERT_TRUE(uneven_seen && cp_seen);
        /* at least two ZeRO stages (each target runs 0 and one sharded stage) */
        CU_ASSERT_TRUE((zero_seen & 1) && (zero_seen & 14));
    }
    g_rand_free(r);
    prism_model_free(m);
}

static void test_roundtrip_dense(void)
{
    roundtrip_model("gpt3-1.3b", 1500);
}

static void test_roundtrip_moe(void)
{
    roundtrip_model("mixtral-8x7b", 800);
}

/* Each bad file: exit-2 class error naming the file, the key and the value. */
static void test_bad_files(void)
{
    PrismModel *m = prism_model_zoo_get("gpt3-175b", NULL);
    PrismTraining tr;
    prism_training_default(&tr);
    static const struct {
        const char *path, *text, *needle1, *needle2;
    } bad[] = {
        {"x.txt", "hello world\n", "x.txt", "not a configuration"},
        {"job.toml", "[parallelism]\ntensor_parallel_degree = = 4\n", "job.toml", "line 2"},
        {"job.toml", "[parallelism\n", "job.toml", "']'"},
        {"job.toml", "[training]\nseq_len = \"2048\nx=1\n", "job.toml", "not closed"},
        {"c.yaml", "parallelism:\n  dp: [1, 2\n", "c.yaml", "malformed YAML"},
        {"c.yaml", "parallelism:\n  dp: 2\n  dp: 4\n", "c.yaml", "parallelism.dp"},
        {"ds.json", "{\"train_batch_size\": 12,,}", "ds.json", "malformed JSON"},
        {"a.txt", "--tensor-model-parallel-size 64\n", "--tensor-model-parallel-size", "R2: tp=64"},
        {"a.txt", "--tensor-model-parallel-size $TP\n", "$TP", "shell variable"},
        {"a.txt", "--micro-batch-size 5 --global-batch-size 1536\n", "--micro-batch-size=5",
         "does not divide"},
        {"a.txt", "--num-layers 32\n", "--num-layers=32", "has 96"},
        {"o.txt", "model.tensor_model_parallel_size=four\n",
         "model.tensor_model_parallel_size=four", "whole number"},
        {"ds.json",
         "{\"train_batch_size\": 1024, \"train_micro_batch_size_per_gpu\": 1, "
         "\"gradient_accumulation_steps\": 7}",
         "gradient_accumulation_steps=7", "needs 1"},
        {"c.yaml", "parallelism:\n  dp: 8\n  tp: 8\n  pp: 16\noptimizer:\n  zero_stage: 3\n",
         "optimizer.zero_stage=3", "allowed: 0 or 1"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        GError *e = NULL;
        PrismRunConfig *c = prism_fwconfig_from_data(bad[i].text, strlen(bad[i].text), bad[i].path,
                                                     1024, &tr, m, &e);
        CU_ASSERT_PTR_NULL(c);
        prism_run_config_free(c);
        gboolean ok = e != NULL && e->domain == PRISM_INPUT_ERROR &&
                      strstr(e->message, bad[i].needle1) && strstr(e->message, bad[i].needle2);
        if (!ok)
            fprintf(stderr, "\ncase %zu: %s\n", i, e ? e->message : "(no error)");
        CU_ASSERT_TRUE(ok);
        g_clear_error(&e);
    }
    prism_model_free(m);
}

/* A hand-written Megatron launch script (the shape of Megatron-LM's examples): torchrun's
 * node count fixes the devices, the old layers-per-virtual-stage spelling gives vpp, and
 * keys prism does not model are listed. 2 nodes x 8 = 16 devices; tp 2 x pp 4 -> dp 2;
 * 96 layers / (pp 4 x 8 layers per virtual stage) = vpp 3; m = 64 / (2 x 1) = 32. */
static void test_megatron_script(void)
{
    PrismModel *m = prism_model_zoo_get("gpt3-175b", NULL);
    PrismTraining tr;
    prism_training_default(&tr);
    const char *script =
        "#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
        "torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \\\n"
        "  --tensor-model-parallel-size 2 --pipeline-model-parallel-size=4 \\\n"
        "  --num-layers-per-virtual-pipeline-stage 8 \\\n"
        "  --sequence-parallel --use-distributed-optimizer --overlap-grad-reduce \\\n"
        "  --micro-batch-size 1 --global-batch-size 64 --seq-length 4096 \\\n"
        "  --lr 6e-5 --bf16 --recompute-activations 2>&1 | tee log.txt\n";
    GError *e = NULL;
    PrismRunConfig *c =
        prism_fwconfig_from_data(script, strlen(script), "train.sh", 1024, &tr, m, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const PrismStrategy *s = &c->strategy;
    CU_ASSERT_EQUAL(c->target, PRISM_FWC_MEGATRON);
    CU_ASSERT_TRUE(s->devices == 16 && s->dp == 2 && s->tp == 2 && s->pp == 4 && s->vpp == 3);
    CU_ASSERT_TRUE(s->schedule == PRISM_SCHEDULE_INTERLEAVED && s->sp == 1 && s->zero == 1);
    CU_ASSERT_TRUE(s->m == 32 && s->recompute == PRISM_RECOMPUTE_SELECTIVE);
    /* tp comm overlap and param gather not stated: off; grad reduce on */
    CU_ASSERT_EQUAL(s->overlap_off, PRISM_OVERLAP_TP | PRISM_OVERLAP_PARAM);
    CU_ASSERT_TRUE(c->training.seq == 4096 && c->training.gbs == 64 &&
                   c->training.dtype == PRISM_DTYPE_BF16);
    gboolean lr = FALSE;
    for (guint i = 0; i < c->ignored->len; i++)
        lr |= strcmp(c->ignored->pdata[i], "--lr") == 0;
    CU_ASSERT_TRUE(lr);
    prism_run_config_free(c);
    prism_model_free(m);
}

/* A hybrid model is refused by every target, with the reason (the emitted files describe
 * transformer blocks only). */
static void test_hybrid_refused(void)
{
    PrismModel *m = prism_model_zoo_get("nemotron-h-8b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismTraining tr;
    prism_training_default(&tr);
    PrismStrategy s;
    CU_ASSERT_TRUE_FATAL(prism_strategy_parse("dp=8,tp=1,pp=1,mbs=1", 8, &tr, &s, NULL));
    for (int t = 0; t < PRISM_FWC_COUNT; t++) {
        GError *e = NULL;
        char *text = prism_fwconfig_emit((PrismFwTarget)t, &s, &tr, m, &e);
        CU_ASSERT_PTR_NULL(text);
        g_free(text);
        CU_ASSERT_TRUE(e != NULL && e->code == PRISM_INPUT_ERROR_UNSUPPORTED &&
                       strstr(e->message, "hybrid model") != NULL);
        g_clear_error(&e);
    }
    prism_model_free(m);
}

/* torchtitan, the two rules of its profile. (1) pp*vpp stages that do not divide the
 * layers: gpt3-1.3b's 24 layers over pp 2 x vpp 5 = 10 stages are 2 each and one more on
 * stages 1..4 (24 = 10 x 2 + 4): 2,3,3,3,3,2,2,2,2,2, split points after the running sums
 * 2, 5, 8, 11, 14, 16, 18, 20, 22; they read back as vpp 5, another split is refused with
 * the one prism prices. (2) cp > 1 shards: zero=0 with cp 2 is refused by the profile and
 * a replicated file with cp 2 (HSDP over the context ranks) by the reader. */
static void test_titan_rules(void)
{
    PrismModel *m = prism_model_zoo_get("gpt3-1.3b", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismTraining tr;
    prism_training_default(&tr);
    tr.gbs = 64;
    tr.seq = 2048;
    PrismStrategy s;
    CU_ASSERT_TRUE_FATAL(prism_strategy_parse(
        "dp=4,pp=2,vpp=5,tp=1,mbs=2,zero=3,recompute=full,schedule=interleaved", 8, &tr, &s, NULL));
    CU_ASSERT_TRUE_FATAL(prism_strategy_check(&s, m, &tr, NULL));
    g_autoptr(PrismFramework) fw = prism_framework_resolve("pytorch-fsdp", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fw);
    g_autofree char *ok = prism_space_framework_unsupported(fw, m, &s);
    CU_ASSERT_PTR_NULL(ok);
    GError *e = NULL;
    g_autofree char *text = prism_fwconfig_emit(PRISM_FWC_TORCHTITAN, &s, &tr, m, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "pipeline_parallel_split_points = [\"layers.2\", "
                                        "\"layers.5\", \"layers.8\", \"layers.11\", "
                                        "\"layers.14\", \"layers.16\", \"layers.18\", "
                                        "\"layers.20\", \"layers.22\"]"));
    CU_ASSERT_PTR_NULL(strstr(text, "layers_per_stage"));
    PrismRunConfig *c = prism_fwconfig_from_data(text, strlen(text), "job.toml", 8, &tr, m, &e);
    CU_ASSERT_TRUE_FATAL(c != NULL);
    CU_ASSERT_TRUE(prism_strategy_equal(&c->strategy, &s) && c->strategy.vpp == 5);
    prism_run_config_free(c);
    static const char *const bad[] = {
        /* the even split 24/10 cannot be: 2.4 layers; this one moves a layer to stage 0 */
        "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "
        "\"Interleaved1F1B\"\npipeline_parallel_split_points = [\"layers.3\", \"layers.5\", "
        "\"layers.8\", \"layers.11\", \"layers.14\", \"layers.16\", \"layers.18\", "
        "\"layers.20\", \"layers.22\"]\n",
        /* 3 stages on pp 2 */
        "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_split_points = "
        "[\"layers.8\", \"layers.16\"]\n",
        /* replicas with context parallelism: HSDP */
        "[parallelism]\ndata_parallel_replicate_degree = 4\ndata_parallel_shard_degree = 1\n"
        "context_parallel_degree = 2\n"};
    static const char *const needle[] = {"allowed: layers.2,layers.5,layers.8", "multiple of 2",
                                         "data_parallel_replicate_degree=4"};
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        c = prism_fwconfig_from_data(bad[i], strlen(bad[i]), "job.toml", 8, &tr, m, &e);
        CU_ASSERT_PTR_NULL(c);
        prism_run_config_free(c);
        const gboolean hit = e != NULL && e->domain == PRISM_INPUT_ERROR &&
                             strstr(e->message, "job.toml") && strstr(e->message, needle[i]);
        if (!hit)
            fprintf(stderr, "\ncase %zu: %s\n", i, e ? e->message : "(no error)");
        CU_ASSERT_TRUE(hit);
        g_clear_error(&e);
    }
    CU_ASSERT_TRUE_FATAL(prism_strategy_parse("dp=4,cp=2,tp=1,mbs=1,zero=0", 8, &tr, &s, NULL));
    g_autofree char *why = prism_space_framework_unsupported(fw, m, &s);
    CU_ASSERT_TRUE(why != NULL && strstr(why, "context_parallel_sharding") != NULL);
    prism_model_free(m);
}

static CU_TestInfo fwconfig_tests[] = {
    {"torchtitan: uneven stages and sharded context parallelism", test_titan_rules},
    {"a hybrid model is refused", test_hybrid_refused},
    {"round trip, dense", test_roundtrip_dense},
    {"round trip, MoE", test_roundtrip_moe},
    {"bad files", test_bad_files},
    {"a Megatron launch script", test_megatron_script},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"fwconfig", NULL, NULL, NULL, NULL, fwconfig_tests},
    CU_SUITE_INFO_NULL,
};
