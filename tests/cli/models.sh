#!/usr/bin/env bash
# models.sh - `prism models`: the table, one model's layer sequence (zoo name and
# config.json), JSON output and --help.
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
hf=$PRISM_TEST_DATA/hf

expect_ok "table lists GPT-3 175B" '^gpt3-175b +gpt +96 +12288 +96 +96 MHA' -- models
expect_ok "table lists DeepSeek-V3 with MTP" '^deepseek-v3 +deepseek +61\+1 +7168 .* MLA +256/8/1 +671\.03B' -- models
expect_ok "table lists Mixtral 8x7B experts" '^mixtral-8x7b .* 8/2/0 +46\.70B +12\.88B' -- models
expect_ok "table counts the zoo" '^60 models' -- models
expect_ok "table lists GPT-OSS 120B" '^gpt-oss-120b +gpt-oss +36 +2880 +64 +8 GQA +128/4/0 +116\.83B +5\.71B +116\.83B' -- models
expect_ok "one model: sliding-window kind" 'sinks, sliding window 128; MoE 32 x SwiGLU 2880' -- models gpt-oss-20b
expect_ok "config.json: Llama 4 Maverick text model" 'total 400\.712B' -- models "$hf/llama4-maverick.json"
expect_ok "one model: layer ranges" '4-61 +58 x block \[1\]' -- models deepseek-v3
expect_ok "one model: published comparison" 'published 671B \(\+0\.00%' -- models deepseek-v3
expect_ok "config.json: Mixtral total" 'total 46\.7028B' -- models "$hf/mixtral-8x7b.json"
expect_ok "case-insensitive name" 'model llama3\.1-405b' -- models LLAMA3.1-405B
# Hugging Face's spellings: separators ignored, and a repository id that is no file here
expect_ok "Hugging Face name" 'model llama3\.1-8b' -- models Llama-3.1-8B
expect_ok "Hugging Face repository id" 'model qwen3-30b-a3b' -- models Qwen/Qwen3-30B-A3B
# earlier repository ids of the same weights: Meta's "Meta-Llama-3.1-8B" (renamed
# "Llama-3.1-8B"), "Meta-Llama-3-70B", and Llama 2's "-hf" conversions
expect_ok "earlier id Meta-Llama-3.1-8B" 'model llama3\.1-8b' -- models meta-llama/Meta-Llama-3.1-8B
expect_ok "earlier id Meta-Llama-3-70B" 'model llama3-70b' -- models meta-llama/Meta-Llama-3-70B
expect_ok "earlier id Llama-2-7b-hf" 'model llama2-7b' -- models meta-llama/Llama-2-7b-hf
# a sequence past the model's positions warns (exit 0, priced as given); within, no warning
check "seq past the positions" expect_status 0 plan -m llama3-8b -n 8 --gbs 8 --seq 16384 --count
check "  warns naming both" grep -q "^prism: warning: --seq 16384 is longer than the 8192 positions of llama3-8b" err.txt
check "seq within the positions" expect_status 0 plan -m llama3-8b -n 8 --gbs 8 --seq 8192 --count
check "  no warning" bash -c '! grep -q warning err.txt'
expect_json "JSON list" 'len(d) >= 20 and any(m["name"] == "llama2-70b" and m["params"] == 68976648192 for m in d)' -- models --json
expect_json "JSON one model" 'd["name"] == "deepseek-v3" and len(d["sequence"]) == 65 and d["sequence"][62]["kind"] == "mtp" and d["specs"][1]["experts"] == 256 and d["specs"][0]["ffn"] == 18432' -- models --json deepseek-v3
expect_ok "--help" '^  prism models ' -- models --help
expect_ok "-h" 'Hugging Face config.json' -- models -h
# paths that are not ASCII: a UTF-8 name (GOption converts -m from the locale's charset,
# which prism takes from LANG) and a Latin-1 byte under LANG=C (-m is a file name, taken
# as bytes); the model's name stays valid UTF-8 in JSON (U+FFFD for the stray byte)
cp "$hf/mixtral-8x7b.json" "my model ü.json"
latin1=$(printf 'lat\xfc.json')
cp "$hf/mixtral-8x7b.json" "$latin1"
check "UTF-8 model path under a UTF-8 locale" env LANG=C.UTF-8 "$PRISM_BINARY" plan -m "my model ü.json" -n 8 --gbs 8 --count
check "Latin-1 model path under LANG=C" env LANG=C "$PRISM_BINARY" plan -m "$latin1" -n 8 --gbs 8 --count
check "  its name in JSON is valid UTF-8" bash -c "LANG=C '$PRISM_BINARY' models --json '$latin1' > lat.json && /usr/bin/python3 -c \"import json; n = json.load(open('lat.json', encoding='utf-8'))['name']; assert n == 'hf:lat\\ufffd.json', n\""
cli_done 27
