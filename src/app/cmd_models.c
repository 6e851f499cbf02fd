// SPDX-License-Identifier: MIT
/*
 * cmd_models.c - `prism models [--json] [NAME|FILE]`: the zoo as a table, or one model
 * (zoo name or config.json) with its layer sequence and parameter breakdown.
 * Output on rank 0 only; nothing collective beyond the final agreement in prism_app.c.
 */
#include "app-internal.h"

#include <string.h>

#include <json-glib/json-glib.h>

static const char *attn_label(const PrismAttnSpec *a)
{
    if (a->kind == PRISM_ATTN_MLA)
        return "MLA";
    if (a->n_kv_heads == a->n_heads)
        return "MHA";
    return a->n_kv_heads == 1 ? "MQA" : "GQA";
}

/* "dense", or "E/k/s" (routed experts / top-k / shared) of the widest MoE spec. */
static char *experts_label(const PrismModel *m)
{
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const PrismMlpSpec *p = &m->specs[i].mlp;
        if (p->n_experts > 0)
            return g_strdup_printf("%u/%u/%u", p->n_experts, p->top_k, p->n_shared);
    }
    return g_strdup("-");
}

/* The attention of the first block (all blocks of a zoo model share it). */
static const PrismAttnSpec *first_attn(const PrismModel *m)
{
    /* the first attention block (hybrid models begin with SSM or MLP layers) */
    for (uint32_t i = 0; i < m->n_layers; i++)
        if (m->layers[i].kind == PRISM_LAYER_BLOCK &&
            m->specs[m->layers[i].spec].mixer == PRISM_MIXER_ATTENTION)
            return &m->specs[m->layers[i].spec].attn;
    for (uint32_t i = 0; i < m->n_layers; i++)
        if (m->layers[i].kind == PRISM_LAYER_BLOCK)
            return &m->specs[m->layers[i].spec].attn;
    return NULL;
}

static void summary_json(JsonBuilder *b, const PrismModel *m)
{
    PrismParamCount c;
    prism_model_params(m, &c);
    const PrismAttnSpec *a = first_attn(m);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, m->name);
    json_builder_set_member_name(b, "family");
    json_builder_add_string_value(b, m->family);
    json_builder_set_member_name(b, "layers");
    json_builder_add_int_value(b, prism_model_n_blocks(m));
    json_builder_set_member_name(b, "mtp_layers");
    json_builder_add_int_value(b, prism_model_n_mtp(m));
    json_builder_set_member_name(b, "hidden");
    json_builder_add_int_value(b, (gint64)m->hidden);
    json_builder_set_member_name(b, "vocab");
    json_builder_add_int_value(b, (gint64)m->vocab);
    json_builder_set_member_name(b, "attention");
    json_builder_add_string_value(b, attn_label(a));
    json_builder_set_member_name(b, "heads");
    json_builder_add_int_value(b, a->n_heads);
    json_builder_set_member_name(b, "kv_heads");
    json_builder_add_int_value(b, a->n_kv_heads);
    json_builder_set_member_name(b, "head_dim");
    json_builder_add_int_value(b, a->head_dim);
    uint32_t e = prism_model_max_experts(m), k = 0, s = 0;
    for (uint32_t i = 0; i < m->n_specs; i++)
        if (m->specs[i].mlp.n_experts > 0) {
            k = m->specs[i].mlp.top_k;
            s = m->specs[i].mlp.n_shared;
        }
    json_builder_set_member_name(b, "experts");
    json_builder_add_int_value(b, e);
    json_builder_set_member_name(b, "top_k");
    json_builder_add_int_value(b, k);
    json_builder_set_member_name(b, "shared_experts");
    json_builder_add_int_value(b, s);
    json_builder_set_member_name(b, "tied_embeddings");
    json_builder_add_boolean_value(b, m->tied_embeddings);
    json_builder_set_member_name(b, "params"); /* without MTP modules, as in the table */
    json_builder_add_double_value(b, c.total - c.mtp);
    json_builder_set_member_name(b, "params_active");
    json_builder_add_double_value(b, c.active - c.mtp_active);
    json_builder_set_member_name(b, "params_mtp");
    json_builder_add_double_value(b, c.mtp);
    json_builder_set_member_name(b, "published_params");
    json_builder_add_double_value(b, m->published_params);
}

static char *billions(double p)
{
    return p >= 1e9 ? g_strdup_printf("%.2fB", p / 1e9) : g_strdup_printf("%.0fM", p / 1e6);
}

static void print_table(FILE *out, PrismModel **models, size_t n)
{
    fprintf(out, "%-18s %-9s %6s %6s %5s %4s %-4s %-10s %9s %9s %10s\n", "NAME", "FAMILY", "LAYERS",
            "HIDDEN", "HEADS", "KV", "ATTN", "EXPERTS", "PARAMS", "ACTIVE", "PUBLISHED");
    for (size_t i = 0; i < n; i++) {
        const PrismModel *m = models[i];
        PrismParamCount c;
        prism_model_params(m, &c);
        const PrismAttnSpec *a = first_attn(m);
        g_autofree char *experts = experts_label(m);
        g_autofree char *total = billions(c.total - c.mtp);
        g_autofree char *active = billions(c.active - c.mtp_active);
        g_autofree char *pub =
            m->published_params > 0 ? billions(m->published_params) : g_strdup("-");
        g_autofree char *layers =
            prism_model_n_mtp(m) > 0
                ? g_strdup_printf("%u+%u", prism_model_n_blocks(m), prism_model_n_mtp(m))
                : g_strdup_printf("%u", prism_model_n_blocks(m));
        fprintf(out, "%-18s %-9s %6s %6" G_GUINT64_FORMAT " %5u %4u %-4s %-10s %9s %9s %10s\n",
                m->name, m->family, layers, m->hidden, a->n_heads, a->n_kv_heads, attn_label(a),
                experts, total, active, pub);
    }
    fprintf(out,
            "\n%zu models. LAYERS: transformer blocks (+ MTP modules); EXPERTS: "
            "routed/top-k/shared;\nPARAMS excludes MTP modules (DeepSeek-V3's 671B "
            "convention); ACTIVE: per token.\n`prism models NAME` shows one model's "
            "layer sequence; NAME may be a Hugging Face config.json.\n",
            n);
}

static void spec_text(GString *s, const PrismBlockSpec *sp)
{
    const PrismAttnSpec *a = &sp->attn;
    const PrismMlpSpec *p = &sp->mlp;
    const PrismSsmSpec *m = &sp->ssm;
    if (sp->mixer == PRISM_MIXER_MAMBA2)
        g_string_append_printf(s, "Mamba-2 %u heads x %u, state %u, %u groups, conv %u, chunk %u",
                               m->n_heads, m->head_dim, m->state, m->n_groups, m->conv_kernel,
                               m->chunk);
    else if (sp->mixer == PRISM_MIXER_GDN)
        g_string_append_printf(s,
                               "gated DeltaNet %u key heads x %u, %u value heads x %u, conv %u, "
                               "chunk %u",
                               m->n_groups, m->state, m->n_heads, m->head_dim, m->conv_kernel,
                               m->chunk);
    else if (sp->mixer == PRISM_MIXER_NONE)
        g_string_append(s, "no mixer");
    else if (a->kind == PRISM_ATTN_MLA)
        g_string_append_printf(s, "MLA %u heads (q rank %u, kv rank %u, qk %u+%u, v %u)",
                               a->n_heads, a->q_lora_rank, a->kv_lora_rank, a->qk_nope_head_dim,
                               a->qk_rope_head_dim, a->v_head_dim);
    else
        g_string_append_printf(s, "%s %u heads x %u, %u KV heads%s%s%s", attn_label(a), a->n_heads,
                               a->head_dim, a->n_kv_heads, a->qkv_bias ? ", QKV bias" : "",
                               a->qk_norm ? ", q/k norm" : "", a->sinks ? ", sinks" : "");
    if (a->window > 0)
        g_string_append_printf(s, ", sliding window %u", a->window);
    if (a->out_gate)
        g_string_append(s, ", output gate");
    const char *act = p->act == PRISM_MLP_SWIGLU  ? "SwiGLU"
                      : p->act == PRISM_MLP_RELU2 ? "ReLU^2"
                                                  : "GELU";
    if (sp->no_mlp)
        g_string_append(s, "; no MLP");
    else if (p->n_experts == 0)
        g_string_append_printf(s, "; %s MLP %" G_GUINT64_FORMAT, act, p->ffn_hidden);
    else
        g_string_append_printf(s, "; MoE %u x %s %" G_GUINT64_FORMAT ", top-%u, %u shared%s%s",
                               p->n_experts, act, p->expert_hidden, p->top_k, p->n_shared,
                               p->shared_gate ? " (gated)" : "",
                               p->router_bias ? ", router bias" : "");
}

static const char *const kind_names[] = {"embedding", "block", "mtp", "final-norm", "head"};

static void print_one(FILE *out, const PrismModel *m)
{
    PrismParamCount c;
    prism_model_params(m, &c);
    fprintf(out, "model %s (family %s)\n", m->name, m->family);
    fprintf(out,
            "  hidden %" G_GUINT64_FORMAT ", vocab %" G_GUINT64_FORMAT
            ", max positions %" G_GUINT64_FORMAT " (%s), %s, %s embeddings\n",
            m->hidden, m->vocab, m->max_positions, m->pos == PRISM_POS_ROPE ? "rotary" : "learned",
            m->final_norm == PRISM_NORM_RMSNORM ? "RMSNorm" : "LayerNorm",
            m->tied_embeddings ? "tied" : "untied");
    fprintf(out, "block kinds:\n");
    for (uint32_t i = 0; i < m->n_specs; i++) {
        g_autoptr(GString) s = g_string_new(NULL);
        spec_text(s, &m->specs[i]);
        fprintf(out, "  [%u] %s: %.4gB params\n", i, s->str,
                prism_block_params(&m->specs[i], m->hidden) / 1e9);
    }
    fprintf(out, "layer sequence (%u entries):\n", m->n_layers);
    for (uint32_t i = 0; i < m->n_layers;) {
        uint32_t j = i;
        while (j + 1 < m->n_layers && m->layers[j + 1].kind == m->layers[i].kind &&
               m->layers[j + 1].spec == m->layers[i].spec)
            j++;
        gboolean has_spec =
            m->layers[i].kind == PRISM_LAYER_BLOCK || m->layers[i].kind == PRISM_LAYER_MTP;
        g_autofree char *range = i == j ? g_strdup_printf("%u", i) : g_strdup_printf("%u-%u", i, j);
        if (has_spec)
            fprintf(out, "  %-8s %u x %s [%u]\n", range, j - i + 1, kind_names[m->layers[i].kind],
                    m->layers[i].spec);
        else
            fprintf(out, "  %-8s %s\n", range, kind_names[m->layers[i].kind]);
        i = j + 1;
    }
    fprintf(out,
            "parameters: total %.6gB (embedding %.4gB, blocks %.6gB of which routed experts "
            "%.6gB, head+final norm %.4gB, MTP %.4gB), active per token %.4gB (without MTP)",
            c.total / 1e9, c.embedding / 1e9, c.blocks / 1e9, c.experts / 1e9, c.head / 1e9,
            c.mtp / 1e9, (c.active - c.mtp_active) / 1e9);
    if (m->published_params > 0)
        fprintf(out, "; published %.6gB (%+.2f%% vs total - MTP)", m->published_params / 1e9,
                100 * (c.total - c.mtp - m->published_params) / m->published_params);
    fprintf(out, "\n");
}

static void member_int(JsonBuilder *b, const char *name, gint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

static void member_bool(JsonBuilder *b, const char *name, gboolean v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_boolean_value(b, v);
}

/* The hybrid-model fields of a spec, written only where they differ from a transformer
 * block (so the JSON of other models is unchanged). */
static void hybrid_json(JsonBuilder *b, const PrismBlockSpec *sp)
{
    static const char *const mixers[] = {"attention", "mamba2", "gated_deltanet", "none"};
    if (sp->attn.out_gate)
        member_bool(b, "out_gate", TRUE);
    if (sp->mixer == PRISM_MIXER_ATTENTION && !sp->no_mlp)
        return;
    json_builder_set_member_name(b, "mixer");
    json_builder_add_string_value(b, mixers[sp->mixer]);
    member_bool(b, "no_mlp", sp->no_mlp);
    if (sp->mixer != PRISM_MIXER_MAMBA2 && sp->mixer != PRISM_MIXER_GDN)
        return;
    json_builder_set_member_name(b, "ssm");
    json_builder_begin_object(b);
    member_int(b, "heads", sp->ssm.n_heads);
    member_int(b, "head_dim", sp->ssm.head_dim);
    member_int(b, "state", sp->ssm.state);
    member_int(b, "groups", sp->ssm.n_groups);
    member_int(b, "conv_kernel", sp->ssm.conv_kernel);
    member_int(b, "chunk", sp->ssm.chunk);
    member_bool(b, "bias", sp->ssm.bias);
    member_bool(b, "conv_bias", sp->ssm.conv_bias);
    json_builder_end_object(b);
}

/* Every field of every block spec: with the sequence, enough to rebuild the IR. */
static void specs_json(JsonBuilder *b, const PrismModel *m)
{
    json_builder_set_member_name(b, "specs");
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const PrismAttnSpec *a = &m->specs[i].attn;
        const PrismMlpSpec *p = &m->specs[i].mlp;
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "attention");
        json_builder_add_string_value(b, attn_label(a));
        member_int(b, "heads", a->n_heads);
        member_int(b, "kv_heads", a->n_kv_heads);
        member_int(b, "head_dim", a->head_dim);
        member_bool(b, "qkv_bias", a->qkv_bias);
        member_bool(b, "out_bias", a->out_bias);
        member_int(b, "q_lora_rank", a->q_lora_rank);
        member_int(b, "kv_lora_rank", a->kv_lora_rank);
        member_int(b, "qk_nope_head_dim", a->qk_nope_head_dim);
        member_int(b, "qk_rope_head_dim", a->qk_rope_head_dim);
        member_int(b, "v_head_dim", a->v_head_dim);
        member_int(b, "window", a->window);
        member_bool(b, "sinks", a->sinks);
        member_bool(b, "qk_norm", a->qk_norm);
        json_builder_set_member_name(b, "mlp");
        json_builder_add_string_value(b, p->act == PRISM_MLP_SWIGLU  ? "swiglu"
                                         : p->act == PRISM_MLP_RELU2 ? "relu2"
                                                                     : "gelu");
        member_bool(b, "mlp_bias", p->bias);
        member_int(b, "ffn", (gint64)p->ffn_hidden);
        member_int(b, "experts", p->n_experts);
        member_int(b, "top_k", p->top_k);
        member_int(b, "shared_experts", p->n_shared);
        member_int(b, "expert_ffn", (gint64)p->expert_hidden);
        member_int(b, "shared_ffn", (gint64)p->shared_hidden);
        json_builder_set_member_name(b, "capacity_factor");
        json_builder_add_double_value(b, p->capacity_factor);
        member_bool(b, "router_bias", p->router_bias);
        member_bool(b, "shared_gate", p->shared_gate);
        json_builder_set_member_name(b, "norm");
        json_builder_add_string_value(b, m->specs[i].norm == PRISM_NORM_RMSNORM ? "rmsnorm"
                                                                                : "layernorm");
        hybrid_json(b, &m->specs[i]);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

void prism_app_model_json(JsonBuilder *b, const PrismModel *m)
{
    json_builder_begin_object(b);
    summary_json(b, m);
    member_int(b, "max_positions", (gint64)m->max_positions);
    json_builder_set_member_name(b, "positions");
    json_builder_add_string_value(b, m->pos == PRISM_POS_ROPE ? "rope" : "learned");
    json_builder_set_member_name(b, "final_norm");
    json_builder_add_string_value(b, m->final_norm == PRISM_NORM_RMSNORM ? "rmsnorm" : "layernorm");
    member_bool(b, "head_bias", m->head_bias);
    specs_json(b, m);
    json_builder_set_member_name(b, "sequence");
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < m->n_layers; i++) {
        const PrismLayer *l = &m->layers[i];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, kind_names[l->kind]);
        if (l->kind == PRISM_LAYER_BLOCK || l->kind == PRISM_LAYER_MTP) {
            const PrismMlpSpec *p = &m->specs[l->spec].mlp;
            json_builder_set_member_name(b, "spec");
            json_builder_add_int_value(b, l->spec);
            json_builder_set_member_name(b, "experts");
            json_builder_add_int_value(b, p->n_experts);
            json_builder_set_member_name(b, "ffn");
            json_builder_add_int_value(b,
                                       (gint64)(p->n_experts ? p->expert_hidden : p->ffn_hidden));
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

gboolean prism_cmd_models(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx = g_option_context_new("[NAME|FILE]");
    g_option_context_set_summary(ctx, "List the built-in model zoo, or show one model (a zoo "
                                      "name or a Hugging Face config.json)\nwith its layer "
                                      "sequence and parameter breakdown.");
    prism_app_add_common_options(ctx, &o);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 2) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "prism models takes at most one NAME|FILE, got '%s' and '%s'", argv[1],
                    argv[2]);
        ok = FALSE;
    }
    PrismModel **models = NULL;
    size_t n = 0;
    if (ok && argc == 2) {
        models = g_new0(PrismModel *, 1);
        models[0] = prism_model_resolve(argv[1], error);
        n = 1;
        ok = models[0] != NULL;
    } else if (ok) {
        n = prism_model_zoo_size();
        models = g_new0(PrismModel *, n);
        for (size_t i = 0; ok && i < n; i++) {
            models[i] = prism_model_zoo_get(prism_model_zoo_name(i), error);
            ok = models[i] != NULL;
        }
    }
    FILE *out = prism_app_out(comm);
    if (ok && out != NULL) {
        if (o.json) {
            g_autoptr(JsonBuilder) b = json_builder_new();
            if (argc == 2) {
                prism_app_model_json(b, models[0]);
            } else {
                json_builder_begin_array(b);
                for (size_t i = 0; i < n; i++) {
                    json_builder_begin_object(b);
                    summary_json(b, models[i]);
                    json_builder_end_object(b);
                }
                json_builder_end_array(b);
            }
            prism_app_print_json(out, b);
        } else if (argc == 2) {
            print_one(out, models[0]);
        } else {
            print_table(out, models, n);
        }
    }
    for (size_t i = 0; i < n; i++)
        prism_model_free(models[i]);
    g_free(models);
    prism_common_options_clear(&o);
    return ok;
}
