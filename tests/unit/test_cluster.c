// SPDX-License-Identifier: MIT
/*
 * test_cluster.c - cluster presets (datasheet values), level lookup, and the key-file
 * reader: a valid three-level file and every malformed file under tests/data/bad/.
 */
#include <string.h>

#include <CUnit/CUnit.h>

#include <prism/cluster.h>
#include <prism/core.h>

#include "prism_test_util.h"

#define GIB 1073741824.0

static void test_presets(void)
{
    static const char *names[] = {"A100-40GB",   "A100-80GB",   "H100-SXM",   "H100-96GB-500W",
                                  "H800",        "H200",        "B200",       "B200-750W",
                                  "GB200-NVL72", "GB300-NVL72", "B300",       "MI300X",
                                  "MI325X",      "MI355X",      "Ascend-910B"};
    CU_ASSERT_EQUAL(prism_cluster_preset_count(), G_N_ELEMENTS(names));
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        CU_ASSERT_STRING_EQUAL(prism_cluster_preset_name(i), names[i]);
        GError *error = NULL;
        PrismCluster *c = prism_cluster_preset(names[i], &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_TRUE(prism_cluster_validate(c, NULL));
        /* the NVL72 racks: a compute tray of 4 GPUs, all 72 on the NVLink level 0 */
        const gboolean rack = g_str_has_suffix(names[i], "-NVL72");
        CU_ASSERT_EQUAL(c->devices_per_node, rack ? 4 : 8);
        CU_ASSERT_EQUAL(c->n_levels, 2);
        CU_ASSERT_EQUAL(c->levels[0].size, rack ? 72 : 8);
        CU_ASSERT_EQUAL(c->levels[1].size, 0);
        /* the network is slower than the node's links on every preset */
        CU_ASSERT_TRUE(c->levels[1].bw_GBps < c->levels[0].bw_GBps);
        CU_ASSERT_TRUE(c->peak_flops[PRISM_DTYPE_BF16] > 0);
        /* every preset gives its datasheet memory bandwidth */
        CU_ASSERT_TRUE(c->mem_bw_GBps >= 1000 && c->mem_bw_GBps <= 10000);
        prism_cluster_free(c);
    }
    CU_ASSERT_PTR_NULL(prism_cluster_preset_name(G_N_ELEMENTS(names)));

    /* A100 80GB datasheet: 312 TFLOP/s bf16 dense, 19.5 fp32 (not TF32), no fp8;
     * NVLink 3 600 GB/s total = 300 per direction; HDR 200 Gb/s = 25 GB/s. */
    PrismCluster *c = prism_cluster_preset("a100-80gb", NULL); /* case-insensitive */
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->mem_bytes, 80 * GIB);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 312e12);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP32], 19.5e12);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP8], 0);
    CU_ASSERT_EQUAL(c->levels[0].bw_GBps, 300);
    CU_ASSERT_EQUAL(c->levels[1].bw_GBps, 25);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 2039); /* HBM2e 2,039 GB/s */
    prism_cluster_free(c);
    c = prism_cluster_preset("A100-40GB", NULL);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 1555); /* HBM2 1,555 GB/s */
    prism_cluster_free(c);
    /* H100 SXM: 989.4 bf16 dense, 1978.9 fp8; NVLink 4 900 total = 450; NDR 400 Gb/s = 50. */
    c = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_EQUAL(c->mem_bytes, 80 * GIB);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 989.4e12);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP8], 1978.9e12);
    CU_ASSERT_EQUAL(c->levels[0].bw_GBps, 450);
    CU_ASSERT_EQUAL(c->levels[1].bw_GBps, 50);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 3350); /* HBM3 3.35 TB/s */
    prism_cluster_free(c);
    c = prism_cluster_preset("H200", NULL);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 4800); /* HBM3e 4.8 TB/s */
    prism_cluster_free(c);
    c = prism_cluster_preset("MI300X", NULL);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 5300); /* HBM3 5.3 TB/s */
    prism_cluster_free(c);
    /* B200 (HGX): 4.5 PF bf16 sparse = 2.25 dense; NVLink 5 1.8 TB/s total = 900. */
    c = prism_cluster_preset("B200", NULL);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 2250e12);
    CU_ASSERT_EQUAL(c->levels[0].bw_GBps, 900);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 8000); /* HBM3e 8 TB/s */
    /* MXFP8 (block-scaled) on Blackwell at the FP8 rate; fp8-cs always at the fp8 peak */
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_MXFP8], 4500e12);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP8_CS], 4500e12);
    prism_cluster_free(c);
    /* the 2026 parts, from the rack and board totals: GB200 NVL72 360 PF BF16 sparse / 72
     * / 2 = 2.5 PF, FP4 1440 / 72 / 2 = 10 PF; 130 TB/s NVLink / 72 = 1.8 TB/s = 900 per
     * direction over all 72 GPUs (72 x 1.8 = 129.6, the datasheet rounds); GB300 NVL72 FP4 1080 PF
     * dense / 72 = 15 PF, ConnectX-8 800 Gb/s = 100 GB/s; HGX B300 FP4 108 PF dense / 8 = 13.5 PF;
     * MI355X 256 CUs x 4096 x 2.4 GHz = 2516.6 TF BF16 dense, FP8 twice; MI325X the MI300X die with
     * 256 GB at 6 TB/s. Families: the compute die (knob groups and track record). */
    c = prism_cluster_preset("GB200-NVL72", NULL);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 360e15 / 72 / 2);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_NVFP4], 1440e15 / 72 / 2);
    CU_ASSERT_EQUAL(c->levels[0].size, 72);
    CU_ASSERT_EQUAL(c->levels[0].bw_GBps, 1.8e3 / 2); /* 130 TB/s = 72 x 1.8 rounded */
    CU_ASSERT_DOUBLE_EQUAL(148 * 8192.0 * c->boost_clock_mhz * 1e6 / 2.5e15, 1.0, 1e-3);
    CU_ASSERT_STRING_EQUAL(c->family, "B200");
    CU_ASSERT_EQUAL(c->host_link_GBps, 900.0 / 2 / 2); /* C2C per superchip, 2 GPUs */
    prism_cluster_free(c);
    c = prism_cluster_preset("GB300-NVL72", NULL);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_NVFP4], 1080e15 / 72);
    CU_ASSERT_EQUAL(c->levels[1].bw_GBps, 800.0 / 8);
    CU_ASSERT_STRING_EQUAL(c->family, "B300");
    prism_cluster_free(c);
    c = prism_cluster_preset("B300", NULL);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_NVFP4], 108e15 / 8);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 36e15 / 8 / 2);
    CU_ASSERT_DOUBLE_EQUAL(160 * 8192.0 * c->boost_clock_mhz * 1e6 / 2.25e15, 1.0, 1e-3);
    prism_cluster_free(c);
    c = prism_cluster_preset("MI355X", NULL);
    CU_ASSERT_DOUBLE_EQUAL(256 * 4096.0 * 2.4e9 / c->peak_flops[PRISM_DTYPE_BF16], 1.0, 1e-4);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP8], 2 * c->peak_flops[PRISM_DTYPE_BF16]);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_NVFP4], 0); /* MXFP4, not NVFP4 */
    CU_ASSERT_EQUAL(c->levels[0].bw_GBps, 1075.2 / 2);
    prism_cluster_free(c);
    c = prism_cluster_preset("MI325X", NULL);
    CU_ASSERT_EQUAL(c->mem_bytes, 256 * GIB);
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 6000);
    CU_ASSERT_STRING_EQUAL(c->family, "MI300X");
    prism_cluster_free(c);
    c = prism_cluster_preset("H100-96GB-500W", NULL);
    CU_ASSERT_STRING_EQUAL(c->family, "H100");
    prism_cluster_free(c);
    /* the GEMM model's device attributes: the BF16 peak is SMs x dense FLOP per SM per
     * clock x the boost clock: A100 108 x 2048 x 1.41 GHz = 311.9 TF, H100 132 x 4096 x
     * 1.83 GHz = 989.4 TF (within 0.1 %); Hopper has no MX tensor cores */
    c = prism_cluster_preset("A100-80GB", NULL);
    CU_ASSERT_EQUAL(c->sm_count, 108);
    CU_ASSERT_DOUBLE_EQUAL(108 * 2048.0 * c->boost_clock_mhz * 1e6 / 312e12, 1.0, 1e-3);
    CU_ASSERT_EQUAL(c->sustained_clock_mhz, c->boost_clock_mhz);
    prism_cluster_free(c);
    c = prism_cluster_preset("H100-SXM", NULL);
    CU_ASSERT_EQUAL(c->sm_count, 132);
    CU_ASSERT_DOUBLE_EQUAL(132 * 4096.0 * c->boost_clock_mhz * 1e6 / 989.4e12, 1.0, 1e-3);
    CU_ASSERT_EQUAL(c->gemm_tile_m, 128);
    CU_ASSERT_EQUAL(c->gemm_tile_n, 256);
    CU_ASSERT_EQUAL(c->l2_mib, 50);
    CU_ASSERT_EQUAL(c->attn_fwd_fraction, 0.75); /* FA3: 740 of 989 TFLOP/s */
    CU_ASSERT_EQUAL(c->gemm_efficiency, 0.8);    /* cuBLAS: ~790 of 989 TFLOP/s */
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_MXFP8], 0);
    prism_cluster_free(c);
    /* Blackwell attention: FlashAttention-4's 1613 of 2250 TFLOP/s forward (0.717; FA3's
     * 0.75 is a Hopper figure), FA3's 0.55 backward; the 750 W part the same fractions */
    const char *const blackwell[] = {"B200", "B200-750W"};
    for (size_t i = 0; i < G_N_ELEMENTS(blackwell); i++) {
        c = prism_cluster_preset(blackwell[i], NULL);
        CU_ASSERT_EQUAL(c->attn_fwd_fraction, 0.717);
        CU_ASSERT_DOUBLE_EQUAL(1613e12 / c->peak_flops[PRISM_DTYPE_BF16], 0.717, 5e-4);
        CU_ASSERT_EQUAL(c->attn_bwd_fraction, 0.55);
        prism_cluster_free(c);
    }
    /* torch.mm BF16 on B200, 8192^3: 1.42 of 2.25 PFLOP/s (pytorch/ao#2427, power not stated) */
    c = prism_cluster_preset("B200", NULL);
    CU_ASSERT_EQUAL(c->gemm_efficiency, 0.631);
    prism_cluster_free(c);
    /* at the 750 W cap: cuBLAS's 1110.1 and 1087.7 TFLOP/s at 4096^3 and 8192^3 with the
     * cap locked to 750 W (facebookexperimental/triton#854), mean 1098.9, at the library's
     * full-power efficiency 0.631: clock 1856 x 1098.9 / (2250 x 0.631) = 1436.6 -> 1437 MHz
     * (the power law's (750/1000)^(1/3) would give 1686); the large-GEMM rate peak x
     * sustained/boost x efficiency = 2250 x 1437/1856 x 0.631 = 1099.2 TFLOP/s */
    c = prism_cluster_preset("B200-750W", NULL);
    CU_ASSERT_EQUAL(c->sustained_clock_mhz, 1437);
    CU_ASSERT_EQUAL(c->gemm_efficiency, 0.631);
    const double rate = c->peak_flops[PRISM_DTYPE_BF16] * c->sustained_clock_mhz /
                        c->boost_clock_mhz * c->gemm_efficiency;
    CU_ASSERT_DOUBLE_EQUAL(rate, 1099.2e12, 0.1e12);
    CU_ASSERT_DOUBLE_EQUAL(rate / 1098.9e12, 1.0, 1e-3);
    /* the attention core at the cap runs at the same clock: FA4's forward 0.717 x 2250 x
     * 1437/1856 = 1249.0 TFLOP/s (1464.7 at 1686 MHz under the power law) */
    CU_ASSERT_DOUBLE_EQUAL(c->attn_fwd_fraction * c->peak_flops[PRISM_DTYPE_BF16] *
                               c->sustained_clock_mhz / c->boost_clock_mhz,
                           1249.0e12, 0.1e12);
    prism_cluster_free(c);
    /* the 500 W H100: 1830 x (500/700)^(1/3) = 1635.9 MHz */
    c = prism_cluster_preset("H100-96GB-500W", NULL);
    CU_ASSERT_EQUAL(c->sustained_clock_mhz, 1636);
    CU_ASSERT_EQUAL(c->mem_bytes, 96 * GIB);
    prism_cluster_free(c);
    /* H800 (DeepSeek-V3 report): H100 compute, NVLink 400 GB/s total = 200 per direction,
     * 8 GPUs per node, IB 50 GB/s per GPU */
    c = prism_cluster_preset("H800", NULL);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 989.4e12);
    CU_ASSERT_EQUAL(c->levels[0].bw_GBps, 200);
    CU_ASSERT_EQUAL(c->levels[1].bw_GBps, 50);
    CU_ASSERT_EQUAL(c->devices_per_node, 8);
    CU_ASSERT_EQUAL(c->mem_bytes, 80 * GIB);
    prism_cluster_free(c);
}

static void test_unknown_preset(void)
{
    GError *error = NULL;
    CU_ASSERT_PTR_NULL(prism_cluster_preset("H100", &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "H100-SXM") : NULL);
    g_clear_error(&error);
    CU_ASSERT_PTR_NULL(prism_cluster_resolve("A10", &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "A100-80GB") : NULL);
    g_clear_error(&error);
    /* separators and case ignored (prism_name_lookup), and no two presets collide so */
    const char *loose[][2] = {{"h100_sxm", "H100-SXM"},
                              {"B200 750W", "B200-750W"},
                              {"Ascend910B", "Ascend-910B"},
                              {"a100-80-gb", "A100-80GB"}};
    for (size_t i = 0; i < G_N_ELEMENTS(loose); i++) {
        PrismCluster *c = prism_cluster_preset(loose[i][0], NULL);
        CU_ASSERT_PTR_NOT_NULL(c);
        CU_ASSERT_STRING_EQUAL(c ? c->name : "", loose[i][1]);
        prism_cluster_free(c);
    }
    const size_t n = prism_cluster_preset_count();
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CU_ASSERT_FALSE(prism_names_loosely_equal(prism_cluster_preset_name(i),
                                                      prism_cluster_preset_name(j)));
}

static void test_level_for_extent(void)
{
    PrismCluster *c = prism_cluster_preset("A100-80GB", NULL);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 1), 0);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 8), 0);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 9), 1);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 4096), 1);
    prism_cluster_free(c);
}

static void test_file_device(void)
{
    g_autofree char *path = prism_test_data_path("clusters/device-attrs.ini");
    GError *error = NULL;
    g_autoptr(PrismCluster) c = prism_cluster_resolve(path, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->sm_count, 132);
    CU_ASSERT_EQUAL(c->boost_clock_mhz, 1830);
    CU_ASSERT_EQUAL(c->sustained_clock_mhz, 1636);
    CU_ASSERT_EQUAL(c->gemm_tile_m, 128);
    CU_ASSERT_EQUAL(c->gemm_tile_n, 256);
    CU_ASSERT_EQUAL(c->l2_mib, 50);
    CU_ASSERT_EQUAL(c->attn_fwd_fraction, 0.75);
    CU_ASSERT_EQUAL(c->attn_bwd_fraction, 0.55);
    CU_ASSERT_EQUAL(c->gemm_efficiency, 0.7);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP8_CS], 1978.9e12); /* = fp8 */
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_MXFP8], 0);
    /* a file without the attributes: not given (0), sustained = boost when only boost */
    g_autofree char *p3 = prism_test_data_path("clusters/three-level.ini");
    g_autoptr(PrismCluster) d = prism_cluster_resolve(p3, &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->sm_count, 0);
    CU_ASSERT_EQUAL(d->sustained_clock_mhz, 0);
    CU_ASSERT_EQUAL(d->gemm_tile_n, 0);
    CU_ASSERT_EQUAL(d->gemm_efficiency, 0);
}

/* The host (offloading): presets from their DGX datasheets (src/core/cluster.c), a file
 * with the three keys (a GH200-style NVLink-C2C host), missing keys = not given, and a
 * negative value named in the message. */
static void test_host(void)
{
    g_autoptr(PrismCluster) a = prism_cluster_preset("A100-80GB", NULL);
    g_autoptr(PrismCluster) h = prism_cluster_preset("H100-SXM", NULL);
    g_autoptr(PrismCluster) m = prism_cluster_preset("MI300X", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    /* DGX A100 640GB: 2 TB / 8 GPUs, 2 x 204.8 GB/s / 8; PCIe Gen4 x16 effective 25 */
    CU_ASSERT_EQUAL(a->host_link_GBps, 25.0);
    CU_ASSERT_EQUAL(a->host_mem_bytes, 256.0 * 1073741824.0);
    CU_ASSERT_EQUAL(a->host_mem_bw_GBps, 2.0 * 8.0 * 25.6 / 8.0);
    /* DGX H100: 2 TB / 8, 2 x 8 x 38.4 GB/s / 8; Gen5 x16 at the same 79 %: 50 */
    CU_ASSERT_EQUAL(h->host_link_GBps, 50.0);
    CU_ASSERT_TRUE(prism_test_close(h->host_mem_bw_GBps, 2.0 * 8.0 * 38.4 / 8.0, 1e-12, 0));
    CU_ASSERT_EQUAL(m->host_mem_bytes, 0.0); /* not given */
    static const char good[] = "[cluster]\nmemory_gib = 96\npeak_tflops_bf16 = 989.4\n"
                               "host_link_GBps = 450\nhost_memory_gib = 480\n"
                               "host_memory_bandwidth_GBps = 512\n"
                               "[level.0]\nbandwidth_GBps = 450\nlatency_us = 3\n";
    GError *error = NULL;
    g_autoptr(PrismCluster) g = prism_cluster_from_data(good, sizeof good - 1, "gh200.ini", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(g->host_link_GBps, 450.0);
    CU_ASSERT_EQUAL(g->host_mem_bytes, 480.0 * 1073741824.0);
    CU_ASSERT_EQUAL(g->host_mem_bw_GBps, 512.0);
    static const char bad[] = "[cluster]\nmemory_gib = 96\npeak_tflops_bf16 = 989.4\n"
                              "host_link_GBps = -25\n"
                              "[level.0]\nbandwidth_GBps = 450\nlatency_us = 3\n";
    g_autoptr(PrismCluster) x = prism_cluster_from_data(bad, sizeof bad - 1, "bad.ini", &error);
    CU_ASSERT_PTR_NULL(x);
    CU_ASSERT_TRUE(error != NULL && error->code == PRISM_INPUT_ERROR_VALUE &&
                   strstr(error->message, "bad.ini: [cluster] host_link_GBps = -25") != NULL);
    g_clear_error(&error);
}

static void test_file_three_levels(void)
{
    g_autofree char *path = prism_test_data_path("clusters/three-level.ini");
    GError *error = NULL;
    PrismCluster *c = prism_cluster_resolve(path, &error);
    if (c == NULL)
        fprintf(stderr, "%s\n", error->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->name, "test-three-level");
    CU_ASSERT_EQUAL(c->mem_bytes, 96 * GIB);
    CU_ASSERT_EQUAL(c->devices_per_node, 4);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_BF16], 500e12);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP32], 60e12);
    CU_ASSERT_EQUAL(c->peak_flops[PRISM_DTYPE_FP8], 0); /* missing = unsupported */
    CU_ASSERT_EQUAL(c->mem_bw_GBps, 2500);
    CU_ASSERT_EQUAL(c->n_levels, 3);
    CU_ASSERT_STRING_EQUAL(c->levels[0].name, "nvlink");
    CU_ASSERT_EQUAL(c->levels[1].size, 32);
    CU_ASSERT_EQUAL(c->levels[1].bw_GBps, 100);
    CU_ASSERT_EQUAL(c->levels[2].size, 0);
    CU_ASSERT_EQUAL(c->levels[2].bw_GBps, 25.5);
    CU_ASSERT_EQUAL(c->levels[2].latency_us, 10);
    /* 4 -> board, 32 -> rack, 33 -> network */
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 4), 0);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 32), 1);
    CU_ASSERT_EQUAL(prism_cluster_level_for_extent(c, 33), 2);
    PrismCluster *copy = prism_cluster_copy(c);
    CU_ASSERT_STRING_EQUAL(copy->name, c->name);
    CU_ASSERT_EQUAL(copy->levels[1].size, 32);
    CU_ASSERT_EQUAL(copy->mem_bw_GBps, 2500);
    prism_cluster_free(copy);
    prism_cluster_free(c);
}

/* Every malformed cluster file: its error code and what the message must name. */
static const struct {
    const char *file;
    int code;
    const char *needles[3];
} bad[] = {
    {"cluster-malformed.ini", PRISM_INPUT_ERROR_PARSE, {"malformed", NULL}},
    {"cluster-missing-memory.ini", PRISM_INPUT_ERROR_MISSING, {"[cluster] memory_gib", NULL}},
    {"cluster-nonnumeric.ini", PRISM_INPUT_ERROR_PARSE, {"[level.0]", "bandwidth_GBps", "'fast'"}},
    {"cluster-zero-size.ini", PRISM_INPUT_ERROR_VALUE, {"[level.0]", "size = 0", NULL}},
    {"cluster-negative-bandwidth.ini", PRISM_INPUT_ERROR_VALUE, {"bandwidth_GBps = -300", NULL}},
    {"cluster-negative-memory.ini", PRISM_INPUT_ERROR_VALUE, {"memory_gib = -80", NULL}},
    {"cluster-negative-hbm.ini", PRISM_INPUT_ERROR_VALUE, {"memory_bandwidth_GBps = -2039", NULL}},
    {"cluster-fractional-sm.ini", PRISM_INPUT_ERROR_VALUE, {"sm_count = 132.5", "whole", NULL}},
    {"cluster-negative-tile.ini", PRISM_INPUT_ERROR_VALUE, {"gemm_tile_n = -256", NULL}},
    {"cluster-sustained-above-boost.ini",
     PRISM_INPUT_ERROR_VALUE,
     {"sustained_clock_mhz 1900", "boost_clock_mhz 1830"}},
    {"cluster-max-clock-below.ini",
     PRISM_INPUT_ERROR_VALUE,
     {"max_clock_mhz = 1600", "sustained clock 1636", "allowed"}},
    {"cluster-sustained-no-boost.ini",
     PRISM_INPUT_ERROR_MISSING,
     {"sustained_clock_mhz = 1600", "boost_clock_mhz"}},
    {"cluster-attn-fraction.ini", PRISM_INPUT_ERROR_VALUE, {"attn_fwd_fraction = 1.5", NULL}},
    {"cluster-gemm-efficiency.ini", PRISM_INPUT_ERROR_VALUE, {"gemm_efficiency = 1.2", NULL}},
    {"cluster-unknown-key.ini",
     PRISM_INPUT_ERROR_UNKNOWN_NAME,
     {"'bandwith_GBps'", "allowed", NULL}},
    {"cluster-level-gap.ini", PRISM_INPUT_ERROR_MISSING, {"[level.1]", NULL}},
    {"cluster-last-size.ini", PRISM_INPUT_ERROR_VALUE, {"[level.1]", "size = 64", NULL}},
    {"cluster-not-nested.ini", PRISM_INPUT_ERROR_VALUE, {"size 12", "multiple", NULL}},
    {"cluster-no-peak.ini", PRISM_INPUT_ERROR_MISSING, {"peak_tflops", NULL}},
    {"cluster-unknown-group.ini", PRISM_INPUT_ERROR_UNKNOWN_NAME, {"[gpu]", NULL}},
    {"cluster-empty.ini", PRISM_INPUT_ERROR_MISSING, {"[cluster]", NULL}},
    {"cluster-nan.ini", PRISM_INPUT_ERROR_PARSE, {"memory_gib = 'nan'", NULL}},
    {"cluster-fractional-size.ini", PRISM_INPUT_ERROR_VALUE, {"size = 2.5", NULL}},
    {"cluster-no-levels.ini", PRISM_INPUT_ERROR_MISSING, {"[level.0]", NULL}},
    {"cluster-binary.ini", PRISM_INPUT_ERROR_PARSE, {"cluster-binary.ini", NULL}},
    {"cluster-duplicate-key.ini",
     PRISM_INPUT_ERROR_PARSE,
     {"[cluster] key 'memory_gib' is given twice", "lines 4 and 5", NULL}},
    {"cluster-duplicate-group.ini",
     PRISM_INPUT_ERROR_PARSE,
     {"group [level.0] is given twice", "lines 8 and 14", NULL}},
    {"does-not-exist.ini", PRISM_INPUT_ERROR_FILE, {"does-not-exist.ini", NULL}},
    /* finite but out of range (issue 13): the value as written and the range, never
     * "memory inf bytes" nor a step of 10^300 s */
    {"cluster-huge-memory.ini",
     PRISM_INPUT_ERROR_VALUE,
     {"memory_gib = 1e+300 is out of range", "to 1.04858e+06 GiB", NULL}},
    {"cluster-tiny-peak.ini",
     PRISM_INPUT_ERROR_VALUE,
     {"peak_tflops_bf16 = 1e-300 is out of range", "0 (not given) or 0.001 to 1e+06", NULL}},
    {"cluster-tiny-bandwidth.ini",
     PRISM_INPUT_ERROR_VALUE,
     {"[level.1] bandwidth_GBps = 1e-200 is out of range", "0.001 to 1e+06 GB/s", NULL}},
};

static void test_bad_files(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *rel = g_build_filename("bad", bad[i].file, NULL);
        g_autofree char *path = prism_test_data_path(rel);
        GError *error = NULL;
        PrismCluster *c = prism_cluster_from_file(path, &error);
        CU_ASSERT_PTR_NULL(c);
        prism_cluster_free(c);
        CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, path) : NULL);
        CU_ASSERT_TRUE(prism_test_input_error(error, bad[i].code, bad[i].needles,
                                              G_N_ELEMENTS(bad[i].needles), bad[i].file));
        g_clear_error(&error);
    }
}

static void test_validate(void)
{
    PrismCluster *c = prism_cluster_preset("H200", NULL);
    GError *error = NULL;
    c->levels[0].bw_GBps = 0;
    CU_ASSERT_FALSE(prism_cluster_validate(c, &error));
    CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE));
    g_clear_error(&error);
    c->levels[0].bw_GBps = 450;
    c->mem_bytes = -1;
    CU_ASSERT_FALSE(prism_cluster_validate(c, &error));
    g_clear_error(&error);
    c->mem_bytes = 141 * GIB;
    c->mem_bw_GBps = -1;
    CU_ASSERT_FALSE(prism_cluster_validate(c, &error));
    CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "memory bandwidth") : NULL);
    g_clear_error(&error);
    c->mem_bw_GBps = 0; /* not given: allowed */
    CU_ASSERT_TRUE(prism_cluster_validate(c, NULL));
    prism_cluster_free(c);
}

/* One broken rule per case on a fresh H200 preset (8 per node, NVLink then the network),
 * as a program building its own PrismCluster would break it; the file parser catches most
 * of these before (test_bad_files), so only this test reaches the rules' messages. */
static void break_rule(PrismCluster *c, int k)
{
    switch (k) {
    case 0:
        c->peak_flops[PRISM_DTYPE_BF16] = NAN;
        break;
    case 1:
        for (int d = 0; d < PRISM_DTYPE_COUNT; d++)
            c->peak_flops[d] = 0;
        break;
    case 2:
        c->devices_per_node = 0;
        break;
    case 3:
        c->host_mem_bw_GBps = INFINITY;
        break;
    case 4:
        c->attn_bwd_fraction = 1.5;
        break;
    case 5:
        c->gemm_efficiency = 1.25;
        break;
    case 6:
        c->sustained_clock_mhz = c->boost_clock_mhz + 1;
        break;
    case 7:
        c->n_levels = 0;
        break;
    case 8:
        c->levels[1].latency_us = -1;
        break;
    case 9:
        c->levels[1].size = 16; /* the last level spans the machine: size 0 */
        break;
    case 10:
        c->levels[0].size = 0;
        break;
    case 11: /* three levels whose middle one does not nest the first */
        c->levels[2] = c->levels[1];
        c->levels[1].size = 12;
        c->n_levels = 3;
        break;
    default:
        c->devices_per_node = 3; /* level 0 holds 8 */
        break;
    }
}

static void test_validate_rules(void)
{
    static const char *const needles[] = {
        "cluster 'H200': peak bf16 FLOP/s nan must be >= 0",
        "cluster 'H200': no dtype has a peak > 0",
        "cluster 'H200': devices_per_node must be >= 1",
        "cluster 'H200': device attribute inf must be finite and >= 0",
        "cluster 'H200': attention fractions",
        "cluster 'H200': gemm_efficiency 1.25 must be <= 1",
        "cluster 'H200': sustained_clock_mhz",
        "cluster 'H200': 0 levels (allowed 1..",
        "level 1 (ib-ndr): bandwidth",
        "size 16 (every level but the last needs a size >= 1; the last spans the machine",
        "size 0 (every level but the last",
        "level 1 (ib-ndr): size 12 must be a multiple of, and larger than, level 0's size 8",
        "cluster 'H200': devices_per_node 3 and level 0 size 8 must divide one another",
    };
    for (int k = 0; k < (int)G_N_ELEMENTS(needles); k++) {
        PrismCluster *c = prism_cluster_preset("H200", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_TRUE(prism_cluster_validate(c, NULL));
        break_rule(c, k);
        GError *error = NULL;
        CU_ASSERT_FALSE(prism_cluster_validate(c, &error));
        const gboolean ok = g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE) &&
                            strstr(error->message, needles[k]) != NULL;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            printf("\n  rule %d: %s\n", k, error ? error->message : "(valid)");
        g_clear_error(&error);
        prism_cluster_free(c);
    }
}

/*
 * Devices as vendors, nvidia-smi and papers name them map to the preset of their part:
 * the family's preset closest in memory (the largest when none is given); a power-limited
 * variant only for the memory it alone has; PCIe/NVL parts and families without a preset
 * are refused, naming the device.
 */
static void test_device_names(void)
{
    const struct {
        const char *device;
        double mem_gib;
        const char *preset;
    } ok[] = {{"H100", 0, "H100-SXM"},
              {"NVIDIA H100 80GB HBM3", 0, "H100-SXM"}, /* nvidia-smi --query-gpu=name */
              {"H100-SXM5-80GB", 0, "H100-SXM"},
              {"H100", 96, "H100-96GB-500W"}, /* the memory only the 500 W part has */
              {"H100 96GB", 0, "H100-96GB-500W"},
              {"a100", 0, "A100-80GB"},
              {"NVIDIA A100-SXM4-40GB", 0, "A100-40GB"},
              {"A100", 40, "A100-40GB"},
              {"NVIDIA A100-SXM4-80GB", 40, "A100-40GB"}, /* a stated memory wins */
              {"NVIDIA H200", 0, "H200"},
              {"B200", 0, "B200"}, /* never the 750 W variant by default */
              {"b200-750w", 0, "B200-750W"},
              {"AMD Instinct MI300X", 0, "MI300X"},
              {"NVIDIA GB200", 0, "GB200-NVL72"}, /* nvidia-smi on a GB200 NVL72 tray */
              {"GB200 NVL72", 0, "GB200-NVL72"},
              {"NVIDIA GB300", 0, "GB300-NVL72"},
              {"NVIDIA B300 SXM6 AC", 0, "B300"},
              {"AMD Instinct MI325X", 0, "MI325X"}, /* rocm-smi --showproductname */
              {"AMD Instinct MI355X", 0, "MI355X"},
              {"H800", 0, "H800"}};
    gboolean all = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
        GError *error = NULL;
        g_autofree char *p = prism_cluster_preset_for_device(ok[i].device, ok[i].mem_gib, &error);
        const gboolean good = p != NULL && strcmp(p, ok[i].preset) == 0;
        if (!good)
            fprintf(stderr, "\n  %s (%g GiB): %s, wanted %s\n", ok[i].device, ok[i].mem_gib,
                    p ? p : error->message, ok[i].preset);
        all &= good;
        g_clear_error(&error);
    }
    CU_ASSERT_TRUE(prism_test_all(all));
    /* prism_cluster_resolve takes device names too (-c, grid files) */
    g_autoptr(PrismCluster) c = prism_cluster_resolve("NVIDIA H100 80GB HBM3", NULL);
    CU_ASSERT_TRUE(c != NULL && strcmp(c->name, "H100-SXM") == 0);
    const char *refused[][2] = {{"H100 PCIe", "the H100 PCIe has no preset"},
                                {"NVIDIA H100 NVL", "the H100 NVL has no preset"},
                                {"GH200", "closest: "},
                                {"Tesla V100-SXM2-32GB", "unknown cluster 'Tesla V100-SXM2-32GB'"}};
    for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
        GError *error = NULL;
        g_autofree char *p = prism_cluster_preset_for_device(refused[i][0], 0, &error);
        CU_ASSERT_PTR_NULL(p);
        CU_ASSERT_TRUE(g_error_matches(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME) &&
                       strstr(error->message, refused[i][0]) != NULL &&
                       strstr(error->message, refused[i][1]) != NULL);
        g_clear_error(&error);
    }
}

/* A cluster file that inherits a preset (base = NAME): alone it reads back the preset bit
 * for bit (the preset's own decimal values go through the reader); a key or a level key
 * overrides one attribute; the family is a key of its own (the base's by default, none
 * without a base); a file without base lists the attributes it leaves to generic
 * defaults; its device count (devices, nodes x devices_per_node) must agree. */
static void test_file_base(void)
{
    GError *error = NULL;
    g_autoptr(PrismCluster) p = prism_cluster_preset("H100-SXM", NULL);
    static const char only[] = "[cluster]\nbase = H100-SXM\n";
    g_autoptr(PrismCluster) a = prism_cluster_from_data(only, sizeof only - 1, "a.ini", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_STRING_EQUAL(a->name, "a.ini");
    CU_ASSERT_STRING_EQUAL(a->family, "H100");
    CU_ASSERT_STRING_EQUAL(a->generic, "");
    CU_ASSERT_EQUAL(a->file_devices, 0);
    CU_ASSERT_EQUAL(memcmp(a->peak_flops, p->peak_flops, sizeof p->peak_flops), 0);
    CU_ASSERT_EQUAL(memcmp(a->levels, p->levels, sizeof p->levels), 0);
    CU_ASSERT_EQUAL(a->n_levels, p->n_levels);
    CU_ASSERT_EQUAL(a->mem_bytes, p->mem_bytes);
    CU_ASSERT_EQUAL(a->mem_bw_GBps, p->mem_bw_GBps);
    CU_ASSERT_EQUAL(a->sm_count, p->sm_count);
    CU_ASSERT_EQUAL(a->gemm_tile_n, p->gemm_tile_n);
    CU_ASSERT_EQUAL(a->sustained_clock_mhz, p->sustained_clock_mhz);
    CU_ASSERT_EQUAL(a->gemm_efficiency, p->gemm_efficiency);
    CU_ASSERT_EQUAL(a->host_mem_bytes, p->host_mem_bytes);
    CU_ASSERT_EQUAL(a->devices_per_node, p->devices_per_node);
    /* the network only, 8 nodes: everything else stays the datasheet's */
    static const char net[] = "[cluster]\nbase = h100-sxm\nname = fast-ib\nfamily = B200\n"
                              "nodes = 8\n[level.1]\nbandwidth_GBps = 100\n";
    g_autoptr(PrismCluster) b = prism_cluster_from_data(net, sizeof net - 1, "b.ini", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(b->name, "fast-ib");
    CU_ASSERT_STRING_EQUAL(b->family, "B200");
    CU_ASSERT_EQUAL(b->levels[1].bw_GBps, 100);
    CU_ASSERT_EQUAL(b->levels[1].latency_us, 8);
    CU_ASSERT_EQUAL(b->levels[0].bw_GBps, 450);
    CU_ASSERT_EQUAL(b->sm_count, 132);
    CU_ASSERT_EQUAL(b->file_devices, 64); /* 8 nodes x 8 */
    /* no base: a name is no family; the generic attributes listed */
    static const char bare[] = "[cluster]\nname = H100-mine\nmemory_gib = 80\n"
                               "peak_tflops_bf16 = 989.4\nsm_count = 132\n"
                               "[level.0]\nsize = 8\nbandwidth_GBps = 450\nlatency_us = 3\n"
                               "[level.1]\nbandwidth_GBps = 50\nlatency_us = 8\n";
    g_autoptr(PrismCluster) c = prism_cluster_from_data(bare, sizeof bare - 1, "c.ini", &error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->family, "");
    CU_ASSERT_STRING_EQUAL(c->generic,
                           "memory_bandwidth_GBps, gemm_tile_m, gemm_tile_n, boost_clock_mhz, "
                           "gemm_efficiency, attn_fwd_fraction, attn_bwd_fraction, "
                           "host_link_GBps, host_memory_gib, host_memory_bandwidth_GBps");
    /* the NVFP4 GEMM efficiency: inherited from the base (B200: 0.597, pytorch/ao#2427),
     * overridden by the file; without an NVFP4 peak it is refused */
    {
        static const char b2[] = "[cluster]\nbase = B200\n";
        static const char b3[] = "[cluster]\nbase = B200\ngemm_efficiency_nvfp4 = 0.5\n";
        static const char h[] = "[cluster]\nbase = H100-SXM\ngemm_efficiency_nvfp4 = 0.5\n";
        PrismCluster *g = prism_cluster_from_data(b2, strlen(b2), "x.ini", &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL(g->gemm_eff_nvfp4, 0.597);
        prism_cluster_free(g);
        g = prism_cluster_from_data(b3, strlen(b3), "x.ini", &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL(g->gemm_eff_nvfp4, 0.5);
        CU_ASSERT_EQUAL(g->gemm_efficiency, 0.631);
        prism_cluster_free(g);
        CU_ASSERT_PTR_NULL(prism_cluster_from_data(h, strlen(h), "x.ini", &error));
        CU_ASSERT_PTR_NOT_NULL(error ? strstr(error->message, "without an NVFP4 peak") : NULL);
        g_clear_error(&error);
    }
    /* a level's all-gather / reduce-scatter figure, read beside its all-reduce one */
    {
        static const char text[] =
            "[cluster]\nbase = H100-SXM\n[level.1]\ngather_bandwidth_GBps = 22.5\n";
        PrismCluster *g = prism_cluster_from_data(text, strlen(text), "x.ini", &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL(g->gather_bw_GBps[1], 22.5);
        CU_ASSERT_EQUAL(g->gather_bw_GBps[0], 0.0);
        prism_cluster_free(g);
    }
    /* a level's own ring-step latencies per protocol {LL, LL128, Simple}; a protocol the
     * file leaves out and every other level stay at 0 (NCCL's own figure) */
    {
        static const char text[] = "[cluster]\nbase = H100-SXM\n[level.1]\nnccl_hop_ll_us = 20\n"
                                   "nccl_hop_simple_us = 23\n";
        PrismCluster *g = prism_cluster_from_data(text, strlen(text), "x.ini", &error);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL(g->nccl_hop_us[1][0], 20.0);
        CU_ASSERT_EQUAL(g->nccl_hop_us[1][1], 0.0);
        CU_ASSERT_EQUAL(g->nccl_hop_us[1][2], 23.0);
        CU_ASSERT_EQUAL(g->nccl_hop_us[0][0], 0.0);
        CU_ASSERT_EQUAL(g->nccl_hop_us[0][2], 0.0);
        prism_cluster_free(g);
    }
    /* refusals: file, key, value and what is allowed */
    static const struct {
        const char *text;
        int code;
        const char *needle;
    } refused[] = {
        {"[cluster]\nbase = H100-PCIe\n", PRISM_INPUT_ERROR_UNKNOWN_NAME,
         "x.ini: [cluster] base = 'H100-PCIe' is not a preset (allowed: A100-40GB"},
        {"[cluster]\nbase = H100-SXM\nnodes = 4\ndevices = 30\n", PRISM_INPUT_ERROR_VALUE,
         "x.ini: [cluster] devices = 30 does not match nodes = 4 x devices_per_node = 8 "
         "(allowed: devices = 32"},
        {"[cluster]\nbase = H100-SXM\nnodes = 0\n", PRISM_INPUT_ERROR_VALUE,
         "x.ini: [cluster] nodes = 0 must be a whole number >= 1"},
        {"[cluster]\nbase = H100-SXM\n[level.1]\nbandwidth_GBps = -1\n", PRISM_INPUT_ERROR_VALUE,
         "x.ini: [level.1] bandwidth_GBps = -1 must be > 0"},
        {"[cluster]\nbase = H100-SXM\n[level.1]\ngather_bandwidth_GBps = 0\n",
         PRISM_INPUT_ERROR_VALUE,
         "x.ini: [level.1] gather_bandwidth_GBps = 0 is out of range: allowed 0.001 to 1e+06 GB/s"},
        {"[cluster]\nbase = H100-SXM\n[level.1]\nnccl_hop_ll128_us = -2\n", PRISM_INPUT_ERROR_VALUE,
         "x.ini: [level.1] nccl_hop_ll128_us = -2 is out of range: allowed 0 (not given) or 0.001 "
         "to 1e+06 us"},
        {"[cluster]\nbase = H100-SXM\n[level.0]\nnccl_hop_simple_us = fast\n",
         PRISM_INPUT_ERROR_PARSE,
         "x.ini: [level.0] nccl_hop_simple_us = 'fast' is not a finite number"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
        PrismCluster *x =
            prism_cluster_from_data(refused[i].text, strlen(refused[i].text), "x.ini", &error);
        CU_ASSERT_PTR_NULL(x);
        CU_ASSERT_PTR_NOT_NULL_FATAL(error);
        CU_ASSERT_EQUAL(error->code, refused[i].code);
        if (strstr(error->message, refused[i].needle) == NULL)
            fprintf(stderr, "case %zu: %s\n", i, error->message);
        CU_ASSERT_PTR_NOT_NULL(strstr(error->message, refused[i].needle));
        g_clear_error(&error);
        prism_cluster_free(x);
    }
}

static CU_TestInfo cluster_tests[] = {
    {"presets: datasheet values", test_presets},
    {"unknown preset lists close names", test_unknown_preset},
    {"devices as vendors and nvidia-smi name them", test_device_names},
    {"level for a group extent", test_level_for_extent},
    {"key file with three levels", test_file_three_levels},
    {"key file with the GEMM model's device attributes", test_file_device},
    {"host link, host memory and its bandwidth (offloading)", test_host},
    {"malformed key files", test_bad_files},
    {"key file inheriting a preset; family, generic defaults, device count", test_file_base},
    {"validate", test_validate},
    {"validate: each rule with its message", test_validate_rules},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo prism_test_suites[] = {
    {"cluster", NULL, NULL, NULL, NULL, cluster_tests},
    CU_SUITE_INFO_NULL,
};
