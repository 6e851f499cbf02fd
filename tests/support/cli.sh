# cli.sh - helpers for the CLI test scripts (tests/cli/*.sh), sourced by them.
#
# CTest runs each script with PRISM_BINARY, MPIEXEC, PRISM_TEST_DATA and PRISM_SOURCE_DIR
# in the environment and a fresh working directory. Each check counts; cli_done N fails
# the script unless exactly N checks ran and none failed (a script cannot silently stop
# early or run nothing). Every run is bounded by `timeout` so a hang is a failure.
set -u
: "${PRISM_BINARY:?PRISM_BINARY is not set (run through ctest)}"
: "${PRISM_TEST_DATA:?PRISM_TEST_DATA is not set (run through ctest)}"
cli_checks=0
cli_failures=0

# Every plan, explain and sweep on an H100 cluster prices the track record's published
# runs, the Playbook's 1,642 rows among them (0.2 s a call, seconds under ASan). Unless a
# script needs the shipped data whole (PRISM_TEST_FULL_DATA=1: the main pass of cli_track
# and cli_validate, which check the record's counts against the whole CSVs) or names its
# own, it reads the shipped CSVs with every 20th row of the two Playbook files: the same
# sources, profiles, cluster file and failure rows.
if [[ "${PRISM_TEST_FULL_DATA:-0}" != 1 && -z "${PRISM_VALIDATION_DIR:-}" &&
    -n "${PRISM_SOURCE_DIR:-}" ]]; then
    cli_thin=$PWD/validation-thin
    mkdir -p "$cli_thin"
    cp "$PRISM_SOURCE_DIR"/cost/validation/measured.csv \
        "$PRISM_SOURCE_DIR"/cost/validation/measured_modern.csv \
        "$PRISM_SOURCE_DIR"/cost/validation/*.ini "$cli_thin/"
    for f in measured_playbook measured_playbook_failed; do
        awk 'NR == 1 || NR % 20 == 2' "$PRISM_SOURCE_DIR/cost/validation/$f.csv" >"$cli_thin/$f.csv"
    done
    export PRISM_VALIDATION_DIR=$cli_thin
fi
cli_timeout=${PRISM_CLI_TIMEOUT:-60}

cli_fail() {
    echo "FAIL: $*" >&2
    cli_failures=$((cli_failures + 1))
}

# cli_run ARGS...: run prism; sets $rc, $out (stdout file) and $err (stderr file).
cli_run() {
    out=cli-stdout.txt err=cli-stderr.txt
    timeout "$cli_timeout" "$PRISM_BINARY" "$@" >"$out" 2>"$err" </dev/null
    rc=$?
}

# cli_run_mpi NP ARGS...: the same under mpiexec -n NP. Above 2 ranks LeakSanitizer is
# off in sanitizer builds (its tracer crashes at exit of oversubscribed Open MPI ranks; see
# tests/CMakeLists.txt); ASan and UBSan stay on.
cli_run_mpi() {
    local np=$1 asan=${ASAN_OPTIONS-}
    shift
    ((np > 2)) && asan=${asan//detect_leaks=1/detect_leaks=0}
    out=cli-stdout.txt err=cli-stderr.txt
    ASAN_OPTIONS=$asan timeout "$cli_timeout" "${MPIEXEC:-mpiexec}" -n "$np" "$PRISM_BINARY" "$@" \
        >"$out" 2>"$err" </dev/null
    rc=$?
}

# A crash (signal), a hang (timeout's 124) or a sanitizer report is never acceptable.
cli_no_crash() {
    if ((rc == 124 || rc >= 128)); then
        cli_fail "'$*': exit status $rc (crash or hang)"
        sed 's/^/  stderr: /' "$err" | head -20 >&2
        return 1
    fi
    if grep -qE 'AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$err"; then
        cli_fail "'$*': sanitizer report"
        head -30 "$err" >&2
        return 1
    fi
    return 0
}

# expect_ok DESCRIPTION STDOUT_REGEX -- ARGS...: exit 0 and stdout matches the regex.
expect_ok() {
    local what=$1 pattern=$2
    shift 3
    cli_checks=$((cli_checks + 1))
    cli_run "$@"
    cli_no_crash "$@" || return 0
    if ((rc != 0)); then
        cli_fail "$what: 'prism $*' exited $rc"
        sed 's/^/  stderr: /' "$err" | head -5 >&2
    elif ! grep -qE -- "$pattern" "$out"; then
        cli_fail "$what: 'prism $*' stdout does not match /$pattern/"
        head -5 "$out" | sed 's/^/  stdout: /' >&2
    fi
}

# expect_bad DESCRIPTION -- ARGS... -- NEEDLE...: exit status 2, exactly one
# "prism: error:" line on stderr containing every NEEDLE (fixed strings).
expect_bad() {
    local what=$1
    shift 2
    local args=()
    while (($# > 0)) && [[ $1 != -- ]]; do
        args+=("$1")
        shift
    done
    shift
    cli_checks=$((cli_checks + 1))
    cli_run "${args[@]}"
    cli_no_crash "${args[@]}" || return 0
    if ((rc != 2)); then
        cli_fail "$what: 'prism ${args[*]}' exited $rc, expected 2"
        sed 's/^/  stderr: /' "$err" | head -5 >&2
        return 0
    fi
    local n
    n=$(grep -c '^prism: error:' "$err")
    if ((n != 1)); then
        cli_fail "$what: expected one 'prism: error:' line, got $n"
        sed 's/^/  stderr: /' "$err" | head -5 >&2
    fi
    for needle in "$@"; do
        if ! grep -qF -- "$needle" "$err"; then
            cli_fail "$what: the message lacks '$needle'"
            sed 's/^/  stderr: /' "$err" | head -3 >&2
        fi
    done
}

# Check a JSON document with Debian's python (validity + a Python expression on `d`).
expect_json() {
    local what=$1 expr=$2
    shift 3
    cli_checks=$((cli_checks + 1))
    cli_run "$@"
    cli_no_crash "$@" || return 0
    if ((rc != 0)); then
        cli_fail "$what: exit $rc"
        return 0
    fi
    if ! /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($expr) else 1)" "$out"; then
        cli_fail "$what: JSON invalid or ($expr) is false"
        head -5 "$out" | sed 's/^/  stdout: /' >&2
    fi
}

# check DESCRIPTION COMMAND...: one counted check; the command must exit 0. Its output goes
# to check.log and the first lines are shown when it fails.
check() {
    local what=$1
    shift
    cli_checks=$((cli_checks + 1))
    if ! "$@" >check.log 2>&1; then
        cli_fail "$what"
        head -8 check.log | sed 's/^/  /' >&2
    fi
}

# expect_status STATUS ARGS...: run prism (stdout to out.txt, stderr to err.txt, bounded by
# the timeout) and require exit STATUS; a crash or sanitizer report always fails.
expect_status() {
    local want=$1
    shift
    timeout "$cli_timeout" "$PRISM_BINARY" "$@" >out.txt 2>err.txt </dev/null
    rc=$? out=out.txt err=err.txt
    cli_no_crash "$@" || return 1
    [[ $rc == "$want" ]] || { echo "exit $rc, wanted $want: prism $*"; head -5 err.txt; return 1; }
}

# cli_done N: exactly N checks ran and none failed.
cli_done() {
    if ((cli_checks != $1)); then
        echo "FAIL: ran $cli_checks checks, expected $1" >&2
        exit 1
    fi
    if ((cli_failures > 0)); then
        echo "$cli_failures of $cli_checks checks failed" >&2
        exit 1
    fi
    echo "all $cli_checks checks passed"
}
