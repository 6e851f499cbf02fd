#!/usr/bin/env bash
# sweep_resume.sh - interruption and resume of `prism sweep` with 2 ranks:
#  1. kill -9 of both ranks while rows stream in, then --resume with 2 ranks: the final
#     datasets equal an uninterrupted run's (h5diff), and the run says 2 sessions;
#  2. SIGTERM to ONE rank: every rank stops at the same round, exit 130, a resumable
#     partial; --resume with 3 ranks (another partition) gives the same datasets;
#  3. kill -9 while the HDF5 file itself is being written, then --resume.
# PRISM_IO_TEST_DELAY_MS slows each spill record and each column write down so the
# signals land mid-run; --spill-rows and the hidden --round-rows make many records and
# rounds of a small space.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
small=(-m gpt3-1.3b -n 8:16 --gbs 64 --no-progress --spill-rows 2000 --round-rows 4000
    --fix offload=0) # offload pinned: the row counts below are without offloading
MPIEXEC=${MPIEXEC:-mpiexec}


# start NP FILE ARGS...: a slowed-down sweep in the background; sets $job.
# When a rank dies, mpirun signals the others and waits odls_base_sigkill_timeout (1 s)
# before SIGKILL: 1-2 s of each kill -9 case's wait here. Both ranks are killed there, so
# SIGKILL_WAIT=0 drops that wait; the SIGTERM case keeps Open MPI's default, which gives
# the ranks that stop on their own the time to write their state.
start() {
    local np=$1 file=$2
    shift 2
    OMPI_MCA_odls_base_sigkill_timeout=${SIGKILL_WAIT:-0} PRISM_IO_TEST_DELAY_MS=${DELAY:-60} \
        "$MPIEXEC" -n "$np" "$PRISM_BINARY" sweep "${small[@]}" \
        -o "$file" "$@" >bg-stdout.txt 2>bg-stderr.txt </dev/null &
    job=$!
}

# The rank processes of $job (mpirun's children running prism).
ranks() {
    ps -o pid=,comm= --ppid "$job" | awk '$2 == "prism" { print $1 }'
}

# wait_for PATH BYTES: until PATH (file or folder) holds BYTES, or the job ends / 30 s.
wait_for() {
    local i
    for ((i = 0; i < 300; i++)); do
        if [[ -e $1 ]] && (($(du -sb "$1" | cut -f1) >= $2)); then
            return 0
        fi
        kill -0 "$job" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# finish_job: wait for $job, sets $job_rc.
finish_job() {
    wait "$job"
    job_rc=$?
}

# resume NP FILE: --resume must succeed.
resume() {
    cli_checks=$((cli_checks + 1))
    cli_run_mpi "$1" sweep "${small[@]}" -o "$2" --resume
    if ((rc != 0)); then
        cli_fail "--resume of $2 with $1 ranks exited $rc"
        sed 's/^/  stderr: /' "$err" | head -5 >&2
    fi
}

# The reference: uninterrupted, 2 ranks.
cli_checks=$((cli_checks + 1))
cli_run_mpi 2 sweep "${small[@]}" -o ref.h5
((rc == 0)) || cli_fail "reference sweep exited $rc"

# 1. kill -9 of both ranks mid-stream.
start 2 kill.h5
cli_checks=$((cli_checks + 1))
if wait_for kill.h5.partial.spill 250000; then
    kill -9 $(ranks) 2>/dev/null
else
    cli_fail "the sweep ended before it could be killed"
fi
finish_job
check "killed run: mpirun reports failure" test "$job_rc" -ne 0
check "killed run: no final file" test ! -e kill.h5
check "killed run: partial file kept" test -e kill.h5.partial
expect_ok "info on the partial" "INCOMPLETE.*" -- info kill.h5.partial
check "info shows rows persisted" grep -qE "progress: +[1-9][0-9]* of 101644 rows persisted" \
    cli-stdout.txt
expect_bad "rerun without --resume" -- sweep "${small[@]}" -o kill.h5 -- "kill.h5.partial" \
    "--resume"
resume 2 kill.h5
check "resumed run equals the uninterrupted one" h5diff --exclude-attribute / ref.h5 kill.h5
check "two sessions recorded" grep -q '"sessions" : 2' <("$PRISM_BINARY" info kill.h5 --json)
check "spill folder removed" test ! -e kill.h5.partial.spill

# 2. SIGTERM to one rank: all stop, exit 130, resumable; resume with 3 ranks.
SIGKILL_WAIT=1 start 2 term.h5
cli_checks=$((cli_checks + 1))
if wait_for term.h5.partial.spill 250000; then
    kill -TERM $(ranks | tail -n 1) 2>/dev/null
else
    cli_fail "the sweep ended before SIGTERM"
fi
finish_job
check "SIGTERM: exit status 130" test "$job_rc" -eq 130
check "SIGTERM: message names --resume" grep -q -- "--resume" bg-stderr.txt
check "SIGTERM: interrupted, not crashed" grep -qi "interrupt" bg-stderr.txt
check "SIGTERM: no final file" test ! -e term.h5
expect_bad "--no-landscape would discard the rows" -- sweep "${small[@]}" -o term.h5 --resume \
    --no-landscape -- "term.h5.partial.spill" "--no-landscape"
resume 3 term.h5
check "resumed at 3 ranks equals the reference" h5diff --exclude-attribute / ref.h5 term.h5

# 3. kill -9 while the HDF5 file is written (after every row was spilled).
DELAY=150 start 2 late.h5
cli_checks=$((cli_checks + 1))
if wait_for late.h5.partial 300000; then
    kill -9 $(ranks) 2>/dev/null
else
    cli_fail "the sweep ended before the final write could be killed"
fi
finish_job
check "late kill: no final file" test ! -e late.h5
resume 2 late.h5
check "resume after a late kill equals the reference" h5diff --exclude-attribute / ref.h5 \
    late.h5

# 4. kill -9 mid-stream with the other codecs (case 1 is the default, zstd); spill
# records are compressed the same way whatever the codec (~25 B/row: 250 kB ~ 10^4 rows).
# Under the sanitizers lz4 only: prism's own filter plugin (io/filters); deflate and none
# are HDF5's, and prism's C is the same for them (tests/cli/sweep.sh likewise).
codecs=(lz4 deflate none)
[[ "${PRISM_TEST_SANITIZED:-0}" == 1 ]] && codecs=(lz4)
for codec in "${codecs[@]}"; do
    start 2 "k$codec.h5" --compression "$codec"
    cli_checks=$((cli_checks + 1))
    if wait_for "k$codec.h5.partial.spill" 250000; then
        kill -9 $(ranks) 2>/dev/null
    else
        cli_fail "$codec: the sweep ended before it could be killed"
    fi
    finish_job
    check "$codec: killed run left no final file" test ! -e "k$codec.h5"
    cli_checks=$((cli_checks + 1))
    cli_run_mpi 2 sweep "${small[@]}" -o "k$codec.h5" --resume --compression "$codec"
    ((rc == 0)) || cli_fail "$codec: --resume exited $rc"
    check "$codec: resumed run equals the reference" h5diff --exclude-attribute / ref.h5 \
        "k$codec.h5"
done
check "nothing left behind" test -z "$(ls -d ./*.partial* ./*.lock 2>/dev/null)"

cli_done $((37 - 4 * (3 - ${#codecs[@]}))) # 4 checks per codec
