# The dependent-launch tests split in two; the attention suite and compute-sanitizer on the persist arm.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 200 "$bin/vt_gpu_attention_tests" > "$out/suite-attention.log" 2>&1
echo "suite attention rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|SKIPPED' "$out/suite-attention.log" | tr '\n' ' ')"
grep -E "^\[       OK \] PersistentAfter" "$out/suite-attention.log"
for tool in memcheck racecheck; do
  VT_ATTN_TEST_QUICK=1 timeout -k 5 200 compute-sanitizer --tool $tool "$bin/vt_gpu_attention_tests" \
    --gtest_filter='PersistentAfterALateWriter.SeesEverythingTheKernelBeforeMayWrite:*PersistentGivesTheGqaBits/d128_q16kv2_bs32' > "$out/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$out/$tool.log" | tr '\n' ' ')"
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
