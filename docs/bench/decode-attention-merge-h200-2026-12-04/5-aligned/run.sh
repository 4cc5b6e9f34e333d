# The change as committed (persist arm's shared memory 128-byte aligned; HEAD's merge kernel) against HEAD (vt_head).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for s in attention engine; do
  timeout -k 5 200 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1; echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ')"
done
att() {  # label binary
  timeout -k 5 150 "$bin/$2" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$1.json" 2> "$out/att-$1.err"
  python3 -c "
import json; j=json.load(open('$out/att-$1.json'))
print('$1', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do att head-$round vt_head; att final-$round vt; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
for round in 1 2; do for v in vt vt_head; do
  timeout -k 5 150 "$bin/$v" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
    --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
    --json > "$out/q8k-c8-$v-$round.json" 2> "$out/q8k-c8-$v-$round.err"
  summ "$out/q8k-c8-$v-$round.json" "q8k-c8 $v r$round"
done; done
timeout -k 5 100 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
  --output-len 64 --concurrency 1 --json > "$out/q8k-c1-vt.json" 2> "$out/q8k-c1-vt.err"; summ "$out/q8k-c1-vt.json" "q8k-c1 vt"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
