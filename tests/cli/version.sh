#!/usr/bin/env bash
# version.sh - `prism version` / `prism --version`, text and JSON; top-level usage.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"

expect_ok "version line" '^prism [0-9]+\.[0-9]+\.[0-9]+$' -- version
expect_ok "git revision" '^  git_revision +[0-9a-f]{7,}|^  git_revision +unknown' -- version
# the revision built (version.h is refreshed at every build, scripts/version.cmake), so a
# build after new commits does not report the revision of the last configure
want=$(git -C "$PRISM_SOURCE_DIR" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
expect_ok "git revision is the source tree's HEAD" "^  git_revision +$want\$" -- version
expect_ok "MPI library" '^  mpi_library +.+' -- version
expect_ok "kernel ISAs" "^  kernel_isas +scalar" -- version
expect_ok "HDF5" '^  hdf5_runtime +1\.[0-9]+\.[0-9]+' -- version
expect_ok "--version" '^prism ' -- --version
expect_json "JSON" '"version" in d and "compiler" in d and "build_type" in d and d["hdf5_runtime"] == d["hdf5_build"]' -- version --json
expect_ok "top-level --help lists commands" '^  models ' -- --help
expect_ok "version --help" 'Usage:' -- version --help
# No launcher: a command that opens no landscape file runs on a solo communicator without
# MPI_Init (include/prism/comm.h); it then answers where MPI cannot start (a PML that does
# not exist). PRISM_MPI=1, mpiexec and the HDF5 commands (sweep, info, pareto) start MPI.
expect_ok "no launcher: MPI not started" '^  mpi_started +no$' -- version
PRISM_MPI=1 expect_ok "PRISM_MPI=1 starts MPI" '^  mpi_started +yes$' -- version
cli_run_mpi 1 version
check "mpiexec -n 1 starts MPI" grep -qE '^  mpi_started +yes$' "$out"
OMPI_MCA_pml=doesnotexist expect_ok "models with a broken MPI" '^gpt3-1\.3b ' -- models
OMPI_MCA_pml=doesnotexist expect_ok "plan --count with a broken MPI" 'strategies' -- plan --count
# ... and that MPI is broken indeed (the two checks above could fail): a start fails in
# MPI_Init (exit 1 and Open MPI's message, not prism's exit 2 for the missing file).
broken_start() {
    OMPI_MCA_pml=doesnotexist ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 60 \
        "$PRISM_BINARY" "$@" > broken.out 2> broken.err
    local status=$?
    ((status == 1)) && grep -q 'MPI_Init' broken.err
}
PRISM_MPI=1 check "the broken MPI fails when started" broken_start version
check "info (HDF5) starts MPI: fails with the broken MPI" broken_start info none.h5
cli_done 17
