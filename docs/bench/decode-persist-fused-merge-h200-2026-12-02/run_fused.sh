#!/usr/bin/env bash
set -uo pipefail
default_parts=all; source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" > /dev/null
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$root"
b=.gpu/bin
timeout 100 $b/vt_gpu_attention_tests > "$OUT/attn.log" 2>&1; echo "attn rc=$?"; grep -E '^\[  (FAILED|PASSED)|Failure' "$OUT/attn.log" | head -6
timeout 90 $b/vt_gpu_engine_tests > "$OUT/engine.log" 2>&1; echo "engine rc=$?"; grep -E '^\[  (FAILED|PASSED)|Failure' "$OUT/engine.log" | head -6
timeout 30 $b/vt_gpu_prefill_gemm_tests > "$OUT/prefill.log" 2>&1; echo "prefill rc=$?"; grep -E '^\[  (FAILED|PASSED)' "$OUT/prefill.log"
VT_ATTN_TEST_QUICK=1 timeout 40 compute-sanitizer --tool memcheck $b/vt_gpu_attention_tests --gtest_filter='*Persistent*d128_q8kv2*' > "$OUT/memcheck.log" 2>&1; echo "memcheck rc=$?"; grep -E 'ERROR SUMMARY' "$OUT/memcheck.log"
timeout 60 $b/vt bench attention --arms gqa,persist --split auto --shapes qwen3-1.7b llama3-8b --batches 1 8 64 --contexts 1024 4096 16384 2>&1 | tail -37
for arm in persist gqa; do
  VT_ATTN_DECODE=$arm timeout -k 5 60 $b/vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 --output-len 64 \
    --concurrency 1 --max-num-batched-tokens 65536 --max-prefill-beside-decodes 65536 --json > "$OUT/e2e-$arm.json" 2>/dev/null
  python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
for r in j['results']: print('$arm c=%d 8k decode ITL %s TPOT %.3f' % (r['concurrency'], r['decode_itl_ms'], r['tpot_ms']['median']))" "$OUT/e2e-$arm.json"
done
