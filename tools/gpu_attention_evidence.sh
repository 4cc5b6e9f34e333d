#!/usr/bin/env bash
# Decode-attention evidence on a GPU machine, in one job: the GPU tests (numerics table),
# compute-sanitizer memcheck and racecheck, `vt bench attention` and PyTorch SDPA on the same
# shapes, joined into the Markdown table of docs/BENCHMARKS.md.
#
# Usage: bash tools/gpu_attention_evidence.sh BIN_DIR OUT_DIR
#   BIN_DIR holds vt and vt_gpu_attention_tests from a -DVT_CUDA=ON build
#   (build/engine/vt, build/tests/gpu/vt_gpu_attention_tests).
set -uo pipefail
bin=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
"$bin/vt_gpu_attention_tests" > "$out/attention_tests.log" 2>&1
echo "gpu tests rc=$?"; grep -E '^\[  (FAILED|PASSED) ' "$out/attention_tests.log"

# The sanitizers run the short contexts on a representative subset (they are ~100x slower).
subset='*Every*d128_q8kv2*:*Every*d256_q4kv2*:*Shuffled*d128_q4kv2*:*SplitOfOne*d128_q4kv2*'
subset+=':*ChunksPerCta*d128_q16kv2*:*ChunksPerCta*d256_q4kv2*:KvCache*'
for tool in memcheck racecheck; do
  VT_ATTN_TEST_QUICK=1 compute-sanitizer --tool "$tool" "$bin/vt_gpu_attention_tests" --gtest_filter="$subset" \
    > "$out/$tool.log" 2>&1
  echo "$tool rc=$?"; grep -E 'PASSED|ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log"
done

"$bin/vt" bench attention --json > "$out/vt_attention.json"
echo "vt bench rc=$?"
PYTHONUNBUFFERED=1 python3 "$root/tools/sdpa_decode_anchor.py" > "$out/sdpa.json" 2> "$out/sdpa.err"
echo "sdpa rc=$?"
python3 "$root/tools/attention_table.py" "$out/vt_attention.json" "$out/sdpa.json" > "$out/table.md"
python3 "$root/tools/attention_numerics_summary.py" "$out/attention_tests.log" > "$out/numerics.md"
cat "$out/table.md"
