#!/usr/bin/env bash
# sweep_nospace.sh - write errors never hang and never leave a file that claims to be
# complete. A small tmpfs is mounted (needs root; the test is skipped otherwise):
#  1. 1 MiB: ENOSPC while rows are spilled (2 ranks) -> exit 1, one message naming the
#     spill file and "No space left on device", no final file;
#  2. room for the spill records but not for the HDF5 file: ENOSPC inside the collective
#     HDF5 write -> the job ends (MPI_Abort, exit 1) with the message instead of hanging
#     in HDF5's collective close; no final file; after growing the file system,
#     --resume completes it and the datasets equal a run on ordinary disk.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
small=(-m gpt3-1.3b -n 8:16 --gbs 64 --no-progress --no-disk-check --fix offload=0) # 101,644 strategies; the
# disk pre-check would refuse both tiny file systems before any work (sweep_safety.sh)
mnt=$PWD/mnt
mkdir -p "$mnt"
mountpoint -q "$mnt" && umount "$mnt"
if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=1m prism-test "$mnt" 2>/dev/null; then
    echo "SKIP: cannot mount a tmpfs (needs root)"
    exit 77
fi
trap 'umount "$mnt" 2>/dev/null' EXIT

# expect_fail DESCRIPTION NEEDLE... : the last run exited 1 with one message holding NEEDLEs.
expect_fail() {
    local what=$1
    shift
    cli_checks=$((cli_checks + 1))
    if ((rc != 1)); then
        cli_fail "$what: exit status $rc, expected 1"
        sed 's/^/  stderr: /' "$err" | head -8 >&2
        return 0
    fi
    if (($(grep -c '^prism: error:' "$err") != 1)); then
        cli_fail "$what: expected one 'prism: error:' line"
        sed 's/^/  stderr: /' "$err" | head -8 >&2
    fi
    for needle in "$@"; do
        grep -qF -- "$needle" "$err" || cli_fail "$what: the message lacks '$needle'"
    done
}


# The reference on ordinary disk.
cli_checks=$((cli_checks + 1))
cli_run_mpi 2 sweep "${small[@]}" -o ref.h5
((rc == 0)) || cli_fail "reference sweep exited $rc"

# 1. No room for the spill records.
cli_run_mpi 2 sweep "${small[@]}" -o "$mnt/a.h5"
expect_fail "ENOSPC while spilling" "No space left on device" "a.h5.partial.spill" "--resume"
check "no final file (1)" test ! -e "$mnt/a.h5"
umount "$mnt"

# 2. Room for the spill records but not for the HDF5 file. The spill records are the
# file's own chunks (io/README.md), so the spill takes about the file's size F, and the
# final write needs F more while the spill still exists: a tmpfs of 1.5 F holds the spill
# and runs out in the HDF5 write.
fsize=$(stat -c %s ref.h5)
size=$((fsize * 3 / 2))
mount -t tmpfs -o size=$size prism-test "$mnt"
cli_run_mpi 2 sweep "${small[@]}" -o "$mnt/b.h5"
expect_fail "ENOSPC in the HDF5 write" "No space left on device" "b.h5.partial failed" "H5Dwrite_chunk" \
    "--resume"
check "no final file (2)" test ! -e "$mnt/b.h5"
check "spill records kept" test -d "$mnt/b.h5.partial.spill"
mount -o remount,size=64m "$mnt"
cli_checks=$((cli_checks + 1))
cli_run_mpi 2 sweep "${small[@]}" -o "$mnt/b.h5" --resume
((rc == 0)) || {
    cli_fail "--resume after freeing space exited $rc"
    head -5 "$err" >&2
}
check "resumed file equals the reference" h5diff --exclude-attribute / ref.h5 "$mnt/b.h5"
check "no leftovers" test -z "$(ls "$mnt" | grep -v '^b.h5$')"

cli_done 9
