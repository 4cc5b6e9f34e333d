# The merge kernel issuing 32 loads before its adds (vt) against the loop unrolled by 8 (vt_merge8).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
for s in attention prefill_gemm engine; do
  t0=$(date +%s)
  timeout -k 5 240 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1
  echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|SKIPPED \]' "$out/suite-$s.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
  grep -E "^\[  FAILED" "$out/suite-$s.log" | head -5
done
timeout -k 5 100 compute-sanitizer --tool memcheck "$bin/vt_gpu_attention_tests" --gtest_filter='ChunkMerge.*' > "$out/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$out/memcheck.log" | tr '\n' ' ')"
att() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --contexts 4096,8192,16384 \
    --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do
  att b1-pdl-new-$round vt --batches 1 --dependent-launch
  att b1-pdl-old-$round vt_merge8 --batches 1 --dependent-launch
  att b1-new-$round vt --batches 1
  att b1-old-$round vt_merge8 --batches 1
  att b864-new-$round vt --batches 8,64
  att b864-old-$round vt_merge8 --batches 8,64
done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"
}
for round in 1 2; do for v in vt vt_merge8; do
  dec q8k-c1-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 1
  dec q8k-c8-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 8 \
    --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192))
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
