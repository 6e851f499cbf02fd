#!/usr/bin/env bash
# check_style.sh ROOT - the house format (.clang-format, clang-format 14) holds for every C
# source and header of the tree: `clang-format --dry-run -Werror` on them all, listing the
# files that drift. It first proves it can fail: among clean copies, the one copy of a file
# with its indentation broken must be reported, and only it. Configure templates (*.h.in)
# are not C until configured and are left out. clang-format comes from
# `scripts/setup.sh --tests`; without it the test skips (exit 77) with a message, except
# under CI=true, where that is a failure.
set -uo pipefail
root=${1:?usage: check_style.sh ROOT}
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z $cf ]]; then
    echo "check_style: clang-format not found (scripts/setup.sh --tests installs it)"
    [[ ${CI:-} == true ]] && exit 1
    exit 77
fi
if ! "$cf" --version | grep -q 'version 14\.'; then
    echo "check_style: $("$cf" --version) is not clang-format 14, whose keys .clang-format uses"
    [[ ${CI:-} == true ]] && exit 1
    exit 77
fi
cd "$root" || exit 1
mapfile -t files < <(find src cost search io include tests benchmarks \
    \( -name '*.c' -o -name '*.h' \) -not -path 'tests/fuzz/corpus/*' | sort)

# drifting FILE...: sets `drift` to the files clang-format would change. One clang-format
# process for all of them (one per file took 21 s of a 2-core machine's time, this 2 s):
# it checks every file and names each drifting one in its diagnostics. A failure that
# names no file (an unreadable file, a crash) fails the test with clang-format's output.
drifting() {
    local out rc
    out=$("$cf" --dry-run -Werror "$@" 2>&1)
    rc=$?
    mapfile -t drift < <(sed -n \
        's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: .*clang-format.*/\1/p' <<<"$out" | sort -u)
    if ((rc != 0 && ${#drift[@]} == 0)); then
        echo "check_style: clang-format exited $rc without naming a drifting file:"
        head -n 20 <<<"$out"
        exit 1
    fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp .clang-format "$tmp/"
sed 's/^    \([a-z]\)/  \1/' src/app/main.c >"$tmp/planted.c"
cp src/app/main.c "$tmp/clean.c"
drifting "$tmp/clean.c" "$tmp/planted.c" "$tmp/clean.c"
if [[ ${#drift[@]} != 1 || ${drift[0]} != "$tmp/planted.c" ]]; then
    echo "check_style: SELF-TEST FAIL: among clean copies, the file with broken indentation" \
        "was not the one reported (got: '${drift[*]}')"
    exit 1
fi

drifting "${files[@]}"
for f in "${drift[@]}"; do
    echo "check_style: $f drifts from .clang-format (fix: $cf -i $f)"
done
echo "check_style: ${#files[@]} files, ${#drift[@]} drift"
((${#drift[@]} == 0))
