# Is the persist arm slower as a dependent launch at small batches and long contexts (the engine's c <= 4)?
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # label [flags]
  local label=$1; shift
  timeout -k 5 150 "$bin/vt" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,2,4,8 \
    --contexts 4096,16384,32768 --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do att plain-$round; att pdl-$round --dependent-launch; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
for round in 1 2; do for pdl in 1 0; do
  VT_PDL=$pdl timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --json --model preset:qwen3-1.7b \
    --input-len 16384 --output-len 64 --concurrency 4 --max-num-batched-tokens $((4*16384)) --max-prefill-beside-decodes $((4*16384)) \
    > "$out/q16k-c4-pdl$pdl-r$round.json" 2> "$out/q16k-c4-pdl$pdl-r$round.err"
  summ "$out/q16k-c4-pdl$pdl-r$round.json" "q16k-c4 VT_PDL=$pdl r$round"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
