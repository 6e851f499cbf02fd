#!/usr/bin/env bash
# lsan_selftest.sh - the sanitizer pass's leak checking works as tests/CMakeLists.txt sets
# it up (fast unwinder, Open MPI suppressions, dlclose kept and leak checking off inside
# MPI_Init/MPI_Finalize and on the threads Open MPI starts there, by keep_dso.c): a program
# that leaks 4099 bytes from malloc between MPI_Init and MPI_Finalize, 2053 from malloc on a
# GLib thread it starts after MPI_Init, and 3071 from g_strdup_printf after MPI_Finalize,
# on purpose, must fail with exactly those three leaks, the stacks naming the leaking
# functions of tests/support/lsan_selftest.c (the malloc ones) or keep_dso.c's vasprintf
# (the GLib one), and no Open MPI leak. Run at 1 rank alone and
# under mpiexec at 1 and 2 ranks (leak checks are on up to 2). Sanitizer builds only.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
: "${PRISM_LSAN_SELFTEST:?set by tests/CMakeLists.txt}"

# leak_report LOG N: the program failed, and LeakSanitizer reported exactly the three leaks
# in each of its N processes.
leak_report() {
    local log=$1 n=$2
    count() { grep -c -- "$1" "$log"; }
    [[ $(count 'lsan_selftest: leaked 4099, 2053 and 3071 bytes on purpose') == "$n" ]] || return 1
    [[ $(count 'ERROR: LeakSanitizer: detected memory leaks') == "$n" ]] || return 1
    [[ $(count '^Direct leak of\|^Indirect leak of') == $((3 * n)) ]] || return 1
    [[ $(count '^Direct leak of 4099 byte(s) in 1 object(s)') == "$n" ]] || return 1
    [[ $(count '^Direct leak of 3071 byte(s) in 1 object(s)') == "$n" ]] || return 1
    [[ $(count '^Direct leak of 2053 byte(s) in 1 object(s)') == "$n" ]] || return 1
    [[ $(count 'in leak_from_malloc .*lsan_selftest.c') == "$n" ]] || return 1
    [[ $(count 'in leak_from_thread .*lsan_selftest.c') == "$n" ]] || return 1
    # GLib has no frame pointers: with the fast unwinder the stack of the second block
    # names vasprintf and GLib, not always leak_from_glib (tests/README.md)
    [[ $(count 'in vasprintf .*keep_dso.c') -ge "$n" ]] || return 1
    [[ $(count 'SUMMARY: AddressSanitizer: 9223 byte(s) leaked in 3 allocation(s)') == "$n" ]]
}

run_alone() {
    ! timeout 60 "$PRISM_LSAN_SELFTEST" >alone.log 2>&1 </dev/null && leak_report alone.log 1
}
run_mpi() { # NP
    ! timeout 60 "${MPIEXEC:-mpiexec}" -n "$1" "$PRISM_LSAN_SELFTEST" >"mpi$1.log" 2>&1 \
        </dev/null && leak_report "mpi$1.log" "$1"
}
check "alone: exactly the three planted leaks, no Open MPI leak" run_alone
check "mpiexec -n 1: the same" run_mpi 1
check "mpiexec -n 2: the same (one report per rank)" run_mpi 2
cli_done 3
