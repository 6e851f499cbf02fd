#!/usr/bin/env bash
# sweep_integrity.sh - damaged files are reported as damaged (io/README.md, "Integrity"):
#  1. a flipped byte inside a stored /landscape chunk (found with h5py's chunk table):
#     `prism info --verify` lists the chunk, never says "(complete)" and exits 2, at 1 and
#     2 ranks; an intact file verifies with 0 damaged chunks; `prism pareto` exits 2 with
#     one message naming the dataset and the chunk's rows;
#  2. a flipped byte in a spill record of an interrupted run: --resume exits 1 naming the
#     record and one way out (--drop-damaged, not --force); --resume --drop-damaged
#     recomputes the rows and gives the datasets of an undisturbed run (h5diff).
source "$PRISM_SOURCE_DIR/tests/support/cli.sh"
source "$PRISM_SOURCE_DIR/tests/cli/sweep_lib.sh"
# 35,092 strategies (offload pinned to 0) in chunks of 1000 rows: 36 chunks per column,
# 46 stored columns (point, 20 dims, 25 cost columns of a two-level cluster; mfu and
# tokens_per_s are derived on read): 1656 chunks.
small=(-m gpt3-1.3b -n 8 --gbs 64 --no-progress --hdf5-chunk 1000 --fix offload=0)

# flip FILE OFFSET: invert one byte.
flip() {
    /usr/bin/python3 -c "
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x10]))
" "$1" "$2"
}

cli_checks=$((cli_checks + 1))
cli_run sweep "${small[@]}" -o ref.h5
((rc == 0)) || cli_fail "reference sweep exited $rc"

# 1. A damaged chunk: the middle byte of chunk 3 (rows 3000..3999) of step_time.
cp ref.h5 bad.h5
offset=$(/usr/bin/python3 -c "
import h5py
c = h5py.File('bad.h5', 'r')['landscape/step_time'].id.get_chunk_info(3)
assert c.chunk_offset == (3000,)
print(c.byte_offset + c.size // 2)")
flip bad.h5 "$offset"
expect_ok "verify an intact file" "0 damaged \(Fletcher32 checksums\)" -- info --verify ref.h5
expect_bad "verify a damaged file" -- info --verify bad.h5 -- "bad.h5 is damaged: 1 of 1656" \
    "/landscape/step_time rows 3000..3999 (chunk 3 of 36)"
check "the report lists the damaged chunk" grep -qF \
    "DAMAGED   /landscape/step_time rows 3000..3999 (chunk 3 of 36) fails its Fletcher32" "$out"
check "and does not call it complete" bash -c "! grep -qF '(complete)' $out"
cli_checks=$((cli_checks + 1))
cli_run_mpi 2 info --verify --json bad.h5
((rc == 2)) && /usr/bin/python3 -c "
import json, sys
v = json.load(open(sys.argv[1]))['verify']
sys.exit(0 if v['damaged'] == 1 and v['chunks'] == 1656 and v['checksummed'] else 1)" "$out" ||
    cli_fail "verify at 2 ranks: exit $rc or a wrong verify object"
expect_bad "pareto on a damaged file" -- pareto bad.h5 -- \
    "bad.h5: /landscape/step_time rows 3000..3999 (chunk 3 of 36) is damaged" \
    "Fletcher32 checksum"

# Damaged metadata: HDF5 reads a file whose /constants/peak_flops (an mfu input) is gone as
# an error, which prism reports as a damaged input (exit 2, one message naming the file),
# not as a runtime failure (it was exit 1); a root attribute whose bytes are not UTF-8
# comes out as U+FFFD, so `info --json` stays valid JSON (random byte flips found both, and
# crashes inside libhdf5 that no caller can catch: io/README.md, "Limits and known gaps").
cp ref.h5 nometa.h5
cp ref.h5 badtext.h5
/usr/bin/python3 -c "
import h5py, numpy
with h5py.File('nometa.h5', 'r+') as f:
    del f['constants/peak_flops']
with h5py.File('badtext.h5', 'r+') as f:
    f.attrs['model'] = numpy.bytes_(b'gpt3-\xe6\x01')
    f.attrs['git_revision'] = numpy.bytes_(b'158083729012')"
expect_bad "pareto, a dataset gone" -- pareto nometa.h5 -- \
    "nometa.h5 is damaged or unreadable: /constants/peak_flops" "rerun the sweep"
# (and a revision of twelve digits stays a string: it came out as a number, against the schema)
expect_json "info --json of an attribute that is not UTF-8" \
    "d['attributes']['model'] == 'gpt3-\ufffd\x01' and d['attributes']['git_revision'] == '158083729012'" \
    -- info badtext.h5 --json

# 2. A damaged spill record. A slowed run (records of at most 2000 rows that end at chunk
# boundaries, so 1000 rows here; 60 ms each) stopped by SIGTERM.
PRISM_IO_TEST_DELAY_MS=60 timeout 60 "$PRISM_BINARY" sweep "${small[@]}" --spill-rows 2000 \
    -o spill.h5 >bg.out 2>bg.err </dev/null &
job=$!
spill=spill.h5.partial.spill/s0001-r00000.spill
for ((i = 0; i < 200; i++)); do
    [[ -e $spill ]] && (($(stat -c %s "$spill") > 100000)) && break
    sleep 0.05
done
kill -TERM "$job"
wait "$job"
check "the stopped run exits 130" test $? -eq 130
# Record 0 holds rows 0..999: its header (io-internal.h: 48 fixed bytes with n_cols at
# 20 and the payload size at 24, then 8 bytes per column and a CRC), then its compressed
# columns; flip the byte in the middle of that payload.
mid=$(/usr/bin/python3 -c "
import struct, sys
h = open(sys.argv[1], 'rb').read(32)
n_cols, payload = struct.unpack_from('<IQ', h, 20)
print(48 + 8 * n_cols + 4 + payload // 2)" "$spill")
flip "$spill" "$mid"
cli_checks=$((cli_checks + 1))
cli_run sweep "${small[@]}" --spill-rows 2000 -o spill.h5 --resume
if ((rc != 1)) || (($(grep -c '^prism: error:' "$err") != 1)); then
    cli_fail "--resume of a damaged spill: exit $rc (expected 1 and one message)"
    head -5 "$err" >&2
fi
for needle in "s0001-r00000.spill: spill record at byte 0 (rows 0..999)" \
    "rerun with --resume --drop-damaged"; do
    grep -qF -- "$needle" "$err" || cli_fail "--resume message lacks '$needle'"
done
check "one way out: no --force in the message" bash -c "! grep -qF -- '--force' $err"
expect_bad "--drop-damaged needs --resume" -- sweep "${small[@]}" -o spill.h5 --drop-damaged \
    -- "--drop-damaged only applies to --resume"
cli_checks=$((cli_checks + 1))
cli_run sweep "${small[@]}" --spill-rows 2000 -o spill.h5 --resume --drop-damaged
((rc == 0)) || cli_fail "--resume --drop-damaged exited $rc: $(head -3 "$err")"
grep -qF "dropping the damaged record at byte 0 (rows 0..999)" "$err" ||
    cli_fail "--drop-damaged does not say what it dropped"
check "--drop-damaged gives the undisturbed run's datasets" \
    h5diff --exclude-attribute / ref.h5 spill.h5
check "no partial state left" test -z "$(ls -d spill.h5.* 2>/dev/null)"

cli_done 16
