// SPDX-License-Identifier: MIT
/*
 * validate.c - `prism validate` (validate.h): every row of a CSV of published
 * measurements is predicted, planned or skipped with the reason.
 *
 * Per row: the framework profile (the row's `framework` column, else --framework, else
 * the source's profile in sources.ini) gives the knobs, the memory conventions and the
 * defaults of the dims the row leaves unstated. Models are built from the row's shape
 * (the profile's architecture: GPT = learned positions, LayerNorm, GeLU, biases; Llama =
 * RoPE, RMSNorm, SwiGLU, no biases). When every strategy dim is stated or defaulted the
 * row is evaluated once (scalar reference); otherwise the search (prism_search_run,
 * collective) picks the rest with the known dims fixed and the framework's support as
 * --only. Memory is compared as the row, its source or its framework counts it, on the
 * rank it states (mem_rank N: that rank's pipeline stage; max: the worst stage):
 * allocated, reserved or device (prism_cost_memory_kinds). MFU is against the BF16
 * dense peak (the published tables' convention).
 */
#include <prism/validate.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <prism/core.h>
#include <prism/cost.h>
#include <prism/ranges.h>
#include <prism/search.h>
#include <prism/space.h>

#include "validate-internal.h"

/* A number that follows @p key in the row's notes (0 when absent). The validation CSV
 * has no columns for the shared expert, the capacity factor or the expert TP; its rows
 * state them in the notes in these words. */
static double notes_number(const Row *r, const char *key)
{
    const char *at = strstr(prism_validate_col(r, "notes"), key);
    return at != NULL ? g_ascii_strtod(at + strlen(key), NULL) : 0.0;
}

/* MoE rows (experts > 0): every block's MLP is routed experts of width ffn_hidden, top_k
 * of them per token, plus the shared expert and the capacity factor the notes state
 * ("shared expert of FFN N", "+ 1 shared expert", "capacity factor C"; a capacity factor
 * of 1 is dropless at moe_imbalance 1, so it is left as dropless). */
static void moe_mlp(const Row *r, PrismMlpSpec *mlp)
{
    double e = 0, k = 0;
    if (!prism_validate_num(r, "experts", &e) || e <= 0)
        return;
    if (!prism_validate_num(r, "topk", &k) || k <= 0)
        k = 2; /* not stated (Llama3-8x70B): the Mixtral-style top-2 of its 8 experts */
    mlp->n_experts = (uint32_t)e;
    mlp->top_k = (uint32_t)k;
    mlp->expert_hidden = mlp->ffn_hidden;
    mlp->ffn_hidden = 0;
    const double shared = notes_number(r, "shared expert of FFN ");
    if (shared > 0) {
        mlp->n_shared = 1;
        mlp->shared_hidden = (uint64_t)shared;
    } else if (strstr(prism_validate_col(r, "notes"), "+ 1 shared expert") != NULL) {
        mlp->n_shared = 1;
    }
    const double cf = notes_number(r, "capacity factor ");
    mlp->capacity_factor = cf > 1.0 ? cf : 0.0;
}

/* A row that states no shape (layers, hidden, heads all empty): the model its model_name
 * names, as `--model` reads it (prism_model_resolve: a zoo name, loosely and in Hugging
 * Face spellings, a repository id's zoo model, or a config.json / model folder; a relative
 * path is the CSV folder's), with @p s tokens of context; *@p origin says which ("zoo" or
 * "config.json"). NULL with the reason (the reader's message for a file). */
static PrismModel *named_model(const Row *r, double s, const char **origin, GString *why)
{
    const char *name = prism_validate_col(r, "model_name");
    if (*name == '\0') {
        g_string_append(why, "no shape (layers/hidden/heads) and no model_name");
        return NULL;
    }
    g_autofree char *local = NULL;
    if (r->dir != NULL && !g_path_is_absolute(name) &&
        (strchr(name, '/') != NULL || g_str_has_suffix(name, ".json"))) {
        local = g_build_filename(r->dir, name, NULL);
        if (!g_file_test(local, G_FILE_TEST_EXISTS))
            g_clear_pointer(&local, g_free);
    }
    const char *what = local != NULL ? local : name;
    *origin = g_file_test(what, G_FILE_TEST_EXISTS) ? "config.json" : "zoo";
    GError *error = NULL;
    PrismModel *m = prism_model_resolve(what, &error);
    if (m == NULL) {
        g_string_append_printf(why, "no shape (layers/hidden/heads) and %s", error->message);
        g_error_free(error);
        return NULL;
    }
    m->max_positions = (uint64_t)s;
    return m;
}

/* The row's model: GPT or Llama per the profile, shape from the row, @p s tokens of context;
 * a row without a shape takes the model its name names (named_model, *@p origin set). */
static PrismModel *row_model(const Row *r, const PrismFramework *fw, const SourceInfo *src,
                             double s, const char **origin, GString *why)
{
    double L, h, a, V = 0, f = 0, kv = 0;
    const gboolean has_L = prism_validate_num(r, "layers", &L);
    const gboolean has_h = prism_validate_num(r, "hidden", &h);
    const gboolean has_a = prism_validate_num(r, "heads", &a);
    if (!has_L && !has_h && !has_a)
        return named_model(r, s, origin, why);
    if (!has_L || !has_h || !has_a) {
        g_string_append(why, "shape (layers/hidden/heads) incomplete");
        return NULL;
    }
    if (!prism_validate_num(r, "vocab", &V)) {
        if (src == NULL || src->vocab == NULL) {
            g_string_append(why, "vocab not stated");
            return NULL;
        }
        V = g_ascii_strtod(src->vocab, NULL);
    }
    const gboolean llama = fw->llama;
    if (!prism_validate_num(r, "ffn_hidden", &f))
        f = 4 * h;
    if (!prism_validate_num(r, "kv_heads", &kv))
        kv = a;
    /* the row's tied_embeddings column, else its source's (sources.ini), else the profile's */
    double tied_cell = -1;
    int tied = prism_validate_num(r, "tied_embeddings", &tied_cell) ? (int)tied_cell
               : src != NULL && src->tied >= 0                      ? src->tied
                                                                    : fw->tied_embeddings;
    /* the row's activation column, else the profile's architecture's */
    const char *act = prism_validate_col(r, "activation");
    const gboolean swiglu = *act != '\0' ? strcmp(act, "swiglu") == 0 : llama;
    PrismModel *m = prism_model_new(prism_validate_col(r, "model_name"), llama ? "llama" : "gpt");
    m->hidden = (uint64_t)h;
    m->vocab = (uint64_t)V;
    m->max_positions = (uint64_t)s;
    m->pos = llama ? PRISM_POS_ROPE : PRISM_POS_LEARNED;
    m->final_norm = llama ? PRISM_NORM_RMSNORM : PRISM_NORM_LAYERNORM;
    m->tied_embeddings = tied >= 0 ? tied : !llama;
    PrismBlockSpec sp;
    memset(&sp, 0, sizeof sp);
    sp.attn = (PrismAttnSpec){.kind = PRISM_ATTN_STANDARD,
                              .n_heads = (uint32_t)a,
                              .n_kv_heads = (uint32_t)kv,
                              .head_dim = (uint32_t)(h / a),
                              .qkv_bias = !llama,
                              .out_bias = !llama};
    sp.mlp = (PrismMlpSpec){.act = swiglu ? PRISM_MLP_SWIGLU : PRISM_MLP_GELU,
                            .bias = !llama,
                            .ffn_hidden = (uint64_t)f};
    sp.norm = m->final_norm;
    moe_mlp(r, &sp.mlp);
    uint32_t id = prism_model_add_spec(m, &sp);
    prism_model_add_layer(m, PRISM_LAYER_EMBEDDING, 0);
    for (uint32_t i = 0; i < (uint32_t)L; i++)
        prism_model_add_layer(m, PRISM_LAYER_BLOCK, id);
    prism_model_add_layer(m, PRISM_LAYER_FINAL_NORM, 0);
    prism_model_add_layer(m, PRISM_LAYER_HEAD, 0);
    return m;
}

/* gpu_type -> preset: the part the source states (sources.ini `cluster`), else
 * prism_cluster_preset_for_device() with gpu_mem_gb (a preset's name, or the family's preset
 * closest in memory, the largest when it is not stated; a power-limited variant such as
 * "H100-96GB-500W", a different part at a lower clock, only for the memory it alone has).
 * NULL with the reason in @p why. */
static char *cluster_name(const Row *r, const SourceInfo *src, GString *why)
{
    const char *g = prism_validate_col(r, "gpu_type");
    if (*g == '\0') {
        g_string_append(why, "gpu_type not stated");
        return NULL;
    }
    /* the source's own cluster key file (sources.ini `cluster_file`): its path */
    if (src != NULL && src->cluster_file != NULL)
        return g_strdup(src->cluster_file);
    /* the part the source states (sources.ini `cluster`, e.g. a power limit in its text) */
    if (src != NULL && src->cluster != NULL && g_ascii_strncasecmp(src->cluster, g, strlen(g)) == 0)
        return g_strdup(src->cluster);
    double mem = 0;
    if (!prism_validate_num(r, "gpu_mem_gb", &mem))
        mem = 0;
    GError *error = NULL;
    char *name = prism_cluster_preset_for_device(g, mem, &error);
    if (name == NULL) {
        g_string_append_printf(why, "gpu_type: %s", error->message);
        g_error_free(error);
    }
    return name;
}

/* The cluster cluster_name() named: a key file (a path) or a preset; a copy of the one
 * @p cache (name -> PrismCluster, NULL: none) holds, else loaded and kept there. One run
 * reads the same few clusters for every row (the Playbook's key file 1,642 times for the
 * track record: parsing it was 40 % of a plan's instructions). */
static PrismCluster *cluster_load(GHashTable *cache, const char *name, GError **error)
{
    const PrismCluster *kept = cache != NULL ? g_hash_table_lookup(cache, name) : NULL;
    if (kept != NULL)
        return prism_cluster_copy(kept);
    PrismCluster *c = strchr(name, '/') != NULL ? prism_cluster_from_file(name, error)
                                                : prism_cluster_preset(name, error);
    if (c != NULL && cache != NULL)
        g_hash_table_insert(cache, g_strdup(name), prism_cluster_copy(c));
    return c;
}

/* Everything a row gives, with the defaults resolved: -1 = planned. With the layout
 * planned, sp and zero may be -2: the profile's default where the shape rules allow it
 * (prism_space_filter_set_default_where_allowed), and etp -2: tied to tp (folding 0). */
typedef struct Dims {
    double tp, pp, dp, cp, ep, etp, n, gbs, seq;
    long mbs, rc, vpp, zero, sp, sched;
    int mem_kind;  /* the row's mem_kind (PrismMemCounts), -1 = not stated */
    long mem_rank; /* the row's mem_rank: -2 max, -1 not stated, else the global rank */
} Dims;

/* Append one printf-formatted item to a comma list. */
static void G_GNUC_PRINTF(2, 3) item(GString *s, const char *fmt, ...)
{
    if (s->len)
        g_string_append_c(s, ',');
    va_list ap;
    va_start(ap, fmt);
    g_string_append_vprintf(s, fmt, ap);
    va_end(ap);
}

/* Append "name=text" (or "name=v" when @p text is NULL) to a comma list. */
static void note(GString *s, const char *name, long v, const char *text)
{
    if (text != NULL)
        item(s, "%s=%s", name, text);
    else
        item(s, "%s=%ld", name, v);
}

/* The row's workload cell @p col: stated, else sources.ini's value for its source (listed
 * in @p defs as NAME=V (sources.ini)), else FALSE with the reason in @p why. */
static gboolean workload(const Row *r, const char *col, const char *name, double given, double *out,
                         GString *defs, GString *why)
{
    if (prism_validate_num(r, col, out))
        return TRUE;
    if (given <= 0) {
        g_string_append_printf(why, "%s not stated (sources.ini gives none for source %s)", col,
                               prism_validate_col(r, "source_id"));
        return FALSE;
    }
    *out = given;
    g_autofree char *t = g_strdup_printf("%g (sources.ini)", given);
    note(defs, name, 0, t);
    return TRUE;
}

/* Append the layout dims @p d knows (> 0) to @p s as "name=v" joined by @p sep: tp, pp,
 * cp, then ep with @p with_ep and dp with @p with_dp. */
static void known_dims(GString *s, char sep, const Dims *d, gboolean with_dp, gboolean with_ep)
{
    const struct {
        const char *name;
        double v;
        gboolean on;
    } dims[] = {{"tp", d->tp, TRUE},
                {"pp", d->pp, TRUE},
                {"cp", d->cp, TRUE},
                {"ep", d->ep, with_ep},
                {"dp", d->dp, with_dp}};
    for (size_t i = 0; i < G_N_ELEMENTS(dims); i++) {
        if (!dims[i].on || dims[i].v <= 0)
            continue;
        if (s->len)
            g_string_append_c(s, sep);
        g_string_append_printf(s, "%s=%g", dims[i].name, dims[i].v);
    }
}

/* The layout: tp, pp and dp stated or planned; cp and ep stated, else 1 where the row gives
 * its layout (tp, pp or dp: the CSVs leave unused dims empty), else planned; dp derived
 * from the others where they are known. FALSE (with @p why) when the stated dims do not
 * multiply to num_gpus. */
static gboolean row_layout(const Row *r, Dims *d, GString *why)
{
    if (!prism_validate_num(r, "num_gpus", &d->n)) {
        g_string_append(why, "num_gpus not stated");
        return FALSE;
    }
    const gboolean tp = prism_validate_num(r, "tp", &d->tp);
    const gboolean pp = prism_validate_num(r, "pp", &d->pp);
    const gboolean dp = prism_validate_num(r, "dp", &d->dp);
    const gboolean given = tp || pp || dp;
    d->tp = tp ? d->tp : -1;
    d->pp = pp ? d->pp : -1;
    d->dp = dp ? d->dp : -1;
    if (!prism_validate_num(r, "cp", &d->cp))
        d->cp = given ? 1 : -1;
    if (!prism_validate_num(r, "ep", &d->ep))
        d->ep = given ? 1 : -1;
    if (!dp && d->tp > 0 && d->pp > 0 && d->cp > 0)
        d->dp = d->n / (d->tp * d->pp * d->cp);
    if (d->dp > 0 && d->tp > 0 && d->pp > 0 && d->cp > 0) {
        if (d->dp * d->tp * d->pp * d->cp != d->n || d->dp != floor(d->dp)) {
            g_string_append_printf(why, "dp*tp*pp*cp = %g*%g*%g*%g differs from num_gpus %g", d->dp,
                                   d->tp, d->pp, d->cp, d->n);
            return FALSE;
        }
        return TRUE;
    }
    const double known = MAX(d->dp, 1) * MAX(d->tp, 1) * MAX(d->pp, 1) * MAX(d->cp, 1);
    if (fmod(d->n, known) != 0) {
        g_autoptr(GString) list = g_string_new(NULL);
        known_dims(list, '*', d, TRUE, FALSE);
        g_string_append_printf(why, "the stated %s (%g) does not divide num_gpus %g", list->str,
                               known, d->n);
        return FALSE;
    }
    return TRUE;
}

/* The strategy dims: stated, else the profile's default (listed in @p defs), else -1
 * (listed in @p planned). */
static gboolean row_dims(const Row *r, const PrismFramework *fw, const SourceInfo *src, Dims *d,
                         GString *defs, GString *planned, GString *why)
{
    memset(d, 0, sizeof *d);
    d->mem_kind = prism_validate_mem_kind(r);
    d->mem_rank = prism_validate_mem_rank(r);
    if (!workload(r, "global_batch", "gbs", src != NULL ? src->gbs : 0, &d->gbs, defs, why) ||
        !workload(r, "seq_len", "seq", src != NULL ? src->seq : 0, &d->seq, defs, why) ||
        !row_layout(r, d, why))
        return FALSE;
    const gboolean layout = d->tp > 0 && d->pp > 0 && d->cp > 0 && d->dp > 0 && d->ep > 0;
    /* expert TP (MoE rows state it in the notes): "expert-TP (ETP) = K"; else 1 for a row
     * of the folding method ("w/ Folding") whose ETP the source leaves blank (the folding
     * paper's Llama3-8x70B: its 256-GPU mapping admits only etp 1, and its scaling rows
     * reuse that mapping, §6.4); else tied (etp = tp) where the tied mapping exists (ep
     * divides dp*cp), else 1; with the layout planned, tied (folding 0) */
    d->etp = notes_number(r, "(ETP) = ");
    if (d->etp < 1) {
        const gboolean folded = strstr(prism_validate_col(r, "notes"), "w/ Folding") != NULL;
        d->etp = folded ? 1 : !layout ? -2 : fmod(d->dp * d->cp, d->ep) == 0 ? d->tp : 1;
    }
    double v;
    /* micro-batch */
    const gboolean stages = fw->pp_microbatches_stages;
    d->mbs = -1;
    if (prism_validate_num(r, "micro_batch", &v))
        d->mbs = (long)v;
    else if (d->pp > 1 && stages && d->dp > 0) {
        d->mbs = (long)(d->gbs / (d->dp * d->pp));
        if ((double)d->mbs * d->dp * d->pp != d->gbs) {
            g_string_append_printf(why,
                                   "m = pp (the profile's pp_microbatches = stages) needs "
                                   "gbs %g divisible by dp*pp = %g",
                                   d->gbs, d->dp * d->pp);
            return FALSE;
        }
        note(defs, "mbs", d->mbs, NULL);
    } else if (fw->def[PRISM_FW_MICRO_BATCH] == PRISM_FW_MBS_LOCAL) {
        /* gbs / dp where dp is known and no pipeline splits it (else planned) */
        if (d->dp > 0 && (d->pp == 1 || !stages)) {
            d->mbs = (long)(d->gbs / d->dp);
            note(defs, "mbs", d->mbs, NULL);
        }
    } else if (fw->def[PRISM_FW_MICRO_BATCH] > 0) {
        d->mbs = fw->def[PRISM_FW_MICRO_BATCH];
        note(defs, "mbs", d->mbs, NULL);
    }
    /* recompute */
    const char *rc = prism_validate_col(r, "recompute");
    d->rc = -1;
    if (*rc) {
        if (strcmp(rc, "none") == 0)
            d->rc = PRISM_RECOMPUTE_NONE;
        else if (strcmp(rc, "selective") == 0)
            d->rc = PRISM_RECOMPUTE_SELECTIVE;
        else if (strcmp(rc, "full") == 0)
            d->rc = PRISM_RECOMPUTE_FULL;
        else {
            g_string_append_printf(why, "recompute '%s' unknown (none, selective, full)", rc);
            return FALSE;
        }
    } else if (fw->def[PRISM_FW_RECOMPUTE] >= 0) {
        d->rc = fw->def[PRISM_FW_RECOMPUTE];
        note(defs, "recompute", 0, prism_recompute_name((PrismRecompute)d->rc));
    }
    /* vpp, zero, sp */
    struct {
        const char *column, *name;
        int dim;
        long *out;
    } simple[] = {{"vpp", "vpp", PRISM_FW_VPP, &d->vpp},
                  {"zero_stage", "zero", PRISM_FW_ZERO, &d->zero},
                  {"sp", "sp", PRISM_FW_SP, &d->sp}};
    for (size_t i = 0; i < G_N_ELEMENTS(simple); i++) {
        *simple[i].out = -1;
        const int dim = simple[i].dim;
        if (prism_validate_num(r, simple[i].column, &v)) {
            *simple[i].out = (long)v;
        } else if (dim == PRISM_FW_VPP && d->pp == 1) {
            d->vpp = 1; /* no pipeline: nothing to interleave */
        } else if (fw->def[dim] >= 0) {
            long x = fw->def[dim];
            const gboolean sp_free = dim == PRISM_FW_SP && x == 1 && d->tp < 0;
            const gboolean zero_free = dim == PRISM_FW_ZERO && x > 0 && (d->dp < 0 || d->cp < 0);
            if (sp_free || zero_free) {
                /* where the shape rules allow it: the search keeps 0 where tp = 1 (R4) or
                 * dp*cp = 1 (R9) */
                *simple[i].out = -2;
                g_autofree char *t =
                    g_strdup_printf("%ld where %s > 1", x, dim == PRISM_FW_SP ? "tp" : "dp*cp");
                note(defs, simple[i].name, 0, t);
                continue;
            }
            if (dim == PRISM_FW_SP && d->tp == 1)
                x = 0; /* sequence parallelism needs tp > 1 (R4) */
            if (dim == PRISM_FW_ZERO && d->dp * d->cp == 1)
                x = 0; /* one rank per sharding group: nothing to shard (R9) */
            *simple[i].out = x;
            note(defs, simple[i].name, x, NULL);
        }
    }
    /* schedule: the row's schedule column (a pipeline's, as the source ran it); else
     * interleaved iff vpp > 1; else the profile's for a pipeline */
    d->sched = -1;
    const char *sched = prism_validate_col(r, "schedule");
    PrismSchedule ps;
    if (*sched != '\0' && d->pp != 1) {
        prism_schedule_parse(sched, &ps, NULL); /* checked with the cells */
        d->sched = ps;
    } else if (d->pp == 1 || d->vpp > 1)
        d->sched = d->vpp > 1 ? PRISM_SCHEDULE_INTERLEAVED : PRISM_SCHEDULE_1F1B;
    else if (d->vpp == 1)
        d->sched = fw->def[PRISM_FW_SCHEDULE] >= 0 &&
                           fw->def[PRISM_FW_SCHEDULE] != PRISM_SCHEDULE_INTERLEAVED
                       ? fw->def[PRISM_FW_SCHEDULE]
                       : PRISM_SCHEDULE_1F1B;
    const struct {
        const char *name;
        double v;
    } all[] = {{"tp", d->tp},
               {"pp", d->pp},
               {"dp", d->dp},
               {"cp", d->cp},
               {"ep", d->ep},
               {"micro_batch", (double)d->mbs},
               {"recompute", (double)d->rc},
               {"vpp", (double)d->vpp},
               {"zero_stage", (double)d->zero},
               {"sp", (double)d->sp},
               {"schedule", (double)d->sched}};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
        if (all[i].v == -1)
            g_string_append_printf(planned, "%s%s", planned->len ? "," : "", all[i].name);
    return TRUE;
}

/* Measured values (NAN = not published); memory in GiB, from the source's unit
 * (sources.ini memory_unit: "GB" is 1e9 bytes unless the source says GiB). */
static void measured(const Row *r, const Dims *d, double seq, const SourceInfo *src,
                     PrismValidateRow *o)
{
    double v;
    for (int k = 0; k < PRISM_VM_COUNT; k++)
        o->meas[k] = NAN;
    if (prism_validate_num(r, "measured_peak_mem_gb", &v))
        o->meas[PRISM_VM_MEM] = v * (src != NULL ? src->mem_unit : 1e9) / 1073741824.0;
    if (prism_validate_num(r, "measured_step_time_s", &v))
        o->meas[PRISM_VM_STEP] = v;
    else if (prism_validate_num(r, "measured_tokens_per_s_per_gpu", &v) && v > 0)
        o->meas[PRISM_VM_STEP] = d->gbs * seq / (v * d->n); /* same quantity as tokens/s */
    if (prism_validate_num(r, "measured_tflops_per_gpu", &v))
        o->meas[PRISM_VM_TFLOPS] = v;
    if (prism_validate_num(r, "measured_mfu", &v))
        o->meas[PRISM_VM_MFU] = v;
}

/* What a row's memory figure counts: the row's mem_kind, else its source's (sources.ini
 * counts), else its profile's (a PrismMemCounts). */
static int memory_counts(const PrismFramework *fw, const SourceInfo *src, const Dims *d)
{
    return d->mem_kind >= 0                  ? d->mem_kind
           : src != NULL && src->counts >= 0 ? src->counts
           : fw != NULL                      ? (int)fw->counts
                                             : PRISM_MEM_ALLOCATED;
}

/* The memory a row's figure counts (memory_counts), from a stage's modelled allocated peak
 * @p bytes, of which @p persistent are persistent state, for strategy @p s
 * (prism_cost_memory_kinds); in GiB, the unit of plan and explain (the measured figure is
 * converted to it). */
static double counted_memory(double bytes, double persistent, const PrismCostModel *cm,
                             const PrismStrategy *s, const PrismFramework *fw,
                             const SourceInfo *src, const Dims *d)
{
    const int counts = memory_counts(fw, src, d);
    PrismMemKinds k;
    prism_cost_memory_kinds(cm, s, bytes, persistent, &k);
    const double mem = counts == PRISM_MEM_ALLOCATED  ? k.allocated
                       : counts == PRISM_MEM_RESERVED ? k.reserved
                                                      : k.device;
    return mem / 1073741824.0;
}

/* Predicted values from a column row. The MFU and HFU columns are against the BF16 dense
 * peak for every dtype (cost/README.md "FP8"), the published tables' convention: no
 * rescale, and TFLOP/s = MFU (or HFU) x the BF16 peak. */
static void predicted(const double c[PRISM_COL_COUNT], const PrismCostModel *cm,
                      const PrismStrategy *s, const PrismFramework *fw, const SourceInfo *src,
                      const Dims *d, PrismValidateRow *o)
{
    const PrismCluster *cl = prism_cost_model_cluster(cm);
    const double peak = cl->peak_flops[PRISM_DTYPE_BF16] > 0
                            ? cl->peak_flops[PRISM_DTYPE_BF16]
                            : cl->peak_flops[prism_cost_model_training(cm)->dtype];
    o->pred[PRISM_VM_MEM] =
        counted_memory(c[PRISM_COL_MEM_PEAK], prism_cost_persistent(c), cm, s, fw, src, d);
    o->mem_counts = memory_counts(fw, src, d);
    o->pred[PRISM_VM_STEP] = c[PRISM_COL_TIME_STEP];
    o->pred[PRISM_VM_MFU] = c[PRISM_COL_MFU];
    o->pred[PRISM_VM_TFLOPS] =
        (src != NULL && src->hfu ? c[PRISM_COL_HFU] : c[PRISM_COL_MFU]) * peak * 1e-12;
    o->fits = c[PRISM_COL_FEASIBLE] > 0.5;
}

/* What a row's notes state about torch.compile: 1 = on, 0 = "no torch.compile", -1 = not
 * stated. Each mention is read within its clause (between ';'): a clause that says "not
 * stated" states nothing. */
static int notes_compile(const char *notes)
{
    int said = -1;
    for (const char *p = strstr(notes, "torch.compile"); p != NULL;
         p = strstr(p + 1, "torch.compile")) {
        const char *a = p, *b = strchr(p, ';');
        while (a > notes && a[-1] != ';')
            a--;
        g_autofree char *clause = g_strndup(a, b != NULL ? (size_t)(b - a) : strlen(a));
        if (strstr(clause, "not stated") != NULL)
            continue;
        if (p - a >= 3 && strncmp(p - 3, "no ", 3) == 0)
            said = said == 1 ? 1 : 0;
        else
            said = 1;
    }
    return said;
}

/* Which GEMMs a row's FP8 recipe covered, as its notes state it (torchao's MoE table:
 * "MXFP8 for Linears only", "... for Grouped GEMMs only"): the fp8_scope value, -1 when the
 * notes say neither (every linear GEMM, the recipes' default). */
static int notes_fp8_scope(const char *notes)
{
    const gboolean lin = strstr(notes, "for Linears only") != NULL;
    const gboolean grp = strstr(notes, "for Grouped GEMMs only") != NULL;
    return lin && !grp ? 1 : grp && !lin ? 2 : -1;
}

/* The row's cost model: model, cluster (gpu_mem_gb overrides the memory), training,
 * knobs = defaults + profile + what the user changed. */
static PrismCostModel *row_cost_model(const Row *r, const PrismFramework *fw, const SourceInfo *src,
                                      GHashTable *clusters, const PrismKnobOverrides *user,
                                      const Dims *d, PrismValidateRow *o, GString *why)
{
    g_autofree char *cl = cluster_name(r, src, why);
    if (cl == NULL)
        return NULL;
    const char *origin = NULL;
    g_autoptr(PrismModel) model = row_model(r, fw, src, d->seq, &origin, why);
    if (model == NULL)
        return NULL;
    if (origin != NULL) { /* named by model_name: say which */
        g_autofree char *was = o->defaults;
        o->defaults =
            g_strdup_printf("model=%s (%s)%s%s", model->name, origin, *was ? "," : "", was);
    }
    GError *error = NULL;
    g_autoptr(PrismCluster) cluster = cluster_load(clusters, cl, &error);
    double mem;
    if (cluster != NULL && prism_validate_num(r, "gpu_mem_gb", &mem) && mem > 0)
        cluster->mem_bytes = mem * 1073741824.0; /* presets count nominal "GB" as GiB */
    PrismTraining t;
    prism_training_default(&t);
    t.gbs = (uint64_t)d->gbs;
    t.seq = model->max_positions;
    const char *dt = *prism_validate_col(r, "dtype") ? prism_validate_col(r, "dtype")
                     : src != NULL && src->dtype     ? src->dtype
                     : fw->has_dtype                 ? prism_dtype_name(fw->dtype)
                                                     : NULL;
    if (dt == NULL) {
        g_string_append(why, "dtype not stated and the profile has no default");
        g_clear_error(&error);
        return NULL;
    }
    if (strcmp(dt, "fp8") == 0 && src != NULL && src->fp8 != NULL)
        dt = src->fp8; /* the recipe the source ran (sources.ini `fp8`) */
    if (cluster == NULL || !prism_dtype_parse(dt, &t.dtype, &error)) {
        g_string_append_printf(why, "%s%s", cluster ? "dtype: " : "", error->message);
        g_error_free(error);
        return NULL;
    }
    PrismKnobs k;
    prism_knobs_default(&k);
    prism_framework_apply(fw, cluster->family, &k, &t);
    /* torch.compile as the row's notes state it (the CSV has no column for it), for a
     * profile that sets elementwise_eager (its framework's eager default): a compiled run
     * fuses the elementwise ops, "no torch.compile" keeps them eager, a row that says
     * neither keeps the profile's value */
    const int compiled = notes_compile(prism_validate_col(r, "notes"));
    if (prism_framework_knob_given(fw, cluster->family, PRISM_KNOB_ELEMENTWISE_EAGER) &&
        compiled >= 0) {
        k.v[PRISM_KNOB_ELEMENTWISE_EAGER] = compiled ? 0.0 : 1.0;
        /* ... and its loss: torchtitan compiles the loss with the model
         * (pytorch/torchtitan#642, 2024-10), so a compiled row runs the fused cross-entropy */
        if (compiled && prism_framework_knob_given(fw, cluster->family, PRISM_KNOB_LOSS_BYTES))
            k.v[PRISM_KNOB_LOSS_BYTES] = 0.0;
        /* ... and its SwiGLU: one fused kernel keeps no silu output */
        if (compiled && prism_framework_knob_given(fw, cluster->family, PRISM_KNOB_SWIGLU_UNFUSED))
            k.v[PRISM_KNOB_SWIGLU_UNFUSED] = 0.0;
    }
    /* the GEMMs an FP8 recipe covered, where the notes say (the CSV has no column) */
    const int scope = notes_fp8_scope(prism_validate_col(r, "notes"));
    if (scope >= 0 && prism_dtype_is_fp8(t.dtype))
        k.v[PRISM_KNOB_FP8_SCOPE] = scope;
    /* what the source states beyond its profile (sources.ini `set`; checked at load) */
    for (char **a = src != NULL ? src->set : NULL; a != NULL && *a; a++)
        prism_knobs_set(&k, *a, NULL);
    /* and what it states for some of its rows (sources.ini `set_if`) */
    prism_validate_source_set_if(src, r, &k);
    /* what the row states (its knobs column; checked with the cells), then the user's */
    prism_validate_row_knobs(r, &k, NULL);
    if (*prism_validate_col(r, "knobs") != '\0')
        o->knobs = g_strdup(prism_validate_col(r, "knobs"));
    prism_knob_overrides_apply(user, &k);
    o->cluster = g_strdup(cluster->name);
    o->dtype = g_strdup(prism_dtype_name(t.dtype));
    o->seq = t.seq;
    PrismCostModel *cm = prism_cost_model_new(model, cluster, &t, &k, &error);
    if (cm == NULL) {
        g_string_append(why, error->message);
        g_error_free(error);
    }
    return cm;
}

/* With @p explain: the explanation's data of @p s (and @p layout, NULL = the default) into
 * o->explain (the caller hands it @p cm: o->explain_model); FALSE with the reason in
 * @p why. */
static gboolean explain_row(const PrismCostModel *cm, const PrismStrategy *s,
                            const PrismLayout *layout, int explain, PrismValidateRow *o,
                            GString *why)
{
    if (explain == 0)
        return TRUE;
    GError *error = NULL;
    o->explain = prism_explain_new(cm, s, layout, &error);
    if (o->explain == NULL) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    return TRUE;
}

/* Predict a fully determined row (the ZB_PP 1F1B-I layout when pp*vpp = L + 2). */
/* The step interval of @p s (layout @p l, NULL: the even one) from the knob ranges alone:
 * the least and largest step of the point and the two corners (ranges.h), never widened
 * by the rows (coverage is measured, not fitted). Left NAN where a corner fails. */
static void step_interval(const PrismCostModel *cm, const PrismStrategy *s, const PrismLayout *l,
                          PrismValidateRow *o)
{
    double lo = o->pred[PRISM_VM_STEP], hi = lo;
    for (int c = 0; c < PRISM_CORNER_COUNT; c++) {
        g_autoptr(PrismCostModel) k =
            prism_cost_model_corner(cm, (PrismCorner)c, TRUE, FALSE, NULL);
        double cols[PRISM_COL_COUNT];
        if (k == NULL || !(l != NULL ? prism_cost_eval_layout(k, s, l, cols, NULL)
                                     : prism_cost_eval_one(k, s, cols, NULL)))
            return;
        lo = MIN(lo, cols[PRISM_COL_TIME_STEP]);
        hi = MAX(hi, cols[PRISM_COL_TIME_STEP]);
        if (c == PRISM_CORNER_FAST)
            o->step_fast = cols[PRISM_COL_TIME_STEP];
        else
            o->step_slow = cols[PRISM_COL_TIME_STEP];
    }
    o->step_lo = lo;
    o->step_hi = hi;
}

static gboolean priced(const PrismCostModel *cm, const PrismStrategy *sp, const PrismLayout *l,
                       const double c[PRISM_COL_COUNT], const Dims *d, const PrismFramework *fw,
                       const SourceInfo *src, int explain, gboolean interval, PrismValidateRow *o,
                       GString *why);

static gboolean predict(const PrismCostModel *cm, const Dims *d, const PrismFramework *fw,
                        const SourceInfo *src, int explain, gboolean interval, PrismValidateRow *o,
                        GString *why)
{
    PrismStrategy s = {.devices = (uint32_t)d->n,
                       .dp = (uint32_t)d->dp,
                       .tp = (uint32_t)d->tp,
                       .pp = (uint32_t)d->pp,
                       .vpp = (uint32_t)d->vpp,
                       .cp = (uint32_t)d->cp,
                       .ep = (uint32_t)d->ep,
                       .etp = (uint32_t)d->etp,
                       .mbs = (uint32_t)d->mbs,
                       .sp = (uint8_t)d->sp,
                       .zero = (uint8_t)d->zero,
                       .recompute = (uint8_t)d->rc,
                       .schedule = (uint8_t)d->sched};
    s.m = (uint32_t)(d->gbs / (d->dp * (double)d->mbs));
    g_autofree char *st = prism_strategy_format(&s);
    GString *strat = g_string_new(st);
    double c[PRISM_COL_COUNT];
    const uint32_t L = prism_model_split_layers(prism_cost_model_model(cm));
    GError *error = NULL;
    g_autoptr(PrismLayout) l = NULL;
    gboolean ok;
    if (s.vpp > 1 && (uint64_t)s.pp * s.vpp == (uint64_t)L + 2) {
        /* ZB_PP 1F1B-I: one layer per chunk, first and last chunk empty */
        l = prism_layout_new(s.pp, s.vpp, L);
        for (uint32_t j = 1; j + 1 < s.pp * s.vpp; j++)
            l->chunk_layers[j] = 1;
        for (uint32_t i = 0; i < L; i++)
            l->layer_rc[i] = s.recompute;
        ok = prism_cost_eval_layout(cm, &s, l, c, &error);
        g_string_append(strat, " (layout: 1 layer/chunk, ends empty)");
    } else if (fw != NULL && fw->split_by_cost && s.pp > 1 && s.vpp == 1 &&
               prism_strategy_check(&s, prism_cost_model_model(cm), prism_cost_model_training(cm),
                                    NULL) &&
               (l = prism_layout_nanotron(prism_cost_model_model(cm), s.pp)) != NULL) {
        /* the profile's split of the blocks by its cost estimate (pipeline_split = cost), for
         * a strategy the even split's rules admit (a stage per block at most, ZeRO over
         * dp > 1, ...): the layout path checks none of them */
        prism_layout_set_recompute(l, (PrismRecompute)s.recompute, s.rc_layers);
        ok = prism_cost_eval_layout(cm, &s, l, c, &error);
        g_string_append(strat, " (layers per stage:");
        for (uint32_t j = 0; j < s.pp; j++)
            g_string_append_printf(strat, "%s%u", j ? "," : " ", l->chunk_layers[j]);
        g_string_append_c(strat, ')');
    } else {
        ok = prism_cost_eval_one(cm, &s, c, &error);
    }
    o->strategy = g_string_free(strat, FALSE);
    if (!ok) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    return priced(cm, &s, l, c, d, fw, src, explain, interval, o, why);
}

/* The row's prediction from the priced columns @p c of strategy @p s (layout @p l, NULL:
 * the even one): its explanation, the compared figures, the step interval, the memory of the
 * rank measured, and whether the profile runs it. */
static gboolean priced(const PrismCostModel *cm, const PrismStrategy *sp, const PrismLayout *l,
                       const double c[PRISM_COL_COUNT], const Dims *d, const PrismFramework *fw,
                       const SourceInfo *src, int explain, gboolean interval, PrismValidateRow *o,
                       GString *why)
{
    const PrismStrategy s = *sp;
    GError *error = NULL;
    if (!explain_row(cm, &s, l, explain, o, why))
        return FALSE;
    predicted(c, cm, &s, fw, src, d, o);
    if (interval)
        step_interval(cm, &s, l, o);
    /* the rank the row measured (mem_rank): its pipeline stage's peak, not the largest.
     * Ranks are laid out with the pipeline outermost (Megatron's and nanotron's order, tp
     * innermost): global rank g sits on stage g / (devices / pp); rank 0 on the first */
    if (d->mem_rank >= 0 && s.pp > 1) {
        if ((uint64_t)d->mem_rank >= s.devices) {
            g_string_append_printf(why, "mem_rank %ld is not a rank of its %u devices", d->mem_rank,
                                   s.devices);
            return FALSE;
        }
        const uint32_t stage = (uint32_t)((uint64_t)d->mem_rank / (s.devices / s.pp));
        g_autofree double *peaks = g_new(double, s.pp);
        g_autofree double *pers = g_new(double, s.pp);
        if (!prism_cost_stage_peaks(cm, &s, l, peaks, pers, &error)) {
            g_string_append(why, error->message);
            g_error_free(error);
            return FALSE;
        }
        o->pred[PRISM_VM_MEM] = counted_memory(peaks[stage], pers[stage], cm, &s, fw, src, d);
    }
    /* ZB_PP's empty-ended chunks are the layout its runs used, not a profile's chunks; a
     * profile's own split by cost is its framework's */
    if (l == NULL || (fw != NULL && fw->split_by_cost && l->vpp == 1))
        o->unsupported = prism_space_framework_unsupported(fw, prism_cost_model_model(cm), &s);
    return TRUE;
}

/* Plan a row: the known dims fixed, the rest searched within the framework's support. */
static gboolean plan(PrismComm *comm, const PrismCostModel *cm, const Dims *d,
                     const PrismFramework *fw, const SourceInfo *src, int explain,
                     gboolean interval, PrismValidateRow *o, GString *why)
{
    GString *fix = g_string_new(NULL);
    /* the known layout: tp, pp, cp, ep; dp too where some of them are planned (else tp, pp,
     * cp and the device count give it) */
    known_dims(fix, ',', d, d->tp < 0 || d->pp < 0 || d->cp < 0, TRUE);
    if (prism_model_is_moe(prism_cost_model_model(cm)) && d->etp > 0)
        item(fix, "etp=%g", d->etp);
    else if (prism_model_is_moe(prism_cost_model_model(cm)) && d->etp == -2)
        item(fix, "folding=0"); /* tied: etp = tp, ep divides dp*cp */
    if (d->mbs > 0)
        item(fix, "mbs=%ld", d->mbs);
    if (d->rc >= 0)
        item(fix, "recompute=%s", prism_recompute_name((PrismRecompute)d->rc));
    if (d->vpp > 0)
        item(fix, "vpp=%ld", d->vpp);
    if (d->zero >= 0)
        item(fix, "zero=%ld", d->zero);
    if (d->sp >= 0)
        item(fix, "sp=%ld", d->sp);
    if (d->sched >= 0)
        item(fix, "schedule=%s", prism_schedule_name((PrismSchedule)d->sched));
    /* no validation row offloads anything to the host (none reports it): offload = 0; and
     * the overlap options stay on (the filter below gets no framework overlap domain, so
     * tp_overlap, dp_overlap and param_overlap are 1: the sources' recipes as the
     * profiles' knobs describe them) */
    item(fix, "offload=0");
    o->fixed = g_string_free(fix, FALSE);
    GString *only = g_string_new(fw->only);
    /* equal chunks where the framework asserts them, or where the source's runs used them,
     * for a planned vpp (the space's rule: pp*vpp divides the layers) */
    const gboolean equal = (fw->uniform_chunks || (src != NULL && src->equal_chunks)) && d->vpp < 0;
    if (equal && d->pp > 0) {
        const uint32_t L = prism_model_split_layers(prism_cost_model_model(cm));
        const uint32_t pp = (uint32_t)d->pp;
        if (L % pp != 0) {
            g_string_append_printf(why, "layers %u not divisible by pp %u (%s needs equal stages)",
                                   L, pp, fw->uniform_chunks ? fw->name : "the source's runs");
            g_string_free(only, TRUE);
            return FALSE;
        }
    }
    o->only = g_string_free(only, FALSE);
    GError *error = NULL;
    g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
    prism_space_filter_set_uniform_chunks(f, equal);
    prism_space_filter_set_cp_shards(f, fw->cp_shards);
    prism_space_filter_set_default_where_allowed(f, d->sp == -2 ? fw->def[PRISM_FW_SP] : -1,
                                                 d->zero == -2 ? fw->def[PRISM_FW_ZERO] : -1);
    gboolean ok = prism_space_filter_fix(f, o->fixed, &error) &&
                  (*o->only == '\0' || prism_space_filter_only(f, o->only, &error));
    const uint32_t devices = (uint32_t)d->n;
    g_autoptr(PrismSpace) space =
        ok ? prism_space_new(prism_cost_model_model(cm), prism_cost_model_training(cm), &devices, 1,
                             f, &error)
           : NULL;
    if (space == NULL) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    const PrismSearchJob job = {.cm = cm, .space = space, .row_weight = 0};
    PrismSearchOptions opt;
    prism_search_options_init(&opt);
    opt.top_k = 1; /* by step time: at fixed gbs and devices the best MFU and TFLOP/s */
    opt.label = "validate";
    g_autoptr(PrismSearchResult) res = prism_search_run(comm, &job, 1, &opt, NULL, &error);
    if (res == NULL) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    o->searched = prism_search_result_total(res);
    o->feasible = prism_search_result_feasible(res);
    const PrismTopK *top = prism_search_result_top(res, 0);
    if (prism_topk_size(top) == 0)
        return TRUE; /* nothing fits: predictions stay NAN */
    size_t j;
    PrismStrategy best;
    double c[PRISM_COL_COUNT];
    if (!prism_search_row(&job, 1, prism_topk_index(top, 0), &j, &best, c, &error)) {
        g_string_append(why, error->message);
        g_error_free(error);
        return FALSE;
    }
    o->strategy = prism_strategy_format(&best);
    if (!explain_row(cm, &best, NULL, explain, o, why))
        return FALSE;
    predicted(c, cm, &best, fw, src, d, o);
    if (interval)
        step_interval(cm, &best, NULL, o);
    o->pred[PRISM_VM_MEM] = NAN; /* the planned strategy's memory is not the measured one's */
    o->mem_counts = -1;
    /* a stated pp and vpp are fixed, so unequal chunks can come out of the search */
    o->unsupported = prism_space_framework_unsupported(fw, prism_cost_model_model(cm), &best);
    return TRUE;
}

static void row_free(gpointer p)
{
    PrismValidateRow *o = p;
    g_free(o->source);
    g_free(o->model);
    g_free(o->framework);
    g_free(o->framework_from);
    g_free(o->reason);
    g_free(o->strategy);
    g_free(o->fixed);
    g_free(o->only);
    g_free(o->defaults);
    g_free(o->unsupported);
    g_free(o->knobs);
    g_free(o->planned);
    g_free(o->cluster);
    g_free(o->dtype);
    prism_explain_free(o->explain);
    prism_cost_model_free(o->explain_model);
    g_free(o);
}

static void stat_free(gpointer p)
{
    PrismValidateStat *s = p;
    g_free(s->source);
    g_free(s);
}

void prism_validate_report_free(PrismValidateReport *r)
{
    if (r == NULL)
        return;
    g_free(r->path);
    g_ptr_array_unref(r->rows);
    g_ptr_array_unref(r->stats);
    g_ptr_array_unref(r->frameworks);
    g_free(r);
}

const char *prism_validate_kind_name(PrismValidateKind k)
{
    static const char *const n[] = {"predicted", "planned", "skipped"};
    return (unsigned)k < G_N_ELEMENTS(n) ? n[k] : "?";
}

const char *prism_validate_metric_name(int metric)
{
    static const char *const n[] = {"peak_mem", "step_time", "tflops_per_gpu", "mfu"};
    return metric >= 0 && metric < PRISM_VM_COUNT ? n[metric] : "?";
}

/* Each metric's absolute percentage error where both figures exist (NAN elsewhere). */
static void row_errors(PrismValidateRow *o)
{
    for (int k = 0; k < PRISM_VM_COUNT; k++)
        o->err[k] = isnan(o->pred[k]) || isnan(o->meas[k]) || o->meas[k] == 0
                        ? NAN
                        : 100.0 * fabs(o->pred[k] - o->meas[k]) / o->meas[k];
}

static void add_stats(PrismValidateReport *rep, PrismValidateRow *o)
{
    PrismValidateStat *st = NULL;
    for (guint i = 0; i < rep->stats->len && st == NULL; i++) {
        PrismValidateStat *x = g_ptr_array_index(rep->stats, i);
        if (x->kind == o->kind && strcmp(x->source, o->source) == 0)
            st = x;
    }
    if (st == NULL) {
        st = g_new0(PrismValidateStat, 1);
        st->source = g_strdup(o->source);
        st->kind = o->kind;
        g_ptr_array_add(rep->stats, st);
    }
    st->rows++;
    row_errors(o);
    for (int k = 0; k < PRISM_VM_COUNT; k++) {
        if (isnan(o->err[k]))
            continue;
        st->sum[k] += o->err[k];
        st->signed_sum[k] += 100.0 * (o->pred[k] - o->meas[k]) / o->meas[k];
        st->worst[k] = MAX(st->worst[k], o->err[k]);
        st->n[k]++;
    }
    const double m = o->meas[PRISM_VM_STEP];
    if (!isnan(o->step_lo) && !isnan(m) && o->pred[PRISM_VM_STEP] > 0) {
        st->iv_n++;
        st->iv_inside += o->step_lo <= m && m <= o->step_hi ? 1 : 0;
        st->iv_width += 100.0 * (o->step_hi - o->step_lo) / o->pred[PRISM_VM_STEP];
    }
}

/* The framework of a row; NULL with @p why (skip) or @p error (bad input). */
/* sources.ini, read once: the table, or why it could not be read. */
typedef struct Sources {
    GHashTable *table;
    GError *error;
    GHashTable *clusters; /* the run's loaded clusters (cluster_load) */
} Sources;

static const PrismFramework *row_framework(PrismValidateReport *rep, const Row *r,
                                           const PrismValidateOptions *opt, const Sources *sources,
                                           const char *path, PrismValidateRow *o, GString *why,
                                           GError **error)
{
    const char *name = prism_validate_col(r, "framework");
    const char *from = "column";
    if (*name == '\0' && opt->framework != NULL) {
        o->framework = g_strdup(opt->framework->name);
        o->framework_from = g_strdup("--framework");
        return opt->framework;
    }
    if (*name == '\0') {
        if (sources->table == NULL) {
            g_set_error(error, PRISM_INPUT_ERROR, sources->error->code,
                        "validation CSV %s line %d: source %s needs sources.ini: %s", path, r->line,
                        o->source, sources->error->message);
            return NULL;
        }
        const SourceInfo *s = g_hash_table_lookup(sources->table, o->source);
        if (s == NULL || s->framework == NULL) {
            g_string_append_printf(why,
                                   "source %s has no profile in sources.ini: give a "
                                   "framework column or --framework",
                                   o->source);
            return NULL;
        }
        name = s->framework;
        from = "sources.ini";
    }
    o->framework_from = g_strdup(from);
    for (guint i = 0; i < rep->frameworks->len; i++) {
        PrismFramework *fw = g_ptr_array_index(rep->frameworks, i);
        if (strcmp(fw->name, name) == 0 || strcmp(fw->path, name) == 0) {
            o->framework = g_strdup(fw->name);
            return fw;
        }
    }
    GError *local = NULL;
    PrismFramework *fw = prism_framework_resolve(name, &local);
    if (fw != NULL && !prism_space_filter_check_only(fw->name, fw->path, fw->only, &local))
        g_clear_pointer(&fw, prism_framework_free);
    if (fw == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, local->code, "validation CSV %s line %d %s %s: %s",
                    path, r->line, strcmp(from, "column") == 0 ? "column framework" : "source",
                    strcmp(from, "column") == 0 ? name : o->source, local->message);
        g_error_free(local);
        return NULL;
    }
    o->framework = g_strdup(fw->name);
    /* a name spelled loosely ("Megatron_Core") can resolve to a profile already in use */
    for (guint i = 0; i < rep->frameworks->len; i++) {
        PrismFramework *used = g_ptr_array_index(rep->frameworks, i);
        if (strcmp(used->path, fw->path) == 0) {
            prism_framework_free(fw);
            return used;
        }
    }
    g_ptr_array_add(rep->frameworks, fw);
    return fw;
}

/* One row into @p o; FALSE only on bad input (@p error). */
static gboolean one_row(PrismComm *comm, PrismValidateReport *rep, const Row *r,
                        const PrismValidateOptions *opt, const Sources *sources, const char *path,
                        PrismValidateRow *o, GError **error)
{
    o->line = r->line;
    o->source = g_strdup(prism_validate_col(r, "source_id"));
    o->model = g_strdup(prism_validate_col(r, "model_name"));
    o->oom = g_str_has_prefix(prism_validate_col(r, "notes"), "OOM");
    o->kind = PRISM_VALIDATE_SKIPPED;
    o->mem_counts = -1;
    for (int k = 0; k < PRISM_VM_COUNT; k++)
        o->pred[k] = o->meas[k] = o->err[k] = NAN;
    g_autoptr(GString) why = g_string_new(NULL);
    if (!prism_validate_check_cells(r, path, error))
        return FALSE;
    GError *local = NULL;
    const PrismFramework *fw = row_framework(rep, r, opt, sources, path, o, why, &local);
    if (local != NULL) {
        g_propagate_error(error, local);
        return FALSE;
    }
    /* what the source states (memory unit, ...) applies whatever the framework */
    const SourceInfo *src = sources->table ? g_hash_table_lookup(sources->table, o->source) : NULL;
    /* the track record's filter: rows of another device family or profile are not
     * evaluated (skipped with that reason) */
    if (fw != NULL && opt->family != NULL) {
        g_autoptr(GString) ignored = g_string_new(NULL);
        g_autofree char *cl = cluster_name(r, src, ignored);
        g_autoptr(PrismCluster) loaded =
            cl != NULL ? cluster_load(sources->clusters, cl, NULL) : NULL;
        g_autofree char *fam = loaded != NULL ? g_strdup(loaded->family) : NULL;
        if (fam == NULL || strcmp(fam, opt->family) != 0)
            g_string_append_printf(why, "not on device family %s", opt->family);
    }
    if (fw != NULL && why->len == 0 && opt->only_framework != NULL &&
        strcmp(fw->name, opt->only_framework) != 0)
        g_string_append_printf(why, "not under framework %s", opt->only_framework);
    if (why->len > 0)
        fw = NULL;
    double experts = 0;
    Dims d;
    g_autoptr(GString) defs = g_string_new(NULL);
    g_autoptr(GString) planned = g_string_new(NULL);
    if (fw == NULL) {
        /* why says it */
    } else if ((rep->n_moe += prism_validate_num(r, "experts", &experts) && experts > 0,
                row_dims(r, fw, src, &d, defs, planned, why))) {
        o->devices = (uint32_t)d.n;
        o->tp = d.tp > 0 ? (uint32_t)d.tp : 0; /* a planned dim: 0 */
        o->pp = d.pp > 0 ? (uint32_t)d.pp : 0;
        o->cp = d.cp > 0 ? (uint32_t)d.cp : 0;
        o->ep = d.ep > 0 ? (uint32_t)d.ep : 0;
        o->dp = d.dp > 0 ? (uint32_t)d.dp : 0;
        o->gbs = (uint64_t)d.gbs;
        o->defaults = g_strdup(defs->str);
        g_autoptr(PrismCostModel) cm =
            row_cost_model(r, fw, src, sources->clusters, opt->user, &d, o, why);
        const int explain = r->line == opt->explain_line;
        if (cm != NULL && planned->len == 0 &&
            predict(cm, &d, fw, src, explain, !opt->no_interval, o, why))
            o->kind = PRISM_VALIDATE_PREDICTED;
        else if (cm != NULL && planned->len > 0) {
            o->planned = g_strdup(planned->str);
            if (plan(comm, cm, &d, fw, src, explain, !opt->no_interval, o, why))
                o->kind = PRISM_VALIDATE_PLANNED;
        }
        if (o->explain != NULL) /* the explanation reads the model it was priced under */
            o->explain_model = g_steal_pointer(&cm);
        measured(r, &d, (double)o->seq, src, o);
    }
    if (o->kind == PRISM_VALIDATE_SKIPPED) {
        o->reason = g_strdup(why->len ? why->str : "not modelled");
        rep->n_skipped++;
        rep->n_oom_skipped += o->oom;
        return TRUE;
    }
    if (o->kind == PRISM_VALIDATE_PLANNED) {
        rep->n_planned++;
        o->fits = o->feasible > 0;
    } else {
        rep->n_predicted++;
    }
    if (o->oom) {
        rep->n_oom++;
        rep->n_oom_flagged += !o->fits;
    }
    add_stats(rep, o);
    return TRUE;
}

/* Line breaks in [a, b): "\n", "\r\n" and a lone "\r" (the record terminators of
 * prism_validate_csv_record), also inside quoted fields, so that a record's line is the one
 * an editor shows. */
static int line_breaks(const char *a, const char *b)
{
    int n = 0;
    for (; a < b; a++)
        n += *a == '\n' || (*a == '\r' && (a + 1 == b || a[1] != '\n'));
    return n;
}

PrismValidateReport *prism_validate_run(PrismComm *comm, const char *path,
                                        const PrismValidateOptions *opt, GError **error)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    GError *local = NULL;
    if (!g_file_get_contents(path, &text, &len, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE, "validation CSV %s: %s", path,
                    local->message);
        g_error_free(local);
        return NULL;
    }
    /* a NUL byte would end the parse there and drop every row after it unseen */
    const char *nul = memchr(text, '\0', len);
    if (nul != NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "validation CSV %s line %d: a NUL byte (byte %zu): not a text file", path,
                    1 + line_breaks(text, nul), (size_t)(nul - text) + 1);
        return NULL;
    }
    /* the byte order mark spreadsheets put before the header ("CSV UTF-8") */
    const char *p = text + prism_utf8_bom_len(text, len);
    const char *rec = p;
    g_autoptr(GPtrArray) header = prism_validate_csv_record(&p);
    /* every other column may be absent (empty in every row): a shape from the zoo, the
     * batch and sequence from sources.ini, the layout planned */
    static const char *const need[] = {"source_id", "model_name", "gpu_type", "num_gpus"};
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
    PrismValidateReport *rep = g_new0(PrismValidateReport, 1);
    rep->path = g_strdup(path);
    rep->rows = g_ptr_array_new_with_free_func(row_free);
    rep->stats = g_ptr_array_new_with_free_func(stat_free);
    rep->frameworks = g_ptr_array_new_with_free_func((GDestroyNotify)prism_framework_free);
    Sources sources = {
        NULL, NULL,
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)prism_cluster_free)};
    sources.table = prism_validate_load_sources(&sources.error);
    g_autofree char *dir = g_path_get_dirname(path); /* a relative config.json is its */
    int line = 1; /* of the record read last; the next starts after its line breaks */
    gboolean ok = TRUE;
    while (*p && ok) {
        line += line_breaks(rec, p);
        rec = p;
        Row r = {.kv = g_hash_table_new(g_str_hash, g_str_equal),
                 .fields = prism_validate_csv_record(&p),
                 .line = line,
                 .dir = dir};
        const gboolean blank =
            r.fields->len == 1 && *(const char *)g_ptr_array_index(r.fields, 0) == '\0';
        if (!blank && r.fields->len != header->len) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "validation CSV %s line %d: %u fields, the header has %u", path, line,
                        r.fields->len, header->len);
            ok = FALSE;
        } else if (!blank && (opt->explain_line <= 0 || line == opt->explain_line)) {
            for (guint j = 0; j < header->len; j++)
                g_hash_table_insert(r.kv, g_ptr_array_index(header, j),
                                    g_ptr_array_index(r.fields, j));
            PrismValidateRow *o = g_new0(PrismValidateRow, 1);
            o->step_lo = o->step_hi = o->step_fast = o->step_slow = NAN;
            o->held_lo = o->held_hi = o->held_widen = o->held_tol = NAN;
            g_ptr_array_add(rep->rows, o);
            ok = one_row(comm, rep, &r, opt, &sources, path, o, error);
        }
        g_hash_table_destroy(r.kv);
        g_ptr_array_free(r.fields, TRUE);
    }
    if (sources.table != NULL)
        g_hash_table_destroy(sources.table);
    g_clear_error(&sources.error);
    g_hash_table_destroy(sources.clusters);
    /* predicted statistics first, then planned (stable within each kind) */
    g_autoptr(GPtrArray) sorted = g_ptr_array_new();
    for (int kind = 0; kind < 2; kind++)
        for (guint i = 0; i < rep->stats->len; i++)
            if (((PrismValidateStat *)g_ptr_array_index(rep->stats, i))->kind == (unsigned)kind)
                g_ptr_array_add(sorted, g_ptr_array_index(rep->stats, i));
    for (guint i = 0; i < sorted->len; i++)
        rep->stats->pdata[i] = sorted->pdata[i];
    if (ok && opt->explain_line > 0 && rep->rows->len == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "validation CSV %s: --explain %d: no data row on line %d (the header is "
                    "line 1, the data rows are lines 2 to %d)",
                    path, opt->explain_line, opt->explain_line, line);
        ok = FALSE;
    }
    if (!ok) {
        prism_validate_report_free(rep);
        return NULL;
    }
    return rep;
}

PrismValidateRow *prism_validate_strategy(const PrismCostModel *cm, const PrismStrategy *s,
                                          const PrismLayout *layout, const PrismFramework *fw,
                                          const PrismValidateRun *run, GError **error)
{
    double c[PRISM_COL_COUNT];
    if (!(layout != NULL ? prism_cost_eval_layout(cm, s, layout, c, error)
                         : prism_cost_eval_one(cm, s, c, error)))
        return NULL;
    const PrismTraining *t = prism_cost_model_training(cm);
    PrismValidateRow *o = g_new0(PrismValidateRow, 1);
    o->source = g_strdup(run->source);
    o->model = g_strdup(prism_cost_model_model(cm)->name);
    o->framework = fw != NULL ? g_strdup(fw->name) : NULL;
    o->framework_from = g_strdup(run->framework_from);
    o->kind = PRISM_VALIDATE_PREDICTED;
    o->defaults = g_strdup(""); /* every dim is the file's */
    o->strategy = prism_strategy_format(s);
    if (layout != NULL) { /* the run's own split of the layers, as the file states it */
        GString *st = g_string_new(o->strategy);
        g_string_append(st, " (layers per chunk:");
        for (uint32_t j = 0; j < s->pp * s->vpp; j++)
            g_string_append_printf(st, "%s%u", j ? "," : " ", layout->chunk_layers[j]);
        g_string_append_c(st, ')');
        g_free(o->strategy);
        o->strategy = g_string_free(st, FALSE);
    }
    o->cluster = g_strdup(prism_cost_model_cluster(cm)->name);
    o->dtype = g_strdup(prism_dtype_name(t->dtype));
    o->devices = s->devices, o->tp = s->tp, o->pp = s->pp, o->cp = s->cp, o->ep = s->ep;
    o->dp = s->dp, o->gbs = t->gbs, o->seq = t->seq;
    o->step_lo = o->step_hi = o->step_fast = o->step_slow = NAN;
    o->held_lo = o->held_hi = o->held_widen = o->held_tol = NAN;
    for (int k = 0; k < PRISM_VM_COUNT; k++)
        o->pred[k] = o->meas[k] = o->err[k] = NAN;
    /* the run as a row that states every dim: the same pricing as a predicted CSV row */
    const Dims d = {.n = s->devices, .mem_kind = run->mem_kind, .mem_rank = run->mem_rank};
    g_autoptr(GString) why = g_string_new(NULL);
    if (!priced(cm, s, layout, c, &d, fw, NULL, 0, TRUE, o, why)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE, "%s: %s", run->source,
                    why->str);
        row_free(o);
        return NULL;
    }
    /* priced() leaves a layout's row unjudged (ZB_PP's empty-ended chunks); a file's split
     * is one its framework runs, the rest of its strategy is the profile's to judge */
    if (layout != NULL && o->unsupported == NULL)
        o->unsupported = prism_space_framework_unsupported(fw, prism_cost_model_model(cm), s);
    o->meas[PRISM_VM_STEP] = run->step_s;
    o->meas[PRISM_VM_MEM] = run->mem_gib;
    row_errors(o);
    return o;
}

void prism_validate_row_free(PrismValidateRow *r)
{
    if (r != NULL)
        row_free(r);
}
