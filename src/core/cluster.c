// SPDX-License-Identifier: MIT
/* cluster.c - cluster presets and key files (scaffold: one preset until presets land). */
#include <prism/cluster.h>

#include <string.h>

#include <prism/core.h>

void prism_cluster_free(PrismCluster *cluster)
{
    if (cluster == NULL)
        return;
    g_free(cluster->name);
    g_free(cluster);
}

PrismCluster *prism_cluster_copy(const PrismCluster *cluster)
{
    PrismCluster *c = g_memdup2(cluster, sizeof *cluster);
    c->name = g_strdup(cluster->name);
    return c;
}

size_t prism_cluster_preset_count(void)
{
    return 1;
}

const char *prism_cluster_preset_name(size_t i)
{
    return i == 0 ? "A100-80GB" : NULL;
}

PrismCluster *prism_cluster_preset(const char *name, GError **error)
{
    if (g_ascii_strcasecmp(name, "A100-80GB") != 0) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                    "unknown cluster '%s'", name);
        return NULL;
    }
    PrismCluster *c = g_new0(PrismCluster, 1);
    c->name = g_strdup("A100-80GB");
    c->mem_bytes = 80e9;
    c->peak_flops[PRISM_DTYPE_FP32] = 19.5e12;
    c->peak_flops[PRISM_DTYPE_BF16] = 312e12;
    c->peak_flops[PRISM_DTYPE_FP16] = 312e12;
    c->devices_per_node = 8;
    c->n_levels = 2;
    c->levels[0] = (PrismNetLevel){"nvlink", 8, 300.0, 5.0};
    c->levels[1] = (PrismNetLevel){"infiniband", 0, 25.0, 10.0};
    return c;
}

PrismCluster *prism_cluster_from_file(const char *path, GError **error)
{
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                "%s: cluster files are not implemented yet", path);
    return NULL;
}

PrismCluster *prism_cluster_resolve(const char *name_or_path, GError **error)
{
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".ini"))
        return prism_cluster_from_file(name_or_path, error);
    return prism_cluster_preset(name_or_path, error);
}

gboolean prism_cluster_validate(const PrismCluster *cluster, GError **error)
{
    (void)cluster;
    (void)error;
    return TRUE;
}

uint32_t prism_cluster_level_for_extent(const PrismCluster *c, double extent)
{
    for (uint32_t i = 0; i < c->n_levels; i++)
        if (c->levels[i].size == 0 || extent <= (double)c->levels[i].size)
            return i;
    return c->n_levels - 1;
}
