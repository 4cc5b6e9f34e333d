#!/usr/bin/env bash
# Session run 9: the warp-MMA prefill kernel with one barrier a tile (vt) against 2b37175 (vt_head):
# kernel tests and sanitizers, bench on warp MMAs (head_dim 128) and at head_dim 256 (warp MMAs on every GPU).
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 200 "$bin/vt_gpu_prefill_gemm_tests" > "$out/prefill_gemm_tests.log" 2>&1; echo "prefill+gemm rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure|bad" "$out/prefill_gemm_tests.log" | head -10
timeout -k 5 200 compute-sanitizer --tool memcheck "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='PrefillAttention.*' > "$out/prefill_memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY" "$out/prefill_memcheck.log" | tail -1
timeout -k 5 200 compute-sanitizer --tool racecheck "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='PrefillAttention.*' > "$out/prefill_racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY" "$out/prefill_racecheck.log" | tail -1
for round in 1 2; do for v in vt_head vt; do
  timeout -k 5 200 "$bin/$v" bench prefill-attention --mma warp --shapes qwen3-1.7b,llama3-8b,gemma3-d256-8q4kv --lengths 2048,8192,32768 > "$out/prefill-attention-warp-$v-$round.txt" 2>&1
  echo "$v round $round rc=$?"; grep -E "prompt|chunk" "$out/prefill-attention-warp-$v-$round.txt" | awk '{print $1, $2, $4, $7, $8}' | paste -sd ' ' | sed 's/\(prompt\|chunk\)/\n&/g' | head -20
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
