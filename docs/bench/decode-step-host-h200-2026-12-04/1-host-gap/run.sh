# Host gap between decode steps: device busy/idle per step (VT_STEP_GAP probe), HEAD (vt_gap) against the
# step copying only what it uses (vt_gap2d).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'between %.1f'%r['between_steps_us'])" 2>&1 | tail -3; }
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  VT_STEP_GAP=1 timeout -k 5 120 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  summ "$out/$label-$b.json" "$label $b"; grep STEP_GAP "$out/$label-$b.err"
}
for round in 1 2; do for v in vt_gap vt_gap2d; do
  for c in 1 8; do
    dec llama-c$c-r$round $v --model preset:llama3-8b --input-len 32 --output-len 128 --concurrency $c
    dec qwen-c$c-r$round $v --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency $c
  done
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
