// SPDX-License-Identifier: MIT
/*
 * cost_framework.c - framework profiles (framework.h): find, load and apply the key files
 * of cost/frameworks/. Every group and key is checked against the schema below; anything
 * else is refused with the file, group, key and value. Nothing here is collective.
 */
#include <prism/framework.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include <prism/core.h>
#include <prism/strategy.h>

#ifndef PRISM_SOURCE_DIR
#define PRISM_SOURCE_DIR "."
#endif

static const char *const counts_names[PRISM_MEM_COUNTS_COUNT] = {"allocated", "reserved", "device"};
static const char *const dim_names[PRISM_FW_DIM_COUNT] = {"micro_batch", "recompute", "vpp",
                                                          "zero_stage",  "sp",        "schedule"};

const char *prism_mem_counts_name(PrismMemCounts c)
{
    return (unsigned)c < PRISM_MEM_COUNTS_COUNT ? counts_names[c] : "?";
}

gboolean prism_mem_counts_parse(const char *text, PrismMemCounts *out, GError **error)
{
    for (int i = 0; i < PRISM_MEM_COUNTS_COUNT; i++)
        if (strcmp(text, counts_names[i]) == 0) {
            *out = (PrismMemCounts)i;
            return TRUE;
        }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "'%s' is not allowed (allocated, reserved or device (nvidia-smi))", text);
    return FALSE;
}

const char *prism_framework_dim_name(PrismFrameworkDim d)
{
    return (unsigned)d < PRISM_FW_DIM_COUNT ? dim_names[d] : "?";
}

void prism_framework_free(PrismFramework *fw)
{
    if (fw == NULL)
        return;
    g_free(fw->name);
    g_free(fw->path);
    g_free(fw->title);
    g_free(fw->source);
    g_free(fw->only);
    for (unsigned i = 0; i < fw->n_dev; i++)
        g_free(fw->dev[i].family);
    g_free(fw->dev);
    g_free(fw);
}

/* Existing folders among: $ENV, <bindir>/SUB, <bindir>/../share/prism/SUB, then the
 * source tree's SOURCE_REL (a compile-time fallback). */
static char **data_dirs(const char *env_name, const char *sub, const char *source_rel)
{
    GPtrArray *d = g_ptr_array_new();
    const char *env = g_getenv(env_name);
    if (env != NULL && *env != '\0')
        g_ptr_array_add(d, g_strdup(env));
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe != NULL) {
        g_autofree char *bin = g_path_get_dirname(exe);
        g_ptr_array_add(d, g_build_filename(bin, sub, NULL));
        g_ptr_array_add(d, g_build_filename(bin, "..", "share", "prism", sub, NULL));
    }
    g_ptr_array_add(d, g_build_filename(PRISM_SOURCE_DIR, source_rel, NULL));
    GPtrArray *out = g_ptr_array_new();
    for (guint i = 0; i < d->len; i++) {
        char *p = g_ptr_array_index(d, i);
        if (g_file_test(p, G_FILE_TEST_IS_DIR))
            g_ptr_array_add(out, p);
        else
            g_free(p);
    }
    g_ptr_array_free(d, TRUE);
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

char **prism_framework_dirs(void)
{
    return data_dirs("PRISM_FRAMEWORKS_DIR", "frameworks", "cost/frameworks");
}

char **prism_validation_dirs(void)
{
    return data_dirs("PRISM_VALIDATION_DIR", "validation", "cost/validation");
}

/* @p basename in the first of @p dirs that holds it, or NULL. */
static char *first_file(char **dirs, const char *basename)
{
    for (char **d = dirs; *d != NULL; d++) {
        char *p = g_build_filename(*d, basename, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
            return p;
        g_free(p);
    }
    return NULL;
}

char *prism_validation_data_file(const char *basename)
{
    g_auto(GStrv) dirs = prism_validation_dirs();
    return first_file(dirs, basename);
}

char *prism_framework_data_file(const char *basename, GError **error)
{
    g_auto(GStrv) dirs = prism_framework_dirs();
    char *p = first_file(dirs, basename);
    if (p != NULL)
        return p;
    g_autofree char *list = g_strjoinv(", ", dirs);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_FILE,
                "framework data file %s not found (searched: %s; set PRISM_FRAMEWORKS_DIR)",
                basename, *list ? list : "no frameworks folder exists");
    return NULL;
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char **prism_framework_names(void)
{
    g_auto(GStrv) dirs = prism_framework_dirs();
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (char **d = dirs; *d != NULL; d++) {
        g_autoptr(GDir) dir = g_dir_open(*d, 0, NULL);
        const char *e;
        while (dir != NULL && (e = g_dir_read_name(dir)) != NULL) {
            if (!g_str_has_suffix(e, ".ini") || strcmp(e, "sources.ini") == 0)
                continue;
            char *n = g_strndup(e, strlen(e) - 4);
            gboolean dup = FALSE;
            for (guint i = 0; i < names->len && !dup; i++)
                dup = strcmp(g_ptr_array_index(names, i), n) == 0;
            if (dup)
                g_free(n);
            else
                g_ptr_array_add(names, n);
        }
    }
    g_ptr_array_sort(names, compare_names);
    char **out = g_new0(char *, names->len + 1);
    for (guint i = 0; i < names->len; i++)
        out[i] = g_strdup(g_ptr_array_index(names, i));
    return out;
}

static gboolean bad(GError **error, const char *path, const char *group, const char *key,
                    const char *value, const char *allowed)
{
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                "framework profile %s [%s] %s = '%s': %s", path, group, key, value, allowed);
    return FALSE;
}

/* A whole number in [lo, hi] or one of the words in @p words (mapped to codes). */
static gboolean int_or_word(const char *v, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno != 0 || x < lo || x > hi)
        return FALSE;
    *out = (int)x;
    return TRUE;
}

static gboolean parse_bool(const char *v, gboolean *out)
{
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = TRUE;
    else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = FALSE;
    else
        return FALSE;
    return TRUE;
}

/* "tp, dp, param" (any subset, or "none") as PrismOverlap bits. */
static gboolean parse_overlap(const char *v, unsigned *out)
{
    *out = 0;
    g_auto(GStrv) parts = g_strsplit(v, ",", -1);
    for (char **p = parts; *p != NULL; p++) {
        const char *w = g_strstrip(*p);
        if (strcmp(w, "tp") == 0)
            *out |= PRISM_OVERLAP_TP;
        else if (strcmp(w, "dp") == 0)
            *out |= PRISM_OVERLAP_DP;
        else if (strcmp(w, "param") == 0)
            *out |= PRISM_OVERLAP_PARAM;
        else if (strcmp(w, "none") != 0 || parts[1] != NULL)
            return FALSE;
    }
    return TRUE;
}

static gboolean set_knob(PrismFramework *fw, PrismKnobs *knobs, gboolean *knob_set,
                         const char *name, const char *value, const char *group, GError **error)
{
    PrismKnobId id;
    GError *local = NULL;
    if (!prism_knob_lookup(name, &id, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "framework profile %s [%s] %s = '%s': %s", fw->path, group, name, value,
                    local->message);
        g_error_free(local);
        return FALSE;
    }
    g_autofree char *as = g_strdup_printf("%s=%s", name, value);
    if (!prism_knobs_set(knobs, as, &local)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "framework profile %s [%s] %s = '%s': %s", fw->path, group, name, value,
                    local->message);
        g_error_free(local);
        return FALSE;
    }
    knob_set[id] = TRUE;
    return TRUE;
}

static gboolean load_memory(PrismFramework *fw, const char *key, const char *v, GError **error)
{
    static const char *g = "memory";
    if (strcmp(key, "grad_fp32") == 0)
        return set_knob(fw, &fw->knobs, fw->knob_set, "grad_fp32", v, g, error);
    if (strcmp(key, "context_bytes") == 0)
        return set_knob(fw, &fw->knobs, fw->knob_set, "cuda_context", v, g, error);
    if (strcmp(key, "optimizer") == 0) {
        if (!prism_optimizer_parse(v, &fw->optimizer, NULL))
            return bad(error, fw->path, g, key, v, "allowed: adam, sgd");
        return TRUE;
    }
    if (strcmp(key, "counts") == 0) {
        if (prism_mem_counts_parse(v, &fw->counts, error))
            return TRUE;
        g_prefix_error(error, "framework profile %s [%s] %s: ", fw->path, g, key);
        return FALSE;
    }
    if (strcmp(key, "allocator_reserve") == 0) {
        char *end = NULL;
        double x = g_ascii_strtod(v, &end);
        if (end == v || *end != '\0' || !isfinite(x) || x < 0 || x > 1)
            return bad(error, fw->path, g, key, v, "a fraction between 0 and 1");
        return set_knob(fw, &fw->knobs, fw->knob_set, "allocator_reserve", v, g, error);
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "framework profile %s [memory] %s = '%s': unknown key (allowed: grad_fp32, "
                "optimizer, context_bytes, allocator_reserve, counts)",
                fw->path, key, v);
    return FALSE;
}

static gboolean load_default(PrismFramework *fw, const char *key, const char *v, GError **error)
{
    static const char *g = "defaults";
    if (strcmp(key, "pp_microbatches") == 0) {
        if (strcmp(v, "stages") != 0 && strcmp(v, "plan") != 0)
            return bad(error, fw->path, g, key, v, "allowed: stages, plan");
        fw->pp_microbatches_stages = strcmp(v, "stages") == 0;
        return TRUE;
    }
    if (strcmp(key, "dtype") == 0) {
        if (!prism_dtype_parse(v, &fw->dtype, NULL))
            return bad(error, fw->path, g, key, v, "allowed: a dtype of `prism plan --dtype`");
        fw->has_dtype = TRUE;
        return TRUE;
    }
    int d = -1;
    for (int i = 0; i < PRISM_FW_DIM_COUNT; i++)
        if (strcmp(key, dim_names[i]) == 0)
            d = i;
    if (d < 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "framework profile %s [defaults] %s = '%s': unknown key (allowed: "
                    "micro_batch, pp_microbatches, recompute, vpp, zero_stage, sp, schedule, "
                    "dtype)",
                    fw->path, key, v);
        return FALSE;
    }
    if (strcmp(v, "plan") == 0) {
        fw->def[d] = PRISM_FW_NONE;
        return TRUE;
    }
    int x = 0;
    switch ((PrismFrameworkDim)d) {
    case PRISM_FW_MICRO_BATCH:
        if (strcmp(v, "local") == 0)
            x = PRISM_FW_MBS_LOCAL;
        else if (!int_or_word(v, 1, 1 << 20, &x))
            return bad(error, fw->path, g, key, v, "a positive integer, local or plan");
        break;
    case PRISM_FW_RECOMPUTE:
        if (strcmp(v, "none") == 0)
            x = PRISM_RECOMPUTE_NONE;
        else if (strcmp(v, "selective") == 0)
            x = PRISM_RECOMPUTE_SELECTIVE;
        else if (strcmp(v, "full") == 0)
            x = PRISM_RECOMPUTE_FULL;
        else
            return bad(error, fw->path, g, key, v, "allowed: none, selective, full, plan");
        break;
    case PRISM_FW_VPP:
        if (!int_or_word(v, 1, 1 << 16, &x))
            return bad(error, fw->path, g, key, v, "a positive integer or plan");
        break;
    case PRISM_FW_ZERO:
        if (!int_or_word(v, 0, 3, &x))
            return bad(error, fw->path, g, key, v, "0, 1, 2, 3 or plan");
        break;
    case PRISM_FW_SP:
        if (!int_or_word(v, 0, 1, &x))
            return bad(error, fw->path, g, key, v, "0, 1 (on whenever tp > 1) or plan");
        break;
    case PRISM_FW_SCHEDULE: {
        PrismSchedule s;
        if (!prism_schedule_parse(v, &s, NULL)) {
            GString *all = g_string_new("allowed: ");
            for (uint32_t k = 0; k < PRISM_SCHEDULE_COUNT; k++)
                g_string_append_printf(all, "%s, ", prism_schedule_info(k)->name);
            g_string_truncate(all, all->len - 2);
            g_string_append(all, " or plan");
            gboolean ok = bad(error, fw->path, g, key, v, all->str);
            g_string_free(all, TRUE);
            return ok;
        }
        x = (int)s;
        break;
    }
    default:
        break;
    }
    fw->def[d] = x;
    return TRUE;
}

static gboolean load_group(PrismFramework *fw, GKeyFile *kf, const char *group, GError **error)
{
    gsize n = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, &n, NULL);
    for (gsize i = 0; i < n; i++) {
        g_autofree char *raw = g_key_file_get_value(kf, group, keys[i], NULL);
        const char *v = raw ? g_strstrip(raw) : "";
        const char *k = keys[i];
        gboolean ok = TRUE;
        if (strcmp(group, "profile") == 0) {
            if (strcmp(k, "title") == 0) {
                g_free(fw->title);
                fw->title = g_strdup(v);
            } else if (strcmp(k, "source") == 0) {
                g_free(fw->source);
                fw->source = g_strdup(v);
            } else {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                            "framework profile %s [profile] %s = '%s': unknown key (allowed: "
                            "title, source)",
                            fw->path, k, v);
                ok = FALSE;
            }
        } else if (strcmp(group, "knobs") == 0) {
            ok = set_knob(fw, &fw->knobs, fw->knob_set, k, v, group, error);
        } else if (g_str_has_prefix(group, "knobs.")) {
            PrismFrameworkDevice *d = &fw->dev[fw->n_dev - 1]; /* added by the caller */
            ok = set_knob(fw, &d->knobs, d->knob_set, k, v, group, error);
        } else if (strcmp(group, "memory") == 0) {
            ok = load_memory(fw, k, v, error);
        } else if (strcmp(group, "defaults") == 0) {
            ok = load_default(fw, k, v, error);
        } else if (strcmp(group, "planning") == 0) {
            if (strcmp(k, "only") == 0) {
                g_free(fw->only);
                fw->only = g_strdup(v);
            } else if (strcmp(k, "uniform_chunks") == 0) {
                if (!parse_bool(v, &fw->uniform_chunks))
                    ok = bad(error, fw->path, group, k, v, "true or false");
            } else if (strcmp(k, "pipeline_split") == 0) {
                if (strcmp(v, "even") == 0 || strcmp(v, "cost") == 0)
                    fw->split_by_cost = strcmp(v, "cost") == 0;
                else
                    ok = bad(error, fw->path, group, k, v, "even or cost");
            } else if (strcmp(k, "sequence_parallel") == 0) {
                if (strcmp(v, "always") == 0 || strcmp(v, "optional") == 0)
                    fw->sp_always = strcmp(v, "always") == 0;
                else
                    ok = bad(error, fw->path, group, k, v, "always or optional");
            } else if (strcmp(k, "recompute_layers") == 0) {
                if (strcmp(v, "every_nth") == 0 || strcmp(v, "first_k") == 0)
                    fw->rc_every_nth = strcmp(v, "every_nth") == 0;
                else
                    ok = bad(error, fw->path, group, k, v, "first_k or every_nth");
            } else if (strcmp(k, "context_parallel_sharding") == 0) {
                if (strcmp(v, "always") == 0 || strcmp(v, "optional") == 0)
                    fw->cp_shards = strcmp(v, "always") == 0;
                else
                    ok = bad(error, fw->path, group, k, v, "always or optional");
            } else if (strcmp(k, "overlap") == 0 || strcmp(k, "overlap_search") == 0) {
                unsigned bits = 0;
                if (!parse_overlap(v, &bits))
                    ok = bad(error, fw->path, group, k, v,
                             "a comma-separated list of tp, dp and param (or none)");
                else if (k[7] == '\0')
                    fw->overlap = bits;
                else
                    fw->overlap_search = bits;
            } else {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                            "framework profile %s [planning] %s = '%s': unknown key (allowed: "
                            "only, uniform_chunks, overlap, overlap_search, sequence_parallel, "
                            "recompute_layers, context_parallel_sharding, pipeline_split)",
                            fw->path, k, v);
                ok = FALSE;
            }
        } else { /* model */
            if (strcmp(k, "architecture") == 0) {
                if (strcmp(v, "gpt") == 0 || strcmp(v, "llama") == 0)
                    fw->llama = strcmp(v, "llama") == 0;
                else
                    ok = bad(error, fw->path, group, k, v, "allowed: gpt, llama");
            } else if (strcmp(k, "tied_embeddings") == 0) {
                gboolean b = FALSE;
                if (!parse_bool(v, &b))
                    ok = bad(error, fw->path, group, k, v, "true or false");
                else
                    fw->tied_embeddings = b ? 1 : 0;
            } else {
                g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                            "framework profile %s [model] %s = '%s': unknown key (allowed: "
                            "architecture, tied_embeddings)",
                            fw->path, k, v);
                ok = FALSE;
            }
        }
        if (!ok)
            return FALSE;
    }
    return TRUE;
}

/* A [knobs.FAMILY] group: FAMILY must be the device family of a cluster preset (its
 * compute die: A100, H100, B200, ...; prism_device_family), once per profile. */
static gboolean add_device(PrismFramework *fw, const char *family, GError **error)
{
    g_autoptr(GString) allowed = g_string_new(NULL);
    g_autofree char *prev = NULL;
    gboolean ok = FALSE;
    for (size_t i = 0; i < prism_cluster_preset_count(); i++) {
        char *f = prism_device_family(prism_cluster_preset_name(i));
        ok = ok || g_ascii_strcasecmp(f, family) == 0;
        if (prev == NULL || strcmp(prev, f) != 0) /* presets of a family are adjacent */
            g_string_append_printf(allowed, "%s%s", allowed->len ? ", " : "", f);
        g_free(prev);
        prev = f;
    }
    if (!ok) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "framework profile %s: group [knobs.%s]: unknown device family '%s' "
                    "(allowed: %s: the cluster presets' device families)",
                    fw->path, family, family, allowed->str);
        return FALSE;
    }
    for (unsigned i = 0; i < fw->n_dev; i++)
        if (g_ascii_strcasecmp(fw->dev[i].family, family) == 0) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                        "framework profile %s: groups [knobs.%s] and [knobs.%s] name one "
                        "device family",
                        fw->path, fw->dev[i].family, family);
            return FALSE;
        }
    fw->dev = g_renew(PrismFrameworkDevice, fw->dev, fw->n_dev + 1);
    PrismFrameworkDevice *d = &fw->dev[fw->n_dev++];
    memset(d, 0, sizeof *d);
    d->family = g_strdup(family);
    prism_knobs_default(&d->knobs);
    return TRUE;
}

/* The profile in @p kf, read from @p path (which names it and its messages). */
static PrismFramework *framework_from_keyfile(GKeyFile *kf, const char *path, GError **error)
{
    PrismFramework *fw = g_new0(PrismFramework, 1);
    fw->path = g_strdup(path);
    g_autofree char *base = g_path_get_basename(path);
    fw->name = g_str_has_suffix(base, ".ini") ? g_strndup(base, strlen(base) - 4) : g_strdup(base);
    prism_knobs_default(&fw->knobs);
    fw->optimizer = PRISM_OPTIMIZER_ADAM;
    fw->counts = PRISM_MEM_ALLOCATED;
    fw->tied_embeddings = -1;
    for (int i = 0; i < PRISM_FW_DIM_COUNT; i++)
        fw->def[i] = PRISM_FW_NONE;
    static const char *const groups[] = {"profile",  "knobs",    "memory",
                                         "defaults", "planning", "model"};
    gsize ng = 0;
    g_auto(GStrv) have = g_key_file_get_groups(kf, &ng);
    for (gsize i = 0; i < ng; i++) {
        gboolean known = FALSE;
        for (size_t j = 0; j < G_N_ELEMENTS(groups) && !known; j++)
            known = strcmp(have[i], groups[j]) == 0;
        if (!known && g_str_has_prefix(have[i], "knobs.")) {
            if (!add_device(fw, have[i] + 6, error)) {
                prism_framework_free(fw);
                return NULL;
            }
            known = TRUE;
        }
        if (!known) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                        "framework profile %s: unknown group [%s] (allowed: profile, knobs, "
                        "knobs.FAMILY, memory, defaults, planning, model)",
                        path, have[i]);
            prism_framework_free(fw);
            return NULL;
        }
        if (!load_group(fw, kf, have[i], error)) {
            prism_framework_free(fw);
            return NULL;
        }
    }
    if (fw->title == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "framework profile %s: no [profile] title", path);
        prism_framework_free(fw);
        return NULL;
    }
    if (fw->overlap_search & ~fw->overlap) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "framework profile %s [planning] overlap_search names an option that "
                    "[planning] overlap does not (searched options must be supported)",
                    path);
        prism_framework_free(fw);
        return NULL;
    }
    return fw;
}

PrismFramework *prism_framework_load(const char *path, GError **error)
{
    g_autofree char *label = g_strdup_printf("framework profile %s", path);
    g_autoptr(GKeyFile) kf = prism_keyfile_load(path, label, error);
    return kf ? framework_from_keyfile(kf, path, error) : NULL;
}

PrismFramework *prism_framework_from_data(const char *data, size_t len, const char *path,
                                          GError **error)
{
    g_autofree char *label = g_strdup_printf("framework profile %s", path);
    g_autoptr(GKeyFile) kf = prism_keyfile_from_data(data, len, label, error);
    return kf ? framework_from_keyfile(kf, path, error) : NULL;
}

PrismFramework *prism_framework_resolve(const char *name_or_path, GError **error)
{
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".ini"))
        return prism_framework_load(name_or_path, error);
    g_autofree char *file = g_strdup_printf("%s.ini", name_or_path);
    g_auto(GStrv) dirs = prism_framework_dirs();
    for (char **d = dirs; *d != NULL; d++) {
        g_autofree char *p = g_build_filename(*d, file, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
            return prism_framework_load(p, error);
    }
    g_auto(GStrv) names = prism_framework_names();
    /* "Megatron_Core", "PyTorch FSDP": the profile whose file name is loosely that */
    const size_t n = g_strv_length(names);
    const size_t found = prism_name_lookup(name_or_path, (const char *const *)names, n);
    if (found < n)
        return prism_framework_resolve(names[found], error);
    g_autofree char *list = g_strjoinv(", ", names);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown framework '%s' (available: %s; or give a profile file path)", name_or_path,
                *list ? list : "none: no frameworks folder found");
    return NULL;
}

const PrismFrameworkDevice *prism_framework_device(const PrismFramework *fw,
                                                   const char *cluster_name)
{
    if (cluster_name == NULL || fw->n_dev == 0)
        return NULL;
    g_autofree char *family = prism_device_family(cluster_name);
    for (unsigned i = 0; i < fw->n_dev; i++)
        if (g_ascii_strcasecmp(fw->dev[i].family, family) == 0)
            return &fw->dev[i];
    return NULL;
}

gboolean prism_framework_knob_given(const PrismFramework *fw, const char *cluster_name,
                                    PrismKnobId id)
{
    const PrismFrameworkDevice *d = prism_framework_device(fw, cluster_name);
    return fw->knob_set[id] || (d != NULL && d->knob_set[id]);
}

void prism_framework_apply(const PrismFramework *fw, const char *cluster_name, PrismKnobs *knobs,
                           PrismTraining *training)
{
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        if (fw->knob_set[i])
            knobs->v[i] = fw->knobs.v[i];
    const PrismFrameworkDevice *d = prism_framework_device(fw, cluster_name);
    for (int i = 0; d != NULL && i < PRISM_KNOB_COUNT; i++)
        if (d->knob_set[i])
            knobs->v[i] = d->knobs.v[i];
    if (training != NULL)
        training->optimizer = fw->optimizer;
}
