// SPDX-License-Identifier: MIT
/* model_zoo.c - built-in models (scaffold: one model until the zoo lands). */
#include <prism/model.h>

#include <string.h>

#include <prism/core.h>

static const char *const names[] = {"gpt3-175b"};

size_t prism_model_zoo_size(void)
{
    return G_N_ELEMENTS(names);
}

const char *prism_model_zoo_name(size_t i)
{
    return i < G_N_ELEMENTS(names) ? names[i] : NULL;
}

PrismModel *prism_model_zoo_get(const char *name, GError **error)
{
    if (g_ascii_strcasecmp(name, "gpt3-175b") != 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "unknown model '%s'", name);
        return NULL;
    }
    PrismModel *m = prism_model_new("gpt3-175b", "gpt");
    m->hidden = 12288;
    m->vocab = 50257;
    m->max_positions = 2048;
    m->pos = PRISM_POS_LEARNED;
    m->final_norm = PRISM_NORM_LAYERNORM;
    m->published_params = 175e9;
    PrismBlockSpec s = {
        .attn = {.kind = PRISM_ATTN_STANDARD, .n_heads = 96, .n_kv_heads = 96, .head_dim = 128,
                 .qkv_bias = TRUE, .out_bias = TRUE},
        .mlp = {.act = PRISM_MLP_GELU, .bias = TRUE, .ffn_hidden = 4 * 12288},
        .norm = PRISM_NORM_LAYERNORM};
    uint32_t id = prism_model_add_spec(m, &s);
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    for (int i = 0; i < 96; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, id);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

PrismModel *prism_model_from_hf_config(const char *path, GError **error)
{
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                "%s: config.json reading is not implemented yet", path);
    return NULL;
}

PrismModel *prism_model_resolve(const char *name_or_path, GError **error)
{
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".json"))
        return prism_model_from_hf_config(name_or_path, error);
    return prism_model_zoo_get(name_or_path, error);
}
