#!/usr/bin/env bash
# scale_sweep.sh - a grid sweep at dataset scale (issue 11 item 3), every rank under
# /usr/bin/time -v, then `prism info` and `prism pareto` on the result, timed.
#
#   benchmarks/scale_sweep.sh PRISM GRID.ini OUT.h5 RANKS [extra sweep options]
#
# Prints the sweep's wall time and rows/s, the file's bytes/row, the peak RSS of every
# rank (from its own `time -v`, not mpirun's) and the wall times of `prism info` and
# `prism pareto`. Logs go next to OUT.h5 (OUT.h5.rank<R>.time, OUT.h5.sweep.log).
set -euo pipefail
prism=$1 grid=$2 out=$3 ranks=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$prism" sweep --grid "$grid" -o "$out" --count "$@" 2>&1 | tail -1
rows=$("$prism" sweep --grid "$grid" -o "$out" --count "$@" 2>&1 | tail -1 | sed -E 's/^prism sweep: ([0-9]+) rows.*/\1/')
t0=$(date +%s.%N)
# Each rank writes its own time -v report: OMPI_COMM_WORLD_RANK is set by mpirun.
mpirun -n "$ranks" sh -c 'exec /usr/bin/time -v -o "$0.rank$OMPI_COMM_WORLD_RANK.time" "$@"' \
    "$out" "$prism" sweep --grid "$grid" -o "$out" --force --no-progress "$@" \
    >"$out.sweep.log" 2>&1
t1=$(date +%s.%N)
wall=$(echo "$t1 - $t0" | bc)
bytes=$(stat -c %s "$out")
echo "rows $rows  sweep wall ${wall} s  $(echo "$rows / $wall" | bc) rows/s  file $bytes B = $(echo "scale=2; $bytes / $rows" | bc) B/row"
for ((r = 0; r < ranks; r++)); do
    f=$out.rank$r.time
    echo "rank $r: peak RSS $(awk -F': ' '/Maximum resident/ {print $2}' "$f") KiB," \
        "user $(awk -F': ' '/User time/ {print $2}' "$f") s, sys $(awk -F': ' '/System time/ {print $2}' "$f") s," \
        "wall $(awk -F': ' '/Elapsed/ {print $2}' "$f")"
done
for cmd in "info $out" "pareto $out"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "prism $cmd: %e s wall, %U s user, %M KiB peak RSS" "$prism" $cmd >"$out.${cmd%% *}.out" 2>"$out.${cmd%% *}.time" || true
    tail -1 "$out.${cmd%% *}.time"
done
