#!/usr/bin/env bash
# Session run 2: (a) skinny GEMM with an L2 prefetch of its first weights before the PDL wait (vt)
# against vt_base (HEAD faaf09c), interleaved; (b) qwen3-1.7b 32k TTFT with 8k/16k/32k-token prefill
# steps beside the transformers forward; (c) ncu per-kernel durations of qwen3-1.7b c=1 decode steps.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
summ() { python3 -c "
import json,sys; j=json.load(open('$1'))
for r in j['results']: print('$2', 'c=%d'%r['concurrency'], 'tok/s %.1f'%r['output_tokens_per_s'], 'TPOT %.3f'%r['tpot_ms']['median'], 'TTFT %.1f'%r['ttft_ms']['median'])" 2>&1 | tail -6; }
for round in 1 2; do
  for b in vt_base vt; do
    timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32 \
      --output-len 128 --concurrency 1,2,4 --json > "$out/q-$b-$round.json" 2> "$out/q-$b-$round.err"
    summ "$out/q-$b-$round.json" "qwen3 $b r$round"
    timeout -k 5 150 "$bin/$b" bench decode --backend cuda --load-format dummy --model preset:llama3-8b --input-len 32 \
      --output-len 128 --concurrency 1,4 --json > "$out/l-$b-$round.json" 2> "$out/l-$b-$round.err"
    summ "$out/l-$b-$round.json" "llama3 $b r$round"
  done
done
for round in 1 2; do
  for step in 16384 32768 8192; do
    timeout -k 5 150 "$bin/vt_base" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32768 \
      --output-len 4 --concurrency 1 --max-num-batched-tokens $step --json > "$out/q32k-step$step-$round.json" 2> "$out/q32k-step$step-$round.err"
    summ "$out/q32k-step$step-$round.json" "qwen3 32k step $step r$round"
  done
done
PYTHONUNBUFFERED=1 timeout -k 5 200 "${python_env[@]}" python3 tools/hf_prefill_anchor.py --runs qwen3-1.7b:32768,qwen3-1.7b:32768 > "$out/hf_prefill.json" 2> "$out/hf_prefill.err"
echo "hf rc=$?"; grep '^hf prefill' "$out/hf_prefill.err"
timeout -k 5 240 ncu --graph-profiling node --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv --page raw \
  -k 'regex:Skinny|RmsNorm|Qkv|Persist|Merge|Silu|Argmax|Embedding|Gqa' --launch-count 3000 \
  "$bin/vt_base" bench decode --backend cuda --load-format dummy --model preset:qwen3-1.7b --input-len 32 --output-len 3 \
  --concurrency 1 > "$out/ncu-steps.csv" 2> "$out/ncu-steps.err"
echo "ncu rc=$?"; wc -l "$out/ncu-steps.csv"; tail -2 "$out/ncu-steps.err"
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
