#!/usr/bin/env bash
# validate.sh - `prism validate`: the default CSV is predicted (per-source summary, skipped
# rows with reasons), and bad CSV input exits 2 naming the file and line. Counts its checks.
set -u
prism=${PRISM_BINARY:?}
src=${PRISM_SOURCE_DIR:?}
. "${PRISM_SOURCE_DIR:?}/tests/support/cli.sh"

check "validate the project copy" expect_status 0 validate "$src/benchmarks/measured.csv"
check "per-source summary" grep -q "absolute percentage error per source" out.txt
check "ZB_PP memory is predicted" grep -Eq "^ZB_PP +[0-9.]+% / " out.txt
check "rows predicted" grep -Eq "^4[0-9] rows predicted" out.txt
check "9 rows planned, none skipped" grep -Eq "^4[0-9] rows predicted, 9 planned, 0 skipped" out.txt
check "planned table apart" grep -q "^PLANNED rows (not direct predictions" out.txt
check "planned summary" grep -Eq "^MLM_README_H100_2024 +[0-9.]+% / [0-9.]+% \(9\) +[0-9.]+% / " out.txt
check "planned rows keep the stated dims and Megatron-Core r0.8's options" /usr/bin/python3 - out.txt <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("MLM_README_H100_2024 GPT-")]
assert len(rows) == 9, len(rows)
for l in rows:
    fixed = dict(kv.split("=") for kv in l.split()[2].split(","))
    best = dict(kv.split("=") for kv in l.split()[4].split(","))
    for k in ("tp", "pp", "cp", "ep"):
        assert best[k] == fixed[k], (k, l)
    assert best["dp"] == "48", l
    assert best["schedule"] in ("1f1b", "interleaved") and best["zero"] in ("0", "1"), l
PY
check "no MLM row in the direct statistics" /usr/bin/python3 -c "
t = open('out.txt').read()
d = t[t.index('absolute percentage error per source: mean'):t.index(' rows predicted')]
assert 'MLM' not in d"
"$prism" validate "$src/benchmarks/measured.csv" > one-rank.txt 2>&1
check "planned mode is the same at 3 ranks" bash -c \
    "\${MPIEXEC:-mpiexec} -n 3 '$prism' validate '$src/benchmarks/measured.csv' > three-ranks.txt 2>&1 && cmp -s one-rank.txt three-ranks.txt"
check "setup is listed" grep -q "per-source setup" out.txt
check "missing file exits 2" expect_status 2 validate no-such.csv
check "names the file" grep -q "no-such.csv" err.txt
printf 'a,b\n1,2\n' > bad-header.csv
check "missing column exits 2" expect_status 2 validate bad-header.csv
check "names the column" grep -q "no column 'source_id'" err.txt
head -1 "$src/benchmarks/measured.csv" > short.csv
echo "SC21_T1,x,1" >> short.csv
check "short row exits 2" expect_status 2 validate short.csv
check "names the line" grep -q "short.csv line 2" err.txt
check "a knob override applies" expect_status 0 validate "$src/benchmarks/measured.csv" --set compute_efficiency=0.5
cli_done 18
