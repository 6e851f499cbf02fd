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

cli_done 23
