// SPDX-License-Identifier: MIT
/*
 * model.c - the model IR: construction, validation and parameter counting.
 *
 * Parameter formulas (h = hidden, a = heads, g = KV heads, d = head dim):
 *   standard attention  Q,O: h*a*d each; K,V: h*g*d each; + biases
 *   MLA                 q: h*rq + rq*a*(dn+dr) (or h*a*(dn+dr) without q compression),
 *                       kv: h*(rkv+dr) + rkv*a*(dn+dv), o: a*dv*h, + the two LoRA norms
 *   dense MLP           GELU: 2*h*f (+ f + h biases); SwiGLU: 3*h*f
 *   MoE MLP             router h*E (+ E bias) + E experts + shared experts (each a
 *                       SwiGLU/GELU MLP) (+ h for a sigmoid shared-expert gate)
 *   norm                LayerNorm 2h, RMSNorm h
 *   extras              attention sinks a; q/k RMSNorms 2d (one weight vector each, shared
 *                       by the heads); output gate h*a*d; a sliding window has no parameters
 *   Mamba-2             (H heads of P, d_inner = H P, G groups, state N, conv K taps)
 *                       in_proj h*(2 d_inner + 2 G N + H), conv (d_inner + 2 G N)*K (+ as
 *                       many biases), dt_bias, A_log, D: 3H, gated norm d_inner, out_proj
 *                       d_inner*h (+ projection biases)
 *   gated DeltaNet      (Hk key heads of dk, Hv value heads of dv, conv K taps)
 *                       in_proj h*(2 Hk dk + 2 Hv dv + 2 Hv), conv (2 Hk dk + Hv dv)*K,
 *                       dt_bias, A_log: 2 Hv, gated norm dv, out_proj Hv dv * h
 *   a block             mixer + MLP + one norm per part present (hybrid layers hold one)
 * Not thread-safe for writes; nothing here is collective.
 */
#include <prism/model.h>

#include <string.h>

#include <prism/core.h>

PrismModel *prism_model_new(const char *name, const char *family)
{
    PrismModel *m = g_new0(PrismModel, 1);
    m->name = g_strdup(name);
    m->family = g_strdup(family);
    return m;
}

void prism_model_free(PrismModel *model)
{
    if (model == NULL)
        return;
    g_free(model->name);
    g_free(model->family);
    g_free(model->specs);
    g_free(model->layers);
    g_free(model);
}

PrismModel *prism_model_copy(const PrismModel *model)
{
    PrismModel *m = g_new(PrismModel, 1);
    *m = *model;
    m->name = g_strdup(model->name);
    m->family = g_strdup(model->family);
    m->specs = g_memdup2(model->specs, model->n_specs * sizeof *model->specs);
    m->layers = g_memdup2(model->layers, model->n_layers * sizeof *model->layers);
    return m;
}

/* Member by member: a memcmp of the structs would also compare PrismMlpSpec's padding
 * (4 bytes after n_shared), which a struct assignment may copy from the caller's
 * uninitialised stack; equal blocks could then become two kinds, and the sums over
 * kinds (count x value against a split count) differ in the last bits from run to run. */
static gboolean attn_equal(const PrismAttnSpec *a, const PrismAttnSpec *b)
{
    return a->kind == b->kind && a->n_heads == b->n_heads && a->n_kv_heads == b->n_kv_heads &&
           a->head_dim == b->head_dim && !a->qkv_bias == !b->qkv_bias &&
           !a->out_bias == !b->out_bias && a->q_lora_rank == b->q_lora_rank &&
           a->kv_lora_rank == b->kv_lora_rank && a->qk_nope_head_dim == b->qk_nope_head_dim &&
           a->qk_rope_head_dim == b->qk_rope_head_dim && a->v_head_dim == b->v_head_dim &&
           a->window == b->window && !a->sinks == !b->sinks && !a->qk_norm == !b->qk_norm &&
           !a->out_gate == !b->out_gate;
}

static gboolean ssm_equal(const PrismSsmSpec *a, const PrismSsmSpec *b)
{
    return a->n_heads == b->n_heads && a->head_dim == b->head_dim && a->state == b->state &&
           a->n_groups == b->n_groups && a->conv_kernel == b->conv_kernel && a->chunk == b->chunk &&
           !a->bias == !b->bias && !a->conv_bias == !b->conv_bias;
}

static gboolean mlp_equal(const PrismMlpSpec *a, const PrismMlpSpec *b)
{
    return a->act == b->act && !a->bias == !b->bias && a->ffn_hidden == b->ffn_hidden &&
           a->n_experts == b->n_experts && a->top_k == b->top_k && a->n_shared == b->n_shared &&
           a->expert_hidden == b->expert_hidden && a->shared_hidden == b->shared_hidden &&
           a->capacity_factor == b->capacity_factor && !a->router_bias == !b->router_bias &&
           !a->shared_gate == !b->shared_gate;
}

uint32_t prism_model_add_spec(PrismModel *model, const PrismBlockSpec *spec)
{
    for (uint32_t i = 0; i < model->n_specs; i++) {
        const PrismBlockSpec *k = &model->specs[i];
        if (attn_equal(&k->attn, &spec->attn) && mlp_equal(&k->mlp, &spec->mlp) &&
            k->norm == spec->norm && k->mixer == spec->mixer && ssm_equal(&k->ssm, &spec->ssm) &&
            !k->no_mlp == !spec->no_mlp)
            return i;
    }
    model->specs = g_renew(PrismBlockSpec, model->specs, model->n_specs + 1);
    PrismBlockSpec *dst = &model->specs[model->n_specs];
    memset(dst, 0, sizeof *dst);
    dst->attn = spec->attn;
    dst->mlp = spec->mlp;
    dst->norm = spec->norm;
    dst->mixer = spec->mixer;
    dst->ssm = spec->ssm;
    dst->no_mlp = spec->no_mlp;
    return model->n_specs++;
}

void prism_model_add_layer(PrismModel *model, PrismLayerKind kind, uint32_t spec)
{
    model->layers = g_renew(PrismLayer, model->layers, model->n_layers + 1);
    model->layers[model->n_layers].kind = kind;
    model->layers[model->n_layers].spec = spec;
    model->n_layers++;
}

static double norm_params(PrismNormKind k, double h)
{
    return k == PRISM_NORM_LAYERNORM ? 2.0 * h : h;
}

double prism_attn_params(const PrismAttnSpec *a, uint64_t hidden)
{
    double h = (double)hidden, nh = a->n_heads;
    if (a->kind == PRISM_ATTN_MLA) {
        double dn = a->qk_nope_head_dim, dr = a->qk_rope_head_dim, dv = a->v_head_dim;
        double rq = a->q_lora_rank, rkv = a->kv_lora_rank;
        double q = rq > 0 ? h * rq + rq + rq * nh * (dn + dr) /* down, norm, up */
                          : h * nh * (dn + dr);
        double kv = h * (rkv + dr) + rkv + rkv * nh * (dn + dv);
        double o = nh * dv * h + (a->out_bias ? h : 0.0);
        return q + kv + o;
    }
    double d = a->head_dim, g = a->n_kv_heads;
    double w = h * nh * d * 2.0 + h * g * d * 2.0; /* Q, O and K, V */
    double b = (a->qkv_bias ? nh * d + 2.0 * g * d : 0.0) + (a->out_bias ? h : 0.0);
    double extra =
        (a->sinks ? nh : 0.0) + (a->qk_norm ? 2.0 * d : 0.0) + (a->out_gate ? h * nh * d : 0.0);
    return w + b + extra;
}

double prism_ssm_params(PrismMixerKind mixer, const PrismSsmSpec *s, uint64_t hidden)
{
    const double h = (double)hidden, H = s->n_heads, P = s->head_dim, N = s->state;
    const double G = s->n_groups, K = s->conv_kernel;
    if (mixer == PRISM_MIXER_MAMBA2) {
        const double di = H * P, conv = di + 2.0 * G * N, in = 2.0 * di + 2.0 * G * N + H;
        return h * in + (s->bias ? in : 0.0) + conv * K + (s->conv_bias ? conv : 0.0) + 3.0 * H +
               di + di * h + (s->bias ? h : 0.0);
    }
    if (mixer == PRISM_MIXER_GDN) {
        const double qk = G * N, v = H * P; /* key heads x key dim, value heads x value dim */
        return h * (2.0 * qk + 2.0 * v + 2.0 * H) + (2.0 * qk + v) * K + 2.0 * H + P + v * h;
    }
    return 0.0;
}

uint32_t prism_block_norms(const PrismBlockSpec *s)
{
    return (s->mixer != PRISM_MIXER_NONE ? 1u : 0u) + (s->no_mlp ? 0u : 1u);
}

/* The mixer's parameters (attention or SSM). */
static double mixer_params(const PrismBlockSpec *s, uint64_t hidden)
{
    if (s->mixer == PRISM_MIXER_ATTENTION)
        return prism_attn_params(&s->attn, hidden);
    return prism_ssm_params(s->mixer, &s->ssm, hidden);
}

/* One MLP of width f: GELU up+down, SwiGLU gate+up+down. */
static double mlp_params(PrismMlpAct act, gboolean bias, double h, double f)
{
    if (act == PRISM_MLP_SWIGLU)
        return 3.0 * h * f + (bias ? 2.0 * f + h : 0.0);
    return 2.0 * h * f + (bias ? f + h : 0.0);
}

double prism_block_expert_params(const PrismBlockSpec *s, uint64_t hidden)
{
    const PrismMlpSpec *m = &s->mlp;
    if (m->n_experts == 0 || s->no_mlp)
        return 0.0;
    return (double)m->n_experts *
           mlp_params(m->act, m->bias, (double)hidden, (double)m->expert_hidden);
}

double prism_block_params(const PrismBlockSpec *s, uint64_t hidden)
{
    const PrismMlpSpec *m = &s->mlp;
    double h = (double)hidden;
    double p = mixer_params(s, hidden) + prism_block_norms(s) * norm_params(s->norm, h);
    if (s->no_mlp)
        return p;
    if (m->n_experts == 0)
        return p + mlp_params(m->act, m->bias, h, (double)m->ffn_hidden);
    double shared_f = m->shared_hidden ? (double)m->shared_hidden : (double)m->expert_hidden;
    double router = (h + (m->router_bias ? 1.0 : 0.0)) * m->n_experts;
    double gate = m->shared_gate && m->n_shared > 0 ? h : 0.0;
    return p + router + prism_block_expert_params(s, hidden) +
           (double)m->n_shared * mlp_params(m->act, m->bias, h, shared_f) + gate;
}

/* Parameters one token touches in a block: attention, norms, top-k + shared experts. */
static double block_active_params(const PrismBlockSpec *s, uint64_t hidden)
{
    const PrismMlpSpec *m = &s->mlp;
    if (m->n_experts == 0 || s->no_mlp)
        return prism_block_params(s, hidden);
    double per_expert = prism_block_expert_params(s, hidden) / m->n_experts;
    return prism_block_params(s, hidden) - prism_block_expert_params(s, hidden) +
           (double)m->top_k * per_expert;
}

void prism_model_params(const PrismModel *model, PrismParamCount *out)
{
    memset(out, 0, sizeof *out);
    double h = (double)model->hidden, v = (double)model->vocab;
    for (uint32_t i = 0; i < model->n_layers; i++) {
        const PrismLayer *l = &model->layers[i];
        const PrismBlockSpec *s = l->kind == PRISM_LAYER_BLOCK || l->kind == PRISM_LAYER_MTP
                                      ? &model->specs[l->spec]
                                      : NULL;
        switch (l->kind) {
        case PRISM_LAYER_EMBEDDING:
            out->embedding += v * h;
            if (model->pos == PRISM_POS_LEARNED)
                out->embedding += (double)model->max_positions * h;
            out->active += out->embedding;
            break;
        case PRISM_LAYER_BLOCK:
            out->blocks += prism_block_params(s, model->hidden);
            out->experts += prism_block_expert_params(s, model->hidden);
            out->active += block_active_params(s, model->hidden);
            break;
        case PRISM_LAYER_MTP: {
            /* DeepSeek-V3 MTP module: two RMSNorms, a 2h->h projection, one block;
             * embedding and head are shared with the main model. */
            double extra = 2.0 * norm_params(s->norm, h) + 2.0 * h * h;
            out->mtp += extra + prism_block_params(s, model->hidden);
            out->experts += prism_block_expert_params(s, model->hidden);
            out->active += extra + block_active_params(s, model->hidden);
            out->mtp_active += extra + block_active_params(s, model->hidden);
            break;
        }
        case PRISM_LAYER_FINAL_NORM:
            out->head += norm_params(model->final_norm, h);
            out->active += norm_params(model->final_norm, h);
            break;
        case PRISM_LAYER_HEAD: {
            double p = (model->tied_embeddings ? 0.0 : v * h) + (model->head_bias ? v : 0.0);
            out->head += p;
            out->active += p;
            break;
        }
        }
    }
    out->total = out->embedding + out->blocks + out->mtp + out->head;
}

uint32_t prism_model_n_blocks(const PrismModel *model)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < model->n_layers; i++)
        n += model->layers[i].kind == PRISM_LAYER_BLOCK;
    return n;
}

uint32_t prism_model_n_mtp(const PrismModel *model)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < model->n_layers; i++)
        n += model->layers[i].kind == PRISM_LAYER_MTP;
    return n;
}

gboolean prism_model_is_moe(const PrismModel *model)
{
    return prism_model_max_experts(model) > 0;
}

uint32_t prism_model_max_experts(const PrismModel *model)
{
    uint32_t e = 0;
    for (uint32_t i = 0; i < model->n_specs; i++)
        e = MAX(e, model->specs[i].mlp.n_experts);
    return e;
}

static gboolean fail(GError **error, const PrismModel *m, const char *field, double value,
                     const char *allowed)
{
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "model '%s': %s = %g is invalid (%s)", m->name ? m->name : "?", field, value,
                allowed);
    return FALSE;
}

/* The mixer kind and the SSM shape of one spec. */
static gboolean ssm_validate(const PrismModel *m, const PrismBlockSpec *sp, GError **error)
{
    const PrismSsmSpec *s = &sp->ssm;
    if ((unsigned)sp->mixer > PRISM_MIXER_NONE)
        return fail(error, m, "mixer", sp->mixer,
                    "0 attention, 1 Mamba-2, 2 gated DeltaNet, 3 none");
    if (sp->mixer == PRISM_MIXER_NONE && sp->no_mlp)
        return fail(error, m, "block", 0, "a block needs a mixer or an MLP");
    if (sp->mixer != PRISM_MIXER_MAMBA2 && sp->mixer != PRISM_MIXER_GDN)
        return TRUE;
    const gboolean mamba = sp->mixer == PRISM_MIXER_MAMBA2;
    if (s->n_heads == 0)
        return fail(error, m, mamba ? "mamba_num_heads" : "linear_num_value_heads", 0,
                    "must be > 0");
    if (s->head_dim == 0)
        return fail(error, m, mamba ? "mamba_head_dim" : "linear_value_head_dim", 0, "must be > 0");
    if (s->state == 0)
        return fail(error, m, mamba ? "ssm_state_size" : "linear_key_head_dim", 0, "must be > 0");
    if (s->n_groups == 0 || s->n_heads % s->n_groups != 0)
        return fail(error, m, mamba ? "n_groups" : "linear_num_key_heads", s->n_groups,
                    mamba ? "must be > 0 and divide mamba_num_heads"
                          : "must be > 0 and divide linear_num_value_heads");
    if (s->conv_kernel == 0)
        return fail(error, m, mamba ? "conv_kernel" : "linear_conv_kernel_dim", 0, "must be > 0");
    if (s->chunk == 0)
        return fail(error, m, "chunk_size", 0, "must be > 0");
    return TRUE;
}

gboolean prism_model_validate(const PrismModel *m, GError **error)
{
    if (m->hidden == 0)
        return fail(error, m, "hidden", 0, "must be > 0");
    if (m->vocab == 0)
        return fail(error, m, "vocab", 0, "must be > 0");
    if (m->pos == PRISM_POS_LEARNED && m->max_positions == 0)
        return fail(error, m, "max_positions", 0, "must be > 0 with learned positions");
    if (m->n_layers < 3 || m->layers[0].kind != PRISM_LAYER_EMBEDDING ||
        m->layers[m->n_layers - 1].kind != PRISM_LAYER_HEAD)
        return fail(error, m, "layers", m->n_layers,
                    "the sequence must start with the embedding and end with the head");
    if (prism_model_n_blocks(m) == 0)
        return fail(error, m, "num_hidden_layers", 0, "must be > 0");
    for (uint32_t i = 0; i < m->n_layers; i++) {
        const PrismLayer *l = &m->layers[i];
        if ((l->kind == PRISM_LAYER_BLOCK || l->kind == PRISM_LAYER_MTP) && l->spec >= m->n_specs)
            return fail(error, m, "layer spec", l->spec, "index out of range");
    }
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const PrismAttnSpec *a = &m->specs[i].attn;
        const PrismMlpSpec *p = &m->specs[i].mlp;
        const PrismBlockSpec *sp = &m->specs[i];
        if (!ssm_validate(m, sp, error))
            return FALSE;
        if (sp->mixer == PRISM_MIXER_ATTENTION) {
            if (a->n_heads == 0)
                return fail(error, m, "num_attention_heads", 0, "must be > 0");
            if (a->kind == PRISM_ATTN_STANDARD) {
                if (a->head_dim == 0)
                    return fail(error, m, "head_dim", 0, "must be > 0");
                if (a->n_kv_heads == 0 || a->n_heads % a->n_kv_heads != 0)
                    return fail(error, m, "num_key_value_heads", a->n_kv_heads,
                                "must be > 0 and divide num_attention_heads");
            } else if (a->kv_lora_rank == 0 || a->v_head_dim == 0 ||
                       a->qk_nope_head_dim + a->qk_rope_head_dim == 0) {
                return fail(error, m, "kv_lora_rank/v_head_dim/qk_*_head_dim", 0,
                            "MLA needs kv_lora_rank, v_head_dim and q/k head dims > 0");
            }
        }
        if (sp->no_mlp)
            continue;
        if (p->n_experts == 0 && p->ffn_hidden == 0)
            return fail(error, m, "intermediate_size", 0, "must be > 0");
        if (p->n_experts > 0) {
            if (p->expert_hidden == 0)
                return fail(error, m, "moe_intermediate_size", 0, "must be > 0");
            if (p->top_k == 0 || p->top_k > p->n_experts)
                return fail(error, m, "num_experts_per_tok", p->top_k,
                            "must be between 1 and the number of routed experts");
            if (p->capacity_factor < 0)
                return fail(error, m, "capacity_factor", p->capacity_factor, "must be >= 0");
        }
    }
    return TRUE;
}
