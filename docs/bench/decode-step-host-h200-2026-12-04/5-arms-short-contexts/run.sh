# Short contexts at large batches: persist against gqa (same bits), kernel and end to end.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 150 "$bin/vt" bench attention --arms persist gqa --shapes qwen3-1.7b llama3-8b --batches 16 64 256 --contexts 48 96 160 512 --json > "$out/att.json" 2> "$out/att.err"
python3 - "$out/att.json" <<'PY'
import json,sys
rows=json.load(open(sys.argv[1])); rows = rows.get('rows', rows) if isinstance(rows, dict) else rows
by={}
for r in rows:
  key=(r.get('shape'), r.get('batch'), r.get('context'))
  by.setdefault(key,{})[r.get('arm')]=r
for k,v in by.items():
  print(k, ' '.join('%s=%.2fus' % (a, x.get('us', x.get('median_us', 0))) for a,x in v.items()))
PY
head -c 600 "$out/att.json"; echo
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %s'%r['decode_itl_ms'])" 2>&1 | tail -3; }
for round in 1 2; do for arm in persist gqa; do for m in qwen3-1.7b llama3-8b; do
  VT_ATTN_DECODE=$arm timeout -k 5 120 "$bin/vt" bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 --output-len 128 --concurrency 64 > "$out/$m-c64-$arm-r$round.json" 2> "$out/$m-c64-$arm-r$round.err"
  summ "$out/$m-c64-$arm-r$round.json" "$m $arm r$round"
done; done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
