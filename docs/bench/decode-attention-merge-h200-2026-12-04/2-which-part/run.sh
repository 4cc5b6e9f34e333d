# Which part of the new binary is faster: the batched merge kernel alone (vt_mk = HEAD's persist kernel +
# the new merge kernel) vs this tree (--merge kernel | in-kernel) vs HEAD (vt_head); sanitizers on the new paths.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for tool in memcheck racecheck; do
  timeout -k 5 200 compute-sanitizer --tool $tool "$bin/vt_gpu_attention_tests" \
    --gtest_filter='*PersistentGivesTheGqaBits/d128_q8kv1_bs32' > "$out/sanitizer-$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$out/sanitizer-$tool.log" | tr '\n' ' ' | cut -c1-200)"
done
att() {  # label binary [args...]
  local label=$1 b=$2; shift 2
  timeout -k 5 120 "$bin/$b" bench attention --arms persist,gqa --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/%s/B%d/%d=%.1f' % (r['arm'][:2], r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do
  att head-$round vt_head; att mk-$round vt_mk; att tree-kernel-$round vt --merge kernel; att tree-inkernel-$round vt
done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
for round in 1 2; do for v in vt vt_mk vt_head; do
  timeout -k 5 150 "$bin/$v" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
    --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
    --json > "$out/q8k-c8-$v-$round.json" 2> "$out/q8k-c8-$v-$round.err"
  summ "$out/q8k-c8-$v-$round.json" "q8k-c8 $v r$round"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
