#!/usr/bin/env bash
# bad_input.sh - every kind of bad input gives exit status 2 and one clear message naming
# what is wrong (file, key, value, allowed values), never a crash or a hang: unknown
# names, every malformed file under tests/data/bad/, unreadable files, bad and
# conflicting options. Inputs are loaded by `prism inputs`, the same loader plan and
# sweep use.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
bad=$PRISM_TEST_DATA/bad

# Unknown names list the close ones.
expect_bad "unknown model" -- inputs --model llama3-7b -- "unknown model 'llama3-7b'" llama3-8b
expect_bad "unknown cluster" -- inputs --cluster H1000 -- "unknown cluster 'H1000'" H800
expect_bad "a PCIe part has no preset" -- inputs --cluster "H100 PCIe" -- "unknown cluster 'H100 PCIe': the H100 PCIe has no preset"
expect_bad "models NAME unknown" -- models mixtral -- "mixtral-8x7b"
expect_bad "repository id of no zoo model" -- inputs --model mistralai/Mixtral-8x22B-v0.1 -- \
    "mistralai/Mixtral-8x22B-v0.1: no such file or folder" "unknown model 'Mixtral-8x22B-v0.1'" mixtral-8x22b
expect_bad "clusters NAME unknown" -- clusters A10 -- "A100-80GB"
# a path-like -c/-m that is no file: "no such file", not an unknown preset or zoo name
expect_bad "missing cluster file" -- inputs --cluster my-cluster.ini -- \
    "my-cluster.ini: no such file (a name holding '/' or ending in .ini" "prism clusters"
expect_bad "missing model file" -- inputs --model ./no/config.json -- \
    "./no/config.json: no such file or folder (a name holding '/' or ending in .json" "prism models"
expect_bad "unknown command" -- modles -- "unknown command 'modles'" models
expect_bad "no command" -- -- "no command given"

# Every malformed config.json and cluster key file: the message names the file. In the
# sanitizer pass (PRISM_TEST_SANITIZED=1) every third file, each a full process start
# there: test_hf and test_cluster parse every one of them under ASan+UBSan in-process
# (and fail on a file they do not list), so the parsers' memory safety keeps its full
# coverage; this loop checks the CLI's one-line message and exit 2, whole in the main pass.
step=1
[[ "${PRISM_TEST_SANITIZED:-0}" == 1 ]] && step=3
n_hf=0 n_cluster=0 i=0
for f in "$bad"/hf-*.json; do
    i=$((i + 1))
    ((i % step == 0 || step == 1)) || continue
    expect_bad "config $(basename "$f")" -- inputs --model "$f" -- "$f"
    n_hf=$((n_hf + 1))
done
for f in "$bad"/cluster-*.ini; do
    i=$((i + 1))
    ((i % step == 0 || step == 1)) || continue
    expect_bad "cluster $(basename "$f")" -- inputs --cluster "$f" -- "$f"
    n_cluster=$((n_cluster + 1))
done
((n_hf * step >= 20 && n_cluster * step >= 17)) ||
    cli_fail "only $n_hf bad configs and $n_cluster bad cluster files"

# A few messages in full: key and value named, allowed values listed.
expect_bad "unknown model_type" -- inputs -m "$bad/hf-unknown-type.json" -- '"bert"' "supported: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, llama4, llama4_text, gpt2, gpt_neox"
expect_bad "missing field" -- inputs -m "$bad/hf-missing-hidden.json" -- "'hidden_size' is missing"
expect_bad "non-numeric value" -- inputs -m "$bad/hf-string-value.json" -- "'hidden_size' = \"4096\" is not a number"
expect_bad "negative size" -- inputs -m "$bad/hf-negative-layers.json" -- "'num_hidden_layers' = -2"
expect_bad "cluster non-numeric" -- inputs -c "$bad/cluster-nonnumeric.ini" -- "[level.0] bandwidth_GBps = 'fast'"
expect_bad "cluster zero size" -- inputs -c "$bad/cluster-zero-size.ini" -- "[level.0] size = 0"
expect_bad "cluster unknown key" -- inputs -c "$bad/cluster-unknown-key.ini" -- "'bandwith_GBps'" "allowed: name, size, bandwidth_GBps, latency_us"
# Out-of-range doubles as written in the file (json-glib reads 1e400 as inf, which it
# writes back as "null"); finite but degenerate device numbers refused with their range.
expect_bad "overflowing number" -- inputs -m "$bad/hf-overflow.json" -- "'hidden_size' = 1e400 must be a whole number"
expect_bad "cluster huge memory" -- inputs -c "$bad/cluster-huge-memory.ini" -- "[cluster] memory_gib = 1e+300 is out of range: allowed 0.000976562 to 1.04858e+06 GiB per device"
expect_bad "cluster tiny peak" -- plan -c "$bad/cluster-tiny-peak.ini" -m gpt3-1.3b -n 8 -- "[cluster] peak_tflops_bf16 = 1e-300 is out of range: allowed 0 (not given) or 0.001 to 1e+06 TFLOP/s"

# Unreadable inputs.
mkdir -p not-a-file
expect_bad "missing config.json" -- inputs -m ./no-such-config.json -- "./no-such-config.json: no such file or folder"
expect_bad "folder without config.json" -- inputs -m ./not-a-file -- "not-a-file/config.json"
# A bare name that is no zoo model but a folder here is a model folder (no ./ needed).
expect_bad "bare folder without config.json" -- inputs -m not-a-file -- "not-a-file/config.json"
mkdir -p modeldir && cp "$PRISM_TEST_DATA/hf/llama2-70b.json" modeldir/config.json
expect_ok "bare model folder" '^model +hf:modeldir/config.json: 80 blocks' -- inputs -m modeldir
expect_bad "cluster file is a folder" -- inputs -c ./not-a-file/ -- "not-a-file" "cannot read"
expect_bad "missing knobs file" -- inputs --knobs ./no-such-knobs.ini -- "no-such-knobs.ini"
printf '[knobs]\ntp_overlap = 0.1\ntp_overlap = 0.9\n' > twice-knobs.ini
expect_bad "knob given twice" -- inputs --knobs ./twice-knobs.ini -- "twice-knobs.ini" "[knobs] key 'tp_overlap' is given twice (lines 2 and 3)"

# Bad option values: zero, negative, non-numeric, unknown choices.
expect_bad "--devices 0" -- inputs --devices 0 -- "--devices" "'0'"
expect_bad "--devices text" -- inputs --devices many -- "--devices" "'many'"
expect_bad "--devices reversed range" -- inputs --devices 64:8 -- "'64:8'"
expect_bad "--gbs 0" -- inputs --gbs 0 -- "--gbs 0"
expect_bad "--gbs negative" -- inputs --gbs -8 -- "--gbs -8"
expect_bad "--gbs text" -- inputs --gbs lots -- "--gbs" "lots"
expect_bad "--seq 0" -- inputs --seq 0 -- "--seq 0"
expect_bad "--mem-budget 0" -- inputs --mem-budget 0 -- "--mem-budget 0"
expect_bad "--dtype unknown" -- inputs --dtype fp9 -- "'fp9'" "fp32, bf16, fp16, fp8"
expect_bad "--optimizer unknown" -- inputs --optimizer lion -- "'lion'" "adam"
expect_bad "--set unknown knob" -- inputs --set nosuch=1 -- "'nosuch'"
expect_bad "unknown option" -- inputs --modle gpt3-175b -- "--modle" "the closest is --model"
# an option named by its meaning: --gbs's help says "global batch", --seq's "sequence length"
expect_bad "unknown option named by its words" -- plan --global-batch 64 -- \
    "Unknown option --global-batch; the closest is --gbs (see --help)"
expect_bad "  with a value" -- sweep --sequence-length=4096 -- "--sequence-length=4096; the closest is --seq"
expect_bad "unknown short option: no guess" -- inputs -Q -- "Unknown option -Q (see --help)"
expect_bad "unknown option spelt like none: no guess" -- version --foo -- "Unknown option --foo (see --help)"
expect_bad "stray argument" -- inputs gpt3-175b -- "'gpt3-175b'"

# Conflicting options.
expect_bad "fp8 on A100" -- inputs --cluster A100-80GB --dtype fp8 -- "--dtype fp8" "A100-80GB"
expect_bad "fp32 on Ascend" -- inputs --cluster Ascend-910B --dtype fp32 -- "'Ascend-910B'"
expect_bad "budget above memory" -- inputs --mem-budget 100 -- "--mem-budget 100" "80 GiB"
# a budget the mem_margin knob (here 2e9 bytes) eats up: usable memory would be negative
expect_bad "budget below the margin" -- inputs --mem-budget 1 --set mem_margin=2e9 -- "--mem-budget 1 GiB" "mem_margin"
expect_bad "margin above memory" -- inputs --set mem_margin=1e11 -- "'A100-80GB'" "mem_margin"
expect_bad "two models" -- models gpt3-175b llama2-7b -- "at most one"

# explain --strategy: a left-out dp or m that does not divide out names the rule; a key
# given twice is a conflict (it used to say "dp=0" or take the last value).
expect_bad "explain: dp does not divide" -- explain --strategy tp=3 -- "--strategy" \
    "devices=1024 is not a multiple of tp*pp*cp = 3*1*1" "R1"
expect_bad "explain: m does not divide" -- explain --strategy "" -- \
    "gbs=1536 is not a multiple of dp*mbs = 1024*1" "R8"
expect_bad "explain: key twice" -- explain --strategy tp=8,pp=2,tp=4 -- "'tp' is given twice"
# with a profile that asserts equal chunks, pp=0 is refused by R1 (its note divided by
# pp*vpp before the shape rules ran: SIGFPE, found by a random CLI search)
expect_bad "explain: pp=0 under a profile" -- explain -m gpt3-1.3b -n 8 --framework \
    megatron-lm-2022 --strategy pp=0 -- "R1: every dimension must be >= 1" "pp=0"

# The other rules of the command line: ranges, strategy keys, objectives, ISA, --set.
expect_bad "--seq above 2^24" -- inputs --seq 99999999 -- "--seq: 99999999 must be between 1 and 2^24"
expect_bad "--mem-budget negative" -- inputs --mem-budget -3 -- "--mem-budget -3: must be a positive number of GiB"
expect_bad "explain: offload 4" -- explain --strategy offload=4 -- \
    "strategy key 'offload': '4' must be 0 (none), 1 (optimizer), 2 (activations) or 3 (both)"
expect_bad "explain: tp_overlap 2" -- explain --strategy tp_overlap=2 -- \
    "strategy key 'tp_overlap': '2' must be 0 (off) or 1 (on)"
expect_bad "explain: block recompute too deep" -- explain --strategy recompute=block:70000 -- \
    "strategy key 'recompute': block:70000 is too large"
expect_bad "explain: block without K" -- explain --strategy recompute=block -- \
    "strategy key 'recompute': 'block' is not none, selective, full or block:K"
expect_bad "plan: objective without a name" -- plan --objectives max: -- "objective 'max:': no column name"
expect_bad "plan: empty objective" -- plan --objectives step_time, -- "objective '': no column name"
expect_bad "plan: nine objectives" -- plan --objectives step_time,peak_mem,mfu,tp,pp,dp,cp,ep,mbs -- \
    "at most 8 objectives"
expect_bad "plan: unknown ISA" -- plan --isa avx1024 -- "--isa=avx1024: unknown ISA (allowed: auto, scalar, avx2, avx512)"
expect_bad "plan: --set without a value" -- plan --set tp_overlap -- "--set: 'tp_overlap' is not NAME=VALUE"

# plan and sweep load their inputs with the same loader: same errors, and no output file.
expect_bad "plan: unknown model" -- plan --model llama3-7b -- "llama3-8b"
expect_bad "plan: bad cluster file" -- plan --cluster "$bad/cluster-zero-size.ini" -- "[level.0] size = 0"
expect_bad "plan: dtype conflict" -- plan --dtype fp8 -- "--dtype fp8"
expect_bad "sweep: bad config" -- sweep -m "$bad/hf-truncated.json" -o bad-sweep.h5 -- "hf-truncated.json"
cli_checks=$((cli_checks + 1))
[[ ! -e bad-sweep.h5 && ! -e bad-sweep.h5.partial ]] || cli_fail "sweep with bad input left a file"

# Output that cannot be written is a failure (exit 1, one message), not a silent success.
for args in "models" "plan -m gpt3-1.3b -n 8 --gbs 16 --no-progress --json"; do
    cli_checks=$((cli_checks + 1))
    # shellcheck disable=SC2086
    timeout "$cli_timeout" "$PRISM_BINARY" $args >/dev/full 2>full.err </dev/null
    rc=$?
    if ((rc != 1)) || ! grep -q '^prism: error: writing to standard output failed' full.err; then
        cli_fail "prism $args >/dev/full: exit $rc, $(head -c 200 full.err)"
    fi
done

# And the good path still works with the same loader.
expect_ok "valid inputs" '^devices +64,128,256' -- inputs -m "$PRISM_TEST_DATA/hf/llama2-70b.json" -c H100-SXM -n 64:256 --gbs 512 --seq 4096

cli_done $((10 + n_hf + n_cluster + 10 + 7 + 17 + 6 + 11 + 4 + 5 + 2 + 1))
