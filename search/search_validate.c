// SPDX-License-Identifier: MIT
/*
 * cost_validate.c - `prism validate`: predict every fully specified row of a CSV of
 * published measurements (layout of shared/validation/measured.csv) and report predicted
 * versus measured peak memory, step time, TFLOP/s per GPU and MFU, with the mean and
 * worst absolute percentage error per source.
 *
 * Models are built from the row's shape columns (GPT family: learned positions,
 * LayerNorm, GELU, biases, tied embeddings; ffn 4h unless given). Each source's setup is
 * applied from what the source states (dtype, flash attention or not, overlap features,
 * how memory was measured) and listed in the report; nothing is fitted per row. Rows the
 * model cannot be given honestly (missing micro-batch, recompute, ...) are skipped with
 * the reason, or - when their source has a planned setup and a planner is given - handed
 * to the planner with the stated dims fixed (the planned table, kept apart from the
 * direct statistics). Nothing here is collective; the planner may be.
 */
#include <prism/cost.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include <prism/core.h>

#include "cost-internal.h"

/* What a source states about its runs, turned into inputs and knobs. */
typedef struct SourceSetup {
    const char *id;
    const char *const *knobs;  /* "name=value" */
    double mem_unit;           /* bytes per published "GB" */
    gboolean tflops_hfu;       /* published TFLOP/s count recompute FLOPs */
    gboolean tied;             /* embeddings tied */
    const char *vocab_default; /* used when the row leaves vocab empty (else skip) */
    const char *dtype_default; /* used when the row leaves dtype empty; NULL = fp16 */
    const char *plan_only;     /* planned mode: what the framework supported (an --only
                                * text); NULL = rows with unstated dims are skipped */
    gboolean uniform_chunks;   /* planned mode: the framework needs L % pp == 0 and equal
                                * model chunks (vpp divides L/pp) */
    const char *notes;
} SourceSetup;

static const char *const sc21_knobs[] = {"flash_attention=0", "dropout=1",    "tp_overlap=0",
                                         "dp_overlap=0",      "pp_overlap=0", NULL};
static const char *const korth_knobs[] = {"flash_attention=0", "dropout=1",    "tp_overlap=0",
                                          "dp_overlap=0",      "pp_overlap=0", NULL};
static const char *const zb_knobs[] = {"flash_attention=0", "dropout=1", "runtime_overhead=0",
                                       "pp_overlap=0", NULL};
/* Megatron-Core r0.8 with Transformer Engine: flash attention (TE's fused attention),
 * dropout (GPT default 0.1); the README states --tp-comm-overlap and --overlap-grad-reduce
 * --overlap-param-gather: the hidden shares are SAPP-ND's MindFormers-validated figures
 * (0.5 for TP, 0.9 for DP; SEEDS.md 3.2). No p2p overlap flag is stated: pp_overlap stays 0. */
static const char *const mlm_knobs[] = {"flash_attention=1", "dropout=1", "tp_overlap=0.5",
                                        "dp_overlap=0.9", NULL};
static const char *const no_knobs[] = {NULL};

static const SourceSetup sources[] = {
    {"SC21_T1", sc21_knobs, 1e9, TRUE, TRUE, NULL, NULL, NULL, FALSE,
     "fp16, Megatron-LM 2021: no flash attention, dropout on, no TP/DP/PP overlap; "
     "TFLOP/s count recompute (HFU), compared with predicted HFU x peak"},
    {"KORTH22_T5", korth_knobs, 1e9, FALSE, TRUE, NULL, NULL, NULL, FALSE,
     "Megatron-LM 2022: no flash attention, dropout on, no overlap (dp = 1)"},
    {"ZB_PP", zb_knobs, 1073741824.0, FALSE, TRUE, "50304", NULL, NULL, FALSE,
     "vocab not stated: GPT-2 BPE padded to 50304 (Megatron default) assumed; memory = "
     "PyTorch allocated bytes in GiB (no CUDA context: runtime_overhead=0); paper's "
     "sb(34h+5as) accounting: no flash attention, dropout on; 1F1B-I uses one layer per "
     "chunk with the first and last chunk empty"},
    {"MLM_README_H100_2024", mlm_knobs, 1e9, FALSE, FALSE, NULL, "bf16",
     "schedule=1f1b,interleaved,zero=0,1", TRUE,
     "Megatron-Core r0.8, untied embeddings, TE flash attention; micro-batch, recompute, vpp, "
     "sp and ZeRO not stated: PLANNED (the search picks them among what Megatron-Core r0.8 "
     "supported: 1F1B or interleaved 1F1B with equal model chunks (vpp divides layers/pp), "
     "recompute none/selective/full/block, sp 0/1, distributed optimizer (ZeRO-1) or none); dtype not stated: bf16 (TFLOP/s / MFU = 989 "
     "= H100 SXM dense bf16); TP/DP overlap stated"},
};

static const SourceSetup *find_source(const char *id)
{
    for (size_t i = 0; i < G_N_ELEMENTS(sources); i++)
        if (strcmp(sources[i].id, id) == 0)
            return &sources[i];
    return NULL;
}

/* One CSV record split into fields (RFC 4180 quoting). */
static GPtrArray *csv_record(const char **p)
{
    GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
    GString *cur = g_string_new(NULL);
    const char *s = *p;
    gboolean quoted = FALSE;
    for (;; s++) {
        if (quoted) {
            if (*s == '\0')
                break;
            if (*s == '"' && s[1] == '"') {
                g_string_append_c(cur, '"');
                s++;
            } else if (*s == '"') {
                quoted = FALSE;
            } else {
                g_string_append_c(cur, *s);
            }
            continue;
        }
        if (*s == '"') {
            quoted = TRUE;
        } else if (*s == ',' || *s == '\n' || *s == '\0' || *s == '\r') {
            g_ptr_array_add(f, g_string_free(cur, FALSE));
            cur = g_string_new(NULL);
            if (*s == '\r' && s[1] == '\n')
                s++;
            if (*s != ',')
                break;
        } else {
            g_string_append_c(cur, *s);
        }
    }
    g_string_free(cur, TRUE);
    *p = *s ? s + 1 : s;
    return f;
}

typedef struct Row {
    GHashTable *kv; /* header -> value (borrowed from fields) */
    GPtrArray *fields;
    int line;
} Row;

static const char *col(const Row *r, const char *name)
{
    const char *v = g_hash_table_lookup(r->kv, name);
    return v ? v : "";
}

/* A non-negative number from a cell; FALSE for empty or malformed. */
static gboolean num(const Row *r, const char *name, double *out)
{
    const char *v = col(r, name);
    if (*v == '\0')
        return FALSE;
    char *end = NULL;
    errno = 0;
    double d = g_ascii_strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !(d >= 0))
        return FALSE;
    *out = d;
    return TRUE;
}

typedef struct Pred {
    double mem_gb, step, tflops, mfu;      /* predicted */
    double m_mem, m_step, m_tflops, m_mfu; /* measured (NAN = not published) */
} Pred;

typedef struct Stat {
    double sum[4], worst[4];
    int n[4];
} Stat;

static PrismModel *row_model(const Row *r, const SourceSetup *src, GString *why)
{
    double L, h, a, s, V = 0, f = 0, kv = 0;
    if (!num(r, "layers", &L) || !num(r, "hidden", &h) || !num(r, "heads", &a) ||
        !num(r, "seq_len", &s)) {
        g_string_append(why, "shape (layers/hidden/heads/seq_len) incomplete");
        return NULL;
    }
    if (!num(r, "vocab", &V)) {
        if (src->vocab_default == NULL) {
            g_string_append(why, "vocab not stated");
            return NULL;
        }
        V = g_ascii_strtod(src->vocab_default, NULL);
    }
    if (!num(r, "ffn_hidden", &f))
        f = 4 * h;
    if (!num(r, "kv_heads", &kv))
        kv = a;
    PrismModel *m = prism_model_new(col(r, "model_name"), "gpt");
    m->hidden = (uint64_t)h;
    m->vocab = (uint64_t)V;
    m->max_positions = (uint64_t)s;
    /* GPT in Megatron-LM and Megatron-Core: learned absolute positions by default */
    m->pos = PRISM_POS_LEARNED;
    m->final_norm = PRISM_NORM_LAYERNORM;
    m->tied_embeddings = src->tied;
    PrismBlockSpec sp;
    memset(&sp, 0, sizeof sp);
    sp.attn = (PrismAttnSpec){.kind = PRISM_ATTN_STANDARD,
                              .n_heads = (uint32_t)a,
                              .n_kv_heads = (uint32_t)kv,
                              .head_dim = (uint32_t)(h / a),
                              .qkv_bias = TRUE,
                              .out_bias = TRUE};
    sp.mlp = (PrismMlpSpec){.act = PRISM_MLP_GELU, .bias = TRUE, .ffn_hidden = (uint64_t)f};
    sp.norm = PRISM_NORM_LAYERNORM;
    uint32_t id = prism_model_add_spec(m, &sp);
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    for (uint32_t i = 0; i < (uint32_t)L; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, id);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

static const char *cluster_name(const Row *r)
{
    const char *g = col(r, "gpu_type");
    double mem = 0;
    if (g_ascii_strcasecmp(g, "A100") == 0)
        return num(r, "gpu_mem_gb", &mem) && mem <= 40 ? "A100-40GB" : "A100-80GB";
    if (g_ascii_strcasecmp(g, "H100") == 0)
        return "H100-SXM";
    return NULL;
}

/* What a row gives, turned into inputs: the cost model (model, cluster, training, knobs)
 * and the stated parallel dims. */
typedef struct RowInputs {
    PrismCostModel *cm;
    double peak;               /* dense peak FLOP/s of the dtype */
    double tp, pp, dp, cp, ep; /* stated (cp/ep default 1) */
    double n, gbs;
} RowInputs;

static void row_inputs_clear(RowInputs *in)
{
    prism_cost_model_free(in->cm);
    in->cm = NULL;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RowInputs, row_inputs_clear)

static gboolean row_inputs(const Row *r, const SourceSetup *src, const PrismKnobs *user,
                           RowInputs *in, GString *why)
{
    memset(in, 0, sizeof *in);
    in->cp = in->ep = 1;
    if (!num(r, "global_batch", &in->gbs)) {
        g_string_append(why, "global_batch not stated");
        return FALSE;
    }
    if (!num(r, "tp", &in->tp) || !num(r, "pp", &in->pp) || !num(r, "num_gpus", &in->n)) {
        g_string_append(why, "tp/pp/num_gpus not stated");
        return FALSE;
    }
    (void)num(r, "cp", &in->cp);
    (void)num(r, "ep", &in->ep);
    if (!num(r, "dp", &in->dp))
        in->dp = in->n / (in->tp * in->pp * in->cp);
    const char *cl = cluster_name(r);
    if (cl == NULL) {
        g_string_append_printf(why, "gpu_type '%s' has no preset", col(r, "gpu_type"));
        return FALSE;
    }
    g_autoptr(PrismModel) model = row_model(r, src, why);
    if (model == NULL)
        return FALSE;
    GError *error = NULL;
    g_autoptr(PrismCluster) cluster = prism_cluster_preset(cl, &error);
    if (cluster == NULL) {
        g_string_append_printf(why, "cluster %s: %s", cl, error->message);
        g_error_free(error);
        return FALSE;
    }
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = (uint64_t)in->gbs;
    t.seq = model->max_positions;
    const char *dt = *col(r, "dtype") ? col(r, "dtype") : src->dtype_default;
    t.dtype = dt != NULL && strcmp(dt, "bf16") == 0 ? PRISM_DTYPE_BF16 : PRISM_DTYPE_FP16;
    /* source setup, then whatever the user changed from the defaults */
    PrismKnobs k, def;
    prism_knobs_default(&k);
    prism_knobs_default(&def);
    for (const char *const *s = src->knobs; *s; s++)
        if (!prism_knobs_set(&k, *s, NULL))
            g_assert_not_reached();
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        if (user->v[i] != def.v[i])
            k.v[i] = user->v[i];
    in->cm = prism_cost_model_new(model, cluster, &t, &k, &error);
    if (in->cm == NULL) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    in->peak = cluster->peak_flops[t.dtype];
    return TRUE;
}

/* The measured values of a row (NAN = not published). */
static void measured(const Row *r, const RowInputs *in, Pred *p)
{
    p->m_mem = p->m_step = p->m_tflops = p->m_mfu = NAN;
    double v;
    if (num(r, "measured_peak_mem_gb", &v))
        p->m_mem = v;
    if (num(r, "measured_step_time_s", &v))
        p->m_step = v;
    else if (num(r, "measured_tokens_per_s_per_gpu", &v) && v > 0)
        p->m_step = in->gbs * (double)prism_cost_model_training(in->cm)->seq /
                    (v * in->n); /* same quantity as tokens/s */
    if (num(r, "measured_tflops_per_gpu", &v))
        p->m_tflops = v;
    if (num(r, "measured_mfu", &v))
        p->m_mfu = v;
}

static void predicted(const double c[PRISM_COL_COUNT], const SourceSetup *src,
                      const RowInputs *in, Pred *p)
{
    p->mem_gb = c[PRISM_COL_MEM_PEAK] / src->mem_unit;
    p->step = c[PRISM_COL_TIME_STEP];
    p->mfu = c[PRISM_COL_MFU];
    p->tflops = (src->tflops_hfu ? c[PRISM_COL_HFU] : c[PRISM_COL_MFU]) * in->peak * 1e-12;
}

/* TRUE when the row states what a direct prediction needs (micro-batch, recompute). */
static gboolean fully_stated(const Row *r, GString *why)
{
    if (*col(r, "micro_batch") == '\0') {
        g_string_append(why, "micro_batch not stated");
        return FALSE;
    }
    if (*col(r, "recompute") == '\0') {
        g_string_append(why, "recompute not stated");
        return FALSE;
    }
    return TRUE;
}

/* TRUE when the row states every strategy dim the planner could choose; else the
 * unstated ones are listed in @p why. */
static gboolean all_strategy_dims(const Row *r, GString *why)
{
    static const char *const dims[] = {"micro_batch", "recompute", "vpp", "sp", "zero_stage"};
    gboolean all = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(dims); i++)
        if (*col(r, dims[i]) == '\0') {
            g_string_append_printf(why, "%s%s", all ? "" : ", ", dims[i]);
            all = FALSE;
        }
    if (!all)
        g_string_append(why, " not stated");
    return all;
}

static gboolean parse_recompute(const char *rc, PrismStrategy *s, GString *why)
{
    if (strcmp(rc, "full") == 0)
        s->recompute = PRISM_RECOMPUTE_FULL;
    else if (strcmp(rc, "selective") == 0)
        s->recompute = PRISM_RECOMPUTE_SELECTIVE;
    else if (strcmp(rc, "none") == 0)
        s->recompute = PRISM_RECOMPUTE_NONE;
    else {
        g_string_append_printf(why, "recompute '%s' unknown", rc);
        return FALSE;
    }
    return TRUE;
}

/* Predict one fully stated row; FALSE (with the reason in @p why) when it cannot be. */
static gboolean predict(const Row *r, const SourceSetup *src, const PrismKnobs *user, Pred *p,
                        GString *strat, GString *why)
{
    double vpp = 1, sp = 0, zero = 0, mbs;
    if (!num(r, "micro_batch", &mbs)) {
        g_string_append(why, "micro_batch not stated");
        return FALSE;
    }
    g_auto(RowInputs) in = {0};
    if (!row_inputs(r, src, user, &in, why))
        return FALSE;
    (void)num(r, "vpp", &vpp);
    (void)num(r, "sp", &sp);
    (void)num(r, "zero_stage", &zero);
    PrismStrategy s = {.devices = (uint32_t)in.n,
                       .dp = (uint32_t)in.dp,
                       .tp = (uint32_t)in.tp,
                       .pp = (uint32_t)in.pp,
                       .vpp = (uint32_t)vpp,
                       .cp = (uint32_t)in.cp,
                       .ep = (uint32_t)in.ep,
                       .mbs = (uint32_t)mbs,
                       .sp = (uint8_t)sp,
                       .zero = (uint8_t)zero,
                       .schedule = vpp > 1 ? PRISM_SCHEDULE_INTERLEAVED : PRISM_SCHEDULE_1F1B};
    s.m = (uint32_t)(in.gbs / (in.dp * mbs));
    if (!parse_recompute(col(r, "recompute"), &s, why))
        return FALSE;
    g_autofree char *st = prism_strategy_format(&s);
    g_string_append(strat, st);
    double c[PRISM_COL_COUNT];
    const PrismModel *model = prism_cost_model_model(in.cm);
    const uint32_t L = prism_model_split_layers(model);
    GError *error = NULL;
    gboolean ok;
    if (s.vpp > 1 && (uint64_t)s.pp * s.vpp == (uint64_t)L + 2) {
        /* ZB_PP 1F1B-I: one layer per chunk, first and last chunk empty */
        g_autoptr(PrismLayout) l = prism_layout_new(s.pp, s.vpp, L);
        for (uint32_t j = 1; j + 1 < s.pp * s.vpp; j++)
            l->chunk_layers[j] = 1;
        for (uint32_t i = 0; i < L; i++)
            l->layer_rc[i] = s.recompute;
        ok = prism_cost_eval_layout(in.cm, &s, l, c, &error);
        g_string_append(strat, " (layout: 1 layer/chunk, ends empty)");
    } else {
        ok = prism_cost_eval_one(in.cm, &s, c, &error);
    }
    if (!ok) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    predicted(c, src, &in, p);
    measured(r, &in, p);
    return TRUE;
}

/* One planned row: what was fixed, what the planner found. */
typedef struct Planned {
    Pred p;
    PrismValidatePlanResult res;
    char *fix;
} Planned;

/* Plan one row whose strategy dims are not all stated: fix the stated ones, let the
 * planner choose the rest within what the source's framework supported. FALSE (reason in
 * @p why) when the row cannot be planned. */
static gboolean plan_row(const Row *r, const SourceSetup *src, const PrismKnobs *user,
                         PrismValidatePlanFn plan, void *plan_user, Planned *out, GString *why)
{
    g_auto(RowInputs) in = {0};
    if (!row_inputs(r, src, user, &in, why))
        return FALSE;
    if (in.dp * in.tp * in.pp * in.cp != in.n) {
        g_string_append_printf(why, "dp*tp*pp*cp = %g differs from num_gpus %g",
                               in.dp * in.tp * in.pp * in.cp, in.n);
        return FALSE;
    }
    GString *fix = g_string_new(NULL);
    g_string_append_printf(fix, "tp=%g,pp=%g,cp=%g,ep=%g", in.tp, in.pp, in.cp, in.ep);
    static const char *const dims[][2] = {{"micro_batch", "mbs"}, {"vpp", "vpp"},
                                          {"sp", "sp"},           {"zero_stage", "zero"},
                                          {"recompute", "recompute"}};
    for (size_t i = 0; i < G_N_ELEMENTS(dims); i++)
        if (*col(r, dims[i][0]) != '\0')
            g_string_append_printf(fix, ",%s=%s", dims[i][1], col(r, dims[i][0]));
    out->fix = g_string_free(fix, FALSE);
    g_autoptr(GString) only = g_string_new(src->plan_only);
    if (src->uniform_chunks && *col(r, "vpp") == '\0') {
        /* equal model chunks: L % pp == 0 and vpp divides L / pp */
        const uint32_t L = prism_model_split_layers(prism_cost_model_model(in.cm));
        const uint32_t pp = (uint32_t)in.pp;
        if (L % pp != 0) {
            g_string_append_printf(why, "layers %u not divisible by pp %u (the framework "
                                        "needs equal stages)", L, pp);
            return FALSE;
        }
        g_string_append(only, only->len ? ",vpp=" : "vpp=");
        for (uint32_t v = 1, first = 1; v <= L / pp; v++)
            if ((L / pp) % v == 0 && (v == 1 || pp > 1)) {
                g_string_append_printf(only, "%s%u", first ? "" : ",", v);
                first = 0;
            }
    }
    const PrismValidatePlan req = {.cm = in.cm,
                                   .devices = (uint32_t)in.n,
                                   .fix = out->fix,
                                   .only = only->str};
    memset(&out->res, 0, sizeof out->res);
    GError *error = NULL;
    if (!plan(&req, plan_user, &out->res, &error)) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    if (out->res.feasible > 0)
        predicted(out->res.cols, src, &in, &out->p);
    else
        out->p.mem_gb = out->p.step = out->p.tflops = out->p.mfu = NAN;
    measured(r, &in, &out->p);
    return TRUE;
}

static void add_err(Stat *st, int k, double pred, double meas, GString *o)
{
    if (isnan(meas) || isnan(pred)) {
        g_string_append_printf(o, " %8s %8s %6s", "-", isnan(meas) ? "-" : "", "");
        return;
    }
    const double e = 100.0 * fabs(pred - meas) / meas;
    st->sum[k] += e;
    st->worst[k] = MAX(st->worst[k], e);
    st->n[k]++;
    g_string_append_printf(o, " %8.4g %8.4g %5.1f%%", pred, meas, e);
}

static Stat *stat_for(GHashTable *stats, GPtrArray *order, const char *id)
{
    Stat *st = g_hash_table_lookup(stats, id);
    if (st == NULL) {
        st = g_new0(Stat, 1);
        g_hash_table_insert(stats, g_strdup(id), st);
        g_ptr_array_add(order, g_strdup(id));
    }
    return st;
}

static void summary(GString *o, GHashTable *stats, GPtrArray *order, const int *metrics,
                    const char *const *names, int n_metrics)
{
    g_string_append_printf(o, "%-22s", "source");
    for (int k = 0; k < n_metrics; k++)
        g_string_append_printf(o, " %-20s", names[k]);
    g_string_append_c(o, '\n');
    for (guint i = 0; i < order->len; i++) {
        const char *id = g_ptr_array_index(order, i);
        const Stat *st = g_hash_table_lookup(stats, id);
        g_string_append_printf(o, "%-22s", id);
        for (int j = 0; j < n_metrics; j++) {
            const int k = metrics[j];
            if (st->n[k] == 0)
                g_string_append_printf(o, " %-20s", "-");
            else {
                g_autofree char *cell = g_strdup_printf(
                    "%.1f%% / %.1f%% (%d)", st->sum[k] / st->n[k], st->worst[k], st->n[k]);
                g_string_append_printf(o, " %-20s", cell);
            }
        }
        g_string_append_c(o, '\n');
    }
}

char *prism_validate_report(const char *path, const PrismKnobs *user, GError **error)
{
    return prism_validate_report_planned(path, user, NULL, NULL, error);
}

static void row_free(Row *r)
{
    g_hash_table_destroy(r->kv);
    g_ptr_array_free(r->fields, TRUE);
}

char *prism_validate_report_planned(const char *path, const PrismKnobs *user,
                                    PrismValidatePlanFn plan, void *plan_user, GError **error)
{
    g_autofree char *text = NULL;
    GError *local = NULL;
    if (!g_file_get_contents(path, &text, NULL, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "validation CSV %s: %s", path,
                    local->message);
        g_error_free(local);
        return NULL;
    }
    const char *p = text;
    g_autoptr(GPtrArray) header = csv_record(&p);
    static const char *const need[] = {"source_id",   "model_name",   "layers",   "hidden", "heads",
                                       "seq_len",     "gpu_type",     "num_gpus", "tp",     "pp",
                                       "micro_batch", "global_batch", "recompute"};
    for (size_t i = 0; i < G_N_ELEMENTS(need); i++) {
        gboolean found = FALSE;
        for (guint j = 0; j < header->len && !found; j++)
            found = strcmp(g_ptr_array_index(header, j), need[i]) == 0;
        if (!found) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                        "validation CSV %s: header has no column '%s'", path, need[i]);
            return NULL;
        }
    }
    GString *o = g_string_new(NULL);
    g_string_append_printf(o, "prism validate: %s\n\n", path);
    g_string_append_printf(o, "%-20s %-15s %-52s %26s %26s %26s %26s\n", "source", "model",
                           "strategy", "peak GB  pred/meas/err", "step s  pred/meas/err",
                           "TFLOP/s  pred/meas/err", "MFU  pred/meas/err");
    g_autoptr(GHashTable) stats = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) pstats = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_autoptr(GPtrArray) porder = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GString) skipped = g_string_new(NULL);
    g_autoptr(GString) planned = g_string_new(NULL);
    int line = 1, used = 0, n_skipped = 0, n_planned = 0;
    while (*p) {
        line++;
        Row r = {.kv = g_hash_table_new(g_str_hash, g_str_equal),
                 .fields = csv_record(&p),
                 .line = line};
        if (r.fields->len == 1 && *(const char *)g_ptr_array_index(r.fields, 0) == '\0') {
            row_free(&r);
            continue;
        }
        if (r.fields->len != header->len) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "validation CSV %s line %d: %u fields, the header has %u", path, line,
                        r.fields->len, header->len);
            row_free(&r);
            g_string_free(o, TRUE);
            return NULL;
        }
        for (guint j = 0; j < header->len; j++)
            g_hash_table_insert(r.kv, g_ptr_array_index(header, j), g_ptr_array_index(r.fields, j));
        const char *id = col(&r, "source_id");
        const SourceSetup *src = find_source(id);
        static const SourceSetup generic = {"(other)", no_knobs, 1e9,  FALSE, TRUE,
                                            NULL,      NULL,     NULL, FALSE, ""};
        if (src == NULL)
            src = &generic;
        g_autoptr(GString) strat = g_string_new(NULL);
        g_autoptr(GString) why = g_string_new(NULL);
        Pred pr;
        g_autoptr(GString) unstated = g_string_new(NULL);
        if (src->plan_only != NULL && !all_strategy_dims(&r, unstated) && plan == NULL) {
            g_string_append_printf(skipped, "  line %d %s %s: %s (planned mode needs a "
                                   "planner: `prism validate` runs the search)\n", line, id,
                                   col(&r, "model_name"), unstated->str);
            n_skipped++;
        } else if (src->plan_only != NULL && unstated->len > 0) {
            /* planned mode: the search picks the unstated dims */
            Planned pl = {0};
            if (!plan_row(&r, src, user, plan, plan_user, &pl, why)) {
                g_string_append_printf(skipped, "  line %d %s %s: planned mode: %s\n", line, id,
                                       col(&r, "model_name"), why->str);
                n_skipped++;
            } else {
                Stat *st = stat_for(pstats, porder, id);
                g_autofree char *best =
                    pl.res.feasible ? prism_strategy_format(&pl.res.best) : g_strdup("nothing fits");
                g_string_append_printf(planned, "%-20s %-10s %-24s %8" G_GUINT64_FORMAT "/%-8"
                                       G_GUINT64_FORMAT " %-84s %8.4g",
                                       id, col(&r, "model_name"), pl.fix, pl.res.feasible,
                                       pl.res.searched, best, pl.p.step);
                add_err(st, 2, pl.p.tflops, pl.p.m_tflops, planned);
                add_err(st, 3, pl.p.mfu, pl.p.m_mfu, planned);
                g_string_append_c(planned, '\n');
                n_planned++;
            }
            g_free(pl.fix);
        } else if (!fully_stated(&r, why) || !predict(&r, src, user, &pr, strat, why)) {
            g_string_append_printf(skipped, "  line %d %s %s: %s\n", line, id,
                                   col(&r, "model_name"), why->str);
            n_skipped++;
        } else {
            Stat *st = stat_for(stats, order, id);
            g_string_append_printf(o, "%-20s %-15s %-52s", id, col(&r, "model_name"), strat->str);
            add_err(st, 0, pr.mem_gb, pr.m_mem, o);
            add_err(st, 1, pr.step, pr.m_step, o);
            add_err(st, 2, pr.tflops, pr.m_tflops, o);
            add_err(st, 3, pr.mfu, pr.m_mfu, o);
            g_string_append_c(o, '\n');
            used++;
        }
        row_free(&r);
    }
    static const int all4[] = {0, 1, 2, 3};
    static const char *const names4[] = {"peak memory", "step time", "TFLOP/s per GPU", "MFU"};
    g_string_append(o, "\nabsolute percentage error per source: mean / worst (rows)\n");
    summary(o, stats, order, all4, names4, 4);
    g_string_append_printf(o, "\n%d rows predicted, %d planned, %d skipped\n", used, n_planned,
                           n_skipped);
    if (n_planned) {
        g_string_append(
            o, "\nPLANNED rows (not direct predictions, not in the statistics above): the row "
               "leaves strategy dims unstated, so\nthe dims it states are fixed and the search "
               "picks the rest within what the source's framework supported;\nthe best "
               "strategy's predicted throughput (a prediction of ACHIEVABLE throughput) is "
               "compared with the measured.\n");
        g_string_append_printf(o, "%-20s %-10s %-24s %17s %-84s %8s %26s %26s\n", "source",
                               "model", "fixed", "feasible/searched", "best strategy found",
                               "step s", "TFLOP/s  pred/meas/err", "MFU  pred/meas/err");
        g_string_append(o, planned->str);
        static const int two[] = {2, 3};
        static const char *const names2[] = {"TFLOP/s per GPU", "MFU"};
        g_string_append(o, "\nplanned: absolute percentage error per source: mean / worst (rows)\n");
        summary(o, pstats, porder, two, names2, 2);
    }
    if (n_skipped)
        g_string_append_printf(o, "\nskipped rows:\n%s", skipped->str);
    g_string_append(o, "\nper-source setup (from what each source states; never fitted):\n");
    for (size_t i = 0; i < G_N_ELEMENTS(sources); i++) {
        g_string_append_printf(o, "  %s: %s", sources[i].id, sources[i].notes);
        for (const char *const *s = sources[i].knobs; *s; s++)
            g_string_append_printf(o, "%s%s", s == sources[i].knobs ? " [" : ", ", *s);
        g_string_append(o, sources[i].knobs[0] ? "]" : "");
        if (sources[i].plan_only != NULL)
            g_string_append_printf(o, " [planned: --only %s%s]", sources[i].plan_only,
                                   plan == NULL ? "; no planner: skipped" : "");
        g_string_append_c(o, '\n');
    }
    return g_string_free(o, FALSE);
}
