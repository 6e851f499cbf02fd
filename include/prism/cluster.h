/*
 * cluster.h - device and network description: presets and GLib key files.
 *
 * A cluster is a device kind (memory, peak dense FLOP/s per dtype) and a hierarchy of
 * network levels, innermost first. Level i joins groups of up to `size` devices
 * (level 0: the devices of one node; the last level: the whole machine, size 0 = any).
 * A communication group of g devices placed with stride st spans the innermost level
 * whose size >= g * st, and is priced at that level's bandwidth and latency.
 * The device COUNT is not part of the cluster: it comes from --devices.
 * Nothing here is collective.
 */
#ifndef PRISM_CLUSTER_H
#define PRISM_CLUSTER_H

#include <stdint.h>

#include <glib.h>

G_BEGIN_DECLS

#define PRISM_MAX_LEVELS 4

/** Numeric formats for compute (peak FLOP/s) and storage (bytes per element). */
typedef enum {
    PRISM_DTYPE_FP32 = 0,
    PRISM_DTYPE_BF16 = 1,
    PRISM_DTYPE_FP16 = 2,
    PRISM_DTYPE_FP8 = 3,
    PRISM_DTYPE_COUNT = 4,
} PrismDtype;

/** "fp32", "bf16", "fp16", "fp8". Static string. */
const char *prism_dtype_name(PrismDtype dtype);
/** Parse a dtype name; PRISM_INPUT_ERROR_VALUE lists the allowed names. */
gboolean prism_dtype_parse(const char *text, PrismDtype *out, GError **error);
/** Bytes per element: 4, 2, 2, 1. */
double prism_dtype_bytes(PrismDtype dtype);

/** One level of the network hierarchy. */
typedef struct PrismNetLevel {
    char name[32];      /**< "nvlink", "infiniband", ... */
    uint32_t size;      /**< devices joined by this level; 0 = unbounded (last level) */
    double bw_GBps;     /**< per-device unidirectional bandwidth in GB/s (1e9 B/s) */
    double latency_us;  /**< per-message latency in microseconds */
} PrismNetLevel;

typedef struct PrismCluster {
    char *name;
    double mem_bytes;                     /**< device memory in bytes */
    double peak_flops[PRISM_DTYPE_COUNT]; /**< dense peak FLOP/s per dtype (0 = unsupported) */
    uint32_t devices_per_node;
    PrismNetLevel levels[PRISM_MAX_LEVELS];
    uint32_t n_levels;
} PrismCluster;

void prism_cluster_free(PrismCluster *cluster);
PrismCluster *prism_cluster_copy(const PrismCluster *cluster);

/** Presets: count and names (static strings, listing order). */
size_t prism_cluster_preset_count(void);
const char *prism_cluster_preset_name(size_t i);

/**
 * A preset by name (case-insensitive): A100-40GB, A100-80GB, H100-SXM, H200, B200,
 * MI300X, Ascend-910B. Unknown names list the closest ones.
 * Ownership: caller frees with prism_cluster_free().
 */
PrismCluster *prism_cluster_preset(const char *name, GError **error);

/**
 * Read a cluster key file (see io/README or `prism clusters --help` for the format).
 * Errors name the file, group, key and value. Ownership: prism_cluster_free().
 */
PrismCluster *prism_cluster_from_file(const char *path, GError **error);

/** A preset name or a path to a key file (contains '/' or ends in .ini/.conf/.cluster). */
PrismCluster *prism_cluster_resolve(const char *name_or_path, GError **error);

/** Check sizes and bandwidths are positive and levels strictly nested. */
gboolean prism_cluster_validate(const PrismCluster *cluster, GError **error);

/** Innermost level whose size covers a group of extent devices (extent = g * stride). */
uint32_t prism_cluster_level_for_extent(const PrismCluster *cluster, double extent);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismCluster, prism_cluster_free)

G_END_DECLS

#endif /* PRISM_CLUSTER_H */
