# Skinny GEMM: 6 warps a CTA where they make 1.3 waves one (vt), against 8 always (vt_skinny8); forms 8 and 6 only.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
for s in prefill_gemm forward_ops engine; do
  t0=$(date +%s)
  timeout -k 5 150 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1
  echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
  grep -E "^\[  FAILED|skinny linear: N" "$out/suite-$s.log" | head -8
done
for tool in memcheck racecheck; do
  timeout -k 5 100 compute-sanitizer --tool $tool "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='SkinnyGemm.*' > "$out/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$out/$tool.log" | tr '\n' ' ')"
done
gemm() {  # label binary
  timeout -k 5 100 "$bin/$2" bench gemm --shapes 4096x6144,4096x4096,4096x28672,14336x4096,2048x4096,2048x2048,2048x12288,6144x2048 \
    --ms 1,8 --json > "$out/gemm-$1.json" 2> "$out/gemm-$1.err"
  python3 -c "
import json; j=json.load(open('$out/gemm-$1.json'))
rows=j.get('rows') or j.get('results')
print('$1', ' '.join('%dx%d/M%d=%.2f(%.0f%%)' % (r['K'], r['N'], r['M'], r['vt_us'], r['copy_pct']) for r in rows))" 2>&1 | tail -1
}
for round in 1 2; do gemm new-$round vt; gemm old-$round vt_skinny8; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 120 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"
}
for round in 1 2; do for v in vt vt_skinny8; do
  dec llama-r$round $v --model preset:llama3-8b --input-len 32 --output-len 128 --concurrency 1,8
  dec qwen-r$round $v --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 1,8
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
