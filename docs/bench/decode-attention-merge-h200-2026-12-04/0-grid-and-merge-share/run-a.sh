source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
cp -r docs/bench/decode-attention-gather-probe-h200-2026-12-04/run.sh "$out/" 2>/dev/null
att() {  # label binary [env...]
  local label=$1 b=$2; shift 2
  env "$@" timeout -k 5 120 "$bin/$b" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$label.json" 2> "$out/att-$label.err"
  python3 -c "
import json; j=json.load(open('$out/att-$label.json'))
print('$label', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))"
}
att head vt
att g3 vt_grid
att g2 vt_grid VT_PERSIST_PER_SM=2
att g1 vt_grid VT_PERSIST_PER_SM=1
att g342 vt_grid VT_PERSIST_GRID=342
att g293 vt_grid VT_PERSIST_GRID=293
att nc3 vt_nc_grid
att nc2 vt_nc_grid VT_PERSIST_PER_SM=2
att nc1 vt_nc_grid VT_PERSIST_PER_SM=1
att head2 vt
att g2b vt_grid VT_PERSIST_PER_SM=2
timeout -k 5 120 ncu --clock-control none --metrics gpu__time_duration.sum "$bin/vt" bench attention --arms persist --shapes qwen3-1.7b \
  --batches 8 --contexts 8192 --launches 2 --reps 1 > "$out/ncu-durations.txt" 2>&1; echo "ncu rc=$?"
grep -E "Kernel|Merge|duration" "$out/ncu-durations.txt" | head -20
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
