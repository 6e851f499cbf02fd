#!/usr/bin/env bash
# schemas.sh - every command's --json against its schema in src/app/schemas/ (installed in
# share/prism/schemas): real output of each command, in the shapes its members take (a
# plan with a baseline, one where nothing fits and one on a device without published runs
# (its track record's statistics null), explain of a strategy read --from a file, validate
# of one CSV and of two and of a run read --from a file, info and pareto of a landscape).
# tests/support/schema_check.py checks the subset of JSON Schema the files use; a member
# the schema does not name fails, so the schema cannot fall behind the output. Counts its
# checks.
set -u
prism=${PRISM_BINARY:?}
src=${PRISM_SOURCE_DIR:?}
. "$src/tests/support/cli.sh"
schemas=$src/src/app/schemas
small=(-m llama3-8b -c H100-80GB -n 8 --gbs 64 --seq 8192)

# name | schema | arguments (each run's stdout is NAME.json)
runs=(
    "plan|plan|${small[*]} --framework megatron-core --top 2 --no-progress --baseline base.txt"
    "plan-nofit|plan|-m gpt3-2.7b -n 8 --mem-budget 2 --no-progress"
    "plan-norecord|plan|-m llama3-8b -c MI355X -n 8 --gbs 64 --top 1 --no-progress"
    "explain|explain|${small[*]} --from base.txt"
    "validate|validate|$src/tests/data/validation/frameworks.csv"
    "validate-two|validate|$src/tests/data/validation/frameworks.csv $src/cost/validation/measured.csv"
    "validate-explain|validate-explain|$src/cost/validation/measured_modern.csv --explain 15"
    "validate-from|validate-from|${small[*]} --from base.txt --measured-step 2.5 --measured-mem 40"
    "info|info|ls.h5"
    "pareto|pareto|ls.h5 --top 2"
    "layouts|layouts|-t 4 --pareto"
    "inputs|inputs|${small[*]}"
    "version|version|"
    "knobs|knobs|"
    "frameworks|frameworks|pytorch-fsdp"
    "models|models|"
    "clusters|clusters|H100-SXM"
    "clusters-all|clusters|"
    "clusters-file|clusters|$src/cost/validation/h100-efa-playbook.ini"
)
check "a strategy file" expect_status 0 explain "${small[@]}" --strategy tp=2,pp=2,sp=1,zero=1 --emit megatron
cp out.txt base.txt
rm -f ls.h5
check "a landscape" expect_status 0 sweep -m gpt3-1.3b -n 8 --gbs 8 --fix tp=2,pp=2,offload=0 --no-progress --no-fsync -o ls.h5
for r in "${runs[@]}"; do
    IFS='|' read -r name schema args <<<"$r"
    cmd=${schema%-explain}
    cmd=${cmd%-from}
    # exit 0, or 2 for the plan in which nothing fits (its JSON is still printed)
    want=0
    [[ $name == plan-nofit ]] && want=2
    # shellcheck disable=SC2086
    check "$name --json" expect_status $want $cmd $args --json
    cp out.txt "$name.json"
done
# one checker run for all of them (each Python start costs 50 ms)
args=()
for r in "${runs[@]}"; do
    IFS='|' read -r name schema _ <<<"$r"
    args+=("$schemas/$schema.schema.json" "$name.json")
done
check "every output matches its schema" /usr/bin/python3 "$src/tests/support/schema_check.py" \
    --pairs "${args[@]}"
# and the checker fails on a member the schema does not name, a wrong type, a missing one
/usr/bin/python3 - version.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(dict(d, extra=1), open("v-extra.json", "w"))
json.dump(dict(d, mpi_ranks=1), open("v-type.json", "w"))  # a string in the schema
json.dump({k: v for k, v in d.items() if k != "version"}, open("v-missing.json", "w"))
PY
for bad in extra type missing; do
    check "the checker refuses v-$bad.json" bash -c \
        "! /usr/bin/python3 '$src/tests/support/schema_check.py' '$schemas/version.schema.json' v-$bad.json 2>/dev/null"
done
cli_done $((2 + ${#runs[@]} + 1 + 3))
