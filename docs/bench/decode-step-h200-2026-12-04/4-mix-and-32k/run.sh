#!/usr/bin/env bash
# Session run 4 (HEAD's kernels): qwen3-1.7b 32k TTFT with 32k- and 16k-token prefill steps around the
# transformers forward of the same length; the serve mix and the mix's decode-only bound (qwen3 8k c=8).
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'], 'TTFT %.1f'%r['ttft_ms']['median'])" 2>&1 | tail -6; }
q32k() {
  for step in 32768 16384; do
    timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32768 \
      --output-len 4 --concurrency 1 --max-num-batched-tokens $step --json > "$out/q32k-step$step-$1.json" 2> "$out/q32k-step$step-$1.err"
    summ "$out/q32k-step$step-$1.json" "qwen3 32k step $step r$1"
  done
}
q32k 1; q32k 2
PYTHONUNBUFFERED=1 timeout -k 5 200 "${python_env[@]}" python3 tools/hf_prefill_anchor.py --runs qwen3-1.7b:32768,qwen3-1.7b:32768,qwen3-1.7b:32768 > "$out/hf_prefill.json" 2> "$out/hf_prefill.err"
echo "hf rc=$?"; grep '^hf prefill' "$out/hf_prefill.err"
q32k 3; q32k 4
timeout -k 5 200 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
  --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
  --json > "$out/q8k-c8.json" 2> "$out/q8k-c8.err"
summ "$out/q8k-c8.json" "qwen3 8k decode-only"
timeout -k 5 300 bash tools/gpu_serve_evidence.sh "$bin" "$out/mix" mix > "$out/mix.log" 2>&1; echo "mix rc=$?"; grep -E "^mix|^decode-only" "$out/mix.log"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
