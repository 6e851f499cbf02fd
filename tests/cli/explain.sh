#!/usr/bin/env bash
# explain.sh - `prism explain` and `prism knobs`: text and JSON output, required JSON keys,
# exit status 2 with the violated rule for impossible strategies. Counts its checks.
set -u
prism=${PRISM_BINARY:?}
. "${PRISM_SOURCE_DIR:?}/tests/support/cli.sh"

check "explain text" expect_status 0 explain --devices 1024 \
    --strategy "tp=8,pp=16,sp=1,zero=1,recompute=selective"
check "text names the terms" grep -q "bwd_working_set" out.txt
check "text has per-stage memory" grep -q "memory per stage" out.txt
check "text has a verdict" grep -q "^verdict: fits" out.txt
check "text has the interval" grep -qE "^interval: step [0-9.]+ s, [0-9.]+-[0-9.]+ s .*GiB usable: fits$" out.txt

check "explain json" expect_status 0 explain --devices 1024 --json \
    --strategy "dp=8,tp=8,pp=16,vpp=1,cp=1,ep=1,sp=1,mbs=1,zero=1,recompute=selective,schedule=1f1b"
check "json keys" /usr/bin/python3 - out.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
need = ["strategy", "memory", "per_stage", "time", "flops_per_device", "bytes_per_level",
        "mfu", "hfu", "tokens_per_s", "feasible", "reason", "knobs"]
missing = [k for k in need if k not in d]
mem = ["params", "grads", "optimizer", "activations", "comm_buffers", "peak"]
tim = ["compute", "recompute", "tp_comm", "cp_comm", "ep_comm", "dp_comm", "pp_comm",
       "bubble", "step"]
missing += ["memory." + k for k in mem if k not in d["memory"]]
missing += ["time." + k for k in tim if k not in d["time"]]
missing += ["per_stage[0]." + k for k in mem if k not in d["per_stage"][0]]
assert not missing, missing
assert len(d["per_stage"]) == 16
assert d["strategy"]["tp"] == 8 and d["strategy"]["schedule"] == "1f1b"
assert max(s["peak"] for s in d["per_stage"]) == d["memory"]["peak"]
assert d["feasible"] is True and d["reason"] == "ok"
assert 0 < d["mfu"] < 1 and d["time"]["step"] > 0
PY
# the new schedules: the chunk placement, the in-flight and bubble formula text
check "explain dualpipe-v" expect_status 0 explain --devices 1024 \
    --strategy "dp=32,tp=4,pp=8,vpp=2,sp=1,mbs=2,zero=1,schedule=dualpipe-v"
check "dualpipe-v in-flight formula" grep -q "first steady-state forward: chunks s, 2p-1-s: (2p-s, s+1))" out.txt
check "dualpipe-v stage 0 holds both ends" grep -q "stage 0 .* in-flight \[16 1\] +embedding +head" out.txt
check "dualpipe-v bubble formula" grep -q "bubble_time .*max(0, sum_s u_s - max_s u_s) / 2, u_s = T_s - 3 W_s" out.txt
check "explain seq1f1b" expect_status 0 explain --devices 1024 --set seq1f1b_splits=2 \
    --strategy "dp=8,tp=8,pp=16,sp=1,zero=1,schedule=seq1f1b"
check "seq1f1b in-flight (16 + 1)/2 on stage 0" grep -q "stage 0 .* in-flight \[8.5\]" out.txt
check "zb-v needs vpp = 2 (R7)" expect_status 2 explain --devices 1024 \
    --strategy "dp=8,tp=8,pp=16,schedule=zb-v"
check "names R7" grep -q "R7: schedule=zb-v runs two model chunks per device" err.txt
check "impossible strategy exits 2" expect_status 2 explain --devices 1024 --strategy "tp=3"
check "names the rule" grep -q "R1\|R2" err.txt
check "missing --strategy exits 2" expect_status 2 explain --devices 1024
check "bad knob exits 2" expect_status 2 explain --devices 1024 --strategy tp=8 --set nope=1
check "knob out of range exits 2" expect_status 2 knobs --set tp_overlap=2
check "knobs lists" expect_status 0 knobs --set tp_overlap=0.25
check "knobs shows the set value" grep -q "tp_overlap.*0.25.*(set)" out.txt
check "knobs json" expect_status 0 knobs --json
check "knobs json parses" /usr/bin/python3 -c \
    "import json; d=json.load(open('out.txt')); assert any(k['name']=='mem_margin' for k in d)"
check "knobs --sources" expect_status 0 knobs --sources
check "  a cited default" grep -Eq "^  logits_bytes +4 +published: Korthikanti et al. 2022" out.txt
check "knobs --json --sources" expect_status 0 knobs --json --sources
check "  a source member per knob" /usr/bin/python3 -c \
    "import json; d=json.load(open('out.txt')); assert all(k['source']['kind'] in ('published', 'count', 'code', 'derived', 'convention') and k['source']['where'] for k in d), d"
check "  not without --sources" bash -c "! '$PRISM_BINARY' knobs --json | grep -q '\"source\"'"

# the compute model for one H100 FP8 strategy: every GEMM's shape, passes and why, the
# bf16/fp8 split and the MFU convention (text), and the same in JSON. Llama-3 8B, seq 8192,
# mbs 1, tp 2: fc1 (gate + up) has M 8192 tokens, N 2 x 14336 / 2 = 14336, K 4096; forward
# with 128 x 256 tiles (8192/128) x (14336/256) = 3584 in ceil(3584/132) = 28 waves, 28 (m +
# t0); with 128 x 128 tiles 64 x 112 = 7168 in 55 waves, 55 (m/2 + t0) = 27.5 m + 55 t0 (m one
# full wave's main loop at depth 4096: 8,650,752 x 4096 / (1978.9e12 x 0.8 x 0.875) = 25.6 us,
# t0 = gemm_tile_us 3.1 us): 27 t0 > m/2, so the 128 x 256 tile wins, wave efficiency
# 3584 / (28 x 132) = 0.96970; the logits stay bf16.
check "explain fp8" expect_status 0 explain -m llama3-8b -c H100-SXM --devices 64 --gbs 256 \
    --seq 8192 --dtype fp8 --strategy "tp=2,sp=1,mbs=1,zero=1,recompute=selective"
check "text: the GEMM table" grep -q "fc1 *fp8 *M 8192 *N 14336 *K 4096" out.txt
check "text: the split and the MFU convention" grep -q "fp8 GEMMs .* GFLOP" out.txt
check "text: MFU against the BF16 peak" grep -q "against the BF16 dense peak" out.txt
check "explain fp8 json" expect_status 0 explain -m llama3-8b -c H100-SXM --devices 64 \
    --gbs 256 --seq 8192 --dtype fp8 --json --strategy "tp=2,sp=1,mbs=1,zero=1,recompute=selective"
check "json: compute_model" /usr/bin/python3 - out.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cm = d["compute_model"]
assert cm["mfu_peak_flops"] == 989.4e12 and cm["quantisation"] is True
g = {x["name"]: x for k in cm["kinds"] for x in k["gemms"]}
f = g["fc1"]
assert f["dtype"] == "fp8" and (f["M"], f["N"], f["K"]) == (8192, 14336, 4096)
assert f["fwd"]["tiles"] == 3584 and f["fwd"]["waves"] == 28
assert (f["fwd"]["tile_m"], f["fwd"]["tile_n"]) == (128, 256)
assert abs(f["fwd"]["wave_efficiency"] - 3584 / (28 * 132)) < 1e-12
assert g["logits"]["dtype"] == "bf16"
assert cm["fp8_scope"] == 0
PY
# fp8_scope: the routed experts' grouped GEMMs or the dense linears alone in FP8 (the
# router and the logits always BF16); the text names the scope
for sc in 1 2; do
    "$prism" explain -m mixtral-8x7b -c H100-SXM -n 8 --gbs 16 --seq 4096 --dtype fp8 --json \
        --set fp8_scope=$sc -s "tp=1,ep=8,mbs=1,zero=1,recompute=none" > "scope$sc.json" 2>/dev/null
done
check "fp8_scope: which GEMMs run in FP8" /usr/bin/python3 - scope1.json scope2.json <<'PY'
import json, sys
for sc, f in ((1, sys.argv[1]), (2, sys.argv[2])):
    cm = json.load(open(f))["compute_model"]
    assert cm["fp8_scope"] == sc, cm["fp8_scope"]
    g = {x["name"]: x["dtype"] for k in cm["kinds"] for x in k["gemms"]}
    dense, expert = ("fp8", "bf16") if sc == 1 else ("bf16", "fp8")
    assert g["qkv"] == g["attn_out"] == dense and g["expert_fc1"] == g["expert_fc2"] == expert, g
    assert g["router"] == g["logits"] == "bf16", g
PY
check "fp8_scope named in the text" bash -c "'$prism' explain -m mixtral-8x7b -c H100-SXM -n 8 \
    --gbs 16 --seq 4096 --dtype fp8 --set fp8_scope=1 -s tp=1,ep=8,mbs=1,zero=1,recompute=none \
    | grep -q 'fp8 linear GEMMs (fp8_scope 1: the dense linears; routed experts in bf16)'"
# MoE dispatch traffic (cost/README.md "MoE dispatch traffic"), by hand on Mixtral-8x7B
# (h = 4096, E = 8, top-2, bf16) on H100-SXM (HBM 3350 GB/s x 0.8 = 2680 GB/s), T = 4096
# tokens per micro-batch, tp = 2 with SP (the layer routes T/2 = 2048 tokens): the chunk
# sort + unsort of Megatron-Core's alltoall dispatcher move 4 x top_k x h x 2 B = 65,536 B
# per routed token and etp, forward + 2 x backward, only with more than one local expert:
#   ep 8 (1 expert per device): none; ep 4, etp 1: 3 x 2048 x 65536 / 2.68e12 s more;
#   ep 4, etp 2 (tied): twice that (the ETP group gathers its peer's rows first).
for s in "ep=8,etp=1" "ep=4,etp=1" "ep=4,etp=2"; do
    "$prism" explain -m mixtral-8x7b -c H100-SXM -n 64 --gbs 64 --seq 4096 --json \
        -s "dp=32,tp=2,sp=1,zero=1,$s" > "moe-$s.json" 2>/dev/null
done
check "MoE chunk sort traffic by hand" /usr/bin/python3 - <<'PY'
import json
def ew(s):
    d = json.load(open("moe-%s.json" % s))
    return [l for l in d["layers"] if "MoE" in l["kind"]][0]["terms"]["elementwise"]
one = 3 * 2048 * 65536 / 2680e9
a, b, c = ew("ep=8,etp=1"), ew("ep=4,etp=1"), ew("ep=4,etp=2")
assert abs((b - a) / one - 1) < 1e-9, (a, b, one)
assert abs((c - a) / (2 * one) - 1) < 1e-9, (a, c, one)
PY
check "bad dtype exits 2 listing the recipes" expect_status 2 explain --devices 64 \
    --strategy tp=8 --dtype fp4
check "names the allowed dtypes" grep -q "fp8, fp8-cs, mxfp8" err.txt
check "mxfp8 on Hopper exits 2" expect_status 2 explain -c H100-SXM --devices 64 \
    --strategy tp=8 --dtype mxfp8
check "mxfp8 on B200" expect_status 0 explain -m llama3-8b -c B200 --devices 64 --gbs 256 \
    --seq 8192 --dtype mxfp8 --strategy "tp=2,mbs=1"
# A strategy the --framework does not run is priced anyway, with a note saying why
# (outside its [planning] only; unequal chunks where it asserts equal ones); a supported
# one has no note, and JSON carries it as framework_unsupported (null when supported)
check "dualpipe under megatron-core" expect_status 0 explain --framework megatron-core \
    --strategy "tp=8,pp=16,sp=1,schedule=dualpipe"
check "note names the profile's schedules" grep -q \
    "^note: megatron-core does not run .*schedule=dualpipe: its schedule=dualpipe is outside the profile's \[planning\] only (schedule=1f1b,interleaved,zero=0,1,offload=0,1)" out.txt
# the dims --strategy leaves out take the framework's defaults, said in a note: Megatron-Core's
# distributed optimizer (zero=1, dp = 8 > 1) and --sequence-parallel (tp = 8 > 1)
check "  unstated dims take megatron-core's defaults" grep -q \
    "^note: the dims --strategy leaves out take megatron-core's defaults: zero=1$" out.txt
check "defaults: sp and zero" expect_status 0 explain --framework megatron --strategy "tp=8,pp=16"
check "  both filled" grep -q "defaults: zero=1, sp=1$" out.txt
# torchtitan: FSDP (zero=3), per-op SAC, the local batch split in one micro-batch per stage:
# 1536 / (dp 16 x pp 8) = 12
check "defaults under torchtitan" expect_status 0 explain --framework torchtitan --strategy "tp=8,pp=8"
check "  local batch per stage" grep -q "defaults: zero=3, sp=1, recompute=selective, mbs=12$" out.txt
check "pp 64 of 96 layers under megatron-lm-2022" expect_status 0 explain \
    --framework megatron-lm-2022 --strategy "tp=8,pp=64"
check "note says the chunks are unequal" grep -q \
    "its model chunks are unequal (pp\*vpp = 64 does not divide the 96 layers" out.txt
check "supported: no note" expect_status 0 explain --framework megatron-core \
    --strategy "tp=8,pp=16,sp=1" --json
check "supported: framework_unsupported null" /usr/bin/python3 - out.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["framework_unsupported"] is None and d["track_record"]["framework"] == "megatron-core", d["track_record"]
PY
# The interval (ranges.h), hand-derived for memory: the pessimistic corner takes
# cuda_context 300 MB x 400/300 = 400 MB and allocator_reserve 0.343 x 0.420/0.343 = 0.42
# (cost_ranges.c) on the transient bytes (allocated less params, grads and optimizer: the
# reserved figure is allocated + 0.343 x them), the allocated peak stays (no ranged knob
# moves it), NCCL's buffers are the device figure less the reserved and the 300 MB context;
# then widened by the record.
check "interval: corners and memory class" /usr/bin/python3 - out.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
iv, m = d["interval"], d["memory_logged"]
assert iv["step"] == d["time"]["step"] and iv["mem"] == m["device"], (iv, m)
assert 0 < iv["step_lo"] < iv["step"] < iv["step_hi"], iv
nccl = m["device"] - m["reserved"] - 300e6
trans = (m["reserved"] - m["allocated"]) / 0.343
want = (m["allocated"] + 0.42 * trans + 400e6 + nccl) / (1 - iv["widen_mem"])
assert abs(iv["mem_hi"] - want) <= 1e-9 * want, (iv["mem_hi"], want)
assert iv["mem_class"] == ("fits" if iv["mem_hi"] <= iv["usable"] else "at risk"), iv
PY

# MoE layout line, hand-derived: 16 devices, tp 2 -> dp 8; etp 1 x ep 8 leaves edp
# 16 / 8 = 2; etp != tp, so folded
check "MoE text" expect_status 0 explain -m deepseek-v2-lite -c H100-SXM -n 16 --gbs 64 \
    --strategy "tp=2,ep=8,etp=1,sp=1,zero=1"
check "experts line" grep -qx "experts: etp 1 x ep 8 x edp 2 over the tp\*cp\*dp = 16 devices of a stage (folded; ETP groups of 1 consecutive devices, EP groups span 8)" out.txt
# In-flight micro-batches per stage (4 stages, m = 16 / (2 x 1) = 8): ZB-V holds chunks s
# and 2p-1-s at (2p-1-s, s+1) = (7 1), (6 2), (5 3), (4 4); ZB-H1 min(p-s, m) = 4 3 2 1;
# GPipe all m = 8 micro-batches on every stage
check "ZB-V in flight" expect_status 0 explain -m gpt3-1.3b -n 8 --gbs 16 \
    --strategy "pp=4,vpp=2,schedule=zb-v"
check "  (7 1) ... (4 4)" bash -c "grep -o 'in-flight \[[0-9 ]*\]' out.txt | tr '\n' ';' | grep -qx 'in-flight \[7 1\];in-flight \[6 2\];in-flight \[5 3\];in-flight \[4 4\];'"
check "ZB-H1 in flight" expect_status 0 explain -m gpt3-1.3b -n 8 --gbs 16 \
    --strategy "pp=4,schedule=zb-h1"
check "  4 3 2 1" bash -c "grep -o 'in-flight \[[0-9]*\]' out.txt | tr '\n' ';' | grep -qx 'in-flight \[4\];in-flight \[3\];in-flight \[2\];in-flight \[1\];'"
check "GPipe in flight" expect_status 0 explain -m gpt3-1.3b -n 8 --gbs 16 \
    --strategy "pp=4,schedule=gpipe"
check "  m = 8 on every stage" bash -c "grep -o 'in-flight \[[0-9]*\]' out.txt | tr '\n' ';' | grep -qx 'in-flight \[8\];in-flight \[8\];in-flight \[8\];in-flight \[8\];'"
# offload: the host line; fp8_scope 2: which linears run in FP8
check "offload text" expect_status 0 explain -m gpt3-1.3b -n 8 --gbs 16 --strategy "offload=3,zero=1"
check "  host line" grep -qE "^host: [0-9.]+ GiB offloaded of 256.00 GiB host memory per device$" out.txt
check "fp8_scope 2 text" expect_status 0 explain -m deepseek-v2-lite -c H100-SXM -n 16 --gbs 64 \
    --dtype fp8 --set fp8_scope=2 --strategy "tp=2,ep=8"
check "  names the routed experts" grep -qF "fp8 linear GEMMs (fp8_scope 2: the routed experts; the other linears in bf16)" out.txt
# The attention core at the 750 W cap runs at the clock the cap holds (1437 of 1856 MHz,
# read from cuBLAS at the cap): Llama 3 8B, seq 8192, mbs 1: per token 4 x 8192 x 4096
# FLOP (QK^T and PV) x 0.5 (causal) = 6.711e7; 8192 tokens = 5.4976e11 FLOP at FA4's 0.717
# x 2250e12 x 1437/1856 = 1249.05e12 FLOP/s -> 4.4014e-4 s (at the power law's 1686 MHz it
# would be 3.752e-4 s)
expect_json "attention core at the 750 W cap by hand" 'abs(d["layers"][1]["terms"]["core_fwd"] - 4.4014e-4) < 1e-8' -- \
    explain --json -m llama3-8b -c B200-750W -n 8 --gbs 8 --seq 8192 -s dp=8,mbs=1

cli_done 67
