# Shares dealt out per SM (vt) against shares in CTA order (vt_ctaorder), same kernels otherwise.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
t0=$(date +%s)
timeout -k 5 240 "$bin/vt_gpu_attention_tests" > "$out/suite-attention.log" 2>&1
echo "suite attention rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-attention.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
grep -E "^\[  FAILED" "$out/suite-attention.log" | head -5
att() {  # label binary
  timeout -k 5 150 "$bin/$2" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 8,64 \
    --contexts 4096,8192,16384 --json > "$out/att-$1.json" 2> "$out/att-$1.err"
  python3 -c "
import json; j=json.load(open('$out/att-$1.json'))
print('$1', ' '.join('%s/B%d/%d=%.1f' % (r['shape'][:5], r['batch'], r['context'], r.get('us',0)) for r in j['rows']))" 2>&1 | tail -1
}
for round in 1 2 3; do att sm-$round vt; att ctaorder-$round vt_ctaorder; done
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"
}
for round in 1 2; do for v in vt vt_ctaorder; do
  dec q8k-c8-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 8 \
    --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192))
done; done
for v in vt vt_ctaorder; do
  dec l8k-c8 $v --model preset:llama3-8b --input-len 8192 --output-len 64 --concurrency 8 \
    --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192))
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
