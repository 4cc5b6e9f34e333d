#!/usr/bin/env bash
# Session run 6: the residual add + RMSNorm in the skinny GEMM's last CTA (VT_ROW_NORM=fused) against the separate
# kernel, same binary, 3 A/B rounds; the skinny tests, memcheck/racecheck on them; the engine suite;
# the serve mix as tools/gpu_serve_evidence.sh now reports it.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
ab() { python3 -c "
import json; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'A %.1f'%(sorted(r['a_tokens_per_s'])[1]), 'B %.1f'%(sorted(r['b_tokens_per_s'])[1]), 'median B/A %.4f'%r['median_ratio'], [round(x,4) for x in r['ratios']])" 2>&1 | tail -8; }
for model in qwen3-1.7b llama3-8b; do
  timeout -k 5 280 "$bin/vt" bench decode --backend cuda --load-format dummy --model preset:$model --input-len 32 \
    --output-len 128 --concurrency 1,2,4,8 --ab VT_ROW_NORM=separate VT_ROW_NORM=fused --ab-rounds 3 --json \
    > "$out/ab-$model-row-norm.json" 2> "$out/ab-$model-row-norm.err"
  echo "ab $model rc=$?"; ab "$out/ab-$model-row-norm.json" "$model"
done
timeout -k 5 200 "$bin/vt_gpu_prefill_gemm_tests" > "$out/prefill_gemm_tests.log" 2>&1; echo "prefill_gemm rc=$?"; tail -2 "$out/prefill_gemm_tests.log"
for tool in memcheck racecheck; do
  timeout -k 5 120 compute-sanitizer --tool $tool "$bin/vt_gpu_prefill_gemm_tests" --gtest_filter='*Skinny*' > "$out/skinny_$tool.log" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/skinny_$tool.log" | tail -3
done
timeout -k 5 200 "$bin/vt_gpu_forward_ops_tests" > "$out/forward_ops_tests.log" 2>&1; echo "forward_ops rc=$?"; tail -1 "$out/forward_ops_tests.log"
timeout -k 5 300 "$bin/vt_gpu_engine_tests" > "$out/engine_tests.log" 2>&1; echo "engine rc=$?"; grep -E "PASSED|FAILED|RowNorm" "$out/engine_tests.log" | tail -4
timeout -k 5 300 bash tools/gpu_serve_evidence.sh "$bin" "$out/mix" mix > "$out/mix.log" 2>&1; echo "mix rc=$?"; grep -E "^mix|^decode-only" "$out/mix.log"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
