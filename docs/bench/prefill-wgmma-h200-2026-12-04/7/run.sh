#!/usr/bin/env bash
# Session run 8: the GPU gates with the wgmma prefill by default (1806982), TTFT with a whole-prompt step
# budget, and the long-context rows at 8k (c = 1 and 8).
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
timeout -k 5 240 "$bin/vt_gpu_engine_tests" > "$out/engine_tests.log" 2>&1; echo "engine rc=$?"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|tests from .* ran|rel. L2|logits" "$out/engine_tests.log" | head -20
for t in forward_ops smoke attention; do
  timeout -k 5 150 "$bin/vt_gpu_${t}_tests" > "$out/${t}_tests.log" 2>&1; echo "$t rc=$?"; grep -E "^\[  (PASSED|FAILED) " "$out/${t}_tests.log"
done
for round in 1 2; do
  timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b \
    --input-len 32768 --output-len 16 --concurrency 1 --max-num-batched-tokens 32768 --json > "$out/ttft-q32k-one-step-$round.json" 2> "$out/ttft-q32k-one-step-$round.err"
  python3 -c "
import json; j=json.load(open('$out/ttft-q32k-one-step-$round.json'))
for r in j['results']: print('q32k one step round $round', 'TTFT %.1f ms' % r['ttft_ms']['median'])" 2>&1 | tail -1
done
for spec in qwen3-1.7b:8192 llama3-8b:8000; do
  model=${spec%%:*} input=${spec##*:}
  timeout -k 5 200 "$bin/vt" bench decode --backend cuda --load-format dummy --model "preset:$model" \
    --input-len "$input" --output-len 64 --concurrency 1,8 --json > "$out/$model-$input.json" 2> "$out/$model-$input.err"
  python3 - "$out/$model-$input.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
med = lambda s: "-" if s["median"] is None else f"{s['median']:.2f}"
for r in j["results"]:
    roof = r["concurrency"] / r["roofline_tokens_per_s"] * 1e3
    print(f"  {sys.argv[1].split('/')[-1]} c={r['concurrency']}: {r['output_tokens_per_s']:.0f} tok/s, TTFT {med(r['ttft_ms'])} ms, TPOT {med(r['tpot_ms'])} (roofline {roof:.2f}), ITL decode-only {med(r['decode_itl_ms'])} p99 {r['decode_itl_ms']['p99'] or 0:.2f}, ITL with prefill {med(r['prefill_itl_ms'])} p99 {r['prefill_itl_ms']['p99'] or 0:.2f}")
PY
done
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
