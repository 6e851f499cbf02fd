#!/usr/bin/env bash
# fail_rank.sh - one failing rank (PRISM_TEST_FAIL_RANK, read in prism_app_load_inputs)
# makes every rank exit 2 with the failing rank's message, at 1, 2, 3 and 4 ranks, with
# no hang (each run is bounded by timeout); and a bad file seen by all ranks does too.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
: "${MPIEXEC:?MPIEXEC is not set (run through ctest)}"

# The sanitizer pass (PRISM_TEST_SANITIZED=1) runs 1 and 3 ranks (failing rank 0, and a
# last rank of 3): the same error paths under ASan at a third of the oversubscribed
# launches; the main pass runs all four counts.
if [[ "${PRISM_TEST_SANITIZED:-0}" == 1 ]]; then
    counts=(1 3)
else
    counts=(1 2 3 4)
fi
for np in "${counts[@]}"; do
    fail=$((np > 2 ? 2 : np - 1))
    cli_checks=$((cli_checks + 1))
    PRISM_TEST_FAIL_RANK=$fail cli_run_mpi "$np" inputs
    cli_no_crash "np=$np" || continue
    if ((rc != 2)); then
        cli_fail "np=$np, failing rank $fail: mpiexec exited $rc, expected 2"
        head -5 "$err" >&2
    elif ! grep -qF "rank $fail: injected input failure" "$err"; then
        cli_fail "np=$np: the failing rank's message is missing"
        head -5 "$err" >&2
    elif (($(grep -c '^prism: error:' "$err") != 1)); then
        cli_fail "np=$np: expected one error line (rank 0 prints it)"
    fi
    cli_checks=$((cli_checks + 1))
    cli_run_mpi "$np" inputs --model "$PRISM_TEST_DATA/bad/hf-truncated.json"
    cli_no_crash "np=$np bad file" || continue
    ((rc == 2)) || cli_fail "np=$np bad file: exit $rc, expected 2"
    cli_checks=$((cli_checks + 1))
    cli_run_mpi "$np" inputs
    ((rc == 0)) || cli_fail "np=$np good inputs: exit $rc"
done
cli_done $((3 * ${#counts[@]}))
