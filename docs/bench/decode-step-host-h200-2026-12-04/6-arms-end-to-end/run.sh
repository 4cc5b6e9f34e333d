# End to end, persist against gqa (same bits) at c = 1..32, short prompts.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -8; }
for round in 1 2; do for arm in persist gqa; do for m in qwen3-1.7b llama3-8b; do
  VT_ATTN_DECODE=$arm timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 --output-len 128 --concurrency 1,2,4,8,16,32 > "$out/$m-$arm-r$round.json" 2> "$out/$m-$arm-r$round.err"
  summ "$out/$m-$arm-r$round.json" "$m $arm r$round"
done; done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
