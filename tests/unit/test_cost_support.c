// SPDX-License-Identifier: MIT
/* test_cost_support.c - builders for the cost-model tests (see test_cost_support.h). */
#include "test_cost_support.h"

#include <string.h>

#include <CUnit/CUnit.h>

PrismModel *test_gpt_model(uint32_t L, uint64_t h, uint32_t a, uint64_t V)
{
    PrismModel *m = prism_model_new("test-gpt", "gpt");
    m->hidden = h;
    m->vocab = V;
    m->max_positions = 1u << 20;
    m->pos = PRISM_POS_ROPE;
    m->final_norm = PRISM_NORM_LAYERNORM;
    PrismBlockSpec s;
    memset(&s, 0, sizeof s);
    s.attn.kind = PRISM_ATTN_STANDARD;
    s.attn.n_heads = a;
    s.attn.n_kv_heads = a;
    s.attn.head_dim = (uint32_t)(h / a);
    s.mlp.act = PRISM_MLP_GELU;
    s.mlp.ffn_hidden = 4 * h;
    s.norm = PRISM_NORM_LAYERNORM;
    uint32_t id = prism_model_add_spec(m, &s);
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    for (uint32_t i = 0; i < L; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, id);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

PrismCluster *test_cluster(void)
{
    PrismCluster *c = g_new0(PrismCluster, 1);
    c->name = g_strdup("test-cluster");
    c->mem_bytes = 80e9;
    c->peak_flops[PRISM_DTYPE_FP32] = 19.5e12;
    c->peak_flops[PRISM_DTYPE_BF16] = 312e12;
    c->peak_flops[PRISM_DTYPE_FP16] = 312e12;
    c->devices_per_node = 8;
    c->n_levels = 2;
    c->levels[0] = (PrismNetLevel){"nvlink", 8, 300.0, 5.0};
    c->levels[1] = (PrismNetLevel){"ib", 0, 25.0, 10.0};
    return c;
}

PrismCostModel *test_cost_model(const PrismModel *m, uint64_t gbs, uint64_t seq,
                                PrismDtype dtype, const char *const *sets)
{
    g_autoptr(PrismCluster) c = test_cluster();
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = gbs;
    t.seq = seq;
    t.dtype = dtype;
    PrismKnobs k;
    prism_knobs_default(&k);
    for (const char *const *s = sets; s != NULL && *s != NULL; s++)
        CU_ASSERT_TRUE_FATAL(prism_knobs_set(&k, *s, NULL));
    GError *error = NULL;
    PrismCostModel *cm = prism_cost_model_new(m, c, &t, &k, &error);
    if (error != NULL)
        fprintf(stderr, "test_cost_model: %s\n", error->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cm);
    return cm;
}

PrismStrategy test_strategy(const PrismCostModel *cm, uint32_t devices, const char *text)
{
    PrismStrategy s;
    GError *error = NULL;
    gboolean ok = prism_strategy_parse(text, devices, prism_cost_model_training(cm), &s, &error);
    if (!ok)
        fprintf(stderr, "test_strategy(%s): %s\n", text, error->message);
    CU_ASSERT_TRUE_FATAL(ok);
    g_clear_error(&error);
    return s;
}
