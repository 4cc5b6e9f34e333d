# Where a dependently launched persist grid's CTAs run: per-CTA SM, entry, start after the wait and end (vt_probe).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for flags in "" "--dependent-launch"; do
  "$bin/vt_probe" bench attention --arms persist --shapes qwen3-1.7b --batches 1,8,64 --contexts 16384 --json $flags \
    > "$out/att-probe$flags.json" 2> "$out/probe$flags.txt"
  python3 .gpu/probe_summary.py "$out/probe$flags.txt" | tee "$out/summary$flags.txt"
  python3 -c "
import json; j=json.load(open('$out/att-probe$flags.json'))
print(' '.join('B%d/%d=%.1f' % (r['batch'], r['context'], r.get('us',0)) for r in j['rows']))"
done
gzip "$out"/probe*.txt
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
