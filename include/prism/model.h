/*
 * model.h - the model IR: an ordered sequence of layers with per-layer shapes.
 *
 * A model is: embedding, N transformer blocks (each referring to a block spec),
 * optional multi-token-prediction (MTP) blocks, final norm and output head. Blocks may
 * differ along the sequence (dense first layers then MoE layers), so blocks refer to a
 * small table of distinct PrismBlockSpec entries ("layer kinds"). The cost model works
 * per kind and multiplies by counts, which keeps the kernels short.
 *
 * The structs are plain data (the IR is meant to be read); build them with the zoo
 * (prism_model_zoo_get), the Hugging Face reader (prism_model_from_hf_config) or
 * prism_model_new() + prism_model_add_*(). Nothing here is collective.
 */
#ifndef PRISM_MODEL_H
#define PRISM_MODEL_H

#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

/** Attention family. MHA, GQA and MQA differ only in n_kv_heads. */
typedef enum {
    PRISM_ATTN_STANDARD = 0, /**< MHA (kv == heads), GQA (1 < kv < heads), MQA (kv == 1) */
    PRISM_ATTN_MLA = 1,      /**< DeepSeek multi-head latent attention */
} PrismAttnKind;

/** MLP activation. SwiGLU has three weight matrices (gate, up, down), GELU two. */
typedef enum {
    PRISM_MLP_GELU = 0,
    PRISM_MLP_SWIGLU = 1,
    PRISM_MLP_RELU2 = 2, /**< squared ReLU (Nemotron-H): two matrices, as GELU */
} PrismMlpAct;

/** Token mixer of a block (the part that exchanges information between positions). */
typedef enum {
    PRISM_MIXER_ATTENTION = 0, /**< softmax attention, shaped by PrismBlockSpec.attn */
    PRISM_MIXER_MAMBA2 = 1,    /**< Mamba-2 SSD layer, shaped by PrismBlockSpec.ssm */
    PRISM_MIXER_GDN = 2,       /**< gated DeltaNet (linear attention), PrismBlockSpec.ssm */
    PRISM_MIXER_NONE = 3,      /**< no mixer: an MLP-only layer (Nemotron-H '-' and 'E') */
} PrismMixerKind;

typedef enum {
    PRISM_NORM_LAYERNORM = 0, /**< weight + bias: 2h parameters */
    PRISM_NORM_RMSNORM = 1,   /**< weight only: h parameters */
} PrismNormKind;

typedef enum {
    PRISM_POS_ROPE = 0,    /**< rotary: no parameters */
    PRISM_POS_LEARNED = 1, /**< learned absolute positions: max_positions x hidden */
} PrismPosKind;

/** Attention shape of one block. */
typedef struct PrismAttnSpec {
    PrismAttnKind kind;
    uint32_t n_heads;
    uint32_t n_kv_heads; /**< == n_heads for MHA, 1 for MQA; MLA: == n_heads */
    uint32_t head_dim;   /**< q/k/v head dim (standard); MLA: qk_nope + qk_rope */
    gboolean qkv_bias;   /**< bias on Q, K, V projections */
    gboolean out_bias;   /**< bias on the output projection */
    /* MLA only (0 otherwise) */
    uint32_t q_lora_rank; /**< 0 = queries not compressed (DeepSeek-V2-Lite) */
    uint32_t kv_lora_rank;
    uint32_t qk_nope_head_dim;
    uint32_t qk_rope_head_dim;
    uint32_t v_head_dim;
    /* extras of some families (FALSE / 0 otherwise) */
    uint32_t window;   /**< sliding window in tokens (gpt-oss, Mistral); 0 = full attention */
    gboolean sinks;    /**< learned per-head sink logit (gpt-oss): n_heads parameters */
    gboolean qk_norm;  /**< RMSNorm over head_dim on q and k (Qwen3): 2 x head_dim parameters */
    gboolean out_gate; /**< sigmoid output gate from a second q-sized projection (Qwen3-Next
                            attn_output_gate): h x heads x head_dim parameters */
} PrismAttnSpec;

/**
 * Shape of a state-space (Mamba-2) or linear-attention (gated DeltaNet) mixer.
 * Mamba-2: n_heads SSM heads of head_dim channels (d_inner = n_heads x head_dim), state
 * size `state`, n_groups B/C groups, a depthwise causal conv of conv_kernel taps (with a
 * bias when conv_bias) over x, B and C; in_proj h -> 2 d_inner + 2 n_groups state + n_heads,
 * out_proj d_inner -> h (biases when `bias`), dt_bias, A_log and D per head, a gated
 * RMSNorm over d_inner.
 * Gated DeltaNet: n_heads value heads of head_dim, n_groups key heads of `state` (the key
 * head dim; the state per value head is state x head_dim); in_proj h -> 2 n_groups state +
 * 2 n_heads head_dim + 2 n_heads (q, k, v, output gate, beta, alpha), conv over q, k, v
 * (no bias), dt_bias and A_log per value head, a gated RMSNorm over head_dim, out_proj.
 * chunk: the chunk length of the chunked scan (Mamba-2 chunk_size; FLA's 64 for GDN).
 */
typedef struct PrismSsmSpec {
    uint32_t n_heads;
    uint32_t head_dim;
    uint32_t state;
    uint32_t n_groups;
    uint32_t conv_kernel;
    uint32_t chunk;
    gboolean bias;      /**< Mamba-2 in/out projection biases (mamba_proj_bias / use_bias) */
    gboolean conv_bias; /**< Mamba-2 conv1d bias (use_conv_bias) */
} PrismSsmSpec;

/** MLP shape of one block; dense when n_experts == 0. */
typedef struct PrismMlpSpec {
    PrismMlpAct act;
    gboolean bias;          /**< bias on MLP linears (GPT-2/3, BERT, NeoX) */
    uint64_t ffn_hidden;    /**< dense FFN width (0 for MoE blocks) */
    uint32_t n_experts;     /**< routed experts; 0 = dense */
    uint32_t top_k;         /**< experts per token */
    uint32_t n_shared;      /**< shared (always-active) experts */
    uint64_t expert_hidden; /**< FFN width of one routed expert */
    uint64_t shared_hidden; /**< FFN width of ONE shared expert (0 = expert_hidden) */
    double capacity_factor; /**< token capacity per expert; 0 = dropless */
    gboolean router_bias;   /**< bias on the router (gpt-oss): n_experts parameters */
    gboolean shared_gate;   /**< sigmoid gate on the shared experts' output (qwen2_moe): h x 1 */
} PrismMlpSpec;

/** One distinct block shape ("layer kind"). A block is a token mixer and an MLP, each
 *  behind its own norm; hybrid models have blocks with only one of the two (Nemotron-H:
 *  a Mamba-2, attention or MLP layer per pattern character). */
typedef struct PrismBlockSpec {
    PrismAttnSpec attn; /**< mixer == ATTENTION (zero otherwise) */
    PrismMlpSpec mlp;   /**< unless no_mlp */
    PrismNormKind norm; /**< the per-block norms (one per mixer and MLP present) */
    PrismMixerKind mixer;
    PrismSsmSpec ssm; /**< mixer == MAMBA2 or GDN (zero otherwise) */
    gboolean no_mlp;  /**< the block has no MLP (a mixer-only layer) */
} PrismBlockSpec;

typedef enum {
    PRISM_LAYER_EMBEDDING = 0, /**< token (+ learned position) embedding */
    PRISM_LAYER_BLOCK = 1,     /**< transformer block: attention + MLP + 2 norms */
    PRISM_LAYER_MTP = 2,       /**< multi-token-prediction module: 2 norms + 2h->h proj + block */
    PRISM_LAYER_FINAL_NORM = 3,
    PRISM_LAYER_HEAD = 4, /**< output projection to the vocabulary (+ loss) */
} PrismLayerKind;

/** One entry of the layer sequence. */
typedef struct PrismLayer {
    PrismLayerKind kind;
    uint32_t spec; /**< index into PrismModel.specs for BLOCK and MTP, else 0 */
} PrismLayer;

/** The model IR. Owned by whoever created it; free with prism_model_free(). */
typedef struct PrismModel {
    char *name;   /**< zoo name or "hf:<path>" */
    char *family; /**< "gpt", "llama", "mixtral", "deepseek", ... */
    uint64_t hidden;
    uint64_t vocab;
    uint64_t max_positions; /**< max sequence length the model supports */
    PrismPosKind pos;
    PrismNormKind final_norm;
    gboolean tied_embeddings; /**< head shares the embedding matrix */
    gboolean head_bias;
    double published_params; /**< published total, for tests and `prism models` (0 = unknown) */
    PrismBlockSpec *specs;
    uint32_t n_specs;
    PrismLayer *layers; /**< the full ordered sequence, embedding first, head last */
    uint32_t n_layers;
} PrismModel;

/** Parameter counts derived from the IR. */
typedef struct PrismParamCount {
    double total;      /**< all parameters (tied matrices counted once) */
    double active;     /**< parameters touched per token (MoE: top-k + shared experts); includes
                            the input embedding, which gpt-oss and DeepSeek-V3 leave out of
                            their published "active" (active - embedding compares to them) */
    double embedding;  /**< token + position embedding */
    double head;       /**< output head (0 when tied) + final norm */
    double blocks;     /**< all transformer blocks (attention + MLP + norms) */
    double experts;    /**< routed-expert parameters within blocks */
    double mtp;        /**< MTP modules */
    double mtp_active; /**< the part of `active` that lies in MTP modules */
} PrismParamCount;

/** New empty model. Ownership: caller frees with prism_model_free(). */
PrismModel *prism_model_new(const char *name, const char *family);
void prism_model_free(PrismModel *model);
/** Deep copy. Ownership: caller frees with prism_model_free(). */
PrismModel *prism_model_copy(const PrismModel *model);

/** Append a block spec if no equal spec exists; returns its index. */
uint32_t prism_model_add_spec(PrismModel *model, const PrismBlockSpec *spec);
/** Append a layer to the sequence. */
void prism_model_add_layer(PrismModel *model, PrismLayerKind kind, uint32_t spec);

/**
 * Check the IR for internal consistency (positive sizes, heads divisible, layer order).
 * Errors: PRISM_INPUT_ERROR_VALUE naming the field. Not collective.
 */
gboolean prism_model_validate(const PrismModel *model, GError **error);

/** Number of transformer blocks (BLOCK layers; MTP not included). */
uint32_t prism_model_n_blocks(const PrismModel *model);
/** Number of MTP layers. */
uint32_t prism_model_n_mtp(const PrismModel *model);
/** TRUE when any block spec has routed experts. */
gboolean prism_model_is_moe(const PrismModel *model);
/** Largest routed-expert count over all specs (0 for dense models). */
uint32_t prism_model_max_experts(const PrismModel *model);

/** Parameters of one block spec (attention + MLP + two norms). */
double prism_block_params(const PrismBlockSpec *spec, uint64_t hidden);
/** Routed-expert part of prism_block_params(). */
double prism_block_expert_params(const PrismBlockSpec *spec, uint64_t hidden);
/** Attention parameters of one block spec. */
double prism_attn_params(const PrismAttnSpec *attn, uint64_t hidden);
/** Parameters of a Mamba-2 (@p mixer MAMBA2) or gated-DeltaNet (GDN) mixer, norms excluded. */
double prism_ssm_params(PrismMixerKind mixer, const PrismSsmSpec *ssm, uint64_t hidden);
/** Norms of a block spec: one per mixer and one per MLP present. */
uint32_t prism_block_norms(const PrismBlockSpec *spec);

/** Count parameters. Not collective. */
void prism_model_params(const PrismModel *model, PrismParamCount *out);

/** Zoo: number of built-in models and their names (static strings, in listing order). */
size_t prism_model_zoo_size(void);
const char *prism_model_zoo_name(size_t i);

/**
 * Build a zoo model by name: case-insensitive, and failing that loosely, ignoring the
 * separators '-', '_' and ' ' (prism_name_lookup; Hugging Face's "Llama-3.1-8B" is
 * llama3.1-8b). Unknown names give PRISM_INPUT_ERROR_UNKNOWN_NAME listing the closest
 * names.
 * Ownership: caller frees with prism_model_free().
 */
PrismModel *prism_model_zoo_get(const char *name, GError **error);

/**
 * Read a Hugging Face config.json (json-glib). Supported model_type: llama, mistral,
 * mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, llama4
 * (its text_config; also llama4_text), gpt2, gpt_neox, qwen3_next, nemotron_h.
 * Hybrid models: qwen3_next reads qwen3_moe's keys plus layer_types ("linear_attention" /
 * "full_attention") or full_attention_interval, linear_num_key_heads, linear_key_head_dim,
 * linear_num_value_heads, linear_value_head_dim, linear_conv_kernel_dim (gated attention
 * and one gated shared expert always); nemotron_h reads hybrid_override_pattern (or
 * layers_block_type), mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups,
 * conv_kernel, chunk_size, use_conv_bias, mamba_proj_bias / use_bias, head_dim (or
 * attention_head_dim), intermediate_size, n_routed_experts, num_experts_per_tok,
 * moe_intermediate_size, n_shared_experts, moe_shared_expert_intermediate_size (defaults:
 * NemotronHConfig's); num_nextn_predict_layers > 0 and moe_latent_size are refused.
 * Python's Infinity / NaN tokens (json.dumps writes them) are read as null.
 * Keys read (llama naming): hidden_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads, head_dim, intermediate_size, vocab_size, max_position_embeddings,
 * tie_word_embeddings, attention_bias, mlp_bias; MoE: num_local_experts (mixtral),
 * num_experts + moe_intermediate_size + decoder_sparse_step + mlp_only_layers (qwen2_moe,
 * qwen3_moe) + shared_expert_intermediate_size (qwen2_moe: one shared expert with a sigmoid
 * gate); num_local_experts + sliding_window + layer_types (gpt_oss: attention sinks, router
 * and expert biases); num_local_experts + intermediate_size_mlp + interleave_moe_layer_step
 * + moe_layers (llama4: one shared expert; chunked and NoPE layers are read as full
 * attention); sliding_window (mistral, mixtral: every layer);
 * n_routed_experts + n_shared_experts + moe_intermediate_size + first_k_dense_replace +
 * moe_layer_freq (deepseek), num_experts_per_tok; MLA: q_lora_rank (null = none),
 * kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim; MTP:
 * num_nextn_predict_layers (deepseek_v3); gpt2: n_embd, n_layer, n_head, n_positions,
 * n_inner. Other keys are ignored. A folder is read as FOLDER/config.json.
 * Errors: PRISM_INPUT_ERROR_FILE / _PARSE / _MISSING / _VALUE / _UNSUPPORTED, each
 * naming the file, key and value. Ownership: caller frees with prism_model_free().
 */
PrismModel *prism_model_from_hf_config(const char *path, GError **error);

/**
 * Same as prism_model_from_hf_config() on the @p len bytes at @p data (need not be
 * NUL-terminated); @p label stands for the file name in messages and the model name
 * ("hf:<label>"). Used by the fuzz harness. Collective: no.
 * Errors: as prism_model_from_hf_config(). Ownership: caller frees with prism_model_free().
 */
PrismModel *prism_model_from_hf_json(const char *data, size_t len, const char *label,
                                     GError **error);

/**
 * Resolve what the user typed after --model: a zoo name, or a path to a config.json
 * (anything containing '/' or ending in ".json"), or, when it is no zoo name, a folder
 * of that name holding a config.json. A Hugging Face repository id ("ORG/NAME": one '/',
 * no leading '.', '/' or '~', no ".json") that is no file or folder here is looked up as
 * the zoo name NAME ("meta-llama/Llama-3.1-8B" is llama3.1-8b); when that fails too, the
 * error names both readings. Ownership: prism_model_free().
 */
PrismModel *prism_model_resolve(const char *name_or_path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismModel, prism_model_free)

G_END_DECLS

#endif /* PRISM_MODEL_H */
