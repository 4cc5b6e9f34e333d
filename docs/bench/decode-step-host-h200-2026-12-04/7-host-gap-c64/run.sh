# Host time between decode steps at c = 64 (VT_STEP_GAP probe on HEAD, back-to-back replays at step 64).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for round in 1 2; do for m in qwen3-1.7b llama3-8b; do
  VT_STEP_GAP=1 timeout -k 5 120 "$bin/vt_b2b" bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 --output-len 128 --concurrency 64 > "$out/$m-c64-r$round.json" 2> "$out/$m-c64-r$round.err"
  echo "$m r$round"; grep STEP_GAP "$out/$m-c64-r$round.err"
  python3 -c "
import json; r=json.load(open('$out/$m-c64-r$round.json'))['results'][0]; print('tok/s %.1f ITL %.3f TPOT %.3f' % (r['output_tokens_per_s'], r['decode_itl_ms']['median'], r['tpot_ms']['median']))"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
