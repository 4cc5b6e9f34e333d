#!/usr/bin/env bash
# Session run 1: GPU suites on HEAD (launcher change 57f8a65); decode attention diagnosis:
# persist arm with shuffled vs in-order pages, a loads-only variant, a 3-stage variant, SDPA beside;
# ncu of the persist kernel and of SDPA's kernel at qwen3-1.7b B8 8k.
default_parts=all
source tools/gpu_evidence_common.sh .gpu/bin "$OUT/ev" all
for s in attention forward_ops prefill_gemm w4a16 engine; do
  t="$bin/vt_gpu_${s}_tests"; [ -x "$t" ] || { echo "no $t"; continue; }
  timeout -k 5 240 "$t" > "$out/suite-$s.log" 2>&1; echo "suite $s rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/suite-$s.log" | tr '\n' ' ')"
done
att() {  # binary label pages
  timeout -k 5 120 "$bin/$1" bench attention --arms persist --shapes qwen3-1.7b,llama3-8b --batches 8,64 \
    --contexts 4096,8192,16384 --pages $3 --json > "$out/att-$2-$3.json" 2> "$out/att-$2-$3.err"
  python3 -c "
import json; j=json.load(open('$out/att-$2-$3.json'))
for r in j['rows']: print('$2 $3', r['shape'], 'B%d'%r['batch'], r['context'], '%.1f us'%r.get('us',0), '%.0f%%'%r.get('copy_pct',0))"
}
for v in vt vt_nocompute vt_stage3; do att $v ${v#vt_} shuffled; att $v ${v#vt_} in-order; done
PYTHONUNBUFFERED=1 timeout -k 5 200 "${python_env[@]}" python3 tools/sdpa_decode_anchor.py --shapes qwen3-1.7b,llama3-8b \
  --batches 8,64 --contexts 4096,8192,16384 > "$out/sdpa.json" 2> "$out/sdpa.err"; echo "sdpa rc=$?"; grep '^# sdpa' "$out/sdpa.err" | cut -c1-200
att vt vt2 shuffled
secs="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section SchedulerStats --section LaunchStats"
for pg in shuffled in-order; do
  timeout -k 5 120 ncu $secs -k regex:DecodePersistent -c 1 "$bin/vt" bench attention --arms persist --shapes qwen3-1.7b \
    --batches 8 --contexts 8192 --pages $pg --launches 2 --reps 1 > "$out/ncu-persist-$pg.txt" 2>&1; echo "ncu persist $pg rc=$?"
done
cat > /tmp/sdpa_one.py <<'PY'
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import sys
b, hq, hkv, ctx, d = 8, 16, 8, 8192, 128
q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16); v = torch.randn_like(k)
with sdpa_kernel(getattr(SDPBackend, sys.argv[1])):
    for _ in range(3): F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
PY
for be in FLASH_ATTENTION CUDNN_ATTENTION; do
  timeout -k 5 150 "${python_env[@]}" ncu $secs -k regex:'flash|fmha|cudnn|sm90|xmma|attn' -s 2 -c 1 python3 /tmp/sdpa_one.py $be \
    > "$out/ncu-sdpa-$be.txt" 2>&1; echo "ncu sdpa $be rc=$?"
done
grep -E 'DRAM Throughput|Memory Throughput|Duration|L2 Hit Rate|Achieved Occupancy|Registers Per|Block Size|Grid Size|Dynamic Shared|^  [a-zA-Z_].*\(' "$out"/ncu-*.txt | cut -c1-180 | head -120
cd "$OUT" && tar czf ev.tgz ev && rm -rf ev
