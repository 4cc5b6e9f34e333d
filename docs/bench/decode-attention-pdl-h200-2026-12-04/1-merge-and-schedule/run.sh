# Merge kernel as a dependent launch (vt_mpdl), plus the schedule before the wait (vt = early), against HEAD (vt_head).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
att() {  # label binary [flags]
  local label=$1 b=$2; shift 2
  local t0=$(date +%s)
  timeout -k 5 150 "$bin/$b" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json "$@" > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
  echo "  ($(( $(date +%s) - t0 )) s)"
}
att head-1 vt_head
att mpdl-1 vt_mpdl
att early-1 vt
att mpdl-pdl-1 vt_mpdl --dependent-launch
att early-pdl-1 vt --dependent-launch
att head-2 vt_head
att mpdl-2 vt_mpdl
att early-pdl-2 vt --dependent-launch
for s in attention engine; do
  t0=$(date +%s)
  timeout -k 5 200 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1; echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
