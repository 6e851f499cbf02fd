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
    ARCH_GPT,        /* learned positions, LayerNorm, GELU, biases everywhere, tied embeddings */
    ARCH_BERT,       /* ARCH_GPT + a bias on the (tied) MLM output layer */
    ARCH_MLM24,      /* ARCH_GPT with RoPE and untied embeddings */
    ARCH_LLAMA,      /* RoPE, RMSNorm, SwiGLU, no biases, untied embeddings */
    ARCH_QWEN2,      /* ARCH_LLAMA + biases on Q, K and V; MoE: shared expert with a sigmoid gate */
    ARCH_QWEN3,      /* ARCH_LLAMA + RMSNorms over head_dim on q and k */
    ARCH_MLA,        /* ARCH_LLAMA with DeepSeek MLA: nope 128, rope 64, v 128 per head */
    ARCH_GPT_OSS,    /* ARCH_LLAMA + biases on Q, K, V, O, the experts and the router, attention
                      * sinks, a sliding window on the even blocks */
    ARCH_LLAMA4,     /* ARCH_LLAMA + one shared expert as wide as a routed one; MoE on the blocks
                      * i with (i + 1) % moe_step == 0, the others dense with width ffn */
    ARCH_NEMOTRON_H, /* hybrid by `pattern` ('M' Mamba-2, '*' attention, '-' MLP, 'E' MoE, one
                      * part per layer); RMSNorm, squared-ReLU MLPs and experts (one shared),
                      * no biases, untied; Mamba-2 with conv bias, chunk 128, conv 4 (the
                      * NemotronHConfig defaults); the attention has no positional encoding
                      * (modelled as RoPE: neither has parameters) */
    ARCH_QWEN3_NEXT, /* ARCH_QWEN3 + an output gate on attention, one gated shared expert, and
                      * gated-DeltaNet mixers on the blocks i with (i + 1) % attn_interval != 0
                      * (conv 4; FLA's chunk 64) */
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
    uint64_t shared_ffn; /* 0 = expert_ffn */
    uint32_t moe_step;   /* ARCH_LLAMA4 (0 = every block) */
    uint32_t window;     /* ARCH_GPT_OSS */
    uint32_t first_dense;
    uint32_t q_lora_rank, kv_lora_rank; /* ARCH_MLA */
    uint32_t mtp;
    double published; /* 0: no published total (a derived shape; checked by hand in tests) */
    /* hybrid models: the layer pattern (ARCH_NEMOTRON_H), the full-attention interval
     * (ARCH_QWEN3_NEXT), the SSM shape (PrismSsmSpec: heads, head dim, state, groups) */
    const char *pattern;
    uint32_t attn_interval;
    uint32_t ssm_heads, ssm_head_dim, ssm_state, ssm_groups;
} ZooRow;

static const ZooRow zoo[] = {
    /* GPT-3, Brown et al. 2020, Table 2.1: vocab 50257, context 2048, tied embeddings.
     * GPT-3 XL: the table lists 24 heads of 128, which does not multiply to d_model
     * 2048; 16 heads of 128 (d_model / 128) is used, as in Megatron reproductions.
     * GPT-3 13B: the table lists d_model 5140; 40 heads x 128 = 5120 is used. */
    {.name = "gpt3-1.3b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 24,
     .hidden = 2048,
     .heads = 16,
     .vocab = 50257,
     .positions = 2048,
     .published = 1.3e9},
    {.name = "gpt3-2.7b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 32,
     .hidden = 2560,
     .heads = 32,
     .vocab = 50257,
     .positions = 2048,
     .published = 2.7e9},
    {.name = "gpt3-6.7b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 32,
     .hidden = 4096,
     .heads = 32,
     .vocab = 50257,
     .positions = 2048,
     .published = 6.7e9},
    {.name = "gpt3-13b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 40,
     .hidden = 5120,
     .heads = 40,
     .vocab = 50257,
     .positions = 2048,
     .published = 13e9},
    {.name = "gpt3-175b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 96,
     .hidden = 12288,
     .heads = 96,
     .vocab = 50257,
     .positions = 2048,
     .published = 175e9},
    /* Megatron-Turing NLG 530B (Smith et al. 2022): 105 layers, h 20480, 128 heads,
     * sequence 2048, GPT-2 BPE padded to 51200. */
    {.name = "mt-nlg-530b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 105,
     .hidden = 20480,
     .heads = 128,
     .vocab = 51200,
     .positions = 2048,
     .published = 530e9},
    /* Megatron 1T (Narayanan et al. SC21, Table 1): 128 layers, h 25600, 160 heads,
     * published as 1008 billion parameters. */
    {.name = "megatron-1t",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 128,
     .hidden = 25600,
     .heads = 160,
     .vocab = 51200,
     .positions = 2048,
     .published = 1008e9},
    /* Llama 2 (Touvron et al. 2023; model cards): vocab 32000, context 4096. The
     * totals are the exact counts of the released checkpoints. */
    {.name = "llama2-7b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 32,
     .hidden = 4096,
     .heads = 32,
     .kv_heads = 32,
     .ffn = 11008,
     .vocab = 32000,
     .positions = 4096,
     .published = 6738415616.0},
    {.name = "llama2-13b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 40,
     .hidden = 5120,
     .heads = 40,
     .kv_heads = 40,
     .ffn = 13824,
     .vocab = 32000,
     .positions = 4096,
     .published = 13015864320.0},
    {.name = "llama2-70b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 80,
     .hidden = 8192,
     .heads = 64,
     .kv_heads = 8,
     .ffn = 28672,
     .vocab = 32000,
     .positions = 4096,
     .published = 68976648192.0},
    /* Llama 3 / 3.1 ("The Llama 3 Herd of Models", 2024, Table 3; model cards): vocab
     * 128256, 8 KV heads; context 8192 (3) and 131072 (3.1). Exact checkpoint totals. */
    {.name = "llama3-8b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 32,
     .hidden = 4096,
     .heads = 32,
     .kv_heads = 8,
     .ffn = 14336,
     .vocab = 128256,
     .positions = 8192,
     .published = 8030261248.0},
    {.name = "llama3-70b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 80,
     .hidden = 8192,
     .heads = 64,
     .kv_heads = 8,
     .ffn = 28672,
     .vocab = 128256,
     .positions = 8192,
     .published = 70553706496.0},
    {.name = "llama3.1-8b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 32,
     .hidden = 4096,
     .heads = 32,
     .kv_heads = 8,
     .ffn = 14336,
     .vocab = 128256,
     .positions = 131072,
     .published = 8030261248.0},
    {.name = "llama3.1-70b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 80,
     .hidden = 8192,
     .heads = 64,
     .kv_heads = 8,
     .ffn = 28672,
     .vocab = 128256,
     .positions = 131072,
     .published = 70553706496.0},
    {.name = "llama3.1-405b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 126,
     .hidden = 16384,
     .heads = 128,
     .kv_heads = 8,
     .ffn = 53248,
     .vocab = 128256,
     .positions = 131072,
     .published = 405853388800.0},
    /* Mixtral (Jiang et al. 2024; Mistral AI announcements): 8 experts, top-2, every
     * layer MoE, dropless. 8x7B: 46.7B total, 12.9B active; 8x22B: 141B / 39B. */
    {.name = "mixtral-8x7b",
     .family = "mixtral",
     .arch = ARCH_LLAMA,
     .layers = 32,
     .hidden = 4096,
     .heads = 32,
     .kv_heads = 8,
     .vocab = 32000,
     .positions = 32768,
     .experts = 8,
     .top_k = 2,
     .expert_ffn = 14336,
     .published = 46.7e9},
    {.name = "mixtral-8x22b",
     .family = "mixtral",
     .arch = ARCH_LLAMA,
     .layers = 56,
     .hidden = 6144,
     .heads = 48,
     .kv_heads = 8,
     .vocab = 32768,
     .positions = 65536,
     .experts = 8,
     .top_k = 2,
     .expert_ffn = 16384,
     .published = 141e9},
    /* The MoE models of shared/validation/measured_modern.csv (MoE Parallel Folding,
     * arXiv 2504.14960, and torchao's B200 Llama 4 run). No published totals: each is
     * derived from a published shape and checked by hand in tests/unit/test_model_zoo.c.
     * mixtral-8x22b-g8t8: Mixtral-8x22B re-cut into 64 experts of width 16384 / 8 = 2048,
     * top-8 (the paper, Sec. 4.1). llama3-8x70b: Llama-3-70B upcycled to 8 experts; top-2
     * is an assumption (the paper does not state it; its upcycling reference, arXiv
     * 2412.09952, uses top-2). llama4-scout-2l: torchtitan's Llama 4 Scout with the
     * layers cut from 48 to 2 (torchao's benchmark). */
    {.name = "mixtral-8x22b-g8t8",
     .family = "mixtral",
     .arch = ARCH_LLAMA,
     .layers = 56,
     .hidden = 6144,
     .heads = 48,
     .kv_heads = 8,
     .vocab = 32768,
     .positions = 65536,
     .experts = 64,
     .top_k = 8,
     .expert_ffn = 2048},
    {.name = "llama3-8x70b",
     .family = "llama",
     .arch = ARCH_LLAMA,
     .layers = 80,
     .hidden = 8192,
     .heads = 64,
     .kv_heads = 8,
     .ffn = 28672,
     .vocab = 128256,
     .positions = 8192,
     .experts = 8,
     .top_k = 2,
     .expert_ffn = 28672},
    {.name = "llama4-scout-2l",
     .family = "llama4",
     .arch = ARCH_LLAMA4,
     .layers = 2,
     .hidden = 5120,
     .heads = 40,
     .kv_heads = 8,
     .head_dim = 128,
     .ffn = 16384,
     .vocab = 202048,
     .positions = 10485760,
     .experts = 16,
     .top_k = 1,
     .expert_ffn = 8192},
    /* Qwen2-72B (Qwen2 technical report 2024; model card total 72.71B). */
    {.name = "qwen2-72b",
     .family = "qwen",
     .arch = ARCH_QWEN2,
     .layers = 80,
     .hidden = 8192,
     .heads = 64,
     .kv_heads = 8,
     .ffn = 29568,
     .vocab = 152064,
     .positions = 32768,
     .published = 72.71e9},
    /* Qwen3 (Qwen3 technical report 2025; model cards): head_dim 128 whatever the hidden
     * size; RMSNorms over head_dim on q and k (2 x 128 weights per layer). The MoE models
     * route every layer, no shared experts. Totals: 32.8B, 30.5B (3.3B active), 235B
     * (22B active); the exact counts of the released checkpoints are 32,762,123,264,
     * 30,532,122,624 and 235,093,634,560, which the IR reproduces. */
    {.name = "qwen3-32b",
     .family = "qwen",
     .arch = ARCH_QWEN3,
     .layers = 64,
     .hidden = 5120,
     .heads = 64,
     .kv_heads = 8,
     .head_dim = 128,
     .ffn = 25600,
     .vocab = 151936,
     .positions = 40960,
     .published = 32.8e9},
    {.name = "qwen3-30b-a3b",
     .family = "qwen",
     .arch = ARCH_QWEN3,
     .layers = 48,
     .hidden = 2048,
     .heads = 32,
     .kv_heads = 4,
     .head_dim = 128,
     .ffn = 6144,
     .vocab = 151936,
     .positions = 40960,
     .experts = 128,
     .top_k = 8,
     .expert_ffn = 768,
     .published = 30.5e9},
    /* Qwen3-Next-80B-A3B: Hugging Face Qwen/Qwen3-Next-80B-A3B-Instruct config.json (48
     * layers, h 2048, gated attention 16 heads x 256 with 2 KV heads on every 4th layer,
     * gated DeltaNet 16 key heads x 128 and 32 value heads x 128 on the others, 512 experts
     * of 512 top-10 + one gated shared expert of 512, vocab 151936); published "80B total,
     * 3B activated" (Qwen blog "Qwen3-Next", 2025). The MTP layer of the checkpoint is not
     * modelled. */
    {.name = "qwen3-next-80b-a3b",
     .family = "qwen",
     .arch = ARCH_QWEN3_NEXT,
     .layers = 48,
     .hidden = 2048,
     .heads = 16,
     .kv_heads = 2,
     .head_dim = 256,
     .ffn = 5120,
     .vocab = 151936,
     .positions = 262144,
     .experts = 512,
     .top_k = 10,
     .shared = 1,
     .expert_ffn = 512,
     .shared_ffn = 512,
     .attn_interval = 4,
     .ssm_heads = 32,
     .ssm_head_dim = 128,
     .ssm_state = 128,
     .ssm_groups = 16,
     .published = 80e9},
    {.name = "qwen3-235b-a22b",
     .family = "qwen",
     .arch = ARCH_QWEN3,
     .layers = 94,
     .hidden = 4096,
     .heads = 64,
     .kv_heads = 4,
     .head_dim = 128,
     .ffn = 12288,
     .vocab = 151936,
     .positions = 40960,
     .experts = 128,
     .top_k = 8,
     .expert_ffn = 1536,
     .published = 235e9},
    /* Qwen MoE with a shared expert (model_type qwen2_moe; public config.json files):
     * every layer MoE, one shared expert of its own width behind a sigmoid gate, Q/K/V
     * biases, untied. Qwen1.5-MoE-A2.7B (Qwen blog 2024): 14.3B total, 2.7B active.
     * Qwen2-57B-A14B (Qwen2 technical report 2024; 57.41B in the Hugging Face listing):
     * 64 experts of 2560 top-8 + a shared expert of 20480, 14B active. */
    {.name = "qwen1.5-moe-a2.7b",
     .family = "qwen",
     .arch = ARCH_QWEN2,
     .layers = 24,
     .hidden = 2048,
     .heads = 16,
     .kv_heads = 16,
     .ffn = 5632,
     .vocab = 151936,
     .positions = 8192,
     .experts = 60,
     .top_k = 4,
     .shared = 1,
     .expert_ffn = 1408,
     .shared_ffn = 5632,
     .published = 14.3e9},
    {.name = "qwen2-57b-a14b",
     .family = "qwen",
     .arch = ARCH_QWEN2,
     .layers = 28,
     .hidden = 3584,
     .heads = 28,
     .kv_heads = 4,
     .ffn = 18944,
     .vocab = 151936,
     .positions = 131072,
     .experts = 64,
     .top_k = 8,
     .shared = 1,
     .expert_ffn = 2560,
     .shared_ffn = 20480,
     .published = 57.41e9},
    /* GPT-OSS (OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card", arXiv 2508.10925, Table 1;
     * config.json): h 2880, 64 q heads x 64, 8 KV heads, experts of width 2880 top-4,
     * vocab 201088, untied; attention alternates a 128-token sliding window (even blocks)
     * and full attention; every block MoE. Table 1: 20.91B total, 3.61B active; 116.83B,
     * 5.13B (active counts the unembedding, not the embedding). The MXFP4 storage of the
     * expert weights is not a parameter matter. */
    {.name = "gpt-oss-20b",
     .family = "gpt-oss",
     .arch = ARCH_GPT_OSS,
     .layers = 24,
     .hidden = 2880,
     .heads = 64,
     .kv_heads = 8,
     .head_dim = 64,
     .ffn = 2880,
     .vocab = 201088,
     .positions = 131072,
     .experts = 32,
     .top_k = 4,
     .expert_ffn = 2880,
     .window = 128,
     .published = 20.91e9},
    {.name = "gpt-oss-120b",
     .family = "gpt-oss",
     .arch = ARCH_GPT_OSS,
     .layers = 36,
     .hidden = 2880,
     .heads = 64,
     .kv_heads = 8,
     .head_dim = 64,
     .ffn = 2880,
     .vocab = 201088,
     .positions = 131072,
     .experts = 128,
     .top_k = 4,
     .expert_ffn = 2880,
     .window = 128,
     .published = 116.83e9},
    /* Llama 4 (Meta model cards, April 2025; config.json text_config): h 5120, 40 heads x
     * 128, 8 KV heads, vocab 202048, 48 layers, experts of width 8192 top-1 + one shared
     * expert of 8192. Scout: 16 experts, every layer MoE. Maverick: 128 experts on every
     * second layer (interleave_moe_layer_step 2: blocks 1, 3, ...), dense layers of width
     * 16384. Chunked-attention (8192) and NoPE layers are priced as full attention. The
     * published 109B / 400B (17B active) include the vision encoder (~0.87B), which the
     * IR does not model: the text model is 107.77B / 400.71B. */
    {.name = "llama4-scout",
     .family = "llama4",
     .arch = ARCH_LLAMA4,
     .layers = 48,
     .hidden = 5120,
     .heads = 40,
     .kv_heads = 8,
     .head_dim = 128,
     .ffn = 16384,
     .vocab = 202048,
     .positions = 10485760,
     .experts = 16,
     .top_k = 1,
     .expert_ffn = 8192,
     .published = 109e9},
    {.name = "llama4-maverick",
     .family = "llama4",
     .arch = ARCH_LLAMA4,
     .layers = 48,
     .hidden = 5120,
     .heads = 40,
     .kv_heads = 8,
     .head_dim = 128,
     .ffn = 16384,
     .vocab = 202048,
     .positions = 1048576,
     .experts = 128,
     .top_k = 1,
     .expert_ffn = 8192,
     .moe_step = 2,
     .published = 400e9},
    /* DeepSeek-V2 (DeepSeek-AI 2024): MLA with kv rank 512, MoE with 2 shared experts,
     * the first layer dense. Lite (15.7B total) does not compress queries. */
    {.name = "deepseek-v2-lite",
     .family = "deepseek",
     .arch = ARCH_MLA,
     .layers = 27,
     .hidden = 2048,
     .heads = 16,
     .ffn = 10944,
     .vocab = 102400,
     .positions = 163840,
     .experts = 64,
     .top_k = 6,
     .shared = 2,
     .expert_ffn = 1408,
     .first_dense = 1,
     .kv_lora_rank = 512,
     .published = 15.7e9},
    {.name = "deepseek-v2",
     .family = "deepseek",
     .arch = ARCH_MLA,
     .layers = 60,
     .hidden = 5120,
     .heads = 128,
     .ffn = 12288,
     .vocab = 102400,
     .positions = 163840,
     .experts = 160,
     .top_k = 6,
     .shared = 2,
     .expert_ffn = 1536,
     .first_dense = 1,
     .q_lora_rank = 1536,
     .kv_lora_rank = 512,
     .published = 236e9},
    /* DeepSeek-V3 (DeepSeek-AI 2024): 61 layers, the first 3 dense (ffn 18432), 256
     * routed experts top-8 + 1 shared (2048 wide), one MTP module. The published 671B
     * (37B active) is the main model; the MTP module is PrismParamCount.mtp. */
    {.name = "deepseek-v3",
     .family = "deepseek",
     .arch = ARCH_MLA,
     .layers = 61,
     .hidden = 7168,
     .heads = 128,
     .ffn = 18432,
     .vocab = 129280,
     .positions = 163840,
     .experts = 256,
     .top_k = 8,
     .shared = 1,
     .expert_ffn = 2048,
     .first_dense = 3,
     .q_lora_rank = 1536,
     .kv_lora_rank = 512,
     .mtp = 1,
     .published = 671e9},
    /* BERT-large (Devlin et al. 2019): published 340M. The final-norm slot stands for
     * the embedding LayerNorm; the pooler and the 2 token-type rows are not modelled. */
    {.name = "bert-large",
     .family = "bert",
     .arch = ARCH_BERT,
     .layers = 24,
     .hidden = 1024,
     .heads = 16,
     .vocab = 30522,
     .positions = 512,
     .published = 340e6},
    /* The GPT models of shared/validation/measured.csv, named after their source.
     * sc21-*: Narayanan et al. SC21, Table 1 (vocab 51200, sequence 2048, ffn 4h). */
    {.name = "sc21-1.7b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 24,
     .hidden = 2304,
     .heads = 24,
     .vocab = 51200,
     .positions = 2048,
     .published = 1.7e9},
    {.name = "sc21-3.6b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 30,
     .hidden = 3072,
     .heads = 32,
     .vocab = 51200,
     .positions = 2048,
     .published = 3.6e9},
    {.name = "sc21-7.5b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 36,
     .hidden = 4096,
     .heads = 32,
     .vocab = 51200,
     .positions = 2048,
     .published = 7.5e9},
    {.name = "sc21-18b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 40,
     .hidden = 6144,
     .heads = 48,
     .vocab = 51200,
     .positions = 2048,
     .published = 18.4e9},
    {.name = "sc21-39b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 48,
     .hidden = 8192,
     .heads = 64,
     .vocab = 51200,
     .positions = 2048,
     .published = 39.1e9},
    {.name = "sc21-76b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 60,
     .hidden = 10240,
     .heads = 80,
     .vocab = 51200,
     .positions = 2048,
     .published = 76.1e9},
    {.name = "sc21-145b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 80,
     .hidden = 12288,
     .heads = 96,
     .vocab = 51200,
     .positions = 2048,
     .published = 145.6e9},
    {.name = "sc21-310b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 96,
     .hidden = 16384,
     .heads = 128,
     .vocab = 51200,
     .positions = 2048,
     .published = 310.1e9},
    /* korth22-22b: Korthikanti et al. 2022, Table 3 (22B: 48 layers, h 6144, 64 heads). */
    {.name = "korth22-22b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 48,
     .hidden = 6144,
     .heads = 64,
     .vocab = 51200,
     .positions = 2048,
     .published = 22e9},
    /* mlm24-*: Megatron-LM README, H100 weak-scaling table (2024): vocab 131072, sequence
     * 4096, untied embeddings (the README's totals fit that); ffn 4h, MHA and RoPE are
     * assumptions, the README does not state them. */
    {.name = "mlm24-1.7b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 24,
     .hidden = 2048,
     .heads = 16,
     .vocab = 131072,
     .positions = 4096,
     .published = 1.7e9},
    {.name = "mlm24-7.1b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 30,
     .hidden = 4096,
     .heads = 32,
     .vocab = 131072,
     .positions = 4096,
     .published = 7.1e9},
    {.name = "mlm24-16b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 32,
     .hidden = 6144,
     .heads = 48,
     .vocab = 131072,
     .positions = 4096,
     .published = 16e9},
    {.name = "mlm24-32b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 48,
     .hidden = 7168,
     .heads = 56,
     .vocab = 131072,
     .positions = 4096,
     .published = 32e9},
    {.name = "mlm24-70b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 84,
     .hidden = 8192,
     .heads = 64,
     .vocab = 131072,
     .positions = 4096,
     .published = 70e9},
    {.name = "mlm24-119b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 92,
     .hidden = 10240,
     .heads = 80,
     .vocab = 131072,
     .positions = 4096,
     .published = 119e9},
    {.name = "mlm24-177b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 96,
     .hidden = 12288,
     .heads = 96,
     .vocab = 131072,
     .positions = 4096,
     .published = 177e9},
    {.name = "mlm24-314b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 96,
     .hidden = 16384,
     .heads = 128,
     .vocab = 131072,
     .positions = 4096,
     .published = 314e9},
    {.name = "mlm24-462b",
     .family = "gpt",
     .arch = ARCH_MLM24,
     .layers = 112,
     .hidden = 18432,
     .heads = 144,
     .vocab = 131072,
     .positions = 4096,
     .published = 462e9},
    /* Nemotron-H (NVIDIA, arXiv 2504.03624; shapes of Megatron-Bridge's
     * NemotronHModelProvider8B/56B and the Hugging Face configs): GQA 8 KV heads of 128,
     * Mamba-2 heads of 64 with 8 groups, vocab 131072, context 8192. 8B: 24 Mamba-2 (128
     * heads, state 128), 24 MLP (21504), 4 attention (32 heads) layers; 56B: 54 Mamba-2 (256
     * heads, state 256), 54 MLP (32768), 10 attention (64 heads). Published "8B" and "56B"
     * (model cards, nominal sizes). */
    {.name = "nemotron-h-8b",
     .family = "nemotron",
     .arch = ARCH_NEMOTRON_H,
     .layers = 52,
     .hidden = 4096,
     .heads = 32,
     .kv_heads = 8,
     .head_dim = 128,
     .ffn = 21504,
     .vocab = 131072,
     .positions = 8192,
     .pattern = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
     .ssm_heads = 128,
     .ssm_head_dim = 64,
     .ssm_state = 128,
     .ssm_groups = 8,
     .published = 8e9},
    {.name = "nemotron-h-56b",
     .family = "nemotron",
     .arch = ARCH_NEMOTRON_H,
     .layers = 118,
     .hidden = 8192,
     .heads = 64,
     .kv_heads = 8,
     .head_dim = 128,
     .ffn = 32768,
     .vocab = 131072,
     .positions = 8192,
     .pattern = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-"
                "M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
     .ssm_heads = 256,
     .ssm_head_dim = 64,
     .ssm_state = 256,
     .ssm_groups = 8,
     .published = 56e9},
    /* Nemotron 3 Nano 30B-A3B (Hugging Face nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16
     * config.json; Megatron-Bridge Nemotron3NanoProvider): 52 layers, h 2688, 23 Mamba-2 (64
     * heads x 64, state 128, 8 groups), 23 MoE (128 squared-ReLU experts of 1856, top-6, one
     * shared expert of 3712), 6 attention layers (32 heads, 2 KV heads of 128); published
     * 31.6B total (model card) */
    {.name = "nemotron3-nano-30b",
     .family = "nemotron",
     .arch = ARCH_NEMOTRON_H,
     .layers = 52,
     .hidden = 2688,
     .heads = 32,
     .kv_heads = 2,
     .head_dim = 128,
     .ffn = 1856,
     .vocab = 131072,
     .positions = 262144,
     .experts = 128,
     .top_k = 6,
     .shared = 1,
     .expert_ffn = 1856,
     .shared_ffn = 3712,
     .pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
     .ssm_heads = 64,
     .ssm_head_dim = 64,
     .ssm_state = 128,
     .ssm_groups = 8,
     .published = 31.6e9},
    /* zbpp-*: Qi et al. ICLR 2024 (zero bubble), Table 3: sequence 1024. The vocabulary
     * is not stated; GPT-2 BPE padded to 50304 (Megatron's default) is assumed. */
    {.name = "zbpp-1.5b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 22,
     .hidden = 2304,
     .heads = 24,
     .vocab = 50304,
     .positions = 1024,
     .published = 1.5e9},
    {.name = "zbpp-6.2b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 30,
     .hidden = 4096,
     .heads = 32,
     .vocab = 50304,
     .positions = 1024,
     .published = 6.2e9},
    {.name = "zbpp-14.6b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 46,
     .hidden = 5120,
     .heads = 40,
     .vocab = 50304,
     .positions = 1024,
     .published = 14.6e9},
    {.name = "zbpp-28.3b",
     .family = "gpt",
     .arch = ARCH_GPT,
     .layers = 62,
     .hidden = 6144,
     .heads = 48,
     .vocab = 50304,
     .positions = 1024,
     .published = 28.3e9},
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
    d->attn.qkv_bias = gpt || r->arch == ARCH_QWEN2 || r->arch == ARCH_GPT_OSS;
    d->attn.out_bias = gpt || r->arch == ARCH_GPT_OSS;
    d->attn.qk_norm = r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_NEXT;
    d->attn.out_gate = r->arch == ARCH_QWEN3_NEXT;
    d->attn.sinks = r->arch == ARCH_GPT_OSS;
    d->window = r->window;
    d->window_step = 2; /* gpt-oss: sliding on the even blocks */
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
    d->mlp_bias = gpt || r->arch == ARCH_GPT_OSS;
    d->ffn = r->ffn ? r->ffn : 4 * r->hidden;
    d->n_experts = r->experts;
    d->top_k = r->top_k;
    d->n_shared = r->arch == ARCH_LLAMA4 ? 1 : r->shared;
    d->expert_ffn = r->expert_ffn;
    /* Llama 4's shared expert is as wide as a routed one; spelled out so the TP rule on
     * the shared width applies */
    d->shared_ffn = r->arch == ARCH_LLAMA4 ? r->expert_ffn : r->shared_ffn;
    d->router_bias = r->arch == ARCH_GPT_OSS;
    d->shared_gate = (r->arch == ARCH_QWEN2 || r->arch == ARCH_QWEN3_NEXT) && r->shared > 0;
    if (r->arch == ARCH_NEMOTRON_H) {
        d->act = PRISM_MLP_RELU2;
        d->pattern = r->pattern;
        d->ssm_mixer = PRISM_MIXER_MAMBA2;
        d->ssm.conv_bias = TRUE;
        d->ssm.chunk = 128;
    } else if (r->arch == ARCH_QWEN3_NEXT) {
        d->ssm_mixer = PRISM_MIXER_GDN;
        d->ssm.chunk = 64;
    }
    d->ssm.n_heads = r->ssm_heads;
    d->ssm.head_dim = r->ssm_head_dim;
    d->ssm.state = r->ssm_state;
    d->ssm.n_groups = r->ssm_groups;
    d->ssm.conv_kernel = 4;
    d->moe_step = r->moe_step;
    d->moe_phase = 1; /* Llama 4: MoE where (i + 1) % step == 0 */
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

uint32_t prism_model_desc_window_internal(const PrismModelDesc *d, uint32_t i)
{
    uint32_t step = d->window_step ? d->window_step : 1;
    if (d->window == 0)
        return 0;
    if (d->window_mask != NULL)
        return d->window_mask[i] ? d->window : 0;
    return i % step == 0 ? d->window : 0;
}

/* Block @p c of a Nemotron-H pattern: one part each ('M' Mamba-2, '*' attention, '-' a
 * dense MLP, 'E' a MoE MLP); the caller has checked the characters. */
static void hybrid_block(const PrismModelDesc *d, char c, const PrismBlockSpec *dense,
                         const PrismBlockSpec *moe, PrismBlockSpec *s)
{
    *s = c == 'E' ? *moe : *dense;
    if (c == 'M' || c == '*') {
        s->no_mlp = TRUE;
        memset(&s->mlp, 0, sizeof s->mlp);
    }
    if (c == 'M') {
        s->mixer = d->ssm_mixer;
        s->ssm = d->ssm;
    }
    if (c == '-' || c == 'E')
        s->mixer = PRISM_MIXER_NONE;
    if (c != '*')
        memset(&s->attn, 0, sizeof s->attn);
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
    moe.mlp.router_bias = d->router_bias;
    moe.mlp.shared_gate = d->shared_gate && d->n_shared > 0;
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    /* Specs are added lazily so a model with no dense block has no dense spec; a
     * windowed block differs from a full-attention one only in attn.window. */
    for (uint32_t i = 0; i < d->n_blocks; i++) {
        PrismBlockSpec s = prism_model_desc_is_moe_internal(d, i) ? moe : dense;
        s.attn.window = prism_model_desc_window_internal(d, i);
        if (d->pattern != NULL)
            hybrid_block(d, d->pattern[i], &dense, &moe, &s);
        else if (d->linear_mask != NULL && d->linear_mask[i]) {
            s.mixer = d->ssm_mixer;
            s.ssm = d->ssm;
            memset(&s.attn, 0, sizeof s.attn);
        }
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, prism_model_add_spec(m, &s));
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
    const char *names[G_N_ELEMENTS(zoo)];
    for (size_t i = 0; i < G_N_ELEMENTS(zoo); i++)
        names[i] = zoo[i].name;
    size_t found = prism_name_lookup(name, names, G_N_ELEMENTS(names));
    if (found == G_N_ELEMENTS(zoo)) {
        /* earlier Hugging Face spellings of the same repositories: Meta's "Meta-Llama-3-8B"
         * and "Meta-Llama-3.1-8B" (renamed "Llama-3.1-8B" in 2024) and Llama 2's "-hf"
         * conversions ("Llama-2-7b-hf") */
        const char *n = name;
        if (g_ascii_strncasecmp(n, "Meta-", 5) == 0)
            n += 5;
        g_autofree char *bare = g_strdup(n);
        const size_t len = strlen(bare);
        if (len > 3 && g_ascii_strcasecmp(bare + len - 3, "-hf") == 0)
            bare[len - 3] = '\0';
        if (strcmp(bare, name) != 0)
            found = prism_name_lookup(bare, names, G_N_ELEMENTS(names));
    }
    if (found < G_N_ELEMENTS(zoo)) {
        PrismModelDesc d;
        row_to_desc(&zoo[found], &d);
        g_autofree gboolean *linear = NULL;
        if (zoo[found].attn_interval > 0) { /* full attention where (i + 1) % interval == 0 */
            linear = g_new0(gboolean, d.n_blocks);
            for (uint32_t i = 0; i < d.n_blocks; i++)
                linear[i] = (i + 1) % zoo[found].attn_interval != 0;
            d.linear_mask = linear;
        }
        return prism_model_build_internal(&d, error);
    }
    g_autofree char *close = prism_close_names(name, names, G_N_ELEMENTS(names), 4);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown model '%s' (closest: %s; `prism models` lists all %zu, or give a "
                "path to a Hugging Face config.json)",
                name, close, G_N_ELEMENTS(zoo));
    return NULL;
}
