#!/usr/bin/env bash
# Session run 7: head-major pages AND each request's pages in order (a CTA's K/V one contiguous stream,
# as cuDNN reads it), full and loads-only, beside the interleaved layout in order and shuffled.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # binary label pages
  timeout -k 5 100 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 8,64 \
    --contexts 8192,16384 --pages $3 --json > "$out/att-$2-$3.json" 2> "$out/att-$2-$3.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2-$3.json'))
print('$2 $3', ' '.join('%s/B%d/%dk:%.1f' % (r['shape'][:5], r['batch'], r['context']//1024, r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do for v in vt vt_hnd vt_nc_hnd vt_nocompute; do for pg in in-order shuffled; do att $v ${v#vt_}-$round $pg; done; done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
