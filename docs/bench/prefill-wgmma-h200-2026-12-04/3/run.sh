#!/usr/bin/env bash
# Session run 4: TTFT of whole-prompt prefills (c = 1) with the prefill attention on warp and on
# warpgroup MMAs, the transformers SDPA forward of the same lengths, and ncu of the wgmma kernel.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for spec in qwen3-1.7b:8192 qwen3-1.7b:32768 llama3-8b:8000; do
  model=${spec%%:*} input=${spec##*:}
  for mma in warp auto; do
    VT_ATTN_PREFILL_MMA=$mma timeout -k 5 150 "$bin/vt" bench decode --backend cuda --load-format dummy --model "preset:$model" \
      --input-len "$input" --output-len 64 --concurrency 1 --json > "$out/ttft-$model-$input-$mma.json" 2> "$out/ttft-$model-$input-$mma.err"
    python3 -c "
import json; j=json.load(open('$out/ttft-$model-$input-$mma.json'))
for r in j['results']: print('$model $input $mma', 'TTFT med %.1f ms' % r['ttft_ms']['median'], 'TPOT %.2f' % r['tpot_ms']['median'])" 2>&1 | tail -1
  done
done
PYTHONUNBUFFERED=1 timeout -k 5 200 "${python_env[@]}" python3 tools/hf_prefill_anchor.py > "$out/hf_prefill.json" 2> "$out/hf_prefill.err"
echo "hf rc=$?"; grep '^hf prefill' "$out/hf_prefill.err"; cat "$out/hf_prefill.json"
timeout -k 5 200 ncu --set full --graph-profiling node -k regex:PrefillWgmma --launch-count 1 -o "$out/wgmma-q32k" \
  "$bin/vt" bench prefill-attention --shapes qwen3-1.7b --lengths 32768 --chunk 0 --reps 1 > "$out/ncu.log" 2>&1
echo "ncu rc=$?"; tail -3 "$out/ncu.log"
ncu --import "$out/wgmma-q32k.ncu-rep" --page details --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis > "$out/ncu-details.txt" 2>&1
grep -E "Duration|Throughput|Pipe|Issue|Eligible|Stall|Achieved Occupancy|L2 Hit|Registers|Block Limit|Active Warps|Warp Cycles" "$out/ncu-details.txt" | head -60
ncu --import "$out/wgmma-q32k.ncu-rep" --page raw --csv 2>/dev/null | python3 -c "
import csv,sys
rows=list(csv.reader(sys.stdin))
if len(rows)>=3:
  h,u,v=rows[0],rows[1],rows[2]
  for k,unit,val in zip(h,u,v):
    if 'smsp__pcsamp_warps_issue_stalled' in k and not k.endswith('not_issued'):
      try:
        if float(val.replace(',',''))>0: print(k, val)
      except: pass
    if 'pipe_tensor' in k and 'pct' in k: print(k, val)
" | sort -t' ' -k2 -g -r | head -25
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
