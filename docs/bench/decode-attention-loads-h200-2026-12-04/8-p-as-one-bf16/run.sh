#!/usr/bin/env bash
# Session run 9: what P.V's second (lo) MMA costs: the persist arm with P as one bf16 (vt_nolo) against HEAD.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # binary label
  timeout -k 5 60 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$2.json" 2> "$out/att-$2.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2.json'))
print('$2', ' '.join('%s/B%d/%dk:%.1f' % (r['shape'][:5], r['batch'], r['context']//1024, r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do for v in vt vt_nolo; do att $v ${v#vt_}-$round; done; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
for v in vt vt_nolo; do
  timeout -k 5 60 "$bin/$v" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
    --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
    --json > "$out/q8k-c8-$v.json" 2> "$out/q8k-c8-$v.err"
  summ "$out/q8k-c8-$v.json" "q8k-c8 $v"
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
