#!/usr/bin/env bash
# Session run 6: the persist arm's K/V copies with the L2::128B hint (this tree) against HEAD (vt_head):
# attention + engine suites, attention timings, qwen3 8k c=8 decode-only; and two diagnostics: a
# head-major page layout (full and loads-only) and loads only without the per-item barriers and merge.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for s in attention engine; do
  timeout -k 5 240 "$bin/vt_gpu_${s}_tests" > "$out/suite-$s.log" 2>&1; echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ')"
done
m="dram__sectors_read.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum"
prof() {  # binary label
  timeout -k 5 60 ncu --metrics "$m" -k regex:'Decode(Persistent|Merge)' -c 2 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b \
    --batches 8 --contexts 8192 --launches 2 --reps 1 > "$out/ncu-$2.txt" 2>&1; echo "ncu $2 rc=$?"
  grep -E '^\s+(lts|dram|smsp|gpu|l1tex)__|^  [a-zA-Z_].*\(' "$out/ncu-$2.txt" | sed 's/  */ /g' | cut -c1-100 | sed "s/^/$2 /"
}
prof vt_head head; prof vt_hnd hnd; prof vt_nc_nobar nc_nobar
att() {  # binary label
  timeout -k 5 100 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$2.json" 2> "$out/att-$2.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2.json'))
print('$2', ' '.join('%s/B%d/%dk:%.1f' % (r['shape'][:5], r['batch'], r['context']//1024, r.get('us',0)) for r in j['rows']))"
}
for round in 1 2; do for v in vt vt_head vt_hnd vt_nc_hnd vt_nocompute vt_nc_nobar; do att $v ${v#vt_}-$round; done; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
for round in 1 2; do for v in vt vt_head; do
  timeout -k 5 150 "$bin/$v" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 8192 \
    --output-len 64 --concurrency 8 --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192)) \
    --json > "$out/q8k-c8-$v-$round.json" 2> "$out/q8k-c8-$v-$round.err"
  summ "$out/q8k-c8-$v-$round.json" "q8k-c8 $v r$round"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
