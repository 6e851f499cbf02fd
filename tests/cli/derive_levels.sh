#!/usr/bin/env bash
# derive_levels.sh - scripts/derive_level_bandwidth.py against hand derivations, and its
# measured table against the cluster file it documents (cost/validation/
# h100-efa-playbook.ini). Stdlib Python only; well under a CPU-second.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
py=/usr/bin/python3
script=$PRISM_SOURCE_DIR/scripts/derive_level_bandwidth.py
ini=$PRISM_SOURCE_DIR/cost/validation/h100-efa-playbook.ini

check "--json runs" $py "$script" --json
cp check.log rows.json

# 1. 64 nodes x 8 = 512 ranks, all-reduce, NCCL's own count (tuning.cc):
#    bus bytes f*S = 2*511/512 * 2^28 = 535,822,336 B; T = 535,822,336 / 32.9e9 = 16.2864 ms;
#    steps 2*511 = 1022, of them 2*64 = 128 over the network:
#    L = 8.4 + (1022-128)*3.4 + 128*14 = 8.4 + 3039.6 + 1792 = 4840.0 us;
#    B = 535,822,336 / (16.2864 - 4.8400) ms = 46.81 GB/s.
# 2. 32 nodes x 8 = 256 ranks, all-reduce, prism's count (every step at the network hop):
#    f*S = 2*255/256 * 2^28 = 534,773,760 B; T = 534,773,760 / 64.9e9 = 8.2400 ms;
#    L = 8.4 + 510*14 = 7148.4 us; B = 534,773,760 / (8.2400 - 7.1484) ms = 489.9 GB/s,
#    above the node's 400 GB/s of network cards: not physical.
# 3. 64 nodes, gather, NCCL's count: f*S = 511/512 * 2^28 = 267,911,168 B;
#    T = 267,911,168 / 11.05e9 = 24.2453 ms; L = 8.4 + (511-63)*3.4 + 63*14 = 2413.6 us;
#    B = 267,911,168 / 21.8317 ms = 12.27 GB/s.
cat >hand.py <<'PY'
import json, sys
rows = {(r["collective"], r["nodes"]): r for r in json.load(open("rows.json"))}
def near(a, b, tol):
    if abs(a - b) > tol:
        sys.exit("got %r, by hand %r" % (a, b))
r = rows[("all_reduce", 64)]
near(r["time_ms"], 535822336 / 32.9e9 * 1e3, 1e-9)
near(r["nccl_latency_ms"], 4.8400, 1e-9)
near(r["nccl_GBps"], 46.81, 0.01)
assert r["nccl_physical"], r
r = rows[("all_reduce", 32)]
near(r["prism_latency_ms"], 7.1484, 1e-9)
near(r["prism_GBps"], 489.9, 0.1)
assert not r["prism_physical"], r
r = rows[("gather", 64)]
near(r["nccl_latency_ms"], 2.4136, 1e-9)
near(r["nccl_GBps"], 12.27, 0.01)
PY
check "derived figures match the hand derivations" $py hand.py

# The script's measured table is the cluster file's: level j (2^j nodes) carries the
# all-reduce figure over the 8 GPUs of a node (level 0: the figure itself) and the gather
# figure likewise, rounded in the file to 5-6 digits.
cat >ini.py <<'PY'
import configparser, json, sys
c = configparser.ConfigParser(inline_comment_prefixes=None)
c.read(sys.argv[1])
rows = {(r["collective"], r["nodes"]): r["measured_GBps"] for r in json.load(open("rows.json"))}
for j in range(7):
    lv, nodes, per = c["level.%d" % j], 2 ** j, (1 if j == 0 else 8)
    for key, coll in (("bandwidth_GBps", "all_reduce"), ("gather_bandwidth_GBps", "gather")):
        got = float(lv[key]) * per
        if abs(got / rows[(coll, nodes)] - 1) > 1e-4:
            sys.exit("level.%d %s x %d = %g, script %g" % (j, key, per, got, rows[(coll, nodes)]))
PY
check "the script's table is the cluster file's" $py ini.py "$ini"

cli_checks=$((cli_checks + 1))
$py "$script" --bogus >bad.out 2>bad.err
rc=$?
((rc == 2)) && [[ $(wc -l <bad.err) == 1 && ! -s bad.out ]] || cli_fail "bad argument: exit $rc, $(cat bad.err)"
cli_done 4
