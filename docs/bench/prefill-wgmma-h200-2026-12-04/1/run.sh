#!/usr/bin/env bash
# Session run 2: the wgmma prefill attention: kernel tests (both MMAs), memcheck + racecheck on them,
# vt bench prefill-attention --mma auto,warp beside the PyTorch SDPA anchor in the same job.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 200 "$bin/vt_gpu_prefill_gemm_tests" > "$out/prefill_gemm_tests.log" 2>&1; echo "prefill+gemm rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure|bad|tensor-core" "$out/prefill_gemm_tests.log" | head -30
timeout -k 5 200 compute-sanitizer --tool memcheck "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='PrefillAttention.*' > "$out/prefill_memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/prefill_memcheck.log" | tail -3
timeout -k 5 200 compute-sanitizer --tool racecheck "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='PrefillAttention.Chunk*' > "$out/prefill_racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$out/prefill_racecheck.log" | tail -3
timeout -k 5 200 "$bin/vt" bench prefill-attention --mma auto,warp --lengths 2048,8192,32768 > "$out/prefill-attention.txt" 2>&1
echo "bench rc=$?"; cat "$out/prefill-attention.txt"
(cd tools && timeout -k 5 200 "${python_env[@]}" python3 sdpa_prefill_anchor.py > "$out/sdpa_prefill.json" 2> "$out/sdpa_prefill.err"); echo "sdpa rc=$?"
python3 -c "
import json; j=json.load(open('$out/sdpa_prefill.json'))
for r in (j['rows'] if isinstance(j,dict) else j): print(r)" 2>&1 | head -20
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
