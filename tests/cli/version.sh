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
cli_done 10
