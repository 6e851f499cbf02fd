// SPDX-License-Identifier: MIT
/*
 * fwconfig.c - strategy <-> framework configuration (fwconfig.h). Each target has one
 * emitter and one reader over the same key names, so that reading what was emitted gives
 * the strategy back; the names and value conventions are the frameworks' own at the
 * versions prism_fw_target_version() states (tests/data/fwconfig/ lists them with the
 * source file they were read from).
 */
#include "fwconfig-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <prism/core.h>
#include <prism/fwconfig.h>

static const char *const target_names[PRISM_FWC_COUNT] = {"megatron", "nemo", "torchtitan",
                                                          "deepspeed", "nanotron"};

static const char *const target_versions[PRISM_FWC_COUNT] = {
    "Megatron-LM megatron/training/arguments.py as shipped with Megatron-Core 0.14",
    "Megatron-Bridge (NeMo 2.x) recipe overrides over Megatron-Core 0.14 configs",
    "torchtitan torchtitan/config/job_config.py (2025, torch.distributed.pipelining schedules)",
    "DeepSpeed ds_config (deepspeed/runtime/constants.py, zero/config.py) with "
    "microsoft/Megatron-DeepSpeed megatron/arguments.py (its layout with "
    "--checkpoint-activations and --zero-stage, before Megatron-LM's sequence parallelism)",
    "nanotron src/nanotron/config/config.py and parallelism_config.py (2025)",
};

static const char *const target_profiles[PRISM_FWC_COUNT] = {
    "megatron-core", "megatron-core", "pytorch-fsdp", "megatron-deepspeed", "nanotron"};

const char *prism_fw_target_name(PrismFwTarget t)
{
    return t < PRISM_FWC_COUNT ? target_names[t] : "?";
}

const char *prism_fw_target_version(PrismFwTarget t)
{
    return t < PRISM_FWC_COUNT ? target_versions[t] : "?";
}

const char *prism_fw_target_profile(PrismFwTarget t)
{
    return t < PRISM_FWC_COUNT ? target_profiles[t] : NULL;
}

gboolean prism_fw_target_parse(const char *text, PrismFwTarget *out, GError **error)
{
    static const struct {
        const char *alias;
        PrismFwTarget t;
    } aliases[] = {{"megatron-lm", PRISM_FWC_MEGATRON},
                   {"megatron-core", PRISM_FWC_MEGATRON},
                   {"megatron-bridge", PRISM_FWC_NEMO},
                   {"megatron-deepspeed", PRISM_FWC_DEEPSPEED},
                   {"titan", PRISM_FWC_TORCHTITAN}};
    for (int t = 0; t < PRISM_FWC_COUNT; t++)
        if (text && g_ascii_strcasecmp(text, target_names[t]) == 0) {
            *out = (PrismFwTarget)t;
            return TRUE;
        }
    for (size_t i = 0; i < G_N_ELEMENTS(aliases); i++)
        if (text && g_ascii_strcasecmp(text, aliases[i].alias) == 0) {
            *out = aliases[i].t;
            return TRUE;
        }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown framework '%s' (allowed: megatron, nemo, torchtitan, deepspeed, nanotron)",
                text ? text : "");
    return FALSE;
}

/* ------------------------------------------------------------------ model facts */

typedef struct {
    uint32_t blocks; /* transformer blocks (no MTP) */
    uint32_t split;  /* layers split over the pipeline (blocks + MTP) */
    uint32_t heads, kv_heads, experts;
    uint64_t hidden, ffn;
} Shape;

static Shape shape_of(const PrismModel *m)
{
    Shape sh = {.split = prism_model_split_layers(m), .hidden = m->hidden};
    for (uint32_t i = 0; i < m->n_layers; i++) {
        if (m->layers[i].kind != PRISM_LAYER_BLOCK)
            continue;
        sh.blocks++;
        const PrismBlockSpec *b = &m->specs[m->layers[i].spec];
        if (sh.heads == 0 && b->mixer == PRISM_MIXER_ATTENTION) {
            sh.heads = b->attn.n_heads;
            sh.kv_heads = b->attn.n_kv_heads;
        }
        if (b->mlp.n_experts > sh.experts)
            sh.experts = b->mlp.n_experts;
        if (sh.ffn == 0 && b->mlp.ffn_hidden > 0)
            sh.ffn = b->mlp.ffn_hidden;
    }
    return sh;
}

/* floor(L / chunks) each and one more on chunks 1, 2, ... while the remainder lasts, the
 * last chunk only when every other has one (torchtitan's generate_split_points, "Middle
 * stages get an extra layer"; cost.h prism_layout_default, the split prism prices). */
uint32_t prism_fw_chunk_layers(uint32_t layers, uint32_t chunks, uint32_t j)
{
    if (chunks == 0)
        return 0;
    const uint32_t rem = layers % chunks;
    return layers / chunks + (rem > 0 && j >= 1 && j <= rem ? 1u : 0u);
}

/* ------------------------------------------------------------------ emit helpers */

gboolean prism_fw_refuse(GError **error, PrismFwTarget t, const char *why)
{
    const char *name = prism_fw_target_name(t);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                "--emit %s: %s cannot run this strategy: %s", name, name, why);
    return FALSE;
}

static gboolean refuse(GError **error, PrismFwTarget t, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static gboolean refuse(GError **error, PrismFwTarget t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return prism_fw_refuse(error, t, why);
}

static uint32_t etp_of(const PrismStrategy *s)
{
    return prism_strategy_etp(s);
}

static gboolean overlap_on(const PrismStrategy *s, PrismOverlap bit)
{
    return prism_strategy_overlap_applies(s, bit) && !(s->overlap_off & bit);
}

/* Overlap bits the target has no switch for must be clear. */
static gboolean check_overlap(PrismFwTarget t, const PrismStrategy *s, unsigned expressible,
                              GError **error)
{
    unsigned bad = s->overlap_off & ~expressible & PRISM_OVERLAP_ALL;
    if (bad)
        return refuse(error, t,
                      "it has no switch to turn off %s overlap (its profile's knobs say how much "
                      "it hides)",
                      bad & PRISM_OVERLAP_TP   ? "tensor-parallel"
                      : bad & PRISM_OVERLAP_DP ? "gradient-reduce"
                                               : "parameter-gather");
    return TRUE;
}

static void header(GString *o, PrismFwTarget t, const PrismStrategy *s, const PrismTraining *tr,
                   const PrismModel *m, const char *cc)
{
    g_autofree char *st = prism_strategy_format(s);
    g_string_append_printf(o, "%s %s configuration written by prism\n", cc, target_names[t]);
    g_string_append_printf(o, "%s follows %s\n", cc, target_versions[t]);
    g_string_append_printf(
        o, "%s model %s, %u devices, gbs %" G_GUINT64_FORMAT ", seq %" G_GUINT64_FORMAT ", %s\n",
        cc, m->name, s->devices, tr->gbs, tr->seq, prism_dtype_name(tr->dtype));
    g_string_append_printf(o, "%s strategy %s\n", cc, st);
}

/* ------------------------------------------------------------------ Megatron and NeMo */

/* The Megatron-Core settings both spell: Megatron-LM as arguments, Megatron-Bridge as
 * overrides of the config dataclass fields. */
typedef struct {
    const char *tp, *pp, *vpp, *cp, *ep, *etp, *sp, *mbs, *gbs, *seq, *rc_gran, *rc_method,
        *rc_layers, *distopt, *fsdp, *fsdp_strategy, *cpu_offload, *tp_overlap, *grad_overlap,
        *param_overlap, *bf16, *fp16, *fp8, *fp8_recipe, *layers, *hidden, *heads, *groups, *ffn,
        *experts, *first, *last, *acc_emb, *acc_loss, *layout;
} McoreNames;

static const McoreNames megatron_names = {"--tensor-model-parallel-size",
                                          "--pipeline-model-parallel-size",
                                          "--num-virtual-stages-per-pipeline-rank",
                                          "--context-parallel-size",
                                          "--expert-model-parallel-size",
                                          "--expert-tensor-parallel-size",
                                          "--sequence-parallel",
                                          "--micro-batch-size",
                                          "--global-batch-size",
                                          "--seq-length",
                                          "--recompute-granularity",
                                          "--recompute-method",
                                          "--recompute-num-layers",
                                          "--use-distributed-optimizer",
                                          "--use-megatron-fsdp",
                                          "--data-parallel-sharding-strategy",
                                          "--optimizer-cpu-offload",
                                          "--tp-comm-overlap",
                                          "--overlap-grad-reduce",
                                          "--overlap-param-gather",
                                          "--bf16",
                                          "--fp16",
                                          "--fp8-format",
                                          "--fp8-recipe",
                                          "--num-layers",
                                          "--hidden-size",
                                          "--num-attention-heads",
                                          "--num-query-groups",
                                          "--ffn-hidden-size",
                                          "--num-experts",
                                          "--decoder-first-pipeline-num-layers",
                                          "--decoder-last-pipeline-num-layers",
                                          "--account-for-embedding-in-pipeline-split",
                                          "--account-for-loss-in-pipeline-split",
                                          "--pipeline-model-parallel-layout"};

static const McoreNames nemo_names = {"model.tensor_model_parallel_size",
                                      "model.pipeline_model_parallel_size",
                                      "model.virtual_pipeline_model_parallel_size",
                                      "model.context_parallel_size",
                                      "model.expert_model_parallel_size",
                                      "model.expert_tensor_parallel_size",
                                      "model.sequence_parallel",
                                      "train.micro_batch_size",
                                      "train.global_batch_size",
                                      "model.seq_length",
                                      "model.recompute_granularity",
                                      "model.recompute_method",
                                      "model.recompute_num_layers",
                                      "ddp.use_distributed_optimizer",
                                      "ddp.use_megatron_fsdp",
                                      "ddp.data_parallel_sharding_strategy",
                                      "optimizer.optimizer_cpu_offload",
                                      "comm_overlap.tp_comm_overlap",
                                      "comm_overlap.overlap_grad_reduce",
                                      "comm_overlap.overlap_param_gather",
                                      "mixed_precision.bf16",
                                      "mixed_precision.fp16",
                                      "mixed_precision.fp8",
                                      "mixed_precision.fp8_recipe",
                                      "model.num_layers",
                                      "model.hidden_size",
                                      "model.num_attention_heads",
                                      "model.num_query_groups",
                                      "model.ffn_hidden_size",
                                      "model.num_moe_experts",
                                      "model.num_layers_in_first_pipeline_stage",
                                      "model.num_layers_in_last_pipeline_stage",
                                      "model.account_for_embedding_in_pipeline_split",
                                      "model.account_for_loss_in_pipeline_split",
                                      "model.pipeline_model_parallel_layout"};

/* The flags of Megatron-LM (store_true) among the names above and those read back. */
static const char *const megatron_flags[] = {"--sequence-parallel",
                                             "--use-distributed-optimizer",
                                             "--use-megatron-fsdp",
                                             "--use-torch-fsdp2",
                                             "--optimizer-cpu-offload",
                                             "--tp-comm-overlap",
                                             "--overlap-grad-reduce",
                                             "--overlap-param-gather",
                                             "--bf16",
                                             "--fp16",
                                             "--group-query-attention",
                                             "--deepspeed",
                                             "--no-pipeline-parallel",
                                             "--checkpoint-activations",
                                             "--recompute-activations",
                                             "--swiglu",
                                             "--use-flash-attn",
                                             "--disable-bias-linear",
                                             "--untie-embeddings-and-output-weights",
                                             "--use-mcore-models",
                                             "--use-rotary-position-embeddings",
                                             "--mock-data",
                                             "--account-for-embedding-in-pipeline-split",
                                             "--account-for-loss-in-pipeline-split",
                                             NULL};

/* Write "name value" (args) or "name=value" (overrides); value NULL = a flag (args) or
 * "true" (overrides). */
static void kv(GString *o, gboolean args, const char *name, const char *value)
{
    if (args)
        g_string_append_printf(o, "%s%s%s \\\n", name, value ? " " : "", value ? value : "");
    else
        g_string_append_printf(o, "%s=%s\n", name, value ? value : "true");
}

static void kvu(GString *o, gboolean args, const char *name, uint64_t v)
{
    char buf[32];
    g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT, v);
    kv(o, args, name, buf);
}

/* A boolean setting: args write the flag only when on; overrides write true/false. */
static void kvb(GString *o, gboolean args, const char *name, gboolean on)
{
    if (args) {
        if (on)
            kv(o, args, name, NULL);
    } else
        kv(o, args, name, on ? "true" : "false");
}

static const char *fp8_recipe_name(PrismDtype d)
{
    return d == PRISM_DTYPE_FP8 ? "delayed" : d == PRISM_DTYPE_FP8_CS ? "tensorwise" : "mxfp8";
}

static gboolean is_fp8(PrismDtype d)
{
    return d == PRISM_DTYPE_FP8 || d == PRISM_DTYPE_FP8_CS || d == PRISM_DTYPE_MXFP8;
}

/* Megatron-Core's placement of the decoder layers over the pipeline (Megatron-Core 0.14:
 * transformer_config.py __post_init__ checks, transformer_layer.py
 * get_transformer_layer_offset, transformer_block.py get_num_layers_to_build). Either
 *  - num_layers_in_first/last_pipeline_stage: that many layers on the first (last) stage,
 *    each > 0 and a multiple of vpp, the rest evenly over the middle stages (a multiple of
 *    their count, and per stage a multiple of vpp; none left over when there is no middle
 *    stage), each stage's layers evenly over its vpp model chunks, so every virtual stage
 *    is alike (--num-layers-per-virtual-pipeline-stage refuses them: arguments.py); or
 *  - account_for_embedding/loss_in_pipeline_split: the embedding (the loss) counted as a
 *    layer, num_layers + 1 (+ 1) evenly over the pp*vpp chunks, the first (last) chunk
 *    holding one decoder layer fewer; it cannot be combined with the first/last counts;
 *  - neither: num_layers evenly over the pp*vpp chunks. */
typedef struct {
    uint32_t first, last; /* 0: not given */
    gboolean emb, loss;
} McoreSplit;

/* The decoder layers of each of the pp*vpp chunks @p m (chunk c of stage s at c*pp+s) that
 * @p sp places of @p L; FALSE with what Megatron-Core allows in @p why. */
static gboolean mcore_split_chunks(const McoreSplit *sp, uint32_t L, uint32_t pp, uint32_t vpp,
                                   uint32_t *m, GString *why)
{
    const uint32_t C = pp * vpp;
    if (sp->first || sp->last) {
        const uint32_t mid = pp - (sp->first ? 1 : 0) - (sp->last ? 1 : 0);
        const uint64_t ends = (uint64_t)sp->first + sp->last;
        const uint32_t rest = ends <= L ? L - (uint32_t)ends : 0;
        if (sp->emb || sp->loss)
            g_string_append(why, "the first/last stage layer counts exclude counting the "
                                 "embedding or the loss as a layer");
        else if (pp < 2)
            g_string_append(why, "first/last stage layer counts need a pipeline size > 1");
        else if (sp->first % vpp || sp->last % vpp)
            g_string_append_printf(why,
                                   "the first/last stage layer counts must be multiples of "
                                   "the %u virtual stages",
                                   vpp);
        else if (ends > L || (mid == 0 && rest != 0) ||
                 (mid > 0 && (rest == 0 || rest % ((uint64_t)mid * vpp) != 0)))
            g_string_append_printf(why,
                                   "the %u layers left for the %u middle stages must be a "
                                   "positive multiple of %u (%u stages x %u virtual stages)",
                                   rest, mid, mid * vpp, mid, vpp);
        if (why->len > 0)
            return FALSE;
        for (uint32_t c = 0; c < vpp; c++)
            for (uint32_t st = 0; st < pp; st++)
                m[c * pp + st] = (st == 0 && sp->first)       ? sp->first / vpp
                                 : (st == pp - 1 && sp->last) ? sp->last / vpp
                                                              : rest / (mid * vpp);
        return TRUE;
    }
    const uint32_t n = L + (sp->emb ? 1 : 0) + (sp->loss ? 1 : 0);
    if (n % C != 0 || n / C < (uint32_t)(sp->emb && sp->loss && C == 1 ? 2 : 1)) {
        g_string_append_printf(why,
                               "%u layers%s do not divide evenly over pp*vpp = %u model chunks", n,
                               sp->emb || sp->loss ? " (with the embedding/loss counted)" : "", C);
        return FALSE;
    }
    for (uint32_t j = 0; j < C; j++)
        m[j] = n / C;
    m[0] -= sp->emb ? 1 : 0;
    m[C - 1] -= sp->loss ? 1 : 0;
    return TRUE;
}

/* What Megatron-Core allows, for refusals. */
#define MCORE_SPLITS                                                                               \
    "Megatron-Core places the layers evenly over the pp*vpp model chunks; or with first and "      \
    "last stage counts (--decoder-first/last-pipeline-num-layers) and equal middle stages, "       \
    "every virtual stage alike; or with one layer fewer on the first and/or last chunk "           \
    "(--account-for-embedding/loss-in-pipeline-split); or any split as "                           \
    "--pipeline-model-parallel-layout (Megatron-Core 0.13 and later), the MTP layers in the "      \
    "last virtual stage of a pipeline rank"

/* The McoreSplit that places the decoder layers @p m (pp*vpp chunks) of @p L; FALSE when
 * none does. Each candidate is checked by building it (mcore_split_chunks). */
static gboolean mcore_split_of(const uint32_t *m, uint32_t L, uint32_t pp, uint32_t vpp,
                               McoreSplit *out)
{
    const uint32_t C = pp * vpp;
    uint32_t big = 0;
    for (uint32_t j = 0; j < C; j++)
        big = MAX(big, m[j]);
    const uint32_t mid = pp > 2 ? m[1] : 0;
    const McoreSplit cand[] = {
        {0},
        {.first = pp == 2 || m[0] != mid ? m[0] * vpp : 0,
         .last = pp == 2 || m[pp - 1] != mid ? m[pp - 1] * vpp : 0},
        {.emb = m[0] + 1 == big, .loss = m[C - 1] + 1 == big},
    };
    g_autofree uint32_t *got = g_new(uint32_t, C);
    g_autoptr(GString) why = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(cand); i++) {
        g_string_truncate(why, 0);
        if (pp < 2 && i == 1)
            continue;
        if (mcore_split_chunks(&cand[i], L, pp, vpp, got, why) &&
            memcmp(got, m, C * sizeof *m) == 0) {
            *out = cand[i];
            return TRUE;
        }
    }
    return FALSE;
}

/* Megatron-Core's --pipeline-model-parallel-layout (Megatron-Core 0.13 and later:
 * megatron/core/transformer/pipeline_parallel_layer_layout.py, parse_str_to_list and
 * validate_layer_layout) of the pp*vpp chunks in pipeline order: chunk j holds @p dec[j]
 * decoder layers; the embedding (E) opens chunk 0, the loss (L) closes the last chunk and
 * the @p mtp MTP layers (m) follow the decoder layers of chunk @p jm. Each chunk is
 * written "t*k" (k decoder layers), the parts of a chunk joined by the cosmetic ',', the
 * chunks by '|', and a run of r equal chunks before the last as "(chunk|)*r": pp 2 x vpp 3
 * over 5,6,6,5,5,5 layers is "E,t*5|(t*6|)*2,(t*5|)*2,t*5,L". */
static char *mcore_layout_string(const uint32_t *dec, uint32_t C, uint32_t jm, uint32_t mtp)
{
    g_autoptr(GPtrArray) tok = g_ptr_array_new_with_free_func(g_free);
    for (uint32_t j = 0; j < C; j++) {
        GString *t = g_string_new(j == 0 ? "E" : "");
        if (dec[j] > 0)
            g_string_append_printf(t, "%st", t->len ? "," : "");
        if (dec[j] > 1)
            g_string_append_printf(t, "*%u", dec[j]);
        if (j == jm && mtp > 0)
            g_string_append_printf(t, "%sm", t->len ? "," : "");
        if (j == jm && mtp > 1)
            g_string_append_printf(t, "*%u", mtp);
        if (j == C - 1)
            g_string_append_printf(t, "%sL", t->len ? "," : "");
        g_ptr_array_add(tok, g_string_free(t, FALSE));
    }
    GString *o = g_string_new(NULL);
    for (uint32_t j = 0; j < C;) {
        uint32_t r = 1;
        while (j + r < C - 1 && strcmp(tok->pdata[j], tok->pdata[j + r]) == 0)
            r++;
        const char *t = tok->pdata[j];
        if (o->len > 0 && o->str[o->len - 1] != '|' && *t)
            g_string_append_c(o, ','); /* after a run */
        if (r > 1)
            g_string_append_printf(o, "(%s|)*%u", t, r);
        else
            g_string_append_printf(o, "%s%s", t, j + 1 < C ? "|" : "");
        j += r;
    }
    return g_string_free(o, FALSE);
}

/* The split of @p chunks (split layers per chunk) as Megatron-Core's settings: the first
 * and last stage counts or the embedding/loss counted as a layer where they build it
 * (*out), else as a --pipeline-model-parallel-layout string (*layout, g_free). MTP layers
 * sit after the decoder layers of the last chunk holding layers (Megatron-Core builds them
 * outside num_layers; without a layout on the last stage, with one in the last virtual
 * stage of a pipeline rank); a split that leaves them elsewhere is refused naming it. */
static gboolean mcore_split_emit(PrismFwTarget t, const PrismStrategy *s, const Shape *sh,
                                 const uint32_t *chunks, McoreSplit *out, char **layout,
                                 GError **error)
{
    const uint32_t C = s->pp * s->vpp, mtp = sh->split - sh->blocks;
    g_autofree uint32_t *m = g_memdup2(chunks, C * sizeof *chunks);
    uint32_t jm = C - 1;
    while (mtp > 0 && jm > 0 && m[jm] == 0)
        jm--;
    *layout = NULL;
    if (m[jm] >= mtp && jm >= (s->vpp - 1) * s->pp) {
        m[jm] -= mtp;
        if (jm == C - 1 && mcore_split_of(m, sh->blocks, s->pp, s->vpp, out))
            return TRUE;
        *layout = mcore_layout_string(m, C, jm, mtp);
        return TRUE;
    }
    g_autoptr(GString) list = g_string_new(NULL);
    for (uint32_t j = 0; j < C; j++)
        g_string_append_printf(list, "%s%u", j ? "," : "", chunks[j]);
    return refuse(error, t,
                  "its split of the %u layers over pp*vpp = %u*%u model chunks, %s in pipeline "
                  "order, puts its %u MTP layers %s (%s)",
                  sh->split, s->pp, s->vpp, list->str, mtp,
                  m[jm] < mtp ? "over more than one chunk" : "outside the last virtual stage",
                  MCORE_SPLITS);
}

static gboolean emit_mcore(PrismFwTarget t, const McoreNames *n, gboolean args, GString *o,
                           const PrismStrategy *s, const PrismTraining *tr, const PrismModel *m,
                           const Shape *sh, const uint32_t *chunks, GError **error)
{
    if (!check_overlap(t, s, PRISM_OVERLAP_ALL, error))
        return FALSE;
    McoreSplit split = {0};
    g_autofree char *layout = NULL;
    if (!mcore_split_emit(t, s, sh, chunks, &split, &layout, error))
        return FALSE;
    const char *cc = "#";
    header(o, t, s, tr, m, cc);
    if (args)
        g_string_append_printf(o,
                               "# world size %u = data parallel %u x tensor %u x pipeline %u x "
                               "context %u (torchrun --nnodes x --nproc-per-node)\n",
                               s->devices, s->dp, s->tp, s->pp, s->cp);
    else
        g_string_append(o, "# one override per line, for a recipe script's command line\n");
    if (layout != NULL)
        g_string_append_printf(o,
                               "# pipeline layout (Megatron-Core 0.13 and later): the pp*vpp = "
                               "%u*%u model chunks in pipeline order (virtual stage v of rank r "
                               "at v*pp + r) split by '|'; E embedding, t decoder layer, m MTP "
                               "layer, L loss\n",
                               s->pp, s->vpp);
    kvu(o, args, n->layers, sh->blocks);
    kvu(o, args, n->hidden, sh->hidden);
    kvu(o, args, n->heads, sh->heads);
    if (sh->kv_heads != sh->heads && sh->kv_heads > 0) {
        if (args)
            kv(o, args, "--group-query-attention", NULL);
        kvu(o, args, n->groups, sh->kv_heads);
    }
    if (sh->ffn > 0)
        kvu(o, args, n->ffn, sh->ffn);
    if (sh->experts > 0)
        kvu(o, args, n->experts, sh->experts);
    kvu(o, args, n->seq, tr->seq);
    if (!args)
        kvu(o, args, "dataset.sequence_length", tr->seq);
    kvu(o, args, n->mbs, s->mbs);
    kvu(o, args, n->gbs, tr->gbs);
    kvu(o, args, n->tp, s->tp);
    kvu(o, args, n->pp, s->pp);
    /* Megatron-LM takes the virtual stages from the layout alone (arguments.py asserts at
     * most one of the layout and the virtual-stage arguments); TransformerConfig takes an
     * equal virtual_pipeline_model_parallel_size with it */
    if (s->vpp > 1 && !(args && layout != NULL))
        kvu(o, args, n->vpp, s->vpp);
    else if (!args)
        kv(o, args, n->vpp, "null");
    if (split.first)
        kvu(o, args, n->first, split.first);
    else if (!args) /* a recipe's own uneven split would stand otherwise */
        kv(o, args, n->first, "null");
    if (split.last)
        kvu(o, args, n->last, split.last);
    else if (!args)
        kv(o, args, n->last, "null");
    kvb(o, args, n->acc_emb, split.emb);
    kvb(o, args, n->acc_loss, split.loss);
    if (layout != NULL) {
        /* quoted for the shell ('|', '*' and '(' are its own); an override's value quoted
         * again for Hydra's override grammar, where ',' and '(' are syntax */
        g_autofree char *q = g_strdup_printf(args ? "'%s'" : "\"'%s'\"", layout);
        kv(o, args, n->layout, q);
    } else if (!args) /* a recipe's own layout would stand otherwise */
        kv(o, args, n->layout, "null");
    kvu(o, args, n->cp, s->cp);
    if (sh->experts > 0) {
        kvu(o, args, n->ep, s->ep);
        kvu(o, args, n->etp, etp_of(s));
    }
    kvb(o, args, n->sp, s->sp);
    kvb(o, args, n->distopt, s->zero == 1);
    if (!args) /* Megatron-Core's OptimizerConfig has the same switch; they must agree */
        kvb(o, args, "optimizer.use_distributed_optimizer", s->zero == 1);
    if (s->zero >= 2) {
        kvb(o, args, n->fsdp, TRUE);
        kv(o, args, n->fsdp_strategy, s->zero == 2 ? "optim_grads" : "optim_grads_params");
    }
    switch ((PrismRecompute)s->recompute) {
    case PRISM_RECOMPUTE_SELECTIVE:
        kv(o, args, n->rc_gran, "selective");
        break;
    case PRISM_RECOMPUTE_FULL:
        kv(o, args, n->rc_gran, "full");
        kv(o, args, n->rc_method, "uniform");
        kvu(o, args, n->rc_layers, 1);
        break;
    case PRISM_RECOMPUTE_BLOCK:
        kv(o, args, n->rc_gran, "full");
        kv(o, args, n->rc_method, "block");
        kvu(o, args, n->rc_layers, s->rc_layers);
        break;
    default:
        if (!args)
            kv(o, args, n->rc_gran, "null");
        break;
    }
    kvb(o, args, n->cpu_offload, (s->offload & PRISM_OFFLOAD_OPTIMIZER) != 0);
    /* OptimizerConfig.optimizer_offload_fraction defaults to 0.0 (Megatron-LM's
     * --optimizer-offload-fraction to 1.0): the overrides say the whole state */
    if (!args && (s->offload & PRISM_OFFLOAD_OPTIMIZER))
        kv(o, args, "optimizer.optimizer_offload_fraction", "1.0");
    kvb(o, args, n->tp_overlap, overlap_on(s, PRISM_OVERLAP_TP));
    kvb(o, args, n->grad_overlap, overlap_on(s, PRISM_OVERLAP_DP));
    kvb(o, args, n->param_overlap, overlap_on(s, PRISM_OVERLAP_PARAM));
    PrismDtype d = tr->dtype;
    kvb(o, args, n->bf16, d == PRISM_DTYPE_BF16 || is_fp8(d));
    kvb(o, args, n->fp16, d == PRISM_DTYPE_FP16);
    if (is_fp8(d)) {
        kv(o, args, n->fp8, d == PRISM_DTYPE_MXFP8 ? "e4m3" : "hybrid");
        kv(o, args, n->fp8_recipe, fp8_recipe_name(d));
    }
    if (args && o->len >= 3 && strcmp(o->str + o->len - 3, " \\\n") == 0)
        g_string_truncate(o, o->len - 3), g_string_append_c(o, '\n');
    return TRUE;
}

/* ------------------------------------------------------------------ torchtitan */

static const struct {
    PrismSchedule s;
    const char *name;
} titan_schedules[] = {{PRISM_SCHEDULE_1F1B, "1F1B"},
                       {PRISM_SCHEDULE_INTERLEAVED, "Interleaved1F1B"},
                       {PRISM_SCHEDULE_GPIPE, "GPipe"},
                       {PRISM_SCHEDULE_ZB_V, "ZBVZeroBubble"},
                       /* ZB-H1's split backward, one stage per rank (pytorch-fsdp.ini) */
                       {PRISM_SCHEDULE_ZB_H1, "InterleavedZeroBubble"},
                       {PRISM_SCHEDULE_DUALPIPE_V, "DualPipeV"}};

static const char *titan_schedule(PrismSchedule s)
{
    for (size_t i = 0; i < G_N_ELEMENTS(titan_schedules); i++)
        if (titan_schedules[i].s == s)
            return titan_schedules[i].name;
    return NULL;
}

static gboolean emit_titan(GString *o, const PrismStrategy *s, const PrismTraining *tr,
                           const PrismModel *m, const Shape *sh, const uint32_t *chunk,
                           gboolean dflt, GError **error)
{
    const PrismFwTarget t = PRISM_FWC_TORCHTITAN;
    /* the blocks of one rank, all its chunks: what selective_ac_option = "N" counts */
    const uint32_t per_chunk = (sh->split + s->pp * s->vpp - 1) / (s->pp * s->vpp);
    const uint32_t nth = s->recompute == PRISM_RECOMPUTE_BLOCK
                             ? prism_recompute_every_nth(per_chunk, s->vpp, s->rc_layers)
                             : 0;
    if (etp_of(s) != s->tp || prism_strategy_folding(s))
        return refuse(error, t,
                      "folded expert parallelism (etp=%u, ep=%u; torchtitan takes "
                      "expert parallelism from the data and context ranks)",
                      etp_of(s), s->ep);
    if (tr->dtype == PRISM_DTYPE_FP16 || tr->dtype == PRISM_DTYPE_FP8)
        return refuse(error, t,
                      "dtype %s (torchtitan trains bfloat16 or float32, FP8 with "
                      "tensorwise/rowwise scaling or MXFP8)",
                      prism_dtype_name(tr->dtype));
    if (!check_overlap(t, s, 0, error))
        return FALSE;
    /* what the profile refuses (prism_app_emit checks it first), should a caller skip it */
    if ((s->pp > 1 && titan_schedule((PrismSchedule)s->schedule) == NULL) ||
        (s->recompute == PRISM_RECOMPUTE_BLOCK && nth == 0))
        return refuse(error, t, "it is outside its profile %s ([planning])", target_profiles[t]);
    header(o, t, s, tr, m, "#");
    if (is_fp8(tr->dtype)) {
        g_string_append_printf(o, "\n[model]\nconverters = [\"%s\"]\n",
                               tr->dtype == PRISM_DTYPE_MXFP8 ? "mx" : "float8");
    }
    g_string_append(o, "\n[training]\n");
    uint64_t local = s->pp > 1 ? (uint64_t)s->mbs * s->m : s->mbs;
    g_string_append_printf(o, "local_batch_size = %" G_GUINT64_FORMAT "\n", local);
    g_string_append_printf(o, "global_batch_size = %" G_GUINT64_FORMAT "\n", tr->gbs);
    g_string_append_printf(o, "seq_len = %" G_GUINT64_FORMAT "\n", tr->seq);
    g_string_append_printf(o, "mixed_precision_param = \"%s\"\n",
                           tr->dtype == PRISM_DTYPE_FP32 ? "float32" : "bfloat16");
    g_string_append(o, "\n[parallelism]\n");
    g_string_append_printf(o, "data_parallel_replicate_degree = %u\n", s->zero == 0 ? s->dp : 1);
    g_string_append_printf(o, "data_parallel_shard_degree = %u\n", s->zero == 0 ? 1 : s->dp);
    if (s->zero >= 2)
        g_string_append_printf(o, "fsdp_reshard_after_forward = \"%s\"\n",
                               s->zero == 3 ? "always" : "never");
    g_string_append_printf(o, "tensor_parallel_degree = %u\n", s->tp);
    g_string_append_printf(o, "pipeline_parallel_degree = %u\n", s->pp);
    if (s->pp > 1) {
        g_string_append_printf(o, "pipeline_parallel_schedule = \"%s\"\n",
                               titan_schedule((PrismSchedule)s->schedule));
        g_string_append_printf(o, "pipeline_parallel_microbatch_size = %u\n", s->mbs);
        const uint32_t chunks = s->pp * s->vpp;
        if (dflt && s->vpp > 1 && sh->split % chunks == 0)
            g_string_append_printf(o, "pipeline_parallel_layers_per_stage = %u\n",
                                   sh->split / chunks);
        else if (!dflt || sh->split % chunks != 0) {
            /* an uneven split as its split points: the default one prism prices
             * (torchtitan's own generate_split_points gives the same) or a refined one */
            g_string_append(o, "pipeline_parallel_split_points = [");
            for (uint32_t j = 0, at = 0; j + 1 < chunks; j++) {
                at += chunk[j];
                g_string_append_printf(o, "%s\"layers.%u\"", j ? ", " : "", at);
            }
            g_string_append(o, "]\n");
        }
    }
    g_string_append_printf(o, "context_parallel_degree = %u\n", s->cp);
    if (sh->experts > 0)
        g_string_append_printf(o, "expert_parallel_degree = %u\n", s->ep);
    g_string_append(o, "\n[activation_checkpoint]\n");
    g_string_append_printf(o, "mode = \"%s\"\n",
                           s->recompute == PRISM_RECOMPUTE_NONE   ? "none"
                           : s->recompute == PRISM_RECOMPUTE_FULL ? "full"
                                                                  : "selective");
    if (s->recompute == PRISM_RECOMPUTE_SELECTIVE)
        g_string_append(o, "selective_ac_option = \"op\"\n");
    if (s->recompute == PRISM_RECOMPUTE_BLOCK)
        g_string_append_printf(o,
                               "selective_ac_option = \"%u\"  # every %u-th layer: %u per chunk\n",
                               nth, nth, s->rc_layers);
    if (tr->dtype == PRISM_DTYPE_FP8_CS)
        g_string_append(o, "\n[float8]\nrecipe_name = \"tensorwise\"\n");
    if (tr->dtype == PRISM_DTYPE_MXFP8)
        g_string_append(o, "\n[mx]\nrecipe_name = \"mxfp8\"\n");
    return TRUE;
}

/* ------------------------------------------------------------------ DeepSpeed */

static gboolean emit_deepspeed(GString *o, const PrismStrategy *s, const PrismTraining *tr,
                               const PrismModel *m, const Shape *sh, GError **error)
{
    const PrismFwTarget t = PRISM_FWC_DEEPSPEED;
    if (etp_of(s) != s->tp)
        return refuse(error, t, "expert parallelism (not mapped for Megatron-DeepSpeed)");
    if (sh->experts > 0 || (sh->kv_heads != sh->heads && sh->kv_heads > 0))
        return refuse(error, t, "a %s model (that arguments.py has no such shape arguments)",
                      sh->experts > 0 ? "mixture-of-experts" : "grouped-query attention");
    if ((s->offload & PRISM_OFFLOAD_OPTIMIZER) && s->zero == 0)
        return refuse(error, t,
                      "optimizer offload without ZeRO (offload_optimizer needs a ZeRO "
                      "stage)");
    if (is_fp8(tr->dtype))
        return refuse(error, t, "dtype %s (DeepSpeed trains fp16, bf16 or fp32)",
                      prism_dtype_name(tr->dtype));
    if (!check_overlap(t, s, 0, error))
        return FALSE;
    header(o, t, s, tr, m, "#");
    g_string_append(o, "cat > ds_config.json <<'EOF'\n{\n");
    g_string_append_printf(o, "  \"train_batch_size\": %" G_GUINT64_FORMAT ",\n", tr->gbs);
    g_string_append_printf(o, "  \"train_micro_batch_size_per_gpu\": %u,\n", s->mbs);
    g_string_append_printf(o, "  \"gradient_accumulation_steps\": %u,\n", s->m);
    g_string_append_printf(o, "  \"bf16\": {\"enabled\": %s},\n",
                           tr->dtype == PRISM_DTYPE_BF16 ? "true" : "false");
    g_string_append_printf(o, "  \"fp16\": {\"enabled\": %s},\n",
                           tr->dtype == PRISM_DTYPE_FP16 ? "true" : "false");
    g_string_append_printf(o, "  \"zero_optimization\": {\"stage\": %u", s->zero);
    if (s->offload & PRISM_OFFLOAD_OPTIMIZER)
        g_string_append(o, ", \"offload_optimizer\": {\"device\": \"cpu\"}");
    g_string_append(o, "}\n}\nEOF\n");
    g_string_append_printf(o, "# world size %u = data parallel %u x tensor %u x pipeline %u\n",
                           s->devices, s->dp, s->tp, s->pp);
    g_string_append(o, "deepspeed pretrain_gpt.py \\\n");
    GString *a = g_string_new(NULL);
    kvu(a, TRUE, "--num-layers", sh->blocks);
    kvu(a, TRUE, "--hidden-size", sh->hidden);
    kvu(a, TRUE, "--num-attention-heads", sh->heads);
    if (sh->ffn > 0)
        kvu(a, TRUE, "--ffn-hidden-size", sh->ffn);
    kvu(a, TRUE, "--seq-length", tr->seq);
    kvu(a, TRUE, "--max-position-embeddings", tr->seq); /* required there, >= seq-length */
    kvu(a, TRUE, "--micro-batch-size", s->mbs);
    kvu(a, TRUE, "--global-batch-size", tr->gbs);
    kvu(a, TRUE, "--tensor-model-parallel-size", s->tp);
    kvu(a, TRUE, "--pipeline-model-parallel-size", s->pp);
    if (s->pp == 1)
        kv(a, TRUE, "--no-pipeline-parallel", NULL);
    kvb(a, TRUE, "--checkpoint-activations", s->recompute == PRISM_RECOMPUTE_FULL);
    kvu(a, TRUE, "--zero-stage", s->zero);
    kvb(a, TRUE, "--bf16", tr->dtype == PRISM_DTYPE_BF16);
    kvb(a, TRUE, "--fp16", tr->dtype == PRISM_DTYPE_FP16);
    kv(a, TRUE, "--deepspeed", NULL);
    kv(a, TRUE, "--deepspeed_config", "ds_config.json");
    g_string_truncate(a, a->len - 3);
    g_string_append_c(a, '\n');
    /* indent the argument lines */
    g_auto(GStrv) lines = g_strsplit(a->str, "\n", -1);
    for (int i = 0; lines[i] && *lines[i]; i++)
        g_string_append_printf(o, "    %s\n", lines[i]);
    g_string_free(a, TRUE);
    return TRUE;
}

/* ------------------------------------------------------------------ nanotron */

static gboolean emit_nanotron(GString *o, const PrismStrategy *s, const PrismTraining *tr,
                              const PrismModel *m, GError **error)
{
    const PrismFwTarget t = PRISM_FWC_NANOTRON;
    if (etp_of(s) != s->tp || prism_strategy_folding(s))
        return refuse(error, t, "folded expert parallelism (etp=%u, ep=%u)", etp_of(s), s->ep);
    if (is_fp8(tr->dtype))
        return refuse(error, t,
                      "dtype %s (nanotron's model.dtype is bfloat16, float16 or "
                      "float32 here)",
                      prism_dtype_name(tr->dtype));
    if (!check_overlap(t, s, 0, error))
        return FALSE;
    header(o, t, s, tr, m, "#");
    g_string_append(o, "parallelism:\n");
    g_string_append_printf(o, "  dp: %u\n  tp: %u\n  pp: %u\n", s->dp, s->tp, s->pp);
    g_string_append_printf(o, "  pp_engine: %s\n",
                           s->schedule == PRISM_SCHEDULE_GPIPE ? "afab" : "1f1b");
    g_string_append_printf(o, "  tp_mode: %s\n", s->sp ? "REDUCE_SCATTER" : "ALL_REDUCE");
    g_string_append(o, "  tp_linear_async_communication: false\n");
    g_string_append_printf(o, "  recompute_layer: %s\n",
                           s->recompute == PRISM_RECOMPUTE_FULL ? "true" : "false");
    g_string_append_printf(o, "  expert_parallel_size: %u\n", s->ep);
    g_string_append_printf(o, "  context_parallel_size: %u\n", s->cp);
    g_string_append(o, "tokens:\n");
    g_string_append_printf(o, "  sequence_length: %" G_GUINT64_FORMAT "\n", tr->seq);
    g_string_append_printf(o, "  micro_batch_size: %u\n", s->mbs);
    g_string_append_printf(o, "  batch_accumulation_per_replica: %u\n", s->m);
    g_string_append(o, "optimizer:\n");
    g_string_append_printf(o, "  zero_stage: %u\n", s->zero);
    g_string_append(o, "model:\n");
    g_string_append_printf(o, "  dtype: %s\n",
                           tr->dtype == PRISM_DTYPE_FP32   ? "float32"
                           : tr->dtype == PRISM_DTYPE_FP16 ? "float16"
                                                           : "bfloat16");
    return TRUE;
}

char *prism_fwconfig_emit(PrismFwTarget t, const PrismStrategy *s, const PrismTraining *training,
                          const PrismModel *model, GError **error)
{
    return prism_fwconfig_emit_layout(t, s, NULL, training, model, error);
}

char *prism_fwconfig_emit_layout(PrismFwTarget t, const PrismStrategy *s,
                                 const uint32_t *chunk_layers, const PrismTraining *training,
                                 const PrismModel *model, GError **error)
{
    g_return_val_if_fail(s != NULL && training != NULL && model != NULL, NULL);
    for (uint32_t i = 0; i < model->n_specs; i++)
        if (model->specs[i].mixer != PRISM_MIXER_ATTENTION || model->specs[i].no_mlp) {
            refuse(error, t,
                   "a hybrid model (Mamba-2, gated-DeltaNet or single-part layers): the emitted "
                   "configurations describe transformer blocks only; give the hybrid layer "
                   "arguments (e.g. Megatron-LM's --hybrid-override-pattern) by hand");
            return NULL;
        }
    /* NVFP4, MXFP4: no target's switches are mapped here yet (Megatron-LM's --fp4-format and
     * its first/last BF16 layers, torchao's NVFP4 and MX converters) */
    if (prism_dtype_is_fp4(training->dtype)) {
        refuse(error, t, "dtype %s (its recipe switches are not mapped for this target)",
               prism_dtype_name(training->dtype));
        return NULL;
    }
    Shape sh = shape_of(model);
    const uint32_t C = s->pp * s->vpp;
    g_autofree uint32_t *chunks = g_new(uint32_t, MAX(C, 1));
    uint64_t sum = 0;
    for (uint32_t j = 0; j < C; j++) {
        chunks[j] = chunk_layers ? chunk_layers[j] : prism_fw_chunk_layers(sh.split, C, j);
        sum += chunks[j];
    }
    if (C == 0 || sum != sh.split) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--emit %s: the layout's %u chunks hold %" G_GUINT64_FORMAT
                    " layers, the model %u",
                    target_names[t], C, sum, sh.split);
        return NULL;
    }
    gboolean dflt = TRUE;
    for (uint32_t j = 0; j < C; j++)
        dflt &= chunks[j] == prism_fw_chunk_layers(sh.split, C, j);
    if (!dflt && (t == PRISM_FWC_DEEPSPEED || t == PRISM_FWC_NANOTRON)) {
        refuse(error, t,
               "a refined split of the layers over the pipeline (not mapped for "
               "this target; --emit megatron, nemo or torchtitan writes one)");
        return NULL;
    }
    GString *o = g_string_new(NULL);
    gboolean ok = FALSE;
    switch (t) {
    case PRISM_FWC_MEGATRON:
        ok = emit_mcore(t, &megatron_names, TRUE, o, s, training, model, &sh, chunks, error);
        break;
    case PRISM_FWC_NEMO:
        ok = emit_mcore(t, &nemo_names, FALSE, o, s, training, model, &sh, chunks, error);
        break;
    case PRISM_FWC_TORCHTITAN:
        ok = emit_titan(o, s, training, model, &sh, chunks, dflt, error);
        break;
    case PRISM_FWC_DEEPSPEED:
        ok = emit_deepspeed(o, s, training, model, &sh, error);
        break;
    case PRISM_FWC_NANOTRON:
        ok = emit_nanotron(o, s, training, model, error);
        break;
    default:
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME, "unknown target");
        break;
    }
    if (!ok) {
        g_string_free(o, TRUE);
        return NULL;
    }
    return g_string_free(o, FALSE);
}

/* ------------------------------------------------------------------ reading */

typedef struct {
    GPtrArray *e; /* FwEntry */
    const char *path;
} Flat;

static FwEntry *find(const Flat *f, const char *key)
{
    for (guint i = 0; i < f->e->len; i++) {
        FwEntry *e = f->e->pdata[i];
        if (strcmp(e->key, key) == 0) {
            e->used = TRUE;
            return e;
        }
    }
    return NULL;
}

static gboolean bad_value(const Flat *f, const FwEntry *e, const char *allowed, GError **error)
{
    g_set_error(error, PRISM_INPUT_ERROR,
                e->value && strchr(e->value, '$') ? PRISM_INPUT_ERROR_PARSE
                                                  : PRISM_INPUT_ERROR_VALUE,
                "%s: %s=%s: %s", f->path, e->key, e->value ? e->value : "(no value)",
                e->value && strchr(e->value, '$')
                    ? "a shell variable; prism reads literal values (expand it first)"
                    : allowed);
    return FALSE;
}

/* An unsigned integer >= @p min; absent keeps *out. */
static gboolean get_u64(const Flat *f, const char *key, uint64_t min, uint64_t *out,
                        gboolean *given, GError **error)
{
    FwEntry *e = find(f, key);
    if (given)
        *given = e != NULL;
    if (e == NULL)
        return TRUE;
    const char *v = e->value;
    char *end = NULL;
    errno = 0;
    guint64 x = v && g_ascii_isdigit(*v) ? g_ascii_strtoull(v, &end, 10) : 0;
    if (v == NULL || end == NULL || *end != '\0' || errno || x < min || x > G_MAXUINT32) {
        g_autofree char *allowed =
            g_strdup_printf("allowed: a whole number >= %" G_GUINT64_FORMAT " (and < 2^32)", min);
        return bad_value(f, e, allowed, error);
    }
    *out = x;
    return TRUE;
}

static gboolean get_u32(const Flat *f, const char *key, uint32_t min, uint32_t *out,
                        gboolean *given, GError **error)
{
    uint64_t v = *out;
    if (!get_u64(f, key, min, &v, given, error))
        return FALSE;
    *out = (uint32_t)v;
    return TRUE;
}

/* A boolean: a flag without value, true/false (any case), 1/0; absent keeps *out. */
static gboolean get_bool(const Flat *f, const char *key, gboolean *out, gboolean *given,
                         GError **error)
{
    FwEntry *e = find(f, key);
    if (given)
        *given = e != NULL;
    if (e == NULL)
        return TRUE;
    if (e->value == NULL || g_ascii_strcasecmp(e->value, "true") == 0 ||
        strcmp(e->value, "1") == 0) {
        *out = TRUE;
        return TRUE;
    }
    if (g_ascii_strcasecmp(e->value, "false") == 0 || strcmp(e->value, "0") == 0) {
        *out = FALSE;
        return TRUE;
    }
    return bad_value(f, e, "allowed: true or false", error);
}

/* A string among @p allowed (NULL-terminated); returns the index, -1 when absent, -2 on
 * error. */
static int get_choice(const Flat *f, const char *key, const char *const *allowed, GError **error)
{
    FwEntry *e = find(f, key);
    if (e == NULL)
        return -1;
    for (int i = 0; allowed[i]; i++)
        if (e->value && g_ascii_strcasecmp(e->value, allowed[i]) == 0)
            return i;
    g_autofree char *list = g_strjoinv(", ", (char **)allowed);
    g_autofree char *msg = g_strdup_printf("allowed: %s", list);
    bad_value(f, e, msg, error);
    return -2;
}

static gboolean conflict(const Flat *f, const char *key, const char *value, GError **error,
                         const char *fmt, ...) G_GNUC_PRINTF(5, 6);
static gboolean conflict(const Flat *f, const char *key, const char *value, GError **error,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT, "%s: %s=%s: %s", f->path, key,
                value, why);
    return FALSE;
}

/* conflict() with an unsigned value. */
static gboolean conflict_u(const Flat *f, const char *key, uint64_t value, GError **error,
                           const char *fmt, ...) G_GNUC_PRINTF(5, 6);
static gboolean conflict_u(const Flat *f, const char *key, uint64_t value, GError **error,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    char buf[24];
    g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT, value);
    return conflict(f, key, buf, error, "%s", why);
}

/* The file's shape key @p key must match the model's @p have (0 = the model has none). */
static gboolean check_shape(const Flat *f, const char *key, uint64_t have, const PrismModel *m,
                            GError **error)
{
    uint64_t v = 0;
    gboolean given = FALSE;
    if (!get_u64(f, key, 0, &v, &given, error))
        return FALSE;
    if (given && v != have) {
        char buf[32];
        g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT, v);
        return conflict(f, key, buf, error,
                        "model %s has %" G_GUINT64_FORMAT " (give --model the file's model, "
                        "e.g. its config.json)",
                        m->name, have);
    }
    return TRUE;
}

typedef struct {
    PrismStrategy s;
    PrismTraining tr;
    uint32_t devices; /* 0 = from the caller */
    gboolean gbs_given;
    const char *key_of[16]; /* the file's key per rule, for messages */
    uint32_t *chunk_layers; /* a split other than the default one (g_free) */
} Parsed;

static const char *const mcore_recompute[] = {"full", "selective", "null", "none", NULL};
static const char *const mcore_method[] = {"uniform", "block", "null", NULL};
static const char *const mcore_fp8[] = {"hybrid", "e4m3", "null", NULL};
static const char *const mcore_fp8_recipe[] = {"delayed", "tensorwise", "mxfp8", "blockwise", NULL};
static const char *const mcore_sharding[] = {"no_shard", "optim", "optim_grads",
                                             "optim_grads_params", NULL};

/* get_u32() (minimum 1) where "null" or "None" (an override's unset field) counts as absent. */
static gboolean get_opt_u32(const Flat *f, const char *key, uint32_t *out, gboolean *given,
                            GError **error)
{
    FwEntry *e = find(f, key);
    if (e == NULL || (e->value && (strcmp(e->value, "null") == 0 || strcmp(e->value, "None") == 0)))
        return TRUE;
    if (given)
        *given = TRUE;
    return get_u32(f, key, 1, out, NULL, error);
}

/* The split the file's settings make (mcore_split_chunks), as p->chunk_layers when it is
 * not the default one; a split Megatron-Core refuses is refused naming the setting. */
static gboolean mcore_split_read(const Flat *f, const McoreNames *n, const McoreSplit *split,
                                 Parsed *p, const Shape *sh, GError **error)
{
    const PrismStrategy *s = &p->s;
    const uint32_t C = s->pp * s->vpp, mtp = sh->split - sh->blocks;
    g_autofree uint32_t *m = g_new(uint32_t, C);
    g_autoptr(GString) why = g_string_new(NULL);
    if (!mcore_split_chunks(split, sh->blocks, s->pp, s->vpp, m, why)) {
        const char *key = split->first  ? n->first
                          : split->last ? n->last
                          : split->emb  ? n->acc_emb
                          : split->loss ? n->acc_loss
                                        : n->pp;
        const uint32_t v = split->first ? split->first : split->last ? split->last : s->pp;
        if ((split->emb || split->loss) && !split->first && !split->last)
            return conflict(f, key, "true", error, "%s (allowed: %s)", why->str, MCORE_SPLITS);
        return conflict_u(f, key, v, error, "%s (allowed: %s)", why->str, MCORE_SPLITS);
    }
    m[C - 1] += mtp;
    for (uint32_t j = 0; j < C; j++)
        if (m[j] != prism_fw_chunk_layers(sh->split, C, j)) {
            p->chunk_layers = g_steal_pointer(&m);
            break;
        }
    return TRUE;
}

/* What a --pipeline-model-parallel-layout holds, for messages. */
#define MCORE_LAYOUT_ALLOWED                                                                       \
    "allowed: Megatron-Core's layout, pp*vpp stages in pipeline order split by '|', each a run "   \
    "of E (the embedding, first), t (a decoder layer), m (an MTP layer, after the decoder "        \
    "layers, in the last virtual stage of a pipeline rank) and L (the loss, last); X*n and "       \
    "(...)*n repeat; ',' is ignored"

/* The count of a "*n" repeat at @p p (a digit), at most @p cap + 1; *@p end past it. */
static size_t layout_repeat(const char *p, const char **end, size_t cap)
{
    size_t n = 0;
    for (; g_ascii_isdigit(*p); p++)
        n = MIN(n * 10 + (size_t)(*p - '0'), cap + 1);
    *end = p;
    return n;
}

/* Megatron-Core's parse_str_to_list up to the split on '|' (pipeline_parallel_layer_layout.py):
 * the ',' removed, then every "(X)*n" (X one or more characters, no ')') replaced by n
 * copies of X, then every "c*n" by n copies of c, each scan left to right as re.sub does;
 * FALSE when the text grows past @p cap characters. */
static gboolean layout_expand(const char *in, GString *out, size_t cap)
{
    g_autoptr(GString) a = g_string_new(NULL);
    for (const char *p = in; *p; p++)
        if (*p != ',')
            g_string_append_c(a, *p);
    g_autoptr(GString) b = g_string_new(NULL);
    for (const char *p = a->str; *p;) {
        const char *close = *p == '(' ? strchr(p + 1, ')') : NULL, *end = NULL;
        if (close != NULL && close > p + 1 && close[1] == '*' && g_ascii_isdigit(close[2])) {
            const size_t n = layout_repeat(close + 2, &end, cap), w = (size_t)(close - p - 1);
            if (n > cap || b->len + n * w > cap)
                return FALSE;
            for (size_t k = 0; k < n; k++)
                g_string_append_len(b, p + 1, (gssize)w);
            p = end;
        } else
            g_string_append_c(b, *p++);
    }
    g_string_truncate(out, 0);
    for (const char *p = b->str; *p;) {
        const char *end = NULL;
        if (*p != '\n' && p[1] == '*' && g_ascii_isdigit(p[2])) {
            const size_t n = layout_repeat(p + 2, &end, cap);
            if (n > cap || out->len + n > cap)
                return FALSE;
            for (size_t k = 0; k < n; k++)
                g_string_append_c(out, *p);
            p = end;
        } else
            g_string_append_c(out, *p++);
    }
    return out->len <= cap;
}

/* A layout string @p e as the split of the layers over its stages, checked as Megatron-Core
 * checks it (PipelineParallelLayerLayout.__init__ and validate_layer_layout; arguments.py:
 * the stage count a multiple of the pipeline size, the virtual stages that count over it):
 * sets s->vpp and p->chunk_layers (decoder and MTP layers per stage) when the split is not
 * the default one. @p vpp_file: the virtual stages the file states too (0: none); a value
 * Hydra quoted ('...' or "...") is read inside its quotes. */
static gboolean mcore_layout_read(const Flat *f, const FwEntry *e, gboolean hydra,
                                  uint32_t vpp_file, const char *vpp_key, Parsed *p,
                                  const Shape *sh, GError **error)
{
    PrismStrategy *s = &p->s;
    g_autofree char *text = g_strdup(e->value ? e->value : "");
    const size_t len = strlen(text);
    if (hydra && len >= 2 && (text[0] == '\'' || text[0] == '"') && text[len - 1] == text[0]) {
        memmove(text, text + 1, len - 2);
        text[len - 2] = '\0';
    }
    g_autoptr(GString) x = g_string_new(NULL);
    if (!layout_expand(text, x, (size_t)1 << 20))
        return bad_value(f, e, "its repeats expand past 2^20 characters (" MCORE_LAYOUT_ALLOWED ")",
                         error);
    const uint32_t mtp = sh->split - sh->blocks;
    uint32_t C = 1, n_e = 0, n_l = 0, n_t = 0, n_m = 0, mtp_stage = 0;
    for (const char *q = x->str; *q; q++)
        C += *q == '|';
    g_autofree uint32_t *chunk = g_new0(uint32_t, C);
    g_autoptr(GString) why = g_string_new(NULL);
    char first = 0, last = 0;
    for (uint32_t j = 0, k = 0; x->str[k] && why->len == 0; k++) {
        const char c = x->str[k];
        if (c == '|') {
            j++;
            continue;
        }
        first = first ? first : c;
        last = c;
        if (c == 'E' || c == 'L')
            *(c == 'E' ? &n_e : &n_l) += 1;
        else if (c == 't' && n_m > 0)
            g_string_append(why, "a decoder layer (t) after an MTP layer (m)");
        else if (c == 't' || c == 'm') {
            chunk[j]++;
            *(c == 't' ? &n_t : &n_m) += 1;
            if (c == 'm' && n_m > 1 && mtp_stage != j)
                g_string_append(why, "MTP layers (m) in more than one stage");
            mtp_stage = j;
        } else
            g_string_append_printf(why, "'%c' is no layer", c);
    }
    if (why->len > 0)
        ;
    else if (C % s->pp != 0)
        g_string_append_printf(why, "%u stages on pipeline size %u (a multiple of it expected)", C,
                               s->pp);
    else if (n_e != 1 || first != 'E')
        g_string_append(why, "the embedding (E) must come first, once");
    else if (n_l != 1 || last != 'L')
        g_string_append(why, "the loss (L) must come last, once");
    else if (n_t != sh->blocks)
        g_string_append_printf(why, "%u decoder layers (t), the model has %u", n_t, sh->blocks);
    else if (n_m != mtp)
        g_string_append_printf(why, "%u MTP layers (m), the model has %u", n_m, mtp);
    else if (n_m > 0 && mtp_stage < C - s->pp)
        g_string_append_printf(why, "the MTP layers in stage %u, not in the last virtual stage",
                               mtp_stage);
    if (why->len > 0) {
        g_autofree char *msg = g_strdup_printf("%s (" MCORE_LAYOUT_ALLOWED ")", why->str);
        return bad_value(f, e, msg, error);
    }
    if (vpp_file != 0 && vpp_file != C / s->pp)
        return conflict_u(f, vpp_key, vpp_file, error,
                          "the layout %s holds %u stages, %u per rank of pipeline size %u "
                          "(allowed: %u, or none)",
                          e->key, C, C / s->pp, s->pp, C / s->pp);
    s->vpp = C / s->pp;
    for (uint32_t j = 0; j < C; j++)
        if (chunk[j] != prism_fw_chunk_layers(sh->split, C, j)) {
            p->chunk_layers = g_steal_pointer(&chunk);
            break;
        }
    return TRUE;
}

static gboolean read_mcore(const Flat *f, const McoreNames *n, gboolean args, Parsed *p,
                           const PrismModel *m, const Shape *sh, GError **error)
{
    PrismStrategy *s = &p->s;
    /* shape where given */
    if (!check_shape(f, n->layers, sh->blocks, m, error) ||
        !check_shape(f, n->hidden, sh->hidden, m, error) ||
        !check_shape(f, n->heads, sh->heads, m, error) ||
        !check_shape(f, n->ffn, sh->ffn, m, error) ||
        !check_shape(f, n->experts, sh->experts, m, error))
        return FALSE;
    uint32_t groups = 0;
    gboolean groups_given = FALSE;
    if (!get_u32(f, n->groups, 1, &groups, &groups_given, error))
        return FALSE;
    if (groups_given && groups != sh->kv_heads) {
        return conflict_u(f, n->groups, groups, error, "model %s has %u KV heads", m->name,
                          sh->kv_heads);
    }
    if (args)
        (void)find(f, "--group-query-attention");
    /* world size from torchrun, when the script launches it */
    uint32_t nnodes = 0, nproc = 0;
    gboolean g1 = FALSE, g2 = FALSE, g3 = FALSE;
    if (args && (!get_u32(f, "--nnodes", 1, &nnodes, &g1, error) ||
                 !get_u32(f, "--nproc-per-node", 1, &nproc, &g2, error) ||
                 !get_u32(f, "--nproc_per_node", 1, &nproc, &g3, error)))
        return FALSE;
    if (g1 && (g2 || g3))
        p->devices = nnodes * nproc;
    if (!get_u64(f, n->seq, 1, &p->tr.seq, NULL, error))
        return FALSE;
    if (!args && !get_u64(f, "dataset.sequence_length", 1, &p->tr.seq, NULL, error))
        return FALSE;
    if (!get_u32(f, n->mbs, 1, &s->mbs, NULL, error) ||
        !get_u64(f, n->gbs, 1, &p->tr.gbs, &p->gbs_given, error) ||
        !get_u32(f, n->tp, 1, &s->tp, NULL, error) || !get_u32(f, n->pp, 1, &s->pp, NULL, error) ||
        !get_u32(f, n->cp, 1, &s->cp, NULL, error) || !get_u32(f, n->ep, 1, &s->ep, NULL, error))
        return FALSE;
    s->etp = 0;
    if (!get_u32(f, n->etp, 1, &s->etp, NULL, error))
        return FALSE;
    McoreSplit split = {0};
    gboolean vpp_given = FALSE;
    if (!get_opt_u32(f, n->vpp, &s->vpp, &vpp_given, error) ||
        !get_opt_u32(f, n->first, &split.first, NULL, error) ||
        !get_opt_u32(f, n->last, &split.last, NULL, error) ||
        !get_bool(f, n->acc_emb, &split.emb, NULL, error) ||
        !get_bool(f, n->acc_loss, &split.loss, NULL, error))
        return FALSE;
    /* the older spelling: layers per virtual stage (of the layers with the embedding and
     * loss counted, arguments.py validate_args) */
    uint32_t lpvs = 0;
    gboolean lpvs_given = FALSE;
    if (args &&
        !get_u32(f, "--num-layers-per-virtual-pipeline-stage", 1, &lpvs, &lpvs_given, error))
        return FALSE;
    /* the layout places every layer itself: Megatron-Core refuses it with the first/last
     * counts or the embedding/loss counted (transformer_config.py), Megatron-LM with either
     * virtual-stage argument (arguments.py) */
    const FwEntry *lay = find(f, n->layout);
    const gboolean use_layout = lay != NULL && lay->value != NULL &&
                                strcmp(lay->value, "null") != 0 && strcmp(lay->value, "None") != 0;
    if (use_layout) {
        const char *other = split.first         ? n->first
                            : split.last        ? n->last
                            : split.emb         ? n->acc_emb
                            : split.loss        ? n->acc_loss
                            : lpvs_given        ? "--num-layers-per-virtual-pipeline-stage"
                            : args && vpp_given ? n->vpp
                                                : NULL;
        if (other != NULL)
            return conflict(f, n->layout, lay->value, error,
                            "%s is set too (allowed: the layout alone; it places every layer "
                            "and gives the virtual stages)",
                            other);
        if (!mcore_layout_read(f, lay, !args, vpp_given ? s->vpp : 0, n->vpp, p, sh, error))
            return FALSE;
    } else if (lpvs_given) {
        const uint32_t nl = sh->blocks + (split.emb ? 1 : 0) + (split.loss ? 1 : 0);
        if (split.first || split.last)
            return conflict_u(f, "--num-layers-per-virtual-pipeline-stage", lpvs, error,
                              "Megatron-LM asserts uneven first/last stages take "
                              "--num-virtual-stages-per-pipeline-rank (allowed: that instead)");
        if (nl % (s->pp * lpvs) != 0) {
            return conflict_u(f, "--num-layers-per-virtual-pipeline-stage", lpvs, error,
                              "pipeline size %u x %u layers per virtual stage does not divide the "
                              "%u layers",
                              s->pp, lpvs, nl);
        }
        s->vpp = nl / (s->pp * lpvs);
    }
    if (!use_layout && !mcore_split_read(f, n, &split, p, sh, error))
        return FALSE;
    s->schedule = s->vpp > 1 ? PRISM_SCHEDULE_INTERLEAVED : PRISM_SCHEDULE_1F1B;
    gboolean b = FALSE;
    if (!get_bool(f, n->sp, &b, NULL, error))
        return FALSE;
    s->sp = (uint8_t)b;
    gboolean distopt = FALSE, fsdp = FALSE, fsdp2 = FALSE, ddp_given = FALSE;
    if (!get_bool(f, n->distopt, &distopt, &ddp_given, error) ||
        !get_bool(f, n->fsdp, &fsdp, NULL, error))
        return FALSE;
    gboolean opt_distopt = distopt, opt_given = FALSE;
    if (!args &&
        !get_bool(f, "optimizer.use_distributed_optimizer", &opt_distopt, &opt_given, error))
        return FALSE;
    if (opt_given && !ddp_given)
        distopt = opt_distopt;
    else if (opt_given && opt_distopt != distopt)
        return conflict(f, "optimizer.use_distributed_optimizer", opt_distopt ? "true" : "false",
                        error, "ddp.use_distributed_optimizer says %s (allowed: the same)",
                        distopt ? "true" : "false");
    if (args && !get_bool(f, "--use-torch-fsdp2", &fsdp2, NULL, error))
        return FALSE;
    int shard = get_choice(f, n->fsdp_strategy, mcore_sharding, error);
    if (shard == -2)
        return FALSE;
    s->zero = distopt ? 1 : 0;
    if (fsdp2)
        s->zero = 3;
    if (fsdp)
        s->zero = shard <= 0 ? 0 : (uint8_t)shard; /* no_shard 0, optim 1, optim_grads 2, .. 3 */
    int gran = get_choice(f, n->rc_gran, mcore_recompute, error);
    int method = get_choice(f, n->rc_method, mcore_method, error);
    if (gran == -2 || method == -2)
        return FALSE;
    uint32_t rcl = 1;
    gboolean rcl_given = FALSE;
    if (!get_u32(f, n->rc_layers, 1, &rcl, &rcl_given, error))
        return FALSE;
    /* --recompute-activations is selective recompute (Megatron-LM validate_args); the
     * older --checkpoint-activations checkpointed every layer (Megatron-LM 2021) */
    gboolean legacy_sel = FALSE, legacy_full = FALSE;
    if (args && (!get_bool(f, "--recompute-activations", &legacy_sel, NULL, error) ||
                 !get_bool(f, "--checkpoint-activations", &legacy_full, NULL, error)))
        return FALSE;
    if (gran < 0 && legacy_full && !legacy_sel)
        gran = 0;
    if (gran == 1 || (gran < 0 && legacy_sel))
        s->recompute = PRISM_RECOMPUTE_SELECTIVE;
    else if (gran == 0) {
        if (method == 1) {
            s->recompute = PRISM_RECOMPUTE_BLOCK;
            s->rc_layers = (uint16_t)MIN(rcl, G_MAXUINT16);
        } else if (method == 0 && rcl != 1) {
            char buf[16];
            g_snprintf(buf, sizeof buf, "%u", rcl);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                        "%s: %s=%s: uniform recompute of %u-layer units is not priced (allowed: "
                        "1 with uniform, any with block)",
                        f->path, n->rc_layers, buf, rcl);
            return FALSE;
        } else
            s->recompute = PRISM_RECOMPUTE_FULL;
    } else
        s->recompute = PRISM_RECOMPUTE_NONE;
    b = FALSE;
    if (!get_bool(f, n->cpu_offload, &b, NULL, error))
        return FALSE;
    s->offload = b ? PRISM_OFFLOAD_OPTIMIZER : 0;
    FwEntry *frac =
        find(f, args ? "--optimizer-offload-fraction" : "optimizer.optimizer_offload_fraction");
    if (b) {
        /* Megatron-LM's default is the whole state; Megatron-Core's OptimizerConfig none */
        double x = args ? 1.0 : 0.0;
        if (frac != NULL) {
            char *end = NULL;
            x = frac->value ? g_ascii_strtod(frac->value, &end) : -1;
            if (end == NULL || *end != '\0')
                x = -1;
        }
        if (x != 1.0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                        "%s: %s=%s: offloading part of the optimizer state is not priced "
                        "(allowed: 1.0, the whole state)",
                        f->path, frac ? frac->key : n->cpu_offload,
                        frac && frac->value ? frac->value : "(default 0.0)");
            return FALSE;
        }
    }
    gboolean tpo = FALSE, gro = FALSE, pgo = FALSE;
    /* the model/ddp fields the comm_overlap group sets (Megatron-Bridge comm_overlap.py:
     * CommOverlapConfig.setup copies its values over them) */
    gboolean tp_given = FALSE, gr_given = FALSE, pg_given = FALSE, a1 = FALSE, a2 = FALSE,
             a3 = FALSE;
    if (!args && (!get_bool(f, "model.tp_comm_overlap", &tpo, &a1, error) ||
                  !get_bool(f, "ddp.overlap_grad_reduce", &gro, &a2, error) ||
                  !get_bool(f, "ddp.overlap_param_gather", &pgo, &a3, error)))
        return FALSE;
    if (!get_bool(f, n->tp_overlap, &tpo, &tp_given, error) ||
        !get_bool(f, n->grad_overlap, &gro, &gr_given, error) ||
        !get_bool(f, n->param_overlap, &pgo, &pg_given, error))
        return FALSE;
    tp_given |= a1;
    gr_given |= a2;
    pg_given |= a3;
    /* Megatron-LM's flags are off unless given; Megatron-Bridge overrides change only what
     * they name (the recipe's settings stand for the rest, and prism takes the option on) */
    s->overlap_off = (uint8_t)((tpo ? 0 : PRISM_OVERLAP_TP) | (gro ? 0 : PRISM_OVERLAP_DP) |
                               (pgo ? 0 : PRISM_OVERLAP_PARAM));
    if (!args)
        s->overlap_off &=
            (uint8_t)((tp_given ? PRISM_OVERLAP_TP : 0) | (gr_given ? PRISM_OVERLAP_DP : 0) |
                      (pg_given ? PRISM_OVERLAP_PARAM : 0));
    gboolean bf16 = FALSE, fp16 = FALSE, bf_given = FALSE, fp_given = FALSE;
    if (!get_bool(f, n->bf16, &bf16, &bf_given, error) ||
        !get_bool(f, n->fp16, &fp16, &fp_given, error))
        return FALSE;
    int fmt = get_choice(f, n->fp8, mcore_fp8, error);
    int recipe = get_choice(f, n->fp8_recipe, mcore_fp8_recipe, error);
    if (fmt == -2 || recipe == -2)
        return FALSE;
    if (bf16 && fp16)
        return conflict(f, n->fp16, "true", error, "%s is on too (allowed: one of them)", n->bf16);
    /* overrides that name no precision keep the recipe's: the caller's dtype */
    if (args || bf_given || fp_given || fmt >= 0)
        p->tr.dtype = bf16 ? PRISM_DTYPE_BF16 : fp16 ? PRISM_DTYPE_FP16 : PRISM_DTYPE_FP32;
    if (fmt == 0 || fmt == 1) {
        if (recipe == 3) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                        "%s: %s=blockwise: blockwise FP8 scaling is not priced (allowed: "
                        "delayed, tensorwise, mxfp8)",
                        f->path, n->fp8_recipe);
            return FALSE;
        }
        p->tr.dtype = recipe == 1   ? PRISM_DTYPE_FP8_CS
                      : recipe == 2 ? PRISM_DTYPE_MXFP8
                                    : PRISM_DTYPE_FP8;
    }
    p->key_of[1] = n->tp;
    p->key_of[2] = n->tp;
    p->key_of[3] = n->cp;
    p->key_of[4] = n->sp;
    p->key_of[5] = n->ep;
    p->key_of[6] = n->vpp;
    p->key_of[8] = n->mbs;
    p->key_of[9] = n->distopt;
    p->key_of[10] = n->rc_layers;
    p->key_of[11] = n->cpu_offload;
    p->key_of[12] = n->grad_overlap;
    return TRUE;
}

/* parallelism.pipeline_parallel_split_points ("layers.K,..."): the stages the points make
 * must be a multiple of pp (torchtitan's stage_ids_this_rank asserts it), each holding at
 * least one layer (increasing points inside the layers); sets s->vpp, and p->chunk_layers
 * when the split is not the default one (prism_fw_chunk_layers). */
static gboolean read_titan_splits(const Flat *f, const FwEntry *e, Parsed *p, const Shape *sh,
                                  GError **error)
{
    PrismStrategy *s = &p->s;
    g_auto(GStrv) pts = g_strsplit(e->value, ",", -1);
    const uint32_t chunks = g_strv_length(pts) + 1;
    if (chunks % s->pp != 0 || chunks > sh->split)
        return conflict(f, e->key, e->value, error,
                        "%u stages on pipeline degree %u over %u layers (allowed: a multiple "
                        "of %u stages, at most one per layer)",
                        chunks, s->pp, sh->split, s->pp);
    g_autofree uint32_t *sizes = g_new(uint32_t, chunks);
    gboolean dflt = TRUE;
    unsigned long prev = 0;
    for (uint32_t j = 0; j < chunks; j++) {
        unsigned long v = sh->split;
        if (j + 1 < chunks) {
            const char *pt = g_strstrip(pts[j]);
            char *end = NULL;
            errno = 0;
            v = g_str_has_prefix(pt, "layers.") && g_ascii_isdigit(pt[7])
                    ? strtoul(pt + 7, &end, 10)
                    : ULONG_MAX;
            if (v == ULONG_MAX || errno != 0 || *end != '\0')
                return bad_value(f, e, "allowed: \"layers.K\" split points", error);
        }
        if (v <= prev || v > sh->split) {
            g_autofree char *allowed = g_strdup_printf(
                "allowed: increasing split points \"layers.K\", 0 < K < %u: every stage holds "
                "a layer",
                sh->split);
            return bad_value(f, e, allowed, error);
        }
        sizes[j] = (uint32_t)(v - prev);
        dflt &= sizes[j] == prism_fw_chunk_layers(sh->split, chunks, j);
        prev = v;
    }
    s->vpp = chunks / s->pp;
    if (!dflt)
        p->chunk_layers = g_steal_pointer(&sizes);
    return TRUE;
}

static gboolean read_titan(const Flat *f, Parsed *p, const Shape *sh, GError **error)
{
    PrismStrategy *s = &p->s;
    uint32_t rep = 1, shard = 0, local = 0, mb = 1, lps = 0;
    gboolean shard_given = FALSE, local_given = FALSE, lps_given = FALSE;
    FwEntry *se = find(f, "parallelism.data_parallel_shard_degree");
    if (se && se->value && strcmp(se->value, "-1") == 0)
        se = NULL; /* -1: the ranks left over */
    else if (se) {
        se->used = FALSE;
        if (!get_u32(f, "parallelism.data_parallel_shard_degree", 1, &shard, &shard_given, error))
            return FALSE;
    }
    if (!get_u32(f, "parallelism.data_parallel_replicate_degree", 1, &rep, NULL, error) ||
        !get_u32(f, "parallelism.tensor_parallel_degree", 1, &s->tp, NULL, error) ||
        !get_u32(f, "parallelism.pipeline_parallel_degree", 1, &s->pp, NULL, error) ||
        !get_u32(f, "parallelism.context_parallel_degree", 1, &s->cp, NULL, error) ||
        !get_u32(f, "parallelism.expert_parallel_degree", 1, &s->ep, NULL, error) ||
        !get_u32(f, "parallelism.pipeline_parallel_microbatch_size", 1, &mb, NULL, error) ||
        !get_u32(f, "parallelism.pipeline_parallel_layers_per_stage", 1, &lps, &lps_given, error) ||
        !get_u32(f, "training.local_batch_size", 1, &local, &local_given, error) ||
        !get_u64(f, "training.seq_len", 1, &p->tr.seq, NULL, error))
        return FALSE;
    FwEntry *ge = find(f, "training.global_batch_size");
    if (ge && !(ge->value && strcmp(ge->value, "-1") == 0)) {
        ge->used = FALSE;
        if (!get_u64(f, "training.global_batch_size", 1, &p->tr.gbs, &p->gbs_given, error))
            return FALSE;
    }
    if (rep > 1 && shard_given && shard > 1) {
        return conflict_u(f, "parallelism.data_parallel_shard_degree", shard, error,
                          "HSDP (replicate %u x shard %u) is not priced: prism shards over the "
                          "whole data-parallel group (allowed: one of the two degrees 1)",
                          rep, shard);
    }
    if (rep > 1 && s->cp > 1) {
        return conflict_u(f, "parallelism.data_parallel_replicate_degree", rep, error,
                          "with context_parallel_degree %u torchtitan shards over the context "
                          "ranks within each replica (HSDP), which is not priced: prism shards "
                          "over the whole data-parallel group (allowed: 1, with "
                          "data_parallel_shard_degree the data-parallel size)",
                          s->cp);
    }
    if (shard_given)
        p->devices = rep * shard * s->tp * s->pp * s->cp;
    s->dp = shard_given ? rep * shard : 0; /* 0: the leftover, set by the caller's count */
    static const char *const reshard[] = {"default", "always", "never", NULL};
    int rs = get_choice(f, "parallelism.fsdp_reshard_after_forward", reshard, error);
    if (rs == -2)
        return FALSE;
    /* FSDP unless replicated only: torchtitan applies fully_shard when dp_shard * cp > 1 */
    p->s.zero = 0;
    if (rep == 1 && (!shard_given || shard > 1 || s->cp > 1))
        p->s.zero = rs == 2 ? 2 : 3;
    if (rep == 1 && shard_given && shard == 1 && s->cp == 1)
        p->s.zero = 0;
    s->sp = s->tp > 1;
    /* the allowed names are the table's, in its order (sc indexes it) */
    const char *sched[G_N_ELEMENTS(titan_schedules) + 1] = {NULL};
    for (size_t i = 0; i < G_N_ELEMENTS(titan_schedules); i++)
        sched[i] = titan_schedules[i].name;
    int sc = get_choice(f, "parallelism.pipeline_parallel_schedule", sched, error);
    if (sc == -2)
        return FALSE;
    s->schedule = sc < 0 ? PRISM_SCHEDULE_1F1B : titan_schedules[sc].s;
    if (s->pp == 1)
        s->schedule = PRISM_SCHEDULE_1F1B;
    s->vpp = 1;
    gboolean looped = s->schedule == PRISM_SCHEDULE_INTERLEAVED ||
                      s->schedule == PRISM_SCHEDULE_ZB_V ||
                      s->schedule == PRISM_SCHEDULE_DUALPIPE_V;
    FwEntry *spe = find(f, "parallelism.pipeline_parallel_split_points");
    if (spe != NULL && spe->value != NULL && *spe->value != '\0' && s->pp > 1) {
        /* split points win over layers per stage (torchtitan: splits = split_points or
         * generate_split_points(...)) */
        if (!read_titan_splits(f, spe, p, sh, error))
            return FALSE;
    } else if (lps_given && s->pp > 1) {
        if (sh->split % (s->pp * lps) != 0) {
            return conflict_u(f, "parallelism.pipeline_parallel_layers_per_stage", lps, error,
                              "pipeline degree %u x %u layers per stage does not divide the %u "
                              "layers",
                              s->pp, lps, sh->split);
        }
        s->vpp = sh->split / (s->pp * lps);
    } else if (looped && s->pp > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "%s: parallelism.pipeline_parallel_schedule=%s: a looped schedule needs "
                    "parallelism.pipeline_parallel_layers_per_stage (the stages per rank)",
                    f->path, titan_schedules[sc].name);
        return FALSE;
    }
    if (s->pp > 1)
        s->mbs = mb;
    else
        s->mbs = local_given ? local : 8; /* torchtitan's default local_batch_size */
    if (!p->gbs_given && s->dp > 0) {     /* no global batch: one local batch per replica */
        p->tr.gbs = (uint64_t)(local_given ? local : 8) * s->dp;
        p->gbs_given = TRUE;
    }
    static const char *const ac[] = {"none", "selective", "full", NULL};
    int mode = get_choice(f, "activation_checkpoint.mode", ac, error);
    if (mode == -2)
        return FALSE;
    s->recompute = mode < 0 ? PRISM_RECOMPUTE_SELECTIVE : (uint8_t)mode; /* default selective */
    FwEntry *opt = find(f, "activation_checkpoint.selective_ac_option");
    if (s->recompute == PRISM_RECOMPUTE_SELECTIVE &&
        (opt == NULL || opt->value == NULL || strcmp(opt->value, "op") != 0)) {
        /* every N-th layer: torchtitan's default option is "2" */
        const char *nv = opt && opt->value ? opt->value : "2";
        char *end = NULL;
        errno = 0;
        unsigned long n = strtoul(nv, &end, 10);
        if (errno != 0 || end == nv || *end != '\0' || n > G_MAXUINT32)
            return bad_value(f, opt, "allowed: op or a layer count N (every N-th layer)", error);
        const uint32_t chunks = s->pp * s->vpp;
        const uint32_t per_chunk = (sh->split + chunks - 1) / chunks;
        const uint64_t rank_layers = (uint64_t)per_chunk * s->vpp;
        const uint64_t kept = n <= 1 ? rank_layers : rank_layers / n; /* 0 and 1: every layer */
        if (kept >= rank_layers) {
            s->recompute = PRISM_RECOMPUTE_FULL;
        } else if (kept == 0) {
            s->recompute = PRISM_RECOMPUTE_NONE;
        } else if (kept % s->vpp != 0) {
            char buf[96];
            g_snprintf(buf, sizeof buf, "%lu", n);
            return conflict(f, "activation_checkpoint.selective_ac_option", buf, error,
                            "every %lu-th of a rank's %" G_GUINT64_FORMAT
                            " layers is %" G_GUINT64_FORMAT
                            " layers, not the same count on each of its %u chunks, which prism "
                            "prices (allowed: an N whose count is a multiple of %u, or op)",
                            n, rank_layers, kept, s->vpp, s->vpp);
        } else {
            s->recompute = PRISM_RECOMPUTE_BLOCK;
            s->rc_layers = (uint16_t)(kept / s->vpp);
        }
    }
    gboolean offload = FALSE;
    if (!get_bool(f, "training.enable_cpu_offload", &offload, NULL, error))
        return FALSE;
    if (offload) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                    "%s: training.enable_cpu_offload=true: offloading parameters and gradients "
                    "with the optimizer is not priced (allowed: false)",
                    f->path);
        return FALSE;
    }
    static const char *const mp[] = {"bfloat16", "float32", NULL};
    int prec = get_choice(f, "training.mixed_precision_param", mp, error);
    if (prec == -2)
        return FALSE;
    p->tr.dtype = prec == 1 ? PRISM_DTYPE_FP32 : PRISM_DTYPE_BF16;
    FwEntry *conv = find(f, "model.converters");
    if (conv && conv->value && *conv->value) {
        if (strcmp(conv->value, "float8") == 0) {
            static const char *const r8[] = {"tensorwise", "rowwise", "rowwise_with_gw_hp", NULL};
            int r = get_choice(f, "float8.recipe_name", r8, error);
            if (r == -2)
                return FALSE;
            if (r > 0) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                            "%s: float8.recipe_name=%s: rowwise FP8 scaling is not priced "
                            "(allowed: tensorwise)",
                            f->path, r8[r]);
                return FALSE;
            }
            p->tr.dtype = PRISM_DTYPE_FP8_CS;
        } else if (strcmp(conv->value, "mx") == 0) {
            (void)find(f, "mx.recipe_name");
            p->tr.dtype = PRISM_DTYPE_MXFP8;
        } else
            return bad_value(f, conv, "allowed: float8 or mx", error);
    }
    p->key_of[1] = "parallelism.tensor_parallel_degree";
    p->key_of[2] = "parallelism.tensor_parallel_degree";
    p->key_of[3] = "parallelism.context_parallel_degree";
    p->key_of[5] = "parallelism.expert_parallel_degree";
    p->key_of[6] = "parallelism.pipeline_parallel_layers_per_stage";
    p->key_of[7] = "parallelism.pipeline_parallel_schedule";
    p->key_of[8] =
        s->pp > 1 ? "parallelism.pipeline_parallel_microbatch_size" : "training.local_batch_size";
    p->key_of[9] = "parallelism.data_parallel_shard_degree";
    return TRUE;
}

static gboolean read_deepspeed(const Flat *f, Parsed *p, const PrismModel *m, const Shape *sh,
                               GError **error)
{
    PrismStrategy *s = &p->s;
    if (!check_shape(f, "--num-layers", sh->blocks, m, error) ||
        !check_shape(f, "--hidden-size", sh->hidden, m, error) ||
        !check_shape(f, "--num-attention-heads", sh->heads, m, error) ||
        !check_shape(f, "--num-key-value-heads", sh->kv_heads, m, error) ||
        !check_shape(f, "--ffn-hidden-size", sh->ffn, m, error))
        return FALSE;
    (void)find(f, "--max-position-embeddings");
    uint32_t nnodes = 0, ngpus = 0;
    gboolean g1 = FALSE, g2 = FALSE;
    if (!get_u32(f, "--num_nodes", 1, &nnodes, &g1, error) ||
        !get_u32(f, "--num_gpus", 1, &ngpus, &g2, error))
        return FALSE;
    if (g1 && g2)
        p->devices = nnodes * ngpus;
    if (!get_u64(f, "--seq-length", 1, &p->tr.seq, NULL, error) ||
        !get_u32(f, "--micro-batch-size", 1, &s->mbs, NULL, error) ||
        !get_u64(f, "--global-batch-size", 1, &p->tr.gbs, &p->gbs_given, error) ||
        !get_u32(f, "--tensor-model-parallel-size", 1, &s->tp, NULL, error) ||
        !get_u32(f, "--pipeline-model-parallel-size", 1, &s->pp, NULL, error))
        return FALSE;
    gboolean no_pp = FALSE, b = FALSE;
    if (!get_bool(f, "--no-pipeline-parallel", &no_pp, NULL, error))
        return FALSE;
    if (no_pp && s->pp != 1)
        return conflict(f, "--no-pipeline-parallel", "(flag)", error,
                        "contradicts --pipeline-model-parallel-size %u (allowed: with 1)", s->pp);
    if (!get_bool(f, "--sequence-parallel", &b, NULL, error))
        return FALSE;
    s->sp = (uint8_t)b;
    static const char *const gran[] = {"full", "selective", NULL};
    static const char *const meth[] = {"uniform", "block", NULL};
    int g = get_choice(f, "--recompute-granularity", gran, error);
    int me = get_choice(f, "--recompute-method", meth, error);
    uint32_t rcl = 1;
    if (g == -2 || me == -2 || !get_u32(f, "--recompute-num-layers", 1, &rcl, NULL, error))
        return FALSE;
    gboolean ckpt = FALSE;
    uint32_t chunk = 1;
    if (!get_bool(f, "--checkpoint-activations", &ckpt, NULL, error) ||
        !get_u32(f, "--checkpoint-num-layers", 1, &chunk, NULL, error))
        return FALSE;
    if (ckpt && chunk != 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                    "%s: --checkpoint-num-layers=%u: checkpointing chunks of several layers is "
                    "not priced (allowed: 1)",
                    f->path, chunk);
        return FALSE;
    }
    s->recompute = g == 1              ? PRISM_RECOMPUTE_SELECTIVE
                   : g == 0 && me == 1 ? PRISM_RECOMPUTE_BLOCK
                   : (g == 0 || ckpt)  ? PRISM_RECOMPUTE_FULL
                                       : PRISM_RECOMPUTE_NONE;
    if (s->recompute == PRISM_RECOMPUTE_BLOCK)
        s->rc_layers = (uint16_t)MIN(rcl, G_MAXUINT16);
    /* ds_config: the here-document or the JSON file itself */
    uint64_t tbs = 0, mbs = 0, gas = 0, stage = 0, argstage = 0;
    gboolean tbs_g = FALSE, mbs_g = FALSE, gas_g = FALSE, arg_g = FALSE;
    if (!get_u64(f, "ds_config.train_batch_size", 1, &tbs, &tbs_g, error) ||
        !get_u64(f, "ds_config.train_micro_batch_size_per_gpu", 1, &mbs, &mbs_g, error) ||
        !get_u64(f, "ds_config.gradient_accumulation_steps", 1, &gas, &gas_g, error) ||
        !get_u64(f, "ds_config.zero_optimization.stage", 0, &stage, NULL, error) ||
        !get_u64(f, "--zero-stage", 0, &argstage, &arg_g, error))
        return FALSE;
    if (stage > 3) {
        return conflict_u(f, "ds_config.zero_optimization.stage", stage, error, "allowed: 0 to 3");
    }
    if (arg_g && argstage != stage && find(f, "ds_config.zero_optimization.stage")) {
        return conflict_u(f, "--zero-stage", argstage, error,
                          "ds_config.json says zero_optimization.stage %" G_GUINT64_FORMAT, stage);
    }
    s->zero = (uint8_t)(arg_g && !find(f, "ds_config.zero_optimization.stage") ? argstage : stage);
    if (mbs_g) {
        if (find(f, "--micro-batch-size") && mbs != s->mbs) {
            return conflict_u(f, "ds_config.train_micro_batch_size_per_gpu", mbs, error,
                              "--micro-batch-size says %u", s->mbs);
        }
        s->mbs = (uint32_t)mbs;
    }
    if (tbs_g) {
        if (p->gbs_given && tbs != p->tr.gbs) {
            char buf[24];
            g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT, tbs);
            return conflict(f, "ds_config.train_batch_size", buf, error,
                            "--global-batch-size says %" G_GUINT64_FORMAT, p->tr.gbs);
        }
        p->tr.gbs = tbs;
        p->gbs_given = TRUE;
    }
    if (gas_g)
        s->m = (uint32_t)gas; /* checked against gbs / (dp * mbs) by the caller */
    FwEntry *dev = find(f, "ds_config.zero_optimization.offload_optimizer.device");
    s->offload = dev && dev->value && strcmp(dev->value, "none") != 0 ? PRISM_OFFLOAD_OPTIMIZER : 0;
    gboolean bf = FALSE, fp = FALSE, abf = FALSE, afp = FALSE;
    if (!get_bool(f, "ds_config.bf16.enabled", &bf, NULL, error) ||
        !get_bool(f, "ds_config.fp16.enabled", &fp, NULL, error) ||
        !get_bool(f, "--bf16", &abf, NULL, error) || !get_bool(f, "--fp16", &afp, NULL, error))
        return FALSE;
    if ((bf || abf) && (fp || afp))
        return conflict(f, "ds_config.fp16.enabled", "true", error,
                        "bf16 is enabled too (allowed: one of them)");
    p->tr.dtype = (bf || abf)   ? PRISM_DTYPE_BF16
                  : (fp || afp) ? PRISM_DTYPE_FP16
                                : PRISM_DTYPE_FP32;
    (void)find(f, "--deepspeed");
    (void)find(f, "--deepspeed_config");
    s->schedule = PRISM_SCHEDULE_1F1B;
    s->vpp = 1;
    s->cp = 1;
    s->ep = 1;
    p->key_of[1] = "--tensor-model-parallel-size";
    p->key_of[2] = "--tensor-model-parallel-size";
    p->key_of[4] = "--sequence-parallel";
    p->key_of[6] = "--pipeline-model-parallel-size";
    p->key_of[8] = "ds_config.gradient_accumulation_steps";
    p->key_of[9] = "ds_config.zero_optimization.stage";
    p->key_of[10] = "--recompute-num-layers";
    return TRUE;
}

static gboolean read_nanotron(const Flat *f, Parsed *p, GError **error)
{
    PrismStrategy *s = &p->s;
    uint32_t acc = 1;
    if (!get_u32(f, "parallelism.dp", 1, &s->dp, NULL, error) ||
        !get_u32(f, "parallelism.tp", 1, &s->tp, NULL, error) ||
        !get_u32(f, "parallelism.pp", 1, &s->pp, NULL, error) ||
        !get_u32(f, "parallelism.context_parallel_size", 1, &s->cp, NULL, error) ||
        !get_u32(f, "parallelism.expert_parallel_size", 1, &s->ep, NULL, error) ||
        !get_u64(f, "tokens.sequence_length", 1, &p->tr.seq, NULL, error) ||
        !get_u32(f, "tokens.micro_batch_size", 1, &s->mbs, NULL, error) ||
        !get_u32(f, "tokens.batch_accumulation_per_replica", 1, &acc, NULL, error))
        return FALSE;
    uint64_t z = 0;
    if (!get_u64(f, "optimizer.zero_stage", 0, &z, NULL, error))
        return FALSE;
    if (z > 1) {
        return conflict_u(f, "optimizer.zero_stage", z, error, "allowed: 0 or 1");
    }
    s->zero = (uint8_t)z;
    p->devices = s->dp * s->tp * s->pp * s->cp;
    s->m = acc;
    p->tr.gbs = (uint64_t)s->dp * s->mbs * acc;
    p->gbs_given = TRUE;
    static const char *const eng[] = {"1f1b", "afab", NULL};
    static const char *const mode[] = {"ALL_REDUCE", "REDUCE_SCATTER", NULL};
    int e = get_choice(f, "parallelism.pp_engine", eng, error);
    int md = get_choice(f, "parallelism.tp_mode", mode, error);
    if (e == -2 || md == -2)
        return FALSE;
    s->schedule = s->pp > 1 && e == 1 ? PRISM_SCHEDULE_GPIPE : PRISM_SCHEDULE_1F1B;
    if (s->pp > 1 && e < 0)
        s->schedule =
            PRISM_SCHEDULE_GPIPE; /* nanotron's default engine: all forward, all backward */
    s->vpp = 1;
    s->sp = md == 1;
    gboolean async = FALSE, rc = FALSE;
    if (!get_bool(f, "parallelism.tp_linear_async_communication", &async, NULL, error) ||
        !get_bool(f, "parallelism.recompute_layer", &rc, NULL, error))
        return FALSE;
    if (async) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                    "%s: parallelism.tp_linear_async_communication=true: nanotron's "
                    "asynchronous TP linears are not priced (allowed: false)",
                    f->path);
        return FALSE;
    }
    s->recompute = rc ? PRISM_RECOMPUTE_FULL : PRISM_RECOMPUTE_NONE;
    static const char *const dt[] = {"bfloat16", "float16", "float32", NULL};
    int d = get_choice(f, "model.dtype", dt, error);
    if (d == -2)
        return FALSE;
    p->tr.dtype = d == 1 ? PRISM_DTYPE_FP16 : d == 2 ? PRISM_DTYPE_FP32 : PRISM_DTYPE_BF16;
    p->key_of[1] = "parallelism.tp";
    p->key_of[2] = "parallelism.tp";
    p->key_of[3] = "parallelism.context_parallel_size";
    p->key_of[4] = "parallelism.tp_mode";
    p->key_of[5] = "parallelism.expert_parallel_size";
    p->key_of[6] = "parallelism.pp";
    p->key_of[8] = "tokens.micro_batch_size";
    p->key_of[9] = "optimizer.zero_stage";
    return TRUE;
}

/* Which format: by extension, then by content. */
typedef enum { FMT_ARGS, FMT_TOML, FMT_YAML, FMT_JSON, FMT_UNKNOWN } Format;

static Format format_of(const char *path, const char *text)
{
    if (g_str_has_suffix(path, ".toml"))
        return FMT_TOML;
    if (g_str_has_suffix(path, ".yaml") || g_str_has_suffix(path, ".yml"))
        return FMT_YAML;
    if (g_str_has_suffix(path, ".json"))
        return FMT_JSON;
    if (g_str_has_suffix(path, ".sh") || strstr(text, "<<") != NULL)
        return FMT_ARGS; /* a launch script */
    const char *p = text;
    while (g_ascii_isspace(*p))
        p++;
    if (*p == '{')
        return FMT_JSON;
    gboolean dashes = strstr(text, "--") != NULL, table = FALSE, colon = FALSE, dotted = FALSE;
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        const char *l = g_strstrip(lines[i]);
        if (*l == '#' || *l == '\0')
            continue;
        size_t n = strlen(l);
        if (l[0] == '[' && l[n - 1] == ']')
            table = TRUE;
        const char *c = strchr(l, ':');
        if (c && (c[1] == '\0' || c[1] == ' ') && strchr(l, '=') == NULL)
            colon = TRUE;
        const char *eq = strchr(l, '=');
        const char *dot = strchr(l, '.');
        if (eq && dot && dot < eq && l[0] != '-')
            dotted = TRUE;
    }
    if (table)
        return FMT_TOML;
    if (dashes || dotted)
        return FMT_ARGS;
    if (colon)
        return FMT_YAML;
    return FMT_UNKNOWN;
}

/* The rule id of a strategy.h error ("R8: ...") as a number, 0 when none. */
static int rule_of(const GError *e)
{
    const char *m = e->message;
    if (m[0] == 'R' && g_ascii_isdigit(m[1]))
        return atoi(m + 1);
    return 0;
}

PrismRunConfig *prism_fwconfig_from_data(const char *data, size_t len, const char *path,
                                         uint32_t devices, const PrismTraining *training,
                                         const PrismModel *model, GError **error)
{
    g_return_val_if_fail(training != NULL && model != NULL, NULL);
    g_autofree char *text = g_strndup(data ? data : "", len);
    if (strlen(text) != len) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s: a NUL byte in a text configuration", path);
        return NULL;
    }
    Flat f = {g_ptr_array_new_with_free_func(fw_entry_free), path};
    Format fmt = format_of(path, text);
    gboolean ok = TRUE;
    PrismFwTarget t = PRISM_FWC_MEGATRON;
    switch (fmt) {
    case FMT_TOML:
        ok = fw_read_toml(text, path, f.e, error);
        t = PRISM_FWC_TORCHTITAN;
        break;
    case FMT_YAML:
        ok = fw_read_yaml(text, len, path, f.e, error);
        t = PRISM_FWC_NANOTRON;
        break;
    case FMT_JSON:
        ok = fw_read_json(text, len, path, "ds_config", f.e, error);
        t = PRISM_FWC_DEEPSPEED;
        break;
    case FMT_ARGS:
        ok = fw_read_args_flags(text, path, megatron_flags, f.e, error);
        break;
    default:
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "%s: not a configuration prism reads (allowed: Megatron-LM arguments or a "
                    "launch script, Megatron-Bridge key=value overrides, a torchtitan .toml, a "
                    "DeepSpeed ds_config.json or launch script, a nanotron .yaml)",
                    path);
        ok = FALSE;
        break;
    }
    if (ok && fmt == FMT_ARGS) {
        gboolean dash = FALSE, dot = FALSE, ds = FALSE;
        for (guint i = 0; i < f.e->len; i++) {
            const FwEntry *e = f.e->pdata[i];
            if (g_str_has_prefix(e->key, "--"))
                dash = TRUE;
            else if (g_str_has_prefix(e->key, "ds_config."))
                ds = TRUE;
            else if (strchr(e->key, '.'))
                dot = TRUE;
            if (strcmp(e->key, "--deepspeed") == 0 || strcmp(e->key, "--deepspeed_config") == 0)
                ds = TRUE;
        }
        t = ds ? PRISM_FWC_DEEPSPEED : dash ? PRISM_FWC_MEGATRON : PRISM_FWC_NEMO;
        if (!dash && !dot && !ds) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                        "%s: no --argument and no group.key=value override found: not a "
                        "framework configuration prism reads",
                        path);
            ok = FALSE;
        }
    }
    if (ok && fmt == FMT_TOML && find(&f, "parallelism.dp") == NULL) {
        for (guint i = 0; i < f.e->len; i++)
            ((FwEntry *)f.e->pdata[i])->used = FALSE;
    }
    Shape sh = shape_of(model);
    Parsed p = {.tr = *training};
    p.s = (PrismStrategy){.tp = 1, .pp = 1, .vpp = 1, .cp = 1, .ep = 1, .mbs = 1};
    if (ok) {
        switch (t) {
        case PRISM_FWC_MEGATRON:
            ok = read_mcore(&f, &megatron_names, TRUE, &p, model, &sh, error);
            break;
        case PRISM_FWC_NEMO:
            ok = read_mcore(&f, &nemo_names, FALSE, &p, model, &sh, error);
            break;
        case PRISM_FWC_TORCHTITAN:
            ok = read_titan(&f, &p, &sh, error);
            break;
        case PRISM_FWC_DEEPSPEED:
            ok = read_deepspeed(&f, &p, model, &sh, error);
            break;
        default:
            ok = read_nanotron(&f, &p, error);
            break;
        }
    }
    PrismRunConfig *c = NULL;
    if (ok) {
        PrismStrategy *s = &p.s;
        s->devices = p.devices ? p.devices : devices;
        uint64_t inner = (uint64_t)s->tp * s->pp * s->cp;
        if (inner == 0 || s->devices % inner != 0) {
            /* the file's tensor-parallel key names the product (the first factor) */
            g_autofree char *key =
                p.key_of[1] ? g_strdup_printf("%s=%u: ", p.key_of[1], s->tp) : g_strdup("");
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                        "%s: %stensor %u x pipeline %u x context %u = %" G_GUINT64_FORMAT
                        " does not divide the %u devices (R1; give --devices the job's GPU count)",
                        path, key, s->tp, s->pp, s->cp, inner, s->devices);
            ok = FALSE;
        } else {
            uint32_t dp = (uint32_t)(s->devices / inner);
            if (s->dp != 0 && s->dp != dp && t != PRISM_FWC_TORCHTITAN) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                            "%s: data parallel %u x tensor %u x pipeline %u x context %u != %u "
                            "devices (R1)",
                            path, s->dp, s->tp, s->pp, s->cp, s->devices);
                ok = FALSE;
            }
            s->dp = dp;
            if (t == PRISM_FWC_TORCHTITAN && !p.gbs_given)
                p.tr.gbs = (uint64_t)s->mbs * dp;
            uint64_t per = (uint64_t)dp * s->mbs;
            uint32_t m_file = s->m;
            if (ok && p.tr.gbs % per != 0) {
                const char *key = p.key_of[8] ? p.key_of[8] : "micro-batch";
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE,
                            "%s: %s=%u: data parallel %u x micro-batch %u does not divide the "
                            "global batch %" G_GUINT64_FORMAT " (R8)",
                            path, key, s->mbs, dp, s->mbs, p.tr.gbs);
                ok = FALSE;
            } else if (ok) {
                s->m = (uint32_t)(p.tr.gbs / per);
                if (t == PRISM_FWC_DEEPSPEED && m_file != 0 && m_file != s->m) {
                    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                                "%s: ds_config.gradient_accumulation_steps=%u: the global batch "
                                "%" G_GUINT64_FORMAT " over data parallel %u x micro-batch %u "
                                "needs %u",
                                path, m_file, p.tr.gbs, dp, s->mbs, s->m);
                    ok = FALSE;
                }
            }
        }
        if (ok && s->etp == 0)
            s->etp = s->tp;
        if (ok) {
            /* options that mean nothing here are blank (R12) */
            for (unsigned bit = 1; bit <= PRISM_OVERLAP_PARAM; bit <<= 1)
                if (!prism_strategy_overlap_applies(s, (PrismOverlap)bit))
                    s->overlap_off &= (uint8_t)~bit;
            if (s->etp == s->tp)
                s->etp = 0;
        }
        GError *e = NULL;
        if (ok && !prism_strategy_check(s, model, &p.tr, &e)) {
            int r = rule_of(e);
            const char *key = r > 0 && r < 16 && p.key_of[r] ? p.key_of[r] : NULL;
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_SHAPE, "%s: %s%s%s", path,
                        key ? key : "", key ? ": " : "", e->message);
            g_error_free(e);
            ok = FALSE;
        }
        if (ok) {
            c = g_new0(PrismRunConfig, 1);
            c->target = t;
            c->strategy = *s;
            c->training = p.tr;
            c->chunk_layers = g_steal_pointer(&p.chunk_layers);
            c->ignored = g_ptr_array_new_with_free_func(g_free);
            for (guint i = 0; i < f.e->len; i++) {
                const FwEntry *en = f.e->pdata[i];
                if (!en->used)
                    g_ptr_array_add(c->ignored, g_strdup(en->key));
            }
        }
    }
    g_ptr_array_unref(f.e);
    g_free(p.chunk_layers);
    return c;
}

PrismRunConfig *prism_fwconfig_read(const char *path, uint32_t devices,
                                    const PrismTraining *training, const PrismModel *model,
                                    GError **error)
{
    g_autofree char *data = NULL;
    gsize len = 0;
    GError *e = NULL;
    if (!g_file_get_contents(path, &data, &len, &e)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "--from %s: %s", path,
                    e->message);
        g_error_free(e);
        return NULL;
    }
    return prism_fwconfig_from_data(data, len, path, devices, training, model, error);
}

void prism_run_config_free(PrismRunConfig *c)
{
    if (c == NULL)
        return;
    if (c->ignored)
        g_ptr_array_unref(c->ignored);
    g_free(c->chunk_layers);
    g_free(c);
}
