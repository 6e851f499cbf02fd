#!/usr/bin/env bash
# sweep_scripts.sh - the Python tools in scripts/ on real landscapes:
#  - prism_landscape.pareto_mask equals an O(n^2) brute force on random data with ties
#    (2-4 objectives, max:, NaN) and equals the /pareto that prism sweep stored;
#  - Landscape.mask (prism's --where syntax) counts what `prism pareto --where` counts;
#  - plot_fronts / plot_heatmap / plot_demo write PNGs, and the heatmap's cells equal the
#    minimum computed directly;
#  - compare_landscapes matches rows by strategy, not index (a filtered sweep lines up),
#    reports no change for a file against itself and the changes of an ablation, and
#    keys on every dim the file names (a MoE space in which all of them vary);
#  - Landscape.strategy prints prism's text of a row.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
py=/usr/bin/python3
scripts=$PRISM_SOURCE_DIR/scripts
$py -c "import h5py, numpy, matplotlib" 2>/dev/null || {
    # scripts/setup.sh installs them, so in CI (.ci/run sets CI=true) a skip would hide a
    # broken set-up: fail there; skip only on a developer machine without them.
    if [[ ${CI:-} == true ]]; then
        echo "FAIL: Debian's python3-h5py/numpy/matplotlib are missing (scripts/setup.sh)"
        exit 1
    fi
    echo "SKIP: Debian's python3-h5py/numpy/matplotlib are missing"
    exit 77
}
export PYTHONPATH=$scripts
small=(-m gpt3-1.3b -n 4:8 --gbs 32 --no-progress --no-fsync --fix offload=0) # 39,626 strategies

for args in "-o a.h5" "-o b.h5 --set tp_overlap=0.5" "-o z.h5 --fix zero=1"; do
    cli_checks=$((cli_checks + 1))
    # shellcheck disable=SC2086
    cli_run sweep "${small[@]}" $args
    ((rc == 0)) || cli_fail "sweep $args exited $rc"
done
cli_checks=$((cli_checks + 1))
cli_run sweep --grid "$PRISM_TEST_DATA/grids/small.ini" -o g.h5 --no-progress
((rc == 0)) || cli_fail "grid sweep exited $rc"

# Schema 3: mfu and tokens_per_s are derived on read (io/README.md, "Derived columns").
# They equal the cost model's values (prism plan --json, float64) rounded to float32, as
# the stored columns held them; `prism pareto --json` (C) and the loader (numpy) agree on
# a grid file (per-point constants).
plan=(-m gpt3-1.3b -n 4:8 --gbs 32 --no-progress --fix offload=0) # the sweeps' setup, as prism plan takes it
"$PRISM_BINARY" plan "${plan[@]}" --json --top 50 --rank-by max:tokens_per_s >plan.json
"$PRISM_BINARY" pareto g.h5 --json --objectives max:mfu,peak_mem --rank-by max:tokens_per_s \
    >gpareto.json
check "derived mfu/tokens_per_s/hfu = the cost model's, float32" $py - <<'EOF'
import json, h5py, numpy as np, prism_landscape as pl
a = pl.load("a.h5")
assert a.derived == ["mfu", "tokens_per_s", "hfu"] and a.attrs["schema_version"] == 5, a.attrs
with h5py.File("a.h5", "r") as f:
    assert not {"mfu", "tokens_per_s", "hfu"} & set(f["landscape"])
    assert "flops_time" in f["landscape"] and "flops_time" not in f["pareto"]
    # the tables store hfu itself: the derived value of the same row
    assert np.array_equal(f["pareto"]["hfu"][:], a["hfu"][f["pareto"]["index"][:]])
# recompute rows: hfu > mfu (the check is not vacuous)
assert (a["hfu"] > a["mfu"]).any() and (a["hfu"] >= a["mfu"]).all()
d = json.load(open("plan.json"))
rows = d["front"] + d["top"]
assert len(rows) > 50
for e in rows:
    i = e["index"]
    for c in ("mfu", "tokens_per_s", "hfu"):
        assert a[c].dtype == np.float32
        assert a[c][i] == np.float32(e[c]), (c, i, a[c][i], e[c])
g = pl.load("g.h5")
q = json.load(open("gpareto.json"))
n = 0
for p in q["points"]:
    for e in p["front"] + p["top"]:
        for c in ("mfu", "tokens_per_s", "hfu"):
            assert float(g[c][e["index"]]) == e[c], (c, e["index"], g[c][e["index"]], e[c])
        n += 1
assert n > 10 and len(set(g["point"])) > 1
EOF

check "pareto_mask = brute force (random, ties, max:, NaN)" $py - <<'EOF'
import numpy as np, prism_landscape as pl
rng = np.random.default_rng(7)
for k in (2, 3, 4):
    for trial in range(20):
        n = int(rng.integers(1, 300))
        keys = [rng.integers(0, 6, n).astype(float) for _ in range(k)]  # many ties
        keys[0][rng.random(n) < 0.05] = np.nan
        mx = [bool(rng.integers(0, 2)) for _ in range(k)]
        got = pl.pareto_mask(*keys, maximize=mx, block=int(rng.integers(1, 64)))
        K = np.column_stack([-x if m else x for x, m in zip(keys, mx)])
        want = np.zeros(n, bool)
        for i in range(n):
            if np.isnan(K[i]).any():
                continue
            beaten = False
            for j in range(n):
                if j == i or np.isnan(K[j]).any():
                    continue
                le = (K[j] <= K[i]).all()
                if le and ((K[j] < K[i]).any() or j < i):
                    beaten = True
                    break
            want[i] = not beaten
        assert (got == want).all(), (k, trial)
EOF
check "pareto_mask = stored /pareto (a.h5, g.h5 per point)" $py - a.h5 g.h5 <<'EOF'
import sys, h5py, numpy as np, prism_landscape as pl
for path in sys.argv[1:]:
    ls = pl.load(path)
    obj = ls.attrs["objectives"].split(",")
    stored = h5py.File(path, "r")["pareto/index"][:]
    mine = []
    for p in ls.points():
        rows = np.flatnonzero((ls["feasible"] == 1) & (ls["point"] == p))
        keys = [ls[o.replace("max:", "")][rows] for o in obj]
        mine += list(rows[pl.pareto_mask(*keys, maximize=[o.startswith("max:") for o in obj])])
    assert sorted(mine) == sorted(stored), (path, len(mine), len(stored))
EOF
expect_json "pareto --where" "d['points'][0]['matched'] > 0" -- \
    pareto a.h5 --where "tp<=2,schedule=1f1b,mbs>1" --json
check "mask counts what prism pareto --where counts" $py - a.h5 cli-stdout.txt <<'EOF'
import sys, json, prism_landscape as pl
ls = pl.load(sys.argv[1])
d = json.load(open(sys.argv[2]))
m = ls.mask("tp<=2,schedule=1f1b,mbs>1")
assert int(m.sum()) == d["points"][0]["matched"]
assert int((m & (ls["feasible"] == 1)).sum()) == d["points"][0]["feasible"]
EOF

check "plot_fronts per grid point" bash -c "$py $scripts/plot_fronts.py g.h5 -o fronts.png --all \
    >fronts.txt"
check "plot_fronts drew 8 fronts" grep -q "8 fronts" fronts.txt
check "fronts.png is a PNG" $py -c "assert open('fronts.png','rb').read(8) == b'\x89PNG\r\n\x1a\n'"
check "plot_heatmap" $py "$scripts/plot_heatmap.py" a.h5 --x tp --y pp -o heat.png
check "heatmap cells = direct minimum" $py - a.h5 <<'EOF'
import sys, numpy as np, prism_landscape as pl
from plot_heatmap import best_table
ls = pl.load(sys.argv[1])
xv, yv, t, col, mx = best_table(ls, "tp", "pp", "step_time")
f = ls["feasible"] == 1
for i, y in enumerate(yv):
    for j, x in enumerate(xv):
        sel = f & (ls["tp"] == x) & (ls["pp"] == y)
        want = ls["step_time"][sel].min() if sel.any() else np.nan
        assert (np.isnan(want) and np.isnan(t[i, j])) or t[i, j] == want, (x, y)
EOF
check "plot_demo" $py "$scripts/plot_demo.py" a.h5 -o demo.png

check "compare: a file against itself" bash -c "$py $scripts/compare_landscapes.py a.h5 a.h5 \
    --json >self.json"
check "compare: no change" $py -c "
import json; d = json.load(open('self.json'))
assert d['matched'] == d['rows_a'] == 39626 and d['value_changed'] == 0
assert d['rank_changed'] == 0 and abs(d['rank_spearman'] - 1) < 1e-12 and d['top_overlap'] == 10"
check "compare: ablation" bash -c "$py $scripts/compare_landscapes.py a.h5 b.h5 --json \
    --csv rows.csv >ablation.json"
check "compare: ablation changes" $py - a.h5 b.h5 <<'EOF'
import json, csv, h5py, numpy as np
d = json.load(open("ablation.json"))
a, b = h5py.File("a.h5", "r")["landscape"], h5py.File("b.h5", "r")["landscape"]
changed = int((a["step_time"][:] != b["step_time"][:]).sum())  # same space: same indices
assert d["matched"] == 39626 and d["value_changed"] == changed > 0, (d["value_changed"], changed)
rows = list(csv.DictReader(open("rows.csv")))
assert len(rows) == 39626 and all(r["index_a"] == r["index_b"] for r in rows[:1000])
EOF
check "compare: matched by strategy, not index" bash -c "$py $scripts/compare_landscapes.py \
    a.h5 z.h5 --json >filtered.json"
check "compare: the zero=1 sweep lines up" $py - <<'EOF'
import json, h5py, numpy as np
d = json.load(open("filtered.json"))
z = h5py.File("z.h5", "r")["landscape"]
assert d["matched"] == d["rows_b"] == len(z["zero"]) and d["only_b"] == 0
assert d["only_a"] == 39626 - d["rows_b"] and d["value_changed"] == 0
EOF

# Two landscapes of a MoE space in which every strategy dim of the file varies (20 at
# schema 5: folded and tied experts, offload, every overlap option of megatron-core-moe,
# interleaving, block recompute, two device counts), one --set apart (the userbuffers' SMs,
# which the profile's TP overlap prices). The same space twice, so every row must match the
# row of its own index: rows that agree in fewer dims (the 14 an older compare keyed on)
# would collide. The strategy text must be unique per row and prism pareto's for every row
# it prints (etp where it differs from tp, as prism_strategy_format).
moe=(-m deepseek-v2-lite -c H100-SXM -n 4:8 --gbs 8 --seq 2048 --framework megatron-core-moe
    --range mbs=:2,tp=:2,cp=:2,vpp=:2 --no-progress --no-fsync
    --only zero=0,1,recompute=none,block:1,schedule=1f1b,interleaved,offload=0,1
    --only tp_overlap=0,1,dp_overlap=0,1,param_overlap=0,1)
for args in "-o m1.h5" "-o m2.h5 --set tp_ub_sms=24"; do
    cli_checks=$((cli_checks + 1))
    # shellcheck disable=SC2086
    cli_run sweep "${moe[@]}" $args
    ((rc == 0)) || cli_fail "sweep $args exited $rc"
done
check "compare: every dim varies, rows matched by all of them" $py - "$scripts" <<'EOF'
import sys, json, subprocess, h5py, numpy as np, prism_landscape as pl
out = subprocess.run([sys.executable, sys.argv[1] + "/compare_landscapes.py", "m1.h5", "m2.h5",
                      "--json", "--csv", "moe.csv"], capture_output=True, text=True, check=True)
d = json.loads(out.stdout)
a, b = pl.load("m1.h5"), pl.load("m2.h5")
with h5py.File("m1.h5", "r") as f:  # the file's own list of columns, read independently
    ints = [c for c in f["landscape"].attrs["columns"].split(",")
            if f["landscape"][c].dtype.kind == "u"]
assert a.dims == [c for c in ints if c not in ("point", "peak_stage", "feasible", "reason")]
with h5py.File("m1.h5", "r") as f:  # the writer's own list, which the loader reads
    assert f["landscape"].attrs["dims"].split(",") == a.dims
assert len(a.dims) == 20 and all(len(np.unique(a[c])) > 1 for c in a.dims), a.dims
assert d["matched"] == a.n == b.n == 11764 and d["only_a"] == d["only_b"] == 0, d
idx = np.loadtxt("moe.csv", delimiter=",", skiprows=1, usecols=(0, 1), dtype=np.int64)
assert len(idx) == a.n and (idx[:, 0] == idx[:, 1]).all()
changed = int((a["step_time"] != b["step_time"]).sum())
assert d["value_changed"] == changed > 0, (d["value_changed"], changed)
EOF
check "strategy text = prism pareto's, one per row" $py - "$PRISM_BINARY" <<'EOF'
import sys, json, subprocess, prism_landscape as pl
a = pl.load("m1.h5")
texts = [a.strategy(i) for i in range(a.n)]
assert len(set(texts)) == a.n
seen = set()
for where in ("", "tp_overlap=0", "dp_overlap=0", "param_overlap=0", "offload=1", "folding=1"):
    q = [sys.argv[1], "pareto", "m1.h5", "--json", "--top", "1000"]
    q += ["--where", where] if where else []
    d = json.loads(subprocess.run(q, capture_output=True, text=True, check=True).stdout)
    for p in d["points"]:
        for e in p["front"] + p["top"]:
            i = e["index"]
            assert texts[i] == e["strategy"], (texts[i], e["strategy"])
            seen.add(e["strategy"])
for part in (",etp=", ",offload=1", ",tp_overlap=0", ",dp_overlap=0", ",param_overlap=0"):
    assert any(part in t for t in seen), part
# etp stands in the text exactly where it differs from tp (prism_strategy_format)
for i in range(a.n):
    want = ",etp=%d," % a["etp"][i] if a["etp"][i] != a["tp"][i] else None
    assert (want in texts[i]) if want else (",etp=" not in texts[i]), texts[i]
EOF

# Bad input to the scripts: one "SCRIPT: error:" line naming the problem, exit status 2
# (they printed Python tracebacks).
script_bad() { # DESCRIPTION NEEDLE -- SCRIPT ARGS...
    local what=$1 needle=$2
    shift 3
    cli_checks=$((cli_checks + 1))
    $py "$@" >bad.out 2>bad.err
    local rc=$?
    if ((rc != 2)) || grep -q Traceback bad.err || (($(grep -c ': error: ' bad.err) != 1)) ||
        ! grep -qF -- "$needle" bad.err; then
        cli_fail "$what: exit $rc, stderr: $(head -c 300 bad.err)"
    fi
}
script_bad "missing file" "no-such.h5" -- "$scripts/plot_fronts.py" no-such.h5 -o x.png
script_bad "unknown column" "no column 'tpp'" -- "$scripts/plot_heatmap.py" a.h5 --x tpp -o x.png
script_bad "bad --where value" "'zb' is not a schedule" -- "$scripts/plot_fronts.py" a.h5 \
    --where schedule=zb -o x.png
cli_run sweep "${small[@]}" -o nol.h5 --no-landscape
script_bad "no /landscape" "has no /landscape" -- "$scripts/compare_landscapes.py" a.h5 nol.h5
# Every codec: the loader reads each file (HDF5_PLUGIN_PATH unset: it finds prism's
# plugins itself) and every column equals the deflate file's (deflate needs no plugin);
# Debian's own lz4 plugin (hdf5-filter-plugin, HDF Group code) reads prism's lz4 file;
# h5dump reads the zstd file through prism's plugin.
for codec in zstd lz4 deflate none; do
    cli_checks=$((cli_checks + 1))
    cli_run sweep "${small[@]}" -o "c_$codec.h5" --compression "$codec"
    ((rc == 0)) || cli_fail "sweep --compression $codec exited $rc"
done
# (the build folder is not the source tree's build/ in CI: PRISM_H5PLUGINS names it)
check "loader reads zstd, lz4, none = deflate; filters as asked" env -u HDF5_PLUGIN_PATH \
    PRISM_H5PLUGINS="$(dirname "$PRISM_BINARY")/h5plugins" $py - <<'EOF2'
import numpy as np, prism_landscape as pl, h5py
ref = pl.load("c_deflate.h5")
want = {"zstd": 32015, "lz4": 32004, "deflate": 1, "none": None}
for codec, fid in want.items():
    ls = pl.load(f"c_{codec}.h5")
    assert ls.names == ref.names and len(ref.names) > 30, codec
    for c in ref.names:
        a, b = ls[c], ref[c]
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), (codec, c)
    with h5py.File(f"c_{codec}.h5", "r") as f:
        for c in ("step_time", "dp", "schedule"):
            plist = f["landscape"][c].id.get_create_plist()
            ids = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
            assert (fid in ids) if fid else ids == [], (codec, c, ids)
EOF2
deb=/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins
check "Debian's lz4 plugin reads prism's lz4 file" env HDF5_PLUGIN_PATH=$deb $py -c "
import hdf5plugin, h5py, numpy as np
a, b = h5py.File('c_lz4.h5', 'r')['landscape'], h5py.File('c_none.h5', 'r')['landscape']
assert all(np.array_equal(a[c][:], b[c][:], equal_nan=True) for c in b)"
check "h5dump reads the zstd file with prism's plugin" bash -c \
    "h5dump -d /landscape/step_time -s 5 -c 1 c_zstd.h5 | grep -qE '\(5\): [0-9]'"
# The plugins' compressing direction (prism writes its chunks itself, so only other
# writers run it): h5repack through prism's zstd (level 5) and lz4 filters, h5diff
# against the uncompressed file (prism's plugins decode), the filter recorded on the
# datasets, and Debian's lz4 plugin (another implementation of the format, and no
# prism plugin on its path) reads the lz4 file. No independent zstd decoder is packaged
# for h5py here (python3-hdf5plugin points at Debian's plugin folder, which has none);
# the zstd frames are libzstd's own.
check "prism's plugins compress (h5repack); Debian's lz4 reads it" bash -c "
h5repack -f UD=32015,0,1,5 c_none.h5 rz.h5 && h5repack -f UD=32004,0,0 c_none.h5 rl.h5 &&
h5diff c_none.h5 rz.h5 && h5diff c_none.h5 rl.h5 &&
h5dump -p -H -d /landscape/step_time rz.h5 | grep -q 'FILTER_ID 32015' &&
h5dump -p -H -d /landscape/step_time rl.h5 | grep -q 'FILTER_ID 32004' &&
env HDF5_PLUGIN_PATH=$deb $py -c \"
import h5py, numpy as np
a, b = h5py.File('rl.h5', 'r')['landscape'], h5py.File('c_none.h5', 'r')['landscape']
assert sorted(a) == sorted(b) and len(b) > 30
assert all(np.array_equal(a[c][:], b[c][:], equal_nan=True) for c in b)
\""

cli_done 37
