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

#define PRISM_MAX_LEVELS 8

/** Numeric formats for compute (peak FLOP/s) and storage (bytes per element). */
typedef enum {
    PRISM_DTYPE_FP32 = 0,
    PRISM_DTYPE_BF16 = 1,
    PRISM_DTYPE_FP16 = 2,
    PRISM_DTYPE_FP8 = 3,    /**< FP8 linear GEMMs, delayed (amax-history) per-tensor scaling */
    PRISM_DTYPE_FP8_CS = 4, /**< FP8 linear GEMMs, current (just-in-time) per-tensor scaling */
    PRISM_DTYPE_MXFP8 = 5,  /**< MXFP8: FP8 elements with an E8M0 scale per 32-element block */
    PRISM_DTYPE_NVFP4 = 6,  /**< NVFP4: E2M1 elements with an E4M3 scale per 16-element block
                                 and an FP32 scale per tensor (Blackwell tensor cores) */
    PRISM_DTYPE_MXFP4 = 7,  /**< MXFP4 (OCP MX v1.0): E2M1 elements with an E8M0 scale per
                                 32-element block (Blackwell tensor cores, AMD CDNA4) */
    PRISM_DTYPE_COUNT = 8,
} PrismDtype;

/** "fp32", "bf16", "fp16", "fp8", "fp8-cs", "mxfp8", "nvfp4", "mxfp4". Static string. */
const char *prism_dtype_name(PrismDtype dtype);
/** Parse a dtype name; PRISM_INPUT_ERROR_VALUE lists the allowed names. */
gboolean prism_dtype_parse(const char *text, PrismDtype *out, GError **error);
/** Bytes per element of the GEMM operands: 4, 2, 2, 1, 1, 1, 9/16 for nvfp4 (half a
 *  byte per element and one 1-byte E4M3 scale per 16 elements; the per-tensor FP32 scale
 *  is negligible) and 17/32 for mxfp4 (half a byte and one 1-byte E8M0 scale per 32). */
double prism_dtype_bytes(PrismDtype dtype);
/** TRUE for the three FP8 recipes (fp8, fp8-cs, mxfp8): the linear layers' GEMMs run in
 *  FP8, everything else (attention core, head, norms, weights, activations) in BF16. */
gboolean prism_dtype_is_fp8(PrismDtype dtype);
/** TRUE for the recipes whose linear layers' GEMMs run in a low-precision format: the
 *  three FP8 recipes, nvfp4 and mxfp4 (everything else in BF16, as prism_dtype_is_fp8 says). */
gboolean prism_dtype_is_lowp(PrismDtype dtype);
/** TRUE for the two FP4 recipes (nvfp4, mxfp4): E2M1 linear GEMMs on the FP4 tensor cores,
 *  the first and last nvfp4_bf16_layers blocks in BF16 (cost/README.md, "NVFP4", "MXFP4"). */
gboolean prism_dtype_is_fp4(PrismDtype dtype);

/** One level of the network hierarchy. */
typedef struct PrismNetLevel {
    char name[32];     /**< "nvlink", "infiniband", ... */
    uint32_t size;     /**< devices joined by this level; 0 = unbounded (last level) */
    double bw_GBps;    /**< per-device unidirectional bandwidth in GB/s (1e9 B/s) */
    double latency_us; /**< per-message latency in microseconds */
} PrismNetLevel;

typedef struct PrismCluster {
    char *name;
    char family[32];  /**< the device family (compute die: "H100", "B200"): the framework
                           profiles' [knobs.FAMILY] groups and the track record key on it;
                           presets declare it, a cluster file gives it (key `family`) or
                           inherits its base's; "" = none */
    double mem_bytes; /**< device memory in bytes (presets: GiB-based) */
    double peak_flops[PRISM_DTYPE_COUNT]; /**< dense peak FLOP/s per dtype (0 = unsupported);
                                               fp32 = plain IEEE fp32, not TF32 */
    uint32_t devices_per_node;
    PrismNetLevel levels[PRISM_MAX_LEVELS];
    uint32_t n_levels;
    double mem_bw_GBps; /**< device memory (HBM) bandwidth, GB/s = 1e9 B/s, datasheet peak;
                             0 = not given (the cost model then assumes 2000 GB/s) */
    /* Device attributes of the GEMM model (cost/README.md, "Compute"); every preset cites
     * its source in src/core/cluster.c. 0 = not given (the cost model's fallback applies). */
    uint32_t sm_count;          /**< SMs (NVIDIA), CUs (AMD): units a GEMM's tiles spread over;
                                     0 = not given: no tile/wave quantisation */
    double boost_clock_mhz;     /**< clock the datasheet tensor peak is computed at */
    double sustained_clock_mhz; /**< clock held under a sustained tensor load at the part's
                                     power limit (<= boost; 0 = the boost clock) */
    double max_clock_mhz;       /**< the highest clock the part runs under load at its power
                                     limit (>= sustained; 0 = not given): the optimistic end of
                                     the clock range (ranges.h) never exceeds it */
    uint32_t gemm_tile_m;       /**< CTA output tile of a large GEMM, rows (tokens) */
    uint32_t gemm_tile_n;       /**< ... columns; 0 = not given (no quantisation) */
    double l2_mib;              /**< L2 cache, MiB (informational: not priced) */
    double gemm_efficiency;     /**< a large BF16 GEMM with the vendor library: achieved
                                     fraction of the sustained-clock peak (published
                                     measurement; 0 = not given: the compute_efficiency
                                     fallback 0.8) */
    double gemm_eff_nvfp4;      /**< the same for a large NVFP4 GEMM against the NVFP4 peak
                                     (key gemm_efficiency_nvfp4; 0 = not given:
                                     gemm_efficiency) */
    double gemm_eff_mxfp4;      /**< the same for a large MXFP4 GEMM against the MXFP4 peak
                                     (key gemm_efficiency_mxfp4; 0 = not given:
                                     gemm_efficiency) */
    double attn_fwd_fraction;   /**< flash-attention forward: achieved fraction of the BF16
                                     dense peak (published kernel figure; 0 = not given) */
    double attn_bwd_fraction;   /**< ... backward (of its 2.5x-forward matmul FLOPs) */
    /* The host (offloading, cost/README.md "Offloading"); every preset cites its source in
     * src/core/cluster.c. 0 = not given: nothing can be offloaded (an offloading strategy
     * is infeasible with reason mem_host). */
    double host_link_GBps;   /**< device <-> host link, per device, per direction, GB/s,
                                  effective (PCIe Gen4 x16 ~25, Gen5 x16 ~50, C2C 450) */
    double host_mem_bytes;   /**< host memory per device in bytes (the node's / devices) */
    double host_mem_bw_GBps; /**< host memory bandwidth per device, GB/s (the node's / devices) */
    /* What a cluster file says beyond the device (0 / "" for presets). */
    uint32_t file_devices; /**< the devices the file describes (`devices`, or `nodes` x
                                devices_per_node); 0 = not given: --devices decides */
    char generic[384];     /**< the keys a file without `base` left out that the cost model
                                then takes at generic defaults, ", "-separated ("" = none) */
    double gather_bw_GBps[PRISM_MAX_LEVELS]; /**< per level, the per-device bus bandwidth
                                NCCL reaches on all-gather and reduce-scatter (a file's
                                [level.N] gather_bandwidth_GBps), GB/s; 0 = the level's
                                bw_GBps (the all-reduce figure) */
    double nccl_hop_us[PRISM_MAX_LEVELS][3]; /**< per level, the latency of one NCCL ring
                                step on it per protocol {LL, LL128, Simple}, microseconds (a
                                file's [level.N] nccl_hop_ll_us, nccl_hop_ll128_us,
                                nccl_hop_simple_us; cost/README.md, "Latency-bound work");
                                0 = NCCL's tuning.cc figure (level 0 its NVLink hop, outer
                                levels its network hop) */
} PrismCluster;

void prism_cluster_free(PrismCluster *cluster);
PrismCluster *prism_cluster_copy(const PrismCluster *cluster);

/** Presets: count and names (static strings, listing order). */
size_t prism_cluster_preset_count(void);
const char *prism_cluster_preset_name(size_t i);

/** The device family of a preset's name: the compute die it declares ("B200" for
 *  GB200-NVL72, "MI300X" for MI325X), else the name before its first '-' ("H100" for
 *  "H100-SXM"; the whole name when it has none; also for any name that is not a preset).
 *  The family a framework profile's [knobs.FAMILY] group and the track record key on
 *  (PrismCluster.family carries a loaded cluster's). Ownership: g_free(). */
char *prism_device_family(const char *cluster_name);

/**
 * A preset by name (case-insensitive): A100-40GB, A100-80GB, H100-SXM, H100-96GB-500W,
 * H800, H200, B200, B200-750W, GB200-NVL72, GB300-NVL72, B300, MI300X, MI325X, MI355X,
 * Ascend-910B: two levels (inside a node, between nodes; on the NVL72 racks level 0 is
 * the 72-GPU NVLink domain and a node a compute tray of 4 GPUs, 8 devices per node on the
 * others), memory bandwidth and the GEMM model's device attributes
 * (SMs, clocks, tile, L2, attention fractions) from the datasheets/papers cited there; the
 * host (link, memory, memory bandwidth per device) of the NVIDIA DGX systems of that part
 * where one exists (A100, H100, H800, H200, B200); 0 (not given) for the others.
 * The numbers, their conventions and their datasheet sources are in src/core/cluster.c.
 * Unknown names give PRISM_INPUT_ERROR_UNKNOWN_NAME listing the closest ones.
 * Collective: no.
 * Ownership: caller frees with prism_cluster_free().
 */
PrismCluster *prism_cluster_preset(const char *name, GError **error);

/** The preset attributes that carry a citation, as the key file names them
 *  ("memory_gib", ..., "host_memory_bandwidth_GBps") and levels as "level.N.KEY" (size,
 *  bandwidth_GBps, latency_us; a level's name is a label): NULL-terminated, static. */
const char *const *prism_cluster_source_keys(void);

/** The cluster-file key of a level's NCCL ring-step latency for protocol @p p (0 LL,
 *  1 LL128, 2 Simple; the order of PrismCluster.nccl_hop_us), e.g. "nccl_hop_ll_us". */
const char *prism_cluster_hop_key(unsigned p);
/** The citation "KIND: WHERE" (core.h, prism_source_parse) of preset @p name's attribute
 *  @p key (a prism_cluster_source_keys() entry); NULL when either is unknown. Exact preset
 *  name, any case. Static string; not collective. */
const char *prism_cluster_preset_source(const char *name, const char *key);

/**
 * Read a cluster key file (GLib key file; also shown by `prism clusters --help`):
 *
 *     # comments take a whole line (GLib key files have no trailing comments)
 *     [cluster]
 *     name = my-h100
 *     memory_gib = 80
 *     memory_bandwidth_GBps = 3350
 *     devices_per_node = 8
 *     peak_tflops_fp32 = 67
 *     peak_tflops_bf16 = 989.4
 *     peak_tflops_fp16 = 989.4
 *     peak_tflops_fp8 = 1978.9
 *     sm_count = 132
 *     boost_clock_mhz = 1830
 *     sustained_clock_mhz = 1830
 *     gemm_tile_m = 128
 *     gemm_tile_n = 256
 *     l2_mib = 50
 *     gemm_efficiency = 0.8
 *     attn_fwd_fraction = 0.75
 *     attn_bwd_fraction = 0.55
 *     host_link_GBps = 50
 *     host_memory_gib = 256
 *     host_memory_bandwidth_GBps = 76.8
 *
 *     [level.0]
 *     name = nvlink
 *     size = 8
 *     bandwidth_GBps = 450
 *     latency_us = 3
 *
 *     [level.1]
 *     name = infiniband
 *     bandwidth_GBps = 50
 *     latency_us = 8
 *
 * [cluster]: name (optional, default the file name); memory_gib (required, > 0, GiB =
 * 2^30 bytes); memory_bandwidth_GBps (optional, >= 0: the device memory bandwidth from
 * the datasheet, GB/s = 1e9 B/s; the cost model prices memory-bound kernels, gradient
 * accumulation and the optimizer step with it; missing or 0 = not given, and the cost
 * model assumes 2000 GB/s, an A100-class HBM2e part, unless the hbm_GBps knob is set);
 * devices_per_node (optional, default level 0's size); peak_tflops_fp32,
 * _bf16, _fp16, _fp8: dense peak in TFLOP/s (1e12), where fp32 means plain IEEE fp32
 * (not TF32); a missing or 0 value means the dtype is unsupported; at least one > 0;
 * peak_tflops_mxfp8 (optional, devices with block-scaled tensor cores; fp8-cs uses the
 * fp8 peak). GEMM model (all optional; missing = not given): sm_count and gemm_tile_m/_n
 * (whole numbers >= 1; without all three there is no tile/wave quantisation);
 * boost_clock_mhz and sustained_clock_mhz (MHz >= 0, 0 = not given; sustained <= boost,
 * missing sustained = boost); max_clock_mhz (MHz >= sustained, 0 = not given: the highest
 * clock the part runs under load at its power limit, the bound of the clock range's
 * optimistic end); l2_mib (>= 0); gemm_efficiency (0..1, 0 = not given: the
 * compute_efficiency knob's fallback 0.8); attn_fwd_fraction and attn_bwd_fraction (0..1,
 * 0 = not given: the attention core runs at the large-GEMM rate); gemm_efficiency_nvfp4
 * (0..1, needs peak_tflops_nvfp4; 0 = not given: gemm_efficiency). Host (offloading; all
 * optional, >= 0, missing or 0 = not given, and then no strategy can offload):
 * host_link_GBps (the device's link to host memory, per direction, effective GB/s),
 * host_memory_gib (host memory per device, GiB) and host_memory_bandwidth_GBps (host
 * memory bandwidth per device, GB/s: the node's divided by its devices).
 * peak_tflops_nvfp4 (optional, devices with NVFP4 tensor cores). Inheriting: base = a
 * preset's name starts from that preset's values (its levels too); every key and
 * [level.N] key the file gives replaces the preset's (a file adding a level gives the
 * former last level a size); an unknown base is PRISM_INPUT_ERROR_UNKNOWN_NAME listing the
 * presets. family (optional): the device family the framework profiles' [knobs.FAMILY]
 * groups and the track record key on (default: the base's; none without a base; never
 * guessed from the name). nodes and devices (optional, whole numbers >= 1): the machine's
 * size; both given, devices must equal nodes x devices_per_node (PRISM_INPUT_ERROR_VALUE
 * naming the allowed count); PrismCluster.file_devices holds it and --devices must then
 * match. A file without base records in PrismCluster.generic the attributes it leaves to
 * generic defaults (the commands warn once).
 * [level.N], innermost first, up to PRISM_MAX_LEVELS: name (optional); size = devices
 * joined by the level (required, >= 1, except on the last level, which spans the whole
 * machine and takes no size); bandwidth_GBps = per device, per direction, GB/s (1e9 B/s),
 * > 0; latency_us = per message, microseconds, >= 0; gather_bandwidth_GBps (optional,
 * the all-gather / reduce-scatter bus bandwidth); nccl_hop_ll_us, nccl_hop_ll128_us,
 * nccl_hop_simple_us (optional, microseconds, 0.001 to 1e6; missing or 0 = NCCL's
 * tuning.cc figure): the latency of one NCCL ring step on the level per protocol.
 * Levels are numbered 0, 1, ... without gaps; each size is a multiple of the previous
 * one. Unknown groups and keys are errors (typos do not pass silently).
 * Errors: PRISM_INPUT_ERROR_FILE (unreadable), _PARSE (malformed file, non-numeric
 * value), _MISSING (required group/key), _VALUE (out of range), _UNKNOWN_NAME (unknown
 * group/key); each message names the file, group, key and value.
 * Collective: no. Ownership: caller frees with prism_cluster_free().
 */
PrismCluster *prism_cluster_from_file(const char *path, GError **error);

/**
 * Same as prism_cluster_from_file() on the @p len bytes at @p data; @p label stands for
 * the file name in messages. Used by the fuzz harness. Collective: no.
 * Ownership: caller frees with prism_cluster_free().
 */
PrismCluster *prism_cluster_from_data(const char *data, size_t len, const char *label,
                                      GError **error);

/**
 * The preset for a device as vendors, nvidia-smi and papers name it: a preset's own name
 * (loosely, prism_name_lookup), else the words of @p device without vendor names
 * ("NVIDIA", "Tesla", "AMD", "Instinct", "Huawei", "GPU"): one of them a preset family
 * (prism_device_family: "H100" in "NVIDIA H100 80GB HBM3" or "H100-SXM5-80GB"), a size
 * in GB the memory when @p mem_gib is 0. Of the family's presets the one closest in
 * memory (GiB, as the presets count nominal GB), the largest when no memory is given; a
 * power-limited variant ("H100-96GB-500W") only for a memory it alone is closest to.
 * A PCIe or NVL part is refused (no preset describes it). Errors:
 * PRISM_INPUT_ERROR_UNKNOWN_NAME naming the device and the closest presets. Not
 * collective. Ownership: g_free().
 */
char *prism_cluster_preset_for_device(const char *device, double mem_gib, GError **error);

/** A path to a key file (contains '/' or ends in .ini/.conf/.cluster), else a preset by
 *  prism_cluster_preset_for_device(): its name, or a device name ("H100", "NVIDIA A100-SXM4-
 *  80GB"). */
PrismCluster *prism_cluster_resolve(const char *name_or_path, GError **error);

/** Check sizes and bandwidths are positive (memory bandwidth >= 0, finite) and levels
 *  strictly nested. */
gboolean prism_cluster_validate(const PrismCluster *cluster, GError **error);

/** Innermost level whose size covers a group of extent devices (extent = g * stride). */
uint32_t prism_cluster_level_for_extent(const PrismCluster *cluster, double extent);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrismCluster, prism_cluster_free)

G_END_DECLS

#endif /* PRISM_CLUSTER_H */
