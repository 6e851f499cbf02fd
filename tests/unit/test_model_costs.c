// SPDX-License-Identifier: MIT
/*
 * test_model_costs.c - model IR features as cost/cost_layers.c compiles them, against
 * values derived by hand: the attention core and scores of a sliding-window layer, and
 * the parameter split of every zoo model's layer kinds adding up to the IR's own count.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/cost.h>

#include "prism_test_util.h"
#include "test_cost_support.h"

/* test_gpt_model(2, 4096, 32, 51200) with block 1 (layer 2) given a window of @p w. */
static PrismModel *windowed_model(uint32_t w)
{
    PrismModel *m = test_gpt_model(2, 4096, 32, 51200);
    PrismBlockSpec s = m->specs[0];
    s.attn.window = w;
    m->layers[2].spec = prism_model_add_spec(m, &s);
    return m;
}

static void terms(const PrismCostModel *cm, uint32_t layer, PrismLayerTerms *out)
{
    PrismStrategy s = test_strategy(cm, 1, "tp=1,mbs=1");
    CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, layer, out, NULL));
}

/*
 * h = 4096, a = 32, d = 128, s = 2048, w = 512, mbs 1 (2048 tokens per micro-batch).
 * Flash attention with causal skip 1/2: a full layer executes 4 a d s / 2 = 4*4096*1024
 * core FLOPs per token; the windowed one 4 a d w (1 - w / (2 s)) = 4*4096*512*(7/8)
 * = 4*4096*448 (the mean band of a causal window of 512 is 512 - 512^2/4096 = 448).
 * Difference per micro-batch: 2048 * 4*4096*(1024 - 448) = 19,327,352,832 FLOPs.
 * Without flash attention (dropout on), the kept scores are (2*2 + 1) * a per key:
 * 2048 tokens * 5 * 32 * (2048 - 512) = 503,316,480 bytes less. A window >= s changes
 * nothing.
 */
static void test_sliding_window(void)
{
    static const char *const flash[] = {"flash_attention=1", "causal_skip=0.5", NULL};
    static const char *const eager[] = {"flash_attention=0", "dropout=1", NULL};
    PrismLayerTerms full, win;
    {
        g_autoptr(PrismModel) m = windowed_model(512);
        CU_ASSERT_EQUAL(m->n_specs, 2);
        g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, flash);
        terms(cm, 1, &full);
        terms(cm, 2, &win);
        CU_ASSERT_TRUE(prism_test_close(full.flops_fwd - win.flops_fwd, 19327352832.0, 1e-9, 0));
        CU_ASSERT_EQUAL(full.params_bytes, win.params_bytes);
        CU_ASSERT_TRUE(win.fwd_s < full.fwd_s);
        g_autoptr(PrismCostModel) ce = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, eager);
        terms(ce, 1, &full);
        terms(ce, 2, &win);
        CU_ASSERT_TRUE(
            prism_test_close(full.act_bytes[0] - win.act_bytes[0], 503316480.0, 1e-12, 0));
        /* no causal skip without flash: 2048 * 4*4096*(2048 - 512) */
        CU_ASSERT_TRUE(
            prism_test_close(full.flops_fwd - win.flops_fwd, 2048.0 * 4 * 4096 * 1536, 1e-9, 0));
    }
    {
        g_autoptr(PrismModel) m = windowed_model(4096); /* wider than the sequence */
        g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 2048, PRISM_DTYPE_FP16, flash);
        terms(cm, 1, &full);
        terms(cm, 2, &win);
        CU_ASSERT_EQUAL(memcmp(&full, &win, sizeof full), 0);
    }
}

/*
 * Every zoo model, every distinct block (and MTP) spec: the parameter bytes of its layer
 * kind with no sharding (tp = ep = dp = 1, ZeRO 0; bf16, 2 bytes per parameter) are twice
 * the IR's count: prism_block_params, plus two norms and the 2h x h projection for an MTP
 * module. This covers sinks, q/k norms, router biases and shared-expert gates of the new
 * families: cost_layers.c and model.c count them separately.
 */
static void test_param_split_every_zoo_model(void)
{
    size_t checked = 0;
    for (size_t i = 0; i < prism_model_zoo_size(); i++) {
        g_autoptr(PrismModel) m = prism_model_zoo_get(prism_model_zoo_name(i), NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        g_autoptr(PrismCostModel) cm = test_cost_model(m, 8, 512, PRISM_DTYPE_BF16, NULL);
        PrismStrategy s = test_strategy(cm, 1, "tp=1,mbs=1");
        gboolean *seen = g_new0(gboolean, 2 * m->n_specs);
        for (uint32_t l = 0; l < m->n_layers; l++) {
            const PrismLayer *ly = &m->layers[l];
            const int mtp = ly->kind == PRISM_LAYER_MTP;
            if ((ly->kind != PRISM_LAYER_BLOCK && !mtp) || seen[2 * ly->spec + mtp])
                continue;
            seen[2 * ly->spec + mtp] = TRUE;
            const double h = (double)m->hidden;
            const PrismBlockSpec *sp = &m->specs[ly->spec];
            const double norm = sp->norm == PRISM_NORM_LAYERNORM ? 2 * h : h;
            const double want =
                prism_block_params(sp, m->hidden) + (mtp ? 2 * norm + 2 * h * h : 0);
            PrismLayerTerms t;
            CU_ASSERT_TRUE_FATAL(prism_cost_layer_terms(cm, &s, l, &t, NULL));
            if (!prism_test_close(t.params_bytes / 2.0, want, 1e-12, 0))
                fprintf(stderr, "%s layer %u: %.0f vs IR %.0f\n", m->name, l, t.params_bytes / 2.0,
                        want);
            CU_ASSERT_TRUE(prism_test_close(t.params_bytes / 2.0, want, 1e-12, 0));
            checked++;
        }
        g_free(seen);
    }
    CU_ASSERT_TRUE(checked > prism_model_zoo_size());
}

static CU_TestInfo model_cost_tests[] = {
    {"sliding window: core FLOPs and scores by hand", test_sliding_window},
    {"parameter split of every zoo model = IR count", test_param_split_every_zoo_model},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"model_costs", NULL, NULL, NULL, NULL, model_cost_tests},
    CU_SUITE_INFO_NULL,
};
