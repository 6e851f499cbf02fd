#!/usr/bin/env bash
# analyze.sh - static analysis of prism's C sources (not part of CI: it takes about
# 2.5 minutes on 2 cores and most of what the path-sensitive checks report are paths
# the callers' invariants rule out; tests/README.md, "Static analysis", has the triage).
#   cppcheck   --enable=warning,portability with GLib's macro library (gtk.cfg)
#   clang-tidy the clang static analyzer (core, unix, deadcode, ...) and bugprone-*
#   clang      a -Werror build with clang (CI builds with GCC; clang warns on more)
# Needs Debian's cppcheck, clang-tidy and clang (apt-get install cppcheck clang-tidy clang).
#   PRISM_ANALYZE_BUILD=DIR  compile database folder (default: build-analyze, configured here)
#   PRISM_JOBS=N             parallel jobs (default: nproc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PRISM_ANALYZE_BUILD:-$root/build-analyze}
jobs=${PRISM_JOBS:-$(nproc)}
for tool in cppcheck run-clang-tidy clang; do
    if ! command -v "$tool" > /dev/null; then
        echo "analyze.sh: $tool not found (apt-get install cppcheck clang-tidy clang)" >&2
        exit 2
    fi
done
cmake -S "$root" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null
# generated headers (version.h, the kernel tables) must exist before the analysers read
cmake --build "$build" -j"$jobs" > /dev/null

echo "== cppcheck"
cppcheck --project="$build/compile_commands.json" --library=gtk --enable=warning,portability \
    --inline-suppr --quiet --suppress=missingIncludeSystem -j"$jobs" 2>&1 |
    grep -E '(warning|error):' || echo "(no finding)"

echo "== clang-tidy (analyzer + bugprone; src, cost, search, io)"
checks='-*,clang-analyzer-*,-clang-analyzer-security.insecureAPI.*,bugprone-*'
checks+=',-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier'
checks+=',-bugprone-narrowing-conversions,-bugprone-implicit-widening-of-multiplication-result'
checks+=',-bugprone-macro-parentheses,-bugprone-branch-clone,-bugprone-assignment-in-if-condition'
run-clang-tidy -p "$build" -j "$jobs" -quiet -checks="$checks" "^$root/(src|cost|search|io)/" 2>&1 |
    sed 's/\x1b\[[0-9;]*m//g' | grep -E 'warning:' | sort -u || echo "(no finding)"

echo "== clang -Werror build"
rm -rf "$build-clang"
CC=clang cmake -S "$root" -B "$build-clang" -DCMAKE_BUILD_TYPE=Release -DPRISM_WERROR=ON > /dev/null
if cmake --build "$build-clang" -j"$jobs" > "$build-clang.log" 2>&1; then
    echo "(clean; ctest --test-dir $build-clang runs the suite on it)"
else
    grep -E 'error|warning:' "$build-clang.log" | sort -u
    exit 1
fi
