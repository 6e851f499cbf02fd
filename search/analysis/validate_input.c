// SPDX-License-Identifier: MIT
/*
 * validate_input.c - the inputs of `prism validate` (validate-internal.h): the CSV
 * records, the checks of numeric cells and cost/frameworks/sources.ini. Not collective.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/framework.h>
#include <prism/knobs.h>
#include <prism/strategy.h>

#include "validate-internal.h"

/* What sources.ini says about one source beyond its framework. */

void prism_validate_source_free(gpointer p)
{
    SourceInfo *s = p;
    g_free(s->framework);
    g_free(s->vocab);
    g_free(s->dtype);
    g_free(s->fp8);
    g_free(s->cluster);
    g_free(s->cluster_file);
    g_strfreev(s->set);
    g_strfreev(s->set_if);
    g_free(s);
}

/* One `set_if` clause "COLUMN=VALUE: knob=value[,...]": FALSE when it is malformed or an
 * assignment is not a valid knob value. With @p r, applies the assignments to @p knobs when
 * the row's COLUMN cell is VALUE (as text, or as equal numbers). */
static gboolean set_if_clause(const char *clause, const Row *r, PrismKnobs *knobs)
{
    const char *colon = strchr(clause, ':');
    const char *eq = strchr(clause, '=');
    if (colon == NULL || eq == NULL || eq > colon || eq == clause)
        return FALSE;
    g_autofree char *col = g_strstrip(g_strndup(clause, (gsize)(eq - clause)));
    g_autofree char *want = g_strstrip(g_strndup(eq + 1, (gsize)(colon - eq - 1)));
    g_auto(GStrv) as = g_strsplit(colon + 1, ",", -1);
    PrismKnobs scratch;
    prism_knobs_default(&scratch);
    gboolean ok = *col != '\0' && *want != '\0' && as[0] != NULL;
    for (char **a = as; ok && *a; a++)
        ok = prism_knobs_set(&scratch, g_strstrip(*a), NULL);
    if (!ok || r == NULL)
        return ok;
    const char *have = prism_validate_col(r, col);
    char *e1 = NULL, *e2 = NULL;
    const double x = g_ascii_strtod(have, &e1), y = g_ascii_strtod(want, &e2);
    const gboolean num = *have != '\0' && *e1 == '\0' && *e2 == '\0';
    if (num ? x == y : strcmp(have, want) == 0)
        for (char **a = as; *a; a++)
            prism_knobs_set(knobs, *a, NULL);
    return TRUE;
}

void prism_validate_source_set_if(const SourceInfo *src, const Row *r, PrismKnobs *knobs)
{
    for (char **c = src != NULL ? src->set_if : NULL; c != NULL && *c; c++)
        set_if_clause(*c, r, knobs);
}

/* sources.ini: [sources] ID = profile, [ID] groups with the keys below. */
GHashTable *prism_validate_load_sources(GError **error)
{
    g_autofree char *path = prism_framework_data_file("sources.ini", error);
    if (path == NULL)
        return NULL;
    g_autofree char *label = g_strdup_printf("sources file %s", path);
    g_autoptr(GKeyFile) kf = prism_keyfile_load(path, label, error);
    if (kf == NULL)
        return NULL;
    GHashTable *t =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, prism_validate_source_free);
    gsize ng = 0;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, &ng);
    for (gsize gi = 0; gi < ng; gi++) {
        const char *g = groups[gi];
        gsize nk = 0;
        g_auto(GStrv) keys = g_key_file_get_keys(kf, g, &nk, NULL);
        for (gsize i = 0; i < nk; i++) {
            g_autofree char *raw = g_key_file_get_value(kf, g, keys[i], NULL);
            const char *v = g_strstrip(raw);
            const char *id = strcmp(g, "sources") == 0 ? keys[i] : g;
            SourceInfo *s = g_hash_table_lookup(t, id);
            if (s == NULL) {
                s = g_new0(SourceInfo, 1);
                s->mem_unit = 1e9;
                s->counts = s->tied = -1;
                g_hash_table_insert(t, g_strdup(id), s);
            }
            const char *k = keys[i];
            gboolean ok = TRUE;
            if (strcmp(g, "sources") == 0)
                s->framework = g_strdup(v);
            else if (strcmp(k, "memory_unit") == 0 && (!strcmp(v, "GB") || !strcmp(v, "GiB")))
                s->mem_unit = strcmp(v, "GB") == 0 ? 1e9 : 1073741824.0;
            else if (strcmp(k, "counts") == 0) {
                s->counts = -1;
                for (int c = 0; c < PRISM_MEM_COUNTS_COUNT; c++)
                    if (strcmp(v, prism_mem_counts_name((PrismMemCounts)c)) == 0)
                        s->counts = c;
                ok = s->counts >= 0;
            } else if (strcmp(k, "tflops") == 0 && (!strcmp(v, "mfu") || !strcmp(v, "hfu")))
                s->hfu = strcmp(v, "hfu") == 0;
            else if (strcmp(k, "vocab") == 0)
                s->vocab = g_strdup(v);
            else if (strcmp(k, "dtype") == 0)
                s->dtype = g_strdup(v);
            else if (strcmp(k, "global_batch") == 0 || strcmp(k, "seq_len") == 0) {
                /* a whole number of sequences / tokens, as the CSV columns */
                char *end = NULL;
                const double x = g_ascii_strtod(v, &end);
                ok = end != v && *end == '\0' && x >= 1 && x <= 1e9 && x == floor(x);
                *(strcmp(k, "seq_len") == 0 ? &s->seq : &s->gbs) = ok ? x : 0;
            } else if (strcmp(k, "fp8") == 0) {
                PrismDtype dt;
                ok = g_str_has_prefix(v, "fp8") || strcmp(v, "mxfp8") == 0;
                ok = ok && prism_dtype_parse(v, &dt, NULL);
                if (ok)
                    s->fp8 = g_strdup(v);
            } else if (strcmp(k, "cluster") == 0) {
                g_autoptr(PrismCluster) c = prism_cluster_preset(v, NULL);
                ok = c != NULL;
                if (ok)
                    s->cluster = g_strdup(v);
            } else if (strcmp(k, "cluster_file") == 0) {
                /* a cluster key file in the validation folders, read when a row uses it */
                g_free(s->cluster_file);
                s->cluster_file = strchr(v, '/') == NULL ? prism_validation_data_file(v) : NULL;
                ok = s->cluster_file != NULL;
            } else if (strcmp(k, "set") == 0) {
                /* "knob=value[,knob=value]": each checked against the knob table */
                g_strfreev(s->set);
                s->set = g_strsplit(v, ",", -1);
                PrismKnobs scratch;
                prism_knobs_default(&scratch);
                for (char **a = s->set; ok && *a; a++) {
                    g_strstrip(*a);
                    ok = prism_knobs_set(&scratch, *a, NULL);
                }
            } else if (strcmp(k, "set_if") == 0) {
                /* "COLUMN=VALUE: knob=value[,...][; ...]": each clause's knobs checked */
                g_strfreev(s->set_if);
                s->set_if = g_strsplit(v, ";", -1);
                for (char **c = s->set_if; ok && *c; c++) {
                    g_strstrip(*c);
                    ok = set_if_clause(*c, NULL, NULL);
                }
            } else if (strcmp(k, "tied_embeddings") == 0 &&
                       (!strcmp(v, "true") || !strcmp(v, "false")))
                s->tied = strcmp(v, "true") == 0;
            else if (strcmp(k, "equal_chunks") == 0 && (!strcmp(v, "true") || !strcmp(v, "false")))
                s->equal_chunks = strcmp(v, "true") == 0;
            else
                ok = FALSE;
            if (!ok) {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "sources file %s [%s] %s = '%s': unknown key or bad value (keys: "
                            "memory_unit GB|GiB, counts allocated|reserved|device, tflops "
                            "mfu|hfu, vocab, dtype, global_batch N, seq_len N, fp8 "
                            "fp8|fp8-cs|mxfp8, cluster PRESET, cluster_file FILE (a cluster key "
                            "file in the validation folders), "
                            "set KNOB=VALUE[,...], set_if COLUMN=VALUE: KNOB=VALUE[,...][; ...], "
                            "tied_embeddings true|false, "
                            "equal_chunks true|false)",
                            path, g, k, v);
                g_hash_table_destroy(t);
                return NULL;
            }
        }
    }
    return t;
}

/* One CSV record split into fields (RFC 4180 quoting). */
GPtrArray *prism_validate_csv_record(const char **p)
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

const char *prism_validate_col(const Row *r, const char *name)
{
    const char *v = g_hash_table_lookup(r->kv, name);
    return v ? v : "";
}

/* A stated number (cells were checked by check_cells); FALSE for an empty cell. */
gboolean prism_validate_num(const Row *r, const char *name, double *out)
{
    const char *v = prism_validate_col(r, name);
    if (*v == '\0')
        return FALSE;
    *out = g_ascii_strtod(v, NULL);
    return TRUE;
}

/* Numeric columns: whole numbers >= lo (lo < 0: any finite number >= 0). */
static const struct {
    const char *name;
    double lo, hi;
} numeric[] = {
    {"params_b", -1, 0},
    {"layers", 1, 10000}, /* as a config.json's num_hidden_layers */
    {"hidden", 1, 1e9},
    {"ffn_hidden", 1, 1e9},
    {"heads", 1, 1e6},
    {"kv_heads", 1, 1e6},
    {"seq_len", 1, 1e9},
    {"vocab", 1, 1e9},
    {"experts", 0, 1e6},
    {"topk", 0, 1e6},
    {"gpu_mem_gb", -1, 0},
    {"num_gpus", 1, 2147483648.0},
    {"gpus_per_node", 1, 1e6},
    {"intra_node_bw_GBps", -1, 0},
    {"inter_node_bw_GBps", -1, 0},
    {"tp", 1, 1e6},
    {"pp", 1, 1e6},
    {"vpp", 1, 1e6},
    {"dp", 1, 2147483648.0},
    {"cp", 1, 1e6},
    {"ep", 1, 1e6},
    {"sp", 0, 1},
    {"zero_stage", 0, 3},
    {"micro_batch", 1, 1e9},
    {"global_batch", 1, 1e12},
    {"measured_peak_mem_gb", -1, 0},
    {"measured_step_time_s", -1, 0},
    {"measured_tflops_per_gpu", -1, 0},
    {"measured_mfu", -1, 0},
    {"measured_tokens_per_s_per_gpu", -1, 0},
};

/* The optional knobs column: "name=value" assignments separated by ';' (a ',' would need
 * CSV quoting), blanks around them ignored. */
gboolean prism_validate_row_knobs(const Row *r, PrismKnobs *knobs, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(prism_validate_col(r, "knobs"), ";", -1);
    for (char **a = parts; *a != NULL; a++) {
        g_strstrip(*a);
        if (**a != '\0' && !prism_knobs_set(knobs, *a, error))
            return FALSE;
    }
    return TRUE;
}

/* The word columns: a stated cell must be one of the words (index = its value). */
static const struct {
    const char *name;
    const char *words[4];
    const char *allowed;
} worded[] = {
    {"tied_embeddings", {"0", "1"}, "0 (untied input and output embeddings) or 1 (tied)"},
    {"activation", {"gelu", "swiglu"}, "gelu or swiglu (the MLP's activation)"},
    {"mem_kind", {"allocated", "reserved", "device"}, "allocated, reserved or device (nvidia-smi)"},
};

/* The index of @p v among the words of worded[@p i], -1 when none. */
static int word_index(size_t i, const char *v)
{
    for (int w = 0; w < 4 && worded[i].words[w] != NULL; w++)
        if (strcmp(v, worded[i].words[w]) == 0)
            return w;
    return -1;
}

int prism_validate_mem_kind(const Row *r)
{
    return word_index(2, prism_validate_col(r, "mem_kind"));
}

/* "max" = -2, a whole number >= 0 = that rank, else -1 (empty or malformed) */
long prism_validate_mem_rank(const Row *r)
{
    const char *v = prism_validate_col(r, "mem_rank");
    if (strcmp(v, "max") == 0)
        return -2;
    char *end = NULL;
    errno = 0;
    const guint64 x = g_ascii_strtoull(v, &end, 10);
    if (*v == '\0' || !g_ascii_isdigit(*v) || *end != '\0' || errno != 0 || x > 2147483647u)
        return -1;
    return (long)x;
}

/* Every stated numeric cell must be a finite number in its range: bad input, never
 * "not stated". The knobs column must hold known knobs at allowed values, and the word
 * columns one of their words. */
gboolean prism_validate_check_cells(const Row *r, const char *path, GError **error)
{
    for (size_t i = 0; i < G_N_ELEMENTS(worded); i++) {
        const char *v = prism_validate_col(r, worded[i].name);
        if (*v != '\0' && word_index(i, v) < 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "validation CSV %s line %d column %s: '%s' is not allowed (%s, or empty "
                        "when not stated)",
                        path, r->line, worded[i].name, v, worded[i].allowed);
            return FALSE;
        }
    }
    const char *sched = prism_validate_col(r, "schedule");
    PrismSchedule ps;
    GError *bad = NULL;
    if (*sched != '\0' && !prism_schedule_parse(sched, &ps, &bad)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "validation CSV %s line %d column schedule: %s", path, r->line, bad->message);
        g_error_free(bad);
        return FALSE;
    }
    const char *rank = prism_validate_col(r, "mem_rank");
    if (*rank != '\0' && prism_validate_mem_rank(r) == -1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "validation CSV %s line %d column mem_rank: '%s' is not allowed (max, or the "
                    "global rank measured: a whole number from 0 to 2147483647; empty when not "
                    "stated)",
                    path, r->line, rank);
        return FALSE;
    }
    PrismKnobs scratch;
    prism_knobs_default(&scratch);
    GError *local = NULL;
    if (!prism_validate_row_knobs(r, &scratch, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, local->code,
                    "validation CSV %s line %d column knobs: %s (NAME=VALUE;... of `prism "
                    "knobs`)",
                    path, r->line, local->message);
        g_error_free(local);
        return FALSE;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(numeric); i++) {
        const char *v = prism_validate_col(r, numeric[i].name);
        if (*v == '\0')
            continue;
        char *end = NULL;
        errno = 0;
        const double d = g_ascii_strtod(v, &end);
        const gboolean whole = numeric[i].lo >= 0;
        if (end == v || *end != '\0' || errno != 0 || !isfinite(d) || d < 0 ||
            (whole && (d != floor(d) || d < numeric[i].lo || d > numeric[i].hi))) {
            if (whole)
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "validation CSV %s line %d column %s: '%s' is malformed (a whole "
                            "number from %g to %g, or empty when not stated)",
                            path, r->line, numeric[i].name, v, numeric[i].lo, numeric[i].hi);
            else
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                            "validation CSV %s line %d column %s: '%s' is malformed (a finite "
                            "number >= 0, or empty when not stated)",
                            path, r->line, numeric[i].name, v);
            return FALSE;
        }
    }
    return TRUE;
}
