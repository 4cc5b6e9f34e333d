#!/usr/bin/env bash
# Session run 7: Q in shared memory, P.V left running into the next tile (vt) against 1806982 (vt_head):
# kernel tests and sanitizers, bench, qwen3-1.7b 32k TTFT in alternating rounds, transformers anchor.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 200 "$bin/vt_gpu_prefill_gemm_tests" > "$out/prefill_gemm_tests.log" 2>&1; echo "prefill+gemm rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure|bad" "$out/prefill_gemm_tests.log" | head -10
timeout -k 5 200 compute-sanitizer --tool memcheck "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='PrefillAttention.*' > "$out/prefill_memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY" "$out/prefill_memcheck.log" | tail -1
timeout -k 5 200 compute-sanitizer --tool racecheck "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='PrefillAttention.Chunk*' > "$out/prefill_racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY" "$out/prefill_racecheck.log" | tail -1
for v in vt vt_head; do
  timeout -k 5 200 "$bin/$v" bench prefill-attention --lengths 2048,8192,32768 > "$out/prefill-attention-$v.txt" 2>&1
  echo "$v rc=$?"; cat "$out/prefill-attention-$v.txt"
done
for round in 1 2; do for v in vt_head vt; do
  timeout -k 5 150 "$bin/$v" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --input-len 32768 --output-len 16 --concurrency 1 --json > "$out/ttft-q32k-$v-$round.json" 2> "$out/ttft-q32k-$v-$round.err"
  python3 -c "
import json; j=json.load(open('$out/ttft-q32k-$v-$round.json'))
for r in j['results']: print('q32k $v round $round', 'TTFT %.1f ms' % r['ttft_ms']['median'])" 2>&1 | tail -1
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
