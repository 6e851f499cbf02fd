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
        /* the dtypes up to nvfp4: the draws the coverage below was seeded on (mxfp4, like
         * nvfp4, is refused by every target: checked on the first emitted draw) */
        tr->dtype = g_rand_boolean(r) ? PRISM_DTYPE_BF16
                                      : (PrismDtype)g_rand_int_range(r, 0, PRISM_DTYPE_MXFP4);
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
            if (emitted == 0) {
                /* the FP4 recipes' switches are mapped for no target: refused, named */
                PrismTraining t4 = tr;
                t4.dtype = PRISM_DTYPE_MXFP4;
                char *t4text = prism_fwconfig_emit((PrismFwTarget)t, &s, &t4, m, &e);
                CU_ASSERT_PTR_NULL(t4text);
                CU_ASSERT_TRUE(e != NULL && e->code == PRISM_INPUT_ERROR_UNSUPPORTED &&
                               strstr(e->message, "dtype mxfp4") != NULL);
                g_free(t4text);
                g_clear_error(&e);
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
            /* everything the emitter writes, the reader reads; the default split comes
             * back as the default split (Megatron's uneven first/last stages included) */
            CU_ASSERT_EQUAL(c->ignored->len, 0);
            CU_ASSERT_PTR_NULL(c->chunk_layers);
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
        {"a.txt", "--tensor-model-parallel-size 3\n", "a.txt: --tensor-model-parallel-size=3",
         "does not divide the 1024 devices (R1"},
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
 * 2, 5, 8, 11, 14, 16, 18, 20, 22; they read back as vpp 5, another split as the file's
 * own split. (2) cp > 1 shards: zero=0 with cp 2 is refused by the profile and
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
    /* another split (a layer moved from stage 1 to stage 0: 3,2,3,3,3,2,2,2,2,2) is read
     * as the file's own split, and written back as the same points */
    const char *moved =
        "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "
        "\"Interleaved1F1B\"\npipeline_parallel_split_points = [\"layers.3\", "
        "\"layers.5\", \"layers.8\", \"layers.11\", \"layers.14\", "
        "\"layers.16\", \"layers.18\", \"layers.20\", \"layers.22\"]\n"
        "pipeline_parallel_microbatch_size = 2\n[training]\nglobal_batch_size = 64\n"
        "[activation_checkpoint]\nmode = \"none\"\n";
    c = prism_fwconfig_from_data(moved, strlen(moved), "job.toml", 8, &tr, m, &e);
    CU_ASSERT_TRUE_FATAL(c != NULL && c->chunk_layers != NULL);
    static const uint32_t want[10] = {3, 2, 3, 3, 3, 2, 2, 2, 2, 2};
    CU_ASSERT_EQUAL(memcmp(c->chunk_layers, want, sizeof want), 0);
    g_autofree char *again = prism_fwconfig_emit_layout(PRISM_FWC_TORCHTITAN, &c->strategy,
                                                        c->chunk_layers, &c->training, m, &e);
    CU_ASSERT_TRUE(again != NULL && strstr(again, "[\"layers.3\", \"layers.5\", \"layers.8\""));
    prism_run_config_free(c);
    static const char *const bad[] = {
        /* a stage without a layer */
        "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_split_points = "
        "[\"layers.8\", \"layers.8\", \"layers.16\"]\n",
        /* 3 stages on pp 2 */
        "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_split_points = "
        "[\"layers.8\", \"layers.16\"]\n",
        /* replicas with context parallelism: HSDP */
        "[parallelism]\ndata_parallel_replicate_degree = 4\ndata_parallel_shard_degree = 1\n"
        "context_parallel_degree = 2\n"};
    static const char *const needle[] = {"every stage holds a layer", "multiple of 2",
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

/* @p text ("args.txt", 24 devices) reads back as target @p t's strategy @p s with split
 * @p chunks (NULL: the default one), every key read. */
static void reads_back(const char *text, const PrismTraining *tr, const PrismModel *m,
                       const PrismStrategy *s, const uint32_t *chunks, PrismFwTarget t)
{
    GError *e = NULL;
    PrismRunConfig *c = prism_fwconfig_from_data(text, strlen(text), "args.txt", 24, tr, m, &e);
    if (c == NULL)
        fprintf(stderr, "\n%s\n%s\n", e ? e->message : "?", text);
    g_clear_error(&e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_TRUE(prism_strategy_equal(&c->strategy, s));
    CU_ASSERT_EQUAL(c->target, t);
    CU_ASSERT_EQUAL(c->ignored->len, 0);
    CU_ASSERT_TRUE(chunks == NULL
                       ? c->chunk_layers == NULL
                       : c->chunk_layers != NULL &&
                             memcmp(c->chunk_layers, chunks, s->pp * s->vpp * sizeof *chunks) == 0);
    prism_run_config_free(c);
}

/* Megatron file @p text ("a.txt", 24 devices) is refused with one input error naming the
 * file and holding @p needle. */
static void refused_file(const char *text, const PrismTraining *tr, const PrismModel *m,
                         const char *needle)
{
    GError *e = NULL;
    PrismRunConfig *c = prism_fwconfig_from_data(text, strlen(text), "a.txt", 24, tr, m, &e);
    CU_ASSERT_PTR_NULL(c);
    prism_run_config_free(c);
    const gboolean hit = e != NULL && e->domain == PRISM_INPUT_ERROR &&
                         strstr(e->message, "a.txt") && strstr(e->message, needle);
    if (!hit)
        fprintf(stderr, "\n%s: %s\n", text, e ? e->message : "(no error)");
    CU_ASSERT_TRUE(hit);
    g_clear_error(&e);
}

/* Megatron-Core's uneven splits (transformer_config.py: the first/last stage counts, the
 * middle stages' equal share, every virtual stage alike; or the embedding/loss counted as
 * a layer), by hand; chunk c of stage s at [c * pp + s]:
 *  llama3-8b, 32 layers
 *   a. pp 3, the default split: 32 = 3 x 10 + 2, one more on chunks 1, 2: 10,11,11. The
 *      first stage differs from the middle one (11), the last does not: first 10 only,
 *      the 22 left over the 2 other stages, 11 each. Reads back as the default split.
 *   b. pp 4, refined 7,9,9,7: first 7, last 7, the 18 left over 2 middle stages, 9 each.
 *   c. pp 2 x vpp 2, refined 6,10,6,10: stage 0 holds 6 + 6 = 12, stage 1 10 + 10 = 20;
 *      pp 2 has no middle stage: first 12 and last 20.
 *   (pp 2 x vpp 3's default split, 5,6,6,5,5,5, is test_megatron_layout's: no first/last
 *   or embedding/loss setting places it)
 *  llama2-13b, 40 layers
 *   e. pp 2 x vpp 3, the default split 40 = 6 x 6 + 4: 6,7,7,7,7,6 = (40 + 2) / 6 = 7 per
 *      chunk with the embedding and the loss counted, one fewer on the first and last
 *      chunk: both account flags, no first/last counts (stage 0's chunks hold 6 and 7).
 * And as Megatron-Bridge overrides (a): model.num_layers_in_first_pipeline_stage=10. */
static void test_megatron_split(void)
{
    static const struct {
        const char *model, *strategy;
        uint32_t chunks[6]; /* {0}: the default split */
        const char *want[3], *absent;
    } cases[] = {
        {"llama3-8b", "pp=3", {0}, {"--decoder-first-pipeline-num-layers 10 "}, "last-pipeline"},
        {"llama3-8b",
         "pp=4",
         {7, 9, 9, 7},
         {"--decoder-first-pipeline-num-layers 7 ", "--decoder-last-pipeline-num-layers 7 "},
         "account-for"},
        {"llama3-8b",
         "pp=2,vpp=2,schedule=interleaved",
         {6, 10, 6, 10},
         {"--decoder-first-pipeline-num-layers 12 ", "--decoder-last-pipeline-num-layers 20 ",
          "--num-virtual-stages-per-pipeline-rank 2 "},
         "account-for"},
        {"llama2-13b",
         "pp=2,vpp=3,schedule=interleaved",
         {0},
         {"--account-for-embedding-in-pipeline-split \\",
          "--account-for-loss-in-pipeline-split \\"},
         "-pipeline-num-layers"},
    };
    PrismTraining tr;
    prism_training_default(&tr);
    tr.gbs = 48; /* 24 devices: dp 8, 6 or 12 */
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        PrismModel *m = prism_model_zoo_get(cases[i].model, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        PrismStrategy s;
        g_autofree char *st = g_strdup_printf("%s,tp=1,mbs=1", cases[i].strategy);
        CU_ASSERT_TRUE_FATAL(prism_strategy_parse(st, 24, &tr, &s, NULL));
        const uint32_t *chunks = cases[i].chunks[0] ? cases[i].chunks : NULL;
        GError *e = NULL;
        char *text = prism_fwconfig_emit_layout(PRISM_FWC_MEGATRON, &s, chunks, &tr, m, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        for (int k = 0; k < 3 && cases[i].want[k]; k++)
            CU_ASSERT_PTR_NOT_NULL(strstr(text, cases[i].want[k]));
        CU_ASSERT_PTR_NULL(strstr(text, cases[i].absent));
        reads_back(text, &tr, m, &s, chunks, PRISM_FWC_MEGATRON);
        g_free(text);
        if (i == 0) {
            text = prism_fwconfig_emit_layout(PRISM_FWC_NEMO, &s, NULL, &tr, m, &e);
            CU_ASSERT_TRUE(text != NULL &&
                           strstr(text, "model.num_layers_in_first_pipeline_stage=10\n") &&
                           strstr(text, "model.num_layers_in_last_pipeline_stage=null\n") &&
                           strstr(text, "model.pipeline_model_parallel_layout=null\n"));
            g_free(text);
        }
        prism_model_free(m);
    }
    /* files Megatron-Core refuses, refused with the setting, its value and what is allowed
     * (llama3-8b, 32 layers): 32 - 9 = 23 over 2 stages; no flags and 32 over 3 stages;
     * both forms at once; the older layers-per-virtual-stage spelling with uneven stages */
    PrismModel *m = prism_model_zoo_get("llama3-8b", NULL);
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"--pipeline-model-parallel-size 3 --decoder-first-pipeline-num-layers 9\n",
         "--decoder-first-pipeline-num-layers=9: the 23 layers left"},
        {"--pipeline-model-parallel-size 3\n",
         "--pipeline-model-parallel-size=3: 32 layers do not divide"},
        {"--pipeline-model-parallel-size 4 --decoder-last-pipeline-num-layers 8 "
         "--account-for-embedding-in-pipeline-split\n",
         "--decoder-last-pipeline-num-layers=8: the first/last stage layer counts exclude"},
        {"--pipeline-model-parallel-size 2 --decoder-first-pipeline-num-layers 12 "
         "--num-layers-per-virtual-pipeline-stage 2\n",
         "--num-layers-per-virtual-pipeline-stage=2"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        refused_file(bad[i].text, &tr, m, bad[i].needle);
    prism_model_free(m);
}

/* Splits no first/last count or embedding/loss setting places, written as Megatron-Core's
 * --pipeline-model-parallel-layout and read back to the same strategy and split; the
 * strings by hand (stages in pipeline order, chunk c of stage s at c * pp + s; E the
 * embedding, t a decoder layer, m an MTP layer, L the loss; a run of equal stages before
 * the last as "(stage|)*r"):
 *  llama3-8b, 32 layers
 *   a. pp 2 x vpp 3, the default split 32 = 6 x 5 + 2: 5,6,6,5,5,5. Stage 1's chunks
 *      (1, 3, 5) hold 6, 5, 5, not alike: no first/last counts; 5 = 6 - 1 on both ends,
 *      but (32 + 2) / 6 is no whole number: no embedding/loss setting.
 *      E,t*5 | t*6 | t*6 | t*5 | t*5 | t*5,L -> "E,t*5|(t*6|)*2,(t*5|)*2,t*5,L"; reads back
 *      as the default split, vpp 3 from the 6 stages.
 *   b. pp 4, uneven first/last and middle stages, 7,8,9,8: the middle stages differ.
 *      "E,t*7|t*8|t*9|t*8,L"
 *   c. pp 2 x vpp 2, 7,9,8,8: stage 0's chunks (0, 2) hold 7 and 8, not alike.
 *      "E,t*7|t*9|t*8|t*8,L" (the last stage ends with L: no run with the third)
 *   d. pp 4 x vpp 2, 3,4,4,4,4,4,4,5: stage 0's chunks hold 3 and 4; 3 + 1 != 5.
 *      "E,t*3|(t*4|)*6,t*5,L"
 *   e. pp 2 x vpp 2, 0,16,16,0: empty first and last chunks (the first/last counts must
 *      be > 0). "E|(t*16|)*2,L"
 *  deepseek-v3, 61 decoder layers + 1 MTP layer = 62 split layers
 *   f. pp 2 x vpp 2, the default split 62 = 4 x 15 + 2: 15,16,16,15, the MTP layer the last
 *      of chunk 3 (14 decoder layers and m); the first/last counts 30 and 32 exceed the 61
 *      decoder layers, and 15 = 16 - 1 on chunk 0 but 14 on chunk 3.
 *      "E,t*15|(t*16|)*2,t*14,m,L"
 *   g. pp 2 x vpp 2, 16,16,30,0: the MTP layer ends chunk 2, the last virtual stage of
 *      rank 0 (chunk 3 holds the loss alone). "E,t*16|t*16|t*29,m|L"
 *   h. pp 2 x vpp 2, 31,31,0,0: the MTP layer would end chunk 1, in the first virtual
 *      stage: refused.
 *   i. pp 4 x vpp 2, 10,10,10,10,10,12,0,0: the MTP layer ends chunk 5, the last virtual
 *      stage of rank 1 (chunks 4 to 7 are the last virtual stage), chunk 6 empty.
 *      "E,t*10|(t*10|)*4,t*11,m||L"
 * Read back from Megatron's own spelling: an MTP layer in chunk 1 of pp 2 x vpp 2, the
 * first virtual stage of rank 1, is refused. */
static void test_megatron_layout(void)
{
    static const struct {
        const char *model, *strategy;
        uint32_t chunks[8]; /* {0}: the default split */
        const char *layout; /* NULL: refused */
    } cases[] = {
        {"llama3-8b", "pp=2,vpp=3", {0}, "E,t*5|(t*6|)*2,(t*5|)*2,t*5,L"},
        {"llama3-8b", "pp=4", {7, 8, 9, 8}, "E,t*7|t*8|t*9|t*8,L"},
        {"llama3-8b", "pp=2,vpp=2", {7, 9, 8, 8}, "E,t*7|t*9|t*8|t*8,L"},
        {"llama3-8b", "pp=4,vpp=2", {3, 4, 4, 4, 4, 4, 4, 5}, "E,t*3|(t*4|)*6,t*5,L"},
        {"llama3-8b", "pp=2,vpp=2", {0, 16, 16, 0}, "E|(t*16|)*2,L"},
        {"deepseek-v3", "pp=2,vpp=2", {0}, "E,t*15|(t*16|)*2,t*14,m,L"},
        {"deepseek-v3", "pp=2,vpp=2", {16, 16, 30, 0}, "E,t*16|t*16|t*29,m|L"},
        {"deepseek-v3", "pp=2,vpp=2", {31, 31, 0, 0}, NULL},
        {"deepseek-v3", "pp=4,vpp=2", {10, 10, 10, 10, 10, 12, 0, 0}, "E,t*10|(t*10|)*4,t*11,m||L"},
    };
    PrismTraining tr;
    prism_training_default(&tr);
    tr.gbs = 48; /* 24 devices: dp 12 or 6 */
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        PrismModel *m = prism_model_zoo_get(cases[i].model, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        PrismStrategy s;
        g_autofree char *st =
            g_strdup_printf("%s,tp=1,mbs=1%s", cases[i].strategy,
                            strstr(cases[i].strategy, "vpp") ? ",schedule=interleaved" : "");
        CU_ASSERT_TRUE_FATAL(prism_strategy_parse(st, 24, &tr, &s, NULL));
        const uint32_t *chunks = cases[i].chunks[0] || cases[i].chunks[1] ? cases[i].chunks : NULL;
        for (int t = PRISM_FWC_MEGATRON; t <= PRISM_FWC_NEMO; t++) {
            GError *e = NULL;
            char *text = prism_fwconfig_emit_layout((PrismFwTarget)t, &s, chunks, &tr, m, &e);
            if (cases[i].layout == NULL) {
                CU_ASSERT_PTR_NULL(text);
                CU_ASSERT_TRUE(e != NULL && e->code == PRISM_INPUT_ERROR_UNSUPPORTED &&
                               strstr(e->message, "31,31,0,0 in pipeline order, puts its 1 MTP "
                                                  "layers outside the last virtual stage"));
                g_clear_error(&e);
                g_free(text);
                continue;
            }
            CU_ASSERT_PTR_NOT_NULL_FATAL(text);
            /* the layout, shell quoted (and Hydra quoted in an override); the virtual stages
             * from it alone (Megatron-LM) or equal to it (Megatron-Bridge); no other split
             * setting */
            g_autofree char *want =
                t == PRISM_FWC_MEGATRON
                    ? g_strdup_printf("\n--pipeline-model-parallel-layout '%s' \\\n",
                                      cases[i].layout)
                    : g_strdup_printf("\nmodel.pipeline_model_parallel_layout=\"'%s'\"\n",
                                      cases[i].layout);
            g_autofree char *vpp =
                g_strdup_printf("\nmodel.virtual_pipeline_model_parallel_size=%u\n", s.vpp);
            const gboolean ok =
                strstr(text, want) != NULL && strstr(text, "-pipeline-num-layers ") == NULL &&
                (t == PRISM_FWC_MEGATRON ||
                 strstr(text, "model.num_layers_in_first_pipeline_stage=null\n") != NULL) &&
                (t == PRISM_FWC_MEGATRON
                     ? strstr(text, "--num-virtual-stages-per-pipeline-rank") == NULL &&
                           strstr(text, "--account-for") == NULL
                     : (s.vpp == 1 || strstr(text, vpp) != NULL) &&
                           strstr(text, "_in_pipeline_split=false\n") != NULL);
            if (!ok)
                fprintf(stderr, "\ncase %zu %s: want %s\n%s\n", i,
                        prism_fw_target_name((PrismFwTarget)t), want, text);
            CU_ASSERT_TRUE(ok);
            reads_back(text, &tr, m, &s, chunks, (PrismFwTarget)t);
            g_free(text);
        }
        if (i + 1 == G_N_ELEMENTS(cases))
            refused_file("--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
                         "'Et*30|t*31,m||L'\n",
                         &tr, m, "the MTP layers in stage 1, not in the last virtual stage");
        prism_model_free(m);
    }
    /* Megatron-Core's own spelling reads the same: its repeats, cosmetic commas anywhere,
     * a layout of one stage per rank (vpp 1): 10 + 11 + 11 = llama3-8b's default pp 3 */
    PrismModel *m = prism_model_zoo_get("llama3-8b", NULL);
    static const char *const same[] = {
        "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
        "'Et*5|(t*6|)*2(t*5|)*2t*5L'\n",
        "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
        "'E,t,t,t,t,t|t*6|tttttt|t*5|t*5|t,t*4,L'\n",
        "--pipeline-model-parallel-size 3 --pipeline-model-parallel-layout "
        "'Et*10|(t*11|)*1t*11L'\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(same); i++) {
        GError *e = NULL;
        PrismRunConfig *c =
            prism_fwconfig_from_data(same[i], strlen(same[i]), "a.txt", 24, &tr, m, &e);
        if (c == NULL)
            fprintf(stderr, "\nsame %zu: %s\n", i, e ? e->message : "?");
        CU_ASSERT_TRUE(c != NULL && c->chunk_layers == NULL &&
                       c->strategy.vpp == (i < 2 ? 3u : 1u) && c->strategy.pp == (i < 2 ? 2u : 3u));
        prism_run_config_free(c);
        g_clear_error(&e);
    }
    /* malformed layouts and layouts Megatron refuses beside other split settings: one
     * message naming the file, the key, the value and what is allowed */
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'E,t*16|t*17,L'\n",
         "a.txt: --pipeline-model-parallel-layout=E,t*16|t*17,L: 33 decoder layers (t), the "
         "model has 32 (allowed: Megatron-Core's layout"},
        {"--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Et*16|x|t*16L'\n",
         "'x' is no layer (allowed:"},
        {"--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Et*16|t*8|t*8L'\n",
         "3 stages on pipeline size 2"},
        {"--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 't*16E|t*16L'\n",
         "the embedding (E) must come first, once"},
        {"--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout '(t|)*99999999'\n",
         "its repeats expand past 2^20 characters"},
        {"--pipeline-model-parallel-size 2 --decoder-first-pipeline-num-layers 16 "
         "--pipeline-model-parallel-layout 'Et*16|t*16L'\n",
         "--pipeline-model-parallel-layout=Et*16|t*16L: --decoder-first-pipeline-num-layers is "
         "set too (allowed: the layout alone"},
        {"--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2 "
         "--pipeline-model-parallel-layout 'Et*8|t*8|t*8|t*8L'\n",
         "--num-virtual-stages-per-pipeline-rank is set too"},
        {"model.pipeline_model_parallel_size=2\nmodel.virtual_pipeline_model_parallel_size=3\n"
         "model.pipeline_model_parallel_layout=\"'Et*8|t*8|t*8|t*8L'\"\n",
         "a.txt: model.virtual_pipeline_model_parallel_size=3: the layout "
         "model.pipeline_model_parallel_layout holds 4 stages, 2 per rank"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
        refused_file(bad[i].text, &tr, m, bad[i].needle);
    prism_model_free(m);
}

static CU_TestInfo fwconfig_tests[] = {
    {"torchtitan: uneven stages and sharded context parallelism", test_titan_rules},
    {"a hybrid model is refused", test_hybrid_refused},
    {"round trip, dense", test_roundtrip_dense},
    {"round trip, MoE", test_roundtrip_moe},
    {"bad files", test_bad_files},
    {"a Megatron launch script", test_megatron_script},
    {"Megatron: uneven first/last stages", test_megatron_split},
    {"Megatron: any split as a layout string", test_megatron_layout},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"fwconfig", NULL, NULL, NULL, NULL, fwconfig_tests},
    CU_SUITE_INFO_NULL,
};
