// SPDX-License-Identifier: MIT
/*
 * model_zoo.c - the built-in models: one PrismModelDesc per model, built on demand.
 *
 * Shapes are the public facts of each model card or paper (cited per entry). Every
 * entry carries `published_params`, the total its authors state; tests/unit/
 * test_model_zoo.c checks the IR count against it and the README lists the errors.
 * DeepSeek-V3: the published 671B is the main model; its MTP module is counted in
 * PrismParamCount.mtp (the checkpoint's 685B = 671B + 14B MTP incl. its own copies of
 * the embedding and head). Thread-safe (read-only table); nothing here is collective.
 */
#include <prism/model.h>

#include <string.h>

#include <prism/core.h>

#include "core-internal.h"

/* How the rows below map to the IR: the fixed traits of each architecture family. */
typedef enum {
    ARCH_GPT,   /* learned positions, LayerNorm, GELU, biases everywhere, tied embeddings */
    ARCH_BERT,  /* ARCH_GPT + a bias on the (tied) MLM output layer */
    ARCH_MLM24, /* ARCH_GPT with RoPE and untied embeddings */
    ARCH_LLAMA, /* RoPE, RMSNorm, SwiGLU, no biases, untied embeddings */
    ARCH_QWEN2, /* ARCH_LLAMA + biases on Q, K and V */
    ARCH_MLA,   /* ARCH_LLAMA with DeepSeek MLA: nope 128, rope 64, v 128 per head */
} Arch;

/* One zoo row. head_dim 0 means hidden / heads; kv_heads 0 means heads (MHA). */
typedef struct ZooRow {
    const char *name;
    const char *family;
    Arch arch;
    uint32_t layers;
    uint64_t hidden;
    uint32_t heads, kv_heads, head_dim;
    uint64_t ffn; /* 0 = 4 * hidden */
    uint64_t vocab;
    uint64_t positions;
    uint32_t experts, top_k, shared;
    uint64_t expert_ffn;
    uint32_t first_dense;
    uint32_t q_lora_rank, kv_lora_rank; /* ARCH_MLA */
    uint32_t mtp;
    double published;
} ZooRow;

static const ZooRow zoo[] = {
    /* GPT-3, Brown et al. 2020, Table 2.1: vocab 50257, context 2048, tied embeddings.
     * GPT-3 XL: the table lists 24 heads of 128, which does not multiply to d_model
     * 2048; 16 heads of 128 (d_model / 128) is used, as in Megatron reproductions.
     * GPT-3 13B: the table lists d_model 5140; 40 heads x 128 = 5120 is used. */
    {.name = "gpt3-1.3b", .family = "gpt", .arch = ARCH_GPT, .layers = 24, .hidden = 2048,
     .heads = 16, .vocab = 50257, .positions = 2048, .published = 1.3e9},
    {.name = "gpt3-2.7b", .family = "gpt", .arch = ARCH_GPT, .layers = 32, .hidden = 2560,
     .heads = 32, .vocab = 50257, .positions = 2048, .published = 2.7e9},
    {.name = "gpt3-6.7b", .family = "gpt", .arch = ARCH_GPT, .layers = 32, .hidden = 4096,
     .heads = 32, .vocab = 50257, .positions = 2048, .published = 6.7e9},
    {.name = "gpt3-13b", .family = "gpt", .arch = ARCH_GPT, .layers = 40, .hidden = 5120,
     .heads = 40, .vocab = 50257, .positions = 2048, .published = 13e9},
    {.name = "gpt3-175b", .family = "gpt", .arch = ARCH_GPT, .layers = 96, .hidden = 12288,
     .heads = 96, .vocab = 50257, .positions = 2048, .published = 175e9},
    /* Megatron-Turing NLG 530B (Smith et al. 2022): 105 layers, h 20480, 128 heads,
     * sequence 2048, GPT-2 BPE padded to 51200. */
    {.name = "mt-nlg-530b", .family = "gpt", .arch = ARCH_GPT, .layers = 105, .hidden = 20480,
     .heads = 128, .vocab = 51200, .positions = 2048, .published = 530e9},
    /* Megatron 1T (Narayanan et al. SC21, Table 1): 128 layers, h 25600, 160 heads,
     * published as 1008 billion parameters. */
    {.name = "megatron-1t", .family = "gpt", .arch = ARCH_GPT, .layers = 128,
     .hidden = 25600, .heads = 160, .vocab = 51200, .positions = 2048, .published = 1008e9},
    /* Llama 2 (Touvron et al. 2023; model cards): vocab 32000, context 4096. The
     * totals are the exact counts of the released checkpoints. */
    {.name = "llama2-7b", .family = "llama", .arch = ARCH_LLAMA, .layers = 32, .hidden = 4096,
     .heads = 32, .kv_heads = 32, .ffn = 11008, .vocab = 32000, .positions = 4096,
     .published = 6738415616.0},
    {.name = "llama2-13b", .family = "llama", .arch = ARCH_LLAMA, .layers = 40,
     .hidden = 5120, .heads = 40, .kv_heads = 40, .ffn = 13824, .vocab = 32000,
     .positions = 4096, .published = 13015864320.0},
    {.name = "llama2-70b", .family = "llama", .arch = ARCH_LLAMA, .layers = 80,
     .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672, .vocab = 32000,
     .positions = 4096, .published = 68976648192.0},
    /* Llama 3 / 3.1 ("The Llama 3 Herd of Models", 2024, Table 3; model cards): vocab
     * 128256, 8 KV heads; context 8192 (3) and 131072 (3.1). Exact checkpoint totals. */
    {.name = "llama3-8b", .family = "llama", .arch = ARCH_LLAMA, .layers = 32, .hidden = 4096,
     .heads = 32, .kv_heads = 8, .ffn = 14336, .vocab = 128256, .positions = 8192,
     .published = 8030261248.0},
    {.name = "llama3-70b", .family = "llama", .arch = ARCH_LLAMA, .layers = 80,
     .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672, .vocab = 128256,
     .positions = 8192, .published = 70553706496.0},
    {.name = "llama3.1-8b", .family = "llama", .arch = ARCH_LLAMA, .layers = 32,
     .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336, .vocab = 128256,
     .positions = 131072, .published = 8030261248.0},
    {.name = "llama3.1-70b", .family = "llama", .arch = ARCH_LLAMA, .layers = 80,
     .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672, .vocab = 128256,
     .positions = 131072, .published = 70553706496.0},
    {.name = "llama3.1-405b", .family = "llama", .arch = ARCH_LLAMA, .layers = 126,
     .hidden = 16384, .heads = 128, .kv_heads = 8, .ffn = 53248, .vocab = 128256,
     .positions = 131072, .published = 405853388800.0},
    /* Mixtral (Jiang et al. 2024; Mistral AI announcements): 8 experts, top-2, every
     * layer MoE, dropless. 8x7B: 46.7B total, 12.9B active; 8x22B: 141B / 39B. */
    {.name = "mixtral-8x7b", .family = "mixtral", .arch = ARCH_LLAMA, .layers = 32,
     .hidden = 4096, .heads = 32, .kv_heads = 8, .vocab = 32000, .positions = 32768,
     .experts = 8, .top_k = 2, .expert_ffn = 14336, .published = 46.7e9},
    {.name = "mixtral-8x22b", .family = "mixtral", .arch = ARCH_LLAMA, .layers = 56,
     .hidden = 6144, .heads = 48, .kv_heads = 8, .vocab = 32768, .positions = 65536,
     .experts = 8, .top_k = 2, .expert_ffn = 16384, .published = 141e9},
    /* Qwen2-72B (Qwen2 technical report 2024; model card total 72.71B). */
    {.name = "qwen2-72b", .family = "qwen", .arch = ARCH_QWEN2, .layers = 80, .hidden = 8192,
     .heads = 64, .kv_heads = 8, .ffn = 29568, .vocab = 152064, .positions = 32768,
     .published = 72.71e9},
    /* Qwen3 (Qwen3 technical report 2025; model cards): head_dim 128 whatever the hidden
     * size; the per-head q/k RMSNorms (2 x 128 weights per layer) are not modelled.
     * The MoE models route every layer, no shared experts. */
    {.name = "qwen3-32b", .family = "qwen", .arch = ARCH_LLAMA, .layers = 64, .hidden = 5120,
     .heads = 64, .kv_heads = 8, .head_dim = 128, .ffn = 25600, .vocab = 151936,
     .positions = 40960, .published = 32.8e9},
    {.name = "qwen3-30b-a3b", .family = "qwen", .arch = ARCH_LLAMA, .layers = 48,
     .hidden = 2048, .heads = 32, .kv_heads = 4, .head_dim = 128, .ffn = 6144,
     .vocab = 151936, .positions = 40960, .experts = 128, .top_k = 8, .expert_ffn = 768,
     .published = 30.5e9},
    {.name = "qwen3-235b-a22b", .family = "qwen", .arch = ARCH_LLAMA, .layers = 94,
     .hidden = 4096, .heads = 64, .kv_heads = 4, .head_dim = 128, .ffn = 12288,
     .vocab = 151936, .positions = 40960, .experts = 128, .top_k = 8, .expert_ffn = 1536,
     .published = 235e9},
    /* DeepSeek-V2 (DeepSeek-AI 2024): MLA with kv rank 512, MoE with 2 shared experts,
     * the first layer dense. Lite (15.7B total) does not compress queries. */
    {.name = "deepseek-v2-lite", .family = "deepseek", .arch = ARCH_MLA, .layers = 27,
     .hidden = 2048, .heads = 16, .ffn = 10944, .vocab = 102400, .positions = 163840,
     .experts = 64, .top_k = 6, .shared = 2, .expert_ffn = 1408, .first_dense = 1,
     .kv_lora_rank = 512, .published = 15.7e9},
    {.name = "deepseek-v2", .family = "deepseek", .arch = ARCH_MLA, .layers = 60,
     .hidden = 5120, .heads = 128, .ffn = 12288, .vocab = 102400, .positions = 163840,
     .experts = 160, .top_k = 6, .shared = 2, .expert_ffn = 1536, .first_dense = 1,
     .q_lora_rank = 1536, .kv_lora_rank = 512, .published = 236e9},
    /* DeepSeek-V3 (DeepSeek-AI 2024): 61 layers, the first 3 dense (ffn 18432), 256
     * routed experts top-8 + 1 shared (2048 wide), one MTP module. The published 671B
     * (37B active) is the main model; the MTP module is PrismParamCount.mtp. */
    {.name = "deepseek-v3", .family = "deepseek", .arch = ARCH_MLA, .layers = 61,
     .hidden = 7168, .heads = 128, .ffn = 18432, .vocab = 129280, .positions = 163840,
     .experts = 256, .top_k = 8, .shared = 1, .expert_ffn = 2048, .first_dense = 3,
     .q_lora_rank = 1536, .kv_lora_rank = 512, .mtp = 1, .published = 671e9},
    /* BERT-large (Devlin et al. 2019): published 340M. The final-norm slot stands for
     * the embedding LayerNorm; the pooler and the 2 token-type rows are not modelled. */
    {.name = "bert-large", .family = "bert", .arch = ARCH_BERT, .layers = 24, .hidden = 1024,
     .heads = 16, .vocab = 30522, .positions = 512, .published = 340e6},
    /* The GPT models of shared/validation/measured.csv, named after their source.
     * sc21-*: Narayanan et al. SC21, Table 1 (vocab 51200, sequence 2048, ffn 4h). */
    {.name = "sc21-1.7b", .family = "gpt", .arch = ARCH_GPT, .layers = 24, .hidden = 2304,
     .heads = 24, .vocab = 51200, .positions = 2048, .published = 1.7e9},
    {.name = "sc21-3.6b", .family = "gpt", .arch = ARCH_GPT, .layers = 30, .hidden = 3072,
     .heads = 32, .vocab = 51200, .positions = 2048, .published = 3.6e9},
    {.name = "sc21-7.5b", .family = "gpt", .arch = ARCH_GPT, .layers = 36, .hidden = 4096,
     .heads = 32, .vocab = 51200, .positions = 2048, .published = 7.5e9},
    {.name = "sc21-18b", .family = "gpt", .arch = ARCH_GPT, .layers = 40, .hidden = 6144,
     .heads = 48, .vocab = 51200, .positions = 2048, .published = 18.4e9},
    {.name = "sc21-39b", .family = "gpt", .arch = ARCH_GPT, .layers = 48, .hidden = 8192,
     .heads = 64, .vocab = 51200, .positions = 2048, .published = 39.1e9},
    {.name = "sc21-76b", .family = "gpt", .arch = ARCH_GPT, .layers = 60, .hidden = 10240,
     .heads = 80, .vocab = 51200, .positions = 2048, .published = 76.1e9},
    {.name = "sc21-145b", .family = "gpt", .arch = ARCH_GPT, .layers = 80, .hidden = 12288,
     .heads = 96, .vocab = 51200, .positions = 2048, .published = 145.6e9},
    {.name = "sc21-310b", .family = "gpt", .arch = ARCH_GPT, .layers = 96, .hidden = 16384,
     .heads = 128, .vocab = 51200, .positions = 2048, .published = 310.1e9},
    /* korth22-22b: Korthikanti et al. 2022, Table 3 (22B: 48 layers, h 6144, 64 heads). */
    {.name = "korth22-22b", .family = "gpt", .arch = ARCH_GPT, .layers = 48, .hidden = 6144,
     .heads = 64, .vocab = 51200, .positions = 2048, .published = 22e9},
    /* mlm24-*: Megatron-LM README, H100 weak-scaling table (2024): vocab 131072, sequence
     * 4096, untied embeddings (the README's totals fit that); ffn 4h, MHA and RoPE are
     * assumptions, the README does not state them. */
    {.name = "mlm24-1.7b", .family = "gpt", .arch = ARCH_MLM24, .layers = 24, .hidden = 2048,
     .heads = 16, .vocab = 131072, .positions = 4096, .published = 1.7e9},
    {.name = "mlm24-7.1b", .family = "gpt", .arch = ARCH_MLM24, .layers = 30, .hidden = 4096,
     .heads = 32, .vocab = 131072, .positions = 4096, .published = 7.1e9},
    {.name = "mlm24-16b", .family = "gpt", .arch = ARCH_MLM24, .layers = 32, .hidden = 6144,
     .heads = 48, .vocab = 131072, .positions = 4096, .published = 16e9},
    {.name = "mlm24-32b", .family = "gpt", .arch = ARCH_MLM24, .layers = 48, .hidden = 7168,
     .heads = 56, .vocab = 131072, .positions = 4096, .published = 32e9},
    {.name = "mlm24-70b", .family = "gpt", .arch = ARCH_MLM24, .layers = 84, .hidden = 8192,
     .heads = 64, .vocab = 131072, .positions = 4096, .published = 70e9},
    {.name = "mlm24-119b", .family = "gpt", .arch = ARCH_MLM24, .layers = 92,
     .hidden = 10240, .heads = 80, .vocab = 131072, .positions = 4096, .published = 119e9},
    {.name = "mlm24-177b", .family = "gpt", .arch = ARCH_MLM24, .layers = 96,
     .hidden = 12288, .heads = 96, .vocab = 131072, .positions = 4096, .published = 177e9},
    {.name = "mlm24-314b", .family = "gpt", .arch = ARCH_MLM24, .layers = 96,
     .hidden = 16384, .heads = 128, .vocab = 131072, .positions = 4096, .published = 314e9},
    {.name = "mlm24-462b", .family = "gpt", .arch = ARCH_MLM24, .layers = 112,
     .hidden = 18432, .heads = 144, .vocab = 131072, .positions = 4096, .published = 462e9},
    /* zbpp-*: Qi et al. ICLR 2024 (zero bubble), Table 3: sequence 1024. The vocabulary
     * is not stated; GPT-2 BPE padded to 50304 (Megatron's default) is assumed. */
    {.name = "zbpp-1.5b", .family = "gpt", .arch = ARCH_GPT, .layers = 22, .hidden = 2304,
     .heads = 24, .vocab = 50304, .positions = 1024, .published = 1.5e9},
    {.name = "zbpp-6.2b", .family = "gpt", .arch = ARCH_GPT, .layers = 30, .hidden = 4096,
     .heads = 32, .vocab = 50304, .positions = 1024, .published = 6.2e9},
    {.name = "zbpp-14.6b", .family = "gpt", .arch = ARCH_GPT, .layers = 46, .hidden = 5120,
     .heads = 40, .vocab = 50304, .positions = 1024, .published = 14.6e9},
    {.name = "zbpp-28.3b", .family = "gpt", .arch = ARCH_GPT, .layers = 62, .hidden = 6144,
     .heads = 48, .vocab = 50304, .positions = 1024, .published = 28.3e9},
};

/* Expand a row into the full description (the family traits of ZooRow.arch). */
static void row_to_desc(const ZooRow *r, PrismModelDesc *d)
{
    gboolean gpt = r->arch == ARCH_GPT || r->arch == ARCH_BERT || r->arch == ARCH_MLM24;
    memset(d, 0, sizeof *d);
    d->name = r->name;
    d->family = r->family;
    d->n_blocks = r->layers;
    d->hidden = r->hidden;
    d->vocab = r->vocab;
    d->max_positions = r->positions;
    d->pos = r->arch == ARCH_GPT || r->arch == ARCH_BERT ? PRISM_POS_LEARNED : PRISM_POS_ROPE;
    d->norm = gpt ? PRISM_NORM_LAYERNORM : PRISM_NORM_RMSNORM;
    d->tied = r->arch == ARCH_GPT || r->arch == ARCH_BERT;
    d->head_bias = r->arch == ARCH_BERT;
    d->attn.n_heads = r->heads;
    d->attn.n_kv_heads = r->kv_heads ? r->kv_heads : r->heads;
    d->attn.head_dim = r->head_dim ? r->head_dim : (uint32_t)(r->hidden / r->heads);
    d->attn.qkv_bias = gpt || r->arch == ARCH_QWEN2;
    d->attn.out_bias = gpt;
    if (r->arch == ARCH_MLA) {
        d->attn.kind = PRISM_ATTN_MLA;
        d->attn.n_kv_heads = r->heads;
        d->attn.q_lora_rank = r->q_lora_rank;
        d->attn.kv_lora_rank = r->kv_lora_rank;
        d->attn.qk_nope_head_dim = 128;
        d->attn.qk_rope_head_dim = 64;
        d->attn.v_head_dim = 128;
        d->attn.head_dim = 128 + 64; /* the q/k head dim, for attention FLOPs */
    }
    d->act = gpt ? PRISM_MLP_GELU : PRISM_MLP_SWIGLU;
    d->mlp_bias = gpt;
    d->ffn = r->ffn ? r->ffn : 4 * r->hidden;
    d->n_experts = r->experts;
    d->top_k = r->top_k;
    d->n_shared = r->shared;
    d->expert_ffn = r->expert_ffn;
    d->first_dense = r->first_dense;
    d->n_mtp = r->mtp;
    d->published_params = r->published;
}

size_t prism_model_zoo_size(void)
{
    return G_N_ELEMENTS(zoo);
}

const char *prism_model_zoo_name(size_t i)
{
    return i < G_N_ELEMENTS(zoo) ? zoo[i].name : NULL;
}

gboolean prism_model_desc_is_moe_internal(const PrismModelDesc *d, uint32_t i)
{
    uint32_t step = d->moe_step ? d->moe_step : 1;
    if (d->n_experts == 0 || i < d->first_dense || (i + d->moe_phase) % step != 0)
        return FALSE;
    return d->dense_mask == NULL || !d->dense_mask[i];
}

PrismModel *prism_model_build_internal(const PrismModelDesc *d, GError **error)
{
    g_autoptr(PrismModel) m = prism_model_new(d->name, d->family ? d->family : "?");
    m->hidden = d->hidden;
    m->vocab = d->vocab;
    m->max_positions = d->max_positions;
    m->pos = d->pos;
    m->final_norm = d->norm;
    m->tied_embeddings = d->tied;
    m->head_bias = d->head_bias;
    m->published_params = d->published_params;
    PrismBlockSpec dense = {.attn = d->attn, .norm = d->norm};
    dense.mlp.act = d->act;
    dense.mlp.bias = d->mlp_bias;
    dense.mlp.ffn_hidden = d->ffn;
    PrismBlockSpec moe = dense;
    moe.mlp.ffn_hidden = 0;
    moe.mlp.n_experts = d->n_experts;
    moe.mlp.top_k = d->top_k;
    moe.mlp.n_shared = d->n_shared;
    moe.mlp.expert_hidden = d->expert_ffn;
    moe.mlp.shared_hidden = d->shared_ffn;
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    /* Specs are added lazily so a model with no dense block has no dense spec. */
    for (uint32_t i = 0; i < d->n_blocks; i++) {
        const PrismBlockSpec *s = prism_model_desc_is_moe_internal(d, i) ? &moe : &dense;
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, prism_model_add_spec(m, s));
    }
    for (uint32_t i = 0; i < d->n_mtp; i++)
        prism_model_add_layer(m, PRISM_LAYER_MTP,
                              prism_model_add_spec(m, d->n_experts > 0 ? &moe : &dense));
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    if (!prism_model_validate(m, error))
        return NULL;
    return g_steal_pointer(&m);
}

PrismModel *prism_model_zoo_get(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(zoo); i++)
        if (g_ascii_strcasecmp(name, zoo[i].name) == 0) {
            PrismModelDesc d;
            row_to_desc(&zoo[i], &d);
            return prism_model_build_internal(&d, error);
        }
    const char *names[G_N_ELEMENTS(zoo)];
    for (size_t i = 0; i < G_N_ELEMENTS(zoo); i++)
        names[i] = zoo[i].name;
    g_autofree char *close = prism_close_names(name, names, G_N_ELEMENTS(names), 4);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown model '%s' (closest: %s; `prism models` lists all %zu, or give a "
                "path to a Hugging Face config.json)",
                name, close, G_N_ELEMENTS(zoo));
    return NULL;
}
