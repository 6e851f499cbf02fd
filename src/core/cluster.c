// SPDX-License-Identifier: MIT
/*
 * cluster.c - cluster presets, the cluster key-file reader and validation.
 *
 * Conventions of every number here (and of the key file, documented in cluster.h):
 *  - memory: HBM capacities are binary, so a datasheet "80 GB" is 80 GiB (an A100 80GB
 *    reports 81920 MiB). Memory the driver reserves is left to the cost model's knobs.
 *  - peak FLOP/s: dense (no 2:4 sparsity). "fp32" is plain IEEE fp32 arithmetic (no
 *    TF32 tensor cores): the fastest dense fp32 rate of the device. 0 = unsupported or
 *    not published.
 *  - memory bandwidth: the datasheet HBM bandwidth per device, GB/s = 1e9 B/s.
 *  - bandwidth: per device, per direction, GB/s = 1e9 B/s. A vendor "900 GB/s NVLink"
 *    is the bidirectional total, i.e. 450 GB/s per direction.
 *  - latency: per message, in microseconds. These are NOT datasheet figures; they are
 *    assumed orders of magnitude (3 us inside a node, 8 us across the network) that a
 *    cluster file can override.
 * Thread-safe (read-only tables); nothing here is collective.
 */
#include <prism/cluster.h>

#include <errno.h>
#include <math.h> /* isfinite, floor */
#include <stdarg.h>
#include <stdlib.h> /* atoi */
#include <string.h>

#include <prism/core.h>

#define GIB 1073741824.0
#define TFLOPS 1e12

/* Peaks in TFLOP/s, in the order fp32, bf16, fp16, fp8, mxfp8, nvfp4, mxfp4 (fp8-cs uses the
 * fp8 peak: the same tensor-core instruction with another way of choosing the scale). */
enum { P_FP32, P_BF16, P_FP16, P_FP8, P_MXFP8, P_NVFP4, P_MXFP4, P_COUNT };

/* The GEMM model's device attributes (cost/README.md, "Compute"). */
typedef struct Device {
    uint32_t sms;            /* SMs / CUs */
    double boost_mhz;        /* clock of the datasheet tensor peak */
    double sustained_mhz;    /* clock under sustained tensor load at the power limit */
    uint32_t tile_m, tile_n; /* CTA output tile of a large BF16 GEMM */
    double l2_mib;
    double attn_fwd, attn_bwd; /* flash attention: fraction of the BF16 dense peak */
    double gemm_eff;           /* large BF16 GEMM: fraction of the sustained-clock peak */
    double gemm_eff_nvfp4;     /* large NVFP4 GEMM: fraction of the NVFP4 peak; 0 = none */
    double gemm_eff_mxfp4;     /* large MXFP4 GEMM: fraction of the MXFP4 peak; 0 = none */
    double max_mhz;            /* the highest clock under load at the power limit; 0 = none */
} Device;

/* The host of a device (offloading): link per direction (effective GB/s), host memory per
 * device (GiB), host memory bandwidth per device (GB/s). All 0 = not given. */
typedef struct Host {
    double link_GBps, mem_gib, mem_bw_GBps;
} Host;

/* The cited attributes of a preset: the key-file keys (cluster.h), levels as level.N.KEY
 * (a level's name is a label, not a value). */
enum {
    S_MEM,
    S_MEM_BW,
    S_DPN,
    S_FP32,
    S_BF16,
    S_FP16,
    S_FP8,
    S_MXFP8,
    S_NVFP4,
    S_MXFP4,
    S_SMS,
    S_BOOST,
    S_SUSTAINED,
    S_MAX_CLOCK,
    S_TILE_M,
    S_TILE_N,
    S_L2,
    S_GEMM_EFF,
    S_GEMM_EFF_NVFP4,
    S_GEMM_EFF_MXFP4,
    S_ATTN_FWD,
    S_ATTN_BWD,
    S_HOST_LINK,
    S_HOST_MEM,
    S_HOST_MEM_BW,
    S_L0_SIZE,
    S_L0_BW,
    S_L0_LAT,
    S_L1_BW,
    S_L1_LAT,
    S_COUNT
};
static const char *const source_keys[S_COUNT + 1] = {"memory_gib",
                                                     "memory_bandwidth_GBps",
                                                     "devices_per_node",
                                                     "peak_tflops_fp32",
                                                     "peak_tflops_bf16",
                                                     "peak_tflops_fp16",
                                                     "peak_tflops_fp8",
                                                     "peak_tflops_mxfp8",
                                                     "peak_tflops_nvfp4",
                                                     "peak_tflops_mxfp4",
                                                     "sm_count",
                                                     "boost_clock_mhz",
                                                     "sustained_clock_mhz",
                                                     "max_clock_mhz",
                                                     "gemm_tile_m",
                                                     "gemm_tile_n",
                                                     "l2_mib",
                                                     "gemm_efficiency",
                                                     "gemm_efficiency_nvfp4",
                                                     "gemm_efficiency_mxfp4",
                                                     "attn_fwd_fraction",
                                                     "attn_bwd_fraction",
                                                     "host_link_GBps",
                                                     "host_memory_gib",
                                                     "host_memory_bandwidth_GBps",
                                                     "level.0.size",
                                                     "level.0.bandwidth_GBps",
                                                     "level.0.latency_us",
                                                     "level.1.bandwidth_GBps",
                                                     "level.1.latency_us",
                                                     NULL};

typedef struct Preset {
    const char *name;
    double mem_gib;
    double mem_bw_GBps; /* HBM bandwidth, datasheet, GB/s */
    double tflops[P_COUNT];
    uint32_t devices_per_node;
    PrismNetLevel intra, inter;
    Device dev;
    Host host;
    const char *src[S_COUNT]; /* each attribute's citation, "KIND: WHERE" */
    const char *family;       /* the compute die (knob groups, track record); NULL = the
                                 name before its first '-' */
} Preset;

/*
 * Sources of the device attributes (beyond each entry's datasheet):
 *  - SMs, tensor clock: NVIDIA A100 / H100 whitepapers ("NVIDIA A100 Tensor Core GPU
 *    Architecture", 2020; "NVIDIA H100 Tensor Core GPU Architecture", 2022). The dense BF16
 *    peak is SMs x (dense FLOP per SM per clock) x clock: A100 108 x 2048 x 1.41 GHz = 312 TF;
 *    H100 SXM5 132 x 4096 x 1.83 GHz = 989.4 TF (the whitepaper's tensor peak uses 1830 MHz,
 *    below the part's 1980 MHz maximum boost).
 *  - Sustained clock: the peak's clock where the part runs at its full rated power (the
 *    vendor rates the tensor peak at that power); a part capped below its rated power runs
 *    at boost x (cap / rated)^(1/3): dynamic power is C V^2 f and, in the DVFS range, the
 *    voltage scales with the frequency, so P ~ f^3 (a physical model, not a datasheet
 *    value; H100 at 500 W of 700 W: 0.894). Where a rate measured at the cap is published
 *    the clock is read from it instead (B200 at 750 W: 0.774 of boost from cuBLAS at the
 *    cap, its entry; the power law would give 0.909).
 *  - Tile: the output tile of the large-GEMM kernels cuBLAS/CUTLASS pick on the
 *    architecture: Ampere "s16816gemm ... 256x128", Hopper warp-specialised 128x256x64
 *    (CUTLASS 3 sm90 default for BF16), Blackwell 1-SM 128x256 (CUTLASS sm100), CDNA3
 *    hipBLASLt macro tile 256x256.
 *  - GEMM efficiency: what the vendor library reaches on a large, well-shaped BF16 GEMM, as a
 *    fraction of the peak at the sustained clock (the tile/wave and roofline terms of the
 *    cost model come on top). A100 and H100/H200/H800: 0.8 (cuBLAS ~250-270 of 312 TFLOP/s
 *    on A100; 789 and 798 of 989 TFLOP/s at 4096^3 and 8192^3 on H100 SXM with PyTorch 2.7
 *    and CUDA 12.8, zzc0721/torch-performance-test-data#79). B200: 0.631, the median of
 *    torch.mm BF16 at 4096^3, 6144^3 and 8192^3 on B200 with the mid-2025 PyTorch nightly
 *    (1.41, 1.45 and 1.42 PFLOP/s = 0.627, 0.646 and 0.631 of 2.25 PF; pytorch/ao#2427,
 *    benchmarks/float8/bench_matmul.py, 2025-06-23). The power limit of that B200 is not
 *    stated; the same team's end-to-end B200 runs are capped at 750 W, but cuBLAS at a
 *    locked 750 W cap reaches only 1.10 PFLOP/s on the same shapes (facebookexperimental/
 *    triton#854), so the 1.42 is read as the full-power figure; the 750 W preset keeps the
 *    library's 0.631 and prices the cap as clock. MI300X, Ascend: no published figure read
 *    (0: the fallback 0.8).
 *  - Attention: FlashAttention-2 (Dao 2023, arXiv:2307.08691) on A100: forward ~70 % of the
 *    BF16 peak (up to 73 %, "50-73 %" over its benchmarks), backward ~60 % (its lower part);
 *    FlashAttention-3 (Shah et al. 2024, arXiv:2407.08608) on H100 BF16: forward up to 740
 *    TFLOP/s = 0.75, backward about 0.55 (1.5-1.75x FlashAttention-2's backward).
 *    Blackwell: FlashAttention-4 (Zadouri et al. 2026, arXiv:2603.05451) reaches "up to
 *    1613 TFLOP/s" BF16 on B200 = 1613/2250 = 0.717 forward (1.3x cuDNN 9.13, 2.7x Triton;
 *    the exponential units and shared memory did not grow with the tensor cores, so no
 *    kernel reaches FA3's 0.75 there); its backward peak is not in the figures we could
 *    read, so FA3's H100 backward fraction 0.55 stays. AMD/Ascend: not given (the GEMM
 *    efficiency applies).
 *  - Host (offloading; cost/README.md "Offloading"): the NVIDIA DGX system of the part.
 *    Link: every GPU reaches host memory over a PCIe x16 link. Gen4 x16 carries 31.5 GB/s
 *    per direction (16 GT/s x 16 lanes x 128/130 / 8); the effective rate of a pinned
 *    copy-engine transfer on DGX-class A100-SXM4 nodes is 24.8 GB/s per GPU (nvbandwidth
 *    host_to_device_memcpy_ce, NVIDIA developer forum thread "Asymmetric PCIe bandwidth in
 *    bidirectional transfers", 8x A100-SXM4-80GB, PCIe 4.0 x16): 25 GB/s is used, 79 % of
 *    the raw rate. Gen5 x16 doubles the per-lane rate with the same encoding (63 GB/s raw);
 *    at the same 79 %: 50 GB/s (H100/H200/B200 SXM boards are Gen5 x16 per their
 *    datasheets). A Grace Hopper (GH200) host would use NVLink-C2C, 900 GB/s total = 450
 *    per direction (GH200 datasheet): no preset here, a cluster file gives it.
 *    Host memory and its bandwidth per GPU = the system's / 8 GPUs. DGX A100 datasheet: 2x
 *    AMD EPYC 7742 (8 channels DDR4-3200 each: 8 x 25.6 = 204.8 GB/s per socket, AMD's
 *    EPYC 7742 specification), 1 TB (DGX A100 320GB, the 40GB part) or 2 TB (640GB, the
 *    80GB part): 128 or 256 GiB and 409.6/8 = 51.2 GB/s per GPU. DGX H100 / DGX H200
 *    datasheets: 2x Intel Xeon Platinum 8480C (8 channels DDR5-4800: 307.2 GB/s per
 *    socket, Intel ARK), 2 TB: 256 GiB and 614.4/8 = 76.8 GB/s per GPU (H800 systems as
 *    DGX H100). DGX B200 datasheet: 2x Xeon Platinum 8570 (8 channels DDR5-5600: 358.4
 *    GB/s per socket, Intel ARK), 2 TB (up to 4 TB): 256 GiB and 716.8/8 = 89.6 GB/s per
 *    GPU. The H100 96GB (Meta Grand Teton), MI300X and Ascend 910B hosts differ by
 *    vendor: not given (0), a cluster file gives them.
 */
/* Citations shared by several presets ("KIND: WHERE", core.h prism_source_parse). */
#define SRC_LAT0                                                                                   \
    "convention: 3 us per message inside a node, an assumed order of magnitude (not a datasheet "  \
    "figure; a cluster file overrides it)"
#define SRC_LAT1                                                                                   \
    "convention: 8 us per message across the network, an assumed order of magnitude (not a "       \
    "datasheet figure; a cluster file overrides it)"
#define SRC_NODE8                                                                                  \
    "published: the vendor's 8-GPU system of the part (DGX/HGX datasheet): 8 devices per node, "   \
    "all on the node's switch"
#define SRC_NO_MX "convention: 0 = unsupported: no block-scaled (MX) tensor cores on the part"
#define SRC_NO_FP4                                                                                 \
    "convention: 0 = unsupported: no NVFP4 (E2M1 with E4M3 block scales) tensor cores"
#define SRC_NO_HOST                                                                                \
    "convention: 0 = not given: the host differs by vendor and no per-device figure was read (a "  \
    "cluster file gives it)"
#define SRC_A100_SM "published: NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs"
#define SRC_A100_CLK                                                                               \
    "published: A100 whitepaper: 1410 MHz boost, the clock of the 312 TFLOP/s peak (108 x 2048 x " \
    "1.41 GHz)"
#define SRC_A100_SUST                                                                              \
    "derived: boost_clock_mhz: the part at its full rated 400 W, the power the vendor rates the "  \
    "peak at"
#define SRC_A100_MAX                                                                               \
    "published: nvidia-smi on an A100-SXM4 at its 400 W limit: Max Clocks SM 1410 MHz, the "       \
    "boost clock (NVIDIA/nvidia-docker#1648)"
#define SRC_H100_MAX                                                                               \
    "published: Hopper's tensor clock at the start of a run, 1980 MHz, before the power limit "    \
    "pulls it down (deepseek-ai/DeepGEMM#120); nvidia-smi Max Clocks 1980 MHz on H200, the same "  \
    "GH100 die (awslabs/amazon-eks-ami#1985)"
#define SRC_H800_MAX "derived: the GH100 die's 1980 MHz maximum, as H100-SXM (DeepGEMM#120)"
#define SRC_H200_MAX                                                                               \
    "published: nvidia-smi on H200 (P5e): Max Clocks Graphics 1980 MHz "                           \
    "(awslabs/amazon-eks-ami#1985)"
#define SRC_AMD_MAX "published: the datasheet's peak engine clock (boost_clock_mhz) is the maximum"
#define SRC_MAX_NONE                                                                               \
    "convention: 0 = not given: no maximum clock under load read; the clock range's optimistic "   \
    "end stands unbounded at full power, at the boost clock below it"
#define SRC_A100_TILE                                                                              \
    "code: cuBLAS's large-GEMM kernel on Ampere, ampere_bf16_s16816gemm_..._256x128 (the tile in " \
    "the kernel name)"
#define SRC_A100_L2 "published: A100 whitepaper: 40 MB L2"
#define SRC_A100_EFF                                                                               \
    "published: cuBLAS large BF16 GEMMs ~250-270 of 312 TFLOP/s on A100 (no single document "      \
    "read; the H100 measurement zzc0721/torch-performance-test-data#79 gives the same 0.8)"
#define SRC_FA2_FWD                                                                                \
    "published: Dao 2023, FlashAttention-2 (arXiv:2307.08691) on A100: forward up to 73 % of the " \
    "BF16 peak (50-73 % over its benchmarks): 0.70"
#define SRC_FA2_BWD                                                                                \
    "published: FlashAttention-2 (arXiv:2307.08691) on A100: backward, the lower part of its "     \
    "range: 0.60"
#define SRC_A100_FP32 "published: NVIDIA A100 datasheet: FP32 19.5 TFLOP/s"
#define SRC_A100_BF16 "published: NVIDIA A100 datasheet: BF16/FP16 tensor 312 TFLOP/s dense"
#define SRC_A100_FP8 "convention: 0 = unsupported: no FP8 tensor cores on Ampere (A100 datasheet)"
#define SRC_GEN4                                                                                   \
    "derived: PCIe Gen4 x16 31.5 GB/s per direction x 0.79, the effective share nvbandwidth "      \
    "host_to_device_memcpy_ce measures on 8x A100-SXM4-80GB (24.8 GB/s; NVIDIA developer forum "   \
    "'Asymmetric PCIe bandwidth in bidirectional transfers')"
#define SRC_A100_HBW                                                                               \
    "derived: DGX A100 datasheet 2x AMD EPYC 7742, 8 channels DDR4-3200 = 204.8 GB/s per socket "  \
    "(AMD EPYC 7742 specification): 409.6 / 8 GPUs = 51.2"
#define SRC_NVL3 "derived: A100 datasheet NVLink 3, 600 GB/s total = 300 per direction"
#define SRC_HDR "derived: DGX A100 datasheet: one HDR 200 Gb/s InfiniBand port per GPU = 25 GB/s"
#define SRC_H100_FP32 "published: NVIDIA H100 datasheet (SXM5): FP32 67 TFLOP/s"
#define SRC_H100_BF16                                                                              \
    "published: NVIDIA H100 datasheet (SXM5): BF16/FP16 tensor 989.4 TFLOP/s dense (1979 sparse "  \
    "/ 2)"
#define SRC_H100_FP8                                                                               \
    "published: NVIDIA H100 datasheet (SXM5): FP8 tensor 1978.9 TFLOP/s dense (3958 sparse / 2)"
#define SRC_H100_SM                                                                                \
    "published: NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 132 SMs (SXM5)"
#define SRC_H100_CLK                                                                               \
    "published: H100 whitepaper: the tensor peak at 1830 MHz (132 x 4096 x 1.83 GHz = 989.4 TF)"
#define SRC_H100_SUST                                                                              \
    "derived: boost_clock_mhz: the part at its full rated 700 W, the power the vendor rates the "  \
    "peak at"
#define SRC_H100_TILE                                                                              \
    "code: NVIDIA/cutlass CUTLASS 3 sm90 warp-specialised default BF16 tile 128x256x64"
#define SRC_H100_L2 "published: H100 whitepaper: 50 MB L2"
#define SRC_H100_EFF                                                                               \
    "published: torch.mm BF16 789 and 798 of 989 TFLOP/s at 4096^3 and 8192^3 on H100 SXM, "       \
    "PyTorch 2.7 / CUDA 12.8 (zzc0721/torch-performance-test-data#79): 0.8"
#define SRC_FA3_FWD                                                                                \
    "published: Shah et al. 2024, FlashAttention-3 (arXiv:2407.08608): forward up to 740 TFLOP/s " \
    "BF16 on H100 = 0.75"
#define SRC_FA3_BWD                                                                                \
    "published: FlashAttention-3 (arXiv:2407.08608): backward 1.5-1.75x FlashAttention-2's on "    \
    "H100, about 0.55"
#define SRC_GEN5                                                                                   \
    "derived: PCIe Gen5 x16 (the SXM boards' host link per their datasheets) 63 GB/s per "         \
    "direction x 0.79, the Gen4 measurement's effective share"
#define SRC_DGXH_MEM                                                                               \
    "derived: DGX H100 / DGX H200 datasheets: 2 TB system memory / 8 GPUs = 256 GiB"
#define SRC_DGXH_HBW                                                                               \
    "derived: DGX H100 datasheet 2x Intel Xeon Platinum 8480C, 8 channels DDR5-4800 = 307.2 GB/s " \
    "per socket (Intel ARK): 614.4 / 8 GPUs = 76.8"
#define SRC_NVL4 "derived: H100 datasheet NVLink 4, 900 GB/s total = 450 per direction"
#define SRC_NDR "derived: DGX H100 datasheet: one NDR 400 Gb/s InfiniBand port per GPU = 50 GB/s"
#define SRC_B200_FP32 "published: NVIDIA HGX B200 datasheet (per GPU, 1000 W): FP32 75 TFLOP/s"
#define SRC_B200_BF16 "derived: HGX B200 datasheet FP16/BF16 4.5 PFLOP/s sparse / 2 = 2.25 PF dense"
#define SRC_B200_FP8                                                                               \
    "derived: HGX B200 datasheet FP8 (block-scaled MXFP8 the same) 9 PFLOP/s sparse / 2 = 4.5 PF " \
    "dense"
#define SRC_B200_FP4                                                                               \
    "derived: HGX B200 datasheet FP4 tensor 18 PFLOP/s sparse per GPU / 2 = 9 PF dense"
#define SRC_B200_SM                                                                                \
    "published: B200 148 SMs, two dies of 74, as reported for the part (no whitepaper figure "     \
    "read)"
#define SRC_B200_CLK                                                                               \
    "derived: 2.25e15 / (148 SMs x 8192 dense BF16 FLOP per SM per clock, twice Hopper's) = 1856 " \
    "MHz"
#define SRC_B200_TILE "code: NVIDIA/cutlass sm100 1-SM BF16 GEMM tile 128x256"
#define SRC_B200_L2                                                                                \
    "published: 126 MB L2 as reported for the Blackwell die pair (informational, not priced)"
#define SRC_B200_EFF                                                                               \
    "published: torch.mm BF16 1.41, 1.45, 1.42 PFLOP/s at 4096^3, 6144^3, 8192^3 on B200, median " \
    "0.631 of 2.25 PF (pytorch/ao#2427, benchmarks/float8/bench_matmul.py, 2025-06-23; power "     \
    "limit not stated)"
#define SRC_FA4_FWD                                                                                \
    "published: Zadouri et al. 2026, FlashAttention-4 (arXiv:2603.05451): up to 1613 TFLOP/s "     \
    "BF16 on B200 = 0.717"
#define SRC_FA4_BWD                                                                                \
    "published: FlashAttention-3's H100 backward fraction (arXiv:2407.08608), about 0.55: "        \
    "FlashAttention-4's backward peak not read"
#define SRC_B200_MEM "published: NVIDIA HGX B200 datasheet: 180 GB HBM3e per GPU (binary GiB)"
#define SRC_B200_HBW                                                                               \
    "derived: DGX B200 datasheet 2x Intel Xeon Platinum 8570, 8 channels DDR5-5600 = 358.4 GB/s "  \
    "per socket (Intel ARK): 716.8 / 8 GPUs = 89.6"
#define SRC_B200_HMEM                                                                              \
    "derived: DGX B200 datasheet: 2 TB system memory (up to 4 TB) / 8 GPUs = 256 GiB"
#define SRC_NVL5 "derived: B200 datasheet NVLink 5, 1.8 TB/s total = 900 per direction"
#define SRC_NDR_B "derived: DGX B200 datasheet: 400 Gb/s per GPU = 50 GB/s"

/* Blackwell rack-scale (NVL72) and Blackwell Ultra citations. */
#define SRC_NVL72_TRAY                                                                             \
    "published: NVIDIA GB200/GB300 NVL72 enterprise reference architecture: a compute tray "       \
    "(the OS node) holds 4 GPUs and 2 Grace CPUs"
#define SRC_NVL72_SIZE                                                                             \
    "published: NVIDIA GB200/GB300 NVL72 datasheets: 72 GPUs in one NVLink domain, every GPU "     \
    "one NVLink switch hop from every other (9 NVLink switch trays)"
#define SRC_NVL72_BW                                                                               \
    "derived: NVL72 datasheets: NVLink 5, 130 TB/s per 72 GPUs = 1.8 TB/s total per GPU = 900 "    \
    "per direction, to any GPU of the rack"
#define SRC_GB200_FP8                                                                              \
    "derived: NVIDIA GB200 NVL72 datasheet FP8/FP6 720 PFLOP/s sparse / 72 GPUs / 2 = 5 PF "       \
    "dense (block-scaled MXFP8 the same)"
#define SRC_BW_EFF                                                                                 \
    "published: the Blackwell SM's measurement: torch.mm BF16 median 0.631 of 2.25 PF on B200 "    \
    "(pytorch/ao#2427, benchmarks/float8/bench_matmul.py, 2025-06-23); no figure read for this "   \
    "part"
/* NVFP4 GEMM efficiency (cost/README.md, "NVFP4"): the B200 run whose BF16 GEMMs give the
 * B200's gemm_efficiency also timed NVFP4 GEMMs of the same sizes (pytorch/ao#2427,
 * bench_matmul.py --recipe nvfp4): 4.46, 5.50 and 5.37 PFLOP/s at 4096^3, 6144^3 and 8192^3
 * of the 9 PF dense FP4 peak = 0.495, 0.611 and 0.597, median 0.597. Cross-checks (not
 * used): cuBLAS MXF4 (E8M0 scales per 32; the datasheet FP4 peak is the same) 5239 TFLOP/s at
 * 8192^3 = 0.582 (deepseek-ai/DeepGEMM#348, cublasTest 13.3); vLLM's CUTLASS NVFP4 kernel before
 * its tuned configs 3904 TFLOP/s at M 16384, N 6144, K 4096 = 0.434 (vllm-project/vllm#20646).
 * No NVFP4 GEMM measurement of GB200, B300 or GB300 was found: they take the B200's. */
#define SRC_B200_EFF4                                                                              \
    "published: NVFP4 GEMMs 4.46, 5.50, 5.37 PFLOP/s at 4096^3, 6144^3, 8192^3 on B200, median "   \
    "0.597 of 9 PF (pytorch/ao#2427, benchmarks/float8/bench_matmul.py --recipe nvfp4, "           \
    "2025-06-23; the run of the BF16 figure)"
#define SRC_BW_EFF4                                                                                \
    "published: the Blackwell SM's NVFP4 measurement: median 0.597 of 9 PF on B200 "               \
    "(pytorch/ao#2427, bench_matmul.py --recipe nvfp4, 2025-06-23); no NVFP4 GEMM figure read "    \
    "for this part"
#define SRC_NO_EFF4 "convention: 0 = not given: the device has no NVFP4 peak"
/* MXFP4 (cost/README.md, "MXFP4"): OCP MX FP4, E2M1 elements with one E8M0 scale per 32.
 * Blackwell runs it on the FP4 tensor-core path of NVFP4 (tcgen05 kind::mxf4 and
 * kind::mxf4nvf4; PTX ISA): a measured MXF4 GEMM above the FP8 peak shows the FP4 rate
 * (DeepGEMM's SM100_MMA_MXF4_SS kernel 5702 TFLOP/s at 8192^3 on B200, > 4.5 PF FP8;
 * deepseek-ai/DeepGEMM#348), so the datasheet's dense FP4 figure applies to both formats.
 * Blackwell Ultra's faster FP4 MMA (K 96 on sm_103) takes both the E4M3 block-16 and the
 * E8M0 block-32 scales (HazyResearch/ThunderKittens#201), so B300/GB300 take their FP4
 * figure too. Efficiency: cuBLAS MXF4 on B200 5239 TFLOP/s at 8192^3 = 0.582 of 9 PF
 * (DeepGEMM#348, cublasTest 13.3; DeepGEMM's own 5702 = 0.634 is not the vendor library);
 * no MXFP4 GEMM figure of GB200, B300 or GB300 was found: they take the B200's. AMD CDNA4
 * (MI355X): 2 x 32 x 32 x 64 FLOP per MXFP4 MFMA of 32 cycles (32x32x64, both operands FP4)
 * on 1024 matrix cores at 2400 MHz = 10066.3 TF dense, twice its FP8 5033.2 (the MFMA
 * cycle table of AMD's "Matrix Core Programming on CDNA3 and CDNA4" ROCm blog; AMD quotes
 * 10 PF MXFP4 dense); no hipBLASLt MXFP4 GEMM figure was read (a Triton MXFP4 GEMM on
 * MI350X, about 3.3 PF, meta-pytorch/MSLK#379, is not the vendor library: not used). */
#define SRC_NO_MXFP4                                                                               \
    "convention: 0 = unsupported: no MXFP4 (E2M1 with E8M0 block scales) tensor cores"
#define SRC_FP4_BOTH                                                                               \
    "Blackwell's FP4 tensor cores run MXFP4 at the FP4 rate: cuBLAS and DeepGEMM MXF4 GEMMs "      \
    "above the FP8 peak on B200, deepseek-ai/DeepGEMM#348"
#define SRC_FP4_BOTH_BU                                                                            \
    "Blackwell Ultra's FP4 MMA takes E8M0 block-32 scales as E4M3 block-16 ones, "                 \
    "HazyResearch/ThunderKittens#201; no MXFP4-specific figure published"
#define SRC_B200_MXFP4                                                                             \
    "derived: HGX B200 datasheet FP4 tensor 18 PFLOP/s sparse per GPU / 2 = 9 PF dense "           \
    "(" SRC_FP4_BOTH ")"
#define SRC_B200_EFF_MX4                                                                           \
    "published: cuBLAS MXF4 GEMM 5239 TFLOP/s at 8192^3 on B200 = 0.582 of 9 PF "                  \
    "(deepseek-ai/DeepGEMM#348, cublasTest 13.3, CUDA 12.9)"
#define SRC_BW_EFF_MX4                                                                             \
    "published: the Blackwell SM's MXFP4 measurement: cuBLAS MXF4 0.582 of 9 PF at 8192^3 on "     \
    "B200 (deepseek-ai/DeepGEMM#348); no MXFP4 GEMM figure read for this part"
#define SRC_MI355_MXFP4                                                                            \
    "derived: 2 x 32 x 32 x 64 FLOP per 32-cycle MXFP4 MFMA x 1024 matrix cores x 2.4 GHz = "      \
    "10066.3 TF dense (AMD ROCm blog 'Matrix Core Programming on CDNA3 and CDNA4'; AMD Instinct "  \
    "MI355X datasheet: MXFP4 10 PF)"
#define SRC_MI355_EFF_MX4                                                                          \
    "convention: 0 = not given: no published hipBLASLt MXFP4 figure read (gemm_efficiency "        \
    "applies)"
#define SRC_NO_EFF_MX4 "convention: 0 = not given: the device has no MXFP4 peak"
#define SRC_C2C                                                                                    \
    "derived: GB200/GB300 datasheets: NVLink-C2C 900 GB/s total per Grace, shared by its 2 "       \
    "GPUs = 450 per GPU = 225 per direction (the raw rate: no measured share read)"
#define SRC_GRACE_MEM                                                                              \
    "derived: GB200/GB300 NVL72 datasheets: up to 17 TB LPDDR5X per 36 Grace CPUs, 480 GB per "    \
    "Grace / 2 GPUs = 240 GiB"
#define SRC_BU_TABLE                                                                               \
    "published: NVIDIA Blackwell Ultra per-GPU specification (as tabulated at "                    \
    "verda.com/blog/gb300-nvl72-architecture)"
#define SRC_BU_SM                                                                                  \
    "published: Blackwell Ultra 160 SMs (20,480 CUDA cores / 128), as reported for the part"
#define SRC_BU_L2 "convention: 0 = not given: no L2 figure read for Blackwell Ultra (not priced)"
#define SRC_GB300_BF16                                                                             \
    "derived: NVIDIA GB300 NVL72 datasheet FP16/BF16 360 PFLOP/s sparse / 72 GPUs / 2 = 2.5 PF "   \
    "dense"
#define SRC_GB300_FP8                                                                              \
    "derived: NVIDIA GB300 NVL72 datasheet FP8/FP6 720 PFLOP/s sparse / 72 GPUs / 2 = 5 PF "       \
    "dense (block-scaled MXFP8 the same)"
#define SRC_B300_BF16                                                                              \
    "derived: NVIDIA HGX B300 datasheet FP16/BF16 36 PFLOP/s sparse / 8 GPUs / 2 = 2.25 PF dense"
#define SRC_B300_FP8                                                                               \
    "derived: NVIDIA HGX B300 datasheet FP8/FP6 72 PFLOP/s sparse / 8 GPUs / 2 = 4.5 PF dense "    \
    "(block-scaled MXFP8 the same)"
#define SRC_CX8                                                                                    \
    "published: NVIDIA HGX B300 / GB300 NVL72 datasheets: one ConnectX-8 800 Gb/s NIC per GPU = "  \
    "100 GB/s"
#define SRC_MI355_BF16                                                                             \
    "published: AMD Instinct MI355X datasheet: BF16/FP16 dense 2516.6 TFLOP/s (2.5 PF)"
#define SRC_MI355_FP8                                                                              \
    "published: AMD Instinct MI355X datasheet: FP8 dense 5033.2 TFLOP/s (MXFP8 the same rate)"

static const Preset presets[] = {
    /* NVIDIA A100 SXM4 40GB (A100 datasheet): FP32 19.5 TF, BF16/FP16 dense 312 TF, no FP8;
     * HBM2 1,555 GB/s. NVLink 3: 600 GB/s total = 300 GB/s per direction. DGX A100: 8 GPUs,
     * one HDR 200 Gb/s InfiniBand port per GPU = 25 GB/s. 108 SMs, 1410 MHz boost at 400 W,
     * 40 MB L2 (A100 whitepaper). */
    {"A100-40GB",
     40,
     1555,
     {19.5, 312, 312, 0, 0},
     8,
     {"nvlink3", 8, 300, 3},
     {"ib-hdr", 0, 25, 8},
     {108, 1410, 1410, 256, 128, 40, 0.70, 0.60, 0.8, 0, 0, 1410},
     {25, 128, 51.2},
     .src = {[S_MEM] = "published: NVIDIA A100 datasheet: 40 GB HBM2 (binary GiB: the part reports "
                       "40960 MiB)",
             [S_MEM_BW] = "published: NVIDIA A100 datasheet: 1,555 GB/s (SXM4 40GB)",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_A100_FP32,
             [S_BF16] = SRC_A100_BF16,
             [S_FP16] = SRC_A100_BF16,
             [S_FP8] = SRC_A100_FP8,
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = SRC_A100_SM,
             [S_BOOST] = SRC_A100_CLK,
             [S_SUSTAINED] = SRC_A100_SUST,
             [S_MAX_CLOCK] = SRC_A100_MAX,
             [S_TILE_M] = SRC_A100_TILE,
             [S_TILE_N] = SRC_A100_TILE,
             [S_L2] = SRC_A100_L2,
             [S_GEMM_EFF] = SRC_A100_EFF,
             [S_ATTN_FWD] = SRC_FA2_FWD,
             [S_ATTN_BWD] = SRC_FA2_BWD,
             [S_HOST_LINK] = SRC_GEN4,
             [S_HOST_MEM] =
                 "derived: DGX A100 320GB datasheet: 1 TB system memory / 8 GPUs = 128 GiB",
             [S_HOST_MEM_BW] = SRC_A100_HBW,
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL3,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_HDR,
             [S_L1_LAT] = SRC_LAT1}},
    /* A100 SXM4 80GB: same compute and links as the 40GB part; HBM2e 2,039 GB/s. */
    {"A100-80GB",
     80,
     2039,
     {19.5, 312, 312, 0, 0},
     8,
     {"nvlink3", 8, 300, 3},
     {"ib-hdr", 0, 25, 8},
     {108, 1410, 1410, 256, 128, 40, 0.70, 0.60, 0.8, 0, 0, 1410},
     {25, 256, 51.2},
     .src = {[S_MEM] = "published: NVIDIA A100 datasheet: 80 GB HBM2e (binary GiB: the part "
                       "reports 81920 MiB)",
             [S_MEM_BW] = "published: NVIDIA A100 datasheet: 2,039 GB/s (SXM4 80GB)",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_A100_FP32,
             [S_BF16] = SRC_A100_BF16,
             [S_FP16] = SRC_A100_BF16,
             [S_FP8] = SRC_A100_FP8,
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = SRC_A100_SM,
             [S_BOOST] = SRC_A100_CLK,
             [S_SUSTAINED] = SRC_A100_SUST,
             [S_MAX_CLOCK] = SRC_A100_MAX,
             [S_TILE_M] = SRC_A100_TILE,
             [S_TILE_N] = SRC_A100_TILE,
             [S_L2] = SRC_A100_L2,
             [S_GEMM_EFF] = SRC_A100_EFF,
             [S_ATTN_FWD] = SRC_FA2_FWD,
             [S_ATTN_BWD] = SRC_FA2_BWD,
             [S_HOST_LINK] = SRC_GEN4,
             [S_HOST_MEM] =
                 "derived: DGX A100 640GB datasheet: 2 TB system memory / 8 GPUs = 256 GiB",
             [S_HOST_MEM_BW] = SRC_A100_HBW,
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL3,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_HDR,
             [S_L1_LAT] = SRC_LAT1}},
    /* NVIDIA H100 SXM5 80GB (H100 datasheet): FP32 67 TF, BF16/FP16 dense 989.4 TF, FP8
     * dense 1978.9 TF; HBM3 3.35 TB/s. NVLink 4: 900 GB/s total = 450 per direction.
     * DGX H100: one NDR 400 Gb/s port per GPU = 50 GB/s. 132 SMs, tensor clock 1830 MHz at
     * 700 W, 50 MB L2 (H100 whitepaper). No block-scaled (MX) tensor cores: mxfp8 0. */
    {"H100-SXM",
     80,
     3350,
     {67, 989.4, 989.4, 1978.9, 0},
     8,
     {"nvlink4", 8, 450, 3},
     {"ib-ndr", 0, 50, 8},
     {132, 1830, 1830, 128, 256, 50, 0.75, 0.55, 0.8, 0, 0, 1980},
     {50, 256, 76.8},
     .src = {[S_MEM] = "published: NVIDIA H100 datasheet (SXM5): 80 GB HBM3",
             [S_MEM_BW] = "published: NVIDIA H100 datasheet (SXM5): 3.35 TB/s",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_H100_FP32,
             [S_BF16] = SRC_H100_BF16,
             [S_FP16] = SRC_H100_BF16,
             [S_FP8] = SRC_H100_FP8,
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = SRC_H100_SM,
             [S_BOOST] = SRC_H100_CLK,
             [S_SUSTAINED] = SRC_H100_SUST,
             [S_MAX_CLOCK] = SRC_H100_MAX,
             [S_TILE_M] = SRC_H100_TILE,
             [S_TILE_N] = SRC_H100_TILE,
             [S_L2] = SRC_H100_L2,
             [S_GEMM_EFF] = SRC_H100_EFF,
             [S_ATTN_FWD] = SRC_FA3_FWD,
             [S_ATTN_BWD] = SRC_FA3_BWD,
             [S_HOST_LINK] = SRC_GEN5,
             [S_HOST_MEM] = SRC_DGXH_MEM,
             [S_HOST_MEM_BW] = SRC_DGXH_HBW,
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL4,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_NDR,
             [S_L1_LAT] = SRC_LAT1}},
    /* H100 SXM5 96 GB HBM2e at its default 500 W limit (Meta Grand Teton; torchtitan's
     * benchmark hardware, "H100 96GB HBM2e at the default 500W"): H100 compute; HBM2e
     * 2.41 TB/s (the 94/96 GB HBM2e H100 as measured in arXiv:2604.11391's power-capping
     * study); sustained tensor clock 1830 x (500/700)^(1/3) = 1636 MHz (power law above). */
    {"H100-96GB-500W",
     96,
     2410,
     {67, 989.4, 989.4, 1978.9, 0},
     8,
     {"nvlink4", 8, 450, 3},
     {"ib-ndr", 0, 50, 8},
     {132, 1830, 1636, 128, 256, 50, 0.75, 0.55, 0.8, 0, 0, 1770},
     {0, 0, 0},
     .src = {[S_MEM] = "published: torchtitan's benchmark hardware, 'H100 96GB HBM2e at the "
                       "default 500W' (Meta Grand Teton)",
             [S_MEM_BW] = "published: arXiv:2604.11391 (power-capping study): the 94/96 GB HBM2e "
                          "H100 at 2.41 TB/s",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_H100_FP32,
             [S_BF16] = SRC_H100_BF16,
             [S_FP16] = SRC_H100_BF16,
             [S_FP8] = SRC_H100_FP8,
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = SRC_H100_SM,
             [S_BOOST] = SRC_H100_CLK,
             [S_SUSTAINED] = "derived: 1830 x (500/700)^(1/3) = 1636 MHz: dynamic power ~ f^3 in "
                             "the DVFS range (C V^2 f, V with f), the 500 W limit of 700 W rated",
             [S_MAX_CLOCK] = "derived: 1980 x (500/700)^(1/3) = 1770 MHz, the GH100 maximum under "
                             "the power law of this preset's sustained clock (dynamic power ~ f^3)",
             [S_TILE_M] = SRC_H100_TILE,
             [S_TILE_N] = SRC_H100_TILE,
             [S_L2] = SRC_H100_L2,
             [S_GEMM_EFF] = SRC_H100_EFF,
             [S_ATTN_FWD] = SRC_FA3_FWD,
             [S_ATTN_BWD] = SRC_FA3_BWD,
             [S_HOST_LINK] = SRC_NO_HOST,
             [S_HOST_MEM] = SRC_NO_HOST,
             [S_HOST_MEM_BW] = SRC_NO_HOST,
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL4,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_NDR,
             [S_L1_LAT] = SRC_LAT1}},
    /* NVIDIA H800 SXM5 80GB: H100 compute and HBM3 with NVLink cut to 400 GB/s total = 200
     * per direction (H800 datasheet; DeepSeek-V3 technical report arXiv:2412.19437 §3.1-3.2:
     * 8 GPUs per node, NVLink + NVSwitch inside, one 400 Gb/s = 50 GB/s InfiniBand NIC per
     * GPU; it measures 160 GB/s achieved on NVLink). */
    {"H800",
     80,
     3350,
     {67, 989.4, 989.4, 1978.9, 0},
     8,
     {"nvlink4-h800", 8, 200, 3},
     {"ib-ndr", 0, 50, 8},
     {132, 1830, 1830, 128, 256, 50, 0.75, 0.55, 0.8, 0, 0, 1980},
     {50, 256, 76.8},
     .src = {[S_MEM] = "published: NVIDIA H800 datasheet (SXM5): 80 GB HBM3, H100 compute",
             [S_MEM_BW] = "published: NVIDIA H800 datasheet (SXM5): 3.35 TB/s",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_H100_FP32,
             [S_BF16] = SRC_H100_BF16,
             [S_FP16] = SRC_H100_BF16,
             [S_FP8] = SRC_H100_FP8,
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = SRC_H100_SM,
             [S_BOOST] = SRC_H100_CLK,
             [S_SUSTAINED] = SRC_H100_SUST,
             [S_MAX_CLOCK] = SRC_H800_MAX,
             [S_TILE_M] = SRC_H100_TILE,
             [S_TILE_N] = SRC_H100_TILE,
             [S_L2] = SRC_H100_L2,
             [S_GEMM_EFF] = SRC_H100_EFF,
             [S_ATTN_FWD] = SRC_FA3_FWD,
             [S_ATTN_BWD] = SRC_FA3_BWD,
             [S_HOST_LINK] = SRC_GEN5,
             [S_HOST_MEM] = "derived: H800 systems built as DGX H100: 2 TB / 8 GPUs = 256 GiB",
             [S_HOST_MEM_BW] =
                 "derived: as DGX H100: 2x Xeon Platinum 8480C, 614.4 / 8 GPUs = 76.8",
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = "derived: H800 datasheet NVLink 400 GB/s total = 200 per direction "
                         "(DeepSeek-V3, arXiv:2412.19437 3.1-3.2, measures 160 achieved)",
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = "published: DeepSeek-V3 (arXiv:2412.19437) 3.1: one 400 Gb/s InfiniBand "
                         "NIC per GPU = 50 GB/s",
             [S_L1_LAT] = SRC_LAT1}},
    /* NVIDIA H200 SXM 141GB (H200 datasheet): H100 compute and NVLink 4; HBM3e 4.8 TB/s;
     * DGX H200 uses the same 400 Gb/s per GPU. Same GH100 die, SMs, clock and L2 as H100. */
    {"H200",
     141,
     4800,
     {67, 989.4, 989.4, 1978.9, 0},
     8,
     {"nvlink4", 8, 450, 3},
     {"ib-ndr", 0, 50, 8},
     {132, 1830, 1830, 128, 256, 50, 0.75, 0.55, 0.8, 0, 0, 1980},
     {50, 256, 76.8},
     .src = {[S_MEM] = "published: NVIDIA H200 datasheet (SXM): 141 GB HBM3e",
             [S_MEM_BW] = "published: NVIDIA H200 datasheet (SXM): 4.8 TB/s",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_H100_FP32,
             [S_BF16] = SRC_H100_BF16,
             [S_FP16] = SRC_H100_BF16,
             [S_FP8] = SRC_H100_FP8,
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = "published: H200 is the GH100 die of the H100 (H200 datasheet; H100 "
                       "whitepaper: 132 SMs)",
             [S_BOOST] = SRC_H100_CLK,
             [S_SUSTAINED] = SRC_H100_SUST,
             [S_MAX_CLOCK] = SRC_H200_MAX,
             [S_TILE_M] = SRC_H100_TILE,
             [S_TILE_N] = SRC_H100_TILE,
             [S_L2] = SRC_H100_L2,
             [S_GEMM_EFF] = SRC_H100_EFF,
             [S_ATTN_FWD] = SRC_FA3_FWD,
             [S_ATTN_BWD] = SRC_FA3_BWD,
             [S_HOST_LINK] = SRC_GEN5,
             [S_HOST_MEM] = SRC_DGXH_MEM,
             [S_HOST_MEM_BW] = SRC_DGXH_HBW,
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL4,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_NDR,
             [S_L1_LAT] = SRC_LAT1}},
    /* NVIDIA B200 in HGX B200 (datasheet, per GPU at 1000 W): 180 GB HBM3e, FP32 75 TF,
     * FP16/BF16 4.5 PF sparse = 2.25 PF dense, FP8 (and MXFP8, block-scaled) 9 PF sparse =
     * 4.5 PF dense; HBM3e 8 TB/s. NVLink 5: 1.8 TB/s total = 900 per direction. DGX B200:
     * 400 Gb/s per GPU. 148 SMs (two dies of 74); the tensor clock is derived from the peak:
     * 2.25e15 / (148 x 8192 dense BF16 FLOP per SM per clock, twice Hopper's) = 1856 MHz;
     * L2 126 MB (as reported for the Blackwell die pair; informational). */
    {"B200",
     180,
     8000,
     {75, 2250, 2250, 4500, 4500, 9000, 9000},
     8,
     {"nvlink5", 8, 900, 3},
     {"ib-ndr", 0, 50, 8},
     {148, 1856, 1856, 128, 256, 126, 0.717, 0.55, 0.631, 0.597, 0.582, 0},
     {50, 256, 89.6},
     .src = {[S_MEM] = SRC_B200_MEM,
             [S_MEM_BW] = "published: NVIDIA HGX B200 datasheet: HBM3e 8 TB/s per GPU",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = SRC_B200_FP32,
             [S_BF16] = SRC_B200_BF16,
             [S_FP16] = SRC_B200_BF16,
             [S_FP8] = SRC_B200_FP8,
             [S_MXFP8] = SRC_B200_FP8,
             [S_NVFP4] = SRC_B200_FP4,
             [S_MXFP4] = SRC_B200_MXFP4,
             [S_SMS] = SRC_B200_SM,
             [S_BOOST] = SRC_B200_CLK,
             [S_SUSTAINED] = "derived: boost_clock_mhz: the part at its full rated 1000 W, the "
                             "power the vendor rates the peak at",
             [S_MAX_CLOCK] = SRC_MAX_NONE,
             [S_TILE_M] = SRC_B200_TILE,
             [S_TILE_N] = SRC_B200_TILE,
             [S_L2] = SRC_B200_L2,
             [S_GEMM_EFF] = SRC_B200_EFF,
             [S_GEMM_EFF_NVFP4] = SRC_B200_EFF4,
             [S_GEMM_EFF_MXFP4] = SRC_B200_EFF_MX4,
             [S_ATTN_FWD] = SRC_FA4_FWD,
             [S_ATTN_BWD] = SRC_FA4_BWD,
             [S_HOST_LINK] = SRC_GEN5,
             [S_HOST_MEM] = SRC_B200_HMEM,
             [S_HOST_MEM_BW] = SRC_B200_HBW,
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL5,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_NDR_B,
             [S_L1_LAT] = SRC_LAT1}},
    /* B200 capped at 750 W (torchao's MXFP8 benchmark hardware, "8 x B200 limited to 750W"):
     * the clock the cap holds is read from the published rates, not from the power law above.
     * cuBLAS ran large BF16/FP16 GEMMs at 1110.1 and 1087.7 TFLOP/s at 4096^3 and 8192^3 with
     * the cap locked to 750 W (facebookexperimental/triton#854, mean 1098.9); the same library
     * on the part at its full power reaches 0.631 of 2.25 PF (the B200 entry). A large GEMM is
     * compute-bound, so the library's efficiency is the same at both limits and the cap costs
     * clock: 1856 x 1098.9 / (2250 x 0.631) = 1436.6 MHz, 0.774 of the boost clock, where the
     * power law gives 0.909. Every tensor-core kernel at the cap (the attention core, NVFP4 and
     * MXFP4 GEMMs) runs at that clock. */
    {"B200-750W",
     180,
     8000,
     {75, 2250, 2250, 4500, 4500, 9000, 9000},
     8,
     {"nvlink5", 8, 900, 3},
     {"ib-ndr", 0, 50, 8},
     {148, 1856, 1437, 128, 256, 126, 0.717, 0.55, 0.631, 0.597, 0.582, 1451},
     {50, 256, 89.6},
     .src =
         {[S_MEM] = SRC_B200_MEM,
          [S_MEM_BW] = "published: NVIDIA HGX B200 datasheet: HBM3e 8 TB/s per GPU",
          [S_DPN] =
              SRC_NODE8,
          [S_FP32] = SRC_B200_FP32,
          [S_BF16] = SRC_B200_BF16,
          [S_FP16] = SRC_B200_BF16,
          [S_FP8] =
              SRC_B200_FP8,
          [S_MXFP8] = SRC_B200_FP8,
          [S_NVFP4] = SRC_B200_FP4,
          [S_MXFP4] = SRC_B200_MXFP4,
          [S_SMS] =
              SRC_B200_SM,
          [S_BOOST] = SRC_B200_CLK,
          [S_SUSTAINED] =
              "derived: cuBLAS FP16 GEMM on B200 with the power cap locked to 750 W, 1110.1 and "
              "1087.7 TFLOP/s at 4096^3 and 8192^3 (facebookexperimental/triton#854, "
              "test_blackwell_gemm_perf.py under denoise.sh), mean 1098.9, at the library's "
              "full-power efficiency 0.631: 1856 x 1098.9 / (2250 x 0.631) = 1436.6 MHz, the 750 W "
              "limit of torchao's benchmark hardware ('8 x B200 limited to 750W')",
          [S_MAX_CLOCK] =
              "derived: the faster of the two cuBLAS rates at the locked 750 W cap, 1110.1 TFLOP/s "
              "at 4096^3 (facebookexperimental/triton#854), at the library's full-power efficiency "
              "0.631: 1856 x 1110.1 / (2250 x 0.631) = 1451 MHz",
          [S_TILE_M] = SRC_B200_TILE,
          [S_TILE_N] = SRC_B200_TILE,
          [S_L2] = SRC_B200_L2,
          [S_GEMM_EFF] =
              "published: torch.mm BF16 on B200, median 0.631 of 2.25 PF (pytorch/ao#2427, as the "
              "B200 entry): the library's efficiency at its own clock, the same under the cap; "
              "2250 x 1437/1856 x 0.631 = 1099.2 TFLOP/s, cuBLAS's mean 1098.9 at the 750 W cap "
              "(facebookexperimental/triton#854)",
          [S_GEMM_EFF_NVFP4] =
              "published: the B200's NVFP4 GEMMs, median 0.597 of 9 PF (pytorch/ao#2427, "
              "bench_matmul.py --recipe nvfp4, 2025-06-23; its power limit not stated): no "
              "NVFP4 figure at the 750 W cap read, the sustained clock prices the cap",
          [S_GEMM_EFF_MXFP4] =
              "published: the B200's cuBLAS MXF4 GEMM, 5239 TFLOP/s at 8192^3 = 0.582 of 9 PF "
              "(deepseek-ai/DeepGEMM#348, cublasTest 13.3; its power limit not stated): no MXFP4 "
              "figure at the 750 W cap read, the sustained clock prices the cap",
          [S_ATTN_FWD] = SRC_FA4_FWD,
          [S_ATTN_BWD] = SRC_FA4_BWD,
          [S_HOST_LINK] = SRC_GEN5,
          [S_HOST_MEM] = SRC_B200_HMEM,
          [S_HOST_MEM_BW] = SRC_B200_HBW,
          [S_L0_SIZE] = SRC_NODE8,
          [S_L0_BW] = SRC_NVL5,
          [S_L0_LAT] = SRC_LAT0,
          [S_L1_BW] = SRC_NDR_B,
          [S_L1_LAT] = SRC_LAT1}},
    /* NVIDIA GB200 NVL72 (GB200 NVL72 datasheet; per GPU = the rack's figures / 72): a
     * B200 die at 1200 W: 186 GB HBM3e at 8 TB/s; FP16/BF16 360 PF, FP8 720 PF, FP4 1440
     * PF sparse per rack = 2.5, 5 and 10 PF dense per GPU. All 72 GPUs share one NVLink 5
     * domain through the NVLink switch trays (1.8 TB/s per GPU, 900 per direction, to every
     * other GPU of the rack): the domain is level 0; a compute tray (the node the OS sees)
     * holds 4 GPUs and 2 Grace CPUs. One ConnectX-7 400 Gb/s NIC per GPU. Host: each Grace
     * (480 GB LPDDR5X at 512 GB/s) serves 2 GPUs over NVLink-C2C, 900 GB/s total per
     * superchip. */
    {"GB200-NVL72",
     186,
     8000,
     {90, 2500, 2500, 5000, 5000, 10000, 10000},
     4,
     {"nvlink5-nvl72", 72, 900, 3},
     {"ib-ndr", 0, 50, 8},
     {148, 2062, 2062, 128, 256, 126, 0.717, 0.55, 0.631, 0.597, 0.582, 0},
     {225, 240, 256},
     .src = {[S_MEM] = "derived: NVIDIA GB200 NVL72 datasheet: 13.4 TB HBM3e per 72 GPUs, 372 GB "
                       "per GB200 superchip of 2 GPUs = 186 GB per GPU (binary GiB)",
             [S_MEM_BW] = "derived: NVIDIA GB200 NVL72 datasheet: 576 TB/s HBM3e per 72 GPUs = 8 "
                          "TB/s per GPU",
             [S_DPN] = SRC_NVL72_TRAY,
             [S_FP32] =
                 "published: NVIDIA Blackwell technical brief, GB200 at 1200 W: FP32 90 "
                 "TFLOP/s per GPU (as tabulated at glennklockwood.com/garden/processors/B200)",
             [S_BF16] = "derived: NVIDIA GB200 NVL72 datasheet FP16/BF16 360 PFLOP/s sparse / 72 "
                        "GPUs / 2 = 2.5 PF dense",
             [S_FP16] = "derived: NVIDIA GB200 NVL72 datasheet FP16/BF16 360 PFLOP/s sparse / 72 "
                        "GPUs / 2 = 2.5 PF dense",
             [S_FP8] = SRC_GB200_FP8,
             [S_MXFP8] = SRC_GB200_FP8,
             [S_NVFP4] = "derived: NVIDIA GB200 NVL72 datasheet FP4 tensor 1440 PFLOP/s sparse / "
                         "72 GPUs / 2 = 10 PF dense",
             [S_MXFP4] = "derived: NVIDIA GB200 NVL72 datasheet FP4 tensor 1440 PFLOP/s sparse / "
                         "72 GPUs / 2 = 10 PF dense (" SRC_FP4_BOTH ")",
             [S_SMS] = "published: the GB200's GPU is the B200 die: 148 SMs, two dies of 74, as "
                       "reported for the part",
             [S_BOOST] = "derived: 2.5e15 / (148 SMs x 8192 dense BF16 FLOP per SM per clock) = "
                         "2062 MHz",
             [S_SUSTAINED] = "derived: boost_clock_mhz: the part at its full rated 1200 W, the "
                             "power the vendor rates the peak at",
             [S_MAX_CLOCK] = SRC_MAX_NONE,
             [S_TILE_M] = SRC_B200_TILE,
             [S_TILE_N] = SRC_B200_TILE,
             [S_L2] = SRC_B200_L2,
             [S_GEMM_EFF] = SRC_BW_EFF,
             [S_GEMM_EFF_NVFP4] = SRC_BW_EFF4,
             [S_GEMM_EFF_MXFP4] = SRC_BW_EFF_MX4,
             [S_ATTN_FWD] = SRC_FA4_FWD,
             [S_ATTN_BWD] = SRC_FA4_BWD,
             [S_HOST_LINK] = SRC_C2C,
             [S_HOST_MEM] = SRC_GRACE_MEM,
             [S_HOST_MEM_BW] = "derived: NVIDIA GB200 NVL72 datasheet: LPDDR5X 18.4 TB/s per 36 "
                               "Grace CPUs = 512 GB/s per Grace / 2 GPUs = 256",
             [S_L0_SIZE] = SRC_NVL72_SIZE,
             [S_L0_BW] = SRC_NVL72_BW,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = "published: NVIDIA DGX SuperPOD with DGX GB200 reference architecture: "
                         "one ConnectX-7 400 Gb/s InfiniBand NIC per GPU = 50 GB/s",
             [S_L1_LAT] = SRC_LAT1},
     .family = "B200"},
    /* NVIDIA GB300 NVL72 (GB300 NVL72 datasheet; per GPU = the rack's / 72): a Blackwell
     * Ultra (B300) die at 1400 W: 279 GB HBM3e at 8 TB/s; FP16/BF16 2.5 PF, FP8 5 PF, FP4
     * 15 PF dense (1080 PF per rack). Same NVLink 5 domain of 72 GPUs as the GB200 NVL72;
     * one ConnectX-8 800 Gb/s NIC per GPU; Grace hosts as in the GB200 NVL72 (LPDDR5X 14
     * TB/s per rack). 160 SMs. */
    {"GB300-NVL72",
     279,
     8000,
     {80, 2500, 2500, 5000, 5000, 15000, 15000},
     4,
     {"nvlink5-nvl72", 72, 900, 3},
     {"ib-xdr", 0, 100, 8},
     {160, 1907, 1907, 128, 256, 0, 0.717, 0.55, 0.631, 0.597, 0.582, 0},
     {225, 240, 194.4},
     .src = {[S_MEM] = SRC_BU_TABLE ": GB300 279 GB HBM3e per GPU (binary GiB)",
             [S_MEM_BW] = "derived: NVIDIA GB300 NVL72 datasheet: 576 TB/s HBM3e per 72 GPUs = 8 "
                          "TB/s per GPU",
             [S_DPN] = SRC_NVL72_TRAY,
             [S_FP32] = SRC_BU_TABLE ": GB300 FP32 80 TFLOP/s per GPU",
             [S_BF16] = SRC_GB300_BF16,
             [S_FP16] = SRC_GB300_BF16,
             [S_FP8] = SRC_GB300_FP8,
             [S_MXFP8] = SRC_GB300_FP8,
             [S_NVFP4] = "derived: NVIDIA GB300 NVL72 datasheet FP4 tensor 1080 PFLOP/s dense "
                         "(1440 sparse) / 72 GPUs = 15 PF",
             [S_MXFP4] = "derived: NVIDIA GB300 NVL72 datasheet FP4 tensor 1080 PFLOP/s dense "
                         "(1440 sparse) / 72 GPUs = 15 PF (" SRC_FP4_BOTH_BU ")",
             [S_SMS] = SRC_BU_SM,
             [S_BOOST] = "derived: 2.5e15 / (160 SMs x 8192 dense BF16 FLOP per SM per clock) = "
                         "1907 MHz",
             [S_SUSTAINED] = "derived: boost_clock_mhz: the part at its full rated 1400 W, the "
                             "power the vendor rates the peak at",
             [S_MAX_CLOCK] = SRC_MAX_NONE,
             [S_TILE_M] = SRC_B200_TILE,
             [S_TILE_N] = SRC_B200_TILE,
             [S_L2] = SRC_BU_L2,
             [S_GEMM_EFF] = SRC_BW_EFF,
             [S_GEMM_EFF_NVFP4] = SRC_BW_EFF4,
             [S_GEMM_EFF_MXFP4] = SRC_BW_EFF_MX4,
             [S_ATTN_FWD] = SRC_FA4_FWD,
             [S_ATTN_BWD] = SRC_FA4_BWD,
             [S_HOST_LINK] = SRC_C2C,
             [S_HOST_MEM] = SRC_GRACE_MEM,
             [S_HOST_MEM_BW] = "derived: NVIDIA GB300 NVL72 datasheet: LPDDR5X 14 TB/s per 72 "
                               "GPUs = 194.4",
             [S_L0_SIZE] = SRC_NVL72_SIZE,
             [S_L0_BW] = SRC_NVL72_BW,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_CX8,
             [S_L1_LAT] = SRC_LAT1},
     .family = "B300"},
    /* NVIDIA B300 in HGX B300 (datasheet, per GPU = the board's / 8): 270 GB HBM3e at 8
     * TB/s; FP32 600 TF, FP16/BF16 36 PF sparse, FP8 72 PF sparse, FP4 108 PF dense per
     * board = 75 TF, 2.25, 4.5 and 13.5 PF dense per GPU. NVLink 5 as B200; one ConnectX-8
     * 800 Gb/s NIC per GPU. DGX B300 host: 2x Intel Xeon 6776P, 2 TB. 160 SMs. */
    {"B300",
     270,
     8000,
     {75, 2250, 2250, 4500, 4500, 13500, 13500},
     8,
     {"nvlink5", 8, 900, 3},
     {"ib-xdr", 0, 100, 8},
     {160, 1717, 1717, 128, 256, 0, 0.717, 0.55, 0.631, 0.597, 0.582, 0},
     {50, 256, 102.4},
     .src = {[S_MEM] = SRC_BU_TABLE ": B300 270 GB HBM3e per GPU (binary GiB)",
             [S_MEM_BW] = "published: NVIDIA HGX B300 datasheet: up to 8 TB/s per GPU (as "
                          "tabulated at acecloud.ai/blog/nvidia-hgx-b300)",
             [S_DPN] = SRC_NODE8,
             [S_FP32] = "derived: NVIDIA HGX B300 datasheet FP32 600 TFLOP/s / 8 GPUs = 75",
             [S_BF16] = SRC_B300_BF16,
             [S_FP16] = SRC_B300_BF16,
             [S_FP8] = SRC_B300_FP8,
             [S_MXFP8] = SRC_B300_FP8,
             [S_NVFP4] = "derived: NVIDIA HGX B300 datasheet FP4 tensor 108 PFLOP/s dense (144 "
                         "sparse) / 8 GPUs = 13.5 PF",
             [S_MXFP4] = "derived: NVIDIA HGX B300 datasheet FP4 tensor 108 PFLOP/s dense (144 "
                         "sparse) / 8 GPUs = 13.5 PF (" SRC_FP4_BOTH_BU ")",
             [S_SMS] = SRC_BU_SM,
             [S_BOOST] = "derived: 2.25e15 / (160 SMs x 8192 dense BF16 FLOP per SM per clock) = "
                         "1717 MHz",
             [S_SUSTAINED] = "derived: boost_clock_mhz: the part at its full rated 1100 W, the "
                             "power the vendor rates the peak at",
             [S_MAX_CLOCK] = SRC_MAX_NONE,
             [S_TILE_M] = SRC_B200_TILE,
             [S_TILE_N] = SRC_B200_TILE,
             [S_L2] = SRC_BU_L2,
             [S_GEMM_EFF] = SRC_BW_EFF,
             [S_GEMM_EFF_NVFP4] = SRC_BW_EFF4,
             [S_GEMM_EFF_MXFP4] = SRC_BW_EFF_MX4,
             [S_ATTN_FWD] = SRC_FA4_FWD,
             [S_ATTN_BWD] = SRC_FA4_BWD,
             [S_HOST_LINK] = "derived: the DGX B300 host (Intel Xeon 6, PCIe Gen5) links each GPU "
                             "at Gen5 x16: 63 GB/s per direction x 0.79, the Gen4 measurement's "
                             "effective share",
             [S_HOST_MEM] = "derived: NVIDIA DGX B300 datasheet: 2 TB system memory / 8 GPUs = "
                            "256 GiB",
             [S_HOST_MEM_BW] = "derived: DGX B300 datasheet 2x Intel Xeon 6776P, 8 channels "
                               "DDR5-6400 = 409.6 GB/s per socket (Intel ARK): 819.2 / 8 GPUs = "
                               "102.4",
             [S_L0_SIZE] = SRC_NODE8,
             [S_L0_BW] = SRC_NVL5,
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = SRC_CX8,
             [S_L1_LAT] = SRC_LAT1}},
    /* AMD Instinct MI300X (datasheet): 192 GB HBM3 at 5.3 TB/s; FP32 matrix 163.4 TF (IEEE fp32 on
     * matrix cores), BF16/FP16 dense 1307.4 TF, FP8 dense 2614.9 TF. 8-GPU platform with
     * Infinity Fabric: 7 links x 64 GB/s per direction to the 7 peers = 448 GB/s per
     * direction in aggregate (a single peer-to-peer transfer gets 64). 400 Gb/s NIC per
     * GPU = 50 GB/s. 304 CUs at 2100 MHz peak engine clock (304 x 2048 x 2.1 GHz = 1307 TF;
     * CDNA3 whitepaper), 256 MB Infinity Cache as the last-level cache; sustained clock not
     * published (the peak clock is used). No MX block scaling (mxfp8 0). */
    {"MI300X",
     192,
     5300,
     {163.4, 1307.4, 1307.4, 2614.9, 0},
     8,
     {"infinity-fabric", 8, 448, 3},
     {"roce-400g", 0, 50, 8},
     {304, 2100, 2100, 256, 256, 256, 0, 0, 0, 0, 0, 2100},
     {0, 0, 0},
     .src = {[S_MEM] = "published: AMD Instinct MI300X datasheet: 192 GB HBM3",
             [S_MEM_BW] = "published: AMD Instinct MI300X datasheet: 5.3 TB/s",
             [S_DPN] = "published: AMD Instinct MI300X platform: 8 GPUs on Infinity Fabric",
             [S_FP32] = "published: AMD Instinct MI300X datasheet: FP32 matrix 163.4 TFLOP/s",
             [S_BF16] = "published: AMD Instinct MI300X datasheet: BF16/FP16 dense 1307.4 TFLOP/s",
             [S_FP16] = "published: AMD Instinct MI300X datasheet: BF16/FP16 dense 1307.4 TFLOP/s",
             [S_FP8] = "published: AMD Instinct MI300X datasheet: FP8 dense 2614.9 TFLOP/s",
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = "published: AMD CDNA3 whitepaper: 304 CUs",
             [S_BOOST] = "published: AMD CDNA3 whitepaper: 2100 MHz peak engine clock (304 x 2048 "
                         "x 2.1 GHz = 1307 TF)",
             [S_SUSTAINED] = "convention: the peak clock: no sustained clock published",
             [S_MAX_CLOCK] = SRC_AMD_MAX,
             [S_TILE_M] = "code: ROCm/hipBLASLt macro tile 256x256 on CDNA3",
             [S_TILE_N] = "code: ROCm/hipBLASLt macro tile 256x256 on CDNA3",
             [S_L2] =
                 "published: AMD CDNA3 whitepaper: 256 MB Infinity Cache, the last-level cache",
             [S_GEMM_EFF] = "convention: 0 = not given: no published hipBLASLt figure read (the "
                            "0.8 fallback applies)",
             [S_ATTN_FWD] = "convention: 0 = not given: the GEMM efficiency applies",
             [S_ATTN_BWD] = "convention: 0 = not given: the GEMM efficiency applies",
             [S_HOST_LINK] = SRC_NO_HOST,
             [S_HOST_MEM] = SRC_NO_HOST,
             [S_HOST_MEM_BW] = SRC_NO_HOST,
             [S_L0_SIZE] = "published: AMD Instinct MI300X platform: 8 GPUs on Infinity Fabric",
             [S_L0_BW] = "derived: MI300X platform: 7 Infinity Fabric links x 64 GB/s per "
                         "direction to the 7 peers = 448",
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = "published: MI300X platform: a 400 Gb/s NIC per GPU = 50 GB/s",
             [S_L1_LAT] = SRC_LAT1}},
    /* AMD Instinct MI325X (datasheet): the MI300X's CDNA3 compute die (304 CUs at 2100 MHz,
     * the same peaks) with 256 GB HBM3E at 6 TB/s; the 8-GPU platform's Infinity Fabric as
     * the MI300X's (7 links x 64 GB/s per direction); a 400 Gb/s NIC per GPU. */
    {"MI325X",
     256,
     6000,
     {163.4, 1307.4, 1307.4, 2614.9, 0, 0},
     8,
     {"infinity-fabric", 8, 448, 3},
     {"roce-400g", 0, 50, 8},
     {304, 2100, 2100, 256, 256, 256, 0, 0, 0, 0, 0, 2100},
     {0, 0, 0},
     .src = {[S_MEM] = "published: AMD Instinct MI325X datasheet: 256 GB HBM3E",
             [S_MEM_BW] = "published: AMD Instinct MI325X datasheet: 6 TB/s",
             [S_DPN] = "published: AMD Instinct MI325X platform: 8 GPUs on Infinity Fabric",
             [S_FP32] = "published: AMD Instinct MI325X datasheet: FP32 matrix 163.4 TFLOP/s",
             [S_BF16] = "published: AMD Instinct MI325X datasheet: BF16/FP16 dense 1307.4 TFLOP/s",
             [S_FP16] = "published: AMD Instinct MI325X datasheet: BF16/FP16 dense 1307.4 TFLOP/s",
             [S_FP8] = "published: AMD Instinct MI325X datasheet: FP8 dense 2614.9 TFLOP/s",
             [S_MXFP8] = SRC_NO_MX,
             [S_NVFP4] = SRC_NO_FP4,
             [S_MXFP4] = SRC_NO_MXFP4,
             [S_SMS] = "published: AMD Instinct MI325X datasheet: 304 CUs (the CDNA3 die of the "
                       "MI300X)",
             [S_BOOST] = "published: AMD Instinct MI325X datasheet: 2100 MHz peak engine clock "
                         "(304 x 2048 x 2.1 GHz = 1307 TF)",
             [S_SUSTAINED] = "convention: the peak clock: no sustained clock published",
             [S_MAX_CLOCK] = SRC_AMD_MAX,
             [S_TILE_M] = "code: ROCm/hipBLASLt macro tile 256x256 on CDNA3",
             [S_TILE_N] = "code: ROCm/hipBLASLt macro tile 256x256 on CDNA3",
             [S_L2] =
                 "published: AMD CDNA3 whitepaper: 256 MB Infinity Cache, the last-level cache",
             [S_GEMM_EFF] = "convention: 0 = not given: no published hipBLASLt figure read (the "
                            "0.8 fallback applies)",
             [S_ATTN_FWD] = "convention: 0 = not given: the GEMM efficiency applies",
             [S_ATTN_BWD] = "convention: 0 = not given: the GEMM efficiency applies",
             [S_HOST_LINK] = SRC_NO_HOST,
             [S_HOST_MEM] = SRC_NO_HOST,
             [S_HOST_MEM_BW] = SRC_NO_HOST,
             [S_L0_SIZE] = "published: AMD Instinct MI325X platform: 8 GPUs on Infinity Fabric",
             [S_L0_BW] = "derived: MI325X platform: 7 Infinity Fabric links x 128 GB/s "
                         "bidirectional = 64 per direction to each of the 7 peers = 448",
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = "convention: a 400 Gb/s NIC per GPU = 50 GB/s, as the MI300X platform",
             [S_L1_LAT] = SRC_LAT1},
     .family = "MI300X"},
    /* AMD Instinct MI355X (datasheet; CDNA4): 288 GB HBM3E at 8 TB/s; 256 CUs at 2400 MHz:
     * BF16/FP16 dense 2.5 PF (256 x 4096 x 2.4 GHz), FP8 and MXFP8 5 PF (8192 per CU per
     * clock), MXFP4 10 PF (no NVFP4), FP32 157.3 TF; 256 MB Infinity Cache. 8-GPU
     * platform: 7 Infinity Fabric links, 1075 GB/s total per GPU = 537.6 per direction; a
     * Pollara 400 Gb/s NIC per GPU. */
    {"MI355X",
     288,
     8000,
     {157.3, 2516.6, 2516.6, 5033.2, 5033.2, 0, 10066.3},
     8,
     {"infinity-fabric", 8, 537.6, 3},
     {"roce-400g", 0, 50, 8},
     {256, 2400, 2400, 256, 256, 256, 0, 0, 0, 0, 0, 2400},
     {0, 0, 0},
     .src = {[S_MEM] = "published: AMD Instinct MI355X datasheet: 288 GB HBM3E",
             [S_MEM_BW] = "published: AMD Instinct MI355X datasheet: 8 TB/s",
             [S_DPN] = "published: AMD Instinct MI355X platform: 8 GPUs on Infinity Fabric",
             [S_FP32] = "published: AMD Instinct MI355X datasheet: FP32 vector 157.3 TFLOP/s",
             [S_BF16] = SRC_MI355_BF16,
             [S_FP16] = SRC_MI355_BF16,
             [S_FP8] = SRC_MI355_FP8,
             [S_MXFP8] = SRC_MI355_FP8,
             [S_NVFP4] = "convention: 0 = unsupported: CDNA4 runs OCP MXFP4 (E8M0 scales per 32 "
                         "elements, 10 PF dense), not NVFP4",
             [S_MXFP4] = SRC_MI355_MXFP4,
             [S_SMS] = "published: AMD Instinct MI355X datasheet: 256 CUs (32 per XCD, ISSCC "
                       "2026)",
             [S_BOOST] = "published: AMD Instinct MI355X datasheet: 2400 MHz peak engine clock "
                         "(256 x 4096 x 2.4 GHz = 2516.6 TF)",
             [S_SUSTAINED] = "convention: the peak clock: no sustained clock published",
             [S_MAX_CLOCK] = SRC_AMD_MAX,
             [S_TILE_M] = "convention: CDNA3's hipBLASLt macro tile 256x256 (no CDNA4 figure read)",
             [S_TILE_N] = "convention: CDNA3's hipBLASLt macro tile 256x256 (no CDNA4 figure read)",
             [S_L2] = "published: AMD CDNA4 whitepaper: 256 MB Infinity Cache, the last-level "
                      "cache",
             [S_GEMM_EFF] = "convention: 0 = not given: no published hipBLASLt figure read (the "
                            "0.8 fallback applies)",
             [S_GEMM_EFF_MXFP4] = SRC_MI355_EFF_MX4,
             [S_ATTN_FWD] = "convention: 0 = not given: the GEMM efficiency applies",
             [S_ATTN_BWD] = "convention: 0 = not given: the GEMM efficiency applies",
             [S_HOST_LINK] = SRC_NO_HOST,
             [S_HOST_MEM] = SRC_NO_HOST,
             [S_HOST_MEM_BW] = SRC_NO_HOST,
             [S_L0_SIZE] = "published: AMD Instinct MI355X platform: 8 GPUs on Infinity Fabric",
             [S_L0_BW] = "derived: AMD Instinct MI355X datasheet: Infinity Fabric 1075.2 GB/s "
                         "total over 7 links = 537.6 per direction",
             [S_L0_LAT] = SRC_LAT0,
             [S_L1_BW] = "published: AMD Instinct MI355X platform: a Pensando Pollara 400 Gb/s "
                         "NIC per GPU = 50 GB/s",
             [S_L1_LAT] = SRC_LAT1}},
    /* Huawei Ascend 910B (public Huawei material; less precise than the others): 64 GB
     * HBM2e at about 1.6 TB/s, about 320 TF FP16 (BF16 the same); FP32 and FP8 peaks are
     * not published (0). Atlas 800T A2: 8 NPUs, HCCS 392 GB/s total = 196 per direction,
     * 8 x 200 GbE RoCE = 25 GB/s per NPU. AI-core count, clock and cube tiling are not
     * published precisely: no tile/wave quantisation (0). */
    {"Ascend-910B",
     64,
     1600,
     {0, 320, 320, 0, 0},
     8,
     {"hccs", 8, 196, 3},
     {"roce-200g", 0, 25, 8},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0},
     .src =
         {[S_MEM] =
              "published: public Huawei material (Ascend 910B; less precise than the "
              "datasheets): 64 GB HBM2e",
          [S_MEM_BW] = "published: public Huawei material (Ascend 910B; less precise than the "
                       "datasheets): about 1.6 TB/s",
          [S_DPN] =
              "published: public Huawei material (Ascend 910B; less precise than the datasheets): "
              "Atlas 800T A2, 8 NPUs",
          [S_FP32] = "convention: 0 = not published",
          [S_BF16] = "published: public Huawei material (Ascend 910B; less precise than the "
                     "datasheets): about 320 TFLOP/s FP16, BF16 the same",
          [S_FP16] = "published: public Huawei material (Ascend 910B; less precise than the "
                     "datasheets): about 320 TFLOP/s FP16",
          [S_FP8] = "convention: 0 = not published",
          [S_MXFP8] = SRC_NO_MX,
          [S_NVFP4] = SRC_NO_FP4,
          [S_MXFP4] = SRC_NO_MXFP4,
          [S_SMS] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_BOOST] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_SUSTAINED] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_MAX_CLOCK] = SRC_MAX_NONE,
          [S_TILE_M] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_TILE_N] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_L2] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_GEMM_EFF] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_ATTN_FWD] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_ATTN_BWD] =
              "convention: 0 = not published precisely: no tile/wave quantisation, fallbacks apply",
          [S_HOST_LINK] = SRC_NO_HOST,
          [S_HOST_MEM] = SRC_NO_HOST,
          [S_HOST_MEM_BW] = SRC_NO_HOST,
          [S_L0_SIZE] = "published: public Huawei material (Ascend 910B; less precise than the "
                        "datasheets): Atlas 800T A2, 8 NPUs on HCCS",
          [S_L0_BW] = "derived: Atlas 800T A2 HCCS 392 GB/s total = 196 per direction",
          [S_L0_LAT] = SRC_LAT0,
          [S_L1_BW] = "derived: Atlas 800T A2 8 x 200 GbE RoCE = 25 GB/s per NPU",
          [S_L1_LAT] = SRC_LAT1}},
};

static void set_error(GError **error, int code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void set_error(GError **error, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(error, PRISM_INPUT_ERROR, code, msg);
}

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
    return G_N_ELEMENTS(presets);
}

const char *prism_cluster_preset_name(size_t i)
{
    return i < G_N_ELEMENTS(presets) ? presets[i].name : NULL;
}

const char *const *prism_cluster_source_keys(void)
{
    return source_keys;
}

const char *prism_cluster_preset_source(const char *name, const char *key)
{
    for (size_t i = 0; i < G_N_ELEMENTS(presets); i++)
        if (g_ascii_strcasecmp(name, presets[i].name) == 0)
            for (int k = 0; k < S_COUNT; k++)
                if (strcmp(key, source_keys[k]) == 0)
                    return k == S_GEMM_EFF_NVFP4 && presets[i].src[k] == NULL &&
                                   !(presets[i].tflops[P_NVFP4] > 0)
                               ? SRC_NO_EFF4
                           : k == S_GEMM_EFF_MXFP4 && presets[i].src[k] == NULL &&
                                   !(presets[i].tflops[P_MXFP4] > 0)
                               ? SRC_NO_EFF_MX4
                               : presets[i].src[k];
    return NULL;
}

PrismCluster *prism_cluster_preset(const char *name, GError **error)
{
    g_return_val_if_fail(name != NULL, NULL);
    const char *names[G_N_ELEMENTS(presets)];
    for (size_t i = 0; i < G_N_ELEMENTS(presets); i++)
        names[i] = presets[i].name;
    const size_t found = prism_name_lookup(name, names, G_N_ELEMENTS(names));
    if (found < G_N_ELEMENTS(presets)) {
        const Preset *p = &presets[found];
        PrismCluster *c = g_new0(PrismCluster, 1);
        c->name = g_strdup(p->name);
        c->mem_bytes = p->mem_gib * GIB;
        c->mem_bw_GBps = p->mem_bw_GBps;
        c->peak_flops[PRISM_DTYPE_FP32] = p->tflops[P_FP32] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_BF16] = p->tflops[P_BF16] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_FP16] = p->tflops[P_FP16] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_FP8] = p->tflops[P_FP8] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_FP8_CS] = p->tflops[P_FP8] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_MXFP8] = p->tflops[P_MXFP8] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_NVFP4] = p->tflops[P_NVFP4] * TFLOPS;
        c->peak_flops[PRISM_DTYPE_MXFP4] = p->tflops[P_MXFP4] * TFLOPS;
        g_autofree char *fam = prism_device_family(p->name);
        g_strlcpy(c->family, fam, sizeof c->family);
        c->sm_count = p->dev.sms;
        c->boost_clock_mhz = p->dev.boost_mhz;
        c->sustained_clock_mhz = p->dev.sustained_mhz;
        c->max_clock_mhz = p->dev.max_mhz;
        c->gemm_tile_m = p->dev.tile_m;
        c->gemm_tile_n = p->dev.tile_n;
        c->l2_mib = p->dev.l2_mib;
        c->attn_fwd_fraction = p->dev.attn_fwd;
        c->attn_bwd_fraction = p->dev.attn_bwd;
        c->gemm_efficiency = p->dev.gemm_eff;
        c->gemm_eff_nvfp4 = p->dev.gemm_eff_nvfp4;
        c->gemm_eff_mxfp4 = p->dev.gemm_eff_mxfp4;
        c->host_link_GBps = p->host.link_GBps;
        c->host_mem_bytes = p->host.mem_gib * GIB;
        c->host_mem_bw_GBps = p->host.mem_bw_GBps;
        c->devices_per_node = p->devices_per_node;
        c->n_levels = 2;
        c->levels[0] = p->intra;
        c->levels[1] = p->inter;
        return c;
    }
    g_autofree char *close = prism_close_names(name, names, G_N_ELEMENTS(names), 3);
    set_error(error, PRISM_INPUT_ERROR_UNKNOWN_NAME,
              "unknown cluster '%s' (closest: %s; `prism clusters` lists all, or give a path "
              "to a cluster key file)",
              name, close);
    return NULL;
}

/* The part of a name before its first '-' (the preset naming rule; whole when none). */
static char *name_stem(const char *name)
{
    const char *dash = strchr(name, '-');
    return dash != NULL && dash > name ? g_strndup(name, (gsize)(dash - name)) : g_strdup(name);
}

/* The device family of a cluster name (cluster.h): a preset's declared family (the
 * compute die: "B200" for GB200-NVL72), else the part before its first '-'. */
char *prism_device_family(const char *cluster_name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(presets); i++)
        if (g_ascii_strcasecmp(cluster_name, presets[i].name) == 0 && presets[i].family != NULL)
            return g_strdup(presets[i].family);
    return name_stem(cluster_name);
}

/* Keys of the key file. */
static const char *const cluster_keys[] = {"name",
                                           "base",
                                           "family",
                                           "nodes",
                                           "devices",
                                           "memory_gib",
                                           "memory_bandwidth_GBps",
                                           "devices_per_node",
                                           "peak_tflops_fp32",
                                           "peak_tflops_bf16",
                                           "peak_tflops_fp16",
                                           "peak_tflops_fp8",
                                           "peak_tflops_mxfp8",
                                           "peak_tflops_nvfp4",
                                           "peak_tflops_mxfp4",
                                           "sm_count",
                                           "boost_clock_mhz",
                                           "sustained_clock_mhz",
                                           "max_clock_mhz",
                                           "gemm_tile_m",
                                           "gemm_tile_n",
                                           "l2_mib",
                                           "gemm_efficiency",
                                           "gemm_efficiency_nvfp4",
                                           "gemm_efficiency_mxfp4",
                                           "attn_fwd_fraction",
                                           "attn_bwd_fraction",
                                           "host_link_GBps",
                                           "host_memory_gib",
                                           "host_memory_bandwidth_GBps",
                                           NULL};
static const char *const level_keys[] = {"name",
                                         "size",
                                         "bandwidth_GBps",
                                         "latency_us",
                                         "gather_bandwidth_GBps",
                                         "nccl_hop_ll_us",
                                         "nccl_hop_ll128_us",
                                         "nccl_hop_simple_us",
                                         NULL};
/* the optional per-protocol ring-step latencies of a level, in PrismCluster.nccl_hop_us order */
static const char *const level_hop_keys[3] = {"nccl_hop_ll_us", "nccl_hop_ll128_us",
                                              "nccl_hop_simple_us"};

const char *prism_cluster_hop_key(unsigned p)
{
    return p < 3 ? level_hop_keys[p] : NULL;
}

static gboolean in_list(const char *key, const char *const *list)
{
    for (; *list != NULL; list++)
        if (strcmp(key, *list) == 0)
            return TRUE;
    return FALSE;
}

/*
 * Read [group] key as a finite number. Missing: *present = FALSE (or an error when
 * @p required). Not a number: PRISM_INPUT_ERROR_PARSE naming file, group, key, value.
 */
static gboolean get_number(GKeyFile *kf, const char *path, const char *group, const char *key,
                           gboolean required, double *out, gboolean *present, GError **error)
{
    if (present != NULL)
        *present = FALSE;
    if (!g_key_file_has_key(kf, group, key, NULL)) {
        if (!required)
            return TRUE;
        set_error(error, PRISM_INPUT_ERROR_MISSING, "%s: [%s] %s is missing", path, group, key);
        return FALSE;
    }
    g_autofree char *raw = g_key_file_get_value(kf, group, key, NULL);
    char *text = g_strstrip(raw);
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(text, &end);
    if (text[0] == '\0' || end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) {
        set_error(error, PRISM_INPUT_ERROR_PARSE, "%s: [%s] %s = '%s' is not a finite number", path,
                  group, key, text);
        return FALSE;
    }
    *out = v;
    if (present != NULL)
        *present = TRUE;
    return TRUE;
}

/*
 * Physical ranges of the device numbers a cluster file gives. Below them a value is
 * degenerate though finite (peak_tflops_bf16 = 1e-300 made a step take 10^300 s), above
 * them it overflows (memory_gib = 1e300 is infinite in bytes). A GFLOP/s and a MB/s are
 * already a million times slower than any accelerator; an EFLOP/s, a PB/s and a PiB per
 * device a thousand times beyond any.
 */
#define RANGE_TFLOPS_MIN 1e-3
#define RANGE_TFLOPS_MAX 1e6
#define RANGE_GBPS_MIN 1e-3
#define RANGE_GBPS_MAX 1e6
#define RANGE_GIB_MAX 1048576.0
#define RANGE_LATENCY_US_MAX 1e6
/* a ring step's latency: at least a nanosecond (0 = NCCL's own figure) */
#define RANGE_HOP_US_MIN 1e-3

/* @p v within [lo, hi] (or exactly 0 when @p zero_ok); else one message with the range. */
static gboolean in_range(const char *path, const char *group, const char *key, double v, double lo,
                         double hi, gboolean zero_ok, const char *unit, GError **error)
{
    if ((zero_ok && v == 0) || (v >= lo && v <= hi))
        return TRUE;
    set_error(error, PRISM_INPUT_ERROR_VALUE,
              "%s: [%s] %s = %g is out of range: allowed %s%g to %g %s", path, group, key, v,
              zero_ok ? "0 (not given) or " : "", lo, hi, unit);
    return FALSE;
}

/* A positive whole number (sizes, counts) below 2^31. */
static gboolean get_count(GKeyFile *kf, const char *path, const char *group, const char *key,
                          gboolean required, uint32_t *out, gboolean *present, GError **error)
{
    double v = 0;
    gboolean have = FALSE;
    if (!get_number(kf, path, group, key, required, &v, &have, error))
        return FALSE;
    if (present != NULL)
        *present = have;
    if (!have)
        return TRUE;
    if (v < 1 || v > 2147483647.0 || v != floor(v)) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "%s: [%s] %s = %g must be a whole number >= 1",
                  path, group, key, v);
        return FALSE;
    }
    *out = (uint32_t)v;
    return TRUE;
}

static gboolean check_keys(GKeyFile *kf, const char *path, const char *group,
                           const char *const *allowed, GError **error)
{
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
    for (char **k = keys; k != NULL && *k != NULL; k++)
        if (!in_list(*k, allowed)) {
            g_autofree char *list = g_strjoinv(", ", (char **)allowed);
            set_error(error, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                      "%s: [%s] unknown key '%s' (allowed: %s)", path, group, *k, list);
            return FALSE;
        }
    return TRUE;
}

/* "level.N" with N a decimal number; returns N or -1. */
static int level_index(const char *group)
{
    if (!g_str_has_prefix(group, "level."))
        return -1;
    const char *digits = group + 6;
    if (digits[0] < '0' || digits[0] > '9' || strlen(digits) > 3)
        return -1;
    for (const char *p = digits; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    return atoi(digits);
}

static gboolean read_level(GKeyFile *kf, const char *path, const char *group, gboolean last,
                           PrismNetLevel *lv, double *gather_bw, double *hop_us, GError **error)
{
    if (!check_keys(kf, path, group, level_keys, error))
        return FALSE;
    g_autofree char *name = g_key_file_get_value(kf, group, "name", NULL);
    g_strlcpy(lv->name, name != NULL && name[0] != '\0' ? g_strstrip(name) : group,
              sizeof lv->name);
    gboolean have_size = FALSE;
    lv->size = 0;
    if (!get_count(kf, path, group, "size", !last, &lv->size, &have_size, error))
        return FALSE;
    if (last && have_size) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [%s] size = %u: the last level spans the whole machine, leave size out",
                  path, group, lv->size);
        return FALSE;
    }
    if (!get_number(kf, path, group, "bandwidth_GBps", TRUE, &lv->bw_GBps, NULL, error))
        return FALSE;
    if (lv->bw_GBps <= 0) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "%s: [%s] bandwidth_GBps = %g must be > 0", path,
                  group, lv->bw_GBps);
        return FALSE;
    }
    if (!in_range(path, group, "bandwidth_GBps", lv->bw_GBps, RANGE_GBPS_MIN, RANGE_GBPS_MAX, FALSE,
                  "GB/s", error))
        return FALSE;
    lv->latency_us = 0;
    if (!get_number(kf, path, group, "latency_us", TRUE, &lv->latency_us, NULL, error))
        return FALSE;
    if (lv->latency_us < 0) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "%s: [%s] latency_us = %g must be >= 0", path,
                  group, lv->latency_us);
        return FALSE;
    }
    if (!in_range(path, group, "latency_us", lv->latency_us, 0, RANGE_LATENCY_US_MAX, FALSE, "us",
                  error))
        return FALSE;
    /* optional: the bus bandwidth NCCL reaches on all-gather and reduce-scatter (rings), which
     * can sit below the all-reduce figure (trees, NVLink SHARP); 0 = bandwidth_GBps */
    *gather_bw = 0;
    gboolean have_gather = FALSE;
    if (!get_number(kf, path, group, "gather_bandwidth_GBps", FALSE, gather_bw, &have_gather,
                    error))
        return FALSE;
    if (have_gather && !in_range(path, group, "gather_bandwidth_GBps", *gather_bw, RANGE_GBPS_MIN,
                                 RANGE_GBPS_MAX, FALSE, "GB/s", error))
        return FALSE;
    /* optional: the latency of one NCCL ring step on this level per protocol, where the
     * fabric's own figure differs from NCCL's (InfiniBand and NVLink) ones; 0 = NCCL's */
    for (int p = 0; p < 3; p++) {
        hop_us[p] = 0;
        if (!get_number(kf, path, group, level_hop_keys[p], FALSE, &hop_us[p], NULL, error))
            return FALSE;
        if (!in_range(path, group, level_hop_keys[p], hop_us[p], RANGE_HOP_US_MIN,
                      RANGE_LATENCY_US_MAX, TRUE, "us", error))
            return FALSE;
    }
    return TRUE;
}

/* An optional number >= 0 (and <= @p max); missing = 0 ("not given"). */
static gboolean get_attr(GKeyFile *kf, const char *path, const char *key, double max, double *out,
                         GError **error)
{
    *out = 0;
    if (!get_number(kf, path, "cluster", key, FALSE, out, NULL, error))
        return FALSE;
    if (*out < 0 || *out > max) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [cluster] %s = %g must be between 0 and %g (0 or missing = not given)", path,
                  key, *out, max);
        return FALSE;
    }
    return TRUE;
}

/* The GEMM model's device attributes (all optional). */
static gboolean read_device(GKeyFile *kf, const char *path, PrismCluster *c, GError **error)
{
    gboolean have = FALSE;
    if (!get_count(kf, path, "cluster", "sm_count", FALSE, &c->sm_count, &have, error) ||
        !get_count(kf, path, "cluster", "gemm_tile_m", FALSE, &c->gemm_tile_m, &have, error) ||
        !get_count(kf, path, "cluster", "gemm_tile_n", FALSE, &c->gemm_tile_n, &have, error) ||
        !get_attr(kf, path, "boost_clock_mhz", 1e5, &c->boost_clock_mhz, error) ||
        !get_attr(kf, path, "sustained_clock_mhz", 1e5, &c->sustained_clock_mhz, error) ||
        !get_attr(kf, path, "max_clock_mhz", 1e5, &c->max_clock_mhz, error) ||
        !get_attr(kf, path, "l2_mib", 1e6, &c->l2_mib, error) ||
        !get_attr(kf, path, "gemm_efficiency", 1.0, &c->gemm_efficiency, error) ||
        !get_attr(kf, path, "gemm_efficiency_nvfp4", 1.0, &c->gemm_eff_nvfp4, error) ||
        !get_attr(kf, path, "gemm_efficiency_mxfp4", 1.0, &c->gemm_eff_mxfp4, error) ||
        !get_attr(kf, path, "attn_fwd_fraction", 1.0, &c->attn_fwd_fraction, error) ||
        !get_attr(kf, path, "attn_bwd_fraction", 1.0, &c->attn_bwd_fraction, error))
        return FALSE;
    /* the host (offloading): the GB/s and GiB ranges of the device numbers */
    double host_gib = 0;
    if (!get_attr(kf, path, "host_link_GBps", RANGE_GBPS_MAX, &c->host_link_GBps, error) ||
        !get_attr(kf, path, "host_memory_gib", RANGE_GIB_MAX, &host_gib, error) ||
        !get_attr(kf, path, "host_memory_bandwidth_GBps", RANGE_GBPS_MAX, &c->host_mem_bw_GBps,
                  error))
        return FALSE;
    c->host_mem_bytes = host_gib * GIB;
    if (c->sustained_clock_mhz > 0 && c->boost_clock_mhz <= 0) {
        set_error(error, PRISM_INPUT_ERROR_MISSING,
                  "%s: [cluster] sustained_clock_mhz = %g needs boost_clock_mhz (the clock the "
                  "peaks are stated at)",
                  path, c->sustained_clock_mhz);
        return FALSE;
    }
    if (c->sustained_clock_mhz == 0)
        c->sustained_clock_mhz = c->boost_clock_mhz;
    if (c->max_clock_mhz > 0 && c->max_clock_mhz < c->sustained_clock_mhz) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [cluster] max_clock_mhz = %g is below the sustained clock %g MHz (allowed: "
                  "0 = not given, or the highest clock the part runs under load, >= the "
                  "sustained clock)",
                  path, c->max_clock_mhz, c->sustained_clock_mhz);
        return FALSE;
    }
    return TRUE;
}

/* The keys of a preset as a key file gives them: the table's own decimal values, so a
 * file `base = NAME` and nothing else reads back the preset bit for bit. */
static void preset_to_keyfile(const Preset *p, GKeyFile *kf)
{
    const struct {
        const char *key;
        double v;
    } t[] = {{"memory_gib", p->mem_gib},
             {"memory_bandwidth_GBps", p->mem_bw_GBps},
             {"devices_per_node", p->devices_per_node},
             {"peak_tflops_fp32", p->tflops[P_FP32]},
             {"peak_tflops_bf16", p->tflops[P_BF16]},
             {"peak_tflops_fp16", p->tflops[P_FP16]},
             {"peak_tflops_fp8", p->tflops[P_FP8]},
             {"peak_tflops_mxfp8", p->tflops[P_MXFP8]},
             {"peak_tflops_nvfp4", p->tflops[P_NVFP4]},
             {"peak_tflops_mxfp4", p->tflops[P_MXFP4]},
             {"boost_clock_mhz", p->dev.boost_mhz},
             {"sustained_clock_mhz", p->dev.sustained_mhz},
             {"max_clock_mhz", p->dev.max_mhz},
             {"l2_mib", p->dev.l2_mib},
             {"gemm_efficiency", p->dev.gemm_eff},
             {"gemm_efficiency_nvfp4", p->dev.gemm_eff_nvfp4},
             {"gemm_efficiency_mxfp4", p->dev.gemm_eff_mxfp4},
             {"attn_fwd_fraction", p->dev.attn_fwd},
             {"attn_bwd_fraction", p->dev.attn_bwd},
             {"host_link_GBps", p->host.link_GBps},
             {"host_memory_gib", p->host.mem_gib},
             {"host_memory_bandwidth_GBps", p->host.mem_bw_GBps}};
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        g_key_file_set_value(kf, "cluster", t[i].key, g_ascii_dtostr(buf, sizeof buf, t[i].v));
    /* counts >= 1 where given (0 = not given: the key stays out) */
    const struct {
        const char *key;
        uint32_t v;
    } n[] = {
        {"sm_count", p->dev.sms}, {"gemm_tile_m", p->dev.tile_m}, {"gemm_tile_n", p->dev.tile_n}};
    for (size_t i = 0; i < G_N_ELEMENTS(n); i++)
        if (n[i].v > 0)
            g_key_file_set_integer(kf, "cluster", n[i].key, (gint)n[i].v);
    g_autofree char *family = prism_device_family(p->name);
    g_key_file_set_string(kf, "cluster", "family", family);
    const PrismNetLevel *lv[2] = {&p->intra, &p->inter};
    for (int i = 0; i < 2; i++) {
        char group[16];
        g_snprintf(group, sizeof group, "level.%d", i);
        g_key_file_set_string(kf, group, "name", lv[i]->name);
        if (i == 0)
            g_key_file_set_integer(kf, group, "size", (gint)lv[i]->size);
        g_key_file_set_value(kf, group, "bandwidth_GBps",
                             g_ascii_dtostr(buf, sizeof buf, lv[i]->bw_GBps));
        g_key_file_set_value(kf, group, "latency_us",
                             g_ascii_dtostr(buf, sizeof buf, lv[i]->latency_us));
    }
}

/* A file `base = NAME`: the preset's keys with the file's on top (every group and key the
 * file gives replaces or adds to the preset's); NULL with an error naming the file, the
 * key and the presets when NAME is not one. */
static GKeyFile *merge_base(GKeyFile *kf, const char *path, GError **error)
{
    g_autofree char *base = g_key_file_get_value(kf, "cluster", "base", NULL);
    g_strstrip(base);
    const Preset *p = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(presets) && p == NULL; i++)
        if (g_ascii_strcasecmp(base, presets[i].name) == 0)
            p = &presets[i];
    if (p == NULL) {
        g_autoptr(GString) list = g_string_new(NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(presets); i++)
            g_string_append_printf(list, "%s%s", i ? ", " : "", presets[i].name);
        set_error(error, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                  "%s: [cluster] base = '%s' is not a preset (allowed: %s)", path, base, list->str);
        return NULL;
    }
    GKeyFile *m = g_key_file_new();
    preset_to_keyfile(p, m);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (char **g = groups; *g != NULL; g++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; k != NULL && *k != NULL; k++) {
            if (strcmp(*g, "cluster") == 0 && strcmp(*k, "base") == 0)
                continue;
            g_autofree char *v = g_key_file_get_value(kf, *g, *k, NULL);
            g_key_file_set_value(m, *g, *k, v);
        }
    }
    /* a file that adds an outer level makes the preset's last level an inner one: it
     * then needs a size, which the file must give (the reader says so) */
    return m;
}

/* The keys a file without a base leaves out whose absence the cost model fills with a
 * generic default (cluster.h, PrismCluster.generic). */
static void note_generic(GKeyFile *kf, PrismCluster *c)
{
    static const char *const keys[] = {"memory_bandwidth_GBps",
                                       "sm_count",
                                       "gemm_tile_m",
                                       "gemm_tile_n",
                                       "boost_clock_mhz",
                                       "gemm_efficiency",
                                       "attn_fwd_fraction",
                                       "attn_bwd_fraction",
                                       "host_link_GBps",
                                       "host_memory_gib",
                                       "host_memory_bandwidth_GBps"};
    g_autoptr(GString) s = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
        if (!g_key_file_has_key(kf, "cluster", keys[i], NULL))
            g_string_append_printf(s, "%s%s", s->len ? ", " : "", keys[i]);
    g_strlcpy(c->generic, s->str, sizeof c->generic);
}

/* The key file is loaded; @p path names it in messages. */
static PrismCluster *cluster_from_keyfile(GKeyFile *kf, const char *path, GError **error)
{
    if (!g_key_file_has_group(kf, "cluster")) {
        set_error(error, PRISM_INPUT_ERROR_MISSING, "%s: group [cluster] is missing", path);
        return NULL;
    }
    g_autoptr(GKeyFile) merged = NULL;
    const gboolean has_base = g_key_file_has_key(kf, "cluster", "base", NULL);
    if (has_base) {
        merged = merge_base(kf, path, error);
        if (merged == NULL)
            return NULL;
    }
    GKeyFile *user = kf; /* the file as written: its keys decide the generic list */
    if (merged != NULL)
        kf = merged;
    /* Groups: [cluster] and [level.0] .. [level.K-1], contiguous. */
    int n_levels = 0;
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    for (char **g = groups; *g != NULL; g++) {
        if (strcmp(*g, "cluster") == 0)
            continue;
        int idx = level_index(*g);
        if (idx < 0) {
            set_error(error, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                      "%s: unknown group [%s] (allowed: [cluster], [level.0] .. [level.%d])", path,
                      *g, PRISM_MAX_LEVELS - 1);
            return NULL;
        }
        if (idx >= PRISM_MAX_LEVELS) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "%s: [%s]: at most %d levels are supported ([level.0] .. [level.%d])", path,
                      *g, PRISM_MAX_LEVELS, PRISM_MAX_LEVELS - 1);
            return NULL;
        }
        n_levels = MAX(n_levels, idx + 1);
    }
    if (n_levels == 0) {
        set_error(error, PRISM_INPUT_ERROR_MISSING,
                  "%s: no network level: add [level.0] (inside a node) and [level.1] "
                  "(between nodes)",
                  path);
        return NULL;
    }
    for (int i = 0; i < n_levels; i++) {
        char group[32];
        g_snprintf(group, sizeof group, "level.%d", i);
        if (!g_key_file_has_group(kf, group)) {
            set_error(error, PRISM_INPUT_ERROR_MISSING,
                      "%s: group [%s] is missing (levels are numbered 0, 1, ... without gaps)",
                      path, group);
            return NULL;
        }
    }
    if (!check_keys(kf, path, "cluster", cluster_keys, error))
        return NULL;

    g_autoptr(PrismCluster) c = g_new0(PrismCluster, 1);
    g_autofree char *name = g_key_file_get_value(kf, "cluster", "name", NULL);
    if (name != NULL && g_strstrip(name)[0] != '\0') {
        c->name = g_strdup(name);
    } else {
        g_autofree char *base = g_path_get_basename(path);
        c->name = g_strdup(base);
    }
    double mem_gib = 0;
    if (!get_number(kf, path, "cluster", "memory_gib", TRUE, &mem_gib, NULL, error))
        return NULL;
    if (mem_gib <= 0) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "%s: [cluster] memory_gib = %g must be > 0", path,
                  mem_gib);
        return NULL;
    }
    if (!in_range(path, "cluster", "memory_gib", mem_gib, 1.0 / 1024, RANGE_GIB_MAX, FALSE,
                  "GiB per device", error))
        return NULL;
    c->mem_bytes = mem_gib * GIB;
    double mem_bw = 0;
    if (!get_number(kf, path, "cluster", "memory_bandwidth_GBps", FALSE, &mem_bw, NULL, error))
        return NULL;
    if (mem_bw < 0) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [cluster] memory_bandwidth_GBps = %g must be >= 0 (GB/s; 0 or missing = "
                  "not given)",
                  path, mem_bw);
        return NULL;
    }
    if (!in_range(path, "cluster", "memory_bandwidth_GBps", mem_bw, RANGE_GBPS_MIN, RANGE_GBPS_MAX,
                  TRUE, "GB/s", error))
        return NULL;
    c->mem_bw_GBps = mem_bw;
    /* fp8-cs has no key: it runs on the fp8 peak (copied below) */
    static const char *const peak_keys[PRISM_DTYPE_COUNT] = {
        "peak_tflops_fp32",  "peak_tflops_bf16",  "peak_tflops_fp16", "peak_tflops_fp8", NULL,
        "peak_tflops_mxfp8", "peak_tflops_nvfp4", "peak_tflops_mxfp4"};
    gboolean any_peak = FALSE;
    for (int d = 0; d < PRISM_DTYPE_COUNT; d++) {
        if (peak_keys[d] == NULL)
            continue;
        double v = 0;
        gboolean have = FALSE;
        if (!get_number(kf, path, "cluster", peak_keys[d], FALSE, &v, &have, error))
            return NULL;
        if (have && v < 0) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "%s: [cluster] %s = %g must be >= 0 (0 = unsupported)", path, peak_keys[d],
                      v);
            return NULL;
        }
        if (have && !in_range(path, "cluster", peak_keys[d], v, RANGE_TFLOPS_MIN, RANGE_TFLOPS_MAX,
                              TRUE, "TFLOP/s", error))
            return NULL;
        c->peak_flops[d] = v * TFLOPS;
        any_peak = any_peak || v > 0;
    }
    c->peak_flops[PRISM_DTYPE_FP8_CS] = c->peak_flops[PRISM_DTYPE_FP8];
    if (!any_peak) {
        set_error(error, PRISM_INPUT_ERROR_MISSING,
                  "%s: [cluster] needs at least one "
                  "peak_tflops_{fp32,bf16,fp16,fp8,mxfp8,nvfp4,mxfp4} > 0",
                  path);
        return NULL;
    }
    if (!read_device(kf, path, c, error))
        return NULL;
    c->n_levels = (uint32_t)n_levels;
    for (int i = 0; i < n_levels; i++) {
        char group[32];
        g_snprintf(group, sizeof group, "level.%d", i);
        if (!read_level(kf, path, group, i == n_levels - 1, &c->levels[i], &c->gather_bw_GBps[i],
                        c->nccl_hop_us[i], error))
            return NULL;
    }
    gboolean have_dpn = FALSE;
    if (!get_count(kf, path, "cluster", "devices_per_node", FALSE, &c->devices_per_node, &have_dpn,
                   error))
        return NULL;
    if (!have_dpn)
        c->devices_per_node = n_levels > 1 ? c->levels[0].size : 1;
    /* the device family: its own key (a base's when the file gives none), never the name */
    g_autofree char *family = g_key_file_get_value(kf, "cluster", "family", NULL);
    if (family != NULL && strlen(g_strstrip(family)) >= sizeof c->family) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [cluster] family = '%s' is too long (allowed: up to %zu characters, a "
                  "device family such as H100 or B200)",
                  path, family, sizeof c->family - 1);
        return NULL;
    }
    g_strlcpy(c->family, family != NULL ? family : "", sizeof c->family);
    if (!has_base)
        note_generic(user, c);
    /* the device count: `devices`, or `nodes` x devices_per_node; both must agree */
    uint32_t nodes = 0, devices = 0;
    gboolean have_nodes = FALSE, have_devices = FALSE;
    if (!get_count(kf, path, "cluster", "nodes", FALSE, &nodes, &have_nodes, error) ||
        !get_count(kf, path, "cluster", "devices", FALSE, &devices, &have_devices, error))
        return NULL;
    if (have_nodes && have_devices && (uint64_t)nodes * c->devices_per_node != devices) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [cluster] devices = %u does not match nodes = %u x devices_per_node = %u "
                  "(allowed: devices = %" G_GUINT64_FORMAT ", or leave one of the two out)",
                  path, devices, nodes, c->devices_per_node, (guint64)nodes * c->devices_per_node);
        return NULL;
    }
    if (have_nodes && (uint64_t)nodes * c->devices_per_node > 2147483647u) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "%s: [cluster] nodes = %u x devices_per_node = %u is too many devices", path,
                  nodes, c->devices_per_node);
        return NULL;
    }
    c->file_devices = have_devices ? devices : have_nodes ? nodes * c->devices_per_node : 0;
    GError *invalid = NULL;
    if (!prism_cluster_validate(c, &invalid)) {
        set_error(error, invalid->code, "%s: %s", path, invalid->message);
        g_error_free(invalid);
        return NULL;
    }
    return g_steal_pointer(&c);
}

PrismCluster *prism_cluster_from_data(const char *data, size_t len, const char *label,
                                      GError **error)
{
    g_return_val_if_fail(data != NULL || len == 0, NULL);
    const char *path = label != NULL ? label : "cluster file";
    if (len > (16u << 20)) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "%s: %zu bytes is too large for a cluster file",
                  path, len);
        return NULL;
    }
    g_autoptr(GKeyFile) kf = prism_keyfile_from_data(data, len, path, error);
    if (kf == NULL)
        return NULL;
    return cluster_from_keyfile(kf, path, error);
}

PrismCluster *prism_cluster_from_file(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autofree char *data = NULL;
    gsize len = 0;
    GError *local = NULL;
    if (!g_file_get_contents(path, &data, &len, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            set_error(error, PRISM_INPUT_ERROR_FILE,
                      "%s: no such file (a name holding '/' or ending in .ini, .conf or "
                      ".cluster is read as a cluster key file; `prism clusters` lists the "
                      "presets)",
                      path);
        else
            set_error(error, PRISM_INPUT_ERROR_FILE, "%s: cannot read cluster file: %s", path,
                      local->message);
        g_error_free(local);
        return NULL;
    }
    return prism_cluster_from_data(data, len, path, error);
}

/* A power-limited variant: a preset name ending in a wattage ("H100-96GB-500W"). */
static gboolean power_limited(const char *name)
{
    const size_t n = strlen(name);
    return n > 1 && (name[n - 1] == 'W' || name[n - 1] == 'w') && g_ascii_isdigit(name[n - 2]);
}

/* "80GB", "141GB": the number before GB (GiB for the presets' nominal sizes), else 0. */
static double token_gb(const char *t)
{
    const size_t n = strlen(t);
    if (n < 3 || g_ascii_strcasecmp(t + n - 2, "GB") != 0)
        return 0;
    for (size_t i = 0; i + 2 < n; i++)
        if (!g_ascii_isdigit(t[i]))
            return 0;
    return g_ascii_strtod(t, NULL);
}

char *prism_cluster_preset_for_device(const char *device, double mem_gib, GError **error)
{
    g_return_val_if_fail(device != NULL, NULL);
    const size_t np = G_N_ELEMENTS(presets);
    const char *names[G_N_ELEMENTS(presets)];
    for (size_t i = 0; i < np; i++)
        names[i] = presets[i].name;
    const size_t found = prism_name_lookup(device, names, np);
    if (found < np)
        return g_strdup(names[found]);
    /* the words: vendor names dropped, a size in GB kept as the memory, the family */
    static const char *const vendor[] = {"NVIDIA", "Tesla", "AMD", "Instinct", "Huawei", "GPU"};
    g_auto(GStrv) words = g_strsplit_set(device, " -_/,()", -1);
    const char *family = NULL, *variant = NULL;
    double mem = mem_gib;
    for (char **w = words; *w != NULL; w++) {
        if (**w == '\0')
            continue;
        gboolean skip = FALSE;
        for (size_t v = 0; v < G_N_ELEMENTS(vendor) && !skip; v++)
            skip = g_ascii_strcasecmp(*w, vendor[v]) == 0;
        if (skip)
            continue;
        if (token_gb(*w) > 0) {
            if (!(mem > 0))
                mem = token_gb(*w);
            continue;
        }
        if (g_ascii_strcasecmp(*w, "PCIe") == 0 || g_ascii_strcasecmp(*w, "NVL") == 0)
            variant = *w;
        for (size_t i = 0; i < np && family == NULL; i++) {
            g_autofree char *fam = name_stem(names[i]);
            if (g_ascii_strcasecmp(*w, fam) == 0)
                family = names[i];
        }
    }
    if (family == NULL) {
        g_autofree char *close = prism_close_names(device, names, np, 3);
        set_error(error, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                  "unknown cluster '%s': no preset's name, nor a part of a preset's family in it "
                  "(closest: %s; `prism clusters` lists all, or give a path to a cluster key file)",
                  device, close);
        return NULL;
    }
    g_autofree char *fam = name_stem(family);
    if (variant != NULL) {
        set_error(error, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                  "unknown cluster '%s': the %s %s has no preset (its clocks, power and memory "
                  "differ from the SXM part the %s presets describe); give a cluster key file",
                  device, fam, variant, fam);
        return NULL;
    }
    /* the family's preset closest in memory (the largest when none is given); a
     * power-limited variant only for the memory it alone has, never by default */
    const char *best = NULL;
    double best_d = INFINITY;
    for (size_t i = 0; i < np; i++) {
        g_autofree char *f = name_stem(names[i]);
        if (g_ascii_strcasecmp(f, fam) != 0 || (!(mem > 0) && power_limited(names[i])))
            continue;
        const double d = mem > 0 ? fabs(presets[i].mem_gib - mem) : -presets[i].mem_gib;
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return g_strdup(best);
}

PrismCluster *prism_cluster_resolve(const char *name_or_path, GError **error)
{
    g_return_val_if_fail(name_or_path != NULL, NULL);
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".ini") ||
        g_str_has_suffix(name_or_path, ".conf") || g_str_has_suffix(name_or_path, ".cluster"))
        return prism_cluster_from_file(name_or_path, error);
    /* a preset's name, else a device as vendors and nvidia-smi name it ("H100", "NVIDIA
     * H100 80GB HBM3", "A100-SXM4-40GB") */
    g_autofree char *preset = prism_cluster_preset_for_device(name_or_path, 0, error);
    return preset != NULL ? prism_cluster_preset(preset, error) : NULL;
}

gboolean prism_cluster_validate(const PrismCluster *c, GError **error)
{
    const char *name = c->name != NULL ? c->name : "?";
    if (!(c->mem_bytes > 0) || !isfinite(c->mem_bytes)) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "cluster '%s': memory %g bytes must be > 0", name,
                  c->mem_bytes);
        return FALSE;
    }
    if (!(c->mem_bw_GBps >= 0) || !isfinite(c->mem_bw_GBps)) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "cluster '%s': memory bandwidth %g GB/s must be >= 0 (0 = not given)", name,
                  c->mem_bw_GBps);
        return FALSE;
    }
    gboolean any_peak = FALSE;
    for (int d = 0; d < PRISM_DTYPE_COUNT; d++) {
        if (!(c->peak_flops[d] >= 0) || !isfinite(c->peak_flops[d])) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': peak %s FLOP/s %g must be >= 0", name,
                      prism_dtype_name((PrismDtype)d), c->peak_flops[d]);
            return FALSE;
        }
        any_peak = any_peak || c->peak_flops[d] > 0;
    }
    if (!any_peak) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "cluster '%s': no dtype has a peak > 0", name);
        return FALSE;
    }
    if (c->devices_per_node == 0) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "cluster '%s': devices_per_node must be >= 1",
                  name);
        return FALSE;
    }
    const double dev_attr[] = {c->boost_clock_mhz, c->sustained_clock_mhz, c->max_clock_mhz,
                               c->l2_mib,          c->attn_fwd_fraction,   c->attn_bwd_fraction,
                               c->host_link_GBps,  c->host_mem_bytes,      c->host_mem_bw_GBps,
                               c->gemm_efficiency, c->gemm_eff_nvfp4,      c->gemm_eff_mxfp4};
    for (size_t i = 0; i < G_N_ELEMENTS(dev_attr); i++)
        if (!(dev_attr[i] >= 0) || !isfinite(dev_attr[i])) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': device attribute %g must be finite and >= 0", name,
                      dev_attr[i]);
            return FALSE;
        }
    if (c->attn_fwd_fraction > 1 || c->attn_bwd_fraction > 1) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "cluster '%s': attention fractions %g / %g must be <= 1", name,
                  c->attn_fwd_fraction, c->attn_bwd_fraction);
        return FALSE;
    }
    if (c->gemm_efficiency > 1) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "cluster '%s': gemm_efficiency %g must be <= 1 (a fraction of the peak)", name,
                  c->gemm_efficiency);
        return FALSE;
    }
    /* the FP4 GEMM efficiencies: fractions of their own peak, given only with it */
    const struct {
        const char *key, *label;
        double eff;
        PrismDtype dtype;
    } fp4[] = {{"nvfp4", "NVFP4", c->gemm_eff_nvfp4, PRISM_DTYPE_NVFP4},
               {"mxfp4", "MXFP4", c->gemm_eff_mxfp4, PRISM_DTYPE_MXFP4}};
    for (size_t i = 0; i < G_N_ELEMENTS(fp4); i++) {
        if (fp4[i].eff > 1) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': gemm_efficiency_%s %g must be <= 1 (a fraction of the %s "
                      "peak)",
                      name, fp4[i].key, fp4[i].eff, fp4[i].label);
            return FALSE;
        }
        if (fp4[i].eff > 0 && !(c->peak_flops[fp4[i].dtype] > 0)) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': gemm_efficiency_%s %g without an %s peak (give "
                      "peak_tflops_%s, or leave the efficiency out)",
                      name, fp4[i].key, fp4[i].eff, fp4[i].label, fp4[i].key);
            return FALSE;
        }
    }
    if (c->sustained_clock_mhz > c->boost_clock_mhz) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "cluster '%s': sustained_clock_mhz %g must be <= boost_clock_mhz %g (the "
                  "clock the peaks are stated at)",
                  name, c->sustained_clock_mhz, c->boost_clock_mhz);
        return FALSE;
    }
    if (c->n_levels == 0 || c->n_levels > PRISM_MAX_LEVELS) {
        set_error(error, PRISM_INPUT_ERROR_VALUE, "cluster '%s': %u levels (allowed 1..%d)", name,
                  c->n_levels, PRISM_MAX_LEVELS);
        return FALSE;
    }
    for (uint32_t i = 0; i < c->n_levels; i++) {
        const PrismNetLevel *l = &c->levels[i];
        gboolean last = i + 1 == c->n_levels;
        if (!(l->bw_GBps > 0) || !isfinite(l->bw_GBps) || !(l->latency_us >= 0) ||
            !isfinite(l->latency_us)) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': level %u (%s): bandwidth %g GB/s must be > 0 and "
                      "latency %g us >= 0",
                      name, i, l->name, l->bw_GBps, l->latency_us);
            return FALSE;
        }
        if (last ? l->size != 0 : l->size == 0) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': level %u (%s): size %u (every level but the last needs a "
                      "size >= 1; the last spans the machine, size 0)",
                      name, i, l->name, l->size);
            return FALSE;
        }
        if (i > 0 && !last &&
            (l->size <= c->levels[i - 1].size || l->size % c->levels[i - 1].size != 0)) {
            set_error(error, PRISM_INPUT_ERROR_VALUE,
                      "cluster '%s': level %u (%s): size %u must be a multiple of, and larger "
                      "than, level %u's size %u (levels nest, innermost first)",
                      name, i, l->name, l->size, i - 1, c->levels[i - 1].size);
            return FALSE;
        }
    }
    if (c->n_levels > 1 && c->levels[0].size % c->devices_per_node != 0 &&
        c->devices_per_node % c->levels[0].size != 0) {
        set_error(error, PRISM_INPUT_ERROR_VALUE,
                  "cluster '%s': devices_per_node %u and level 0 size %u must divide one "
                  "another",
                  name, c->devices_per_node, c->levels[0].size);
        return FALSE;
    }
    return TRUE;
}

uint32_t prism_cluster_level_for_extent(const PrismCluster *c, double extent)
{
    for (uint32_t i = 0; i < c->n_levels; i++)
        if (c->levels[i].size == 0 || extent <= (double)c->levels[i].size)
            return i;
    return c->n_levels - 1;
}
