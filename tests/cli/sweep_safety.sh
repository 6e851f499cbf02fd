#!/usr/bin/env bash
# sweep_safety.sh - what `prism sweep -o` may touch (io/README.md, "Output safety"):
#  1. -o naming a device (/dev/null, with --force), a FIFO, a folder, a dangling symbolic
#     link or a link to a regular file: exit 2, and the node is untouched (stat before and
#     after: type, inode, size, mtime; the link's target too);
#  2. --force replaces a plain regular file and a landscape;
#  3. the lock NAME.partial.lock: a second --force writer during a run gets exit 2 with the
#     first one's pid, host and start time, and the first run completes with the same
#     datasets as an undisturbed run; a live holder (flock(1)) is refused; a lock file
#     left by a dead process is taken over; the lock file is gone after a complete run;
#  4. the disk pre-check: sweep --count prints rows, spill, file and free disk and writes
#     nothing; on a 2 MiB tmpfs the sweep (35,092 rows x 214 B of spill alone = 7.5 MB) is
#     refused with exit 2 before any work (the tmpfs stays empty); --no-disk-check lets it
#     run into ENOSPC instead (exit 1). Needs root for the mount: skipped with a message
#     otherwise, unless CI=true (then it is a failure).
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
rm -rf -- fifo adir dangling link target.txt plain.h5 mnt foreign.h5.partial.spill
small=(-m gpt3-1.3b -n 8 --gbs 64 --no-progress --fix offload=0) # 35,092 strategies, 0.4 s
# (offload pinned to 0: the sizes below were derived without offloading)

# node_state PATH: what must not change (lstat: type, inode, size, mtime, link target).
node_state() {
    stat -c '%F %i %s %Y %t:%T' -- "$1"
    [[ -L $1 ]] && readlink -- "$1"
    return 0
}

# refused WHAT PATH NEEDLE... : sweep -o PATH --force exits 2 with one message holding the
# NEEDLEs, and PATH is exactly as before.
refused() {
    local what=$1 path=$2
    shift 2
    local before after
    before=$(node_state "$path")
    expect_bad "$what" -- sweep "${small[@]}" -o "$path" --force -- "$@" "nothing was changed"
    after=$(node_state "$path")
    check "$what: node untouched" test "$before" == "$after"
}

cli_checks=$((cli_checks + 1))
cli_run sweep "${small[@]}" -o ref.h5
((rc == 0)) || cli_fail "reference sweep exited $rc"

# 1. Nodes that are not regular files.
refused "-o /dev/null --force" /dev/null "/dev/null" "is a character device"
check "/dev/null is still the null device" test -c /dev/null
mkfifo fifo
refused "-o a FIFO" fifo "is a FIFO"
mkdir adir
refused "-o a folder" adir "is a folder"
ln -s no-such-target dangling
refused "-o a dangling symlink" dangling "is a symbolic link" "no-such-target"
check "the dangling link's target was not created" test ! -e no-such-target
echo "not a landscape" >target.txt
ln -s target.txt link
t_before=$(node_state target.txt)
refused "-o a symlink to a regular file" link "is a symbolic link"
check "the link's target is untouched" test "$t_before" == "$(node_state target.txt)"

# 2. --force replaces a plain regular file and a landscape.
echo "plain" >plain.h5
expect_bad "a regular file without --force" -- sweep "${small[@]}" -o plain.h5 -- \
    "plain.h5 exists" "--force"
expect_ok "--force replaces a plain file" "35092 rows" -- sweep "${small[@]}" -o plain.h5 --force
check "--force replaces a landscape" "$PRISM_BINARY" sweep "${small[@]}" -o plain.h5 --force
check "the lock file is removed after a complete run" test ! -e plain.h5.partial.lock

# 3. The lock. A slowed first writer (PRISM_IO_TEST_DELAY_MS: ~13 records and 40 column
# writes of 60 ms), a second --force writer while it runs.
PRISM_IO_TEST_DELAY_MS=60 timeout 60 "$PRISM_BINARY" sweep "${small[@]}" --spill-rows 2000 \
    -o busy.h5 >first.out 2>first.err </dev/null &
first=$!
for ((i = 0; i < 200; i++)); do
    [[ -s busy.h5.partial.lock && -d busy.h5.partial.spill ]] && break
    sleep 0.05
done
owner=$(sed -n 's/^pid=//p' busy.h5.partial.lock)
check "the lock names the running prism process" test "$(cat "/proc/$owner/comm")" == prism
expect_bad "a second --force writer" -- sweep "${small[@]}" -o busy.h5 --force -- \
    "another prism sweep is writing it" "pid $owner on host $(hostname)" "started 20"
check "the first run is still running" kill -0 "$first"
wait "$first"
first_rc=$?
check "the first run completed (exit 0)" test "$first_rc" -eq 0
check "its datasets equal an undisturbed run's" h5diff --exclude-attribute / ref.h5 busy.h5
check "and it left no lock" test ! -e busy.h5.partial.lock

# A live holder that is not prism (flock(1) on the same file): refused; with a record that
# is not prism's, the refusal says so instead of naming an owner.
# held_refused WHAT FILE.h5 NEEDLE: hold FILE.h5's lock (its content as it is) during a sweep.
held_refused() {
    flock -n "$2.partial.lock" sleep 10 &
    local holder=$!
    sleep 0.3
    expect_bad "$1" -- sweep "${small[@]}" -o "$2" -- "$3"
    kill "$holder" 2>/dev/null
    wait "$holder" 2>/dev/null
}
if command -v flock >/dev/null; then
    held_refused "a lock held by a live process" held.h5 "another prism sweep is writing it"
    printf '[[[not a lock record\n' >junk.h5.partial.lock
    held_refused "a held lock with an unreadable record" junk.h5 \
        "another prism sweep is writing it (an unreadable lock record; lock junk.h5.partial.lock)"
else
    cli_checks=$((cli_checks + 2)) # flock(1) is in util-linux, present on Debian
    cli_fail "flock(1) is missing"
fi

# A socket where the file goes: refused even with --force, left alone
/usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock.h5')"
expect_bad "a socket at the output path" -- sweep "${small[@]}" -o sock.h5 --force -- \
    "-o sock.h5: is a socket" "never replaces anything else"
check "the socket is still there" test -S sock.h5
rm -f sock.h5

# A run refused after it took the lock (a spill folder holding a file prism did not write)
# removes its lock file.
mkdir -p foreign.h5.partial.spill && touch foreign.h5.partial.spill/mine.txt
expect_bad "a spill folder with a foreign file" -- sweep "${small[@]}" -o foreign.h5 --force -- \
    "it holds files prism did not write"
check "the refused run left no lock file" test ! -e foreign.h5.partial.lock

# A lock file left by a dead process: taken over (info message), the run completes.
printf 'pid=999999\nhost=gone-host\nstarted=2020-01-01T00:00:00Z\n' >stale.h5.partial.lock
cli_checks=$((cli_checks + 1))
PRISM_LOG=info cli_run sweep "${small[@]}" -o stale.h5
((rc == 0)) || cli_fail "a stale lock: exit $rc"
grep -qF "taking over the lock of a run that is gone (pid 999999 on host gone-host" "$err" ||
    cli_fail "a stale lock: no takeover message"
check "stale lock: datasets equal the reference" h5diff --exclude-attribute / ref.h5 stale.h5

# 4. The disk pre-check. (GLib writes "2.2 MB" with a no-break space, two bytes of UTF-8:
# one or two characters depending on the locale, hence .{1,2}.)
expect_ok "sweep --count" "35092 rows; spill 2\.2.{1,2}MB \\(64 B/row.*file ~.*free in" -- \
    sweep "${small[@]}" -o counted.h5 --count
check "--count writes nothing" test -z "$(ls -d counted.h5* 2>/dev/null)"
mkdir -p mnt
mountpoint -q mnt && umount mnt
if [[ $(id -u) -eq 0 ]] && mount -t tmpfs -o size=2m prism-test mnt 2>/dev/null; then
    trap 'umount mnt 2>/dev/null' EXIT
    # Uncompressed (the file is rows x 214 B, ~5.6 MB): the compressed spill and a zstd
    # file (~25 B/row each, ~1.3 MB together) would fit in the 2 MB.
    expect_bad "disk too small" -- sweep "${small[@]}" -o mnt/full.h5 --compression none -- \
        "-o mnt/full.h5" \
        "the sweep needs about" "free" "--no-disk-check"
    check "refused before any work: the tmpfs is empty" test -z "$(ls -A mnt)"
    cli_checks=$((cli_checks + 1))
    cli_run sweep "${small[@]}" -o mnt/full.h5 --no-disk-check --compression none
    ((rc == 1)) && grep -qF "No space left on device" "$err" ||
        cli_fail "--no-disk-check on a full disk: exit $rc, expected 1 with ENOSPC"
    umount mnt
    trap - EXIT
elif [[ ${CI:-} == true ]]; then
    cli_checks=$((cli_checks + 3))
    cli_fail "cannot mount a tmpfs in CI (needs root): the disk pre-check was not tested"
else
    echo "SKIP (visible): the disk-full pre-check needs root to mount a tmpfs"
    cli_checks=$((cli_checks + 3))
fi

cli_done 37
