# Same-job A/B of the batched-load merge kernel on top of the aligned persist arm: vt (HEAD's merge) vs vt_bm.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # label binary
  timeout -k 5 150 "$bin/$2" bench attention --arms persist,gqa --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$1.json" 2> "$out/att-$1.err"
  python3 -c "
import json; j=json.load(open('$out/att-$1.json'))
print('$1', ' '.join('%s/%s/B%d/%d=%.1f' % (r['arm'][:2], r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do att aligned-$round vt; att batched-merge-$round vt_bm; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
