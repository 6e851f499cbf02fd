#!/usr/bin/env bash
# layouts.sh - `prism layouts` end to end: built-in graphs, JSON output, the Megatron
# pairing in JSON, and bad input (exit status 2 with a message naming the problem).
set -u
P=${PRISM_BINARY:?PRISM_BINARY not set}
D=${PRISM_TEST_DATA:?PRISM_TEST_DATA not set}/graphs
PY=/usr/bin/python3
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_exit CODE NEEDLE -- command...
expect_exit() {
    local code=$1 needle=$2
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then bad "exit $rc (want $code): $*"; echo "$out" | head -5; return; fi
    if [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then
        bad "no '$needle' in output of: $*"; echo "$out" | head -5; return
    fi
    ok
}

for g in transformer-mlp transformer-attention transformer-block transformer-moe-block \
         bert-large gpt3-175b vgg16 resnet50; do
    expect_exit 0 "total:" -- "$P" layouts --graph "$g" --tp 8 --summary
done
expect_exit 0 "Pareto front" -- "$P" layouts --graph transformer-block --tp 4 --pareto --summary
expect_exit 0 "transformer-moe-block" -- "$P" layouts --list
expect_exit 0 "series-parallel" -- "$P" layouts --help

# JSON: parse it and check the Megatron pairing and one forward all-reduce
out=$("$P" layouts --graph transformer-mlp --tp 8 --json)
if $PY - "$out" <<'PYEOF'
import json, sys
d = json.loads(sys.argv[1])
ops = {o["name"]: o["layout"] for o in d["optimal"]["ops"]}
assert ops["mlp.fc1"] == "col" and ops["mlp.fc2"] == "row", ops
assert d["optimal"]["forward_collectives"]["all-reduce"] == 1
names = [b["name"] for b in d["baselines"]]
assert "D-Rec greedy" in names and "all data parallel" in names, names
assert all(b["ratio_to_optimal"] >= 1.0 for b in d["baselines"] if b["feasible"])
PYEOF
then ok; else bad "JSON check"; fi

# JSON's Pareto front is the text's: the same points, time ascending and memory
# descending, the first one the optimum's time
txt=$("$P" layouts --graph transformer-block --tp 4 --pareto --summary)
js=$("$P" layouts --graph transformer-block --tp 4 --pareto --json)
if $PY - "$txt" "$js" <<'PYEOF'
import json, re, sys
lines = sys.argv[1].splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("(time, memory per device) Pareto front"))
n = int(re.search(r"front, (\d+) points?:", lines[at]).group(1))
text = [(float(l.split()[0]), float(l.split()[2])) for l in lines[at + 1:at + 1 + n]]
d = json.loads(sys.argv[2])
front = d["pareto"]
assert n >= 2 and len(front) == n, (n, len(front))
for (ms, gib), p in zip(text, front):
    assert abs(p["time_s"] * 1e3 - ms) <= 5e-4 * ms, (ms, p)
    assert abs(p["mem_bytes"] / 2**30 - gib) <= 1e-3, (gib, p)
assert all(a["time_s"] < b["time_s"] and a["mem_bytes"] > b["mem_bytes"]
           for a, b in zip(front, front[1:])), front
assert abs(front[0]["time_s"] - d["optimal"]["total_s"]) <= 1e-12 * front[0]["time_s"], d["optimal"]
PYEOF
then ok; else bad "JSON Pareto front"; fi

# a graph file
expect_exit 0 "residual-small" -- "$P" layouts --graph "$D/residual_small.json" --tp 2

# bad input: exit 2, message names the problem
expect_exit 2 "is not series-parallel: the edge 'a' -> 'c'" -- "$P" layouts --graph "$D/not_series_parallel.json"
expect_exit 2 "not valid JSON" -- "$P" layouts --graph "$D/malformed_syntax.json"
expect_exit 2 "key 'out': value -3" -- "$P" layouts --graph "$D/bad_value.json"
expect_exit 2 "'convolution'" -- "$P" layouts --graph "$D/bad_kind.json"
expect_exit 2 "EARLIER op" -- "$P" layouts --graph "$D/unknown_input.json"
expect_exit 2 "'batch'" -- "$P" layouts --graph "$D/missing_batch.json"
expect_exit 2 "key 'batch': value 1e+30 must" -- "$P" layouts --graph "$D/huge_batch.json"
expect_exit 2 "no consumer" -- "$P" layouts --graph "$D/two_sinks.json"
expect_exit 2 "cannot read" -- "$P" layouts --graph "$D/nope.json"
expect_exit 2 "unknown built-in graph 'vgg19'" -- "$P" layouts --graph vgg19
expect_exit 2 "--tp: 0" -- "$P" layouts --tp 0
expect_exit 2 "unexpected argument" -- "$P" layouts extra

echo "layouts.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq 26 ] # exactly: a check that did not run is a failure
