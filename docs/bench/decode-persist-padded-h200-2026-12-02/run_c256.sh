#!/usr/bin/env bash
set -uo pipefail
default_parts=all; source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" > /dev/null
b=.gpu/bin
for cfg in "persist 1" "gqa 1" "persist 0" "gqa 0"; do
  read -r arm graphs <<< "$cfg"
  VT_ATTN_DECODE=$arm VT_CUDA_GRAPHS=$graphs timeout -k 5 120 $b/vt bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --input-len 128 --output-len 128 --concurrency 64,256 --max-num-batched-tokens 512 --json > "$OUT/d-$arm-$graphs.json" 2> "$OUT/d.err"
  echo "$arm graphs=$graphs rc=$?"
  python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
for r in j['results']: print('  c=%d tok/s %.0f ITL %s TPOT %s' % (r['concurrency'], r['output_tokens_per_s'], r['decode_itl_ms'], r['tpot_ms']['median']))" "$OUT/d-$arm-$graphs.json"
done
timeout 120 $b/vt bench attention --arms gqa,persist --split auto --shapes qwen3-1.7b --batches 64 256 --contexts 128 256 4096 2>&1 | tail -20
