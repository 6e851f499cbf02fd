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
 * the reason. Nothing here is collective.
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
    const char *notes;
} SourceSetup;

static const char *const sc21_knobs[] = {"flash_attention=0", "dropout=1",    "tp_overlap=0",
                                         "dp_overlap=0",      "pp_overlap=0", NULL};
static const char *const korth_knobs[] = {"flash_attention=0", "dropout=1",    "tp_overlap=0",
                                          "dp_overlap=0",      "pp_overlap=0", NULL};
static const char *const zb_knobs[] = {"flash_attention=0", "dropout=1", "runtime_overhead=0",
                                       "pp_overlap=0", NULL};
static const char *const mlm_knobs[] = {NULL};

static const SourceSetup sources[] = {
    {"SC21_T1", sc21_knobs, 1e9, TRUE, TRUE, NULL,
     "fp16, Megatron-LM 2021: no flash attention, dropout on, no TP/DP/PP overlap; "
     "TFLOP/s count recompute (HFU), compared with predicted HFU x peak"},
    {"KORTH22_T5", korth_knobs, 1e9, FALSE, TRUE, NULL,
     "Megatron-LM 2022: no flash attention, dropout on, no overlap (dp = 1)"},
    {"ZB_PP", zb_knobs, 1073741824.0, FALSE, TRUE, "50304",
     "vocab not stated: GPT-2 BPE padded to 50304 (Megatron default) assumed; memory = "
     "PyTorch allocated bytes in GiB (no CUDA context: runtime_overhead=0); paper's "
     "sb(34h+5as) accounting: no flash attention, dropout on; 1F1B-I uses one layer per "
     "chunk with the first and last chunk empty"},
    {"MLM_README_H100_2024", mlm_knobs, 1e9, FALSE, FALSE, NULL,
     "micro-batch, recompute, vpp and dtype not stated: skipped"},
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
    m->pos = src->tied ? PRISM_POS_LEARNED : PRISM_POS_ROPE;
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

/* Predict one row; FALSE (with the reason in @p why) when it cannot be predicted. */
static gboolean predict(const Row *r, const SourceSetup *src, const PrismKnobs *user, Pred *p,
                        GString *strat, GString *why)
{
    double tp, pp, vpp = 1, dp, cp = 1, ep = 1, sp = 0, zero = 0, mbs, gbs, n;
    const char *rc = col(r, "recompute");
    if (!num(r, "micro_batch", &mbs)) {
        g_string_append(why, "micro_batch not stated");
        return FALSE;
    }
    if (*rc == '\0') {
        g_string_append(why, "recompute not stated");
        return FALSE;
    }
    if (!num(r, "global_batch", &gbs)) {
        g_string_append(why, "global_batch not stated");
        return FALSE;
    }
    if (!num(r, "tp", &tp) || !num(r, "pp", &pp) || !num(r, "num_gpus", &n)) {
        g_string_append(why, "tp/pp/num_gpus not stated");
        return FALSE;
    }
    (void)num(r, "vpp", &vpp);
    (void)num(r, "cp", &cp);
    (void)num(r, "ep", &ep);
    (void)num(r, "sp", &sp);
    (void)num(r, "zero_stage", &zero);
    if (!num(r, "dp", &dp))
        dp = n / (tp * pp * cp);
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
    t.gbs = (uint64_t)gbs;
    t.seq = model->max_positions;
    t.dtype = strcmp(col(r, "dtype"), "bf16") == 0 ? PRISM_DTYPE_BF16 : PRISM_DTYPE_FP16;
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
    g_autoptr(PrismCostModel) cm = prism_cost_model_new(model, cluster, &t, &k, &error);
    if (cm == NULL) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    PrismStrategy s = {.devices = (uint32_t)n,
                       .dp = (uint32_t)dp,
                       .tp = (uint32_t)tp,
                       .pp = (uint32_t)pp,
                       .vpp = (uint32_t)vpp,
                       .cp = (uint32_t)cp,
                       .ep = (uint32_t)ep,
                       .mbs = (uint32_t)mbs,
                       .sp = (uint8_t)sp,
                       .zero = (uint8_t)zero,
                       .schedule = vpp > 1 ? PRISM_SCHEDULE_INTERLEAVED : PRISM_SCHEDULE_1F1B};
    s.m = (uint32_t)(gbs / (dp * mbs));
    if (strcmp(rc, "full") == 0)
        s.recompute = PRISM_RECOMPUTE_FULL;
    else if (strcmp(rc, "selective") == 0)
        s.recompute = PRISM_RECOMPUTE_SELECTIVE;
    else if (strcmp(rc, "none") == 0)
        s.recompute = PRISM_RECOMPUTE_NONE;
    else {
        g_string_append_printf(why, "recompute '%s' unknown", rc);
        return FALSE;
    }
    g_autofree char *st = prism_strategy_format(&s);
    g_string_append(strat, st);
    double c[PRISM_COL_COUNT];
    const uint32_t L = prism_model_split_layers(model);
    gboolean ok;
    if (s.vpp > 1 && (uint64_t)s.pp * s.vpp == (uint64_t)L + 2) {
        /* ZB_PP 1F1B-I: one layer per chunk, first and last chunk empty */
        g_autoptr(PrismLayout) l = prism_layout_new(s.pp, s.vpp, L);
        for (uint32_t j = 1; j + 1 < s.pp * s.vpp; j++)
            l->chunk_layers[j] = 1;
        for (uint32_t i = 0; i < L; i++)
            l->layer_rc[i] = s.recompute;
        ok = prism_cost_eval_layout(cm, &s, l, c, &error);
        g_string_append(strat, " (layout: 1 layer/chunk, ends empty)");
    } else {
        ok = prism_cost_eval_one(cm, &s, c, &error);
    }
    if (!ok) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    const double peak = cluster->peak_flops[t.dtype];
    p->mem_gb = c[PRISM_COL_MEM_PEAK] / src->mem_unit;
    p->step = c[PRISM_COL_TIME_STEP];
    p->mfu = c[PRISM_COL_MFU];
    p->tflops = (src->tflops_hfu ? c[PRISM_COL_HFU] : c[PRISM_COL_MFU]) * peak * 1e-12;
    p->m_mem = p->m_step = p->m_tflops = p->m_mfu = NAN;
    double v;
    if (num(r, "measured_peak_mem_gb", &v))
        p->m_mem = v;
    if (num(r, "measured_step_time_s", &v))
        p->m_step = v;
    else if (num(r, "measured_tokens_per_s_per_gpu", &v) && v > 0)
        p->m_step = gbs * (double)t.seq / (v * n); /* same quantity as tokens/s */
    if (num(r, "measured_tflops_per_gpu", &v))
        p->m_tflops = v;
    if (num(r, "measured_mfu", &v))
        p->m_mfu = v;
    return TRUE;
}

static void add_err(Stat *st, int k, double pred, double meas, GString *o)
{
    if (isnan(meas)) {
        g_string_append_printf(o, " %8s %8s %6s", "-", "-", "");
        return;
    }
    const double e = 100.0 * fabs(pred - meas) / meas;
    st->sum[k] += e;
    st->worst[k] = MAX(st->worst[k], e);
    st->n[k]++;
    g_string_append_printf(o, " %8.4g %8.4g %5.1f%%", pred, meas, e);
}

char *prism_validate_report(const char *path, const PrismKnobs *user, GError **error)
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
    GString *skipped = g_string_new(NULL);
    int line = 1, used = 0, n_skipped = 0;
    while (*p) {
        line++;
        Row r = {.kv = g_hash_table_new(g_str_hash, g_str_equal),
                 .fields = csv_record(&p),
                 .line = line};
        if (r.fields->len == 1 && *(const char *)g_ptr_array_index(r.fields, 0) == '\0') {
            g_hash_table_destroy(r.kv);
            g_ptr_array_free(r.fields, TRUE);
            continue;
        }
        if (r.fields->len != header->len) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "validation CSV %s line %d: %u fields, the header has %u", path, line,
                        r.fields->len, header->len);
            g_hash_table_destroy(r.kv);
            g_ptr_array_free(r.fields, TRUE);
            g_string_free(skipped, TRUE);
            g_string_free(o, TRUE);
            return NULL;
        }
        for (guint j = 0; j < header->len; j++)
            g_hash_table_insert(r.kv, g_ptr_array_index(header, j), g_ptr_array_index(r.fields, j));
        const char *id = col(&r, "source_id");
        const SourceSetup *src = find_source(id);
        static const SourceSetup generic = {"(other)", mlm_knobs, 1e9, FALSE, TRUE, NULL, ""};
        if (src == NULL)
            src = &generic;
        Pred pr;
        g_autoptr(GString) strat = g_string_new(NULL);
        g_autoptr(GString) why = g_string_new(NULL);
        if (!predict(&r, src, user, &pr, strat, why)) {
            g_string_append_printf(skipped, "  line %d %s %s: %s\n", line, id,
                                   col(&r, "model_name"), why->str);
            n_skipped++;
        } else {
            Stat *st = g_hash_table_lookup(stats, id);
            if (st == NULL) {
                st = g_new0(Stat, 1);
                g_hash_table_insert(stats, g_strdup(id), st);
                g_ptr_array_add(order, g_strdup(id));
            }
            g_string_append_printf(o, "%-20s %-15s %-52s", id, col(&r, "model_name"), strat->str);
            add_err(st, 0, pr.mem_gb, pr.m_mem, o);
            add_err(st, 1, pr.step, pr.m_step, o);
            add_err(st, 2, pr.tflops, pr.m_tflops, o);
            add_err(st, 3, pr.mfu, pr.m_mfu, o);
            g_string_append_c(o, '\n');
            used++;
        }
        g_hash_table_destroy(r.kv);
        g_ptr_array_free(r.fields, TRUE);
    }
    g_string_append(o, "\nabsolute percentage error per source: mean / worst (rows)\n");
    g_string_append_printf(o, "%-22s %-20s %-20s %-20s %-20s\n", "source", "peak memory",
                           "step time", "TFLOP/s per GPU", "MFU");
    for (guint i = 0; i < order->len; i++) {
        const char *id = g_ptr_array_index(order, i);
        const Stat *st = g_hash_table_lookup(stats, id);
        g_string_append_printf(o, "%-22s", id);
        for (int k = 0; k < 4; k++) {
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
    g_string_append_printf(o, "\n%d rows predicted, %d skipped\n", used, n_skipped);
    if (n_skipped)
        g_string_append_printf(o, "skipped rows:\n%s", skipped->str);
    g_string_free(skipped, TRUE);
    g_string_append(o, "\nper-source setup (from what each source states; never fitted):\n");
    for (size_t i = 0; i < G_N_ELEMENTS(sources); i++) {
        g_string_append_printf(o, "  %s: %s", sources[i].id, sources[i].notes);
        for (const char *const *s = sources[i].knobs; *s; s++)
            g_string_append_printf(o, "%s%s", s == sources[i].knobs ? " [" : ", ", *s);
        g_string_append(o, sources[i].knobs[0] ? "]\n" : "\n");
    }
    return g_string_free(o, FALSE);
}
