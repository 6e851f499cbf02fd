// SPDX-License-Identifier: MIT
/*
 * test_hf.c - the Hugging Face config.json reader: one sample per supported model_type
 * (tests/data/hf/), checked against the zoo entry of the same model (identical IR and
 * counts) or against a count derived by hand; and every malformed config under
 * tests/data/bad/hf-*.json (error code, and the message names file, key and value).
 */
#include <string.h>

#include <CUnit/CUnit.h>
#include <glib/gstdio.h> /* g_unlink, g_rmdir */

#include <prism/core.h>
#include <prism/model.h>

#include "prism_test_util.h"

static PrismModel *load(const char *name)
{
    g_autofree char *rel = g_build_filename("hf", name, NULL);
    g_autofree char *path = prism_test_data_path(rel);
    GError *error = NULL;
    PrismModel *m = prism_model_resolve(path, &error);
    if (m == NULL)
        fprintf(stderr, "%s: %s\n", name, error ? error->message : "?");
    g_clear_error(&error);
    return m;
}

/* Same layer sequence, same block specs along it, same scalar fields. */
static gboolean same_ir(const PrismModel *a, const PrismModel *b)
{
    if (a->hidden != b->hidden || a->vocab != b->vocab || a->pos != b->pos ||
        a->final_norm != b->final_norm || a->tied_embeddings != b->tied_embeddings ||
        a->head_bias != b->head_bias || a->n_layers != b->n_layers)
        return FALSE;
    for (uint32_t i = 0; i < a->n_layers; i++) {
        if (a->layers[i].kind != b->layers[i].kind)
            return FALSE;
        if (a->layers[i].kind == PRISM_LAYER_BLOCK || a->layers[i].kind == PRISM_LAYER_MTP) {
            const PrismBlockSpec *x = &a->specs[a->layers[i].spec];
            const PrismBlockSpec *y = &b->specs[b->layers[i].spec];
            if (memcmp(&x->attn, &y->attn, sizeof x->attn) != 0 ||
                memcmp(&x->mlp, &y->mlp, sizeof x->mlp) != 0 || x->norm != y->norm ||
                x->mixer != y->mixer || memcmp(&x->ssm, &y->ssm, sizeof x->ssm) != 0 ||
                x->no_mlp != y->no_mlp)
                return FALSE;
        }
    }
    return TRUE;
}

static void test_samples_match_zoo(void)
{
    static const struct {
        const char *file, *zoo;
    } pairs[] = {
        {"llama2-70b.json", "llama2-70b"},
        {"mixtral-8x7b.json", "mixtral-8x7b"},
        {"qwen2-72b.json", "qwen2-72b"},
        {"qwen3-32b.json", "qwen3-32b"},
        {"qwen3-235b-a22b.json", "qwen3-235b-a22b"},
        {"deepseek-v2-lite.json", "deepseek-v2-lite"},
        {"deepseek-v3.json", "deepseek-v3"},
        {"gpt-oss-20b.json", "gpt-oss-20b"},
        {"gpt-oss-120b.json", "gpt-oss-120b"},
        {"qwen1.5-moe-a2.7b.json", "qwen1.5-moe-a2.7b"},
        {"qwen2-57b-a14b.json", "qwen2-57b-a14b"},
        {"llama4-scout.json", "llama4-scout"},
        {"llama4-maverick.json", "llama4-maverick"},
        {"nemotron-h-56b.json", "nemotron-h-56b"},
        {"qwen3-next-80b-a3b.json", "qwen3-next-80b-a3b"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
        PrismModel *hf = load(pairs[i].file);
        PrismModel *zoo = prism_model_zoo_get(pairs[i].zoo, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(hf);
        CU_ASSERT_PTR_NOT_NULL_FATAL(zoo);
        gboolean same = same_ir(hf, zoo);
        if (!same)
            fprintf(stderr, "%s differs from zoo %s\n", pairs[i].file, pairs[i].zoo);
        CU_ASSERT_TRUE(same);
        PrismParamCount a, b;
        prism_model_params(hf, &a);
        prism_model_params(zoo, &b);
        CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
        CU_ASSERT_TRUE(g_str_has_prefix(hf->name, "hf:"));
        prism_model_free(hf);
        prism_model_free(zoo);
    }
}

static void test_deepseek_v3_sample(void)
{
    /* The sample gives the zoo's count: 671,026,404,352 without the MTP module. */
    PrismModel *m = load("deepseek-v3.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismParamCount c;
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(c.total - c.mtp, 671026404352.0);
    CU_ASSERT_EQUAL(prism_model_n_mtp(m), 1);
    CU_ASSERT_STRING_EQUAL(m->family, "deepseek_v3");
    prism_model_free(m);
}

static void test_samples_by_hand(void)
{
    PrismParamCount c;
    /* Mistral-7B: 32 x (2*4096^2 + 2*4096*1024 + 3*4096*14336 + 2*4096) + 2*32000*4096
     * + 4096 = 7,241,732,096 (the published 7.24B). */
    PrismModel *m = load("mistral-7b.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(c.total, 7241732096.0);
    prism_model_free(m);
    /* GPT-2 small: 12 x (12*768^2 + 13*768) + 50257*768 + 1024*768 + 2*768 = 124,439,808
     * (tied head; learned positions). */
    m = load("gpt2.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(c.total, 124439808.0);
    CU_ASSERT_TRUE(m->tied_embeddings);
    CU_ASSERT_EQUAL(m->pos, PRISM_POS_LEARNED);
    prism_model_free(m);
    /* GPT-NeoX-20B: 44 x (4h^2 + 4h + 2*h*24576 + 24576 + h + 4h) + 2*50432*h + 2h with
     * h = 6144 = 20,554,567,680 (the released checkpoint's count). */
    m = load("gpt-neox-20b.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    prism_model_params(m, &c);
    const double h = 6144;
    CU_ASSERT_EQUAL(c.total, 44 * (4 * h * h + 4 * h + 2 * h * 24576 + 24576 + h + 4 * h) +
                                 2 * 50432 * h + 2 * h);
    CU_ASSERT_EQUAL(c.total, 20554567680.0);
    prism_model_free(m);
}

static void test_hybrid_samples(void)
{
    /* nemotron_h with layers_block_type (transformers' names) and MoE layers, a synthetic
     * config: h 64, V 100, pattern M E * - (one part per layer, one RMSNorm h each);
     * Mamba-2 H 8 x P 16, G 2, N 32, conv 4 with bias: in_proj 64 (256 + 128 + 8) = 25,088,
     * conv (128 + 128) x 5 = 1,280, 3H = 24, norm 128, out_proj 128 x 64 = 8,192: 34,712;
     * MoE: router 4 x 64, 4 squared-ReLU experts 2 x 64 x 32, one shared 2 x 64 x 48:
     * 256 + 16,384 + 6,144 = 22,784; attention 4 heads x 16, 2 KV: 2 x 64 x 64 + 2 x 64 x 32
     * = 12,288; MLP 2 x 64 x 96 = 12,288. Total 34,712 + 22,784 + 12,288 + 12,288 + 4 x 64
     * + 2 x 100 x 64 + 64 = 95,192 */
    PrismModel *m = load("nemotron-h-block-types.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PrismParamCount c;
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(c.total, 95192.0);
    CU_ASSERT_EQUAL(c.experts, 16384.0);
    CU_ASSERT_EQUAL(prism_model_n_blocks(m), 4);
    CU_ASSERT_EQUAL(m->specs[m->layers[1].spec].mixer, PRISM_MIXER_MAMBA2);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mixer, PRISM_MIXER_NONE);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mlp.n_experts, 4);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mlp.act, PRISM_MLP_RELU2);
    CU_ASSERT_EQUAL(m->specs[m->layers[3].spec].mixer, PRISM_MIXER_ATTENTION);
    CU_ASSERT_EQUAL(m->specs[m->layers[4].spec].mixer, PRISM_MIXER_NONE);
    prism_model_free(m);
    /* the published 56B config carries "time_step_limit": [0.0, Infinity] (Python's json
     * token): read as null, the model is the zoo's (test_samples_match_zoo) */
    m = load("nemotron-h-56b.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(c.total, 56324350464.0);
    prism_model_free(m);
}

static void test_qwen_moe_sparse_step(void)
{
    /* 8 layers, decoder_sparse_step 2: MoE where (i+1) % 2 == 0 -> 1, 3, 5, 7; layer 5
     * is in mlp_only_layers -> MoE at 1, 3, 7 only. h 1024, 16 heads of 64, 4 KV heads,
     * dense ffn 4096, 16 experts of 512 top-4, tied, vocab 32000.
     * attention 2*1024*1024 + 2*1024*256 = 2,621,440; q/k norms 2*64; norms 2048
     * dense block + 3*1024*4096 = 12,582,912; MoE block + 16*3*1024*512 + router 16384
     * total = 5 dense + 3 MoE + 32000*1024 + 1024 (final norm; head tied) */
    PrismModel *m = load("qwen3-moe-sparse-step.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    static const uint32_t moe_expected[8] = {0, 1, 0, 1, 0, 0, 0, 1};
    for (uint32_t i = 0; i < 8; i++) {
        const PrismMlpSpec *mlp = &m->specs[m->layers[1 + i].spec].mlp;
        CU_ASSERT_EQUAL(mlp->n_experts > 0, moe_expected[i]);
    }
    const double attn = 2621440.0 + 128 + 2048;
    const double dense = attn + 12582912.0, moe = attn + 16 * 3 * 1024 * 512.0 + 16384;
    PrismParamCount c;
    prism_model_params(m, &c);
    CU_ASSERT_EQUAL(c.total, 5 * dense + 3 * moe + 32000 * 1024.0 + 1024);
    CU_ASSERT_TRUE(m->tied_embeddings);
    prism_model_free(m);
}

static PrismModel *from_text(const char *json)
{
    GError *error = NULL;
    PrismModel *m = prism_model_from_hf_json(json, strlen(json), "inline", &error);
    if (m == NULL)
        fprintf(stderr, "inline: %s\n", error ? error->message : "?");
    g_clear_error(&error);
    return m;
}

static uint32_t window_of(const PrismModel *m, uint32_t block)
{
    return m->specs[m->layers[1 + block].spec].attn.window;
}

static uint32_t experts_of(const PrismModel *m, uint32_t block)
{
    return m->specs[m->layers[1 + block].spec].mlp.n_experts;
}

static void test_windows_and_layer_lists(void)
{
    /* gpt_oss without layer_types: transformers' default, sliding on the even blocks;
     * experts_per_token (the reference name) stands for num_experts_per_tok. */
    PrismModel *m =
        from_text("{\"model_type\": \"gpt_oss\", \"hidden_size\": 2880, \"num_hidden_layers\": 4, "
                  "\"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"head_dim\": 64, "
                  "\"intermediate_size\": 2880, \"vocab_size\": 201088, \"num_local_experts\": 32, "
                  "\"experts_per_token\": 4, \"sliding_window\": 64}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    static const uint32_t win[4] = {64, 0, 64, 0};
    for (uint32_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(window_of(m, i), win[i]);
    const PrismBlockSpec *sp = &m->specs[m->layers[1].spec];
    CU_ASSERT_TRUE(sp->attn.sinks && sp->attn.qkv_bias && sp->attn.out_bias);
    CU_ASSERT_TRUE(sp->mlp.router_bias && sp->mlp.bias);
    CU_ASSERT_EQUAL(sp->mlp.top_k, 4);
    prism_model_free(m);
    /* llama4_text with an explicit moe_layers list (wins over the step): MoE on 0 and 3 */
    m = from_text("{\"model_type\": \"llama4_text\", \"hidden_size\": 512, "
                  "\"num_hidden_layers\": 4, \"num_attention_heads\": 8, "
                  "\"num_key_value_heads\": 2, \"head_dim\": 64, \"intermediate_size\": 256, "
                  "\"intermediate_size_mlp\": 1024, \"vocab_size\": 1000, "
                  "\"num_local_experts\": 4, \"num_experts_per_tok\": 1, "
                  "\"interleave_moe_layer_step\": 2, \"moe_layers\": [0, 3]}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    static const uint32_t moe[4] = {4, 0, 0, 4};
    for (uint32_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(experts_of(m, i), moe[i]);
    CU_ASSERT_EQUAL(m->specs[m->layers[2].spec].mlp.ffn_hidden, 1024);
    CU_ASSERT_EQUAL(m->specs[m->layers[1].spec].mlp.n_shared, 1);
    prism_model_free(m);
    /* Mistral-7B v0.1: sliding_window 4096 on every layer; Mixtral's null: none */
    m = load("mistral-7b.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    for (uint32_t i = 0; i < 32; i++)
        CU_ASSERT_EQUAL(window_of(m, i), 4096);
    CU_ASSERT_EQUAL(m->n_specs, 1);
    prism_model_free(m);
    m = load("mixtral-8x7b.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(window_of(m, 0), 0);
    prism_model_free(m);
    /* Qwen3 dense: q/k norms, 2 x head_dim parameters per layer (see test_model_zoo.c) */
    m = load("qwen3-32b.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_TRUE(m->specs[0].attn.qk_norm);
    prism_model_free(m);
}

static void test_folder_and_memory(void)
{
    /* A folder is read as FOLDER/config.json; the in-memory entry point gives the same. */
    g_autofree char *src = prism_test_data_path("hf/mistral-7b.json");
    g_autofree char *text = NULL;
    gsize len = 0;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(src, &text, &len, NULL));
    g_autofree char *dir = g_build_filename(prism_test_scratch_dir(), "mistral", NULL);
    g_mkdir_with_parents(dir, 0755);
    g_autofree char *cfg = g_build_filename(dir, "config.json", NULL);
    CU_ASSERT_TRUE(g_file_set_contents(cfg, text, (gssize)len, NULL));
    PrismModel *a = prism_model_resolve(dir, NULL);
    PrismModel *b = prism_model_from_hf_json(text, len, "mem", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_TRUE(same_ir(a, b));
    CU_ASSERT_STRING_EQUAL(b->name, "hf:mem");
    prism_model_free(a);
    prism_model_free(b);
    g_unlink(cfg);
    g_rmdir(dir);
}

static const struct {
    const char *file;
    int code;
    const char *needles[2];
} bad[] = {
    {"hf-truncated.json", PRISM_INPUT_ERROR_PARSE, {"malformed JSON", NULL}},
    {"hf-not-object.json", PRISM_INPUT_ERROR_PARSE, {"not a JSON object", NULL}},
    {"hf-missing-hidden.json", PRISM_INPUT_ERROR_MISSING, {"'hidden_size'", "llama"}},
    {"hf-string-value.json", PRISM_INPUT_ERROR_PARSE, {"'hidden_size'", "\"4096\""}},
    {"hf-negative-layers.json", PRISM_INPUT_ERROR_VALUE, {"'num_hidden_layers'", "-2"}},
    {"hf-zero-heads.json", PRISM_INPUT_ERROR_VALUE, {"'num_attention_heads'", "= 0"}},
    {"hf-unknown-type.json", PRISM_INPUT_ERROR_UNSUPPORTED, {"\"bert\"", "deepseek_v3"}},
    {"hf-no-model-type.json", PRISM_INPUT_ERROR_MISSING, {"'model_type'", "qwen3_moe"}},
    {"hf-kv-not-divide.json", PRISM_INPUT_ERROR_VALUE, {"num_key_value_heads", "5"}},
    {"hf-huge-layers.json", PRISM_INPUT_ERROR_VALUE, {"'num_hidden_layers'", "1000000000"}},
    {"hf-fractional.json", PRISM_INPUT_ERROR_VALUE, {"'hidden_size'", "4096.5"}},
    /* the value as JSON writes it: json-glib alone printed the invalid 1e+30.0 */
    {"hf-exponent.json", PRISM_INPUT_ERROR_VALUE, {"'hidden_size' = 1e+30 must", NULL}},
    /* beyond a double: json-glib holds inf (and writes "null"); the text as written */
    {"hf-overflow.json", PRISM_INPUT_ERROR_VALUE, {"'hidden_size' = 1e400 must", NULL}},
    {"hf-bool-string.json", PRISM_INPUT_ERROR_PARSE, {"'tie_word_embeddings'", "\"yes\""}},
    {"hf-empty.json", PRISM_INPUT_ERROR_PARSE, {"malformed JSON", NULL}},
    {"hf-binary.json", PRISM_INPUT_ERROR_PARSE, {"malformed JSON", NULL}},
    {"hf-topk-too-large.json", PRISM_INPUT_ERROR_VALUE, {"num_experts_per_tok", "9"}},
    {"hf-mlp-only-out-of-range.json", PRISM_INPUT_ERROR_VALUE, {"'mlp_only_layers'[1]", "99"}},
    {"hf-mla-missing-kv-rank.json", PRISM_INPUT_ERROR_MISSING, {"'kv_lora_rank'", NULL}},
    {"hf-model-type-number.json", PRISM_INPUT_ERROR_PARSE, {"'model_type' = 7", NULL}},
    {"hf-deep-nesting.json", PRISM_INPUT_ERROR_PARSE, {"nested deeper", NULL}},
    {"hf-heads-not-divide-hidden.json", PRISM_INPUT_ERROR_VALUE, {"hidden_size = 4000", "48"}},
    {"hf-layer-types-bad.json", PRISM_INPUT_ERROR_VALUE, {"'layer_types'[2]", "chunked_attention"}},
    {"hf-layer-types-short.json", PRISM_INPUT_ERROR_VALUE, {"'layer_types'", "= 4 entries"}},
    {"hf-llama4-no-text-config.json", PRISM_INPUT_ERROR_MISSING, {"'text_config'", "llama4"}},
    {"hf-llama4-dense-no-mlp.json",
     PRISM_INPUT_ERROR_MISSING,
     {"'intermediate_size_mlp'", "layer 0"}},
    {"hf-nemotron-bad-pattern.json", PRISM_INPUT_ERROR_VALUE, {"'hybrid_override_pattern'", "M-X"}},
    {"hf-nemotron-mtp.json", PRISM_INPUT_ERROR_UNSUPPORTED, {"'num_nextn_predict_layers'", "= 1"}},
    {"hf-qwen3-next-layer-types.json",
     PRISM_INPUT_ERROR_VALUE,
     {"'layer_types'[1]", "sliding_attention"}},
    {"hf-mamba-groups.json", PRISM_INPUT_ERROR_VALUE, {"n_groups", "3"}},
    {"does-not-exist.json", PRISM_INPUT_ERROR_FILE, {"no such file or folder", NULL}},
};

static void test_bad_configs(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *rel = g_build_filename("bad", bad[i].file, NULL);
        g_autofree char *path = prism_test_data_path(rel);
        GError *error = NULL;
        PrismModel *m = prism_model_resolve(path, &error);
        CU_ASSERT_PTR_NULL(m);
        prism_model_free(m);
        CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, path) : NULL);
        CU_ASSERT_TRUE(prism_test_input_error(error, bad[i].code, bad[i].needles,
                                              G_N_ELEMENTS(bad[i].needles), bad[i].file));
        g_clear_error(&error);
    }
    /* Every bad file on disk is in the table (and so is tested); all but the missing one. */
    CU_ASSERT_EQUAL(
        prism_test_data_files_listed("bad", "hf-", &bad[0].file, G_N_ELEMENTS(bad), sizeof bad[0]),
        (int)G_N_ELEMENTS(bad) - 1);
}

static CU_TestInfo hf_tests[] = {
    {"samples equal their zoo models", test_samples_match_zoo},
    {"hybrid samples: nemotron_h layer kinds, Infinity tokens", test_hybrid_samples},
    {"DeepSeek-V3 sample: 671B + MTP", test_deepseek_v3_sample},
    {"mistral, gpt2, gpt_neox by hand", test_samples_by_hand},
    {"qwen3_moe decoder_sparse_step + mlp_only_layers", test_qwen_moe_sparse_step},
    {"windows, layer_types, moe_layers", test_windows_and_layer_lists},
    {"folder and in-memory input", test_folder_and_memory},
    {"malformed configs", test_bad_configs},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"hf", NULL, NULL, NULL, NULL, hf_tests},
    CU_SUITE_INFO_NULL,
};
