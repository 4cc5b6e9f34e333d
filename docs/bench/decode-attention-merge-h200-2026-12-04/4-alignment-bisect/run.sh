# Is it the dynamic shared memory's base offset? HEAD's persist kernel with the launcher reading its static
# shared memory (vt_h_fix), + 16 more static bytes (vt_h_pad32: base at 32 as in this tree), + the dynamic
# base aligned to 128 (vt_h_al128); beside HEAD (vt_head), this tree (vt, --merge kernel) and this tree aligned.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # label binary [args...]
  local label=$1 b=$2; shift 2
  timeout -k 5 120 "$bin/$b" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,16384 --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2; do
  att head-$round vt_head; att fix-$round vt_h_fix; att pad32-$round vt_h_pad32; att al128-$round vt_h_al128
  att tree-$round vt --merge kernel; att tree-al128-$round vt_tree_al128 --merge kernel
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
