#!/usr/bin/env bash
# one_number.sh - one number, one unit. For rows of the shared validation CSVs, prism
# validate, prism explain and prism plan give the same step time and the same peak memory
# (as the row's framework logs it: allocated, reserved or device) for the same strategy and
# settings, in bytes in every JSON and in GiB in every text; and every explain value with a
# closed form equals its printed formula (formulas.py, on strategies that exercise ZeRO-3
# without the 16-bit shard, experts with etp != tp under context parallelism and ZeRO-2,
# and FSDP under a pipeline). Counts its checks.
set -u
prism=${PRISM_BINARY:?}
src=${PRISM_SOURCE_DIR:?}
. "$src/tests/support/cli.sh"
py=/usr/bin/python3

# CSV | line: rows of zoo models (explain and plan take the row's model by name; the rows
# of measured.csv and the Playbook describe theirs by shape): TorchTitan's reserved memory
# under ZeRO-3, the MoE folding paper's allocated memory at tp=8 and ep=8 with SP and
# megatron-core-moe's overlap options
rows=("measured_modern.csv|2" "measured_modern.csv|59")
for row in "${rows[@]}"; do
    IFS='|' read -r csv line <<<"$row"
    check "$csv:$line: validate --explain" expect_status 0 validate "$src/cost/validation/$csv" \
        --explain "$line" --json
    cp out.txt v.json
    # the row's inputs as explain and plan take them, and every knob of its cost model
    $py - v.json <<'PY' >args.txt
import json, sys
d = json.load(open(sys.argv[1]))
r, e = d["row"], d["explain"]
with open("knobs.ini", "w") as f:
    f.write("[knobs]\n" + "".join("%s=%r\n" % kv for kv in e["knobs"].items()))
s = e["strategy"]
keys = ("tp", "pp", "vpp", "cp", "ep", "etp", "sp", "mbs", "zero", "recompute", "schedule",
        "offload", "tp_overlap", "dp_overlap", "param_overlap")
fix = ",".join("%s=%s" % (k, s[k]) for k in keys)
print(" ".join(["-m", e["model"], "-c", e["cluster"], "-n", str(s["devices"]), "--gbs",
                str(e["gbs"]), "--seq", str(e["seq"]), "--dtype", e["dtype"], "--framework",
                r["framework"], "--knobs", "knobs.ini"]))
print(fix)
PY
    mapfile -t a <args.txt
    # shellcheck disable=SC2086
    check "$csv:$line: explain" expect_status 0 explain ${a[0]} --strategy "${a[1]}" --json
    cp out.txt e.json
    # shellcheck disable=SC2086
    check "$csv:$line: explain text" expect_status 0 explain ${a[0]} --strategy "${a[1]}"
    cp out.txt e.txt
    # shellcheck disable=SC2086
    check "$csv:$line: plan --fix the strategy" expect_status 0 plan ${a[0]} --fix "${a[1]}" \
        --top 4 --json --no-progress
    cp out.txt p.json
    check "$csv:$line: validate = explain = plan" $py - v.json e.json e.txt p.json <<'PY'
import json, re, sys
v, e, text, p = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])),
                 open(sys.argv[3]).read(), json.load(open(sys.argv[4])))
row, gib = v["row"], 1073741824.0
counts = row["peak_mem_counts"]
assert counts in ("allocated", "reserved", "device"), counts
# the step: the same bits in validate's row, explain and plan's entry of the strategy
step = e["time"]["step"]
assert row["predicted"]["step_time"] == step, (row["predicted"]["step_time"], step)
# memory as the framework logs it: validate compares explain's figure of that name
logged = e["memory_logged"]
assert logged["framework_counts"] == counts, (logged, counts)
assert row["predicted"]["peak_mem"] == logged[counts], (row["predicted"]["peak_mem"], logged)
for k in ("allocated", "reserved", "device"):
    assert logged[k] == e["memory"][k], (k, logged[k], e["memory"][k])
assert logged["allocated"] == e["memory"]["peak"], (logged, e["memory"])
s = e["strategy"]
keys = ("tp", "pp", "dp", "cp", "ep", "etp", "mbs", "zero", "sp", "vpp", "offload", "folding",
        "recompute", "schedule", "tp_overlap", "dp_overlap", "param_overlap")
same = [t for t in p["top"] if all(t[k] == s[k] for k in keys)]
assert len(same) == 1, (len(same), p["top"])
assert same[0]["time"]["step"] == step and same[0]["memory"]["peak"] == e["memory"]["peak"], same[0]
# the texts: the same figures in GiB
m = re.search(r"memory as logged: \S+ logs (\w+), ([0-9.]+) GiB", text)
assert m, "no memory-as-logged line"
assert m.group(1) == counts and m.group(2) == "%.2f" % (logged[counts] / gib), (m.groups(), logged)
assert "device %.2f GiB" % (e["memory"]["device"] / gib) in text
PY
done
# validate's text prints that figure in GiB too, beside the measured one converted to GiB
check "validate text: memory in GiB" expect_status 0 validate "$src/cost/validation/measured_modern.csv" --explain 2
check "  the row's convention named" grep -q "^peak memory GiB .*$" out.txt
check "  as the row counts it" grep -q "peak memory as the row counts it: reserved" out.txt

# every explain value with a closed form equals its printed formula
formula_cases=(
    "-m llama3-8b -c H100-SXM -n 8 --framework pytorch-fsdp|tp=2,zero=3"
    "-m mixtral-8x7b -c H100-SXM -n 64 --gbs 256 --seq 4096 --framework megatron-core-moe|tp=2,cp=2,ep=8,etp=1,pp=2,vpp=4,sp=1,zero=2,recompute=full"
    "-m llama3-8b -c H100-SXM -n 16 --gbs 64 --seq 8192 --framework pytorch-fsdp --set fsdp_pp_nosync=1|pp=2,zero=3"
)
for c in "${formula_cases[@]}"; do
    IFS='|' read -r inputs strategy <<<"$c"
    # shellcheck disable=SC2086
    check "formulas: $strategy: text" expect_status 0 explain $inputs --strategy "$strategy"
    cp out.txt f.txt
    # shellcheck disable=SC2086
    check "formulas: $strategy: json" expect_status 0 explain $inputs --strategy "$strategy" --json
    check "formulas: $strategy: every value = its formula" $py "$src/tests/cli/formulas.py" f.txt out.txt
done

cli_done $((2 * 5 + 3 + 3 * 3))
