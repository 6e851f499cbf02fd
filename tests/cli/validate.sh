#!/usr/bin/env bash
# validate.sh - `prism validate`: the default CSV is predicted (per-source summary, skipped
# rows with reasons), and bad CSV input exits 2 naming the file and line. Counts its checks.
set -u
prism=${PRISM_BINARY:?}
src=${PRISM_SOURCE_DIR:?}
checks=0 fails=0
check() { local what=$1; shift; checks=$((checks + 1))
    if ! "$@"; then echo "FAIL: $what"; fails=$((fails + 1)); fi; }
run() { local want=$1; shift; "$prism" "$@" > out.txt 2> err.txt; local got=$?
    [[ $got == "$want" ]] || { echo "  exit $got, wanted $want: prism $*"; cat err.txt; return 1; }; }

check "validate the project copy" run 0 validate "$src/benchmarks/measured.csv"
check "per-source summary" grep -q "absolute percentage error per source" out.txt
check "ZB_PP memory is predicted" grep -Eq "^ZB_PP +[0-9.]+% / " out.txt
check "rows predicted" grep -Eq "^4[0-9] rows predicted" out.txt
check "MLM rows skipped with a reason" grep -q "MLM_README_H100_2024 GPT-1.7B: micro_batch not stated" out.txt
check "setup is listed" grep -q "per-source setup" out.txt
check "missing file exits 2" run 2 validate no-such.csv
check "names the file" grep -q "no-such.csv" err.txt
printf 'a,b\n1,2\n' > bad-header.csv
check "missing column exits 2" run 2 validate bad-header.csv
check "names the column" grep -q "no column 'source_id'" err.txt
head -1 "$src/benchmarks/measured.csv" > short.csv
echo "SC21_T1,x,1" >> short.csv
check "short row exits 2" run 2 validate short.csv
check "names the line" grep -q "short.csv line 2" err.txt
check "a knob override applies" run 0 validate "$src/benchmarks/measured.csv" --set compute_efficiency=0.5
echo "validate.sh: $checks checks, $fails failed"
[[ $checks -ge 13 && $fails == 0 ]]
