# The scheduler's per-step copy of every request's tokens (AllTokens) skipped unless a block fills:
# HEAD + probe (vt_gap) against the fix + probe (vt_gapfix); long prompts at c = 8 and short at c = 64.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  VT_STEP_GAP=1 timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  python3 -c "
import json; r=json.load(open('$out/$label-$b.json'))['results'][0]; print('$label $b', 'tok/s %.1f decode-ITL %.3f TPOT %.3f between %.1f' % (r['output_tokens_per_s'], r['decode_itl_ms']['median'], r['tpot_ms']['median'], r['between_steps_us']))" 2>&1 | tail -1
  grep STEP_GAP "$out/$label-$b.err" | tr '\n' ' '; echo
}
for round in 1 2; do for v in vt_gap vt_gapfix; do
  dec qwen8k-r$round $v --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency 8
  dec llama8k-r$round $v --model preset:llama3-8b --input-len 8000 --output-len 64 --concurrency 8
  dec qwen32-c64-r$round $v --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 64
done; done
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$root"
t0=$(date +%s); timeout -k 5 230 "$bin/vt_gpu_engine_tests" > "$out/suite-engine.log" 2>&1
echo "suite engine rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' "$out/suite-engine.log" | tr '\n' ' ') ($(( $(date +%s) - t0 )) s)"
gzip "$out/suite-engine.log"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
