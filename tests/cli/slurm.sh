#!/usr/bin/env bash
# slurm.sh - scripts/slurm_sweep.sbatch under a real Slurm: a private one-node cluster
# (Debian's slurmctld + slurmd + munged, everything in a temporary folder), then
#  1. three wall-time SIGTERMs in one job, each mid-sweep: to the batch script (what the
#     script's --signal=B:TERM@300 does), to the ranks (--signal=TERM@N without B:), to
#     both (the time limit itself). Each time the job must requeue itself and resume; the
#     fourth run finishes with datasets identical to an uninterrupted `mpirun` run (h5diff);
#  2. a SIGKILL of the ranks, then a user's `scancel` of the resubmitted job: neither is
#     requeued; a third submission (1 rank instead of 2) resumes to the same datasets;
#  3. a bad grid file: exit 2, NOT requeued, and the log says why.
# PRISM_IO_TEST_DELAY_MS slows each spill record down so the signals land mid-sweep.
#
# Needs root and the packages of `scripts/setup.sh --tests`. Without them the test is skipped
# (exit 77, with the reason) - except under CI=true, where it fails instead. It stops every
# job and daemon it started and removes its folder on any exit (trap EXIT).
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
rm -rf -- ./job-*.log ./grid.ini ./slurm-logs
sbatch_script=$PRISM_SOURCE_DIR/scripts/slurm_sweep.sbatch
sweep_opts=(--spill-rows 1000 --round-rows 4000)
delay_ms=40

# skip REASON: exit 77 (ctest: skipped) with the reason, or fail under CI=true. Once root
# has every package, a cluster that does not come up is a failure (setup_failed).
skip() {
    if [[ ${CI:-} == true ]]; then
        echo "FAIL: CI=true and the Slurm test cannot run: $*" >&2
        exit 1
    fi
    echo "SKIP: $* (the Slurm test needs root and 'scripts/setup.sh --tests')"
    exit 77
}
setup_failed() {
    echo "FAIL: the private Slurm cluster did not come up: $*" >&2
    exit 1
}
for tool in munged munge slurmctld slurmd sbatch scontrol scancel squeue sinfo srun h5diff; do
    command -v "$tool" >/dev/null || skip "'$tool' is not installed"
done
(($(id -u) == 0)) || skip "not root (slurmd must run as root to start jobs)"

# ---- the private cluster ------------------------------------------------------------------
deadline=$((SECONDS + 150)) # every wait below ends by then; ctest's TIMEOUT is 240
# Socket paths must stay below 108 bytes: the folder is under the short per-test TMPDIR.
sl=$(mktemp -d "${TMPDIR:-/tmp}/slurm.XXXXXX") || setup_failed "cannot create a temporary folder"
chmod 755 "$sl" # munged wants its socket folder searchable by everyone
daemons=()

# Every process of this cluster but the daemons: whatever carries our SLURM_CONF in its
# environment (slurmstepd, the batch scripts, srun and the prism ranks). Bash builtins only,
# so the scan itself starts no process that carries it.
our_pids() {
    local p v e
    for p in /proc/[0-9]*; do
        mapfile -d "" e 2>/dev/null <"$p/environ" || continue
        for v in "${e[@]}"; do
            if [[ $v == "SLURM_CONF=$sl/slurm.conf" ]]; then
                echo "${p#/proc/}"
                break
            fi
        done
    done
}

cleanup() {
    local rc=$? i pids
    trap - EXIT
    if [[ ${SLURM_CONF:-} == "$sl/slurm.conf" && -n $(squeue -h -o %i 2>/dev/null) ]]; then
        # shellcheck disable=SC2046
        scancel --quiet --signal=KILL --full $(squeue -h -o %i) 2>/dev/null
        for ((i = 0; i < 50; i++)); do
            [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
            sleep 0.1
        done
    fi
    # slurmd and slurmctld first (they need munged to say goodbye), then munged.
    for d in "${daemons[@]:1}" "${daemons[@]:0:1}"; do
        kill -TERM "$d" 2>/dev/null || continue
        for ((i = 0; i < 50; i++)); do
            kill -0 "$d" 2>/dev/null || break
            sleep 0.1
        done
    done
    # Whatever is left (a daemon or slurmstepd that hangs, an orphaned rank): by its id.
    pids="$(our_pids) ${daemons[*]}"
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    wait 2>/dev/null
    if ((rc != 0 && rc != 77)) && [[ -d $sl ]]; then
        # Keep the daemons' logs next to the job logs for the post-mortem.
        mkdir -p slurm-logs && cp "$sl"/*.log "$sl"/*.out slurm-logs/ 2>/dev/null
        echo "the daemons' logs are in $PWD/slurm-logs" >&2
    fi
    rm -rf -- "$sl"
    echo "[${SECONDS}s] cluster stopped, folder removed"
    exit "$rc"
}
trap cleanup EXIT

# Two free TCP ports (the kernel picks them; a clash with another cluster is then unlikely).
read -r ctld_port slurmd_port < <(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])') || setup_failed "no free TCP port"
node=$(hostname -s)
# The node as slurmd sees this machine: its cores and memory.
node_hw=$(slurmd -C 2>/dev/null | head -n 1)
[[ $node_hw == NodeName=* ]] || setup_failed "slurmd -C cannot read the node's hardware"
mkdir -p "$sl/state" "$sl/spool" "$sl/tmp" "$sl/pmix"
cat >"$sl/slurm.conf" <<EOF
# A one-node cluster for tests/cli/slurm.sh; everything lives in $sl.
ClusterName=prismtest
# Job ids unique among the clusters running at once (the port is ours while slurmctld lives):
# Open MPI names its shared-memory segments after the PMIx namespace, slurm.pmix.JOB.STEP,
# and two clusters both at job 1 had their ranks attach each other's segments (segfaults).
FirstJobId=$((ctld_port * 1000 + 1))
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sl/munge.sock
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
TmpFS=$sl/tmp
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
JobRequeue=1
ReturnToService=2
KillWait=5
MinJobAge=600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
$node_hw NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
sed -i 's/ UpTime=[^ ]*//' "$sl/slurm.conf"
echo "PMIxCliTmpDirBase=$sl/pmix" >"$sl/mpi.conf"
export SLURM_CONF=$sl/slurm.conf

# munged with its own key and socket (no system-wide key, socket or daemon is used).
(umask 077 && head -c 1024 /dev/urandom >"$sl/munge.key")
munged -F --key-file="$sl/munge.key" --socket="$sl/munge.sock" --pid-file="$sl/munged.pid" \
    --log-file="$sl/munged.log" --seed-file="$sl/munged.seed" >"$sl/munged.out" 2>&1 &
daemons+=($!)
# until_ok SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds, for at most
# SECONDS and never past the test's deadline (so that the test fails by itself, and its trap
# stops the cluster, well before ctest's TIMEOUT would kill it). Every 0.05 s, the polls'
# scontrol/sed/find processes took half of this test's 30 CPU-s; a run's spilling lasts
# about 1.5 s (37 records of 1,000 rows per rank at 40 ms each), so 0.2 s still lands
# mid-sweep.
until_ok() {
    local end=$((SECONDS + $1))
    shift
    ((end > deadline)) && end=$deadline
    while ((SECONDS < end)); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    "$@" >/dev/null 2>&1
}
munge_up() { munge -S "$sl/munge.sock" -n </dev/null | unmunge -S "$sl/munge.sock"; }
if ! until_ok 10 munge_up; then
    tail -n 3 "$sl/munged.out" >&2
    setup_failed "munged did not start"
fi
slurmctld -D -f "$sl/slurm.conf" >"$sl/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$sl/slurm.conf" -N "$node" >"$sl/slurmd.out" 2>&1 &
daemons+=($!)
node_idle() { [[ $(sinfo -h -n "$node" -o %T 2>/dev/null) == idle ]]; }
if ! until_ok 30 node_idle; then
    tail -n 5 "$sl/slurmctld.out" "$sl/slurmd.out" >&2
    setup_failed "slurmctld/slurmd did not bring node $node up within 30 s"
fi
echo "[${SECONDS}s] Slurm $(sinfo -V | cut -d' ' -f2) up in $sl: $node_hw"

# ---- helpers ------------------------------------------------------------------------------
# The grid: one model at 8 and 16 devices = 73,784 rows (26,092 + 47,692).
printf '[grid]\nmodels = gpt3-1.3b\ndevices = 8; 16\ngbs = 64\n' >grid.ini

# job_field JOB KEY: one field of `scontrol show job` (the record stays MinJobAge seconds).
job_field() {
    scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# submit NTASKS OUTPUT.h5 [GRID]: sbatch the script on this node with NTASKS ranks (at most
# 2, so LeakSanitizer stays on in sanitizer builds, as for mpirun), the spill slowed down;
# sets $job.
submit() {
    job=$(PRISM="$PRISM_BINARY" PRISM_IO_TEST_DELAY_MS=$delay_ms sbatch --parsable --nodes=1 \
        --ntasks-per-node="$1" --time=30 --output="$PWD/job-%j.log" "$sbatch_script" \
        "${3:-grid.ini}" "$2" "${sweep_opts[@]}" 2>sbatch-stderr.txt)
    if [[ ! $job =~ ^[0-9]+$ ]]; then
        cli_fail "sbatch failed: $(cat sbatch-stderr.txt)"
        exit 1
    fi
}

# spilled FOLDER SESSIONS BYTES: $job runs, FOLDER holds spill files of SESSIONS sessions
# (sNNNN-rNNNNN.spill) and the newest session's files hold BYTES: this run is mid-sweep.
spilled() {
    [[ $(job_field "$job" JobState) == RUNNING && -d $1 ]] || return 1
    local sessions
    mapfile -t sessions < <(find "$1" -name 's*-r*.spill' -printf '%f\n' | cut -c1-5 | sort -u)
    ((${#sessions[@]} == $2)) &&
        (($(du -cb "$1/${sessions[-1]}"-r*.spill | tail -n 1 | cut -f1) >= $3))
}

# interrupt FOLDER SESSIONS BYTES SCANCEL_ARGS...: once run SESSIONS of $job has spilled
# BYTES into FOLDER (mid-sweep), `scancel SCANCEL_ARGS...`.
interrupt() {
    local folder=$1 run=$2 bytes=$3
    shift 3
    cli_checks=$((cli_checks + 1))
    if until_ok 30 spilled "$folder" "$run" "$bytes"; then
        scancel "$@"
    else
        cli_fail "job $job did not run, or finished before 'scancel $*'"
    fi
}

# settled: $job has ended, or waits in the queue after a requeue (Reason=BeginTime); sets
# $state and $restarts.
settled() {
    local rec
    rec=$(scontrol -o show job "$job" 2>/dev/null | tr ' ' '\n')
    state=$(sed -n 's/^JobState=//p' <<<"$rec") restarts=$(sed -n 's/^Restarts=//p' <<<"$rec")
    case $state in
    COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL) ;;
    PENDING) grep -qx 'Reason=BeginTime' <<<"$rec" ;;
    *) return 1 ;;
    esac
}

# steps_gone: no step daemon of $job is left (their sockets leave the spool folder).
steps_gone() { ! compgen -G "$sl/spool/*_$job.*"; }

# requeued RESTARTS: $job is back in the queue for the RESTARTS-th time. Slurm holds a
# requeued job for about two minutes (its BeginTime); once the previous run's step daemons
# have gone (and the second of the kill has passed), start it now instead (a new step started earlier can find the old one's PMIx
# socket still bound, and srun then exits 0 without running anything).
requeued() {
    cli_checks=$((cli_checks + 1))
    until_ok 60 settled
    if [[ $state != PENDING || $restarts != "$1" ]]; then
        cli_fail "job $job was not requeued: state $state, restarts $restarts (wanted $1)"
        tail -n 8 "job-$job.log" >&2
        return 1
    fi
    until_ok 30 steps_gone
    # slurmd revokes the killed run's job credential and refuses a new credential issued in
    # the same second ("Job credential revoked", the job then FAILS with exit 1:0): its
    # times have a one-second resolution. Under load the requeue can come within 0.1 s of
    # the kill, so let the second turn over before starting the job again.
    sleep 2
    scontrol update JobId="$job" StartTime=now
}

# ended STATE RESTARTS DESCRIPTION [EXIT_CODE]: $job ends in STATE after RESTARTS requeues
# (with EXIT_CODE).
ended() {
    cli_checks=$((cli_checks + 1))
    until_ok 60 settled
    local code
    code=$(job_field "$job" ExitCode)
    if [[ $state != "$1" || $restarts != "$2" || -n ${4:-} && $code != "$4" ]]; then
        cli_fail "$3: job $job is $state, exit code $code, restarts $restarts;" \
            "wanted $1${4:+, $4}, restarts $2"
        tail -n 8 "job-$job.log" >&2
    fi
}

# log_has DESCRIPTION REGEX: the job's log matches (extended regex).
log_has() {
    check "$1" grep -qE -- "$2" "job-$job.log"
}

# log_story REGEX: the script's events in $job's log, joined with ';', match REGEX whole.
log_story() {
    local story events
    events='run [0-9]+ on|SIGTERM received|interrupted \(status [0-9]+, job [A-Z]+'
    story=$(grep -oE "$events|sweep complete" "job-$job.log" | paste -sd ';')
    echo "the log says: $story"
    [[ $story =~ ^$1$ ]]
}

no_sanitizer_report() {
    ! grep -E 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' \
        job-*.log
}

# ---- the reference: uninterrupted, mpirun, 2 ranks ----------------------------------------
cli_checks=$((cli_checks + 1))
cli_run_mpi 2 sweep --grid grid.ini -o ref.h5 --no-progress "${sweep_opts[@]}"
((rc == 0)) || cli_fail "reference sweep exited $rc: $(head -3 "$err")"
echo "[${SECONDS}s] reference written"

# ---- 1. three wall-time warnings in one job, each mid-sweep; requeued and resumed each time
#  run 1: `scancel -b --signal=TERM`: SIGTERM to the batch shell only - what the script's
#         own --signal=B:TERM@300 does; the script passes it on to the ranks (exit 130);
#  run 2: `scancel --signal=TERM`: SIGTERM to the ranks only - what --signal=TERM@N without
#         B: does (exit 130);
#  run 3: `scancel --signal=TERM --full`: SIGTERM to the shell, srun and the ranks at once -
#         what the time limit itself sends (srun then SIGKILLs its tasks: exit 137);
#  run 4: finishes.
# 73,784 rows in records of 1,000 rows: the spill folder grows to about 3.3 MB (zstd
# chunks of 1,000 rows); each run is interrupted once it has spilled 0.3 MB of its own.
submit 2 term.h5
interrupt term.h5.partial.spill 1 300000 --batch --signal=TERM "$job"
if requeued 1; then
    interrupt term.h5.partial.spill 2 300000 --signal=TERM "$job"
    if requeued 2; then
        interrupt term.h5.partial.spill 3 300000 --signal=TERM --full "$job"
        requeued 3
    fi
fi
ended COMPLETED 3 "requeued three times, then finished" 0:0
# The script's own account of each run, in order (in run 3 srun's SIGKILL and prism's clean
# stop race: 137 or 130).
story="run 1 on;SIGTERM received;interrupted \(status 130, job RUNNING"
story+=";run 2 on;interrupted \(status 130, job RUNNING"
story+=";run 3 on;SIGTERM received;interrupted \(status 13[07], job RUNNING"
story+=";run 4 on;sweep complete"
check "the log tells each run's interruption and requeue, in order" log_story "$story"
check "requeued and resumed run equals the uninterrupted one" \
    h5diff --exclude-attribute / ref.h5 term.h5
check "four sessions recorded" grep -q '"sessions" : 4' <("$PRISM_BINARY" info term.h5 --json)
check "no partial left" test ! -e term.h5.partial -a ! -e term.h5.partial.spill
echo "[${SECONDS}s] case 1 done (job $job)"

# ---- 2. SIGKILL, then scancel: neither requeued; resubmitted with 1 rank, resumes --------
# `scancel --signal=KILL JOBID.0` is a SIGKILL of every rank at once (as the OOM killer or a
# KillWait expiry would); `scancel --signal=KILL JOBID` without the step would be a plain
# cancel (SIGTERM first, SIGKILL after KillWait), which case 2b covers.
submit 2 kill.h5
interrupt kill.h5.partial.spill 1 300000 --signal=KILL "$job.0"
ended FAILED 0 "SIGKILL of the ranks"
log_has "SIGKILL: the log says it is not requeued" "failed with status 137: NOT requeued"
check "SIGKILL: partial kept" test -d kill.h5.partial.spill
# 2b. A user's `scancel` of the resubmitted job (1 rank) mid-sweep: stays cancelled.
submit 1 kill.h5
interrupt kill.h5.partial.spill 2 300000 "$job"
ended CANCELLED 0 "scancel"
log_has "scancel: the log says it is not requeued" "job is ending .*NOT requeued"
# 2c. Resubmitted once more: resumes and finishes.
submit 1 kill.h5
ended COMPLETED 0 "resubmitted after SIGKILL and scancel, 1 rank" 0:0
log_has "resubmitted run: 1 rank" "run 1 on 1 node\(s\), 1 ranks"
check "resumed with 1 rank equals the uninterrupted one" h5diff --exclude-attribute / ref.h5 \
    kill.h5
check "three sessions recorded" grep -q '"sessions" : 3' <("$PRISM_BINARY" info kill.h5 --json)
echo "[${SECONDS}s] case 2 done"

# ---- 3. bad input: exit 2, not requeued, the log says why ---------------------------------
submit 2 bad.h5 "$PRISM_TEST_DATA/grids/bad-gbs.ini"
ended FAILED 0 "bad grid" 2:0
log_has "bad grid: prism's message names the file and the value" \
    "^prism: error: .*bad-gbs\.ini.*-8"
log_has "bad grid: the log says it is not requeued" "bad input .*exit 2, NOT requeued"
check "bad grid: nothing written" test ! -e bad.h5 -a ! -e bad.h5.partial
check "no sanitizer report in any job log" no_sanitizer_report

cli_done 28
