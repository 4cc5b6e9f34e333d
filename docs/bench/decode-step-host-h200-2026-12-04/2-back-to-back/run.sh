# Back-to-back graph replays against the per-step busy time (VT_STEP_GAP probe, HEAD + probe).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/gpu.txt" 2>&1
dec() {  # label binary args...
  local label=$1 b=$2; shift 2
  VT_STEP_GAP=1 timeout -k 5 120 "$bin/$b" bench decode --backend cuda --load-format dummy --json "$@" > "$out/$label-$b.json" 2> "$out/$label-$b.err"
  echo "$label"; grep STEP_GAP "$out/$label-$b.err"
}
for c in 1 8; do
  dec llama-c$c vt_b2b --model preset:llama3-8b --input-len 32 --output-len 128 --concurrency $c
  dec qwen-c$c vt_b2b --model preset:qwen3-1.7b --input-len 32 --output-len 128 --concurrency $c
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
