# CTAs taking item ranges from a work counter (vt) against 4b8422a (vt_base, same kernels as HEAD).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 200 "$bin/vt_gpu_attention_tests" > "$out/suite-attention.log" 2>&1
echo "suite attention rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-attention.log" | tr '\n' ' ')"
grep -E "^\[  FAILED" "$out/suite-attention.log" | head -5
att() {  # label binary
  timeout -k 5 150 "$bin/$2" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$1.json" 2> "$out/att-$1.err"
  python3 -c "
import json; j=json.load(open('$out/att-$1.json'))
print('$1', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do att ranges-$round vt; att base-$round vt_base; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"
}
for round in 1 2; do for v in vt vt_base; do
  dec q8k-c8-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 8 \
    --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192))
  dec q32-c64-r$round $v --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 64
done; done
timeout -k 5 200 "$bin/vt_gpu_engine_tests" > "$out/suite-engine.log" 2>&1
echo "suite engine rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-engine.log" | tr '\n' ' ')"
VT_ATTN_TEST_QUICK=1 timeout -k 5 120 compute-sanitizer --tool memcheck "$bin/vt_gpu_attention_tests" \
  --gtest_filter='*PersistentGivesTheGqaBits/d128_q16kv2_bs32:*PersistentGivesTheGqaBits/d256_q8kv2_bs32' > "$out/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$out/memcheck.log" | tr '\n' ' ')"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
