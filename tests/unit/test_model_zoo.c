// SPDX-License-Identifier: MIT
/*
 * test_model_zoo.c - the model zoo: listing, layer sequences, and parameter counts
 * checked two ways: against closed-form formulas derived by hand below (exact, the
 * sizes are integers far below 2^53), and against each model's published total.
 */
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/core.h>
#include <prism/model.h>

#include "prism_test_util.h"

static PrismModel *zoo(const char *name)
{
    GError *error = NULL;
    PrismModel *m = prism_model_zoo_get(name, &error);
    if (m == NULL)
        fprintf(stderr, "zoo %s: %s\n", name, error ? error->message : "?");
    g_clear_error(&error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    return m;
}

static double total(const char *name, PrismParamCount *c)
{
    PrismModel *m = zoo(name);
    prism_model_params(m, c);
    prism_model_free(m);
    return c->total;
}

/* Zoo models with no published total (derived shapes); each is checked by hand below. */
static const char *const derived[] = {"mixtral-8x22b-g8t8", "llama3-8x70b", "llama4-scout-2l"};

static gboolean is_derived(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(derived); i++)
        if (strcmp(name, derived[i]) == 0)
            return TRUE;
    return FALSE;
}

static void test_listing(void)
{
    /* The list, and every zoo name unique, lowercase and buildable. */
    static const char *required[] = {
        "gpt3-1.3b", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "gpt3-175b", "mt-nlg-530b",
        "megatron-1t", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b",
        "llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "mixtral-8x7b", "mixtral-8x22b",
        "qwen2-72b", "qwen3-32b", "qwen3-235b-a22b", "deepseek-v2-lite", "deepseek-v3",
        "bert-large",
        /* issue 10: MoE models as current stacks train them */
        "gpt-oss-20b", "gpt-oss-120b", "qwen1.5-moe-a2.7b", "qwen2-57b-a14b", "qwen3-30b-a3b",
        "llama4-scout", "llama4-maverick", "mixtral-8x22b-g8t8", "llama3-8x70b", "llama4-scout-2l"};
    size_t n = prism_model_zoo_size();
    CU_ASSERT_TRUE(n >= 20);
    CU_ASSERT_PTR_NULL(prism_model_zoo_name(n));
    for (size_t i = 0; i < G_N_ELEMENTS(required); i++) {
        gboolean found = FALSE;
        for (size_t j = 0; j < n; j++)
            found = found || strcmp(prism_model_zoo_name(j), required[i]) == 0;
        if (!found)
            fprintf(stderr, "missing zoo model %s\n", required[i]);
        CU_ASSERT_TRUE(found);
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = prism_model_zoo_name(i);
        g_autofree char *lower = g_ascii_strdown(name, -1);
        CU_ASSERT_STRING_EQUAL(name, lower);
        CU_ASSERT_PTR_NULL(strchr(name, ' '));
        for (size_t j = i + 1; j < n; j++)
            CU_ASSERT_STRING_NOT_EQUAL(name, prism_model_zoo_name(j));
        PrismModel *m = zoo(name);
        CU_ASSERT_STRING_EQUAL(m->name, name);
        CU_ASSERT_TRUE(prism_model_validate(m, NULL));
        CU_ASSERT_TRUE(m->published_params > 0 || is_derived(name));
        prism_model_free(m);
    }
}

/*
 * Published totals. tol is the allowed relative error: 0.5% where the issue demands it
 * (and the source gives a precise total), 0 where the total is an exact checkpoint count,
 * more where the source only gives a rounded "nominal" size (each reason is stated).
 * DeepSeek-V3 compares total - mtp: the published 671B excludes the MTP module.
 */
static const struct {
    const char *name;
    double tol;
} published[] = {
    {"gpt3-175b", 0.005},
    {"llama2-70b", 0.0},
    {"llama3.1-405b", 0.0},
    {"mixtral-8x7b", 0.005},
    {"deepseek-v3", 0.005},
    {"llama2-7b", 0.0},
    {"llama2-13b", 0.0},
    {"llama3-8b", 0.0},
    {"llama3-70b", 0.0},
    {"llama3.1-8b", 0.0},
    {"llama3.1-70b", 0.0},
    {"mixtral-8x22b", 0.005},
    {"qwen2-72b", 0.005},
    {"qwen3-32b", 0.005},
    {"qwen3-30b-a3b", 0.005},
    {"qwen3-235b-a22b", 0.005},
    {"deepseek-v2-lite", 0.005},
    {"deepseek-v2", 0.005},
    {"mt-nlg-530b", 0.005},
    {"megatron-1t", 0.005},
    {"gpt3-6.7b", 0.01},
    /* nominal sizes rounded to 2 significant digits: up to ~3% */
    {"gpt3-1.3b", 0.02},
    {"gpt3-2.7b", 0.02},
    {"gpt3-13b", 0.02},
    /* BERT-large 340M includes the pooler and MLM transform (~2M) not modelled */
    {"bert-large", 0.02},
    {"sc21-1.7b", 0.03},
    {"sc21-3.6b", 0.02},
    {"sc21-7.5b", 0.005},
    {"sc21-18b", 0.005},
    {"sc21-39b", 0.005},
    {"sc21-76b", 0.005},
    {"sc21-145b", 0.005},
    {"sc21-310b", 0.005},
    {"korth22-22b", 0.005},
    /* mlm24: nominal sizes of a README figure with unstated ffn/GQA */
    {"mlm24-1.7b", 0.03},
    {"mlm24-7.1b", 0.005},
    {"mlm24-16b", 0.01},
    {"mlm24-32b", 0.02},
    {"mlm24-70b", 0.005},
    {"mlm24-119b", 0.005},
    {"mlm24-177b", 0.005},
    {"mlm24-314b", 0.005},
    {"mlm24-462b", 0.005},
    /* zbpp: the vocabulary is not stated (50304 assumed) */
    {"zbpp-1.5b", 0.02},
    {"zbpp-6.2b", 0.01},
    {"zbpp-14.6b", 0.01},
    {"zbpp-28.3b", 0.005},
    /* issue 10 (sources in model_zoo.c; each also derived by hand below) */
    {"gpt-oss-20b", 0.005},
    {"gpt-oss-120b", 0.005},
    {"qwen1.5-moe-a2.7b", 0.005},
    {"qwen2-57b-a14b", 0.005},
    {"llama4-maverick", 0.005},
    /* Llama 4 Scout: the card's 109B includes the 0.87B vision encoder the IR does not
     * model (text 107.77B, -1.1%); test_llama4_by_hand checks text + encoder against the
     * checkpoint's 108.64B within 0.5% */
    {"llama4-scout", 0.012},
    /* issue 41: hybrid models (each also derived by hand below). Nemotron-H: the model
     * cards give only the nominal "8B" and "56B" (the IR's 8.10B and 56.32B are the exact
     * sums of test_nemotron_h_by_hand) */
    {"nemotron-h-8b", 0.013},
    {"nemotron-h-56b", 0.006},
    {"nemotron3-nano-30b", 0.005},
    {"qwen3-next-80b-a3b", 0.005},
};

static void test_published_totals(void)
{
    size_t checked = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(published); i++) {
        PrismModel *m = zoo(published[i].name);
        PrismParamCount c;
        prism_model_params(m, &c);
        double ours = c.total - c.mtp, pub = m->published_params;
        double err = (ours - pub) / pub;
        if (!(fabs(err) <= published[i].tol))
            fprintf(stderr, "%s: %.0f vs published %.0f (%+.3f%%, allowed %.2f%%)\n", m->name, ours,
                    pub, 100 * err, 100 * published[i].tol);
        CU_ASSERT_TRUE(fabs(err) <= published[i].tol);
        prism_model_free(m);
        checked++;
    }
    /* Every zoo model has a row above, or is derived (checked by hand). */
    CU_ASSERT_EQUAL(checked + G_N_ELEMENTS(derived), prism_model_zoo_size());
}

static void test_gpt3_175b_by_hand(void)
{
    /* Per block: QKV 3h^2+3h, proj h^2+h, MLP 8h^2+5h (4h up + bias, down + bias),
     * two LayerNorms 4h: 12h^2 + 13h. Embedding Vh + positions sh, final LN 2h, head
     * tied (0). h = 12288, L = 96, V = 50257, s = 2048. */
    const double h = 12288, L = 96, V = 50257, s = 2048;
    PrismParamCount c;
    total("gpt3-175b", &c);
    CU_ASSERT_EQUAL(c.total, L * (12 * h * h + 13 * h) + V * h + s * h + 2 * h);
    CU_ASSERT_EQUAL(c.total, 174604259328.0);
    CU_ASSERT_EQUAL(c.active, c.total);
    CU_ASSERT_EQUAL(c.experts, 0);
    CU_ASSERT_EQUAL(c.mtp, 0);
}

static void test_megatron_formula(void)
{
    /* SC21 (Narayanan et al.) eq.: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)), plus the
     * final LayerNorm 2h which the paper's formula leaves out. */
    static const struct {
        const char *name;
        double l, h;
    } rows[] = {{"sc21-1.7b", 24, 2304},    {"sc21-3.6b", 30, 3072},  {"sc21-7.5b", 36, 4096},
                {"sc21-18b", 40, 6144},     {"sc21-39b", 48, 8192},   {"sc21-76b", 60, 10240},
                {"sc21-145b", 80, 12288},   {"sc21-310b", 96, 16384}, {"mt-nlg-530b", 105, 20480},
                {"megatron-1t", 128, 25600}};
    const double V = 51200, s = 2048;
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        double l = rows[i].l, h = rows[i].h;
        double expect = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h)) + 2 * h;
        PrismParamCount c;
        total(rows[i].name, &c);
        CU_ASSERT_TRUE(prism_test_close(c.total, expect, 1e-12, 0));
    }
}

static void test_llama_by_hand(void)
{
    /* Per block: Q and O h*a*d each, K and V h*g*d each, SwiGLU 3hf, two RMSNorms 2h.
     * Embedding and untied head Vh each, final RMSNorm h. */
    static const struct {
        const char *name;
        double L, h, a, g, d, f, V, published;
        double qk; /* 1: q/k RMSNorms, 2d per layer (Qwen3) */
    } rows[] = {
        /* Llama-2-70B: 80 x (2*8192*8192 + 2*8192*1024 + 3*8192*28672 + 2*8192)
         *   = 80 x 855,654,400 = 68,452,352,000; + 2 x 32000 x 8192 + 8192 */
        {"llama2-70b", 80, 8192, 64, 8, 128, 28672, 32000, 68976648192.0, 0},
        {"llama2-7b", 32, 4096, 32, 32, 128, 11008, 32000, 6738415616.0, 0},
        {"llama3-8b", 32, 4096, 32, 8, 128, 14336, 128256, 8030261248.0, 0},
        /* Llama-3.1-405B: 126 x (2*16384*16384 + 2*16384*1024 + 3*16384*53248 + 2*16384)
         *   + 2 x 128256 x 16384 + 16384 = 405,853,388,800 */
        {"llama3.1-405b", 126, 16384, 128, 8, 128, 53248, 128256, 405853388800.0, 0},
        /* Qwen3-32B: head_dim 128 with 64 heads, so a*d = 8192 != h = 5120; q/k norms
         * 2 x 128: 64 x 487,598,336 + 2 x 151936 x 5120 + 5120 = 32,762,123,264 (the
         * released checkpoint; the card's 32.8B) */
        {"qwen3-32b", 64, 5120, 64, 8, 128, 25600, 151936, 32762123264.0, 1},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        double L = rows[i].L, h = rows[i].h, a = rows[i].a, g = rows[i].g, d = rows[i].d;
        double f = rows[i].f, V = rows[i].V;
        double expect =
            L * (2 * h * a * d + 2 * h * g * d + 3 * h * f + 2 * h + rows[i].qk * 2 * d) +
            2 * V * h + h;
        PrismParamCount c;
        total(rows[i].name, &c);
        CU_ASSERT_EQUAL(c.total, expect);
        if (rows[i].published > 0) {
            CU_ASSERT_EQUAL(c.total, rows[i].published);
        }
        CU_ASSERT_EQUAL(c.embedding, V * h);
        CU_ASSERT_EQUAL(c.head, V * h + h);
    }
}

static void test_mixtral_by_hand(void)
{
    /* Mixtral-8x7B: h 4096, 32 layers, 32 heads, 8 KV heads (d 128), 8 experts of
     * SwiGLU width 14336, top-2, router h*8, V 32000, untied.
     * attention 2*4096*4096 + 2*4096*1024 = 41,943,040
     * one expert 3*4096*14336 = 176,160,768; router 32,768; norms 8192
     * block = 41,943,040 + 8*176,160,768 + 32,768 + 8192 = 1,451,270,144
     * total = 32 * block + 2*32000*4096 + 4096 = 46,702,792,704 (published 46.7B)
     * active = total - 32 * 6 * 176,160,768 = 12,879,925,248 (published 12.9B) */
    PrismParamCount c;
    total("mixtral-8x7b", &c);
    CU_ASSERT_EQUAL(c.total, 46702792704.0);
    CU_ASSERT_EQUAL(c.experts, 32.0 * 8 * 176160768.0);
    CU_ASSERT_EQUAL(c.active, 12879925248.0);
    CU_ASSERT_TRUE(prism_test_close(c.active, 12.9e9, 0.005, 0));
}

static void test_deepseek_v3_by_hand(void)
{
    /* h 7168, 128 heads, MLA: q_lora 1536, kv_lora 512, nope 128, rope 64, v 128.
     * q: 7168*1536 + 1536 (norm) + 1536*128*192             = 48,760,320
     * kv: 7168*(512+64) + 512 (norm) + 512*128*(128+128)    = 20,906,496
     * o: 128*128*7168                                        = 117,440,512
     * attention = 187,107,328; two RMSNorms 14,336
     * dense block (3 of them): + 3*7168*18432               = 396,361,728
     * MoE block (58): 256 experts x 3*7168*2048 (44,040,192) = 11,274,289,152
     *   + 1 shared 44,040,192 + router 7168*256 = 1,835,008
     * embedding and head 129280*7168 each = 926,679,040; final norm 7168
     * MTP: 2 norms 14,336 + projection 2*7168*7168 = 102,760,448 + one MoE block */
    const double attn = 48760320.0 + 20906496.0 + 117440512.0, norms = 14336;
    const double dense = attn + norms + 396361728.0;
    const double moe = attn + norms + 11274289152.0 + 44040192.0 + 1835008.0;
    const double emb = 926679040.0;
    PrismParamCount c;
    PrismModel *m = zoo("deepseek-v3");
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(attn, 187107328.0);
    CU_ASSERT_EQUAL(c.blocks, 3 * dense + 58 * moe);
    CU_ASSERT_EQUAL(c.mtp, 14336.0 + 102760448.0 + moe);
    CU_ASSERT_EQUAL(c.embedding, emb);
    CU_ASSERT_EQUAL(c.head, emb + 7168);
    CU_ASSERT_EQUAL(c.total - c.mtp, 3 * dense + 58 * moe + 2 * emb + 7168);
    /* 671,026,404,352 vs the published 671B; the MTP module is 11.6B here (the
     * checkpoint's 14B also holds its own copies of the embedding and head). */
    CU_ASSERT_TRUE(prism_test_close(c.total - c.mtp, 671e9, 0.005, 0));
    /* Active per token: attention, norms, 8 routed + 1 shared expert and the router of
     * each MoE block; the dense blocks; embedding and head. 37B published ("activated");
     * ours is 37.55B with embedding and head, within 1.5%. */
    const double moe_active = attn + norms + 9 * 44040192.0 + 1835008.0;
    const double mtp_active = 14336.0 + 102760448.0 + moe_active;
    CU_ASSERT_EQUAL(c.mtp_active, mtp_active);
    CU_ASSERT_EQUAL(c.active - mtp_active, 2 * emb + 7168 + 3 * dense + 58 * moe_active);
    CU_ASSERT_EQUAL(c.active - mtp_active, 37552282624.0);
    CU_ASSERT_TRUE(prism_test_close(c.active - mtp_active, 37e9, 0.015, 0));
    /* README_WEIGHTS.md of the checkpoint: 36.6B activated "including 0.9B for the output
     * Head", i.e. without the input embedding (the gpt-oss convention too):
     * 37,552,282,624 - 926,679,040 = 36,625,603,584. It gives the MTP module as 11.5B
     * unique parameters; ours is 11.61B, 0.1B more: the 2h x h projection (eh_proj,
     * 102.8M), which the checkpoint holds, seems left out of that figure. */
    CU_ASSERT_EQUAL(c.active - mtp_active - emb, 36625603584.0);
    CU_ASSERT_TRUE(prism_test_close(c.active - mtp_active - emb, 36.6e9, 0.005, 0));
    prism_model_free(m);
}

static void test_deepseek_v3_sequence(void)
{
    /* embedding, 3 dense blocks, 58 MoE blocks, 1 MTP, final norm, head */
    PrismModel *m = zoo("deepseek-v3");
    CU_ASSERT_EQUAL(m->n_layers, 1 + 61 + 1 + 2);
    CU_ASSERT_EQUAL(prism_model_n_blocks(m), 61);
    CU_ASSERT_EQUAL(prism_model_n_mtp(m), 1);
    CU_ASSERT_EQUAL(m->n_specs, 2);
    CU_ASSERT_EQUAL(prism_model_max_experts(m), 256);
    CU_ASSERT_EQUAL(m->layers[0].kind, PRISM_LAYER_EMBEDDING);
    for (uint32_t i = 1; i <= 61; i++) {
        CU_ASSERT_EQUAL(m->layers[i].kind, PRISM_LAYER_BLOCK);
        const PrismMlpSpec *mlp = &m->specs[m->layers[i].spec].mlp;
        CU_ASSERT_EQUAL(mlp->n_experts, i <= 3 ? 0u : 256u);
        if (i > 3) {
            CU_ASSERT_EQUAL(mlp->top_k, 8);
            CU_ASSERT_EQUAL(mlp->n_shared, 1);
            CU_ASSERT_EQUAL(mlp->expert_hidden, 2048);
        } else {
            CU_ASSERT_EQUAL(mlp->ffn_hidden, 18432);
        }
        CU_ASSERT_EQUAL(m->specs[m->layers[i].spec].attn.kind, PRISM_ATTN_MLA);
    }
    CU_ASSERT_EQUAL(m->layers[62].kind, PRISM_LAYER_MTP);
    CU_ASSERT_EQUAL(m->specs[m->layers[62].spec].mlp.n_experts, 256);
    CU_ASSERT_EQUAL(m->layers[63].kind, PRISM_LAYER_FINAL_NORM);
    CU_ASSERT_EQUAL(m->layers[64].kind, PRISM_LAYER_HEAD);
    CU_ASSERT_FALSE(m->tied_embeddings);
    prism_model_free(m);

    /* DeepSeek-V2-Lite: 1 dense + 26 MoE, queries not compressed. */
    m = zoo("deepseek-v2-lite");
    CU_ASSERT_EQUAL(prism_model_n_blocks(m), 27);
    CU_ASSERT_EQUAL(m->specs[m->layers[1].spec].mlp.n_experts, 0);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mlp.n_experts, 64);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].attn.q_lora_rank, 0);
    prism_model_free(m);
}

/* TRUE when block i (0-based) of @p m has routed experts / its attention window. */
static uint32_t block_experts(const PrismModel *m, uint32_t i)
{
    return m->specs[m->layers[1 + i].spec].mlp.n_experts;
}

static uint32_t block_window(const PrismModel *m, uint32_t i)
{
    return m->specs[m->layers[1 + i].spec].attn.window;
}

static void test_gpt_oss_by_hand(void)
{
    /* GPT-OSS (model card arXiv 2508.10925, Table 1; config.json): h 2880, 64 q heads and
     * 8 KV heads of 64, biases on Q, K, V, O; one sink logit per head; experts SwiGLU 2880
     * with biases (gate+up 2f, down h), router h x E + E bias; two RMSNorms.
     *   attention: Q, O 2880*4096 each = 23,592,960; K, V 2880*512 each = 2,949,120;
     *              biases 4096 + 512 + 512 + 2880 = 8,000; sinks 64  -> 26,550,144
     *   one expert: 3*2880*2880 + 2*2880 + 2880 = 24,891,840
     *   block(E) = 26,550,144 + E*24,891,840 + 2881*E + 5,760
     *   embedding and head 201088*2880 = 579,133,440 each; final norm 2880
     * 20b (E 32, 24 layers): block 823,186,976; total 24 x block + 1,158,266,880 + 2880
     *   = 20,914,757,184 (Table 1: 20.91B). Active, 4 experts, the unembedding but not the
     *   embedding (Table 1's convention): 24 x 126,215,456 + 579,133,440 + 2880
     *   = 3,608,307,264 (3.61B).
     * 120b (E 128, 36 layers): block 3,213,080,192; total 116,829,156,672 (116.83B);
     *   active 36 x 126,492,032 + 579,136,320 = 5,132,849,472 (5.13B).
     * Table 1 also splits attention 0.64B / 0.96B = 24 / 36 x 26,550,144. */
    static const struct {
        const char *name;
        double L, E, total, active, attn_total;
    } rows[] = {
        {"gpt-oss-20b", 24, 32, 20914757184.0, 3608307264.0, 0.64e9},
        {"gpt-oss-120b", 36, 128, 116829156672.0, 5132849472.0, 0.96e9},
    };
    const double attn = 23592960.0 + 2949120.0 + 8000.0 + 64.0, expert = 24891840.0;
    const double emb = 579133440.0;
    CU_ASSERT_EQUAL(attn, 26550144.0);
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        PrismModel *m = zoo(rows[i].name);
        PrismParamCount c;
        prism_model_params(m, &c);
        const double E = rows[i].E, L = rows[i].L;
        const double block = attn + E * expert + 2881.0 * E + 5760.0;
        CU_ASSERT_EQUAL(c.total, L * block + 2 * emb + 2880);
        CU_ASSERT_EQUAL(c.total, rows[i].total);
        CU_ASSERT_EQUAL(c.active - c.embedding, rows[i].active);
        CU_ASSERT_EQUAL(c.active - c.embedding, L * (block - (E - 4) * expert) + emb + 2880);
        CU_ASSERT_TRUE(prism_test_close(L * attn, rows[i].attn_total, 0.005, 0));
        /* layer_types: sliding_attention on the even blocks, full on the odd ones */
        CU_ASSERT_EQUAL(m->n_specs, 2);
        for (uint32_t b = 0; b < (uint32_t)L; b++) {
            CU_ASSERT_EQUAL(block_window(m, b), b % 2 == 0 ? 128u : 0u);
            CU_ASSERT_EQUAL(block_experts(m, b), (uint32_t)E);
        }
        prism_model_free(m);
    }
}

static void test_qwen_moe_by_hand(void)
{
    /* qwen2_moe: Q/K/V biases, one shared expert of width fs behind a sigmoid gate (h
     * weights), router h x E, every layer MoE, untied.
     * Qwen1.5-MoE-A2.7B: h 2048, 16 heads x 128 (MHA), E 60 of 1408 top-4, fs 5632, 24 L
     *   attention 4*2048^2 + 3*2048 = 16,783,360; experts 60*3*2048*1408 = 519,045,120;
     *   shared 3*2048*5632 = 34,603,008; gate 2048; router 122,880; norms 4096
     *   block 570,560,512; total 24 x block + 2*151936*2048 + 2048 = 14,315,784,192
     *   (14.3B); active: 56 fewer experts of 8,650,752 -> 2,689,173,504 (2.7B)
     * Qwen2-57B-A14B: h 3584, 28 heads x 128, 4 KV heads, E 64 of 2560 top-8, fs 20480, 28 L
     *   attention 2*3584^2 + 2*3584*512 + 3584 + 1024 = 29,364,736; experts
     *   64*27,525,120 = 1,761,607,680; shared 220,200,960; gate 3584; router 229,376;
     *   norms 7168; block 2,011,413,504; total 57,408,658,944 (57.41B); active:
     *   56 fewer experts -> 14,249,270,784 ("A14B"; 14B in the report, +1.8%) */
    PrismParamCount c;
    total("qwen1.5-moe-a2.7b", &c);
    CU_ASSERT_EQUAL(c.total, 24 * 570560512.0 + 2 * 151936 * 2048.0 + 2048);
    CU_ASSERT_EQUAL(c.total, 14315784192.0);
    CU_ASSERT_EQUAL(c.active, c.total - 24 * 56 * 8650752.0);
    CU_ASSERT_EQUAL(c.active, 2689173504.0);
    CU_ASSERT_TRUE(prism_test_close(c.active, 2.7e9, 0.005, 0));
    total("qwen2-57b-a14b", &c);
    CU_ASSERT_EQUAL(c.total, 28 * 2011413504.0 + 2 * 151936 * 3584.0 + 3584);
    CU_ASSERT_EQUAL(c.total, 57408658944.0);
    CU_ASSERT_EQUAL(c.active, 14249270784.0);
    CU_ASSERT_TRUE(prism_test_close(c.active, 14e9, 0.02, 0));
    PrismModel *m = zoo("qwen2-57b-a14b");
    const PrismMlpSpec *p = &m->specs[m->layers[1].spec].mlp;
    CU_ASSERT_EQUAL(p->n_shared, 1);
    CU_ASSERT_EQUAL(p->shared_hidden, 20480);
    CU_ASSERT_TRUE(p->shared_gate);
    CU_ASSERT_TRUE(m->specs[m->layers[1].spec].attn.qkv_bias);
    prism_model_free(m);
    /* Qwen3 MoE (q/k norms 2 x 128 per layer, no shared expert):
     * 30B-A3B: 48 x (18,874,368 + 256 + 128*4,718,592 + 262,144 + 4096) + 2*151936*2048
     *   + 2048 = 30,532,122,624 (30.5B); active 3,353,032,704 (3.3B, +1.6%)
     * 235B-A22B: 94 x (71,303,168 + 256 + 128*18,874,368 + 524,288 + 8192)
     *   + 2*151936*4096 + 4096 = 235,093,634,560 (235B); active 22,190,763,520 (22B) */
    total("qwen3-30b-a3b", &c);
    CU_ASSERT_EQUAL(c.total, 30532122624.0);
    CU_ASSERT_EQUAL(c.active, 3353032704.0);
    CU_ASSERT_TRUE(prism_test_close(c.active, 3.3e9, 0.02, 0));
    total("qwen3-235b-a22b", &c);
    CU_ASSERT_EQUAL(c.total, 235093634560.0);
    CU_ASSERT_EQUAL(c.active, 22190763520.0);
    CU_ASSERT_TRUE(prism_test_close(c.active, 22e9, 0.01, 0));
}

static void test_llama4_by_hand(void)
{
    /* Llama 4 text model: h 5120, 40 q heads and 8 KV heads of 128, no biases.
     *   attention 2*5120*5120 + 2*5120*1024 = 62,914,560; norms 10,240
     *   one expert (and the shared one) 3*5120*8192 = 125,829,120
     *   MoE block(E) = attention + norms + (E + 1) experts + router 5120*E
     *   dense block = attention + norms + 3*5120*16384 (251,658,240) = 314,583,040
     *   embedding and head 202048*5120 = 1,034,485,760 each; final norm 5120
     * Scout (E 16, all 48 MoE): block 2,202,101,760; total 107,769,861,120; active
     *   48 x 314,664,960 + 2,068,976,640 = 17,172,894,720 (17B).
     * The 34-layer vision encoder of the checkpoint (vision_config: width 1408, MLP 5632,
     * biases, 577 positions, patch 14 x 14 x 3; adapter 5632->4096->4096; projector
     * 4096 x 5120): 34 x 23,807,872 + 827,904 + 1,408 + 812,416 + 5,632 + 23,068,672
     * + 16,777,216 + 20,971,520 = 871,932,416, so the checkpoint holds 108,641,793,536:
     * the Hugging Face listing's 108.64B, and the card's 109B.
     * Maverick (E 128 on the odd blocks, 24 MoE + 24 dense): MoE block 16,295,536,640;
     *   total 24 x (314,583,040 + 16,295,536,640) + 2,068,976,640 = 400,711,848,960
     *   (400B, +0.18%); active 24 x (314,583,040 + 315,238,400) + 2,068,976,640
     *   = 17,184,691,200 (17B). */
    const double attn_norms = 62914560.0 + 10240.0, expert = 125829120.0;
    const double dense = attn_norms + 251658240.0, emb_head = 2 * 1034485760.0 + 5120;
    PrismParamCount c;
    total("llama4-scout", &c);
    const double scout = attn_norms + 17 * expert + 5120 * 16.0;
    CU_ASSERT_EQUAL(c.total, 48 * scout + emb_head);
    CU_ASSERT_EQUAL(c.total, 107769861120.0);
    CU_ASSERT_EQUAL(c.active, 48 * (scout - 15 * expert) + emb_head);
    CU_ASSERT_EQUAL(c.active, 17172894720.0);
    CU_ASSERT_TRUE(prism_test_close(c.total + 871932416.0, 108.64e9, 0.005, 0));
    CU_ASSERT_TRUE(prism_test_close(c.active, 17e9, 0.015, 0));
    PrismModel *m = zoo("llama4-maverick");
    prism_model_params(m, &c);
    const double maverick = attn_norms + 129 * expert + 5120 * 128.0;
    CU_ASSERT_EQUAL(maverick, 16295536640.0);
    CU_ASSERT_EQUAL(c.total, 24 * (dense + maverick) + emb_head);
    CU_ASSERT_EQUAL(c.total, 400711848960.0);
    CU_ASSERT_EQUAL(c.active, 17184691200.0);
    CU_ASSERT_TRUE(prism_test_close(c.active, 17e9, 0.015, 0));
    /* interleave_moe_layer_step 2: MoE where (i + 1) % 2 == 0, one shared expert */
    for (uint32_t b = 0; b < 48; b++)
        CU_ASSERT_EQUAL(block_experts(m, b), b % 2 == 1 ? 128u : 0u);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mlp.n_shared, 1);
    CU_ASSERT_EQUAL(m->specs[m->layers[1].spec].mlp.ffn_hidden, 16384);
    prism_model_free(m);
    /* torchao's 2-layer Scout: 2 x 2,202,101,760 + 2,068,976,640 = 6,473,180,160 */
    total("llama4-scout-2l", &c);
    CU_ASSERT_EQUAL(c.total, 2 * scout + emb_head);
    CU_ASSERT_EQUAL(c.total, 6473180160.0);
}

static void test_validation_moe_by_hand(void)
{
    /* Mixtral-8x22B: h 6144, 48 heads, 8 KV heads of 128, 8 experts of 16384 top-2, V 32768
     *   attention 2*6144^2 + 2*6144*1024 = 88,080,384; expert 3*6144*16384 = 301,989,888;
     *   router 49,152; norms 12,288; block 2,504,060,928
     *   total 56 x block + 2*32768*6144 + 6144 = 140,630,071,296 (141B: -0.26%)
     *   active 56 x (block - 6 experts) + 402,659,328 = 39,161,468,928 (39B: +0.41%) */
    PrismParamCount c, base;
    total("mixtral-8x22b", &base);
    CU_ASSERT_EQUAL(base.total, 140630071296.0);
    CU_ASSERT_EQUAL(base.active, 39161468928.0);
    CU_ASSERT_TRUE(prism_test_close(base.active, 39e9, 0.005, 0));
    /* G8T8: the same expert weights cut into 64 of 2048 (64 x 2048 = 8 x 16384); only the
     * router grows, by 6144 x 56 per layer: 140,630,071,296 + 56 x 344,064
     * = 140,649,338,880. Active: 8 experts of 2048 = one of 16384:
     *   56 x (88,080,384 + 301,989,888 + 393,216 + 12,288) + 402,659,328 = 22,269,302,784 */
    total("mixtral-8x22b-g8t8", &c);
    CU_ASSERT_EQUAL(c.total, base.total + 56 * 6144 * 56.0);
    CU_ASSERT_EQUAL(c.total, 140649338880.0);
    CU_ASSERT_EQUAL(c.active, 22269302784.0);
    /* Llama3-8x70B: Llama-3-70B (70,553,706,496) with each MLP (3*8192*28672 =
     * 704,643,072) copied 8 times and a router 8192 x 8:
     *   total 70,553,706,496 + 80 x (7 x 704,643,072 + 65,536) = 465,159,069,696
     *   active (top-2) 70,553,706,496 + 80 x (704,643,072 + 65,536) = 126,930,395,136 */
    total("llama3-8x70b", &c);
    CU_ASSERT_EQUAL(c.total, 70553706496.0 + 80 * (7 * 704643072.0 + 65536));
    CU_ASSERT_EQUAL(c.total, 465159069696.0);
    CU_ASSERT_EQUAL(c.active, 126930395136.0);
}

static void test_names_and_errors(void)
{
    GError *error = NULL;
    PrismModel *m = prism_model_zoo_get("GPT3-175B", &error); /* case-insensitive */
    CU_ASSERT_PTR_NOT_NULL(m);
    prism_model_free(m);
    CU_ASSERT_PTR_NULL(prism_model_zoo_get("llama3-7b", &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "llama3-8b") : NULL);
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "'llama3-7b'") : NULL);
    g_clear_error(&error);
    CU_ASSERT_PTR_NULL(prism_model_zoo_get("mixtral", &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "mixtral-8x7b") : NULL);
    g_clear_error(&error);
}

/* The zoo name a lookup resolved to, or "" when it failed (and the error's domain/code
 * when it did). */
static void expect_resolves(const char *typed, const char *zoo_name, int code)
{
    GError *error = NULL;
    PrismModel *m = prism_model_resolve(typed, &error);
    if (zoo_name != NULL) {
        CU_ASSERT_PTR_NOT_NULL(m);
        CU_ASSERT_STRING_EQUAL(m ? m->name : "", zoo_name);
    } else {
        CU_ASSERT_PTR_NULL(m);
        CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, code));
    }
    prism_model_free(m);
    g_clear_error(&error);
}

static void test_hugging_face_names(void)
{
    /* no two zoo names are loosely equal, so a loose match names one model */
    const size_t n = prism_model_zoo_size();
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CU_ASSERT_FALSE(
                prism_names_loosely_equal(prism_model_zoo_name(i), prism_model_zoo_name(j)));
    CU_ASSERT_TRUE(prism_names_loosely_equal("Llama-3.1-8B", "llama3.1-8b"));
    CU_ASSERT_TRUE(prism_names_loosely_equal("a_b -", "AB"));
    CU_ASSERT_FALSE(prism_names_loosely_equal("gpt3-1.3b", "gpt3-13b"));
    CU_ASSERT_FALSE(prism_names_loosely_equal("llama3-8b", "llama3-8"));
    CU_ASSERT_FALSE(prism_names_loosely_equal("", "x"));
    /* Hugging Face's spellings, with and without the ORG/ of a repository id */
    expect_resolves("Llama-3.1-8B", "llama3.1-8b", 0);
    expect_resolves("meta-llama/Llama-3.1-8B", "llama3.1-8b", 0);
    expect_resolves("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b", 0);
    expect_resolves("deepseek-ai/DeepSeek-V3", "deepseek-v3", 0);
    expect_resolves("GPT3-1.3B", "gpt3-1.3b", 0); /* the '.' counts: not gpt3-13b */
    expect_resolves("gpt3_13b", "gpt3-13b", 0);
    /* a repository id of no zoo model, and paths, stay file errors */
    expect_resolves("mistralai/Mixtral-8x22B-v0.1", NULL, PRISM_INPUT_ERROR_FILE);
    expect_resolves("./meta-llama/Llama-3.1-8B", NULL, PRISM_INPUT_ERROR_FILE);
    expect_resolves("/nonexistent/Llama-3.1-8B", NULL, PRISM_INPUT_ERROR_FILE);
    expect_resolves("a/b/Llama-3.1-8B", NULL, PRISM_INPUT_ERROR_FILE);
    expect_resolves("meta-llama/llama3.1-8b.json", NULL, PRISM_INPUT_ERROR_FILE);
    expect_resolves("Llama-3.1-7B", NULL, PRISM_INPUT_ERROR_UNKNOWN_NAME);
}

static void test_validate_rejects(void)
{
    PrismModel *base = zoo("llama2-70b");
    GError *error = NULL;
    PrismModel *m = prism_model_copy(base);
    m->specs[0].attn.n_kv_heads = 7; /* does not divide 64 */
    CU_ASSERT_FALSE(prism_model_validate(m, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "num_key_value_heads") : NULL);
    g_clear_error(&error);
    prism_model_free(m);
    m = prism_model_copy(base);
    m->hidden = 0;
    CU_ASSERT_FALSE(prism_model_validate(m, &error));
    g_clear_error(&error);
    prism_model_free(m);
    prism_model_free(base);
    base = zoo("mixtral-8x7b");
    m = prism_model_copy(base);
    m->specs[0].mlp.top_k = 9; /* more than 8 experts */
    CU_ASSERT_FALSE(prism_model_validate(m, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "num_experts_per_tok") : NULL);
    g_clear_error(&error);
    prism_model_free(m);
    prism_model_free(base);
}

/* Equal blocks are one kind whatever their padding bytes hold (PrismMlpSpec has 4 after
 * n_shared): specs built over 0xAA- and 0x55-filled memory, equal member by member. */
static void test_spec_dedup_ignores_padding(void)
{
    PrismBlockSpec a, b;
    memset(&a, 0xAA, sizeof a);
    memset(&b, 0x55, sizeof b);
    PrismBlockSpec *both[] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        PrismBlockSpec *s = both[i];
        s->attn = (PrismAttnSpec){
            .kind = PRISM_ATTN_STANDARD, .n_heads = 32, .n_kv_heads = 8, .head_dim = 128};
        s->mlp.act = PRISM_MLP_SWIGLU;
        s->mlp.bias = FALSE;
        s->mlp.ffn_hidden = 0;
        s->mlp.n_experts = 8;
        s->mlp.top_k = 2;
        s->mlp.n_shared = 0;
        s->mlp.expert_hidden = 14336;
        s->mlp.shared_hidden = 0;
        s->mlp.capacity_factor = 0.0;
        s->mlp.router_bias = FALSE;
        s->mlp.shared_gate = FALSE;
        s->norm = PRISM_NORM_RMSNORM;
        s->mixer = PRISM_MIXER_ATTENTION;
        s->ssm = (PrismSsmSpec){0};
        s->no_mlp = FALSE;
    }
    PrismModel *m = prism_model_new("pad", "test");
    const uint32_t ka = prism_model_add_spec(m, &a);
    CU_ASSERT_EQUAL(prism_model_add_spec(m, &b), ka);
    CU_ASSERT_EQUAL(m->n_specs, 1);
    b.mlp.top_k = 1; /* one member differs: a second kind */
    CU_ASSERT_NOT_EQUAL(prism_model_add_spec(m, &b), ka);
    CU_ASSERT_EQUAL(m->n_specs, 2);
    b.mlp.top_k = 2;
    b.attn.qk_norm = TRUE;
    CU_ASSERT_EQUAL(prism_model_add_spec(m, &b), 2);
    prism_model_free(m);
}

/* Mamba-2 mixer by hand (Megatron-Core / transformers NemotronHMamba2Mixer): d_inner D =
 * H P; in_proj h (2D + 2GN + H); conv1d (D + 2GN) x K weights + (D + 2GN) biases; dt_bias,
 * A_log, D: 3H; gated RMSNorm D; out_proj D h; no projection biases. */
static double mamba_by_hand(double h, double H, double P, double G, double N)
{
    const double D = H * P, K = 4;
    return h * (2 * D + 2 * G * N + H) + (D + 2 * G * N) * (K + 1) + 3 * H + D + D * h;
}

static void test_nemotron_h_by_hand(void)
{
    /* Each pattern character is a layer with one RMSNorm (h) and one part: 'M' Mamba-2,
     * '-' squared-ReLU MLP 2 h f, '*' GQA 2 h a d + 2 h g d, 'E' MoE; embedding and untied
     * head V h each, final norm h. V = 131072, d = 128.
     * 8B: h 4096, 24 M (H 128, P 64, G 8, N 128), 24 '-' (f 21504), 4 '*' (a 32, g 8):
     *   M = 4096 x 18560 + 10240 x 5 + 384 + 8192 + 8192 x 4096 = 109,635,968
     *   '-' = 176,160,768; '*' = 41,943,040
     *   total = 24 (M + h) + 24 ('-' + h) + 4 ('*' + h) + 2 V h + h = 8,100,852,736
     * 56B: h 8192, 54 M (H 256, N 256), 54 '-' (f 32768), 10 '*' (a 64, g 8):
     *   total = 56,324,350,464
     * Nemotron 3 Nano: h 2688, 23 M (H 64, N 128), 23 E (router 128 h, 128 experts of
     *   2 h 1856, one shared 2 h 3712), 6 '*' (a 32, g 2): total 31,577,937,344, active
     *   (top-6 + shared + embedding + head) 3,580,... (published 31.6B, "3.6B including
     *   embeddings") */
    const double V = 131072, d = 128;
    static const struct {
        const char *name;
        double h, H, G, N, f, a, g, nM, nMlp, nAttn, expect;
    } rows[] = {
        {"nemotron-h-8b", 4096, 128, 8, 128, 21504, 32, 8, 24, 24, 4, 8100852736.0},
        {"nemotron-h-56b", 8192, 256, 8, 256, 32768, 64, 8, 54, 54, 10, 56324350464.0},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        const double h = rows[i].h;
        const double M = mamba_by_hand(h, rows[i].H, 64, rows[i].G, rows[i].N);
        const double mlp = 2 * h * rows[i].f;
        const double att = 2 * h * rows[i].a * d + 2 * h * rows[i].g * d;
        const double expect = rows[i].nM * (M + h) + rows[i].nMlp * (mlp + h) +
                              rows[i].nAttn * (att + h) + 2 * V * h + h;
        PrismParamCount c;
        total(rows[i].name, &c);
        CU_ASSERT_EQUAL(c.total, expect);
        CU_ASSERT_EQUAL(c.total, rows[i].expect);
        CU_ASSERT_EQUAL(c.active, c.total);
    }
    CU_ASSERT_EQUAL(mamba_by_hand(4096, 128, 64, 8, 128), 109635968.0);
    {
        const double h = 2688, E = 128, fe = 1856, fs = 3712;
        const double M = mamba_by_hand(h, 64, 64, 8, 128);
        const double moe = h * E + E * 2 * h * fe + 2 * h * fs;
        const double moe_active = h * E + 6 * 2 * h * fe + 2 * h * fs;
        const double att = 2 * h * 32 * d + 2 * h * 2 * d;
        PrismParamCount c;
        total("nemotron3-nano-30b", &c);
        CU_ASSERT_EQUAL(c.total, 23 * (M + h) + 23 * (moe + h) + 6 * (att + h) + 2 * V * h + h);
        CU_ASSERT_EQUAL(c.total, 31577937344.0);
        CU_ASSERT_EQUAL(c.active,
                        23 * (M + h) + 23 * (moe_active + h) + 6 * (att + h) + 2 * V * h + h);
        CU_ASSERT_EQUAL(c.experts, 23 * E * 2 * h * fe);
    }
    /* the layer sequence follows the pattern: 8B block 0 'M', 1 '-', 7 '*' */
    PrismModel *m = zoo("nemotron-h-8b");
    CU_ASSERT_EQUAL(prism_model_n_blocks(m), 52);
    CU_ASSERT_EQUAL(m->specs[m->layers[1].spec].mixer, PRISM_MIXER_MAMBA2);
    CU_ASSERT_TRUE(m->specs[m->layers[1].spec].no_mlp);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mixer, PRISM_MIXER_NONE);
    CU_ASSERT_EQUAL(m->specs[m->layers[8].spec].mixer, PRISM_MIXER_ATTENTION);
    CU_ASSERT_TRUE(m->specs[m->layers[8].spec].no_mlp);
    CU_ASSERT_EQUAL(m->n_specs, 3);
    prism_model_free(m);
}

static void test_qwen3_next_by_hand(void)
{
    /* Qwen3-Next-80B-A3B: h 2048, 48 layers, V 151936, untied. Every layer: two RMSNorms
     * (2h) and a MoE MLP: router 512 h, 512 SwiGLU experts of 3 h 512, one shared expert
     * 3 h 512 behind a sigmoid gate (h). Layers i with (i + 1) % 4 == 0 (12): gated
     * attention q (with the gate) 2 h 16 256, k and v 2 h 2 256, o 16 256 h, q/k norms
     * 2 x 256. The other 36: gated DeltaNet (Hk 16 x dk 128, Hv 32 x dv 128, conv 4):
     * in_proj h (2 2048 + 2 4096 + 64), conv (2 2048 + 4096) x 4, dt_bias and A_log 64,
     * norm 128, out_proj 4096 h.
     *   GDN = 2048 x 12352 + 8192 x 4 + 64 + 128 + 4096 x 2048 = 33,718,464
     *   total = 79,674,391,296, active (top-10) 3,874,929,408 */
    const double h = 2048, V = 151936, E = 512, fe = 512;
    const double gdn = h * (2 * 2048 + 2 * 4096 + 64) + (2 * 2048 + 4096) * 4 + 64 + 128 + 4096 * h;
    CU_ASSERT_EQUAL(gdn, 33718464.0);
    const double att = 2 * h * 16 * 256 + 2 * h * 2 * 256 + 16 * 256 * h + 2 * 256;
    const double moe = h * E + E * 3 * h * fe + 3 * h * fe + h;
    const double moe_act = h * E + 10 * 3 * h * fe + 3 * h * fe + h;
    PrismParamCount c;
    total("qwen3-next-80b-a3b", &c);
    CU_ASSERT_EQUAL(c.total, 36 * (gdn + moe + 2 * h) + 12 * (att + moe + 2 * h) + 2 * V * h + h);
    CU_ASSERT_EQUAL(c.total, 79674391296.0);
    CU_ASSERT_EQUAL(c.active,
                    36 * (gdn + moe_act + 2 * h) + 12 * (att + moe_act + 2 * h) + 2 * V * h + h);
    CU_ASSERT_EQUAL(c.active, 3874929408.0);
    PrismModel *m = zoo("qwen3-next-80b-a3b");
    CU_ASSERT_EQUAL(m->specs[m->layers[1].spec].mixer, PRISM_MIXER_GDN);
    CU_ASSERT_EQUAL(m->specs[m->layers[4].spec].mixer, PRISM_MIXER_ATTENTION);
    CU_ASSERT_TRUE(m->specs[m->layers[4].spec].attn.out_gate);
    CU_ASSERT_EQUAL(m->n_specs, 2);
    prism_model_free(m);
}

static CU_TestInfo zoo_tests[] = {
    {"listing: required models, unique lowercase names", test_listing},
    {"published totals (every zoo model)", test_published_totals},
    {"GPT-3 175B by hand", test_gpt3_175b_by_hand},
    {"Megatron SC21 formula", test_megatron_formula},
    {"Llama / Qwen3 dense by hand", test_llama_by_hand},
    {"Mixtral-8x7B total and active by hand", test_mixtral_by_hand},
    {"DeepSeek-V3 by hand (MLA, MoE, MTP)", test_deepseek_v3_by_hand},
    {"DeepSeek layer sequences", test_deepseek_v3_sequence},
    {"GPT-OSS 20B/120B by hand (sinks, biases, windows)", test_gpt_oss_by_hand},
    {"Qwen MoE by hand (shared gated expert, q/k norms)", test_qwen_moe_by_hand},
    {"Llama 4 Scout/Maverick by hand (interleaved MoE)", test_llama4_by_hand},
    {"validation MoE models by hand", test_validation_moe_by_hand},
    {"names: case, close names", test_names_and_errors},
    {"names: Hugging Face spellings and repository ids", test_hugging_face_names},
    {"validate rejects bad shapes", test_validate_rejects},
    {"block kinds: equal members, any padding, one kind", test_spec_dedup_ignores_padding},
    {"Nemotron-H 8B/56B and Nemotron 3 Nano by hand (Mamba-2, patterns)", test_nemotron_h_by_hand},
    {"Qwen3-Next 80B-A3B by hand (gated DeltaNet, gated attention)", test_qwen3_next_by_hand},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"model_zoo", NULL, NULL, NULL, NULL, zoo_tests},
    CU_SUITE_INFO_NULL,
};
