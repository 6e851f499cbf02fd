#!/usr/bin/env bash
# fwconfig.sh - --emit and --from (fwconfig.h) through the binary: one golden file per
# framework, every key name emitted is in the list read from that framework's code
# (tests/data/fwconfig/*.names), explain --from gives back the strategy --emit wrote,
# `plan --baseline` prices the file as `explain --from` does, and bad files exit 2 with
# one message naming the file, key and value. Counts its checks.
set -u
prism=${PRISM_BINARY:?}
. "${PRISM_SOURCE_DIR:?}/tests/support/cli.sh"
golden=$PRISM_SOURCE_DIR/tests/golden/fwconfig
names=$PRISM_SOURCE_DIR/tests/data/fwconfig
small="-m llama3-8b -c H100-80GB -n 8 --gbs 64 --seq 8192"

# file | target | inputs | strategy (the goldens were written by these commands)
cases=(
  "megatron.txt|megatron|--devices 1024|tp=8,pp=8,vpp=3,sp=1,mbs=1,zero=1,recompute=selective"
  "nemo.txt|nemo|--devices 1024|tp=8,pp=8,vpp=3,sp=1,mbs=1,zero=1,recompute=block:2"
  "torchtitan.toml|torchtitan|$small|tp=2,sp=1,zero=3,recompute=full"
  "deepspeed.sh|deepspeed|--devices 1024|tp=8,pp=8,zero=1,recompute=full"
  "nanotron.yaml|nanotron|$small|tp=2,pp=2,sp=1,zero=1,schedule=gpipe"
  "moe-fp8.txt|megatron|-m mixtral-8x7b -c H100-80GB -n 64 --gbs 256 --seq 4096 --dtype fp8|tp=2,ep=8,etp=1,pp=2,vpp=4,sp=1,zero=1,recompute=full,offload=1"
  "torchtitan-uneven.toml|torchtitan|$small|pp=2,vpp=3,mbs=1,zero=3,recompute=none,schedule=interleaved"
)
# (torchtitan-uneven.toml: llama3-8b's 32 layers over pp 2 x vpp 3 = 6 stages, 5 each and
# one more on stages 1 and 2, as split points after layers 5, 11, 17, 22 and 27.)
# The sanitizer pass (PRISM_TEST_SANITIZED=1) takes three of the seven files, one per reader
# kind the others share (Megatron's flags, TOML, YAML; test_fwconfig round-trips random
# strategies of every target and every malformed file under ASan, and the fuzzer replays
# the readers' corpus), and leaves out the key check, which reads the golden file that the
# check before it found byte-identical: 21 checks and 6 processes fewer.
sanitized=${PRISM_TEST_SANITIZED:-0}
for c in "${cases[@]}"; do
  IFS='|' read -r file target inputs strategy <<<"$c"
  if ((sanitized)) && [[ $file != megatron.txt && $file != torchtitan.toml && $file != nanotron.yaml ]]; then
    continue
  fi
  # shellcheck disable=SC2086
  check "$file: explain --emit $target" expect_status 0 explain $inputs --strategy "$strategy" --emit $target
  cp out.txt "$file"
  check "$file: golden" cmp "$file" "$golden/$file"
  ((sanitized)) || check "$file: every key from $target's code" /usr/bin/python3 - "$file" "$names/$target.names" "$target" <<'PY'
import json, re, sys
text, allowed, target = open(sys.argv[1]).read(), set(), sys.argv[3]
for line in open(sys.argv[2]):
    line = line.strip()
    if line and not line.startswith("#"):
        allowed.add(line)
keys, section, top = [], "", ""
lines = [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
if target == "deepspeed":
    body = text.split("<<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0]
    def flat(o, p):
        for k, v in o.items():
            if isinstance(v, dict):
                flat(v, p + k + ".")
            else:
                keys.append(p + k)
    flat(json.loads(body), "ds_config.")
    keys += [l.split()[0] for l in lines if l.strip().startswith("--")]
for l in lines:
    if target == "megatron":
        keys.append(l.split()[0])
    elif target == "nemo":
        keys.append(l.split("=", 1)[0])
    elif target == "torchtitan":
        m = re.match(r"\[(.*)\]$", l)
        if m:
            section = m.group(1)
        else:
            keys.append(section + "." + l.split("=", 1)[0].strip())
    elif target == "nanotron":
        if not l.startswith(" "):
            top = l.rstrip(":")
        else:
            keys.append(top + "." + l.strip().split(":", 1)[0])
missing = [k for k in keys if k not in allowed]
assert len(keys) >= 5 and not missing, (keys, missing)
PY
  # back: the strategy explain --from reads is the one emitted
  # shellcheck disable=SC2086
  check "$file: explain --from" expect_status 0 explain $inputs --from "$file"
  want=$(sed -n 's/^# strategy //p' "$file")
  check "$file: read as $target" grep -qF -- "($target): devices=" out.txt
  check "$file: $want" grep -qF -- ", $want; " out.txt
done

# plan --baseline prices the file as explain --from does: the same step time
fw="$small --framework megatron-core"
# shellcheck disable=SC2086
check "baseline file" expect_status 0 explain $fw --strategy "tp=2,pp=2,sp=1,zero=1,recompute=full" --emit megatron
cp out.txt base.txt
# shellcheck disable=SC2086
check "baseline: explain --from json" expect_status 0 explain $fw --from base.txt --json
step=$(/usr/bin/python3 -c "import json; print('%.4f' % json.load(open('out.txt'))['time']['step'])")
# shellcheck disable=SC2086
check "baseline: plan --baseline" expect_status 0 plan $fw --baseline base.txt --no-progress --top 3
check "baseline: price $step s as explain" grep -qE "^  baseline: +step $step s" out.txt
check "baseline: recommendation" grep -qE "^  recommendation: +step" out.txt
check "baseline: changes listed" grep -qE "changes from the baseline|the baseline is the recommendation" out.txt
# shellcheck disable=SC2086
check "plan --emit, explain --from: round trip" expect_status 0 plan $fw --emit nemo --no-progress --top 3
cp out.txt plan.txt
# shellcheck disable=SC2086
check "  read back" expect_status 0 explain $fw --from plan.txt
want=$(sed -n 's/^# strategy //p' plan.txt)
check "  $want" grep -qF -- ", $want; " out.txt
# the emitted strategy is the recommendation (--pick simplest), not necessarily #1
# shellcheck disable=SC2086
check "plan --json: the recommendation" expect_status 0 plan $fw --no-progress --top 3 --json
check "  --emit wrote it" /usr/bin/python3 -c "import json, sys; r = json.load(open('out.txt'))['recommendation']; assert r['strategy'] == sys.argv[1], (r, sys.argv[1])" "$want"
# shellcheck disable=SC2086
check "plan --emit-rank past the list" expect_status 2 plan $fw --emit megatron --emit-rank 5 --top 3 --no-progress

# a published configuration (Korthikanti et al. 2022, the shared validation data's
# KORTH22_T5 row) as a Megatron-LM launch script: its price, the recommendation, the changes
pub="-c A100-80GB --framework megatron-lm-2022 --from $names/korthikanti22-gpt3-175b.sh"
# shellcheck disable=SC2086
check "published: explain --from" expect_status 0 explain $pub --json
step=$(/usr/bin/python3 -c "import json; print('%.4f' % json.load(open('out.txt'))['time']['step'])")
check "published: the row's strategy" /usr/bin/python3 -c "import json; s = json.load(open('out.txt'))['strategy']; assert (s['dp'], s['tp'], s['pp'], s['vpp'], s['sp'], s['mbs'], s['m'], s['recompute']) == (1, 8, 8, 3, 1, 1, 64, 'selective'), s"
# shellcheck disable=SC2086
check "published: plan --baseline" expect_status 0 plan ${pub/--from/--baseline} --no-progress --top 3
check "published: price $step s as explain" grep -qE "^  baseline: +step $step s" out.txt
check "published: ignored keys listed" grep -qE "^ignored \(not modeled\): .*--lr," out.txt
# shellcheck disable=SC2086
check "published: explain --from json names the file" expect_status 0 explain $pub --json
cp out.txt explain.json
# shellcheck disable=SC2086
check "published: plan --baseline --json" expect_status 0 plan ${pub/--from/--baseline} --no-progress --top 3 --json
check "published: the same price, bit for bit" /usr/bin/python3 - explain.json out.txt <<'PY'
import json, sys
e, p = (json.load(open(f)) for f in sys.argv[1:3])
b = p["baseline"]
assert e["from"]["framework"] == "megatron" and "--lr" in e["from"]["ignored"], e["from"]
assert b["step_s"] == e["time"]["step"], (b["step_s"], e["time"]["step"])
assert b["recommendation_step_s"] == p["recommendation"]["step"], b
assert all(c["dim"] and c["from"] != c["to"] for c in b["changes"]), b["changes"]
PY
# the names users type for a framework
# shellcheck disable=SC2086
check "--framework torchtitan is pytorch-fsdp" expect_status 0 explain $small --framework torchtitan --strategy "tp=2,pp=2,mbs=1,schedule=dualpipe"
check "  its note names the profile" grep -q "pytorch-fsdp does not run" out.txt

# validate --from: a run the user measured, priced as a row that states every dim under the
# profile of the file's framework (torchtitan: pytorch-fsdp): the price is explain --from's
# under that profile, the errors are 100 |predicted - measured| / measured
# shellcheck disable=SC2086
check "validate --from" expect_status 0 validate $small --from torchtitan.toml --measured-step 3 --measured-mem 50 --json
cp out.txt vfrom.json
# shellcheck disable=SC2086
check "  explain --from under pytorch-fsdp" expect_status 0 explain $small --framework pytorch-fsdp --from torchtitan.toml --json
check "  the same price, its errors and interval" /usr/bin/python3 - vfrom.json out.txt <<'PY'
import json, sys
v, e = (json.load(open(f)) for f in sys.argv[1:3])
r, iv = v["row"], v["step_interval"]
assert v["from"]["framework"] == "torchtitan" and r["framework"] == "pytorch-fsdp", v["from"]
p = r["predicted"]["step_time"]
assert p == e["time"]["step"], (p, e["time"]["step"])
ml = e["memory_logged"]
assert r["peak_mem_counts"] == ml["framework_counts"]
assert r["predicted"]["peak_mem"] == ml[ml["framework_counts"]], (r["predicted"], ml)
assert r["measured"]["step_time"] == 3 and r["measured"]["peak_mem"] == 50 * 2**30
assert abs(r["error_pct"]["step_time"] - 100 * abs(p - 3) / 3) < 1e-9, r["error_pct"]
m = r["predicted"]["peak_mem"] / 2**30
assert abs(r["error_pct"]["peak_mem"] - 100 * abs(m - 50) / 50) < 1e-9, r["error_pct"]
assert iv["lo"] <= p <= iv["hi"] and iv["measured_inside"] == (iv["lo"] <= 3 <= iv["hi"]), iv
PY
# shellcheck disable=SC2086
check "validate --from without a measurement" expect_status 2 validate $small --from torchtitan.toml
check "  says what to give" grep -q "measured-step SECONDS" err.txt
# (the sanitizer pass leaves out the text and two option checks: 6 checks, 3 processes)
if ((!sanitized)); then
  # shellcheck disable=SC2086
  check "validate --from: text" expect_status 0 validate $small --from torchtitan.toml --measured-step 3
  check "  the step row" grep -qE "^step time s +[0-9.]+ +3 +[-+][0-9.]+%$" out.txt
  check "  the interval" grep -q "^step-time interval .* the measured 3 s is" out.txt
  check "validate CSV with --model" expect_status 2 validate -m llama3-8b
  check "  says it belongs to --from" grep -q "\-\-model describes the run of --from FILE" err.txt
  # shellcheck disable=SC2086
  check "validate --from: bad --mem-kind" expect_status 2 validate $small --from torchtitan.toml --measured-mem 9 --mem-kind peak
  check "  names the value" grep -q "mem-kind: 'peak' is not allowed (allocated, reserved or device" err.txt
fi

# Megatron's uneven split (test_fwconfig derives more by hand): llama3-8b's 32 layers over
# pp 3 are 10,11,11 (the remainder on chunks 1 and 2), the first stage 10 and the 22 left
# 11 each over the other two; a file's own split, first 7 and last 7 over pp 4 (the 18
# left 9 each on the middle stages, where the even split has 8 everywhere), is priced as
# stated by explain --from and validate --from; pp 2 x vpp 3 (5,6,6,5,5,5) is no split the
# first/last counts or the embedding/loss flags place: a --pipeline-model-parallel-layout,
# E,t*5 | t*6 | t*6 | t*5 | t*5 | t*5,L with the run of equal stages as (t*6|)*2
# (the sanitizer pass leaves these 10 checks to test_fwconfig's derivations under ASan)
if ((!sanitized)); then
  uneven="-m llama3-8b -c H100-80GB -n 24 --gbs 48 --seq 8192"
  # shellcheck disable=SC2086
  check "megatron: pp 3 over 32 layers" expect_status 0 explain $uneven --strategy "pp=3,tp=1,mbs=1,zero=1" --emit megatron
  check "  first stage 10 layers" grep -qx -- "--decoder-first-pipeline-num-layers 10 \\\\" out.txt
  cp out.txt pp3.txt
  # shellcheck disable=SC2086
  check "  read back: the same strategy" expect_status 0 explain $uneven --from pp3.txt
  check "  $(sed -n 's/^# strategy //p' pp3.txt)" grep -qF -- ", $(sed -n 's/^# strategy //p' pp3.txt); " out.txt
  printf -- '--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 7\n--decoder-last-pipeline-num-layers 7 --micro-batch-size 1\n' > uneven.txt
  # shellcheck disable=SC2086
  check "a file's own split" expect_status 0 explain $uneven --from uneven.txt --json
  check "  priced as stated: 7,9,9,7" /usr/bin/python3 -c "import json; s = [st['layers'] for st in json.load(open('out.txt'))['per_stage']]; assert s == [[7], [9], [9], [7]], s"
  # shellcheck disable=SC2086
  check "  validate --from prices it" expect_status 0 validate $uneven --from uneven.txt --measured-step 3
  check "  as stated" grep -q "(layers per chunk: 7,9,9,7)" out.txt
  # shellcheck disable=SC2086
  check "megatron writes 5,6,6,5,5,5 as a layout" expect_status 0 explain $uneven --strategy "pp=2,vpp=3,tp=1,mbs=1,zero=1,schedule=interleaved" --emit megatron
  check "  E,t*5|(t*6|)*2,(t*5|)*2,t*5,L" grep -qxF -- "--pipeline-model-parallel-layout 'E,t*5|(t*6|)*2,(t*5|)*2,t*5,L' \\" out.txt
  cp out.txt layout.txt
fi

# refusals and bad files: exit 2, one message naming the file, key and value
check "torchtitan refuses ZeRO-1" expect_status 2 explain --strategy "tp=8,pp=8,zero=1" --emit torchtitan
check "  with the reason" grep -q "its zero=1 is outside the profile's \[planning\] only" err.txt
check "unknown framework" expect_status 2 explain --strategy "tp=8" --emit fairseq
printf 'hello\n' > notes.txt
check "not a configuration" expect_status 2 explain --from notes.txt
check "  names the file" grep -q "notes.txt" err.txt
printf '[parallelism]\ntensor_parallel_degree = = 2\n' > bad.toml
check "malformed TOML" expect_status 2 explain --from bad.toml
check "  names file and line" grep -q "bad.toml: line 2" err.txt
printf 'parallelism:\n  dp: [1\n' > bad.yaml
check "malformed YAML" expect_status 2 explain --from bad.yaml
check "  names the file" grep -q "bad.yaml" err.txt
printf '{"zero_optimization": {"stage": 1},}' > bad.json
check "malformed JSON" expect_status 2 explain --from bad.json
check "  names the file" grep -q "bad.json" err.txt
printf -- '--tensor-model-parallel-size 64 --micro-batch-size 1\n' > tp.txt
check "tp does not divide the heads" expect_status 2 explain --devices 1024 --from tp.txt
check "  names key and value" grep -q "tp.txt: --tensor-model-parallel-size: R2: tp=64" err.txt
printf 'model.tensor_model_parallel_size=8\ntrain.micro_batch_size=5\n' > mbs.txt
check "micro-batch does not divide the batch" expect_status 2 explain --devices 1024 --from mbs.txt
check "  names key and value" grep -q "mbs.txt: train.micro_batch_size=5" err.txt
check "  one error line" test "$(grep -c 'prism: error:' err.txt)" -eq 1

# the layout read back by validate --from: the strategy it was written for
if ((!sanitized)); then
  # shellcheck disable=SC2086
  check "validate --from a layout" expect_status 0 validate $uneven --from layout.txt --measured-step 3
  check "  pp 2 x vpp 3 again" grep -qF -- "strategy: $(sed -n 's/^# strategy //p' layout.txt)" out.txt
fi

cli_done $((74 + 5 + 25 * (1 - sanitized) - 21 * sanitized))
