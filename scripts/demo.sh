#!/usr/bin/env bash
# demo.sh - the README's first command: install what is missing, build, and run the main
# job (`prism sweep` on the built-in default example: GPT-3 175B on 1024 A100-80GB,
# gbs 1536, seq 2048) into ./prism-demo.h5, then print its summary.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
build=${PRISM_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPRISM_BUILD_TESTS=OFF \
      -DPRISM_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"
out=${PRISM_DEMO_OUTPUT:-prism-demo.h5}
"$build/prism" sweep -o "$out" --force
"$build/prism" info "$out"
