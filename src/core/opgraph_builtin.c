// SPDX-License-Identifier: MIT
/*
 * opgraph_builtin.c - the built-in operator graphs of `prism layouts` (model descriptions,
 * built with the public builder of opgraph.h) and the lookup of a graph by name or path.
 *
 * Shapes follow the published models (GPT-3 175B: Brown et al. 2020; BERT-large: Devlin
 * et al. 2019; Mixtral 8x7B block; VGG-16: Simonyan & Zisserman 2015; ResNet-50: He et
 * al. 2016). Vocabularies are padded to a multiple of 128 as Megatron does (GPT-3 50257
 * -> 51200, BERT 30522 -> 30528) so that vocabulary splits divide. Re-entrant.
 */
#include <prism/opgraph.h>

#include <string.h>

#include <prism/core.h>

typedef PrismOpGraphBuilder B;

static uint32_t op1(B *b, const PrismOp *t, const char *name, uint32_t in)
{
    return prism_op_graph_builder_add(b, t, name, &in, 1);
}

static uint32_t input(B *b, const char *name, double features, double channels, int fixed)
{
    PrismOp t = {.kind = PRISM_OP_INPUT,
                 .out_features = features,
                 .channels = channels,
                 .fixed_layout = fixed};
    return prism_op_graph_builder_add(b, &t, name, NULL, 0);
}

static uint32_t output(B *b, const char *name, uint32_t in, int fixed)
{
    PrismOp t = {.kind = PRISM_OP_OUTPUT, .fixed_layout = fixed};
    return op1(b, &t, name, in);
}

static uint32_t linear(B *b, const char *name, uint32_t in, double k_in, double k_out)
{
    PrismOp t = {.kind = PRISM_OP_LINEAR, .k_in = k_in, .k_out = k_out, .fixed_layout = -1};
    return op1(b, &t, name, in);
}

static uint32_t simple(B *b, PrismOpKind kind, const char *name, uint32_t in)
{
    PrismOp t = {.kind = kind, .fixed_layout = -1};
    return op1(b, &t, name, in);
}

static uint32_t add2(B *b, const char *name, uint32_t x, uint32_t y)
{
    PrismOp t = {.kind = PRISM_OP_ELEMENTWISE, .fixed_layout = -1};
    uint32_t in[2] = {x, y};
    return prism_op_graph_builder_add(b, &t, name, in, 2);
}

static uint32_t norm(B *b, const char *name, uint32_t in, gboolean batch_axis)
{
    PrismOp t = {.kind = PRISM_OP_NORM, .norm_batch_axis = batch_axis, .fixed_layout = -1};
    return op1(b, &t, name, in);
}

typedef struct BlockShape {
    double h, heads, kv, dh, ffn;
    double experts, top_k, expert_ffn, matrices; /* experts > 0: MoE block */
} BlockShape;

static uint32_t attention_part(B *b, const char *p, uint32_t x, const BlockShape *s)
{
    char n[96];
    g_snprintf(n, sizeof n, "%s.qkv", p);
    uint32_t qkv = linear(b, n, x, s->h, (s->heads + 2 * s->kv) * s->dh);
    PrismOp t = {.kind = PRISM_OP_ATTENTION,
                 .heads = s->heads,
                 .kv_heads = s->kv,
                 .head_dim = s->dh,
                 .fixed_layout = -1};
    g_snprintf(n, sizeof n, "%s.attn", p);
    uint32_t at = op1(b, &t, n, qkv);
    g_snprintf(n, sizeof n, "%s.proj", p);
    return linear(b, n, at, s->heads * s->dh, s->h);
}

static uint32_t mlp_part(B *b, const char *p, uint32_t x, const BlockShape *s)
{
    char n[96];
    if (s->experts > 0) {
        PrismOp t = {.kind = PRISM_OP_MOE,
                     .experts = s->experts,
                     .top_k = s->top_k,
                     .ffn = s->expert_ffn,
                     .matrices = s->matrices,
                     .fixed_layout = -1};
        g_snprintf(n, sizeof n, "%s.moe", p);
        return op1(b, &t, n, x);
    }
    g_snprintf(n, sizeof n, "%s.fc1", p);
    uint32_t f1 = linear(b, n, x, s->h, s->ffn);
    g_snprintf(n, sizeof n, "%s.gelu", p);
    uint32_t g = simple(b, PRISM_OP_ELEMENTWISE, n, f1);
    g_snprintf(n, sizeof n, "%s.fc2", p);
    return linear(b, n, g, s->ffn, s->h);
}

/* Pre-norm transformer block: x + attn(ln1(x)), then + mlp(ln2(.)). */
static uint32_t block(B *b, const char *p, uint32_t x, const BlockShape *s)
{
    char n[96];
    g_snprintf(n, sizeof n, "%s.ln1", p);
    uint32_t a = attention_part(b, p, norm(b, n, x, FALSE), s);
    g_snprintf(n, sizeof n, "%s.add1", p);
    uint32_t r1 = add2(b, n, x, a);
    g_snprintf(n, sizeof n, "%s.ln2", p);
    uint32_t m = mlp_part(b, p, norm(b, n, r1, FALSE), s);
    g_snprintf(n, sizeof n, "%s.add2", p);
    return add2(b, n, r1, m);
}

static const BlockShape gpt3 = {12288, 96, 96, 128, 49152, 0, 0, 0, 0};
static const BlockShape bert = {1024, 16, 16, 64, 4096, 0, 0, 0, 0};
static const BlockShape mixtral = {4096, 32, 8, 128, 0, 8, 2, 14336, 3};

static void build_mlp(B *b)
{
    uint32_t x = input(b, "x", gpt3.h, 0, PRISM_TL_REP);
    output(b, "y", mlp_part(b, "mlp", x, &gpt3), PRISM_TL_REP);
}

static void build_attention(B *b)
{
    uint32_t x = input(b, "x", gpt3.h, 0, PRISM_TL_REP);
    output(b, "y", attention_part(b, "attn", x, &gpt3), PRISM_TL_REP);
}

static void build_block(B *b)
{
    uint32_t x = input(b, "x", gpt3.h, 0, PRISM_TL_REP);
    output(b, "y", block(b, "block", x, &gpt3), PRISM_TL_REP);
}

static void build_moe_block(B *b)
{
    uint32_t x = input(b, "x", mixtral.h, 0, PRISM_TL_REP);
    output(b, "y", block(b, "block", x, &mixtral), PRISM_TL_REP);
}

static void build_lm(B *b, const BlockShape *s, int layers, double vocab)
{
    uint32_t ids = input(b, "tokens", 1, 0, -1);
    PrismOp emb = {.kind = PRISM_OP_EMBEDDING, .k_in = vocab, .k_out = s->h, .fixed_layout = -1};
    uint32_t x = op1(b, &emb, "embed", ids);
    for (int l = 0; l < layers; l++) {
        char p[32];
        g_snprintf(p, sizeof p, "layer%02d", l);
        x = block(b, p, x, s);
    }
    x = norm(b, "final_ln", x, FALSE);
    x = linear(b, "head", x, s->h, vocab);
    x = simple(b, PRISM_OP_LOSS, "loss", x);
    output(b, "out", x, -1);
}

static void build_bert(B *b)
{
    build_lm(b, &bert, 24, 30528);
}

static void build_gpt3(B *b)
{
    build_lm(b, &gpt3, 96, 51200);
}

static uint32_t conv(B *b, const char *name, uint32_t in, double cin, double cout, double k,
                     double hw)
{
    PrismOp t = {.kind = PRISM_OP_CONV,
                 .k_in = cin,
                 .k_out = cout,
                 .kernel = k,
                 .h_out = hw,
                 .w_out = hw,
                 .fixed_layout = -1};
    return op1(b, &t, name, in);
}

static uint32_t pool(B *b, const char *name, uint32_t in, double ch, double hw)
{
    PrismOp t = {
        .kind = PRISM_OP_POOL, .channels = ch, .h_out = hw, .w_out = hw, .fixed_layout = -1};
    return op1(b, &t, name, in);
}

static void build_vgg16(B *b)
{
    static const int cfg[] = {64, 64,  -1,  128, 128, -1,  256, 256, 256,
                              -1, 512, 512, 512, -1,  512, 512, 512, -1};
    uint32_t x = input(b, "image", 3.0 * 224 * 224, 3, -1);
    double ch = 3, hw = 224;
    int ci = 0, pi = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(cfg); i++) {
        char n[32];
        if (cfg[i] < 0) {
            hw /= 2;
            g_snprintf(n, sizeof n, "pool%d", ++pi);
            x = pool(b, n, x, ch, hw);
            continue;
        }
        g_snprintf(n, sizeof n, "conv%d", ++ci);
        x = conv(b, n, x, ch, cfg[i], 3, hw);
        ch = cfg[i];
        g_snprintf(n, sizeof n, "relu%d", ci);
        x = simple(b, PRISM_OP_ELEMENTWISE, n, x);
    }
    x = linear(b, "fc6", x, 512.0 * 7 * 7, 4096);
    x = simple(b, PRISM_OP_ELEMENTWISE, "relu6", x);
    x = linear(b, "fc7", x, 4096, 4096);
    x = simple(b, PRISM_OP_ELEMENTWISE, "relu7", x);
    x = linear(b, "fc8", x, 4096, 1000);
    x = simple(b, PRISM_OP_LOSS, "loss", x);
    output(b, "out", x, -1);
}

static uint32_t bottleneck(B *b, const char *p, uint32_t x, double cin, double mid, double cout,
                           double hw, gboolean project)
{
    char n[64];
    g_snprintf(n, sizeof n, "%s.conv1", p);
    uint32_t y = conv(b, n, x, cin, mid, 1, hw);
    g_snprintf(n, sizeof n, "%s.bn1", p);
    y = norm(b, n, y, TRUE);
    g_snprintf(n, sizeof n, "%s.relu1", p);
    y = simple(b, PRISM_OP_ELEMENTWISE, n, y);
    g_snprintf(n, sizeof n, "%s.conv2", p);
    y = conv(b, n, y, mid, mid, 3, hw);
    g_snprintf(n, sizeof n, "%s.bn2", p);
    y = norm(b, n, y, TRUE);
    g_snprintf(n, sizeof n, "%s.relu2", p);
    y = simple(b, PRISM_OP_ELEMENTWISE, n, y);
    g_snprintf(n, sizeof n, "%s.conv3", p);
    y = conv(b, n, y, mid, cout, 1, hw);
    g_snprintf(n, sizeof n, "%s.bn3", p);
    y = norm(b, n, y, TRUE);
    uint32_t sc = x;
    if (project) {
        g_snprintf(n, sizeof n, "%s.proj", p);
        sc = conv(b, n, x, cin, cout, 1, hw);
        g_snprintf(n, sizeof n, "%s.bnp", p);
        sc = norm(b, n, sc, TRUE);
    }
    g_snprintf(n, sizeof n, "%s.add", p);
    uint32_t s = add2(b, n, y, sc);
    g_snprintf(n, sizeof n, "%s.relu3", p);
    return simple(b, PRISM_OP_ELEMENTWISE, n, s);
}

static void build_resnet50(B *b)
{
    uint32_t x = input(b, "image", 3.0 * 224 * 224, 3, -1);
    x = conv(b, "stem.conv", x, 3, 64, 7, 112);
    x = norm(b, "stem.bn", x, TRUE);
    x = simple(b, PRISM_OP_ELEMENTWISE, "stem.relu", x);
    x = pool(b, "stem.pool", x, 64, 56);
    static const struct {
        double mid, out, hw;
        int blocks;
    } stages[] = {{64, 256, 56, 3}, {128, 512, 28, 4}, {256, 1024, 14, 6}, {512, 2048, 7, 3}};
    double cin = 64;
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < stages[s].blocks; k++) {
            char p[32];
            g_snprintf(p, sizeof p, "s%d.b%d", s + 1, k);
            x = bottleneck(b, p, x, cin, stages[s].mid, stages[s].out, stages[s].hw, k == 0);
            cin = stages[s].out;
        }
    x = pool(b, "avgpool", x, 2048, 1);
    x = linear(b, "fc", x, 2048, 1000);
    x = simple(b, PRISM_OP_LOSS, "loss", x);
    output(b, "out", x, -1);
}

typedef struct Builtin {
    const char *name;
    const char *doc;
    double batch, seq;
    void (*build)(B *b);
} Builtin;

static const Builtin builtins[] = {
    {"transformer-mlp", "GPT-3 175B MLP: fc1 (12288->49152), GELU, fc2; input/output replicated", 1,
     2048, build_mlp},
    {"transformer-attention",
     "GPT-3 175B attention: fused QKV, core attention (96 heads), projection", 1, 2048,
     build_attention},
    {"transformer-block", "GPT-3 175B pre-norm block: LN, attention, residual, LN, MLP, residual",
     1, 2048, build_block},
    {"transformer-moe-block",
     "Mixtral 8x7B block: GQA attention (32 q / 8 kv heads), 8 SwiGLU experts, top-2", 1, 4096,
     build_moe_block},
    {"bert-large", "BERT-large: embedding, 24 blocks (1024, 16 heads), LM head, loss", 8, 512,
     build_bert},
    {"gpt3-175b", "GPT-3 175B: embedding, 96 blocks (12288, 96 heads), head, loss", 1, 2048,
     build_gpt3},
    {"vgg16", "VGG-16 on 224x224: 13 conv + 5 pool + 3 fc, batch 32", 32, 1, build_vgg16},
    {"resnet50", "ResNet-50 on 224x224: bottlenecks 3-4-6-3 with batch norm, batch 32", 32, 1,
     build_resnet50},
};

size_t prism_op_graph_builtin_count(void)
{
    return G_N_ELEMENTS(builtins);
}

const char *prism_op_graph_builtin_name(size_t i)
{
    return i < G_N_ELEMENTS(builtins) ? builtins[i].name : NULL;
}

const char *prism_op_graph_builtin_doc(size_t i)
{
    return i < G_N_ELEMENTS(builtins) ? builtins[i].doc : NULL;
}

PrismOpGraph *prism_op_graph_builtin(const char *name, GError **error)
{
    for (size_t i = 0; i < G_N_ELEMENTS(builtins); i++)
        if (g_ascii_strcasecmp(name, builtins[i].name) == 0) {
            B b;
            prism_op_graph_builder_init(&b, builtins[i].name, builtins[i].batch, builtins[i].seq,
                                        2);
            builtins[i].build(&b);
            return prism_op_graph_builder_finish(&b, "builtin");
        }
    const char *names[G_N_ELEMENTS(builtins) + 1];
    for (size_t i = 0; i < G_N_ELEMENTS(builtins); i++)
        names[i] = builtins[i].name;
    names[G_N_ELEMENTS(builtins)] = NULL;
    g_autofree char *close = prism_close_names(name, names, G_N_ELEMENTS(builtins), 3);
    g_autofree char *all = g_strjoinv(", ", (char **)names);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "--graph: unknown built-in graph '%s' (closest: %s; built-in: %s; or give a "
                "path to a JSON file)",
                name, close, all);
    return NULL;
}

PrismOpGraph *prism_op_graph_resolve(const char *name_or_path, GError **error)
{
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".json"))
        return prism_op_graph_from_file(name_or_path, error);
    return prism_op_graph_builtin(name_or_path, error);
}
