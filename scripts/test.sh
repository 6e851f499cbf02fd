#!/usr/bin/env bash
# test.sh - the README's test command: install what is missing, configure a FRESH build
# folder, build with -Werror, run every test (unit, MPI at 1-4 ranks, CLI), then build
# and run the suite again under ASan+UBSan in a separate folder.
#   PRISM_SKIP_SANITIZE=1  skip the sanitizer pass (it roughly doubles the time)
#   PRISM_JOBS=N           parallel build jobs (default: nproc)
#   PRISM_TEST_JOBS=N      parallel tests (default: nproc + 1: many tests wait on
#                          mpiexec start-up, signals or Slurm, and a third test fills
#                          those gaps; tests/README.md, "Measured times")
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${PRISM_JOBS:-$(nproc)}
test_jobs=${PRISM_TEST_JOBS:-$(($(nproc) + 1))}
bash "$root/scripts/setup.sh" --tests   # --tests: also Slurm + munge for tests/cli/slurm.sh

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

run_suite() { # build-dir, "extra ctest args", extra cmake args...
    local build=$1 ctest_extra=$2; shift 2
    rm -rf "$build"   # fresh: serial vs parallel HDF5 is cached in CMakeCache.txt
    cmake -S "$root" -B "$build" -DPRISM_WERROR=ON "$@"
    cmake --build "$build" -j"$jobs"
    # shellcheck disable=SC2086  # ctest_extra is a word list on purpose
    ctest --test-dir "$build" --output-on-failure -LE 'slow|bench' -j"$test_jobs" --timeout 600 \
        $ctest_extra
}

start=$(date +%s)
# -g1 in both passes: line tables only, so backtraces, gdb and the sanitizers' reports
# keep file:line; the builds took 10 s (main) and 25 s (sanitizer) less than with -g.
run_suite "$root/build-test" "" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
echo "test.sh: main suite passed in $(( $(date +%s) - start )) s"
if [[ "${PRISM_SKIP_SANITIZE:-0}" != 1 ]]; then
    start=$(date +%s)
    # A failing test is run once more in this pass only: LeakSanitizer's stop-the-world
    # tracer occasionally segfaults at exit of an Open MPI rank under load ("Tracer caught
    # signal 11"). Leak checks are off above 2 ranks for that reason (tests/README.md). A
    # real leak or memory error fails both runs; the main pass above never retries.
    # -O1: the optimisation level the sanitizers' documentation suggests; assertions stay
    # on (Debug) and the pass ran 24 % faster than at -O0 (tests/README.md).
    run_suite "$root/build-asan" "--repeat until-pass:2" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS_DEBUG="-g1 -O1" -DPRISM_SANITIZE=address,undefined \
        -DPRISM_BUILD_BENCHMARKS=OFF
    echo "test.sh: ASan+UBSan suite passed in $(( $(date +%s) - start )) s"
fi
echo "test.sh: all tests passed"
