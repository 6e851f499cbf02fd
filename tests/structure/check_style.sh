#!/usr/bin/env bash
# check_style.sh ROOT - the house format (.clang-format, clang-format 14) holds for every C
# source and header of the tree: `clang-format --dry-run -Werror` on each, listing the files
# that drift. It first proves it can fail: a copy of one file with its indentation broken
# must be reported. Configure templates (*.h.in) are not C until configured and are left
# out. clang-format comes from `scripts/setup.sh --tests`; without it the test skips
# (exit 77) with a message, except under CI=true, where that is a failure.
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

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp .clang-format "$tmp/"
sed 's/^    \([a-z]\)/  \1/' src/app/main.c >"$tmp/planted.c"
if "$cf" --dry-run -Werror "$tmp/planted.c" >/dev/null 2>&1; then
    echo "check_style: SELF-TEST FAIL: a file with broken indentation was not reported"
    exit 1
fi

drift=()
for f in "${files[@]}"; do
    "$cf" --dry-run -Werror "$f" >/dev/null 2>&1 || drift+=("$f")
done
for f in "${drift[@]}"; do
    echo "check_style: $f drifts from .clang-format (fix: $cf -i $f)"
done
echo "check_style: ${#files[@]} files, ${#drift[@]} drift"
((${#drift[@]} == 0))
