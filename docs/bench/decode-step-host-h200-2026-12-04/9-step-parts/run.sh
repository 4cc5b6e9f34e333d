# Host time of each part of LlmEngine::Step (VT_STEP_GAP probe, HEAD d0dddba + probes).
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for m in qwen3-1.7b llama3-8b; do for c in 64 1; do
  VT_STEP_GAP=1 timeout -k 5 120 "$bin/vt_gapparts" bench decode --backend cuda --load-format dummy --json --model preset:$m --input-len 32 --output-len 128 --concurrency $c > "$out/$m-c$c.json" 2> "$out/$m-c$c.err"
  echo "$m c=$c"; grep -E "STEP_GAP|STEP_PARTS" "$out/$m-c$c.err"
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
