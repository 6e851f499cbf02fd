#!/usr/bin/env bash
# p2p_scan.sh - point-to-point MPI appears in one place only: src/core/core_reduce.c (the
# ordered rank tree) and src/core/core_comm.c (the wrapper). Scans the C sources under
# src/ cost/ search/ io/ (not tests/ or benchmarks/) for calls of MPI_Send, MPI_Recv,
# their nonblocking/buffered/synchronous/ready/persistent forms, MPI_Sendrecv and the
# probes, and fails listing file:line for every call found elsewhere. It first proves it
# can fail: a planted tree with an MPI_Send in search/ must be refused.
set -u
src=${PRISM_SOURCE_DIR:?PRISM_SOURCE_DIR is not set}

calls='MPI_(Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend|Send_init|Bsend_init|Ssend_init|Rsend_init|Recv|Irecv|Recv_init|Sendrecv|Sendrecv_replace|Probe|Iprobe|Mprobe|Improbe|Mrecv|Imrecv)'
allowed='^(src/core/core_reduce\.c|src/core/core_comm\.c):'

# scan ROOT: print offending "path:line: text" (relative to ROOT); status 1 if any.
scan() {
    local hits
    hits=$(cd "$1" && grep -rnE --include='*.c' --include='*.h' "\bP?${calls}[[:space:]]*\(" \
        src cost search io 2>/dev/null | grep -vE "$allowed")
    if [ -n "$hits" ]; then
        printf '%s\n' "$hits"
        return 1
    fi
    return 0
}

fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The scanner can fail: a planted MPI_Send in search/ is found, the allowed files not.
mkdir -p "$work/bad/src/core" "$work/bad/search" "$work/bad/io"
printf 'int f(void) { return MPI_Send (buf, 1, MPI_BYTE, 0, 0, c); }\n' >"$work/bad/search/planted.c"
printf 'int g(void) { return MPI_Recv(b, 1, MPI_BYTE, 0, 0, c, s); }\n' >"$work/bad/src/core/core_reduce.c"
printf '/* MPI_Probe + MPI_Get_count, named in prose only */\nint h(void) { return MPI_Iprobe(0, 0, c, &f, s); }\n' >"$work/bad/io/io_x.c"
out=$(scan "$work/bad")
status=$?
if [ $status -ne 1 ] || ! grep -q '^search/planted.c:1:' <<<"$out" ||
    ! grep -q '^io/io_x.c:2:' <<<"$out" || grep -q 'core_reduce' <<<"$out" ||
    grep -q '^io/io_x.c:1:' <<<"$out"; then
    echo "FAIL: the scanner did not refuse the planted tree as expected (status $status):"
    printf '%s\n' "$out"
    fail=1
else
    echo "ok: planted MPI_Send/MPI_Iprobe found, allowed file and prose ignored"
fi

# 2. A clean planted tree passes.
mkdir -p "$work/good/src/core" "$work/good/cost"
printf 'int g(void) { return MPI_Recv(b, 1, MPI_BYTE, 0, 0, c, s); }\n' >"$work/good/src/core/core_comm.c"
printf 'int k(void) { return MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, c); }\n' >"$work/good/cost/c.c"
if ! out=$(scan "$work/good"); then
    echo "FAIL: the scanner refused a clean tree:"
    printf '%s\n' "$out"
    fail=1
else
    echo "ok: clean planted tree passes"
fi

# 3. The real tree.
if ! out=$(scan "$src"); then
    echo "FAIL: point-to-point MPI outside src/core/core_reduce.c and core_comm.c" \
        "(use prism_comm_reduce_ordered(), comm.h):"
    printf '%s\n' "$out"
    fail=1
else
    echo "ok: no point-to-point MPI outside core_reduce.c/core_comm.c"
fi
exit $fail
