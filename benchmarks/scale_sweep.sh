#!/usr/bin/env bash
# scale_sweep.sh - grid sweeps at dataset scale (issue 11 item 3) through the real CLI:
# every rank under /usr/bin/time -v, with and without the landscape, at the rank counts
# given, then `prism info` and `prism pareto` on the landscape, timed.
#
#   benchmarks/scale_sweep.sh PRISM GRID.ini OUTDIR "RANKS..." [extra sweep options]
#   e.g. benchmarks/scale_sweep.sh build/prism benchmarks/grids/1e8.ini /tmp/s8 "1 2"
#
# Per rank count, one line per mode: rows, wall s, rows/s, bytes/row on disk, spill
# bytes/row (the largest size of the spill folder, sampled every 0.5 s while the sweep
# runs: prism removes it at the end), then per rank its peak RSS (its own `time -v`, not
# mpirun's), user and sys s; then `prism info` and `prism pareto` on the landscape of the
# largest rank count (wall, user, peak RSS). bench_io measures one setup in-process with
# the phases split (search, spill, HDF5 write); this script measures what a user of
# `prism sweep --grid` gets at 10^7-10^8 rows. Logs stay in OUTDIR.
set -euo pipefail
prism=$1 grid=$2 dir=$3 ranks=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$dir"
count=$("$prism" sweep --grid "$grid" -o "$dir/x.h5" --count "$@" 2>&1 | tail -1)
echo "$count"
rows=$(echo "$count" | sed -E 's/^prism sweep: ([0-9]+) rows.*/\1/')
echo "machine: $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')"
last=
for np in $ranks; do
    for mode in landscape nolandscape; do
        out=$dir/r$np-$mode.h5
        extra=()
        [[ $mode == nolandscape ]] && extra=(--no-landscape)
        rm -f "$out".rank*.time
        # the spill folder's largest size, sampled while the sweep runs
        (
            peak=0
            while [[ ! -e $dir/.stop-$np-$mode ]]; do
                s=$(du -sb "$out.partial.spill" 2>/dev/null | cut -f1 || true)
                [[ -n $s ]] && ((s > peak)) && peak=$s
                echo "$peak" >"$out.spillpeak"
                sleep 0.5
            done
        ) &
        sampler=$!
        t0=$(date +%s.%N)
        # each rank writes its own time -v report (OMPI_COMM_WORLD_RANK is set by mpirun)
        mpirun -n "$np" sh -c 'exec /usr/bin/time -v -o "$0.rank$OMPI_COMM_WORLD_RANK.time" "$@"' \
            "$out" "$prism" sweep --grid "$grid" -o "$out" --force --no-progress \
            "${extra[@]}" "$@" >"$out.log" 2>&1
        t1=$(date +%s.%N)
        touch "$dir/.stop-$np-$mode"
        wait "$sampler"
        rm -f "$dir/.stop-$np-$mode"
        wall=$(echo "$t1 - $t0" | bc)
        bytes=$(stat -c %s "$out")
        spill=$(cat "$out.spillpeak")
        printf '%d rank(s) %-11s rows %d  wall %.1f s  %.0f rows/s  %.2f B/row on disk  spill %.2f B/row (peak %d B)\n' \
            "$np" "$mode" "$rows" "$wall" "$(echo "$rows / $wall" | bc -l)" \
            "$(echo "$bytes / $rows" | bc -l)" "$(echo "$spill / $rows" | bc -l)" "$spill"
        for ((r = 0; r < np; r++)); do
            f=$out.rank$r.time
            echo "    rank $r: peak RSS $(awk -F': ' '/Maximum resident/ {print $2}' "$f") KiB," \
                "user $(awk -F': ' '/User time/ {print $2}' "$f") s," \
                "sys $(awk -F': ' '/System time/ {print $2}' "$f") s"
        done
        [[ $mode == landscape ]] && last=$out
    done
done
for cmd in info pareto; do
    /usr/bin/time -f "prism $cmd: %e s wall, %U s user, %S s sys, %M KiB peak RSS" \
        "$prism" "$cmd" "$last" >"$last.$cmd.out" 2>"$last.$cmd.time" || true
    tail -1 "$last.$cmd.time"
done
