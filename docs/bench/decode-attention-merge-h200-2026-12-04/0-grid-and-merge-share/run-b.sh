source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # label binary [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout -k 5 120 "$bin/$b" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do
att head$round vt
att skip$round vt_g_skip VT_SKIP_MERGE=1
att nc$round vt_nc_skip
att ncskip$round vt_nc_skip VT_SKIP_MERGE=1
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
