#!/usr/bin/env bash
# sweep.sh - `prism sweep`, `prism info` and `prism pareto FILE` end to end:
#  - the landscape datasets are identical for 1, 2, 3 and 4 ranks (h5diff, all data and
#    dataset attributes; only the root's provenance differs), for one setup and for a
#    grid, and h5diff does see a different sweep as different (negative control);
#  - the file as h5py sees it: one row per strategy of `prism plan --count`, compact
#    types, shuffle + zstd chunks, the 1.8 file format (checksummed metadata) with no dense
#    link or attribute storage (h5stat); rows equal
#    `prism explain` for sampled strategies (the scalar reference, an independent path);
#  - /pareto equals the front `prism pareto FILE` recomputes from the stored columns, and
#    /topk equals `prism plan --json`'s top list; `prism pareto` and `prism info` print
#    the same at every rank count;
#  - --force, --no-landscape, --hdf5-deflate, grid sweeps, and bad input (exit 2).
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
py=/usr/bin/python3
small=(-m gpt3-1.3b -n 4:8 --gbs 32 --fix offload=0) # 39,626 strategies (2 device counts;
# offload pinned to 0: the row counts and sizes below were derived without offloading)
# Rank counts of the invariance checks. The sanitizer pass (PRISM_TEST_SANITIZED=1, set by
# tests/CMakeLists.txt) looks for memory errors, not for rank invariance, and each
# oversubscribed mpiexec costs it several seconds: there the reference run (1 rank) and
# an odd split (3 ranks) only; the main pass compares 2, 3 and 4 ranks against 1. Every
# other check runs in both passes. `skipped` counts the checks left out, for cli_done.
# The codec checks likewise: deflate and none are HDF5's own filters, so under the
# sanitizers only lz4 (prism's plugin, io/filters, like the default zstd) runs; prism's C
# is the same for the other two.
if [[ "${PRISM_TEST_SANITIZED:-0}" == 1 ]]; then
    ranks=(1 3) codecs=(lz4)
else
    ranks=(1 2 3 4) codecs=(lz4 deflate none)
fi
skipped=$((4 - ${#ranks[@]}))


# sweep_np NP FILE ARGS...: a sweep under mpiexec that must succeed.
sweep_np() {
    local np=$1 file=$2
    shift 2
    cli_checks=$((cli_checks + 1))
    cli_run_mpi "$np" sweep "$@" -o "$file" --no-progress --no-fsync
    cli_no_crash sweep "$@" || return 0
    if ((rc != 0)) || ! grep -q "rows" "$out"; then
        cli_fail "sweep at $np ranks into $file exited $rc"
        sed 's/^/  stderr: /' "$err" | head -5 >&2
    fi
}

# Rank invariance of the datasets.
for np in "${ranks[@]}"; do
    sweep_np "$np" "np$np.h5" "${small[@]}" --hdf5-chunk 4096
done
for np in "${ranks[@]:1}"; do
    check "datasets of np$np equal np1" h5diff --exclude-attribute / np1.h5 "np$np.h5"
done
sweep_np 1 other.h5 -m gpt3-1.3b -n 4:8 --gbs 16 --hdf5-chunk 4096
cli_checks=$((cli_checks + 1))
if h5diff --exclude-attribute / np1.h5 other.h5 >/dev/null 2>&1; then
    cli_fail "h5diff finds no difference between gbs 32 and gbs 16 sweeps"
fi

# The file as a reader sees it.
expect_ok "plan --count" "total +39626 strategies" -- plan "${small[@]}" --count
expect_json "plan --json" "len(d['top']) == 10" -- plan "${small[@]}" --json --no-progress
cp cli-stdout.txt plan.json
check "h5py: rows, types, chunks, filters, attributes" $py - np1.h5 <<'EOF'
import json, sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
# the 1.8 format or later: superblock v2+ and checksummed object headers (io/README.md)
assert f.id.get_create_plist().get_version()[0] >= 2, f.id.get_create_plist().get_version()
L = f["landscape"]
cols = L.attrs["columns"].split(",")
assert len(cols) == len(L.keys()) and cols[0] == "point" and cols[1] == "devices", cols
for c in cols:
    d = L[c]
    assert d.shape == (39626,), (c, d.shape)
    # the default codec: shuffle (values wider than a byte) + zstd 1 (32015) + Fletcher32
    plist = d.id.get_create_plist()
    filters = [plist.get_filter(i)[:3] for i in range(plist.get_nfilters())]
    shuffle = [(2, 1, (d.dtype.itemsize,))] if d.dtype.itemsize > 1 else []
    assert d.chunks == (4096,) and [(i, v) for i, _, v in filters] == \
        [(i, v) for i, _, v in shuffle] + [(32015, (1,)), (3, ())], (c, filters)
types = {"devices": np.uint32, "tp": np.uint32, "sp": np.uint8, "zero": np.uint8,
         "schedule": np.uint8, "rc_layers": np.uint16, "feasible": np.uint8,
         "reason": np.uint8, "step_time": np.float64, "peak_mem": np.float64}
for c, t in types.items():
    assert L[c].dtype == t, (c, L[c].dtype)
a = f.attrs
for k in ["tool_version", "git_revision", "command_line", "created_utc", "ranks", "isa",
          "model", "cluster", "training", "knobs", "space", "objectives", "schema_version"]:
    assert k in a, k
assert a["status"] == "complete" and int(a["rows"]) == 39626
assert json.loads(a["model"])["name"] == "gpt3-1.3b"
assert json.loads(a["space"])["total"] == 39626
assert json.loads(a["training"])["gbs"] == 32
assert int(a["feasible_rows"]) == int(L["feasible"][:].sum())
assert (L["feasible"][:] == (L["reason"][:] == 0)).all()
assert L["schedule"].attrs["codes"] == "1f1b,interleaved,gpipe,zb-h1,zb-v,dualpipe,dualpipe-v,seq1f1b"
EOF
# links and attributes stay in the checksummed object headers: no dense (fractal heap)
# storage, whose unchecked blocks libhdf5 decodes into invalid frees (io/README.md)
check "no dense link or attribute storage" bash -c \
    "h5stat -F np1.h5 | awk '/^\t(Groups|Attributes):\$/ { s = 1; next }
        s && /(B-tree\/List|Heap):/ { n++; if (\$NF != 0) bad = 1; next } { s = 0 }
        END { exit !(n == 4 && !bad) }'"
check "/topk equals plan --json top" $py - np1.h5 plan.json <<'EOF'
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
plan = json.load(open(sys.argv[2]))
assert list(f["topk/index"][:]) == [e["index"] for e in plan["top"]]
assert list(f["topk/rank"][:]) == list(range(1, 11))
i = int(f["topk/index"][0])
assert f["topk/step_time"][0] == f["landscape/step_time"][i] == plan["top"][0]["time"]["step"]
EOF
# Sampled rows against `prism explain` (scalar reference).
$py - np1.h5 >samples.txt <<'EOF'
import sys, h5py
L = h5py.File(sys.argv[1], "r")["landscape"]
codes = {c: L[c].attrs["codes"].split(",") for c in ["schedule", "recompute"]}
for i in [0, 1, 4321, 20000, 29945]:
    g = lambda c: int(L[c][i])
    rc = codes["recompute"][g("recompute")]
    if rc == "block":
        rc = "block:%d" % g("rc_layers")
    s = "dp=%d,tp=%d,pp=%d,vpp=%d,cp=%d,ep=%d,sp=%d,mbs=%d,zero=%d,recompute=%s,schedule=%s" % (
        g("dp"), g("tp"), g("pp"), g("vpp"), g("cp"), g("ep"), g("sp"), g("mbs"), g("zero"),
        rc, codes["schedule"][g("schedule")])
    print(i, g("devices"), s, repr(float(L["step_time"][i])), repr(float(L["peak_mem"][i])))
EOF
while read -r idx dev strat step peak; do
    cli_checks=$((cli_checks + 1))
    cli_run explain -m gpt3-1.3b -n "$dev" --gbs 32 --strategy "$strat" --json
    if ((rc != 0)) || ! $py -c "import json,sys; d=json.load(open('$out')); \
sys.exit(0 if d['time']['step'] == $step and d['memory']['peak'] == $peak else 1)"; then
        cli_fail "row $idx ($strat) differs from prism explain"
    fi
done <samples.txt

# prism pareto FILE: the stored front, identical output at every rank count.
expect_json "pareto --json" "len(d['points']) == 1" -- pareto np1.h5 --json
cp cli-stdout.txt pareto1.json
check "stored /pareto equals the recomputed front" $py - np1.h5 pareto1.json <<'EOF'
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
p = json.load(open(sys.argv[2]))
assert p["objectives"] == f.attrs["objectives"].split(","), p["objectives"]
front = [e["index"] for e in p["points"][0]["front"]]
assert len(front) > 10 and front == list(f["pareto/index"][:]), (len(front), len(f["pareto/index"]))
assert p["points"][0]["feasible"] == int(f.attrs["feasible_rows"])
EOF
for np in "${ranks[@]:1}"; do
    cli_checks=$((cli_checks + 1))
    cli_run_mpi "$np" pareto np1.h5 --json
    cmp -s cli-stdout.txt pareto1.json || cli_fail "pareto --json at $np ranks differs"
done
expect_ok "pareto --where" "filter tp <= 2, schedule == 1f1b" -- \
    pareto np1.h5 --where "tp<=2,schedule=1f1b" --objectives step_time,peak_mem --top 3
expect_ok "info" "rows: +39626 \(" -- info np1.h5
grep -v '^written by' cli-stdout.txt >info1.txt
cli_checks=$((cli_checks + 1))
cli_run_mpi 3 info np1.h5
grep -v '^written by' cli-stdout.txt | cmp -s - info1.txt || cli_fail "info differs at 3 ranks"
expect_json "info --json" "d['rows'] == 39626 and d['attributes']['status'] == 'complete'" -- \
    info np1.h5 --json

# --force, --no-landscape, deflate levels.
expect_bad "existing output" -- sweep "${small[@]}" -o np1.h5 -- "np1.h5 exists" "--force"
sweep_np 2 np1.h5 "${small[@]}" --hdf5-chunk 4096 --force
check "--force rewrote the same datasets" h5diff --exclude-attribute / np1.h5 "np${ranks[-1]}.h5"
# (deflate is HDF5's own filter: its levels are checked in the main pass only, as the codecs)
if [[ " ${codecs[*]} " == *" deflate "* ]]; then
    sweep_np 2 d0.h5 "${small[@]}" --hdf5-deflate 0
    sweep_np 2 d9.h5 "${small[@]}" --hdf5-deflate 9
    check "deflate 0 and 9 hold the same data" h5diff --exclude-attribute / d0.h5 d9.h5
    check "deflate 9 is smaller than deflate 0" test "$(stat -c %s d9.h5)" -lt "$(stat -c %s d0.h5)"
fi
# Every codec: the same datasets as the default (zstd, np1..4 above) at 1 and 3 ranks.
for codec in "${codecs[@]}"; do
    for np in 1 3; do
        sweep_np "$np" "c$codec$np.h5" "${small[@]}" --compression "$codec"
        check "$codec at $np ranks equals zstd" h5diff --exclude-attribute / np1.h5 "c$codec$np.h5"
    done
done
if [[ " ${codecs[*]} " == *" none "* ]]; then
    check "zstd is smaller than none" test "$(stat -c %s np1.h5)" -lt "$(stat -c %s cnone1.h5)"
fi
expect_bad "unknown codec" -- sweep "${small[@]}" -o bad.h5 --compression gzip -- \
    "--compression 'gzip': must be zstd, lz4, deflate or none"
expect_bad "lz4 has no level" -- sweep "${small[@]}" -o bad.h5 --compression lz4 \
    --compression-level 3 -- "--compression lz4 has no level"
expect_bad "zstd level range" -- sweep "${small[@]}" -o bad.h5 --compression-level 30 -- \
    "--compression-level 30: must be 1 to 19 for --compression zstd"
expect_bad "--hdf5-deflate with --compression" -- sweep "${small[@]}" -o bad.h5 \
    --compression zstd --hdf5-deflate 1 -- "give either it or --compression"
sweep_np 2 nol.h5 "${small[@]}" --no-landscape
check "--no-landscape: no /landscape, fronts kept" $py - nol.h5 np1.h5 <<'EOF'
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert "landscape" not in a and a.attrs["landscape"].startswith("not stored")
assert (a["pareto/index"][:] == b["pareto/index"][:]).all()
assert (a["topk/step_time"][:] == b["topk/step_time"][:]).all()
assert int(a.attrs["feasible_rows"]) == int(b.attrs["feasible_rows"])
EOF
expect_bad "pareto on --no-landscape" -- pareto nol.h5 -- "nol.h5" "no /landscape"

# The JSON attributes stay valid JSON for any double: json-glib 1.6 alone writes 1e+22
# as "1e+22.0" (a cluster file with a 1e6 TFLOP/s peak, the largest allowed, gives
# peak_flops 1e+18, written "1e+18").
cat >huge.ini <<'INI'
[cluster]
memory_gib = 80
peak_tflops_bf16 = 1000000
[level.0]
size = 8
bandwidth_GBps = 450
latency_us = 0.0000001
[level.1]
bandwidth_GBps = 50
latency_us = 8
INI
sweep_np 1 huge.h5 "${small[@]}" -c huge.ini --no-landscape --fix tp=2
check "every JSON attribute parses (huge numbers)" $py - huge.h5 <<'EOF'
import json, sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
for k in ["model", "cluster", "training", "knobs", "space"]:
    json.loads(a[k])
assert json.loads(a["cluster"])["peak_flops"]["bf16"] == 1e18
EOF

# Grid sweeps: one file, a point column, identical at 1, 2, 3 and 4 ranks (the weighted
# partition cuts through grid points differently at each count). With --mem-safety, so
# the interval columns (sweep --intervals) of points on two clusters and their fronts
# without the rows at memory risk are checked at every rank count too (issue 38).
grid="$PRISM_TEST_DATA/grids/small.ini"
for np in "${ranks[@]}"; do
    sweep_np $np grid$np.h5 --grid "$grid" --mem-safety
done
for np in "${ranks[@]:1}"; do
    check "grid datasets equal at 1 and $np ranks" h5diff --exclude-attribute / grid1.h5 \
        grid$np.h5
done
check "grid table and point column" $py - grid1.h5 <<'EOF'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g, L = f["grid"], f["landscape"]
n = len(g["rows"])
assert n == 8, n
assert [m.decode() for m in g["model"][:]] == ["gpt3-1.3b"] * 4 + ["llama2-7b"] * 4
assert list(g["devices"][:]) == [8, 16] * 4
first, rows = g["first_row"][:], g["rows"][:]
assert first[0] == 0 and (first[1:] == np.cumsum(rows)[:-1]).all()
point = L["point"][:]
assert len(point) == rows.sum()
for p in range(n):
    seg = point[first[p]:first[p] + rows[p]]
    assert (seg == p).all()
    assert g["feasible_rows"][p] == L["feasible"][first[p]:first[p] + rows[p]].sum()
    assert (L["devices"][first[p]:first[p] + rows[p]] == g["devices"][p]).all()
assert (L["zero"][:] == 1).all()               # [options] fix = zero=1
assert set(L["schedule"][:]) <= {0, 1}         # only = schedule=1f1b,interleaved
assert set(f["pareto/point"][:]) == set(range(n)) and set(f["topk/point"][:]) == set(range(n))
assert len(f["topk/index"]) == 5 * n           # [options] top = 5
assert "bytes_l2" in L and "bytes_l3" not in L  # the 3-level cluster file
# --mem-safety: no stored front or top row at memory risk; the interval holds the point
assert not f["pareto/mem_risk"][:].any() and not f["topk/mem_risk"][:].any()
assert (L["step_lo"][:] <= L["step_time"][:]).all() and (L["step_time"][:] <= L["step_hi"][:]).all()
EOF
expect_ok "pareto on a grid file" "point 7: llama2-7b on 16 x ../clusters/three-level.ini, gbs 64, seq 2048" -- pareto grid1.h5
expect_ok "info on a grid file" "grid: +8 points" -- info grid1.h5
check "  each point's model and cluster" bash -c "'$PRISM_BINARY' info grid1.h5 | grep -cE '^ +[0-9]+ +(8|16) +64 +2048 +[0-9]+ +[0-9]+ +[0-9]+  (gpt3-1.3b|llama2-7b) on (A100-80GB|[.][.]/clusters/three-level[.]ini)$' | grep -qx 8"
"$PRISM_BINARY" info grid1.h5 --json >grid-info.json
check "  and in --json, as /grid holds them" $py - grid1.h5 grid-info.json <<'EOF'
import h5py, json, sys
d = json.load(open(sys.argv[2]))
g = h5py.File(sys.argv[1], "r")["grid"]
pts = d["grid"]
assert [p["point"] for p in pts] == list(range(8)), pts
for p in pts:
    i = p["point"]
    assert p["model"] == g["model"][i].decode() and p["cluster"] == g["cluster"][i].decode(), p
    assert (p["devices"], p["rows"], p["first_row"]) == (g["devices"][i], g["rows"][i], g["first_row"][i]), p
assert sum(p["rows"] for p in pts) == d["rows"], d["rows"]
EOF
# a file without /grid/model (damaged, or another writer): the names are "?", a warning says
# why, and the rest is read as before
cp grid1.h5 nomodel.h5 && $py -c "import h5py; f = h5py.File('nomodel.h5', 'r+'); del f['grid']['model']"
check "  a grid without /grid/model" bash -c "'$PRISM_BINARY' info nomodel.h5 2>nomodel.err | grep -cE '^ +[0-9]+ .*  [?] on ' | grep -qx 8 &&
    grep -qF \"warning: nomodel.h5: no column 'model' in /grid\" nomodel.err"
# a --where that keeps one point: the others summed up in one line
expect_ok "pareto --where on one point" "no row passes the filter at grid points 0, 1, 2, 4, 5, 6, 7" -- \
    pareto grid1.h5 --where point=3

# Bad input: exit 2 with one clear message.
expect_bad "deflate level" -- sweep "${small[@]}" -o x.h5 --hdf5-deflate 12 -- "--hdf5-deflate 12"
expect_bad "chunk 0" -- sweep "${small[@]}" -o x.h5 --hdf5-chunk 0 -- "--hdf5-chunk 0"
expect_bad "spill rows too many" -- sweep "${small[@]}" -o x.h5 --spill-rows 99999999 -- \
    "--spill-rows 99999999" "16777216"
expect_bad "empty output name" -- sweep "${small[@]}" -o '' -- "-o ''" "empty"
expect_bad "no such folder" -- sweep "${small[@]}" -o no/such/dir/x.h5 -- "no/such/dir" \
    "does not exist"
mkdir -p adir.h5
expect_bad "output is a folder" -- sweep "${small[@]}" -o adir.h5 -- "adir.h5" "folder"
expect_bad "unwritable place" -- sweep "${small[@]}" -o /proc/prism-test.h5 -- \
    "/proc/prism-test.h5"
mkdir -p pdir.h5.partial
expect_bad "the .partial name is a folder" -- sweep "${small[@]}" -o pdir.h5 --force -- \
    "pdir.h5.partial is a folder"
mkdir -p foreign.h5.partial.spill && touch foreign.h5.partial.spill/notes.txt
expect_bad "a spill folder with other files" -- sweep "${small[@]}" -o foreign.h5 --force -- \
    "foreign.h5.partial.spill" "files prism did not write"
rm -rf pdir.h5.partial foreign.h5.partial.spill
expect_bad "resume and force" -- sweep "${small[@]}" -o x.h5 --resume --force -- "--resume" \
    "--force"
expect_bad "missing grid file" -- sweep --grid no-such-grid.ini -o x.h5 -- "no-such-grid.ini"
expect_bad "bad grid file" -- sweep --grid "$PRISM_TEST_DATA/grids/bad-knob.ini" -o x.h5 -- \
    "bad-knob.ini" "tp_overlap"
expect_bad "grid and --gbs" -- sweep --grid "$grid" --gbs 128 -o x.h5 -- "--gbs" "[grid] gbs"
printf '[grid]\nmodels = gpt3-1.3b\nclusters = H100-SXM; B200\ndevices = 8\ngbs = 64\nseq = 2048\n' > mixed.ini
expect_bad "a profile's device groups split the grid" -- sweep --grid mixed.ini --framework pytorch-fsdp \
    -o x.h5 -- "mixed.ini" "H100-SXM and B200" "[knobs.FAMILY]" "separate grids"
check "the same grid when --set leaves the groups nothing to change" expect_status 0 sweep \
    --grid mixed.ini --framework pytorch-fsdp --set attn_fwd_fraction=0.4 \
    --set attn_bwd_fraction=0.3 --set mx_cast_passes=1 --set mx_cast_efficiency=0 \
    --set grouped_gemm_ratio=1 \
    --set selective_policy=1 -o mixed.h5
expect_bad "grid and --top" -- sweep --grid "$grid" --top 3 -o x.h5 -- "--top" "[options] top"
printf '[grid]\nmodels = gpt3-1.3b\nclusters = H100-SXM; A100-40GB\ndevices = 8\ngbs = 64\nseq = 2048\n[options]\nmem_budget = 60\n' > budget.ini
expect_bad "a grid's memory budget above one point's device" -- sweep --grid budget.ini -o x.h5 -- \
    "grid budget.ini point 1 (gpt3-1.3b on 8 x A100-40GB, gbs 64, seq 2048)" \
    "[options] mem_budget 60 GiB exceeds the 40.0 GiB of a device"
expect_bad "--top 0" -- sweep "${small[@]}" --top 0 -o x.h5 -- "--top 0" "1 and 1000"
expect_bad "pareto: no file" -- pareto no-such.h5 -- "no-such.h5" "no such file"
echo "not hdf5" >text.h5
expect_bad "pareto: not HDF5" -- pareto text.h5 -- "text.h5" "not an HDF5 file"
expect_bad "info: not HDF5" -- info text.h5 -- "text.h5"
expect_bad "pareto: bad column" -- pareto np1.h5 --where "tpp<=2" -- "tpp" "closest: tp"
expect_bad "pareto: bad code" -- pareto np1.h5 --where "schedule=zb" -- "zb" "zb-h1"
expect_bad "pareto: bad objective" -- pareto np1.h5 --objectives step_time,peakmem -- \
    "peakmem" "peak_mem"
expect_bad "pareto: two files" -- pareto np1.h5 np2.h5 -- "one landscape file"
# an empty answer is refused like plan's "nothing fits" (it printed empty fronts, exit 0)
expect_bad "pareto: filter keeps nothing" -- pareto np1.h5 --where "tp<=0" -- "np1.h5" \
    "no row of 39626 passes --where 'tp <= 0'"
# Nothing feasible anywhere: the landscape is still written (every row is the record), then
# the diagnosis of `prism plan` (diagnose.h) and exit status 2 like plan. At 2 ranks; the
# text after the two summary lines is plan's output for the same setup, byte for byte.
nofit=(-m gpt3-1.3b -n 4:8 --gbs 32 --mem-budget 2.5 --fix tp=1,zero=0,offload=0)
cli_checks=$((cli_checks + 1))
cli_run_mpi 2 sweep "${nofit[@]}" -o nofit.h5 --no-progress --no-fsync
if cli_no_crash sweep "${nofit[@]}"; then
    cp "$out" nofit-sweep.txt
    cp "$err" nofit-sweep.err
    ((rc == 2)) && [[ -e nofit.h5 ]] && grep -q "(0 feasible)" nofit-sweep.txt &&
        grep -q "^Nothing fits in 2.5 GiB usable per device" nofit-sweep.txt &&
        grep -q "more devices: even 8x the devices (64) fit nothing" nofit-sweep.txt &&
        grep -q "error: nothing fits: the closest strategy needs 5.6 GiB" nofit-sweep.err ||
        cli_fail "sweep with nothing feasible: exit $rc, wanted 2 with the file and the diagnosis"
fi
check "sweep's diagnosis is plan's" expect_status 2 plan "${nofit[@]}" --no-progress
check "same text" diff <(tail -n +4 nofit-sweep.txt) out.txt
expect_bad "pareto: nothing feasible" -- pareto nofit.h5 -- "nofit.h5" "none of the 4807 rows" \
    "is feasible"
# The same for a grid: its file is complete, the diagnosis names the grid point whose
# closest strategy needs least (point 1: 16 devices; point 0 has 8), then plan's text for it.
printf '[grid]\nmodels = gpt3-175b\nclusters = A100-40GB\ndevices = 8; 16\ngbs = 32\nseq = 2048\n' >nofit-grid.ini
cli_checks=$((cli_checks + 1))
cli_run sweep --grid nofit-grid.ini -o nofit-grid.h5 --no-progress --no-fsync
if cli_no_crash sweep --grid nofit-grid.ini; then
    cp "$out" nofit-grid.txt
    ((rc == 2)) && grep -q "(0 feasible) in 2 setups" nofit-grid.txt &&
        grep -qF "No point of grid nofit-grid.ini has a feasible strategy; the closest is point 1 (gpt3-175b on 16 x A100-40GB, gbs 32, seq 2048):" nofit-grid.txt &&
        grep -q "^Nothing fits in 40.0 GiB usable per device" nofit-grid.txt &&
        grep -q "error: nothing fits: the closest strategy needs 62.2 GiB" "$err" &&
        "$PRISM_BINARY" info nofit-grid.h5 | grep -q "^file: *nofit-grid.h5 (complete)" ||
        cli_fail "grid with nothing feasible: exit $rc, wanted 2, the complete file and the point"
fi
check "the grid's diagnosis is plan's for that point" expect_status 2 plan -m gpt3-175b \
    -c A100-40GB -n 16 --gbs 32 --seq 2048 --no-progress
check "  same table" diff <(sed -n '/^Nothing fits/,/^What would/p' nofit-grid.txt) \
    <(sed -n '/^Nothing fits/,/^What would/p' out.txt)
# the suggestions also name the grid file's key, and no budget above the 40 GiB device
check "  suggestions in the grid's words" bash -c "grep -qF \"  - more devices: with --devices 32 (or the grid file's devices), \" nofit-grid.txt &&
    grep -qF '  - a device with 62.3 GiB or more (this one has 40.0): the closest strategy needs 62.2 GiB' nofit-grid.txt &&
    ! grep -q -- '--mem-budget' nofit-grid.txt"
check "  plan's in its options" bash -c "grep -qF '  - more devices: with --devices 32, ' out.txt &&
    grep -qF '  - a device with 62.3 GiB or more (this one has 40.0)' out.txt"
cli_checks=$((cli_checks + 1))
[[ ! -e x.h5 && ! -e x.h5.partial && ! -e .partial ]] ||
    cli_fail "a refused sweep left x.h5, x.h5.partial or .partial"

# Intervals (sweep --intervals, here through --mem-safety; issue 38): the interval columns
# are the scalar reference's (the best row against explain; the lean kernels' bits are
# every ISA's: test_kernels), and memory and its class are checked on every row by hand:
# at the pessimistic corner cuda_context is 300 MB x 400/300 = 400 MB and allocator_reserve
# 0.343 x 0.420/0.343 = 0.42 (cost_ranges.c) on the transient bytes (the peak less the peak
# stage's params, grads and optimizer state); no ranged knob moves the allocated peak; NCCL
# holds 2 x 16 channels x 9,633,792 B = 308,281,344 B per group of more than one rank (tp,
# cp, dp, ep, pp). The budget of 16 GiB leaves rows of all three classes.
ivs=(-m gpt3-1.3b -n 8 --gbs 32 --fix offload=0 --mem-budget 16) # 28,734 strategies
# (rank invariance: the grid sweeps above, at every rank count)
check "sweep --mem-safety" expect_status 0 sweep "${ivs[@]}" --mem-safety --hdf5-chunk 4096 \
    -o iv1.h5 --no-progress --no-fsync
# pareto --robust: the front over (step_hi, mem_hi) of the rows that fit without risk
check "pareto --robust --mem-safety" expect_status 0 pareto iv1.h5 --robust --mem-safety --json
cp out.txt robust.json
# its best row through explain (the scalar reference), which widens by the track record
best=$($py -c "import json, sys; print(json.load(open('robust.json'))['points'][0]['top'][0]['strategy'])")
check "explain its best" expect_status 0 explain "${ivs[@]:0:6}" --mem-budget 16 --json \
    -s "$(sed 's/devices=[0-9]*,//' <<<"$best")"
check "interval columns by hand, the front, explain" env PYTHONPATH="$PRISM_SOURCE_DIR/scripts" \
    $py - iv1.h5 robust.json out.txt <<'PY'
import json, sys
import h5py
import numpy as np
import prism_landscape as pl
ls = pl.load(sys.argv[1])
step, lo, hi = ls["step_time"], ls["step_lo"], ls["step_hi"]
assert np.all((lo <= step) & (step <= hi) & (lo < hi)), "step outside its interval"
groups = sum((ls[d] > 1).astype(float) for d in ("tp", "cp", "dp", "ep", "pp"))
nccl = 308281344.0 * groups
alloc = ls["peak_mem"]
trans = alloc - (ls["params_mem"] + ls["grads_mem"] + ls["optimizer_mem"])
want_hi = alloc + trans * 0.42 + (400e6 + nccl)
dev = alloc + trans * 0.343 + (300e6 + nccl)
assert np.allclose(ls["mem_hi"], want_hi, rtol=1e-12, atol=0), "mem_hi"
usable = 16 * 2.0**30
risk = np.where(dev > usable, 2, np.where(want_hi > usable, 1, 0))
near = np.abs(want_hi - usable) < 1e-9 * usable
assert np.all((ls["mem_risk"] == risk) | near), "mem_risk"
assert set(np.bincount(ls["mem_risk"]).nonzero()[0]) == {0, 1, 2}, "not all three classes"
assert ls.code("mem_risk", "at risk") == 1
assert np.all(ls["feasible"][ls["mem_risk"] == 2] == 0), "a row over the device feasible"
# --mem-safety: the stored fronts and top lists hold no row at memory risk
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["intervals"] == "ranges, mem_safety"
    for g in ("pareto", "topk"):
        assert len(f[g + "/mem_risk"]) > 0 and not f[g + "/mem_risk"][:].any(), g
        assert np.array_equal(f[g + "/step_hi"][:], hi[f[g + "/index"][:]]), g
# pareto --robust: pl.pareto_mask is exact with prism's tie rule (checked against an O(n^2)
# brute force in sweep_scripts.sh); here over the interval columns
d = json.load(open(sys.argv[2]))
p = d["points"][0]
m = ls.mask("feasible==1, mem_risk==0")
idx = np.nonzero(m)[0]
front = set(idx[pl.pareto_mask(ls["step_hi"][m], ls["mem_hi"][m])].tolist())
assert {e["index"] for e in p["front"]} == front, (len(p["front"]), len(front))
assert d["objectives"] == ["step_hi", "mem_hi"] and d["rank_by"] == "step_hi", d["objectives"]
i = p["top"][0]["index"]
assert hi[i] == hi[idx].min(), "top list not by step_hi"
# explain's interval is the stored one widened: stored / (1 +/- widen_step), bit for bit
e = json.load(open(sys.argv[3]))["interval"]
assert e["step"] == step[i] and e["step_lo"] == lo[i] / (1.0 + e["widen_step"]), (e, i)
assert e["step_hi"] == hi[i] / (1.0 - e["widen_step"]), e
assert e["mem_hi"] == ls["mem_hi"][i] / (1.0 - e["widen_mem"]), e
PY
check "pareto --robust on a landscape without intervals exits 2" expect_status 2 pareto np1.h5 --robust
check "  names the option" grep -q "sweep --intervals" err.txt

# each rank count left out skips 5 checks: the sweep and its h5diff, for one setup and for
# the grid, and `pareto --json` at that count; each codec left out 4 (two sweeps, two
# h5diffs), and "zstd is smaller than none" needs none
cli_done $((113 - 5 * skipped - 4 * (3 - ${#codecs[@]}) - 5 * (${#codecs[@]} < 3)))
