# The persist arm merging its chunks in the kernel (arrival counts) against the merge kernel after it.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
t0=$(date +%s)
timeout -k 5 240 "$bin/vt_gpu_attention_tests" > "$out/suite-attention.log" 2>&1
echo "suite attention rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-attention.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
grep -E "^\[  FAILED" "$out/suite-attention.log" | head -5
f='*PersistentGivesTheGqaBits/d128_q16kv2_bs32:*PersistentGivesTheGqaBits/d256_q8kv2_bs32:*InKernelMerge*/d128_q32kv2_bs16:*InKernelMerge*/d256_q16kv2_bs16'
for tool in memcheck racecheck; do
  VT_ATTN_TEST_QUICK=1 timeout -k 5 120 compute-sanitizer --tool $tool "$bin/vt_gpu_attention_tests" --gtest_filter="$f" > "$out/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$out/$tool.log" | tr '\n' ' ')"
done
att() {  # label args...
  local label=$1; shift
  timeout -k 5 150 "$bin/vt" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --contexts 4096,8192,16384 \
    --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do
  att b1-pdl-inkernel-$round --batches 1 --dependent-launch --merge in-kernel
  att b1-pdl-kernel-$round --batches 1 --dependent-launch --merge kernel
  att b1-inkernel-$round --batches 1 --merge in-kernel
  att b1-kernel-$round --batches 1 --merge kernel
  att b864-inkernel-$round --batches 8,64 --merge in-kernel
  att b864-kernel-$round --batches 8,64 --merge kernel
done
"${python_env[@]}" timeout -k 5 120 python3 tools/sdpa_decode_anchor.py --shapes qwen3-1.7b,llama3-8b --batches 1,8 \
  --contexts 4096,8192,16384 > "$out/sdpa.txt" 2>&1
echo "sdpa rc=$?"; tail -14 "$out/sdpa.txt"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
