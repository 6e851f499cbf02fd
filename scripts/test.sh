#!/usr/bin/env bash
# test.sh - the README's test command: install what is missing, configure a FRESH build
# folder, build with -Werror, run every test (unit, MPI at 1-4 ranks, CLI), then build
# and run the suite again under ASan+UBSan in a separate folder.
#   PRISM_SKIP_SANITIZE=1  skip the sanitizer pass (it roughly doubles the time)
#   PRISM_JOBS=N           parallel build/test jobs (default: nproc)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${PRISM_JOBS:-$(nproc)}
bash "$root/scripts/setup.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

run_suite() { # build-dir, extra cmake args...
    local build=$1; shift
    rm -rf "$build"   # fresh: serial vs parallel HDF5 is cached in CMakeCache.txt
    cmake -S "$root" -B "$build" -DPRISM_WERROR=ON "$@"
    cmake --build "$build" -j"$jobs"
    ctest --test-dir "$build" --output-on-failure -LE 'slow|bench' -j"$jobs" --timeout 600
}

start=$(date +%s)
run_suite "$root/build-test" -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "test.sh: main suite passed in $(( $(date +%s) - start )) s"
if [[ "${PRISM_SKIP_SANITIZE:-0}" != 1 ]]; then
    start=$(date +%s)
    run_suite "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DPRISM_SANITIZE=address,undefined \
        -DPRISM_BUILD_BENCHMARKS=OFF
    echo "test.sh: ASan+UBSan suite passed in $(( $(date +%s) - start )) s"
fi
echo "test.sh: all tests passed"
