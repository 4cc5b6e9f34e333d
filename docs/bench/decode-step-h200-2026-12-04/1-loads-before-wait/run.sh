#!/usr/bin/env bash
# Session run 1 (2026-12-04 b): (a) skinny GEMM weights loaded before the PDL wait: vt (new) against
# vt_base (HEAD faaf09c), interleaved, qwen3-1.7b and llama3-8b at 32 in / 128 out; (b) prefill+GEMM
# suite and memcheck/racecheck on the skinny tests; (c) the serve mix and qwen3 8k c=8 decode-only
# (the mix's decode-only bound); (d) engine suite.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -6; }
for round in 1 2; do
  for b in vt_base vt; do
    timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32 \
      --output-len 128 --concurrency 1,2,4 --json > "$out/q-$b-$round.json" 2> "$out/q-$b-$round.err"
    summ "$out/q-$b-$round.json" "qwen3 $b r$round"
    timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --model preset:llama3-8b --input-len 32 \
      --output-len 128 --concurrency 1,4 --json > "$out/l-$b-$round.json" 2> "$out/l-$b-$round.err"
    summ "$out/l-$b-$round.json" "llama3 $b r$round"
  done
done
timeout -k 5 200 "$bin/vt_gpu_prefill_gemm_tests" > "$out/prefill_gemm_tests.log" 2>&1; echo "prefill_gemm rc=$?"; tail -2 "$out/prefill_gemm_tests.log"
for tool in memcheck racecheck; do
  timeout -k 5 120 compute-sanitizer --tool $tool "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='*Skinny*' > "$out/skinny_$tool.log" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/skinny_$tool.log" | tail -3
done
timeout -k 5 200 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
  --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
  --json > "$out/q8k-c8.json" 2> "$out/q8k-c8.err"
summ "$out/q8k-c8.json" "qwen3 8k decode-only"
timeout -k 5 400 bash tools/gpu_serve_evidence.sh "$bin" "$out/mix" mix > "$out/mix.log" 2>&1; echo "mix rc=$?"; tail -6 "$out/mix.log"
timeout -k 5 300 "$bin/vt_gpu_engine_tests" > "$out/engine_tests.log" 2>&1; echo "engine rc=$?"; tail -3 "$out/engine_tests.log"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
