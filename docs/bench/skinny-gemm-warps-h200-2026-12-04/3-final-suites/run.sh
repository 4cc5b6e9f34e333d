# Every GPU suite on the session's final build (c007280).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for s in smoke forward_ops prefill_gemm w4a16 attention engine; do
  t0=$(date +%s)
  timeout -k 5 120 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1
  echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
  grep -E "^\[  FAILED" "$out/suite-$s.log" | head -5
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
