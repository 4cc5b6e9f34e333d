# The solo decode-attention arm (VT_ATTN_DECODE=solo: a warp per work item, the persist arm's bits) and
# the persistent arms' leaner subtile copies, against the session start's persist kernel, on an H200.
# Needs in .gpu/bin: vt, vt_gpu_attention_tests and vt_gpu_engine_tests of this plan's commit or later,
# and vt_base: the same vt with decode_persistent.cu as at e2dd4dc (README.md says how). Run from the
# repository root with OUT set (the device tool sets it), in two calls of about 6 minutes each:
#   bash docs/bench/solo-arm-plan/run.sh gates,kernel
#   bash docs/bench/solo-arm-plan/run.sh e2e
default_parts=gates,kernel
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" "${1:-}"
export VT_DEFAULT_MODEL="$root/assets/models/fortune-qwen3-7m" VT_SOURCE_DIR="$root"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
chmod +x "$bin"/vt_* 2>/dev/null
distinct_builds vt vt_base

if want gates; then
  # The same bits as gqa and persist at every shape, split and batch; the dependent-launch contract both
  # ways; the engine's greedy tokens split and unsplit.
  timeout -k 5 240 "$bin/vt_gpu_attention_tests" --gtest_filter='Shapes/DecodeArms.*:PersistentAfterALateWriter.*' \
    > "$out/attention_tests.log" 2>&1
  echo "attention tests rc $?"
  timeout -k 5 180 "$bin/vt_gpu_engine_tests" --gtest_filter='DecodeArms/ArmGate.*solo*:DecodeArms/ArmGate.*persist*' \
    > "$out/engine_arm_gate.log" 2>&1
  echo "engine arm gate rc $?"
  # Memory errors and shared-memory races on the new kernel (serialised launches: the late-writer test,
  # which needs overlapping launches, is left out, as for persist).
  timeout -k 5 150 compute-sanitizer --tool memcheck --error-exitcode 1 "$bin/vt_gpu_attention_tests" \
    --gtest_filter='Shapes/DecodeArms.PersistentGivesTheGqaBits/d128_q4kv2*:Shapes/DecodeArms.PersistentGivesTheGqaBits/d128_q8kv2*' \
    > "$out/memcheck.log" 2>&1
  echo "memcheck rc $?"
  timeout -k 5 150 compute-sanitizer --tool racecheck --error-exitcode 1 "$bin/vt_gpu_attention_tests" \
    --gtest_filter='Shapes/DecodeArms.PersistentGivesTheGqaBits/d128_q4kv2*' > "$out/racecheck.log" 2>&1
  echo "racecheck rc $?"
fi

if want kernel; then
  # The kernel alone, CUDA-graph timed, shuffled pages, both launch forms (steps of 1-4 rows launch
  # dependently): vt's three GQA arms beside vt_base's gqa and persist. Each row carries a hash of its
  # output: equal hashes within a point are the promised equal bits.
  for form in "" "--dependent-launch"; do
    for b in vt_base vt; do
      arms=gqa,persist,solo
      [ $b = vt_base ] && arms=gqa,persist
      label=attention-$b$(echo "$form" | sed 's/--/-/')
      timeout -k 5 200 "$bin/$b" bench attention --arms $arms --shapes qwen3-1.7b,llama3-8b --batches 1,8,64 \
        --contexts 4096,8192,16384 --json $form > "$out/$label.json" 2> "$out/$label.err"
      echo "$label rc $?"
    done
  done
  python3 - "$out" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/attention-*.json")):
    label = os.path.basename(f)[len("attention-"):-5]
    try:
        for r in json.load(open(f))["rows"]:
            rows.setdefault((label.replace("vt_base", "vt"), r["shape"], r["batch"], r["context"]), {})[
                ("base " if "vt_base" in label else "") + r["arm"]] = r
    except Exception as e:
        print(label, "no JSON:", e)
for key, arms in rows.items():
    hashes = {a: r.get("out_hash") for a, r in arms.items()}
    same = len(set(hashes.values())) == 1
    print(*key, " ".join(f"{a} {r.get('us', float('nan')):.2f}" for a, r in sorted(arms.items())),
          "bits equal" if same else f"BITS DIFFER {hashes}",
          " ".join(f"{a} UNWRITTEN {r['unwritten']}" for a, r in sorted(arms.items()) if r.get("unwritten")))
PY
  # Where the warps wait, persist against solo (ncu WarpStateStats, one call each, qwen3-1.7b B8 8k; the
  # persist arm's pre-alignment profile is in docs/bench/decode-attention-loads-h200-2026-12-04/7-stall-reasons/).
  for arm in persist solo; do
    timeout -k 5 60 ncu --section WarpStateStats --section SchedulerStats --section Occupancy --page raw --csv \
      -k 'regex:Decode(Persistent|Solo)' -c 1 "$bin/vt" bench attention --arms $arm --shapes qwen3-1.7b --batches 8 \
      --contexts 8192 --launches 2 --reps 1 > "$out/stalls-$arm.csv" 2> "$out/stalls-$arm.err"
    echo "ncu stalls $arm rc $?"
  done
fi

if want e2e; then
  summ() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results']
print(sys.argv[2], ' '.join('c%d %.1f tok/s TPOT %.3f decode-ITL %s' % (x['concurrency'], x['output_tokens_per_s'], x['tpot_ms']['median'],
      '-' if x['decode_itl_ms']['median'] is None else '%.3f' % x['decode_itl_ms']['median']) for x in r))" "$1" "$2" 2>&1 | tail -1; }
  # Two interleaved rounds: issue #16's c = 8 decode-only goal (qwen3-1.7b 8k, <= 3.5 ms; all eight
  # prefilled in one step), llama3-8b at 8k, and qwen3-1.7b's short prompts at c = 8 and 64.
  for round in 1 2; do for arm in vt_base:persist vt:persist vt:solo; do
    b=${arm%:*} decode=${arm#*:}
    for spec in qwen3-1.7b:8192 llama3-8b:8000; do
      model=${spec%%:*} input=${spec##*:} label=${spec/:/-}-c8-decode-only-$b-$decode-r$round
      VT_ATTN_DECODE=$decode timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json \
        --model preset:$model --input-len $input --output-len 64 --concurrency 8 \
        --max-num-batched-tokens 65536 --max-prefill-beside-decodes 65536 > "$out/$label.json" 2> "$out/$label.err"
      summ "$out/$label.json" "$label"
    done
    label=qwen3-1.7b-32-$b-$decode-r$round
    VT_ATTN_DECODE=$decode timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json \
      --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency 8,64 > "$out/$label.json" 2> "$out/$label.err"
    summ "$out/$label.json" "$label"
  done; done
fi
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
