#!/usr/bin/env bash
set -uo pipefail
default_parts=all; source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" > /dev/null
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$root"
b=.gpu/bin
timeout 200 $b/vt_gpu_attention_tests --gtest_filter='*Persistent*:*Shuffled*:*SplitOfOne*' > "$OUT/attn.log" 2>&1; echo "attn rc=$?"; grep -E '^\[  (FAILED|PASSED)|Failure' "$OUT/attn.log" | head
for arm in persist gqa; do
  VT_ATTN_DECODE=$arm timeout -k 5 150 $b/vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --input-len 128 --output-len 128 --concurrency 1,8,64,96,200,256 --max-num-batched-tokens 512 --json > "$OUT/d-$arm.json" 2> "$OUT/d.err"
  echo "$arm rc=$?"
  python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
for r in j['results']: print('  c=%d tok/s %.0f ITL %.3f / p99 %.3f TPOT %.3f' % (r['concurrency'], r['output_tokens_per_s'], r['decode_itl_ms']['median'], r['decode_itl_ms']['p99'], r['tpot_ms']['median']))" "$OUT/d-$arm.json"
done
timeout 200 $b/vt_gpu_engine_tests --gtest_filter='*ArmGate*' > "$OUT/armgate.log" 2>&1; echo "arm gate rc=$?"; grep -E '^\[  (FAILED|PASSED)' "$OUT/armgate.log"
timeout 120 $b/vt bench attention --arms gqa,persist --split auto --shapes qwen3-1.7b llama3-8b --batches 1 8 64 --contexts 1024 4096 2>&1 | tail -14
