# The remaining GPU suites on the session's final kernels (the prefill-as-decode path waits first).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for s in smoke forward_ops prefill_gemm w4a16 attention; do
  t0=$(date +%s)
  timeout -k 5 70 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1
  echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|SKIPPED \]' "$out/suite-$s.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
