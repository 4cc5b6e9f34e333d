# Issue #16's two unmet TPOT goals with the staged skinny GEMM and early triggers (same binaries as
# run.sh): qwen3-1.7b, 8k prompts, c = 1 TPOT (goal <= 1.4 ms) and c = 8 decode-only ITL (goal <= 3.5 ms,
# all eight prefilled in one step, then decoding together). Two interleaved rounds, about 6 minutes.
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
distinct_builds vt vt_trigger
summ() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]
print(sys.argv[2], 'TPOT %.3f decode-ITL %.3f ms' % (r['tpot_ms']['median'], r['decode_itl_ms']['median']))" "$1" "$2" 2>&1 | tail -1; }
for round in 1 2; do for arm in vt:0 vt:1 vt_trigger:0 vt_trigger:1; do
  b=${arm%:*} stage=${arm#*:}
  for c in 1 8; do
    label=qwen8k-c$c-$b-stage$stage-r$round
    VT_SKINNY_STAGE=$stage timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --json \
      --model preset:qwen3-1.7b --input-len 8192 --output-len 64 --concurrency $c \
      --max-num-batched-tokens 65536 --max-prefill-beside-decodes 65536 > "$out/$label.json" 2> "$out/$label.err"
    summ "$out/$label.json" "$label"
  done
done; done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
