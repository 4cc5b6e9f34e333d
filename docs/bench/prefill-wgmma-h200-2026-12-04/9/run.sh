#!/usr/bin/env bash
# Session run 10: after the review fixes (operand fences on Q and P, (9, 0) check, shared grid and
# shape header): the prefill kernel tests (new: the bits of a chunk alone and among others, the
# dispatch, a no-GQA shape), the engine suite, and the bench (the kernel that ran is printed).
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 120 "$bin/vt_gpu_prefill_gemm_tests" > "$out/prefill_gemm_tests.log" 2>&1; echo "prefill+gemm rc=$?"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|bad|Expected" "$out/prefill_gemm_tests.log" | head -12
timeout -k 5 150 "$bin/vt_gpu_engine_tests" > "$out/engine_tests.log" 2>&1; echo "engine rc=$?"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|tests from .* ran" "$out/engine_tests.log" | head -8
timeout -k 5 60 "$bin/vt" bench prefill-attention --lengths 8192,32768 > "$out/prefill-attention.txt" 2>&1; echo "bench rc=$?"; cat "$out/prefill-attention.txt"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
