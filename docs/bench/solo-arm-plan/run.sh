# The solo decode-attention arm (VT_ATTN_DECODE=solo: a warp per work item, the persist arm's bits)
# against persist on an H200, about 7 minutes. Needs in .gpu/bin: vt, vt_gpu_attention_tests and
# vt_gpu_engine_tests of the solo commit or later. Run from the repository root with OUT set (the
# device tool sets it).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$root"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
# Gates first: the same bits as gqa and persist at every shape, split and batch; the dependent-launch
# contract both ways; the engine's greedy tokens split and unsplit.
timeout -k 5 240 "$bin/vt_gpu_attention_tests" --gtest_filter='Shapes/DecodeArms.*:PersistentAfterALateWriter.*' \
  > "$out/attention_tests.log" 2>&1
echo "attention tests rc $?"
timeout -k 5 180 "$bin/vt_gpu_engine_tests" --gtest_filter='DecodeArms/ArmGate.*solo*' > "$out/engine_arm_gate.log" 2>&1
echo "engine arm gate rc $?"
# Memory errors and shared-memory races on the new kernel (serialised launches: the late-writer test that
# needs overlapping launches is left out, as for persist).
timeout -k 5 150 compute-sanitizer --tool memcheck --error-exitcode 1 "$bin/vt_gpu_attention_tests" \
  --gtest_filter='Shapes/DecodeArms.PersistentGivesTheGqaBits/d128_q4kv2*:Shapes/DecodeArms.PersistentGivesTheGqaBits/d128_q8kv2*' \
  > "$out/memcheck.log" 2>&1
echo "memcheck rc $?"
timeout -k 5 150 compute-sanitizer --tool racecheck --error-exitcode 1 "$bin/vt_gpu_attention_tests" \
  --gtest_filter='Shapes/DecodeArms.PersistentGivesTheGqaBits/d128_q4kv2*' > "$out/racecheck.log" 2>&1
echo "racecheck rc $?"
# The kernel alone, CUDA-graph timed, shuffled pages, both launch forms (batch 1-8 run dependently in steps).
for form in "" "--dependent-launch"; do
  label=attention$(echo "$form" | sed 's/--/-/')
  timeout -k 5 200 "$bin/vt" bench attention --arms gqa,persist,solo --shapes qwen3-1.7b,llama3-8b \
    --batches 1,8,64 --contexts 4096,8192,16384 --json $form > "$out/$label.json" 2> "$out/$label.err"
  echo "$label rc $?"
done
# Where the warps wait, persist against solo on issue #16's shape (ncu WarpStateStats, one call each,
# qwen3-1.7b B8 8k; the persist arm's pre-alignment profile is in
# docs/bench/decode-attention-loads-h200-2026-12-04/7-stall-reasons/).
for arm in persist solo; do
  timeout -k 5 60 ncu --section WarpStateStats --section SchedulerStats --section Occupancy --page raw --csv \
    -k 'regex:Decode(Persistent|Solo)' -c 1 "$bin/vt" bench attention --arms $arm --shapes qwen3-1.7b --batches 8 \
    --contexts 8192 --launches 2 --reps 1 > "$out/stalls-$arm.csv" 2> "$out/stalls-$arm.err"
  echo "ncu stalls $arm rc $?"
done
summ() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results']
print(sys.argv[2], ' '.join('c%d %.1f tok/s TPOT %.3f decode-ITL %s' % (x['concurrency'], x['output_tokens_per_s'], x['tpot_ms']['median'],
      '-' if x['decode_itl_ms']['median'] is None else '%.3f' % x['decode_itl_ms']['median']) for x in r))" "$1" "$2" 2>&1 | tail -1; }
# End to end, two interleaved rounds: issue #16's c = 8 decode-only goal (qwen3-1.7b 8k, <= 3.5 ms; all
# eight prefilled in one step), llama3-8b at 8k, and short prompts at c = 8 and 64.
for round in 1 2; do for arm in persist solo; do
  for spec in qwen3-1.7b:8192 llama3-8b:8000; do
    model=${spec%%:*} input=${spec##*:} label=${spec/:/-}-c8-decode-only-$arm-r$round
    VT_ATTN_DECODE=$arm timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --json \
      --model preset:$model --input-len $input --output-len 64 --concurrency 8 \
      --max-num-batched-tokens 65536 --max-prefill-beside-decodes 65536 > "$out/$label.json" 2> "$out/$label.err"
    summ "$out/$label.json" "$label"
  done
  label=qwen3-1.7b-32-$arm-r$round
  VT_ATTN_DECODE=$arm timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --json \
    --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 8,64 > "$out/$label.json" 2> "$out/$label.err"
  summ "$out/$label.json" "$label"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
