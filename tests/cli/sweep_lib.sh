# sweep_lib.sh - helpers shared by the sweep CLI tests (sourced after tests/support/cli.sh).

# check DESCRIPTION COMMAND...: one counted check; the command must exit 0.
check() {
    local what=$1
    shift
    cli_checks=$((cli_checks + 1))
    if ! "$@" >check.log 2>&1; then
        cli_fail "$what"
        head -8 check.log | sed 's/^/  /' >&2
    fi
}

# The working folder survives between runs: start from an empty one.
rm -rf -- ./*.h5 ./*.h5.partial ./*.h5.partial.spill ./*.lock
