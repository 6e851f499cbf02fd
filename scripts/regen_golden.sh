#!/usr/bin/env bash
# regen_golden.sh - rewrite tests/golden/*.csv (golden Pareto fronts and top-5 lists) from
# the current cost model, then show the diff for review. Usage:
#   scripts/regen_golden.sh [BUILD_DIR]     (default: build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target test_front_golden -j2
PRISM_SOURCE_DIR=$root PRISM_REGEN_GOLDEN=1 OMPI_MCA_ess_singleton_isolated=1 \
    "$build/tests/test_front_golden"
git -C "$root" --no-pager diff --stat -- tests/golden
echo "regen_golden.sh: review 'git diff tests/golden' before committing"
