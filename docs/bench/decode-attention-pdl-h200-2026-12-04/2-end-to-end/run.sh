# The schedule before the dependent-launch wait (vt), against HEAD (vt_head), end to end.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'ITL %.3f'%r['decode_itl_ms']['median'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"
}
for round in 1 2; do for v in vt vt_head; do
  dec q32-c1-r$round $v --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 1
  dec l32-c1-r$round $v --model preset:llama3-8b --input-len 32 --output-len 128 --concurrency 1
  dec q8k-c1-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 1
  dec q8k-c8-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 8 \
    --max-num-batched-tokens $((8*8192)) --max-prefill-beside-decodes $((8*8192))
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
