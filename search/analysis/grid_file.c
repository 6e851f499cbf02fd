// SPDX-License-Identifier: MIT
/*
 * grid_file.c - grid files for `prism sweep --grid FILE` (GLib key files, io/README.md):
 * models x clusters x device counts x global batches x sequence lengths, plus fixed
 * options and knob overrides. Models and clusters are resolved here (a relative
 * config path is looked up next to the grid file first), so every error names the
 * file, group, key and value. Not collective (every rank loads the same file).
 */
#include <prism/grid.h>

#include <errno.h>
#include <string.h>

#include <prism/core.h>
#include <prism/space.h>

static const char *const grid_keys[] = {"models", "clusters", "devices", "gbs", "seq", NULL};
static const char *const option_keys[] = {"dtype", "optimizer",  "mem_budget", "fix", "range",
                                          "only",  "objectives", "rank_by",    "top", NULL};

void prism_grid_free(PrismGrid *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n_models; i++)
        prism_model_free(g->models[i]);
    for (size_t i = 0; i < g->n_clusters; i++)
        prism_cluster_free(g->clusters[i]);
    g_free(g->models);
    g_free(g->clusters);
    g_strfreev(g->model_names);
    g_strfreev(g->cluster_names);
    g_free(g->devices);
    g_free(g->gbs);
    g_free(g->seq);
    g_free(g->dtype);
    g_free(g->optimizer);
    g_strfreev(g->fix);
    g_strfreev(g->range);
    g_strfreev(g->only);
    g_free(g->objectives);
    g_free(g->rank_by);
    g_strfreev(g->knobs);
    g_free(g->path);
    g_free(g);
}

static gboolean check_keys(GKeyFile *kf, const char *path, const char *group,
                           const char *const *allowed, GError **error)
{
    gsize n = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, &n, NULL);
    for (gsize i = 0; i < n; i++)
        if (!g_strv_contains(allowed, keys[i])) {
            g_autofree char *list = g_strjoinv(", ", (char **)allowed);
            g_autofree char *close =
                prism_close_names(keys[i], allowed, g_strv_length((char **)allowed), 3);
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                        "grid %s [%s]: unknown key '%s' (closest: %s; allowed: %s)", path, group,
                        keys[i], close, list);
            return FALSE;
        }
    return TRUE;
}

/* A ';'-separated list of non-empty items. */
static char **get_list(GKeyFile *kf, const char *path, const char *group, const char *key,
                       gboolean required, GError **error)
{
    if (!g_key_file_has_key(kf, group, key, NULL)) {
        if (required)
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                        "grid %s [%s]: missing key '%s'", path, group, key);
        return NULL;
    }
    g_autofree char *raw = g_key_file_get_value(kf, group, key, NULL);
    g_auto(GStrv) items = g_strsplit(raw ? raw : "", ";", -1);
    GPtrArray *out = g_ptr_array_new();
    for (char **it = items; *it != NULL; it++) {
        char *v = g_strstrip(g_strdup(*it));
        if (*v == '\0') {
            g_free(v);
            continue;
        }
        g_ptr_array_add(out, v);
    }
    if (out->len == 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "grid %s [%s] %s: empty list (items are separated by ';')", path, group, key);
        g_ptr_array_free(out, TRUE);
        return NULL;
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

static gboolean parse_u64_list(char **items, const char *path, const char *key, uint64_t **out,
                               size_t *n, GError **error)
{
    *n = g_strv_length(items);
    *out = g_new(uint64_t, *n);
    for (size_t i = 0; i < *n; i++) {
        char *end = NULL;
        errno = 0;
        guint64 v =
            items[i][0] >= '0' && items[i][0] <= '9' ? g_ascii_strtoull(items[i], &end, 10) : 0;
        if (end == NULL || *end != '\0' || errno != 0 || v == 0 || v > (1ull << 40)) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "grid %s [grid] %s: '%s' is not a positive integer", path, key, items[i]);
            return FALSE;
        }
        (*out)[i] = v;
    }
    return TRUE;
}

/* A file (not a zoo or preset name) is tried next to the grid file first, then as given.
 * @p is_path: the resolver's own test (prism_model_resolve: '/' or .json;
 * prism_cluster_resolve: '/' or .ini/.conf/.cluster). */
static char *near_grid(const char *grid_path, const char *name, gboolean is_path)
{
    if (!is_path || g_path_is_absolute(name))
        return g_strdup(name);
    g_autofree char *dir = g_path_get_dirname(grid_path);
    char *near = g_build_filename(dir, name, NULL);
    if (g_file_test(near, G_FILE_TEST_EXISTS))
        return near;
    g_free(near);
    return g_strdup(name);
}

static gboolean load_grid_group(PrismGrid *g, GKeyFile *kf, GError **error)
{
    const char *path = g->path;
    g_auto(GStrv) models = get_list(kf, path, "grid", "models", TRUE, error);
    if (models == NULL)
        return FALSE;
    g->model_names = g_strdupv(models);
    g->n_models = g_strv_length(models);
    g->models = g_new0(PrismModel *, g->n_models);
    for (size_t i = 0; i < g->n_models; i++) {
        gboolean file = strchr(models[i], '/') != NULL || g_str_has_suffix(models[i], ".json");
        g_autofree char *loc = near_grid(path, models[i], file);
        g->models[i] = prism_model_resolve(loc, error);
        if (g->models[i] == NULL) {
            g_prefix_error(error, "grid %s [grid] models: ", path);
            return FALSE;
        }
    }
    g_auto(GStrv) clusters = get_list(kf, path, "grid", "clusters", FALSE, error);
    if (clusters == NULL && *error != NULL)
        return FALSE;
    if (clusters != NULL) {
        g->cluster_names = g_strdupv(clusters);
        g->n_clusters = g_strv_length(clusters);
        g->clusters = g_new0(PrismCluster *, g->n_clusters);
        for (size_t i = 0; i < g->n_clusters; i++) {
            const char *c = clusters[i];
            gboolean file = strchr(c, '/') != NULL || g_str_has_suffix(c, ".ini") ||
                            g_str_has_suffix(c, ".conf") || g_str_has_suffix(c, ".cluster");
            g_autofree char *loc = near_grid(path, c, file);
            g->clusters[i] = prism_cluster_resolve(loc, error);
            if (g->clusters[i] == NULL) {
                g_prefix_error(error, "grid %s [grid] clusters: ", path);
                return FALSE;
            }
        }
    }
    g_auto(GStrv) devices = get_list(kf, path, "grid", "devices", FALSE, error);
    if (devices == NULL && *error != NULL)
        return FALSE;
    if (devices != NULL)
        g->devices = g_strjoinv(",", devices); /* --devices syntax, parsed by the caller */
    g_auto(GStrv) gbs = get_list(kf, path, "grid", "gbs", FALSE, error);
    if ((gbs == NULL && *error != NULL) ||
        (gbs != NULL && !parse_u64_list(gbs, path, "gbs", &g->gbs, &g->n_gbs, error)))
        return FALSE;
    g_auto(GStrv) seq = get_list(kf, path, "grid", "seq", FALSE, error);
    if ((seq == NULL && *error != NULL) ||
        (seq != NULL && !parse_u64_list(seq, path, "seq", &g->seq, &g->n_seq, error)))
        return FALSE;
    return TRUE;
}

static char *get_string(GKeyFile *kf, const char *group, const char *key)
{
    g_autofree char *v = g_key_file_get_value(kf, group, key, NULL);
    return v ? g_strstrip(g_strdup(v)) : NULL;
}

static gboolean load_options(PrismGrid *g, GKeyFile *kf, GError **error)
{
    const char *path = g->path;
    if (!g_key_file_has_group(kf, "options"))
        return TRUE;
    if (!check_keys(kf, path, "options", option_keys, error))
        return FALSE;
    g->dtype = get_string(kf, "options", "dtype");
    g->optimizer = get_string(kf, "options", "optimizer");
    g->objectives = get_string(kf, "options", "objectives");
    g->rank_by = get_string(kf, "options", "rank_by");
    PrismDtype dt;
    PrismOptimizer op;
    if (g->dtype != NULL && !prism_dtype_parse(g->dtype, &dt, error)) {
        g_prefix_error(error, "grid %s [options] dtype: ", path);
        return FALSE;
    }
    if (g->optimizer != NULL && !prism_optimizer_parse(g->optimizer, &op, error)) {
        g_prefix_error(error, "grid %s [options] optimizer: ", path);
        return FALSE;
    }
    static const char *const numeric[] = {"mem_budget", "top"};
    for (size_t k = 0; k < G_N_ELEMENTS(numeric); k++) {
        g_autofree char *v = get_string(kf, "options", numeric[k]);
        if (v == NULL)
            continue;
        char *end = NULL;
        errno = 0;
        double d = g_ascii_strtod(v, &end);
        if (end == v || *end != '\0' || errno != 0 || !(d > 0) ||
            (k == 1 && (d != (double)(uint32_t)d || d > 1000))) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "grid %s [options] %s: '%s' must be a positive %s", path, numeric[k], v,
                        k == 0 ? "number (GiB)" : "integer up to 1000 (as --top)");
            return FALSE;
        }
        if (k == 0)
            g->mem_budget_gib = d;
        else
            g->top = (size_t)d;
    }
    /* Search filters: validated by the space filter parser, kept as text. */
    static const char *const filters[] = {"fix", "range", "only"};
    char ***dst[] = {&g->fix, &g->range, &g->only};
    for (size_t k = 0; k < G_N_ELEMENTS(filters); k++) {
        g_autofree char *v = get_string(kf, "options", filters[k]);
        if (v == NULL)
            continue;
        g_autoptr(PrismSpaceFilter) f = prism_space_filter_new();
        gboolean ok = k == 0   ? prism_space_filter_fix(f, v, error)
                      : k == 1 ? prism_space_filter_range(f, v, error)
                               : prism_space_filter_only(f, v, error);
        if (!ok) {
            g_prefix_error(error, "grid %s [options] %s: ", path, filters[k]);
            return FALSE;
        }
        *dst[k] = g_new0(char *, 2);
        (*dst[k])[0] = g_strdup(v);
    }
    return TRUE;
}

static gboolean load_knobs(PrismGrid *g, GKeyFile *kf, GError **error)
{
    if (!g_key_file_has_group(kf, "knobs"))
        return TRUE;
    gsize n = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "knobs", &n, NULL);
    g->knobs = g_new0(char *, n + 1);
    PrismKnobs scratch;
    prism_knobs_default(&scratch);
    for (gsize i = 0; i < n; i++) {
        g_autofree char *v = get_string(kf, "knobs", keys[i]);
        g->knobs[i] = g_strdup_printf("%s=%s", keys[i], v ? v : "");
        if (!prism_knobs_set(&scratch, g->knobs[i], error)) {
            g_prefix_error(error, "grid %s [knobs]: ", g->path);
            return FALSE;
        }
    }
    return TRUE;
}

PrismGrid *prism_grid_load(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autofree char *label = g_strdup_printf("grid %s", path);
    g_autoptr(GKeyFile) kf = prism_keyfile_load(path, label, error);
    if (kf == NULL)
        return NULL;
    gsize n_groups = 0;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, &n_groups);
    static const char *const allowed[] = {"grid", "options", "knobs", NULL};
    for (gsize i = 0; i < n_groups; i++)
        if (!g_strv_contains(allowed, groups[i])) {
            g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                        "grid %s: unknown group [%s] (allowed: [grid], [options], [knobs])", path,
                        groups[i]);
            return NULL;
        }
    if (!g_key_file_has_group(kf, "grid")) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "grid %s: no [grid] group (it lists models; clusters, devices, gbs, seq)",
                    path);
        return NULL;
    }
    g_autoptr(PrismGrid) g = g_new0(PrismGrid, 1);
    g->path = g_strdup(path);
    /* The helpers test "*error set" to tell a missing optional key from a bad one. */
    GError *local = NULL;
    if (!check_keys(kf, path, "grid", grid_keys, &local) || !load_grid_group(g, kf, &local) ||
        !load_options(g, kf, &local) || !load_knobs(g, kf, &local)) {
        g_propagate_error(error, local);
        return NULL;
    }
    return g_steal_pointer(&g);
}
