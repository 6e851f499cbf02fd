// SPDX-License-Identifier: MIT
/*
 * model_hf.c - Hugging Face config.json reader (json-glib) and the --model resolver.
 *
 * A config.json is read into a PrismModelDesc (core-internal.h), the same description
 * the zoo uses, so a config of a zoo model gives exactly the zoo's IR. Every value is
 * checked before it is used: type, sign and a sane upper bound (so no input can make us
 * allocate without limit), and each error names the file, the key and the value.
 * Nesting deeper than MAX_DEPTH is refused before json-glib sees the text (its parser
 * recurses). Thread-safe; nothing here is collective.
 */
#include <prism/model.h>

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include <prism/core.h>

#include "core-internal.h"

#define MAX_CONFIG_BYTES (16u << 20) /* a real config.json is a few kB */
#define MAX_DEPTH 64

/* Architecture handled by one reader path. */
typedef enum {
    HF_LLAMA,       /* llama: dense, RoPE, RMSNorm, SwiGLU */
    HF_MISTRAL,     /* mistral: llama + sliding_window on every layer */
    HF_MIXTRAL,     /* mixtral: every layer MoE, sliding_window on every layer */
    HF_QWEN2,       /* qwen2: llama + Q/K/V biases */
    HF_QWEN2_MOE,   /* qwen2_moe: qwen2 + qwen3_moe's MoE + a gated shared expert */
    HF_QWEN3,       /* qwen3: llama with head_dim (default 128) and q/k RMSNorms */
    HF_QWEN3_MOE,   /* qwen3_moe: decoder_sparse_step, mlp_only_layers */
    HF_GPT_OSS,     /* gpt_oss: MoE with biases, sinks, sliding window per layer_types */
    HF_LLAMA4,      /* llama4 (text_config) / llama4_text: interleaved MoE + shared expert */
    HF_DEEPSEEK_V2, /* deepseek_v2: MLA + MoE with shared experts, first_k_dense_replace */
    HF_DEEPSEEK_V3, /* deepseek_v3: deepseek_v2 + num_nextn_predict_layers (MTP) */
    HF_GPT2,        /* gpt2: learned positions, LayerNorm, GELU, biases, tied */
    HF_GPT_NEOX,    /* gpt_neox: RoPE, LayerNorm, GELU, biases, untied by default */
    HF_QWEN3_NEXT,  /* qwen3_next: qwen3_moe + gated attention, gated DeltaNet layers */
    HF_NEMOTRON_H,  /* nemotron_h: Mamba-2 / attention / MLP / MoE layers by pattern */
} HfArch;

static const struct {
    const char *model_type;
    HfArch arch;
} hf_types[] = {
    {"llama", HF_LLAMA},
    {"mistral", HF_MISTRAL},
    {"mixtral", HF_MIXTRAL},
    {"qwen2", HF_QWEN2},
    {"qwen2_moe", HF_QWEN2_MOE},
    {"qwen3", HF_QWEN3},
    {"qwen3_moe", HF_QWEN3_MOE},
    {"deepseek_v2", HF_DEEPSEEK_V2},
    {"deepseek_v3", HF_DEEPSEEK_V3},
    {"gpt_oss", HF_GPT_OSS},
    {"llama4", HF_LLAMA4},
    {"llama4_text", HF_LLAMA4},
    {"gpt2", HF_GPT2},
    {"gpt_neox", HF_GPT_NEOX},
    {"qwen3_next", HF_QWEN3_NEXT},
    {"nemotron_h", HF_NEMOTRON_H},
};

static char *supported_types(void)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(hf_types); i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", hf_types[i].model_type);
    return g_string_free(s, FALSE);
}

/* Reading context: the file label for messages and the JSON object. */
typedef struct Hf {
    const char *label;
    JsonObject *obj;
    const char *model_type;
    const char *data; /* the file's text, for numbers json-glib cannot hold */
    size_t len;
} Hf;

static void hf_error(const Hf *hf, GError **error, int code, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

static void hf_error(const Hf *hf, GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PRISM_INPUT_ERROR, code, "%s: %s", hf->label, msg);
}

/* The JSON text of a node, shortened, for messages. */
static char *node_text(JsonNode *node)
{
    g_autofree char *full = prism_json_to_string(node, FALSE); /* 1e+30, not 1e+30.0 */
    if (full == NULL)
        return g_strdup("?");
    if (strlen(full) > 40)
        return g_strdup_printf("%.37s...", full);
    return g_steal_pointer(&full);
}

/* NULL when the key is absent or JSON null (HF writes null for "not used"). */
static JsonNode *member(const Hf *hf, const char *key)
{
    JsonNode *n = json_object_get_member(hf->obj, key);
    return n != NULL && !JSON_NODE_HOLDS_NULL(n) ? n : NULL;
}

/*
 * The number written for @p key when json-glib turned it into an infinity (1e400 is read
 * as inf and written back as null): the first `"key": NUMBER` whose number overflows a
 * double, as written. NULL when there is none.
 */
static char *overflowing_text(const Hf *hf, const char *key)
{
    g_autofree char *quoted = g_strdup_printf("\"%s\"", key);
    size_t qn = strlen(quoted);
    for (const char *p = hf->data; p != NULL && (size_t)(p - hf->data) + qn <= hf->len; p++) {
        p = g_strstr_len(p, (gssize)(hf->len - (size_t)(p - hf->data)), quoted);
        if (p == NULL)
            return NULL;
        const char *q = p + qn, *end = hf->data + hf->len;
        while (q < end && g_ascii_isspace(*q))
            q++;
        if (q == end || *q != ':')
            continue;
        for (q++; q < end && g_ascii_isspace(*q); q++)
            ;
        size_t n = 0;
        while (q + n < end && n < 64 && (g_ascii_isdigit(q[n]) || strchr("+-.eE", q[n])))
            n++;
        g_autofree char *num = g_strndup(q, n);
        if (n > 0 && !isfinite(g_ascii_strtod(num, NULL)))
            return g_steal_pointer(&num);
    }
    return NULL;
}

/*
 * An integer in [lo, hi]. Absent/null: *out = def, or an error when @p required.
 * JSON numbers with a fractional part, strings, booleans and containers are errors.
 */
static gboolean get_int(const Hf *hf, const char *key, gboolean required, int64_t def, int64_t lo,
                        int64_t hi, uint64_t *out, GError **error)
{
    JsonNode *n = member(hf, key);
    if (n == NULL) {
        if (required) {
            hf_error(hf, error, PRISM_INPUT_ERROR_MISSING,
                     "key '%s' is missing (needed for model_type '%s')", key, hf->model_type);
            return FALSE;
        }
        *out = (uint64_t)def;
        return TRUE;
    }
    GType t = JSON_NODE_HOLDS_VALUE(n) ? json_node_get_value_type(n) : G_TYPE_INVALID;
    double v;
    if (t == G_TYPE_INT64) {
        v = (double)json_node_get_int(n);
    } else if (t == G_TYPE_DOUBLE) {
        v = json_node_get_double(n);
    } else {
        g_autofree char *text = node_text(n);
        hf_error(hf, error, PRISM_INPUT_ERROR_PARSE, "key '%s' = %s is not a number", key, text);
        return FALSE;
    }
    if (!isfinite(v) || v != floor(v) || v < (double)lo || v > (double)hi) {
        g_autofree char *written = isfinite(v) ? NULL : overflowing_text(hf, key);
        g_autofree char *text = written ? g_steal_pointer(&written) : node_text(n);
        hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                 "key '%s' = %s must be a whole number between %" G_GINT64_FORMAT
                 " and %" G_GINT64_FORMAT,
                 key, text, lo, hi);
        return FALSE;
    }
    *out = (uint64_t)v;
    return TRUE;
}

static gboolean get_bool(const Hf *hf, const char *key, gboolean def, gboolean *out, GError **error)
{
    JsonNode *n = member(hf, key);
    if (n == NULL) {
        *out = def;
        return TRUE;
    }
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN) {
        g_autofree char *text = node_text(n);
        hf_error(hf, error, PRISM_INPUT_ERROR_PARSE, "key '%s' = %s is not true or false", key,
                 text);
        return FALSE;
    }
    *out = json_node_get_boolean(n);
    return TRUE;
}

/* Bounds: generous for any real model, small enough that nothing can blow up. */
#define MAX_LAYERS 10000
#define MAX_WIDTH (1 << 24)
#define MAX_HEADS 65536
#define MAX_VOCAB (1ll << 31)
#define MAX_EXPERTS 65536
#define MAX_POSITIONS (1ll << 31)

/* The fields every decoder type shares (llama naming). */
static gboolean read_common(const Hf *hf, HfArch arch, PrismModelDesc *d, GError **error)
{
    uint64_t v = 0;
    if (!get_int(hf, "hidden_size", TRUE, 0, 1, MAX_WIDTH, &d->hidden, error) ||
        !get_int(hf, "num_hidden_layers", TRUE, 0, 1, MAX_LAYERS, &v, error))
        return FALSE;
    d->n_blocks = (uint32_t)v;
    if (!get_int(hf, "num_attention_heads", TRUE, 0, 1, MAX_HEADS, &v, error))
        return FALSE;
    d->attn.n_heads = (uint32_t)v;
    if (!get_int(hf, "num_key_value_heads", FALSE, d->attn.n_heads, 1, MAX_HEADS, &v, error))
        return FALSE;
    d->attn.n_kv_heads = (uint32_t)v;
    if (!get_int(hf, "vocab_size", TRUE, 0, 1, MAX_VOCAB, &d->vocab, error) ||
        !get_int(hf, "max_position_embeddings", FALSE, 0, 0, MAX_POSITIONS, &d->max_positions,
                 error))
        return FALSE;
    /* head_dim: Qwen3 defaults to 128; the others derive it from hidden / heads. */
    gboolean has_head_dim = member(hf, "head_dim") != NULL;
    if (has_head_dim || arch == HF_QWEN3 || arch == HF_QWEN3_MOE || arch == HF_QWEN3_NEXT) {
        /* Qwen3NextConfig's default head_dim is 256 */
        if (!get_int(hf, "head_dim", FALSE, arch == HF_QWEN3_NEXT ? 256 : 128, 1, MAX_WIDTH, &v,
                     error))
            return FALSE;
        d->attn.head_dim = (uint32_t)v;
    } else if (d->hidden % d->attn.n_heads != 0) {
        hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                 "hidden_size = %" G_GUINT64_FORMAT " is not a multiple of num_attention_heads "
                 "= %u (and no head_dim is given)",
                 d->hidden, d->attn.n_heads);
        return FALSE;
    } else {
        d->attn.head_dim = (uint32_t)(d->hidden / d->attn.n_heads);
    }
    return get_bool(hf, "tie_word_embeddings", FALSE, &d->tied, error);
}

/* Masks over the blocks that some configs give as lists; owned by the caller. */
typedef struct HfMasks {
    gboolean *dense;  /* forced dense (mlp_only_layers; the complement of moe_layers) */
    gboolean *window; /* sliding-window blocks (layer_types) */
    gboolean *linear; /* gated-DeltaNet blocks (qwen3_next layer_types) */
    char *pattern;    /* nemotron_h: one character per block */
} HfMasks;

/* A list of block indices under @p key as a mask of d->n_blocks entries (NULL if absent). */
static gboolean read_index_list(const Hf *hf, const char *key, const PrismModelDesc *d,
                                gboolean **mask, GError **error)
{
    JsonNode *n = member(hf, key);
    if (n == NULL)
        return TRUE;
    if (!JSON_NODE_HOLDS_ARRAY(n)) {
        g_autofree char *text = node_text(n);
        hf_error(hf, error, PRISM_INPUT_ERROR_PARSE, "key '%s' = %s is not a list of layer indices",
                 key, text);
        return FALSE;
    }
    JsonArray *arr = json_node_get_array(n);
    *mask = g_new0(gboolean, d->n_blocks);
    for (guint i = 0; i < json_array_get_length(arr); i++) {
        JsonNode *e = json_array_get_element(arr, i);
        gboolean is_int = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_INT64;
        int64_t idx = is_int ? json_node_get_int(e) : -1;
        if (!is_int || idx < 0 || idx >= (int64_t)d->n_blocks) {
            g_autofree char *text = node_text(e);
            hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                     "key '%s'[%u] = %s is not a layer index (0..%u)", key, i, text,
                     d->n_blocks - 1);
            return FALSE;
        }
        (*mask)[idx] = TRUE;
    }
    return TRUE;
}

/* layer_types: one of "full_attention" / @p other per block (gpt_oss: "sliding_attention",
 * qwen3_next: "linear_attention"); *mask TRUE where the block is @p other (NULL when the key
 * is absent). */
static gboolean read_layer_types(const Hf *hf, const PrismModelDesc *d, const char *other,
                                 gboolean **mask, GError **error)
{
    JsonNode *n = member(hf, "layer_types");
    if (n == NULL)
        return TRUE;
    JsonArray *arr = JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
    if (arr == NULL || json_array_get_length(arr) != d->n_blocks) {
        g_autofree char *text = node_text(n);
        hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                 "key 'layer_types' = %s must be a list of num_hidden_layers = %u entries", text,
                 d->n_blocks);
        return FALSE;
    }
    *mask = g_new0(gboolean, d->n_blocks);
    for (guint i = 0; i < d->n_blocks; i++) {
        JsonNode *e = json_array_get_element(arr, i);
        const char *t = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING
                            ? json_node_get_string(e)
                            : NULL;
        if (t == NULL || (strcmp(t, other) != 0 && strcmp(t, "full_attention") != 0)) {
            g_autofree char *text = node_text(e);
            hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                     "key 'layer_types'[%u] = %s is not \"%s\" or \"full_attention\"", i, text,
                     other);
            return FALSE;
        }
        (*mask)[i] = strcmp(t, other) == 0;
    }
    return TRUE;
}

/* qwen2_moe / qwen3_moe: num_experts, decoder_sparse_step, mlp_only_layers. */
static gboolean read_qwen_moe(const Hf *hf, HfArch arch, PrismModelDesc *d, HfMasks *mk,
                              GError **error)
{
    uint64_t v = 0;
    if (!get_int(hf, "intermediate_size", FALSE, 0, 0, MAX_WIDTH, &d->ffn, error) ||
        !get_int(hf, "moe_intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->expert_ffn, error) ||
        !get_int(hf, "num_experts", TRUE, 0, 0, MAX_EXPERTS, &v, error))
        return FALSE;
    d->n_experts = (uint32_t)v;
    if (!get_int(hf, "num_experts_per_tok", d->n_experts > 0, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->top_k = (uint32_t)v;
    if (!get_int(hf, "decoder_sparse_step", FALSE, 1, 1, MAX_LAYERS, &v, error))
        return FALSE;
    d->moe_step = (uint32_t)v;
    d->moe_phase = 1; /* MoE when (i + 1) % decoder_sparse_step == 0 */
    if (arch == HF_QWEN2_MOE || arch == HF_QWEN3_NEXT) {
        /* one shared expert of its own width, behind a sigmoid gate (Linear(h, 1)) */
        if (!get_int(hf, "shared_expert_intermediate_size", FALSE, 0, 0, MAX_WIDTH, &d->shared_ffn,
                     error))
            return FALSE;
        d->n_shared = d->shared_ffn > 0 ? 1 : 0;
        d->shared_gate = d->n_shared > 0;
    }
    if (!read_index_list(hf, "mlp_only_layers", d, &mk->dense, error))
        return FALSE;
    d->dense_mask = mk->dense;
    return TRUE;
}

/* The string of a JSON string node, or NULL. */
static const char *node_string(JsonNode *n)
{
    return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

/* qwen3_next: which blocks are gated-DeltaNet ("linear_attention") blocks - layer_types, or
 * else every block but those with (i + 1) % full_attention_interval == 0 (default 4), as
 * Qwen3NextConfig derives it - and the DeltaNet shape (the config class's defaults). */
static gboolean read_qwen3_next(const Hf *hf, PrismModelDesc *d, HfMasks *mk, GError **error)
{
    uint64_t v = 0;
    d->attn.out_gate = TRUE; /* Qwen3NextAttention: q_proj yields the query and its gate */
    if (!read_qwen_moe(hf, HF_QWEN3_NEXT, d, mk, error))
        return FALSE;
    d->ssm_mixer = PRISM_MIXER_GDN;
    d->ssm.chunk = 64; /* flash-linear-attention's chunk_gated_delta_rule */
    static const struct {
        const char *key;
        int64_t def;
        size_t off;
    } keys[] = {
        {"linear_num_value_heads", 32, G_STRUCT_OFFSET(PrismSsmSpec, n_heads)},
        {"linear_value_head_dim", 128, G_STRUCT_OFFSET(PrismSsmSpec, head_dim)},
        {"linear_key_head_dim", 128, G_STRUCT_OFFSET(PrismSsmSpec, state)},
        {"linear_num_key_heads", 16, G_STRUCT_OFFSET(PrismSsmSpec, n_groups)},
        {"linear_conv_kernel_dim", 4, G_STRUCT_OFFSET(PrismSsmSpec, conv_kernel)},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
        if (!get_int(hf, keys[i].key, FALSE, keys[i].def, 1, MAX_WIDTH, &v, error))
            return FALSE;
        G_STRUCT_MEMBER(uint32_t, &d->ssm, keys[i].off) = (uint32_t)v;
    }
    if (!read_layer_types(hf, d, "linear_attention", &mk->linear, error))
        return FALSE;
    if (mk->linear == NULL) { /* Qwen3NextConfig's default layer_types */
        if (!get_int(hf, "full_attention_interval", FALSE, 4, 1, MAX_LAYERS, &v, error))
            return FALSE;
        mk->linear = g_new0(gboolean, d->n_blocks);
        for (uint32_t i = 0; i < d->n_blocks; i++)
            mk->linear[i] = (i + 1) % v != 0;
    }
    d->linear_mask = mk->linear;
    return TRUE;
}

/* nemotron_h's layer kinds: hybrid_override_pattern ('M' Mamba-2, '*' attention, '-' MLP, 'E'
 * MoE) or layers_block_type (transformers' names for the same, and the older "mamba" and
 * "attention"); the block count is its length, as NemotronHConfig takes it. */
static gboolean read_nemotron_pattern(const Hf *hf, PrismModelDesc *d, HfMasks *mk, GError **error)
{
    JsonNode *p = member(hf, "hybrid_override_pattern");
    JsonNode *list = member(hf, "layers_block_type");
    if (p == NULL && list == NULL) {
        hf_error(hf, error, PRISM_INPUT_ERROR_MISSING,
                 "key 'hybrid_override_pattern' (or 'layers_block_type') is missing (needed for "
                 "model_type 'nemotron_h')");
        return FALSE;
    }
    if (p != NULL) {
        const char *s = node_string(p);
        size_t n = s != NULL ? strlen(s) : 0;
        if (n == 0 || n > MAX_LAYERS || strspn(s, "M*-E") != n) {
            g_autofree char *text = node_text(p);
            hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                     "key 'hybrid_override_pattern' = %s must be 1 to %d characters of 'M' "
                     "(Mamba-2), '*' (attention), '-' (MLP) and 'E' (MoE)",
                     text, MAX_LAYERS);
            return FALSE;
        }
        mk->pattern = g_strdup(s);
    } else {
        static const struct {
            const char *name;
            char c;
        } kinds[] = {{"linear_attention", 'M'}, {"mamba", 'M'}, {"full_attention", '*'},
                     {"attention", '*'},        {"mlp", '-'},   {"moe", 'E'}};
        JsonArray *arr = JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list) : NULL;
        guint n = arr != NULL ? json_array_get_length(arr) : 0;
        if (n == 0 || n > MAX_LAYERS) {
            g_autofree char *text = node_text(list);
            hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                     "key 'layers_block_type' = %s must be a list of 1 to %d layer kinds", text,
                     MAX_LAYERS);
            return FALSE;
        }
        mk->pattern = g_new0(char, n + 1);
        for (guint i = 0; i < n; i++) {
            const char *t = node_string(json_array_get_element(arr, i));
            for (size_t k = 0; t != NULL && k < G_N_ELEMENTS(kinds); k++)
                if (strcmp(t, kinds[k].name) == 0)
                    mk->pattern[i] = kinds[k].c;
            if (mk->pattern[i] == 0) {
                g_autofree char *text = node_text(json_array_get_element(arr, i));
                hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                         "key 'layers_block_type'[%u] = %s is not \"linear_attention\", "
                         "\"full_attention\", \"mlp\" or \"moe\"",
                         i, text);
                return FALSE;
            }
        }
    }
    d->pattern = mk->pattern;
    d->n_blocks = (uint32_t)strlen(mk->pattern);
    return TRUE;
}

/* An integer read under @p key, or under the older spelling @p alias when only that is
 * given (NemotronHConfig's backward-compatible names). */
static gboolean get_int_alias(const Hf *hf, const char *key, const char *alias, int64_t def,
                              int64_t lo, uint64_t *out, GError **error)
{
    const char *k = member(hf, key) == NULL && member(hf, alias) != NULL ? alias : key;
    return get_int(hf, k, FALSE, def, lo, MAX_WIDTH, out, error);
}

/* nemotron_h (transformers NemotronHConfig; defaults are its defaults): RMSNorm, squared-ReLU
 * MLPs, untied; Mamba-2 layers; MoE layers with one shared expert. */
static gboolean read_nemotron_h(const Hf *hf, PrismModelDesc *d, HfMasks *mk, GError **error)
{
    uint64_t v = 0;
    d->pos = PRISM_POS_ROPE; /* the attention has no positional encoding: no parameters */
    d->norm = PRISM_NORM_RMSNORM;
    d->act = PRISM_MLP_RELU2;
    if (!read_nemotron_pattern(hf, d, mk, error) ||
        !get_int(hf, "hidden_size", TRUE, 0, 1, MAX_WIDTH, &d->hidden, error) ||
        !get_int(hf, "vocab_size", FALSE, 131072, 1, MAX_VOCAB, &d->vocab, error) ||
        !get_int(hf, "max_position_embeddings", FALSE, 4096, 0, MAX_POSITIONS, &d->max_positions,
                 error) ||
        !get_int(hf, "num_attention_heads", FALSE, 32, 1, MAX_HEADS, &v, error))
        return FALSE;
    d->attn.n_heads = (uint32_t)v;
    if (!get_int(hf, "num_key_value_heads", FALSE, 8, 1, MAX_HEADS, &v, error))
        return FALSE;
    d->attn.n_kv_heads = (uint32_t)v;
    if (!get_int_alias(hf, "head_dim", "attention_head_dim", 128, 1, &v, error))
        return FALSE;
    d->attn.head_dim = (uint32_t)v;
    gboolean attn_bias = FALSE, proj_bias = FALSE, use_bias = FALSE;
    if (!get_bool(hf, "tie_word_embeddings", FALSE, &d->tied, error) ||
        !get_bool(hf, "attention_bias", FALSE, &attn_bias, error) ||
        !get_bool(hf, "mlp_bias", FALSE, &d->mlp_bias, error) ||
        !get_bool(hf, "mamba_proj_bias", FALSE, &proj_bias, error) ||
        !get_bool(hf, "use_bias", FALSE, &use_bias, error))
        return FALSE;
    d->attn.qkv_bias = d->attn.out_bias = attn_bias;
    d->ssm_mixer = PRISM_MIXER_MAMBA2;
    d->ssm.bias = proj_bias || use_bias;
    const char *ck = member(hf, "use_conv_bias") == NULL && member(hf, "mamba_conv_bias") != NULL
                         ? "mamba_conv_bias"
                         : "use_conv_bias";
    if (!get_bool(hf, ck, TRUE, &d->ssm.conv_bias, error) ||
        !get_int(hf, "mamba_num_heads", FALSE, 128, 1, MAX_HEADS, &v, error))
        return FALSE;
    d->ssm.n_heads = (uint32_t)v;
    if (!get_int(hf, "mamba_head_dim", FALSE, 64, 1, MAX_WIDTH, &v, error))
        return FALSE;
    d->ssm.head_dim = (uint32_t)v;
    if (!get_int(hf, "ssm_state_size", FALSE, 128, 1, MAX_WIDTH, &v, error))
        return FALSE;
    d->ssm.state = (uint32_t)v;
    if (!get_int_alias(hf, "n_groups", "mamba_n_groups", 8, 1, &v, error))
        return FALSE;
    d->ssm.n_groups = (uint32_t)v;
    if (!get_int_alias(hf, "conv_kernel", "mamba_d_conv", 4, 1, &v, error))
        return FALSE;
    d->ssm.conv_kernel = (uint32_t)v;
    if (!get_int_alias(hf, "chunk_size", "mamba_chunk_size", 128, 1, &v, error))
        return FALSE;
    d->ssm.chunk = (uint32_t)v;
    if (strchr(d->pattern, '-') != NULL &&
        !get_int(hf, "intermediate_size", FALSE, 21504, 1, MAX_WIDTH, &d->ffn, error))
        return FALSE;
    if (!get_int(hf, "num_nextn_predict_layers", FALSE, 0, 0, 16, &v, error))
        return FALSE;
    if (v > 0) {
        hf_error(hf, error, PRISM_INPUT_ERROR_UNSUPPORTED,
                 "key 'num_nextn_predict_layers' = %" G_GUINT64_FORMAT
                 ": nemotron_h's MTP layers are not modelled (0 is supported)",
                 v);
        return FALSE;
    }
    if (member(hf, "moe_latent_size") != NULL) {
        g_autofree char *text = node_text(member(hf, "moe_latent_size"));
        hf_error(hf, error, PRISM_INPUT_ERROR_UNSUPPORTED,
                 "key 'moe_latent_size' = %s: latent MoE projections are not modelled (null is "
                 "supported)",
                 text);
        return FALSE;
    }
    if (strchr(d->pattern, 'E') == NULL)
        return TRUE;
    if (!get_int(hf, "n_routed_experts", TRUE, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->n_experts = (uint32_t)v;
    if (!get_int(hf, "num_experts_per_tok", TRUE, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->top_k = (uint32_t)v;
    if (!get_int(hf, "moe_intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->expert_ffn, error) ||
        !get_int(hf, "n_shared_experts", FALSE, 1, 0, MAX_EXPERTS, &v, error))
        return FALSE;
    d->n_shared = (uint32_t)v;
    return get_int(hf, "moe_shared_expert_intermediate_size", FALSE, 7688, 1, MAX_WIDTH,
                   &d->shared_ffn, error);
}

/* gpt_oss: every block MoE (biased experts and router), sinks, windows per layer_types. */
static gboolean read_gpt_oss(const Hf *hf, PrismModelDesc *d, HfMasks *mk, GError **error)
{
    uint64_t v = 0;
    d->mlp_bias = TRUE;
    d->router_bias = TRUE;
    d->attn.sinks = TRUE;
    if (!get_int(hf, "intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->expert_ffn, error) ||
        !get_int(hf, "num_local_experts", TRUE, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->n_experts = (uint32_t)v;
    d->ffn = d->expert_ffn;
    /* the reference config names it experts_per_token; transformers num_experts_per_tok */
    const char *k =
        member(hf, "num_experts_per_tok") != NULL ? "num_experts_per_tok" : "experts_per_token";
    if (!get_int(hf, k, TRUE, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->top_k = (uint32_t)v;
    if (!get_int(hf, "sliding_window", FALSE, 128, 0, MAX_POSITIONS, &v, error))
        return FALSE;
    d->window = (uint32_t)v;
    d->window_step = 2; /* transformers' default layer_types: sliding on the even blocks */
    if (!read_layer_types(hf, d, "sliding_attention", &mk->window, error))
        return FALSE;
    d->window_mask = mk->window;
    return TRUE;
}

/* llama4 text model: MoE on moe_layers (default: (i + 1) % interleave_moe_layer_step == 0)
 * with one shared expert as wide as a routed one; the other blocks dense. */
static gboolean read_llama4(const Hf *hf, PrismModelDesc *d, HfMasks *mk, GError **error)
{
    uint64_t v = 0;
    if (!get_int(hf, "intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->expert_ffn, error) ||
        !get_int(hf, "intermediate_size_mlp", FALSE, 0, 0, MAX_WIDTH, &d->ffn, error) ||
        !get_int(hf, "num_local_experts", TRUE, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->n_experts = (uint32_t)v;
    d->n_shared = 1;
    d->shared_ffn = d->expert_ffn; /* the shared expert is as wide as a routed one */
    if (!get_int(hf, "num_experts_per_tok", TRUE, 0, 1, MAX_EXPERTS, &v, error))
        return FALSE;
    d->top_k = (uint32_t)v;
    if (!get_int(hf, "interleave_moe_layer_step", FALSE, 1, 1, MAX_LAYERS, &v, error))
        return FALSE;
    d->moe_step = (uint32_t)v;
    d->moe_phase = 1;
    gboolean *moe = NULL;
    if (!read_index_list(hf, "moe_layers", d, &moe, error)) {
        g_free(moe);
        return FALSE;
    }
    if (moe != NULL) { /* an explicit list wins over the step */
        mk->dense = g_new0(gboolean, d->n_blocks);
        for (uint32_t i = 0; i < d->n_blocks; i++)
            mk->dense[i] = !moe[i];
        g_free(moe);
        d->moe_step = 1;
        d->dense_mask = mk->dense;
    }
    for (uint32_t i = 0; i < d->n_blocks; i++)
        if (!prism_model_desc_is_moe_internal(d, i) && d->ffn == 0) {
            hf_error(hf, error, PRISM_INPUT_ERROR_MISSING,
                     "key 'intermediate_size_mlp' is missing (layer %u is dense)", i);
            return FALSE;
        }
    return TRUE;
}

static gboolean read_llama_like(const Hf *hf, HfArch arch, PrismModelDesc *d, HfMasks *mk,
                                GError **error)
{
    d->pos = PRISM_POS_ROPE;
    d->norm = PRISM_NORM_RMSNORM;
    d->act = PRISM_MLP_SWIGLU;
    if (!read_common(hf, arch, d, error))
        return FALSE;
    gboolean attn_bias = FALSE, mlp_bias = FALSE;
    if (!get_bool(hf, "attention_bias", arch == HF_GPT_OSS, &attn_bias, error) ||
        !get_bool(hf, "mlp_bias", FALSE, &mlp_bias, error))
        return FALSE;
    /* Qwen2: biases on Q, K, V only */
    d->attn.qkv_bias = attn_bias || arch == HF_QWEN2 || arch == HF_QWEN2_MOE;
    d->attn.out_bias = attn_bias;
    d->attn.qk_norm = arch == HF_QWEN3 || arch == HF_QWEN3_MOE || arch == HF_QWEN3_NEXT;
    d->mlp_bias = mlp_bias;
    uint64_t v = 0;
    if (arch == HF_MISTRAL || arch == HF_MIXTRAL) { /* null = full attention */
        if (!get_int(hf, "sliding_window", FALSE, 0, 0, MAX_POSITIONS, &v, error))
            return FALSE;
        d->window = (uint32_t)v;
        d->window_step = 1;
    }
    switch (arch) {
    case HF_MIXTRAL:
        if (!get_int(hf, "intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->expert_ffn, error) ||
            !get_int(hf, "num_local_experts", TRUE, 0, 1, MAX_EXPERTS, &v, error))
            return FALSE;
        d->n_experts = (uint32_t)v;
        if (!get_int(hf, "num_experts_per_tok", TRUE, 0, 1, MAX_EXPERTS, &v, error))
            return FALSE;
        d->top_k = (uint32_t)v;
        d->ffn = d->expert_ffn;
        return TRUE;
    case HF_QWEN2_MOE:
    case HF_QWEN3_MOE:
        return read_qwen_moe(hf, arch, d, mk, error);
    case HF_QWEN3_NEXT:
        return read_qwen3_next(hf, d, mk, error);
    case HF_GPT_OSS:
        return read_gpt_oss(hf, d, mk, error);
    case HF_LLAMA4:
        return read_llama4(hf, d, mk, error);
    default:
        return get_int(hf, "intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->ffn, error);
    }
}

static gboolean read_deepseek(const Hf *hf, HfArch arch, PrismModelDesc *d, GError **error)
{
    d->pos = PRISM_POS_ROPE;
    d->norm = PRISM_NORM_RMSNORM;
    d->act = PRISM_MLP_SWIGLU;
    if (!read_common(hf, arch, d, error))
        return FALSE;
    PrismAttnSpec *a = &d->attn;
    uint64_t v = 0;
    a->kind = PRISM_ATTN_MLA;
    a->n_kv_heads = a->n_heads; /* MLA: num_key_value_heads is not used */
    if (!get_int(hf, "kv_lora_rank", TRUE, 0, 1, MAX_WIDTH, &v, error))
        return FALSE;
    a->kv_lora_rank = (uint32_t)v;
    if (!get_int(hf, "q_lora_rank", FALSE, 0, 0, MAX_WIDTH, &v, error)) /* null = none */
        return FALSE;
    a->q_lora_rank = (uint32_t)v;
    if (!get_int(hf, "qk_rope_head_dim", TRUE, 0, 0, MAX_WIDTH, &v, error))
        return FALSE;
    a->qk_rope_head_dim = (uint32_t)v;
    if (!get_int(hf, "qk_nope_head_dim", TRUE, 0, 0, MAX_WIDTH, &v, error))
        return FALSE;
    a->qk_nope_head_dim = (uint32_t)v;
    if (!get_int(hf, "v_head_dim", TRUE, 0, 1, MAX_WIDTH, &v, error))
        return FALSE;
    a->v_head_dim = (uint32_t)v;
    a->head_dim = a->qk_nope_head_dim + a->qk_rope_head_dim;
    if (a->head_dim == 0) {
        hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                 "qk_nope_head_dim + qk_rope_head_dim must be > 0");
        return FALSE;
    }
    gboolean attn_bias = FALSE;
    if (!get_bool(hf, "attention_bias", FALSE, &attn_bias, error))
        return FALSE;
    a->qkv_bias = FALSE; /* MLA projections have no biases; attention_bias is the output */
    a->out_bias = attn_bias;
    if (!get_int(hf, "intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->ffn, error) ||
        !get_int(hf, "n_routed_experts", FALSE, 0, 0, MAX_EXPERTS, &v, error))
        return FALSE;
    d->n_experts = (uint32_t)v;
    if (d->n_experts > 0) {
        if (!get_int(hf, "num_experts_per_tok", TRUE, 0, 1, MAX_EXPERTS, &v, error))
            return FALSE;
        d->top_k = (uint32_t)v;
        if (!get_int(hf, "moe_intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->expert_ffn, error) ||
            !get_int(hf, "n_shared_experts", FALSE, 0, 0, MAX_EXPERTS, &v, error))
            return FALSE;
        d->n_shared = (uint32_t)v;
        if (!get_int(hf, "first_k_dense_replace", FALSE, 0, 0, MAX_LAYERS, &v, error))
            return FALSE;
        d->first_dense = (uint32_t)v;
        if (!get_int(hf, "moe_layer_freq", FALSE, 1, 1, MAX_LAYERS, &v, error))
            return FALSE;
        d->moe_step = (uint32_t)v; /* MoE when i >= first_k_dense_replace && i % freq == 0 */
    }
    if (arch == HF_DEEPSEEK_V3) {
        if (!get_int(hf, "num_nextn_predict_layers", FALSE, 0, 0, 16, &v, error))
            return FALSE;
        d->n_mtp = (uint32_t)v;
    }
    return TRUE;
}

static gboolean read_gpt2(const Hf *hf, PrismModelDesc *d, GError **error)
{
    uint64_t v = 0;
    d->pos = PRISM_POS_LEARNED;
    d->norm = PRISM_NORM_LAYERNORM;
    d->act = PRISM_MLP_GELU;
    d->mlp_bias = d->attn.qkv_bias = d->attn.out_bias = TRUE;
    d->tied = TRUE; /* GPT-2 always ties the LM head to the token embedding */
    if (!get_int(hf, "n_embd", TRUE, 0, 1, MAX_WIDTH, &d->hidden, error) ||
        !get_int(hf, "n_layer", TRUE, 0, 1, MAX_LAYERS, &v, error))
        return FALSE;
    d->n_blocks = (uint32_t)v;
    if (!get_int(hf, "n_head", TRUE, 0, 1, MAX_HEADS, &v, error))
        return FALSE;
    d->attn.n_heads = d->attn.n_kv_heads = (uint32_t)v;
    if (d->hidden % d->attn.n_heads != 0) {
        hf_error(hf, error, PRISM_INPUT_ERROR_VALUE,
                 "n_embd = %" G_GUINT64_FORMAT " is not a multiple of n_head = %u", d->hidden,
                 d->attn.n_heads);
        return FALSE;
    }
    d->attn.head_dim = (uint32_t)(d->hidden / d->attn.n_heads);
    return get_int(hf, "vocab_size", TRUE, 0, 1, MAX_VOCAB, &d->vocab, error) &&
           get_int(hf, "n_positions", TRUE, 0, 1, MAX_POSITIONS, &d->max_positions, error) &&
           get_int(hf, "n_inner", FALSE, (int64_t)(4 * d->hidden), 1, MAX_WIDTH, &d->ffn, error);
}

static gboolean read_gpt_neox(const Hf *hf, PrismModelDesc *d, GError **error)
{
    d->pos = PRISM_POS_ROPE;
    d->norm = PRISM_NORM_LAYERNORM;
    d->act = PRISM_MLP_GELU;
    d->mlp_bias = TRUE;
    if (!read_common(hf, HF_GPT_NEOX, d, error))
        return FALSE;
    gboolean attn_bias = TRUE;
    if (!get_bool(hf, "attention_bias", TRUE, &attn_bias, error))
        return FALSE;
    d->attn.qkv_bias = d->attn.out_bias = attn_bias;
    return get_int(hf, "intermediate_size", TRUE, 0, 1, MAX_WIDTH, &d->ffn, error);
}

/* Refuse nesting deeper than MAX_DEPTH (json-glib's parser recurses). */
static gboolean nesting_ok(const char *data, size_t len)
{
    int depth = 0;
    gboolean in_string = FALSE;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = FALSE;
        } else if (c == '"') {
            in_string = TRUE;
        } else if (c == '[' || c == '{') {
            if (++depth > MAX_DEPTH)
                return FALSE;
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return TRUE;
}

/* The text with Python's non-standard number tokens Infinity, -Infinity and NaN (outside
 * strings) written as null: json.dumps writes them, and Mamba-2 and Nemotron-H configs carry
 * "time_step_limit": [0.0, Infinity], a key prism does not read. NULL when there are none. */
static GString *python_tokens_as_null(const char *data, size_t len)
{
    static const char *const toks[] = {"-Infinity", "Infinity", "NaN"};
    GString *out = NULL;
    gboolean in_string = FALSE;
    size_t copied = 0;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = FALSE;
            continue;
        }
        if (c == '"') {
            in_string = TRUE;
            continue;
        }
        for (size_t t = 0; t < G_N_ELEMENTS(toks); t++) {
            size_t n = strlen(toks[t]);
            if (n <= len - i && memcmp(data + i, toks[t], n) == 0) {
                if (out == NULL)
                    out = g_string_sized_new(len + 16);
                g_string_append_len(out, data + copied, (gssize)(i - copied));
                g_string_append(out, "null");
                copied = i + n;
                i += n - 1;
                break;
            }
        }
    }
    if (out != NULL)
        g_string_append_len(out, data + copied, (gssize)(len - copied));
    return out;
}

PrismModel *prism_model_from_hf_json(const char *data, size_t len, const char *label,
                                     GError **error)
{
    g_return_val_if_fail(data != NULL || len == 0, NULL);
    Hf hf = {.label = label != NULL ? label : "config.json",
             .model_type = "?",
             .data = data,
             .len = len};
    if (len > MAX_CONFIG_BYTES) {
        hf_error(&hf, error, PRISM_INPUT_ERROR_VALUE, "%zu bytes is too large for a config.json",
                 len);
        return NULL;
    }
    if (!nesting_ok(data, len)) {
        hf_error(&hf, error, PRISM_INPUT_ERROR_PARSE,
                 "malformed JSON: nested deeper than %d levels", MAX_DEPTH);
        return NULL;
    }
    g_autoptr(GString) plain = python_tokens_as_null(data, len);
    if (plain != NULL) {
        data = hf.data = plain->str;
        len = hf.len = plain->len;
    }
    g_autoptr(JsonParser) parser = json_parser_new_immutable();
    GError *local = NULL;
    /* json-glib wants a length that fits gssize; len is bounded above. */
    if (len == 0 || !json_parser_load_from_data(parser, data, (gssize)len, &local)) {
        hf_error(&hf, error, PRISM_INPUT_ERROR_PARSE, "malformed JSON: %s",
                 local != NULL ? local->message : "empty file");
        g_clear_error(&local);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
        hf_error(&hf, error, PRISM_INPUT_ERROR_PARSE,
                 "the top level is not a JSON object (a config.json is {\"model_type\": ...})");
        return NULL;
    }
    hf.obj = json_node_get_object(root);
    g_autofree char *types = supported_types();
    JsonNode *tn = member(&hf, "model_type");
    if (tn == NULL) {
        hf_error(&hf, error, PRISM_INPUT_ERROR_MISSING,
                 "key 'model_type' is missing (supported: %s)", types);
        return NULL;
    }
    if (!JSON_NODE_HOLDS_VALUE(tn) || json_node_get_value_type(tn) != G_TYPE_STRING) {
        g_autofree char *text = node_text(tn);
        hf_error(&hf, error, PRISM_INPUT_ERROR_PARSE, "key 'model_type' = %s is not a string",
                 text);
        return NULL;
    }
    const char *type = json_node_get_string(tn);
    hf.model_type = type;
    int found = -1;
    for (size_t i = 0; i < G_N_ELEMENTS(hf_types); i++)
        if (strcmp(type, hf_types[i].model_type) == 0)
            found = (int)i;
    if (found < 0) {
        g_autofree char *text = node_text(tn);
        hf_error(&hf, error, PRISM_INPUT_ERROR_UNSUPPORTED,
                 "model_type = %s is not supported (supported: %s)", text, types);
        return NULL;
    }
    HfArch arch = hf_types[found].arch;
    /* the label is a path, whose bytes need not be UTF-8 (a Latin-1 name under LANG=C);
     * the model's name goes into JSON (plan --json, the landscape's attributes) */
    g_autofree char *shown = g_utf8_make_valid(hf.label, -1);
    g_autofree char *name = g_strdup_printf("hf:%s", shown);
    PrismModelDesc d = {.name = name, .family = type};
    if (arch == HF_LLAMA4 && strcmp(type, "llama4") == 0) {
        /* the multimodal config: the text model is under text_config (the vision
         * encoder is not modelled) */
        JsonNode *tc = member(&hf, "text_config");
        if (tc == NULL || !JSON_NODE_HOLDS_OBJECT(tc)) {
            g_autofree char *text = tc != NULL ? node_text(tc) : g_strdup("missing");
            hf_error(&hf, error, tc != NULL ? PRISM_INPUT_ERROR_PARSE : PRISM_INPUT_ERROR_MISSING,
                     "key 'text_config' = %s is not an object (model_type 'llama4' keeps the "
                     "text model there)",
                     text);
            return NULL;
        }
        hf.obj = json_node_get_object(tc);
    }
    HfMasks masks = {0};
    gboolean ok;
    switch (arch) {
    case HF_DEEPSEEK_V2:
    case HF_DEEPSEEK_V3:
        ok = read_deepseek(&hf, arch, &d, error);
        break;
    case HF_GPT2:
        ok = read_gpt2(&hf, &d, error);
        break;
    case HF_GPT_NEOX:
        ok = read_gpt_neox(&hf, &d, error);
        break;
    case HF_NEMOTRON_H:
        ok = read_nemotron_h(&hf, &d, &masks, error);
        break;
    default:
        ok = read_llama_like(&hf, arch, &d, &masks, error);
        break;
    }
    g_autofree gboolean *dense_mask = masks.dense, *window_mask = masks.window;
    g_autofree gboolean *linear_mask = masks.linear;
    g_autofree char *pattern = masks.pattern;
    if (!ok)
        return NULL;
    d.dense_mask = dense_mask; /* the readers set them already; the owners are here */
    d.window_mask = window_mask;
    d.linear_mask = linear_mask;
    d.pattern = pattern;
    GError *invalid = NULL;
    PrismModel *m = prism_model_build_internal(&d, &invalid);
    if (m == NULL) {
        hf_error(&hf, error, invalid->code, "%s", invalid->message);
        g_error_free(invalid);
    }
    return m;
}

PrismModel *prism_model_from_hf_config(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autofree char *data = NULL;
    gsize len = 0;
    GError *local = NULL;
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
        /* A model folder: read its config.json. */
        g_autofree char *inner = g_build_filename(path, "config.json", NULL);
        return prism_model_from_hf_config(inner, error);
    }
    if (!g_file_get_contents(path, &data, &len, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                        "%s: no such file or folder (a name holding '/' or ending in .json is "
                        "read as a Hugging Face config.json or model folder; `prism models` "
                        "lists the zoo)",
                        path);
        else
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                        "%s: cannot read config.json: %s", path, local->message);
        g_error_free(local);
        return NULL;
    }
    return prism_model_from_hf_json(data, len, path, error);
}

/* "ORG/NAME" as Hugging Face names a repository: one '/', inside, and nothing that marks
 * a path (a leading '.', '/' or '~', or a ".json" file name). */
static gboolean is_repo_id(const char *s)
{
    const char *slash = strchr(s, '/');
    return slash != NULL && slash != s && slash[1] != '\0' && strchr(slash + 1, '/') == NULL &&
           s[0] != '.' && s[0] != '~' && !g_str_has_suffix(s, ".json");
}

/* A repository id that is no file here: its NAME part as a zoo name. */
static PrismModel *model_from_repo_id(const char *id, GError **error)
{
    const char *name = strchr(id, '/') + 1;
    GError *local = NULL;
    PrismModel *m = prism_model_zoo_get(name, &local);
    if (m != NULL)
        return m;
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                "%s: no such file or folder, and as a Hugging Face repository id: %s", id,
                local->message);
    g_error_free(local);
    return NULL;
}

PrismModel *prism_model_resolve(const char *name_or_path, GError **error)
{
    g_return_val_if_fail(name_or_path != NULL, NULL);
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".json")) {
        if (!g_file_test(name_or_path, G_FILE_TEST_EXISTS) && is_repo_id(name_or_path))
            return model_from_repo_id(name_or_path, error);
        return prism_model_from_hf_config(name_or_path, error);
    }
    /* a zoo name first (the same result in every folder), then a folder of that name */
    GError *local = NULL;
    PrismModel *m = prism_model_zoo_get(name_or_path, &local);
    if (m == NULL && g_file_test(name_or_path, G_FILE_TEST_IS_DIR)) {
        g_clear_error(&local);
        return prism_model_from_hf_config(name_or_path, error);
    }
    if (local != NULL)
        g_propagate_error(error, local);
    return m;
}
