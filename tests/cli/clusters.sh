#!/usr/bin/env bash
# clusters.sh - `prism clusters`: presets, a key file, JSON and the --help format text.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"

expect_ok "A100-80GB row" '^A100-80GB +80 +2039 +8 +19\.5 +312 +312 +- +- +- +nvlink3\(8\) 300 GB/s' -- clusters
expect_ok "H100-SXM row" '^H100-SXM +80 +3350 +8 +67 +989\.4 +989\.4 +1978\.9' -- clusters
expect_ok "all ten presets" '^Ascend-910B ' -- clusters
expect_ok "H800 row (NVLink 400 GB/s total)" '^H800 +80 +3350 +8 .*nvlink4-h800\(8\) 200 GB/s' -- clusters
expect_ok "three-level file" 'rack\(32\) 100 GB/s 5 us, infiniband\(all\) 25\.5 GB/s' -- clusters "$PRISM_TEST_DATA/clusters/three-level.ini"
expect_ok "case-insensitive" '^B200 ' -- clusters b200
# one cluster: its every attribute, as the key file gives them
expect_ok "one: GEMM attributes" '^  GEMMs      132 SMs, tile 128 x 256, clock 1636 MHz sustained of 1830 boost, efficiency 0\.7 of the peak, L2 50 MiB$' -- clusters "$PRISM_TEST_DATA/clusters/device-attrs.ini"
expect_ok "one: attention and levels" '^  level 2    infiniband: the whole machine, 25\.5 GB/s per device per direction, 10 us$' -- clusters "$PRISM_TEST_DATA/clusters/three-level.ini"
expect_json "JSON list" 'len(d) == 15 and d[0]["name"] == "A100-40GB" and d[2]["peak_flops"]["fp8"] == 1978.9e12 and d[2]["sm_count"] == 132' -- clusters --json
expect_json "JSON one" 'd["levels"][0]["bandwidth_GBps"] == 450 and d["memory_gib"] == 80 and d["memory_bandwidth_GBps"] == 3350' -- clusters --json H100-SXM
expect_ok "--help documents the key file" 'bandwidth_GBps = 450' -- clusters --help
expect_ok "--help documents the memory bandwidth" 'memory_bandwidth_GBps = 3350' -- clusters --help
expect_json "key-file memory bandwidth" 'd["memory_bandwidth_GBps"] == 2500' -- clusters --json "$PRISM_TEST_DATA/clusters/three-level.ini"
expect_json "key-file GEMM attributes" 'd["sm_count"] == 132 and d["sustained_clock_mhz"] == 1636 and d["gemm_tile_n"] == 256 and d["gemm_efficiency"] == 0.7' -- clusters --json "$PRISM_TEST_DATA/clusters/device-attrs.ini"
check "a bad GEMM attribute exits 2" expect_status 2 clusters "$PRISM_TEST_DATA/bad/cluster-sustained-above-boost.ini"
check "names key and value" grep -q "sustained_clock_mhz 1900" err.txt
# A UTF-8 byte order mark (some Windows editors write one) is skipped by every key-file
# reader (prism_keyfile_from_data): the same JSON as without it.
printf '\xef\xbb\xbf' | cat - "$PRISM_TEST_DATA/clusters/device-attrs.ini" > bom.ini
check "a key file with a BOM reads as without" bash -c "'$PRISM_BINARY' clusters --json bom.ini > bom.json &&
    '$PRISM_BINARY' clusters --json '$PRISM_TEST_DATA/clusters/device-attrs.ini' > nobom.json &&
    cmp -s bom.json nobom.json && grep -q '\"sm_count\" *: *132' bom.json"
# --sources: every attribute with its citation (core.h "KIND: WHERE"); a key file's from its
# `# source:` comment lines (none in this test file: kind "none", named)
expect_ok "--sources: an attribute and its citation" '^  sustained_clock_mhz +1437 +derived: cuBLAS FP16 GEMM on B200 with the power cap locked to 750 W' -- clusters B200-750W --sources
expect_json "--sources JSON: 30 cited attributes" 'len(d) == 1 and d[0]["name"] == "H100-SXM" and len(d[0]["sources"]) == 30 and all(s["source"]["kind"] in ("published", "count", "code", "derived", "convention") and s["source"]["where"] for s in d[0]["sources"]) and d[0]["sources"][0] == {"key": "memory_gib", "value": 80, "source": d[0]["sources"][0]["source"]}' -- clusters --json --sources H100-SXM
expect_json "--sources JSON: every preset" 'len(d) == 15 and all(s["source"]["kind"] != "none" for c in d for s in c["sources"])' -- clusters --json --sources
expect_json "--sources of a key file without citations" 'd[0]["sources"][1]["key"] == "memory_gib" and all(s["source"]["kind"] == "none" and "no \x27# source" in s["source"]["problem"] for s in d[0]["sources"])' -- clusters --json --sources "$PRISM_TEST_DATA/clusters/three-level.ini"
# the 2026 presets: the NVL72 racks' 72-GPU NVLink level 0 (a node = a compute tray of 4)
expect_ok "GB200 NVL72 row" '^GB200-NVL72 +186 +8000 +4 +90 +2500 +2500 +5000 +10000 +10000 +nvlink5-nvl72\(72\) 900 GB/s' -- clusters
expect_ok "nvidia-smi name" '^GB300-NVL72 ' -- clusters "NVIDIA GB300"
# a key file inheriting a preset: its network overridden, its node count, the base's family
expect_json "base = H100-SXM" 'd["sm_count"] == 132 and d["levels"][1]["bandwidth_GBps"] == 100 and d["levels"][0]["bandwidth_GBps"] == 450 and d["family"] == "H100" and d["devices"] == 32 and d["generic_defaults"] == ""' -- clusters --json "$PRISM_TEST_DATA/clusters/base-h100.ini"
expect_bad "the file's device count" -- inputs --cluster "$PRISM_TEST_DATA/clusters/base-h100.ini" --devices 16 -- "--devices 16: the cluster file" "describes 32 devices" "allowed: --devices 32"
expect_bad "nvfp4 on a part without it" -- inputs --cluster H100-SXM --dtype nvfp4 -- "no nvfp4 peak"
# MXFP4: CDNA3 (MI325X) has no FP4 matrix cores; the message names the cluster, the dtype,
# the key and the dtypes the part has
expect_bad "mxfp4 on a part without it" -- inputs --cluster MI325X --dtype mxfp4 -- "--dtype mxfp4: cluster 'MI325X' has no mxfp4 peak (peak_tflops_mxfp4 = 0)" "allowed on it: fp32, bf16, fp16, fp8, fp8-cs"
expect_ok "MXFP4 column: MI355X 10066.3 TF, no NVFP4" '^MI355X +288 +8000 +8 +157.3 +2516.6 +2516.6 +5033.2 +- +10066.3 ' -- clusters
# a level's optional keys where the file gives them (cost/validation/h100-efa-playbook.ini:
# level 0 gather 249.75 GB/s; level 1 gather 22.886 GB/s and ring steps LL 20, LL128 20,
# Simple 23 us, as every EFA level after it); presets give none
pb="$PRISM_SOURCE_DIR/cost/validation/h100-efa-playbook.ini"
expect_ok "one: a level's gather bandwidth" '^  level 0    nvlink4: 8 devices, 436 GB/s per device per direction, 3 us; all-gather / reduce-scatter 249\.75 GB/s$' -- clusters "$pb"
expect_ok "one: a level's NCCL ring steps" '^  level 1    efa-2-nodes: 16 devices, 45\.2125 GB/s per device per direction, 23 us; all-gather / reduce-scatter 22\.886 GB/s; NCCL ring step LL 20 us, LL128 20 us, Simple 23 us$' -- clusters "$pb"
expect_json "JSON: a level's optional keys" 'd["levels"][0]["gather_bandwidth_GBps"] == 249.75 and "nccl_hop_ll_us" not in d["levels"][0] and d["levels"][1]["gather_bandwidth_GBps"] == 22.886 and d["levels"][1]["nccl_hop_ll_us"] == 20 and d["levels"][1]["nccl_hop_ll128_us"] == 20 and d["levels"][1]["nccl_hop_simple_us"] == 23' -- clusters --json "$pb"
expect_json "JSON: presets give none" 'all(set(l) == {"name", "size", "bandwidth_GBps", "latency_us"} for c in d for l in c["levels"])' -- clusters --json
cli_done 32
