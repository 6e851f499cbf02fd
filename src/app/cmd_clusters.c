// SPDX-License-Identifier: MIT
/*
 * cmd_clusters.c - `prism clusters [--json] [--sources] [NAME|FILE]`: the presets as a
 * table, or one cluster (preset or key file) in full; --sources gives every attribute with
 * its citation (core.h "KIND: WHERE"). `--help` documents the key-file format.
 * Output on rank 0 only.
 */
#include "app-internal.h"

#include <string.h>

#include <json-glib/json-glib.h>

static const char *const format_help =
    "A cluster key file (GLib key file; --cluster FILE, or `prism clusters FILE` to check one)\n"
    "describes the device and any number of network levels, innermost first:\n"
    "\n"
    "  [cluster]\n"
    "  name = my-h100              (optional; default: the file name)\n"
    "  memory_gib = 80             (device memory, GiB = 2^30 bytes, > 0)\n"
    "  memory_bandwidth_GBps = 3350 (optional; device memory bandwidth, datasheet, GB/s;\n"
    "                               prices memory-bound kernels, gradient accumulation and\n"
    "                               the optimizer step; missing or 0 = not given: the cost\n"
    "                               model assumes 2000 unless --set hbm_GBps=... is used)\n"
    "  base = H100-SXM             (optional: start from a preset's cited values; every\n"
    "                               key and [level.N] key below then overrides one)\n"
    "  family = H100               (optional: the device family the framework profiles'\n"
    "                               [knobs.FAMILY] groups and the track record key on;\n"
    "                               default: the base's, else none)\n"
    "  devices_per_node = 8        (optional; default: level 0's size)\n"
    "  nodes = 64                  (optional: the machine's nodes; devices = nodes x\n"
    "  devices = 512                devices_per_node, and --devices must match)\n"
    "  peak_tflops_fp32 = 67       (dense peak, TFLOP/s; fp32 = plain IEEE fp32, not TF32)\n"
    "  peak_tflops_bf16 = 989.4    (a missing or 0 peak means the dtype is unsupported;\n"
    "  peak_tflops_fp16 = 989.4     at least one must be > 0)\n"
    "  peak_tflops_fp8 = 1978.9    (fp8-cs runs on it too)\n"
    "  peak_tflops_mxfp8 = 0       (block-scaled MX tensor cores, Blackwell)\n"
    "  peak_tflops_nvfp4 = 0       (NVFP4 tensor cores, Blackwell)\n"
    "  peak_tflops_mxfp4 = 0       (MXFP4 tensor cores, Blackwell and AMD CDNA4)\n"
    "  sm_count = 132              (GEMM model, all optional, missing = not given: SMs / CUs\n"
    "  gemm_tile_m = 128            a GEMM's output tiles spread over, whole numbers >= 1;\n"
    "  gemm_tile_n = 256            without SMs and tile there is no tile/wave quantisation)\n"
    "  boost_clock_mhz = 1830      (the clock the tensor peak is stated at)\n"
    "  sustained_clock_mhz = 1830  (held under sustained tensor load at the power limit,\n"
    "                               <= boost; missing = boost)\n"
    "  max_clock_mhz = 1980        (the highest clock under load at the power limit, >=\n"
    "                               sustained; bounds the clock range; missing = not given)\n"
    "  l2_mib = 50                 (informational)\n"
    "  gemm_efficiency = 0.8       (a large BF16 GEMM's achieved fraction of the peak at the\n"
    "                               sustained clock, published vendor-library figure, <= 1;\n"
    "                               missing = 0.8, the A100/H100 cuBLAS figure)\n"
    "  gemm_efficiency_nvfp4 = 0.6 (the same for a large NVFP4 GEMM against the NVFP4 peak,\n"
    "                               <= 1, needs peak_tflops_nvfp4; missing = gemm_efficiency)\n"
    "  gemm_efficiency_mxfp4 = 0.6 (the same for MXFP4, needs peak_tflops_mxfp4)\n"
    "  attn_fwd_fraction = 0.75    (flash attention's achieved fraction of the BF16 peak,\n"
    "  attn_bwd_fraction = 0.55     published kernel figures, <= 1; missing = GEMM rate)\n"
    "  host_link_GBps = 50         (offloading, all optional, missing = no host: the device's\n"
    "  host_memory_gib = 256        link to host memory per direction, effective GB/s;\n"
    "  host_memory_bandwidth_GBps = 76.8  host memory and its bandwidth per device)\n"
    "\n"
    "  [level.0]\n"
    "  name = nvlink               (optional)\n"
    "  size = 8                    (devices joined by this level, >= 1)\n"
    "  bandwidth_GBps = 450        (per device, per direction, GB/s = 1e9 B/s, > 0)\n"
    "  latency_us = 3              (per message, microseconds, >= 0)\n"
    "  gather_bandwidth_GBps = 250 (optional: all-gather / reduce-scatter bus bandwidth per\n"
    "                               device where it differs from the all-reduce figure above)\n"
    "  nccl_hop_ll_us = 20         (optional, with nccl_hop_ll128_us and nccl_hop_simple_us:\n"
    "                               the latency of one NCCL ring step on this level per\n"
    "                               protocol, microseconds; missing or 0 = NCCL's own figure,\n"
    "                               its NVLink hop on level 0 and its network hop outside)\n"
    "\n"
    "  [level.1]                   (the last level spans the machine: it takes no size)\n"
    "  name = infiniband\n"
    "  bandwidth_GBps = 50\n"
    "  latency_us = 8\n"
    "\n"
    "The (parenthesised notes) are not part of the file: GLib key files only allow whole-line\n"
    "# comments. Levels are numbered 0, 1, ... without gaps (at most 8), and each size is a\n"
    "multiple of the previous one. Unknown groups or keys are errors. The device count is not\n"
    "part of the cluster: it comes from --devices. Presets use 8 devices per node and two\n"
    "levels; their datasheet sources are in src/core/cluster.c. Values must be physical:\n"
    "memory_gib 1/1024 to 1048576, peaks 0.001 to 1e6 TFLOP/s, bandwidths 0.001 to 1e6 GB/s,\n"
    "latency_us up to 1e6 (a peak of 1e-300 would make a step last 10^300 s).";

static char *tflops(double flops)
{
    return flops > 0 ? g_strdup_printf("%.6g", flops / 1e12) : g_strdup("-");
}

static char *levels_text(const PrismCluster *c)
{
    GString *s = g_string_new(NULL);
    for (uint32_t i = 0; i < c->n_levels; i++) {
        const PrismNetLevel *l = &c->levels[i];
        g_autofree char *size = l->size ? g_strdup_printf("%u", l->size) : g_strdup("all");
        g_string_append_printf(s, "%s%s(%s) %g GB/s %g us", i ? ", " : "", l->name, size,
                               l->bw_GBps, l->latency_us);
    }
    return g_string_free(s, FALSE);
}

/* The optional [level.N] keys of a cluster file, in its key names: the gather bus bandwidth
 * and the per-protocol NCCL ring-step latencies, PrismCluster.nccl_hop_us order. */
/* Level @p i's optional keys where the file gives them (0 = not given: left out). */
static void level_optional_json(JsonBuilder *b, const PrismCluster *c, uint32_t i)
{
    if (c->gather_bw_GBps[i] > 0) {
        json_builder_set_member_name(b, "gather_bandwidth_GBps");
        json_builder_add_double_value(b, c->gather_bw_GBps[i]);
    }
    for (int p = 0; p < 3; p++)
        if (c->nccl_hop_us[i][p] > 0) {
            json_builder_set_member_name(b, prism_cluster_hop_key(p));
            json_builder_add_double_value(b, c->nccl_hop_us[i][p]);
        }
}

/* Level @p i's optional keys where given, as text after its line ("" = none). */
static char *level_optional_text(const PrismCluster *c, uint32_t i)
{
    static const char *const protocol[3] = {"LL", "LL128", "Simple"};
    GString *s = g_string_new(NULL);
    if (c->gather_bw_GBps[i] > 0)
        g_string_append_printf(s, "; all-gather / reduce-scatter %.6g GB/s", c->gather_bw_GBps[i]);
    const char *sep = "; NCCL ring step ";
    for (int p = 0; p < 3; p++)
        if (c->nccl_hop_us[i][p] > 0) {
            g_string_append_printf(s, "%s%s %.6g us", sep, protocol[p], c->nccl_hop_us[i][p]);
            sep = ", ";
        }
    return g_string_free(s, FALSE);
}

void prism_app_cluster_json(JsonBuilder *b, const PrismCluster *c)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, c->name);
    json_builder_set_member_name(b, "memory_bytes");
    json_builder_add_double_value(b, c->mem_bytes);
    json_builder_set_member_name(b, "memory_gib");
    json_builder_add_double_value(b, c->mem_bytes / 1073741824.0);
    json_builder_set_member_name(b, "memory_bandwidth_GBps");
    json_builder_add_double_value(b, c->mem_bw_GBps);
    json_builder_set_member_name(b, "devices_per_node");
    json_builder_add_int_value(b, c->devices_per_node);
    json_builder_set_member_name(b, "family");
    json_builder_add_string_value(b, c->family);
    json_builder_set_member_name(b, "devices");
    json_builder_add_int_value(b, c->file_devices);
    json_builder_set_member_name(b, "generic_defaults");
    json_builder_add_string_value(b, c->generic);
    json_builder_set_member_name(b, "sm_count");
    json_builder_add_int_value(b, c->sm_count);
    json_builder_set_member_name(b, "boost_clock_mhz");
    json_builder_add_double_value(b, c->boost_clock_mhz);
    json_builder_set_member_name(b, "sustained_clock_mhz");
    json_builder_add_double_value(b, c->sustained_clock_mhz);
    json_builder_set_member_name(b, "max_clock_mhz");
    json_builder_add_double_value(b, c->max_clock_mhz);
    json_builder_set_member_name(b, "gemm_tile_m");
    json_builder_add_int_value(b, c->gemm_tile_m);
    json_builder_set_member_name(b, "gemm_tile_n");
    json_builder_add_int_value(b, c->gemm_tile_n);
    json_builder_set_member_name(b, "l2_mib");
    json_builder_add_double_value(b, c->l2_mib);
    json_builder_set_member_name(b, "gemm_efficiency");
    json_builder_add_double_value(b, c->gemm_efficiency);
    json_builder_set_member_name(b, "gemm_efficiency_nvfp4");
    json_builder_add_double_value(b, c->gemm_eff_nvfp4);
    json_builder_set_member_name(b, "gemm_efficiency_mxfp4");
    json_builder_add_double_value(b, c->gemm_eff_mxfp4);
    json_builder_set_member_name(b, "attn_fwd_fraction");
    json_builder_add_double_value(b, c->attn_fwd_fraction);
    json_builder_set_member_name(b, "attn_bwd_fraction");
    json_builder_add_double_value(b, c->attn_bwd_fraction);
    json_builder_set_member_name(b, "host_link_GBps");
    json_builder_add_double_value(b, c->host_link_GBps);
    json_builder_set_member_name(b, "host_memory_bytes");
    json_builder_add_double_value(b, c->host_mem_bytes);
    json_builder_set_member_name(b, "host_memory_bandwidth_GBps");
    json_builder_add_double_value(b, c->host_mem_bw_GBps);
    json_builder_set_member_name(b, "peak_flops");
    json_builder_begin_object(b);
    for (int d = 0; d < PRISM_DTYPE_COUNT; d++) {
        json_builder_set_member_name(b, prism_dtype_name((PrismDtype)d));
        json_builder_add_double_value(b, c->peak_flops[d]);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "levels");
    json_builder_begin_array(b);
    for (uint32_t i = 0; i < c->n_levels; i++) {
        const PrismNetLevel *l = &c->levels[i];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, l->name);
        json_builder_set_member_name(b, "size");
        json_builder_add_int_value(b, l->size);
        json_builder_set_member_name(b, "bandwidth_GBps");
        json_builder_add_double_value(b, l->bw_GBps);
        json_builder_set_member_name(b, "latency_us");
        json_builder_add_double_value(b, l->latency_us);
        level_optional_json(b, c, i);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

static void print_table(FILE *out, PrismCluster **cs, size_t n)
{
    fprintf(out, "%-16s %7s %8s %5s %7s %7s %7s %7s %7s %7s  %s\n", "NAME", "MEM_GiB", "HBM_GB/s",
            "/NODE", "FP32", "BF16", "FP16", "FP8", "NVFP4", "MXFP4",
            "LEVELS: name(devices) bandwidth latency");
    for (size_t i = 0; i < n; i++) {
        const PrismCluster *c = cs[i];
        g_autofree char *f32 = tflops(c->peak_flops[PRISM_DTYPE_FP32]);
        g_autofree char *bf16 = tflops(c->peak_flops[PRISM_DTYPE_BF16]);
        g_autofree char *f16 = tflops(c->peak_flops[PRISM_DTYPE_FP16]);
        g_autofree char *f8 = tflops(c->peak_flops[PRISM_DTYPE_FP8]);
        g_autofree char *f4 = tflops(c->peak_flops[PRISM_DTYPE_NVFP4]);
        g_autofree char *mx4 = tflops(c->peak_flops[PRISM_DTYPE_MXFP4]);
        g_autofree char *levels = levels_text(c);
        g_autofree char *hbm =
            c->mem_bw_GBps > 0 ? g_strdup_printf("%.6g", c->mem_bw_GBps) : g_strdup("-");
        fprintf(out, "%-16s %7.6g %8s %5u %7s %7s %7s %7s %7s %7s  %s\n", c->name,
                c->mem_bytes / 1073741824.0, hbm, c->devices_per_node, f32, bf16, f16, f8, f4, mx4,
                levels);
    }
    if (n > 1)
        fprintf(out,
                "\nPeaks: dense TFLOP/s (fp32 = plain IEEE fp32, not TF32; - = unsupported "
                "or unpublished).\nHBM: device memory bandwidth, GB/s (- = not given). Levels: per "
                "device, per direction, GB/s. "
                "`prism clusters --help` describes cluster files.\n");
}

/* One cluster's every attribute, after its table line: what the cost model prices it by
 * (0 or "-": not given, the model's default applies; `prism clusters --help`). */
static void print_detail(FILE *out, const PrismCluster *c)
{
    GString *pk = g_string_new(NULL);
    for (int d = 0; d < PRISM_DTYPE_COUNT; d++) {
        g_autofree char *t = tflops(c->peak_flops[d]);
        g_string_append_printf(pk, "%s%s %s", d ? ", " : "", prism_dtype_name((PrismDtype)d), t);
    }
    fprintf(out, "\n%s\n", c->name);
    fprintf(out, "  memory     %.6g GiB per device at %.6g GB/s (HBM), %u devices per node\n",
            c->mem_bytes / 1073741824.0, c->mem_bw_GBps, c->devices_per_node);
    fprintf(out, "  family     %s\n",
            c->family[0] ? c->family
                         : "- (none: no device knobs, no "
                           "track record)");
    if (c->file_devices > 0)
        fprintf(out, "  devices    %u (the file's count; --devices must match)\n", c->file_devices);
    if (c->generic[0])
        fprintf(out, "  generic    left at generic defaults: %s\n", c->generic);
    fprintf(out, "  peaks      %s TFLOP/s (dense; - = unsupported)\n", pk->str);
    fprintf(out,
            "  GEMMs      %u SMs, tile %u x %u, clock %.6g MHz sustained of %.6g boost, "
            "efficiency %.6g of the peak, L2 %.6g MiB\n",
            c->sm_count, c->gemm_tile_m, c->gemm_tile_n, c->sustained_clock_mhz, c->boost_clock_mhz,
            c->gemm_efficiency, c->l2_mib);
    if (c->max_clock_mhz > 0)
        fprintf(out,
                "  clock      at most %.6g MHz under load at the power limit (the clock range's "
                "optimistic end)\n",
                c->max_clock_mhz);
    if (c->gemm_eff_nvfp4 > 0)
        fprintf(out, "  NVFP4      efficiency %.6g of the NVFP4 peak (large GEMMs)\n",
                c->gemm_eff_nvfp4);
    if (c->gemm_eff_mxfp4 > 0)
        fprintf(out, "  MXFP4      efficiency %.6g of the MXFP4 peak (large GEMMs)\n",
                c->gemm_eff_mxfp4);
    fprintf(out, "  attention  %.6g forward, %.6g backward (achieved fractions of the BF16 peak)\n",
            c->attn_fwd_fraction, c->attn_bwd_fraction);
    fprintf(out,
            "  host       %.6g GB/s link per direction, %.6g GiB memory per device at %.6g "
            "GB/s\n",
            c->host_link_GBps, c->host_mem_bytes / 1073741824.0, c->host_mem_bw_GBps);
    for (uint32_t i = 0; i < c->n_levels; i++) {
        const PrismNetLevel *l = &c->levels[i];
        g_autofree char *size =
            l->size ? g_strdup_printf("%u devices", l->size) : g_strdup("the whole machine");
        g_autofree char *more = level_optional_text(c, i);
        fprintf(out, "  level %u    %s: %s, %.6g GB/s per device per direction, %.6g us%s\n", i,
                l->name, size, l->bw_GBps, l->latency_us, more);
    }
    fprintf(out, "(0: not given, the cost model's default applies; `prism clusters --help`)\n");
    g_string_free(pk, TRUE);
}

/* The value of cited attribute @p key (prism_cluster_source_keys()) of @p c, in the key
 * file's unit. */
static double cited_value(const PrismCluster *c, const char *key)
{
    const double gib = 1073741824.0;
    if (g_str_has_prefix(key, "level.")) {
        const uint32_t i = (uint32_t)(key[6] - '0');
        const PrismNetLevel *l = &c->levels[i < c->n_levels ? i : 0];
        const char *k = key + 8;
        return strcmp(k, "size") == 0             ? l->size
               : strcmp(k, "bandwidth_GBps") == 0 ? l->bw_GBps
                                                  : l->latency_us;
    }
    for (int d = 0; d < PRISM_DTYPE_COUNT; d++) {
        g_autofree char *name = g_strdup_printf("peak_tflops_%s", prism_dtype_name((PrismDtype)d));
        if (strcmp(key, name) == 0)
            return c->peak_flops[d] / 1e12;
    }
    const struct {
        const char *key;
        double v;
    } t[] = {{"memory_gib", c->mem_bytes / gib},
             {"memory_bandwidth_GBps", c->mem_bw_GBps},
             {"devices_per_node", c->devices_per_node},
             {"sm_count", c->sm_count},
             {"boost_clock_mhz", c->boost_clock_mhz},
             {"sustained_clock_mhz", c->sustained_clock_mhz},
             {"max_clock_mhz", c->max_clock_mhz},
             {"gemm_tile_m", c->gemm_tile_m},
             {"gemm_tile_n", c->gemm_tile_n},
             {"l2_mib", c->l2_mib},
             {"gemm_efficiency", c->gemm_efficiency},
             {"gemm_efficiency_nvfp4", c->gemm_eff_nvfp4},
             {"gemm_efficiency_mxfp4", c->gemm_eff_mxfp4},
             {"attn_fwd_fraction", c->attn_fwd_fraction},
             {"attn_bwd_fraction", c->attn_bwd_fraction},
             {"host_link_GBps", c->host_link_GBps},
             {"host_memory_gib", c->host_mem_bytes / gib},
             {"host_memory_bandwidth_GBps", c->host_mem_bw_GBps}};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (strcmp(key, t[i].key) == 0)
            return t[i].v;
    return 0;
}

/* A path to a key file, as prism_cluster_resolve() tells one from a preset name. */
static gboolean is_file(const char *arg)
{
    return strchr(arg, '/') != NULL || g_str_has_suffix(arg, ".ini") ||
           g_str_has_suffix(arg, ".conf") || g_str_has_suffix(arg, ".cluster");
}

/* Every attribute of cluster @p c with its citation: a preset's from its table, a key
 * file's (@p path non-NULL) from its `# source:` comment lines. Text to @p out, or a JSON
 * array to @p b. FALSE with @p error when the key file cannot be read. */
static gboolean cited(FILE *out, JsonBuilder *b, const PrismCluster *c, const char *path,
                      GError **error)
{
    if (path != NULL) {
        g_autoptr(GPtrArray) keys = prism_keyfile_citations(path, error);
        if (keys == NULL)
            return FALSE;
        if (out != NULL)
            fprintf(out, "%s (%s)\n", c->name, path);
        if (out != NULL || b != NULL)
            prism_app_cited_keys(out, b, keys, NULL);
        return TRUE;
    }
    if (out == NULL && b == NULL)
        return TRUE; /* a rank that does not print */
    if (out != NULL)
        fprintf(out, "%s\n", c->name);
    if (b != NULL)
        json_builder_begin_array(b);
    for (const char *const *k = prism_cluster_source_keys(); *k != NULL; k++) {
        const char *src = prism_cluster_preset_source(c->name, *k);
        char num[G_ASCII_DTOSTR_BUF_SIZE];
        prism_format_double(num, sizeof num, cited_value(c, *k));
        if (out != NULL) {
            prism_app_source_text(out, *k, num, src);
            continue;
        }
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "key");
        json_builder_add_string_value(b, *k);
        json_builder_set_member_name(b, "value");
        json_builder_add_double_value(b, cited_value(c, *k));
        prism_app_source_json(b, src);
        json_builder_end_object(b);
    }
    if (b != NULL)
        json_builder_end_array(b);
    return TRUE;
}

gboolean prism_cmd_clusters(PrismComm *comm, int argc, char **argv, GError **error)
{
    PrismCommonOptions o = {.flags = PRISM_OPT_JSON};
    g_autoptr(GOptionContext) ctx = g_option_context_new("[NAME|FILE]");
    g_option_context_set_summary(ctx, "List the cluster presets, or show one cluster (a preset "
                                      "name or a cluster key file).");
    g_option_context_set_description(ctx, format_help);
    prism_app_add_common_options(ctx, &o);
    gboolean sources = FALSE;
    prism_app_add_sources_option(ctx, &sources);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 2) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "prism clusters takes at most one NAME|FILE, got '%s' and '%s'", argv[1],
                    argv[2]);
        ok = FALSE;
    }
    size_t n = 0;
    PrismCluster **cs = NULL;
    if (ok && argc == 2) {
        n = 1;
        cs = g_new0(PrismCluster *, 1);
        cs[0] = prism_cluster_resolve(argv[1], error);
        ok = cs[0] != NULL;
    } else if (ok) {
        n = prism_cluster_preset_count();
        cs = g_new0(PrismCluster *, n);
        for (size_t i = 0; ok && i < n; i++) {
            cs[i] = prism_cluster_preset(prism_cluster_preset_name(i), error);
            ok = cs[i] != NULL;
        }
    }
    FILE *out = prism_app_out(comm);
    const char *path = argc == 2 && is_file(argv[1]) ? argv[1] : NULL;
    if (ok && sources && o.json) {
        /* every rank reads the key file, so a bad one fails everywhere alike */
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_array(b);
        for (size_t i = 0; ok && i < n; i++) {
            json_builder_begin_object(b);
            json_builder_set_member_name(b, "name");
            json_builder_add_string_value(b, cs[i]->name);
            json_builder_set_member_name(b, "sources");
            ok = cited(NULL, b, cs[i], path, error);
            json_builder_end_object(b);
        }
        json_builder_end_array(b);
        if (ok && out != NULL)
            prism_app_print_json(out, b);
    } else if (ok && sources) {
        for (size_t i = 0; ok && i < n; i++) {
            if (i > 0 && out != NULL)
                fputc('\n', out);
            ok = cited(out, NULL, cs[i], path, error);
        }
    }
    if (ok && out != NULL && !sources) {
        if (o.json) {
            g_autoptr(JsonBuilder) b = json_builder_new();
            if (argc == 2) {
                prism_app_cluster_json(b, cs[0]);
            } else {
                json_builder_begin_array(b);
                for (size_t i = 0; i < n; i++)
                    prism_app_cluster_json(b, cs[i]);
                json_builder_end_array(b);
            }
            prism_app_print_json(out, b);
        } else {
            print_table(out, cs, n);
            if (argc == 2)
                print_detail(out, cs[0]);
        }
    }
    for (size_t i = 0; i < n; i++)
        prism_cluster_free(cs[i]);
    g_free(cs);
    prism_common_options_clear(&o);
    return ok;
}
