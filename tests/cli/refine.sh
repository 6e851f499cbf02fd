#!/usr/bin/env bash
# refine.sh - `prism plan --refine K` end to end on DeepSeek-V3 (61 blocks + 1 MTP layer
# over pp stages, a 129k-vocabulary head): JSON has K refine entries whose layouts cover
# every layer, a claimed gain is a real step-time reduction that fits, the result is the
# same at 1, 2, 3 and 4 ranks, and bad values exit with status 2.
set -u
P=${PRISM_BINARY:?PRISM_BINARY not set}
PY=/usr/bin/python3
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# (the schedules refine's surrogate models: it keeps zb-v, dualpipe(-v) and seq1f1b uniform)
# The budget is on the allocated peak + 1 GB, 2 GB kept free (no allocator reserve, CUDA
# context or NCCL buffers): the scenario the figures below were measured in.
ARGS=(plan --model deepseek-v3 --cluster H100-SXM --gbs 1024 --seq 4096
      --mem-budget 40 --no-progress --top 4 --only schedule=1f1b,interleaved,gpipe,zb-h1
      --set allocator_reserve=0 --set cuda_context=0 --set nccl_channels=0
      --set runtime_overhead=1e9 --set mem_margin=2e9)
# The main pass refines the top of ep=8 on 512 devices (13,656,624 strategies, pp 1-64,
# tp 1-8, every schedule above: the whole space's top 4, pp 32 three times, then pp 16/tp 4
# (with a GEMM wave's fixed time, gemm_tile_us; before it the top 3 held pp 16), is all ep 8;
# the whole 101,921,400-strategy space took 31 CPU-s, ep=8 4.4) and compares 1, 2, 3, 4 ranks. The
# sanitizer pass (PRISM_TEST_SANITIZED=1) hunts memory errors: there the JSON check
# refines the top of pp=32, tp=8 on 1,024 devices (4,320 strategies, the slice the rank
# check below uses, whose refinements gain 5-11%), and ranks 1 and 3 are compared.
SLICE=(--devices 1024 --fix pp=32,tp=8)
if [[ "${PRISM_TEST_SANITIZED:-0}" == 1 ]]; then
    FULL=("${SLICE[@]}") counts=(1 3)
else
    FULL=(--devices 512 --fix ep=8) counts=(1 2 3 4)
fi

"$P" "${ARGS[@]}" "${FULL[@]}" --refine 4 --json > np1.json 2> np1.err
rc=$?
[ $rc -eq 0 ] && ok || { bad "plan --refine 4 exit $rc"; cat np1.err; }
if $PY - np1.json "${PRISM_TEST_SANITIZED:-0}" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["refine"]
assert len(r) == 4, len(r)
gains = 0
for e in r:
    for side in ("uniform", "refined"):
        assert sum(e[side]["chunk_layers"]) == 62, e[side]["chunk_layers"]
        assert len(e[side]["layer_recompute"]) == 62
    if e["improved"]:
        gains += 1
        assert e["refined"]["feasible"]
        assert e["refined"]["step_s"] < e["uniform"]["step_s"] or not e["uniform"]["feasible"]
        assert abs(e["gain"] - (1 - e["refined"]["step_s"] / e["uniform"]["step_s"])) < 1e-12
    else:
        assert e["refined"] == e["uniform"]
# the refined strategies are the top list, in order
for a, b in zip(r, d["top"]):
    assert a["strategy"]["dp"] == b["dp"] and a["strategy"]["pp"] == b["pp"]
assert gains >= 1, "no gain on a 40 GiB budget"
# the main pass's list mixes stage counts (a gain and a no-gain layout are both refined)
if sys.argv[2] != "1":
    assert len({e["strategy"]["pp"] for e in r}) >= 2, [e["strategy"]["pp"] for e in r]
    assert gains < len(r), "every entry gained"
PYEOF
then ok; else bad "JSON refine checks"; fi

# text report, on the pp=32, tp=8 slice in both passes (its layout is what is checked; the
# wider space's refine is the JSON run's business)
"$P" "${ARGS[@]}" "${SLICE[@]}" --refine 2 > text.out 2>&1
grep -q "layers per stage" text.out && grep -q "Refined layer split" text.out && ok || bad "text report"

# rank invariance of the refine section (and of the top list it refines) at 1, 2, 3, 4
# ranks, on pp=32, tp=8 only (4,320 strategies whose refinements gain 5-11%: the whole
# 140M-strategy space four more times would dominate the test)
: "${MPIEXEC:?MPIEXEC is not set (run through ctest)}"
for np in "${counts[@]}"; do
    "$MPIEXEC" -n $np "$P" "${ARGS[@]}" "${SLICE[@]}" --refine 3 --json > r$np.json \
        2> r$np.err
    if $PY - r1.json r$np.json <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
strip = lambda r: [{k: v for k, v in e.items() if k != "seconds"} for e in r]
assert len(a["refine"]) == 3 and any(e["improved"] for e in a["refine"])
assert strip(a["refine"]) == strip(b["refine"]) and a["top"] == b["top"]
PYEOF
    then ok; else bad "refine differs between 1 and $np ranks"; cat r$np.err; fi
done

"$P" "${ARGS[@]}" --devices 1024 --refine -1 > neg.out 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--refine -1" neg.out && ok || { bad "--refine -1 exit $rc"; cat neg.out; }

echo "refine.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -eq $((4 + ${#counts[@]})) ] # exactly: a check that did not run is a failure
