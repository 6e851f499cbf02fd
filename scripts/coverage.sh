#!/usr/bin/env bash
# coverage.sh - line coverage of the project's C sources by the default test pass:
# build with gcc --coverage (-O1) in a fresh folder, run the tests that test.sh runs
# (ctest -LE 'slow|bench'), then read every .gcda with gcov and print, per source file,
# the lines executed by any target (a file built into several targets, such as the HDF5
# filter codecs, counts a line once if any of them ran it), the largest gaps first.
#   scripts/coverage.sh [BUILD-DIR]   (default /tmp/prism-coverage; about 5 min on 2 cores)
#   scripts/coverage.sh --report BUILD-DIR [FILE]   only the report of an existing run;
#                                     with FILE (e.g. search/search_driver.c) its unrun lines
# Not part of CI: it is how the tests' gaps are found (tests/README.md, "Line coverage").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

report() { # build-dir [file]
    local dir=$1 only=${2:-}
    local work
    work=$(mktemp -d)
    # gcov -t: the annotated source on stdout, "count: line: text" with count '#####'
    # (never run), '-' (no code) or a number; one "Source:" header per file
    find "$dir" -name '*.gcda' -not -path '*/tests/*' -print0 |
        (cd "$work" && xargs -0 -n 16 gcov -t 2>/dev/null) > "$work/all.txt" || true
    /usr/bin/python3 - "$root" "$work/all.txt" "$only" <<'PY'
import re, sys
root, path, only = sys.argv[1], sys.argv[2], sys.argv[3]
ran, code, text = {}, {}, {}
src = None
for line in open(path, errors="replace"):
    m = re.match(r"\s*(\S+):\s*(\d+):(.*)", line.rstrip("\n"))
    if not m:
        continue
    count, no, body = m.group(1), int(m.group(2)), m.group(3)
    if no == 0:
        if body.startswith("Source:"):
            f = body[len("Source:"):]
            src = f[len(root) + 1:] if f.startswith(root + "/") else None
        continue
    if src is None or count == "-":
        continue
    code.setdefault(src, set()).add(no)
    text.setdefault(src, {})[no] = body
    if count not in ("#####", "====="):
        ran.setdefault(src, set()).add(no)
if only:
    for no in sorted(code.get(only, set()) - ran.get(only, set())):
        print(f"{only}:{no}:{text[only][no]}")
    sys.exit(0)
rows = []
for f in code:
    n, r = len(code[f]), len(code[f] & ran.get(f, set()))
    rows.append((n - r, n, r, f))
rows.sort(key=lambda x: (-x[0], x[3]))
N, R = sum(x[1] for x in rows), sum(x[2] for x in rows)
print(f"{'unrun':>6} {'lines':>6} {'run':>7}  file")
for miss, n, r, f in rows:
    print(f"{miss:6d} {n:6d} {100.0 * r / n:6.1f}%  {f}")
print(f"{N - R:6d} {N:6d} {100.0 * R / N:6.1f}%  all {len(rows)} files")
PY
    rm -rf "$work"
}

if [[ "${1:-}" == --report ]]; then
    report "${2:?--report BUILD-DIR [FILE]}" "${3:-}"
    exit
fi
dir=${1:-/tmp/prism-coverage}
rm -rf "$dir"
cmake -G Ninja -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g0 --coverage" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage \
    -DPRISM_BUILD_BENCHMARKS=OFF > /dev/null
cmake --build "$dir" -j"$(nproc)" > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# a failing test still leaves its coverage: report either way, then return ctest's status
status=0
ctest --test-dir "$dir" -LE 'slow|bench' -j"$(($(nproc) + 1))" --timeout 900 > "$dir/ctest.log" 2>&1 ||
    status=$?
tail -3 "$dir/ctest.log"
report "$dir"
exit "$status"
