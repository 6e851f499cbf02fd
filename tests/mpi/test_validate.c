// SPDX-License-Identifier: MIT
/*
 * test_validate.c - `prism validate` (validate.h, search/analysis/validate.c): what each row
 * becomes (predicted, planned, skipped), which framework profile it runs under (column,
 * then --framework, then sources.ini), the profile's defaults against the planned dims,
 * OOM rows, MoE rows, malformed cells, and the planned rows' search against an independent
 * brute force that enumerates the same restricted space with nested loops and
 * prism_strategy_check(). Runs at 1-4 ranks: the search is collective, everything else is
 * checked on every rank, so planned rows are rank-invariant.
 *
 * Data: tests/data/validation/planned.csv (four MLM_README_H100_2024 rows: GPT-1.7B on 48
 * GPUs tp 1 pp 1; GPT-7.1B on 96 GPUs tp 2 pp 1 with micro-batch 2 and selective
 * recompute written in; GPT-70B on 768 GPUs tp 8 pp 2, 84 layers; a 4-layer GPT on 8 GPUs
 * whose whole layout is left out) and
 * tests/data/validation/frameworks.csv (fifteen rows, one case each, described below).
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <glib/gstdio.h>

#include <prism/core.h>
#include <prism/cost.h>
#include <prism/strategy.h>
#include <prism/validate.h>

#include "../unit/test_cost_support.h"
#include "prism_test_util.h"

static PrismValidateReport *run(const char *name, const PrismFramework *fw)
{
    g_autofree char *csv = prism_test_data_path(name);
    const PrismValidateOptions opt = {.user = NULL, .framework = fw};
    GError *error = NULL;
    PrismValidateReport *r = prism_validate_run(prism_test_comm(), csv, &opt, &error);
    if (r == NULL)
        fprintf(stderr, "\n  validate %s: %s\n", name, error->message);
    g_clear_error(&error);
    return r;
}

/* A GPT as validate builds it from a row: learned positions, LayerNorm, GeLU, biases,
 * ffn 4h (test_gpt_model with the positions, biases and tying set here). */
static PrismModel *gpt(uint32_t L, uint64_t h, uint32_t a, uint64_t V, uint64_t seq, gboolean tied)
{
    PrismModel *m = test_gpt_model(L, h, a, V);
    m->max_positions = seq;
    m->pos = PRISM_POS_LEARNED;
    m->tied_embeddings = tied;
    m->specs[0].attn.qkv_bias = m->specs[0].attn.out_bias = m->specs[0].mlp.bias = TRUE;
    return m;
}

static const PrismValidateRow *row(const PrismValidateReport *r, guint i)
{
    return g_ptr_array_index(r->rows, i);
}

/*
 * planned.csv under megatron-core (sources.ini): defaults zero_stage 1 (needed by
 * --overlap-param-gather) and sp 1 when tp > 1 (needed by --tp-comm-overlap); no default
 * for micro-batch, recompute, vpp, schedule.
 *   GPT-1.7B: pp 1 -> vpp 1 and 1f1b; tp 1 -> sp 0; micro_batch and recompute planned.
 *   GPT-7.1B: mbs 2 and selective stated, pp 1, zero 1 and sp 1 by default: PREDICTED.
 *   GPT-70B: vpp and schedule planned too; equal chunks (the space's rule, not an --only
 *   text): L/pp = 42, vpp in {1,2,3,6,7,14,21,42}, which the brute force below writes out.
 *   GPT-tiny: tp, pp, dp, cp and ep empty: the layout is planned too, nothing fixed but
 *   offload; zero 1 and sp 1 hold where the shape rules allow them (zero 0 where dp*cp =
 *   1, sp 0 where tp = 1), not fixed (a fixed zero 1 or sp 1 would drop those layouts).
 */
static void test_planned_rows(void)
{
    g_autoptr(PrismValidateReport) r = run("validation/planned.csv", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(r->rows->len, 4);
    CU_ASSERT_TRUE(r->n_predicted == 1 && r->n_planned == 3 && r->n_skipped == 0);
    const PrismValidateRow *a = row(r, 0), *b = row(r, 1), *c = row(r, 2), *d = row(r, 3);
    CU_ASSERT_EQUAL(a->kind, PRISM_VALIDATE_PLANNED);
    CU_ASSERT_STRING_EQUAL(a->framework, "megatron-core");
    CU_ASSERT_STRING_EQUAL(a->framework_from, "sources.ini");
    CU_ASSERT_STRING_EQUAL(a->fixed,
                           "tp=1,pp=1,cp=1,ep=1,vpp=1,zero=1,sp=0,schedule=1f1b,offload=0");
    CU_ASSERT_STRING_EQUAL(a->only, "schedule=1f1b,interleaved,zero=0,1,offload=0,1");
    CU_ASSERT_STRING_EQUAL(a->planned, "micro_batch,recompute");
    CU_ASSERT_STRING_EQUAL(a->defaults, "zero=1,sp=0");
    CU_ASSERT_EQUAL(b->kind, PRISM_VALIDATE_PREDICTED);
    CU_ASSERT_STRING_EQUAL(b->defaults, "zero=1,sp=1");
    CU_ASSERT_PTR_NOT_NULL(strstr(b->strategy, "dp=48,tp=2,pp=1,vpp=1,cp=1,ep=1,sp=1,"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(b->strategy, "mbs=2,m=2,zero=1,recompute=selective") /* m = 192 / (48 x 2) */);
    CU_ASSERT_EQUAL(c->kind, PRISM_VALIDATE_PLANNED);
    CU_ASSERT_STRING_EQUAL(c->fixed, "tp=8,pp=2,cp=1,ep=1,zero=1,sp=1,offload=0");
    CU_ASSERT_STRING_EQUAL(c->only, "schedule=1f1b,interleaved,zero=0,1,offload=0,1");
    CU_ASSERT_STRING_EQUAL(c->planned, "micro_batch,recompute,vpp,schedule");
    CU_ASSERT_EQUAL(d->kind, PRISM_VALIDATE_PLANNED);
    CU_ASSERT_STRING_EQUAL(d->fixed, "offload=0");
    CU_ASSERT_STRING_EQUAL(d->planned, "tp,pp,dp,cp,ep,micro_batch,recompute,vpp,schedule");
    CU_ASSERT_STRING_EQUAL(d->defaults, "zero=1 where dp*cp > 1,sp=1 where tp > 1");
    CU_ASSERT_TRUE(d->devices == 8 && d->tp == 0 && d->pp == 0 && d->dp == 0 && d->gbs == 16);
    /* bf16 from sources.ini; the 1.7B's measured MFU 0.41 */
    CU_ASSERT_STRING_EQUAL(a->dtype, "bf16");
    CU_ASSERT_EQUAL(a->meas[PRISM_VM_MFU], 0.41);
    /* statistics: MLM_README_H100_2024 predicted (1 row) and planned (2 rows) apart */
    int pred_rows = 0, plan_rows = 0;
    for (guint i = 0; i < r->stats->len; i++) {
        const PrismValidateStat *s = g_ptr_array_index(r->stats, i);
        if (s->kind == PRISM_VALIDATE_PREDICTED)
            pred_rows += s->rows;
        else
            plan_rows += s->rows;
    }
    CU_ASSERT_TRUE(pred_rows == 1 && plan_rows == 3);
}

/* The brute force: every (tp, pp, cp, vpp, schedule, recompute, mbs) by nested loops (tp
 * and pp as given, 0 = every divisor; cp 1 unless both are 0), dp derived, zero 1 where
 * dp*cp > 1 (else 0) and sp on where tp > 1, Megatron-Core's restrictions written out again
 * (1F1B or interleaved, equal chunks: pp*vpp dividing L), prism_strategy_check for the
 * shape rules. */
typedef struct Brute {
    uint64_t valid, feasible;
    double best_step;
} Brute;

static Brute brute_force(const PrismCostModel *cm, uint32_t devices, uint32_t tp0, uint32_t pp0)
{
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismTraining *t = prism_cost_model_training(cm);
    const uint32_t L = prism_model_split_layers(model);
    const gboolean all_cp = tp0 == 0 && pp0 == 0;
    Brute b = {0, 0, INFINITY};
    for (uint32_t tp = 1; tp <= devices; tp++)
        for (uint32_t pp = 1; pp <= devices; pp++)
            for (uint32_t cp = 1; cp <= (all_cp ? devices : 1); cp++) {
                if ((tp0 && tp != tp0) || (pp0 && pp != pp0) || devices % (tp * pp * cp) != 0)
                    continue;
                const uint32_t dp = devices / (tp * pp * cp);
                for (uint32_t vpp = 1; vpp * pp <= L; vpp++) {
                    if (L % (pp * vpp) != 0)
                        continue;
                    for (int sch = 0; sch < 2; sch++)           /* 1f1b, interleaved */
                        for (uint32_t rc = 0; rc < 3 + L; rc++) /* none, selective, full, block:k */
                            for (uint32_t mbs = 1; mbs <= t->gbs / dp; mbs++) {
                                if (t->gbs % ((uint64_t)dp * mbs) != 0)
                                    continue;
                                PrismStrategy s = {.devices = devices,
                                                   .dp = dp,
                                                   .tp = tp,
                                                   .pp = pp,
                                                   .vpp = vpp,
                                                   .cp = cp,
                                                   .ep = 1,
                                                   .mbs = mbs,
                                                   .m = (uint32_t)(t->gbs / (dp * mbs)),
                                                   .sp = tp > 1 ? 1 : 0,
                                                   .zero = dp * cp > 1 ? 1 : 0,
                                                   .schedule = sch ? PRISM_SCHEDULE_INTERLEAVED
                                                                   : PRISM_SCHEDULE_1F1B};
                                s.recompute = rc < 3 ? (uint8_t)rc : PRISM_RECOMPUTE_BLOCK;
                                s.rc_layers = rc < 3 ? 0 : (uint16_t)(rc - 2);
                                if (!prism_strategy_check(&s, model, t, NULL))
                                    continue;
                                b.valid++;
                                double c[PRISM_COL_COUNT];
                                if (!prism_cost_eval_one(cm, &s, c, NULL))
                                    continue;
                                if (c[PRISM_COL_FEASIBLE] > 0.5) {
                                    b.feasible++;
                                    b.best_step = MIN(b.best_step, c[PRISM_COL_TIME_STEP]);
                                }
                            }
                }
            }
    return b;
}

/* The rows' cost model again: megatron-core's knobs, bf16 (sources.ini), untied
 * embeddings (sources.ini), vocab 131072, seq 4096, on H100-SXM. */
static PrismCostModel *mlm_model(uint32_t L, uint64_t h, uint32_t a, uint64_t gbs)
{
    g_autoptr(PrismModel) m = gpt(L, h, a, 131072, 4096, FALSE);
    g_autoptr(PrismCluster) c = prism_cluster_preset("H100-SXM", NULL);
    g_autoptr(PrismFramework) fw = prism_framework_resolve("megatron-core", NULL);
    if (c == NULL || fw == NULL)
        return NULL;
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = gbs;
    t.seq = 4096;
    t.dtype = PRISM_DTYPE_BF16;
    PrismKnobs k;
    prism_knobs_default(&k);
    prism_framework_apply(fw, c->name, &k, &t);
    return prism_cost_model_new(m, c, &t, &k, NULL);
}

static void test_planner_brute_force(void)
{
    g_autoptr(PrismValidateReport) r = run("validation/planned.csv", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* GPT-1.7B: 24 layers, h 2048, 16 heads; GPT-70B: 84 layers, h 8192, 64 heads;
     * GPT-tiny: 4 layers, h 1024, 8 heads, its layout planned (tp = pp = 0: all) */
    const struct {
        guint row;
        const char *zoo;
        uint32_t L;
        uint64_t h;
        uint32_t a, devices, tp, pp;
        uint64_t gbs;
    } cases[] = {{0, "GPT-1.7B", 24, 2048, 16, 48, 1, 1, 192},
                 {2, "GPT-70B", 84, 8192, 64, 768, 8, 2, 384},
                 {3, "GPT-tiny", 4, 1024, 8, 8, 0, 0, 16}};
    gboolean all = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(PrismCostModel) cm = mlm_model(cases[i].L, cases[i].h, cases[i].a, cases[i].gbs);
        if (cm == NULL) {
            all = FALSE;
            continue;
        }
        const PrismValidateRow *o = row(r, cases[i].row);
        const Brute b = brute_force(cm, cases[i].devices, cases[i].tp, cases[i].pp);
        const gboolean ok = o->kind == PRISM_VALIDATE_PLANNED && o->searched == b.valid &&
                            o->feasible == b.feasible && b.feasible > 0 &&
                            o->pred[PRISM_VM_STEP] == b.best_step;
        if (!ok)
            fprintf(stderr,
                    "\n  %s: searched %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                    " feasible %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " step %.17g/%.17g\n",
                    cases[i].zoo, o->searched, b.valid, o->feasible, b.feasible,
                    o->pred[PRISM_VM_STEP], b.best_step);
        all &= ok;
    }
    CU_ASSERT_TRUE(prism_test_all(all));
}

/*
 * frameworks.csv, row by row (line = row + 2):
 *   2 gpt-col    framework column megatron-lm-2022: predicted, from "column"
 *   3 gpt-src    ZB_PP, no column: sources.ini -> megatron-lm-2022; memory in GiB, counted
 *                as allocated (the model's peak as it is: tensors and the cuBLAS workspace)
 *   4 gpt-none   unknown source, no column: skipped (or --framework's profile)
 *   5 llama-pp   TORCHTITAN source -> pytorch-fsdp: pp 2 and no micro_batch: m = pp =
 *                2, mbs = gbs / (dp m) = 16 / (4 x 2) = 2; recompute selective, zero 3,
 *                sp 1 -> 0 (tp 1) by default; vpp planned (with the schedule)
 *   6 gpt-oom    OOM, 175B GPT on 8 A100: flagged (infeasible)
 *   7 gpt-oomfit OOM note on a small model that fits: not flagged
 *   8 moe        experts 8: skipped, MoE (issue 10)
 *   9, 10        H200 and B200 presets
 *   11           TORCHAO_B200_DENSE, gpu_type B200, dtype fp8: sources.ini `cluster`
 *                B200-750W (the stated power limit) and `fp8` fp8-cs (tensorwise = current
 *                scaling); MFU as the kernel gives it (against the BF16 peak, no FP8
 *                rescale): TFLOP/s = MFU x 2250 (B200's dense BF16 TFLOP/s)
 *   12           TORCHTITAN_H100, H100 96 GB, fp8: H100-96GB-500W (by memory), fp8-cs
 *   13, 14       row 12 with notes "torch.compile on" (fused elementwise) and "no
 *                torch.compile" (eager, pytorch-fsdp's elementwise_eager; the clause that
 *                says "not stated" states nothing): row 12 states neither, so it keeps the
 *                profile's eager value and equals row 14; row 13 is faster
 *   15, 16       rows 13 and 14 in bf16 without recompute: the eager row also keeps silu's
 *                output (pytorch-fsdp's swiglu_unfused; torch.compile fuses it), one
 *                ffn-wide bf16 tensor per token and layer: 2 B x 2816 x 2048 tokens x 4
 *                layers = 46,137,344 B (0.04297 GiB) more (per-op SAC in rows 13 and 14 keeps mm
 * outputs alone: the same memory)
 */
static void test_framework_rows(void)
{
    g_autoptr(PrismValidateReport) r = run("validation/frameworks.csv", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(r->rows->len, 15);
    CU_ASSERT_EQUAL(r->n_predicted + r->n_planned + r->n_skipped, 15);
    CU_ASSERT_TRUE(r->n_predicted == 13 && r->n_planned == 1 && r->n_skipped == 1);
    const PrismValidateRow *col = row(r, 0), *src = row(r, 1), *none = row(r, 2);
    CU_ASSERT_TRUE(col->kind == PRISM_VALIDATE_PREDICTED &&
                   strcmp(col->framework, "megatron-lm-2022") == 0 &&
                   strcmp(col->framework_from, "column") == 0);
    CU_ASSERT_TRUE(src->kind == PRISM_VALIDATE_PREDICTED &&
                   strcmp(src->framework, "megatron-lm-2022") == 0 &&
                   strcmp(src->framework_from, "sources.ini") == 0);
    CU_ASSERT_STRING_EQUAL(src->dtype, "fp16"); /* the profile's default */
    CU_ASSERT_EQUAL(none->kind, PRISM_VALIDATE_SKIPPED);
    CU_ASSERT_PTR_NOT_NULL(strstr(none->reason, "no profile in sources.ini"));
    /* ZB_PP memory: the allocated peak / GiB, recomputed from the columns */
    {
        g_autoptr(PrismFramework) fw = prism_framework_resolve("megatron-lm-2022", NULL);
        g_autoptr(PrismModel) m = gpt(4, 1024, 8, 50304, 1024, TRUE);
        g_autoptr(PrismCluster) c = prism_cluster_preset("A100-80GB", NULL);
        PrismTraining t;
        prism_training_default(&t);
        t.gbs = 8;
        t.seq = 1024;
        t.dtype = PRISM_DTYPE_FP16;
        PrismKnobs k;
        prism_knobs_default(&k);
        prism_framework_apply(fw, c->name, &k, &t);
        g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, &k, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
        PrismStrategy s = {
            .devices = 4, .dp = 1, .tp = 1, .pp = 4, .vpp = 1, .cp = 1, .ep = 1, .mbs = 1, .m = 8};
        double cols[PRISM_COL_COUNT];
        CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, cols, NULL));
        const double want = cols[PRISM_COL_MEM_PEAK] / 1073741824.0;
        CU_ASSERT_TRUE(prism_test_close(src->pred[PRISM_VM_MEM], want, 1e-12, 0));
        CU_ASSERT_TRUE(
            prism_test_close(src->err[PRISM_VM_MEM], 100 * fabs(want - 10) / 10, 1e-9, 0));
    }
    const PrismValidateRow *pl = row(r, 3);
    CU_ASSERT_EQUAL(pl->kind, PRISM_VALIDATE_PLANNED);
    CU_ASSERT_STRING_EQUAL(pl->framework, "pytorch-fsdp");
    CU_ASSERT_STRING_EQUAL(pl->defaults, "mbs=2,recompute=selective,zero=3,sp=0");
    CU_ASSERT_STRING_EQUAL(pl->planned, "vpp,schedule");
    CU_ASSERT_STRING_EQUAL(pl->fixed,
                           "tp=1,pp=2,cp=1,ep=1,mbs=2,recompute=selective,zero=3,sp=0,offload=0");
    /* measured step from tokens/s/GPU: gbs x seq / (tps x N) = 16 x 2048 / (5000 x 8) */
    CU_ASSERT_TRUE(prism_test_close(pl->meas[PRISM_VM_STEP], 16.0 * 2048 / (5000.0 * 8), 1e-15, 0));
    CU_ASSERT_TRUE(row(r, 4)->oom && !row(r, 4)->fits);
    CU_ASSERT_TRUE(row(r, 5)->oom && row(r, 5)->fits);
    CU_ASSERT_TRUE(r->n_oom == 2 && r->n_oom_flagged == 1);
    /* the MoE row (8 experts top-2, ep = 8 on 8 devices) is predicted since issue 10 */
    CU_ASSERT_EQUAL(row(r, 6)->kind, PRISM_VALIDATE_PREDICTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(row(r, 6)->strategy, "ep=8"));
    CU_ASSERT_EQUAL(r->n_moe, 1);
    CU_ASSERT_STRING_EQUAL(row(r, 7)->cluster, "H200");
    CU_ASSERT_STRING_EQUAL(row(r, 8)->cluster, "B200");
    const PrismValidateRow *b8 = row(r, 9), *h8 = row(r, 10);
    CU_ASSERT_EQUAL(b8->kind, PRISM_VALIDATE_PREDICTED);
    CU_ASSERT_STRING_EQUAL(b8->cluster, "B200-750W");
    CU_ASSERT_STRING_EQUAL(b8->dtype, "fp8-cs");
    CU_ASSERT_TRUE(
        prism_test_close(b8->pred[PRISM_VM_TFLOPS], b8->pred[PRISM_VM_MFU] * 2250.0, 1e-12, 0));
    CU_ASSERT_TRUE(b8->pred[PRISM_VM_MFU] > 0 && b8->pred[PRISM_VM_MFU] < 1);
    CU_ASSERT_STRING_EQUAL(h8->cluster, "H100-96GB-500W");
    CU_ASSERT_STRING_EQUAL(h8->dtype, "fp8-cs");
    const PrismValidateRow *hc = row(r, 11), *he = row(r, 12);
    CU_ASSERT_EQUAL(he->pred[PRISM_VM_STEP], h8->pred[PRISM_VM_STEP]);
    CU_ASSERT_TRUE(hc->pred[PRISM_VM_STEP] < he->pred[PRISM_VM_STEP]);
    CU_ASSERT_EQUAL(hc->pred[PRISM_VM_MEM], he->pred[PRISM_VM_MEM]);
    const PrismValidateRow *nc = row(r, 13), *ne = row(r, 14);
    CU_ASSERT_TRUE(nc->kind == PRISM_VALIDATE_PREDICTED && ne->kind == PRISM_VALIDATE_PREDICTED);
    CU_ASSERT_TRUE(prism_test_close(ne->pred[PRISM_VM_MEM] - nc->pred[PRISM_VM_MEM],
                                    2.0 * 2816 * 2048 * 4 / 1073741824.0, 1e-9, 0));

    /* --framework: rows without a column take it; the column still wins */
    g_autoptr(PrismFramework) fsdp = prism_framework_resolve("pytorch-fsdp", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fsdp);
    g_autoptr(PrismValidateReport) r2 = run("validation/frameworks.csv", fsdp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r2);
    CU_ASSERT_STRING_EQUAL(row(r2, 0)->framework, "megatron-lm-2022");
    CU_ASSERT_STRING_EQUAL(row(r2, 0)->framework_from, "column");
    CU_ASSERT_STRING_EQUAL(row(r2, 1)->framework, "pytorch-fsdp"); /* before sources.ini */
    CU_ASSERT_STRING_EQUAL(row(r2, 1)->framework_from, "--framework");
    CU_ASSERT_EQUAL(row(r2, 2)->kind, PRISM_VALIDATE_PREDICTED);
    CU_ASSERT_STRING_EQUAL(row(r2, 2)->framework, "pytorch-fsdp");
}

/*
 * Like with like: a profile whose memory counts "device" (nvidia-smi) with an allocator
 * reserve of 0.25 compares (peak + 0.25 x (peak - the peak stage's params, grads and
 * optimizer state, which take no reserve) + cuda_context 3e8 + NCCL's buffers) / 1e9 (GB;
 * the source is not in sources.ini), NCCL's for the tp, dp and pp groups of two ranks:
 * 3 x 2 peers x 16 channels x 9,633,792 B = 924,844,032 B. Row: frameworks.csv line 2 (GPT 4 x
 * 1024, 8 heads, vocab 32000, seq 2048, A100-80GB, bf16 as stated, dp 2, tp 2, pp 2, mbs 1, m = 16
 * / (2 x 1) = 8, full recompute), with its framework column pointing at the profile file.
 */
static void test_memory_counts(void)
{
    g_autofree char *dir = g_dir_make_tmp("prism-val-XXXXXX", NULL);
    g_autofree char *prof = g_build_filename(dir, "smi.ini", NULL);
    g_autoptr(PrismFramework) base = prism_framework_resolve("megatron-lm-2022", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    g_autofree char *text = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(base->path, &text, NULL, NULL));
    g_autoptr(GString) t = g_string_new(text);
    g_string_replace(t, "counts = allocated", "counts = device\nallocator_reserve = 0.25", 1);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(prof, t->str, -1, NULL));
    g_autofree char *csvsrc = prism_test_data_path("validation/frameworks.csv");
    g_autofree char *csvtext = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(csvsrc, &csvtext, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(csvtext, "\n", -1);
    g_autoptr(GString) row1 = g_string_new(lines[1]);
    g_string_replace(row1, ",megatron-lm-2022", "", 1);
    g_autofree char *csv = g_strdup_printf("%s\n%s,%s\n", lines[0], row1->str, prof);
    g_autofree char *path = g_build_filename(dir, "one.csv", NULL);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, csv, -1, NULL));
    const PrismValidateOptions opt = {0};
    GError *error = NULL;
    g_autoptr(PrismValidateReport) r = prism_validate_run(prism_test_comm(), path, &opt, &error);
    if (r == NULL)
        fprintf(stderr, "\n  %s\n", error->message);
    g_clear_error(&error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const PrismValidateRow *o = row(r, 0);
    CU_ASSERT_EQUAL_FATAL(o->kind, PRISM_VALIDATE_PREDICTED);
    CU_ASSERT_STRING_EQUAL(o->framework, "smi");
    g_autoptr(PrismFramework) fw = prism_framework_load(prof, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fw);
    g_autoptr(PrismModel) m = gpt(4, 1024, 8, 32000, 2048, TRUE);
    g_autoptr(PrismCluster) c = prism_cluster_preset("A100-80GB", NULL);
    PrismTraining tr;
    prism_training_default(&tr);
    tr.gbs = 16;
    tr.seq = 2048;
    tr.dtype = PRISM_DTYPE_BF16;
    PrismKnobs k;
    prism_knobs_default(&k);
    prism_framework_apply(fw, c->name, &k, &tr);
    g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &tr, &k, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    PrismStrategy s = {.devices = 8,
                       .dp = 2,
                       .tp = 2,
                       .pp = 2,
                       .vpp = 1,
                       .cp = 1,
                       .ep = 1,
                       .mbs = 1,
                       .m = 8,
                       .recompute = PRISM_RECOMPUTE_FULL};
    double cols[PRISM_COL_COUNT];
    CU_ASSERT_TRUE_FATAL(prism_cost_eval_one(cm, &s, cols, NULL));
    /* in GiB, the unit of plan and explain, whatever unit the source publishes */
    const double a = cols[PRISM_COL_MEM_PEAK], pst = prism_cost_persistent(cols);
    CU_ASSERT_TRUE(pst > 0.0 && pst < a);
    const double want = (a + (a - pst) * 0.25 + (3e8 + 924844032.0)) / 1073741824.0;
    CU_ASSERT_TRUE(prism_test_close(o->pred[PRISM_VM_MEM], want, 1e-12, 0));
    CU_ASSERT_EQUAL(o->mem_counts, PRISM_MEM_DEVICE);
    g_unlink(path);
    g_unlink(prof);
    g_rmdir(dir);
}

/*
 * Step intervals and their coverage (ranges.h): frameworks.csv line 2 (X_TEST, measured
 * 1.0 s) gives the row's predicted step and its interval; three copies of the row measured
 * at the prediction (inside), at step_lo exactly (inside: the ends belong to it) and at
 * twice step_hi (outside) give 2 of 3 inside and a mean width of 100 (hi - lo) / pred.
 * The same on every rank count (the test runs at 1-4 ranks).
 */
static void test_step_interval(void)
{
    g_autofree char *dir = g_dir_make_tmp("prism-val-XXXXXX", NULL);
    g_autofree char *csvsrc = prism_test_data_path("validation/frameworks.csv");
    g_autofree char *csvtext = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(csvsrc, &csvtext, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(csvtext, "\n", -1);
    const PrismValidateOptions opt = {0};
    g_autofree char *path = g_build_filename(dir, "iv.csv", NULL);
    g_autofree char *one = g_strdup_printf("%s\n%s\n", lines[0], lines[1]);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, one, -1, NULL));
    g_autoptr(PrismValidateReport) r1 = prism_validate_run(prism_test_comm(), path, &opt, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
    const PrismValidateRow *o = row(r1, 0);
    const double pred = o->pred[PRISM_VM_STEP], lo = o->step_lo, hi = o->step_hi;
    CU_ASSERT_TRUE_FATAL(lo < pred && pred < hi);
    const double meas[3] = {pred, lo, 2 * hi};
    GString *csv = g_string_new(lines[0]);
    for (int i = 0; i < 3; i++) {
        g_autoptr(GString) rw = g_string_new(lines[1]);
        char v[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_formatd(v, sizeof v, "%.17g", meas[i]);
        g_autofree char *cell = g_strdup_printf(",,%s,,,,column", v);
        CU_ASSERT_EQUAL_FATAL(g_string_replace(rw, ",,1.0,,,,column", cell, 1), 1);
        g_string_append_printf(csv, "\n%s", rw->str);
    }
    g_string_append_c(csv, '\n');
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, csv->str, -1, NULL));
    g_string_free(csv, TRUE);
    g_autoptr(PrismValidateReport) r = prism_validate_run(prism_test_comm(), path, &opt, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(r->stats->len, 1);
    const PrismValidateStat *st = g_ptr_array_index(r->stats, 0);
    CU_ASSERT_EQUAL(st->iv_n, 3);
    CU_ASSERT_EQUAL(st->iv_inside, 2);
    CU_ASSERT_TRUE(prism_test_close(st->iv_width / st->iv_n, 100 * (hi - lo) / pred, 1e-12, 0));
    /* held out (prism_track_holdout): one X_TEST source only, so nothing widens its rows */
    prism_track_holdout(&r, 1);
    CU_ASSERT_EQUAL(st->ho_n, 3);
    CU_ASSERT_EQUAL(st->ho_inside, 2);
    CU_ASSERT_EQUAL(st->ho_bare, 3);
    CU_ASSERT_TRUE(prism_test_close(row(r, 0)->held_hi, hi, 1e-15, 0));
    /* a fourth row from another source (Y_TEST) measured at 1.5 x the prediction: a speed
     * error of 100 (1.5 p - p) / 1.5 p = 33.3 % (predicted faster) widens the X_TEST rows by
     * w = 1/3 to [lo / (4/3), hi / (2/3)] = [3/4 lo, 3/2 hi]: pred and lo inside, 2 hi outside.
     * Y_TEST's own interval is widened by the mean absolute error of the X_TEST rows: (0 + 100 (p -
     * lo) / lo + 100 (2 hi - p) / 2 hi) / 3 %. */
    g_autoptr(GString) y = g_string_new(lines[1]);
    g_string_replace(y, "X_TEST", "Y_TEST", 1);
    char v[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(v, sizeof v, "%.17g", 1.5 * pred);
    g_autofree char *cell = g_strdup_printf(",,%s,,,,column", v);
    CU_ASSERT_EQUAL_FATAL(g_string_replace(y, ",,1.0,,,,column", cell, 1), 1);
    g_autofree char *text = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &text, NULL, NULL));
    g_autofree char *two = g_strdup_printf("%s%s\n", text, y->str);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, two, -1, NULL));
    g_autoptr(PrismValidateReport) r2 = prism_validate_run(prism_test_comm(), path, &opt, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r2);
    prism_track_holdout(&r2, 1);
    CU_ASSERT_EQUAL_FATAL(r2->stats->len, 2);
    const PrismValidateStat *sx = g_ptr_array_index(r2->stats, 0);
    const PrismValidateStat *sy = g_ptr_array_index(r2->stats, 1);
    CU_ASSERT(sx->ho_n == 3 && sx->ho_inside == 2 && sx->ho_bare == 0);
    CU_ASSERT_TRUE(prism_test_close(row(r2, 0)->held_widen, 1.0 / 3, 1e-12, 0));
    CU_ASSERT_TRUE(
        prism_test_close(sx->ho_width / 3, 100 * (1.5 * hi - 0.75 * lo) / pred, 1e-12, 0));
    const double wy = ((pred - lo) / lo + (2 * hi - pred) / (2 * hi)) / 3;
    const PrismValidateRow *ry = row(r2, 3);
    CU_ASSERT_TRUE(prism_test_close(ry->held_widen, wy, 1e-12, 0));
    CU_ASSERT_TRUE(prism_test_close(ry->held_hi, hi / (1 - wy), 1e-12, 0));
    CU_ASSERT(sy->ho_n == 1 && sy->ho_bare == 0);
    CU_ASSERT_EQUAL(sy->ho_inside, 1.5 * pred <= hi / (1 - wy) ? 1 : 0);
    g_unlink(path);
    g_rmdir(dir);
}

/* A malformed numeric cell is bad input naming the file, line and column. */
static void test_malformed(void)
{
    g_autofree char *src = prism_test_data_path("validation/planned.csv");
    g_autofree char *text = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(src, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    /* num_gpus is column 15 (index 14) of the header */
    const char *bad[] = {"abc", "nan", "-48", "1e999", "4.5"};
    g_autofree char *dir = g_dir_make_tmp("prism-val-XXXXXX", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_auto(GStrv) f = g_strsplit(lines[1], ",", -1);
        g_free(f[14]);
        f[14] = g_strdup(bad[i]);
        g_autofree char *r1 = g_strjoinv(",", f);
        g_autofree char *csv = g_strdup_printf("%s\n%s\n", lines[0], r1);
        g_autofree char *path = g_build_filename(dir, "bad.csv", NULL);
        CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, csv, -1, NULL));
        const PrismValidateOptions opt = {0};
        GError *error = NULL;
        PrismValidateReport *r = prism_validate_run(prism_test_comm(), path, &opt, &error);
        CU_ASSERT_PTR_NULL(r);
        prism_validate_report_free(r);
        g_autofree char *want =
            g_strdup_printf("line 2 column num_gpus: '%s' is malformed", bad[i]);
        CU_ASSERT_TRUE(error != NULL && strstr(error->message, want) != NULL &&
                       strstr(error->message, path) != NULL &&
                       g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
        if (error && strstr(error->message, want) == NULL)
            fprintf(stderr, "\n  %s\n", error->message);
        g_clear_error(&error);
        g_unlink(path);
    }
    g_rmdir(dir);
}

static CU_TestInfo validate_tests[] = {
    {"planned.csv: defaults, planned dims, fixed and --only texts", test_planned_rows},
    {"planned rows: the search against a brute force", test_planner_brute_force},
    {"framework column, --framework, sources.ini; OOM, MoE, presets", test_framework_rows},
    {"memory compared as the profile counts it", test_memory_counts},
    {"step intervals and their coverage", test_step_interval},
    {"malformed numeric cells are bad input", test_malformed},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"validate", NULL, NULL, NULL, NULL, validate_tests},
    CU_SUITE_INFO_NULL,
};
